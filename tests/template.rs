//! `rigbake template RIG`: every example rig gets a well-formed starter
//! drawing whose labelled parts sit where the library's phase-0 pose puts
//! them (judged against FK, a cycling rig file's crank and legs and the
//! baked clip's own probes at t = 0, not against the template code), with a
//! hidden guide layer; a cycling template edited as an illustrator would
//! bakes back with `bake --art` to the plain bake's figures (and, with
//! Chromium, the drawn parts follow the clip's probes within 0.05 px);
//! bad input is one line, exit 2, nothing written.

mod common;

use assert_cmd::Command;
use common::art::draw_over;
use common::{refused, repo, snapshot};
use rigbake::bake::BakeOptions;
use rigbake::browser::{self, SeekMode};
use rigbake::geom::{AffineExt, Vec2, Vec2Ext};
use rigbake::{Route, bake_rig, measure, rig};
use roxmltree::{Document, Node};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;

const INKSCAPE: &str = "http://www.inkscape.org/namespaces/inkscape";
const SODIPODI: &str = "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd";
/// Written coordinates have two decimals; a point rounded twice (joint and
/// offset) may be off by up to √2 · 0.005 px.
const ROUND_PX: f64 = 0.01;

fn rigs() -> Vec<std::path::PathBuf> {
    let v = common::example_rigs();
    assert!(v.len() >= 10, "{v:?}");
    v
}

fn load(path: &std::path::Path) -> rig::Rig {
    rig::load(&fs::read_to_string(path).unwrap()).unwrap()
}

fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(repo(""));
    c
}

fn num(n: &Node, a: &str) -> f64 {
    n.attribute(a)
        .unwrap_or_else(|| panic!("<{}> lacks {a}", n.tag_name().name()))
        .parse()
        .unwrap()
}

/// The part group `name`: an element with that id *and* that
/// inkscape:label; exactly one.
fn part<'a>(doc: &'a Document, name: &str) -> Node<'a, 'a> {
    let found: Vec<Node> = doc
        .descendants()
        .filter(|n| n.attribute("id") == Some(name))
        .collect();
    assert_eq!(found.len(), 1, "id {name}");
    let g = found[0];
    assert_eq!(g.tag_name().name(), "g", "{name}");
    assert_eq!(
        g.attribute((INKSCAPE, "label")),
        Some(name),
        "label of {name}"
    );
    g
}

/// The endpoints of the first `<line>` directly in a part group.
fn ends(doc: &Document, name: &str) -> (Vec2, Vec2) {
    let l = part(doc, name)
        .children()
        .find(|c| c.has_tag_name("line"))
        .unwrap_or_else(|| panic!("{name} has no line"));
    (
        Vec2::new(num(&l, "x1"), num(&l, "y1")),
        Vec2::new(num(&l, "x2"), num(&l, "y2")),
    )
}

fn near(what: &str, got: Vec2, want: Vec2, tol: f64) {
    assert!(
        got.dist(want) <= tol,
        "{what}: template ({}, {}) vs library ({}, {}): {} px",
        got.x,
        got.y,
        want.x,
        want.y,
        got.dist(want)
    );
}

fn inside(inner: Node, outer: Node) -> bool {
    inner.ancestors().skip(1).any(|a| a == outer)
}

/// The marker circle `name` on the guide layer.
fn marker(doc: &Document, guides: Node, name: &str) -> Vec2 {
    let m = doc
        .descendants()
        .find(|n| n.attribute("id") == Some(name))
        .unwrap_or_else(|| panic!("no marker {name}"));
    assert!(m.has_tag_name("circle") && inside(m, guides), "{name}");
    Vec2::new(num(&m, "cx"), num(&m, "cy"))
}

