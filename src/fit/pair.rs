//! The joint keyer of a two-bone pair: the upper and the lower group's
//! turns keyed together, judged by where their nested rotations put the end
//! (a leg's ankle, an arm's hand) and, where asked, the joint, against the
//! ideal pose. One problem for every rig kind: a cycling leg
//! ([`crate::bake`]) and an IK entry of a bone tree ([`crate::figure`]) each
//! describe their pair as a [`PairMotion`].
//!
//! Groups are drawn in a *drawn pose*; the upper group turns about the drawn
//! root by `a1(t)`, the lower one, nested in it, about the drawn joint by
//! `a2(t)` (its turn relative to the upper's). Errors are taken in the
//! frame of the pair's parent: a parent that turns carries the pair and its
//! error alike.

use super::{BLOCK, Estimate, FIT_SAMPLES, Fit, Problem, block_max};
use crate::clip::Key;
use crate::fit;
use crate::geom::{BEZIER_DECIMALS, DEG_DECIMALS, Vec2, Vec2Ext, quantize};
use std::cell::RefCell;

/// Fewest fitter samples inside a cubic segment for its least-squares
/// ease ([`Pair`]'s `segment_ease`): a few samples pin the two inner values
/// at the samples only, and a segment that short sits beside a cusp.
const LEAST_SQUARES_SAMPLES: usize = 8;

/// A cubic segment of a key set: (set, its first and last key times in
/// millionths, their values' bits).
type SegmentKey = (usize, i64, i64, u64, u64);

/// What a [`Pair`] is fitted to.
pub struct PairMotion<'a> {
    /// The exact ideal turns `(a1, a2)` (rad) at any t in [0, 1]: keys'
    /// values and slopes, and the extrema keys start from.
    pub local: Box<dyn Fn(f64) -> (f64, f64) + 'a>,
    /// The ideal pose at each fitter time `k / FIT_SAMPLES`, k = 0..=N.
    pub samples: Vec<PairSample>,
    /// The exact root (the lever arms' pivot).
    pub root: Vec2,
    /// The drawn root, joint and end, as written.
    pub drawn: [Vec2; 3],
    /// Times where the turns have corners.
    pub corners: Vec<f64>,
    /// Whether the joint's error counts as well as the end's.
    pub judge_joint: bool,
    /// keySplines' y clamped into [0, 1] (the smil route's rule).
    pub clamp_y: bool,
}

/// A key's exact value (deg) and slopes from the left and the right (deg
/// per period; 0 for a linear key, which reads none).
type KeySample = (f64, f64, f64);

/// The ideal pose of a pair at one fitter time, in the drawn frame.
#[derive(Debug, Clone, Copy)]
pub struct PairSample {
    /// The turns `(a1, a2)`, rad.
    pub local: (f64, f64),
    pub joint: Vec2,
    /// Where the end should be (a clamped pair's unreachable target).
    pub end: Vec2,
}

/// Fitting a two-bone pair: two key sets (the upper and the lower group's
/// turns) judged jointly by the end position their nested rotations produce
/// on the drawn pose (and, with [`PairMotion::judge_joint`], the joint's).
pub struct Pair<'a> {
    /// The exact ideal turns (rad) at any t.
    local_at: Box<dyn Fn(f64) -> (f64, f64) + 'a>,
    fit: Fit,
    pub(crate) ts: Vec<f64>,
    /// Ideal local angles (deg) at `ts`.
    pub(crate) ideal: [Vec<f64>; 2],
    /// Lever arms at `ts`: |ankle − hip| and |ankle − knee| of the ideal pose.
    pub(crate) arms: Vec<(f64, f64)>,
    /// Key times where the ideal turns have corners: a key there takes
    /// one-sided slopes.
    corners: Vec<f64>,
    /// The joint's error counts too (else the end's alone).
    judge_joint: bool,
    /// keySplines' y clamped into [0, 1] (the smil route's rule).
    clamp_y: bool,
    /// Linear keys lifted off the curve by half their segments' sag
    /// ([`Pair::lifted`]).
    lift: bool,
    /// The local angles (rad) at t = 0 and t = 1, from the first and last
    /// samples: every slope ([`fit::slope`]) reads both ends of the curve.
    ends: [(f64, f64); 2],
    /// Per sample: the ideal local angles (rad) and the drawn thigh and
    /// shin vectors turned by them, and the drawn ankle so turned minus the
    /// target (the rounding of the drawn pose, or a clamped leg's gap).
    /// The error of written angles `I + δ` is then
    /// `thigh·(cos δ₁ − 1) + ⊥thigh·sin δ₁ + shin·(cos δ₁₂ − 1) + ⊥shin·sin δ₁₂ + gap`,
    /// with small δ: no full-angle sine per trial sample.
    pub(crate) turned: Vec<Turned>,
    /// `turned`'s thigh and shin angles (rad) and gap lengths (px) as three
    /// plain arrays: what [`Self::uppers`] reads, sample after sample.
    bound_terms: [Vec<f64>; 3],
    /// Drawn thigh and shin lengths, px, a little over (an upper bound's
    /// factors: a bone turned by δ moves its end by at most length × |δ|).
    lengths: (f64, f64),
    /// (set, key time in millionths) → exact (value deg, slopes deg per
    /// period from the left and the right).
    cache: RefCell<fnv::FnvHashMap<(usize, i64), KeySample>>,
    /// Segment → its ease ([`Self::segment_ease`]).
    eases: RefCell<fnv::FnvHashMap<SegmentKey, crate::clip::Ease>>,
    /// Time (bits) → local angles (rad), for [`Problem::initial`]: both
    /// sets' extrema search the same grid, each time solved once.
    grid: RefCell<crate::geom::TimeMap<(f64, f64)>>,
    /// The last completed estimate's key times, written angles (deg) and
    /// errors per sample: a trial re-evaluates only the samples its changed
    /// keys reach, measured against that base.
    last: RefCell<Option<State>>,
    /// Per sample, the factor [`Problem::mask`] weighs its error by (its
    /// square the squared error).
    weights: fit::Weights,
}

