//! `check` holds feet to the ground and effectors to the targets the rig
//! asked for: foot slip per step (`--max-slip`, default 0.5 px) and the
//! distance between a gait's target and the pulled-back point the solver
//! aimed at (`--max-reach`, default `--max-error`) fail the check like a
//! max error does, in the text, JSON and JUnit reports.

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn read(rel: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(rel)).unwrap()).unwrap()
}

/// `rigbake check RIG ARGS...` run in the repository.
fn check(rig: &Path, args: &[&str]) -> Output {
    Command::cargo_bin("rigbake")
        .unwrap()
        .current_dir(repo("."))
        .arg("check")
        .arg(rig)
        .args(args)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Writes `v` as `<name>.json` in a fresh temporary directory.
fn write_rig(dir: &tempfile::TempDir, name: &str, v: &Value) -> PathBuf {
    let p = dir.path().join(format!("{name}.json"));
    fs::write(&p, serde_json::to_string_pretty(v).unwrap()).unwrap();
    p
}

/// A bone-tree gait rig (walker, jogger, runner) with both shins (and
/// thighs) set to `len`: the gait's targets move out of reach.
fn shortened_figure(rel: &str, len: f64) -> Value {
    let mut v = read(rel);
    for b in v["bones"].as_array_mut().unwrap() {
        let name = b["name"].as_str().unwrap().to_owned();
        if name.starts_with("thigh_") || name.starts_with("shin_") {
            b["length"] = len.into();
        }
    }
    v
}

/// The `ik_chains` walker with both legs set to `len`.
fn shortened_chains(len: f64) -> Value {
    let mut v = read("tests/fixtures/ik_chains/walker.json");
    for c in v["ik_chains"].as_array_mut().unwrap() {
        c["thigh"] = len.into();
        c["shin"] = len.into();
    }
    v
}

/// The legs of a rig that its check failed, as named on stderr for `what`
/// (`foot slip` or `target out of reach`).
fn failed_legs(err: &str, what: &str) -> Vec<String> {
    err.lines()
        .filter(|l| l.contains(what))
        .map(|l| {
            let rest = l.split(" leg ").nth(1).unwrap_or_else(|| panic!("{l}"));
            rest.split(':').next().unwrap().to_owned()
        })
        .collect()
}

/// The case: the walker with legs shortened from 37 to 30 measures
/// its effectors to within 0.04 px of the pulled-back target, yet it
/// slides 7.7 px per step and hovers 13 px short of the ground. `check
/// --max-error 1` fails, naming the slip and the reach of each leg.
#[test]
fn shortened_walker_fails_on_slip_and_reach_naming_each_leg() {
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(&dir, "walker", &shortened_figure("rigs/walker.json", 30.0));
    let out = check(&rig, &["--max-error", "1"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.lines()
            .all(|l| l.starts_with("rigbake: check failed: walker (css) leg ")),
        "{err}"
    );
    for what in ["foot slip", "target out of reach"] {
        assert_eq!(
            failed_legs(&err, what),
            ["thigh_f-shin_f", "thigh_n-shin_n"],
            "{err}"
        );
    }
    let slip = err.lines().find(|l| l.contains("foot slip")).unwrap();
    assert!(slip.ends_with("px/step > 0.5 px"), "{slip}");
    let v = common::number_after(slip, "foot slip ");
    assert!((7.0..8.5).contains(&v), "{slip}");
    // only slip and reach failed: with both thresholds out of the way it passes
    let out = check(
        &rig,
        &[
            "--max-error",
            "1",
            "--max-slip",
            "100",
            "--max-reach",
            "100",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // the text report shows both figures on the leg lines
    let text = String::from_utf8(out.stdout).unwrap();
    let leg = text.lines().find(|l| l.contains("thigh_n-shin_n")).unwrap();
    assert!(
        leg.contains("slip 7.") && leg.contains("target out of reach by 13."),
        "{leg}"
    );
}

/// Slip is per step: the shortened walker played as two steps per loop
/// (twice the period, `cycles` 2 on both gaits and the bob, twice the
/// ground's dots) slides as far per step as with one, on both routes
/// (summed over the loop it read twice as much, and slides one way on one
/// step and back on another would have cancelled out).
#[test]
fn slip_is_measured_per_step_whatever_the_steps_per_loop() {
    let one = shortened_figure("rigs/walker.json", 30.0);
    let mut two = one.clone();
    two["period_s"] = (one["period_s"].as_f64().unwrap() * 2.0).into();
    for k in two["ik"].as_array_mut().unwrap() {
        k["target"]["gait"]["cycles"] = 2.into();
    }
    two["root"]["move"]["bob"]["cycles"] = 2.into();
    two["ground"]["dots_per_period"] =
        (one["ground"]["dots_per_period"].as_u64().unwrap() * 2).into();
    let dir = tempfile::tempdir().unwrap();
    let slip = |v: &Value, name: &str| -> Vec<f64> {
        let rig = write_rig(&dir, name, v);
        let out = check(
            &rig,
            &[
                "--route",
                "both",
                "--max-error",
                "100",
                "--max-slip",
                "100",
                "--max-reach",
                "100",
                "--format",
                "json",
            ],
        );
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let j: Value = serde_json::from_slice(&out.stdout).unwrap();
        j["results"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["probes"].as_array().unwrap())
            .filter_map(|p| p["max_slip_px"].as_f64())
            .collect()
    };
    let (a, b) = (slip(&one, "one"), slip(&two, "two"));
    assert_eq!((a.len(), b.len()), (4, 4), "two legs, two routes");
    for (a, b) in a.iter().zip(&b) {
        assert!(*a > 7.0, "{a}");
        assert!(
            (a - b).abs() <= 0.05 * a,
            "one step per loop {a} px, two {b} px"
        );
    }
}

/// The family: every gait rig, bone-tree (walker, jogger, runner) or
/// `ik_chains`, on both routes, fails once its legs are too short for its
/// stride, and each of its legs is named for slip and for reach.
#[test]
fn every_gait_rig_with_short_legs_fails_on_both_routes() {
    let dir = tempfile::tempdir().unwrap();
    let mut rigs = Vec::new();
    for (name, rel, len) in [
        ("walker", "rigs/walker.json", 31.0),
        ("jogger", "rigs/jogger.json", 31.0),
        ("runner", "rigs/runner.json", 31.0),
    ] {
        let legs = vec!["thigh_f-shin_f", "thigh_n-shin_n"];
        rigs.push((
            name,
            write_rig(&dir, name, &shortened_figure(rel, len)),
            legs,
        ));
    }
    rigs.push((
        "chains",
        write_rig(&dir, "chains", &shortened_chains(31.0)),
        vec!["near", "far"],
    ));
    for (name, rig, legs) in rigs {
        let out = check(&rig, &["--max-error", "4", "--route", "both"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        for route in ["css", "smil"] {
            let lines: String = err
                .lines()
                .filter(|l| l.contains(&format!("({route})")))
                .map(|l| format!("{l}\n"))
                .collect();
            for what in ["foot slip", "target out of reach"] {
                let mut got = failed_legs(&lines, what);
                got.sort();
                let mut want: Vec<String> = legs.iter().map(|s| s.to_string()).collect();
                want.sort();
                assert_eq!(got, want, "{name} {route} {what}: {err}");
            }
        }
    }
}

/// Slip alone fails too: a ground that scrolls at the wrong speed (the
/// stride × cadence bug, forgetting ÷ duty) leaves every target in reach,
/// and the walker still skates.
#[test]
fn a_ground_at_the_wrong_speed_fails_on_slip_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut v = read("rigs/walker.json");
    let g = v["ground"].as_object_mut().unwrap();
    g.remove("follow");
    // stride 44 px at 1.5 steps/s
    g.insert("speed_px_s".into(), (44.0 * 1.5).into());
    let rig = write_rig(&dir, "walker", &v);
    let out = check(&rig, &["--max-error", "4"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(
        failed_legs(&err, "foot slip"),
        ["thigh_f-shin_f", "thigh_n-shin_n"]
    );
    assert!(failed_legs(&err, "target out of reach").is_empty(), "{err}");
    assert_eq!(err.lines().count(), 2, "{err}");
}

/// Every rig in `rigs/` passes `check` at the default `--max-slip` and
/// `--max-reach`, on both routes, with the `--max-error` the docs use.
#[test]
fn every_rig_passes_at_the_defaults() {
    let rigs = common::example_rigs();
    assert!(rigs.len() >= 10);
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("check")
        .args(&rigs)
        .args(["--max-error", "4", "--route", "both", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["thresholds"]["max_slip_px"], 0.5);
    assert_eq!(v["thresholds"]["max_reach_px"], 4.0);
    // the gait rigs really were measured for slip and reach
    let measured = |field: &str| {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|r| r["probes"].as_array().unwrap())
            .filter(|p| p[field].is_number())
            .count()
    };
    assert!(measured("max_slip_px") >= 12, "{v:#}");
    assert!(measured("max_reach_px") >= 12, "{v:#}");
}

/// The failing JSON validates against the published schema, and each
/// failure names its metric, the probe's value and the threshold of the
/// same name; `--max-reach` defaults to `--max-error` and can be set apart.
#[test]
fn json_of_a_failing_walker_validates_and_names_each_metric() {
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(&dir, "walker", &shortened_figure("rigs/walker.json", 30.0));
    let schema: Value =
        serde_json::from_str(&fs::read_to_string(repo("schema/check.schema.json")).unwrap())
            .unwrap();
    let url = "file:///rigbake/schema/check.schema.json";
    let mut compiler = boon::Compiler::new();
    compiler.add_resource(url, schema).unwrap();
    let mut schemas = boon::Schemas::new();
    let index = compiler.compile(url, &mut schemas).unwrap();
    for (args, reach) in [
        (vec!["--max-error", "1"], 1.0),
        (
            vec![
                "--max-error",
                "1",
                "--max-reach",
                "20",
                "--max-slip",
                "0.25",
            ],
            20.0,
        ),
    ] {
        let mut args = args.clone();
        args.extend(["--format", "json", "--route", "both"]);
        let out = check(&rig, &args);
        assert_eq!(out.status.code(), Some(1));
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        if let Err(e) = schemas.validate(&v, index) {
            panic!("does not match the schema: {e:#}\n{v:#}");
        }
        assert_eq!(v["version"], 4);
        assert_eq!(v["thresholds"]["max_reach_px"], reach);
        let mut metrics = std::collections::BTreeSet::new();
        for r in v["results"].as_array().unwrap() {
            assert_eq!(r["ok"], false);
            for f in r["failures"].as_array().unwrap() {
                let metric = f["metric"].as_str().unwrap();
                metrics.insert(metric.to_owned());
                let p = r["probes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|p| p["kind"] == f["kind"] && p["name"] == f["name"])
                    .unwrap();
                assert_eq!(f["value"], p[metric], "{f:#}");
                assert_eq!(f["threshold"], v["thresholds"][metric], "{f:#}");
                assert!(f["value"].as_f64().unwrap() > f["threshold"].as_f64().unwrap());
            }
        }
        let want: Vec<&str> = if reach > 13.1 {
            vec!["max_slip_px"]
        } else {
            vec!["max_reach_px", "max_slip_px"]
        };
        assert_eq!(metrics.iter().map(String::as_str).collect::<Vec<_>>(), want);
    }
}

/// JUnit carries the slip and reach failures and thresholds too.
#[test]
fn junit_of_a_failing_walker_lists_slip_and_reach() {
    let dir = tempfile::tempdir().unwrap();
    let rig = write_rig(&dir, "walker", &shortened_figure("rigs/walker.json", 30.0));
    let out = check(&rig, &["--max-error", "1", "--format", "junit"]);
    assert_eq!(out.status.code(), Some(1));
    let xml = String::from_utf8(out.stdout).unwrap();
    let doc = roxmltree::Document::parse(&xml).unwrap();
    let types: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("failure"))
        .map(|n| n.attribute("type").unwrap())
        .collect();
    assert_eq!(
        types,
        ["max_slip_px", "max_reach_px", "max_slip_px", "max_reach_px"]
    );
    let props: Vec<(&str, &str)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("property"))
        .map(|n| (n.attribute("name").unwrap(), n.attribute("value").unwrap()))
        .collect();
    assert_eq!(
        props,
        [
            ("max_error_px", "1"),
            ("max_slip_px", "0.5"),
            ("max_reach_px", "1")
        ]
    );
}

/// A threshold that is no number ≥ 0 is a usage error: exit 2, one line.
#[test]
fn bad_slip_or_reach_threshold_is_refused() {
    for flag in ["--max-slip", "--max-reach"] {
        for bad in ["-1", "NaN", "inf"] {
            let arg = format!("{flag}={bad}");
            let out = check(&repo("rigs/walker.json"), &["--max-error", "1", &arg]);
            let err = stderr(&out);
            assert_eq!(out.status.code(), Some(2), "{arg}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(
                err.starts_with(&format!("rigbake: error: {flag}: ")),
                "{err}"
            );
            assert!(out.stdout.is_empty());
        }
    }
}

/// A spring's tip line is measured while its keys are chosen, on the clip
/// as it then stands; its figure may come out above its bones' final tip
/// figures (here 0.6316 px against 0.6315 px on the css route). `check
/// --max-error` holds it, so the tolerance a bake keeps holds it too: the
/// figure a bake keeps is the worst of every probe `check` compares, and
/// `check` at that figure passes, on both routes.
#[test]
fn a_kept_tolerance_holds_spring_tips_as_check_does() {
    use rigbake::bake::BakeOptions;
    use rigbake::report::ProbeKind;
    use rigbake::{Route, bake_rig, rig};
    let rig_json = serde_json::json!({
        "name": "spring-tip",
        "view_box": [0, 0, 480, 440],
        "period_s": 1.2,
        "bones": [
            {"name": "neck", "at": [240, 190], "length": 40, "angle": {"const_deg": -90}},
            {"name": "head", "parent": "neck", "at": "tip", "length": 44,
             "angle": {"sine": {"amp_deg": 10.842, "harmonic": 1, "phase_deg": -68.66}}}
        ],
        "root": {"y": {"keys": [[0, 0], [0.5, 12], [1, 0]], "ease": "smoothstep"}},
        "springs": [{"bone": "head", "stiffness": 15.53, "damping": 5.09}],
        "chains": [{
            "name": "ponytail", "anchor": {"bone": "head", "at": [36, 14]},
            "segments": 18, "segment": 12, "damping": 0.967, "gravity": [151.5, 1708.2],
            "wind": {"x": {"offset": 432, "amp": 216, "harmonic": 1}}
        }]
    });
    let r = rig::load(&rig_json.to_string()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = write_rig(&dir, "spring-tip", &rig_json);
    for route in [Route::Css, Route::Smil] {
        let baked = bake_rig(&r, &BakeOptions::resolve(&r, route, None, Some(1.0), None));
        let probes = baked.report.probes();
        let spring = probes
            .iter()
            .filter(|p| p.kind == ProbeKind::Spring)
            .map(|p| p.max_error_px)
            .fold(0.0, f64::max);
        assert!(spring > 0.0, "{}: no spring figure", route.as_str());
        let worst = probes.iter().map(|p| p.max_error_px).fold(0.0, f64::max);
        let kept = baked.report.max_error_px();
        assert_eq!(kept, worst, "{}: kept {kept} px", route.as_str());
        assert!(kept >= spring && kept <= 1.0, "{}", route.as_str());
        let at = kept.to_string();
        let out = check(
            &path,
            &[
                "--route",
                route.as_str(),
                "--tolerance",
                "1",
                "--max-error",
                &at,
            ],
        );
        assert!(out.status.success(), "{}: {}", route.as_str(), stderr(&out));
    }
}
