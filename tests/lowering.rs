//! `ik_chains` lowered into a bone tree ([`rig::lower_chains`]): each chain
//! a root bone at its root (carried by its own `move` when the root moves),
//! a thigh and a shin, and an `ik` entry aiming the shin's tip at the
//! chain's target; the chain's `depth_offset` moves the root and the target
//! alike. The chain solver and the tree's FK must put every hip, knee and
//! ankle in the same place at every time: the loader lowers every
//! `ik_chains` rig so, and a chain file bakes to the bytes of its spelling
//! as bones. Each `ik` entry is named as its chain, so the effector and
//! target probes and the report's lines keep the chain's names.

use rigbake::figure::fk;
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::rig;
use rigbake::solve::ik;
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

mod common;

/// A rig's spelling as bones, kept as `tests/fixtures/lowering/<name>.json`
/// (other tests bake it): the kept file must be this spelling, rewritten
/// under `RIGBAKE_BLESS`.
fn keep_spelling(name: &str, spelled: &Value) {
    let kept =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/fixtures/lowering/{name}.json"));
    let text = serde_json::to_string_pretty(spelled).unwrap() + "\n";
    if std::env::var_os("RIGBAKE_BLESS").is_some() {
        std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
        std::fs::write(&kept, &text).unwrap();
    }
    let got = std::fs::read_to_string(&kept).unwrap_or_default();
    assert_eq!(
        got,
        text,
        "{} is stale: run `RIGBAKE_BLESS=1 cargo test --test lowering`",
        kept.display()
    );
}

/// The `data-probe` names an SVG file holds.
fn probe_names(svg: &str) -> BTreeSet<String> {
    svg.split("data-probe=\"")
        .skip(1)
        .map(|s| s[..s.find('"').unwrap()].to_string())
        .collect()
}

#[test]
fn ik_chains_spelled_as_bones_solve_the_same_pose() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("rigs/path-foot.json")];
    let dir = root.join("tests/fixtures/ik_chains");
    let mut fixtures: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    fixtures.sort();
    files.extend(fixtures);
    let mut kinds = std::collections::BTreeSet::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        // the chains as validated (before any lowering)
        let parsed = rig::parse(&text).unwrap();
        let (chains, _) =
            rigbake::chain::validate(&parsed.ik_chains, None, parsed.period_s).unwrap();
        let file: Value = serde_json::from_str(&text).unwrap();
        let lowered = rig::lower_chains(&rig::parse(&text).unwrap()).unwrap();
        let spelled = serde_json::to_value(&lowered).unwrap();
        let bones = rig::load(&spelled.to_string()).unwrap();
        // path-foot's spelling is kept, to bake and compare by hand
        if path.ends_with("rigs/path-foot.json") {
            keep_spelling("path-foot", &spelled);
        }
        // the loader lowers: the chain file and its spelling as bones bake
        // to the same bytes and report, whose probes and lines keep the
        // chains' names
        for route in [rigbake::Route::Css, rigbake::Route::Smil] {
            let (as_chain, as_tree) = (common::bake(&file, route), common::bake(&spelled, route));
            assert_eq!(as_tree.svg, as_chain.svg, "{} {route:?}", path.display());
            let probes = probe_names(&as_chain.svg);
            for c in &chains {
                for probe in [format!("{}-ankle", c.name), format!("{}-target", c.name)] {
                    assert!(
                        probes.contains(&probe),
                        "{}: {probe} {route:?}",
                        path.display()
                    );
                }
            }
            let legs = |b: &rigbake::Baked| -> Vec<String> {
                b.report.legs.iter().map(|l| l.name.clone()).collect()
            };
            let names: Vec<String> = chains.iter().map(|c| c.name.clone()).collect();
            assert_eq!(legs(&as_chain), names, "{} {route:?}", path.display());
            assert_eq!(legs(&as_tree), names, "{} {route:?}", path.display());
        }
        let fig = &bones.figure;
        let clip = &fig.clips[0];
        for c in file["ik_chains"].as_array().unwrap() {
            for part in ["root", "target"] {
                let kind = c[part].as_object().unwrap().keys().next().unwrap();
                kinds.insert(format!("{part} {kind}"));
            }
        }
        for k in 0..=240 {
            let t = k as f64 / 240.0;
            let tips = fk::tips(fig, clip, t);
            let effectors = fk::ik_ideal(fig, clip, t);
            for (i, c) in chains.iter().enumerate() {
                let ideal = c.ideal();
                let hip = c.root.at(t);
                let pose = ik::solve(hip, ideal.at(t), c.thigh, c.shin, c.knee);
                let off = c.depth_offset;
                let what = format!("{} chain {} at t = {t}", path.display(), c.name);
                // (a shifted path is new path data: its arc-length points
                // move by rounding, about 1e-9 px)
                let near = |a: Vec2, b: Vec2, part: &str| {
                    assert!(a.dist(b) < 1e-6, "{what}: {part} {a:?} against {b:?}");
                };
                let tip = |part: &str| {
                    let bone = format!("{}_{part}", c.name);
                    tips[fig.bones.iter().position(|b| b.name == bone).unwrap()]
                };
                near(tip("hip"), hip + off, "hip");
                near(tip("thigh"), pose.joint + off, "knee");
                near(tip("shin"), pose.end + off, "ankle");
                near(effectors[i], ideal.world_at(t), "aimed point");
            }
        }
    }
    // every kind of root and target the example chains use
    let want = [
        "root bob",
        "root fixed",
        "root track",
        "target fixed",
        "target gait",
        "target path",
        "target track",
    ];
    assert_eq!(kinds.into_iter().collect::<Vec<_>>(), want);
}

