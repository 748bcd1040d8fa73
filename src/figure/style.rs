//! How a bone tree is drawn: the rig's `style` section and the shapes it
//! gives each bone.
//!
//! Two looks:
//!
//! - **`figure`** (default; seed 000's stick figure): every bone is a filled
//!   tapered shape with round ends (the hull of a circle at the joint and a
//!   smaller one at the tip). Bones that continue each other (a thigh and
//!   its shin) share the radius at the joint between them, so the outline
//!   bends round the joint instead of hinging. Widths fall linearly along a
//!   free limb from `width_root` at its first joint to `width_tip` at its
//!   end. Far-side bones (name ending in `_f`) are drawn behind their
//!   parent, `far_width` times as wide, and their subtree as one group at
//!   `far_opacity` (so the overlap at a knee is not darker). A bone named in
//!   `heads` is a filled round head.
//! - **`sticks`** (seed 002's robot): a stroked line per bone and a joint
//!   ball at each joint; exactly the drawing rigbake wrote before styles.
//!
//! Both looks draw the same nested rotating groups on both routes, so the
//! drawing moves exactly with the probes: the style changes what a group
//! holds, never how it moves. (A smil-only `d` morph of a whole limb along a
//! Catmull-Rom curve would draw a smoother inner knee, but the morph
//! interpolates points linearly between its keys, so the drawn foot would
//! leave the measured one by the chord error unless it carried many more
//! keys than the rotations do.)
//!
//! Validation lives in [`crate::rig::check::check_style`].

use super::model::{Bone, DEFAULT_WIDTH, Figure};
use crate::clip::Item;
use crate::geom::{LEN_DECIMALS, Vec2, quantize};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Opacity of far-side bones in the figure look (seed 000: 42 %).
pub const FAR_OPACITY: f64 = 0.42;
/// Width factor of far-side bones in the figure look.
pub const FAR_WIDTH: f64 = 0.8;
/// Width of a limb at its first joint, user units, for a bone of the
/// default width (a bone's own `style.width` scales it).
pub const WIDTH_ROOT: f64 = 8.0;
/// Width of a limb at its free end, user units (scaled as [`WIDTH_ROOT`]).
pub const WIDTH_TIP: f64 = 3.5;
/// Joint ball colour of the sticks look (seed 002).
pub const JOINT_FILL: &str = "#38bdf8";
/// Suffix of far-side bone names.
pub const FAR_SUFFIX: &str = "_f";
/// Bones drawn as a round head when `heads` is not given.
pub const DEFAULT_HEADS: [&str; 1] = ["head"];
/// A head's radius as a fraction of its bone's width (the joint ball the
/// sticks look draws there), unless half its length is larger.
pub const HEAD_WIDTH_FACTOR: f64 = 0.8;

/// A look by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Look {
    /// Seed 000: smooth tapered limbs, round head, far side thinner and translucent.
    #[default]
    Figure,
    /// Seed 002: straight sticks and joint balls (rigbake's drawing before styles).
    Sticks,
}

/// `style` in the rig file: a look's name, or an object of overrides.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RigStyleFile {
    /// `"figure"` or `"sticks"`.
    Named(String),
    Custom(StyleOverridesFile),
}

impl<'de> Deserialize<'de> for RigStyleFile {
    // by hand, so a bad field gets serde's own message, not "did not match
    // any variant"
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error as _;
        match serde_json::Value::deserialize(d)? {
            serde_json::Value::String(s) => Ok(RigStyleFile::Named(s)),
            v @ serde_json::Value::Object(_) => StyleOverridesFile::deserialize(v)
                .map(RigStyleFile::Custom)
                .map_err(D::Error::custom),
            other => Err(D::Error::custom(format!(
                "must be \"figure\", \"sticks\" or an object of overrides, got {other}"
            ))),
        }
    }
}

