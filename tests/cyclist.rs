//! `rigs/cyclist.json`, the whole rider on a bicycle, as baked by
//! `rigbake bake rigs/cyclist.json`: every IK effector within the rig's
//! 0.25 px on both routes, pedal targets on the crank bones' tips, the legs
//! sharing keys on css, the head's spring and the scarf settled into a loop.

mod common;

use common::{bake, repo};
use rigbake::Route;
use serde_json::Value;
use std::fs;

fn cyclist() -> Value {
    serde_json::from_str(&fs::read_to_string(repo("rigs/cyclist.json")).unwrap()).unwrap()
}

#[test]
fn every_effector_is_within_the_rigs_tolerance_on_both_routes() {
    let v = cyclist();
    let tol = v["tolerance_px"].as_f64().unwrap();
    assert!(tol <= 0.25);
    for route in [Route::Css, Route::Smil] {
        let r = bake(&v, route).report;
        let names: Vec<&str> = r.legs.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(
            names,
            ["thigh-shin", "thigh_f-shin_f", "uarm-farm", "uarm_f-farm_f"],
            "{route:?}"
        );
        for l in &r.legs {
            assert!(
                l.max_error_px <= tol,
                "{route:?} {}: {}",
                l.name,
                l.max_error_px
            );
        }
        for b in &r.bones {
            assert!(
                b.max_error_px <= tol,
                "{route:?} bone {}: {}",
                b.name,
                b.max_error_px
            );
        }
    }
}

/// The pedal targets are circles that match the crank bones exactly: each
/// `<shin>-target` probe rides in its crank's group at the crank's tip, so
/// the crank's tip is read from it (no probe of its own), and it follows the
/// crank's ideal tip all period (the crank's report line, within rounding).
#[test]
fn pedal_targets_ride_the_crank_tips() {
    for route in [Route::Css, Route::Smil] {
        let baked = bake(&cyclist(), route);
        let text = fs::read_to_string(repo("rigs/cyclist.json")).unwrap();
        let fig = rigbake::rig::load(&text).unwrap().figure;
        let tips = baked.clip.bone_tips();
        for (crank, target) in [("crank", "shin-target"), ("crank_f", "shin_f-target")] {
            let b = fig.bones.iter().position(|x| x.name == crank).unwrap();
            assert_eq!(tips[b].as_deref(), Some(target), "{route:?} {crank}");
            let line = baked
                .report
                .bones
                .iter()
                .find(|l| l.name == crank)
                .unwrap_or_else(|| panic!("{route:?}: no line for {crank}"));
            // the crank turns exactly (two keys); the probe is written to 0.01 px
            assert!(line.max_error_px <= 0.01, "{route:?} {crank}: {line:?}");
        }
    }
}

#[test]
fn the_legs_share_one_set_of_keys_on_css_and_the_body_moves() {
    let v = cyclist();
    let css = bake(&v, Route::Css);
    let smil = bake(&v, Route::Smil);
    let near = css
        .report
        .legs
        .iter()
        .find(|l| l.name == "thigh-shin")
        .unwrap();
    assert_eq!(near.reuses.as_deref(), Some("thigh_f-shin_f"));
    // the near leg's rules name the far leg's keyframes, written once
    for (far, near) in [("thigh_f", "thigh"), ("shin_f", "shin")] {
        let anim = |bone: &str| common::animation_name(&css.svg, &format!("-b-{bone}"));
        assert_eq!(anim(far), anim(near), "{near}");
        let body = format!("@keyframes {}{{", anim(far).unwrap());
        assert_eq!(css.svg.matches(&body).count(), 1, "{near}");
    }
    assert!(!smil.svg.contains("begin="));
    // the head hangs on a spring that lags the swaying torso, the scarf
    // settles into a seamless loop
    let s = &css.report.springs[0];
    assert!(
        s.converged && s.max_lag_px > 1.0 && s.seam_error_px < 0.01,
        "{s:?}"
    );
    let c = &css.report.chains[0];
    assert!(c.converged && c.seam_error_px < 0.01, "{c:?}");
}
