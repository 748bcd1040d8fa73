//! Golden files: `out/` must hold exactly what the current code bakes from
//! `rigs/*.json`, in both routes, byte for byte.
//!
//! Regenerate with:
//!
//! ```text
//! RIGBAKE_BLESS=1 cargo test --test golden
//! ```
//!
//! `out/` is what the test build bakes (the browser tests compare it with
//! that build's own bakes). A release `rigbake bake` can write other bytes
//! where a fit is decided by a hair (the last bit of some floating-point
//! results is the optimiser's; see docs/how-it-works.md, "Development and
//! benchmarks"), so it does not regenerate `out/`.
//!
//! Blessing also deletes SVGs in `out/` that no rig produces any more.

use rigbake::bake::BakeOptions;
use rigbake::rig::{self, Rig};
use rigbake::{Route, bake_rig};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

const STALE: &str = "out/ is stale: run `RIGBAKE_BLESS=1 cargo test --test golden`";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn blessing() -> bool {
    std::env::var_os("RIGBAKE_BLESS").is_some_and(|v| v == "1")
}

/// The options `rigbake bake RIG --route <route>` uses when no other flag is
/// given: the same resolution the CLI does (rig `tolerance_px`, else `keys`).
fn default_options(rig: &Rig, route: Route) -> BakeOptions {
    BakeOptions::resolve(rig, route, None, None, None)
}

fn file_name(rig: &Rig, route: Route) -> String {
    match route {
        Route::Css => format!("{}.svg", rig.name),
        Route::Smil => format!("{}.smil.svg", rig.name),
    }
}

/// Every `rigs/*.json`, sorted by path.
fn rig_paths() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// Expected `out/` contents: file name → SVG text.
fn expected() -> BTreeMap<String, String> {
    let mut want = BTreeMap::new();
    let mut owner: BTreeMap<String, PathBuf> = BTreeMap::new();
    for path in rig_paths() {
        let text = fs::read_to_string(&path).unwrap();
        let rig = rig::load(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(other) = owner.insert(rig.name.clone(), path.clone()) {
            panic!(
                "{} and {} both name their rig {:?}: their outputs would collide in out/",
                other.display(),
                path.display(),
                rig.name
            );
        }
        for route in [Route::Css, Route::Smil] {
            let baked = bake_rig(&rig, &default_options(&rig, route));
            want.insert(file_name(&rig, route), baked.svg);
        }
    }
    assert!(!want.is_empty(), "no rigs in rigs/");
    want
}

/// SVG files currently in `out/` (empty if it does not exist).
fn present(out: &Path) -> Vec<String> {
    let Ok(rd) = fs::read_dir(out) else {
        return Vec::new();
    };
    let mut v: Vec<String> = rd
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    v.sort();
    v
}

#[test]
fn out_matches_a_fresh_bake_of_every_rig() {
    let out = root().join("out");
    let want = expected();
    if blessing() {
        fs::create_dir_all(&out).unwrap();
        for name in present(&out) {
            if !want.contains_key(&name) {
                fs::remove_file(out.join(&name)).unwrap();
            }
        }
        for (name, svg) in &want {
            let path = out.join(name);
            if fs::read(&path).ok().as_deref() != Some(svg.as_bytes()) {
                fs::write(&path, svg).unwrap();
            }
        }
        return;
    }
    let mut problems = Vec::new();
    for (name, svg) in &want {
        match fs::read(out.join(name)) {
            Err(_) => problems.push(format!("out/{name} is missing")),
            Ok(bytes) if bytes != svg.as_bytes() => {
                problems.push(format!("out/{name} differs from a fresh bake"))
            }
            Ok(_) => {}
        }
    }
    for name in present(&out) {
        if !want.contains_key(&name) {
            problems.push(format!("out/{name} comes from no rig in rigs/"));
        }
    }
    assert!(problems.is_empty(), "{STALE}\n  {}", problems.join("\n  "));
}

/// Every period written in `out/` — `data-period`, SMIL `dur`, and the
/// duration that opens each CSS `animation` shorthand — is whole
/// milliseconds, so SMIL clocks that count milliseconds play it exactly.
#[test]
fn every_period_in_out_is_whole_milliseconds() {
    let mut seen = 0;
    let mut bad = Vec::new();
    for (name, svg) in expected() {
        let mut periods: Vec<&str> = Vec::new();
        for (open, close) in [("data-period=\"", "\""), (" dur=\"", "s\"")] {
            periods.extend(
                svg.split(open)
                    .skip(1)
                    .filter_map(|r| r.split(close).next()),
            );
        }
        for rule in svg.split("animation:").skip(1) {
            let first = rule.split([' ', ';', '}']).nth(1).unwrap_or("");
            periods.extend(first.strip_suffix('s'));
        }
        for p in periods {
            seen += 1;
            let s: f64 = p.parse().unwrap_or(f64::NAN);
            if (s * 1000.0).round() / 1000.0 != s {
                bad.push(format!("{name}: {p}"));
            }
        }
    }
    assert!(seen > 100, "found only {seen} periods in out/");
    assert!(bad.is_empty(), "periods that are not whole ms: {bad:?}");
}
