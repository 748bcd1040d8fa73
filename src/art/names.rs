//! The drawing's own names made the file's own.
//!
//! CSS in an inline `<svg>` is global to the HTML page, and so are ids
//! ([`crate::emit::scope`]): two inlined drawings that both define
//! Inkscape's `linearGradient1` or Illustrator's `.cls-1` would take each
//! other's gradient or style, and a drawing's `.shade{…}` would style
//! another file's `.shade`. Every name of the drawing that a page holds
//! once for all its files (ids, classes, `@keyframes` names, `@font-face`
//! families, custom properties and the other dashed idents) therefore gets
//! the file's stem in front ([`Scope::drawn_stem`], `<prefix>_`, which no
//! name rigbake writes begins with; after the `--` of a dashed ident), and
//! every reference to one gets it the same way:
//!
//! - `id` and `xml:id` attributes, and every class of a `class` attribute;
//! - `href` and `xlink:href` of the form `#name` (`<use>`, a gradient's
//!   template, `<textPath>`, `<mpath>`, an animation's target, `<a>`);
//! - `url(#name)` in presentation attributes ([`URL_ATTRS`]), in `style`
//!   attributes and in `<style>` sheets, and in the `values`, `from`, `to`
//!   and `by` of the drawing's SMIL animations (as `#name` there when
//!   they animate `href`);
//! - the id lists of `aria-labelledby` and its kin, of HTML inside a
//!   `<foreignObject>` (`for`, `list`, …) and `viewTarget` ([`IDREFS`]);
//! - `font-family` attributes (and SMIL values of `font-family`) naming a
//!   family the drawing's `@font-face` defines;
//! - SMIL `begin` and `end` values that name an element (`fade.end`,
//!   `knob.click+1s`);
//! - in `<style>` sheets, `#id` and `.class` selectors, `@keyframes`
//!   names and the `animation` references to them, `@font-face` families
//!   and the `font-family` and `font` references to them, `element(#…)`
//!   and `src("#…")`;
//! - in sheets, `style` attributes and [`URL_ATTRS`], every dashed
//!   ident: `@property --x`, `--x: …`, `var(--x)`, `transition:
//!   --x`, `@font-palette-values`, `@position-try`, `anchor-name` (a
//!   registered property or a custom property set on `:root` is one for
//!   the whole page). All of it is read as CSS reads it (module `css`:
//!   escapes, strings and comments; `#fff` in a declaration is a colour
//!   and stays).
//!
//! A reference to a name the drawing does not define gets the stem too
//! (in a page it would reach another file's element); one to another
//! document (`other.svg#a`) is left alone. Parts are found by their names
//! as drawn: only the written text changes. Every change is an insertion
//! of the stem, except in an attribute or a sheet whose text is not its
//! value as is (XML character or entity references, line breaks the
//! parser normalises): that one is written again whole, escaped. A sheet
//! in text and CDATA sections between comments is still written in place.
//!
//! Refused, naming the line: a sheet rigbake cannot rewrite so that it
//! means what it meant (module `css`: `@import`, an at-rule block it does
//! not know, an attribute selector on a rewritten attribute such as
//! `[id^="leg"]`), a `<style>` holding elements, and SMIL that animates
//! `id` or `class`. Editor data in other namespaces (`inkscape:`,
//! `sodipodi:`), scripts and event handler attributes are not rewritten.

use super::css;
use super::{ArtError, Insert, LineIndex, SVG_NS, joined, start_tag_end};
use crate::emit::scope::Scope;
use roxmltree::{Document, Node};
use std::borrow::Cow;
use std::ops::Range;

const XLINK_NS: &str = "http://www.w3.org/1999/xlink";
const XML_NS: &str = "http://www.w3.org/XML/1998/namespace";

/// Presentation attributes that may hold a `url(#…)` reference.
pub(super) const URL_ATTRS: &[&str] = &[
    "fill",
    "stroke",
    "clip-path",
    "mask",
    "filter",
    "marker",
    "marker-start",
    "marker-mid",
    "marker-end",
    "cursor",
];

/// Attributes that hold an id or a list of ids: ARIA's, those of HTML
/// elements inside a `<foreignObject>` (a `<label>`'s `for`, an
/// `<input>`'s `form` and `list`, …) and SVG 1.1's `viewTarget`.
pub(super) const IDREFS: &[&str] = &[
    "aria-labelledby",
    "aria-describedby",
    "aria-controls",
    "aria-owns",
    "aria-flowto",
    "aria-activedescendant",
    "aria-details",
    "aria-errormessage",
    "for",
    "form",
    "list",
    "headers",
    "itemref",
    "popovertarget",
    "commandfor",
    "interestfor",
    "viewTarget",
];

