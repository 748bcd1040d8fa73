//! The illustrator-facing commands: `preview`, `bake --art`, `bake --watch`.
//!
//! Like the rest of the binary, this module only reads files, calls the
//! library and writes outputs atomically; the work itself is in
//! [`rigbake::art`], [`rigbake::browser`] and [`rigbake::watch`].

use super::{BakeArgs, Exit, RouteArg, SweepRoute, load_rig};
use anyhow::{Context, Result, anyhow, bail};
use rigbake::Route;
use rigbake::browser::{self, SeekMode};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Most frames `preview` renders (the strip is 240 px per frame wide).
const MAX_PREVIEW_FRAMES: usize = 32;

/// `rigbake preview`: bake one rig in memory with its own keying, render
/// `frames` moments of one period through headless Chromium
/// ([`browser::frame_strip`]) into a temporary PNG beside `output`, then
/// rename it into place.
pub(crate) fn cmd_preview(
    rig_path: &Path,
    output: &Path,
    frames: usize,
    route: SweepRoute,
) -> Result<Exit> {
    if !(1..=MAX_PREVIEW_FRAMES).contains(&frames) {
        bail!("--frames: must be between 1 and {MAX_PREVIEW_FRAMES}, got {frames}");
    }
    if output.is_dir() {
        bail!(
            "-o {}: is a directory, expected a .png path",
            output.display()
        );
    }
    let rig = load_rig(rig_path)?;
    let (route, mode) = match route {
        SweepRoute::Css => (Route::Css, SeekMode::WebAnimations),
        SweepRoute::Smil => (Route::Smil, SeekMode::Smil),
    };
    let args = BakeArgs {
        route: RouteArg::Css,
        keys: None,
        tolerance: None,
        fit: None,
        clip: None,
    };
    let baked = rigbake::bake_rig(&rig, &args.options(&rig, route));
    let chromium = browser::find_chromium().ok_or_else(|| {
        anyhow!(
            "preview needs headless Chromium: none found on PATH \
             (install chromium, or set RIGBAKE_CHROMIUM to its executable)"
        )
    })?;
    let dir = match output.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("{}: cannot create directory", dir.display()))?;
    let tmp = tempfile::Builder::new()
        .prefix(".rigbake-preview-")
        .suffix(".png")
        .tempfile_in(&dir)
        .with_context(|| format!("{}: cannot write in this directory", dir.display()))?;
    browser::frame_strip(
        &chromium,
        &baked.svg,
        mode,
        baked.clip.period_s,
        frames,
        tmp.path(),
    )
    .with_context(|| format!("{}: preview failed", rig_path.display()))?;
    tmp.persist(output)
        .map_err(|e| anyhow!("{}: cannot replace: {}", output.display(), e.error))?;
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
    match run.art {
        None => super::cmd_bake(run.rigs, run.output, run.bake, run.report, run.quiet),
        Some(art) => cmd_bake_art(run, art),
    }
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
    let rig_path = &run.rigs[0];
    let rig = run.bake.load(rig_path)?;
    let art_text = std::fs::read_to_string(art_path)
        .with_context(|| format!("{}: cannot read as UTF-8 text", art_path.display()))?;
    let baked = rigbake::bake_rig(&rig, &run.bake.options(&rig, Route::Css));
    let r = &baked.report;
    if let Some(tol) = r.tolerance_px.filter(|&tol| r.max_error_px() > tol) {
        bail!(
            "{} (css): could not keep the ankles within {tol} px: best found {} px; nothing written",
            r.rig,
            r.max_error_px()
        );
    }
    let animated = rigbake::art::animate(&art_text, &rig, &baked.clip)
        .with_context(|| art_path.display().to_string())?;

    let to_stdout = run.output == Path::new("-");
    let target = if to_stdout {
        None
    } else if run.output.extension().is_some_and(|e| e == "svg") && !run.output.is_dir() {
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
    if let Some(t) = &target
        && same_file(t, art_path)
    {
        bail!(
            "-o {}: would overwrite the drawing itself; write the animated copy elsewhere",
            t.display()
        );
    }
    let json = rigbake::report::to_json(std::slice::from_ref(&baked.report));
    let mut writes: Vec<(PathBuf, &[u8])> = Vec::new();
    if let Some(t) = &target {
        writes.push((t.clone(), animated.svg.as_bytes()));
    }
    if let Some(p) = run.report {
        writes.push((p.to_path_buf(), json.as_bytes()));
    }
    super::write_all_atomically(&writes)?;
    if to_stdout {
        super::stdout(&animated.svg);
    }
    if !run.quiet {
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
        if to_stdout {
            eprint!("{text}");
        } else {
            super::stdout(&text);
        }
    }
    Ok(Exit::Ok)
}

/// Whether two paths name the same existing file.
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// `bake --watch`: bake once, then again after every debounced save of a
/// rig or the drawing ([`rigbake::watch::watch_files`]). A failing bake
/// prints its error and writes nothing, so the last good output stays.
/// Ctrl-C (SIGINT) or SIGTERM ends the watch with exit 0.
pub(crate) fn cmd_watch(run: &BakeRun) -> Result<Exit> {
    if run.output == Path::new("-") {
        bail!("--watch: cannot write to standard output (-o -); name a file or directory");
    }
    let stop = Arc::new(AtomicBool::new(false));
    {
        let stop = stop.clone();
        ctrlc::set_handler(move || stop.store(true, Ordering::SeqCst))
            .context("--watch: cannot install the Ctrl-C handler")?;
    }
    let mut files: Vec<PathBuf> = run.rigs.to_vec();
    files.extend(run.art.map(Path::to_path_buf));
    let once = || {
        if let Err(e) = bake_once(run) {
            eprintln!("rigbake: error: {e:#}");
        }
    };
    once();
    rigbake::watch::watch_files(
        &files,
        &stop,
        || {
            eprintln!(
                "rigbake: watching {} file(s) for changes; Ctrl-C to stop",
                files.len()
            )
        },
        |changed| {
            let names: Vec<String> = changed.iter().map(|p| p.display().to_string()).collect();
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
    /// One rig on a terminal: time it.
    timed: bool,
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
    pub(crate) fn new(total: usize, enabled: bool) -> Self {
        let terminal = enabled && std::io::stderr().is_terminal();
        Progress {
            total,
            done: 0,
            on: terminal && total > 1,
            timed: terminal && total == 1,
            slow: None,
        }
    }

    /// Announce the next rig.
    pub(crate) fn step(&mut self, path: &Path) {
        self.done += 1;
        if self.timed {
            self.slow = Some(SlowNotice::start(path));
        } else if self.on {
            eprint!(
                "\r\x1b[2Kbaking {}/{}: {}",
                self.done,
                self.total,
                path.display()
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
