//! Real-browser checks in headless Chromium and headless Firefox ESR (see
//! `rigbake::browser`): every check runs once per engine.
//!
//! The harness itself is checked against hand-written fixtures in
//! `tests/fixtures/browser/` whose probe paths are known in closed form:
//! a browser position must match the formula within [`TOL_PX`] at 200 times
//! per period.
//!
//! Then every rig in `rigs/` is baked in process on both routes, and every
//! committed `out/*.svg` is paired with a fresh bake of its rig; the browser
//! must agree with `measure::probes_at` within [`TOL_PX`] per time and per
//! probe, its max ankle–target distance must be within [`TOL_PX`] of the
//! report's, and the ankle must stay within the rig's tolerance (or
//! [`MAX_ANKLE_ERROR_PX`]). Mutation tests check that a broken bake and a
//! broken emit fail. All files also have to animate as `<img>`, and the
//! CSS route has to stand still under `prefers-reduced-motion: reduce`.
//!
//! An engine that is not installed is skipped with a notice, except under
//! CI (`CI=true`), where a missing browser is a failure. Point
//! `RIGBAKE_CHROMIUM` or `RIGBAKE_FIREFOX` at a binary to use a specific one.

mod common;

use common::agree::{TOL_PX, dist, leg_error_px};
use std::f64::consts::PI;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

use rigbake::bake::BakeOptions;
use rigbake::browser::{
    self, Browser, BrowserError, Engine, ProbeJob, Probes, SeekMode, frame_strip, img_frames,
    probe_positions,
};
use rigbake::clip::{Clip, Fit};
use rigbake::{Baked, Route, bake_rig, emit, measure, rig};

/// Samples per period for seek-and-read comparisons.
const SAMPLES: usize = 200;

/// The Debian package that provides each engine.
fn package(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => "chromium",
        Engine::Firefox => "firefox-esr",
    }
}

/// The environment variable that overrides where each engine is found.
fn override_var(engine: Engine) -> &'static str {
    match engine {
        Engine::Chromium => "RIGBAKE_CHROMIUM",
        Engine::Firefox => "RIGBAKE_FIREFOX",
    }
}

/// Held shared by every test's launches and exclusively by the tests whose
/// documents play on their own ([`each_engine_alone`]).
static LAUNCHES: RwLock<()> = RwLock::new(());

/// Runs `check` once per installed engine (Chromium, then Firefox) and
/// prints how long each took, beside other tests' launches. A missing
/// engine is skipped with a note (once per test binary), except under
/// `CI=true`, where it fails.
fn each_engine(check: impl Fn(&Browser)) {
    let _shared = LAUNCHES.read().unwrap_or_else(|e| e.into_inner());
    engines(check);
}

/// [`each_engine`] with no other test's browser running, for documents
/// that play on their own: Chromium has been seen, in a full run of this
/// binary on a 2-core machine with another test's browser beside it, to
/// overrun a launch's 60 s limit on such a page, which takes 4-9 s alone.
fn each_engine_alone(check: impl Fn(&Browser)) {
    let _alone = LAUNCHES.write().unwrap_or_else(|e| e.into_inner());
    engines(check);
}

fn engines(check: impl Fn(&Browser)) {
    for engine in Engine::ALL {
        let Some(browser) = Browser::find(engine) else {
            if std::env::var("CI").is_ok_and(|v| v == "true") {
                panic!(
                    "{engine} not found, CI requires it (install the Debian package `{}`)",
                    package(engine)
                );
            }
            static NOTICE: [std::sync::Once; 2] = [std::sync::Once::new(), std::sync::Once::new()];
            // Straight to stderr (not eprintln!, which the test harness
            // captures), once per engine and test binary.
            NOTICE[engine as usize].call_once(|| {
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "note: {engine} not found; skipping its browser tests \
                     (install the Debian package `{}` or set {})",
                    package(engine),
                    override_var(engine)
                );
            });
            continue;
        };
        eprintln!("[{engine}] {}", browser.path.display());
        let start = std::time::Instant::now();
        check(&browser);
        eprintln!("[{engine}] done in {:.1} s", start.elapsed().as_secs_f64());
    }
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
    each_engine(|browser| {
        let period_s = 2.0;
        let times = period_times(period_s, SAMPLES);
        let got = probe_positions(
            browser,
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
    });
}

#[test]
fn smil_route_seek_matches_analytic_paths() {
    each_engine(|browser| {
        let period_s = 1.6;
        let times = period_times(period_s, SAMPLES);
        let got =
            probe_positions(browser, &fixture("smil_legs.svg"), SeekMode::Smil, &times).unwrap();
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
    });
}

