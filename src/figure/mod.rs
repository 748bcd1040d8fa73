//! Bone trees (seed 002) with eased keyframe tracks, squash and stretch and
//! one-shot clips (seed 000), baked to nested groups.
//!
//! - [`file`]: the rig-file sections `bones`, `root`, `play`, `clips`, `ik`.
//! - [`model`]: validation and the drivers' formulas (constant, sine,
//!   eased track with exact easings).
//! - [`fk`]: forward kinematics, `M_b = M_parent · translate(at) · rotate(θ)`,
//!   with `ik` bones solved on the way down the tree.
//! - [`bake`]: drivers → parent-relative keys → [`crate::clip::Clip`]s.
//! - [`chain`]: Verlet chains (hair, ponytail, scarf) looped and baked as a
//!   nested rotation chain (css) or Catmull-Rom `d` morphs (smil).
//! - [`spring`]: spring-follow bones (a lagging, overshooting head).
//!
//! Angles are radians after validation (degrees in the file), positive
//! clockwise on screen (y down); lengths are user units.

pub mod bake;
pub mod chain;
pub mod file;
pub mod fk;
pub mod model;
pub mod reuse;
pub mod scene;
pub mod spring;

pub use model::Figure;

use crate::clip::{Clip, Route};
use crate::geom::quantize;
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
    /// One line per spring (first clip).
    pub springs: Vec<SpringMeasure>,
}

/// What the bake of one spring measured (also its report line).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SpringMeasure {
    /// The bone.
    pub bone: String,
    /// Uniform keys per period of each translate track.
    pub keys: usize,
    /// Max distance of a written bone tip of the subtree from FK + the
    /// simulated offset, px, measured on the written clip.
    pub max_tip_error_px: f64,
    /// Largest `|spring − target|` over the loop (the lag), px.
    pub max_lag_px: f64,
    /// Spring point distance between the first and last frame of the loop, px.
    pub seam_error_px: f64,
    pub converged: bool,
    pub warmup_periods: usize,
}

/// The ideal tips of every bone: FK plus the offsets of the springs in
/// `applied` (indices into `fig.springs`) at or above each bone.
fn ideal_tips(
    fig: &Figure,
    fc: &model::FigClip,
    period: f64,
    t_s: f64,
    applied: &[usize],
) -> Vec<crate::geom::Vec2> {
    let mut tips = bake::ideal_tips(fig, fc, period, t_s);
    if !applied.is_empty() {
        let u = (t_s / period).rem_euclid(1.0);
        for (b, tip) in tips.iter_mut().enumerate() {
            for &i in applied {
                let s = &fig.springs[i];
                if spring::in_subtree(fig, s.bone, b) {
                    *tip = *tip + s.offset_at(u);
                }
            }
        }
    }
    tips
}

/// Wrap every spring's bone in its translate groups (parents' springs
/// first), each with the fewest uniform keys whose measured subtree tip
/// error is within [`spring::SPRING_BUDGET_PX`].
fn add_springs(clip: &mut Clip, fig: &Figure) -> Vec<SpringMeasure> {
    let fc = &fig.clips[0];
    let mut order: Vec<usize> = (0..fig.springs.len()).collect();
    order.sort_by_key(|&i| fig.springs[i].bone);
    let mut applied = Vec::new();
    let mut out = Vec::new();
    let period = clip.period_s;
    for i in order {
        let s = &fig.springs[i];
        applied.push(i);
        let subtree: Vec<usize> = (0..fig.bones.len())
            .filter(|&b| spring::in_subtree(fig, s.bone, b))
            .collect();
        let probes: Vec<String> = subtree
            .iter()
            .map(|&b| format!("{}-tip", fig.bones[b].name))
            .collect();
        let ideal = |t_s: f64| {
            let all = ideal_tips(fig, fc, period, t_s, &applied);
            subtree.iter().map(|&b| all[b]).collect()
        };
        let counts = chain::key_counts();
        let mut best = None;
        for &n in &counts {
            let mut trial = clip.clone();
            let fit = match clip.route {
                Route::Css => crate::fit::Fit::Cubic,
                Route::Smil => crate::fit::Fit::Linear,
            };
            spring::apply(&mut trial, fig, s, spring::keys(fig, fc, s, n, fit));
            let (m, _) = measure::measure_probes(&trial, &probes, &ideal);
            let worst = m.iter().map(|x| x.max_error_px).fold(0.0, f64::max);
            if worst <= spring::SPRING_BUDGET_PX || n == counts[counts.len() - 1] {
                best = Some((n, trial, worst));
                break;
            }
        }
        let (n, trial, worst) = best.expect("at least one key count");
        *clip = trial;
        out.push(SpringMeasure {
            bone: fig.bones[s.bone].name.clone(),
            keys: n,
            max_tip_error_px: worst,
            max_lag_px: s.max_lag_px(),
            seam_error_px: s.recording.seam_error_px,
            converged: s.recording.converged,
            warmup_periods: s.recording.warmup_periods,
        });
    }
    out
}

