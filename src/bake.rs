//! Bake: ideal world motion → written clip (parent-relative keyframes).
//!
//! **css route.** Each leg is two nested groups drawn in a *drawn pose* (its
//! phase-0 pose). The thigh group rotates about the drawn hip by
//! `θ_thigh(t) − θ_thigh(0)`; the shin group, nested inside, rotates about the
//! drawn knee by `(θ_shin(t) − θ_shin(0)) − (θ_thigh(t) − θ_thigh(0))`: the
//! child inherits the parent's rotation, so its key is the world delta minus
//! the parent's delta (forgetting the subtraction gives "knee right, ankle
//! wrong"). Angles are unwrapped world angles in radians, written in degrees.
//!
//! **Reuse.** A leg with the same hip, bones, pedal offset, knee and reach as
//! an earlier leg is drawn in that leg's phase-0 shape (plus its own
//! `depth_offset`) and plays the earlier leg's keyframes with a negative
//! `animation-delay` equal to its phase lead: after the delay the local delta
//! `f(θ₀ + Δ + ωt) − f(θ₀)` lands on the drawn `f(θ₀)`, giving exactly the
//! world pose `f(θ₀ + Δ + ωt)`.
//!
//! **smil route.** Each leg is one `M hip L knee L ankle` path whose absolute
//! joint positions are keyed; no parent-relative conversion is needed.
//!
//! Keys are uniform in time: `t_k = k / n`, k = 0..=n, linear between keys.
//! Linear interpolation of angles leaves the ankle off the ideal curve by a
//! chord sag that falls as 1/n²; the measure stage reports how much.

use crate::clip::{Anim, Clip, Ease, Item, Key, LegInfo, Morph, Node, Route, Track};
pub use crate::emit::scope::{FIXED_NAMES, SIDE_PARTS, leg_names, side_names};
use crate::fit::{self, Estimate, FIT_SAMPLES, Fit, Problem};
pub use crate::fit::{BakeOptions, DEFAULT_TOLERANCE_PX, Keying, MAX_FIT_KEYS};
use crate::geom::{LEN_DECIMALS, Rem1, SEC_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::motion::{LegMotion, Motion};
use crate::rig::{Crank, Leg, Rig};
use std::cell::RefCell;
use std::f64::consts::TAU;

impl BakeOptions {
    /// The options for one rig and route, from optional overrides: `keys`
    /// (uniform) wins, then `tolerance_px`, then the rig's `tolerance_px`,
    /// then the rig's `keys`; with none of them, keys are fitted to
    /// [`DEFAULT_TOLERANCE_PX`] ([`Keying::Goal`]). The fit defaults to cubic
    /// for a fitted bake on the css route (on both routes for a bone tree)
    /// and to linear otherwise; with no `fit` given, a fitted css bake also
    /// sets [`BakeOptions::shortest_shape`] (a bone tree's channels take
    /// whichever of cubic and linear keys writes fewer bytes).
    pub fn resolve(
        rig: &Rig,
        route: Route,
        keys: Option<usize>,
        tolerance_px: Option<f64>,
        fit: Option<Fit>,
    ) -> Self {
        let keying = match (keys, tolerance_px.or(rig.tolerance_px), rig.keys) {
            (Some(n), _, _) => Keying::Uniform(n),
            (None, Some(px), _) => Keying::Tolerance(px),
            (None, None, Some(n)) => Keying::Uniform(n),
            (None, None, None) => Keying::Goal(DEFAULT_TOLERANCE_PX),
        };
        // a bone tree's rotations take keySplines on smil too (no d morph)
        let chosen = fit;
        let fit = fit.unwrap_or(match (route, keying.fit_tolerance()) {
            (Route::Css, Some(_)) => Fit::Cubic,
            (Route::Smil, Some(_)) if rig.figure.is_some() => Fit::Cubic,
            _ => Fit::Linear,
        });
        // no `--fit`: a bone tree's css channels take the shorter shape
        let shortest_shape =
            chosen.is_none() && route == Route::Css && keying.fit_tolerance().is_some();
        BakeOptions {
            route,
            keying,
            fit,
            shortest_shape,
        }
    }
}

/// Crank arm, pedal and leg styling widths, from the geometry.
fn bone_width(leg: &Leg) -> f64 {
    quantize((leg.thigh.min(leg.shin) * 0.16).clamp(2.0, 40.0), 1)
}

fn q_len(p: Vec2) -> Vec2 {
    Vec2::new(quantize(p.x, LEN_DECIMALS), quantize(p.y, LEN_DECIMALS))
}

/// Parent-relative rotations (radians) of the thigh and shin groups at
/// normalised time t, for groups drawn in the leg's phase-0 pose:
/// `thigh_local = θ_thigh(t) − θ_thigh(0)`,
/// `shin_local = (θ_shin(t) − θ_shin(0)) − (θ_thigh(t) − θ_thigh(0))`,
/// from unwrapped world angles.
pub fn local_angles_rad(lm: &LegMotion, t: f64) -> (f64, f64) {
    local_of(lm.angles_at(0.0), lm.angles_at(t))
}

/// The local rotations of [`local_angles_rad`] from the unwrapped world
/// angles at 0 and at t.
fn local_of((thigh0, shin0): (f64, f64), (thigh, shin): (f64, f64)) -> (f64, f64) {
    let thigh_local = thigh - thigh0;
    (thigh_local, (shin - shin0) - thigh_local)
}

/// `v` turned by `a` radians (y down: clockwise on screen).
fn rot(v: Vec2, a: f64) -> Vec2 {
    let (s, c) = a.sin_cos();
    Vec2::new(c * v.x - s * v.y, s * v.x + c * v.y)
}

/// Fitting a css-route leg: two key sets (thigh, shin) judged jointly by the
/// ankle position their nested rotations produce on the drawn pose.
struct CssLegProblem<'a> {
    lm: &'a LegMotion,
    fit: Fit,
    ts: Vec<f64>,
    /// Ideal local angles (deg) at `ts`.
    ideal: [Vec<f64>; 2],
    /// Lever arms at `ts`: |ankle − hip| and |ankle − knee| of the ideal pose.
    arms: Vec<(f64, f64)>,
    /// The unwrapped world angles at t = 0 (rad).
    zero: (f64, f64),
    /// The local angles (rad) at t = 0 and t = 1, from the first and last
    /// samples: every slope ([`fit::slope`]) reads both ends of the curve.
    ends: [(f64, f64); 2],
    /// Per sample: the ideal local angles (rad) and the drawn thigh and
    /// shin vectors turned by them, and the drawn ankle so turned minus the
    /// target (the rounding of the drawn pose, or a clamped leg's gap).
    /// The error of written angles `I + δ` is then
    /// `thigh·(cos δ₁ − 1) + ⊥thigh·sin δ₁ + shin·(cos δ₁₂ − 1) + ⊥shin·sin δ₁₂ + gap`,
    /// with small δ: no full-angle sine per trial sample.
    turned: Vec<Turned>,
    /// `turned`'s thigh and shin angles (rad) and gap lengths (px) as three
    /// plain arrays: what [`Self::uppers`] reads, sample after sample.
    bound_terms: [Vec<f64>; 3],
    /// Drawn thigh and shin lengths, px, a little over (an upper bound's
    /// factors: a bone turned by δ moves its end by at most length × |δ|).
    lengths: (f64, f64),
    /// (set, key time in millionths) → exact (value deg, slope deg per period).
    cache: RefCell<fnv::FnvHashMap<(usize, i64), (f64, f64)>>,
    /// Time (bits) → local angles (rad), for [`Problem::initial`]: both
    /// sets' extrema search the same grid, each time solved once.
    grid: RefCell<fnv::FnvHashMap<u64, (f64, f64)>>,
    /// The last completed estimate's key times, written angles (deg) and
    /// errors per sample: a trial re-evaluates only the samples its changed
    /// keys reach, measured against that base.
    last: RefCell<Option<CssState>>,
}

