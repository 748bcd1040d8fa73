//! `bake --art` on hostile drawings: huge or deeply nested documents bake in
//! time linear in their size, and whatever is refused is refused as one
//! input-error line naming the drawing, with the previous output untouched
//! and no temp file left.

mod common;

use assert_cmd::Command;
use rigbake::art::{MAX_SCOPED_NAMES, USE_BUDGET};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

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

/// The drawing's text with `extra` put just before the closing `</svg>`.
fn with_before_end(extra: &str) -> String {
    let art = art_text();
    let end = art.rfind("</svg>").unwrap();
    format!("{}{extra}{}", &art[..end], &art[end..])
}

/// Files in `dir` other than the ones named.
fn others(dir: &Path, known: &[&str]) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !known.contains(&n.as_str()))
        .collect()
}

struct Run {
    code: Option<i32>,
    stderr: String,
    out: Option<String>,
    took: Duration,
    art_path: PathBuf,
}

/// Bake `art` (written as `drawing.svg`) to `animated.svg`, which already
/// holds a previous bake; checks the drawing is unchanged and no stray file
/// is left.
fn bake(art: &str) -> Run {
    bake_within(art, None)
}

/// [`bake`], with at most `kib` KiB of address space when given (`ulimit
/// -v`: the process fails to allocate past it), one rayon thread and two
/// malloc arenas, so that the figure does not grow with the machine's
/// cores.
fn bake_within(art: &str, kib: Option<u64>) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let art_path = dir.path().join("drawing.svg");
    fs::write(&art_path, art).unwrap();
    let out = dir.path().join("animated.svg");
    fs::write(&out, "previous").unwrap();
    let mut cmd = match kib {
        None => rigbake(),
        Some(kib) => {
            let mut c = Command::new("sh");
            c.current_dir(root())
                .env("RAYON_NUM_THREADS", "1")
                .env("MALLOC_ARENA_MAX", "2")
                .arg("-c")
                .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
                .arg(assert_cmd::cargo::cargo_bin("rigbake"));
            c
        }
    };
    let t0 = Instant::now();
    let res = cmd
        .args(["bake", RIG, "-q", "--prefix", "rb", "--art"])
        .arg(&art_path)
        .arg("-o")
        .arg(&out)
        .output()
        .unwrap();
    let took = t0.elapsed();
    assert_eq!(
        fs::read_to_string(&art_path).unwrap(),
        art,
        "drawing changed"
    );
    assert_eq!(
        others(dir.path(), &["drawing.svg", "animated.svg"]),
        Vec::<String>::new(),
        "stray files"
    );
    let written = fs::read_to_string(&out).unwrap();
    Run {
        code: res.status.code(),
        stderr: String::from_utf8(res.stderr).unwrap(),
        out: (written != "previous").then_some(written),
        took,
        art_path,
    }
}

/// Bakes `art`, expecting the input error: exit 2, one stderr line
/// `rigbake: error: <drawing>: …` holding every needle, previous output
/// untouched. Returns the line.
fn refused(art: &str, needles: &[&str]) -> String {
    refused_within(art, None, needles)
}

/// [`refused`] within `kib` KiB of address space ([`bake_within`]).
fn refused_within(art: &str, kib: Option<u64>, needles: &[&str]) -> String {
    let r = bake_within(art, kib);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    let prefix = format!("rigbake: error: {}: ", r.art_path.display());
    assert!(r.stderr.starts_with(&prefix), "{}", r.stderr);
    assert_eq!(common::doubled_word(&r.stderr), None, "{}", r.stderr);
    for n in needles {
        assert!(r.stderr.contains(n), "missing {n:?} in {}", r.stderr);
    }
    assert!(r.out.is_none(), "previous output replaced");
    r.stderr
}

/// Whether `out` (a bake of the cyclist with `--prefix rb`) animates the
/// drawing: each leg's thigh and shin wrapped in a group of the file's own
/// (`data-rigbake`) carrying that bone's class (`rb-b-<leg>_<bone>`).
fn bound(out: &str) -> bool {
    ["near", "far"].iter().all(|leg| {
        ["thigh", "shin"].iter().all(|bone| {
            let open = format!("<g data-rigbake=\"{bone}-{leg}\" id=\"rb-nw");
            out.match_indices(&open).any(|(at, _)| {
                let tag = &out[at..at + out[at..].find('>').unwrap()];
                tag.ends_with(&format!(" class=\"rb-b-{leg}_{bone}\""))
            })
        })
    })
}

