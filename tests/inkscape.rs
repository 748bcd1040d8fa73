//! rigbake's files in Inkscape, the editor `rigbake template` draws for,
//! judged by Inkscape itself (Debian's `inkscape`, 1.2) run headless:
//!
//! - every rig's **template**, opened and saved by Inkscape as Inkscape SVG
//!   and as plain SVG, bakes with `--art`, with the report and the joint
//!   marker offsets of the template itself;
//! - **edits made by Inkscape's own actions** on the walker's template: a
//!   thigh moved 3 px (within the pose tolerance) bakes, a thigh or shin
//!   moved 40 px is refused with the one line docs/draw-a-figure.md
//!   shows; every shape turned into a path (Path > Object to Path, the
//!   joint markers too) and every stroke into a filled outline (Path >
//!   Stroke to Path) bakes with the template's report and marker offsets;
//! - every committed **output** in `out/`, opened and saved by Inkscape in
//!   both formats, keeps its `<style>` as written, its probes and its
//!   period, and in headless Chromium every probe stays within 0.05 px
//!   of the library's evaluation of the written clip (every leg's largest
//!   error within 0.05 px of the report).
//!
//! Each test runs Inkscape once for all its files (`--actions`:
//! `file-open:IN;…;export-filename:OUT;export-do;file-close` per file),
//! with `HOME` and the `XDG_*` directories in a fresh temporary directory
//! (nothing of the user's preferences is read or written) and a wall-clock
//! limit of [`INKSCAPE_TIMEOUT`].
//!
//! Inkscape is `RIGBAKE_INKSCAPE` when set, else `inkscape` on `PATH`.
//! Without it (or without Chromium, for the outputs' motion) a test prints
//! a note and passes, except under `CI=true`, where a missing tool is a
//! failure (`.ci/run` installs both Debian packages).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rigbake::bake::BakeOptions;
use rigbake::browser::{self, ProbeJob};
use rigbake::{Baked, Route, bake_rig, rig};

mod common;
use common::agree::{
    agrees, chromium, committed_outputs, in_ci, note, own_worst_times, rig_of, seek_mode,
};
use common::art::{Art, bake_art};
use common::{art_marker_offsets, example_rigs, refused, repo};

/// Seek times per period (plus each leg's reported worst time).
const SAMPLES: usize = 120;

/// Wall-clock limit for one Inkscape run (all the files of a test); it
/// takes about a second here.
const INKSCAPE_TIMEOUT: Duration = Duration::from_secs(120);

/// `RIGBAKE_INKSCAPE` when set and not empty (as given: a wrong override
/// fails loudly when run), else `inkscape` as an executable file on
/// `PATH`. Missing: a note once per test binary and `None`, or under
/// `CI=true` a failure.
fn inkscape() -> Option<PathBuf> {
    let found = std::env::var_os("RIGBAKE_INKSCAPE")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            let path = std::env::var_os("PATH")?;
            std::env::split_paths(&path)
                .map(|dir| dir.join("inkscape"))
                .find(|p| is_executable(p))
        });
    if found.is_none() {
        assert!(
            !in_ci(),
            "inkscape not found, CI requires it (install the Debian package `inkscape`)"
        );
        static NOTICE: std::sync::Once = std::sync::Once::new();
        NOTICE.call_once(|| {
            note(
                "inkscape not found; skipping the Inkscape tests (install the Debian package `inkscape` or set RIGBAKE_INKSCAPE)",
            )
        });
    }
    found
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// One file for Inkscape: opened, changed by `edit` (actions, may be
/// empty), then exported to every `(path, plain)` of `saves` (`plain`:
/// `--export-plain-svg`, else Inkscape SVG) and closed.
struct Job {
    open: PathBuf,
    edit: String,
    saves: Vec<(PathBuf, bool)>,
}

impl Job {
    /// Open `open` and save it unchanged as Inkscape SVG to `ink` and as
    /// plain SVG to `plain`.
    fn resave(open: &Path, ink: PathBuf, plain: PathBuf) -> Job {
        Job {
            open: open.to_path_buf(),
            edit: String::new(),
            saves: vec![(ink, false), (plain, true)],
        }
    }

