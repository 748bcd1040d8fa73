//! Helpers shared by the rig-kind test files (`mod common;`); a file
//! that uses only some of them would otherwise warn about the rest.
#![allow(dead_code)]

pub mod agree;
pub mod art;

use assert_cmd::Command;
use rigbake::bake::BakeOptions;
use rigbake::{Route, bake_rig, rig};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use tempfile::TempDir;

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// `rigbake lower RIG` (a path inside the repository) as JSON.
pub fn lowered(rig: &str) -> Value {
    let o = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("lower")
        .arg(repo(rig))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Bake `v` in process at the rig's own settings.
pub fn bake(v: &Value, route: Route) -> rigbake::Baked {
    let rig = rig::load(&v.to_string()).unwrap();
    bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, None))
}

/// `rigbake bake` on `v` written as `bad.json`: exit 2, one stderr line
/// naming the file and every needle, nothing written.
pub fn bad(v: &Value, needles: &[&str]) {
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("bad.json");
    fs::write(&path, v.to_string()).unwrap();
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("bake")
        .arg(&path)
        .arg("-o")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr}");
    let line = stderr.trim_end();
    assert!(
        !line.contains('\n') && !line.contains("panicked"),
        "{stderr}"
    );
    for n in ["bad.json"].iter().chain(needles) {
        assert!(line.contains(n), "message lacks {n:?}: {line}");
    }
    assert!(
        !tmp.path().join("out").exists()
            || fs::read_dir(tmp.path().join("out"))
                .unwrap()
                .next()
                .is_none()
    );
}

/// Foot slip of the rig `v` (a gait over a `ground` that follows it), on
/// both routes: every leg reports slip ≤ 0.5 px per step, and with the
/// common bug, a ground at stride × cadence (forgetting ÷ duty), > 5 px.
/// Returns the number of legs of the good bake.
pub fn assert_slip_caught(name: &str, v: &Value, stride: f64, cadence: f64) -> usize {
    let mut legs = 0;
    for route in [Route::Css, Route::Smil] {
        let good = bake(v, route);
        legs = good.report.legs.len();
        for l in &good.report.legs {
            let s = l.slip_px.expect("slip reported");
            assert!(s <= 0.5, "{name} {route:?} {}: slip {s}", l.name);
        }
        let mut wrong = v.clone();
        let g = wrong["ground"].as_object_mut().unwrap();
        g.remove("follow");
        g.insert("speed_px_s".into(), (stride * cadence).into());
        for l in &bake(&wrong, route).report.legs {
            let s = l.slip_px.unwrap();
            assert!(s > 5.0, "{name} {route:?} {}: slip {s}", l.name);
        }
    }
    legs
}

/// Every file of the repository's directory `dir` whose name ends in
/// `.<ext>`, sorted.
pub fn files_in(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(repo(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    v.sort();
    v
}

/// Every `rigs/*.json`, sorted.
pub fn example_rigs() -> Vec<PathBuf> {
    files_in("rigs", "json")
}

/// The whole-character examples: each combines features that cheaper
/// examples already carry one at a time (IK legs on ground, springs,
/// Verlet chains, clips, pedals), and each takes seconds to bake where the
/// others take a fraction of one. Tests of the rig files themselves
/// (golden bytes, determinism, view box, browsers, their own test files)
/// bake them; tests of a mechanism that every kind shares (batch order,
/// thread counts, the tolerance loop at a tight tolerance) leave them out.
pub const COMPOSITES: [&str; 4] = ["cyclist", "run-up", "runner", "stickman"];

/// [`example_rigs`] without the [`COMPOSITES`]; still every rig kind
/// (cycling legs, `ik_chains`, bone trees with IK, ground, springs,
/// chains and clips).
pub fn example_rigs_but_composites() -> Vec<PathBuf> {
    example_rigs()
        .into_iter()
        .filter(|p| {
            let stem = p.file_stem().unwrap().to_str().unwrap();
            !COMPOSITES.contains(&stem)
        })
        .collect()
}

/// Every file below `dir` (relative paths, sorted) with its bytes.
pub fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((
                    p.strip_prefix(dir).unwrap().to_path_buf(),
                    fs::read(&p).unwrap_or_default(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// Names starting with `.rigbake-` anywhere below `dir`.
pub fn temporaries(dir: &Path) -> Vec<PathBuf> {
    snapshot(dir)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(".rigbake-"))
        })
        .collect()
}

/// The first word a message writes twice in a row ("sets `x` in in its
/// style"), outside quoted values (an echoed `"M 0 0"` may repeat itself).
pub fn doubled_word(message: &str) -> Option<String> {
    let mut plain = String::with_capacity(message.len());
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' | '`' => {
                // to the closing quote (inside `"`, a backslash escapes)
                while let Some(d) = chars.next() {
                    if d == c {
                        break;
                    }
                    if c == '"' && d == '\\' {
                        chars.next();
                    }
                }
                plain.push(' ');
            }
            _ => plain.push(c),
        }
    }
    // (words between spaces, their punctuation trimmed; a path or a
    // number is no word)
    let words: Vec<Option<String>> = plain
        .split_whitespace()
        .map(|w| {
            let w = w.trim_matches(|c: char| ",.;:()!?".contains(c));
            (!w.is_empty() && w.chars().all(char::is_alphabetic)).then(|| w.to_lowercase())
        })
        .collect();
    words
        .windows(2)
        .find(|w| w[0].is_some() && w[0] == w[1])
        .and_then(|w| w[0].clone())
}

