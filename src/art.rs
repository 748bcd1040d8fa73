//! Animate an illustrator's drawing with a baked css clip (`bake --art`).
//!
//! Every rig bakes as a bone tree (a cycling rig, `crank` + `legs`, and an
//! `ik_chains` rig load as the tree they lower into), so every drawing is
//! bound by module `bones`, which names the parts; this module holds what
//! it shares: the parsing, the placement rules, the pose check, marker
//! hiding and the output assembly.
//!
//! # Naming (a cycling rig's drawing)
//!
//! Parts are found by their `id` or their `inkscape:label` (either one; an
//! element that carries both names counts once). A cycling rig's tree
//! answers to the names its drawings have always used (`<leg>` is a leg
//! `name` from the rig): an `ik` entry's bones to `thigh-<leg>` and
//! `shin-<leg>`, its crank and pedal bones to their `parts`.
//!
//! | name | bone | required | moves as |
//! | --- | --- | --- | --- |
//! | `thigh-<leg>` | `<leg>_thigh` | yes | rotates about the hip |
//! | `shin-<leg>` | `<leg>_shin`, inside its `thigh-<leg>` or outside every part | yes | rotates about the knee, carried by the thigh |
//! | `pedal-<leg>` | `<leg>_pedal` | no | orbits the crank without turning |
//! | `crank` | the chainring's crank bone | no | turns about the crank centre |
//! | `crank-<leg>` | `<leg>_crank` | no | turns about the crank centre (that leg's side) |
//! | `joint-hip-<leg>`, `joint-knee-<leg>`, `joint-ankle-<leg>` | `<circle>` (or an `<ellipse>` or `<path>` made of one), anywhere | no | checked only (see below) |
//!
//! A shin outside its thigh (a flat drawing) is nested by rigbake: its
//! wrapper carries the thigh's motion too.
//!
//! The drawing must show every leg in its **phase-0 pose**: the pose of
//! the tree at t = 0 (hip from the rig, knee and ankle from IK), in root
//! user space, shifted by its `depth_offset` — the pose `rigbake template`
//! draws. The joints always come
//! from the rig; joint markers (circles, or the ellipses or paths an
//! editor makes of them: `marker_centre`), where present, are compared
//! with them and the distance is
//! reported ([`MarkerCheck`]), never used; a marker farther than
//! [`POSE_LIMIT_PX`] is refused ([`ArtError::OffPose`]), and so is a part
//! whose shapes do not cover its joints (thigh: hip and knee; shin: knee
//! and ankle; pedal: the axle) within that distance (module `pose`): a far
//! leg drawn as the near leg plus a depth offset never bakes with its foot
//! off the pedal. Markers are hidden in the output (an `opacity="0"`
//! wrapper, so a browser can still measure them).
//!
//! # Method
//!
//! The drawing is parsed with roxmltree only to locate the parts; the output
//! is the original text with new text *inserted* at element boundaries, so
//! every byte of the drawing (elements, attributes, `<defs>`, gradients,
//! text, comments, whitespace) is kept exactly. The one exception is a
//! DOCTYPE's internal subset: rigbake reads it first, writes the drawing's
//! references to its entities out as text and leaves the subset out
//! (module `dtd`), so neither the parser nor the output expands entities.
//!
//! Every part is wrapped into the clip's own chain of groups down to the
//! part's group (one writer for every rig kind, `wrap_part`). For a part
//! with static parent transform `Q` (the product of the `transform`
//! attributes of its ancestors below the root `<svg>`) and phase-0 map `E`
//! (the drawn part, in root user space, is `E` applied to the clip's rest
//! pose of the part's group), inside an enclosing part with phase-0 map `Eₐ`
//! (none: identity, and the chain starts at the clip's root):
//!
//! ```text
//! <g transform="Q⁻¹·Eₐ·S"><g class="…"> … <g class="rb-b-<bone>"> [probe] <g transform="E⁻¹·Q"> PART </g>…</g></g>
//! ```
//!
//! where the class groups are the clip's animated groups below the
//! enclosing part's (animated by the clip's own `@keyframes` from
//! [`crate::emit::css::style`]) and `S` folds the clip's static
//! translations (a leg's `depth_offset`) into the placement
//! before each. A point of the part then ends up at `G(t)·E⁻¹·w` for its
//! drawn position `w`, `G(t)` being the clip's group chain at time t:
//! exactly the clip's motion. How each bone's `E` is found (the clip's
//! groups above it at t = 0, and the pose a reuse plan draws it in) is in
//! module `bones`.
//! The clip's groups with their probes (and nothing the clip draws) follow
//! the drawing as one `<g data-rigbake="skeleton">`, so the browser harness
//! measures the output like any baked file and the file holds every probe
//! of the plain bake once. The `<style>` goes right after the root
//! start tag. Everything rigbake adds carries a `data-rigbake` attribute.
//!
//! # Limits
//!
//! - css route only (SMIL would need the drawing as morphable paths).
//! - Parts inside `<defs>`, `<symbol>`, `<clipPath>`, `<mask>`, `<pattern>`,
//!   `<marker>`, `<text>` or a nested `<svg>` are rejected, as are a root
//!   `<svg>` with a `transform`, a `style` on a part, inside it or above it
//!   that moves what it draws (module `css`: the transform properties,
//!   `offset-*`, and on a shape geometry properties such as `x` or `d`), a
//!   `transform-origin` beside a `transform` attribute there, SMIL that
//!   moves the part, something inside it or above it
//!   (`moving_animations`), and a
//!   drawing whose `<style>` sheet declares a transform or `offset-*`
//!   property: their placement cannot be known from attributes alone.
//! - Non-uniform scales and skews on ancestors are handled (the motion is
//!   computed in root user space), but the drawn shapes then still rotate
//!   rigidly on screen, as the clip does.
//! - A part or marker whose transforms (its own and its ancestors') scale
//!   it by more than 10⁶ or less than 10⁻⁶, or move it by more than 10⁶,
//!   is refused: its placement would be lost to rounding or overflow.
//! - The added CSS pauses every animation of the document under
//!   `prefers-reduced-motion: reduce`, including the drawing's own.
//! - A drawing that already carries `data-rigbake` additions is refused:
//!   bake from the original drawing.
//! - Entity references may expand to no more text than the drawing holds
//!   (at least [`ENTITY_FLOOR`]) and nest at most [`MAX_ENTITY_DEPTH`]
//!   deep; entities holding markup, external and parameter entities are
//!   refused.
//! - The XML parser's work that grows with the square of the attributes of
//!   one element or of the namespaces in scope is counted first (module
//!   `prescan`) and refused beyond [`WORK_PER_BYTE`] per byte of drawing
//!   (at least [`WORK_FLOOR`]).
//! - The `<use>`s of the parts may copy at most [`USE_BUDGET`] elements
//!   and path segments into the pose check, in all (module `pose`).
//! - At most [`MAX_SCOPED_NAMES`] names and references to them are given
//!   the file's prefix (module `names`), counted as they are read: the
//!   drawing is refused where the count runs over, before the rest of its
//!   names are read.
//! - At most [`MAX_NODES`] XML nodes. Work is linear in the drawing's size
//!   (line numbers come from one index of the line breaks) and nothing
//!   walks the tree recursively, so any nesting depth is fine.

