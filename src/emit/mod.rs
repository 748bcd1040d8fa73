//! Emit: clip → self-contained SVG text (pure, deterministic bytes).
//!
//! Both routes share the drawing; they differ in how a group moves:
//! [`css`] writes `@keyframes` in a `<style>` and a class per animated group,
//! [`smil`] writes `<animate>`/`<animateTransform>` children. Numbers are
//! formatted by [`crate::geom::fmt_num`] from values the bake stage already
//! rounded; attributes are written in sorted order by the `svg` crate; the
//! text ends with a newline; nothing depends on time or hash order.
//!
//! Every class, `@keyframes` name and id is written through the file's
//! [`scope::Scope`], so files can be inlined side by side in one page.
//!
//! The clip's groups nest as its tree does, except its root group where
//! that would be a bare `<g>` (no class, placement or motion): its
//! elements sit in the root `<svg>` instead (`append_root`).
//!
//! # Structure that survives optimisers (svgo's default preset)
//!
//! - A static `transform` never shares an element with an animated one: it
//!   sits on a wrapper `<g>`. svgo moves a group's `transform` into its
//!   children (`moveGroupAttrsToElems`: into every child, only where none
//!   has an `id`; `collapseGroups`: into an only child without an `id`). On
//!   the css route a transform moved onto an animated group would apply
//!   inside its `transform-origin`, after its `rotate`/`scale`, instead of
//!   around it, and one moved onto a morphed path would be folded into the
//!   `d` its keyframes replace. So in every group with a static `transform`
//!   that holds something animated (at any depth) one element carries a
//!   scoped id: one that has an id anyway, else the first
//!   (`Writer::guard`); svgo then moves that transform nowhere. A static
//!   transform in a group that holds nothing animated may move: into
//!   static elements only. The other way, `collapseGroups` may merge an
//!   animated group into its only child, a static translate without an id:
//!   the element then animates inside its origin `o` and translates by
//!   `d` after, `T(o)·R·T(d)·T(−o)`, which is `T(o)·R·T(−o)·T(d)` (the two
//!   translations commute), the motion of the two groups.
//! - Every group whose motion has an origin (a turn, a scale, a ride along
//!   a path) carries a scoped id too: svgo inlines each rule that selects a
//!   single element into its `style` and takes its class out, so the
//!   sheet's `transform-box` rule reaches these groups by id
//!   (`css::Sheet::written`), and so do the two static groups that scale a
//!   path's content. No other group needs one: a translation, static or
//!   animated, is the same in any `transform-box`. The `<style>` always
//!   keeps a rule svgo cannot inline (the reduced-motion `@media` rule),
//!   which keeps svgo's `cleanupIds` from removing the ids.
//! - On the smil route every `<animateTransform>` is `additive="sum"`: a
//!   static transform that svgo moves onto the animated group composes with
//!   the animation exactly as the wrapper did.
//! - A probe is a `<circle data-probe cx cy>` without `r` (r defaults to 0:
//!   nothing drawn, no area); svgo removes circles whose `r` is `"0"` but
//!   keeps this one. A probe where a straight stroke of its group ends is
//!   that stroke's `data-probe` instead (a path's probe is its last point):
//!   a line's, or a scene part's drawn as one straight segment
//!   (`figure::straight_end`); svgo may rewrite the path's commands but
//!   keeps its end, and merges no path carrying the attribute with another.

pub mod css;
pub mod figure;
pub mod scope;
pub mod smil;
pub mod style;

use crate::clip::{Clip, Ease, Item, Morph, Node, Route};
use crate::geom::{
    DEG_DECIMALS, FINE_LEN_DECIMALS, LEN_DECIMALS, SEC_DECIMALS, T_DECIMALS, Vec2, Vec2Ext,
    fmt_short,
};
use scope::Scope;
use std::cell::Cell;
use std::fmt::Write as _;
use svg::Node as _;
use svg::node::element::Element;

/// Static styling shared by both routes.
const BASE_CSS: &str = "\
.rb-leg{fill:none;stroke:#264653;stroke-linecap:round;stroke-linejoin:round}\
.rb-back{stroke:#8fa3b0}\
.rb-hip{fill:#264653}\
.rb-arm{stroke:#4a4a4a;stroke-linecap:round}\
.rb-pedal{fill:#1d1d1d}\
.rb-frame{stroke:#b23a48;stroke-linecap:round}\
.rb-ring{fill:none;stroke:#6b6b6b;stroke-width:3;stroke-dasharray:6 4}";

// Every number in the file goes through one of these: the value rounded as
// `geom::quantize` rounds it, printed in its shortest form (`.5`, `-.25`).

/// Format a normalised time (SMIL keyTime) or another unitless fraction
/// (cubic-bezier control points, scale factors).
pub(crate) fn fmt_t(t: f64) -> String {
    fmt_short(t, T_DECIMALS)
}

/// Format seconds.
pub(crate) fn fmt_s(s: f64) -> String {
    fmt_short(s, SEC_DECIMALS)
}

/// Format a length of the drawing in user units (a stroke width, a
/// radius, a limb's outline): to [`LEN_DECIMALS`] places.
pub(crate) fn fmt_len(x: f64) -> String {
    fmt_short(x, LEN_DECIMALS)
}

