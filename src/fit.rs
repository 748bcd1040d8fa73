//! Key placement: uniform keys, or the fewest keys found that keep the ankle
//! within a tolerance, with linear or exact-cubic segments.
//!
//! **Cubic segments.** A key may carry `cubic-bezier(1/3, y1, 2/3, y2)` for
//! the segment after it. With x1 = 1/3 and x2 = 2/3 the curve's x(s) = s, so
//! the value follows an exact cubic in time: the Hermite cubic through the
//! key values v0, v1 with end slopes m0, m1 (value per normalised time) has
//! `y1 = m0·Δt / (3·Δv)` and `y2 = 1 − m1·Δt / (3·Δv)`. Slopes come from the
//! ideal curve (central differences of the unwrapped solver curve), never from
//! the keys. A segment whose rounded Δv is 0, or whose y's would exceed
//! [`MAX_ABS_Y`], is written linear; the refinement then splits it if that
//! costs accuracy. Cubic Hermite error falls as 1/keys⁴, linear as 1/keys².
//! A two-bone pair's segments ([`pair`]) are not bound to the curve's
//! slopes (a key's timing function is its own segment's): each takes the
//! y1, y2 that fit the ideal angles over the whole segment best (least
//! squares), the Hermite ones only where those are not written.
//!
//! **Tolerance.** [`refine`] is greedy: start from keys at 0, 1 and each
//! track's extrema; repeatedly find the worst time, blame the track whose
//! error moves the ankle most there and add a key where that track's error
//! peaks in the offending segment (where no key fits, keys being
//! [`MIN_GAP`] apart there, the samples around that peak keep its error
//! and the search goes on: [`Stuck`]); then drop every key whose removal
//! keeps the error within tolerance, and try shifting the remaining keys
//! to make room for more removals. It finds few keys, not provably the
//! fewest. Its
//! error estimate is its own dense evaluation; the measure stage re-checks the
//! written file independently (see [`crate::bake_rig`]).

pub mod morph;
pub mod pair;

pub use crate::clip::Fit;
use crate::clip::{Ease, Key, Route};
use crate::geom::{BEZIER_DECIMALS, DEG_DECIMALS, Rem1, T_DECIMALS, quantize};

/// Largest |y| written into a cubic-bezier; beyond it the segment is linear.
pub const MAX_ABS_Y: f64 = 1.0e4;
/// Uniform samples per period of the fitter's own error estimate.
pub const FIT_SAMPLES: usize = 1024;
/// Above this many keys (all sets together) the shift-then-prune pass is skipped.
pub const SHIFT_MAX_KEYS: usize = 48;
/// Smallest gap between two key times (normalised).
pub const MIN_GAP: f64 = 1.0e-3;

/// How keys are placed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Keying {
    /// `n` uniform keys per period (`t_k = k / n`).
    Uniform(usize),
    /// Adaptive placement on a key budget, at most this many distinct keys
    /// per track (no tolerance; [`placed_keys`]): the sweep's adaptive
    /// columns.
    Budget(usize),
    /// The fewest keys the greedy fitter finds that keep every ankle within
    /// this many px (the fitter's own estimate; [`crate::bake_rig`] re-checks
    /// with the measure stage).
    Tolerance(f64),
    /// The default when neither keys nor a tolerance is asked for: fitted as
    /// [`Keying::Tolerance`] to [`DEFAULT_TOLERANCE_PX`], but not a promise:
    /// a rig that cannot meet it (a leg clamped out of reach) is written with
    /// the best found, and its report carries no tolerance.
    Goal(f64),
}

impl Keying {
    /// The tolerance the fitter works to, asked for or the default goal.
    pub fn fit_tolerance(self) -> Option<f64> {
        match self {
            Keying::Tolerance(px) | Keying::Goal(px) => Some(px),
            Keying::Uniform(_) | Keying::Budget(_) => None,
        }
    }

    /// The decimal places a bake with this keying rounds its moving
    /// coordinates to: [`crate::geom::FINE_LEN_DECIMALS`] for a tolerance
    /// under [`crate::valid::TIGHT_TOLERANCE_PX`], else
    /// [`crate::geom::LEN_DECIMALS`].
    pub fn len_decimals(self) -> u32 {
        use crate::geom::{FINE_LEN_DECIMALS, LEN_DECIMALS};
        match self.fit_tolerance() {
            Some(px) if px < crate::valid::TIGHT_TOLERANCE_PX => FINE_LEN_DECIMALS,
            _ => LEN_DECIMALS,
        }
    }

    /// The same keying with the fitter working to `px` instead.
    pub fn with_fit_tolerance(self, px: f64) -> Self {
        match self {
            Keying::Tolerance(_) => Keying::Tolerance(px),
            Keying::Goal(_) => Keying::Goal(px),
            k => k,
        }
    }
}

/// The ankle tolerance a bake fits its keys to when the rig and the command
/// line ask for neither keys nor a tolerance, px.
pub const DEFAULT_TOLERANCE_PX: f64 = 0.25;

/// The share of a goal a bone tree's first bake to it is fitted to (a
/// child bone's error adds to its parent's; [`crate::bake_rig`] tightens
/// from there).
pub const TREE_FIRST_BUDGET: f64 = 0.8;
/// The share of a goal a limb written as a morph is first fitted to (its
/// effector's error is its own fit's: only the rounding is left; the share
/// cycling legs were fitted to before they baked as bone trees).
pub const LEG_FIRST_BUDGET: f64 = 0.98;

/// How to bake.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BakeOptions {
    pub route: Route,
    pub keying: Keying,
    /// Segment shape. The smil route always morphs linearly (see [`Fit`] and
    /// the report's note): a keySpline only retimes motion along the chord.
    pub fit: Fit,
    /// On the css route, each fitted channel of a bone tree takes linear keys
    /// instead of cubic ones where they write fewer bytes within the same
    /// budget (as the stops of a `linear()` easing, see [`css_len`]); `fit`
    /// is then cubic. More keys to fit and to measure: a slower bake for a
    /// smaller file (the css default of a fitted bake, and `bake --fit
    /// shortest`; `--fit cubic` keys every channel cubic).
    pub shortest_shape: bool,
}

impl BakeOptions {
    /// The fit actually used on this route.
    pub fn effective_fit(&self) -> Fit {
        match self.route {
            Route::Css => self.fit,
            Route::Smil => Fit::Linear,
        }
    }
}

/// Most keys per track the tolerance fitter may place.
pub const MAX_FIT_KEYS: usize = 400;

/// A curve on [0, 1] extended periodically to [−1, 2]:
/// `f(t + 1) = f(t) + (f(1) − f(0))`, so whole turns carry over.
fn periodic<'a>(f: &'a dyn Fn(f64) -> f64) -> impl Fn(f64) -> f64 + 'a {
    let wind = f(1.0) - f(0.0);
    move |x: f64| {
        if x < 0.0 {
            f(x + 1.0) - wind
        } else if x > 1.0 {
            f(x - 1.0) + wind
        } else {
            f(x)
        }
    }
}

/// Slope of a curve on [0, 1] by a central difference, extended periodically
/// (`f(t + 1) = f(t) + (f(1) − f(0))`, so whole turns carry over).
pub fn slope(f: &dyn Fn(f64) -> f64, t: f64) -> f64 {
    const H: f64 = 1.0e-5;
    let ext = periodic(f);
    (ext(t + H) - ext(t - H)) / (2.0 * H)
}

/// Keys at the given normalised times (first 0, last 1) for a value curve in
/// degrees, rounded as written. `f` is the exact curve; cubic slopes come from it.
pub fn keys_at(times: &[f64], f: &dyn Fn(f64) -> f64, fit: Fit) -> Vec<Key> {
    let samples: Vec<(f64, f64)> = times
        .iter()
        .map(|&t| {
            let m = if fit == Fit::Cubic { slope(f, t) } else { 0.0 };
            (f(t), m)
        })
        .collect();
    keys_from(times, &samples, fit)
}

/// [`keys_at`] from precomputed exact `(value, slope)` pairs at `times`.
pub fn keys_from(times: &[f64], samples: &[(f64, f64)], fit: Fit) -> Vec<Key> {
    let sided: Vec<(f64, f64, f64)> = samples.iter().map(|&(v, m)| (v, m, m)).collect();
    keys_from_sided(times, &sided, fit, DEG_DECIMALS)
}

/// Keys from exact `(value, slope in, slope out)` triples at `times`, values
/// rounded to `decimals`: a key at a corner of the curve (a kink, where the
/// slopes from the left and from the right differ) gives the segment before
/// it the left slope and the segment after it the right one (an infinite
/// one, at a cusp, as steep as the segment allows: `finite_slope`).
pub fn keys_from_sided(
    times: &[f64],
    samples: &[(f64, f64, f64)],
    fit: Fit,
    decimals: u32,
) -> Vec<Key> {
    let values: Vec<f64> = samples
        .iter()
        .map(|&(v, _, _)| quantize(v, decimals))
        .collect();
    (0..times.len())
        .map(|i| {
            let ease = if fit == Fit::Cubic && i + 1 < times.len() {
                let (dt, dv) = (times[i + 1] - times[i], values[i + 1] - values[i]);
                let m0 = finite_slope(samples[i].2, dt, dv);
                let m1 = finite_slope(samples[i + 1].1, dt, dv);
                cubic_ease(dt, dv, m0, m1)
            } else {
                Ease::Linear
            };
            Key {
                t: times[i],
                value: values[i],
                ease,
            }
        })
        .collect()
}

/// A key's slope `m` for the segment of `dt` and `dv` beside it: as it is,
/// unless it is infinite ([`sided_slopes`] at a cusp), then three times the
/// segment's mean slope, the steepest that keeps the segment within its
/// keys' values (the Fritsch–Carlson bound: a Bézier's y1 of 1, or y2 of 0).
fn finite_slope(m: f64, dt: f64, dv: f64) -> f64 {
    if m.is_infinite() { 3.0 * dv / dt } else { m }
}

/// The `cubic-bezier(1/3, y1, 2/3, y2)` of a Hermite segment, rounded as written.
fn cubic_ease(dt: f64, dv: f64, m0: f64, m1: f64) -> Ease {
    if dv == 0.0 {
        return Ease::Linear;
    }
    let y1 = m0 * dt / (3.0 * dv);
    let y2 = 1.0 - m1 * dt / (3.0 * dv);
    if !(y1.abs() <= MAX_ABS_Y && y2.abs() <= MAX_ABS_Y) {
        return Ease::Linear;
    }
    Ease::CubicBezier([
        quantize(1.0 / 3.0, BEZIER_DECIMALS),
        quantize(y1, BEZIER_DECIMALS),
        quantize(2.0 / 3.0, BEZIER_DECIMALS),
        quantize(y2, BEZIER_DECIMALS),
    ])
}

/// A sampled curve to be written as keys by [`fewest_uniform`] or
/// [`uniform_keys`].
pub struct Curve<'a> {
    /// The exact curve on [0, 1] (periodic, up to whole turns).
    pub f: &'a dyn Fn(f64) -> f64,
    /// Times that must be keys: extrema (so segments are monotone) and corners.
    pub fixed: &'a [f64],
    /// Of those, the corners: slopes there are taken one-sided.
    pub corners: &'a [f64],
    /// Uniform key counts tried are multiples of `step`, from `2·step`.
    pub step: usize,
    /// Largest |keys − f| allowed on a dense grid, in the curve's units.
    pub budget: f64,
    /// Most keys (the search stops there and returns the last try).
    pub max_keys: usize,
    /// Clamp keySplines' y into [0, 1] (the smil route's rule).
    pub clamp_y: bool,
    /// Decimals the values are written with (degrees 3, lengths 2).
    pub decimals: u32,
    /// Segment shape: exact cubic (Hermite slopes from `f`) or linear.
    pub fit: Fit,
}

/// Keys of `c` at the given sorted times (first 0, last 1): exact values
/// and slopes from `c.f` (one-sided at `c.corners`), `c.fit` segments,
/// keySplines clamped when `c.clamp_y`.
fn curve_keys(c: &Curve, times: &[f64], corners: &[f64]) -> Vec<Key> {
    let samples: Vec<(f64, f64, f64)> = times.iter().map(|&t| key_sample(c, t, corners)).collect();
    keys_of_samples(c, times, &samples)
}

/// What [`curve_keys`] reads of `c.f` for a key at t: the value and the
/// slopes from the left and the right (one-sided at `corners`, zero for
/// linear segments).
fn key_sample(c: &Curve, t: f64, corners: &[f64]) -> (f64, f64, f64) {
    let v = (c.f)(t);
    if c.fit == Fit::Linear {
        return (v, 0.0, 0.0);
    }
    let at_corner = corners
        .iter()
        .any(|&k| (k - t).abs() < 1e-9 || (k == 0.0 && t == 1.0));
    if at_corner {
        let (a, b) = sided_slopes(c.f, t);
        (v, a, b)
    } else {
        let m = slope(c.f, t);
        (v, m, m)
    }
}

/// [`curve_keys`] from the [`key_sample`]s of its times.
fn keys_of_samples(c: &Curve, times: &[f64], samples: &[(f64, f64, f64)]) -> Vec<Key> {
    let mut keys = keys_from_sided(times, samples, c.fit, c.decimals);
    if c.clamp_y {
        clamp_splines(&mut keys);
    }
    keys
}

/// Clamps every keySpline's y into [0, 1] (the smil route's rule).
pub fn clamp_splines(keys: &mut [Key]) {
    for k in keys {
        if let Ease::CubicBezier(b) = &mut k.ease {
            b[1] = b[1].clamp(0.0, 1.0);
            b[3] = b[3].clamp(0.0, 1.0);
        }
    }
}

/// `c`'s times normalised as written (mod 1, [`T_DECIMALS`]).
fn written_times(ts: &[f64]) -> Vec<f64> {
    ts.iter().map(|&e| quantize(e.rem1(), T_DECIMALS)).collect()
}

