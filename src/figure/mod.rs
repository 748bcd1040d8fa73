//! Bone trees (seed 002) with eased keyframe tracks, squash and stretch and
//! one-shot clips (seed 000), baked to nested groups.
//!
//! - [`file`]: the rig-file sections `bones`, `root`, `play`, `clips`.
//! - [`model`]: validation and the drivers' formulas (constant, sine,
//!   eased track with exact easings).
//! - [`fk`]: forward kinematics, `M_b = M_parent · translate(at) · rotate(θ)`.
//! - [`bake`]: drivers → parent-relative keys → [`crate::clip::Clip`]s.
//!
//! Angles are radians after validation (degrees in the file), positive
//! clockwise on screen (y down); lengths are user units.

pub mod bake;
pub mod file;
pub mod fk;
pub mod model;

pub use model::Figure;

use crate::clip::{Clip, Route};
use crate::measure::{self, LegMeasure};

/// One route's bake of a figure: its clips, the SVG, and per clip the
/// measured tip drift of every bone against the FK ideal.
#[derive(Debug, Clone)]
pub struct FigureBake {
    pub clips: Vec<Clip>,
    pub svg: String,
    /// `(clip name, per-bone measurement)` in clip order.
    pub measures: Vec<(String, Vec<LegMeasure>)>,
    /// Times evaluated per clip (the largest).
    pub samples: usize,
    /// Remarks for the report.
    pub notes: Vec<String>,
}

/// Bake, emit and measure a figure for one route.
///
/// css: every clip in one file, switched by a `clip-<name>` class on the
/// root. smil: a class cannot restart SMIL animations (they run on the
/// document timeline), so only the first clip is written, with a note.
pub fn bake_figure(name: &str, view_box: [f64; 4], fig: &Figure, route: Route) -> FigureBake {
    let mut clips = bake::bake(name, view_box, fig, route);
    let mut notes = Vec::new();
    let switched = fig.switched && route == Route::Css;
    if route == Route::Smil && clips.len() > 1 {
        clips.truncate(1);
        notes.push(format!(
            "smil route: clips cannot be switched by a class; only the first clip ({}) is written, use the css route for switching",
            fig.clips[0].name
        ));
    }
    let svg = crate::emit::figure::emit_figure(&clips, switched, &bake::colours(fig));
    let mut measures = Vec::new();
    let mut samples = 0;
    for (clip, fc) in clips.iter().zip(&fig.clips) {
        let probes: Vec<String> = fig
            .bones
            .iter()
            .map(|b| format!("{}-tip", b.name))
            .collect();
        let period = clip.period_s;
        let (m, n) =
            measure::measure_probes(clip, &probes, &|t_s| bake::ideal_tips(fig, fc, period, t_s));
        samples = samples.max(n);
        measures.push((fc.name.clone(), m));
    }
    FigureBake {
        clips,
        svg,
        measures,
        samples,
        notes,
    }
}