/// Format a coordinate the clip holds, rounded as the bake rounds it (a
/// joint, an origin, a translate key, a probe, a morph's point): to
/// [`FINE_LEN_DECIMALS`] places, the most a bake keeps (under a tight
/// tolerance), so a value held to 2 places prints as [`fmt_len`] prints
/// it, and one held to 3 as it is held.
pub(crate) fn fmt_coord(x: f64) -> String {
    fmt_short(x, FINE_LEN_DECIMALS)
}

/// Format an angle in degrees.
pub(crate) fn fmt_deg(x: f64) -> String {
    fmt_short(x, DEG_DECIMALS)
}

/// Format a normalised time as a CSS keyframe percentage, without the `%`
/// (four places: the six of a keyTime, times 100).
pub(crate) fn fmt_pct(t: f64) -> String {
    fmt_short(t * 100.0, T_DECIMALS - 2)
}

/// The segment is linear as written: [`Ease::Linear`], or a
/// `cubic-bezier(x1, y1, x2, y2)` whose written control points lie on the
/// diagonal (`y1 = x1`, `y2 = x2`). Then y(s) and x(s) are one polynomial,
/// so the value follows time exactly (y = x) and `linear` is the same
/// timing function, shorter.
pub(crate) fn linear_as_written(e: Ease) -> bool {
    match e {
        Ease::Linear => true,
        Ease::CubicBezier(b) => fmt_t(b[0]) == fmt_t(b[1]) && fmt_t(b[2]) == fmt_t(b[3]),
    }
}

/// Emit the clip as SVG text, names scoped by the rig name and a content
/// hash (see [`scope`]).
pub fn emit(clip: &Clip) -> String {
    emit_with_chains(clip, &[], None)
}

/// Emit a clip that also holds Verlet chains whose segments carry
/// the classes `rb-chain rb-k<i>`, `colours[i]` the stroke of `rb-k<i>`
/// (without colours the bytes are those of [`emit`]). `prefix`: the scope's
/// prefix (`bake --prefix`), else the automatic one.
pub fn emit_with_chains(clip: &Clip, colours: &[String], prefix: Option<&str>) -> String {
    scope::scoped(prefix, |sc| emit_in(clip, colours, sc))
}

fn emit_in(clip: &Clip, colours: &[String], sc: &Scope) -> String {
    let mut style = sc.sheet(BASE_CSS);
    if !colours.is_empty() {
        style.push_str(&sc.sheet(".rb-chain{fill:none;stroke-linecap:round}"));
        for (i, c) in colours.iter().enumerate() {
            style.push_str(&format!(".{}{{stroke:{c}}}", sc.name(&format!("rb-k{i}"))));
        }
    }
    if clip.route == Route::Css {
        style.push_str(&css::style(clip, sc));
    }
    let w = Writer::new(clip, sc);
    let mut doc = document(clip, style, Vec::new());
    append_root(&mut doc, &w, &clip.root);
    finish(doc)
}

/// One group of a clip (with everything inside it) as SVG text, names
/// scoped by `sc`: the writer [`emit`] uses, for callers that place a
/// clip's groups into another document (`bake --art`).
pub fn group_text(clip: &Clip, node: &Node, sc: &Scope) -> String {
    group(&Writer::new(clip, sc), node).to_string()
}

/// What the element writers share: the clip, the scope and the next id.
pub(crate) struct Writer<'a> {
    pub clip: &'a Clip,
    pub scope: &'a Scope,
    /// What the style sheet paints the scene parts with, so the parts do
    /// not repeat it ([`figure::part_element`]).
    pub parts: figure::PartSheet,
    /// Classes (local) whose rule gives their lines' stroke width, so the
    /// lines do not repeat it.
    pub width_classes: Vec<String>,
    next_id: Cell<usize>,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(clip: &'a Clip, scope: &'a Scope) -> Self {
        Writer {
            clip,
            scope,
            parts: figure::PartSheet::default(),
            width_classes: Vec::new(),
            next_id: Cell::new(0),
        }
    }

    /// An element of class `class` has its stroke width from the sheet.
    fn width_from_class(&self, class: &str) -> bool {
        class
            .split_ascii_whitespace()
            .any(|c| self.width_classes.iter().any(|w| w == c))
    }

    /// css route: give `e` the next scoped id (see the module docs).
    fn pin(&self, e: &mut Element) {
        if self.clip.route == Route::Css {
            self.pin_always(e);
        }
    }

    /// css route: one of `kids`, the elements of `items` inside a group
    /// with a static `transform`, carries an id (the first, unless one
    /// does), where `items` hold something the sheet animates: svgo moves
    /// that transform into the elements only where none has an id (see the
    /// module docs).
    fn guard(&self, kids: &mut [Element], items: &[Item]) {
        if self.clip.route == Route::Css
            && moves_in(items)
            && !kids.iter().any(has_id)
            && let Some(first) = kids.first_mut()
        {
            self.pin(first);
        }
    }

    /// Give `e` the next scoped id on either route.
    fn pin_always(&self, e: &mut Element) {
        let n = self.next_id.get();
        self.next_id.set(n + 1);
        e.assign("id", self.scope.id(n));
    }
}

