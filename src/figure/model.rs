//! The validated bone tree and its clips, and the drivers' exact formulas.
//!
//! After [`validate`]: bone names are unique identifiers, every parent comes
//! before its children (so one pass in order is a top-down traversal),
//! lengths are finite and 0 or at least 0.01, coordinates within ±[`MAX_COORD`](crate::valid::MAX_COORD), track keys
//! strictly increase in t ∈ [0, 1] with one easing per segment, scale values
//! are > 0, and there is at least one clip.

use super::file::{
    AtFile, AtName, BoneFile, ClipFile, DriverFile, EaseFile, EaseName, IkFile, Play, RootFile,
    SineFile, TrackFile,
};
use crate::chain::ChainReach;
use crate::geom::{Rem1, Vec2, Vec2Ext};
use crate::solve::ik::Knee;
use crate::trajectory::Trajectory;
use crate::valid::RigError;
use crate::valid::{check_name as ident, check_num as num, colour, invalid};
use std::f64::consts::TAU;

/// Most bones in one rig.
pub const MAX_BONES: usize = 256;
/// Most keys in one track.
pub const MAX_TRACK_KEYS: usize = 1000;
/// Most clips in one rig.
pub const MAX_CLIPS: usize = 16;
/// Largest sine harmonic.
pub const MAX_HARMONIC: u32 = 64;
/// Default stroke width, user units.
pub const DEFAULT_WIDTH: f64 = 6.0;
/// Default stroke colour (seed 002's bone colour).
pub const DEFAULT_STROKE: &str = "#6366f1";
/// Name of the clip made from the bones' own drivers when `clips` is absent.
pub const DEFAULT_CLIP: &str = "main";

impl EaseName {
    /// The easing polynomial at progress `u ∈ [0, 1]`.
    pub fn apply(self, u: f64) -> f64 {
        match self {
            EaseName::Linear => u,
            EaseName::Smoothstep => u * u * (3.0 - 2.0 * u),
            EaseName::EaseInCubic => u * u * u,
            EaseName::EaseOutCubic => 1.0 - (1.0 - u).powi(3),
        }
    }

    /// The exact CSS timing function: `None` for linear, else
    /// `cubic-bezier(1/3, y1, 2/3, y2)`, whose x(s) = s makes y a cubic in u
    /// with y(0)=0, y(1)=1, y'(0)=3·y1, y'(1)=3·(1−y2).
    pub fn bezier(self) -> Option<[f64; 4]> {
        let third = 1.0 / 3.0;
        match self {
            EaseName::Linear => None,
            EaseName::Smoothstep => Some([third, 0.0, 2.0 * third, 1.0]),
            EaseName::EaseInCubic => Some([third, 0.0, 2.0 * third, 0.0]),
            EaseName::EaseOutCubic => Some([third, 1.0, 2.0 * third, 1.0]),
        }
    }
}

/// A validated eased track (a bone's `track`, a clip's squash): the same
/// keys and easings as a timeline, evaluated the same way.
pub use crate::trajectory::timeline::Keyed as EasedTrack;

/// A validated angle driver; values in radians.
#[derive(Debug, Clone, PartialEq)]
pub enum Driver {
    Const(f64),
    /// `offset + amp · sin(2π · harmonic · x + phase)`, x = t, or the
    /// cycles of a followed gait ([`GaitClock`]); harmonic ≥ 1 and amp ≠ 0
    /// (a sine without either is loaded as the [`Driver::Const`] it holds).
    Sine {
        amp_rad: f64,
        harmonic: u32,
        phase_rad: f64,
        offset_rad: f64,
        clock: Option<GaitClock>,
    },
    Track(EasedTrack),
}

impl Driver {
    /// The local angle at normalised time t, radians.
    pub fn eval(&self, t: f64) -> f64 {
        match self {
            Driver::Const(a) => *a,
            Driver::Sine {
                amp_rad,
                harmonic,
                phase_rad,
                offset_rad,
                clock,
            } => {
                let x = clock.as_ref().map_or(t, |c| c.cycles(t));
                offset_rad + amp_rad * (TAU * *harmonic as f64 * x + phase_rad).sin()
            }
            Driver::Track(tr) => tr.eval(t),
        }
    }

    /// Cycles per loop of a sine's clock: 1, or a followed gait's.
    pub fn loop_cycles(&self) -> u32 {
        match self {
            Driver::Sine { clock: Some(c), .. } => c.cadence.cycles,
            _ => 1,
        }
    }
}

/// A followed gait's clock (`sine.follow`): its cycle count at normalised
/// time t, `Φ(t) + phase` (the far foot's gait runs half a cycle ahead).
#[derive(Debug, Clone, PartialEq)]
pub struct GaitClock {
    pub cadence: crate::trajectory::timeline::Cadence,
    pub phase: f64,
}

impl GaitClock {
    /// Cycles at t.
    pub fn cycles(&self, t: f64) -> f64 {
        self.cadence.phase(t) + self.phase
    }

    /// The time in [0, 1) at which the count reaches `x` (mod the loop).
    pub fn time_of(&self, x: f64) -> f64 {
        self.cadence.time_of(x - self.phase).rem1()
    }
}

/// A validated bone.
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    pub name: String,
    /// Index of the parent (always less than this bone's index).
    pub parent: Option<usize>,
    /// Root: joint in user space. Child: joint in the parent's frame
    /// (x along the parent bone, y clockwise of it).
    pub at: Vec2,
    /// User units, 0 or at least 0.01.
    pub length: f64,
    /// Stroke width, user units, at least 0.01.
    pub width: f64,
    /// `#rgb` or `#rrggbb`.
    pub stroke: String,
    /// A filled head circle of this radius at the tip, user units, at least 0.01.
    pub head_radius: Option<f64>,
    /// A root bone's `move`: its joint is `at + mv(t) − mv(0)`.
    pub mv: Option<Trajectory>,
    /// A root bone's `depth_offset` (zero for every other bone), already
    /// in `at`: on css the bake draws the bone's subtree without it, inside
    /// one translate by it.
    pub depth_offset: Vec2,
    /// Names a drawing may give this bone's parts (`bake --art`).
    pub parts: Vec<String>,
}

impl Bone {
    /// The joint at normalised time t: `at`, plus a root bone's `move`
    /// offset `mv(t) − mv(0)`.
    pub fn joint_at(&self, t: f64) -> Vec2 {
        match &self.mv {
            Some(m) => self.at + (m.at(t) - m.at(0.0)),
            None => self.at,
        }
    }
}

