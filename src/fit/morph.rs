//! Fitting the key times of a morphed path (`<animate attributeName="d">`,
//! smil route): one key set for every point of the path; between keys
//! each point moves on the straight chord between its keyed positions
//! (linear keys: a keySpline would only retime the point along that
//! chord). The error judged is the last point's (the effector's) distance
//! from where it should be, at [`FIT_SAMPLES`] + 1 uniform times, keyed
//! positions rounded as written. The chord sag between keys is the whole
//! error, so nothing here keeps the bones' lengths: a morph stretches them
//! between keys (the measure reports by how much).
//!
//! Used by a bone tree's `ik` entries written as a morph (`"smil":
//! "morph"`, as every cycling leg's entry is).

use super::{BLOCK, Estimate, FIT_SAMPLES, Problem, Stuck, Weights};
use crate::geom::{LEN_DECIMALS, Vec2, Vec2Ext};
use std::cell::RefCell;

/// The key times of a morph whose effector is at `end(t)` (user space,
/// before rounding) at normalised time t: see the module.
pub struct MorphProblem<'a> {
    end: &'a dyn Fn(f64) -> Vec2,
    /// Where the effector's path turns a corner (a clamped limb's target
    /// leaving or re-entering its reach): only a key on it follows it.
    corners: Vec<f64>,
    ts: Vec<f64>,
    targets: Vec<Vec2>,
    /// The last estimate's key times, squared errors per sample (as for
    /// [`super::pair::Pair`]) and their max per block of [`BLOCK`] samples.
    last: RefCell<Last>,
    /// Per sample, the factor [`Problem::mask`] weighs its error by (its
    /// square the squared error).
    weights: Weights,
    /// `end` at every time read so far, by the time's bits (each a solve
    /// of the figure; the estimates of a search read the same key times
    /// again and again): the samples' first.
    ends: RefCell<crate::geom::TimeMap<Vec2>>,
    /// The places the written points are rounded to ([`LEN_DECIMALS`]
    /// unless [`MorphProblem::rounded_to`] says otherwise).
    decimals: u32,
}

/// What [`MorphProblem`] keeps from its last estimate.
struct Last {
    times: Vec<f64>,
    errors: Vec<f64>,
    blocks: Vec<f64>,
    /// The sample of the max (the first of equals).
    worst: usize,
    /// The changed samples' errors, kept only once all are within bound.
    scratch: Vec<f64>,
}

impl<'a> MorphProblem<'a> {
    /// `end(t)`: the effector the keys are fitted to (a limb clamped out of
    /// reach: the reachable one, its gap being no key's to close);
    /// `corners`: times strictly inside (0, 1) keyed first.
    pub fn new(end: &'a dyn Fn(f64) -> Vec2, corners: Vec<f64>) -> Self {
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        let targets: Vec<Vec2> = ts.iter().map(|&t| end(t)).collect();
        let ends = ts.iter().map(|t| t.to_bits()).zip(targets.iter().copied());
        MorphProblem {
            end,
            corners,
            last: RefCell::new(Last {
                times: Vec::new(),
                errors: vec![0.0; ts.len()],
                blocks: vec![0.0; ts.len().div_ceil(BLOCK)],
                worst: 0,
                scratch: Vec::new(),
            }),
            weights: Weights::default(),
            ends: RefCell::new(ends.collect()),
            targets,
            ts,
            decimals: LEN_DECIMALS,
        }
    }

    /// The same problem with the written points rounded to `decimals`
    /// places (a figure's [`crate::figure::Figure::len_decimals`]).
    pub fn rounded_to(mut self, decimals: u32) -> Self {
        self.decimals = decimals;
        self
    }

    /// `end(t)`, found once per time.
    fn end_at(&self, t: f64) -> Vec2 {
        let known = self.ends.borrow().get(&t.to_bits()).copied();
        known.unwrap_or_else(|| {
            let p = (self.end)(t);
            self.ends.borrow_mut().insert(t.to_bits(), p);
            p
        })
    }

