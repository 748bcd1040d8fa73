//! rigbake files in the web pipeline, judged by real tools:
//!
//! - several files **inlined in one HTML page** (their CSS is global to the
//!   page) each keep their own motion in headless Chromium, and every name a
//!   file defines is its own;
//! - **svgo** (the version pinned in `tests/package.json`, default preset,
//!   no config) over every file in `out/` keeps every probe, every figure
//!   (re-measured in Chromium against the report), clip switching and the
//!   period.
//!
//! Without Chromium, node or `tests/node_modules` (`npm ci --prefix tests`)
//! the affected tests print a note and pass, except under `CI=true`, where a
//! missing tool is a failure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use rigbake::bake::BakeOptions;
use rigbake::browser::{self, ProbeJob, SeekMode};
use rigbake::{Baked, Route, bake_rig, rig};

mod common;
use common::agree::{
    TOL_PX, agrees, chromium, committed_outputs, deviation, own_worst_times, rig_of, seek_mode,
};
use common::{probe_names, svgo, svgo_dir};

/// Seek times per check (plus each leg's reported worst time).
const SAMPLES: usize = 120;

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn load(name: &str) -> rig::Rig {
    let path = repo(&format!("rigs/{name}.json"));
    let text = std::fs::read_to_string(&path).unwrap();
    rig::load(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `rigs/<name>.json` with every leg's thigh set to `thigh`.
fn with_thigh(name: &str, thigh: f64) -> rig::Rig {
    let text = std::fs::read_to_string(repo(&format!("rigs/{name}.json"))).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    for leg in v["legs"].as_array_mut().unwrap() {
        leg["thigh"] = thigh.into();
    }
    rig::load(&v.to_string()).unwrap()
}

/// Bake as `rigbake bake` does without flags.
fn bake(rig: &rig::Rig, route: Route) -> Baked {
    bake_rig(rig, &BakeOptions::resolve(rig, route, None, None, None))
}

/// [`SAMPLES`] times over `[0, span_s)` plus the reported worst time of
/// every leg each bake's clip plays.
fn times_for(span_s: f64, bakes: &[&Baked]) -> Vec<f64> {
    let mut t: Vec<f64> = (0..SAMPLES)
        .map(|i| span_s * i as f64 / SAMPLES as f64)
        .collect();
    for b in bakes {
        t.extend(own_worst_times(b));
    }
    t
}

/// The page of the issue: two bakes of one rig that differ only in thigh
/// length, a different rig, and a SMIL file, all inline in one page.
fn page_bakes(prefix: Option<&str>) -> Vec<(String, Baked)> {
    let mut out = Vec::new();
    for (label, mut rig, route) in [
        (
            "seed-nested thigh 180",
            with_thigh("seed-nested", 180.0),
            Route::Css,
        ),
        (
            "seed-nested thigh 190",
            with_thigh("seed-nested", 190.0),
            Route::Css,
        ),
        ("recumbent", load("recumbent"), Route::Css),
        ("walker smil", load("walker"), Route::Smil),
    ] {
        rig.prefix = prefix.map(str::to_string);
        out.push((label.to_string(), bake(&rig, route)));
    }
    out
}

/// Every probe of every file inlined in one page is where the file's own
/// report puts it (each file alone is checked by tests/browser.rs).
#[test]
fn files_inlined_in_one_page_keep_their_own_motion() {
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let bakes = page_bakes(None);
    let refs: Vec<&Baked> = bakes.iter().map(|(_, b)| b).collect();
    let span = refs.iter().map(|b| b.clip.period_s).fold(0.0, f64::max);
    let times = times_for(span, &refs);
    let docs: Vec<(&str, SeekMode)> = refs
        .iter()
        .map(|b| (b.svg.as_str(), seek_mode(b.clip.route)))
        .collect();
    let got = browser::probe_inline(&chromium, &docs, &times).unwrap();
    for ((label, b), got) in bakes.iter().zip(&got) {
        agrees(label, &b.clip, Some(b), &times, got);
    }
}

/// The check above can fail: with one prefix for every file (as before
/// names were scoped) the same page's three css files drive each other
/// (the last file's rules win), far beyond [`TOL_PX`].
#[test]
fn one_shared_prefix_makes_inlined_files_drive_each_other() {
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let bakes = page_bakes(Some("rb"));
    let refs: Vec<&Baked> = bakes.iter().map(|(_, b)| b).collect();
    let times = times_for(1.2, &refs[..3]);
    let docs: Vec<(&str, SeekMode)> = refs[..3]
        .iter()
        .map(|b| (b.svg.as_str(), seek_mode(b.clip.route)))
        .collect();
    let got = browser::probe_inline(&chromium, &docs, &times).unwrap();
    let (worst, at) = deviation(&refs[0].clip, &times, &got[0]);
    eprintln!("shared names: thigh 180 file off by {worst:.2} px ({at})");
    assert!(
        worst > 1.0,
        "with shared names the first file should follow the second's keyframes, off by {worst} px"
    );
}

/// A page whose own sheet sets another `transform-box` on every SVG
/// element (a common snippet for animating SVG parts about their own
/// centre): the file's one `[id^=<prefix>-n]{transform-box:view-box}`
/// rule keeps every origin in the view box, for joints (rotate) and for
/// scaled groups alike.
/// (Its one probe is only there because every mounted document needs one.)
const ORIGIN_HOSTILE_PAGE: &str = r#"<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><style>svg *{transform-box:fill-box;transform-origin:center}</style><circle data-probe="page" cx="0" cy="0"/></svg>"#;

/// The files of [`files_inlined_in_one_page_keep_their_own_motion`] on
/// the page of [`ORIGIN_HOSTILE_PAGE`], the files as written and with
/// their `transform-box` rule taken out.
fn on_hostile_page(chromium: &browser::Browser, strip: bool) -> Vec<(String, f64)> {
    let bakes = [
        ("seed-nested", bake(&load("seed-nested"), Route::Css)),
        ("walker", bake(&load("walker"), Route::Css)),
        ("jump", bake(&load("jump"), Route::Css)),
        // its drawn shins' probes are in the wrappers rigbake adds to the
        // drawing (the clip's own follow it, in the skeleton group)
        ("seed-nested --art", art_on_template("seed-nested")),
    ];
    let svgs: Vec<String> = bakes
        .iter()
        .map(|(label, b)| {
            // (an --art file's sheet opens with its wrappers' origin rule)
            let rule = b.svg[..b
                .svg
                .find("{transform-box:view-box}")
                .expect("a transform-box rule")]
                .rfind("[id^=")
                .unwrap();
            let stem = &b.svg[rule + 5..rule + 5 + b.svg[rule + 5..].find(']').unwrap()];
            // the rule reaches every group whose motion has an origin (a
            // turn, a scale): the file's own, and in a drawing every
            // wrapper rigbake adds (a drawing's own ids come first there)
            if !label.ends_with("--art") {
                assert_eq!(stem, id_stem(&b.svg), "{label}");
            }
            let doc = roxmltree::Document::parse(&b.svg).unwrap();
            // a class whose rule (`.c{…}`, or `.c,` in a selector list)
            // animates about a `transform-origin`
            let turns = |c: &str| {
                let sel = format!(".{c}");
                b.svg.match_indices(&sel).any(|(i, _)| {
                    let rest = &b.svg[i + sel.len()..];
                    (rest.starts_with('{') || rest.starts_with(','))
                        && rest.find('{').is_some_and(|open| {
                            let body = &rest[open..open + rest[open..].find('}').unwrap()];
                            body.contains("animation") && body.contains("transform-origin")
                        })
                })
            };
            let animated = doc
                .descendants()
                .filter(|n| n.attribute("class").is_some_and(turns));
            let mut reached = 0;
            for n in animated {
                let id = n.attribute("id").unwrap_or_default();
                assert!(
                    id.starts_with(stem),
                    "{label}: group {id:?} is out of the rule's reach"
                );
                reached += 1;
            }
            assert!(reached >= 3, "{label}: {reached} animated groups found");
            if strip {
                let end = rule + b.svg[rule..].find('}').unwrap() + 1;
                format!("{}{}", &b.svg[..rule], &b.svg[end..])
            } else {
                b.svg.clone()
            }
        })
        .collect();
    let refs: Vec<&Baked> = bakes.iter().map(|(_, b)| b).collect();
    let span = refs.iter().map(|b| b.clip.period_s).fold(0.0, f64::max);
    let times = times_for(span, &refs);
    let mut docs: Vec<(&str, SeekMode)> = vec![(ORIGIN_HOSTILE_PAGE, SeekMode::WebAnimations)];
    docs.extend(svgs.iter().map(|s| (s.as_str(), SeekMode::WebAnimations)));
    let got = browser::probe_inline(chromium, &docs, &times).unwrap();
    bakes
        .iter()
        .zip(&got[1..])
        .map(|((label, b), got)| {
            let (clips, drawn) = split_drawn(got);
            let drawn = drawn_deviation(&b.clip, &times, &drawn);
            if label.ends_with("--art") {
                assert!(drawn.is_finite(), "{label}: no drawn probe measured");
            }
            if strip {
                (
                    label.to_string(),
                    deviation(&b.clip, &times, &clips).0.max(drawn),
                )
            } else {
                let worst = agrees(label, &b.clip, Some(b), &times, &clips);
                assert!(drawn <= TOL_PX, "{label}: a drawn ankle {drawn} px off");
                (label.to_string(), worst.max(drawn))
            }
        })
        .collect()
}

/// `name` (a cycling rig) baked onto its own template drawing (`rigbake
/// template`, then `bake --art`), with the plain bake's clip to measure
/// against: the file holds the clip's probes (in the skeleton group after
/// the drawing) and one of the drawing's own on each shin at the ankle,
/// `art-ankle-<leg>` (in the wrappers rigbake adds to the drawing), which
/// follows the clip's `<leg>-ankle`.
fn art_on_template(name: &str) -> Baked {
    let tmp = tempfile::tempdir().unwrap();
    let rig = repo(&format!("rigs/{name}.json"));
    let run = |args: &[&std::ffi::OsStr]| {
        let out = rigbake_cmd().args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&[
        "template".as_ref(),
        rig.as_os_str(),
        "-o".as_ref(),
        tmp.path().as_os_str(),
    ]);
    let drawing = tmp.path().join(format!("{name}.template.svg"));
    // a probe of the drawing's own on each shin, at the ankle (where the
    // template's marker is): so the drawn parts are measured too
    let mut text = std::fs::read_to_string(&drawing).unwrap();
    for leg in ["near", "far"] {
        let marker = format!("<circle id=\"joint-ankle-{leg}\"");
        let at = text.find(&marker).expect("the template's ankle marker");
        let tag = &text[at..at + text[at..].find("/>").unwrap()];
        let attr = |a: &str| {
            let k = tag.find(&format!(" {a}=\"")).unwrap() + a.len() + 3;
            tag[k..k + tag[k..].find('"').unwrap()].to_string()
        };
        let probe = format!(
            "<circle data-probe=\"art-ankle-{leg}\" cx=\"{}\" cy=\"{}\" r=\"1\" fill=\"none\"/>",
            attr("cx"),
            attr("cy")
        );
        let shin = format!("<g id=\"shin-{leg}\" inkscape:label=\"shin-{leg}\">");
        assert_eq!(text.matches(&shin).count(), 1, "{shin}");
        text = text.replace(&shin, &format!("{shin}{probe}"));
    }
    std::fs::write(&drawing, text).unwrap();
    let out = tmp.path().join("art.svg");
    run(&[
        "bake".as_ref(),
        rig.as_os_str(),
        "--art".as_ref(),
        drawing.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
        "-q".as_ref(),
    ]);
    Baked {
        svg: std::fs::read_to_string(&out).unwrap(),
        ..bake(&load(name), Route::Css)
    }
}

/// The browser's probes split into the clip's and the drawing's own
/// (`art-…`).
fn split_drawn(got: &[browser::Probes]) -> (Vec<browser::Probes>, Vec<browser::Probes>) {
    got.iter()
        .map(|p| {
            let (drawn, clips): (browser::Probes, browser::Probes) = p
                .clone()
                .into_iter()
                .partition(|(k, _)| k.starts_with("art-"));
            (clips, drawn)
        })
        .unzip()
}

/// The largest distance between a drawn probe `art-ankle-<leg>` and the
/// clip's `<leg>-ankle` (`measure::probes_at`) over all times; `-inf` for a
/// file without drawn probes.
fn drawn_deviation(clip: &rigbake::clip::Clip, times: &[f64], drawn: &[browser::Probes]) -> f64 {
    let mut worst = f64::NEG_INFINITY;
    for (t, probes) in times.iter().zip(drawn) {
        let want = rigbake::measure::probes_at(clip, *t);
        for (name, p) in probes {
            let leg = name.strip_prefix("art-ankle-").expect("an ankle probe");
            let w = want[&format!("{leg}-ankle")];
            worst = worst.max((p[0] - w.x).hypot(p[1] - w.y));
        }
    }
    worst
}

/// The id stem (`<prefix>-n`) of a file's first element id.
fn id_stem(svg: &str) -> String {
    let at = svg.find(" id=\"").expect("an element id") + 5;
    let id = &svg[at..at + svg[at..].find('"').unwrap()];
    id.trim_end_matches(|c: char| c.is_ascii_digit())
        .to_string()
}

#[test]
fn a_page_that_moves_every_origin_does_not_move_a_file() {
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    for (label, worst) in on_hostile_page(&chromium, false) {
        assert!(worst <= TOL_PX, "{label}: {worst} px");
    }
    // the check can fail: without the rule the page's sheet wins
    let stripped = on_hostile_page(&chromium, true);
    eprintln!("without the transform-box rule: {stripped:?}");
    for (label, worst) in stripped {
        assert!(worst > 1.0, "{label}: only {worst} px off without the rule");
    }
}

/// Names a file defines: class names, ids and `@keyframes` names.
fn defined_names(svg: &str) -> BTreeSet<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let mut names = BTreeSet::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        if let Some(c) = n.attribute("class") {
            names.extend(c.split_ascii_whitespace().map(str::to_string));
        }
        if let Some(id) = n.attribute("id") {
            names.insert(id.to_string());
        }
        if n.has_tag_name("style") {
            let css = n.text().unwrap_or_default();
            for part in css.split("@keyframes ").skip(1) {
                names.insert(part.split('{').next().unwrap().trim().to_string());
            }
        }
    }
    names
}

