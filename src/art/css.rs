//! The drawing's own CSS, read once as CSS Syntax reads it: a tokenizer
//! ([`lex`]: comments, strings, escapes, `url(…)`, hashes, numbers) and
//! the pieces between `{`, `;` and `}` it splits into ([`pieces`]), which
//! tell preludes from declarations. Two things are read from them.
//!
//! What moves a part. A part is placed from `transform` attributes, so
//! anything else that moves it on screen must be found and refused. That
//! is a declaration of a property that moves what an element draws
//! ([`MOVING`]: the transform properties and motion along a path, in a
//! `style` attribute or a `<style>` sheet), or in a shape's own `style`
//! one that reshapes it ([`GEOMETRY`]: the geometry properties SVG 2 lets
//! CSS set), whatever its case, vendor prefix (`-webkit-transform`) or
//! escapes, unless its value leaves things where they are
//! (`transform: none`). Other declarations are fine, names inside
//! strings, comments or values included (`will-change: transform`,
//! `transition: transform 1s`, a custom property `--transform`). In a
//! sheet, whose selectors cannot be matched to elements without a CSS
//! engine, the geometry properties that only shapes take
//! ([`SHAPE_ONLY_GEOMETRY`]: `d`, `cx`, `r`, …) are refused too, while
//! `x`, `y`, `width` and `height` are let be: they size the root too (the
//! common `svg{width:100%}`). Only declarations inside a block count
//! there (in any rule, at-rule or keyframe); one outside every block
//! belongs to no rule.
//!
//! The drawing's names, for module `names`, which gives the drawing's
//! ids, classes, `@keyframes` names, `@font-face` families and dashed
//! idents the file's prefix: a walk of the pieces' blocks finds them in
//! selectors, at-rule preludes and declarations ([`sheet_names`],
//! [`declaration_names`], [`family_names`]). It only finds where the
//! prefix goes; the text itself is never rebuilt from tokens.

use std::collections::BTreeSet;

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

// ---------------------------------------------------------------------
// What moves a part
// ---------------------------------------------------------------------

/// The first declaration of a `style` attribute's `text` that moves what
/// its element draws ([`MOVING`], and for a `shape` [`GEOMETRY`] too):
/// its property name as CSS reads it ([`plain_name`]: lowercase,
/// unescaped, without a vendor prefix).
pub(super) fn moving_in_declarations(text: &str, shape: bool) -> Option<String> {
    let toks = lex(text);
    pieces(&toks)
        .into_iter()
        .find_map(|(seg, _)| moving(text, seg, shape))
}

/// The first declaration of [`MOVING`] or [`SHAPE_ONLY_GEOMETRY`]
/// anywhere in a style sheet `text` (in any rule, at-rule or keyframe), as
/// [`moving_in_declarations`].
pub(super) fn moving_in_sheet(text: &str) -> Option<String> {
    // a piece that opens a block is a selector or a rule's prelude; one
    // that ends otherwise inside a block is a declaration
    let toks = lex(text);
    let mut depth = 0usize;
    for (seg, end) in pieces(&toks) {
        if end == End::Open {
            depth += 1;
            continue;
        }
        if depth > 0
            && let Some(p) = moving(text, seg, true)
            && (MOVING.contains(&p.as_str()) || SHAPE_ONLY_GEOMETRY.contains(&p.as_str()))
        {
            return Some(p);
        }
        if end == End::Close {
            depth = depth.saturating_sub(1);
        }
    }
    None
}

/// `seg` as a declaration, when it declares a [`MOVING`] property (or
/// with `shape` a [`GEOMETRY`] one) with a value that moves something:
/// any value but a lone `none` (`!important` or not) of a property
/// [`NONE_IS_STILL`] lists.
fn moving(text: &str, seg: &[Token], shape: bool) -> Option<String> {
    let (name, value) = declaration(text, seg)?;
    let listed = MOVING.contains(&name.as_str()) || (shape && GEOMETRY.contains(&name.as_str()));
    if !listed {
        return None;
    }
    let value = without_important(text, &value);
    let still = matches!(value, [v] if v.tok == Tok::Ident
        && unescape(&text[v.start..v.end]).eq_ignore_ascii_case("none"));
    if NONE_IS_STILL.contains(&name.as_str()) && still {
        return None;
    }
    Some(name)
}

// ---------------------------------------------------------------------
// CSS as tokens and pieces (both readings)
// ---------------------------------------------------------------------

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

/// A CSS token as far as the names need: its kind and byte range.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Space,
    Comment,
    /// A quoted string, quotes included.
    Str,
    Ident,
    /// A function's name and its `(`.
    Function,
    /// An unquoted `url(…)`, whose address starts at byte `content`.
    Url {
        content: usize,
    },
    /// `#` and a name; `id` when the name could be an id selector (it
    /// starts as an identifier does).
    Hash {
        id: bool,
    },
    AtKeyword,
    /// A number, with its unit or `%`.
    Number,
    Delim(char),
}

#[derive(Debug, Clone, Copy)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_name(b: u8) -> bool {
    is_name_start(b) || b.is_ascii_digit() || b == b'-'
}

/// Whether a valid escape (`\` not before a newline) starts at `i`.
fn escape_at(s: &[u8], i: usize) -> bool {
    s.get(i) == Some(&b'\\') && !matches!(s.get(i + 1), Some(b'\n' | b'\r' | 0x0c))
}

