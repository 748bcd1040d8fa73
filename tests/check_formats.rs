//! What CI reads: `check --format json` (one object, validated against the
//! published `schema/check.schema.json` with an independent validator),
//! `check --format junit` (parsed as XML), `check -q`, `bake --report -`,
//! and the mode `preview` gives its PNG under a umask.

use assert_cmd::Command;
use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;

const SCHEMA_URL: &str = "file:///rigbake/schema/check.schema.json";

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(repo("."));
    c
}

/// Every rig in `rigs/`, as relative paths (sorted).
fn all_rigs() -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(repo("rigs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".json"))
        .map(|n| format!("rigs/{n}"))
        .collect();
    v.sort();
    assert!(v.len() >= 10, "{v:?}");
    v
}

/// `rigbake check RIGS --max-error PX EXTRA...`
fn check(rigs: &[String], max_error: &str, extra: &[&str]) -> Output {
    rigbake()
        .arg("check")
        .args(rigs)
        .args(["--max-error", max_error])
        .args(extra)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The published schema, compiled as draft-07.
struct Schema {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Schema {
    fn load() -> Self {
        let text = fs::read_to_string(repo("schema/check.schema.json")).unwrap();
        let schema: Value = serde_json::from_str(&text).unwrap();
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V7);
        compiler.add_resource(SCHEMA_URL, schema).unwrap();
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .unwrap_or_else(|e| panic!("schema compiles: {e:#}"));
        Schema { schemas, index }
    }

    fn validate(&self, v: &Value) {
        if let Err(e) = self.schemas.validate(v, self.index) {
            panic!("output does not match schema/check.schema.json: {e:#}\n{v:#}");
        }
    }
}

/// Runs `check --format json`, validates the output against the schema and
/// checks what the schema cannot: the verdicts agree with the values, the
/// exit code and the stderr lines, and the results follow the arguments.
fn json_check(rigs: &[String], max_error: f64, routes: &[&str]) -> Value {
    let route = if routes.len() == 2 { "both" } else { routes[0] };
    let out = check(
        rigs,
        &max_error.to_string(),
        &["--format", "json", "--route", route],
    );
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}); stderr: {}", stderr(&out)));
    Schema::load().validate(&v);
    assert_eq!(v["version"], 4);
    assert_eq!(v["thresholds"]["max_error_px"], max_error);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), rigs.len() * routes.len());
    let mut failures = 0;
    for (i, r) in results.iter().enumerate() {
        assert_eq!(r["file"], rigs[i / routes.len()].as_str());
        assert_eq!(r["route"], routes[i % routes.len()]);
        let probes = r["probes"].as_array().unwrap();
        assert!(!probes.is_empty(), "{r:#}");
        let over: Vec<&Value> = probes
            .iter()
            .filter(|p| p["max_error_px"].as_f64().unwrap() > max_error)
            .collect();
        let failed = r["failures"].as_array().unwrap();
        assert_eq!(failed.len(), over.len(), "{r:#}");
        for (f, p) in failed.iter().zip(over) {
            for k in ["kind", "clip", "name"] {
                assert_eq!(f[k], p[k]);
            }
            assert_eq!(f["value"], p["max_error_px"]);
            assert_eq!(f["metric"], "max_error_px");
            assert_eq!(f["threshold"], max_error);
        }
        assert_eq!(r["ok"], failed.is_empty());
        let worst = probes
            .iter()
            .map(|p| p["max_error_px"].as_f64().unwrap())
            .fold(0.0, f64::max);
        assert_eq!(r["max_error_px"].as_f64().unwrap(), worst);
        failures += failed.len();
    }
    let ok = results.iter().all(|r| r["ok"] == true);
    assert_eq!(v["ok"], ok);
    assert_eq!(out.status.code(), Some(if ok { 0 } else { 1 }));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), failures, "{err}");
    assert!(
        err.lines()
            .all(|l| l.starts_with("rigbake: check failed: "))
    );
    v
}

