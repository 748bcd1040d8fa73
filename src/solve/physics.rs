//! Secondary motion simulated offline into a seamless loop: a damped spring
//! and a Verlet chain (hair, ponytail, scarf).
//!
//! Both are integrated with a fixed sub-step `dt` that does not depend on how
//! many keys are later baked, so the motion is deterministic (same inputs,
//! same numbers) and converges as `dt → 0`.
//!
//! **Loop.** A simulation driven by periodic inputs (anchor path, wind) is
//! run period after period ("warm-up") until the state at the loop seam
//! changes by less than `seam_eps_px` between successive periods, or until
//! `max_periods`; the next period is then recorded. The reported **seam
//! error** is the largest particle distance between the recorded period's
//! first and last frame: what a viewer would see jump when the loop restarts.
//! Damping is what makes this converge; an undamped system may never settle
//! and is reported as not converged, not hidden.
//!
//! **Pre-warm.** A chain's first warm-up periods, while a period still
//! moves it by [`PREWARM_UNTIL_PX`] or more, are run with one step for every
//! [`PREWARM_STEPS`] sub-steps (the same inputs, taken at each long step's
//! end; the damping per step compounded): a quarter of the work, which
//! carries the chain from its start to near the loop. The warm-up then goes
//! on at the fine step until the seam criterion above holds, so the
//! recorded loop is the fine step's, whatever the start. Only for a chain
//! damped enough to forget its start ([`PREWARM_MAX_KEPT`]), where the long
//! step stays short ([`PREWARM_MAX_DT_S`]), and for at most half the
//! warm-up cap.
//!
//! **Spring** (seed 000's head): `a = k·(target − x) − c·v`, semi-implicit
//! Euler, per unit mass.
//!
//! **Verlet chain** (seeds 000/004): particle `i` keeps its position and its
//! previous one; each step
//! `x' = x + (x − x_prev)·damping + (gravity + wind)·dt²`, then
//! `iterations` passes of distance constraints pull every neighbouring pair
//! back to `segment` length (each particle moves half the error; particle 0
//! is pinned to the anchor and takes none), then particles inside a circle
//! collider are pushed out to its rim. Accelerations are in px/s².
//!
//! The step may also be coarse, as in seed 004 (one step per 1/60 s frame,
//! where fewer passes leave a stretchier chain): with fewer sub-steps than
//! recorded frames every sub-step is kept and the frames are interpolated
//! linearly between them ([`resample`]).

use crate::geom::{Vec2, Vec2Ext};

/// Simulation work one rig may take, in particle updates (one particle
/// moved by one constraint pass, or pushed out of one collider, in one
/// sub-step; an anchor or spring target found by FK counts one per bone).
/// About a second or two of a release build; every chain and spring of a
/// rig draws on the same budget, checked before each simulation starts.
pub const SIM_BUDGET: u64 = 100_000_000;

/// The simulation work still left to one rig (see [`SIM_BUDGET`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    left: u64,
}

impl Default for Budget {
    fn default() -> Self {
        Budget { left: SIM_BUDGET }
    }
}

impl Budget {
    /// Particle updates left.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// Whole periods of `per_period` particle updates that still fit.
    pub fn periods(&self, per_period: u64) -> u64 {
        self.left / per_period.max(1)
    }

    /// The warm-up cap of a simulation of `per_period` updates a period
    /// that asks for `asked` periods: `asked`, or fewer when what is left
    /// pays for fewer; `None` when it cannot pay for one warm-up period and
    /// the recorded one.
    pub fn warmup_cap(&self, per_period: u64, asked: usize) -> Option<usize> {
        let periods = self.periods(per_period);
        (periods >= 2).then(|| asked.min((periods - 1).min(usize::MAX as u64) as usize))
    }

    /// Take `periods` periods of `per_period` updates (a finished simulation).
    pub fn spend(&mut self, periods: usize, per_period: u64) {
        self.left = self
            .left
            .saturating_sub((periods as u64).saturating_mul(per_period));
    }
}

/// Sub-steps one pre-warm step stands for (see the module docs).
pub const PREWARM_STEPS: usize = 4;
/// The longest pre-warm step, seconds (a chain stepped at seed 004's 1/60 s
/// frames is not pre-warmed).
pub const PREWARM_MAX_DT_S: f64 = 1.0 / 600.0;
/// The pre-warm ends once a period moves the chain's seam state by less
/// than this, px.
pub const PREWARM_UNTIL_PX: f64 = 1.0;
/// Only a chain whose damping keeps at most this share of its velocity over
/// one period is pre-warmed: its loop is one it falls into from any start.
/// A chain damped less (an almost undamped one may never settle) warms up
/// at the fine step from rest, as it always has.
pub const PREWARM_MAX_KEPT: f64 = 0.5;

/// A periodic input: a value at normalised loop time `t ∈ [0, 1)`.
pub type Periodic<'a, T> = &'a dyn Fn(f64) -> T;

/// Parameters of a Verlet chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainParams {
    /// Particles, including the pinned root (≥ 2).
    pub count: usize,
    /// Rest distance between neighbours, px (> 0).
    pub segment: f64,
    /// Constraint passes per sub-step (≥ 1).
    pub iterations: usize,
    /// Velocity kept per sub-step, in (0, 1] (seed 004: 0.97 per frame).
    pub damping: f64,
    /// Constant acceleration, px/s² (gravity is +y on screen).
    pub gravity: Vec2,
    /// Circle colliders `(centre, radius)` the particles are pushed out of.
    pub colliders: Vec<(Vec2, f64)>,
}

/// How to run a simulation into a loop.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LoopParams {
    /// Loop period, seconds.
    pub period_s: f64,
    /// Sub-steps per period (the fixed step is `period_s / substeps`).
    pub substeps: usize,
    /// Recorded frames per period (the recording has `frames + 1` frames,
    /// the last at the seam, so `frames[0]` vs `frames[frames]` is the seam).
    pub frames: usize,
    /// Converged when the seam state moves less than this between periods, px.
    pub seam_eps_px: f64,
    /// Warm-up cap, periods.
    pub max_periods: usize,
}