/// Every committed output and the two thigh variants of the page: no class,
/// id or `@keyframes` name is defined by two files; baking again gives the
/// same names (the prefix is a function of the content).
#[test]
fn every_defined_name_belongs_to_one_file() {
    let mut files: Vec<(String, String)> = committed_outputs()
        .into_iter()
        .map(|p| {
            let label = p.file_name().unwrap().to_string_lossy().into_owned();
            (label, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    assert!(files.len() >= 26, "out/ holds {} files", files.len());
    // the two thigh variants (the page's other files are in out/ already)
    for (label, b) in page_bakes(None).into_iter().take(2) {
        files.push((label, b.svg));
    }
    let mut owner: BTreeMap<String, &str> = BTreeMap::new();
    for (label, svg) in &files {
        let names = defined_names(svg);
        assert!(!names.is_empty(), "{label} defines no names");
        for name in names {
            if let Some(other) = owner.insert(name.clone(), label) {
                panic!("{name} is defined by both {other} and {label}");
            }
        }
    }
    let again = page_bakes(None);
    assert_eq!(
        defined_names(&again[0].1.svg),
        defined_names(&files[files.len() - 2].1)
    );
}

/// Runs the pinned svgo (default preset: no config file is in reach of the
/// fresh working directory) over every file in `out/` in one process;
/// returns (path in out/, optimised text).
fn svgo_out(svgo: &Path) -> Vec<(PathBuf, String)> {
    let optimised = svgo_dir(svgo, &repo("out"));
    committed_outputs()
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let text = optimised
                .get(&name)
                .unwrap_or_else(|| panic!("svgo wrote no {name}"))
                .clone();
            (p, text)
        })
        .collect()
}

fn root_attr(svg: &str, name: &str) -> Option<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.root_element().attribute(name).map(str::to_string)
}

