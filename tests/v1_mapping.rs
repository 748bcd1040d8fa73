//! The documented mapping from a v1 cycling rig (`crank` + `legs`) to an
//! `ik_chains` rig (docs/how-it-works.md, "A cycling rig as chains") is exact: every leg
//! becomes a chain with a fixed root at the hip and a circle target, and the
//! two describe the same ideal ankle at every time (the chains checked as
//! the skeleton takes them: lowered into bones by `rig::lower_chains`).

use rigbake::bake::BakeOptions;
use rigbake::clip::Route;
use rigbake::figure::fk;
use rigbake::geom::Vec2Ext;
use rigbake::{bake_rig, motion, rig};
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

#[test]
fn every_v1_example_maps_to_chains_with_the_same_ideal_ankles() {
    let mut seen = 0;
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
        let fig = tree.figure.as_ref().unwrap();
        let m = motion::sample(&cyc);
        assert_eq!(m.legs.len(), fig.ik.len());
        for (i, (leg, k)) in m.legs.iter().zip(&fig.ik).enumerate() {
            let l = leg.leg();
            assert_eq!(k.name.as_deref(), Some(l.name.as_str()));
            assert_eq!(
                (l.thigh, l.shin),
                (fig.bones[k.upper].length, fig.bones[k.lower].length)
            );
            let root = fig.bones[k.upper].parent.unwrap();
            for n in 0..=1000 {
                let t = n as f64 / 1000.0;
                let want = leg.target_at(t) + l.depth_offset;
                let got = fig.clips[0].targets[i].at(t);
                assert!(
                    want.dist(got) < 1e-9,
                    "{}: leg {} at t = {t}: {want:?} vs {got:?}",
                    path.display(),
                    l.name
                );
                let hip = fk::tips(fig, &fig.clips[0], t)[root];
                assert!(hip.dist(l.hip + l.depth_offset) < 1e-9, "{hip:?}");
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
}