use crate::clip::{Clip, Item, Node, Route};
use crate::emit::scope::Scope;
use crate::geom::{Affine, AffineExt, LEN_DECIMALS, Vec2, Vec2Ext, fmt_len, fmt_num};
use crate::rig::Rig;
use crate::valid::{MAX_COORD, shown_to};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::ops::Range;

mod bones;
mod css;
mod dtd;
mod names;
mod pose;
mod prescan;
pub use dtd::{ENTITY_FLOOR, MAX_ENTITY_DEPTH};
pub use names::MAX_SCOPED_NAMES;
pub use pose::{POSE_LIMIT_PX, USE_BUDGET};
pub use prescan::{WORK_FLOOR, WORK_PER_BYTE};

/// Most XML nodes a drawing may hold (roxmltree's `nodes_limit`): about a
/// million elements with the whitespace between them.
pub const MAX_NODES: u32 = 2_000_000;

const SVG_NS: &str = "http://www.w3.org/2000/svg";
const INKSCAPE_NS: &str = "http://www.inkscape.org/namespaces/inkscape";

/// Attribute on everything rigbake inserts.
pub const MARK_ATTR: &str = "data-rigbake";

/// Ancestors a part may not sit in.
const FORBIDDEN_ANCESTORS: &[&str] = &[
    "defs",
    "symbol",
    "clipPath",
    "mask",
    "pattern",
    "marker",
    "text",
    "svg",
    "linearGradient",
    "radialGradient",
    "filter",
    "foreignObject",
    "switch",
];

/// Elements that can be an animated part.
const DRAWABLE: &[&str] = &[
    "g", "a", "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use", "image",
    "text",
];

/// Everything that can be wrong with a drawing (or its fit to the rig).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ArtError {
    /// The drawing is not well-formed XML.
    #[error("not well-formed XML: {0}")]
    Xml(String),
    /// The drawing holds more XML nodes than [`MAX_NODES`].
    #[error(
        "more than {MAX_NODES} XML nodes (elements, text runs, comments): simplify the drawing or bake a part of it"
    )]
    TooManyNodes,
    /// Attributes or namespace declarations the XML parser would spend
    /// more than linear time on (see the module's limits).
    #[error("line {line}: {why}")]
    ParserWork { line: u32, why: String },
    /// An entity of the DOCTYPE rigbake will not expand (see the module's limits).
    #[error("line {line}: {why}")]
    Entity { line: u32, why: String },
    /// The root element is not an SVG `<svg>`, or the default namespace
    /// where rigbake inserts elements is not SVG's.
    #[error("{0}")]
    NotSvg(String),
    /// The drawing already holds rigbake's additions.
    #[error(
        "line {line}: already animated by rigbake (data-rigbake): bake from the original drawing"
    )]
    AlreadyBaked { line: u32 },
    /// Only the css route can animate a drawing.
    #[error("--art works on the css route only (smil would need the drawing as morphable paths)")]
    Route,
    /// The baked clip lacks a group or probe the drawing is matched to.
    #[error("the baked clip does not fit --art: {0}")]
    Clip(String),
    /// A rig kind `--art` cannot animate.
    #[error("{0}")]
    Kind(String),
    /// A bone of the rig has no part in the drawing.
    #[error(
        "no element with id or inkscape:label {what} (to leave the bone undrawn, keep its part with a shape that draws nothing, such as the template's line with stroke=\"none\")"
    )]
    MissingBone { what: String },
    /// A part (or a joint marker) drawn away from the rig's phase-0 pose.
    #[error(
        "line {line}: \"{part}\" is {} px from the rig's phase-0 {joint} ({}, {}), more than {} px: draw every part in the rig's own phase-0 pose (`rigbake template RIG` draws it, with the `--clip` of the bake; a far limb is not the near limb moved by a depth offset)",
        shown_to(*offset_px, 2), shown_to(at.x, LEN_DECIMALS), shown_to(at.y, LEN_DECIMALS), fmt_num(POSE_LIMIT_PX, 2)
    )]
    OffPose {
        line: u32,
        part: String,
        joint: String,
        offset_px: f64,
        at: Vec2,
    },
    /// A part without a shape whose place rigbake can read.
    #[error(
        "line {line}: \"{part}\" has no shape rigbake can check against the rig's pose (path, line, polyline, polygon, rect, circle, ellipse, or a <use> of them)"
    )]
    NoShape { line: u32, part: String },
    /// Two elements carry the same part name.
    #[error(
        "\"{part}\" marks two elements (lines {first} and {second}); a part is one element: rename or delete one (an editor's duplicate keeps the label)"
    )]
    Duplicate {
        part: String,
        first: u32,
        second: u32,
    },
    /// Two elements draw one bone, under its name and its `ik` entry's
    /// (`near_thigh` and `thigh-near`).
    #[error(
        "bone \"{bone}\" is drawn twice: \"{a}\" (line {first}) and \"{b}\" (line {second}); keep one"
    )]
    TwoNames {
        bone: String,
        a: String,
        first: u32,
        b: String,
        second: u32,
    },
    /// One element carries two different part names.
    #[error("line {line}: one element is both \"{a}\" and \"{b}\"")]
    TwoRoles { line: u32, a: String, b: String },
    /// An animated part inside another animated part it must not move with.
    #[error("line {line}: \"{part}\" must not be inside \"{outer}\"{why}")]
    Nested {
        line: u32,
        part: String,
        outer: String,
        /// Why not, when the names alone do not say: `" (…)"` or empty.
        why: String,
    },
    /// A `data-probe` of the drawing named like a probe rigbake writes into
    /// the same file (a browser or a tool measuring the file would find
    /// two).
    #[error(
        "line {line}: data-probe \"{name}\" is the name of a probe rigbake writes into this file; rename the drawing's own probe"
    )]
    ProbeName { line: u32, name: String },
    /// Something of the drawing whose names cannot be made the file's own
    /// (module `names`): what it is and what to do.
    #[error(
        "line {line}: the drawing's {what}: rigbake gives the drawing's ids, classes and @keyframes names the file's prefix (so that several files can share a page) and cannot rewrite this to follow them; {fix}"
    )]
    Unscopable {
        line: u32,
        what: String,
        fix: String,
    },
    /// More names to give the file's prefix than
    /// [`MAX_SCOPED_NAMES`] (module `names`): each is an edit held
    /// in memory and a copy of the prefix written.
    #[error(
        "line {line}: the drawing holds more than {max} ids, classes, names and references to them, each of which rigbake gives the file's prefix; use fewer classes and ids",
        max = names::MAX_SCOPED_NAMES
    )]
    TooManyNames { line: u32 },
    /// A `<style>` sheet of the drawing that moves or reshapes drawn
    /// geometry (module `css`), which placing parts by their `transform`
    /// attributes cannot see.
    #[error(
        "line {line}: the drawing's <style> sets `{property}`, which moves what it draws where rigbake cannot follow; place parts with transform attributes and leave geometry out of the style sheet"
    )]
    MovingSheet { line: u32, property: String },
    /// A part the method cannot place (see the module's limits).
    #[error("line {line}: \"{part}\": {why}")]
    Unsupported {
        line: u32,
        part: String,
        why: String,
    },
}

