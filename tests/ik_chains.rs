//! `ik_chains`: chains whose root and target follow trajectories, the
//! scrolling ground and foot slip. Bad input exits 2 with one line naming
//! the file and the JSON path; the example rigs pass `check --max-error 1`.

use assert_cmd::Command;
use rigbake::bake::BakeOptions;
use rigbake::{Route, bake_rig, rig};
use serde_json::Value;
use std::fs;
use std::path::PathBuf;

/// An example rig; `walker`, `runner` and `rower` are the chain versions
/// kept in tests/fixtures/ik_chains (rigs/ holds their bone-tree successors).
mod common;
use common::{bad, bake, repo};

fn example(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(example_path(name)).unwrap()).unwrap()
}

fn example_path(name: &str) -> PathBuf {
    match name {
        "walker" | "runner" | "rower" => repo(&format!("tests/fixtures/ik_chains/{name}.json")),
        _ => repo(&format!("rigs/{name}.json")),
    }
}

#[test]
fn examples_pass_check_max_error_1_on_both_routes() {
    for name in ["path-foot", "rower", "walker", "runner"] {
        Command::cargo_bin("rigbake")
            .unwrap()
            .args(["check", "--max-error", "1", "--route", "both"])
            .arg(example_path(name))
            .assert()
            .success();
    }
}

#[test]
fn error_is_measured_against_the_ideal_target_not_the_marker() {
    // a target 20 px out of reach, clamped: the marker follows the target,
    // the ankle stops short, and the report counts the gap
    let v: Value = serde_json::json!({
        "name": "gap", "view_box": [0, 0, 300, 300], "period_s": 1, "keys": 8,
        "ik_chains": [{ "name": "arm", "root": { "fixed": [100, 100] },
            "target": { "fixed": [220, 100] }, "thigh": 50, "shin": 50, "reach": "clamp" }]
    });
    for route in [Route::Css, Route::Smil] {
        let b = bake(&v, route);
        let e = b.report.legs[0].max_error_px;
        assert!((e - 20.0).abs() < 0.02, "{route:?}: {e}");
    }
}

#[test]
fn moving_root_keeps_the_ankle_on_target() {
    // rower: the hip slides on an eased track, the foot stays on the stretcher
    let mut v = example("rower");
    v["keys"] = 200.into();
    v.as_object_mut().unwrap().remove("tolerance_px");
    let b = bake(&v, Route::Css);
    let leg = b.report.legs.iter().find(|l| l.name == "leg").unwrap();
    assert!(leg.max_error_px < 0.02, "{}", leg.max_error_px);
    assert!(b.svg.contains("translate:"), "root translates");
}

#[test]
fn pull_reach_measures_against_the_pulled_target() {
    let v: Value = serde_json::json!({
        "name": "pull", "view_box": [0, 0, 300, 300], "period_s": 1, "keys": 8,
        "ik_chains": [{ "name": "arm", "root": { "fixed": [100, 100] },
            "target": { "fixed": [220, 100] }, "thigh": 50, "shin": 50, "reach": "pull" }]
    });
    let b = bake(&v, Route::Css);
    assert!(
        b.report.legs[0].max_error_px < 0.02,
        "{}",
        b.report.legs[0].max_error_px
    );
}

#[test]
fn foot_slip_is_small_at_the_right_ground_speed_and_caught_at_the_wrong_one() {
    for (name, stride, cadence) in [("walker", 44.0, 1.5), ("runner", 60.0, 2.55)] {
        common::assert_slip_caught(name, &example(name), stride, cadence);
    }
}

#[test]
fn ground_travel_is_a_whole_number_of_dot_spacings() {
    let b = bake(&example("walker"), Route::Css);
    // travel per period = stride ÷ duty = 44 / 0.62 px, 3 dots: the last
    // keyframe of the ground's own block, or the last stop of its
    // `linear()` easing over the shared one-pixel slide
    let travel = format!("{:.2}", 44.0 / 0.62);
    assert!(
        b.svg.contains(&format!("translate:-{travel}px}}"))
            || b.svg
                .contains(&format!("slide-x .667s linear(0,-{travel})")),
        "travel"
    );
}

#[test]
fn bad_chain_name() {
    let mut v = example("rower");
    v["ik_chains"][1]["name"] = "1leg".into();
    bad(&v, &["ik_chains[1].name"]);
}

#[test]
fn duplicate_chain_name() {
    let mut v = example("rower");
    v["ik_chains"][1]["name"] = "arm".into();
    bad(&v, &["ik_chains[1].name", "already"]);
}

#[test]
fn zero_shin() {
    let mut v = example("rower");
    v["ik_chains"][0]["shin"] = 0.into();
    bad(&v, &["ik_chains[0].shin", "at least 0.01"]);
}

