//! `Clip`: the baked, written animation as data.
//!
//! A clip is a tree of groups ([`Node`]) with static translations, animations
//! ([`Anim`]) that read keyframe [`Track`]s, drawn shapes and probes. Every
//! number in it has already been rounded to what the file will say
//! ([`crate::geom::quantize`]), so the emitters only format and the measure
//! stage evaluates exactly what was written.

use crate::geom::Vec2;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Output route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Route {
    /// Nested groups rotated by CSS `@keyframes` (world angles made parent-relative).
    Css,
    /// One `M hip L knee L ankle` path per leg morphed by SMIL `<animate attributeName="d">`.
    Smil,
}

impl Route {
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Css => "css",
            Route::Smil => "smil",
        }
    }
}

/// Timing function of the segment that starts at a key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Ease {
    /// Straight-line interpolation.
    Linear,
    /// `cubic-bezier(x1, y1, x2, y2)`, evaluated as browsers do (solve x(s) = u, then y(s)).
    CubicBezier([f64; 4]),
}

/// One key: normalised time `t ∈ [0, 1]`, value, and the easing of the segment after it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Key {
    pub t: f64,
    pub value: f64,
    pub ease: Ease,
}

/// A named scalar keyframe track (degrees for rotations). The first key is at
/// t = 0 and the last at t = 1; times strictly increase.
#[derive(Debug, Clone, PartialEq)]
pub struct Track {
    /// Used as the CSS `@keyframes` name.
    pub name: String,
    pub keys: Vec<Key>,
}

/// How a group moves. Local time is `t_s − delay_s`, wrapped into one period.
#[derive(Debug, Clone, PartialEq)]
pub enum Anim {
    /// `rotate(value deg)` about `origin` (CSS `transform-origin` with
    /// `transform-box: view-box`, or SMIL `rotate(a cx cy)`).
    Rotate {
        track: usize,
        origin: Vec2,
        delay_s: f64,
    },
    /// `translate(value px)` along one axis (CSS `translate:` property,
    /// SMIL `animateTransform type="translate"`); bone-tree root motion.
    Translate {
        track: usize,
        axis: Axis,
        delay_s: f64,
    },
    /// `scale(sx, sy)` about the group's own origin (CSS `scale:` with
    /// `transform-origin: 0 0`, SMIL `animateTransform type="scale"`); place
    /// a pivot with static translates around the group. The two tracks have
    /// the same key times and easings (one keyframe writes both).
    Scale { sx: usize, sy: usize, delay_s: f64 },
    /// Motion along written path data by arc length (CSS `offset-path:
    /// path()` with `offset-distance` keyframes and `offset-rotate: 0deg`;
    /// SMIL `<animateMotion>` with `keyPoints`): the group is translated to
    /// the point at `fraction × length` of `path`, in its parent's user
    /// space (see [`MotionPath::scale`]). `keys` are `(t, fraction)` pairs, linear in between, with
    /// `t` from 0 to 1 non-decreasing (an equal pair of times is a jump:
    /// SMIL's way of starting a closed loop part-way along).
    Motion {
        path: MotionPath,
        keys: Vec<(f64, f64)>,
        delay_s: f64,
    },
}

/// Path data as written for an [`Anim::Motion`], with its segments parsed
/// back from the text (kurbo), so the measure stage evaluates what the file
/// says, not the trajectory it was made from.
#[derive(Debug, Clone, PartialEq)]
pub struct MotionPath {
    /// The `d` text as written.
    pub d: String,
    /// Path units per user unit: the path is written `scale` times larger
    /// inside a `scale(1/scale)` group (and the moved group's content
    /// inside `scale(scale)`), so a browser that measures paths by
    /// flattening them to a fixed tolerance in path units (Chromium's Skia:
    /// 0.5 units) measures this one to `0.5 / scale` px.
    pub scale: f64,
    /// Its segments (zero-length ones included: they add no length).
    pub segs: Vec<kurbo::PathSeg>,
    /// Arc length at the end of each segment, in path units (kurbo, to
    /// `accuracy`).
    pub cum: Vec<f64>,
    /// Arc-length accuracy of `cum` and of the measure stage's point
    /// look-up, path units ([`crate::trajectory::arclen_accuracy`] at
    /// [`MotionPath::ARCLEN_RELATIVE`]).
    pub accuracy: f64,
}