/// svgo's default preset over every file in `out/`: every probe is still
/// there, `data-period` still reads as the period, and in Chromium every
/// probe of the optimised file is within [`TOL_PX`] of the library's
/// evaluation of a fresh bake (the same bytes as the committed file), every
/// leg's largest error within [`TOL_PX`] of the report.
#[test]
fn svgo_keeps_every_probe_and_figure() {
    let Some(svgo) = svgo() else { return };
    let optimised = svgo_out(&svgo);
    let mut cases = Vec::new();
    for (path, text) in &optimised {
        let label = format!("svgo out/{}", path.file_name().unwrap().to_string_lossy());
        let original = std::fs::read_to_string(path).unwrap();
        let (name, route) = rig_of(path);
        let b = bake(&load(&name), route);
        assert!(
            b.svg == original,
            "{label}: out/ is stale (regenerate with RIGBAKE_BLESS=1 cargo test --test golden)"
        );
        assert_ne!(*text, original, "{label}: svgo changed nothing");
        assert_eq!(probe_names(text), probe_names(&original), "{label}: probes");
        let period = |s: &str| -> f64 {
            root_attr(s, "data-period")
                .and_then(|p| p.parse().ok())
                .unwrap_or_else(|| panic!("{label}: no data-period"))
        };
        assert_eq!(period(text), period(&original), "{label}: data-period");
        assert_eq!(period(text), b.clip.period_s, "{label}: data-period");
        cases.push((label, text.as_str(), b));
    }
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let times: Vec<Vec<f64>> = cases
        .iter()
        .map(|(_, _, b)| times_for(b.clip.period_s, &[b]))
        .collect();
    let jobs: Vec<ProbeJob> = cases
        .iter()
        .zip(&times)
        .map(|((_, svg, b), times_s)| ProbeJob {
            svg,
            mode: seek_mode(b.clip.route),
            times_s,
        })
        .collect();
    let got = browser::probe_batch(&chromium, &jobs).unwrap();
    for (((label, _, b), times), got) in cases.iter().zip(&times).zip(&got) {
        agrees(label, &b.clip, Some(b), times, got);
    }
}