/// Exit 2 and exactly one stderr line, which contains every needle and
/// writes no word twice in a row.
pub fn refused(out: &Output, needles: &[&str]) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.starts_with("rigbake: error: "), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(doubled_word(&err), None, "{err}");
    for n in needles {
        assert!(err.contains(n), "message lacks {n:?}: {err}");
    }
    err
}

/// `rigbake bake` of `rig_text` written to a fresh `bad.json`: (exit code,
/// stderr, the names of the files written to its output directory).
pub fn bake_text(rig_text: &str) -> (i32, String, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(&path, rig_text).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .args(["bake", path.to_str().unwrap(), "-o"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let written = std::fs::read_dir(dir.path().join("out"))
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .collect()
        })
        .unwrap_or_default();
    (out.status.code().unwrap_or(-1), stderr, written)
}

/// `rigbake bake` of `rig_text` ([`bake_text`]) is refused: exit 2, one
/// stderr line naming `bad.json` and holding every one of `needles`, and
/// nothing written.
pub fn assert_bake_refused(rig_text: &str, needles: &[&str]) {
    let (code, stderr, written) = bake_text(rig_text);
    eprintln!("{}", stderr.trim_end());
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.json"), "{stderr}");
    assert_eq!(doubled_word(&stderr), None, "{stderr}");
    for w in needles {
        assert!(stderr.contains(w), "{stderr:?} lacks {w:?}");
    }
    assert!(written.is_empty(), "{written:?}");
}

/// The text of `rigs/<name>`.
pub fn rig_text(name: &str) -> String {
    fs::read_to_string(repo("rigs").join(name)).unwrap()
}

/// As `rigbake bake` does: the rig's own keying (bone trees honour keying
/// options, so uniform keys would be a different bake).
pub fn bake_own(rig: &rig::Rig, route: Route) -> rigbake::Baked {
    bake_rig(rig, &BakeOptions::resolve(rig, route, None, None, None))
}

/// Every probe figure of a report: legs (effectors), bones and head rims
/// (`clip:name`), chains and springs, as `(name, px)`.
pub fn probe_figures(r: &rigbake::report::Report) -> Vec<(String, f64)> {
    let mut out: Vec<(String, f64)> = Vec::new();
    out.extend(r.legs.iter().map(|l| (l.name.clone(), l.max_error_px)));
    out.extend(
        r.bones
            .iter()
            .map(|b| (format!("{}:{}", b.clip, b.name), b.max_error_px)),
    );
    out.extend(
        r.chains
            .iter()
            .map(|c| (c.name.clone(), c.max_deviation_px)),
    );
    out.extend(
        r.springs
            .iter()
            .map(|s| (s.bone.clone(), s.max_tip_error_px)),
    );
    out
}

/// The `art: <marker> is <px> px from …` lines a `bake --art` prints, as
/// `(line, px)`.
pub fn art_marker_offsets(stdout: &str) -> Vec<(&str, f64)> {
    stdout
        .lines()
        .filter(|l| l.starts_with("art: "))
        .map(|l| {
            let px = l.split(" is ").nth(1).unwrap().split(' ').next().unwrap();
            (l, px.parse().unwrap())
        })
        .collect()
}

/// The css rules of `svg` as (selector list, body), in the order written;
/// `@keyframes` blocks are skipped, `@media` blocks looked into.
pub fn css_rule_list(svg: &str) -> Vec<(&str, &str)> {
    let (Some(a), Some(b)) = (svg.find("<style>"), svg.find("</style>")) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut rest = &svg[a + "<style>".len()..b];
    while let Some(open) = rest.find('{') {
        let head = rest[..open].trim().trim_start_matches('}').trim();
        if head.starts_with("@keyframes") {
            let mut depth = 0;
            let mut end = rest.len() - 1;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = open + i;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            rest = &rest[end + 1..];
            continue;
        }
        if head.starts_with('@') {
            rest = &rest[open + 1..];
            continue;
        }
        let Some(len) = rest[open..].find('}') else {
            break;
        };
        let close = open + len;
        found.push((head, &rest[open + 1..close]));
        rest = &rest[close + 1..];
    }
    found
}

/// The bodies of the css rules of `svg` one of whose selectors ends with
/// `tail` (a class, `.k4x9z-near-thigh`, or the end of one,
/// `-near-thigh`, whatever the file's prefix), in the order written
/// ([`css_rule_list`]). Rules with identical bodies share one selector
/// list (`.a,.b{…}`) and a late replay's delay has a rule of its own, so a
/// class may have several.
pub fn css_rules<'a>(svg: &'a str, tail: &str) -> Vec<&'a str> {
    css_rule_list(svg)
        .into_iter()
        .filter(|(sels, _)| sels.split(',').any(|s| s.trim().ends_with(tail)))
        .map(|(_, body)| body)
        .collect()
}