/// Recorded snapshots of every particle, shared by every copy of their
/// [`Recording`].
pub type Frames = std::sync::Arc<Vec<Vec<Vec2>>>;

/// A recorded loop.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// `frames + 1` snapshots of every particle, evenly spaced over one
    /// period; shared, not copied, by the figure's many clones (a bake's
    /// views of its clips and its tries each clone the figure).
    pub frames: Frames,
    /// Warm-up periods run before recording.
    pub warmup_periods: usize,
    /// Of those, the first ones pre-warmed at the long step (see the module
    /// docs).
    pub prewarm_periods: usize,
    /// Whether the seam state settled below `seam_eps_px`.
    pub converged: bool,
    /// Max particle distance between the first and last recorded frame, px.
    /// For a one-shot recording ([`once_chain`], [`once_spring`]): the
    /// residual motion, the largest distance any particle moves over the
    /// last [`SETTLE_TAIL`] of the clip.
    pub seam_error_px: f64,
    /// Recorded once from rest ([`once_chain`], [`once_spring`]), not a loop.
    pub once: bool,
}

/// Residual motion a one-shot clip's physics may have left over its last
/// [`SETTLE_TAIL`], px: below it the held last frame is where the
/// simulation has come to rest (a tenth of a pixel, under what a viewer
/// can see move).
pub const SETTLE_PX: f64 = 0.1;

/// The tail of a one-shot clip over which the residual motion is taken: 5 %.
pub const SETTLE_TAIL: f64 = 0.05;

/// Largest distance any particle of `frames` moves over their last
/// [`SETTLE_TAIL`] (from any frame of the tail to the last), px.
pub fn residual_px(frames: &[Vec<Vec2>]) -> f64 {
    let n = frames.len() - 1;
    let from = ((1.0 - SETTLE_TAIL) * n as f64).floor() as usize;
    frames[from..]
        .iter()
        .map(|f| max_dist(f, &frames[n]))
        .fold(0.0, f64::max)
}

/// A Verlet chain's state.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub pos: Vec<Vec2>,
    pub prev: Vec<Vec2>,
}

impl Chain {
    /// A chain hanging straight down (+y) from `anchor`, at rest.
    pub fn hanging(anchor: Vec2, p: &ChainParams) -> Chain {
        let pos: Vec<Vec2> = (0..p.count)
            .map(|i| anchor + Vec2::new(0.0, p.segment * i as f64))
            .collect();
        Chain {
            prev: pos.clone(),
            pos,
        }
    }

    /// The chain at rest under inputs held still: anchor `anchor`, each
    /// sub-step adding `acc` (px, gravity and wind times dt²). That is the
    /// state [`Chain::step`] leaves where it is, found directly instead of
    /// by stepping the chain until it stops: at rest no particle moves, so
    /// a step adds `acc` to every free particle and the constraint passes
    /// take it back; the chain then lies straight from the anchor along
    /// `acc`, each segment as long as the passes leave it (a hair over
    /// `segment`, more with few passes and a long step). Those lengths are
    /// one-dimensional: the step along that line, from the unstretched
    /// chain, repeated until it changes no distance by more than
    /// [`REST_EPS_PX`].
    ///
    /// `None` with colliders (rest may lean on one), without a force
    /// (any pose is at rest), or when the lengths do not settle within
    /// [`REST_MAX_UPDATES`] particle updates: the caller steps the chain.
    pub fn at_rest(anchor: Vec2, acc: Vec2, p: &ChainParams) -> Option<Chain> {
        let g = acc.len();
        let pulled = g > 0.0 && g.is_finite();
        if !pulled || !p.colliders.is_empty() || p.count < 2 || p.iterations == 0 {
            return None;
        }
        let (n, passes) = (p.count, p.iterations);
        // distances from the anchor along the line, the anchor's 0
        let mut s: Vec<f64> = (0..n).map(|i| p.segment * i as f64).collect();
        let mut before = s.clone();
        let sweeps = REST_MAX_UPDATES / (n * passes) as u64;
        let settled = (0..sweeps).any(|_| {
            before.copy_from_slice(&s);
            for x in &mut s[1..] {
                *x += g;
            }
            for _ in 0..passes {
                s[1] = p.segment;
                for i in 1..n - 1 {
                    let half = 0.5 * (s[i + 1] - s[i] - p.segment);
                    s[i] += half;
                    s[i + 1] -= half;
                }
            }
            s.iter()
                .zip(&before)
                .all(|(a, b)| (a - b).abs() <= REST_EPS_PX)
        });
        let straight = s.windows(2).all(|w| w[1] > w[0]) && s.iter().all(|x| x.is_finite());
        if !(settled && straight) {
            return None;
        }
        let u = acc * (1.0 / g);
        let pos: Vec<Vec2> = s.iter().map(|&d| anchor + u * d).collect();
        Some(Chain {
            prev: pos.clone(),
            pos,
        })
    }

    /// One sub-step of length `dt` with the anchor at `anchor` and extra
    /// acceleration `wind` (px/s²).
    ///
    /// The constraint passes give the values of the plain loop (the
    /// passes one after the other, pairs root to tip) bit for bit, in
    /// another order of work: a wavefront in which pass g does pair i at
    /// wave step 2g + i, so that independent pairs of several passes
    /// overlap.
    pub fn step(&mut self, p: &ChainParams, anchor: Vec2, wind: Vec2, dt: f64) {
        let acc = (p.gravity + wind) * (dt * dt);
        let n = self.pos.len();
        let pos = &mut self.pos[..];
        let prev = &mut self.prev[..n];
        for (x, x_prev) in pos[1..].iter_mut().zip(&mut prev[1..]) {
            let v = (*x - *x_prev) * p.damping;
            *x_prev = *x;
            *x = *x + v + acc;
        }
        prev[0] = pos[0];
        pos[0] = anchor;
        if p.colliders.is_empty() {
            Chain::constrain(pos, p.segment, p.iterations);
            return;
        }
        for _ in 0..p.iterations {
            link_pinned(pos, p.segment);
            for i in 1..n - 1 {
                link(pos, i, p.segment);
            }
            for &(c, r) in &p.colliders {
                for q in pos[1..].iter_mut() {
                    let d = *q - c;
                    let len = (d.x * d.x + d.y * d.y).sqrt();
                    if len < r && len > 1e-12 {
                        *q = c + d * (r / len);
                    }
                }
            }
        }
    }

