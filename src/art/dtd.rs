//! The drawing's DOCTYPE internal subset, resolved by rigbake before the XML
//! parser sees the drawing.
//!
//! Illustrator writes a few small entities (`<!ENTITY ns_svg
//! "http://www.w3.org/2000/svg">`, used as `xmlns="&ns_svg;"`); an XML
//! parser would expand any entity however often it is referenced, so a small
//! drawing could expand to gigabytes, and copying the DOCTYPE into the output
//! would make the baked file the same bomb. Instead:
//!
//! - the internal subset is read here (entity declarations, comments,
//!   processing instructions, other markup declarations) and left out of the
//!   output: `<!DOCTYPE svg PUBLIC "…" "…" [ … ]>` becomes
//!   `<!DOCTYPE svg PUBLIC "…" "…" >`, keeping the subset's line breaks so
//!   line numbers stay those of the drawing;
//! - every reference to a declared entity in the drawing's text and
//!   attribute values is replaced by its expansion (XML 1.0 §4.4, §3.3.3),
//!   escaped for where it stands, so the XML parser never expands anything;
//! - before anything is expanded, the size of the expansion is computed
//!   (each character and each nested reference counts one) and refused when
//!   it exceeds the drawing's own size or [`ENTITY_FLOOR`], whichever is
//!   larger.
//!
//! Refused, each with the line of the drawing: entities holding markup
//! (`<`: elements would appear that are not in the drawing's text), external
//! and unparsed entities (`SYSTEM`/`PUBLIC`: never fetched), parameter entity
//! references (`%name;`), undeclared or self-referencing entities and
//! references nested deeper than [`MAX_ENTITY_DEPTH`].

use super::ArtError;
use std::borrow::Cow;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// Expansion allowed whatever the drawing's size, in characters (plus
/// nested references, one each).
pub const ENTITY_FLOOR: u64 = 64 * 1024;

/// Deepest chain of entity references (an entity whose text refers to an
/// entity whose text refers to …).
pub const MAX_ENTITY_DEPTH: usize = 16;

/// The drawing's text with its internal subset left out and its entity
/// references expanded (borrowed unchanged when it has no internal subset),
/// and whether it has a DOCTYPE: the XML parser must allow one only then,
/// so that a DOCTYPE this scan did not see cannot reach it.
pub(super) fn resolve(art: &str) -> Result<(Cow<'_, str>, bool), ArtError> {
    let (has_doctype, subset) = doctype(art)?;
    let Some(dt) = subset else {
        return Ok((Cow::Borrowed(art), has_doctype));
    };
    let mut ex = Expander {
        text: art,
        entities: dt.entities,
        replacement: HashMap::new(),
        cost: HashMap::new(),
    };

    // First pass: figures only, nothing expanded.
    let mut refs: u64 = 0;
    let mut total: u64 = 0;
    let mut largest: Option<(&str, u64)> = None;
    body_refs(art, dt.end, |at, name, _| {
        let c = ex.cost_of(name, at.start, 0)?;
        refs += 1;
        total = total.saturating_add(c);
        if largest.is_none_or(|(_, l)| c > l) {
            largest = Some((name, c));
        }
        Ok(())
    })?;
    let limit = ENTITY_FLOOR.max(art.len() as u64);
    if total > limit {
        let (name, size) = largest.expect("a reference was counted");
        let s = if refs == 1 { "" } else { "s" };
        return Err(ArtError::Entity {
            line: line_at(art, dt.range.start),
            why: format!(
                "the DOCTYPE's entities expand to {total} characters and nested references \
                 ({refs} reference{s} in the drawing; \"{name}\" alone is {size}), \
                 more than the limit of {limit} (the drawing's size, at least {ENTITY_FLOOR}): \
                 write the text into the drawing instead"
            ),
        });
    }

    // Second pass: the subset's line breaks in place of the subset, and
    // every reference replaced by its escaped expansion.
    // `total` is within the limit here, so this is at most twice the drawing.
    let mut out = String::with_capacity(art.len() + total as usize);
    out.push_str(&art[..dt.range.start]);
    out.extend(art[dt.range.clone()].chars().filter(|&c| c == '\n'));
    let mut last = dt.range.end;
    body_refs(art, dt.end, |at, name, ctx| {
        out.push_str(&art[last..at.start]);
        ex.emit(name, at.start, ctx, &mut out, 0)?;
        last = at.end;
        Ok(())
    })?;
    out.push_str(&art[last..]);
    Ok((Cow::Owned(out), true))
}