/// Every rig: well-formed, the namespaces declared, ids unique, Inkscape
/// layers at the top level, a hidden `guides` layer holding the joint
/// markers, and every part where the library's phase-0 pose puts it.
#[test]
fn every_rig_gets_a_labelled_template_in_its_phase0_pose() {
    let mut kinds = BTreeSet::new();
    // `rigs/path-foot.json` (`ik_chains`) loads as a tree whose `ik`
    // entries are named (its parts `thigh-<chain>`, its effector probes
    // `<chain>-ankle`); the same tree spelled as bones gets the same template
    for path in rigs()
        .into_iter()
        .chain([repo("tests/fixtures/lowering/path-foot.json")])
    {
        let text = fs::read_to_string(&path).unwrap();
        kinds.insert(check_template(&path.display().to_string(), &text));
    }
    assert_eq!(kinds.len(), 2, "every rig kind covered: {kinds:?}");
    let of = |p: &str| rigbake::template::template(&load(&repo(p)));
    assert_eq!(
        of("rigs/path-foot.json"),
        of("tests/fixtures/lowering/path-foot.json")
    );
}

/// Variants whose phase-0 pose is not the drawn rest pose: root motion
/// away from zero at t = 0 (with a spring and hair), a crank that starts
/// turned, counter-clockwise, with a pedal offset.
#[test]
fn templates_follow_root_motion_and_crank_start() {
    let read = |p: &str| -> serde_json::Value {
        serde_json::from_str(&fs::read_to_string(repo(p)).unwrap()).unwrap()
    };
    let mut pony = read("rigs/ponytail.json");
    pony["root"] = serde_json::json!({
        "x": { "keys": [[0, 17], [0.5, -9], [1, 17]], "ease": "smoothstep" },
        "y": { "keys": [[0, 25], [0.5, 12], [1, 25]], "ease": "smoothstep" }
    });
    let rig = rig::load(&pony.to_string()).unwrap();
    let moved = rigbake::figure::fk::root_matrix(&rig.figure.clips[0].root, 0.0).apply(Vec2::ZERO);
    assert!(moved.dist(Vec2::new(17.0, 25.0)) < 1e-9, "{moved:?}");
    assert_eq!(
        check_template("ponytail, moved", &pony.to_string()),
        "bones"
    );
    let mut cyc = read("rigs/recumbent.json");
    cyc["crank"]["start_deg"] = 137.into();
    assert_eq!(
        check_template("recumbent, turned", &cyc.to_string()),
        "cycling"
    );
}

