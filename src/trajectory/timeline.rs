//! Timelines: rig parameters keyed over the loop (a gait's walk ↔ run
//! `blend`, a chain's wind), and the gait and bob that follow a blend
//! timeline.
//!
//! **Keys.** A timeline is written like a bone's eased `track`:
//! `{"keys": [[t, value], …], "ease": …}` with t ∈ [0, 1] strictly
//! increasing, one easing per segment (default smoothstep), the first
//! value held before the first key and the last after the last. A loop
//! must close, so the last value must equal the first ([`validate_loop`]).
//!
//! **Phase.** A gait whose parameters change cannot be evaluated as
//! `phase = t` with the parameters of the moment (the foot would jump when
//! the cadence changes). Its cycle phase is the integral of its cadence,
//! `ψ(t) = phase + ∫₀ᵗ lerp(cycles, run.cycles, blend(s)) ds` (cycles per
//! loop), computed exactly from the easing polynomials' integrals. The loop
//! closes only when `ψ(1) − ψ(0)` is a whole number of cycles; anything else
//! is refused, naming the blend.
//!
//! **Ground.** A timed gait's stance foot moves with a ground whose speed is
//! `v(t) = stride·cadence ÷ duty` of the blended gait at t (px per loop):
//! the foot touches down at `+stride/2` (stride of that moment), then moves
//! back exactly as the ground does, `x = stride/2 + G(t) − G(t_down)` with
//! `G(t) = −∫₀ᵗ v`, and lifts once the ground has carried it that stride
//! (at `−stride/2`; with a constant blend, after `duty` of the cycle); the
//! swing runs over the rest of the cycle to the next touchdown point with
//! smoothstep, lifted by `step_height·sin(π·u)`. The travel speed is
//! therefore a timeline too (it follows the blend).
//! `G` is integrated once on a grid of [`GROUND_CELLS`] cells (Simpson) and
//! read with cubic Hermite interpolation, which is not exact but far below
//! the written precision (about 1e-9 px for the rigs in `rigs/`).

use crate::geom::{Rem1, Vec2};
use crate::valid::{RigError, check_num as num, invalid, shown};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

use super::EaseName;

/// Most keys in one timeline.
pub const MAX_KEYS: usize = 1000;
/// Most gait cycles in one loop.
pub const MAX_CYCLES: f64 = 64.0;
/// How far from a whole number the cycles of one loop may be.
pub const WHOLE_EPS: f64 = 1e-6;
/// Latest liftoff, as a fraction of the time from touchdown to the next.
pub const MAX_STANCE: f64 = 0.95;
/// Grid cells on which the ground's travel is integrated.
pub const GROUND_CELLS: usize = 2048;

/// Per-segment easing: one name for every segment, or one per segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum LoopEaseFile {
    All(EaseName),
    Each(Vec<EaseName>),
}

fn smoothstep() -> LoopEaseFile {
    LoopEaseFile::All(EaseName::Smoothstep)
}

/// A value keyed over the loop, as a bone's `track`: `keys` are
/// `[t, value]` with t in [0, 1] strictly increasing and distinct as
/// written (key times are written to 10⁻⁶ of the period: two that round to
/// one are refused); the last value must equal the first so the loop
/// closes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LoopKeysFile {
    pub keys: Vec<[f64; 2]>,
    /// One easing for every segment or one per segment (default `"smoothstep"`).
    #[serde(default = "smoothstep")]
    pub ease: LoopEaseFile,
}

/// A number, or a value keyed over the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ParamFile {
    Const(f64),
    Keys(LoopKeysFile),
}

impl Default for ParamFile {
    fn default() -> Self {
        ParamFile::Const(0.0)
    }
}

/// A validated eased track: `keys[i] = (t, value)`, `eases[i]` the easing
/// of the segment after key i (`eases.len() == keys.len() − 1`). Seed
/// 000's `track()`; as a timeline ([`validate_loop`]) its last value also
/// equals its first. Bone tracks use it too (`figure::model::EasedTrack`).
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed {
    pub keys: Vec<(f64, f64)>,
    pub eases: Vec<EaseName>,
}