/// Squash and stretch about `pivot`: `sx = 1 + (1 − sy) · k`.
#[derive(Debug, Clone, PartialEq)]
pub struct Squash {
    pub sy: EasedTrack,
    pub pivot: Vec2,
    pub k: f64,
}

/// Whole-figure motion (see [`super::fk`] for the composition).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct RootMotion {
    pub x: Option<EasedTrack>,
    pub y: Option<EasedTrack>,
    pub squash: Option<Squash>,
    /// `move`: the figure is translated by `mv(t) − mv(0)` (with x and y).
    pub mv: Option<Trajectory>,
}

/// A validated `ik` entry: bones `upper` → `lower` (its child at its tip)
/// solved each frame so `lower`'s tip reaches `target` (user space).
#[derive(Debug, Clone, PartialEq)]
pub struct IkBone {
    /// The entry's `name`: its probes are then `<name>-ankle` (the lower
    /// bone's tip) and `<name>-target`, and the report calls it `<name>`.
    pub name: Option<String>,
    pub upper: usize,
    pub lower: usize,
    pub target: Trajectory,
    pub knee: Knee,
    pub reach: ChainReach,
    /// How the smil route writes the limb (see [`super::morph`]).
    pub smil: super::file::IkSmil,
    /// How the css route's shortest shape keys the limb.
    pub keying: super::file::IkKeying,
}

impl IkBone {
    /// `"reach": "pull"`: the farthest the target may be from the joint
    /// (seed 000: `upper + lower − 1.5`), in the figure's frame.
    pub fn pull_to(&self, bones: &[Bone]) -> Option<f64> {
        (self.reach == ChainReach::Pull).then(|| {
            bones[self.upper].length + bones[self.lower].length - crate::chain::PULL_MARGIN_PX
        })
    }
}

/// Which bone of a two-bone `ik` entry: the upper (`thigh`) or the lower
/// (`shin`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limb {
    Thigh,
    Shin,
}

impl Limb {
    /// The chain drawing's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            Limb::Thigh => "thigh",
            Limb::Shin => "shin",
        }
    }
}

/// The `ik` entry a `follow` names: by its `name`, or by its upper bone.
pub fn followed_entry(ik: &[IkBone], bones: &[Bone], name: &str) -> Option<usize> {
    ik.iter()
        .position(|k| k.name.as_deref() == Some(name) || bones[k.upper].name == name)
}

/// What a `follow` may name, for its error message: every `ik` entry's
/// name (if any) and upper bone.
fn followable(ik: &[IkBone], bones: &[Bone]) -> String {
    let names: Vec<&str> = ik
        .iter()
        .flat_map(|k| {
            k.name
                .as_deref()
                .into_iter()
                .chain([bones[k.upper].name.as_str()])
        })
        .collect();
    if names.is_empty() {
        "none".to_string()
    } else {
        crate::input::escaped(&names.join(", ")).into_owned()
    }
}

/// A validated clip.
#[derive(Debug, Clone, PartialEq)]
pub struct FigClip {
    pub name: String,
    /// Seconds, in (0, [`MAX_PERIOD_S`](crate::valid::MAX_PERIOD_S)].
    pub period_s: f64,
    pub play: Play,
    /// One driver per bone, in bone order.
    pub drivers: Vec<Driver>,
    pub root: RootMotion,
    /// Per entry of [`Figure::ik`], the target its effector follows in
    /// this clip (the clip's own `ik`, else the rig's `ik[].target`).
    pub targets: Vec<Trajectory>,
    /// Leftward speed of the ground under this clip, px/s (0: it stands
    /// still); meaningful with [`Figure::ground`]. For a ground that
    /// follows a timed gait, the mean speed (travel per loop ÷ period).
    pub ground_speed_px_s: f64,
    /// The ground's keyed travel `(t, x offset)` when it follows a gait
    /// whose speed changes over the loop ([`crate::chain::ground_keys`]);
    /// empty: constant speed.
    pub ground_keys: Vec<(f64, f64)>,
}

/// A validated bone-tree figure.
#[derive(Debug, Clone, PartialEq)]
pub struct Figure {
    pub bones: Vec<Bone>,
    /// Local angles (radians) of the drawn pose: each bone's own `angle` at t = 0.
    pub rest_rad: Vec<f64>,
    /// At least one; the first is the one shown by default.
    pub clips: Vec<FigClip>,
    /// True when the rig listed `clips` (class-switched output).
    pub switched: bool,
    /// Verlet chains pinned to bones, already simulated (see [`super::chain`]).
    pub chains: Vec<super::chain::Chain>,
    /// Two-bone IK chains of the tree, solved in order (see [`super::fk`]).
    pub ik: Vec<IkBone>,
    /// A ground row drawn behind the figure; each clip scrolls it at its
    /// own [`FigClip::ground_speed_px_s`] (`speed_px_s` here is the
    /// first clip's).
    pub ground: Option<crate::chain::Ground>,
    /// Distance between the ground's dots, px (see [`validate_ground`]).
    pub ground_spacing_px: f64,
    /// Spring-follow bones, already simulated (see [`super::spring`]),
    /// in the first clip.
    pub springs: Vec<super::spring::Spring>,
    /// `scene` parts, static or carried by bones (see [`super::scene`]).
    pub scene: Vec<super::scene::ScenePart>,
    /// The decimal places a bake rounds the figure's moving coordinates to
    /// (its joints, origins, translate keys, probes, chain particles and
    /// morphed points): [`crate::geom::LEN_DECIMALS`], or in a bake under
    /// a tight tolerance [`crate::geom::FINE_LEN_DECIMALS`]
    /// ([`Figure::written_to`]).
    pub len_decimals: u32,
    /// How the bones are drawn (see [`super::style`]).
    pub style: super::style::Style,
    /// Springs and chains as simulated in each clip, in clip order (empty
    /// for a figure built without them: then every clip uses `springs`
    /// and `chains`).
    pub physics: Vec<ClipPhysics>,
}

/// The springs and Verlet chains of a figure as simulated in one clip.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ClipPhysics {
    pub springs: Vec<super::spring::Spring>,
    pub chains: Vec<super::chain::Chain>,
}

impl Figure {
    /// Whether bone `b` has a tip probe: a bone of length 0 has none, its
    /// tip being its joint (its parent's tip, already probed, or for a
    /// root its own place, which moves only as its children and the parts
    /// it carries do), so a report has no line for it.
    pub fn has_tip_probe(&self, b: usize) -> bool {
        self.bones[b].length > 0.0
    }

