//! A ground row is one stroke of zero-length round-capped dashes: the
//! browsers draw it as the row of discs it stands for.

use std::fs;

mod common;

/// `svg`'s root start tag (view box and size) around `body`.
fn alone(svg: &str, body: &str) -> String {
    let open = &svg[..svg.find('>').unwrap() + 1];
    format!("{open}{body}</svg>")
}

/// Every file in `out/` that draws a ground row: the row's stroke alone,
/// and the discs it stands for (one `<circle>` per dot), each in an SVG of
/// the file's size.
fn rows() -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for path in common::files_in("out", "svg") {
        let svg = fs::read_to_string(&path).unwrap();
        let dots = common::ground_dots(&svg);
        if dots.is_empty() {
            continue;
        }
        let doc = roxmltree::Document::parse(&svg).unwrap();
        let row = doc
            .descendants()
            .find(|n| n.attribute("class").is_some_and(|c| c.ends_with("-dot")))
            .unwrap();
        let discs: String = dots
            .iter()
            .map(|(x, y, w)| format!(r#"<circle cx="{x}" cy="{y}" r="{}"/>"#, w / 2.0))
            .collect();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let (stroke, discs) = (alone(&svg, &svg[row.range()]), alone(&svg, &discs));
        // (a rig's css and smil files draw the same row, each under its
        // own class prefix)
        if !out.iter().any(|(_, _, d)| *d == discs) {
            out.push((name, stroke, discs));
        }
    }
    out
}

/// Chromium (and Firefox, where found) draws each row's stroke as its
/// discs, compared at 4× size: fewer pixels differ (by more than a few
/// levels of antialiasing) between the stroke and its discs than between
/// the discs and the same discs moved by 1/16 px, so the row is drawn
/// within 1/16 px of its discs. A row without round caps differs from them
/// more than that (so the comparison can tell).
#[test]
fn a_ground_row_draws_as_its_discs() {
    let rows = rows();
    assert!(rows.len() >= 5, "rows found: {}", rows.len());
    let Some(chromium) = common::art::chromium_or_skip("the ground rows' drawing") else {
        return;
    };
    let mut browsers = vec![chromium];
    if let Some(f) = rigbake::browser::find_firefox() {
        browsers.push(rigbake::browser::Browser::firefox(f));
    }
    const TOLERANCE: u32 = 16;
    let moved = |discs: &str, dx: &str| {
        discs.replace(
            "<circle cx=\"",
            &format!("<circle transform=\"translate({dx} 0)\" cx=\""),
        )
    };
    for b in &browsers {
        // per row: the stroke against its discs, the discs moved by 1/16
        // px against them, the stroke with butt caps against them
        let butt =
            |stroke: &str| stroke.replace("stroke-linecap=\"round\"", "stroke-linecap=\"butt\"");
        let texts: Vec<[String; 3]> = rows
            .iter()
            .map(|(_, stroke, discs)| [stroke.clone(), moved(discs, ".0625"), butt(stroke)])
            .collect();
        let pairs: Vec<(&str, &str)> = rows
            .iter()
            .zip(&texts)
            .flat_map(|((_, _, discs), t)| t.iter().map(move |x| (x.as_str(), discs.as_str())))
            .collect();
        let diffs = rigbake::browser::image_differences(b, &pairs, 4, TOLERANCE).unwrap();
        for ((name, _, _), d) in rows.iter().zip(diffs.chunks(3)) {
            let [same, off, flat] = [d[0], d[1], d[2]];
            assert!(same.inked > 0, "{name} {:?}: nothing drawn", b.engine);
            assert!(
                same.pixels < off.pixels,
                "{name} {:?}: the stroke is farther from its discs than 1/16 px \
                 ({} pixels differ; moved by 1/16 px: {})",
                b.engine,
                same.pixels,
                off.pixels
            );
            assert!(
                flat.pixels > off.pixels,
                "{name} {:?}: butt caps pass ({} pixels differ)",
                b.engine,
                flat.pixels
            );
        }
    }
}

/// Every example with a ground draws its dots where the rig puts them: on
/// the ground line, from `from_x` every `spacing` px (within 0.001 px over
/// the whole row), covering `[from_x, to_x]`, each a disc of diameter 3.
#[test]
fn ground_dots_stand_where_the_rig_puts_them() {
    let mut seen = 0;
    for path in common::example_rigs() {
        let rig = rigbake::rig::load(&fs::read_to_string(&path).unwrap()).unwrap();
        let fig = &rig.figure;
        let Some(g) = fig.ground.as_ref() else {
            continue;
        };
        for route in [rigbake::Route::Css, rigbake::Route::Smil] {
            let svg = common::bake(
                &serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap(),
                route,
            )
            .svg;
            let dots = common::ground_dots(&svg);
            let name = path.display();
            assert!(dots.len() > 1, "{name} {route:?}: {dots:?}");
            for (i, &(x, y, w)) in dots.iter().enumerate() {
                let want = g.from_x + i as f64 * fig.ground_spacing_px;
                assert!(
                    (x - want).abs() < 1e-3,
                    "{name} {route:?}: dot {i} at {x}, not {want}"
                );
                assert!((y - g.y).abs() < 5e-3, "{name} {route:?}: dot {i} at y {y}");
                assert_eq!(w, 3.0, "{name} {route:?}");
            }
            assert!(
                dots.last().unwrap().0 >= g.to_x,
                "{name} {route:?}: short of to_x"
            );
            seen += 1;
        }
    }
    assert!(seen >= 10, "rigs with a ground: {seen}");
}