    /// `passes` distance-constraint passes over `pos` (no colliders), as
    /// the plain loop makes them (pass after pass, each pair `i, i + 1`
    /// from the root), bit for bit, in a wavefront of up to [`WAVE`]
    /// passes at once.
    ///
    /// Pair i of pass q reads particle i as pair i − 1 of pass q left it
    /// and particle i + 1 as pair i + 1 of pass q − 1 left it, and writes
    /// those two. So once pass q − 1 has done pair i + 1, pass q can do
    /// pair i: at wave step τ, pass g of a group does pair τ − 2g. Pairs
    /// done at one wave step touch disjoint particles (two apart), and
    /// every pair reads exactly what it reads in the plain loop, so every
    /// particle gets the same operations on the same values. What changes
    /// is the work order: the plain loop is one chain of dependent square
    /// roots and divisions per pass, one pair after the other; a wave step
    /// holds up to [`WAVE`] independent pairs the processor overlaps.
    /// Groups of passes follow one another.
    fn constrain(pos: &mut [Vec2], segment: f64, passes: usize) {
        let links = pos.len() - 1;
        let mut done = 0;
        while done < passes {
            let group = (passes - done).min(WAVE);
            for tau in 0..links + 2 * (group - 1) {
                // the passes g at a pair: 0 <= tau − 2g <= links − 1
                let first = if tau >= links {
                    (tau - links + 2) / 2
                } else {
                    0
                };
                let last = (tau / 2).min(group - 1);
                for g in first..last + 1 {
                    match tau - 2 * g {
                        0 => link_pinned(pos, segment),
                        i => link(pos, i, segment),
                    }
                }
            }
            done += group;
        }
    }

    /// [`Chain::step`] through each of `inputs` (anchor, wind) in turn,
    /// bit for bit, with the constraint passes of all the sub-steps in one
    /// wavefront (chains with colliders step one sub-step at a time).
    ///
    /// Number the passes of all the sub-steps one after the other; pass q
    /// does pair i at wave step τ = 2q + i, as in the wavefront of one
    /// sub-step's passes ([`Chain::step`]). The first pass of a sub-step
    /// also moves each particle by the Verlet update just before its
    /// first pair reads it (particle i + 1 at pair
    /// i; particle 0 is set to the anchor at pair 0): by then the last
    /// pass of the sub-step before has left that particle for good (its
    /// pair i + 1 came one wave step earlier), and the update reads only
    /// the particle's own position and previous position. So every value
    /// is the one the sub-steps one after the other give, and a sub-step's
    /// passes need not wait for the one before to reach the tip.
    pub fn run(&mut self, p: &ChainParams, inputs: &[(Vec2, Vec2)], dt: f64) {
        let n = self.pos.len();
        let passes = p.iterations;
        if !p.colliders.is_empty() || passes == 0 || n < 2 || inputs.len() < 2 {
            for &(a, w) in inputs {
                self.step(p, a, w, dt);
            }
            return;
        }
        let links = n - 1;
        let total = inputs.len() * passes;
        let acc: Vec<Vec2> = inputs
            .iter()
            .map(|&(_, w)| (p.gravity + w) * (dt * dt))
            .collect();
        let pos = &mut self.pos[..];
        let prev = &mut self.prev[..n];
        let verlet = |pos: &mut [Vec2], prev: &mut [Vec2], i: usize, acc: Vec2| {
            let x = pos[i];
            let v = (x - prev[i]) * p.damping;
            prev[i] = x;
            pos[i] = x + v + acc;
        };
        for tau in 0..2 * (total - 1) + links {
            let first = if tau >= links {
                (tau - links + 2) / 2
            } else {
                0
            };
            let last = (tau / 2).min(total - 1);
            // the pass at its pinned pair, if any, is the last
            let pinned = tau % 2 == 0 && tau / 2 == last;
            let (mut step, mut pass) = (first / passes, first % passes);
            for q in first..last + 1 - pinned as usize {
                let i = tau - 2 * q;
                if pass == 0 {
                    verlet(pos, prev, i + 1, acc[step]);
                }
                link(pos, i, p.segment);
                pass += 1;
                if pass == passes {
                    pass = 0;
                    step += 1;
                }
            }
            if pinned {
                if pass == 0 {
                    prev[0] = pos[0];
                    pos[0] = inputs[step].0;
                    verlet(pos, prev, 1, acc[step]);
                }
                link_pinned(pos, p.segment);
            }
        }
    }

    /// [`Chain::step`] written plainly, every particle read from and
    /// stored to the chain in turn (kept to test the step against).
    #[cfg(test)]
    fn step_reference(&mut self, p: &ChainParams, anchor: Vec2, wind: Vec2, dt: f64) {
        let acc = (p.gravity + wind) * (dt * dt);
        for i in 1..self.pos.len() {
            let x = self.pos[i];
            let v = (x - self.prev[i]) * p.damping;
            self.prev[i] = x;
            self.pos[i] = x + v + acc;
        }
        self.prev[0] = self.pos[0];
        self.pos[0] = anchor;
        for _ in 0..p.iterations {
            for i in 0..self.pos.len() - 1 {
                let (a, b) = (self.pos[i], self.pos[i + 1]);
                let d = b - a;
                let len = (d.x * d.x + d.y * d.y).sqrt();
                if len < 1e-12 {
                    continue;
                }
                let err = (len - p.segment) / len;
                if i == 0 {
                    self.pos[1] = b - d * err;
                } else {
                    self.pos[i] = a + d * (0.5 * err);
                    self.pos[i + 1] = b - d * (0.5 * err);
                }
            }
            for &(c, r) in &p.colliders {
                for q in self.pos.iter_mut().skip(1) {
                    let d = *q - c;
                    let len = (d.x * d.x + d.y * d.y).sqrt();
                    if len < r && len > 1e-12 {
                        *q = c + d * (r / len);
                    }
                }
            }
        }
    }
}