/// `∫₀ᵘ ease(s) ds` of each easing polynomial.
fn ease_integral(e: EaseName, u: f64) -> f64 {
    match e {
        EaseName::Linear => u * u / 2.0,
        EaseName::Smoothstep => u * u * u - u * u * u * u / 2.0,
        EaseName::EaseInCubic => u.powi(4) / 4.0,
        EaseName::EaseOutCubic => u + ((1.0 - u).powi(4) - 1.0) / 4.0,
    }
}

impl Keyed {
    /// A constant.
    pub fn constant(v: f64) -> Keyed {
        Keyed {
            keys: vec![(0.0, v)],
            eases: Vec::new(),
        }
    }

    /// The value at t ∈ [0, 1] (held before the first key and after the last).
    pub fn eval(&self, t: f64) -> f64 {
        let k = &self.keys;
        if t <= k[0].0 {
            return k[0].1;
        }
        // the first key at or after t, by bisection (a one-shot simulation
        // reads a track of a thousand keys at every sub-step); past the
        // last key (or at a NaN) the last value
        let j = k.partition_point(|p| p.0 < t);
        if j == 0 || j == k.len() {
            return k[k.len() - 1].1;
        }
        let ((t0, v0), (t1, v1)) = (k[j - 1], k[j]);
        v0 + (v1 - v0) * self.eases[j - 1].apply((t - t0) / (t1 - t0))
    }

    /// The same track with every value mapped by `f` (easings kept).
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Keyed {
        Keyed {
            keys: self.keys.iter().map(|&(t, v)| (t, f(v))).collect(),
            eases: self.eases.clone(),
        }
    }

    /// `∫₀ᵗ value`, t ∈ [0, 1], exact.
    pub fn integral(&self, t: f64) -> f64 {
        let k = &self.keys;
        let mut sum = k[0].1 * t.min(k[0].0);
        for i in 0..k.len() - 1 {
            let ((t0, v0), (t1, v1)) = (k[i], k[i + 1]);
            if t <= t0 {
                return sum;
            }
            let h = t1 - t0;
            let u = ((t - t0) / h).min(1.0);
            sum += h * (v0 * u + (v1 - v0) * ease_integral(self.eases[i], u));
        }
        let last = k[k.len() - 1];
        sum + last.1 * (t - last.0).max(0.0)
    }

    /// Key times in [0, 1): where the value may turn a corner.
    pub fn times(&self) -> Vec<f64> {
        self.keys
            .iter()
            .map(|k| k.0)
            .filter(|t| (0.0..1.0).contains(t))
            .collect()
    }
}

/// Validate a number or a timeline at `path`; `check` vets each value.
pub fn validate_param(
    path: &str,
    p: &ParamFile,
    check: &dyn Fn(&str, f64) -> Result<f64, RigError>,
) -> Result<Keyed, RigError> {
    match p {
        ParamFile::Const(v) => Ok(Keyed::constant(check(path, *v)?)),
        ParamFile::Keys(k) => validate_loop(path, k, check),
    }
}