/// The lowering validates the chain file first: its errors name the
/// user's own `ik_chains` paths, and a file without chains is refused.
#[test]
fn lowering_refuses_what_the_chain_file_refuses_in_its_own_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rigs/path-foot.json")).unwrap();
    let mut file = rig::parse(&text).unwrap();
    file.ik_chains[1].thigh = -4.0;
    let err = rig::lower_chains(&file).unwrap_err().to_string();
    assert!(err.starts_with("ik_chains[1].thigh"), "{err}");
    let text = std::fs::read_to_string(root.join("rigs/seed-nested.json")).unwrap();
    let err = rig::lower_chains(&rig::parse(&text).unwrap())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("ik_chains"), "{err}");
}

/// Chain names whose `<chain>_hip`, `_thigh`, `_shin` would clash with
/// another chain's name or run past the 32 characters a name may hold
/// still lower into a valid tree, each `ik` entry named as its chain.
#[test]
fn clashing_and_long_chain_names_lower_into_a_valid_tree() {
    let chain = |name: &str, x: f64| {
        serde_json::json!({"name": name, "root": {"fixed": [x, 100]},
            "target": {"circle": {"center": [x, 230], "radius": 20}},
            "thigh": 80, "shin": 80})
    };
    let long = "a234567890123456789012345678901";
    let sets: [&[&str]; 4] = [
        &["a", "a_thigh", "a_hip", "a_shin"],
        &[long, "bb"],
        &["c0_hip", "x", "c1_thigh", "x_hip"],
        &["a_thigh", "a"],
    ];
    for names in sets {
        let file = serde_json::json!({
            "name": "n", "view_box": [0, 0, 900, 300], "period_s": 1,
            "ik_chains": names.iter().enumerate()
                .map(|(i, n)| chain(n, 60.0 + 120.0 * i as f64)).collect::<Vec<_>>(),
        });
        let lowered = rig::lower_chains(&rig::parse(&file.to_string()).unwrap())
            .unwrap_or_else(|e| panic!("{names:?}: {e}"));
        let entries: Vec<String> = lowered.ik.iter().map(|k| k.name.clone().unwrap()).collect();
        assert_eq!(entries, names, "{names:?}");
        let tree = rig::validate(&lowered).unwrap_or_else(|e| panic!("{names:?}: {e}"));
        assert_eq!(tree.figure.bones.len(), 3 * names.len());
    }
}

/// A cycling leg as its rig file writes it (`crank` + `legs`), and the
/// pose the design gives it at every time: the pedal on its circle, the
/// ankle on the pedal (or, out of reach, the nearest reachable point
/// toward it), the knee by the law of cosines on the side `knee` says.
struct CyclingLeg {
    name: String,
    hip: Vec2,
    thigh: f64,
    shin: f64,
    /// The crank centre plus the pedal offset: the pedal circle's centre.
    pedal_centre: Vec2,
    crank_centre: Vec2,
    radius: f64,
    /// The crank's start plus the leg's phase, degrees, each reduced below
    /// a turn (the same direction).
    start_deg: f64,
    /// +1 clockwise on screen, −1 counter-clockwise.
    sign: f64,
    forward: bool,
    must_reach: bool,
    depth: Vec2,
}

