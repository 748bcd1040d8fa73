//! Bounded cost: every rig's simulations (Verlet chains, springs) share one
//! budget of particle updates, checked before each simulation starts, so a
//! rig within the documented limits is baked or refused in seconds; and a
//! single slow bake is announced on a terminal only.

mod common;

use assert_cmd::Command;
use common::repo;
use serde_json::{Value, json};
use std::fs;
use std::time::{Duration, Instant};
use tempfile::TempDir;

fn rig(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap()).unwrap()
}

/// `rigbake bake` on `v`: exit 2 within `limit`, one stderr line holding
/// every needle, the previous output untouched and no temp file left.
fn refused(v: &Value, needles: &[&str], limit: Duration) -> String {
    refused_with(v, &[], needles, limit)
}

/// [`refused`] with more arguments after `bake <rig>`.
fn refused_with(v: &Value, args: &[&str], needles: &[&str], limit: Duration) -> String {
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("r.json");
    fs::write(&path, v.to_string()).unwrap();
    let out = tmp.path().join("out");
    fs::create_dir(&out).unwrap();
    let old = out.join(format!("{}.svg", v["name"].as_str().unwrap()));
    fs::write(&old, "previous").unwrap();
    let t0 = Instant::now();
    let o = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("bake")
        .arg(&path)
        .args(args)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let took = t0.elapsed();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    let line = stderr.trim_end();
    assert!(!line.contains('\n'), "{stderr}");
    let head = format!("rigbake: error: {}: ", path.display());
    assert!(line.starts_with(&head), "{line}");
    assert_eq!(common::doubled_word(line), None, "{line}");
    for n in needles {
        assert!(line.contains(n), "lacks {n:?}: {line}");
    }
    assert!(took < limit, "took {took:?}: {line}");
    assert_eq!(fs::read_to_string(&old).unwrap(), "previous");
    let names: Vec<String> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
    line.to_string()
}

/// The issue's case: the scarf at the documented maximum period is refused
/// before any simulation, with the sum that exceeds the budget (its fixed
/// anchor is a root bone of the tree the rig loads as, so each sub-step
/// also counts that tree's 13 bones of FK).
#[test]
fn the_longest_period_with_a_chain_is_refused_up_front() {
    let mut v = rig("cyclist-scarf");
    v["period_s"] = 3600.into();
    refused(
        &v,
        &[
            "chains[0]: simulating one period takes period_s 3600 s = 12960000 sub-steps × (11 particles × 6 passes + 13 for the anchor's FK) = 1.02384e9 particle updates",
            "simulation budget of 1e8",
            "shorten period_s",
        ],
        Duration::from_secs(5),
    );
}

