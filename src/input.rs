//! Reading input files (rigs and `--art` drawings), and showing input text
//! in messages.
//!
//! # Reading
//!
//! [`read_text`] reads one input file whole, within a size limit
//! ([`Input::Rig`]: [`MAX_RIG_BYTES`], [`Input::Drawing`]:
//! [`MAX_DRAWING_BYTES`]). Only regular files are read: a named pipe, a
//! device, a socket or a directory is refused before any byte is read, so a
//! pipe with no writer or `/dev/zero` cannot block or exhaust memory. On
//! Unix the file is opened non-blocking and its type is taken from the open
//! handle (no window between the check and the read); at most limit + 1
//! bytes are read whatever the file's metadata says, so a file that grows
//! while being read is refused too. Standard input is not an input: `-`
//! is refused as such unless a file of that name exists.
//!
//! # Showing input in messages
//!
//! [`escaped`] is the one way input text reaches a message or the terminal:
//! control characters, line and paragraph separators, bidirectional
//! overrides and other invisible characters are written as Rust escapes
//! (`\n`, `\u{1b}`), so an input cannot forge a second error line or send
//! an escape sequence to the terminal. Values quoted with `{:?}` are already
//! escaped the same way (this function escapes exactly the characters
//! `Debug` does, except `\`, `"` and `'`, so applying it to a message that
//! quotes values with `{:?}` changes nothing there). [`error_line`] is how
//! the binary prints an error: its chain of causes, each named once, escaped.

use std::borrow::Cow;
use std::io::Read;
use std::path::Path;

/// Largest rig file read, in bytes (16 MiB; a rig is usually a few KiB).
pub const MAX_RIG_BYTES: u64 = 16 * 1024 * 1024;
/// Largest `--art` drawing read, in bytes (64 MiB).
pub const MAX_DRAWING_BYTES: u64 = 64 * 1024 * 1024;

/// What an input file is, for its size limit and for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Input {
    /// A rig (JSON), at most [`MAX_RIG_BYTES`].
    Rig,
    /// An `--art` drawing (SVG), at most [`MAX_DRAWING_BYTES`].
    Drawing,
}

impl Input {
    /// The size limit, in bytes.
    pub fn limit(self) -> u64 {
        match self {
            Input::Rig => MAX_RIG_BYTES,
            Input::Drawing => MAX_DRAWING_BYTES,
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Input::Rig => "rig file",
            Input::Drawing => "drawing",
        }
    }
}

/// Why an input file could not be read. Messages name the file (escaped).
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// Opening or reading failed (missing file, no permission, I/O error).
    /// (`error` is shown in the message, so it is not also a `source`.)
    #[error("{}: cannot read: {error}", shown_path(path))]
    Io {
        path: std::path::PathBuf,
        error: std::io::Error,
    },
    /// Not a regular file (a directory, named pipe, device or socket).
    #[error(
        "{}: cannot read: is {kind}, not a regular file (a {} is read from a regular file only)",
        shown_path(path),
        input.noun()
    )]
    NotAFile {
        path: std::path::PathBuf,
        kind: &'static str,
        input: Input,
    },
    /// `-`, which names no file here: standard input is not an input (a
    /// pipe may never end; see the module docs).
    #[error(
        "-: cannot read: standard input is not read (a {} is read from a regular file only; a file named - is ./-)",
        input.noun()
    )]
    Stdin { input: Input },
    /// Larger than the input's limit.
    #[error(
        "{}: cannot read: larger than the {} MiB limit for a {} ({} bytes)",
        shown_path(path),
        input.limit() / (1024 * 1024),
        input.noun(),
        input.limit()
    )]
    TooLarge {
        path: std::path::PathBuf,
        input: Input,
    },
    /// Not UTF-8 text.
    #[error(
        "{}: cannot read: not UTF-8 text (invalid byte at line {line}, column {column}); save the {} as UTF-8",
        shown_path(path),
        input.noun()
    )]
    NotUtf8 {
        path: std::path::PathBuf,
        input: Input,
        line: usize,
        column: usize,
    },
}

