//! Reading input files and echoing input in messages, at the CLI: a rig is
//! the whole file (trailing text is refused with its line and column), input
//! text never reaches stderr raw (no forged lines, no terminal escapes),
//! inputs are regular files within a size limit (no blocking on a pipe, no
//! unbounded read), and the messages for truncated files, byte order marks,
//! over-long arrays and missing watch directories say what is wrong.
//!
//! Every refusal is checked the same way ([`refused`]): exit 2, exactly one
//! stderr line without a control character, the named file in it, the
//! previous output untouched and no `.rigbake-*` temporary left.

mod common;

use assert_cmd::Command;
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, Instant};
use tempfile::TempDir;

const SEED: &str = "rigs/seed-nested.json";

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn seed_text() -> String {
    fs::read_to_string(repo(SEED)).unwrap()
}

fn seed() -> Value {
    serde_json::from_str(&seed_text()).unwrap()
}

/// A bone-tree rig with two clips, for `--clip` and `clips[].angles` keys.
fn clips_rig() -> Value {
    json!({
        "name": "wave", "view_box": [0, 0, 200, 200], "period_s": 1,
        "bones": [
            { "name": "arm", "at": [100, 100], "length": 40, "angle": { "const_deg": 0 } }
        ],
        "clips": [
            { "name": "idle", "angles": { "arm": { "const_deg": 10 } } },
            { "name": "wave", "angles": { "arm": { "track": { "keys": [[0, 0], [0.5, 30], [1, 0]] } } } }
        ]
    })
}

/// The binary, run with a 20 s timeout (a read that blocks fails the test).
fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(repo("."));
    c.timeout(Duration::from_secs(20));
    c
}

/// A scratch directory with `out/` holding an old `seed-nested.svg` that no
/// refusal may touch.
struct Scratch {
    dir: TempDir,
}

const OLD: &str = "<svg>old output</svg>";

impl Scratch {
    fn new() -> Self {
        let dir = TempDir::new().unwrap();
        fs::create_dir(dir.path().join("out")).unwrap();
        fs::write(dir.path().join("out/seed-nested.svg"), OLD).unwrap();
        Scratch { dir }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let p = self.path(rel);
        fs::write(&p, bytes).unwrap();
        p
    }

    fn out(&self) -> PathBuf {
        self.path("out")
    }

    /// `bake RIG -o out/` plus `extra`.
    fn bake(&self, rig: &Path, extra: &[&str]) -> Output {
        rigbake()
            .arg("bake")
            .arg(rig)
            .arg("-o")
            .arg(self.out())
            .args(extra)
            .output()
            .unwrap()
    }

    /// `bake RIG -o - -q`: the SVG on standard output.
    fn bake_stdout(&self, rig: &Path) -> Output {
        rigbake()
            .arg("bake")
            .arg(rig)
            .args(["-o", "-", "-q"])
            .output()
            .unwrap()
    }

    /// The old output is still there, alone, and nothing else was written.
    fn untouched(&self) {
        let names: Vec<String> = fs::read_dir(self.out())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["seed-nested.svg"], "out/ holds {names:?}");
        assert_eq!(
            fs::read_to_string(self.path("out/seed-nested.svg")).unwrap(),
            OLD
        );
        let temps: Vec<_> = fs::read_dir(self.dir.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with(".rigbake-")
            })
            .collect();
        assert!(temps.is_empty(), "temporaries left: {temps:?}");
    }
}

/// Exit 2 and exactly one stderr line `rigbake: error: …` holding every
/// needle and no control character (nor a line or paragraph separator or
/// bidirectional override); returns the line.
fn refused(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8(out.stderr.clone()).expect("stderr is UTF-8");
    assert_eq!(out.status.code(), Some(2), "stderr: {stderr:?}");
    let line = stderr
        .strip_suffix('\n')
        .unwrap_or_else(|| panic!("stderr does not end in a newline: {stderr:?}"));
    assert!(line.starts_with("rigbake: error: "), "{stderr:?}");
    assert!(
        !line
            .chars()
            .any(|c| c.is_control() || ('\u{2028}'..='\u{202e}').contains(&c)),
        "raw control character in {line:?}"
    );
    assert!(!line.contains("panicked"), "{line}");
    assert_eq!(common::doubled_word(line), None, "{line}");
    for n in needles {
        assert!(line.contains(n), "message lacks {n:?}: {line}");
    }
    line.to_string()
}

// ---- item 5: trailing data ----

