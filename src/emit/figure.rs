//! Bone-tree clips → SVG: one nested `<g>` per bone, root motion around it.
//!
//! **css route.** A rotating bone group gets `transform: rotate()` keyframes
//! about its drawn joint (`transform-origin` + `transform-box: view-box`);
//! the lift groups animate the individual `translate:` property and the
//! squash group `scale:` about its own origin (`transform-origin: 0 0`; the
//! pivot is placed by static translates on a parent and a child group, so
//! no transform attribute ever shares an element with an animated
//! property). The style sheet is written by [`super::css`], the one css
//! writer (timing functions, shared keyframe bodies, constant tracks).
//! Looping clips are `infinite`, one-shot clips `1 forwards` (hold the last
//! frame).
//!
//! **Class-switched clips** (a rig with `clips`): the css route writes one
//! skeleton and scopes every clip's rules under the class
//! `<prefix>-clip-<name>` ([`Scope::clip_class`]), which the root `<svg>`
//! carries (the first clip by default); setting another such class on the
//! root starts that clip from its beginning, no script needed. The clip
//! rules sit in one `@media all{…}` block and select the root by
//! `[class~="…"]`: svgo inlines only rules outside `@media` (so the current
//! clip's rules are not frozen into `style` attributes) and drops rules whose
//! class selectors name a class no element carries (an attribute selector
//! is not such a class selector), so every clip survives it. SMIL
//! animations run on the document timeline and a class cannot restart
//! them, so the smil route is given one clip per file (see
//! [`crate::figure::bake_figure`]).

use super::css::{Sheet, clip_name};
use super::scope::Scope;
use super::style::{self as figure_style, Look, Style};
use super::{Writer, group};
use crate::clip::{Clip, Route};
use std::fmt::Write;
use svg::Node as _;

/// Emit one or more clips of the same figure as one SVG, drawn in the
/// sticks look (see [`emit_figure_styled`]).
pub fn emit_figure(
    clips: &[Clip],
    switched: bool,
    colours: &[String],
    prefix: Option<&str>,
) -> String {
    let sticks = Style::of(Look::Sticks);
    emit_figure_styled(clips, switched, colours, &sticks, prefix)
}

/// Emit one or more clips of the same figure as one SVG. `switched`: the
/// rig listed `clips`, so each clip is selected by a
/// [`Scope::clip_class`] class on the root (css route only). All clips
/// share one route and one group structure; the drawing is the first
/// clip's, its look's rules ([`crate::figure::style::css`]) written once
/// in the style sheet. `prefix`: the scope's prefix (`bake --prefix`),
/// else automatic.
pub fn emit_figure_styled(
    clips: &[Clip],
    switched: bool,
    colours: &[String],
    look: &Style,
    prefix: Option<&str>,
) -> String {
    super::scope::scoped(prefix, |sc| emit_in(clips, switched, colours, look, sc))
}

/// The colour rules of a figure: `rb-s<i>` strokes (lines, chains) and
/// `rb-f<i>` fills (heads, figure-look limbs). The sticks look writes every
/// stroke rule and the fills only when there is a head (its bytes before
/// styles); the figure and limbs looks write only the rules some element
/// uses.
fn colour_rules(first: &Clip, colours: &[String], look: &Style, sc: &Scope) -> String {
    let mut used: Vec<String> = Vec::new();
    collect_classes(&first.root, &mut used);
    let uses = |c: &str| used.iter().any(|u| u.split(' ').any(|x| x == c));
    let mut style = String::new();
    for (i, c) in colours.iter().enumerate() {
        let name = format!("rb-s{i}");
        if look.look == Look::Sticks || uses(&name) {
            let _ = write!(style, ".{}{{stroke:{c}}}", sc.name(&name));
        }
    }
    let heads = used.iter().any(|u| u.starts_with("rb-head"));
    for (i, c) in colours.iter().enumerate() {
        let name = format!("rb-f{i}");
        let used_fill = look.look != Look::Sticks && uses(&name);
        if (look.look == Look::Sticks && heads) || used_fill {
            let _ = write!(style, ".{}{{fill:{c}}}", sc.name(&name));
        }
    }
    if let (Look::Figure, Some(h), true) = (look.look, &look.head_fill, heads) {
        // after the colour fills: a head's own fill wins
        let _ = write!(style, ".{}{{fill:{h}}}", sc.name("rb-head"));
    }
    style
}