    /// The estimate of key times `times`, or `None` where a sample is
    /// found over `bound` on the way (its max is then over it too; with an
    /// infinite bound, always the estimate). Only the samples whose
    /// segments differ from the last estimate's kept ([`Last`]) are
    /// evaluated, and none where that estimate's worst sample, which the
    /// change leaves alone, is already over `bound`; the first one over it
    /// ends the evaluation, keeping the last estimate. Otherwise the new
    /// errors are kept, and the max found by block.
    fn bounded(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        let tk = &times[0];
        let mut last = self.last.borrow_mut();
        let Last {
            times: old,
            errors,
            blocks,
            worst,
            scratch,
        } = &mut *last;
        // (the max's square root is the largest sample's: `sqrt` is
        // monotone, so a sample over the bound puts the max over it; the
        // squares compared first, as the css pair does, a root only near
        // the bound)
        let bound2 = bound * bound;
        let over = |e: f64| e > bound2 && e.sqrt() > bound;
        let span = if old.is_empty() {
            0..self.ts.len()
        } else {
            super::changed_samples(old, tk, &self.ts).unwrap_or(0..0)
        };
        if !old.is_empty() && !span.contains(worst) && over(errors[*worst]) {
            return None;
        }
        if !span.is_empty() {
            // the keyed effectors of the segments that hold the changed samples
            let (lo, hi) = (self.ts[span.start], self.ts[span.end - 1]);
            let k0 = tk.partition_point(|&t| t <= lo).saturating_sub(1);
            let k1 = (tk.partition_point(|&t| t <= hi) + 1).min(tk.len());
            let ends: Vec<Vec2> = (tk[k0..k1].iter())
                .map(|&t| self.end_at(t).quantized(self.decimals))
                .collect();
            let weights = self.weights.all();
            let ts = &self.ts[span.clone()];
            let within = super::linear_errors(ts, &tk[k0..k1], scratch, over, |i, seg, f| {
                let p = ends[seg] + (ends[seg + 1] - ends[seg]) * f;
                let i = span.start + i;
                let d = p - self.targets[i];
                let f = weights.get(i).copied().unwrap_or(1.0);
                (d.x * d.x + d.y * d.y) * f * f
            });
            if !within {
                return None;
            }
            errors[span.clone()].copy_from_slice(scratch);
            super::refresh_blocks(errors, blocks, span);
        }
        old.clone_from(tk);
        // (every sample scanned where only NaNs are left)
        let best = match super::first_max(errors, blocks) {
            (max, _, Some(i)) => {
                *worst = i;
                Estimate {
                    max_px: max,
                    worst_t: self.ts[i],
                    blame: 0,
                }
            }
            (_, _, None) => {
                *worst = 0;
                super::max_estimate(&self.ts, errors)
            }
        };
        Some(Estimate {
            max_px: best.max_px.sqrt(),
            ..best
        })
    }
}

