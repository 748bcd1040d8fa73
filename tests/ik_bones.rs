//! `ik`, `move` and `ground` in bone-tree rigs: the seed 000 stick figures
//! (walker, runner, rower) pass `check --max-error 1` on both routes, feet
//! do not slip, and bad input exits 2 with one line naming file and path.

use assert_cmd::Command;
use rigbake::Route;
use serde_json::Value;
use std::fs;
use tempfile::TempDir;

mod common;
use common::{bad, bake, repo};

fn example(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap()).unwrap()
}

#[test]
fn stick_figures_pass_check_max_error_1_on_both_routes() {
    for name in ["walker", "jogger", "runner", "rower"] {
        Command::cargo_bin("rigbake")
            .unwrap()
            .args(["check", "--max-error", "1", "--route", "both"])
            .arg(repo(&format!("rigs/{name}.json")))
            .assert()
            .success();
    }
}

#[test]
fn every_ik_entry_is_reported_as_a_leg_and_fails_check_when_off_target() {
    for route in [Route::Css, Route::Smil] {
        let b = bake(&example("rower"), route);
        let names: Vec<&str> = b.report.legs.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["thigh-shin", "uarm-farm"], "{route:?}");
        for l in &b.report.legs {
            // the default goal: every probe within 0.25 px as measured
            assert!(
                l.max_error_px <= rigbake::bake::DEFAULT_TOLERANCE_PX,
                "{route:?} {}: {}",
                l.name,
                l.max_error_px
            );
            assert_eq!(l.tracks.len(), 2);
        }
    }
    // clamp toward an unreachable handle: the gap is the effector error
    let mut v = example("rower");
    v["ik"][1]["reach"] = "clamp".into();
    v["ik"][1]["target"] = serde_json::json!({ "fixed": [400, 190] });
    let b = bake(&v, Route::Css);
    let arm = &b.report.legs[1];
    assert!(arm.max_error_px > 50.0, "{}", arm.max_error_px);
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("clamped.json");
    fs::write(&path, v.to_string()).unwrap();
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .args(["check", "--max-error", "1"])
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("uarm-farm"));
}

#[test]
fn feet_do_not_slip_at_the_gait_speed_and_do_at_the_wrong_one() {
    for (name, stride, cadence) in [
        ("walker", 44.0, 1.5),
        // blend 0.5: every gait parameter half way, the ground speed too
        ("jogger", 52.0, 2.025),
        ("runner", 60.0, 2.55),
    ] {
        assert_eq!(
            common::assert_slip_caught(name, &example(name), stride, cadence),
            2
        );
    }
}

#[test]
fn move_translates_the_whole_figure() {
    // the rower's seat slides 32 px back at t = 0.4 and the head follows
    let b = bake(&example("rower"), Route::Css);
    assert!(
        b.svg.contains("-lift-x\""),
        "a lift-x group carries the move"
    );
    let at = |t: f64| rigbake::measure::probes_at(&b.clip, t * b.clip.period_s)["spine-tip"];
    let dx = at(0.4).x - at(0.0).x;
    // spine leans from -60° to -110°: its tip moves by the slide plus the lean
    let lean = 54.0 * ((-110f64).to_radians().cos() - (-60f64).to_radians().cos());
    assert!((dx - (-32.0 + lean)).abs() < 0.05, "{dx}");
}

