//! The rig's `style` section (issue 16, "a look worth shipping"): bad
//! values are refused naming field and value, both looks bake every bone
//! tree on both routes with the same motion and measured figures, the
//! figure look writes tapered limbs and a translucent far side (one rule),
//! and `"style": "sticks"` writes the bytes rigbake wrote before styles.

mod common;

use assert_cmd::Command;
use common::{bad, repo};
use rigbake::Route;
use serde_json::{Value, json};
use std::fs;

fn rig(name: &str) -> Value {
    serde_json::from_str(&fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap()).unwrap()
}

/// Every bone-tree rig in `rigs/`.
fn bone_trees() -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = fs::read_dir(repo("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v: Value = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            (p.file_stem().unwrap().to_string_lossy().into_owned(), v)
        })
        .filter(|(_, v)| v.get("bones").is_some())
        .collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn with_style(mut v: Value, style: Value) -> Value {
    v["style"] = style;
    v
}

#[test]
fn bad_styles_exit_2_naming_field_and_value() {
    let walker = rig("walker");
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (
            json!("fancy"),
            vec!["style", "\"fancy\"", "figure", "sticks", "limbs"],
        ),
        (json!(3), vec!["style", "3"]),
        (json!({"look": "robot"}), vec!["style.look", "\"robot\""]),
        (
            json!({"far_opacity": 1.5}),
            vec!["style.far_opacity", "1.5"],
        ),
        (
            json!({"far_opacity": 0}),
            vec!["style.far_opacity", "got 0"],
        ),
        (json!({"far_width": -0.5}), vec!["style.far_width", "-0.5"]),
        (json!({"width_root": 0}), vec!["style.width_root", "got 0"]),
        (json!({"width_tip": -2}), vec!["style.width_tip", "-2"]),
        (json!({"stroke": "blue"}), vec!["style.stroke", "\"blue\""]),
        (
            json!({"far_stroke": "#12"}),
            vec!["style.far_stroke", "\"#12\""],
        ),
        (
            json!({"head_fill": "red"}),
            vec!["style.head_fill", "\"red\""],
        ),
        (
            json!({"joint_fill": "#ggg"}),
            vec!["style.joint_fill", "\"#ggg\""],
        ),
        (json!({"heads": ["hed"]}), vec!["style.heads[0]", "\"hed\""]),
        (json!({"shine": 1}), vec!["style", "shine"]),
    ];
    for (style, needles) in cases {
        bad(&with_style(walker.clone(), style), &needles);
    }
    // a style belongs to a bone tree
    bad(
        &with_style(rig("recumbent"), json!("figure")),
        &["style", "bone tree"],
    );
}

/// The report with its byte count left out: what the bake measured.
fn without_bytes(report: &rigbake::report::Report) -> Value {
    let mut r = serde_json::to_value(report).unwrap();
    r["bytes"] = Value::Null;
    r
}

#[test]
fn every_look_bakes_every_bone_tree_on_both_routes_with_the_same_motion() {
    let trees = bone_trees();
    assert!(
        trees.len() >= 7,
        "{:?}",
        trees.iter().map(|t| &t.0).collect::<Vec<_>>()
    );
    for (name, v) in trees {
        for route in [Route::Css, Route::Smil] {
            let figure = common::bake(&with_style(v.clone(), json!("figure")), route);
            let sticks = common::bake(&with_style(v.clone(), json!("sticks")), route);
            let limbs = common::bake(&with_style(v.clone(), json!("limbs")), route);
            // the drawing differs, the written motion does not
            assert_ne!(figure.svg, sticks.svg, "{name} {route:?}");
            assert_ne!(limbs.svg, sticks.svg, "{name} {route:?}");
            for other in [&sticks, &limbs] {
                assert_eq!(figure.clip.tracks, other.clip.tracks, "{name} {route:?}");
                assert_eq!(
                    without_bytes(&figure.report),
                    without_bytes(&other.report),
                    "{name} {route:?}"
                );
            }
            assert!(figure.svg.contains("-limb "), "{name} {route:?}");
            assert!(!figure.svg.contains("-joint"), "{name} {route:?}");
            assert!(sticks.svg.contains("-joint"), "{name} {route:?}");
            assert!(!limbs.svg.contains("-limb "), "{name} {route:?}");
        }
    }
}

