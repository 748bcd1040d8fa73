//! The documented mapping from a v1 cycling rig (`crank` + `legs`) to an
//! `ik_chains` rig (docs/how-it-works.md, "A cycling rig as chains") is exact: every leg
//! becomes a chain with a fixed root at the hip and a circle target, and the
//! two describe the same ideal ankle at every time: the pedal at the crank
//! centre plus the pedal offset plus the radius at the crank's start plus
//! the leg's phase, turned once per period, computed here from the v1 file
//! (the chains checked as the skeleton takes them, lowered into bones by
//! `rig::lower_chains`, and so is the v1 rig, which loads as the bone tree
//! it lowers into).

use rigbake::bake::BakeOptions;
use rigbake::clip::Route;
use rigbake::figure::fk;
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::{bake_rig, rig};
use serde_json::{Value, json};
use std::fs;
use std::path::PathBuf;

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The documented mapping, applied to a v1 rig file.
fn as_chains(v1: &Value) -> Value {
    let crank = &v1["crank"];
    let num = |v: &Value, d: f64| v.as_f64().unwrap_or(d);
    let center = [num(&crank["center"][0], 0.0), num(&crank["center"][1], 0.0)];
    let chains: Vec<Value> = v1["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|leg| {
            let off = [
                num(&leg["pedal_offset"][0], 0.0),
                num(&leg["pedal_offset"][1], 0.0),
            ];
            let mut c = json!({
                "name": leg["name"],
                "root": { "fixed": leg["hip"] },
                "target": { "circle": {
                    "center": [center[0] + off[0], center[1] + off[1]],
                    "radius": crank["radius"],
                    "start_deg": num(&crank["start_deg"], 0.0) + num(&leg["phase_deg"], 0.0),
                    "direction": crank.get("direction").cloned().unwrap_or(json!("cw")),
                }},
                "thigh": leg["thigh"],
                "shin": leg["shin"],
            });
            for k in ["knee", "reach", "depth_offset"] {
                if let Some(x) = leg.get(k) {
                    c[k] = x.clone();
                }
            }
            c
        })
        .collect();
    let mut out = json!({
        "name": v1["name"],
        "view_box": v1["view_box"],
        "period_s": v1["period_s"],
        "ik_chains": chains,
    });
    if let Some(k) = v1.get("keys") {
        out["keys"] = k.clone();
    }
    out
}

/// A v1 leg's ideal ankle (the pedal) at `t`, its depth offset added, and
/// its hip so moved, from the file alone (defaults as the format documents
/// them: no offsets, phase 0, clockwise).
fn v1_leg(v1: &Value, leg: &Value) -> (impl Fn(f64) -> Vec2, Vec2) {
    let num = |v: &Value| v.as_f64().unwrap_or(0.0);
    let pt = |v: &Value| Vec2::new(num(&v[0]), num(&v[1]));
    let crank = &v1["crank"];
    let depth = pt(&leg["depth_offset"]);
    let centre = pt(&crank["center"]) + pt(&leg["pedal_offset"]) + depth;
    let radius = num(&crank["radius"]);
    let start = (num(&crank["start_deg"]) + num(&leg["phase_deg"])).to_radians();
    let sign = if crank["direction"] == "ccw" {
        -1.0
    } else {
        1.0
    };
    let ankle =
        move |t: f64| centre + Vec2::from_angle(start + sign * std::f64::consts::TAU * t) * radius;
    (ankle, pt(&leg["hip"]) + depth)
}

#[test]
fn every_v1_example_maps_to_chains_with_the_same_ideal_ankles() {
    let mut seen = 0;
    // (what the examples cover: a depth offset, more than one phase)
    let (mut deep, mut phases) = (0, std::collections::BTreeSet::new());
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let path = entry.unwrap().path();
        let v1: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        if v1.get("crank").is_none() {
            continue;
        }
        seen += 1;
        let cyc = rig::load(&v1.to_string()).unwrap();
        let chained = rig::load(&as_chains(&v1).to_string()).unwrap();
        // the chains as the skeleton takes them: lowered into bones, each
        // `ik` entry named as its chain, the depth offset moving the root
        // and the target
        let tree = rig::lower_chains(&rig::parse(&as_chains(&v1).to_string()).unwrap())
            .and_then(|f| rig::validate(&f))
            .unwrap();
        let legs = v1["legs"].as_array().unwrap();
        // the v1 rig as it loads (its own bone tree) and its chain form
        for (form, fig) in [("v1", &cyc.figure), ("chains", &tree.figure)] {
            assert_eq!(legs.len(), fig.ik.len(), "{} {form}", path.display());
            for (i, (leg, k)) in legs.iter().zip(&fig.ik).enumerate() {
                let name = leg["name"].as_str().unwrap();
                let what = format!("{} {form}: leg {name}", path.display());
                assert_eq!(k.name.as_deref(), Some(name), "{what}");
                assert_eq!(
                    (
                        leg["thigh"].as_f64().unwrap(),
                        leg["shin"].as_f64().unwrap()
                    ),
                    (fig.bones[k.upper].length, fig.bones[k.lower].length),
                    "{what}"
                );
                let (ankle, hip_at) = v1_leg(&v1, leg);
                deep += usize::from(leg.get("depth_offset").is_some());
                phases.insert(leg["phase_deg"].to_string());
                let root = fig.bones[k.upper].parent.unwrap();
                for n in 0..=1000 {
                    let t = n as f64 / 1000.0;
                    let want = ankle(t);
                    let got = fig.clips[0].targets[i].at(t);
                    assert!(
                        want.dist(got) < 1e-9,
                        "{what} at t = {t}: {want:?} vs {got:?}"
                    );
                    let hip = fk::tips(fig, &fig.clips[0], t)[root];
                    assert!(hip.dist(hip_at) < 1e-9, "{what}: {hip:?}");
                }
            }
        }
        // and the chain form bakes within the same 1 px budget on both routes
        for route in [Route::Css, Route::Smil] {
            let baked = bake_rig(
                &chained,
                &BakeOptions::resolve(&chained, route, None, Some(0.5), None),
            );
            let worst = baked
                .report
                .legs
                .iter()
                .map(|l| l.max_error_px)
                .fold(0.0, f64::max);
            assert!(worst <= 0.5, "{} {route:?}: {worst}", path.display());
        }
    }
    assert!(seen >= 3, "expected the v1 example rigs, saw {seen}");
    assert!(deep > 0 && phases.len() > 1, "{deep} {phases:?}");
}