// ---- size and nesting: linear time, bounded depth -------------------------

/// The time bound for the large drawings below. Linear work takes about a
/// second for them in an unoptimised test build (the crate itself is built
/// with opt-level 2, roxmltree is not); the quadratic scans they replace
/// (a line number computed from the start of the text for every element)
/// took over a minute even in a release build. The bound sits an order of
/// magnitude from both, so a slow machine does not fail it and a quadratic
/// regression cannot pass it.
const BOUND: Duration = Duration::from_secs(20);

#[test]
fn a_drawing_of_200k_elements_bakes_in_linear_time() {
    let rects: String = (0..200_000)
        .map(|i| {
            format!(
                "<rect x=\"{}\" y=\"{}\" width=\"1\" height=\"1\"/>\n",
                i % 800,
                i % 600
            )
        })
        .collect();
    let r = bake(&with_before_end(&rects));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.took < BOUND, "200k elements took {:?}", r.took);
    assert!(bound(&r.out.unwrap()));
}

/// What the drawing costs does not grow with its lines: 30 million blank
/// lines (30 MB, within the input limit) bake within 256 MiB of address
/// space, where an index of every newline took 240 MB more, and a part
/// under them is still refused naming its line.
#[cfg(unix)]
#[test]
fn a_drawing_of_30_million_lines_bakes_in_bounded_memory() {
    let n = 30_000_000;
    let blank = "\n".repeat(n);
    let r = bake_within(&with_before_end(&blank), Some(256 * 1024));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(bound(&r.out.unwrap()));
    // a duplicate part after the blank lines: its line counts them all
    let art = with_before_end(&format!("{blank}<g id=\"crank\"/>"));
    let line = art[..art.rfind("<g id=\"crank\"/>").unwrap()]
        .matches('\n')
        .count()
        + 1;
    refused_within(
        &art,
        Some(256 * 1024),
        &[
            "\"crank\" marks two elements (lines ",
            &format!(" and {line})"),
        ],
    );
}

#[test]
fn parts_under_100k_nested_groups_bake_in_linear_time() {
    // Every part sits at the bottom of 100,000 nested groups (each with a
    // transform its parts must undo), and a second branch is as deep.
    let art = art_text();
    let (a, b) = (
        art.find("  <g id=\"far-side\"").unwrap(),
        art.find("  <![CDATA[").unwrap(),
    );
    let n = 100_000;
    let deep = format!(
        "{}{}{}{}<g>{}<rect width=\"1\" height=\"1\"/>{}</g>{}",
        &art[..a],
        "<g transform=\"translate(0 0)\">".repeat(n),
        &art[a..b],
        "</g>".repeat(n),
        "<g>".repeat(n),
        "</g>".repeat(n),
        &art[b..]
    );
    let r = bake(&deep);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.took < BOUND, "100k nested groups took {:?}", r.took);
    // nothing rigbake added is out of place: the parts are wrapped where they are
    let out = r.out.unwrap();
    let at = out
        .find("<g data-rigbake=\"thigh-near\" id=\"rb-nw")
        .expect("the thigh's wrapper");
    let tag = &out[at..at + out[at..].find('>').unwrap() + 1];
    let k = tag.trim_start_matches("<g data-rigbake=\"thigh-near\" id=\"rb-nw");
    let digits = k.find(|c: char| !c.is_ascii_digit()).unwrap();
    assert!(
        digits > 0 && &k[digits..] == "\" class=\"rb-b-near_thigh\">",
        "{tag}"
    );
}

#[test]
fn more_nodes_than_the_parser_limit_are_refused() {
    // 2,000,001 empty groups: one past the limit
    let many = "<g/>".repeat(2_000_001);
    let r = Instant::now();
    refused(
        &with_before_end(&many),
        &["more than 2000000 XML nodes (elements, text runs, comments)"],
    );
    assert!(r.elapsed() < BOUND);
}

