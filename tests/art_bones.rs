//! `bake --art` for every rig kind: `template` → an illustrator's edit (every
//! drawn line becomes a curved path of another shape, the joints kept) →
//! `bake --art`, for bone trees (the walker, nested and flat; the ponytail;
//! a tree with named `ik` entries) and a cycling rig. The report is the plain bake's, the summary counts the
//! written file's bytes, joint markers are hidden, and in Chromium (and
//! Firefox ESR where installed) every
//! probe of the plain clip is where the clip's evaluator puts it and the
//! drawn shapes follow their bones, within 0.05 px. A part drawn away from
//! the rig's pose (moved 40 px, or a far limb drawn as the near limb plus a
//! depth offset) is refused: exit 2, one line naming the file and the part,
//! nothing written.
//!
//! The browser test needs Chromium; without one it is skipped with a notice
//! on stderr, unless `CI=true`, where it fails.

mod common;

use common::art::*;
use rigbake::bake::BakeOptions;
use rigbake::figure::{fk, spring};
use rigbake::geom::{AffineExt, Vec2};
use rigbake::{Route, bake_rig, measure, rig};
use roxmltree::Document;
use std::fs;

/// A bone tree whose `ik` entries are named (an effector's probe is
/// `<name>-ankle`, not `<lower>-tip`): path-foot lowered into bones.
const LOWERED: &str = "tests/fixtures/lowering/path-foot.json";

/// A bone tree with a root's `depth_offset` (the browser suite's fixture).
const DEPTH: &str = "tests/fixtures/browser/depth_offset.json";

/// A cycling rig lowered into bones (tests/lowering.rs keeps it): its crank
/// and pedal bones take the cycling drawing's names as their `part`
/// (`crank-<leg>`, `pedal-<leg>`), its chainring bone is named `crank`.
const LOWERED_CYCLING: &str = "tests/fixtures/lowering/seed-nested.json";