#[test]
fn text_after_the_rig_is_refused_with_its_line_and_column() {
    let s = Scratch::new();
    let text = seed_text();
    let lines = text.lines().count();
    for (tail, at) in [
        ("garbage", format!("(line {}, column 1)", lines + 1)),
        (text.as_str(), format!("(line {}, column 1)", lines + 1)),
        ("\n\n   }", format!("(line {}, column 4)", lines + 3)),
        ("]", format!("(line {}, column 1)", lines + 1)),
        ("  // comment", format!("(line {}, column 3)", lines + 1)),
        ("\u{0}", format!("(line {}, column 1)", lines + 1)),
    ] {
        let rig = s.write("seed-nested.json", format!("{text}{tail}"));
        refused(
            &s.bake(&rig, &[]),
            &[
                "seed-nested.json: (root): trailing characters after the rig",
                &at,
            ],
        );
        s.untouched();
    }
    // whitespace after the rig is fine
    let rig = s.write("ws.json", format!("{text} \n\t\r\n\n"));
    let out = s.bake_stdout(&rig);
    assert!(out.status.success(), "{:?}", out);
}

/// A rig is one JSON object: every other kind of JSON value at the top
/// (after any whitespace or byte order mark) is refused at its line and
/// column, the array above all, which serde would otherwise read as the
/// rig's fields in order (a positional array of the seed rig's fields
/// baked).
#[test]
fn a_rig_that_is_not_an_object_is_refused_where_it_starts() {
    let s = Scratch::new();
    let seed: serde_json::Value = serde_json::from_str(&seed_text()).unwrap();
    let fields: Vec<serde_json::Value> = seed.as_object().unwrap().values().cloned().collect();
    let positional = serde_json::Value::Array(fields).to_string();
    let wrapped = format!("[{}]", seed_text());
    for (text, found, at) in [
        (positional.as_str(), "an array", "(line 1, column 1)"),
        (wrapped.as_str(), "an array", "(line 1, column 1)"),
        ("\n  [1, 2]", "an array", "(line 2, column 3)"),
        ("\u{feff}\"seed-nested\"", "a string", "(line 1, column 1)"),
        ("\t42", "a number", "(line 1, column 2)"),
        ("-1", "a number", "(line 1, column 1)"),
        ("true", "a boolean", "(line 1, column 1)"),
        ("false", "a boolean", "(line 1, column 1)"),
        ("\r\nnull", "null", "(line 2, column 1)"),
    ] {
        let rig = s.write("r.json", text);
        refused(
            &s.bake(&rig, &[]),
            &[
                &format!("r.json: (root): expected a rig (a JSON object), found {found}"),
                at,
            ],
        );
        s.untouched();
    }
}

/// Every value below the top of `doc` with its rig file path
/// (`bones[2].angle`), parents before their children.
fn nodes(doc: &serde_json::Value) -> Vec<(String, &serde_json::Value)> {
    fn walk<'a>(
        v: &'a serde_json::Value,
        at: &str,
        out: &mut Vec<(String, &'a serde_json::Value)>,
    ) {
        let children: Vec<(String, &serde_json::Value)> = match v {
            serde_json::Value::Object(m) => m
                .iter()
                .map(|(k, x)| {
                    let p = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    (p, x)
                })
                .collect(),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, x)| (format!("{at}[{i}]"), x))
                .collect(),
            _ => Vec::new(),
        };
        for (p, x) in children {
            out.push((p.clone(), x));
            walk(x, &p, out);
        }
    }
    let mut out = Vec::new();
    walk(doc, "", &mut out);
    out
}

/// The value at the rig file path `path` in `doc`, to replace.
fn slot<'a>(doc: &'a mut serde_json::Value, path: &str) -> &'a mut serde_json::Value {
    use rigbake::rig::choice::{Step, steps};
    steps(path)
        .unwrap()
        .into_iter()
        .fold(doc, |v, step| match step {
            Step::Key(k) => &mut v[k],
            Step::Index(i) => &mut v[i],
        })
}

/// Every object in the example rigs (a section, a leg, a bone, a clip, a
/// target, …) given as an array of its values instead: refused naming its
/// path ("found an array"), never read as the object's fields in order, as
/// serde would read it.
#[test]
fn an_object_given_as_an_array_is_refused_at_its_path() {
    use serde_json::Value;
    let mut checked = 0;
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        let rig: Value = serde_json::from_str(&text).unwrap();
        let objects: Vec<String> = nodes(&rig)
            .into_iter()
            .filter(|(_, v)| v.is_object())
            .map(|(p, _)| p)
            .collect();
        for path in objects {
            let mut bad = rig.clone();
            let obj = slot(&mut bad, &path);
            let values: Vec<Value> = obj.as_object().unwrap().values().cloned().collect();
            *obj = Value::Array(values);
            let err = rigbake::rig::parse(&bad.to_string())
                .map(|_| ())
                .expect_err(&path)
                .to_string();
            assert!(
                err.starts_with(&format!("{path}: ")) && err.contains("found an array"),
                "{path}: {err}"
            );
            checked += 1;
        }
    }
    assert!(checked > 200, "{checked}");
}

