//! Smaller files, same motion: the forms both writers use, checked on a
//! fresh bake of every rig in `rigs/` on both routes (the class, not one
//! example). Chromium judges the same files in `tests/browser.rs`.
//!
//! `cargo test --test small sizes -- --nocapture` prints every file's size
//! and the totals per route.

use rayon::prelude::*;
use rigbake::clip::{Clip, Ease};
use rigbake::geom::Vec2Ext;
use rigbake::{Baked, Route, bake_rig, measure, rig};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::LazyLock;

fn rig_paths() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("rigs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    v
}

/// (file name as in `out/`, bake) for every rig and route, baked once for
/// all the tests of this file (both cores at work).
fn bakes() -> &'static [(String, Baked)] {
    static BAKES: LazyLock<Vec<(String, Baked)>> = LazyLock::new(|| {
        let jobs: Vec<(rig::Rig, Route)> = rig_paths()
            .iter()
            .map(|path| rig::load(&std::fs::read_to_string(path).unwrap()).unwrap())
            .flat_map(|rig| [(rig.clone(), Route::Css), (rig, Route::Smil)])
            .collect();
        let out: Vec<(String, Baked)> = jobs
            .into_par_iter()
            .map(|(rig, route)| {
                let opts = rigbake::bake::BakeOptions::resolve(&rig, route, None, None, None);
                let name = match route {
                    Route::Css => format!("{}.svg", rig.name),
                    Route::Smil => format!("{}.smil.svg", rig.name),
                };
                (name, bake_rig(&rig, &opts))
            })
            .collect();
        assert!(out.len() >= 20, "rigs/ holds the examples");
        out
    });
    &BAKES
}

/// The text between `open` and the matching close of the block that starts
/// at `s[0] == '{'`, and the rest after it.
fn block(s: &str) -> (&str, &str) {
    assert!(s.starts_with('{'));
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return (&s[1..i], &s[i + 1..]);
                }
            }
            _ => {}
        }
    }
    panic!("unbalanced braces: {s}")
}

/// A keyframe: selector, declarations other than the timing function, own
/// timing function, how many keys share its block (`0%,to{…}`).
type Keyframe = (String, String, Option<String>, usize);

/// A keyframe selector's offset in per cent.
fn offset(sel: &str) -> f64 {
    match sel {
        "from" => 0.0,
        "to" => 100.0,
        p => p.strip_suffix('%').unwrap().parse().unwrap(),
    }
}

/// The style sheet of an SVG: (rules: selector → declarations, keyframes:
/// name → (body, keys)).
#[allow(clippy::type_complexity)]
fn sheet(
    svg: &str,
) -> (
    Vec<(String, String)>,
    BTreeMap<String, (String, Vec<Keyframe>)>,
) {
    let css = &svg[svg.find("<style>").unwrap() + 7..svg.find("</style>").unwrap()];
    let css = css.trim();
    let (mut rules, mut frames) = (Vec::new(), BTreeMap::new());
    let mut rest = css;
    while !rest.is_empty() {
        let open = rest.find('{').unwrap();
        let head = rest[..open].to_string();
        let (body, after) = block(&rest[open..]);
        if let Some(name) = head.strip_prefix("@keyframes ") {
            let mut keys = Vec::new();
            let mut k = body;
            while !k.is_empty() {
                let o = k.find('{').unwrap();
                let sel = k[..o].to_string();
                let (decls, after) = block(&k[o..]);
                let mut tf = None;
                let mut own = Vec::new();
                for d in decls.split(';') {
                    match d.strip_prefix("animation-timing-function:") {
                        Some(t) => tf = Some(t.to_string()),
                        None => own.push(d),
                    }
                }
                let sels: Vec<&str> = sel.split(',').collect();
                for one in &sels {
                    keys.push((one.to_string(), own.join(";"), tf.clone(), sels.len()));
                }
                k = after;
            }
            keys.sort_by(|a, b| offset(&a.0).total_cmp(&offset(&b.0)));
            let dup = frames.insert(name.to_string(), (body.to_string(), keys));
            assert!(dup.is_none(), "@keyframes {name} written twice");
        } else if head == "@media all" {
            // a class-switched file's clip rules (see emit::figure)
            let mut r = body;
            while !r.is_empty() {
                let o = r.find('{').unwrap();
                let (decls, after) = block(&r[o..]);
                rules.push((r[..o].to_string(), decls.to_string()));
                r = after;
            }
        } else if !head.starts_with('@') {
            rules.push((head, body.to_string()));
        }
        rest = after;
    }
    (rules, frames)
}