    fn actions(&self) -> String {
        let mut a = vec![format!("file-open:{}", arg(&self.open))];
        if !self.edit.is_empty() {
            a.push(self.edit.clone());
        }
        for (path, plain) in &self.saves {
            a.push(format!("export-plain-svg:{plain}"));
            a.push(format!("export-filename:{}", arg(path)));
            a.push("export-do".into());
        }
        a.push("file-close".into());
        a.join(";")
    }
}

/// A path as an action's argument (`;` would end the action).
fn arg(path: &Path) -> &str {
    let s = path.to_str().expect("a UTF-8 temporary path");
    assert!(!s.contains(';'), "{s}");
    s
}

/// Runs every job in one Inkscape process (`--actions`), `HOME` and the
/// XDG directories in a fresh temporary directory, killed after
/// [`INKSCAPE_TIMEOUT`]; fails unless it exits 0 and wrote every file.
fn run_inkscape(inkscape: &Path, jobs: &[Job]) {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let runtime = h.join("run");
    std::fs::create_dir(&runtime).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    // its warnings (every CSS property it does not know, every SMIL
    // element) go to a file: a pipe nobody reads would fill up
    let log = h.join("inkscape.log");
    let actions: Vec<String> = jobs.iter().map(Job::actions).collect();
    let start = Instant::now();
    let mut child = Command::new(inkscape)
        .arg(format!("--actions={}", actions.join(";")))
        .env("HOME", h)
        .env("XDG_CONFIG_HOME", h.join("config"))
        .env("XDG_CACHE_HOME", h.join("cache"))
        .env("XDG_DATA_HOME", h.join("data"))
        .env("XDG_RUNTIME_DIR", &runtime)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(h)
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(h.join("inkscape.out")).unwrap())
        .stderr(std::fs::File::create(&log).unwrap())
        .spawn()
        .unwrap_or_else(|e| panic!("could not start {}: {e}", inkscape.display()));
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > INKSCAPE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("inkscape ran for more than {INKSCAPE_TIMEOUT:?}; killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let files: usize = jobs.iter().map(|j| j.saves.len()).sum();
    eprintln!(
        "inkscape: {} files opened, {files} saved in {:.1} s",
        jobs.len(),
        start.elapsed().as_secs_f64()
    );
    let tail = || {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    };
    assert!(status.success(), "inkscape: {status}\n{}", tail());
    for j in jobs {
        for (p, _) in &j.saves {
            assert!(
                p.is_file(),
                "inkscape wrote no {} (from {})\n{}",
                p.display(),
                j.open.display(),
                tail()
            );
        }
    }
}