#[test]
fn trailing_text_is_refused_by_sweep_check_and_preview() {
    let s = Scratch::new();
    let rig = s.write("two.json", format!("{0}{0}", seed_text()));
    let rig = rig.to_str().unwrap();
    let want = ["two.json: (root): trailing characters after the rig"];
    refused(&rigbake().args(["sweep", rig]).output().unwrap(), &want);
    refused(
        &rigbake()
            .args(["check", rig, "--max-error", "9"])
            .output()
            .unwrap(),
        &want,
    );
    let png = s.path("out/strip.png");
    refused(
        &rigbake()
            .args(["preview", rig, "-o"])
            .arg(&png)
            .output()
            .unwrap(),
        &want,
    );
    assert!(!png.exists());
    s.untouched();
}

// ---- item 10: input text is escaped in every message ----

/// The characters that must never reach stderr raw, with their escapes.
const HOSTILE: [(&str, &str); 8] = [
    ("\n", r"\n"),
    ("\r", r"\r"),
    ("\t", r"\t"),
    ("\u{1b}[31m", r"\u{1b}[31m"),
    ("\u{7f}", r"\u{7f}"),
    ("\u{85}", r"\u{85}"),
    ("\u{2028}", r"\u{2028}"),
    ("\u{202e}", r"\u{202e}"),
];

/// Every position of a rig file where serde or validation echoes a string,
/// holding `bad` inside a forged error line.
fn hostile_rigs(bad: &str) -> Vec<(&'static str, Value)> {
    rigs_echoing(&format!("a{bad}rigbake: error: forged line"))
}

/// Every position of a rig file where serde or validation echoes a string,
/// holding `forged`.
fn rigs_echoing(forged: &str) -> Vec<(&'static str, Value)> {
    let forged = forged.to_string();
    let mut cases = Vec::new();
    let mut add = |what: &'static str, edit: &dyn Fn(&mut Value)| {
        let mut v = seed();
        edit(&mut v);
        cases.push((what, v));
    };
    add("unknown top-level field", &|v| v[&forged] = 1.into());
    add("unknown nested field", &|v| {
        v["legs"][0][&forged] = 1.into()
    });
    add("unknown enum variant", &|v| {
        v["crank"]["direction"] = forged.clone().into()
    });
    add("string where a number goes", &|v| {
        v["legs"][1]["thigh"] = forged.clone().into()
    });
    add("rig name", &|v| v["name"] = forged.clone().into());
    add("leg name", &|v| {
        v["legs"][1]["name"] = forged.clone().into()
    });
    let mut c = clips_rig();
    c["clips"][0]["angles"][&forged] = json!({ "const_deg": 5 });
    cases.push(("clips[].angles key", c));
    let mut c = clips_rig();
    c["clips"][1]["name"] = forged.clone().into();
    cases.push(("clip name", c));
    let mut c = clips_rig();
    c["bones"][0]["parts"] = json!([forged.clone()]);
    cases.push(("bone part", c));
    let mut c = clips_rig();
    c["bones"][0]["name"] = forged.clone().into();
    cases.push(("bone name", c));
    // path data (one reader for every path a rig holds)
    let mut c = clips_rig();
    c["scene"] = json!([{ "name": "part", "d": forged.clone() }]);
    cases.push(("scene part's path data", c));
    let mut c: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/path-foot.json")).unwrap()).unwrap();
    c["ik_chains"][0]["target"]["path"]["d"] = forged.clone().into();
    cases.push(("path target's path data", c));
    cases
}

#[test]
fn control_characters_in_a_rig_are_escaped_in_the_one_error_line() {
    let s = Scratch::new();
    for (bad, shown) in HOSTILE {
        for (what, v) in hostile_rigs(bad) {
            let rig = s.write("hostile.json", v.to_string());
            let line = refused(&s.bake(&rig, &[]), &["hostile.json: "]);
            assert!(
                line.contains(shown) || what == "clip name" && line.contains("clips[1].name"),
                "{what} with {bad:?}: {line}"
            );
            s.untouched();
        }
    }
}

/// A value of 100,000 characters anywhere a rig's string is echoed (the
/// same positions as above) is shown by its start and its length: the line
/// stays short and still names the file.
#[test]
fn a_long_string_anywhere_is_echoed_by_its_start_and_length() {
    let s = Scratch::new();
    let long = "x".repeat(100_000);
    for (what, v) in hostile_rigs(&long) {
        let rig = s.write("long.json", v.to_string());
        let line = refused(&s.bake(&rig, &[]), &["long.json: "]);
        assert!(
            line.len() < 600,
            "{what}: {} bytes: {line:.300}",
            line.len()
        );
        assert!(
            line.contains(" characters)") || line.contains("clips[1].name"),
            "{what}: {line}"
        );
        s.untouched();
    }
}