impl MotionPath {
    /// Parse written path data.
    ///
    /// # Panics
    /// If `d` is not valid SVG path data: the bake writes it, so that is a bug.
    pub fn new(d: String, scale: f64) -> MotionPath {
        use kurbo::ParamCurveArclen;
        let segs: Vec<kurbo::PathSeg> = kurbo::BezPath::from_svg(&d)
            .unwrap_or_else(|e| panic!("written path data {d:?} does not parse: {e}"))
            .segments()
            .collect();
        use crate::trajectory::{arclen_accuracy, path_size};
        let accuracy = arclen_accuracy(Self::ARCLEN_RELATIVE, path_size(&segs));
        let mut total = 0.0;
        let cum = segs
            .iter()
            .map(|s| {
                total += s.arclen(accuracy);
                total
            })
            .collect();
        MotionPath {
            d,
            scale,
            segs,
            cum,
            accuracy,
        }
    }

    /// Arc-length accuracy of [`Self::cum`] and of the measure stage's
    /// point look-up as a fraction of the path's extent: 1.2·10⁻⁷ units
    /// (1.2·10⁻⁹ px) on the example rigs' path, written 12,000 units
    /// across; a thousandth of the accuracy the bake walks the path at
    /// ([`crate::trajectory::ARCLEN_RELATIVE`]), so the measure sees the
    /// bake's points, not its own rounding. Relative, so measuring a path
    /// costs the same at any scale.
    pub const ARCLEN_RELATIVE: f64 = 1e-11;
}

/// Axis of an [`Anim::Translate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Axis {
    X,
    Y,
}

/// How a clip plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(rename_all = "lowercase")]
pub enum Play {
    /// Repeats forever (CSS `infinite`, SMIL `repeatCount="indefinite"`).
    #[default]
    Loop,
    /// Plays once and holds its last frame (CSS `1 forwards`, SMIL `fill="freeze"`).
    Once,
}

/// The probe that follows the ground's translation.
pub const GROUND_PROBE: &str = "ground";

/// What a bone-tree clip adds to a [`Clip`].
#[derive(Debug, Clone, PartialEq)]
pub struct FigureInfo {
    /// The clip's name (`<prefix>-clip-<name>` selects it on a class-switched SVG).
    pub clip: String,
    pub play: Play,
    /// Bones in rig order: their names and tip probes (`<bone>-tip`).
    pub bones: Vec<BoneInfo>,
}

/// A bone's probe in a figure clip.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneInfo {
    pub name: String,
    /// The probe at the bone's tip: `<bone>-tip` (`<name>-ankle` for an IK
    /// effector), or the target probe drawn at the tip in the bone's own
    /// group (a crank's pedal); `None` for a bone of length 0 (its tip is
    /// its joint: see [`crate::figure::Figure::has_tip_probe`]).
    pub tip_probe: Option<String>,
    /// Index of the track that rotates this bone, if it moves.
    pub track: Option<usize>,
    /// The bone's drawn frame: bone coordinates (x along the bone from its
    /// joint) → the coordinates of the bone's own group, in which the clip
    /// draws it (its rest pose, or the pose a reuse plan draws it in).
    pub drawn: crate::geom::Affine,
}

/// A group: static `translate` (outermost), then the animation, then children.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Node {
    /// CSS class, also the animation's selector on the css route.
    pub class: Option<String>,
    pub translate: Vec2,
    pub anim: Option<Anim>,
    pub children: Vec<Item>,
}

/// A path whose points are morphed by SMIL `<animate attributeName="d">`:
/// `M p0 L p1 L p2 …` (or, when `cubic`, `M p0 C p1 p2 p3 …`: one cubic
/// Bézier per three points after the first), the same commands in every value.
#[derive(Debug, Clone, PartialEq)]
pub struct Morph {
    pub class: String,
    pub width: f64,
    /// `data-probe` on the path: its last point is the probed position.
    pub probe: Option<String>,
    /// Cubic Bézier commands instead of lines (the point count is 1 + 3k).
    pub cubic: bool,
    /// Key times (normalised) and the points at each, all the same length.
    pub keys: Vec<(f64, Vec<Vec2>)>,
}

