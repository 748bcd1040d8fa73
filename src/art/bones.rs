//! `bake --art` for bone trees: every bone's part wrapped into the clip's
//! own group chain for that bone.
//!
//! # Naming
//!
//! | name | element | required |
//! | --- | --- | --- |
//! | `<bone>` (the bone's `name`), or any of its `parts` | any drawable element or group | for every bone with a `length` > 0 or a `head_radius` (one of its names) |
//! | `joint-<bone>`, `tip-<bone>` | `<circle>` (or an `<ellipse>` or `<path>` made of one), anywhere | no: checked against the pose, hidden in the output |
//! | `thigh-<name>`, `shin-<name>` (an `ik` entry's `name`) | as `<bone>`, for the entry's upper and lower bone | as `<bone>` (one of the two names) |
//! | `joint-hip-<name>`, `joint-knee-<name>`, `joint-ankle-<name>` | as `joint-<bone>` | no, as `joint-<bone>`/`tip-<bone>` |
//! | `<chain>-<j>` (a Verlet chain's segment j, from particle j to j + 1) | as `<bone>` | no |
//! | `joint-<chain>-<j>`, `tip-<chain>-<j>` | as `joint-<bone>` | no, as `joint-<bone>`/`tip-<bone>` |
//!
//! `rigbake template` writes exactly these names. A part may hold the
//! parts of bones below it (a nested drawing) or stand alone (a flat one):
//! rigbake nests as needed. A part inside another part must belong to a
//! bone below that part's bone; a chain's segment may hold only the
//! chain's later segments, and no bone's part may hold it (the chain
//! hangs in world space, not in its anchor bone's group).
//!
//! A chain's segment is bound as a bone is: one index holds the bones,
//! then every chain's segments (`Segment`). Its group chain is the clip's
//! own (`rb-c-<chain>-y`/`-x` sliding the anchor, each earlier segment's
//! turn and stretch, `rb-c-<chain>-<j>` turning about particle j); its
//! drawn frame `D` is root user space (the clip draws the chain there, in
//! the first recorded frame) and its phase-0 pose `W` the recorded frame
//! at t = 0, the pose `rigbake template` draws: `M = D·W⁻¹` is the
//! identity up to rounding.
//!
//! # Method
//!
//! The clip draws every bone in its drawn frame `D_b` (its rest pose, or
//! the pose a reuse plan draws it in: bone coordinates → its group's)
//! inside a chain of groups (root motion, springs, the bone and its
//! ancestors); `G_b(t)` is the product of that chain's transforms at time t
//! ([`crate::measure::group_matrix`]), so the clip draws a bone point `x`
//! at `G_b(t)·D_b·x`. The drawing shows the phase-0 pose `W_b` (FK of the
//! clip at t = 0 with its root motion and springs, as `rigbake template`
//! draws it), so a part's points must move by `G_b(t)·M_b` with
//! `M_b = D_b·W_b⁻¹`: a point drawn on the bone then lands exactly where
//! the clip draws that point of the bone, at every t. (`G_b(0)·D_b` is
//! `W_b` up to the keys' rounding, except where a chain replays another
//! chain's keys from another phase: its keyed pose at t = 0 is off `W_b`
//! by its fitting error, and `M_b` keeps the part on the drawn bone.) A
//! part with static parent transform `Q` whose nearest enclosing part
//! belongs to bone `a` (none: `M_a = I`, the chain from the top) is
//! wrapped as
//!
//! ```text
//! <g transform="Q⁻¹·M_a⁻¹"> chain below a … <g class="rb-b-<bone>"> <g transform="M_b·Q"> PART </g></g>…</g>
//! ```
//!
//! where the chain is the clip's groups (a static translate folded into the
//! placement before the next animated group, an animated group as a
//! `<g class>` animated by the clip's own `@keyframes` from
//! [`crate::emit::css::style`]; the one wrapper writer of module `art`). The clip's groups
//! with their probes (and nothing the clip draws) follow the drawing as one
//! `<g data-rigbake="skeleton">`, written by the clip's emitter, so the file
//! carries every probe of the plain bake: bone tips, IK targets, ground,
//! springs' and chains' probes.
//!
//! Every part must cover its bone's joint and tip in the phase-0 pose (as
//! `rigbake template` draws it: FK of the clip at t = 0 through its root
//! motion and springs) and every marker must sit on its joint, within [`super::POSE_LIMIT_PX`]
//! (module `pose`); otherwise the bake is refused naming the part.