/// The ideal pose of a css leg at one fitter sample (see [`CssLegProblem`]).
struct Turned {
    thigh_rad: f64,
    shin_rad: f64,
    thigh: Vec2,
    shin: Vec2,
    gap: Vec2,
    /// `|gap|`, px.
    gap_len: f64,
}

/// One set of per-sample values of a css-leg estimate.
#[derive(Clone)]
struct CssSamples {
    /// Written thigh and shin angles per sample, degrees.
    angles: [Vec<f64>; 2],
    /// The thigh's share of the ankle error, per sample (where `exact`).
    thigh: Vec<Vec2>,
    /// Squared ankle errors per sample, px²: exact where `exact`, else an
    /// upper bound (bone length × missed angle, summed), computed exactly
    /// only when it could matter (above a bound, or the max).
    errors: Vec<f64>,
    exact: Vec<bool>,
}

struct CssState {
    /// Key times of the base: the last estimate that completed.
    times: Vec<Vec<f64>>,
    /// The base's values at every sample.
    base: CssSamples,
    /// A trial's values at the samples it changed; swapped with `base`
    /// when the trial completes (instead of copying them over). A trial cut
    /// short by its bound leaves the base as it was (the caller goes back
    /// to it).
    trial: CssSamples,
    /// Where `trial` may differ from `base`, per part: the thigh angles,
    /// the shin angles, and the rest (shares, errors, exactness; a share
    /// only where its sample is exact). Outside these ranges the two hold
    /// the same values, so a completed trial makes `trial` the base by
    /// copying in only the base's values in these ranges that the trial
    /// did not write, then swapping the two.
    stale: [std::ops::Range<usize>; 3],
    /// The first sample of the base's max: a bounded trial checks it first
    /// (a trial that fails usually fails there).
    worst: usize,
    /// The max of the base's errors over each run of [`BLOCK`] samples: the
    /// max outside a trial's samples without a pass over all of them.
    blocks: Vec<f64>,
}

/// Copies `src[stale]` into `dst`, except `written` (a range `dst` already
/// holds newer values in).
fn copy_stale<T: Copy>(
    dst: &mut [T],
    src: &[T],
    stale: &std::ops::Range<usize>,
    written: &std::ops::Range<usize>,
) {
    if written.is_empty() {
        dst[stale.clone()].copy_from_slice(&src[stale.clone()]);
        return;
    }
    let below = stale.start..stale.end.min(written.start);
    let above = stale.start.max(written.end)..stale.end;
    for r in [below, above] {
        if !r.is_empty() {
            dst[r.clone()].copy_from_slice(&src[r]);
        }
    }
}

/// The smallest range holding both (an empty one adds nothing).
fn hull(a: &std::ops::Range<usize>, b: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    match (a.is_empty(), b.is_empty()) {
        (true, _) => b.clone(),
        (_, true) => a.clone(),
        _ => a.start.min(b.start)..a.end.max(b.end),
    }
}

/// Samples per block of [`CssState::blocks`].
const BLOCK: usize = 32;

/// The max of `errors` over block `b` ([`BLOCK`] samples, fewer at the end).
fn block_max(errors: &[f64], b: usize) -> f64 {
    errors[b * BLOCK..((b + 1) * BLOCK).min(errors.len())]
        .iter()
        .fold(0.0, |m, &e| m.max(e))
}

/// The largest of `errors[range]`, by whole blocks where `blocks` (each the
/// max of [`BLOCK`] errors) covers them.
fn max_over(errors: &[f64], blocks: &[f64], range: std::ops::Range<usize>) -> f64 {
    let (first, last) = (range.start.div_ceil(BLOCK), range.end / BLOCK);
    if first >= last {
        return errors[range].iter().fold(0.0, |m, &e| m.max(e));
    }
    let m = errors[range.start..first * BLOCK]
        .iter()
        .chain(&errors[last * BLOCK..range.end])
        .fold(0.0f64, |m, &e| m.max(e));
    blocks[first..last].iter().fold(m, |m, &e| m.max(e))
}

impl<'a> CssLegProblem<'a> {
    fn new(lm: &'a LegMotion, fit: Fit) -> Self {
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        let poses: Vec<_> = ts.iter().map(|&t| lm.pose_at(t)).collect();
        let pose0 = lm.pose_at(0.0);
        // local_angles_rad from the poses solved once
        let zero = lm.angles_of(0.0, &pose0);
        let locals: Vec<(f64, f64)> = ts
            .iter()
            .zip(&poses)
            .map(|(&t, p)| local_of(zero, lm.angles_of(t, p)))
            .collect();
        let hip = q_len(lm.leg().hip);
        let knee0 = q_len(pose0.joint);
        let ankle0 = q_len(pose0.end);
        let ideal: [Vec<f64>; 2] = [
            locals.iter().map(|a| a.0.to_degrees()).collect(),
            locals.iter().map(|a| a.1.to_degrees()).collect(),
        ];
        let turned = (0..ts.len())
            .map(|i| {
                let (a1, a2) = (ideal[0][i].to_radians(), ideal[1][i].to_radians());
                let thigh = rot(knee0 - hip, a1);
                let shin = rot(ankle0 - knee0, a1 + a2);
                Turned {
                    thigh_rad: a1,
                    shin_rad: a1 + a2,
                    thigh,
                    shin,
                    // the reachable ankle: what keys can be fitted to (a leg
                    // clamped out of reach keeps its gap whatever the keys)
                    gap: hip + thigh + shin - poses[i].end,
                    gap_len: (hip + thigh + shin - poses[i].end).len(),
                }
            })
            .collect::<Vec<Turned>>();
        let bound_terms = [
            turned.iter().map(|p| p.thigh_rad).collect(),
            turned.iter().map(|p| p.shin_rad).collect(),
            turned.iter().map(|p| p.gap_len).collect(),
        ];
        CssLegProblem {
            lm,
            fit,
            ideal,
            turned,
            bound_terms,
            zero,
            ends: [locals[0], locals[locals.len() - 1]],
            lengths: (
                (knee0 - hip).len() * (1.0 + 1e-9),
                (ankle0 - knee0).len() * (1.0 + 1e-9),
            ),
            arms: poses
                .iter()
                .map(|p| (p.end.dist(lm.leg().hip), p.end.dist(p.joint)))
                .collect(),
            ts,
            cache: RefCell::default(),
            grid: RefCell::default(),
            last: RefCell::new(None),
        }
    }