#[test]
fn template_drawings_round_trip_through_bake_art_for_every_rig_kind() {
    let tmp = tempfile::tempdir().unwrap();
    let walker = draw_over(&template("rigs/walker.json", tmp.path()));
    let jobs: Vec<(&str, &str, String)> = vec![
        ("rigs/walker.json", "walker nested", show_guides(&walker)),
        ("rigs/walker.json", "walker flat", flatten(&walker)),
        // parts named by their label alone, each turned by a transform of
        // its own (svgo folds a lone group into a child without an id)
        (
            "rigs/walker.json",
            "walker flat, labels only, turned parts",
            labelled_and_turned(&flatten(&walker)),
        ),
        (
            "rigs/ponytail.json",
            "ponytail",
            show_guides(&draw_over(&template("rigs/ponytail.json", tmp.path()))),
        ),
        (
            LOWERED,
            "named ik entries",
            show_guides(&draw_over(&template(LOWERED, tmp.path()))),
        ),
        // a drawing made for the chain rig binds to the tree it lowers to:
        // its `thigh-<chain>` and `shin-<chain>` parts are the named
        // entries' bones
        (
            LOWERED,
            "named ik entries, drawn for ik_chains",
            show_guides(&draw_over(&template("rigs/path-foot.json", tmp.path()))),
        ),
        (
            "rigs/seed-nested.json",
            "seed-nested",
            show_guides(&draw_over(&template("rigs/seed-nested.json", tmp.path()))),
        ),
        // a cycling rig's Verlet scarf: no part carries its particles,
        // which follow the drawing in the skeleton group
        (
            "rigs/cyclist-scarf.json",
            "cyclist-scarf",
            show_guides(&draw_over(&template("rigs/cyclist-scarf.json", tmp.path()))),
        ),
        // a drawing made for the cycling rig binds to the tree it lowers
        // to: its cranks, pedals and chainring by the bones' `part` names
        // and the bone `crank`, its legs by the named entries
        (
            LOWERED_CYCLING,
            "cycling drawing on its lowered tree",
            show_guides(&draw_over(&template("rigs/seed-nested.json", tmp.path()))),
        ),
        // a root's `depth_offset`: the far side's parts drawn where the
        // pose puts them, wrapped inside its translate (seed-nested as
        // bones, the far hip bobbing; its cranks' tips on the targets)
        (
            DEPTH,
            "depth offset",
            show_guides(&draw_over(&template(DEPTH, tmp.path()))),
        ),
    ];
    let mut baked = Vec::new();
    for (k, (rig, tag, drawing)) in jobs.iter().enumerate() {
        let art = bake_art(rig, drawing, tmp.path(), &format!("job{k}"));
        if !tag.contains("flat") {
            same_figures(rig, &art, tmp.path());
            markers_hidden(&art.svg);
        }
        baked.push(art);
    }
    // every file again as svgo's default preset leaves it: the same checks
    // (wrappers that an optimiser may fold into their parts would move
    // the drawing, or the probes)
    let mut jobs: Vec<(&str, String)> = jobs.iter().map(|(r, t, _)| (*r, t.to_string())).collect();
    if let Some(svgo) = common::svgo() {
        let dir = tmp.path().join("for-svgo");
        fs::create_dir(&dir).unwrap();
        for (k, art) in baked.iter().enumerate() {
            fs::write(dir.join(format!("job{k:02}.svg")), &art.svg).unwrap();
        }
        let optimised = common::svgo_dir(&svgo, &dir);
        for k in 0..baked.len() {
            let text = optimised[&format!("job{k:02}.svg")].clone();
            assert_ne!(text, baked[k].svg, "{}: svgo changed nothing", jobs[k].1);
            jobs.push((jobs[k].0, format!("{} after svgo", jobs[k].1)));
            baked.push(Art {
                svg: text,
                ..baked[k].clone()
            });
        }
    }
    let rigs: Vec<rig::Rig> = jobs.iter().map(|(r, _)| load(r)).collect();
    let svgs: Vec<&str> = baked.iter().map(|a| a.svg.as_str()).collect();
    let Some((times, engines)) = probe_in_browsers(&rigs, &svgs) else {
        return;
    };
    for (engine, got) in &engines {
        for ((((rig, (_, tag)), ts), samples), art) in
            rigs.iter().zip(&jobs).zip(&times).zip(got).zip(&baked)
        {
            let tag = &format!("{engine}: {tag}");
            // the plain bake's worst bone error (the art report is the plain one)
            let bone_err = art.report["bones"].as_array().map_or(0.0, |b| {
                b.iter()
                    .map(|x| x["max_error_px"].as_f64().unwrap())
                    .fold(0.0, f64::max)
            });
            let clip = bake_rig(
                rig,
                &BakeOptions::resolve(rig, Route::Css, None, None, None),
            )
            .clip;
            let mut checked = 0;
            let mut drawn_parts = 0;
            let mut worst_drawn: f64 = 0.0;
            for (t, p) in ts.iter().zip(samples) {
                let at = |k: &str| {
                    *p.get(k)
                        .unwrap_or_else(|| panic!("{tag} t={t}: no probe {k}"))
                };
                // every probe of the plain clip, where the clip's evaluator puts it
                for (name, w) in measure::probes_at(&clip, *t) {
                    let e = dist(at(&name), w);
                    assert!(e <= 0.05, "{tag} t={t}: probe {name} {e} px off");
                    checked += 1;
                }
                {
                    let fig = &rig.figure;
                    let fc = &fig.clips[0];
                    let u = (t / rig.period_s).rem_euclid(1.0);
                    let world = fk::world_matrices(fig, &fk::local_angles(fig, fc, u), u);
                    let root = fk::root_matrix(&fc.root, u);
                    for (bi, bone) in fig.bones.iter().enumerate() {
                        // the part is the bone's, or for a named `ik`
                        // entry's bones its chain name's
                        let chain_part = fig.ik.iter().find_map(|k| {
                            let n = k.name.as_deref()?;
                            (k.upper == bi)
                                .then(|| format!("thigh-{n}"))
                                .or_else(|| (k.lower == bi).then(|| format!("shin-{n}")))
                        });
                        let Some(part) = std::iter::once(bone.name.clone())
                            .chain(chain_part)
                            .chain(bone.parts.iter().cloned())
                            .find(|n| p.contains_key(&format!("art-{n}-from")))
                        else {
                            continue;
                        };
                        drawn_parts += 1;
                        let from = format!("art-{part}-from");
                        let to = format!("art-{part}-to");
                        let Some(probe) = &clip.bone_tips()[bi] else {
                            // a bone of length 0 has no tip probe, and
                            // its part need not start at its joint (a
                            // crank's arm, a pedal's block): the part's
                            // drawn ends move rigidly with the bone from
                            // where they are at the first sample
                            let frame = |t: f64| {
                                let u = (t / rig.period_s).rem_euclid(1.0);
                                let angles = fk::local_angles(fig, fc, u);
                                let m = fk::root_matrix(&fc.root, u)
                                    * fk::world_matrices(fig, &angles, u)[bi];
                                (m, spring::offset(fig, bi, u))
                            };
                            let ((m0, off0), (m, off)) = (frame(ts[0]), frame(*t));
                            for end in [&from, &to] {
                                let p0 = samples[0][end];
                                let drawn = Vec2::new(p0[0], p0[1]) - off0;
                                let e = dist(at(end), (m * m0.inverse()).apply(drawn) + off);
                                worst_drawn = worst_drawn.max(e);
                                assert!(
                                    e <= bone_err + 0.05,
                                    "{tag} t={t}: {end} of {} {e} px off its bone (plain bake: {bone_err} px)",
                                    bone.name
                                );
                            }
                            continue;
                        };
                        // the drawn tip on the clip's tip probe (also
                        // where a chain replays another's keys from
                        // another phase: parts land on the drawn bone)
                        let e = dist(at(&to), {
                            let tip = at(probe);
                            Vec2::new(tip[0], tip[1])
                        });
                        assert!(
                            e <= 0.05,
                            "{tag} t={t}: drawn tip of {} {e} px off",
                            bone.name
                        );
                        // the drawn joint on the ideal joint (FK), within
                        // the plain bake's own worst bone error + 0.05 px
                        let joint =
                            (root * world[bi]).apply(Vec2::ZERO) + spring::offset(fig, bi, u);
                        let e = dist(at(&from), joint);
                        worst_drawn = worst_drawn.max(e);
                        assert!(
                            e <= bone_err + 0.05,
                            "{tag} t={t}: drawn joint of {} {e} px off (plain bake: {bone_err} px)",
                            bone.name
                        );
                    }
                }
            }
            assert!(checked > 48, "{tag}: {checked} probes");
            // every bone with a length drawn and checked at every sample
            // (the flat walker keeps no guide probes)
            if !tag.contains("flat") {
                let fig = &rig.figure;
                let bones = fig.bones.iter().filter(|b| b.length > 0.0).count();
                assert!(
                    drawn_parts >= bones * ts.len(),
                    "{tag}: {drawn_parts} drawn parts checked, {bones} bones × {} samples",
                    ts.len()
                );
            }
            eprintln!(
                "{tag}: {checked} probe positions within 0.05 px; drawn joints (against FK) within {worst_drawn:.4} px"
            );
        }
        // the drawing really moves: the walker's near foot travels
        let foot: Vec<[f64; 2]> = got[0].iter().map(|p| p["art-shin_n-to"]).collect();
        let travel = foot
            .iter()
            .map(|f| dist(*f, Vec2::new(foot[0][0], foot[0][1])))
            .fold(0.0, f64::max);
        assert!(travel > 20.0, "walker foot moves {travel} px");
    }
}