/// Whether an attribute's value may change (a sheet's attribute selector
/// that tests its value is refused): `id`, `class`, the references,
/// [`URL_ATTRS`], [`IDREFS`].
pub(super) fn rewritten(attr: &str) -> bool {
    const OTHERS: &[&str] = &[
        "id",
        "class",
        "href",
        "style",
        "begin",
        "end",
        "values",
        "from",
        "to",
        "by",
        "font-family",
    ];
    [OTHERS, URL_ATTRS, IDREFS]
        .iter()
        .any(|list| list.contains(&attr))
}

/// SMIL elements, whose `begin` and `end` may name other elements.
const ANIMATIONS: &[&str] = &[
    "animate",
    "set",
    "animateTransform",
    "animateMotion",
    "animateColor",
    "discard",
];

/// Most names a drawing may have scoped (ids, classes, names in its
/// sheets and every reference to one): each is an edit held in memory and
/// a copy of the prefix written (a 60 MB `class` of 30 million one-letter
/// names took 4 GB and wrote 240 MB).
pub const MAX_SCOPED_NAMES: usize = 1_000_000;

/// The names given the stem so far, against [`MAX_SCOPED_NAMES`]: the
/// one count every reading of the drawing's names draws its room from
/// (sheets, attributes, `style` attributes, SMIL values), so that each
/// stops where its names run past what is left.
#[derive(Default)]
struct Tally(usize);

impl Tally {
    /// How many more names may be given the stem.
    fn room(&self) -> usize {
        MAX_SCOPED_NAMES - self.0
    }

    /// `n` more, at most the room.
    fn add(&mut self, n: usize) {
        assert!(
            n <= self.room(),
            "{n} names read with room for {}",
            self.room()
        );
        self.0 += n;
    }
}

/// The offsets `names` yields, or `None` when there are more than `room`
/// (reading no more than one past it).
fn at_most(names: impl Iterator<Item = usize>, room: usize) -> Option<Vec<usize>> {
    let at: Vec<usize> = names.take(room.saturating_add(1)).collect();
    (at.len() <= room).then_some(at)
}

/// The `<style>` elements of `doc`.
fn styles<'a, 'input>(doc: &'a Document<'input>) -> Vec<Node<'a, 'input>> {
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() == "style")
        .collect()
}

/// The drawing's sheets as first read ([`Sheets::read`]): the keyframes
/// names and font families they define, which `animation` and
/// `font-family` anywhere may refer to, and where that reading stopped.
pub(super) struct Sheets {
    defined: css::Defined,
    /// The sheet (its place among the `<style>` elements) where the
    /// reading stopped, and why.
    stop: Option<(usize, Stop)>,
}

/// Why the first reading of the sheets stopped.
enum Stop {
    /// The `<style>` holds an element ([`Sheet::of`] refuses it).
    Element,
    /// What the sheet holds is refused, or its names run past the room.
    Refused(css::Refused),
}

impl Sheets {
    /// Reads every sheet of `doc` once for two things: a declaration that
    /// moves what it draws (module `css`), refused naming the first
    /// `<style>` that holds one; and the names the sheets define, read with
    /// the limit of [`scoped`] (their names are among those [`scoped`]
    /// reads, which has them all and runs over no later), up to the first
    /// sheet refused or past the limit. A sheet whose text for the first
    /// check is not its sheet (it holds comments or elements) is read for
    /// each apart.
    pub(super) fn read(doc: &Document, lines: &LineIndex) -> Result<Sheets, ArtError> {
        let mut defined = css::Defined::default();
        let mut first = Tally::default();
        let mut stop = None;
        for (k, &n) in styles(doc).iter().enumerate() {
            let moves = |property| ArtError::MovingSheet {
                line: lines.row(n.range().start),
                property,
            };
            // the text of the children, comments too
            let all = joined(n.children().filter_map(|c| c.text()));
            let sheet_is_all = n.children().all(|c| c.is_text() || c.is_pi());
            if (stop.is_some() || !sheet_is_all)
                && let Some(property) = css::moving_in_sheet(&all)
            {
                return Err(moves(property));
            }
            if stop.is_some() {
                continue;
            }
            if n.children().any(|c| c.is_element()) {
                stop = Some((k, Stop::Element));
                continue;
            }
            let names = if sheet_is_all {
                match css::read_sheet(&all, first.room()) {
                    css::SheetReading::Moves(property) => return Err(moves(property)),
                    css::SheetReading::Names(names) => names,
                }
            } else {
                let text = joined(
                    n.children()
                        .filter(|c| c.is_text())
                        .filter_map(|c| c.text()),
                );
                css::sheet_names(&text, &css::Defined::default(), first.room())
            };
            match names {
                Ok(names) => {
                    first.add(names.at.len());
                    defined.add(names);
                }
                Err(refused) => stop = Some((k, Stop::Refused(refused))),
            }
        }
        Ok(Sheets { defined, stop })
    }
}