/// The root `<svg>` (namespace, viewBox, size, `data-period`, `data-route`,
/// plus `extra` attributes) holding `<title>` and `<style>`; the caller
/// appends the drawing and calls [`finish`].
pub(crate) fn document(clip: &Clip, style: String, extra: Vec<(&str, String)>) -> Element {
    let [x, y, w, h] = clip.view_box;
    let mut doc = Element::new("svg");
    let base = [
        ("xmlns", "http://www.w3.org/2000/svg".to_string()),
        (
            "viewBox",
            format!(
                "{} {} {} {}",
                fmt_len(x),
                fmt_len(y),
                fmt_len(w),
                fmt_len(h)
            ),
        ),
        ("width", fmt_len(w)),
        ("height", fmt_len(h)),
    ];
    for (k, v) in base.into_iter().chain(root_metadata(clip)).chain(extra) {
        doc.assign(k, v);
    }
    let mut title = Element::new("title");
    title.append(svg::node::Text::new(clip.name.clone()));
    doc.append(title);
    let mut st = Element::new("style");
    st.append(svg::node::Blob::new(style));
    doc.append(st);
    doc
}

/// What the root `<svg>` of every file says of its clip, for scripts and
/// people, in the plain form: `data-period` (seconds) and `data-route`.
pub(crate) fn root_metadata(clip: &Clip) -> [(&'static str, String); 2] {
    [
        (
            "data-period",
            crate::geom::fmt_num(clip.period_s, SEC_DECIMALS),
        ),
        ("data-route", clip.route.as_str().to_string()),
    ]
}

/// Append the drawing of `root` to the document: its group, or where that
/// group would carry nothing (no class, no placement, no motion: a bare
/// `<g>`, which draws and selects nothing) its elements, directly in the
/// root `<svg>`.
pub(crate) fn append_root(doc: &mut Element, w: &Writer, root: &Node) {
    if root.class.is_none() && root.anim.is_none() && root.translate == Vec2::ZERO {
        for e in children_elements(w, &root.children) {
            doc.append(e);
        }
    } else {
        doc.append(group(w, root));
    }
}

/// The document's text, ending with a newline.
pub(crate) fn finish(doc: Element) -> String {
    let mut out = doc.to_string();
    out.push('\n');
    out
}

fn pt(p: Vec2) -> String {
    format!("{} {}", fmt_coord(p.x), fmt_coord(p.y))
}

/// Append a number to path data: no separator after a command letter or
/// before a sign (the path grammar ends a number at `-`), one space otherwise.
fn push_path_num(d: &mut String, n: &str) {
    if !(d.is_empty() || d.ends_with(|c: char| c.is_ascii_alphabetic()) || n.starts_with('-')) {
        d.push(' ');
    }
    d.push_str(n);
}

/// Thousandths of a user unit in one: what [`thousandths`] counts.
pub(crate) const PER_UNIT: f64 = 1000.0;

/// A coordinate in whole thousandths of a user unit: exact for the values a
/// clip holds (already rounded to at most [`FINE_LEN_DECIMALS`] places).
pub(crate) fn thousandths(x: f64) -> i64 {
    (x * PER_UNIT).round() as i64
}

/// Write `p` absolute, or relative to `from`: the difference of two numbers
/// of at most three places, so its decimal value is exact and `from +
/// delta` is the written absolute point.
fn push_path_pt(d: &mut String, p: Vec2, from: Option<Vec2>) {
    match from {
        None => {
            push_path_num(d, &fmt_coord(p.x));
            push_path_num(d, &fmt_coord(p.y));
        }
        Some(o) => {
            for (a, b) in [(p.x, o.x), (p.y, o.y)] {
                let delta = (thousandths(a) - thousandths(b)) as f64 / PER_UNIT;
                push_path_num(d, &fmt_coord(delta));
            }
        }
    }
}

/// `Mx0 y0Lx1 y1…`, or with `relative`, `Mx0 y0l dx1 dy1…` (each point
/// from the one before).
fn polyline_path(points: &[Vec2], relative: bool) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        d.push(match (i, relative) {
            (0, _) => 'M',
            (_, false) => 'L',
            (_, true) => 'l',
        });
        let from = (relative && i > 0).then(|| points[i - 1]);
        push_path_pt(&mut d, *p, from);
    }
    d
}

/// `M p0 C p1 p2 p3 C p4 p5 p6 …` (1 + 3k points), or with `relative`,
/// `c` commands whose three points are relative to the segment's start.
fn cubic_path(points: &[Vec2], relative: bool) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        let start = points[(i.max(1) - 1) / 3 * 3];
        match i {
            0 => d.push('M'),
            i if i % 3 == 1 => d.push(if relative { 'c' } else { 'C' }),
            _ => {}
        }
        push_path_pt(&mut d, *p, (relative && i > 0).then_some(start));
    }
    d
}