/// `drawn` with every joint marker circle (`joint-…`, `tip-…`) rewritten
/// by `f(id, cx, cy)`: what an editor's conversion of the circle writes.
fn markers_as(drawn: &str, f: impl Fn(&str, f64, f64) -> String) -> String {
    let doc = Document::parse(drawn).unwrap();
    let mut out = String::new();
    let mut last = 0;
    for m in doc.descendants().filter(|n| {
        n.has_tag_name("circle")
            && n.attribute("id")
                .is_some_and(|id| id.starts_with("joint-") || id.starts_with("tip-"))
    }) {
        let r = m.range();
        out.push_str(&drawn[last..r.start]);
        out.push_str(&f(m.attribute("id").unwrap(), num(&m, "cx"), num(&m, "cy")));
        last = r.end;
    }
    assert!(last > 0, "no markers");
    out.push_str(&drawn[last..]);
    out
}

/// Inkscape's Path > Object to Path of a marker circle of radius 3 about
/// `(cx, cy)`: four arcs, the fill moved into `style`.
fn arcs(id: &str, cx: f64, cy: f64) -> String {
    format!(
        "<path id=\"{id}\" inkscape:label=\"{id}\" style=\"fill:#e63946\" d=\"m {},{cy} a 3,3 0 0 1 -3,3 3,3 0 0 1 -3,-3 3,3 0 0 1 3,-3 3,3 0 0 1 3,3 z\"/>",
        cx + 3.0
    )
}