/// What was measured for one `ik` entry in one clip.
#[derive(Debug, Clone)]
pub struct IkMeasure {
    /// Index into [`FigureBake::clips`].
    pub clip: usize,
    /// The entry as a leg: name `<upper>-<lower>` (prefixed `<clip>:` when
    /// clips are switched), effector probe, the two bones' tracks.
    pub leg: crate::clip::LegInfo,
    /// `slip_px` is set with a ground and a gait target; `reach_px` always.
    pub measure: LegMeasure,
    /// Largest distance of the written target probe `<lower>-target` from
    /// the target the entry asks for, px.
    pub target_error_px: f64,
    /// Largest distance between the written effector and the written
    /// target probe, px: the foot-to-target distance any tool reads from
    /// the file (`reach_px` give or take `max_error_px + target_error_px`).
    pub foot_to_target_px: f64,
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
    /// Largest relative deviation of a simulated segment length from the
    /// rest length over the recorded frames (0.01 = 1 %).
    pub max_length_error: f64,
}

/// Every how many of the measure's sample times a chain's key count is
/// first checked against the budget (see [`add_chains`]).
const PRECHECK_STRIDE: usize = 8;

/// Add every chain of `fig` to `clip` (world space; a near chain is drawn
/// over the bones, a far one under them): on the css route as a nested
/// rotation chain ([`chain::rotation_items`]), on the smil route as
/// Catmull-Rom `d` morphs ([`chain::morph_items`]), each with the fewest
/// uniform keys (see [`chain`]) whose measured particle deviation is within
/// [`chain::KEY_BUDGET_PX`]; extends `colours` with the chains'
/// gradient colours; a segment's class is `class_prefix` followed by its
/// colour's index in `colours`.
pub fn add_chains(
    clip: &mut Clip,
    chains: &[chain::Chain],
    colours: &mut Vec<String>,
    class_prefix: &str,
) -> Vec<ChainMeasure> {
    let mut out = Vec::new();
    let clip_name = clip
        .figure
        .as_ref()
        .map_or_else(|| model::DEFAULT_CLIP.to_string(), |f| f.clip.clone());
    for ch in chains {
        for c in &ch.colours {
            if !colours.contains(c) {
                colours.push(c.clone());
            }
        }
        let class_of = |c: &str| {
            format!(
                "{class_prefix}{}",
                colours.iter().position(|x| x == c).unwrap_or(0)
            )
        };
        let build = |n: usize, base: usize| match clip.route {
            Route::Css => {
                chain::rotation_items(ch, n, &clip_name, base, crate::fit::Fit::Cubic, &class_of)
            }
            Route::Smil => (Vec::new(), chain::morph_items(ch, n, &class_of)),
        };
        let probes: Vec<String> = (1..ch.params.count).map(|i| chain::probe(ch, i)).collect();
        let period = clip.period_s;
        let ideal =
            |t_s: f64| chain::particles_at(ch, (t_s / period).rem_euclid(1.0))[1..].to_vec();
        let counts = chain::key_counts();
        let mut chosen = counts[counts.len() - 1];
        for &n in &counts {
            let (tracks, items) = build(n, 0);
            let mini = Clip {
                tracks,
                root: crate::clip::Node {
                    children: items,
                    ..Default::default()
                },
                legs: Vec::new(),
                figure: None,
                ..clip.clone()
            };
            // A count whose error already exceeds the budget at every
            // PRECHECK_STRIDE-th of the measure's own sample times is out
            // without the full measure (the max over all samples is at
            // least that): the same choice, at a fraction of the cost for
            // the counts that fail.
            let over = measure::sample_times(&mini)
                .iter()
                .step_by(PRECHECK_STRIDE)
                .any(|&t| {
                    let at = measure::probes_at(&mini, t);
                    probes.iter().zip(ideal(t)).any(|(p, w)| {
                        at.get(p)
                            .is_some_and(|q| q.dist(w) > chain::KEY_BUDGET_PX + 1e-9)
                    })
                });
            if over {
                continue;
            }
            let (m, _) = measure::measure_probes(&mini, &probes, &ideal);
            let worst = m.iter().map(|x| x.max_error_px).fold(0.0, f64::max);
            if worst <= chain::KEY_BUDGET_PX {
                chosen = n;
                break;
            }
        }
        let (tracks, items) = build(chosen, clip.tracks.len());
        clip.tracks.extend(tracks);
        if ch.far {
            clip.root.children.splice(0..0, items);
        } else {
            clip.root.children.extend(items);
        }
        let (m, _) = measure::measure_probes(clip, &probes, &ideal);
        out.push(ChainMeasure {
            name: ch.name.clone(),
            keys: chosen,
            max_deviation_px: m.iter().map(|x| x.max_error_px).fold(0.0, f64::max),
            seam_error_px: ch.recording.seam_error_px,
            converged: ch.recording.converged,
            warmup_periods: ch.recording.warmup_periods,
            max_length_error: chain::max_length_error(ch),
        });
    }
    out
}