#[test]
fn unreachable_target_names_chain_and_time() {
    let mut v = example("rower");
    v["ik_chains"][1]["target"] = serde_json::json!({ "fixed": [400, 240] });
    bad(&v, &["ik_chains[1]", "\"leg\"", "cannot reach", "t = "]);
}

#[test]
fn bad_trajectory_in_a_chain() {
    let mut v = example("path-foot");
    v["ik_chains"][0]["target"]["path"]["d"] = "M 0 0 L 10 0".into();
    bad(&v, &["ik_chains[0].target.path.d", "closed"]);
}

#[test]
fn unknown_chain_field() {
    let mut v = example("rower");
    v["ik_chains"][0]["elbow"] = "up".into();
    bad(&v, &["ik_chains[0]", "unknown field `elbow`"]);
}

#[test]
fn chains_with_crank() {
    let mut v = example("rower");
    v["crank"] = serde_json::json!({ "center": [0, 0], "radius": 5 });
    bad(&v, &["crank", "ik_chains"]);
}

#[test]
fn ground_follow_unknown_chain() {
    let mut v = example("walker");
    v["ground"]["follow"] = "nobody".into();
    bad(&v, &["ground.follow", "nobody"]);
}

#[test]
fn ground_follow_a_chain_without_gait() {
    let mut v = example("rower");
    v["ground"] = serde_json::json!({ "y": 260, "from_x": 0, "to_x": 400, "dots_per_period": 4, "follow": "leg" });
    bad(&v, &["ground.follow", "gait"]);
}

#[test]
fn ground_with_both_speeds() {
    let mut v = example("walker");
    v["ground"]["speed_px_s"] = 10.into();
    bad(&v, &["ground.speed_px_s"]);
}

#[test]
fn ground_zero_dots() {
    let mut v = example("walker");
    v["ground"]["dots_per_period"] = 0.into();
    bad(&v, &["ground.dots_per_period"]);
}

#[test]
fn ground_without_chains() {
    let mut v: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap();
    v["ground"] = serde_json::json!({ "y": 260, "from_x": 0, "to_x": 400, "dots_per_period": 4, "speed_px_s": 10 });
    bad(&v, &["ground"]);
}

/// A chain rig loads as a bone tree and is fitted as one: on both routes
/// every chain within the rig's tolerance, its thigh and shin keyed on
/// times of their own (placed per track, not one shared set).
#[test]
fn tolerance_holds_with_keys_placed_per_track() {
    // uniform linear keys needed 130 (walker) and 224 (runner) on every track
    for name in ["walker", "runner", "rower", "path-foot"] {
        let v = example(name);
        let tol = v["tolerance_px"].as_f64().unwrap();
        for route in [Route::Css, Route::Smil] {
            let b = bake(&v, route);
            assert_eq!(
                b.report.legs.len(),
                v["ik_chains"].as_array().unwrap().len()
            );
            for l in &b.report.legs {
                assert!(
                    l.max_error_px <= tol,
                    "{name} {route:?} {}: {}",
                    l.name,
                    l.max_error_px
                );
                assert!(l.tracks.len() >= 2, "{name} {}: {:?}", l.name, l.tracks);
                // (a limb whose uniform linear keys write fewer bytes
                // takes those, the same times on both tracks)
                if l.fit == rigbake::clip::Fit::Linear && route == Route::Css {
                    continue;
                }
                let times: Vec<&Vec<f64>> = l.tracks.iter().map(|t| &t.key_times).collect();
                assert!(
                    times.iter().any(|t| *t != times[0]),
                    "{name} {route:?} {}",
                    l.name
                );
            }
        }
    }
}

/// On the smil route a chain's bones are rotations, as on css: no `d`
/// morph, so no bone stretches between keys (the chain engine's morph
/// stretched the walker's by up to 0.16 px).
#[test]
fn smil_chains_rotate_rigid_bones() {
    for name in ["walker", "runner", "rower", "path-foot"] {
        let b = bake(&example(name), Route::Smil);
        assert!(!b.svg.contains("attributeName=\"d\""), "{name}");
        assert!(b.svg.contains("attributeName=\"transform\""), "{name}");
        for l in &b.report.legs {
            assert_eq!(l.max_bone_stretch_px, None, "{name} {}", l.name);
        }
    }
}

#[test]
fn keys_option_still_gives_uniform_linear_keys_on_every_track() {
    let v = example("walker");
    let rig = rig::load(&v.to_string()).unwrap();
    for route in [Route::Css, Route::Smil] {
        let b = bake_rig(
            &rig,
            &BakeOptions::resolve(&rig, route, Some(30), None, None),
        );
        assert!(!b.svg.contains("cubic-bezier"), "{route:?}");
        for l in &b.report.legs {
            for t in &l.tracks {
                assert_eq!(t.keys, 30, "{route:?} {}", t.name);
            }
        }
        assert!(
            b.report
                .notes
                .iter()
                .any(|n| n.contains("uniform linear keys")),
            "{:?}",
            b.report.notes
        );
    }
}