fn point(v: &Value) -> Vec2 {
    Vec2::new(v[0].as_f64().unwrap(), v[1].as_f64().unwrap())
}

/// `v`'s legs, read from the rig file itself (defaults as the format
/// documents them: no offsets, phase 0, clockwise, knee forward, reach
/// "error").
fn cycling_legs(v: &Value) -> Vec<CyclingLeg> {
    let crank = &v["crank"];
    let num = |x: &Value| x.as_f64().unwrap_or(0.0);
    let pt = |x: &Value| if x.is_null() { Vec2::ZERO } else { point(x) };
    let centre = point(&crank["center"]);
    let sign = if crank["direction"] == "ccw" {
        -1.0
    } else {
        1.0
    };
    v["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| CyclingLeg {
            name: l["name"].as_str().unwrap().to_string(),
            hip: point(&l["hip"]),
            thigh: num(&l["thigh"]),
            shin: num(&l["shin"]),
            pedal_centre: centre + pt(&l["pedal_offset"]),
            crank_centre: centre,
            radius: num(&crank["radius"]),
            start_deg: num(&crank["start_deg"]) % 360.0 + num(&l["phase_deg"]) % 360.0,
            sign,
            forward: l["knee"] != "backward",
            must_reach: l["reach"] != "clamp",
            depth: pt(&l["depth_offset"]),
        })
        .collect()
}

impl CyclingLeg {
    /// The crank angle at `t`, radians: one turn per period.
    fn angle(&self, t: f64) -> f64 {
        self.start_deg.to_radians() + self.sign * std::f64::consts::TAU * t
    }

    /// The pedal at `t` (without the depth offset).
    fn pedal(&self, t: f64) -> Vec2 {
        self.pedal_centre + Vec2::from_angle(self.angle(t)) * self.radius
    }

    /// The knee and ankle at `t` (without the depth offset): two-bone IK
    /// by the law of cosines, the angle at the hip between hip→ankle and
    /// the thigh `acos((thigh² + d² − shin²) / (2·thigh·d))`, the thigh
    /// turned from hip→ankle by it counter-clockwise on screen for a knee
    /// "forward", clockwise for "backward".
    fn pose(&self, t: f64) -> (Vec2, Vec2) {
        let to = self.pedal(t) - self.hip;
        let (l1, l2) = (self.thigh, self.shin);
        let d = to.length().clamp((l1 - l2).abs(), l1 + l2);
        let phi = to.atan2();
        let a = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d))
            .clamp(-1.0, 1.0)
            .acos();
        let thigh = if self.forward { phi - a } else { phi + a };
        (
            self.hip + Vec2::from_angle(thigh) * l1,
            self.hip + Vec2::from_angle(phi) * d,
        )
    }
}