/// The class: every simulated kind at a long period, with FK-driven
/// anchors and targets, and a second chain that finds the budget spent.
#[test]
fn long_periods_are_refused_for_every_simulation() {
    // the ponytail with 8 more (zero-length) bones, each costing FK work
    let mut v = rig("ponytail");
    v["period_s"] = 3600.into();
    for i in 0..8 {
        v["bones"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": format!("b{i}"), "parent": "neck", "length": 0}));
    }
    refused(
        &v,
        &[
            "springs[0]: simulating one period takes period_s 3600 s",
            "(1 spring + 10 for its target's FK)",
        ],
        Duration::from_secs(5),
    );
    v.as_object_mut().unwrap().remove("springs");
    refused(
        &v,
        &[
            "chains[0]: simulating one period",
            "(19 particles × 6 passes + 10 for the anchor's FK)",
        ],
        Duration::from_secs(5),
    );
    // colliders multiply the passes
    let mut v = rig("cyclist-scarf");
    v["period_s"] = 200.into();
    v["chains"][0]["colliders"] =
        json!([{"center": [0, 0], "radius": 1}, {"center": [5, 0], "radius": 1}]);
    refused(
        &v,
        &[
            "chains[0]:",
            "(11 particles × 6 passes × (1 + 2 colliders) + 13 for the anchor's FK)",
        ],
        Duration::from_secs(5),
    );
    // two chains that each fit alone, but not together
    let mut v = rig("cyclist-scarf");
    v["period_s"] = 100.into();
    let mut second = v["chains"][0].clone();
    second["name"] = "scarf2".into();
    v["chains"].as_array_mut().unwrap().push(second);
    refused(
        &v,
        &[
            "chains[1]: simulating one period",
            "left after the simulations before it",
        ],
        Duration::from_secs(60),
    );
}

/// A chain that never settles stops when the budget is spent (about a
/// second or two of work, not 400 warm-up periods), with a message saying so.
#[test]
fn a_chain_that_does_not_converge_stops_at_the_budget() {
    let mut v = rig("cyclist-scarf");
    v["chains"][0]["damping"] = 0.9999.into();
    refused(
        &v,
        &[
            "chains[0]: the simulated loop does not close",
            "after 292 warm-up periods",
            "the rig's simulation budget allows no more periods of this chain",
            "lower `damping`",
        ],
        Duration::from_secs(60),
    );
    // an undamped spring stops there too
    let mut v = rig("ponytail");
    v["springs"][0]["damping"] = 1e-9.into();
    v.as_object_mut().unwrap().remove("chains");
    refused(
        &v,
        &[
            "springs[0]: the simulated loop does not close",
            "raise `damping`",
        ],
        Duration::from_secs(60),
    );
}

/// Documented maxima: warm-up cap, Verlet chains and IK chains per rig,
/// colliders per chain.
#[test]
fn counts_beyond_the_documented_maxima_are_refused() {
    let mut v = rig("cyclist-scarf");
    v["chains"][0]["max_warmup_periods"] = 10_000.into();
    refused(
        &v,
        &["chains[0].max_warmup_periods: must be within 1..=1000, got 10000"],
        Duration::from_secs(5),
    );
    let mut v = rig("cyclist-scarf");
    let chain = v["chains"][0].clone();
    v["chains"] = (0..5)
        .map(|i| {
            let mut c = chain.clone();
            c["name"] = format!("s{i}x").into();
            c
        })
        .collect();
    refused(
        &v,
        &["chains: at most 4 chains, got 5"],
        Duration::from_secs(5),
    );
    let mut v = rig("path-foot");
    let chain = v["ik_chains"][0].clone();
    v["ik_chains"] = (0..9)
        .map(|i| {
            let mut c = chain.clone();
            c["name"] = format!("c{i}x").into();
            c
        })
        .collect();
    refused(
        &v,
        &["ik_chains: at most 8 chains, got 9"],
        Duration::from_secs(5),
    );
    let mut v = rig("ponytail");
    v["chains"][0]["colliders"] = (0..17)
        .map(|i| json!({"center": [i, 0], "radius": 1}))
        .collect();
    refused(
        &v,
        &["chains[0].colliders: at most 16 colliders, got 17"],
        Duration::from_secs(5),
    );
}

/// A single bake that takes more than a second says "baking <file>…" on a
/// terminal (erased before the summary), and nothing in a pipe.
#[test]
fn a_slow_single_bake_is_announced_on_a_terminal_only() {
    let tmp = TempDir::new().unwrap();
    // two scarves at 45 s: about 86 % of the simulation budget
    let mut v = rig("cyclist-scarf");
    v["period_s"] = 45.into();
    let mut second = v["chains"][0].clone();
    second["name"] = "scarf2".into();
    v["chains"].as_array_mut().unwrap().push(second);
    let path = tmp.path().join("slow.json");
    fs::write(&path, v.to_string()).unwrap();
    let piped = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("bake")
        .arg(&path)
        .arg("-o")
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(piped.status.code(), Some(0));
    assert!(piped.stderr.is_empty(), "{:?}", piped.stderr);
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipping the terminal half: `script` (util-linux) not found");
        return;
    }
    let cmd = format!(
        "{} bake {} -o {}",
        env!("CARGO_BIN_EXE_rigbake"),
        path.display(),
        tmp.path().display()
    );
    let t0 = Instant::now();
    let o = std::process::Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    if t0.elapsed() > Duration::from_millis(1500) {
        let at = text.find(&format!("baking {}…", path.display()));
        let summary = text.find("cyclist-scarf (css");
        assert!(at.is_some() && summary.is_some(), "{text:?}");
        // erased before the summary
        assert!(
            text[at.unwrap()..summary.unwrap()].contains("\r\x1b[2K"),
            "{text:?}"
        );
    }
    // a quick one says nothing
    let quick = format!(
        "{} bake {} -o {}",
        env!("CARGO_BIN_EXE_rigbake"),
        repo("rigs/seed-nested.json").display(),
        tmp.path().display()
    );
    let o = std::process::Command::new("script")
        .args(["-qec", &quick, "/dev/null"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stdout).contains("baking"));
}