/// The `d` of every key of a morph: lines or cubic Béziers (see [`Morph`]),
/// all absolute or all relative after the first `M` (whichever is shorter
/// over all keys), so every value has the same command list and
/// interpolating corresponding numbers interpolates the points.
pub(crate) fn morph_ds(m: &Morph) -> Vec<String> {
    let form = |relative: bool| -> Vec<String> {
        m.keys
            .iter()
            .map(|(_, pts)| {
                if m.cubic {
                    cubic_path(pts, relative)
                } else {
                    polyline_path(pts, relative)
                }
            })
            .collect()
    };
    let (abs, rel) = (form(false), form(true));
    let len = |v: &Vec<String>| v.iter().map(String::len).sum::<usize>();
    if len(&rel) < len(&abs) { rel } else { abs }
}

/// The group's motion has an origin in its parent's user space, which the
/// sheet's `transform-box` rule keeps there (a turn, a scale; a ride along a
/// path): on the css route it carries an id ([`css::Sheet::written`]).
fn has_origin(node: &Node) -> bool {
    use crate::clip::Anim;
    matches!(
        node.anim,
        Some(Anim::Rotate { .. } | Anim::Scale { .. } | Anim::Motion { .. })
    )
}

fn has_id(e: &Element) -> bool {
    e.get_attributes().contains_key("id")
}

/// Something in `items` (at any depth) moves by the css route's sheet: an
/// animated group, or a morphed path (its `d` keyframes).
fn moves_in(items: &[Item]) -> bool {
    items.iter().any(|i| match i {
        Item::Group(n) => n.anim.is_some() || moves_in(&n.children),
        Item::Morph(m) => m.probe.is_some(),
        _ => false,
    })
}

fn group(w: &Writer, node: &Node) -> Element {
    let animated = node.anim.is_some();
    let mut g = Element::new("g");
    if let Some(c) = &node.class {
        g.assign("class", w.scope.classes(c));
    }
    // a path written `k` times larger: the moving group sits in a
    // `scale(1/k)` parent and draws its content at `scale(k)`
    let path_scale = match &node.anim {
        Some(crate::clip::Anim::Motion { path, .. }) if path.scale != 1.0 => Some(path.scale),
        _ => None,
    };
    if path_scale.is_some() {
        // on both routes: a parent's transform moved onto an <animateMotion>
        // target would apply inside the motion instead of around it
        w.pin_always(&mut g);
    } else if has_origin(node) {
        w.pin(&mut g);
    }
    let origin_outside = if animated && w.clip.route == Route::Smil {
        smil::animate_group(w.clip, node, &mut g)
    } else {
        None
    };
    let mut content = Element::new("g");
    let into = if path_scale.is_some() || origin_outside.is_some() {
        &mut content
    } else {
        &mut g
    };
    let mut kids = children_elements(w, &node.children);
    // a static transform on this group (its placement) or on `content`
    // (a path's scale) stays there (see the module docs)
    if path_scale.is_some() || (!animated && node.translate != Vec2::ZERO) {
        w.guard(&mut kids, &node.children);
    }
    for e in kids {
        into.append(e);
    }
    if let Some(o) = origin_outside {
        // a rotation about o: the group at o turns, its content moved back
        g.assign("transform", format!("translate({})", pt(o)));
        content.assign("transform", format!("translate({})", pt(Vec2::ZERO - o)));
        g.append(content);
        content = Element::new("g");
    }
    if let Some(k) = path_scale {
        content.assign("transform", format!("scale({})", fmt_t(k)));
        w.pin(&mut content);
        g.append(content);
        let mut outer = Element::new("g");
        w.pin(&mut outer);
        outer.assign("transform", format!("scale({})", fmt_t(1.0 / k)));
        outer.append(g);
        g = outer;
    }
    if node.translate != Vec2::ZERO {
        // A transform attribute would be overridden by a CSS animation (and
        // replaced by a SMIL one), so static placement goes on a wrapper.
        let translate = format!("translate({})", pt(node.translate));
        if animated {
            let mut outer = Element::new("g");
            if !has_id(&g) {
                w.pin(&mut g);
            }
            outer.assign("transform", translate);
            outer.append(g);
            return outer;
        }
        g.assign("transform", translate);
    }
    g
}

/// The elements of a group's `items`, in order. A probe drawn where a line
/// of the same group ends rides that line: the line's `<path>` carries its
/// `data-probe` (a path's probed point is its last one), one element
/// instead of two, the same point under the same transforms. So does a
/// probe where a scene part drawn as one straight segment ends (the part
/// is a `<path>` whose last point is that end, [`figure::straight_end`]).
fn children_elements(w: &Writer, items: &[Item]) -> Vec<Element> {
    let mut carried = vec![false; items.len()];
    let mut rider: Vec<Option<&str>> = vec![None; items.len()];
    for (i, item) in items.iter().enumerate() {
        let end = match item {
            Item::Line { to, .. } => *to,
            Item::Part { d, .. } => match figure::straight_end(d) {
                Some(end) => end,
                None => continue,
            },
            _ => continue,
        };
        // (a part's end as written: the same thousandths as the probe's)
        let at_end = |at: &Vec2| {
            thousandths(at.x) == thousandths(end.x) && thousandths(at.y) == thousandths(end.y)
        };
        let probe = items.iter().enumerate().find_map(|(j, p)| match p {
            Item::Probe { name, at } if at_end(at) && !carried[j] => Some((j, name)),
            _ => None,
        });
        if let Some((j, name)) = probe {
            carried[j] = true;
            rider[i] = Some(name);
        }
    }
    items
        .iter()
        .enumerate()
        .filter(|&(j, _)| !carried[j])
        .map(|(i, item)| item_element(w, item, rider[i]))
        .collect()
}

