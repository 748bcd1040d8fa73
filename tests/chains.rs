//! Verlet chains on bone trees (`chains`): the example ponytail's
//! acceptance figures (deterministic bytes, segment lengths, seam error,
//! baked deviation) and bad-input cases that exit 2 naming the JSON path.

use assert_cmd::Command;
use rigbake::bake::{BakeOptions, Keying};
use rigbake::clip::Item;
use rigbake::fit::Fit;
use rigbake::rig::{self, Rig};
use rigbake::{Route, bake_rig};
use serde_json::{Value, json};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn ponytail_text() -> String {
    std::fs::read_to_string(root().join("rigs/ponytail.json")).unwrap()
}

fn edited(edit: impl FnOnce(&mut Value)) -> String {
    let mut v: Value = serde_json::from_str(&ponytail_text()).unwrap();
    edit(&mut v);
    v.to_string()
}

fn opts(rig: &Rig, route: Route) -> BakeOptions {
    BakeOptions {
        route,
        keying: Keying::Uniform(rig.keys),
        fit: Fit::Linear,
    }
}

#[test]
fn ponytail_is_deterministic_seamless_and_within_tolerance() {
    let rig = rig::load(&ponytail_text()).unwrap();
    let again = rig::load(&ponytail_text()).unwrap();
    for route in [Route::Css, Route::Smil] {
        let a = bake_rig(&rig, &opts(&rig, route));
        let b = bake_rig(&again, &opts(&again, route));
        assert_eq!(a.svg, b.svg, "{route:?}: bytes differ between runs");
        assert_eq!(a.report.chains.len(), 1);
        let c = &a.report.chains[0];
        assert!(c.converged, "{c:?}");
        assert!(c.seam_error_px <= 0.1, "{c:?}");
        assert!(c.max_deviation_px <= 0.1, "{c:?}");
        // every particle has a probe
        for i in 1..=18 {
            assert!(
                a.svg.contains(&format!("data-probe=\"ponytail-p{i}\"")),
                "p{i}"
            );
        }
    }
}

#[test]
fn segment_lengths_hold_within_one_percent_on_every_baked_frame() {
    let rig = rig::load(&ponytail_text()).unwrap();
    let baked = bake_rig(&rig, &opts(&rig, Route::Smil));
    let mut morphs = 0;
    for g in baked.clip.groups() {
        for item in &g.children {
            if let Item::Morph(m) = item {
                if !m.probe.as_deref().unwrap_or("").starts_with("ponytail-") {
                    continue;
                }
                morphs += 1;
                for (t, pts) in &m.keys {
                    let len = pts[0].dist(pts[1]);
                    assert!(
                        (len - 12.0).abs() / 12.0 < 0.01,
                        "{:?} at t = {t}: {len}",
                        m.probe
                    );
                }
            }
        }
    }
    assert_eq!(morphs, 18);
}

#[test]
fn the_recorded_loop_keeps_its_segments_and_closes() {
    let rig = rig::load(&ponytail_text()).unwrap();
    let fig = rig.figure.as_ref().unwrap();
    let ch = &fig.chains[0];
    assert!(ch.recording.seam_error_px <= 0.1);
    for f in &ch.recording.frames {
        for w in f.windows(2) {
            assert!((w[0].dist(w[1]) - 12.0).abs() < 0.12);
        }
    }
}

fn bad(text: &str, want: &[&str]) {
    let err = rig::load(text).unwrap_err().to_string();
    for w in want {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
}

#[test]
fn bad_chain_inputs_name_their_path() {
    bad(
        &edited(|v| v["chains"][0]["anchor"]["bone"] = json!("hat")),
        &["chains[0].anchor.bone", "no bone"],
    );
    bad(
        &edited(|v| v["chains"][0]["segments"] = json!(0)),
        &["chains[0].segments"],
    );
    bad(
        &edited(|v| v["chains"][0]["segment"] = json!(-1)),
        &["chains[0].segment", "> 0"],
    );
    bad(
        &edited(|v| v["chains"][0]["damping"] = json!(1.0)),
        &["chains[0].damping", "(0, 1)"],
    );
    bad(
        &edited(|v| v["chains"][0]["iterations"] = json!(0)),
        &["chains[0].iterations"],
    );
    bad(
        &edited(|v| v["chains"][0]["name"] = json!("head")),
        &["chains[0].name", "already"],
    );
    bad(
        &edited(|v| v["chains"][0]["style"]["color_tip"] = json!("orange")),
        &["chains[0].style.color_tip"],
    );
    bad(
        &edited(|v| v["chains"][0]["colliders"] = json!([{"center": [0, 0], "radius": 0}])),
        &["chains[0].colliders[0].radius"],
    );
    bad(
        &edited(|v| {
            v["chains"][0]["wind"]["x"] = json!({"amp": 1, "harmonic": 65});
        }),
        &["chains[0].wind.x.harmonic"],
    );
    bad(
        &edited(|v| v["play"] = json!("once")),
        &["chains", "looping"],
    );
    bad(
        &edited(|v| {
            v.as_object_mut().unwrap().remove("bones");
            v.as_object_mut().unwrap().remove("root");
            v["crank"] = json!({"center": [0, 0], "radius": 10});
        }),
        &["chains"],
    );
}

/// An almost undamped short chain cannot settle into a loop: exit 2, one
/// line naming the file and the chain, suggesting damping or warm-up.
#[test]
fn cli_refuses_a_chain_whose_loop_does_not_close() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("seam.json");
    std::fs::write(
        &path,
        edited(|v| {
            v["period_s"] = json!(0.05);
            v["chains"][0]["segments"] = json!(3);
            v["chains"][0]["damping"] = json!(0.9999999);
            v["chains"][0]["max_warmup_periods"] = json!(50);
        }),
    )
    .unwrap();
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .args(["bake", path.to_str().unwrap(), "-o"])
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    for w in [
        "seam.json",
        "chains[0]",
        "seam error",
        "damping",
        "max_warmup_periods",
    ] {
        assert!(err.contains(w), "{err} lacks {w}");
    }
    assert!(!dir.path().join("out").join("ponytail.svg").exists());
}
