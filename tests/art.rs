//! `rigbake bake RIG --art DRAWING.svg`: an illustrator's drawing comes back
//! byte for byte with only rigbake's additions inserted, the additions
//! animate it like the baked clip, and bad drawings are one-line input
//! errors that write nothing.
//!
//! The browser test needs Chromium; without one it is skipped with a notice
//! on stderr, unless `CI=true`, where it fails.

mod common;

use assert_cmd::Command;
use rigbake::browser::{self, SeekMode};
use std::fs;
use std::path::{Path, PathBuf};

const RIG: &str = "rigs/seed-nested.json";
const ART: &str = "tests/fixtures/art/cyclist.svg";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn art_text() -> String {
    fs::read_to_string(root().join(ART)).unwrap()
}

fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(root());
    c
}

struct Baked {
    svg: String,
    stdout: String,
    report: serde_json::Value,
}

/// Bake `art` (text) with the seed rig into a temp dir, with `--prefix rb`.
fn bake_art(art: &str) -> Baked {
    bake_art_prefixed(art, "rb")
}

/// Bake `art` (text) with the seed rig into a temp dir, with `--prefix
/// prefix`.
fn bake_art_prefixed(art: &str, prefix: &str) -> Baked {
    let dir = tempfile::tempdir().unwrap();
    let art_path = dir.path().join("drawing.svg");
    fs::write(&art_path, art).unwrap();
    let out = dir.path().join("animated.svg");
    let report = dir.path().join("report.json");
    let res = common::art::art_cmd(RIG, &art_path, &out)
        .args(["--prefix", prefix, "--report"])
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(res.stderr.is_empty());
    assert_eq!(
        fs::read_to_string(&art_path).unwrap(),
        art,
        "drawing changed"
    );
    Baked {
        svg: fs::read_to_string(&out).unwrap(),
        stdout: String::from_utf8(res.stdout).unwrap(),
        report: serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap(),
    }
}

/// Whether `n` is rigbake's: it carries `data-rigbake`, or it is inside
/// the skeleton group (the clip's groups and probes, which follow the
/// drawing as one `<g data-rigbake="skeleton">`).
fn rigbakes(n: roxmltree::Node) -> bool {
    n.attribute("data-rigbake").is_some()
        || n.ancestors()
            .any(|a| a.attribute("data-rigbake") == Some("skeleton"))
}

/// The output with every element carrying `data-rigbake` unwrapped: wrapper
/// groups replaced by their children, inserted `<style>` and the skeleton
/// group (the clip's groups and probes inside it) dropped. Works on the parsed output's byte
/// ranges, independently of how the inserter placed its text.
fn strip_additions(out: &str) -> String {
    fn ours(n: roxmltree::Node) -> bool {
        n.attribute("data-rigbake").is_some()
    }
    fn recon(out: &str, n: roxmltree::Node, s: &mut String) {
        let kids: Vec<_> = n.children().filter(|c| c.is_element()).collect();
        if ours(n) {
            if n.tag_name().name() == "g" && n.attribute("data-rigbake") != Some("skeleton") {
                // a wrapper holds only elements, no text of its own
                assert!(
                    n.children().all(|c| c.is_element()),
                    "text inside an inserted group"
                );
                for k in kids {
                    recon(out, k, s);
                }
            }
            return;
        }
        let r = n.range();
        let mut at = r.start;
        for k in kids {
            s.push_str(&out[at..k.range().start]);
            recon(out, k, s);
            at = k.range().end;
        }
        s.push_str(&out[at..r.end]);
    }
    let doc = roxmltree::Document::parse(out).expect("output is well-formed XML");
    let root = doc.root_element();
    let mut s = String::from(&out[..root.range().start]);
    recon(out, root, &mut s);
    s.push_str(&out[root.range().end..]);
    s
}

/// The exact source text of the first element with this `id`.
fn element_text<'a>(text: &'a str, id: &str) -> &'a str {
    let doc = roxmltree::Document::parse(text).unwrap();
    let n = doc
        .descendants()
        .find(|n| n.attribute("id") == Some(id))
        .unwrap_or_else(|| panic!("no #{id}"));
    &text[n.range()]
}