/// Whether an identifier starts at `i`.
fn ident_at(s: &[u8], i: usize) -> bool {
    match s.get(i) {
        Some(b'-') => {
            s.get(i + 1).is_some_and(|&b| is_name_start(b) || b == b'-') || escape_at(s, i + 1)
        }
        Some(&b) if is_name_start(b) => true,
        _ => escape_at(s, i),
    }
}

/// Whether a number starts at `i`.
fn number_at(s: &[u8], i: usize) -> bool {
    let digit = |k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    match s.get(i) {
        Some(b'+' | b'-') => digit(i + 1) || (s.get(i + 1) == Some(&b'.') && digit(i + 2)),
        Some(b'.') => digit(i + 1),
        _ => digit(i),
    }
}

/// The byte length of the valid escape at `i`: `\`, one to six hex digits
/// and one whitespace after them, or `\` and one character.
fn escape_len(text: &str, i: usize) -> usize {
    let s = text.as_bytes();
    let mut j = i + 1;
    if !s.get(j).is_some_and(u8::is_ascii_hexdigit) {
        return 1 + text[j..].chars().next().map_or(0, char::len_utf8);
    }
    while j < s.len() && j - i <= 6 && s[j].is_ascii_hexdigit() {
        j += 1;
    }
    if s.get(j) == Some(&b'\r') && s.get(j + 1) == Some(&b'\n') {
        j += 2;
    } else if s.get(j).is_some_and(|&b| is_space(b)) {
        j += 1;
    }
    j - i
}

/// The end of the name (identifier characters and escapes) from `i`.
fn name_end(text: &str, mut i: usize) -> usize {
    let s = text.as_bytes();
    loop {
        if s.get(i).is_some_and(|&b| is_name(b)) {
            i += 1;
        } else if escape_at(s, i) {
            i += escape_len(text, i);
        } else {
            return i;
        }
    }
}

/// The text as CSS tokens (comments and whitespace included, so the
/// tokens cover it).
fn lex(text: &str) -> Vec<Token> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let start = i;
        let b = s[i];
        let tok = if b == b'/' && s.get(i + 1) == Some(&b'*') {
            i = text[i + 2..].find("*/").map_or(s.len(), |k| i + 2 + k + 2);
            Tok::Comment
        } else if is_space(b) {
            while i < s.len() && is_space(s[i]) {
                i += 1;
            }
            Tok::Space
        } else if b == b'"' || b == b'\'' {
            i += 1;
            while i < s.len() && s[i] != b && s[i] != b'\n' {
                if s[i] == b'\\' {
                    i += 1;
                    if s.get(i) == Some(&b'\r') && s.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                }
                i += 1;
            }
            if s.get(i) == Some(&b) {
                i += 1;
            }
            i = i.min(s.len());
            Tok::Str
        } else if b == b'#' && (s.get(i + 1).is_some_and(|&c| is_name(c)) || escape_at(s, i + 1)) {
            let id = ident_at(s, i + 1);
            i = name_end(text, i + 1);
            Tok::Hash { id }
        } else if b == b'@' && ident_at(s, i + 1) {
            i = name_end(text, i + 1);
            Tok::AtKeyword
        } else if number_at(s, i) {
            if matches!(b, b'+' | b'-') {
                i += 1;
            }
            while s.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if s.get(i) == Some(&b'.') && s.get(i + 1).is_some_and(u8::is_ascii_digit) {
                i += 1;
                while s.get(i).is_some_and(u8::is_ascii_digit) {
                    i += 1;
                }
            }
            if matches!(s.get(i), Some(b'e' | b'E')) {
                let k = i + 1 + usize::from(matches!(s.get(i + 1), Some(b'+' | b'-')));
                if s.get(k).is_some_and(u8::is_ascii_digit) {
                    i = k;
                    while s.get(i).is_some_and(u8::is_ascii_digit) {
                        i += 1;
                    }
                }
            }
            if ident_at(s, i) {
                i = name_end(text, i);
            } else if s.get(i) == Some(&b'%') {
                i += 1;
            }
            Tok::Number
        } else if ident_at(s, i) {
            i = name_end(text, i);
            if s.get(i) != Some(&b'(') {
                Tok::Ident
            } else if !unescape(&text[start..i]).eq_ignore_ascii_case("url") {
                i += 1;
                Tok::Function
            } else {
                i += 1;
                let mut content = i;
                while content < s.len() && is_space(s[content]) {
                    content += 1;
                }
                if matches!(s.get(content), Some(b'"' | b'\'')) {
                    Tok::Function
                } else {
                    i = content;
                    while i < s.len() && s[i] != b')' {
                        i += if escape_at(s, i) {
                            escape_len(text, i)
                        } else {
                            1
                        };
                    }
                    i = (i + 1).min(s.len());
                    Tok::Url { content }
                }
            }
        } else {
            let c = text[i..].chars().next().expect("i is below the length");
            i += c.len_utf8();
            Tok::Delim(c)
        };
        out.push(Token { tok, start, end: i });
    }
    out
}

/// How a piece of CSS ends.
#[derive(Debug, Clone, Copy, PartialEq)]
enum End {
    /// `{`: the piece is a block's prelude.
    Open,
    /// `;` outside parentheses.
    Semicolon,
    /// `}`: the piece is the last of its block.
    Close,
    /// The end of the text.
    Text,
}