/// `n` uniform keys (`t_k = k / n`) plus the `fixed` times; uniform
/// times within [`MIN_GAP`] of a fixed time give way to it.
pub(crate) fn uniform_with_fixed(n: usize, fixed: &[f64]) -> Vec<f64> {
    let mut times: Vec<f64> = uniform_times(n)
        .into_iter()
        .filter(|&t| t == 0.0 || t == 1.0 || fixed.iter().all(|e| (t - e).abs() > MIN_GAP))
        .collect();
    times.extend(fixed.iter().filter(|&&e| e > MIN_GAP && e < 1.0 - MIN_GAP));
    times.sort_by(f64::total_cmp);
    times.dedup();
    times
}

/// Keys a fit found, and whether they keep its budget at every time it
/// checks: a fit that cannot (beside a kink no corner names, past what its
/// key times can follow, or a search given up as too long) returns its
/// best anyway, and a caller choosing between fits prefers the ones kept.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub keys: Vec<Key>,
    pub kept: bool,
}

/// How far one miss must fall below another to count as less: under this
/// share of it ([`misses_less`]).
pub const MISS_GAIN: f64 = 0.95;

/// The least difference, as a share of the budget, between two errors
/// that both miss it for one to be clearly less ([`clearly_less`]).
pub const MISS_FLOOR: f64 = 0.05;

/// How far error `e` misses `budget`: nothing within it, the most for a
/// NaN.
fn miss(e: f64, budget: f64) -> f64 {
    if e.is_nan() {
        f64::INFINITY
    } else {
        (e - budget).max(0.0)
    }
}

/// Whether error `a` misses `budget` by less than error `b` does, by
/// under [`MISS_GAIN`] of b's miss: the tolerance loop's progress (near
/// its goal, a small step closes much of a small miss).
pub fn misses_less(a: f64, b: f64, budget: f64) -> bool {
    miss(a, budget) < miss(b, budget) * MISS_GAIN
}

/// Whether error `a` is clearly less than error `b` against `budget`: it
/// misses less ([`misses_less`]) and by over [`MISS_FLOOR`] of the budget.
/// A smaller miss by less (an error no key closes, met by a tighter budget
/// or another shape only by a hair) buys nothing worth its keys: every
/// choice between sets, plans or bakes that miss their budget judges them
/// by this ([`least_miss`], the bake kept by the tolerance loop).
pub fn clearly_less(a: f64, b: f64, budget: f64) -> bool {
    misses_less(a, b, budget) && miss(b, budget) - miss(a, budget) > MISS_FLOOR * budget
}

/// Of candidates that all miss `budget`, given as (worst error, bytes),
/// the index of the one to take: the fewest bytes among those the least
/// error is not clearly less than ([`clearly_less`]), the first of
/// equals. `None` when there are none. A NaN error counts as the worst.
pub fn least_miss(found: &[(f64, usize)], budget: f64) -> Option<usize> {
    let err = |e: f64| if e.is_nan() { f64::INFINITY } else { e };
    let least = found.iter().map(|&(e, _)| err(e)).min_by(f64::total_cmp)?;
    (0..found.len())
        .filter(|&i| !clearly_less(least, err(found[i].0), budget))
        .min_by_key(|&i| found[i].1)
}

/// [`least_miss`] for candidates whose errors each cost a measure: given
/// per candidate (a lower bound of its error, bytes) and `measure`, which
/// gives a candidate's error, the index [`least_miss`] takes from all the
/// errors, with that error, measuring only the candidates it must.
///
/// The candidates are judged in [`least_miss`]'s order (fewest bytes, the
/// first of equals). The least error lies between the least of the
/// measured errors and bounds of the rest (below) and the least measured
/// error (above); since [`clearly_less`] only grows as its first error
/// falls or its second rises, a candidate the lower of those is not
/// clearly less than is taken, and one the upper is clearly less than
/// (by its bound, before it is measured) is passed over. Where neither
/// decides, the unmeasured candidate of the least bound is measured,
/// which narrows the two. `None` when there are no candidates.
pub fn least_miss_by(
    bounds: &[(f64, usize)],
    budget: f64,
    mut measure: impl FnMut(usize) -> f64,
) -> Option<(usize, f64)> {
    let err = |e: f64| if e.is_nan() { f64::INFINITY } else { e };
    let n = bounds.len();
    let mut exact: Vec<Option<f64>> = vec![None; n];
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&i| (bounds[i].1, i));
    // (the least error lies in [lower, upper]; upper is infinite until a
    // candidate is measured)
    let least_bounds = |exact: &[Option<f64>]| {
        (0..n).fold((f64::INFINITY, f64::INFINITY), |(lo, up), i| {
            match exact[i] {
                Some(e) => (lo.min(err(e)), up.min(err(e))),
                None => (lo.min(err(bounds[i].0)), up),
            }
        })
    };
    for &c in &order {
        loop {
            let (lower, upper) = least_bounds(&exact);
            let Some(e) = exact[c] else {
                if clearly_less(upper, err(bounds[c].0), budget) {
                    break;
                }
                exact[c] = Some(measure(c));
                continue;
            };
            if !clearly_less(lower, err(e), budget) {
                return Some((c, e));
            }
            if clearly_less(upper, err(e), budget) {
                break;
            }
            // (undecided: some unmeasured bound is below the measured
            // errors, so there is one to measure)
            let j = (0..n)
                .filter(|&i| exact[i].is_none())
                .min_by(|&a, &b| err(bounds[a].0).total_cmp(&err(bounds[b].0)))
                .expect("an unmeasured candidate below the measured errors");
            exact[j] = Some(measure(j));
        }
    }
    None
}

/// The fewest uniform keys (a multiple of `c.step`), plus the `c.fixed`
/// times, whose error against `c.f` on a grid 32 times finer than the keys
/// stays within `c.budget`, with `c.fit` segments. Uniform times within
/// [`MIN_GAP`] of a fixed time give way to it. Segments between extrema
/// are monotone, so clamping keySplines to [0, 1] only trims rounding dust;
/// the error is checked after the clamp.
pub fn fewest_uniform(c: &Curve) -> Vec<Key> {
    fewest_uniform_until(c, |_| false).keys
}

/// [`fewest_uniform`], giving up at the first key set (within its budget
/// or not) that `enough` says is long enough: a caller that keeps the
/// shorter of these keys and others it holds gives up where no larger set
/// could be the shorter (beside a cusp no uniform count meets the budget,
/// and the search tried every count up to half of `c.max_keys`).
pub fn fewest_uniform_until(c: &Curve, enough: impl Fn(&[Key]) -> bool) -> Found {
    uniform_search(c, enough, |keys, n| {
        let dense = 32 * n;
        let mut seg = 0;
        // (the first time over the budget settles it; a NaN is passed
        // over, as a running `f64::max` would)
        (0..=dense).all(|k| {
            let t = k as f64 / dense as f64;
            let e = (eval_keys_from(keys, t, &mut seg) - (c.f)(t)).abs();
            e <= c.budget || e.is_nan()
        })
    })
}

/// The search of both uniform fits: `n` uniform keys (plus `c.fixed`)
/// from `2 · c.step` up by `c.step`, the first set that `enough` takes
/// (given up: not kept, unchecked) or that is `within(keys, n)` its budget
/// (kept), else the last tried below half of `c.max_keys` (not kept).
fn uniform_search(
    c: &Curve,
    enough: impl Fn(&[Key]) -> bool,
    mut within: impl FnMut(&[Key], usize) -> bool,
) -> Found {
    let fixed = written_times(c.fixed);
    let corners = written_times(c.corners);
    let mut n = c.step * 2;
    loop {
        let times = uniform_with_fixed(n, &fixed);
        let keys = curve_keys(c, &times, &corners);
        if enough(&keys) {
            return Found { keys, kept: false };
        }
        if within(&keys, n) {
            return Found { keys, kept: true };
        }
        if n + c.step > c.max_keys / 2 {
            return Found { keys, kept: false };
        }
        n += c.step;
    }
}

/// [`fewest_uniform`] checked on the check times of [`fewest_placed`]
/// (multiples of `1 / (PLACE_GRID · PLACE_CHECKS)`, 4,000 per period),
/// reading `c.f` there through `values`: the fits of one curve to several
/// shapes share those values, so each key count tried costs its own key
/// times only (where [`fewest_uniform`] reads 32 new times per key). For
/// linear keys, whose many counts tried would otherwise read the curve
/// tens of thousands of times. The checks are as dense as
/// [`fewest_uniform`]'s up to 125 keys and sparser above (8 per segment
/// at 500 keys); the measure stage judges the written file either way.
pub fn fewest_uniform_on(c: &Curve, values: &CheckGrid) -> Vec<Key> {
    fewest_uniform_on_until(c, values, |_| false).keys
}

/// [`fewest_uniform_on`], giving up as [`fewest_uniform_until`] does.
pub fn fewest_uniform_on_until(
    c: &Curve,
    values: &CheckGrid,
    enough: impl Fn(&[Key]) -> bool,
) -> Found {
    uniform_search(c, enough, |keys, _| within_on(c, keys, values))
}

/// Whether `keys` keep `|keys − f|` within `c.budget` at every check time
/// of [`fewest_placed`] (multiples of `1 / (PLACE_GRID · PLACE_CHECKS)`),
/// reading `c.f` there through `values`. Every [`SPAN_STRIDE`]-th check
/// first: keys that miss are usually found out after a few of them (a NaN
/// is passed over, as in [`fewest_uniform`]).
fn within_on(c: &Curve, keys: &[Key], values: &CheckGrid) -> bool {
    let checks = PLACE_GRID * PLACE_CHECKS;
    let mut grid = values.ready();
    let mut within = |k: usize, seg: &mut usize| {
        let e = check_error(c, keys, &mut grid, k, seg);
        e <= c.budget || e.is_nan()
    };
    let (mut first, mut rest) = (0, 0);
    (0..=checks)
        .step_by(SPAN_STRIDE)
        .all(|k| within(k, &mut first))
        && (0..=checks)
            .filter(|k| k % SPAN_STRIDE != 0)
            .all(|k| within(k, &mut rest))
}

/// The largest `|keys − f|` at the check times of [`fewest_placed`],
/// reading `c.f` there through `values` (NaN passed over, as in
/// `within_on`): how far a set that keeps no budget misses.
pub fn max_error_on(c: &Curve, keys: &[Key], values: &CheckGrid) -> f64 {
    let mut grid = values.ready();
    let mut seg = 0;
    (0..=PLACE_GRID * PLACE_CHECKS)
        .map(|k| check_error(c, keys, &mut grid, k, &mut seg))
        .filter(|e| !e.is_nan())
        .fold(0.0, f64::max)
}

/// `|keys − f|` at check time `k` of [`fewest_placed`], `f` read through
/// the check grid's values (`seg`: [`eval_keys_from`]'s segment, for times
/// read in increasing order).
fn check_error(
    c: &Curve,
    keys: &[Key],
    grid: &mut [Option<f64>],
    k: usize,
    seg: &mut usize,
) -> f64 {
    let t = k as f64 / (PLACE_GRID * PLACE_CHECKS) as f64;
    let v = *grid[k].get_or_insert_with(|| (c.f)(t));
    (eval_keys_from(keys, t, seg) - v).abs()
}

/// Where in its cone of slopes [`fewest_banded_on`] may end a segment
/// (0 the lowest slope, 1 the highest): the one whose next segment reaches
/// farthest is taken, the first of equals.
pub const LOOKAHEAD: [f64; 5] = [0.5, 0.3, 0.7, 0.1, 0.9];

/// The fewest linear keys found whose values are free within the budget
/// (keys off the curve): from each key the next goes on the farthest time
/// of the [`PLACE_GRID`] that one straight segment from it can reach while
/// every check time of [`fewest_placed`] on the way stays within
/// `c.budget` of `f`. (The straight segments that stay within a band about
/// `f` from a fixed start form a cone of slopes, narrowed at each check
/// time; the span ends where the cone closes.) Its value is one of
/// [`LOOKAHEAD`] across the cone: the one from which the next segment
/// reaches farthest. A chord of a curve that bends one way misses it on one
/// side only; a segment free at its end may miss on both sides, so the same
/// budget takes about 1/√2 as many keys. The first and last keys and those
/// on `c.corners` stay on the curve (the span before one ends on it as
/// soon as a segment straight to it fits); where even one grid step
/// misses (a kink the corners do not name), that step is taken with its
/// key on the curve. The keys' values are written with `c.decimals`
/// (half a unit of the last taken from the budget first), and the keys are
/// checked as written, at every check time: `None` if they miss anyway.
/// Reads `c.f` through `values`, as the other fits of the curve do.
pub fn fewest_banded_on(c: &Curve, values: &CheckGrid) -> Option<Vec<Key>> {
    debug_assert_eq!(c.fit, Fit::Linear, "banded keys are linear");
    let checks = PLACE_GRID * PLACE_CHECKS;
    let band = c.budget - 0.5 * 10f64.powi(-(c.decimals as i32));
    // (NaN too)
    if band.is_nan() || band <= 0.0 {
        return None;
    }
    drop(values.ready());
    let at =
        |k: usize| *values.0.borrow_mut()[k].get_or_insert_with(|| (c.f)(k as f64 / checks as f64));
    let on_curve = |t: f64| quantize((c.f)(t), c.decimals);
    let mut stops: Vec<f64> = vec![0.0, 1.0];
    stops.extend(
        written_times(c.corners)
            .into_iter()
            .filter(|&t| t > MIN_GAP && t < 1.0 - MIN_GAP),
    );
    stops.sort_by(f64::total_cmp);
    stops.dedup();
    // the check times strictly between two times
    // (a key time read a millionth of a check step off the grid is on it)
    let between = |a: f64, b: f64| {
        let n = checks as f64;
        (a * n + 1e-6).floor() as usize + 1..(b * n - 1e-6).ceil() as usize
    };
    let mut keys: Vec<(f64, f64)> = vec![(0.0, on_curve(0.0))];
    for w in stops.windows(2) {
        // the farthest key time on the grid before `to` that a straight
        // segment from (a, va) reaches within the band, and the cone of
        // its slopes there
        let cone = |a: f64, va: f64| {
            let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
            let mut reach: Option<(usize, f64, f64)> = None;
            for k in between(a, w[1]) {
                let dt = k as f64 / checks as f64 - a;
                let v = at(k);
                lo = lo.max((v - band - va) / dt);
                hi = hi.min((v + band - va) / dt);
                if lo > hi {
                    break;
                }
                if k % PLACE_CHECKS == 0 {
                    reach = Some((k, lo, hi));
                }
            }
            reach
        };
        let (from, to) = (w[0], w[1]);
        let v_to = on_curve(to);
        debug_assert!(keys.last().is_some_and(|k| k.0 == from));
        loop {
            let (a, va) = *keys.last().expect("a first key");
            let slope = (v_to - va) / (to - a);
            if between(a, to).all(|k| {
                let t = k as f64 / checks as f64;
                (va + slope * (t - a) - at(k)).abs() <= band
            }) {
                keys.push((to, v_to));
                break;
            }
            let next = match cone(a, va) {
                Some((k, lo, hi)) => {
                    let t = quantize(k as f64 / checks as f64, T_DECIMALS);
                    // the value whose own span reaches farthest, of a few
                    // across the cone (the middle first among equals)
                    let value = |q: f64| quantize(va + (lo + q * (hi - lo)) * (t - a), c.decimals);
                    let onward = |q: f64| cone(t, value(q)).map_or(0, |r| r.0);
                    let q = LOOKAHEAD
                        .iter()
                        .map(|&q| (q, onward(q)))
                        .fold((0.5, 0), |best, o| if o.1 > best.1 { o } else { best })
                        .0;
                    (t, value(q))
                }
                None => {
                    // (a kink: the next grid step, on the curve)
                    let k = ((a * PLACE_GRID as f64 + 1e-6).floor() as usize + 1) * PLACE_CHECKS;
                    let t = quantize(k as f64 / checks as f64, T_DECIMALS);
                    if t >= to {
                        keys.push((to, v_to));
                        break;
                    }
                    (t, on_curve(t))
                }
            };
            keys.push(next);
        }
    }
    let keys: Vec<Key> = keys
        .into_iter()
        .map(|(t, value)| Key {
            t,
            value,
            ease: Ease::Linear,
        })
        .collect();
    within_on(c, &keys, values).then_some(keys)
}

