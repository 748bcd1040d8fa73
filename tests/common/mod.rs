//! Helpers shared by the rig-kind test files (`mod common;`); a file
//! that uses only some of them would otherwise warn about the rest.
#![allow(dead_code)]

use assert_cmd::Command;
use rigbake::bake::BakeOptions;
use rigbake::{Route, bake_rig, rig};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A path inside the repository.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
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