/// Where a reference stands, which decides how its expansion is escaped.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ctx {
    Text,
    Attr,
}

/// A general entity of the internal subset.
#[derive(Debug, Clone, Copy)]
struct Entity<'a> {
    /// The literal value between the quotes; `None` for an external or
    /// unparsed entity.
    value: Option<&'a str>,
}

/// What the DOCTYPE declares.
struct Doctype<'a> {
    /// `[` … `]`: the internal subset, brackets included.
    range: Range<usize>,
    /// Just after the DOCTYPE's `>`.
    end: usize,
    /// General entities by name (the first declaration binds).
    entities: HashMap<&'a str, Entity<'a>>,
}

fn line_at(text: &str, pos: usize) -> u32 {
    let n = text.as_bytes()[..pos.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    u32::try_from(n + 1).unwrap_or(u32::MAX)
}

fn malformed(text: &str, pos: usize, what: &str) -> ArtError {
    ArtError::Xml(format!(
        "line {}: the DOCTYPE's internal subset: {what}",
        line_at(text, pos)
    ))
}

fn is_name_char(c: char) -> bool {
    c.is_alphanumeric()
        || matches!(c, '_' | ':' | '.' | '-' | '\u{B7}')
        || (c as u32 >= 0x80 && !c.is_control() && !c.is_whitespace())
}

fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A position in the text with the few moves the scanners need.
struct Cursor<'a> {
    s: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn rest(&self) -> &'a str {
        &self.s[self.pos..]
    }
    fn at(&self, p: &str) -> bool {
        self.rest().starts_with(p)
    }
    fn eat(&mut self, p: &str) -> bool {
        let ok = self.at(p);
        if ok {
            self.pos += p.len();
        }
        ok
    }
    /// Skips whitespace; whether there was any.
    fn space(&mut self) -> bool {
        let n = self.rest().bytes().take_while(|&b| is_space(b)).count();
        self.pos += n;
        n > 0
    }
    /// Moves past the next `p`; `false` (at the end) when there is none.
    fn past(&mut self, p: &str) -> bool {
        match self.rest().find(p) {
            Some(i) => {
                self.pos += i + p.len();
                true
            }
            None => {
                self.pos = self.s.len();
                false
            }
        }
    }
    fn name(&mut self) -> Option<&'a str> {
        let n: usize = self
            .rest()
            .chars()
            .take_while(|&c| is_name_char(c))
            .map(char::len_utf8)
            .sum();
        let name = &self.rest()[..n];
        self.pos += n;
        (n > 0).then_some(name)
    }
    /// A quoted literal's content.
    fn quoted(&mut self) -> Option<&'a str> {
        let q = self
            .rest()
            .chars()
            .next()
            .filter(|&c| c == '"' || c == '\'')?;
        let body = &self.rest()[1..];
        let end = body.find(q)?;
        self.pos += end + 2;
        Some(&body[..end])
    }
}

