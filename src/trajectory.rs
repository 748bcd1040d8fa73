//! Trajectories: where a chain's root or target is at normalised time
//! `t ∈ [0, 1]` of the loop. Every kind is periodic: `at(0) == at(1)`.
//!
//! - `fixed`: one point.
//! - `circle` / `ellipse`: angle `θ = start ± 360°·t` (+ for `cw`, clockwise
//!   on screen); the ellipse `(rx·cos θ, ry·sin θ)` is then turned by
//!   `rotation_deg` about its centre. (Not constant speed unless rx = ry.)
//! - `track`: keys `[[t, [x, y]], …]` from t = 0 to t = 1 with the last point
//!   equal to the first, each segment eased (seed 000's `track()`: linear,
//!   smoothstep, easeInCubic, easeOutCubic).
//! - `path`: a closed SVG path string traversed at constant speed by arc
//!   length (kurbo's arc length, accurate to [`ARCLEN_RELATIVE`] of the
//!   path's extent, [`arclen_accuracy`]), from
//!   `start` (fraction of the length) forward or in reverse. Segments of
//!   zero length (repeated points, a `Z` back onto the start) take no time
//!   and are dropped; a segment is cut where it stops and turns back (a
//!   cusp, `split_at_cusps`), so its arc length is measured in smooth
//!   pieces.
//! - `gait`: seed 000's foot path relative to `origin` (the point under the
//!   hip): for the first `duty` of the cycle the foot slides linearly on the
//!   ground from `+stride/2` to `−stride/2` (stance); then it swings back
//!   with smoothstep while lifted by `step_height·sin(π·u)`. `phase` shifts
//!   the cycle (the far foot uses 0.5).
//!
//! Angles in the file are degrees; coordinates are SVG user units, y down.

use crate::geom::{Rem1, Vec2, Vec2Ext};
use crate::valid::{MAX_COORD, RigError};
use crate::valid::{check_len as positive, check_num as num, check_point as point, invalid};
use kurbo::{ParamCurve, ParamCurveArclen, ParamCurveDeriv, PathSeg};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f64::consts::{PI, TAU};

pub mod timeline;
use timeline::{Cadence, ParamFile, Stepping, TimedBob, TimedGait};

/// Arc-length accuracy of a `path` trajectory as a fraction of its extent
/// (the larger side of its control points' bounding box): 1.2·10⁻⁶ px on
/// a path 120 px across, 10⁻² px on one 10⁶ px across. Relative, so a
/// path's cost does not depend on its scale: kurbo's arc-length error
/// estimate grows with a curve's size, so a fixed accuracy in px
/// subdivides a large curve further (10⁻⁶ px on a path 9·10⁵ px across,
/// a relative 10⁻¹², baked 20 times slower than the same shape 200 px
/// across).
pub const ARCLEN_RELATIVE: f64 = 1e-8;

/// Path segments no longer than this fraction of the path's extent are
/// dropped from a `path` trajectory: a point, or a curve far shorter than
/// the written precision.
pub const MIN_SEGMENT_RELATIVE: f64 = 1e-11;

/// The finest accuracy, as a fraction of a path's largest coordinate, that
/// [`arclen_accuracy`] asks for: 2⁻⁴⁰ ≈ 9·10⁻¹³, about 4,000 units in the
/// last place of that coordinate. A curve's points carry rounding of a
/// few units in the last place of its coordinates, so a small path far
/// from the origin cannot be measured finer than this, and asking for
/// finer only makes kurbo subdivide the rounding.
pub const COORD_RELATIVE: f64 = 1.0 / (1u64 << 40) as f64;

/// A path's extent (the larger side of its control points' bounding box)
/// and magnitude (its largest coordinate, in absolute value).
pub fn path_size(segs: &[PathSeg]) -> (f64, f64) {
    let mut bbox: Option<kurbo::Rect> = None;
    let mut magnitude = 0.0f64;
    for s in segs {
        let pts: &[kurbo::Point] = match s {
            PathSeg::Line(l) => &[l.p0, l.p1],
            PathSeg::Quad(q) => &[q.p0, q.p1, q.p2],
            PathSeg::Cubic(c) => &[c.p0, c.p1, c.p2, c.p3],
        };
        for &p in pts {
            magnitude = magnitude.max(p.x.abs()).max(p.y.abs());
            bbox = Some(match bbox {
                Some(b) => b.union_pt(p),
                None => kurbo::Rect::from_points(p, p),
            });
        }
    }
    let extent = bbox.map_or(0.0, |b| b.width().max(b.height()));
    (extent, magnitude)
}

/// Arc-length accuracy, in the path's own units, for a path of the given
/// extent and magnitude ([`path_size`]): `relative` of its extent (a
/// trajectory's [`ARCLEN_RELATIVE`]), but no finer than [`COORD_RELATIVE`]
/// of its magnitude. The same shape at any scale gets the same accuracy
/// relative to its size, so kurbo does the same work measuring it.
pub fn arclen_accuracy(relative: f64, (extent, magnitude): (f64, f64)) -> f64 {
    (relative * extent).max(COORD_RELATIVE * magnitude)
}

/// Direction the crank turns, as seen on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Clockwise on screen: the crank angle grows with time (y points down).
    #[default]
    Cw,
    /// Counter-clockwise on screen: the crank angle shrinks with time.
    Ccw,
}

impl Direction {
    /// +1 for clockwise, −1 for counter-clockwise.
    pub fn sign(self) -> f64 {
        match self {
            Direction::Cw => 1.0,
            Direction::Ccw => -1.0,
        }
    }
}

/// Easing of one track segment. Each is a polynomial in the segment's
/// progress u ∈ [0, 1] that CSS and SMIL represent exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum EaseName {
    /// `u`.
    #[serde(rename = "linear")]
    Linear,
    /// `3u² − 2u³` = `cubic-bezier(1/3, 0, 2/3, 1)`.
    #[serde(rename = "smoothstep")]
    Smoothstep,
    /// `u³` = `cubic-bezier(1/3, 0, 2/3, 0)`.
    #[serde(rename = "easeInCubic")]
    EaseInCubic,
    /// `1 − (1 − u)³` = `cubic-bezier(1/3, 1, 2/3, 1)`.
    #[serde(rename = "easeOutCubic")]
    EaseOutCubic,
}

/// A trajectory as written in a rig file (externally tagged: `{"circle": {…}}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum TrajectoryFile {
    Fixed([f64; 2]),
    Circle(CircleFile),
    Ellipse(EllipseFile),
    Track(TrackFile),
    Path(PathFile),
    Gait(GaitFile),
    Bob(BobFile),
}

fn zero() -> f64 {
    0.0
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CircleFile {
    pub center: [f64; 2],
    /// User units, at least 0.01 (lengths are written to 0.01).
    pub radius: f64,
    #[serde(default = "zero")]
    pub start_deg: f64,
    #[serde(default)]
    pub direction: Direction,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EllipseFile {
    pub center: [f64; 2],
    /// Radius along the ellipse's own x axis, user units, at least 0.01.
    pub rx: f64,
    /// Radius along its y axis, user units, at least 0.01.
    pub ry: f64,
    #[serde(default = "zero")]
    pub rotation_deg: f64,
    #[serde(default = "zero")]
    pub start_deg: f64,
    #[serde(default)]
    pub direction: Direction,
}

/// Per-segment easing: one name for every segment, or one per segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EaseSpec {
    All(EaseName),
    Each(Vec<EaseName>),
}

/// A `track`: keys `[t, [x, y]]` over the loop (t in [0, 1], increasing,
/// distinct when written to 10⁻⁶ of the period) and their easing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(rename = "PointTrackFile")]
pub struct TrackFile {
    pub keys: Vec<(f64, [f64; 2])>,
    #[serde(default = "default_ease")]
    pub ease: EaseSpec,
}

fn default_ease() -> EaseSpec {
    EaseSpec::All(EaseName::Linear)
}

/// Direction along a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Along {
    #[default]
    Forward,
    Reverse,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathFile {
    /// Closed SVG path data of one loop (one subpath), e.g. `"M 0 0 C 10 0
    /// 10 10 0 10 Z"`; at most 4096 commands, coordinates within ±1000000.
    pub d: String,
    /// Where t = 0 sits, as a fraction of the path length from its start.
    #[serde(default = "zero")]
    pub start: f64,
    #[serde(default)]
    pub along: Along,
}

/// Seed 000's hip bob: `center + (0, −amp·|sin(2π·(t + phase))|)`, two
/// bobs per loop (one per step). With `run` and `blend`, `amp` and `phase`
/// are `lerp(walk, run, blend)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BobFile {
    pub center: [f64; 2],
    pub amp: f64,
    #[serde(default = "zero")]
    pub phase: f64,
    /// The running bob's parameters (see `blend`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<BobRunFile>,
    /// 0 = walk (the fields above), 1 = `run`; default 0. A number, or a
    /// timeline `{"keys": [[t, blend], …], "ease": …}` (see [`timeline`]).
    #[serde(default)]
    pub blend: ParamFile,
    /// Gait cycles per loop while walking (two bobs each; default 1); with
    /// a blend timeline, give the gait's `cycles` so the bob keeps step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}

/// `run` of a `bob`: the same numeric fields as the walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BobRunFile {
    pub amp: f64,
    #[serde(default = "zero")]
    pub phase: f64,
    /// Gait cycles per loop while running (default: the walk's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}

/// `run` of a `gait`: the same numeric fields as the walk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GaitRunFile {
    /// User units, at least 0.01.
    pub stride: f64,
    pub step_height: f64,
    pub duty: f64,
    /// Gait cycles per loop while running (default: the walk's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GaitFile {
    /// The ground point under the hip (stance is centred on its x).
    pub origin: [f64; 2],
    /// Step length, user units, at least 0.01.
    pub stride: f64,
    pub step_height: f64,
    /// Stance fraction of the cycle, in (0, 1).
    pub duty: f64,
    /// Cycle offset (the far foot uses 0.5).
    #[serde(default = "zero")]
    pub phase: f64,
    /// The running gait's parameters (see `blend`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<GaitRunFile>,
    /// Seed 000's gait blend: 0 = walk (the fields above), 1 = `run`;
    /// `stride`, `step_height` and `duty` are `lerp(walk, run, blend)`.
    /// A number, or a timeline `{"keys": [[t, blend], …], "ease": …}`
    /// (see [`timeline`]).
    #[serde(default)]
    pub blend: ParamFile,
    /// Gait cycles per loop while walking (a rate; default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cycles: Option<f64>,
}

