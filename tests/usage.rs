//! Usage errors of every subcommand, found from the help text itself: an
//! unknown flag, a value outside an option's possible values, an option
//! with no value and a negative number for every numeric option are each
//! exit 2 with one line on stderr, `rigbake: error: …`, naming the flag.
//! Help and the version are written as every other output is: a full
//! standard output is exit 2 with one line, a closed pipe exit 0 quietly.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn rigbake() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rigbake"))
}

fn seed() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/seed-nested.json")
}

/// Value names of the options that take a number.
const NUMERIC: &[&str] = &["N", "PX", "A..B"];

/// Subcommand names listed under "Commands:" in `rigbake --help`.
fn subcommands() -> Vec<String> {
    let cmds = common::subcommands();
    for c in ["bake", "check", "sweep", "preview", "completions"] {
        assert!(cmds.iter().any(|x| x == c), "{c} missing from {cmds:?}");
    }
    cmds
}

/// One option or argument line of `rigbake <cmd> -h`.
#[derive(Debug)]
struct Opt {
    /// `--route`, or `<SHELL>` for a positional argument.
    name: String,
    /// The value name (`ROUTE`), if it takes a value.
    value: Option<String>,
    /// `[possible values: …]`.
    possible: Vec<String>,
}

/// The options (and positional arguments) `rigbake <cmd> -h` lists.
fn options(cmd: &str) -> Vec<Opt> {
    let out = rigbake().args([cmd, "-h"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{cmd} -h");
    let text = String::from_utf8(out.stdout).unwrap();
    let mut opts = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if !line.starts_with("  ") || !(t.starts_with('-') || t.starts_with('<')) {
            continue;
        }
        let mut words = t.split_whitespace().peekable();
        if words
            .peek()
            .is_some_and(|w| w.len() == 3 && w.ends_with(','))
        {
            words.next(); // `-o,`
        }
        let name = words.next().unwrap().to_string();
        let value = if name.starts_with('<') {
            Some(name.trim_matches(['<', '>', '.']).to_string())
        } else {
            words
                .next()
                .filter(|w| w.starts_with('<'))
                .map(|w| w.trim_matches(['<', '>']).to_string())
        };
        let possible = t
            .split_once("[possible values: ")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(list, _)| list.split(", ").map(str::to_string).collect())
            .unwrap_or_default();
        opts.push(Opt {
            name,
            value,
            possible,
        });
    }
    assert!(
        opts.iter().any(|o| o.name == "--help"),
        "{cmd}: no options read from:\n{text}"
    );
    opts
}

/// Exit 2, nothing on stdout, exactly one line on stderr starting
/// `rigbake: error: ` and holding every needle, none of clap's usage or
/// tips. Returns the line.
fn one_line_error(out: &Output, what: &str, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{what}: stderr: {stderr}");
    assert!(
        out.stdout.is_empty(),
        "{what}: stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let line = stderr
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("{what}: stderr does not end a line: {stderr:?}"));
    assert!(
        !line.contains('\n'),
        "{what}: more than one line:\n{stderr}"
    );
    assert!(
        line.starts_with("rigbake: error: "),
        "{what}: no prefix: {line}"
    );
    assert_eq!(common::doubled_word(line), None, "{what}: {line}");
    for bad in ["Usage:", "tip:", "For more information", "panicked"] {
        assert!(!line.contains(bad), "{what}: {bad:?} in {line}");
    }
    for n in needles {
        assert!(line.contains(n), "{what}: lacks {n:?}: {line}");
    }
    line.to_string()
}

fn run(args: &[&str]) -> Output {
    rigbake().args(args).output().unwrap()
}

#[test]
fn an_unknown_flag_is_one_line_naming_it_in_every_subcommand() {
    one_line_error(&run(&["--no-such-flag"]), "rigbake", &["'--no-such-flag'"]);
    for cmd in subcommands() {
        let out = run(&[&cmd, "--no-such-flag"]);
        let line = one_line_error(&out, &cmd, &["'--no-such-flag'"]);
        assert!(
            line.ends_with(&format!("(see rigbake {cmd} --help)")),
            "{line}"
        );
        // a near miss names the flag it resembles
        one_line_error(&run(&[&cmd, "--hepl"]), &cmd, &["'--hepl'", "'--help'"]);
    }
}