/// A bone tree's bake is estimated up front (every fitted channel of
/// every written clip, by its motion's keys or the uniform count, and the
/// measure's samples × probes): beyond the documented limits it is
/// refused before any work, with the figures.
#[test]
fn a_bone_tree_beyond_the_work_limit_is_refused_up_front() {
    let mut v = rig("robot-arm");
    for k in ["root", "clips", "ik", "springs", "chains"] {
        v.as_object_mut().unwrap().remove(k);
    }
    let track = |i: usize| {
        let mut keys = vec![json!([0, 0])];
        keys.extend((1..999).map(|k| json!([(k as f64 + i as f64 / 200.0) / 1000.0, k % 90])));
        keys.push(json!([1, 0]));
        json!({"track": {"keys": keys}})
    };
    let mut bones = vec![json!({"name": "b0", "at": [200, 150], "length": 4, "angle": track(0)})];
    for i in 1..128 {
        bones.push(json!({"name": format!("b{i}"), "parent": format!("b{}", i - 1), "length": 4, "angle": track(i)}));
    }
    v["bones"] = bones.into();
    refused(
        &v,
        &[
            "bones: 128000 keys to fit and write (bones 128000, a fitted one counting 16) over 1 clip and 16646144 to measure (samples × probes)",
            "is more than the 1500000 and 10000000 a bake does in a few seconds",
        ],
        Duration::from_secs(5),
    );
    // sines count 8 keys per cycle, fitted keys 16 each
    let b0 = v["bones"][1].clone();
    v["bones"] = (0..256)
        .map(|i| {
            let mut b = b0.clone();
            b["name"] = format!("b{i}").into();
            b["parent"] = format!("b{}", i.max(1) - 1).into();
            b["angle"] = json!({"sine": {"amp_deg": 10, "harmonic": 64}});
            b
        })
        .collect();
    v["bones"][0] = json!({"name": "b0", "at": [200, 150], "length": 4, "angle": {"sine": {"amp_deg": 10, "harmonic": 64}}});
    refused(
        &v,
        &["bones: 2097152 keys to fit and write (bones 131072, a fitted one counting 16)"],
        Duration::from_secs(5),
    );
}