/// Which joint a marker circle marks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Joint {
    Hip,
    Knee,
    Ankle,
    /// A bone's joint (where it turns), `joint-<bone>`.
    Bone,
    /// A bone's tip, `tip-<bone>`.
    Tip,
}

impl Joint {
    pub fn as_str(self) -> &'static str {
        match self {
            Joint::Hip => "hip",
            Joint::Knee => "knee",
            Joint::Ankle => "ankle",
            Joint::Bone => "joint",
            Joint::Tip => "tip",
        }
    }
}

/// A joint marker of the drawing compared with the rig's phase-0 pose.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkerCheck {
    /// The marker's part name, e.g. `joint-knee-near`.
    pub part: String,
    /// The leg (or bone) it belongs to.
    pub leg: String,
    pub joint: Joint,
    /// Marker centre in root user space (through every ancestor transform).
    pub art: Vec2,
    /// The joint from the rig: two-bone IK at t = 0, plus `depth_offset`.
    pub rig: Vec2,
    /// `|art − rig|`, px.
    pub mismatch_px: f64,
}

/// The animated drawing.
#[derive(Debug, Clone, PartialEq)]
pub struct Animated {
    /// The drawing's text with rigbake's additions inserted.
    pub svg: String,
    /// Joint markers found, sorted by leg order in the rig, then joint.
    pub markers: Vec<MarkerCheck>,
    /// What the bake's report should add: elements named after something
    /// the drawing does not animate (a Verlet chain as a whole, whose
    /// segments are its parts; the ground).
    pub notes: Vec<String>,
}

/// Notes on the elements of `doc` named (by `id` or `inkscape:label`)
/// after one of `still`, with why the element stays still: a Verlet chain
/// (whose segments a drawing names instead) or the ground, which the clip
/// animates but a drawing cannot follow as a whole, so what it draws stays
/// still (its probes move).
fn still_named(
    doc: &roxmltree::Document,
    lines: &LineIndex,
    still: &[(&str, String)],
) -> Vec<String> {
    let mut notes = Vec::new();
    for node in doc.descendants().filter(|n| n.is_element()) {
        let names = names_of(node);
        if let Some((name, why)) = still
            .iter()
            .find(|(n, _)| names.iter().flatten().any(|x| x == n))
        {
            notes.push(format!(
                "--art: line {}: {:?} is named after {why}",
                lines.row(node.range().start),
                crate::input::escaped(name)
            ));
        }
    }
    notes
}

/// One named part found in the drawing.
#[derive(Debug, Clone)]
struct Found {
    node: roxmltree::NodeId,
    range: Range<usize>,
    line: u32,
    /// Whether the element carries an `id` (a part named by its
    /// `inkscape:label` alone may not).
    has_id: bool,
}

/// Animate `art` (the drawing's text) with the css clip baked from `rig`.
///
/// Fails, without producing anything, on malformed XML, missing or
/// duplicated parts, a shin outside its thigh, parts the method cannot place
/// (see the module docs) or a clip of another route or shape.
pub fn animate(art: &str, rig: &Rig, clip: &Clip) -> Result<Animated, ArtError> {
    if clip.route != Route::Css {
        return Err(ArtError::Route);
    }
    // The internal subset is resolved here, so the parser expands nothing.
    let (resolved, has_doctype) = dtd::resolve(art)?;
    let art: &str = &resolved;
    prescan::check(art)?;
    let opts = roxmltree::ParsingOptions {
        allow_dtd: has_doctype,
        nodes_limit: MAX_NODES,
        ..roxmltree::ParsingOptions::default()
    };
    let doc = roxmltree::Document::parse_with_options(art, opts).map_err(|e| match e {
        roxmltree::Error::NodesLimitReached => ArtError::TooManyNodes,
        e => ArtError::Xml(e.to_string()),
    })?;
    let lines = LineIndex::new(art);
    let line = |pos: usize| lines.row(pos);
    let root = doc.root_element();
    if root.tag_name().name() != "svg" || root.tag_name().namespace() != Some(SVG_NS) {
        return Err(ArtError::NotSvg(format!(
            "the root element must be <svg> in the SVG namespace ({SVG_NS})"
        )));
    }
    if root.attribute("transform").is_some() {
        return Err(ArtError::NotSvg(
            "a transform on the root <svg> is not supported: move it onto a group inside".into(),
        ));
    }
    if let Some(n) = doc
        .descendants()
        .find(|n| n.is_element() && n.attributes().any(|a| a.name() == MARK_ATTR))
    {
        return Err(ArtError::AlreadyBaked {
            line: line(n.range().start),
        });
    }
    let written = crate::measure::probes_at(clip, 0.0);
    if let Some((n, name)) = doc.descendants().find_map(|n| {
        let name = n.attribute("data-probe")?;
        written.contains_key(name).then_some((n, name))
    }) {
        return Err(ArtError::ProbeName {
            line: line(n.range().start),
            name: name.to_string(),
        });
    }
    // what moves in the sheets is refused here, what else they hold when
    // the names are given the prefix
    let sheets = names::Sheets::read(&doc, &lines)?;
    bones::animate((art, &doc, &lines, &sheets), rig, &rig.figure, clip)
}

/// A drawing's text, as parsed, its line index and its sheets as first
/// read.
type Drawing<'a, 'input> = (
    &'a str,
    &'a roxmltree::Document<'input>,
    &'a LineIndex<'a>,
    &'a names::Sheets,
);

/// The names of the output of `art` (parsed as `doc`) animated by `clip`:
/// the rig's `prefix`, else scoped by the drawing and the clip's own style
/// sheet, which together decide the output; and the edits that give the
/// drawing's own names that scope's stem (module `names`: `<prefix>_…`,
/// which no name rigbake writes begins with, so a drawing's name can
/// neither repeat an id of the file's own nor take the file's rules).
fn output_scope(
    (art, doc, lines, sheets): Drawing,
    rig: &Rig,
    clip: &Clip,
) -> Result<(Scope, Vec<Insert>), ArtError> {
    let sc = match &rig.prefix {
        Some(p) => Scope::with_prefix(p),
        None => Scope::from_pieces(&[art, "\n", &crate::emit::css::style(clip, &Scope::local())]),
    };
    let edits = names::scoped(art, doc, lines, &sc, sheets)?;
    Ok((sc, edits))
}

/// The named elements of a drawing: parts by name, with their role.
struct FoundParts<R> {
    parts: BTreeMap<String, (Found, R)>,
}

/// The names an element may carry a part's name in: its `id` and its
/// `inkscape:label`.
fn names_of<'a>(node: roxmltree::Node<'a, '_>) -> [Option<&'a str>; 2] {
    [node.attribute("id"), node.attribute((INKSCAPE_NS, "label"))]
}