/// The `@keyframes` name the css rule of `tail` (see [`css_rules`]) plays
/// (`animation:NAME …`).
pub fn animation_name(svg: &str, tail: &str) -> Option<String> {
    css_rules(svg, tail).into_iter().find_map(|body| {
        let at = body.find("animation:")? + "animation:".len();
        body[at..].split(' ').next().map(str::to_string)
    })
}

/// The number written right after `marker` in `line` (up to the next
/// space): a figure a message or summary line states.
pub fn number_after(line: &str, marker: &str) -> f64 {
    line.split(marker)
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {marker:?} in {line:?}"))
}

/// The dots of every ground row drawn in `svg` (at rest), in root user
/// space of the row's group: a row is one `<path class="…-dot"
/// d="M x y h L" stroke-dasharray="0 s">` whose zero-length dashes (round
/// caps) are its dots, at `x + i·s` for every `i·s` < `L`. Also the
/// stroke's width (each dot's diameter).
pub fn ground_dots(svg: &str) -> Vec<(f64, f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut dots = Vec::new();
    for n in doc
        .descendants()
        .filter(|n| n.attribute("class").is_some_and(|c| c.ends_with("-dot")))
    {
        let d = n.attribute("d").expect("a dot row is a path");
        let (start, len) = d[1..].split_once('h').expect("M x y h L");
        let start: Vec<f64> = start
            .replace('-', " -")
            .split_whitespace()
            .map(|t| t.parse().unwrap())
            .collect();
        let len: f64 = len.parse().unwrap();
        let dash = n.attribute("stroke-dasharray").unwrap();
        let spacing: f64 = dash.strip_prefix("0 ").unwrap().parse().unwrap();
        let width: f64 = n.attribute("stroke-width").unwrap().parse().unwrap();
        assert_eq!(n.attribute("stroke-linecap"), Some("round"), "{d}");
        let mut i = 0.0;
        while i * spacing < len {
            dots.push((start[0] + i * spacing, start[1], width));
            i += 1.0;
        }
    }
    dots
}

/// Subcommand names listed under "Commands:" in `rigbake --help` (without
/// `help`): every command the binary has, found from its own help.
pub fn subcommands() -> Vec<String> {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .arg("--help")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

/// The pinned svgo, when node and `tests/node_modules` are there.
pub fn svgo() -> Option<PathBuf> {
    let bin = repo("tests/node_modules/.bin/svgo");
    let node_runs = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if node_runs && bin.is_file() {
        return Some(bin);
    }
    let why = if node_runs {
        "tests/node_modules/.bin/svgo is missing (run `npm ci --prefix tests`)"
    } else {
        "node is not installed"
    };
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{why}; CI requires svgo"
    );
    {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "note: {why}; skipping the svgo tests");
    }
    None
}

/// Runs the pinned svgo over every `.svg` in `dir`; file name → output.
pub fn svgo_dir(svgo: &Path, dir: &Path) -> std::collections::BTreeMap<String, String> {
    let work = tempfile::tempdir().unwrap();
    let dest = work.path().join("optimised");
    let status = std::process::Command::new(svgo)
        .current_dir(work.path())
        .arg("--quiet")
        .arg("--folder")
        .arg(dir)
        .arg("--output")
        .arg(&dest)
        .status()
        .unwrap();
    assert!(status.success(), "svgo failed: {status}");
    std::fs::read_dir(&dest)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// Makes a FIFO (`libc::S_IFIFO`) or a device node (`libc::S_IFCHR` and
/// its `libc::makedev`) at `path`, mode 0666; whether it could (a device
/// node needs root).
pub fn mknod(path: &Path, mode: libc::mode_t, dev: libc::dev_t) -> bool {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes()).unwrap();
    // SAFETY: `c` is a valid NUL-terminated path for the call's duration.
    unsafe { libc::mknod(c.as_ptr(), mode | 0o666, dev) == 0 }
}

/// The `data-probe` names of an SVG text, sorted, each as often as written.
pub fn probe_names(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut v: Vec<String> = doc
        .descendants()
        .filter_map(|n| n.attribute("data-probe").map(str::to_string))
        .collect();
    v.sort();
    v
}

/// `rigbake bake RIG -o TMP --report TMP/r.json --quiet EXTRA…` (which
/// must succeed): the JSON report.
pub fn baked_report(rig: &Path, extra: &[&str]) -> Value {
    let tmp = TempDir::new().unwrap();
    let report = tmp.path().join("r.json");
    Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .arg("bake")
        .arg(rig)
        .arg("-o")
        .arg(tmp.path())
        .arg("--report")
        .arg(&report)
        .arg("--quiet")
        .args(extra)
        .assert()
        .success();
    serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap()
}