/// A joint marker is the template's circle or what an editor makes of it:
/// an `<ellipse>` marks its centre, a `<path>` (the circle as four arcs)
/// the centre of its bounding box, with the same offsets as the circles;
/// such a marker off its joint is refused like a circle, and any other
/// element, or a path that draws nothing, is refused as a marker.
#[test]
fn a_joint_marker_may_be_the_ellipse_or_path_an_editor_makes_of_a_circle() {
    let tmp = tempfile::tempdir().unwrap();
    let walker = draw_over(&template("rigs/walker.json", tmp.path()));
    let circles = bake_art("rigs/walker.json", &walker, tmp.path(), "circles");
    let offsets = common::art_marker_offsets(&circles.stdout);
    assert!(offsets.len() >= 20, "{}", circles.stdout);
    let ellipse = |id: &str, cx: f64, cy: f64| {
        format!("<ellipse id=\"{id}\" cx=\"{cx}\" cy=\"{cy}\" rx=\"4\" ry=\"2\" fill=\"#e63946\"/>")
    };
    for (tag, drawing) in [
        ("paths", markers_as(&walker, arcs)),
        ("ellipses", markers_as(&walker, ellipse)),
    ] {
        let art = bake_art("rigs/walker.json", &drawing, tmp.path(), tag);
        assert_eq!(
            common::art_marker_offsets(&art.stdout),
            offsets,
            "{tag}: the markers' offsets are the circles'"
        );
        same_figures("rigs/walker.json", &art, tmp.path());
        markers_hidden(&art.svg);
    }
    // a path marker 40 px off its joint
    let moved = markers_as(&walker, |id, cx, cy| {
        arcs(id, if id == "joint-shin_n" { cx + 40.0 } else { cx }, cy)
    });
    let line = refused("rigs/walker.json", &moved, &["\"joint-shin_n\""]);
    assert!((offset(&line) - 40.0).abs() < 0.02, "{line}");
    // not a circle's shape, or a path that marks no point
    for (marker, why) in [
        (
            "<rect id=\"joint-shin_n\" x=\"220\" y=\"190\" width=\"6\" height=\"6\"/>",
            "a joint marker must be a <circle> (or the <ellipse> or <path> an editor makes of one), found <rect>",
        ),
        ("<path id=\"joint-shin_n\" d=\"\"/>", "its d draws nothing"),
    ] {
        let drawing = markers_as(&walker, |id, cx, cy| {
            if id == "joint-shin_n" {
                marker.to_string()
            } else {
                arcs(id, cx, cy)
            }
        });
        refused("rigs/walker.json", &drawing, &["\"joint-shin_n\"", why]);
    }
}

