//! A class-switched css file (a rig with `clips`) draws one skeleton, the
//! first clip's, and animates it by the rules of the clip its root class
//! names. Every clip must show there what its report measures: each probe
//! of clip j, as [`rigbake::clip::Clip::switched_to`] composes the file
//! under clip j's class, where clip j's own written clip puts it.
//!
//! The family: every kind of group a clip may add (root lift and squash,
//! an IK target's marker, a spring, a Verlet chain whose anchor moves, a
//! round head's counter groups, a ground) in a clip that is not the first,
//! and the same clips in the other order; plus every example rig with
//! clips.

use rigbake::geom::Vec2Ext;
use rigbake::{Route, measure};
use serde_json::{Value, json};

mod common;

/// The worst distance, over clip j's measure times, between where clip j
/// puts each of its probes and where the switched file shows it, with the
/// probe and time; a probe missing from the file is infinitely far.
fn worst_switched(baked: &rigbake::Baked, j: usize) -> (f64, String) {
    let own = &baked.clips[j];
    let shown = baked.clips[0].switched_to(own);
    let mut worst = (0.0_f64, String::new());
    let times = measure::sample_times(own);
    assert!(times.len() > 100, "{} times", times.len());
    for t in times {
        let file = measure::probes_at(&shown, t);
        let probes = measure::probes_at(own, t);
        // bone tips, target markers, chain particles, rims, the ground
        assert!(probes.len() >= 6, "{} probes", probes.len());
        for (name, want) in probes {
            let d = file.get(&name).map_or(f64::INFINITY, |p| p.dist(want));
            if d > worst.0 || (d.is_nan() && !worst.0.is_nan()) {
                worst = (d, format!("{name} at t = {t:.4} s"));
            }
        }
    }
    worst
}

/// A hip with an IK leg to a circle, a neck with a sprung round head and a
/// hair chain hanging from the head, over a ground, with the clips named
/// in `order`: `still` moves nothing of its own, `planted` holds the foot
/// on a point, `busy` moves everything a clip can.
fn composed(order: &[&str]) -> Value {
    let still = json!({ "name": "still" });
    let planted = json!({
        "name": "planted",
        "ik": [ { "upper": "thigh", "target": { "fixed": [150, 235] } } ]
    });
    let busy = json!({
        "name": "busy",
        "angles": { "neck": { "sine": { "amp_deg": 25, "harmonic": 1, "offset_deg": -90 } } },
        "ik": [ { "upper": "thigh", "target": { "circle": { "center": [165, 230], "radius": 18 } } } ],
        "root": {
            "move": { "bob": { "center": [150, 120], "amp": 6 } },
            "squash": { "pivot": [150, 270], "k": 0.5,
                        "sy": { "keys": [[0, 1], [0.5, 0.9], [1, 1]], "ease": "smoothstep" } }
        }
    });
    let clips: Vec<Value> = order
        .iter()
        .map(|name| match *name {
            "still" => still.clone(),
            "planted" => planted.clone(),
            _ => busy.clone(),
        })
        .collect();
    json!({
        "name": "switched",
        "view_box": [0, 0, 300, 300],
        "period_s": 1,
        "bones": [
            { "name": "hip", "at": [150, 120], "length": 0 },
            { "name": "thigh", "parent": "hip", "length": 70 },
            { "name": "shin", "parent": "thigh", "length": 70 },
            { "name": "neck", "parent": "hip", "length": 40, "angle": { "const_deg": -90 } },
            { "name": "head", "parent": "neck", "length": 14, "head_radius": 9 }
        ],
        "ik": [ { "upper": "thigh", "lower": "shin",
                  "target": { "circle": { "center": [150, 235], "radius": 20 } } } ],
        "springs": [ { "bone": "head", "stiffness": 260, "damping": 26 } ],
        "chains": [ { "name": "hair", "anchor": { "bone": "head" },
                      "segments": 3, "segment": 10, "damping": 0.8 } ],
        "ground": { "y": 270, "from_x": 20, "to_x": 280, "dots_per_period": 3, "speed_px_s": 40 },
        "clips": clips
    })
}

#[test]
fn every_clip_of_a_switched_file_shows_what_its_report_measures() {
    let mut cases: Vec<(String, rigbake::Baked)> = Vec::new();
    for order in [
        ["still", "busy", "planted"],
        ["busy", "still", "planted"],
        ["planted", "busy", "still"],
    ] {
        let v = composed(&order);
        cases.push((format!("composed {order:?}"), common::bake(&v, Route::Css)));
    }
    // the walker whose first clip plants the near foot, then walks (its
    // markers: one follows the other in walk, neither in plant), and the
    // same with the plant one-shot
    for once in [false, true] {
        let mut v: Value = serde_json::from_str(
            &std::fs::read_to_string(common::repo("rigs/walker.json")).unwrap(),
        )
        .unwrap();
        let root = v.as_object_mut().unwrap().remove("root").unwrap();
        let plant = json!({ "name": "plant", "play": if once { "once" } else { "loop" },
            "root": root,
            "ik": [ { "upper": "thigh_n", "target": { "fixed": [206, 228] } } ] });
        v["clips"] = json!([plant, { "name": "walk", "root": root }]);
        cases.push((
            format!("walker, plant once: {once}"),
            common::bake(&v, Route::Css),
        ));
    }
    for path in common::example_rigs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        if v.get("clips").is_some() {
            cases.push((path.display().to_string(), common::bake(&v, Route::Css)));
        }
    }
    let mut failed = Vec::new();
    for (what, baked) in &cases {
        assert!(
            baked.clips.len() >= 2,
            "{what}: {} clips",
            baked.clips.len()
        );
        // each clip's markers where its targets are (a marker drawn from
        // one point and keyed from another is off in the clip itself)
        for l in &baked.report.legs {
            let t = l.target_px.unwrap_or(0.0);
            if t.is_nan() || t > 0.25 {
                failed.push(format!("{what} {}: marker {t} px off", l.name));
            }
        }
        for j in 1..baked.clips.len() {
            let (d, at) = worst_switched(baked, j);
            let clip = baked.clips[j]
                .figure
                .as_ref()
                .map_or("?", |f| f.clip.as_str());
            eprintln!("{what} clip {clip}: {d:.2e} px ({at})");
            if d.is_nan() || d > 1e-6 {
                failed.push(format!("{what} clip {clip}: {d} px off ({at})"));
            }
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}
