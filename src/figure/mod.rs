//! Bone trees (seed 002) with eased keyframe tracks, squash and stretch and
//! one-shot clips (seed 000), baked to nested groups: the bake of every
//! rig, since a cycling rig (`crank` + `legs`) and an `ik_chains` rig load
//! as the bone tree they lower into ([`crate::rig::lower`]).
//!
//! - [`file`](mod@file): the rig-file sections `bones`, `root`, `play`, `clips`, `ik`.
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
pub mod ideal;
pub(crate) mod measured;
pub mod model;
pub mod morph;
pub mod outline;
pub mod reuse;
pub mod scene;
pub mod spring;
pub mod style;
pub mod work;

pub use crate::measure::{ChainMeasure, IkMeasure, SpringMeasure};
pub use crate::report::FigureBake;
pub use model::Figure;

use crate::clip::{Clip, Route};
use crate::geom::{AffineExt, Rem1, Vec2, Vec2Ext, quantize};
use crate::measure;
use rayon::prelude::*;

/// The ideal tips of every bone: FK plus the offsets of the springs in
/// `applied` (indices into `fig.springs`) at or above each bone.
pub(crate) fn ideal_tips(
    fig: &Figure,
    fc: &model::FigClip,
    period: f64,
    t_s: f64,
    applied: &[usize],
) -> Vec<Vec2> {
    let mut tips = bake::ideal_tips(fig, fc, period, t_s);
    add_spring_offsets(fig, unit_time(fc.play, t_s, period), applied, &mut tips);
    tips
}

/// [`ideal_tips`], bit for bit, at the bones `only` (the others are left
/// at zero): where no `ik` bone is among them or above them, from their
/// drivers and their ancestors' alone ([`spring::bone_matrix`]), without
/// solving the figure's IK (a head's spring above IK legs).
pub(crate) fn ideal_tips_of(
    fig: &Figure,
    fc: &model::FigClip,
    (period, t_s): (f64, f64),
    applied: &[usize],
    only: &[usize],
) -> Vec<Vec2> {
    if spring::any_path_has_ik(fig, only) {
        return ideal_tips(fig, fc, period, t_s, applied);
    }
    let u = unit_time(fc.play, t_s, period);
    let root = fk::root_matrix(&fc.root, u);
    let mut tips = vec![Vec2::ZERO; fig.bones.len()];
    let path = spring::path_matrices(fig, fc, only, u);
    for &b in only {
        let m = root * path[b].expect("set for every bone of `only`");
        tips[b] = m.apply(Vec2::new(fig.bones[b].length, 0.0));
    }
    add_spring_offsets(fig, u, applied, &mut tips);
    tips
}

/// Add to each bone's tip the offsets, at normalised time u, of the
/// springs in `applied` (indices into `fig.springs`) at or above it.
fn add_spring_offsets(fig: &Figure, u: f64, applied: &[usize], tips: &mut [Vec2]) {
    if applied.is_empty() {
        return;
    }
    // per applied spring whether each bone is at or below its bone (one
    // pass, parents first: no walk up a deep tree per bone), and its offset
    let nb = fig.bones.len();
    let mut below = vec![false; applied.len() * nb];
    for b in 0..nb {
        for (k, &i) in applied.iter().enumerate() {
            below[k * nb + b] =
                fig.springs[i].bone == b || fig.bones[b].parent.is_some_and(|p| below[k * nb + p]);
        }
    }
    let offsets: Vec<Vec2> = applied
        .iter()
        .map(|&i| fig.springs[i].offset_at(u))
        .collect();
    for (b, tip) in tips.iter_mut().enumerate() {
        for (k, off) in offsets.iter().enumerate() {
            if below[k * nb + b] {
                *tip += *off;
            }
        }
    }
}

/// Normalised time of a clip at document time `t_s`: wrapped for a loop,
/// held at the ends for a one-shot clip.
pub fn unit_time(play: file::Play, t_s: f64, period: f64) -> f64 {
    match play {
        file::Play::Once => (t_s / period).clamp(0.0, 1.0),
        file::Play::Loop => (t_s / period).rem1(),
    }
}