impl Problem for MorphProblem<'_> {
    fn sets(&self) -> usize {
        1
    }

    fn estimate(&self, times: &[Vec<f64>]) -> Estimate {
        self.bounded(times, f64::INFINITY)
            .expect("an unbounded estimate always completes")
    }

    fn estimate_within(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        self.bounded(times, bound).filter(|e| e.max_px <= bound)
    }

    fn mask(&self, spans: &[Stuck]) -> bool {
        if self.weights.set(&self.ts, spans) {
            // (every error kept was weighed the old way)
            self.last.borrow_mut().times.clear();
        }
        true
    }

    fn split_at(&self, _: &[Vec<f64>], _: usize, _: f64, _: f64, worst_t: f64) -> f64 {
        worst_t
    }

    fn initial(&self, _: usize) -> Vec<f64> {
        super::uniform_with_fixed(4, &self.corners)
    }

    /// An effector on a circle (a pedal) has the same chord sag
    /// everywhere: uniform keys are already about the best (a clamped
    /// limb's corners are keys first).
    fn uniform_first(&self) -> bool {
        self.corners.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An effector on a circle of radius r keyed at n uniform times sags
    /// below each chord by at most `r (1 − cos(π/n))`, at the chord's
    /// middle: the estimate finds that (within the keyed points' rounding),
    /// and the fitter's fewest keys within a budget keep it.
    #[test]
    fn uniform_keys_on_a_circle_sag_by_the_chord_formula() {
        let r = 50.0;
        let end =
            |t: f64| Vec2::new(400.0, 300.0) + Vec2::from_angle(t * std::f64::consts::TAU) * r;
        let p = MorphProblem::new(&end, Vec::new());
        for n in [4, 8, 16, 32] {
            let e = p.estimate(&[super::super::uniform_times(n)]);
            let sag = r * (1.0 - (std::f64::consts::PI / n as f64).cos());
            assert!((e.max_px - sag).abs() < 0.01, "{n}: {} vs {sag}", e.max_px);
        }
        let times = super::super::refine(&p, 0.25, 400).remove(0);
        let fresh = MorphProblem::new(&end, Vec::new());
        assert!(
            fresh.estimate(std::slice::from_ref(&times)).max_px <= 0.25,
            "{times:?}"
        );
        // (the sag formula's fewest uniform keys: 32 sag 0.24 px)
        assert!(times.len() - 1 <= 32, "{}", times.len());
    }

    /// Equal errors everywhere (an effector standing still off the
    /// written 0.01 px grid, every sample as far from its rounded keys):
    /// the max is the first sample's, as a scan of every sample finds it,
    /// fresh and after keys change (the blocks' maxima are equal too).
    #[test]
    fn a_tie_goes_to_the_earliest_sample() {
        let end = |_: f64| Vec2::new(400.004, 300.003);
        let p = MorphProblem::new(&end, Vec::new());
        let off = Vec2::new(0.004, 0.003).hypot();
        for times in [
            super::super::uniform_times(4),
            vec![0.0, 0.3, 0.61, 1.0],
            vec![0.0, 0.3, 0.9, 1.0],
        ] {
            let e = p.estimate(std::slice::from_ref(&times));
            assert_eq!((e.worst_t, e.blame), (0.0, 0), "{times:?}");
            assert!((e.max_px - off).abs() < 1e-12, "{}", e.max_px);
            let within = p.estimate_within(std::slice::from_ref(&times), off + 1e-9);
            assert_eq!(within, Some(e));
        }
    }

    /// An effector that jumps 30 px between two fitter samples (which two
    /// keys [`super::super::MIN_GAP`] apart cannot both hold): the fit
    /// still keeps the rest of the circle within the tolerance, the
    /// samples around the jump keeping its error ([`super::super::Stuck`]),
    /// and ends with every error counted as it is.
    #[test]
    fn a_jump_no_key_closes_leaves_the_rest_within_the_tolerance() {
        let n = FIT_SAMPLES as f64;
        let end = |t: f64| {
            let jump = ((t - 0.5) * 5.0 * n).clamp(0.0, 1.0) * 30.0;
            Vec2::new(400.0 + jump, 300.0) + Vec2::from_angle(t * std::f64::consts::TAU) * 50.0
        };
        let p = MorphProblem::new(&end, Vec::new());
        let times = vec![super::super::refine(&p, 0.25, 400).remove(0)];
        let fresh = MorphProblem::new(&end, Vec::new());
        assert_eq!(p.estimate(&times), fresh.estimate(&times));
        let (mut near, mut away) = (0.0f64, 0.0f64);
        for &t in &p.ts {
            let tk = &times[0];
            let seg = tk.partition_point(|&k| k <= t).clamp(1, tk.len() - 1);
            let (a, b) = (tk[seg - 1], tk[seg]);
            let f = ((t - a) / (b - a)).clamp(0.0, 1.0);
            let (pa, pb) = (
                end(a).quantized(LEN_DECIMALS),
                end(b).quantized(LEN_DECIMALS),
            );
            let e = (pa + (pb - pa) * f - end(t)).hypot();
            if (t - 0.5).abs() <= 2.0 * super::super::MIN_GAP {
                near = near.max(e);
            } else {
                away = away.max(e);
            }
        }
        assert!(near > 10.0, "the jump is no key's to close: {near}");
        assert!(away <= 0.25, "{away} px away from the jump");
    }
}