/// Passes [`Chain::constrain`] runs at once.
const WAVE: usize = 8;

/// [`Chain::at_rest`] has settled when one more step moves no particle
/// along its line by more than this, px.
pub const REST_EPS_PX: f64 = 1e-12;

/// The particle updates [`Chain::at_rest`] may take (a few milliseconds;
/// a hair takes a few hundred, a long chain with few passes tens of
/// thousands).
pub const REST_MAX_UPDATES: u64 = 4_000_000;

/// The first pair of a constraint pass: particle 0 is pinned, so particle
/// 1 takes the whole correction.
#[inline(always)]
fn link_pinned(pos: &mut [Vec2], segment: f64) {
    let b = pos[1];
    let d = b - pos[0];
    // sqrt, not hypot: no overflow at these lengths, and the inner loop
    // of every simulation
    let len = (d.x * d.x + d.y * d.y).sqrt();
    if len < 1e-12 {
        return;
    }
    let err = (len - segment) / len;
    pos[1] = b - d * err;
}

/// Pair `i, i + 1` (i ≥ 1) of a constraint pass: each particle moves half
/// the length error. Particle i is read as the pass's previous pair left
/// it in `pos` (a pair's corrected particle is read back from the chain,
/// not carried: no pair in between writes it).
#[inline(always)]
fn link(pos: &mut [Vec2], i: usize, segment: f64) {
    let (a, b) = (pos[i], pos[i + 1]);
    let d = b - a;
    let len = (d.x * d.x + d.y * d.y).sqrt();
    if len < 1e-12 {
        return;
    }
    // d · ½ is ready before the division, which is then one
    // multiplication from the result instead of two; the products are
    // those of d · (½ · err) bit for bit (halving is exact for any
    // component above 2⁻¹⁰²¹ in size; [`Chain::step_reference`] keeps the
    // plain form and the tests compare the two)
    let half = d * 0.5;
    let err = (len - segment) / len;
    pos[i] = a + half * err;
    pos[i + 1] = b - half * err;
}

/// Largest distance between matching points; NaN when any is NaN (a
/// simulation that blew up never counts as settled).
fn max_dist(a: &[Vec2], b: &[Vec2]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(p, q)| p.dist(*q))
        .fold(0.0, |m: f64, d| if d.is_nan() { d } else { m.max(d) })
}

/// Whether sub-step `k` (1-based) of `substeps` is recorded as one of
/// `frames` frames: the one nearest each frame time, or every sub-step when
/// there are fewer sub-steps than frames.
fn recorded(k: usize, substeps: usize, frames: usize) -> bool {
    substeps < frames || (k * frames) / substeps > ((k - 1) * frames) / substeps
}

/// `states` evenly spaced over one period, as `frames + 1` frames evenly
/// spaced over it, interpolated linearly; unchanged when they already are.
pub fn resample(states: Vec<Vec<Vec2>>, frames: usize) -> Vec<Vec<Vec2>> {
    let steps = states.len() - 1;
    if steps == frames {
        return states;
    }
    (0..=frames)
        .map(|i| {
            let x = i as f64 * steps as f64 / frames as f64;
            let j = (x.floor() as usize).min(steps - 1);
            let s = x - j as f64;
            states[j]
                .iter()
                .zip(&states[j + 1])
                .map(|(a, b)| *a + (*b - *a) * s)
                .collect()
        })
        .collect()
}

/// A periodic input at the end of each sub-step of one period: `f(t)` for
/// t = k / substeps, k = 1..=substeps, taken modulo 1 (the last is t = 0).
fn period_inputs<T>(substeps: usize, f: impl Fn(f64) -> T) -> Vec<T> {
    (1..=substeps)
        .map(|k| f((k as f64 / substeps as f64) % 1.0))
        .collect()
}

/// Step `chain` through `inputs` (the inputs of sub-steps 1, 2, … of one
/// period), recording its particles at the start and after every recorded
/// sub-step ([`recorded`]).
fn record(
    chain: &mut Chain,
    p: &ChainParams,
    lp: &LoopParams,
    inputs: &[(Vec2, Vec2)],
    dt: f64,
) -> Vec<Vec<Vec2>> {
    let mut frames = Vec::with_capacity(lp.frames.min(inputs.len()) + 1);
    frames.push(chain.pos.clone());
    let mut from = 0;
    for k in 1..=inputs.len() {
        if recorded(k, lp.substeps, lp.frames) {
            chain.run(p, &inputs[from..k], dt);
            frames.push(chain.pos.clone());
            from = k;
        }
    }
    chain.run(p, &inputs[from..], dt);
    frames
}

/// How a warm-up went ([`warm_up`]).
struct Warm {
    periods: usize,
    prewarm: usize,
    converged: bool,
}

/// Runs `chain` through whole periods of `inputs` (the sub-steps' inputs
/// of one period, step `dt`) until a period moves its particles by less
/// than `lp.seam_eps_px`, or `lp.max_periods`: pre-warmed at the long step
/// first where that is allowed (see the module docs).
fn warm_up(
    chain: &mut Chain,
    p: &ChainParams,
    lp: &LoopParams,
    inputs: &[(Vec2, Vec2)],
    dt: f64,
) -> Warm {
    let mut warm = Warm {
        periods: 0,
        prewarm: 0,
        converged: false,
    };
    let long_dt = dt * PREWARM_STEPS as f64;
    // (damping that keeps at most PREWARM_MAX_KEPT of the velocity over
    // a period: a loop the chain falls into from any start)
    let damped = p.damping.powi(inputs.len() as i32) <= PREWARM_MAX_KEPT;
    if damped && inputs.len().is_multiple_of(PREWARM_STEPS) && long_dt <= PREWARM_MAX_DT_S {
        let start = chain.clone();
        let long = ChainParams {
            damping: p.damping.powi(PREWARM_STEPS as i32),
            ..p.clone()
        };
        // each long step takes the input at its end, as a sub-step does
        let long_inputs: Vec<(Vec2, Vec2)> = inputs
            .iter()
            .skip(PREWARM_STEPS - 1)
            .step_by(PREWARM_STEPS)
            .copied()
            .collect();
        let (periods, _) = run_until(
            chain,
            (&long, &long_inputs, long_dt),
            lp.max_periods / 2,
            PREWARM_UNTIL_PX,
        );
        warm.periods += periods;
        warm.prewarm += periods;
        // (the velocity a long step left, per sub-step)
        for (prev, &x) in chain.prev.iter_mut().zip(&chain.pos) {
            *prev = x + (*prev - x) * (1.0 / PREWARM_STEPS as f64);
        }
        // a pre-warm that left the numbers (a step too long for this chain)
        // is undone: the fine warm-up starts where it would have
        let finite = |v: &[Vec2]| v.iter().all(|p| p.x.is_finite() && p.y.is_finite());
        if !finite(&chain.pos) || !finite(&chain.prev) {
            *chain = start;
        }
    }
    let left = lp.max_periods - warm.periods;
    let (periods, settled) = run_until(chain, (p, inputs, dt), left, lp.seam_eps_px);
    warm.periods += periods;
    warm.converged = settled;
    warm
}

