//! IK chains (`ik_chains`): two-bone chains whose root and target each
//! follow a [`Trajectory`] over one period, and an optional scrolling ground.
//!
//! **Bake (css route).** Each chain is drawn in its t = 0 pose. Two outer
//! groups translate it with the root (`Anim::Translate` X then Y, value
//! `root(t) − root(0)`); inside, the thigh group rotates about the drawn hip
//! by `θ_thigh(t) − θ_thigh(0)` and the shin group, nested in it, about the
//! drawn knee by `(θ_shin(t) − θ_shin(0)) − (θ_thigh(t) − θ_thigh(0))` (the
//! world→local rule of the cycling bake; translation does not change
//! angles). The target marker translates along the target trajectory the
//! same way. **smil route:** one `M root L knee L ankle` path per chain,
//! morphed with absolute points (root included); the marker as on css.
//!
//! **Keys.** With `--keys N` (or the rig's `keys` and no tolerance) every
//! track shares `N` uniform keys. With a tolerance (`tolerance_px` or
//! `--tolerance`) keys are fitted per track with [`fit::refine`]:
//! - css route: each chain's thigh and shin rotations and root X/Y
//!   translations are one problem, judged by the written hip, knee and ankle
//!   against the solved pose; the marker's X/Y translations another, judged
//!   against the ideal target within `max(tolerance, MARKER_PX)`. Segments
//!   are exact cubic Hermites (`--fit cubic`, the default here) with slopes
//!   from the ideal curves. Keys start at 0, 1, each curve's extrema and the
//!   ideal's corners ([`IdealTarget::corners`]: gait stance ends, the bob's
//!   bounce, path joins, where a pull starts); a key at a corner gives each
//!   side its own one-sided slope ([`fit::sided_slopes`]).
//! - smil route: one key-time set per chain morph, linear (a keySpline
//!   would retime every point of the morph jointly), judged by the morph's
//!   root, knee and ankle chords against the solved pose. The fitted times
//!   are kept when they write fewer keys in all than the fewest uniform keys
//!   meeting the tolerance (the search of earlier versions: grow `n`, error
//!   of linear keys falls as 1/n²); otherwise the uniform keys are.
//!
//! The fitter's estimate is its own; the written clip is then measured
//! (every ankle within the tolerance of its ideal target, every marker within
//! `max(tolerance, MARKER_PX)`) and refitted tighter if it misses, as
//! [`crate::bake_rig`] does for the cycling legs.
//!
//! **Reach.** `"error"`: a target outside `[|thigh − shin|, thigh + shin]`
//! of its root at any of [`REACH_SAMPLES`] times is an input error (a
//! narrower excursion between samples is not caught). `"clamp"`: reach
//! toward it; the gap counts as error. `"pull"`: seed 000's rule, the
//! target is pulled back along root→target to `thigh + shin − 1.5` when it
//! is farther; the pulled point is then the ideal.
//!
//! **Ground and foot slip.** `ground` draws a row of dots at `y` that
//! translates left at `speed` px/s; the travel per period must be a whole
//! number of dot spacings, so the loop is seamless (`spacing = speed ·
//! period / dots_per_period`). With `"follow": "<chain>"` the speed is that
//! chain's gait speed `stride ÷ (duty · period)` (= stride × cadence ÷ duty).
//! The measure stage reports **slip** for every chain whose target is a gait:
//! over each stance interval, `|Δankle − Δground|` of the written probes
//! (the signed integral of the relative velocity), px per step.

pub use crate::clip::GROUND_PROBE;
use crate::clip::{Anim, Axis, Clip, Ease, Item, Key, LegInfo, Morph, Node, Route, Track};
use crate::fit::{self, Estimate, FIT_SAMPLES, Fit, Problem};
use crate::geom::{DEG_DECIMALS, LEN_DECIMALS, SEC_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::geom::{Rem1, Unwrapped};
use crate::solve::ik;
use crate::solve::ik::Knee;
pub use crate::trajectory::{IdealTarget, REACH_SAMPLES};
use crate::trajectory::{Trajectory, TrajectoryFile};
use crate::valid::RigError;
use crate::valid::{check_len as len, check_num as num, invalid};
use serde::{Deserialize, Serialize};
use std::cell::RefCell;
use std::rc::Rc;

/// Largest distance between a drawn target marker and its ideal target
/// accepted by the key search, px (the marker is only a visual aid: errors
/// are measured against the ideal target).
pub const MARKER_PX: f64 = 0.5;
/// Seed 000's margin for `"reach": "pull"`, px.
pub const PULL_MARGIN_PX: f64 = 1.5;
/// Dense samples used to unwrap the angle series.
const UNWRAP_SAMPLES: usize = 4096;

/// What to do when a chain's target is out of reach.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum ChainReach {
    #[default]
    Error,
    Clamp,
    Pull,
}

/// One entry of `ik_chains` in the rig file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IkChainFile {
    pub name: String,
    pub root: TrajectoryFile,
    pub target: TrajectoryFile,
    pub thigh: f64,
    pub shin: f64,
    #[serde(default)]
    pub knee: Knee,
    #[serde(default)]
    pub reach: ChainReach,
    #[serde(default)]
    pub depth_offset: [f64; 2],
}

/// `ground` in the rig file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GroundFile {
    /// Ground line, user units.
    pub y: f64,
    /// Dots are drawn over `[from_x, to_x]` at every time.
    pub from_x: f64,
    pub to_x: f64,
    /// Dots passing a point per period (whole number, ≥ 1).
    pub dots_per_period: usize,
    /// Chain whose gait sets the speed (in a bone tree: an `ik` entry, by
    /// its `name` or its upper bone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow: Option<String>,
    /// Explicit speed instead of `follow`, px/s (leftward).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_px_s: Option<f64>,
}

/// A validated chain.
#[derive(Debug, Clone, PartialEq)]
pub struct IkChain {
    pub name: String,
    pub root: Trajectory,
    pub target: Trajectory,
    pub thigh: f64,
    pub shin: f64,
    pub knee: Knee,
    pub reach: ChainReach,
    pub depth_offset: Vec2,
}

/// A validated ground.
#[derive(Debug, Clone, PartialEq)]
pub struct Ground {
    pub y: f64,
    pub from_x: f64,
    pub to_x: f64,
    /// Leftward speed, px/s.
    pub speed_px_s: f64,
    pub dots_per_period: usize,
}

impl IkChain {
    pub fn ideal(&self) -> IdealTarget {
        IdealTarget {
            root: self.root.clone(),
            target: self.target.clone(),
            pull_to: (self.reach == ChainReach::Pull)
                .then_some(self.thigh + self.shin - PULL_MARGIN_PX),
            offset: self.depth_offset,
        }
    }

    /// The hip (root), knee and ankle at t = 0, before `depth_offset`: IK
    /// toward the target, pulled back for `"reach": "pull"`. The pose the
    /// template draws and `bake --art` checks a drawing against.
    pub fn phase0(&self) -> [Vec2; 3] {
        let root = self.root.at(0.0);
        let p = ik::solve(root, self.ideal().at(0.0), self.thigh, self.shin, self.knee);
        [root, p.joint, p.end]
    }

    /// Gait speed of the target, px/s (`stride ÷ (duty · period)`), if it is a gait.
    pub fn gait_speed_px_s(&self, period_s: f64) -> Option<f64> {
        match &self.target {
            Trajectory::Gait { stride, duty, .. } => Some(stride / (duty * period_s)),
            // the mean speed: the travel per loop over the period
            Trajectory::TimedGait(g) => Some(g.travel_per_loop() / period_s),
            _ => None,
        }
    }
}

/// Most `ik_chains` in one rig (each fitted to a tolerance costs up to
/// about a third of a second).
pub const MAX_IK_CHAINS: usize = 8;

/// Validate `ik_chains` (non-empty) and `ground` of a rig file.
pub fn validate(
    ik_chains: &[IkChainFile],
    ground: Option<&GroundFile>,
    period_s: f64,
) -> Result<(Vec<IkChain>, Option<Ground>), RigError> {
    let mut chains: Vec<IkChain> = Vec::new();
    if ik_chains.len() > MAX_IK_CHAINS {
        return Err(invalid(
            "ik_chains",
            format!("at most {MAX_IK_CHAINS} chains, got {}", ik_chains.len()),
        ));
    }
    for (i, cf) in ik_chains.iter().enumerate() {
        let p = format!("ik_chains[{i}]");
        crate::valid::check_name(&format!("{p}.name"), &cf.name)?;
        if let Some(j) = chains.iter().position(|c| c.name == cf.name) {
            return Err(invalid(
                format!("{p}.name"),
                format!("{:?} is already the name of ik_chains[{j}]", cf.name),
            ));
        }
        let chain = IkChain {
            name: cf.name.clone(),
            root: cf.root.validate(&format!("{p}.root"))?,
            target: cf.target.validate(&format!("{p}.target"))?,
            thigh: len(&format!("{p}.thigh"), cf.thigh)?,
            shin: len(&format!("{p}.shin"), cf.shin)?,
            knee: cf.knee,
            reach: cf.reach,
            depth_offset: Vec2::new(
                num(&format!("{p}.depth_offset[0]"), cf.depth_offset[0])?,
                num(&format!("{p}.depth_offset[1]"), cf.depth_offset[1])?,
            ),
        };
        if chain.reach == ChainReach::Error {
            check_reach(&p, &chain)?;
        }
        chains.push(chain);
    }
    let ground = match ground {
        None => None,
        Some(g) => Some(validate_ground(g, &chains, period_s)?),
    };
    Ok((chains, ground))
}

