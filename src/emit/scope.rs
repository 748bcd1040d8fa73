//! Name scoping: every class, `@keyframes` name and id a file defines is
//! unique to that file.
//!
//! CSS in an inline `<svg>` is global to the HTML page, so two files that
//! both define `.rb-b-near_thigh` and `@keyframes rb-far_thigh` would
//! animate each other's shapes. The clip keeps *local* names (all beginning
//! `rb-`); the emitters pass every name they write through one [`Scope`],
//! which swaps the local `rb-` for the file's prefix: `rb-b-near_thigh` →
//! `k4x9z-b-near_thigh`.
//!
//! The prefix is a hash of the file as written with local names
//! ([`scoped`]; the text holds the rig's name in its `<title>`): the same
//! rig and options give the same bytes, and two different files (e.g. two
//! bakes of one rig with different bone lengths) get different names. The
//! hash is FNV-1a (64 bit) written as [`HASH_CHARS`] characters, a lower-case
//! letter (an identifier cannot start with a digit) then lower-case letters
//! or digits (lower case only: a quirks-mode page matches class names
//! without regard to case): 26 · 36⁴ prefixes, so not cryptographic, a
//! collision between two files is about one in 44 million per pair. The
//! prefix is short on purpose: every class, keyframes name and id carries
//! it, so its length is paid dozens of times per file (the rig name in it
//! made the seed's file about 15 % larger; six hex digits after an `r`, 3 %
//! larger and a collision one in 16.8 million). `bake --prefix P`
//! replaces the whole prefix ([`check_prefix`]), e.g. with a readable name.
//!
//! A drawing animated by `bake --art` brings names of its own (Inkscape's
//! `linearGradient1`, Illustrator's `.cls-1`, a `@property --tilt`), which
//! the drawing's references use: they get `<prefix>_` in front
//! ([`Scope::drawn_stem`], `lyibr_linearGradient1`; after the `--` of a
//! dashed ident, `--lyibr_tilt`), and so does every reference to them
//! (module `art::names`). Every name rigbake writes is `<prefix>-…`: the
//! character after the prefix tells the two kinds apart, so no drawing
//! name, whatever it is, can become one of rigbake's. `_` is a name
//! character of CSS identifiers and of XML names alike, so the drawing's
//! name stays an id an `href` reaches and a class a selector takes with
//! no escape, and a name that could not start an identifier (`1a`) no
//! longer starts one (`lyibr_1a`). An automatic prefix holds no `_`, so a
//! drawing's name in one file cannot be a name rigbake writes into
//! another file either (a chosen `--prefix` with a `_` can: `hero` and
//! `hero_x`); two drawings' names meet only where their prefixes do.

use std::hash::Hasher as _;

/// Characters of an automatic prefix (the content hash).
pub const HASH_CHARS: usize = 5;
/// Longest prefix `--prefix` accepts.
pub const MAX_PREFIX_CHARS: usize = 64;

/// The prefix every name a file defines starts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    prefix: String,
}

impl Scope {
    /// The local names, as the clip holds them (`rb-…`); what the content
    /// hash is taken of.
    pub fn local() -> Scope {
        Scope {
            prefix: "rb".into(),
        }
    }

    /// A scope with a prefix already checked by [`check_prefix`].
    pub fn with_prefix(prefix: &str) -> Scope {
        Scope {
            prefix: prefix.into(),
        }
    }

    /// The automatic scope of a file whose text with local names is
    /// `local_text`: its hash as a letter and [`HASH_CHARS`]` - 1` letters
    /// or digits, the lowest places first.
    pub fn from_content(local_text: &str) -> Scope {
        Scope::from_pieces(&[local_text])
    }