/// Runs `chain` through whole periods of `inputs` (step `dt`), at most
/// `limit`, until one moves its particles by less than `below` px: the
/// periods run, and whether the last one did.
fn run_until(
    chain: &mut Chain,
    (p, inputs, dt): (&ChainParams, &[(Vec2, Vec2)], f64),
    limit: usize,
    below: f64,
) -> (usize, bool) {
    for period in 1..=limit {
        let before = chain.pos.clone();
        chain.run(p, inputs, dt);
        if max_dist(&before, &chain.pos) < below {
            return (period, true);
        }
    }
    (limit, false)
}

/// Simulate a chain into a seamless loop (see the module docs).
pub fn loop_chain(
    p: &ChainParams,
    lp: &LoopParams,
    anchor: Periodic<Vec2>,
    wind: Periodic<Vec2>,
) -> Recording {
    let dt = lp.period_s / lp.substeps as f64;
    let mut chain = Chain::hanging(anchor(0.0), p);
    // every period steps through the same inputs: evaluated once
    let inputs = period_inputs(lp.substeps, |t| (anchor(t), wind(t)));
    let warm = warm_up(&mut chain, p, lp, &inputs, dt);
    let frames = record(&mut chain, p, lp, &inputs, dt);
    let frames = resample(frames, lp.frames);
    let seam_error_px = max_dist(&frames[0], &frames[frames.len() - 1]);
    Recording {
        frames: frames.into(),
        warmup_periods: warm.periods,
        prewarm_periods: warm.prewarm,
        converged: warm.converged,
        seam_error_px,
        once: false,
    }
}

/// Simulate a chain through one play of a one-shot clip (seed 004's
/// release and decay): the chain starts at rest under the inputs of the
/// clip's first frame (anchor and wind held), then the clip plays once,
/// recorded; `seam_error_px` is the residual motion ([`residual_px`]).
/// That rest is [`Chain::at_rest`] where there is one (no warm-up
/// periods); with colliders or no force the chain hangs down and warms up
/// under the held inputs until a period moves it less than `seam_eps_px`.
pub fn once_chain(
    p: &ChainParams,
    lp: &LoopParams,
    anchor: Periodic<Vec2>,
    wind: Periodic<Vec2>,
) -> Recording {
    let dt = lp.period_s / lp.substeps as f64;
    let (a0, w0) = (anchor(0.0), wind(0.0));
    let (mut chain, warm) = match Chain::at_rest(a0, (p.gravity + w0) * (dt * dt), p) {
        Some(rest) => {
            let warm = Warm {
                periods: 0,
                prewarm: 0,
                converged: true,
            };
            (rest, warm)
        }
        None => {
            let mut chain = Chain::hanging(a0, p);
            let held = vec![(a0, w0); lp.substeps];
            let warm = warm_up(&mut chain, p, lp, &held, dt);
            (chain, warm)
        }
    };
    let inputs: Vec<(Vec2, Vec2)> = (1..=lp.substeps)
        .map(|k| {
            let t = k as f64 / lp.substeps as f64;
            (anchor(t), wind(t))
        })
        .collect();
    let frames = record(&mut chain, p, lp, &inputs, dt);
    let frames = resample(frames, lp.frames);
    let seam_error_px = residual_px(&frames);
    Recording {
        frames: frames.into(),
        warmup_periods: warm.periods,
        prewarm_periods: warm.prewarm,
        converged: warm.converged,
        seam_error_px,
        once: true,
    }
}

/// A spring through one play of a one-shot clip: at rest on its target at
/// the first frame, then recorded once; `seam_error_px` is the residual
/// motion ([`residual_px`]).
pub fn once_spring(
    stiffness: f64,
    damping: f64,
    lp: &LoopParams,
    target: Periodic<Vec2>,
) -> Recording {
    let dt = lp.period_s / lp.substeps as f64;
    let mut s = Spring {
        pos: target(0.0),
        vel: Vec2::ZERO,
    };
    let mut frames = vec![vec![s.pos]];
    for k in 1..=lp.substeps {
        let t = k as f64 / lp.substeps as f64;
        s.step(target(t), stiffness, damping, dt);
        if recorded(k, lp.substeps, lp.frames) {
            frames.push(vec![s.pos]);
        }
    }
    let seam_error_px = residual_px(&frames);
    Recording {
        frames: frames.into(),
        warmup_periods: 0,
        prewarm_periods: 0,
        converged: true,
        seam_error_px,
        once: true,
    }
}

/// A damped spring point (per unit mass) following a moving target.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Spring {
    pub pos: Vec2,
    pub vel: Vec2,
}

impl Spring {
    /// One semi-implicit Euler step: `v += (k·(target − x) − c·v)·dt; x += v·dt`.
    pub fn step(&mut self, target: Vec2, stiffness: f64, damping: f64, dt: f64) {
        let acc = (target - self.pos) * stiffness - self.vel * damping;
        self.vel += acc * dt;
        self.pos += self.vel * dt;
    }
}