use super::pose::Checker;
use super::{
    Animated, ArtError, ClipIndex, Drawing, Found, Insert, Joint, LineIndex, PartWrap, WrapIds,
    check_marker, check_place, ctm_of_parent, find_parts, finish, hide, marker_at,
    moving_animations, output_scope, own_transform, skeleton_text, wrap_part,
};
use crate::clip::Clip;
use crate::figure::model::Limb;
use crate::figure::{Figure, chain, fk, spring};
use crate::geom::{Affine, AffineExt, LEN_DECIMALS, Vec2, Vec2Ext};
use crate::rig::Rig;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq)]
enum Role {
    Bone(usize),
    Marker(usize, Joint),
}

pub(super) fn animate(
    (art, doc, lines, sheets): Drawing,
    rig: &Rig,
    fig: &Figure,
    clip: &Clip,
) -> Result<Animated, ArtError> {
    let root = doc.root_element();
    // the parts a drawing may hold: every bone (0..nb), then every Verlet
    // chain's segments
    let nb = fig.bones.len();
    let segs = segments(fig);
    let names: Vec<&str> = fig
        .bones
        .iter()
        .map(|b| b.name.as_str())
        .chain(segs.iter().map(|s| s.name.as_str()))
        .collect();
    let seg_at: HashMap<&str, usize> = segs
        .iter()
        .enumerate()
        .map(|(k, s)| (s.name.as_str(), nb + k))
        .collect();
    let bone_of = |n: &str| names[..nb].iter().position(|b| *b == n);
    // a bone or a segment, by the name its markers carry
    let member_of = |n: &str| bone_of(n).or_else(|| seg_at.get(n).copied());
    let role_of = |name: &str| -> Option<Role> {
        if let Some(b) = member_of(name) {
            return Some(Role::Bone(b));
        }
        if let Some(b) = fig
            .bones
            .iter()
            .position(|b| b.parts.iter().any(|p| p == name))
        {
            return Some(Role::Bone(b));
        }
        if let Some(b) = name.strip_prefix("joint-").and_then(member_of) {
            return Some(Role::Marker(b, Joint::Bone));
        }
        if let Some(b) = name.strip_prefix("tip-").and_then(member_of) {
            return Some(Role::Marker(b, Joint::Tip));
        }
        chain_role(fig, name)
    };

    let parts = find_parts(doc, lines, role_of)?.parts;
    // the drawable bones, as the template names them
    let list = (0..fig.bones.len())
        .filter(|&b| drawable(&fig.bones[b]))
        .map(|b| format!("\"{}\"", fig.part_names(b).0))
        .collect::<Vec<_>>()
        .join(", ");
    // each bone drawn once under its own name or its entry's (two such
    // parts are a copy drawn twice), besides any of its declared `parts`
    let mut drawn: HashMap<usize, (&str, u32)> = HashMap::new();
    let mut declared: HashSet<usize> = HashSet::new();
    for (name, (f, role)) in &parts {
        // (a segment has one name: a second element is a duplicate)
        let Role::Bone(b) = *role else { continue };
        if b >= nb {
            continue;
        }
        if fig.bones[b].parts.iter().any(|p| p == name) {
            declared.insert(b);
        } else if let Some((first, line)) = drawn.insert(b, (name, f.line)) {
            return Err(ArtError::TwoNames {
                bone: names[b].to_string(),
                a: first.to_string(),
                first: line,
                b: name.clone(),
                second: f.line,
            });
        }
    }
    for (b, bone) in fig.bones.iter().enumerate() {
        if drawable(bone) && !drawn.contains_key(&b) && !declared.contains(&b) {
            let part = fig.part_names(b).0;
            let what = match fig.chain_part(b) {
                Some((chain, limb)) => {
                    let named = format!(
                        "\"{part}\" or \"{}\" (the {} of chain \"{chain}\")",
                        bone.name,
                        limb.as_str()
                    );
                    match near_misses(doc, lines, &format!("{}-", limb.as_str()), &role_of) {
                        Some(hints) => {
                            let chains = fig
                                .ik
                                .iter()
                                .filter_map(|k| k.name.as_ref())
                                .map(|n| format!("\"{n}\""))
                                .collect::<Vec<_>>()
                                .join(", ");
                            format!(
                                "{named}; the drawing has {hints}, but the rig's chains are {chains}"
                            )
                        }
                        None => format!("{named}; the rig's parts are {list}"),
                    }
                }
                None if part != bone.name => format!(
                    "\"{part}\" or \"{}\" (the rig's bone and its part); the rig's parts are {list}",
                    bone.name
                ),
                None => format!("\"{part}\" (the rig's bone); the rig's parts are {list}"),
            };
            return Err(ArtError::MissingBone { what });
        }
    }
    let node_of = |f: &Found| doc.get_node(f.node).expect("node id from this document");
    let smil = moving_animations(doc);
    for (name, (f, role)) in &parts {
        let marker = matches!(role, Role::Marker(..));
        check_place(root, node_of(f), (name, f.line, marker), lines, &smil)?;
    }

    // the clip's chain and phase-0 transform for every bone
    let index = ClipIndex::new(clip);
    let class = |b: usize| match b.checked_sub(nb) {
        None => format!("rb-b-{}", names[b]),
        Some(k) => segs[k].class.clone(),
    };
    let chain = |b: usize| index.path(&class(b));
    // the phase-0 pose as `template` draws it: FK of the clip at t = 0
    // through the root motion and springs at t = 0
    let fc = &fig.clips[0];
    let world = fk::world_matrices(fig, &fk::local_angles(fig, fc, 0.0), 0.0);
    let root_m = fk::root_matrix(&fc.root, 0.0);

    let (sc, renames) = output_scope((art, doc, lines, sheets), rig, clip)?;
    let ids = WrapIds::new(&sc);
    let by_node: HashMap<roxmltree::NodeId, usize> = parts
        .values()
        .filter_map(|(f, r)| match r {
            Role::Bone(b) => Some((f.node, *b)),
            Role::Marker(..) => None,
        })
        .collect();
    // the name each part is drawn under (its bone's or its entry's)
    let part_name: HashMap<roxmltree::NodeId, &str> = parts
        .iter()
        .map(|(name, (f, _))| (f.node, name.as_str()))
        .collect();
    let markers_at: HashSet<roxmltree::NodeId> = parts
        .values()
        .filter(|(_, r)| matches!(r, Role::Marker(..)))
        .map(|(f, _)| f.node)
        .collect();
    let skip = |n: roxmltree::NodeId| by_node.contains_key(&n) || markers_at.contains(&n);
    let checker = Checker::new(doc);
    let mut inserts: Vec<Insert> = renames;
    let mut markers = Vec::new();
    // phase-0 joint and tip of every bone and segment, root user space
    let pose0 = |b: usize| -> (Vec2, Vec2) {
        if let Some(k) = b.checked_sub(nb) {
            return segs[k].pose;
        }
        let m = root_m * world[b];
        let off = spring::offset(fig, b, 0.0);
        (
            m.apply(Vec2::ZERO) + off,
            m.apply(Vec2::new(fig.bones[b].length, 0.0)) + off,
        )
    };

    // A part drawn on bone b's phase-0 pose W_b (FK of the clip at t = 0,
    // with its root motion and springs) lands on the frame the clip draws
    // the bone in, D_b: its wrapper maps root user space by D_b · W_b⁻¹,
    // so at time t it is where the clip's own groups put the bone (exactly
    // the bone's drawn line, also where a chain replays another chain's
    // keys from another phase and its keyed pose at t = 0 is off W_b by
    // its fitting error). `None`: W_b cannot be inverted.
    let infos = &clip
        .figure
        .as_ref()
        .expect("a bone-tree clip describes its figure")
        .bones;
    let to_drawn = |b: usize| -> Option<Affine> {
        if let Some(k) = b.checked_sub(nb) {
            return Some(segs[k].rest);
        }
        let w = Affine::translate(spring::offset(fig, b, 0.0)) * root_m * world[b];
        Some(infos[b].drawn * w.checked_inverse()?)
    };

    // in document order, so an error names the first part drawn off (a
    // moved thigh before the shin inside it)
    let mut in_order: Vec<_> = parts.iter().collect();
    in_order.sort_by_key(|(_, (f, _))| f.range.start);
    for (name, (f, role)) in in_order {
        let node = node_of(f);
        let b = match *role {
            Role::Bone(b) => b,
            Role::Marker(b, joint) => {
                let (jw, tw) = pose0(b);
                // a bone's tip, or a chain's ankle (its shin's tip)
                let want = if matches!(joint, Joint::Tip | Joint::Ankle) {
                    tw
                } else {
                    jw
                };
                let at = marker_at(node, f, name, ctm_of_parent(root, node, name, lines)?)?;
                markers.push(check_marker(name.clone(), names[b], joint, at, want, f)?);
                hide(&mut inserts, f);
                continue;
            }
        };
        let path = chain(b)?;
        // the nearest enclosing part, and where its bone is in this chain
        let outer = node
            .ancestors()
            .skip(1)
            .find_map(|a| by_node.get(&a.id()).map(|&b| (b, a.id())));
        let from = match outer {
            None => 0,
            Some((a, outer_node)) => {
                let class = class(a);
                let at = path
                    .iter()
                    .position(|n| n.class.as_deref() == Some(class.as_str()))
                    .filter(|_| a != b)
                    .ok_or_else(|| {
                        let outer = part_name[&outer_node].to_string();
                        let rule = if a < nb && b < nb {
                            "a part may only hold the parts of the bones below its own bone"
                        } else {
                            "a Verlet chain's segment may only hold the chain's later segments, and is held by no bone's part"
                        };
                        ArtError::Nested {
                            line: f.line,
                            part: name.clone(),
                            why: format!(" ({rule}; \"{outer}\" is not above \"{name}\")"),
                            outer,
                        }
                    })?;
                at + 1
            }
        };
        let qm = ctm_of_parent(root, node, name, lines)?;
        let rest = to_drawn(b).ok_or_else(|| {
            ArtError::Clip(format!("bone \"{name}\" is scaled to nothing at t = 0"))
        })?;
        // the enclosing part's wrapper already maps its drawing onto its
        // bone's drawn frame: undone here, down to the root user space
        let outer = match outer {
            None => Affine::IDENTITY,
            Some((a, _)) => to_drawn(a)
                .and_then(|m| m.checked_inverse())
                .expect("an enclosing part's map was inverted when it was wrapped"),
        };

        let (jw, tw) = pose0(b);
        // a chain's bones name their joints as a chain drawing does
        let [joint, tip] = match fig.chain_part(b) {
            Some((_, Limb::Thigh)) => ["hip", "knee"],
            Some((_, Limb::Shin)) => ["knee", "ankle"],
            None => ["joint", "tip"],
        };
        let mut joints = vec![(joint, jw)];
        if b >= nb || fig.bones[b].length > 0.0 {
            joints.push((tip, tw));
        }
        own_transform(node, f, name)?;
        checker.check_covers(f, name, qm, &skip, &joints)?;
        wrap_part(
            &ids,
            &mut inserts,
            f,
            name,
            PartWrap {
                path,
                from,
                outer,
                rest,
                parent: qm,
                probe: None,
            },
        )?;
    }
    markers.sort_by_key(|a| (member_of(&a.leg), a.joint));

    super::hide_guides(doc, &mut inserts);
    let last = skeleton_text(clip, &sc, &Default::default());
    let svg = finish(
        art,
        root,
        inserts,
        (clip, &placement_style(clip, &sc)),
        last,
    )?;
    let mut still: Vec<(&str, String)> = fig
        .chains
        .iter()
        .map(|c| {
            let last = c.params.count.saturating_sub(2);
            let why = format!(
                "the rig's Verlet chain, which a drawing follows segment by segment: what it draws stays still (its segments are the parts \"{}\" to \"{}\"; see draw-a-figure.md, section 2)",
                chain::segment_part(&c.name, 0),
                chain::segment_part(&c.name, last)
            );
            (c.name.as_str(), why)
        })
        .collect();
    if fig.ground.is_some() {
        still.push((
            "ground",
            "the rig's ground, which a drawing cannot follow: what it draws stays still (the ground's probes move; see draw-a-figure.md, Limits)".into(),
        ));
    }
    let mut notes = super::still_named(doc, lines, &still);
    // a bone no part draws (one that need not be drawn: a pedal, a crank
    // arm) while the drawing has names like its parts': likely a typo
    for (b, bone) in fig.bones.iter().enumerate() {
        if drawn.contains_key(&b) || declared.contains(&b) {
            continue;
        }
        for part in &bone.parts {
            let Some(cut) = part.rfind('-') else { continue };
            if let Some(hints) = near_misses(doc, lines, &part[..=cut], &role_of) {
                notes.push(format!(
                    "no part \"{part}\" (bone {:?}) in the drawing, which has {hints}: those name nothing of the rig and stay still",
                    bone.name
                ));
            }
        }
    }
    Ok(Animated {
        svg,
        markers,
        notes,
    })
}