/// The insertions (and, for text that is not its value as is,
/// replacements) that give every name of the drawing `art` (parsed as
/// `doc`, its sheets first read as `sheets`) the stem of `sc`, at most
/// [`MAX_SCOPED_NAMES`] of them: the names are counted as they are read,
/// and the drawing is refused where the count runs past that (the line of
/// the element, or in a sheet the line of the piece of CSS whose names
/// run over), before the rest is read.
pub(super) fn scoped(
    art: &str,
    doc: &Document,
    lines: &LineIndex,
    sc: &Scope,
    sheets: &Sheets,
) -> Result<Vec<Insert>, ArtError> {
    let stem = sc.drawn_stem();
    let styles = styles(doc);
    let defined = &sheets.defined;
    if let Some((k, stop)) = &sheets.stop {
        let sheet = Sheet::of(art, styles[*k], lines)?;
        match stop {
            Stop::Element => unreachable!("a <style> holding an element is refused"),
            Stop::Refused(css::Refused::Unscopable(u)) => return Err(sheet.refused(u.clone())),
            // with nothing defined, the reading below is the first one
            Stop::Refused(css::Refused::Over(at)) if defined.is_empty() => {
                return Err(sheet.too_many(*at));
            }
            // read below with what the sheets before define
            Stop::Refused(css::Refused::Over(_)) => {}
        }
    }
    let mut tally = Tally::default();
    let mut out = Vec::new();
    for &n in &styles {
        let sheet = Sheet::of(art, n, lines)?;
        let names = match css::sheet_names(&sheet.text, defined, tally.room()) {
            Ok(names) => names,
            Err(css::Refused::Unscopable(u)) => return Err(sheet.refused(u)),
            Err(css::Refused::Over(at)) => return Err(sheet.too_many(at)),
        };
        tally.add(names.at.len());
        if !names.at.is_empty() {
            out.extend(sheet.edits(art, &names.at, &stem));
        }
    }
    for node in doc.descendants().filter(|n| n.is_element()) {
        let smil = node.tag_name().namespace() == Some(SVG_NS)
            && ANIMATIONS.contains(&node.tag_name().name());
        let animated = node
            .attribute("attributeName")
            .filter(|_| smil)
            .map(|a| a.trim().rsplit(':').next().unwrap_or_default());
        if let Some(a @ ("id" | "class")) = animated {
            return Err(ArtError::Unscopable {
                line: lines.row(node.range().start),
                what: format!("<{}> animates `{a}`", node.tag_name().name()),
                fix: format!("animate what the {a} stands for (a fill, an opacity) instead"),
            });
        }
        for a in node.attributes() {
            let value = a.value();
            let room = tally.room();
            let declared = |v: &str| css::declaration_names(v, defined, room).ok().map(|n| n.at);
            let at: Option<Vec<usize>> = match (a.namespace(), a.name()) {
                (None | Some(XML_NS), "id") => at_most([0].into_iter(), room),
                (None, "class") => at_most(words(value), room),
                (None, n) if IDREFS.contains(&n) => at_most(words(value), room),
                (None | Some(XLINK_NS), "href") => at_most(fragment(value).into_iter(), room),
                (None, "style") => declared(value),
                (None, n) if URL_ATTRS.contains(&n) => declared(value),
                (None, "font-family") => css::family_names(value, defined, room).ok().map(|n| n.at),
                (None, "begin" | "end") if smil => at_most(timing(value), room),
                (None, "values" | "from" | "to" | "by") if smil => {
                    if animated == Some("href") {
                        let refs = items(value).filter_map(|(k, item)| Some(k + fragment(item)?));
                        at_most(refs, room)
                    } else if animated == Some("font-family") {
                        families(value, defined, room)
                    } else {
                        declared(value)
                    }
                }
                _ => continue,
            };
            let Some(at) = at else {
                return Err(ArtError::TooManyNames {
                    line: lines.row(node.range().start),
                });
            };
            if at.is_empty() {
                continue;
            }
            tally.add(at.len());
            let range = value_range(art, &a);
            out.extend(edits(art, range, value, &at, &stem, Escape::Attribute));
        }
    }
    Ok(out)
}

