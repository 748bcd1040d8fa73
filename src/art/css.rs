//! The drawing's own CSS, read only as far as placing its parts needs: a
//! part is placed from `transform` attributes, so anything else that moves
//! it on screen must be found and refused. That is a declaration of a
//! property that moves what an element draws ([`MOVING`]: the transform
//! properties and motion along a path, in a `style` attribute or a
//! `<style>` sheet), or in a shape's own `style` one that reshapes it
//! ([`GEOMETRY`]: the geometry properties SVG 2 lets CSS set), whatever its
//! case and however its name is escaped, unless its value leaves things
//! where they are (`transform: none`). Other declarations are fine, names
//! inside strings or values included (`will-change: transform`,
//! `transition: transform 1s`, a custom property `--transform`). In a
//! sheet, whose selectors cannot be matched to elements without a CSS
//! engine, the geometry properties that only shapes take
//! ([`SHAPE_ONLY_GEOMETRY`]: `d`, `cx`, `r`, …) are refused too, while
//! `x`, `y`, `width` and `height` are let be: they size the root too (the
//! common `svg{width:100%}`).

/// Properties whose declaration moves what an element draws, whatever the
/// element.
pub(super) const MOVING: &[&str] = &[
    "transform",
    "translate",
    "rotate",
    "scale",
    "transform-origin",
    "transform-box",
    "offset",
    "offset-path",
    "offset-distance",
    "offset-position",
    "offset-anchor",
    "offset-rotate",
];

/// Properties that reshape a shape (a `<g>` or an `<svg>` draws nothing of
/// its own that they change).
pub(super) const GEOMETRY: &[&str] = &[
    "x", "y", "cx", "cy", "r", "rx", "ry", "d", "width", "height",
];

/// Of [`GEOMETRY`], those no `<svg>` or `<g>` takes: in a style sheet they
/// can only reshape a shape.
pub(super) const SHAPE_ONLY_GEOMETRY: &[&str] = &["cx", "cy", "r", "rx", "ry", "d"];

/// The attributes a SMIL `<animate>` or `<set>` may change that reshape
/// or move a shape: [`GEOMETRY`] and the attributes of lines and
/// polygons CSS cannot set.
pub(super) const SMIL_GEOMETRY: &[&str] = &[
    "x", "y", "cx", "cy", "r", "rx", "ry", "d", "width", "height", "x1", "y1", "x2", "y2", "points",
];

/// Of [`MOVING`], those whose value `none` moves nothing.
const NONE_IS_STILL: &[&str] = &[
    "transform",
    "translate",
    "rotate",
    "scale",
    "offset",
    "offset-path",
];

/// The first declaration of a `style` attribute's `text` that moves what
/// its element draws ([`MOVING`], and for a `shape` [`GEOMETRY`] too):
/// its property name as CSS reads it (lowercase, unescaped).
pub(super) fn moving_in_declarations(text: &str, shape: bool) -> Option<String> {
    segments(text)
        .into_iter()
        .find_map(|(seg, _)| moving(seg, shape))
}

/// The first declaration of [`MOVING`] or [`SHAPE_ONLY_GEOMETRY`]
/// anywhere in a style sheet `text` (in any rule, at-rule or keyframe), as
/// [`moving_in_declarations`].
pub(super) fn moving_in_sheet(text: &str) -> Option<String> {
    // a segment that ends in `{` is a selector or a rule's prelude; one
    // that ends in `;` or `}` inside a block is a declaration
    let mut depth = 0usize;
    for (seg, end) in segments(&without_comments(text)) {
        let declaration = depth > 0 && end != Some('{');
        if declaration
            && let Some(p) = moving(seg, true)
            && (MOVING.contains(&p.as_str()) || SHAPE_ONLY_GEOMETRY.contains(&p.as_str()))
        {
            return Some(p);
        }
        match end {
            Some('{') => depth += 1,
            Some('}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// `seg` as a declaration, when it declares a [`MOVING`] property (or
/// with `shape` a [`GEOMETRY`] one) with a value that moves something.
fn moving(seg: &str, shape: bool) -> Option<String> {
    let (name, value) = split_top_level(seg, ':')?;
    let name = unescape(name.trim()).to_ascii_lowercase();
    let listed = MOVING.contains(&name.as_str()) || (shape && GEOMETRY.contains(&name.as_str()));
    if !listed {
        return None;
    }
    let value = value.trim().to_ascii_lowercase();
    let value = value
        .strip_suffix("!important")
        .map_or(value.as_str(), str::trim_end)
        .trim();
    if NONE_IS_STILL.contains(&name.as_str()) && unescape(value) == "none" {
        return None;
    }
    Some(name)
}

/// The characters of a text outside strings and escapes, each with its
/// byte position and the depth of parentheses it stands in (a `{` or `}`
/// closes any left open).
struct Structural<'a> {
    chars: std::str::CharIndices<'a>,
    quote: Option<char>,
    parens: usize,
}

impl<'a> Structural<'a> {
    fn of(text: &'a str) -> Self {
        Structural {
            chars: text.char_indices(),
            quote: None,
            parens: 0,
        }
    }
}

impl Iterator for Structural<'_> {
    type Item = (usize, char, usize);

    fn next(&mut self) -> Option<Self::Item> {
        while let Some((i, c)) = self.chars.next() {
            match (self.quote, c) {
                (_, '\\') => {
                    self.chars.next();
                }
                (Some(q), c) if c == q => self.quote = None,
                (Some(_), _) => {}
                (None, '"' | '\'') => self.quote = Some(c),
                (None, c) => {
                    if c == ')' {
                        self.parens = self.parens.saturating_sub(1);
                    }
                    let depth = self.parens;
                    match c {
                        '(' => self.parens += 1,
                        '{' | '}' => self.parens = 0,
                        _ => {}
                    }
                    return Some((i, c, depth));
                }
            }
        }
        None
    }
}

/// The text split at `;`, `{` and `}` outside strings, parentheses and
/// escapes, each piece with the character that ended it (`None` for the
/// last).
fn segments(text: &str) -> Vec<(&str, Option<char>)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c, depth) in Structural::of(text) {
        if matches!(c, '{' | '}') || (c == ';' && depth == 0) {
            out.push((&text[start..i], Some(c)));
            start = i + c.len_utf8();
        }
    }
    out.push((&text[start..], None));
    out
}

