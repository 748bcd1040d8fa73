//! Default bakes of cycling-leg rigs (no `--keys`, no tolerance: keys fitted
//! to the 0.25 px goal): the seed keeps every probe within 0.25 px with at
//! most 7 keys per bone (6 with the cycling engine; as the bone tree it
//! loads as 7/5 keys, 0.163 px), and so does every rig of the generated batch
//! (`benches/cycling_rigs.rs`), as measured on the written clip. The
//! speed of these bakes is timed by `cargo bench --bench defaults` and
//! `--bench batch`, never here.

use rigbake::bake::BakeOptions;
use rigbake::{Route, rig};

#[path = "../benches/cycling_rigs.rs"]
mod cycling_rigs;

fn default_bake(text: &str) -> rigbake::report::Report {
    let rig = rig::load(text).unwrap();
    let opts = BakeOptions::resolve(&rig, Route::Css, None, None, None);
    rigbake::bake_rig(&rig, &opts).report
}

/// Every leg of a two-leg cycling bake measured within 0.25 px.
fn within_a_quarter_px(r: &rigbake::report::Report) {
    assert_eq!(r.legs.len(), 2, "{}", r.rig);
    assert!(
        r.max_error_px() <= 0.25,
        "{}: {} px",
        r.rig,
        r.max_error_px()
    );
}

#[test]
fn the_seed_at_defaults_keeps_every_probe_within_a_quarter_px_with_seven_keys_per_bone() {
    let r = default_bake(&std::fs::read_to_string("rigs/seed-nested.json").unwrap());
    within_a_quarter_px(&r);
    for leg in &r.legs {
        assert!(leg.keys <= 7, "{}: {} keys", leg.name, leg.keys);
    }
}

#[test]
fn generated_cycling_rigs_at_defaults_keep_every_probe_within_a_quarter_px() {
    let rigs = cycling_rigs::cycling_rigs(60);
    for text in &rigs {
        within_a_quarter_px(&default_bake(text));
    }
}
