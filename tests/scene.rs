//! `scene` parts: validation (exit 2, one line naming field and value),
//! where parts are written (carried parts inside their bone's group on
//! both routes, static parts outside every animated group) and the
//! cyclist's wheels turning at its gear ratio.

mod common;

use common::{bad, bake, repo};
use rigbake::Route;
use serde_json::{Value, json};
use std::fs;

fn rig(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap()).unwrap()
}

fn part_index(v: &Value, name: &str) -> usize {
    v["scene"]
        .as_array()
        .unwrap()
        .iter()
        .position(|p| p["name"] == name)
        .unwrap()
}

#[test]
fn bad_parts_exit_2_naming_field_and_value() {
    let cy = rig("cyclist");
    let spokes = part_index(&cy, "spokes_r");
    let edit = |f: &dyn Fn(&mut Value)| {
        let mut v = cy.clone();
        f(&mut v);
        v
    };
    bad(
        &edit(&|v| v["scene"][0]["d"] = "M 0 0 L zz".into()),
        &["scene[0].d", "zz"],
    );
    bad(
        &edit(&|v| v["scene"][0]["d"] = "M0 0L1e300 5".into()),
        &["scene[0].d", "1e300"],
    );
    bad(
        &edit(&|v| v["scene"][0]["d"] = "M0 0".into()),
        &["scene[0].d"],
    );
    // an arc's own numbers (written as given, not only kurbo's points),
    // each of them, out of range or overflowing, static or carried
    for (at, part) in [(0, "tyre_r"), (spokes, "spokes_r")] {
        assert_eq!(cy["scene"][at]["name"], part);
        for (arc, value) in [
            ("A1e300 5 0 0 1 10 10", "1e300"),
            ("A5 1e300 0 0 1 10 10", "1e300"),
            ("A5 5 1e300 0 1 10 10", "1e300"),
            ("A1e999 5 0 0 1 10 10", "inf"),
            ("a5 5 -2e6 0 1 10 10", "-2000000"),
        ] {
            bad(
                &edit(&|v| v["scene"][at]["d"] = format!("M0 0L5 5{arc}").into()),
                &[&format!("scene[{at}].d"), "arc", value],
            );
        }
    }
    bad(
        &edit(&|v| v["scene"][0]["style"]["width"] = json!(-1)),
        &["scene[0].style.width", "-1"],
    );
    bad(
        &edit(&|v| v["scene"][0]["style"]["opacity"] = json!(2)),
        &["scene[0].style.opacity", "2"],
    );
    bad(
        &edit(&|v| v["scene"][0]["style"]["fill"] = json!("red")),
        &["scene[0].style.fill", "red"],
    );
    bad(
        &edit(&|v| v["scene"][0]["style"]["stroke"] = json!("#12")),
        &["scene[0].style.stroke", "#12"],
    );
    bad(
        &edit(&|v| v["scene"][1]["name"] = v["scene"][0]["name"].clone()),
        &["scene[1].name", "tyre_r"],
    );
    bad(
        &edit(&|v| v["scene"][0]["name"] = json!("a-b")),
        &["scene[0].name", "a-b"],
    );
    let p = format!("scene[{spokes}]");
    bad(
        &edit(&|v| v["scene"][spokes]["bone"] = json!("nobody")),
        &[&format!("{p}.bone"), "nobody"],
    );
    bad(
        &edit(&|v| v["scene"][spokes]["layer"] = json!("front")),
        &[&format!("{p}.layer")],
    );
    // a cycling-leg rig has no place for parts; an ik_chains rig has no bones
    let mut seed = rig("seed-nested");
    seed["scene"] = json!([{"name": "x", "d": "M0 0L1 1"}]);
    bad(&seed, &["scene", "bones"]);
    let mut pf = rig("path-foot");
    pf["scene"][0]["bone"] = json!("near");
    bad(&pf, &["scene[0].bone", "near"]);
}

/// Ancestors of the element with a class ending with `-p-<part>`.
fn ancestors<'a>(doc: &'a roxmltree::Document, part: &str) -> Vec<roxmltree::Node<'a, 'a>> {
    let suffix = format!("-p-{part}");
    let node = doc
        .descendants()
        .find(|n| {
            n.attribute("class")
                .is_some_and(|c| c.split(' ').any(|c| c.ends_with(&suffix)))
        })
        .unwrap_or_else(|| panic!("no part {part}"));
    // (a part whose data is one whole circle is written as a <circle>)
    assert!(matches!(node.tag_name().name(), "path" | "circle"));
    node.ancestors()
        .skip(1)
        .filter(|n| n.is_element())
        .collect()
}