#[test]
fn a_value_outside_the_possible_values_is_one_line_naming_flag_and_value() {
    let mut seen = Vec::new();
    for cmd in subcommands() {
        for o in options(&cmd).iter().filter(|o| !o.possible.is_empty()) {
            let args: Vec<&str> = if o.name.starts_with('<') {
                vec![&cmd, "nonsense"]
            } else {
                vec![&cmd, &o.name, "nonsense"]
            };
            let what = args.join(" ");
            let mut needles = vec!["'nonsense'", o.name.as_str(), "[possible values: "];
            needles.extend(o.possible.iter().map(String::as_str));
            one_line_error(&run(&args), &what, &needles);
            seen.push(format!("{cmd} {}", o.name));
        }
    }
    tried_all(
        &seen,
        &[
            "bake --route",
            "bake --fit",
            "check --format",
            "sweep --fit",
            "sweep --route",
            "preview --route",
            "completions <SHELL>",
        ],
    );
}

/// Every option in `want` ("cmd --flag") is among those `seen` tried.
fn tried_all(seen: &[String], want: &[&str]) {
    for w in want {
        assert!(seen.iter().any(|s| s == w), "{w} not tried: {seen:?}");
    }
}

#[test]
fn an_option_without_its_value_is_one_line_naming_it() {
    let mut tried = 0;
    for cmd in subcommands() {
        for o in options(&cmd) {
            if o.value.is_none() || !o.name.starts_with("--") {
                continue;
            }
            let out = run(&[&cmd, &o.name]);
            one_line_error(&out, &format!("{cmd} {}", o.name), &[&o.name, "a value"]);
            tried += 1;
        }
    }
    assert!(tried >= 20, "only {tried} options take a value");
}

/// Arguments that make `cmd` parse without `flag` (a rig, the required
/// options), so a value of `flag` reaches its own range check.
fn base(cmd: &str, flag: &str, tmp: &Path) -> Vec<String> {
    let mut v = vec![cmd.to_string(), seed().display().to_string()];
    match cmd {
        "check" if flag != "--max-error" => v.extend(["--max-error".into(), "1".into()]),
        "bake" => v.extend(["-o".into(), tmp.display().to_string()]),
        "preview" => v.extend(["-o".into(), tmp.join("x.png").display().to_string()]),
        _ => {}
    }
    v
}

#[test]
fn a_negative_number_reaches_the_range_check_of_every_numeric_option() {
    let tmp = tempfile::TempDir::new().unwrap();
    let mut seen = Vec::new();
    for cmd in subcommands() {
        for o in options(&cmd) {
            let Some(value) = o.value.as_deref().filter(|v| NUMERIC.contains(v)) else {
                continue;
            };
            let negatives: &[&str] = match value {
                "A..B" => &["-1..4", "-5"],
                "N" => &["-1", "-0"],
                _ => &["-1", "-0.5", "-1e3", "-inf"],
            };
            for neg in negatives {
                let mut args = base(&cmd, &o.name, tmp.path());
                args.extend([o.name.clone(), neg.to_string()]);
                let out = rigbake().args(&args).output().unwrap();
                let line = one_line_error(&out, &args.join(" "), &[&o.name, "got"]);
                assert!(
                    line.starts_with(&format!("rigbake: error: {}: ", o.name)),
                    "not the option's own check: {line}"
                );
                assert!(!line.contains("unexpected argument"), "{line}");
                // `--opt=-1` is read the same way
                let mut joined = base(&cmd, &o.name, tmp.path());
                joined.push(format!("{}={neg}", o.name));
                let out2 = rigbake().args(&joined).output().unwrap();
                assert_eq!(out2.stderr, out.stderr, "{joined:?}");
            }
            seen.push(format!("{cmd} {}", o.name));
        }
    }
    tried_all(
        &seen,
        &[
            "bake --keys",
            "bake --tolerance",
            "check --max-error",
            "check --max-slip",
            "check --max-reach",
            "check --keys",
            "check --tolerance",
            "sweep --keys",
            "preview --frames",
        ],
    );
    assert_eq!(
        std::fs::read_dir(tmp.path()).unwrap().count(),
        0,
        "a refused command wrote something"
    );
}