/// Places of a dot row's spacing ([`Item::Dots`]): a row of n dots ends
/// within n · 0.00005 px of where dots placed one by one would be.
const DOT_SPACING_DECIMALS: u32 = 4;

/// One item's element; a line written as `<path d="M from L to">` (shorter
/// than `<line>`'s four attributes), carrying the probe `rider` if any.
fn item_element(w: &Writer, item: &Item, rider: Option<&str>) -> Element {
    let sc = w.scope;
    match item {
        Item::Group(n) => group(w, n),
        Item::Line {
            from,
            to,
            class,
            width,
        } => {
            let mut e = Element::new("path");
            e.assign("class", sc.classes(class));
            let ends = [*from, *to];
            let (abs, rel) = (polyline_path(&ends, false), polyline_path(&ends, true));
            e.assign("d", if rel.len() < abs.len() { rel } else { abs });
            if !w.width_from_class(class) {
                e.assign("stroke-width", fmt_len(*width));
            }
            if let Some(name) = rider {
                e.assign("data-probe", name);
            }
            e
        }
        Item::Dots {
            from,
            spacing,
            count,
            r,
            class,
        } => {
            // a zero-length dash with round caps is a disc of the stroke's
            // width; the stroke runs half a spacing past the last dot, so
            // no rounding of its length loses that dot
            let mut e = Element::new("path");
            e.assign("class", sc.classes(class));
            let mut d = String::from("M");
            push_path_pt(&mut d, *from, None);
            d.push('h');
            push_path_num(&mut d, &fmt_len(*spacing * (*count as f64 - 0.5)));
            e.assign("d", d);
            e.assign("stroke", "#000");
            let gap = fmt_short(*spacing, DOT_SPACING_DECIMALS);
            e.assign("stroke-dasharray", format!("0 {gap}"));
            e.assign("stroke-linecap", "round");
            e.assign("stroke-width", fmt_len(2.0 * r));
            e
        }
        Item::Circle { center, r, class } => {
            let mut e = Element::new("circle");
            e.assign("class", sc.classes(class));
            e.assign("cx", fmt_len(center.x));
            e.assign("cy", fmt_len(center.y));
            e.assign("r", fmt_len(*r));
            e
        }
        Item::Rect {
            center,
            w,
            h,
            class,
        } => {
            let mut e = Element::new("rect");
            e.assign("class", sc.classes(class));
            e.assign("x", fmt_len(center.x - w / 2.0));
            e.assign("y", fmt_len(center.y - h / 2.0));
            e.assign("width", fmt_len(*w));
            e.assign("height", fmt_len(*h));
            e.assign("rx", fmt_len(h / 2.0));
            e
        }
        Item::Probe { name, at } => {
            let mut e = Element::new("circle");
            e.assign("data-probe", name.clone());
            e.assign("cx", fmt_coord(at.x));
            e.assign("cy", fmt_coord(at.y));
            // no `r`: it defaults to 0 (see the module docs)
            e
        }
        Item::Morph(m) => morph(w, m),
        Item::Taper {
            from,
            to,
            r_from,
            r_to,
            class,
        } => {
            let mut e = match taper_path(*from, *to, *r_from, *r_to) {
                Ok(d) => {
                    let mut e = Element::new("path");
                    e.assign("d", d);
                    e
                }
                // one circle holds the other: the larger one is the hull
                Err((c, r)) => {
                    let mut e = Element::new("circle");
                    e.assign("cx", fmt_len(c.x));
                    e.assign("cy", fmt_len(c.y));
                    e.assign("r", fmt_len(r));
                    e
                }
            };
            e.assign("class", sc.classes(class));
            e
        }
        Item::Part { .. } => {
            let mut e = figure::part_element(w, item);
            if let Some(name) = rider {
                e.assign("data-probe", name);
            }
            e
        }
    }
}