fn has_class(n: &roxmltree::Node, suffix: &str) -> bool {
    n.attribute("class")
        .is_some_and(|c| c.split(' ').any(|c| c.ends_with(suffix)))
}

#[test]
fn carried_parts_move_with_their_bone_and_static_parts_stay_still_on_both_routes() {
    let cy = rig("cyclist");
    for route in [Route::Css, Route::Smil] {
        let svg = bake(&cy, route).svg;
        let doc = roxmltree::Document::parse(&svg).unwrap();
        for (part, bone) in [
            ("spokes_r", "-b-wheel_rear"),
            ("spokes_f", "-b-wheel_front"),
            ("chainring", "-b-crank"),
            ("pedal_n", "-b-pedal"),
        ] {
            let up = ancestors(&doc, part);
            // the nearest bone group is the carrying bone's
            let first = up
                .iter()
                .find(|n| n.attribute("class").is_some_and(|c| c.contains("-b-")))
                .unwrap();
            assert!(
                has_class(first, bone),
                "{route:?} {part}: in {:?}",
                first.attribute("class")
            );
            if route == Route::Smil {
                assert!(
                    first
                        .children()
                        .any(|c| c.tag_name().name() == "animateTransform"),
                    "{part}: its bone group is not animated on smil"
                );
            }
        }
        for part in ["tyre_r", "tyre_f", "rim_r"] {
            for n in ancestors(&doc, part) {
                assert!(
                    !n.attribute("class")
                        .is_some_and(|c| c.contains("-b-") || c.contains("-lift")),
                    "{route:?} static {part} inside {:?}",
                    n.attribute("class")
                );
                assert!(
                    !n.children()
                        .any(|c| c.tag_name().name().starts_with("animate"))
                );
            }
        }
        // the css sheet animates the wheel groups, never a part: no rule
        // but the parts' round caps selects one
        if route == Route::Css {
            let style = doc
                .descendants()
                .find(|n| n.has_tag_name("style"))
                .unwrap()
                .text()
                .unwrap();
            let (_, rule) = caps_rule(&doc);
            let rule = rule.expect("the cyclist's parts share one rule");
            assert!(rule.contains(CAPS), "the cyclist's 17 parts share it");
            assert!(
                !style.replace(&rule, "").contains("-p-"),
                "a part is selected by the sheet"
            );
        }
    }
}

/// A part carried by a bone of a chain that replays another chain's keys
/// (the near leg, drawn half a period earlier) is written where that bone
/// is drawn, not where the rig's own pose has it.
#[test]
fn a_carried_part_follows_its_bone_into_the_drawn_pose() {
    let mut cy = rig("cyclist");
    // the near ankle at t = 0 is on the near pedal: crank tip (470, 420)
    cy["scene"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "shoe", "bone": "shin", "d": "M470 420L490 420"}));
    let baked = bake(&cy, Route::Css);
    assert!(
        baked.report.notes.iter().any(|n| n.contains("key reuse")),
        "{:?}",
        baked.report.notes
    );
    let doc = roxmltree::Document::parse(&baked.svg).unwrap();
    let tip = doc
        .descendants()
        .find(|n| n.attribute("data-probe") == Some("shin-tip"))
        .unwrap();
    let (x, y): (f64, f64) = (
        tip.attribute("cx").unwrap().parse().unwrap(),
        tip.attribute("cy").unwrap().parse().unwrap(),
    );
    assert!(
        (x - 470.0).abs() > 1.0 || (y - 420.0).abs() > 1.0,
        "the near leg is drawn at the rig's own pose"
    );
    let shoe = doc
        .descendants()
        .find(|n| n.attribute("class").is_some_and(|c| c.ends_with("-p-shoe")))
        .unwrap();
    let d = shoe.attribute("d").unwrap();
    let start: Vec<f64> = d[1..]
        .split(['L', ' '])
        .take(2)
        .map(|s| s.parse().unwrap())
        .collect();
    assert!(
        (start[0] - x).abs() < 0.02 && (start[1] - y).abs() < 0.02,
        "shoe starts at {start:?}, the drawn ankle is at ({x}, {y})"
    );
}