/// Finds the DOCTYPE (after a BOM, the XML declaration, comments and
/// processing instructions) and reads its internal subset: whether there is
/// a DOCTYPE, and its internal subset if it has one.
fn doctype(text: &str) -> Result<(bool, Option<Doctype<'_>>), ArtError> {
    let mut c = Cursor { s: text, pos: 0 };
    c.eat("\u{FEFF}");
    loop {
        c.space();
        if c.at("<?") {
            c.past("?>");
        } else if c.at("<!--") {
            c.past("-->");
        } else {
            break;
        }
    }
    if !c.eat("<!DOCTYPE") {
        return Ok((false, None));
    }
    let bad = |c: &Cursor, what: &str| malformed(text, c.pos, what);
    if !c.space() || c.name().is_none() {
        return Err(bad(&c, "expected a name after <!DOCTYPE"));
    }
    c.space();
    external_id(&mut c).map_err(|what| bad(&c, what))?;
    c.space();
    if c.eat(">") {
        return Ok((true, None));
    }
    let start = c.pos;
    if !c.eat("[") {
        return Err(bad(&c, "expected '[' or '>'"));
    }
    let mut entities: HashMap<&str, Entity> = HashMap::new();
    loop {
        c.space();
        let here = c.pos;
        if c.eat("]") {
            let range = start..c.pos;
            c.space();
            if !c.eat(">") {
                return Err(bad(&c, "expected '>' after ']'"));
            }
            return Ok((
                true,
                Some(Doctype {
                    range,
                    end: c.pos,
                    entities,
                }),
            ));
        } else if c.eat("<!ENTITY") {
            if !c.space() {
                return Err(bad(&c, "expected a space after <!ENTITY"));
            }
            let parameter = c.eat("%");
            if parameter && !c.space() {
                return Err(bad(&c, "expected a space after '%'"));
            }
            let name = c.name().ok_or_else(|| bad(&c, "expected an entity name"))?;
            if !c.space() {
                return Err(bad(&c, "expected a space after the entity name"));
            }
            let value = if let Some(v) = c.quoted() {
                Some(v)
            } else {
                match external_id(&mut c) {
                    Ok(true) => {}
                    Ok(false) => return Err(bad(&c, "expected a quoted value, SYSTEM or PUBLIC")),
                    Err(what) => return Err(bad(&c, what)),
                }
                let before = c.pos;
                if c.space() && !parameter && c.eat("NDATA") {
                    if !c.space() || c.name().is_none() {
                        return Err(bad(&c, "expected a notation name after NDATA"));
                    }
                } else {
                    c.pos = before;
                }
                None
            };
            c.space();
            if !c.eat(">") {
                return Err(bad(&c, "expected '>' to end <!ENTITY"));
            }
            // Parameter entities are only ever used by %name; references,
            // which are refused; they never bind a general entity name.
            if !parameter {
                entities.entry(name).or_insert(Entity { value });
            }
        } else if c.at("<!--") {
            if !c.past("-->") {
                return Err(bad(&c, "unclosed comment"));
            }
        } else if c.at("<?") {
            if !c.past("?>") {
                return Err(bad(&c, "unclosed processing instruction"));
            }
        } else if c.at("<!ELEMENT") || c.at("<!ATTLIST") || c.at("<!NOTATION") {
            // Up to the '>' outside quotes.
            loop {
                match c.rest().find(['"', '\'', '>']) {
                    None => return Err(bad(&c, "unclosed markup declaration")),
                    Some(i) => {
                        c.pos += i;
                        if c.eat(">") {
                            break;
                        }
                        if c.quoted().is_none() {
                            return Err(bad(&c, "unclosed quote"));
                        }
                    }
                }
            }
        } else if c.at("%") {
            c.pos += 1;
            let name = c.name().unwrap_or("");
            return Err(ArtError::Entity {
                line: line_at(text, here),
                why: format!(
                    "parameter entity reference %{name}; in the DOCTYPE: not supported (rigbake expands no external or parameter entities)"
                ),
            });
        } else if c.rest().is_empty() {
            return Err(bad(&c, "unexpected end of the drawing"));
        } else {
            return Err(bad(&c, "expected a declaration, a comment or ']'"));
        }
    }
}

/// `SYSTEM "…"` or `PUBLIC "…" "…"`; `Ok(false)` when there is neither.
fn external_id(c: &mut Cursor) -> Result<bool, &'static str> {
    if c.eat("SYSTEM") {
        c.space();
        c.quoted().ok_or("expected a quoted system literal")?;
        Ok(true)
    } else if c.eat("PUBLIC") {
        c.space();
        c.quoted().ok_or("expected a quoted public identifier")?;
        c.space();
        c.quoted().ok_or("expected a quoted system literal")?;
        Ok(true)
    } else {
        Ok(false)
    }
}

