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

use super::Writer;
use super::css::{Sheet, clip_name};
use super::scope::Scope;
use super::style::{self as figure_style, Look, Style};
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
    let (part_rules, parts) = part_sheet(&first.root, sc);
    style.push_str(&part_rules);
    let (width_rules, widths) = width_rules(&first.root, sc);
    for (class, decl) in width_rules {
        join_rule(&mut style, &format!(".{class}"), &decl);
    }
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
        let (rules, frames) = Sheet::shortest(sc, |sheet| {
            if let [only] = clips {
                sheet.one_clip(&clip_name(only));
            }
            for c in clips {
                sheet.add_clip(c, &select(c));
            }
        });
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
    w.parts = parts;
    w.width_classes = widths;
    super::append_root(&mut doc, &w, &first.root);
    super::finish(doc)
}

/// Add `decl` to the sheet's rule whose whole selector is `selector`, or
/// write it as a rule of its own at the end: one rule, not two (the look's
/// `.<prefix>-bone{fill:none;…}` takes the bones' width too).
///
/// Only for a width rule ([`width_rules`]): moving `stroke-width` up to an
/// earlier rule of the same selector changes what wins only where a rule
/// between them sets `stroke-width` on the same elements, and none does:
/// the look's and colour rules set no width, the part rules select scene
/// parts only (no line wears a part's class), and two width rules agree on
/// every element wearing both (each one's elements all have its width).
fn join_rule(sheet: &mut String, selector: &str, decl: &str) {
    let open = format!("{selector}{{");
    // a rule starts the sheet or follows the previous rule's `}`
    let at = sheet
        .match_indices(&open)
        .map(|(i, _)| i)
        .find(|&i| i == 0 || sheet[..i].ends_with('}'));
    match at.and_then(|i| sheet[i..].find('}').map(|j| i + j)) {
        Some(close) => sheet.insert_str(close, &format!(";{decl}")),
        None => {
            let _ = write!(sheet, "{open}{decl}}}");
        }
    }
}

/// The declarations every stroked scene part has: round caps and joins.
pub(crate) const PART_CAPS: &str = "stroke-linecap:round;stroke-linejoin:round";

/// A scene part's paint as declarations (property, value), in the order
/// its attributes are written: `fill` (`none` unless given), `opacity`
/// (below 1), `stroke` (`none` for a fill-only part), `stroke-dasharray`
/// and `stroke-width` (stroked parts).
pub(crate) fn part_paint(item: &crate::clip::Item) -> Vec<(&'static str, String)> {
    use super::fmt_len;
    let crate::clip::Item::Part {
        stroke,
        width,
        fill,
        opacity,
        dash,
        ..
    } = item
    else {
        unreachable!("part_paint is called with parts only")
    };
    let mut v = vec![("fill", fill.clone().unwrap_or_else(|| "none".into()))];
    if *opacity < 1.0 {
        v.push(("opacity", crate::geom::fmt_short(*opacity, 3)));
    }
    match stroke {
        Some(s) => {
            v.push(("stroke", s.clone()));
            if !dash.is_empty() {
                let lengths: Vec<String> = dash.iter().map(|&x| fmt_len(x)).collect();
                v.push(("stroke-dasharray", lengths.join(" ")));
            }
            v.push(("stroke-width", fmt_len(*width)));
        }
        None => v.push(("stroke", "none".into())),
    }
    v
}

/// A part's paint as the body of a style rule: `fill:none;stroke:#333;…`.
fn paint_decls(paint: &[(&str, String)]) -> String {
    let decls: Vec<String> = paint.iter().map(|(p, v)| format!("{p}:{v}")).collect();
    decls.join(";")
}

/// Bytes of a part's paint written as its own attributes.
fn paint_attr_len(paint: &[(&str, String)]) -> usize {
    paint.iter().map(|(p, v)| p.len() + v.len() + 4).sum()
}