/// The limbs look (the `ik_chains` drawing), on every bone tree and both
/// routes: one round-capped stroke per bone of length > 0 at the bone's
/// width, no joint balls, and per `ik` entry one disc of 0.6 × its lower
/// bone's width in the group of its target probe, at the probe, drawn
/// before every limb (behind them).
#[test]
fn limbs_look_strokes_each_bone_and_puts_a_disc_behind_each_target() {
    let mut discs_seen = 0;
    for (name, v) in bone_trees() {
        let bones = v["bones"].as_array().unwrap();
        let width = |b: &Value| {
            b.pointer("/style/width")
                .and_then(Value::as_f64)
                .unwrap_or(6.0)
        };
        let drawn: Vec<f64> = bones
            .iter()
            .filter(|b| b["length"].as_f64().unwrap_or(0.0) > 0.0)
            .map(width)
            .collect();
        let ik = v
            .get("ik")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for route in [Route::Css, Route::Smil] {
            let baked = common::bake(&with_style(v.clone(), json!("limbs")), route);
            let doc = roxmltree::Document::parse(&baked.svg).unwrap();
            let has = |n: &roxmltree::Node, c: &str| {
                n.attribute("class")
                    .is_some_and(|x| x.split(' ').any(|k| k.ends_with(c)))
            };
            // a bone's own lines (a Verlet chain's segments are strokes too)
            let in_bone = |n: &roxmltree::Node| {
                n.ancestors()
                    .skip(1)
                    .find_map(|g| g.attribute("class"))
                    .is_some_and(|c| c.contains("-b-"))
            };
            let lines: Vec<roxmltree::Node> = doc
                .descendants()
                .filter(|n| n.has_tag_name("path") && has(n, "-bone") && in_bone(n))
                .collect();
            // a line's width: its attribute, or its class's rule where
            // every line of that class has one width (the rule may hold
            // other declarations too)
            let style = doc
                .descendants()
                .find(|n| n.has_tag_name("style"))
                .and_then(|n| n.text())
                .unwrap_or("");
            let width_of = |l: &roxmltree::Node| -> f64 {
                let from_class = || {
                    l.attribute("class")?.split(' ').find_map(|c| {
                        let k = format!(".{c}{{");
                        let open = style.find(&k)? + k.len();
                        let body = &style[open..open + style[open..].find('}')?];
                        body.split(';')
                            .find_map(|d| d.strip_prefix("stroke-width:"))
                    })
                };
                l.attribute("stroke-width")
                    .or_else(from_class)
                    .unwrap()
                    .parse()
                    .unwrap()
            };
            let mut got: Vec<f64> = lines.iter().map(width_of).collect();
            let mut want = drawn.clone();
            got.sort_by(f64::total_cmp);
            want.sort_by(f64::total_cmp);
            assert_eq!(
                got, want,
                "{name} {route:?}: one stroke per bone at its width"
            );
            let discs: Vec<roxmltree::Node> = doc
                .descendants()
                .filter(|n| n.has_tag_name("circle") && has(n, "-joint"))
                .collect();
            assert_eq!(
                discs.len(),
                ik.len(),
                "{name} {route:?}: one disc per target"
            );
            for (disc, k) in discs.iter().zip(&ik) {
                let lower = bones.iter().find(|b| b["name"] == k["lower"]).unwrap();
                let r: f64 = disc.attribute("r").unwrap().parse().unwrap();
                let want_r = (width(lower) * 0.6 * 10.0).round() / 10.0;
                assert!(
                    (r - want_r).abs() < 1e-9,
                    "{name} {route:?}: r {r} for {want_r}"
                );
                let probe = disc.next_sibling_element().unwrap();
                let target = k
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or_else(|| k["lower"].as_str().unwrap());
                assert_eq!(
                    probe.attribute("data-probe"),
                    Some(&*format!("{target}-target"))
                );
                for a in ["cx", "cy"] {
                    assert_eq!(
                        probe.attribute(a),
                        disc.attribute(a),
                        "{name} {route:?} {a}"
                    );
                }
                let first_line = lines.first().unwrap().range().start;
                assert!(
                    disc.range().start < first_line,
                    "{name} {route:?}: disc in front"
                );
                discs_seen += 1;
            }
        }
    }
    assert!(discs_seen >= 20, "{discs_seen}");
}