/// Every element whose `id` or `inkscape:label` `name_of` recognises (an
/// element carrying both names counts once): one walk of the document for
/// every rig kind. An element with two different names, or a part name on
/// two elements, is refused.
fn find_parts<R: Copy + PartialEq>(
    doc: &roxmltree::Document,
    lines: &LineIndex,
    name_of: impl Fn(&str) -> Option<R>,
) -> Result<FoundParts<R>, ArtError> {
    let mut out = FoundParts {
        parts: BTreeMap::new(),
    };
    for node in doc.descendants().filter(|n| n.is_element()) {
        let mut names: Vec<(&str, R)> = Vec::new();
        for name in names_of(node).into_iter().flatten() {
            if names.iter().all(|(n, _)| *n != name)
                && let Some(named) = name_of(name)
            {
                names.push((name, named));
            }
        }
        if names.is_empty() {
            continue;
        }
        let here = lines.row(node.range().start);
        if let [(a, _), (b, _), ..] = names[..] {
            return Err(ArtError::TwoRoles {
                line: here,
                a: a.into(),
                b: b.into(),
            });
        }
        let Some((name, role)) = names.pop() else {
            continue;
        };
        if let Some((prev, _)) = out.parts.get(name) {
            return Err(ArtError::Duplicate {
                part: name.to_string(),
                first: prev.line,
                second: here,
            });
        }
        let f = Found {
            node: node.id(),
            range: node.range(),
            line: here,
            has_id: node.attribute("id").is_some(),
        };
        out.parts.insert(name.to_string(), (f, role));
    }
    Ok(out)
}

/// The clip's groups and probes, without anything it draws and without the
/// probes named in `written` (placed in the drawing's own wraps), nor the
/// groups left with no probe, as the last child of the output (none if no
/// probe is left): so the file holds every probe of the plain bake once.
fn skeleton_text(
    clip: &Clip,
    sc: &Scope,
    written: &std::collections::HashSet<String>,
) -> Option<String> {
    fn strip(n: &Node, written: &std::collections::HashSet<String>) -> Node {
        Node {
            children: n
                .children
                .iter()
                .filter_map(|c| match c {
                    Item::Group(g) => {
                        let g = strip(g, written);
                        (!g.children.is_empty()).then_some(Item::Group(g))
                    }
                    Item::Probe { name, .. } => (!written.contains(name)).then(|| c.clone()),
                    _ => None,
                })
                .collect(),
            ..n.clone()
        }
    }
    let root = strip(&clip.root, written);
    if root.children.is_empty() {
        return None;
    }
    let text = crate::emit::group_text(clip, &root, sc);
    Some(format!("<g {MARK_ATTR}=\"skeleton\">{text}</g>"))
}

/// The drawing with `inserts`, the clip's style sheet `css` right after the
/// root start tag and `last` (if any) right before the root end tag.
fn finish(
    art: &str,
    root: roxmltree::Node,
    mut inserts: Vec<Insert>,
    (clip, css): (&Clip, &str),
    last: Option<String>,
) -> Result<String, ArtError> {
    let body = if css.contains('<') || css.contains('&') {
        format!("<![CDATA[{css}]]>")
    } else {
        css.to_string()
    };
    let at = start_tag_end(art, root.range().start)
        .ok_or_else(|| ArtError::Xml("cannot find the end of the root <svg> start tag".into()))?;
    if art[..at].ends_with("/>") {
        return Err(ArtError::NotSvg("the root <svg> is empty".into()));
    }
    // the root says what every file's root says of its clip
    let mut metadata = String::new();
    for (name, value) in crate::emit::root_metadata(clip) {
        if root.has_attribute(name) {
            return Err(ArtError::NotSvg(format!(
                "the root <svg> has its own {name}; rigbake writes the baked file's there: take it out"
            )));
        }
        let _ = write!(metadata, " {name}=\"{value}\"");
    }
    inserts.push(Insert {
        pos: at - 1,
        end: at - 1,
        closing: false,
        order: 0,
        text: metadata,
    });
    inserts.push(Insert {
        pos: at,
        end: at,
        closing: false,
        order: 0,
        text: format!("<style {MARK_ATTR}=\"style\">{body}</style>"),
    });
    if let Some(text) = last {
        let end = root.range().end;
        let pos = art[..end]
            .rfind("</")
            .ok_or_else(|| ArtError::Xml("cannot find the root </svg> end tag".into()))?;
        inserts.push(Insert {
            pos,
            end: pos,
            closing: true,
            order: 2,
            text,
        });
    }
    inserts.sort_by(|a, b| {
        a.pos
            .cmp(&b.pos)
            .then(b.closing.cmp(&a.closing))
            .then(a.order.cmp(&b.order))
    });
    let mut out =
        String::with_capacity(art.len() + inserts.iter().map(|i| i.text.len()).sum::<usize>());
    let mut last = 0;
    for ins in &inserts {
        debug_assert!(last <= ins.pos, "replacements overlap nothing");
        out.push_str(&art[last..ins.pos]);
        out.push_str(&ins.text);
        last = ins.end;
    }
    out.push_str(&art[last..]);
    Ok(out)
}

/// Where a joint marker's centre is in root user space (`parent`: its
/// parent's map to root user space).
fn marker_at(
    node: roxmltree::Node,
    f: &Found,
    name: &str,
    parent: Affine,
) -> Result<Vec2, ArtError> {
    let centre = marker_centre(&node).map_err(|why| ArtError::Unsupported {
        line: f.line,
        part: name.into(),
        why,
    })?;
    Ok((parent * own_transform(node, f, name)?).apply(centre))
}

/// A marker at `at` against the rig's joint `rig`: refused beyond
/// [`POSE_LIMIT_PX`], else reported.
fn check_marker(
    name: String,
    leg: &str,
    joint: Joint,
    at: Vec2,
    rig: Vec2,
    f: &Found,
) -> Result<MarkerCheck, ArtError> {
    let mismatch_px = at.dist(rig);
    // (NaN too: a marker whose place overflowed is nowhere near the joint)
    if mismatch_px.is_nan() || mismatch_px > POSE_LIMIT_PX {
        return Err(ArtError::OffPose {
            line: f.line,
            part: name,
            joint: joint.as_str().into(),
            offset_px: mismatch_px,
            at: rig,
        });
    }
    Ok(MarkerCheck {
        part: name,
        leg: leg.into(),
        joint,
        art: at,
        rig,
        mismatch_px,
    })
}

/// Hide a joint marker in the output (still measurable: `opacity`, not
/// `display`).
fn hide(inserts: &mut Vec<Insert>, f: &Found) {
    let mut w = Wrapper::default();
    w.group(format!("{MARK_ATTR}=\"hidden\" opacity=\"0\""));
    w.around(inserts, f);
}

/// Hide the template's guides (elements whose `id` starts `guide-`: a
/// pedal's circle, a chain's or target's path, the ground line), as the
/// joint markers are: drawn on the `guides` layer to trace over, they stay
/// out of the output even where the layer was left showing.
fn hide_guides(doc: &roxmltree::Document, inserts: &mut Vec<Insert>) {
    for node in doc
        .descendants()
        .filter(|n| n.is_element() && n.attribute("id").is_some_and(|id| id.starts_with("guide-")))
    {
        let f = Found {
            node: node.id(),
            range: node.range(),
            line: 0,
            has_id: true,
        };
        hide(inserts, &f);
    }
}