// ---- DOCTYPE entities: expanded by rigbake, within a budget, never copied --

const ILLUSTRATOR: &str = "tests/fixtures/art/cyclist-illustrator.svg";

/// Bakes `art`, expecting success; returns the output.
fn bake_ok(art: &str) -> String {
    let r = bake(art);
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
    r.out.expect("output written")
}

/// No entity declaration, no internal subset, no reference to a declared
/// entity: the output cannot expand to anything.
fn assert_no_entities(out: &str) {
    assert!(!out.contains("<!ENTITY"), "entity declaration written");
    if let Some(i) = out.find("<!DOCTYPE") {
        let decl = &out[i..i + out[i..].find('>').unwrap()];
        assert!(!decl.contains('['), "internal subset written: {decl}");
    }
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    roxmltree::Document::parse_with_options(out, opts).expect("output is well-formed");
}

/// A drawing: the cyclist with `decls` as its internal subset and `extra`
/// before `</svg>`.
fn with_entities(decls: &str, extra: &str) -> String {
    let body = with_before_end(extra);
    let at = body.find("<!-- A hand-drawn").unwrap();
    format!(
        "{}<!DOCTYPE svg [\n{decls}\n]>\n{}",
        &body[..at],
        &body[at..]
    )
}

#[test]
fn an_illustrator_drawing_with_namespace_entities_bakes() {
    let art = fs::read_to_string(root().join(ILLUSTRATOR)).unwrap();
    assert!(art.contains("xmlns=\"&ns_svg;\"") && art.contains("<!ENTITY ns_ai"));
    let out = bake_ok(&art);
    assert_no_entities(&out);
    // the references are written out, the rest is the drawing
    assert!(out.contains(
        "<svg version=\"1.1\" id=\"rb_Layer_1\" xmlns:x=\"http://ns.adobe.com/Extensibility/1.0/\" xmlns:i=\"http://ns.adobe.com/AdobeIllustrator/10.0/\""
    ));
    assert!(out.contains("<sfw  xmlns=\"http://ns.adobe.com/SaveForWeb/1.0/\">"));
    assert!(out.starts_with(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- Generator: Adobe Illustrator 15.0.0, SVG Export Plug-In . SVG Version: 6.00 Build 0)  -->\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\" \n"
    ));
    assert!(bound(&out));
    for probe in ["near-ankle", "far-ankle", "near-target", "far-target"] {
        let needle = format!("data-probe=\"{probe}\"");
        assert_eq!(out.matches(&needle).count(), 1, "{needle}");
    }
    // Line numbers in messages are the drawing's own.
    assert_eq!(art.matches("id=\"thigh-far\"").count(), 1);
    let broken = art.replace("id=\"thigh-far\"", "id=\"thigh-fra\"");
    let line = 1 + broken[..broken.find("thigh-fra").unwrap()]
        .matches('\n')
        .count();
    refused(&broken, &[&format!("\"thigh-fra\" (line {line})")]);
}

#[test]
fn a_doctype_without_internal_subset_is_kept_byte_for_byte() {
    let art = art_text().replace(
        "<!-- A hand-drawn",
        "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<!-- A hand-drawn",
    );
    let out = bake_ok(&art);
    let root_at = art.find("<svg").unwrap();
    assert!(out.starts_with(&art[..root_at]));
    // the drawing's last bytes, then the skeleton group (the clip's groups
    // and probes), then the drawing's end tag
    let (last, end) = art.split_at(art.rfind("</svg>").unwrap());
    let last = &last[last.find("  <![CDATA[").unwrap()..];
    let skeleton = out.find(&format!("{last}<g data-rigbake=\"skeleton\">"));
    assert!(skeleton.is_some(), "the drawing's last bytes");
    assert!(out.ends_with(&format!("</g>{end}")));
}