/// After svgo, setting the idle clip's class on jump.svg's root still
/// switches to the idle clip, and each class shows its own clip.
#[test]
fn svgo_keeps_clip_switching() {
    let Some(svgo) = svgo() else { return };
    let optimised = svgo_out(&svgo);
    let (_, text) = optimised
        .iter()
        .find(|(p, _)| p.ends_with("out/jump.svg"))
        .expect("out/jump.svg");
    let rig = load("jump");
    let fb = bake(&rig, Route::Css);
    assert!(
        fb.svg == std::fs::read_to_string(repo("out/jump.svg")).unwrap(),
        "out/jump.svg is stale (regenerate with RIGBAKE_BLESS=1 cargo test --test golden)"
    );
    let class = root_attr(text, "class").expect("the root keeps its clip class");
    let idle = class
        .strip_suffix("-clip-jump")
        .map(|p| format!("{p}-clip-idle"))
        .unwrap_or_else(|| panic!("root class {class:?} does not select the jump clip"));
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let times = [0.15, 0.3, 0.45, 0.6, 0.75, 0.9, 1.05];
    let (before, after) = browser::probe_class_switch(&chromium, text, &idle, &times).unwrap();
    agrees(
        "svgo jump.svg, jump clip",
        &fb.clips[0],
        None,
        &times,
        &before,
    );
    agrees(
        "svgo jump.svg, idle clip",
        &fb.clips[1],
        None,
        &times,
        &after,
    );
}