#[test]
fn drawing_comes_back_byte_identical_with_the_animation_added() {
    let art = art_text();
    let b = bake_art(&art);
    // The root says what every file's root says of its clip.
    let meta = " data-period=\"1.2\" data-route=\"css\"";
    let root_tag = &b.svg[b.svg.find("<svg").unwrap()..];
    let root_tag = &root_tag[..root_tag.find('>').unwrap()];
    assert!(root_tag.ends_with(meta), "{root_tag}");
    // Everything but the additions is the original, byte for byte, but
    // for the stem (`rb_` with --prefix rb) the drawing's own names get.
    assert!(!art.contains("rb_"));
    assert_eq!(
        strip_additions(&b.svg.replacen(meta, "", 1)).replace("rb_", ""),
        art
    );
    // In particular the gradient-filled curved thigh, the text and the defs.
    let text_el = &art[art.find("<text").unwrap()..art.find("</text>").unwrap() + 7];
    assert!(
        b.svg
            .contains(&text_el.replace("\"label\"", "\"rb_label\""))
    );
    for id in ["defs1", "thighGrad", "shoeGrad", "thigh-near-shape"] {
        let orig = element_text(&art, id);
        let scoped = element_text(&b.svg, &format!("rb_{id}"));
        assert_eq!(scoped.replace("rb_", ""), orig, "#{id}");
    }
    assert!(element_text(&art, "thigh-near-shape").contains("url(#thighGrad)"));
    assert!(element_text(&b.svg, "rb_thigh-near-shape").contains("url(#rb_thighGrad)"));
    assert!(
        b.svg
            .contains("<style>/* the drawing's own style */ .rb_label {")
    );
    // The animation: for both legs every lowered bone that moves (crank,
    // pedal, thigh, shin) animates a wrapped part of the drawing by its
    // class, played by @keyframes the file holds; the probes are there.
    let doc = roxmltree::Document::parse(&b.svg).unwrap();
    let sheet = doc
        .descendants()
        .find(|n| n.attribute("data-rigbake") == Some("style"))
        .and_then(|n| n.text())
        .expect("rigbake's style sheet");
    let sheet = format!("<style>{sheet}</style>");
    let wrapper = |class: &str| {
        doc.descendants()
            .find(|n| n.attribute("data-rigbake").is_some() && n.attribute("class") == Some(class))
    };
    for leg in ["near", "far"] {
        for bone in ["crank", "pedal", "thigh", "shin"] {
            let class = format!("rb-b-{leg}_{bone}");
            assert!(wrapper(&class).is_some(), "no part wrapped in {class}");
            let keyframes = common::animation_name(&sheet, &format!(".{class}"))
                .unwrap_or_else(|| panic!("{class} plays no animation"));
            assert!(
                sheet.contains(&format!("@keyframes {keyframes}{{")),
                "{class} plays {keyframes}, not in the file"
            );
        }
        for probe in ["ankle", "target"] {
            let needle = format!("data-probe=\"{leg}-{probe}\"");
            assert_eq!(b.svg.matches(&needle).count(), 1, "{needle}");
        }
    }
    // the chainring (the part `crank`) turns with the near crank
    let crank = doc
        .descendants()
        .find(|n| n.attribute("data-rigbake") == Some("crank"))
        .unwrap();
    assert_eq!(crank.attribute("class"), Some("rb-b-near_crank"));
    // The shin's wrapper sits inside the thigh element.
    let shin = wrapper("rb-b-near_shin").unwrap();
    assert!(
        shin.ancestors()
            .any(|a| a.attribute("id") == Some("rb_thigh-near"))
    );
    // The report is the clip's measurement.
    assert!(b.report["legs"][0]["max_error_px"].as_f64().unwrap() > 0.0);
}

#[test]
fn joint_markers_are_checked_against_the_phase0_pose() {
    let b = bake_art(&art_text());
    // drawn at (468.5, 308); IK says (468.507…, 308.0099…)
    assert!(
        b.stdout.contains(
            "art: joint-knee-near is 0.01 px from the rig's phase-0 knee (468.51, 308.01)"
        ),
        "{}",
        b.stdout
    );
    assert!(b.stdout.contains("art: joint-hip-near is 0 px"));
    // marker inside translate(-6,-7) and the shin: world (364, 413)
    assert!(
        b.stdout
            .contains("art: joint-ankle-far is 0 px from the rig's phase-0 ankle (364, 413)"),
        "{}",
        b.stdout
    );
    // Move the knee marker by (3, 4): 5 px off.
    let moved = art_text().replace(
        r#"id="joint-knee-near" cx="468.5" cy="308""#,
        r#"id="joint-knee-near" cx="471.51" cy="312.01""#,
    );
    let b = bake_art(&moved);
    assert!(
        b.stdout.contains("art: joint-knee-near is 5 px from"),
        "{}",
        b.stdout
    );
}

/// Bake `art` expecting an input error; returns the one stderr line and
/// checks that nothing was written.
fn bake_art_fails(art: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let art_path = dir.path().join("drawing.svg");
    fs::write(&art_path, art).unwrap();
    let out: PathBuf = dir.path().join("animated.svg");
    let res = rigbake()
        .args(["bake", RIG, "--prefix", "rb", "--art"])
        .arg(&art_path)
        .arg("-o")
        .arg(&out)
        .args(extra)
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    assert!(res.stdout.is_empty());
    let err = String::from_utf8(res.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert_eq!(common::doubled_word(&err), None, "{err}");
    assert!(!out.exists(), "a file was written");
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "stray files left"
    );
    err
}

/// A leg's thigh or shin misspelled (by id or by label) is refused naming
/// the drawing, the name the leg's part takes and the near miss with its
/// line.
#[test]
fn missing_part_is_an_error_naming_it_and_near_misses() {
    let art = art_text();
    for (drawn, misspelt) in [
        ("id=\"thigh-near\"", "thigh-naer"),
        ("id=\"thigh-far\"", "thigh-fra"),
        ("id=\"shin-near\"", "shin-naer"),
        ("inkscape:label=\"shin-far\"", "shin-fra"),
    ] {
        assert_eq!(art.matches(drawn).count(), 1, "{drawn}");
        let part = drawn.split('"').nth(1).unwrap();
        let attr = drawn.split('"').next().unwrap();
        let err = bake_art_fails(&art.replace(drawn, &format!("{attr}\"{misspelt}\"")), &[]);
        assert!(err.contains("drawing.svg"), "{err}");
        assert!(err.contains(&format!("\"{part}\"")), "{err}");
        assert!(err.contains(&format!("\"{misspelt}\" (line")), "{err}");
    }
}