#[test]
fn entities_in_text_and_attributes_are_written_out_escaped() {
    let art = with_entities(
        "<!ENTITY who 'Rider \"R\" &amp; &lt;bike&gt;'>\n\
         <!ENTITY ink \"#1d3557\">\n\
         <!ENTITY tint \"&ink;\">\n\
         <!ENTITY lines \"a\nb\">",
        "<text id=\"t1\" x=\"5\" y=\"5\" fill=\"&tint;\" data-who=\"&who;\">&who;</text>\
         <desc id=\"d1\" data-l=\"&lines;\">&lines;</desc>",
    );
    let out = bake_ok(&art);
    assert_no_entities(&out);
    assert!(out.contains(
        "<text id=\"rb_t1\" x=\"5\" y=\"5\" fill=\"#1d3557\" data-who=\"Rider &quot;R&quot; &amp; &lt;bike>\">Rider \"R\" &amp; &lt;bike&gt;</text>"
    ), "{out}");
    // a line break written in an entity: a space in an attribute, kept
    // (as a reference, so lines still count as in the drawing) in text
    assert!(
        out.contains("<desc id=\"rb_d1\" data-l=\"a b\">a&#10;b</desc>"),
        "{out}"
    );
    // and a parser reads the same values the entities gave
    let doc = roxmltree::Document::parse_with_options(
        &out,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .unwrap();
    let t = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("rb_t1"))
        .unwrap();
    assert_eq!(t.attribute("data-who"), Some("Rider \"R\" & <bike>"));
    assert_eq!(t.text(), Some("Rider \"R\" & <bike>"));
}

#[test]
fn one_big_entity_referenced_many_times_is_refused_before_expanding() {
    // The reported case: a 100 KB entity referenced 10,000 times (1 GB).
    let big = "x".repeat(102_400);
    let art = with_entities(
        &format!("<!ENTITY big \"{big}\">"),
        &format!("<text>{}</text>", "&big;".repeat(10_000)),
    );
    let t0 = Instant::now();
    let line = refused(
        &art,
        &[
            "line 2: the DOCTYPE's entities expand to 1024000000 characters",
            "(10000 references in the drawing; \"big\" alone is 102400)",
            &format!("more than the limit of {}", art.len()),
        ],
    );
    assert!(t0.elapsed() < BOUND, "{line}");
    // the same in an attribute
    let art = with_entities(
        &format!("<!ENTITY big \"{big}\">"),
        &format!("<g data-x=\"{}\"/>", "&big;".repeat(10_000)),
    );
    refused(&art, &["expand to 1024000000 characters"]);
    // while an expansion within the drawing's size bakes
    let art = with_entities(&format!("<!ENTITY big \"{big}\">"), "<desc>&big;</desc>");
    assert!(bake_ok(&art).contains(&format!("<desc>{big}</desc>")));
}

#[test]
fn nested_entities_are_counted_not_expanded() {
    // billion laughs, and its cheaper cousin of references to empty entities
    let mut lol = String::from("<!ENTITY l0 \"lol\">");
    for i in 1..10 {
        lol.push_str(&format!(
            "<!ENTITY l{i} \"{}\">",
            format!("&l{};", i - 1).repeat(10)
        ));
    }
    refused(
        &with_entities(&lol, "<desc>&l9;</desc>"),
        &["expand to 4111111110 characters"],
    );
    let mut empty = String::from("<!ENTITY e0 \"\">");
    for i in 1..5 {
        empty.push_str(&format!(
            "<!ENTITY e{i} \"{}\">",
            format!("&e{};", i - 1).repeat(60)
        ));
    }
    refused(
        &with_entities(&empty, "<desc>&e4;</desc>"),
        &["\"e4\" alone is 13179660"],
    );
    // loops and depth
    refused(
        &with_entities("<!ENTITY a \"&b;\"><!ENTITY b \"&a;\">", "<desc>&a;</desc>"),
        &["entity \"", "refers to itself"],
    );
    let mut chain = String::from("<!ENTITY c0 \"x\">");
    for i in 1..=16 {
        chain.push_str(&format!("<!ENTITY c{i} \"&c{};\">", i - 1));
    }
    refused(
        &with_entities(&chain, "<desc>&c16;</desc>"),
        &["entity references nest deeper than 16 levels"],
    );
    assert!(bake_ok(&with_entities(&chain, "<desc>&c15;</desc>")).contains("<desc>x</desc>"));
}

