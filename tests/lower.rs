//! `rigbake lower`: a cycling or `ik_chains` rig written as the bone tree
//! that solves the same pose. The written tree loads and bakes to the
//! rig's own bytes (the loader lowers a rig the same way); a cycling rig's
//! keeps one named `ik` entry per leg; `-o FILE` writes what
//! standard output shows; bad input (a bone tree, an invalid rig, `-o` over
//! the rig, a rig whose tree would not load) is exit 2 with one line and
//! nothing written. Rigs with numbers at the loader's bounds lower into
//! trees that load, or are refused so.

mod common;
#[path = "../benches/cycling_rigs.rs"]
mod cycling_rigs;

use assert_cmd::Command;
use common::repo;
use rigbake::rig::MAX_COORD;
use rigbake::{Route, rig};
use serde_json::Value;
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};

fn lower(args: &[&str]) -> std::process::Output {
    Command::cargo_bin("rigbake")
        .unwrap()
        .arg("lower")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn the_written_tree_loads_and_bakes_as_the_rig() {
    for name in ["seed-nested", "cyclist-scarf", "path-foot"] {
        let path = repo(&format!("rigs/{name}.json"));
        let o = lower(&[path.to_str().unwrap()]);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = String::from_utf8(o.stdout).unwrap();
        let tree = rig::load(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let fig = &tree.figure;
        let v: Value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
        let limbs = v
            .get("legs")
            .or(v.get("ik_chains"))
            .unwrap()
            .as_array()
            .unwrap();
        let names: Vec<&str> = limbs.iter().map(|l| l["name"].as_str().unwrap()).collect();
        let entries: Vec<&str> = fig.ik.iter().filter_map(|k| k.name.as_deref()).collect();
        assert_eq!(entries, names, "{name}");
        // the loader lowers a cycling or `ik_chains` rig the same way
        let tree: Value = serde_json::from_str(&text).unwrap();
        for route in [Route::Css, Route::Smil] {
            assert_eq!(
                common::bake(&tree, route).svg,
                common::bake(&v, route).svg,
                "{name} {route:?}"
            );
        }
    }
}

#[test]
fn output_file_holds_what_standard_output_shows() {
    let tmp = tempfile::tempdir().unwrap();
    let rig = repo("rigs/seed-nested.json");
    let file = tmp.path().join("rider.json");
    let shown = lower(&[rig.to_str().unwrap()]).stdout;
    let o = lower(&[rig.to_str().unwrap(), "-o", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0));
    assert!(o.stdout.is_empty());
    assert_eq!(fs::read(&file).unwrap(), shown);
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out.json");
    let walker = repo("rigs/walker.json");
    let mut unreachable: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap();
    unreachable["legs"][1]["thigh"] = 20.into();
    let bad = tmp.path().join("bad.json");
    fs::write(&bad, unreachable.to_string()).unwrap();
    let want_bad = rig::load(&unreachable.to_string()).unwrap_err().to_string();
    let rig_copy = tmp.path().join("seed.json");
    fs::copy(repo("rigs/seed-nested.json"), &rig_copy).unwrap();
    let before = fs::read(&rig_copy).unwrap();
    for (args, needles) in [
        (
            vec![walker.to_str().unwrap(), "-o", out.to_str().unwrap()],
            vec!["walker.json: bones: ", "a bone tree already"],
        ),
        (
            vec![bad.to_str().unwrap(), "-o", out.to_str().unwrap()],
            vec!["bad.json: ", want_bad.as_str()],
        ),
        (
            vec![rig_copy.to_str().unwrap(), "-o", rig_copy.to_str().unwrap()],
            vec!["seed.json: -o: would overwrite the rig"],
        ),
    ] {
        let o = lower(&args);
        let stderr = String::from_utf8(o.stderr).unwrap();
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        let line = stderr.trim_end();
        assert!(
            !line.contains('\n') && line.starts_with("rigbake: error: "),
            "{stderr}"
        );
        for n in needles {
            assert!(line.contains(n), "lacks {n:?}: {line}");
        }
        assert!(o.stdout.is_empty());
        assert!(!out.exists());
    }
    assert_eq!(fs::read(&rig_copy).unwrap(), before);
}

/// `rig::to_text` (what `lower` writes) reads back to the same file for
/// every rig in `rigs/` and every tree they lower into; arrays of numbers
/// sit on one line, whole numbers have no fraction, `name` comes first.
#[test]
fn rig_text_reads_back_to_the_same_file() {
    let mut files = Vec::new();
    for entry in fs::read_dir(repo("rigs")).unwrap() {
        let file = rig::parse(&fs::read_to_string(entry.unwrap().path()).unwrap()).unwrap();
        if let Ok(tree) = rig::lower(&file) {
            files.push(tree);
        }
        files.push(file);
    }
    assert!(files.len() > 16, "{}", files.len());
    for f in &files {
        let text = rig::to_text(f);
        let back = rig::parse(&text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", f.name));
        assert_eq!(
            serde_json::to_value(&back).unwrap(),
            serde_json::to_value(f).unwrap(),
            "{}",
            f.name
        );
        assert!(text.starts_with("{\n  \"name\": "), "{}", f.name);
        assert!(!text.contains(".0,") && !text.contains(".0]") && !text.contains(".0\n"));
    }
    let seed = rig::to_text(
        &rig::lower(
            &rig::parse(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap(),
        )
        .unwrap(),
    );
    assert!(seed.contains("\"depth_offset\": [-6, -7],"), "{seed}");
}

/// The generated cycling rigs' SplitMix64 generator (the same rigs on
/// every machine and toolchain), with the draws these rigs need.
struct Rng(cycling_rigs::Rng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// Uniform in [lo, hi].
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }

    fn sign(&mut self) -> f64 {
        if self.below(2) == 0 { 1.0 } else { -1.0 }
    }

    /// A coordinate at the loader's bound (±1,000,000), just inside it,
    /// half of it, anywhere within it, or an ordinary one.
    fn coord(&mut self) -> f64 {
        let s = self.sign();
        match self.below(6) {
            0 => s * MAX_COORD,
            1 => s * (MAX_COORD - self.uniform(0.0, 1000.0)),
            2 => s * MAX_COORD / 2.0,
            3 => self.uniform(-MAX_COORD, MAX_COORD),
            _ => self.uniform(-1000.0, 1000.0),
        }
    }

    fn point(&mut self) -> [f64; 2] {
        [self.coord(), self.coord()]
    }

    /// A point offset (pedal or depth): none, small, or a coordinate.
    fn offset(&mut self) -> [f64; 2] {
        match self.below(4) {
            0 => [0.0, 0.0],
            1 | 2 => [self.uniform(-10.0, 10.0), self.uniform(-10.0, 10.0)],
            _ => self.point(),
        }
    }

    /// A point near `p` (within `by` on each axis, and within bounds), or
    /// anywhere.
    fn near(&mut self, p: [f64; 2], by: f64) -> [f64; 2] {
        if self.below(6) == 0 {
            return self.point();
        }
        p.map(|x| (x + self.uniform(-by, by)).clamp(-MAX_COORD, MAX_COORD))
    }

    /// A length (> 0) at the bound, anywhere within it, tiny or ordinary.
    fn length(&mut self) -> f64 {
        match self.below(5) {
            0 => MAX_COORD,
            1 => self.uniform(1.0, MAX_COORD),
            2 => self.uniform(0.01, 1.0),
            _ => self.uniform(20.0, 200.0),
        }
    }

    /// An angle in degrees at the bound, a whole number of turns near it,
    /// anywhere within it, a turn, or an ordinary one.
    fn angle(&mut self) -> f64 {
        let s = self.sign();
        match self.below(6) {
            0 => s * MAX_COORD,
            1 => s * 999_999.0,
            2 => s * 2777.0 * 360.0,
            3 => self.uniform(-MAX_COORD, MAX_COORD),
            4 => s * 360.0,
            _ => self.uniform(-720.0, 720.0),
        }
    }

    fn pick<'a>(&mut self, of: &[&'a str]) -> &'a str {
        of[self.below(of.len() as u64) as usize]
    }
}