/// Bake, emit and measure a figure for one route.
///
/// css: every clip in one file, switched by a `<prefix>-clip-<name>` class on the
/// root. smil: a class cannot restart SMIL animations (they run on the
/// document timeline), so only the first clip is written, with a note.
///
/// `prefix`: the names' scope prefix (`bake --prefix`), `None` for the
/// automatic one (see [`crate::emit::scope`]).
pub fn bake_figure(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    route: Route,
    prefix: Option<&str>,
) -> FigureBake {
    let mut plan = reuse::plan(fig, route);
    if !plan.reuses() {
        return bake_planned(name, view_box, fig, route, prefix, &plan);
    }
    // Far-limb key reuse, taken only where no probe measures worse than
    // with keys of its own (as the report rounds it): a reused chain
    // inherits its source's fitting error, so each source chain may be
    // fitted tighter; per pair of chains the smallest file whose probes of
    // those two chains pass wins, and the whole is checked again at the end
    // (else reuse is left out).
    let own = bake_planned(name, view_box, fig, route, prefix, &reuse::Plan::none(fig));
    let pairs: Vec<(usize, usize)> = plan
        .chains
        .iter()
        .flatten()
        .map(|&(a, b, _)| (a, b))
        .collect();
    for (a, b) in pairs {
        let source = reuse::Plan::chain(fig, a);
        let mut bones = vec![false; fig.bones.len()];
        for &x in source.iter().chain(&reuse::Plan::chain(fig, b)) {
            bones[x] = true;
        }
        let mut best: Option<(usize, f64)> = None;
        let mut scale = 1.0;
        for _ in 0..REUSE_TRIES {
            let mut p = plan.clone();
            for &x in &source {
                p.source_scale[x] = scale;
            }
            let fb = bake_planned(name, view_box, fig, route, prefix, &p);
            if no_worse(fig, &fb, &own, &bones) && best.is_none_or(|(n, _)| fb.svg.len() < n) {
                best = Some((fb.svg.len(), scale));
            }
            scale *= 0.6;
        }
        let Some((_, scale)) = best else {
            return own;
        };
        for &x in &source {
            plan.source_scale[x] = scale;
        }
    }
    let fb = bake_planned(name, view_box, fig, route, prefix, &plan);
    if no_worse(fig, &fb, &own, &vec![true; fig.bones.len()]) {
        fb
    } else {
        own
    }
}

