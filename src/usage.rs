//! The command line's own words: a usage error as one line, help and the
//! version written as every other output is, and the value parsers of the
//! numeric flags, whose refusals state the flag's range.
//!
//! # Method
//!
//! [`parse`] runs clap without letting it print or exit. Help and the
//! version go to standard output through [`output::stdout_by`], so a full
//! or closed standard output is an error as for every command (a closed
//! pipe stays quiet). Any other clap error becomes one line: a value our
//! own parser refused ([`Refused`]) reads `--flag: <rule>, got <value>`, as
//! the range checks made after parsing do; every other error keeps the
//! first paragraph of clap's message (which names the flag and the value)
//! on one line, with a similar name clap suggests, without its tips and
//! usage, and ends by pointing at the command's help. A value from the
//! command line is shown as messages about input show it: control
//! characters escaped, and one longer than [`ECHO_CHARS`] characters cut.

use crate::output;
use anyhow::{Result, anyhow};
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Command, Parser};
use rigbake::input::{ECHO_CHARS, ECHO_HEAD, escaped};
use std::ffi::OsString;
use std::num::IntErrorKind;

/// Parses the process's arguments. `Ok(None)`: help or the version was
/// asked for and has been printed. A usage error is the error, one line.
pub(crate) fn parse<T: Parser>() -> Result<Option<T>> {
    let args: Vec<OsString> = std::env::args_os().collect();
    match T::try_parse_from(&args) {
        Ok(t) => Ok(Some(t)),
        Err(e) if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            output::stdout_by(|| e.print())?;
            Ok(None)
        }
        Err(e) => Err(anyhow!(one_line(e, &T::command(), &args))),
    }
}

/// A usage error as one line (without the `rigbake: error:` prefix).
fn one_line(mut e: clap::Error, cmd: &Command, args: &[OsString]) -> String {
    if let (ErrorKind::ValueValidation, Some(why)) = (e.kind(), refused(&e)) {
        return format!("{}: {why}", flag(&e));
    }
    let sub = args
        .get(1)
        .and_then(|a| a.to_str())
        .and_then(|a| cmd.find_subcommand(a));
    let see = match sub {
        Some(s) => format!("{} {}", cmd.get_name(), s.get_name()),
        None => cmd.get_name().to_string(),
    };
    if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let names: Vec<&str> = cmd.get_subcommands().map(Command::get_name).collect();
        return format!(
            "no command given; one of: {} (see {see} --help)",
            names.join(", ")
        );
    }
    let hidden = hide_odd_values(&mut e);
    let mut line = format!("{}{} (see {see} --help)", first_paragraph(&e), similar(&e));
    for (mark, value) in hidden {
        line = line
            .replace(&format!("'{mark}'"), &shown(&value, true))
            .replace(&mark, &shown(&value, false));
    }
    line
}

/// Why our own value parser refused the value, if it did.
fn refused(e: &clap::Error) -> Option<&Refused> {
    std::error::Error::source(e)?.downcast_ref::<Refused>()
}

/// The flag an error is about, without its value name (`--keys`).
fn flag(e: &clap::Error) -> String {
    match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.split(' ').next().unwrap_or(s).to_string(),
        _ => "the value".to_string(),
    }
}