/// Calls `f(range, name, ctx)` for every entity reference `&name;` in the
/// drawing from `from` on, in order, except character references and the
/// five predefined entities: in text and in attribute values, not in
/// comments, CDATA sections or processing instructions. Anything malformed
/// is left for the XML parser to report.
fn body_refs<'a>(
    text: &'a str,
    from: usize,
    mut f: impl FnMut(Range<usize>, &'a str, Ctx) -> Result<(), ArtError>,
) -> Result<(), ArtError> {
    let b = text.as_bytes();
    let mut refs_in = |range: Range<usize>, ctx: Ctx| -> Result<(), ArtError> {
        let mut i = range.start;
        while let Some(k) = text[i..range.end].find('&') {
            let at = i + k;
            i = at + 1;
            if let Some((name, end)) = reference(text, at, range.end)
                && !name.starts_with('#')
                && !matches!(name, "lt" | "gt" | "amp" | "apos" | "quot")
            {
                f(at..end, name, ctx)?;
                i = end;
            }
        }
        Ok(())
    };
    let mut pos = from;
    while pos < b.len() {
        let Some(k) = text[pos..].find('<') else {
            return refs_in(pos..b.len(), Ctx::Text);
        };
        refs_in(pos..pos + k, Ctx::Text)?;
        pos += k;
        let rest = &text[pos..];
        let close = if rest.starts_with("<!--") {
            "-->"
        } else if rest.starts_with("<![CDATA[") {
            "]]>"
        } else if rest.starts_with("<?") {
            "?>"
        } else {
            // A tag: attribute values are the quoted parts.
            pos += 1;
            loop {
                match text[pos..].find(['"', '\'', '>']) {
                    None => return Ok(()),
                    Some(i) => {
                        pos += i;
                        let q = b[pos];
                        pos += 1;
                        if q == b'>' {
                            break;
                        }
                        let Some(end) = text[pos..].find(q as char) else {
                            return Ok(());
                        };
                        refs_in(pos..pos + end, Ctx::Attr)?;
                        pos += end + 1;
                    }
                }
            }
            continue;
        };
        match rest.find(close) {
            Some(i) => pos += i + close.len(),
            None => return Ok(()),
        }
    }
    Ok(())
}

/// The reference starting at `at` (`&`): its name (with `#` for a
/// character reference) and the position after its `;`.
fn reference(text: &str, at: usize, end: usize) -> Option<(&str, usize)> {
    let body = &text[at + 1..end];
    let n = body
        .char_indices()
        .find(|&(i, c)| !(is_name_char(c) || (i == 0 && c == '#')))
        .map_or(body.len(), |(i, _)| i);
    (n > 0 && body[n..].starts_with(';')).then(|| (&body[..n], at + 1 + n + 1))
}

/// A piece of an entity's replacement text.
enum Piece<'a> {
    /// A character as written (whitespace in it is normalised in attributes).
    Literal(char),
    /// A character from a character reference or a predefined entity.
    Data(char),
    /// A reference to another entity.
    Ref(&'a str),
}

/// Splits replacement text into pieces; `Err` on markup or a malformed
/// reference.
fn pieces(repl: &str) -> impl Iterator<Item = Result<Piece<'_>, String>> {
    let mut i = 0;
    std::iter::from_fn(move || {
        let c = repl[i..].chars().next()?;
        if c == '<' {
            i = repl.len();
            return Some(Err(
                "holds markup ('<'); only text entities are supported".into()
            ));
        }
        if c != '&' {
            i += c.len_utf8();
            return Some(Ok(Piece::Literal(c)));
        }
        let Some((name, end)) = reference(repl, i, repl.len()) else {
            i = repl.len();
            return Some(Err(
                "holds a malformed reference ('&' without a name and ';')".into(),
            ));
        };
        i = end;
        Some(match name {
            "lt" => Ok(Piece::Data('<')),
            "gt" => Ok(Piece::Data('>')),
            "amp" => Ok(Piece::Data('&')),
            "apos" => Ok(Piece::Data('\'')),
            "quot" => Ok(Piece::Data('"')),
            _ => match name.strip_prefix('#') {
                Some(num) => char_ref(num).map(Piece::Data),
                None => Ok(Piece::Ref(name)),
            },
        })
    })
}

/// The character of `&#num;` (decimal or `x` hex), if XML allows it.
fn char_ref(num: &str) -> Result<char, String> {
    let v = match num.strip_prefix('x') {
        Some(hex) => u32::from_str_radix(hex, 16),
        None => num.parse::<u32>(),
    };
    v.ok()
        .and_then(char::from_u32)
        .filter(|&c| matches!(c, '\t' | '\n' | '\r') || c >= ' ')
        .ok_or_else(|| "holds a character reference to no XML character".to_string())
}

/// Expands entities, with memoised replacement texts and costs.
struct Expander<'a> {
    text: &'a str,
    entities: HashMap<&'a str, Entity<'a>>,
    /// Replacement text (the literal with its character references expanded).
    replacement: HashMap<&'a str, Rc<str>>,
    /// Characters plus nested references of the full expansion; `None` while
    /// being computed (a reference to it then is a loop).
    cost: HashMap<&'a str, Option<u64>>,
}