/// An element's own `transform` attribute (identity without one).
fn own_transform(node: roxmltree::Node, f: &Found, name: &str) -> Result<Affine, ArtError> {
    match node.attribute("transform") {
        Some(t) => parse_transform(t).map_err(|why| ArtError::Unsupported {
            line: f.line,
            part: name.into(),
            why: format!("transform=\"{t}\": {why}"),
        }),
        None => Ok(Affine::IDENTITY),
    }
}

/// The product of the `transform` attributes of `node`'s ancestors below
/// the root: root user space ← the parent's coordinates.
fn ctm_of_parent(
    root: roxmltree::Node,
    node: roxmltree::Node,
    name: &str,
    lines: &LineIndex,
) -> Result<Affine, ArtError> {
    let mut chain: Vec<roxmltree::Node> = node
        .ancestors()
        .skip(1)
        .filter(|a| a.is_element() && *a != root)
        .collect();
    chain.reverse();
    let mut m = Affine::IDENTITY;
    for a in chain {
        if let Some(t) = a.attribute("transform") {
            let parsed = parse_transform(t).map_err(|why| ArtError::Unsupported {
                line: lines.row(a.range().start),
                part: name.into(),
                why: format!("transform=\"{t}\" of an ancestor: {why}"),
            })?;
            m *= parsed;
        }
    }
    // the element's own transform is read where it is used; its place in
    // root user space is checked here, once for every part and marker
    let own = node
        .attribute("transform")
        .and_then(|t| parse_transform(t).ok())
        .unwrap_or(Affine::IDENTITY);
    for map in [m, m * own] {
        if let Some(why) = out_of_bounds(map) {
            return Err(ArtError::Unsupported {
                line: lines.row(node.range().start),
                part: name.into(),
                why,
            });
        }
    }
    Ok(m)
}

/// What is wrong with `m`, a part's map to the drawing's root user space,
/// if it scales by more than [`MAX_COORD`] or less than its inverse, or
/// moves by more than [`MAX_COORD`] (beyond any coordinate a rig holds:
/// the placement computed from it would be lost to rounding or overflow).
fn out_of_bounds(m: Affine) -> Option<String> {
    let [a, b, c, d, e, f] = m.as_coeffs();
    let scale = a.abs().max(b.abs()).max(c.abs()).max(d.abs());
    let shift = e.abs().max(f.abs());
    let bounded = |x: f64| x.is_finite() && x <= MAX_COORD;
    if !bounded(scale) || scale < 1.0 / MAX_COORD {
        Some(format!(
            "its transforms (its own and its ancestors') scale it by {}: from 1e-6 to 1e6 only",
            crate::valid::shown(scale)
        ))
    } else if !bounded(shift) {
        Some(format!(
            "its transforms (its own and its ancestors') move it by {}: at most ±{MAX_COORD}",
            crate::valid::shown(shift)
        ))
    } else {
        None
    }
}

/// The drawing's SMIL animations that move what they animate, by the node
/// of the element each animates (the one its `href` names, else its
/// parent): `<animateTransform>`, `<animateMotion>`, and `<animate>` or
/// `<set>` of a property that moves what any element draws
/// ([`css::MOVING`]) or, on a shape, of its geometry
/// ([`css::SMIL_GEOMETRY`]). Each with its element's name and start.
fn moving_animations<'a>(
    doc: &'a roxmltree::Document,
) -> HashMap<roxmltree::NodeId, (String, usize)> {
    const XLINK: &str = "http://www.w3.org/1999/xlink";
    let href =
        |a: &roxmltree::Node<'a, '_>| a.attribute("href").or_else(|| a.attribute((XLINK, "href")));
    let animations: Vec<roxmltree::Node> = doc
        .descendants()
        .filter(|a| {
            a.is_element()
                && a.tag_name().namespace() == Some(SVG_NS)
                && ["animate", "set", "animateTransform", "animateMotion"]
                    .contains(&a.tag_name().name())
        })
        .collect();
    // the elements of the ids the animations name (the last of each), not
    // a map of every id in the drawing
    let named: HashSet<&str> = animations
        .iter()
        .filter_map(|a| href(a)?.trim().strip_prefix('#'))
        .collect();
    let ids: HashMap<&str, roxmltree::Node> = if named.is_empty() {
        HashMap::new()
    } else {
        doc.descendants()
            .filter_map(|n| Some((n.attribute("id").filter(|id| named.contains(id))?, n)))
            .collect()
    };
    let mut out = HashMap::new();
    for a in animations {
        let tag = a.tag_name().name();
        let href = href(&a);
        let target = match href {
            Some(h) => h
                .trim()
                .strip_prefix('#')
                .and_then(|id| ids.get(id).copied()),
            None => a.parent_element(),
        };
        let Some(target) = target else { continue };
        let shape = !matches!(target.tag_name().name(), "g" | "a" | "svg");
        let moves = match tag {
            "animateTransform" | "animateMotion" => true,
            _ => a.attribute("attributeName").is_some_and(|n| {
                let n = n.trim().to_ascii_lowercase();
                css::MOVING.contains(&n.as_str())
                    || (shape && css::SMIL_GEOMETRY.contains(&n.as_str()))
            }),
        };
        if moves {
            out.entry(target.id())
                .or_insert_with(|| (tag.to_string(), a.range().start));
        }
    }
    out
}

/// Where a part (or marker) may sit and what it may be (see the module's
/// limits); `smil` is the drawing's [`moving_animations`].
fn check_place(
    root: roxmltree::Node,
    node: roxmltree::Node,
    (name, line, marker): (&str, u32, bool),
    lines: &LineIndex,
    smil: &HashMap<roxmltree::NodeId, (String, usize)>,
) -> Result<(), ArtError> {
    for anc in node.ancestors().skip(1) {
        if anc == root || !anc.is_element() {
            continue;
        }
        let tag = anc.tag_name().name();
        if FORBIDDEN_ANCESTORS.contains(&tag) {
            let fix = match tag {
                "switch" => {
                    "; move the drawing out of it (an export that keeps editing data wraps the drawing in one)"
                }
                "defs" | "symbol" => "; draw the part itself, not a definition a <use> shows",
                _ => "; move the part out of it",
            };
            return Err(ArtError::Unsupported {
                line,
                part: name.into(),
                why: format!(
                    "parts cannot be inside <{tag}> (line {}){fix}",
                    lines.row(anc.range().start)
                ),
            });
        }
    }
    // what moves the part other than `transform` attributes: a moving
    // style on it, inside it, or above it (the root's too), and an origin
    // for a `transform` attribute
    let above = node.ancestors().skip(1).filter(|a| a.is_element());
    for (el, whose) in node
        .descendants()
        .filter(|d| d.is_element())
        .map(|d| {
            (
                d,
                if d == node {
                    "it"
                } else {
                    "an element inside it"
                },
            )
        })
        .chain(above.map(|a| (a, "an ancestor")))
    {
        let shape = !matches!(el.tag_name().name(), "g" | "a" | "svg");
        let in_style = el
            .attribute("style")
            .and_then(|s| css::moving_in_declarations(s, shape))
            .map(|p| (p, "in its style"));
        let origin = (el.has_attribute("transform-origin") && el.has_attribute("transform"))
            .then(|| ("transform-origin".to_string(), "as an attribute"));
        if let Some((tag, at)) = smil.get(&el.id()) {
            let (row, at) = (lines.row(el.range().start), lines.row(*at));
            return Err(ArtError::Unsupported {
                line,
                part: name.into(),
                why: format!(
                    "{whose} (line {row}) is moved by the drawing's <{tag}> (line {at}), which rigbake cannot follow; leave parts, what they hold and what holds them unanimated"
                ),
            });
        }
        if let Some((property, how)) = in_style.or(origin) {
            let row = lines.row(el.range().start);
            return Err(ArtError::Unsupported {
                line,
                part: name.into(),
                why: format!(
                    "{whose} (line {row}) sets `{property}` {how}, which moves what it draws where rigbake cannot follow; use the transform attribute"
                ),
            });
        }
    }
    let tag = node.tag_name().name();
    if marker {
        if !MARKER_TAGS.contains(&tag) {
            return Err(ArtError::Unsupported {
                line,
                part: name.into(),
                why: format!(
                    "a joint marker must be a <circle> (or the <ellipse> or <path> an editor makes of one), found <{tag}>"
                ),
            });
        }
    } else {
        if !DRAWABLE.contains(&tag) || node.tag_name().namespace() != Some(SVG_NS) {
            return Err(ArtError::Unsupported {
                line,
                part: name.into(),
                why: format!("<{tag}> cannot be animated; mark a group or a shape"),
            });
        }
        if node.lookup_namespace_uri(None) != Some(SVG_NS) {
            return Err(ArtError::NotSvg(format!(
                "line {line}: the default namespace at \"{name}\" is not SVG's; rigbake inserts unprefixed <g> elements"
            )));
        }
    }
    Ok(())
}