/// A valid cycling rig with numbers at or near the loader's bounds. A leg
/// that must reach its pedal (`"reach": "error"`) has its hip placed so
/// that it does (at the annulus' either edge or between), where that hip
/// is within bounds; any other leg clamps.
fn cycling_rig(rng: &mut Rng, i: usize) -> Value {
    let center = rng.point();
    // (a crank as long as a leg, at times)
    let radius = if rng.below(3) == 0 {
        rng.length()
    } else {
        rng.uniform(20.0, 200.0)
    };
    let start = rng.angle();
    let mut legs = Vec::new();
    for l in 0..1 + rng.below(3) {
        let (thigh, shin) = (rng.length(), rng.length());
        let pedal = rng.offset();
        let mut hip = rng.near(center, (thigh + shin).min(2000.0));
        let mut reach = "clamp";
        let (lo, hi) = ((thigh - shin).abs() + radius, thigh + shin - radius);
        if rng.below(3) > 0 && lo < hi {
            // the far edge exactly, the near one a hair inside (at thigh =
            // shin it is the hip itself, which no leg may reach)
            let d = match rng.below(3) {
                0 => lo + (thigh + shin) * 4e-12,
                1 => hi,
                _ => rng.uniform(lo, hi),
            };
            let a = rng.uniform(0.0, std::f64::consts::TAU);
            let at = [
                center[0] + pedal[0] + d * a.cos(),
                center[1] + pedal[1] + d * a.sin(),
            ];
            if at.iter().all(|x| x.abs() <= MAX_COORD) {
                hip = at;
                reach = "error";
            }
        }
        let mut leg = serde_json::json!({
            "name": format!("leg{l}"), "hip": hip, "thigh": thigh, "shin": shin,
            "pedal_offset": pedal, "phase_deg": rng.angle(),
            "knee": rng.pick(&["forward", "backward"]), "reach": reach,
        });
        if rng.below(2) == 0 {
            leg["depth_offset"] = serde_json::json!(rng.offset());
        }
        legs.push(leg);
    }
    let mut v = serde_json::json!({
        "name": format!("edge-{i}"), "view_box": [0, 0, 800, 600], "period_s": 1, "keys": 8,
        "crank": {"center": center, "radius": radius, "start_deg": start,
                  "direction": rng.pick(&["cw", "ccw"])},
        "legs": legs,
    });
    if rng.below(4) == 0 {
        let hip = rng.near(center, 200.0);
        let mut neck = rng.near(hip, 200.0);
        if neck == hip {
            neck[1] -= hip[1].signum();
        }
        v["torso"] = serde_json::json!({"hip": hip, "neck": neck,
            "head_radius": rng.length(), "width": rng.length()});
    }
    if rng.below(8) == 0 {
        v["chains"] = serde_json::json!([{"name": "scarf", "anchor": {"at": rng.point()},
            "segments": 2, "segment": rng.length(), "max_warmup_periods": 1}]);
    }
    v
}