/// Uniform keys on a cycling rig are held to the work estimate of the bone
/// tree it loads as, from the rig's `keys` and from `--keys`: past it the
/// bake is refused before any work (64 legs × 10000 keys once took 144 s
/// and 5 GB), with the figures and the most keys that fit, and that many
/// keys bake. The most legs a tree holds (5 bones each, at most 256 bones)
/// and fewer.
#[test]
fn uniform_keys_on_many_legs_beyond_the_work_limit_are_refused_up_front() {
    let seed = rig("seed-nested");
    let legs = |n: usize| {
        let mut v = seed.clone();
        v["legs"] = (0..n)
            .map(|i| {
                let mut l = seed["legs"][i % 2].clone();
                l["name"] = format!("l{i}x").into();
                l
            })
            .collect();
        v
    };
    // (past 51 legs a rig does not load at all: five bones a leg, and a
    // tree holds 256; a torso's bones past it are the tree's error)
    let mut v = legs(64);
    v["keys"] = 10_000.into();
    refused(
        &v,
        &["legs: at most 51 legs, got 64"],
        Duration::from_secs(5),
    );
    let mut v = legs(51);
    v["torso"] = json!({"hip": [352, 255], "neck": [340, 150], "head_radius": 12});
    refused(
        &v,
        &["in the bone tree this rig lowers into, bones: at most 256 bones, got 257"],
        Duration::from_secs(5),
    );
    for n in [51, 16] {
        let mut v = legs(n);
        v["keys"] = 10_000.into();
        let line = refused(
            &v,
            &[
                ": keys: 10000 keys per fitted channel: ",
                "is more than the 1500000 and 10000000 a bake does in a few seconds; use fewer keys, or a tolerance (at most ",
            ],
            Duration::from_secs(5),
        );
        let most: usize = line
            .rsplit_once("(at most ")
            .and_then(|(_, r)| r.strip_suffix(" keys fit this rig)"))
            .and_then(|k| k.parse().ok())
            .unwrap_or_else(|| panic!("no most keys in {line}"));
        assert!((2..10_000).contains(&most), "{n} legs: {line}");
        // --keys is held to the same limit, and the most that fit bake
        v.as_object_mut().unwrap().remove("keys");
        let line = refused_with(
            &v,
            &["--keys", &(most + 1).to_string()],
            &[&format!(": --keys: {} keys per fitted channel: ", most + 1)],
            Duration::from_secs(5),
        );
        assert!(
            line.ends_with(&format!("(at most {most} keys fit this rig)")),
            "{line}"
        );
        bakes(&v, &["--keys", &most.to_string()]);
    }
    // the seed's two legs bake at the most keys --keys takes
    bakes(&seed, &["--keys", "10000"]);
    // `ik_chains` load as a bone tree, held to the same estimate: the most
    // chains at the most keys bake (0.7 s for both routes, release build)
    let mut v = rig("path-foot");
    v.as_object_mut().unwrap().remove("tolerance_px");
    v["keys"] = 10_000.into();
    let chain = v["ik_chains"][1].clone();
    v["ik_chains"] = (0..8)
        .map(|i| {
            let mut c = chain.clone();
            c["name"] = format!("c{i}").into();
            c
        })
        .collect();
    for route in [rigbake::Route::Css, rigbake::Route::Smil] {
        let baked = common::bake(&v, route);
        assert_eq!(baked.report.legs.len(), 8, "{route:?}");
    }
}

/// Springs × bones is bounded (fitting cost grows as its square: 8
/// springs on 250 bones took a minute).
#[test]
fn springs_times_bones_beyond_the_limit_is_refused_up_front() {
    let mut v = rig("ponytail");
    v.as_object_mut().unwrap().remove("chains");
    for i in 0..40 {
        v["bones"]
            .as_array_mut()
            .unwrap()
            .push(json!({"name": format!("b{i}"), "parent": "neck", "length": 0}));
    }
    for i in 0..9 {
        v["springs"]
            .as_array_mut()
            .unwrap()
            .push(json!({"bone": format!("b{i}"), "stiffness": 260, "damping": 26}));
    }
    refused(
        &v,
        &["springs: 10 springs × 42 bones = 420 is more than the 400"],
        Duration::from_secs(5),
    );
}

/// `n` two-bone `ik` entries, each reaching for `target(i)`, and `clips`
/// clips (none for 0) each retargeting every entry to `target(100 + c)`.
fn ik_rig(n: usize, clips: usize, target: impl Fn(usize) -> Value) -> Value {
    let mut bones = Vec::new();
    let mut ik = Vec::new();
    for i in 0..n {
        bones.push(json!({"name": format!("u{i}"), "at": [0, 0], "length": 50}));
        bones.push(json!({"name": format!("l{i}"), "parent": format!("u{i}"), "length": 50}));
        ik.push(json!({"upper": format!("u{i}"), "lower": format!("l{i}"), "target": target(i)}));
    }
    let mut v = json!({"name": "ik", "view_box": [-200, -200, 400, 400], "period_s": 1, "bones": bones, "ik": ik});
    if clips > 0 {
        v["clips"] = (0..clips)
            .map(|c| {
                let ik: Vec<Value> = (0..n)
                    .map(|i| json!({"upper": format!("u{i}"), "target": target(100 + c)}))
                    .collect();
                json!({"name": format!("c{c}"), "ik": ik})
            })
            .collect();
    }
    v
}