/// The ideal pose of a css leg at one fitter sample (see [`Pair`]).
pub(crate) struct Turned {
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
struct Samples {
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

struct State {
    /// Key times of the base: the last estimate that completed.
    times: Vec<Vec<f64>>,
    /// The base's values at every sample.
    base: Samples,
    /// A trial's values at the samples it changed; swapped with `base`
    /// when the trial completes (instead of copying them over). A trial cut
    /// short by its bound leaves the base as it was (the caller goes back
    /// to it).
    trial: Samples,
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

impl<'a> Pair<'a> {
    /// The problem of `motion`'s pair with `fit` segments.
    pub fn new(motion: PairMotion<'a>, fit: Fit) -> Self {
        let PairMotion {
            local,
            samples,
            root,
            drawn: [hip, knee0, ankle0],
            corners,
            judge_joint,
            clamp_y,
        } = motion;
        assert_eq!(samples.len(), FIT_SAMPLES + 1, "one sample per fitter time");
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        let ideal: [Vec<f64>; 2] = [
            samples.iter().map(|s| s.local.0.to_degrees()).collect(),
            samples.iter().map(|s| s.local.1.to_degrees()).collect(),
        ];
        let turned = (0..ts.len())
            .map(|i| {
                let (a1, a2) = (ideal[0][i].to_radians(), ideal[1][i].to_radians());
                let thigh = (knee0 - hip).turned(a1);
                let shin = (ankle0 - knee0).turned(a1 + a2);
                Turned {
                    thigh_rad: a1,
                    shin_rad: a1 + a2,
                    thigh,
                    shin,
                    // the reachable end: what keys can be fitted to (a pair
                    // clamped out of reach keeps its gap whatever the keys)
                    gap: hip + thigh + shin - samples[i].end,
                    gap_len: (hip + thigh + shin - samples[i].end).len(),
                }
            })
            .collect::<Vec<Turned>>();
        let bound_terms = [
            turned.iter().map(|p| p.thigh_rad).collect(),
            turned.iter().map(|p| p.shin_rad).collect(),
            turned.iter().map(|p| p.gap_len).collect(),
        ];
        Pair {
            local_at: local,
            fit,
            ideal,
            turned,
            bound_terms,
            corners,
            judge_joint,
            clamp_y,
            lift: false,
            ends: [samples[0].local, samples[samples.len() - 1].local],
            lengths: (
                (knee0 - hip).len() * (1.0 + 1e-9),
                (ankle0 - knee0).len() * (1.0 + 1e-9),
            ),
            arms: samples
                .iter()
                .map(|s| (s.end.dist(root), s.end.dist(s.joint)))
                .collect(),
            ts,
            cache: RefCell::default(),
            eases: RefCell::default(),
            grid: RefCell::default(),
            last: RefCell::new(None),
            weights: fit::Weights::default(),
        }
    }

    /// The same problem with linear keys lifted off the curve: each key's
    /// value is the ideal angle less a sixteenth of the second difference
    /// of the ideal angles at it and its two neighbours (periodic across
    /// the seam), a key on a corner left on the curve. A straight segment
    /// between two points of a curve misses it on one side only, by up to
    /// an eighth of that difference (`f''·h²/8` for keys `h` apart);
    /// lifted by half of that, the keys miss it on both sides by half as
    /// much, so the same error bound takes about 1/√2 as many keys. For
    /// keys evenly spaced over a loop (`fit::uniform_floor`): a key's value
    /// reads its neighbours, so an estimate re-evaluates every sample.
    pub fn lifted(mut self) -> Self {
        assert_eq!(self.fit, Fit::Linear, "only linear keys are lifted");
        self.lift = true;
        self
    }

    /// The ideal turns (rad) at t, those at exactly 0 and 1 kept from the
    /// samples (the same solves).
    pub fn local(&self, t: f64) -> (f64, f64) {
        if t.to_bits() == 0f64.to_bits() {
            return self.ends[0];
        }
        if t.to_bits() == 1f64.to_bits() {
            return self.ends[1];
        }
        (self.local_at)(t)
    }

    /// Keys for a candidate set, with exact values and slopes memoised per
    /// key time and cubic segments' eases (`segment_ease`) per
    /// segment (the fitter revisits the same times many times).
    pub fn keys(&self, times: &[Vec<f64>], set: usize) -> Vec<Key> {
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
        let samples: Vec<KeySample> = times[set][window.clone()]
            .iter()
            .map(|&t| {
                let key = (set, (t * 1e6).round() as i64);
                *cache.entry(key).or_insert_with(|| {
                    let v = f(t);
                    // (a linear key reads no slope: three solves fewer)
                    if self.fit == Fit::Linear {
                        (v, 0.0, 0.0)
                    } else if self.at_corner(t) {
                        let (a, b) = fit::sided_slopes(&f, t);
                        (v, a, b)
                    } else {
                        let m = fit::slope(&f, t);
                        (v, m, m)
                    }
                })
            })
            .collect();
        let mut keys = fit::keys_from_sided(
            &times[set][window.clone()],
            &samples,
            self.fit,
            DEG_DECIMALS,
        );
        if self.lift {
            let all = &times[set];
            let n = all.len();
            // the exact value at t (memoised as the keys' own)
            let mut exact = |t: f64| {
                let key = (set, (t * 1e6).round() as i64);
                cache.entry(key).or_insert_with(|| (f(t), 0.0, 0.0)).0
            };
            // the whole turns a loop ends on
            let turns = exact(1.0) - exact(0.0);
            for (k, j) in window.clone().enumerate() {
                if n < 3 || self.at_corner(all[j]) {
                    continue;
                }
                // neighbours across the seam: t = 0 and t = 1 are one key
                let (prev, back) = if j == 0 { (n - 2, 1.0) } else { (j - 1, 0.0) };
                let (next, ahead) = if j + 1 == n { (1, 1.0) } else { (j + 1, 0.0) };
                let (t0, t1, t2) = (all[prev] - back, all[j], all[next] + ahead);
                let (v0, v1, v2) = (
                    exact(all[prev]) - back * turns,
                    exact(t1),
                    exact(all[next]) + ahead * turns,
                );
                let (h1, h2) = (t1 - t0, t2 - t1);
                // f'' from the three points, times the mean squared step
                let f2 = 2.0 * ((v2 - v1) / h2 - (v1 - v0) / h1) / (h1 + h2);
                let sag = f2 * (h1 * h1 + h2 * h2) / 2.0;
                keys[k].value = quantize(v1 - sag / 16.0, DEG_DECIMALS);
            }
        }
        if self.clamp_y {
            fit::clamp_splines(&mut keys);
        } else if self.fit == Fit::Cubic {
            drop(cache);
            let mut eases = self.eases.borrow_mut();
            for i in 0..keys.len().saturating_sub(1) {
                let (a, b) = (&keys[i], &keys[i + 1]);
                let memo = (
                    set,
                    (a.t * 1e6).round() as i64,
                    (b.t * 1e6).round() as i64,
                    a.value.to_bits(),
                    b.value.to_bits(),
                );
                let ease = *eases
                    .entry(memo)
                    .or_insert_with(|| self.segment_ease(set, a, b));
                keys[i].ease = ease;
            }
        }
        keys
    }

