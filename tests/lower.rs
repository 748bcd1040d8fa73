//! `rigbake lower`: a cycling or `ik_chains` rig written as the bone tree
//! that solves the same pose. The written tree loads; an `ik_chains` rig's
//! tree bakes to the rig's own bytes (the loader lowers it the same way); a
//! cycling rig's keeps one named `ik` entry per leg; `-o FILE` writes what
//! standard output shows; bad input (a bone tree, an invalid rig, `-o` over
//! the rig) is exit 2 with one line and nothing written.

mod common;

use assert_cmd::Command;
use common::repo;
use rigbake::{Route, rig};
use serde_json::Value;
use std::fs;

fn lower(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rigbake")
        .unwrap()
        .arg("lower")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_written_tree_loads_and_bakes_as_the_rig() {
    for name in ["seed-nested", "cyclist-scarf", "path-foot"] {
        let path = repo(&format!("rigs/{name}.json"));
        let o = lower(&[path.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8(o.stdout).unwrap();
        let tree = rig::load(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let fig = tree.figure.as_ref().expect("a bone tree");
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let limbs = v
            .get("legs")
            .or(v.get("ik_chains"))
            .unwrap()
            .as_array()
            .unwrap();
        let names: Vec<&str> = limbs.iter().map(|l| l["name"].as_str().unwrap()).collect();
        let entries: Vec<&str> = fig.ik.iter().filter_map(|k| k.name.as_deref()).collect();
        assert_eq!(entries, names, "{name}");
        if v.get("ik_chains").is_some() {
            let tree: Value = serde_json::from_str(&text).unwrap();
            for route in [Route::Css, Route::Smil] {
                assert_eq!(common::bake(&tree, route).svg, common::bake(&v, route).svg);
            }
        }
    }
}

#[test]
fn output_file_holds_what_standard_output_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let rig = repo("rigs/seed-nested.json");
    let file = tmp.path().join("rider.json");
    let shown = lower(&[rig.to_str().unwrap()]).stdout;
    let o = lower(&[rig.to_str().unwrap(), "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(fs::read(&file).unwrap(), shown);
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.json");
    let walker = repo("rigs/walker.json");
    let mut unreachable: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap();
    unreachable["legs"][1]["thigh"] = 20.into();
    let bad = tmp.path().join("bad.json");
    fs::write(&bad, unreachable.to_string()).unwrap();
    let want_bad = rig::load(&unreachable.to_string()).unwrap_err().to_string();
    let rig_copy = tmp.path().join("seed.json");
    fs::copy(repo("rigs/seed-nested.json"), &rig_copy).unwrap();
    let before = fs::read(&rig_copy).unwrap();
    for (args, needles) in [
        (
            vec![walker.to_str().unwrap(), "-o", out.to_str().unwrap()],
            vec!["walker.json: bones: ", "a bone tree already"],
        ),
        (
            vec![bad.to_str().unwrap(), "-o", out.to_str().unwrap()],
            vec!["bad.json: ", want_bad.as_str()],
        ),
        (
            vec![rig_copy.to_str().unwrap(), "-o", rig_copy.to_str().unwrap()],
            vec!["seed.json: -o: would overwrite the rig"],
        ),
    ] {
        let o = lower(&args);
        let stderr = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        let line = stderr.trim_end();
        assert!(
            !line.contains('\n') && line.starts_with("rigbake: error: "),
            "{stderr}"
        );
        for n in needles {
            assert!(line.contains(n), "lacks {n:?}: {line}");
        }
        assert!(o.stdout.is_empty());
        assert!(!out.exists());
    }
    assert_eq!(fs::read(&rig_copy).unwrap(), before);
}

/// `rig::to_text` (what `lower` writes) reads back to the same file for
/// every rig in `rigs/` and every tree they lower into; arrays of numbers
/// sit on one line, whole numbers have no fraction, `name` comes first.
#[test]
fn rig_text_reads_back_to_the_same_file() {
    let mut files = Vec::new();
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let file = rig::parse(&fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        if let Ok(tree) = rig::lower(&file) {
            files.push(tree);
        }
        files.push(file);
    }
    assert!(files.len() > 16, "{}", files.len());
    for f in &files {
        let text = rig::to_text(f);
        let back = rig::parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", f.name));
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(f).unwrap(),
            "{}",
            f.name
        );
        assert!(text.starts_with("{\n  \"name\": "), "{}", f.name);
        assert!(!text.contains(".0,") && !text.contains(".0]") && !text.contains(".0\n"));
    }
    let seed = rig::to_text(
        &rig::lower(
            &rig::parse(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap(),
        )
        .unwrap(),
    );
    assert!(seed.contains("\"depth_offset\": [-6, -7],"), "{seed}");
}
