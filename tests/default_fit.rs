//! Default bakes of cycling-leg rigs (no `--keys`, no tolerance: keys fitted
//! to the 0.25 px goal): the seed keeps every probe within 0.25 px in at
//! most 3,072 bytes (its legs' turns as evenly spaced linear keys lifted
//! off the curve, the stops of a `linear()` easing: the fewest bytes), and
//! with `--fit cubic` in at most 6 keys per bone; every rig of the
//! generated batch (`benches/cycling_rigs.rs`) keeps 0.25 px too, as
//! measured on the written clip. The speed of these bakes is timed by
//! `cargo bench --bench defaults` and `--bench batch`, never here.

use rigbake::bake::BakeOptions;
use rigbake::{Route, rig};

#[path = "../benches/cycling_rigs.rs"]
mod cycling_rigs;

fn default_bake(text: &str) -> rigbake::report::Report {
    bake_as(text, None).report
}

/// The css bake of rig `text` with segment shape `fit` (`None`: the default).
fn bake_as(text: &str, fit: Option<rigbake::clip::Fit>) -> rigbake::Baked {
    let rig = rig::load(text).unwrap();
    let opts = BakeOptions::resolve(&rig, Route::Css, None, None, fit);
    rigbake::bake_rig(&rig, &opts)
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
fn the_seed_at_defaults_keeps_a_quarter_px_in_3072_bytes_and_six_cubic_keys_per_bone() {
    let text = std::fs::read_to_string("rigs/seed-nested.json").unwrap();
    let b = bake_as(&text, None);
    within_a_quarter_px(&b.report);
    assert!(b.svg.len() <= 3072, "{} B", b.svg.len());
    let cubic = bake_as(&text, Some(rigbake::clip::Fit::Cubic));
    within_a_quarter_px(&cubic.report);
    for leg in &cubic.report.legs {
        for track in &leg.tracks {
            assert!(track.keys <= 6, "{}: {:?}", leg.name, track);
        }
    }
}

#[test]
fn generated_cycling_rigs_at_defaults_keep_every_probe_within_a_quarter_px() {
    let rigs = cycling_rigs::cycling_rigs(60);
    for text in &rigs {
        within_a_quarter_px(&default_bake(text));
    }
}