/// How many budgets (1, 0.6, 0.36, …) [`bake_figure`] tries for the
/// shared keys.
const REUSE_TRIES: usize = 6;

/// Places to which [`no_worse`] compares: those the report prints.
const COMPARE_DECIMALS: u32 = 4;

/// Foot slip that [`no_worse`] overlooks: half of the written length
/// rounding (the ground's travel per period is written to 0.01 px, so a
/// slip difference below 0.005 px per step is the rounding's, not the keys').
const SLIP_SLACK_PX: f64 = 0.005;

/// Every probe of `a` on the bones marked in `bones` (tips, rims, IK
/// effectors with their slip and reach) measures at most what it measures
/// in `b`, at the report's rounding (foot slip within [`SLIP_SLACK_PX`]).
fn no_worse(fig: &Figure, a: &FigureBake, b: &FigureBake, bones: &[bool]) -> bool {
    let q = |x: f64| quantize(x, COMPARE_DECIMALS);
    let le = |x: f64, y: f64| q(x) <= q(y);
    let opt = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => le(x, y),
        _ => x.is_none() == y.is_none(),
    };
    let nb = fig.bones.len();
    // measures: one per bone in bone order, then one rim per head bone
    let heads: Vec<usize> = (0..nb)
        .filter(|&x| fig.bones[x].head_radius.is_some())
        .collect();
    let bone_of = |i: usize| if i < nb { i } else { heads[i - nb] };
    a.measures
        .iter()
        .zip(&b.measures)
        .all(|((_, ma), (_, mb))| {
            ma.iter()
                .zip(mb)
                .enumerate()
                .all(|(i, (x, y))| !bones[bone_of(i)] || le(x.max_error_px, y.max_error_px))
        })
        && a.ik
            .iter()
            .zip(&b.ik)
            .zip(fig.ik.iter().cycle())
            .all(|((x, y), k)| {
                !bones[k.upper]
                    || (le(x.measure.max_error_px, y.measure.max_error_px)
                        && opt(
                            x.measure.slip_px,
                            y.measure.slip_px.map(|s| s + SLIP_SLACK_PX),
                        )
                        && opt(x.measure.reach_px, y.measure.reach_px))
            })
}