/// A trajectory at or near the loader's bounds.
fn trajectory(rng: &mut Rng) -> Value {
    match rng.below(7) {
        0 => serde_json::json!({"fixed": rng.point()}),
        1 => serde_json::json!({"circle": {"center": rng.point(), "radius": rng.length(),
            "start_deg": rng.angle(), "direction": rng.pick(&["cw", "ccw"])}}),
        2 => serde_json::json!({"ellipse": {"center": rng.point(), "rx": rng.length(),
            "ry": rng.length(), "rotation_deg": rng.angle(), "start_deg": rng.angle()}}),
        3 => {
            let p = rng.point();
            serde_json::json!({"track": {"keys": [[0, p], [0.5, rng.point()], [1, p]],
                "ease": "smoothstep"}})
        }
        4 => {
            let ([x, y], r) = (rng.point(), rng.uniform(1.0, 100.0));
            let (x, y) = (
                x.clamp(-MAX_COORD + r, MAX_COORD - r),
                y.clamp(-MAX_COORD, MAX_COORD - r),
            );
            serde_json::json!({"path": {"d": format!("M {} {y} L {} {y} L {x} {} Z", x - r, x + r, y + r),
                "start": rng.uniform(0.0, 1.0)}})
        }
        5 => serde_json::json!({"bob": {"center": rng.point(), "amp": rng.uniform(0.0, 10.0),
            "phase": rng.uniform(0.0, 1.0)}}),
        _ => serde_json::json!({"gait": {"origin": rng.point(), "stride": rng.uniform(1.0, 100.0),
            "step_height": rng.uniform(0.0, 20.0), "duty": 0.6, "phase": rng.uniform(0.0, 1.0)}}),
    }
}

