//! Is a part drawn where the rig has it? The shapes of a part (its subtree
//! without the parts nested in it and without joint markers) are read into
//! root user space with kurbo, and a joint counts as covered when it lies
//! inside a closed shape or within [`POSE_LIMIT_PX`] of any outline.
//!
//! Shapes read: `path`, `line`, `polyline`, `polygon`, `rect`, `circle`,
//! `ellipse`, and `<use>` of them (same-document `#id`, through `x`/`y`);
//! a rect, circle or ellipse of zero size draws nothing and counts as no
//! shape.
//! `text` and `image` have no outline rigbake reads; a part drawn only with
//! them cannot be checked and is refused.
//!
//! A `<use>` copies what it refers to into the part's outline, moved to
//! where it shows it, so its cost is the size of that content, once per
//! `<use>`. Each element a `<use>` reaches is read once per drawing (its
//! transform, lengths and shape, kept for the next `<use>` of it); every
//! copy is counted against [`USE_BUDGET`], one for each element reached
//! and one for each path segment (move, line, curve, close) of its shape,
//! summed over all the parts of the drawing; a drawing whose `<use>`s
//! would copy more is refused, naming the `<use>` in the part where the
//! budget ran out. Reading then stays linear in the drawing's size (an
//! element is read where it stands for the part holding it, and once more
//! if a `<use>` reaches it), and copying within [`USE_BUDGET`]. A `<use>` is not
//! followed past [`USE_DEPTH`] `<use>`s deep, nor into content that holds
//! it or a `<use>` it was reached through (a circular reference, which
//! draws nothing).

use super::{Found, parse_transform};
use crate::geom::{Affine, Vec2};
use kurbo::{BezPath, ParamCurveNearest, Shape};
use std::cell::{Cell, OnceCell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Farthest a part's shapes (or a joint marker) may be from a joint of the
/// rig's phase-0 pose it must cover, px.
pub const POSE_LIMIT_PX: f64 = 6.0;

/// How deep `<use>` may refer to `<use>`; what lies deeper is not read.
const USE_DEPTH: usize = 8;

/// The most the `<use>`s of one drawing may copy into its parts' outlines,
/// in all: one for each element a `<use>` reaches, one for each path
/// segment of its shape (moves and closes included; arcs as the curves
/// they become). A segment copied costs about 60 bytes and a distance
/// from each joint of its part: at the budget about 120 MB and under two
/// seconds, about what the largest drawing rigbake reads (64 MiB) costs
/// when it draws all of that itself.
pub const USE_BUDGET: u64 = 2_000_000;

/// Elements whose content is never drawn where it stands.
const NOT_RENDERED: &[&str] = &[
    "defs",
    "symbol",
    "clipPath",
    "mask",
    "pattern",
    "marker",
    "linearGradient",
    "radialGradient",
    "filter",
    "style",
    "title",
    "desc",
    "metadata",
    "script",
    "foreignObject",
];

/// The outlines of a part in root user space.
pub(super) struct Outline {
    paths: Vec<(BezPath, bool)>,
    /// The first length of its shapes that could not be read (see
    /// [`unreadable_length`]): the pose cannot be checked.
    unread: Option<String>,
}

/// The lengths [`shape_of`] reads of each shape (and a `<use>`'s offset).
fn length_attrs(tag: &str) -> &'static [&'static str] {
    match tag {
        "line" => &["x1", "y1", "x2", "y2"],
        "rect" => &["x", "y", "width", "height"],
        "circle" => &["cx", "cy", "r"],
        "ellipse" => &["cx", "cy", "rx", "ry"],
        "use" => &["x", "y"],
        _ => &[],
    }
}

/// The first length of `node` that [`num`] cannot read (a unit other than
/// px, a percentage, not a finite number): what a pose check from that
/// shape would silently take as 0.
fn unreadable_length(node: &roxmltree::Node) -> Option<String> {
    length_attrs(node.tag_name().name()).iter().find_map(|&a| {
        let v = node.attribute(a)?;
        num(node, a).is_none().then(|| {
            format!(
                "{a}=\"{v}\" on its <{}> is not a length in user units (a number, or px): rigbake checks the pose in user units only",
                node.tag_name().name()
            )
        })
    })
}

