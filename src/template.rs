//! A starter drawing for any rig (`rigbake template`): the rig's phase-0
//! pose as one labelled group per part, for an illustrator to draw over.
//!
//! # The phase-0 pose
//!
//! [`phase0`] computes where every part is at t = 0 of the rig's default
//! (first) clip, from the library's own motion, never from an output file.
//! Every rig is a bone tree (cycling and `ik_chains` rigs load as the tree
//! they lower into; a cycling leg's ankle is on its pedal at crank angle
//! `start_deg + phase_deg`, the leg moved by its `depth_offset`), so the
//! pose is forward kinematics of the first clip at t = 0
//! ([`crate::figure::fk`]), through the root motion at t = 0 and the
//! spring offsets at t = 0, as the bake's `<bone>-tip` probes are measured.
//!
//! # Part names
//!
//! Each part is a `<g>` whose `id` and `inkscape:label` are the part name:
//!
//! | rig kind | parts (drawing order, back to front) |
//! | --- | --- |
//! | bone trees | one group per bone named as the bone, each child bone's group inside its parent's; the bones of a named `ik` entry (every `ik_chains` chain) are `thigh-<chain>` and `shin-<chain>`; per Verlet chain (`chains`), on its own layer `chain <chain>` (behind the tree for a `"side": "far"` chain), one group per segment `<chain>-<j>` from particle j to j + 1 of its phase-0 pose (the recorded frame at t = 0), each inside the one before |
//!
//! These are the names `bake --art` looks for (see [`crate::art`]). Joint markers are `<circle>`s on a hidden layer
//! labelled `guides`: `joint-hip-<leg>`, `joint-knee-<leg>`,
//! `joint-ankle-<leg>` for legs and named `ik` entries (the markers `bake
//! --art` compares with the rig), `joint-<bone>` and `tip-<bone>` for other
//! bones, `joint-<chain>-<j>` for each Verlet chain segment's joint and
//! `tip-<chain>-<last>` for the chain's tip; the guide layer also carries
//! reference lines (`guide-…`: the pedal circle, each IK target's path,
//! the ground, hair chains).
//!
//! A cycling rig's template is its tree's: a group per hip bone
//! (`<leg>_hip`) holding `crank-<leg>`, `pedal-<leg>` and `thigh-<leg>`
//! (with `shin-<leg>`), the names its crank and pedal bones and its `ik`
//! entries answer to.
//!
//! Layers are top-level `<g inkscape:groupmode="layer">` with an
//! `inkscape:label` and the id `layer-<label>` (spaces as `-`). Layer,
//! guide and marker ids all hold a `-` (no bone name does) and start with
//! `layer-`, `guide-`, `joint-` or `tip-` (no leg or chain part name does,
//! and a bone's `parts` may not: `RESERVED_ID_STEMS` in the figure model),
//! so ids never collide; the tests check every example.

use crate::figure::{Figure, chain, fk, spring};
use crate::geom::{AffineExt, LEN_DECIMALS, Vec2, Vec2Ext, fmt_len, quantize};
use crate::rig::Rig;
use std::fmt::Write as _;

/// One shape of a part's placeholder drawing.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// A bone or segment from joint to joint.
    Line {
        from: Vec2,
        to: Vec2,
        width: f64,
        stroke: String,
    },
    /// A head, a chainring.
    Circle { center: Vec2, r: f64, fill: String },
}

/// One part: a group with this name as its id and label.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    pub name: String,
    /// Index into [`Pose::layers`].
    pub layer: usize,
    /// The part whose group holds this one (index into [`Pose::parts`]).
    pub inside: Option<usize>,
    /// Whether `bake` moves this part (false: drawn once, e.g. a torso).
    pub moves: bool,
    pub shapes: Vec<Shape>,
}

/// A point on the guide layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub name: String,
    pub at: Vec2,
}

/// A reference polyline on the guide layer (closed when `closed`).
#[derive(Debug, Clone, PartialEq)]
pub struct Guide {
    pub name: String,
    pub points: Vec<Vec2>,
    pub closed: bool,
}

/// A rig's phase-0 pose, as the template draws it. Every point is rounded
/// to the written precision ([`LEN_DECIMALS`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// Layer labels, back to front.
    pub layers: Vec<String>,
    /// Parts in drawing order (a part's group follows the group holding it).
    pub parts: Vec<Part>,
    pub markers: Vec<Marker>,
    pub guides: Vec<Guide>,
}

/// Stroke colour of the joint markers.
const MARKER: &str = "#e63946";
/// Samples of a guide path (a chain's target, a crank circle).
const GUIDE_SAMPLES: usize = 64;

fn q(p: Vec2) -> Vec2 {
    p.quantized(LEN_DECIMALS)
}

fn line(from: Vec2, to: Vec2, width: f64, stroke: &str) -> Shape {
    Shape::Line {
        from: q(from),
        to: q(to),
        width,
        stroke: stroke.into(),
    }
}

/// The rig's phase-0 pose (see the module docs).
pub fn phase0(rig: &Rig) -> Pose {
    bones(&rig.figure)
}