#[test]
fn json_for_one_rig_is_one_object_that_matches_the_schema() {
    let rigs = ["rigs/seed-nested.json".to_string()];
    let v = json_check(&rigs, 100.0, &["css"]);
    assert_eq!(v["ok"], true);
    let r = &v["results"][0];
    assert_eq!(r["rig"], "seed-nested");
    assert_eq!(r["probes"][0]["kind"], "leg");
    assert_eq!(r["probes"][0]["name"], "near");
    // the default bake keeps every ankle within the default 0.25 px
    let near = r["probes"][0]["max_error_px"].as_f64().unwrap();
    assert!(0.0 < near && near <= 0.25, "{near}");

    let v = json_check(&rigs, 0.1, &["css", "smil"]);
    assert_eq!(v["ok"], false);
    let f = &v["results"][0]["failures"][0];
    assert_eq!(f["name"], "near");
    assert_eq!(
        f["message"],
        format!("leg near: max error {near} px > 0.1 px").as_str()
    );
}

/// Every rig of the repository, both routes: every kind of probe is
/// reported under the one vocabulary, at a threshold that fails some, one
/// that fails all, and one that passes all.
#[test]
fn json_for_every_rig_matches_the_schema_passing_and_failing() {
    let rigs = all_rigs();
    let v = json_check(&rigs, 0.05, &["css", "smil"]);
    let results = v["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ok"] == true));
    assert!(results.iter().any(|r| r["ok"] == false));
    let kinds: BTreeSet<&str> = results
        .iter()
        .flat_map(|r| r["probes"].as_array().unwrap())
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        BTreeSet::from(["bone", "chain", "leg", "rim", "spring", "target"])
    );
    // bone and rim probes name their clip, the others none
    for p in results.iter().flat_map(|r| r["probes"].as_array().unwrap()) {
        let in_clip = p["kind"] == "bone" || p["kind"] == "rim";
        assert_eq!(p["clip"].is_string(), in_clip, "{p}");
    }

    let v = json_check(&rigs, 0.0, &["css"]);
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ok"] == false)
    );
    let v = json_check(&rigs, 1000.0, &["css"]);
    assert_eq!(v["ok"], true);
}

/// The elements named `name` below `node`.
fn elements<'a, 'i>(node: roxmltree::Node<'a, 'i>, name: &str) -> Vec<roxmltree::Node<'a, 'i>> {
    node.descendants()
        .filter(|n| n.has_tag_name(name))
        .collect()
}

/// JUnit for every rig, failing and passing: a testcase per rig file and
/// route, a failure per exceeded threshold (the JSON's, one for one) whose
/// message names the probe, the value and the threshold.
#[test]
fn junit_has_a_testcase_per_rig_and_route_and_a_failure_per_exceeded_threshold() {
    let rigs = all_rigs();
    for (max, route, routes) in [
        ("0.05", "both", &["css", "smil"][..]),
        ("1000", "css", &["css"][..]),
    ] {
        let out = check(&rigs, max, &["--format", "junit", "--route", route]);
        let xml = String::from_utf8(out.stdout.clone()).unwrap();
        let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
        let root = doc.root_element();
        assert_eq!(root.tag_name().name(), "testsuites");
        let suites = elements(root, "testsuite");
        assert_eq!(suites.len(), rigs.len());
        for (s, rig) in suites.iter().zip(&rigs) {
            assert_eq!(s.attribute("name"), Some(rig.as_str()));
            let cases = elements(*s, "testcase");
            assert_eq!(s.attribute("tests"), Some(cases.len().to_string().as_str()));
            assert_eq!(cases.len(), routes.len());
            for (c, r) in cases.iter().zip(routes) {
                assert!(c.attribute("name").unwrap().ends_with(&format!("({r})")));
                assert_eq!(c.attribute("file"), Some(rig.as_str()));
            }
        }

        let json: Value = serde_json::from_slice(
            &check(&rigs, max, &["--format", "json", "--route", route]).stdout,
        )
        .unwrap();
        let cases = elements(root, "testcase");
        let results = json["results"].as_array().unwrap();
        assert_eq!(cases.len(), results.len());
        let mut failing_cases = 0;
        for (c, r) in cases.iter().zip(results) {
            let failures = elements(*c, "failure");
            let want = r["failures"].as_array().unwrap();
            assert_eq!(failures.len(), want.len(), "{}", r["rig"]);
            failing_cases += usize::from(!want.is_empty());
            for (f, w) in failures.iter().zip(want) {
                let msg = f.attribute("message").unwrap();
                assert_eq!(msg, w["message"].as_str().unwrap());
                assert!(msg.contains(w["name"].as_str().unwrap()), "{msg}");
                assert!(msg.contains(&format!("{} px >", w["value"])), "{msg}");
                assert!(msg.ends_with(&format!("> {max} px")), "{msg}");
                assert_eq!(f.attribute("type"), Some("max_error_px"));
            }
        }
        assert_eq!(
            root.attribute("failures"),
            Some(failing_cases.to_string().as_str())
        );
        let failed = json["ok"] == false;
        assert_eq!(failed, max == "0.05");
        assert_eq!(out.status.code(), Some(if failed { 1 } else { 0 }));
    }
}