/// The Inkscape version line (`Inkscape 1.2.2 (b0a8486541, 2022-12-01)`).
fn version(inkscape: &Path) -> String {
    let out = Command::new(inkscape)
        .arg("--version")
        .env("HOME", std::env::temp_dir())
        .stderr(Stdio::null())
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// `rigbake template RIG -o dir`: the template's path, or `None` when the
/// rig has none.
fn template(rig: &Path, dir: &Path) -> Option<PathBuf> {
    let out = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .arg("template")
        .arg(rig)
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    if !out.status.success() {
        eprintln!(
            "{}: no template ({})",
            rig.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    let name = rig::load(&std::fs::read_to_string(rig).unwrap())
        .unwrap()
        .name;
    Some(dir.join(format!("{name}.template.svg")))
}

/// The report of an art bake with the byte count (the only figure that
/// depends on the drawing) left out.
fn figures(art: &Art) -> serde_json::Value {
    let mut r = art.report.clone();
    assert_eq!(r["bytes"].as_u64(), Some(art.svg.len() as u64));
    r["bytes"] = 0.into();
    r
}

/// `got` (the art bake of a drawing Inkscape saved or edited) has the
/// figures and joint marker offsets of `want` (the template's own).
fn same_as_template(label: &str, got: &Art, want: &Art) {
    assert_eq!(
        figures(got),
        figures(want),
        "{label}: the report is the template's"
    );
    let markers = art_marker_offsets(&got.stdout);
    assert!(!markers.is_empty(), "{label}: {}", got.stdout);
    assert_eq!(
        markers,
        art_marker_offsets(&want.stdout),
        "{label}: the joint markers' offsets are the template's"
    );
}

/// The text of `path`.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every rig's template (every rig `rigbake template` accepts), saved by
/// Inkscape as Inkscape SVG and as plain SVG, bakes with `--art` to the
/// report of the template itself, with the same marker offsets.
#[test]
fn templates_saved_by_inkscape_bake_as_the_template() {
    let Some(ink) = inkscape() else { return };
    eprintln!("{}", version(&ink));
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let mut cases = Vec::new();
    for rig in example_rigs() {
        let Some(tpl) = template(&rig, t) else {
            continue;
        };
        let stem = rig.file_stem().unwrap().to_str().unwrap().to_string();
        cases.push((rig, tpl, stem));
    }
    assert!(cases.len() >= 10, "{} templates", cases.len());
    let jobs: Vec<Job> = cases
        .iter()
        .map(|(_, tpl, stem)| {
            Job::resave(
                tpl,
                t.join(format!("{stem}.inkscape.svg")),
                t.join(format!("{stem}.plain.svg")),
            )
        })
        .collect();
    run_inkscape(&ink, &jobs);
    std::thread::scope(|s| {
        let mut running = Vec::new();
        for (rig, tpl, stem) in &cases {
            running.push(s.spawn(move || {
                let rel = rig.strip_prefix(repo("")).unwrap().to_str().unwrap();
                let original = read(tpl);
                let want = bake_art(rel, &original, t, &format!("{stem}-template"));
                for (kind, plain) in [("inkscape", false), ("plain", true)] {
                    let label = format!("{stem} ({kind} svg)");
                    let saved = read(&t.join(format!("{stem}.{kind}.svg")));
                    assert_ne!(saved, original, "{label}: inkscape changed nothing");
                    // what Inkscape writes: its own ids on every element,
                    // and without its editing data (plain) no labels: the
                    // parts are bound by their ids alone
                    assert!(saved.contains("id=\"svg"), "{label}");
                    assert_eq!(saved.contains("inkscape:label"), !plain, "{label}: labels");
                    assert_eq!(saved.contains("sodipodi:namedview"), !plain, "{label}");
                    let got = bake_art(rel, &saved, t, &format!("{stem}-{kind}"));
                    same_as_template(&label, &got, &want);
                }
            }));
        }
        for r in running {
            if let Err(e) = r.join() {
                std::panic::resume_unwind(e);
            }
        }
    });
    eprintln!("{} templates round-tripped through inkscape", cases.len());
}

/// The walker's template edited by Inkscape's actions, as a user's edits
/// in its window are stored: a thigh moved 3 px bakes (Inkscape writes
/// `transform="translate(3)"` on its group); moved 40 px it is refused
/// with one line naming it, and the shin moved 40 px with the line
/// docs/draw-a-figure.md section 3 shows; every shape turned into a path
/// (joint markers too) and every stroke into a filled outline bake with
/// the template's report and marker offsets.
#[test]
fn edits_made_in_inkscape_bake_or_are_refused_as_documented() {
    let Some(ink) = inkscape() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let tpl = template(&repo("rigs/walker.json"), t).expect("the walker has a template");
    let edit = |name: &str, edit: &str, plain: bool| Job {
        open: tpl.clone(),
        edit: edit.into(),
        saves: vec![(t.join(format!("{name}.svg")), plain)],
    };
    run_inkscape(
        &ink,
        &[
            edit(
                "thigh-3",
                "select-by-id:thigh_n;transform-translate:3,0",
                false,
            ),
            edit(
                "thigh-40",
                "select-by-id:thigh_n;transform-translate:40,0",
                false,
            ),
            edit(
                "shin-40",
                "select-by-id:shin_n;transform-translate:40,0",
                false,
            ),
            edit("to-path", "select-all:no-groups;object-to-path", false),
            edit("to-path-plain", "select-all:no-groups;object-to-path", true),
            edit(
                "stroke-to-path",
                "select-all:no-groups;object-stroke-to-path",
                false,
            ),
        ],
    );
    let rig = "rigs/walker.json";
    let want = bake_art(rig, &read(&tpl), t, "template");

    // within the tolerance
    let moved = read(&t.join("thigh-3.svg"));
    let doc = roxmltree::Document::parse(&moved).unwrap();
    let thigh = doc
        .descendants()
        .find(|n| n.attribute("id") == Some("thigh_n"))
        .unwrap();
    assert_eq!(thigh.attribute("transform"), Some("translate(3)"));
    same_as_template(
        "thigh_n moved 3 px",
        &bake_art(rig, &moved, t, "thigh-3"),
        &want,
    );

    // beyond it: one line naming the part, nothing written
    let bake = |name: &str| {
        let out = t.join(format!("{name}.out.svg"));
        let res = common::art::art_cmd(rig, &t.join(format!("{name}.svg")), &out)
            .output()
            .unwrap();
        (res, out)
    };
    let (res, out) = bake("thigh-40");
    let line = refused(
        &res,
        &[
            "thigh-40.svg: line ",
            "\"thigh_n\" is 40 px from the rig's phase-0 joint (200, 164), more than 6 px: draw every part in the rig's own phase-0 pose (",
        ],
    );
    eprintln!("{}", line.trim_end());
    assert!(!out.exists());
    // the documented refusal, from the edit the guide describes
    let guide = read(&repo("docs/draw-a-figure.md"));
    let documented = guide
        .lines()
        .find(|l| l.starts_with("rigbake: error: walker.svg: ") && l.contains("\"shin_n\""))
        .expect("docs/draw-a-figure.md shows the shin_n refusal");
    let from = documented.find("\"shin_n\"").unwrap();
    let to = documented.rfind(" (…)").unwrap();
    let (res, out) = bake("shin-40");
    let line = refused(&res, &["shin-40.svg: line ", &documented[from..=to]]);
    eprintln!("{}", line.trim_end());
    assert!(!out.exists());

    // Object to Path: the parts' lines and the joint markers' circles
    // become paths; Stroke to Path: each line a filled outline
    for name in ["to-path", "to-path-plain", "stroke-to-path"] {
        let drawing = read(&t.join(format!("{name}.svg")));
        let doc = roxmltree::Document::parse(&drawing).unwrap();
        let tags = |prefix: &str| -> Vec<&str> {
            doc.descendants()
                .filter(|n| n.attribute("id").is_some_and(|id| id.starts_with(prefix)))
                .map(|n| n.tag_name().name())
                .collect()
        };
        let markers = tags("joint-");
        assert!(!markers.is_empty(), "{name}");
        if name.starts_with("to-path") {
            assert!(markers.iter().all(|t| *t == "path"), "{name}: {markers:?}");
        }
        assert!(
            !doc.descendants().any(|n| n.has_tag_name("line")),
            "{name}: a <line> is left"
        );
        same_as_template(name, &bake_art(rig, &drawing, t, name), &want);
    }
}

/// Bake `rigs/<name>.json` as `rigbake bake` does without flags.
fn bake(name: &str, route: Route) -> Baked {
    let text = read(&repo(&format!("rigs/{name}.json")));
    let rig = rig::load(&text).unwrap();
    bake_rig(&rig, &BakeOptions::resolve(&rig, route, None, None, None))
}

/// [`SAMPLES`] times over one period plus the reported worst time of every
/// leg the clip plays.
fn times_for(b: &Baked) -> Vec<f64> {
    let p = b.clip.period_s;
    let mut t: Vec<f64> = (0..SAMPLES)
        .map(|i| p * i as f64 / SAMPLES as f64)
        .collect();
    t.extend(own_worst_times(b));
    t
}

/// The text of every `<style>` of `svg`, in order.
fn styles(svg: &str) -> Vec<String> {
    let doc = roxmltree::Document::parse(svg).unwrap();
    doc.descendants()
        .filter(|n| n.has_tag_name("style"))
        .map(|n| n.text().unwrap_or_default().trim().to_string())
        .collect()
}

/// `data-probe` name → tag, and the root's `data-*` attributes.
fn probes_and_data(svg: &str) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let doc = roxmltree::Document::parse(svg).unwrap();
    let probes = doc
        .descendants()
        .filter_map(|n| {
            let p = n.attribute("data-probe")?;
            Some((p.to_string(), n.tag_name().name().to_string()))
        })
        .collect();
    let data = doc
        .root_element()
        .attributes()
        .filter(|a| a.name().starts_with("data-"))
        .map(|a| (a.name().to_string(), a.value().to_string()))
        .collect();
    (probes, data)
}

/// Every file of `out/` (both routes), opened and saved by Inkscape as
/// Inkscape SVG and as plain SVG: the `<style>` text is kept as written,
/// every probe and the root's `data-*` are kept, and in Chromium every
/// probe is within 0.05 px of the library's evaluation of a fresh
/// bake (the committed bytes), every leg's largest error within
/// [`TOL_PX`] of the report.
#[test]
fn outputs_saved_by_inkscape_still_animate_as_reported() {
    let Some(ink) = inkscape() else { return };
    eprintln!("{}", version(&ink));
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    let outputs = committed_outputs();
    assert!(outputs.len() >= 26, "out/ holds {} files", outputs.len());
    let saved = |p: &Path, kind: &str| {
        let stem = p.file_stem().unwrap().to_str().unwrap();
        t.join(format!("{stem}.{kind}.svg"))
    };
    let jobs: Vec<Job> = outputs
        .iter()
        .map(|p| Job::resave(p, saved(p, "inkscape"), saved(p, "plain")))
        .collect();
    run_inkscape(&ink, &jobs);
    let mut cases = Vec::new();
    for p in &outputs {
        let file = p.file_name().unwrap().to_string_lossy().into_owned();
        let original = read(p);
        let (name, route) = rig_of(p);
        let b = bake(&name, route);
        assert!(
            b.svg == original,
            "out/{file} is stale (regenerate with RIGBAKE_BLESS=1 cargo test --test golden)"
        );
        for kind in ["inkscape", "plain"] {
            let label = format!("out/{file} ({kind} svg)");
            let text = read(&saved(p, kind));
            assert_ne!(text, original, "{label}: inkscape changed nothing");
            assert_eq!(styles(&text), styles(&original), "{label}: <style>");
            assert_eq!(
                probes_and_data(&text),
                probes_and_data(&original),
                "{label}: probes, data-*"
            );
            cases.push((label, text, b.clone()));
        }
    }
    let Some(chromium) = chromium("the browser half of the Inkscape outputs check") else {
        return;
    };
    let times: Vec<Vec<f64>> = cases.iter().map(|(_, _, b)| times_for(b)).collect();
    let jobs: Vec<ProbeJob> = cases
        .iter()
        .zip(&times)
        .map(|((_, svg, b), times_s)| ProbeJob {
            svg,
            mode: seek_mode(b.clip.route),
            times_s,
        })
        .collect();
    let start = Instant::now();
    let got = browser::probe_batch(&chromium, &jobs).unwrap();
    eprintln!(
        "chromium: {} files in {:.1} s",
        jobs.len(),
        start.elapsed().as_secs_f64()
    );
    let mut worst = (0.0_f64, String::new());
    for (((label, _, b), times), got) in cases.iter().zip(&times).zip(&got) {
        let d = agrees(label, &b.clip, Some(b), times, got);
        if d > worst.0 {
            worst = (d, label.clone());
        }
    }
    eprintln!(
        "{} files saved by inkscape: max probe deviation {:.1e} px ({})",
        cases.len(),
        worst.0,
        worst.1
    );
}