/// Gear ratio: the wheels turn twice per crank turn, whole turns per
/// period (a seamless loop), as written in the file.
#[test]
fn the_cyclists_wheels_turn_twice_per_crank_turn() {
    let baked = bake(&rig("cyclist"), Route::Css);
    let clip = &baked.clip;
    let fig = clip.figure.as_ref().unwrap();
    let turn = |bone: &str| {
        let b = fig.bones.iter().find(|b| b.name == bone).unwrap();
        let keys = &clip.tracks[b.track.unwrap()].keys;
        keys.last().unwrap().value - keys[0].value
    };
    assert_eq!(turn("crank"), 360.0);
    assert_eq!(turn("wheel_rear"), 720.0);
    assert_eq!(turn("wheel_front"), 720.0);
}

const CAPS: &str = "stroke-linecap:round;stroke-linejoin:round";
const CAPS_ATTRS: &str = r#" stroke-linecap="round" stroke-linejoin="round""#;

/// The `<style>` text of a written file.
fn style_of<'a>(doc: &'a roxmltree::Document) -> &'a str {
    doc.descendants()
        .find(|n| n.has_tag_name("style"))
        .and_then(|n| n.text())
        .unwrap_or("")
}

/// The body of the rule `<selector>{…}` of `style`, if it has one.
fn rule_body<'a>(style: &'a str, selector: &str) -> Option<&'a str> {
    let at = style.find(&format!("{selector}{{"))? + selector.len() + 1;
    Some(&style[at..at + style[at..].find('}')?])
}

/// A part's value of the paint property `prop`: its attribute, else the
/// rule of one of its classes (a shared look, `.<prefix>-l<k>`), else the
/// sheet's rule for every part.
fn paint_of(node: &roxmltree::Node, style: &str, stem: &str, prop: &str) -> Option<String> {
    let decl = |body: &str| {
        body.split(';')
            .find_map(|d| d.strip_prefix(&format!("{prop}:")).map(String::from))
    };
    if let Some(v) = node.attribute(prop) {
        return Some(v.to_string());
    }
    let classes = node.attribute("class").unwrap_or("");
    classes
        .split(' ')
        .find_map(|c| rule_body(style, &format!(".{c}")).and_then(decl))
        .or_else(|| rule_body(style, &format!("[class^={stem}]")).and_then(decl))
}

/// The stroked scene parts of a written file drawn as paths (a part
/// written as a `<circle>` is closed: it has no caps or joins), and the
/// sheet's one rule for every part (`[class^=<prefix>-p-]{…}`), if any.
fn caps_rule<'a>(doc: &'a roxmltree::Document) -> (Vec<roxmltree::Node<'a, 'a>>, Option<String>) {
    let style = style_of(doc);
    let stem = doc
        .descendants()
        .find_map(|n| {
            let c = n.attribute("class").filter(|c| c.contains("-p-"))?;
            Some(c[..c.find("-p-").unwrap() + 3].to_string())
        })
        .unwrap_or_default();
    let parts: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("path")
                && n.attribute("class").is_some_and(|c| c.contains("-p-"))
                && paint_of(n, style, &stem, "stroke").is_some_and(|s| s != "none")
        })
        .collect();
    let selector = format!("[class^={stem}]");
    let rule = rule_body(style, &selector).map(|b| format!("{selector}{{{b}}}"));
    (parts, rule)
}

/// Every stroked scene part of every file in `out/` (every rig with a
/// scene, both routes) has round caps and joins from exactly one place:
/// its own attributes, or the sheet's one rule for all parts (path-foot's
/// one part keeps its attributes; the cyclist's and rower's parts share
/// the rule), and every part has a stroke, a width and a fill from its
/// attributes or the sheet.
#[test]
fn every_stroked_part_has_round_caps_and_joins_from_its_attributes_or_the_one_rule() {
    let mut seen = (0, 0);
    for entry in fs::read_dir(repo("out")).unwrap() {
        let path = entry.unwrap().path();
        let svg = fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let (parts, rule) = caps_rule(&doc);
        if parts.is_empty() {
            continue;
        }
        let has_rule = rule.as_ref().is_some_and(|r| r.contains(CAPS));
        for p in &parts {
            let caps = (
                p.attribute("stroke-linecap"),
                p.attribute("stroke-linejoin"),
            );
            let want = if has_rule {
                (None, None)
            } else {
                (Some("round"), Some("round"))
            };
            assert_eq!(caps, want, "{}: {:?}", path.display(), p.attribute("class"));
            let c = p.attribute("class").unwrap();
            let stem = &c[..c.find("-p-").unwrap() + 3];
            for prop in ["fill", "stroke-width"] {
                assert!(
                    paint_of(p, style_of(&doc), stem, prop).is_some(),
                    "{}: {c} has no {prop}",
                    path.display()
                );
            }
        }
        if parts.len() == 1 {
            assert!(!has_rule, "{}: a rule for one part", path.display());
        }
        if has_rule { seen.0 += 1 } else { seen.1 += 1 }
    }
    assert!(
        seen.0 >= 4 && seen.1 >= 2,
        "both forms are written: {seen:?}"
    );
}