/// A pedal need not be drawn (its bone has length 0), so a drawing
/// without one bakes; one whose names miss it by a typo is told which part
/// it lacks and which of its names look like it (the drawn pedal would
/// otherwise stay still while the crank turns, unexplained).
#[test]
fn a_misspelt_pedal_is_noted_with_its_near_miss() {
    for (part, typo) in [("pedal-far", "pedal-fra"), ("pedal-near", "pedal-naer")] {
        let b = bake_art(&art_text().replace(&format!("id=\"{part}\""), &format!("id=\"{typo}\"")));
        let notes: Vec<&str> = b.report["notes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|n| n.as_str())
            .filter(|n| n.contains(&format!("no part \"{part}\"")))
            .collect();
        assert_eq!(notes.len(), 1, "{part}: {:?}", b.report["notes"]);
        assert!(
            notes[0].contains(&format!("\"{typo}\" (line")),
            "{}",
            notes[0]
        );
        assert!(b.stdout.contains(notes[0]), "{}", b.stdout);
    }
    // drawn as named, nothing is noted
    let b = bake_art(&art_text());
    assert!(!b.report.to_string().contains("no part"), "{}", b.report);
}

#[test]
fn duplicated_part_is_an_error_with_both_lines() {
    // an inkscape:label that repeats another element's id
    let art = art_text().replace(
        "<rect x=\"0\" y=\"0\"",
        "<rect inkscape:label=\"crank\" x=\"0\" y=\"0\"",
    );
    let err = bake_art_fails(&art, &[]);
    assert!(err.contains("\"crank\" marks two elements (lines"), "{err}");
}

#[test]
fn a_shin_outside_its_thigh_is_nested_by_rigbake() {
    // Close thigh-near before its shin: the shin becomes its sibling (a
    // flat drawing). Its wrapper carries the thigh's motion, then its own.
    let art = art_text().replace(
        "<circle id=\"joint-knee-near\" cx=\"468.5\" cy=\"308\" r=\"3\" fill=\"#fff\"/>\n",
        "<circle id=\"joint-knee-near\" cx=\"468.5\" cy=\"308\" r=\"3\" fill=\"#fff\"/>\n  </g><g>\n",
    );
    let out = bake_art(&art).svg;
    let doc = roxmltree::Document::parse(&out).unwrap();
    let shin = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("rb_shin-near"))
        .unwrap();
    let classes: Vec<&str> = shin
        .ancestors()
        .filter_map(|a| a.attribute("class"))
        .collect();
    assert_eq!(
        classes,
        ["rb-b-near_shin", "rb-b-near_thigh"],
        "{classes:?}"
    );
    assert!(
        !shin
            .ancestors()
            .any(|a| a.attribute("id") == Some("rb_thigh-near"))
    );
}

#[test]
fn pedal_inside_a_moving_part_is_an_error() {
    let art = art_text().replace(
        "<g id=\"pedal-far\">",
        "<g id=\"pedal-far\"><g id=\"crank-far\"/>",
    );
    let err = bake_art_fails(&art, &[]);
    assert!(
        err.contains("\"crank-far\" must not be inside \"pedal-far\""),
        "{err}"
    );
}

#[test]
fn smil_route_two_rigs_bad_xml_and_rebaking_are_rejected() {
    let err = bake_art_fails(&art_text(), &["--route", "smil"]);
    assert!(err.contains("css route only"), "{err}");
    let err = bake_art_fails(&art_text(), &["rigs/recumbent.json"]);
    assert!(err.contains("exactly one rig"), "{err}");
    let err = bake_art_fails(&art_text().replace("</defs>", ""), &[]);
    assert!(err.contains("not well-formed XML"), "{err}");
    let baked = bake_art(&art_text()).svg;
    let err = bake_art_fails(&baked, &[]);
    assert!(err.contains("already animated by rigbake"), "{err}");
}

#[test]
fn refuses_to_overwrite_the_drawing() {
    let dir = tempfile::tempdir().unwrap();
    let art_path = dir.path().join("drawing.svg");
    fs::write(&art_path, art_text()).unwrap();
    let res = rigbake()
        .args(["bake", RIG, "--prefix", "rb", "--art"])
        .arg(&art_path)
        .arg("-o")
        .arg(&art_path)
        .output()
        .unwrap();
    assert_eq!(res.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&res.stderr).contains("overwrite the drawing"));
    assert_eq!(fs::read_to_string(&art_path).unwrap(), art_text());
}

fn dist(a: [f64; 2], b: [f64; 2]) -> f64 {
    (a[0] - b[0]).hypot(a[1] - b[1])
}

#[test]
fn browser_ankle_follows_the_pedal_within_the_reported_error() {
    let Some(chromium) = browser::find_chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no Chromium found"
        );
        eprintln!("skipping art browser test: no Chromium found");
        return;
    };
    let b = bake_art(&art_text());
    let rig = rigbake::rig::load(&fs::read_to_string(root().join(RIG)).unwrap()).unwrap();
    let period = rig.period_s;
    let times: Vec<f64> = (0..48).map(|i| period * i as f64 / 48.0).collect();
    let got = browser::probe_positions(
        &browser::Browser::chromium(&chromium),
        &b.svg,
        SeekMode::WebAnimations,
        &times,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // The clip baked by the same options, for its own probe positions.
    let opts = rigbake::bake::BakeOptions::resolve(&rig, rigbake::Route::Css, None, None, None);
    let clip = rigbake::bake_rig(&rig, &opts).clip;
    for (leg_i, leg) in ["near", "far"].iter().enumerate() {
        let reported = b.report["legs"][leg_i]["max_error_px"].as_f64().unwrap();
        let mut worst: f64 = 0.0;
        for (t, probes) in times.iter().zip(&got) {
            let ankle = probes[&format!("{leg}-ankle")];
            let target = probes[&format!("{leg}-target")];
            let e = dist(ankle, target);
            worst = worst.max(e);
            assert!(
                e <= reported + 0.05,
                "{leg} t={t}: ankle {ankle:?} is {e} px from the pedal {target:?}, reported {reported}"
            );
            // the drawn ankle (a marker inside the drawn shin) moves with it
            let drawn = probes[&format!("art-ankle-{leg}")];
            assert!(
                dist(drawn, ankle) <= 0.05,
                "{leg} t={t}: drawn ankle {drawn:?} vs {ankle:?}"
            );
            // and the probes are where the clip's own evaluator puts them
            let want = rigbake::measure::probes_at(&clip, *t);
            let w = want[&format!("{leg}-ankle")];
            assert!(
                dist(ankle, [w.x, w.y]) <= 0.05,
                "{leg} t={t}: {ankle:?} vs clip {w:?}"
            );
        }
        // the browser sees the drift the report states, not none
        assert!(
            reported > 0.05 && worst > 0.5 * reported,
            "{leg}: suspiciously still ({worst} px, reported {reported})"
        );
        // the drawn pedal (inside scale(2)) follows the pedal target
        if *leg == "near" {
            for probes in &got {
                let drawn = probes["art-pedal-near"];
                assert!(dist(drawn, probes["near-target"]) <= 0.05);
            }
        }
    }
    // the pedal really moves around the crank
    let (p0, p_half) = (got[0]["near-target"], got[24]["near-target"]);
    assert!((dist(p0, p_half) - 100.0).abs() < 0.1, "{p0:?} {p_half:?}");
}