/// Key times [`fewest_placed`] may choose: multiples of `1 / PLACE_GRID`
/// of the period (written as percentages with at most one decimal).
pub const PLACE_GRID: usize = 1000;
/// Error checks of [`fewest_placed`] per key-time step (on a grid shared by
/// every span, so a memoised curve is evaluated once per check time).
const PLACE_CHECKS: usize = 4;

/// The fewest keys found by cutting the period into spans: from each key
/// the next goes on the farthest time of the [`PLACE_GRID`] (or the next
/// of `c.fixed`, which are always keys) whose segment keeps `|keys − f|`
/// within `c.budget` on a grid `PLACE_CHECKS` times finer, found by
/// doubling the span, then bisecting. A segment depends only on its two
/// end keys (values and slopes from `c.f`, as `curve_keys` writes them),
/// so the check of each span is the check of the written keys there; where
/// even one grid step misses the budget (a kink the corners do not name),
/// that step is taken anyway. Greedy farthest reach: few keys, not provably
/// the fewest when the error does not grow with the span.
pub fn fewest_placed(c: &Curve) -> Vec<Key> {
    fewest_placed_on(c, &CheckGrid::default()).keys
}

/// Values of one curve's `f` at the check times of [`fewest_placed`]
/// (multiples of `1 / (PLACE_GRID · PLACE_CHECKS)`), each taken once asked:
/// what the fits of one curve to several budgets or shapes may share
/// ([`fewest_placed_on`]).
#[derive(Default)]
pub struct CheckGrid(std::cell::RefCell<Vec<Option<f64>>>);

impl CheckGrid {
    /// The values, one slot per check time (made on first use).
    fn ready(&self) -> std::cell::RefMut<'_, Vec<Option<f64>>> {
        let mut grid = self.0.borrow_mut();
        if grid.is_empty() {
            grid.resize(PLACE_GRID * PLACE_CHECKS + 1, None);
        }
        grid
    }
}

/// [`fewest_placed`], reading `c.f` at its check times through `grid`,
/// which must hold values of this `c.f` only (any budget, shape or
/// corners): the same keys, each check time's value taken once for every
/// fit that shares the grid; kept unless a grid step that missed the
/// budget was taken anyway.
pub fn fewest_placed_on(c: &Curve, values: &CheckGrid) -> Found {
    let fixed = written_times(c.fixed);
    let corners = written_times(c.corners);
    let mut stops: Vec<f64> = vec![0.0, 1.0];
    stops.extend(fixed.iter().filter(|&&t| t > MIN_GAP && t < 1.0 - MIN_GAP));
    stops.sort_by(f64::total_cmp);
    stops.dedup();
    let grid = PLACE_GRID as f64;
    let spans = SpanCheck::new(c, &corners, values);
    let fits = |a: f64, b: f64| spans.fits(a, b);
    let mut times = vec![0.0];
    let mut kept = true;
    for w in stops.windows(2) {
        let (from, to) = (w[0], w[1]);
        let mut a = from;
        while a < to {
            // the grid steps after `a`, up to `to`
            let first = (a * grid).floor() as i64 + 1;
            let last = (to * grid).ceil() as i64;
            let at = |k: i64| {
                if k >= last {
                    to
                } else {
                    quantize(k as f64 / grid, T_DECIMALS)
                }
            };
            let b = if fits(a, to) {
                to
            } else {
                // largest k with fits(a, at(k)); at(first) is taken anyway
                kept &= fits(a, at(first));
                let (mut good, mut step) = (first, 1);
                while good + step < last && fits(a, at(good + step)) {
                    good += step;
                    step *= 2;
                }
                let mut bad = (good + step).min(last);
                while bad - good > 1 {
                    let mid = (good + bad) / 2;
                    if fits(a, at(mid)) {
                        good = mid;
                    } else {
                        bad = mid;
                    }
                }
                at(good)
            };
            times.push(b);
            a = b;
        }
    }
    Found {
        keys: curve_keys(c, &times, &corners),
        kept,
    }
}

/// Whether one segment of `c` from a key at `a` to a key at `b` keeps
/// `|keys − f|` within `c.budget` at the check times of [`fewest_placed`]
/// strictly between them (multiples of `1 / (PLACE_GRID · PLACE_CHECKS)`):
/// the straightforward check, every value taken from `c.f` (what
/// [`SpanCheck`] is tested against).
#[cfg(test)]
fn span_fits(c: &Curve, corners: &[f64], a: f64, b: f64) -> bool {
    let checks = (PLACE_GRID * PLACE_CHECKS) as f64;
    let keys = curve_keys(c, &[a, b], corners);
    let (lo, hi) = ((a * checks).floor() as i64 + 1, (b * checks).ceil() as i64);
    (lo..hi).all(|k| {
        let t = k as f64 / checks;
        (eval_keys(&keys, t) - (c.f)(t)).abs() <= c.budget
    })
}

/// The stride of the first pass of a check over many times whose answer
/// does not depend on their order ([`SpanCheck::fits`], [`within_on`],
/// a chain's `Placer::span_error`): every SPAN_STRIDE-th time first, then
/// the others, so a span that misses is usually found out after a few.
pub(crate) const SPAN_STRIDE: usize = 8;

/// [`span_fits`] for the many spans [`fewest_placed`] tries on one curve,
/// each value of `c.f` taken once: on the check grid, and at the key times
/// (value and slopes, [`key_sample`]). `c.f` is a pure function, so the
/// answers are [`span_fits`]'s.
struct SpanCheck<'a> {
    c: &'a Curve<'a>,
    corners: &'a [f64],
    /// `c.f` at check time k, once asked.
    grid: &'a CheckGrid,
    /// [`key_sample`] by key time (bits).
    ends: std::cell::RefCell<crate::geom::TimeMap<(f64, f64, f64)>>,
}

impl<'a> SpanCheck<'a> {
    fn new(c: &'a Curve<'a>, corners: &'a [f64], grid: &'a CheckGrid) -> Self {
        drop(grid.ready());
        SpanCheck {
            c,
            corners,
            grid,
            ends: Default::default(),
        }
    }

    fn sample(&self, t: f64) -> (f64, f64, f64) {
        if let Some(&s) = self.ends.borrow().get(&t.to_bits()) {
            return s;
        }
        let s = key_sample(self.c, t, self.corners);
        self.ends.borrow_mut().insert(t.to_bits(), s);
        s
    }

    /// [`span_fits`]`(c, corners, a, b)`: the same check times, every
    /// [`SPAN_STRIDE`]-th first and then the rest, so a span that misses
    /// is usually found out after a few of them (the answer is the same in
    /// any order; a value of `c.f` is taken only where a check reads it).
    fn fits(&self, a: f64, b: f64) -> bool {
        let c = self.c;
        let checks = (PLACE_GRID * PLACE_CHECKS) as f64;
        let keys = keys_of_samples(c, &[a, b], &[self.sample(a), self.sample(b)]);
        let (lo, hi) = ((a * checks).floor() as i64 + 1, (b * checks).ceil() as i64);
        let mut grid = self.grid.0.borrow_mut();
        let mut within = |k: i64| {
            let t = k as f64 / checks;
            let v = *grid[k as usize].get_or_insert_with(|| (c.f)(t));
            (eval_keys(&keys, t) - v).abs() <= c.budget
        };
        let stride = SPAN_STRIDE as i64;
        (lo..hi).step_by(SPAN_STRIDE).all(&mut within)
            && (lo..hi).filter(|k| (k - lo) % stride != 0).all(within)
    }
}

/// About the bytes `keys` take as css keyframes: each key's percentage,
/// and for the first key of each distinct block (value and segment shape;
/// later ones join its selector list) its value with a dozen characters of
/// selector and declaration around it and a timing function where its
/// segment is a curve. For choosing between two key sets of one channel,
/// not for reporting.
pub fn written_len(keys: &[Key]) -> usize {
    use crate::geom::short_len;
    // a value as written: equal rounded values are equal texts
    let mut blocks: Vec<(f64, Ease)> = Vec::new();
    let mut in_rule = false;
    keys.iter()
        .map(|k| {
            let pct = short_len(k.t * 100.0, T_DECIMALS - 2);
            let value = quantize(k.value, DEG_DECIMALS);
            if blocks.iter().any(|(v, e)| *v == value && *e == k.ease) {
                return pct + 1;
            }
            // `;animation-timing-function:cubic-bezier(.3333,y1,.6667,y2)`
            // on a key, or (the first curve's, as the one most segments
            // use where each has its own) `cubic-bezier(…)` for `linear`
            // in the animation rule
            let ease = match k.ease {
                Ease::CubicBezier([_, y1, _, y2]) => {
                    let own = short_len(y1, BEZIER_DECIMALS) + short_len(y2, BEZIER_DECIMALS);
                    if std::mem::replace(&mut in_rule, true) {
                        54 + own
                    } else {
                        21 + own
                    }
                }
                Ease::Linear => 0,
            };
            let len = pct + short_len(k.value, DEG_DECIMALS) + 12 + ease;
            blocks.push((value, k.ease));
            len
        })
        .sum()
}

/// Whether every segment of `keys` is linear (a key's ease shapes the
/// segment after it; the last key's shapes none).
pub fn segments_linear(keys: &[Key]) -> bool {
    keys[..keys.len().saturating_sub(1)]
        .iter()
        .all(|k| k.ease == Ease::Linear)
}

/// About the bytes `keys` take as the stops of a `linear()` easing (the
/// css writer's other form of a track whose segments are all linear): each
/// key's value and a comma, and each inner key's percentage unless the keys
/// are evenly spaced. `None` when a segment is curved.
pub fn stops_len(keys: &[Key]) -> Option<usize> {
    if !segments_linear(keys) {
        return None;
    }
    let n = keys.len().max(2) - 1;
    let even = keys
        .iter()
        .enumerate()
        .all(|(i, k)| (k.t - i as f64 / n as f64).abs() < 1e-6);
    let values: usize = keys
        .iter()
        .map(|k| crate::geom::short_len(k.value, DEG_DECIMALS) + 1)
        .sum();
    let times: usize = if even {
        0
    } else {
        keys.iter()
            .skip(1)
            .take(n.saturating_sub(1))
            .map(|k| crate::geom::short_len(k.t * 100.0, T_DECIMALS - 2) + 2)
            .sum()
    };
    Some(values + times)
}

/// About the css bytes of a channel keyed by `keys`: its keyframes block
/// ([`written_len`] and about 30 bytes of `@keyframes name{}`), or the stops
/// of a `linear()` easing over a shared unit block ([`stops_len`]) where
/// every segment is linear, whichever is fewer, as the css writer chooses.
pub fn css_len(keys: &[Key]) -> usize {
    const BLOCK: usize = 30;
    let frames = written_len(keys) + BLOCK;
    stops_len(keys).map_or(frames, |s| s.min(frames))
}

/// Exactly `n` uniform keys (`t_k = k / n`, k = 0..=n) of `c` with `c.fit`
/// segments: `c.fixed`, `c.step`, `c.budget` and `c.max_keys` play no part.
pub fn uniform_keys(c: &Curve, n: usize) -> Vec<Key> {
    curve_keys(c, &uniform_times(n), &written_times(c.corners))
}