/// A validated trajectory.
#[derive(Debug, Clone, PartialEq)]
pub enum Trajectory {
    Fixed(Vec2),
    Ellipse {
        center: Vec2,
        rx: f64,
        ry: f64,
        rotation_rad: f64,
        /// `rotation_rad.sin_cos()`, found once for every point.
        rotation_sin_cos: (f64, f64),
        start_rad: f64,
        sign: f64,
    },
    Track {
        keys: Vec<(f64, Vec2)>,
        eases: Vec<EaseName>,
    },
    Path {
        segs: Vec<PathSeg>,
        /// Arc length of each segment (kurbo's, to `accuracy`).
        lens: Vec<f64>,
        /// Cumulative arc length at the end of each segment.
        cum: Vec<f64>,
        start: f64,
        sign: f64,
        /// Arc-length accuracy of `lens` and of every point, px
        /// ([`arclen_accuracy`] of the path's size).
        accuracy: f64,
    },
    Gait {
        origin: Vec2,
        stride: f64,
        step_height: f64,
        duty: f64,
        phase: f64,
    },
    Bob {
        center: Vec2,
        amp: f64,
        phase: f64,
    },
    /// A gait whose blend follows a timeline, or that makes more than one
    /// cycle per loop (see [`timeline`]).
    TimedGait(Box<TimedGait>),
    /// A bob whose blend follows a timeline, or of more than one cycle.
    TimedBob(Box<TimedBob>),
}

impl TrajectoryFile {
    /// The same trajectory moved by `d` (every point it passes through
    /// moves by `d`; a path's data is rewritten through kurbo).
    pub fn translated(&self, d: [f64; 2]) -> TrajectoryFile {
        let mut out = self.clone();
        if d == [0.0, 0.0] {
            // (a path's data stays as the user wrote it)
            return out;
        }
        let p = |q: [f64; 2]| [q[0] + d[0], q[1] + d[1]];
        match &mut out {
            TrajectoryFile::Fixed(q) => *q = p(*q),
            TrajectoryFile::Circle(c) => c.center = p(c.center),
            TrajectoryFile::Ellipse(e) => e.center = p(e.center),
            TrajectoryFile::Track(t) => t.keys.iter_mut().for_each(|k| k.1 = p(k.1)),
            TrajectoryFile::Path(f) => {
                if let Ok(mut path) = kurbo::BezPath::from_svg(&f.d) {
                    path.apply_affine(kurbo::Affine::translate((d[0], d[1])));
                    f.d = path.to_svg();
                }
            }
            TrajectoryFile::Gait(g) => g.origin = p(g.origin),
            TrajectoryFile::Bob(b) => b.center = p(b.center),
        }
        out
    }

    /// Validate; `path` is the JSON path of this trajectory for messages.
    pub fn validate(&self, path: &str) -> Result<Trajectory, RigError> {
        Ok(match self {
            TrajectoryFile::Fixed(p) => Trajectory::Fixed(point(&format!("{path}.fixed"), *p)?),
            TrajectoryFile::Circle(c) => {
                let p = format!("{path}.circle");
                let r = positive(&format!("{p}.radius"), c.radius)?;
                Trajectory::Ellipse {
                    center: point(&format!("{p}.center"), c.center)?,
                    rx: r,
                    ry: r,
                    rotation_rad: 0.0,
                    rotation_sin_cos: 0f64.sin_cos(),
                    start_rad: num(&format!("{p}.start_deg"), c.start_deg)?.to_radians(),
                    sign: c.direction.sign(),
                }
            }
            TrajectoryFile::Ellipse(e) => {
                let p = format!("{path}.ellipse");
                // (each field checked in this order, as the messages go)
                let center = point(&format!("{p}.center"), e.center)?;
                let rx = positive(&format!("{p}.rx"), e.rx)?;
                let ry = positive(&format!("{p}.ry"), e.ry)?;
                let rotation_rad = num(&format!("{p}.rotation_deg"), e.rotation_deg)?.to_radians();
                Trajectory::Ellipse {
                    center,
                    rx,
                    ry,
                    rotation_rad,
                    rotation_sin_cos: rotation_rad.sin_cos(),
                    start_rad: num(&format!("{p}.start_deg"), e.start_deg)?.to_radians(),
                    sign: e.direction.sign(),
                }
            }
            TrajectoryFile::Track(t) => validate_track(&format!("{path}.track"), t)?,
            TrajectoryFile::Path(pf) => validate_path(&format!("{path}.path"), pf)?,
            TrajectoryFile::Bob(b) => {
                let p = format!("{path}.bob");
                let center = point(&format!("{p}.center"), b.center)?;
                let (amp, phase) = (
                    num(&format!("{p}.amp"), b.amp)?,
                    num(&format!("{p}.phase"), b.phase)?,
                );
                let (run_amp, run_phase) = match &b.run {
                    Some(r) => (
                        num(&format!("{p}.run.amp"), r.amp)?,
                        num(&format!("{p}.run.phase"), r.phase)?,
                    ),
                    None => (amp, phase),
                };
                let run_cycles = b.run.as_ref().and_then(|r| r.cycles);
                if let (ParamFile::Const(x), None, None) = (&b.blend, b.cycles, run_cycles) {
                    let blend = blend(&format!("{p}.blend"), *x, b.run.is_some())?;
                    return Ok(Trajectory::Bob {
                        center,
                        amp: lerp(amp, run_amp, blend),
                        phase: lerp(phase, run_phase, blend),
                    });
                }
                let cadence = cadence(&p, &b.blend, b.cycles, run_cycles, b.run.is_some())?;
                Trajectory::TimedBob(Box::new(TimedBob {
                    center,
                    amp: (amp, run_amp),
                    phase: (phase, run_phase),
                    cadence,
                }))
            }
            TrajectoryFile::Gait(g) => {
                let p = format!("{path}.gait");
                let walk = Stepping {
                    stride: positive(&format!("{p}.stride"), g.stride)?,
                    step_height: num(&format!("{p}.step_height"), g.step_height)?,
                    duty: duty(&format!("{p}.duty"), g.duty)?,
                    cycles: 1.0,
                };
                let run = match &g.run {
                    Some(r) => {
                        let q = format!("{p}.run");
                        Stepping {
                            stride: positive(&format!("{q}.stride"), r.stride)?,
                            step_height: num(&format!("{q}.step_height"), r.step_height)?,
                            duty: self::duty(&format!("{q}.duty"), r.duty)?,
                            cycles: 1.0,
                        }
                    }
                    None => walk,
                };
                let origin = point(&format!("{p}.origin"), g.origin)?;
                let phase = num(&format!("{p}.phase"), g.phase)?.rem1();
                let run_cycles = g.run.as_ref().and_then(|r| r.cycles);
                // the stance carries the foot at stride × cadence ÷ duty:
                // a vanishing duty would carry it past any drawable length
                // (and any ground that follows it)
                let bounded = |travel: f64, how: &str| {
                    if travel.is_finite() && travel <= MAX_COORD {
                        return Ok(());
                    }
                    Err(invalid(
                        &p,
                        format!(
                            "its stance would carry the foot {} px per loop ({how}), more than {}; raise `duty` or `run.duty`",
                            crate::valid::shown(travel),
                            crate::valid::shown(MAX_COORD)
                        ),
                    ))
                };
                if let (ParamFile::Const(x), None, None) = (&g.blend, g.cycles, run_cycles) {
                    let blend = blend(&format!("{p}.blend"), *x, g.run.is_some())?;
                    let (stride, duty) = (
                        lerp(walk.stride, run.stride, blend),
                        lerp(walk.duty, run.duty, blend),
                    );
                    bounded(
                        stride / duty,
                        &format!(
                            "stride {} ÷ duty {}",
                            crate::valid::shown(stride),
                            crate::valid::shown(duty)
                        ),
                    )?;
                    return Ok(Trajectory::Gait {
                        origin,
                        stride,
                        step_height: lerp(walk.step_height, run.step_height, blend),
                        duty,
                        phase,
                    });
                }
                let cadence = cadence(&p, &g.blend, g.cycles, run_cycles, g.run.is_some())?;
                let (walk, run) = (
                    Stepping {
                        cycles: cadence.walk,
                        ..walk
                    },
                    Stepping {
                        cycles: cadence.run,
                        ..run
                    },
                );
                let g = TimedGait::new(origin, walk, run, cadence, phase);
                bounded(g.travel_per_loop(), "stride × cycles ÷ duty over the blend")?;
                Trajectory::TimedGait(Box::new(g))
            }
        })
    }
}