    /// The probe at bone `b`'s tip: `<bone>-tip`, or `<name>-ankle` where
    /// `b` is the lower bone (the effector) of a named `ik` entry.
    pub fn tip_probe(&self, b: usize) -> String {
        match self
            .ik
            .iter()
            .find(|k| k.lower == b)
            .and_then(|k| k.name.as_ref())
        {
            Some(name) => format!("{name}-ankle"),
            None => format!("{}-tip", self.bones[b].name),
        }
    }

    /// Bone `b`'s part name in a drawing (`rigbake template` writes it,
    /// `bake --art` reads it), its joint marker's and its tip marker's
    /// (`None`: the tip is another marker). A bone's part is named as the
    /// bone, with markers `joint-<bone>` and `tip-<bone>`; the bones of a
    /// named `ik` entry as a chain drawing names them: the upper bone
    /// `thigh-<name>` with its joint `joint-hip-<name>`, the lower
    /// `shin-<name>` with `joint-knee-<name>` and its tip
    /// `joint-ankle-<name>` (the upper's tip is the knee). So an
    /// `ik_chains` rig, loaded as the tree it lowers into, keeps its chain
    /// drawing's names (`bake --art` also binds the bone's own). A bone's
    /// `part`, where it has one, names its part instead (`bake --art`
    /// binds the other names too).
    pub fn part_names(&self, b: usize) -> (String, String, Option<String>) {
        let (part, joint, tip) = self.own_part_names(b);
        let first = self.bones[b].parts.first().cloned();
        (first.unwrap_or(part), joint, tip)
    }

    /// [`Self::part_names`] without the bone's `part`.
    fn own_part_names(&self, b: usize) -> (String, String, Option<String>) {
        match self.chain_part(b) {
            Some((name, limb)) => {
                let part = format!("{}-{name}", limb.as_str());
                match limb {
                    Limb::Thigh => (part, format!("joint-hip-{name}"), None),
                    Limb::Shin => (
                        part,
                        format!("joint-knee-{name}"),
                        Some(format!("joint-ankle-{name}")),
                    ),
                }
            }
            None => {
                let name = &self.bones[b].name;
                (
                    name.clone(),
                    format!("joint-{name}"),
                    Some(format!("tip-{name}")),
                )
            }
        }
    }

    /// The named `ik` entry bone `b` is the thigh or shin of, if any.
    pub fn chain_part(&self, b: usize) -> Option<(&str, Limb)> {
        self.ik.iter().find_map(|k| {
            let name = k.name.as_deref()?;
            if k.upper == b {
                Some((name, Limb::Thigh))
            } else if k.lower == b {
                Some((name, Limb::Shin))
            } else {
                None
            }
        })
    }

    /// The probe at `ik` entry `i`'s target: `<lower>-target`, or
    /// `<name>-target` for a named entry.
    pub fn target_probe(&self, i: usize) -> String {
        format!("{}-target", self.ik_stem(i))
    }

    /// The report's name of `ik` entry `i`: its `name`, else
    /// `<upper>-<lower>`.
    pub fn ik_label(&self, i: usize) -> String {
        let k = &self.ik[i];
        k.name
            .clone()
            .unwrap_or_else(|| format!("{}-{}", self.bones[k.upper].name, self.bones[k.lower].name))
    }

    /// What names `ik` entry `i`'s target probe and groups: its `name`, else
    /// its lower bone's.
    pub fn ik_stem(&self, i: usize) -> &str {
        let k = &self.ik[i];
        k.name.as_deref().unwrap_or(&self.bones[k.lower].name)
    }

    /// The Verlet chains as simulated in clip `c` (what [`Figure::for_clip`]
    /// keeps).
    pub fn clip_chains(&self, c: usize) -> &[super::chain::Chain] {
        self.physics.get(c).map_or(&self.chains, |p| &p.chains)
    }

    /// The figure with its moving coordinates rounded to `decimals` places
    /// in a bake ([`Figure::len_decimals`]), its Verlet chains' too.
    pub fn written_to(&self, decimals: u32) -> Figure {
        let mut fig = self.clone();
        fig.len_decimals = decimals;
        let physics = fig.physics.iter_mut().flat_map(|p| p.chains.iter_mut());
        for ch in fig.chains.iter_mut().chain(physics) {
            ch.len_decimals = decimals;
        }
        fig
    }

    /// The figure as its clip `c` alone: that clip, with the springs and
    /// chains simulated for it.
    pub fn for_clip(&self, c: usize) -> Figure {
        let (springs, chains) = match self.physics.get(c) {
            Some(p) => (p.springs.clone(), p.chains.clone()),
            None => (self.springs.clone(), self.chains.clone()),
        };
        Figure {
            clips: vec![self.clips[c].clone()],
            springs,
            chains,
            physics: Vec::new(),
            ..self.clone()
        }
    }
}

/// Validate a track; `unit` scales values (degrees → radians for angles);
/// `check` vets each value (already scaled).
fn track(
    path: &str,
    tf: &TrackFile,
    unit: f64,
    check: &dyn Fn(&str, f64) -> Result<(), RigError>,
) -> Result<EasedTrack, RigError> {
    let n = tf.keys.len();
    if !(1..=MAX_TRACK_KEYS).contains(&n) {
        return Err(invalid(
            format!("{path}.keys"),
            format!("must hold between 1 and {MAX_TRACK_KEYS} keys, got {n}"),
        ));
    }
    let mut keys = Vec::with_capacity(n);
    for (i, &[t, v]) in tf.keys.iter().enumerate() {
        let p = format!("{path}.keys[{i}]");
        if !t.is_finite() || !(0.0..=1.0).contains(&t) {
            return Err(invalid(
                format!("{p}[0]"),
                format!(
                    "key time must be within [0, 1], got {}",
                    crate::valid::shown(t)
                ),
            ));
        }
        crate::valid::key_time(&format!("{p}[0]"), t, keys.last().map(|k: &(f64, f64)| k.0))?;
        let v = num(&format!("{p}[1]"), v)? * unit;
        check(&format!("{p}[1]"), v)?;
        keys.push((t, v));
    }
    let eases = match &tf.ease {
        EaseFile::All(e) => vec![*e; n - 1],
        EaseFile::Each(v) => {
            if v.len() != n - 1 {
                return Err(invalid(
                    format!("{path}.ease"),
                    format!(
                        "needs one easing per segment: {} for {n} keys, got {}",
                        n - 1,
                        v.len()
                    ),
                ));
            }
            v.clone()
        }
    };
    Ok(EasedTrack { keys, eases })
}