/// What moves a part on screen other than the `transform` attributes its
/// placement reads is refused, whatever its spelling: a moving CSS
/// property in a `style` on an ancestor, on the part or inside it, a
/// `transform-origin` beside a `transform` attribute, a `<style>` sheet
/// that declares one. Each is exit 2, one line naming the drawing, the
/// line and the property, nothing written. Styles that move nothing bake.
#[test]
fn what_moves_a_part_beyond_its_transform_attributes_is_refused() {
    let art = art_text();
    let far = "<g id=\"far-side\"";
    let thigh = "<g id=\"thigh-near\"";
    let shape = "<path id=\"thigh-near-shape\"";
    let with = |tag: &str, attrs: &str| {
        assert_eq!(art.matches(tag).count(), 1, "{tag}");
        art.replace(tag, &format!("{tag} {attrs}"))
    };
    let sheet = |css: &str| {
        let old = "<style>/* the drawing's own style */ .label { font: 14px sans-serif; fill: #333 }</style>";
        assert!(art.contains(old));
        art.replace(old, &format!("<style>.label{{fill:#333}} {css}</style>"))
    };
    for (drawing, property) in [
        (
            with(far, "style=\"TRANSFORM:translate(50px,0)\""),
            "`transform`",
        ),
        (
            with(far, "style=\"tr\\61nsform:translate(50px,0)\""),
            "`transform`",
        ),
        (
            with(far, "style=\"fill:red;translate:50px 0\""),
            "`translate`",
        ),
        (with(far, "style=\"rotate:10deg\""), "`rotate`"),
        (
            with(
                far,
                "style=\"offset-path:path('M0 0 L100 100');offset-distance:50%\"",
            ),
            "`offset-path`",
        ),
        (
            with(far, "transform-origin=\"400 300\""),
            "`transform-origin`",
        ),
        (with(thigh, "style=\"translate:30px 0\""), "`translate`"),
        (with(shape, "style=\"scale:2\""), "`scale`"),
        (with(shape, "style=\"d:path('M0 0H9')\""), "`d`"),
        (
            sheet("#layer-leg-near{transform:translate(50px,0)}"),
            "`transform`",
        ),
        (
            sheet("@media all{g{transform-box:fill-box}}"),
            "`transform-box`",
        ),
        (sheet("@keyframes k{to{rotate:90deg}}"), "`rotate`"),
    ] {
        let err = bake_art_fails(&drawing, &[]);
        for needle in ["drawing.svg", "line ", property] {
            assert!(err.contains(needle), "{property}: {err}");
        }
        // where the property is set, in words
        if !err.contains("sheet") && !err.contains("<style>") {
            let how = if property == "`transform-origin`" {
                "as an attribute"
            } else {
                "in its style"
            };
            assert!(err.contains(&format!("sets {property} {how}, ")), "{err}");
        }
    }
    // the drawing's own probe may not take a name the file's own probes have
    let err = bake_art_fails(
        &art.replace("data-probe=\"art-ankle-far\"", "data-probe=\"far-ankle\""),
        &[],
    );
    assert!(
        err.contains("data-probe \"far-ankle\"") && err.contains("line 25"),
        "{err}"
    );
    // nor may the root say a period of its own
    let err = bake_art_fails(
        &art.replace(
            "viewBox=\"0 0 800 600\"",
            "viewBox=\"0 0 800 600\" data-period=\"2\"",
        ),
        &[],
    );
    assert!(err.contains("data-period"), "{err}");
    // styles that name a transform but move nothing bake
    let still = with(
        far,
        "style=\"will-change:transform;transition:transform 1s;--transform:1;font-family:'transform:x'\"",
    );
    let still = still.replace(thigh, &format!("{thigh} style=\"transform:none\""));
    // nor do a root's or a sheet's sizes (a web export's `width:100%`)
    let still = still.replace(
        "viewBox=\"0 0 800 600\"",
        "viewBox=\"0 0 800 600\" style=\"width:100%;height:auto\"",
    );
    let still = still.replace(".label { font:", "svg{width:100%} .label { font:");
    let b = bake_art(&still);
    assert!(b.svg.contains("will-change:transform") && b.svg.contains("svg{width:100%}"));
}