/// Simulate a spring into a seamless loop; frames hold one point each.
pub fn loop_spring(
    stiffness: f64,
    damping: f64,
    lp: &LoopParams,
    target: Periodic<Vec2>,
) -> Recording {
    let dt = lp.period_s / lp.substeps as f64;
    let mut s = Spring {
        pos: target(0.0),
        vel: Vec2::ZERO,
    };
    let mut warmup = 0;
    let mut converged = false;
    let mut frames = Vec::new();
    // every period steps through the same targets: evaluated once
    let targets = period_inputs(lp.substeps, target);
    loop {
        let recording = converged || warmup >= lp.max_periods;
        let start = s.pos;
        if recording {
            frames.push(vec![s.pos]);
        }
        for (k, &target) in (1..=lp.substeps).zip(&targets) {
            s.step(target, stiffness, damping, dt);
            if recording && recorded(k, lp.substeps, lp.frames) {
                frames.push(vec![s.pos]);
            }
        }
        if recording {
            break;
        }
        warmup += 1;
        converged = start.dist(s.pos) < lp.seam_eps_px;
    }
    let seam_error_px = frames[0][0].dist(frames[frames.len() - 1][0]);
    Recording {
        frames: frames.into(),
        warmup_periods: warmup,
        prewarm_periods: 0,
        converged,
        seam_error_px,
        once: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::TAU;

    /// Seed 004's ponytail, with per-frame figures at 60 fps turned into
    /// px/s² and a per-sub-step damping, on a head bobbing 6 px.
    fn ponytail() -> (ChainParams, LoopParams) {
        (
            ChainParams {
                count: 19,
                segment: 12.0,
                iterations: 6,
                damping: 0.97f64.powf(60.0 / 3000.0),
                gravity: Vec2::new(0.0, 0.35 * 3600.0),
                colliders: vec![],
            },
            LoopParams {
                period_s: 1.0,
                substeps: 3000,
                frames: 60,
                seam_eps_px: 1e-4,
                max_periods: 200,
            },
        )
    }

    fn bob(t: f64) -> Vec2 {
        Vec2::new(200.0, 80.0 + 6.0 * (TAU * t).sin())
    }

    fn breeze(t: f64) -> Vec2 {
        Vec2::new(0.12 * 3600.0 * (1.0 + 0.5 * (TAU * t).cos()), 0.0)
    }

    #[test]
    fn deterministic_and_seamless() {
        let (p, lp) = ponytail();
        let a = loop_chain(&p, &lp, &bob, &breeze);
        let b = loop_chain(&p, &lp, &bob, &breeze);
        assert_eq!(a, b);
        assert!(a.converged, "warm-up {}", a.warmup_periods);
        assert!(a.seam_error_px <= 0.1, "seam {}", a.seam_error_px);
        assert_eq!(a.frames.len(), lp.frames + 1);
    }

    #[test]
    fn distance_constraints_hold_on_every_frame() {
        let (p, lp) = ponytail();
        let r = loop_chain(&p, &lp, &bob, &breeze);
        for f in r.frames.iter() {
            for w in f.windows(2) {
                let err = (w[0].dist(w[1]) - p.segment).abs() / p.segment;
                assert!(err < 0.01, "segment off by {:.3} %", err * 100.0);
            }
        }
    }

    #[test]
    fn halving_the_step_changes_little() {
        // The same physical system at dt and dt/2 (damping per second held).
        let (p, lp) = ponytail();
        let coarse = loop_chain(&p, &lp, &bob, &breeze);
        let mut p2 = p.clone();
        p2.damping = p.damping.sqrt();
        let lp2 = LoopParams {
            substeps: lp.substeps * 2,
            ..lp
        };
        let fine = loop_chain(&p2, &lp2, &bob, &breeze);
        let worst = coarse
            .frames
            .iter()
            .zip(fine.frames.iter())
            .map(|(a, b)| max_dist(a, b))
            .fold(0.0, f64::max);
        assert!(worst < 0.1, "moved {worst} px");
    }

    /// A short, heavily damped hair (3 particles, 0.8 of its velocity
    /// kept per 1/60 s) with `p`'s passes and gravity.
    fn short_hair(p: &ChainParams) -> ChainParams {
        ChainParams {
            count: 3,
            segment: 13.5,
            damping: 0.8f64.powf(60.0 / 3000.0),
            ..p.clone()
        }
    }

    /// A pre-warmed loop is the loop a warm-up at the fine step alone
    /// records, to well under what is written (0.01 px), for less work:
    /// counted in fine sub-steps, on a looping chain in wind and on one
    /// settling under held inputs (a one-shot clip's start), both of seed
    /// 004's stiffness and of a short, heavily damped hair.
    #[test]
    fn a_pre_warmed_loop_is_the_fine_steps_loop_for_less_work() {
        let (p, lp) = ponytail();
        let hair = short_hair(&p);
        let dt = lp.period_s / lp.substeps as f64;
        let held = vec![(bob(0.0), breeze(0.0)); lp.substeps];
        let looping = period_inputs(lp.substeps, |t| (bob(t), breeze(t)));
        for (what, p) in [("ponytail", &p), ("hair", &hair)] {
            for inputs in [&looping, &held] {
                let mut plain = Chain::hanging(bob(0.0), p);
                // (a warm-up without the pre-warm: every period at the fine step)
                let (fine_periods, settled) =
                    run_until(&mut plain, (p, inputs, dt), lp.max_periods, lp.seam_eps_px);
                assert!(settled, "{what}: never settled");
                let mut warmed = Chain::hanging(bob(0.0), p);
                let warm = warm_up(&mut warmed, p, &lp, inputs, dt);
                assert!(warm.converged, "{what}");
                assert!(warm.prewarm >= 1, "{what}: pre-warmed {}", warm.prewarm);
                // the work in fine sub-steps' worth, pre-warm periods at 1/4
                let work = (warm.periods - warm.prewarm) * PREWARM_STEPS + warm.prewarm;
                assert!(
                    work < fine_periods * PREWARM_STEPS,
                    "{what}: {} + {}/4 periods vs {fine_periods}",
                    warm.periods - warm.prewarm,
                    warm.prewarm
                );
                let a = record(&mut plain, p, &lp, inputs, dt);
                let b = record(&mut warmed, p, &lp, inputs, dt);
                let worst = a
                    .iter()
                    .zip(&b)
                    .map(|(a, b)| max_dist(a, b))
                    .fold(0.0, f64::max);
                assert!(worst < 1e-3, "{what}: the recordings differ by {worst} px");
            }
        }
        // neither an almost undamped chain nor one stepped at seed 004's
        // 1/60 s frames is pre-warmed
        let loose = ChainParams {
            damping: 0.9999999,
            ..p.clone()
        };
        let few = LoopParams {
            max_periods: 3,
            ..lp
        };
        assert_eq!(loop_chain(&loose, &few, &bob, &breeze).prewarm_periods, 0);
        let seed = LoopParams { substeps: 60, ..lp };
        assert_eq!(loop_chain(&p, &seed, &bob, &breeze).prewarm_periods, 0);
        assert!(loop_chain(&p, &lp, &bob, &breeze).prewarm_periods > 0);
    }

    /// [`Chain::at_rest`] across the family of chains a rig can hold
    /// (2 to 64 particles, 1 to 12 passes, short and long segments), a
    /// force from every side, at the fine sub-step and at seed 004's 1/60 s
    /// frame: a state [`Chain::step`] leaves where it is, straight along
    /// the force, every segment at least its length.
    #[test]
    fn at_rest_is_a_state_the_step_leaves_still() {
        let mut cases = 0;
        for count in [2, 3, 5, 12, 40, 64] {
            for iterations in [1, 2, 6, 12] {
                for segment in [3.0, 13.5, 40.0] {
                    for (k, force) in [50.0, 1260.0, 8000.0].into_iter().enumerate() {
                        for dt in [1.0 / 3600.0, 1.0 / 60.0] {
                            let angle = TAU * (k as f64 * 3.0 + count as f64) / 8.3;
                            let g = Vec2::new(angle.cos(), angle.sin()) * force;
                            let p = ChainParams {
                                count,
                                segment,
                                iterations,
                                damping: 0.9,
                                gravity: g,
                                colliders: vec![],
                            };
                            let anchor = Vec2::new(170.0, -35.0);
                            let acc = g * (dt * dt);
                            let what = format!(
                                "{count} × {segment} px, {iterations} passes, {force} px/s², dt {dt}"
                            );
                            let rest = Chain::at_rest(anchor, acc, &p)
                                .unwrap_or_else(|| panic!("{what}: no rest found"));
                            assert_eq!(rest.pos[0], anchor, "{what}");
                            let mut stepped = rest.clone();
                            stepped.step(&p, anchor, Vec2::ZERO, dt);
                            let moved = max_dist(&rest.pos, &stepped.pos);
                            assert!(moved < 1e-9, "{what}: a step moves it {moved} px");
                            for w in rest.pos.windows(2) {
                                let d = w[1] - w[0];
                                let off_line = (d.x * g.y - d.y * g.x).abs() / force;
                                assert!(off_line < 1e-9, "{what}: {off_line} px off the line");
                                assert!(
                                    d.x * g.x + d.y * g.y > 0.0,
                                    "{what}: a segment turns back"
                                );
                                assert!(
                                    d.len() >= segment - 1e-9,
                                    "{what}: a segment {} px",
                                    d.len()
                                );
                            }
                            cases += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(cases, 6 * 4 * 3 * 3 * 2);
    }

    /// Where a chain held still comes to rest by stepping (from hanging
    /// down, warmed up until a period moves it less than 10⁻⁴ px) is
    /// [`Chain::at_rest`], to well under what is written: seed 004's
    /// ponytail and a short damped hair, in a breeze from either side.
    /// And no rest is found where it is not the straight line: with a
    /// collider, or with no force at all.
    #[test]
    fn at_rest_is_where_a_held_chain_settles() {
        let (p, lp) = ponytail();
        let hair = short_hair(&p);
        let dt = lp.period_s / lp.substeps as f64;
        for (what, p) in [("ponytail", &p), ("hair", &hair)] {
            for wind in [Vec2::new(-500.0, 0.0), Vec2::new(300.0, -200.0)] {
                let held = vec![(bob(0.0), wind); lp.substeps];
                let mut stepped = Chain::hanging(bob(0.0), p);
                let warm = warm_up(&mut stepped, p, &lp, &held, dt);
                assert!(warm.converged, "{what}");
                let rest = Chain::at_rest(bob(0.0), (p.gravity + wind) * (dt * dt), p).unwrap();
                let apart = max_dist(&rest.pos, &stepped.pos);
                assert!(apart < 1e-3, "{what}, wind {wind:?}: {apart} px apart");
            }
        }
        let acc = p.gravity * (dt * dt);
        let leaning = ChainParams {
            colliders: vec![(Vec2::new(0.0, 40.0), 10.0)],
            ..p.clone()
        };
        assert!(Chain::at_rest(Vec2::ZERO, acc, &leaning).is_none());
        assert!(Chain::at_rest(Vec2::ZERO, Vec2::ZERO, &p).is_none());
        // a one-shot clip starts at that rest, with no warm-up, where
        // there is one; it warms up as before where there is none
        let once = once_chain(&p, &lp, &bob, &breeze);
        let rest = Chain::at_rest(bob(0.0), (p.gravity + breeze(0.0)) * (dt * dt), &p).unwrap();
        assert_eq!(once.frames[0], rest.pos);
        assert_eq!((once.warmup_periods, once.converged), (0, true));
        let leaning = once_chain(&leaning, &lp, &bob, &breeze);
        assert!(leaning.warmup_periods > 0 && leaning.converged);
    }

    #[test]
    fn a_coarse_step_is_kept_whole_and_interpolated_to_the_frames() {
        // seed 004's scheme: one step per 1/60 s, fewer steps than frames
        let (mut p, mut lp) = ponytail();
        lp.substeps = 60;
        p.damping = 0.97;
        p.iterations = 2;
        let r = loop_chain(&p, &lp, &bob, &breeze);
        assert_eq!(r.frames.len(), lp.frames + 1);
        assert!(r.converged && r.seam_error_px <= 0.1, "{}", r.seam_error_px);
        // 60 frames of 60 steps: every frame is a step; resampled to 120,
        // odd frames lie halfway between their neighbours
        let twice = resample(r.frames.to_vec(), 120);
        assert_eq!(twice.len(), 121);
        for k in 0..=60 {
            assert!(max_dist(&twice[2 * k], &r.frames[k]) < 1e-9);
        }
        let mid = (r.frames[7][18] + r.frames[8][18]) * 0.5;
        assert!(twice[15][18].dist(mid) < 1e-9);
    }

    #[test]
    fn a_chain_that_blows_up_never_counts_as_settled() {
        let (mut p, lp) = ponytail();
        p.gravity = Vec2::new(0.0, f64::NAN);
        let r = loop_chain(&p, &lp, &bob, &breeze);
        assert!(!r.converged);
        assert!(r.seam_error_px.is_nan());
    }

    #[test]
    fn colliders_push_particles_out() {
        let (mut p, lp) = ponytail();
        p.colliders = vec![(Vec2::new(200.0, 160.0), 30.0)];
        let r = loop_chain(&p, &lp, &bob, &breeze);
        for f in r.frames.iter() {
            for q in &f[1..] {
                assert!(q.dist(Vec2::new(200.0, 160.0)) >= 30.0 - 1e-6);
            }
        }
    }

    /// The step is the plain one bit for bit: the ponytail in wind, with
    /// colliders, coarse steps with few passes, many passes, one pass, two
    /// and four particles, and particles on top of one another (the
    /// skipped zero-length pair).
    #[test]
    fn step_is_the_plain_step() {
        let (p, lp) = ponytail();
        let mut pushed = p.clone();
        pushed.colliders = vec![
            (Vec2::new(205.0, 150.0), 25.0),
            (Vec2::new(190.0, 260.0), 10.0),
        ];
        let mut coarse = p.clone();
        coarse.iterations = 2;
        coarse.damping = 0.97;
        let mut two = p.clone();
        two.count = 2;
        // more passes than one wave (a group of 8 and one of 5), and
        // fewer pairs than a full wave needs
        let mut many = p.clone();
        many.iterations = 13;
        let mut short = p.clone();
        short.count = 4;
        short.iterations = 7;
        let mut one = p.clone();
        one.iterations = 1;
        for (params, dt) in [
            (&p, lp.period_s / lp.substeps as f64),
            (&pushed, lp.period_s / lp.substeps as f64),
            (&coarse, 1.0 / 60.0),
            (&two, 1.0 / 3600.0),
            (&many, 1.0 / 600.0),
            (&short, 1.0 / 3600.0),
            (&one, 1.0 / 3600.0),
        ] {
            let mut fast = stacked(params);
            let mut plain = fast.clone();
            for k in 0..3000 {
                let t = k as f64 / 3000.0;
                fast.step(params, bob(t), breeze(t), dt);
                plain.step_reference(params, bob(t), breeze(t), dt);
                same_bits(&fast, &plain, &format!("step {k}"));
            }
        }
    }

    /// A chain hanging from `bob(0)` with a stack of coincident particles
    /// half way down (those past the seventh, up to the tenth).
    fn stacked(params: &ChainParams) -> Chain {
        let mut c = Chain::hanging(bob(0.0), params);
        for i in 8.min(params.count - 1)..11.min(params.count) {
            c.pos[i] = c.pos[7.min(params.count - 1)];
            c.prev[i] = c.pos[i];
        }
        c
    }

    /// Every position and previous position of `a` is `b`'s, bit for bit.
    fn same_bits(a: &Chain, b: &Chain, at: &str) {
        for (p, q) in a.pos.iter().chain(&a.prev).zip(b.pos.iter().chain(&b.prev)) {
            assert_eq!(
                (p.x.to_bits(), p.y.to_bits()),
                (q.x.to_bits(), q.y.to_bits()),
                "{at}"
            );
        }
    }

    /// A run of sub-steps is the plain steps one after the other, bit for
    /// bit: runs of 1, 2, 6 and 500 sub-steps, short and long chains, one
    /// and many passes, coincident particles, and colliders (stepped one by
    /// one).
    #[test]
    fn a_run_is_the_plain_steps() {
        let (p, _) = ponytail();
        let mut pushed = p.clone();
        pushed.colliders = vec![(Vec2::new(205.0, 150.0), 25.0)];
        let mut many = p.clone();
        many.iterations = 13;
        let mut two = p.clone();
        two.count = 2;
        let mut short = p.clone();
        short.count = 3;
        short.iterations = 7;
        let mut one = p.clone();
        one.iterations = 1;
        let dt = 1.0 / 3000.0;
        for params in [&p, &pushed, &many, &two, &short, &one] {
            let mut fast = stacked(params);
            let mut plain = fast.clone();
            let mut k = 0;
            for len in [1, 2, 6, 500, 3, 500] {
                let inputs: Vec<(Vec2, Vec2)> = (k..k + len)
                    .map(|j| {
                        let t = j as f64 / 3000.0;
                        (bob(t), breeze(t))
                    })
                    .collect();
                fast.run(params, &inputs, dt);
                for &(a, w) in &inputs {
                    plain.step_reference(params, a, w, dt);
                }
                k += len;
                let at = format!(
                    "{} particles, {} passes, after step {k}",
                    params.count, params.iterations
                );
                same_bits(&fast, &plain, &at);
            }
        }
    }

    #[test]
    fn spring_lags_and_overshoots_then_loops() {
        // Seed 000's head spring: stiffness 260, damping 26.
        let lp = LoopParams {
            period_s: 0.8,
            substeps: 400,
            frames: 40,
            seam_eps_px: 1e-6,
            max_periods: 100,
        };
        let target = |t: f64| Vec2::new(0.0, if t < 0.5 { 0.0 } else { 10.0 });
        let r = loop_spring(260.0, 26.0, &lp, &target);
        assert!(r.converged && r.seam_error_px < 0.1);
        let ys: Vec<f64> = r.frames.iter().map(|f| f[0].y).collect();
        // lags: still short of the step a moment after it
        assert!(ys[21] < 9.0);
        // overshoots: goes past 10 before settling
        assert!(ys.iter().any(|&y| y > 10.0));
    }
}