impl<'a> Expander<'a> {
    fn err(&self, at: usize, why: String) -> ArtError {
        ArtError::Entity {
            line: line_at(self.text, at),
            why,
        }
    }

    /// The replacement text of entity `name`, referenced at `at`.
    fn replacement(&mut self, name: &'a str, at: usize) -> Result<Rc<str>, ArtError> {
        if let Some(r) = self.replacement.get(name) {
            return Ok(r.clone());
        }
        let value = match self.entities.get(name) {
            None => {
                return Err(self.err(at, format!("undeclared entity &{name};")));
            }
            Some(Entity { value: None }) => {
                return Err(self.err(
                    at,
                    format!(
                        "&{name}; is an external entity (SYSTEM or PUBLIC): rigbake never fetches it; write its text into the drawing"
                    ),
                ));
            }
            Some(Entity { value: Some(v) }) => *v,
        };
        // Character references are expanded when the entity is declared;
        // references to general entities are kept for later.
        let mut r = String::with_capacity(value.len());
        let mut i = 0;
        while let Some(k) = value[i..].find(['&', '%']) {
            r.push_str(&value[i..i + k]);
            let at_ref = i + k;
            let is_pe = value.as_bytes()[at_ref] == b'%';
            match reference(value, at_ref, value.len()) {
                Some((n, _)) if is_pe && !n.starts_with('#') => {
                    return Err(self.err(
                        at,
                        format!(
                            "entity \"{name}\" uses the parameter entity %{n};: not supported (rigbake expands no external or parameter entities)"
                        ),
                    ));
                }
                Some((n, end)) if !is_pe => {
                    match n.strip_prefix('#') {
                        Some(num) => {
                            let ch = char_ref(num)
                                .map_err(|why| self.err(at, format!("entity \"{name}\" {why}")))?;
                            r.push(ch);
                        }
                        None => r.push_str(&value[at_ref..end]),
                    }
                    i = end;
                    continue;
                }
                _ if is_pe => {
                    r.push('%');
                }
                _ => {
                    return Err(self.err(
                        at,
                        format!(
                            "entity \"{name}\" holds a malformed reference ('&' without a name and ';')"
                        ),
                    ));
                }
            }
            i = at_ref + 1;
        }
        r.push_str(&value[i..]);
        let r: Rc<str> = r.into();
        self.replacement.insert(name, r.clone());
        Ok(r)
    }

    /// The cost of expanding `&name;` once: one per character and per nested
    /// reference (saturating).
    fn cost_of(&mut self, name: &'a str, at: usize, depth: usize) -> Result<u64, ArtError> {
        match self.cost.get(name) {
            Some(Some(c)) => return Ok(*c),
            Some(None) => {
                return Err(self.err(at, format!("entity \"{name}\" refers to itself")));
            }
            None => {}
        }
        if depth >= MAX_ENTITY_DEPTH {
            return Err(self.err(
                at,
                format!(
                    "entity references nest deeper than {MAX_ENTITY_DEPTH} levels (at \"{name}\")"
                ),
            ));
        }
        let repl = self.replacement(name, at)?;
        self.cost.insert(name, None);
        let mut cost: u64 = 0;
        for p in pieces(&repl) {
            let p = p.map_err(|why| self.err(at, format!("entity \"{name}\" {why}")))?;
            cost = cost.saturating_add(match p {
                Piece::Literal(_) | Piece::Data(_) => 1,
                Piece::Ref(n) => {
                    let n = self.declared(n).ok_or_else(|| {
                        self.err(
                            at,
                            format!("entity \"{name}\" uses undeclared entity &{n};"),
                        )
                    })?;
                    1u64.saturating_add(self.cost_of(n, at, depth + 1)?)
                }
            });
        }
        self.cost.insert(name, Some(cost));
        Ok(cost)
    }

