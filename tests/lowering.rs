//! `ik_chains` lowered into a bone tree ([`rig::lower_chains`]): each chain
//! a root bone at its root (carried by its own `move` when the root moves),
//! a thigh and a shin, and an `ik` entry aiming the shin's tip at the
//! chain's target; the chain's `depth_offset` moves the root and the target
//! alike. The chain solver and the tree's FK must put every hip, knee and
//! ankle in the same place at every time: the loader lowers every
//! `ik_chains` rig so, and a chain file bakes to the bytes of its spelling
//! as bones. Each `ik` entry is named as its chain, so the effector and
//! target probes and the report's lines keep the chain's names.

use rigbake::figure::fk;
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::rig;
use rigbake::solve::ik;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

mod common;

/// The `data-probe` names an SVG file holds.
fn probe_names(svg: &str) -> BTreeSet<String> {
    svg.split("data-probe=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn ik_chains_spelled_as_bones_solve_the_same_pose() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("rigs/path-foot.json")];
    let dir = root.join("tests/fixtures/ik_chains");
    let mut fixtures: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fixtures.sort();
    files.extend(fixtures);
    let mut kinds = std::collections::BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        // the chains as validated (before any lowering)
        let parsed = rig::parse(&text).unwrap();
        let (chains, _) =
            rigbake::chain::validate(&parsed.ik_chains, None, parsed.period_s).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        let lowered = rig::lower_chains(&rig::parse(&text).unwrap()).unwrap();
        let spelled = serde_json::to_value(&lowered).unwrap();
        let bones = rig::load(&spelled.to_string()).unwrap();
        // path-foot's spelling is kept, to bake and compare by hand
        if path.ends_with("rigs/path-foot.json") {
            let kept = root.join("tests/fixtures/lowering/path-foot.json");
            let text = serde_json::to_string_pretty(&spelled).unwrap() + "\n";
            if std::env::var_os("RIGBAKE_BLESS").is_some() {
                std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
                std::fs::write(&kept, &text).unwrap();
            }
            let got = std::fs::read_to_string(&kept).unwrap_or_default();
            assert_eq!(
                got,
                text,
                "{} is stale: run `RIGBAKE_BLESS=1 cargo test --test lowering`",
                kept.display()
            );
        }
        // the loader lowers: the chain file and its spelling as bones bake
        // to the same bytes and report, whose probes and lines keep the
        // chains' names
        for route in [rigbake::Route::Css, rigbake::Route::Smil] {
            let (as_chain, as_tree) = (common::bake(&file, route), common::bake(&spelled, route));
            assert_eq!(as_tree.svg, as_chain.svg, "{} {route:?}", path.display());
            let probes = probe_names(&as_chain.svg);
            for c in &chains {
                for probe in [format!("{}-ankle", c.name), format!("{}-target", c.name)] {
                    assert!(
                        probes.contains(&probe),
                        "{}: {probe} {route:?}",
                        path.display()
                    );
                }
            }
            let legs = |b: &rigbake::Baked| -> Vec<String> {
                b.report.legs.iter().map(|l| l.name.clone()).collect()
            };
            let names: Vec<String> = chains.iter().map(|c| c.name.clone()).collect();
            assert_eq!(legs(&as_chain), names, "{} {route:?}", path.display());
            assert_eq!(legs(&as_tree), names, "{} {route:?}", path.display());
        }
        let fig = bones.figure.as_ref().unwrap();
        let clip = &fig.clips[0];
        for c in file["ik_chains"].as_array().unwrap() {
            for part in ["root", "target"] {
                let kind = c[part].as_object().unwrap().keys().next().unwrap();
                kinds.insert(format!("{part} {kind}"));
            }
        }
        for k in 0..=240 {
            let t = k as f64 / 240.0;
            let tips = fk::tips(fig, clip, t);
            let effectors = fk::ik_ideal(fig, clip, t);
            for (i, c) in chains.iter().enumerate() {
                let ideal = c.ideal();
                let hip = c.root.at(t);
                let pose = ik::solve(hip, ideal.at(t), c.thigh, c.shin, c.knee);
                let off = c.depth_offset;
                let what = format!("{} chain {} at t = {t}", path.display(), c.name);
                // (a shifted path is new path data: its arc-length points
                // move by rounding, about 1e-9 px)
                let near = |a: Vec2, b: Vec2, part: &str| {
                    assert!(a.dist(b) < 1e-6, "{what}: {part} {a:?} against {b:?}");
                };
                let tip = |part: &str| {
                    let bone = format!("{}_{part}", c.name);
                    tips[fig.bones.iter().position(|b| b.name == bone).unwrap()]
                };
                near(tip("hip"), hip + off, "hip");
                near(tip("thigh"), pose.joint + off, "knee");
                near(tip("shin"), pose.end + off, "ankle");
                near(effectors[i], ideal.world_at(t), "aimed point");
            }
        }
    }
    // every kind of root and target the example chains use
    let want = [
        "root bob",
        "root fixed",
        "root track",
        "target fixed",
        "target gait",
        "target path",
        "target track",
    ];
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), want);
}

/// The lowering validates the chain file first: its errors name the
/// user's own `ik_chains` paths, and a file without chains is refused.
#[test]
fn lowering_refuses_what_the_chain_file_refuses_in_its_own_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rigs/path-foot.json")).unwrap();
    let mut file = rig::parse(&text).unwrap();
    file.ik_chains[1].thigh = -4.0;
    let err = rig::lower_chains(&file).unwrap_err().to_string();
    assert!(err.starts_with("ik_chains[1].thigh"), "{err}");
    let text = std::fs::read_to_string(root.join("rigs/seed-nested.json")).unwrap();
    let err = rig::lower_chains(&rig::parse(&text).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("ik_chains"), "{err}");
}

/// Chain names whose `<chain>_hip`, `_thigh`, `_shin` would clash with
/// another chain's name or run past the 32 characters a name may hold
/// still lower into a valid tree, each `ik` entry named as its chain.
#[test]
fn clashing_and_long_chain_names_lower_into_a_valid_tree() {
    let chain = |name: &str, x: f64| {
        serde_json::json!({"name": name, "root": {"fixed": [x, 100]},
            "target": {"circle": {"center": [x, 230], "radius": 20}},
            "thigh": 80, "shin": 80})
    };
    let long = "a234567890123456789012345678901";
    let sets: [&[&str]; 4] = [
        &["a", "a_thigh", "a_hip", "a_shin"],
        &[long, "bb"],
        &["c0_hip", "x", "c1_thigh", "x_hip"],
        &["a_thigh", "a"],
    ];
    for names in sets {
        let file = serde_json::json!({
            "name": "n", "view_box": [0, 0, 900, 300], "period_s": 1,
            "ik_chains": names.iter().enumerate()
                .map(|(i, n)| chain(n, 60.0 + 120.0 * i as f64)).collect::<Vec<_>>(),
        });
        let lowered = rig::lower_chains(&rig::parse(&file.to_string()).unwrap())
            .unwrap_or_else(|e| panic!("{names:?}: {e}"));
        let entries: Vec<String> = lowered.ik.iter().map(|k| k.name.clone().unwrap()).collect();
        assert_eq!(entries, names, "{names:?}");
        let tree = rig::validate(&lowered).unwrap_or_else(|e| panic!("{names:?}: {e}"));
        assert_eq!(tree.figure.unwrap().bones.len(), 3 * names.len());
    }
}
