//! Error-bounded keys: the fitter's output, as measured independently, never
//! exceeds the tolerance, and the figures docs/how-it-works.md quotes hold.

use proptest::prelude::*;
use rigbake::bake::{BakeOptions, Keying};
use rigbake::fit::Fit;
use rigbake::{Route, rig};

mod common;

fn seed() -> rig::Rig {
    rig::load(&std::fs::read_to_string("rigs/seed-nested.json").unwrap()).unwrap()
}

fn fitted(rig: &rig::Rig, route: Route, tol: f64, fit: Fit) -> rigbake::report::Report {
    let opts = BakeOptions {
        route,
        keying: Keying::Tolerance(tol),
        fit,
        shortest_shape: false,
    };
    rigbake::bake_rig(rig, &opts).report
}

/// Keys per bone of the worst leg, and that leg's measured max error.
fn keys_and_error(r: &rigbake::report::Report) -> (usize, f64) {
    (
        r.legs.iter().map(|l| l.keys).max().unwrap(),
        r.max_error_px(),
    )
}

/// (5 keys per bone with the cycling engine; the bone tree the seed loads
/// as takes 6/5, 0.618 px)
#[test]
fn cubic_meets_one_px_with_at_most_six_keys_per_bone() {
    let (keys, err) = keys_and_error(&fitted(&seed(), Route::Css, 1.0, Fit::Cubic));
    assert!(err <= 1.0, "{err}");
    assert!(keys <= 6, "{keys} keys per bone");
}

/// (6/5 keys, 0.226 px with the cycling engine; 7/5, 0.163 px as a bone
/// tree)
#[test]
fn cubic_meets_quarter_px_with_at_most_seven_keys_per_bone() {
    let (keys, err) = keys_and_error(&fitted(&seed(), Route::Css, 0.25, Fit::Cubic));
    assert!(err <= 0.25, "{err}");
    assert!(keys <= 7, "{keys} keys per bone");
}

/// (at most 16 keys per bone with the cycling engine; 17/16, 0.794 px as
/// a bone tree, where 17 uniform keys miss by 1.254 px)
#[test]
fn adaptive_linear_beats_uniform_at_one_px() {
    let (keys, err) = keys_and_error(&fitted(&seed(), Route::Css, 1.0, Fit::Linear));
    assert!(err <= 1.0, "{err}");
    assert!(keys <= 17, "{keys} keys per bone");
    // uniform linear at that many keys misses 1 px
    let uniform = rigbake::bake_rig(
        &seed(),
        &BakeOptions {
            route: Route::Css,
            keying: Keying::Uniform(keys),
            fit: Fit::Linear,
            shortest_shape: false,
        },
    );
    assert!(uniform.report.max_error_px() > 1.0);
}

