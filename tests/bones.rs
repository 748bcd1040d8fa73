//! Bone trees, eased tracks, squash & stretch and clips: the issue's
//! acceptance checks on the example rigs, bad-input cases, and the same
//! files seeked in headless Chromium (skipped with a notice when Chromium is
//! absent, unless `CI=true`).

use assert_cmd::Command;
use rigbake::bake::BakeOptions;
use rigbake::browser::{self, SeekMode};
use rigbake::clip::{Clip, Ease};
use rigbake::geom::{AffineExt, Vec2, Vec2Ext};
use rigbake::rig::{self, Rig};
use rigbake::{Baked, Route, bake_rig, figure, measure};
use std::path::{Path, PathBuf};

mod common;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn load(name: &str) -> Rig {
    let text = std::fs::read_to_string(root().join("rigs").join(name)).unwrap();
    rig::load(&text).unwrap()
}

fn bake(rig: &Rig, route: Route) -> Baked {
    // the rig's own keying, as `rigbake bake` without options
    bake_rig(rig, &BakeOptions::resolve(rig, route, None, None, None))
}

fn chromium() -> Option<PathBuf> {
    if let Some(p) = browser::find_chromium() {
        return Some(p);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("chromium not found, CI requires it");
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "note: chromium not found; skipping the bone-tree browser tests"
    );
    None
}

/// Seed 000's `track()` with the jump's easing choice (easeOutCubic while
/// p < 0.5, easeInCubic after), written out independently of rigbake.
fn seed_root_y(p: f64) -> f64 {
    let keys = [
        (0.0, 0.0),
        (0.2, 10.0),
        (0.32, -6.0),
        (0.5, -160.0),
        (0.68, -70.0),
        (0.82, 4.0),
        (0.9, -2.0),
        (1.0, 0.0),
    ];
    let ease = |u: f64| {
        if p < 0.5 {
            1.0 - (1.0 - u).powi(3)
        } else {
            u * u * u
        }
    };
    if p <= keys[0].0 {
        return keys[0].1;
    }
    for w in keys.windows(2) {
        let ((t0, v0), (t1, v1)) = (w[0], w[1]);
        if p <= t1 {
            return v0 + (v1 - v0) * ease((p - t0) / (t1 - t0));
        }
    }
    keys[7].1
}

fn track(clip: &Clip, name: &str) -> usize {
    clip.tracks
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no track {name}"))
}

/// At defaults every bone tip keeps the default tolerance (or the rig's
/// `tolerance_px`) against FK, on both routes.
#[test]
fn every_bone_tip_within_the_default_tolerance_of_fk_in_both_routes() {
    for name in ["robot-arm.json", "jump.json", "spear-form.json"] {
        let rig = load(name);
        let px = rig
            .tolerance_px
            .unwrap_or(rigbake::bake::DEFAULT_TOLERANCE_PX);
        for route in [Route::Css, Route::Smil] {
            let r = bake(&rig, route).report;
            assert!(!r.bones.is_empty());
            for b in &r.bones {
                assert!(
                    b.max_error_px <= px,
                    "{name} {route:?} {} {}: {}",
                    b.clip,
                    b.name,
                    b.max_error_px
                );
            }
        }
    }
}

#[test]
fn jump_root_track_is_eight_exact_keys_matching_the_seed() {
    let rig = load("jump.json");
    for route in [Route::Css, Route::Smil] {
        let clip = bake(&rig, route).clip;
        let y = track(&clip, "rb-jump-lift-y");
        let keys = &clip.tracks[y].keys;
        assert_eq!(keys.len(), 8);
        let out = Ease::CubicBezier([0.333333, 1.0, 0.666667, 1.0]);
        let inn = Ease::CubicBezier([0.333333, 0.0, 0.666667, 0.0]);
        for (i, k) in keys[..7].iter().enumerate() {
            assert_eq!(k.ease, if i < 3 { out } else { inn }, "key {i}");
        }
        let mut worst = 0.0f64;
        for i in 0..=24_000 {
            let t_s = clip.period_s * i as f64 / 24_000.0;
            let got = measure::eval_track(&clip, y, t_s);
            worst = worst.max((got - seed_root_y(t_s / clip.period_s)).abs());
        }
        assert!(worst <= 0.01, "{route:?}: {worst}");
    }
}