/// Wrap every spring's bone in its translate groups (parents' springs
/// first), each with the fewest uniform keys whose measured subtree tip
/// error is within [`spring::SPRING_BUDGET_PX`]: cubic on css (with the
/// shortest shape, cubic or linear, whichever writes fewer bytes), linear
/// on smil. Where no count keeps it, the fewest bytes of the counts and
/// shapes that miss least ([`crate::fit::least_miss`]).
fn add_springs(clip: &mut Clip, fig: &Figure, keyer: bake::Keyer) -> Vec<SpringMeasure> {
    let fc = &fig.clips[0];
    let mut order: Vec<usize> = (0..fig.springs.len()).collect();
    order.sort_by_key(|&i| fig.springs[i].bone);
    let mut applied = Vec::new();
    let mut out = Vec::new();
    let period = clip.period_s;
    for i in order {
        let s = &fig.springs[i];
        applied.push(i);
        let tips = clip.bone_tips();
        let subtree: Vec<usize> = (0..fig.bones.len())
            .filter(|&b| spring::in_subtree(fig, s.bone, b) && tips[b].is_some())
            .collect();
        let probes: Vec<String> = subtree.iter().flat_map(|&b| tips[b].clone()).collect();
        // (each time's tips found once: every count tried is measured at
        // the same regular times, and the tips do not depend on the keys)
        let tips_at = std::sync::Mutex::new(crate::geom::TimeMap::default());
        let ideal = |t_s: f64| -> Vec<Vec2> {
            let kept = tips_at
                .lock()
                .expect("no panic while held")
                .get(&t_s.to_bits())
                .cloned();
            if let Some(tips) = kept {
                return tips;
            }
            let all = ideal_tips_of(fig, fc, (period, t_s), &applied, &subtree);
            let tips: Vec<Vec2> = subtree.iter().map(|&b| all[b]).collect();
            tips_at
                .lock()
                .expect("no panic while held")
                .insert(t_s.to_bits(), tips.clone());
            tips
        };
        let counts = frame_key_counts(keyer);
        let budget = keyer.budget_px(spring::SPRING_BUDGET_PX);
        // cubic keys (linear on smil), and with the shortest shape linear
        // ones too: the fewest of each shape within the budget, then
        // whichever writes fewer css bytes (the first of equals)
        let shapes: &[crate::fit::Fit] = match clip.route {
            Route::Smil => &[crate::fit::Fit::Linear],
            Route::Css if keyer.shortest_shape => &[keyer.fit, crate::fit::Fit::Linear],
            Route::Css => &[keyer.fit],
        };
        // the clip with the spring keyed: `n` keys of shape `fit`, and
        // their css bytes
        let offsets = spring::LocalOffsets::new(fig, fc, s);
        let keyed = |n: usize, fit: crate::fit::Fit| {
            let mut trial = clip.clone();
            let keys = spring::keys(&offsets, n, fit);
            let len = keys.iter().map(|k| crate::fit::css_len(k)).sum::<usize>();
            spring::apply(&mut trial, fig, s, keys);
            (trial, len)
        };
        let worst_of = |trial: &Clip| {
            let (m, _) = measure::measure_probes(trial, &probes, &ideal);
            m.iter().map(|x| x.max_error_px).fold(0.0, f64::max)
        };
        // per shape, the fewest keys within the budget; where no count of
        // a shape keeps it (a subtree whose bones' own keys already miss
        // it), every count of that shape, with a lower bound of its error
        // (the largest at every PRECHECK_STRIDE-th sample time) where it
        // is not measured
        let mut found: Vec<Tried> = Vec::new();
        for &fit in shapes {
            let mut missed = Vec::new();
            let mut kept = None;
            for &n in &counts {
                let (trial, len) = keyed(n, fit);
                let over = measure::over_budget_at_stride(
                    &trial,
                    &probes,
                    &ideal,
                    PRECHECK_STRIDE,
                    budget + 1e-9,
                );
                // (a count the stride's precheck finds over is measured
                // only if no count keeps the budget, and then only if the
                // choice below needs it)
                let worst = if over { None } else { Some(worst_of(&trial)) };
                if let Some(w) = worst.filter(|&w| w <= budget) {
                    kept = Some(Tried {
                        n,
                        fit,
                        lower: w,
                        worst,
                        len,
                        trial: Some(trial),
                    });
                    break;
                }
                missed.push((n, worst, len));
            }
            // (the bounds of the counts that miss found side by side, in
            // count order; one count alone, as `--keys` asks, is measured
            // in full if at all: its bound is nothing)
            match kept {
                Some(k) => found.push(k),
                None => found.par_extend(missed.into_par_iter().map(|(n, worst, len)| {
                    let lower = worst.unwrap_or_else(|| match counts.len() {
                        1 => 0.0,
                        _ => {
                            let trial = keyed(n, fit).0;
                            measure::max_error_at_stride(&trial, &probes, &ideal, PRECHECK_STRIDE)
                        }
                    });
                    Tried {
                        n,
                        fit,
                        lower,
                        worst,
                        len,
                        trial: None,
                    }
                })),
            }
        }
        // within the budget, the fewest bytes; over it (no count of any
        // shape keeps it), the fewest of those that miss least
        // (`fit::least_miss`: the bones' own error, which no spring key
        // closes, is not worth a key a frame), measuring only the counts
        // the bounds leave in doubt (`fit::least_miss_by`); the first of
        // equals
        let within = (0..found.len())
            .filter(|&i| found[i].worst.is_some_and(|w| w <= budget))
            .min_by_key(|&i| found[i].len);
        let (i, worst) = match within {
            Some(i) => (i, found[i].worst.expect("a count within is measured")),
            None => {
                let bounds: Vec<(f64, usize)> = found.iter().map(|f| (f.lower, f.len)).collect();
                crate::fit::least_miss_by(&bounds, budget, |i| {
                    let f = &found[i];
                    f.worst.unwrap_or_else(|| worst_of(&keyed(f.n, f.fit).0))
                })
                .expect("at least one key count")
            }
        };
        let Tried { n, fit, trial, .. } = found.swap_remove(i);
        // (a count that misses is keyed again: only the chosen one)
        let trial = trial.unwrap_or_else(|| keyed(n, fit).0);
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

/// The key counts a spring or Verlet chain (keyed on its recorded frames,
/// so on divisors of [`chain::FRAMES`]) tries, fewest first: all of them,
/// or for a keyer asking `n` keys the fewest divisor that is at least `n`.
fn frame_key_counts(keyer: bake::Keyer) -> Vec<usize> {
    let all = chain::key_counts();
    match keyer.count() {
        None => all,
        Some(n) => vec![
            all.iter()
                .copied()
                .find(|&c| c >= n)
                .unwrap_or(chain::FRAMES),
        ],
    }
}

/// Grid on which [`down_intervals`] looks for a planted target.
const DOWN_GRID: usize = 4096;

/// When entry `i`'s foot is down in clip `fc`, as normalised intervals: a
/// gait's stance (the foot slides back with the scrolling ground), or,
/// for any other target over a ground, the spans where the target stands
/// still on the ground line (within 1e-6 px): a planted take-off and
/// landing. Empty without a ground.
pub fn down_intervals(fig: &Figure, fc: &model::FigClip, i: usize) -> Vec<(f64, f64)> {
    let Some(g) = &fig.ground else {
        return Vec::new();
    };
    let target = &fc.targets[i];
    if target.is_gait() {
        let ideal = crate::chain::IdealTarget {
            root: target.clone(),
            target: target.clone(),
            pull_to: None,
            offset: Vec2::ZERO,
        };
        return ideal.stance();
    }
    let at = |k: usize| target.at(k as f64 / DOWN_GRID as f64);
    // grid cell k (from k to k + 1) is down when both ends sit still on the ground
    let still = |k: usize| {
        let (a, b) = (at(k), at(k + 1));
        (a.y - g.y).abs() <= 1e-6 && (b.y - g.y).abs() <= 1e-6 && a.dist(b) <= 1e-9
    };
    let mut out: Vec<(f64, f64)> = Vec::new();
    let mut start = None;
    for k in 0..=DOWN_GRID {
        let down = k < DOWN_GRID && still(k);
        match (down, start) {
            (true, None) => start = Some(k),
            (false, Some(a)) => {
                out.push((a as f64 / DOWN_GRID as f64, k as f64 / DOWN_GRID as f64));
                start = None;
            }
            _ => {}
        }
    }
    out
}

/// Every how many of the measure's sample times a spring's key count is
/// first checked against the budget (see [`add_springs`]), and where no
/// count keeps it, a count's error bounded from below.
const PRECHECK_STRIDE: usize = 8;

/// A key count [`add_springs`] tried for a spring: `n` keys of shape
/// `fit` writing `len` css bytes, its error where measured (`worst`) and
/// else a lower bound of it (`lower`, the error where measured), and the
/// keyed clip of a count that keeps the budget.
struct Tried {
    n: usize,
    fit: crate::fit::Fit,
    lower: f64,
    worst: Option<f64>,
    len: usize,
    trial: Option<Clip>,
}

/// How many estimate budgets (1, 0.7, 0.49, … of the chain's) [`add_chains`]
/// places keys for before it keys every recorded frame.
const PLACE_TRIES: usize = 4;

/// The key plans [`add_chains`] chose, by clip name and chain index: the
/// bakes of one call (one route, keyer and simulation) choose alike.
pub type ChainPlans = bake::Memo<(String, usize), chain::KeyPlan>;

/// Add every chain of `fig` to `clip` (world space; a near chain is drawn
/// over the bones, a far one under them) as a nested rotation chain
/// ([`chain::rotation_items`], its spans linear on the smil route), keyed on recorded
/// frames by [`chain::Placer`] so that the measured particle deviation is
/// within [`chain::KEY_BUDGET_PX`] (or the keyer's budget; a keyer asking
/// for a count gets uniform keys); extends `colours` with the chains'
/// gradient colours; a segment's class is `class_prefix` followed by its
/// colour's index in `colours`. `chosen` keeps each chain's key plan for
/// the later bakes of the same call.
pub fn add_chains(
    clip: &mut Clip,
    (chains, groups): (&[chain::Chain], Option<&[chain::ChainGroups]>),
    colours: &mut Vec<String>,
    class_prefix: &str,
    keyer: bake::Keyer,
    chosen: &ChainPlans,
) -> Vec<ChainMeasure> {
    let mut out = Vec::new();
    let clip_name = ChainJob::clip_name(clip).to_string();
    for (chain_index, ch) in chains.iter().enumerate() {
        add_colours(colours, ch);
        let class_of = |c: &str| class_of(colours, class_prefix, c);
        let job = ChainJob::in_clip(clip, &clip_name, chain_index, ch);
        let chosen = job.plan(keyer, &class_of, chosen);
        let groups = groups.and_then(|g| g.get(chain_index));
        let (tracks, items) = chain::rotation_items(
            ch,
            &chosen,
            (&clip_name, groups),
            clip.tracks.len(),
            &class_of,
        );
        clip.tracks.extend(tracks);
        if ch.far {
            clip.root.children.splice(0..0, items);
        } else {
            clip.root.children.extend(items);
        }
        out.push(ChainMeasure {
            name: ch.name.clone(),
            keys: chosen.keys(),
            max_deviation_px: job.worst(clip),
            seam_error_px: ch.recording.seam_error_px,
            converged: ch.recording.converged,
            warmup_periods: ch.recording.warmup_periods,
            max_length_error: chain::max_length_error(ch),
        });
    }
    out
}

/// [`add_chains`]'s key plans for every chain of the clips a bake of
/// `fig` writes (`route`: the smil route writes the first clip only),
/// chosen in parallel and kept in `chosen`, where [`add_chains`] finds
/// them. Its choice for a chain depends only on the clip's name, route,
/// period and view box, the chain and the colour classes, never on the
/// clip's other tracks, so the plans can be chosen while the bones are
/// keyed.
pub(crate) fn plan_chains(
    (name, view_box): (&str, [f64; 4]),
    fig: &Figure,
    route: Route,
    keyer: bake::Keyer,
    chosen: &ChainPlans,
) {
    let mut colours = bake::colours(fig);
    let mut jobs = Vec::new();
    for (c, fc) in fig.clips.iter().enumerate().take(written_clips(fig, route)) {
        let period_s = bake::written_period(fc);
        for (chain_index, ch) in fig.clip_chains(c).iter().enumerate() {
            add_colours(&mut colours, ch);
            let job = ChainJob {
                clip: ChainJob::bare(name, route, period_s, view_box),
                clip_name: &fc.name,
                chain_index,
                chain: ch,
            };
            jobs.push((job, colours.clone()));
        }
    }
    jobs.par_iter().for_each(|(job, colours)| {
        job.plan(keyer, &|c| class_of(colours, BONE_CHAIN_CLASS, c), chosen);
    });
}

/// How many of `fig`'s clips a bake on `route` writes: all of them, or
/// on the smil route the first (SMIL cannot switch clips by a class).
fn written_clips(fig: &Figure, route: Route) -> usize {
    match route {
        Route::Smil => fig.clips.len().min(1),
        Route::Css => fig.clips.len(),
    }
}

/// The class prefix of a bone tree's chain segments (see [`add_chains`]).
pub(crate) const BONE_CHAIN_CLASS: &str = "rb-bone rb-s";

/// `colours` with every gradient colour of `ch` it lacks, in order.
fn add_colours(colours: &mut Vec<String>, ch: &chain::Chain) {
    for c in &ch.colours {
        if !colours.contains(c) {
            colours.push(c.clone());
        }
    }
}

/// The class of a chain segment drawn in colour `c`: `class_prefix` and
/// the colour's index in `colours`.
fn class_of(colours: &[String], class_prefix: &str, c: &str) -> String {
    format!(
        "{class_prefix}{}",
        colours.iter().position(|x| x == c).unwrap_or(0)
    )
}

/// One chain of one clip, as [`add_chains`] keys and measures it.
pub(crate) struct ChainJob<'a> {
    /// The clip's name, route, period and view box, without its content.
    clip: Clip,
    clip_name: &'a str,
    chain_index: usize,
    chain: &'a chain::Chain,
}

impl<'a> ChainJob<'a> {
    /// Chain `chain_index` (`chain`) of the written clip `clip`, whose
    /// clip name ([`ChainJob::clip_name`]) is `clip_name`.
    pub(crate) fn in_clip(
        clip: &Clip,
        clip_name: &'a str,
        chain_index: usize,
        chain: &'a chain::Chain,
    ) -> Self {
        ChainJob {
            clip: ChainJob::bare(&clip.name, clip.route, clip.period_s, clip.view_box),
            clip_name,
            chain_index,
            chain,
        }
    }

    /// The name a written clip's chains are keyed and named by: its
    /// figure clip's, else the default clip's.
    fn clip_name(clip: &Clip) -> &str {
        clip.figure
            .as_ref()
            .map_or(model::DEFAULT_CLIP, |f| f.clip.as_str())
    }

    /// A clip of this name, route, period and view box, without tracks,
    /// groups or figure.
    fn bare(name: &str, route: Route, period_s: f64, view_box: [f64; 4]) -> Clip {
        Clip {
            name: name.to_string(),
            route,
            period_s,
            view_box,
            tracks: Vec::new(),
            root: Default::default(),
            legs: Vec::new(),
            figure: None,
            ground_wrap_px: None,
        }
    }

    fn play(&self) -> file::Play {
        if self.chain.recording.once {
            file::Play::Once
        } else {
            file::Play::Loop
        }
    }

    fn probes(&self) -> Vec<String> {
        (1..self.chain.params.count)
            .map(|i| chain::probe(self.chain, i))
            .collect()
    }

    /// The largest deviation of the chain's probes in `c` from the
    /// simulated particles.
    pub(crate) fn worst(&self, c: &Clip) -> f64 {
        let (ch, play, period) = (self.chain, self.play(), self.clip.period_s);
        let at = chain::recorded(ch);
        let ideal = |t_s: f64| {
            let mut v = Vec::new();
            at(unit_time(play, t_s, period), &mut v);
            v.split_off(1)
        };
        let (m, _) = measure::measure_probes(c, &self.probes(), &ideal);
        m.iter().map(|x| x.max_error_px).fold(0.0, f64::max)
    }

    /// The chain alone keyed as `plan`: what [`Self::plan`] measures a
    /// plan on. Played as the file plays it: a one-shot clip holds its last
    /// frame at the period's end, where a loop wraps to its first (played
    /// as a loop, a settle whose last frame is not its first missed by that
    /// step at the end whatever its keys, and took a key a frame).
    pub(crate) fn keyed(
        &self,
        plan: &chain::KeyPlan,
        class_of: &(dyn Fn(&str) -> String + Sync),
    ) -> Clip {
        let (tracks, items) =
            chain::rotation_items(self.chain, plan, (self.clip_name, None), 0, class_of);
        Clip {
            tracks,
            root: crate::clip::Node {
                children: items,
                ..Default::default()
            },
            legs: Vec::new(),
            figure: Some(crate::clip::FigureInfo {
                clip: self.clip_name.to_string(),
                play: self.play(),
                bones: Vec::new(),
            }),
            ground_wrap_px: None,
            ..self.clip.clone()
        }
    }

    /// The key plan of the chain, kept in `chosen` by clip name and chain
    /// index (see [`add_chains`]).
    fn plan(
        &self,
        keyer: bake::Keyer,
        class_of: &(dyn Fn(&str) -> String + Sync),
        chosen: &ChainPlans,
    ) -> chain::KeyPlan {
        let (clip, ch) = (&self.clip, self.chain);
        // smil: every span linear (a keySpline cannot overshoot)
        let fit = match clip.route {
            Route::Css => keyer.fit,
            Route::Smil => crate::fit::Fit::Linear,
        };
        let trial = |plan: &chain::KeyPlan| self.keyed(plan, class_of);
        let budget = keyer.budget_px(chain::KEY_BUDGET_PX);
        let key = (self.clip_name.to_string(), self.chain_index);
        bake::memo(chosen, key, || match keyer.count() {
            // a fixed count: uniform keys (css: when they miss the budget,
            // the better of cubic and linear segments)
            Some(_) => {
                let n = frame_key_counts(keyer)[0];
                let plan = chain::KeyPlan::uniform(n, fit);
                let other = chain::KeyPlan::uniform(n, crate::fit::Fit::Linear);
                if clip.route == Route::Css
                    && plan != other
                    && self.worst(&trial(&plan)) > budget
                    && self.worst(&trial(&other)) < self.worst(&trial(&plan))
                {
                    other
                } else {
                    plan
                }
            }
            // Candidates, each checked by the measure stage: keys placed
            // on recorded frames to the estimate (its budget shrinking while
            // the measured clip misses the chain's), and the fewest uniform
            // keys that keep it (no key times to write, round percentages);
            // on the css route each in cubic and in linear spans (linear
            // ones written as the stops of a `linear()` easing where that
            // is shorter, see `emit::css`). The one written in fewer bytes
            // wins. None: see below. The candidates are found in parallel.
            None => {
                let placer = chain::Placer::new(ch, clip.route);
                let shapes: &[crate::fit::Fit] =
                    if clip.route == Route::Css && fit != crate::fit::Fit::Linear {
                        &[fit, crate::fit::Fit::Linear]
                    } else {
                        &[fit]
                    };
                // Every plan tried is measured: the plan, its worst error
                // and, where that keeps the budget, the bytes it writes
                // (found in the task that measured it, on the same clip).
                let measured = |plan: chain::KeyPlan| {
                    let keyed = trial(&plan);
                    let worst = self.worst(&keyed);
                    let bytes = (worst <= budget).then(|| chain_bytes(&keyed));
                    (plan, worst, bytes)
                };
                let tried: Vec<(chain::KeyPlan, f64, Option<usize>)> = shapes
                    .par_iter()
                    .flat_map_iter(|&shape| {
                        let placed = || {
                            let mut tried = Vec::new();
                            let mut internal = budget;
                            for _ in 0..PLACE_TRIES {
                                let try_ = measured(placer.plan(shape, internal));
                                let kept = try_.2.is_some();
                                tried.push(try_);
                                if kept {
                                    break;
                                }
                                internal *= 0.7;
                            }
                            tried
                        };
                        let uniform = || {
                            let mut tried = Vec::new();
                            for plan in chain::key_counts()
                                .into_iter()
                                .map(|n| chain::KeyPlan::uniform(n, shape))
                                .filter(|plan| placer.within(plan, budget))
                                .take(PLACE_TRIES)
                            {
                                let try_ = measured(plan);
                                let kept = try_.2.is_some();
                                tried.push(try_);
                                if kept {
                                    break;
                                }
                            }
                            tried
                        };
                        let (placed, uniform) = rayon::join(placed, uniform);
                        placed.into_iter().chain(uniform)
                    })
                    .collect();
                // (the first of the fewest bytes, in the order tried)
                if let Some((kept, _, _)) = tried
                    .iter()
                    .filter_map(|t| t.2.map(|b| (t, b)))
                    .min_by_key(|&(_, b)| b)
                    .map(|(t, _)| t)
                {
                    return kept.clone();
                }
                // none keeps it: every recorded frame a key too, in each
                // shape; then the fewest bytes of the plans that miss least
                // (`fit::least_miss`: an error no key closes, such as a
                // seam, is not worth a key a frame)
                let bytes = |plan: &chain::KeyPlan| chain_bytes(&trial(plan));
                let mut all: Vec<(chain::KeyPlan, f64)> = tried
                    .into_iter()
                    .map(|(plan, worst, _)| (plan, worst))
                    .collect();
                for &shape in shapes {
                    let plan = placer.plan(shape, 0.0);
                    let worst = self.worst(&trial(&plan));
                    all.push((plan, worst));
                }
                let found: Vec<(f64, usize)> = all
                    .iter()
                    .map(|(plan, worst)| (*worst, bytes(plan)))
                    .collect();
                let i = crate::fit::least_miss(&found, budget).expect("one plan at least");
                all.swap_remove(i).0
            }
        })
    }
}

/// Per chain (by index), the groups any of `clips` moves
/// ([`chain::ChainGroups`]), each clip's chains (`views[c].chains`) keyed
/// as [`add_chains`] keys them after `colours`: what a class-switched file
/// draws.
fn switched_chain_groups(
    (clips, views): (&[Clip], &[Figure]),
    colours: &[String],
    keyer: bake::Keyer,
    chosen: &ChainPlans,
) -> Vec<chain::ChainGroups> {
    let mut colours = colours.to_vec();
    let mut out: Vec<chain::ChainGroups> = Vec::new();
    for (clip, view) in clips.iter().zip(views) {
        let clip_name = ChainJob::clip_name(clip);
        for (chain_index, ch) in view.chains.iter().enumerate() {
            add_colours(&mut colours, ch);
            let job = ChainJob::in_clip(clip, clip_name, chain_index, ch);
            let plan = job.plan(keyer, &|c| class_of(&colours, BONE_CHAIN_CLASS, c), chosen);
            if out.len() <= chain_index {
                out.resize(chain_index + 1, Default::default());
            }
            out[chain_index].add(&chain::ChainGroups::of(ch, &plan));
        }
    }
    out
}

/// Bytes of the animation a clip holding one chain writes: its tracks'
/// `@keyframes` (css) or its groups' `<animateTransform>` elements (smil).
fn chain_bytes(c: &Clip) -> usize {
    match c.route {
        Route::Css => (0..c.tracks.len())
            .map(|i| crate::emit::css::track_keyframes(c, i).len())
            .sum(),
        Route::Smil => c
            .groups()
            .iter()
            .filter(|g| g.anim.is_some())
            .map(|g| {
                let mut e = svg::node::element::Element::new("g");
                crate::emit::smil::animate_group(c, g, &mut e);
                e.to_string().len()
            })
            .sum(),
    }
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
    bake_figure_keyed(name, view_box, fig, route, prefix, bake::Keyer::DEFAULT)
}

/// [`bake_figure`] with the fitted channels keyed as `keyer` says.
pub fn bake_figure_keyed(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    route: Route,
    prefix: Option<&str>,
    keyer: bake::Keyer,
) -> FigureBake {
    let ideal = ideal::Ideal::default();
    bake_figure_shared(name, view_box, fig, (route, keyer, None), prefix, &ideal)
}

/// [`bake_figure_keyed`], taking `fig`'s ideal motion from (and adding it
/// to) `ideal`, which every bake of `fig` may share whatever its route and
/// keyer ([`ideal`]). `goal_px`: the tolerance the caller bakes the file
/// to, if any (with a budget keyer, a far-limb reuse whose pair keeps its
/// probes within it is taken without a bake of keys of their own to
/// compare with; `None` judges by the keyer's budget instead).
pub fn bake_figure_shared(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    (route, keyer, goal_px): (Route, bake::Keyer, Option<f64>),
    prefix: Option<&str>,
    ideal: &ideal::Ideal,
) -> FigureBake {
    let memo = CallMemo::new(ideal);
    // every chain's written values, computed once for the clones that each
    // bake of the call makes (its clips' views, `Figure::for_clip`)
    let chains: Vec<&chain::Chain> = (0..written_clips(fig, route))
        .flat_map(|c| fig.clip_chains(c))
        .collect();
    chains.par_iter().for_each(|ch| ch.keep_written());
    // With a fixed key count both chains of a pair sample the same motion
    // at different phases, so neither set of own keys is the better one:
    // reuse is kept when the pair's worst probe is no worse than with own
    // keys. Otherwise every probe must be no worse, or within the goal the
    // file is baked to (the keyer's budget where the caller names none).
    let pooled = keyer.count().is_some();
    let within_px = match keyer.keys {
        bake::ChannelKeys::Budget(px) => goal_px.unwrap_or(px),
        _ => 0.0,
    };
    // The bake with keys of their own is needed only to compare with: a
    // try that keeps every probe of a pair within the goal, its feet
    // within the slip slack and its full reach, in the clips the pair
    // plays in, passes against any bake ([`within_any`]). So it is baked
    // at once where a figure has more to compare (a fixed key count, no
    // budget), and otherwise only when a try needs it.
    let own_first = pooled || within_px == 0.0;
    // The reuse plan is searched while the work every bake of the call
    // shares is done: the chains' key plans, and with the bake of own keys
    // coming, the keys of every channel (the plan's first try's source
    // chains too; all of a bake without reuse). Without it, the channels of
    // the plan's first try (or of the bake, without reuse) are fitted as
    // soon as the plan is found, while the chains are still planned.
    let none = reuse::Plan::none(fig);
    let (mut plan, _) = rayon::join(
        || {
            let plan = reuse::plan_shared(fig, route, memo.ideal);
            if !own_first {
                bake::bake(
                    name,
                    view_box,
                    (fig, &drawn_as(fig, &plan)),
                    (route, keyer),
                    &plan,
                    (&memo.fitted, memo.ideal),
                );
            }
            plan
        },
        || {
            if own_first {
                keyed_clips((name, view_box), (fig, fig), (route, keyer), &none, &memo);
            } else {
                plan_chains((name, view_box), fig, route, keyer, &memo.chains);
            }
        },
    );
    let unwritten =
        |plan: &reuse::Plan| bake_unwritten(name, view_box, fig, (route, keyer), plan, &memo);
    if !plan.reuses() {
        return unwritten(&plan).write(fig, prefix);
    }
    // Far-limb key reuse, taken only where no probe measures worse than
    // with keys of its own (as the report rounds it) or, in a bake to a
    // tolerance, is within that goal in the clips the pair plays in (the
    // tolerance loop then measures the whole file against it): a reused
    // chain inherits its source's fitting error, so each source chain may
    // be fitted tighter; per pair of chains the loosest budget whose probes
    // of those two chains pass wins, and the whole is checked again at the
    // end (else reuse is left out).
    let own_bake = || unwritten(&reuse::Plan::none(fig));
    // (`tighter`: whether a tighter try is left for the bones judged)
    let kept = |fb: &Unwritten,
                own: &mut Option<Unwritten>,
                (bones, clips): (&[bool], &[bool]),
                tighter: bool| {
        let fb = &fb.fb;
        if !pooled && within_any(fig, fb, (bones, clips), within_px) {
            return true;
        }
        // a probe past the goal is one no file that meets it can keep: the
        // pair is tried tighter (only the feet are compared with own keys;
        // at the last try, and for the whole, as before)
        if !pooled
            && tighter
            && goal_px.is_some()
            && !within(fig, fb, (bones, clips), within_px, false)
        {
            return false;
        }
        let own = &own.get_or_insert_with(own_bake).fb;
        if pooled {
            worst_on(fig, fb, bones) <= worst_on(fig, own, bones)
        } else {
            // (every clip: a clip the pair does not play in still differs
            // by the rounding of the turned keys)
            no_worse(fig, fb, own, (bones, &vec![true; clips.len()]), within_px)
        }
    };
    // Each pair of chains once, in the order of its first clip: a source
    // chain's budget scale is one per bone, whichever clips the pair
    // plays in, and every try is measured over all of them.
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for &(a, b, _) in plan.chains.iter().flatten() {
        if !pairs.contains(&(a, b)) {
            pairs.push((a, b));
        }
    }
    // Every pair's tries go from the loosest budget to tighter ones, all
    // pairs still open tried together in one bake per budget (the first
    // beside the bake with keys of their own): a pair is decided at the
    // first budget whose bake keeps its probes, and keeps it in later
    // bakes. A pair's probes are those of its two chains only, so trying
    // the pairs together decides each as trying it alone would, but for
    // the measure's sample times, which follow every written key. The
    // tries are fixed, so the choice does not depend on the core count.
    let scales: Vec<f64> = if keyer.count().is_some() {
        // a fixed key count leaves nothing to tighten: one try
        vec![1.0]
    } else {
        (0..REUSE_TRIES).map(|i| 0.6f64.powi(i as i32)).collect()
    };
    let tried = |open: &[(usize, usize)], plan: &reuse::Plan, scale: f64| {
        let mut p = plan.clone();
        for &pair in open {
            for x in pair_bones(fig, pair).0 {
                p.source_scale[x] = scale;
            }
        }
        unwritten(&p)
    };
    let mut open = pairs;
    let (mut fb, mut own) = if own_first {
        let (fb, own) = rayon::join(|| tried(&open, &plan, scales[0]), own_bake);
        (fb, Some(own))
    } else {
        (tried(&open, &plan, scales[0]), None)
    };
    let mut scales = scales.into_iter().peekable();
    while let Some(scale) = scales.next() {
        let tighter = scales.peek().is_some();
        open.retain(|&pair| {
            let (source, bones) = pair_bones(fig, pair);
            let passes = kept(&fb, &mut own, (&bones, &plan.clips_of(pair)), tighter);
            if passes {
                for &x in &source {
                    plan.source_scale[x] = scale;
                }
            }
            !passes
        });
        if open.is_empty() {
            // every pair decided: `fb` is the plan's bake
            break;
        }
        let Some(&tighter) = scales.peek() else {
            // some pair passes at no budget tried: no reuse
            return own.unwrap_or_else(own_bake).write(fig, prefix);
        };
        fb = tried(&open, &plan, tighter);
    }
    // the clips with reuse (with a goal, the tolerance loop measures the
    // others with the whole file; without, every clip)
    let judged: Vec<bool> = plan
        .chains
        .iter()
        .map(|c| goal_px.is_none() || !c.is_empty())
        .collect();
    if kept(
        &fb,
        &mut own,
        (&vec![true; fig.bones.len()], &judged),
        false,
    ) {
        fb.write(fig, prefix)
    } else {
        own.unwrap_or_else(own_bake).write(fig, prefix)
    }
}

/// A reuse pair's source chain (the chain from bone `a`), and the bones of
/// both its chains marked: what the pair is judged on.
pub(crate) fn pair_bones(fig: &Figure, (a, b): (usize, usize)) -> (Vec<usize>, Vec<bool>) {
    let source = reuse::Plan::chain(fig, a);
    let mut bones = vec![false; fig.bones.len()];
    for &x in source.iter().chain(&reuse::Plan::chain(fig, b)) {
        bones[x] = true;
    }
    (source, bones)
}

/// How many budgets (1, 0.6, 0.36, …) [`bake_figure`] tries for the
/// shared keys, at most.
const REUSE_TRIES: usize = 6;

/// The largest max error, at the report's rounding, of the probes on the
/// bones marked in `bones` (tips, rims, IK effectors), with foot slip
/// beyond [`SLIP_SLACK_PX`] counted as error.
fn worst_on(fig: &Figure, fb: &FigureBake, bones: &[bool]) -> f64 {
    let on = measured_bones(fig);
    let tips = fb.measures.iter().flat_map(|(_, m)| {
        m.iter()
            .enumerate()
            .filter(|&(i, _)| bones[on[i]])
            .map(|(_, x)| x.max_error_px)
    });
    let ik = fb
        .ik
        .iter()
        .zip(fig.ik.iter().cycle())
        .filter(|(_, k)| bones[k.upper])
        .flat_map(|(x, _)| {
            [
                x.measure.max_error_px,
                x.measure.slip_px.map_or(0.0, |s| s - SLIP_SLACK_PX),
            ]
        });
    quantize(tips.chain(ik).fold(0.0, f64::max), COMPARE_DECIMALS)
}

/// The bone each of a clip's tip measures is on: one per bone in bone
/// order, then one rim per head bone.
fn measured_bones(fig: &Figure) -> Vec<usize> {
    let heads = (0..fig.bones.len()).filter(|&x| fig.bones[x].head_radius.is_some());
    (0..fig.bones.len()).chain(heads).collect()
}

/// Places to which [`no_worse`] compares: those the report prints.
const COMPARE_DECIMALS: u32 = 4;

/// Foot slip that [`no_worse`] overlooks: half of the written length
/// rounding (the ground's travel per period is written to 0.01 px, so a
/// slip difference below 0.005 px per step is the rounding's, not the keys').
const SLIP_SLACK_PX: f64 = 0.005;

/// Whether [`no_worse`] holds for `a` against any bake of the same figure
/// in the clips marked in `clips` (those a reuse pair plays in): every
/// probe on the bones marked in `bones` within `within_px` (at the
/// report's rounding), foot slip within [`SLIP_SLACK_PX`] (which
/// [`no_worse`] overlooks against any slip), and every IK target reached.
/// A clip the pair does not play in is written as without reuse but for
/// the rounding of a reused chain's turned keys (see `bake::bake`), and
/// the tolerance loop measures it with the whole file.
pub(crate) fn within_any(
    fig: &Figure,
    a: &FigureBake,
    marked: (&[bool], &[bool]),
    within_px: f64,
) -> bool {
    within(fig, a, marked, within_px, true)
}

/// [`within_any`], but for the feet (`feet`: foot slip within
/// [`SLIP_SLACK_PX`] and every IK target reached) only the probes' errors.
fn within(
    fig: &Figure,
    a: &FigureBake,
    (bones, clips): (&[bool], &[bool]),
    within_px: f64,
    feet: bool,
) -> bool {
    let q = |x: f64| quantize(x, COMPARE_DECIMALS);
    let within = |x: f64| q(x) <= q(within_px);
    let on = measured_bones(fig);
    // (per written clip, one IK measure per entry)
    let entries = fig.ik.len().max(1);
    a.measures.iter().zip(clips).all(|((_, m), &judged)| {
        !judged
            || m.iter()
                .enumerate()
                .all(|(i, x)| !bones[on[i]] || within(x.max_error_px))
    }) && a
        .ik
        .iter()
        .enumerate()
        .zip(fig.ik.iter().cycle())
        .all(|((j, x), k)| {
            !bones[k.upper]
                || !clips[j / entries]
                || (within(x.measure.max_error_px)
                    && (!feet
                        || (x.measure.slip_px.is_none_or(|s| s <= SLIP_SLACK_PX)
                            && x.measure.reach_px.is_some_and(|r| q(r) == 0.0))))
        })
}

/// Every probe of `a` on the bones marked in `bones` (tips, rims, IK
/// effectors with their slip and reach), in the clips marked in `clips`,
/// measures at most what it measures in `b`, at the report's rounding
/// (foot slip within [`SLIP_SLACK_PX`]), or (tips, rims and effectors) at
/// most `within_px`.
pub(crate) fn no_worse(
    fig: &Figure,
    a: &FigureBake,
    b: &FigureBake,
    (bones, clips): (&[bool], &[bool]),
    within_px: f64,
) -> bool {
    let q = |x: f64| quantize(x, COMPARE_DECIMALS);
    let strict = |x: f64, y: f64| q(x) <= q(y);
    let le = |x: f64, y: f64| strict(x, y) || q(x) <= q(within_px);
    // foot slip and reach: no worse, whatever the budget
    let opt = |x: Option<f64>, y: Option<f64>| match (x, y) {
        (Some(x), Some(y)) => strict(x, y),
        _ => x.is_none() == y.is_none(),
    };
    let on = measured_bones(fig);
    // (per written clip, one IK measure per entry)
    let entries = fig.ik.len().max(1);
    a.measures
        .iter()
        .zip(&b.measures)
        .zip(clips)
        .all(|(((_, ma), (_, mb)), &judged)| {
            !judged
                || ma
                    .iter()
                    .zip(mb)
                    .enumerate()
                    .all(|(i, (x, y))| !bones[on[i]] || le(x.max_error_px, y.max_error_px))
        })
        && a.ik
            .iter()
            .zip(&b.ik)
            .enumerate()
            .zip(fig.ik.iter().cycle())
            .all(|((j, (x, y)), k)| {
                !bones[k.upper]
                    || !clips[j / entries]
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
    bake_planned_keyed(
        name,
        view_box,
        fig,
        (route, bake::Keyer::DEFAULT),
        prefix,
        plan,
    )
}

/// [`bake_planned`] with the fitted channels keyed as `keyer` says.
pub fn bake_planned_keyed(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    keying: (Route, bake::Keyer),
    prefix: Option<&str>,
    plan: &reuse::Plan,
) -> FigureBake {
    let ideal = ideal::Ideal::default();
    let memo = CallMemo::new(&ideal);
    bake_planned_measured(name, view_box, fig, keying, prefix, plan, &memo)
}

/// What the bakes of one [`bake_figure_keyed`] call (one figure, route and
/// keyer; the tries of its reuse plan) keep for each other: measured clips,
/// fitted channels and chain key plans; and the figure's ideal motion,
/// which outlives the call ([`ideal`]).
pub(crate) struct CallMemo<'a> {
    measured: measured::Measured,
    fitted: bake::Fitted,
    chains: ChainPlans,
    ideal: &'a ideal::Ideal,
}

impl<'a> CallMemo<'a> {
    pub(crate) fn new(ideal: &'a ideal::Ideal) -> Self {
        CallMemo {
            measured: Default::default(),
            fitted: Default::default(),
            chains: Default::default(),
            ideal,
        }
    }
}

/// Every clip of `fig` with its bones keyed as `plan` says ([`bake::bake`]),
/// the chains' key plans chosen meanwhile into `memo` ([`plan_chains`]).
fn keyed_clips(
    (name, view_box): (&str, [f64; 4]),
    (own, fig): (&Figure, &Figure),
    (route, keyer): (Route, bake::Keyer),
    plan: &reuse::Plan,
    memo: &CallMemo,
) -> Vec<Clip> {
    let (clips, ()) = rayon::join(
        || {
            bake::bake(
                name,
                view_box,
                (own, fig),
                (route, keyer),
                plan,
                (&memo.fitted, memo.ideal),
            )
        },
        || plan_chains((name, view_box), fig, route, keyer, &memo.chains),
    );
    clips
}

/// [`bake_planned_keyed`], taking from `memo` what an earlier bake of the
/// same call measured or fitted alike.
pub(crate) fn bake_planned_measured(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    keying: (Route, bake::Keyer),
    prefix: Option<&str>,
    plan: &reuse::Plan,
    memo: &CallMemo,
) -> FigureBake {
    bake_unwritten(name, view_box, fig, keying, plan, memo).write(fig, prefix)
}

/// `fig` drawn in `plan`'s pose (its `drawn_rad`), which reused chains are
/// drawn in: `fig` itself where that is its rest pose.
fn drawn_as<'a>(fig: &'a Figure, plan: &reuse::Plan) -> std::borrow::Cow<'a, Figure> {
    if plan.drawn_rad == fig.rest_rad {
        std::borrow::Cow::Borrowed(fig)
    } else {
        std::borrow::Cow::Owned(Figure {
            rest_rad: plan.drawn_rad.clone(),
            ..fig.clone()
        })
    }
}