/// The overrides of a `style` object; every field is optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleOverridesFile {
    /// The look the overrides apply to: `"figure"` (default) or `"sticks"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look: Option<String>,
    /// Colour (`#rgb` / `#rrggbb`) of bones without their own `style.stroke`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stroke: Option<String>,
    /// Colour of far-side bones (`_f`) without their own `style.stroke`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_stroke: Option<String>,
    /// figure: a limb's width at its first joint, user units, > 0 (default 8),
    /// for a bone of the default width 6 (a bone's `style.width` scales it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_root: Option<f64>,
    /// figure: a limb's width at its free end, user units, > 0 (default 3.5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_tip: Option<f64>,
    /// figure: opacity of the far side, in (0, 1] (default 0.42).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_opacity: Option<f64>,
    /// figure: width factor of the far side, in (0, 1] (default 0.8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_width: Option<f64>,
    /// figure: fill of round heads (default the head bone's colour).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_fill: Option<String>,
    /// figure: bones drawn as a round head (default `["head"]`, where such a bone exists).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heads: Option<Vec<String>>,
    /// sticks: fill of the joint balls (default `#38bdf8`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_fill: Option<String>,
}

/// A validated style (see [`crate::rig::check::check_style`]): widths > 0,
/// opacity and width factor in (0, 1], colours `#rgb`/`#rrggbb` lower case,
/// heads name bones of the tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Style {
    pub look: Look,
    pub stroke: Option<String>,
    pub far_stroke: Option<String>,
    pub width_root: f64,
    pub width_tip: f64,
    pub far_opacity: f64,
    pub far_width: f64,
    pub head_fill: Option<String>,
    /// `None`: [`DEFAULT_HEADS`].
    pub heads: Option<Vec<String>>,
    pub joint_fill: String,
}

impl Default for Style {
    fn default() -> Self {
        Style::of(Look::Figure)
    }
}

impl Style {
    /// A look with no overrides.
    pub fn of(look: Look) -> Style {
        Style {
            look,
            stroke: None,
            far_stroke: None,
            width_root: WIDTH_ROOT,
            width_tip: WIDTH_TIP,
            far_opacity: FAR_OPACITY,
            far_width: FAR_WIDTH,
            head_fill: None,
            heads: None,
            joint_fill: JOINT_FILL.into(),
        }
    }

    /// Is `name` drawn as a round head?
    pub fn is_head(&self, name: &str) -> bool {
        match &self.heads {
            Some(h) => h.iter().any(|x| x == name),
            None => DEFAULT_HEADS.contains(&name),
        }
    }
}

/// A far-side bone: its name ends in [`FAR_SUFFIX`].
pub fn is_far(bone: &Bone) -> bool {
    bone.name.ends_with(FAR_SUFFIX)
}

/// Give bones without their own `style.stroke` the style's colours
/// (`far_stroke` for far-side bones, else `stroke`). `files[i]` is bone i
/// as written.
pub fn apply_colours(fig: &mut Figure, files: &[super::file::BoneFile]) {
    for (bone, bf) in fig.bones.iter_mut().zip(files) {
        if bf.style.as_ref().is_some_and(|s| s.stroke.is_some()) {
            continue;
        }
        let c = if is_far(bone) {
            fig.style.far_stroke.as_ref().or(fig.style.stroke.as_ref())
        } else {
            fig.style.stroke.as_ref()
        };
        if let Some(c) = c {
            bone.stroke = c.clone();
        }
    }
}