    /// The ease of the segment from key `a` to key `b` (cubic, values as
    /// written): the Bézier whose inner values fit the ideal angles at the
    /// fitter's samples inside the segment best (least squares; the two
    /// outer values are the keys'). Where that is not written (a flat
    /// segment, one across a corner or with fewer than
    /// [`LEAST_SQUARES_SAMPLES`] samples, a y past [`fit::MAX_ABS_Y`]) the
    /// Hermite one `a` holds (slopes of the ideal curve at the keys); beside a kink (slopes
    /// from either side of a key that differ, as at a clamped limb's cusp)
    /// whichever of the two is nearer the samples at its worst.
    ///
    /// Least squares, not the Hermite slopes, because a segment's slopes
    /// need not be the curve's at its ends (a css key's timing function
    /// is its own segment's): fitting the whole segment lowers its largest
    /// error for the same keys, so fewer keys meet a tolerance (the seed
    /// cyclist's thigh and shin take 7 and 5 keys with Hermite segments,
    /// 5 and 4 so).
    fn segment_ease(&self, set: usize, a: &Key, b: &Key) -> crate::clip::Ease {
        use crate::clip::Ease;
        let hermite = a.ease;
        let dv = b.value - a.value;
        let (lo, hi) = (
            self.ts.partition_point(|&t| t <= a.t),
            self.ts.partition_point(|&t| t < b.t),
        );
        // (beside a kink, a key whose slopes from either side differ, the
        // Hermite segment takes the side's own slope, as steep as the
        // segment allows at a cusp, which a fit of the samples may round
        // off: there the nearer of the two is kept, see below)
        let kink = |t: f64| {
            let cache = self.cache.borrow();
            cache
                .get(&(set, (t * 1e6).round() as i64))
                .is_some_and(|&(_, l, r)| {
                    !(l.is_finite() && r.is_finite())
                        || (l - r).abs() > 1e-6 * (1.0 + l.abs() + r.abs())
                })
        };
        // (a segment across a corner, or with too few samples to pin two
        // values between them, keeps the Hermite one)
        let across = self.corners.iter().any(|&c| c > a.t && c < b.t);
        if dv == 0.0 || hi < lo + LEAST_SQUARES_SAMPLES || across {
            return hermite;
        }
        let kinked = kink(a.t) || kink(b.t);
        let dt = b.t - a.t;
        // normal equations of y(s) = 3u²s·y1 + 3us²·y2 + s³ for the
        // normalised values (ideal − a) / dv
        let (mut s11, mut s12, mut s22, mut r1, mut r2) = (0.0, 0.0, 0.0, 0.0, 0.0);
        for (&t, &v) in self.ts[lo..hi].iter().zip(&self.ideal[set][lo..hi]) {
            let s = (t - a.t) / dt;
            let u = 1.0 - s;
            let (b1, b2) = (3.0 * u * u * s, 3.0 * u * s * s);
            let r = (v - a.value) / dv - s * s * s;
            s11 += b1 * b1;
            s12 += b1 * b2;
            s22 += b2 * b2;
            r1 += b1 * r;
            r2 += b2 * r;
        }
        let det = s11 * s22 - s12 * s12;
        let y1 = quantize((r1 * s22 - r2 * s12) / det, BEZIER_DECIMALS);
        let y2 = quantize((s11 * r2 - s12 * r1) / det, BEZIER_DECIMALS);
        if !(y1.abs() <= fit::MAX_ABS_Y && y2.abs() <= fit::MAX_ABS_Y) {
            return hermite;
        }
        let third = |x: f64| quantize(x, BEZIER_DECIMALS);
        let fitted = Ease::CubicBezier([third(1.0 / 3.0), y1, third(2.0 / 3.0), y2]);
        if !kinked {
            return fitted;
        }
        // beside a kink, whichever of the two is nearer the samples at
        // its worst
        let worst = |ease: Ease| {
            let seg = [Key { ease, ..*a }, *b];
            (self.ts[lo..hi].iter().zip(&self.ideal[set][lo..hi]))
                .map(|(&t, &v)| (fit::eval_keys(&seg, t) - v).abs())
                .fold(0.0f64, f64::max)
        };
        if worst(fitted) < worst(hermite) {
            fitted
        } else {
            hermite
        }
    }

    /// Whether a key at t sits on a corner (t = 1 on one at 0).
    fn at_corner(&self, t: f64) -> bool {
        self.corners
            .iter()
            .any(|&k| (k - t).abs() < 1e-9 || (k == 0.0 && t == 1.0))
    }

    /// The thigh's share of the ankle error at sample `i` for a written
    /// thigh angle `a1` (rad).
    pub(crate) fn thigh_share(&self, i: usize, a1: f64) -> Vec2 {
        let p = &self.turned[i];
        let (s, c) = crate::geom::small_sin_cos_m1(a1 - p.thigh_rad);
        p.thigh * c + Vec2::new(-p.thigh.y, p.thigh.x) * s
    }

    /// The squared ankle error at sample `i` from the thigh's share and the
    /// written angles (rad): rotate_about(a1, hip) · rotate_about(a2, knee0)
    /// applied to ankle0, minus the target; with [`PairMotion::judge_joint`]
    /// the larger of that and the knee's.
    pub(crate) fn error2(&self, i: usize, thigh: Vec2, a1: f64, a2: f64) -> f64 {
        let p = &self.turned[i];
        let (s, c) = crate::geom::small_sin_cos_m1(a1 + a2 - p.shin_rad);
        let d = thigh + p.shin * c + Vec2::new(-p.shin.y, p.shin.x) * s + p.gap;
        let end = d.x * d.x + d.y * d.y;
        let error = if self.judge_joint {
            // the joint moves by the thigh's share alone
            end.max(thigh.x * thigh.x + thigh.y * thigh.y)
        } else {
            end
        };
        let f = self.weights.all().get(i).copied().unwrap_or(1.0);
        error * f * f
    }