/// Each distinct look (paint) of the scene parts of a file is written
/// once: as one rule `.<prefix>-l<k>{…}` that two or more parts wear, or
/// as the attributes of the one part that has it. Lowered cycling rigs
/// and the cyclist repeat a look on both sides (crank arms, pedals,
/// tyres, rims, spokes).
#[test]
fn every_part_look_is_written_once() {
    let mut shared = 0;
    for entry in fs::read_dir(repo("out")).unwrap() {
        let path = entry.unwrap().path();
        let svg = fs::read_to_string(&path).unwrap();
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let style = style_of(&doc);
        let mut by_attrs: Vec<Vec<Option<&str>>> = Vec::new();
        let mut wearers: std::collections::BTreeMap<&str, usize> = Default::default();
        for n in doc.descendants() {
            let Some(class) = n.attribute("class").filter(|c| c.contains("-p-")) else {
                continue;
            };
            let looks: Vec<&str> = class.split(' ').skip(1).collect();
            assert!(looks.len() <= 1, "{}: {class}", path.display());
            if let Some(look) = looks.first() {
                *wearers.entry(look).or_default() += 1;
                let paint = ["fill", "stroke", "stroke-width", "opacity"];
                assert!(
                    paint.iter().all(|p| n.attribute(*p).is_none()),
                    "{}: {class} has its look's paint as attributes too",
                    path.display()
                );
                continue;
            }
            let paint: Vec<Option<&str>> = [
                "fill",
                "stroke",
                "stroke-width",
                "stroke-dasharray",
                "opacity",
            ]
            .iter()
            .map(|p| n.attribute(*p))
            .collect();
            assert!(
                !by_attrs.contains(&paint),
                "{}: {class} repeats another part's paint {paint:?}",
                path.display()
            );
            by_attrs.push(paint);
        }
        for (look, n) in wearers {
            assert!(n >= 2, "{}: {look} is worn once", path.display());
            assert_eq!(
                style.matches(&format!(".{look}{{")).count(),
                1,
                "{}: {look}",
                path.display()
            );
            shared += 1;
        }
    }
    assert!(shared >= 6, "the cyclist's and rower's parts share looks");
}

/// Chromium draws the parts the same from the rule as from their own
/// attributes, and differently without either (so the picture can tell).
#[test]
fn chromium_draws_parts_alike_from_the_caps_rule_and_from_attributes() {
    let Some(chromium) = common::art::chromium_or_skip("the parts' caps rule") else {
        return;
    };
    let svg = fs::read_to_string(repo("out/cyclist.svg")).unwrap();
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let (parts, rule) = caps_rule(&doc);
    let rule = rule.expect("the cyclist's parts share one rule");
    assert!(rule.contains(CAPS), "{rule}");
    // the file's whole sheet (the parts' looks are classes of it), with
    // the caps in the parts' rule or without them
    let sheet = style_of(&doc);
    let uncapped = sheet.replace(&rule, &rule.replace(CAPS, ""));
    let texts: Vec<&str> = parts.iter().map(|p| &svg[p.range()]).collect();
    let [x, y, w, h] = rigbake::browser::root_view_box(&svg).unwrap();
    let page = |sheet: &str, attrs: &str| {
        let body: String = texts
            .iter()
            .map(|t| t.replacen("<path ", &format!("<path{attrs} "), 1))
            .collect();
        format!(
            "<!doctype html><body style=\"margin:0\"><svg xmlns=\"http://www.w3.org/2000/svg\" \
             viewBox=\"{x} {y} {w} {h}\" width=\"{w}\" height=\"{h}\"><style>{sheet}</style>{body}</svg></body>"
        )
    };
    let dir = tempfile::tempdir().unwrap();
    let shot = |name: &str, html: String| {
        let png = dir.path().join(name);
        rigbake::browser::screenshot(&chromium, &html, w as u32, h as u32, 100, &png).unwrap();
        fs::read(png).unwrap()
    };
    let from_rule = shot("rule.png", page(sheet, ""));
    let from_attrs = shot("attrs.png", page(&uncapped, CAPS_ATTRS));
    let without = shot("none.png", page(&uncapped, ""));
    assert!(
        from_rule == from_attrs,
        "the rule draws other caps than the attributes"
    );
    assert!(from_rule != without, "the picture does not show caps");
}