    /// [`local_angles_rad`] at t, with the angles at 0 solved once, and
    /// those at exactly 0 and 1 kept from the samples (the same solves).
    fn local(&self, t: f64) -> (f64, f64) {
        if t.to_bits() == 0f64.to_bits() {
            return self.ends[0];
        }
        if t.to_bits() == 1f64.to_bits() {
            return self.ends[1];
        }
        local_of(self.zero, self.lm.angles_at(t))
    }

    /// Keys for a candidate set, with exact values and slopes memoised per
    /// key time (the fitter revisits the same times many times).
    fn keys(&self, times: &[Vec<f64>], set: usize) -> Vec<Key> {
        self.keys_in(times, set, 0..times[set].len())
    }

    /// [`Self::keys`] for the run `window` of the set's key times only (its
    /// last key's ease left linear: no segment of the run starts there).
    fn keys_in(&self, times: &[Vec<f64>], set: usize, window: std::ops::Range<usize>) -> Vec<Key> {
        let f = |t: f64| {
            let a = self.local(t);
            if set == 0 { a.0 } else { a.1 }.to_degrees()
        };
        let mut cache = self.cache.borrow_mut();
        let times = &times[set][window];
        let samples: Vec<(f64, f64)> = times
            .iter()
            .map(|&t| {
                let key = (set, (t * 1e6).round() as i64);
                *cache
                    .entry(key)
                    .or_insert_with(|| (f(t), fit::slope(&f, t)))
            })
            .collect();
        fit::keys_from(times, &samples, self.fit)
    }

    /// The thigh's share of the ankle error at sample `i` for a written
    /// thigh angle `a1` (rad).
    fn thigh_share(&self, i: usize, a1: f64) -> Vec2 {
        let p = &self.turned[i];
        let (s, c) = crate::geom::small_sin_cos_m1(a1 - p.thigh_rad);
        p.thigh * c + Vec2::new(-p.thigh.y, p.thigh.x) * s
    }

    /// The squared ankle error at sample `i` from the thigh's share and the
    /// written angles (rad): rotate_about(a1, hip) · rotate_about(a2, knee0)
    /// applied to ankle0, minus the target.
    fn error2(&self, i: usize, thigh: Vec2, a1: f64, a2: f64) -> f64 {
        let p = &self.turned[i];
        let (s, c) = crate::geom::small_sin_cos_m1(a1 + a2 - p.shin_rad);
        let d = thigh + p.shin * c + Vec2::new(-p.shin.y, p.shin.x) * s + p.gap;
        d.x * d.x + d.y * d.y
    }

    /// An upper bound of the ankle error at a sample whose ideal pose is
    /// `p` (px) for written
    /// angles `a1`, `a2` (rad), without trigonometry (what [`Self::uppers`]
    /// computes for a run of samples).
    #[cfg(test)]
    fn upper(&self, p: &Turned, a1: f64, a2: f64) -> f64 {
        (self.lengths.0 * (a1 - p.thigh_rad).abs()
            + self.lengths.1 * (a1 + a2 - p.shin_rad).abs()
            + p.gap_len)
            * (1.0 + 1e-9)
    }

    /// [`Self::upper`] at each sample of `range` for the written angles
    /// (deg) `thighs[range]` and `shins[range]`, into `out` (as long as the
    /// range): the same operations per sample, in a loop over plain arrays
    /// with no branch, which the compiler vectorises.
    fn uppers(
        &self,
        thighs: &[f64],
        shins: &[f64],
        range: std::ops::Range<usize>,
        out: &mut [f64],
    ) {
        let [th, sh, gaps] = &self.bound_terms;
        let (l1, l2) = self.lengths;
        let r = range;
        let angles = thighs[r.clone()].iter().zip(&shins[r.clone()]);
        let terms = th[r.clone()].iter().zip(&sh[r.clone()]).zip(&gaps[r]);
        for (o, ((&a1, &a2), ((&t1, &t2), &gap))) in out.iter_mut().zip(angles.zip(terms)) {
            let (a1, a2) = (a1.to_radians(), a2.to_radians());
            *o = (l1 * (a1 - t1).abs() + l2 * (a1 + a2 - t2).abs() + gap) * (1.0 + 1e-9);
        }
    }

    /// Makes the base's sample `i` exact (its angles are always exact),
    /// writing the same into `trial` (which then still equals the base
    /// wherever it did, see [`CssState::stale`]).
    fn settle(&self, base: &mut CssSamples, trial: &mut CssSamples, i: usize) {
        if !base.exact[i] {
            let (a1, a2) = (
                base.angles[0][i].to_radians(),
                base.angles[1][i].to_radians(),
            );
            let thigh = self.thigh_share(i, a1);
            let error = self.error2(i, thigh, a1, a2);
            for s in [base, trial] {
                s.thigh[i] = thigh;
                s.errors[i] = error;
                s.exact[i] = true;
            }
        }
    }

    /// Whether an exact base error in `range` is `over` the bound: the
    /// samples whose upper bounds are over are settled first.
    /// `top` is the base's largest error in `range` (exact or not).
    fn over_in(
        &self,
        base: &mut CssSamples,
        trial: &mut CssSamples,
        blocks: &mut [f64],
        range: std::ops::Range<usize>,
        top: f64,
        over: &dyn Fn(f64) -> bool,
    ) -> bool {
        if !over(top) {
            return false;
        }
        let n = base.errors.len();
        let (first, end) = (range.start / BLOCK, range.end.div_ceil(BLOCK));
        for (b, top) in blocks.iter_mut().enumerate().take(end).skip(first) {
            if !over(*top) {
                continue;
            }
            let block = b * BLOCK..((b + 1) * BLOCK).min(n);
            let mut found = false;
            for i in block.start.max(range.start)..block.end.min(range.end) {
                if over(base.errors[i]) {
                    self.settle(base, trial, i);
                    if over(base.errors[i]) {
                        found = true;
                        break;
                    }
                }
            }
            // (settled samples lowered the block's max)
            *top = block_max(&base.errors, b);
            if found {
                return true;
            }
        }
        false
    }