/// The texts of an element's children joined (a `<style>`'s sheet),
/// borrowed when there is one: a sheet as large as the drawing is not
/// copied.
fn joined<'a>(mut texts: impl Iterator<Item = &'a str>) -> std::borrow::Cow<'a, str> {
    let Some(first) = texts.next() else {
        return std::borrow::Cow::Borrowed("");
    };
    match texts.next() {
        None => std::borrow::Cow::Borrowed(first),
        Some(second) => {
            let mut all = String::from(first);
            all.push_str(second);
            all.extend(texts);
            std::borrow::Cow::Owned(all)
        }
    }
}

/// Line numbers of byte positions, as roxmltree counts them (`\n` only):
/// the newlines before each block of [`LINE_BLOCK`] bytes are counted once,
/// and a question scans only the block it falls in. The index is one
/// number per block, so it does not grow with the drawing's lines (one per
/// newline took 8 bytes per line: 240 MB for a drawing of 30 million
/// blank lines, within the input limit).
struct LineIndex<'a> {
    text: &'a [u8],
    /// `before[k]`: the newlines in the first `k * LINE_BLOCK` bytes.
    before: Vec<u32>,
}

/// Bytes of the drawing per entry of a [`LineIndex`].
const LINE_BLOCK: usize = 1024;

/// The newlines in `bytes`.
fn newlines_in(bytes: &[u8]) -> u32 {
    let n = bytes.iter().filter(|&&b| b == b'\n').count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl<'a> LineIndex<'a> {
    fn new(text: &'a str) -> Self {
        let text = text.as_bytes();
        let mut before = Vec::with_capacity(text.len() / LINE_BLOCK + 1);
        let mut n: u32 = 0;
        before.push(n);
        for block in text.chunks_exact(LINE_BLOCK) {
            n = n.saturating_add(newlines_in(block));
            before.push(n);
        }
        LineIndex { text, before }
    }

    /// The line (from 1) of byte `pos` (the end of the text at most).
    fn row(&self, pos: usize) -> u32 {
        let pos = pos.min(self.text.len());
        let k = pos / LINE_BLOCK;
        let scanned = newlines_in(&self.text[k * LINE_BLOCK..pos]);
        self.before[k].saturating_add(scanned).saturating_add(1)
    }
}

/// Text to insert at a byte position of the drawing (or to write instead
/// of the drawing's text from there to `end`).
struct Insert {
    pos: usize,
    /// Where the drawing's text goes on: `pos` for an insertion.
    end: usize,
    /// Closing tags go before opening tags at the same position.
    closing: bool,
    /// Then lower `order` first (the style before a part's wrapper).
    order: u8,
    text: String,
}

impl Insert {
    /// `text` inserted at `pos` (module `names`).
    fn at(pos: usize, text: String) -> Insert {
        Insert {
            pos,
            end: pos,
            closing: false,
            order: 0,
            text,
        }
    }

    /// `text` instead of the drawing's text in `range` (module `names`).
    fn replace(range: Range<usize>, text: String) -> Insert {
        Insert {
            pos: range.start,
            end: range.end,
            closing: false,
            order: 0,
            text,
        }
    }
}

fn singular(f: &Found, part: &str) -> ArtError {
    ArtError::Unsupported {
        line: f.line,
        part: part.into(),
        why: "its ancestors' transforms cannot be undone (a zero scale, or one so large the product is not finite)".into(),
    }
}

/// Groups opened before a part and closed after it, outermost first: the
/// one writer of part wrappers for every rig kind.
#[derive(Default)]
struct Wrapper {
    open: String,
    closers: usize,
}

/// The ids of one output's wrapper groups: `<prefix>-nw<k>`, k counting
/// from 0 in the order they are written ([`Scope::id_stem`] then `w`, so
/// they are no id the clip's own groups carry, and the style sheet's
/// `transform-box` rule reaches them).
///
/// Every placement and animated wrapper carries one (a plain bake pins
/// fewer groups, see the module docs of [`crate::emit`]): an optimiser
/// (svgo's default preset) moves a group's
/// `transform` into its child, or merges a group into its only child,
/// only where the elements carry no id.
struct WrapIds<'a> {
    sc: &'a Scope,
    next: std::cell::Cell<usize>,
}

impl<'a> WrapIds<'a> {
    fn new(sc: &'a Scope) -> Self {
        WrapIds {
            sc,
            next: std::cell::Cell::new(0),
        }
    }

    fn take(&self) -> String {
        let k = self.next.get();
        self.next.set(k + 1);
        format!("{}w{k}", self.sc.id_stem())
    }
}

impl Wrapper {
    /// A static placement group for `m`, left out when `m` is the identity.
    fn place(&mut self, ids: &WrapIds, m: Affine) {
        if !is_identity(m) {
            self.place_always(ids, m);
        }
    }

    /// A static placement group for `m`, the identity too (then with no
    /// transform).
    fn place_always(&mut self, ids: &WrapIds, m: Affine) {
        if is_identity(m) {
            self.group(format!("{MARK_ATTR}=\"place\" id=\"{}\"", ids.take()));
        } else {
            self.group(format!(
                "{MARK_ATTR}=\"place\" id=\"{}\" transform=\"{}\"",
                ids.take(),
                fmt_affine(m)
            ));
        }
    }