/// 199 round heads under a squash, the rig asking 10000 uniform keys.
fn heads() -> Value {
    let mut bones = vec![
        json!({"name": "r", "at": [200, 200], "length": 1, "angle": {"sine": {"amp_deg": 30, "harmonic": 1}}}),
    ];
    bones.extend(
        (1..200).map(
            |i| json!({"name": format!("h{i}"), "parent": "r", "length": 5, "head_radius": 4}),
        ),
    );
    json!({"name": "hd", "view_box": [0, 0, 400, 400], "period_s": 1, "keys": 10000, "bones": bones,
        "root": {"squash": {"pivot": [200, 300], "sy": {"keys": [[0, 1], [0.5, 1.3], [1, 1]]}}}})
}

/// The work checked is the bake's, not the most the rig could ask: a flag
/// overrides the rig's own `keys`, and the smil route writes the first
/// clip only (both were refused as the rig loaded); each bakes quickly.
#[test]
fn the_work_checked_is_the_work_the_bake_asks() {
    for (v, args) in [
        (heads(), vec!["--keys", "8"]),
        (ik_rig(16, 16, gait(64)), vec!["--route", "smil"]),
    ] {
        let tmp = TempDir::new().unwrap();
        let path = tmp.path().join("r.json");
        fs::write(&path, v.to_string()).unwrap();
        let t0 = Instant::now();
        let o = Command::cargo_bin("rigbake")
            .unwrap()
            .arg("bake")
            .arg(&path)
            .args(&args)
            .args(["-q", "-o"])
            .arg(tmp.path().join("out"))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{args:?}: {stderr}");
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "{args:?}: {:?}",
            t0.elapsed()
        );
    }
}

fn gait(cycles: usize) -> impl Fn(usize) -> Value {
    move |j| json!({"gait": {"origin": [0, 80], "stride": 40 + j % 50, "step_height": 8, "duty": 0.6, "cycles": cycles}})
}