fn check_reach(p: &str, c: &IkChain) -> Result<(), RigError> {
    let (lo, hi) = ((c.thigh - c.shin).abs(), c.thigh + c.shin);
    for k in 0..REACH_SAMPLES {
        let t = k as f64 / REACH_SAMPLES as f64;
        let d = c.target.at(t).dist(c.root.at(t));
        let why = if d > hi + 1e-9 {
            Some(format!("more than thigh + shin by {:.2} px", d - hi))
        } else if d < lo - 1e-9 || d < 1e-9 {
            Some(format!(
                "less than |thigh - shin| by {:.2} px",
                (lo - d).max(0.0)
            ))
        } else {
            None
        };
        if let Some(why) = why {
            return Err(invalid(
                p,
                format!(
                    "chain {:?} cannot reach its target at t = {t:.4}: root-to-target distance {d:.2} is {why} (change the trajectories or bone lengths, or set \"reach\": \"clamp\" or \"pull\")",
                    c.name
                ),
            ));
        }
    }
    Ok(())
}

pub fn validate_ground(
    g: &GroundFile,
    chains: &[IkChain],
    period_s: f64,
) -> Result<Ground, RigError> {
    let y = num("ground.y", g.y)?;
    let from_x = num("ground.from_x", g.from_x)?;
    let to_x = num("ground.to_x", g.to_x)?;
    if to_x <= from_x {
        return Err(invalid("ground.to_x", "must be greater than ground.from_x"));
    }
    if !(1..=1000).contains(&g.dots_per_period) {
        return Err(invalid(
            "ground.dots_per_period",
            format!("must be between 1 and 1000, got {}", g.dots_per_period),
        ));
    }
    let speed_px_s = match (&g.follow, g.speed_px_s) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "ground.speed_px_s",
                "give either `follow` or `speed_px_s`, not both",
            ));
        }
        (None, None) => {
            return Err(invalid(
                "ground",
                "needs `follow` (a chain with a gait target) or `speed_px_s`",
            ));
        }
        (None, Some(v)) => len("ground.speed_px_s", v)?,
        (Some(name), None) => {
            let Some(c) = chains.iter().find(|c| &c.name == name) else {
                return Err(invalid("ground.follow", format!("no chain named {name:?}")));
            };
            c.gait_speed_px_s(period_s).ok_or_else(|| {
                invalid(
                    "ground.follow",
                    format!("chain {name:?} has no gait target to take the speed from"),
                )
            })?
        }
    };
    let travel = speed_px_s * period_s;
    let spacing = travel / g.dots_per_period as f64;
    if spacing < 1.0 || (to_x - from_x + travel) / spacing > 2000.0 {
        return Err(invalid(
            "ground.dots_per_period",
            format!(
                "gives a dot spacing of {spacing:.3} px; it must be ≥ 1 px and at most 2000 dots drawn"
            ),
        ));
    }
    Ok(Ground {
        y,
        from_x,
        to_x,
        speed_px_s,
        dots_per_period: g.dots_per_period,
    })
}

fn q(p: Vec2) -> Vec2 {
    Vec2::new(quantize(p.x, LEN_DECIMALS), quantize(p.y, LEN_DECIMALS))
}

fn track(name: String, times: &[f64], values: impl Fn(usize) -> f64) -> Track {
    Track {
        name,
        keys: times
            .iter()
            .enumerate()
            .map(|(i, &t)| Key {
                t,
                value: values(i),
                ease: Ease::Linear,
            })
            .collect(),
    }
}

/// One keyed scalar of a chain (a rotation in degrees or a translation in
/// px) as an exact curve of normalised time, before rounding.
struct Curve<'a> {
    /// Track (and class) name.
    name: String,
    f: Box<dyn Fn(f64) -> f64 + 'a>,
    decimals: u32,
}

/// An exact value with its slopes from the left and from the right.
type Sided = (f64, f64, f64);

/// Where a [`PointProblem`]'s curve values put its written points.
#[derive(Clone, Copy)]
enum Place {
    /// A chain's hip, knee and ankle. Values: the thigh and shin rotations
    /// (degrees), then the root's X and Y shifts (px) at the indices
    /// `shift` (absent where that axis never moves). The drawn `thigh` and
    /// `shin` vectors turn about the drawn `hip`, moved by `off` and the
    /// shift. The hip and knee depend on every value but the shin's.
    Chain {
        hip: Vec2,
        thigh: Vec2,
        shin: Vec2,
        off: Vec2,
        shift: [Option<usize>; 2],
    },
    /// A target marker drawn at `at`, moved by its X and Y shifts (values
    /// at `shift`), the one point repeated.
    Marker { at: Vec2, shift: [Option<usize>; 2] },
}

impl Place {
    /// The written points for curve values `v`.
    fn points(&self, v: &[f64]) -> Points {
        let moved = |shift: [Option<usize>; 2]| {
            Vec2::new(
                shift[0].map_or(0.0, |i| v[i]),
                shift[1].map_or(0.0, |i| v[i]),
            )
        };
        match *self {
            Place::Chain {
                hip,
                thigh,
                shin,
                off,
                shift,
            } => {
                let (a1, a2) = (v[0].to_radians(), v[1].to_radians());
                let h = off + moved(shift) + hip;
                let k = h + thigh.turned(a1);
                [h, k, k + shin.turned(a1 + a2)]
            }
            Place::Marker { at, shift } => [at + moved(shift); 3],
        }
    }

    /// The index of the value that moves only the last point (a chain's
    /// shin), if there is one.
    fn last_only(&self) -> Option<usize> {
        match self {
            Place::Chain { .. } => Some(1),
            Place::Marker { .. } => None,
        }
    }
}

/// Up to three points judged together (hip, knee, ankle; or the marker
/// alone, repeated).
type Points = [Vec2; 3];

fn farthest(a: &Points, b: &Points) -> f64 {
    a.iter().zip(b).map(|(p, q)| p.dist(*q)).fold(0.0, f64::max)
}

/// Key placement for a group of tracks judged jointly by the written points
/// they move (a chain's hip, knee and ankle, or its target marker) against
/// their ideal positions: each curve is one key-time set of a
/// [`fit::Problem`].
struct PointProblem<'a> {
    curves: Vec<Curve<'a>>,
    place: Place,
    fit: Fit,
    ts: Vec<f64>,
    /// Exact values of every curve at `ts`.
    ideal: Vec<Vec<f64>>,
    targets: Vec<Points>,
    corners: Vec<f64>,
    /// (set, key time in millionths) → (value, slope in, slope out).
    cache: RefCell<fnv::FnvHashMap<(usize, i64), Sided>>,
    /// The base (the last estimate that completed) and scratch for a
    /// trial: see [`PointState`].
    last: RefCell<Option<PointState>>,
}

/// What an estimate of a [`PointProblem`] keeps for the next one. An
/// estimate is a trial against the base, the last estimate that completed:
/// only the samples whose segments differ from the base's
/// ([`fit::changed_samples`], per set) are evaluated, into the `trial_`
/// buffers; a bounded estimate ([`Problem::estimate_within`]) stops at the first
/// sample over its bound and leaves the base as it was (the fitter then
/// goes back to the base's keys, so the next trial again differs from it by
/// its own change only); one that completes becomes the base. Every value
/// and error is computed as a fresh estimate computes it, so the result is
/// a fresh estimate's to the bit.
struct PointState {
    /// Key times of the base, per set (empty before the first estimate).
    times: Vec<Vec<f64>>,
    /// The base's written values, per set and sample.
    vals: Vec<Vec<f64>>,
    /// The base's error per sample.
    errs: Vec<f64>,
    /// The base's second written point (a chain's knee) per sample, and
    /// the larger of the first two points' distances from their targets
    /// (folded from 0 as [`farthest`] folds them): a sample whose values
    /// change only in [`Place::last_only`] takes them as they are and
    /// measures its last point alone.
    seconds: Vec<Vec2>,
    nearer: Vec<f64>,
    /// The base's max ([`fit::max_estimate`]: −1 when every error is NaN)
    /// and its first sample.
    max: f64,
    worst: usize,
    /// A trial's values (per set, over the samples its set changed), and
    /// its errors, second points and partial maxima (over the samples any
    /// set changed).
    trial_vals: Vec<Vec<f64>>,
    trial_errs: Vec<f64>,
    trial_seconds: Vec<Vec2>,
    trial_nearer: Vec<f64>,
}

impl<'a> PointProblem<'a> {
    fn new(
        curves: Vec<Curve<'a>>,
        place: Place,
        target: &dyn Fn(f64) -> Points,
        corners: Vec<f64>,
        fit: Fit,
    ) -> Self {
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        PointProblem {
            ideal: curves
                .iter()
                .map(|c| ts.iter().map(|&t| (c.f)(t)).collect())
                .collect(),
            targets: ts.iter().map(|&t| target(t)).collect(),
            ts,
            curves,
            place,
            fit,
            corners,
            cache: RefCell::default(),
            last: RefCell::new(None),
        }
    }