/// Checks the template of one rig (its file's text; see the test above);
/// returns its kind: "cycling" (`crank` + `legs`, loaded as the bone tree
/// it lowers into, so checked as a tree and then leg by leg against the
/// rig file), else "bones".
fn check_template(name: &str, text: &str) -> &'static str {
    let file = rig::parse(text).unwrap();
    let rig = rig::load(text).unwrap();
    let kind;
    let svg = rigbake::template::template(&rig);
    let name = name.to_string();
    let doc = Document::parse(&svg).unwrap_or_else(|e| panic!("{name}: {e}"));
    let root = doc.root_element();
    assert!(root.has_tag_name(("http://www.w3.org/2000/svg", "svg")));
    assert_eq!(root.lookup_namespace_uri(Some("inkscape")), Some(INKSCAPE));
    assert_eq!(root.lookup_namespace_uri(Some("sodipodi")), Some(SODIPODI));
    assert!(
        root.children()
            .any(|c| c.has_tag_name("desc") && c.text().is_some_and(|t| t.len() > 80)),
        "{name}: no <desc>"
    );
    let mut ids = BTreeSet::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if let Some(id) = n.attribute("id") {
            assert!(ids.insert(id), "{name}: id {id} twice");
        }
    }
    let layers: Vec<Node> = root
        .children()
        .filter(|c| c.attribute((INKSCAPE, "groupmode")) == Some("layer"))
        .collect();
    assert!(layers.len() >= 2, "{name}");
    for l in &layers {
        assert!(l.attribute((INKSCAPE, "label")).is_some(), "{name}");
    }
    let guides: Vec<&Node> = layers
        .iter()
        .filter(|l| l.attribute((INKSCAPE, "label")) == Some("guides"))
        .collect();
    assert_eq!(guides.len(), 1, "{name}");
    let guides = *guides[0];
    assert_eq!(guides.attribute("style"), Some("display:none"), "{name}");
    // everything on the guide layer is a marker or a guide line, and no
    // part group is hidden with it
    assert!(guides.descendants().skip(1).all(|n| !n.has_tag_name("g")));

    // the bake, for its probes at t = 0 and their reported errors
    let baked = bake_rig(
        &rig,
        &BakeOptions::resolve(&rig, Route::Css, None, None, None),
    );
    let at0 = measure::probes_at(&baked.clip, 0.0);
    let err: BTreeMap<String, f64> = baked
        .report
        .legs
        .iter()
        .map(|l| (l.name.clone(), l.max_error_px))
        .collect();
    let probe = |p: &str| {
        let v = at0.get(p).unwrap_or_else(|| panic!("{name}: no probe {p}"));
        *v
    };

    {
        let fig = &rig.figure;
        kind = "bones";
        // FK of the first clip at t = 0 through the root motion and springs
        let clip = &fig.clips[0];
        let tips = rigbake::figure::fk::tips(fig, clip, 0.0);
        for (b, bone) in fig.bones.iter().enumerate() {
            let (own, joint_marker, tip_marker) = fig.part_names(b);
            let g = part(&doc, &own);
            if let Some(p) = bone.parent {
                let (parent, _, _) = fig.part_names(p);
                assert!(inside(g, part(&doc, &parent)), "{name}: {own}");
            }
            let spring = rigbake::figure::spring::offset(fig, b, 0.0);
            let (j, t) = ends(&doc, &own);
            near(&format!("{name} {own} tip"), t, tips[b] + spring, ROUND_PX);
            assert!(
                (j.dist(t) - bone.length).abs() <= 2.0 * ROUND_PX,
                "{name} {own}"
            );
            // the tip marker, or (an upper IK bone's tip) its lower bone's
            // joint marker
            let tip_marker = tip_marker.unwrap_or_else(|| {
                let k = fig
                    .ik
                    .iter()
                    .find(|k| k.upper == b)
                    .expect("only IK uppers");
                fig.part_names(k.lower).1
            });
            near(
                &format!("{name} {tip_marker}"),
                marker(&doc, guides, &tip_marker),
                t,
                1e-9,
            );
            near(
                &format!("{name} {joint_marker}"),
                marker(&doc, guides, &joint_marker),
                j,
                1e-9,
            );
            // the written clip's own tip probe at t = 0 (only the first
            // clip is on the timeline at t = 0; a bone of length 0 has
            // none, its tip being its joint, checked above)
            let Some(tip_probe) = baked.clip.bone_tips()[b].clone() else {
                assert!(!fig.has_tip_probe(b), "{name} {own}");
                continue;
            };
            let e = baked
                .report
                .bones
                .iter()
                .find(|r| r.clip == clip.name && r.name == bone.name)
                .map_or(0.0, |r| r.max_error_px);
            near(
                &format!("{name} {} vs the bake", bone.name),
                t,
                probe(&tip_probe),
                e + ROUND_PX,
            );
        }
        // every Verlet chain segment from particle j to j + 1 of the
        // chain's pose at t = 0, inside the segment before it, on the
        // chain's layer; its far end on the written clip's particle probe
        // (within the chain's reported deviation)
        for ch in &fig.chains {
            let p = rigbake::figure::chain::phase0(ch);
            let dev = baked
                .report
                .chains
                .iter()
                .filter(|r| r.name.ends_with(&format!(":{}", ch.name)) || r.name == ch.name)
                .map(|r| r.max_deviation_px)
                .fold(0.0, f64::max);
            let layer = part(&doc, &format!("{}-0", ch.name)).parent().unwrap();
            assert_eq!(
                layer.attribute((INKSCAPE, "label")),
                Some(format!("chain {}", ch.name).as_str()),
                "{name}"
            );
            for j in 0..p.len() - 1 {
                let own = rigbake::figure::chain::segment_part(&ch.name, j);
                if j > 0 {
                    let before = rigbake::figure::chain::segment_part(&ch.name, j - 1);
                    assert!(
                        inside(part(&doc, &own), part(&doc, &before)),
                        "{name}: {own}"
                    );
                }
                let (a, b) = ends(&doc, &own);
                near(&format!("{name} {own} joint"), a, p[j], ROUND_PX);
                near(&format!("{name} {own} tip"), b, p[j + 1], ROUND_PX);
                near(
                    &format!("{name} joint-{own}"),
                    marker(&doc, guides, &format!("joint-{own}")),
                    a,
                    1e-9,
                );
                near(
                    &format!("{name} {own} vs the bake"),
                    b,
                    probe(&rigbake::figure::chain::probe(ch, j + 1)),
                    dev + ROUND_PX,
                );
            }
        }
        // every moving IK target's path over the first clip, in user space
        for (i, target) in clip.targets.iter().enumerate() {
            let id = format!("guide-target-{}", fig.ik_stem(i));
            let g = doc
                .descendants()
                .find(|n| n.attribute("id") == Some(id.as_str()));
            if matches!(target, rigbake::trajectory::Trajectory::Fixed(_)) {
                assert!(g.is_none(), "{name}: {id} for a fixed target");
                continue;
            }
            let g = g.unwrap_or_else(|| panic!("{name}: no {id}"));
            assert!(
                g.has_tag_name("polygon") && inside(g, guides),
                "{name}: {id}"
            );
            let points: Vec<Vec2> = g
                .attribute("points")
                .unwrap()
                .split_whitespace()
                .map(|p| {
                    let (x, y) = p.split_once(',').unwrap();
                    Vec2::new(x.parse().unwrap(), y.parse().unwrap())
                })
                .collect();
            assert_eq!(points.len(), 64, "{name}: {id}");
            for (k, p) in points.iter().enumerate() {
                let want = target.at(k as f64 / 64.0);
                near(&format!("{name} {id} point {k}"), *p, want, ROUND_PX);
            }
        }
    }
    let Some(crank) = &file.crank else {
        return kind;
    };
    // a cycling rig, leg by leg: its parts are the lowered tree's (the
    // named entry's thigh-<leg> and shin-<leg>, the crank and pedal bones'
    // crank-<leg> and pedal-<leg>, each of those a dot at its joint)
    let v = |p: [f64; 2]| Vec2::new(p[0], p[1]);
    assert!(!file.legs.is_empty(), "{name}");
    for leg in &file.legs {
        let ln = &leg.name;
        let d = v(leg.depth_offset);
        let centre = v(crank.center) + d;
        let thigh = part(&doc, &format!("thigh-{ln}"));
        let shin = part(&doc, &format!("shin-{ln}"));
        let pedal = part(&doc, &format!("pedal-{ln}"));
        assert!(inside(shin, thigh) && !inside(pedal, thigh), "{name} {ln}");
        let (h, k) = ends(&doc, &format!("thigh-{ln}"));
        let (k2, a) = ends(&doc, &format!("shin-{ln}"));
        near(&format!("{name} {ln} hip"), h, v(leg.hip) + d, ROUND_PX);
        assert_eq!(k, k2, "{name} {ln} knee");
        let e = err[ln];
        let target = probe(&format!("{ln}-target"));
        near(
            &format!("{name} {ln} ankle vs the bake"),
            a,
            probe(&format!("{ln}-ankle")),
            e + ROUND_PX,
        );
        near(
            &format!("{name} {ln} ankle on the pedal"),
            a,
            target,
            e + ROUND_PX,
        );
        // the crank arm turns about the crank centre; the pedal is at the
        // axle, a crank radius from it, the target less the pedal offset
        let (c0, c1) = ends(&doc, &format!("crank-{ln}"));
        near(&format!("{name} {ln} crank centre"), c0, centre, ROUND_PX);
        near(&format!("{name} {ln} crank centre"), c1, centre, ROUND_PX);
        let (p0, p1) = ends(&doc, &format!("pedal-{ln}"));
        assert_eq!(p0, p1, "{name} {ln} pedal");
        near(
            &format!("{name} {ln} pedal"),
            p0 + v(leg.pedal_offset),
            target,
            ROUND_PX,
        );
        assert!(
            (p0.dist(centre) - crank.radius).abs() <= 2.0 * ROUND_PX,
            "{name} {ln}: pedal {} px from the crank centre",
            p0.dist(centre)
        );
        // a leg in phase with the crank starts at its `start_deg`
        if leg.phase_deg == 0.0 {
            let at = crank.start_deg.to_radians();
            let want = centre + Vec2::new(at.cos(), at.sin()) * crank.radius;
            near(&format!("{name} {ln} crank start"), p0, want, ROUND_PX);
        }
        for (j, p) in [("hip", h), ("knee", k), ("ankle", a)] {
            near(j, marker(&doc, guides, &format!("joint-{j}-{ln}")), p, 1e-9);
        }
    }
    "cycling"
}