/// Read a whole input file as UTF-8 text, refusing anything but a regular
/// file of at most `input.limit()` bytes (see the module docs). A UTF-8 byte
/// order mark is kept: the caller decides what it means.
pub fn read_text(path: &Path, input: Input) -> Result<String, ReadError> {
    let bytes = read_bytes(path, input)?;
    String::from_utf8(bytes).map_err(|e| {
        let good = &e.as_bytes()[..e.utf8_error().valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
        let start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        ReadError::NotUtf8 {
            path: path.to_path_buf(),
            input,
            line,
            column: good.len() - start + 1,
        }
    })
}

/// Read a whole input file's bytes, refusing anything but a regular file
/// of at most `input.limit()` bytes, before reading more than that: what
/// [`read_text`] reads, and what `bake --watch` compares between saves.
pub fn read_bytes(path: &Path, input: Input) -> Result<Vec<u8>, ReadError> {
    let io = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = open(path).map_err(|error| {
        if path == Path::new("-") && error.kind() == std::io::ErrorKind::NotFound {
            ReadError::Stdin { input }
        } else {
            io(error)
        }
    })?;
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = not_a_file(&meta) {
        return Err(ReadError::NotAFile {
            path: path.to_path_buf(),
            kind,
            input,
        });
    }
    let limit = input.limit();
    // the metadata only sizes the buffer; the limit is enforced on what is read
    let mut bytes = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    file.take(limit + 1).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge {
            path: path.to_path_buf(),
            input,
        });
    }
    Ok(bytes)
}

/// Open for reading without blocking on a named pipe that has no writer
/// (the type check on the open handle then refuses it).
#[cfg(unix)]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(not(unix))]
fn open(path: &Path) -> std::io::Result<std::fs::File> {
    std::fs::File::open(path)
}

/// What a non-regular file is ("a directory", "a named pipe", …), or `None`
/// for a regular file.
pub fn not_a_file(meta: &std::fs::Metadata) -> Option<&'static str> {
    let t = meta.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return Some("a named pipe");
        }
        if t.is_char_device() {
            return Some("a character device");
        }
        if t.is_block_device() {
            return Some("a block device");
        }
        if t.is_socket() {
            return Some("a socket");
        }
    }
    Some("a special file")
}

/// An error and its chain of causes as one message line: `top: cause:
/// cause …`, each cause left out when the message before it already ends
/// with it (an error type that prints its source in its own message), with
/// every long quoted value [`shortened`], and [`escaped`], so the line is
/// one short line whatever the input held.
pub fn error_line(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut next = Some(err);
    while let Some(e) = next {
        let text = e.to_string();
        if !parts.last().is_some_and(|p| p.ends_with(&text)) {
            parts.push(text);
        }
        next = e.source();
    }
    escaped(&shortened(&parts.join(": "))).into_owned()
}

/// A JSON path as shown in messages (`clips[0].angles.<key>`): [`escaped`],
/// each `.`-separated step longer than [`ECHO_CHARS`] characters (a key a
/// rig made up) cut to its first [`ECHO_HEAD`] and `…`.
pub fn shown_json_path(path: &str) -> String {
    let steps: Vec<String> = path
        .split('.')
        .map(|step| {
            if step.chars().count() > ECHO_CHARS {
                step.chars().take(ECHO_HEAD).chain(['…']).collect()
            } else {
                step.to_string()
            }
        })
        .collect();
    escaped(&steps.join(".")).into_owned()
}

/// Longest quoted value a message shows whole, in characters.
pub const ECHO_CHARS: usize = 64;
/// How many of a longer value's first characters a message shows.
pub const ECHO_HEAD: usize = 40;

/// `text` with every quoted value longer than [`ECHO_CHARS`] characters
/// cut to its first [`ECHO_HEAD`], `…` and its closing quote, followed by
/// its length: `"aaaa…" (100000 characters)`. A value is quoted as the
/// messages quote input: between `"` (as `{:?}` writes it, a `\` escaping
/// the next character) or between backticks (as serde names a field or
/// variant). Borrowed when no value is that long.
pub fn shortened(text: &str) -> Cow<'_, str> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        let q = chars[i];
        if q != '"' && q != '`' {
            out.push(q);
            i += 1;
            continue;
        }
        // the closing quote (inside `"`, a backslash escapes)
        let mut j = i + 1;
        while j < chars.len() && chars[j] != q {
            j += if q == '"' && chars[j] == '\\' { 2 } else { 1 };
        }
        if j >= chars.len() {
            // unbalanced: the rest as it is
            out.extend(&chars[i..]);
            break;
        }
        let inner = &chars[i + 1..j];
        out.push(q);
        if inner.len() > ECHO_CHARS {
            changed = true;
            // whole characters as written: an escape (`\\n`, `\\u{1b}`) is
            // never cut in two
            let mut head = 0;
            while head < ECHO_HEAD {
                head += match (q, inner[head], inner.get(head + 1)) {
                    ('"', '\\', Some('u')) => inner[head..]
                        .iter()
                        .position(|&c| c == '}')
                        .map_or(1, |k| k + 1),
                    ('"', '\\', Some(_)) => 2,
                    _ => 1,
                };
            }
            out.extend(&inner[..head.min(inner.len())]);
            out.push('…');
            out.push(q);
            out.push_str(&format!(" ({} characters)", inner.len()));
        } else {
            out.extend(inner);
            out.push(q);
        }
        i = j + 1;
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// A path as shown in messages: [`escaped`] (a non-UTF-8 byte shows as U+FFFD).
pub fn shown_path(path: &Path) -> String {
    escaped(&path.to_string_lossy()).into_owned()
}

