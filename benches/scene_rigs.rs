//! Generated scene rigs: one swinging bone carrying `parts` scene paths of
//! `commands` path commands each (a move, then line segments), the big
//! rigs of the batch memory figures (about 8 bytes of JSON per command,
//! several times that once parsed and validated).
//!
//! Shared by `benches/batch.rs` and `tests/batch.rs` (`#[path]` module).
//! `RIGBAKE_WRITE_BIG_RIGS=DIR cargo bench --bench batch` writes 40 rigs of
//! 256 parts × 4,096 commands (the most a `d` may hold; 8.2 MB each) into
//! DIR (as `big-00.json` …) and exits.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// One scene rig named `name`.
pub fn scene_rig(name: &str, parts: usize, commands: usize) -> String {
    let mut d = String::from("M 1 1");
    for i in 1..commands {
        d.push_str(&format!(" L {} {}", i % 100, (i * 7) % 100));
    }
    let scene: Vec<serde_json::Value> = (0..parts)
        .map(|i| serde_json::json!({ "name": format!("p{i}"), "d": d, "bone": "b0" }))
        .collect();
    serde_json::json!({
        "name": name,
        "view_box": [0, 0, 100, 100],
        "period_s": 1,
        "bones": [{ "name": "b0", "at": [50, 50], "length": 10,
                    "angle": { "sine": { "amp_deg": 10, "harmonic": 1, "phase_deg": 0 } } }],
        "scene": scene,
    })
    .to_string()
}

/// Writes `n` scene rigs named `big-00` … into `dir` as `big-00.json` …;
/// returns their paths in order.
pub fn write_scene_rigs(
    dir: &Path,
    n: usize,
    parts: usize,
    commands: usize,
) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    (0..n)
        .map(|i| {
            let name = format!("big-{i:02}");
            let p = dir.join(format!("{name}.json"));
            std::fs::write(&p, scene_rig(&name, parts, commands)).map(|()| p)
        })
        .collect()
}