    /// An upper bound of the ankle error at a sample whose ideal pose is
    /// `p` (px) for written
    /// angles `a1`, `a2` (rad), without trigonometry (what [`Self::uppers`]
    /// computes for a run of samples).
    #[cfg(test)]
    pub(crate) fn upper(&self, p: &Turned, a1: f64, a2: f64) -> f64 {
        (self.lengths.0 * (a1 - p.thigh_rad).abs()
            + self.lengths.1 * (a1 + a2 - p.shin_rad).abs()
            + p.gap_len)
            * (1.0 + 1e-9)
    }

    /// [`Self::upper`] at each sample of `range` for the written angles
    /// (deg) `thighs[range]` and `shins[range]`, into `out` (as long as the
    /// range): the same operations per sample, in a loop over plain arrays
    /// with no branch, which the compiler vectorises.
    pub(crate) fn uppers(
        &self,
        thighs: &[f64],
        shins: &[f64],
        range: std::ops::Range<usize>,
        out: &mut [f64],
    ) {
        let [th, sh, gaps] = &self.bound_terms;
        let (l1, l2) = self.lengths;
        let (r, r_start) = (range.clone(), range.start);
        let angles = thighs[r.clone()].iter().zip(&shins[r.clone()]);
        let terms = th[r.clone()].iter().zip(&sh[r.clone()]).zip(&gaps[r]);
        for (o, ((&a1, &a2), ((&t1, &t2), &gap))) in out.iter_mut().zip(angles.zip(terms)) {
            let (a1, a2) = (a1.to_radians(), a2.to_radians());
            *o = (l1 * (a1 - t1).abs() + l2 * (a1 + a2 - t2).abs() + gap) * (1.0 + 1e-9);
        }
        let weights = self.weights.all();
        if !weights.is_empty() {
            for (o, &w) in out.iter_mut().zip(&weights[r_start..]) {
                *o *= w;
            }
        }
    }

