//! Real-browser checks in headless Chromium (see `rigbake::browser`).
//!
//! The harness itself is checked against hand-written fixtures in
//! `tests/fixtures/browser/` whose probe paths are known in closed form:
//! a browser position must match the formula within [`TOL_PX`] at 200 times
//! per period.
//!
//! Without Chromium these tests print a notice and pass, except under CI
//! (`CI=true`), where a missing browser is a failure. Point
//! `RIGBAKE_CHROMIUM` at a binary to use a specific one.

use std::f64::consts::PI;
use std::path::{Path, PathBuf};

use rigbake::browser::{
    self, BrowserError, ProbeJob, Probes, SeekMode, find_chromium, frame_strip, img_frames,
    probe_positions,
};

/// Per-time, per-probe agreement required between browser and reference, px.
const TOL_PX: f64 = 0.05;

/// Samples per period for seek-and-read comparisons.
const SAMPLES: usize = 200;

/// The Chromium to test with, or `None` (after saying so) when the suite is
/// skipped. Panics under `CI=true` when no browser is found.
fn chromium() -> Option<PathBuf> {
    if let Some(path) = find_chromium() {
        return Some(path);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("chromium not found, CI requires it (install the Debian package `chromium`)");
    }
    eprintln!(
        "note: chromium not found; skipping browser test (set RIGBAKE_CHROMIUM or install chromium)"
    );
    None
}

