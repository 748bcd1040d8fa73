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
pub mod chain;
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
    /// One line per Verlet chain (first clip).
    pub chains: Vec<ChainMeasure>,
}

/// What the bake of one Verlet chain measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainMeasure {
    pub name: String,
    /// Uniform keys per period of every segment's morph.
    pub keys: usize,
    /// Max distance of any written particle from the simulated one
    /// (recorded frames interpolated linearly), px.
    pub max_deviation_px: f64,
    /// Max particle distance between the loop's first and last recorded frame, px.
    pub seam_error_px: f64,
    pub converged: bool,
    pub warmup_periods: usize,
}

/// Add every chain of `fig` to `clip` (world space, drawn over the bones),
/// each with the fewest uniform keys (see [`chain`]) whose measured
/// particle deviation is within [`chain::SEAM_TOLERANCE_PX`]; extends
/// `colours` with the chains' gradient colours.
fn add_chains(clip: &mut Clip, fig: &Figure, colours: &mut Vec<String>) -> Vec<ChainMeasure> {
    let mut out = Vec::new();
    for ch in &fig.chains {
        for c in &ch.colours {
            if !colours.contains(c) {
                colours.push(c.clone());
            }
        }
        let class_of = |c: &str| {
            format!(
                "rb-bone rb-s{}",
                colours.iter().position(|x| x == c).unwrap_or(0)
            )
        };
        let probes: Vec<String> = (1..ch.params.count).map(|i| chain::probe(ch, i)).collect();
        let period = clip.period_s;
        let ideal =
            |t_s: f64| chain::particles_at(ch, (t_s / period).rem_euclid(1.0))[1..].to_vec();
        let counts = chain::key_counts();
        let mut chosen = None;
        for (k, &n) in counts.iter().enumerate() {
            let items = chain::items(ch, n, &class_of);
            let mini = Clip {
                tracks: Vec::new(),
                root: crate::clip::Node {
                    children: items.clone(),
                    ..Default::default()
                },
                legs: Vec::new(),
                figure: None,
                ..clip.clone()
            };
            let (m, _) = measure::measure_probes(&mini, &probes, &ideal);
            let worst = m.iter().map(|x| x.max_error_px).fold(0.0, f64::max);
            if worst <= chain::SEAM_TOLERANCE_PX || k + 1 == counts.len() {
                chosen = Some((n, items));
                break;
            }
        }
        let (n, items) = chosen.expect("at least one key count");
        clip.root.children.extend(items);
        let (m, _) = measure::measure_probes(clip, &probes, &ideal);
        out.push(ChainMeasure {
            name: ch.name.clone(),
            keys: n,
            max_deviation_px: m.iter().map(|x| x.max_error_px).fold(0.0, f64::max),
            seam_error_px: ch.recording.seam_error_px,
            converged: ch.recording.converged,
            warmup_periods: ch.recording.warmup_periods,
        });
    }
    out
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
            "smil route: clips cannot be switched by a class; only the first clip ({}) is written, use the css route for switching or --clip NAME for one clip per file",
            fig.clips[0].name
        ));
    }
    let mut colours = bake::colours(fig);
    let chains = match clips.first_mut() {
        Some(c) if !fig.chains.is_empty() => add_chains(c, fig, &mut colours),
        _ => Vec::new(),
    };
    let svg = crate::emit::figure::emit_figure(&clips, switched, &colours);
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
        chains,
    }
}