/// A file given twice is two suites of JUnit (no suite holds two cases of
/// one name), and what a check did not measure is said in every format:
/// on the smil route a rig with clips writes and checks its first clip
/// only, which the JSON's `notes` and the JUnit case's output state.
#[test]
fn junit_suites_per_file_given_and_notes_in_every_format() {
    let rigs = vec![
        "rigs/robot-arm.json".to_string(),
        "rigs/robot-arm.json".to_string(),
        "rigs/stickman.json".to_string(),
    ];
    let out = check(&rigs, "4", &["--format", "junit", "--route", "both"]);
    let xml = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let suites = elements(doc.root_element(), "testsuite");
    assert_eq!(suites.len(), 3, "{xml}");
    for s in &suites {
        let names: BTreeSet<&str> = elements(*s, "testcase")
            .iter()
            .map(|c| c.attribute("name").unwrap())
            .collect();
        assert_eq!(names.len(), 2, "{xml}");
    }
    let first_clip_only = "only the first clip (walk) is written";
    let stickman = elements(suites[2], "testcase");
    let smil_out = elements(stickman[1], "system-out")[0].text().unwrap();
    assert!(smil_out.contains(first_clip_only), "{smil_out}");
    let css_out = elements(stickman[0], "system-out")[0].text().unwrap();
    assert!(!css_out.contains(first_clip_only), "{css_out}");

    let out = check(&rigs[2..], "4", &["--format", "json", "--route", "both"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let notes = |i: usize| -> Vec<String> {
        v["results"][i]["notes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap().to_string())
            .collect()
    };
    assert!(!notes(0).iter().any(|n| n.contains(first_clip_only)));
    assert!(
        notes(1).iter().any(|n| n.contains(first_clip_only)),
        "{:?}",
        notes(1)
    );
}

/// Echoed strings are escaped: a rig file whose path holds XML's special
/// characters comes back intact from a parser, in attributes and text.
#[test]
fn junit_escapes_the_file_path() {
    let dir = tempfile::tempdir().unwrap();
    let name = "a&b<c>\"d'e.json";
    let path = dir.path().join(name);
    fs::copy(repo("rigs/seed-nested.json"), &path).unwrap();
    let p = path.to_str().unwrap().to_string();
    // the seed's 10 uniform keys: 3.5 px (3.5316 as the bone tree it
    // loads as, 3.5293 with the cycling engine)
    let out = check(
        std::slice::from_ref(&p),
        "1",
        &["--format", "junit", "--keys", "10"],
    );
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap_or_else(|e| panic!("{e}\n{xml}"));
    let case = elements(doc.root_element(), "testcase")[0];
    assert_eq!(case.attribute("file"), Some(p.as_str()));
    assert_eq!(
        elements(doc.root_element(), "testsuite")[0].attribute("name"),
        Some(p.as_str())
    );
    let f = elements(case, "failure")[0];
    assert!(
        f.text()
            .unwrap()
            .contains("leg near: max error 3.5316 px > 1 px")
    );
}

/// `check -q`: nothing on stdout or stderr, the exit code says it; bad
/// input still one line on stderr with exit 2; -q with --format is a usage
/// error.
/// Every threshold `check` echoes (the ok line, each failure, the JSON and
/// JUnit documents) is written compactly whatever its size: 1e308 and
/// 1e-320 in exponent form, not 309 or 320 digits, and −0 as 0.
#[test]
fn thresholds_are_echoed_compactly() {
    let seed = ["rigs/seed-nested.json".to_string()];
    for (given, shown) in [("1e308", "1e308"), ("1e-320", "1e-320"), ("-0", "0")] {
        for slip in [None, Some(given)] {
            let extra: Vec<&str> = match slip {
                Some(s) => vec!["--max-slip", s],
                None => vec![],
            };
            let out = check(&seed, given, &extra);
            let (text, err) = (String::from_utf8_lossy(&out.stdout), stderr(&out));
            let echo = if given == "1e308" {
                text.lines().last().unwrap_or("").to_string()
            } else {
                err.lines().next().unwrap_or("").to_string()
            };
            assert!(echo.contains(&format!(" {shown} px")), "{given}: {echo}");
            assert!(
                echo.len() < 200 && !echo.contains("-0 px"),
                "{given}: {echo}"
            );
            let mut with = extra.clone();
            with.extend(["--format", "json"]);
            let doc: Value = serde_json::from_slice(&check(&seed, given, &with).stdout).unwrap();
            let th = &doc["thresholds"]["max_error_px"];
            assert!(th.as_f64().unwrap().is_sign_positive(), "{given}: {th}");
            with.pop();
            with.push("junit");
            let xml = String::from_utf8(check(&seed, given, &with).stdout).unwrap();
            assert!(
                xml.contains(&format!("name=\"max_error_px\" value=\"{shown}\"")),
                "{given}: {xml}"
            );
            assert!(xml.lines().all(|l| l.len() < 300), "{given}: {xml}");
        }
    }
}

/// Every format states the verdict on stdout: a failing text check ends
/// its measurements with a `failed:` line counting the exceeded
/// thresholds (one stderr line each), a passing one with `ok:`; over
/// several rigs and both routes, one failing, one passing.
#[test]
fn text_check_states_the_verdict_on_stdout_passing_or_failing() {
    for (rigs, max_error, failing) in [
        (vec!["rigs/seed-nested.json".to_string()], "0.1", true),
        (
            vec![
                "rigs/seed-nested.json".to_string(),
                "rigs/robot-arm.json".to_string(),
            ],
            "0.21",
            true,
        ),
        (vec!["rigs/robot-arm.json".to_string()], "4", false),
    ] {
        let out = check(&rigs, max_error, &["--route", "both"]);
        let text = String::from_utf8(out.stdout.clone()).unwrap();
        // (after a failure, a hint on --tolerance)
        let mut lines = text.lines().rev();
        let mut last = lines.next().unwrap();
        if failing {
            assert_eq!(
                last,
                format!(
                    "hint: rigs are baked to keep 0.25 px or their own tolerance_px; --tolerance {max_error} bakes them to keep {max_error} px (or says it cannot)"
                ),
            );
            last = lines.next().unwrap();
        }
        let failures = stderr(&out)
            .lines()
            .filter(|l| l.starts_with("rigbake: check failed: "))
            .count();
        if failing {
            assert_eq!(out.status.code(), Some(1), "{rigs:?}");
            assert!(failures > 0);
            let s = if failures == 1 { "" } else { "s" };
            let their = if failures == 1 {
                "its threshold"
            } else {
                "their thresholds"
            };
            assert_eq!(
                last,
                format!("failed: {failures} figure{s} over {their} (each on stderr)"),
                "{rigs:?}"
            );
        } else {
            assert_eq!(out.status.code(), Some(0), "{rigs:?}");
            assert_eq!(failures, 0);
            assert!(
                last.starts_with("ok: every measured error within 4 px"),
                "{last}"
            );
        }
        assert_eq!(
            text.lines()
                .filter(|l| l.starts_with("ok: ") || l.starts_with("failed: "))
                .count(),
            1,
            "{text}"
        );
    }
}

/// The hint names what the bake kept: with `--keys`, that uniform keys
/// bound nothing (and `--tolerance` replaces them); none below the 0.01 px
/// `--tolerance` takes, none when `--tolerance` was given.
#[test]
fn the_text_hint_follows_the_keying_asked() {
    let seed = vec!["rigs/seed-nested.json".to_string()];
    let last = |max: &str, extra: &[&str]| -> Vec<String> {
        let out = check(&seed, max, extra);
        assert_eq!(out.status.code(), Some(1));
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines().rev().take(2).map(str::to_string).collect()
    };
    let keys = last("1", &["--keys", "10"]);
    assert_eq!(
        keys[0],
        "hint: --keys N writes uniform keys, with no bound on the error; --tolerance 1 instead of --keys bakes them to keep 1 px (or says it cannot)"
    );
    for (max, extra) in [("0.005", &[][..]), ("0.05", &["--tolerance", "0.1"][..])] {
        let l = last(max, extra);
        assert!(l[0].starts_with("failed: "), "{max} {extra:?}: {l:?}");
    }
}

/// A rig with clips names every probe by its clip on either route: the
/// same kinds and names in `check --clip NAME` on css and on smil (its
/// chain is `walk:hair` on both).
#[test]
fn a_clip_rig_names_its_probes_alike_on_both_routes() {
    let rigs = vec!["rigs/stickman.json".to_string()];
    let names = |route: &str| -> BTreeSet<(String, String)> {
        let out = check(
            &rigs,
            "4",
            &["--clip", "walk", "--route", route, "--format", "json"],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        v["results"][0]["probes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["kind"].as_str().unwrap().to_string(),
                    p["name"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let (css, smil) = (names("css"), names("smil"));
    assert_eq!(css, smil);
    assert!(
        css.contains(&("chain".to_string(), "walk:hair".to_string())),
        "{css:?}"
    );
}

#[test]
fn quiet_check_prints_nothing_and_exits_with_the_verdict() {
    let rigs = ["rigs/seed-nested.json".to_string()];
    for (max, code) in [("100", 0), ("0.1", 1)] {
        for q in ["-q", "--quiet"] {
            let out = check(&rigs, max, &[q, "--route", "both"]);
            assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
            assert!(out.stdout.is_empty());
            assert!(out.stderr.is_empty(), "{}", stderr(&out));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{\"name\": 3}").unwrap();
    let out = check(&[bad.to_str().unwrap().into()], "1", &["-q"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("rigbake: error: ") && err.contains("bad.json"),
        "{err}"
    );

    let out = check(&rigs, "1", &["-q", "--format", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

/// Bad input under the machine formats: exit 2, one stderr line, and not
/// a byte of a half document on stdout.
#[test]
fn bad_input_prints_no_document() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.json");
    fs::write(&bad, "{").unwrap();
    let rigs = [
        "rigs/seed-nested.json".to_string(),
        bad.to_str().unwrap().to_string(),
    ];
    for format in ["json", "junit", "text"] {
        let out = check(&rigs, "1", &["--format", format]);
        assert_eq!(out.status.code(), Some(2), "{format}");
        assert!(out.stdout.is_empty(), "{format}");
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("bad.json"), "{err}");
    }
}

/// `bake --report -`: the JSON report on stdout, the summary on stderr, no
/// file named `-`; the SVG still goes where -o says. With -q the report is
/// still printed (it was asked for), the summary not.
#[test]
fn bake_report_dash_writes_the_report_to_stdout() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    for quiet in [false, true] {
        let out = rigbake()
            .current_dir(d)
            .arg("bake")
            .arg(repo("rigs/seed-nested.json"))
            .args(["-o", "out", "--report", "-", "--route", "both"])
            .args(if quiet { &["-q"][..] } else { &[][..] })
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v.as_array().unwrap().len(), 2);
        assert_eq!(v[0]["rig"], "seed-nested");
        let err = stderr(&out);
        assert_eq!(err.contains("seed-nested (css"), !quiet, "{err}");
        assert!(!d.join("-").exists());
        assert!(d.join("out/seed-nested.svg").is_file());
        assert!(d.join("out/seed-nested.smil.svg").is_file());
    }
}

/// `-o -` and `--report -` together would mix SVG and JSON on stdout: exit
/// 2 with one line, nothing written or printed, on the plain and the
/// `--art` route; `--watch --report -` is refused too.
#[test]
fn report_and_svg_both_on_stdout_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    fs::write(d.join("old.json"), "old").unwrap();
    let seed = repo("rigs/seed-nested.json");
    let art = repo("tests/fixtures/art/cyclist.svg");
    let runs: [Vec<&std::ffi::OsStr>; 3] = [
        vec![seed.as_os_str(), "-o".as_ref(), "-".as_ref()],
        vec![
            seed.as_os_str(),
            "--art".as_ref(),
            art.as_os_str(),
            "-o".as_ref(),
            "-".as_ref(),
        ],
        vec![
            seed.as_os_str(),
            "--watch".as_ref(),
            "-o".as_ref(),
            "out".as_ref(),
        ],
    ];
    for args in runs {
        let out = rigbake()
            .current_dir(d)
            .arg("bake")
            .args(&args)
            .args(["--report", "-"])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("rigbake: error: ") && err.contains("--report -"),
            "{err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        let names: Vec<_> = fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["old.json"], "{args:?}");
    }
}

/// A fake Chromium for `preview`: writes a PNG signature where
/// `--screenshot=` points and prints an empty result page.
fn fake_chromium(dir: &Path) -> PathBuf {
    let fake = dir.join("fake-chromium");
    fs::write(
        &fake,
        "#!/bin/sh\n\
         for a in \"$@\"; do\n\
           case \"$a\" in --screenshot=*) printf '\\211PNG\\r\\n\\032\\n' > \"${a#--screenshot=}\";; esac\n\
         done\n\
         echo '<pre id=\"rigbake-out\">{\"ok\":true,\"result\":[]}</pre>'\n",
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    fake
}

/// `preview` creates its PNG with 0666 minus the umask, like any new file
/// (and like `bake`'s SVG and `lower`'s JSON beside it).
#[test]
fn preview_png_honours_the_umask() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let fake = fake_chromium(d);
    for (umask, mode) in [("022", 0o644), ("002", 0o664), ("077", 0o600)] {
        for name in ["strip.png", "out/seed-nested.svg", "tree.json"] {
            let _ = fs::remove_file(d.join(name));
        }
        for args in [
            vec!["preview", "RIG", "-o", "strip.png"],
            vec!["bake", "RIG", "-o", "out"],
            vec!["lower", "RIG", "-o", "tree.json"],
        ] {
            let out = std::process::Command::new("sh")
                .current_dir(d)
                .env("RIGBAKE_CHROMIUM", &fake)
                .arg("-c")
                .arg(format!("umask {umask} && exec \"$@\""))
                .arg("sh")
                .arg(env!("CARGO_BIN_EXE_rigbake"))
                .args(args.iter().map(|a| {
                    if *a == "RIG" {
                        repo("rigs/seed-nested.json").into_os_string()
                    } else {
                        a.into()
                    }
                }))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        }
        for name in ["strip.png", "out/seed-nested.svg", "tree.json"] {
            let m = fs::metadata(d.join(name)).unwrap().permissions().mode() & 0o777;
            assert_eq!(m, mode, "umask {umask}: {name} has {m:o}");
        }
        let png = fs::read(d.join("strip.png")).unwrap();
        assert!(png.starts_with(b"\x89PNG"));
    }
}

/// The new stdout writers fail like every other: standard output full is
/// exit 2 with one line naming it.
#[test]
fn a_full_standard_output_is_an_error_for_the_ci_formats_and_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let seed = repo("rigs/seed-nested.json");
    let seed = seed.to_str().unwrap();
    for args in [
        vec!["check", seed, "--max-error", "100", "--format", "junit"],
        vec!["check", seed, "--max-error", "1", "--format", "json"],
        vec!["bake", seed, "-o", "out", "--report", "-", "-q"],
        vec!["lower", seed],
    ] {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigbake"))
            .current_dir(dir.path())
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with("rigbake: error: standard output"), "{err}");
        assert!(err.contains("No space left"), "{err}");
    }
}