/// The cycle phase of a gait or bob at `p` with a blend timeline or
/// `cycles`: the blend within [0, 1] (a non-constant one needs `run`),
/// `cycles` and `run.cycles` within (0, 64], and a whole number of cycles
/// per loop (refused at `p.blend`, or at `p.cycles` for a constant blend).
fn cadence(
    p: &str,
    b: &ParamFile,
    walk: Option<f64>,
    run: Option<f64>,
    has_run: bool,
) -> Result<Cadence, RigError> {
    let rate = |path: String, c: f64| -> Result<f64, RigError> {
        let c = num(&path, c)?;
        if !(c > 0.0 && c <= timeline::MAX_CYCLES) {
            return Err(invalid(
                path,
                format!(
                    "must be within (0, {}], got {}",
                    timeline::MAX_CYCLES,
                    crate::valid::shown(c)
                ),
            ));
        }
        Ok(c)
    };
    let walk = rate(format!("{p}.cycles"), walk.unwrap_or(1.0))?;
    let run = match run {
        Some(c) => rate(format!("{p}.run.cycles"), c)?,
        None => walk,
    };
    let bp = format!("{p}.blend");
    let keyed = timeline::validate_param(&bp, b, &|q, v| {
        let v = timeline::unit(q, v)?;
        if v != 0.0 && !has_run {
            return Err(invalid(q, "needs `run` parameters to blend toward"));
        }
        Ok(v)
    })?;
    let field = match b {
        ParamFile::Const(_) => format!("{p}.cycles"),
        ParamFile::Keys(_) => bp,
    };
    Cadence::new(&field, keyed, walk, run)
}

fn lerp(a: f64, b: f64, u: f64) -> f64 {
    a + (b - a) * u
}

fn duty(path: &str, d: f64) -> Result<f64, RigError> {
    let d = num(path, d)?;
    if !(d > 0.0 && d < 1.0) {
        return Err(invalid(
            path,
            format!(
                "must be between 0 and 1 (exclusive), got {}",
                crate::valid::shown(d)
            ),
        ));
    }
    Ok(d)
}

/// A gait blend in [0, 1]; a non-zero blend needs `run`.
fn blend(path: &str, b: f64, has_run: bool) -> Result<f64, RigError> {
    let b = num(path, b)?;
    if !(0.0..=1.0).contains(&b) {
        return Err(invalid(
            path,
            format!("must be within [0, 1], got {}", crate::valid::shown(b)),
        ));
    }
    if b != 0.0 && !has_run {
        return Err(invalid(path, "needs `run` parameters to blend toward"));
    }
    Ok(b)
}

fn validate_track(p: &str, t: &TrackFile) -> Result<Trajectory, RigError> {
    let n = t.keys.len();
    if n < 2 {
        return Err(invalid(
            format!("{p}.keys"),
            format!("needs at least 2 keys, got {n}"),
        ));
    }
    let mut keys = Vec::with_capacity(n);
    for (i, (time, xy)) in t.keys.iter().enumerate() {
        let kp = format!("{p}.keys[{i}]");
        let time = num(&format!("{kp}[0]"), *time)?;
        crate::valid::key_time(
            &format!("{kp}[0]"),
            time,
            keys.last().map(|k: &(f64, Vec2)| k.0),
        )?;
        keys.push((time, point(&format!("{kp}[1]"), *xy)?));
    }
    if keys[0].0 != 0.0 || keys[n - 1].0 != 1.0 {
        return Err(invalid(
            format!("{p}.keys"),
            format!(
                "must run from t = 0 to t = 1, got {} to {}",
                crate::valid::shown(keys[0].0),
                crate::valid::shown(keys[n - 1].0)
            ),
        ));
    }
    if keys[0].1 != keys[n - 1].1 {
        return Err(invalid(
            format!("{p}.keys"),
            "the last point must equal the first so the loop is seamless",
        ));
    }
    let eases = match &t.ease {
        EaseSpec::All(e) => vec![*e; n - 1],
        EaseSpec::Each(v) if v.len() == n - 1 => v.clone(),
        EaseSpec::Each(v) => {
            return Err(invalid(
                format!("{p}.ease"),
                format!("needs one easing per segment ({}), got {}", n - 1, v.len()),
            ));
        }
    };
    Ok(Trajectory::Track { keys, eases })
}

/// How slow, against its control polygon's length, a curve must get at an
/// interior minimum of its speed for [`split_at_cusps`] to split it there:
/// a cusp (speed 0) or nearly one. (A 1,000 px line traced out and back
/// with its turn 10 px short of a cusp baked in 1.85 s at 0.001 of the
/// polygon, 0.48 s at 0.05, where the fit's keys, not the arc length,
/// take the time; no segment of the example rigs slows that much.)
const CUSP_SPEED: f64 = 0.05;

/// Samples per segment where [`split_at_cusps`] looks for speed minima.
const CUSP_SAMPLES: usize = 64;

/// `seg` split at each interior minimum of its speed below [`CUSP_SPEED`]
/// of its control polygon's length: a cusp, where the curve stops and
/// turns back, or nearly one. Arc length (kurbo's adaptive quadrature) converges slowly
/// across a cusp, where the speed has a kink (|B′(u)| ≈ c·|u − u₀|), and
/// quickly on either side of it: a cusp 1,000 px across took seconds per
/// bake, split it takes milliseconds. The pieces trace the same curve, so
/// the path, its length and its points are the same; a segment without
/// such a minimum (every segment of the example rigs) is returned whole.
fn split_at_cusps(seg: PathSeg) -> Vec<PathSeg> {
    let cuts = cusp_cuts(seg);
    if cuts.is_empty() {
        return vec![seg];
    }
    let mut ends = vec![0.0];
    ends.extend(cuts);
    ends.push(1.0);
    ends.windows(2)
        .map(|w| seg.subsegment(w[0]..w[1]))
        .collect()
}

/// Where [`split_at_cusps`] cuts `seg`: the parameters of its interior
/// speed minima below [`CUSP_SPEED`] of its control polygon's length, in
/// order.
fn cusp_cuts(seg: PathSeg) -> Vec<f64> {
    let speed2 = |u: f64| match seg {
        PathSeg::Cubic(c) => c.deriv().eval(u).to_vec2().hypot2(),
        PathSeg::Quad(q) => q.deriv().eval(u).to_vec2().hypot2(),
        PathSeg::Line(_) => 1.0,
    };
    let poly = match seg {
        PathSeg::Cubic(c) => (c.p1 - c.p0).hypot() + (c.p2 - c.p1).hypot() + (c.p3 - c.p2).hypot(),
        PathSeg::Quad(q) => (q.p1 - q.p0).hypot() + (q.p2 - q.p1).hypot(),
        PathSeg::Line(_) => return Vec::new(),
    };
    let slow2 = (CUSP_SPEED * poly).powi(2);
    let n = CUSP_SAMPLES;
    let at: Vec<f64> = (0..=n).map(|k| speed2(k as f64 / n as f64)).collect();
    let mut cuts = Vec::new();
    for k in 1..n {
        if at[k] <= at[k - 1] && at[k] < at[k + 1] {
            // the minimum within the neighbouring samples, by golden section
            let (mut lo, mut hi) = ((k - 1) as f64 / n as f64, (k + 1) as f64 / n as f64);
            for _ in 0..60 {
                let (a, b) = (lo + (hi - lo) * 0.382, lo + (hi - lo) * 0.618);
                if speed2(a) < speed2(b) {
                    hi = b;
                } else {
                    lo = a;
                }
            }
            let u = (lo + hi) / 2.0;
            if speed2(u) < slow2 && u > 0.0 && u < 1.0 {
                cuts.push(u);
            }
        }
    }
    cuts
}