fn num(node: &roxmltree::Node, attr: &str) -> Option<f64> {
    let v = node.attribute(attr)?.trim();
    let v = v.strip_suffix("px").unwrap_or(v);
    v.parse::<f64>().ok().filter(|x| x.is_finite())
}

/// The numbers of a `points` list, up to the first that is not one.
fn numbers(text: &str) -> impl Iterator<Item = f64> + '_ {
    text.split(|c: char| c.is_ascii_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map_while(|s| s.parse::<f64>().ok().filter(|x| x.is_finite()))
}

/// One element's outline in its own user space, and whether it is closed.
fn shape_of(node: &roxmltree::Node) -> Option<(BezPath, bool)> {
    let zero = |a: &str| num(node, a).unwrap_or(0.0);
    match node.tag_name().name() {
        "path" => {
            let p = BezPath::from_svg(node.attribute("d")?).ok()?;
            let closed = p
                .elements()
                .iter()
                .any(|e| matches!(e, kurbo::PathEl::ClosePath));
            Some((p, closed))
        }
        "line" => {
            let mut p = BezPath::new();
            p.move_to((zero("x1"), zero("y1")));
            p.line_to((zero("x2"), zero("y2")));
            Some((p, false))
        }
        tag @ ("polyline" | "polygon") => {
            // read point by point into the path (a drawing may hold
            // millions: no list of numbers or points beside it)
            let mut nums = numbers(node.attribute("points")?);
            let mut p = BezPath::new();
            while let (Some(x), Some(y)) = (nums.next(), nums.next()) {
                if p.elements().is_empty() {
                    p.move_to((x, y));
                } else {
                    p.line_to((x, y));
                }
            }
            if p.elements().is_empty() {
                return None;
            }
            let closed = tag == "polygon";
            if closed {
                p.close_path();
            }
            Some((p, closed))
        }
        // a zero (or negative) size draws nothing (SVG disables rendering)
        "rect" => {
            let (w, h) = (num(node, "width")?, num(node, "height")?);
            if w <= 0.0 || h <= 0.0 {
                return None;
            }
            let r = kurbo::Rect::new(zero("x"), zero("y"), zero("x") + w, zero("y") + h);
            Some((r.to_path(0.1), true))
        }
        "circle" => {
            let r = num(node, "r").filter(|r| *r > 0.0)?;
            let c = kurbo::Circle::new((zero("cx"), zero("cy")), r);
            Some((c.to_path(0.01), true))
        }
        "ellipse" => {
            let e = kurbo::Ellipse::new(
                (zero("cx"), zero("cy")),
                (
                    num(node, "rx").filter(|r| *r > 0.0)?,
                    num(node, "ry").filter(|r| *r > 0.0)?,
                ),
                0.0,
            );
            Some((e.to_path(0.01), true))
        }
        _ => None,
    }
}

/// The centre of the bounding box of a `<path>`'s `d`, in its own user
/// space: the point a joint marker drawn as a path marks (see
/// `marker_centre`).
pub(super) fn box_centre(node: &roxmltree::Node) -> Result<Vec2, String> {
    let d = node.attribute("d").unwrap_or_default();
    let p = BezPath::from_svg(d).map_err(|_| "its d is not path data rigbake reads".to_string())?;
    if p.elements().is_empty() {
        return Err("its d draws nothing: a joint marker must mark a point".into());
    }
    let c = p.bounding_box().center();
    if !(c.x.is_finite() && c.y.is_finite()) {
        return Err("its d is not path data rigbake reads".into());
    }
    Ok(Vec2::new(c.x, c.y))
}