#[test]
fn conflicting_flags_are_one_line_naming_both() {
    let seed = seed();
    let seed = seed.to_str().unwrap();
    one_line_error(
        &run(&["bake", seed, "--keys", "5", "--tolerance", "1"]),
        "bake --keys --tolerance",
        &["'--keys <N>'", "'--tolerance <PX>'"],
    );
    one_line_error(
        &run(&["check", seed, "--max-error", "1", "-q", "--format", "json"]),
        "check -q --format",
        &["'--quiet'", "'--format <FORMAT>'"],
    );
}

#[test]
fn missing_arguments_and_commands_are_one_line() {
    one_line_error(&run(&[]), "rigbake", &["no command given", "bake", "check"]);
    one_line_error(&run(&["bake"]), "bake", &["<RIG>"]);
    one_line_error(&run(&["check", "x.json"]), "check", &["--max-error"]);
    one_line_error(&run(&["bakee"]), "bakee", &["'bakee'", "'bake'"]);
    one_line_error(&run(&["help", "nothing"]), "help nothing", &["'nothing'"]);
}

#[test]
fn a_usage_error_shows_a_long_or_unprintable_value_as_input_errors_do() {
    let long = format!("--{}", "x".repeat(100_000));
    let line = one_line_error(
        &run(&["bake", &long]),
        "long flag",
        &["(100002 characters)"],
    );
    assert!(line.len() < 200, "{line}");
    one_line_error(
        &run(&["bake", "--route", "c\ns\u{1b}s"]),
        "control characters",
        &["'c\\ns\\u{1b}s'"],
    );
}

/// A value echoed in an error keeps its quotes: a `"`, `'` or `\` in it is
/// escaped, whether clap quotes it (`'…'`), one of our value parsers does
/// (`"…"`), or the check of `--prefix` after parsing does.
#[test]
fn an_echoed_value_cannot_close_its_quotes() {
    one_line_error(
        &run(&["bake", "--route", "a'b\\"]),
        "clap's quotes",
        &[r"'a\'b\\'", "--route"],
    );
    one_line_error(&run(&["bake", "--no-such", "x"]), "plain", &["'--no-such'"]);
    one_line_error(
        &run(&["bake", "--keys", "2\"x"]),
        "a value parser",
        &[r#"--keys: must be a whole number between 2 and 10000, got "2\"x""#],
    );
    let seed = seed();
    let seed = seed.to_str().unwrap();
    for (prefix, shown) in [("a\"", r#"got "a\"""#), ("a\\", r#"got "a\\""#)] {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("x.svg");
        let out = out.to_str().unwrap();
        one_line_error(
            &run(&["bake", "--prefix", prefix, "-o", out, seed]),
            "--prefix",
            &["--prefix: must be a letter", shown],
        );
        assert!(!tmp.path().join("x.svg").exists());
    }
}

/// The commands that print help or the version.
const HELP: &[&[&str]] = &[
    &["--help"],
    &["-h"],
    &["bake", "--help"],
    &["check", "-h"],
    &["help", "sweep"],
    &["--version"],
    &["-V"],
];

#[test]
fn help_and_version_print_and_exit_0() {
    for args in HELP {
        let out = run(args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {:?}", out.stderr);
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.starts_with("rigbake ") || text.contains("Usage: rigbake"),
            "{args:?}: {text}"
        );
    }
}

#[cfg(target_os = "linux")]
#[test]
fn help_and_version_to_a_full_stdout_are_one_line_exit_2() {
    for args in HELP {
        let full = std::fs::File::create("/dev/full").unwrap();
        let out = rigbake()
            .args(*args)
            .stdout(Stdio::from(full))
            .output()
            .unwrap();
        one_line_error(&out, &format!("{args:?}"), &["standard output"]);
    }
}

#[cfg(unix)]
#[test]
fn help_and_version_to_a_closed_pipe_are_quiet() {
    for args in HELP {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = rigbake()
            .args(*args)
            .stdout(Stdio::from(writer))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert!(
            out.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