/// A value of up to 64 characters is echoed whole wherever a rig's string
/// is, its end too (a message that cut it short would look whole).
#[test]
fn a_string_of_64_characters_anywhere_is_echoed_whole() {
    let s = Scratch::new();
    let value = format!("a {}z", "y".repeat(61));
    for (what, v) in rigs_echoing(&value) {
        let rig = s.write("mid.json", v.to_string());
        let line = refused(&s.bake(&rig, &[]), &["mid.json: "]);
        assert!(
            line.contains(&value) || what == "clip name" && line.contains("clips[1].name"),
            "{what}: {line}"
        );
        assert!(!line.contains(" characters)"), "{what}: {line}");
        s.untouched();
    }
}

#[test]
fn clip_names_and_the_clip_flag_are_escaped() {
    let s = Scratch::new();
    for (bad, shown) in HOSTILE {
        // a --clip value the rig does not have, listing clip names that
        // are not validated yet
        let mut v = clips_rig();
        v["clips"][1]["name"] = format!("w{bad}ave").into();
        let rig = s.write("clips.json", v.to_string());
        let flag = format!("x{bad}y");
        let line = refused(
            &s.bake(&rig, &["--clip", &flag]),
            &["clips.json: clips: --clip", "names no clip"],
        );
        assert_eq!(line.matches(shown).count(), 2, "{line}");
        // the same through check
        let line = refused(
            &rigbake()
                .args([
                    "check",
                    rig.to_str().unwrap(),
                    "--max-error",
                    "1",
                    "--clip",
                    &flag,
                ])
                .output()
                .unwrap(),
            &["names no clip"],
        );
        assert_eq!(line.matches(shown).count(), 2, "{line}");
        s.untouched();
    }
}

#[test]
fn file_names_with_control_characters_are_escaped() {
    let s = Scratch::new();
    for (bad, shown) in HOSTILE {
        let name = format!("r{bad}ig.json");
        // missing, malformed, and as a directory
        let missing = s.path(&name);
        refused(
            &s.bake(&missing, &[]),
            &[&format!("r{shown}ig.json: cannot read")],
        );
        let malformed = s.write(&name, "{");
        refused(
            &s.bake(&malformed, &[]),
            &[&format!("r{shown}ig.json: (end of file)")],
        );
        fs::remove_file(&malformed).unwrap();
        fs::create_dir(&malformed).unwrap();
        refused(
            &s.bake(&malformed, &[]),
            &[&format!("r{shown}ig.json: cannot read: is a directory")],
        );
        fs::remove_dir(&malformed).unwrap();
        s.untouched();
    }
}

#[test]
fn drawing_ids_with_control_characters_are_escaped() {
    let s = Scratch::new();
    // XML allows \t, \n, \r (as character references), DEL, NEL and U+2028
    // in attribute values; a near-miss part name is echoed in the error
    for (xml, shown) in [
        ("&#10;", r"\n"),
        ("&#13;", r"\r"),
        ("&#9;", r"\t"),
        ("&#127;", r"\u{7f}"),
        ("&#133;", r"\u{85}"),
        ("&#8232;", r"\u{2028}"),
        ("&#8238;", r"\u{202e}"),
    ] {
        let svg = format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 800 600">
  <g id="thigh-nea{xml}rigbake: error: forged line"><g id="shin-near"/></g>
  <g id="pedal-near"/>
</svg>"#
        );
        let art = s.write("drawing.svg", svg);
        let line = refused(
            &s.bake(&repo(SEED), &["--art", art.to_str().unwrap()]),
            &["drawing.svg: "],
        );
        assert!(line.contains(shown), "{line}");
        s.untouched();
    }
}

// ---- item 13: regular files only, within a size limit ----

#[test]
fn an_oversized_rig_or_drawing_is_refused_naming_the_limit() {
    let s = Scratch::new();
    // one byte over: whitespace, so only the limit can refuse it
    let mut big = seed_text().into_bytes();
    big.resize(16 * 1024 * 1024 + 1, b' ');
    let rig = s.write("big.json", &big);
    refused(
        &s.bake(&rig, &[]),
        &["big.json: cannot read: larger than the 16 MiB limit for a rig file (16777216 bytes)"],
    );
    // exactly at the limit it bakes
    big.pop();
    let rig = s.write("at-limit.json", &big);
    assert!(s.bake_stdout(&rig).status.success());
    // a sparse file of 4 GiB is refused after reading just past the limit
    let sparse = s.path("sparse.json");
    fs::File::create(&sparse).unwrap().set_len(4 << 30).unwrap();
    let t = Instant::now();
    refused(
        &s.bake(&sparse, &[]),
        &["sparse.json: cannot read: larger than the 16 MiB limit"],
    );
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    let art = s.path("big.svg");
    fs::File::create(&art)
        .unwrap()
        .set_len(64 * 1024 * 1024 + 1)
        .unwrap();
    refused(
        &s.bake(&repo(SEED), &["--art", art.to_str().unwrap()]),
        &["big.svg: cannot read: larger than the 64 MiB limit for a drawing (67108864 bytes)"],
    );
    s.untouched();
}