fn rigbake_cmd() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rigbake"))
}

/// `bake --prefix P` names everything `P-…`; a prefix that is not a CSS
/// identifier, or one prefix for several files, is refused with exit 2,
/// one stderr line naming the option and value, and nothing written.
#[test]
fn bake_prefix_is_exact_and_checked() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hero.svg");
    let seed = repo("rigs/seed-nested.json");
    let ok = rigbake_cmd()
        .args(["bake", "-q", "--prefix", "hero", "-o"])
        .arg(&out)
        .arg(&seed)
        .output()
        .unwrap();
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    let svg = std::fs::read_to_string(&out).unwrap();
    let names = defined_names(&svg);
    assert!(names.contains("hero-b-near_thigh"), "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("hero-")), "{names:?}");
    // the prefix changes names only: the same bake with its own prefix
    let auto = bake(&load("seed-nested"), Route::Css);
    let stem = id_stem(&auto.svg);
    let p = stem.strip_suffix("-n").unwrap();
    assert_eq!(id_stem(&svg), "hero-n");
    assert_eq!(svg.replace("hero-", &format!("{p}-")), auto.svg);

    let cases: [(&[&str], &str); 4] = [
        (&["--prefix", "1hero"], "\"1hero\""),
        (&["--prefix", "he ro"], "\"he ro\""),
        (&["--prefix", ""], "\"\""),
        (
            &["--prefix", "hero", "--route", "both"],
            "one rig and one route",
        ),
    ];
    for (args, needle) in cases {
        let target = dir.path().join("bad");
        let res = rigbake_cmd()
            .arg("bake")
            .args(args)
            .arg("-o")
            .arg(&target)
            .arg(&seed)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(
            err.contains("--prefix") && err.contains(needle),
            "{args:?}: {err}"
        );
        assert!(!target.exists(), "{args:?} wrote {}", target.display());
    }
    let two = rigbake_cmd()
        .args(["bake", "--prefix", "hero", "-o"])
        .arg(dir.path())
        .arg(&seed)
        .arg(repo("rigs/recumbent.json"))
        .output()
        .unwrap();
    assert_eq!(two.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&two.stderr).contains("got 2 rigs"));
}