fn any(_: &str, _: f64) -> Result<(), RigError> {
    Ok(())
}

fn driver(path: &str, d: &DriverFile) -> Result<Driver, RigError> {
    Ok(match d {
        DriverFile::ConstDeg(a) => {
            Driver::Const(num(&format!("{path}.const_deg"), *a)?.to_radians())
        }
        DriverFile::Sine(s) => {
            let p = format!("{path}.sine");
            if s.harmonic > MAX_HARMONIC {
                return Err(invalid(
                    format!("{p}.harmonic"),
                    format!("must be at most {MAX_HARMONIC}, got {}", s.harmonic),
                ));
            }
            let amp_rad = num(&format!("{p}.amp_deg"), s.amp_deg)?.to_radians();
            let phase_rad = num(&format!("{p}.phase_deg"), s.phase_deg)?.to_radians();
            let offset_rad = num(&format!("{p}.offset_deg"), s.offset_deg)?.to_radians();
            if s.harmonic == 0 || amp_rad == 0.0 {
                // a sine that never moves is the constant it holds (a
                // `follow` is still checked, by [`follow_gaits`])
                Driver::Const(offset_rad + amp_rad * phase_rad.sin())
            } else {
                // a `follow` gets its clock once the IK targets are known
                // ([`follow_gaits`])
                Driver::Sine {
                    amp_rad,
                    harmonic: s.harmonic,
                    phase_rad,
                    offset_rad,
                    clock: None,
                }
            }
        }
        DriverFile::Track(tf) => Driver::Track(track(
            &format!("{path}.track"),
            tf,
            1f64.to_radians(),
            &any,
        )?),
    })
}

fn root_motion(path: &str, r: &RootFile) -> Result<RootMotion, RigError> {
    // a squash's scales stay where its matrix can be undone (the IK solve
    // and the springs take the figure's frame through its inverse)
    let (lo, hi) = crate::valid::SCALE_RANGE;
    let scale = |p: &str, v: f64| {
        if (lo..=hi).contains(&v) {
            Ok(())
        } else {
            Err(invalid(
                p,
                format!(
                    "scale must be from {lo} to {hi}, got {}",
                    crate::valid::shown(v)
                ),
            ))
        }
    };
    let squash = match &r.squash {
        None => None,
        Some(s) => {
            let p = format!("{path}.squash");
            let k = num(&format!("{p}.k"), s.k.unwrap_or(0.7))?;
            let sy = track(&format!("{p}.sy"), &s.sy, 1.0, &scale)?;
            for (i, &(_, v)) in sy.keys.iter().enumerate() {
                let sx = 1.0 + (1.0 - v) * k;
                if !(lo..=hi).contains(&sx) {
                    return Err(invalid(
                        format!("{p}.sy.keys[{i}][1]"),
                        format!(
                            "gives sx = 1 + (1 - sy)·k = {}, which must be from {lo} to {hi}",
                            crate::valid::shown(sx)
                        ),
                    ));
                }
            }
            Some(super::model::Squash {
                sy,
                pivot: Vec2::new(
                    num(&format!("{p}.pivot[0]"), s.pivot[0])?,
                    num(&format!("{p}.pivot[1]"), s.pivot[1])?,
                ),
                k,
            })
        }
    };
    Ok(RootMotion {
        x: match &r.x {
            Some(t) => Some(track(&format!("{path}.x"), t, 1.0, &any)?),
            None => None,
        },
        y: match &r.y {
            Some(t) => Some(track(&format!("{path}.y"), t, 1.0, &any)?),
            None => None,
        },
        squash,
        mv: match &r.mv {
            Some(t) => Some(t.validate(&format!("{path}.move"))?),
            None => None,
        },
    })
}

use crate::valid::period;