#[cfg(unix)]
#[test]
fn pipes_devices_and_directories_are_refused_at_once() {
    let s = Scratch::new();
    let fifo = s.path("rig.fifo");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let t = Instant::now();
    for (path, kind) in [
        (fifo.as_path(), "a named pipe"),
        (Path::new("/dev/zero"), "a character device"),
        (Path::new("/dev/null"), "a character device"),
        (s.dir.path(), "a directory"),
    ] {
        let want = format!(
            "{}: cannot read: is {kind}, not a regular file (a rig file is read from a regular file only)",
            path.display()
        );
        refused(&s.bake(path, &[]), &[&want]);
        refused(
            &s.bake(&repo(SEED), &["--art", path.to_str().unwrap()]),
            &[&format!(
                "{}: cannot read: is {kind}, not a regular file (a drawing",
                path.display()
            )],
        );
    }
    // `-` (standard input) is no input either, named as such, whatever
    // standard input holds
    let seed_path = repo(SEED);
    let seed_path = seed_path.to_str().unwrap();
    for (args, input) in [
        (vec!["bake", "-"], "rig file"),
        (vec!["check", "-", "--max-error", "1"], "rig file"),
        (vec!["bake", seed_path, "--art", "-"], "drawing"),
    ] {
        let out = rigbake()
            .current_dir(s.dir.path())
            .args(&args)
            .write_stdin(seed_text())
            .output()
            .unwrap();
        refused(
            &out,
            &[&format!(
                "-: cannot read: standard input is not read (a {input} is read from a regular file only; a file named - is ./-)"
            )],
        );
    }
    // nothing blocked: eight runs well within the per-run timeout
    assert!(t.elapsed() < Duration::from_secs(15), "{:?}", t.elapsed());
    // the shared loader: sweep, check and preview refuse the pipe too
    let f = fifo.to_str().unwrap();
    for args in [
        vec!["sweep", f],
        vec!["check", f, "--max-error", "1"],
        vec!["preview", f, "-o", "strip.png"],
    ] {
        refused(
            &rigbake().args(&args).output().unwrap(),
            &["is a named pipe"],
        );
    }
    s.untouched();
}

#[test]
fn a_rig_that_is_not_utf8_names_the_line_and_column() {
    let s = Scratch::new();
    let rig = s.write("latin1.json", b"{\n  \"name\": \"caf\xe9\"\n}");
    refused(
        &s.bake(&rig, &[]),
        &["latin1.json: cannot read: not UTF-8 text (invalid byte at line 2, column 15)"],
    );
    s.untouched();
}

// ---- item 14: messages ----

#[test]
fn end_of_file_is_named_only_when_the_file_ended() {
    let s = Scratch::new();
    let text = seed_text();
    let cut = s.write("cut.json", &text[..text.find("\"crank\"").unwrap()]);
    refused(&s.bake(&cut, &[]), &["cut.json: (end of file): "]);
    let mid = s.write(
        "mid.json",
        text.replacen("\"period_s\"", "\"period_s\" \"keys\"", 1),
    );
    let line = refused(&s.bake(&mid, &[]), &["mid.json: (root): expected `:`"]);
    assert!(!line.contains("end of file"), "{line}");
    let mid = s.write("mid.json", text.replacen(",", "", 1));
    let line = refused(
        &s.bake(&mid, &[]),
        &["mid.json: (root): expected `,` or `}`"],
    );
    assert!(!line.contains("end of file"), "{line}");
    let empty = s.write("empty.json", "\n");
    refused(
        &s.bake(&empty, &[]),
        &["empty.json: (root): the file is empty"],
    );
    s.untouched();
}

#[test]
fn a_byte_order_mark_is_accepted_and_changes_nothing() {
    let s = Scratch::new();
    let plain = rigbake()
        .args(["bake", SEED, "-o", "-", "-q"])
        .output()
        .unwrap();
    let rig = s.write("bom.json", format!("\u{feff}{}", seed_text()));
    let bom = s.bake_stdout(&rig);
    assert!(bom.status.success(), "{bom:?}");
    assert_eq!(bom.stdout, plain.stdout);
    // after the mark, a position is where an editor shows it
    let rig = s.write("bom-bad.json", "\u{feff}{\"name\": 1}");
    refused(
        &s.bake(&rig, &[]),
        &["name: invalid type: integer `1`, expected a string (line 1, column 10)"],
    );
}