fn push(pose: &mut Pose, name: String, layer: usize, inside: Option<usize>, shapes: Vec<Shape>) {
    pose.parts.push(Part {
        name,
        layer,
        inside,
        moves: true,
        shapes,
    });
}

fn marker(pose: &mut Pose, name: String, at: Vec2) {
    pose.markers.push(Marker { name, at: q(at) });
}

fn hair(pose: &mut Pose, ch: &chain::Chain) {
    pose.guides.push(Guide {
        name: format!("guide-chain-{}", ch.name),
        points: chain::phase0(ch).into_iter().map(q).collect(),
        closed: false,
    });
}

/// Each segment of a bone tree's Verlet chain as a part on the chain's own
/// layer (`chain <name>`), segment j + 1 inside segment j, from particle j
/// to particle j + 1 of the chain's phase-0 pose ([`chain::phase0`]) in
/// the segment's width and colour; the markers `joint-<chain>-<j>` at
/// particle j and `tip-<chain>-<last>` at the chain's tip.
fn segments(pose: &mut Pose, layer: usize, ch: &chain::Chain) {
    let p = chain::phase0(ch);
    let mut holder = None;
    for j in 0..p.len() - 1 {
        let name = chain::segment_part(&ch.name, j);
        let shapes = vec![line(p[j], p[j + 1], ch.widths[j], &ch.colours[j])];
        marker(pose, format!("joint-{name}"), p[j]);
        if j + 2 == p.len() {
            marker(pose, format!("tip-{name}"), p[j + 1]);
        }
        let k = pose.parts.len();
        push(pose, name, layer, holder, shapes);
        holder = Some(k);
    }
}

fn bones(fig: &Figure) -> Pose {
    // a far chain's layer behind the tree, a near one's over it
    let (far, near): (Vec<&chain::Chain>, Vec<&chain::Chain>) =
        fig.chains.iter().partition(|c| c.far);
    let label = |c: &chain::Chain| format!("chain {}", c.name);
    let mut pose = Pose {
        layers: far
            .iter()
            .map(|c| label(c))
            .chain(["bone tree".to_string()])
            .chain(near.iter().map(|c| label(c)))
            .collect(),
        parts: Vec::new(),
        markers: Vec::new(),
        guides: Vec::new(),
    };
    let tree = far.len();
    let clip = &fig.clips[0];
    let world = fk::world_matrices(fig, &fk::local_angles(fig, clip, 0.0), 0.0);
    let root = fk::root_matrix(&clip.root, 0.0);
    // children follow their parent in drawing order: a depth-first walk
    // (parents precede children in a validated figure, so an explicit stack
    // in reverse bone order visits them in bone order)
    let mut order = Vec::with_capacity(fig.bones.len());
    let mut stack: Vec<usize> = (0..fig.bones.len())
        .rev()
        .filter(|&b| fig.bones[b].parent.is_none())
        .collect();
    while let Some(b) = stack.pop() {
        order.push(b);
        stack.extend(
            (0..fig.bones.len())
                .rev()
                .filter(|&c| fig.bones[c].parent == Some(b)),
        );
    }
    let mut index = vec![0; fig.bones.len()];
    for b in order {
        let bone = &fig.bones[b];
        let m = root * world[b];
        let off = spring::offset(fig, b, 0.0);
        let joint = m.apply(Vec2::ZERO) + off;
        let tip = m.apply(Vec2::new(bone.length, 0.0)) + off;
        let mut shapes = vec![line(joint, tip, bone.width, &bone.stroke)];
        if let Some(r) = bone.head_radius {
            shapes.push(Shape::Circle {
                center: q(tip),
                r: quantize(r, LEN_DECIMALS),
                fill: bone.stroke.clone(),
            });
        }
        index[b] = pose.parts.len();
        let (part, joint_marker, tip_marker) = fig.part_names(b);
        push(&mut pose, part, tree, bone.parent.map(|p| index[p]), shapes);
        marker(&mut pose, joint_marker, joint);
        if let Some(m) = tip_marker {
            marker(&mut pose, m, tip);
        }
    }
    for (layer, ch) in far.iter().chain(&near).enumerate() {
        let layer = if layer < tree { layer } else { layer + 1 };
        segments(&mut pose, layer, ch);
        hair(&mut pose, ch);
    }
    // each moving IK target's path over the first clip (user space: a
    // target is outside the root motion)
    for (i, target) in clip.targets.iter().enumerate() {
        if matches!(target, crate::trajectory::Trajectory::Fixed(_)) {
            continue;
        }
        pose.guides.push(Guide {
            name: format!("guide-target-{}", fig.ik_stem(i)),
            points: (0..GUIDE_SAMPLES)
                .map(|k| q(target.at(k as f64 / GUIDE_SAMPLES as f64)))
                .collect(),
            closed: true,
        });
    }
    if let Some(g) = &fig.ground {
        pose.guides.push(Guide {
            name: "guide-ground".into(),
            points: vec![q(Vec2::new(g.from_x, g.y)), q(Vec2::new(g.to_x, g.y))],
            closed: false,
        });
    }
    pose
}

const INKSCAPE_NS: &str = "http://www.inkscape.org/namespaces/inkscape";
const SODIPODI_NS: &str = "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd";