    /// Keys of set `set` at its candidate times, exact values and one-sided
    /// slopes memoised per key time.
    fn keys(&self, times: &[f64], set: usize) -> Vec<Key> {
        self.keys_in(times, set, 0..times.len())
    }

    /// [`Self::keys`] for the run `window` of the key times only (its last
    /// key's ease left linear: no segment of the run starts there), as
    /// [`fit::keys_spanning`] chooses it for a run of samples.
    fn keys_in(&self, times: &[f64], set: usize, window: std::ops::Range<usize>) -> Vec<Key> {
        let f = &self.curves[set].f;
        let times = &times[window];
        let mut cache = self.cache.borrow_mut();
        let samples: Vec<Sided> = times
            .iter()
            .map(|&t| {
                *cache
                    .entry((set, (t * 1e6).round() as i64))
                    .or_insert_with(|| {
                        let (l, r) = match self.fit {
                            Fit::Cubic => fit::sided_slopes(f, t),
                            Fit::Linear => (0.0, 0.0),
                        };
                        (f(t), l, r)
                    })
            })
            .collect();
        fit::keys_from_sided(times, &samples, self.fit, self.curves[set].decimals)
    }

    /// The written tracks for the chosen key times.
    fn tracks(&self, times: &[Vec<f64>]) -> Vec<Track> {
        self.curves
            .iter()
            .enumerate()
            .map(|(s, c)| Track {
                name: c.name.clone(),
                keys: self.keys(&times[s], s),
            })
            .collect()
    }

    /// The estimate of `times` if its max is within `bound`, else `None`
    /// (see [`PointState`]: only the samples a trial changed are
    /// evaluated, and a bounded one stops at its first sample over the
    /// bound, trying first the sample of the base's max).
    fn bounded(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        let (n, sets) = (self.ts.len(), self.sets());
        let mut last = self.last.borrow_mut();
        let fresh = last.is_none();
        let st = last.get_or_insert_with(|| PointState {
            times: vec![Vec::new(); sets],
            vals: vec![vec![0.0; n]; sets],
            errs: vec![0.0; n],
            seconds: vec![Vec2::ZERO; n],
            nearer: vec![0.0; n],
            max: -1.0,
            worst: 0,
            trial_vals: vec![vec![0.0; n]; sets],
            trial_errs: vec![0.0; n],
            trial_seconds: vec![Vec2::ZERO; n],
            trial_nearer: vec![0.0; n],
        });
        let spans: Vec<std::ops::Range<usize>> = (0..sets)
            .map(|s| {
                if fresh {
                    0..n
                } else {
                    fit::changed_samples(&st.times[s], &times[s], &self.ts).unwrap_or(0..0)
                }
            })
            .collect();
        let dirty = spans
            .iter()
            .filter(|r| !r.is_empty())
            .cloned()
            .fold(None, |u, r| fit::union(u, Some(r)))
            .unwrap_or(0..0);
        let over = |e: f64| e > bound;
        // a sample the trial leaves alone is over the bound already (all
        // are within it when the base's max is)
        if !fresh && over(st.max) {
            if !dirty.contains(&st.worst) {
                return None;
            }
            let outside = st.errs[..dirty.start].iter().chain(&st.errs[dirty.end..]);
            if outside.copied().any(over) {
                return None;
            }
        }
        // the changed sets' values over their changed samples, from the
        // keys those samples' segments read
        for (s, span) in spans.iter().enumerate() {
            if span.is_empty() {
                continue;
            }
            let (lo, hi) = (self.ts[span.start], self.ts[span.end - 1]);
            let keys = self.keys_in(&times[s], s, fit::keys_spanning(&times[s], lo, hi));
            fit::eval_keys_into(
                &keys,
                &self.ts[span.clone()],
                &mut st.trial_vals[s][span.clone()],
            );
        }
        let PointState {
            times: base_times,
            vals,
            errs,
            seconds,
            nearer,
            max,
            worst,
            trial_vals,
            trial_errs,
            trial_seconds,
            trial_nearer,
        } = st;
        let last_only = self.place.last_only();
        let mut at = vec![0.0; sets];
        let mut error = |i: usize| {
            let mut first_two = false;
            for (s, span) in spans.iter().enumerate() {
                at[s] = if span.contains(&i) {
                    first_two |= Some(s) != last_only;
                    trial_vals[s][i]
                } else {
                    vals[s][i]
                };
            }
            let target = &self.targets[i];
            if let (false, Place::Chain { shin, .. }) = (first_two, self.place) {
                // only the ankle moved: the hip and knee as in the base,
                // the last step of `farthest`'s fold alone
                let (a1, a2) = (at[0].to_radians(), at[1].to_radians());
                let ankle = seconds[i] + shin.turned(a1 + a2);
                (trial_seconds[i], trial_nearer[i]) = (seconds[i], nearer[i]);
                return nearer[i].max(ankle.dist(target[2]));
            }
            let p = self.place.points(&at);
            let near = 0.0f64.max(p[0].dist(target[0])).max(p[1].dist(target[1]));
            (trial_seconds[i], trial_nearer[i]) = (p[1], near);
            near.max(p[2].dist(target[2]))
        };
        // the base's worst sample first: a trial that fails usually fails there
        if bound.is_finite() && dirty.contains(worst) && over(error(*worst)) {
            return None;
        }
        for i in dirty.clone() {
            let e = error(i);
            if over(e) {
                return None;
            }
            trial_errs[i] = e;
        }
        // the trial completed: it becomes the base
        for (s, span) in spans.iter().enumerate() {
            vals[s][span.clone()].copy_from_slice(&trial_vals[s][span.clone()]);
            base_times[s].clone_from(&times[s]);
        }
        errs[dirty.clone()].copy_from_slice(&trial_errs[dirty.clone()]);
        seconds[dirty.clone()].copy_from_slice(&trial_seconds[dirty.clone()]);
        nearer[dirty.clone()].copy_from_slice(&trial_nearer[dirty]);
        let mut best = fit::max_estimate(&self.ts, errs);
        let worst_i = self.ts.partition_point(|&t| t < best.worst_t);
        (*max, *worst) = (best.max_px, worst_i);
        // blame the set whose own error alone moves the point most
        let exact: Vec<f64> = self.ideal.iter().map(|v| v[worst_i]).collect();
        let p = self.place.points(&exact);
        let mut most = -1.0;
        for s in 0..sets {
            let mut mixed = exact.clone();
            mixed[s] = vals[s][worst_i];
            let d = farthest(&self.place.points(&mixed), &p);
            if d > most {
                most = d;
                best.blame = s;
            }
        }
        Some(best).filter(|e| e.max_px <= bound)
    }
}

impl Problem for PointProblem<'_> {
    fn sets(&self) -> usize {
        self.curves.len()
    }

    fn estimate(&self, times: &[Vec<f64>]) -> Estimate {
        self.bounded(times, f64::INFINITY)
            .expect("an unbounded estimate always completes")
    }

    fn estimate_within(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        self.bounded(times, bound)
    }

    fn split_at(&self, times: &[Vec<f64>], set: usize, lo: f64, hi: f64, worst_t: f64) -> f64 {
        let keys = self.keys(&times[set], set);
        fit::worst_between(&keys, &self.ts, &self.ideal[set], lo, hi).unwrap_or(worst_t)
    }

    fn initial(&self, set: usize) -> Vec<f64> {
        let mut v = vec![0.0, 1.0];
        let f = &self.curves[set].f;
        for t in self.corners.iter().copied().chain(fit::extrema(f)) {
            fit::insert_sorted(&mut v, t);
        }
        v
    }
}

/// Fitting a chain's smil `d` morph: one key-time set; the ankle moves on
/// straight chords between keyed positions.
struct MorphProblem<'a> {
    pose: Box<dyn Fn(f64) -> Points + 'a>,
    ts: Vec<f64>,
    targets: Vec<Points>,
    corners: Vec<f64>,
    /// Rounded poses by key time's bits: the fitter revisits the same key
    /// times many times (every shift trial re-estimates every key).
    keyed: RefCell<std::collections::BTreeMap<u64, Points>>,
    /// The base (the last estimate that completed) and a trial's scratch,
    /// as for [`PointProblem`] ([`PointState`]).
    last: RefCell<Option<MorphState>>,
}

/// What an estimate of a [`MorphProblem`] keeps for the next one: the
/// base's key times (empty before the first estimate), errors per sample,
/// max ([`fit::max_estimate`]) and its first sample, and a trial's errors
/// over the samples it changed. A trial is evaluated against the base and
/// becomes it only when it completes, as a [`PointState`] trial does.
struct MorphState {
    times: Vec<f64>,
    errs: Vec<f64>,
    max: f64,
    worst: usize,
    trial: Vec<f64>,
}