/// Validate a timeline: 1..=[`MAX_KEYS`] keys, times finite within [0, 1]
/// and strictly increasing, each value vetted by `check`, one easing per
/// segment, and the last value equal to the first (else the loop would
/// jump at the seam).
pub fn validate_loop(
    path: &str,
    f: &LoopKeysFile,
    check: &dyn Fn(&str, f64) -> Result<f64, RigError>,
) -> Result<Keyed, RigError> {
    let n = f.keys.len();
    if !(1..=MAX_KEYS).contains(&n) {
        return Err(invalid(
            format!("{path}.keys"),
            format!("must hold between 1 and {MAX_KEYS} keys, got {n}"),
        ));
    }
    let mut keys: Vec<(f64, f64)> = Vec::with_capacity(n);
    for (i, &[t, v]) in f.keys.iter().enumerate() {
        let p = format!("{path}.keys[{i}]");
        if !t.is_finite() || !(0.0..=1.0).contains(&t) {
            return Err(invalid(
                format!("{p}[0]"),
                format!("key time must be within [0, 1], got {}", shown(t)),
            ));
        }
        crate::valid::key_time(&format!("{p}[0]"), t, keys.last().map(|k| k.0))?;
        keys.push((t, check(&format!("{p}[1]"), v)?));
    }
    if keys[n - 1].1 != keys[0].1 {
        return Err(invalid(
            format!("{path}.keys[{}][1]", n - 1),
            format!(
                "the timeline does not close: its last value {} must equal its first {} so the loop has no jump",
                shown(keys[n - 1].1),
                shown(keys[0].1)
            ),
        ));
    }
    let eases = match &f.ease {
        LoopEaseFile::All(e) => vec![*e; n - 1],
        LoopEaseFile::Each(v) if v.len() == n - 1 => v.clone(),
        LoopEaseFile::Each(v) => {
            return Err(invalid(
                format!("{path}.ease"),
                format!("needs one easing per segment ({}), got {}", n - 1, v.len()),
            ));
        }
    };
    Ok(Keyed { keys, eases })
}

/// A blend value: within [0, 1].
pub fn unit(path: &str, v: f64) -> Result<f64, RigError> {
    let v = num(path, v)?;
    if !(0.0..=1.0).contains(&v) {
        return Err(invalid(
            path,
            format!("must be within [0, 1], got {}", shown(v)),
        ));
    }
    Ok(v)
}

/// One gait's numbers (walk or run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stepping {
    pub stride: f64,
    pub step_height: f64,
    /// In (0, 1).
    pub duty: f64,
    /// Gait cycles per loop at this gait (a rate), > 0.
    pub cycles: f64,
}

impl Stepping {
    fn lerp(&self, o: &Stepping, b: f64) -> Stepping {
        let l = |a: f64, c: f64| a + (c - a) * b;
        Stepping {
            stride: l(self.stride, o.stride),
            step_height: l(self.step_height, o.step_height),
            duty: l(self.duty, o.duty),
            cycles: l(self.cycles, o.cycles),
        }
    }
}

/// The cycle phase of a blend timeline: `Φ(t) = ∫₀ᵗ lerp(walk, run,
/// blend(s)) ds` cycles, extended past [0, 1] by `Φ(t + 1) = Φ(t) + N`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cadence {
    pub blend: Keyed,
    /// Cycles per loop at blend 0 and 1.
    pub walk: f64,
    pub run: f64,
    /// `Φ(1)`: whole cycles per loop.
    pub cycles: u32,
}

impl Cadence {
    /// Validate that one loop holds a whole number of cycles; `path` names
    /// the blend (the field to change).
    pub fn new(path: &str, blend: Keyed, walk: f64, run: f64) -> Result<Cadence, RigError> {
        let total = walk + (run - walk) * blend.integral(1.0);
        let whole = total.round();
        if (total - whole).abs() > WHOLE_EPS || !(1.0..=MAX_CYCLES).contains(&whole) {
            let hint = if whole >= 1.0 {
                format!(
                    "; scale `cycles` and `run.cycles` by {} for {whole}",
                    crate::valid::shown_to(whole / total, 6)
                )
            } else {
                String::new()
            };
            return Err(invalid(
                path,
                format!(
                    "the gait makes {} cycles over the loop (the integral of lerp(cycles, run.cycles, blend)), not a whole number from 1 to {MAX_CYCLES}: the loop would not close{hint}",
                    crate::valid::shown_to(total, 6)
                ),
            ));
        }
        Ok(Cadence {
            blend,
            walk,
            run,
            cycles: whole as u32,
        })
    }

    /// Blend at any t (periodic).
    pub fn blend_at(&self, t: f64) -> f64 {
        self.blend.eval(t.rem1())
    }

    /// `Φ(t)`, cycles.
    pub fn phase(&self, t: f64) -> f64 {
        let k = t.floor();
        let f = t - k;
        k * self.cycles as f64 + self.walk * f + (self.run - self.walk) * self.blend.integral(f)
    }