/// An `ik_chains` rig whose chains are valid as chain files, with numbers
/// at or near the loader's bounds; each chain clamps or pulls (any target
/// is then one it may be given).
fn chain_rig(rng: &mut Rng, i: usize) -> Value {
    let chains: Vec<Value> = (0..1 + rng.below(3))
        .map(|c| {
            let mut ch = serde_json::json!({
                "name": format!("c{c}"), "root": trajectory(rng), "target": trajectory(rng),
                "thigh": rng.length(), "shin": rng.length(),
                "knee": rng.pick(&["forward", "backward"]), "reach": rng.pick(&["clamp", "pull"]),
            });
            if rng.below(2) == 0 {
                ch["depth_offset"] = serde_json::json!(rng.offset());
            }
            ch
        })
        .collect();
    serde_json::json!({"name": format!("chains-{i}"), "view_box": [0, 0, 800, 600],
                       "period_s": 1, "keys": 8, "ik_chains": chains})
}

/// The class of rigs that load but lower past the loader's bounds: a few
/// hundred generated cycling and `ik_chains` rigs with numbers at or near
/// those bounds (hips, crank centres, radii, pedal and depth offsets,
/// start and phase angles, both directions and knees). Every rig is valid
/// in its own terms (a cycling rig as its legs and crank, a chain rig as a
/// chain file) and loads as the tree it lowers into: it loads unless that
/// tree does not, which the loader then says in one line naming the rig's
/// fields and the tree's path. Loading and lowering agree: a rig that
/// loads lowers into a tree that loads (a sample of them is baked, a
/// cycling rig to the bytes of its tree), a rig that does not load is
/// refused by lowering with the same message; neither ever panics.
#[test]
fn rigs_at_the_bounds_lower_into_trees_that_load_or_are_refused() {
    let mut rng = Rng(cycling_rigs::Rng(2024));
    // cycling rigs lowered, chain rigs lowered, trees baked, cycling rigs
    // that do not load (nor lower), chain rigs that do not load
    let (mut legs, mut chains, mut baked, mut refused, mut unloaded) = (0, 0, 0, 0, 0);
    for i in 0..600 {
        let cycling = i % 2 == 0;
        let v = if cycling {
            cycling_rig(&mut rng, i)
        } else {
            chain_rig(&mut rng, i)
        };
        let text = v.to_string();
        let file = rig::parse(&text).unwrap();
        // (a panic names the rig it came from)
        let (loaded, lowered) = catch_unwind(AssertUnwindSafe(|| {
            (rig::load(&text).map(|_| ()), rig::lower(&file))
        }))
        .unwrap_or_else(|_| panic!("panicked loading or lowering\n{text}"));
        if cycling {
            // a cycling rig loads as the tree it lowers into: both give
            // that tree, or both refuse it in the same words
            match (&loaded, &lowered) {
                (Ok(()), Ok(_)) => {}
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("load and lower disagree: {a:?} against {b:?}\n{text}"),
            }
        }
        if let Err(e) = loaded {
            let line = e.to_string();
            assert!(
                matches!(
                    e,
                    rig::RigError::Lowered {
                        inputs: Some(_),
                        ..
                    }
                ) && !line.contains('\n'),
                "{line}\n{text}"
            );
            if cycling {
                // the rig's own fields, then the tree's path
                assert!(
                    line.contains("in the bone tree this rig lowers into, "),
                    "{line}"
                );
                refused += 1;
            } else {
                // a chain rig's one error a chain file's validation does
                // not find is its tree's
                rigbake::chain::validate(&file.ik_chains, None, 1.0)
                    .unwrap_or_else(|e| panic!("not a valid chain file: {e}\n{text}"));
                assert!(line.starts_with("ik_chains["), "{line}\n{text}");
                unloaded += 1;
            }
            continue;
        }
        let tree = lowered.unwrap_or_else(|e| panic!("loads, but lowering refuses: {e}\n{text}"));
        let written = rig::to_text(&tree);
        let back = rig::load(&written)
            .unwrap_or_else(|e| panic!("the written tree does not load: {e}\n{text}"));
        assert!(!back.figure.bones.is_empty());
        if cycling {
            legs += 1;
        } else {
            chains += 1;
        }
        if (legs + chains) % 10 == 0 {
            let route = [rigbake::Route::Css, rigbake::Route::Smil][baked % 2];
            let b = common::bake(&serde_json::from_str(&written).unwrap(), route);
            assert!(b.svg.starts_with("<svg"), "{text}");
            if cycling {
                // (the loader lowers it the same way)
                assert_eq!(common::bake(&v, route).svg, b.svg, "{text}");
            }
            baked += 1;
        }
    }
    let counts = format!(
        "lowered {legs} cycling and {chains} chain rigs ({baked} baked), {refused} cycling \
         and {unloaded} chain rigs do not load"
    );
    eprintln!("{counts}");
    assert!(
        legs >= 100 && chains >= 150 && refused >= 100 && unloaded >= 50,
        "{counts}"
    );
}