/// What the `<desc>` tells the illustrator.
fn instructions(rig: &Rig) -> String {
    format!(
        "Drawing template for the rig \"{}\" (bone tree), in its phase-0 pose (t = 0). \
         Draw over each part inside its group: keep the group and its id or label, \
         replace or add shapes inside it. The joint markers are on the hidden layer \
         \"guides\" (show it to trace). \
         Each group is named after its bone (the bones of a named IK chain: thigh-<chain> \
         and shin-<chain>; the segments of a Verlet chain, on its own layer: <chain>-0, \
         <chain>-1, ...); a part may stay inside its parent bone's group or be moved \
         out of it. Keep every part in this pose: each must cover its \
         bone's joint and tip. Then animate it: rigbake bake RIG.json --art THIS.svg -o OUT.svg",
        rig.name,
    )
}

/// The template SVG of a rig: [`phase0`] drawn as Inkscape layers and
/// labelled groups (see the module docs). Deterministic: the same rig
/// gives the same bytes.
pub fn template(rig: &Rig) -> String {
    let pose = phase0(rig);
    let [x, y, w, h] = rig.view_box;
    let mut s = String::new();
    s.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:inkscape=\"{INKSCAPE_NS}\" \
         xmlns:sodipodi=\"{SODIPODI_NS}\" viewBox=\"{} {} {} {}\" width=\"{}\" height=\"{}\">",
        fmt_len(x),
        fmt_len(y),
        fmt_len(w),
        fmt_len(h),
        fmt_len(w),
        fmt_len(h)
    );
    let _ = writeln!(s, "<title>{} (drawing template)</title>", rig.name);
    let _ = writeln!(
        s,
        "<desc>{}</desc>",
        crate::report::check::xml_text(&instructions(rig))
    );
    let _ = writeln!(
        s,
        "<sodipodi:namedview id=\"layer-view\" inkscape:current-layer=\"{}\"/>",
        pose.layers.last().map_or(String::new(), |l| layer_id(l))
    );
    // a part closes once the next part is not inside it
    for (l, label) in pose.layers.iter().enumerate() {
        let _ = writeln!(
            s,
            "<g id=\"{}\" inkscape:groupmode=\"layer\" inkscape:label=\"{label}\">",
            layer_id(label)
        );
        let mut open: Vec<usize> = Vec::new();
        for (k, part) in pose.parts.iter().enumerate().filter(|(_, p)| p.layer == l) {
            while let Some(&top) = open.last() {
                if Some(top) == part.inside {
                    break;
                }
                open.pop();
                let _ = writeln!(s, "{}</g>", "  ".repeat(open.len() + 1));
            }
            let ind = "  ".repeat(open.len() + 1);
            let _ = writeln!(s, "{ind}<g id=\"{0}\" inkscape:label=\"{0}\">", part.name);
            for shape in &part.shapes {
                let _ = writeln!(s, "{ind}  {}", shape_xml(shape));
            }
            open.push(k);
        }
        while open.pop().is_some() {
            let _ = writeln!(s, "{}</g>", "  ".repeat(open.len() + 1));
        }
        s.push_str("</g>\n");
    }
    s.push_str(
        "<g id=\"layer-guides\" inkscape:groupmode=\"layer\" inkscape:label=\"guides\" \
         style=\"display:none\">\n",
    );
    for g in &pose.guides {
        let pts: Vec<String> = g
            .points
            .iter()
            .map(|p| format!("{},{}", fmt_len(p.x), fmt_len(p.y)))
            .collect();
        let _ = writeln!(
            s,
            "  <{0} id=\"{1}\" inkscape:label=\"{1}\" points=\"{2}\" fill=\"none\" \
             stroke=\"#999999\" stroke-width=\"1\" stroke-dasharray=\"4 3\"/>",
            if g.closed { "polygon" } else { "polyline" },
            g.name,
            pts.join(" ")
        );
    }
    for m in &pose.markers {
        let _ = writeln!(
            s,
            "  <circle id=\"{0}\" inkscape:label=\"{0}\" cx=\"{1}\" cy=\"{2}\" r=\"3\" fill=\"{MARKER}\"/>",
            m.name,
            fmt_len(m.at.x),
            fmt_len(m.at.y)
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

/// A layer's id (the name Illustrator shows): `layer-` and its label,
/// spaces as `-` (`leg near` → `layer-leg-near`).
fn layer_id(label: &str) -> String {
    format!("layer-{}", label.replace(' ', "-"))
}

fn shape_xml(shape: &Shape) -> String {
    match shape {
        Shape::Line {
            from,
            to,
            width,
            stroke,
        } => format!(
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{stroke}\" stroke-width=\"{}\" stroke-linecap=\"round\"/>",
            fmt_len(from.x),
            fmt_len(from.y),
            fmt_len(to.x),
            fmt_len(to.y),
            fmt_len(*width)
        ),
        Shape::Circle { center, r, fill } => format!(
            "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{fill}\"/>",
            fmt_len(center.x),
            fmt_len(center.y),
            fmt_len(*r)
        ),
    }
}