#[test]
fn tolerance_tenth_holds_on_every_ankle_rig_and_route() {
    for entry in std::fs::read_dir("rigs").unwrap() {
        let path = entry.unwrap().path();
        let rig = rig::load(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if rig.figure.ik.is_empty() {
            // bone trees without IK key exact easings and report bone
            // drift, not a tolerance fit of effectors
            continue;
        }
        for route in [Route::Css, Route::Smil] {
            let fit = if route == Route::Css {
                Fit::Cubic
            } else {
                Fit::Linear
            };
            let a = fitted(&rig, route, 0.1, fit);
            assert!(
                a.max_error_px() <= 0.1,
                "{}: {}",
                path.display(),
                a.max_error_px()
            );
            // deterministic bytes
            let opts = BakeOptions {
                route,
                keying: Keying::Tolerance(0.1),
                fit,
                shortest_shape: false,
            };
            assert_eq!(
                rigbake::bake_rig(&rig, &opts).svg,
                rigbake::bake_rig(&rig, &opts).svg
            );
        }
    }
}

/// `--fit shortest` is the css default of a fitted bake: every rig of
/// `rigs/` with fitted bone-tree channels (`ik_chains` and bone trees)
/// writes a file no more than 3.5 % larger than with `--fit cubic` (rower
/// 3.4 %: each track's shape is chosen by its own keys' bytes, and its
/// lift and slide tracks take `linear()` stops that the file then writes
/// in longer rules than the cubic keyframes it would have; every other rig
/// no larger), nor more than 2.5 %
/// larger than with `--fit linear` (walker 1.0 %, path-foot 2.0 %,
/// ponytail 0.1 %: their legs' two bones keyed together in linear
/// segments, which is not a choice of the shortest shape, or uniform
/// stops to the whole budget, where the shortest shape's take half), and
/// keeps its tolerance. Each channel
/// takes the fewest bytes of cubic and linear keys, placed or uniform; an
/// IK limb, its two bones each so, or cubic keys fitted together; a
/// spring, either shape. (Before the uniform linear keys and a spring's
/// linear keys were choices, runner wrote 6.4 % and ponytail 3.1 % more
/// than with `--fit linear`.)
#[test]
fn shortest_shape_is_the_css_default_and_no_larger_than_either_shape() {
    let mut compared = 0;
    for path in common::example_rigs() {
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let rig = rig::load(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let default = BakeOptions::resolve(&rig, Route::Css, None, None, None);
        assert!(default.shortest_shape, "{name}: the css default");
        assert_eq!(default.fit, Fit::Cubic);
        let b = rigbake::bake_rig(&rig, &default);
        if !b
            .report
            .notes
            .iter()
            .any(|n| n.contains("whichever writes fewer bytes"))
        {
            // nothing fitted (every channel constant or an eased track)
            continue;
        }
        let limit = rig.tolerance_px.unwrap_or(0.25);
        assert!(
            b.report.max_error_px() <= limit,
            "{name}: {}",
            b.report.max_error_px()
        );
        for fit in [Fit::Cubic, Fit::Linear] {
            let one = BakeOptions::resolve(&rig, Route::Css, None, None, Some(fit));
            assert!(!one.shortest_shape, "{name}: --fit {fit:?}");
            let a = rigbake::bake_rig(&rig, &one);
            let limit = match fit {
                Fit::Linear => a.svg.len() + a.svg.len() * 25 / 1000,
                _ => a.svg.len() + a.svg.len() * 35 / 1000,
            };
            assert!(
                b.svg.len() <= limit,
                "{name}: {} bytes, --fit {fit:?} {}",
                b.svg.len(),
                a.svg.len()
            );
            assert!(
                !a.report
                    .notes
                    .iter()
                    .any(|n| n.contains("whichever writes fewer bytes"))
            );
        }
        compared += 1;
    }
    assert!(compared >= 10, "{compared} rigs compared");
    // a tolerance keeps the default shape; uniform keys take none
    let walker = rig::load(&std::fs::read_to_string("rigs/walker.json").unwrap()).unwrap();
    assert!(BakeOptions::resolve(&walker, Route::Css, None, Some(0.1), None).shortest_shape);
    assert!(!BakeOptions::resolve(&walker, Route::Css, Some(16), None, None).shortest_shape);
    assert!(!BakeOptions::resolve(&walker, Route::Smil, None, None, None).shortest_shape);
    // on smil the shortest shape changes nothing; on css a cycling leg's
    // two bones, keyed together, take the shorter of cubic keys and
    // evenly spaced linear ones (the seed's: 30 linear keys, 364 B fewer)
    for (name, route) in [("seed-nested", Route::Css), ("walker", Route::Smil)] {
        let rig =
            rig::load(&std::fs::read_to_string(format!("rigs/{name}.json")).unwrap()).unwrap();
        let plain = BakeOptions {
            shortest_shape: false,
            ..BakeOptions::resolve(&rig, route, None, None, None)
        };
        let shortest = BakeOptions {
            shortest_shape: true,
            ..plain
        };
        let (a, b) = (
            rigbake::bake_rig(&rig, &plain),
            rigbake::bake_rig(&rig, &shortest),
        );
        match route {
            Route::Smil => assert_eq!(a.svg, b.svg, "{name}"),
            Route::Css => {
                assert!(b.svg.len() < a.svg.len(), "{name}: {} B", b.svg.len());
                assert!(b.report.max_error_px() <= 0.25, "{name}");
                assert!(b.report.legs.iter().all(|l| l.fit == Fit::Linear));
                assert!(a.report.legs.iter().all(|l| l.fit == Fit::Cubic));
            }
        }
    }
}

/// A cycling leg is one morphed path on smil (its lowered `ik` entry says
/// `"smil": "morph"`): a cubic request keys it linear, and a note says so.
#[test]
fn smil_cubic_request_is_noted_and_linear() {
    let r = fitted(&seed(), Route::Smil, 1.0, Fit::Cubic);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("near, far written as d morphs") && n.contains("linear keys")),
        "{:?}",
        r.notes
    );
    assert!(r.legs.iter().all(|l| l.fit == Fit::Linear));
    assert!(r.max_error_px() <= 1.0);
}