#[test]
fn one_shot_holds_and_loops_repeat() {
    let mut rig = load("jump.json");
    // the prefix `rb` writes the clip's local names
    rig.prefix = Some("rb".into());
    let css = bake(&rig, Route::Css).svg;
    // the rule's timing function (between period and iteration) is the one
    // most keys use, so only the ends of each rule are fixed here
    let rule = |sel: &str| {
        let at = css.find(sel).unwrap_or_else(|| panic!("no rule {sel}"));
        css[at..at + css[at..].find('}').unwrap()].to_string()
    };
    let lift = rule("[class~=\"rb-clip-jump\"] .rb-lift-y{");
    assert!(
        lift.starts_with("[class~=\"rb-clip-jump\"] .rb-lift-y{animation:rb-jump-lift-y 1.2s ")
    );
    assert!(lift.ends_with(" 1 forwards"), "{lift}");
    let spine = rule("[class~=\"rb-clip-idle\"] .rb-b-spine{");
    // its own keyframes, or a shared unit block under `linear()` stops
    assert!(
        spine.starts_with("[class~=\"rb-clip-idle\"] .rb-b-spine{animation:rb-"),
        "{spine}"
    );
    assert!(spine.contains(" 2.4s "), "{spine}");
    assert!(spine.contains(" infinite;"), "{spine}");
    assert!(css.contains("class=\"rb-clip-jump\""));
    let smil = bake(&rig, Route::Smil);
    assert!(smil.svg.contains("fill=\"freeze\""));
    assert!(!smil.svg.contains("repeatCount"));
    assert!(
        smil.report
            .notes
            .iter()
            .any(|n| n.contains("only the first clip (jump)")),
        "{:?}",
        smil.report.notes
    );
    let arm = bake(&load("robot-arm.json"), Route::Smil).svg;
    assert!(arm.contains("repeatCount=\"indefinite\""));
    // the one-shot clip ends where it started and stays there
    let clip = bake(&rig, Route::Css).clip;
    let end = measure::probes_at(&clip, clip.period_s * 3.0);
    let last = measure::probes_at(&clip, clip.period_s);
    for (k, p) in &end {
        assert!(p.dist(last[k]) < 1e-9, "{k}");
    }
}

#[test]
fn squash_keeps_the_pivot_and_widens() {
    let rig = load("jump.json");
    let fig = &rig.figure;
    let c = &fig.clips[0];
    let sq = c.root.squash.as_ref().unwrap();
    // at the crouch key sy = 0.84, so sx = 1 + 0.16·0.7
    let m = figure::fk::root_matrix(&c.root, 0.2);
    let p = m.apply(sq.pivot - Vec2::new(0.0, 10.0)); // cancel the lift of +10
    assert!(p.dist(sq.pivot) < 1e-9);
    let [a, _, _, d, _, _] = m.as_coeffs();
    assert!((a - 1.112).abs() < 1e-12 && (d - 0.84).abs() < 1e-12);
}

fn bad(text: &str, want: &[&str]) {
    let err = rig::load(text).unwrap_err().to_string();
    for w in want {
        assert!(err.contains(w), "{err:?} lacks {w:?}");
    }
}