/// `(class of the bone group, first arc radius (tip), second arc radius
/// (joint))` of every tapered bone in an SVG.
fn limbs(svg: &str) -> Vec<(String, f64, f64)> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| {
            n.has_tag_name("path") && n.attribute("class").is_some_and(|c| c.contains("-limb "))
        })
        .map(|p| {
            // (the nearest group with a class: on the smil route a rotating
            // group may hold its content in an unnamed one)
            let group = p
                .ancestors()
                .skip(1)
                .find_map(|g| g.attribute("class"))
                .unwrap()
                .to_string();
            let d = p.attribute("d").unwrap();
            let radius = |k: usize| -> f64 {
                let after = d.split('A').nth(k).unwrap();
                let end = after.find([' ', '-']).unwrap_or(after.len());
                after[..end].parse().unwrap()
            };
            (group, radius(1), radius(2))
        })
        .collect()
}

fn radii_of<'a>(l: &'a [(String, f64, f64)], bone: &str) -> &'a (String, f64, f64) {
    l.iter()
        .find(|x| x.0.ends_with(&format!("-b-{bone}")))
        .unwrap_or_else(|| panic!("no limb for {bone}: {l:?}"))
}

#[test]
fn figure_look_tapers_limbs_and_writes_the_far_side_at_042_once() {
    for (name, v) in bone_trees() {
        let far_bones = v["bones"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["name"].as_str().unwrap().ends_with("_f"))
            .count();
        if v.get("style").is_some() || far_bones == 0 {
            continue;
        }
        // the committed bakes (tests/golden.rs holds them equal to a bake)
        for file in [format!("{name}.svg"), format!("{name}.smil.svg")] {
            let svg = fs::read_to_string(repo("out").join(&file)).unwrap();
            // one rule, in the style sheet: not per element (a scene part
            // may carry its own opacity attribute)
            assert_eq!(svg.matches("{opacity:").count(), 1, "{name}");
            assert!(svg.contains("-far{opacity:.42}"), "{name}");
            let doc = roxmltree::Document::parse(&svg).unwrap();
            for b in doc.descendants().filter(|n| {
                n.attribute("class")
                    .is_some_and(|c| c.contains("-b-") && c.ends_with("_f"))
            }) {
                let far_groups = b
                    .ancestors()
                    .filter(|a| a.attribute("class").is_some_and(|c| c.ends_with("-far")))
                    .count();
                // exactly one translucent ancestor: the subtree is
                // composited once, not 0.42 × 0.42 at the shin
                assert_eq!(far_groups, 1, "{name}: {:?}", b.attribute("class"));
            }
            let l = limbs(&svg);
            if !l.iter().any(|x| x.0.ends_with("-b-thigh_n")) {
                // (the cyclist names its near limbs without `_n` and gives
                // thigh and shin their own widths)
                continue;
            }
            for (thigh, shin) in [("thigh_n", "shin_n"), ("thigh_f", "shin_f")] {
                let (_, t_tip, t_joint) = radii_of(&l, thigh);
                let (_, s_tip, s_joint) = radii_of(&l, shin);
                // tapered from hip to foot, the knee's radius shared
                assert!(
                    t_joint > t_tip && t_tip == s_joint && s_joint > s_tip,
                    "{name}: {l:?}"
                );
            }
            // the far side thinner: 0.8 of the near side's radii (to 0.01)
            let near = radii_of(&l, "thigh_n");
            let far = radii_of(&l, "thigh_f");
            assert!(
                (far.2 - near.2 * 0.8).abs() <= 0.011,
                "{name}: {near:?} {far:?}"
            );
        }
    }
}

#[test]
fn overrides_reach_the_drawing() {
    let v = with_style(
        rig("walker"),
        json!({"far_opacity": 0.3, "far_width": 0.5, "width_root": 12, "width_tip": 2,
               "far_stroke": "#FF0000", "head_fill": "#123456"}),
    );
    let svg = common::bake(&v, Route::Css).svg;
    assert!(svg.contains("-far{opacity:.3}"), "{svg}");
    let l = limbs(&svg);
    // the walker's legs have the default width: 12 → 2 over two bones
    assert_eq!(radii_of(&l, "thigh_n").2, 6.0);
    assert_eq!(radii_of(&l, "shin_n").1, 1.0);
    assert_eq!(radii_of(&l, "thigh_f").2, 3.0);
    // bones with their own stroke keep it; the head gets its fill
    assert!(svg.contains("{fill:#3730a3}"), "{svg}");
    assert!(svg.contains("-head{fill:#123456}"), "{svg}");
    // without own colours the far side takes far_stroke (lower case)
    let mut plain = v.clone();
    for b in plain["bones"].as_array_mut().unwrap() {
        b.as_object_mut().unwrap().remove("style");
    }
    let svg = common::bake(&plain, Route::Css).svg;
    assert!(svg.contains("{fill:#ff0000}"), "{svg}");
}