/// One rule for the wrappers (`<prefix>-nw<k>`, `WrapIds`), then the
/// clip's style sheet: a placement wrapper turns its part by a `transform`
/// attribute about the origin of its parent's user space, which a page's
/// own `transform-origin` (`svg *{transform-origin:center}`) would move
/// (the sheet's `transform-box` rule already reaches it); an animated
/// wrapper's own rule, later in the sheet with the same specificity, sets
/// its origin over this one.
fn placement_style(clip: &Clip, sc: &crate::emit::scope::Scope) -> String {
    format!(
        "[id^=\"{}w\"]{{transform-origin:0 0}}{}",
        sc.id_stem(),
        crate::emit::css::style(clip, sc)
    )
}

/// Near-miss names a missing part's message shows: a few, so the message
/// stays one short line (the others are counted).
const HINTS: usize = 5;

/// The drawing's names that begin with `prefix` (a chain's `thigh-`, a
/// part's `pedal-`) and name no part of the rig (likely typos), with their
/// lines: at most [`HINTS`], so a message stays one short line; `None`
/// without any.
fn near_misses(
    doc: &roxmltree::Document,
    lines: &LineIndex,
    prefix: &str,
    role_of: &dyn Fn(&str) -> Option<Role>,
) -> Option<String> {
    let mut found = doc.descendants().filter(|n| n.is_element()).flat_map(|n| {
        super::names_of(n)
            .into_iter()
            .flatten()
            .filter(|name| name.starts_with(prefix) && role_of(name).is_none())
            .map(move |name| (name, n))
    });
    // the first few written out, the others counted
    let mut shown: Vec<String> = found
        .by_ref()
        .take(HINTS)
        .map(|(name, n)| format!("\"{name}\" (line {})", lines.row(n.range().start)))
        .collect();
    let more = found.count();
    if more > 0 {
        shown.push(format!("{more} more"));
    }
    (!shown.is_empty()).then(|| shown.join(", "))
}