    /// The group animated by the clip's rules for `class`, marked `part`.
    fn animated(&mut self, ids: &WrapIds, part: &str, class: &str) {
        self.group(format!(
            "{MARK_ATTR}=\"{part}\" id=\"{}\" class=\"{}\"",
            ids.take(),
            ids.sc.classes(class)
        ));
    }

    /// A `<g>` with these attributes.
    fn group(&mut self, attrs: String) {
        let _ = write!(self.open, "<g {attrs}>");
        self.closers += 1;
    }

    /// Open the groups before the part found at `f` and close them after it.
    fn around(self, inserts: &mut Vec<Insert>, f: &Found) {
        inserts.push(Insert {
            pos: f.range.start,
            end: f.range.start,
            closing: false,
            order: 1,
            text: self.open,
        });
        inserts.push(Insert {
            pos: f.range.end,
            end: f.range.end,
            closing: true,
            order: 1,
            text: "</g>".repeat(self.closers),
        });
    }
}

/// How one part is wrapped into the clip's groups.
struct PartWrap<'a> {
    /// The clip's groups from its root down to the part's own group.
    path: &'a [&'a Node],
    /// How many of them the wrapper of an enclosing part already applies.
    from: usize,
    /// That enclosing part's phase-0 map (the identity when none): its
    /// drawing in root user space is this map of the clip's pose; the
    /// inverse of its `rest`.
    outer: Affine,
    /// Root user space (the part as drawn) → the clip's coordinates of the
    /// part's own group, where the clip draws the part's bone or leg: the
    /// inverse of its phase-0 map (module `bones`: the bone's drawn frame
    /// after the inverse of its phase-0 pose).
    rest: Affine,
    /// The part's parent → root user space (static transforms).
    parent: Affine,
    /// A probe circle placed in the part's animated group.
    probe: Option<(String, Vec2)>,
}

/// Wrap a part into the clip's groups below the enclosing part:
///
/// ```text
/// <g transform="Q⁻¹·outer·S₁"><g class=…> … <g class=…>[probe]<g transform="rest·Q">PART</g>…</g></g>
/// ```
///
/// with the static translations `S` of the clip's groups folded into the
/// placement before each animated group and identity placements left out.
/// The one writer of part wrappers for every rig kind.
fn wrap_part(
    ids: &WrapIds,
    inserts: &mut Vec<Insert>,
    f: &Found,
    part: &str,
    p: PartWrap,
) -> Result<(), ArtError> {
    let q_inv = p
        .parent
        .checked_inverse()
        .ok_or_else(|| singular(f, part))?;
    let mut w = Wrapper::default();
    let mut s = q_inv * p.outer;
    for n in &p.path[p.from..] {
        if n.translate != Vec2::ZERO {
            s *= Affine::translate(n.translate);
        }
        if let (Some(class), Some(_)) = (&n.class, &n.anim) {
            w.place(ids, s);
            w.animated(ids, part, class);
            s = Affine::IDENTITY;
        }
    }
    if let Some((name, at)) = p.probe {
        let _ = write!(
            w.open,
            "<circle {MARK_ATTR}=\"probe\" data-probe=\"{name}\" cx=\"{}\" cy=\"{}\"/>",
            fmt_len(at.x),
            fmt_len(at.y)
        );
    }
    // A part without an id gets its placement group even where that is the
    // identity: svgo's collapseGroups moves a lone group's attributes onto
    // its only child when the child has no id, which would put the
    // animated group's class (its rotation and origin) onto the part,
    // outside the part's own transform. The placement group's id moves
    // onto the part instead, which keeps the animated group.
    let m = s * p.rest * p.parent;
    if f.has_id {
        w.place(ids, m);
    } else {
        w.place_always(ids, m);
    }
    w.around(inserts, f);
    Ok(())
}

/// Looks up the clip's groups by class, with their chains of groups from
/// the clip's root (root excluded).
struct ClipIndex<'a> {
    paths: HashMap<&'a str, Vec<&'a Node>>,
}

impl<'a> ClipIndex<'a> {
    fn new(clip: &'a Clip) -> Self {
        fn walk<'a>(
            n: &'a Node,
            path: &mut Vec<&'a Node>,
            out: &mut HashMap<&'a str, Vec<&'a Node>>,
        ) {
            for c in &n.children {
                if let Item::Group(g) = c {
                    path.push(g);
                    if let Some(class) = g.class.as_deref() {
                        out.insert(class, path.clone());
                    }
                    walk(g, path, out);
                    path.pop();
                }
            }
        }
        let mut paths = HashMap::new();
        walk(&clip.root, &mut Vec::new(), &mut paths);
        ClipIndex { paths }
    }

    /// The groups from the clip's root down to the group `class`.
    fn path(&self, class: &str) -> Result<&[&'a Node], ArtError> {
        self.paths
            .get(class)
            .map(Vec::as_slice)
            .ok_or_else(|| ArtError::Clip(format!("the baked clip has no group \"{class}\"")))
    }
}

/// The rigid map (rotation + translation) taking point `a0` to `a1` and the
/// direction `b0 − a0` to the direction `b1 − a1`; identity when both
/// segments are the same.
fn rigid_map(a0: Vec2, b0: Vec2, a1: Vec2, b1: Vec2) -> Affine {
    if a0 == a1 && b0 == b1 {
        return Affine::IDENTITY;
    }
    let turn = (b1 - a1).angle_rad() - (b0 - a0).angle_rad();
    Affine::translate(a1) * Affine::rotate(turn) * Affine::translate(a0 * -1.0)
}

fn is_identity(m: Affine) -> bool {
    let [a, b, c, d, e, f] = m.as_coeffs();
    (a - 1.0).abs() < 1e-12
        && b.abs() < 1e-12
        && c.abs() < 1e-12
        && (d - 1.0).abs() < 1e-12
        && e.abs() < 1e-9
        && f.abs() < 1e-9
}

/// `translate(e f)` for a pure translation, else `matrix(a b c d e f)`;
/// linear part to 9 decimals, translation to 6.
fn fmt_affine(m: Affine) -> String {
    let lin = |x: f64| fmt_num(x, 9);
    let tr = |x: f64| fmt_num(x, 6);
    let [a, b, c, d, e, f] = m.as_coeffs();
    if (a - 1.0).abs() < 1e-12 && b.abs() < 1e-12 && c.abs() < 1e-12 && (d - 1.0).abs() < 1e-12 {
        format!("translate({} {})", tr(e), tr(f))
    } else {
        format!(
            "matrix({} {} {} {} {} {})",
            lin(a),
            lin(b),
            lin(c),
            lin(d),
            tr(e),
            tr(f)
        )
    }
}