/// The families of `defined` a SMIL `values` list of `font-family` values
/// names, or `None` when more than `room`.
fn families(value: &str, defined: &css::Defined, room: usize) -> Option<Vec<usize>> {
    let mut at = Vec::new();
    for (k, item) in items(value) {
        let names = css::family_names(item, defined, room - at.len()).ok()?;
        at.extend(names.at.into_iter().map(|a| k + a));
    }
    Some(at)
}

/// A `<style>` element's sheet and where its text is.
struct Sheet<'a> {
    /// The sheet: the element's text, as a browser reads it.
    text: Cow<'a, str>,
    /// The element's content in the drawing.
    content: Range<usize>,
    /// The line the content starts on.
    line: u32,
}

impl<'a> Sheet<'a> {
    fn of(art: &str, n: Node<'a, '_>, lines: &LineIndex) -> Result<Sheet<'a>, ArtError> {
        if let Some(e) = n.children().find(|c| c.is_element()) {
            return Err(ArtError::Unscopable {
                line: lines.row(e.range().start),
                what: format!("<style> holds an element (<{}>)", e.tag_name().name()),
                fix: "keep only the style sheet's text in it".into(),
            });
        }
        let r = n.range();
        let start = start_tag_end(art, r.start).unwrap_or(r.end).min(r.end);
        let end = if art[r.start..start].ends_with("/>") {
            start
        } else {
            art[start..r.end].rfind("</").map_or(start, |k| start + k)
        };
        Ok(Sheet {
            text: joined(
                n.children()
                    .filter(|c| c.is_text())
                    .filter_map(|c| c.text()),
            ),
            content: start..end,
            line: lines.row(start),
        })
    }

    /// The line of byte `at` of the sheet.
    fn line_at(&self, at: usize) -> u32 {
        let at = at.min(self.text.len());
        let newlines = self.text.as_bytes()[..at].iter().filter(|&&b| b == b'\n');
        self.line
            .saturating_add(u32::try_from(newlines.count()).unwrap_or(u32::MAX))
    }

    fn refused(&self, u: css::Unscopable) -> ArtError {
        ArtError::Unscopable {
            line: self.line_at(u.at),
            what: format!("<style> {}", u.what),
            fix: u.fix.into(),
        }
    }

    /// The names run past [`MAX_SCOPED_NAMES`] at byte `at`.
    fn too_many(&self, at: usize) -> ArtError {
        ArtError::TooManyNames {
            line: self.line_at(at),
        }
    }

    /// The stem at every offset `at` of the sheet: insertions where the
    /// content holds the sheet verbatim ([`verbatim_pieces`]), else the
    /// content written again.
    fn edits(&self, art: &str, at: &[usize], stem: &str) -> Vec<Insert> {
        let raw = &art[self.content.clone()];
        match verbatim_pieces(raw, self.content.start, &self.text) {
            Some(pieces) if !pieces.is_empty() => at
                .iter()
                .map(|&k| {
                    let (from, pos) = pieces[pieces.partition_point(|p| p.0 <= k).max(1) - 1];
                    Insert::at(pos + k - from, stem.to_string())
                })
                .collect(),
            _ => edits(
                art,
                self.content.clone(),
                &self.text,
                at,
                stem,
                Escape::Text,
            ),
        }
    }
}

/// Where the pieces of a `<style>`'s sheet `text` stand in its content
/// `raw` (at byte `base` of the drawing), when the content holds them
/// verbatim: character data without references or carriage returns and
/// CDATA sections without carriage returns, between comments and
/// processing instructions. Each piece as its offset in the sheet and its
/// position in the drawing, in order; `None` when a piece is not verbatim.
fn verbatim_pieces(raw: &str, base: usize, text: &str) -> Option<Vec<(usize, usize)>> {
    let mut pieces = Vec::new();
    let mut joined = String::new();
    let mut at = 0;
    while at < raw.len() {
        let rest = &raw[at..];
        let (content, skip, len) = if let Some(r) = rest.strip_prefix("<!--") {
            ("", 0, 4 + r.find("-->")? + 3)
        } else if rest.starts_with("<?") {
            ("", 0, rest.find("?>")? + 2)
        } else if let Some(r) = rest.strip_prefix("<![CDATA[") {
            let end = r.find("]]>")?;
            (&r[..end], 9, 9 + end + 3)
        } else if rest.starts_with('<') {
            return None;
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            if rest[..end].contains('&') {
                return None;
            }
            (&rest[..end], 0, end)
        };
        if content.contains('\r') {
            return None;
        }
        if !content.is_empty() {
            pieces.push((joined.len(), base + at + skip));
            joined.push_str(content);
        }
        at += len;
    }
    (joined == text).then_some(pieces)
}