/// At most `n` distinct keys of `c`, placed where it bends, its `c.fixed`
/// times (extrema and corners) among them: of the keys the tolerance
/// fitter places ([`fewest_placed_on`]) at the least budget for which it
/// places no more (found by bisection), and the fixed times with the most
/// uniform keys that fit beside them (`spread_keys`), the set that misses
/// `c.f` less on the check times (the second where they miss alike).
pub fn placed_keys(c: &Curve, n: usize) -> Vec<Key> {
    let spread = spread_keys(c, n);
    let grid = CheckGrid::default();
    let fits = |budget: f64| {
        let keys = fewest_placed_on(&Curve { budget, ..*c }, &grid).keys;
        (keys.len() <= n + 1).then_some(keys)
    };
    // (the fitter keeps a budget with room to spare: bisect from four
    // times the spread keys' own miss down to a thousandth of it; nothing
    // to gain where they miss by nothing)
    let miss = max_error_on(c, &spread, &grid);
    if miss.is_nan() || miss <= 0.0 {
        return spread;
    }
    let (mut lo, mut hi) = (miss * 1e-3, miss * 4.0);
    let Some(mut best) = fits(hi) else {
        return spread;
    };
    for _ in 0..PLACED_BISECTIONS {
        let mid = (lo * hi).sqrt();
        match fits(mid) {
            Some(keys) => {
                best = keys;
                hi = mid;
            }
            None => lo = mid,
        }
    }
    if max_error_on(c, &best, &grid) < miss {
        best
    } else {
        spread
    }
}

/// At most `n` distinct keys of `c`: its `c.fixed` times (extrema and
/// corners) and the most uniform keys that fit beside them; with more
/// fixed times than `n`, `n` uniform keys.
fn spread_keys(c: &Curve, n: usize) -> Vec<Key> {
    let fixed = written_times(c.fixed);
    let times = (1..=n)
        .rev()
        .map(|m| uniform_with_fixed(m, &fixed))
        .find(|t| t.len() <= n + 1)
        .unwrap_or_else(|| uniform_times(n));
    curve_keys(c, &times, &written_times(c.corners))
}

/// Bisections [`placed_keys`] takes over the budget (in ratio: each halves
/// the log of the span it searches, 4,000 to one).
const PLACED_BISECTIONS: usize = 10;

/// The fitter's own evaluation of keys at normalised time u, taking x(s) = s
/// for cubic segments (true up to the rounding of 1/3 and 2/3).
pub fn eval_keys(keys: &[Key], u: f64) -> f64 {
    eval_keys_from(keys, u, &mut 0)
}

/// [`eval_keys`] for increasing `u`: `seg` remembers the segment between calls.
pub fn eval_keys_from(keys: &[Key], u: f64, seg: &mut usize) -> f64 {
    let mut i = if u >= keys[*seg].t { *seg } else { 0 };
    while i + 2 < keys.len() && u >= keys[i + 1].t {
        i += 1;
    }
    *seg = i;
    segment_value(&keys[i], &keys[i + 1], u)
}

/// [`eval_keys`] at each of the sorted times `us`, into `out` (as long):
/// the same values, each segment found once for the run of times it holds.
pub fn eval_keys_into(keys: &[Key], us: &[f64], out: &mut [f64]) {
    let mut i = 0;
    let mut k = 0;
    while k < us.len() {
        // the segment of us[k], as eval_keys_from finds it
        while i + 2 < keys.len() && us[k] >= keys[i + 1].t {
            i += 1;
        }
        let (a, b) = (&keys[i], &keys[i + 1]);
        // the run of times in segment i: all the rest in the last one
        let end = if i + 2 < keys.len() {
            k + us[k..].partition_point(|&u| u < b.t)
        } else {
            us.len()
        };
        for (o, &u) in out[k..end].iter_mut().zip(&us[k..end]) {
            *o = segment_value(a, b, u);
        }
        k = end;
    }
}

/// The keys (indices into the sorted key `times`) that [`eval_keys_into`]
/// reads for times in `[lo, hi]`: from the last key at or before `lo` (at
/// most the last segment's first) to the first key after `hi` (a time equal
/// to a key falls in the segment that key starts). Evaluating those times
/// with only these keys gives the same values as with all of them.
pub fn keys_spanning(times: &[f64], lo: f64, hi: f64) -> std::ops::Range<usize> {
    let first = times
        .partition_point(|&t| t <= lo)
        .saturating_sub(1)
        .min(times.len().saturating_sub(2));
    let end = (times.partition_point(|&t| t <= hi) + 1).min(times.len());
    first..end
}

/// The value at normalised time u of the segment from key `a` to key `b`
/// (clamped to it), x(s) = s for a cubic segment.
#[inline(always)]
fn segment_value(a: &Key, b: &Key, u: f64) -> f64 {
    let s = ((u - a.t) / (b.t - a.t)).clamp(0.0, 1.0);
    let y = match a.ease {
        Ease::Linear => s,
        Ease::CubicBezier([_, y1, _, y2]) => {
            let m = 1.0 - s;
            3.0 * m * m * s * y1 + 3.0 * m * s * s * y2 + s * s * s
        }
    };
    a.value + (b.value - a.value) * y
}

/// One-sided slopes `(from the left, from the right)` of a curve on [0, 1]
/// at t (second-order differences), extended periodically as [`slope`]
/// does. They agree where the curve is smooth and differ at a corner.
///
/// A corner key is written to the microsecond, so it can sit a hair
/// beside the corner it keys, and a side's stencil then crosses it. Each
/// side's quotient `q(h)` is therefore taken at three steps (h, 4h, 16h)
/// and read by how it changes: a smooth side's agree to O(h²)
/// (15·h²·|f'''|, under one unit per period unless |f'''| passes 7·10⁸);
/// across a kink it is the far slope plus a term in 1/h, so its
/// successive differences shrink fourfold and the far slope is
/// `(4·q(4h) − q(h)) / 3` (taken as it was it wrote a steep slope on a
/// flat side, or one of the wrong sign); at a cusp (where a clamped limb's
/// target leaves its reach the knee turns as the square root of the time)
/// the term is in 1/√h, the differences shrink twofold, and the slope is
/// unbounded: given as an infinite one of its sign, which
/// [`keys_from_sided`] writes as steep as the segment allows (any finite
/// value taken for it made the segment beside the cusp bulge by degrees).
pub fn sided_slopes(f: &dyn Fn(f64) -> f64, t: f64) -> (f64, f64) {
    const H: f64 = 1.0e-5;
    let ext = periodic(f);
    let f0 = ext(t);
    let side = |h: f64| {
        let at = |h: f64| (-3.0 * f0 + 4.0 * ext(t + h) - ext(t + 2.0 * h)) / (2.0 * h);
        let (q1, q4, q16) = (at(h), at(4.0 * h), at(16.0 * h));
        if (q1 - q4).abs() <= 1.0 {
            return q1;
        }
        let shrink = (q1 - q4) / (q4 - q16);
        if (3.5..=4.5).contains(&shrink) {
            (4.0 * q4 - q1) / 3.0
        } else if (1.7..=2.3).contains(&shrink) {
            f64::INFINITY.copysign(q1 - q4)
        } else {
            q1
        }
    };
    // (a step of −h gives the left side's quotient)
    (side(-H), side(H))
}

/// The sample time strictly inside `(lo, hi)` where `keys` stray farthest
/// from `ideal` (sampled at `ts`), if any sample lies there: where a
/// refinement splits a segment.
pub fn worst_between(keys: &[Key], ts: &[f64], ideal: &[f64], lo: f64, hi: f64) -> Option<f64> {
    let mut at = None;
    let mut worst = -1.0;
    for (&t, &want) in ts.iter().zip(ideal) {
        if t > lo && t < hi {
            let e = (eval_keys(keys, t) - want).abs();
            if e > worst {
                worst = e;
                at = Some(t);
            }
        }
    }
    at
}

/// Times in (0, 1) where a curve's slope changes sign (local extrema), found
/// on a uniform grid and rounded as written.
pub fn extrema(f: &dyn Fn(f64) -> f64) -> Vec<f64> {
    const N: usize = 512;
    let sign = |x: f64| {
        if x > 0.0 {
            1
        } else if x < 0.0 {
            -1
        } else {
            0
        }
    };
    let at = |k: usize| k as f64 / N as f64;
    let d: Vec<i32> = (0..=N).map(|k| sign(slope(f, at(k)))).collect();
    let mut out: Vec<f64> = Vec::new();
    for k in 0..N {
        let t = if d[k] * d[k + 1] < 0 {
            // a sign change inside (k, k+1): bisect on the slope's sign
            let (mut lo, mut hi) = (at(k), at(k + 1));
            for _ in 0..40 {
                let mid = 0.5 * (lo + hi);
                if sign(slope(f, mid)) == d[k] {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            0.5 * (lo + hi)
        } else if d[k + 1] == 0 && d[k] != 0 {
            at(k + 1)
        } else {
            continue;
        };
        let t = quantize(t, T_DECIMALS);
        let far_enough = out.last().is_none_or(|&p| t - p >= 2.0 / N as f64);
        if t > MIN_GAP && t < 1.0 - MIN_GAP && far_enough {
            out.push(t);
        }
    }
    out
}

/// The fitter's view of one error estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Estimate {
    /// Max error over the fitter's samples, px.
    pub max_px: f64,
    /// Normalised time of the max.
    pub worst_t: f64,
    /// Index of the key set to refine at `worst_t`.
    pub blame: usize,
}

/// The errors of one key set whose segments are straight (a smil morph),
/// into `out` (cleared first): at each sample time `ts[i]` (sorted),
/// `err(i, seg, f)`, the error of the point a fraction `f` along segment
/// `seg` of the key times `tk`. Stops at the first error `over` says is
/// over, returning false (`out` then holds the errors up to it).
pub fn linear_errors(
    ts: &[f64],
    tk: &[f64],
    out: &mut Vec<f64>,
    over: impl Fn(f64) -> bool,
    mut err: impl FnMut(usize, usize, f64) -> f64,
) -> bool {
    out.clear();
    let mut seg = 0;
    for (i, &t) in ts.iter().enumerate() {
        while seg + 2 < tk.len() && t >= tk[seg + 1] {
            seg += 1;
        }
        let f = ((t - tk[seg]) / (tk[seg + 1] - tk[seg])).clamp(0.0, 1.0);
        let e = err(i, seg, f);
        out.push(e);
        if over(e) {
            return false;
        }
    }
    true
}

/// Samples per block of the block maxima an incremental estimate keeps
/// over its errors ([`block_max`]), so that the max after a change reads
/// the changed blocks and one value per other block.
pub(crate) const BLOCK: usize = 32;

/// The max of `errors` over block `b` ([`BLOCK`] samples, fewer at the end;
/// NaNs passed over, 0 for a block of NaNs only).
pub(crate) fn block_max(errors: &[f64], b: usize) -> f64 {
    errors[b * BLOCK..((b + 1) * BLOCK).min(errors.len())]
        .iter()
        .fold(0.0, |m, &e| m.max(e))
}

/// Each block of `blocks` that holds one of the samples `changed`, again
/// the max of its `errors` ([`block_max`]).
pub(crate) fn refresh_blocks(errors: &[f64], blocks: &mut [f64], changed: std::ops::Range<usize>) {
    let (first, end) = (changed.start / BLOCK, changed.end.div_ceil(BLOCK));
    for (b, top) in blocks.iter_mut().enumerate().take(end).skip(first) {
        *top = block_max(errors, b);
    }
}

/// The largest block max, the first block holding it, and the first
/// sample from that block on that equals it: the first sample of the
/// errors' max, the earliest on a tie, as a scan of every sample finds it
/// (`None` for errors that are NaNs only, whose blocks' maxima are 0 from
/// the start).
pub(crate) fn first_max(errors: &[f64], blocks: &[f64]) -> (f64, usize, Option<usize>) {
    let mut top = 0;
    for (b, &m) in blocks.iter().enumerate() {
        if m > blocks[top] {
            top = b;
        }
    }
    let max = blocks[top];
    let at = errors[top * BLOCK..].iter().position(|&e| e == max);
    (max, top, at.map(|k| top * BLOCK + k))
}

/// The largest of `errs` (one per sample of `ts`) and its sample's time,
/// the earliest on a tie; a NaN error never wins.
pub fn max_estimate(ts: &[f64], errs: &[f64]) -> Estimate {
    let mut best = Estimate {
        max_px: -1.0,
        worst_t: 0.0,
        blame: 0,
    };
    for (&t, &e) in ts.iter().zip(errs) {
        if e > best.max_px {
            best.max_px = e;
            best.worst_t = t;
        }
    }
    best
}

/// The samples (indices into the sorted `ts`) whose value along a key set
/// can differ between key times `old` and `new`: those from the last key
/// both lists share before the first difference to the first they share
/// after the last one (a segment's curve depends only on its two end keys).
/// `None` when the lists are equal. Both lists run from 0 to 1.
pub fn changed_samples(old: &[f64], new: &[f64], ts: &[f64]) -> Option<std::ops::Range<usize>> {
    if old == new {
        return None;
    }
    let most = old.len().min(new.len());
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .take(most - prefix)
        .take_while(|(a, b)| a == b)
        .count();
    let lo = if prefix > 0 { new[prefix - 1] } else { 0.0 };
    let hi = if suffix > 0 {
        new[new.len() - suffix]
    } else {
        1.0
    };
    let start = ts.partition_point(|&t| t < lo);
    let end = ts.partition_point(|&t| t <= hi);
    Some(start..end)
}

/// The union of two sample ranges (either may be absent).
pub fn union(
    a: Option<std::ops::Range<usize>>,
    b: Option<std::ops::Range<usize>>,
) -> Option<std::ops::Range<usize>> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.start.min(b.start)..a.end.max(b.end)),
        (a, b) => a.or(b),
    }
}