#[test]
fn external_and_parameter_entities_are_refused_never_fetched() {
    let dir = tempfile::tempdir().unwrap();
    let secret = dir.path().join("secret.txt");
    fs::write(&secret, "TOP-SECRET").unwrap();
    let sys = format!("<!ENTITY ext SYSTEM \"file://{}\">", secret.display());
    for (decls, body, needle) in [
        (
            sys.as_str(),
            "<desc>&ext;</desc>",
            "&ext; is an external entity",
        ),
        (
            sys.as_str(),
            "<g data-x=\"&ext;\"/>",
            "&ext; is an external entity",
        ),
        (
            "<!ENTITY ext PUBLIC \"-//Evil//X//EN\" \"http://127.0.0.1:9/x.xml\">",
            "<desc>&ext;</desc>",
            "&ext; is an external entity",
        ),
        (
            "<!ENTITY % pe SYSTEM \"http://127.0.0.1:9/x.dtd\">\n%pe;",
            "",
            "line 4: parameter entity reference %pe; in the DOCTYPE: not supported",
        ),
        (
            "<!ENTITY % pe \"x\"><!ENTITY g \"%pe;\">",
            "<desc>&g;</desc>",
            "entity \"g\" uses the parameter entity %pe;",
        ),
        (
            "<!ENTITY % pe \"x\">",
            "<desc>&pe;</desc>",
            "undeclared entity &pe;",
        ),
    ] {
        let line = refused(&with_entities(decls, body), &[needle]);
        assert!(!line.contains("TOP-SECRET"), "{line}");
    }
    // declared but unused: dropped with the subset, nothing fetched
    let out = bake_ok(&with_entities(&sys, ""));
    assert!(!out.contains("TOP-SECRET") && !out.contains("secret.txt"));
    assert_no_entities(&out);
}

#[test]
fn entities_holding_markup_are_refused() {
    // an element (even a part) smuggled in through an entity
    for (decls, body) in [
        ("<!ENTITY part '<g id=\"crank-near\"/>'>", "&part;"),
        ("<!ENTITY part '&#60;g/>'>", "<desc>&part;</desc>"),
        ("<!ENTITY cd '<![CDATA[x]]>'>", "<desc>&cd;</desc>"),
    ] {
        refused(
            &with_entities(decls, body),
            &["holds markup ('<'); only text entities are supported"],
        );
    }
    // a malformed subset is not well-formed XML
    refused(
        &with_entities("<!ENTITY a \"x\"", ""),
        &[
            "not well-formed XML: line 4: the DOCTYPE's internal subset: expected '>' to end <!ENTITY",
        ],
    );
}

// ---- attributes and namespaces: the parser's squares are counted first ----

#[test]
fn the_parsers_quadratic_attribute_and_namespace_work_is_refused_up_front() {
    // one element with 50,000 attributes (5 s in a release build before)
    let attrs: String = (0..50_000).map(|i| format!(" a{i}=\"1\"")).collect();
    let t0 = Instant::now();
    refused(
        &with_before_end(&format!("<g{attrs}/>")),
        &[
            "line 48: an element with 50000 attributes",
            "8 per byte of drawing",
        ],
    );
    // 20,000 nested groups that each declare a namespace (over a minute)
    let n = 20_000;
    let nest: String = (0..n)
        .map(|i| format!("<g xmlns:p{i}=\"urn:x:{i}\">"))
        .collect();
    refused(
        &with_before_end(&format!("{nest}{}", "</g>".repeat(n))),
        &[
            "1 namespace declarations and ",
            "namespaces in scope",
            "grows with their square",
        ],
    );
    // 20,000 namespaces declared on the root (each checked against the
    // others), and 3,000 declared on a group, looked up by 200,000 elements
    let decls: String = (0..n)
        .map(|i| format!(" xmlns:p{i}=\"urn:x:{i}\""))
        .collect();
    let art = art_text().replacen("<svg\n", &format!("<svg{decls}\n"), 1);
    refused(
        &art,
        &[
            "line 3: an element with 3 attributes, 20003 namespace declarations and 20004 namespaces in scope",
        ],
    );
    let decls: String = (0..3000)
        .map(|i| format!(" xmlns:p{i}=\"urn:x:{i}\""))
        .collect();
    let art = with_before_end(&format!("<g{decls}>{}</g>", "<g/>".repeat(200_000)));
    refused(
        &art,
        &["an element with 0 attributes, 0 namespace declarations and 3004 namespaces in scope"],
    );
    assert!(t0.elapsed() < BOUND);
    // siblings that declare namespaces (pasted icons) are fine
    let icons: String = (0..n)
        .map(|_| "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><path d=\"M0 0\"/></svg>\n")
        .collect();
    bake_ok(&with_before_end(&icons));
}