#[test]
fn a_part_drawn_away_from_the_pose_is_refused_with_its_offset() {
    let tmp = tempfile::tempdir().unwrap();
    let walker = draw_over(&template("rigs/walker.json", tmp.path()));
    // the shin moved 40 px to the right: its joint (the knee) is off
    let line = refused(
        "rigs/walker.json",
        &with_attrs(&walker, "shin_n", "transform=\"translate(40 0)\""),
        &["\"shin_n\"", "px from the rig's phase-0 joint"],
    );
    assert!(offset(&line) > 20.0, "{line}");
    // the same in the flat drawing
    let line = refused(
        "rigs/walker.json",
        &with_attrs(&flatten(&walker), "shin_n", "transform=\"translate(40 0)\""),
        &["\"shin_n\""],
    );
    assert!(offset(&line) > 20.0, "{line}");
    // a joint marker 40 px off its joint
    let doc = Document::parse(&walker).unwrap();
    let m = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("joint-shin_n"))
        .unwrap();
    let cx = m.attribute("cx").unwrap();
    let moved = walker.replacen(
        &format!("id=\"joint-shin_n\" inkscape:label=\"joint-shin_n\" cx=\"{cx}\""),
        &format!(
            "id=\"joint-shin_n\" inkscape:label=\"joint-shin_n\" cx=\"{}\"",
            cx.parse::<f64>().unwrap() + 40.0
        ),
        1,
    );
    assert_ne!(moved, walker);
    let line = refused("rigs/walker.json", &moved, &["\"joint-shin_n\""]);
    assert!((offset(&line) - 40.0).abs() < 0.02, "{line}");
    // a cycling thigh (holding its shin) 40 px down
    let cyc = draw_over(&template("rigs/seed-nested.json", tmp.path()));
    let line = refused(
        "rigs/seed-nested.json",
        &with_attrs(&cyc, "thigh-near", "transform=\"translate(0 40)\""),
        &["\"thigh-near\"", "hip"],
    );
    assert!(offset(&line) > 20.0, "{line}");
    // a part inside a part of another branch of the tree: an arm in a thigh
    let flat = flatten(&walker);
    let doc = Document::parse(&flat).unwrap();
    let range = |id: &str| {
        doc.descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap()
            .range()
    };
    let (arm, thigh) = (range("uarm_n"), range("thigh_n"));
    assert!(arm.start > thigh.end);
    let close = thigh.end - "</g>".len();
    let moved = format!(
        "{}{}{}{}",
        &flat[..close],
        &flat[arm.clone()],
        &flat[close..arm.start],
        &flat[arm.end..]
    );
    refused("rigs/walker.json", &moved, &["\"uarm_n\"", "\"thigh_n\""]);
    // a missing bone is named, with the rig's bones
    let doc = Document::parse(&walker).unwrap();
    let g = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("farm_n"))
        .unwrap();
    let without = format!("{}{}", &walker[..g.range().start], &walker[g.range().end..]);
    refused("rigs/walker.json", &without, &["\"farm_n\"", "\"uarm_n\""]);
}

/// Seed 001 draws the far limb as the near limb's shape moved by a depth
/// offset (`translate(-6,-7)`). The far limb is in another phase, so at
/// t = 0 that shape is not where the far limb is: refused, naming the part,
/// never baked with the far foot off its target.
#[test]
fn a_far_limb_drawn_as_the_near_limb_plus_a_depth_offset_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let walker = draw_over(&template("rigs/walker.json", tmp.path()));
    let line = refused(
        "rigs/walker.json",
        &far_as_near(&walker, &["thigh_f", "shin_f"], &["thigh_n", "shin_n"]),
        &["far limb"],
    );
    assert!(
        line.contains("\"thigh_f\"") || line.contains("\"shin_f\""),
        "{line}"
    );
    assert!(offset(&line) > 6.0, "{line}");
    let cyc = draw_over(&template("rigs/seed-nested.json", tmp.path()));
    refused(
        "rigs/seed-nested.json",
        &far_as_near(
            &cyc,
            &["thigh-far", "shin-far"],
            &["thigh-near", "shin-near"],
        ),
        &["\"thigh-far\""],
    );
}

