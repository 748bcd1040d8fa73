//! Clips that carry IK targets, a ground and physics: `rigs/stickman.json`
//! (walk, run, jump in one file) and `rigs/jump.json` measured clip by clip
//! on both routes, planted feet during a jump, one-shot physics that
//! settles and holds, and clip `ik` errors that name their JSON path.

use rigbake::geom::Vec2Ext;
use rigbake::rig;
use rigbake::solve::physics::{SETTLE_PX, SETTLE_TAIL};
use rigbake::{Route, measure};

mod common;

const CLIPS: [&str; 3] = ["walk", "run", "jump"];

/// Each clip of stickman on its own (`--clip`), on both routes, and the
/// class-switched css file with every clip: every probe within 0.25 px, and
/// every clip has its effectors, bones and hair in the report.
#[test]
fn every_stickman_clip_bakes_within_a_quarter_pixel_on_both_routes() {
    let all = rig::load(&common::rig_text("stickman.json")).unwrap();
    let r = common::bake_own(&all, Route::Css).report;
    for clip in CLIPS {
        for what in ["thigh_f-shin_f", "thigh_n-shin_n", "hair"] {
            let name = format!("{clip}:{what}");
            assert!(
                common::probe_figures(&r).iter().any(|(n, _)| *n == name),
                "the css report lacks {name}"
            );
        }
        assert!(r.bones.iter().any(|b| b.clip == clip));
    }
    let mut reports = vec![("all clips".to_string(), r)];
    for clip in CLIPS {
        let one = rig::load_clip(&common::rig_text("stickman.json"), clip).unwrap();
        for route in [Route::Css, Route::Smil] {
            reports.push((
                format!("{clip} {route:?}"),
                common::bake_own(&one, route).report,
            ));
        }
    }
    for (what, r) in &reports {
        let ps = common::probe_figures(r);
        assert!(ps.len() >= 15, "{what}: {} probes", ps.len());
        for (name, px) in ps {
            eprintln!("{what:<12} {name:<22} {px:.4} px");
            assert!(px <= 0.25, "{what} {name}: {px} px");
        }
    }
}

/// While a jump's foot is down (take-off and landing on a still ground)
/// it slips at most 0.5 px and stays within 0.5 px of the ground line, on
/// both routes, in stickman's jump and in jump.json's; walk and run (feet
/// on a scrolling ground) slip at most 0.5 px per step too.
#[test]
fn jump_feet_stay_planted_while_down() {
    let cases = [
        ("stickman.json", "jump"),
        ("jump.json", "jump"),
        ("stickman.json", "walk"),
        ("stickman.json", "run"),
    ];
    for (file, clip) in cases {
        let rig = rig::load_clip(&common::rig_text(file), clip).unwrap();
        for route in [Route::Css, Route::Smil] {
            let r = common::bake_own(&rig, route).report;
            assert_eq!(r.legs.len(), 2, "{file} {clip}");
            for l in &r.legs {
                let slip = l.slip_px.expect("a planted foot has a slip figure");
                let ground = l
                    .ground_px
                    .expect("a foot over a ground has a contact figure");
                eprintln!(
                    "{file} {clip} {route:?} {}: slip {slip} px, ground {ground} px",
                    l.name
                );
                assert!(
                    slip <= 0.5,
                    "{file} {clip} {route:?} {}: slip {slip}",
                    l.name
                );
                assert!(
                    ground <= 0.5,
                    "{file} {clip} {route:?} {}: {ground}",
                    l.name
                );
            }
        }
    }
    // the figures can fail: with "reach": "pull" and a crouch that lifts
    // the hip 20 px instead of lowering it, the pulled foot leaves its
    // planted target
    let mut v: serde_json::Value = serde_json::from_str(&common::rig_text("jump.json")).unwrap();
    for k in v["ik"].as_array_mut().unwrap() {
        k["reach"] = "pull".into();
    }
    v["clips"][0]["root"]["y"]["keys"][1][1] = (-20.0).into();
    let rig = rig::load_clip(&v.to_string(), "jump").unwrap();
    let r = common::bake_own(&rig, Route::Css).report;
    for l in &r.legs {
        eprintln!(
            "lifted hip {}: slip {:?} ground {:?}",
            l.name, l.slip_px, l.ground_px
        );
        assert!(
            l.slip_px.unwrap() > 0.5 && l.ground_px.unwrap() > 0.5,
            "{}",
            l.name
        );
    }
}