    /// Cycles per loop at t (`Φ′(t)`).
    pub fn rate(&self, t: f64) -> f64 {
        self.walk + (self.run - self.walk) * self.blend_at(t)
    }

    /// The time t with `Φ(t) = x` (Φ increases strictly).
    pub fn time_of(&self, x: f64) -> f64 {
        let n = self.cycles as f64;
        let k = (x / n).floor();
        let r = x - k * n;
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        let mut t = r / n;
        for _ in 0..100 {
            let e = self.phase(t) - r;
            if e.abs() < 1e-13 {
                break;
            }
            if e > 0.0 {
                hi = t;
            } else {
                lo = t;
            }
            let next = t - e / self.rate(t);
            t = if next > lo && next < hi {
                next
            } else {
                0.5 * (lo + hi)
            };
        }
        k + t
    }
}

/// A gait whose walk ↔ run blend follows a timeline (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct TimedGait {
    pub origin: Vec2,
    pub walk: Stepping,
    pub run: Stepping,
    pub cadence: Cadence,
    /// Cycle offset in [0, 1) (the far foot uses 0.5).
    pub phase: f64,
    /// `−G` on the grid: travel from t = 0 to cell edge i, px.
    travel: Vec<f64>,
    /// Ground speed at each cell edge ([`TimedGait::speed`] at `i · h`).
    edge_speed: Vec<f64>,
    /// [`TimedGait::cycle`] of cycles 0 to `cadence.cycles` (those one
    /// loop reaches), computed once: each is a bisection of 60 steps.
    cycles: Vec<(f64, f64, Stepping)>,
    /// [`TimedGait::swing`] of the same cycles, computed once (each needs
    /// the next touchdown, a Newton solve of `Φ`).
    swings: Vec<Swing>,
}

/// What the swing of one cycle of a [`TimedGait`] needs besides the time:
/// where the foot lifts (x), the next touchdown's time and gait, and the
/// phase `Φ` at liftoff and at that touchdown.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Swing {
    lift_x: f64,
    next: Stepping,
    p_lo: f64,
    p_n: f64,
}

fn smooth(u: f64) -> f64 {
    u * u * (3.0 - 2.0 * u)
}

impl TimedGait {
    pub fn new(
        origin: Vec2,
        walk: Stepping,
        run: Stepping,
        cadence: Cadence,
        phase: f64,
    ) -> TimedGait {
        let mut g = TimedGait {
            origin,
            walk,
            run,
            cadence,
            phase,
            travel: Vec::new(),
            edge_speed: Vec::new(),
            cycles: Vec::new(),
            swings: Vec::new(),
        };
        let h = 1.0 / GROUND_CELLS as f64;
        let mut acc = 0.0;
        g.travel.push(0.0);
        for i in 0..GROUND_CELLS {
            let t = i as f64 * h;
            acc += h / 6.0 * (g.speed(t) + 4.0 * g.speed(t + h / 2.0) + g.speed(t + h));
            g.travel.push(acc);
        }
        g.edge_speed = (0..=GROUND_CELLS).map(|i| g.speed(i as f64 * h)).collect();
        g.cycles = (0..=g.cadence.cycles)
            .map(|k| g.solve_cycle(k as f64))
            .collect();
        g.swings = (0..=g.cadence.cycles)
            .map(|k| g.solve_swing(k as f64))
            .collect();
        g
    }

    /// The blended numbers at t.
    pub fn at_blend(&self, t: f64) -> Stepping {
        self.walk.lerp(&self.run, self.cadence.blend_at(t))
    }

    /// Ground speed at t, px per loop: `stride · cadence ÷ duty`.
    pub fn speed(&self, t: f64) -> f64 {
        let s = self.at_blend(t);
        s.stride * s.cycles / s.duty
    }

    /// Ground travel over one loop, px.
    pub fn travel_per_loop(&self) -> f64 {
        self.travel[GROUND_CELLS]
    }

