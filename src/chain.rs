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
//! **Keys.** Every track of a chain rig shares `n` uniform key times, all
//! linear. With a tolerance (`tolerance_px` or `--tolerance`), `n` is
//! searched: bake, measure the written clip, and grow `n` (error of linear
//! keys falls as 1/n²) until every ankle is within the tolerance of its
//! ideal target and every marker within [`MARKER_PX`] of it. Without one,
//! `keys` is used as given.
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

use crate::clip::{Anim, Axis, Clip, Ease, Item, Key, LegInfo, Morph, Node, Route, Track};
use crate::geom::{DEG_DECIMALS, LEN_DECIMALS, SEC_DECIMALS, Vec2, quantize, unwrap_near};
use crate::rig::{Knee, RigError, RigFile};
use crate::solve::ik;
use crate::trajectory::{Trajectory, TrajectoryFile};
use serde::{Deserialize, Serialize};

/// Largest distance between a drawn target marker and its ideal target
/// accepted by the key search, px (the marker is only a visual aid: errors
/// are measured against the ideal target).
pub const MARKER_PX: f64 = 0.5;
/// Times at which reach is checked during validation.
pub const REACH_SAMPLES: usize = 4096;
/// Seed 000's margin for `"reach": "pull"`, px.
pub const PULL_MARGIN_PX: f64 = 1.5;
/// Dense samples used to unwrap the angle series.
const UNWRAP_SAMPLES: usize = 4096;

/// What to do when a chain's target is out of reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ChainReach {
    #[default]
    Error,
    Clamp,
    Pull,
}

/// One entry of `ik_chains` in the rig file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundFile {
    /// Ground line, user units.
    pub y: f64,
    /// Dots are drawn over `[from_x, to_x]` at every time.
    pub from_x: f64,
    pub to_x: f64,
    /// Dots passing a point per period (whole number, ≥ 1).
    pub dots_per_period: usize,
    /// Chain whose gait sets the speed.
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

/// The spec a chain's ankle is measured against: the target trajectory,
/// pulled back toward the root for `"reach": "pull"`. Evaluated by the
/// measure stage from the rig's trajectories, never from the solver.
#[derive(Debug, Clone, PartialEq)]
pub struct IdealTarget {
    pub root: Trajectory,
    pub target: Trajectory,
    /// `Some(max distance)` for `"reach": "pull"`.
    pub pull_to: Option<f64>,
    /// The chain's `depth_offset`: the drawn chain and marker are moved by it.
    pub offset: Vec2,
}

impl IdealTarget {
    /// The ideal ankle at normalised time t (before `depth_offset`).
    pub fn at(&self, t: f64) -> Vec2 {
        let r = self.root.at(t);
        let g = self.target.at(t);
        match self.pull_to {
            Some(max) if g.dist(r) > max => r + (g - r) * (max / g.dist(r)),
            _ => g,
        }
    }

    /// Where the written ankle should be at normalised time t: [`Self::at`]
    /// moved by the chain's `depth_offset`.
    pub fn world_at(&self, t: f64) -> Vec2 {
        self.at(t) + self.offset
    }

    /// Stance intervals of a gait target within `[0, 1]` (normalised),
    /// split at the loop boundary; empty for other targets.
    pub fn stance(&self) -> Vec<(f64, f64)> {
        match &self.target {
            Trajectory::Gait { duty, phase, .. } => {
                let a = (-phase).rem_euclid(1.0);
                let b = a + duty;
                if b <= 1.0 {
                    vec![(a, b)]
                } else {
                    vec![(a, 1.0), (0.0, b - 1.0)]
                }
            }
            _ => Vec::new(),
        }
    }
}

impl IkChain {
    fn ideal(&self) -> IdealTarget {
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
            _ => None,
        }
    }
}

fn invalid(path: impl Into<String>, msg: impl Into<String>) -> RigError {
    RigError::Invalid {
        path: path.into(),
        msg: msg.into(),
    }
}

fn num(path: &str, x: f64) -> Result<f64, RigError> {
    if !x.is_finite() || x.abs() > crate::rig::MAX_COORD {
        return Err(invalid(
            path,
            format!(
                "must be a finite number within ±{}, got {}",
                crate::rig::MAX_COORD,
                crate::rig::shown(x)
            ),
        ));
    }
    Ok(x)
}