#[test]
fn many_legs_deep_in_the_drawing_are_checked_in_parts_times_depth() {
    // 51 legs (the most whose bone tree, five bones a leg, is within the
    // 256 bones a tree may have), every part under 50,000 nested groups:
    // the nesting rules walk up once per part, not once per pair of parts.
    const LEGS: usize = 51;
    let legs: Vec<serde_json::Value> = (0..LEGS)
        .map(|i| {
            serde_json::json!({
                "name": format!("l{i}"), "hip": [352, 255], "thigh": 128, "shin": 112,
                "knee": "forward", "phase_deg": (i * 45) % 360
            })
        })
        .collect();
    let rig = serde_json::json!({
        "name": "many", "view_box": [0, 0, 800, 600], "period_s": 1.2, "keys": 10,
        "crank": { "center": [420, 420], "radius": 50, "start_deg": 0, "direction": "cw" },
        "legs": legs
    });
    // every part a rect over the whole canvas: it covers its joints in
    // any pose (the pose check reads the shapes)
    let parts: String = (0..LEGS)
        .map(|i| {
            format!(
                "<g id=\"thigh-l{i}\"><rect width=\"800\" height=\"600\"/><g id=\"shin-l{i}\"><rect width=\"800\" height=\"600\"/></g></g>\
                 <g id=\"pedal-l{i}\"><rect width=\"800\" height=\"600\"/></g>\n"
            )
        })
        .collect();
    let n = 50_000;
    let art = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 800 600\">{}{parts}{}</svg>",
        "<g>".repeat(n),
        "</g>".repeat(n)
    );
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("many.json"), rig.to_string()).unwrap();
    fs::write(dir.path().join("drawing.svg"), &art).unwrap();
    let t0 = Instant::now();
    let res = rigbake()
        .current_dir(dir.path())
        .args([
            "bake",
            "many.json",
            "-q",
            "--prefix",
            "rb",
            "--art",
            "drawing.svg",
            "-o",
            "out.svg",
        ])
        .output()
        .unwrap();
    let took = t0.elapsed();
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(took < BOUND, "took {took:?}");
    let out = fs::read_to_string(dir.path().join("out.svg")).unwrap();
    // per leg, wrapped around the drawing's parts: the thigh's group, the
    // shin's inside it, and the pedal's crank and pedal groups
    let wrappers = out
        .split("<g data-rigbake=\"")
        .skip(1)
        .filter(|w| w[..w.find('>').unwrap()].contains(" class=\"rb-b-l"))
        .count();
    assert_eq!(wrappers, LEGS * 4);
}

#[test]
fn near_miss_hints_stay_a_short_line() {
    let decoys: String = (0..100_000)
        .map(|i| format!("<g id=\"thigh-fa{i}\"/>\n"))
        .collect();
    let art = with_before_end(&decoys).replace("id=\"thigh-far\"", "id=\"thigh-fra\"");
    let line = refused(
        &art,
        &[
            "\"thigh-far\"",
            "\"thigh-fra\" (line 21), \"thigh-near-shape\" (line 35), \"thigh-fa0\" (line 48)",
            ", 99997 more, but the rig's chains are",
        ],
    );
    assert!(line.len() < 500, "{line}");
}

