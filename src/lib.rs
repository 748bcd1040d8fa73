//! rigbake: bake procedural 2D character motion into runtime-free animated SVG.
//!
//! # Pipeline
//!
//! ```text
//! rig file ──rig::parse/validate──▶ Rig ──motion::sample──▶ Motion (ideal poses over one period)
//!   ──bake::bake──▶ Clip (parent-relative tracks + keys, rounded as written)
//!   ──emit::emit──▶ SVG text
//!   ──measure::measure (evaluates the written tracks as a browser does)──▶ Report
//! ```
//!
//! Each stage is a pure function of the previous one; files and exit codes
//! live in `main.rs` only. [`bake_rig`] runs the whole pipeline.
//!
//! # Units and angles
//!
//! Lengths and coordinates are SVG user units ("px"), y pointing down. Times
//! are seconds (`_s`) or normalised `t ∈ [0, 1]` of one period. Angles are
//! radians (`_rad`) except where CSS/SVG want degrees (`_deg`, emit only).
//! **A positive angle turns +x toward +y: clockwise on screen**, the same sense
//! as CSS `rotate()`.
//!
//! # Modules
//!
//! - [`geom`]: `Vec2`, `Affine`, angle wrap/unwrap, the one number formatter.
//! - [`rig`]: the JSON format, validation, `RigError`.
//! - [`motion`]: crank trajectories and the ideal (unwrapped) IK motion.
//! - [`solve`]: two-bone IK.
//! - [`bake`]: world angles → parent-relative keyframes; far-leg reuse.
//! - [`clip`]: the written animation as data.
//! - [`emit`]: clip → SVG (css or smil route).
//! - [`measure`]: independent evaluator of the written clip.
//! - [`report`]: per-leg figures as text or JSON.
//! - [`browser`]: headless Chromium driver used by the browser tests and previews.

pub mod bake;
pub mod browser;
pub mod clip;
pub mod emit;
pub mod geom;
pub mod measure;
pub mod motion;
pub mod report;
pub mod rig;
pub mod solve;

pub use clip::Route;

/// A finished bake: the clip, its SVG text and its report.
#[derive(Debug, Clone)]
pub struct Baked {
    pub clip: clip::Clip,
    pub svg: String,
    pub report: report::Report,
}

/// Run the whole pipeline on a validated rig.
pub fn bake_rig(rig: &rig::Rig, opts: &bake::BakeOptions) -> Baked {
    let motion = motion::sample(rig);
    let clip = bake::bake(rig, &motion, opts);
    let svg = emit::emit(&clip);
    let m = measure::measure(&clip);
    let report = report::build(&clip, &m, svg.len());
    Baked { clip, svg, report }
}