/// The guards are what keeps the files intact: the same files without the
/// css route's ids or the smil route's `additive="sum"` come out of svgo
/// with parts far from where the report puts them (so the checks above can
/// fail).
#[test]
fn svgo_breaks_files_without_the_structure_guards() {
    let Some(svgo) = svgo() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut bakes = Vec::new();
    for (name, route) in [("path-foot", Route::Css), ("jump", Route::Smil)] {
        let b = bake(&load(name), route);
        let unguarded = match route {
            // drop every id="…" attribute
            Route::Css => b
                .svg
                .split(" id=\"")
                .enumerate()
                .map(|(i, part)| {
                    if i == 0 {
                        part
                    } else {
                        part.split_once('"').unwrap().1
                    }
                })
                .collect::<String>(),
            Route::Smil => b.svg.replace(" additive=\"sum\"", ""),
        };
        assert_ne!(unguarded, b.svg);
        let file = format!("{name}-{}.svg", route.as_str());
        std::fs::write(dir.path().join(&file), unguarded).unwrap();
        bakes.push((file, b));
    }
    let optimised = svgo_dir(&svgo, dir.path());
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let times: Vec<Vec<f64>> = bakes
        .iter()
        .map(|(_, b)| times_for(b.clip.period_s, &[b]))
        .collect();
    let jobs: Vec<ProbeJob> = bakes
        .iter()
        .zip(&times)
        .map(|((file, b), times_s)| ProbeJob {
            svg: &optimised[file],
            mode: seek_mode(b.clip.route),
            times_s,
        })
        .collect();
    let got = browser::probe_batch(&chromium, &jobs).unwrap();
    for (((file, b), times), got) in bakes.iter().zip(&times).zip(&got) {
        let (worst, at) = deviation(&b.clip, times, got);
        eprintln!("{file} without guards, after svgo: off by {worst:.2} px ({at})");
        assert!(
            worst > 1.0,
            "{file}: only {worst} px off without the guards"
        );
    }
}

