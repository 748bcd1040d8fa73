//! Judging written files in a real browser against the library, shared by
//! the test files that take rigbake's outputs through other tools first
//! (`tests/web_pipeline.rs`: inlined pages and svgo; `tests/inkscape.rs`:
//! files saved by Inkscape).

use rigbake::browser::{self, Probes, SeekMode};
use rigbake::clip::Clip;
use rigbake::{Baked, Route, measure};
use std::path::{Path, PathBuf};

/// Largest distance allowed between a browser probe and the library's
/// evaluation of the written file, px; also between the browser's largest
/// ankle error and the report's.
pub const TOL_PX: f64 = 0.05;

/// Whether this run is CI's (`CI=true`), where a missing tool fails.
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Prints `what` straight to stderr (the harness captures `eprintln!` of
/// passing tests).
pub fn note(what: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "note: {what}");
}

/// Headless Chromium (tests/browser.rs compares the engines), or a note
/// that `skipped` is skipped and `None`; under `CI=true` a missing
/// Chromium fails.
pub fn chromium(skipped: &str) -> Option<browser::Browser> {
    if let Some(path) = browser::find_chromium() {
        return Some(browser::Browser::chromium(path));
    }
    assert!(
        !in_ci(),
        "chromium not found, CI requires it (install the Debian package `chromium`)"
    );
    note(&format!(
        "chromium not found; skipping {skipped} (install the Debian package `chromium` or set RIGBAKE_CHROMIUM)"
    ));
    None
}

/// How a browser seeks a file of `route`.
pub fn seek_mode(route: Route) -> SeekMode {
    match route {
        Route::Css => SeekMode::WebAnimations,
        Route::Smil => SeekMode::Smil,
    }
}

pub fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// Leg `i`'s |ankle − target| in the browser's probes at `t` s: against
/// its ideal target where the clip has one (an `ik_chains` chain), else
/// against the written target probe.
pub fn leg_error_px(clip: &Clip, i: usize, t: f64, probes: &Probes) -> f64 {
    let leg = &clip.legs[i];
    let target = match &leg.ideal {
        Some(ideal) => {
            let p = ideal.world_at(t / clip.period_s);
            [p.x, p.y]
        }
        None => probes[&leg.target_probe],
    };
    dist(probes[&leg.ankle_probe], target)
}

/// The reported worst times of the legs `b`'s first clip plays: a
/// class-switched file's report also holds its other clips' legs, whose
/// worst times may lie past this clip's end (a one-shot clip then holds
/// its last frame, which the ideal does not).
pub fn own_worst_times(b: &Baked) -> Vec<f64> {
    let own = |name: &str| b.clip.legs.iter().any(|l| l.name == name);
    b.report
        .legs
        .iter()
        .filter(|l| own(&l.name))
        .map(|l| l.worst_t_s)
        .collect()
}

/// Every committed file of `out/`, sorted.
pub fn committed_outputs() -> Vec<PathBuf> {
    super::files_in("out", "svg")
}

/// The rig and route of `out/<rig>.svg` / `out/<rig>.smil.svg`.
pub fn rig_of(path: &Path) -> (String, Route) {
    let file = path.file_name().unwrap().to_str().unwrap();
    match file.strip_suffix(".smil.svg") {
        Some(stem) => (stem.to_string(), Route::Smil),
        None => (file.strip_suffix(".svg").unwrap().to_string(), Route::Css),
    }
}

/// The largest distance between a browser probe and `measure::probes_at`
/// of `clip` over all times (probes the browser lacks are skipped), and
/// where it occurred.
pub fn deviation(clip: &Clip, times: &[f64], got: &[Probes]) -> (f64, String) {
    let mut worst = (0.0_f64, String::new());
    for (t, probes) in times.iter().zip(got) {
        for (name, w) in measure::probes_at(clip, *t) {
            let Some(p) = probes.get(&name) else { continue };
            let d = dist(*p, [w.x, w.y]);
            if d > worst.0 {
                worst = (d, format!("{name} at t = {t:.4} s"));
            }
        }
    }
    worst
}

/// Browser samples of one file against the library: the same probes at
/// every time, each within [`TOL_PX`] of `measure::probes_at` of the
/// written clip, and per leg the browser's largest |ankle − target| within
/// [`TOL_PX`] of the report's `max_error_px` (with a bake `b`). Returns the
/// largest probe deviation.
pub fn agrees(label: &str, clip: &Clip, b: Option<&Baked>, times: &[f64], got: &[Probes]) -> f64 {
    assert_eq!(got.len(), times.len(), "{label}: one probe map per time");
    for (t, probes) in times.iter().zip(got) {
        let want = measure::probes_at(clip, *t);
        let want_names: Vec<&String> = want.keys().collect();
        let got_names: Vec<&String> = probes.keys().collect();
        assert_eq!(got_names, want_names, "{label}: probe names at t = {t}");
    }
    let worst = deviation(clip, times, got);
    let mut leg_max = vec![0.0_f64; clip.legs.len()];
    for (t, probes) in times.iter().zip(got) {
        for (i, m) in leg_max.iter_mut().enumerate() {
            *m = m.max(leg_error_px(clip, i, *t, probes));
        }
    }
    assert!(
        worst.0 <= TOL_PX,
        "{label}: browser and library disagree by {:.4} px ({})",
        worst.0,
        worst.1
    );
    if let Some(b) = b {
        for (leg, got) in clip.legs.iter().zip(&leg_max) {
            let reported = b
                .report
                .legs
                .iter()
                .find(|l| l.name == leg.name)
                .unwrap_or_else(|| panic!("{label}: no reported leg {}", leg.name))
                .max_error_px;
            assert!(
                (got - reported).abs() <= TOL_PX,
                "{label}: leg {} max error {got:.4} px in the browser, {reported:.4} px reported",
                leg.name
            );
        }
    }
    eprintln!("{label}: max probe deviation {:.1e} px", worst.0);
    worst.0
}