/// `s` between `q` quotes as messages show a value from the input or the
/// command line: [`escaped`], and a `\` or a `q` inside written `\\`, `\q`,
/// so the value cannot close its quotes early (`--prefix='a"'` shows as
/// `"a\""`, not `"a""`). With `'"'`, what `{:?}` writes.
pub fn quoted(s: &str, q: char) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push(q);
    for c in s.chars() {
        if c == '\\' || c == q {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(q);
    escaped(&out).into_owned()
}

/// `s` with every character that `{:?}` would escape, except `\`, `"` and
/// `'`, written as its Rust escape: control characters (`\n`, `\r`, `\t`,
/// `\u{1b}`, `\u{7f}`, C1 controls), line and paragraph separators
/// (`\u{2028}`), bidirectional and other format characters, unassigned and
/// private-use code points. Borrowed when there is nothing to escape.
pub fn escaped(s: &str) -> Cow<'_, str> {
    let needs = |c: char| !(c.is_ascii_graphic() || c == ' ') && needs_escape(c);
    if !s.chars().any(needs) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether `{:?}` writes `c` (not a quote or backslash) as an escape. A
/// combining mark is escaped by `char::escape_debug` but not inside a string
/// after another character, so it is tested in that position.
fn needs_escape(c: char) -> bool {
    let mut buf = [b'a'; 5];
    let n = 1 + c.encode_utf8(&mut buf[1..]).len();
    let s = std::str::from_utf8(&buf[..n]).expect("one ASCII letter and one char");
    s.escape_debug().count() > 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A quoted value cannot end its quotes early or hide a control
    /// character; with `"` it is what `{:?}` writes.
    #[test]
    fn quoted_values_keep_their_quotes() {
        assert_eq!(quoted("a\"", '"'), r#""a\"""#);
        assert_eq!(quoted("a\\", '"'), r#""a\\""#);
        assert_eq!(quoted("it's\n", '\''), r"'it\'s\n'");
        for s in ["plain", "a\"b\\c", "tab\there", "\u{202e}x"] {
            assert_eq!(quoted(s, '"'), format!("{s:?}"));
        }
    }

    /// A long quoted value, in either quote, is cut to its start and its
    /// length; a short one, an unbalanced quote and the text around stay
    /// as they are; an escape is never cut in two.
    #[test]
    fn long_quoted_values_are_shortened_to_their_start_and_length() {
        let long = "x".repeat(100);
        let cut = format!("{}…", &long[..ECHO_HEAD]);
        for q in ['"', '`'] {
            let text = format!("field: got {q}{long}{q}, expected {q}a{q}");
            assert_eq!(
                shortened(&text),
                format!("field: got {q}{cut}{q} (100 characters), expected {q}a{q}")
            );
        }
        let short = format!("got \"{}\" and `unbalanced {long}", "y".repeat(ECHO_CHARS));
        assert!(matches!(shortened(&short), Cow::Borrowed(_)));
        // escapes inside `"` count as written and stay whole
        for esc in ["\\n", "\\\"", "\\u{1b}"] {
            let value = format!("{}{esc}{}", "a".repeat(ECHO_HEAD - 1), "b".repeat(80));
            let got = shortened(&format!("\"{value}\"")).into_owned();
            let want = format!("\"{}{esc}…\"", "a".repeat(ECHO_HEAD - 1));
            assert!(got.starts_with(&want), "{esc}: {got}");
        }
        // a message built with `{:?}` from a value holding quotes
        let value = format!("{}\"{}", "q".repeat(50), "r".repeat(50));
        let got = shortened(&format!("got {value:?} here")).into_owned();
        assert!(got.ends_with(" (102 characters) here"), "{got}");
    }

    #[test]
    fn escapes_what_debug_escapes_but_quotes_and_backslashes() {
        for (raw, want) in [
            ("a\nb", r"a\nb"),
            ("\r", r"\r"),
            ("\t", r"\t"),
            ("\x1b[31m", r"\u{1b}[31m"),
            ("\u{7f}", r"\u{7f}"),
            ("\u{85}", r"\u{85}"),
            ("\u{2028}\u{2029}", r"\u{2028}\u{2029}"),
            ("\u{202e}x", r"\u{202e}x"),
            ("\u{200b}", r"\u{200b}"),
            ("\u{feff}", r"\u{feff}"),
        ] {
            assert_eq!(escaped(raw), want, "{raw:?}");
        }
        for kept in [
            "plain",
            "café",
            "cafe\u{301}",
            r#"a\nb "q" 'x'"#,
            "日本",
            "",
        ] {
            assert!(matches!(escaped(kept), Cow::Borrowed(_)), "{kept:?}");
        }
    }

    #[test]
    fn escaping_a_debug_quoted_value_changes_nothing() {
        let quoted = format!("{:?}", "a\n\u{1b}\"\\");
        assert_eq!(escaped(&quoted), quoted);
    }

    #[test]
    fn no_control_character_survives() {
        for c in (0..0x11_0000u32).filter_map(char::from_u32) {
            let s = c.to_string();
            let e = escaped(&s);
            assert!(
                !e.chars().any(|x| x.is_control()
                    || matches!(x, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}')),
                "{c:?} -> {e:?}"
            );
        }
    }

    #[test]
    fn an_error_line_names_each_cause_once_on_one_line() {
        #[derive(Debug, thiserror::Error)]
        #[error("{path}: cannot start: {source}")]
        struct Repeats {
            path: String,
            source: std::io::Error,
        }
        let os = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such\nfile");
        let e = Repeats {
            path: "a\u{1b}b".into(),
            source: os(),
        };
        assert_eq!(error_line(&e), r"a\u{1b}b: cannot start: no such\nfile");
        let chained = anyhow::Error::new(e).context("x.json");
        assert_eq!(
            error_line(&*chained),
            r"x.json: a\u{1b}b: cannot start: no such\nfile"
        );
        let plain = anyhow::Error::new(os()).context("y.json: cannot read");
        assert_eq!(error_line(&*plain), r"y.json: cannot read: no such\nfile");
    }

    #[test]
    fn reads_a_regular_file_and_refuses_others() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("rig.json");
        std::fs::write(&f, "{}").unwrap();
        assert_eq!(read_text(&f, Input::Rig).unwrap(), "{}");
        let e = read_text(dir.path(), Input::Rig).unwrap_err().to_string();
        assert!(
            e.ends_with(
                ": cannot read: is a directory, not a regular file (a rig file is read from a regular file only)"
            ),
            "{e}"
        );
        let e = read_text(&dir.path().join("none"), Input::Rig)
            .unwrap_err()
            .to_string();
        assert!(e.contains(": cannot read: "), "{e}");
    }

    #[test]
    fn size_limit_counts_bytes_read() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("big.json");
        std::fs::write(&f, vec![b' '; MAX_RIG_BYTES as usize]).unwrap();
        assert!(read_text(&f, Input::Rig).is_ok());
        std::fs::write(&f, vec![b' '; MAX_RIG_BYTES as usize + 1]).unwrap();
        let e = read_text(&f, Input::Rig).unwrap_err().to_string();
        assert!(
            e.ends_with(
                ": cannot read: larger than the 16 MiB limit for a rig file (16777216 bytes)"
            ),
            "{e}"
        );
        assert!(read_text(&f, Input::Drawing).is_ok());
    }

    #[test]
    fn invalid_utf8_names_line_and_column() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("latin1.json");
        std::fs::write(&f, b"{\n  \"name\": \"caf\xe9\"}").unwrap();
        let e = read_text(&f, Input::Rig).unwrap_err().to_string();
        assert!(e.contains("(invalid byte at line 2, column 15)"), "{e}");
    }
}