impl MorphProblem<'_> {
    /// The error at sample `i` of the chords between the rounded poses
    /// `keyed` at key times `tk`, the sample in segment `seg` (the one
    /// [`fit::linear_estimate`] assigns it: a sample on a key time starts
    /// the next segment).
    fn error(&self, tk: &[f64], keyed: &[Points], i: usize, seg: usize) -> f64 {
        let t = self.ts[i];
        let f = ((t - tk[seg]) / (tk[seg + 1] - tk[seg])).clamp(0.0, 1.0);
        let (a, b) = (&keyed[seg], &keyed[seg + 1]);
        let p = [0, 1, 2].map(|j| a[j] + (b[j] - a[j]) * f);
        farthest(&p, &self.targets[i])
    }

    /// The estimate of key times `tk` if its max is within `bound`, else
    /// `None`: only the samples whose segments differ from the base's are
    /// evaluated, the base's worst first, stopping at the first over the
    /// bound ([`MorphState`]). The errors are a fresh estimate's to the bit.
    fn bounded(&self, tk: &[f64], bound: f64) -> Option<Estimate> {
        let n = self.ts.len();
        let mut last = self.last.borrow_mut();
        let fresh = last.is_none();
        let MorphState {
            times,
            errs,
            max,
            worst,
            trial,
        } = last.get_or_insert_with(|| MorphState {
            times: Vec::new(),
            errs: vec![0.0; n],
            max: -1.0,
            worst: 0,
            trial: vec![0.0; n],
        });
        let dirty = if fresh {
            0..n
        } else {
            fit::changed_samples(times, tk, &self.ts).unwrap_or(0..0)
        };
        let over = |e: f64| e > bound;
        // a sample the trial leaves alone is over the bound already
        if !fresh && over(*max) {
            if !dirty.contains(worst) {
                return None;
            }
            let outside = errs[..dirty.start].iter().chain(&errs[dirty.end..]);
            if outside.copied().any(over) {
                return None;
            }
        }
        if !dirty.is_empty() {
            let keyed: Vec<Points> = {
                let mut memo = self.keyed.borrow_mut();
                tk.iter()
                    .map(|&t| {
                        *memo
                            .entry(t.to_bits())
                            .or_insert_with(|| (self.pose)(t).map(q))
                    })
                    .collect()
            };
            let seg_of = |t: f64| tk[1..tk.len() - 1].partition_point(|&x| x <= t);
            // the base's worst sample first: a trial that fails usually fails there
            if bound.is_finite() && dirty.contains(worst) {
                let i = *worst;
                if over(self.error(tk, &keyed, i, seg_of(self.ts[i]))) {
                    return None;
                }
            }
            let mut seg = seg_of(self.ts[dirty.start]);
            for i in dirty.clone() {
                while seg + 2 < tk.len() && self.ts[i] >= tk[seg + 1] {
                    seg += 1;
                }
                let e = self.error(tk, &keyed, i, seg);
                if over(e) {
                    return None;
                }
                trial[i] = e;
            }
        }
        // the trial completed: it becomes the base
        errs[dirty.clone()].copy_from_slice(&trial[dirty]);
        times.clear();
        times.extend_from_slice(tk);
        let best = fit::max_estimate(&self.ts, errs);
        *max = best.max_px;
        *worst = self.ts.partition_point(|&t| t < best.worst_t);
        Some(best).filter(|e| e.max_px <= bound)
    }
}

impl Problem for MorphProblem<'_> {
    fn sets(&self) -> usize {
        1
    }

    fn estimate(&self, times: &[Vec<f64>]) -> Estimate {
        self.bounded(&times[0], f64::INFINITY)
            .expect("an unbounded estimate always completes")
    }

    fn estimate_within(&self, times: &[Vec<f64>], bound: f64) -> Option<Estimate> {
        self.bounded(&times[0], bound)
    }

    fn split_at(&self, _: &[Vec<f64>], _: usize, _: f64, _: f64, worst_t: f64) -> f64 {
        worst_t
    }

    fn initial(&self, _: usize) -> Vec<f64> {
        let mut v = fit::uniform_times(4);
        for &t in &self.corners {
            fit::insert_sorted(&mut v, t);
        }
        v
    }
}

/// Where a chain's key times come from.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChainKeying {
    /// `n` uniform keys on every track.
    Uniform(usize),
    /// Greedy placement up to `n` keys per track ([`fit::fill`]).
    Budget(usize),
    /// The fewest keys the fitter finds that keep each ankle within
    /// `ankle_px` and each marker within `marker_px` ([`fit::refine`], its
    /// own estimate).
    Tolerance { ankle_px: f64, marker_px: f64 },
}

/// A chain's unwrapped (thigh, shin) world angles by time ([`angles_at`]),
/// each time solved once: the thigh and shin curves, the ideal pose the
/// fitters judge against and the smil keys ask for many of the same times
/// (the fitters' samples, the extrema grid, key times and their slope
/// steps), and each solve inverts a `path` target's arc length again. A
/// memo by the time's bits, so every answer is [`angles_at`]'s; it keeps
/// one entry per distinct time asked for as long as the chain's curves
/// live (one bake).
struct Angles<'a> {
    c: &'a IkChain,
    ideal: Rc<IdealTarget>,
    /// The unwrapped table the angles are continuous with.
    dense: Unwrapped,
    memo: RefCell<fnv::FnvHashMap<u64, (f64, f64)>>,
}

impl Angles<'_> {
    /// [`angles_at`] at t.
    fn at(&self, t: f64) -> (f64, f64) {
        if let Some(&a) = self.memo.borrow().get(&t.to_bits()) {
            return a;
        }
        let a = angles_at(self.c, &self.ideal, &self.dense, t);
        self.memo.borrow_mut().insert(t.to_bits(), a);
        a
    }

    /// Root, knee and ankle of the ideal pose at t (before
    /// `depth_offset`), from [`Self::at`].
    fn pose(&self, t: f64) -> [Vec2; 3] {
        let (a, b) = self.at(t);
        let r = self.c.root.at(t);
        let k = r + Vec2::from_angle(a) * self.c.thigh;
        [r, k, k + Vec2::from_angle(b) * self.c.shin]
    }
}

/// A chain's exact curves and drawn (t = 0) pose.
struct ChainCurves<'a> {
    c: &'a IkChain,
    ideal: Rc<IdealTarget>,
    /// Unwrapped (thigh, shin) world angles, radians.
    angles: Rc<Angles<'a>>,
    r0: Vec2,
    g0: Vec2,
    a0: (f64, f64),
    hip: Vec2,
    knee: Vec2,
    ankle: Vec2,
}

impl<'a> ChainCurves<'a> {
    fn new(c: &'a IkChain) -> Self {
        let ideal = Rc::new(c.ideal());
        let dense = Unwrapped::new(|t| {
            let p = ik::solve(c.root.at(t), ideal.at(t), c.thigh, c.shin, c.knee);
            (p.bone1_rad, p.bone2_rad)
        });
        let angles = Rc::new(Angles {
            c,
            ideal: ideal.clone(),
            dense,
            memo: RefCell::default(),
        });
        let a0 = angles.at(0.0);
        let r0 = c.root.at(0.0);
        let hip = q(r0);
        let knee = q(r0 + Vec2::from_angle(a0.0) * c.thigh);
        let ankle = q(knee + Vec2::from_angle(a0.1) * c.shin);
        ChainCurves {
            c,
            g0: q(ideal.at(0.0)),
            ideal,
            angles,
            r0,
            a0,
            hip,
            knee,
            ankle,
        }
    }

    /// The thigh and shin rotations (degrees, parent-relative) as curves.
    fn rotation(&self, cls: &str, shin: bool) -> Curve<'a> {
        let (angles, a0) = (self.angles.clone(), self.a0);
        Curve {
            name: format!("{cls}-{}", if shin { "shin" } else { "thigh" }),
            f: Box::new(move |t| {
                let (a, b) = angles.at(t);
                if shin {
                    ((b - a0.1) - (a - a0.0)).to_degrees()
                } else {
                    (a - a0.0).to_degrees()
                }
            }),
            decimals: DEG_DECIMALS,
        }
    }

    /// The root's translation along one axis, px, if it ever moves.
    fn root_shift(&self, cls: &str, axis: Axis) -> Option<Curve<'a>> {
        let (root, r0) = (&self.c.root, self.r0);
        let f = move |t: f64| pick(root.at(t) - r0, axis);
        moving(&f).then(|| Curve {
            name: axis_name(cls, axis),
            f: Box::new(f),
            decimals: LEN_DECIMALS,
        })
    }

    /// The marker's translation along one axis, px, if it ever moves.
    fn marker_shift(&self, cls: &str, axis: Axis) -> Option<Curve<'a>> {
        let (ideal, g0) = (self.ideal.clone(), self.g0);
        let f = move |t: f64| pick(ideal.at(t) - g0, axis);
        let name = axis_name(&format!("{cls}-t"), axis);
        moving(&f).then(|| Curve {
            name,
            f: Box::new(f),
            decimals: LEN_DECIMALS,
        })
    }

    /// The ankle's key problem: thigh, shin, root X, root Y (those that move).
    fn ankle_problem(&self, cls: &str, fit: Fit) -> (PointProblem<'a>, [Option<usize>; 2]) {
        let mut curves = vec![self.rotation(cls, false), self.rotation(cls, true)];
        let mut at = [None, None];
        for (i, axis) in [Axis::X, Axis::Y].into_iter().enumerate() {
            if let Some(cv) = self.root_shift(cls, axis) {
                at[i] = Some(curves.len());
                curves.push(cv);
            }
        }
        let (hip, th0, sh0, off) = (
            self.hip,
            self.knee - self.hip,
            self.ankle - self.knee,
            self.c.depth_offset,
        );
        let place = Place::Chain {
            hip,
            thigh: th0,
            shin: sh0,
            off,
            shift: at,
        };
        let (ideal, angles) = (&self.ideal, &self.angles);
        let p = PointProblem::new(
            curves,
            place,
            &|t| angles.pose(t).map(|p| p + off),
            ideal.corners(),
            fit,
        );
        (p, at)
    }

    /// The marker's key problem: its X and Y translations (those that move).
    fn marker_problem(&self, cls: &str, fit: Fit) -> PointProblem<'a> {
        let mut curves = Vec::new();
        let mut at = [None, None];
        for (i, axis) in [Axis::X, Axis::Y].into_iter().enumerate() {
            if let Some(cv) = self.marker_shift(cls, axis) {
                at[i] = Some(curves.len());
                curves.push(cv);
            }
        }
        let (g0, off) = (self.g0, self.c.depth_offset);
        let place = Place::Marker {
            at: off + g0,
            shift: at,
        };
        let ideal = self.ideal.clone();
        PointProblem::new(
            curves,
            place,
            &|t| [ideal.world_at(t); 3],
            ideal.corners(),
            fit,
        )
    }

    /// The smil morph's key problem.
    fn morph_problem(&self) -> MorphProblem<'a> {
        let angles = self.angles.clone();
        let ts: Vec<f64> = (0..=FIT_SAMPLES)
            .map(|k| k as f64 / FIT_SAMPLES as f64)
            .collect();
        let corners = self.ideal.corners();
        let targets = ts.iter().map(|&t| self.angles.pose(t)).collect();
        MorphProblem {
            pose: Box::new(move |t| angles.pose(t)),
            ts,
            targets,
            corners,
            keyed: Default::default(),
            last: RefCell::new(None),
        }
    }
}

