//! `bake --art` for Verlet chains (hair, a ponytail, a scarf): `rigbake
//! template` draws each segment of a bone tree's chain as a part
//! `<chain>-<j>` (segment j + 1 inside segment j, on the layer `chain
//! <chain>`, markers `joint-<chain>-<j>` and `tip-<chain>-<last>` on the
//! guides), and `bake --art` wraps each drawn segment into the chain's own
//! groups (the anchor's slide, each earlier segment's turn, its own).
//!
//! Every bone-tree rig of `rigs/` with `chains` round-trips: its template,
//! unchanged, bakes with the chain parts inside the chain's animated
//! groups and a report equal to the plain bake's of the same clip; drawn
//! over (curved paths, nested and flat), in Chromium (and Firefox ESR
//! where installed) every probe of the plain clip is where the clip's
//! evaluator puts it and every drawn segment's ends are on the chain's
//! particle probes, within 0.05 px. A segment drawn 40 px off, a segment
//! inside a bone's part or inside a later segment, and a segment drawn
//! twice are one-line refusals that leave the previous output untouched;
//! a segment left out is allowed (it is not required, as a bone of length
//! 0 is not).
//!
//! The browser test needs Chromium; without one it is skipped with a notice
//! on stderr, unless `CI=true`, where it fails.

mod common;

use common::art::*;
use common::repo;
use rigbake::bake::BakeOptions;
use rigbake::clip::{Item, Node};
use rigbake::figure::chain;
use rigbake::geom::{Vec2, Vec2Ext};
use rigbake::{Route, bake_rig, measure, rig};
use roxmltree::Document;
use std::fs;
use std::path::Path;