    /// A name found in a replacement text, as the key it is declared under.
    fn declared(&self, n: &str) -> Option<&'a str> {
        self.entities.get_key_value(n).map(|(k, _)| *k)
    }

    /// Writes the expansion of `&name;` escaped for `ctx`. Call after
    /// [`Self::cost_of`] has accepted it (no loops, no errors).
    fn emit(
        &mut self,
        name: &'a str,
        at: usize,
        ctx: Ctx,
        out: &mut String,
        depth: usize,
    ) -> Result<(), ArtError> {
        let repl = self.replacement(name, at)?;
        for p in pieces(&repl) {
            let p = p.map_err(|why| self.err(at, format!("entity \"{name}\" {why}")))?;
            match p {
                Piece::Ref(n) => {
                    let n = self
                        .declared(n)
                        .filter(|_| depth < MAX_ENTITY_DEPTH)
                        .ok_or_else(|| {
                            self.err(at, format!("entity \"{name}\": checked references only"))
                        })?;
                    self.emit(n, at, ctx, out, depth + 1)?;
                }
                Piece::Literal(c) | Piece::Data(c) => {
                    let literal = matches!(p, Piece::Literal(_));
                    match (ctx, c) {
                        (_, '&') => out.push_str("&amp;"),
                        (_, '<') => out.push_str("&lt;"),
                        (Ctx::Text, '>') => out.push_str("&gt;"),
                        (Ctx::Attr, '"') => out.push_str("&quot;"),
                        (Ctx::Attr, '\'') => out.push_str("&apos;"),
                        // Attribute-value normalisation: whitespace written
                        // in an entity becomes a space.
                        (Ctx::Attr, '\t' | '\n' | '\r') if literal => out.push(' '),
                        // Line breaks as references keep the drawing's line
                        // numbers (and, in attributes, survive normalisation).
                        (_, '\n') => out.push_str("&#10;"),
                        (_, '\r') => out.push_str("&#13;"),
                        (Ctx::Attr, '\t') => out.push_str("&#9;"),
                        _ => out.push(c),
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> String {
        resolve(s).unwrap_or_else(|e| panic!("{e}")).0.into_owned()
    }

    fn err(s: &str) -> String {
        resolve(s).unwrap_err().to_string()
    }

    #[test]
    fn no_subset_is_borrowed_unchanged() {
        for (s, has_doctype) in [
            ("<svg/>", false),
            (
                "<?xml version=\"1.0\"?>\n<!-- c -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg>&amp;</svg>",
                true,
            ),
        ] {
            assert!(
                matches!(resolve(s).unwrap(), (Cow::Borrowed(t), d) if t == s && d == has_doctype)
            );
        }
    }

    #[test]
    fn subset_is_dropped_keeping_line_breaks_and_refs_expand_escaped() {
        let s = "<!DOCTYPE svg [\n<!ENTITY a \"x&amp;y\">\n<!ENTITY q 'say \"hi\"'>\n]>\n<svg a=\"&a;\" b='&q;'>&a;&q;&lt;</svg>";
        assert_eq!(
            ok(s),
            "<!DOCTYPE svg \n\n\n>\n<svg a=\"x&amp;y\" b='say &quot;hi&quot;'>x&amp;ysay \"hi\"&lt;</svg>"
        );
    }

    #[test]
    fn char_refs_expand_at_declaration_and_whitespace_normalises_in_attributes() {
        // `&#38;lt;` is `&lt;` in the replacement text: a '<' character.
        let s = "<!DOCTYPE s [<!ENTITY e \"a&#38;lt;b\tc&#38;#10;d\">]><s x=\"&e;\">&e;</s>";
        assert_eq!(
            ok(s),
            "<!DOCTYPE s >\
             <s x=\"a&lt;b c&#10;d\">a&lt;b\tc&#10;d</s>"
        );
    }

    #[test]
    fn a_bom_xml_declaration_and_comments_may_precede_the_doctype() {
        let s = "\u{FEFF}<?xml version=\"1.0\"?>\r\n<!-- [ -->\r\n<!DOCTYPE s [\r\n<!ENTITY a \"1\">\r\n]>\r\n<s>&a;</s>";
        assert_eq!(
            ok(s),
            "\u{FEFF}<?xml version=\"1.0\"?>\r\n<!-- [ -->\r\n<!DOCTYPE s \n\n>\r\n<s>1</s>"
        );
    }

    #[test]
    fn nested_entities_expand() {
        let s = "<!DOCTYPE s [<!ENTITY a \"1\"><!ENTITY b \"&a;&a;2\">]><s>&b;</s>";
        assert_eq!(ok(s), "<!DOCTYPE s ><s>112</s>");
    }

    #[test]
    fn references_in_comments_cdata_and_pis_are_left_alone() {
        let s = "<!DOCTYPE s [<!ENTITY a \"1\">]><s><!-- &a; --><![CDATA[&a;]]><?p &a;?>&a;</s>";
        assert_eq!(
            ok(s),
            "<!DOCTYPE s ><s><!-- &a; --><![CDATA[&a;]]><?p &a;?>1</s>"
        );
    }

    #[test]
    fn the_family_of_refusals() {
        for (s, want) in [
            (
                "<!DOCTYPE s [<!ENTITY a \"<g/>\">]><s>&a;</s>",
                "line 1: entity \"a\" holds markup",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a \"&#60;g/>\">]><s>&a;</s>",
                "entity \"a\" holds markup",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a SYSTEM \"file:///etc/passwd\">]>\n<s>&a;</s>",
                "line 2: &a; is an external entity",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a PUBLIC \"-//x//y\" \"http://example.com/x\">]><s a=\"&a;\"/>",
                "&a; is an external entity",
            ),
            (
                "<!DOCTYPE s [<!ENTITY % p \"x\"> %p;]><s/>",
                "parameter entity reference %p;",
            ),
            (
                "<!DOCTYPE s [<!ENTITY % p \"x\"><!ENTITY a \"%p;\">]><s>&a;</s>",
                "entity \"a\" uses the parameter entity %p;",
            ),
            (
                // a parameter entity does not bind the general name
                "<!DOCTYPE s [<!ENTITY % p \"x\">]><s>&p;</s>",
                "undeclared entity &p;",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a \"&b;\">]><s>&a;</s>",
                "undeclared entity &b;",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">]><s>&a;</s>",
                "refers to itself",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a \"x&#0;\">]><s>&a;</s>",
                "character reference to no XML character",
            ),
            (
                "<!DOCTYPE s [<!ENTITY a \"x\"\n<s/>",
                "not well-formed XML: line 2: the DOCTYPE's internal subset: expected '>' to end <!ENTITY",
            ),
        ] {
            let e = err(s);
            assert!(e.contains(want), "{s}\n→ {e}");
        }
        // 20 levels of one-to-one nesting
        let mut d = String::from("<!DOCTYPE s [<!ENTITY e0 \"x\">");
        for i in 1..20 {
            d.push_str(&format!("<!ENTITY e{i} \"&e{};\">", i - 1));
        }
        d.push_str("]><s>&e19;</s>");
        assert!(
            err(&d).contains("nest deeper than 16 levels"),
            "{}",
            err(&d)
        );
        // unused bad entities do not matter
        assert_eq!(
            ok("<!DOCTYPE s [<!ENTITY a \"<g/>\"><!ENTITY b SYSTEM \"x\">]><s/>"),
            "<!DOCTYPE s ><s/>"
        );
    }

    #[test]
    fn expansion_beyond_the_budget_is_refused_before_expanding() {
        // billion laughs: 10^9 characters, computed, never built
        let mut d = String::from("<!DOCTYPE s [<!ENTITY l0 \"lol\">");
        for i in 1..10 {
            let r = format!("&l{};", i - 1).repeat(10);
            d.push_str(&format!("<!ENTITY l{i} \"{r}\">"));
        }
        d.push_str("]><s>&l9;</s>");
        let e = err(&d);
        assert!(e.contains("expand to 4111111110 characters"), "{e}");
        // references to empty entities cost one each
        let mut d = String::from("<!DOCTYPE s [<!ENTITY z \"\">");
        let r = "&z;".repeat(200);
        d.push_str(&format!(
            "<!ENTITY a \"{r}\"><!ENTITY b \"{}\">",
            "&a;".repeat(200)
        ));
        d.push_str("]><s>&b;&b;</s>");
        let e = err(&d);
        assert!(e.contains("expand to 80400 characters"), "{e}");
        // the floor: 64 KiB expand from a small drawing
        let big = "x".repeat(1024);
        let ok_doc = format!(
            "<!DOCTYPE s [<!ENTITY b \"{big}\">]><s>{}</s>",
            "&b;".repeat(64)
        );
        assert_eq!(
            ok(&ok_doc),
            format!("<!DOCTYPE s ><s>{}</s>", big.repeat(64))
        );
        let over = ok_doc.replace("</s>", "&b;</s>");
        assert!(err(&over).contains("(65 references in the drawing; \"b\" alone is 1024)"));
    }
}
