//! The bone-tree sections of a rig file, exactly as written (serde mirror).
//! [`super::model::validate`] turns them into the checked [`super::Figure`].
//!
//! Angles in the file are degrees (`_deg`); everything after validation is
//! radians. Positive angles turn clockwise on screen (y down).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use crate::clip::Play;
pub use crate::trajectory::EaseName;

/// One easing for every segment, or one per segment (n − 1 for n keys).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum EaseFile {
    All(EaseName),
    Each(Vec<EaseName>),
}

impl Default for EaseFile {
    fn default() -> Self {
        EaseFile::All(EaseName::Smoothstep)
    }
}

/// An eased keyframe track: `keys` are `[t, value]` with t ∈ [0, 1] strictly
/// increasing and distinct as written (key times are written to 10⁻⁶ of
/// the period: two that round to one are refused, and so is a key that
/// rounds to 0 or 1 past the first or before the last); before the first key and after the last the value holds.
/// Repeat a value at two times for a hold. Default easing: smoothstep. In
/// a looping clip a bone's track should end on its first angle (or a whole
/// turn from it), or the bone jumps back every loop (the report notes it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TrackFile {
    pub keys: Vec<[f64; 2]>,
    #[serde(default)]
    pub ease: EaseFile,
}

/// `sine` driver: `offset_deg + amp_deg · sin(2π · harmonic · t + phase_deg)`,
/// t the clip's normalised time, so the bone repeats `harmonic` times per loop.
/// With `follow`, t is a gait's cycle count instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SineFile {
    /// Amplitude, degrees (0 gives the constant `offset_deg`, written with
    /// no keys, as `const_deg` is).
    pub amp_deg: f64,
    /// Whole number of cycles per loop, 0 to 64 (0 gives a constant); with
    /// `follow`, per cycle of the followed gait.
    #[schemars(range(max = 64))]
    pub harmonic: u32,
    #[serde(default)]
    pub phase_deg: f64,
    #[serde(default)]
    pub offset_deg: f64,
    /// An `ik` entry (by its `name` or its upper bone) whose target is a
    /// gait with a `blend` timeline: the sine runs on that gait's cycles (its phase
    /// included) instead of the loop's time, so an arm keeps step with the
    /// legs while the cadence changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub follow: Option<String>,
}

/// What drives a bone's local angle (degrees, relative to its parent's
/// direction; a root bone's angle is its world angle).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum DriverFile {
    /// A constant angle: `{"const_deg": 30}`.
    ConstDeg(f64),
    /// `{"sine": {"amp_deg": 20, "harmonic": 2, "phase_deg": 0, "offset_deg": 0}}`.
    Sine(SineFile),
    /// `{"track": {"keys": [[0, 0], [0.5, 40], [1, 0]], "ease": "smoothstep"}}`, degrees.
    Track(TrackFile),
}

impl Default for DriverFile {
    fn default() -> Self {
        DriverFile::ConstDeg(0.0)
    }
}

/// Where a bone is attached on its parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AtName {
    /// The parent's tip, `(parent.length, 0)` in the parent's frame.
    Tip,
    /// The parent's joint, `(0, 0)` in the parent's frame.
    Origin,
}

/// `"tip"`, `"origin"` or an offset `[x, y]` in the parent's frame (x along
/// the parent bone); for a root bone, `[x, y]` is its joint in user space.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AtFile {
    Named(AtName),
    Offset([f64; 2]),
}

/// How a bone is drawn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleFile {
    /// Stroke width, user units (default 6).
    #[serde(default)]
    pub width: Option<f64>,
    /// Stroke colour as `#rgb` or `#rrggbb` (default `#6366f1`).
    #[serde(default)]
    pub stroke: Option<String>,
}

