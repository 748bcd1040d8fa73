//! `bake --art` for `ik_chains` rigs: `template` → an illustrator's edit
//! (every drawn line becomes a curved path, the joints kept; nested and
//! flat) → `bake --art`, for `path-foot` (a fixed root, a far chain with a
//! `depth_offset`) and the chain walker fixture (a bobbing root, a pulled
//! gait, a ground). The report is the plain bake's, the summary counts the
//! written file's bytes, joint markers are hidden, and in Chromium (and
//! Firefox ESR where installed) every probe of the plain clip is where the
//! clip's evaluator puts it, and every ankle probe and drawn foot is within
//! the plain bake's reported error of its ideal target + 0.05 px. A far
//! chain drawn as the near chain plus a depth offset (seed 001) bakes with
//! its foot on target where that is the far chain's pose, and is refused
//! naming the part where it is not; a part 40 px off and the other bad
//! drawings are one-line refusals that write nothing.
//!
//! The browser tests need Chromium; without one they are skipped with a
//! notice on stderr, unless `CI=true`, where they fail.

mod common;

use common::art::*;
use common::repo;
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::{Route, measure};
use roxmltree::Document;
use std::fs;
use std::path::Path;

const PATH_FOOT: &str = "rigs/path-foot.json";
const WALKER: &str = "tests/fixtures/ik_chains/walker.json";

/// The rig at `rig` with its text edited by `edit`, written into `dir`;
/// its path.
fn variant(rig: &str, dir: &Path, name: &str, edit: impl Fn(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo(rig)).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("$schema");
    edit(&mut v);
    let path = dir.join(format!("{name}.json"));
    fs::write(&path, v.to_string()).unwrap();
    path.display().to_string()
}

/// The drawing with the far chain's shapes replaced by the near chain's,
/// moved by `translate(-6,-7)`, as seed 001 draws its far leg.
fn far_chain_as_near(drawn: &str) -> String {
    far_as_near(
        drawn,
        &["thigh-far", "shin-far"],
        &["thigh-near", "shin-near"],
    )
}

/// Bakes every `(rig, tag, drawing)` job with `--art`, checks what was
/// written, and in each browser found: every probe of the plain clip within
/// 0.05 px of the clip's evaluator, every ankle probe and drawn foot within
/// the plain bake's reported error of the ideal target + 0.05 px, the drawn
/// knee joined, the drawn feet moving. Returns the worst drawn-foot error
/// over the ideal target seen in Chromium per job, when Chromium ran.
fn round_trip(jobs: &[(String, &str, String)], dir: &Path) -> Option<Vec<f64>> {
    let mut baked = Vec::new();
    for (k, (rig, tag, drawing)) in jobs.iter().enumerate() {
        let art = bake_art(rig, drawing, dir, &format!("job{k}"));
        // a flat drawing keeps no guide layer, so no markers
        if drawing.contains("joint-hip-") {
            same_figures(rig, &art, dir);
            markers_hidden(&art.svg);
        }
        // the drawn parts and their own probes are in the output
        for id in ["shape-thigh-near", "art-thigh-far-to", "art-shin-far-to"] {
            assert!(art.svg.contains(id), "{tag}: {id} missing");
        }
        baked.push(art);
    }
    let rigs: Vec<rigbake::rig::Rig> = jobs.iter().map(|(r, _, _)| load(r)).collect();
    let svgs: Vec<&str> = baked.iter().map(|a| a.svg.as_str()).collect();
    let (times, engines) = probe_in_browsers(&rigs, &svgs)?;
    let mut chromium_worst = Vec::new();
    for (engine, got) in &engines {
        for (k, (((rig, ts), samples), art)) in
            rigs.iter().zip(&times).zip(got).zip(&baked).enumerate()
        {
            let tag = format!("{engine}: {}", jobs[k].1);
            let clip = common::bake_own(rig, Route::Css).clip;
            let plain_err = |chain: &str| -> f64 {
                art.report["legs"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|l| l["name"] == chain)
                    .unwrap_or_else(|| panic!("{tag}: no leg {chain} in the report"))["max_error_px"]
                    .as_f64()
                    .unwrap()
            };
            let mut checked = 0;
            let mut worst: f64 = 0.0;
            let mut travel: f64 = 0.0;
            for (t, p) in ts.iter().zip(samples) {
                let at = |k: &str| {
                    let v = p
                        .get(k)
                        .unwrap_or_else(|| panic!("{tag} t={t}: no probe {k}"));
                    Vec2::new(v[0], v[1])
                };
                for (name, w) in measure::probes_at(&clip, *t) {
                    let e = at(&name).dist(w);
                    assert!(e <= 0.05, "{tag} t={t}: probe {name} {e} px off");
                    checked += 1;
                }
                let u = (t / rig.period_s).rem_euclid(1.0);
                // the chains, loaded as a tree: one named `ik` entry each
                let fig = &rig.figure;
                for (i, k) in fig.ik.iter().enumerate() {
                    let c = k.name.as_deref().expect("a chain's entry is named");
                    let allowed = plain_err(c) + 0.05;
                    let ankle = at(&format!("{c}-ankle"));
                    let drawn = at(&format!("art-shin-{c}-to"));
                    let e = drawn.dist(ankle);
                    assert!(
                        e <= 0.05,
                        "{tag} t={t}: {c} drawn foot {e} px off its ankle"
                    );
                    // the target asked for (a pulled target's aimed point is
                    // closer: its error is the report's, checked above)
                    if k.reach != rigbake::chain::ChainReach::Pull {
                        let ideal = fig.clips[0].targets[i].at(u);
                        for (what, q) in [("ankle probe", ankle), ("drawn foot", drawn)] {
                            let e = q.dist(ideal);
                            assert!(
                                e <= allowed,
                                "{tag} t={t}: {c} {what} {e} px from its target (plain bake: {allowed} - 0.05)"
                            );
                        }
                        worst = worst.max(drawn.dist(ideal));
                    }
                    let knee =
                        at(&format!("art-thigh-{c}-to")).dist(at(&format!("art-shin-{c}-from")));
                    assert!(knee <= 0.05, "{tag} t={t}: drawn knee {knee} px apart");
                    let foot0 = samples[0][&format!("art-shin-{c}-to")];
                    travel = travel.max(drawn.dist(Vec2::new(foot0[0], foot0[1])));
                }
            }
            assert!(checked >= 48 * 4, "{tag}: {checked} probes");
            assert!(travel > 20.0, "{tag}: the drawn feet move {travel} px");
            eprintln!(
                "{tag}: {checked} probe positions within 0.05 px of the clip; drawn feet within {worst:.4} px of their targets"
            );
            if *engine == "Chromium" {
                chromium_worst.push(worst);
            }
        }
    }
    Some(chromium_worst)
}

