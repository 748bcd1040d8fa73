//! The illustrator-facing commands: `preview`, `template`, `bake --art`,
//! `bake --watch`.
//!
//! Like the rest of the binary, this module only reads files, calls the
//! library and writes outputs atomically; the work itself is in
//! [`rigbake::art`], [`rigbake::browser`] and [`rigbake::watch`].

use super::output::{self, Input, Output};
use super::{BakeArgs, Exit, RouteArg, SweepRoute, load_rig};
use anyhow::{Context, Result, anyhow, bail};
use rigbake::Route;
use rigbake::browser::{self, SeekMode};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// Most frames `preview` renders (the strip is 240 px per frame wide).
pub(crate) const MAX_PREVIEW_FRAMES: usize = 32;

/// `rigbake preview`: bake one rig in memory with its own keying, render
/// `frames` moments of one period through headless Chromium
/// ([`browser::frame_strip`]) into a temporary PNG beside `output`, then
/// rename it into place.
pub(crate) fn cmd_preview(
    rig_path: &Path,
    output: &Path,
    frames: usize,
    route: SweepRoute,
    art: Option<&Path>,
    clip: Option<String>,
) -> Result<Exit> {
    if !(1..=MAX_PREVIEW_FRAMES).contains(&frames) {
        bail!("--frames: must be between 1 and {MAX_PREVIEW_FRAMES}, got {frames}");
    }
    output::refuse_stdout(
        "-o",
        output,
        "preview writes a PNG file, not standard output; name a .png path",
    )?;
    if output.is_dir() {
        bail!(
            "-o {}: is a directory, expected a .png path",
            output.display()
        );
    }
    let mut inputs = vec![Input::rig(rig_path)];
    if let Some(p) = art {
        inputs.push(Input {
            what: "drawing",
            path: p,
        });
    }
    output::check_distinct(&[Output::new("-o", output, &[])], &inputs)?;
    let (route, mode) = match route {
        SweepRoute::Css => (Route::Css, SeekMode::WebAnimations),
        SweepRoute::Smil if art.is_some() => {
            bail!("--route: {}", rigbake::art::ArtError::Route)
        }
        SweepRoute::Smil => (Route::Smil, SeekMode::Smil),
    };
    let args = BakeArgs {
        route: RouteArg::Css,
        keys: None,
        tolerance: None,
        fit: None,
        clip,
        prefix: None,
    };
    let rig = match art {
        Some(_) => args.load_art(rig_path)?,
        None => args.load(rig_path)?,
    };
    // one bake: the drawing's (css), or the rig's own on `route`
    let baked = match art {
        Some(p) => {
            let text = rigbake::input::read_text(p, rigbake::input::Input::Drawing)?;
            let (mut b, animated) = bake_art((rig_path, &rig), &args, &text, p)?;
            b.svg = animated.svg;
            b
        }
        None => super::batch::bake_kept((rig_path, &rig), &args, route)?,
    };
    let chromium = browser::find_chromium().ok_or_else(|| {
        anyhow!(
            "preview needs headless Chromium: none found on PATH \
             (install chromium, or set RIGBAKE_CHROMIUM to its executable)"
        )
    })?;
    // Chromium writes the strip into a private temporary directory (removed
    // on return or interrupt); the PNG is then written like any output.
    let (scratch, _on_signal) = {
        let _gate = rigbake::interrupt::critical();
        let scratch = tempfile::Builder::new()
            .prefix("rigbake-preview-")
            .tempdir()
            .context("cannot create a temporary directory")?;
        let reg = rigbake::interrupt::remove_on_signal(scratch.path());
        (scratch, reg)
    };
    let png_path = scratch.path().join("strip.png");
    browser::frame_strip(
        &browser::Browser::chromium(chromium),
        &baked.svg,
        mode,
        baked.clip.period_s,
        frames,
        &png_path,
    )
    .with_context(|| format!("{}: preview failed", rig_path.display()))?;
    let png = std::fs::read(&png_path)
        .with_context(|| format!("{}: cannot read the rendered strip", png_path.display()))?;
    output::write_all(&[Output::new("-o", output, &png)], &inputs)?;
    Ok(Exit::Ok)
}