fn validate_path(p: &str, pf: &PathFile) -> Result<Trajectory, RigError> {
    let bez = crate::valid::path_data(&format!("{p}.d"), &pf.d)?;
    let all: Vec<PathSeg> = bez.segments().collect();
    if all.is_empty() {
        return Err(invalid(format!("{p}.d"), "has no segments"));
    }
    // one loop: a move after the first drawing command starts another
    let mut drawn = false;
    let (mut at, mut start) = (kurbo::Point::ORIGIN, kurbo::Point::ORIGIN);
    for el in bez.elements() {
        match *el {
            kurbo::PathEl::MoveTo(q) if drawn && q != at => {
                return Err(invalid(
                    format!("{p}.d"),
                    format!(
                        "must be one loop, but a move to ({}, {}) starts another (the target follows one path)",
                        crate::valid::shown(q.x),
                        crate::valid::shown(q.y)
                    ),
                ));
            }
            kurbo::PathEl::MoveTo(q) => {
                (at, start) = (q, q);
            }
            kurbo::PathEl::LineTo(q) => {
                drawn = true;
                at = q;
            }
            kurbo::PathEl::QuadTo(_, q) | kurbo::PathEl::CurveTo(_, _, q) => {
                drawn = true;
                at = q;
            }
            kurbo::PathEl::ClosePath => {
                drawn = true;
                at = start;
            }
        }
    }
    let size = path_size(&all);
    let (extent, accuracy) = (size.0, arclen_accuracy(ARCLEN_RELATIVE, size));
    let negligible = MIN_SEGMENT_RELATIVE * extent;
    let first = all[0].start();
    let last = all[all.len() - 1].end();
    if (first - last).hypot() > negligible {
        return Err(invalid(
            format!("{p}.d"),
            "must be closed (end where it starts, e.g. with Z) so the loop is seamless",
        ));
    }
    // Segments of (next to) zero length are dropped: they take no time at
    // constant speed, so the parametrisation is the same without them, and
    // inverting the arc length of a point is undefined.
    let mut segs = Vec::with_capacity(all.len());
    let mut lens = Vec::with_capacity(all.len());
    let mut cum = Vec::with_capacity(all.len());
    let mut total = 0.0;
    for s in all.into_iter().flat_map(split_at_cusps) {
        let len = s.arclen(accuracy);
        if len > negligible {
            total += len;
            segs.push(s);
            lens.push(len);
            cum.push(total);
        }
    }
    if segs.is_empty() {
        return Err(invalid(
            format!("{p}.d"),
            "has zero length (every point is the same)",
        ));
    }
    let start = num(&format!("{p}.start"), pf.start)?.rem1();
    Ok(Trajectory::Path {
        segs,
        lens,
        cum,
        start,
        sign: match pf.along {
            Along::Forward => 1.0,
            Along::Reverse => -1.0,
        },
        accuracy,
    })
}

/// kurbo's [`ParamCurveArclen::inv_arclen`] of `seg` (the parameter at
/// which its arc length from the start is `arclen`), given the segment's
/// whole arc length `total` as `seg.arclen(accuracy)` measured it, instead
/// of measuring it again on every call: for a quad or a cubic the same
/// steps in the same order as kurbo 0.13's provided method (which they
/// keep), so the same bits, for less work; a line is kurbo's own (one
/// division). Only for a `total` from `seg.arclen` at the same `accuracy`.
fn inv_arclen_of(seg: &PathSeg, arclen: f64, total: f64, accuracy: f64) -> f64 {
    if let PathSeg::Line(line) = seg {
        return line.inv_arclen(arclen, accuracy);
    }
    if arclen <= 0.0 {
        return 0.0;
    }
    if arclen >= total {
        return 1.0;
    }
    let mut t_last = 0.0;
    let mut arclen_last = 0.0;
    let epsilon = accuracy / total;
    let n = 1.0 - epsilon.log2().ceil().min(0.0);
    let inner_accuracy = accuracy / n;
    let f = |t: f64| {
        let (range, dir) = if t > t_last {
            (t_last..t, 1.0)
        } else {
            (t..t_last, -1.0)
        };
        let arc = seg.subsegment(range).arclen(inner_accuracy);
        arclen_last += arc * dir;
        t_last = t;
        arclen_last - arclen
    };
    kurbo::common::solve_itp(f, 0.0, 1.0, epsilon, 1, 0.2, -arclen, total - arclen)
}

/// Smoothstep `3u² − 2u³`.
fn smooth(u: f64) -> f64 {
    u * u * (3.0 - 2.0 * u)
}

impl Trajectory {
    /// A circle at constant angular speed (a `circle`, or an `ellipse`
    /// with equal radii): its centre, radius, angle at t = 0 (radians,
    /// clockwise on screen) and turn direction (+1 clockwise), so a point
    /// turned about the centre once per period is this trajectory exactly.
    pub fn as_circle(&self) -> Option<(Vec2, f64, f64, f64)> {
        match self {
            Trajectory::Ellipse {
                center,
                rx,
                ry,
                rotation_rad,
                start_rad,
                sign,
                ..
            } if rx == ry => Some((*center, *rx, start_rad + rotation_rad, *sign)),
            _ => None,
        }
    }

    /// A disk every position ([`Self::at`], at any t) lies in, as its
    /// centre and radius, where the form gives one at once: a fixed point
    /// (radius 0) and an ellipse (its centre and larger radius); `None`
    /// for the other forms. The bound is exact in real numbers; a position
    /// as computed may stray from it by rounding (a few ulps).
    pub fn disk(&self) -> Option<(Vec2, f64)> {
        match self {
            Trajectory::Fixed(p) => Some((*p, 0.0)),
            Trajectory::Ellipse { center, rx, ry, .. } => Some((*center, rx.max(*ry))),
            _ => None,
        }
    }

    /// Positions near [`Self::at`] at t = k / n for k in 0..n, found with a
    /// sine and cosine per 64 times (the others by turning the last one),
    /// and a bound on how far each may be from `at`'s: far more than the
    /// rounding of either (1e-9 of the values' size). For a screen that
    /// leaves only the times near a limit to `at` itself; where the form
    /// gives none cheaply (a fixed point and an ellipse do), `None`.
    pub fn near_grid(&self, n: usize) -> Option<(Vec<Vec2>, f64)> {
        match self {
            Trajectory::Fixed(p) => Some((vec![*p; n], 0.0)),
            Trajectory::Ellipse {
                center,
                rx,
                ry,
                rotation_rad,
                start_rad,
                sign,
                rotation_sin_cos: (sr, cr),
            } => {
                let (s0, c0) = start_rad.sin_cos();
                let (sr, cr) = (*sr, *cr);
                let step = TAU / n as f64;
                let (sw, cw) = step.sin_cos();
                let (mut s, mut c) = (0.0, 1.0);
                let points = (0..n)
                    .map(|k| {
                        // (cos, sin) of the turn k · step, fresh every 64
                        if k % 64 == 0 {
                            (s, c) = (step * k as f64).sin_cos();
                        } else {
                            (s, c) = (s * cw + c * sw, c * cw - s * sw);
                        }
                        let (s, c) = (sign * s, c);
                        let (st, ct) = (s0 * c + c0 * s, c0 * c - s0 * s);
                        let local = Vec2::new(rx * ct, ry * st);
                        *center
                            + Vec2::new(cr * local.x - sr * local.y, sr * local.x + cr * local.y)
                    })
                    .collect();
                let size = center.x.abs()
                    + center.y.abs()
                    + (rx + ry) * (1.0 + start_rad.abs() + rotation_rad.abs() + TAU);
                Some((points, 1e-9 * (1.0 + size)))
            }
            _ => None,
        }
    }

    /// Position at normalised time t (any real t; periodic with period 1).
    pub fn at(&self, t: f64) -> Vec2 {
        let t = t.rem1();
        match self {
            Trajectory::Fixed(p) => *p,
            Trajectory::Ellipse {
                center,
                rx,
                ry,
                rotation_sin_cos: (s, c),
                start_rad,
                sign,
                ..
            } => {
                let th = start_rad + sign * TAU * t;
                let local = Vec2::new(rx * th.cos(), ry * th.sin());
                *center + Vec2::new(c * local.x - s * local.y, s * local.x + c * local.y)
            }
            Trajectory::Track { keys, eases } => {
                let i = keys.partition_point(|k| k.0 <= t).clamp(1, keys.len() - 1) - 1;
                let ((t0, p0), (t1, p1)) = (keys[i], keys[i + 1]);
                let u = ((t - t0) / (t1 - t0)).clamp(0.0, 1.0);
                p0 + (p1 - p0) * eases[i].apply(u)
            }
            Trajectory::Path {
                segs,
                lens,
                cum,
                start,
                sign,
                accuracy,
            } => {
                let total = *cum.last().expect("validated: at least one segment");
                let s = ((start + sign * t).rem1()) * total;
                let i = cum.partition_point(|&c| c < s).min(segs.len() - 1);
                let before = if i == 0 { 0.0 } else { cum[i - 1] };
                let u = inv_arclen_of(&segs[i], s - before, lens[i], *accuracy);
                let q = segs[i].eval(u);
                Vec2::new(q.x, q.y)
            }
            Trajectory::Gait {
                origin,
                stride,
                step_height,
                duty,
                phase,
            } => {
                let ph = (t + phase).rem1();
                let (x, lift) = if ph < *duty {
                    let u = ph / duty;
                    (stride / 2.0 - stride * u, 0.0)
                } else {
                    let u = (ph - duty) / (1.0 - duty);
                    (
                        -stride / 2.0 + stride * smooth(u),
                        step_height * (PI * u).sin(),
                    )
                };
                *origin + Vec2::new(x, -lift)
            }
            Trajectory::Bob { center, amp, phase } => {
                *center + Vec2::new(0.0, -amp * (TAU * (t + phase)).sin().abs())
            }
            Trajectory::TimedGait(g) => g.at(t),
            Trajectory::TimedBob(b) => b.at(t),
        }
    }

