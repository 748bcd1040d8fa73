//! IK chains (`ik_chains`): two-bone chains whose root and target each
//! follow a [`Trajectory`] over one period, and an optional scrolling ground.
//!
//! This module holds the chain file's format and its validation
//! ([`validate`], every error at the user's own path, `ik_chains[1].thigh`);
//! the loader then lowers the chains into the bone tree that solves the
//! same pose (module `rig::lower`), which is baked, measured and reported
//! as any bone tree. What bone trees share with it lives here too: the
//! reach rules ([`ChainReach`]), the exact moving target ([`exact_marker`])
//! and the ground row ([`spaced_ground_node`], [`ground_keys`]).
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
use crate::clip::{Anim, Axis, Ease, Item, Key, Node, Route, Track};
use crate::geom::Rem1;
use crate::geom::{LEN_DECIMALS, SEC_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::solve::ik::Knee;
pub use crate::trajectory::{IdealTarget, REACH_SAMPLES};
use crate::trajectory::{Trajectory, TrajectoryFile};
use crate::valid::RigError;
use crate::valid::{check_len as len, check_num as num, invalid};
use serde::{Deserialize, Serialize};

/// Seed 000's margin for `"reach": "pull"`, px.
pub const PULL_MARGIN_PX: f64 = 1.5;

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
    /// Dots passing a point per period (whole number, 1 to 1000).
    #[schemars(range(min = 1, max = 1000))]
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
    let shown = |x: f64| crate::valid::shown_to(x, 3);
    if spacing < 1.0 {
        return Err(invalid(
            "ground.dots_per_period",
            format!(
                "{} dots over a period's travel of {} px are {} px apart, under 1 px: lower dots_per_period",
                g.dots_per_period,
                shown(travel),
                shown(spacing)
            ),
        ));
    }
    let dots = (to_x - from_x + travel) / spacing;
    if dots > 2000.0 {
        return Err(invalid(
            "ground.to_x",
            format!(
                "from_x {} to to_x {} (and a period's travel of {} px) at a dot spacing of {} px draws {} dots, more than 2000: narrow from_x..to_x, or raise dots_per_period",
                shown(from_x),
                shown(to_x),
                shown(travel),
                shown(spacing),
                shown(dots.ceil())
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

/// Path units per px of the path data an exact marker moves along
/// ([`crate::clip::MotionPath::scale`]): Chromium measures path length by
/// flattening to 0.5 path units, which at 1 unit per px puts the marker up
/// to 0.19 px off the arc-length point; at 100 it is within 0.005 px.
pub const MOTION_PATH_SCALE: f64 = 100.0;

/// Decimal places of that path data (0.1 unit: rounding moves the path by
/// at most 0.0007 px).
pub const MOTION_PATH_DECIMALS: u32 = 1;

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

/// How far, in seconds, a wrapped ground row's step keeps from every whole
/// millisecond ([`wrapped_ground_keys`]).
pub const STEP_CLEAR_S: f64 = 2e-6;

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
///
/// A step is written where the travel passes the spacing, or up to a few
/// key times earlier or later where that keeps it [`STEP_CLEAR_S`] clear of
/// every whole millisecond of a period of `period_s` seconds: a clock that
/// counts milliseconds (Firefox's SMIL clock, a test's seek) then sees the
/// row before or after a step, never inside one, where engines that keep
/// time to different precisions would place it a spacing apart.
pub fn wrapped_ground_keys(keys: &[(f64, f64)], spacing: f64, period_s: f64) -> Vec<(f64, f64)> {
    use crate::geom::T_DECIMALS;
    let step = 10f64.powi(-(T_DECIMALS as i32));
    // no whole millisecond within STEP_CLEAR_S of the step from q to q + step
    let clear = |q: f64| {
        let (a, b) = (
            q * period_s - STEP_CLEAR_S,
            (q + step) * period_s + STEP_CLEAR_S,
        );
        (a * 1000.0).ceil() > (b * 1000.0).floor()
    };
    // how many key times either way a step may move to clear a whole
    // millisecond inside it: its own width and the clearance on both
    // sides, however short the period (a key time is 0.63 µs of a 0.63 s
    // period, where three were once all it tried)
    let reach = (2.0 * STEP_CLEAR_S / (step * period_s)).ceil().min(1e6) as usize + 2;
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
            // (or the nearest such pair clear of whole milliseconds, within
            // the segment and after what is written)
            let base = quantize((c / step + 1e-9).floor() * step, T_DECIMALS).max(t0);
            let after = out.last().map_or(f64::NEG_INFINITY, |l| l.0 + step / 2.0);
            let q = (0..=2 * reach)
                .map(|i| {
                    // 0, −1, 1, −2, 2, … key times away
                    let k = if i % 2 == 0 {
                        (i / 2) as f64
                    } else {
                        -(i.div_ceil(2) as f64)
                    };
                    quantize(base + k * step, T_DECIMALS)
                })
                .find(|&q| q >= t0 && q > after && q + step <= t1 && clear(q))
                .unwrap_or(base);
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
/// `keys` (from [`ground_keys`], with the written period in seconds)
/// replace the constant speed by keyed travel: a ground that follows a
/// gait whose speed changes over the loop.
/// Such a row wraps ([`wrapped_ground_keys`]): it moves at most one
/// spacing, whatever its travel, so `travel` and `max_travel` need count
/// only that spacing for it.
pub fn spaced_ground_node(
    g: &Ground,
    spacing: f64,
    (travel, max_travel): (f64, f64),
    keys: Option<(&[(f64, f64)], f64)>,
    tracks: &mut Vec<Track>,
) -> Node {
    let travel = if keys.is_some() { spacing } else { travel };
    let max_travel = max_travel.max(travel);
    let count = ((g.to_x - g.from_x + max_travel) / spacing).ceil() as usize + 1;
    let y = quantize(g.y, LEN_DECIMALS);
    let mut children = vec![Item::Dots {
        from: Vec2::new(quantize(g.from_x, LEN_DECIMALS), y),
        spacing,
        count,
        r: 1.5,
        class: "rb-dot".into(),
    }];
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
        Some((keys, period_s)) => {
            let keys = wrapped_ground_keys(keys, spacing, period_s);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every step of a wrapped row keeps [`STEP_CLEAR_S`] from every whole
    /// millisecond, for rows whose travel passes a spacing on a whole
    /// millisecond (a 2.178 s period, three spacings a loop: at 0.726 s and
    /// 1.452 s; 0.63 s: at 0.21 s and 0.42 s) and for many other periods
    /// and speeds, down to 50 ms; and between steps the
    /// row still moves as its travel does, minus whole spacings.
    #[test]
    fn wrap_steps_keep_clear_of_whole_milliseconds() {
        let spacing = 14.7612;
        let mut checked = 0;
        for (period_ms, spacings) in [(2178, 3.0), (2000, 7.0), (999, 1.0), (1234, 5.5)]
            .into_iter()
            .chain((1..60).map(|k| (300 + 97 * k, 1.0 + k as f64 / 3.0)))
            // short periods whose steps fall on whole milliseconds (a 0.63 s
            // loop of three spacings steps at 0.21 s and 0.42 s), down to
            // 50 ms
            .chain([(630, 3.0), (300, 3.0), (120, 3.0), (50, 5.0)])
            .chain((1..40).map(|k| (50 + 23 * k, 1.0 + k as f64 / 4.0)))
        {
            let period_s = period_ms as f64 / 1000.0;
            let travel = spacings * spacing;
            let keys: Vec<(f64, f64)> = (0..=200)
                .map(|i| {
                    let t = i as f64 / 200.0;
                    (t, -travel * t)
                })
                .collect();
            let out = wrapped_ground_keys(&keys, spacing, period_s);
            for w in out.windows(2) {
                let ((t0, x0), (t1, x1)) = (w[0], w[1]);
                if x1 - x0 > spacing / 2.0 {
                    let (a, b) = (t0 * period_s - STEP_CLEAR_S, t1 * period_s + STEP_CLEAR_S);
                    assert!(
                        (a * 1000.0).ceil() > (b * 1000.0).floor(),
                        "{period_ms} ms: a step from {a} s to {b} s holds a whole millisecond"
                    );
                    checked += 1;
                } else {
                    // off the steps: the travel's own slope
                    let slope = (x1 - x0) / (t1 - t0);
                    assert!((slope + travel).abs() < 1e-6 * travel, "{slope}");
                }
            }
        }
        assert!(checked > 100, "{checked} steps");
    }
}