/// The tokens `toks` split into pieces at `{`, `}` and `;` (a `;` outside
/// parentheses; a `{` or `}` closes any left open), each with how it ends.
fn pieces(toks: &[Token]) -> Vec<(&[Token], End)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut parens = 0usize;
    for (k, t) in toks.iter().enumerate() {
        let end = match t.tok {
            Tok::Delim('(') | Tok::Function => {
                parens += 1;
                continue;
            }
            Tok::Delim(')') => {
                parens = parens.saturating_sub(1);
                continue;
            }
            Tok::Delim('{') => End::Open,
            Tok::Delim('}') => End::Close,
            Tok::Delim(';') if parens == 0 => End::Semicolon,
            _ => continue,
        };
        out.push((&toks[start..k], end));
        start = k + 1;
        if end != End::Semicolon {
            parens = 0;
        }
    }
    out.push((&toks[start..], End::Text));
    out
}

/// The tokens that are neither whitespace nor comments.
fn significant(seg: &[Token]) -> impl Iterator<Item = (usize, &Token)> {
    seg.iter()
        .enumerate()
        .filter(|(_, t)| !matches!(t.tok, Tok::Space | Tok::Comment))
}

/// A declaration's `value` (its significant tokens) without a closing
/// `!important`.
fn without_important<'v, 't>(text: &str, value: &'v [&'t Token]) -> &'v [&'t Token] {
    match value {
        [v @ .., bang, important]
            if bang.tok == Tok::Delim('!')
                && important.tok == Tok::Ident
                && unescape(&text[important.start..important.end])
                    .eq_ignore_ascii_case("important") =>
        {
            v
        }
        v => v,
    }
}

/// `seg` as a declaration (a name, `:` and a value): the property's
/// [`plain_name`] and the value's tokens that are neither whitespace nor
/// comments.
fn declaration<'t>(text: &str, seg: &'t [Token]) -> Option<(String, Vec<&'t Token>)> {
    let mut sig = significant(seg).map(|(_, t)| t);
    let (name, colon) = (sig.next()?, sig.next()?);
    if name.tok != Tok::Ident || colon.tok != Tok::Delim(':') {
        return None;
    }
    Some((plain_name(&text[name.start..name.end]), sig.collect()))
}

/// A property's or at-rule's name as CSS reads it: lowercase, unescaped,
/// without a vendor prefix (`-webkit-keyframes` is `keyframes`; a custom
/// property `--x` is itself).
fn plain_name(raw: &str) -> String {
    let name = unescape(raw).to_ascii_lowercase();
    if name.starts_with("--") {
        return name;
    }
    match name.strip_prefix('-').and_then(|n| n.split_once('-')) {
        Some((_, rest)) => rest.to_string(),
        None => name,
    }
}

// ---------------------------------------------------------------------
// The drawing's names in its CSS (module `names`)
// ---------------------------------------------------------------------

/// Where the drawing's own names stand in one piece of CSS: the byte
/// offsets to put the file's stem (`<prefix>_`) in front of, and the
/// `@keyframes` names the piece defines (unescaped).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Names {
    pub at: Vec<usize>,
    pub keyframes: Vec<String>,
    /// The font families `@font-face` rules define ([`family_key`]).
    pub fonts: Vec<String>,
}

/// The names the drawing's sheets define that other CSS may refer to by
/// a name that is no dashed ident: `@keyframes` names (unescaped) and
/// `@font-face` families ([`family_key`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub(super) struct Defined {
    pub keyframes: BTreeSet<String>,
    pub fonts: BTreeSet<String>,
}

impl Defined {
    /// These and the names `names` defines.
    pub fn add(&mut self, names: Names) {
        self.keyframes.extend(names.keyframes);
        self.fonts.extend(names.fonts);
    }
}

/// CSS that cannot be given the file's own names: at byte `at` of the
/// piece, `what` it holds and what to do instead.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Unscopable {
    pub at: usize,
    pub what: String,
    pub fix: &'static str,
}

/// The names of a style sheet (a `<style>` element's text): every id
/// selector (`#leg`) and class selector (`.cls-1`) in a rule's selector,
/// a nested rule's or an `@scope` prelude (inside `:not()`, `:is()`, …
/// too); every reference to an element in a declaration (`url(#…)`,
/// `src("#…")`, `element(#…)`); every `@keyframes` name and every
/// reference to one of `defined` (the names the drawing's sheets define)
/// in `animation` and `animation-name`; every `@font-face` family and
/// every one of `defined` in `font-family`, `font` and an
/// `@font-feature-values` prelude; and every dashed ident (`--x`) in a
/// declaration or an at-rule's prelude: custom properties, declared or
/// used, `@property`, `@font-palette-values` and `@position-try` names,
/// anchor and timeline names, which a page holds once for all its files
/// (the stem goes after the `--`). Colours
/// (`#fff`), strings, comments, numbers (`.5em`) and invalid selectors
/// (`#1a`, which selects nothing) are left as they are; escapes are read
/// as CSS reads them (`u\72l(#a)` is a reference, `#\31 a` an id).
///
/// Refused: `@import` (a sheet rigbake cannot read), a block at-rule
/// rigbake does not know the contents of, a quoted `@keyframes` name, and
/// an attribute selector that tests the value of an attribute whose value
/// is rewritten ([`super::names::rewritten`]: `[id^="leg"]`,
/// `[href="#a"]`); testing only that the attribute is there is fine.
pub(super) fn sheet_names(text: &str, defined: &Defined) -> Result<Names, Unscopable> {
    walk(text, Block::Rules, defined)
}

