//! `rigbake gallery`: the page lists every baked file once, animating as an
//! `<img>`, with the figures `check --format json` measures for it and its
//! size on disk; every link on the page resolves to a file written beside
//! it; with Chromium each file gets an 8-frame strip, without one the page
//! says so; the bytes do not change between runs; bad input writes nothing.

mod common;

use assert_cmd::Command;
use common::{refused, repo, snapshot};
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// One rig of each kind: cycling legs, a bone tree, `ik_chains`.
const RIGS: [&str; 3] = [
    "rigs/seed-nested.json",
    "rigs/walker.json",
    "rigs/path-foot.json",
];

fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(repo(""));
    c
}

/// `rigbake gallery RIGS -o dir`, with Chromium hidden when `chromium` is
/// false (an empty override and a PATH without it).
fn gallery(dir: &Path, chromium: bool) -> String {
    let mut c = rigbake();
    c.arg("gallery").args(RIGS).arg("-o").arg(dir);
    if !chromium {
        c.env("RIGBAKE_CHROMIUM", "").env("PATH", "/nonexistent");
    }
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Probe figures per file name, from `check --format json --route both`.
fn checked() -> BTreeMap<String, BTreeSet<(String, String, String, u64)>> {
    let out = rigbake()
        .arg("check")
        .args(RIGS)
        .args(["--route", "both", "--max-error", "1000", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut m = BTreeMap::new();
    for r in v["results"].as_array().unwrap() {
        let rig = r["rig"].as_str().unwrap();
        let file = match r["route"].as_str().unwrap() {
            "css" => format!("{rig}.svg"),
            _ => format!("{rig}.smil.svg"),
        };
        let probes = r["probes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    p["kind"].as_str().unwrap().to_string(),
                    p["clip"].as_str().unwrap_or("").to_string(),
                    p["name"].as_str().unwrap().to_string(),
                    p["max_error_px"].as_f64().unwrap().to_bits(),
                )
            })
            .collect();
        m.insert(file, probes);
    }
    assert_eq!(m.len(), 2 * RIGS.len());
    m
}

/// Reads the page, checks it against the directory and `check`, and
/// returns the strip names it shows (file → strip).
fn verify(dir: &Path, want_strips: bool) -> BTreeMap<String, String> {
    let html = fs::read_to_string(dir.join("index.html")).unwrap();
    let opts = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&html, opts).unwrap();
    let svgs: BTreeSet<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    let want = checked();
    assert_eq!(
        svgs,
        want.keys().cloned().collect(),
        "files written = files checked"
    );
    let sections: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("section"))
        .collect();
    assert_eq!(sections.len(), svgs.len(), "one section per file");
    let mut strips = BTreeMap::new();
    let mut seen = BTreeSet::new();
    for s in sections {
        let file = s.attribute("id").unwrap().to_string();
        assert!(seen.insert(file.clone()), "{file} listed twice");
        // animating: the file itself as an image
        let anim = s
            .descendants()
            .find(|n| n.has_tag_name("img") && n.attribute("class") == Some("anim"))
            .unwrap();
        assert_eq!(anim.attribute("src"), Some(file.as_str()));
        // figures: exactly check's probes, and the size on disk
        let rows: BTreeSet<(String, String, String, u64)> = s
            .descendants()
            .filter(|n| n.attribute("class") == Some("probe"))
            .map(|n| {
                (
                    n.attribute("data-kind").unwrap().to_string(),
                    n.attribute("data-clip").unwrap().to_string(),
                    n.attribute("data-name").unwrap().to_string(),
                    n.attribute("data-max-error-px")
                        .unwrap()
                        .parse::<f64>()
                        .unwrap()
                        .to_bits(),
                )
            })
            .collect();
        assert_eq!(rows, want[&file], "{file}: figures differ from check");
        assert!(!rows.is_empty());
        let bytes: u64 = s
            .descendants()
            .find_map(|n| n.attribute("data-bytes"))
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            bytes,
            fs::metadata(dir.join(&file)).unwrap().len(),
            "{file}"
        );
        let strip = s
            .descendants()
            .find(|n| n.has_tag_name("img") && n.attribute("class") == Some("strip"));
        let note = s
            .descendants()
            .any(|n| n.attribute("class") == Some("note no-strip"));
        if want_strips {
            let png = strip.unwrap().attribute("src").unwrap().to_string();
            assert!(!note);
            strips.insert(file, png);
        } else {
            assert!(strip.is_none() && note, "{file}");
            let text: String = s
                .descendants()
                .filter(|n| n.is_text())
                .map(|n| n.text().unwrap())
                .collect();
            assert!(text.contains("no headless Chromium"), "{file}");
        }
    }
    // every link resolves to a file beside the page
    for n in doc.descendants() {
        for a in ["src", "href"] {
            if let Some(target) = n.attribute(a) {
                assert!(
                    !target.contains('/') && dir.join(target).is_file(),
                    "{a}=\"{target}\" does not resolve"
                );
            }
        }
    }
    strips
}