/// A fitting problem: several key-time sets (one per track) evaluated jointly.
pub trait Problem {
    /// How many key-time sets.
    fn sets(&self) -> usize;
    /// Error estimate for candidate key times.
    fn estimate(&self, times: &[Vec<f64>]) -> Estimate;
    /// The estimate if its max is within `bound`, else `None`; a problem may
    /// stop evaluating as soon as one sample exceeds the bound.
    fn estimate_within(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        Some(self.estimate(times)).filter(|e| e.max_px <= bound)
    }
    /// Where to add a key to set `set` in the segment (lo, hi) that holds the worst time.
    fn split_at(&self, times: &[Vec<f64>], set: usize, lo: f64, hi: f64, worst_t: f64) -> f64;
    /// Starting key times of set `set` (must include 0 and 1).
    fn initial(&self, set: usize) -> Vec<f64>;
    /// Weighs the error of every sample within a span of `spans` by the
    /// span's factor in every later estimate (by the product of the
    /// factors where spans overlap; no spans: every error as it is):
    /// where [`refine`] found an error peak no key can lower, the samples
    /// around it may keep that error and the fit goes on elsewhere
    /// ([`Stuck`]). `false` (the default) for a problem that cannot,
    /// whose fit then ends at the first such peak.
    fn mask(&self, _spans: &[Stuck]) -> bool {
        false
    }
    /// Start from the fewest *uniform* keys that meet the tolerance instead
    /// of [`Problem::initial`] (for motions of even curvature, where uniform
    /// spacing is already near the best).
    fn uniform_first(&self) -> bool {
        false
    }
}

/// The fewest uniform keys (same in every set) meeting the tolerance, by
/// doubling then bisection on n; `None` past `max_keys`.
pub(crate) fn uniform_floor(
    p: &dyn Problem,
    tol_px: f64,
    max_keys: usize,
) -> Option<Vec<Vec<f64>>> {
    let ok = |n: usize| {
        p.estimate_within(&vec![uniform_times(n); p.sets()], tol_px)
            .is_some()
    };
    let mut hi = 2;
    while !ok(hi) {
        if hi >= max_keys {
            return None;
        }
        hi = (hi * 2).min(max_keys);
    }
    let mut lo = hi / 2;
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        if ok(mid) { hi = mid } else { lo = mid }
    }
    Some(vec![uniform_times(hi); p.sets()])
}

/// Uniform normalised key times `k / n`, k = 0..=n, as written.
pub fn uniform_times(n: usize) -> Vec<f64> {
    (0..=n)
        .map(|k| quantize(k as f64 / n as f64, T_DECIMALS))
        .collect()
}

pub(crate) fn insert_sorted(v: &mut Vec<f64>, t: f64) -> bool {
    let t = quantize(t, T_DECIMALS);
    let i = v.partition_point(|&x| x < t);
    let ok_left = i == 0 || t - v[i - 1] >= MIN_GAP;
    let ok_right = i == v.len() || v[i] - t >= MIN_GAP;
    if ok_left && ok_right {
        v.insert(i, t);
        true
    } else {
        false
    }
}

/// Greedy tolerance fit (see module docs). Returns key times per set.
/// Where no key can be added at an error peak (keys are at least
/// [`MIN_GAP`] apart: a cusp's error next to its key, a fast turn between
/// two samples), the samples between the keys around it may keep the
/// peak's error ([`Problem::mask`]) and the fit goes on to the next
/// peak: the rest of the motion still keeps `tol_px`. Where `max_keys`
/// per set is reached first (or the problem cannot weigh samples), the
/// best found with every key pruned that does not raise its max error
/// (so weighed).
pub fn refine(p: &dyn Problem, tol_px: f64, max_keys: usize) -> Vec<Vec<f64>> {
    refine_hoping(p, tol_px, max_keys, SHIFT_HOPE)
}

/// [`refine`], its last and dearest pass (shifting keys to remove more)
/// taken only where the pruned keys are `worth` it: a caller with a
/// cheaper candidate already in hand passes over keys too far behind it
/// for the pass to close the gap.
pub fn refine_if(
    p: &dyn Problem,
    tol_px: f64,
    max_keys: usize,
    worth: &dyn Fn(&[Vec<f64>]) -> bool,
) -> Vec<Vec<f64>> {
    refine_worth(p, tol_px, max_keys, SHIFT_HOPE, worth)
}

/// [`refine`], a removed key's neighbours shifted only while within `hope`
/// (see [`SHIFT_HOPE`]; infinite: to the last step whatever the error).
pub(crate) fn refine_hoping(
    p: &dyn Problem,
    tol_px: f64,
    max_keys: usize,
    hope: [f64; 2],
) -> Vec<Vec<f64>> {
    refine_worth(p, tol_px, max_keys, hope, &|_| true)
}

fn refine_worth(
    p: &dyn Problem,
    tol_px: f64,
    max_keys: usize,
    hope: [f64; 2],
    worth: &dyn Fn(&[Vec<f64>]) -> bool,
) -> Vec<Vec<f64>> {
    let start = if p.uniform_first() {
        uniform_floor(p, tol_px, max_keys)
    } else {
        None
    };
    let mut times: Vec<Vec<f64>> =
        start.unwrap_or_else(|| (0..p.sets()).map(|s| p.initial(s)).collect());
    let mut stuck = Vec::new();
    // (every sample counts again once the fit is done, however it ends)
    let _unmask = Unmask(p);
    if !grow(p, &mut times, tol_px, max_keys, Some(&mut stuck)) {
        let reached = p.estimate(&times).max_px;
        if reached.is_finite() {
            prune(p, &mut times, reached);
        }
        return times;
    }
    // Prune, then shift-then-prune (quadratic in the key count, so only for
    // small key sets, where a key saved matters most).
    prune(p, &mut times, tol_px);
    if times.iter().map(Vec::len).sum::<usize>() > SHIFT_MAX_KEYS || !worth(&times) {
        return times;
    }
    for _ in 0..2 {
        let before: usize = times.iter().map(Vec::len).sum();
        for s in 0..p.sets() {
            let mut i = 1;
            while i + 1 < times[s].len() {
                let mut trial = times.clone();
                trial[s].remove(i);
                let near = i.saturating_sub(2)..i + 2;
                if shift_keys(p, &mut trial, s, near, Some((tol_px, hope)))
                    && p.estimate_within(&trial, tol_px).is_some()
                {
                    times = trial;
                } else {
                    i += 1;
                }
            }
        }
        if times.iter().map(Vec::len).sum::<usize>() == before {
            break;
        }
    }
    times
}

/// Clears a problem's [`Problem::mask`] when dropped.
struct Unmask<'a>(&'a dyn Problem);

impl Drop for Unmask<'_> {
    fn drop(&mut self) {
        self.0.mask(&[]);
    }
}

/// At most this many spans [`refine`] weighs down in a fit: past them, the
/// fit ends at the next peak no key lowers.
const MAX_STUCK: usize = 64;

/// A span of normalised time `[lo, hi]` around an error peak no key could
/// lower (the keys around it already [`MIN_GAP`] apart), and the factor
/// (under 1) that brings the peak's error down to the tolerance: its
/// samples may keep up to that error, not more.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stuck {
    pub lo: f64,
    pub hi: f64,
    pub factor: f64,
}

/// Per sample of a problem, the factor [`Problem::mask`] weighs its error
/// by under the spans it was given (empty: none, every factor 1).
#[derive(Default)]
pub(crate) struct Weights(std::cell::RefCell<Vec<f64>>);

impl Weights {
    /// Weighs the samples at `ts` by `spans` (by the product of the
    /// factors where spans overlap); whether any factor changed (an error
    /// kept from before was then weighed the old way).
    pub(crate) fn set(&self, ts: &[f64], spans: &[Stuck]) -> bool {
        let factors: Vec<f64> = if spans.is_empty() {
            Vec::new()
        } else {
            ts.iter()
                .map(|&t| {
                    spans
                        .iter()
                        .filter(|s| s.lo <= t && t <= s.hi)
                        .map(|s| s.factor)
                        .product()
                })
                .collect()
        };
        let changed = *self.0.borrow() != factors;
        if changed {
            *self.0.borrow_mut() = factors;
        }
        changed
    }

    /// Every sample's factor (empty: none).
    pub(crate) fn all(&self) -> std::cell::Ref<'_, Vec<f64>> {
        self.0.borrow()
    }
}

/// The best placement found for a budget of `max_keys` distinct keys per set:
/// greedy insertion until the budget is spent, and uniform keys, each then
/// shifted by coordinate descent to lower the max error; the better of the two.
pub fn fill(p: &dyn Problem, max_keys: usize) -> Vec<Vec<f64>> {
    let mut greedy: Vec<Vec<f64>> = (0..p.sets()).map(|s| p.initial(s)).collect();
    grow(p, &mut greedy, 0.0, max_keys, None);
    let mut uniform = vec![uniform_times(max_keys); p.sets()];
    for times in [&mut greedy, &mut uniform] {
        for s in 0..p.sets() {
            let n = times[s].len();
            shift_keys(p, times, s, 1..n, None);
        }
    }
    if p.estimate(&greedy).max_px < p.estimate(&uniform).max_px {
        greedy
    } else {
        uniform
    }
}

/// Add keys where the error peaks until the estimate is within `tol_px`
/// (true) or no set may take another key (false). A set holds at most
/// `max_keys` distinct key times (0 and 1 are one). With `stuck`, a peak
/// no set with room can take a key at (its keys already [`MIN_GAP`]
/// apart there) may keep its error ([`Problem::mask`]: over the span
/// between the keys around it, in every such set), is added to `stuck`,
/// and the growth goes on; without, or past [`MAX_STUCK`] spans, that
/// ends it (false).
fn grow(
    p: &dyn Problem,
    times: &mut [Vec<f64>],
    tol_px: f64,
    max_keys: usize,
    mut stuck: Option<&mut Vec<Stuck>>,
) -> bool {
    loop {
        let e = p.estimate(times);
        if e.max_px <= tol_px {
            return true;
        }
        let mut inserted = false;
        // the span around the peak between keys of every set with room
        let mut span: Option<(f64, f64)> = None;
        // Blamed set first, then the others.
        let order: Vec<usize> = std::iter::once(e.blame)
            .chain((0..p.sets()).filter(|&s| s != e.blame))
            .collect();
        for s in order {
            if times[s].len() > max_keys {
                continue;
            }
            let seg = times[s]
                .partition_point(|&x| x <= e.worst_t)
                .clamp(1, times[s].len() - 1);
            let (lo, hi) = (times[s][seg - 1], times[s][seg]);
            let at = p.split_at(times, s, lo, hi, e.worst_t);
            if insert_sorted(&mut times[s], at) || insert_sorted(&mut times[s], 0.5 * (lo + hi)) {
                inserted = true;
                break;
            }
            span = Some(span.map_or((lo, hi), |(a, b)| (a.max(lo), b.min(hi))));
        }
        if inserted {
            continue;
        }
        let (Some(stuck), Some((lo, hi))) = (stuck.as_deref_mut(), span) else {
            return false;
        };
        if stuck.len() >= MAX_STUCK || e.max_px.is_nan() {
            return false;
        }
        // (the peak itself always in its span, brought to the tolerance:
        // each span is progress)
        stuck.push(Stuck {
            lo: lo.min(e.worst_t),
            hi: hi.max(e.worst_t),
            factor: tol_px / e.max_px,
        });
        if !p.mask(stuck) {
            stuck.pop();
            return false;
        }
    }
}

/// Remove every interior key whose removal keeps the estimate within tolerance.
fn prune(p: &dyn Problem, times: &mut [Vec<f64>], tol_px: f64) {
    for s in 0..p.sets() {
        let mut i = 1;
        while i + 1 < times[s].len() {
            let removed = times[s].remove(i);
            if p.estimate_within(times, tol_px).is_some() {
                continue;
            }
            times[s].insert(i, removed);
            i += 1;
        }
    }
}

/// How far past the tolerance a removed key's neighbours may still be,
/// as a multiple of it, after each step of [`shift_keys`] but the last, for
/// the finer steps to be tried ([`refine`]'s removals). Of the removals
/// that succeeded, over every rig in `rigs/` (77) and 1,000 generated
/// cycling rigs (3,289), the coarsest step left every one within 3.05×
/// the tolerance and the next within 1.45×; of those that failed, most
/// were past 4× and 2×, and the finer steps then only spent time (a
/// sixth of the instructions of a generated cycling rig's bake). With a
/// pair's least-squares segments too, `rigs/` (both routes) and 300 of
/// those rigs bake the same bytes with and without giving up. A
/// removal given up keeps its key: a file may be a key longer, never
/// further off.
pub(crate) const SHIFT_HOPE: [f64; 2] = [4.0, 2.0];