/// A cycling rig (`crank` + `legs`) lowered into bones by
/// [`rig::lower_legs`], as the loader loads it: at every time each hip,
/// knee and ankle is where the design puts it (the pedal at the crank
/// centre plus the pedal offset plus the radius at the crank's start plus
/// the leg's phase, turned once per period; the ankle on it; the knee by
/// the law of cosines on the side `knee` says; the bones of the leg's
/// lengths), each crank bone's end is on its crank circle at that angle,
/// each pedal bone stays level, the chainring turns with the crank, the
/// torso runs from hip to neck with the head's centre past it, each Verlet
/// chain hangs from its fixed anchor, simulated to the particles of that
/// chain alone on a still bone at that point; the seat tube and chainring
/// are drawn still and each pedal's block on its pedal (a round-capped
/// stroke, no target disc); the rig bakes to the bytes of its tree, which
/// bakes within the default 0.25 px on both routes, its report lines named
/// as the legs. Every cycling rig in `rigs/`, and variants for what they
/// leave out (counter-clockwise, a pedal offset, a backward knee, a
/// clamped reach, within reach and out of it, three legs; start and phase
/// angles at the loader's ±1,000,000, which the tree writes below a turn).
#[test]
fn cycling_legs_spelled_as_bones_solve_the_same_pose() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut rigs: Vec<(String, Value)> = Vec::new();
    for entry in std::fs::read_dir(root.join("rigs")).unwrap() {
        let path = entry.unwrap().path();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if v.get("crank").is_some() {
            rigs.push((path.display().to_string(), v));
        }
    }
    rigs.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(rigs.len() >= 3, "the cycling examples: {}", rigs.len());
    let seed = rigs
        .iter()
        .find(|(p, _)| p.ends_with("seed-nested.json"))
        .unwrap()
        .1
        .clone();
    let mut variant = seed.clone();
    variant["name"] = "variant".into();
    variant["crank"]["direction"] = "ccw".into();
    variant["crank"]["start_deg"] = 37.into();
    variant["legs"][0]["pedal_offset"] = serde_json::json!([4, -3]);
    // no leg without a depth offset: the chainring turns on a bone of its own
    variant["legs"][0]["depth_offset"] = serde_json::json!([2, 1]);
    variant["legs"][1]["knee"] = "backward".into();
    variant["legs"][1]["reach"] = "clamp".into();
    let mut third = variant["legs"][0].clone();
    third["name"] = "third".into();
    third["phase_deg"] = 90.into();
    third["depth_offset"] = serde_json::json!([3, 2]);
    variant["legs"].as_array_mut().unwrap().push(third);
    rigs.push(("variant".into(), variant));
    // a clamped leg whose pedal leaves its reach for part of the turn
    let mut short = seed.clone();
    short["name"] = "out-of-reach".into();
    short["legs"][1]["shin"] = 90.into();
    short["legs"][1]["reach"] = "clamp".into();
    rigs.push(("out-of-reach".into(), short));
    // each angle within bounds, their sums not: the same motion, lowered
    // as angles below a turn (on the chainring's own bone too, every leg
    // drawn at a depth offset)
    for (name, start, phases, ring_of_its_own) in [
        ("large-angles", 999_999, [999_999, -1_000_000], false),
        ("large-angles-ccw", -1_000_000, [-999_999, 1_000_000], true),
    ] {
        let mut large = seed.clone();
        large["name"] = name.into();
        large["crank"]["start_deg"] = start.into();
        for (leg, phase) in phases.into_iter().enumerate() {
            large["legs"][leg]["phase_deg"] = phase.into();
        }
        if ring_of_its_own {
            large["crank"]["direction"] = "ccw".into();
            large["legs"][0]["depth_offset"] = serde_json::json!([2, 1]);
        }
        rigs.push((name.into(), large));
    }

    // (what the variants cover)
    let all: Vec<CyclingLeg> = rigs.iter().flat_map(|(_, v)| cycling_legs(v)).collect();
    assert!(all.iter().any(|l| l.sign < 0.0) && all.iter().any(|l| !l.forward));
    assert!(all.iter().any(|l| !l.must_reach));
    assert!(all.iter().any(|l| l.pedal_centre != l.crank_centre));
    // (times a clamped leg's pedal is out of its reach)
    let mut out_of_reach = 0;

    for (what, v) in &rigs {
        let legs = cycling_legs(v);
        let lowered = rig::lower_legs(&rig::parse(&v.to_string()).unwrap()).unwrap();
        // seed-nested's spelling is kept: `bake --art` binds a drawing made
        // for the cycling rig to it (tests/art_bones.rs)
        if what.ends_with("rigs/seed-nested.json") {
            keep_spelling("seed-nested", &serde_json::to_value(&lowered).unwrap());
        }
        let tree = rig::load(&serde_json::to_string(&lowered).unwrap())
            .unwrap_or_else(|e| panic!("{what}: the lowered tree does not load: {e}"));
        let fig = &tree.figure;
        // the bicycle: the seat tube still, the chainring (dashed) on the
        // crank bone of the first leg without a depth offset (else on a
        // bone `crank` of its own), an arm on each crank bone and a block
        // on each pedal bone, which a drawing may name as the cycling
        // drawing does (`crank-<leg>`, `pedal-<leg>`, `crank`)
        let parts: Vec<(String, Option<String>)> = lowered
            .scene
            .iter()
            .map(|p| (p.name.clone(), p.bone.clone()))
            .collect();
        assert!(parts.contains(&("frame".into(), None)), "{what}: {parts:?}");
        let ring_leg = legs.iter().find(|l| l.depth == Vec2::ZERO);
        let ring_bone = ring_leg.map_or("crank".to_string(), |l| format!("{}_crank", l.name));
        assert!(
            parts.contains(&("chainring".into(), Some(ring_bone.clone()))),
            "{what}: {parts:?}"
        );
        let ring = lowered
            .scene
            .iter()
            .find(|p| p.name == "chainring")
            .unwrap();
        assert_eq!(ring.style.dash, Some(vec![6.0, 4.0]), "{what}");
        let named_crank: Vec<&str> = lowered
            .bones
            .iter()
            .filter(|b| b.parts.iter().any(|p| p == "crank"))
            .map(|b| b.name.as_str())
            .collect();
        match ring_leg {
            Some(_) => assert_eq!(named_crank, [ring_bone.as_str()], "{what}"),
            None => assert!(named_crank.is_empty(), "{what}: {named_crank:?}"),
        }
        for l in &legs {
            for (bone, carried, drawn) in [
                ("crank", "crank_arm", "crank"),
                ("pedal", "pedal_block", "pedal"),
            ] {
                let bone = format!("{}_{bone}", l.name);
                let part = (format!("{}_{carried}", l.name), Some(bone.clone()));
                assert!(parts.contains(&part), "{what}: {parts:?}");
                let b = lowered.bones.iter().find(|b| b.name == bone).unwrap();
                assert_eq!(
                    b.parts.first(),
                    Some(&format!("{drawn}-{}", l.name)),
                    "{what}"
                );
            }
        }
        let clip = &fig.clips[0];
        let bone = |name: String| {
            fig.bones
                .iter()
                .position(|b| b.name == name)
                .unwrap_or_else(|| panic!("{what}: no bone {name}"))
        };
        // the leg's bones keep its lengths
        for l in &legs {
            for (part, length) in [("thigh", l.thigh), ("shin", l.shin)] {
                let b = &fig.bones[bone(format!("{}_{part}", l.name))];
                assert_eq!(b.length, length, "{what}: {} {part}", l.name);
            }
        }
        for n in 0..=500 {
            let t = n as f64 / 500.0;
            let pose = fk::pose(fig, clip, t);
            let tips = pose.tips(fig);
            let near = |a: Vec2, b: Vec2, part: &str| {
                assert!(
                    a.dist(b) < 1e-6,
                    "{what} at t = {t}: {part} {a:?} against {b:?}"
                );
            };
            for l in &legs {
                let d = l.depth;
                let (knee, ankle) = l.pose(t);
                if l.must_reach {
                    // (the loader refuses a leg that must reach and cannot)
                    near(ankle, l.pedal(t), "ankle on the pedal");
                } else if (l.pedal(t) - l.hip).length() > l.thigh + l.shin {
                    out_of_reach += 1;
                }
                let tip = |part: &str| tips[bone(format!("{}_{part}", l.name))];
                near(tip("hip"), l.hip + d, "hip");
                near(tip("thigh"), knee + d, "knee");
                near(tip("shin"), ankle + d, "ankle");
                let arm = l.crank_centre + Vec2::from_angle(l.angle(t)) * l.radius;
                // the crank arm's end: the pedal's joint (the crank bone has
                // no length: its arm is a part it carries)
                near(tip("pedal"), arm + d, "crank end");
                // a level pedal: its frame turns by nothing
                let w = (pose.root * pose.world[bone(format!("{}_pedal", l.name))]).as_coeffs();
                assert!(
                    (w[0] - 1.0).abs() < 1e-9 && w[1].abs() < 1e-9,
                    "{what} at t = {t}: pedal {} turned {w:?}",
                    l.name
                );
            }
            // the chainring turns with the crank
            let w = (pose.root * pose.world[bone(ring_bone.clone())]).as_coeffs();
            // (the ring leg's crank bone turns at that leg's crank angle,
            // a bone `crank` of its own at the crank's, phase 0)
            let want = match ring_leg {
                Some(rl) => rl.angle(t),
                None => {
                    let start = v["crank"]["start_deg"].as_f64().unwrap() % 360.0;
                    start.to_radians() + legs[0].sign * std::f64::consts::TAU * t
                }
            };
            let turn = (w[1].atan2(w[0]) - want).rem_euclid(std::f64::consts::TAU);
            assert!(
                turn.min(std::f64::consts::TAU - turn) < 1e-9,
                "{what} at t = {t}: chainring off the crank by {turn} rad"
            );
            if let Some(torso) = v.get("torso") {
                // the head's centre past the neck by its radius and half
                // the torso's width (14 unless given)
                let (hip, neck) = (point(&torso["hip"]), point(&torso["neck"]));
                let r = torso["head_radius"].as_f64().unwrap();
                let width = torso["width"].as_f64().unwrap_or(14.0);
                let head = neck + (neck - hip) * ((r + width / 2.0) / (neck - hip).length());
                near(tips[bone("torso".into())], neck, "neck");
                near(tips[bone("head".into())], head, "head centre");
            }
        }
        let chains = v
            .get("chains")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        assert_eq!(fig.chains.len(), chains, "{what}");
        for ch in &fig.chains {
            let file = v["chains"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["name"] == ch.name.as_str())
                .unwrap();
            let at = point(&file["anchor"]["at"]);
            let b = bone(format!("{}_anchor", ch.name));
            near_point(fk::tips(fig, clip, 0.3)[b], at, what);
            // and it is the same simulation as the chain alone, hung from
            // a still bone at its anchor: every particle where that
            // chain has it
            let mut alone_chain = file.clone();
            alone_chain["anchor"] = serde_json::json!({"bone": "anchor", "at": "origin"});
            let alone = serde_json::json!({
                "name": "alone", "view_box": v["view_box"], "period_s": v["period_s"],
                "bones": [{"name": "anchor", "at": [at.x, at.y], "length": 0}],
                "chains": [alone_chain],
            });
            let alone = rig::load(&alone.to_string()).unwrap_or_else(|e| panic!("{what}: {e}"));
            let fixed = &alone.figure.chains[0];
            for n in 0..=100 {
                let t = n as f64 / 100.0;
                let (a, b) = (
                    rigbake::figure::chain::particles_at(ch, t),
                    rigbake::figure::chain::particles_at(fixed, t),
                );
                assert_eq!(a.len(), b.len());
                // (the chain's root particle stays at its anchor)
                near_point(a[0], at, what);
                for (p, q) in a.iter().zip(&b) {
                    assert!(
                        p.dist(*q) < 1e-6,
                        "{what} {} at t = {t}: {p:?} vs {q:?}",
                        ch.name
                    );
                }
            }
        }
        for route in [rigbake::Route::Css, rigbake::Route::Smil] {
            let baked = common::bake(&serde_json::to_value(&lowered).unwrap(), route);
            // the loader lowers the rig so: it bakes to its tree's bytes
            assert_eq!(common::bake(v, route).svg, baked.svg, "{what} {route:?}");
            let names: Vec<&str> = baked.report.legs.iter().map(|l| l.name.as_str()).collect();
            let want: Vec<&str> = legs.iter().map(|l| l.name.as_str()).collect();
            assert_eq!(names, want, "{what} {route:?}");
            // (a clamped leg out of its reach counts the gap to its pedal,
            // which no key closes, and has cusps where it leaves its reach,
            // which the default goal, no promise, leaves rounded: its pose
            // is checked above, its probes and bones are not held to it)
            let clamped = |probe: &str| {
                what == "out-of-reach"
                    && legs.iter().any(|l| {
                        !l.must_reach
                            && (probe == l.name || probe.starts_with(&format!("{}_", l.name)))
                    })
            };
            let worst = baked
                .report
                .probes()
                .iter()
                .filter(|p| !clamped(&p.name))
                .map(|p| p.max_error_px)
                .fold(0.0, f64::max);
            assert!(worst <= 0.25, "{what} {route:?}: {worst} px");
            // the pedal blocks mark the targets: no target discs
            assert!(!baked.svg.contains("-joint"), "{what} {route:?}");
            // the chainring is drawn dashed, so that it is seen to turn
            assert!(
                baked.svg.contains(r#"stroke-dasharray="6 4""#),
                "{what} {route:?}"
            );
            eprintln!(
                "{what} {route:?}: {} legs, {} bones, worst {worst} px, {} B",
                names.len(),
                fig.bones.len(),
                baked.svg.len()
            );
        }
    }
    assert!(out_of_reach > 0, "no clamped leg left its reach");
}

