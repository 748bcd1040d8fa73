//! Degenerate geometry at the CLI: every geometry input of the rig format
//! in its degenerate forms (zero-length path segments at any position,
//! coincident points, zero and vanishing radii, lengths and periods,
//! coincident IK roots and targets, zero-length bones) either bakes with
//! exit 0 and only finite numbers in the files, or is refused with exit 2
//! and one stderr line naming the JSON path. Never a panic (101), never
//! NaN in a file, nothing written on a refusal.

mod common;

use assert_cmd::Command;
use common::repo;
use serde_json::{Value, json};
use std::fs;
use std::path::Path;
use tempfile::TempDir;

fn rig(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap()).unwrap()
}

/// What a case must give.
#[derive(Clone)]
enum Want {
    /// Exit 0 on both routes; every number in the files finite.
    Ok,
    /// Exit 2, one line naming the file and this JSON path; nothing written.
    Refused(&'static str),
}

/// `rigbake bake r.json --route both -o out/`: (exit code, stderr, files written).
fn bake(v: &Value, dir: &Path) -> (Option<i32>, String, Vec<(String, String)>) {
    let path = dir.join("r.json");
    fs::write(&path, v.to_string()).unwrap();
    let out = dir.join("out");
    let o = Command::cargo_bin("rigbake")
        .unwrap()
        .args(["bake", "--route", "both", "-q"])
        .arg(&path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let mut files = Vec::new();
    if out.exists() {
        for e in fs::read_dir(&out).unwrap() {
            let e = e.unwrap();
            files.push((
                e.file_name().to_string_lossy().into_owned(),
                fs::read_to_string(e.path()).unwrap(),
            ));
        }
    }
    files.sort();
    (o.status.code(), String::from_utf8(o.stderr).unwrap(), files)
}

/// A number token that is not finite (the writer spells them NaN / inf).
fn non_finite(svg: &str) -> bool {
    // whole tokens only: a rig may name a leg or bone "NaN" (then it shows
    // up inside class and probe names, as rb-NaN-thigh or NaN-ankle)
    svg.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
        .any(|w| matches!(w, "NaN" | "-NaN" | "inf" | "-inf"))
}

/// Bake `v` and hold the result to `want`; returns the files written.
fn check(name: &str, v: &Value, want: &Want) -> Vec<(String, String)> {
    let tmp = TempDir::new().unwrap();
    let (code, stderr, files) = bake(v, tmp.path());
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    match want {
        Want::Ok => {
            assert_eq!(code, Some(0), "{name}: {stderr}");
            assert_eq!(files.len(), 2, "{name}: {files:?}");
            for (f, svg) in &files {
                assert!(!non_finite(svg), "{name}: non-finite number in {f}");
            }
        }
        Want::Refused(path) => {
            assert_eq!(code, Some(2), "{name}: {stderr}");
            let line = stderr.trim_end();
            assert!(!line.contains('\n'), "{name}: more than one line: {stderr}");
            let head = format!(
                "rigbake: error: {}: {path}",
                tmp.path().join("r.json").display()
            );
            assert!(line.starts_with(&head), "{name}: want {head:?}, got {line}");
            assert!(files.is_empty(), "{name}: wrote {files:?}");
        }
    }
    let left: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().starts_with(".rigbake-"))
        .collect();
    assert!(left.is_empty(), "{name}: temp files left: {left:?}");
    files
}

fn edit(base: &str, f: impl FnOnce(&mut Value)) -> Value {
    let mut v = rig(base);
    f(&mut v);
    v
}

/// path-foot's foot loop, the rower's seat slide as a path, and a closed
/// path for an `ik` target of the rower's hands, each with a zero-length
/// segment first, in the middle, last, as the closing `Z`, and as a
/// degenerate curve: the SVG written is byte-identical to the path
/// without it (dropping a segment that takes no time is exact).
#[test]
fn zero_length_path_segments_anywhere_bake_exactly_as_without_them() {
    let foot = ("C 190 222 260 222 280 250", "C 260 278 190 278 160 250");
    let variants = |m: &str, a: &str, b: &str| {
        let start = m.split(' ').skip(1).collect::<Vec<_>>().join(" ");
        let end = b.rsplit(' ').take(2).collect::<Vec<_>>();
        let (ex, ey) = (end[1], end[0]);
        let (ax, ay) = {
            let w: Vec<&str> = a.rsplit(' ').take(2).collect();
            (w[1], w[0])
        };
        (
            format!("{m} {a} {b} Z"),
            vec![
                format!("{m} L {start} {a} {b} Z"),
                format!("{m} {a} L {ax} {ay} {b} Z"),
                format!("{m} {a} {b} L {ex} {ey} Z"),
                format!("{m} {a} {b} L {start}"),
                format!("{m} {a} Q {ax} {ay} {ax} {ay} {b} Z"),
                format!("{m} C {start} {start} {start} {a} {b} Z"),
            ],
        )
    };
    type Place = fn(&mut Value, &str);
    /// (rig, path start, its two curves, which variants, where it goes)
    type Case<'a> = (&'a str, &'a str, (&'a str, &'a str), &'a [usize], Place);
    // (every position on the foot loop; the first and the closing one on
    // the other two, whose bakes are slower)
    let cases: [Case; 3] = [
        (
            "path-foot",
            "M 160 250",
            foot,
            &[0, 1, 2, 3, 4, 5],
            |v, d| {
                v["ik_chains"][0]["target"] = json!({"path": {"d": d}});
            },
        ),
        (
            "rower",
            "M 0 0",
            ("L -20 0", "C -12 3 -5 3 0 0"),
            &[0, 3],
            |v, d| {
                v["root"]["move"] = json!({"path": {"d": d}});
            },
        ),
        (
            "rower",
            "M 272 200",
            ("C 240 190 190 200 175 205", "C 200 215 240 215 272 200"),
            &[1, 2],
            |v, d| {
                v["ik"][1]["target"] = json!({"path": {"d": d, "start": 0.2}});
                v["ik"][1]["reach"] = "clamp".into();
            },
        ),
    ];
    for (base, m, (a, b), which, place) in cases {
        let (plain, degenerate) = variants(m, a, b);
        let tmp = TempDir::new().unwrap();
        let (code, stderr, want) = bake(&edit(base, |v| place(v, &plain)), tmp.path());
        assert_eq!(want.len(), 2, "{base} {plain}: {stderr}");
        assert_eq!(code, Some(0), "{base} {plain}: {stderr}");
        for d in which.iter().map(|&i| &degenerate[i]) {
            let v = edit(base, |v| place(v, d));
            let got = check(&format!("{base} {d}"), &v, &Want::Ok);
            assert!(got == want, "{base} {d}: output differs from {plain}");
        }
    }
}

