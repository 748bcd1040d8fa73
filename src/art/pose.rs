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

use super::{Found, parse_transform};
use crate::geom::{Affine, Vec2};
use kurbo::{BezPath, ParamCurveNearest, Shape};
use std::cell::OnceCell;
use std::collections::HashMap;

/// Farthest a part's shapes (or a joint marker) may be from a joint of the
/// rig's phase-0 pose it must cover, px.
pub const POSE_LIMIT_PX: f64 = 6.0;

/// How deep `<use>` may refer to `<use>`, and how many elements the
/// `<use>`s of one part may bring in all (a drawing cannot make the check do
/// more work than its own size plus this); what lies beyond is not read.
const USE_DEPTH: usize = 8;
const USE_VISITS: usize = 100_000;

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

/// Reads the outlines of parts of one drawing (the id index for `<use>`
/// is built once, the first time a part needs it).
pub(super) struct Checker<'a, 'i> {
    pub doc: &'a roxmltree::Document<'i>,
    ids: OnceCell<HashMap<&'a str, roxmltree::NodeId>>,
}

impl<'a, 'i> Checker<'a, 'i> {
    pub(super) fn new(doc: &'a roxmltree::Document<'i>) -> Self {
        Checker {
            doc,
            ids: OnceCell::new(),
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

    /// The outline of part `f` whose parent maps to root user space by
    /// `parent` (the part's own `transform` is applied here), leaving out the subtrees `skip` names (nested parts, markers).
    pub(super) fn outline(
        &self,
        f: &Found,
        parent: Affine,
        skip: &dyn Fn(roxmltree::NodeId) -> bool,
    ) -> Outline {
        let mut paths = Vec::new();
        let mut unread = None;
        let mut visits = 0;
        let start = self
            .doc
            .get_node(f.node)
            .expect("node id from this document");
        let mut stack = vec![(start, parent, 0usize)];
        while let Some((node, m, depth)) = stack.pop() {
            if !node.is_element() || (node != start && depth == 0 && skip(node.id())) {
                continue;
            }
            if depth > 0 {
                visits += 1;
                if visits > USE_VISITS {
                    break;
                }
            }
            let tag = node.tag_name().name();
            if NOT_RENDERED.contains(&tag) {
                continue;
            }
            let own = match node.attribute("transform").map(parse_transform) {
                Some(Ok(t)) => t,
                Some(Err(_)) => continue,
                None => Affine::IDENTITY,
            };
            let m = m * own;
            if unread.is_none() {
                unread = unreadable_length(&node);
            }
            if let Some((mut p, closed)) = shape_of(&node) {
                // (in place: a path of millions of points is not copied)
                p.apply_affine(m);
                paths.push((p, closed));
            }
            if tag == "use" && depth < USE_DEPTH {
                let href = node
                    .attribute("href")
                    .or_else(|| node.attribute(("http://www.w3.org/1999/xlink", "href")));
                if let Some(target) = href
                    .and_then(|h| h.strip_prefix('#'))
                    .and_then(|id| self.by_id(id))
                {
                    let at = Affine::translate(Vec2::new(
                        num(&node, "x").unwrap_or(0.0),
                        num(&node, "y").unwrap_or(0.0),
                    ));
                    stack.push((target, m * at, depth + 1));
                }
            }
            for c in node.children().filter(|c| c.is_element()) {
                stack.push((c, m, depth));
            }
        }
        Outline { paths, unread }
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
        let o = self.outline(f, parent, skip);
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
}