/// A Verlet chain's segment as a part of the drawing (`<chain>-<j>`, see
/// [`chain::segment_part`]): bound as a bone is, into its group's chain
/// (`rb-c-<chain>-<j>`, turning about particle j, inside the chain's
/// anchor slide and its earlier segments), never required.
struct Segment {
    name: String,
    /// The clip's group of the segment ([`chain::segment_class`]).
    class: String,
    /// Particles j and j + 1 in the chain's phase-0 pose
    /// ([`chain::phase0`], as `rigbake template` draws them), root user
    /// space.
    pose: (Vec2, Vec2),
    /// Root user space → the segment's group: the drawn segment, from the
    /// phase-0 pose (rounded as the template writes it) onto the segment
    /// as the clip draws it (rounded as it writes it; the same segment,
    /// so the identity up to rounding).
    rest: Affine,
}

/// Every segment of every Verlet chain of `fig`, chain by chain.
fn segments(fig: &Figure) -> Vec<Segment> {
    let q = |p: Vec2| p.quantized(LEN_DECIMALS);
    let mut out = Vec::new();
    for ch in &fig.chains {
        let p = chain::phase0(ch);
        let d: Vec<Vec2> = ch.drawn.iter().map(|&x| q(x)).collect();
        for j in 0..p.len().min(d.len()).saturating_sub(1) {
            out.push(Segment {
                name: chain::segment_part(&ch.name, j),
                class: chain::segment_class(&ch.name, j),
                pose: (p[j], p[j + 1]),
                rest: super::rigid_map(q(p[j]), q(p[j + 1]), d[j], d[j + 1]),
            });
        }
    }
    out
}