/// [`bake_figure`] with a given reuse plan: reused chains are drawn in the
/// plan's pose, which makes the shared keys land on their own motion.
pub fn bake_planned(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    route: Route,
    prefix: Option<&str>,
    plan: &reuse::Plan,
) -> FigureBake {
    let drawn;
    let fig = if plan.drawn_rad == fig.rest_rad {
        fig
    } else {
        drawn = Figure {
            rest_rad: plan.drawn_rad.clone(),
            ..fig.clone()
        };
        &drawn
    };
    let mut clips = bake::bake(name, view_box, fig, route, plan);
    let mut notes = Vec::new();
    for (fc, chains) in fig.clips.iter().zip(&plan.chains).take(clips.len()) {
        for &(a, b, delay_s) in chains {
            notes.push(format!(
                "key reuse ({}): the chain from {} plays the keys of the chain from {}, {} s later (delay {delay_s} s)",
                fc.name, fig.bones[b].name, fig.bones[a].name, -delay_s
            ));
        }
    }
    let switched = fig.switched && route == Route::Css;
    if route == Route::Smil && clips.len() > 1 {
        clips.truncate(1);
        notes.push(format!(
            "smil route: clips cannot be switched by a class; only the first clip ({}) is written, use the css route for switching or --clip NAME for one clip per file",
            fig.clips[0].name
        ));
    }
    let mut colours = bake::colours(fig);
    let springs = match clips.first_mut() {
        Some(c) if !fig.springs.is_empty() => add_springs(c, fig),
        _ => Vec::new(),
    };
    let chains = match clips.first_mut() {
        Some(c) if !fig.chains.is_empty() => {
            add_chains(c, &fig.chains, &mut colours, "rb-bone rb-s")
        }
        _ => Vec::new(),
    };
    let svg = crate::emit::figure::emit_figure(&clips, switched, &colours, prefix);
    let mut measures = Vec::new();
    let mut samples = 0;
    for (clip, fc) in clips.iter().zip(&fig.clips) {
        let probes: Vec<String> = fig
            .bones
            .iter()
            .map(|b| format!("{}-tip", b.name))
            .collect();
        let period = clip.period_s;
        let all: Vec<usize> = (0..fig.springs.len()).collect();
        let (mut m, n) =
            measure::measure_probes(clip, &probes, &|t_s| ideal_tips(fig, fc, period, t_s, &all));
        samples = samples.max(n);
        for (name, rim) in measure_heads(fig, fc, clip, &all) {
            let keys = |suffix: &str| {
                let want = format!("rb-{}-{name}-head-{suffix}", fc.name);
                clip.tracks
                    .iter()
                    .find(|t| t.name == want)
                    .map_or(0, |t| t.keys.len())
            };
            notes.push(format!(
                "head {name} ({}): counter-rotation {} keys, counter-scale {}/{} keys (x/y); max rim error {:.4} px against the ideal rim (FK + root motion centre, radius r·(sx+sy)/2)",
                fc.name,
                keys("turn"),
                keys("x"),
                keys("y-sy"),
                rim.max_error_px
            ));
            m.push(rim);
        }
        measures.push((fc.name.clone(), m));
    }
    let ik = measure_ik(fig, &clips, plan);
    FigureBake {
        clips,
        svg,
        measures,
        samples,
        notes,
        chains,
        ik,
        springs,
    }
}

/// Measure every head (`head_radius`) of a written clip: its rim probes
/// `<bone>-rim-x`, `<bone>-rim-y` against `W(c) + m · r · (1, 0)` and
/// `W(c) + m · r · (0, 1)`, W(c) the ideal tip (FK, root motion, springs
/// in `applied`) and `m = (sx + sy)/2` of the ideal squash (1 without).
/// A figure without any squash draws a plain circle whose rim probes turn
/// with the bone: they are measured against `W(c) + R(Φ) · r · e` instead
/// (Φ the bone's ideal world turn). One line per head, named
/// `<bone>-rim`, the worse of the two probes.
pub fn measure_heads(
    fig: &Figure,
    fc: &model::FigClip,
    clip: &Clip,
    applied: &[usize],
) -> Vec<(String, LegMeasure)> {
    use crate::geom::Vec2;
    let period = clip.period_s;
    // the written structure has the counter groups (see bake::head_items)
    let squashed = fig.clips.iter().any(|c| c.root.squash.is_some());
    let mut out = Vec::new();
    for (b, bone) in fig.bones.iter().enumerate() {
        let Some(r) = bone.head_radius else { continue };
        let rest = fk::world_matrices(fig, &fig.rest_rad)[b];
        let probes = [
            format!("{}-rim-x", bone.name),
            format!("{}-rim-y", bone.name),
        ];
        let ideal = |t_s: f64| {
            let u = match fc.play {
                file::Play::Once => (t_s / period).clamp(0.0, 1.0),
                file::Play::Loop => (t_s / period).rem_euclid(1.0),
            };
            let m = fc.root.squash.as_ref().map_or(1.0, |s| {
                let sy = s.sy.eval(u);
                (1.0 + (1.0 - sy) * s.k + sy) / 2.0
            });
            let c = ideal_tips(fig, fc, period, t_s, applied)[b];
            let (ex, ey) = if squashed {
                (Vec2::new(m * r, 0.0), Vec2::new(0.0, m * r))
            } else {
                // the bone's world turn since the drawn pose (no squash:
                // root motion only translates)
                let w = fk::world_matrices(fig, &fk::local_angles(fig, fc, u))[b];
                let phi = w.b.atan2(w.a) - rest.b.atan2(rest.a);
                let (sin, cos) = phi.sin_cos();
                (Vec2::new(r * cos, r * sin), Vec2::new(-r * sin, r * cos))
            };
            vec![c + ex, c + ey]
        };
        let (ms, _) = measure::measure_probes(clip, &probes, &ideal);
        let worst = ms
            .into_iter()
            .max_by(|a, b| a.max_error_px.total_cmp(&b.max_error_px))
            .expect("two probes");
        out.push((
            bone.name.clone(),
            LegMeasure {
                name: format!("{}-rim", bone.name),
                ..worst
            },
        ));
    }
    out
}