/// The names in a list of declarations (a `style` attribute) or in one
/// value (a presentation attribute such as `fill="url(#g)"`): references
/// to elements, keyframes and font families, and dashed idents, as
/// [`sheet_names`] finds them in a declaration.
pub(super) fn declaration_names(text: &str, defined: &Defined) -> Names {
    walk(text, Block::Declarations, defined).expect("declarations hold nothing that is refused")
}

/// The names in a `font-family` value (a presentation attribute): the
/// families of `defined` it lists, as [`sheet_names`] finds them.
pub(super) fn family_names(text: &str, defined: &Defined) -> Names {
    let toks = lex(text);
    let list: Vec<&Token> = significant(&toks).map(|(_, t)| t).collect();
    let mut out = Names::default();
    families(text, &list, &defined.fonts, false, &mut out);
    out
}

/// What a block of CSS holds.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Block {
    /// Rules (the sheet, a conditional group rule) or a style rule's
    /// declarations with its nested rules: a piece that ends in `{` is a
    /// selector or an at-rule's prelude.
    Rules,
    /// Keyframe rules: `from`, `to`, percentages.
    Keyframes,
    /// Declarations only (a `style` attribute, a keyframe, `@page`, …):
    /// nothing in a prelude is a selector.
    Declarations,
    /// `@font-face`'s declarations, whose `font-family` defines a family.
    FontFace,
}

/// Walk `text` as a `top` block: its [`pieces`], each read as its block
/// and place say (see [`sheet_names`]).
fn walk(text: &str, top: Block, defined: &Defined) -> Result<Names, Unscopable> {
    let toks = lex(text);
    let mut out = Names::default();
    let mut stack = vec![top];
    for (seg, end) in pieces(&toks) {
        let block = *stack.last().expect("the top block stays");
        if end == End::Open {
            stack.push(prelude(text, seg, block, defined, &mut out)?);
            continue;
        }
        statement(text, seg, block, defined, &mut out)?;
        if end == End::Close && stack.len() > 1 {
            stack.pop();
        }
    }
    out.at.sort_unstable();
    out.at.dedup();
    Ok(out)
}

/// An at-keyword's name ([`plain_name`], without its `@`).
fn at_rule_name(text: &str, t: &Token) -> String {
    plain_name(&text[t.start + 1..t.end])
}

/// The prelude `seg` of a `{` block inside a `block`: its names, and what
/// the new block holds.
fn prelude(
    text: &str,
    seg: &[Token],
    block: Block,
    defined: &Defined,
    out: &mut Names,
) -> Result<Block, Unscopable> {
    match block {
        Block::Keyframes | Block::Declarations | Block::FontFace => {
            return Ok(Block::Declarations);
        }
        Block::Rules => {}
    }
    let first = significant(seg).next();
    let Some((k, at)) = first.filter(|(_, t)| t.tok == Tok::AtKeyword) else {
        selector(text, seg, out)?;
        return Ok(Block::Rules);
    };
    let name = at_rule_name(text, at);
    if name != "keyframes" {
        dashed_idents(text, &seg[k + 1..], out);
    }
    match name.as_str() {
        "media" | "supports" | "layer" | "container" | "document" | "starting-style" => {
            Ok(Block::Rules)
        }
        "scope" => {
            selector(text, &seg[k + 1..], out)?;
            Ok(Block::Rules)
        }
        "keyframes" => {
            match significant(&seg[k + 1..]).next() {
                Some((_, t)) if t.tok == Tok::Ident => {
                    out.at.push(name_start(text, t));
                    out.keyframes.push(unescape(&text[t.start..t.end]));
                }
                Some((_, t)) if t.tok == Tok::Str => {
                    return Err(Unscopable {
                        at: t.start,
                        what: format!("names @keyframes with a string ({})", &text[t.start..t.end]),
                        fix: "name it with an identifier (no quotes)",
                    });
                }
                _ => {}
            }
            Ok(Block::Keyframes)
        }
        "font-face" => Ok(Block::FontFace),
        "font-feature-values" => {
            let list: Vec<&Token> = significant(&seg[k + 1..]).map(|(_, t)| t).collect();
            families(text, &list, &defined.fonts, false, out);
            Ok(Block::Declarations)
        }
        "page"
        | "property"
        | "counter-style"
        | "font-palette-values"
        | "view-transition"
        | "position-try"
        | "color-profile" => Ok(Block::Declarations),
        _ => Err(Unscopable {
            at: at.start,
            what: format!("holds an @{name} block, which rigbake does not know"),
            fix: "take the block out of the drawing's <style>",
        }),
    }
}

/// A piece that ends in `;` or `}` (or the text) inside a `block`: a
/// declaration, or in a sheet's rules an at-rule statement.
fn statement(
    text: &str,
    seg: &[Token],
    block: Block,
    defined: &Defined,
    out: &mut Names,
) -> Result<(), Unscopable> {
    if block == Block::Rules
        && let Some((_, at)) = significant(seg)
            .next()
            .filter(|(_, t)| t.tok == Tok::AtKeyword)
    {
        if at_rule_name(text, at) == "import" {
            return Err(Unscopable {
                at: at.start,
                what: "imports another style sheet (@import)".into(),
                fix: "copy its rules into the drawing's <style>",
            });
        }
        return Ok(());
    }
    references(text, seg, out);
    dashed_idents(text, seg, out);
    animation_names(text, seg, &defined.keyframes, out);
    if let Some((property, value)) = declaration(text, seg)
        && (property == "font-family" || property == "font")
    {
        let define = block == Block::FontFace && property == "font-family";
        families(text, &value, &defined.fonts, define, out);
    }
    Ok(())
}