/// `rigbake gallery`: bake every rig on both routes at its own settings
/// (refusing a rig that misses its tolerance, as `bake` does), render a
/// frame strip of each file when Chromium is found, and write the files,
/// the strips and `index.html` ([`rigbake::gallery::page`]) into `output`
/// all together.
///
/// As in a `bake` batch ([`super::batch`]), the rigs are validated first
/// and the output names checked before anything is baked; each SVG is
/// staged as soon as it is baked and each strip as soon as it is rendered,
/// so memory holds a few rigs and bakes and one report per file, not the
/// gallery. A strip is rendered from its SVG read back from where it was
/// staged.
pub(crate) fn cmd_gallery(rigs: &[PathBuf], output: &Path) -> Result<Exit> {
    output::refuse_stdout(
        "-o",
        output,
        "gallery writes a directory, not standard output; name a directory",
    )?;
    if output.exists() && !output.is_dir() {
        bail!("-o {}: is a file; name a directory", output.display());
    }
    let args = BakeArgs {
        route: RouteArg::Both,
        keys: None,
        tolerance: None,
        fit: None,
        clip: None,
        prefix: None,
    };
    let bar = std::sync::Mutex::new(Progress::new(rigs, true));
    let checked = super::batch::load_all(rigs, &args)?;
    let routes = args.route.routes();
    let files: Vec<String> = checked
        .iter()
        .flat_map(|c| {
            routes
                .iter()
                .map(|&route| super::batch::file_name(&c.name, route))
        })
        .collect();
    let strip_names: Vec<String> = files
        .iter()
        .map(|f| rigbake::gallery::strip_name(f))
        .collect();
    let paths: Vec<PathBuf> = files.iter().map(|f| output.join(f)).collect();
    let strip_paths: Vec<PathBuf> = strip_names.iter().map(|f| output.join(f)).collect();
    let index = output.join("index.html");
    let chromium = browser::find_chromium();
    let inputs: Vec<Input> = Input::rigs(rigs);
    {
        // every file the gallery writes (a strip per file with Chromium: a
        // strip that cannot be made fails the gallery); the bytes are not
        // known yet, only the names are compared
        let mut planned: Vec<Output> = Vec::new();
        for k in 0..files.len() {
            planned.push(Output::new("-o", &paths[k], &[]));
            if chromium.is_some() {
                planned.push(Output::new("-o", &strip_paths[k], &[]));
            }
        }
        planned.push(Output::new("-o", &index, &[]));
        output::check_distinct(&planned, &inputs)?;
    }
    /// What the gallery keeps of one baked file.
    struct Made {
        report: rigbake::report::Report,
        period_s: f64,
        staged: Option<output::Staged>,
    }
    let tx = output::Transaction::new();
    let made = super::batch::bake_each(rigs, &checked, &args, &bar, |k, b| {
        debug_assert_eq!(
            files[k],
            super::batch::file_name(&b.clip.name, b.report.route)
        );
        Ok(Made {
            staged: tx.stage(&Output::new("-o", &paths[k], b.svg.as_bytes()))?,
            report: b.report,
            period_s: b.clip.period_s,
        })
    })?;
    drop(bar);
    // per file, with Chromium: its strip's staging (`None` inside when the
    // target already held that strip)
    let mut strips: Vec<Option<Option<output::Staged>>> = Vec::new();
    strips.resize_with(made.len(), || None);
    if let Some(path) = &chromium {
        let (scratch, _on_signal) = {
            let _gate = rigbake::interrupt::critical();
            let scratch = tempfile::Builder::new()
                .prefix("rigbake-gallery-")
                .tempdir()
                .context("cannot create a temporary directory")?;
            let reg = rigbake::interrupt::remove_on_signal(scratch.path());
            (scratch, reg)
        };
        let b = browser::Browser::chromium(path);
        for (k, m) in made.iter().enumerate() {
            let svg = String::from_utf8(output::Staged::read_back(m.staged.as_ref(), &paths[k])?)
                .with_context(|| format!("{}: not the SVG staged", paths[k].display()))?;
            let png = scratch.path().join(format!("{k}.png"));
            let mode = match m.report.route {
                Route::Css => SeekMode::WebAnimations,
                Route::Smil => SeekMode::Smil,
            };
            browser::frame_strip(
                &b,
                &svg,
                mode,
                m.period_s,
                rigbake::gallery::STRIP_FRAMES,
                &png,
            )
            .with_context(|| format!("{}: frame strip failed", files[k]))?;
            let bytes = std::fs::read(&png)
                .with_context(|| format!("{}: cannot read the strip", png.display()))?;
            strips[k] = Some(tx.stage(&Output::new("-o", &strip_paths[k], &bytes))?);
            let _ = std::fs::remove_file(&png);
        }
    }
    let entries: Vec<rigbake::gallery::Entry> = made
        .iter()
        .enumerate()
        .map(|(k, m)| rigbake::gallery::Entry {
            file: files[k].clone(),
            report: &m.report,
            strip: strips[k].as_ref().map(|_| strip_names[k].clone()),
        })
        .collect();
    let html = rigbake::gallery::page(
        &entries,
        "no headless Chromium was found when this page was made (install chromium, or set RIGBAKE_CHROMIUM to its executable, and run rigbake gallery again)",
    );
    // committed in order: each file, its strip, then the page
    let mut staged = Vec::with_capacity(2 * made.len() + 1);
    for (m, strip) in made.into_iter().zip(strips) {
        staged.extend(m.staged);
        staged.extend(strip.flatten());
    }
    staged.extend(tx.stage(&Output::new("-o", &index, html.as_bytes()))?);
    let strips_note = if chromium.is_some() {
        "with frame strips"
    } else {
        "without frame strips (no headless Chromium found)"
    };
    output::stdout(&format!(
        "gallery: {} files {strips_note}: {}\n",
        files.len(),
        index.display()
    ))?;
    tx.commit(staged)?;
    Ok(Exit::Ok)
}

