//! The command line's own words: a usage error as one line, help and the
//! version written as every other output is.
//!
//! # Method
//!
//! [`parse`] runs clap without letting it print or exit. Help and the
//! version go to standard output through [`output::stdout_by`], so a full
//! or closed standard output is an error as for every command (a closed
//! pipe stays quiet). Any other clap error becomes one line: the first
//! paragraph of clap's message (which names the flag and the value)
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
        if s.chars().count() <= ECHO_CHARS && escaped(s) == s.as_str() {
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
/// [`escaped`], and when longer than [`ECHO_CHARS`] characters cut to its
/// first [`ECHO_HEAD`] and its length (`'aaaa…' (100000 characters)` when
/// `quoted`).
fn shown(value: &str, quoted: bool) -> String {
    let q = if quoted { "'" } else { "" };
    let n = value.chars().count();
    if n <= ECHO_CHARS {
        return format!("{q}{}{q}", escaped(value));
    }
    let head: String = value.chars().take(ECHO_HEAD).collect();
    format!("{q}{}…{q} ({n} characters)", escaped(&head))
}