/// A bake measured but not yet written as a file: the reuse search
/// compares its tries by their measures alone and writes only the bake it
/// returns.
struct Unwritten {
    /// Everything but `svg`, which is empty.
    fb: FigureBake,
    colours: Vec<String>,
    switched: bool,
}

impl Unwritten {
    /// The bake with its file written (`prefix`: see [`bake_figure`]).
    /// Each clip also gets its `ik` entries as legs ([`Clip::legs`]):
    /// effector probe, tracks and ideal target, for whoever measures the
    /// file again (a browser).
    fn write(self, fig: &Figure, prefix: Option<&str>) -> FigureBake {
        let svg = crate::emit::figure::emit_figure_styled(
            &self.fb.clips,
            self.switched,
            &self.colours,
            &fig.style,
            prefix,
        );
        let mut fb = FigureBake { svg, ..self.fb };
        for m in &fb.ik {
            fb.clips[m.clip].legs.push(m.leg.clone());
        }
        fb
    }
}

/// [`bake_planned_measured`] but for writing the file.
fn bake_unwritten(
    name: &str,
    view_box: [f64; 4],
    fig: &Figure,
    (route, keyer): (Route, bake::Keyer),
    plan: &reuse::Plan,
    memo: &CallMemo,
) -> Unwritten {
    let own = fig;
    let drawn = drawn_as(own, plan);
    let fig = &*drawn;
    let mut clips = keyed_clips((name, view_box), (own, fig), (route, keyer), plan, memo);
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
    // (the bake keys only the clips the route writes)
    debug_assert_eq!(clips.len(), written_clips(fig, route));
    if fig.clips.len() > written_clips(fig, route) {
        notes.push(format!(
            "smil route: clips cannot be switched by a class; only the first clip ({}) is written, use the css route for switching or --clip NAME for one clip per file",
            fig.clips[0].name
        ));
    }
    let mut colours = bake::colours(fig);
    // every written clip with the springs and chains simulated for it
    let views: Vec<Figure> = (0..clips.len()).map(|c| fig.for_clip(c)).collect();
    // (a rig with clips names its springs and chains by clip on either
    // route, as its legs and bones are named)
    let named = |view: &Figure, name: &str| {
        if fig.switched {
            format!("{}:{name}", view.clips[0].name)
        } else {
            name.to_string()
        }
    };
    // springs first, each clip on its own (in parallel); then the chains,
    // in clip order (they extend one colour list)
    let springs: Vec<SpringMeasure> = clips
        .par_iter_mut()
        .zip(&views)
        .map(|(clip, view)| {
            if view.springs.is_empty() {
                return Vec::new();
            }
            add_springs(clip, view, keyer)
                .into_iter()
                .map(|m| SpringMeasure {
                    bone: named(view, &m.bone),
                    ..m
                })
                .collect()
        })
        .collect::<Vec<Vec<_>>>()
        .concat();
    // a class-switched file draws one structure: each chain's groups that
    // any clip moves
    let groups =
        switched.then(|| switched_chain_groups((&clips, &views), &colours, keyer, &memo.chains));
    let mut chains = Vec::new();
    for (clip, view) in clips.iter_mut().zip(&views) {
        if !view.chains.is_empty() {
            chains.extend(
                add_chains(
                    clip,
                    (&view.chains, groups.as_deref()),
                    &mut colours,
                    BONE_CHAIN_CLASS,
                    keyer,
                    &memo.chains,
                )
                .into_iter()
                .map(|m| ChainMeasure {
                    name: named(view, &m.name),
                    ..m
                }),
            );
        }
    }
    if let Some(n) = keyer.count() {
        let frames = springs
            .iter()
            .map(|s| ("spring", &s.bone, s.keys))
            .chain(chains.iter().map(|c| ("chain", &c.name, c.keys)));
        for (what, name, keys) in frames.filter(|f| f.2 != n) {
            notes.push(format!(
                "{what} {name}: keyed on its {} recorded frames, so on a divisor of them: {keys} keys for {n}",
                chain::FRAMES
            ));
        }
    }
    let mut measures = Vec::new();
    let mut samples = 0;
    let mut ik = Vec::new();
    // every clip measured on its own (in parallel), then read in order
    let clip_measures: Vec<measured::ClipMeasures> = (0..clips.len())
        .into_par_iter()
        .map(|ci| {
            // every clip (the drawing's structure) with this clip's physics
            let fig = &Figure {
                springs: views[ci].springs.clone(),
                chains: views[ci].chains.clone(),
                ..fig.clone()
            };
            let (clip, fc) = (&clips[ci], &fig.clips[ci]);
            memo.measured.kept((fig, plan), ci, clip, || {
                measured::measure_clip(fig, (ci, fc), clip, plan, keyer.fit)
            })
        })
        .collect();
    for ((clip, fc), cm) in clips.iter().zip(&fig.clips).zip(clip_measures) {
        samples = samples.max(cm.samples);
        notes.extend(loop_jumps(fig, fc));
        for (name, rim) in cm.heads.iter().zip(&cm.tips[fig.bones.len()..]) {
            let keys = |suffix: &str| {
                let want = format!("rb-{}-{name}-head-{suffix}", fc.name);
                clip.tracks
                    .iter()
                    .find(|t| t.name == want)
                    .map_or(0, |t| t.keys.len())
            };
            notes.push(format!(
                "round head of bone {name:?} ({}): counter-rotation {} keys, counter-scale {}/{} keys (x/y); max rim error {:.4} px against the ideal rim (FK + root motion centre, radius r·(sx+sy)/2)",
                fc.name,
                keys("turn"),
                keys("x"),
                keys("y-sy"),
                rim.max_error_px
            ));
        }
        measures.push((fc.name.clone(), cm.tips));
        ik.extend(cm.ik);
    }
    Unwritten {
        fb: FigureBake {
            clips,
            svg: String::new(),
            measures,
            samples,
            notes,
            chains,
            ik,
            springs,
        },
        colours,
        switched,
    }
}

/// A note for each bone of a looping clip whose eased `track` ends at
/// another angle than it starts (but for whole turns): each loop then
/// jumps back, which is rarely meant (a one-shot clip may end anywhere).
fn loop_jumps(fig: &Figure, fc: &model::FigClip) -> Vec<String> {
    if fc.play == file::Play::Once {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (bone, driver) in fig.bones.iter().zip(&fc.drivers) {
        let model::Driver::Track(tr) = driver else {
            continue;
        };
        let jump = crate::geom::wrap_pi(tr.eval(1.0) - tr.eval(0.0)).to_degrees();
        if jump.abs() > LOOP_JUMP_DEG {
            out.push(format!(
                "bone {:?} ({}): its track ends {}° from where it starts, so every loop jumps back; end it on its first angle (or a whole turn from it) for a seamless loop",
                bone.name,
                fc.name,
                crate::geom::fmt_num(jump, 2)
            ));
        }
    }
    out
}

/// The smallest jump, degrees, that [`loop_jumps`] notes (a written key
/// rounds to 0.001°).
const LOOP_JUMP_DEG: f64 = 0.01;
