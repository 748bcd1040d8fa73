//! How a bone tree is drawn: the rig's `style` section and the shapes it
//! gives each bone.
//!
//! Three looks:
//!
//! - **`figure`** (default; seed 000's stick figure): every bone with a
//!   length is a filled tapered shape with round ends (the hull of a circle
//!   at the joint and a smaller one at the tip). Bones that continue each other (a thigh and
//!   its shin) share the radius at the joint between them, so the outline
//!   bends round the joint instead of hinging. Widths fall linearly along a
//!   free limb from `width_root` at its first joint to `width_tip` at its
//!   end. Far-side bones (name ending in `_f`) are drawn behind their
//!   parent, `far_width` times as wide, and their subtree as one group at
//!   `far_opacity` (so the overlap at a knee is not darker). A bone named in
//!   `heads` is a filled round head.
//! - **`sticks`** (seed 002's robot): a stroked line per bone and a joint
//!   ball at each joint; exactly the drawing rigbake wrote before styles.
//! - **`limbs`** (seed 001's legs, as `ik_chains` draw them): a thick
//!   round-capped stroke per bone (its `style.width`) and no joint balls, so
//!   a thigh and its shin read as one bent limb; each `ik` target is a disc
//!   (0.6 × its lower bone's width, the joint colour) behind the limbs.
//!
//! Every look draws the same nested rotating groups on both routes, so the
//! drawing moves exactly with the probes: the style changes what a group
//! holds, never how it moves. (A smil-only `d` morph of a whole limb along a
//! Catmull-Rom curve would draw a smoother inner knee, but the morph
//! interpolates points linearly between its keys, so the drawn foot would
//! leave the measured one by the chord error unless it carried many more
//! keys than the rotations do.)
//!
//! The validated [`Style`] and its look are the emitter's ([`crate::emit::style`]);
//! [`check_style`] checks the file's section.

use super::model::{Bone, DEFAULT_WIDTH, Figure};
use crate::clip::Item;
pub use crate::emit::style::*;
use crate::geom::{LEN_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::valid::{RigError, check_len, colour, invalid, shown};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `style` in the rig file: a look's name, or an object of overrides.
#[derive(Debug, Clone, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum RigStyleFile {
    /// `"figure"`, `"sticks"` or `"limbs"`.
    Named(String),
    Custom(StyleOverridesFile),
}