#[test]
fn chain_templates_round_trip_through_bake_art() {
    let tmp = tempfile::tempdir().unwrap();
    let foot = draw_over(&template(PATH_FOOT, tmp.path()));
    let walker = draw_over(&template(WALKER, tmp.path()));
    let jobs = vec![
        (PATH_FOOT.to_string(), "path-foot nested", foot.clone()),
        (PATH_FOOT.to_string(), "path-foot flat", flatten(&foot)),
        (WALKER.to_string(), "walker (bobbing root, ground)", walker),
    ];
    round_trip(&jobs, tmp.path());
}

/// Seed 001 draws the far leg as the near leg's shape moved by a depth
/// offset. Where that is the far chain's phase-0 pose (same target phase,
/// the rig's `depth_offset` is that translation) it bakes, and the far foot
/// follows its target; where it is not (path-foot: the far foot starts
/// half a loop away) it is refused naming the far part, never baked.
#[test]
fn a_far_chain_drawn_as_the_near_chain_plus_a_depth_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let line = refused(
        PATH_FOOT,
        &far_chain_as_near(&draw_over(&template(PATH_FOOT, tmp.path()))),
        &["px from the rig's phase-0", "far limb"],
    );
    assert!(
        line.contains("\"thigh-far\"") || line.contains("\"shin-far\""),
        "{line}"
    );
    assert!(offset(&line) > 6.0, "{line}");

    // the far target in the near target's phase: the far pose is the near
    // pose moved by the depth offset, so the seed-001 drawing is exact
    let same_phase = variant(PATH_FOOT, tmp.path(), "same-phase", |v| {
        v["ik_chains"][1]["target"]["path"]
            .as_object_mut()
            .unwrap()
            .remove("start");
    });
    let drawn = far_chain_as_near(&draw_over(&template(&same_phase, tmp.path())));
    let jobs = vec![(same_phase, "far drawn as near + translate(-6,-7)", drawn)];
    if let Some(worst) = round_trip(&jobs, tmp.path()) {
        assert!(worst[0] <= 0.5 + 0.05, "{worst:?}");
    }
}