fn random_rig(
    radius: f64,
    thigh: f64,
    shin_ratio: f64,
    reach: f64,
    dir_deg: f64,
    ccw: bool,
    start_deg: f64,
) -> rig::Rig {
    let shin = thigh * shin_ratio;
    let (lo, hi) = ((thigh - shin).abs(), thigh + shin);
    // hip-to-centre distance D with [D − r, D + r] inside the reachable
    // annulus, the pedal's nearest pass at least FOLD_CLEARANCE · r beyond
    // the fold
    let near = lo + radius * (1.0 + FOLD_CLEARANCE);
    let d = near + (hi - radius - near) * reach;
    let (c, s) = dir_deg.to_radians().sin_cos();
    let hip = [400.0 - d * s, 400.0 - d * c];
    let text = serde_json::json!({
        "name": "random", "view_box": [0, 0, 800, 800], "period_s": 1.0,
        "crank": { "center": [400, 400], "radius": radius, "start_deg": start_deg,
                   "direction": if ccw { "ccw" } else { "cw" } },
        "legs": [
            { "name": "near", "hip": hip, "thigh": thigh, "shin": shin },
            { "name": "far", "hip": hip, "thigh": thigh, "shin": shin, "phase_deg": 180,
              "depth_offset": [-4, -4] }
        ]
    });
    rig::load(&text.to_string()).unwrap()
}

/// How far beyond the leg's fold (hip-to-pedal distance |thigh − shin|)
/// the pedal of `random_rig` passes at least, as a share of the crank
/// radius. Nearer, the pedal turns the limb so fast as it passes that
/// linear keys, at most one per fitter sample (1/1024 of the period)
/// apart, miss a tolerance of 0.05 px at the bone tips: over 3,000 rigs
/// of this generator with the pedal anywhere in reach, `bake --fit linear
/// --tolerance 0.05` refused 136, every one passing within 0.17 r and
/// 11.7 px of the fold (at most 0.74 px reached); past 0.25 r, none of
/// 5,000 as drawn here (nor of 2,000 cubic). The bake refuses such a file
/// (pinned by
/// `a_nearly_folded_leg_is_refused_at_a_linear_tolerance_it_cannot_keep`).
const FOLD_CLEARANCE: f64 = 0.25;

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// Over random reachable rigs, the independently measured error of a
    /// tolerance bake never exceeds the tolerance. (The pedal passes the
    /// fold by [`FOLD_CLEARANCE`] of the crank radius at least: see there
    /// for the limit nearer it.)
    #[test]
    fn fitted_bakes_never_exceed_the_tolerance(
        radius in 10.0..80.0f64,
        thigh in 60.0..160.0f64,
        shin_ratio in 0.7..1.3f64,
        reach in 0.0..0.95f64,
        dir_deg in 20.0..160.0f64,
        ccw in any::<bool>(),
        start_deg in 0.0..360.0f64,
        tol in prop::sample::select(vec![0.05, 0.1, 0.5, 2.0]),
        cubic in any::<bool>(),
    ) {
        prop_assume!(thigh * shin_ratio > 0.0);
        let shin = thigh * shin_ratio;
        prop_assume!(
            thigh + shin - (thigh - shin).abs() > (2.0 + FOLD_CLEARANCE) * radius + 2.0
        );
        let rig = random_rig(radius, thigh, shin_ratio, reach, dir_deg, ccw, start_deg);
        let fit = if cubic { Fit::Cubic } else { Fit::Linear };
        for route in [Route::Css, Route::Smil] {
            let r = fitted(&rig, route, tol, fit);
            prop_assert!(r.max_error_px() <= tol, "{:?}: {} > {}", route, r.max_error_px(), tol);
        }
    }
}

/// A known limit of the linear fit: a pedal that passes within a few px of
/// the leg's fold (hip-to-pedal distance down to 4.2 px against a fold at
/// 3.4 px) turns the limb so fast there that linear keys fitted to 0.1 px
/// miss its bone tips (knee and ankle, which the measure judges) by about
/// 0.2 px. The bake is refused (exit 2, naming the bone and what it reached),
/// nothing is written, and cubic keys keep the same tolerance.
#[test]
fn a_nearly_folded_leg_is_refused_at_a_linear_tolerance_it_cannot_keep() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("folded.json");
    std::fs::write(
        &rig,
        r#"{"name": "folded", "view_box": [0, 0, 800, 800], "period_s": 1.0,
            "crank": {"center": [400, 400], "radius": 48.71},
            "legs": [{"name": "near", "hip": [350.29, 381.91], "thigh": 60, "shin": 56.61}]}"#,
    )
    .unwrap();
    let out = dir.path().join("folded.svg");
    let bake = |fit: &str| {
        assert_cmd::Command::cargo_bin("rigbake")
            .unwrap()
            .arg("bake")
            .arg(&rig)
            .args(["--tolerance", "0.1", "--fit", fit, "-o"])
            .arg(&out)
            .output()
            .unwrap()
    };
    let linear = bake("linear");
    let err = String::from_utf8_lossy(&linear.stderr);
    assert_eq!(linear.status.code(), Some(2), "{err}");
    assert!(
        err.contains("could not keep every probe within 0.1 px") && err.contains("bone near_"),
        "{err}"
    );
    assert!(!out.exists());
    let cubic = bake("cubic");
    assert!(
        cubic.status.success(),
        "{}",
        String::from_utf8_lossy(&cubic.stderr)
    );
    assert!(out.exists());
}