#[test]
fn preview_takes_art_and_clip() {
    if chromium_or_skip("preview").is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let drawn = draw_over(&template("rigs/walker.json", tmp.path()));
    let (res, png) = preview_art("rigs/walker.json", &drawn, tmp.path(), "walker");
    assert!(res.status.success(), "{res:?}");
    assert!(fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    let res = rigbake()
        .args([
            "preview",
            "rigs/jump.json",
            "--frames",
            "2",
            "--clip",
            "idle",
            "-o",
        ])
        .arg(&png)
        .output()
        .unwrap();
    assert!(res.status.success(), "{res:?}");
    // a clip the rig does not have, and --art on the smil route: one line, exit 2
    for args in [
        vec!["preview", "rigs/jump.json", "--clip", "nope", "-o"],
        vec![
            "preview",
            "rigs/walker.json",
            "--route",
            "smil",
            "--art",
            "rigs/walker.json",
            "-o",
        ],
    ] {
        let res = rigbake()
            .args(&args)
            .arg(tmp.path().join("x.png"))
            .output()
            .unwrap();
        assert_eq!(res.status.code(), Some(2), "{res:?}");
        assert_eq!(
            String::from_utf8_lossy(&res.stderr)
                .trim_end()
                .lines()
                .count(),
            1
        );
        assert!(!tmp.path().join("x.png").exists());
    }
}

/// `<use>` that refers to its own part (a cycle), in a part of 50,000
/// shapes: a circular reference draws nothing and the pose check does not
/// follow it, so the bake ends quickly and bakes.
#[test]
fn a_use_cycle_in_a_big_part_is_read_a_bounded_number_of_times() {
    let tmp = tempfile::tempdir().unwrap();
    let walker = draw_over(&template("rigs/walker.json", tmp.path()));
    let tag = "<g id=\"spine\" inkscape:label=\"spine\">";
    assert_eq!(walker.matches(tag).count(), 1);
    let big = format!(
        "{tag}{}<use href=\"#spine\"/><use href=\"#spine\" x=\"1\"/>",
        "<path d=\"M0 0L1 1\"/>".repeat(50_000)
    );
    let drawing = walker.replace(tag, &big);
    let t0 = std::time::Instant::now();
    let art = bake_art("rigs/walker.json", &drawing, tmp.path(), "cycle");
    assert!(
        t0.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        t0.elapsed()
    );
    assert!(art.svg.len() > drawing.len());
}

/// A named `ik` entry's bone drawn under both of its names (the bone's
/// and the chain's) is refused naming both parts and their lines.
#[test]
fn a_bone_drawn_under_both_its_names_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let chain = draw_over(&template("rigs/path-foot.json", tmp.path()));
    let both = chain.replace(
        "</svg>",
        "<path id=\"near_thigh\" d=\"M200 100L224.01 186.74\" stroke=\"#000\"/>\n</svg>",
    );
    let line = refused(
        LOWERED,
        &both,
        &[
            "bone \"near_thigh\" is drawn twice",
            "\"thigh-near\" (line",
            "keep one",
        ],
    );
    assert!(line.contains("\"near_thigh\" (line"), "{line}");
}

/// The bone-tree path refuses SMIL that moves a part as the cycling one
/// does (`tests/art.rs` holds the family): here an `<animateTransform>`
/// aimed at a thigh.
#[test]
fn smil_that_moves_a_bone_part_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let chain = draw_over(&template("rigs/path-foot.json", tmp.path()));
    let moved = chain.replace(
        "</svg>",
        "<animateTransform href=\"#thigh-near\" attributeName=\"transform\" type=\"translate\" to=\"50 0\" dur=\"1s\"/>\n</svg>",
    );
    refused(
        LOWERED,
        &moved,
        &[
            "moved by the drawing's <animateTransform> (line",
            "cannot follow",
        ],
    );
}

/// The hand-drawn rider made for the cycling rig (docs/examples/rider.svg,
/// which draws no crank arm of its own: its `crank` group holds both arms
/// and the chainring) binds to the tree the rig lowers to: each part is
/// wrapped inside the group of the bone it names (the `part` of a crank or
/// pedal bone, the bone `crank`, a named entry's thigh and shin).
#[test]
fn the_cycling_example_drawing_binds_to_its_lowered_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let drawing = fs::read_to_string(common::repo("docs/examples/rider.svg")).unwrap();
    let art = bake_art(LOWERED_CYCLING, &drawing, tmp.path(), "rider");
    let doc = Document::parse(&art.svg).unwrap();
    let fig = load(LOWERED_CYCLING).figure;
    for (part, bone) in [
        ("pedal-near", "near_pedal"),
        ("pedal-far", "far_pedal"),
        ("crank", "near_crank"),
        ("thigh-near", "near_thigh"),
        ("shin-far", "far_shin"),
    ] {
        assert!(fig.bones.iter().any(|b| b.name == bone), "{bone}");
        let node = doc
            .descendants()
            .find(|&n| drawn_id(n) == Some(part))
            .unwrap_or_else(|| panic!("{part} kept"));
        let class = format!("-b-{bone}");
        let carried = node.ancestors().any(|a| {
            a.attribute("class")
                .is_some_and(|c| c.split(' ').any(|c| c.ends_with(&class)))
        });
        assert!(carried, "{part} is not inside the group of bone {bone}");
    }
}