/// Where the swatches of [`swatch_drawing`] are: their centres in the
/// drawing's 800 × 600 view box.
const SWATCHES: [(usize, usize); 7] = [
    (80, 560),
    (240, 560),
    (400, 560),
    (560, 560),
    (720, 560),
    (80, 500),
    (240, 500),
];

/// The cyclist drawing (`tests/fixtures/art/cyclist.svg`) with seven
/// swatches ([`SWATCHES`]: five along its bottom edge, two above the first
/// two), each painted through a name the way editors write them, in
/// `colours` (`#rrggbb`): a gradient `fill` attribute (Inkscape's
/// `linearGradient1`), an Illustrator class (`.cls-1`), an `#id` rule, a
/// `<use>` of a `<defs>` shape, a `style` naming a gradient whose stops
/// come through an `xlink:href` template, a custom property set on
/// `:root`, and a registered property's initial value (`@property`).
fn swatch_drawing(colours: [&str; 7]) -> String {
    let art = std::fs::read_to_string(repo("tests/fixtures/art/cyclist.svg")).unwrap();
    let [c0, c1, c2, c3, c4, c5, c6] = colours;
    let defs = format!(
        "<defs id=\"defs1\">\
         <linearGradient id=\"linearGradient1\"><stop offset=\"0\" stop-color=\"{c0}\"/><stop offset=\"1\" stop-color=\"{c0}\"/></linearGradient>\
         <linearGradient id=\"linearGradient2\" xlink:href=\"#linearGradient3\"/>\
         <linearGradient id=\"linearGradient3\"><stop offset=\"0\" stop-color=\"{c4}\"/><stop offset=\"1\" stop-color=\"{c4}\"/></linearGradient>\
         <rect id=\"tile\" x=\"480\" y=\"520\" width=\"160\" height=\"80\" fill=\"{c3}\"/>"
    );
    let background = "<rect x=\"0\" y=\"0\" width=\"800\" height=\"600\" fill=\"#fdfcf7\"/>";
    let swatches = format!(
        "{background}\
         <rect x=\"0\" y=\"520\" width=\"160\" height=\"80\" fill=\"url(#linearGradient1)\"/>\
         <rect class=\"cls-1\" x=\"160\" y=\"520\" width=\"160\" height=\"80\"/>\
         <rect id=\"swatch\" x=\"320\" y=\"520\" width=\"160\" height=\"80\"/>\
         <use xlink:href=\"#tile\"/>\
         <rect x=\"640\" y=\"520\" width=\"160\" height=\"80\" style=\"fill:url(#linearGradient2)\"/>\
         <rect x=\"0\" y=\"480\" width=\"160\" height=\"40\" style=\"fill:var(--ink)\"/>\
         <rect class=\"registered\" x=\"160\" y=\"480\" width=\"160\" height=\"40\"/>"
    );
    let sheet =
        "<style>/* the drawing's own style */ .label { font: 14px sans-serif; fill: #333 }</style>";
    assert!(art.contains(background) && art.contains(sheet));
    art.replacen("<defs id=\"defs1\">", &defs, 1)
        .replacen(background, &swatches, 1)
        .replacen(
            sheet,
            &format!(
                "<style><![CDATA[.label{{fill:#333}} .cls-1{{fill:{c1}}} #swatch{{fill:{c2}}} \
                 :root{{--ink:{c5}}} .registered{{fill:var(--paint)}} \
                 @property --paint{{syntax:'<color>';inherits:false;initial-value:{c6}}}]]></style>"
            ),
            1,
        )
}