fn fixture(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/browser")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `n` evenly spaced times covering one period `[0, period_s)`, seconds.
fn period_times(period_s: f64, n: usize) -> Vec<f64> {
    (0..n).map(|i| period_s * i as f64 / n as f64).collect()
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

fn lerp(a: [f64; 2], b: [f64; 2], s: f64) -> [f64; 2] {
    [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s]
}

/// Value of a keyframed point at normalised time `u ∈ [0, 1)`: finds the
/// segment `key_times[i] ≤ u < key_times[i+1]` and interpolates with
/// `ease(local progress)`.
fn keyed(key_times: &[f64], values: &[[f64; 2]], ease: fn(f64) -> f64, u: f64) -> [f64; 2] {
    let i = key_times
        .windows(2)
        .position(|w| u >= w[0] && u < w[1])
        .expect("u inside the key times");
    let s = (u - key_times[i]) / (key_times[i + 1] - key_times[i]);
    lerp(values[i], values[i + 1], ease(s))
}

/// `cubic-bezier(1/3, 0, 2/3, 1)`: x(s) = s, so the value is smoothstep.
fn smoothstep(s: f64) -> f64 {
    s * s * (3.0 - 2.0 * s)
}

/// Compares browser samples with a reference per time and per probe;
/// returns the largest deviation. Fails on a missing or extra probe.
fn max_deviation(
    times: &[f64],
    got: &[Probes],
    expected: impl Fn(&str, f64) -> [f64; 2],
    names: &[&str],
) -> f64 {
    assert_eq!(got.len(), times.len(), "one probe map per time");
    let mut worst = (0.0, String::new());
    for (t, probes) in times.iter().zip(got) {
        let got_names: Vec<&str> = probes.keys().map(String::as_str).collect();
        let mut want_names = names.to_vec();
        want_names.sort_unstable();
        assert_eq!(got_names, want_names, "probe names at t = {t}");
        for name in names {
            let d = dist(probes[*name], expected(name, *t));
            if d > worst.0 {
                worst = (
                    d,
                    format!("{name} at t = {t:.4} s: browser {:?}", probes[*name]),
                );
            }
        }
    }
    eprintln!("max deviation {:.2e} px ({})", worst.0, worst.1);
    worst.0
}

#[test]
fn css_route_seek_matches_analytic_paths() {
    let Some(chromium) = chromium() else { return };
    let period_s = 2.0;
    let times = period_times(period_s, SAMPLES);
    let got = probe_positions(
        &chromium,
        &fixture("css_spin.svg"),
        SeekMode::WebAnimations,
        &times,
    )
    .unwrap();
    let expected = |name: &str, t: f64| {
        let th = 2.0 * PI * t / period_s;
        match name {
            "crank" => [80.0 + 30.0 * th.cos(), 50.0 + 30.0 * th.sin()],
            "late" => {
                let th = th + PI / 2.0;
                [80.0 + 30.0 * th.sin(), 50.0 - 30.0 * th.cos()]
            }
            "pedal" => [86.0 + 25.0 * th.cos(), 48.0 + 25.0 * th.sin()],
            _ => unreachable!(),
        }
    };
    let worst = max_deviation(&times, &got, expected, &["crank", "late", "pedal"]);
    assert!(
        worst <= TOL_PX,
        "browser deviates {worst} px from the analytic paths"
    );
}

#[test]
fn smil_route_seek_matches_analytic_paths() {
    let Some(chromium) = chromium() else { return };
    let period_s = 1.6;
    let times = period_times(period_s, SAMPLES);
    let got =
        probe_positions(&chromium, &fixture("smil_legs.svg"), SeekMode::Smil, &times).unwrap();
    let expected = |name: &str, t: f64| {
        let u = t / period_s;
        match name {
            "near-ankle" => keyed(
                &[0.0, 0.25, 0.5, 1.0],
                &[[40.0, 80.0], [80.0, 70.0], [100.0, 60.0], [40.0, 80.0]],
                |s| s,
                u,
            ),
            "far-ankle" => keyed(
                &[0.0, 0.5, 1.0],
                &[[30.0, 90.0], [90.0, 90.0], [30.0, 90.0]],
                smoothstep,
                u,
            ),
            "near-target" => {
                let th = 2.0 * PI * u;
                [105.0 + 20.0 * th.cos(), 35.0 + 20.0 * th.sin()]
            }
            _ => unreachable!(),
        }
    };
    let worst = max_deviation(
        &times,
        &got,
        expected,
        &["near-ankle", "far-ankle", "near-target"],
    );
    assert!(
        worst <= TOL_PX,
        "browser deviates {worst} px from the analytic paths"
    );
}

/// Pins Chromium's placement of `transform-origin` with
/// `transform-box: view-box` under a viewBox whose origin is not 0,0
/// (`-50 -50 200 100`): lengths are measured from the user-space origin
/// (0,0), not from the viewBox corner, and percentages are of the viewBox
/// width/height from that same origin, so `50% 50%` is (100, 50), not the
/// viewBox centre (50, 0). An unset `transform-box` behaves as `view-box`.
/// The origin is in the element's own user space, so a parent's static
/// transform moves it, and a nested `<svg>` viewport is its own view box.
#[test]
fn transform_origin_under_a_shifted_view_box() {
    let Some(chromium) = chromium() else { return };
    let got = probe_positions(
        &chromium,
        &fixture("view_box_origin.svg"),
        SeekMode::WebAnimations,
        &[0.0, 1.0],
    )
    .unwrap();
    // t = 0: untransformed.
    for (name, p) in &got[0] {
        let want = match name.as_str() {
            "under-placement" => [70.0, 20.0],
            "nested-viewport" => [120.0, 10.0],
            _ => [40.0, 20.0],
        };
        assert!(
            dist(*p, want) < 1e-3,
            "{name} at t = 0: {p:?}, want {want:?}"
        );
    }
    // t = 1 s: a quarter turn clockwise, (x, y) ↦ c + (−(y − c_y), x − c_x).
    let want_at_quarter = [
        ("px-origin", [10.0, 50.0]),        // about (10, 20)
        ("percent-origin", [130.0, -10.0]), // about (100, 50)
        ("box-unset", [10.0, 50.0]),        // about (10, 20)
        ("under-placement", [40.0, 50.0]),  // about (30 + 10, 20)
        ("nested-viewport", [105.0, 25.0]), // about (10, 20) of the inner viewBox
    ];
    assert_eq!(got[1].len(), want_at_quarter.len());
    for (name, want) in want_at_quarter {
        let p = got[1][name];
        assert!(
            dist(p, want) < 1e-3,
            "{name} at t = 1 s: {p:?}, want {want:?}"
        );
    }
}

/// A free-running document changes with time; under
/// `prefers-reduced-motion: reduce` the CSS route's media query stops it,
/// while SMIL ignores the preference (why rotations prefer CSS).
#[test]
fn reduced_motion_freezes_the_css_route_but_not_smil() {
    let Some(chromium) = chromium() else { return };
    let css = fixture("css_spin.svg");
    let moved = |samples: &[browser::TimedProbes]| {
        samples
            .windows(2)
            .flat_map(|w| {
                w[0].probes
                    .iter()
                    .map(move |(name, p)| dist(*p, w[1].probes[name]))
            })
            .fold(0.0, f64::max)
    };

    let playing = browser::probe_free_running(&chromium, &css, 300, 3, false).unwrap();
    assert!(
        moved(&playing) > 1.0,
        "CSS fixture does not move on its own: {playing:?}"
    );
    assert!(playing[2].t_ms - playing[0].t_ms >= 600.0);

    let reduced = browser::probe_free_running(&chromium, &css, 300, 3, true).unwrap();
    assert_eq!(
        moved(&reduced),
        0.0,
        "CSS fixture moves under reduced motion: {reduced:?}"
    );

    let smil = fixture("smil_legs.svg");
    let reduced_smil = browser::probe_free_running(&chromium, &smil, 300, 3, true).unwrap();
    assert!(
        moved(&reduced_smil) > 1.0,
        "SMIL stopped under reduced motion (Chromium changed?): {reduced_smil:?}"
    );
}

/// As `<img src>` the file still animates, and reduced motion freezes the
/// CSS route there too.
#[test]
fn img_embedding_animates_and_honours_reduced_motion() {
    let Some(chromium) = chromium() else { return };
    let css = fixture("css_spin.svg");

    let playing = img_frames(&chromium, &css, 100, 12, false).unwrap();
    let changed = playing.iter().map(|f| f.changed_px).max().unwrap();
    assert!(changed > 50, "<img> shows no motion: {playing:?}");

    let reduced = img_frames(&chromium, &css, 100, 12, true).unwrap();
    assert!(
        reduced.iter().all(|f| f.changed_px == 0),
        "<img> moves under reduced motion: {reduced:?}"
    );

    let smil = img_frames(&chromium, &fixture("smil_legs.svg"), 100, 12, false).unwrap();
    assert!(
        smil.iter().any(|f| f.changed_px > 50),
        "SMIL <img> shows no motion: {smil:?}"
    );
}

/// Reads the width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn frame_strip_seeks_each_frame() {
    let Some(chromium) = chromium() else { return };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("strip.png");
    let frames = 8;
    let got = frame_strip(
        &chromium,
        &fixture("css_spin.svg"),
        SeekMode::WebAnimations,
        2.0,
        frames,
        &png,
    )
    .unwrap();
    // viewBox 200×120 → 240×144 per frame.
    assert_eq!(png_size(&png), (240 * frames as u32, 144));
    assert_eq!(got.len(), frames);
    for (i, probes) in got.iter().enumerate() {
        let th = 2.0 * PI * i as f64 / frames as f64;
        let want = [80.0 + 30.0 * th.cos(), 50.0 + 30.0 * th.sin()];
        assert!(
            dist(probes["crank"], want) < TOL_PX,
            "frame {i}: {probes:?}"
        );
    }

    let smil_png = dir.path().join("smil.png");
    let got = frame_strip(
        &chromium,
        &fixture("smil_legs.svg"),
        SeekMode::Smil,
        1.6,
        4,
        &smil_png,
    )
    .unwrap();
    assert_eq!(png_size(&smil_png), (4 * 240, 180));
    let ankles: Vec<[f64; 2]> = got.iter().map(|p| p["near-ankle"]).collect();
    let want = [[40.0, 80.0], [80.0, 70.0], [100.0, 60.0], [70.0, 70.0]];
    for (i, (a, w)) in ankles.iter().zip(want).enumerate() {
        assert!(dist(*a, w) < TOL_PX, "smil frame {i}: {a:?}, want {w:?}");
    }
}

#[test]
fn page_errors_are_reported() {
    let Some(chromium) = chromium() else { return };
    let check = |svg: &str, mode, needle: &str| match probe_positions(&chromium, svg, mode, &[0.0])
    {
        Err(BrowserError::Page(msg)) => {
            assert!(msg.contains(needle), "expected {needle:?} in {msg:?}")
        }
        other => panic!("expected a page error containing {needle:?}, got {other:?}"),
    };
    // In a batch the failing document is named.
    let css = fixture("css_spin.svg");
    let jobs = [
        ProbeJob {
            svg: &css,
            mode: SeekMode::WebAnimations,
            times_s: &[0.0],
        },
        ProbeJob {
            svg: r#"<svg xmlns="http://www.w3.org/2000/svg"><g></svg>"#,
            mode: SeekMode::Smil,
            times_s: &[0.0],
        },
    ];
    match browser::probe_batch(&chromium, &jobs) {
        Err(BrowserError::Page(msg)) => assert!(
            msg.contains("document 1: SVG is not well-formed XML"),
            "{msg}"
        ),
        other => panic!("expected a page error for document 1, got {other:?}"),
    }
    // The SMIL fixture has no CSS animation to seek.
    check(
        &fixture("smil_legs.svg"),
        SeekMode::WebAnimations,
        "no CSS animations",
    );
    check(
        r#"<svg xmlns="http://www.w3.org/2000/svg"><set attributeName="x" to="1"/><circle r="0" data-probe="a"/><circle r="0" data-probe="a"/></svg>"#,
        SeekMode::Smil,
        "duplicate data-probe \"a\"",
    );
}
