//! The XML parser's superlinear costs, counted before it runs.
//!
//! roxmltree is linear in the number of elements, but not in everything:
//! it checks each attribute of an element against the element's other
//! attributes (work ∝ attributes²), copies every namespace in scope into
//! each element that declares one, checking each copy against the
//! element's own and the copies already made (∝ namespaces in scope²), and
//! looks each element's and
//! prefixed attribute's namespace up among those in scope (∝ namespaces in
//! scope). One element with 50,000 attributes took 5 s; 20,000 nested
//! elements that each declare a namespace did not finish in a minute.
//!
//! One linear pass over the tags adds those counts up and refuses the
//! drawing when they exceed [`WORK_PER_BYTE`] per byte of drawing (at least
//! [`WORK_FLOOR`]), which keeps parsing time proportional to the drawing's
//! size. Drawings as editors write them need well under one per byte.
//! Anything malformed ends the count; the parser then reports it.

use super::ArtError;

/// Parser steps allowed per byte of drawing.
pub const WORK_PER_BYTE: u64 = 8;

/// Parser steps allowed whatever the drawing's size.
pub const WORK_FLOOR: u64 = 1 << 20;

/// Counts the parser's attribute and namespace work in `text` (a drawing
/// whose DOCTYPE has no internal subset left) and refuses it beyond the
/// budget.
pub(super) fn check(text: &str) -> Result<(), ArtError> {
    let limit = WORK_FLOOR.max(WORK_PER_BYTE.saturating_mul(text.len() as u64));
    let b = text.as_bytes();
    // Namespaces declared by each open element, and their sum.
    let mut open: Vec<u64> = Vec::new();
    let mut in_scope: u64 = 1; // `xml`
    let mut work: u64 = 0;
    let mut pos = 0;
    while let Some(k) = text[pos..].find('<') {
        pos += k;
        let rest = &text[pos..];
        let skip_to = |close: &str| rest.find(close).map(|i| pos + i + close.len());
        if rest.starts_with("<!--") {
            let Some(p) = skip_to("-->") else { break };
            pos = p;
        } else if rest.starts_with("<![CDATA[") {
            let Some(p) = skip_to("]]>") else { break };
            pos = p;
        } else if rest.starts_with("<?") {
            let Some(p) = skip_to("?>") else { break };
            pos = p;
        } else if rest.starts_with("<!") {
            let Some(p) = skip_to(">") else { break };
            pos = p;
        } else if rest.starts_with("</") {
            let Some(p) = skip_to(">") else { break };
            pos = p;
            in_scope -= open.pop().unwrap_or(0);
        } else {
            let start = pos;
            let Some(tag) = start_tag(b, pos + 1) else {
                break;
            };
            pos = tag.end;
            let n = tag.namespaces;
            // each attribute and each declaration is checked against the
            // element's others of its kind
            let pairs = |k: u64| k * k.saturating_sub(1) / 2;
            let mut here = pairs(tag.attributes).saturating_add(pairs(n));
            if n > 0 {
                // each inherited namespace is checked against the
                // element's own and the ones copied before it
                here = here.saturating_add(in_scope.saturating_mul(in_scope + n) + n);
            }
            here = here.saturating_add(tag.prefixed.saturating_mul(in_scope + n));
            work = work.saturating_add(here);
            if work > limit {
                let line = 1 + b[..start].iter().filter(|&&c| c == b'\n').count();
                return Err(ArtError::ParserWork {
                    line: u32::try_from(line).unwrap_or(u32::MAX),
                    why: format!(
                        "an element with {} attributes, {n} namespace declarations and {} namespaces in scope: \
                         the XML parser's work on attributes and namespaces grows with their square \
                         and would exceed {limit} steps ({WORK_PER_BYTE} per byte of drawing, at least {WORK_FLOOR})",
                        tag.attributes,
                        in_scope + n,
                    ),
                });
            }
            if !tag.empty {
                open.push(n);
                in_scope += n;
            }
        }
    }
    Ok(())
}

/// The counts of one start tag.
struct Tag {
    /// Attributes other than namespace declarations.
    attributes: u64,
    /// `xmlns` and `xmlns:*` attributes.
    namespaces: u64,
    /// Names whose namespace is looked up: the element's and its prefixed
    /// attributes'.
    prefixed: u64,
    /// `<… />`.
    empty: bool,
    /// Just after the `>`.
    end: usize,
}

/// Reads the start tag whose name begins at `pos`; `None` when malformed.
fn start_tag(b: &[u8], mut pos: usize) -> Option<Tag> {
    let is_space = |c: u8| matches!(c, b' ' | b'\t' | b'\n' | b'\r');
    let name_end = |mut p: usize| {
        while p < b.len() && !is_space(b[p]) && !matches!(b[p], b'>' | b'/' | b'=') {
            p += 1;
        }
        p
    };
    let skip_space = |mut p: usize| {
        while p < b.len() && is_space(b[p]) {
            p += 1;
        }
        p
    };
    pos = name_end(pos);
    let mut tag = Tag {
        attributes: 0,
        namespaces: 0,
        prefixed: 1,
        empty: false,
        end: 0,
    };
    loop {
        pos = skip_space(pos);
        match b.get(pos)? {
            b'>' => {
                tag.end = pos + 1;
                return Some(tag);
            }
            b'/' => {
                (b.get(pos + 1)? == &b'>').then_some(())?;
                tag.empty = true;
                tag.end = pos + 2;
                return Some(tag);
            }
            _ => {}
        }
        let n0 = pos;
        pos = name_end(pos);
        let name = &b[n0..pos];
        if name.is_empty() {
            return None;
        }
        pos = skip_space(pos);
        (b.get(pos)? == &b'=').then_some(())?;
        pos = skip_space(pos + 1);
        let q = *b.get(pos)?;
        if q != b'"' && q != b'\'' {
            return None;
        }
        pos += 1 + b[pos + 1..].iter().position(|&c| c == q)? + 1;
        if name == b"xmlns" || name.starts_with(b"xmlns:") {
            tag.namespaces += 1;
        } else {
            tag.attributes += 1;
            if name.contains(&b':') {
                tag.prefixed += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn editor_drawings_pass_and_the_square_is_counted() {
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:i=\"urn:i\"><g i:a='1' b=\"2\"/><!-- <g --><![CDATA[<g>]]></svg>";
        check(svg).unwrap();
        // one element with 2,000 attributes: 1,999,000 pairs
        let attrs: String = (0..2000).map(|i| format!(" a{i}=\"1\"")).collect();
        let e = check(&format!("<svg{attrs}/>")).unwrap_err().to_string();
        assert!(
            e.starts_with("line 1: an element with 2000 attributes"),
            "{e}"
        );
        // namespaces declared at every level of a nest
        let nest: String = (0..2000)
            .map(|i| format!("<g xmlns:p{i}=\"urn:{i}\">\n"))
            .collect();
        let e = check(&format!("<svg>{nest}")).unwrap_err().to_string();
        assert!(e.contains("1 namespace declarations and 1"), "{e}");
        // closing tags take their declarations out of scope again
        let siblings: String = (0..2000)
            .map(|i| format!("<g xmlns:p{i}=\"urn:{i}\"></g>"))
            .collect();
        check(&format!("<svg>{siblings}</svg>")).unwrap();
    }
}