/// The shortest shape's choices keep the goal at the first try: every
/// fitted bone-tree rig of `rigs/`, and the stickman with its legs
/// shortened to 25 px (its front leg named, both pulled), bakes its
/// channels to 0.8 of its tolerance with no retry. Uniform linear keys
/// fitted to their whole budget miss by about all of it along the period,
/// so over a chain of such bones the errors added up at the tips: the
/// shortened stickman missed 0.25 px, the retries brought every channel
/// to 0.129 px, and the file grew from 27,958 to 29,668 B.
#[test]
fn the_shortest_shape_keeps_the_goal_at_the_first_try() {
    let mut rigs: Vec<(String, rig::Rig)> = common::example_rigs()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.display().to_string(), rig::load(&text).unwrap())
        })
        .collect();
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("rigs/stickman.json").unwrap()).unwrap();
    for b in v["bones"].as_array_mut().unwrap() {
        let name = b["name"].as_str().unwrap().to_owned();
        if name.starts_with("thigh_") || name.starts_with("shin_") {
            b["length"] = 25.into();
        }
    }
    v["ik"][0]["name"] = "frontleg".into();
    for k in v["ik"].as_array_mut().unwrap() {
        k["reach"] = "pull".into();
    }
    rigs.push((
        "stickman, legs 25 px".into(),
        rig::load(&v.to_string()).unwrap(),
    ));
    let mut fitted = 0;
    for (name, rig) in &rigs {
        let opts = BakeOptions::resolve(rig, Route::Css, None, None, None);
        let b = rigbake::bake_rig(rig, &opts);
        let Some(note) = b
            .report
            .notes
            .iter()
            .find(|n| n.contains("px of probe movement"))
        else {
            continue;
        };
        let goal = rig.tolerance_px.unwrap_or(0.25);
        let first = format!(" to {} px of probe movement", goal * 0.8);
        assert!(note.contains(&first), "{name}: {note}");
        assert!(b.report.max_error_px() <= goal, "{name}");
        fitted += 1;
    }
    assert!(fitted >= 10, "{fitted} fitted rigs");
}

/// A chain of 32 bones, each 1 px, each on a sine of up to harmonic 24 at
/// 60°: each bone's budget at its reach is at most about a tenth of a
/// degree (0.06 px at the root's 32 px), which linear keys a thousandth of
/// the period apart cannot keep on the fastest sines. The default
/// bake chooses, per channel, among key sets that keep their budget (cubic
/// ones here), so the tip keeps the 0.25 px goal on both routes; when the
/// cheaper linear sets that missed theirs could win, the errors of 32
/// bones added up to 0.805 px at the tip (and 9.13 px over 256 bones).
#[test]
fn the_default_keeps_the_goal_where_linear_keys_cannot_follow() {
    let mut bones = vec![serde_json::json!({
        "name": "b0", "at": [400, 300], "length": 1,
        "angle": { "sine": { "amp_deg": 60, "harmonic": 24 } }
    })];
    for i in 1..32 {
        bones.push(serde_json::json!({
            "name": format!("b{i}"), "parent": format!("b{}", i - 1), "length": 1,
            "angle": { "sine": { "amp_deg": 60, "harmonic": 24 - i % 20, "phase_deg": i * 7 } }
        }));
    }
    let text = serde_json::json!({
        "name": "fast", "view_box": [0, 0, 800, 600], "period_s": 1, "bones": bones
    });
    let rig = rig::load(&text.to_string()).unwrap();
    for route in [Route::Css, Route::Smil] {
        let r =
            rigbake::bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, None)).report;
        assert!(r.max_error_px() <= 0.25, "{route:?}: {}", r.max_error_px());
    }
}