/// Radii (joint, tip) of each bone's shape in the figure look, user units,
/// rounded as written.
///
/// A *limb* is a run of bones each the only child of the one before (heads
/// excluded), starting at a root or a bone with siblings. A limb that ends
/// free (its last bone has no children) tapers linearly by length from
/// `width_root` to `width_tip`; a limb that carries others (a torso, a neck
/// under a head) keeps `width_root`. Each bone's radii are then scaled by
/// its width over the default width, and far-side bones by `far_width`.
pub fn radii(fig: &Figure) -> Vec<(f64, f64)> {
    let st = &fig.style;
    let n = fig.bones.len();
    let kids = |b: usize| -> Vec<usize> {
        (b + 1..n)
            .filter(|&c| fig.bones[c].parent == Some(b))
            .collect()
    };
    let continues = |b: usize| -> Option<usize> {
        match kids(b)[..] {
            [c] if !st.is_head(&fig.bones[c].name) => Some(c),
            _ => None,
        }
    };
    let mut width = vec![(st.width_root, st.width_root); n];
    for start in 0..n {
        let chained = fig.bones[start]
            .parent
            .is_some_and(|p| continues(p) == Some(start));
        if chained {
            continue;
        }
        let mut limb = vec![start];
        while let Some(c) = continues(*limb.last().unwrap_or(&start)) {
            limb.push(c);
        }
        let last = *limb.last().unwrap_or(&start);
        if !kids(last).is_empty() {
            continue;
        }
        let total: f64 = limb.iter().map(|&b| fig.bones[b].length).sum();
        let at = |s: f64| {
            let u = if total > 0.0 { s / total } else { 1.0 };
            st.width_root + (st.width_tip - st.width_root) * u
        };
        let mut s = 0.0;
        for &b in &limb {
            let s1 = s + fig.bones[b].length;
            width[b] = (at(s), at(s1));
            s = s1;
        }
    }
    fig.bones
        .iter()
        .zip(width)
        .map(|(bone, (w0, w1))| {
            let k = bone.width / DEFAULT_WIDTH * if is_far(bone) { st.far_width } else { 1.0 };
            let r = |w: f64| quantize(w * k / 2.0, LEN_DECIMALS);
            (r(w0), r(w1))
        })
        .collect()
}

/// What one bone draws in its own group, from `joint` to `tip` (drawn
/// pose, user space, rounded): sticks, a line and a joint ball; figure, a
/// tapered shape, a round head, or nothing (a bone with `head_radius` draws
/// its own head). `colour`: index of the bone's colour class.
pub fn bone_items(
    fig: &Figure,
    radii: &[(f64, f64)],
    b: usize,
    joint: Vec2,
    tip: Vec2,
    colour: usize,
) -> Vec<Item> {
    let bone = &fig.bones[b];
    let mut v = Vec::new();
    match fig.style.look {
        Look::Sticks => {
            if bone.length > 0.0 {
                v.push(Item::Line {
                    from: joint,
                    to: tip,
                    class: format!("rb-bone rb-s{colour}"),
                    width: quantize(bone.width, LEN_DECIMALS),
                });
            }
            v.push(Item::Circle {
                center: joint,
                r: quantize(bone.width * 0.8, LEN_DECIMALS),
                class: "rb-joint".into(),
            });
        }
        Look::Figure if bone.head_radius.is_some() => {}
        Look::Figure if fig.style.is_head(&bone.name) => {
            let mid = Vec2::new((joint.x + tip.x) / 2.0, (joint.y + tip.y) / 2.0);
            let r = (bone.length / 2.0).max(bone.width * HEAD_WIDTH_FACTOR);
            v.push(Item::Circle {
                center: Vec2::new(quantize(mid.x, LEN_DECIMALS), quantize(mid.y, LEN_DECIMALS)),
                r: quantize(r, LEN_DECIMALS),
                class: format!("rb-head rb-f{colour}"),
            });
        }
        Look::Figure => {
            let (r0, r1) = radii[b];
            v.push(Item::Taper {
                from: joint,
                to: tip,
                r_from: r0,
                r_to: r1,
                class: format!("rb-limb rb-f{colour}"),
            });
        }
    }
    v
}