/// A cycling rig with a `torso` loads as the tree it lowers into, where
/// its head is a bone of its own: a drawing made as cycling templates
/// drew it (head and torso in one `torso` group, no `head` group) is
/// refused, on the rig and on its lowered tree alike, naming `head`; with
/// its head moved into a `head` group drawn from the neck, as
/// `docs/cli.md` says, it bakes on both.
#[test]
fn a_cycling_drawing_with_a_torso_needs_a_head_group_on_its_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let lowered = tmp.path().join("lowered.json");
    let res = common::art::rigbake()
        .args(["lower", "rigs/cyclist-scarf.json", "-o"])
        .arg(&lowered)
        .output()
        .unwrap();
    assert!(res.status.success(), "{res:?}");
    let template = template("rigs/cyclist-scarf.json", tmp.path());
    // the template's head group, the neck line and the head in it
    let open = "<g id=\"head\" inkscape:label=\"head\">";
    let at = template.find(open).expect("the template's head group");
    let close = at + template[at..].find("</g>").unwrap() + "</g>".len();
    let group = &template[at..close];
    let head = group
        .lines()
        .find(|l| l.trim_start().starts_with("<circle"))
        .expect("the template's head")
        .trim();
    assert_eq!(template.matches(head).count(), 1, "the template's head");
    // as the cycling template drew it: the head alone, in the torso group
    let drawing = template.replace(group, head);
    assert!(!drawing.contains("id=\"head\"") && drawing.contains("<g id=\"torso\""));
    let split = drawing.replace(
        head,
        &format!(
            "<g id=\"head\"><line x1=\"392\" y1=\"150\" x2=\"402.32\" y2=\"122.9\" stroke=\"#555\" stroke-width=\"14\"/>{head}</g>"
        ),
    );
    for rig in ["rigs/cyclist-scarf.json", lowered.to_str().unwrap()] {
        refused(rig, &drawing, &["\"head\"", "the rig's bone"]);
        bake_art(rig, &split, tmp.path(), "split");
    }
}

/// A bone's `parts` are checked once, where the bones are: a name a
/// drawing cannot give, the shape of a template's own ids (a layer, a
/// guide, a marker: a template would hold the id twice), a bone's name, another bone's
/// part or one of its own twice, too many names: each refused at that
/// bone's `parts[k]`, naming the value; good ones load.
#[test]
fn a_bad_bone_part_is_refused_naming_the_field_and_value() {
    let text = fs::read_to_string(common::repo(LOWERED_CYCLING)).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    // (its legs drawn by rotations on smil: a limb written as a morph
    // takes no parts, `tests/ik_morph.rs`)
    for entry in v["ik"].as_array_mut().unwrap() {
        entry.as_object_mut().unwrap().remove("smil");
    }
    // the last bone, so every other bone's parts come first
    let last = v["bones"].as_array().unwrap().len() - 1;
    let with_parts = |parts: &[&str]| {
        let mut v = v.clone();
        v["bones"][last]["parts"] = serde_json::json!(parts);
        v.to_string()
    };
    let taken = v["bones"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|b| b["parts"][0].as_str())
        .expect("a lowered cycling rig names its cranks' and pedals' parts")
        .to_string();
    let long = "p".repeat(65);
    for (parts, k, why) in [
        (vec!["2wheels"], 0, "must start with a letter"),
        (vec!["a b"], 0, "must start with a letter"),
        (vec![long.as_str()], 0, "at most 64"),
        // the ids a template gives its layers, guides and markers
        (vec!["ok", "joint-near"], 1, "as the ids `rigbake template`"),
        (vec!["tip-x"], 0, "as the ids `rigbake template`"),
        (vec!["layer-bone-tree"], 0, "as the ids `rigbake template`"),
        (vec!["layer-view"], 0, "as the ids `rigbake template`"),
        (vec!["guide-ground"], 0, "as the ids `rigbake template`"),
        (vec!["far_thigh"], 0, "already the name of bones["),
        (vec![taken.as_str()], 0, "already a part of bones["),
        (
            vec!["wheel", "wheel"],
            1,
            &format!("already a part of bones[{last}]"),
        ),
    ] {
        let err = rig::load(&with_parts(&parts)).unwrap_err().to_string();
        assert!(
            err.contains(&format!("bones[{last}].parts[{k}]")) && err.contains(why),
            "{parts:?}: {err}"
        );
        if parts[k].len() < 20 {
            assert!(err.contains(parts[k]), "{parts:?}: {err}");
        }
    }
    let nine = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
    let err = rig::load(&with_parts(&nine)).unwrap_err().to_string();
    assert!(
        err.contains(&format!("bones[{last}].parts")) && err.contains("at most 8"),
        "{err}"
    );
    rig::load(&with_parts(&["hip-of-the-far-leg.v2", "Hip_2"])).expect("good parts load");
}