/// A one-shot clip's springs and chains start at rest, settle by the end
/// (residual motion over the last 5 % at most SETTLE_PX, as simulated and
/// as written), and the written clip holds its last frame.
#[test]
fn one_shot_physics_settles_and_holds() {
    let rig_text = r#"{
        "name": "swing", "view_box": [0, 0, 400, 400], "period_s": 1,
        "bones": [
            {"name": "arm", "at": [200, 200], "length": 60},
            {"name": "hand", "parent": "arm", "length": 20}
        ],
        "springs": [{"bone": "hand", "stiffness": 260, "damping": 30}],
        "chains": [{"name": "tassel", "anchor": {"bone": "hand"}, "segments": 3, "segment": 10,
                    "damping": 0.8}],
        "clips": [
            {"name": "idle", "angles": {"arm": {"sine": {"amp_deg": 10, "harmonic": 1}}}},
            {"name": "fling", "period_s": 2.5, "play": "once",
             "angles": {"arm": {"track": {"keys": [[0, 0], [0.2, -80], [0.3, -80], [0.4, 0], [1, 0]]}}}}
        ]
    }"#;
    let rig = rig::load(rig_text).unwrap();
    let fig = &rig.figure;
    assert_eq!(fig.physics.len(), 2);
    let once = &fig.physics[1];
    assert!(once.chains[0].recording.once && once.springs[0].recording.once);
    assert!(!fig.physics[0].chains[0].recording.once);
    for rec in [&once.chains[0].recording, &once.springs[0].recording] {
        eprintln!("simulated residual {} px", rec.seam_error_px);
        assert!(rec.seam_error_px <= SETTLE_PX);
        // it did move: the fling is not a still clip
        let moved = rec
            .frames
            .iter()
            .map(|f| f[f.len() - 1].dist(rec.frames[0][f.len() - 1]));
        assert!(moved.fold(0.0, f64::max) > 5.0);
    }
    let one = rig::load_clip(rig_text, "fling").unwrap();
    for route in [Route::Css, Route::Smil] {
        let baked = common::bake_own(&one, route);
        let clip = &baked.clip;
        let p = clip.period_s;
        let last = measure::probes_at(clip, p);
        // as written: the residual over the last 5 %
        let mut residual = 0.0f64;
        for k in 0..=50 {
            let t = p * (1.0 - SETTLE_TAIL * k as f64 / 50.0);
            let at = measure::probes_at(clip, t);
            for (name, q) in &at {
                residual = residual.max(q.dist(last[name]));
            }
        }
        eprintln!("{route:?}: written residual {residual} px");
        assert!(residual <= SETTLE_PX + 0.25, "{route:?}: {residual}");
        // and holds its last frame afterwards
        let later = measure::probes_at(clip, p * 3.0);
        for (name, q) in &later {
            assert!(q.dist(last[name]) < 1e-9, "{route:?} {name}");
        }
        for (name, px) in common::probe_figures(&baked.report) {
            assert!(px <= 0.25, "{route:?} {name}: {px}");
        }
    }
    // the same fling with no hold after it has not settled: refused, naming the chain
    let short = rig_text.replace(r#""period_s": 2.5"#, r#""period_s": 0.5"#);
    let err = rig::load(&short).unwrap_err().to_string();
    assert!(err.contains("has not settled"), "{err}");
    assert!(err.contains("\"fling\""), "{err}");
}

/// A clip's `ik` entry that names a bone without IK, a bone twice, or a
/// bad target exits 2 with one stderr line naming the file, the JSON path
/// and the value, and writes nothing.
#[test]
fn bad_clip_ik_exits_2_naming_the_json_path() {
    let base: serde_json::Value = serde_json::from_str(&common::rig_text("stickman.json")).unwrap();
    let edit = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut v = base.clone();
        f(&mut v);
        v.to_string()
    };
    let cases: Vec<(String, &[&str])> = vec![
        (
            edit(&|v| v["clips"][2]["ik"][0]["upper"] = "uarm_n".into()),
            &["clips[2].ik[0].upper", "\"uarm_n\"", "not the upper bone"],
        ),
        (
            edit(&|v| v["clips"][2]["ik"][1]["upper"] = "tail".into()),
            &["clips[2].ik[1].upper", "\"tail\"", "names no bone"],
        ),
        (
            edit(&|v| v["clips"][1]["ik"][1]["upper"] = "thigh_f".into()),
            &["clips[1].ik[1].upper", "already has a target"],
        ),
        (
            edit(&|v| v["clips"][2]["ik"][0]["target"]["track"]["keys"][1][1][0] = 1e300.into()),
            &["clips[2].ik[0].target", "1e300"],
        ),
        (
            edit(&|v| v["clips"][1]["ik"][0]["target"]["gait"]["duty"] = 1.5.into()),
            &["clips[1].ik[0].target.gait.duty", "1.5"],
        ),
        (
            edit(&|v| {
                v["clips"][0]["ik"] =
                    serde_json::json!([{"upper": "thigh_n", "target": {"wobble": 1}}])
            }),
            &["clips[0].ik[0]"],
        ),
    ];
    for (rig_text, want) in cases {
        common::assert_bake_refused(&rig_text, want);
    }
}

/// The ground under walk and run scrolls at each clip's gait speed (one
/// row of dots for all clips), and a clip whose travel per period is not a
/// whole number of dot spacings is refused at its JSON path.
#[test]
fn each_clip_scrolls_the_ground_at_its_own_gait_speed() {
    let rig = rig::load(&common::rig_text("stickman.json")).unwrap();
    let fig = &rig.figure;
    let speeds: Vec<f64> = fig.clips.iter().map(|c| c.ground_speed_px_s).collect();
    assert!(
        (speeds[0] - 45.0 / (0.6 * 0.667)).abs() < 1e-9,
        "{speeds:?}"
    );
    assert!(
        (speeds[1] - 50.0 / (0.4 * 0.392)).abs() < 1e-9,
        "{speeds:?}"
    );
    assert_eq!(speeds[2], 0.0);
    let odd = common::rig_text("stickman.json").replace(r#""stride": 50"#, r#""stride": 52"#);
    let err = rig::load(&odd).unwrap_err().to_string();
    assert!(
        err.contains("clips[1]") && err.contains("dot spacings"),
        "{err}"
    );
}