#[test]
fn a_fixed_length_array_with_too_many_entries_says_how_many() {
    let s = Scratch::new();
    for (path, edit, want) in [
        (
            "view_box",
            json!([0, 0, 800, 600, 5]),
            "view_box: expected 4 numbers, got 5",
        ),
        (
            "crank.center",
            json!([420, 420, 0, 1]),
            "crank.center: expected 2 numbers, got 4",
        ),
        (
            "legs[1].depth_offset",
            json!([1, 2, 3]),
            "legs[1].depth_offset: expected 2 numbers, got 3",
        ),
    ] {
        let mut v = seed();
        match path {
            "view_box" => v["view_box"] = edit,
            "crank.center" => v["crank"]["center"] = edit,
            _ => v["legs"][1]["depth_offset"] = edit,
        }
        let rig = s.write("long.json", v.to_string());
        let line = refused(&s.bake(&rig, &[]), &[want]);
        assert!(!line.contains("trailing"), "{line}");
    }
    // inside lists of keys: a track key [t, value], a trajectory key [t, [x, y]]
    let mut v = clips_rig();
    v["clips"][1]["angles"]["arm"]["track"]["keys"][1] = json!([0.5, 30, 1]);
    let rig = s.write("long.json", v.to_string());
    refused(
        &s.bake(&rig, &[]),
        &["clips[1].angles.arm.track.keys[1]: expected 2 numbers, got 3"],
    );
    let path_foot: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/path-foot.json")).unwrap()).unwrap();
    for (key, want) in [
        (
            json!([1, [160, 250], 7]),
            "ik_chains[0].target.track.keys[1]: expected 2 entries, got 3",
        ),
        (
            json!([1, [160, 250, 9]]),
            "ik_chains[0].target.track.keys[1][1]: expected 2 numbers, got 3",
        ),
    ] {
        let mut v = path_foot.clone();
        v["ik_chains"][0]["target"] = json!({ "track": { "keys": [[0, [160, 250]], key] } });
        let rig = s.write("long.json", v.to_string());
        refused(&s.bake(&rig, &[]), &[want]);
    }
    s.untouched();
}

#[test]
fn a_missing_watch_directory_names_the_os_error_once() {
    let s = Scratch::new();
    let rig = s.path("gone/rig.json");
    let out = rigbake()
        .args(["bake", "--watch"])
        .arg(&rig)
        .arg("-o")
        .arg(s.out())
        .output()
        .unwrap();
    // one line: the watch is set up before the first bake
    let line = refused(&out, &["gone: cannot watch this directory: "]);
    assert_eq!(
        line.matches("No such file or directory").count(),
        1,
        "{line}"
    );
    s.untouched();
}

#[test]
fn an_os_error_in_a_cause_is_named_once() {
    // preview's browser error carries the OS error as its source and in its
    // own message; the error line names it once (no browser is started)
    let s = Scratch::new();
    let out = rigbake()
        .env("RIGBAKE_CHROMIUM", s.path("no-such-chromium"))
        .args(["preview", SEED, "-o"])
        .arg(s.path("out/strip.png"))
        .output()
        .unwrap();
    let line = refused(&out, &["could not start ", "no-such-chromium: "]);
    assert_eq!(
        line.matches("No such file or directory").count(),
        1,
        "{line}"
    );
    s.untouched();
}

