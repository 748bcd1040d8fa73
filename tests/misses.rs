//! Errors no key closes buy no bytes. Rigs the browser fuzz generated at
//! seed 7 but one (`tests/fixtures/misses/`) miss their default goal, or a
//! channel's own budget, by an error no key closes:
//!
//! - `spring.json`: a spring whose subtree tip misses its budget at every
//!   key count, cubic spans by 0.0004 px less than linear ones;
//! - `spring-bones.json`: a spring whose subtree's bones, keyed on their
//!   own, already miss its budget: every count misses by about the same
//!   0.21 px, linear stops at 24 keys as at 720 (seed 123);
//! - `whip.json`: a Verlet chain no key plan keeps within its budget
//!   (0.2397 px with 367 keys as with one on every frame);
//! - `clamped.json`: a target clamped 452 px out of reach, whose limb's
//!   error a tighter budget lowers by a hair each retry;
//! - `chain.json`: a one-shot hair whose planner measured it as a loop, so
//!   that every plan missed by the 0.33 px between its last frame and its
//!   first;
//! - `snap.json`: an IK arm on a spine that swings 57° in a thousandth of
//!   the period, a turn no two keys can follow (see
//!   `a_peak_no_key_lowers_leaves_the_limb_its_keys`);
//! - `rim.json`: a spring on a neck whose track turns 34° in a thousandth
//!   of the period, whose head's rim misses by a hair with the default's
//!   shapes and keeps the goal with cubic keys (seed 8080; see
//!   `a_tolerance_cubic_keys_keep_is_kept_not_refused`).
//!
//! The default bake took the set, the plan or the bake of the least error
//! however small its lead: 95 KB, 13 KB, 346 KB, 125 KB and 166 KB where
//! `--fit linear` wrote 17 KB, 8 KB, 176 KB, 41 KB and 70 KB. Each such
//! choice now takes the fewest bytes of those the least error is not
//! clearly less than (`rigbake::fit::least_miss`), the bake's retries keep
//! the last bake clearly better than those before it, and a chain's plans
//! are measured as the file plays.

use rigbake::bake::{BakeOptions, Keying};
use rigbake::fit::Fit;
use rigbake::{Route, bake_rig, rig};

fn load(name: &str) -> rig::Rig {
    let path = format!(
        "{}/tests/fixtures/misses/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    rig::load(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Bytes and measured worst error of a css bake with `fit` (`None`: the
/// default's shortest shape).
fn css(rig: &rig::Rig, fit: Option<Fit>) -> (usize, f64) {
    let b = bake_rig(rig, &BakeOptions::resolve(rig, Route::Css, None, None, fit));
    (b.svg.len(), b.report.max_error_px())
}

/// The default writes at most a quarter more than each of the `--fit
/// cubic` and `--fit linear` files it does not miss the goal clearly less
/// than (`rigbake::fit::clearly_less`: bytes bought for no clear gain),
/// and the better of the two does not miss the goal clearly less than it.
#[test]
fn a_miss_no_key_closes_buys_no_bytes() {
    let mut failures = Vec::new();
    for name in [
        "spring",
        "spring-bones",
        "whip",
        "clamped",
        "chain",
        "rim",
        "snap",
    ] {
        let rig = load(name);
        let goal = match BakeOptions::resolve(&rig, Route::Css, None, None, None).keying {
            Keying::Tolerance(px) | Keying::Goal(px) => px,
            other => panic!("{name}: keyed {other:?}, not to a goal"),
        };
        let (bytes, err) = css(&rig, None);
        let (cubic, cubic_err) = css(&rig, Some(Fit::Cubic));
        let (linear, linear_err) = css(&rig, Some(Fit::Linear));
        for (shape, other, other_err) in
            [("cubic", cubic, cubic_err), ("linear", linear, linear_err)]
        {
            if bytes as f64 > 1.25 * other as f64
                && !rigbake::fit::clearly_less(err, other_err, goal)
            {
                failures.push(format!(
                    "{name}: {bytes} B at {err} px against {shape} {other} B at {other_err} px"
                ));
            }
        }
        if rigbake::fit::clearly_less(cubic_err.min(linear_err), err, goal) {
            failures.push(format!(
                "{name}: {err} px against cubic {cubic_err} px, linear {linear_err} px (goal {goal} px)"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A peak no key lowers leaves the rest of a limb keyed. In `snap.json`
/// (seed 7's `fuzz-169`) the spine under an IK arm swings 57° in a
/// thousandth of the period, which no two keys (at least that far apart)
/// can follow. The arm's fit stopped at that peak and kept only the keys
/// that lowered its max error: on the css route none at all, the arm held
/// in its rest pose, its bones 26 and 28 px (rms) from where they should
/// be; on the smil route 2.4 and 2.0 px. Now only the samples around the
/// turn keep its error (`rigbake::fit::Stuck`) and the rest of the arm
/// keeps its budget: 0.80 and 1.20 px css (the turn's own error is most
/// of that), 0.15 and 0.10 px smil.
#[test]
fn a_peak_no_key_lowers_leaves_the_limb_its_keys() {
    use rigbake::report::ProbeKind;
    let rig = load("snap");
    for (route, most) in [(Route::Css, 2.0), (Route::Smil, 0.5)] {
        let b = bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, None));
        for bone in ["uarm", "farm"] {
            let probes = b.report.probes();
            let p = probes
                .iter()
                .find(|p| p.kind == ProbeKind::Bone && p.name == bone)
                .unwrap_or_else(|| panic!("{route:?}: no probe for bone {bone}"));
            let rms = p.rms_error_px.expect("a bone tip's rms");
            assert!(
                rms < most,
                "{route:?} {bone}: rms {rms} px, not under {most} px"
            );
        }
    }
}

/// A tolerance that cubic keys keep is kept, not refused. In `rim.json`
/// (seed 8080's `fuzz-100`) a spring's subtree misses its channel budget
/// at every key count of either shape, cubic keys by 0.008 px less than
/// linear ones, which is no gain at that budget (`fit::least_miss`); but
/// then the head's rim missed 0.25 px by 0.003 px with the linear keys and
/// kept it with cubic ones, and `--tolerance 0.25` refused the rig. Now a
/// tolerance bake whose shortest shapes miss bakes every channel cubic and
/// every channel linear too, and takes the least error of the three. The
/// default goal, which is no promise,
/// keeps the shortest shapes' 24 KB at 0.2576 px: the cubic keys' 0.2217
/// px is not clearly less (`fit::clearly_less`) and takes 138 KB.
#[test]
fn a_tolerance_cubic_keys_keep_is_kept_not_refused() {
    let rig = load("rim");
    let asked = bake_rig(
        &rig,
        &BakeOptions::resolve(&rig, Route::Css, None, Some(0.25), None),
    );
    let (cubic, cubic_err) = css(&rig, Some(Fit::Cubic));
    assert!(cubic_err <= 0.25, "--fit cubic: {cubic_err} px");
    let kept = asked.report.max_error_px();
    assert!(kept <= 0.25, "--tolerance 0.25: {kept} px");
    let (bytes, err) = css(&rig, None);
    assert!(
        !rigbake::fit::clearly_less(cubic_err, err, 0.25) && 2 * bytes < cubic,
        "the default: {bytes} B at {err} px against cubic {cubic} B at {cubic_err} px"
    );
}