    /// Panics unless `trial` equals the base outside the stale ranges
    /// ([`CssState::stale`]; a share only where its sample is exact).
    #[cfg(test)]
    fn check_stale(&self) {
        let last = self.last.borrow();
        let Some(state) = last.as_ref() else { return };
        let (base, trial) = (&state.base, &state.trial);
        for i in 0..self.ts.len() {
            for set in 0..2 {
                if !state.stale[set].contains(&i) {
                    assert_eq!(
                        trial.angles[set][i].to_bits(),
                        base.angles[set][i].to_bits(),
                        "angles {set} at {i}"
                    );
                }
            }
            if !state.stale[2].contains(&i) {
                assert_eq!(trial.errors[i].to_bits(), base.errors[i].to_bits(), "{i}");
                assert_eq!(trial.exact[i], base.exact[i], "{i}");
                if base.exact[i] {
                    assert_eq!(trial.thigh[i], base.thigh[i], "share at {i}");
                }
            }
        }
    }

    /// The estimate, or `None` as soon as one sample's error exceeds
    /// `bound`: only the samples whose segments differ from the base (the
    /// last completed estimate) are evaluated, into scratch buffers that
    /// become the base when the estimate completes (by a swap, see
    /// [`CssState::stale`]); a sample whose upper bound is within `bound`
    /// and within the largest error already known to be reached keeps the
    /// bound, and is made exact later only if it could be the max.
    fn bounded(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        let n = self.ts.len();
        let mut last = self.last.borrow_mut();
        let fresh = last.is_none();
        let state = last.get_or_insert_with(|| {
            let zero = CssSamples {
                angles: [vec![0.0; n], vec![0.0; n]],
                thigh: vec![Vec2::new(0.0, 0.0); n],
                errors: vec![0.0; n],
                exact: vec![true; n],
            };
            CssState {
                times: vec![Vec::new(); 2],
                base: zero.clone(),
                trial: zero,
                stale: [0..0, 0..0, 0..0],
                worst: 0,
                blocks: vec![0.0; n.div_ceil(BLOCK)],
            }
        });
        // only the samples whose segments differ from the base
        let spans: [std::ops::Range<usize>; 2] = std::array::from_fn(|set| {
            if fresh {
                0..n
            } else {
                fit::changed_samples(&state.times[set], &times[set], &self.ts).unwrap_or(0..0)
            }
        });
        let dirty = match (spans[0].is_empty(), spans[1].is_empty()) {
            (true, true) => 0..0,
            (false, true) => spans[0].clone(),
            (true, false) => spans[1].clone(),
            (false, false) => spans[0].start.min(spans[1].start)..spans[0].end.max(spans[1].end),
        };
        let bound2 = bound * bound;
        let over = |e: f64| e > bound2 && e.sqrt() > bound;
        let CssState {
            base,
            trial,
            stale,
            worst,
            blocks,
            ..
        } = state;
        // a sample the trial leaves alone already exceeds the bound (the
        // base's max is exact)
        if !dirty.contains(worst) && over(base.errors[*worst]) {
            return None;
        }
        let below = max_over(&base.errors, blocks, 0..dirty.start);
        let above = max_over(&base.errors, blocks, dirty.end..n);
        if self.over_in(base, trial, blocks, 0..dirty.start, below, &over)
            || self.over_in(base, trial, blocks, dirty.end..n, above, &over)
        {
            return None;
        }
        // The largest error the estimate is known to reach (outside the
        // changed samples, and each exact error found among them): a
        // sample whose upper bound is within it cannot be the max, so it
        // keeps the bound; one above it is made exact at once rather than
        // settled later (with an infinite bound every upper bound is
        // within it, and the max search would settle them one by one).
        let reached = std::cell::Cell::new(below.max(above));
        // the parts this trial writes into `trial` (all of `dirty` once it
        // completes): the angles of the sets it changes, and the rest
        let written: [bool; 3] = [!spans[0].is_empty(), !spans[1].is_empty(), true];
        for (part, range) in stale.iter_mut().enumerate() {
            if written[part] {
                *range = hull(range, &dirty);
            }
        }
        // (only the keys the changed samples' segments read)
        let keys: [Vec<Key>; 2] = std::array::from_fn(|set| {
            let span = &spans[set];
            if span.is_empty() {
                Vec::new()
            } else {
                let (lo, hi) = (self.ts[span.start], self.ts[span.end - 1]);
                self.keys_in(times, set, fit::keys_spanning(&times[set], lo, hi))
            }
        });
        // the trial's angles over `range` (within `dirty`): its keys'
        // values where its set changed, the base's elsewhere (a set the
        // trial leaves alone is read from the base itself)
        let fill = |trial: &mut CssSamples, range: std::ops::Range<usize>| {
            for (set, span) in spans.iter().enumerate() {
                if span.is_empty() {
                    continue;
                }
                let (lo, hi) = (range.start.max(span.start), range.end.min(span.end));
                let (angles, old) = (&mut trial.angles[set], &base.angles[set]);
                if lo < hi {
                    fit::eval_keys_into(&keys[set], &self.ts[lo..hi], &mut angles[lo..hi]);
                    angles[range.start..lo].copy_from_slice(&old[range.start..lo]);
                    angles[hi..range.end].copy_from_slice(&old[hi..range.end]);
                } else {
                    angles[range.clone()].copy_from_slice(&old[range.clone()]);
                }
            }
        };
        // the squared errors over `range` of the trial's angles there, or
        // upper bounds within `bound`; true at the first over `bound`
        let errors_in = |trial: &mut CssSamples, range: std::ops::Range<usize>| {
            let CssSamples {
                angles: [thighs, shins],
                thigh: shares,
                errors,
                exact,
            } = trial;
            let thighs: &[f64] = if spans[0].is_empty() {
                &base.angles[0]
            } else {
                thighs
            };
            let shins: &[f64] = if spans[1].is_empty() {
                &base.angles[1]
            } else {
                shins
            };
            // (a range is at most a block)
            let mut uppers = [0.0; BLOCK];
            let uppers = &mut uppers[..range.len()];
            self.uppers(thighs, shins, range.clone(), uppers);
            let rows = (thighs[range.clone()].iter().zip(&shins[range.clone()]))
                .zip(
                    errors[range.clone()]
                        .iter_mut()
                        .zip(&mut exact[range.clone()]),
                )
                .zip(uppers.iter());
            for (i, (((&a1, &a2), (error, exact)), &upper)) in range.zip(rows) {
                if upper <= bound && upper * upper <= reached.get() {
                    *error = upper * upper;
                    *exact = false;
                    continue;
                }
                let (a1, a2) = (a1.to_radians(), a2.to_radians());
                let thigh = if spans[0].contains(&i) || !base.exact[i] {
                    self.thigh_share(i, a1)
                } else {
                    base.thigh[i]
                };
                shares[i] = thigh;
                *error = self.error2(i, thigh, a1, a2);
                *exact = true;
                if over(*error) {
                    return true;
                }
                reached.set(reached.get().max(*error));
            }
            false
        };
        if bound.is_finite() && dirty.contains(worst) {
            fill(trial, *worst..*worst + 1);
            if errors_in(trial, *worst..*worst + 1) {
                return None;
            }
        }
        // a block of samples at a time: their angles, then their errors
        for start in dirty.clone().step_by(BLOCK) {
            let chunk = start..(start + BLOCK).min(dirty.end);
            fill(trial, chunk.clone());
            if errors_in(trial, chunk) {
                return None;
            }
        }
        // the trial completed: it becomes the base. `trial` holds its values
        // in `dirty` and the base's outside the stale ranges; the base's
        // values in the rest of those ranges are copied in, then the two
        // swap (the old base then differs from the new one only in `dirty`)
        for set in 0..2 {
            if written[set] {
                copy_stale(
                    &mut trial.angles[set],
                    &base.angles[set],
                    &stale[set],
                    &dirty,
                );
                std::mem::swap(&mut trial.angles[set], &mut base.angles[set]);
                stale[set] = dirty.clone();
            }
        }
        copy_stale(&mut trial.thigh, &base.thigh, &stale[2], &dirty);
        copy_stale(&mut trial.errors, &base.errors, &stale[2], &dirty);
        copy_stale(&mut trial.exact, &base.exact, &stale[2], &dirty);
        std::mem::swap(&mut trial.thigh, &mut base.thigh);
        std::mem::swap(&mut trial.errors, &mut base.errors);
        std::mem::swap(&mut trial.exact, &mut base.exact);
        stale[2] = dirty.clone();
        for (set, span) in spans.iter().enumerate() {
            if !span.is_empty() || fresh {
                state.times[set].clone_from(&times[set]);
            }
        }
        let (first, end) = (dirty.start / BLOCK, dirty.end.div_ceil(BLOCK));
        for (b, top) in blocks.iter_mut().enumerate().take(end).skip(first) {
            *top = block_max(&base.errors, b);
        }
        // the first sample of the max: the first block holding it, then the
        // first sample in that block; an upper bound there is made exact
        // and the search repeated
        let (max, worst_i) = loop {
            let mut top = 0;
            for (b, &m) in blocks.iter().enumerate() {
                if m > blocks[top] {
                    top = b;
                }
            }
            let max = blocks[top];
            let i = top * BLOCK
                + base.errors[top * BLOCK..]
                    .iter()
                    .position(|&e| e == max)
                    .expect("the block's max is one of its samples");
            if base.exact[i] {
                break (max, i);
            }
            self.settle(base, trial, i);
            blocks[top] = block_max(&base.errors, top);
        };
        *worst = worst_i;
        if max.sqrt() > bound {
            // (`over` compares squares first: a max within rounding of the bound)
            return None;
        }
        let d1 = (base.angles[0][worst_i] - self.ideal[0][worst_i])
            .to_radians()
            .abs();
        let d2 = (base.angles[1][worst_i] - self.ideal[1][worst_i])
            .to_radians()
            .abs();
        let (arm1, arm2) = self.arms[worst_i];
        Some(Estimate {
            max_px: max.sqrt(),
            worst_t: self.ts[worst_i],
            blame: if d1 * arm1 >= d2 * arm2 { 0 } else { 1 },
        })
    }
}

