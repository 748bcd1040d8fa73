//! The default (error-bounded, 0.25 px) bake, timed three ways:
//!
//! - whole process: `rigbake bake RIG --route R` for every rig in `rigs/`
//!   and each route (`defaults/process <rig> <route>`), one rig per call,
//!   the file written into a fresh directory;
//! - in process: [`rigbake::bake_rig`] (fit, emit, independent measure) on
//!   every rig in `rigs/` per route (`defaults/bake_rig <rig> <route>`);
//! - shared geometry: a crank with 4, 8 or 32 legs of one geometry at evenly
//!   spread phases (`defaults/shared legs N`): the first leg is fitted and
//!   measured, the others replay its keys with a delay, so the time should
//!   grow linearly with N, not with N².
//! - a crowd of one shape: a bone tree of N one-bone chains of one length
//!   (`defaults/crowd still N`: each at its own constant angle;
//!   `defaults/crowd alike N`: each swinging as the others, from its own
//!   angle), N² / 2 pairs for the key reuse to judge, which should cost
//!   about linearly in N too.
//! - springs on a chain: two springs on a chain of N three-pixel bones
//!   swinging out of step (`defaults/spring chain N`), where no key count
//!   keeps a spring's subtree within its budget, so every count is bounded
//!   from below and those the choice needs are measured in full.
//!
//! Run: `cargo bench --bench defaults` (release build; quicker: append
//! `-- --warm-up-time 1 --measurement-time 3`; one group: append its name,
//! e.g. `-- shared`, or one rig: `-- "bake_rig stickman"`).

use criterion::{Criterion, criterion_group, criterion_main};
use rigbake::bake::BakeOptions;
use rigbake::{Route, bake_rig, rig};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn example_rigs() -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("rigs"))
        .expect("rigs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
}

/// A cycling rig with `n` legs of the seed's geometry, phases k·360°/n.
pub fn shared_legs_rig(n: usize) -> String {
    let legs: Vec<String> = (0..n)
        .map(|k| {
            format!(
                r#"{{ "name": "l{k}", "hip": [352, 255], "thigh": 128, "shin": 112,
                     "knee": "forward", "phase_deg": {} }}"#,
                360.0 * k as f64 / n as f64
            )
        })
        .collect();
    format!(
        r#"{{ "name": "shared-{n}", "view_box": [0, 0, 800, 600], "period_s": 1.2,
             "crank": {{ "center": [420, 420], "radius": 50, "direction": "cw" }},
             "legs": [{}] }}"#,
        legs.join(",")
    )
}

/// A bone tree of `n` one-bone chains of one length under a static root:
/// still (each at its own constant angle) or swinging alike (one sine,
/// each from its own angle).
pub fn crowd_rig(n: usize, still: bool) -> String {
    let bones: Vec<String> = (0..n)
        .map(|i| {
            let angle = if still {
                format!(r#"{{ "const_deg": {i} }}"#)
            } else {
                format!(r#"{{ "sine": {{ "amp_deg": 20, "harmonic": 1, "offset_deg": {i} }} }}"#)
            };
            format!(
                r#"{{ "name": "b{i}", "parent": "root", "at": "origin", "length": 10,
                     "angle": {angle} }}"#
            )
        })
        .collect();
    format!(
        r#"{{ "name": "crowd-{n}", "view_box": [0, 0, 800, 600], "period_s": 1,
             "bones": [{{ "name": "root", "at": [400, 300], "length": 0 }}, {}] }}"#,
        bones.join(",")
    )
}

/// Two springs (a third and two thirds down) on a chain of `n` bones of
/// 3 px, each swinging 6° out of step with its parent.
pub fn spring_chain_rig(n: usize) -> String {
    let bones: Vec<String> = (0..n)
        .map(|i| {
            let joint = if i == 0 {
                r#""at": [200, 200]"#.to_string()
            } else {
                format!(r#""parent": "b{}", "at": "tip""#, i - 1)
            };
            format!(
                r#"{{ "name": "b{i}", {joint}, "length": 3,
                     "angle": {{ "sine": {{ "amp_deg": 6, "harmonic": 1, "phase_deg": {} }} }} }}"#,
                i * 11
            )
        })
        .collect();
    format!(
        r#"{{ "name": "springs-{n}", "view_box": [0, 0, 400, 400], "period_s": 1,
             "bones": [{}],
             "springs": [{{ "bone": "b{}", "stiffness": 200, "damping": 18 }},
                         {{ "bone": "b{}", "stiffness": 230, "damping": 19 }}] }}"#,
        bones.join(","),
        n / 3,
        2 * n / 3
    )
}

fn process(c: &mut Criterion) {
    let mut g = c.benchmark_group("defaults");
    g.sample_size(20);
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut run = 0;
    for path in example_rigs() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        for route in ["css", "smil"] {
            g.bench_function(format!("process {stem} {route}"), |b| {
                b.iter(|| {
                    run += 1;
                    let out = dir.path().join(format!("out-{run}"));
                    let status = Command::new(env!("CARGO_BIN_EXE_rigbake"))
                        .arg("bake")
                        .arg(&path)
                        .args(["--route", route, "--quiet", "-o"])
                        .arg(&out)
                        .status()
                        .expect("run rigbake");
                    assert!(status.success(), "{stem} {route}: {status}");
                })
            });
        }
    }
    g.finish();
}

fn in_process(c: &mut Criterion) {
    let mut g = c.benchmark_group("defaults");
    // the slowest rigs take seconds per bake: criterion's fewest samples
    g.sample_size(10);
    for path in example_rigs() {
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let rig = rig::load(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for route in [Route::Css, Route::Smil] {
            let opts = BakeOptions::resolve(&rig, route, None, None, None);
            g.bench_function(format!("bake_rig {stem} {}", route.as_str()), |b| {
                b.iter(|| bake_rig(black_box(&rig), black_box(&opts)))
            });
        }
    }
    for n in [10, 20, 30] {
        let rig = rig::load(&spring_chain_rig(n)).unwrap();
        let opts = BakeOptions::resolve(&rig, Route::Css, None, None, None);
        g.bench_function(format!("spring chain {n}"), |b| {
            b.iter(|| bake_rig(black_box(&rig), black_box(&opts)))
        });
    }
    g.sample_size(20);
    for n in [4, 8, 32] {
        let rig = rig::load(&shared_legs_rig(n)).unwrap();
        let opts = BakeOptions::resolve(&rig, Route::Css, None, None, None);
        g.bench_function(format!("shared legs {n}"), |b| {
            b.iter(|| bake_rig(black_box(&rig), black_box(&opts)))
        });
    }
    for (what, still) in [("still", true), ("alike", false)] {
        for n in [32, 64, 128, 255] {
            let rig = rig::load(&crowd_rig(n, still)).unwrap();
            let opts = BakeOptions::resolve(&rig, Route::Css, None, None, None);
            g.bench_function(format!("crowd {what} {n}"), |b| {
                b.iter(|| bake_rig(black_box(&rig), black_box(&opts)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, in_process, process);
criterion_main!(benches);