/// Unwrapped (thigh, shin) world angles at t, radians, continuous with the
/// unwrapped table.
fn angles_at(c: &IkChain, ideal: &IdealTarget, dense: &Unwrapped, t: f64) -> (f64, f64) {
    let p = ik::solve(c.root.at(t), ideal.at(t), c.thigh, c.shin, c.knee);
    dense.at(t, (p.bone1_rad, p.bone2_rad))
}

fn pick(v: Vec2, axis: Axis) -> f64 {
    match axis {
        Axis::X => v.x,
        Axis::Y => v.y,
    }
}

fn axis_name(cls: &str, axis: Axis) -> String {
    match axis {
        Axis::X => format!("{cls}-x"),
        Axis::Y => format!("{cls}-y"),
    }
}

/// Whether a translation ever rounds to something other than 0.
fn moving(f: &dyn Fn(f64) -> f64) -> bool {
    (0..=UNWRAP_SAMPLES).any(|k| quantize(f(k as f64 / UNWRAP_SAMPLES as f64), LEN_DECIMALS) != 0.0)
}

/// Key times for every set of a problem (`marker`: judged against the
/// marker tolerance).
fn place_keys(p: &dyn Problem, keying: ChainKeying, marker: bool) -> Vec<Vec<f64>> {
    match keying {
        ChainKeying::Uniform(n) => vec![fit::uniform_times(n); p.sets()],
        ChainKeying::Budget(n) => fit::fill(p, n),
        ChainKeying::Tolerance {
            ankle_px,
            marker_px,
        } => fit::refine(
            p,
            if marker { marker_px } else { ankle_px },
            crate::fit::MAX_FIT_KEYS,
        ),
    }
}

/// Path units per px of the path data an exact marker moves along
/// ([`crate::clip::MotionPath::scale`]): Chromium measures path length by
/// flattening to 0.5 path units, which at 1 unit per px puts the marker up
/// to 0.19 px off the arc-length point; at 100 it is within 0.005 px.
pub const MOTION_PATH_SCALE: f64 = 100.0;

/// Decimal places of that path data (0.1 unit: rounding moves the path by
/// at most 0.0007 px).
pub const MOTION_PATH_DECIMALS: u32 = 1;

/// The target marker's disc and probe, drawn at `at`.
fn marker_items(chain: &str, at: Vec2, r: f64) -> Vec<Item> {
    vec![
        Item::Circle {
            center: at,
            r,
            class: "rb-joint".into(),
        },
        Item::Probe {
            name: format!("{chain}-target"),
            at,
        },
    ]
}

/// The motion of an exact target marker: a `path` target (constant speed
/// by arc length) that the solver aims at itself (not `"reach": "pull"`,
/// whose aimed point leaves the path) is written as the path and a
/// distance fraction `(start + sign·t) mod 1` ([`Anim::Motion`]). On the
/// css route the fraction runs 0 → 1 (1 → 0 in reverse) and the phase is a
/// negative delay; on the smil route the phase is in the keyPoints
/// (`s;1;0;s` at `0;1−s;1−s;1`), which the millisecond clock of Firefox's
/// SMIL cannot round. `None` for every other target: the marker is keyed.
/// Shared by `ik_chains` and bone trees' `ik` target probes.
pub fn exact_marker(
    target: &Trajectory,
    reach: ChainReach,
    route: Route,
    period_s: f64,
) -> Option<Anim> {
    use crate::geom::T_DECIMALS;
    if reach == ChainReach::Pull {
        return None;
    }
    let (d, start, sign) = target.path_data(MOTION_PATH_SCALE, MOTION_PATH_DECIMALS)?;
    let s = quantize(start, T_DECIMALS).rem1();
    let forward = sign > 0.0;
    let (keys, delay) = match route {
        Route::Css => {
            let keys = if forward {
                vec![(0.0, 0.0), (1.0, 1.0)]
            } else {
                vec![(0.0, 1.0), (1.0, 0.0)]
            };
            // progress u = t + lead; forward f = u, reverse f = 1 − u
            let lead = if forward { s } else { (1.0 - s).rem1() };
            (keys, -quantize(lead * period_s, SEC_DECIMALS))
        }
        Route::Smil if s == 0.0 => {
            let keys = if forward {
                vec![(0.0, 0.0), (1.0, 1.0)]
            } else {
                vec![(0.0, 1.0), (1.0, 0.0)]
            };
            (keys, 0.0)
        }
        Route::Smil => {
            let keys = if forward {
                let j = quantize(1.0 - s, T_DECIMALS);
                vec![(0.0, s), (j, 1.0), (j, 0.0), (1.0, s)]
            } else {
                vec![(0.0, s), (s, 0.0), (s, 1.0), (1.0, s)]
            };
            (keys, 0.0)
        }
    };
    Some(Anim::Motion {
        path: crate::clip::MotionPath::new(d, MOTION_PATH_SCALE),
        keys,
        delay_s: if delay == 0.0 { 0.0 } else { delay },
    })
}

/// A translate pair (X outside, Y inside) around `children`; `x`, `y` are
/// the tracks (absent when that axis never moves).
fn translated(
    tracks: &mut Vec<Track>,
    x: Option<Track>,
    y: Option<Track>,
    static_at: Vec2,
    children: Vec<Item>,
) -> Node {
    let mut inner = Node {
        class: None,
        translate: Vec2::ZERO,
        anim: None,
        children,
    };
    if let Some(tr) = y {
        inner.class = Some(tr.name.clone());
        tracks.push(tr);
        inner.anim = Some(Anim::Translate {
            track: tracks.len() - 1,
            axis: Axis::Y,
            delay_s: 0.0,
        });
    }
    let mut outer = Node {
        class: None,
        translate: static_at,
        anim: None,
        children: vec![Item::Group(inner)],
    };
    if let Some(tr) = x {
        outer.class = Some(tr.name.clone());
        tracks.push(tr);
        outer.anim = Some(Anim::Translate {
            track: tracks.len() - 1,
            axis: Axis::X,
            delay_s: 0.0,
        });
    }
    outer
}

/// Split fitted tracks of a translate problem into (X, Y).
fn xy(tracks: Vec<Track>) -> (Option<Track>, Option<Track>) {
    let mut x = None;
    let mut y = None;
    for tr in tracks {
        if tr.name.ends_with("-x") {
            x = Some(tr);
        } else {
            y = Some(tr);
        }
    }
    (x, y)
}

/// Bake a chain rig with `n` uniform linear keys.
pub fn bake_chains(
    name: &str,
    view_box: [f64; 4],
    period_s: f64,
    chains: &[IkChain],
    ground: Option<&Ground>,
    route: Route,
    n: usize,
) -> Clip {
    bake_chains_with(
        name,
        view_box,
        period_s,
        chains,
        ground,
        route,
        ChainKeying::Uniform(n),
        Fit::Linear,
    )
}