/// Something inside a group.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Group(Node),
    Line {
        from: Vec2,
        to: Vec2,
        class: String,
        width: f64,
    },
    Circle {
        center: Vec2,
        r: f64,
        class: String,
    },
    /// A row of `count` filled dots of radius `r` from `from` rightwards,
    /// `spacing` apart (a ground): drawn as one stroke of zero-length
    /// dashes with round caps, each cap a dot.
    Dots {
        from: Vec2,
        spacing: f64,
        count: usize,
        r: f64,
        class: String,
    },
    Rect {
        center: Vec2,
        w: f64,
        h: f64,
        class: String,
    },
    /// A `<circle data-probe=name cx cy>` without `r` (r defaults to 0: no
    /// area, nothing drawn, and svgo keeps it): the measured point contract.
    Probe {
        name: String,
        at: Vec2,
    },
    Morph(Morph),
    /// A filled shape with round ends: the hull of a circle of radius
    /// `r_from` at `from` and one of radius `r_to` at `to` (a tapered bone).
    Taper {
        from: Vec2,
        to: Vec2,
        r_from: f64,
        r_to: f64,
        class: String,
    },
    /// A `scene` part: `<path>` with presentation attributes (`None` paints
    /// are written `"none"`); static within its group, never measured.
    Part {
        class: String,
        d: String,
        stroke: Option<String>,
        width: f64,
        fill: Option<String>,
        opacity: f64,
        /// The stroke's dash lengths; empty for a solid stroke.
        dash: Vec<f64>,
    },
}

/// An `ik` entry of the clip's figure as a leg: what its report line and
/// any later measure of the file (a browser's) need.
#[derive(Debug, Clone, PartialEq)]
pub struct LegInfo {
    pub name: String,
    pub ankle_probe: String,
    pub target_probe: String,
    pub thigh: f64,
    pub shin: f64,
    /// css route: the tracks this leg plays (thigh, shin), its own or reused.
    /// smil route: empty (the leg's morph carries its keys).
    pub tracks: Vec<usize>,
    /// Segment shape used.
    pub fit: Fit,
    /// Name of the leg whose keyframes this one reuses (css route), if any.
    pub reuses: Option<String>,
    /// The ideal target the effector is measured against (the target the
    /// entry asks for, not the written target probe).
    pub ideal: Option<crate::trajectory::IdealTarget>,
}

/// A baked animation, ready to emit and to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub name: String,
    pub route: Route,
    /// Period as written, seconds.
    pub period_s: f64,
    pub view_box: [f64; 4],
    pub tracks: Vec<Track>,
    pub root: Node,
    /// The figure's `ik` entries, set once the clip is written (empty
    /// while it is fitted and measured).
    pub legs: Vec<LegInfo>,
    /// What the figure's clip carries for its measure and report (`None`
    /// for a clip written without a figure: the chains' own scratch clip,
    /// a test's hand-made one).
    pub figure: Option<FigureInfo>,
    /// The ground row steps back by this many px (one dot spacing) each
    /// time it has scrolled that far ([`crate::chain::wrapped_ground_keys`]);
    /// `None`: it scrolls on over the whole period.
    pub ground_wrap_px: Option<f64>,
}

impl Track {
    /// One whole turn per period at a steady rate in the direction `sign`
    /// (±1): degrees 0 → sign·360, linear (a crank, a pedal's counter-turn,
    /// a circle target).
    pub fn full_turn(name: String, sign: f64) -> Track {
        let key = |t: f64, value: f64| Key {
            t,
            value,
            ease: Ease::Linear,
        };
        Track {
            name,
            keys: vec![key(0.0, 0.0), key(1.0, sign * 360.0)],
        }
    }