/// The issue's exact case: a first segment of zero length, in an
/// `ik_chains` target and in a bone tree's `root.move`.
#[test]
fn the_reported_zero_length_first_segment_bakes() {
    let d = "M 160 250 L 160 250 L 200 250 Z";
    check(
        "ik_chains target",
        &edit("path-foot", |v| {
            v["ik_chains"][0]["target"] = json!({"path": {"d": d}});
            v.as_object_mut().unwrap().remove("tolerance_px");
        }),
        &Want::Ok,
    );
    check(
        "root.move",
        &edit("rower", |v| {
            v["root"]["move"] = json!({"path": {"d": "M 0 0 L 0 0 L -30 0 Z"}});
        }),
        &Want::Ok,
    );
}

/// Trajectories (`ik_chains` roots and targets, `ik` targets, `root.move`)
/// whose every point coincides, or whose size is zero: refused at the
/// field; vanishing but positive sizes and constant motions bake.
#[test]
fn degenerate_trajectories() {
    let t = |tr: Value| {
        move |v: &mut Value| {
            v["ik_chains"][0]["target"] = tr;
            v.as_object_mut().unwrap().remove("tolerance_px");
        }
    };
    let cases: Vec<(&str, Value, Want)> = vec![
        (
            "path, one point",
            edit(
                "path-foot",
                t(json!({"path": {"d": "M 200 250 L 200 250 Z"}})),
            ),
            Want::Refused("ik_chains[0].target.path.d: has zero length"),
        ),
        (
            "path, a degenerate curve",
            edit(
                "path-foot",
                t(json!({"path": {"d": "M 200 250 C 200 250 200 250 200 250 Z"}})),
            ),
            Want::Refused("ik_chains[0].target.path.d: has zero length"),
        ),
        (
            "path, only a move",
            edit("path-foot", t(json!({"path": {"d": "M 200 250 Z"}}))),
            Want::Refused("ik_chains[0].target.path.d: has no segments"),
        ),
        (
            "path, control point out of range",
            edit(
                "path-foot",
                t(json!({"path": {"d": "M 200 250 C 1e300 250 210 260 200 250 Z"}})),
            ),
            Want::Refused("ik_chains[0].target.path.d: must be within ±1000000, got 1e300"),
        ),
        (
            "root.move path, one point",
            edit("rower", |v| {
                v["root"]["move"] = json!({"path": {"d": "M 0 0 L 0 0 L 0 0 Z"}})
            }),
            Want::Refused("root.move.path.d: has zero length"),
        ),
        (
            "ik target path, one point",
            edit("rower", |v| {
                v["ik"][1]["target"] = json!({"path": {"d": "M 240 205 L 240 205 Z"}})
            }),
            Want::Refused("ik[1].target.path.d: has zero length"),
        ),
        (
            "circle radius 0",
            edit(
                "path-foot",
                t(json!({"circle": {"center": [220, 250], "radius": 0}})),
            ),
            Want::Refused("ik_chains[0].target.circle.radius: must be at least 0.01"),
        ),
        (
            "ellipse of zero area",
            edit(
                "path-foot",
                t(json!({"ellipse": {"center": [220, 250], "rx": 30, "ry": 0}})),
            ),
            Want::Refused("ik_chains[0].target.ellipse.ry: must be at least 0.01"),
        ),
        (
            "gait stride 0",
            edit(
                "path-foot",
                t(
                    json!({"gait": {"origin": [220, 250], "stride": 0, "step_height": 0, "duty": 0.5}}),
                ),
            ),
            Want::Refused("ik_chains[0].target.gait.stride: must be at least 0.01"),
        ),
        (
            "gait duty 0",
            edit(
                "path-foot",
                t(
                    json!({"gait": {"origin": [220, 250], "stride": 20, "step_height": 5, "duty": 0}}),
                ),
            ),
            Want::Refused("ik_chains[0].target.gait.duty"),
        ),
        (
            "gait run stride 0",
            edit(
                "path-foot",
                t(
                    json!({"gait": {"origin": [220, 250], "stride": 20, "step_height": 5, "duty": 0.5,
                    "run": {"stride": 0, "step_height": 5, "duty": 0.4}, "blend": 0.5}}),
                ),
            ),
            Want::Refused("ik_chains[0].target.gait.run.stride: must be at least 0.01"),
        ),
        (
            "track keys all one point",
            edit(
                "path-foot",
                t(
                    json!({"track": {"keys": [[0, [220, 250]], [0.5, [220, 250]], [1, [220, 250]]]}}),
                ),
            ),
            Want::Ok,
        ),
        (
            "track key times equal",
            edit(
                "path-foot",
                t(json!({"track": {"keys": [[0, [220, 250]], [0, [230, 250]], [1, [220, 250]]]}})),
            ),
            Want::Refused("ik_chains[0].target.track.keys[1][0]: key times must strictly increase"),
        ),
        (
            "bob amp 0",
            edit(
                "path-foot",
                t(json!({"bob": {"center": [220, 250], "amp": 0}})),
            ),
            Want::Ok,
        ),
        (
            "circle radius 1e-300 (written as 0)",
            edit(
                "path-foot",
                t(json!({"circle": {"center": [220, 250], "radius": 1e-300}})),
            ),
            Want::Refused(
                "ik_chains[0].target.circle.radius: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "ellipse 1e-300 by 1e-300 (written as 0)",
            edit(
                "path-foot",
                t(json!({"ellipse": {"center": [220, 250], "rx": 1e-300, "ry": 1e-300}})),
            ),
            Want::Refused(
                "ik_chains[0].target.ellipse.rx: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "gait stride 1e-300, no lift (written as 0)",
            edit(
                "path-foot",
                t(
                    json!({"gait": {"origin": [220, 250], "stride": 1e-300, "step_height": 0, "duty": 0.5}}),
                ),
            ),
            Want::Refused(
                "ik_chains[0].target.gait.stride: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
    ];
    for (name, v, want) in &cases {
        check(name, v, want);
    }
}

/// A gait with a `blend` timeline whose walk or run `duty` vanishes would
/// carry its stance foot past any drawable length in a loop (stride ×
/// cycles ÷ duty): refused at the gait, naming the travel, where it once
/// reached the writer as NaN. A small duty that keeps the travel drawable
/// still bakes or misses the tolerance with a clear error.
#[test]
fn timed_gaits_with_a_vanishing_duty() {
    let gait = |field: &'static str, duty: f64| {
        move |v: &mut Value| {
            let g = &mut v["ik"][0]["target"]["gait"];
            match field {
                "duty" => g["duty"] = json!(duty),
                _ => g["run"]["duty"] = json!(duty),
            }
        }
    };
    let refused = Want::Refused("ik[0].target.gait: its stance would carry the foot");
    let cases: Vec<(&str, Value, Want)> = vec![
        (
            "run.duty 1e-300",
            edit("run-up", gait("run", 1e-300)),
            refused.clone(),
        ),
        (
            "duty 1e-300",
            edit("run-up", gait("duty", 1e-300)),
            refused.clone(),
        ),
        ("run.duty 1e-5", edit("run-up", gait("run", 1e-5)), refused),
    ];
    for (name, v, want) in &cases {
        check(name, v, want);
    }
}

/// The same bound holds for a constant gait wherever a gait can stand: the
/// rig's `ik`, any clip's (a later clip's too, whose ground would otherwise
/// scroll past any length and corrupt the other clips' slip), an
/// `ik_chains` target. Each is refused at its own path, naming the stride
/// and the duty. A ground that follows a gait too fast, or spans too many
/// dots, is refused at the field the user wrote, naming the values.
#[test]
fn constant_gaits_with_a_vanishing_duty_anywhere() {
    let gait = |at: fn(&mut Value) -> &mut Value, duty: f64| {
        move |v: &mut Value| at(v)["gait"]["duty"] = json!(duty)
    };
    let cases: Vec<(&str, Value, Want)> = vec![
        (
            "walker ik[1] duty 1e-9",
            edit("walker", gait(|v| &mut v["ik"][1]["target"], 1e-9)),
            Want::Refused(
                "ik[1].target.gait: its stance would carry the foot 4.4e10 px per loop (stride 44 ÷ duty 1e-9)",
            ),
        ),
        (
            "stickman's second clip duty 1e-300",
            edit(
                "stickman",
                gait(|v| &mut v["clips"][1]["ik"][1]["target"], 1e-300),
            ),
            Want::Refused("clips[1].ik[1].target.gait: its stance would carry the foot"),
        ),
        (
            "stickman's second clip duty 1e-20",
            edit(
                "stickman",
                gait(|v| &mut v["clips"][1]["ik"][0]["target"], 1e-20),
            ),
            Want::Refused("clips[1].ik[0].target.gait: its stance would carry the foot"),
        ),
        (
            "path-foot ik_chains gait duty 1e-300",
            edit("path-foot", |v| {
                v["ik_chains"][0]["target"] = json!({"gait": {"origin": [220, 250], "stride": 40, "step_height": 5, "duty": 1e-300}});
            }),
            Want::Refused("ik_chains[0].target.gait: its stance would carry the foot"),
        ),
        (
            "walker's followed gait at 1.76e7 px/s",
            edit("walker", |v| {
                v["period_s"] = json!(0.05);
                for i in 0..2 {
                    v["ik"][i]["target"]["gait"]["duty"] = json!(5e-5);
                }
            }),
            // the field the user wrote (not a `speed_px_s` the rig lacks)
            Want::Refused(
                "ground.follow: the gait of \"thigh_n\" moves the ground 1.76e7 px/s in clip \"main\"",
            ),
        ),
        (
            "walker's ground 1e6 px wide",
            edit("walker", |v| v["ground"]["to_x"] = json!(1e6)),
            // the span at fault, not the dot count that fits a narrow one
            Want::Refused("ground.to_x: from_x 100 to to_x 1000000"),
        ),
        (
            "walker's 1000 dots a period, 0.08 px apart",
            edit("walker", |v| v["ground"]["dots_per_period"] = json!(1000)),
            Want::Refused("ground.dots_per_period: 1000 dots over a period's travel of"),
        ),
        (
            "walker ik[1] duty 0.05 (a drawable stance)",
            edit("walker", gait(|v| &mut v["ik"][1]["target"], 0.05)),
            Want::Ok,
        ),
    ];
    for (name, v, want) in &cases {
        check(name, v, want);
    }
}

/// IK with coincident root and target (a direction of zero length), and
/// bones of zero or vanishing length.
#[test]
fn coincident_ik_points_and_zero_lengths() {
    let mut cases: Vec<(String, Value, Want)> = Vec::new();
    for reach in ["error", "clamp", "pull"] {
        let want = |p: &'static str| {
            if reach == "error" {
                Want::Refused(p)
            } else {
                Want::Ok
            }
        };
        cases.push((
            format!("ik_chains target on its root, {reach}"),
            edit("path-foot", |v| {
                v["ik_chains"][0]["target"] = json!({"fixed": [200, 100]});
                v["ik_chains"][0]["reach"] = reach.into();
                v.as_object_mut().unwrap().remove("tolerance_px");
            }),
            want("ik_chains[0]: chain \"near\" cannot reach"),
        ));
        cases.push((
            format!("ik target on its joint, {reach}"),
            edit("rower", |v| {
                v["ik"][0]["target"] = json!({"fixed": [200, 240]});
                v["ik"][0]["reach"] = reach.into();
            }),
            want("ik[0]: clip \"main\" cannot reach"),
        ));
        cases.push((
            format!("ik upper bone of length 0, {reach}"),
            edit("rower", |v| {
                v["bones"][1]["length"] = 0.into();
                v["ik"][0]["reach"] = reach.into();
            }),
            Want::Refused("ik[0].upper: bone \"thigh\" needs a length > 0"),
        ));
        cases.push((
            format!("ik lower bone of length 0, {reach}"),
            edit("rower", |v| {
                v["bones"][2]["length"] = 0.into();
                v["ik"][0]["reach"] = reach.into();
            }),
            Want::Refused("ik[0].lower: bone \"shin\" needs a length > 0"),
        ));
    }
    for (name, base, f, want) in [
        (
            "ik_chains thigh 0",
            "path-foot",
            (|v: &mut Value| v["ik_chains"][0]["thigh"] = 0.into()) as fn(&mut Value),
            Want::Refused("ik_chains[0].thigh: must be at least 0.01"),
        ),
        (
            "ik_chains thigh 1e-300, clamp (written as 0)",
            "path-foot",
            |v| {
                v["ik_chains"][0]["thigh"] = 1e-300.into();
                v["ik_chains"][0]["reach"] = "clamp".into();
                v.as_object_mut().unwrap().remove("tolerance_px");
            },
            Want::Refused(
                "ik_chains[0].thigh: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "ik_chains root and target the same circle",
            "path-foot",
            |v| {
                let c = json!({"circle": {"center": [220, 250], "radius": 20}});
                v["ik_chains"][0]["root"] = c.clone();
                v["ik_chains"][0]["target"] = c;
            },
            Want::Refused("ik_chains[0]: chain \"near\" cannot reach"),
        ),
        (
            "legs thigh 0",
            "seed-nested",
            |v| v["legs"][0]["thigh"] = 0.into(),
            Want::Refused("legs[0].thigh: must be at least 0.01"),
        ),
        (
            "legs shin 0",
            "seed-nested",
            |v| v["legs"][1]["shin"] = 0.into(),
            Want::Refused("legs[1].shin: must be at least 0.01"),
        ),
        (
            "every bone of length 0",
            "robot-arm",
            |v| {
                for b in v["bones"].as_array_mut().unwrap() {
                    b["length"] = 0.into();
                }
            },
            Want::Ok,
        ),
        (
            "bone length -0",
            "robot-arm",
            |v| v["bones"][0]["length"] = json!(-0.0),
            Want::Ok,
        ),
        (
            "bone length negative",
            "robot-arm",
            |v| v["bones"][1]["length"] = json!(-1),
            Want::Refused("bones[1].length"),
        ),
        (
            "head radius 0",
            "rower",
            |v| v["bones"][4]["head_radius"] = 0.into(),
            Want::Refused("bones[4].head_radius"),
        ),
        (
            "head radius 1e-300 (written as 0)",
            "rower",
            |v| v["bones"][4]["head_radius"] = 1e-300.into(),
            Want::Refused(
                "bones[4].head_radius: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "stroke width 0",
            "rower",
            |v| v["bones"][4]["style"]["width"] = 0.into(),
            Want::Refused("bones[4].style.width: must be at least 0.01"),
        ),
    ] {
        cases.push((name.to_string(), edit(base, f), want));
    }
    for (name, v, want) in &cases {
        check(name, v, want);
    }
}

/// Cranks, legs and the cycling rig's torso; view boxes and periods.
#[test]
fn degenerate_cranks_torsos_boxes_and_periods() {
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, &str, Edit, Want)> = vec![
        (
            "crank radius 0",
            "seed-nested",
            |v| v["crank"]["radius"] = 0.into(),
            Want::Refused("crank.radius: must be at least 0.01"),
        ),
        (
            "crank radius 1e-300 (written as 0)",
            "seed-nested",
            |v| v["crank"]["radius"] = 1e-300.into(),
            Want::Refused(
                "crank.radius: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "pedal through the hip",
            "seed-nested",
            |v| v["crank"]["center"] = json!([352, 305]),
            Want::Refused("legs[0]: leg \"near\" cannot reach"),
        ),
        (
            "pedal through the hip, clamp",
            "seed-nested",
            |v| {
                v["crank"]["center"] = json!([352, 305]);
                for l in v["legs"].as_array_mut().unwrap() {
                    l["reach"] = "clamp".into();
                }
            },
            Want::Ok,
        ),
        (
            "torso neck on the hip",
            "cyclist-scarf",
            |v| v["torso"]["neck"] = json!([352, 255]),
            Want::Refused("torso.neck: must differ from `hip`"),
        ),
        (
            "torso head radius 0",
            "cyclist-scarf",
            |v| v["torso"]["head_radius"] = 0.into(),
            Want::Refused("torso.head_radius: must be at least 0.01"),
        ),
        (
            "view box of zero width",
            "seed-nested",
            |v| v["view_box"] = json!([0, 0, 0, 600]),
            Want::Refused("view_box[2]: must be at least 0.01"),
        ),
        (
            "view box 1e-300 wide (written as 0)",
            "seed-nested",
            |v| v["view_box"] = json!([0, 0, 1e-300, 1e-300]),
            Want::Refused(
                "view_box[2]: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "period 0",
            "seed-nested",
            |v| v["period_s"] = 0.into(),
            Want::Refused("period_s: must be between"),
        ),
        (
            "period -0",
            "walker",
            |v| v["period_s"] = json!(-0.0),
            Want::Refused("period_s: must be between"),
        ),
        (
            "shortest period, cycling",
            "seed-nested",
            |v| v["period_s"] = 0.001.into(),
            Want::Ok,
        ),
        (
            "shortest period, gait and ground",
            "walker",
            |v| v["period_s"] = 0.001.into(),
            Want::Ok,
        ),
        (
            "clip period 0",
            "jump",
            |v| v["clips"][0]["period_s"] = 0.into(),
            Want::Refused("clips[0].period_s"),
        ),
        (
            "clip period 1e-300",
            "jump",
            |v| v["clips"][0]["period_s"] = 1e-300.into(),
            Want::Refused("clips[0].period_s"),
        ),
        (
            "ground of zero width",
            "walker",
            |v| v["ground"]["to_x"] = v["ground"]["from_x"].clone(),
            Want::Refused("ground.to_x"),
        ),
    ];
    for (name, base, f, want) in &cases {
        check(name, &edit(base, f), want);
    }
}

/// Verlet chains: zero and vanishing segments, colliders, a chain anchored
/// on zero-length bones, no forces at all.
#[test]
fn degenerate_verlet_chains() {
    type Edit = fn(&mut Value);
    let cases: Vec<(&str, &str, Edit, Want)> = vec![
        (
            "segment 0",
            "ponytail",
            |v| v["chains"][0]["segment"] = 0.into(),
            Want::Refused("chains[0].segment: must be at least 0.01"),
        ),
        (
            "segments 0",
            "ponytail",
            |v| v["chains"][0]["segments"] = 0.into(),
            Want::Refused("chains[0].segments"),
        ),
        (
            "segment 1e-300 (written as 0)",
            "ponytail",
            |v| v["chains"][0]["segment"] = 1e-300.into(),
            Want::Refused(
                "chains[0].segment: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "anchored on bones of length 0",
            "ponytail",
            |v| {
                for b in v["bones"].as_array_mut().unwrap() {
                    b["length"] = 0.into();
                }
            },
            Want::Ok,
        ),
        (
            "collider radius 0",
            "cyclist-scarf",
            |v| v["chains"][0]["colliders"] = json!([{"center": [390, 170], "radius": 0}]),
            Want::Refused("chains[0].colliders[0].radius: must be at least 0.01"),
        ),
        (
            "collider centred on the anchor",
            "cyclist-scarf",
            |v| v["chains"][0]["colliders"] = json!([{"center": [390, 156], "radius": 30}]),
            Want::Ok,
        ),
        (
            "collider radius 1e-300 (written as 0)",
            "cyclist-scarf",
            |v| v["chains"][0]["colliders"] = json!([{"center": [390, 170], "radius": 1e-300}]),
            Want::Refused(
                "chains[0].colliders[0].radius: must be at least 0.01 (lengths are written to 0.01), got 1e-300",
            ),
        ),
        (
            "no gravity, no wind",
            "cyclist-scarf",
            |v| {
                v["chains"][0]["gravity"] = json!([0, 0]);
                v["chains"][0].as_object_mut().unwrap().remove("wind");
            },
            Want::Ok,
        ),
    ];
    for (name, base, f, want) in &cases {
        check(name, &edit(base, f), want);
    }
}

/// The IK reach check runs beside the style check and the physics
/// simulations: with several faults the first in validation's order
/// (reach, style, springs, chains) is reported, each fault alone is, and
/// nothing is written either way.
#[test]
fn checks_run_side_by_side_report_in_order() {
    let reach = |v: &mut Value| {
        v["ik"][0]["target"] = json!({"fixed": [2000, 2000]});
        v["ik"][0]["reach"] = "error".into();
    };
    let style = |v: &mut Value| v["style"] = json!({"width_root": -1});
    let spring = |v: &mut Value| v["springs"][0]["stiffness"] = (-1).into();
    let chain = |v: &mut Value| v["chains"][0]["damping"] = 2.into();
    type Fault<'a> = (&'static str, &'a dyn Fn(&mut Value));
    let faults: [Fault; 4] = [
        ("ik[0]: clip \"main\" cannot reach", &reach),
        ("style.width_root: must be at least 0.01", &style),
        ("springs[0].stiffness: must be > 0", &spring),
        ("chains[0].damping: must be within (0, 1)", &chain),
    ];
    // every fault from the i-th on, and the i-th alone: the i-th is named
    for i in 0..faults.len() {
        let from_i = edit("cyclist", |v| {
            for (_, f) in &faults[i..] {
                f(v);
            }
        });
        check(
            &format!("faults {i}.."),
            &from_i,
            &Want::Refused(faults[i].0),
        );
        let alone = edit("cyclist", |v| faults[i].1(v));
        check(
            &format!("fault {i} alone"),
            &alone,
            &Want::Refused(faults[i].0),
        );
    }
}

/// A root squash at every scale a rig may key, in the default clip of a
/// bone tree with IK feet (the walker) and in a clip of the jump: each key
/// of `sy` vanishing, tiny, at the bounds, huge, with a width response `k`
/// that makes `sx` vanish or grow. The IK solve and the springs take the
/// figure's frame through the squash's inverse, so every scale accepted
/// bakes (finite numbers, both routes) and every other one is refused at
/// its key, one line; none reaches the solver to fail there.
#[test]
fn squash_scales_bake_or_are_refused_at_their_key() {
    let (lo, hi) = rigbake::valid::SCALE_RANGE;
    let mut cases = 0;
    for sy in [1e-300, 1e-12, lo / 2.0, lo, 0.5, hi, hi * 2.0, 1e300] {
        for k in [0.0, 0.7, -0.5] {
            let sx = 1.0 + (1.0 - sy) * k;
            let ok = (lo..=hi).contains(&sy) && (lo..=hi).contains(&sx);
            let walker = edit("walker", |v| {
                v["root"]["squash"] = json!({
                    "sy": {"keys": [[0, 1], [0.5, sy], [1, 1]]},
                    "pivot": [200, 230],
                    "k": k,
                });
            });
            let want = if ok {
                Want::Ok
            } else {
                Want::Refused("root.squash.sy.keys[1]")
            };
            check(&format!("walker sy {sy:e} k {k}"), &walker, &want);
            let jump = edit("jump", |v| {
                v["clips"][0]["root"]["squash"]["sy"]["keys"][1][1] = json!(sy);
                v["clips"][0]["root"]["squash"]["k"] = json!(k);
            });
            let want = if ok {
                Want::Ok
            } else {
                Want::Refused("clips[0].root.squash.sy.keys[1]")
            };
            check(&format!("jump sy {sy:e} k {k}"), &jump, &want);
            cases += 2;
        }
    }
    assert_eq!(cases, 48);
}

/// Path data anywhere in a rig (a scene part, an `ik_chains` target, a
/// bone tree's `ik` target, a `move` path) is read by one reader: a
/// character outside the path grammar is refused where it stands (the
/// parser would stop there and keep what it had read), and a path a figure
/// follows must be one loop (a second subpath is named), while a drawn
/// scene part may have several.
/// A rig, a path-data field of it, how to set it, and whether the figure
/// follows the path (one loop) rather than drawing it.
type PathField = (&'static str, &'static str, fn(&mut Value, &str), bool);

#[test]
fn path_data_anywhere_is_refused_at_its_first_stray_character() {
    let loop_d = "M 160 250 L 200 250 L 180 280 Z";
    let fields: [PathField; 4] = [
        (
            "path-foot",
            "ik_chains[0].target.path.d",
            |v, d| v["ik_chains"][0]["target"]["path"]["d"] = json!(d),
            true,
        ),
        (
            "path-foot",
            "scene[0].d",
            |v, d| v["scene"][0]["d"] = json!(d),
            false,
        ),
        (
            "rower",
            "root.move.path.d",
            |v, d| v["root"]["move"] = json!({"path": {"d": d}}),
            true,
        ),
        (
            "walker",
            "ik[0].target.path.d",
            |v, d| v["ik"][0]["target"] = json!({"path": {"d": d}}),
            true,
        ),
    ];
    for (rig, field, set, follows) in fields {
        for (d, want) in [
            (
                "M 160 250\u{1} L 200 250 L 180 280 Z".to_string(),
                "is not SVG path data (unexpected '\\u{1}' at character 10)",
            ),
            (
                "M 160 250 L 200 250 x 180 280 Z".to_string(),
                "is not SVG path data (unexpected 'x' at character 21)",
            ),
            (
                "M 160 250 L 200 250 L 180 280 Z\u{7f}".to_string(),
                "is not SVG path data (unexpected '\\u{7f}' at character 32)",
            ),
            (
                format!("{loop_d} M 10 10 L 20 20 L 10 20 Z"),
                "must be one loop",
            ),
        ] {
            let v = edit(rig, |v| set(v, &d));
            let path = format!("{field}: {want}");
            let want = if want == "must be one loop" && !follows {
                Want::Ok
            } else {
                Want::Refused(Box::leak(path.into_boxed_str()))
            };
            check(&format!("{rig} {field} {d:?}"), &v, &want);
        }
    }
}

/// A value that matches none of a field's forms (a bone's `at`, a track's
/// `ease`, a wind component, a gait's `blend`) is told what the forms are
/// and what it holds, and a number of the wrong type is named in the
/// format's words: never "untagged enum", "f64" or "u32". (A misspelled
/// `phase` in a wind component read only "data did not match any variant
/// of untagged enum WindComponentFile".)
#[test]
fn a_value_of_no_form_of_its_field_is_told_the_forms() {
    let walker: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/walker.json")).unwrap()).unwrap();
    let scarf: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/cyclist-scarf.json")).unwrap())
            .unwrap();
    let with = |base: &Value, pointer: &str, value: Value| {
        let mut v = base.clone();
        *v.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = value;
        v
    };
    common::bad(
        &with(&walker, "/bones/1/at", json!("end")),
        &["bones[1].at", "\"tip\"", "a point [x, y]", "found \"end\""],
    );
    common::bad(
        &with(&walker, "/bones/1/at", json!({"x": 1, "y": 2})),
        &["bones[1].at", "found an object with the keys `x`, `y`"],
    );
    common::bad(
        &with(
            &scarf,
            "/chains/0/wind/x",
            json!({"amp": 300, "harmonic": 1, "phase": 90}),
        ),
        &[
            "chains[0].wind.x",
            "`phase_deg`",
            "found an object with the keys `amp`, `harmonic`, `phase`",
        ],
    );
    common::bad(
        &with(&walker, "/period_s", json!("2")),
        &["period_s", "expected a number"],
    );
    // a whole number's field: a sign it cannot take, and a whole number
    // written as JSON writes a fraction, each said so
    for (pointer, shown) in [
        (
            "/bones/3/angle/sine/harmonic",
            "bones[3].angle.sine.harmonic",
        ),
        ("/ground/dots_per_period", "ground.dots_per_period"),
    ] {
        common::bad(
            &with(&walker, pointer, json!(-1)),
            &[shown, "integer `-1`, expected a whole number, 0 or more"],
        );
        for (value, written) in [(json!(2.0), "2.0"), (json!(1e3), "1000.0")] {
            common::bad(
                &with(&walker, pointer, value),
                &[
                    shown,
                    &format!(
                        "floating point `{written}`, expected a whole number, 0 or more, written without a decimal point or an exponent"
                    ),
                ],
            );
        }
    }
    common::bad(
        &with(&scarf, "/chains/0/segments", json!(10.5)),
        &[
            "chains[0].segments",
            "floating point `10.5`, expected a whole number, 0 or more, written without",
        ],
    );
}

/// Every field of a rig misspelled by a slip (one letter dropped, `_`
/// dropped, another case) is refused with the right name suggested; a
/// name like none of the format's gets no suggestion. (The error listed
/// every name of the object but pointed at none.)
#[test]
fn a_misspelled_field_is_told_the_name_it_likely_meant() {
    let walker: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/walker.json")).unwrap()).unwrap();
    let top = walker.as_object().unwrap();
    let bone = walker["bones"][1].as_object().unwrap();
    let mut tried = 0;
    for (fields, at) in [(top, None), (bone, Some(1))] {
        for name in fields.keys().filter(|k| !k.starts_with('$') && k.len() > 3) {
            let mut slips = vec![name.to_uppercase(), name[1..].to_string()];
            if name.contains('_') {
                slips.push(name.replace('_', ""));
            }
            for slip in slips {
                let mut v = walker.clone();
                let obj = match at {
                    None => v.as_object_mut().unwrap(),
                    Some(i) => v["bones"][i].as_object_mut().unwrap(),
                };
                let value = obj.remove(name).unwrap();
                obj.insert(slip.clone(), value);
                let msg = rigbake::rig::load(&v.to_string()).unwrap_err().to_string();
                assert!(
                    msg.contains(&format!("unknown field `{slip}`"))
                        && msg.contains(&format!("did you mean `{name}`?")),
                    "{slip}: {msg}"
                );
                tried += 1;
            }
        }
    }
    assert!(tried >= 15, "{tried} slips");
    let mut v = walker.clone();
    v["zebra"] = json!(1);
    let msg = rigbake::rig::load(&v.to_string()).unwrap_err().to_string();
    assert!(
        msg.contains("unknown field `zebra`") && !msg.contains("did you mean"),
        "{msg}"
    );
}

/// Every length, width and radius of the rig format is written to 0.01
/// (`LEN_DECIMALS`): a value that passes "> 0" but is written as 0 (a
/// `viewBox` 0 wide, a stroke or a segment of nothing) is refused at its
/// field, naming the minimum and the value, in every section that has one;
/// 0.01 itself is written as 0.01 and accepted where a field is checked
/// alone.
#[test]
fn lengths_written_as_zero_are_refused_in_every_section() {
    type Set = fn(&mut Value, Value);
    let cases: &[(&str, &str, Set)] = &[
        ("stickman", "view_box[2]", |v, x| v["view_box"][2] = x),
        ("stickman", "view_box[3]", |v, x| v["view_box"][3] = x),
        ("seed-nested", "crank.radius", |v, x| {
            v["crank"]["radius"] = x
        }),
        ("seed-nested", "legs[0].thigh", |v, x| {
            v["legs"][0]["thigh"] = x
        }),
        ("seed-nested", "legs[1].shin", |v, x| {
            v["legs"][1]["shin"] = x
        }),
        ("path-foot", "ik_chains[0].thigh", |v, x| {
            v["ik_chains"][0]["thigh"] = x
        }),
        ("path-foot", "ik_chains[1].shin", |v, x| {
            v["ik_chains"][1]["shin"] = x
        }),
        ("cyclist", "ik[0].target.circle.radius", |v, x| {
            v["ik"][0]["target"]["circle"]["radius"] = x
        }),
        ("cyclist", "ik[0].target.ellipse.rx", |v, x| {
            v["ik"][0]["target"] = json!({"ellipse": {"center": [420, 420], "rx": x, "ry": 50}})
        }),
        ("cyclist", "ik[0].target.ellipse.ry", |v, x| {
            v["ik"][0]["target"] = json!({"ellipse": {"center": [420, 420], "rx": 50, "ry": x}})
        }),
        ("jogger", "ik[0].target.gait.stride", |v, x| {
            v["ik"][0]["target"]["gait"]["stride"] = x
        }),
        ("jogger", "ik[0].target.gait.run.stride", |v, x| {
            v["ik"][0]["target"]["gait"]["run"]["stride"] = x
        }),
        ("jump", "bones[6].head_radius", |v, x| {
            v["bones"][6]["head_radius"] = x
        }),
        ("jump", "bones[1].style.width", |v, x| {
            v["bones"][1]["style"] = json!({ "width": x })
        }),
        ("stickman", "style.width_root", |v, x| {
            v["style"] = json!({ "width_root": x })
        }),
        ("stickman", "style.width_tip", |v, x| {
            v["style"] = json!({ "width_tip": x })
        }),
        ("ponytail", "chains[0].segment", |v, x| {
            v["chains"][0]["segment"] = x
        }),
        ("ponytail", "chains[0].style.width_root", |v, x| {
            v["chains"][0]["style"]["width_root"] = x
        }),
        ("ponytail", "chains[0].style.width_tip", |v, x| {
            v["chains"][0]["style"]["width_tip"] = x
        }),
        ("ponytail", "chains[0].colliders[0].radius", |v, x| {
            v["chains"][0]["colliders"] = json!([{"center": [0, 0], "radius": x}])
        }),
        ("cyclist-scarf", "torso.head_radius", |v, x| {
            v["torso"]["head_radius"] = x
        }),
        ("cyclist-scarf", "torso.width", |v, x| {
            v["torso"]["width"] = x
        }),
        ("cyclist", "scene[0].style.width", |v, x| {
            v["scene"][0]["style"]["width"] = x
        }),
    ];
    for &(base, path, set) in cases {
        for (x, shown) in [(1e-300, "1e-300"), (1e-9, "1e-9"), (0.009, "0.009")] {
            let v = edit(base, |v| set(v, json!(x)));
            common::bad(
                &v,
                &[&format!(
                    "{path}: must be at least 0.01 (lengths are written to 0.01), got {shown}"
                )],
            );
        }
    }
    // 0 is a bone's length (a joint alone) and a dash's gap; a little more is not
    let bone = edit("robot-arm", |v| v["bones"][1]["length"] = json!(1e-9));
    common::bad(
        &bone,
        &["bones[1].length: must be 0 or at least 0.01", "got 1e-9"],
    );
    let dash = edit("cyclist", |v| {
        v["scene"][0]["style"]["dash"] = json!([6, 0.001])
    });
    common::bad(
        &dash,
        &[
            "scene[0].style.dash[1]: must be 0 or at least 0.01",
            "got 0.001",
        ],
    );
    // the least accepted width and height are written as given
    let tmp = TempDir::new().unwrap();
    let least = edit("robot-arm", |v| {
        v["view_box"] = json!([0, 0, 0.01, 0.01]);
    });
    let (code, stderr, files) = bake(&least, tmp.path());
    assert_eq!(code, Some(0), "{stderr}");
    for (f, svg) in &files {
        assert!(
            svg.contains(r#"viewBox="0 0 .01 .01""#)
                && svg.contains(r#"width=".01""#)
                && svg.contains(r#"height=".01""#),
            "{f}: {}",
            &svg[..svg.len().min(300)]
        );
    }
}

/// Key times are written to 10⁻⁶ of the period (`T_DECIMALS`): a key
/// nearer than that to the one before it would be written at the same
/// time (two keyframes at one percentage, the later value winning), so it
/// is refused at its `[0]`, in every `keys` of `[t, value]` the format
/// has: bone and clip angle tracks, root x/y, squash sy, timelines (wind,
/// gait and bob blends) and `track` trajectories.
#[test]
fn keys_closer_than_the_written_time_are_refused_in_every_track() {
    let cases = [
        (
            "cyclist",
            "/bones/0/angle/track/keys",
            "bones[0].angle.track.keys",
        ),
        (
            "jump",
            "/clips/0/angles/spine/track/keys",
            "clips[0].angles.spine.track.keys",
        ),
        (
            "jump",
            "/clips/0/root/squash/sy/keys",
            "clips[0].root.squash.sy.keys",
        ),
        ("jump", "/clips/0/root/y/keys", "clips[0].root.y.keys"),
        ("spear-form", "/root/x/keys", "root.x.keys"),
        ("ponytail", "/root/y/keys", "root.y.keys"),
        (
            "jump",
            "/clips/0/ik/0/target/track/keys",
            "clips[0].ik[0].target.track.keys",
        ),
        ("rower", "/root/move/track/keys", "root.move.track.keys"),
        ("run-up", "/chains/0/wind/x/keys", "chains[0].wind.x.keys"),
        (
            "run-up",
            "/ik/0/target/gait/blend/keys",
            "ik[0].target.gait.blend.keys",
        ),
        (
            "run-up",
            "/root/move/bob/blend/keys",
            "root.move.bob.blend.keys",
        ),
    ];
    for (base, pointer, path) in cases {
        let v = edit(base, |v| {
            let keys = v.pointer_mut(pointer).unwrap().as_array_mut().unwrap();
            let mut near = keys[0].clone();
            near[0] = json!(keys[0][0].as_f64().unwrap() + 1e-10);
            keys.insert(1, near);
            // a track's ease list, if any, gains the new segment
            let ease = pointer.replace("/keys", "/ease");
            if let Some(Value::Array(e)) = v.pointer_mut(&ease) {
                e.insert(0, json!("linear"));
            }
        });
        common::bad(&v, &[&format!("{path}[1][0]: key time"), "1e-10"]);
    }
    // the reviewer's case: 0.5 then 0.5000000001 (written 50%, 50%)
    let v = edit("robot-arm", |v| {
        v["bones"][0]["angle"] = json!({"track": {
            "keys": [[0, 0], [0.5, 0], [0.5000000001, 90], [1, 0]], "ease": "linear"}})
    });
    common::bad(&v, &["bones[0].angle.track.keys[2][0]", "0.5000000001"]);
    // a first key written at 0, a last written at 1: the hold keys' times
    for (keys, at) in [
        (json!([[1e-9, 0], [0.5, 90], [1, 0]]), "keys[0][0]"),
        (json!([[0, 0], [0.5, 90], [0.9999999, 0]]), "keys[2][0]"),
    ] {
        let v = edit("robot-arm", |v| {
            v["bones"][0]["angle"] = json!({"track": {"keys": keys, "ease": "linear"}})
        });
        common::bad(&v, &[&format!("bones[0].angle.track.{at}: key time")]);
    }
    // 10⁻⁶ apart is written apart
    let tmp = TempDir::new().unwrap();
    let v = edit("robot-arm", |v| {
        v["bones"][0]["angle"] = json!({"track": {
            "keys": [[0, 0], [0.5, 0], [0.500001, 90], [1, 0]], "ease": "linear"}})
    });
    let (code, stderr, _) = bake(&v, tmp.path());
    assert_eq!(code, Some(0), "{stderr}");
}

/// A repeated key is refused in every object of the format, the objects
/// that are maps (a clip's `angles`, named by bone) and the `style`
/// object (read by hand) as every struct is: for each object of every
/// example rig, its first key written twice is an error naming the
/// object's path and the key, never the last value kept silently.
#[test]
fn a_repeated_key_is_refused_in_every_object() {
    fn objects(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if !m.is_empty() {
                    out.push(at.clone());
                }
                for (k, x) in m {
                    objects(x, format!("{at}/{k}"), out);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    objects(x, format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut tried = 0;
    for e in fs::read_dir(repo("rigs")).unwrap() {
        let path = e.unwrap().path();
        let base: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let mut at = Vec::new();
        objects(&base, String::new(), &mut at);
        for pointer in at {
            let mut v = base.clone();
            let slot = v.pointer_mut(&pointer).unwrap();
            let Value::Object(m) = slot.take() else {
                unreachable!()
            };
            *slot = json!("\u{1}here");
            let (k, x) = m.iter().next().unwrap();
            let mut inner: Vec<String> = vec![format!("{}:{x}", json!(k))];
            inner.extend(m.iter().map(|(k, x)| format!("{}:{x}", json!(k))));
            let text = v
                .to_string()
                .replace(r#""\u0001here""#, &format!("{{{}}}", inner.join(",")));
            let err = match rigbake::rig::load(&text) {
                Ok(_) => panic!("{}{pointer}: {k:?} twice accepted", path.display()),
                Err(e) => e.to_string(),
            };
            let named = err.contains(&format!("duplicate field `{k}`"))
                || err.contains(&format!("duplicate key {k:?}"));
            assert!(named, "{}{pointer}: {err}", path.display());
            tried += 1;
        }
    }
    assert!(tried > 500, "{tried} objects");
    let dup = edit("jump", |v| {
        v["clips"][0]["angles"]["neck"] = json!("\u{1}here")
    });
    let text = dup.to_string().replace(
        r#""neck":"\u0001here""#,
        r#""neck":{"const_deg":1},"neck":{"const_deg":2}"#,
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["clips"][0]["angles"]["neck"]["const_deg"], 2);
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("bad.json");
    fs::write(&file, &text).unwrap();
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("bake")
        .arg(&file)
        .arg("-o")
        .arg(tmp.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.trim_end().lines().count() == 1
            && stderr.contains("bad.json: clips[0].angles: duplicate key \"neck\""),
        "{stderr}"
    );
    assert!(!tmp.path().join("out").exists());
}