fn len(path: &str, x: f64) -> Result<f64, RigError> {
    let x = num(path, x)?;
    if x <= 0.0 {
        return Err(invalid(
            path,
            format!("must be > 0, got {}", crate::rig::shown(x)),
        ));
    }
    Ok(x)
}

/// Validate `ik_chains` (non-empty) and `ground` of a rig file.
pub fn validate(file: &RigFile, period_s: f64) -> Result<(Vec<IkChain>, Option<Ground>), RigError> {
    let mut chains: Vec<IkChain> = Vec::new();
    if file.ik_chains.len() > crate::rig::MAX_LEGS {
        return Err(invalid(
            "ik_chains",
            format!(
                "at most {} chains, got {}",
                crate::rig::MAX_LEGS,
                file.ik_chains.len()
            ),
        ));
    }
    for (i, cf) in file.ik_chains.iter().enumerate() {
        let p = format!("ik_chains[{i}]");
        crate::rig::check_name(&format!("{p}.name"), &cf.name)?;
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
    let ground = match &file.ground {
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

fn validate_ground(g: &GroundFile, chains: &[IkChain], period_s: f64) -> Result<Ground, RigError> {
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

/// The probe that follows the ground's translation.
pub const GROUND_PROBE: &str = "ground";

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

/// A translate pair (X outside, Y inside) around `children`, or the children
/// alone when the motion is zero throughout.
fn translated(
    class: &str,
    tracks: &mut Vec<Track>,
    times: &[f64],
    offsets: &[Vec2],
    static_at: Vec2,
    children: Vec<Item>,
) -> Node {
    let moving_x = offsets.iter().any(|o| o.x != 0.0);
    let moving_y = offsets.iter().any(|o| o.y != 0.0);
    let mut inner = Node {
        class: None,
        translate: Vec2::ZERO,
        anim: None,
        children,
    };
    if moving_y {
        tracks.push(track(format!("{class}-y"), times, |i| offsets[i].y));
        inner.class = Some(format!("{class}-y"));
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
    if moving_x {
        tracks.push(track(format!("{class}-x"), times, |i| offsets[i].x));
        outer.class = Some(format!("{class}-x"));
        outer.anim = Some(Anim::Translate {
            track: tracks.len() - 1,
            axis: Axis::X,
            delay_s: 0.0,
        });
    }
    outer
}

/// Unwrapped (thigh, shin) world angles at the key times, radians.
fn angle_series(c: &IkChain, ideal: &IdealTarget, times: &[f64]) -> Vec<(f64, f64)> {
    let pose = |t: f64| ik::solve(c.root.at(t), ideal.at(t), c.thigh, c.shin, c.knee);
    let mut dense = Vec::with_capacity(UNWRAP_SAMPLES + 1);
    let mut prev: Option<(f64, f64)> = None;
    for k in 0..=UNWRAP_SAMPLES {
        let p = pose(k as f64 / UNWRAP_SAMPLES as f64);
        let a = match prev {
            None => (p.bone1_rad, p.bone2_rad),
            Some((a, b)) => (unwrap_near(p.bone1_rad, a), unwrap_near(p.bone2_rad, b)),
        };
        dense.push(a);
        prev = Some(a);
    }
    times
        .iter()
        .map(|&t| {
            let p = pose(t);
            let (a, b) = dense[((t * UNWRAP_SAMPLES as f64).round() as usize).min(UNWRAP_SAMPLES)];
            (unwrap_near(p.bone1_rad, a), unwrap_near(p.bone2_rad, b))
        })
        .collect()
}

/// Bake a chain rig with `n` uniform keys.
pub fn bake_chains(
    name: &str,
    view_box: [f64; 4],
    period_s: f64,
    chains: &[IkChain],
    ground: Option<&Ground>,
    route: Route,
    n: usize,
) -> Clip {
    let times: Vec<f64> = (0..=n)
        .map(|k| quantize(k as f64 / n as f64, crate::geom::T_DECIMALS))
        .collect();
    let mut tracks = Vec::new();
    let mut markers = Vec::new();
    let mut limbs = Vec::new();
    let mut legs = Vec::new();
    for (ci, c) in chains.iter().enumerate() {
        let ideal = c.ideal();
        let cls = format!("rb-{}", c.name);
        let width = quantize((c.thigh.min(c.shin) * 0.16).clamp(2.0, 40.0), 1);
        let colour = format!("rb-bone rb-s{}", ci.min(1));
        // target marker, translated along the ideal target
        let g0 = q(ideal.at(0.0));
        let offs: Vec<Vec2> = times.iter().map(|&t| q(ideal.at(t) - g0)).collect();
        let marker = translated(
            &format!("{cls}-t"),
            &mut tracks,
            &times,
            &offs,
            c.depth_offset,
            vec![
                Item::Circle {
                    center: g0,
                    r: quantize(width * 0.6, 1),
                    class: "rb-joint".into(),
                },
                Item::Probe {
                    name: format!("{}-target", c.name),
                    at: g0,
                },
            ],
        );
        markers.push(Item::Group(marker));
        let angles = angle_series(c, &ideal, &times);
        let r0 = c.root.at(0.0);
        let limb = match route {
            Route::Css => {
                let hip = q(r0);
                let knee = q(r0 + Vec2::from_angle(angles[0].0) * c.thigh);
                let ankle = q(knee + Vec2::from_angle(angles[0].1) * c.shin);
                let deg = |x: f64| quantize(x.to_degrees(), DEG_DECIMALS);
                let (a0, b0) = angles[0];
                tracks.push(track(format!("{cls}-thigh"), &times, |i| {
                    deg(angles[i].0 - a0)
                }));
                let thigh_track = tracks.len() - 1;
                tracks.push(track(format!("{cls}-shin"), &times, |i| {
                    deg((angles[i].1 - b0) - (angles[i].0 - a0))
                }));
                let shin_track = tracks.len() - 1;
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
                let ro: Vec<Vec2> = times.iter().map(|&t| q(c.root.at(t) - r0)).collect();
                legs.push(LegInfo {
                    name: c.name.clone(),
                    ankle_probe: format!("{}-ankle", c.name),
                    target_probe: format!("{}-target", c.name),
                    thigh: c.thigh,
                    shin: c.shin,
                    tracks: vec![thigh_track, shin_track],
                    fit: crate::fit::Fit::Linear,
                    reuses: None,
                    ideal: Some(ideal.clone()),
                });
                translated(
                    &cls,
                    &mut tracks,
                    &times,
                    &ro,
                    c.depth_offset,
                    vec![Item::Group(thigh)],
                )
            }
            Route::Smil => {
                let keys = times
                    .iter()
                    .zip(&angles)
                    .map(|(&t, &(a, b))| {
                        let r = c.root.at(t);
                        let k = r + Vec2::from_angle(a) * c.thigh;
                        let e = k + Vec2::from_angle(b) * c.shin;
                        (t, vec![q(r), q(k), q(e)])
                    })
                    .collect();
                legs.push(LegInfo {
                    name: c.name.clone(),
                    ankle_probe: format!("{}-ankle", c.name),
                    target_probe: format!("{}-target", c.name),
                    thigh: c.thigh,
                    shin: c.shin,
                    tracks: Vec::new(),
                    fit: crate::fit::Fit::Linear,
                    reuses: None,
                    ideal: Some(ideal.clone()),
                });
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
    }
}

fn ground_node(g: &Ground, period_s: f64, tracks: &mut Vec<Track>) -> Node {
    let travel = g.speed_px_s * period_s;
    let spacing = travel / g.dots_per_period as f64;
    let count = ((g.to_x - g.from_x + travel) / spacing).ceil() as usize + 1;
    let y = quantize(g.y, LEN_DECIMALS);
    let mut children: Vec<Item> = (0..count)
        .map(|i| Item::Circle {
            center: Vec2::new(quantize(g.from_x + i as f64 * spacing, LEN_DECIMALS), y),
            r: 1.5,
            class: "rb-dot".into(),
        })
        .collect();
    children.push(Item::Probe {
        name: GROUND_PROBE.into(),
        at: Vec2::new(quantize(g.from_x, LEN_DECIMALS), y),
    });
    tracks.push(track("rb-ground".into(), &[0.0, 1.0], |i| {
        if i == 0 {
            0.0
        } else {
            -quantize(travel, LEN_DECIMALS)
        }
    }));
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
fn marker_error_px(clip: &Clip) -> f64 {
    let mut worst: f64 = 0.0;
    for t in crate::measure::sample_times(clip) {
        let probes = crate::measure::probes_at(clip, t);
        for leg in &clip.legs {
            if let Some(ideal) = &leg.ideal {
                let d = probes[&leg.target_probe].dist(ideal.world_at(t / clip.period_s));
                worst = worst.max(d);
            }
        }
    }
    worst
}

/// Bake, measure and report a chain rig. With a tolerance the uniform key
/// count is searched (see the module docs); otherwise `keys` is used.
pub fn bake_chain_rig(rig: &crate::rig::Rig, opts: &crate::bake::BakeOptions) -> crate::Baked {
    use crate::bake::Keying;
    let bake = |n: usize| {
        bake_chains(
            &rig.name,
            rig.view_box,
            rig.period_s,
            &rig.chains,
            rig.ground.as_ref(),
            opts.route,
            n,
        )
    };
    let mut notes = vec!["ik_chains: uniform linear keys shared by every track".to_string()];
    let (tolerance, clip, m) = match opts.keying {
        Keying::Uniform(n) | Keying::Budget(n) => {
            let clip = bake(n);
            let m = crate::measure::measure(&clip);
            (None, clip, m)
        }
        Keying::Tolerance(px) => {
            let mut n = rig.keys.max(4);
            loop {
                let clip = bake(n);
                let m = crate::measure::measure(&clip);
                let worst = m.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max);
                let marker = marker_error_px(&clip);
                if (worst <= px && marker <= MARKER_PX.max(px)) || n >= MAX_SEARCH_KEYS {
                    if n >= MAX_SEARCH_KEYS {
                        notes.push(format!(
                            "key search stopped at {MAX_SEARCH_KEYS} keys (marker drift {marker:.4} px)"
                        ));
                    }
                    break (Some(px), clip, m);
                }
                // linear keys: error ∝ 1/n², so aim past the larger shortfall
                let ratio = (worst / px).max(marker / MARKER_PX.max(px)).max(1.0);
                let next = (n as f64 * ratio.sqrt() * 1.1).ceil() as usize;
                n = next.max(n + 1).min(MAX_SEARCH_KEYS);
            }
        }
    };
    let svg = crate::emit::figure::emit_figure(
        std::slice::from_ref(&clip),
        false,
        &["#264653".to_string(), "#8fa3b0".to_string()],
    );
    let report = crate::report::build(&clip, &m, svg.len(), tolerance, notes);
    crate::Baked { clip, svg, report }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RIG: &str = r#"{
      "name": "c", "view_box": [0, 0, 400, 300], "period_s": 0.8, "keys": 40,
      "ik_chains": [
        { "name": "near", "root": { "bob": { "center": [200, 164], "amp": 3 } },
          "target": { "gait": { "origin": [200, 230], "stride": 44, "step_height": 8, "duty": 0.62, "phase": 0.5 } },
          "thigh": 37, "shin": 37, "depth_offset": [-3, 2] },
        { "name": "arm", "root": { "ellipse": { "center": [100, 100], "rx": 20, "ry": 8 } },
          "target": { "circle": { "center": [160, 130], "radius": 15, "direction": "ccw" } },
          "thigh": 50, "shin": 40, "knee": "backward" }
      ]}"#;

    #[test]
    fn stance_splits_at_the_loop_boundary() {
        let rig = crate::rig::load(RIG).unwrap();
        // phase 0.5, duty 0.62: stance from t = 0.5 to 1.12, i.e. [0.5, 1] and [0, 0.12]
        let s = rig.chains[0].ideal().stance();
        assert_eq!(s.len(), 2);
        assert!((s[0].0 - 0.5).abs() < 1e-12 && (s[0].1 - 1.0).abs() < 1e-12);
        assert!(s[1].0 == 0.0 && (s[1].1 - 0.12).abs() < 1e-12);
        assert!(rig.chains[1].ideal().stance().is_empty());
    }

    #[test]
    fn written_ankle_hits_the_ideal_target_at_every_key_on_both_routes() {
        // world → local under a moving root: at key times only rounding is left
        let rig = crate::rig::load(RIG).unwrap();
        for route in [Route::Css, Route::Smil] {
            let clip = bake_chains(
                "c",
                rig.view_box,
                rig.period_s,
                &rig.chains,
                None,
                route,
                40,
            );
            for k in 0..=40 {
                let t = k as f64 / 40.0;
                let probes = crate::measure::probes_at(&clip, t * clip.period_s);
                for leg in &clip.legs {
                    let want = leg.ideal.as_ref().unwrap().world_at(t);
                    let d = probes[&leg.ankle_probe].dist(want);
                    assert!(d < 0.03, "{route:?} {} at t = {t}: {d}", leg.name);
                }
            }
        }
    }
}