/// `rigbake template`: write `<name>.template.svg` ([`rigbake::template`])
/// into the directory `output`; with `clip`, of that clip alone (the rig
/// as `bake --clip` loads it, named `<name>-<clip>`).
pub(crate) fn cmd_template(rig_path: &Path, output: &Path, clip: Option<&str>) -> Result<Exit> {
    output::refuse_stdout(
        "-o",
        output,
        "template writes <name>.template.svg into a directory, not standard output; name a directory",
    )?;
    // `-o NAME.svg` names the file, as for `bake` (anything else a directory)
    let file = super::batch::names_svg_file(output);
    if !file && output.exists() && !output.is_dir() {
        bail!(
            "-o {}: is a file; name a directory (the template is written as <name>.template.svg) or a .svg file",
            output.display()
        );
    }
    let rig = match clip {
        None => load_rig(rig_path)?,
        Some(clip) => rigbake::rig::load_clip(&super::read_rig(rig_path)?, clip)
            .with_context(|| rigbake::input::shown_path(rig_path))?,
    };
    let svg = rigbake::template::template(&rig);
    let target = if file {
        output.to_path_buf()
    } else {
        output.join(format!("{}.template.svg", rig.name))
    };
    output::write_all(
        &[Output::new("-o", &target, svg.as_bytes())],
        &[Input::rig(rig_path)],
    )?;
    Ok(Exit::Ok)
}