/// Coordinate descent on the interior key times of set `set` with indices in
/// `range` (the neighbours of a removed key) to lower the max error, in
/// steps of 0.01, 0.003 and 0.001. Given a tolerance and its hope, gives
/// up (false) when a step but the last leaves the error more than
/// `hope[step]` times the tolerance (see [`SHIFT_HOPE`]); true otherwise.
fn shift_keys(
    p: &dyn Problem,
    times: &mut [Vec<f64>],
    set: usize,
    range: std::ops::Range<usize>,
    give_up: Option<(f64, [f64; 2])>,
) -> bool {
    let mut best = p.estimate(times).max_px;
    for (k, step) in [0.01, 0.003, 0.001].into_iter().enumerate() {
        if let Some((tol, hope)) = give_up
            && k > 0
            && best > hope[k - 1] * tol
        {
            return false;
        }
        let mut improved = true;
        let mut rounds = 0;
        while improved && rounds < 4 {
            improved = false;
            rounds += 1;
            let s = set;
            {
                let end = range.end.min(times[s].len().saturating_sub(1));
                for i in range.start.max(1)..end {
                    for dir in [-1.0, 1.0] {
                        let t = quantize(times[s][i] + dir * step, T_DECIMALS);
                        if t - times[s][i - 1] < MIN_GAP || times[s][i + 1] - t < MIN_GAP {
                            continue;
                        }
                        let old = times[s][i];
                        times[s][i] = t;
                        // strictly better: within the largest value below `best`
                        let e = p.estimate_within(times, best.next_down()).map(|e| e.max_px);
                        if let Some(e) = e {
                            best = e;
                            improved = true;
                        } else {
                            times[s][i] = old;
                        }
                    }
                }
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lengths are rounded to three places just under the tight tolerance
    /// and to two from it up, and where no tolerance is asked.
    #[test]
    fn lengths_take_a_third_place_only_under_a_tight_tolerance() {
        use crate::geom::{FINE_LEN_DECIMALS, LEN_DECIMALS};
        let tight = crate::valid::TIGHT_TOLERANCE_PX;
        for (keying, want) in [
            (Keying::Uniform(10), LEN_DECIMALS),
            (Keying::Budget(10), LEN_DECIMALS),
            (Keying::Goal(DEFAULT_TOLERANCE_PX), LEN_DECIMALS),
            (Keying::Tolerance(0.25), LEN_DECIMALS),
            (Keying::Tolerance(tight), LEN_DECIMALS),
            (Keying::Tolerance(tight * (1.0 - 1e-9)), FINE_LEN_DECIMALS),
            (
                Keying::Tolerance(crate::valid::MIN_TOLERANCE_PX),
                FINE_LEN_DECIMALS,
            ),
        ] {
            assert_eq!(keying.len_decimals(), want, "{keying:?}");
        }
        assert_eq!(FINE_LEN_DECIMALS, LEN_DECIMALS + 1);
    }

    fn placed_curve<'a>(f: &'a dyn Fn(f64) -> f64, fixed: &'a [f64], budget: f64) -> Curve<'a> {
        Curve {
            f,
            fixed,
            corners: &[],
            step: 4,
            budget,
            max_keys: MAX_FIT_KEYS,
            clamp_y: false,
            decimals: 3,
            fit: Fit::Cubic,
        }
    }

    /// Of sets that all miss their budget, a hair's less error does not buy
    /// bytes: the fewest bytes within a twentieth of the least miss, or of
    /// the budget, win; a clearly smaller miss wins whatever it writes; an
    /// error within the budget (a set its own fit did not keep, yet within
    /// it on the check times) misses by nothing, and the least miss is
    /// always a candidate (a choice among such sets once found none); a
    /// NaN misses most.
    #[test]
    fn the_least_miss_is_the_fewest_bytes_of_the_equal_misses() {
        // the boundary: exactly MISS_GAIN of the other's miss is not less
        assert!(!misses_less(MISS_GAIN, 1.0, 0.0));
        assert!(misses_less(MISS_GAIN - 1e-9, 1.0, 0.0));
        assert!(!misses_less(0.2, 0.1, 0.5), "both within: equal");
        assert!(misses_less(0.5, f64::NAN, 0.0));
        assert!(!misses_less(f64::NAN, 9.0, 0.0));
        // clearly less: by under MISS_GAIN of the miss and over MISS_FLOOR
        // of the budget (misses 0.01 and 0.02 of a budget of 1: less, not
        // clearly)
        assert!(misses_less(1.01, 1.02, 1.0) && !clearly_less(1.01, 1.02, 1.0));
        assert!(clearly_less(1.1, 1.2, 1.0));
        assert!(!clearly_less(1.95, 2.0, 1.0), "under the floor");
        assert!(clearly_less(3.0, f64::NAN, 1.0));
        assert!(!clearly_less(f64::NAN, 3.0, 1.0));
        // (candidates as (error, bytes), the index to take)
        type Case<'a> = (&'a [(f64, usize)], Option<usize>);
        let cases: &[Case] = &[
            // misses 1 and 0.99: equal, the fewer bytes
            (&[(2.0, 100), (1.99, 900)], Some(0)),
            (&[(1.99, 900), (2.0, 100)], Some(1)),
            // 0.5 against 1: clearly less, whatever it writes
            (&[(2.0, 100), (1.5, 900)], Some(1)),
            // 0.01 against 0.02: less, by under a twentieth of the budget
            (&[(1.02, 100), (1.01, 900)], Some(0)),
            (&[(1.2, 100), (1.1, 900)], Some(1)),
            // within the budget: no miss, and equal; the fewest bytes
            (&[(0.9, 500), (0.5, 300), (1.2, 10)], Some(1)),
            (&[(0.9, 500)], Some(0)),
            (&[(f64::NAN, 1), (3.0, 50)], Some(1)),
            (&[(f64::NAN, 9), (f64::NAN, 5)], Some(1)),
            // the first of equals
            (&[(2.0, 100), (2.0, 100)], Some(0)),
            (&[], None),
        ];
        for (found, want) in cases {
            assert_eq!(least_miss(found, 1.0), *want, "{found:?}");
            // measured on demand, from bounds of nothing: the same choice
            let bounds: Vec<(f64, usize)> = found.iter().map(|&(_, b)| (0.0, b)).collect();
            let lazy = least_miss_by(&bounds, 1.0, |i| found[i].0);
            assert_eq!(lazy.map(|(i, _)| i), *want, "{found:?}");
            if let Some((i, e)) = lazy {
                assert_eq!(e.to_bits(), found[i].0.to_bits());
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        /// Choosing by bounds and measures on demand takes what
        /// [`least_miss`] takes from every error, and returns its error as
        /// measured; each candidate is measured once at most, and with
        /// exact bounds three at most (the first in order, a least one,
        /// the one taken).
        #[test]
        fn the_least_miss_measured_on_demand_is_the_least_miss(
            found in proptest::collection::vec(
                (
                    prop_oneof![
                        8 => 0.0f64..4.0,
                        1 => Just(f64::NAN),
                        1 => (0u8..8).prop_map(|k| 1.0 + k as f64 / 8.0),
                    ],
                    0.0f64..=1.0,
                    0usize..6,
                ),
                0..24,
            ),
            budget in prop_oneof![Just(1.0), 0.01f64..2.0],
        ) {
            let errors: Vec<(f64, usize)> = found.iter().map(|&(e, _, b)| (e, b)).collect();
            let want = least_miss(&errors, budget);
            for exact_bounds in [false, true] {
                // a bound: a share of the error (a NaN's, anything)
                let bounds: Vec<(f64, usize)> = found
                    .iter()
                    .map(|&(e, share, b)| {
                        let lower = match (exact_bounds, e.is_nan()) {
                            (true, _) => e,
                            (false, true) => share * 9.0,
                            (false, false) => e * share,
                        };
                        (lower, b)
                    })
                    .collect();
                let mut measured = vec![0usize; found.len()];
                let got = least_miss_by(&bounds, budget, |i| {
                    measured[i] += 1;
                    found[i].0
                });
                prop_assert_eq!(got.map(|(i, _)| i), want);
                if let Some((i, e)) = got {
                    prop_assert_eq!(e.to_bits(), found[i].0.to_bits());
                    prop_assert!(measured[i] == 1, "the one taken is measured");
                    if exact_bounds {
                        prop_assert!(measured.iter().sum::<usize>() <= 3, "{:?}", measured);
                    }
                }
                prop_assert!(measured.iter().all(|&m| m <= 1), "{:?}", measured);
            }
        }
    }

    /// A turn too fast for linear keys a grid step apart (harmonic 24 at
    /// 60°, 0.1°): the placed linear keys take such steps anyway and say
    /// they are not kept, and so do the uniform ones the search gives up
    /// on; cubic keys keep the same budget and say so, and every set
    /// called kept is within its budget on a grid five times finer.
    #[test]
    fn fits_say_whether_they_keep_their_budget() {
        let fast = |t: f64| 60.0 * (std::f64::consts::TAU * 24.0 * t).sin();
        let finer = |keys: &[Key]| {
            (0..=PLACE_GRID * PLACE_CHECKS * 5).all(|k| {
                let t = k as f64 / (PLACE_GRID * PLACE_CHECKS * 5) as f64;
                (eval_keys(keys, t) - fast(t)).abs() <= 0.1
            })
        };
        for fit in [Fit::Linear, Fit::Cubic] {
            let c = Curve {
                fit,
                ..placed_curve(&fast, &[], 0.1)
            };
            let grid = CheckGrid::default();
            let placed = fewest_placed_on(&c, &grid);
            let uniform = fewest_uniform_on_until(&c, &grid, |_| false);
            assert_eq!(placed.kept, fit == Fit::Cubic, "{fit:?} placed");
            assert_eq!(uniform.kept, fit == Fit::Cubic, "{fit:?} uniform");
            for found in [placed, uniform] {
                assert_eq!(found.kept, finer(&found.keys), "{fit:?}");
            }
        }
    }

    /// A kink no corner names inside the last step before a fixed key
    /// time (less than a grid step after the key before it): the placed
    /// keys take that step anyway and say they are not kept; the same
    /// line without the kink is kept.
    #[test]
    fn a_step_taken_anyway_before_a_fixed_time_is_not_kept() {
        let kinked = |t: f64| 100.0 * (t - 0.0012).abs();
        let straight = |t: f64| 100.0 * (t - 0.0012);
        for (f, kept) in [(&kinked as &dyn Fn(f64) -> f64, false), (&straight, true)] {
            let c = Curve {
                fit: Fit::Linear,
                ..placed_curve(f, &[0.0015], 0.001)
            };
            let found = fewest_placed_on(&c, &CheckGrid::default());
            assert!(found.keys.iter().any(|k| k.t == 0.0015));
            assert_eq!(found.kept, kept, "{:?}", found.keys);
        }
    }

    /// A budget no uniform count meets (as beside a cusp): the plain
    /// search tries every count up to half of `max_keys` (here 127 sets),
    /// the one given `enough` stops at the first set it accepts, within
    /// budget or not, on either grid; and with a budget the keys meet, the
    /// same keys as the plain search.
    #[test]
    fn a_uniform_search_gives_up_where_it_is_told() {
        let cusp = |t: f64| 40.0 * (t - 0.3).max(0.0).sqrt();
        let c = Curve {
            corners: &[0.3],
            ..placed_curve(&cusp, &[0.3], 1e-9)
        };
        for linear in [false, true] {
            let c = Curve {
                fit: if linear { Fit::Linear } else { Fit::Cubic },
                ..c
            };
            let sets = std::cell::Cell::new(0usize);
            let count_all = |_: &[Key]| {
                sets.set(sets.get() + 1);
                false
            };
            let grid = CheckGrid::default();
            let all = if linear {
                fewest_uniform_on_until(&c, &grid, count_all)
            } else {
                fewest_uniform_until(&c, count_all)
            };
            assert!(
                !all.kept,
                "{linear}: no uniform count meets 1e-9 beside a cusp"
            );
            let all = all.keys;
            assert_eq!(sets.get(), MAX_FIT_KEYS / 2 / 4 - 1, "{linear}");
            assert!(all.len() > 100, "{linear}: {}", all.len());
            sets.set(0);
            let enough = |k: &[Key]| {
                sets.set(sets.get() + 1);
                k.len() > 20
            };
            let some = if linear {
                fewest_uniform_on_until(&c, &grid, enough)
            } else {
                fewest_uniform_until(&c, enough)
            }
            .keys;
            assert_eq!(sets.get(), 4, "{linear}");
            assert!(some.len() > 20 && some.len() < all.len(), "{linear}");
        }
        let wave = |t: f64| 10.0 * (std::f64::consts::TAU * t).sin();
        let met = placed_curve(&wave, &[0.25, 0.75], 0.01);
        let found = fewest_uniform_until(&met, |k| k.len() > 1000);
        assert!(found.kept, "within its budget before 1000 keys");
        assert_eq!(found.keys, fewest_uniform(&met));
    }

    /// Fits of one curve sharing one [`CheckGrid`] (both shapes, several
    /// budgets, in either order) place the very keys each places alone,
    /// and the curve is evaluated at no check time twice.
    #[test]
    fn fits_sharing_a_check_grid_place_the_same_keys() {
        let calls = std::cell::Cell::new(0usize);
        let f = |t: f64| {
            calls.set(calls.get() + 1);
            25.0 * (std::f64::consts::TAU * 2.0 * t).sin() + if t < 0.4 { 0.0 } else { 8.0 * t }
        };
        let fixed = [0.4];
        let curves = |fit: Fit| {
            [0.3, 0.03].map(|budget| Curve {
                fit,
                corners: &fixed,
                ..placed_curve(&f, &fixed, budget)
            })
        };
        let all: Vec<Curve> = [Fit::Cubic, Fit::Linear]
            .into_iter()
            .flat_map(curves)
            .collect();
        calls.set(0);
        let alone: Vec<Vec<Key>> = all.iter().map(fewest_placed).collect();
        let alone_calls = calls.get();
        for order in [[0, 1, 2, 3], [3, 2, 1, 0]] {
            let grid = CheckGrid::default();
            calls.set(0);
            for i in order {
                assert_eq!(fewest_placed_on(&all[i], &grid).keys, alone[i], "fit {i}");
            }
            let checks = grid.0.borrow().iter().filter(|v| v.is_some()).count();
            // each check time once, plus the end keys' slopes and values
            assert!(
                calls.get() < alone_calls / 2,
                "{} evaluations shared, {alone_calls} alone",
                calls.get()
            );
            assert!(checks <= PLACE_GRID * PLACE_CHECKS + 1 && checks > 1000);
        }
    }

    /// The fewest uniform keys checked on the shared grid: within the
    /// budget at every check time, the same keys with a grid already
    /// filled by a placed fit as with a fresh one, as many keys as the
    /// fewest uniform keys checked 32 times per key (within one step
    /// either way: the two check different times), and after the placed
    /// fit fewer curve evaluations than those.
    #[test]
    fn uniform_keys_on_the_shared_grid_keep_the_budget_and_read_less() {
        let calls = std::cell::Cell::new(0usize);
        // a corner at 0.4 (a fixed time)
        let f = |t: f64| {
            calls.set(calls.get() + 1);
            25.0 * (std::f64::consts::TAU * 2.0 * t).sin() + 8.0 * (t - 0.4).max(0.0)
        };
        let fixed = [0.4];
        for budget in [0.3, 0.05] {
            let c = Curve {
                fit: Fit::Linear,
                corners: &fixed,
                ..placed_curve(&f, &fixed, budget)
            };
            calls.set(0);
            let dense = fewest_uniform(&c);
            let dense_calls = calls.get();
            let fresh = fewest_uniform_on(&c, &CheckGrid::default());
            let shared = CheckGrid::default();
            fewest_placed_on(&c, &shared);
            calls.set(0);
            assert_eq!(fewest_uniform_on(&c, &shared), fresh, "{budget}");
            // after the placed fit, what is left to read
            assert!(calls.get() < dense_calls, "{} ≥ {dense_calls}", calls.get());
            let checks = PLACE_GRID * PLACE_CHECKS;
            for k in 0..=checks {
                let t = k as f64 / checks as f64;
                let e = (eval_keys(&fresh, t) - f(t)).abs();
                assert!(e <= budget, "{budget}: {e} at {t}");
            }
            let (a, b) = (fresh.len() as i64, dense.len() as i64);
            assert!(
                (a - b).abs() <= c.step as i64,
                "{budget}: {a} keys, {b} dense"
            );
        }
    }

    #[test]
    fn placed_keys_keep_the_budget_everywhere_and_go_where_the_curve_bends() {
        // a hold, then a quick swing: the hold costs few keys, the swing many
        let f = |t: f64| {
            if t < 0.5 {
                0.0
            } else {
                30.0 * (std::f64::consts::TAU * 4.0 * (t - 0.5)).sin().powi(2)
            }
        };
        for budget in [0.5, 0.05, 0.005] {
            let keys = fewest_placed(&placed_curve(&f, &[0.5], budget));
            assert_eq!((keys[0].t, keys[keys.len() - 1].t), (0.0, 1.0));
            assert!(keys.iter().any(|k| k.t == 0.5), "fixed times are keys");
            let in_hold = keys.iter().filter(|k| k.t < 0.5).count();
            assert!(in_hold <= 1, "{budget}: {in_hold} keys in the hold");
            // every written time on the grid or fixed
            for k in &keys {
                let g = k.t * PLACE_GRID as f64;
                assert!((g - g.round()).abs() < 1e-6 || k.t == 0.5, "{}", k.t);
            }
            // within the budget on a grid finer than the fitter's own
            for i in 0..=20_000 {
                let t = i as f64 / 20_000.0;
                let e = (eval_keys(&keys, t) - f(t)).abs();
                assert!(e <= budget * 1.02 + 1e-9, "{budget}: {e} at {t}");
            }
            // and fewer keys than the fewest uniform ones for the same budget
            let uniform = fewest_uniform(&placed_curve(&f, &[0.5], budget));
            assert!(
                keys.len() < uniform.len(),
                "{} vs {}",
                keys.len(),
                uniform.len()
            );
        }
    }

    /// Linear keys free within the band: on a smooth curve and on one with
    /// named corners, within the budget on a grid finer than their own
    /// checks, with at most 0.8 of the keys on the curve placed to the same
    /// budget below a few keys a period (a band takes about 1/√2 as many;
    /// the greedy reach finds 0.73 to 0.74 here); the ends and the corners
    /// on the curve, every other key time on the grid.
    #[test]
    fn banded_keys_keep_the_budget_with_fewer_keys_than_chords() {
        use std::f64::consts::TAU;
        let smooth = |t: f64| 30.0 * (TAU * t).sin() + 6.0 * (3.0 * TAU * t).cos();
        let kinked = |t: f64| 20.0 * (TAU * t).sin().abs() + 4.0 * (TAU * t).cos();
        type Named<'a> = (&'a str, &'a dyn Fn(f64) -> f64, &'a [f64]);
        let curves: [Named; 2] = [("smooth", &smooth, &[]), ("kinked", &kinked, &[0.5])];
        for (name, f, corners) in curves {
            for budget in [0.5, 0.05, 0.01] {
                let c = Curve {
                    corners,
                    fit: Fit::Linear,
                    ..placed_curve(f, corners, budget)
                };
                let banded = fewest_banded_on(&c, &CheckGrid::default())
                    .unwrap_or_else(|| panic!("{name} {budget}: no banded keys"));
                let chords = fewest_placed(&c);
                // (a few keys a period round off the gain)
                let most = if budget > 0.1 { 1.0 } else { 0.8 };
                assert!(
                    banded.len() as f64 <= most * chords.len() as f64,
                    "{name} {budget}: {} banded keys, {} on the curve",
                    banded.len(),
                    chords.len()
                );
                assert_eq!((banded[0].t, banded[banded.len() - 1].t), (0.0, 1.0));
                for k in &banded {
                    let g = k.t * PLACE_GRID as f64;
                    let fixed = k.t == 0.0 || k.t == 1.0 || corners.contains(&k.t);
                    assert!(fixed || (g - g.round()).abs() < 1e-6, "{name}: {}", k.t);
                    if fixed {
                        assert_eq!(k.value, quantize(f(k.t), 3), "{name}: {} on the curve", k.t);
                    }
                    assert_eq!(k.ease, Ease::Linear);
                }
                let off = banded
                    .iter()
                    .filter(|k| k.value != quantize(f(k.t), 3))
                    .count();
                assert!(
                    off > banded.len() / 2,
                    "{name} {budget}: {off} keys off the curve"
                );
                for i in 0..=20_000 {
                    let t = i as f64 / 20_000.0;
                    let e = (eval_keys(&banded, t) - f(t)).abs();
                    assert!(e <= budget * 1.02 + 1e-9, "{name} {budget}: {e} at {t}");
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
        /// Banded keys on any curve: a sum of three harmonics with random
        /// amplitudes and phases, plus a kink (|sin|) named as a corner or
        /// not, at any budget from a rounding's size up. Either no keys
        /// (a set that missed) or keys from 0 to 1 at strictly increasing
        /// times, linear, the ends and every named corner on the curve, and
        /// within the budget at every check time (read here from `f`
        /// itself, not from the grid the fit filled).
        #[test]
        fn banded_keys_are_ordered_and_within_the_budget_wherever_given(
            amps in proptest::collection::vec(-40.0..40.0f64, 3),
            phases in proptest::collection::vec(0.0..1.0f64, 3),
            kink in 0.0..20.0f64,
            kink_at in 0.05..0.95f64,
            named in proptest::bool::ANY,
            budget in 0.0004..2.0f64,
        ) {
            use std::f64::consts::TAU;
            let kink_at = quantize(kink_at, T_DECIMALS);
            let f = |t: f64| {
                (0..3)
                    .map(|i| amps[i] * (TAU * (i + 1) as f64 * (t + phases[i])).sin())
                    .sum::<f64>()
                    + kink * (std::f64::consts::PI * (t - kink_at)).sin().abs()
            };
            let corners = [kink_at];
            let named: &[f64] = if named { &corners } else { &[] };
            let c = Curve {
                corners: named,
                fit: Fit::Linear,
                ..placed_curve(&f, named, budget)
            };
            let banded = fewest_banded_on(&c, &CheckGrid::default());
            // (between named corners the curve is smooth: keys are found
            // where the band the rounding leaves, half a unit of the third
            // decimal off the budget, holds twice the most a chord of one
            // grid step misses the curve, a second difference over 8)
            let smooth = kink == 0.0 || named.contains(&kink_at);
            let h = 1.0 / PLACE_GRID as f64;
            let sag = (1..PLACE_GRID)
                .map(|k| {
                    let t = k as f64 * h;
                    (f(t - h) - 2.0 * f(t) + f(t + h)).abs() / 8.0
                })
                .fold(0.0, f64::max);
            let room = budget - 0.0005 > 2.0 * sag;
            proptest::prop_assert!(banded.is_some() || !smooth || !room, "{budget} px, {sag} px");
            if let Some(keys) = banded {
                proptest::prop_assert!(keys.len() >= 2);
                proptest::prop_assert_eq!((keys[0].t, keys[keys.len() - 1].t), (0.0, 1.0));
                for w in keys.windows(2) {
                    proptest::prop_assert!(w[0].t < w[1].t, "{} then {}", w[0].t, w[1].t);
                }
                for k in &keys {
                    proptest::prop_assert_eq!(k.ease, Ease::Linear);
                    if k.t == 0.0 || k.t == 1.0 || named.contains(&k.t) {
                        proptest::prop_assert_eq!(k.value, quantize(f(k.t), 3));
                    }
                }
                for &corner in named {
                    proptest::prop_assert!(keys.iter().any(|k| k.t == corner), "corner {corner}");
                }
                let checks = PLACE_GRID * PLACE_CHECKS;
                for i in 0..=checks {
                    let t = i as f64 / checks as f64;
                    let e = (eval_keys(&keys, t) - f(t)).abs();
                    proptest::prop_assert!(e <= budget, "{e} at {t}");
                }
            }
        }
    }

    /// `eval_keys_into` gives every time the bits `eval_keys` gives it:
    /// linear and cubic segments, times on and between keys, before the
    /// first segment's end and in the last, for a run starting anywhere.
    #[test]
    fn eval_keys_into_equals_eval_keys_at_every_time() {
        let f = |t: f64| 30.0 * (std::f64::consts::TAU * t).sin() + 7.0 * t;
        let times = [0.0, 0.125, 0.3, 0.31, 0.6, 1.0];
        for fit in [Fit::Linear, Fit::Cubic] {
            let keys = keys_at(&times, &f, fit);
            let mut us: Vec<f64> = (0..=1000).map(|k| k as f64 / 1000.0).collect();
            us.extend(times);
            us.sort_by(f64::total_cmp);
            for start in [0, 1, 124, 126, 300, 310, 999, us.len() - 1] {
                let mut out = vec![f64::NAN; us.len() - start];
                eval_keys_into(&keys, &us[start..], &mut out);
                for (&u, &got) in us[start..].iter().zip(&out) {
                    assert_eq!(got.to_bits(), eval_keys(&keys, u).to_bits(), "{fit:?} {u}");
                }
            }
        }
    }

    /// The span check that keeps the curve's values answers as the
    /// straightforward one, for spans of every length in any order (key
    /// times on and off the grid, at corners, both shapes), on a curve with
    /// a corner and a hold; every check shares one [`CheckGrid`], filled
    /// by the shapes and budgets before it.
    #[test]
    fn kept_span_checks_equal_the_straightforward_ones() {
        let f = |t: f64| {
            if t < 0.3 {
                5.0
            } else {
                5.0 + 20.0 * (std::f64::consts::TAU * 3.0 * (t - 0.3)).sin() * (t - 0.3)
            }
        };
        let corners = [0.0, 0.3];
        let mut next = crate::geom::unit_rng(0x9e3779b97f4a7c15u64);
        let grid = CheckGrid::default();
        for fit in [Fit::Cubic, Fit::Linear] {
            for budget in [0.5, 0.05, 0.005] {
                let c = Curve {
                    corners: &corners,
                    fit,
                    ..placed_curve(&f, &corners, budget)
                };
                let kept = SpanCheck::new(&c, &corners, &grid);
                let (mut yes, mut no) = (0, 0);
                for _ in 0..400 {
                    let a = quantize((next() * 1000.0).floor() / 1000.0, T_DECIMALS);
                    let b = if next() < 0.2 {
                        a + next() * (1.0 - a)
                    } else {
                        (a + (next() * 0.3).max(0.001)).min(1.0)
                    };
                    let a = if next() < 0.1 { 0.3 } else { a };
                    if b <= a {
                        continue;
                    }
                    let want = span_fits(&c, &corners, a, b);
                    assert_eq!(kept.fits(a, b), want, "{fit:?} {budget} {a} {b}");
                    if want { yes += 1 } else { no += 1 }
                }
                assert!(
                    yes > 10 && no > 10,
                    "{fit:?} {budget}: {yes} fit, {no} miss"
                );
            }
        }
    }

    #[test]
    fn keys_spanning_evaluate_as_all_keys() {
        let f = |t: f64| 30.0 * (std::f64::consts::TAU * t).sin() + 7.0 * t;
        let times = [0.0, 0.125, 0.3, 0.31, 0.6, 1.0];
        let us: Vec<f64> = (0..=1000).map(|k| k as f64 / 1000.0).collect();
        for fit in [Fit::Linear, Fit::Cubic] {
            let keys = keys_at(&times, &f, fit);
            // key times themselves, between them, and the ends
            for (lo, hi) in [
                (0.0, 1.0),
                (0.125, 0.3),
                (0.2, 0.31),
                (0.3, 0.3),
                (0.6, 1.0),
                (1.0, 1.0),
                (0.0, 0.0),
                (0.05, 0.9),
            ] {
                let run = us.partition_point(|&u| u < lo)..us.partition_point(|&u| u <= hi);
                let window = keys_spanning(&times, lo, hi);
                // the window's last key as a shorter list builds it (linear)
                let mut part = keys[window.clone()].to_vec();
                part.last_mut().expect("two keys at least").ease = Ease::Linear;
                let mut got = vec![f64::NAN; run.len()];
                eval_keys_into(&part, &us[run.clone()], &mut got);
                let mut want = vec![f64::NAN; run.len()];
                eval_keys_into(&keys, &us[run], &mut want);
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&got), bits(&want), "{fit:?} [{lo}, {hi}]");
            }
        }
    }

    #[test]
    fn written_len_counts_shared_blocks_once() {
        let key = |t: f64, value: f64| Key {
            t,
            value,
            ease: Ease::Linear,
        };
        let a = [key(0.0, 0.0), key(0.5, 10.0), key(1.0, 0.0)];
        let b = [key(0.0, 0.0), key(0.5, 10.0), key(1.0, 5.0)];
        // `to` joins `0%` in a: one comma and "100" instead of a block
        assert!(written_len(&a) < written_len(&b));
    }

    #[test]
    fn cubic_keys_reproduce_a_cubic_exactly() {
        let f = |t: f64| 40.0 * t * t * t - 60.0 * t * t + 20.0 * t + 5.0;
        let keys = keys_at(&[0.0, 0.3, 1.0], &f, Fit::Cubic);
        for k in 0..=100 {
            let u = k as f64 / 100.0;
            assert!((eval_keys(&keys, u) - f(u)).abs() < 2e-3, "u={u}");
        }
    }

    #[test]
    fn flat_segment_falls_back_to_linear() {
        let f = |t: f64| (std::f64::consts::TAU * t).sin();
        let keys = keys_at(&[0.0, 0.25, 0.5, 0.75, 1.0], &f, Fit::Cubic);
        assert!(keys.iter().all(|k| k.value.is_finite()));
        // no y blows up past the bound
        for k in &keys {
            if let Ease::CubicBezier(b) = k.ease {
                assert!(b[1].abs() <= MAX_ABS_Y && b[3].abs() <= MAX_ABS_Y);
            }
        }
    }

    #[test]
    fn sided_slopes_split_at_a_corner_and_agree_elsewhere() {
        // |sin(2πt)| bounces at t = 0.5: slope −2π from the left, +2π from the right
        let f = |t: f64| (std::f64::consts::TAU * t).sin().abs();
        let (l, r) = sided_slopes(&f, 0.5);
        assert!((l + std::f64::consts::TAU).abs() < 1e-6, "{l}");
        assert!((r - std::f64::consts::TAU).abs() < 1e-6, "{r}");
        // at the loop boundary the curve is read across the wrap
        let (l0, r0) = sided_slopes(&f, 0.0);
        assert!(
            (l0 + std::f64::consts::TAU).abs() < 1e-6 && (r0 - std::f64::consts::TAU).abs() < 1e-6
        );
        for t in [0.1, 0.3, 0.7] {
            let (l, r) = sided_slopes(&f, t);
            assert!(
                (l - slope(&f, t)).abs() < 1e-6 && (r - slope(&f, t)).abs() < 1e-6,
                "{t}"
            );
        }
    }

    /// A cusp, the shape of a clamped limb's knee where its target leaves
    /// its reach (held straight on one side, turning as the square root of
    /// the time on the other), reads as an infinite slope on its steep
    /// side: at any scale, on either side, falling or rising, and where
    /// the corner key (a written time) sits a little off the cusp; the
    /// flat side stays finite where the key is not past the cusp into the
    /// steep side (there both sides are steep); a smooth side and a kink
    /// stay finite.
    #[test]
    fn sided_slopes_are_infinite_at_a_cusp_and_finite_elsewhere() {
        let c = 0.4;
        for scale in [0.5, 30.0, -200.0] {
            for off in [0.0, 3e-7, -3e-7] {
                let key = c + off;
                // steep after the cusp, flat before
                let after = move |t: f64| scale * (t - c).max(0.0).sqrt();
                let (l, r) = sided_slopes(&after, key);
                assert!(
                    r.is_infinite() && r.signum() == scale.signum(),
                    "{scale}: {r}"
                );
                if off <= 0.0 {
                    assert!(l.is_finite() && l.abs() < 1.0, "{scale} {key}: {l}");
                }
                // steep before the cusp, flat after
                let before = move |t: f64| scale * (c - t).max(0.0).sqrt();
                let (l, r) = sided_slopes(&before, key);
                assert!(
                    l.is_infinite() && l.signum() == -scale.signum(),
                    "{scale}: {l}"
                );
                if off >= 0.0 {
                    assert!(r.is_finite() && r.abs() < 1.0, "{scale} {key}: {r}");
                }
            }
        }
        // a kink a hair beside the key (a corner written to the
        // microsecond): each side's own slope, whatever the two are (the
        // quotient of a stencil that crosses the kink, taken as it was,
        // read several units for a flat side and a positive slope for −5)
        let c = 0.4700874;
        for (a, b) in [(100.0, 0.0), (200.0, -5.0), (-50.0, 3.0), (0.0, 80.0)] {
            let kink = move |t: f64| if t < c { a * (t - c) } else { b * (t - c) };
            for key in [0.470087, 0.470088] {
                let (l, r) = sided_slopes(&kink, key);
                assert!(
                    (l - a).abs() < 1e-3 && (r - b).abs() < 1e-3,
                    "{a} {b} at {key}: {l} {r}"
                );
            }
        }
        // a kink of finite slopes, and a smooth curve, read as they are
        let kink = |t: f64| (std::f64::consts::TAU * t).sin().abs() * 40.0;
        let (l, r) = sided_slopes(&kink, 0.5);
        assert!(l.is_finite() && r.is_finite() && l < 0.0 && r > 0.0);
        let smooth = |t: f64| 1e-7 * (std::f64::consts::TAU * t).sin();
        for t in [0.0, 0.25, 0.3] {
            let (l, r) = sided_slopes(&smooth, t);
            assert!((l - r).abs() < 1e-9, "{t}: {l} {r}");
        }
    }

    /// A segment beside a key with an infinite slope is written as steep
    /// as it may be while staying within its keys' values (y1 = 1 leaving
    /// the key, y2 = 0 arriving), rising or falling; so a cusp's segments
    /// never bulge past their keys, however short the segment.
    #[test]
    fn an_infinite_slope_is_written_as_steep_as_the_segment_allows() {
        for (dv, m) in [(2.0, f64::INFINITY), (-2.0, f64::NEG_INFINITY)] {
            for dt in [0.001, 0.3] {
                let sided = [(0.0, 5.0, m), (dv, 0.0, 0.0)];
                let keys = keys_from_sided(&[0.0, dt], &sided, Fit::Cubic, DEG_DECIMALS);
                assert_eq!(keys[0].ease, Ease::CubicBezier([0.3333, 1.0, 0.6667, 1.0]));
                let sided = [(0.0, 0.0, 0.0), (dv, m, 5.0)];
                let keys = keys_from_sided(&[0.0, dt], &sided, Fit::Cubic, DEG_DECIMALS);
                assert_eq!(keys[0].ease, Ease::CubicBezier([0.3333, 0.0, 0.6667, 0.0]));
                for k in 0..=50 {
                    let v = eval_keys(&keys, dt * k as f64 / 50.0);
                    assert!(v * dv.signum() >= -1e-12 && v.abs() <= dv.abs() + 1e-12);
                }
            }
        }
    }

    #[test]
    fn a_key_at_a_corner_reproduces_both_sides_exactly() {
        // two cubics meeting at 0.4 with different slopes there
        let f = |t: f64| {
            let s = t - 0.4;
            if s <= 0.0 {
                10.0 * t * t * t + 5.0 * t
            } else {
                2.64 - 30.0 * s + 50.0 * s * s + 40.0 * s * s * s
            }
        };
        let times = [0.0, 0.4, 1.0];
        let sided: Vec<(f64, f64, f64)> = times
            .iter()
            .map(|&t| {
                let (l, r) = sided_slopes(&f, t);
                (f(t), l, r)
            })
            .collect();
        let keys = keys_from_sided(&times, &sided, Fit::Cubic, DEG_DECIMALS);
        for k in 0..=100 {
            let u = k as f64 / 100.0;
            assert!((eval_keys(&keys, u) - f(u)).abs() < 2e-3, "u={u}");
        }
    }

    #[test]
    fn extrema_of_a_sine_are_found() {
        let f = |t: f64| (std::f64::consts::TAU * t).sin();
        let e = extrema(&f);
        assert_eq!(e.len(), 2, "{e:?}");
        assert!((e[0] - 0.25).abs() < 1e-5 && (e[1] - 0.75).abs() < 1e-5);
    }

    /// A bob-like curve with corners (`|sin 2πt|`, kinks at 0 and ½):
    /// with the corners as keys and one-sided slopes it meets a tight
    /// budget with few keys; with central slopes at the same times it
    /// cannot (the kink's averaged slope bends both neighbouring segments).
    #[test]
    fn corners_with_one_sided_slopes_meet_the_budget_with_few_keys() {
        let f = |t: f64| 3.0 * (std::f64::consts::TAU * t).sin().abs();
        let fixed = [0.0, 0.25, 0.5, 0.75];
        let fit = |corners: &[f64]| {
            fewest_uniform(&Curve {
                f: &f,
                fixed: &fixed,
                corners,
                step: 4,
                budget: 0.01,
                max_keys: 256,
                clamp_y: false,
                decimals: 3,
                fit: Fit::Cubic,
            })
        };
        let error = |keys: &[Key]| {
            (0..=4000)
                .map(|k| {
                    let t = k as f64 / 4000.0;
                    (eval_keys(keys, t) - f(t)).abs()
                })
                .fold(0.0, f64::max)
        };
        let sided = fit(&[0.0, 0.5]);
        assert!(error(&sided) <= 0.01, "{}", error(&sided));
        assert!(sided.len() <= 16, "{} keys", sided.len());
        let central = fit(&[]);
        assert!(
            central.len() > 2 * sided.len() || error(&central) > 0.01,
            "{} keys, error {}",
            central.len(),
            error(&central)
        );
    }

    fn wave(t: f64) -> f64 {
        20.0 * (std::f64::consts::TAU * t).sin() + 5.0 * (std::f64::consts::TAU * 3.0 * t).cos()
    }

    fn curve<'a>(f: &'a dyn Fn(f64) -> f64, fixed: &'a [f64], fit: Fit) -> Curve<'a> {
        Curve {
            f,
            fixed,
            corners: &[],
            step: 4,
            budget: 0.05,
            max_keys: 1024,
            clamp_y: false,
            decimals: 3,
            fit,
        }
    }

    fn max_error(keys: &[Key], f: &dyn Fn(f64) -> f64) -> f64 {
        (0..=4000)
            .map(|k| {
                let t = k as f64 / 4000.0;
                (eval_keys(keys, t) - f(t)).abs()
            })
            .fold(0.0, f64::max)
    }

    /// `uniform_keys` writes exactly n uniform keys of the asked shape,
    /// ignoring the fixed times; more keys, less error.
    #[test]
    fn uniform_keys_are_n_uniform_keys_of_the_asked_shape() {
        let fixed = extrema(&wave);
        for fit in [Fit::Linear, Fit::Cubic] {
            let mut last = f64::INFINITY;
            for n in [4, 7, 16, 64] {
                let keys = uniform_keys(&curve(&wave, &fixed, fit), n);
                assert_eq!(keys.len(), n + 1);
                for (k, t) in keys.iter().zip(uniform_times(n)) {
                    assert_eq!(k.t, t);
                }
                let cubic = keys.iter().any(|k| matches!(k.ease, Ease::CubicBezier(_)));
                assert_eq!(cubic, fit == Fit::Cubic, "{fit:?} {n}");
                let e = max_error(&keys, &wave);
                assert!(e < last, "{fit:?} {n}: {e} after {last}");
                last = e;
            }
        }
    }

    /// `placed_keys` keeps within n distinct keys, the fixed times among them.
    #[test]
    fn placed_keys_hold_the_budget_and_the_fixed_times() {
        let fixed = extrema(&wave);
        for n in [3, 6, 10, 24] {
            let keys = placed_keys(&curve(&wave, &fixed, Fit::Cubic), n);
            assert!(keys.len() <= n + 1, "{n}: {} keys", keys.len());
            if fixed.len() < n {
                for e in &fixed {
                    let e = quantize(*e, T_DECIMALS);
                    assert!(keys.iter().any(|k| k.t == e), "{n}: {e} missing");
                }
            }
        }
    }

    /// On a key budget `placed_keys` spends the keys where the curve bends:
    /// on a curve that turns fast over a tenth of the period and slowly
    /// elsewhere it misses under half what its extrema with uniform keys
    /// beside them miss, in both shapes and at every budget tried, within
    /// `n` keys; and on any curve it misses no more than those (the wave's
    /// bends are spread over the period).
    #[test]
    fn placed_keys_go_where_the_curve_bends_within_the_budget() {
        let fast =
            |t: f64| 40.0 * ((t - 0.3) * 40.0).tanh() + 3.0 * (std::f64::consts::TAU * t).sin();
        for (f, must_halve) in [(&fast as &dyn Fn(f64) -> f64, true), (&wave, false)] {
            let fixed = extrema(f);
            for fit in [Fit::Linear, Fit::Cubic] {
                let c = curve(f, &fixed, fit);
                for n in [6, 10, 16, 24] {
                    let keys = placed_keys(&c, n);
                    assert!(keys.len() <= n + 1, "{fit:?} {n}: {} keys", keys.len());
                    let (placed, even) = (max_error(&keys, f), max_error(&spread_keys(&c, n), f));
                    assert!(placed <= even * 1.01, "{fit:?} {n}: {placed} vs {even}");
                    if must_halve {
                        assert!(placed < 0.5 * even, "{fit:?} {n}: {placed} vs {even}");
                    }
                }
            }
        }
    }

    /// `fewest_uniform` with linear segments meets its budget, with more
    /// keys than cubic needs.
    #[test]
    fn fewest_uniform_linear_meets_the_budget() {
        let fixed = extrema(&wave);
        let lin = fewest_uniform(&curve(&wave, &fixed, Fit::Linear));
        let cub = fewest_uniform(&curve(&wave, &fixed, Fit::Cubic));
        assert!(max_error(&lin, &wave) <= 0.05 + 1e-3);
        assert!(lin.iter().all(|k| k.ease == Ease::Linear));
        assert!(lin.len() > cub.len(), "{} vs {}", lin.len(), cub.len());
    }

    /// smil: keySplines stay within [0, 1] after the clamp, and the budget
    /// still holds (segments run between extrema, so only dust is trimmed).
    #[test]
    fn clamped_splines_stay_in_unit_range_and_within_budget() {
        let f = |t: f64| {
            20.0 * (std::f64::consts::TAU * t).sin() + 5.0 * (std::f64::consts::TAU * 3.0 * t).cos()
        };
        let fixed = extrema(&f);
        let keys = fewest_uniform(&Curve {
            f: &f,
            fixed: &fixed,
            corners: &[],
            step: 4,
            budget: 0.005,
            max_keys: 512,
            clamp_y: true,
            decimals: 3,
            fit: Fit::Cubic,
        });
        for k in &keys {
            if let Ease::CubicBezier(b) = k.ease {
                assert!(
                    (0.0..=1.0).contains(&b[1]) && (0.0..=1.0).contains(&b[3]),
                    "{b:?}"
                );
            }
        }
        for k in 0..=4000 {
            let t = k as f64 / 4000.0;
            assert!((eval_keys(&keys, t) - f(t)).abs() <= 0.006, "t = {t}");
        }
    }
}