/// The rigs of `rigs/` whose text has `"chains"` (every one loads as a
/// bone tree, a cycling rig as the tree it lowers into), and of those the
/// cycling ones (`crank` + `legs`, their chains anchored at fixed points).
fn rigs_with_chains() -> (Vec<String>, Vec<String>) {
    let mut trees = Vec::new();
    let mut cycling = Vec::new();
    let mut paths: Vec<_> = fs::read_dir(repo("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for p in paths {
        let text = fs::read_to_string(&p).unwrap();
        if !text.contains("\"chains\"") {
            continue;
        }
        let rel = format!("rigs/{}", p.file_name().unwrap().to_string_lossy());
        let file = rig::parse(&text).unwrap();
        if file.crank.is_some() && !file.legs.is_empty() {
            cycling.push(rel.clone());
        }
        trees.push(rel);
    }
    (trees, cycling)
}

/// The rig as `bake --art` loads it: its first clip alone.
fn one_clip(path: &str) -> rig::Rig {
    let text = fs::read_to_string(repo(path)).unwrap();
    let file = rig::parse(&text).unwrap();
    match file.clips.first() {
        Some(c) if file.clips.len() > 1 => rig::load_clip(&text, &c.name).unwrap(),
        _ => rig::load(&text).unwrap(),
    }
}

/// The plain css bake's report of the clip `bake --art` plays.
fn plain_report_of(path: &str, dir: &Path) -> serde_json::Value {
    let file = rig::parse(&fs::read_to_string(repo(path)).unwrap()).unwrap();
    let clip = (file.clips.len() > 1).then(|| file.clips[0].name.as_str());
    common::art::plain_report_of_clip(path, clip, dir)
}

/// The classes of the animated groups from the clip's root down to the
/// group `class` (itself included).
fn animated_path(clip: &rigbake::clip::Clip, class: &str) -> Vec<String> {
    fn walk(n: &Node, class: &str, path: &mut Vec<String>) -> bool {
        for c in &n.children {
            if let Item::Group(g) = c {
                let animated = g.anim.is_some() && g.class.is_some();
                if animated {
                    path.push(g.class.clone().unwrap());
                }
                if g.class.as_deref() == Some(class) || walk(g, class, path) {
                    return true;
                }
                if animated {
                    path.pop();
                }
            }
        }
        false
    }
    let mut path = Vec::new();
    assert!(walk(&clip.root, class, &mut path), "no group {class}");
    path
}

/// Every drawn segment of `svg` sits inside the clip's animated chain
/// groups down to its own (as `<prefix>-c-…` classes); the number checked.
fn segments_wrapped(rig: &rig::Rig, clip: &rigbake::clip::Clip, svg: &str) -> usize {
    let fig = &rig.figure;
    let doc = Document::parse(svg).unwrap();
    let mut n = 0;
    for ch in &fig.chains {
        for j in 0..ch.params.count - 1 {
            let part = chain::segment_part(&ch.name, j);
            let Some(node) = doc
                .descendants()
                .find(|e| e.attribute((INKSCAPE, "label")) == Some(part.as_str()))
            else {
                continue;
            };
            let classes: Vec<&str> = node
                .ancestors()
                .filter_map(|a| a.attribute("class"))
                .collect();
            for want in animated_path(clip, &chain::segment_class(&ch.name, j)) {
                let tail = want.strip_prefix("rb").unwrap();
                assert!(
                    classes.iter().any(|c| c.ends_with(tail)),
                    "{}: {part} is not inside {want}: {classes:?}",
                    rig.name
                );
            }
            n += 1;
        }
    }
    n
}

/// The template of every rig with chains (a cycling rig's included, as
/// the tree it lowers into), unchanged, bakes: each chain's segments are
/// parts wrapped in the chain's groups, the joint markers are on their
/// particles, the report is the plain bake's.
#[test]
fn every_rig_with_chains_round_trips_template_to_bake_art() {
    let tmp = tempfile::tempdir().unwrap();
    let (trees, cycling) = rigs_with_chains();
    assert!(trees.len() >= 6, "{trees:?}");
    assert!(trees.contains(&"rigs/stickman.json".to_string()));
    assert!(trees.contains(&"rigs/cyclist.json".to_string()));
    assert!(cycling.contains(&"rigs/cyclist-scarf.json".to_string()));
    for path in &trees {
        let rig = one_clip(path);
        let fig = &rig.figure;
        let tpl = template(path, tmp.path());
        let art = bake_art(path, &tpl, tmp.path(), "tpl");
        // the report is the plain bake's of the same clip (the bytes and
        // the note naming the clips left out aside)
        let mut got = art.report.clone();
        let mut plain = plain_report_of(path, tmp.path());
        assert_eq!(got["bytes"].as_u64().unwrap() as usize, art.svg.len());
        for r in [&mut got, &mut plain] {
            r["bytes"] = 0.into();
            let notes: Vec<serde_json::Value> = r["notes"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|n| {
                    !n.as_str()
                        .unwrap()
                        .starts_with("--art: a drawing plays one clip")
                })
                .cloned()
                .collect();
            r["notes"] = notes.into();
        }
        assert_eq!(
            got, plain,
            "{path}: the art bake's figures are the plain bake's"
        );
        assert!(!got["chains"].as_array().unwrap().is_empty(), "{path}");
        // every segment of every chain drawn and wrapped
        let clip = bake_rig(
            &rig,
            &BakeOptions::resolve(&rig, Route::Css, None, None, None),
        )
        .clip;
        let segments: usize = fig.chains.iter().map(|c| c.params.count - 1).sum();
        assert_eq!(segments_wrapped(&rig, &clip, &art.svg), segments, "{path}");
        // a marker on every particle, within 0.01 px, hidden
        let markers = common::art_marker_offsets(&art.stdout);
        for ch in &fig.chains {
            for j in 0..ch.params.count - 1 {
                let name = format!("art: joint-{} is", chain::segment_part(&ch.name, j));
                assert!(
                    markers.iter().any(|(l, _)| l.starts_with(&name)),
                    "{path}: {name}"
                );
            }
            let tip = format!(
                "art: tip-{} is",
                chain::segment_part(&ch.name, ch.params.count - 2)
            );
            assert!(
                markers.iter().any(|(l, _)| l.starts_with(&tip)),
                "{path}: {tip}"
            );
        }
        for (l, px) in markers {
            assert!(px <= 0.01, "{path}: {l}");
        }
        markers_hidden(&art.svg);
        // no shape is named after a chain: no note says one stays still
        assert!(
            !art.stdout.contains("stays still"),
            "{path}: {}",
            art.stdout
        );
        eprintln!("{path}: {segments} segments bound, report = plain bake's");
    }
}

/// Drawn over (every placeholder line a curved path, with probes at its
/// ends), nested and flat: in the browser the drawn segments' ends stay on
/// the chain's particle probes, and every probe of the plain clip is where
/// the clip's evaluator puts it, within 0.05 px.
#[test]
fn drawn_segments_follow_the_chain_probes_in_the_browser() {
    let tmp = tempfile::tempdir().unwrap();
    let (trees, _) = rigs_with_chains();
    let mut jobs: Vec<(String, String, String)> = Vec::new();
    for path in &trees {
        let drawn = draw_over(&template(path, tmp.path()));
        jobs.push((path.clone(), format!("{path} nested"), drawn.clone()));
        if path.ends_with("stickman.json") || path.ends_with("ponytail.json") {
            jobs.push((path.clone(), format!("{path} flat"), flatten(&drawn)));
        }
    }
    let baked: Vec<Art> = jobs
        .iter()
        .enumerate()
        .map(|(k, (path, _, drawing))| bake_art(path, drawing, tmp.path(), &format!("job{k}")))
        .collect();
    let rigs: Vec<rig::Rig> = jobs.iter().map(|(p, _, _)| one_clip(p)).collect();
    let svgs: Vec<&str> = baked.iter().map(|a| a.svg.as_str()).collect();
    let Some((times, engines)) = probe_in_browsers(&rigs, &svgs) else {
        return;
    };
    for (engine, got) in &engines {
        for (((rig, (_, tag, _)), ts), samples) in rigs.iter().zip(&jobs).zip(&times).zip(got) {
            let tag = format!("{engine}: {tag}");
            let fig = &rig.figure;
            let clip = bake_rig(
                rig,
                &BakeOptions::resolve(rig, Route::Css, None, None, None),
            )
            .clip;
            let (mut ends, mut worst, mut travel) = (0, 0.0f64, 0.0f64);
            for (t, p) in ts.iter().zip(samples) {
                let at = |k: &str| {
                    let v = p
                        .get(k)
                        .unwrap_or_else(|| panic!("{tag} t={t}: no probe {k}"));
                    Vec2::new(v[0], v[1])
                };
                let want = measure::probes_at(&clip, *t);
                for (name, w) in &want {
                    let e = (at(name) - *w).len();
                    assert!(e <= 0.05, "{tag} t={t}: probe {name} {e} px off");
                }
                for ch in &fig.chains {
                    let m = ch.params.count - 1;
                    for j in 0..m {
                        let part = chain::segment_part(&ch.name, j);
                        // segment j turns about particle j and ends at
                        // particle j + 1 (the anchor has no probe)
                        let mut pairs = Vec::new();
                        if j > 0 {
                            pairs.push((format!("art-{part}-from"), chain::probe(ch, j)));
                        }
                        if !ch.stretches {
                            pairs.push((format!("art-{part}-to"), chain::probe(ch, j + 1)));
                        }
                        for (drawn, probe) in pairs {
                            let e = (at(&drawn) - at(&probe)).len();
                            worst = worst.max(e);
                            assert!(e <= 0.05, "{tag} t={t}: {drawn} {e} px off {probe}");
                            ends += 1;
                        }
                    }
                    let tip = format!("art-{}-to", chain::segment_part(&ch.name, m - 1));
                    let first = samples[0][&tip];
                    travel = travel.max((at(&tip) - Vec2::new(first[0], first[1])).len());
                }
            }
            assert!(ends >= ts.len() * 2, "{tag}: {ends} ends checked");
            // the drawn hair really moves (the runner's short stiff lock
            // least, 0.38 px)
            assert!(
                travel > 0.1,
                "{tag}: the drawn chain's tip moves {travel} px"
            );
            eprintln!(
                "{tag}: {ends} drawn segment ends on their particle probes within {worst:.4} px; the drawn tip travels {travel:.2} px"
            );
        }
    }
}

/// `bake --art` expecting a refusal over an existing output: exit 2, one
/// line holding every needle, the output's bytes untouched; the line.
fn refused_keeping(rig: &str, drawing: &str, needles: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join("drawing.svg");
    fs::write(&art, drawing).unwrap();
    let out = tmp.path().join("out.svg");
    fs::write(&out, "previous").unwrap();
    let res = art_cmd(rig, &art, &out).output().unwrap();
    let mut all = vec!["drawing.svg"];
    all.extend(needles);
    let line = common::refused(&res, &all).trim_end().to_string();
    assert_eq!(fs::read_to_string(&out).unwrap(), "previous");
    line
}

/// A segment drawn away from its particles, inside a part it cannot move
/// with, or twice, is refused naming it; one left out bakes.
#[test]
fn bad_segment_parts_are_refused_and_a_missing_one_is_allowed() {
    let tmp = tempfile::tempdir().unwrap();
    let rig = "rigs/stickman.json";
    let tpl = draw_over(&template(rig, tmp.path()));
    // 40 px to the right: its joint is off (the outer segment's too, in
    // the nested drawing: the inner one is named, being moved alone)
    let line = refused_keeping(
        rig,
        &with_attrs(&tpl, "hair-1", "transform=\"translate(40 0)\""),
        &["\"hair-1\"", "px from the rig's phase-0 joint"],
    );
    assert!(offset(&line) > 20.0, "{line}");
    let flat = flatten(&tpl);
    let line = refused_keeping(
        rig,
        &with_attrs(&flat, "hair-0", "transform=\"translate(0 40)\""),
        &["\"hair-0\""],
    );
    assert!(offset(&line) > 20.0, "{line}");
    // its joint marker 40 px off
    let doc = Document::parse(&tpl).unwrap();
    let m = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("joint-hair-1"))
        .unwrap();
    let cx = m.attribute("cx").unwrap();
    let moved = tpl.replacen(
        &format!("id=\"joint-hair-1\" inkscape:label=\"joint-hair-1\" cx=\"{cx}\""),
        &format!(
            "id=\"joint-hair-1\" inkscape:label=\"joint-hair-1\" cx=\"{}\"",
            cx.parse::<f64>().unwrap() + 40.0
        ),
        1,
    );
    assert_ne!(moved, tpl);
    let line = refused_keeping(rig, &moved, &["\"joint-hair-1\""]);
    assert!((offset(&line) - 40.0).abs() < 0.02, "{line}");
    // the first segment inside the head's part: the chain hangs in world
    // space, the head's turn would be added to its own
    let range = |s: &str, id: &str| {
        Document::parse(s)
            .unwrap()
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap()
            .range()
    };
    let (hair, head) = (range(&flat, "hair-0"), range(&flat, "head"));
    assert!(hair.start > head.end);
    let close = head.end - "</g>".len();
    let moved = format!(
        "{}{}{}{}",
        &flat[..close],
        &flat[hair.clone()],
        &flat[close..hair.start],
        &flat[hair.end..]
    );
    let line = refused_keeping(rig, &moved, &["\"hair-0\" must not be inside \"head\""]);
    assert!(line.contains("Verlet chain's segment"), "{line}");
    // the first segment inside the second: the wrong way round
    let (first, second) = (range(&flat, "hair-0"), range(&flat, "hair-1"));
    assert!(second.start > first.end);
    let close = second.end - "</g>".len();
    let moved = format!(
        "{}{}{}{}",
        &flat[..first.start],
        &flat[first.end..close],
        &flat[first.clone()],
        &flat[close..]
    );
    refused_keeping(rig, &moved, &["\"hair-0\" must not be inside \"hair-1\""]);
    // drawn twice
    let twice = flat.replacen(
        "</svg>",
        "<g inkscape:label=\"hair-1\"><path d=\"M 0 0 L 1 1\"/></g></svg>",
        1,
    );
    refused_keeping(rig, &twice, &["\"hair-1\" marks two elements"]);
    // left out: the other segment is still bound, nothing is required
    let (inner, _) = (range(&flat, "hair-1"), ());
    let without = format!("{}{}", &flat[..inner.start], &flat[inner.end..]);
    let art = bake_art(rig, &without, tmp.path(), "without");
    let doc = Document::parse(&art.svg).unwrap();
    assert!(doc.descendants().any(|n| {
        n.attribute("data-rigbake") == Some("hair-0")
            && n.attribute("class")
                .is_some_and(|c| c.ends_with("-c-hair-0"))
    }));
    assert!(!art.svg.contains("data-rigbake=\"hair-1\""));
}