/// The drawing's CSS is read as CSS reads it: a vendor prefix, a comment
/// (with a quote in it) or a comment opener inside a string hides no
/// moving declaration.
#[test]
fn moving_css_is_found_behind_prefixes_and_comments() {
    let art = art_text();
    let far = "<g id=\"far-side\"";
    let styled = |style: &str| art.replacen(far, &format!("{far} style=\"{style}\""), 1);
    for drawing in [
        styled("-webkit-transform:translate(50px,0)"),
        styled("/* it's */transform:none;transform:translate(50px,0)"),
        art.replacen(
            ".label { font:",
            ".a{content:\"/*\"}#layer-leg-near{-webkit-transform:rotate(1deg)} .label { font:",
            1,
        ),
    ] {
        assert_ne!(drawing, art, "the drawing holds what is replaced");
        let err = bake_art_fails(&drawing, &[]);
        assert!(
            err.contains("line ") && err.contains("`transform`"),
            "{err}"
        );
    }
}

/// SMIL that moves a part is refused like CSS that does: an
/// `<animateTransform>`, `<animateMotion>`, or an `<animate>` or `<set>`
/// of `transform` or of a shape's geometry, aimed (by `href`, by
/// `xlink:href`, or as a child) at a part, at something inside it or at
/// something above it. Each is exit 2, one line naming the drawing, the
/// animation's element and line, nothing written. (Such a drawing baked,
/// the report promised its figures, and the browser drew the near leg
/// 50 px off its hip.) SMIL that moves nothing of a part (a colour, an
/// opacity, a shape of its own outside the parts) bakes.
#[test]
fn smil_that_moves_a_part_is_refused() {
    let art = art_text();
    let before_end = |extra: &str| {
        assert_eq!(art.matches("</svg>").count(), 1);
        art.replace("</svg>", &format!("{extra}</svg>"))
    };
    let thigh = "<g id=\"thigh-near\">";
    assert_eq!(art.matches(thigh).count(), 1);
    let child = |extra: &str| art.replace(thigh, &format!("{thigh}{extra}"));
    let xlink = "xmlns:xlink=\"http://www.w3.org/1999/xlink\"";
    for (drawing, tag) in [
        (
            before_end(
                "<animateTransform href=\"#thigh-near\" attributeName=\"transform\" type=\"translate\" to=\"50 0\" dur=\"1s\" fill=\"freeze\"/>",
            ),
            "<animateTransform>",
        ),
        (
            before_end(&format!(
                "<animateTransform {xlink} xlink:href=\"#far-side\" attributeName=\"transform\" type=\"rotate\" to=\"10\" dur=\"1s\"/>"
            )),
            "<animateTransform>",
        ),
        (
            child(
                "<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0 352 255\" to=\"360 352 255\" dur=\"1s\" repeatCount=\"indefinite\"/>",
            ),
            "<animateTransform>",
        ),
        (
            before_end("<animateMotion href=\"#far-side\" path=\"M0 0L10 0\" dur=\"1s\"/>"),
            "<animateMotion>",
        ),
        (
            before_end(
                "<set href=\"#thigh-near\" attributeName=\"transform\" to=\"translate(5 0)\"/>",
            ),
            "<set>",
        ),
        (
            before_end(
                "<animate href=\"#thigh-near-shape\" attributeName=\"d\" to=\"M0 0H9\" dur=\"1s\"/>",
            ),
            "<animate>",
        ),
    ] {
        let err = bake_art_fails(&drawing, &[]);
        for needle in ["drawing.svg", "line ", tag, "cannot follow"] {
            assert!(err.contains(needle), "{tag}: {err}");
        }
    }
    // a colour, an opacity and a shape of the drawing's own may move
    let still = child(
        "<animate attributeName=\"opacity\" values=\"1;0.5;1\" dur=\"2s\" repeatCount=\"indefinite\"/>",
    );
    let still = still.replace(
        "</svg>",
        "<animate href=\"#thigh-near-shape\" attributeName=\"fill\" to=\"red\" dur=\"1s\"/>\
         <circle id=\"sun\" cx=\"20\" cy=\"20\" r=\"5\"/>\
         <animateTransform href=\"#sun\" attributeName=\"transform\" type=\"translate\" to=\"9 0\" dur=\"1s\"/></svg>",
    );
    let b = bake_art(&still);
    assert!(b.svg.contains("href=\"#rb_sun\""));
}

/// A shape's length in a unit the pose check cannot read (a percentage, an
/// em, not a number) is refused naming the attribute and its value, where
/// it was once read as 0 and refused as a part drawn away from its pose.
#[test]
fn lengths_in_other_units_are_refused_naming_the_attribute() {
    let art = art_text();
    // the far pedal's block and the near shin's shoe, both checked against
    // the pose (the pedal's axle, the shin's ankle)
    let rect = "<rect x=\"357.5\" y=\"416\" width=\"25\"";
    let ellipse = "<ellipse cx=\"8\" cy=\"114\" rx=\"14\"";
    assert!(art.contains(rect) && art.contains(ellipse));
    for (drawing, needle) in [
        (
            art.replace(rect, "<rect x=\"44%\" y=\"416\" width=\"25\""),
            "x=\"44%\" on its <rect>",
        ),
        (
            art.replace(rect, "<rect x=\"357.5\" y=\"22em\" width=\"25\""),
            "y=\"22em\" on its <rect>",
        ),
        (
            art.replace(ellipse, "<ellipse cx=\"8\" cy=\"114\" rx=\"inf\""),
            "rx=\"inf\" on its <ellipse>",
        ),
    ] {
        let err = bake_art_fails(&drawing, &[]);
        assert!(err.contains(needle) && err.contains("user units"), "{err}");
        assert!(!err.contains("phase-0"), "{err}");
    }
}