/// One entry of `bones`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BoneFile {
    /// Identifier, used in class names (`<prefix>-b-<name>`) and probes (`<name>-tip`, for a
    /// bone of length > 0).
    pub name: String,
    /// An earlier bone's name; none for a root bone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Attachment (default `"tip"`); a root bone needs `[x, y]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<AtFile>,
    /// Bone length, user units: 0 (a joint without a drawn segment) or at
    /// least 0.01 (lengths are written to 0.01).
    pub length: f64,
    /// The angle driver of the default clip; its value at t = 0 is also the
    /// drawn (rest) pose. Default `{"const_deg": 0}`.
    #[serde(default)]
    pub angle: DriverFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<StyleFile>,
    /// Draws a filled head: a circle of this radius (user units, at least 0.01)
    /// centred at the bone's tip, in the bone's stroke colour. Under a root
    /// `squash` it stays round, radius `r · (sx + sy) / 2`, centred where
    /// FK and the root motion put the tip (probes `<name>-rim-x`,
    /// `<name>-rim-y` on its rim).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_radius: Option<f64>,
    /// A root bone only: carries the bone and its subtree by
    /// `traj(t) − traj(0)` in every clip, inside the figure's root motion:
    /// any trajectory of `ik_chains` (`{"bob": …}` for a hip that bobs on
    /// its own, a `track` for a sliding seat), as `root.move` does for the
    /// whole figure.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<crate::trajectory::TrajectoryFile>,
    /// A root bone only: `[dx, dy]`, user units. The bone and its subtree
    /// sit this far from where `at` puts them (a far limb set a little up
    /// and back for depth, as a cycling leg's `depth_offset`); on the css
    /// route they are written at `at` inside one `translate(dx, dy)`, so a
    /// far side given its near side's `at` shares the near side's rules.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_offset: Option<[f64; 2]>,
    /// Names a drawing (`bake --art`) may give this bone's parts besides
    /// the bone's own, as an illustrator's layers are called (`pedal-near`;
    /// a crank's `crank-near` for its arm and `crank` for the chainring it
    /// carries): each a part of its own, all moving with the bone. Each
    /// name: letters, digits, `-`, `_`, `.`, at most 64, starting with a
    /// letter; not `layer-…`, `guide-…`, `joint-…` or `tip-…` (the ids
    /// `rigbake template` gives its layers, guides and markers); no bone's
    /// name, no other part. `rigbake template` writes the first as the
    /// bone's part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<String>,
}

/// Squash and stretch of the whole figure about `pivot`:
/// `sx = 1 + (1 − sy) · k` (volume-preserving look), `sy` from the track.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SquashFile {
    /// Vertical scale track (unitless, 0.001 to 1000; so is the width
    /// `sx` it gives).
    pub sy: TrackFile,
    /// Fixed point of the scale (the ground under the feet), user units.
    pub pivot: [f64; 2],
    /// Width response, default 0.7.
    #[serde(default)]
    pub k: Option<f64>,
}

/// Whole-figure motion: `world = squash_about_pivot · translate(x, y) · FK`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RootFile {
    /// Horizontal offset track, user units.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<TrackFile>,
    /// Vertical offset track, user units (y down: negative is up).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<TrackFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub squash: Option<SquashFile>,
    /// Translates the whole figure by `traj(t) − traj(0)`: any trajectory
    /// of `ik_chains` (`{"bob": …}` for a walking hip, a `track` for a
    /// sliding seat), added to `x` and `y`. A `bob`'s `blend` may be a
    /// timeline, as a gait's.
    #[serde(rename = "move", default, skip_serializing_if = "Option::is_none")]
    pub mv: Option<crate::trajectory::TrajectoryFile>,
}

/// One entry of `ik`: a two-bone chain of the tree solved toward a target
/// each frame. `lower` must be `upper`'s child attached at its tip; the
/// effector is `lower`'s tip. Neither bone may have its own `angle` or be
/// named in a clip's `angles`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IkFile {
    /// Optional name (a letter, then letters, digits or `_`; unlike any bone's or other
    /// entry's): the effector's probe is then `<name>-ankle` instead of
    /// `<lower>-tip`, the target's `<name>-target` instead of
    /// `<lower>-target`, and the report names the entry `<name>` instead of
    /// `<upper>-<lower>`, as for an `ik_chains` chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The first bone (thigh, upper arm); its joint follows its parent.
    pub upper: String,
    /// The second bone (shin, forearm).
    pub lower: String,
    /// Where `lower`'s tip goes, in user space: any trajectory of `ik_chains`.
    /// A `gait`'s `blend` may be a timeline keyed over the loop
    /// (`{"keys": [[t, blend], …], "ease": …}`, with `cycles` and
    /// `run.cycles` its rate in cycles per loop; see docs/walker.md §7).
    pub target: crate::trajectory::TrajectoryFile,
    /// `"forward"` (default): the middle joint lies counter-clockwise on
    /// screen of the joint→target line (a knee in front for a figure facing
    /// +x); `"backward"`: the mirror solution.
    #[serde(default)]
    pub knee: crate::solve::ik::Knee,
    /// `"error"` (default), `"clamp"` or `"pull"` as for `ik_chains`.
    #[serde(default)]
    pub reach: crate::chain::ChainReach,
    /// How the smil route writes the limb: `"rotate"` (default), each
    /// bone's group turned by `<animateTransform type="rotate">`;
    /// `"morph"`, one `<path>` through the upper joint, the knee and the
    /// effector whose `d` is morphed by `<animate attributeName="d">`
    /// (linear keys, as a cycling rig's leg is written: closer to the
    /// target per key, but the bones stretch between keys, reported as
    /// `bone stretch`). Only where one path can draw the limb: look
    /// `"limbs"`, both bones in one stroke and width, neither with a
    /// child bone other than `lower`, `parts`, a `head_radius`, a `scene`
    /// part, a spring or a chain anchored on it, the upper bone without `move`.
    /// The css route ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub smil: Option<IkSmil>,
    /// How the css route keys the limb's two bones where it writes the
    /// fewest bytes (`--fit shortest`, its default): `"shortest"` (default),
    /// keyed together (judged by where the effector and the joint land) or
    /// each bone alone to its own budget, whichever writes fewer bytes;
    /// `"pair"`, always keyed together, as a cycling leg is: the bake skips
    /// fitting each bone alone, which costs about as much as the pair, for
    /// a limb where that never writes fewer bytes (a pedalling leg;
    /// `rigbake lower` sets it on every cycling leg). `--fit cubic` and
    /// `--fit linear` key every limb together, and the smil route ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keying: Option<IkKeying>,
}

