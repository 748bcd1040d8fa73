//! An `ik` entry written on the smil route as one morphed path (`"smil":
//! "morph"`, [`super::file::IkSmil::Morph`], as every cycling leg's entry
//! is written): instead of the two
//! bones' groups turned by `<animateTransform type="rotate">`, one `<path>`
//! `M joint l knee−joint l effector−knee` in the coordinates of the upper
//! bone's parent group, whose `d` is morphed by `<animate
//! attributeName="d">` through the solved (FK) joint positions at each key.
//!
//! Keys are linear (a keySpline would only retime each point along the
//! chord between its keyed positions) and placed by the morph fitter,
//! [`crate::fit::morph::MorphProblem`]: `n` uniform keys for
//! `--keys n`, the fewest within the budget otherwise. The points move on
//! straight chords between keys, so the effector follows its target
//! closer per key than turned bones do, but the bones' lengths are kept
//! only at the keys: the measure reports the stretch between them.
//!
//! The points are taken into the parent group's drawn frame by the ideal
//! pose of the parent (`rest_p · W_p(t)⁻¹`): exact for a still parent (a
//! cycling rig's hip); for a moving parent the written parent's own keying
//! error adds to the morph's. The css route ignores the choice (a `d:
//! path()` morph has no probe the measure could trust across browsers).

use super::Figure;
use super::file::IkSmil;
use super::model::FigClip;
use crate::clip::{Item, Morph, Node, Route};
use crate::fit::{self, LEG_FIRST_BUDGET, TREE_FIRST_BUDGET, morph::MorphProblem};
use crate::geom::{Affine, AffineExt, LEN_DECIMALS, Rem1, T_DECIMALS, Vec2, Vec2Ext, quantize};

/// How a morph's key times are chosen (from the bake's keyer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum MorphKeys {
    /// `n` uniform keys (`--keys n`).
    Uniform(usize),
    /// At most `n`: corners first, then the fitter's fill.
    Placed(usize),
    /// The fewest keys keeping the effector within this many px of its
    /// solved position (the fitter's dense estimate).
    Within(f64),
}

/// A morph's share of a bake's budget: the tolerance loop
/// ([`crate::bake_rig`]) starts a bone tree's budget at
/// [`TREE_FIRST_BUDGET`] of the goal (a child bone's error adds to its
/// parent's); a morph's effector error is its own chord sag alone, so it
/// is fitted to the budget times [`LEG_FIRST_BUDGET`] / [`TREE_FIRST_BUDGET`]:
/// at the first try, [`LEG_FIRST_BUDGET`] of the goal (a retry tightens
/// both alike).
pub(crate) const BUDGET_SHARE: f64 = LEG_FIRST_BUDGET / TREE_FIRST_BUDGET;

/// The `ik` entry whose limb bone `b` is, when that entry is written as a
/// morph on `route`.
pub(crate) fn entry_of(fig: &Figure, route: Route, b: usize) -> Option<usize> {
    if route != Route::Smil {
        return None;
    }
    fig.ik
        .iter()
        .position(|k| k.smil == IkSmil::Morph && (k.upper == b || k.lower == b))
}

/// The item a bone's node is drawn as in its parent: the morph itself for
/// the group [`limb`] wraps it in (it needs no group of its own), else the
/// group.
pub(crate) fn in_parent(n: Node) -> Item {
    match n.children.as_slice() {
        [Item::Morph(_)] if n.anim.is_none() && n.translate == Vec2::ZERO => {
            n.children.into_iter().next().expect("one child")
        }
        _ => Item::Group(n),
    }
}

/// The limb's points (upper joint, knee, effector) at normalised time u,
/// in the drawn frame of the upper bone's parent group (`parent_rest`: the
/// parent's drawn matrix; user space for a root upper bone).
fn points(fig: &Figure, fc: &FigClip, i: usize, parent_rest: Option<Affine>, u: f64) -> [Vec2; 3] {
    let k = &fig.ik[i];
    let pose = super::fk::pose(fig, fc, u);
    let world = |b: usize| pose.root * pose.world[b];
    let up = world(k.upper);
    let user = [
        up.apply(Vec2::ZERO),
        up.apply(Vec2::new(fig.bones[k.upper].length, 0.0)),
        world(k.lower).apply(Vec2::new(fig.bones[k.lower].length, 0.0)),
    ];
    // user space → the parent group's drawn frame: rest_p · W_p(u)⁻¹
    let to_drawn = match (fig.bones[k.upper].parent, parent_rest) {
        (Some(p), Some(rest)) => rest * world(p).checked_inverse().unwrap_or(Affine::IDENTITY),
        _ => pose.root.checked_inverse().unwrap_or(Affine::IDENTITY),
    };
    user.map(|p| to_drawn.apply(p))
}

/// Where entry `i`'s effector path may turn a corner (its target's
/// corners, its reach switching), strictly inside (0, 1), as key times.
fn corners(fig: &Figure, fc: &FigClip, i: usize) -> Vec<f64> {
    let mut v: Vec<f64> = fc.targets[i]
        .corners()
        .into_iter()
        .chain(super::fk::reach_switches(fig, fc, i, 2048))
        .map(|t| quantize(t.rem1(), T_DECIMALS))
        .filter(|&t| t > 0.0 && t < 1.0)
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// The key times of entry `i`'s morph in clip `fc`.
fn key_times(fig: &Figure, fc: &FigClip, i: usize, keys: MorphKeys) -> Vec<f64> {
    if let MorphKeys::Uniform(n) = keys {
        return fit::uniform_times(n);
    }
    // fitted to the effector's solved position, in user space (the frame
    // it is drawn in moves rigidly with it)
    let k = &fig.ik[i];
    let end = |u: f64| {
        let pose = super::fk::pose(fig, fc, u);
        (pose.root * pose.world[k.lower]).apply(Vec2::new(fig.bones[k.lower].length, 0.0))
    };
    let p = MorphProblem::new(&end, corners(fig, fc, i)).rounded_to(fig.len_decimals);
    match keys {
        MorphKeys::Placed(n) => fit::fill(&p, n).remove(0),
        MorphKeys::Within(px) => fit::refine(&p, px, fit::MAX_FIT_KEYS).remove(0),
        MorphKeys::Uniform(_) => unreachable!("returned above"),
    }
}

/// Entry `i`'s limb as the node of its upper bone: a group holding the
/// morph alone, drawn straight into its parent ([`in_parent`]); the lower
/// bone has no node. `parent_rest`: the drawn matrix of the upper bone's
/// parent; `colour`: the index of the bones' stroke class.
pub(crate) fn limb(
    fig: &Figure,
    fc: &FigClip,
    i: usize,
    parent_rest: Option<Affine>,
    (keys, colour): (MorphKeys, usize),
) -> Node {
    let k = &fig.ik[i];
    let keys = key_times(fig, fc, i, keys)
        .into_iter()
        .map(|u| {
            let pts = points(fig, fc, i, parent_rest, u).map(|p| p.quantized(fig.len_decimals));
            (u, pts.to_vec())
        })
        .collect();
    Node {
        children: vec![Item::Morph(Morph {
            class: format!("rb-bone rb-s{colour}"),
            width: quantize(fig.bones[k.upper].width, LEN_DECIMALS),
            probe: Some(fig.tip_probe(k.lower)),
            cubic: false,
            keys,
        })],
        ..Node::default()
    }
}