/// A bone the drawing must hold a part for: one with a length or a head.
fn drawable(bone: &crate::figure::model::Bone) -> bool {
    bone.length > 0.0 || bone.head_radius.is_some()
}

/// The part names an `ik_chains` drawing gives a chain, answered by a named
/// `ik` entry's bones: `thigh-<name>` (its upper bone), `shin-<name>` (its
/// lower bone), and the markers `joint-hip-<name>`, `joint-knee-<name>`
/// (the bones' joints) and `joint-ankle-<name>` (the effector). A chain rig
/// lowered into bones names its entries after its chains, so a drawing
/// made from its chain template binds to the tree.
fn chain_role(fig: &Figure, name: &str) -> Option<Role> {
    (0..fig.bones.len())
        .filter_map(|b| Some((b, fig.chain_part(b)?.1)))
        .find_map(|(b, limb)| {
            let (part, joint, tip) = fig.part_names(b);
            if name == part {
                Some(Role::Bone(b))
            } else if name == joint {
                // the thigh turns at the hip, the shin at the knee
                let at = match limb {
                    Limb::Thigh => Joint::Hip,
                    Limb::Shin => Joint::Knee,
                };
                Some(Role::Marker(b, at))
            } else if tip.as_deref() == Some(name) {
                Some(Role::Marker(b, Joint::Ankle))
            } else {
                None
            }
        })
}