/// `lower`: the bone-tree spelling of a cycling or `ik_chains` rig
/// ([`rigbake::rig::lower`]), as JSON, to `-o FILE` (atomically, never over
/// the rig) or standard output (`-`).
pub(crate) fn cmd_lower(rig_path: &Path, output: &Path) -> Result<Exit> {
    let text = super::read_rig(rig_path)?;
    let tree = rigbake::rig::parse(&text)
        .and_then(|f| rigbake::rig::lower(&f))
        .with_context(|| rigbake::input::shown_path(rig_path))?;
    let json = rigbake::rig::to_text(&tree);
    if output == Path::new("-") {
        output::stdout(&json)?;
    } else {
        output::write_all(
            &[Output::new("-o", output, json.as_bytes())],
            &[Input::rig(rig_path)],
        )?;
    }
    Ok(Exit::Ok)
}

/// The `bake` command's inputs, shared by a single run and `--watch`.
pub(crate) struct BakeRun<'a> {
    pub rigs: &'a [PathBuf],
    pub output: &'a Path,
    pub bake: &'a BakeArgs,
    pub report: Option<&'a Path>,
    pub quiet: bool,
    pub art: Option<&'a Path>,
}

/// One `bake`: the plain route when no drawing is given, else [`cmd_bake_art`].
pub(crate) fn bake_once(run: &BakeRun) -> Result<Exit> {
    check_prefix(run)?;
    match run.art {
        None => super::batch::cmd_bake(run.rigs, run.output, run.bake, run.report, run.quiet),
        Some(art) => cmd_bake_art(run, art),
    }
}

/// `--prefix P`: a CSS identifier, and one file (two files with one prefix
/// would drive each other on a page).
fn check_prefix(run: &BakeRun) -> Result<()> {
    let Some(p) = &run.bake.prefix else {
        return Ok(());
    };
    rigbake::emit::scope::check_prefix(p).map_err(|why| anyhow!("--prefix: {why}"))?;
    // --art checks its one rig and css route itself
    if run.art.is_none() && (run.rigs.len() != 1 || run.bake.route == RouteArg::Both) {
        bail!(
            "--prefix: names one file, give one rig and one route (got {} rigs, --route {})",
            run.rigs.len(),
            if run.bake.route == RouteArg::Both {
                "both"
            } else {
                "css or smil"
            }
        );
    }
    Ok(())
}

/// `bake RIG --art DRAWING.svg`: bake the rig on the css route, animate the
/// drawing with the clip ([`rigbake::art::animate`]) and write it (and the
/// report) atomically; print the summary and the joint-marker mismatches.
fn cmd_bake_art(run: &BakeRun, art_path: &Path) -> Result<Exit> {
    if run.rigs.len() != 1 {
        bail!("--art takes exactly one rig, got {}", run.rigs.len());
    }
    if run.bake.route != RouteArg::Css {
        bail!("--route: {}", rigbake::art::ArtError::Route);
    }
    if let Some(k) = run.bake.keys {
        rigbake::rig::check_keys("--keys", k)?;
    }
    if let Some(px) = run.bake.tolerance {
        rigbake::rig::check_tolerance("--tolerance", px)?;
    }
    let report_stdout = super::report_to_stdout(run.output, run.report)?;
    let rig_path = &run.rigs[0];
    let rig = run.bake.load_art(rig_path)?;
    let art_text = rigbake::input::read_text(art_path, rigbake::input::Input::Drawing)?;
    let (baked, animated) = bake_art((rig_path, &rig), run.bake, &art_text, art_path)?;

    let to_stdout = run.output == Path::new("-");
    let target = if to_stdout {
        None
    } else if super::batch::names_svg_file(run.output) {
        Some(run.output.to_path_buf())
    } else {
        if run.output.exists() && !run.output.is_dir() {
            bail!(
                "-o {}: is a file; name a .svg file or a directory",
                run.output.display()
            );
        }
        Some(run.output.join(format!("{}.svg", baked.clip.name)))
    };
    let json = rigbake::report::to_json(std::slice::from_ref(&baked.report));
    let mut writes = Vec::new();
    if let Some(t) = &target {
        writes.push(Output::new("-o", t, animated.svg.as_bytes()));
    }
    if let Some(p) = run.report.filter(|_| !report_stdout) {
        writes.push(Output::new("--report", p, json.as_bytes()));
    }
    let inputs = [
        Input::rig(rig_path),
        Input {
            what: "drawing",
            path: art_path,
        },
    ];
    let to = (to_stdout, report_stdout);
    output::write_all_then(&writes, &inputs, || {
        print_art_bake(run.quiet, to, (&baked, &animated), &json)
    })?;
    Ok(Exit::Ok)
}