/// The `animation` shorthand of a rule: (name, timing function).
fn animation(decls: &str) -> Option<(String, String)> {
    let a = decls
        .split(';')
        .find_map(|d| d.strip_prefix("animation:"))?;
    let parts: Vec<&str> = a.split(' ').collect();
    Some((parts[0].to_string(), parts[2].to_string()))
}

#[test]
fn sizes() {
    let (mut css, mut smil) = (0, 0);
    for (name, b) in bakes() {
        println!("{name:28} {:7} B", b.svg.len());
        assert_eq!(b.report.bytes, b.svg.len(), "{name}: the report's size");
        match b.clip.route {
            Route::Css => css += b.svg.len(),
            Route::Smil => smil += b.svg.len(),
        }
    }
    println!("css total {css} B, smil total {smil} B");
    // the 13 examples older than cyclist, run-up and stickman (the set the
    // size figures in README.md compare)
    let older = |name: &str| {
        !["cyclist.", "run-up.", "stickman."]
            .iter()
            .any(|n| name.starts_with(n))
    };
    let total = |route: Route| -> usize {
        bakes()
            .iter()
            .filter(|(name, b)| older(name) && b.clip.route == route)
            .map(|(_, b)| b.svg.len())
            .sum()
    };
    println!(
        "without cyclist, run-up, stickman: css {} B, smil {} B",
        total(Route::Css),
        total(Route::Smil)
    );
}