fn near_point(a: Vec2, b: Vec2, what: &str) {
    assert!(a.dist(b) < 1e-9, "{what}: {a:?} against {b:?}");
}

/// The cycling lowering validates the rig as a cycling rig first: its
/// errors are the cycling loader's own (a leg's path, the crank angle where
/// a pedal is out of reach), and a file without legs is refused at `legs`.
#[test]
fn lowering_legs_refuses_what_the_cycling_rig_refuses_in_its_own_words() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rigs/seed-nested.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["legs"][1]["thigh"] = 20.into();
    let file = rig::parse(&v.to_string()).unwrap();
    let want = rig::validate(&file).unwrap_err().to_string();
    assert!(want.contains("legs[1]"), "{want}");
    assert_eq!(rig::lower_legs(&file).unwrap_err().to_string(), want);
    let chains =
        rig::parse(&std::fs::read_to_string(root.join("rigs/path-foot.json")).unwrap()).unwrap();
    let e = rig::lower_legs(&chains).unwrap_err().to_string();
    assert!(e.starts_with("legs: "), "{e}");
}

/// A cycling leg may be named what no bone or `ik` entry may (a `-`, a
/// reserved word): bones whose names would not be valid fall back to
/// `c<i>_<part>`, the leg's entry is unnamed, and the tree still loads and bakes within 0.25 px.
#[test]
fn cycling_legs_named_as_no_bone_may_be_still_lower() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rigs/seed-nested.json")).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    v["legs"][0]["name"] = "near-leg".into();
    v["legs"][1]["name"] = "b".into();
    rig::load(&v.to_string()).expect("a valid cycling rig");
    let lowered = rig::lower_legs(&rig::parse(&v.to_string()).unwrap()).unwrap();
    let spelled = serde_json::to_value(&lowered).unwrap();
    let tree = rig::load(&spelled.to_string()).unwrap_or_else(|e| panic!("{e}"));
    let fig = &tree.figure;
    assert_eq!(fig.ik.len(), 2);
    assert!(fig.ik.iter().all(|k| k.name.is_none()));
    let bones: Vec<&str> = fig.bones.iter().map(|b| b.name.as_str()).collect();
    // `near-leg_hip` is no bone name, `b_hip` is (only `b` is reserved)
    for part in ["hip", "thigh", "shin", "crank", "pedal"] {
        for stem in ["c0", "b"] {
            assert!(
                bones.contains(&format!("{stem}_{part}").as_str()),
                "{bones:?}"
            );
        }
    }
    for route in [rigbake::Route::Css, rigbake::Route::Smil] {
        let worst = common::bake(&spelled, route).report.max_error_px();
        assert!(worst <= 0.25, "{route:?}: {worst}");
    }
}

/// The last bytes seed-nested's cycling bake wrote on css
/// (`out/seed-nested.svg` before cycling rigs loaded as bone trees).
const SEED_NESTED_CYCLING_CSS_BYTES: usize = 3834;

/// Lowered into a bone tree, seed-nested writes no more css than its
/// cycling bake did (3,834 B, kept here now that the rig bakes as its
/// tree): the bone-tree writer shares each part look, the limbs' one width
/// and the keyframes names of a file of one clip (until then 4,034 B
/// against 3,834).
#[test]
fn seed_nested_as_bones_writes_no_more_css_than_its_cycling_bake() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let lowered: Value =
        serde_json::from_str(&read("tests/fixtures/lowering/seed-nested.json")).unwrap();
    let baked = common::bake(&lowered, rigbake::Route::Css);
    assert!(
        baked.svg.len() <= SEED_NESTED_CYCLING_CSS_BYTES,
        "as bones {} B, cycling {SEED_NESTED_CYCLING_CSS_BYTES} B",
        baked.svg.len(),
    );
    // one clip: its name is no part of a keyframes name
    assert!(!baked.svg.contains("-main-"), "{}", baked.svg);
}
