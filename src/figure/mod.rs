//! Bone trees (seed 002) with eased keyframe tracks, squash and stretch and
//! one-shot clips (seed 000), baked to nested groups.
//!
//! - [`file`]: the rig-file sections `bones`, `root`, `play`, `clips`, `ik`.
//! - [`model`]: validation and the drivers' formulas (constant, sine,
//!   eased track with exact easings).
//! - [`fk`]: forward kinematics, `M_b = M_parent · translate(at) · rotate(θ)`,
//!   with `ik` bones solved on the way down the tree.
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
    /// Per written clip and `ik` entry: the effector (lower tip) against
    /// its ideal target, with foot slip over a ground.
    pub ik: Vec<IkMeasure>,
}

/// What was measured for one `ik` entry in one clip.
#[derive(Debug, Clone)]
pub struct IkMeasure {
    /// Index into [`FigureBake::clips`].
    pub clip: usize,
    /// The entry as a leg: name `<upper>-<lower>` (prefixed `<clip>:` when
    /// clips are switched), effector probe, the two bones' tracks.
    pub leg: crate::clip::LegInfo,
    /// `slip_px` is set with a ground and a gait target.
    pub measure: LegMeasure,
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
    let ik = measure_ik(fig, &clips);
    FigureBake {
        clips,
        svg,
        measures,
        samples,
        notes,
        chains,
        ik,
    }
}

/// Measure every `ik` entry of every written clip: the lower bone's tip
/// probe against [`fk::ik_ideal`] (the target, pulled for `"pull"`), and
/// with a ground and a gait target the foot slip per step
/// ([`measure::foot_slip_px`], as for `ik_chains`).
fn measure_ik(fig: &Figure, clips: &[Clip]) -> Vec<IkMeasure> {
    let mut out = Vec::new();
    for (ci, (clip, fc)) in clips.iter().zip(&fig.clips).enumerate() {
        let period = clip.period_s;
        let infos = clip.figure.as_ref().map_or(&[][..], |f| &f.bones[..]);
        for (i, k) in fig.ik.iter().enumerate() {
            let (up, lo) = (&fig.bones[k.upper], &fig.bones[k.lower]);
            let probe = format!("{}-tip", lo.name);
            let ideal = |t_s: f64| {
                let u = match fc.play {
                    file::Play::Once => (t_s / period).clamp(0.0, 1.0),
                    file::Play::Loop => (t_s / period).rem_euclid(1.0),
                };
                vec![fk::ik_ideal(fig, fc, u)[i]]
            };
            let (mut m, _) = measure::measure_probes(clip, std::slice::from_ref(&probe), &ideal);
            let mut m = m.remove(0);
            let prefix = if fig.switched {
                format!("{}:", fc.name)
            } else {
                String::new()
            };
            let leg = crate::clip::LegInfo {
                name: format!("{prefix}{}-{}", up.name, lo.name),
                ankle_probe: probe.clone(),
                target_probe: probe,
                thigh: up.length,
                shin: lo.length,
                tracks: [k.upper, k.lower]
                    .iter()
                    .filter_map(|&b| infos.get(b).and_then(|x| x.track))
                    .collect(),
                fit: crate::fit::Fit::Cubic,
                reuses: None,
                ideal: Some(crate::chain::IdealTarget {
                    root: k.target.clone(),
                    target: k.target.clone(),
                    pull_to: None,
                    offset: crate::geom::Vec2::ZERO,
                }),
            };
            m.name = leg.name.clone();
            m.slip_px = measure::foot_slip_px(clip, &leg);
            out.push(IkMeasure {
                clip: ci,
                leg,
                measure: m,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// At the key times of the IK tracks only rounding is left between the
    /// written effector and the ideal target, on both routes (walker).
    #[test]
    fn written_effector_hits_the_target_at_key_times_on_both_routes() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rigs/walker.json"))
                .unwrap();
        let rig = crate::rig::load(&text).unwrap();
        let fig = rig.figure.as_ref().unwrap();
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&rig.name, rig.view_box, fig, route);
            let clip = &fb.clips[0];
            assert_eq!(fb.ik.len(), 2);
            for im in &fb.ik {
                let i = fig
                    .ik
                    .iter()
                    .position(|k| im.leg.name.starts_with(&fig.bones[k.upper].name))
                    .unwrap();
                let keys = &clip.tracks[im.leg.tracks[0]].keys;
                assert!(keys.len() > 4);
                for k in keys {
                    let got = measure::probes_at(clip, k.t * clip.period_s)[&im.leg.ankle_probe];
                    let want = fk::ik_ideal(fig, &fig.clips[0], k.t.rem_euclid(1.0))[i];
                    assert!(
                        got.dist(want) < 0.01,
                        "{route:?} {} t = {}: {}",
                        im.leg.name,
                        k.t,
                        got.dist(want)
                    );
                }
                assert!(im.measure.max_error_px < 0.1, "{}", im.measure.max_error_px);
            }
        }
    }
}