/// A file's drawing: its markup and the style rules that draw (not those
/// that animate: the motion's written form the emitters have since
/// shortened and regrouped, pinned by `tests/golden.rs` and the measure),
/// without the scoped names' content hash (the content includes probes;
/// the prefix has since been shortened from `<rig>-<hash>` to
/// `r<hash>`), without the ground probe, which has since moved to start a
/// period's travel along the row so it stays in the view box, and without
/// SMIL `<animate…>` elements.
fn drawing(svg: &str, rig: &str) -> String {
    let (a, b) = (svg.find("<style>").unwrap(), svg.find("</style>").unwrap());
    let rules: Vec<String> = common::css_rule_list(svg)
        .into_iter()
        .filter(|(sels, body)| {
            !sels.starts_with('[')
                && !sels.starts_with('*')
                && !["animation", "transform-", "offset-"]
                    .iter()
                    .any(|p| body.contains(p))
        })
        .map(|(sels, body)| format!("{sels}{{{body}}}"))
        .collect();
    let text = format!("{}{}{}", &svg[..a], rules.join("\n"), &svg[b..]);
    let hashed = regex_lite(&regex_lite(&text, &format!("{rig}-")), "r");
    let hashed = hashed
        .replace(&format!("{rig}-HASH"), "HASH")
        .replace("rHASH", "HASH");
    // ids are no part of the drawing: which groups carry one is the
    // optimiser structure's (`emit` module docs), since changed
    let hashed = without_ids(&hashed);
    let mut lines: Vec<&str> = hashed
        .lines()
        .filter(|l| !l.contains("data-probe=\"ground\"") && !l.contains("<animate"))
        .collect();
    // a bare root group (the fixtures' form) reads as its elements in the
    // root `<svg>` (rigbake's since)
    if let Some(i) = lines.iter().position(|l| l.ends_with("</style>")) {
        let n = lines.len();
        if lines.get(i + 1) == Some(&"<g>") && n > i + 3 && lines[n - 2] == "</g>" {
            lines.remove(n - 2);
            lines.remove(i + 1);
        }
    }
    let (mut drawn, mut probes) = (Vec::new(), Vec::new());
    for line in without_moved_origins(&lines) {
        strokes_and_probes(&line, &mut drawn, &mut probes);
    }
    probes.sort();
    drawn.extend(probes);
    drawn.join("\n")
}

