//! Timelines: `rigs/run-up.json` (walk → run → walk in one loop, its gait
//! blend, speed and hair wind keyed over the loop) measured from the written
//! files on both routes: no pop at the loop seam, planted feet that keep
//! pace with the ground, every probe within the rig's tolerance; and
//! timelines that do not close refused with exit 2 naming the field.

use rigbake::clip::{Clip, GROUND_PROBE};
use rigbake::geom::Vec2Ext;
use rigbake::rig::{self, Rig};
use rigbake::trajectory::Trajectory;
use rigbake::{Route, measure};

mod common;

/// The largest jump of any written probe across the loop seam: its
/// position just before the period ends against its position at 0 (the
/// ground's probe modulo the dot spacing, since the row wraps by whole
/// dots), px.
fn seam_pop_px(clip: &Clip, spacing: f64) -> (String, f64) {
    let p = clip.period_s;
    let (end, start) = (
        measure::probes_at(clip, p * (1.0 - 1e-7)),
        measure::probes_at(clip, 0.0),
    );
    let mut worst = (String::new(), 0.0f64);
    for (name, q) in &start {
        let mut d = end[name] - *q;
        if name == GROUND_PROBE {
            d.x -= (d.x / spacing).round() * spacing;
        }
        if d.len() > worst.1 {
            worst = (name.clone(), d.len());
        }
    }
    worst
}

/// Over each stance interval of each foot, the farthest the written foot
/// moves from where it touched down, relative to the written ground: a
/// stricter figure than the report's net slip per step, px.
fn worst_slide_px(rig: &Rig, clip: &Clip) -> f64 {
    let fig = &rig.figure;
    let p = clip.period_s;
    let mut worst = 0.0f64;
    for k in &fig.ik {
        let Trajectory::TimedGait(g) = &k.target else {
            panic!("run-up's feet follow timed gaits");
        };
        let foot = format!("{}-tip", fig.bones[k.lower].name);
        for (a, b) in g.stance() {
            let (ta, tb) = (a * p, b * p - 1e-9);
            // against the ground as it moves on, not as its row wraps
            let at = |t: f64| {
                let m = measure::probes_at(clip, t);
                m[&foot] - (m[GROUND_PROBE] - measure::ground_unwrap(clip, t))
            };
            let rel0 = at(ta);
            for j in 0..=40 {
                let t = ta + (tb - ta) * j as f64 / 40.0;
                worst = worst.max((at(t) - rel0).len());
            }
        }
    }
    worst
}

/// Both routes of run-up (other timelines of the class are checked on the
/// ideal path in `src/trajectory/timeline.rs`, a bake each being too slow
/// for a test): no probe pops by more than 0.1 px at the seam,
/// no planted foot slides more than 0.5 px against the ground while down
/// (nor does the report's slip or ground contact exceed 0.5 px), and every
/// probe is within the rig's 0.25 px tolerance.
#[test]
fn run_up_loops_seamlessly_with_planted_feet_on_both_routes() {
    let base = common::rig_text("run-up.json");
    let cases = [
        ("run-up", base.as_str(), Route::Css),
        ("run-up", base.as_str(), Route::Smil),
    ];
    for (what, rig_text, route) in cases {
        let rig = rig::load(rig_text).unwrap();
        let tolerance = rig.tolerance_px.unwrap();
        let spacing = rig.figure.ground_spacing_px;
        let baked = common::bake_own(&rig, route);
        let (name, pop) = seam_pop_px(&baked.clip, spacing);
        eprintln!("{what} {route:?}: seam pop {pop:.4} px ({name})");
        assert!(pop <= 0.1, "{what} {route:?}: {name} pops {pop} px");
        let slide = worst_slide_px(&rig, &baked.clip);
        eprintln!("{what} {route:?}: planted foot slides {slide:.4} px");
        assert!(slide <= 0.5, "{what} {route:?}: {slide}");
        let r = &baked.report;
        assert_eq!(r.legs.len(), 2);
        for l in &r.legs {
            let (slip, ground) = (l.slip_px.unwrap(), l.ground_px.unwrap());
            eprintln!(
                "{what} {route:?} {}: slip {slip} px, ground {ground} px",
                l.name
            );
            assert!(slip <= 0.5 && ground <= 0.5, "{what} {route:?} {}", l.name);
        }
        let ps = common::probe_figures(r);
        assert!(ps.len() >= 14, "{what}: {} probes", ps.len());
        for (name, px) in ps {
            assert!(px <= tolerance, "{what} {route:?} {name}: {px} px");
        }
        assert!(r.chains.iter().any(|c| c.name.contains("hair")));
    }
}