/// `seg` split at its first `sep` outside strings, parentheses and escapes.
fn split_top_level(seg: &str, sep: char) -> Option<(&str, &str)> {
    let (i, c, _) = Structural::of(seg).find(|&(_, c, depth)| c == sep && depth == 0)?;
    Some((&seg[..i], &seg[i + c.len_utf8()..]))
}

/// The text without `/* … */` comments (an unclosed one runs to the end).
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("/*") {
        out.push_str(&rest[..at]);
        out.push(' ');
        rest = match rest[at + 2..].find("*/") {
            Some(end) => &rest[at + 2 + end + 2..],
            None => "",
        };
    }
    out.push_str(rest);
    out
}

/// An identifier with its CSS escapes resolved: `\` and one to six hex
/// digits (and one whitespace after them) is that code point, `\` and any
/// other character that character.
fn unescape(ident: &str) -> String {
    let mut out = String::with_capacity(ident.len());
    let mut chars = ident.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let mut hex = String::new();
        while hex.len() < 6
            && let Some(&h) = chars.peek()
            && h.is_ascii_hexdigit()
        {
            hex.push(h);
            chars.next();
        }
        if hex.is_empty() {
            if let Some(next) = chars.next() {
                out.push(next);
            }
            continue;
        }
        if chars.peek().is_some_and(|w| w.is_whitespace()) {
            chars.next();
        }
        let code = u32::from_str_radix(&hex, 16).unwrap_or(0xFFFD);
        out.push(
            char::from_u32(code)
                .filter(|&c| c != '\0')
                .unwrap_or('\u{FFFD}'),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way of moving a part that an adversarial pass found accepted
    /// by a substring search, and the harmless styles it refused.
    #[test]
    fn moving_declarations_are_found_however_they_are_spelled() {
        for (style, name) in [
            ("transform:translate(50px,0)", "transform"),
            ("TRANSFORM:translate(50px,0)", "transform"),
            ("tr\\61nsform:translate(50px,0)", "transform"),
            ("tr\\000061 nsform:rotate(1deg)", "transform"),
            ("fill:red; translate:50px 0", "translate"),
            ("rotate:10deg", "rotate"),
            ("scale: 2 !important", "scale"),
            (
                "offset-path:path('M0 0 L100 100');offset-distance:50%",
                "offset-path",
            ),
            ("transform-origin: 400px 300px", "transform-origin"),
            ("transform-box: fill-box", "transform-box"),
            ("x: 10px", "x"),
            ("d: path('M0 0H9')", "d"),
            ("  Transform : rotate(3deg)  ", "transform"),
        ] {
            assert_eq!(
                moving_in_declarations(style, true).as_deref(),
                Some(name),
                "{style}"
            );
        }
        for style in [
            "will-change:transform",
            "transition:transform 1s",
            "--transform:1",
            "font-family:'transform:x'",
            "transform:none",
            "transform: NONE !important",
            "rotate:none",
            "fill:url(\"#a;transform:x\")",
            "stroke:#000;stroke-width:2",
            "",
        ] {
            assert_eq!(moving_in_declarations(style, true), None, "{style}");
        }
        // a group or the root draws nothing a geometry property reshapes
        assert_eq!(
            moving_in_declarations("width:100%;height:auto", false),
            None
        );
        assert_eq!(
            moving_in_declarations("width:1px;rotate:1deg", false).as_deref(),
            Some("rotate")
        );
    }

    #[test]
    fn a_sheet_is_read_in_every_rule_at_rule_and_keyframe() {
        for (sheet, name) in [
            ("#layer-leg-near{transform:translate(50px,0)}", "transform"),
            ("g:hover{fill:red}.a{rotate:3deg}", "rotate"),
            ("@media (min-width:1px){.a{translate:1px}}", "translate"),
            (
                "@keyframes k{from{transform:none}to{transform:rotate(9deg)}}",
                "transform",
            ),
            (
                "/* x */ .a { /* transform: no */ fill: red; offset: path('M0 0') }",
                "offset",
            ),
            (".a{.b{scale:2}}", "scale"),
            // geometry only a shape takes
            ("#thp{d:path(\"M392 255L508 308\")}", "d"),
            (".ped{fill:red;CX:520px}", "cx"),
            ("@keyframes k{to{r:3px}}", "r"),
            ("ellipse{rx:2px;ry:3px}", "rx"),
        ] {
            assert_eq!(moving_in_sheet(sheet).as_deref(), Some(name), "{sheet}");
        }
        for sheet in [
            ".a{fill:red;stroke:blue}",
            "a:hover{transition:transform 1s}",
            "/* .a{transform:rotate(3deg)} */",
            "@import url(\"transform:x.css\");",
            ".transform{fill:red}",
            "[data-x=\"a;transform:x\"]{opacity:.5}",
            "svg{width:100%;height:auto}",
            // geometry a root or a nested <svg> takes too
            "svg{x:0;y:0;width:10px}",
            ".d{fill:red}.cx{stroke:blue}",
        ] {
            assert_eq!(moving_in_sheet(sheet), None, "{sheet}");
        }
    }
}