/// What the pose check takes from one element: its own `transform`, its
/// first unreadable length, its shape in its own user space, and for a
/// `<use>` what it shows and where.
struct Read {
    /// `None`: nothing of it is drawn where it stands (a definition, or a
    /// `transform` that does not parse), so nothing of it is read.
    own: Option<Affine>,
    unread: Option<String>,
    shape: Option<(BezPath, bool)>,
    shows: Option<(roxmltree::NodeId, Affine)>,
}

/// One `<use>` being followed: the `<use>` element and the one it was
/// reached through (an index into the same list), if any.
type Via = (roxmltree::NodeId, Option<usize>);

/// Reads the outlines of parts of one drawing (the id index for `<use>`
/// is built once, the first time a part needs it; what `<use>`s reach is
/// read once and counted against [`USE_BUDGET`], see the module docs).
pub(super) struct Checker<'a, 'i> {
    pub doc: &'a roxmltree::Document<'i>,
    ids: OnceCell<HashMap<&'a str, roxmltree::NodeId>>,
    used: RefCell<HashMap<roxmltree::NodeId, Rc<Read>>>,
    /// What the `<use>`s of the parts checked so far have copied.
    copied: Cell<u64>,
}

impl<'a, 'i> Checker<'a, 'i> {
    pub(super) fn new(doc: &'a roxmltree::Document<'i>) -> Self {
        Checker {
            doc,
            ids: OnceCell::new(),
            used: RefCell::default(),
            copied: Cell::new(0),
        }
    }

    fn by_id(&self, id: &str) -> Option<roxmltree::Node<'a, 'i>> {
        let ids = self.ids.get_or_init(|| {
            let mut m = HashMap::new();
            for n in self.doc.descendants() {
                if let Some(id) = n.attribute("id") {
                    m.entry(id).or_insert(n.id());
                }
            }
            m
        });
        ids.get(id).and_then(|&n| self.doc.get_node(n))
    }

    fn read(&self, node: &roxmltree::Node) -> Read {
        let tag = node.tag_name().name();
        let own = match node.attribute("transform").map(parse_transform) {
            _ if NOT_RENDERED.contains(&tag) => None,
            Some(Ok(t)) => Some(t),
            Some(Err(_)) => None,
            None => Some(Affine::IDENTITY),
        };
        if own.is_none() {
            return Read {
                own,
                unread: None,
                shape: None,
                shows: None,
            };
        }
        let shows = (tag == "use")
            .then(|| {
                node.attribute("href")
                    .or_else(|| node.attribute(("http://www.w3.org/1999/xlink", "href")))
            })
            .flatten()
            .and_then(|h| h.strip_prefix('#'))
            .and_then(|id| self.by_id(id))
            .map(|target| {
                let at = Vec2::new(num(node, "x").unwrap_or(0.0), num(node, "y").unwrap_or(0.0));
                (target.id(), Affine::translate(at))
            });
        Read {
            own,
            unread: unreadable_length(node),
            shape: shape_of(node),
            shows,
        }
    }

    /// [`Checker::read`] of an element a `<use>` reaches, once per drawing.
    fn read_used(&self, node: &roxmltree::Node) -> Rc<Read> {
        if let Some(r) = self.used.borrow().get(&node.id()) {
            return r.clone();
        }
        let r = Rc::new(self.read(node));
        self.used.borrow_mut().insert(node.id(), r.clone());
        r
    }

    /// Counts `n` more copied against [`USE_BUDGET`]; past it, why the
    /// drawing is refused, naming the `<use>` of the part that `via`
    /// leads back to.
    fn copy(&self, n: u64, vias: &[Via], via: usize) -> Result<(), String> {
        let total = self.copied.get().saturating_add(n);
        self.copied.set(total);
        if total <= USE_BUDGET {
            return Ok(());
        }
        let mut first = via;
        while let Some(up) = vias[first].1 {
            first = up;
        }
        let u = self
            .doc
            .get_node(vias[first].0)
            .expect("node of this document");
        let at = self.doc.text_pos_at(u.range().start);
        let named = u
            .attribute("id")
            .map(|id| format!(" id=\"{id}\""))
            .unwrap_or_default();
        Err(format!(
            "its <use{named}> at line {}, column {} brings what the drawing's <use>s copy into the pose check to {total} elements and path segments, more than {USE_BUDGET}: show fewer or simpler shapes with <use>",
            at.row, at.col
        ))
    }