    /// A `path` trajectory as path data a browser can move along exactly:
    /// `(d, start, sign)` with the (non-zero) segments written absolute
    /// (`M`, `L`, `Q`, `C`, a new `M` where a segment does not start where
    /// the last ended), coordinates times `scale` rounded to `decimals`
    /// places, and a
    /// closing `Z` when it is one subpath; the point at normalised time t is then at the fraction
    /// `(start + sign·t) mod 1` of its length. `None` for other kinds: a
    /// circle, an ellipse, a track, a gait or a bob is not a constant-speed
    /// walk along a path and stays keyed.
    pub fn path_data(&self, scale: f64, decimals: u32) -> Option<(String, f64, f64)> {
        let Trajectory::Path {
            segs, start, sign, ..
        } = self
        else {
            return None;
        };
        let n = |x: f64| crate::geom::fmt_num(x, decimals);
        let pt = |p: kurbo::Point| format!("{} {}", n(p.x * scale), n(p.y * scale));
        let mut d = String::new();
        let mut end: Option<kurbo::Point> = None;
        for s in segs {
            if end != Some(s.start()) {
                if !d.is_empty() {
                    d.push(' ');
                }
                d.push_str(&format!("M {}", pt(s.start())));
            }
            match s {
                PathSeg::Line(l) => d.push_str(&format!(" L {}", pt(l.p1))),
                PathSeg::Quad(q) => d.push_str(&format!(" Q {} {}", pt(q.p1), pt(q.p2))),
                PathSeg::Cubic(c) => {
                    d.push_str(&format!(" C {} {} {}", pt(c.p1), pt(c.p2), pt(c.p3)))
                }
            }
            end = Some(s.end());
        }
        // one subpath ends where it starts: close it (with several, a Z would
        // draw a line back to the last one's start and add length)
        if d.matches('M').count() == 1 {
            d.push_str(" Z");
        }
        Some((d, *start, *sign))
    }

    /// Normalised times in [0, 1) where the motion may have a corner (its
    /// velocity jumps): track keys, path segment joins, gait stance start
    /// and end, the bob's bounce. Key placement puts keys there.
    pub fn corners(&self) -> Vec<f64> {
        let mut out = match self {
            Trajectory::Fixed(_) | Trajectory::Ellipse { .. } => Vec::new(),
            Trajectory::Track { keys, .. } => keys.iter().map(|k| k.0).collect(),
            Trajectory::Path {
                cum, start, sign, ..
            } => {
                let total = *cum.last().expect("validated: at least one segment");
                std::iter::once(0.0)
                    .chain(cum.iter().map(|c| c / total))
                    .map(|s| (sign * (s - start)).rem1())
                    .collect()
            }
            Trajectory::Gait { duty, phase, .. } => {
                vec![(-phase).rem1(), (duty - phase).rem1()]
            }
            Trajectory::Bob { phase, .. } => {
                let a = (-phase).rem_euclid(0.5);
                vec![a, a + 0.5]
            }
            Trajectory::TimedGait(g) => g.corners(),
            Trajectory::TimedBob(b) => b.corners(),
        };
        out.retain(|t| (0.0..1.0).contains(t));
        out.sort_by(f64::total_cmp);
        out.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
        out
    }

    /// Whether this is a gait (a foot that plants on a scrolling ground).
    pub fn is_gait(&self) -> bool {
        matches!(self, Trajectory::Gait { .. } | Trajectory::TimedGait(_))
    }

    /// How far a ground that a planted foot of this gait keeps pace with
    /// has moved left from normalised time 0 to t (t ∈ [0, 1]), px; `None`
    /// for other kinds. A constant gait's ground moves `stride ÷ duty` per
    /// loop at constant speed; a timed gait's follows its blend.
    pub fn ground_travel(&self, t: f64) -> Option<f64> {
        match self {
            Trajectory::Gait { stride, duty, .. } => Some(stride / duty * t),
            Trajectory::TimedGait(g) => Some(g.travel_at(t)),
            _ => None,
        }
    }

    /// Whether the point is on the ground (gait stance) at t; always false
    /// for other kinds.
    ///
    /// (A gait, timed or not, is also recognised by [`Self::is_gait`].)
    pub fn in_stance(&self, t: f64) -> bool {
        match self {
            Trajectory::Gait { duty, phase, .. } => (t + phase).rem1() < *duty,
            Trajectory::TimedGait(g) => g.in_stance(t),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Trajectory {
        let f: TrajectoryFile = serde_json::from_str(json).unwrap();
        f.validate("t").unwrap()
    }

    /// One trajectory file of every kind.
    const FILES: [&str; 7] = [
        r#"{"fixed": [3, 4]}"#,
        r#"{"circle": {"center": [10, 20], "radius": 5, "start_deg": 30}}"#,
        r#"{"ellipse": {"center": [0, 0], "rx": 40, "ry": 15, "rotation_deg": 20, "direction": "ccw"}}"#,
        r#"{"track": {"keys": [[0, [0, 0]], [0.3, [10, 0]], [0.7, [10, 5]], [1, [0, 0]]],
             "ease": ["smoothstep", "easeOutCubic", "easeInCubic"]}}"#,
        r#"{"path": {"d": "M 0 0 C 40 -30 80 30 120 0 C 80 60 40 60 0 0 Z", "start": 0.25}}"#,
        r#"{"gait": {"origin": [100, 200], "stride": 44, "step_height": 9, "duty": 0.62, "phase": 0.5}}"#,
        r#"{"bob": {"center": [200, 164], "amp": 3, "phase": 0.1}}"#,
    ];

    fn all() -> Vec<Trajectory> {
        FILES.iter().map(|f| parse(f)).collect()
    }

    /// `translated` moves every point of every kind by the same offset
    /// (the lowering of `ik_chains` moves a chain's root and target by its
    /// `depth_offset` this way).
    #[test]
    fn a_translated_trajectory_passes_every_point_moved() {
        let d = [-6.5, 7.25];
        for f in FILES {
            let file: TrajectoryFile = serde_json::from_str(f).unwrap();
            // no offset: the file as written (a path's data verbatim)
            assert_eq!(file.translated([0.0, 0.0]), file);
            let (a, b) = (
                file.validate("t").unwrap(),
                file.translated(d).validate("t").unwrap(),
            );
            for k in 0..=96 {
                let t = k as f64 / 96.0;
                let moved = a.at(t) + Vec2::new(d[0], d[1]);
                // (a path's arc-length table is rebuilt from the moved
                // data: its points move by ~1e-6 px)
                assert!(
                    b.at(t).dist(moved) < 1e-5,
                    "{f} at {t}: {:?} against {moved:?}",
                    b.at(t)
                );
            }
        }
    }