/// Validate the bone-tree sections of a rig file. `period_s` and `play` are
/// the rig's (already checked) defaults for the implicit clip.
pub fn validate(
    bones: &[BoneFile],
    root: Option<&RootFile>,
    play: Play,
    clips: &[ClipFile],
    ik: &[IkFile],
    period_s: f64,
) -> Result<Figure, RigError> {
    if bones.len() > MAX_BONES {
        return Err(invalid(
            "bones",
            format!("at most {MAX_BONES} bones, got {}", bones.len()),
        ));
    }
    let mut out: Vec<Bone> = Vec::with_capacity(bones.len());
    let mut defaults = Vec::with_capacity(bones.len());
    for (i, bf) in bones.iter().enumerate() {
        let p = format!("bones[{i}]");
        ident(&format!("{p}.name"), &bf.name)?;
        if let Some(j) = out.iter().position(|b| b.name == bf.name) {
            return Err(invalid(
                format!("{p}.name"),
                format!("{:?} is already the name of bones[{j}]", bf.name),
            ));
        }
        let parent = match &bf.parent {
            None => None,
            Some(name) => match out.iter().position(|b| &b.name == name) {
                Some(j) => Some(j),
                None => {
                    let why = if bones.iter().any(|b| &b.name == name) {
                        "must name an earlier bone (list parents before their children)"
                    } else {
                        "names no bone"
                    };
                    return Err(invalid(format!("{p}.parent"), format!("{name:?} {why}")));
                }
            },
        };
        let at = match (parent, bf.at) {
            (_, Some(AtFile::Offset([x, y]))) => Vec2::new(
                num(&format!("{p}.at[0]"), x)?,
                num(&format!("{p}.at[1]"), y)?,
            ),
            (None, _) => {
                return Err(invalid(
                    format!("{p}.at"),
                    "a root bone (no parent) needs its joint as [x, y]",
                ));
            }
            (Some(j), None | Some(AtFile::Named(AtName::Tip))) => Vec2::new(out[j].length, 0.0),
            (Some(_), Some(AtFile::Named(AtName::Origin))) => Vec2::ZERO,
        };
        let length = crate::valid::check_len_or_zero(&format!("{p}.length"), bf.length)?;
        let style = bf.style.clone().unwrap_or(super::file::StyleFile {
            width: None,
            stroke: None,
        });
        let width = crate::valid::check_len(
            &format!("{p}.style.width"),
            style.width.unwrap_or(DEFAULT_WIDTH),
        )?;
        let stroke = colour(
            &format!("{p}.style.stroke"),
            style.stroke.as_deref().unwrap_or(DEFAULT_STROKE),
        )?;
        let head_radius = match bf.head_radius {
            Some(r) => Some(crate::valid::check_len(&format!("{p}.head_radius"), r)?),
            None => None,
        };
        let mv = match (&bf.mv, parent) {
            (None, _) => None,
            (Some(m), None) => Some(m.validate(&format!("{p}.move"))?),
            (Some(_), Some(_)) => {
                return Err(invalid(
                    format!("{p}.move"),
                    "only a root bone (no parent) moves along a trajectory; a child follows its parent",
                ));
            }
        };
        let depth_offset = match (bf.depth_offset, parent) {
            (None, _) => Vec2::ZERO,
            (Some([x, y]), None) => Vec2::new(
                num(&format!("{p}.depth_offset[0]"), x)?,
                num(&format!("{p}.depth_offset[1]"), y)?,
            ),
            (Some(_), Some(_)) => {
                return Err(invalid(
                    format!("{p}.depth_offset"),
                    "only a root bone (no parent) takes a depth offset; a child moves with its root's",
                ));
            }
        };
        if bf.parts.len() > MAX_BONE_PARTS {
            return Err(invalid(
                format!("{p}.parts"),
                format!("at most {MAX_BONE_PARTS} names, got {}", bf.parts.len()),
            ));
        }
        for (k, part) in bf.parts.iter().enumerate() {
            check_part(
                &format!("{p}.parts[{k}]"),
                part,
                bones,
                &out,
                &bf.parts[..k],
            )?;
        }
        defaults.push(driver(&format!("{p}.angle"), &bf.angle)?);
        out.push(Bone {
            name: bf.name.clone(),
            parent,
            at: at + depth_offset,
            length,
            width,
            stroke,
            head_radius,
            mv,
            depth_offset,
            parts: bf.parts.clone(),
        });
    }
    let mut rest_rad: Vec<f64> = defaults.iter().map(|d| d.eval(0.0)).collect();
    let top_root = match root {
        Some(r) => root_motion("root", r)?,
        None => RootMotion::default(),
    };
    let mut figs = Vec::new();
    if clips.is_empty() {
        figs.push(FigClip {
            name: DEFAULT_CLIP.into(),
            period_s,
            play,
            drivers: defaults.clone(),
            root: top_root,
            targets: Vec::new(),
            ground_speed_px_s: 0.0,
            ground_keys: Vec::new(),
        });
    } else {
        if clips.len() > MAX_CLIPS {
            return Err(invalid(
                "clips",
                format!("at most {MAX_CLIPS} clips, got {}", clips.len()),
            ));
        }
        if root.is_some() {
            return Err(invalid(
                "root",
                "with `clips`, give each clip its own `root` instead",
            ));
        }
        for (i, cf) in clips.iter().enumerate() {
            let p = format!("clips[{i}]");
            ident(&format!("{p}.name"), &cf.name)?;
            if let Some(j) = figs.iter().position(|c: &FigClip| c.name == cf.name) {
                return Err(invalid(
                    format!("{p}.name"),
                    format!("{:?} is already the name of clips[{j}]", cf.name),
                ));
            }
            let mut drivers = defaults.clone();
            for (bone, d) in &cf.angles {
                let path = format!("{p}.angles.{bone}");
                let Some(b) = out.iter().position(|x| &x.name == bone) else {
                    return Err(invalid(path, format!("{bone:?} names no bone")));
                };
                drivers[b] = driver(&path, d)?;
            }
            figs.push(FigClip {
                name: cf.name.clone(),
                period_s: match cf.period_s {
                    Some(s) => period(&format!("{p}.period_s"), s)?,
                    None => period_s,
                },
                play: cf.play,
                drivers,
                root: match &cf.root {
                    Some(r) => root_motion(&format!("{p}.root"), r)?,
                    None => RootMotion::default(),
                },
                targets: Vec::new(),
                ground_speed_px_s: 0.0,
                ground_keys: Vec::new(),
            });
        }
    }
    let ik = ik_entries(ik, bones, &out, clips)?;
    clip_targets(&mut figs, &ik, &out, clips)?;
    follow_gaits(bones, clips, &ik, &out, &mut figs, &mut rest_rad)?;
    let mut fig = Figure {
        bones: out,
        rest_rad,
        clips: figs,
        switched: !clips.is_empty(),
        chains: Vec::new(),
        ik,
        ground: None,
        ground_spacing_px: 0.0,
        springs: Vec::new(),
        style: Default::default(),
        physics: Vec::new(),
        scene: Vec::new(),
        len_decimals: crate::geom::LEN_DECIMALS,
    };
    if !fig.ik.is_empty() {
        // the drawn pose of IK bones: solved at t = 0 of the first clip
        let pose = super::fk::local_angles(&fig, &fig.clips[0], 0.0);
        for k in &fig.ik {
            fig.rest_rad[k.upper] = pose[k.upper];
            fig.rest_rad[k.lower] = pose[k.lower];
        }
    }
    Ok(fig)
}

/// Times per clip at which `"reach": "error"` IK entries are checked.
pub const IK_REACH_SAMPLES: usize = 1024;

fn ik_entries(
    files: &[IkFile],
    bone_files: &[BoneFile],
    bones: &[Bone],
    clips: &[ClipFile],
) -> Result<Vec<IkBone>, RigError> {
    let mut out: Vec<IkBone> = Vec::new();
    let find = |path: String, name: &str| {
        bones
            .iter()
            .position(|b| b.name == name)
            .ok_or_else(|| invalid(path, format!("{name:?} names no bone")))
    };
    for (i, f) in files.iter().enumerate() {
        let p = format!("ik[{i}]");
        let upper = find(format!("{p}.upper"), &f.upper)?;
        let lower = find(format!("{p}.lower"), &f.lower)?;
        if bones[lower].parent != Some(upper) {
            return Err(invalid(
                format!("{p}.lower"),
                format!(
                    "{:?} must be a child of {:?} (its `parent`)",
                    f.lower, f.upper
                ),
            ));
        }
        if bones[lower].at != Vec2::new(bones[upper].length, 0.0) {
            return Err(invalid(
                format!("{p}.lower"),
                format!(
                    "{:?} must be attached at the tip of {:?} (`at`: \"tip\")",
                    f.lower, f.upper
                ),
            ));
        }
        for b in [upper, lower] {
            let which = if b == upper { "upper" } else { "lower" };
            if bones[b].length <= 0.0 {
                return Err(invalid(
                    format!("{p}.{which}"),
                    format!("bone {:?} needs a length > 0 for IK", bones[b].name),
                ));
            }
            if let Some(j) = out.iter().position(|k| k.upper == b || k.lower == b) {
                return Err(invalid(
                    format!("{p}.{which}"),
                    format!("bone {:?} is already solved by ik[{j}]", bones[b].name),
                ));
            }
            if bone_files[b].angle != DriverFile::default() {
                return Err(invalid(
                    format!("bones[{b}].angle"),
                    format!(
                        "bone {:?} is solved by ik[{i}]; remove its `angle`",
                        bones[b].name
                    ),
                ));
            }
            for (c, cf) in clips.iter().enumerate() {
                if cf.angles.contains_key(&bones[b].name) {
                    return Err(invalid(
                        format!("clips[{c}].angles.{}", bones[b].name),
                        format!(
                            "bone {:?} is solved by ik[{i}]; remove it from `angles`",
                            bones[b].name
                        ),
                    ));
                }
            }
        }
        if let Some(name) = &f.name {
            crate::valid::check_name(&format!("{p}.name"), name)?;
            let taken = bones.iter().any(|b| &b.name == name)
                || files[..i].iter().any(|o| o.name.as_ref() == Some(name));
            if taken {
                return Err(invalid(
                    format!("{p}.name"),
                    format!("{name:?} is already the name of a bone or an `ik` entry"),
                ));
            }
        }
        out.push(IkBone {
            name: f.name.clone(),
            upper,
            lower,
            target: f.target.validate(&format!("{p}.target"))?,
            knee: f.knee,
            reach: f.reach,
            smil: f.smil.unwrap_or_default(),
            keying: f.keying.unwrap_or_default(),
        });
    }
    Ok(out)
}