/// Path data of the hull of a circle of radius `r0` at `a` and one of
/// radius `r1` at `b`: the two outer tangents joined by arcs round each
/// end, `M p0 L p1 A (round b) L p2 A (round a) Z`. With `s = (r0 − r1)/L`
/// (`L = |b − a|`, `u` the unit vector a→b, `n` u turned +90°), the tangent
/// points are `centre + r·(s·u ± √(1−s²)·n)`. `Err((centre, r))` when one
/// circle holds the other (`L ≤ |r0 − r1|`): the hull is that circle.
pub(crate) fn taper_path(a: Vec2, b: Vec2, r0: f64, r1: f64) -> Result<String, (Vec2, f64)> {
    let len = a.dist(b);
    if len <= (r0 - r1).abs() || len == 0.0 {
        return Err(if r0 >= r1 { (a, r0) } else { (b, r1) });
    }
    let u = Vec2::new((b.x - a.x) / len, (b.y - a.y) / len);
    let n = Vec2::new(-u.y, u.x);
    let s = (r0 - r1) / len;
    let c = (1.0 - s * s).sqrt();
    let at = |o: Vec2, r: f64, side: f64| {
        Vec2::new(
            o.x + r * (s * u.x + side * c * n.x),
            o.y + r * (s * u.y + side * c * n.y),
        )
    };
    let mut d = String::new();
    let num = |d: &mut String, x: f64| push_path_num(d, &fmt_len(x));
    let p0 = at(a, r0, 1.0);
    d.push('M');
    num(&mut d, p0.x);
    num(&mut d, p0.y);
    let p1 = at(b, r1, 1.0);
    d.push('L');
    num(&mut d, p1.x);
    num(&mut d, p1.y);
    // round the tip (span π − 2·asin s), then round the joint (π + 2·asin
    // s): the larger end takes the large arc; from the +n side to the −n
    // side is counter-clockwise on screen (sweep 0) in SVG's y-down space
    let (tip_large, joint_large) = if s >= 0.0 { ("0", "1") } else { ("1", "0") };
    let p2 = at(b, r1, -1.0);
    d.push('A');
    for x in [r1, r1] {
        num(&mut d, x);
    }
    let _ = write!(d, " 0 {tip_large} 0");
    num(&mut d, p2.x);
    num(&mut d, p2.y);
    let p3 = at(a, r0, -1.0);
    d.push('L');
    num(&mut d, p3.x);
    num(&mut d, p3.y);
    d.push('A');
    for x in [r0, r0] {
        num(&mut d, x);
    }
    let _ = write!(d, " 0 {joint_large} 0");
    num(&mut d, p0.x);
    num(&mut d, p0.y);
    d.push('Z');
    Ok(d)
}

/// The class that selects a morphed path's `d` animation on the css route.
pub(crate) fn morph_class(probe: &str) -> String {
    format!("rb-d-{probe}")
}