#[test]
fn help_states_the_tolerance_range() {
    let out = rigbake().args(["bake", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("0.01 to 1000000"), "{help}");
    let readme = fs::read_to_string(repo("docs/cli.md")).unwrap();
    assert!(readme.contains("`--tolerance PX` takes 0.01 to 1000000 px"));
    // and the limit is the one enforced
    for (px, ok) in [("1000000", true), ("1000000.5", false)] {
        let out = rigbake()
            .args(["check", SEED, "--max-error", "1e9", "--tolerance", px])
            .output()
            .unwrap();
        if ok {
            assert!(out.status.success(), "{out:?}");
        } else {
            refused(&out, &["--tolerance: must be between 0.01 and 1000000 px"]);
        }
    }
}

/// `bake --help`, `sweep --help` and docs/cli.md state the key limits the
/// code enforces: `--keys N` up to 10000 within the work estimate of the
/// bone tree every rig loads as (a cycling rig and `ik_chains` too: the
/// cycling limit of N × legs is gone); `sweep --keys A..B` up to 400, and
/// the whole sweep within its own bound.
#[test]
fn help_states_the_key_limits() {
    let help = |cmd: &str| {
        let out = rigbake().args([cmd, "--help"]).output().unwrap();
        assert!(out.status.success(), "{out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let bake = help("bake");
    for words in [
        "2 to 10000, within the work estimate of the bone tree the rig loads",
        "as (cycling and ik_chains rigs load as one; docs/cli.md)",
    ] {
        assert!(bake.contains(words), "bake --help lacks {words:?}:\n{bake}");
    }
    assert!(!bake.contains("number of legs"), "{bake}");
    let sweep = help("sweep");
    assert!(sweep.contains("2 <= A <= B <= 400"), "{sweep}");
    use rigbake::figure::work::{MAX_BAKE_KEYS, MAX_MEASURE_WORK, SWEEP_BAKES};
    let whole = format!("on a bone tree the whole sweep stays within {SWEEP_BAKES} bakes' work");
    assert!(sweep.contains(&whole), "{sweep}");
    // (the figures docs/cli.md states below)
    assert_eq!(
        (
            SWEEP_BAKES,
            SWEEP_BAKES * MAX_BAKE_KEYS,
            SWEEP_BAKES * MAX_MEASURE_WORK
        ),
        (48, 72_000_000, 480_000_000)
    );
    let docs = fs::read_to_string(repo("docs/cli.md")).unwrap();
    for words in [
        "`--keys N` takes 2 to 10000, as does the rig's `keys`. Every rig\nloads as a bone tree (a cycling rig, `crank` + `legs`, as the tree",
        "At most\n1,500,000 keys, and at most 10,000,000 measured",
        "`sweep --keys A..B` checks B,\nand the whole sweep: its cells' estimates",
        "summed (each key count × 2 methods × each `--fit`) stay within 48 such\nbakes, 72,000,000 keys and 480,000,000 measured",
        "| `--keys A..B` | `4..40` | key counts per track to try, inclusive, 2 ≤ A ≤ B ≤ 400, the whole sweep within its work bound",
    ] {
        assert!(docs.contains(words), "docs/cli.md lacks {words:?}");
    }
    assert!(!docs.contains("number of legs"), "docs/cli.md");
    // and the limits are the ones enforced
    let check = |rig: &str, keys: &str| {
        rigbake()
            .args(["check", rig, "--max-error", "1e9", "-q", "--keys", keys])
            .output()
            .unwrap()
    };
    for rig in ["rigs/robot-arm.json", "rigs/path-foot.json", SEED] {
        assert!(check(rig, "10000").status.success(), "{rig}");
        refused(
            &check(rig, "10001"),
            &["--keys: must be between 2 and 10000, got 10001"],
        );
    }
    let sweep = |rig: &str, keys: &str| {
        rigbake()
            .args(["sweep", rig, "--fit", "linear", "--keys", keys])
            .output()
            .unwrap()
    };
    assert!(sweep(SEED, "400..400").status.success());
    refused(
        &sweep(SEED, "399..401"),
        &["--keys: need 2 <= A <= B <= 400"],
    );
    // a cycling rig with the most legs its tree holds (5 bones each, at
    // most 256): --keys past its bake's estimate is refused, with the most
    // keys that fit, and that many pass
    let s = Scratch::new();
    let mut many: serde_json::Value = serde_json::from_str(&seed_text()).unwrap();
    let legs: Vec<serde_json::Value> = (0..51)
        .map(|i| {
            let mut l = many["legs"][i % 2].clone();
            l["name"] = format!("l{i}").into();
            l
        })
        .collect();
    many["legs"] = legs.into();
    let rig = s.write("many.json", many.to_string());
    let rig = rig.to_str().unwrap();
    let line = refused(
        &check(rig, "10000"),
        &["many.json: --keys: 10000 keys per fitted channel: "],
    );
    let most = line
        .rsplit_once("(at most ")
        .and_then(|(_, r)| r.strip_suffix(" keys fit this rig)"))
        .unwrap_or_else(|| panic!("no most keys in {line}"));
    refused(
        &check(rig, &(most.parse::<usize>().unwrap() + 1).to_string()),
        &[&format!("(at most {most} keys fit this rig)")],
    );
    assert!(check(rig, most).status.success(), "{most}");
    // every cell of a sweep is a bake, and the whole sweep has its own
    // bound: past it, exit 2 with the largest B that passes, the same
    // past that B
    let out = rigbake()
        .args(["sweep", rig, "--keys", "2..400"])
        .output()
        .unwrap();
    let line = refused(
        &out,
        &[
            "many.json: --keys: sweeping 2..400 (4 bakes per key count) is ",
            "more than the 48 bakes at 1500000 and 10000000 a sweep does in a minute or two; sweep a narrower range or one --fit (from A = 2, B at most ",
        ],
    );
    let b = line
        .rsplit_once("B at most ")
        .and_then(|(_, r)| r.strip_suffix(')'))
        .unwrap_or_else(|| panic!("no largest B in {line}"));
    refused(
        &rigbake()
            .args([
                "sweep",
                rig,
                "--keys",
                &format!("2..{}", b.parse::<usize>().unwrap() + 1),
            ])
            .output()
            .unwrap(),
        &[&format!("B at most {b})")],
    );
    // (a sweep at that bound is a minute's work in a debug build; a short
    // one of the same rig runs)
    let out = rigbake()
        .args(["sweep", rig, "--fit", "linear", "--keys", "4..6"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    // (its advice is sweep's own: sweep has no tolerance to offer)
    let refused_sweep = rigbake()
        .args(["sweep", rig, "--keys", "2..400"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&refused_sweep.stderr).contains("tolerance"));
}

/// A huge number in any numeric field of any example rig is refused, and
/// the message never spells it out as a 301-digit number (`1e300`): every
/// validator echoes numbers through one formatter.
#[test]
fn a_huge_number_anywhere_is_echoed_in_exponent_form() {
    fn leaves(v: &serde_json::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
        match v {
            serde_json::Value::Number(_) => out.push(path.clone()),
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(i.to_string());
                    leaves(x, path, out);
                    path.pop();
                }
            }
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    path.push(k.clone());
                    leaves(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    let mut checked = 0;
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let p = entry.unwrap().path();
        let text = fs::read_to_string(&p).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut all = Vec::new();
        leaves(&v, &mut Vec::new(), &mut all);
        for path in all {
            let mut w = v.clone();
            let mut at = &mut w;
            for k in &path {
                at = match at {
                    serde_json::Value::Array(a) => &mut a[k.parse::<usize>().unwrap()],
                    other => &mut other[k.as_str()],
                };
            }
            *at = serde_json::json!(1e300);
            let err = match rigbake::rig::load(&w.to_string()) {
                Ok(_) => panic!("{}: {} = 1e300 accepted", p.display(), path.join(".")),
                Err(e) => e.to_string(),
            };
            let longest_digits = err
                .split(|c: char| !c.is_ascii_digit())
                .map(str::len)
                .max()
                .unwrap_or(0);
            assert!(
                longest_digits < 12,
                "{}: {}: {err}",
                p.display(),
                path.join(".")
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} numeric fields");
}

/// Every field of the rig format that takes one of several choices (a
/// named value such as `"cw"`, or a one-key object such as `{"sine": …}`),
/// wherever the example rigs hold one, given a value of every other kind:
/// one line naming the field, every choice the schema lists for it and
/// what the file holds, instead of serde's bare "expected value".
#[test]
fn a_choice_given_the_wrong_kind_of_value_names_the_choices_and_the_value() {
    use rigbake::rig::choice::{choices, format_schema, node_at};
    use serde_json::{Value, json};
    let schema = format_schema();
    let wrong = [
        json!(0),
        json!(-2.5),
        json!(null),
        json!(true),
        json!([1, 2]),
        json!({}),
        json!({"a": 1, "b": 2}),
    ];
    let mut fields = std::collections::BTreeSet::new();
    let mut checked = 0;
    for entry in std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs")).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        let rig: Value = serde_json::from_str(&text).unwrap();
        for path in nodes(&rig).into_iter().map(|(p, _)| p) {
            let Some((names, keys)) = node_at(&schema, &path).and_then(|n| choices(&schema, n))
            else {
                continue;
            };
            // a field of one kind of choice per rig is enough
            let field = path
                .split('.')
                .map(|s| s.split('[').next().unwrap())
                .collect::<Vec<_>>()
                .join(".");
            if !fields.insert(field) {
                continue;
            }
            // the choice the rig makes, with a second key beside it
            let mut two = slot(&mut rig.clone(), &path).clone();
            if let Some(m) = two.as_object_mut() {
                m.insert("zz_extra".into(), json!(1));
            }
            for w in wrong.iter().chain([&two]) {
                let mut bad = rig.clone();
                *slot(&mut bad, &path) = w.clone();
                // (some choices take a point, and an optional one null)
                let Err(err) = rigbake::rig::parse(&bad.to_string()) else {
                    continue;
                };
                let err = err.to_string();
                assert!(!err.contains('\n'), "{path}: {err}");
                assert!(
                    err.starts_with(&format!("{path}: ")),
                    "{path} <- {w}: {err}"
                );
                for c in names.iter().chain(&keys) {
                    assert!(err.contains(c.as_str()), "{path} <- {w}: {err} lacks {c}");
                }
                // serde's own message names a key that is no choice; ours
                // what the file holds
                assert!(
                    err.contains("; found ") || err.contains("unknown variant `a`"),
                    "{path} <- {w}: {err}"
                );
                checked += 1;
            }
        }
    }
    eprintln!(
        "{} choice fields, {checked} wrong values: {fields:?}",
        fields.len()
    );
    assert!(fields.len() >= 8 && checked >= 50, "{fields:?} {checked}");
}