/// A font family as CSS matches it: unescaped, its words joined by one
/// space, in lower case.
fn family_key(words: &[String]) -> String {
    words.join(" ").to_ascii_lowercase()
}

/// The families of a family list `value` (its significant tokens:
/// `font-family`'s value, the end of `font`'s, `@font-feature-values`'
/// prelude): in each comma-separated
/// item, a string or the identifiers that end it (after `font`'s size).
/// With `define`, every family is one the drawing defines (an
/// `@font-face`'s `font-family`), else only those of `fonts` are
/// references to one. A family's name gets the stem in front (inside a
/// string's quotes, after a dashed ident's `--`).
fn families(text: &str, value: &[&Token], fonts: &BTreeSet<String>, define: bool, out: &mut Names) {
    for item in without_important(text, value).split(|t| t.tok == Tok::Delim(',')) {
        let (at, words) = match item {
            [.., last] if last.tok == Tok::Str => {
                let inner = &text[last.start + 1..last.end];
                let inner = inner
                    .strip_suffix(&text[last.start..=last.start])
                    .unwrap_or(inner);
                (last.start + 1, vec![unescape(inner)])
            }
            _ => {
                let run = item
                    .iter()
                    .rev()
                    .take_while(|t| t.tok == Tok::Ident)
                    .count();
                let Some(first) = item.get(item.len() - run).filter(|_| run > 0) else {
                    continue;
                };
                let words = item[item.len() - run..]
                    .iter()
                    .map(|t| unescape(&text[t.start..t.end]))
                    .collect();
                (name_start(text, first), words)
            }
        };
        let key = family_key(&words);
        if define {
            out.fonts.push(key);
            out.at.push(at);
        } else if fonts.contains(&key) {
            out.at.push(at);
        }
    }
}

/// Whether an identifier (as written) is a dashed ident (`--x`): a custom
/// property's name, or a name an at-rule or a property defines for the
/// whole document (`@property`, `@font-palette-values`, `@position-try`,
/// `anchor-name`, `view-timeline-name`, …).
fn is_dashed(ident: &str) -> bool {
    unescape(ident)
        .strip_prefix("--")
        .is_some_and(|n| !n.is_empty())
}

/// Where the stem goes in the identifier `t`: after the `--` of a dashed
/// ident (which stays one), else in front.
fn name_start(text: &str, t: &Token) -> usize {
    if !is_dashed(&text[t.start..t.end]) {
        return t.start;
    }
    let s = text.as_bytes();
    (0..2).fold(t.start, |i, _| {
        if escape_at(s, i) {
            i + escape_len(text, i)
        } else {
            i + text[i..].chars().next().map_or(0, char::len_utf8)
        }
    })
}

/// Every dashed ident of `seg` (a declaration, its property's name
/// included, or an at-rule's prelude).
fn dashed_idents(text: &str, seg: &[Token], out: &mut Names) {
    out.at.extend(
        seg.iter()
            .filter(|t| t.tok == Tok::Ident && is_dashed(&text[t.start..t.end]))
            .map(|t| name_start(text, t)),
    );
}

/// Where the address of a reference at byte `at` (the first character of
/// a url's address) names an element of the document: just after its `#`,
/// when a name follows.
fn after_hash(text: &str, at: usize) -> Option<usize> {
    let s = text.as_bytes();
    let len = if escape_at(s, at) {
        let len = escape_len(text, at);
        (unescape(&text[at..at + len]) == "#").then_some(len)?
    } else {
        (s.get(at) == Some(&b'#')).then_some(1)?
    };
    let next = *s.get(at + len)?;
    (!is_space(next) && !matches!(next, b')' | b'"' | b'\'')).then_some(at + len)
}