/// clap's message up to its first blank line (the problem, with a list of
/// possible values or missing arguments when it has one), on one line.
fn first_paragraph(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let text = text.trim_start();
    let text = text.strip_prefix("error:").unwrap_or(text);
    let para = text.split("\n\n").next().unwrap_or(text);
    para.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `; a similar argument exists: '--keys'` when clap found one.
fn similar(e: &clap::Error) -> String {
    let mut out = String::new();
    for (kind, what) in [
        (ContextKind::SuggestedArg, "argument"),
        (ContextKind::SuggestedSubcommand, "subcommand"),
        (ContextKind::SuggestedValue, "value"),
    ] {
        let names = match e.get(kind) {
            Some(ContextValue::String(s)) => vec![s.clone()],
            Some(ContextValue::Strings(v)) => v.clone(),
            _ => continue,
        };
        if !names.is_empty() {
            let quoted: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
            out.push_str(&format!("; a similar {what} exists: {}", quoted.join(", ")));
        }
    }
    out
}

/// Replaces every value in the error's context that is longer than
/// [`ECHO_CHARS`] characters or holds a character to escape (a value from
/// the command line) with a mark that clap's rendering keeps as it is;
/// returns the marks and the values, for [`shown`] to put back.
fn hide_odd_values(e: &mut clap::Error) -> Vec<(String, String)> {
    let mut hidden = Vec::new();
    let mut hide = |s: &String| {
        // (a quote or a backslash too: clap quotes values with `'`)
        if s.chars().count() <= ECHO_CHARS && escaped(s) == s.as_str() && !s.contains(['\'', '\\'])
        {
            return s.clone();
        }
        let mark = format!("\u{E000}{}\u{E001}", hidden.len());
        hidden.push((mark.clone(), s.clone()));
        mark
    };
    let changed: Vec<(ContextKind, ContextValue)> = e
        .context()
        .filter_map(|(kind, v)| match v {
            ContextValue::String(s) => Some((kind, ContextValue::String(hide(s)))),
            ContextValue::Strings(v) => Some((
                kind,
                ContextValue::Strings(v.iter().map(&mut hide).collect()),
            )),
            _ => None,
        })
        .collect();
    for (kind, v) in changed {
        e.insert(kind, v);
    }
    hidden
}

/// A value from the command line as messages about input show it:
/// [`escaped`] (between `'` quotes, [`rigbake::input::quoted`]: a quote or a
/// backslash in it escaped), and when longer than [`ECHO_CHARS`] characters cut to its
/// first [`ECHO_HEAD`] and its length (`'aaaa…' (100000 characters)` when
/// `quoted`).
fn shown(value: &str, quoted: bool) -> String {
    let n = value.chars().count();
    let head: String = value.chars().take(ECHO_HEAD).collect();
    match (quoted, n <= ECHO_CHARS) {
        (true, true) => rigbake::input::quoted(value, '\''),
        (false, true) => escaped(value).into_owned(),
        (true, false) => {
            let q = rigbake::input::quoted(&head, '\'');
            format!("{}…' ({n} characters)", &q[..q.len() - 1])
        }
        (false, false) => format!("{}… ({n} characters)", escaped(&head)),
    }
}

/// A value refused by one of our value parsers: the flag's rule and the
/// value, shown after the flag (`--keys: must be between 2 and 10000, got -3`).
#[derive(Debug)]
pub(crate) struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A whole number in `lo..=hi`. A negative number, or one too large for
/// any count, is refused with the same range.
pub(crate) fn whole_between(
    lo: usize,
    hi: usize,
) -> impl Fn(&str) -> Result<usize, Refused> + Clone + Send + Sync + 'static {
    move |s| match s.parse::<i128>() {
        Ok(n) if (lo as i128..=hi as i128).contains(&n) => Ok(n as usize),
        Ok(n) => Err(Refused(format!("must be between {lo} and {hi}, got {n}"))),
        Err(e)
            if matches!(
                e.kind(),
                IntErrorKind::PosOverflow | IntErrorKind::NegOverflow
            ) =>
        {
            Err(Refused(format!("must be between {lo} and {hi}, got {s:?}")))
        }
        Err(_) => Err(Refused(format!(
            "must be a whole number between {lo} and {hi}, got {s:?}"
        ))),
    }
}

/// Most keys per track `sweep --keys A..B` tries.
pub(crate) const MAX_SWEEP_KEYS: usize = 400;

/// An inclusive key range `A..B`, 2 ≤ A ≤ B ≤ [`MAX_SWEEP_KEYS`].
pub(crate) fn key_range(s: &str) -> Result<(usize, usize), Refused> {
    let shape = || {
        Refused(format!(
            "expected whole numbers A..B (e.g. 4..40), got {s:?}"
        ))
    };
    let (a, b) = s.split_once("..").ok_or_else(shape)?;
    let a: i128 = a.parse().map_err(|_| shape())?;
    let b: i128 = b.parse().map_err(|_| shape())?;
    if !(2 <= a && a <= b && b <= MAX_SWEEP_KEYS as i128) {
        return Err(Refused(format!(
            "need 2 <= A <= B <= {MAX_SWEEP_KEYS}, got {s:?}"
        )));
    }
    Ok((a as usize, b as usize))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_numbers_outside_the_range_state_it() {
        let keys = whole_between(2, 10);
        assert_eq!(keys("2").unwrap(), 2);
        assert_eq!(keys("10").unwrap(), 10);
        assert_eq!(
            keys("-3").unwrap_err().to_string(),
            "must be between 2 and 10, got -3"
        );
        assert_eq!(
            keys("11").unwrap_err().to_string(),
            "must be between 2 and 10, got 11"
        );
        let huge = "9".repeat(50);
        assert_eq!(
            keys(&huge).unwrap_err().to_string(),
            format!("must be between 2 and 10, got \"{huge}\"")
        );
        assert_eq!(
            keys("2.5").unwrap_err().to_string(),
            "must be a whole number between 2 and 10, got \"2.5\""
        );
    }

    #[test]
    fn key_ranges() {
        assert_eq!(key_range("4..40").unwrap(), (4, 40));
        assert_eq!(key_range("400..400").unwrap(), (400, 400));
        for bad in ["5..4", "-1..5", "1..5", "2..401"] {
            let why = key_range(bad).unwrap_err().to_string();
            assert!(why.starts_with("need 2 <= A <= B <= 400"), "{bad}: {why}");
        }
        for bad in [
            "4", "a..5", "4..", "4...5", " 4..5", "4 ..5", "4.. 5", "4..5\n",
        ] {
            let why = key_range(bad).unwrap_err().to_string();
            assert!(
                why.starts_with("expected whole numbers A..B"),
                "{bad}: {why}"
            );
        }
    }
}
