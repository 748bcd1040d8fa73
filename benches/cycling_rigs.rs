//! Generated cycling rigs for the batch benchmark and tests: a fixed-seed
//! generator that varies the hip, the bone lengths, the crank radius, the
//! period and the phase of the far leg, every leg within reach over the
//! whole crank turn (the hip–crank distance keeps 8 px from either end of
//! the reachable annulus).
//!
//! Shared by `benches/batch.rs` and `tests/batch.rs` (`#[path]` module).
//! `RIGBAKE_WRITE_RIGS=DIR cargo bench --bench batch` writes the 1,000 rigs
//! of the benchmark into DIR (as `rig-0000.json` …) and exits.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// SplitMix64: a tiny deterministic generator (no dependency, same rigs
/// on every machine and toolchain).
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi], rounded to 0.1.
    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        ((lo + u * (hi - lo)) * 10.0).round() / 10.0
    }
}

/// The seed of every generated batch.
pub const SEED: u64 = 14;

/// `n` cycling rigs as JSON text, named `gen-0000` …
pub fn cycling_rigs(n: usize) -> Vec<String> {
    let mut rng = Rng(SEED);
    (0..n).map(|i| cycling_rig(&mut rng, i)).collect()
}

fn cycling_rig(rng: &mut Rng, i: usize) -> String {
    let thigh = rng.range(100.0, 140.0);
    let shin = rng.range(90.0, 130.0);
    let radius = rng.range(30.0, 60.0);
    let (lo, hi) = (
        (thigh - shin).abs() + radius + 8.0,
        thigh + shin - radius - 8.0,
    );
    let dist = rng.range(lo + 0.3 * (hi - lo), hi);
    // the hip above and behind the crank, like a rider's
    let angle = rng.range(-125.0, -95.0).to_radians();
    let (cx, cy) = (420.0, 420.0);
    let hip = [
        ((cx + dist * angle.cos()) * 10.0).round() / 10.0,
        ((cy + dist * angle.sin()) * 10.0).round() / 10.0,
    ];
    let period = rng.range(0.6, 1.8);
    let phase = rng.range(150.0, 210.0);
    let knee = if rng.next_u64().is_multiple_of(8) {
        "backward"
    } else {
        "forward"
    };
    format!(
        r#"{{
  "name": "gen-{i:04}",
  "view_box": [0, 0, 800, 600],
  "period_s": {period},
  "crank": {{ "center": [{cx}, {cy}], "radius": {radius}, "start_deg": 0, "direction": "cw" }},
  "legs": [
    {{ "name": "near", "hip": [{h0}, {h1}], "thigh": {thigh}, "shin": {shin},
      "pedal_offset": [0, 0], "knee": "{knee}", "phase_deg": 0 }},
    {{ "name": "far", "hip": [{h0}, {h1}], "thigh": {thigh}, "shin": {shin},
      "pedal_offset": [0, 0], "knee": "{knee}", "phase_deg": {phase}, "depth_offset": [-6, -7] }}
  ]
}}
"#,
        h0 = hip[0],
        h1 = hip[1],
    )
}

/// Writes `n` generated rigs into `dir` as `rig-0000.json` …; returns
/// their paths in order.
pub fn write_cycling_rigs(dir: &Path, n: usize) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    cycling_rigs(n)
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let p = dir.join(format!("rig-{i:04}.json"));
            std::fs::write(&p, text).map(|()| p)
        })
        .collect()
}
