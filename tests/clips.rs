//! `--clip NAME`: one clip of a bone-tree rig as its own file, on either
//! route (the smil route cannot switch clips by class, so this is how it
//! writes a clip other than the first).

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use tempfile::TempDir;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn rigbake(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn a_selected_clip_gets_its_own_files_on_both_routes() {
    let tmp = TempDir::new().unwrap();
    let jump = repo("rigs/jump.json");
    let out = rigbake(
        &[
            "bake",
            jump.to_str().unwrap(),
            "--clip",
            "idle",
            "--route",
            "both",
            "-o",
            "o",
            "--report",
            "r.json",
            "--quiet",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{out:?}");
    let dir = tmp.path().join("o");
    assert_eq!(names(&dir), ["jump-idle.smil.svg", "jump-idle.svg"]);
    let report: Value =
        serde_json::from_str(&fs::read_to_string(tmp.path().join("r.json")).unwrap()).unwrap();
    for r in report.as_array().unwrap() {
        assert_eq!(r["rig"], "jump-idle");
        let bones = r["bones"].as_array().unwrap();
        assert!(!bones.is_empty());
        for b in bones {
            assert_eq!(b["clip"], "idle", "{b}");
            // the default goal, as measured
            assert!(b["max_error_px"].as_f64().unwrap() <= 0.25, "{b}");
        }
    }
    // the smil file holds the idle clip, not the first (jump) clip
    let smil = fs::read_to_string(dir.join("jump-idle.smil.svg")).unwrap();
    let first = fs::read_to_string(repo("out/jump.smil.svg")).unwrap();
    assert_ne!(smil, first);
    assert!(smil.contains(r#"repeatCount="indefinite""#), "idle loops");
    assert!(
        first.contains(r#"fill="freeze""#) && !smil.contains(r#"fill="freeze""#),
        "jump plays once and holds, idle loops"
    );
    // the css file plays the idle clip by default and has no jump rules
    let css = fs::read_to_string(dir.join("jump-idle.svg")).unwrap();
    assert!(css.contains(r#"-clip-idle""#));
    assert!(!css.contains("clip-jump"));
}

#[test]
fn check_takes_the_clip_too() {
    let tmp = TempDir::new().unwrap();
    let jump = repo("rigs/jump.json");
    let out = rigbake(
        &[
            "check",
            jump.to_str().unwrap(),
            "--clip",
            "idle",
            "--max-error",
            "0.25",
        ],
        tmp.path(),
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("jump-idle") && text.contains("idle"),
        "{text}"
    );
}

#[test]
fn unknown_clip_or_a_rig_without_clips_is_exit_2_naming_the_choices() {
    let tmp = TempDir::new().unwrap();
    let cases = [
        (
            "rigs/jump.json",
            "nope",
            vec!["jump.json", "clips", "\"nope\"", "jump, idle"],
        ),
        (
            "rigs/seed-nested.json",
            "idle",
            vec!["seed-nested.json", "clips", "no `clips`"],
        ),
    ];
    for (rig, clip, needles) in cases {
        let path = repo(rig);
        let out = rigbake(
            &["bake", path.to_str().unwrap(), "--clip", clip, "-o", "o"],
            tmp.path(),
        );
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        for n in needles {
            assert!(err.contains(n), "{n:?} missing in {err}");
        }
        assert!(!tmp.path().join("o").exists(), "nothing written");
    }
}
