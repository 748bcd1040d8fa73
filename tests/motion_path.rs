//! Exact moving targets: a chain whose target walks a `path` at constant
//! speed draws its marker with CSS `offset-path` / SMIL `<animateMotion>`,
//! so in a real browser the `<chain>-target` probe sits on the library's
//! ideal target (within [`TOL_PX`] at every sampled time, in Chromium and
//! in Firefox ESR), and the report's `target_px` is what the browsers see.
//!
//! Besides `rigs/path-foot.json`, the class is covered by generated rigs: a
//! reverse walk started part-way, a path without `Z` (open in SVG terms,
//! closed in geometry) of lines and a quadratic written with relative
//! commands, an arc (kurbo turns it into cubics; the file carries those), a
//! `depth_offset` and a view box whose origin is not (0, 0).
//!
//! An engine that is not installed is skipped with a notice, except under
//! `CI=true`, where that fails.

use std::path::Path;

mod common;

use rigbake::bake::BakeOptions;
use rigbake::browser::{Browser, Engine, SeekMode, probe_positions};
use rigbake::{Route, bake_rig, rig};

/// Largest distance accepted between a browser's marker and the ideal
/// target, and between the browser's worst and the report's, px.
const TOL_PX: f64 = 0.05;

/// Seek times per period.
const SAMPLES: usize = 240;

fn engines() -> Vec<Browser> {
    let mut out = Vec::new();
    for engine in Engine::ALL {
        match Browser::find(engine) {
            Some(b) => out.push(b),
            None if std::env::var("CI").is_ok_and(|v| v == "true") => {
                panic!("{engine} not found, CI requires it")
            }
            None => eprintln!("note: {engine} not found; skipped"),
        }
    }
    out
}

/// A two-chain rig whose targets walk `d` (the second chain `depth_offset`
/// by (−6, −7)), with `extra` fields for the first chain's path.
fn path_rig(name: &str, view_box: &str, d: &str, near: &str, far: &str) -> String {
    format!(
        r#"{{ "name": "{name}", "view_box": {view_box}, "period_s": 1.2, "keys": 24,
          "tolerance_px": 0.5,
          "ik_chains": [
            {{ "name": "near", "root": {{ "fixed": [200, 100] }},
              "target": {{ "path": {{ "d": "{d}"{near} }} }},
              "thigh": 100, "shin": 100, "knee": "forward" }},
            {{ "name": "far", "root": {{ "fixed": [200, 100] }},
              "target": {{ "path": {{ "d": "{d}"{far} }} }},
              "thigh": 100, "shin": 100, "knee": "forward", "depth_offset": [-6, -7] }}
          ] }}"#
    )
}

/// `rigs/path-foot.json` and the generated rigs, as (label, rig text).
fn rigs() -> Vec<(String, String)> {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/path-foot.json");
    vec![
        (
            "rigs/path-foot.json".into(),
            std::fs::read_to_string(file).unwrap(),
        ),
        (
            "reverse, started part-way".into(),
            path_rig(
                "reverse",
                "[0, 0, 400, 320]",
                "M 160 250 C 190 222 260 222 280 250 C 260 278 190 278 160 250 Z",
                r#", "start": 0.3, "along": "reverse""#,
                r#", "start": 0.85"#,
            ),
        ),
        (
            "open path, relative lines and a quadratic, shifted view box".into(),
            path_rig(
                "open",
                "[-30, 15, 400, 320]",
                "m 150 240 l 60 -15 q 60 -10 70 25 L 150 240",
                r#", "start": 0.1"#,
                r#", "start": 0.6, "along": "reverse""#,
            ),
        ),
        (
            "arcs".into(),
            path_rig(
                "arcs",
                "[0, 0, 400, 320]",
                "M 150 250 A 60 22 0 1 1 270 250 A 60 22 0 1 1 150 250 Z",
                "",
                r#", "start": 0.25"#,
            ),
        ),
    ]
}