/// Every class string of the drawing (groups and shapes), in tree order.
fn collect_classes(node: &crate::clip::Node, out: &mut Vec<String>) {
    use crate::clip::Item;
    for item in &node.children {
        let class = match item {
            Item::Group(n) => {
                collect_classes(n, out);
                continue;
            }
            Item::Line { class, .. }
            | Item::Circle { class, .. }
            | Item::Dots { class, .. }
            | Item::Rect { class, .. }
            | Item::Taper { class, .. }
            | Item::Part { class, .. } => class,
            Item::Morph(m) => &m.class,
            Item::Probe { .. } => continue,
        };
        if !out.contains(class) {
            out.push(class.clone());
        }
    }
}

fn emit_in(clips: &[Clip], switched: bool, colours: &[String], look: &Style, sc: &Scope) -> String {
    let first = &clips[0];
    let mut style = sc.sheet(&figure_style::css(look));
    style.push_str(&colour_rules(first, colours, look, sc));
    let caps = part_caps_rule(&first.root, sc);
    if let Some(rule) = &caps {
        style.push_str(rule);
    }
    let caps = caps.is_some();
    let select = |c: &Clip| -> String {
        if switched {
            format!("[class~=\"{}\"] ", sc.clip_class(&clip_name(c)))
        } else {
            String::new()
        }
    };
    let mut extra = Vec::new();
    if switched {
        extra.push(("class", sc.clip_class(&clip_name(first))));
        extra.push((
            "data-clips",
            clips.iter().map(clip_name).collect::<Vec<_>>().join(" "),
        ));
    }
    if first.route == Route::Css {
        // one sheet: clips that share a keyframe body share its block
        let mut sheet = Sheet::new(sc.clone());
        if let [only] = clips {
            sheet.one_clip(&clip_name(only));
        }
        for c in clips {
            sheet.add_clip(c, &select(c));
        }
        let (rules, frames) = sheet.parts();
        if switched {
            let _ = write!(style, "@media all{{{rules}}}");
        } else {
            style.push_str(&rules);
        }
        style.push_str(&frames);
        style.push_str(super::css::REDUCED_MOTION);
    }
    let mut doc = super::document(first, style, extra);
    let mut w = Writer::new(first, sc);
    w.part_caps = caps;
    doc.append(group(&w, &first.root));
    super::finish(doc)
}

/// The declarations every stroked scene part has: round caps and joins.
pub(crate) const PART_CAPS: &str = "stroke-linecap:round;stroke-linejoin:round";

/// The one rule that gives every scene part [`PART_CAPS`], selected by the
/// parts' class stem (`[class^="<prefix>-p-"]`: each part's class attribute
/// is its one scoped class `<prefix>-p-<name>`), when it is shorter than
/// the attributes it replaces on the stroked parts of `root`.
fn part_caps_rule(root: &crate::clip::Node, sc: &Scope) -> Option<String> {
    fn stroked(node: &crate::clip::Node) -> usize {
        use crate::clip::Item;
        node.children
            .iter()
            .map(|item| match item {
                Item::Group(n) => stroked(n),
                Item::Part {
                    stroke: Some(_), ..
                } => 1,
                _ => 0,
            })
            .sum()
    }
    let rule = format!("[class^=\"{}\"]{{{PART_CAPS}}}", sc.name("rb-p-"));
    let attrs = r#" stroke-linecap="round" stroke-linejoin="round""#.len();
    (stroked(root) * attrs > rule.len()).then_some(rule)
}

/// A `scene` part ([`crate::clip::Item::Part`]) as a `<path>` with
/// presentation attributes for its paint; its round caps and joins are
/// attributes too, or come from the sheet's one rule for every part
/// ([`part_caps_rule`], when that is shorter). Nothing else in the sheet
/// selects it but its own scoped class.
pub(crate) fn part_element(w: &Writer, item: &crate::clip::Item) -> svg::node::element::Element {
    use super::fmt_len;
    let crate::clip::Item::Part {
        class,
        d,
        stroke,
        width,
        fill,
        opacity,
        dash,
    } = item
    else {
        unreachable!("part_element is called with parts only")
    };
    let mut e = svg::node::element::Element::new("path");
    e.assign("class", w.scope.classes(class));
    e.assign("d", d.clone());
    e.assign("fill", fill.as_deref().unwrap_or("none"));
    match stroke {
        Some(s) => {
            e.assign("stroke", s.as_str());
            e.assign("stroke-width", fmt_len(*width));
            if !dash.is_empty() {
                let lengths: Vec<String> = dash.iter().map(|&x| fmt_len(x)).collect();
                e.assign("stroke-dasharray", lengths.join(" "));
            }
            if !w.part_caps {
                e.assign("stroke-linecap", "round");
                e.assign("stroke-linejoin", "round");
            }
        }
        None => e.assign("stroke", "none"),
    }
    if *opacity < 1.0 {
        e.assign("opacity", crate::geom::fmt_short(*opacity, 3));
    }
    e
}