    /// Makes the base's sample `i` exact (its angles are always exact),
    /// writing the same into `trial` (which then still equals the base
    /// wherever it did, see [`State::stale`]).
    fn settle(&self, base: &mut Samples, trial: &mut Samples, i: usize) {
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
        base: &mut Samples,
        trial: &mut Samples,
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
    /// ([`State::stale`]; a share only where its sample is exact).
    #[cfg(test)]
    pub(crate) fn check_stale(&self) {
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
    /// [`State::stale`]); a sample whose upper bound is within `bound`
    /// and within the largest error already known to be reached keeps the
    /// bound, and is made exact later only if it could be the max.
    fn bounded(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        let n = self.ts.len();
        let mut last = self.last.borrow_mut();
        let fresh = last.is_none();
        let state = last.get_or_insert_with(|| {
            let zero = Samples {
                angles: [vec![0.0; n], vec![0.0; n]],
                thigh: vec![Vec2::new(0.0, 0.0); n],
                errors: vec![0.0; n],
                exact: vec![true; n],
            };
            State {
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
            if fresh || self.lift {
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
        let State {
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
        let fill = |trial: &mut Samples, range: std::ops::Range<usize>| {
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
        let errors_in = |trial: &mut Samples, range: std::ops::Range<usize>| {
            let Samples {
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
        fit::refresh_blocks(&base.errors, blocks, dirty.clone());
        // the first sample of the max: the first block holding it, then the
        // first sample in that block; an upper bound there is made exact
        // and the search repeated
        let (max, worst_i) = loop {
            let (max, top, i) = fit::first_max(&base.errors, blocks);
            let i = i.expect("the block's max is one of its samples");
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

impl Problem for Pair<'_> {
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

    fn mask(&self, spans: &[fit::Stuck]) -> bool {
        if self.weights.set(&self.ts, spans) {
            // (every error kept was weighed the old way)
            *self.last.borrow_mut() = None;
        }
        true
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
        // corners win over extrema found next to them
        let corners = &self.corners;
        let mut v = vec![0.0];
        v.extend(
            corners
                .iter()
                .copied()
                .filter(|&c| c > fit::MIN_GAP && c < 1.0 - fit::MIN_GAP),
        );
        v.extend(
            fit::extrema(&f)
                .into_iter()
                .filter(|e| corners.iter().all(|c| (c - e).abs() > fit::MIN_GAP)),
        );
        v.push(1.0);
        v.sort_by(f64::total_cmp);
        v.dedup_by(|a, b| (*a - *b).abs() < fit::MIN_GAP);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::Ease;
    use crate::fit::morph::MorphProblem;
    use crate::fit::{DEFAULT_TOLERANCE_PX, MAX_FIT_KEYS};
    use crate::geom::{LEN_DECIMALS, quantize, wrap_pi};
    use crate::solve::ik::{self, Knee, TwoBonePose};
    use std::f64::consts::{PI, TAU};

    /// The drawn end of [`pair`]'s lower bone: at a right angle to the
    /// upper one.
    const BENT: Vec2 = Vec2::new(60.0, 45.0);

    /// A pair drawn from (0, 0) to (60, 0) to `end` whose ideal turns are
    /// `f`, reached exactly (no gap, no rounding).
    fn pair<'a>(
        f: &'a dyn Fn(f64) -> (f64, f64),
        end: Vec2,
        corners: &[f64],
        judge_joint: bool,
        clamp_y: bool,
        fit: Fit,
    ) -> Pair<'a> {
        let drawn = [Vec2::new(0.0, 0.0), Vec2::new(60.0, 0.0), end];
        limb(f, drawn, drawn, corners, (judge_joint, clamp_y), fit)
    }

    /// A pair whose root, joint and end are `pose` at t = 0 and whose ideal
    /// turns are `f`: its ideal pose at each fitter time is `pose` turned by
    /// them (as a bone tree's IK entry builds it), and it is drawn as
    /// `written` (`pose` rounded as written leaves a gap of that rounding);
    /// the flags: whether the joint is judged, keySplines' y clamped.
    fn limb<'a>(
        f: &'a dyn Fn(f64) -> (f64, f64),
        pose: [Vec2; 3],
        written: [Vec2; 3],
        corners: &[f64],
        (judge_joint, clamp_y): (bool, bool),
        fit: Fit,
    ) -> Pair<'a> {
        let [root, joint, end] = pose;
        let samples = (0..=FIT_SAMPLES)
            .map(|k| {
                let a = f(k as f64 / FIT_SAMPLES as f64);
                let j = root + (joint - root).turned(a.0);
                PairSample {
                    local: a,
                    joint: j,
                    end: j + (end - joint).turned(a.0 + a.1),
                }
            })
            .collect();
        let motion = PairMotion {
            local: Box::new(f),
            samples,
            root,
            drawn: written,
            corners: corners.to_vec(),
            judge_joint,
            clamp_y,
        };
        Pair::new(motion, fit)
    }

    /// The error of written keys without shortcuts: both groups turned by
    /// the keys' values at every fitter time, against the ideal pose; the
    /// end's error, and with `judge_joint` the joint's too.
    fn reference(
        p: &Pair,
        (f, end): (&dyn Fn(f64) -> (f64, f64), Vec2),
        times: &[Vec<f64>],
        joint: bool,
    ) -> f64 {
        let keys = [p.keys(times, 0), p.keys(times, 1)];
        let j0 = Vec2::new(60.0, 0.0);
        let e0 = end - j0;
        let mut worst = 0.0f64;
        for &t in &p.ts {
            let (w1, w2) = (
                fit::eval_keys(&keys[0], t).to_radians(),
                fit::eval_keys(&keys[1], t).to_radians(),
            );
            let (i1, i2) = f(t);
            let (wj, ij) = (j0.turned(w1), j0.turned(i1));
            let (we, ie) = (wj + e0.turned(w1 + w2), ij + e0.turned(i1 + i2));
            worst = worst.max(we.dist(ie));
            if joint {
                worst = worst.max(wj.dist(ij));
            }
        }
        worst
    }

    /// With the joint judged, the estimate is the larger of the end's and
    /// the joint's errors, and without it the end's alone, for every shape
    /// of key set, on a bent pair and on one folded back on itself. Folded,
    /// with the lower bone turning a third as far again, the end's errors
    /// from the two keyed turns cancel: the joint's error is then the max.
    #[test]
    fn the_estimate_is_the_end_and_the_joint_as_asked() {
        let f = |t: f64| {
            let a = 0.6 * (TAU * t).sin() + 0.2 * (2.0 * TAU * t).sin();
            (a, a / 3.0)
        };
        let folded = Vec2::new(15.0, 0.0);
        let mut joint_max = 0;
        for end in [BENT, folded] {
            for joint in [false, true] {
                let p = pair(&f, end, &[], joint, false, Fit::Cubic);
                for n in [2, 3, 5, 8] {
                    let times = vec![fit::uniform_times(n), fit::uniform_times(n)];
                    let got = p.estimate(&times).max_px;
                    let want = reference(&p, (&f, end), &times, joint);
                    assert!((got - want).abs() < 1e-9, "{joint} {n}: {got} vs {want}");
                    let alone = reference(&p, (&f, end), &times, false);
                    if joint && got > 2.0 * alone {
                        joint_max += 1;
                    }
                }
            }
        }
        assert!(joint_max > 0, "the joint's error never was the max");
    }

    /// A corner of the ideal turns starts the key set, and a key there
    /// takes each side's own slope: few cubic keys then follow a curve
    /// with a kink closely, where two-sided slopes at the kink cannot.
    #[test]
    fn a_corner_is_a_key_with_one_sided_slopes() {
        // |sin 2πt| kinks at t = 0.5 (a V: falling into it, rising out)
        // and at 0 = 1
        let f = |t: f64| ((TAU * t).sin().abs() * 0.8, 0.0);
        // (keySplines clamped, as on the smil route: Hermite segments, the
        // css route's least squares fitting the kink from the samples)
        let sided = pair(&f, BENT, &[0.0, 0.5], true, true, Fit::Cubic);
        assert!(sided.initial(0).contains(&0.5), "{:?}", sided.initial(0));
        let smooth = pair(&f, BENT, &[], true, true, Fit::Cubic);
        let times = vec![fit::uniform_times(8), vec![0.0, 1.0]];
        let (a, b) = (
            sided.estimate(&times).max_px,
            smooth.estimate(&times).max_px,
        );
        assert!(a < 0.5, "one-sided slopes at the kink: {a} px");
        assert!(
            b > 4.0 * a,
            "two-sided slopes at the kink: {b} px vs {a} px"
        );
        // the segment out of the kink starts rising at the right slope
        // (y1 = m·Δt / 3Δv ≈ 0.33 here; a two-sided slope there is 0)
        let y1 = |p: &Pair| match p.keys(&times, 0)[4].ease {
            Ease::CubicBezier(b) => b[1],
            _ => f64::NAN,
        };
        assert!(y1(&sided) > 0.25, "{}", y1(&sided));
        assert!(y1(&smooth).abs() < 0.01, "{}", y1(&smooth));
    }

    /// Clamped keySplines stay within [0, 1] in y (the smil route's rule)
    /// where the same keys unclamped leave it (segments across extrema).
    #[test]
    fn clamped_splines_stay_in_the_unit_square() {
        let f = |t: f64| (0.7 * (TAU * t).sin(), 0.4 * (TAU * t + 1.0).cos());
        let times = vec![fit::uniform_times(3), fit::uniform_times(4)];
        let ys = |clamp: bool| -> Vec<f64> {
            let p = pair(&f, BENT, &[], true, clamp, Fit::Cubic);
            (0..2)
                .flat_map(|set| p.keys(&times, set))
                .filter_map(|k| match k.ease {
                    Ease::CubicBezier(b) => Some([b[1], b[3]]),
                    _ => None,
                })
                .flatten()
                .collect()
        };
        let inside = |y: &f64| (0.0..=1.0).contains(y);
        let (free, clamped) = (ys(false), ys(true));
        assert!(!free.iter().all(inside), "{free:?}");
        assert!(
            !clamped.is_empty() && clamped.iter().all(inside),
            "{clamped:?}"
        );
    }

    /// A cyclist's leg: thigh 128 and shin 112 from a hip at (352, 255),
    /// the ankle on a pedal circling a crank centre 68 right of the hip and
    /// 165 below it, radius 50 (the seed rig's), a turn per period from
    /// `phase` (rad), the knee solved by two-bone IK to the `knee` side.
    struct Pedal {
        knee: Knee,
        phase: f64,
        /// The pose at t = 0.
        zero: TwoBonePose,
    }

    impl Pedal {
        const HIP: Vec2 = Vec2::new(352.0, 255.0);

        fn new(knee: Knee, phase: f64) -> Self {
            let zero = Self::solve(knee, phase, 0.0);
            Pedal { knee, phase, zero }
        }

        /// The pose at t of a leg whose pedal starts at `phase`.
        fn solve(knee: Knee, phase: f64, t: f64) -> TwoBonePose {
            let target = Vec2::new(420.0, 420.0) + Vec2::from_angle(phase + TAU * t) * 50.0;
            ik::solve(Self::HIP, target, 128.0, 112.0, knee)
        }

        /// The solved pose at t.
        fn pose(&self, t: f64) -> TwoBonePose {
            Self::solve(self.knee, self.phase, t)
        }

        /// The thigh's and the shin's turns (rad) at t from their pose at
        /// 0, the shin's relative to the thigh's.
        fn local(&self, t: f64) -> (f64, f64) {
            let p = self.pose(t);
            let thigh = wrap_pi(p.bone1_rad - self.zero.bone1_rad);
            (thigh, wrap_pi(p.bone2_rad - self.zero.bone2_rad) - thigh)
        }

        /// The hip, knee and ankle at t = 0: exact, and as written.
        fn drawn(&self) -> ([Vec2; 3], [Vec2; 3]) {
            let pose = [Self::HIP, self.zero.joint, self.zero.end];
            let q = |v: Vec2| v.quantized(LEN_DECIMALS);
            (pose, pose.map(q))
        }

        /// The leg's pair, its turns `f` (those of [`Self::local`]), drawn
        /// as written.
        fn pair<'a>(
            &self,
            f: &'a dyn Fn(f64) -> (f64, f64),
            judge_joint: bool,
            fit: Fit,
        ) -> Pair<'a> {
            let (pose, written) = self.drawn();
            limb(f, pose, written, &[], (judge_joint, false), fit)
        }
    }

    /// The seed rig's near and far legs (knee forward, half a turn apart),
    /// and a backward knee.
    fn legs() -> [Pedal; 3] {
        [
            Pedal::new(Knee::Forward, 0.0),
            Pedal::new(Knee::Forward, PI),
            Pedal::new(Knee::Backward, 0.0),
        ]
    }

    /// The estimate without shortcuts: every sample's keys evaluated and
    /// its error computed exactly; the max, its first time and blame. Each
    /// error is checked against the drawn leg turned by the written angles:
    /// its ankle against the solved one and, with `judge_joint`, its knee
    /// against the drawn knee turned by the ideal angle.
    fn full_estimate(p: &Pair, leg: &Pedal, times: &[Vec<f64>], judge_joint: bool) -> Estimate {
        let keys = [p.keys(times, 0), p.keys(times, 1)];
        let (mut max, mut at) = (-1.0, 0);
        let [hip, knee0, ankle0] = leg.drawn().1;
        for (i, &t) in p.ts.iter().enumerate() {
            let a1 = fit::eval_keys(&keys[0], t).to_radians();
            let a2 = fit::eval_keys(&keys[1], t).to_radians();
            let e = p.error2(i, p.thigh_share(i, a1), a1, a2);
            let knee = hip + (knee0 - hip).turned(a1);
            let ankle = knee + (ankle0 - knee0).turned(a1 + a2);
            let mut want = ankle.dist(leg.pose(t).end);
            if judge_joint {
                let ideal = hip + (knee0 - hip).turned(leg.local(t).0);
                want = want.max(knee.dist(ideal));
            }
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

    /// The turns kept for t = 0 and 1 are those solved there, and a fitted
    /// leg's keys read from the problem's memo are the keys written from
    /// the turns themselves, for both segment shapes: the same times and
    /// values; linear segments alike, and each cubic segment's least
    /// squares (see [`Pair::segment_ease`]) no further from the turns at
    /// any fitter sample inside it than the Hermite segment through the
    /// curve's own slopes is at its worst one.
    #[test]
    fn kept_ends_and_memoised_keys_equal_the_solved_ones() {
        let bits = |a: (f64, f64)| (a.0.to_bits(), a.1.to_bits());
        for leg in legs() {
            let f = |t: f64| leg.local(t);
            for fit in [Fit::Cubic, Fit::Linear] {
                let p = leg.pair(&f, false, fit);
                for t in [0.0, 1.0] {
                    assert_eq!(bits(p.local(t)), bits(leg.local(t)), "{t}");
                }
                let times = fit::refine(&p, DEFAULT_TOLERANCE_PX, MAX_FIT_KEYS);
                for set in 0..2 {
                    let f = |t: f64| {
                        let a = leg.local(t);
                        if set == 0 { a.0 } else { a.1 }.to_degrees()
                    };
                    let want = fit::keys_at(&times[set], &f, fit);
                    let knee = leg.knee;
                    let case = format!("{knee:?} {fit:?} {set}");
                    assert!(want.len() > 2, "{case}: {want:?}");
                    let got = p.keys(&times, set);
                    if fit == Fit::Linear {
                        assert_eq!(got, want, "{case}");
                        continue;
                    }
                    let at = |k: &[Key]| k.iter().map(|k| (k.t, k.value)).collect::<Vec<_>>();
                    assert_eq!(at(&got), at(&want), "{case}");
                    for i in 0..got.len() - 1 {
                        let worst = |keys: &[Key]| {
                            let seg = [keys[i], keys[i + 1]];
                            (p.ts.iter().zip(&p.ideal[set]))
                                .filter(|&(&t, _)| t > seg[0].t && t < seg[1].t)
                                .map(|(&t, &v)| (fit::eval_keys(&seg, t) - v).abs())
                                .fold(0.0f64, f64::max)
                        };
                        assert!(
                            worst(&got) <= worst(&want) + 1e-9,
                            "{case} segment {i}: {} vs {}",
                            worst(&got),
                            worst(&want)
                        );
                    }
                }
            }
        }
    }

    /// A peak no key can lower (the turns jump between two fitter samples,
    /// which two keys [`fit::MIN_GAP`] apart cannot both hold) leaves the
    /// rest of the fit within the tolerance ([`fit::refine`] lets the
    /// samples around it keep the peak's error, [`fit::Stuck`]), for both
    /// segment shapes; the fit ends with every error counted as it is.
    /// (Before, the fit stopped at the peak and pruned every key that did
    /// not raise the max: the rest of the motion was left up to the
    /// jump's error off.)
    #[test]
    fn a_peak_no_key_lowers_leaves_the_rest_within_the_tolerance() {
        let leg = Pedal::new(Knee::Forward, 0.0);
        // 0.3 rad in a fifth of a fitter sample's step
        let jump = |t: f64| ((t - 0.5) * 5.0 * FIT_SAMPLES as f64).clamp(0.0, 1.0) * 0.3;
        let f = |t: f64| {
            let a = leg.local(t);
            (a.0 + jump(t), a.1 - jump(t))
        };
        let tol = DEFAULT_TOLERANCE_PX;
        for fit in [Fit::Cubic, Fit::Linear] {
            let p = leg.pair(&f, true, fit);
            let times = fit::refine(&p, tol, MAX_FIT_KEYS);
            let fresh = leg.pair(&f, true, fit);
            assert_eq!(p.estimate(&times), fresh.estimate(&times), "{fit:?}");
            let keys = [p.keys(&times, 0), p.keys(&times, 1)];
            let (mut near, mut away) = (0.0f64, 0.0f64);
            for (i, &t) in p.ts.iter().enumerate() {
                let a1 = fit::eval_keys(&keys[0], t).to_radians();
                let a2 = fit::eval_keys(&keys[1], t).to_radians();
                let e = p.error2(i, p.thigh_share(i, a1), a1, a2).sqrt();
                if (t - 0.5).abs() <= 2.0 * fit::MIN_GAP {
                    near = near.max(e);
                } else {
                    away = away.max(e);
                }
            }
            assert!(
                near > 10.0 * tol,
                "{fit:?}: the jump is no key's to close: {near}"
            );
            assert!(away <= tol, "{fit:?}: {away} px away from the jump");
        }
    }

    /// [`fit::refine_if`]: asked once, with the pruned keys, whether its
    /// last pass is worth taking; told yes it is [`fit::refine`], told no
    /// it keeps the pruned keys, within the tolerance and never fewer.
    #[test]
    fn the_last_pass_is_taken_only_where_it_is_worth_it() {
        let mut saved = 0;
        for leg in legs() {
            let f = |t: f64| leg.local(t);
            let p = leg.pair(&f, true, Fit::Cubic);
            let tol = DEFAULT_TOLERANCE_PX;
            let all = fit::refine(&p, tol, MAX_FIT_KEYS);
            let asked = std::cell::Cell::new(0);
            let yes = fit::refine_if(&p, tol, MAX_FIT_KEYS, &|_| {
                asked.set(asked.get() + 1);
                true
            });
            assert_eq!((yes, asked.get()), (all.clone(), 1));
            let pruned = fit::refine_if(&p, tol, MAX_FIT_KEYS, &|_| false);
            let count = |t: &[Vec<f64>]| t.iter().map(Vec::len).sum::<usize>();
            assert!(count(&pruned) >= count(&all), "{pruned:?} {all:?}");
            assert!(p.estimate(&pruned).max_px <= tol);
            saved += count(&pruned) - count(&all);
        }
        // (the pass removes a key of one of these legs)
        assert!(saved > 0);
    }

    /// Lifted linear keys ([`Pair::lifted`]) of the seed's legs, evenly
    /// spaced: each sits the sixteenth of its second difference off the
    /// curve (a corner's on it), the estimate is the error computed without
    /// shortcuts, about half that of keys on the curve, and the fewest
    /// keys within the default tolerance are fewer by about 1/√2.
    #[test]
    fn lifted_linear_keys_miss_by_half_as_much_with_fewer_keys() {
        for leg in legs() {
            let f = |t: f64| leg.local(t);
            let knee = leg.knee;
            let on = leg.pair(&f, true, Fit::Linear);
            let lifted = leg.pair(&f, true, Fit::Linear).lifted();
            for n in [12, 20, 32] {
                let times = vec![fit::uniform_times(n); 2];
                for set in 0..2 {
                    let (a, b) = (on.keys(&times, set), lifted.keys(&times, set));
                    let deg = |t: f64| {
                        let a = leg.local(t);
                        if set == 0 { a.0 } else { a.1 }.to_degrees()
                    };
                    for k in 1..n {
                        let h = 1.0 / n as f64;
                        let t = times[set][k];
                        let d2 = deg(t - h) - 2.0 * deg(t) + deg(t + h);
                        let want = quantize(deg(t) - d2 / 16.0, DEG_DECIMALS);
                        assert!((b[k].value - want).abs() < 2e-3, "{knee:?} {n} {set} {k}");
                        assert_eq!(a[k].t, b[k].t);
                    }
                }
                let (e_on, e_lifted) = (
                    full_estimate(&on, &leg, &times, true).max_px,
                    full_estimate(&lifted, &leg, &times, true).max_px,
                );
                let est = lifted.estimate(&times).max_px;
                assert!(
                    (est - e_lifted).abs() < 1e-9,
                    "{knee:?} {n}: {est} vs {e_lifted}"
                );
                assert!(
                    e_lifted < 0.6 * e_on,
                    "{knee:?} {n}: lifted {e_lifted} on the curve {e_on}"
                );
            }
            let count = |p: &Pair| {
                fit::uniform_floor(p, DEFAULT_TOLERANCE_PX, MAX_FIT_KEYS).unwrap()[0].len() - 1
            };
            let (n_on, n_lifted) = (count(&on), count(&lifted));
            assert!(
                (n_lifted as f64) < 0.8 * n_on as f64,
                "{knee:?}: {n_lifted} lifted keys, {n_on} on the curve"
            );
        }
        // a key on a corner stays on the curve, its neighbours are lifted
        let f = |t: f64| ((TAU * t).sin() * 0.5, (TAU * t).cos() * 0.3);
        let p = pair(&f, BENT, &[0.5], true, false, Fit::Linear).lifted();
        let times = vec![fit::uniform_times(8); 2];
        let keys = p.keys(&times, 0);
        let exact = |t: f64| quantize(f(t).0.to_degrees(), DEG_DECIMALS);
        assert_eq!(keys[4].value, exact(0.5));
        assert!((keys[2].value - exact(0.25)).abs() > 0.1, "{:?}", keys[2]);
    }

    /// Giving up a removal whose neighbours the coarse shifts leave far
    /// off ([`fit::SHIFT_HOPE`]) changes no key of these legs at any
    /// tolerance or segment shape (what it saves is the fine shifts of
    /// removals that fail anyway); and giving up every removal after the
    /// coarsest step still ends within the tolerance, with at least as
    /// many keys: a removal given up keeps its key.
    #[test]
    fn removals_given_up_cost_keys_never_error() {
        let never = [f64::INFINITY; 2];
        let mut kept_some = false;
        for leg in legs() {
            let f = |t: f64| leg.local(t);
            for fit in [Fit::Cubic, Fit::Linear] {
                for tol in [0.05, DEFAULT_TOLERANCE_PX, 1.0] {
                    let case = format!("{:?} {fit:?} {tol}", leg.knee);
                    let fresh = || leg.pair(&f, false, fit);
                    let hoping = fit::refine(&fresh(), tol, MAX_FIT_KEYS);
                    let patient = fit::refine_hoping(&fresh(), tol, MAX_FIT_KEYS, never);
                    assert_eq!(hoping, patient, "{case}");
                    let p = fresh();
                    let hasty = fit::refine_hoping(&p, tol, MAX_FIT_KEYS, [0.0; 2]);
                    let count = |t: &[Vec<f64>]| t.iter().map(Vec::len).sum::<usize>();
                    assert!(count(&hasty) >= count(&patient), "{case}");
                    assert!(p.estimate(&hasty).max_px <= tol, "{case}");
                    kept_some |= count(&hasty) > count(&patient);
                }
            }
        }
        assert!(kept_some, "no removal was given up");
    }

    /// `uppers` gives every sample the bits `upper` gives it, for runs
    /// starting anywhere, written angles near and far from the ideal ones.
    #[test]
    fn uppers_equal_upper_at_every_sample() {
        let leg = Pedal::new(Knee::Forward, 0.0);
        let f = |t: f64| leg.local(t);
        let p = leg.pair(&f, false, Fit::Cubic);
        let n = p.ts.len();
        // (the drawn leg's rounding leaves a gap but at the ends, where the
        // turns are none: every term counts)
        assert!(p.turned[1..n - 1].iter().all(|s| s.gap_len > 0.0));
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

    /// The starting keys (extrema of each set's turn, solved once per time
    /// for both sets) are those of the turns themselves.
    #[test]
    fn initial_keys_are_the_extrema_of_the_local_angles() {
        for leg in legs() {
            let f = |t: f64| leg.local(t);
            let p = leg.pair(&f, false, Fit::Cubic);
            for set in [0, 1, 0] {
                let f = |t: f64| {
                    let a = leg.local(t);
                    if set == 0 { a.0 } else { a.1 }
                };
                let mut want = vec![0.0];
                want.extend(fit::extrema(&f));
                want.push(1.0);
                let knee = leg.knee;
                assert!(want.len() > 2, "{knee:?} set {set}: {want:?}");
                assert_eq!(p.initial(set), want, "{knee:?} set {set}");
            }
        }
    }

    /// The incremental estimate (only the samples a trial's changed keys
    /// reach, upper bounds where they cannot matter) equals a full
    /// evaluation by a fresh problem and an evaluation of every sample
    /// without shortcuts, over a long random walk of insertions, removals
    /// and shifts in either set, also after bounded estimates that stopped
    /// part way; the morph's (smil route) equals a fresh one's, and so does
    /// its bounded estimate where within the bound (`None` exactly where
    /// not), also after bounded ones that stopped; for a forward and a
    /// backward knee, the end judged alone and with the joint.
    #[test]
    fn incremental_estimates_equal_full_ones() {
        let (forward, backward) = (
            Pedal::new(Knee::Forward, 0.0),
            Pedal::new(Knee::Backward, 0.0),
        );
        assert!(forward.zero.joint.dist(backward.zero.joint) > 100.0);
        for leg in [forward, backward] {
            for judge_joint in [false, true] {
                incremental_walk(&leg, judge_joint);
            }
        }
    }

    fn incremental_walk(leg: &Pedal, judge_joint: bool) {
        let f = |t: f64| leg.local(t);
        let mut rnd = crate::geom::unit_rng(0x2545_f491_4f6c_dd1du64);
        let css = leg.pair(&f, judge_joint, Fit::Cubic);
        let end = |t: f64| leg.pose(t).end;
        let smil = MorphProblem::new(&end, Vec::new());
        let mut times = vec![fit::uniform_times(4), fit::uniform_times(6)];
        let case = format!("{:?} knee, joint judged {judge_joint}", leg.knee);
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
            let want = leg.pair(&f, judge_joint, Fit::Cubic).estimate(&times);
            let full = full_estimate(&css, leg, &times, judge_joint);
            assert_eq!(want, full, "{case}: css step {step}: {times:?}");
            if step % 2 == 0 {
                // a bounded estimate, cut short or not, then the full one
                let bound = want.max_px * (0.5 + rnd());
                let within = css.estimate_within(&times, bound);
                assert_eq!(
                    within.is_some(),
                    want.max_px <= bound,
                    "{case}: step {step}"
                );
                if let Some(e) = within {
                    assert_eq!(e, want, "{case}: css step {step}: {times:?}");
                }
            }
            css.check_stale();
            let got = css.estimate(&times);
            assert_eq!(got, want, "{case}: css step {step}: {times:?}");
            css.check_stale();
            // the same keys again: nothing re-evaluated, the bound still holds
            assert_eq!(css.estimate_within(&times, want.max_px), Some(want));
            assert_eq!(css.estimate_within(&times, want.max_px * 0.9), None);
            let one = [times[set].clone()];
            let want = MorphProblem::new(&end, Vec::new()).estimate(&one);
            if step % 3 != 0 {
                // a bounded estimate, cut short (by the last worst sample,
                // which the change leaves alone, or by a changed one) or not
                let bound = want.max_px * (0.5 + rnd());
                let within = smil.estimate_within(&one, bound);
                assert_eq!(
                    within,
                    Some(want).filter(|w| w.max_px <= bound),
                    "{case}: smil step {step}: {one:?}"
                );
            }
            let got = smil.estimate(&one);
            assert_eq!(got, want, "{case}: smil step {step}: {one:?}");
            assert_eq!(smil.estimate_within(&one, want.max_px), Some(want));
            assert_eq!(smil.estimate_within(&one, want.max_px * 0.9), None);
        }
    }
}