#[test]
fn path_targets_sit_on_the_ideal_trajectory_in_both_engines() {
    let browsers = engines();
    let mut failures = Vec::new();
    for (label, text) in rigs() {
        let rig = rig::load(&text).unwrap_or_else(|e| panic!("{label}: {e}"));
        for route in [Route::Css, Route::Smil] {
            let baked = bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, None));
            let (clip, report) = (&baked.clip, &baked.report);
            // the file moves both markers along the path, with no keyed
            // marker (on the css route both share one rule, the far one
            // delayed by a rule of its own)
            let moving = match route {
                Route::Css => ["-t-near", "-t-far"]
                    .iter()
                    .filter(|m| {
                        common::css_rules(&baked.svg, m)
                            .iter()
                            .any(|r| r.contains("offset-path:path("))
                    })
                    .count(),
                Route::Smil => baked.svg.matches("<animateMotion ").count(),
            };
            assert_eq!(moving, 2, "{label} ({route:?}): {}", baked.svg);
            assert!(!baked.svg.contains("-t-x"), "{label}: a keyed marker");
            // whole milliseconds: Firefox's SMIL clock shows no other times
            let times: Vec<f64> = (0..SAMPLES)
                .map(|i| (clip.period_s * i as f64 / SAMPLES as f64 * 1000.0).round() / 1000.0)
                .collect();
            let mode = match route {
                Route::Css => SeekMode::WebAnimations,
                Route::Smil => SeekMode::Smil,
            };
            for browser in &browsers {
                let got = probe_positions(browser, &baked.svg, mode, &times)
                    .unwrap_or_else(|e| panic!("{label} ({route:?}) in {}: {e}", browser.engine));
                // the chains, loaded as a tree: one named `ik` entry each
                let fig = &rig.figure;
                assert_eq!(report.legs.len(), fig.ik.len(), "{label}");
                for lr in &report.legs {
                    let k = fig
                        .ik
                        .iter()
                        .position(|k| k.name.as_deref() == Some(&lr.name));
                    let k = k.unwrap_or_else(|| panic!("{label}: no chain {}", lr.name));
                    let probe = fig.target_probe(k);
                    let mut worst = (0.0_f64, 0.0);
                    for (t, probes) in times.iter().zip(&got) {
                        let p = probes[&probe];
                        let want = fig.clips[0].targets[k].at((t / clip.period_s).rem_euclid(1.0));
                        let d = (p[0] - want.x).hypot(p[1] - want.y);
                        if d > worst.0 {
                            worst = (d, *t);
                        }
                    }
                    let reported = lr.target_px.expect("a chain reports target_px");
                    eprintln!(
                        "{label} ({route:?}, {}): {} marker {:.2e} px from the ideal (t = {} s), reported {reported}",
                        browser.engine, lr.name, worst.0, worst.1
                    );
                    if worst.0 > TOL_PX || (worst.0 - reported).abs() > TOL_PX {
                        failures.push(format!(
                            "{label} ({route:?}, {}): {} marker {:.4} px from the ideal at t = {} s, reported {reported} px",
                            browser.engine, lr.name, worst.0, worst.1
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The measure stage walks written path data to the same fraction of its
/// size at any scale: the same loop of cubics with near-cusps, written 2¹⁰
/// and 2¹⁷ times larger (about 10³ and 10⁵; powers of two scale every step
/// of the arithmetic exactly), is measured to an accuracy, lengths and
/// points scaled to the bit, so in the same steps. (At a fixed accuracy in
/// units the larger ones took more of kurbo's subdivisions, and so other
/// bits.)
#[test]
fn written_paths_are_measured_in_the_same_steps_at_any_scale() {
    use rigbake::clip::MotionPath;
    use rigbake::geom::Vec2;
    use rigbake::measure::motion_point;
    let d = |k: f64| {
        let n = 16;
        let at = |i: usize| {
            let a = std::f64::consts::TAU * (i % n) as f64 / n as f64;
            let r = 6.0 * (1.0 + 0.05 * (5.0 * a).sin());
            (r * a.cos(), r * a.sin())
        };
        let mut d = format!("M {} {}", at(0).0 * k, at(0).1 * k);
        for i in 1..=n {
            let ((x, y), (px, py)) = (at(i), at(i - 1));
            let (dx, dy) = (x - px, y - py);
            let c = [
                x + 0.1 * dx,
                y + 0.1 * dy + 0.01,
                px - 0.1 * dx,
                py - 0.1 * dy,
                x,
                y,
            ];
            d.push_str(" C");
            for v in c {
                d.push_str(&format!(" {}", v * k));
            }
        }
        d + " Z"
    };
    let one = MotionPath::new(d(1.0), 100.0);
    for k in [1024.0, 131_072.0] {
        let big = MotionPath::new(d(k), 100.0);
        assert_eq!(big.accuracy, one.accuracy * k);
        for (a, b) in big.cum.iter().zip(&one.cum) {
            assert_eq!(*a, b * k, "{k}");
        }
        for j in 0..=1000 {
            let f = j as f64 / 1000.0;
            let (p, q): (Vec2, Vec2) = (motion_point(&big, f), motion_point(&one, f));
            assert_eq!(p, q * k, "{k} at {f}");
        }
    }
}
