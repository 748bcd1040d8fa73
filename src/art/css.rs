//! The drawing's own CSS, read once as CSS Syntax reads it: a tokenizer
//! ([`Lexer`]: comments, strings, escapes, `url(…)`, hashes, numbers) and
//! the pieces between `{`, `;` and `}` it splits into ([`Pieces`]), which
//! tell preludes from declarations. Both go one token at a time and hold
//! nothing that grows with the text: each reader keeps what it needs of
//! a piece as its tokens come. Two things are read from them.
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
//! [`declaration_names`], [`family_names`]), counted as they are found
//! against the room module `names` gives. It only finds where the
//! prefix goes; the text itself is never rebuilt from tokens.

use std::borrow::Cow;
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
    let mut piece = Declaration::default();
    for step in Pieces::new(text) {
        match step {
            Step::Token(t) => piece.read(text, &t),
            Step::End(_) => {
                if let Some(p) = std::mem::take(&mut piece).moving(text, shape) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// The first declaration of [`MOVING`] or [`SHAPE_ONLY_GEOMETRY`]
/// anywhere in a style sheet `text` (in any rule, at-rule or keyframe), as
/// [`moving_in_declarations`].
pub(super) fn moving_in_sheet(text: &str) -> Option<String> {
    let mut moves = SheetMoves::default();
    for step in Pieces::new(text) {
        match step {
            Step::Token(t) => moves.piece.read(text, &t),
            Step::End(end) => {
                if let Some(p) = moves.end(text, end) {
                    return Some(p);
                }
            }
        }
    }
    None
}

/// What one reading of a style sheet finds ([`read_sheet`]).
pub(super) enum SheetReading {
    /// A declaration that moves what it draws ([`moving_in_sheet`]).
    Moves(String),
    /// None: the sheet's names with nothing defined ([`sheet_names`]).
    Names(Result<Names, Refused>),
}

/// [`moving_in_sheet`] and [`sheet_names`] with nothing defined, in one
/// reading of the sheet: its names are read until they are refused or run
/// past `room`, what moves to the end of the sheet.
pub(super) fn read_sheet(text: &str, room: usize) -> SheetReading {
    let nothing = Defined::default();
    let mut moves = SheetMoves::default();
    let mut walk = Ok(Walk::new(text, Block::Rules, &nothing, room));
    for step in Pieces::new(text) {
        match step {
            Step::Token(t) => {
                moves.piece.read(text, &t);
                if let Ok(w) = &mut walk {
                    w.token(&t);
                }
            }
            Step::End(end) => {
                if let Some(p) = moves.end(text, end) {
                    return SheetReading::Moves(p);
                }
                if let Ok(w) = &mut walk
                    && let Err(refused) = w.end(end)
                {
                    walk = Err(refused);
                }
            }
        }
    }
    SheetReading::Names(walk.map(Walk::finish))
}

/// A sheet read a piece at a time for [`moving_in_sheet`]: a piece that
/// opens a block is a selector or a rule's prelude; one that ends
/// otherwise inside a block is a declaration.
#[derive(Default)]
struct SheetMoves {
    /// Blocks open.
    depth: usize,
    piece: Declaration,
}

impl SheetMoves {
    /// The piece read ends as `end`: its property, when it is a
    /// declaration of [`MOVING`] or [`SHAPE_ONLY_GEOMETRY`] that moves
    /// something.
    fn end(&mut self, text: &str, end: End) -> Option<String> {
        let read = std::mem::take(&mut self.piece);
        if end == End::Open {
            self.depth += 1;
            return None;
        }
        let moving = (self.depth > 0)
            .then(|| read.moving(text, true))
            .flatten()
            .filter(|p| MOVING.contains(&p.as_str()) || SHAPE_ONLY_GEOMETRY.contains(&p.as_str()));
        if end == End::Close {
            self.depth = self.depth.saturating_sub(1);
        }
        moving
    }
}

/// A piece read as a declaration, one token at a time, as far as
/// [`Declaration::moving`] needs it: the property, and how many
/// significant tokens its value has with the first three of them.
#[derive(Default)]
struct Declaration {
    head: Head,
    values: usize,
    first: [Option<Token>; 3],
}

impl Declaration {
    fn read(&mut self, text: &str, t: &Token) {
        if t.significant() && !matches!(self.head, Head::Not) && self.head.read(text, t) {
            if let Some(slot) = self.first.get_mut(self.values) {
                *slot = Some(*t);
            }
            self.values += 1;
        }
    }

    /// The property, when the piece declares a [`MOVING`] property (or
    /// with `shape` a [`GEOMETRY`] one) with a value that moves
    /// something: any value but a lone `none` (`!important` or not) of a
    /// property [`NONE_IS_STILL`] lists.
    fn moving(&self, text: &str, shape: bool) -> Option<String> {
        let name = self.head.property()?;
        let listed = MOVING.contains(&name) || (shape && GEOMETRY.contains(&name));
        if !listed {
            return None;
        }
        if NONE_IS_STILL.contains(&name) && self.is_none(text) {
            return None;
        }
        Some(name.to_string())
    }

    /// Whether the value is a lone `none`, `!important` or not.
    fn is_none(&self, text: &str) -> bool {
        let none = |v: &Option<Token>| v.is_some_and(|v| v.is_ident(text, "none"));
        match (self.values, &self.first) {
            (1, [v, ..]) => none(v),
            (3, [v, bang, important]) => none(v) && important_at(text, bang, important),
            _ => false,
        }
    }
}

/// How far a piece reads as a declaration (a name, `:` and a value),
/// one significant token at a time.
#[derive(Default)]
enum Head {
    /// No significant token yet.
    #[default]
    Start,
    /// An identifier, which a `:` would make the property's name.
    Name(Token),
    /// A declaration of this property ([`plain_name`]); the tokens that
    /// follow are its value.
    Declares(String),
    /// No declaration.
    Not,
}

impl Head {
    /// Reads the significant token `t`: whether it is of the value.
    fn read(&mut self, text: &str, t: &Token) -> bool {
        match *self {
            Head::Start => {
                *self = if t.tok == Tok::Ident {
                    Head::Name(*t)
                } else {
                    Head::Not
                };
            }
            Head::Name(n) => {
                *self = if t.tok == Tok::Delim(':') {
                    Head::Declares(plain_name(&text[n.start..n.end]).into_owned())
                } else {
                    Head::Not
                };
            }
            Head::Declares(_) => return true,
            Head::Not => {}
        }
        false
    }

    fn property(&self) -> Option<&str> {
        match self {
            Head::Declares(p) => Some(p),
            _ => None,
        }
    }
}

/// Whether `bang` and `important` are a closing `!important`.
fn important_at(text: &str, bang: &Option<Token>, important: &Option<Token>) -> bool {
    bang.is_some_and(|b| b.tok == Tok::Delim('!'))
        && important.is_some_and(|i| i.is_ident(text, "important"))
}

// ---------------------------------------------------------------------
// CSS as tokens and pieces (both readings)
// ---------------------------------------------------------------------

/// An identifier with its CSS escapes resolved: `\` and one to six hex
/// digits (and one whitespace after them) is that code point, `\` and any
/// other character that character.
#[inline]
fn unescape(ident: &str) -> Cow<'_, str> {
    if ident.bytes().any(|b| b == b'\\') {
        Cow::Owned(unescaped(ident))
    } else {
        Cow::Borrowed(ident)
    }
}

/// [`unescape`] of an identifier that holds a `\`.
#[cold]
#[inline(never)]
fn unescaped(ident: &str) -> String {
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

impl Token {
    /// Neither whitespace nor a comment.
    fn significant(&self) -> bool {
        !matches!(self.tok, Tok::Space | Tok::Comment)
    }

    /// Whether the token is the identifier `word` (escapes resolved,
    /// whatever its case).
    fn is_ident(&self, text: &str, word: &str) -> bool {
        self.tok == Tok::Ident && unescape(&text[self.start..self.end]).eq_ignore_ascii_case(word)
    }
}

const fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0c)
}

const fn is_name_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

const fn is_name(b: u8) -> bool {
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
#[cold]
#[inline(never)]
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

/// Whether the byte `b` is a token by itself, a delimiter whatever
/// follows: an ASCII character that starts no comment, whitespace,
/// string, hash, at-keyword, number, identifier or escape.
const fn is_delim(b: u8) -> bool {
    b.is_ascii()
        && !is_name(b)
        && !is_space(b)
        && !matches!(b, b'/' | b'"' | b'\'' | b'#' | b'@' | b'+' | b'.' | b'\\')
}

/// [`is_delim`] of every byte.
const DELIMS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = is_delim(b as u8);
        b += 1;
    }
    table
};