/// The command writes `<name>.template.svg` into `-o DIR` (created), the
/// library's bytes, the same bytes every run.
#[test]
fn command_writes_the_template_into_the_directory() {
    let tmp = tempfile::tempdir().unwrap();
    for path in rigs() {
        let out = tmp.path().join("new/dir");
        let res = rigbake()
            .arg("template")
            .arg(&path)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            res.status.success(),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
        let rig = load(&path);
        let written = fs::read_to_string(out.join(format!("{}.template.svg", rig.name))).unwrap();
        assert_eq!(written, rigbake::template::template(&rig));
    }
    let before = snapshot(tmp.path());
    for path in rigs() {
        let res = rigbake()
            .arg("template")
            .arg(&path)
            .arg("-o")
            .arg(tmp.path().join("new/dir"))
            .output()
            .unwrap();
        assert!(res.status.success());
    }
    assert_eq!(snapshot(tmp.path()), before);
    assert_eq!(snapshot(tmp.path()).len(), rigs().len());
}

/// Every clip of every rig with `clips`: `template --clip C` draws the
/// pose `bake --art --clip C` checks against, so its untouched template
/// bakes (`<name>-<clip>.template.svg`, the rig `load_clip` makes); the
/// first clip's template baked for a clip whose pose differs is refused
/// with the hint to draw it with that `--clip`. (`template` drew only the
/// first clip: no template baked for stickman's `run` or `jump`.) A rig
/// without `clips` is refused in one line.
#[test]
fn every_clip_gets_a_template_its_art_bake_takes() {
    let tmp = tempfile::tempdir().unwrap();
    let mut clips_seen = 0;
    let mut refused_seen = 0;
    for path in rigs() {
        let text = fs::read_to_string(&path).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let Some(clips) = v["clips"].as_array() else {
            continue;
        };
        let name = v["name"].as_str().unwrap();
        let run = |args: &[&str]| rigbake().args(args).output().unwrap();
        let p = path.to_str().unwrap();
        let dir = tmp.path().to_str().unwrap();
        assert!(run(&["template", p, "-o", dir]).status.success());
        let first = format!("{dir}/{name}.template.svg");
        for clip in clips {
            let c = clip["name"].as_str().unwrap();
            clips_seen += 1;
            let res = run(&["template", p, "--clip", c, "-o", dir]);
            assert!(res.status.success(), "{p} {c}: {res:?}");
            let tpl = format!("{dir}/{name}-{c}.template.svg");
            let want = rigbake::template::template(&rig::load_clip(&text, c).unwrap());
            assert_eq!(fs::read_to_string(&tpl).unwrap(), want, "{p} {c}");
            let out = format!("{dir}/out");
            let res = run(&["bake", p, "--clip", c, "--art", &tpl, "-o", &out, "-q"]);
            assert!(res.status.success(), "{p} {c}: {res:?}");
            let res = run(&["bake", p, "--clip", c, "--art", &first, "-o", &out, "-q"]);
            if !res.status.success() {
                refused_seen += 1;
                common::refused(&res, &["phase-0", "--clip"]);
            }
        }
    }
    assert!(clips_seen >= 5, "{clips_seen} clips");
    assert!(refused_seen >= 1, "no clip's pose differs from the first's");
    // without --clip, --art bakes (and reports) the first clip only, as
    // --clip FIRST does, with a note naming the others: the drawing plays
    // one clip, and the file holds no class switch (the report named
    // every clip's bones, and a page setting another clip's class saw
    // nothing move)
    for (path, first, others) in [
        ("rigs/stickman.json", "walk", "run, jump"),
        ("rigs/jump.json", "jump", "idle"),
    ] {
        let text = fs::read_to_string(path).unwrap();
        let name = rig::load(&text).unwrap().name;
        let dir = tmp.path().join(format!("plain-{name}"));
        let tpl = tmp.path().join(format!("{name}.template.svg"));
        let res = rigbake()
            .args(["bake", path, "--art"])
            .arg(&tpl)
            .arg("-o")
            .arg(&dir)
            .arg("--report")
            .arg(tmp.path().join("r.json"))
            .output()
            .unwrap();
        assert!(res.status.success(), "{res:?}");
        let out = dir.join(format!("{name}-{first}.svg"));
        let svg = fs::read_to_string(&out).unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(tmp.path().join("r.json")).unwrap()).unwrap();
        // (one report: one object)
        let r = &report;
        assert_eq!(r["rig"], format!("{name}-{first}"));
        for b in r["bones"].as_array().unwrap() {
            assert_eq!(b["clip"], first, "{path}");
        }
        let note = r["notes"][0].as_str().unwrap();
        assert!(
            note.starts_with("--art: a drawing plays one clip"),
            "{note}"
        );
        assert!(note.contains(others), "{note}");
        assert!(
            !svg.contains("-clip-"),
            "{path}: a class switch in a one-clip file"
        );
        // the same bytes as with --clip FIRST
        let with = tmp.path().join(format!("with-{name}.svg"));
        let res = rigbake()
            .args(["bake", path, "--clip", first, "--art"])
            .arg(&tpl)
            .arg("-o")
            .arg(&with)
            .output()
            .unwrap();
        assert!(res.status.success(), "{res:?}");
        assert_eq!(fs::read_to_string(&with).unwrap(), svg, "{path}");
    }
    let res = rigbake()
        .args(["template", "rigs/seed-nested.json", "--clip", "x", "-o"])
        .arg(tmp.path())
        .output()
        .unwrap();
    common::refused(&res, &["seed-nested.json", "clips", "--clip \"x\""]);
}