    /// The outline of part `f` whose parent maps to root user space by
    /// `parent` (the part's own `transform` is applied here), leaving out
    /// the subtrees `skip` names (nested parts, markers); `Err`: why its
    /// `<use>`s cannot be read (past [`USE_BUDGET`]).
    pub(super) fn outline(
        &self,
        f: &Found,
        parent: Affine,
        skip: &dyn Fn(roxmltree::NodeId) -> bool,
    ) -> Result<Outline, String> {
        let mut paths = Vec::new();
        let mut unread = None;
        let start = self
            .doc
            .get_node(f.node)
            .expect("node id from this document");
        // the `<use>`s followed, each with the one it was reached through
        let mut vias: Vec<Via> = Vec::new();
        let mut stack = vec![(start, parent, None::<usize>)];
        while let Some((node, m, via)) = stack.pop() {
            if !node.is_element() || (node != start && via.is_none() && skip(node.id())) {
                continue;
            }
            let mut read = match via {
                Some(v) => {
                    self.copy(1, &vias, v)?;
                    self.read_used(&node)
                }
                None => Rc::new(self.read(&node)),
            };
            let Some(own) = read.own else { continue };
            let m = m * own;
            if unread.is_none() {
                unread.clone_from(&read.unread);
            }
            if let Some(v) = via {
                let n = read.shape.as_ref().map_or(0, |(p, _)| p.elements().len());
                self.copy(n as u64, &vias, v)?;
            }
            // a shape read here only is moved in place, not copied (a path
            // of millions of points)
            let shape = match Rc::get_mut(&mut read) {
                Some(here) => here.shape.take(),
                None => read.shape.clone(),
            };
            if let Some((mut p, closed)) = shape {
                p.apply_affine(m);
                paths.push((p, closed));
            }
            if let Some((target, at)) = read.shows {
                let target = self.doc.get_node(target).expect("node of this document");
                let mut depth = 0;
                let mut circular = false;
                let mut up = Some((node.id(), via));
                while let Some((u, next)) = up {
                    depth += 1;
                    circular |= holds(target, self.doc.get_node(u).expect("node of this document"));
                    up = next.map(|i| vias[i]);
                }
                if depth <= USE_DEPTH && !circular {
                    vias.push((node.id(), via));
                    stack.push((target, m * at, Some(vias.len() - 1)));
                }
            }
            for c in node.children().filter(|c| c.is_element()) {
                stack.push((c, m, via));
            }
        }
        Ok(Outline { paths, unread })
    }

    /// Check that part `name` covers every `(joint, at)` of the rig's pose
    /// (see the module docs).
    pub(super) fn check_covers(
        &self,
        f: &Found,
        name: &str,
        parent: Affine,
        skip: &dyn Fn(roxmltree::NodeId) -> bool,
        joints: &[(&str, Vec2)],
    ) -> Result<(), super::ArtError> {
        let o = self
            .outline(f, parent, skip)
            .map_err(|why| super::ArtError::Unsupported {
                line: f.line,
                part: name.into(),
                why,
            })?;
        if let Some(why) = o.unread {
            return Err(super::ArtError::Unsupported {
                line: f.line,
                part: name.into(),
                why,
            });
        }
        for (joint, at) in joints {
            let Some(d) = o.distance(*at) else {
                return Err(super::ArtError::NoShape {
                    line: f.line,
                    part: name.into(),
                });
            };
            // (NaN too: an outline whose place overflowed is nowhere near)
            if d.is_nan() || d > POSE_LIMIT_PX {
                return Err(super::ArtError::OffPose {
                    line: f.line,
                    part: name.into(),
                    joint: (*joint).into(),
                    offset_px: d,
                    at: *at,
                });
            }
        }
        Ok(())
    }
}