/// A cycling rig's chains (fixed anchors) are, on the tree it lowers
/// into, chains like a bone tree's: the template draws every segment as
/// a part (once it drew the chain as a guide only), and `bake --art` wraps
/// each in the chain's groups.
#[test]
fn cycling_chains_are_parts_on_their_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, cycling) = rigs_with_chains();
    assert!(!cycling.is_empty());
    for path in &cycling {
        let rig = one_clip(path);
        let fig = &rig.figure;
        assert!(!fig.chains.is_empty(), "{path}");
        let tpl = template(path, tmp.path());
        let mut segments = 0;
        for ch in &fig.chains {
            for j in 0..ch.params.count - 1 {
                let part = chain::segment_part(&ch.name, j);
                assert!(tpl.contains(&format!("id=\"{part}\"")), "{path}: {part}");
                segments += 1;
            }
        }
        let art = bake_art(path, &tpl, tmp.path(), "cycling");
        let clip = bake_rig(
            &rig,
            &BakeOptions::resolve(&rig, Route::Css, None, None, None),
        )
        .clip;
        assert_eq!(segments_wrapped(&rig, &clip, &art.svg), segments, "{path}");
    }
}

/// A bone's `parts` may not take a chain segment's name: the rig is
/// refused naming both, nothing written.
#[test]
fn a_bone_part_named_as_a_chain_segment_is_refused() {
    let with_parts = |parts: &[&str]| {
        let mut v: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(repo("rigs/stickman.json")).unwrap()).unwrap();
        v.as_object_mut().unwrap().remove("$schema");
        let head = v["bones"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|b| b["name"] == "head")
            .unwrap();
        head["parts"] = serde_json::json!(parts);
        v.to_string()
    };
    let (code, err, written) = common::bake_text(&with_parts(&["hair-1"]));
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("chains[0].name") && err.contains("\"hair-1\"") && err.contains("bones["),
        "{err}"
    );
    assert!(written.is_empty(), "{written:?}");
    // a later segment than the chain has is another name
    let (code, err, _) = common::bake_text(&with_parts(&["hair-2"]));
    assert_eq!(code, 0, "{err}");
}