/// Order the items of bone `b`'s group: its own drawing, then its children's
/// groups (`kids`, bone indices with their items). In the figure look the
/// far-side children go first (behind the parent) and each far child whose
/// parent is near is wrapped in one `rb-far` group (its subtree is
/// composited once at `far_opacity`).
pub fn assemble(fig: &Figure, b: usize, own: &mut Vec<Item>, kids: Vec<(usize, Item)>) {
    if fig.style.look == Look::Sticks {
        own.extend(kids.into_iter().map(|(_, i)| i));
        return;
    }
    let parent_far = is_far(&fig.bones[b]);
    let (far, near): (Vec<_>, Vec<_>) = kids
        .into_iter()
        .partition(|(c, _)| is_far(&fig.bones[*c]) && !parent_far);
    let mut front: Vec<Item> = far.into_iter().map(|(_, i)| far_group(i)).collect();
    front.append(own);
    front.extend(near.into_iter().map(|(_, i)| i));
    *own = front;
}

/// `item` inside a group of class `rb-far`.
pub fn far_group(item: Item) -> Item {
    Item::Group(crate::clip::Node {
        class: Some("rb-far".into()),
        translate: Vec2::ZERO,
        anim: None,
        children: vec![item],
    })
}

/// Roots of the tree in the order they are drawn: far-side roots first in
/// the figure look (wrapped as in [`assemble`]).
pub fn order_roots(fig: &Figure, roots: Vec<(usize, Item)>) -> Vec<Item> {
    if fig.style.look == Look::Sticks {
        return roots.into_iter().map(|(_, i)| i).collect();
    }
    let (far, near): (Vec<_>, Vec<_>) =
        roots.into_iter().partition(|(c, _)| is_far(&fig.bones[*c]));
    far.into_iter()
        .map(|(_, i)| far_group(i))
        .chain(near.into_iter().map(|(_, i)| i))
        .collect()
}

/// The style sheet rules a look adds to a figure file (unscoped class
/// names): stroked lines (bones, chains), and the joint fill (sticks) or
/// the far-side opacity (figure).
pub fn css(style: &Style) -> String {
    match style.look {
        Look::Sticks => format!(
            ".rb-bone{{fill:none;stroke-linecap:round}}.rb-joint{{fill:{}}}",
            style.joint_fill
        ),
        Look::Figure => format!(
            ".rb-bone{{fill:none;stroke-linecap:round}}.rb-far{{opacity:{}}}",
            crate::geom::fmt_short(style.far_opacity, 3)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(json: &str) -> Figure {
        let rig = crate::rig::load(json).expect("valid rig");
        rig.figure.expect("a bone tree")
    }

    const LEGS: &str = r#"{"name":"t","view_box":[0,0,200,200],"period_s":1,
        "bones":[{"name":"spine","at":[100,100],"length":50,"angle":{"const_deg":-90}},
                 {"name":"thigh_f","parent":"spine","at":"origin","length":30,"angle":{"const_deg":180}},
                 {"name":"shin_f","parent":"thigh_f","length":30},
                 {"name":"thigh_n","parent":"spine","at":"origin","length":30,"angle":{"const_deg":180}},
                 {"name":"shin_n","parent":"thigh_n","length":30,"style":{"width":3}},
                 {"name":"neck","parent":"spine","length":10},
                 {"name":"head","parent":"neck","length":1,"style":{"width":15}}]}"#;

    #[test]
    fn limbs_taper_by_length_and_share_the_knee_radius() {
        let f = fig(LEGS);
        let r = radii(&f);
        // spine carries limbs: uniform root width 8 → radius 4
        assert_eq!(r[0], (4.0, 4.0));
        // near thigh + shin: 8 → 5.75 at the knee → 3.5 at the foot
        assert_eq!(r[3], (4.0, 2.88));
        // the shin's own width 3 halves its radii
        assert_eq!(r[4], (1.44, 0.88));
        // far side: × 0.8, the same knee radius on both bones
        assert_eq!(r[1], (3.2, 2.3));
        assert_eq!(r[2], (2.3, 1.4));
        // a neck under a head keeps the root width
        assert_eq!(r[5], (4.0, 4.0));
    }
}