/// Whether `outer` is `inner` or one of its ancestors.
fn holds(outer: roxmltree::Node, inner: roxmltree::Node) -> bool {
    let (o, i) = (outer.range(), inner.range());
    o.start <= i.start && i.end <= o.end
}

impl Outline {
    /// Distance from `p` to the part: 0 inside a closed shape, else to the
    /// nearest outline; `None` without any shape.
    pub(super) fn distance(&self, p: Vec2) -> Option<f64> {
        let pt = kurbo::Point::new(p.x, p.y);
        let mut best: Option<f64> = None;
        for (path, closed) in &self.paths {
            if *closed && path.winding(pt) != 0 {
                return Some(0.0);
            }
            for seg in path.segments() {
                let d = seg.nearest(pt, 1e-6).distance_sq.sqrt();
                best = Some(best.map_or(d, |b: f64| b.min(d)));
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The outline of a shape whose SVG is `svg` (one element), and the
    /// distance of `p` from it as the pose check takes it.
    fn distance(svg: &str, p: (f64, f64)) -> Option<f64> {
        let text = format!("<svg xmlns=\"http://www.w3.org/2000/svg\">{svg}</svg>");
        let doc = roxmltree::Document::parse(&text).unwrap();
        let node = doc.root_element().first_element_child().unwrap();
        let paths = shape_of(&node).into_iter().collect();
        Outline {
            paths,
            unread: None,
        }
        .distance(Vec2::new(p.0, p.1))
    }

    /// `points` are read pair by pair straight into the path: commas or
    /// spaces between them, an odd last number left out, the list ending
    /// at the first token that is not a finite number.
    #[test]
    fn polygon_and_polyline_points_are_read_pair_by_pair() {
        let square = "<polygon points=\"0,0 10,0 10,10 0,10 7\"/>";
        assert_eq!(distance(square, (5.0, 5.0)), Some(0.0));
        assert!((distance(square, (15.0, 5.0)).unwrap() - 5.0).abs() < 1e-9);
        let line = "<polyline points=\"0 0, 10 0 x 99 99\"/>";
        assert!((distance(line, (10.0, 3.0)).unwrap() - 3.0).abs() < 1e-9);
        assert!((distance(line, (99.0, 99.0)).unwrap() - 89.0f64.hypot(99.0)).abs() < 1e-9);
        assert_eq!(distance("<polygon points=\"x 1 2\"/>", (0.0, 0.0)), None);
        assert_eq!(distance("<polyline points=\"\"/>", (0.0, 0.0)), None);
    }

    /// The outline of the element with id `part` in the drawing whose
    /// `<svg>` holds `body`, and what the checker has counted copied.
    fn outline_of(body: &str, parts: &[&str]) -> (Vec<Result<usize, String>>, u64) {
        let text = format!("<svg xmlns=\"http://www.w3.org/2000/svg\">{body}</svg>");
        let doc = roxmltree::Document::parse(&text).unwrap();
        let checker = Checker::new(&doc);
        let outlines = parts
            .iter()
            .map(|id| {
                let node = doc.descendants().find(|n| n.attribute("id") == Some(id));
                let f = Found {
                    node: node.unwrap().id(),
                    range: 0..0,
                    line: 1,
                    has_id: true,
                };
                let o = checker.outline(&f, Affine::IDENTITY, &|_| false)?;
                Ok(o.paths.len())
            })
            .collect();
        (outlines, checker.copied.get())
    }

    /// Each element a `<use>` reaches counts one, its shape one per path
    /// segment, summed over the parts of the drawing; the shapes a part
    /// holds itself count nothing.
    #[test]
    fn uses_count_what_they_copy_across_parts() {
        let defs = "<defs><path id=\"p\" d=\"M0 0L1 1L2 0\"/>\
                    <g id=\"two\"><use href=\"#p\"/><use href=\"#p\" x=\"3\"/></g></defs>";
        // 2 × (the path, 3 segments)
        let (o, copied) = outline_of(
            &format!(
                "{defs}<g id=\"a\"><use href=\"#p\"/><use href=\"#p\"/><path d=\"M0 0L5 5\"/></g>"
            ),
            &["a"],
        );
        assert_eq!((o, copied), (vec![Ok(3)], 2 * 4));
        // the group, its 2 uses and their paths; then the second part's 4
        let (o, copied) = outline_of(
            &format!(
                "{defs}<g id=\"a\"><use href=\"#two\"/></g><g id=\"b\"><use href=\"#p\"/></g>"
            ),
            &["a", "b"],
        );
        assert_eq!((o, copied), (vec![Ok(2), Ok(1)], 1 + 2 * (1 + 4) + 4));
        // a definition reached is counted, not read
        let (o, copied) = outline_of(
            "<g id=\"a\"><use href=\"#s\"/></g><symbol id=\"s\"><circle r=\"1\"/></symbol>",
            &["a"],
        );
        assert_eq!((o, copied), (vec![Ok(0)], 1));
    }

    /// A `<use>` of content that holds it, or holds a `<use>` it was
    /// reached through, is not followed; nor is one more than
    /// [`USE_DEPTH`] deep.
    #[test]
    fn circular_and_too_deep_uses_are_not_followed() {
        let own = "<g id=\"a\"><use href=\"#a\"/><path d=\"M0 0L1 1\"/></g>";
        assert_eq!(outline_of(own, &["a"]), (vec![Ok(1)], 0));
        // a → b → (a, which holds the first <use>): b and its <use> counted
        let round = "<g id=\"a\"><use href=\"#b\"/></g><g id=\"b\"><use href=\"#a\"/><path d=\"M0 0L1 1\"/></g>";
        assert_eq!(outline_of(round, &["a"]), (vec![Ok(1)], 1 + 1 + 3));
        // u0 → u1 → … → u11 → the path: 8 <use>s deep are followed
        let chain: String = (0..12)
            .map(|i| format!("<use id=\"u{i}\" href=\"#u{}\"/>", i + 1))
            .collect::<String>()
            + "<path id=\"u12\" d=\"M0 0L1 1\"/>";
        // (the part's own <use> is the first)
        let (o, copied) = outline_of(
            &format!("<g id=\"a\"><use href=\"#u5\"/></g>{chain}"),
            &["a"],
        );
        assert_eq!((o, copied), (vec![Ok(1)], 8 + 2));
        let (o, copied) = outline_of(
            &format!("<g id=\"a\"><use href=\"#u4\"/></g>{chain}"),
            &["a"],
        );
        assert_eq!((o, copied), (vec![Ok(0)], 8));
    }

    /// Past [`USE_BUDGET`] the part is refused, naming the `<use>` of the
    /// part the copies ran out under, however deep they were.
    #[test]
    fn copies_past_the_budget_are_refused_naming_the_parts_use() {
        // a group of 1,000 <use>s of a path of 1,000 segments: each inner
        // <use> and the path it reaches count 1 + 1 + 1000, the group
        // 1 + 1000 × 1002 = 1,002,001; the part's <use>s are read last
        // first, and the first runs out at its 997th path,
        // 1,002,001 + 1 + 996 × 1002 + 1002
        let d = format!("M0 0{}", " L1 1".repeat(999));
        let uses = "<use href=\"#p\"/>".repeat(1000);
        let body = format!(
            "<defs><path id=\"p\" d=\"{d}\"/><g id=\"k\">{uses}</g></defs>\n\
             <g id=\"a\"><use id=\"first\" href=\"#k\"/>\n<use href=\"#k\"/></g>"
        );
        let (o, copied) = outline_of(&body, &["a"]);
        let e = o[0].clone().unwrap_err();
        assert_eq!(copied, 2_000_996);
        assert_eq!(
            e,
            "its <use id=\"first\"> at line 2, column 11 brings what the drawing's <use>s copy into the pose check to 2000996 elements and path segments, more than 2000000: show fewer or simpler shapes with <use>"
        );
    }
}
