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
//! # Structure that survives optimisers (svgo's default preset)
//!
//! - A static `transform` never shares an element with an animated one: it
//!   sits on a wrapper `<g>`. svgo moves a group's `transform` into its
//!   children (`moveGroupAttrsToElems`, `collapseGroups`) unless a child has
//!   an `id`, so on the css route (where a CSS `transform` would override a
//!   moved attribute) every animated group and every group with a static
//!   `transform` carries a scoped id. The `<style>` always keeps a rule svgo
//!   cannot inline (the reduced-motion `@media` rule), which keeps svgo's
//!   `cleanupIds` from removing those ids.
//! - On the smil route every `<animateTransform>` is `additive="sum"`: a
//!   static transform that svgo moves onto the animated group composes with
//!   the animation exactly as the wrapper did.
//! - A probe is a `<circle data-probe cx cy>` without `r` (r defaults to 0:
//!   nothing drawn, no area); svgo removes circles whose `r` is `"0"` but
//!   keeps this one.

pub mod css;
pub mod figure;
pub mod scope;
pub mod smil;

use crate::clip::{Clip, Item, Morph, Node, Route};
use crate::geom::{Vec2, fmt_len, fmt_num};
use scope::Scope;
use std::cell::Cell;
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

/// Format normalised time as a CSS percentage / SMIL keyTime.
pub(crate) fn fmt_t(t: f64) -> String {
    fmt_num(t, crate::geom::T_DECIMALS)
}

/// Format seconds.
pub(crate) fn fmt_s(s: f64) -> String {
    fmt_num(s, crate::geom::SEC_DECIMALS)
}

/// Emit the clip as SVG text, names scoped by the rig name and a content
/// hash (see [`scope`]).
pub fn emit(clip: &Clip) -> String {
    emit_with_chains(clip, &[], None)
}

/// Emit a cycling clip that also holds Verlet chains whose segments carry
/// the classes `rb-chain rb-k<i>`, `colours[i]` the stroke of `rb-k<i>`
/// (without colours the bytes are those of [`emit`]). `prefix`: the scope's
/// prefix (`bake --prefix`), else the automatic one.
pub fn emit_with_chains(clip: &Clip, colours: &[String], prefix: Option<&str>) -> String {
    scope::scoped(&clip.name, prefix, |sc| emit_in(clip, colours, sc))
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
    doc.append(group(&w, &clip.root));
    finish(doc)
}

/// What the element writers share: the clip, the scope and the next id.
pub(crate) struct Writer<'a> {
    pub clip: &'a Clip,
    pub scope: &'a Scope,
    next_id: Cell<usize>,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(clip: &'a Clip, scope: &'a Scope) -> Self {
        Writer {
            clip,
            scope,
            next_id: Cell::new(0),
        }
    }

    /// css route: give `e` the next scoped id (see the module docs).
    fn pin(&self, e: &mut Element) {
        if self.clip.route == Route::Css {
            let n = self.next_id.get();
            self.next_id.set(n + 1);
            e.assign("id", self.scope.id(n));
        }
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
        ("data-period", fmt_s(clip.period_s)),
        ("data-route", clip.route.as_str().to_string()),
    ];
    for (k, v) in base.into_iter().chain(extra) {
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

/// The document's text, ending with a newline.
pub(crate) fn finish(doc: Element) -> String {
    let mut out = doc.to_string();
    out.push('\n');
    out
}

fn pt(p: Vec2) -> String {
    format!("{} {}", fmt_len(p.x), fmt_len(p.y))
}

/// `M p0 L p1 L p2 …`
pub(crate) fn polyline_d(points: &[Vec2]) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        d.push_str(if i == 0 { "M" } else { " L" });
        d.push(' ');
        d.push_str(&pt(*p));
    }
    d
}

/// `M p0 C p1 p2 p3 C p4 p5 p6 …` (1 + 3k points).
pub(crate) fn cubic_d(points: &[Vec2]) -> String {
    let mut d = String::new();
    for (i, p) in points.iter().enumerate() {
        d.push_str(match i {
            0 => "M",
            i if i % 3 == 1 => " C",
            _ => "",
        });
        d.push(' ');
        d.push_str(&pt(*p));
    }
    d
}

/// The `d` of a morph's value: lines or cubic Béziers (see [`Morph`]).
pub(crate) fn morph_d(m: &Morph, points: &[Vec2]) -> String {
    if m.cubic {
        cubic_d(points)
    } else {
        polyline_d(points)
    }
}

fn group(w: &Writer, node: &Node) -> Element {
    let animated = node.anim.is_some();
    let mut g = Element::new("g");
    if let Some(c) = &node.class {
        g.assign("class", w.scope.classes(c));
    }
    if animated || node.translate != Vec2::ZERO {
        w.pin(&mut g);
    }
    if animated && w.clip.route == Route::Smil {
        smil::animate_group(w.clip, node, &mut g);
    }
    for item in &node.children {
        g.append(item_element(w, item));
    }
    if node.translate != Vec2::ZERO {
        // A transform attribute would be overridden by a CSS animation (and
        // replaced by a SMIL one), so static placement goes on a wrapper.
        let translate = format!("translate({})", pt(node.translate));
        if animated {
            let mut outer = Element::new("g");
            w.pin(&mut outer);
            outer.assign("transform", translate);
            outer.append(g);
            return outer;
        }
        g.assign("transform", translate);
    }
    g
}

fn item_element(w: &Writer, item: &Item) -> Element {
    let sc = w.scope;
    match item {
        Item::Group(n) => group(w, n),
        Item::Line {
            from,
            to,
            class,
            width,
        } => {
            let mut e = Element::new("line");
            e.assign("class", sc.classes(class));
            e.assign("x1", fmt_len(from.x));
            e.assign("y1", fmt_len(from.y));
            e.assign("x2", fmt_len(to.x));
            e.assign("y2", fmt_len(to.y));
            e.assign("stroke-width", fmt_len(*width));
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
            e.assign("cx", fmt_len(at.x));
            e.assign("cy", fmt_len(at.y));
            // no `r`: it defaults to 0 (see the module docs)
            e
        }
        Item::Morph(m) => morph(w, m),
    }
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
    e.assign("stroke-width", fmt_len(m.width));
    if let Some(p) = &m.probe {
        e.assign("data-probe", p.clone());
    }
    e.assign("d", morph_d(m, &m.keys[0].1));
    // css route: `d: path()` keyframes in the style sheet (see
    // [`figure::css_rules`]) animate the path instead
    if w.clip.route == Route::Smil {
        e.append(smil::animate_d(w.clip, m));
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polyline_has_identical_commands() {
        let d = polyline_d(&[Vec2::new(1.0, 2.0), Vec2::new(-0.001, 3.456), Vec2::ZERO]);
        assert_eq!(d, "M 1 2 L 0 3.46 L 0 0");
    }

    #[test]
    fn cubic_path_groups_three_points_per_command() {
        let p = |x: f64| Vec2::new(x, 0.0);
        let d = cubic_d(&[p(0.0), p(1.0), p(2.0), p(3.0), p(4.0), p(5.0), p(6.0)]);
        assert_eq!(d, "M 0 0 C 1 0 2 0 3 0 C 4 0 5 0 6 0");
    }
}