    #[test]
    fn gait_and_bob_blend_walk_to_run() {
        let walk = r#""origin": [0, 0], "stride": 44, "step_height": 8, "duty": 0.62"#;
        let run = r#""run": {"stride": 60, "step_height": 14, "duty": 0.4}"#;
        let g = |b: f64| parse(&format!(r#"{{"gait": {{{walk}, {run}, "blend": {b}}}}}"#));
        let plain = parse(&format!(r#"{{"gait": {{{walk}}}}}"#));
        let ran =
            parse(r#"{"gait": {"origin": [0, 0], "stride": 60, "step_height": 14, "duty": 0.4}}"#);
        for k in 0..=200 {
            let t = k as f64 / 200.0;
            assert_eq!(g(0.0).at(t), plain.at(t));
            assert!(g(1.0).at(t).dist(ran.at(t)) < 1e-12, "{t}");
        }
        match g(0.5) {
            Trajectory::Gait {
                stride,
                step_height,
                duty,
                ..
            } => {
                assert!((stride - 52.0).abs() < 1e-12);
                assert!((step_height - 11.0).abs() < 1e-12);
                assert!((duty - 0.51).abs() < 1e-12);
            }
            other => panic!("{other:?}"),
        }
        let b = |x: f64| {
            parse(&format!(
                r#"{{"bob": {{"center": [0, 0], "amp": 3, "run": {{"amp": 5, "phase": 0.3}}, "blend": {x}}}}}"#
            ))
        };
        assert_eq!(
            b(0.5),
            Trajectory::Bob {
                center: Vec2::ZERO,
                amp: 4.0,
                phase: 0.15
            }
        );
        // run phase 0.3: the high point at t = 0.25 − 0.3 + 0.5 = 0.45, the
        // middle of the near foot's flight after a 0.4 stance
        assert!((b(1.0).at(0.45).y + 5.0).abs() < 1e-12);
        for tr in [g(0.5), b(0.5), g(1.0), b(1.0)] {
            assert!(tr.at(0.0).dist(tr.at(1.0)) < 1e-12);
            assert!(tr.at(0.3).dist(tr.at(1.3)) < 1e-9);
        }
    }

    #[test]
    fn blend_needs_run_and_stays_in_unit_range() {
        for (json, path) in [
            (
                r#"{"gait": {"origin": [0, 0], "stride": 4, "step_height": 1, "duty": 0.5, "blend": 0.5}}"#,
                "t.gait.blend",
            ),
            (
                r#"{"bob": {"center": [0, 0], "amp": 3, "run": {"amp": 5}, "blend": 1.5}}"#,
                "t.bob.blend",
            ),
            (
                r#"{"gait": {"origin": [0, 0], "stride": 4, "step_height": 1, "duty": 0.5, "run": {"stride": 5, "step_height": 1, "duty": 1.2}}}"#,
                "t.gait.run.duty",
            ),
        ] {
            let f: TrajectoryFile = serde_json::from_str(json).unwrap();
            let e = f.validate("t").unwrap_err().to_string();
            assert!(e.starts_with(path), "{e}");
        }
    }

    #[test]
    fn corners_are_where_gait_and_bob_change_piece() {
        let g = parse(
            r#"{"gait": {"origin": [0, 0], "stride": 44, "step_height": 8, "duty": 0.62, "phase": 0.5}}"#,
        );
        let c = g.corners();
        assert_eq!(c.len(), 2);
        assert!((c[0] - 0.12).abs() < 1e-12 && (c[1] - 0.5).abs() < 1e-12);
        let b = parse(r#"{"bob": {"center": [0, 0], "amp": 3, "phase": 0.3}}"#);
        let c = b.corners();
        assert!((c[0] - 0.2).abs() < 1e-12 && (c[1] - 0.7).abs() < 1e-12);
        assert!(b.at(c[0]).y.abs() < 1e-12);
    }

    #[test]
    fn bob_is_seed_000s_hip_bob() {
        let b = parse(r#"{"bob": {"center": [200, 164], "amp": 3}}"#);
        assert_eq!(b.at(0.0), Vec2::new(200.0, 164.0));
        // two bobs per loop, highest (smallest y) at t = 1/4 and 3/4
        assert!((b.at(0.25).y - 161.0).abs() < 1e-12);
        assert!((b.at(0.75).y - 161.0).abs() < 1e-12);
        assert!((b.at(0.5).y - 164.0).abs() < 1e-12);
    }

    /// Velocity from the left and from the right at t (one-sided differences).
    fn sided_velocity(tr: &Trajectory, t: f64) -> (Vec2, Vec2) {
        let h = 1e-4;
        (
            (tr.at(t) - tr.at(t - h)) * (1.0 / h),
            (tr.at(t + h) - tr.at(t)) * (1.0 / h),
        )
    }

    #[test]
    fn corners_are_where_the_velocity_jumps_and_nowhere_else() {
        for tr in all() {
            let corners = tr.corners();
            // the gait, the bob and this path (its joins are not smooth) have corners
            let kinked = matches!(
                tr,
                Trajectory::Gait { .. } | Trajectory::Bob { .. } | Trajectory::Path { .. }
            );
            if kinked {
                assert!(!corners.is_empty(), "{tr:?}");
            }
            let mut jumps = 0;
            for &c in &corners {
                let (l, r) = sided_velocity(&tr, c);
                if l.dist(r) > 0.2 * l.len().max(r.len()) {
                    jumps += 1;
                }
            }
            if kinked {
                assert!(jumps >= 1, "{tr:?}: no corner has a velocity jump");
            }
            // away from the listed corners the velocity is continuous
            for k in 0..997 {
                let t = (k as f64 + 0.5) / 997.0;
                if corners
                    .iter()
                    .any(|&c| (c - t).abs().min(1.0 - (c - t).abs()) < 1e-3)
                {
                    continue;
                }
                let (l, r) = sided_velocity(&tr, t);
                assert!(
                    l.dist(r) < 0.02 * l.len().max(r.len()) + 0.5,
                    "{tr:?} at t = {t}: {l:?} vs {r:?}"
                );
            }
        }
    }

    #[test]
    fn every_kind_is_periodic() {
        for tr in all() {
            assert!(tr.at(0.0).dist(tr.at(1.0)) < 1e-9, "{tr:?}");
            assert!(tr.at(0.2).dist(tr.at(1.2)) < 1e-9, "{tr:?}");
        }
    }

    #[test]
    fn path_speed_is_constant_by_arc_length() {
        // a smooth closed loop (tangents continuous at both joins)
        let tr = parse(r#"{"path": {"d": "M 0 0 C 30 -40 90 -40 120 0 C 150 40 -30 40 0 0 Z"}}"#);
        // Distance travelled in each of n equal time steps, measured along the
        // curve (sum of 20 sub-chords, so corners don't shorten it).
        let n = 200;
        let m = 20;
        let steps: Vec<f64> = (0..n)
            .map(|k| {
                (0..m)
                    .map(|j| {
                        let a = (k * m + j) as f64 / (n * m) as f64;
                        let b = (k * m + j + 1) as f64 / (n * m) as f64;
                        tr.at(a).dist(tr.at(b))
                    })
                    .sum::<f64>()
            })
            .collect();
        let mean = steps.iter().sum::<f64>() / n as f64;
        for s in steps {
            assert!((s - mean).abs() / mean < 0.01, "{s} vs {mean}");
        }
    }

    /// The arc-length accuracy is the same fraction of a path's extent at
    /// every scale (and no finer than the rounding of its coordinates allow):
    /// 1.2·10⁻⁶ px on the example rigs' 120 px path, 10⁻² px at 10⁶ px.
    #[test]
    fn arclen_accuracy_is_relative_to_the_paths_size() {
        for scale in [1e-3, 1.0, 1e3, 1e5] {
            let extent = 120.0 * scale;
            let acc = arclen_accuracy(ARCLEN_RELATIVE, (extent, 280.0 * scale));
            assert!((acc / extent - ARCLEN_RELATIVE).abs() < 1e-20, "{scale}");
        }
        assert!((arclen_accuracy(ARCLEN_RELATIVE, (120.0, 280.0)) - 1.2e-6).abs() < 1e-18);
        // a 1 px path at 10⁶: the rounding of its coordinates, ~10⁻⁶ px
        let far = arclen_accuracy(ARCLEN_RELATIVE, (1.0, 1e6));
        assert_eq!(far, COORD_RELATIVE * 1e6);
        assert!(far > 1e-8 && far < 1e-6, "{far}");
        let segs = [PathSeg::Cubic(kurbo::CubicBez::new(
            (160.0, 250.0),
            (190.0, 222.0),
            (260.0, -278.0),
            (280.0, 250.0),
        ))];
        assert_eq!(path_size(&segs), (528.0, 280.0));
    }

    /// A path 8 px across and the same scaled by 2¹⁰ and 2¹⁷ (about 10³
    /// and 10⁵, up to 10⁶ px across; powers of
    /// two scale every step of the arithmetic exactly) is measured and
    /// walked in the same steps: its accuracy, every segment's length and
    /// every point scale to the bit, so a path costs the same work at any
    /// scale (at an accuracy fixed in px the larger ones took more kurbo
    /// subdivisions and bisection steps, and so other bits).
    #[test]
    fn a_paths_work_does_not_depend_on_its_scale() {
        // 24 cubics round a circle, each traced forward past its end,
        // back past its start and forward again: two near-cusps apiece
        let n = 24;
        let pts: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                let a = TAU * i as f64 / n as f64;
                let r = 4.0 * (1.0 + 0.05 * (7.0 * a).sin());
                (r * a.cos(), r * a.sin())
            })
            .collect();
        let d = |k: f64| {
            let mut d = format!("M {} {}", pts[0].0 * k, pts[0].1 * k);
            for i in 1..=n {
                let ((x, y), (px, py)) = (pts[i % n], pts[i - 1]);
                let (dx, dy) = (x - px, y - py);
                d.push_str(&format!(
                    " C {} {} {} {} {} {}",
                    (x + 0.1 * dx) * k,
                    (y + 0.1 * dy + 0.004) * k,
                    (px - 0.1 * dx) * k,
                    (py - 0.1 * dy) * k,
                    x * k,
                    y * k
                ));
            }
            d + " Z"
        };
        let path = |k: f64| parse(&format!(r#"{{"path": {{"d": "{}"}}}}"#, d(k)));
        let one = path(1.0);
        let Trajectory::Path {
            lens: lens1,
            accuracy: acc1,
            segs: segs1,
            ..
        } = &one
        else {
            panic!("a path");
        };
        assert!(segs1.len() > n, "the near-cusps are cut");
        for k in [1024.0, 131_072.0] {
            let tr = path(k);
            let Trajectory::Path { lens, accuracy, .. } = &tr else {
                panic!("a path");
            };
            assert_eq!(*accuracy, acc1 * k);
            assert_eq!(lens.len(), lens1.len());
            for (a, b) in lens.iter().zip(lens1) {
                assert_eq!(*a, b * k, "{k}");
            }
            for j in 0..=1000 {
                let t = j as f64 / 1000.0;
                assert_eq!(tr.at(t), one.at(t) * k, "{k} at {t}");
            }
        }
    }

    /// `inv_arclen_of` with the segment's measured length is kurbo's
    /// `inv_arclen` to the bit: lines, quads and cubics (an arch, two
    /// cusps, a nearly straight one), at and beyond both ends and at every
    /// thousandth of the length between.
    #[test]
    fn inv_arclen_with_a_known_length_is_kurbos_to_the_bit() {
        use kurbo::{CubicBez, Line, QuadBez};
        let segs = [
            PathSeg::Line(Line::new((0.0, 0.0), (30.0, -40.0))),
            PathSeg::Quad(QuadBez::new((0.0, 0.0), (50.0, 80.0), (100.0, 0.0))),
            PathSeg::Cubic(CubicBez::new(
                (160.0, 250.0),
                (190.0, 222.0),
                (260.0, 222.0),
                (280.0, 250.0),
            )),
            PathSeg::Cubic(CubicBez::new(
                (0.0, 0.0),
                (100.0, 100.0),
                (0.0, 100.0),
                (100.0, 0.0),
            )),
            PathSeg::Cubic(CubicBez::new(
                (0.0, 0.0),
                (60.0, 40.0),
                (0.0, 40.0),
                (60.0, 0.0),
            )),
            PathSeg::Cubic(CubicBez::new(
                (0.0, 0.0),
                (1.0, 1e-3),
                (2.0, -1e-3),
                (3.0, 0.0),
            )),
        ];
        for seg in segs {
            for accuracy in [1e-6, 1e-3] {
                let total = seg.arclen(accuracy);
                let mut s: Vec<f64> = (0..=1000).map(|k| total * k as f64 / 1000.0).collect();
                s.extend([-1.0, 0.0, total.next_down(), total, total + 1.0, 1e-12]);
                for s in s {
                    assert_eq!(
                        inv_arclen_of(&seg, s, total, accuracy).to_bits(),
                        seg.inv_arclen(s, accuracy).to_bits(),
                        "{seg:?} at {s} of {total}"
                    );
                }
            }
        }
    }

    /// Cubics and quads made to stop at a random interior parameter u₀ (a
    /// cusp: B′(u₀) = 0, in any direction and at any scale up to 1,000 px)
    /// are cut there (and at any other slow turn); the pieces trace the
    /// same points, and no piece keeps an interior speed minimum below the
    /// cut's threshold. Smooth segments (an arch, a loop, a nearly straight one,
    /// a quad, a line) are returned whole.
    #[test]
    fn segments_are_cut_at_their_cusps_and_slow_turns_only() {
        use kurbo::{CubicBez, Line, Point, QuadBez};
        let mut rnd = crate::geom::unit_rng(0x9e37_79b9_7f4a_7c15u64);
        let same_points = |seg: PathSeg, pieces: &[PathSeg], cuts: &[f64]| {
            let mut ends = vec![0.0];
            ends.extend(cuts);
            ends.push(1.0);
            for (piece, w) in pieces.iter().zip(ends.windows(2)) {
                for k in 0..=8 {
                    let v = k as f64 / 8.0;
                    let (a, b) = (piece.eval(v), seg.eval(w[0] + (w[1] - w[0]) * v));
                    assert!((a - b).hypot() < 1e-6, "{seg:?} {w:?} at {v}");
                }
            }
        };
        let no_slow_minimum = |piece: &PathSeg| {
            assert_eq!(split_at_cusps(*piece).len(), 1, "{piece:?} cut again");
        };
        for case in 0..400 {
            let scale = [1.0, 30.0, 1000.0][case % 3];
            let mut p = || Point::new(scale * (rnd() - 0.5), scale * (rnd() - 0.5));
            let (p0, p1, p3) = (p(), p(), p());
            let u0 = 0.05 + 0.9 * rnd();
            let seg = if case % 2 == 0 {
                // (1−u)²(P1−P0) + 2(1−u)u(P2−P1) + u²(P3−P2) = 0 for P2
                let den = 2.0 * u0 - 3.0 * u0 * u0;
                if den.abs() < 0.05 {
                    continue;
                }
                let m = 1.0 - u0;
                let p2 = ((p0.to_vec2() - p1.to_vec2()) * (m * m) + p1.to_vec2() * (2.0 * m * u0)
                    - p3.to_vec2() * (u0 * u0))
                    / den;
                PathSeg::Cubic(CubicBez::new(p0, p1, p2.to_point(), p3))
            } else {
                // (1−u)(P1−P0) + u(P2−P1) = 0 for P2
                let p2 = p1 - (p1 - p0) * ((1.0 - u0) / u0);
                PathSeg::Quad(QuadBez::new(p0, p1, p2))
            };
            // cut at u₀, and perhaps at another slow turn of the same curve
            let cuts = cusp_cuts(seg);
            assert!(
                cuts.iter().any(|u| (u - u0).abs() < 1e-6),
                "case {case}: {seg:?} not cut at {u0}: {cuts:?}"
            );
            let pieces = split_at_cusps(seg);
            assert_eq!(pieces.len(), cuts.len() + 1);
            same_points(seg, &pieces, &cuts);
            pieces.iter().for_each(no_slow_minimum);
        }
        // the rig the cut was made for: a line traced out and back, with
        // two cusps
        let cubic = |p: [(f64, f64); 4]| PathSeg::Cubic(CubicBez::new(p[0], p[1], p[2], p[3]));
        let line_back = cubic([(0.0, 0.0), (1000.0, 1000.0), (-1000.0, -1000.0), (0.0, 0.0)]);
        let r3 = 3f64.sqrt();
        // and the textbook cusp, and a narrower one, at u = 0.5
        for (seg, cuts) in [
            (line_back, vec![(3.0 - r3) / 6.0, (3.0 + r3) / 6.0]),
            (
                cubic([(0.0, 0.0), (100.0, 100.0), (0.0, 100.0), (100.0, 0.0)]),
                vec![0.5],
            ),
            (
                cubic([(0.0, 0.0), (60.0, 40.0), (0.0, 40.0), (60.0, 0.0)]),
                vec![0.5],
            ),
        ] {
            let pieces = split_at_cusps(seg);
            assert_eq!(pieces.len(), cuts.len() + 1, "{seg:?}");
            same_points(seg, &pieces, &cuts);
        }
        for seg in [
            cubic([
                (160.0, 250.0),
                (190.0, 222.0),
                (260.0, 222.0),
                (280.0, 250.0),
            ]),
            cubic([(0.0, 0.0), (120.0, 80.0), (-20.0, 80.0), (100.0, 0.0)]),
            cubic([(0.0, 0.0), (1.0, 1e-3), (2.0, -1e-3), (3.0, 0.0)]),
            PathSeg::Quad(QuadBez::new((0.0, 0.0), (50.0, 80.0), (100.0, 0.0))),
            PathSeg::Line(Line::new((0.0, 0.0), (30.0, -40.0))),
        ] {
            assert_eq!(split_at_cusps(seg), vec![seg], "{seg:?}");
        }
    }

    /// A `path` trajectory's positions are kurbo's arc-length points
    /// (what `at` computed before it kept each segment's length): the
    /// same bits at every thousandth of the period, forward and reverse.
    #[test]
    fn path_positions_are_kurbos_arc_length_points() {
        for d in [
            r#"{"path": {"d": "M 160 250 C 190 222 260 222 280 250 C 260 278 190 278 160 250 Z", "start": 0.5}}"#,
            r#"{"path": {"d": "M 0 0 L 40 0 Q 60 30 40 60 L 0 60 Z", "along": "reverse"}}"#,
        ] {
            let tr = parse(d);
            let Trajectory::Path {
                segs,
                cum,
                start,
                sign,
                accuracy,
                ..
            } = &tr
            else {
                panic!("a path");
            };
            for k in 0..=1000 {
                let t = k as f64 / 1000.0;
                let total = *cum.last().unwrap();
                let s = ((start + sign * t).rem1()) * total;
                let i = cum.partition_point(|&c| c < s).min(segs.len() - 1);
                let before = if i == 0 { 0.0 } else { cum[i - 1] };
                let q = segs[i].eval(segs[i].inv_arclen(s - before, *accuracy));
                let p = tr.at(t);
                assert_eq!(
                    (p.x.to_bits(), p.y.to_bits()),
                    (q.x.to_bits(), q.y.to_bits()),
                    "{t}"
                );
            }
        }
    }

    /// `reach_px`, which evaluates the target once per time, is the
    /// distance from the target to `at` (pulled or not) at every time.
    #[test]
    fn reach_px_is_the_pull_at_every_time() {
        let root = parse(r#"{"fixed": [100, 100]}"#);
        let target = parse(
            r#"{"path": {"d": "M 160 250 C 190 222 260 222 280 250 C 260 278 190 278 160 250 Z"}}"#,
        );
        for pull_to in [None, Some(170.0), Some(150.0)] {
            let ideal = IdealTarget {
                root: root.clone(),
                target: target.clone(),
                pull_to,
                offset: Vec2::new(-6.0, -7.0),
            };
            let ts: Vec<f64> = (0..=200).map(|k| k as f64 * 0.008).collect();
            let want = ts
                .iter()
                .map(|&t| ideal.target.at(t / 1.6).dist(ideal.at(t / 1.6)))
                .fold(0.0, f64::max);
            assert_eq!(
                ideal.reach_px(&ts, 1.6).to_bits(),
                want.to_bits(),
                "{pull_to:?}"
            );
            assert_eq!(want > 1.0, pull_to.is_some(), "{pull_to:?}: {want}");
        }
    }

    #[test]
    fn zero_length_path_segments_are_dropped_exactly() {
        // the same triangle with a repeated point first, in the middle, last,
        // a closing Z onto the end point, and a degenerate curve
        let plain = parse(r#"{"path": {"d": "M 160 250 L 200 250 L 200 280 Z", "start": 0.3}}"#);
        for d in [
            "M 160 250 L 160 250 L 200 250 L 200 280 Z",
            "M 160 250 L 200 250 L 200 250 L 200 280 Z",
            "M 160 250 L 200 250 L 200 280 L 160 250 Z",
            "M 160 250 L 200 250 L 200 280 L 160 250 L 160 250",
            "M 160 250 C 160 250 160 250 160 250 Q 160 250 160 250 L 200 250 L 200 280 Z",
        ] {
            let tr = parse(&format!(r#"{{"path": {{"d": "{d}", "start": 0.3}}}}"#));
            for k in 0..=100 {
                let t = k as f64 / 100.0;
                let (a, b) = (tr.at(t), plain.at(t));
                assert!(a.x.is_finite() && a.y.is_finite(), "{d} at {t}");
                assert!(a.dist(b) < 1e-9, "{d} at {t}: {a:?} vs {b:?}");
            }
            assert_eq!(tr.corners(), plain.corners(), "{d}");
        }
        for d in [
            "M 1 1 L 1 1 Z",
            "M 1 1 C 1 1 1 1 1 1 Z",
            "M 5 5 L 5 5 L 5 5",
        ] {
            let f: TrajectoryFile =
                serde_json::from_str(&format!(r#"{{"path": {{"d": "{d}"}}}}"#)).unwrap();
            let e = f.validate("t").unwrap_err().to_string();
            assert!(e.starts_with("t.path.d: has zero length"), "{e}");
        }
        // a control point out of range is named, not turned into NaN
        let f: TrajectoryFile =
            serde_json::from_str(r#"{"path": {"d": "M 0 0 C 1e300 0 10 10 0 10 Z"}}"#).unwrap();
        let e = f.validate("t").unwrap_err().to_string();
        assert!(
            e.starts_with("t.path.d: must be within ±1000000, got 1e300"),
            "{e}"
        );
    }

    #[test]
    fn track_easing_end_points_are_exact() {
        let tr = parse(
            r#"{"track": {"keys": [[0, [0, 0]], [0.5, [10, -4]], [1, [0, 0]]], "ease": "easeOutCubic"}}"#,
        );
        assert_eq!(tr.at(0.5), Vec2::new(10.0, -4.0));
        assert_eq!(tr.at(0.0), Vec2::new(0.0, 0.0));
        // easeOutCubic at u = 0.5 is 0.875 of the way
        assert!((tr.at(0.25).x - 8.75).abs() < 1e-12);
    }

    #[test]
    fn gait_stance_slides_at_stride_over_duty() {
        let tr =
            parse(r#"{"gait": {"origin": [0, 0], "stride": 44, "step_height": 9, "duty": 0.62}}"#);
        assert_eq!(tr.at(0.0), Vec2::new(22.0, 0.0));
        let mid = tr.at(0.31);
        assert!((mid.x).abs() < 1e-9 && mid.y == 0.0);
        // foot speed in stance: stride per duty of a cycle
        let v = (tr.at(0.1).x - tr.at(0.2).x) / 0.1;
        assert!((v - 44.0 / 0.62).abs() < 1e-9);
        // swing lifts (y up is negative on screen)
        assert!(tr.at(0.81).y < -8.9);
        assert!(tr.in_stance(0.5) && !tr.in_stance(0.7));
    }

    #[test]
    fn bad_trajectories_name_their_field() {
        let bad = [
            (
                r#"{"circle": {"center": [0, 0], "radius": -1}}"#,
                "t.circle.radius",
            ),
            (
                r#"{"track": {"keys": [[0, [0, 0]], [1, [1, 0]]]}}"#,
                "t.track.keys",
            ),
            (r#"{"path": {"d": "M 0 0 L 10 0"}}"#, "t.path.d"),
            (r#"{"path": {"d": "M 0 0 Q"}}"#, "t.path.d"),
            (
                r#"{"gait": {"origin": [0, 0], "stride": 4, "step_height": 1, "duty": 1}}"#,
                "t.gait.duty",
            ),
        ];
        for (json, path) in bad {
            let f: TrajectoryFile = serde_json::from_str(json).unwrap();
            let e = f.validate("t").unwrap_err().to_string();
            assert!(e.starts_with(path), "{e}");
        }
    }
}

/// Times at which reach is checked during validation.
pub const REACH_SAMPLES: usize = 4096;

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
        self.aim(self.root.at(t), self.target.at(t))
    }

    /// [`Self::at`] from the root `r` and the target `g` at the same time.
    fn aim(&self, r: Vec2, g: Vec2) -> Vec2 {
        match self.pull_to {
            Some(max) if g.dist(r) > max => r + (g - r) * (max / g.dist(r)),
            _ => g,
        }
    }

    /// Largest distance between the target the rig asked for and the point
    /// aimed at ([`Self::at`]) at document times `ts_s` of a clip of
    /// `period_s`, px: how far a `"reach": "pull"` target was pulled back
    /// (0 for `"error"` and `"clamp"`, which aim at the target itself).
    pub fn reach_px(&self, ts_s: &[f64], period_s: f64) -> f64 {
        ts_s.iter()
            .map(|&t| {
                let u = t / period_s;
                let g = self.target.at(u);
                g.dist(self.aim(self.root.at(u), g))
            })
            .fold(0.0, f64::max)
    }

    /// Where the written ankle should be at normalised time t: [`Self::at`]
    /// moved by the chain's `depth_offset`.
    pub fn world_at(&self, t: f64) -> Vec2 {
        self.at(t) + self.offset
    }

    /// Normalised times in [0, 1) where the ideal ankle may have a corner:
    /// the root's and the target's ([`Trajectory::corners`]) and, for
    /// `"reach": "pull"`, where the pull starts or stops (found on a grid of
    /// [`REACH_SAMPLES`] and bisected).
    pub fn corners(&self) -> Vec<f64> {
        let mut v = self.root.corners();
        v.extend(self.target.corners());
        if let Some(max) = self.pull_to {
            let over = |t: f64| self.target.at(t).dist(self.root.at(t)) > max;
            let at = |k: usize| k as f64 / REACH_SAMPLES as f64;
            for k in 0..REACH_SAMPLES {
                if over(at(k)) != over(at(k + 1)) {
                    let (mut lo, mut hi) = (at(k), at(k + 1));
                    for _ in 0..50 {
                        let mid = 0.5 * (lo + hi);
                        if over(mid) == over(lo) {
                            lo = mid;
                        } else {
                            hi = mid;
                        }
                    }
                    v.push(0.5 * (lo + hi));
                }
            }
        }
        v.retain(|t| (0.0..1.0).contains(t));
        v.sort_by(f64::total_cmp);
        v.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        v
    }

    /// Stance intervals of a gait target within `[0, 1]` (normalised),
    /// split at the loop boundary; empty for other targets.
    pub fn stance(&self) -> Vec<(f64, f64)> {
        match &self.target {
            Trajectory::Gait { duty, phase, .. } => {
                let a = (-phase).rem1();
                let b = a + duty;
                if b <= 1.0 {
                    vec![(a, b)]
                } else {
                    vec![(a, 1.0), (0.0, b - 1.0)]
                }
            }
            Trajectory::TimedGait(g) => g.stance(),
            _ => Vec::new(),
        }
    }
}