#[test]
fn a_chain_part_drawn_40_px_off_is_refused_with_its_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let drawn = draw_over(&template(PATH_FOOT, tmp.path()));
    // each moved across its own direction, so the offset is the shift
    for (part, shift, joint) in [
        ("shin-near", "translate(40 0)", "knee"),
        ("thigh-near", "translate(0 40)", "hip"),
        ("shin-far", "translate(-40 0)", "knee"),
    ] {
        for (how, d) in [("nested", drawn.clone()), ("flat", flatten(&drawn))] {
            let line = refused(
                PATH_FOOT,
                &with_attrs(&d, part, &format!("transform=\"{shift}\"")),
                &[&format!("\"{part}\""), joint],
            );
            let off = offset(&line);
            assert!(off > 20.0 && off <= 40.01, "{how} {part}: {line}");
        }
    }
    // a joint marker 40 px off its joint: the offset is the marker's
    let doc = Document::parse(&drawn).unwrap();
    let m = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("joint-ankle-far"))
        .unwrap();
    let cy = m.attribute("cy").unwrap();
    let from = format!(
        "inkscape:label=\"joint-ankle-far\" cx=\"{}\" cy=\"{cy}\"",
        m.attribute("cx").unwrap()
    );
    assert_eq!(drawn.matches(&from).count(), 1);
    let moved = drawn.replace(
        &from,
        &from.replace(
            &format!("cy=\"{cy}\""),
            &format!("cy=\"{}\"", cy.parse::<f64>().unwrap() + 40.0),
        ),
    );
    let line = refused(PATH_FOOT, &moved, &["\"joint-ankle-far\"", "phase-0 ankle"]);
    assert!((offset(&line) - 40.0).abs() < 0.02, "{line}");
}

/// The element `id` cut out of `s`: (without it, its text).
fn cut(s: &str, id: &str) -> (String, String) {
    let doc = Document::parse(s).unwrap();
    let r = doc
        .descendants()
        .find(|n| n.attribute("id") == Some(id))
        .unwrap_or_else(|| panic!("no {id}"))
        .range();
    (
        format!("{}{}", &s[..r.start], &s[r.end..]),
        s[r].to_string(),
    )
}

/// `s` with `text` inserted right after the start tag of the element `id`.
fn insert_into(s: &str, id: &str, text: &str) -> String {
    let tag = format!("<g id=\"{id}\" inkscape:label=\"{id}\">");
    assert_eq!(s.matches(&tag).count(), 1, "{id}");
    s.replace(&tag, &format!("{tag}{text}"))
}

#[test]
fn bad_chain_drawings_are_one_line_refusals_that_write_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let drawn = draw_over(&template(PATH_FOOT, tmp.path()));
    let flat = flatten(&drawn);
    // a missing part, named with its chain and the near misses
    let (without, _) = cut(&flat, "shin-far");
    refused(PATH_FOOT, &without, &["\"shin-far\"", "chain \"far\""]);
    let typo = flat.replace("\"thigh-far\"", "\"thigh-fra\"");
    refused(
        PATH_FOOT,
        &typo,
        &[
            "\"thigh-far\"",
            "\"thigh-fra\" (line",
            "chains are \"near\", \"far\"",
        ],
    );
    // a part inside a part it must not move with
    let (rest, far_thigh) = cut(&flat, "thigh-far");
    let line = refused(
        PATH_FOOT,
        &insert_into(&rest, "shin-near", &far_thigh),
        &["\"thigh-far\" must not be inside \"shin-near\""],
    );
    // why, with the parts named as drawn and the parenthesis closed
    assert!(
        line.ends_with("(a part may only hold the parts of the bones below its own bone; \"shin-near\" is not above \"thigh-far\")"),
        "{line}"
    );
    let (rest, far_shin) = cut(&flat, "shin-far");
    refused(
        PATH_FOOT,
        &insert_into(&rest, "thigh-near", &far_shin),
        &["\"shin-far\" must not be inside \"thigh-near\""],
    );
    // two elements with one name
    let dup = flat.replacen(
        "<path id=\"shape-thigh-near\"",
        "<path inkscape:label=\"thigh-far\" id=\"shape-thigh-near\"",
        1,
    );
    refused(PATH_FOOT, &dup, &["\"thigh-far\" marks two elements"]);
    // a part with nothing rigbake can check against the pose
    let (rest, _) = cut(&flat, "shape-shin-near");
    refused(PATH_FOOT, &rest, &["\"shin-near\" has no shape"]);
    // pedal and crank names are ordinary elements in a chain drawing
    let with_pedal = insert_into(
        &flat,
        "thigh-near",
        "<g id=\"pedal-near\"/><g id=\"crank\"/>",
    );
    bake_art(PATH_FOOT, &with_pedal, tmp.path(), "pedal");
    // the smil route
    refused_with(PATH_FOOT, &flat, &["--route", "smil"], &["css route only"]);
}

#[test]
fn preview_takes_a_chain_drawing() {
    if chromium_or_skip("preview --art").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let drawn = draw_over(&template(PATH_FOOT, tmp.path()));
    let (res, png) = preview_art(PATH_FOOT, &drawn, tmp.path(), "good");
    assert!(res.status.success(), "{res:?}");
    assert!(fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    // a far chain off its pose: exit 2, one line, no strip
    let (res, png2) = preview_art(PATH_FOOT, &far_chain_as_near(&drawn), tmp.path(), "bad");
    common::refused(&res, &["bad.svg", "-far\""]);
    assert!(!png2.exists());
}