/// Numbers no drawing means, put on every part, joint marker and probe of
/// a template (its own `transform`, and a wrapper's around it): scales and
/// shifts so large that placing the part overflows or rounds it away, and
/// so small that it vanishes. For a cycling rig and a bone tree, every such
/// drawing is refused with a one-line message naming the line and the part,
/// never a panic (a message about a number gone infinite once panicked
/// while it was being written).
#[test]
fn overflowing_and_vanishing_transforms_on_any_part_are_refused_in_one_line() {
    let hostile = [
        "scale(1e300)",
        "scale(1e-300)",
        "translate(1e300)",
        "translate(-1e308 0)",
        "matrix(1e300 0 0 1e300 0 0)",
        "scale(1e200) scale(1e200)",
        "rotate(45) scale(1e300 1e-300)",
    ];
    let mut refused = 0;
    let mut animated = 0;
    for rig_path in [RIG, "rigs/walker.json"] {
        let dir = tempfile::tempdir().unwrap();
        let res = rigbake()
            .args(["template", rig_path, "-o"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(res.status.success(), "{res:?}");
        let rig = rigbake::rig::load(&fs::read_to_string(root().join(rig_path)).unwrap()).unwrap();
        let template = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| fs::read_to_string(e.unwrap().path()).unwrap())
            .next()
            .unwrap();
        let opts = rigbake::bake::BakeOptions::resolve(&rig, rigbake::Route::Css, None, None, None);
        let clip = rigbake::bake_rig(&rig, &opts).clip;
        // every element with an id, outside the hidden guides
        let doc = roxmltree::Document::parse(&template).unwrap();
        let targets: Vec<(usize, String)> = doc
            .descendants()
            .filter(|n| n.is_element() && n.attribute("id").is_some())
            .filter(|n| {
                !n.ancestors()
                    .any(|a| a.attribute("id") == Some("layer-guides"))
            })
            .filter(|n| n.tag_name().name() != "svg" && n.tag_name().name() != "namedview")
            .map(|n| (n.range().start, n.tag_name().name().to_string()))
            .collect();
        assert!(targets.len() >= 8, "{rig_path}: {} elements", targets.len());
        for &(at, ref tag) in &targets {
            for t in hostile {
                // on the element itself, and on a group wrapped around it
                let own = format!(
                    "{}<{tag} transform=\"{t}\"{}",
                    &template[..at],
                    &template[at + 1 + tag.len()..]
                );
                let end = at
                    + doc
                        .descendants()
                        .find(|n| n.range().start == at)
                        .unwrap()
                        .range()
                        .len();
                let wrapped = format!(
                    "{}<g transform=\"{t}\">{}</g>{}",
                    &template[..at],
                    &template[at..end],
                    &template[end..]
                );
                for art in [own, wrapped] {
                    match rigbake::art::animate(&art, &rig, &clip) {
                        Ok(_) => animated += 1,
                        Err(e) => {
                            let msg = e.to_string();
                            assert!(
                                msg.starts_with("line ")
                                    && msg.contains('"')
                                    && !msg.contains('\n')
                                    && msg.len() < 600,
                                "{rig_path} {tag} {t}: {msg:?}"
                            );
                            refused += 1;
                        }
                    }
                }
            }
        }
    }
    eprintln!("{refused} refused, {animated} animated");
    assert!(
        refused > 300 && animated == 0,
        "{refused} refused, {animated} animated"
    );
}

// ---- <use>: what it copies is counted ---------------------------------------

/// The drawing with `uses` `<use>`s, inside the near thigh, of one path of
/// `segments` line segments (a move and the lines), all on the thigh's line.
fn with_uses(segments: usize, uses: usize) -> String {
    let d: String = (1..segments)
        .map(|i| format!(" L {} 248", 344 + i % 100))
        .collect();
    let part = "<g id=\"thigh-near\">";
    let art = art_text();
    assert_eq!(art.matches(part).count(), 1);
    art.replacen(
        part,
        &format!(
            "{part}<defs><path id=\"big\" d=\"M 344 248{d}\"/></defs>{}",
            "<use href=\"#big\"/>".repeat(uses)
        ),
        1,
    )
}

/// Each `<use>` of the path copies it (the element reached, and its
/// segments) into the pose check: the drawing's copies stop at
/// [`USE_BUDGET`], refused one past it in one line naming the part, the
/// `<use>` and the count, without reading the rest (5,000 copies of a
/// 10,000-segment path took 2.75 GB).
#[test]
fn uses_copying_past_the_budget_are_refused_and_within_it_bake() {
    let segments = 10_000;
    let each = 1 + segments as u64;
    let within = (USE_BUDGET / each) as usize;
    let out = bake_ok(&with_uses(segments, within));
    assert!(bound(&out));
    let past = (within as u64 + 1) * each;
    assert!(past > USE_BUDGET);
    let counts = format!("to {past} elements and path segments, more than {USE_BUDGET}");
    let needles = [
        "line 34: \"thigh-near\": its <use> at line 34, column ",
        &counts,
        "show fewer or simpler shapes with <use>",
    ];
    refused(&with_uses(segments, within + 1), &needles);
    // the same count however many more there are: reading stops there
    let t0 = Instant::now();
    refused(&with_uses(segments, 5_000), &needles);
    assert!(t0.elapsed() < BOUND);
}

/// Every name a drawing holds is given the file's prefix: an edit held in
/// memory and a copy of the prefix written each (a 60 MB `class` of 30
/// million one-letter names took 4 GB and wrote 240 MB). Past
/// [`MAX_SCOPED_NAMES`] in all, counted across elements, the drawing is
/// refused in one line naming the element's line; half that many bake.
#[test]
fn names_past_the_most_scoped_are_refused_and_fewer_bake() {
    let classes = |n: usize| vec!["c"; n].join(" ");
    let two = |each: usize| {
        with_before_end(&format!(
            "<g class=\"{}\"/>\n<g class=\"{}\"/>\n",
            classes(each),
            classes(each)
        ))
    };
    let half = MAX_SCOPED_NAMES / 4;
    let out = bake_ok(&two(half));
    assert!(bound(&out));
    let t0 = Instant::now();
    let err = refused(
        &two(MAX_SCOPED_NAMES / 2 + 1),
        &[&format!(
            "the drawing holds more than {MAX_SCOPED_NAMES} ids, classes, names and references to them"
        )],
    );
    assert!(t0.elapsed() < BOUND, "{err}");
    // the line named is the second element's, where the count runs over
    let lines = two(1).lines().count();
    assert!(err.contains(&format!("line {}: ", lines - 1)), "{err}");
}

/// A `<style>` sheet of `n` class selectors, one a line.
fn selectors(n: usize) -> String {
    format!("<style>\n{}.c{{fill:red}}</style>\n", ".c,\n".repeat(n - 1))
}

/// The names of a `<style>` sheet count with the drawing's others against
/// [`MAX_SCOPED_NAMES`], as they are read: a sheet of more selectors than
/// that is refused naming the line inside it where the count runs over,
/// and a sheet that fits leaves that much less room for the attributes
/// after it, refused at the first element that runs over.
#[test]
fn sheet_names_past_the_most_scoped_are_refused_at_their_line() {
    // the fixture's own sheet holds one name (`.label`), read first; its
    // first element with a name is `<defs id="defs1">`
    let own = 1;
    let art = art_text();
    let defs_line = art[..art.find("<defs id=").unwrap()].matches('\n').count() + 1;
    let too_many = format!(
        "the drawing holds more than {MAX_SCOPED_NAMES} ids, classes, names and references to them"
    );
    let past = with_before_end(&selectors(MAX_SCOPED_NAMES - own + 1));
    let style_line = past[..past.rfind("<style>").unwrap()].matches('\n').count() + 1;
    // the selector that runs over is the sheet's last, on its own line
    let at = style_line + MAX_SCOPED_NAMES - own + 1;
    let t0 = Instant::now();
    refused(&past, &[&format!("line {at}: {too_many}")]);
    assert!(t0.elapsed() < BOUND);
    refused(
        &with_before_end(&selectors(MAX_SCOPED_NAMES - own)),
        &[&format!("line {defs_line}: {too_many}")],
    );
}

/// A sheet's names are counted as they are read, not gathered first:
/// refusing 3 million selectors (a 9 MB sheet) takes less than 256 MiB of
/// address space, where gathering its tokens first took over 600 MiB.
#[cfg(unix)]
#[test]
fn a_sheet_past_the_most_scoped_is_refused_before_it_is_gathered() {
    let art = with_before_end(&selectors(3_000_000));
    refused_within(
        &art,
        Some(256 * 1024),
        &[&format!(
            "the drawing holds more than {MAX_SCOPED_NAMES} ids, classes, names and references to them"
        )],
    );
}