/// A drawing's style sheet whose names cannot be given the file's prefix
/// so that it means what it meant, or SMIL that animates a class, is
/// refused with the line and what to do, and nothing is written.
#[test]
fn names_that_cannot_be_scoped_are_refused_with_their_line() {
    let art = art_text();
    let sheet = "<style>/* the drawing's own style */";
    assert!(art.contains(sheet));
    for (with, line, needles) in [
        (
            "<style>@import url(x.css);\n/* the drawing's own style */",
            17,
            ["(@import)", "copy its rules"],
        ),
        (
            "<style>\n\npath[id^=\"thigh\"]{fill:red}/* the drawing's own style */",
            19,
            ["[id^=\"thigh\"]", "select by #id or .class"],
        ),
        (
            "<style>\n@nest x{.a{fill:red}}/* the drawing's own style */",
            18,
            ["@nest block", "take the block out"],
        ),
        (
            "<set attributeName=\"class\" to=\"x\"/><style>/* the drawing's own style */",
            17,
            [
                "<set> animates `class`",
                "animate what the class stands for",
            ],
        ),
    ] {
        let err = bake_art_fails(&art.replace(sheet, with), &[]);
        assert!(
            err.contains(&format!("drawing.svg: line {line}: ")),
            "{err}"
        );
        for needle in needles {
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }
}

/// A drawing's id that begins as the ids rigbake writes (`rb-n…` with
/// `--prefix rb`: `rb-nw0` is a wrapper's, `rb-n3` a group's) or a class
/// that begins with the prefix once repeated an id of the file's own or
/// took the file's rules (and was refused); the drawing's names now get
/// the stem `rb_`, which no name rigbake writes begins with.
#[test]
fn a_drawing_name_that_begins_as_the_files_own_stays_the_drawings() {
    let art = art_text();
    let far = "<g id=\"far-side\"";
    for (drawing, id, class) in [
        (art.replace(far, "<g id=\"rb-nw0\""), "rb_rb-nw0", None),
        (art.replace(far, "<g id=\"rb-n3\""), "rb_rb-n3", None),
        (
            art.replace(far, &format!("{far} class=\"shade rb-b-near_thigh\"")),
            "rb_far-side",
            Some("rb_shade rb_rb-b-near_thigh"),
        ),
    ] {
        let svg = bake_art(&drawing).svg;
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let mut ids = std::collections::BTreeSet::new();
        for n in doc.descendants().filter(|n| n.is_element()) {
            if let Some(i) = n.attribute("id") {
                assert!(ids.insert(i), "{i} is written twice");
            }
            let own = !rigbakes(n);
            let classes = n.attribute("class").unwrap_or_default();
            assert!(
                !own || classes.split_whitespace().all(|c| !c.starts_with("rb-")),
                "the drawing's class {classes:?} takes the file's rules"
            );
        }
        let g = doc
            .descendants()
            .find(|n| n.attribute("id") == Some(id))
            .unwrap_or_else(|| panic!("no #{id}"));
        assert_eq!(g.attribute("class"), class);
        assert_eq!(doc.text_pos_at(g.range().start).row, 20);
    }
}

/// A drawing that defines a name in every form an SVG or CSS document
/// defines one for the whole page (`id`, `xml:id`, a class, `@keyframes`,
/// `@font-face`, `@property`, a custom property, an anchor name, an id in a
/// `<foreignObject>`'s HTML) and references them in every form (`href`,
/// `xlink:href`, `url(#…)` bare and quoted, `element(#…)`, `var(--…)`,
/// `transition`, `animation`, `font-family`, SMIL `values` and
/// `begin`/`end`, ARIA and
/// HTML id lists), with what looks like a name and is not (colours, a
/// `data:` url, another document's address).
fn every_name_form(art: &str) -> String {
    let defs = "<defs id=\"defs1\">\
        <linearGradient xml:id=\"xmlGrad\"><stop offset=\"0\" stop-color=\"#e76f51\"/></linearGradient>\
        <linearGradient id=\"viaXlink\" xlink:href=\"#thighGrad\"/>\
        <linearGradient id=\"viaHref\" href=\"#xmlGrad\"/>\
        <clipPath id=\"clip\"><rect width=\"800\" height=\"600\"/></clipPath>\
        <mask id=\"msk\"><rect width=\"800\" height=\"600\" fill=\"#fff\"/></mask>\
        <filter id=\"soft\"><feGaussianBlur stdDeviation=\"0\"/></filter>\
        <marker id=\"dot\"><circle r=\"1\"/></marker>\
        <path id=\"track\" d=\"M 20 580 H 200\"/>\
        <symbol id=\"sym\"><rect width=\"5\" height=\"5\" fill=\"#fff\"/></symbol>";
    let body = "<style><![CDATA[@property --tilt{syntax:'<angle>';inherits:false;initial-value:0deg}\
        @keyframes pulse{to{opacity:.5}}\
        @font-face{font-family:Hand;src:url(data:font/woff2;base64,d09GMgAB)}\
        :root{--ink:#264653;anchor-name:--spot}\
        #badge{fill:var(--ink,#fff);animation:pulse 2s infinite;transition:--tilt 1s;--tilt:3deg}\
        .chip{stroke:url(#viaXlink);mask:url(\"#msk\");clip-path:url('#clip');background:element(#sym) url(data:image/gif;base64,R0lGOD) url(other.svg#sym)}\
        ]]></style>\
        <g id=\"badge\" class=\"chip\" clip-path=\"url(#clip)\" mask=\"url(#msk)\" filter=\"url(#soft)\" aria-labelledby=\"title1\">\
        <title id=\"title1\">Badge</title>\
        <path d=\"M 10 580 H 60\" stroke=\"url(#viaHref)\" marker-start=\"url(#dot)\" style=\"--ink:#abc;fill:var(--ink);stroke:url(#viaXlink);position-anchor:--spot\"/>\
        <use href=\"#sym\" x=\"10\" y=\"560\"/><use xlink:href=\"#sym\" x=\"20\" y=\"560\"/>\
        <image href=\"other.svg#sym\" width=\"1\" height=\"1\"/>\
        <text x=\"0\" y=\"0\" font-family=\"Hand, serif\"><textPath href=\"#track\" style=\"font-family:Hand\">along</textPath></text>\
        <circle r=\"2\" cx=\"700\" cy=\"560\" fill=\"#fff\">\
        <animate id=\"blink\" attributeName=\"fill\" values=\"url(#viaXlink);url(#xmlGrad)\" dur=\"1s\" begin=\"0s;blink.end+1s\"/>\
        <set attributeName=\"opacity\" to=\"1\" begin=\"blink.begin\" end=\"badge.click\"/>\
        <animateMotion dur=\"1s\"><mpath href=\"#track\"/></animateMotion></circle>\
        <a href=\"#badge\"><rect width=\"1\" height=\"1\"/></a><a href=\"https://example.com/#badge\"/>\
        <foreignObject width=\"1\" height=\"1\"><div xmlns=\"http://www.w3.org/1999/xhtml\">\
        <label for=\"box\">x</label><input id=\"box\" list=\"opts\" form=\"frm\"/><datalist id=\"opts\"></datalist><form id=\"frm\"></form>\
        </div></foreignObject></g>\n</svg>";
    assert!(art.contains("<defs id=\"defs1\">") && art.ends_with("</svg>\n"));
    let drawing = art
        .replacen("<defs id=\"defs1\">", defs, 1)
        .replacen("\n</svg>", body, 1);
    drawing + "\n"
}

/// The names a document defines and those it references, by kind.
#[derive(Debug, Default)]
struct NameUses {
    /// `id` and `xml:id`.
    ids: std::collections::BTreeSet<String>,
    id_refs: Vec<String>,
    /// Dashed idents declared (`--x:`), registered (`@property --x`) or
    /// named as an anchor (`anchor-name:--x`).
    dashed: std::collections::BTreeSet<String>,
    dashed_refs: Vec<String>,
    keyframes: std::collections::BTreeSet<String>,
    keyframe_refs: Vec<String>,
    /// `@font-face` families (references to the generic `serif` left
    /// out).
    fonts: std::collections::BTreeSet<String>,
    font_refs: Vec<String>,
    classes: std::collections::BTreeSet<String>,
}

impl NameUses {
    fn of(svg: &str) -> NameUses {
        const XML: &str = "http://www.w3.org/XML/1998/namespace";
        let doc = roxmltree::Document::parse(svg).unwrap();
        let mut out = NameUses::default();
        for n in doc.descendants() {
            if n.is_text() && n.parent().is_some_and(|p| p.has_tag_name("style")) {
                out.css(n.text().unwrap());
                continue;
            }
            if !n.is_element() {
                continue;
            }
            let smil = ["animate", "set"].contains(&n.tag_name().name());
            for a in n.attributes() {
                let v = a.value();
                match (a.namespace(), a.name()) {
                    (None | Some(XML), "id") => {
                        out.ids.insert(v.to_string());
                    }
                    (_, "href") => out.id_refs.extend(v.strip_prefix('#').map(String::from)),
                    (None, "font-family") => out.font_refs.extend(
                        v.split(',')
                            .map(str::trim)
                            .filter(|f| *f != "serif")
                            .map(String::from),
                    ),
                    (None, "class") => out.classes.extend(v.split_whitespace().map(String::from)),
                    (None, "aria-labelledby" | "for" | "list" | "form") => {
                        out.id_refs.extend(v.split_whitespace().map(String::from))
                    }
                    (None, "begin" | "end") if smil => {
                        for item in v.split(';') {
                            if let Some((name, _)) = item.trim().split_once('.')
                                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                            {
                                out.id_refs.push(name.to_string());
                            }
                        }
                    }
                    _ => out.css(v),
                }
            }
        }
        out
    }

    /// The references and definitions in CSS text (a sheet, a `style`,
    /// a presentation attribute).
    fn css(&mut self, text: &str) {
        let name = |s: &str| -> String {
            s.chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                .collect()
        };
        for f in ["url(", "element(", "src("] {
            for (k, _) in text.match_indices(f) {
                let arg = text[k + f.len()..].trim_start_matches([' ', '"', '\'']);
                if let Some(id) = arg.strip_prefix('#') {
                    self.id_refs.push(name(id));
                }
            }
        }
        for (k, _) in text.match_indices("--") {
            let before = &text[..k];
            if before.ends_with(|c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_') {
                continue;
            }
            let n = name(&text[k + 2..]);
            let after = text[k + 2 + n.len()..].trim_start();
            if after.starts_with(':')
                || before.ends_with("@property ")
                || before.ends_with("anchor-name:")
            {
                self.dashed.insert(n);
            } else {
                self.dashed_refs.push(n);
            }
        }
        for (k, _) in text.match_indices("@keyframes ") {
            self.keyframes.insert(name(&text[k + 11..]));
        }
        for (k, _) in text.match_indices("font-family:") {
            let family = name(&text[k + 12..]);
            if text[..k].ends_with("@font-face{") {
                self.fonts.insert(family);
            } else {
                self.font_refs.push(family);
            }
        }
        for (k, _) in text.match_indices("animation:") {
            self.keyframe_refs.push(name(&text[k + 10..]));
        }
    }

    /// Every name defined, by kind.
    fn defined(&self) -> [(&'static str, &std::collections::BTreeSet<String>); 5] {
        [
            ("id", &self.ids),
            ("custom property", &self.dashed),
            ("keyframes", &self.keyframes),
            ("font family", &self.fonts),
            ("class", &self.classes),
        ]
    }
}

/// One drawing holding every form of name a document defines for the
/// whole page, and every form of reference to one, baked into two scopes:
/// in each output every name the drawing defines carries the file's stem
/// (none is left as drawn, none is in the other output), every reference
/// reaches a definition of its own output, what is no name is left as it
/// is, and the drawing is still bound (everything but rigbake's additions
/// and the stem is the drawing, byte for byte).
#[test]
fn every_name_form_of_a_drawing_is_scoped_and_resolves_in_its_own_file() {
    let drawing = every_name_form(&art_text());
    let drawn = NameUses::of(&drawing);
    for (kind, names) in drawn.defined() {
        assert!(!names.is_empty(), "the drawing defines no {kind}");
    }
    assert!(drawn.ids.contains("xmlGrad") && drawn.dashed.contains("tilt"));
    let mut outputs = Vec::new();
    for prefix in ["qq", "zz"] {
        let svg = bake_art_prefixed(&drawing, prefix).svg;
        let uses = NameUses::of(&svg);
        let (stem, own) = (format!("{prefix}_"), format!("{prefix}-"));
        // every name the drawing defines now carries the stem
        for (kind, names) in uses.defined() {
            for n in names {
                assert!(
                    n.starts_with(&stem) || n.starts_with(&own),
                    "{prefix}: the {kind} {n:?} is not the file's own"
                );
            }
        }
        for (kind, names) in drawn.defined() {
            for n in names {
                let scoped = format!("{stem}{n}");
                let all = uses.defined();
                let here = all.iter().find(|(k, _)| *k == kind).unwrap().1;
                assert!(here.contains(&scoped), "{prefix}: no {kind} {scoped}");
            }
        }
        // every reference reaches a definition of this output
        for (kind, refs, defs) in [
            ("id", &uses.id_refs, &uses.ids),
            ("custom property", &uses.dashed_refs, &uses.dashed),
            ("keyframes", &uses.keyframe_refs, &uses.keyframes),
            ("font family", &uses.font_refs, &uses.fonts),
        ] {
            for r in refs {
                assert!(
                    defs.contains(r),
                    "{prefix}: the {kind} {r:?} is not defined"
                );
            }
        }
        // anchor-name's --spot is referenced by position-anchor only
        assert!(uses.dashed_refs.contains(&format!("{stem}spot")));
        // what is no name stays as it was
        for kept in [
            "fill=\"#fff\"",
            "var(--ink,#fff)",
            "url(data:image/gif;base64,R0lGOD)",
            "url(other.svg#sym)",
            "href=\"other.svg#sym\"",
            "href=\"https://example.com/#badge\"",
            "stop-color=\"#e76f51\"",
            "url(data:font/woff2;base64,d09GMgAB)",
        ] {
            let kept = kept.replace("--ink", &format!("--{stem}ink"));
            assert!(svg.contains(&kept), "{prefix}: {kept} changed");
        }
        // bound as before: the parts animate, and the rest is the drawing
        assert!(svg.contains(&format!("class=\"{own}b-near_thigh\"")));
        let meta = " data-period=\"1.2\" data-route=\"css\"";
        assert_eq!(
            strip_additions(&svg.replacen(meta, "", 1)).replace(&stem, ""),
            drawing,
            "{prefix}"
        );
        outputs.push(uses);
    }
    // the two outputs share no name
    let [a, b] = &outputs[..] else { unreachable!() };
    for ((kind, x), (_, y)) in a.defined().into_iter().zip(b.defined()) {
        let shared: Vec<_> = x.intersection(y).collect();
        assert!(
            shared.is_empty(),
            "both outputs define the {kind}s {shared:?}"
        );
    }
}

/// The probe contract holds for drawings too: for every rig in `rigs/`,
/// its template baked with `--art` holds every probe of the plain bake of
/// the same clip exactly once (a cycling rig's Verlet scarf included, whose
/// particles no drawn part carries), so an outside tool measures the art
/// file as it measures the plain one.
#[test]
fn an_art_bake_holds_every_probe_of_the_plain_bake_once() {
    let tmp = tempfile::tempdir().unwrap();
    let mut rigs: Vec<PathBuf> = fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    rigs.sort();
    for rig in &rigs {
        let name = rig.file_stem().unwrap().to_str().unwrap();
        let dir = tmp.path().join(name);
        fs::create_dir(&dir).unwrap();
        let drawing = dir.join("drawing.svg");
        rigbake()
            .arg("template")
            .arg(rig)
            .arg("-o")
            .arg(&drawing)
            .assert()
            .success();
        // the clip an art bake plays: the first
        let json: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(rig).unwrap()).unwrap();
        let clip: Vec<String> = json["clips"]
            .as_array()
            .and_then(|c| c.first())
            .map(|c| vec!["--clip".into(), c["name"].as_str().unwrap().to_string()])
            .unwrap_or_default();
        let (art, plain) = (dir.join("art.svg"), dir.join("plain.svg"));
        for (out, extra) in [
            (&art, vec!["--art", drawing.to_str().unwrap()]),
            (&plain, vec![]),
        ] {
            rigbake()
                .args(["bake", "--quiet"])
                .arg(rig)
                .args(&clip)
                .args(extra)
                .arg("-o")
                .arg(out)
                .assert()
                .success();
        }
        let (got, want) = (
            common::probe_names(&fs::read_to_string(&art).unwrap()),
            common::probe_names(&fs::read_to_string(&plain).unwrap()),
        );
        assert!(!want.is_empty(), "{name}");
        assert_eq!(got, want, "{name}: the art file's probes");
    }
}