/// The `data-probe` names an SVG file holds.
fn probe_names(svg: &str) -> std::collections::BTreeSet<String> {
    svg.split("data-probe=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

/// `ik[].name` names an entry as an `ik_chains` chain is named: its
/// effector probe is `<name>-ankle` (no `<lower>-tip` beside it), its
/// target probe `<name>-target`, its report line `<name>`, with the same
/// figures as unnamed; an entry without a name keeps `<lower>-tip`,
/// `<lower>-target` and `<upper>-<lower>`. On both routes.
#[test]
fn a_named_ik_entry_names_its_probes_and_report_line() {
    let mut named = example("rower");
    named["ik"][0]["name"] = "leg".into();
    for route in [Route::Css, Route::Smil] {
        let (a, b) = (bake(&example("rower"), route), bake(&named, route));
        let probes = probe_names(&b.svg);
        for p in [
            "leg-ankle",
            "leg-target",
            "farm-tip",
            "farm-target",
            "thigh-tip",
        ] {
            assert!(probes.contains(p), "{route:?}: no {p} in {probes:?}");
        }
        for p in ["shin-tip", "shin-target"] {
            assert!(!probes.contains(p), "{route:?}: {p} is still written");
        }
        assert_eq!(probes.len(), probe_names(&a.svg).len(), "{route:?}");
        let names: Vec<&str> = b.report.legs.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["leg", "uarm-farm"], "{route:?}");
        for (x, y) in a.report.legs.iter().zip(&b.report.legs) {
            assert_eq!(x.max_error_px, y.max_error_px, "{route:?} {}", y.name);
            assert_eq!(x.rms_error_px, y.rms_error_px, "{route:?} {}", y.name);
        }
    }
}

#[test]
fn ik_name_must_be_a_new_name() {
    for (name, needle) in [
        ("thigh", "already the name of a bone"),
        ("bad-name", "must start with a letter"),
        ("", "must start with a letter"),
    ] {
        let mut v = example("rower");
        v["ik"][1]["name"] = name.into();
        bad(&v, &["ik[1].name", needle]);
    }
    let mut v = example("rower");
    v["ik"][0]["name"] = "limb".into();
    v["ik"][1]["name"] = "limb".into();
    bad(&v, &["ik[1].name", "an `ik` entry"]);
    // nor a Verlet chain's (the report names both)
    let mut v = example("stickman");
    v["ik"][0]["name"] = "hair".into();
    bad(&v, &["chains[0].name", "\"hair\"", "`ik` entry"]);
}

#[test]
fn ik_lower_must_be_the_child_at_the_tip() {
    let mut v = example("rower");
    v["ik"][0]["lower"] = "farm".into();
    bad(&v, &["ik[0].lower", "child"]);
    let mut v = example("rower");
    v["bones"][2]["at"] = serde_json::json!([30, 0]);
    bad(&v, &["ik[0].lower", "tip"]);
}

#[test]
fn ik_unknown_bone() {
    let mut v = example("rower");
    v["ik"][1]["upper"] = "wing".into();
    bad(&v, &["ik[1].upper", "wing"]);
}

#[test]
fn ik_bone_in_two_entries() {
    let mut v = example("rower");
    v["ik"][1]["upper"] = "thigh".into();
    v["ik"][1]["lower"] = "shin".into();
    bad(&v, &["ik[1].upper", "already solved by ik[0]"]);
}

#[test]
fn ik_bone_with_its_own_angle() {
    let mut v = example("rower");
    v["bones"][5]["angle"] = serde_json::json!({ "const_deg": 10 });
    bad(&v, &["bones[5].angle", "ik[1]"]);
}

#[test]
fn ik_bone_driven_in_a_clip() {
    let mut v = example("rower");
    let root = v.as_object_mut().unwrap().remove("root").unwrap();
    v["clips"] = serde_json::json!([{ "name": "row", "root": root,
        "angles": { "shin": { "const_deg": 5 } } }]);
    bad(&v, &["clips[0].angles.shin", "ik[0]"]);
}

#[test]
fn ik_unreachable_target_names_entry_and_time() {
    let mut v = example("rower");
    v["ik"][0]["target"] = serde_json::json!({ "fixed": [400, 236] });
    bad(&v, &["ik[0]", "cannot reach", "t = "]);
}

#[test]
fn ik_bad_target_and_move() {
    let mut v = example("rower");
    v["ik"][1]["target"]["track"]["keys"][3][1] = serde_json::json!([1, 1]);
    bad(&v, &["ik[1].target.track.keys", "first"]);
    let mut v = example("walker");
    v["root"]["move"]["bob"]["blend"] = 2.into();
    bad(&v, &["root.move.bob.blend"]);
}

#[test]
fn ground_follow_must_name_an_ik_entry() {
    let mut v = example("walker");
    v["ground"]["follow"] = "spine".into();
    bad(&v, &["ground.follow", "spine"]);
    let mut v = example("walker");
    v["ground"]["follow"] = "shin_n".into();
    bad(&v, &["ground.follow", "shin_n"]);
}

/// A `follow` (the ground's, a sine's) names an `ik` entry by its upper
/// bone or by its `name`: run-up, whose ground and four arm sines follow
/// the legs' gaits, bakes the same file on both routes either way.
#[test]
fn follow_names_an_ik_entry_by_name_or_upper_bone() {
    let run_up = example("run-up");
    let mut named = run_up.clone();
    let mut by_name = run_up.clone();
    let mut renamed = std::collections::BTreeMap::new();
    for (i, k) in run_up["ik"].as_array().unwrap().iter().enumerate() {
        let name = format!("leg{i}");
        named["ik"][i]["name"] = name.clone().into();
        by_name["ik"][i]["name"] = name.clone().into();
        renamed.insert(k["upper"].as_str().unwrap().to_string(), name);
    }
    let mut follows = 0;
    let mut rename = |f: &mut serde_json::Value| {
        let name = renamed[f.as_str().unwrap()].clone();
        *f = name.into();
        follows += 1;
    };
    rename(&mut by_name["ground"]["follow"]);
    for b in by_name["bones"].as_array_mut().unwrap() {
        if let Some(f) = b.pointer_mut("/angle/sine/follow") {
            rename(f);
        }
    }
    assert_eq!(follows, 5);
    for route in [Route::Css, Route::Smil] {
        assert_eq!(
            bake(&named, route).svg,
            bake(&by_name, route).svg,
            "{route:?}"
        );
    }
    let mut v = by_name.clone();
    v["ground"]["follow"] = "leg9".into();
    bad(&v, &["ground.follow", "leg9", "leg0"]);
}

/// With `clips` (or a one-shot clip) the ground is accepted: each clip
/// scrolls it at the speed of its own followed gait.
#[test]
fn ground_with_clips() {
    let mut v = example("walker");
    let root = v.as_object_mut().unwrap().remove("root").unwrap();
    v["clips"] = serde_json::json!([{ "name": "walk", "root": root }]);
    let rig = rigbake::rig::load(&v.to_string()).unwrap();
    let fig = rig.figure;
    let speed = 44.0 / (0.62 * fig.clips[0].period_s);
    assert!((fig.clips[0].ground_speed_px_s - speed).abs() < 1e-9);
}

#[test]
fn ground_with_a_one_shot_clip() {
    let mut v = example("walker");
    v["play"] = "once".into();
    let rig = rigbake::rig::load(&v.to_string()).unwrap();
    assert!(rig.figure.clips[0].ground_speed_px_s > 0.0);
}