/// The colour of each swatch of [`swatch_drawing`] of every file, inlined
/// one below the other in one HTML page, 400 px wide, as Chromium paints
/// them.
fn swatch_colours(chromium: &browser::Browser, svgs: &[&str]) -> Vec<[[u8; 3]; 7]> {
    const W: usize = 400;
    const H: usize = 300;
    let body: String = svgs
        .iter()
        .map(|svg| format!("<div>{}</div>", &svg[svg.find("<svg").unwrap()..]))
        .collect();
    let html = format!(
        "<!doctype html><html><head><style>body{{margin:0}}svg{{display:block;width:{W}px;height:{H}px}}</style></head><body>{body}</body></html>"
    );
    let dir = tempfile::tempdir().unwrap();
    let png_path = dir.path().join("page.png");
    let height = (H * svgs.len()) as u32;
    browser::screenshot(chromium, &html, W as u32, height, 1000, &png_path).unwrap();
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).unwrap(),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    let channels = info.color_type.samples();
    let (w, scale) = (info.width as usize, info.width as f64 / W as f64);
    (0..svgs.len())
        .map(|f| {
            std::array::from_fn(|j| {
                let (cx, cy) = SWATCHES[j];
                let x = ((cx * W / 800) as f64 * scale) as usize;
                let y = ((H * f + cy * H / 600) as f64 * scale) as usize;
                let px = &buf[(y * w + x) * channels..][..3];
                [px[0], px[1], px[2]]
            })
        })
        .collect()
}

/// Two `bake --art` drawings that use the same names for different
/// colours, as two drawings from one editor do, inlined in one page:
/// Chromium paints every swatch of each file in the file's own colour
/// (the drawing's ids, classes and references are the file's own), as
/// written and after svgo. Each swatch of the second file would show the
/// first file's colour, or the first file the second's, if any kind of
/// reference reached the other file (with the custom properties left
/// unscoped, the first file's `:root` and `@property` swatches take the
/// second file's colours).
#[test]
fn inlined_art_files_keep_their_own_drawn_names() {
    let palettes = [
        [
            "#ff0000", "#00ff00", "#0000ff", "#ffff00", "#ff00ff", "#ff8000", "#8000ff",
        ],
        [
            "#00ffff", "#800000", "#008000", "#000080", "#808000", "#008080", "#800080",
        ],
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut svgs = Vec::new();
    let rig = repo("rigs/seed-nested.json");
    for (k, colours) in palettes.iter().enumerate() {
        let drawing = swatch_drawing(*colours);
        let baked =
            common::art::bake_art(rig.to_str().unwrap(), &drawing, dir.path(), &k.to_string());
        svgs.push(baked.svg);
    }
    let optimised = match svgo() {
        Some(svgo) => {
            let only = dir.path().join("baked");
            std::fs::create_dir(&only).unwrap();
            for (k, svg) in svgs.iter().enumerate() {
                std::fs::write(only.join(format!("art{k}.svg")), svg).unwrap();
            }
            let out = svgo_dir(&svgo, &only);
            vec![out["art0.svg"].clone(), out["art1.svg"].clone()]
        }
        None => Vec::new(),
    };
    let Some(chromium) = chromium("the Chromium checks") else {
        return;
    };
    let hex = |c: &str| -> [u8; 3] {
        std::array::from_fn(|i| u8::from_str_radix(&c[1 + 2 * i..3 + 2 * i], 16).unwrap())
    };
    let mut wrong = Vec::new();
    for (label, files) in [("as written", &svgs), ("after svgo", &optimised)] {
        if files.is_empty() {
            continue;
        }
        let texts: Vec<&str> = files.iter().map(String::as_str).collect();
        let got = swatch_colours(&chromium, &texts);
        for (k, (got, want)) in got.iter().zip(&palettes).enumerate() {
            for (j, (g, w)) in got.iter().zip(want).enumerate() {
                let w = hex(w);
                let off = g.iter().zip(&w).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
                if off > 8 {
                    wrong.push(format!(
                        "{label}: file {k}, swatch {j}: painted {g:?}, its own colour is {w:?}"
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