/// How text written again is escaped.
#[derive(Clone, Copy)]
enum Escape {
    /// An attribute value in the quotes it stands in.
    Attribute,
    /// Element content (a style sheet).
    Text,
}

/// The stem at every offset `at` of `value`, whose text in `art` is at
/// `range`: one insertion each where that text is the value as is, else
/// the text written again.
fn edits(
    art: &str,
    range: Range<usize>,
    value: &str,
    at: &[usize],
    stem: &str,
    escape: Escape,
) -> Vec<Insert> {
    if art[range.clone()] == *value {
        return at
            .iter()
            .map(|&k| Insert::at(range.start + k, stem.to_string()))
            .collect();
    }
    let text = css::with_stem(value, at, stem);
    let text = match escape {
        Escape::Text if !text.contains("]]>") => format!("<![CDATA[{text}]]>"),
        Escape::Text => escaped(&text, None),
        Escape::Attribute => escaped(&text, art[..range.start].chars().next_back()),
    };
    vec![Insert::replace(range, text)]
}

/// `text` as XML character data (inside `quote` for an attribute): the
/// characters the parser would read otherwise as references.
fn escaped(text: &str, quote: Option<char>) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if quote == Some('"') => out.push_str("&quot;"),
            '\'' if quote == Some('\'') => out.push_str("&apos;"),
            // an attribute's line breaks and tabs are spaces to the parser
            '\t' | '\n' | '\r' if quote.is_some() => {
                out.push_str(&format!("&#{};", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out
}

/// The value of attribute `a` in `art`, without its quotes.
fn value_range(art: &str, a: &roxmltree::Attribute) -> Range<usize> {
    let r = a.range();
    let text = &art[r.clone()];
    let eq = text.find('=').expect("an attribute has an =");
    let quote = text[eq..]
        .find(['"', '\''])
        .expect("an attribute value is quoted");
    r.start + eq + quote + 1..r.end - 1
}

/// The start of every whitespace-separated word of `value`.
fn words(value: &str) -> impl Iterator<Item = usize> + '_ {
    let b = value.as_bytes();
    (0..b.len())
        .filter(|&k| !b[k].is_ascii_whitespace() && (k == 0 || b[k - 1].is_ascii_whitespace()))
}

/// The items of a `;`-separated list with their offsets.
fn items(value: &str) -> impl Iterator<Item = (usize, &str)> {
    value.split(';').scan(0, |k, item| {
        let at = *k;
        *k += item.len() + 1;
        Some((at, item))
    })
}

/// Where the name of a reference `#name` to an element of the document
/// starts (after leading whitespace and the `#`).
fn fragment(value: &str) -> Option<usize> {
    let lead = value.len() - value.trim_start().len();
    let rest = value[lead..].strip_prefix('#')?;
    rest.starts_with(|c: char| !c.is_whitespace())
        .then_some(lead + 1)
}

/// Where the element names in a SMIL `begin` or `end` list start: in each
/// value of the form `name.event`, `name.begin`, `name.end` or
/// `name.repeat(n)` (an offset may follow), not in an offset, an event
/// of the animation's own element (`click+2.5s`), `indefinite`,
/// `accessKey(…)` or `wallclock(…)`. A `.` escaped with `\` belongs to
/// the name.
fn timing(value: &str) -> impl Iterator<Item = usize> + '_ {
    items(value).filter_map(|(k, item)| {
        let lead = item.len() - item.trim_start().len();
        let v = item.trim();
        let first = *v.as_bytes().first()?;
        if first.is_ascii_digit()
            || matches!(first, b'+' | b'-' | b'.')
            || v == "indefinite"
            || v.starts_with("accessKey(")
            || v.starts_with("wallclock(")
        {
            return None;
        }
        let b = v.as_bytes();
        let mut i = 0;
        while i < b.len() && b[i] != b'.' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let name = v.get(..i)?;
        let event = v.get(i + 1..)?;
        let is_name =
            !name.is_empty() && !name.contains(|c: char| c.is_whitespace() || c == '+' || c == '(');
        (is_name && event.starts_with(|c: char| c.is_ascii_alphabetic())).then_some(k + lead)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smil_timing_names_the_elements_it_waits_for() {
        let at = |v: &str| {
            timing(v)
                .map(|k| v[k..].split('.').next().unwrap().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(at("fade.end"), ["fade"]);
        assert_eq!(at("0s; fade.end+1s ;knob.click"), ["fade", "knob"]);
        assert_eq!(at("my-anim.begin-0.5s"), ["my-anim"]);
        // an escaped `.` is the name's
        assert_eq!(timing(" a\\.b.repeat(2)").collect::<Vec<_>>(), [1]);
        for none in [
            "",
            "2.5s",
            "-1s",
            ".5s",
            "click",
            "click+2.5s",
            "click-2.5s",
            "indefinite",
            "accessKey(.)",
            "wallclock(2024-01-01T00:00:00.5Z)",
            "a.1s",
        ] {
            assert_eq!(timing(none).next(), None, "{none}");
        }
    }

    #[test]
    fn references_and_words() {
        assert_eq!(fragment("#a"), Some(1));
        assert_eq!(fragment("  #a"), Some(3));
        for none in ["#", "# a", "a.svg#a", "", "url(#a)"] {
            assert_eq!(fragment(none), None, "{none}");
        }
        assert_eq!(words(" a  b\tc").collect::<Vec<_>>(), [1, 4, 6]);
        assert_eq!(words("  ").next(), None);
        assert_eq!(items("#a; #b").map(|(k, _)| k).collect::<Vec<_>>(), [0, 3]);
    }

    #[test]
    fn every_listed_attribute_counts_as_rewritten() {
        for a in URL_ATTRS
            .iter()
            .chain(IDREFS)
            .chain(&["id", "class", "href"])
        {
            assert!(rewritten(a), "{a}");
        }
        for a in ["d", "x", "data-id", "transform"] {
            assert!(!rewritten(a), "{a}");
        }
    }

    #[test]
    fn text_written_again_reads_back_as_the_value() {
        for (value, quote) in [("a & b <c> \"d\" 'e'\n\tf", '"'), ("x'y\"", '\'')] {
            let attr = format!("<e a={quote}{}{quote}/>", escaped(value, Some(quote)));
            let doc = Document::parse(&attr).unwrap();
            assert_eq!(doc.root_element().attribute("a"), Some(value), "{attr}");
        }
        let text = format!("<e>{}</e>", escaped("a]]>b & <c>", None));
        let doc = Document::parse(&text).unwrap();
        assert_eq!(doc.root_element().text(), Some("a]]>b & <c>"));
    }

    /// `art` as [`scoped`] writes it with the prefix `P`.
    fn scoped_text(art: &str) -> Result<String, ArtError> {
        let doc = Document::parse(art).unwrap();
        let lines = LineIndex::new(art);
        let sheets = Sheets::read(&doc, &lines)?;
        let edits = scoped(art, &doc, &lines, &Scope::with_prefix("P"), &sheets)?;
        let mut edits: Vec<&Insert> = edits.iter().collect();
        edits.sort_by_key(|e| e.pos);
        let (mut out, mut last) = (String::new(), 0);
        for e in edits {
            assert!(last <= e.pos, "edits overlap");
            out.push_str(&art[last..e.pos]);
            out.push_str(&e.text);
            last = e.end;
        }
        out.push_str(&art[last..]);
        Ok(out)
    }

    fn svg(body: &str) -> String {
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" xmlns:inkscape=\"http://www.inkscape.org/namespaces/inkscape\">{body}</svg>"
        )
    }

    /// Every kind of name and reference in a drawing, and what looks like
    /// one and is not: the stem goes on every name, and nothing else of
    /// the text changes.
    #[test]
    fn every_name_and_reference_of_a_drawing_gets_the_stem() {
        for (body, want) in [
            (
                "<g id=\"a\" class=\" b  c\"/>",
                "<g id=\"P_a\" class=\" P_b  P_c\"/>",
            ),
            (
                "<use href=\"#a\"/><use xlink:href=' #b'/><a href=\"#\"/><image href=\"x.svg#c\"/>",
                "<use href=\"#P_a\"/><use xlink:href=' #P_b'/><a href=\"#\"/><image href=\"x.svg#c\"/>",
            ),
            (
                "<linearGradient id=\"g2\" xlink:href=\"#g1\"/><textPath href=\"#p\"/><animateMotion><mpath href=\"#p\"/></animateMotion>",
                "<linearGradient id=\"P_g2\" xlink:href=\"#P_g1\"/><textPath href=\"#P_p\"/><animateMotion><mpath href=\"#P_p\"/></animateMotion>",
            ),
            (
                "<path fill=\"url(#g)\" stroke=\"#fff\" clip-path=\"url('#c')\" mask=\"url(#m)\" filter=\"url(#f)\" marker-start=\"url(#s)\" marker-end=\"url(#e)\" data-x=\"url(#no)\"/>",
                "<path fill=\"url(#P_g)\" stroke=\"#fff\" clip-path=\"url('#P_c')\" mask=\"url(#P_m)\" filter=\"url(#P_f)\" marker-start=\"url(#P_s)\" marker-end=\"url(#P_e)\" data-x=\"url(#no)\"/>",
            ),
            (
                "<path style=\"fill:url(#g);stroke:#abc;font-family:'url(#x)'\"/>",
                "<path style=\"fill:url(#P_g);stroke:#abc;font-family:'url(#x)'\"/>",
            ),
            (
                "<animate id=\"a1\" begin=\"0s;b1.end+1s;click\" end=\"knob.click\" attributeName=\"fill\" values=\"url(#g);red\"/><set href=\"#r\" attributeName=\"xlink:href\" to=\"#u\" begin=\"a1.begin\"/>",
                "<animate id=\"P_a1\" begin=\"0s;P_b1.end+1s;click\" end=\"P_knob.click\" attributeName=\"fill\" values=\"url(#P_g);red\"/><set href=\"#P_r\" attributeName=\"xlink:href\" to=\"#P_u\" begin=\"P_a1.begin\"/>",
            ),
            (
                "<g xml:id=\"x\"/><use href=\"#x\"/><view viewTarget=\"x y\"/><foreignObject><label xmlns=\"http://www.w3.org/1999/xhtml\" for=\"i\"/></foreignObject>",
                "<g xml:id=\"P_x\"/><use href=\"#P_x\"/><view viewTarget=\"P_x P_y\"/><foreignObject><label xmlns=\"http://www.w3.org/1999/xhtml\" for=\"P_i\"/></foreignObject>",
            ),
            (
                "<style>@font-face{font-family:Hand}</style><text font-family=\"Hand, serif\" style=\"font:9px Hand\"><set attributeName=\"font-family\" to=\"serif\" values=\"serif;'Hand'\"/></text>",
                "<style>@font-face{font-family:P_Hand}</style><text font-family=\"P_Hand, serif\" style=\"font:9px P_Hand\"><set attributeName=\"font-family\" to=\"serif\" values=\"serif;'P_Hand'\"/></text>",
            ),
            (
                "<path fill=\"var(--c)\" style=\"--c:red;stroke:element(#e)\"/>",
                "<path fill=\"var(--P_c)\" style=\"--P_c:red;stroke:element(#P_e)\"/>",
            ),
            (
                "<g aria-labelledby=\"t1 d1\" inkscape:label=\"thigh-near\" inkscape:path-effect=\"#e\"/>",
                "<g aria-labelledby=\"P_t1 P_d1\" inkscape:label=\"thigh-near\" inkscape:path-effect=\"#e\"/>",
            ),
            (
                "<style>.a{fill:#fff}</style><style><![CDATA[#b>.c{fill:url(#g)}]]></style>",
                "<style>.P_a{fill:#fff}</style><style><![CDATA[#P_b>.P_c{fill:url(#P_g)}]]></style>",
            ),
            (
                "<style>@keyframes spin{to{opacity:0}}</style><g style=\"animation:spin 1s\"/>",
                "<style>@keyframes P_spin{to{opacity:0}}</style><g style=\"animation:P_spin 1s\"/>",
            ),
            // text that is not the value as is: written again, escaped
            (
                "<g class=\"a&#10;b\" id=\"x&amp;y\"/><style>#b&gt;.c{}</style>",
                "<g class=\"P_a&#10;P_b\" id=\"P_x&amp;y\"/><style><![CDATA[#P_b>.P_c{}]]></style>",
            ),
            ("<style/><style></style>", "<style/><style></style>"),
            (
                "<style>\n<![CDATA[.a{}]]>\n<!-- #c --><?pi .d?>.b{}<![CDATA[]]></style>",
                "<style>\n<![CDATA[.P_a{}]]>\n<!-- #c --><?pi .d?>.P_b{}<![CDATA[]]></style>",
            ),
        ] {
            assert_eq!(scoped_text(&svg(body)).unwrap(), svg(want), "{body}");
        }
    }

    /// One count for every reading: a sheet's names leave that much less
    /// room for each kind of attribute after it, which is refused naming
    /// its element's line when its names run past [`MAX_SCOPED_NAMES`];
    /// names that fit exactly are scoped.
    #[test]
    fn sheets_and_every_attribute_draw_on_one_count() {
        // each kind of attribute with two names and with one
        let kinds = [
            ("g", "class=\"a b\"", "class=\"a\""),
            ("g", "aria-labelledby=\"a b\"", "aria-labelledby=\"a\""),
            ("g", "style=\"--a:0;--b:0\"", "style=\"--a:0\""),
            ("g", "fill=\"url(#a) url(#b)\"", "fill=\"url(#a)\""),
            ("g", "font-family=\"F, 'F'\"", "font-family=\"F\""),
            (
                "set",
                "attributeName=\"font-family\" values=\"F;F\"",
                "attributeName=\"font-family\" values=\"F;x\"",
            ),
            (
                "set",
                "attributeName=\"href\" values=\"#a;#b\"",
                "attributeName=\"href\" values=\"#a;b\"",
            ),
            ("set", "begin=\"a.end;b.end\"", "begin=\"a.end\""),
        ];
        // a sheet of `n` names (a font family and classes), then elements
        let drawing = |n: usize, elements: &str| {
            svg(&format!(
                "<style>@font-face{{font-family:F}}{}.c{{}}</style>\n\n{elements}",
                ".c,".repeat(n - 2)
            ))
        };
        // one insertion a name, each where it stands
        let edits = |art: &str| {
            let doc = Document::parse(art).unwrap();
            let lines = LineIndex::new(art);
            let sheets = Sheets::read(&doc, &lines)?;
            let edits = scoped(art, &doc, &lines, &Scope::with_prefix("P"), &sheets)?;
            Ok::<_, ArtError>(edits.len())
        };
        for (tag, two, _) in kinds {
            let err = edits(&drawing(MAX_SCOPED_NAMES - 1, &format!("<{tag} {two}/>"))).err();
            assert_eq!(err, Some(ArtError::TooManyNames { line: 3 }), "{two}");
        }
        let ones: String = kinds
            .iter()
            .map(|(tag, _, one)| format!("<{tag} {one}/>"))
            .collect();
        let art = drawing(MAX_SCOPED_NAMES - kinds.len(), &ones);
        assert_eq!(edits(&art), Ok(MAX_SCOPED_NAMES));
    }

    /// The sheets are read once for what moves and for their names: what
    /// moves, in any sheet, is refused first, and what the names refuse
    /// (in an earlier sheet too) waits for the names.
    #[test]
    fn what_moves_in_any_sheet_is_refused_before_what_the_names_refuse() {
        for body in [
            "<style>@import 'x.css';</style><style>.a{rotate:1deg}</style>",
            "<style>.a,\n<g/></style><style>.a{rotate:1deg}</style>",
            "<style>@foo{}.a{translate:1px}</style>",
        ] {
            let art = svg(body);
            let doc = Document::parse(&art).unwrap();
            let err = Sheets::read(&doc, &LineIndex::new(&art)).err();
            assert!(
                matches!(err, Some(ArtError::MovingSheet { .. })),
                "{body}: {err:?}"
            );
        }
        for body in ["<style>@import 'x.css';</style>", "<style>\n<g/></style>"] {
            let art = svg(body);
            let doc = Document::parse(&art).unwrap();
            assert!(Sheets::read(&doc, &LineIndex::new(&art)).is_ok(), "{body}");
            let err = scoped_text(&art).unwrap_err();
            assert!(matches!(err, ArtError::Unscopable { .. }), "{body}: {err}");
        }
    }

    #[test]
    fn what_cannot_be_scoped_is_refused_with_its_line() {
        for (body, line, needle) in [
            ("\n<style>\n.a{}\n@import 'x.css';</style>", 4, "@import"),
            ("<style>[id^=\"leg\"]{}</style>", 1, "`id`"),
            (
                "\n\n<set attributeName=\"class\" to=\"on\"/>",
                3,
                "animates `class`",
            ),
            ("<animate attributeName=\" id \"/>", 1, "animates `id`"),
            ("<style>\n<g/></style>", 2, "holds an element"),
        ] {
            let err = scoped_text(&svg(body)).unwrap_err();
            let ArtError::Unscopable {
                line: l, ref what, ..
            } = err
            else {
                panic!("{body}: {err}");
            };
            assert_eq!(l, line, "{body}: {err}");
            assert!(what.contains(needle), "{body}: {err}");
        }
    }
}