fn morph(w: &Writer, m: &Morph) -> Element {
    let mut e = Element::new("path");
    let mut class = m.class.clone();
    if let (Route::Css, Some(p)) = (w.clip.route, &m.probe) {
        class = format!("{class} {}", morph_class(p));
    }
    e.assign("class", w.scope.classes(&class));
    if !w.width_from_class(&m.class) {
        e.assign("stroke-width", fmt_len(m.width));
    }
    if let Some(p) = &m.probe {
        e.assign("data-probe", p.clone());
    }
    let ds = morph_ds(m);
    e.assign("d", ds[0].clone());
    // css route: `d: path()` keyframes in the style sheet (see
    // [`css`]) animate the path instead
    if w.clip.route == Route::Smil && ds.iter().any(|d| *d != ds[0]) {
        e.append(smil::animate_d(w.clip, m));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A probe drawn at the end of a line of its own group rides the line
    /// (the line's path carries its `data-probe`, its last point being the
    /// line's end); every other probe stays a circle: one at the line's
    /// start, one in another group, a second one at the same end.
    /// The css text of `node` drawn as a clip's root group.
    fn css_text(node: &Node) -> String {
        let clip = Clip {
            name: "p".into(),
            route: Route::Css,
            period_s: 1.0,
            view_box: [0.0; 4],
            tracks: Vec::new(),
            root: node.clone(),
            legs: Vec::new(),
            figure: None,
            ground_wrap_px: None,
        };
        group_text(&clip, node, &Scope::local())
    }

    /// [`css_text`] of `node`, and every element of it carrying a
    /// `data-probe`: (tag, probe), in order.
    fn probes_written(node: &Node) -> (String, Vec<(String, String)>) {
        let text = css_text(node);
        let doc = roxmltree::Document::parse(&text).unwrap();
        let probes = doc
            .descendants()
            .filter_map(|n| {
                let p = n.attribute("data-probe")?;
                Some((n.tag_name().name().to_string(), p.to_string()))
            })
            .collect();
        (text, probes)
    }

    #[test]
    fn a_probe_at_a_lines_end_rides_the_line() {
        let (a, b) = (Vec2::new(10.0, 20.0), Vec2::new(40.5, -2.25));
        let line = Item::Line {
            from: a,
            to: b,
            class: "rb-bone".into(),
            width: 3.0,
        };
        let probe = |name: &str, at: Vec2| Item::Probe {
            name: name.into(),
            at,
        };
        let node = Node {
            children: vec![
                probe("start", a),
                line.clone(),
                probe("end", b),
                probe("again", b),
                Item::Group(Node {
                    children: vec![probe("inner", b)],
                    ..Node::default()
                }),
            ],
            ..Node::default()
        };
        let (text, probes) = probes_written(&node);
        let probes: Vec<(&str, &str)> = probes.iter().map(|(t, p)| (&t[..], &p[..])).collect();
        assert_eq!(
            probes,
            [
                ("circle", "start"),
                ("path", "end"),
                ("circle", "again"),
                ("circle", "inner")
            ],
            "{text}"
        );
        assert!(
            text.contains(r#"<path class="rb-bone" d="M10 20L40.5-2.25" data-probe="end""#),
            "{text}"
        );
    }

    /// A probe where a scene part drawn as one straight segment ends rides
    /// the part as it rides a line; a part of any other data (a second
    /// segment, a curve, an end written past thousandths, an end elsewhere,
    /// a thousandth away included) leaves it a circle.
    #[test]
    fn a_probe_at_a_straight_parts_end_rides_the_part() {
        let part = |class: &str, d: &str| Item::Part {
            class: class.into(),
            d: d.into(),
            stroke: Some("#333".into()),
            width: 2.0,
            fill: None,
            opacity: 1.0,
            dash: Vec::new(),
        };
        let probe = |name: &str, x: f64, y: f64| Item::Probe {
            name: name.into(),
            at: Vec2::new(x, y),
        };
        let node = Node {
            children: vec![
                probe("arm", 370.0, 420.0),
                part("rb-p-arm", "M420 420L370 420"),
                probe("two", 5.0, 6.0),
                part("rb-p-two", "M0 0L1 2L5 6"),
                probe("curve", 5.0, 6.0),
                part("rb-p-curve", "M0 0Q1 2 5 6"),
                probe("past", 5.0, 6.0),
                part("rb-p-past", "M0 0L5.0001 6"),
                probe("fine", 5.001, 6.0),
                part("rb-p-fine", "M0 0L5.001 6"),
                probe("near", 5.0, 6.0),
                part("rb-p-near", "M0 0L5.001 6"),
                probe("neg", -1.5, 0.25),
                part("rb-p-neg", "M3 3L-1.5.25"),
                probe("start", 3.0, 3.0),
            ],
            ..Node::default()
        };
        let (text, probes) = probes_written(&node);
        let probes: Vec<(&str, &str)> = probes.iter().map(|(t, p)| (&t[..], &p[..])).collect();
        assert_eq!(
            probes,
            [
                ("path", "arm"),
                ("circle", "two"),
                ("circle", "curve"),
                ("circle", "past"),
                ("path", "fine"),
                ("circle", "near"),
                ("path", "neg"),
                ("circle", "start")
            ],
            "{text}"
        );
    }

    /// css route: a group whose motion has an origin carries an id; in a
    /// group with a static transform that holds something animated one
    /// element does (one that has an id anyway, else the first); no other
    /// group or element has one.
    #[test]
    fn ids_go_where_the_transform_box_rule_or_a_static_transform_needs_them() {
        use crate::clip::{Anim, Axis};
        let line = |class: &str| Item::Line {
            from: Vec2::ZERO,
            to: Vec2::new(1.0, 1.0),
            class: class.into(),
            width: 1.0,
        };
        let g = |class: &str, translate: Vec2, anim: Option<Anim>, children: Vec<Item>| {
            Item::Group(Node {
                class: Some(class.into()),
                translate,
                anim,
                children,
            })
        };
        let turn = || {
            Some(Anim::Rotate {
                track: 0,
                origin: Vec2::new(3.0, 4.0),
                delay_s: 0.0,
            })
        };
        let slide = || {
            Some(Anim::Translate {
                track: 0,
                axis: Axis::X,
                delay_s: 0.0,
            })
        };
        let at = Vec2::new(5.0, 6.0);
        let node = Node {
            children: vec![
                // a placement around a turning and a sliding group: the
                // turning one has an id anyway
                g(
                    "rb-place1",
                    at,
                    None,
                    vec![
                        g("rb-slide1", Vec2::ZERO, slide(), vec![line("rb-a")]),
                        g("rb-turn1", Vec2::ZERO, turn(), vec![line("rb-b")]),
                    ],
                ),
                // a placement around a sliding group only, through a static
                // group: the first element in it is pinned
                g(
                    "rb-place2",
                    at,
                    None,
                    vec![
                        line("rb-c"),
                        g(
                            "rb-static",
                            Vec2::ZERO,
                            None,
                            vec![g("rb-slide2", Vec2::ZERO, slide(), vec![])],
                        ),
                    ],
                ),
                // a placed sliding group: its wrapper's only child is it
                g("rb-slide3", at, slide(), vec![line("rb-d")]),
                // a placement around static things, and a lone slide: none
                g("rb-place3", at, None, vec![line("rb-e")]),
                g("rb-slide4", Vec2::ZERO, slide(), vec![line("rb-f")]),
            ],
            ..Node::default()
        };
        let text = css_text(&node);
        let doc = roxmltree::Document::parse(&text).unwrap();
        let mut pinned: Vec<&str> = doc
            .descendants()
            .filter(|n| n.has_attribute("id"))
            .map(|n| n.attribute("class").unwrap())
            .collect();
        pinned.sort_unstable();
        assert_eq!(pinned, ["rb-c", "rb-slide3", "rb-turn1"], "{text}");
    }

    #[test]
    fn polyline_has_identical_commands() {
        let d = polyline_path(
            &[Vec2::new(1.0, 2.0), Vec2::new(-0.0001, 3.4561), Vec2::ZERO],
            false,
        );
        // (to the third place, the most a clip holds)
        assert_eq!(d, "M1 2L0 3.456L0 0");
        let d = polyline_path(&[Vec2::new(-1.5, -0.25), Vec2::new(0.5, -2.0)], false);
        assert_eq!(d, "M-1.5-.25L.5-2");
    }

    #[test]
    fn relative_paths_land_on_the_absolute_points() {
        let p = [
            Vec2::new(254.0, 115.07),
            Vec2::new(254.8, 118.99),
            Vec2::new(-0.5, 3.0),
        ];
        assert_eq!(polyline_path(&p, true), "M254 115.07l.8 3.92l-255.3-115.99");
        let c = [
            Vec2::new(10.0, 10.0),
            Vec2::new(10.5, 11.0),
            Vec2::new(11.0, 12.0),
            Vec2::new(12.0, 12.5),
            Vec2::new(13.0, 13.0),
            Vec2::new(14.0, 13.5),
            Vec2::new(15.25, 14.0),
        ];
        assert_eq!(
            cubic_path(&c, true),
            "M10 10c.5 1 1 2 2 2.5c1 .5 2 1 3.25 1.5"
        );
        // decoding the relative form gives back every written point exactly
        // (in thousandths), for coordinates of any sign and size, held to
        // two places (a bake's) or three (a bake under a tight tolerance)
        for scale in [100.0, 1000.0] {
            let pts: Vec<Vec2> = (0..40)
                .map(|i| {
                    let x = ((i * 7919) % 100_003) as f64 / scale - 500.0;
                    let y = ((i * 104_729) % 70_001) as f64 / scale - 350.0;
                    Vec2::new(x, y)
                })
                .collect();
            let d = polyline_path(&pts, true);
            let nums: Vec<i64> = d[1..]
                .replace('l', " ")
                .replace('-', " -")
                .split_whitespace()
                .map(|n| thousandths(n.parse::<f64>().unwrap()))
                .collect();
            let (mut x, mut y) = (nums[0], nums[1]);
            for (k, p) in pts.iter().enumerate().skip(1) {
                x += nums[2 * k];
                y += nums[2 * k + 1];
                let want = (thousandths(p.x), thousandths(p.y));
                assert_eq!((x, y), want, "point {k} at 1/{scale}");
            }
        }
    }

    #[test]
    fn taper_outline_is_tangent_to_both_end_circles() {
        // any direction, either end larger: the four outline points lie on
        // their circles and each straight side is perpendicular to the radii
        // it touches (an outer tangent), so the shape is the hull
        for (i, (r0, r1)) in [(4.0, 2.0), (3.0, 3.0), (1.5, 5.0)].into_iter().enumerate() {
            let ang = 0.7 + 2.1 * i as f64;
            let a = Vec2::new(100.0, 50.0);
            let b = Vec2::new(100.0 + 40.0 * ang.cos(), 50.0 + 40.0 * ang.sin());
            let d = taper_path(a, b, r0, r1).unwrap();
            let path = kurbo::BezPath::from_svg(&d).unwrap();
            let el: Vec<kurbo::PathEl> = path.elements().to_vec();
            let pt = |e: &kurbo::PathEl| match e {
                kurbo::PathEl::MoveTo(p) | kurbo::PathEl::LineTo(p) => Vec2::new(p.x, p.y),
                other => panic!("{other:?}"),
            };
            let (p0, p1) = (pt(&el[0]), pt(&el[1]));
            // the arc becomes cubics in kurbo: take the next line's ends
            let lines: Vec<Vec2> = el
                .iter()
                .filter(|e| matches!(e, kurbo::PathEl::LineTo(_)))
                .map(pt)
                .collect();
            let p3 = lines[1];
            let near = |x: f64, y: f64| (x - y).abs() < 0.02;
            assert!(near(p0.dist(a), r0) && near(p1.dist(b), r1), "{d}");
            assert!(near(p3.dist(a), r0), "{d}");
            let side = Vec2::new(p1.x - p0.x, p1.y - p0.y);
            let ra = Vec2::new(p0.x - a.x, p0.y - a.y);
            let cos = (side.x * ra.x + side.y * ra.y) / (side.len() * ra.len());
            // (points are written to 0.01 px: the angle is right to ~0.005 rad)
            assert!(cos.abs() < 5e-3, "{d}: cos {cos}");
            // the shape reaches both ends' far points: its bounding box holds them
            let bb = kurbo::Shape::bounding_box(&path);
            for (c, r) in [(a, r0), (b, r1)] {
                assert!(bb.x0 <= c.x - r + 0.05 && bb.x1 >= c.x + r - 0.05, "{d}");
                assert!(bb.y0 <= c.y - r + 0.05 && bb.y1 >= c.y + r - 0.05, "{d}");
            }
        }
        // one circle inside the other: the larger circle
        assert_eq!(
            taper_path(Vec2::ZERO, Vec2::new(1.0, 0.0), 7.5, 1.0),
            Err((Vec2::ZERO, 7.5))
        );
    }

    #[test]
    fn cubic_path_groups_three_points_per_command() {
        let p = |x: f64| Vec2::new(x, 0.0);
        let d = cubic_path(
            &[p(0.0), p(1.0), p(2.0), p(3.0), p(4.0), p(5.0), p(6.0)],
            false,
        );
        assert_eq!(d, "M0 0C1 0 2 0 3 0C4 0 5 0 6 0");
    }
}