/// How the smil route writes an `ik` limb (an entry's `smil`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IkSmil {
    /// Each bone's group turned about its joint.
    #[default]
    Rotate,
    /// One path whose points (upper joint, knee, effector) are morphed.
    Morph,
}

/// How the css route's shortest shape keys an `ik` limb (an entry's
/// `keying`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum IkKeying {
    /// Keyed together or each bone alone, whichever writes fewer bytes.
    #[default]
    Shortest,
    /// Always keyed together.
    Pair,
}

/// One entry of `clips`: a named animation of the same bone tree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipFile {
    /// Identifier; the page selects the clip with class `<prefix>-clip-<name>` on the root `<svg>`.
    pub name: String,
    /// Duration, seconds (default: the rig's `period_s`), snapped to whole
    /// milliseconds like it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub period_s: Option<f64>,
    #[serde(default)]
    pub play: Play,
    /// Per-bone angle drivers; bones not named keep their `angle`. A bone
    /// named twice is refused.
    #[serde(default, deserialize_with = "crate::valid::unique_keys")]
    pub angles: BTreeMap<String, DriverFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<RootFile>,
    /// This clip's IK targets: each entry names a chain of the rig's `ik`
    /// by its `upper` bone and gives the trajectory its effector follows in
    /// this clip (a gait for a walk, a planted point or track for a jump).
    /// Entries not named keep the rig's `ik[].target`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ik: Vec<ClipIkFile>,
}

/// One entry of a clip's `ik`: another target for one of the rig's IK chains.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClipIkFile {
    /// The `upper` bone of an entry of the rig's `ik`.
    pub upper: String,
    /// Where that entry's effector goes in this clip, user space: any
    /// trajectory of `ik_chains`.
    pub target: crate::trajectory::TrajectoryFile,
}

/// Where a static `scene` part is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum LayerName {
    /// Behind everything else (default).
    #[default]
    Back,
    /// Over everything else.
    Front,
}

/// How a `scene` part is painted: SVG presentation attributes.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PaintFile {
    /// Stroke colour `#rgb` / `#rrggbb`, or `"none"` (default `#334155`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stroke: Option<String>,
    /// Stroke width, user units, at least 0.01 (default 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
    /// Fill colour `#rgb` / `#rrggbb`, or `"none"` (default `"none"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill: Option<String>,
    /// Opacity of the whole part, 0 to 1 (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opacity: Option<f64>,
    /// Dash pattern of the stroke (`stroke-dasharray`): 1 to 8 lengths,
    /// user units, each 0 or at least 0.01, not all 0 (default: a solid stroke). A turning
    /// chainring drawn dashed shows that it turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dash: Option<Vec<f64>>,
}

/// One entry of `scene`: a drawn part that is not a bone (a bicycle frame,
/// a wheel's spokes, a boat). Static, or carried by a bone: then it is
/// written inside that bone's group and moves with it exactly.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScenePartFile {
    /// Identifier; the part's class is `<prefix>-p-<name>`.
    pub name: String,
    /// SVG path data in user space, drawn where the rig is at t = 0 of its
    /// first clip (the pose `rigbake template` shows), also for a part
    /// carried by a bone.
    pub d: String,
    /// The bone that carries the part; none for a static part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bone: Option<String>,
    /// Static parts only: `"back"` (default, behind the figure) or `"front"`.
    /// A carried part is drawn behind its bone's own line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<LayerName>,
    #[serde(default)]
    pub style: PaintFile,
}