/// What `bake --art` prints: the animated drawing and the report where
/// they go to standard output (`to`: each sent there?), then the summary
/// and the markers' offsets unless `quiet`.
fn print_art_bake(
    quiet: bool,
    (to_stdout, report_stdout): (bool, bool),
    (baked, animated): (&rigbake::Baked, &rigbake::art::Animated),
    json: &str,
) -> Result<()> {
    if to_stdout {
        output::stdout(&animated.svg)?;
    }
    if report_stdout {
        output::stdout(json)?;
    }
    if !quiet {
        let mut text = baked.report.to_text();
        for m in &animated.markers {
            text.push_str(&format!(
                "art: {} is {} px from the rig's phase-0 {} ({}, {})\n",
                m.part,
                rigbake::geom::fmt_num(m.mismatch_px, 2),
                m.joint.as_str(),
                rigbake::geom::fmt_len(m.rig.x),
                rigbake::geom::fmt_len(m.rig.y),
            ));
        }
        if to_stdout || report_stdout {
            eprint!("{text}");
        } else {
            output::stdout(&text)?;
        }
    }
    Ok(())
}

/// Bake `rig` (read from `rig_path`) on the css route and animate the
/// drawing `art_text` with its clip ([`rigbake::art::animate`]); the
/// report's byte count is the animated file's.
fn bake_art(
    (rig_path, rig): (&Path, &rigbake::rig::Rig),
    args: &BakeArgs,
    art_text: &str,
    art_path: &Path,
) -> Result<(rigbake::Baked, rigbake::art::Animated)> {
    let mut baked = super::batch::bake_kept((rig_path, rig), args, Route::Css)?;
    let animated = rigbake::art::animate(art_text, rig, &baked.clip)
        .with_context(|| art_path.display().to_string())?;
    baked.report.bytes = animated.svg.len();
    baked.report.notes.extend(animated.notes.iter().cloned());
    Ok((baked, animated))
}

/// `bake --watch`: bake once, then again after every debounced save of a
/// rig or the drawing ([`rigbake::watch::watch_files`]) that changed the
/// bytes of an input since the last bake (a save of the same bytes, or a
/// read, bakes nothing). A failing bake prints its error and writes nothing,
/// so the last good output stays; an output whose bytes a bake would not
/// change is not rewritten. Ctrl-C (SIGINT) or SIGTERM ends the watch with
/// exit 0.
pub(crate) fn cmd_watch(run: &BakeRun) -> Result<Exit> {
    check_prefix(run)?;
    let taken = "--watch prints each re-bake's summary on standard output";
    output::refuse_stdout(
        "-o",
        run.output,
        &format!("{taken}; name a file or directory"),
    )?;
    if let Some(report) = run.report {
        output::refuse_stdout("--report", report, &format!("{taken}; name a file"))?;
    }
    let stop = Arc::new(AtomicBool::new(false));
    rigbake::interrupt::stop_on_signal(stop.clone());
    let mut files: Vec<PathBuf> = run.rigs.to_vec();
    files.extend(run.art.map(Path::to_path_buf));
    // (read as a bake reads them: a save that leaves a FIFO, a device or
    // an oversized file is read no further than a bake would, and its
    // bake says why)
    let kind = |i: usize| {
        if i < run.rigs.len() {
            rigbake::input::Input::Rig
        } else {
            rigbake::input::Input::Drawing
        }
    };
    let contents = || -> Vec<Option<Vec<u8>>> {
        files
            .iter()
            .enumerate()
            .map(|(i, f)| rigbake::input::read_bytes(f, kind(i)).ok())
            .collect()
    };
    let once = || {
        if let Err(e) = bake_once(run) {
            eprintln!("rigbake: error: {}", rigbake::input::error_line(&*e));
        }
    };
    // The first bake runs once the watches are in place (so a directory
    // that cannot be watched is the one error), the rest on changes.
    let last = std::cell::RefCell::new(Vec::new());
    rigbake::watch::watch_files(
        &files,
        &stop,
        || {
            *last.borrow_mut() = contents();
            once();
            eprintln!(
                "rigbake: watching {} file(s) for changes; Ctrl-C to stop",
                files.len()
            )
        },
        |changed| {
            let now = contents();
            if now == *last.borrow() {
                return;
            }
            *last.borrow_mut() = now;
            let names: Vec<String> = changed
                .iter()
                .map(|p| rigbake::input::shown_path(p))
                .collect();
            eprintln!("rigbake: {} changed, baking", names.join(", "));
            once();
        },
    )?;
    Ok(Exit::Ok)
}