#[test]
fn the_usual_timing_function_is_on_the_rule_and_only_exceptions_on_keys() {
    let mut checked = 0;
    for (name, b) in bakes() {
        if b.clip.route != Route::Css {
            continue;
        }
        let (rules, frames) = sheet(&b.svg);
        for (sel, decls) in &rules {
            let Some((anim, rule_tf)) = animation(decls) else {
                continue;
            };
            let (_, keys) = frames
                .get(&anim)
                .unwrap_or_else(|| panic!("{name} {sel}: no @keyframes {anim}"));
            let mut count: BTreeMap<&str, usize> = BTreeMap::new();
            for (ksel, _, tf, _) in &keys[..keys.len() - 1] {
                assert_ne!(
                    tf.as_deref(),
                    Some(rule_tf.as_str()),
                    "{name} {anim} {ksel}: repeats the rule's timing function"
                );
                *count.entry(tf.as_deref().unwrap_or(&rule_tf)).or_default() += 1;
            }
            // the last key has no segment to time: it carries a timing
            // function only when it shares an earlier key's block
            let last = keys.last().unwrap();
            assert!(
                last.2.is_none() || last.3 > 1,
                "{name} {anim}: the last key has no segment to time"
            );
            let usual = count.get(rule_tf.as_str()).copied().unwrap_or(0);
            assert!(
                count.values().all(|&n| n <= usual),
                "{name} {anim}: {rule_tf} on the rule, but {count:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} animations checked");
}

#[test]
fn keyframe_bodies_are_written_once_and_constant_tracks_not_animated() {
    for (name, b) in bakes() {
        if b.clip.route != Route::Css {
            continue;
        }
        let (rules, frames) = sheet(&b.svg);
        let mut bodies: BTreeMap<&str, &str> = BTreeMap::new();
        for (anim, (body, keys)) in &frames {
            if let Some(other) = bodies.insert(body, anim) {
                panic!("{name}: @keyframes {other} and {anim} have one body");
            }
            assert!(
                keys.iter().any(|k| k.1 != keys[0].1),
                "{name}: @keyframes {anim} holds one value"
            );
            assert!(
                rules
                    .iter()
                    .any(|(_, d)| animation(d).is_some_and(|(a, _)| a == *anim)),
                "{name}: @keyframes {anim} is never used"
            );
        }
    }
}

/// Within one `@keyframes`, no two blocks are the same, and the last key
/// (whose timing function is never used) has no block of its own when an
/// earlier key declares its value. (Chromium plays the merged blocks in
/// `tests/browser.rs`.)
#[test]
fn identical_key_blocks_are_merged() {
    let (mut merged, mut checked) = (0, 0);
    for (name, b) in bakes() {
        if b.clip.route != Route::Css {
            continue;
        }
        let (_, frames) = sheet(&b.svg);
        for (anim, (body, keys)) in &frames {
            let mut blocks: Vec<&str> = Vec::new();
            let mut rest = body.as_str();
            while !rest.is_empty() {
                let o = rest.find('{').unwrap();
                let c = rest[o + 1..].find('}').unwrap();
                let block = &rest[o + 1..o + 1 + c];
                assert!(
                    !blocks.contains(&block),
                    "{name} {anim}: {{{block}}} written twice"
                );
                blocks.push(block);
                rest = &rest[o + c + 2..];
            }
            let last = keys.last().unwrap();
            if keys[..keys.len() - 1].iter().any(|k| k.1 == last.1) {
                assert!(last.3 > 1, "{name} {anim}: the last key is not merged");
            }
            merged += keys.iter().filter(|k| k.3 > 1).count();
            checked += 1;
        }
    }
    assert!(
        checked > 70 && merged > 100,
        "{checked} keyframes, {merged} merged keys"
    );
}

/// Every `<animate…>` element of an SVG: its attributes.
fn smil_anims(svg: &str) -> Vec<BTreeMap<String, String>> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.tag_name().name().starts_with("animate"))
        .map(|n| {
            n.attributes()
                .map(|a| (a.name().to_string(), a.value().to_string()))
                .collect()
        })
        .collect()
}

#[test]
fn smil_key_times_only_where_needed_and_no_still_animations() {
    let mut omitted = 0;
    for (name, b) in bakes() {
        if b.clip.route != Route::Smil {
            continue;
        }
        for a in smil_anims(&b.svg) {
            // an <animateMotion> (a marker on its path) has a path, no values
            if a.contains_key("path") {
                continue;
            }
            let values: Vec<&str> = a["values"].split(';').collect();
            let n = values.len();
            assert!(
                values.iter().any(|v| *v != values[0]),
                "{name}: an animation of one value: {a:?}"
            );
            let spline = a.get("calcMode").is_some_and(|m| m == "spline");
            match a.get("keyTimes") {
                Some(kt) => {
                    let times: Vec<f64> = kt.split(';').map(|t| t.parse().unwrap()).collect();
                    assert_eq!(times.len(), n, "{name}: keyTimes per value");
                    let even = times.iter().enumerate().all(|(i, t)| {
                        let want = i as f64 / (n - 1) as f64;
                        (want * 1e6).round() == (t * 1e6).round()
                    });
                    assert!(spline || !even, "{name}: evenly spaced keyTimes: {kt}");
                }
                None => {
                    // SMIL: keySplines are defined on the keyTimes intervals
                    assert!(!spline, "{name}: calcMode=spline without keyTimes");
                    omitted += 1;
                }
            }
            if spline {
                assert_eq!(a["keySplines"].split(';').count(), n - 1, "{name}");
            }
        }
    }
    // (legs and uniform tracks; Verlet chains mostly key where they move,
    // so their morphs carry keyTimes)
    assert!(
        omitted > 40,
        "keyTimes left out on only {omitted} animations"
    );
}

