//! `bake --art` helpers shared by the art test files: a rig's template,
//! an illustrator's edit of it (nested and flat), the bake, the checks of
//! what it wrote and of its refusals.

use super::repo;
use assert_cmd::Command;
use rigbake::geom::Vec2;
use rigbake::rig;
use roxmltree::Document;
use std::fs;
use std::path::{Path, PathBuf};

pub const INKSCAPE: &str = "http://www.inkscape.org/namespaces/inkscape";

pub fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(repo(""));
    c
}

pub fn load(rig: &str) -> rig::Rig {
    rig::load(&fs::read_to_string(repo(rig)).unwrap()).unwrap()
}

/// `rigbake template RIG` into `dir`; the template's text.
pub fn template(rig: &str, dir: &Path) -> String {
    let res = rigbake()
        .arg("template")
        .arg(rig)
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    assert!(res.status.success(), "{res:?}");
    let name = load(rig).name;
    fs::read_to_string(dir.join(format!("{name}.template.svg"))).unwrap()
}

/// An element's id in a `bake --art` output as the drawing wrote it:
/// the drawing's ids carry the file's stem `<prefix>_` there (the ids
/// rigbake writes, `<prefix>-…`, are returned whole).
pub fn drawn_id<'a>(n: roxmltree::Node<'a, '_>) -> Option<&'a str> {
    let id = n.attribute("id")?;
    Some(match id.split_once('_') {
        Some((prefix, drawn)) if !prefix.contains('-') => drawn,
        _ => id,
    })
}

pub fn num(n: &roxmltree::Node, a: &str) -> f64 {
    n.attribute(a).unwrap().parse().unwrap()
}

/// What an illustrator does: every part's `<line>` becomes a wider curved
/// `<path>` through a midpoint pushed sideways, with the same ends (the
/// joints), and `data-probe` circles without a radius (drawn as nothing,
/// kept by svgo) `art-<part>-from`/`-to` mark its ends inside the part, so
/// a browser can follow the drawing.
pub fn draw_over(template: &str) -> String {
    let doc = Document::parse(template).unwrap();
    let mut out = String::new();
    let mut last = 0;
    for l in doc.descendants().filter(|n| n.has_tag_name("line")) {
        let part = l.parent().unwrap().attribute("id").unwrap();
        let a = Vec2::new(num(&l, "x1"), num(&l, "y1"));
        let b = Vec2::new(num(&l, "x2"), num(&l, "y2"));
        let mid = (a + b) * 0.5 + Vec2::new(b.y - a.y, a.x - b.x) * 0.1;
        let r = l.range();
        out.push_str(&template[last..r.start]);
        out.push_str(&format!(
            "<path id=\"shape-{part}\" d=\"M {} {} Q {} {} {} {}\" fill=\"none\" stroke=\"#264653\" stroke-width=\"9\"/>\
             <circle data-probe=\"art-{part}-from\" cx=\"{}\" cy=\"{}\"/>\
             <circle data-probe=\"art-{part}-to\" cx=\"{}\" cy=\"{}\"/>",
            a.x, a.y, mid.x, mid.y, b.x, b.y, a.x, a.y, b.x, b.y
        ));
        last = r.end;
    }
    out.push_str(&template[last..]);
    assert!(!out.contains("<line"));
    out
}