fn arm(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let text = std::fs::read_to_string(root().join("rigs/robot-arm.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    edit(&mut v);
    v.to_string()
}

#[test]
fn bad_bone_inputs_name_their_path() {
    use serde_json::json;
    bad(
        &arm(|v| v["bones"][1]["parent"] = json!("elbow")),
        &["bones[1].parent", "names no bone"],
    );
    bad(
        &arm(|v| v["bones"][0]["parent"] = json!("fore")),
        &["bones[0].parent", "earlier bone"],
    );
    bad(
        &arm(|v| {
            v["bones"][0]
                .as_object_mut()
                .unwrap()
                .remove("at")
                .map(|_| ())
                .unwrap()
        }),
        &["bones[0].at", "root bone"],
    );
    bad(
        &arm(|v| v["bones"][2]["length"] = json!(-1)),
        &["bones[2].length", "must be 0 or at least 0.01"],
    );
    bad(
        &arm(|v| v["bones"][1]["depth_offset"] = json!([1, 2])),
        &["bones[1].depth_offset", "only a root bone"],
    );
    bad(
        &arm(|v| v["bones"][0]["depth_offset"] = json!([1e300, 2])),
        &["bones[0].depth_offset[0]", "1e300"],
    );
    bad(
        &arm(|v| v["bones"][0]["depth_offset"] = json!([1])),
        &["bones[0].depth_offset"],
    );
    bad(
        &arm(|v| v["bones"][2]["name"] = json!("upper")),
        &["bones[2].name", "\"upper\""],
    );
    bad(
        &arm(|v| v["bones"][1]["style"] = json!({"stroke": "red;x"})),
        &["bones[1].style.stroke", "colour"],
    );
    bad(
        &arm(|v| v["bones"][0]["angle"]["sine"]["harmonic"] = json!(65)),
        &["bones[0].angle.sine.harmonic", "at most 64"],
    );
    bad(
        &arm(|v| v["bones"][0]["angle"] = json!({"track": {"keys": [[0, 1], [0, 2]]}})),
        &["bones[0].angle.track.keys[1][0]", "strictly increase"],
    );
    bad(
        &arm(|v| v["bones"][0]["angle"] = json!({"track": {"keys": [[0, 1], [1.5, 2]]}})),
        &["bones[0].angle.track.keys[1][0]", "[0, 1]"],
    );
    bad(
        &arm(|v| v["bones"][0]["angle"] = json!({"track": {"keys": []}})),
        &["bones[0].angle.track.keys", "between 1"],
    );
    bad(
        &arm(|v| {
            v["bones"][0]["angle"] =
                json!({"track": {"keys": [[0, 1], [0.5, 2], [1, 1]], "ease": ["linear"]}})
        }),
        &["bones[0].angle.track.ease", "2 for 3 keys, got 1"],
    );
    bad(
        &arm(|v| v["bones"][0]["angle"] = json!({"spin": 3})),
        &["bones[0].angle", "unknown variant `spin`"],
    );
    bad(
        &arm(|v| v["bones"][1]["move"] = json!({"bob": {"center": [0, 0], "amp": 4}})),
        &["bones[1].move", "only a root bone"],
    );
    bad(
        &arm(|v| v["bones"][0]["move"] = json!({"bob": {"center": [0, 0], "amp": 1e300}})),
        &["bones[0].move.bob.amp", "1e300"],
    );
    bad(
        &arm(|v| v["bones"][0]["move"] = json!({"circle": {"center": [0, 0], "radius": -3}})),
        &["bones[0].move.circle.radius", "-3"],
    );
    bad(
        &arm(|v| {
            v["root"] = json!({"squash": {"sy": {"keys": [[0, 1], [1, 0]]}, "pivot": [0, 0]}})
        }),
        &["root.squash.sy.keys[1][1]", "from 0.001 to 1000, got 0"],
    );
    bad(
        &arm(|v| v["clips"] = json!([{"name": "a", "angles": {"elbow": {"const_deg": 1}}}])),
        &["clips[0].angles.elbow", "names no bone"],
    );
    bad(
        &arm(|v| v["clips"] = json!([{"name": "a"}, {"name": "a"}])),
        &["clips[1].name", "\"a\""],
    );
    bad(
        &arm(|v| v["clips"] = json!([{"name": "a", "period_s": 0}])),
        &["clips[0].period_s", "between 0.001 and 3600"],
    );
    bad(
        &arm(|v| v["crank"] = json!({"center": [0, 0], "radius": 5})),
        &["crank", "not both"],
    );
    bad(
        &arm(|v| {
            v.as_object_mut().unwrap().remove("bones");
        }),
        &["(root)", "found neither"],
    );
    bad(
        &arm(|v| {
            v.as_object_mut().unwrap().remove("bones");
            v["clips"] = json!([{"name": "a"}]);
        }),
        &["clips", "add `bones`"],
    );
}

#[test]
fn cli_reports_bad_bones_and_fails_check_on_bone_drift() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    std::fs::write(
        &path,
        arm(|v| v["bones"][1]["parent"] = serde_json::json!("x")),
    )
    .unwrap();
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .args(["bake", path.to_str().unwrap(), "-o"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("bad.json") && err.contains("bones[1].parent"),
        "{err}"
    );

    let rig = root().join("rigs/robot-arm.json");
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .args(["check", rig.to_str().unwrap(), "--max-error", "0.001"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bone fore"), "{err}");
    let ok = Command::cargo_bin("rigbake")
        .unwrap()
        .args([
            "check",
            rig.to_str().unwrap(),
            "--max-error",
            "0.25",
            "--route",
            "both",
        ])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
}

/// Chromium's probes are within the report's figure (+ 0.05 px) of the FK
/// ideal, both routes.
#[test]
fn browser_places_robot_arm_tips_where_fk_says() {
    let Some(chromium) = chromium() else { return };
    let rig = load("robot-arm.json");
    let fig = &rig.figure;
    for (route, mode) in [
        (Route::Css, SeekMode::WebAnimations),
        (Route::Smil, SeekMode::Smil),
    ] {
        let b = bake(&rig, route);
        let worst = b
            .report
            .bones
            .iter()
            .map(|x| x.max_error_px)
            .fold(0.0, f64::max);
        assert!(worst > 0.0 && worst <= rigbake::bake::DEFAULT_TOLERANCE_PX);
        let times: Vec<f64> = (0..24)
            .map(|i| b.clip.period_s * i as f64 / 24.0 + 0.013)
            .collect();
        let got =
            browser::probe_positions(&browser::Browser::chromium(&chromium), &b.svg, mode, &times)
                .unwrap();
        for (t, probes) in times.iter().zip(&got) {
            let want = figure::bake::ideal_tips(fig, &fig.clips[0], b.clip.period_s, *t);
            for (bone, w) in fig.bones.iter().zip(want) {
                let p = probes[&format!("{}-tip", bone.name)];
                let d = Vec2::new(p[0], p[1]).dist(w);
                assert!(d <= worst + 0.05, "{route:?} t={t} {}: {d}", bone.name);
            }
        }
    }
}

/// Switching the root class from `<prefix>-clip-jump` to `<prefix>-clip-idle` in the live page
/// (as a page switching clips does) changes the pose, and each class shows
/// its own clip (as FK says: every tip within its clip's report figure
/// and 0.05 px).
#[test]
fn browser_class_switch_selects_the_clip() {
    let Some(chromium) = chromium() else { return };
    let rig = load("jump.json");
    let fig = &rig.figure;
    let b = bake(&rig, Route::Css);
    // the root carries `<prefix>-clip-jump`; `<prefix>-clip-idle` selects idle
    let root = roxmltree::Document::parse(&b.svg).unwrap();
    let class = root.root_element().attribute("class").unwrap();
    let idle = format!("{}-clip-idle", class.strip_suffix("-clip-jump").unwrap());
    let t = 0.6; // mid-air in the jump
    let (before, after) =
        browser::probe_class_switch(&browser::Browser::chromium(&chromium), &b.svg, &idle, &[t])
            .unwrap();
    let head = |p: &browser::Probes| {
        let h = p["head-tip"];
        Vec2::new(h[0], h[1])
    };
    let (jump, idle) = (head(&before[0]), head(&after[0]));
    assert!(jump.dist(idle) > 100.0, "{jump:?} vs {idle:?}");
    for (k, probes) in [0, 1].into_iter().zip([&before[0], &after[0]]) {
        let period = rigbake::geom::quantize(fig.clips[k].period_s, 6);
        let want = figure::bake::ideal_tips(fig, &fig.clips[k], period, t);
        for (bone, w) in fig.bones.iter().zip(want) {
            let p = probes[&format!("{}-tip", bone.name)];
            let d = Vec2::new(p[0], p[1]).dist(w);
            let line = (b.report.bones.iter())
                .find(|l| l.clip == fig.clips[k].name && l.name == bone.name)
                .unwrap_or_else(|| panic!("no report line for clip {k} {}", bone.name));
            let worst = line.max_error_px;
            assert!(
                d <= worst + 0.05,
                "clip {k} {}: {d} (report {worst})",
                bone.name
            );
        }
    }
}

/// A bone of length 0 (a wheel hub, a still frame, a chain's hip) draws no
/// tip probe and has no report line; every other bone has both, on every
/// bone tree in `rigs/` (the `ik_chains` and cycling ones loaded as bones)
/// and both routes, except on the smil route the two bones of an `ik`
/// limb written as one morphed path (`"smil": "morph"`, as every lowered
/// cycling leg): neither has a line and the knee is not probed; the
/// limb's own line reports its effector, the lower bone's tip. cyclist, rower and path-foot hold such bones.
#[test]
fn bones_of_length_zero_have_no_tip_probe_and_no_report_line() {
    use rigbake::figure::file::IkSmil;
    let mut zero = 0;
    let mut merged = 0;
    let mut morphed_bones = 0;
    let mut names: Vec<String> = std::fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let rig = load(&name);
        let fig = &rig.figure;
        for route in [Route::Css, Route::Smil] {
            let baked = bake(&rig, route);
            let probes = measure::probes_at(&baked.clip, 0.0);
            let lines: Vec<&str> = baked.report.bones.iter().map(|b| b.name.as_str()).collect();
            let written = baked.clip.bone_tips();
            let morphs: Vec<_> = fig
                .ik
                .iter()
                .filter(|k| route == Route::Smil && k.smil == IkSmil::Morph)
                .collect();
            for k in &morphs {
                let leg = k.name.as_deref().expect("a morphed limb is named");
                assert!(
                    baked.report.legs.iter().any(|l| l.name == leg),
                    "{name}: no line for the morphed limb {leg}"
                );
            }
            for (b, bone) in fig.bones.iter().enumerate() {
                let what = format!("{name} {route:?} {}", bone.name);
                if let Some(k) = morphs.iter().find(|k| k.upper == b || k.lower == b) {
                    // no line of its own; the upper bone's tip (the knee)
                    // is not probed, the lower's is the limb's effector
                    assert!(!lines.contains(&bone.name.as_str()), "{what}");
                    let effector = format!("{}-ankle", k.name.as_deref().unwrap());
                    let tip = fig.tip_probe(b);
                    assert_eq!(tip == effector, k.lower == b, "{what}: {tip}");
                    assert_eq!(probes.contains_key(&tip), k.lower == b, "{what}: {tip}");
                    morphed_bones += 1;
                    continue;
                }
                // its own probe, or (a crank's tip at its pedal) the
                // target probe drawn there in its group
                let tip = written[b].clone();
                if let Some(t) = tip.as_ref().filter(|&t| *t != fig.tip_probe(b)) {
                    assert!(t.ends_with("-target"), "{what}: {t}");
                    assert!(!probes.contains_key(&fig.tip_probe(b)), "{what}");
                    merged += 1;
                }
                let probed = tip.is_some_and(|t| probes.contains_key(&t));
                let line = lines.contains(&bone.name.as_str());
                assert_eq!(probed, bone.length > 0.0, "{what}");
                assert_eq!(line, bone.length > 0.0, "{what}");
                assert_eq!(fig.has_tip_probe(b), bone.length > 0.0, "{what}");
                zero += usize::from(bone.length == 0.0);
            }
        }
    }
    // cyclist's 7, rower's seat, path-foot's two hips, on both routes
    assert!(zero >= 20, "{zero}");
    // the cyclist's two cranks, on both routes
    assert!(merged >= 4, "{merged}");
    // two legs of two bones on each cycling rig (cyclist-scarf, recumbent,
    // seed-nested, seed-smil), on the smil route
    assert!(morphed_bones >= 16, "{morphed_bones}");
}

/// A sine that never moves (amplitude 0, or harmonic 0) is the constant it
/// holds, on both routes: the same file, byte for byte, as that
/// `const_deg` (no keyframes, no animated groups), no keys in the report
/// and its note that every channel is constant.
#[test]
fn a_sine_that_never_moves_is_a_constant() {
    use serde_json::json;
    let each = |f: &dyn Fn(&mut serde_json::Value)| {
        arm(|v| {
            for b in v["bones"].as_array_mut().unwrap() {
                f(&mut b["angle"]);
            }
        })
    };
    let konst =
        each(&|a| *a = json!({"const_deg": a["sine"]["offset_deg"].as_f64().unwrap_or(0.0)}));
    for still in [
        each(&|a| a["sine"]["amp_deg"] = json!(0)),
        each(&|a| {
            a["sine"]["harmonic"] = json!(0);
            a["sine"]["phase_deg"] = json!(0);
        }),
    ] {
        for route in [Route::Css, Route::Smil] {
            let (a, b) = (
                bake(&rig::load(&still).unwrap(), route),
                bake(&rig::load(&konst).unwrap(), route),
            );
            assert_eq!(a.svg, b.svg, "{route:?}: {still}");
            assert!(!a.svg.contains("@keyframes") && !a.svg.contains("<animate"));
            assert!(a.report.bones.iter().all(|l| l.keys == 0), "{route:?}");
            assert!(
                a.report
                    .notes
                    .iter()
                    .any(|n| n.contains("constant or an exact eased track")),
                "{route:?}: {:?}",
                a.report.notes
            );
        }
    }
}

/// A bad `depth_offset` through the CLI: exit 2, one stderr line naming
/// the file, the field and the value, nothing written.
#[test]
fn a_bad_depth_offset_exits_2_naming_file_field_and_value() {
    use serde_json::json;
    let cases: [(String, &[&str]); 3] = [
        (
            arm(|v| v["bones"][1]["depth_offset"] = json!([1, 2])),
            &["bones[1].depth_offset", "only a root bone"],
        ),
        (
            arm(|v| v["bones"][0]["depth_offset"] = json!([1e300, 2])),
            &["bones[0].depth_offset[0]", "1e300"],
        ),
        (
            arm(|v| v["bones"][0]["depth_offset"] = json!("up")),
            &["bones[0].depth_offset", "\"up\""],
        ),
    ];
    for (text, needles) in cases {
        common::bad(&serde_json::from_str(&text).unwrap(), needles);
    }
}

/// A looping clip whose bone `track` ends at another angle than it starts
/// gets a note naming the bone, the clip and the jump (it baked with exit
/// 0 and the bone popped back every loop); a track that ends a whole turn
/// on, or one in a one-shot clip, gets none, nor does any example rig.
#[test]
fn a_looping_track_that_does_not_close_is_noted() {
    let jumps = |rig: &Rig| -> Vec<String> {
        bake(rig, Route::Css)
            .report
            .notes
            .into_iter()
            .filter(|n| n.contains("every loop jumps back"))
            .collect()
    };
    for path in std::fs::read_dir(root().join("rigs")).unwrap() {
        let path = path.unwrap().path();
        let rig = rig::load(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert!(jumps(&rig).is_empty(), "{}", path.display());
    }
    let text = std::fs::read_to_string(root().join("rigs/spear-form.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let keys = v["bones"][0]["angle"]["track"]["keys"]
        .as_array_mut()
        .unwrap();
    let last = keys.len() - 1;
    keys[last][1] = serde_json::json!(-60);
    let rig = rig::load(&v.to_string()).unwrap();
    let got = jumps(&rig);
    assert_eq!(got.len(), 1, "{got:?}");
    assert!(
        got[0].starts_with("bone \"spine\" (main): its track ends 30° from"),
        "{got:?}"
    );
    // a whole turn on closes the loop
    v["bones"][0]["angle"]["track"]["keys"][last][1] = serde_json::json!(270);
    assert!(jumps(&rig::load(&v.to_string()).unwrap()).is_empty());
    // and a one-shot clip may end anywhere
    v["bones"][0]["angle"]["track"]["keys"][last][1] = serde_json::json!(-60);
    v["play"] = serde_json::json!("once");
    assert!(jumps(&rig::load(&v.to_string()).unwrap()).is_empty());
}