/// Most names in one bone's `parts`.
pub const MAX_BONE_PARTS: usize = 8;

/// How the ids `rigbake template` writes besides parts begin (layers,
/// guides, joint and tip markers): no part name may, so every template's
/// ids are distinct and bake back.
pub const RESERVED_ID_STEMS: [&str; 4] = ["layer-", "guide-", "joint-", "tip-"];

/// One of a bone's `parts`: a drawing's name (see [`BoneFile::parts`])
/// that names no bone, no earlier bone's part, none of `before` (the
/// bone's own earlier parts) and does not begin as the template's own ids
/// do ([`RESERVED_ID_STEMS`]).
fn check_part(
    path: &str,
    part: &str,
    bones: &[BoneFile],
    earlier: &[Bone],
    before: &[String],
) -> Result<(), RigError> {
    if part.len() > 64 || !crate::valid::is_ident(part, &['.']) {
        return Err(invalid(
            path,
            format!(
                "must start with a letter and hold only letters, digits, '-', '_', '.' (at most 64), got {part:?}"
            ),
        ));
    }
    if let Some(stem) = RESERVED_ID_STEMS.iter().find(|s| part.starts_with(*s)) {
        return Err(invalid(
            path,
            format!(
                "{part:?} starts with {stem:?}, as the ids `rigbake template` gives its layers, guides and joint markers do (layer-…, guide-…, joint-…, tip-…); pick another"
            ),
        ));
    }
    if let Some(j) = bones.iter().position(|b| b.name == part) {
        return Err(invalid(
            path,
            format!("{part:?} is already the name of bones[{j}]"),
        ));
    }
    let j = earlier.len();
    if let Some(j) = earlier
        .iter()
        .position(|b| b.parts.iter().any(|x| x == part))
        .or_else(|| before.iter().any(|x| x == part).then_some(j))
    {
        return Err(invalid(
            path,
            format!("{part:?} is already a part of bones[{j}]"),
        ));
    }
    Ok(())
}

/// Dot spacing of a ground that no clip scrolls, px.
pub const STILL_GROUND_SPACING_PX: f64 = 24.0;

/// Validate a bone tree's `ground` and give every clip its speed. With
/// `follow` (an `ik` entry named by its upper bone), a clip whose target
/// for that entry is a gait scrolls the ground at the gait's speed
/// (`stride ÷ (duty · period)`, so the planted foot keeps pace with it);
/// a clip with another target (a planted jump) leaves it still. With
/// `speed_px_s`, every clip scrolls at that speed. One row of dots is
/// drawn for all clips: the first scrolling clip sets the spacing
/// (`travel per period ÷ dots_per_period`), and every other scrolling clip
/// must travel a whole number of spacings per period (within 0.005 px),
/// or its loop would jump at the seam.
pub fn validate_ground(fig: &mut Figure, g: &crate::chain::GroundFile) -> Result<(), RigError> {
    let speed_of = |fc: &FigClip| -> Result<f64, RigError> {
        match (&g.follow, g.speed_px_s) {
            (Some(name), None) => {
                let Some(i) = followed_entry(&fig.ik, &fig.bones, name) else {
                    return Err(invalid(
                        "ground.follow",
                        format!(
                            "{name:?} is not the name or upper bone of an `ik` entry (they are: {})",
                            followable(&fig.ik, &fig.bones)
                        ),
                    ));
                };
                Ok(match &fc.targets[i] {
                    Trajectory::Gait { stride, duty, .. } => stride / (duty * fc.period_s),
                    Trajectory::TimedGait(g) => g.travel_per_loop() / fc.period_s,
                    _ => 0.0,
                })
            }
            _ => Ok(0.0),
        }
    };
    let mut speeds = Vec::with_capacity(fig.clips.len());
    for fc in &fig.clips {
        let v = speed_of(fc)?;
        // a speed taken from a gait is the gait's to answer for
        if let (Some(name), true) = (&g.follow, v.abs() > crate::valid::MAX_COORD) {
            return Err(invalid(
                "ground.follow",
                format!(
                    "the gait of {name:?} moves the ground {} px/s in clip {:?} (stride ÷ (duty × period_s)), more than {}: raise its duty or period_s, or shorten its stride",
                    crate::valid::shown(v),
                    fc.name,
                    crate::valid::shown(crate::valid::MAX_COORD)
                ),
            ));
        }
        speeds.push(v);
    }
    // the first scrolling clip validates the row and sets the spacing
    let first = speeds.iter().position(|&v| v > 0.0);
    let (file, period) = match (first, g.speed_px_s) {
        (_, Some(_)) => (g.clone(), fig.clips[0].period_s),
        (Some(c), None) => (
            crate::chain::GroundFile {
                follow: None,
                speed_px_s: Some(speeds[c]),
                ..g.clone()
            },
            fig.clips[c].period_s,
        ),
        (None, None) => {
            if g.follow.is_none() {
                // neither: the message of the shared ground check
                crate::chain::validate_ground(g, &[], fig.clips[0].period_s)?;
            }
            let period = fig.clips[0].period_s;
            (
                crate::chain::GroundFile {
                    follow: None,
                    speed_px_s: Some(STILL_GROUND_SPACING_PX * g.dots_per_period as f64 / period),
                    ..g.clone()
                },
                period,
            )
        }
    };
    let ground = crate::chain::validate_ground(&file, &[], period)?;
    let spacing = ground.speed_px_s * period / ground.dots_per_period as f64;
    for (c, fc) in fig.clips.iter_mut().enumerate() {
        let v = match g.speed_px_s {
            Some(_) => ground.speed_px_s,
            None => speeds[c],
        };
        let travel = v * fc.period_s;
        let n = (travel / spacing).round();
        if (travel - n * spacing).abs() > 0.005 {
            return Err(invalid(
                format!("clips[{c}]"),
                format!(
                    "the ground travels {} px per period in clip {:?}, not a whole number of dot spacings ({} px, set by the first scrolling clip): its loop would jump; change the clip's gait (stride, duty) or period_s",
                    crate::valid::shown_to(travel, 3),
                    fc.name,
                    crate::valid::shown_to(spacing, 3)
                ),
            ));
        }
        fc.ground_speed_px_s = v;
        // a timed gait's ground changes speed over the loop: keyed travel
        if let (Some(name), None) = (&g.follow, g.speed_px_s)
            && let Some(i) = followed_entry(&fig.ik, &fig.bones, name)
            && let Trajectory::TimedGait(tg) = &fc.targets[i]
        {
            fc.ground_keys = crate::chain::ground_keys(&|t| tg.travel_at(t));
        }
    }
    fig.ground = Some(ground);
    fig.ground_spacing_px = spacing;
    Ok(())
}