/// The same drawing flat: every part group at the top level, holding only
/// its own shapes (the parts it held follow it), as a drawing whose layers
/// were never nested.
pub fn flatten(drawn: &str) -> String {
    let doc = Document::parse(drawn).unwrap();
    let root = doc.root_element();
    let first = root.first_element_child().unwrap();
    let mut out = drawn[..first.range().start].to_string();
    for g in doc.descendants().filter(|n| {
        n.has_tag_name("g")
            && n.attribute((INKSCAPE, "label")).is_some()
            && n.attribute((INKSCAPE, "label")) == n.attribute("id")
    }) {
        let id = g.attribute("id").unwrap();
        out.push_str(&format!("<g id=\"{id}\" inkscape:label=\"{id}\">"));
        for c in g
            .children()
            .filter(|c| c.is_element() && !c.has_tag_name("g"))
        {
            out.push_str(&drawn[c.range()]);
        }
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
}

/// A flat drawing (see [`flatten`]) whose parts are named by their
/// `inkscape:label` alone (no `id`) and turned by their own `transform`,
/// each of their shapes turned back by its own (so drawn in the pose
/// still): what an editor writes when a part was rotated as a whole and
/// its label kept.
pub fn labelled_and_turned(flat: &str) -> String {
    flat.lines()
        .map(|l| {
            let Some(rest) = l.strip_prefix("<g id=\"") else {
                return l.to_string();
            };
            let id = &rest[..rest.find('"').unwrap()];
            let open = format!("<g id=\"{id}\" inkscape:label=\"{id}\">");
            assert!(l.starts_with(&open) && l.ends_with("</g>"), "{l}");
            let shapes = l[open.len()..l.len() - 4]
                .replace("<path ", "<path transform=\"rotate(-40 200 150)\" ")
                .replace("<circle ", "<circle transform=\"rotate(-40 200 150)\" ");
            format!("<g inkscape:label=\"{id}\" transform=\"rotate(40 200 150)\">{shapes}</g>")
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

#[derive(Clone)]
pub struct Art {
    pub svg: String,
    pub stdout: String,
    pub report: serde_json::Value,
}

/// `bake RIG --art drawing -o out.svg --report r.json` expecting success.
pub fn bake_art(rig: &str, drawing: &str, dir: &Path, tag: &str) -> Art {
    let art = dir.join(format!("{tag}.drawing.svg"));
    fs::write(&art, drawing).unwrap();
    let out = dir.join(format!("{tag}.art.svg"));
    let report = dir.join(format!("{tag}.json"));
    let res = art_cmd(rig, &art, &out)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(
        res.status.success(),
        "{tag}: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    Art {
        svg: fs::read_to_string(&out).unwrap(),
        stdout: String::from_utf8(res.stdout).unwrap(),
        report: serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap(),
    }
}

/// `rigbake bake RIG --art ART -o OUT`.
pub fn art_cmd(rig: &str, art: &Path, out: &Path) -> Command {
    let mut c = rigbake();
    c.arg("bake")
        .arg(rig)
        .arg("--art")
        .arg(art)
        .arg("-o")
        .arg(out);
    c
}

/// The plain css bake's report.
pub fn plain_report(rig: &str, dir: &Path) -> serde_json::Value {
    plain_report_of_clip(rig, None, dir)
}

/// The plain css bake's report of `rig`'s clip `clip` (`--clip`), or of
/// the whole rig.
pub fn plain_report_of_clip(rig: &str, clip: Option<&str>, dir: &Path) -> serde_json::Value {
    let report = dir.join("plain.json");
    let res = rigbake()
        .arg("bake")
        .arg(rig)
        .args(clip.map(|c| ["--clip", c]).into_iter().flatten())
        .args(["--route", "css", "-q", "--report"])
        .arg(&report)
        .arg("-o")
        .arg(dir.join("plain"))
        .output()
        .unwrap();
    assert!(res.status.success(), "{res:?}");
    serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap()
}

/// Every figure of the art bake's report is the plain bake's (only the
/// byte count differs); the summary line and the report give the written
/// file's size; every `art:` marker line is on the rig's joint.
pub fn same_figures(rig: &str, art: &Art, dir: &Path) {
    let mut plain = plain_report(rig, dir);
    let mut got = art.report.clone();
    assert_eq!(
        got["bytes"].as_u64().unwrap() as usize,
        art.svg.len(),
        "{rig}"
    );
    let summary = art.stdout.lines().next().unwrap();
    assert!(
        summary.contains(&format!("(css, {} bytes,", art.svg.len())),
        "{rig}: {summary} vs {} bytes written",
        art.svg.len()
    );
    plain["bytes"] = 0.into();
    got["bytes"] = 0.into();
    assert_eq!(
        got, plain,
        "{rig}: the art bake's figures are the plain bake's"
    );
    let markers = super::art_marker_offsets(&art.stdout);
    assert!(!markers.is_empty(), "{rig}: {}", art.stdout);
    for (l, px) in markers {
        assert!(px <= 0.01, "{rig}: {l}");
    }
}

/// Every joint marker of the output is hidden: inside a `display:none`
/// layer or an `opacity="0"` group rigbake added.
pub fn markers_hidden(svg: &str) {
    let doc = Document::parse(svg).unwrap();
    let mut n = 0;
    for m in doc.descendants().filter(|&e| {
        drawn_id(e).is_some_and(|id| id.starts_with("joint-") || id.starts_with("tip-"))
    }) {
        n += 1;
        assert!(
            m.ancestors().any(|a| a.attribute("opacity") == Some("0")
                || a.attribute("style")
                    .is_some_and(|s| s.contains("display:none"))),
            "marker {:?} is visible",
            m.attribute("id")
        );
    }
    assert!(n > 0);
}

pub fn dist(a: [f64; 2], b: Vec2) -> f64 {
    (a[0] - b.x).hypot(a[1] - b.y)
}

/// A drawing of a bone-tree rig whose markers sit on the hidden guide
/// layer, made visible: the output must hide them itself.
pub fn show_guides(drawn: &str) -> String {
    let s = drawn.replace(" style=\"display:none\"", "");
    assert_ne!(s, drawn);
    s
}

/// `bake --art` expecting a refusal: exit 2, one stderr line naming the
/// drawing and every needle, nothing written; the line.
pub fn refused(rig: &str, drawing: &str, needles: &[&str]) -> String {
    let mut all = vec!["drawing.svg"];
    all.extend(needles);
    refused_with(rig, drawing, &[], &all)
}

/// `bake --art` with more arguments expecting a refusal: exit 2, one
/// stderr line holding every needle, nothing written; the line.
pub fn refused_with(rig: &str, drawing: &str, args: &[&str], needles: &[&str]) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join("drawing.svg");
    fs::write(&art, drawing).unwrap();
    let out: PathBuf = tmp.path().join("out.svg");
    let res = art_cmd(rig, &art, &out).args(args).output().unwrap();
    let line = super::refused(&res, needles).trim_end().to_string();
    assert!(!out.exists());
    line
}

/// The offset a refusal states, px.
pub fn offset(line: &str) -> f64 {
    super::number_after(line, "\" is ")
}

/// Add `attrs` to the start tag of the part group `id`.
pub fn with_attrs(drawn: &str, id: &str, attrs: &str) -> String {
    let tag = format!("<g id=\"{id}\" inkscape:label=\"{id}\"");
    assert_eq!(drawn.matches(&tag).count(), 1, "{id}");
    drawn.replace(&tag, &format!("{tag} {attrs}"))
}

/// Probes of every art file at 48 times over its rig's period, in Chromium
/// and (where installed) Firefox ESR: the times per file, and per engine
/// its name and the probes per file and time. `None` without Chromium
/// (a notice on stderr; a failure when `CI=true`).
#[allow(clippy::type_complexity)]
pub fn probe_in_browsers(
    rigs: &[rig::Rig],
    svgs: &[&str],
) -> Option<(
    Vec<Vec<f64>>,
    Vec<(&'static str, Vec<Vec<rigbake::browser::Probes>>)>,
)> {
    use rigbake::browser::{self, SeekMode};
    let mut engines = vec![("Chromium", chromium_or_skip("the round trip")?)];
    if let Some(firefox) = browser::find_firefox() {
        engines.push(("Firefox", browser::Browser::firefox(firefox)));
    }
    let times: Vec<Vec<f64>> = rigs
        .iter()
        .map(|r| (0..48).map(|i| r.period_s * i as f64 / 48.0).collect())
        .collect();
    let batch: Vec<browser::ProbeJob> = svgs
        .iter()
        .zip(&times)
        .map(|(svg, t)| browser::ProbeJob {
            svg,
            mode: SeekMode::WebAnimations,
            times_s: t,
        })
        .collect();
    let got = engines
        .iter()
        .map(|(name, b)| {
            let probes = browser::probe_batch(b, &batch).unwrap_or_else(|e| panic!("{name}: {e}"));
            (*name, probes)
        })
        .collect();
    Some((times, got))
}

/// Headless Chromium, or `None` with a notice on stderr that `what` is
/// checked without a browser (a failure when `CI=true`).
pub fn chromium_or_skip(what: &str) -> Option<rigbake::browser::Browser> {
    match rigbake::browser::find_chromium() {
        Some(c) => Some(rigbake::browser::Browser::chromium(c)),
        None => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI=true but no Chromium found"
            );
            eprintln!("note: no Chromium found; {what} is checked without a browser");
            None
        }
    }
}

/// Seed 001's far limb: the shapes `shape-<far part>` replaced by a `<use>`
/// of the near part's shape moved by `translate(-6,-7)` (parts paired in
/// order).
pub fn far_as_near(drawn: &str, far: &[&str], near: &[&str]) -> String {
    let mut s = drawn.to_string();
    for (f, n) in far.iter().zip(near) {
        let doc = Document::parse(&s).unwrap();
        let shape = doc
            .descendants()
            .find(|e| e.attribute("id") == Some(&format!("shape-{f}")))
            .unwrap();
        let r = shape.range();
        s = format!(
            "{}<use href=\"#shape-{n}\" transform=\"translate(-6,-7)\"/>{}",
            &s[..r.start],
            &s[r.end..]
        );
    }
    s
}

/// `rigbake preview RIG --frames 2 --art DRAWING -o DIR/<tag>.png` with
/// `drawing` written to `DIR/<tag>.svg`: the command's output and the PNG
/// path.
pub fn preview_art(
    rig: &str,
    drawing: &str,
    dir: &Path,
    tag: &str,
) -> (std::process::Output, PathBuf) {
    let art = dir.join(format!("{tag}.svg"));
    fs::write(&art, drawing).unwrap();
    let png = dir.join(format!("{tag}.png"));
    let res = rigbake()
        .args(["preview", rig, "--frames", "2", "--art"])
        .arg(&art)
        .arg("-o")
        .arg(&png)
        .output()
        .unwrap();
    (res, png)
}