/// The tokens of a text, one at a time (comments and whitespace included,
/// so the tokens cover it): nothing is held but the place reached.
struct Lexer<'t> {
    text: &'t str,
    i: usize,
}

impl<'t> Lexer<'t> {
    fn new(text: &'t str) -> Self {
        Lexer { text, i: 0 }
    }

    /// The identifier, function or `url(…)` that starts at `start`.
    fn ident_like(&self, start: usize) -> (Tok, usize) {
        let i = name_end(self.text, start);
        if self.text.as_bytes().get(i) == Some(&b'(') {
            self.function(start, i + 1)
        } else {
            (Tok::Ident, i)
        }
    }

    /// The function or `url(…)` whose name starts at `start` and whose
    /// `(` ends before `i`.
    #[inline(never)]
    fn function(&self, start: usize, mut i: usize) -> (Tok, usize) {
        let text = self.text;
        let s = text.as_bytes();
        if !unescape(&text[start..i - 1]).eq_ignore_ascii_case("url") {
            return (Tok::Function, i);
        }
        let mut content = i;
        while content < s.len() && is_space(s[content]) {
            content += 1;
        }
        if matches!(s.get(content), Some(b'"' | b'\'')) {
            return (Tok::Function, i);
        }
        i = content;
        while i < s.len() && s[i] != b')' {
            i += if escape_at(s, i) {
                escape_len(text, i)
            } else {
                1
            };
        }
        (Tok::Url { content }, (i + 1).min(s.len()))
    }