/// Give every `sine` with `follow` its gait's clock: in each clip from the
/// clip's IK targets, and for the drawn pose (`rest_rad`, t = 0 of the
/// bone's own `angle`) from the rig's `ik[].target`. The followed entry
/// must exist and aim at a gait with a `blend` timeline.
fn follow_gaits(
    bones: &[BoneFile],
    clips: &[ClipFile],
    ik: &[IkBone],
    out: &[Bone],
    figs: &mut [FigClip],
    rest_rad: &mut [f64],
) -> Result<(), RigError> {
    let clock = |path: &str, name: &str, targets: &[Trajectory]| -> Result<GaitClock, RigError> {
        let Some(i) = followed_entry(ik, out, name) else {
            return Err(invalid(
                path,
                format!(
                    "{name:?} is not the name or upper bone of an `ik` entry (they are: {})",
                    followable(ik, out)
                ),
            ));
        };
        match &targets[i] {
            Trajectory::TimedGait(g) => Ok(GaitClock {
                cadence: g.cadence.clone(),
                phase: g.phase,
            }),
            _ => Err(invalid(
                path,
                format!(
                    "the `ik` entry of {name:?} does not aim at a gait with a `blend` timeline; without `follow`, a sine with `harmonic` = the gait's cycles keeps step with a constant gait"
                ),
            )),
        }
    };
    let set = |d: &mut Driver, c: GaitClock| {
        if let Driver::Sine { clock, .. } = d {
            *clock = Some(c);
        }
    };
    let rig_targets: Vec<Trajectory> = ik.iter().map(|k| k.target.clone()).collect();
    for (b, bf) in bones.iter().enumerate() {
        if let DriverFile::Sine(SineFile {
            follow: Some(name), ..
        }) = &bf.angle
        {
            let path = format!("bones[{b}].angle.sine.follow");
            let c = clock(&path, name, &rig_targets)?;
            let mut d = figs[0].drivers[b].clone();
            if clips.is_empty() {
                set(&mut figs[0].drivers[b], c.clone());
            }
            set(&mut d, c);
            rest_rad[b] = d.eval(0.0);
        }
    }
    for (ci, cf) in clips.iter().enumerate() {
        for (b, bf) in bones.iter().enumerate() {
            let (path, file) = match cf.angles.get(&bf.name) {
                Some(d) => (format!("clips[{ci}].angles.{}.sine.follow", bf.name), d),
                None => (format!("bones[{b}].angle.sine.follow"), &bf.angle),
            };
            if let DriverFile::Sine(SineFile {
                follow: Some(name), ..
            }) = file
            {
                let c = clock(&path, name, &figs[ci].targets)?;
                set(&mut figs[ci].drivers[b], c);
            }
        }
    }
    Ok(())
}

/// Fill every clip's [`FigClip::targets`]: the rig's `ik[].target`, or
/// the clip's own `ik` entry for the same chain (named by its upper bone).
fn clip_targets(
    figs: &mut [FigClip],
    ik: &[IkBone],
    bones: &[Bone],
    clips: &[ClipFile],
) -> Result<(), RigError> {
    for fc in figs.iter_mut() {
        fc.targets = ik.iter().map(|k| k.target.clone()).collect();
    }
    for (c, cf) in clips.iter().enumerate() {
        let mut seen: Vec<usize> = Vec::new();
        for (j, e) in cf.ik.iter().enumerate() {
            let p = format!("clips[{c}].ik[{j}]");
            let Some(i) = ik.iter().position(|k| bones[k.upper].name == e.upper) else {
                let solved: Vec<&str> = ik.iter().map(|k| bones[k.upper].name.as_str()).collect();
                let what = if bones.iter().any(|b| b.name == e.upper) {
                    "is not the upper bone of an `ik` entry"
                } else {
                    "names no bone"
                };
                return Err(invalid(
                    format!("{p}.upper"),
                    format!(
                        "{:?} {what} (the rig's IK chains start at: {})",
                        e.upper,
                        if solved.is_empty() {
                            "none; add `ik` to the rig".to_string()
                        } else {
                            crate::input::escaped(&solved.join(", ")).into_owned()
                        }
                    ),
                ));
            };
            if seen.contains(&i) {
                return Err(invalid(
                    format!("{p}.upper"),
                    format!("{:?} already has a target in this clip", e.upper),
                ));
            }
            seen.push(i);
            figs[c].targets[i] = e.target.validate(&format!("{p}.target"))?;
        }
    }
    Ok(())
}