/// `lower` on a rig whose tree would not load: exit 2, one line naming the
/// rig file, the rig's fields the value is made of and the tree's path and
/// value; an existing output file is left as it was. The rig, valid in its
/// own terms, loads as that tree: the loader refuses it in the same words,
/// and so does `bake`.
#[test]
fn a_tree_past_the_bounds_is_refused_in_one_line() {
    let tmp = tempfile::tempdir().unwrap();
    let mut v: Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap();
    v["legs"][1]["depth_offset"] = serde_json::json!([999_999, 999_999]);
    let deep = tmp.path().join("deep.json");
    fs::write(&deep, v.to_string()).unwrap();
    let out = tmp.path().join("out.json");
    fs::write(&out, "kept\n").unwrap();
    let o = lower(&[deep.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    let stderr = String::from_utf8(o.stderr).unwrap();
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(o.stdout.is_empty());
    let want = "crank.center[0] + legs[1].pedal_offset[0] + legs[1].depth_offset[0]: \
                in the bone tree this rig lowers into, ik[1].target.circle.center[0]: \
                must be within ±1000000, got 1000419";
    assert_eq!(
        stderr,
        format!("rigbake: error: {}: {want}\n", deep.display())
    );
    assert_eq!(fs::read_to_string(&out).unwrap(), "kept\n");
    // (what is refused is the sum: a depth offset nearly as large, whose
    // sums stay within the bounds, loads)
    let mut near = v.clone();
    near["legs"][1]["depth_offset"] = serde_json::json!([999_000, -7]);
    rig::load(&near.to_string()).expect("a rig whose tree stays within bounds loads");
    assert_eq!(rig::load(&v.to_string()).unwrap_err().to_string(), want);
    common::bad(&v, &[want]);
}