/// Unknown rig file, bad JSON, an invalid rig, `-o` naming a file: exit 2,
/// one line naming the file (and the field), nothing written.
#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bad_json = tmp.path().join("bad.json");
    fs::write(&bad_json, "{ \"name\": ").unwrap();
    let invalid = tmp.path().join("invalid.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(repo("rigs/seed-nested.json")).unwrap()).unwrap();
    v["legs"][0]["thigh"] = (-3).into();
    fs::write(&invalid, v.to_string()).unwrap();
    let cases: [(&std::path::Path, &[&str]); 3] = [
        (&tmp.path().join("missing.json"), &["missing.json"]),
        (&bad_json, &["bad.json"]),
        (&invalid, &["invalid.json", "legs[0].thigh", "-3"]),
    ];
    for (rig, needles) in cases {
        let res = rigbake()
            .arg("template")
            .arg(rig)
            .arg("-o")
            .arg(&out)
            .output()
            .unwrap();
        refused(&res, needles);
        assert!(!out.exists(), "{}", rig.display());
    }
    // an existing file not named .svg is no directory to write into
    let file = tmp.path().join("file.txt");
    fs::write(&file, "x").unwrap();
    let res = rigbake()
        .args(["template", "rigs/seed-nested.json", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    refused(&res, &["file.txt", "-o", "is a file"]);
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    assert!(!out.exists());
    // while a name ending in .svg is the file to write, as for `bake -o`
    // (it made a directory of that name)
    let svg = tmp.path().join("mine.svg");
    let res = rigbake()
        .args(["template", "rigs/seed-nested.json", "-o"])
        .arg(&svg)
        .output()
        .unwrap();
    assert!(res.status.success(), "{res:?}");
    let want = rigbake::template::template(&load(&repo("rigs/seed-nested.json")));
    assert_eq!(fs::read_to_string(&svg).unwrap(), want);
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

/// template → draw → `bake --art` for every cycling rig (its template and
/// binding the bone tree's it lowers into): the report is the plain
/// bake's (`check --format json`, per probe within 0.05 px), every joint
/// marker of the template is on the rig's joint (the `art:` lines), and in
/// Chromium the drawn shin ends, knees, pedals and crank arms follow the
/// clip's probes within 0.05 px over a period, with the ankle–pedal
/// distance within 0.05 px of the plain bake's reported maximum.
#[test]
fn cycling_template_round_trips_through_bake_art() {
    let chromium = browser::find_chromium();
    if chromium.is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no Chromium found"
        );
        eprintln!("note: no Chromium found; the round trip is checked without a browser");
    }
    let mut jobs = Vec::new();
    let tmp = tempfile::tempdir().unwrap();
    for path in rigs() {
        let file = rig::parse(&fs::read_to_string(&path).unwrap()).unwrap();
        if file.crank.is_none() || file.legs.is_empty() {
            continue;
        }
        let rig = load(&path);
        let res = rigbake()
            .arg("template")
            .arg(&path)
            .arg("-o")
            .arg(tmp.path())
            .output()
            .unwrap();
        assert!(res.status.success());
        let tpl = tmp.path().join(format!("{}.template.svg", rig.name));
        let drawing = tmp.path().join(format!("{}.drawn.svg", rig.name));
        fs::write(&drawing, draw_over(&fs::read_to_string(&tpl).unwrap())).unwrap();
        let animated = tmp.path().join(format!("{}.art.svg", rig.name));
        let report = tmp.path().join(format!("{}.json", rig.name));
        let res = rigbake()
            .args(["bake"])
            .arg(&path)
            .arg("--art")
            .arg(&drawing)
            .arg("-o")
            .arg(&animated)
            .arg("--report")
            .arg(&report)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&res.stdout).into_owned();
        assert!(
            res.status.success(),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
        // every marker on its joint, each leg's hip, knee and ankle among
        // them (the lowered bones' joint-<bone>, tip-<bone> too)
        let art_lines = common::art_marker_offsets(&stdout);
        for leg in &file.legs {
            for j in ["hip", "knee", "ankle"] {
                let m = format!("art: joint-{j}-{} is", leg.name);
                assert!(art_lines.iter().any(|(l, _)| l.starts_with(&m)), "{stdout}");
            }
        }
        for (l, px) in art_lines {
            assert!(px <= ROUND_PX, "{l}");
        }
        let check = rigbake()
            .arg("check")
            .arg(&path)
            .args(["--max-error", "1000", "--format", "json"])
            .output()
            .unwrap();
        let check: serde_json::Value = serde_json::from_slice(&check.stdout).unwrap();
        let report: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
        let plain: BTreeMap<String, f64> = check["results"][0]["probes"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["kind"] == "leg")
            .map(|p| {
                (
                    p["name"].as_str().unwrap().to_string(),
                    p["max_error_px"].as_f64().unwrap(),
                )
            })
            .collect();
        assert_eq!(plain.len(), file.legs.len());
        for leg in report["legs"].as_array().unwrap() {
            let n = leg["name"].as_str().unwrap();
            let got = leg["max_error_px"].as_f64().unwrap();
            assert!(
                (got - plain[n]).abs() <= 0.05,
                "{} {n}: art {got} vs plain {}",
                rig.name,
                plain[n]
            );
        }
        jobs.push((rig, file, fs::read_to_string(&animated).unwrap(), plain));
    }
    assert!(jobs.len() >= 3, "cycling rigs in rigs/: {}", jobs.len());
    let Some(chromium) = chromium else { return };
    let b = browser::Browser::chromium(chromium);
    let times: Vec<Vec<f64>> = jobs
        .iter()
        .map(|(rig, _, _, _)| (0..48).map(|i| rig.period_s * i as f64 / 48.0).collect())
        .collect();
    let batch: Vec<browser::ProbeJob> = jobs
        .iter()
        .zip(&times)
        .map(|((_, _, svg, _), t)| browser::ProbeJob {
            svg,
            mode: SeekMode::WebAnimations,
            times_s: t,
        })
        .collect();
    let got = browser::probe_batch(&b, &batch).unwrap_or_else(|e| panic!("{e}"));
    for (((rig, file, _, plain), ts), samples) in jobs.iter().zip(&times).zip(&got) {
        let clip = bake_rig(
            rig,
            &BakeOptions::resolve(rig, Route::Css, None, None, None),
        )
        .clip;
        let v = |p: [f64; 2]| Vec2::new(p[0], p[1]);
        let crank = file.crank.as_ref().unwrap();
        for leg in &file.legs {
            let ln = &leg.name;
            let centre = v(crank.center) + v(leg.depth_offset);
            let mut worst: f64 = 0.0;
            for (t, p) in ts.iter().zip(samples) {
                let want = measure::probes_at(&clip, *t);
                let w = |k: &str| {
                    let v = want[k];
                    [v.x, v.y]
                };
                let at = |k: &str| {
                    *p.get(k)
                        .unwrap_or_else(|| panic!("{} t={t}: no probe {k}", rig.name))
                };
                let ctx = format!("{} {ln} t={t}", rig.name);
                // the clip's probes where the plain bake has them
                assert!(
                    dist(at(&format!("{ln}-ankle")), w(&format!("{ln}-ankle"))) <= 0.05,
                    "{ctx}"
                );
                assert!(
                    dist(at(&format!("{ln}-target")), w(&format!("{ln}-target"))) <= 0.05,
                    "{ctx}"
                );
                // the drawn shapes move with them
                let ankle = at(&format!("{ln}-ankle"));
                assert!(
                    dist(at(&format!("art-shin-{ln}-to")), ankle) <= 0.05,
                    "{ctx}: drawn ankle"
                );
                assert!(
                    dist(
                        at(&format!("art-thigh-{ln}-to")),
                        at(&format!("art-shin-{ln}-from"))
                    ) <= 0.05,
                    "{ctx}: knee"
                );
                let pedal = [
                    (at(&format!("art-pedal-{ln}-from"))[0] + at(&format!("art-pedal-{ln}-to"))[0])
                        / 2.0,
                    (at(&format!("art-pedal-{ln}-from"))[1] + at(&format!("art-pedal-{ln}-to"))[1])
                        / 2.0,
                ];
                let target = at(&format!("{ln}-target"));
                let off = leg.pedal_offset;
                assert!(
                    dist([pedal[0] + off[0], pedal[1] + off[1]], target) <= 0.05,
                    "{ctx}: pedal"
                );
                // the crank arm's part (drawn at its joint) turns about the
                // crank centre: its point there stays, and the pedal keeps
                // a crank radius from it
                let arm = at(&format!("art-crank-{ln}-to"));
                assert!(dist(arm, [centre.x, centre.y]) <= 0.05, "{ctx}: crank arm");
                assert!(
                    (dist(arm, pedal) - crank.radius).abs() <= 0.05,
                    "{ctx}: crank radius"
                );
                let hip = v(leg.hip) + v(leg.depth_offset);
                assert!(
                    dist(at(&format!("art-thigh-{ln}-from")), [hip.x, hip.y]) <= 0.05,
                    "{ctx}: hip"
                );
                worst = worst.max(dist(ankle, target));
            }
            eprintln!(
                "{} {ln}: ankle–pedal max {worst:.4} px in Chromium, plain bake {} px",
                rig.name, plain[ln]
            );
            assert!(
                worst <= plain[ln] + 0.05,
                "{} {ln}: ankle–pedal {worst} px in Chromium, plain bake reports {}",
                rig.name,
                plain[ln]
            );
            assert!(worst > 0.1 || plain[ln] < 0.1, "{} {ln}: {worst}", rig.name);
        }
    }
}