/// `"reach": "error"`: the target must stay within `[|upper − lower|,
/// upper + lower]` of the upper joint (figure frame) at every sampled time.
/// Not part of [`validate`]: the rig's validation runs it beside the
/// physics simulations, before reporting theirs.
///
/// A time whose answer is settled without its exact sample is not sampled
/// (`ReachPlan`): for an entry with a still frame and a target of a fixed
/// point or an ellipse, the whole target path may lie well inside the
/// range (its disk), or each time's position found cheaply
/// ([`Trajectory::near_grid`]) may, widened by far more than rounding. The
/// other times are sampled as before, so a refused rig is refused at the
/// same entry, clip and time, with the same distance.
pub fn check_ik_reach(fig: &Figure) -> Result<(), RigError> {
    if fig.ik.iter().all(|ik| ik.reach != ChainReach::Error) {
        return Ok(());
    }
    // an entry solvable on its own reads its ends from its ancestors alone
    // (the same bits), the others from one solve of the figure per time
    for clip in &fig.clips {
        let solvers = super::fk::entry_solvers(fig, clip);
        let plans: Vec<ReachPlan> = fig
            .ik
            .iter()
            .enumerate()
            .map(|(i, ik)| reach_plan(fig, ik, clip, i, solvers[i].as_ref()))
            .collect();
        if plans.iter().all(|p| matches!(p, ReachPlan::Settled)) {
            continue;
        }
        for k in 0..IK_REACH_SAMPLES {
            let t = k as f64 / IK_REACH_SAMPLES as f64;
            let mut whole = None;
            for (i, ik) in fig.ik.iter().enumerate() {
                match &plans[i] {
                    ReachPlan::Settled => continue,
                    ReachPlan::Near(near) if !near[k] => continue,
                    _ => {}
                }
                let (joint, target) = if let Some(solver) = &solvers[i] {
                    solver.ends(t)
                } else {
                    whole.get_or_insert_with(|| super::fk::ik_joints_and_targets(fig, clip, t))[i]
                };
                let (l1, l2) = (fig.bones[ik.upper].length, fig.bones[ik.lower].length);
                let d = joint.dist(target);
                if d > l1 + l2 + 1e-9 || d < (l1 - l2).abs() - 1e-9 || d < 1e-9 {
                    return Err(invalid(
                        format!("ik[{i}]"),
                        format!(
                            "clip {:?} cannot reach the target at t = {t:.4}: joint-to-target distance {d:.2} is outside [{:.2}, {:.2}] (change the target or bone lengths, or set \"reach\": \"clamp\" or \"pull\")",
                            clip.name,
                            (l1 - l2).abs(),
                            l1 + l2
                        ),
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Which of an `ik` entry's [`IK_REACH_SAMPLES`] times in one clip
/// [`check_ik_reach`] samples exactly.
enum ReachPlan {
    /// None: not `"reach": "error"`, or within reach at every time.
    Settled,
    /// Those marked: the others are within reach.
    Near(Vec<bool>),
    /// Every one.
    All,
}

/// [`ReachPlan`] of `ik` entry `i` in `clip` (`solver`: its own solver,
/// where it is solvable alone). A distance is within reach where it lies
/// inside the range with a margin (without the check's 1e-9 slack): the
/// bound on the cheap positions' error ([`Trajectory::near_grid`]), mapped
/// into the figure's frame (times the map's Frobenius norm, which bounds
/// its stretch), plus 1e-9 of the size of the values summed (a million
/// times the rounding of the few operations behind a sample).
fn reach_plan(
    fig: &Figure,
    ik: &IkBone,
    clip: &FigClip,
    i: usize,
    solver: Option<&super::fk::EntrySolver>,
) -> ReachPlan {
    use crate::geom::AffineExt;
    if ik.reach != ChainReach::Error {
        return ReachPlan::Settled;
    }
    let Some((joint, to_fig)) = solver.and_then(|s| s.still_ends_frame()) else {
        return ReachPlan::All;
    };
    let target = &clip.targets[i];
    let (l1, l2) = (fig.bones[ik.upper].length, fig.bones[ik.lower].length);
    let [a, b, c, d, e, f] = to_fig.as_coeffs();
    let stretch = (a * a + b * b + c * c + d * d).sqrt();
    let size = |p: Vec2, r: f64| {
        joint.x.abs() + joint.y.abs() + stretch * (p.x.abs() + p.y.abs() + r) + e.abs() + f.abs()
    };
    // (NaN anywhere compares false: not within reach)
    let (lo, hi) = ((l1 - l2).abs().max(1e-9), l1 + l2);
    let within = |d: f64, slack: f64| d - slack > lo && d + slack < hi;
    if let Some((center, radius)) = target.disk() {
        let slack = stretch * radius + 1e-9 * (1.0 + size(center, radius) + l1 + l2);
        if within(joint.dist(to_fig.apply(center)), slack) {
            return ReachPlan::Settled;
        }
    }
    let Some((points, err)) = target.near_grid(IK_REACH_SAMPLES) else {
        return ReachPlan::All;
    };
    let near = points
        .iter()
        .map(|&p| {
            let slack = stretch * err + 1e-9 * (1.0 + size(p, err) + l1 + l2);
            !within(to_fig.apply(p).dist(joint), slack)
        })
        .collect();
    ReachPlan::Near(near)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::{T_DECIMALS, quantize};
    use crate::measure::cubic_bezier;

    /// Each easing's bezier, also rounded to the 6 decimals written, follows
    /// its polynomial (the browser-side evaluator against the formula).
    #[test]
    fn easing_beziers_equal_their_polynomials_as_written() {
        for e in [
            EaseName::Smoothstep,
            EaseName::EaseInCubic,
            EaseName::EaseOutCubic,
        ] {
            let b = e.bezier().unwrap();
            let written = b.map(|x| quantize(x, T_DECIMALS));
            for k in 0..=2000 {
                let u = k as f64 / 2000.0;
                assert!((cubic_bezier(b, u) - e.apply(u)).abs() < 1e-9, "{e:?} {u}");
                assert!(
                    (cubic_bezier(written, u) - e.apply(u)).abs() < 2e-6,
                    "{e:?} {u}"
                );
            }
        }
        assert_eq!(EaseName::Linear.bezier(), None);
    }

    #[test]
    fn track_holds_outside_its_keys_and_eases_per_segment() {
        let tr = EasedTrack {
            keys: vec![(0.2, 1.0), (0.4, 1.0), (0.6, 3.0)],
            eases: vec![EaseName::Linear, EaseName::EaseOutCubic],
        };
        assert_eq!(tr.eval(0.0), 1.0);
        assert_eq!(tr.eval(0.3), 1.0); // a hold: the same value twice
        assert!((tr.eval(0.5) - (1.0 + 2.0 * 0.875)).abs() < 1e-12);
        assert_eq!(tr.eval(0.9), 3.0);
    }
}