/// Every kind of fitted channel, multiplied past the work estimate's
/// limits, is refused up front at the field that adds the work (these
/// took 5 to over 300 seconds and up to 5 GB before the estimate counted
/// them); the largest cases near the limits still bake.
#[test]
fn every_kind_of_fitted_channel_past_the_work_limit_is_refused_quickly() {
    let quick = Duration::from_secs(3);
    // `ik` entries × gait cycles (14.9 s, 504 MB)
    refused(
        &ik_rig(128, 0, gait(64)),
        &[
            "ik: 4194304 keys to fit and write (ik 262144",
            "use fewer `ik` entries",
        ],
        quick,
    );
    // × clips: each clip alone would pass (16 s, 980 MB)
    refused(
        &ik_rig(16, 16, gait(64)),
        &["clips: ", "over 16 clips", "--clip NAME"],
        quick,
    );
    // root bones' `move`s (5.9 s)
    let bones: Vec<Value> = (0..256)
        .map(|i| json!({"name": format!("b{i}"), "at": [200, 200], "length": 10, "move": gait(64)(i)}))
        .collect();
    let moves = json!({"name": "mv", "view_box": [0, 0, 400, 400], "period_s": 1, "bones": bones});
    refused(&moves, &["bones: ", "(bones 262144"], quick);
    // round heads under a squash × the rig's uniform keys (13.4 s, 1.6 GB)
    refused(
        &heads(),
        &[
            "keys: 10000 keys per fitted channel",
            "use fewer keys, or a tolerance (at most ",
        ],
        quick,
    );
    // Verlet chains' particles × uniform keys
    let mut pony = rig("ponytail");
    let chain = pony["chains"][0].clone();
    pony["chains"] = (0..4)
        .map(|i| {
            let mut c = chain.clone();
            c["name"] = format!("p{i}").into();
            c["segments"] = 40.into();
            c["segment"] = 4.into();
            c
        })
        .collect();
    pony["keys"] = 10000.into();
    refused(
        &pony,
        &["keys: 10000 keys per fitted channel", "chains "],
        quick,
    );
    // `--keys N` on the command line: circle `move`s that bake at their
    // own keys (5.2 s, 874 MB at 10000)
    let bones: Vec<Value> = (0..256)
        .map(|i| json!({"name": format!("b{i}"), "at": [200, 200], "length": 10, "move": {"circle": {"center": [0, 0], "radius": 30}}}))
        .collect();
    let circles =
        json!({"name": "mvc", "view_box": [0, 0, 400, 400], "period_s": 1, "bones": bones});
    refused_with(
        &circles,
        &["--keys", "10000"],
        &[
            "--keys: 10000 keys per fitted channel",
            "(at most 2929 keys fit this rig)",
        ],
        quick,
    );
    // ... and `sweep`, whose every cell is a bake (27 s for one cell):
    // 104 entries' measure passes at their own keys, not at 400
    let circle = |j: usize| json!({"circle": {"center": [0, 80], "radius": 10 + j % 5}});
    let many = ik_rig(104, 0, circle);
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("many.json");
    fs::write(&path, many.to_string()).unwrap();
    let t0 = Instant::now();
    let o = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("sweep")
        .arg(&path)
        .args(["--keys", "2..400"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(t0.elapsed() < quick);
    assert!(
        stderr
            .trim_end()
            .contains("many.json: --keys: 400 keys per fitted channel")
            && stderr.contains("a smaller B in --keys A..B (at most 48 keys fit this rig)"),
        "{stderr}"
    );
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    // near the limits: 32 entries × 64 gait cycles (about 1.1 million of
    // the 1.5 million), and the most keys the refusal above names
    let baked = common::bake(&ik_rig(32, 0, gait(64)), rigbake::Route::Css);
    assert_eq!(baked.report.legs.len(), 32);
    bakes(&circles, &["--keys", "2929"]);
}

/// A sweep is many bakes: past its own limit the whole range is refused
/// up front (the 104-entry rig below passes at B = 48, one cell at a
/// time, and its 2..48 sweep is 188 bakes of up to a second or more each), naming the
/// largest B that passes; that B passes and one more does not, and every
/// example rig's widest sweep passes.
#[test]
fn a_sweep_beyond_its_summed_work_is_refused_up_front() {
    let circle = |j: usize| json!({"circle": {"center": [0, 80], "radius": 10 + j % 5}});
    let many = ik_rig(104, 0, circle);
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("many.json");
    fs::write(&path, many.to_string()).unwrap();
    let sweep = |fit: &str| {
        let t0 = Instant::now();
        let o = Command::cargo_bin("rigbake")
            .unwrap()
            .arg("sweep")
            .arg(&path)
            .args(["--keys", "2..48", "--fit", fit])
            .output()
            .unwrap();
        assert!(t0.elapsed() < Duration::from_secs(3));
        assert_eq!(o.status.code(), Some(2));
        assert!(o.stdout.is_empty());
        String::from_utf8(o.stderr).unwrap()
    };
    let both = sweep("both");
    let linear = sweep("linear");
    let most = |stderr: &str| -> usize {
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains("many.json: --keys: sweeping 2..48 (")
                && stderr.contains("a sweep does in a minute or two; sweep a narrower range or one --fit (from A = 2, B at most "),
            "{stderr}"
        );
        let tail = stderr.rsplit("B at most ").next().unwrap();
        tail.trim_end().trim_end_matches(')').parse().unwrap()
    };
    assert!(both.contains("(4 bakes per key count)"), "{both}");
    assert!(linear.contains("(2 bakes per key count)"), "{linear}");
    // one --fit halves the work: a wider range passes
    let (b_both, b_linear) = (most(&both), most(&linear));
    assert!(
        2 <= b_both && b_both < b_linear && b_linear < 48,
        "{b_both} {b_linear}"
    );
    let rig = rigbake::rig::load(&many.to_string()).unwrap();
    let fits = [rigbake::clip::Fit::Linear, rigbake::clip::Fit::Cubic];
    let check = |b: usize, fits: &[rigbake::clip::Fit]| {
        rigbake::sweep::check_work(&rig, rigbake::Route::Css, (2, b), fits)
    };
    assert!(check(b_both, &fits).is_ok());
    assert!(check(b_both + 1, &fits).is_err());
    assert!(check(b_linear, &fits[..1]).is_ok());
    assert!(check(b_linear + 1, &fits[..1]).is_err());
    // its 104 limbs have one shape: on css the estimate counts the times
    // of up to 4 replay delays, on smil (which replays nothing) none
    let keys = |n: usize, route: rigbake::Route| {
        rigbake::rig::check_key_work("--keys", Some(n), &rig, Some(route), "").is_ok()
    };
    assert!(keys(48, rigbake::Route::Css) && !keys(49, rigbake::Route::Css));
    assert!(keys(241, rigbake::Route::Smil) && !keys(242, rigbake::Route::Smil));
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let path = entry.unwrap().path();
        let rig = rigbake::rig::load(&fs::read_to_string(&path).unwrap()).unwrap();
        for route in [rigbake::Route::Css, rigbake::Route::Smil] {
            let r = rigbake::sweep::check_work(&rig, route, (2, 400), &fits);
            assert!(r.is_ok(), "{}: {r:?}", path.display());
        }
    }
}