/// The speed changes over the loop: the ground is keyed, running at
/// least 2.5 times as fast as walking (312.5 against 112.5 px/s), and the
/// hair's wind follows (the rig keys it with the same blend).
#[test]
fn run_up_speeds_up_and_slows_down() {
    let rig = rig::load(&common::rig_text("run-up.json")).unwrap();
    let fig = &rig.figure;
    let keys = &fig.clips[0].ground_keys;
    assert!(keys.len() > 2, "{keys:?}");
    let p = fig.clips[0].period_s;
    let speed = |t: f64| {
        let i = keys.iter().position(|k| k.0 >= t).unwrap();
        -(keys[i + 1].1 - keys[i].1) / ((keys[i + 1].0 - keys[i].0) * p)
    };
    let (walk, run) = (speed(0.0), speed(0.45));
    eprintln!("ground speed walking {walk:.2} px/s, running {run:.2} px/s");
    assert!((walk - 112.5).abs() < 1.0 && (run - 312.5).abs() < 1.0);
}

/// A timeline that does not close (the last blend or wind value not the
/// first, a fractional number of gait cycles per loop, a blend outside
/// [0, 1]) exits 2 with one stderr line naming the file, the field and the
/// value, and writes nothing.
#[test]
fn a_timeline_that_does_not_close_is_refused() {
    let base: serde_json::Value = serde_json::from_str(&common::rig_text("run-up.json")).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        f(&mut v);
        v.to_string()
    };
    let cases: Vec<(String, &[&str])> = vec![
        (
            edit(&|v| v["ik"][0]["target"]["gait"]["blend"]["keys"][5][1] = 0.5.into()),
            &[
                "ik[0].target.gait.blend.keys[5][1]",
                "0.5",
                "does not close",
            ],
        ),
        (
            edit(&|v| v["ik"][1]["target"]["gait"]["run"]["cycles"] = 4.into()),
            &[
                "ik[1].target.gait.blend",
                "3.5 cycles",
                "not a whole number",
            ],
        ),
        (
            edit(&|v| v["root"]["move"]["bob"]["cycles"] = 3.5.into()),
            &["root.move.bob.blend", "4.25 cycles"],
        ),
        (
            edit(&|v| v["chains"][0]["wind"]["x"]["keys"][0][1] = (-300).into()),
            &[
                "chains[0].wind.x.keys[5][1]",
                "-400",
                "-300",
                "does not close",
            ],
        ),
        (
            edit(&|v| v["ik"][0]["target"]["gait"]["blend"]["keys"][3][1] = 1.5.into()),
            &["ik[0].target.gait.blend.keys[3][1]", "1.5", "[0, 1]"],
        ),
    ];
    for (rig_text, want) in cases {
        common::assert_bake_refused(&rig_text, want);
    }
}