impl<'de> Deserialize<'de> for RigStyleFile {
    // by hand, so a bad field gets serde's own message, not "did not match
    // any variant"; read as it streams (not through a `Value`, whose map
    // would keep the last of a repeated field silently)
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = RigStyleFile;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("\"figure\", \"sticks\", \"limbs\" or an object of overrides")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<RigStyleFile, E> {
                Ok(RigStyleFile::Named(s.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<RigStyleFile, A::Error> {
                StyleOverridesFile::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(RigStyleFile::Custom)
            }
        }
        d.deserialize_any(Visit)
    }
}

/// The overrides of a `style` object; every field is optional.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StyleOverridesFile {
    /// The look the overrides apply to: `"figure"` (default), `"sticks"` or
    /// `"limbs"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub look: Option<String>,
    /// Colour (`#rgb` / `#rrggbb`) of bones without their own `style.stroke`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stroke: Option<String>,
    /// Colour of far-side bones (`_f`) without their own `style.stroke`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub far_stroke: Option<String>,
    /// figure: a limb's width at its first joint, user units, at least 0.01 (default 8),
    /// for a bone of the default width 6 (a bone's `style.width` scales it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_root: Option<f64>,
    /// figure: a limb's width at its free end, user units, at least 0.01 (default 3.5).
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
    /// sticks: fill of the joint balls; limbs: of the IK target discs (default `#38bdf8`;
    /// `"none"`: neither is drawn).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joint_fill: Option<String>,
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
/// tapered shape, a round head, or nothing (a bone of length 0; a bone with `head_radius` draws
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
    // the stroke of a bone with a length (sticks, limbs)
    let stroke = || {
        (bone.length > 0.0).then(|| Item::Line {
            from: joint,
            to: tip,
            class: format!("rb-bone rb-s{colour}"),
            width: quantize(bone.width, LEN_DECIMALS),
        })
    };
    match fig.style.look {
        Look::Sticks => {
            v.extend(stroke());
            if fig.style.joint_fill.is_some() {
                v.push(Item::Circle {
                    center: joint,
                    r: quantize(bone.width * 0.8, LEN_DECIMALS),
                    class: "rb-joint".into(),
                });
            }
        }
        Look::Limbs => v.extend(stroke()),
        // a bone of length 0 is a joint, not a limb: nothing to draw
        Look::Figure if bone.head_radius.is_some() || bone.length == 0.0 => {}
        Look::Figure if fig.style.is_head(&bone.name) => {
            let mid = Vec2::new((joint.x + tip.x) / 2.0, (joint.y + tip.y) / 2.0);
            let r = (bone.length / 2.0).max(bone.width * HEAD_WIDTH_FACTOR);
            v.push(Item::Circle {
                center: mid.quantized(LEN_DECIMALS),
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
    if fig.style.look != Look::Figure {
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
    if fig.style.look != Look::Figure {
        return roots.into_iter().map(|(_, i)| i).collect();
    }
    let (far, near): (Vec<_>, Vec<_>) =
        roots.into_iter().partition(|(c, _)| is_far(&fig.bones[*c]));
    far.into_iter()
        .map(|(_, i)| far_group(i))
        .chain(near.into_iter().map(|(_, i)| i))
        .collect()
}

/// Check the rig's `style` section against its bone names: a look's name
/// (`"figure"`, `"sticks"`, `"limbs"`), or an object whose colours are colours, widths
/// at least 0.01, opacity and width factor within (0, 1], heads existing bones.
pub fn check_style(file: &RigStyleFile, bones: &[String]) -> Result<Style, RigError> {
    let look = |path: &str, s: &str| match s {
        "figure" => Ok(Look::Figure),
        "sticks" => Ok(Look::Sticks),
        "limbs" => Ok(Look::Limbs),
        _ => Err(invalid(
            path,
            format!("must be \"figure\", \"sticks\" or \"limbs\", got {s:?}"),
        )),
    };
    let sec = match file {
        RigStyleFile::Named(s) => return Ok(Style::of(look("style", s)?)),
        RigStyleFile::Custom(sec) => sec,
    };
    let mut st = Style::of(match &sec.look {
        Some(s) => look("style.look", s)?,
        None => Look::Figure,
    });
    let col = |field: &str, c: &Option<String>| -> Result<Option<String>, RigError> {
        c.as_deref()
            .map(|c| colour(&format!("style.{field}"), c))
            .transpose()
    };
    st.stroke = col("stroke", &sec.stroke)?;
    st.far_stroke = col("far_stroke", &sec.far_stroke)?;
    st.head_fill = col("head_fill", &sec.head_fill)?;
    if let Some(c) = &sec.joint_fill {
        st.joint_fill = crate::valid::paint("style.joint_fill", c)?;
    }
    if let Some(w) = sec.width_root {
        st.width_root = check_len("style.width_root", w)?;
    }
    if let Some(w) = sec.width_tip {
        st.width_tip = check_len("style.width_tip", w)?;
    }
    let fraction = |field: &str, x: f64| -> Result<f64, RigError> {
        if x.is_finite() && x > 0.0 && x <= 1.0 {
            Ok(x)
        } else {
            Err(invalid(
                format!("style.{field}"),
                format!("must be within (0, 1], got {}", shown(x)),
            ))
        }
    };
    if let Some(x) = sec.far_opacity {
        st.far_opacity = fraction("far_opacity", x)?;
    }
    if let Some(x) = sec.far_width {
        st.far_width = fraction("far_width", x)?;
    }
    if let Some(heads) = &sec.heads {
        for (i, h) in heads.iter().enumerate() {
            if !bones.contains(h) {
                return Err(invalid(
                    format!("style.heads[{i}]"),
                    format!("{h:?} names no bone"),
                ));
            }
        }
        st.heads = Some(heads.clone());
    }
    Ok(st)
}