    /// How far the ground has moved left from t = 0 to t (any real t), px.
    pub fn travel_at(&self, t: f64) -> f64 {
        let k = t.floor();
        let f = t - k;
        let h = 1.0 / GROUND_CELLS as f64;
        let i = ((f / h) as usize).min(GROUND_CELLS - 1);
        let u = f / h - i as f64;
        let (p0, p1) = (self.travel[i], self.travel[i + 1]);
        let (m0, m1) = (self.edge_speed[i] * h, self.edge_speed[i + 1] * h);
        // cubic Hermite on the cell
        let (u2, u3) = (u * u, u * u * u);
        let v = (2.0 * u3 - 3.0 * u2 + 1.0) * p0
            + (u3 - 2.0 * u2 + u) * m0
            + (-2.0 * u3 + 3.0 * u2) * p1
            + (u3 - u2) * m1;
        k * self.travel_per_loop() + v
    }

    /// Cycle `k`'s touchdown time, its liftoff time and the gait at
    /// touchdown. The foot lifts once the ground has carried it one stride
    /// (the stride at touchdown) from where it landed, so it always lifts
    /// at `−stride/2` whatever the blend does meanwhile (at the latest at
    /// [`MAX_STANCE`] of the time to the next touchdown).
    fn cycle(&self, k: f64) -> (f64, f64, Stepping) {
        match self.cycles.get(k as usize) {
            Some(c) if k >= 0.0 && k.fract() == 0.0 => *c,
            _ => self.solve_cycle(k),
        }
    }

    /// [`TimedGait::cycle`], solved.
    fn solve_cycle(&self, k: f64) -> (f64, f64, Stepping) {
        let td = self.cadence.time_of(k - self.phase);
        let s = self.at_blend(td);
        let next = self.cadence.time_of(k + 1.0 - self.phase);
        let want = self.travel_at(td) + s.stride;
        let (mut lo, mut hi) = (td, td + MAX_STANCE * (next - td));
        if self.travel_at(hi) <= want {
            return (td, hi, s);
        }
        for _ in 0..60 {
            let mid = 0.5 * (lo + hi);
            if self.travel_at(mid) < want {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        (td, 0.5 * (lo + hi), s)
    }

    /// Cycle `k`'s [`Swing`] (see [`TimedGait::cycle`] for which are kept).
    fn swing(&self, k: f64) -> Swing {
        match self.swings.get(k as usize) {
            Some(w) if k >= 0.0 && k.fract() == 0.0 => *w,
            _ => self.solve_swing(k),
        }
    }

    /// [`TimedGait::swing`], solved.
    fn solve_swing(&self, k: f64) -> Swing {
        let (td, lo, s) = self.cycle(k);
        let lift_x = s.stride / 2.0 - (self.travel_at(lo) - self.travel_at(td));
        let tn = self.cadence.time_of(k + 1.0 - self.phase);
        Swing {
            lift_x,
            next: self.at_blend(tn),
            p_lo: self.cadence.phase(lo),
            p_n: self.cadence.phase(tn),
        }
    }

    /// The foot at normalised time t.
    pub fn at(&self, t: f64) -> Vec2 {
        let t = t.rem1();
        let p_t = self.cadence.phase(t);
        let psi = self.phase + p_t;
        let k = psi.floor();
        let (td, lo, s) = self.cycle(k);
        // td ≤ t: Φ(td) = k − phase ≤ Φ(t)
        let down_x = s.stride / 2.0;
        if t < lo {
            return self.origin + Vec2::new(down_x - (self.travel_at(t) - self.travel_at(td)), 0.0);
        }
        let Swing {
            lift_x,
            next,
            p_lo,
            p_n,
        } = self.swing(k);
        let u = ((p_t - p_lo) / (p_n - p_lo)).clamp(0.0, 1.0);
        let x = lift_x + (next.stride / 2.0 - lift_x) * smooth(u);
        let lift = self.at_blend(t).step_height * (PI * u).sin();
        self.origin + Vec2::new(x, -lift)
    }

    /// Stance intervals within [0, 1], split at the loop boundary.
    pub fn stance(&self) -> Vec<(f64, f64)> {
        let mut out = Vec::new();
        for k in 0..self.cadence.cycles {
            let (td, lo, _) = self.cycle(k as f64);
            let a = td.rem1();
            let b = lo + (a - td);
            if b <= 1.0 {
                out.push((a, b));
            } else {
                out.push((a, 1.0));
                out.push((0.0, b - 1.0));
            }
        }
        out.sort_by(|x, y| x.0.total_cmp(&y.0));
        out
    }

    /// Touchdown and liftoff times in [0, 1) (the foot path's corners),
    /// and the blend's key times.
    pub fn corners(&self) -> Vec<f64> {
        let mut v = self.cadence.blend.times();
        for k in 0..self.cadence.cycles {
            let (td, lo, _) = self.cycle(k as f64);
            v.push(td.rem1());
            v.push(lo.rem1());
        }
        v
    }

    /// Whether the foot is down at t.
    pub fn in_stance(&self, t: f64) -> bool {
        let t = t.rem1();
        let k = (self.phase + self.cadence.phase(t)).floor();
        t < self.cycle(k).1
    }
}

/// A hip bob that follows a blend timeline (see [`TimedBob::at`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TimedBob {
    pub center: Vec2,
    /// Walk and run amplitude and phase.
    pub amp: (f64, f64),
    pub phase: (f64, f64),
    pub cadence: Cadence,
}

impl TimedBob {
    /// `center + (0, −amp·|sin(2π·(Φ(t) + phase))|)` with `amp` and `phase`
    /// blended at t: two bobs per gait cycle, as the constant bob makes two
    /// per loop.
    pub fn at(&self, t: f64) -> Vec2 {
        let t = t.rem1();
        let b = self.cadence.blend_at(t);
        let amp = self.amp.0 + (self.amp.1 - self.amp.0) * b;
        let ph = self.phase.0 + (self.phase.1 - self.phase.0) * b;
        let x = self.cadence.phase(t) + ph;
        self.center + Vec2::new(0.0, -amp * (2.0 * PI * x).sin().abs())
    }