/// One element line of [`drawing`] in a form that does not depend on how a
/// straight stroke and the probes are written: a `<line>` and a `<path>` of
/// one segment (`M a L b`, or `l` relative) both read `<stroke … a b>`,
/// each probe (a `<circle data-probe>`, or a stroke's `data-probe` at its
/// end) goes to `probes` as `<probe name x y>`, everything else is kept.
fn strokes_and_probes(line: &str, drawn: &mut Vec<String>, probes: &mut Vec<String>) {
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        line.find(&key).map(|i| {
            let rest = &line[i + key.len()..];
            rest[..rest.find('"').unwrap()].to_string()
        })
    };
    let num = |name: &str| attr(name).unwrap().parse::<f64>().unwrap();
    let probe = attr("data-probe");
    let ends = if line.starts_with("<line ") {
        Some([num("x1"), num("y1"), num("x2"), num("y2")])
    } else if line.starts_with("<path ") && attr("class").is_some_and(|c| c.contains("-bone")) {
        let d = attr("d").unwrap();
        let relative = d.contains('l');
        // path numbers: a sign or a second `.` starts the next one
        let mut tokens: Vec<String> = Vec::new();
        for c in d.chars() {
            let cur = tokens.last_mut();
            match (c, cur) {
                ('0'..='9', Some(t)) if !t.is_empty() => t.push(c),
                ('.', Some(t)) if !t.is_empty() && !t.contains('.') => t.push(c),
                ('0'..='9' | '.' | '-', _) => tokens.push(c.to_string()),
                _ => tokens.push(String::new()),
            }
        }
        let v: Vec<f64> = tokens
            .iter()
            .filter(|t| !t.is_empty())
            .map(|t| t.parse::<f64>().unwrap())
            .collect();
        assert_eq!(v.len(), 4, "one straight segment: {d}");
        Some(if relative {
            [v[0], v[1], v[0] + v[2], v[1] + v[3]]
        } else {
            [v[0], v[1], v[2], v[3]]
        })
    } else {
        None
    };
    let r = |x: f64| (x * 100.0).round() / 100.0;
    // a ground row, drawn as one circle per dot or as one dashed stroke:
    // its first dot, radius and count (where every dot stands is
    // `tests/ground.rs`'s to check)
    if attr("class").is_some_and(|c| c.ends_with("-dot")) {
        let dots: Vec<(f64, f64, f64)> = if line.starts_with("<circle ") {
            vec![(num("cx"), num("cy"), 2.0 * num("r"))]
        } else {
            common::ground_dots(&format!("<svg>{line}</svg>"))
        };
        for (x, y, w) in dots {
            match drawn.last_mut() {
                Some(row) if row.starts_with("<dots ") => {
                    let n: usize = row
                        .rsplit(' ')
                        .next()
                        .unwrap()
                        .trim_end_matches('>')
                        .parse()
                        .unwrap();
                    let keep = row.rsplit_once(' ').unwrap().0.to_string();
                    *row = format!("{keep} {}>", n + 1);
                }
                _ => drawn.push(format!("<dots {} {} {} 1>", r(x), r(y), w)),
            }
        }
        return;
    }
    match (ends, probe) {
        (Some([x1, y1, x2, y2]), probe) => {
            let class = attr("class").unwrap_or_default();
            let width = attr("stroke-width").unwrap_or_default();
            drawn.push(format!(
                "<stroke {class} {width} {} {} {} {}>",
                r(x1),
                r(y1),
                r(x2),
                r(y2)
            ));
            if let Some(name) = probe {
                probes.push(format!("<probe {name} {} {}>", r(x2), r(y2)));
            }
        }
        (None, Some(name)) if line.starts_with("<circle ") => {
            probes.push(format!("<probe {name} {} {}>", num("cx"), num("cy")));
        }
        _ => drawn.push(line.to_string()),
    }
}

/// `lines` (one element a line) with every smil rotation written with its
/// origin outside the values (`<g … transform="translate(o)">` holding one
/// `<g transform="translate(-o)">`, see `emit::smil::origin_outside`) put
/// back as the one group the drawing had before that form: the same
/// elements, placed alike.
fn without_moved_origins(lines: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut skip_close: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let inner = lines.get(i + 1).copied().unwrap_or("");
        if let Some(at) = line.find(" transform=\"translate(")
            && line.starts_with("<g ")
            && inner.starts_with("<g transform=\"translate(-")
        {
            out.push(format!("{}>", &line[..at]));
            depth += 2;
            // the inner group closes one level above the outer's depth
            skip_close.push(depth);
            i += 2;
            continue;
        }
        if line.starts_with("</g>") {
            if skip_close.last() == Some(&depth) {
                skip_close.pop();
                depth -= 1;
                i += 1;
                continue;
            }
            depth -= 1;
        } else if line.starts_with("<g") && !line.ends_with("/>") {
            depth += 1;
        }
        out.push(line.to_string());
        i += 1;
    }
    out
}