impl Problem for CssLegProblem<'_> {
    fn sets(&self) -> usize {
        2
    }

    fn estimate(&self, times: &[Vec<f64>]) -> Estimate {
        self.bounded(times, f64::INFINITY)
            .expect("an unbounded estimate always completes")
    }

    fn estimate_within(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        self.bounded(times, bound)
    }

    fn split_at(&self, times: &[Vec<f64>], set: usize, lo: f64, hi: f64, worst_t: f64) -> f64 {
        let keys = self.keys(times, set);
        fit::worst_between(&keys, &self.ts, &self.ideal[set], lo, hi).unwrap_or(worst_t)
    }

    fn initial(&self, set: usize) -> Vec<f64> {
        let f = |t: f64| {
            let a = *self
                .grid
                .borrow_mut()
                .entry(t.to_bits())
                .or_insert_with(|| self.local(t));
            if set == 0 { a.0 } else { a.1 }
        };
        let mut v = vec![0.0];
        v.extend(fit::extrema(&f));
        v.push(1.0);
        v
    }
}

/// Fitting a smil-route leg: one key set; the ankle moves on straight chords
/// between keyed positions.
struct SmilLegProblem<'a> {
    lm: &'a LegMotion,
    ts: Vec<f64>,
    targets: Vec<Vec2>,
    /// The last estimate's key times and squared errors per sample (as for
    /// [`CssLegProblem`]).
    last: RefCell<(Vec<f64>, Vec<f64>)>,
}

impl<'a> SmilLegProblem<'a> {
    fn new(lm: &'a LegMotion) -> Self {
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        SmilLegProblem {
            lm,
            // the reachable ankle: what keys can be fitted to (a leg clamped
            // out of reach keeps its gap whatever the keys)
            targets: ts.iter().map(|&t| lm.pose_at(t).end).collect(),
            last: RefCell::new((Vec::new(), vec![0.0; ts.len()])),
            ts,
        }
    }
}

impl Problem for SmilLegProblem<'_> {
    fn sets(&self) -> usize {
        1
    }

    fn estimate(&self, times: &[Vec<f64>]) -> Estimate {
        let tk = &times[0];
        let mut last = self.last.borrow_mut();
        let (old, errors) = &mut *last;
        let span = if old.is_empty() {
            Some(0..self.ts.len())
        } else {
            fit::changed_samples(old, tk, &self.ts)
        };
        if let Some(span) = span.filter(|s| !s.is_empty()) {
            // the keyed ankles of the segments that hold the changed samples
            let (lo, hi) = (self.ts[span.start], self.ts[span.end - 1]);
            let k0 = tk.partition_point(|&t| t <= lo).saturating_sub(1);
            let k1 = (tk.partition_point(|&t| t <= hi) + 1).min(tk.len());
            let ankles: Vec<Vec2> = tk[k0..k1]
                .iter()
                .map(|&t| q_len(self.lm.pose_at(t).end))
                .collect();
            let ts = &self.ts[span.clone()];
            fit::linear_estimate(ts, &tk[k0..k1], |i, seg, f| {
                let p = ankles[seg] + (ankles[seg + 1] - ankles[seg]) * f;
                let i = span.start + i;
                let d = p - self.targets[i];
                errors[i] = d.x * d.x + d.y * d.y;
                errors[i]
            });
        }
        old.clone_from(tk);
        let mut best = Estimate {
            max_px: -1.0,
            worst_t: 0.0,
            blame: 0,
        };
        for (i, &e) in errors.iter().enumerate() {
            if e > best.max_px {
                best.max_px = e;
                best.worst_t = self.ts[i];
            }
        }
        best.max_px = best.max_px.sqrt();
        best
    }

    fn split_at(&self, _: &[Vec<f64>], _: usize, _: f64, _: f64, worst_t: f64) -> f64 {
        worst_t
    }

    fn initial(&self, _: usize) -> Vec<f64> {
        fit::uniform_times(4)
    }

    /// The ankle follows the pedal circle, whose chord sag is the same
    /// everywhere: uniform keys are already about the best.
    fn uniform_first(&self) -> bool {
        true
    }
}

