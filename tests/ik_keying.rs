//! An `ik` entry's `"keying": "pair"`: where the css route writes the
//! fewest bytes (no `--fit`), the limb's two bones are keyed together and
//! never each alone. `rigbake lower` sets it on a cycling rig's legs, where
//! keying a bone alone never writes fewer bytes, so it changes no byte of
//! them; on a limb where a bone alone is shorter the file keeps its error
//! within the default goal and grows; `--fit cubic`, `--fit linear` and
//! the smil route key every limb together whatever it says. A value it
//! does not take is refused in one line naming the field (exit 2).

mod common;

use common::{lowered, repo};
use rigbake::bake::{BakeOptions, DEFAULT_TOLERANCE_PX};
use rigbake::fit::Fit;
use rigbake::{Route, bake_rig, rig};
use serde_json::{Value, json};

/// The rig `v` with every `ik` entry's `keying` set to `keying`
/// (`None`: the field removed).
fn keyed(mut v: Value, keying: Option<&str>) -> Value {
    for entry in v["ik"].as_array_mut().unwrap() {
        let entry = entry.as_object_mut().unwrap();
        match keying {
            Some(k) => entry.insert("keying".into(), json!(k)),
            None => entry.remove("keying"),
        };
    }
    v
}

/// The file and its measured max error (every probe), px, of `v` baked
/// for `route` (`fit`: a `--fit`, else the default shortest shape).
fn baked(v: &Value, route: Route, fit: Option<Fit>) -> (String, f64) {
    let rig = rig::load(&v.to_string()).unwrap();
    let b = bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, fit));
    (b.svg, b.report.max_error_px())
}

fn file(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(repo(rel)).unwrap()).unwrap()
}

#[test]
fn lowering_keys_a_cycling_leg_together_and_that_costs_no_byte() {
    for rig in [
        "rigs/seed-nested.json",
        "rigs/seed-smil.json",
        "rigs/recumbent.json",
        "rigs/cyclist-scarf.json",
    ] {
        let low = lowered(rig);
        let entries = low["ik"].as_array().unwrap();
        assert!(!entries.is_empty(), "{rig}");
        assert!(entries.iter().all(|e| e["keying"] == "pair"), "{rig}");
        // the shortest shape with each bone alone as a choice writes the
        // same file: for a pedalling leg the pair always wins
        let shortest = baked(&keyed(low.clone(), None), Route::Css, None);
        assert_eq!(baked(&low, Route::Css, None), shortest, "{rig}");
    }
}

#[test]
fn a_limb_keyed_together_keeps_the_goal_where_a_bone_alone_was_shorter() {
    // (rigs whose shortest shape keys some IK bone alone; walker and runner
    // bake in well under a second)
    let mut grew = 0;
    for name in ["walker", "runner", "jogger"] {
        let v = file(&format!("rigs/{name}.json"));
        let (shortest, _) = baked(&keyed(v.clone(), None), Route::Css, None);
        let (pair, err) = baked(&keyed(v.clone(), Some("pair")), Route::Css, None);
        assert!(err <= DEFAULT_TOLERANCE_PX, "{name}: {err} px");
        if pair != shortest {
            assert!(pair.len() > shortest.len(), "{name}: {} B", pair.len());
            grew += 1;
        }
        // an explicit shortest is the default
        let (explicit, _) = baked(&keyed(v.clone(), Some("shortest")), Route::Css, None);
        assert_eq!(explicit, shortest, "{name}");
        // a chosen fit and the smil route key every limb together already
        for (route, fit) in [
            (Route::Css, Some(Fit::Cubic)),
            (Route::Css, Some(Fit::Linear)),
            (Route::Smil, None),
        ] {
            assert_eq!(
                baked(&keyed(v.clone(), Some("pair")), route, fit),
                baked(&keyed(v.clone(), None), route, fit),
                "{name} {route:?} {fit:?}"
            );
        }
    }
    // (the field acts: each of these rigs keys some limb's bones alone
    // by default)
    assert_eq!(grew, 3, "rigs changed");
}

#[test]
fn a_keying_it_does_not_take_is_refused_in_one_line() {
    let v = keyed(file("rigs/rower.json"), Some("pairs"));
    common::bad(&v, &["ik[0].keying", "pairs"]);
}