/// `text` without its element ids of the form rigbake writes
/// (` id="HASH-n<k>"`).
fn without_ids(text: &str) -> String {
    const KEY: &str = " id=\"HASH-n";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(KEY) {
        out.push_str(&rest[..i]);
        let after = &rest[i + KEY.len()..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 && after[digits..].starts_with('"') {
            rest = &after[digits + 1..];
        } else {
            out.push_str(KEY);
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// `text` with every `<stem><6 hex digits>` written `<stem>HASH`.
fn regex_lite(text: &str, stem: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(stem) {
        let after = &rest[i + stem.len()..];
        let hex = after.len() >= 6 && after[..6].chars().all(|c| c.is_ascii_hexdigit());
        out.push_str(&rest[..i + stem.len()]);
        if hex {
            out.push_str("HASH");
            rest = &after[6..];
        } else {
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn sticks_writes_the_drawing_from_before_styles() {
    // fixtures: `out/` as rigbake wrote it before the style section existed
    // (IK target probes since written without an empty group around them)
    // (the root group since left out where it carries nothing)
    // (runner.smil.svg's hair since redrawn as the nested rotation chain
    // both routes write, in place of its Catmull-Rom morphs)
    let tmp = tempfile::TempDir::new().unwrap();
    for (name, routes) in [
        ("walker", &["css", "smil"][..]),
        ("runner", &["css", "smil"][..]),
        ("ponytail", &["css"][..]),
    ] {
        let path = tmp.path().join(format!("{name}.json"));
        fs::write(&path, with_style(rig(name), json!("sticks")).to_string()).unwrap();
        for route in routes {
            let file = if *route == "css" {
                format!("{name}.svg")
            } else {
                format!("{name}.smil.svg")
            };
            // (a prefix in the fixtures' form, `r` and six hex digits, which
            // `drawing` reads as any prefix; it changes nothing else)
            let out = Command::cargo_bin("rigbake")
                .unwrap()
                .args(["bake", "--prefix", "r0a1b2c", "--route", route, "-o"])
                .arg(tmp.path().join("out"))
                .arg(&path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let got = fs::read_to_string(tmp.path().join("out").join(&file)).unwrap();
            let want = fs::read_to_string(repo(&format!("tests/fixtures/sticks/{file}"))).unwrap();
            assert_eq!(
                drawing(&got, name),
                drawing(&want, name),
                "{file} differs from the drawing before styles"
            );
        }
    }
}

/// `"joint_fill": "none"` draws no joint balls (sticks) and no target discs
/// (limbs), writes no `-joint` rule, and changes nothing else: the written
/// motion and every measured figure are those of the default fill, on
/// every bone tree and both routes.
#[test]
fn joint_fill_none_draws_no_joint_balls_or_target_discs() {
    let mut fewer = 0;
    for (name, v) in bone_trees() {
        for look in ["sticks", "limbs"] {
            for route in [Route::Css, Route::Smil] {
                let filled = common::bake(&with_style(v.clone(), json!({ "look": look })), route);
                let none = common::bake(
                    &with_style(v.clone(), json!({ "look": look, "joint_fill": "none" })),
                    route,
                );
                let what = format!("{name} {look} {route:?}");
                assert!(!none.svg.contains("-joint"), "{what}");
                assert_eq!(filled.clip.tracks, none.clip.tracks, "{what}");
                assert_eq!(
                    without_bytes(&filled.report),
                    without_bytes(&none.report),
                    "{what}"
                );
                // the same file but for the joint circles and their rule
                let circles = |svg: &str| svg.lines().filter(|l| l.contains("-joint")).count();
                if circles(&filled.svg) > 0 {
                    fewer += 1;
                    assert!(none.svg.len() < filled.svg.len(), "{what}");
                }
            }
        }
    }
    assert!(fewer >= 7, "{fewer}");
}

/// In the figure look a bone draws a limb shape (`-limb`, a tapered path,
/// or a disc where one end's circle holds the other) exactly when it has a
/// length and no head: a bone of length 0 (a hip, a hub, an axle) draws
/// nothing, on both routes of every example in the figure look.
#[test]
fn figure_look_draws_a_limb_for_every_bone_with_a_length_and_nothing_else() {
    let mut zero = 0;
    for (name, v) in bone_trees() {
        if v.get("style")
            .is_some_and(|s| s != "figure" && s.get("look").is_none_or(|l| l != "figure"))
        {
            continue;
        }
        let heads: Vec<&str> = v["style"]["heads"]
            .as_array()
            .map(|a| a.iter().filter_map(|h| h.as_str()).collect())
            .unwrap_or_else(|| vec!["head"]);
        for route in [Route::Css, Route::Smil] {
            let baked = common::bake(&v, route);
            let doc = roxmltree::Document::parse(&baked.svg).unwrap();
            // the shapes each bone's own group holds (not its children's)
            let limb_in = |bone: &str| {
                let class = format!("-b-{bone}");
                doc.descendants()
                    .filter(|n| n.attribute("class").is_some_and(|c| c.contains("-limb ")))
                    .filter(|n| {
                        n.ancestors()
                            .skip(1)
                            .find_map(|g| g.attribute("class").filter(|c| c.contains("-b-")))
                            .is_some_and(|c| c.ends_with(&class))
                    })
                    .count()
            };
            for b in v["bones"].as_array().unwrap() {
                let bone = b["name"].as_str().unwrap();
                let length = b["length"].as_f64().unwrap_or(0.0);
                let drawn =
                    length > 0.0 && b.get("head_radius").is_none() && !heads.contains(&bone);
                zero += usize::from(length == 0.0);
                assert_eq!(
                    limb_in(bone),
                    usize::from(drawn),
                    "{name} {route:?} {bone} (length {length})"
                );
            }
        }
    }
    assert!(zero > 0, "no example has a bone of length 0");
}
