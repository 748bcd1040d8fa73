//! A Verlet chain's `iterations` (constraint passes per 1/60 s frame, seed
//! 004's scheme): fewer passes leave a stretchier chain with a different
//! tip path; every count bakes within the chain tolerance on both routes,
//! and the css route's stretched joints read the same in real browsers; a
//! count out of range exits 2 naming the JSON path.

use rigbake::browser::{Browser, Engine, SeekMode, probe_positions};
use rigbake::figure::chain::{Chain, SEAM_TOLERANCE_PX};
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::{Route, measure, rig};
use serde_json::{Value, json};

mod common;

fn with_iterations(rig: &str, n: Option<u64>) -> Value {
    let text = std::fs::read_to_string(common::repo(rig)).unwrap();
    let mut v: Value = serde_json::from_str(&text).unwrap();
    if let Some(n) = n {
        v["chains"][0]["iterations"] = json!(n);
    }
    v
}

/// The first chain of `v` as simulated (bone-tree or cycling rig).
fn simulated(v: &Value) -> Chain {
    let rig = rig::load(&v.to_string()).unwrap();
    rig.figure.chains[0].clone()
}

/// Largest chain length over its rest length on any recorded frame.
fn stretch(ch: &Chain) -> f64 {
    let rest = ch.params.segment * (ch.params.count - 1) as f64;
    ch.recording
        .frames
        .iter()
        .map(|f| f.windows(2).map(|w| w[0].dist(w[1])).sum::<f64>() / rest)
        .fold(0.0, f64::max)
}

/// The tip particle over the recorded loop.
fn tip_path(ch: &Chain) -> Vec<Vec2> {
    ch.recording.frames.iter().map(|f| f[f.len() - 1]).collect()
}

fn max_apart(a: &[Vec2], b: &[Vec2]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p.dist(*q)).fold(0.0, f64::max)
}

/// Seed 004: 2 passes a soft thread, 6 and 8 firmer; without the field
/// the chain keeps its length. Both example chains (a ponytail on a bone,
/// a scarf on a fixed point).
#[test]
fn fewer_passes_stretch_the_chain_more_and_move_its_tip() {
    for rig in ["rigs/ponytail.json", "rigs/cyclist-scarf.json"] {
        let stiff = simulated(&with_iterations(rig, None));
        let chains: Vec<Chain> = [2, 6, 8]
            .iter()
            .map(|n| simulated(&with_iterations(rig, Some(*n))))
            .collect();
        let s: Vec<f64> = chains.iter().map(stretch).collect();
        let s0 = stretch(&stiff);
        eprintln!(
            "{rig}: length / rest at 2, 6, 8 passes {:.4} {:.4} {:.4}; without iterations {s0:.5}",
            s[0], s[1], s[2]
        );
        assert!(s0 < 1.001, "{rig}: the stiff chain stretches {s0}");
        // fewer passes, more stretch, by at least a tenth of a percent each
        assert!(s[0] > s[1] + 0.001 && s[1] > s[2] + 0.001, "{rig}: {s:?}");
        assert!(s[2] > s0 + 0.001, "{rig}: 8 passes {} vs stiff {s0}", s[2]);
        // and the tip follows a different path for each count
        let tips: Vec<Vec<Vec2>> = chains.iter().map(tip_path).collect();
        for (a, b) in [(0, 1), (1, 2), (0, 2)] {
            let d = max_apart(&tips[a], &tips[b]);
            eprintln!("{rig}: tip paths of counts #{a} and #{b} up to {d:.2} px apart");
            assert!(d > 0.5, "{rig}: tip paths only {d} px apart");
        }
        for ch in &chains {
            assert!(
                ch.recording.converged,
                "{rig}: {:?}",
                ch.recording.seam_error_px
            );
            assert!(ch.recording.seam_error_px <= SEAM_TOLERANCE_PX);
        }
    }
}

/// Every count bakes within the chain tolerance on both routes, measured on
/// the written clip (`max_deviation_px`), and the report shows the stretch.
#[test]
fn every_count_bakes_within_tolerance_on_both_routes() {
    for rig in ["rigs/ponytail.json", "rigs/cyclist-scarf.json"] {
        for n in [1, 2, 6, 8, 100] {
            let v = with_iterations(rig, Some(n));
            let want = stretch(&simulated(&v));
            for route in [Route::Css, Route::Smil] {
                let baked = common::bake(&v, route);
                let c = &baked.report.chains[0];
                eprintln!(
                    "{rig} iterations {n} {route:?}: {} keys, deviation {} px, length error {} %",
                    c.keys, c.max_deviation_px, c.max_length_error_pct
                );
                assert!(c.converged && c.seam_error_px <= SEAM_TOLERANCE_PX, "{c:?}");
                assert!(
                    c.max_deviation_px <= rigbake::bake::DEFAULT_TOLERANCE_PX,
                    "{rig} {n} {route:?}: {c:?}"
                );
                // the report's length error is at least the whole chain's stretch
                assert!(
                    c.max_length_error_pct >= (want - 1.0) * 100.0 - 0.01,
                    "{c:?}"
                );
            }
        }
    }
}

/// The css route writes a stretch as joints translated along their
/// segments inside the rotation chain: Chromium and Firefox ESR must place
/// every particle where the library's evaluation does (within 0.05 px).
#[test]
fn stretched_joints_read_the_same_in_browsers() {
    let v = with_iterations("rigs/ponytail.json", Some(2));
    let baked = common::bake(&v, Route::Css);
    // (a track may be written as the stops of a `linear()` easing, under
    // a shared block's name: look for it in the clip)
    assert!(
        baked.clip.tracks.iter().any(|t| t.name.ends_with("-s5x")),
        "no stretch track written"
    );
    let times: Vec<f64> = (0..48)
        .map(|k| (baked.clip.period_s * k as f64 / 48.0 * 1000.0).round() / 1000.0)
        .collect();
    let mut engines = 0;
    for engine in Engine::ALL {
        let Some(browser) = Browser::find(engine) else {
            assert!(
                std::env::var("CI").map_or(true, |v| v != "true"),
                "{engine} not found, CI requires it"
            );
            eprintln!("note: {engine} not found; skipped");
            continue;
        };
        engines += 1;
        let got = probe_positions(&browser, &baked.svg, SeekMode::WebAnimations, &times).unwrap();
        let mut worst: f64 = 0.0;
        for (t, probes) in times.iter().zip(&got) {
            for (name, w) in measure::probes_at(&baked.clip, *t) {
                let p = probes
                    .get(&name)
                    .unwrap_or_else(|| panic!("{engine}: no probe {name}"));
                worst = worst.max(w.dist(Vec2::new(p[0], p[1])));
            }
        }
        eprintln!("{engine}: browser vs library up to {worst:.4} px");
        assert!(worst <= 0.05, "{engine}: {worst} px");
    }
    eprintln!("{engines} engine(s) checked");
}

#[test]
fn a_count_out_of_range_exits_2_naming_its_path() {
    for (n, shown) in [(0, "got 0"), (101, "got 101")] {
        common::bad(
            &with_iterations("rigs/ponytail.json", Some(n)),
            &["chains[0].iterations", "1..=100", shown],
        );
    }
    // a cycling rig's fixed chain goes through the same check
    common::bad(
        &with_iterations("rigs/cyclist-scarf.json", Some(0)),
        &["chains[0].iterations", "1..=100", "got 0"],
    );
}