#[test]
fn page_lists_every_file_with_its_figures_and_strip() {
    let Some(_) = rigbake::browser::find_chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no Chromium found"
        );
        eprintln!("note: no Chromium found; skipping the gallery strips test");
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("gallery");
    let said = gallery(&dir, true);
    assert!(said.contains("with frame strips"), "{said}");
    let strips = verify(&dir, true);
    assert_eq!(strips.len(), 2 * RIGS.len());
    for (file, png) in strips {
        let bytes = fs::read(dir.join(&png)).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "{png}");
        // IHDR width: 8 frames of 240 CSS px
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        assert_eq!(width, 8 * 240, "{file}: {png}");
    }
}

#[test]
fn without_chromium_the_page_says_so_and_its_bytes_are_stable() {
    let tmp = tempfile::tempdir().unwrap();
    let a = tmp.path().join("a");
    let said = gallery(&a, false);
    assert!(said.contains("without frame strips"), "{said}");
    verify(&a, false);
    assert!(
        !fs::read_dir(&a).unwrap().any(|e| e
            .unwrap()
            .path()
            .extension()
            .is_some_and(|x| x == "png"))
    );
    // the same bytes again, into another directory and over itself
    let b = tmp.path().join("b");
    gallery(&b, false);
    assert_eq!(snapshot(&a), snapshot(&b));
    gallery(&a, false);
    assert_eq!(snapshot(&a), snapshot(&b));
    // and the files are the committed bakes
    for (name, bytes) in snapshot(&a) {
        let name = name.to_string_lossy().into_owned();
        if name.ends_with(".svg") {
            assert_eq!(
                bytes,
                fs::read(repo("out").join(&name)).unwrap(),
                "{name} differs from out/"
            );
        }
    }
}

#[test]
fn bad_input_is_one_line_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    let bad = tmp.path().join("bad.json");
    fs::write(&bad, "[1, 2").unwrap();
    let res = rigbake()
        .args(["gallery", "rigs/seed-nested.json"])
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .env("RIGBAKE_CHROMIUM", "")
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    refused(&res, &["bad.json"]);
    assert!(!out.exists());
    let file = tmp.path().join("page.html");
    fs::write(&file, "x").unwrap();
    let res = rigbake()
        .args(["gallery", "rigs/seed-nested.json", "-o"])
        .arg(&file)
        .output()
        .unwrap();
    refused(&res, &["page.html", "-o"]);
    assert_eq!(fs::read_to_string(&file).unwrap(), "x");
    // two rigs with one name would write one file twice
    let res = rigbake()
        .args([
            "gallery",
            "rigs/seed-nested.json",
            "rigs/seed-nested.json",
            "-o",
        ])
        .arg(&out)
        .env("RIGBAKE_CHROMIUM", "")
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    refused(&res, &["seed-nested"]);
    assert!(!out.exists());
}