    /// Where the bounce turns a corner, in [0, 1), found by bisection, and
    /// the blend's key times.
    pub fn corners(&self) -> Vec<f64> {
        let mut v = self.cadence.blend.times();
        let g = |t: f64| {
            let b = self.cadence.blend_at(t);
            2.0 * (self.cadence.phase(t) + self.phase.0 + (self.phase.1 - self.phase.0) * b)
        };
        // zeros of sin(π·g): g crosses a whole number; g is monotone when the
        // phase changes slower than the cadence (checked on a fine grid)
        let n = 4096;
        for i in 0..n {
            let (a, b) = (i as f64 / n as f64, (i + 1) as f64 / n as f64);
            let (ga, gb) = (g(a), g(b));
            if ga.floor() != gb.floor() {
                let target = gb.floor();
                let (mut lo, mut hi) = (a, b);
                for _ in 0..60 {
                    let mid = 0.5 * (lo + hi);
                    if g(mid) < target {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                v.push(0.5 * (lo + hi));
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Vec2Ext;

    fn keyed(keys: &[(f64, f64)], e: EaseName) -> Keyed {
        Keyed {
            keys: keys.to_vec(),
            eases: vec![e; keys.len() - 1],
        }
    }

    /// The bisecting `eval` gives, bit for bit, what a scan of the keys in
    /// order gives: on keys, between them, before the first, after the
    /// last, at NaN, for tracks of 1 to 40 keys with mixed easings.
    #[test]
    fn eval_bisects_as_a_scan_finds() {
        let scan = |k: &Keyed, t: f64| -> f64 {
            let keys = &k.keys;
            if t <= keys[0].0 {
                return keys[0].1;
            }
            for i in 0..keys.len() - 1 {
                let ((t0, v0), (t1, v1)) = (keys[i], keys[i + 1]);
                if t <= t1 {
                    return v0 + (v1 - v0) * k.eases[i].apply((t - t0) / (t1 - t0));
                }
            }
            keys[keys.len() - 1].1
        };
        let eases = [
            EaseName::Linear,
            EaseName::Smoothstep,
            EaseName::EaseInCubic,
            EaseName::EaseOutCubic,
        ];
        let mut next = crate::geom::unit_rng(0x9e3779b97f4a7c15u64);
        for n in 1..=40 {
            let mut times: Vec<f64> = (0..n).map(|_| next()).collect();
            times.sort_by(f64::total_cmp);
            times.dedup();
            let k = Keyed {
                keys: times.iter().map(|&t| (t, next() * 10.0 - 5.0)).collect(),
                eases: (1..times.len()).map(|i| eases[i % 4]).collect(),
            };
            let mut ts: Vec<f64> = times.clone();
            ts.extend((0..200).map(|_| next() * 1.2 - 0.1));
            ts.extend([-1.0, 0.0, 1.0, 2.0, f64::NAN]);
            for t in ts {
                assert_eq!(
                    k.eval(t).to_bits(),
                    scan(&k, t).to_bits(),
                    "{n} keys at {t}"
                );
            }
        }
    }

    /// The exact integral agrees with a fine midpoint sum for every easing.
    #[test]
    fn integral_matches_numeric_sum() {
        for e in [
            EaseName::Linear,
            EaseName::Smoothstep,
            EaseName::EaseInCubic,
            EaseName::EaseOutCubic,
        ] {
            let k = keyed(&[(0.1, 0.0), (0.4, 1.0), (0.8, 0.3), (0.9, 0.0)], e);
            for &t in &[0.05, 0.25, 0.5, 0.85, 1.0] {
                let n = 200_000;
                let h = t / n as f64;
                let sum: f64 = (0..n).map(|i| k.eval((i as f64 + 0.5) * h) * h).sum();
                assert!((sum - k.integral(t)).abs() < 1e-8, "{e:?} {t}");
            }
        }
    }

    fn stepping(stride: f64, step_height: f64, duty: f64, cycles: f64) -> Stepping {
        Stepping {
            stride,
            step_height,
            duty,
            cycles,
        }
    }

    /// A test timeline: keys, eases, walk and run cycles, foot phase.
    type Case = (Vec<(f64, f64)>, Vec<EaseName>, f64, f64, f64);

    /// Timelines of the class: smoothstep ramps, easeIn/easeOut ramps,
    /// linear ramps with holds, three foot phases; each closes (whole cycles).
    fn gaits() -> Vec<TimedGait> {
        use EaseName::*;
        // (keys, eases, walk cycles, run cycles, phase)
        let cases: Vec<Case> = vec![
            // ∫blend = 1/2: 4 + 2/2 = 5 cycles
            (
                vec![(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)],
                vec![Smoothstep; 2],
                4.0,
                6.0,
                0.5,
            ),
            // ∫blend = 0.3·1/4 + 0.2 + 0.1·1/4 = 0.3: 5 + 10·0.3 = 8
            (
                vec![
                    (0.0, 0.0),
                    (0.2, 0.0),
                    (0.5, 1.0),
                    (0.7, 1.0),
                    (0.8, 0.0),
                    (1.0, 0.0),
                ],
                vec![Linear, EaseInCubic, Linear, EaseOutCubic, Linear],
                5.0,
                15.0,
                0.0,
            ),
            // ∫blend = 0.125 + 0.25 + 0.125 = 0.5: 6 + 4·0.5 = 8
            (
                vec![
                    (0.0, 0.0),
                    (0.15, 0.0),
                    (0.4, 1.0),
                    (0.65, 1.0),
                    (0.9, 0.0),
                    (1.0, 0.0),
                ],
                vec![Linear, Smoothstep, Linear, Linear, Linear],
                6.0,
                10.0,
                0.25,
            ),
        ];
        cases
            .into_iter()
            .map(|(keys, eases, w, r, phase)| {
                let cad = Cadence::new("b", Keyed { keys, eases }, w, r).unwrap();
                TimedGait::new(
                    Vec2::new(0.0, 100.0),
                    stepping(45.0, 8.0, 0.6, w),
                    stepping(60.0, 14.0, 0.4, r),
                    cad,
                    phase,
                )
            })
            .collect()
    }

    fn gait() -> TimedGait {
        gaits().remove(0)
    }

    /// The cycles, swings and edge speeds a gait keeps are those solved on
    /// demand, bit for bit: the foot, its stance and corners are the same
    /// with the cycle and swing caches emptied (every cycle solved per
    /// call), and each edge speed is [`TimedGait::speed`] at the edge.
    #[test]
    fn cached_cycles_and_speeds_equal_the_solved_ones() {
        for (c, g) in gaits().iter().enumerate() {
            let h = 1.0 / GROUND_CELLS as f64;
            for (i, v) in g.edge_speed.iter().enumerate() {
                assert_eq!(*v, g.speed(i as f64 * h), "{c} edge {i}");
            }
            assert_eq!(g.cycles.len(), g.cadence.cycles as usize + 1);
            assert_eq!(g.swings.len(), g.cadence.cycles as usize + 1);
            let solved = TimedGait {
                cycles: Vec::new(),
                swings: Vec::new(),
                ..g.clone()
            };
            for k in -1..=g.cadence.cycles as i32 + 1 {
                assert_eq!(g.cycle(k as f64), solved.cycle(k as f64), "{c} cycle {k}");
                assert_eq!(g.swing(k as f64), solved.swing(k as f64), "{c} swing {k}");
            }
            for i in 0..=997 {
                let t = i as f64 / 997.0;
                assert_eq!(g.at(t), solved.at(t), "{c} {t}");
                assert_eq!(g.in_stance(t), solved.in_stance(t), "{c} {t}");
            }
            assert_eq!(g.stance(), solved.stance());
            assert_eq!(g.corners(), solved.corners());
        }
    }

    /// The foot path is continuous everywhere (seam included), lands at
    /// +stride/2 and lifts at −stride/2 (never beyond the longer stride's
    /// half), and while down moves exactly with the ground.
    #[test]
    fn timed_gait_is_continuous_and_planted() {
        for (c, g) in gaits().iter().enumerate() {
            let n = 20_000;
            for i in 0..=n {
                let t = i as f64 / n as f64;
                let d = g.at(t).dist(g.at(t + 1e-7));
                assert!(d < 1e-3, "{c} {t}: jump {d}");
                assert!(g.at(t).x.abs() <= 30.0 + 1e-6, "{c} {t}: {:?}", g.at(t));
            }
            assert!(g.at(0.0).dist(g.at(1.0 - 1e-12)) < 1e-6, "{c}");
            let st = g.stance();
            let whole = g.cadence.cycles as usize;
            assert!(st.len() == whole || st.len() == whole + 1, "{c} {st:?}");
            for (a, b) in st {
                let (pa, pb) = (g.at(a + 1e-9), g.at(b - 1e-9));
                let ground = g.travel_at(b - 1e-9) - g.travel_at(a + 1e-9);
                assert!((pa.x - pb.x - ground).abs() < 1e-6, "{c}");
                assert!(pa.y == 100.0 && pb.y == 100.0, "{c}");
            }
        }
        assert_eq!(gait().cadence.cycles, 5);
    }

    /// A blend whose cycles do not add up to a whole number is refused
    /// naming the field; the hint's scale closes it.
    #[test]
    fn a_loop_of_fractional_cycles_is_refused() {
        let blend = keyed(&[(0.0, 0.0), (0.5, 1.0), (1.0, 0.0)], EaseName::Smoothstep);
        let err = Cadence::new("ik[0].target.gait.blend", blend.clone(), 4.0, 5.5)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("ik[0].target.gait.blend") && err.contains("4.75"),
            "{err}"
        );
        assert!(Cadence::new("b", blend, 4.0 * 5.0 / 4.75, 5.5 * 5.0 / 4.75).is_ok());
    }

    /// `time_of` inverts `phase` across loops.
    #[test]
    fn time_of_inverts_phase() {
        let g = gait();
        for i in -40..80 {
            let x = i as f64 * 0.137;
            let t = g.cadence.time_of(x);
            assert!((g.cadence.phase(t) - x).abs() < 1e-9, "{x}");
        }
    }
}