/// Parse an SVG `transform` attribute: a list of `matrix`, `translate`,
/// `scale`, `rotate`, `skewX`, `skewY` (angles in degrees, as SVG writes
/// them), separated by whitespace and/or commas. Returns the product in
/// list order (the first function is outermost).
pub fn parse_transform(text: &str) -> Result<Affine, String> {
    let mut m = Affine::IDENTITY;
    let mut rest = text.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
    while !rest.is_empty() {
        let open = rest
            .find('(')
            .ok_or_else(|| format!("expected a function at {rest:?}"))?;
        let name = rest[..open].trim();
        let close = rest[open..]
            .find(')')
            .map(|i| open + i)
            .ok_or_else(|| format!("unclosed {name}("))?;
        let args: Vec<f64> = rest[open + 1..close]
            .split(|c: char| c.is_ascii_whitespace() || c == ',')
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.parse::<f64>()
                    .map_err(|_| format!("bad number {s:?} in {name}()"))
            })
            .collect::<Result<_, _>>()?;
        if args.iter().any(|x| !x.is_finite()) {
            return Err(format!("non-finite number in {name}()"));
        }
        let bad = || format!("{name}() with {} arguments", args.len());
        let f = match (name, args.as_slice()) {
            ("matrix", &[a, b, c, d, e, f]) => Affine::new([a, b, c, d, e, f]),
            ("translate", &[x]) => Affine::translate(Vec2::new(x, 0.0)),
            ("translate", &[x, y]) => Affine::translate(Vec2::new(x, y)),
            ("scale", &[s]) => Affine::scale(s),
            ("scale", &[sx, sy]) => Affine::scale_non_uniform(sx, sy),
            ("rotate", &[a]) => Affine::rotate(a.to_radians()),
            ("rotate", &[a, cx, cy]) => Affine::rotate_around(a.to_radians(), Vec2::new(cx, cy)),
            ("skewX", &[a]) => Affine::skew(a.to_radians().tan(), 0.0),
            ("skewY", &[a]) => Affine::skew(0.0, a.to_radians().tan()),
            ("matrix" | "translate" | "scale" | "rotate" | "skewX" | "skewY", _) => {
                return Err(bad());
            }
            _ => return Err(format!("unknown transform function {name:?}")),
        };
        m *= f;
        rest = rest[close + 1..].trim_start_matches(|c: char| c.is_ascii_whitespace() || c == ',');
    }
    Ok(m)
}

/// The shapes a joint marker may be: the template's `<circle>`, and what
/// an editor makes of it (Inkscape writes an `<ellipse>` for a circle
/// scaled unevenly, and Path > Object to Path a `<path>` of four arcs).
const MARKER_TAGS: [&str; 3] = ["circle", "ellipse", "path"];

/// The point a joint marker marks in its own user space: a circle's or
/// an ellipse's centre ([`circle_centre`]), a path's the centre of its
/// bounding box (where a circle rewritten as a path has its centre).
fn marker_centre(node: &roxmltree::Node) -> Result<Vec2, String> {
    match node.tag_name().name() {
        "path" => pose::box_centre(node),
        _ => circle_centre(node),
    }
}

/// A circle's (or an ellipse's) `(cx, cy)` in its own user space (missing means 0; a `px`
/// suffix is accepted, other units and percentages are not).
fn circle_centre(node: &roxmltree::Node) -> Result<Vec2, String> {
    let num = |attr: &str| -> Result<f64, String> {
        match node.attribute(attr) {
            None => Ok(0.0),
            Some(v) => {
                let t = v.trim();
                let t = t.strip_suffix("px").unwrap_or(t);
                t.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| format!("{attr}=\"{v}\" is not a number in user units"))
            }
        }
    };
    Ok(Vec2::new(num("cx")?, num("cy")?))
}

/// Byte position just after the `>` that ends the start tag beginning at
/// `start` (quotes in attribute values are skipped).
fn start_tag_end(text: &str, start: usize) -> Option<usize> {
    let mut quote: Option<u8> = None;
    for (i, &b) in text.as_bytes().iter().enumerate().skip(start) {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None if b == b'>' => return Some(i + 1),
            None => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::PI;

    fn close(a: Affine, b: Affine) -> bool {
        (a.as_coeffs().iter())
            .zip(b.as_coeffs())
            .all(|(x, y)| (x - y).abs() < 1e-9)
    }

    /// Every position of texts with no, sparse, dense and only newlines,
    /// around and across block boundaries, gets the line a count from the
    /// start gives, and the index holds one number per block.
    #[test]
    fn line_index_rows_are_counted_newlines_plus_one() {
        let texts = [
            String::new(),
            "no newline".repeat(300),
            "a\n".repeat(2000),
            "\n".repeat(3 * LINE_BLOCK + 5),
            (0..5000)
                .map(|i| if i % 97 == 0 { '\n' } else { 'x' })
                .collect(),
        ];
        for text in &texts {
            let lines = LineIndex::new(text);
            assert_eq!(lines.before.len(), text.len() / LINE_BLOCK + 1);
            let mut expected = 1;
            for (pos, b) in text.bytes().chain([b' ']).enumerate() {
                assert_eq!(lines.row(pos), expected, "pos {pos} of {}", text.len());
                expected += u32::from(b == b'\n');
            }
            // past the end: the last line
            assert_eq!(lines.row(text.len() + 10), lines.row(text.len()));
        }
    }

    #[test]
    fn transform_lists_compose_in_svg_order() {
        let m = parse_transform("translate(10,20) rotate(90) scale(2)").unwrap();
        let p = m.apply(Vec2::new(1.0, 0.0));
        // scale → (2,0), rotate 90° clockwise on screen → (0,2), translate → (10,22)
        assert!(
            (p.x - 10.0).abs() < 1e-12 && (p.y - 22.0).abs() < 1e-12,
            "{p:?}"
        );
        let r = parse_transform("rotate(180 5 5)").unwrap();
        assert!(close(r, Affine::rotate_around(PI, Vec2::new(5.0, 5.0))));
        let k = parse_transform(" matrix(1 0 0 1 3 4),translate(1) ").unwrap();
        assert!(close(k, Affine::translate(Vec2::new(4.0, 4.0))));
        assert!(parse_transform("").unwrap() == Affine::IDENTITY);
        assert!(parse_transform("rotate(1 2)").is_err());
        assert!(parse_transform("perspective(3)").is_err());
        assert!(parse_transform("translate(1").is_err());
    }

    #[test]
    fn inverse_undoes_the_map() {
        let m = parse_transform("translate(7 -3) rotate(33) scale(2 0.5) skewX(10)").unwrap();
        let inv = m.checked_inverse().unwrap();
        assert!(close(m * inv, Affine::IDENTITY));
        assert!(close(inv * m, Affine::IDENTITY));
        assert!(
            parse_transform("scale(0 1)")
                .unwrap()
                .checked_inverse()
                .is_none()
        );
    }

    #[test]
    fn rigid_map_takes_segment_onto_segment() {
        let (a0, b0) = (Vec2::new(1.0, 1.0), Vec2::new(4.0, 5.0));
        let (a1, b1) = (Vec2::new(10.0, 0.0), Vec2::new(10.0, 5.0));
        let m = rigid_map(a0, b0, a1, b1);
        assert!(m.apply(a0).dist(a1) < 1e-12);
        assert!(m.apply(b0).dist(b1) < 1e-12);
        assert_eq!(rigid_map(a0, b0, a0, b0), Affine::IDENTITY);
    }

    #[test]
    fn start_tag_end_skips_quoted_gt() {
        let s = r#"<svg a="x>y" b='>'><g/></svg>"#;
        assert_eq!(&s[..start_tag_end(s, 0).unwrap()], r#"<svg a="x>y" b='>'>"#);
    }
}