/// Two geometric legs that can share keyframes (same shape, any phase).
fn same_shape(a: &Leg, b: &Leg) -> bool {
    a.hip == b.hip
        && a.thigh == b.thigh
        && a.shin == b.shin
        && a.pedal_offset == b.pedal_offset
        && a.knee == b.knee
        && a.reach == b.reach
}

/// The negative delay (seconds, as written) that makes a leg whose pedal leads
/// by `lead_rad` replay keyframes baked for phase 0.
fn reuse_delay_s(lead_rad: f64, sign: f64, period_s: f64) -> f64 {
    let frac = (sign * lead_rad / TAU).rem1();
    let d = quantize(-frac * period_s, SEC_DECIMALS);
    if d == 0.0 { 0.0 } else { d }
}

/// One whole turn per period at a steady rate in the direction `sign`
/// (±1): degrees 0 → sign·360, linear.
fn full_turn(name: String, sign: f64) -> Track {
    let key = |t: f64, value: f64| Key {
        t,
        value,
        ease: Ease::Linear,
    };
    Track {
        name,
        keys: vec![key(0.0, 0.0), key(1.0, sign * 360.0)],
    }
}

/// Bake a rig's motion into a clip (pure).
pub fn bake(rig: &Rig, motion: &Motion, opts: &BakeOptions) -> Clip {
    let period_s = quantize(rig.period_s, SEC_DECIMALS);
    let fit = opts.effective_fit();
    let crank = Crank::of(rig);
    let sign = crank.sign();
    let center = q_len(crank.center);
    let radius = quantize(crank.radius, LEN_DECIMALS);
    let mut tracks: Vec<Track> = vec![full_turn("rb-crank".into(), sign)];
    let crank_track = 0;
    let mut sides: Vec<Node> = Vec::new();
    let mut infos: Vec<LegInfo> = Vec::new();
    // For each leg that owns keyframes: (index of its thigh track, its leg index).
    let mut owners: Vec<(usize, usize)> = Vec::new();

    for (i, lm) in motion.legs.iter().enumerate() {
        let leg = lm.leg();
        let theta0 = crank.start_rad + leg.phase_rad;
        let width = bone_width(leg);
        let side_class = side_names(&leg.name, "");
        let mut side = Node {
            class: Some(side_class.clone()),
            translate: q_len(leg.depth_offset),
            anim: None,
            children: Vec::new(),
        };
        let pedal_axle0 = q_len(center + Vec2::from_angle(theta0) * radius);
        let target_probe = format!("{}-target", leg.name);
        let ankle_probe = format!("{}-ankle", leg.name);
        let offset = q_len(leg.pedal_offset);
        let pedal_w = quantize((radius * 0.5).max(4.0), LEN_DECIMALS);
        let pedal_h = quantize((width * 0.4).max(2.0), LEN_DECIMALS);

        // Crank arm (both routes): drawn at θ0, turning with the crank.
        let arm = Item::Line {
            from: center,
            to: pedal_axle0,
            class: "rb-arm".into(),
            width: quantize((width * 0.35).max(1.5), 1),
        };
        // The arm turns with the crank; the pedal, drawn at its phase-0
        // axle inside the arm's group, turns back about that axle as fast,
        // so it stays level. One structure on both routes; the css route
        // names the groups its rules select (every leg's counter-turn has
        // the same keys, so the file writes one keyframes block for them).
        let counter = tracks.len();
        tracks.push(full_turn(side_names(&side_class, "counter"), -sign));
        let class = |part: &str| (opts.route == Route::Css).then(|| side_names(&side_class, part));
        let pedal = Node {
            class: class("pedal"),
            anim: Some(Anim::Rotate {
                track: counter,
                origin: pedal_axle0,
                delay_s: 0.0,
            }),
            children: vec![
                pedal_rect(pedal_axle0, pedal_w, pedal_h),
                Item::Probe {
                    name: target_probe.clone(),
                    at: q_len(pedal_axle0 + offset),
                },
            ],
            ..Node::default()
        };
        side.children.push(Item::Group(Node {
            class: class("crank"),
            anim: Some(Anim::Rotate {
                track: crank_track,
                origin: center,
                delay_s: 0.0,
            }),
            children: vec![arm, Item::Group(pedal)],
            ..Node::default()
        }));

        let leg_class = if i == 0 { "rb-leg" } else { "rb-leg rb-back" };
        let (leg_tracks, reuses) = match opts.route {
            Route::Css => {
                let reused = owners
                    .iter()
                    .find(|&&(_, j)| same_shape(motion.legs[j].leg(), leg))
                    .copied();
                let (thigh_track, src, delay_s) = match reused {
                    Some((tt, j)) => {
                        let lead = leg.phase_rad - motion.legs[j].leg().phase_rad;
                        (tt, &motion.legs[j], reuse_delay_s(lead, sign, period_s))
                    }
                    None => {
                        let tt = tracks.len();
                        // a fitted leg's keys from its problem, whose memo
                        // already holds every key time's value and slope
                        let fitted = |p: CssLegProblem, times: Vec<Vec<f64>>| {
                            [p.keys(&times, 0), p.keys(&times, 1)]
                        };
                        let [thigh_keys, shin_keys] = match opts.keying {
                            Keying::Uniform(n) => {
                                let times = fit::uniform_times(n);
                                let thigh_deg = |t: f64| local_angles_rad(lm, t).0.to_degrees();
                                let shin_deg = |t: f64| local_angles_rad(lm, t).1.to_degrees();
                                [
                                    fit::keys_at(&times, &thigh_deg, fit),
                                    fit::keys_at(&times, &shin_deg, fit),
                                ]
                            }
                            Keying::Tolerance(px) | Keying::Goal(px) => {
                                let p = CssLegProblem::new(lm, fit);
                                let times = fit::refine(&p, px, MAX_FIT_KEYS);
                                fitted(p, times)
                            }
                            Keying::Budget(n) => {
                                let p = CssLegProblem::new(lm, fit);
                                let times = fit::fill(&p, n);
                                fitted(p, times)
                            }
                        };
                        tracks.push(Track {
                            name: side_names(&side_class, "thigh"),
                            keys: thigh_keys,
                        });
                        tracks.push(Track {
                            name: side_names(&side_class, "shin"),
                            keys: shin_keys,
                        });
                        owners.push((tt, i));
                        (tt, lm, 0.0)
                    }
                };
                side.children.push(Item::Group(leg_groups(
                    src,
                    thigh_track,
                    delay_s,
                    &side_class,
                    &ankle_probe,
                    leg_class,
                    width,
                )));
                (
                    vec![thigh_track, thigh_track + 1],
                    reused.map(|(_, j)| motion.legs[j].leg().name.clone()),
                )
            }
            Route::Smil => {
                let hip = q_len(leg.hip);
                let times = match opts.keying {
                    Keying::Uniform(n) => fit::uniform_times(n),
                    Keying::Tolerance(px) | Keying::Goal(px) => {
                        fit::refine(&SmilLegProblem::new(lm), px, MAX_FIT_KEYS).remove(0)
                    }
                    Keying::Budget(n) => fit::fill(&SmilLegProblem::new(lm), n).remove(0),
                };
                let keys = times
                    .iter()
                    .map(|&t| {
                        let p = lm.pose_at(t);
                        (t, vec![hip, q_len(p.joint), q_len(p.end)])
                    })
                    .collect::<Vec<_>>();
                side.children.push(Item::Morph(Morph {
                    class: leg_class.into(),
                    width,
                    probe: Some(ankle_probe.clone()),
                    cubic: false,
                    keys,
                }));
                (Vec::new(), None)
            }
        };
        side.children.push(Item::Circle {
            center: q_len(leg.hip),
            r: quantize(width * 0.5, 1),
            class: "rb-hip".into(),
        });
        infos.push(LegInfo {
            name: leg.name.clone(),
            ankle_probe,
            target_probe,
            thigh: leg.thigh,
            shin: leg.shin,
            tracks: leg_tracks,
            fit,
            reuses,
            ideal: None,
        });
        sides.push(side);
    }

    // Draw back to front: later legs are behind; the bike sits between the
    // first leg and the rest.
    let mut root = Node::default();
    let first = sides.remove(0);
    for side in sides.into_iter().rev() {
        root.children.push(Item::Group(side));
    }
    root.children.push(bike(rig, center, radius, crank_track));
    root.children.push(Item::Group(first));

    Clip {
        name: rig.name.clone(),
        route: opts.route,
        period_s,
        view_box: rig.view_box,
        tracks,
        root,
        legs: infos,
        figure: None,
        ground_wrap_px: None,
    }
}