/// Every number written outside clock values (`dur`, `begin`) and
/// metadata (`data-period`) is in its shortest form: no leading `0.`, no
/// trailing zero after the point, no bare `.`.
#[test]
fn numbers_are_written_in_their_shortest_form() {
    for (name, b) in bakes() {
        let mut text = b.svg.clone();
        for attr in [" dur=\"", " begin=\"", " data-period=\""] {
            while let Some(at) = text.find(attr) {
                let end = at + attr.len() + text[at + attr.len()..].find('"').unwrap();
                text.replace_range(at..=end, "");
            }
        }
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            // a number starts with a digit or with a point before a digit
            // (`.rb-leg` is a selector), not inside a name (`rb-k0`, `#38bdf8`)
            let digit_at = |k: usize| bytes.get(k).is_some_and(|b| b.is_ascii_digit());
            let starts = (digit_at(i) || (bytes[i] == b'.' && digit_at(i + 1)))
                && (i == 0
                    || !(bytes[i - 1].is_ascii_alphanumeric()
                        || bytes[i - 1] == b'_'
                        || bytes[i - 1] == b'#'));
            if !starts {
                i += 1;
                continue;
            }
            let mut j = i;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b'.') {
                j += 1;
            }
            let num = &text[i..j];
            // `1.5.5` would be two numbers in path data; one point per number here
            assert!(num.matches('.').count() <= 1, "{name}: {num}");
            if num.contains('.') {
                let ctx = &text[i.saturating_sub(30)..(j + 10).min(text.len())];
                assert!(
                    !num.starts_with("0."),
                    "{name}: leading zero in {num}: {ctx}"
                );
                assert!(
                    !num.ends_with('0') && !num.ends_with('.'),
                    "{name}: trailing zero in {num}: {ctx}"
                );
            }
            i = j;
        }
    }
}

/// SMIL spreads values without keyTimes at exactly i/(n − 1); the clip holds
/// those times rounded to six places. Moving every key of such a linear,
/// evenly spaced track or morph to the exact time moves no probe by more
/// than 5e-4 px at any of 4,000 times, below the 0.001 px the report prints:
/// the report measures what browsers play. (The bound grows with key count
/// and probe speed: run-up's 4 s loop of up to 512 keys, the fastest, moves
/// a probe about 1e-4 px; the other examples under 1e-4 px.)
#[test]
fn omitted_key_times_move_no_probe() {
    let exact = |times: &mut dyn Iterator<Item = &mut f64>| {
        let ts: Vec<&mut f64> = times.collect();
        let n = ts.len();
        let even = ts
            .iter()
            .enumerate()
            .all(|(i, t)| ((i as f64 / (n - 1) as f64) * 1e6).round() == (**t * 1e6).round());
        if even {
            for (i, t) in ts.into_iter().enumerate() {
                *t = i as f64 / (n - 1) as f64;
            }
        }
    };
    let mut moved = 0;
    for (name, b) in bakes() {
        if b.clip.route != Route::Smil {
            continue;
        }
        let mut clip: Clip = b.clip.clone();
        for tr in &mut clip.tracks {
            let n = tr.keys.len();
            // linear as written: a spline on the diagonal is written linear
            let linear = |e: &Ease| match e {
                Ease::Linear => true,
                Ease::CubicBezier(b) => b[0] == b[1] && b[2] == b[3],
            };
            if tr.keys[..n - 1].iter().all(|k| linear(&k.ease)) {
                exact(&mut tr.keys.iter_mut().map(|k| &mut k.t));
            }
        }
        fn morphs(items: &mut [rigbake::clip::Item], f: &mut dyn FnMut(&mut rigbake::clip::Morph)) {
            for it in items {
                match it {
                    rigbake::clip::Item::Morph(m) => f(m),
                    rigbake::clip::Item::Group(g) => morphs(&mut g.children, f),
                    _ => {}
                }
            }
        }
        morphs(&mut clip.root.children, &mut |m| {
            exact(&mut m.keys.iter_mut().map(|k| &mut k.0));
        });
        if clip != b.clip {
            moved += 1;
        }
        let mut worst = 0.0_f64;
        for i in 0..4000 {
            let t_s = b.clip.period_s * i as f64 / 4000.0;
            let (a, e) = (
                measure::probes_at(&b.clip, t_s),
                measure::probes_at(&clip, t_s),
            );
            for (probe, p) in &a {
                worst = worst.max(p.dist(e[probe]));
            }
        }
        println!("{name}: {worst:.1e} px");
        assert!(
            worst <= 5e-4,
            "{name}: exact key times move a probe {worst} px"
        );
    }
    // seed-nested's tenths are exact already; ponytail's sixtieths are not
    assert!(
        moved >= 3,
        "only {moved} smil files have rounded evenly spaced keys"
    );
}