/// How the writer paints the scene parts of a file ([`part_sheet`]).
#[derive(Debug, Clone, Default)]
pub(crate) struct PartSheet {
    /// The sheet's rule for every part (`[class^=<prefix>-p-]`) gives
    /// stroked parts their round caps and joins ([`PART_CAPS`]).
    pub caps: bool,
    /// The paint declarations every part has, from that rule too.
    pub common: Vec<(&'static str, String)>,
    /// The looks the sheet writes once as a class: each look's
    /// declarations (less `common`) and its local class `rb-l<k>`.
    pub looks: Vec<(String, String)>,
}

impl PartSheet {
    /// A part's paint less the declarations the rule for every part gives.
    fn own(&self, paint: Vec<(&'static str, String)>) -> Vec<(&'static str, String)> {
        paint
            .into_iter()
            .filter(|pv| !self.common.contains(pv))
            .collect()
    }
}

/// Bytes of round caps and joins written as a part's attributes.
const CAPS_ATTRS_LEN: usize = r#" stroke-linecap="round" stroke-linejoin="round""#.len();

/// How the scene parts of `root` are painted, and the sheet's rules for
/// them (scoped), whichever of these forms writes the fewest bytes:
///
/// - one rule for every part, selected by the parts' class stem
///   (`[class^=<prefix>-p-]`: each part's class attribute starts with
///   its scoped class `<prefix>-p-<name>`; a prefix starts with a letter or
///   `_`, so the stem is an identifier and needs no quotes), holding round
///   caps and joins
///   ([`PART_CAPS`]) for the stroked ones, the paint declarations every
///   part has (such as `fill:none`), both, or absent;
/// - each look (the rest of a part's paint) worn by several parts written
///   once as a class `rb-l<k>` (`l` for look) with its rule
///   `.<prefix>-l<k>{…}`, where that is shorter than each of those parts
///   writing it as presentation attributes (a look worn by one part keeps
///   its attributes).
///
/// The rules select parts only (no other element carries these classes)
/// and no two of them set one property, so their order does not matter.
fn part_sheet(root: &crate::clip::Node, sc: &Scope) -> (String, PartSheet) {
    fn walk(node: &crate::clip::Node, out: &mut Vec<(Vec<(&'static str, String)>, bool)>) {
        use crate::clip::Item;
        for item in &node.children {
            match item {
                Item::Group(n) => walk(n, out),
                Item::Part { stroke, d, .. } => {
                    // (a part drawn as a circle has no caps or joins)
                    let capped = stroke.is_some() && whole_circle(d).is_none();
                    out.push((part_paint(item), capped));
                }
                _ => {}
            }
        }
    }
    let mut parts = Vec::new();
    walk(root, &mut parts);
    let Some((first, _)) = parts.first() else {
        return (String::new(), PartSheet::default());
    };
    let everywhere: Vec<(&'static str, String)> = first
        .iter()
        .filter(|pv| parts.iter().all(|(p, _)| p.contains(pv)))
        .cloned()
        .collect();
    let capped = parts.iter().filter(|(_, c)| *c).count();
    let stem = sc.name("rb-p-");
    // (the sheet's rules, the writer's form, bytes written)
    let form = |caps: bool, common: bool| -> (String, PartSheet, usize) {
        let sheet = PartSheet {
            caps,
            common: if common {
                everywhere.clone()
            } else {
                Vec::new()
            },
            looks: Vec::new(),
        };
        let mut body: Vec<String> = Vec::new();
        if caps {
            body.push(PART_CAPS.to_string());
        }
        if !sheet.common.is_empty() {
            body.push(paint_decls(&sheet.common));
        }
        let mut rules = String::new();
        if !body.is_empty() {
            let _ = write!(rules, "[class^={stem}]{{{}}}", body.join(";"));
        }
        let mut bytes = rules.len() + if caps { 0 } else { capped * CAPS_ATTRS_LEN };
        // each remaining look: its parts, and its attributes' bytes
        let mut looks: Vec<(String, usize, usize)> = Vec::new();
        for (paint, _) in &parts {
            let own = sheet.own(paint.clone());
            if own.is_empty() {
                continue;
            }
            let decls = paint_decls(&own);
            match looks.iter_mut().find(|(d, _, _)| *d == decls) {
                Some((_, n, _)) => *n += 1,
                None => looks.push((decls, 1, paint_attr_len(&own))),
            }
        }
        let mut sheet = sheet;
        for (decls, n, attrs) in looks {
            let local = format!("rb-l{}", sheet.looks.len());
            let class = sc.name(&local);
            let rule = format!(".{class}{{{decls}}}");
            let shared = rule.len() + n * (1 + class.len());
            if shared < n * attrs {
                rules.push_str(&rule);
                sheet.looks.push((decls, local));
                bytes += shared;
            } else {
                bytes += n * attrs;
            }
        }
        (rules, sheet, bytes)
    };
    let mut best = form(false, false);
    for (caps, common) in [(true, false), (false, true), (true, true)] {
        let other = form(caps, common);
        if other.2 < best.2 {
            best = other;
        }
    }
    (best.0, best.1)
}

/// The rules that give lines their stroke width by class (each as its
/// scoped class and its declaration, in order; [`join_rule`] writes them),
/// and those classes (local): a class every element of which is a line or a morphed
/// path of one width (and at least one of them) may carry that width in
/// the sheet instead of each element's `stroke-width` attribute (a rule
/// wins over a presentation attribute, so a class worn by anything else
/// is never chosen). Classes are chosen in turn by the bytes they save,
/// the most first, over the lines no chosen class covers yet, while a
/// rule saves bytes.
fn width_rules(root: &crate::clip::Node, sc: &Scope) -> (Vec<(String, String)>, Vec<String>) {
    use crate::clip::Item;
    // every element with a class: its class tokens and its written width
    // (None: not a line or morph, or a group)
    fn walk(node: &crate::clip::Node, out: &mut Vec<(Vec<String>, Option<String>)>) {
        for item in &node.children {
            let (class, width) = match item {
                Item::Group(n) => {
                    // (a group's class is no line's: a width would be inherited)
                    if let Some(c) = &n.class {
                        out.push((c.split_ascii_whitespace().map(String::from).collect(), None));
                    }
                    walk(n, out);
                    continue;
                }
                Item::Line { class, width, .. } => (class, Some(super::fmt_len(*width))),
                Item::Morph(m) => (&m.class, Some(super::fmt_len(m.width))),
                Item::Circle { class, .. }
                | Item::Dots { class, .. }
                | Item::Rect { class, .. }
                | Item::Taper { class, .. }
                | Item::Part { class, .. } => (class, None),
                Item::Probe { .. } => continue,
            };
            let tokens = class.split_ascii_whitespace().map(String::from).collect();
            out.push((tokens, width));
        }
    }
    let mut items = Vec::new();
    walk(root, &mut items);
    let mut covered = vec![false; items.len()];
    let mut chosen: Vec<String> = Vec::new();
    let mut rules = Vec::new();
    loop {
        // (saving, class, width) of the best class left
        let mut best: Option<(usize, String, String)> = None;
        let mut tokens: Vec<&String> = items.iter().flat_map(|(t, _)| t).collect();
        tokens.sort();
        tokens.dedup();
        for token in tokens {
            if chosen.contains(token) {
                continue;
            }
            let wearing: Vec<usize> = (0..items.len())
                .filter(|&i| items[i].0.contains(token))
                .collect();
            let Some(width) = items[wearing[0]].1.clone() else {
                continue;
            };
            if wearing.iter().any(|&i| items[i].1.as_ref() != Some(&width)) {
                continue;
            }
            let rule = format!(".{}{{stroke-width:{width}}}", sc.name(token));
            let attr = r#" stroke-width="""#.len() + width.len();
            let saved = wearing.iter().filter(|&&i| !covered[i]).count() * attr;
            if saved > rule.len()
                && best
                    .as_ref()
                    .is_none_or(|(s, _, _)| saved - rule.len() > *s)
            {
                best = Some((saved - rule.len(), token.clone(), width));
            }
        }
        let Some((_, token, width)) = best else { break };
        for (i, (t, _)) in items.iter().enumerate() {
            if t.contains(&token) {
                covered[i] = true;
            }
        }
        rules.push((sc.name(&token), format!("stroke-width:{width}")));
        chosen.push(token);
    }
    (rules, chosen)
}

/// The centre and radius of path data that is one whole circle written as
/// rigbake writes it (`M x y A r r 0 f 1 x-2r y A r r 0 f 1 x y Z`: from
/// its rightmost point, two half turns clockwise on screen, closed), which
/// is the path a `<circle>` stands for point for point, its dashes
/// included (SVG 2: a circle starts at `cx + r, cy` and runs toward
/// `cx, cy + r`). `None` for any other data.
pub(crate) fn whole_circle(d: &str) -> Option<(f64, f64, f64)> {
    use super::{PER_UNIT, thousandths};
    let tokens = path_tokens(d);
    if tokens.len() != 20 || tokens[0] != "M" || tokens[3] != "A" || tokens[11] != "A" {
        return None;
    }
    if tokens[19] != "Z" {
        return None;
    }
    // every number in whole thousandths (as written, nothing rounded away)
    let num = |i: usize| -> Option<i64> {
        let v: f64 = tokens[i].parse().ok()?;
        let h = thousandths(v);
        (h as f64 / PER_UNIT == v).then_some(h)
    };
    let (x, y, r) = (num(1)?, num(2)?, num(4)?);
    let half = |k: usize, to: (i64, i64)| -> Option<()> {
        let ok = num(k)? == r
            && num(k + 1)? == r
            && tokens[k + 2] == "0"
            && matches!(tokens[k + 3], "0" | "1")
            && tokens[k + 4] == "1"
            && num(k + 5)? == to.0
            && num(k + 6)? == to.1;
        ok.then_some(())
    };
    (r > 0).then_some(())?;
    half(4, (x - 2 * r, y))?;
    half(12, (x, y))?;
    let v = |h: i64| h as f64 / PER_UNIT;
    Some((v(x - r), v(y), v(r)))
}

/// Where path data that is one straight segment (`M x0 y0 L x1 y1`, both
/// points absolute) ends: the last point of the `<path>` a part with this
/// data is written as ([`part_element`]), so a probe there may ride it as
/// a line's does (see the module docs of [`super`]). `None` for any other
/// data, and for an end not written in whole thousandths (a probe's point
/// is: the end must be that point as written, not near it).
pub(crate) fn straight_end(d: &str) -> Option<crate::geom::Vec2> {
    use super::{PER_UNIT, thousandths};
    let tokens = path_tokens(d);
    if tokens.len() != 6 || tokens[0] != "M" || tokens[3] != "L" {
        return None;
    }
    let num = |i: usize| tokens[i].parse::<f64>().ok().filter(|v| v.is_finite());
    let exact = |i: usize| num(i).filter(|&v| thousandths(v) as f64 / PER_UNIT == v);
    num(1)?;
    num(2)?;
    Some(crate::geom::Vec2::new(exact(4)?, exact(5)?))
}

/// Path data as tokens: command letters, and numbers (a sign or a second
/// `.` starts a new one, as the path grammar reads them).
fn path_tokens(d: &str) -> Vec<&str> {
    let mut tokens: Vec<&str> = Vec::new();
    let mut start: Option<usize> = None;
    let mut dot = false;
    for (i, c) in d.char_indices() {
        let new_number = c == '-' || c == '+' || (c == '.' && dot);
        if c == ' ' || c == ',' || c.is_ascii_alphabetic() || new_number {
            if let Some(s) = start.take() {
                tokens.push(&d[s..i]);
            }
            dot = false;
        }
        if c.is_ascii_alphabetic() {
            tokens.push(&d[i..i + 1]);
        } else if c != ' ' && c != ',' {
            start.get_or_insert(i);
            dot |= c == '.';
        }
    }
    if let Some(s) = start {
        tokens.push(&d[s..]);
    }
    tokens
}

/// A `scene` part ([`crate::clip::Item::Part`]) as a `<path>`, or as a
/// `<circle>` when its data is one whole circle ([`whole_circle`]). Its
/// paint is its look's class where the sheet shares that look
/// ([`part_looks`]), else presentation attributes; its round caps and
/// joins are attributes too, or come from the sheet's one rule for every
/// part ([`part_sheet`], when that is shorter). Nothing else in the
/// sheet selects it but its own scoped class.
pub(crate) fn part_element(w: &Writer, item: &crate::clip::Item) -> svg::node::element::Element {
    use super::fmt_len;
    let crate::clip::Item::Part {
        class, d, stroke, ..
    } = item
    else {
        unreachable!("part_element is called with parts only")
    };
    let paint = w.parts.own(part_paint(item));
    let decls = paint_decls(&paint);
    let look = w.parts.looks.iter().find(|(l, _)| *l == decls);
    let circle = whole_circle(d);
    let mut e = match circle {
        Some((cx, cy, r)) => {
            let mut e = svg::node::element::Element::new("circle");
            e.assign("cx", fmt_len(cx));
            e.assign("cy", fmt_len(cy));
            e.assign("r", fmt_len(r));
            e
        }
        None => {
            let mut e = svg::node::element::Element::new("path");
            e.assign("d", d.clone());
            e
        }
    };
    match look {
        // the part's own class first: the caps rule selects parts by it
        Some((_, local)) => e.assign("class", w.scope.classes(&format!("{class} {local}"))),
        None => {
            e.assign("class", w.scope.classes(class));
            for (p, v) in paint {
                e.assign(p, v);
            }
        }
    }
    // (a closed circle has no caps or joins to draw)
    if stroke.is_some() && !w.parts.caps && circle.is_none() {
        e.assign("stroke-linecap", "round");
        e.assign("stroke-linejoin", "round");
    }
    e
}

#[cfg(test)]
mod tests {
    use super::whole_circle;

    /// Only a circle drawn as a `<circle>` is drawn (dashes included):
    /// from its rightmost point, clockwise on screen, closed.
    #[test]
    fn a_whole_circle_is_read_only_in_the_circles_own_path() {
        let ring = "M442.5 420A22.5 22.5 0 1 1 397.5 420A22.5 22.5 0 1 1 442.5 420Z";
        assert_eq!(whole_circle(ring), Some((420.0, 420.0, 22.5)));
        assert_eq!(
            whole_circle("M350 440A100 100 0 0 1 150 440A100 100 0 0 1 350 440Z"),
            Some((250.0, 440.0, 100.0))
        );
        assert_eq!(
            whole_circle("M.5-1A.25 .25 0 1 1 0-1A.25 .25 0 1 1 .5-1Z"),
            Some((0.25, -1.0, 0.25))
        );
        for other in [
            // from the leftmost point, counter-clockwise, not closed
            "M397.5 420A22.5 22.5 0 1 1 442.5 420A22.5 22.5 0 1 1 397.5 420Z",
            "M442.5 420A22.5 22.5 0 1 0 397.5 420A22.5 22.5 0 1 0 442.5 420Z",
            "M442.5 420A22.5 22.5 0 1 1 397.5 420A22.5 22.5 0 1 1 442.5 420",
            // an ellipse, a turned arc, a half circle, a line
            "M442.5 420A22.5 20 0 1 1 397.5 420A22.5 20 0 1 1 442.5 420Z",
            "M442.5 420A22.5 22.5 30 1 1 397.5 420A22.5 22.5 30 1 1 442.5 420Z",
            "M442.5 420A22.5 22.5 0 1 1 397.5 420Z",
            "M0 0L10 0",
            "",
        ] {
            assert_eq!(whole_circle(other), None, "{other}");
        }
    }
}