/// Every reference of `seg` to an element of the document: `url(#…)`,
/// quoted or not, `src("#…")`, and `element(#…)` (`-moz-element(#…)`).
fn references(text: &str, seg: &[Token], out: &mut Names) {
    for (k, t) in seg.iter().enumerate() {
        let arg = || significant(&seg[k + 1..]).next().map(|(_, a)| a);
        match t.tok {
            Tok::Url { content } => out.at.extend(after_hash(text, content)),
            Tok::Function => match plain_name(&text[t.start..t.end - 1]).as_str() {
                "url" | "src" => {
                    if let Some(a) = arg().filter(|a| a.tok == Tok::Str) {
                        out.at.extend(after_hash(text, a.start + 1));
                    }
                }
                "element" => {
                    if let Some(a) = arg().filter(|a| matches!(a.tok, Tok::Hash { .. })) {
                        out.at.push(a.start + 1);
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// Words of `animation` that are no keyframes name.
const ANIMATION_KEYWORDS: &[&str] = &[
    "none",
    "infinite",
    "normal",
    "reverse",
    "alternate",
    "alternate-reverse",
    "forwards",
    "backwards",
    "both",
    "running",
    "paused",
    "ease",
    "ease-in",
    "ease-out",
    "ease-in-out",
    "linear",
    "step-start",
    "step-end",
    "initial",
    "inherit",
    "unset",
    "revert",
    "revert-layer",
    "auto",
    "replace",
    "add",
    "accumulate",
];

/// References to `keyframes` in an `animation` or `animation-name`
/// declaration `seg`.
fn animation_names(text: &str, seg: &[Token], keyframes: &BTreeSet<String>, out: &mut Names) {
    let Some((property, value)) = declaration(text, seg) else {
        return;
    };
    if property != "animation" && property != "animation-name" {
        return;
    }
    let mut depth = 0usize;
    let mut after_bang = false;
    for t in value {
        match t.tok {
            Tok::Function | Tok::Delim('(') => depth += 1,
            Tok::Delim(')') => depth = depth.saturating_sub(1),
            Tok::Ident if depth == 0 && !after_bang => {
                let word = unescape(&text[t.start..t.end]);
                if keyframes.contains(&word)
                    && !word.starts_with("--")
                    && !ANIMATION_KEYWORDS.contains(&word.to_ascii_lowercase().as_str())
                {
                    out.at.push(t.start);
                }
            }
            _ => {}
        }
        after_bang = t.tok == Tok::Delim('!');
    }
}

/// The ids and classes a selector list `seg` selects by.
fn selector(text: &str, seg: &[Token], out: &mut Names) -> Result<(), Unscopable> {
    let mut k = 0;
    while k < seg.len() {
        let t = seg[k];
        match t.tok {
            Tok::Hash { id: true } => out.at.push(t.start + 1),
            Tok::Delim('.') => {
                if let Some(n) = seg.get(k + 1)
                    && n.tok == Tok::Ident
                    && n.start == t.end
                {
                    out.at.push(n.start);
                }
            }
            Tok::Delim('[') => {
                let close = seg[k..]
                    .iter()
                    .position(|t| t.tok == Tok::Delim(']'))
                    .map_or(seg.len(), |c| k + c);
                attribute_selector(text, &seg[k..close.min(seg.len())])?;
                k = close;
            }
            _ => {}
        }
        k += 1;
    }
    Ok(())
}

/// An attribute selector `[…]` (from its `[`): refused when it tests the
/// value of an attribute whose value the names change.
fn attribute_selector(text: &str, seg: &[Token]) -> Result<(), Unscopable> {
    let Some(eq) = seg.iter().position(|t| t.tok == Tok::Delim('=')) else {
        return Ok(());
    };
    let Some(name) = seg[..eq].iter().rev().find(|t| t.tok == Tok::Ident) else {
        return Ok(());
    };
    let attr = unescape(&text[name.start..name.end]).to_ascii_lowercase();
    if super::names::rewritten(&attr) {
        let end = seg.last().map_or(name.end, |t| t.end);
        return Err(Unscopable {
            at: seg[0].start,
            what: format!(
                "selects by the value of `{attr}` in {}]",
                &text[seg[0].start..end]
            ),
            fix: "select by #id or .class instead, or test only that the attribute is there",
        });
    }
    Ok(())
}

/// `text` with `stem` put at every offset of `at`.
pub(super) fn with_stem(text: &str, at: &[usize], stem: &str) -> String {
    let mut sorted = at.to_vec();
    sorted.sort_unstable();
    let mut out = String::with_capacity(text.len() + stem.len() * at.len());
    let mut last = 0;
    for &k in &sorted {
        out.push_str(&text[last..k]);
        out.push_str(stem);
        last = k;
    }
    out.push_str(&text[last..]);
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

    /// The check reads declarations as CSS does: comments and an unclosed
    /// string in a `style` attribute hide nothing, a comment's opener
    /// inside a sheet's string opens no comment, a vendor prefix names
    /// the property, and `none` is `none` however it is spelled (escaped,
    /// beside a comment, before `! important`). Each of these was misread
    /// by an earlier reader of the check's own; the others here it read
    /// alike.
    #[test]
    fn moving_declarations_are_read_as_css_reads_them() {
        for (style, want) in [
            // accepted by the earlier reader
            ("/* x */transform:rotate(1deg)", Some("transform")),
            ("/* it's */ fill:red;rotate:1deg", Some("rotate")),
            ("transform/**/:rotate(1deg)", Some("transform")),
            ("font-family:'a\n;transform:rotate(1deg)", Some("transform")),
            ("-webkit-transform:rotate(1deg)", Some("transform")),
            ("-WEBKIT-transform-origin:0 0", Some("transform-origin")),
            // refused by the earlier reader
            ("transform:/* still */none", None),
            ("transform:n\\4F ne", None),
            ("transform:none ! important", None),
            // refused alike: what `none` stands beside is no `none`
            ("transform:none none", Some("transform")),
            ("transform:'none'", Some("transform")),
            ("transform:", Some("transform")),
            ("transform-origin:none", Some("transform-origin")),
            // accepted alike: no property is named `*transform`
            ("*transform:rotate(1deg)", None),
        ] {
            assert_eq!(
                moving_in_declarations(style, true).as_deref(),
                want,
                "{style}"
            );
        }
        // accepted by the earlier reader
        for (sheet, name) in [
            (
                ".a{content:\"/*\"}.b{transform:rotate(1deg)}/* */",
                "transform",
            ),
            (".a{-moz-transform:rotate(1deg)}", "transform"),
        ] {
            assert_eq!(moving_in_sheet(sheet).as_deref(), Some(name), "{sheet}");
        }
        // outside every block a declaration belongs to no rule
        assert_eq!(moving_in_sheet("transform:rotate(1deg);"), None);
    }

    /// A sheet with the stem `P_` everywhere [`sheet_names`] puts it,
    /// references to the sheet's own `@keyframes` included (as module
    /// `names` reads a drawing's sheets: their names first).
    fn scoped(sheet: &str) -> Result<String, Unscopable> {
        let mut defined = Defined::default();
        defined.add(sheet_names(sheet, &Defined::default())?);
        let names = sheet_names(sheet, &defined)?;
        Ok(with_stem(sheet, &names.at, "P_"))
    }

    /// Rules of a drawing's sheet and the same rules with the drawing's
    /// names scoped: every kind of name and reference, and what looks
    /// like one and is not (colours, strings, comments, numbers, another
    /// document's address, invalid selectors).
    const RULES: &[(&str, &str)] = &[
        (".a{fill:#fff}", ".P_a{fill:#fff}"),
        (
            "#g1{fill:#AbCdEf;stroke:#abc}",
            "#P_g1{fill:#AbCdEf;stroke:#abc}",
        ),
        (
            "#g1, .cls-1 > path:not(.x){stroke:url(#g1)}",
            "#P_g1, .P_cls-1 > path:not(.P_x){stroke:url(#P_g1)}",
        ),
        (
            "g.st0:is(#a,.b) .c:nth-child(2n+1){fill:red}",
            "g.P_st0:is(#P_a,.P_b) .P_c:nth-child(2n+1){fill:red}",
        ),
        (
            ".a{fill:url( \"#g\" ) red;mask:URL('#m');clip-path:u\\72l(#c)}",
            ".P_a{fill:url( \"#P_g\" ) red;mask:URL('#P_m');clip-path:u\\72l(#P_c)}",
        ),
        (
            ".a{fill:url(other.svg#g);stroke:url(#);filter:url( #f )}",
            ".P_a{fill:url(other.svg#g);stroke:url(#);filter:url( #P_f )}",
        ),
        (
            ".a::after{content:\"#a .b url(#c) }\"}",
            ".P_a::after{content:\"#a .b url(#c) }\"}",
        ),
        ("/* .a{fill:url(#a)} #b */", "/* .a{fill:url(#a)} #b */"),
        (
            "/* it's */.a{font-family:'x;y'}",
            "/* it's */.P_a{font-family:'x;y'}",
        ),
        ("#\\31 23{fill:red}", "#P_\\31 23{fill:red}"),
        (".\\@x,.-y,.--z{fill:red}", ".P_\\@x,.P_-y,.P_--z{fill:red}"),
        ("#1a,.5{fill:red}", "#1a,.5{fill:red}"),
        (
            ".a{stroke-width:.5px;opacity:0.5;margin:1e3px}",
            ".P_a{stroke-width:.5px;opacity:0.5;margin:1e3px}",
        ),
        (
            "@media (min-width: 10.5em){.a{fill:red}#b{fill:url(#c)}}",
            "@media (min-width: 10.5em){.P_a{fill:red}#P_b{fill:url(#P_c)}}",
        ),
        (
            "@supports (display:grid){@media print{.a{fill:red}}}",
            "@supports (display:grid){@media print{.P_a{fill:red}}}",
        ),
        (
            ".a{fill:red;.b &{fill:blue}&:hover{fill:#00f}}",
            ".P_a{fill:red;.P_b &{fill:blue}&:hover{fill:#00f}}",
        ),
        (
            "@scope (.card) to (.body){img{fill:red}}",
            "@scope (.P_card) to (.P_body){img{fill:red}}",
        ),
        (
            "@keyframes spin{from{opacity:0}50.5%{opacity:.5}to{opacity:1}}.a{animation:spin 1s infinite}",
            "@keyframes P_spin{from{opacity:0}50.5%{opacity:.5}to{opacity:1}}.P_a{animation:P_spin 1s infinite}",
        ),
        (
            "@-webkit-keyframes blink{to{opacity:0}}.b{-webkit-animation-name:blink,none!important}",
            "@-webkit-keyframes P_blink{to{opacity:0}}.P_b{-webkit-animation-name:P_blink,none!important}",
        ),
        (
            "@font-face{font-family:f;src:url(#f) format('svg')}",
            "@font-face{font-family:P_f;src:url(#P_f) format('svg')}",
        ),
        (
            "@font-face{font-family:\"Hand Drawn\"}.a{font:italic 14px/1.2 hand  DRAWN,serif}.b{font-family:serif,'Hand Drawn'!important;content:'Hand Drawn'}@font-feature-values Hand Drawn{@styleset{x:1}}",
            "@font-face{font-family:\"P_Hand Drawn\"}.P_a{font:italic 14px/1.2 P_hand  DRAWN,serif}.P_b{font-family:serif,'P_Hand Drawn'!important;content:'Hand Drawn'}@font-feature-values P_Hand Drawn{@styleset{x:1}}",
        ),
        (
            "[data-x=\"#a\"],[id],path[fill]{fill:red}",
            "[data-x=\"#a\"],[id],path[fill]{fill:red}",
        ),
        (
            "@namespace svg url(http://www.w3.org/2000/svg);@charset \"utf-8\";",
            "@namespace svg url(http://www.w3.org/2000/svg);@charset \"utf-8\";",
        ),
        (
            ".a{--c:url(#g);fill:var(--c)}",
            ".P_a{--P_c:url(#P_g);fill:var(--P_c)}",
        ),
        (
            "@property --a{syntax:'<angle>';inherits:false;initial-value:0deg}:root{--a:1deg;transition:--a 1s}",
            "@property --P_a{syntax:'<angle>';inherits:false;initial-value:0deg}:root{--P_a:1deg;transition:--P_a 1s}",
        ),
        (
            "@container style(--big:1){.a{fill:var(--c,var(--\\64 ))}}@supports (--x:0){}",
            "@container style(--P_big:1){.P_a{fill:var(--P_c,var(--P_\\64 ))}}@supports (--P_x:0){}",
        ),
        (
            "@font-palette-values --p{font-family:g}@position-try --t{top:0}.a{font-palette:--p;position-try-fallbacks:--t;anchor-name:--n;top:anchor(--n top)}",
            "@font-palette-values --P_p{font-family:g}@position-try --P_t{top:0}.P_a{font-palette:--P_p;position-try-fallbacks:--P_t;anchor-name:--P_n;top:anchor(--P_n top)}",
        ),
        (
            "@keyframes --k{}.a{animation:--k 1s}.b{content:'--k';--:1}",
            "@keyframes --P_k{}.P_a{animation:--P_k 1s}.P_b{content:'--k';--:1}",
        ),
        (
            "@font-face{font-family:--f}.a{font:1px --f}",
            "@font-face{font-family:--P_f}.P_a{font:1px --P_f}",
        ),
        (
            ".a{background:element(#b) -moz-element( #c ),element(#);mask:src(\"#m\") src('x.svg#y')}",
            ".P_a{background:element(#P_b) -moz-element( #P_c ),element(#);mask:src(\"#P_m\") src('x.svg#y')}",
        ),
    ];

    #[test]
    fn every_name_of_a_sheet_and_nothing_else_gets_the_stem() {
        for (sheet, want) in RULES {
            assert_eq!(scoped(sheet).as_deref(), Ok(*want), "{sheet}");
        }
        // an `animation` names only the sheet's own keyframes
        assert_eq!(
            scoped(".a{animation:spin 1s}").as_deref(),
            Ok(".P_a{animation:spin 1s}")
        );
        // a family names only the sheet's own `@font-face` families
        assert_eq!(
            scoped(".a{font:14px Brand;font-family:Brand Sans}").as_deref(),
            Ok(".P_a{font:14px Brand;font-family:Brand Sans}")
        );
        // a keyframes named like a keyword is not what the keyword means
        assert_eq!(
            scoped("@keyframes ease{}.a{animation:ease 1s ease}").as_deref(),
            Ok("@keyframes P_ease{}.P_a{animation:ease 1s ease}")
        );
    }

    #[test]
    fn declarations_get_the_stem_on_references_only() {
        let spin = Defined {
            keyframes: ["spin".to_string()].into(),
            fonts: BTreeSet::new(),
        };
        for (style, want) in [
            (
                "fill:url(#g);stroke:#fff;animation:spin 1s",
                "fill:url(#P_g);stroke:#fff;animation:P_spin 1s",
            ),
            (
                "font-family:'url(#a)';fill:#a0a0a0",
                "font-family:'url(#a)';fill:#a0a0a0",
            ),
            (
                "shape-inside:url(#rect1);color:red",
                "shape-inside:url(#P_rect1);color:red",
            ),
            ("url(#g) none", "url(#P_g) none"),
            ("var(--c, #fff)", "var(--P_c, #fff)"),
            ("#fff", "#fff"),
            ("", ""),
        ] {
            let at = declaration_names(style, &spin).at;
            assert_eq!(with_stem(style, &at, "P_"), want, "{style}");
        }
    }

    #[test]
    fn what_cannot_be_scoped_is_refused_where_it_is() {
        for (sheet, needle, at) in [
            ("@import url(x.css);.a{}", "@import", 0),
            (".a{}\n@IMPORT 'x.css';", "@import", 5),
            ("path[id^=\"leg\"]{fill:red}", "`id` in [id^=\"leg\"]", 4),
            ("a[ xlink|href = '#a' ]{}", "`href`", 1),
            ("[class~=st0]{}", "`class`", 0),
            ("@media print{[fill=\"url(#g)\"]{}}", "`fill`", 13),
            ("@foo bar{.a{}}", "@foo", 0),
            ("@keyframes \"spin\"{}", "string", 11),
        ] {
            let u = scoped(sheet).unwrap_err();
            assert!(u.what.contains(needle), "{sheet}: {u:?}");
            assert_eq!(u.at, at, "{sheet}: {u:?}");
        }
    }

    proptest::proptest! {
        /// Any sequence of [`RULES`], between whitespace or comments that
        /// hold rule-like text, and some of them inside an `@media` block,
        /// gets the stem exactly where each rule alone gets it: reading
        /// one rule does not depend on what came before (every rule that
        /// names a keyframes or a font family defines it).
        #[test]
        fn rules_are_scoped_alike_in_any_sheet(
            picks in proptest::collection::vec((0..RULES.len(), 0usize..4, proptest::bool::ANY), 0..12)
        ) {
            const SEP: [&str; 4] = ["", " ", "\n\t", "/* }{ .x #y url(#z) ' */"];
            let (mut sheet, mut want) = (String::new(), String::new());
            for &(k, sep, in_media) in &picks {
                let (rule, scoped_rule) = RULES[k];
                let (open, close) = if in_media { ("@media screen{", "}") } else { ("", "") };
                for (text, r) in [(&mut sheet, rule), (&mut want, scoped_rule)] {
                    text.push_str(SEP[sep]);
                    text.push_str(open);
                    text.push_str(r);
                    text.push_str(close);
                }
            }
            proptest::prop_assert_eq!(scoped(&sheet).unwrap(), want);
        }
    }
}