/// Springs are fitted in every clip: springs × bones × clips is bounded
/// (2 springs on a 200-bone chain in 16 clips, each clip within the old
/// springs × bones limit, took 138 s), refused up front naming the clips
/// and `--clip`, which bakes one clip of the same rig.
#[test]
fn springs_times_bones_times_clips_beyond_the_limit_is_refused_up_front() {
    let bones: Vec<Value> = (0..50)
        .map(|i| {
            let mut b = json!({"name": format!("b{i}"), "length": 4,
                "angle": {"sine": {"amp_deg": 5, "harmonic": 1, "phase_deg": i * 7}}});
            if i == 0 {
                b["at"] = json!([200, 200]);
            } else {
                b["parent"] = json!(format!("b{}", i - 1));
                b["at"] = json!("tip");
            }
            b
        })
        .collect();
    let clips: Vec<Value> = (0..5)
        .map(|c| json!({"name": format!("c{c}"), "angles": {"b0": {"sine": {"amp_deg": 4 + c, "harmonic": 1}}}}))
        .collect();
    let springs = json!([{"bone": "b10", "stiffness": 260, "damping": 26},
                         {"bone": "b30", "stiffness": 200, "damping": 20}]);
    let v = json!({"name": "sp", "view_box": [0, 0, 400, 400], "period_s": 1,
        "bones": bones, "clips": clips, "springs": springs});
    refused(
        &v,
        &[
            "springs: 2 springs × 50 bones × 5 clips = 500 is more than the 400 a bake fits in a few seconds; use fewer springs, bones or clips (or bake one clip with --clip NAME)",
        ],
        Duration::from_secs(5),
    );
    refused_with(
        &v,
        &["--route", "smil"],
        &["springs: 2 springs × 50 bones × 5 clips = 500"],
        Duration::from_secs(5),
    );
    let tmp = bakes(&v, &["--clip", "c3"]);
    assert!(tmp.path().join("sp-c3.svg").exists());
}

/// `rigbake bake` on `v` with `args` succeeds, writing into the returned
/// directory.
fn bakes(v: &Value, args: &[&str]) -> TempDir {
    let tmp = TempDir::new().unwrap();
    let path = tmp.path().join("rig.json");
    fs::write(&path, v.to_string()).unwrap();
    Command::cargo_bin("rigbake")
        .unwrap()
        .arg("bake")
        .arg(&path)
        .args(args)
        .args(["-q", "-o"])
        .arg(tmp.path())
        .assert()
        .success();
    tmp
}
