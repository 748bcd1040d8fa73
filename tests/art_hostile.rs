//! `bake --art` on hostile drawings: huge or deeply nested documents bake in
//! time linear in their size, and whatever is refused is refused as one
//! input-error line naming the drawing, with the previous output untouched
//! and no temp file left.

use assert_cmd::Command;
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
    let dir = tempfile::tempdir().unwrap();
    let art_path = dir.path().join("drawing.svg");
    fs::write(&art_path, art).unwrap();
    let out = dir.path().join("animated.svg");
    fs::write(&out, "previous").unwrap();
    let t0 = Instant::now();
    let res = rigbake()
        .args(["bake", RIG, "-q", "--art"])
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
    let r = bake(art);
    assert_eq!(r.code, Some(2), "{}", r.stderr);
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    let prefix = format!("rigbake: error: {}: ", r.art_path.display());
    assert!(r.stderr.starts_with(&prefix), "{}", r.stderr);
    for n in needles {
        assert!(r.stderr.contains(n), "missing {n:?} in {}", r.stderr);
    }
    assert!(r.out.is_none(), "previous output replaced");
    r.stderr
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
    assert!(r.out.unwrap().contains("class=\"rb-near-thigh\""));
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
    assert!(out.contains("<g data-rigbake=\"thigh-near\" class=\"rb-near-thigh\">"));
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