/// Measure every `ik` entry of every written clip: the lower bone's tip
/// probe against [`fk::ik_ideal`] (the target, pulled for `"pull"`), and
/// with a ground and a gait target the foot slip per step
/// ([`measure::foot_slip_px`], as for `ik_chains`), and how far the aimed
/// point ever is from the target the rig asked for (`reach_px`).
fn measure_ik(fig: &Figure, clips: &[Clip], plan: &reuse::Plan) -> Vec<IkMeasure> {
    let mut out = Vec::new();
    for (ci, (clip, fc)) in clips.iter().zip(&fig.clips).enumerate() {
        let period = clip.period_s;
        let infos = clip.figure.as_ref().map_or(&[][..], |f| &f.bones[..]);
        for (i, k) in fig.ik.iter().enumerate() {
            let (up, lo) = (&fig.bones[k.upper], &fig.bones[k.lower]);
            let probe = format!("{}-tip", lo.name);
            let unit = |t_s: f64| match fc.play {
                file::Play::Once => (t_s / period).clamp(0.0, 1.0),
                file::Play::Loop => (t_s / period).rem_euclid(1.0),
            };
            let ideal = |t_s: f64| vec![fk::ik_ideal(fig, fc, unit(t_s))[i]];
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
                // the entry whose upper bone's keys this one plays
                reuses: plan.shared[ci][k.upper].and_then(|sh| {
                    let src = fig.ik.iter().find(|o| o.upper == sh.source)?;
                    Some(format!(
                        "{prefix}{}-{}",
                        fig.bones[src.upper].name, fig.bones[src.lower].name
                    ))
                }),
                ideal: Some(crate::chain::IdealTarget {
                    root: k.target.clone(),
                    target: k.target.clone(),
                    pull_to: None,
                    offset: crate::geom::Vec2::ZERO,
                }),
            };
            m.name = leg.name.clone();
            m.slip_px = measure::foot_slip_px(clip, &leg);
            // how far the aim (pulled for "pull") is from the target asked for
            m.reach_px = Some(
                measure::sample_times(clip)
                    .into_iter()
                    .map(|t_s| {
                        let u = unit(t_s);
                        k.target.at(u).dist(fk::ik_ideal(fig, fc, u)[i])
                    })
                    .fold(0.0, f64::max),
            );
            // the target probe, against the target asked for, and the
            // foot-to-target distance as written
            let target = format!("{}-target", lo.name);
            let asked = |t_s: f64| vec![k.target.at(unit(t_s))];
            let (tm, _) = measure::measure_probes(clip, std::slice::from_ref(&target), &asked);
            let foot_to_target_px = measure::sample_times(clip)
                .into_iter()
                .map(|t_s| {
                    let p = measure::probes_at(clip, t_s);
                    p[&leg.ankle_probe].dist(p[&target])
                })
                .fold(0.0, f64::max);
            out.push(IkMeasure {
                clip: ci,
                leg,
                measure: m,
                target_error_px: tm[0].max_error_px,
                foot_to_target_px,
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
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
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

    /// A head under a rotating ancestor (a sine, fitted keys), its own eased
    /// neck and a root squash: on both routes, at many times, the written
    /// rim probes sit at the written centre plus `m·r·(1, 0)` and
    /// `m·r·(0, 1)` (round, axis-aligned, radius by the mean scale) within
    /// the budget, and the measured rim line agrees.
    #[test]
    fn head_stays_round_under_squash_and_rotation() {
        let text = r#"{
            "name": "heady", "view_box": [0, 0, 400, 400], "period_s": 1.5,
            "bones": [
                {"name": "spine", "at": [200, 300], "length": 60,
                 "angle": {"sine": {"amp_deg": 25, "harmonic": 1, "offset_deg": -90}}},
                {"name": "neck", "parent": "spine", "length": 15,
                 "angle": {"track": {"keys": [[0, 0], [0.3, 30], [0.7, -20], [1, 0]]}}},
                {"name": "head", "parent": "neck", "length": 4, "head_radius": 14}
            ],
            "root": {
                "y": {"keys": [[0, 0], [0.5, -40], [1, 0]]},
                "squash": {"sy": {"keys": [[0, 1], [0.2, 0.6], [0.45, 1.3], [0.8, 0.9], [1, 1]],
                                   "ease": ["easeOutCubic", "smoothstep", "easeInCubic", "linear"]},
                           "pivot": [200, 300], "k": 0.8}
            }
        }"#;
        let rig = crate::rig::load(text).unwrap();
        let fig = rig.figure.as_ref().unwrap();
        let fc = &fig.clips[0];
        let s = fc.root.squash.as_ref().unwrap();
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            let clip = &fb.clips[0];
            let mut worst = 0.0f64;
            for k in 0..=600 {
                let t_s = clip.period_s * k as f64 / 600.0;
                let u = k as f64 / 600.0;
                let sy = s.sy.eval(u);
                let m = (1.0 + (1.0 - sy) * s.k + sy) / 2.0;
                let p = measure::probes_at(clip, t_s);
                let c = p["head-tip"];
                let dx = p["head-rim-x"] - c - crate::geom::Vec2::new(m * 14.0, 0.0);
                let dy = p["head-rim-y"] - c - crate::geom::Vec2::new(0.0, m * 14.0);
                worst = worst.max(dx.len()).max(dy.len());
            }
            assert!(
                worst <= bake::HEAD_BUDGET_PX,
                "{route:?}: rim off by {worst} px"
            );
            let rim = fb.measures[0]
                .1
                .iter()
                .find(|m| m.name == "head-rim")
                .unwrap();
            let tip = fb.measures[0]
                .1
                .iter()
                .find(|m| m.name == "head-tip")
                .unwrap();
            assert!(
                rim.max_error_px <= bake::HEAD_BUDGET_PX + tip.max_error_px,
                "{route:?}: measured rim {} tip {}",
                rim.max_error_px,
                tip.max_error_px
            );
            // the squash is strong: without the counter groups the rim would be far off
            assert!(
                clip.tracks
                    .iter()
                    .any(|t| t.name == "rb-main-head-head-turn")
            );
        }
    }

    /// Without a squash a head is a plain circle: no counter groups, and the
    /// rim probes (turning with the bone) are measured against FK.
    #[test]
    fn head_without_squash_is_a_plain_circle() {
        let text = r#"{
            "name": "nod", "view_box": [0, 0, 400, 400], "period_s": 1,
            "bones": [
                {"name": "neck", "at": [200, 300], "length": 20,
                 "angle": {"track": {"keys": [[0, -90], [0.5, -60], [1, -90]]}}},
                {"name": "head", "parent": "neck", "length": 0, "head_radius": 9}
            ]
        }"#;
        let rig = crate::rig::load(text).unwrap();
        let fig = rig.figure.as_ref().unwrap();
        // the prefix `rb` writes the clip's local names
        let fb = bake_figure(&rig.name, rig.view_box, fig, Route::Css, Some("rb"));
        assert!(!fb.svg.contains("rb-hr-"), "{}", fb.svg);
        assert!(
            fb.svg
                .contains(r#"class="rb-head rb-f0" cx="200" cy="280" r="9""#)
        );
        let rim = fb.measures[0]
            .1
            .iter()
            .find(|m| m.name == "head-rim")
            .unwrap();
        assert!(rim.max_error_px < 0.01, "{}", rim.max_error_px);
    }
}