    /// Drops every key inside a run of three or more equal values: the
    /// segments around such a key are constant whatever their easing, so
    /// the track says the same with one constant segment from the run's
    /// first key to its last (a foot target standing through a gait's
    /// stance keeps its corner keys otherwise). The first and last keys
    /// always stay.
    pub fn drop_flat_keys(&mut self) {
        self.keys = without_flat_keys(std::mem::take(&mut self.keys));
    }
}

/// `keys` without the keys [`Track::drop_flat_keys`] drops: the same
/// motion in fewer keys.
pub fn without_flat_keys(k: Vec<Key>) -> Vec<Key> {
    let flat = |i: usize| {
        i > 0 && i + 1 < k.len() && k[i - 1].value == k[i].value && k[i].value == k[i + 1].value
    };
    (0..k.len()).filter(|&i| !flat(i)).map(|i| k[i]).collect()
}

impl Clip {
    /// Each bone's tip probe as written, in bone order ([`BoneInfo::tip_probe`];
    /// empty for a clip that is not a bone tree's).
    pub fn bone_tips(&self) -> Vec<Option<String>> {
        self.figure.as_ref().map_or_else(Vec::new, |f| {
            f.bones.iter().map(|b| b.tip_probe.clone()).collect()
        })
    }

    /// [`Track::drop_flat_keys`] on every track but the two of a
    /// [`Anim::Scale`], whose key times must stay equal.
    pub fn drop_flat_keys(&mut self) {
        let mut paired = Vec::new();
        for g in self.groups() {
            if let Some(Anim::Scale { sx, sy, .. }) = g.anim {
                paired.extend([sx, sy]);
            }
        }
        for (i, t) in self.tracks.iter_mut().enumerate() {
            if !paired.contains(&i) {
                t.drop_flat_keys();
            }
        }
    }

    /// The morphed path that carries `probe`, if any (smil route legs).
    pub fn morph(&self, probe: &str) -> Option<&Morph> {
        self.groups().into_iter().find_map(|g| {
            g.children.iter().find_map(|c| match c {
                Item::Morph(m) if m.probe.as_deref() == Some(probe) => Some(m),
                _ => None,
            })
        })
    }

    /// Every group in depth-first order, with its depth-first index.
    pub fn groups(&self) -> Vec<&Node> {
        fn walk<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
            out.push(n);
            for c in &n.children {
                if let Item::Group(g) = c {
                    walk(g, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.root, &mut out);
        out
    }

    /// What a class-switched css file ([`crate::emit::figure`]) shows of
    /// `other` while its root carries `other`'s clip class, this clip being
    /// the file's first (the one drawn): this clip's groups, drawing and
    /// probes, each group animated as `other` animates its group of the
    /// same class (the clip rules select groups by class), still where
    /// `other` has no such group or leaves it still; `other`'s tracks,
    /// period and bone records. A file is right when this shows every probe
    /// of `other` where `other` itself puts it.
    pub fn switched_to(&self, other: &Clip) -> Clip {
        let anims: std::collections::HashMap<&str, &Anim> = other
            .groups()
            .into_iter()
            .filter_map(|g| Some((g.class.as_deref()?, g.anim.as_ref()?)))
            .collect();
        fn animate(n: &mut Node, anims: &std::collections::HashMap<&str, &Anim>) {
            n.anim = n
                .class
                .as_deref()
                .and_then(|c| anims.get(c))
                .map(|a| (*a).clone());
            for c in &mut n.children {
                if let Item::Group(g) = c {
                    animate(g, anims);
                }
            }
        }
        let mut root = self.root.clone();
        animate(&mut root, &anims);
        Clip {
            root,
            ..other.clone()
        }
    }
}

/// Segment shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Fit {
    /// Straight-line interpolation between keys.
    Linear,
    /// Exact cubic via `cubic-bezier(1/3, y1, 2/3, y2)`: Hermite (the curve's
    /// end slopes), an IK pair's fitted over each segment (least squares).
    Cubic,
}

impl Fit {
    pub fn as_str(self) -> &'static str {
        match self {
            Fit::Linear => "linear",
            Fit::Cubic => "cubic",
        }
    }
}