/// Bake a chain rig (see the module docs). `fit` applies to the css route's
/// tracks and both routes' marker tracks; the smil morph is always linear.
#[allow(clippy::too_many_arguments)]
pub fn bake_chains_with(
    name: &str,
    view_box: [f64; 4],
    period_s: f64,
    chains: &[IkChain],
    ground: Option<&Ground>,
    route: Route,
    keying: ChainKeying,
    fit: Fit,
) -> Clip {
    let mut tracks = Vec::new();
    let mut markers = Vec::new();
    let mut limbs = Vec::new();
    let mut legs = Vec::new();
    for (ci, c) in chains.iter().enumerate() {
        let cv = ChainCurves::new(c);
        let ideal = (*cv.ideal).clone();
        let cls = format!("rb-{}", c.name);
        let width = crate::emit::style::limb_width(c.thigh, c.shin);
        let colour = format!("rb-bone rb-s{}", ci.min(1));
        let marker_r = quantize(width * 0.6, 1);
        let marker_tracks = tracks.len();
        let marker = match exact_marker(&c.target, c.reach, route, period_s) {
            // the marker rides on the written path: it is the ideal target
            Some(anim) => Node {
                class: None,
                translate: c.depth_offset,
                anim: None,
                children: vec![Item::Group(Node {
                    class: Some(format!("{cls}-t")),
                    translate: Vec2::ZERO,
                    anim: Some(anim),
                    children: marker_items(&c.name, Vec2::ZERO, marker_r),
                })],
            },
            // otherwise translated along the ideal target by keys
            None => {
                let mp = cv.marker_problem(&cls, fit);
                let (mx, my) = xy(mp.tracks(&place_keys(&mp, keying, true)));
                translated(
                    &mut tracks,
                    mx,
                    my,
                    c.depth_offset,
                    marker_items(&c.name, cv.g0, marker_r),
                )
            }
        };
        markers.push(Item::Group(marker));
        let marker_tracks: Vec<usize> = (marker_tracks..tracks.len()).collect();
        let mut info = LegInfo {
            name: c.name.clone(),
            ankle_probe: format!("{}-ankle", c.name),
            target_probe: format!("{}-target", c.name),
            thigh: c.thigh,
            shin: c.shin,
            tracks: Vec::new(),
            fit,
            reuses: None,
            ideal: Some(ideal),
        };
        let limb = match route {
            Route::Css => {
                let (ap, at) = cv.ankle_problem(&cls, fit);
                let mut fitted = ap.tracks(&place_keys(&ap, keying, false)).into_iter();
                let thigh_tr = fitted.next().expect("thigh");
                let shin_tr = fitted.next().expect("shin");
                let rest: Vec<Track> = fitted.collect();
                let mut rest = rest.into_iter();
                let rx = at[0].map(|_| rest.next().expect("root x"));
                let ry = at[1].map(|_| rest.next().expect("root y"));
                tracks.push(thigh_tr);
                let thigh_track = tracks.len() - 1;
                tracks.push(shin_tr);
                let shin_track = tracks.len() - 1;
                let (hip, knee, ankle) = (cv.hip, cv.knee, cv.ankle);
                let shin = Node {
                    class: Some(format!("{cls}-shin")),
                    translate: Vec2::ZERO,
                    anim: Some(Anim::Rotate {
                        track: shin_track,
                        origin: knee,
                        delay_s: 0.0,
                    }),
                    children: vec![
                        Item::Line {
                            from: knee,
                            to: ankle,
                            class: colour.clone(),
                            width,
                        },
                        Item::Probe {
                            name: format!("{}-ankle", c.name),
                            at: ankle,
                        },
                    ],
                };
                let thigh = Node {
                    class: Some(format!("{cls}-thigh")),
                    translate: Vec2::ZERO,
                    anim: Some(Anim::Rotate {
                        track: thigh_track,
                        origin: hip,
                        delay_s: 0.0,
                    }),
                    children: vec![
                        Item::Line {
                            from: hip,
                            to: knee,
                            class: colour.clone(),
                            width,
                        },
                        Item::Group(shin),
                    ],
                };
                info.tracks = vec![thigh_track, shin_track];
                let before = tracks.len();
                let node = translated(
                    &mut tracks,
                    rx,
                    ry,
                    c.depth_offset,
                    vec![Item::Group(thigh)],
                );
                info.tracks.extend(before..tracks.len());
                node
            }
            Route::Smil => {
                info.fit = Fit::Linear;
                let times = place_keys(&cv.morph_problem(), keying, false).remove(0);
                let keys = times
                    .iter()
                    .map(|&t| {
                        let [r, k, e] = cv.angles.pose(t);
                        (t, vec![q(r), q(k), q(e)])
                    })
                    .collect();
                Node {
                    class: None,
                    translate: c.depth_offset,
                    anim: None,
                    children: vec![Item::Morph(Morph {
                        class: colour.clone(),
                        width,
                        probe: Some(format!("{}-ankle", c.name)),
                        cubic: false,
                        keys,
                    })],
                }
            }
        };
        info.tracks.extend(marker_tracks);
        legs.push(info);
        limbs.push(Item::Group(limb));
    }
    let mut children = Vec::new();
    if let Some(g) = ground {
        children.push(Item::Group(ground_node(g, period_s, &mut tracks)));
    }
    children.extend(markers);
    // chains are listed front to back: draw the last first
    children.extend(limbs.into_iter().rev());
    Clip {
        name: name.to_string(),
        route,
        period_s: quantize(period_s, SEC_DECIMALS),
        view_box,
        tracks,
        root: Node {
            children,
            ..Node::default()
        },
        legs,
        figure: None,
        ground_wrap_px: None,
    }
}

pub fn ground_node(g: &Ground, period_s: f64, tracks: &mut Vec<Track>) -> Node {
    let travel = g.speed_px_s * period_s;
    let spacing = travel / g.dots_per_period as f64;
    spaced_ground_node(g, spacing, travel, travel, None, tracks)
}

/// Largest gap between a ground's travel and the straight keys written
/// for it ([`ground_keys`]), px.
pub const GROUND_KEY_PX: f64 = 0.01;

/// Linear keys `(t, −travel(t))` for a ground whose speed changes over the
/// loop (`travel(t)` px moved left from t = 0): the fewest uniform keys of
/// 20, 40, 50, 100, …, 1000 (times exact in three decimals) whose chords
/// stay within [`GROUND_KEY_PX`] of the travel at four points per segment;
/// 1000 keys if none does.
pub fn ground_keys(travel: &dyn Fn(f64) -> f64) -> Vec<(f64, f64)> {
    const COUNTS: [usize; 8] = [20, 40, 50, 100, 200, 250, 500, 1000];
    for n in COUNTS {
        let t = |i: usize| i as f64 / n as f64;
        let ok = (0..n).all(|i| {
            let (a, b) = (travel(t(i)), travel(t(i + 1)));
            [0.2, 0.4, 0.5, 0.6, 0.8].iter().all(|&u| {
                let x = t(i) + u / n as f64;
                (a + (b - a) * u - travel(x)).abs() <= GROUND_KEY_PX
            })
        });
        if ok || n == 1000 {
            return (0..=n).map(|i| (t(i), -travel(t(i)))).collect();
        }
    }
    unreachable!("the last count always returns")
}

/// The keys of a ground row that wraps: the travel keys `keys` (`(t,
/// −travel(t))`, from [`ground_keys`]) reduced modulo `spacing`, so the
/// row never moves more than one dot spacing left of where it is drawn.
/// Each time the travel passes a whole number of spacings, the row steps
/// back by one spacing within one written key time (10⁻⁶ of the period,
/// two keys that far apart): every dot lands where its right-hand
/// neighbour was, so the row looks the same and scrolls on. Between the
/// steps the keys are those of `keys` (and points on their chords), so the
/// written row moves as the unwrapped one does, minus whole spacings; the
/// measure adds them back ([`crate::measure::ground_unwrap`]).
pub fn wrapped_ground_keys(keys: &[(f64, f64)], spacing: f64) -> Vec<(f64, f64)> {
    use crate::geom::T_DECIMALS;
    let step = 10f64.powi(-(T_DECIMALS as i32));
    let mut out: Vec<(f64, f64)> = Vec::with_capacity(keys.len() * 2);
    let push = |out: &mut Vec<(f64, f64)>, t: f64, x: f64| {
        if out.last().is_none_or(|l| t > l.0 + step / 2.0) {
            out.push((t, x));
        }
    };
    let mut teeth = 0.0;
    for w in keys.windows(2) {
        let ((t0, x0), (t1, x1)) = (w[0], w[1]);
        let at = |t: f64| x0 + (x1 - x0) * (t - t0) / (t1 - t0);
        push(&mut out, t0, x0 + teeth * spacing);
        loop {
            // where the next tooth starts: the travel passes one more spacing
            let edge = -(teeth + 1.0) * spacing;
            if x1 >= edge - 1e-9 * spacing {
                break;
            }
            let c = t0 + (edge - x0) / (x1 - x0) * (t1 - t0);
            // the last written time at or before the crossing, and the next
            let q = quantize((c / step + 1e-9).floor() * step, T_DECIMALS).max(t0);
            push(&mut out, q, at(q) + teeth * spacing);
            teeth += 1.0;
            let r = quantize(q + step, T_DECIMALS);
            push(&mut out, r, at(r) + teeth * spacing);
        }
    }
    if let Some(&(t, x)) = keys.last() {
        push(&mut out, t, x + teeth * spacing);
    }
    out
}