    /// The token at `start` that is neither a delimiter [`is_delim`]
    /// lists nor starts with a letter.
    #[inline(never)]
    fn other(&self, start: usize) -> (Tok, usize) {
        let text = self.text;
        let s = text.as_bytes();
        let mut i = start;
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
            let (tok, end) = self.ident_like(start);
            i = end;
            tok
        } else if b.is_ascii() {
            i += 1;
            Tok::Delim(char::from(b))
        } else {
            let c = text[i..].chars().next().expect("i is below the length");
            i += c.len_utf8();
            Tok::Delim(c)
        };
        (tok, i)
    }
}

impl Iterator for Lexer<'_> {
    type Item = Token;

    #[inline]
    fn next(&mut self) -> Option<Token> {
        let start = self.i;
        let &b = self.text.as_bytes().get(start)?;
        // the common tokens here, the others apart
        let (tok, end) = if DELIMS[usize::from(b)] {
            (Tok::Delim(char::from(b)), start + 1)
        } else if is_name_start(b) {
            self.ident_like(start)
        } else {
            self.other(start)
        };
        self.i = end;
        Some(Token { tok, start, end })
    }
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

/// A token of a piece, or the end of a piece and how it ends.
enum Step {
    Token(Token),
    End(End),
}

/// The tokens of a text cut into pieces at `{`, `}` and `;` (a `;`
/// outside parentheses; a `{` or `}` closes any left open): each piece's
/// tokens in turn, then how it ends; the last piece ends with the text
/// (and may be empty).
struct Pieces<'t> {
    lexer: Lexer<'t>,
    parens: usize,
    done: bool,
}

impl<'t> Pieces<'t> {
    fn new(text: &'t str) -> Self {
        Pieces {
            lexer: Lexer::new(text),
            parens: 0,
            done: false,
        }
    }
}

impl Iterator for Pieces<'_> {
    type Item = Step;

    fn next(&mut self) -> Option<Step> {
        let Some(t) = self.lexer.next() else {
            let last = !self.done;
            self.done = true;
            return last.then_some(Step::End(End::Text));
        };
        let end = match t.tok {
            Tok::Delim('(') | Tok::Function => {
                self.parens += 1;
                return Some(Step::Token(t));
            }
            Tok::Delim(')') => {
                self.parens = self.parens.saturating_sub(1);
                return Some(Step::Token(t));
            }
            Tok::Delim('{') => End::Open,
            Tok::Delim('}') => End::Close,
            Tok::Delim(';') if self.parens == 0 => End::Semicolon,
            _ => return Some(Step::Token(t)),
        };
        if end != End::Semicolon {
            self.parens = 0;
        }
        Some(Step::End(end))
    }
}