/// smil: a rotation about `o` is `translate(o)·rotate(a)·translate(−o)`, so
/// a rotation with many keys writes its origin once: the group at
/// `transform="translate(o)"`, bare angles in the values and its content in
/// one `<g transform="translate(−o)">`; one with few keys keeps `a ox oy` in
/// every value. Each form where it is the shorter, in every smil file
/// (Chromium and Firefox play both in `tests/browser.rs`).
#[test]
fn smil_rotations_write_their_origin_once_where_that_is_shorter() {
    let (mut bare, mut with_origin) = (0, 0);
    for (name, b) in bakes() {
        if b.clip.route != Route::Smil {
            continue;
        }
        let doc = roxmltree::Document::parse(&b.svg).unwrap();
        for a in doc
            .descendants()
            .filter(|n| n.has_tag_name("animateTransform") && n.attribute("type") == Some("rotate"))
        {
            let values: Vec<Vec<&str>> = a
                .attribute("values")
                .unwrap()
                .split(';')
                .map(|v| v.split(' ').collect())
                .collect();
            let g = a.parent_element().unwrap();
            let at = |v: &Vec<&str>| format!("{} {}", v[1], v[2]);
            let label = format!("{name} {:?}", g.attribute("class"));
            if values[0].len() == 3 {
                with_origin += 1;
                // the same origin in every value, and no shorter way to say it
                assert!(
                    values
                        .iter()
                        .all(|v| v.len() == 3 && at(v) == at(&values[0]))
                );
                assert_eq!(g.attribute("transform"), None, "{label}");
                let o = at(&values[0]);
                let back = o
                    .split(' ')
                    .map(|n| n.strip_prefix('-').map_or(format!("-{n}"), String::from))
                    .collect::<Vec<_>>()
                    .join(" ");
                let inside = values.len() * (o.len() + 1);
                let outside = o.len() + 26 + back.len() + 30;
                assert!(inside <= outside, "{label}: {inside} B of origins");
                continue;
            }
            bare += 1;
            assert!(values.iter().all(|v| v.len() == 1), "{label}");
            let o = g
                .attribute("transform")
                .and_then(|t| t.strip_prefix("translate("))
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{label}: no translate"));
            let num = |s: &str| -> Vec<f64> { s.split(' ').map(|n| n.parse().unwrap()).collect() };
            // its one other child: the content, moved back by the origin
            let kids: Vec<_> = g.children().filter(|n| n.is_element()).collect();
            assert_eq!(kids.len(), 2, "{label}");
            let back = kids[1]
                .attribute("transform")
                .and_then(|t| t.strip_prefix("translate("))
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or_else(|| panic!("{label}: no content group"));
            let (o, back) = (num(o), num(back));
            assert!(
                o.iter().zip(&back).all(|(a, b)| a + b == 0.0),
                "{label}: {o:?} {back:?}"
            );
            let inside = values.len() * (format!("{} {}", o[0], o[1]).len() + 1);
            assert!(inside > 50, "{label}: {} keys", values.len());
        }
    }
    assert!(
        bare > 20 && with_origin > 10,
        "{bare} bare, {with_origin} with origin"
    );
}