/// A ground row of dots `spacing` apart, enough to cover `[from_x, to_x]`
/// while it moves left by up to `max_travel` px, moving left by `travel` px
/// over the period (0: it stands still). A bone tree whose clips scroll at
/// different speeds draws one row and gives each clip its own travel.
///
/// `keys` (from [`ground_keys`]) replace the constant speed by keyed
/// travel: a ground that follows a gait whose speed changes over the loop.
/// Such a row wraps ([`wrapped_ground_keys`]): it moves at most one
/// spacing, whatever its travel, so `travel` and `max_travel` need count
/// only that spacing for it.
pub fn spaced_ground_node(
    g: &Ground,
    spacing: f64,
    travel: f64,
    max_travel: f64,
    keys: Option<&[(f64, f64)]>,
    tracks: &mut Vec<Track>,
) -> Node {
    let travel = if keys.is_some() { spacing } else { travel };
    let max_travel = max_travel.max(travel);
    let count = ((g.to_x - g.from_x + max_travel) / spacing).ceil() as usize + 1;
    let y = quantize(g.y, LEN_DECIMALS);
    let mut children: Vec<Item> = (0..count)
        .map(|i| Item::Circle {
            center: Vec2::new(quantize(g.from_x + i as f64 * spacing, LEN_DECIMALS), y),
            r: 1.5,
            class: "rb-dot".into(),
        })
        .collect();
    // on the first dot at least the longest travel along the row, so that
    // scrolling by any clip's `travel` ends at or right of `from_x`: it
    // stays within the drawn row (and the view box that shows it) the
    // whole period, and every clip of a file has it at the same place
    let dots = (max_travel / spacing - 1e-9).ceil().max(0.0);
    children.push(Item::Probe {
        name: GROUND_PROBE.into(),
        at: Vec2::new(quantize(g.from_x + dots * spacing, LEN_DECIMALS), y),
    });
    match keys {
        Some(keys) => {
            let keys = wrapped_ground_keys(keys, spacing);
            let times: Vec<f64> = keys.iter().map(|k| k.0).collect();
            tracks.push(track("rb-ground".into(), &times, |i| {
                quantize(keys[i].1, LEN_DECIMALS)
            }));
        }
        None => tracks.push(track("rb-ground".into(), &[0.0, 1.0], |i| {
            if i == 0 {
                0.0
            } else {
                -quantize(travel, LEN_DECIMALS)
            }
        })),
    }
    Node {
        class: Some("rb-ground".into()),
        translate: Vec2::ZERO,
        anim: Some(Anim::Translate {
            track: tracks.len() - 1,
            axis: Axis::X,
            delay_s: 0.0,
        }),
        children,
    }
}

/// Most uniform keys the tolerance search tries.
pub const MAX_SEARCH_KEYS: usize = 2000;

/// Worst distance between each chain's marker probe and its ideal target
/// over the measure stage's sample times, px.
pub fn marker_error_px(clip: &Clip) -> f64 {
    let probes: Vec<String> = clip.legs.iter().map(|l| l.target_probe.clone()).collect();
    let ideal = |t_s: f64| {
        clip.legs
            .iter()
            .map(|l| match &l.ideal {
                Some(ideal) => ideal.world_at(t_s / clip.period_s),
                None => Vec2::ZERO,
            })
            .collect()
    };
    let (m, _) = crate::measure::measure_probes(clip, &probes, &ideal);
    m.iter()
        .zip(&clip.legs)
        .filter(|(_, l)| l.ideal.is_some())
        .map(|(m, _)| m.max_error_px)
        .fold(0.0, f64::max)
}

/// Whether a measured chain clip meets `px` (ankles) and the marker bound.
fn meets(clip: &Clip, m: &crate::measure::Measurement, px: f64) -> (bool, f64) {
    let worst = m.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max);
    let marker = marker_error_px(clip);
    (worst <= px && marker <= MARKER_PX.max(px), marker)
}

/// [`meets`]`(clip, m, px).0`, the markers measured only when the ankles
/// are within `px` (otherwise the answer is no whatever they are).
fn meets_within(clip: &Clip, m: &crate::measure::Measurement, px: f64) -> bool {
    let worst = m.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max);
    worst <= px && marker_error_px(clip) <= MARKER_PX.max(px)
}

/// Total key times written over a clip's tracks and morphs (0 and 1 once).
fn key_count(clip: &Clip) -> usize {
    let tracks: usize = clip.tracks.iter().map(|t| t.keys.len() - 1).sum();
    let morphs: usize = clip
        .legs
        .iter()
        .filter_map(|l| clip.morph(&l.ankle_probe))
        .map(|m| m.keys.len() - 1)
        .sum();
    tracks + morphs
}

/// What [`bake_chain_rig`] needs of a rig with `ik_chains`.
#[derive(Debug, Clone)]
pub struct ChainRig<'a> {
    pub name: &'a str,
    pub view_box: [f64; 4],
    pub period_s: f64,
    /// The rig's `keys`: where the smil route's uniform key search starts.
    pub keys: Option<usize>,
    pub chains: &'a [IkChain],
    pub ground: Option<&'a Ground>,
    /// `bake --prefix`.
    pub prefix: Option<&'a str>,
    /// Static drawing (`scene` parts) behind and in front of the chains.
    pub back: Vec<crate::clip::Item>,
    pub front: Vec<crate::clip::Item>,
}

/// Bake, measure and report a chain rig. With a tolerance, keys are fitted
/// per track (css: cubic by default) and the written clip re-measured; the
/// smil route keeps whichever of the fitted and the fewest uniform keys
/// writes fewer keys. Without one, `keys` uniform keys are used.
pub fn bake_chain_rig(rig: &ChainRig, opts: &crate::fit::BakeOptions) -> crate::Baked {
    use crate::fit::Keying;
    let fit = opts.effective_fit();
    let bake = |keying: ChainKeying, fit: Fit| {
        let clip = bake_chains_with(
            rig.name,
            rig.view_box,
            rig.period_s,
            rig.chains,
            rig.ground,
            opts.route,
            keying,
            fit,
        );
        let m = crate::measure::measure(&clip);
        (clip, m)
    };
    let mut notes = Vec::new();
    let (tolerance, clip, m) = match opts.keying {
        Keying::Uniform(n) => {
            notes.push(format!(
                "ik_chains: uniform {} keys shared by every track",
                fit.as_str()
            ));
            let (clip, m) = bake(ChainKeying::Uniform(n), fit);
            (None, clip, m)
        }
        Keying::Budget(n) => {
            notes.push(format!(
                "ik_chains: at most {n} keys per track, placed by the fitter, {} segments",
                fit.as_str()
            ));
            let (clip, m) = bake(ChainKeying::Budget(n), fit);
            (None, clip, m)
        }
        Keying::Tolerance(px) | Keying::Goal(px) => {
            // fitted keys, re-measured; refit tighter if the file misses
            // (whether the kept clip met the tolerance comes along with it)
            let ((mut clip, mut m, met), _) = crate::tighten(px * 0.98, 0.8, |internal| {
                let keying = ChainKeying::Tolerance {
                    ankle_px: internal,
                    marker_px: MARKER_PX.max(px) * internal / px,
                };
                let (clip, m) = bake(keying, fit);
                let met = meets_within(&clip, &m, px);
                ((clip, m, met), met)
            });
            match opts.route {
                Route::Css => notes.push(format!(
                    "ik_chains: per-track key times fitted to the tolerance (root, thigh, shin and marker tracks), {} segments",
                    fit.as_str()
                )),
                Route::Smil => {
                    let (uclip, um, n) = uniform_search(rig, opts.route, px, &mut notes);
                    let (fitted, uniform) = (key_count(&clip), key_count(&uclip));
                    let ok = met;
                    if ok && fitted < uniform {
                        notes.push(format!(
                            "ik_chains: d morphs linear (a keySpline would retime all points of a morph jointly); fitted key times ({fitted} keys in all) beat the fewest uniform ({n} per track, {uniform} in all)"
                        ));
                    } else {
                        notes.push(format!(
                            "ik_chains: d morphs linear (a keySpline would retime all points of a morph jointly); {n} uniform keys per track ({uniform} in all), fitted key times needed {fitted}"
                        ));
                        (clip, m) = (uclip, um);
                    }
                }
            }
            // the default goal is not a promise the caller refuses on
            let asked = matches!(opts.keying, Keying::Tolerance(_));
            (asked.then_some(px), clip, m)
        }
    };
    let mut clip = clip;
    clip.root.children.splice(0..0, rig.back.iter().cloned());
    clip.root.children.extend(rig.front.iter().cloned());
    let svg = crate::emit::figure::emit_figure(
        std::slice::from_ref(&clip),
        false,
        &crate::emit::style::CHAIN_COLOURS.map(String::from),
        rig.prefix,
    );
    let report = crate::report::build(&clip, &m, svg.len(), tolerance, notes);
    crate::Baked::one(clip, svg, report)
}