fn pedal_rect(center: Vec2, w: f64, h: f64) -> Item {
    Item::Rect {
        center,
        w,
        h,
        class: "rb-pedal".into(),
    }
}

/// The css-route leg: thigh group about the drawn hip, shin group nested
/// inside about the drawn knee, ankle probe at the drawn ankle. `src` is the
/// leg whose phase-0 pose is drawn and whose tracks (`thigh_track`,
/// `thigh_track + 1`) are played with `delay_s`.
fn leg_groups(
    src: &LegMotion,
    thigh_track: usize,
    delay_s: f64,
    side_class: &str,
    ankle_probe: &str,
    class: &str,
    width: f64,
) -> Node {
    let pose = src.pose_at(0.0);
    let hip = q_len(src.leg().hip);
    let knee = q_len(pose.joint);
    let ankle = q_len(pose.end);
    let shin = Node {
        class: Some(side_names(side_class, "shin")),
        anim: Some(Anim::Rotate {
            track: thigh_track + 1,
            origin: knee,
            delay_s,
        }),
        children: vec![
            Item::Line {
                from: knee,
                to: ankle,
                class: class.into(),
                width,
            },
            Item::Probe {
                name: ankle_probe.into(),
                at: ankle,
            },
        ],
        ..Node::default()
    };
    Node {
        class: Some(side_names(side_class, "thigh")),
        anim: Some(Anim::Rotate {
            track: thigh_track,
            origin: hip,
            delay_s,
        }),
        children: vec![
            Item::Line {
                from: hip,
                to: knee,
                class: class.into(),
                width,
            },
            Item::Group(shin),
        ],
        ..Node::default()
    }
}

