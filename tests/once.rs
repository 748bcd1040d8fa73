//! One-shot clips (`"play": "once"`, CSS `1 forwards`) replay no keys late:
//! a negative `animation-delay` would start such an animation part-way and
//! end it early, holding its last frame for the rest of the clip. Every
//! example bone tree (without its springs and chains, which a one-shot
//! clip needs settled), each clip made one-shot, on both routes: no
//! animation has a delay, and every target marker keeps the goal.

use rigbake::Route;
use rigbake::clip::{Anim, Clip};
use serde_json::Value;

mod common;

fn delays(clip: &Clip) -> Vec<(String, f64)> {
    clip.groups()
        .into_iter()
        .filter_map(|g| {
            let d = match g.anim.as_ref()? {
                Anim::Rotate { delay_s, .. }
                | Anim::Translate { delay_s, .. }
                | Anim::Scale { delay_s, .. }
                | Anim::Motion { delay_s, .. } => *delay_s,
            };
            (d != 0.0).then(|| (g.class.clone().unwrap_or_default(), d))
        })
        .collect()
}

#[test]
fn one_shot_clips_replay_no_keys_late() {
    let mut baked = 0;
    for path in common::example_rigs() {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        if v.get("bones").is_none() {
            continue;
        }
        // (a one-shot clip's springs and chains must settle, and most
        // examples' do not within their loop: the replays are the point)
        for physics in ["springs", "chains"] {
            v.as_object_mut().unwrap().remove(physics);
        }
        match v.get_mut("clips").and_then(Value::as_array_mut) {
            Some(clips) => {
                for c in clips {
                    c["play"] = "once".into();
                }
            }
            None => v["play"] = "once".into(),
        }
        let rig = rigbake::rig::load(&v.to_string()).unwrap();
        for route in [Route::Css, Route::Smil] {
            let opts = rigbake::bake::BakeOptions::resolve(&rig, route, None, None, None);
            let b = rigbake::bake_rig(&rig, &opts);
            for clip in &b.clips {
                let d = delays(clip);
                assert!(d.is_empty(), "{} {route:?}: delayed {d:?}", path.display());
            }
            // the bake keeps its goal: every figure, target markers too
            let tol = b.report.tolerance_px.unwrap_or(0.25);
            for l in &b.report.legs {
                let t = l.target_px.unwrap_or(0.0);
                assert!(
                    t <= tol,
                    "{} {route:?} {}: target {t} px",
                    path.display(),
                    l.name
                );
            }
            baked += 1;
        }
    }
    assert!(baked >= 20, "{baked} one-shot bakes");
}