/// The fewest uniform linear keys (shared by every track) that meet the
/// tolerance, grown from the rig's `keys`: linear error falls as 1/n², so
/// each step aims past the larger shortfall.
fn uniform_search(
    rig: &ChainRig,
    route: Route,
    px: f64,
    notes: &mut Vec<String>,
) -> (Clip, crate::measure::Measurement, usize) {
    let mut n = rig.keys.unwrap_or(10).max(4);
    loop {
        let clip = bake_chains(
            rig.name,
            rig.view_box,
            rig.period_s,
            rig.chains,
            rig.ground,
            route,
            n,
        );
        let m = crate::measure::measure(&clip);
        let worst = m.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max);
        let (ok, marker) = meets(&clip, &m, px);
        if ok || n >= MAX_SEARCH_KEYS {
            if n >= MAX_SEARCH_KEYS {
                notes.push(format!(
                    "key search stopped at {MAX_SEARCH_KEYS} keys (marker drift {marker:.4} px)"
                ));
            }
            return (clip, m, n);
        }
        let ratio = (worst / px).max(marker / MARKER_PX.max(px)).max(1.0);
        let next = (n as f64 * ratio.sqrt() * 1.1).ceil() as usize;
        n = next.max(n + 1).min(MAX_SEARCH_KEYS);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::Problem;
    use crate::geom::T_DECIMALS;

    /// The chains of every `ik_chains` rig in `rigs/` (its `ik_chains`
    /// and `period_s` read from the JSON, validated here).
    fn rig_chains() -> Vec<IkChain> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/rigs");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).expect("rigs/") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("a rig");
            let json: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            let Some(chains) = json.get("ik_chains") else {
                continue;
            };
            let files: Vec<IkChainFile> = serde_json::from_value(chains.clone()).expect("chains");
            let period_s = json["period_s"].as_f64().expect("period_s");
            out.extend(validate(&files, None, period_s).expect("valid chains").0);
        }
        assert!(!out.is_empty(), "rigs/ has ik_chains rigs");
        out
    }

    /// A small deterministic generator (xorshift).
    fn next(state: &mut u64) -> f64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        (*state >> 11) as f64 / (1u64 << 53) as f64
    }

    /// The memoised angles and poses are the solver's at every time, asked
    /// in any order and again: the fitters' samples, times off the grid,
    /// and the slope steps beside them.
    #[test]
    fn memoised_angles_and_poses_are_the_solvers() {
        let mut rng = 0x1234_5678_9abc_def1u64;
        for c in rig_chains() {
            let cv = ChainCurves::new(&c);
            let fresh = ChainCurves::new(&c);
            let mut ts: Vec<f64> = (0..=64).map(|k| k as f64 / 64.0).collect();
            ts.extend((0..200).map(|_| next(&mut rng)));
            ts.extend(ts.clone().iter().flat_map(|&t| [t + 1e-5, t - 2e-5]));
            ts.extend(ts.clone().iter().rev());
            for t in ts {
                let (a, b) = cv.angles.at(t);
                let (wa, wb) = angles_at(&c, &fresh.ideal, &fresh.angles.dense, t);
                assert_eq!(
                    (a.to_bits(), b.to_bits()),
                    (wa.to_bits(), wb.to_bits()),
                    "{t}"
                );
                let r = c.root.at(t);
                let k = r + Vec2::from_angle(wa) * c.thigh;
                let want = [r, k, k + Vec2::from_angle(wb) * c.shin];
                let bits = |p: [Vec2; 3]| p.map(|v| (v.x.to_bits(), v.y.to_bits()));
                assert_eq!(bits(cv.angles.pose(t)), bits(want), "{t}");
            }
        }
    }

    /// `meets_within` (markers measured only when the ankles pass) answers
    /// as `meets` does: clips that miss and meet on the ankles, the
    /// markers, both and neither, on both routes.
    #[test]
    fn meets_within_answers_as_meets() {
        let chains = rig_chains();
        let (mut yes, mut no) = (0, 0);
        for route in [Route::Css, Route::Smil] {
            for n in [4, 12, 60] {
                let clip = bake_chains("t", [0.0, 0.0, 400.0, 320.0], 1.6, &chains, None, route, n);
                let m = crate::measure::measure(&clip);
                let worst = m.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max);
                let marker = marker_error_px(&clip);
                for px in [0.01, worst.next_down(), worst, marker, 0.5, 1e6] {
                    let want = meets(&clip, &m, px).0;
                    assert_eq!(meets_within(&clip, &m, px), want, "{route:?} {n} {px}");
                    if want { yes += 1 } else { no += 1 }
                }
            }
        }
        assert!(yes > 2 && no > 2, "{yes} met, {no} missed");
    }

    /// The three estimates a chain's fit makes, from fresh problems.
    fn problems<'a>(cv: &ChainCurves<'a>) -> Vec<Box<dyn Problem + 'a>> {
        vec![
            Box::new(cv.ankle_problem("a", Fit::Cubic).0),
            Box::new(cv.ankle_problem("b", Fit::Linear).0),
            Box::new(cv.marker_problem("c", Fit::Cubic)),
            Box::new(cv.morph_problem()),
        ]
    }

    /// An estimate made after others (re-evaluating only the samples whose
    /// segments changed) is the estimate a fresh problem makes of the same
    /// key times, through every kind of change the fitter makes: a key
    /// added, removed, shifted, several at once, and back again.
    #[test]
    fn an_estimate_after_any_change_equals_a_fresh_one() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for c in rig_chains() {
            let cv = ChainCurves::new(&c);
            let kept = problems(&cv);
            for (p, kept) in kept.iter().enumerate() {
                let sets = kept.sets();
                let mut times: Vec<Vec<f64>> = (0..sets).map(|s| kept.initial(s)).collect();
                let mut history = vec![times.clone()];
                for step in 0..60 {
                    let s = (next(&mut rng) * sets as f64) as usize % sets;
                    let v = &mut times[s];
                    match step % 4 {
                        0 => {
                            fit::insert_sorted(v, next(&mut rng));
                        }
                        1 if v.len() > 2 => {
                            let i = 1 + (next(&mut rng) * (v.len() - 2) as f64) as usize;
                            v.remove(i.min(v.len() - 2));
                        }
                        2 if v.len() > 2 => {
                            let i = 1 + (next(&mut rng) * (v.len() - 2) as f64) as usize;
                            let i = i.min(v.len() - 2);
                            let t = quantize(v[i] + (next(&mut rng) - 0.5) * 0.01, T_DECIMALS);
                            if t - v[i - 1] >= fit::MIN_GAP && v[i + 1] - t >= fit::MIN_GAP {
                                v[i] = t;
                            }
                        }
                        _ => {
                            // back to an earlier list (a rejected trial)
                            let back = (next(&mut rng) * history.len() as f64) as usize;
                            times = history[back.min(history.len() - 1)].clone();
                        }
                    }
                    history.push(times.clone());
                    let fresh = problems(&cv).swap_remove(p).estimate(&times);
                    let bits = |e: Estimate| (e.max_px.to_bits(), e.worst_t.to_bits(), e.blame);
                    // a bounded estimate first, most often cut short (the
                    // state it leaves must not change the next answer)
                    let bound = match step % 5 {
                        0 => fresh.max_px,
                        1 => fresh.max_px.next_down(),
                        2 => fresh.max_px * 0.5,
                        3 => fresh.max_px * 1.5,
                        _ => f64::INFINITY,
                    };
                    let within = kept.estimate_within(&times, bound);
                    let want = (fresh.max_px <= bound).then_some(fresh);
                    assert_eq!(
                        within.map(bits),
                        want.map(bits),
                        "{} problem {p} step {step} within {bound}: {times:?}",
                        c.name
                    );
                    let e = kept.estimate(&times);
                    assert_eq!(
                        bits(e),
                        bits(fresh),
                        "{} problem {p} step {step}: {times:?}",
                        c.name
                    );
                }
            }
        }
    }

    /// A run of bounded estimates that each differ from the last completed
    /// one by one key (as a shift of the fitter tries them, most cut short
    /// by the bound) answers as fresh estimates do.
    #[test]
    fn bounded_trials_against_one_base_equal_fresh_estimates() {
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        for c in rig_chains() {
            let cv = ChainCurves::new(&c);
            for (p, kept) in problems(&cv).iter().enumerate() {
                let sets = kept.sets();
                let mut base: Vec<Vec<f64>> = (0..sets).map(|s| kept.initial(s)).collect();
                for _ in 0..4 {
                    let s = (next(&mut rng) * sets as f64) as usize % sets;
                    fit::insert_sorted(&mut base[s], next(&mut rng));
                }
                let mut best = kept.estimate(&base).max_px;
                let mut cut = 0;
                for step in 0..80 {
                    let s = step % sets;
                    let v = &base[s];
                    if v.len() < 3 {
                        continue;
                    }
                    let i = 1 + step / sets % (v.len() - 2);
                    let dir = if next(&mut rng) < 0.5 { -1.0 } else { 1.0 };
                    let t = quantize(v[i] + dir * 0.003 * (1 + step % 3) as f64, T_DECIMALS);
                    if t - v[i - 1] < fit::MIN_GAP || v[i + 1] - t < fit::MIN_GAP {
                        continue;
                    }
                    let mut trial = base.clone();
                    trial[s][i] = t;
                    let bound = best.next_down();
                    let got = kept.estimate_within(&trial, bound);
                    let fresh = problems(&cv).swap_remove(p).estimate(&trial);
                    assert_eq!(got, (fresh.max_px <= bound).then_some(fresh), "{p} {step}");
                    if let Some(e) = got {
                        (base, best) = (trial, e.max_px);
                    } else {
                        cut += 1;
                    }
                }
                assert!(cut > 0, "{} problem {p}: no trial was cut short", c.name);
            }
        }
    }
}