/// run-up's arms keep step with the legs while the cadence changes: each
/// upper arm's sine follows the opposite leg's gait (`sine.follow`), so
/// it is at its forward extreme whenever that foot touches down, walking
/// and running alike; and the written arms do swing (the near hand's
/// probe travels more than 20 px across the loop).
#[test]
fn run_up_arms_keep_step_with_the_opposite_foot() {
    let rig = rig::load(&common::rig_text("run-up.json")).unwrap();
    let fig = &rig.figure;
    let bone = |name: &str| fig.bones.iter().position(|b| b.name == name).unwrap();
    let clip = &fig.clips[0];
    for (arm, leg) in [("uarm_n", "thigh_f"), ("uarm_f", "thigh_n")] {
        let k = fig
            .ik
            .iter()
            .find(|k| fig.bones[k.upper].name == leg)
            .unwrap();
        let Trajectory::TimedGait(g) = &k.target else {
            panic!("run-up's feet follow timed gaits");
        };
        let drive = &clip.drivers[bone(arm)];
        let forward = (0..4000)
            .map(|i| drive.eval(i as f64 / 4000.0))
            .fold(f64::INFINITY, f64::min);
        // touchdowns: stance starts, but not the part of a stance split
        // at the loop boundary that continues at t = 0
        let stance = g.stance();
        let split = stance.iter().any(|s| s.1 == 1.0);
        let touchdowns: Vec<f64> = stance
            .iter()
            .filter(|s| !(split && s.0 == 0.0))
            .map(|s| s.0)
            .collect();
        assert_eq!(touchdowns.len(), g.cadence.cycles as usize, "{stance:?}");
        for a in touchdowns {
            let at = drive.eval(a);
            assert!(
                (at - forward).abs() < 1e-6,
                "{arm} at {leg}'s touchdown t = {a:.4}: {:.3}°, forward extreme {:.3}°",
                at.to_degrees(),
                forward.to_degrees()
            );
        }
    }
    let baked = common::bake_own(&rig, Route::Css);
    let xs: Vec<f64> = (0..200)
        .map(|i| {
            measure::probes_at(&baked.clip, baked.clip.period_s * i as f64 / 200.0)["farm_n-tip"].x
        })
        .collect();
    let swing = xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        - xs.iter().cloned().fold(f64::INFINITY, f64::min);
    eprintln!("near hand swings {swing:.1} px");
    assert!(swing > 20.0, "the near hand moves {swing} px");
}

/// A `sine.follow` that names no IK entry, or one whose target is not a
/// gait with a `blend` timeline, exits 2 naming the field, and nothing is
/// written.
#[test]
fn a_sine_that_follows_no_timed_gait_is_refused() {
    let base: serde_json::Value = serde_json::from_str(&common::rig_text("run-up.json")).unwrap();
    let walker: serde_json::Value = serde_json::from_str(&common::rig_text("walker.json")).unwrap();
    let arm = |v: &serde_json::Value| {
        v["bones"]
            .as_array()
            .unwrap()
            .iter()
            .position(|b| b["name"] == "uarm_n")
            .unwrap()
    };
    let follow = |mut v: serde_json::Value, name: &str| {
        let i = arm(&v);
        v["bones"][i]["angle"] = serde_json::json!(
            {"sine": {"amp_deg": 20, "harmonic": 1, "follow": name}});
        (v.to_string(), format!("bones[{i}].angle.sine.follow"))
    };
    let mut stickman: serde_json::Value =
        serde_json::from_str(&common::rig_text("stickman.json")).unwrap();
    stickman["clips"][1]["angles"]["uarm_n"] =
        serde_json::json!({"sine": {"amp_deg": 20, "harmonic": 1, "follow": "thigh_n"}});
    let in_clip = (
        stickman.to_string(),
        "clips[1].angles.uarm_n.sine.follow".to_string(),
    );
    let cases = [
        (in_clip, "does not aim at a gait with a `blend` timeline"),
        (
            follow(base.clone(), "spine"),
            "\"spine\" is not the name or upper bone of an `ik` entry",
        ),
        (
            follow(base.clone(), "nobody"),
            "\"nobody\" is not the name or upper bone",
        ),
        (
            follow(walker.clone(), "thigh_n"),
            "does not aim at a gait with a `blend` timeline",
        ),
    ];
    for ((rig_text, field), want) in cases {
        common::assert_bake_refused(&rig_text, &[&field, want]);
    }
}