/// A property's or at-rule's name as CSS reads it: lowercase, unescaped,
/// without a vendor prefix (`-webkit-keyframes` is `keyframes`; a custom
/// property `--x` is itself).
fn plain_name(raw: &str) -> Cow<'_, str> {
    let name = match unescape(raw) {
        Cow::Borrowed(n) if !n.bytes().any(|b| b.is_ascii_uppercase()) => Cow::Borrowed(n),
        n => Cow::Owned(n.to_ascii_lowercase()),
    };
    if name.starts_with("--") {
        return name;
    }
    // `-vendor-rest` is `rest`
    let Some(k) = name.strip_prefix('-').and_then(|n| n.find('-')) else {
        return name;
    };
    match name {
        Cow::Borrowed(n) => Cow::Borrowed(&n[k + 2..]),
        Cow::Owned(n) => Cow::Owned(n[k + 2..].to_string()),
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

    pub fn is_empty(&self) -> bool {
        self.keyframes.is_empty() && self.fonts.is_empty()
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

/// Why a style sheet gets no names.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Refused {
    /// It cannot be given the file's own names.
    Unscopable(Unscopable),
    /// It holds more names than the room it was given: at byte `.0` is
    /// the first name past the room.
    Over(usize),
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
/// At most `room` names: the sheet is read piece by piece (a rule's
/// selector, a declaration), each piece's names counted as its tokens are
/// read, and the reading stops at the end of the piece whose names run
/// past the room ([`Refused::Over`]); nothing held grows with the sheet
/// but the names kept.
///
/// Refused: `@import` (a sheet rigbake cannot read), a block at-rule
/// rigbake does not know the contents of, a quoted `@keyframes` name, and
/// an attribute selector that tests the value of an attribute whose value
/// is rewritten ([`super::names::rewritten`]: `[id^="leg"]`,
/// `[href="#a"]`); testing only that the attribute is there is fine.
pub(super) fn sheet_names(text: &str, defined: &Defined, room: usize) -> Result<Names, Refused> {
    Walk::run(text, Block::Rules, defined, room)
}

/// The names in a list of declarations (a `style` attribute) or in one
/// value (a presentation attribute such as `fill="url(#g)"`): references
/// to elements, keyframes and font families, and dashed idents, as
/// [`sheet_names`] finds them in a declaration; at most `room` of them,
/// else `Err` with the offset of the first name past it.
pub(super) fn declaration_names(
    text: &str,
    defined: &Defined,
    room: usize,
) -> Result<Names, usize> {
    match Walk::run(text, Block::Declarations, defined, room) {
        Ok(names) => Ok(names),
        Err(Refused::Over(at)) => Err(at),
        Err(Refused::Unscopable(u)) => {
            unreachable!("declarations hold nothing that is refused: {u:?}")
        }
    }
}

/// The names in a `font-family` value (a presentation attribute): the
/// families of `defined` it lists, as [`sheet_names`] finds them; at most
/// `room` of them, else `Err` with the offset of the first name past it.
pub(super) fn family_names(text: &str, defined: &Defined, room: usize) -> Result<Names, usize> {
    let mut found = Found::new(room);
    let mut list = Families::new(false, false);
    for t in Lexer::new(text).filter(Token::significant) {
        list.read(text, &t, &defined.fonts, &mut found);
    }
    list.finish(text, &defined.fonts, &mut found);
    if let Some(past) = found.past {
        return Err(past);
    }
    let mut names = Names {
        at: found.at,
        keyframes: Vec::new(),
        fonts: found.fonts,
    };
    names.at.sort_unstable();
    Ok(names)
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

/// The names one reading of a piece finds: the first `room` kept, the
/// others counted.
struct Found {
    room: usize,
    at: Vec<usize>,
    /// How many, kept or not.
    n: usize,
    /// The first one past the room.
    past: Option<usize>,
    keyframes: Vec<String>,
    fonts: Vec<String>,
}

impl Found {
    fn new(room: usize) -> Self {
        Found {
            room,
            at: Vec::new(),
            n: 0,
            past: None,
            keyframes: Vec::new(),
            fonts: Vec::new(),
        }
    }

    fn push(&mut self, at: usize) {
        self.n += 1;
        if self.n <= self.room {
            self.at.push(at);
        } else if self.past.is_none() {
            self.past = Some(at);
        }
    }

    fn push_some(&mut self, at: Option<usize>) {
        if let Some(at) = at {
            self.push(at);
        }
    }
}

/// Reads `text` as a `top` block: its [`Pieces`], each read as its block
/// and place say (see [`sheet_names`]), token by token.
struct Walk<'t, 'd> {
    text: &'t str,
    defined: &'d Defined,
    /// How many more names there is room for.
    room: usize,
    /// The blocks the piece being read is in.
    stack: Vec<Block>,
    piece: Piece,
    out: Names,
}

impl<'t, 'd> Walk<'t, 'd> {
    fn new(text: &'t str, top: Block, defined: &'d Defined, room: usize) -> Self {
        Walk {
            text,
            defined,
            room,
            stack: vec![top],
            piece: Piece::new(room),
            out: Names::default(),
        }
    }

    fn run(text: &'t str, top: Block, defined: &'d Defined, room: usize) -> Result<Names, Refused> {
        let mut walk = Walk::new(text, top, defined, room);
        for step in Pieces::new(text) {
            match step {
                Step::Token(t) => walk.token(&t),
                Step::End(end) => walk.end(end)?,
            }
        }
        Ok(walk.finish())
    }

    /// The names of the text read to its end.
    fn finish(self) -> Names {
        let mut out = self.out;
        out.at.sort_unstable();
        debug_assert!(
            out.at.windows(2).all(|w| w[0] < w[1]),
            "each name is found once"
        );
        out
    }

    fn block(&self) -> Block {
        *self.stack.last().expect("the top block stays")
    }

    fn token(&mut self, t: &Token) {
        let (text, block, defined) = (self.text, self.block(), self.defined);
        let p = &mut self.piece;
        p.end = t.end;
        if p.mode == Mode::Blank {
            if !t.significant() {
                return;
            }
            if block == Block::Rules && t.tok == Tok::AtKeyword {
                // the prelude is read from the token after
                let name = at_rule_name(text, t);
                p.mode = Mode::AtRule(AtRule::of(&name));
                if name == "font-feature-values" {
                    p.families = Some(Families::new(false, true));
                }
                p.at_rule = Some((name, t.start));
                return;
            }
            p.mode = if block == Block::Rules {
                Mode::Rule
            } else {
                Mode::Declarations
            };
        }
        match p.mode {
            Mode::Blank => unreachable!("a significant token decided the mode"),
            Mode::Rule => {
                p.selector.read(text, t, &mut p.if_open);
                p.statement(text, t, block, defined);
            }
            Mode::Declarations => p.statement(text, t, block, defined),
            Mode::AtRule(kind) => p.prelude(text, t, kind, defined),
        }
    }

    /// The piece read ends as `end`: its names under the reading that end
    /// says, or why there are none.
    fn end(&mut self, end: End) -> Result<(), Refused> {
        let (text, block, fonts) = (self.text, self.block(), &self.defined.fonts);
        let mut p = std::mem::replace(&mut self.piece, Piece::new(0));
        p.selector.finish(text, p.end);
        if let Some(list) = p.families.take() {
            list.finish(text, fonts, &mut p.if_open);
        }
        if let Some(Value::Families(list)) = p.value.take() {
            list.finish(text, fonts, &mut p.if_not);
        }
        let none = Found::new(0);
        let (found, error, next) = match (end, p.mode) {
            (End::Open, Mode::Blank) if block == Block::Rules => (none, None, Block::Rules),
            (End::Open, Mode::Blank | Mode::Declarations) => (none, None, Block::Declarations),
            (End::Open, Mode::Rule) => (p.if_open, p.selector.error, Block::Rules),
            (End::Open, Mode::AtRule(kind)) => {
                let error = match kind {
                    AtRule::Unknown => p.at_rule.map(|(name, at)| Unscopable {
                        at,
                        what: format!("holds an @{name} block, which rigbake does not know"),
                        fix: "take the block out of the drawing's <style>",
                    }),
                    AtRule::Scope => p.selector.error,
                    _ => p.error,
                };
                (p.if_open, error, kind.block())
            }
            (_, Mode::AtRule(_)) => {
                let error = p
                    .at_rule
                    .filter(|(name, _)| name == "import")
                    .map(|(_, at)| Unscopable {
                        at,
                        what: "imports another style sheet (@import)".into(),
                        fix: "copy its rules into the drawing's <style>",
                    });
                (none, error, block)
            }
            (_, Mode::Rule | Mode::Declarations) => (p.if_not, None, block),
            (_, Mode::Blank) => (none, None, block),
        };
        if let Some(u) = error {
            return Err(Refused::Unscopable(u));
        }
        if let Some(past) = found.past {
            return Err(Refused::Over(past));
        }
        self.room -= found.n;
        self.out.at.extend(found.at);
        self.out.keyframes.extend(found.keyframes);
        self.out.fonts.extend(found.fonts);
        match end {
            End::Open => self.stack.push(next),
            End::Close if self.stack.len() > 1 => {
                self.stack.pop();
            }
            _ => {}
        }
        self.piece = Piece::new(self.room);
        Ok(())
    }
}

/// How a piece is read, decided by its first significant token and the
/// block it is in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// No significant token yet.
    Blank,
    /// In rules: a selector if it opens a block, else a declaration.
    Rule,
    /// In rules, from an at-keyword: an at-rule's prelude if it opens a
    /// block, else an at-rule statement.
    AtRule(AtRule),
    /// In any other block: a declaration (if it opens a block, nothing).
    Declarations,
}

/// The at-rules whose preludes the names are read in.
#[derive(Debug, Clone, Copy, PartialEq)]
enum AtRule {
    /// A `@keyframes` name.
    Keyframes,
    /// `@scope`'s selectors.
    Scope,
    /// `@font-feature-values`' families.
    FontFeatureValues,
    /// Another known at-rule whose block holds this.
    Known(Block),
    /// One rigbake does not know.
    Unknown,
}

impl AtRule {
    /// The at-rule named `name` ([`at_rule_name`]).
    fn of(name: &str) -> AtRule {
        match name {
            "media" | "supports" | "layer" | "container" | "document" | "starting-style" => {
                AtRule::Known(Block::Rules)
            }
            "scope" => AtRule::Scope,
            "keyframes" => AtRule::Keyframes,
            "font-face" => AtRule::Known(Block::FontFace),
            "font-feature-values" => AtRule::FontFeatureValues,
            "page"
            | "property"
            | "counter-style"
            | "font-palette-values"
            | "view-transition"
            | "position-try"
            | "color-profile" => AtRule::Known(Block::Declarations),
            _ => AtRule::Unknown,
        }
    }

    /// What its block holds.
    fn block(self) -> Block {
        match self {
            AtRule::Keyframes => Block::Keyframes,
            AtRule::Scope => Block::Rules,
            AtRule::FontFeatureValues | AtRule::Unknown => Block::Declarations,
            AtRule::Known(b) => b,
        }
    }
}

/// A function whose argument may name an element.
#[derive(Debug, Clone, Copy)]
enum Arg {
    /// `url("#…")`, `src("#…")`.
    Address,
    /// `element(#…)`.
    Element,
}

/// What a declaration's value is read for.
enum Value {
    /// `animation` and `animation-name`: references to keyframes.
    Animation(Animation),
    /// `font-family` and `font`: families.
    Families(Families),
    Other,
}

/// One piece, read token by token: its names if it opens a block
/// (`if_open`: a selector, an at-rule's prelude) and if it does not
/// (`if_not`: a declaration), and what in it is refused if it opens one.
struct Piece {
    mode: Mode,
    /// The at-rule's name and where it starts.
    at_rule: Option<(String, usize)>,
    head: Head,
    value: Option<Value>,
    selector: Selector,
    /// A function read whose argument is not yet.
    arg: Option<Arg>,
    /// `@font-feature-values`' families.
    families: Option<Families>,
    /// Whether a `@keyframes` prelude's first token is read.
    keyframes_named: bool,
    if_open: Found,
    if_not: Found,
    /// What is refused in a `@keyframes` prelude.
    error: Option<Unscopable>,
    /// The end of the last token.
    end: usize,
}

impl Piece {
    fn new(room: usize) -> Self {
        Piece {
            mode: Mode::Blank,
            at_rule: None,
            head: Head::Start,
            value: None,
            selector: Selector::default(),
            arg: None,
            families: None,
            keyframes_named: false,
            if_open: Found::new(room),
            if_not: Found::new(room),
            error: None,
            end: 0,
        }
    }

    /// The token `t` of a declaration: references to elements, dashed
    /// idents, and in its value references to keyframes or families.
    fn statement(&mut self, text: &str, t: &Token, block: Block, defined: &Defined) {
        let out = &mut self.if_not;
        let sig = t.significant();
        if sig && let Some(arg) = self.arg.take() {
            match (arg, t.tok) {
                (Arg::Address, Tok::Str) => out.push_some(after_hash(text, t.start + 1)),
                (Arg::Element, Tok::Hash { .. }) => out.push(t.start + 1),
                _ => {}
            }
        }
        match t.tok {
            Tok::Url { content } => out.push_some(after_hash(text, content)),
            Tok::Function => {
                self.arg = match &*plain_name(&text[t.start..t.end - 1]) {
                    "url" | "src" => Some(Arg::Address),
                    "element" => Some(Arg::Element),
                    _ => None,
                };
            }
            Tok::Ident if is_dashed(&text[t.start..t.end]) => out.push(name_start(text, t)),
            _ => {}
        }
        if !sig {
            return;
        }
        match &mut self.value {
            Some(Value::Animation(a)) => a.read(text, t, &defined.keyframes, out),
            Some(Value::Families(list)) => list.read(text, t, &defined.fonts, out),
            Some(Value::Other) => {}
            // no value yet: the token may be the declaration's name or `:`
            None if !matches!(self.head, Head::Not) => {
                self.head.read(text, t);
                if let Some(p) = self.head.property() {
                    self.value = Some(match p {
                        "animation" | "animation-name" => Value::Animation(Animation::default()),
                        "font-family" | "font" => Value::Families(Families::new(
                            block == Block::FontFace && p == "font-family",
                            true,
                        )),
                        _ => Value::Other,
                    });
                }
            }
            None => {}
        }
    }

    /// The token `t` after the at-keyword of a `kind` at-rule.
    fn prelude(&mut self, text: &str, t: &Token, kind: AtRule, defined: &Defined) {
        let out = &mut self.if_open;
        if kind == AtRule::Keyframes {
            if !t.significant() || self.keyframes_named {
                return;
            }
            self.keyframes_named = true;
            match t.tok {
                Tok::Ident => {
                    out.push(name_start(text, t));
                    out.keyframes
                        .push(unescape(&text[t.start..t.end]).into_owned());
                }
                Tok::Str => {
                    self.error = Some(Unscopable {
                        at: t.start,
                        what: format!("names @keyframes with a string ({})", &text[t.start..t.end]),
                        fix: "name it with an identifier (no quotes)",
                    });
                }
                _ => {}
            }
            return;
        }
        if t.tok == Tok::Ident && is_dashed(&text[t.start..t.end]) {
            out.push(name_start(text, t));
        }
        if kind == AtRule::Scope {
            self.selector.read(text, t, out);
        }
        if let Some(list) = &mut self.families
            && t.significant()
        {
            list.read(text, t, &defined.fonts, out);
        }
    }
}

/// An at-keyword's name ([`plain_name`], without its `@`).
fn at_rule_name(text: &str, t: &Token) -> String {
    plain_name(&text[t.start + 1..t.end]).into_owned()
}

/// A font family as CSS matches it: unescaped, its words joined by one
/// space, in lower case.
fn family_key(words: &[String]) -> String {
    words.join(" ").to_ascii_lowercase()
}

/// A family list (`font-family`'s value, the end of `font`'s,
/// `@font-feature-values`' prelude) read one significant token at a
/// time: in each comma-separated item, a string or the identifiers that
/// end it (after `font`'s size), a closing `!important` left out. With
/// `define`, every family is one the drawing defines (an `@font-face`'s
/// `font-family`), else only those of the fonts given are references to
/// one. A family's name gets the stem in front (inside a string's quotes,
/// after a dashed ident's `--`; `beside_dashed`: not there, where the
/// piece's dashed idents are found already).
struct Families {
    define: bool,
    beside_dashed: bool,
    item: Item,
    /// The item before the last `!`.
    before_bang: Item,
    /// The last two tokens.
    tail: [Option<Token>; 2],
}

/// An item of a family list read so far: its last token, and the
/// identifiers it ends with (the first, and the end of the last).
#[derive(Debug, Clone, Copy, Default)]
struct Item {
    last: Option<Token>,
    run: Option<(Token, usize)>,
}

impl Families {
    fn new(define: bool, beside_dashed: bool) -> Self {
        Families {
            define,
            beside_dashed,
            item: Item::default(),
            before_bang: Item::default(),
            tail: [None, None],
        }
    }

    fn read(&mut self, text: &str, t: &Token, fonts: &BTreeSet<String>, out: &mut Found) {
        self.tail = [self.tail[1], Some(*t)];
        if t.tok == Tok::Delim(',') {
            let item = std::mem::take(&mut self.item);
            self.family(text, item, fonts, out);
            return;
        }
        if t.tok == Tok::Delim('!') {
            self.before_bang = self.item;
        }
        self.item.last = Some(*t);
        self.item.run = match (t.tok, self.item.run) {
            (Tok::Ident, Some((first, _))) => Some((first, t.end)),
            (Tok::Ident, None) => Some((*t, t.end)),
            _ => None,
        };
    }

    /// The end of the list: its last item.
    fn finish(self, text: &str, fonts: &BTreeSet<String>, out: &mut Found) {
        let [bang, important] = &self.tail;
        let item = if important_at(text, bang, important) {
            self.before_bang
        } else {
            self.item
        };
        self.family(text, item, fonts, out);
    }

    fn family(&self, text: &str, item: Item, fonts: &BTreeSet<String>, out: &mut Found) {
        let (at, key, dashed) = match item {
            Item {
                last: Some(last), ..
            } if last.tok == Tok::Str => {
                let inner = &text[last.start + 1..last.end];
                let inner = inner
                    .strip_suffix(&text[last.start..=last.start])
                    .unwrap_or(inner);
                (
                    last.start + 1,
                    family_key(&[unescape(inner).into_owned()]),
                    false,
                )
            }
            Item {
                run: Some((first, end)),
                ..
            } => {
                let words: Vec<String> = Lexer {
                    text: &text[..end],
                    i: first.start,
                }
                .filter(|w| w.tok == Tok::Ident)
                .map(|w| unescape(&text[w.start..w.end]).into_owned())
                .collect();
                let dashed = is_dashed(&text[first.start..first.end]);
                (name_start(text, &first), family_key(&words), dashed)
            }
            _ => return,
        };
        let named = !(self.beside_dashed && dashed);
        if self.define {
            out.fonts.push(key);
            if named {
                out.push(at);
            }
        } else if named && fonts.contains(&key) {
            out.push(at);
        }
    }
}

/// Whether an identifier (as written) is a dashed ident (`--x`): a custom
/// property's name, or a name an at-rule or a property defines for the
/// whole document (`@property`, `@font-palette-values`, `@position-try`,
/// `anchor-name`, `view-timeline-name`, …).
fn is_dashed(ident: &str) -> bool {
    // what starts with neither `-` nor an escape does not unescape to `--`
    if !ident.starts_with(['-', '\\']) {
        return false;
    }
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

/// An `animation` or `animation-name` value read one significant token
/// at a time: its references to keyframes.
#[derive(Default)]
struct Animation {
    /// Parentheses open.
    depth: usize,
    after_bang: bool,
}

impl Animation {
    fn read(&mut self, text: &str, t: &Token, keyframes: &BTreeSet<String>, out: &mut Found) {
        match t.tok {
            Tok::Function | Tok::Delim('(') => self.depth += 1,
            Tok::Delim(')') => self.depth = self.depth.saturating_sub(1),
            Tok::Ident if self.depth == 0 && !self.after_bang && !keyframes.is_empty() => {
                let word = unescape(&text[t.start..t.end]);
                if keyframes.contains(word.as_ref())
                    && !word.starts_with("--")
                    && !ANIMATION_KEYWORDS.contains(&word.to_ascii_lowercase().as_str())
                {
                    out.push(t.start);
                }
            }
            _ => {}
        }
        self.after_bang = t.tok == Tok::Delim('!');
    }
}

/// A selector list read token by token: the ids and classes it selects
/// by, and the first attribute selector that tests the value of an
/// attribute whose value the names change.
#[derive(Default)]
struct Selector {
    /// The token before, outside attribute selectors.
    prev: Option<Token>,
    /// An attribute selector `[…]` open: its `[`, whether its `=` is
    /// read, and the last identifier before it.
    bracket: Option<(Token, bool, Option<Token>)>,
    error: Option<Unscopable>,
}

impl Selector {
    fn read(&mut self, text: &str, t: &Token, out: &mut Found) {
        if let Some((open, eq, name)) = &mut self.bracket {
            match t.tok {
                Tok::Delim(']') => {
                    let (open, name) = (*open, name.filter(|_| *eq));
                    self.bracket = None;
                    self.attribute(text, open, name, t.start);
                    self.prev = Some(*t);
                }
                Tok::Delim('=') => *eq = true,
                Tok::Ident if !*eq => *name = Some(*t),
                _ => {}
            }
            return;
        }
        match t.tok {
            Tok::Hash { id: true } => out.push(t.start + 1),
            Tok::Ident if self.prev.is_some_and(|p| p.tok == Tok::Delim('.')) => out.push(t.start),
            Tok::Delim('[') => self.bracket = Some((*t, false, None)),
            _ => {}
        }
        self.prev = Some(*t);
    }

    /// The end of the selector list, at byte `end`.
    fn finish(&mut self, text: &str, end: usize) {
        if let Some((open, eq, name)) = self.bracket.take() {
            self.attribute(text, open, name.filter(|_| eq), end);
        }
    }

    /// An attribute selector from its `[` to byte `end`, testing the value
    /// of the attribute `name` (`None`: none tested): refused when the
    /// names change that value.
    fn attribute(&mut self, text: &str, open: Token, name: Option<Token>, end: usize) {
        let Some(name) = name.filter(|_| self.error.is_none()) else {
            return;
        };
        let attr = unescape(&text[name.start..name.end]).to_ascii_lowercase();
        if super::names::rewritten(&attr) {
            self.error = Some(Unscopable {
                at: open.start,
                what: format!(
                    "selects by the value of `{attr}` in {}]",
                    &text[open.start..end]
                ),
                fix: "select by #id or .class instead, or test only that the attribute is there",
            });
        }
    }
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
        let read = |defined: &Defined| match sheet_names(sheet, defined, usize::MAX) {
            Ok(names) => Ok(names),
            Err(Refused::Unscopable(u)) => Err(u),
            Err(Refused::Over(at)) => panic!("{sheet}: over at {at} with no limit"),
        };
        let mut defined = Defined::default();
        defined.add(read(&Defined::default())?);
        let names = read(&defined)?;
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
            let at = declaration_names(style, &spin, usize::MAX).unwrap().at;
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