/// Pins both engines' placement of `transform-origin` with
/// `transform-box: view-box` under a viewBox whose origin is not 0,0
/// (`-50 -50 200 100`): lengths are measured from the user-space origin
/// (0,0), not from the viewBox corner, and percentages are of the viewBox
/// width/height from that same origin, so `50% 50%` is (100, 50), not the
/// viewBox centre (50, 0). An unset `transform-box` behaves as `view-box`.
/// The origin is in the element's own user space, so a parent's static
/// transform moves it, and a nested `<svg>` viewport is its own view box.
#[test]
fn transform_origin_under_a_shifted_view_box() {
    each_engine(|browser| {
        let got = probe_positions(
            browser,
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
    });
}

/// Movement between two samples of a free-running document that shows it
/// plays, px.
const MOVES_PX: f64 = 0.05;

/// Largest distance between consecutive samples of any probe, px.
fn moved(samples: &[browser::TimedProbes]) -> f64 {
    samples
        .windows(2)
        .flat_map(|w| {
            w[0].probes
                .iter()
                .map(move |(name, p)| dist(*p, w[1].probes[name]))
        })
        .fold(0.0, f64::max)
}

/// The two hand-written fixtures (a css spin, smil legs) and every looping
/// bake of the examples: documents that must animate when left running.
fn looping_docs() -> Vec<(Route, String, String)> {
    let mut docs = vec![
        (
            Route::Css,
            "fixture css_spin.svg".to_string(),
            fixture("css_spin.svg"),
        ),
        (
            Route::Smil,
            "fixture smil_legs.svg".to_string(),
            fixture("smil_legs.svg"),
        ),
    ];
    docs.extend(looping_bakes());
    docs
}

/// How far short of 600 ms [`spaced_samples`] takes two 300 ms sleeps to
/// be: the page clock's grain, not a shorter wait. `performance.now()` is
/// coarsened (to 0.1 ms in Chromium, 1 ms in Firefox) and its differences
/// round: two sleeps of 300 ms have read as 599.9999999999998 ms and as
/// 599.8999999994414 ms.
const SPACING_GRAIN_MS: f64 = 1.0;

/// Three samples of every document playing on its own, 300 ms of the
/// page's clock apart ([`browser::probe_free_running`]), asked again (at
/// most three launches in all) while some document's samples are not, or
/// while the launch times out (see [`each_engine_alone`]): samples closer
/// together say nothing of the documents and would let a frozen document
/// pass for one that honours reduced motion. Any other error fails at once.
fn spaced_samples(
    browser: &Browser,
    svgs: &[&str],
    reduced_motion: bool,
) -> Vec<Vec<browser::TimedProbes>> {
    let span = |s: &[browser::TimedProbes]| s[2].t_ms - s[0].t_ms;
    let spaced = |s: &[browser::TimedProbes]| span(s) >= 600.0 - SPACING_GRAIN_MS;
    let mut tries = Vec::new();
    for _ in 0..3 {
        match browser::probe_free_running(browser, svgs, 300, 3, reduced_motion) {
            Ok(samples) if samples.iter().all(|s| spaced(s)) => return samples,
            Ok(samples) => {
                let (k, short) = samples
                    .iter()
                    .enumerate()
                    .min_by(|a, b| span(a.1).total_cmp(&span(b.1)))
                    .expect("one list per document");
                tries.push(format!(
                    "document {k} sampled at {:?} ms",
                    short.iter().map(|p| p.t_ms).collect::<Vec<f64>>()
                ));
            }
            Err(e @ BrowserError::Timeout { .. }) => tries.push(e.to_string()),
            Err(e) => panic!("{e}"),
        }
    }
    panic!(
        "three launches gave no samples 300 ms apart (reduced motion {reduced_motion}): {}",
        tries.join("; ")
    );
}

/// A free-running document changes with time; under
/// `prefers-reduced-motion: reduce` the CSS route stops (the fixture's media
/// query and every baked CSS file), while SMIL ignores the preference (why
/// rotations prefer CSS).
/// Most a frozen document's probes may read apart between samples, px.
const FROZEN_PX: f64 = 1e-3;

#[test]
fn reduced_motion_freezes_the_css_route_but_not_smil() {
    each_engine_alone(|browser| {
        let docs = looping_docs();
        let svgs: Vec<&str> = docs.iter().map(|d| d.2.as_str()).collect();

        let playing = spaced_samples(browser, &svgs, false);
        let reduced = spaced_samples(browser, &svgs, true);
        for (((route, label, _), playing), reduced) in docs.iter().zip(&playing).zip(&reduced) {
            // A frozen document reads the same bits at every sample; the
            // slowest example (jump's idle sway, 2.4 s) moves its probes
            // by under 1 px in 300 ms near its turning points, so any
            // clear movement counts.
            assert!(
                moved(playing) > MOVES_PX,
                "{label}: does not move on its own: {playing:?}"
            );
            match route {
                // frozen: no visible movement. (Chromium reads a paused
                // `offset-path` group with a negative delay up to 2.2e-4 px
                // apart between samples, on tests/fixtures/browser/
                // path_targets.json's far target; every other probe reads
                // the same bits.)
                Route::Css => assert!(
                    moved(reduced) <= FROZEN_PX,
                    "{label}: moves under reduced motion: {reduced:?}"
                ),
                // Pinned for the hand-written fixture only: baked SMIL files may
                // one day find a way to honour the preference.
                Route::Smil if label.starts_with("fixture") => assert!(
                    moved(reduced) > MOVES_PX,
                    "{label}: SMIL stopped under reduced motion (Chromium changed?): {reduced:?}"
                ),
                Route::Smil => {}
            }
        }
    });
}

/// As `<img src>` every file still animates, and reduced motion freezes the
/// CSS route there too (in Firefox: the CSS route only, see the test).
#[test]
fn img_embedding_animates_and_honours_reduced_motion() {
    each_engine_alone(|browser| {
        let mut docs = looping_docs();
        if browser.engine == Engine::Firefox {
            // Firefox's canvas copy of an SVG image does not follow SMIL
            // (the <img> on the page does; see rigbake::browser), so only
            // CSS motion can be read back there.
            docs.retain(|d| d.0 == Route::Css);
        }
        let svgs: Vec<&str> = docs.iter().map(|d| d.2.as_str()).collect();

        let playing = img_frames(browser, &svgs, 100, 20, false).unwrap();
        let css: Vec<&str> = docs
            .iter()
            .filter(|d| d.0 == Route::Css)
            .map(|d| d.2.as_str())
            .collect();
        let reduced = img_frames(browser, &css, 100, 20, true).unwrap();

        for ((_, label, _), frames) in docs.iter().zip(&playing) {
            let changed = frames.iter().map(|f| f.changed_px).max().unwrap();
            assert!(changed > 50, "{label}: <img> shows no motion: {frames:?}");
        }
        let css_labels = docs.iter().filter(|d| d.0 == Route::Css).map(|d| &d.1);
        for (label, frames) in css_labels.zip(&reduced) {
            assert!(
                frames.iter().all(|f| f.changed_px == 0),
                "{label}: <img> moves under reduced motion: {frames:?}"
            );
        }
    });
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
    each_engine(|browser| {
        let dir = tempfile::tempdir().unwrap();
        let png = dir.path().join("strip.png");
        let frames = 8;
        let got = frame_strip(
            browser,
            &fixture("css_spin.svg"),
            SeekMode::WebAnimations,
            2.0,
            frames,
            &png,
        )
        .unwrap();
        // viewBox 200×120 → 240×144 per frame, centred in the least
        // frame height (160 px)
        assert_eq!(png_size(&png), (240 * frames as u32, 160));
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
            browser,
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
    });
}

#[test]
fn page_errors_are_reported() {
    each_engine(|browser| {
        let check =
            |svg: &str, mode, needle: &str| match probe_positions(browser, svg, mode, &[0.0]) {
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
        match browser::probe_batch(browser, &jobs) {
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
    });
}

// ---------------------------------------------------------------------------
// Baked files: every example rig, both routes, and the committed `out/`.

/// Fallback bound on the browser's ankle–target distance, px, for rigs
/// without `tolerance_px` (the README's quick start: `rigbake check --max-error 4`).
const MAX_ANKLE_ERROR_PX: f64 = 4.0;

/// Uniform seek times per period for baked files (the report's worst times
/// are added to these).
const RIG_SAMPLES: usize = 400;

/// One in-process bake of an example rig.
struct ExampleBake {
    /// `rigs/<file> (<route>)`, for messages.
    label: String,
    route: Route,
    baked: Baked,
}

fn rig_paths() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no rigs in {}", dir.display());
    paths
}

/// Whether the rig file at `path` is a cycling rig (`crank` + `legs`),
/// which loads as the bone tree it lowers into.
fn is_cycling(path: &Path) -> bool {
    let text = std::fs::read_to_string(path).unwrap();
    !rig::parse(&text).unwrap().legs.is_empty()
}

fn load_rig(path: &Path) -> rig::Rig {
    let text = std::fs::read_to_string(path).unwrap();
    rig::load(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Bake options as `rigbake bake` chooses them without flags.
fn cli_options(rig: &rig::Rig, route: Route) -> BakeOptions {
    BakeOptions::resolve(rig, route, None, None, None)
}

/// The example bakes that loop, as (route, label, svg). A one-shot clip may
/// have finished and be holding its last frame by the time a loaded machine
/// samples a free-running document, so only looping bakes must be seen moving.
fn looping_bakes() -> Vec<(Route, String, String)> {
    example_bakes()
        .into_iter()
        .filter(|b| {
            b.baked
                .clip
                .figure
                .as_ref()
                .is_none_or(|f| f.play == rigbake::clip::Play::Loop)
        })
        .map(|b| (b.route, b.label, b.baked.svg))
        .collect()
}

/// Every rig in `rigs/`, baked in process on both routes.
fn example_bakes() -> Vec<ExampleBake> {
    let mut out = Vec::new();
    for path in rig_paths() {
        let rig = load_rig(&path);
        for route in [Route::Css, Route::Smil] {
            out.push(ExampleBake {
                label: format!(
                    "rigs/{} ({})",
                    path.file_name().unwrap().to_string_lossy(),
                    route.as_str()
                ),
                route,
                baked: bake_rig(&rig, &cli_options(&rig, route)),
            });
        }
        // Cycling rigs also as fitted at a tolerance (cubic-bezier segments
        // on non-uniform key times on the css route), so the browser
        // confirms what the fitter's figures claim.
        if is_cycling(&path) {
            for route in [Route::Css, Route::Smil] {
                out.push(ExampleBake {
                    label: format!(
                        "rigs/{} ({}, --tolerance 0.25)",
                        path.file_name().unwrap().to_string_lossy(),
                        route.as_str()
                    ),
                    route,
                    baked: bake_rig(
                        &rig,
                        &BakeOptions::resolve(&rig, route, None, Some(0.25), None),
                    ),
                });
            }
        }
        // Bone trees keyed by the options too (uniform linear keys, one
        // budget for a tolerance), so the browser confirms those as well.
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name == "robot-arm.json" || name == "walker.json" {
            for route in [Route::Css, Route::Smil] {
                for (flag, keys, tol) in [
                    ("--keys 16", Some(16), None),
                    ("--tolerance 0.1", None, Some(0.1)),
                ] {
                    out.push(ExampleBake {
                        label: format!("rigs/{name} ({}, {flag})", route.as_str()),
                        route,
                        baked: bake_rig(&rig, &BakeOptions::resolve(&rig, route, keys, tol, None)),
                    });
                }
            }
            // `--fit cubic`: every channel cubic (the css default, as in
            // `out/`, takes the shorter of cubic and linear per channel)
            let opts = BakeOptions::resolve(&rig, Route::Css, None, None, Some(Fit::Cubic));
            assert!(!opts.shortest_shape);
            out.push(ExampleBake {
                label: format!("rigs/{name} (css, --fit cubic)"),
                route: Route::Css,
                baked: bake_rig(&rig, &opts),
            });
        }
        // Under a tolerance tighter than 0.02 px the moving coordinates are
        // written to 0.001 px: every rig kind (legs on a crank, chains,
        // springs, IK targets on paths, squash) so baked, on both routes.
        if [
            "seed-nested.json",
            "cyclist.json",
            "ponytail.json",
            "path-foot.json",
            "jump.json",
        ]
        .contains(&name.as_str())
        {
            for route in [Route::Css, Route::Smil] {
                out.push(ExampleBake {
                    label: format!("rigs/{name} ({}, --tolerance 0.01)", route.as_str()),
                    route,
                    baked: bake_rig(
                        &rig,
                        &BakeOptions::resolve(&rig, route, None, Some(0.01), None),
                    ),
                });
            }
        }
        // Every clip after the first, alone (`--clip NAME`): how the smil
        // route gets a clip other than the first.
        let text = std::fs::read_to_string(&path).unwrap();
        let file = rig::parse(&text).unwrap();
        for c in file.clips.iter().skip(1) {
            let one = rig::load_clip(&text, &c.name).unwrap();
            for route in [Route::Css, Route::Smil] {
                out.push(ExampleBake {
                    label: format!(
                        "rigs/{} --clip {} ({})",
                        path.file_name().unwrap().to_string_lossy(),
                        c.name,
                        route.as_str()
                    ),
                    route,
                    baked: bake_rig(&one, &cli_options(&one, route)),
                });
            }
        }
    }
    // Bone trees with what no rig in `rigs/` uses yet: `ik` targets on
    // paths (their target probes ride on the written path: `offset-path`,
    // `<animateMotion>`), root bones carried by their own `move`, and a
    // root's `depth_offset` (seed-nested as `rigbake lower` writes it, the
    // far side's root bobbing: on css its translate outside the lift
    // groups, the far pedal's target probe riding its crank inside it), and
    // a far leg whose phase lies between the reuse search's 720 steps
    // (193.9° behind: its keys replayed at a delay of −0.369111 s), and
    // seed-smil as `rigbake lower` writes it (its legs `"smil": "morph"`:
    // on smil one path morphing the joints, as the cycling bake draws a
    // leg; also at `--keys 8`, the design source's bake), and a morphed
    // limb whose parent turns under a squashed root (its path inside the
    // parent's turning group and the squash).
    for name in [
        "path_targets.json",
        "moving_roots.json",
        "depth_offset.json",
        "off_grid_reuse.json",
        "seed_smil_lowered.json",
        "morph_moving_parent.json",
    ] {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/browser")
            .join(name);
        let rig = load_rig(&path);
        for route in [Route::Css, Route::Smil] {
            out.push(ExampleBake {
                label: format!("tests/fixtures/browser/{name} ({})", route.as_str()),
                route,
                baked: bake_rig(&rig, &cli_options(&rig, route)),
            });
        }
        if name == "seed_smil_lowered.json" {
            out.push(ExampleBake {
                label: format!("tests/fixtures/browser/{name} (smil, --keys 8)"),
                route: Route::Smil,
                baked: bake_rig(
                    &rig,
                    &BakeOptions::resolve(&rig, Route::Smil, Some(8), None, None),
                ),
            });
        }
    }
    out
}

/// The committed `out/*.svg` files with the route their name promises
/// (`<name>.svg` css, `<name>.smil.svg` smil), sorted by name.
fn committed_outputs() -> Vec<(PathBuf, String, Route)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("out");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<(PathBuf, String, Route)> = entries
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let file = p.file_name()?.to_str()?.to_string();
            let (stem, route) = match file.strip_suffix(".smil.svg") {
                Some(stem) => (stem.to_string(), Route::Smil),
                None => (file.strip_suffix(".svg")?.to_string(), Route::Css),
            };
            Some((p, stem, route))
        })
        .collect();
    out.sort();
    out
}

/// Seek times for a baked clip: [`RIG_SAMPLES`] per period plus the time
/// of each leg's reported maximum, so the browser's maximum is comparable,
/// each rounded to a whole millisecond: Firefox's SMIL clock shows no other
/// times (`setCurrentTime(t)` lands on t rounded to 1 ms), and the same
/// times serve both engines.
fn clip_times(clip: &Clip, legs: &[(String, f64, f64)]) -> Vec<f64> {
    let mut times = period_times(clip.period_s, RIG_SAMPLES);
    // (the worst times of this clip's own legs, as `own_worst_times`)
    let own = |name: &str| clip.legs.iter().any(|l| l.name == name);
    times.extend(legs.iter().filter(|l| own(&l.0)).map(|l| l.2));
    times
        .iter()
        .map(|t| (t * 1000.0).round() / 1000.0)
        .collect()
}

/// Browser and library agree within this for a bake under a tolerance
/// tighter than [`rigbake::valid::TIGHT_TOLERANCE_PX`], whose moving
/// coordinates are written to 0.001 px (the largest seen: 0.00096 px, a
/// foot on a drawn path in Firefox); a coordinate written to 0.01 px
/// instead would put its probe up to 0.007 px off.
const FINE_AGREE_PX: f64 = 0.002;

/// How close browser and library must agree for a bake to `bound_px`.
fn agree_px(bound_px: f64) -> f64 {
    if bound_px < rigbake::valid::TIGHT_TOLERANCE_PX {
        FINE_AGREE_PX
    } else {
        TOL_PX
    }
}

/// Per leg: name, reported max ankle error (px), time of that max (s).
fn report_legs(report: &rigbake::report::Report) -> Vec<(String, f64, f64)> {
    report
        .legs
        .iter()
        .map(|l| (l.name.clone(), l.max_error_px, l.worst_t_s))
        .collect()
}

/// Checks browser samples of a baked file against the library's evaluation
/// of `clip`:
/// 1. the same probes, each within `agree_px` ([`TOL_PX`], or
///    [`FINE_AGREE_PX`] for a bake under a tight tolerance) of
///    `measure::probes_at` at every time;
/// 2. per leg, the browser's max |ankle − target| within [`TOL_PX`] of the
///    reported max (`legs`);
/// 3. per leg, the browser's max within `bound_px` (+ [`TOL_PX`]).
///
/// Returns a one-line summary, or every problem found.
fn check_against_measure(
    clip: &Clip,
    legs: &[(String, f64, f64)],
    (bound_px, agree_px): (f64, f64),
    times: &[f64],
    got: &[Probes],
) -> Result<String, String> {
    let mut problems = Vec::new();
    let mut worst = (0.0_f64, String::new());
    let mut browser_max = vec![0.0_f64; clip.legs.len()];
    for (t, probes) in times.iter().zip(got) {
        let want = measure::probes_at(clip, *t);
        let want_names: Vec<&String> = want.keys().collect();
        let got_names: Vec<&String> = probes.keys().collect();
        if want_names != got_names {
            problems.push(format!(
                "probes differ: browser {got_names:?}, library {want_names:?}"
            ));
            break;
        }
        for (name, w) in &want {
            let d = dist(probes[name], [w.x, w.y]);
            if d > worst.0 {
                worst = (d, format!("{name} at t = {t:.4} s"));
            }
        }
        for (i, m) in browser_max.iter_mut().enumerate() {
            *m = m.max(leg_error_px(clip, i, *t, probes));
        }
    }
    if worst.0 > agree_px {
        problems.push(format!(
            "browser and library disagree by {:.4} px ({}), more than {agree_px} px",
            worst.0, worst.1
        ));
    }
    let mut summary = format!("max deviation {:.1e} px;", worst.0);
    for (i, leg) in clip.legs.iter().enumerate() {
        let (_, reported, _) = legs
            .iter()
            .find(|l| l.0 == leg.name)
            .unwrap_or_else(|| panic!("no reported max for leg {}", leg.name));
        let got = browser_max[i];
        summary += &format!(" {} {got:.3} px (reported {reported:.3})", leg.name);
        if (got - reported).abs() > TOL_PX {
            problems.push(format!(
                "leg {}: browser max ankle error {got:.4} px, reported {reported:.4} px",
                leg.name
            ));
        }
        if got > bound_px + TOL_PX {
            problems.push(format!(
                "leg {}: ankle leaves the pedal by {got:.3} px in the browser, bound {bound_px} px",
                leg.name
            ));
        }
    }
    if problems.is_empty() {
        Ok(summary)
    } else {
        Err(problems.join("; "))
    }
}

fn seek_mode(route: Route) -> SeekMode {
    match route {
        Route::Css => SeekMode::WebAnimations,
        Route::Smil => SeekMode::Smil,
    }
}

/// Every example rig on both routes, baked in process, and every committed
/// `out/*.svg`: the browser must agree with the library's own evaluation.
/// One browser launch for all of them.
#[test]
fn baked_files_agree_with_the_library_in_the_browser() {
    each_engine(|browser| {
        let bakes = example_bakes();

        // Committed files are compared with a fresh bake of the rig they name.
        let rigs: Vec<rig::Rig> = rig_paths().iter().map(|p| load_rig(p)).collect();
        let committed: Vec<(String, String, Baked)> = committed_outputs()
            .into_iter()
            .map(|(path, stem, route)| {
                let rig = rigs.iter().find(|r| r.name == stem).unwrap_or_else(|| {
                    panic!("{}: no rig in rigs/ is named {stem:?}", path.display())
                });
                let svg = std::fs::read_to_string(&path).unwrap();
                let label = format!("out/{}", path.file_name().unwrap().to_string_lossy());
                (label, svg, bake_rig(rig, &cli_options(rig, route)))
            })
            .collect();
        if committed.is_empty() {
            eprintln!("note: no out/*.svg files to check");
        }

        // (label, svg text, route, clip, reported legs, bound)
        let mut cases: Vec<(&str, &str, &Baked)> = Vec::new();
        for b in &bakes {
            cases.push((&b.label, &b.baked.svg, &b.baked));
        }
        for (label, svg, baked) in &committed {
            cases.push((label, svg, baked));
        }
        let times: Vec<Vec<f64>> = cases
            .iter()
            .map(|(_, _, b)| clip_times(&b.clip, &report_legs(&b.report)))
            .collect();
        let jobs: Vec<ProbeJob> = cases
            .iter()
            .zip(&times)
            .map(|((_, svg, b), times_s)| ProbeJob {
                svg,
                mode: seek_mode(b.clip.route),
                times_s,
            })
            .collect();
        let results = browser::probe_batch(browser, &jobs).unwrap();

        let mut failures = Vec::new();
        for (((label, _, b), times), got) in cases.iter().zip(&times).zip(&results) {
            let bound = b.report.tolerance_px.unwrap_or(MAX_ANKLE_ERROR_PX);
            let within = (bound, agree_px(bound));
            match check_against_measure(&b.clip, &report_legs(&b.report), within, times, got) {
                Ok(summary) => eprintln!("{label}: {summary}"),
                Err(problems) if label.starts_with("out/") => failures.push(format!(
                    "{label} (compared with a fresh bake of its rig; regenerate out/ if stale): {problems}"
                )),
                Err(problems) => failures.push(format!("{label}: {problems}")),
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    });
}

/// The `class` attribute of the root `<svg>` start tag.
fn root_class(svg: &str) -> Option<&str> {
    let start = svg.find("<svg")?;
    let tag = &svg[start..start + svg[start..].find('>')?];
    let value = &tag[tag.find(" class=\"")? + " class=\"".len()..];
    Some(&value[..value.find('"')?])
}

/// Clip switching as a page does it: the multi-clip CSS file starts in its
/// first clip (every probe as the library evaluates the file); setting the
/// root class that names another clip makes every probe (bone tips, target
/// markers, chain particles, rims, the ground) follow that clip as the
/// library evaluates it (the same file's clip, `Baked::clips`, whose
/// report the file carries), at every sampled time, within [`TOL_PX`].
#[test]
fn switching_the_clip_class_shows_the_other_clip() {
    let mut cases = Vec::new();
    for path in rig_paths() {
        let text = std::fs::read_to_string(&path).unwrap();
        let file = rig::parse(&text).unwrap();
        let Some(first) = file.clips.first() else {
            continue;
        };
        let rig = load_rig(&path);
        let all = bake_rig(&rig, &cli_options(&rig, Route::Css));
        for (j, other) in file.clips.iter().enumerate().skip(1) {
            let class = root_class(&all.svg)
                .and_then(|c| c.strip_suffix(first.name.as_str()))
                .map(|prefix| format!("{prefix}{}", other.name))
                .unwrap_or_else(|| {
                    panic!(
                        "{}: no root class naming clip {}",
                        path.display(),
                        first.name
                    )
                });
            let written = all.clips[j].figure.as_ref().map(|f| f.clip.as_str());
            assert_eq!(written, Some(other.name.as_str()));
            cases.push((path.clone(), all.clone(), j, class));
        }
    }
    assert!(!cases.is_empty(), "no example rig has a second clip");
    each_engine(|browser| {
        for (path, all, j, class) in &cases {
            let other = &all.clips[*j];
            let period_s = all.clip.period_s.min(other.period_s);
            let times: Vec<f64> = period_times(period_s, 24)
                .iter()
                .map(|t| (t * 1000.0).round() / 1000.0)
                .collect();
            let (before, after) =
                browser::probe_class_switch(browser, &all.svg, class, &times).unwrap();
            for (clip, got, when) in [(&all.clip, &before, "before"), (other, &after, "after")] {
                let mut worst = (0.0_f64, String::new());
                for (t, probes) in times.iter().zip(got) {
                    // every probe: bone tips, target markers, chain
                    // particles, rims, the ground (tests/switched.rs
                    // holds the library's clip to the file's structure)
                    for (name, want) in measure::probes_at(clip, *t) {
                        let p = probes.get(&name).unwrap_or_else(|| {
                            panic!("{}: probe {name} missing {when} the switch", path.display())
                        });
                        let d = dist(*p, [want.x, want.y]);
                        if d > worst.0 {
                            worst = (d, format!("{name} at t = {t} s"));
                        }
                    }
                }
                eprintln!(
                    "{} ({class}) {when}: max deviation {:.1e} px ({})",
                    path.display(),
                    worst.0,
                    worst.1
                );
                assert!(
                    worst.0 <= TOL_PX,
                    "{} {when} switching to {class}: browser and library disagree by {} px ({})",
                    path.display(),
                    worst.0,
                    worst.1
                );
            }
        }
    });
}

/// The seed's "knee right, ankle wrong" bug: shin keyframes that do not
/// subtract the thigh's rotation, i.e. `shin_local + thigh_local` written
/// where `shin_local` belongs. Adds the thigh track's value (linearly
/// interpolated at each shin key time) to every shin key, in degrees.
fn shin_without_thigh_delta(clip: &mut Clip) {
    let mut pairs: Vec<(usize, usize)> = clip
        .legs
        .iter()
        .filter_map(|l| match l.tracks[..] {
            [thigh, shin] => Some((thigh, shin)),
            _ => None,
        })
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    assert!(!pairs.is_empty(), "no (thigh, shin) tracks to break");
    for (thigh, shin) in pairs {
        let thigh_keys = clip.tracks[thigh].keys.clone();
        let at = |t: f64| {
            let i = thigh_keys
                .windows(2)
                .position(|w| t <= w[1].t)
                .unwrap_or(thigh_keys.len() - 2);
            let (a, b) = (&thigh_keys[i], &thigh_keys[i + 1]);
            a.value + (b.value - a.value) * (t - a.t) / (b.t - a.t)
        };
        for key in &mut clip.tracks[shin].keys {
            key.value += at(key.t);
        }
    }
}

/// Per leg of `clip`, as the library evaluates the written file: name,
/// largest |ankle − ideal target| over 2,048 times a period, its time.
fn library_legs(clip: &Clip) -> Vec<(String, f64, f64)> {
    let times: Vec<f64> = (0..2048)
        .map(|k| k as f64 / 2048.0 * clip.period_s)
        .collect();
    let at: Vec<Probes> = times
        .iter()
        .map(|&t| {
            measure::probes_at(clip, t)
                .into_iter()
                .map(|(name, p)| (name, [p.x, p.y]))
                .collect()
        })
        .collect();
    (0..clip.legs.len())
        .map(|i| {
            let (worst, t) = times
                .iter()
                .zip(&at)
                .map(|(&t, probes)| (leg_error_px(clip, i, t, probes), t))
                .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a });
            (clip.legs[i].name.clone(), worst, t)
        })
        .collect()
}

/// Removes every negative time (` -0.75s`, `:-0.75s`) from the SVG text:
/// an emitter that forgot the far leg's phase delay.
/// `svg` with every number of its path data (`d="…"`) written past two
/// places rounded to two.
fn paths_to_hundredths(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(i) = rest.find(" d=\"") {
        let (head, tail) = rest.split_at(i + 4);
        out.push_str(head);
        let end = tail.find('"').unwrap();
        let d = &tail[..end];
        let mut k = 0;
        while k < d.len() {
            let b = d.as_bytes();
            let starts = b[k].is_ascii_digit() || b[k] == b'.' || b[k] == b'-';
            if !starts {
                out.push(b[k] as char);
                k += 1;
                continue;
            }
            let mut j = k + usize::from(b[k] == b'-');
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let mut places = 0;
            if j < b.len() && b[j] == b'.' {
                j += 1;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                    places += 1;
                }
            }
            let n = &d[k..j];
            if places > 2 {
                let v: f64 = n.parse().unwrap();
                // (a space keeps a number that lost its sign apart)
                out.push_str(&format!(" {:.2}", v));
            } else {
                out.push_str(n);
            }
            k = j;
        }
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}

fn without_negative_delays(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut rest = svg;
    while let Some(i) = rest.find('-') {
        let after = &rest[i + 1..];
        let digits = after
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(after.len());
        let is_delay =
            digits > 0 && after[digits..].starts_with('s') && rest[..i].ends_with([' ', ':']);
        out.push_str(&rest[..i]);
        if is_delay {
            rest = &after[digits + 1..];
        } else {
            out.push('-');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// Mutation tests: the suite must fail a broken bake and a broken emit.
#[test]
fn broken_bakes_fail_the_browser_check() {
    each_engine(|browser| {
        // the first cycling rig (bone-tree rigs have no legs to break)
        let path = &rig_paths()
            .into_iter()
            .find(|p| is_cycling(p))
            .expect("a cycling rig in rigs/");
        let rig = load_rig(path);
        let good = bake_rig(&rig, &cli_options(&rig, Route::Css));

        // Bake bug: the written clip itself is wrong; the browser sees the ankle
        // leave the pedal (and agrees with the library about it).
        let mut broken = good.clip.clone();
        shin_without_thigh_delta(&mut broken);
        let broken_svg = emit::emit(&broken);
        let broken_legs = library_legs(&broken);
        let broken_times = clip_times(&broken, &broken_legs);

        // Emit bug: the file loses its phase delays, so the browser no longer
        // shows what the library evaluates.
        let undelayed_svg = without_negative_delays(&good.svg);
        assert_ne!(
            undelayed_svg,
            good.svg,
            "{}: no negative delay to strip",
            path.display()
        );
        let good_legs = report_legs(&good.report);
        let good_times = clip_times(&good.clip, &good_legs);

        let results = browser::probe_batch(
            browser,
            &[
                ProbeJob {
                    svg: &broken_svg,
                    mode: SeekMode::WebAnimations,
                    times_s: &broken_times,
                },
                ProbeJob {
                    svg: &undelayed_svg,
                    mode: SeekMode::WebAnimations,
                    times_s: &good_times,
                },
            ],
        )
        .unwrap();

        let bound = good.report.tolerance_px.unwrap_or(MAX_ANKLE_ERROR_PX);
        let within = (bound, TOL_PX);
        let err = check_against_measure(&broken, &broken_legs, within, &broken_times, &results[0])
            .expect_err("a shin track that ignores the thigh passed the browser check");
        eprintln!("bake mutation caught: {err}");
        assert!(err.contains("ankle leaves the pedal"), "{err}");
        assert!(
            !err.contains("disagree"),
            "browser and library should agree: {err}"
        );

        let err = check_against_measure(&good.clip, &good_legs, within, &good_times, &results[1])
            .expect_err("a file without its phase delays passed the browser check");
        eprintln!("emit mutation caught: {err}");
        assert!(err.contains("browser and library disagree"), "{err}");

        // Emit bug under a tight tolerance: the file writes its paths'
        // points to 0.01 px where the bake holds them to 0.001.
        let fine = bake_rig(
            &rig,
            &BakeOptions::resolve(&rig, Route::Css, None, Some(0.01), None),
        );
        let coarse_svg = paths_to_hundredths(&fine.svg);
        assert_ne!(
            coarse_svg,
            fine.svg,
            "{}: no path point written past hundredths",
            path.display()
        );
        let fine_legs = report_legs(&fine.report);
        let fine_times = clip_times(&fine.clip, &fine_legs);
        let job = ProbeJob {
            svg: &coarse_svg,
            mode: SeekMode::WebAnimations,
            times_s: &fine_times,
        };
        let got = browser::probe_batch(browser, &[job]).unwrap();
        let within = (0.01, agree_px(0.01));
        let err = check_against_measure(&fine.clip, &fine_legs, within, &fine_times, &got[0])
            .expect_err("paths written to 0.01 px passed the browser check of a 0.01 px bake");
        eprintln!("fine emit mutation caught: {err}");
        assert!(err.contains("browser and library disagree"), "{err}");
    });
}