    /// [`Scope::from_content`] of the texts `pieces` joined, without
    /// joining them (a drawing's text is not copied to be hashed).
    pub fn from_pieces(pieces: &[&str]) -> Scope {
        const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
        let mut h = fnv::FnvHasher::default();
        // FNV reads byte by byte: pieces in turn hash as their join
        for piece in pieces {
            h.write(piece.as_bytes());
        }
        let mut x = h.finish();
        let mut prefix = String::with_capacity(HASH_CHARS);
        prefix.push(char::from(DIGITS[10 + (x % 26) as usize]));
        x /= 26;
        for _ in 1..HASH_CHARS {
            prefix.push(char::from(DIGITS[(x % 36) as usize]));
            x /= 36;
        }
        Scope { prefix }
    }

    /// The prefix (without the joining `-`).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The scoped form of one local name: `rb-x` → `<prefix>-x`; a name
    /// without the `rb-` stem gets the prefix in front (`x` → `<prefix>-x`).
    pub fn name(&self, local: &str) -> String {
        let rest = local.strip_prefix("rb-").unwrap_or(local);
        format!("{}-{rest}", self.prefix)
    }

    /// A `class` attribute value: every whitespace-separated local name scoped.
    pub fn classes(&self, local: &str) -> String {
        local
            .split_ascii_whitespace()
            .map(|c| self.name(c))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// A style sheet written with local class selectors (`.rb-x`, as in the
    /// emitters' constant sheets), every `.rb-` selector scoped. Only for
    /// sheets rigbake writes itself, where `.rb-` occurs nowhere else.
    pub fn sheet(&self, local: &str) -> String {
        local.replace(".rb-", &format!(".{}-", self.prefix))
    }

    /// The class on the root `<svg>` that selects the clip named `clip` of a
    /// class-switched file: `<prefix>-clip-<clip>`.
    pub fn clip_class(&self, clip: &str) -> String {
        self.name(&format!("rb-clip-{clip}"))
    }

    /// The `n`-th element id of the file: `<prefix>-n<n>`.
    pub fn id(&self, n: usize) -> String {
        format!("{}{n}", self.id_stem())
    }

    /// What every element id of the file starts with: `<prefix>-n`.
    pub fn id_stem(&self) -> String {
        format!("{}-n", self.prefix)
    }

    /// What a `bake --art` drawing's own ids, classes and `@keyframes`
    /// names get in front: `<prefix>_` (see the module docs).
    pub fn drawn_stem(&self) -> String {
        format!("{}_", self.prefix)
    }
}

/// Emit a file with scoped names: with `prefix` (checked by
/// [`check_prefix`]) `emit` is called once with that scope. Without one it
/// is called once with a placeholder prefix (a NUL, which no SVG text can
/// hold): that text with the placeholder read as the local `rb` is the
/// text with local names, whose hash gives the file's scope
/// ([`Scope::from_content`]), and the placeholder is then replaced by that
/// scope's prefix: the bytes a second call with the file's scope writes,
/// at the cost of two replacements.
pub fn scoped(prefix: Option<&str>, emit: impl Fn(&Scope) -> String) -> String {
    if let Some(p) = prefix {
        return emit(&Scope::with_prefix(p));
    }
    let text = emit(&Scope::with_prefix(PLACEHOLDER));
    let local = text.replace(PLACEHOLDER, Scope::local().prefix());
    debug_assert_eq!(
        local,
        emit(&Scope::local()),
        "the prefix is written only in names"
    );
    let scope = Scope::from_content(&local);
    text.replace(PLACEHOLDER, scope.prefix())
}

/// The prefix [`scoped`] writes before it knows the file's: a NUL, which no
/// SVG text can hold (XML forbids it), so every one of them is a prefix.
const PLACEHOLDER: &str = "\0";

/// `--prefix`: a CSS identifier a page can use as is: an ASCII letter or
/// `_`, then ASCII letters, digits, `-` or `_`, at most
/// [`MAX_PREFIX_CHARS`] characters.
pub fn check_prefix(p: &str) -> Result<(), String> {
    let mut chars = p.chars();
    let ok_first = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let ok_rest = chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok_first && ok_rest && p.len() <= MAX_PREFIX_CHARS {
        Ok(())
    } else {
        Err(format!(
            "must be a letter or _ then letters, digits, - or _ (at most {MAX_PREFIX_CHARS}), got {}",
            crate::input::quoted(p, '"')
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_scope_keeps_local_names() {
        let s = Scope::local();
        assert_eq!(s.name("rb-near-thigh"), "rb-near-thigh");
        assert_eq!(s.classes("rb-leg  rb-back"), "rb-leg rb-back");
        assert_eq!(
            s.sheet(".rb-leg{a:b}.rb-k0{c:d}"),
            ".rb-leg{a:b}.rb-k0{c:d}"
        );
    }

    #[test]
    fn names_classes_and_sheets_are_scoped() {
        let s = Scope::from_content("text");
        let p = s.prefix().to_string();
        assert_eq!(p.len(), HASH_CHARS);
        assert!(p.starts_with(|c: char| c.is_ascii_lowercase()), "{p}");
        assert!(
            p.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()),
            "{p}"
        );
        assert!(check_prefix(&p).is_ok(), "{p}");
        assert_eq!(s.name("rb-near-thigh"), format!("{p}-near-thigh"));
        assert_eq!(s.classes("rb-leg rb-back"), format!("{p}-leg {p}-back"));
        assert_eq!(s.sheet(".rb-leg{x:y}"), format!(".{p}-leg{{x:y}}"));
        assert_eq!(s.clip_class("idle"), format!("{p}-clip-idle"));
        assert_eq!(s.id(3), format!("{p}-n3"));
    }

    #[test]
    fn the_hash_follows_the_content_and_nothing_else() {
        let a = Scope::from_content("one");
        assert_eq!(a, Scope::from_content("one"));
        assert_ne!(a, Scope::from_content("one "));
        assert_eq!(a, Scope::from_pieces(&["o", "", "ne"]));
        // FNV-1a 64 of "a" is af63dc4c8601ec8c: 'y' for its remainder
        // mod 26, then "qayk" its next places in base 36
        assert_eq!(Scope::from_content("a").prefix(), "yqayk");
        // every letter and digit in every place, over a few thousand texts
        let mut seen = [[false; 36]; HASH_CHARS];
        for i in 0..5000 {
            let p = Scope::from_content(&i.to_string()).prefix().to_string();
            for (k, c) in p.bytes().enumerate() {
                let d = if c.is_ascii_digit() {
                    c - b'0'
                } else {
                    c - b'a' + 10
                };
                seen[k][d as usize] = true;
            }
        }
        assert!(seen[0][..10].iter().all(|&s| !s), "no digit first");
        assert!(seen[0][10..].iter().all(|&s| s), "every letter first");
        assert!(seen[1..].iter().all(|place| place.iter().all(|&s| s)));
    }

    #[test]
    fn prefixes_are_checked() {
        assert!(check_prefix("hero").is_ok());
        assert!(check_prefix("_a-1").is_ok());
        for bad in ["", "1a", "-a", "a b", "a.b", "a{", &"a".repeat(65)] {
            assert!(check_prefix(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn scoped_names_the_file_by_the_hash_of_its_local_text() {
        // every way a name is written: what a call with the local scope
        // and then one with the hash of that text write
        let emit = |s: &Scope| {
            format!(
                "<svg class=\"{}\"><style>{}[id^=\"{}\"]{{}}@keyframes {}{{}}</style><g id=\"{}\" class=\"{}\"/></svg>",
                s.clip_class("idle"),
                s.sheet(".rb-leg{a:b}"),
                s.id_stem(),
                s.name("crank"),
                s.id(12),
                s.classes("rb-leg rb-back"),
            )
        };
        let local = emit(&Scope::local());
        assert!(
            local.contains("rb-clip-idle") && local.contains("rb-n12"),
            "{local}"
        );
        let out = scoped(None, emit);
        assert_eq!(out, emit(&Scope::from_content(&local)));
        assert!(!out.contains('\0') && !out.contains("rb-"), "{out}");
        assert_eq!(scoped(Some("P"), |s| s.name("rb-x")), "P-x");
    }
}
