//! Whole-process timing of one `rigbake bake` call on a batch of generated
//! cycling rigs ([`cycling_rigs`]): 1,000 rigs at the defaults (keys fitted
//! to 0.25 px), and 100 rigs with `--tolerance 0.25` (the same keying, asked
//! for: a rig that misses it is refused). Every rig of a call is baked in parallel (all cores), so the
//! figure depends on the core count; see docs/how-it-works.md.
//!
//! Run: `cargo bench --bench batch`. To bake the same rigs by hand (for
//! `/usr/bin/time -v`): `RIGBAKE_WRITE_RIGS=/tmp/rigs cargo bench --bench
//! batch` writes the 1,000 rigs and exits; `RIGBAKE_WRITE_BIG_RIGS=/tmp/big
//! cargo bench --bench batch` writes 40 big scene rigs of 8.2 MB
//! ([`scene_rigs`], for a batch's peak memory) and exits.

use criterion::Criterion;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

#[path = "cycling_rigs.rs"]
mod cycling_rigs;
#[path = "scene_rigs.rs"]
mod scene_rigs;

fn bake(rigs: &[PathBuf], out: &std::path::Path, extra: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .arg("bake")
        .args(rigs)
        .arg("-o")
        .arg(out)
        .args(extra)
        .arg("--quiet")
        .status()
        .expect("run rigbake");
    assert!(status.success(), "rigbake bake failed: {status}");
}

fn batch(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let rigs = cycling_rigs::write_cycling_rigs(&dir.path().join("rigs"), 1000).expect("rigs");
    let mut group = c.benchmark_group("batch");
    group.sample_size(10);
    // (ten whole calls: about 25 s on 2 idle cores)
    group.measurement_time(Duration::from_secs(30));
    // A fresh output directory per run: every file is written, none skipped
    // as unchanged.
    let mut run = 0;
    group.bench_function("bake 1000 cycling rigs (defaults)", |b| {
        b.iter(|| {
            run += 1;
            bake(&rigs, &dir.path().join(format!("out-{run}")), &[]);
        })
    });
    group.measurement_time(Duration::from_secs(100));
    group.bench_function("bake 100 cycling rigs (--tolerance 0.25)", |b| {
        b.iter(|| {
            run += 1;
            let out = dir.path().join(format!("out-{run}"));
            bake(&rigs[..100], &out, &["--tolerance", "0.25"]);
        })
    });
    group.finish();
}

fn main() {
    if let Some(dir) = std::env::var_os("RIGBAKE_WRITE_BIG_RIGS") {
        let paths = scene_rigs::write_scene_rigs(dir.as_ref(), 40, 256, 4096).expect("write rigs");
        eprintln!("wrote {} rigs into {}", paths.len(), dir.to_string_lossy());
        return;
    }
    if let Some(dir) = std::env::var_os("RIGBAKE_WRITE_RIGS") {
        let paths = cycling_rigs::write_cycling_rigs(dir.as_ref(), 1000).expect("write rigs");
        eprintln!("wrote {} rigs into {}", paths.len(), dir.to_string_lossy());
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    batch(&mut c);
    c.final_summary();
}