/// A drawn shape named after what the clip animates but a drawing cannot
/// follow (a Verlet chain, the ground) is kept and noted: it stays still,
/// and the report says so with its line (it once baked without a word).
/// An untouched template names neither, and bakes without the note.
#[test]
fn a_shape_named_after_a_chain_or_the_ground_is_noted_as_still() {
    let tmp = tempfile::tempdir().unwrap();
    for (rig, names) in [
        ("rigs/ponytail.json", &["ponytail"][..]),
        ("rigs/walker.json", &["ground"][..]),
        ("rigs/runner.json", &["hair", "ground"][..]),
    ] {
        let tpl = template(rig, tmp.path());
        let plain = bake_art(rig, &tpl, tmp.path(), "plain");
        let notes = |a: &Art| -> Vec<String> {
            a.report["notes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap().to_string())
                .filter(|n| n.starts_with("--art: line"))
                .collect()
        };
        assert_eq!(notes(&plain), Vec::<String>::new(), "{rig}");
        let shapes: String = names
            .iter()
            .map(|n| format!("<g inkscape:label=\"{n}\"><path d=\"M 100 100 L 110 110\" stroke=\"#000\"/></g>\n"))
            .collect();
        let drawn = tpl.replacen("</svg>", &format!("{shapes}</svg>"), 1);
        let art = bake_art(rig, &drawn, tmp.path(), "named");
        let got = notes(&art);
        assert_eq!(got.len(), names.len(), "{rig}: {got:?}");
        for (n, note) in names.iter().zip(&got) {
            assert!(
                note.contains(&format!("{n:?} is named after the rig's")),
                "{note}"
            );
            assert!(note.contains("stays still"), "{note}");
        }
        assert!(art.stdout.contains("note: --art: line"), "{}", art.stdout);
    }
}

/// The template's guides (a target's path, a chain's path, the ground
/// line, a pedal's circle: every `guide-` element), left showing by an
/// illustrator who showed the guides layer to trace, are hidden in the
/// output as the joint markers are (they stayed drawn, still, over the
/// animation); every guide of every kind of template.
#[test]
fn guides_left_showing_are_hidden_in_the_output() {
    let tmp = tempfile::tempdir().unwrap();
    let mut guides = 0;
    for rig in [
        "rigs/walker.json",
        "rigs/runner.json",
        "rigs/seed-nested.json",
    ] {
        let tpl = template(rig, tmp.path());
        let shown = tpl.replace(
            "inkscape:label=\"guides\" style=\"display:none\"",
            "inkscape:label=\"guides\"",
        );
        assert_ne!(shown, tpl, "{rig}: no hidden guides layer");
        let art = bake_art(rig, &shown, tmp.path(), "shown");
        let doc = Document::parse(&art.svg).unwrap();
        for g in doc
            .descendants()
            .filter(|&n| drawn_id(n).is_some_and(|id| id.starts_with("guide-")))
        {
            let hidden = g.ancestors().any(|a| a.attribute("opacity") == Some("0"));
            assert!(hidden, "{rig}: {:?} is drawn", g.attribute("id"));
            guides += 1;
        }
    }
    assert!(guides >= 6, "{guides} guides checked");
}