/// A one-line "baking i/n: path" counter on stderr, redrawn in place; only
/// drawn when enabled, for more than one rig, and when stderr is a terminal
/// (so pipes, logs and CI see nothing). A single rig whose bake takes more
/// than [`SLOW_BAKE`] gets a "baking path…" line instead, from a timer
/// thread. The line is erased when dropped.
pub(crate) struct Progress {
    total: usize,
    done: usize,
    on: bool,
    slow: Option<SlowNotice>,
}

/// How long a single bake runs before it is announced on a terminal.
const SLOW_BAKE: std::time::Duration = std::time::Duration::from_secs(1);

/// The timer thread of a single slow bake: it prints after [`SLOW_BAKE`]
/// unless told (by the channel closing) that the bake is over, and erases
/// its line when it is.
struct SlowNotice {
    done: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl SlowNotice {
    fn start(path: &Path) -> Self {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let name = path.display().to_string();
        let thread = std::thread::spawn(move || {
            if rx.recv_timeout(SLOW_BAKE) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
                eprint!("baking {name}…");
                let _ = rx.recv();
                eprint!("\r\x1b[2K");
            }
        });
        SlowNotice {
            done: Some(tx),
            thread: Some(thread),
        }
    }
}

impl Drop for SlowNotice {
    fn drop(&mut self) {
        drop(self.done.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Progress {
    /// Progress over `paths`. A single rig on a terminal is timed from
    /// here, so reading and validating it count toward the second.
    pub(crate) fn new(paths: &[PathBuf], enabled: bool) -> Self {
        let terminal = enabled && std::io::stderr().is_terminal();
        Progress {
            total: paths.len(),
            done: 0,
            on: terminal && paths.len() > 1,
            slow: (terminal && paths.len() == 1).then(|| SlowNotice::start(&paths[0])),
        }
    }

    /// Announce the next rig.
    pub(crate) fn step(&mut self, path: &Path) {
        self.done += 1;
        if self.on {
            eprint!(
                "\r\x1b[2Kbaking {}/{}: {}",
                self.done,
                self.total,
                rigbake::input::shown_path(path)
            );
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        drop(self.slow.take());
        if self.on {
            eprint!("\r\x1b[2K");
        }
    }
}

/// Refuse a bake whose measured error misses the tolerance it was asked to
/// keep, naming the rig, the worst probe and the figure reached; every
/// command that writes a bake checks through here.
pub(crate) fn tolerance_kept(r: &rigbake::report::Report) -> Result<()> {
    if let Some(tol) = r.tolerance_px.filter(|&tol| r.max_error_px() > tol) {
        let probe = r
            .worst_probe()
            .map_or_else(|| "max error".to_string(), |p| p.label());
        bail!(
            "{} ({}): could not keep every probe within {tol} px: best found {probe} {} px; nothing written",
            r.rig,
            r.route.as_str(),
            r.max_error_px()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rigbake::bake::BakeOptions;
    use rigbake::report::ProbeKind;
    use rigbake::report::check::{Check, Thresholds};

    /// The class: a leg's drawn target marker (`<leg>-target`) is a probe
    /// like its ankle. For every leg that draws one, on both routes, of a
    /// bone-tree `ik` rig (with clips, legs named `<clip>:…`), an
    /// `ik_chains` gait and an `ik_chains` path target: the real bake keeps
    /// its tolerance, and the same report with that marker's error raised
    /// past it is refused by the tolerance check, naming the marker, fails
    /// `check` at that threshold as a `target` probe, and shows the figure
    /// on the leg's summary line.
    #[test]
    fn a_target_marker_past_the_tolerance_is_refused_and_fails_check() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut seen = Vec::new();
        for (rel, tol) in [
            ("rigs/walker.json", 0.25),
            ("rigs/stickman.json", 0.5),
            ("rigs/path-foot.json", 0.5),
            ("tests/fixtures/ik_chains/walker.json", 0.5),
        ] {
            let rig = load_rig(&root.join(rel)).unwrap();
            for route in [Route::Css, Route::Smil] {
                let opts = BakeOptions::resolve(&rig, route, None, Some(tol), None);
                let report = rigbake::bake_rig(&rig, &opts).report;
                assert_eq!(report.tolerance_px, Some(tol), "{rel}");
                tolerance_kept(&report).unwrap_or_else(|e| panic!("{rel} {route:?}: {e:#}"));
                let marked: Vec<usize> = (0..report.legs.len())
                    .filter(|&i| report.legs[i].target_px.is_some())
                    .collect();
                assert!(!marked.is_empty(), "{rel} {route:?}: no target marker");
                for i in marked {
                    let mut r = report.clone();
                    let name = r.legs[i].name.clone();
                    let off = tol + 35.0;
                    r.legs[i].target_px = Some(off);
                    let e = tolerance_kept(&r).expect_err(&format!("{rel} {route:?} {name}"));
                    assert!(
                        e.to_string().contains(&format!(
                            "best found leg {name}: target marker error {off} px"
                        )),
                        "{rel} {route:?}: {e}"
                    );
                    let th = Thresholds {
                        max_error_px: tol,
                        max_slip_px: 1000.0,
                        max_reach_px: 1000.0,
                    };
                    let c = Check::new(th, [(rel.to_string(), &r)]);
                    let failed: Vec<_> = c.failures().map(|(_, f)| f).collect();
                    assert_eq!(failed.len(), 1, "{rel} {route:?}: {failed:?}");
                    let f = failed[0];
                    assert_eq!(
                        (f.kind, f.name.as_str()),
                        (ProbeKind::Target, name.as_str())
                    );
                    assert_eq!((f.metric, f.value, f.threshold), ("max_error_px", off, tol));
                    assert_eq!(
                        f.message,
                        format!("leg {name}: target marker error {off} px > {tol} px")
                    );
                    assert_eq!(c.results[0].max_error_px, off);
                    let junit = c.to_junit();
                    let escaped = rigbake::report::check::xml_text(&f.message);
                    assert!(junit.contains(&escaped), "{rel} {route:?}: {junit}");
                    let line = r.to_text().lines().nth(1 + i).unwrap().to_string();
                    assert!(line.starts_with(&format!("  {name} ")), "{line}");
                    assert!(line.contains(&format!("  marker {off:.3} px")), "{line}");
                    seen.push(format!("{rel} {route:?} {name}"));
                }
            }
        }
        // two legs each, both routes (stickman: one clip's legs on smil)
        assert!(seen.len() >= 14, "{seen:#?}");
    }
}