/// Chainring and seat tube: the crank's centre, turning with the crank.
fn bike(rig: &Rig, center: Vec2, radius: f64, crank_track: usize) -> Item {
    let ring_r = quantize(radius * 0.45, LEN_DECIMALS);
    let seat = q_len(rig.legs[0].hip);
    Item::Group(Node {
        class: Some("rb-bike".into()),
        children: vec![
            Item::Line {
                from: seat,
                to: center,
                class: "rb-frame".into(),
                width: quantize((radius * 0.16).max(2.0), 1),
            },
            Item::Group(Node {
                class: Some("rb-chainring".into()),
                anim: Some(Anim::Rotate {
                    track: crank_track,
                    origin: center,
                    delay_s: 0.0,
                }),
                children: vec![Item::Circle {
                    center,
                    r: ring_r,
                    class: "rb-ring".into(),
                }],
                ..Node::default()
            }),
        ],
        ..Node::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::{Affine, AffineExt};

    /// FK of the local tracks through nested groups (thigh about the drawn
    /// hip, shin about the drawn knee) reproduces the IK world pose, also for
    /// a leg that replays another leg's keys with a phase lead.
    #[test]
    fn world_to_local_round_trip_through_nested_groups() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let near = &motion.legs[0];
        let far = &motion.legs[1];
        let drawn = near.pose_at(0.0);
        let hip = near.leg().hip;
        for k in 0..=40 {
            let t = k as f64 / 40.0;
            for (lm, lead) in [(near, 0.0), (far, 0.5)] {
                let (lt, ls) = local_angles_rad(near, (t + lead) % 1.0);
                let thigh = Affine::rotate_around(lt, hip);
                let shin = thigh * Affine::rotate_around(ls, drawn.joint);
                let want = lm.pose_at(t);
                assert!(
                    thigh.apply(drawn.joint).dist(want.joint) < 1e-9,
                    "knee t={t}"
                );
                assert!(shin.apply(drawn.end).dist(want.end) < 1e-9, "ankle t={t}");
            }
        }
    }

    #[test]
    fn reuse_delay_is_the_phase_lead() {
        assert_eq!(reuse_delay_s(std::f64::consts::PI, 1.0, 1.2), -0.6);
        assert_eq!(reuse_delay_s(std::f64::consts::PI / 2.0, 1.0, 2.0), -0.5);
        // counter-clockwise: a lead of +90° is reached by going back 3/4 of a turn
        assert_eq!(reuse_delay_s(std::f64::consts::PI / 2.0, -1.0, 2.0), -1.5);
        assert_eq!(reuse_delay_s(0.0, 1.0, 2.0), 0.0);
    }

    /// The css estimate without shortcuts: every sample's keys evaluated
    /// and its error computed exactly; the max, its first time and blame.
    fn reference(p: &CssLegProblem, times: &[Vec<f64>]) -> Estimate {
        let keys = [p.keys(times, 0), p.keys(times, 1)];
        let (mut max, mut at) = (-1.0, 0);
        let pose0 = p.lm.pose_at(0.0);
        let (hip, knee0, ankle0) = (q_len(p.lm.leg().hip), q_len(pose0.joint), q_len(pose0.end));
        for (i, &t) in p.ts.iter().enumerate() {
            let a1 = fit::eval_keys(&keys[0], t).to_radians();
            let a2 = fit::eval_keys(&keys[1], t).to_radians();
            let e = p.error2(i, p.thigh_share(i, a1), a1, a2);
            // the drawn leg turned by the written angles, against the target
            let ankle = hip + rot(knee0 - hip, a1) + rot(ankle0 - knee0, a1 + a2);
            let want = ankle.dist(p.lm.pose_at(t).end);
            assert!(
                (e.sqrt() - want).abs() < 1e-9,
                "t {t}: {} vs {want}",
                e.sqrt()
            );
            if e > max {
                (max, at) = (e, i);
            }
        }
        let d = |set: usize| {
            (fit::eval_keys(&keys[set], p.ts[at]) - p.ideal[set][at])
                .to_radians()
                .abs()
        };
        let (arm1, arm2) = p.arms[at];
        Estimate {
            max_px: max.sqrt(),
            worst_t: p.ts[at],
            blame: if d(0) * arm1 >= d(1) * arm2 { 0 } else { 1 },
        }
    }

    /// The local angles kept for t = 0 and 1 are those solved there, and a
    /// fitted leg's keys read from the problem's memo are the keys written
    /// from `local_angles_rad` itself, for both segment shapes.
    #[test]
    fn kept_ends_and_memoised_keys_equal_the_solved_ones() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let bits = |a: (f64, f64)| (a.0.to_bits(), a.1.to_bits());
        for lm in &motion.legs {
            for fit in [Fit::Cubic, Fit::Linear] {
                let p = CssLegProblem::new(lm, fit);
                for t in [0.0, 1.0] {
                    assert_eq!(bits(p.local(t)), bits(local_angles_rad(lm, t)), "{t}");
                }
                let times = fit::refine(&p, DEFAULT_TOLERANCE_PX, MAX_FIT_KEYS);
                for set in 0..2 {
                    let f = |t: f64| {
                        let a = local_angles_rad(lm, t);
                        if set == 0 { a.0 } else { a.1 }.to_degrees()
                    };
                    let want = fit::keys_at(&times[set], &f, fit);
                    assert!(want.len() > 2, "{fit:?} {set}: {want:?}");
                    assert_eq!(p.keys(&times, set), want, "{fit:?} {set}");
                }
            }
        }
    }

    /// `uppers` gives every sample the bits `upper` gives it, for runs
    /// starting anywhere, written angles near and far from the ideal ones.
    #[test]
    fn uppers_equal_upper_at_every_sample() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let p = CssLegProblem::new(&motion.legs[0], Fit::Cubic);
        let n = p.ts.len();
        for (k, off) in [0.0, 1e-4, 0.3, -2.0].into_iter().enumerate() {
            let thighs: Vec<f64> = (0..n)
                .map(|i| p.ideal[0][i] + off * (i % 7) as f64)
                .collect();
            let shins: Vec<f64> = (0..n)
                .map(|i| p.ideal[1][i] - off * (i % 5) as f64)
                .collect();
            for start in [0, 1, 31, 500 + k, n - BLOCK, n - 1] {
                let range = start..(start + BLOCK).min(n);
                let mut out = vec![f64::NAN; range.len()];
                p.uppers(&thighs, &shins, range.clone(), &mut out);
                for (i, &got) in range.zip(&out) {
                    let (a1, a2) = (thighs[i].to_radians(), shins[i].to_radians());
                    let want = p.upper(&p.turned[i], a1, a2);
                    assert_eq!(got.to_bits(), want.to_bits(), "{off} at {i}");
                }
            }
        }
    }

    /// The starting keys (extrema of each set's local angle, solved once
    /// per time for both sets) are those of `local_angles_rad` itself.
    #[test]
    fn initial_keys_are_the_extrema_of_the_local_angles() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        for lm in &motion.legs {
            let p = CssLegProblem::new(lm, Fit::Cubic);
            for set in [0, 1, 0] {
                let f = |t: f64| {
                    let a = local_angles_rad(lm, t);
                    if set == 0 { a.0 } else { a.1 }
                };
                let mut want = vec![0.0];
                want.extend(fit::extrema(&f));
                want.push(1.0);
                assert!(want.len() > 2, "set {set}: {want:?}");
                assert_eq!(p.initial(set), want, "set {set}");
            }
        }
    }

    /// The fitters' incremental estimate (only the samples a trial's changed
    /// keys reach, upper bounds where they cannot matter) equals a full
    /// evaluation by a fresh problem and, on the css route, an evaluation
    /// of every sample without shortcuts, over a long random walk of
    /// insertions, removals and shifts in either set, on both routes, also
    /// after bounded estimates that stopped part way; for a forward and a
    /// backward knee.
    #[test]
    fn incremental_estimates_equal_full_ones() {
        let backward = crate::rig::tests_support::SEED.replace("\"forward\"", "\"backward\"");
        assert_ne!(backward, crate::rig::tests_support::SEED);
        for text in [crate::rig::tests_support::SEED, &backward] {
            incremental_walk(&crate::rig::load(text).unwrap());
        }
    }

    fn incremental_walk(rig: &Rig) {
        let motion = crate::motion::sample(rig);
        let lm = &motion.legs[0];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let css = CssLegProblem::new(lm, Fit::Cubic);
        let smil = SmilLegProblem::new(lm);
        let mut times = vec![fit::uniform_times(4), fit::uniform_times(6)];
        for step in 0..300 {
            let set = (rnd() * 2.0) as usize;
            let v = &mut times[set];
            match (rnd() * 3.0) as usize {
                0 => {
                    fit::insert_sorted(v, rnd());
                }
                1 if v.len() > 3 => {
                    v.remove(1 + (rnd() * (v.len() - 2) as f64) as usize);
                }
                _ => {
                    let i = 1 + (rnd() * (v.len() - 2) as f64) as usize;
                    let t = quantize(v[i] + (rnd() - 0.5) * 0.02, crate::geom::T_DECIMALS);
                    if t - v[i - 1] >= fit::MIN_GAP && v[i + 1] - t >= fit::MIN_GAP {
                        v[i] = t;
                    }
                }
            }
            let want = CssLegProblem::new(lm, Fit::Cubic).estimate(&times);
            let full = reference(&css, &times);
            assert_eq!(want, full, "css step {step}: {times:?}");
            if step % 2 == 0 {
                // a bounded estimate, cut short or not, then the full one
                let bound = want.max_px * (0.5 + rnd());
                let within = css.estimate_within(&times, bound);
                assert_eq!(within.is_some(), want.max_px <= bound, "step {step}");
                if let Some(e) = within {
                    assert_eq!(e, want, "css step {step}: {times:?}");
                }
            }
            css.check_stale();
            let got = css.estimate(&times);
            assert_eq!(got, want, "css step {step}: {times:?}");
            css.check_stale();
            // the same keys again: nothing re-evaluated, the bound still holds
            assert_eq!(css.estimate_within(&times, want.max_px), Some(want));
            assert_eq!(css.estimate_within(&times, want.max_px * 0.9), None);
            let one = [times[set].clone()];
            let got = smil.estimate(&one);
            let want = SmilLegProblem::new(lm).estimate(&one);
            assert_eq!(got, want, "smil step {step}: {one:?}");
        }
    }
}
