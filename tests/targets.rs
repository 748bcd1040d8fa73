//! Target probes of bone-tree IK effectors (issue 12): every `ik` entry's
//! effector `<lower>-tip` has a `<lower>-target` probe at the target the
//! entry asks for (`<name>-ankle` and `<name>-target` for a named entry), so the foot-to-target distance (and with it the reach
//! gap) can be measured from the file alone.

use rigbake::figure::{self, bake::TARGET_BUDGET_PX};
use rigbake::rig::{self, Rig};
use rigbake::{Route, measure};
use std::path::Path;

fn rigs() -> Vec<(String, Rig)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs");
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let text = std::fs::read_to_string(&p).unwrap();
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        out.push((name, rig::load(&text).unwrap()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    // and a tree whose `ik` entries are named (`<name>-ankle`,
    // `<name>-target`): path-foot lowered into bones
    let lowered = "tests/fixtures/lowering/path-foot.json";
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(lowered));
    out.push((lowered.to_string(), rig::load(&text.unwrap()).unwrap()));
    out
}

/// Every IK effector of every example rig, both routes: the target probe is
/// in the file, within its budget of the asked target, and the written
/// foot-to-target distance is the report's reach gap give or take the
/// effector's and the probe's own error.
#[test]
fn every_ik_effector_has_a_target_probe_that_measures_the_reach() {
    let mut seen = 0;
    for (name, rig) in rigs() {
        let fig = &rig.figure;
        for route in [Route::Css, Route::Smil] {
            let fb = figure::bake_figure(&rig.name, rig.view_box, fig, route, None);
            for im in &fb.ik {
                let clip = &fb.clips[im.clip];
                let i = (0..fig.ik.len())
                    .position(|i| im.leg.ankle_probe == fig.tip_probe(fig.ik[i].lower))
                    .unwrap_or_else(|| panic!("{name}: no entry for {}", im.leg.ankle_probe));
                let target = fig.target_probe(i);
                assert!(
                    fb.svg.contains(&format!("data-probe=\"{target}\"")),
                    "{name} {route:?}: no {target}"
                );
                assert!(measure::probes_at(clip, 0.0).contains_key(&target));
                assert!(
                    im.target_error_px <= TARGET_BUDGET_PX + 0.01,
                    "{name} {route:?} {target}: {}",
                    im.target_error_px
                );
                let reach = im.measure.reach_px.unwrap();
                let slack = im.measure.max_error_px + im.target_error_px + 1e-9;
                assert!(
                    (im.foot_to_target_px - reach).abs() <= slack,
                    "{name} {route:?} {target}: foot-to-target {} reach {reach} slack {slack}",
                    im.foot_to_target_px
                );
                seen += 1;
            }
        }
    }
    assert!(seen >= 10, "{seen} effectors");
}

/// A walker whose legs cannot reach the ground (37 → 30): the file shows
/// the floating feet, foot-to-target about the report's 13 px reach gap.
#[test]
fn floating_feet_are_visible_in_the_file() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/walker.json");
    let text = std::fs::read_to_string(path)
        .unwrap()
        .replace("\"length\": 37", "\"length\": 30");
    let rig = rig::load(&text).unwrap();
    let fig = &rig.figure;
    let fb = figure::bake_figure(&rig.name, rig.view_box, fig, Route::Css, None);
    for im in &fb.ik {
        let reach = im.measure.reach_px.unwrap();
        assert!(reach > 10.0, "{reach}");
        assert!(
            (im.foot_to_target_px - reach).abs() <= 0.1,
            "{} vs {reach}",
            im.foot_to_target_px
        );
    }
}
