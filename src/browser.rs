//! Real-browser measurement: drives headless Chromium or Firefox over
//! plain `std::process` to seek a baked SVG and read its probes back.
//!
//! # Method
//!
//! Every call generates one HTML page and starts one browser process on it,
//! in a fresh temporary directory (profile included, and the browser's own
//! `TMPDIR`, so even a killed Chromium's singleton socket directory goes
//! with it; `tests/browser_temporaries.rs`). The caller picks the
//! engine ([`Browser`], [`Engine`]); the page and its script are the same
//! for both, only the way the page gets in and the result gets out differs.
//!
//! The driver serves the page itself: a listener on `127.0.0.1:<free port>`
//! (std::net, polled by the driver, one short-lived thread per connection)
//! answers `GET /` with the page, and the page `POST`s its JSON result to
//! `/result`. Without a screenshot the browser is killed as soon as the
//! result is in.
//!
//! **Chromium** runs under virtual time and prints the DOM when its budget
//! is spent (the result is also written there, for a page that could not
//! post):
//!
//! ```text
//! chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run
//!          --no-proxy-server --disable-background-networking --disable-component-update
//!          --disable-sync --user-data-dir=<fresh temp dir> --virtual-time-budget=<ms>
//!          --dump-dom [--screenshot=<png>] http://127.0.0.1:<port>/
//! ```
//!
//! Waiting for the budget instead of the post cost most of a launch on
//! pages of documents that play on their own: the budget must cover the
//! slowest case, and Chromium spends the rest of it rendering frames, over a
//! minute on a busy machine.
//!
//! **Firefox** has neither `--dump-dom` nor virtual time:
//!
//! ```text
//! firefox-esr --headless --no-remote --profile <fresh temp dir> http://127.0.0.1:<port>/?hold
//!             [--window-size=<w>,<h> --screenshot <png>]
//! ```
//!
//! The profile holds a `user.js` that turns off first-run pages, updates,
//! telemetry, safe browsing and other background traffic, removes the
//! 4 ms clamp of nested `setTimeout(0)` (each seek yields a task) and sets
//! `ui.prefersReducedMotion`. With a screenshot, `--screenshot` shoots at
//! the load event, which the page (asked by `?hold`) delays by a hidden
//! `<iframe src="/hold">` that the server answers only after the result
//! arrived; Firefox then exits by itself. Chromium gets no hold: a pending
//! request stops its virtual time. The server was chosen over Marionette
//! (Firefox's remote protocol) because it needs no protocol client or
//! session handshake, keeps one page script for both engines, and needs
//! nothing beyond the standard library.
//!
//! Both engines run in their own process group, bounded by a wall-clock
//! timeout ([`LAUNCH_TIMEOUT`], more for large batches) after which the
//! group is killed, and registered with [`crate::interrupt`] so an
//! interrupted process kills the group and removes the temporary directory.
//!
//! Functions that take several documents ([`probe_batch`],
//! [`probe_free_running`], [`img_frames`]) still use one launch: each
//! document gets its own `<iframe>` (or `<img>`), so ids, classes and
//! `<style>` rules of different documents never meet — except
//! [`probe_inline`], which mounts them all in one page on purpose. A launch
//! costs about 1–2 s of wall-clock time in Chromium and 2–4 s in Firefox;
//! seeking and reading one time costs well under a millisecond.
//!
//! The SVG text is passed to the page as a JavaScript string and parsed with
//! `DOMParser` as `image/svg+xml`, i.e. as XML exactly like a standalone
//! `.svg` file (a file that is not well-formed XML is reported, not repaired
//! by the HTML parser), then imported into the HTML document, so it runs
//! inline. The page script does all of its work in that one launch and
//! posts it (and writes it into a `<pre id="rigbake-out">` element, which
//! Chromium's `--dump-dom` prints when the virtual time budget is spent).
//! Virtual time only advances while the page is idle; a page that does not
//! finish within its budget yields [`BrowserError::NoResult`]. Firefox runs
//! in real time: the budget is ignored there and only the wall-clock
//! timeout bounds the page.
//!
//! Seeking ([`probe_positions`]):
//! - [`SeekMode::WebAnimations`]: `document.getAnimations()`, then `pause()`
//!   and `currentTime = t·1000` (ms) on every animation. An animation's
//!   `currentTime` counts from its creation including any (negative)
//!   `animation-delay`, so this is the document as it looks at time `t`.
//! - [`SeekMode::Smil`]: `svg.pauseAnimations(); svg.setCurrentTime(t)` on
//!   the root `<svg>`, `t` plus half a microsecond (the argument is a
//!   32-bit float, which Chromium cuts to the microsecond: 0.031 s would
//!   show 0.030999 s).
//!
//! The clock that is not selected is paused at 0 so results never depend on
//! how fast the browser happened to run. After each seek the script yields a
//! task (`await new Promise(r => setTimeout(r, 0))`) because SMIL geometry
//! only updates after a task boundary.
//!
//! Reading probes: every element with a `data-probe` attribute inside the
//! root `<svg>` is read in **root SVG user space** (the coordinates of the
//! root's `viewBox`):
//! - `<circle>`: its centre `(cx, cy)`, read from `animVal` so SMIL
//!   animation of `cx`/`cy` counts (not `getBBox()`: Firefox returns an
//!   empty box at (0, 0) for a zero radius; rigbake's probes have no `r`,
//!   which defaults to 0);
//! - `<path>`: its last point, `getPointAtLength(getTotalLength())`, or
//!   the end of its computed `d` where the two differ by more than 0.001 px
//!   and more than the last digit that `d` keeps (Firefox measures some
//!   near-straight cubics short; the computed `d` keeps about 6 significant
//!   digits).
//!
//! The local point is mapped by `root.getScreenCTM()⁻¹ · probe.getScreenCTM()`,
//! which composes every `transform` attribute, CSS transform, SMIL
//! `animateTransform` and nested viewport between the probe and the root.
//!
//! # Limits
//!
//! - Chromium and Firefox store SVG lengths, bounding boxes and path points
//!   in single precision: expect about 1e-6 relative error (≈1e-4 px at a
//!   coordinate of 1000). This is far below the 0.05 px the tests require
//!   but is not exact.
//! - Firefox's SMIL clock counts whole milliseconds: `setCurrentTime(t)`
//!   shows the document at `t` rounded to a millisecond, and a `dur` that is
//!   not a whole number of milliseconds plays over a rounded duration. Seek
//!   SMIL documents at whole milliseconds to compare engines.
//! - In Firefox, an SVG image drawn into a canvas (`drawImage`) follows its
//!   CSS animations but not its SMIL ones (the page itself shows SMIL motion
//!   in `<img>`; only the canvas copy does not), so [`img_frames`] sees SMIL
//!   documents stand still there.
//! - A probe is a `<circle>` or a `<path>`; any other element, or two probes
//!   with the same name, fail the page with [`BrowserError::Page`].
//! - `<img>`-embedded SVG animations run on Chromium's own animation clock,
//!   which is not tied to virtual time. [`img_frames`] therefore only answers
//!   "did the picture change between samples", never "what did it show at t".
//! - Under virtual time, rendering frames follow wall-clock time while
//!   timers jump ahead. Anything that waits for a frame is therefore not
//!   reproducible: a new CSS animation stays `pending` at time 0 until a
//!   frame commits, free-running SMIL applies its values only on a frame,
//!   and `requestAnimationFrame` may not fire before the budget runs out.
//!   Seeking avoids all of this; [`probe_free_running`] documents its
//!   workarounds.
//! - Unix only in practice: on timeout the whole browser process group is
//!   killed with `SIGKILL`; so is it, and its temporary directory removed,
//!   when the process is interrupted ([`crate::interrupt`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{Read, Write as _};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde::Deserialize;
use serde::de::DeserializeOwned;

/// Wall-clock limit for one browser launch; the process group is killed
/// after it.
pub const LAUNCH_TIMEOUT: Duration = Duration::from_secs(60);

/// Probe name → position in root SVG user space, `[x, y]` in px.
pub type Probes = BTreeMap<String, [f64; 2]>;

/// Which animation clock [`probe_positions`] and [`frame_strip`] seek.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeekMode {
    /// CSS animations through the Web Animations API
    /// (`getAnimations()`, `pause()`, `currentTime`).
    WebAnimations,
    /// SMIL through `SVGSVGElement.pauseAnimations()` / `setCurrentTime()`.
    Smil,
}

impl SeekMode {
    fn js_name(self) -> &'static str {
        match self {
            SeekMode::WebAnimations => "css",
            SeekMode::Smil => "smil",
        }
    }
}

/// A browser engine the harness can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Engine {
    /// Headless Chromium (or Chrome) under virtual time, on a page from a
    /// local HTTP server that receives its result (or, failing that, from
    /// `--dump-dom`).
    Chromium,
    /// Headless Firefox (ESR) in real time, on a page from a local HTTP
    /// server that receives its result.
    Firefox,
}

impl Engine {
    /// Both engines, Chromium first.
    pub const ALL: [Engine; 2] = [Engine::Chromium, Engine::Firefox];

    /// Lower-case name for messages: `chromium`, `firefox`.
    pub fn name(self) -> &'static str {
        match self {
            Engine::Chromium => "chromium",
            Engine::Firefox => "firefox",
        }
    }

    /// The engine's executable: [`find_chromium`] or [`find_firefox`].
    pub fn find(self) -> Option<PathBuf> {
        match self {
            Engine::Chromium => find_chromium(),
            Engine::Firefox => find_firefox(),
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A browser to run pages in: which engine, and its executable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Browser {
    /// How the executable is driven.
    pub engine: Engine,
    /// The executable (as found by [`Engine::find`], or any path).
    pub path: PathBuf,
}

impl Browser {
    /// Chromium at `path`.
    pub fn chromium(path: impl Into<PathBuf>) -> Browser {
        Browser {
            engine: Engine::Chromium,
            path: path.into(),
        }
    }

    /// Firefox at `path`.
    pub fn firefox(path: impl Into<PathBuf>) -> Browser {
        Browser {
            engine: Engine::Firefox,
            path: path.into(),
        }
    }

    /// The installed `engine`, or `None` when [`Engine::find`] finds none.
    pub fn find(engine: Engine) -> Option<Browser> {
        engine.find().map(|path| Browser { engine, path })
    }
}

/// Everything that can go wrong while driving the browser.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// The temporary directory, the page file, the profile, the local
    /// server or the screenshot could not be written or read.
    #[error("browser harness I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The browser executable could not be started at all.
    #[error("could not start {}: {source}", path.display())]
    Launch {
        /// The executable that failed to start.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The browser ran longer than its wall-clock limit (at least
    /// [`LAUNCH_TIMEOUT`]) and was killed.
    #[error("{engine} did not finish within {} s and was killed", .after.as_secs())]
    Timeout {
        /// The engine that was killed.
        engine: Engine,
        /// The limit it ran into.
        after: Duration,
    },
    /// The browser exited unsuccessfully; carries the end of its stderr.
    #[error("{engine} exited with {status}; stderr ends with:\n{stderr_tail}")]
    Exit {
        /// The engine that exited.
        engine: Engine,
        /// The exit status.
        status: ExitStatus,
        /// The last lines the browser wrote to stderr.
        stderr_tail: String,
    },
    /// No result came back: the page script did not finish (within
    /// Chromium's virtual time budget), never ran, or Firefox exited before
    /// posting it.
    #[error(
        "no result from the page (page script did not finish); stderr ends with:\n{stderr_tail}"
    )]
    NoResult {
        /// The last lines the browser wrote to stderr.
        stderr_tail: String,
    },
    /// The result holds text that is not the expected JSON.
    #[error("malformed result JSON from the page: {0}")]
    BadJson(#[from] serde_json::Error),
    /// The page script reported an error (bad SVG, unknown probe element,
    /// duplicate probe name, no animations to seek, …).
    #[error("page script failed: {0}")]
    Page(String),
    /// The screenshot did not produce a PNG file.
    #[error("the browser wrote no PNG to {}", .0.display())]
    NoScreenshot(PathBuf),
    /// An argument was rejected before launching (non-finite time, zero
    /// frames, …).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Locates a Chromium executable.
///
/// The environment variable `RIGBAKE_CHROMIUM` wins when it is set and not
/// empty (it is returned as given, even if it does not exist, so a wrong
/// override fails loudly at launch). Otherwise the first of `chromium`,
/// `chromium-browser`, `google-chrome` found as an executable file on `PATH`.
pub fn find_chromium() -> Option<PathBuf> {
    find_executable(
        "RIGBAKE_CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    )
}

/// Locates a Firefox executable, like [`find_chromium`]: `RIGBAKE_FIREFOX`
/// when set and not empty, otherwise the first of `firefox-esr`, `firefox`
/// found as an executable file on `PATH`.
pub fn find_firefox() -> Option<PathBuf> {
    find_executable("RIGBAKE_FIREFOX", &["firefox-esr", "firefox"])
}

/// `$var` when set and not empty (as given, even if it does not exist, so a
/// wrong override fails loudly at launch), else the first of `names` that is
/// an executable file in a `PATH` directory.
fn find_executable(var: &str, names: &[&str]) -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(var).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    names
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |dir| dir.join(name)))
        .find(|candidate| is_executable(candidate))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Seeks `svg` to each time in `times_s` (seconds) and reads every
/// `data-probe` point in root user space (see the module docs for the
/// method). All times are done in one browser launch; the result has one
/// map per time, in order.
///
/// Fails with [`BrowserError::Page`] when the selected clock has nothing to
/// seek (no CSS animation for [`SeekMode::WebAnimations`], no SMIL animation
/// element for [`SeekMode::Smil`]) or when there is no probe at all.
pub fn probe_positions(
    browser: &Browser,
    svg: &str,
    mode: SeekMode,
    times_s: &[f64],
) -> Result<Vec<Probes>, BrowserError> {
    let mut all = probe_batch(browser, &[ProbeJob { svg, mode, times_s }])?;
    Ok(all.pop().unwrap_or_default())
}

/// One document for [`probe_batch`]: the SVG text, the clock to seek and
/// the times to read, in seconds.
#[derive(Debug, Clone, Copy)]
pub struct ProbeJob<'a> {
    /// The SVG file's text.
    pub svg: &'a str,
    /// Which clock to seek.
    pub mode: SeekMode,
    /// Times to seek to, seconds.
    pub times_s: &'a [f64],
}

/// [`probe_positions`] for several documents in one browser launch.
///
/// Starting Chromium costs about 1–2 s, while seeking and reading one time
/// costs well under a millisecond, so a test suite should batch. Each
/// document gets its own `<iframe>` (created, measured, removed in turn),
/// so ids, classes, `<style>` rules and animations of different documents
/// never meet. The result has one entry per job, in order; a failing job
/// fails the whole batch with [`BrowserError::Page`] naming its index.
pub fn probe_batch(
    browser: &Browser,
    jobs: &[ProbeJob<'_>],
) -> Result<Vec<Vec<Probes>>, BrowserError> {
    let mut data = Vec::with_capacity(jobs.len());
    for (i, job) in jobs.iter().enumerate() {
        check_finite(&format!("jobs[{i}].times_s"), job.times_s)?;
        data.push(serde_json::json!({
            "svg": job.svg,
            "mode": job.mode.js_name(),
            "times": job.times_s,
        }));
    }
    let body = format!(
        "const jobs = {jobs};\n\
         const out = [];\n\
         for (const [i, job] of jobs.entries()) {{\n\
           try {{\n\
             const frame = document.createElement('iframe');\n\
             frame.style.cssText = 'border:0;display:block;width:400px;height:400px';\n\
             document.body.appendChild(frame);\n\
             const svg = rb.mount(frame.contentDocument.body, job.svg);\n\
             const seek = rb.seeker(svg, job.mode);\n\
             const samples = [];\n\
             for (const t of job.times) {{ await seek(t); samples.push(rb.readProbes(svg)); }}\n\
             frame.remove();\n\
             out.push(samples);\n\
           }} catch (e) {{ throw new Error('document ' + i + ': ' + (e && e.message || e)); }}\n\
         }}\n\
         return out;",
        jobs = js_json(&serde_json::Value::Array(data)),
    );
    let page = page_html("", &body, "");
    let total_times: usize = jobs.iter().map(|j| j.times_s.len()).sum();
    let budget_ms = 10_000 + 10 * (total_times + jobs.len()) as u64;
    // wall-clock bound grows with the work: a batch of every example rig
    // on both routes seeks thousands of times
    let opts = Options {
        timeout: LAUNCH_TIMEOUT + Duration::from_millis(20 * (total_times + jobs.len()) as u64),
        ..Options::default()
    };
    run_page(browser, &page, budget_ms, &opts)
}

/// Mounts every document **inline in one HTML page** (no `<iframe>`), the
/// way a page that pastes several SVG files into its markup does: their
/// `<style>` rules, classes, `@keyframes` and ids all meet in one document,
/// so a name two files share makes one drive the other. Then seeks all of
/// them to each time in `times_s` (seconds) together — CSS animations by
/// the Web Animations API (every animation of the page gets the same
/// `currentTime`), SMIL documents by their own root's `setCurrentTime` —
/// and reads every document's probes **within its own root** (a probe name
/// may occur in several documents). The result has one entry per document,
/// in order, each one probe map per time.
pub fn probe_inline(
    browser: &Browser,
    docs: &[(&str, SeekMode)],
    times_s: &[f64],
) -> Result<Vec<Vec<Probes>>, BrowserError> {
    check_finite("times_s", times_s)?;
    let data: Vec<serde_json::Value> = docs
        .iter()
        .map(|(svg, mode)| serde_json::json!({ "svg": svg, "mode": mode.js_name() }))
        .collect();
    let body = format!(
        "const docs = {docs};\n\
         const svgs = docs.map((d, i) => {{\n\
           try {{ return rb.mount(document.body, d.svg); }}\n\
           catch (e) {{ throw new Error('document ' + i + ': ' + (e && e.message || e)); }}\n\
         }});\n\
         const seekers = svgs.map((svg, i) => rb.seeker(svg, docs[i].mode));\n\
         const out = docs.map(() => []);\n\
         for (const t of {times}) {{\n\
           for (const seek of seekers) await seek(t);\n\
           svgs.forEach((svg, i) => {{\n\
             try {{ out[i].push(rb.readProbes(svg)); }}\n\
             catch (e) {{ throw new Error('document ' + i + ': ' + (e && e.message || e)); }}\n\
           }});\n\
         }}\n\
         return out;",
        docs = js_json(&serde_json::Value::Array(data)),
        times = js_json(&serde_json::json!(times_s)),
    );
    let page = page_html("", &body, "");
    let work = (times_s.len() * docs.len().max(1)) as u64;
    let budget_ms = 10_000 + 10 * work;
    let opts = Options {
        timeout: LAUNCH_TIMEOUT + Duration::from_millis(20 * work),
        ..Options::default()
    };
    run_page(browser, &page, budget_ms, &opts)
}

/// Switches clips the way a page would: mounts the CSS-route `svg`, reads
/// its probes at `times_s`, then sets the root `<svg>`'s `class` to `class`
/// in the live page, lets the new animations start, and reads the probes
/// again at the same times. Returns (before, after).
pub fn probe_class_switch(
    browser: &Browser,
    svg: &str,
    class: &str,
    times_s: &[f64],
) -> Result<(Vec<Probes>, Vec<Probes>), BrowserError> {
    check_finite("times_s", times_s)?;
    let body = format!(
        "const frame = document.createElement('iframe');\n\
         frame.style.cssText = 'border:0;display:block;width:400px;height:400px';\n\
         document.body.appendChild(frame);\n\
         const svg = rb.mount(frame.contentDocument.body, {svg});\n\
         const read = async () => {{\n\
           const seek = rb.seeker(svg, 'css');\n\
           const samples = [];\n\
           for (const t of {times}) {{ await seek(t); samples.push(rb.readProbes(svg)); }}\n\
           return samples;\n\
         }};\n\
         const before = await read();\n\
         svg.setAttribute('class', {class});\n\
         await new Promise(r => setTimeout(r, 0));\n\
         const after = await read();\n\
         return [before, after];",
        svg = js_json(&serde_json::Value::String(svg.to_string())),
        times = js_json(&serde_json::json!(times_s)),
        class = js_json(&serde_json::Value::String(class.to_string())),
    );
    let page = page_html("", &body, "");
    let budget_ms = 10_000 + 20 * times_s.len() as u64;
    let (before, after): (Vec<Probes>, Vec<Probes>) =
        run_page(browser, &page, budget_ms, &Options::default())?;
    Ok((before, after))
}

/// One sample of [`probe_free_running`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct TimedProbes {
    /// The page's `performance.now()` when the sample was read, in virtual
    /// milliseconds since navigation start.
    pub t_ms: f64,
    /// Probe positions in root user space.
    pub probes: Probes,
}

/// Reads the probes of inline SVG documents while they play on their own
/// (no pausing, no seeking): once after load and then `samples − 1` more
/// times, `interval_ms` of virtual time apart. Each document sits in its own
/// `<iframe>`, all in one launch, sampled together; the result has one
/// sample list per document, in order.
///
/// The first sample waits until no CSS animation is pending any more: a
/// new animation stays pending at time 0 until Chromium commits a frame,
/// and frames follow wall-clock time while virtual time runs ahead, so that
/// moment varies from run to run (awaiting `ready` alone lets the budget
/// run out). The page polls every 10 ms of virtual time instead, for at most
/// 30 s of virtual time. Once started, CSS animations follow virtual time.
///
/// SMIL's clock follows virtual time too, but Chromium applies free-running
/// SMIL values only when it renders a frame, and frames follow wall-clock
/// time, so between frames the geometry lags the clock. Before each read the
/// page therefore calls `svg.setCurrentTime(svg.getCurrentTime())` (a seek
/// to where the clock already is: it neither pauses nor moves the timeline)
/// and yields a task, which applies the values for the current time.
///
/// In Firefox, which runs in real time, the same page polls and samples in
/// wall-clock milliseconds.
///
/// This is what a visitor sees. With `reduced_motion` Chromium runs with
/// `--force-prefers-reduced-motion` (Firefox with the preference
/// `ui.prefersReducedMotion` = 1), so `@media (prefers-reduced-motion:
/// reduce)` matches; a document that honours it returns identical samples.
pub fn probe_free_running(
    browser: &Browser,
    svgs: &[&str],
    interval_ms: u32,
    samples: usize,
    reduced_motion: bool,
) -> Result<Vec<Vec<TimedProbes>>, BrowserError> {
    if samples == 0 {
        return Err(BrowserError::InvalidArgument("samples must be > 0".into()));
    }
    let body = format!(
        "const docs = {svgs}.map(text => {{\n\
           const frame = document.createElement('iframe');\n\
           frame.style.cssText = 'border:0;display:block;width:400px;height:400px';\n\
           document.body.appendChild(frame);\n\
           return rb.mount(frame.contentDocument.body, text);\n\
         }});\n\
         await rb.started(docs.map(svg => svg.ownerDocument));\n\
         const out = docs.map(() => []);\n\
         for (let i = 0; i < {samples}; i++) {{\n\
           if (i > 0) await rb.sleep({interval_ms});\n\
           for (const svg of docs) svg.setCurrentTime(svg.getCurrentTime());\n\
           await rb.sleep(0);\n\
           docs.forEach((svg, k) => {{\n\
             try {{ out[k].push({{ t_ms: performance.now(), probes: rb.readProbes(svg) }}); }}\n\
             catch (e) {{ throw new Error('document ' + k + ': ' + (e && e.message || e)); }}\n\
           }});\n\
         }}\n\
         return out;",
        svgs = js_json(&serde_json::json!(svgs)),
    );
    let page = page_html("", &body, "");
    let budget_ms = 40_000 + 2 * u64::from(interval_ms) * samples as u64;
    let opts = Options {
        reduced_motion,
        ..Options::default()
    };
    run_page(browser, &page, budget_ms, &opts)
}

/// One sample of [`img_frames`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ImgFrame {
    /// The page's `performance.now()` when the frame was drawn, in virtual
    /// milliseconds.
    pub t_ms: f64,
    /// How many pixels differ from the first sample.
    pub changed_px: u64,
}

/// Embeds each SVG as `<img src="data:image/svg+xml,…">` (the same
/// "SVG as image" mode as `<img src="file.svg">`: no scripts, own
/// document), draws every image into a canvas `samples` times,
/// `interval_ms` of virtual time apart, and reports per image and sample
/// how many pixels differ from that image's first sample. All images share
/// one launch; the result has one list per image, in order.
///
/// An image animates when some `changed_px > 0`. With `reduced_motion`
/// (`--force-prefers-reduced-motion`, or Firefox's `ui.prefersReducedMotion`;
/// both engines apply it inside SVG images) a file that honours the
/// preference keeps every `changed_px` at 0. In Firefox the canvas copy of
/// an image shows CSS motion but not SMIL motion (see the module docs). The images' animation clock is not tied to virtual time, so which
/// frames are caught varies between runs; only the changed/unchanged
/// verdict is meaningful, and it needs a sampling span
/// (`interval_ms · (samples − 1)`) well above one animation frame.
pub fn img_frames(
    browser: &Browser,
    svgs: &[&str],
    interval_ms: u32,
    samples: usize,
    reduced_motion: bool,
) -> Result<Vec<Vec<ImgFrame>>, BrowserError> {
    if samples == 0 {
        return Err(BrowserError::InvalidArgument("samples must be > 0".into()));
    }
    let body = format!(
        "const imgs = [];\n\
         for (const text of {svgs}) {{\n\
           const [w, h] = rb.pixelSize(text, 320);\n\
           const img = new Image(w, h);\n\
           img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);\n\
           document.body.appendChild(img);\n\
           imgs.push(img);\n\
         }}\n\
         await Promise.all(imgs.map((img, k) => img.decode().catch(() => {{\n\
           throw new Error('image ' + k + ' does not decode as an SVG image'); }})));\n\
         const canvas = document.createElement('canvas');\n\
         const ctx = canvas.getContext('2d', {{ willReadFrequently: true }});\n\
         const grab = img => {{\n\
           canvas.width = img.width; canvas.height = img.height;\n\
           ctx.clearRect(0, 0, img.width, img.height);\n\
           ctx.drawImage(img, 0, 0, img.width, img.height);\n\
           return new Uint32Array(ctx.getImageData(0, 0, img.width, img.height).data.buffer);\n\
         }};\n\
         const first = [];\n\
         const out = imgs.map(() => []);\n\
         for (let i = 0; i < {samples}; i++) {{\n\
           if (i > 0) await rb.sleep({interval_ms});\n\
           imgs.forEach((img, k) => {{\n\
             const px = grab(img);\n\
             if (i === 0) first.push(px);\n\
             let changed = 0;\n\
             for (let j = 0; j < px.length; j++) if (px[j] !== first[k][j]) changed++;\n\
             out[k].push({{ t_ms: performance.now(), changed_px: changed }});\n\
           }});\n\
         }}\n\
         return out;",
        svgs = js_json(&serde_json::json!(svgs)),
    );
    let page = page_html("", &body, "");
    let budget_ms = 10_000 + 2 * u64::from(interval_ms) * samples as u64;
    let opts = Options {
        reduced_motion,
        ..Options::default()
    };
    run_page(browser, &page, budget_ms, &opts)
}

/// How two static SVG documents differ as drawn (see [`image_differences`]): each decoded as an image
/// at `scale` times its own pixel size onto a white canvas, the pixels
/// compared channel by channel.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub struct ImageDifference {
    /// Pixels whose channels differ by more than `tolerance`.
    pub pixels: u32,
    /// The largest difference of one channel (0–255).
    pub max_channel: u32,
    /// Pixels drawn other than white in the first image (so a comparison
    /// of two blank images can tell).
    pub inked: u32,
}

/// Draws each pair of `pairs` (static SVG documents of the same size) as
/// images and compares them ([`ImageDifference`]), all in one page;
/// `tolerance` is the channel difference a pixel may have and still count
/// as alike.
pub fn image_differences(
    browser: &Browser,
    pairs: &[(&str, &str)],
    scale: u32,
    tolerance: u32,
) -> Result<Vec<ImageDifference>, BrowserError> {
    let body = format!(
        "const draw = async text => {{\n\
           const [w, h] = rb.pixelSize(text, 320);\n\
           const img = new Image(w * {scale}, h * {scale});\n\
           img.src = 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(text);\n\
           await img.decode();\n\
           const canvas = document.createElement('canvas');\n\
           canvas.width = img.width; canvas.height = img.height;\n\
           const ctx = canvas.getContext('2d');\n\
           ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, img.width, img.height);\n\
           ctx.drawImage(img, 0, 0, img.width, img.height);\n\
           return ctx.getImageData(0, 0, img.width, img.height).data;\n\
         }};\n\
         const out = [];\n\
         for (const [a, b] of {pairs}) {{\n\
           const [pa, pb] = [await draw(a), await draw(b)];\n\
           if (pa.length !== pb.length) throw new Error('the images differ in size');\n\
           let pixels = 0, max = 0, inked = 0;\n\
           for (let i = 0; i < pa.length; i += 4) {{\n\
             let worst = 0;\n\
             for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(pa[i + c] - pb[i + c]));\n\
             if (worst > {tolerance}) pixels++;\n\
             max = Math.max(max, worst);\n\
             if (pa[i] !== 255 || pa[i + 1] !== 255 || pa[i + 2] !== 255) inked++;\n\
           }}\n\
           out.push({{ pixels, max_channel: max, inked }});\n\
         }}\n\
         return out;",
        pairs = js_json(&serde_json::json!(pairs)),
    );
    let page = page_html("", &body, "");
    let budget_ms = 10_000 + 1_000 * pairs.len() as u64;
    run_page(browser, &page, budget_ms, &Options::default())
}

/// Renders `html` (a complete HTML document) in a `width`×`height` px
/// window and writes a PNG screenshot to `out_png`, taken when the virtual
/// time budget (`budget_ms`) is spent in Chromium, at the load event in
/// Firefox (which ignores `budget_ms`).
///
/// No result is read from the page, so script errors in `html` go unnoticed;
/// [`frame_strip`] is the checked variant for SVG frames.
pub fn screenshot(
    browser: &Browser,
    html: &str,
    width: u32,
    height: u32,
    budget_ms: u64,
    out_png: &Path,
) -> Result<(), BrowserError> {
    let opts = Options {
        window: (width, height),
        screenshot: Some(out_png.to_path_buf()),
        wants_result: false,
        ..Options::default()
    };
    launch(browser, html, budget_ms, &opts)?;
    check_png(out_png)
}

/// Width of one frame of [`frame_strip`] in CSS px.
pub const STRIP_FRAME_WIDTH_PX: u32 = 240;

/// Renders `frames` moments of one period side by side into one PNG:
/// frame `i` shows time `period_s · i / frames` seconds.
///
/// Each frame is its own `<iframe>` document holding one copy of the SVG,
/// seeked with `mode` as in [`probe_positions`], so ids, classes and
/// `<style>` rules of the copies cannot collide. Frames are
/// [`STRIP_FRAME_WIDTH_PX`] wide and as tall as the root `viewBox` aspect
/// ratio demands (square when there is none), within
/// [`STRIP_FRAME_MIN_HEIGHT_PX`] and [`STRIP_FRAME_MAX_HEIGHT_PX`]. The page's own result is
/// checked, so a frame that could not be seeked is an error, not a blank
/// picture.
///
/// Returns each frame's `data-probe` positions in root user space, read
/// after its seek (empty maps when the file has no probes), so a caller can
/// check that the picture shows the intended moments.
pub fn frame_strip(
    browser: &Browser,
    svg: &str,
    mode: SeekMode,
    period_s: f64,
    frames: usize,
    out_png: &Path,
) -> Result<Vec<Probes>, BrowserError> {
    if frames == 0 {
        return Err(BrowserError::InvalidArgument("frames must be > 0".into()));
    }
    if !(period_s.is_finite() && period_s > 0.0) {
        return Err(BrowserError::InvalidArgument(format!(
            "period_s must be finite and > 0, got {period_s}"
        )));
    }
    let w = STRIP_FRAME_WIDTH_PX;
    let h = strip_frame_height(svg);
    let times: Vec<f64> = (0..frames)
        .map(|i| period_s * i as f64 / frames as f64)
        .collect();
    let body = format!(
        "const out = [];\n\
         for (const t of {times}) {{\n\
           const frame = document.createElement('iframe');\n\
           frame.style.cssText = 'border:0;display:block;width:{w}px;height:{h}px;flex:none';\n\
           document.getElementById('strip').appendChild(frame);\n\
           const doc = frame.contentDocument;\n\
           doc.body.style.margin = '0';\n\
           const svg = rb.mount(doc.body, SVG_TEXT);\n\
           svg.style.cssText = 'display:block;width:{w}px;height:{h}px';\n\
           await rb.seeker(svg, {mode:?})(t);\n\
           out.push(rb.readProbes(svg, true));\n\
         }}\n\
         return out;",
        times = serde_json::to_string(&times)?,
        mode = mode.js_name(),
    );
    let page = page_html(
        svg,
        &body,
        "<div id=\"strip\" style=\"display:flex;background:#fff\"></div>",
    );
    let opts = Options {
        window: (w * frames as u32, h),
        screenshot: Some(out_png.to_path_buf()),
        ..Options::default()
    };
    let probes = run_page(browser, &page, 10_000, &opts)?;
    check_png(out_png)?;
    Ok(probes)
}

/// Least height of a frame of [`frame_strip`] in CSS px: Chromium's
/// headless screenshot of a strip in a window shorter than about 140 px
/// came out blank or cropped to the drawing's top (a 640 × 360 viewBox at
/// 240 px wide is 135 px tall), so a wider drawing is centred in a frame
/// this tall, white above and below.
pub const STRIP_FRAME_MIN_HEIGHT_PX: u32 = 160;

/// Greatest height of a frame of [`frame_strip`] in CSS px: a taller
/// drawing is scaled down into a frame this tall, white either side (the
/// SVG's own `xMidYMid meet`), so a needle-thin `viewBox` (1 × 30000) costs
/// a picture of this size, not one Chromium cannot allocate.
pub const STRIP_FRAME_MAX_HEIGHT_PX: u32 = 4 * STRIP_FRAME_WIDTH_PX;

/// Height in px of a frame of [`frame_strip`] ([`STRIP_FRAME_WIDTH_PX`]
/// wide): as the root `viewBox` aspect demands (square without one),
/// within [`STRIP_FRAME_MIN_HEIGHT_PX`] and [`STRIP_FRAME_MAX_HEIGHT_PX`].
fn strip_frame_height(svg: &str) -> u32 {
    let w = f64::from(STRIP_FRAME_WIDTH_PX);
    let h = match root_view_box(svg) {
        Some([_, _, vw, vh]) if vw > 0.0 && vh > 0.0 => (w * vh / vw).round(),
        _ => w,
    };
    // (clamped as a float: an aspect past u32 saturates either way)
    h.clamp(
        f64::from(STRIP_FRAME_MIN_HEIGHT_PX),
        f64::from(STRIP_FRAME_MAX_HEIGHT_PX),
    ) as u32
}

/// The `viewBox` of the first `<svg` start tag as `[min_x, min_y, width,
/// height]`, or `None` when absent or malformed. A plain text scan, good
/// enough for the files rigbake writes (attribute in double or single
/// quotes, numbers separated by spaces and/or commas).
pub fn root_view_box(svg: &str) -> Option<[f64; 4]> {
    let start = svg.find("<svg")?;
    let tag_end = start + svg[start..].find('>')?;
    let tag = &svg[start..tag_end];
    let attr = tag.find("viewBox=")? + "viewBox=".len();
    let quote = tag[attr..].chars().next()?;
    if quote != '"' && quote != '\'' {
        return None;
    }
    let value_start = attr + 1;
    let value_len = tag[value_start..].find(quote)?;
    let nums: Vec<f64> = tag[value_start..value_start + value_len]
        .split(|c: char| c.is_ascii_whitespace() || c == ',')
        .filter(|s| !s.is_empty())
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    match nums[..] {
        [x, y, w, h] => Some([x, y, w, h]),
        _ => None,
    }
}

fn check_finite(what: &str, values: &[f64]) -> Result<(), BrowserError> {
    match values.iter().find(|v| !v.is_finite()) {
        Some(v) => Err(BrowserError::InvalidArgument(format!(
            "{what} must be finite, got {v}"
        ))),
        None => Ok(()),
    }
}

fn check_png(path: &Path) -> Result<(), BrowserError> {
    let mut magic = [0u8; 8];
    match std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut magic)) {
        Ok(()) if magic == *b"\x89PNG\r\n\x1a\n" => Ok(()),
        _ => Err(BrowserError::NoScreenshot(path.to_path_buf())),
    }
}

/// Shared page-side helpers, available to every page script as `rb`.
const PAGE_LIB_JS: &str = r#"
const rb = {
  // Parses the SVG as XML (as a standalone .svg file is) and appends it.
  mount(parent, text) {
    const parsed = new DOMParser().parseFromString(text, 'image/svg+xml');
    const err = parsed.getElementsByTagName('parsererror')[0];
    if (err) throw new Error('SVG is not well-formed XML: ' + err.textContent);
    const root = parsed.documentElement;
    if (root.namespaceURI !== 'http://www.w3.org/2000/svg' || root.localName !== 'svg')
      throw new Error('root element is not an SVG <svg>');
    const svg = parent.ownerDocument.importNode(root, true);
    parent.appendChild(svg);
    return svg;
  },
  // Width and height in px for an image `width` px wide, from the viewBox.
  pixelSize(text, width) {
    const root = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
    const vb = root.viewBox && root.viewBox.baseVal;
    if (vb && vb.width > 0 && vb.height > 0)
      return [width, Math.max(1, Math.round(width * vb.height / vb.width))];
    return [width, width];
  },
  sleep(ms) { return new Promise(r => setTimeout(r, ms)); },
  // An exception's message and stack (Firefox's stack lacks the message).
  describe(e) {
    if (!e || typeof e.message !== 'string') return String(e);
    const stack = e.stack || '';
    return stack.includes(e.message) ? stack : e.message + '\n' + stack;
  },
  // Waits until no CSS animation in `docs` is pending (has a start time).
  async started(docs = [document]) {
    const pending = () => docs.some(d => d.getAnimations().some(a => a.pending));
    for (let waited = 0; pending(); waited += 10) {
      if (waited > 30000) throw new Error('CSS animations still pending after 30 s');
      await rb.sleep(10);
    }
  },
  // Returns async t_s => void that shows the document at time t_s.
  seeker(svg, mode) {
    const doc = svg.ownerDocument;
    const css = doc.getAnimations();
    const smil = svg.querySelector('animate, animateTransform, animateMotion, set') !== null;
    if (mode === 'css' && css.length === 0)
      throw new Error('no CSS animations to seek (document.getAnimations() is empty)');
    if (mode === 'smil' && !smil)
      throw new Error('no SMIL animation elements to seek');
    for (const a of css) { a.pause(); a.currentTime = 0; }
    svg.pauseAnimations();
    svg.setCurrentTime(0);
    return async (t) => {
      if (mode === 'css') { for (const a of css) a.currentTime = t * 1000; }
      // setCurrentTime takes a 32-bit float, which Chromium then cuts to
      // the microsecond: half a microsecond later keeps a time whose float
      // lies just below it (0.031 s) from showing the microsecond before
      else svg.setCurrentTime(t + 5e-7);
      // SMIL geometry is only updated after the page yields a task.
      await new Promise(r => setTimeout(r, 0));
    };
  },
  // The last point of a <path> (as animated), in its user space. Firefox
  // measures some cubics short (a near-straight cubic with an inflection:
  // getTotalLength() and getPointAtLength() stop before its end), so the
  // length-based point is checked against the end of the computed `d`
  // (absolute commands, serialised to about 6 significant digits) and the
  // latter wins when they differ by more than 0.001 px and by more than
  // the last digit the serialised numbers keep (at a coordinate of 150000,
  // a whole unit: there the length-based point is the precise one).
  pathEnd(p) {
    const q = p.getPointAtLength(p.getTotalLength());
    const m = /^path\("(.*)"\)$/.exec(getComputedStyle(p).d || '');
    const tail = m && /([MLCSQTA])[^A-Za-z]*$/.exec(m[1]);
    if (tail) {
      const texts = tail[0].slice(1).trim().split(/[\s,]+/);
      const nums = texts.map(Number);
      const [ex, ey] = nums.slice(-2);
      const digit = text => {
        const d = /^[-+]?\d*(?:\.(\d*))?(?:e([-+]?\d+))?$/i.exec(text);
        return d ? Math.pow(10, (d[2] ? Number(d[2]) : 0) - (d[1] ? d[1].length : 0)) : 1e-3;
      };
      const kept = Math.max(1e-3, ...texts.slice(-2).map(digit));
      if (nums.length >= 2 && Number.isFinite(ex) && Number.isFinite(ey) &&
          Math.hypot(q.x - ex, q.y - ey) > kept) return [ex, ey];
    }
    return [q.x, q.y];
  },
  // Every data-probe point in root user space; none is an error unless
  // allowEmpty.
  readProbes(svg, allowEmpty = false) {
    const toRoot = svg.getScreenCTM().inverse();
    const out = {};
    let n = 0;
    for (const p of svg.querySelectorAll('[data-probe]')) {
      const name = p.getAttribute('data-probe');
      if (Object.prototype.hasOwnProperty.call(out, name))
        throw new Error('duplicate data-probe "' + name + '"');
      let x, y;
      if (p.localName === 'circle') {
        // cx/cy with SMIL applied; Firefox's getBBox() of an r=0 circle is
        // an empty box at (0, 0).
        x = p.cx.animVal.value; y = p.cy.animVal.value;
      } else if (p.localName === 'path') {
        [x, y] = rb.pathEnd(p);
      } else {
        throw new Error('data-probe "' + name + '" is a <' + p.localName + '>, expected <circle> or <path>');
      }
      const q = new DOMPoint(x, y).matrixTransform(toRoot.multiply(p.getScreenCTM()));
      out[name] = [q.x, q.y];
      n++;
    }
    if (n === 0 && !allowEmpty) throw new Error('no data-probe elements');
    return out;
  },
  // Writes the result where --dump-dom will show it; <, >, & and U+00A0 are
  // JSON-escaped so the HTML serialiser leaves the text alone. A page served
  // by the harness's HTTP server (every launch) also posts it to /result.
  async done(obj) {
    const text = JSON.stringify(obj).replace(/[<>&\u00a0]/g,
      c => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
    const pre = document.createElement('pre');
    pre.id = 'rigbake-out';
    pre.textContent = text;
    document.body.appendChild(pre);
    if (location.protocol === 'http:')
      await fetch('/result', { method: 'POST', body: text });
  },
};
// Asked to (Firefox), a request the server answers only after the result
// has arrived keeps the load event (and so Firefox's --screenshot) waiting.
if (location.protocol === 'http:' && location.search === '?hold') {
  const hold = document.createElement('iframe');
  hold.hidden = true;
  hold.src = '/hold';
  document.body.appendChild(hold);
}
"#;

/// The HTML page: `extra_body` markup, then a script defining `SVG_TEXT`
/// and `rb`, then `body_js` run as an async function whose return value is
/// the result.
fn page_html(svg: &str, body_js: &str, extra_body: &str) -> String {
    let mut page = String::new();
    page.push_str(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\
         <style>html,body{margin:0;background:#fff}</style></head><body>\n",
    );
    page.push_str(extra_body);
    page.push_str("\n<script>\nconst SVG_TEXT = ");
    page.push_str(&js_string(svg));
    page.push_str(";\n");
    page.push_str(PAGE_LIB_JS);
    let _ = write!(
        page,
        "(async () => {{\n{body_js}\n}})().then(\n  result => rb.done({{ ok: true, result }}),\n  \
         e => rb.done({{ ok: false, error: rb.describe(e) }}));\n</script>\n</body></html>\n"
    );
    page
}

/// A JavaScript string literal for `s` that is safe inside `<script>`.
fn js_string(s: &str) -> String {
    js_json(&serde_json::Value::from(s))
}

/// A JavaScript literal for a JSON value that is safe inside `<script>`:
/// JSON is valid JavaScript, and "</" (which could close the script) only
/// occurs inside strings, where "<\/" means the same.
fn js_json(v: &serde_json::Value) -> String {
    v.to_string().replace("</", "<\\/")
}

#[derive(Deserialize)]
struct PageResult<T> {
    ok: bool,
    error: Option<String>,
    result: Option<T>,
}

const OUT_OPEN: &str = "<pre id=\"rigbake-out\">";

/// The JSON result in a dumped DOM, if the page wrote one.
fn cut_result(dom: &str) -> Option<&str> {
    let start = dom.rfind(OUT_OPEN)? + OUT_OPEN.len();
    let len = dom[start..].find("</pre>")?;
    Some(&dom[start..start + len])
}

/// Decodes the page's `{ ok, result | error }` JSON.
fn decode_result<T: DeserializeOwned>(json: &str) -> Result<T, BrowserError> {
    let parsed: PageResult<T> = serde_json::from_str(json)?;
    match (parsed.ok, parsed.result) {
        (true, Some(result)) => Ok(result),
        (true, None) => Err(BrowserError::Page(
            "page reported success without a result".into(),
        )),
        (false, _) => Err(BrowserError::Page(
            parsed.error.unwrap_or_else(|| "unknown error".into()),
        )),
    }
}

/// The last few lines of the browser's stderr, for error messages.
fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    lines[lines.len().saturating_sub(8)..].join("\n")
}

#[derive(Debug, Clone)]
struct Options {
    reduced_motion: bool,
    window: (u32, u32),
    screenshot: Option<PathBuf>,
    timeout: Duration,
    /// The page reports a result through `rb.done` (false only for
    /// [`screenshot`]'s arbitrary HTML).
    wants_result: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            reduced_motion: false,
            window: (800, 600),
            screenshot: None,
            timeout: LAUNCH_TIMEOUT,
            wants_result: true,
        }
    }
}

/// Runs `page` once in `browser` and decodes the result its script passed
/// to `rb.done`.
fn run_page<T: DeserializeOwned>(
    browser: &Browser,
    page: &str,
    budget_ms: u64,
    opts: &Options,
) -> Result<T, BrowserError> {
    let run = launch(browser, page, budget_ms, opts)?;
    match run.result {
        Some(json) => decode_result(&json),
        None => Err(BrowserError::NoResult {
            stderr_tail: tail(&run.stderr),
        }),
    }
}

struct Dumped {
    stdout: String,
    stderr: String,
}

/// A fresh temporary directory, removed on drop or interrupt.
fn temp_dir() -> Result<(tempfile::TempDir, crate::interrupt::Registered), BrowserError> {
    // Created and registered in one step, so an interrupt removes it.
    let _gate = crate::interrupt::critical();
    let dir = tempfile::Builder::new()
        .prefix("rigbake-browser-")
        .tempdir()?;
    let reg = crate::interrupt::remove_on_signal(dir.path());
    Ok((dir, reg))
}

/// A browser process in its own process group, registered so an interrupt
/// kills the group; its stdout and stderr are drained by two threads.
struct Running {
    child: std::process::Child,
    _on_signal: crate::interrupt::Registered,
    stdout: thread::JoinHandle<String>,
    stderr: thread::JoinHandle<String>,
}

impl Running {
    fn spawn(mut cmd: Command, path: &Path) -> Result<Running, BrowserError> {
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            // Own process group, so a timeout can kill the renderer, GPU and
            // content processes too.
            cmd.process_group(0);
        }
        // Started and registered in one step: an interrupt kills its group
        // (a terminal's Ctrl-C does not reach it, it has a group of its own).
        let (mut child, on_signal) = {
            let _gate = crate::interrupt::critical();
            let child = cmd.spawn().map_err(|source| BrowserError::Launch {
                path: path.to_path_buf(),
                source,
            })?;
            let reg = crate::interrupt::kill_on_signal(child.id());
            (child, reg)
        };
        let stdout = drain(child.stdout.take());
        let stderr = drain(child.stderr.take());
        Ok(Running {
            child,
            _on_signal: on_signal,
            stdout,
            stderr,
        })
    }

    /// Kills the whole group (helpers that outlive the browser process
    /// would keep the pipes open) and collects the output.
    fn finish(mut self) -> Dumped {
        kill_group(&mut self.child);
        let _ = self.child.wait();
        Dumped {
            stdout: self.stdout.join().unwrap_or_default(),
            stderr: self.stderr.join().unwrap_or_default(),
        }
    }
}

/// What a launch produced: the JSON the page passed to `rb.done` (if any)
/// and the browser's stderr.
struct Posted {
    result: Option<String>,
    stderr: String,
}

/// Serves `page` on 127.0.0.1 ([`Server`]) and runs `browser` on it once,
/// in a fresh profile, bounded by `opts.timeout`; returns what the page
/// posted to `/result`.
///
/// Without a screenshot the browser is killed as soon as the result is in:
/// Chromium would otherwise run on until its virtual time budget
/// (`budget_ms`, which must cover the page's slowest case) is spent, which
/// for a page of documents that play on their own takes many seconds of
/// wall-clock time, and over a minute on a busy machine. With a screenshot
/// the browser exits by itself once it has taken it: Chromium when the
/// budget is spent, Firefox at the load event, which the page's `/hold`
/// request delays until the result is in. A Chromium that exits without
/// posting still leaves the result in its dumped DOM.
fn launch(
    browser: &Browser,
    page: &str,
    budget_ms: u64,
    opts: &Options,
) -> Result<Posted, BrowserError> {
    let (dir, _dir_on_signal) = temp_dir()?;
    let profile = dir.path().join("profile");
    let mut server = Server::start(page)?;
    let mut cmd = match browser.engine {
        Engine::Chromium => chromium_command(
            &browser.path,
            &profile,
            &server.url(false)?,
            budget_ms,
            opts,
        ),
        Engine::Firefox => firefox_command(&browser.path, &profile, &server.url(true)?, opts)?,
    };
    // The browser's own temporaries (Chromium's singleton socket directory
    // `org.chromium.Chromium.*`, which a killed Chromium cannot remove) go
    // into the launch's directory, removed with it, not the system's.
    cmd.env("TMPDIR", dir.path());
    let mut run = Running::spawn(cmd, &browser.path)?;
    let deadline = Instant::now() + opts.timeout;
    let status = loop {
        if server.poll()? && opts.screenshot.is_none() {
            break None;
        }
        if let Some(status) = run.child.try_wait()? {
            break Some(status);
        }
        if Instant::now() >= deadline {
            let _ = run.finish();
            return Err(BrowserError::Timeout {
                engine: browser.engine,
                after: opts.timeout,
            });
        }
        thread::sleep(Duration::from_millis(5));
    };
    let dumped = run.finish();
    if let Some(status) = status.filter(|s| !s.success()) {
        return Err(BrowserError::Exit {
            engine: browser.engine,
            status,
            stderr_tail: tail(&dumped.stderr),
        });
    }
    let result = server.result.or_else(|| match browser.engine {
        Engine::Chromium => cut_result(&dumped.stdout).map(str::to_string),
        Engine::Firefox => None,
    });
    if result.is_none() && opts.wants_result {
        return Err(BrowserError::NoResult {
            stderr_tail: tail(&dumped.stderr),
        });
    }
    Ok(Posted {
        result,
        stderr: dumped.stderr,
    })
}

/// Chromium on `url` with `--dump-dom` (plus `--screenshot` when asked)
/// under a virtual time budget of `budget_ms`.
fn chromium_command(
    chromium: &Path,
    profile: &Path,
    url: &str,
    budget_ms: u64,
    opts: &Options,
) -> Command {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--no-proxy-server",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--mute-audio",
        "--force-device-scale-factor=1",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .arg(format!("--window-size={},{}", opts.window.0, opts.window.1))
    .arg(format!("--virtual-time-budget={budget_ms}"))
    .arg("--dump-dom");
    if opts.reduced_motion {
        cmd.arg("--force-prefers-reduced-motion");
    }
    if let Some(png) = &opts.screenshot {
        cmd.arg(format!("--screenshot={}", png.display()));
    }
    cmd.arg(url);
    cmd
}

/// Preferences of every Firefox profile the harness creates: no first-run
/// pages, update checks, telemetry, safe browsing or other background
/// traffic; no clamping of nested `setTimeout(0)` (the seek loop yields a
/// task per time); no slow-script dialog; one CSS px per device pixel.
const FIREFOX_PREFS: &str = r#"user_pref("app.normandy.enabled", false);
user_pref("app.update.auto", false);
user_pref("app.update.checkInstallTime", false);
user_pref("app.update.disabledForTesting", true);
user_pref("browser.aboutwelcome.enabled", false);
user_pref("browser.safebrowsing.downloads.enabled", false);
user_pref("browser.safebrowsing.malware.enabled", false);
user_pref("browser.safebrowsing.phishing.enabled", false);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.startup.page", 0);
user_pref("browser.tabs.warnOnClose", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("dom.max_script_run_time", 0);
user_pref("dom.min_timeout_value", 0);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("extensions.update.enabled", false);
user_pref("layout.css.devPixelsPerPx", "1.0");
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("network.proxy.type", 0);
user_pref("toolkit.telemetry.enabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
"#;

/// Firefox on `url` in `profile`, created here with [`FIREFOX_PREFS`] and
/// the reduced-motion preference (plus `--screenshot` when asked).
fn firefox_command(
    firefox: &Path,
    profile: &Path,
    url: &str,
    opts: &Options,
) -> Result<Command, BrowserError> {
    std::fs::create_dir(profile)?;
    let mut prefs = FIREFOX_PREFS.to_string();
    let _ = writeln!(
        prefs,
        "user_pref(\"ui.prefersReducedMotion\", {});",
        u8::from(opts.reduced_motion)
    );
    std::fs::write(profile.join("user.js"), prefs)?;
    let mut cmd = Command::new(firefox);
    cmd.args(["--headless", "--no-remote", "--profile"])
        .arg(profile)
        .env("MOZ_CRASHREPORTER_DISABLE", "1")
        .env("MOZ_HEADLESS_WIDTH", opts.window.0.to_string())
        .env("MOZ_HEADLESS_HEIGHT", opts.window.1.to_string());
    if let Some(png) = &opts.screenshot {
        cmd.arg(format!("--window-size={},{}", opts.window.0, opts.window.1))
            .arg("--screenshot")
            .arg(png);
    }
    cmd.arg(url);
    Ok(cmd)
}

/// What the connection threads of a [`Server`] report.
enum Served {
    /// The page posted its result (the request body).
    Result(Vec<u8>),
    /// A `GET /hold`, to be answered once the result is in.
    Hold(TcpStream),
}

/// The page's server: a listener on `127.0.0.1:<free port>`, polled by the
/// driver, one short-lived thread per connection ([`serve`]).
struct Server {
    listener: TcpListener,
    page: Arc<Vec<u8>>,
    tx: mpsc::Sender<Served>,
    rx: mpsc::Receiver<Served>,
    held: Vec<TcpStream>,
    /// The body the page posted to `/result`, once it has.
    result: Option<String>,
}

impl Server {
    fn start(page: &str) -> Result<Server, BrowserError> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        listener.set_nonblocking(true)?;
        let (tx, rx) = mpsc::channel();
        Ok(Server {
            listener,
            page: Arc::new(page.as_bytes().to_vec()),
            tx,
            rx,
            held: Vec::new(),
            result: None,
        })
    }

    /// The page's address; with `hold` the page also requests `/hold`
    /// (for Firefox's screenshot, see [`launch`]). Chromium gets no hold:
    /// a pending request stops its virtual time.
    fn url(&self, hold: bool) -> Result<String, BrowserError> {
        let query = if hold { "?hold" } else { "" };
        Ok(format!("http://{}/{query}", self.listener.local_addr()?))
    }

    /// Hands every waiting connection to a [`serve`] thread and takes what
    /// they reported; once the result is in, answers the held requests.
    /// Returns whether the result is in.
    fn poll(&mut self) -> Result<bool, BrowserError> {
        loop {
            match self.listener.accept() {
                Ok((stream, _)) => {
                    let (page, tx) = (Arc::clone(&self.page), self.tx.clone());
                    thread::spawn(move || serve(stream, &page, &tx));
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(e) => return Err(e.into()),
            }
        }
        while let Ok(served) = self.rx.try_recv() {
            match served {
                Served::Hold(stream) => self.held.push(stream),
                Served::Result(body) => {
                    self.result = Some(String::from_utf8_lossy(&body).into_owned());
                }
            }
        }
        if self.result.is_some() {
            for stream in self.held.drain(..) {
                respond(stream, "200 OK", "text/html", b"");
            }
        }
        Ok(self.result.is_some())
    }
}

/// Answers one connection of a [`Server`]: `GET /` (any query) the page,
/// `POST /result` (reported, 204), `GET /hold` (handed back, answered
/// later), anything else 404. Malformed or stalled requests are dropped.
fn serve(mut stream: TcpStream, page: &[u8], tx: &mpsc::Sender<Served>) {
    const HEAD_LIMIT: usize = 64 * 1024;
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(30)));
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk) {
            Ok(n) if n > 0 && buf.len() < HEAD_LIMIT => buf.extend_from_slice(&chunk[..n]),
            _ => return,
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut request_line = head.lines().next().unwrap_or("").split(' ');
    let (method, target) = (request_line.next(), request_line.next());
    match (method, target) {
        (Some("GET"), Some(target)) if target.split('?').next() == Some("/") => {
            respond(stream, "200 OK", "text/html; charset=utf-8", page);
        }
        (Some("GET"), Some("/hold")) => {
            let _ = tx.send(Served::Hold(stream));
        }
        (Some("POST"), Some("/result")) => {
            let len = head
                .lines()
                .filter_map(|l| l.split_once(':'))
                .find(|(k, _)| k.trim().eq_ignore_ascii_case("content-length"))
                .and_then(|(_, v)| v.trim().parse::<usize>().ok());
            let Some(len) = len else { return };
            let mut body = buf.split_off(head_end);
            body.truncate(len);
            let mut rest = vec![0u8; len - body.len()];
            if stream.read_exact(&mut rest).is_err() {
                return;
            }
            body.extend_from_slice(&rest);
            respond(stream, "204 No Content", "text/plain", b"");
            let _ = tx.send(Served::Result(body));
        }
        _ => respond(stream, "404 Not Found", "text/plain", b""),
    }
}

fn respond(mut stream: TcpStream, status: &str, content_type: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(body))
        .and_then(|()| stream.flush());
}

fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut buf);
        }
        String::from_utf8_lossy(&buf).into_owned()
    })
}

fn kill_group(child: &mut std::process::Child) {
    crate::interrupt::kill_group(child.id());
    let _ = child.kill();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_box_is_read_from_the_root_tag() {
        let svg = r#"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" viewBox="-50 -5.5,200 100"><svg viewBox="0 0 1 1"/></svg>"#;
        assert_eq!(root_view_box(svg), Some([-50.0, -5.5, 200.0, 100.0]));
        assert_eq!(
            root_view_box("<svg viewBox='0 0 4 2'>"),
            Some([0.0, 0.0, 4.0, 2.0])
        );
        assert_eq!(root_view_box("<svg width=\"3\">"), None);
        assert_eq!(root_view_box("<svg viewBox=\"0 0 4\">"), None);
        assert_eq!(strip_frame_height("<svg viewBox=\"0 0 800 600\">"), 180);
        assert_eq!(strip_frame_height("<svg viewBox=\"0 0 100 200\">"), 480);
        // a needle-thin drawing: capped (Chromium died drawing 1 × 30000)
        for vb in ["0 0 1 30000", "0 0 1e-300 5", "0 0 100 401"] {
            assert_eq!(
                strip_frame_height(&format!("<svg viewBox=\"{vb}\">")),
                STRIP_FRAME_MAX_HEIGHT_PX,
                "{vb}"
            );
        }
        // wider than 3:2: the drawing is centred in a frame 160 px tall
        assert_eq!(strip_frame_height("<svg viewBox=\"-40 -30 640 360\">"), 160);
        assert_eq!(strip_frame_height("<svg viewBox=\"0 0 1e6 1\">"), 160);
        assert_eq!(strip_frame_height("<svg>"), 240);
    }

    #[test]
    fn js_string_cannot_close_the_script() {
        let s = js_string("a</script>\"b\"\n");
        assert!(!s.contains("</"));
        assert_eq!(s, r#""a<\/script>\"b\"\n""#);
    }

    #[test]
    fn result_is_cut_from_the_dumped_dom() {
        let dom = "<html><body><pre id=\"rigbake-out\">{\"ok\":true,\"result\":[1.5]}</pre></body></html>";
        assert_eq!(cut_result(dom), Some("{\"ok\":true,\"result\":[1.5]}"));
        let v: Vec<f64> = decode_result(cut_result(dom).unwrap()).unwrap();
        assert_eq!(v, vec![1.5]);

        let dom = "<pre id=\"rigbake-out\">{\"ok\":false,\"error\":\"boom\"}</pre>";
        let e = decode_result::<Vec<f64>>(cut_result(dom).unwrap()).unwrap_err();
        assert!(matches!(e, BrowserError::Page(ref m) if m == "boom"), "{e}");

        assert_eq!(cut_result("<html></html>"), None);
        assert_eq!(cut_result("<pre id=\"rigbake-out\">{unclosed"), None);

        let dom = "<pre id=\"rigbake-out\">{not json</pre>";
        assert!(matches!(
            decode_result::<Vec<f64>>(cut_result(dom).unwrap()),
            Err(BrowserError::BadJson(_))
        ));
    }

    /// One request to [`serve`] over a real socket; returns the response
    /// and what the server reported.
    fn exchange(request: &[u8]) -> (String, Option<Served>) {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).unwrap();
        let mut client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (stream, _) = listener.accept().unwrap();
        let (tx, rx) = mpsc::channel();
        let server = thread::spawn(move || serve(stream, b"<p>page</p>", &tx));
        client.write_all(request).unwrap();
        server.join().unwrap();
        let served = rx.try_recv().ok();
        if let Some(Served::Hold(stream)) = served {
            respond(stream, "200 OK", "text/html", b"");
            let mut response = String::new();
            client.read_to_string(&mut response).unwrap();
            return (response, None);
        }
        let mut response = String::new();
        client.read_to_string(&mut response).unwrap();
        (response, served)
    }

    #[test]
    fn the_server_serves_the_page_and_takes_the_result() {
        let (response, served) = exchange(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(response.starts_with("HTTP/1.1 200 OK\r\n"), "{response}");
        assert!(response.ends_with("\r\n\r\n<p>page</p>"), "{response}");
        assert!(served.is_none());
        // The page asked for with a query (Firefox's `?hold`) is the page.
        let (response, _) = exchange(b"GET /?hold HTTP/1.1\r\n\r\n");
        assert!(response.ends_with("\r\n\r\n<p>page</p>"), "{response}");

        // Header names are case-insensitive.
        let body = br#"{"ok":true,"result":[1.5]}"#;
        let mut request = format!(
            "POST /result HTTP/1.1\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        request.extend_from_slice(body);
        let (response, served) = exchange(&request);
        assert!(response.starts_with("HTTP/1.1 204 "), "{response}");
        match served {
            Some(Served::Result(got)) => {
                assert_eq!(got, body);
                let v: Vec<f64> = decode_result(std::str::from_utf8(&got).unwrap()).unwrap();
                assert_eq!(v, [1.5]);
            }
            _ => panic!("no result reported"),
        }

        let (response, _) = exchange(b"GET /hold HTTP/1.1\r\n\r\n");
        assert!(response.starts_with("HTTP/1.1 200 OK"), "{response}");
        let (response, served) = exchange(b"GET /favicon.ico HTTP/1.1\r\n\r\n");
        assert!(response.starts_with("HTTP/1.1 404 "), "{response}");
        assert!(served.is_none());
    }

    /// A stand-in for Firefox: a shell script that exits with `code`
    /// without loading the page.
    #[cfg(unix)]
    fn fake_firefox(dir: &Path, code: u8) -> Browser {
        use std::os::unix::fs::PermissionsExt;
        let path = dir.join(format!("firefox-exit-{code}"));
        std::fs::write(&path, format!("#!/bin/sh\necho gone >&2\nexit {code}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        Browser::firefox(path)
    }

    #[cfg(unix)]
    #[test]
    fn a_firefox_that_exits_without_a_result_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"/>"#;
        match probe_positions(&fake_firefox(dir.path(), 0), svg, SeekMode::Smil, &[0.0]) {
            Err(BrowserError::NoResult { stderr_tail }) => assert_eq!(stderr_tail, "gone"),
            other => panic!("expected NoResult, got {other:?}"),
        }
        match probe_positions(&fake_firefox(dir.path(), 3), svg, SeekMode::Smil, &[0.0]) {
            Err(e @ BrowserError::Exit { .. }) => {
                let msg = e.to_string();
                assert!(msg.starts_with("firefox exited with"), "{msg}");
                assert!(msg.ends_with("gone"), "{msg}");
            }
            other => panic!("expected Exit, got {other:?}"),
        }
    }

    /// A Firefox that never posts is killed at the timeout, with the
    /// children in its process group.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_silent_firefox_is_killed_with_its_group_at_the_timeout() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("child.pid");
        let path = dir.path().join("firefox-silent");
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\nsleep 30 &\necho $! > {}\nwait\n",
                pid_file.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        let opts = Options {
            timeout: Duration::from_millis(500),
            ..Options::default()
        };
        let start = Instant::now();
        match launch(&Browser::firefox(path), "<p>", 0, &opts) {
            Err(BrowserError::Timeout { engine, after }) => {
                assert_eq!((engine, after), (Engine::Firefox, opts.timeout));
            }
            Err(e) => panic!("expected a timeout, got {e}"),
            Ok(_) => panic!("expected a timeout, got a result"),
        }
        assert!(start.elapsed() < Duration::from_secs(10));
        // Gone, or a zombie waiting for whoever inherited it.
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
        let state = stat.as_deref().map_or("gone", |s| {
            s.rsplit(')')
                .next()
                .unwrap_or("")
                .split_whitespace()
                .next()
                .unwrap_or("")
        });
        assert!(
            matches!(state, "gone" | "Z" | "X"),
            "the browser's child {} survived (state {state})",
            pid.trim()
        );
    }

    /// A launch ends when the page has posted its result, in every
    /// engine, however long the page would run on: here it keeps the
    /// renderer busy every millisecond of an hour of virtual time, which
    /// Chromium would spend before dumping its DOM.
    #[test]
    fn a_launch_ends_when_the_result_is_in() {
        let page = page_html(
            "",
            "setInterval(() => { let x = 0; for (let i = 0; i < 1e7; i++) x += i; }, 1);\n\
             return 'posted';",
            "",
        );
        let opts = Options {
            timeout: Duration::from_secs(30),
            ..Options::default()
        };
        for engine in Engine::ALL {
            let Some(browser) = Browser::find(engine) else {
                assert!(
                    std::env::var("CI").as_deref() != Ok("true"),
                    "{engine} not found, CI requires it"
                );
                continue;
            };
            let got: String = run_page(&browser, &page, 3_600_000, &opts)
                .unwrap_or_else(|e| panic!("{engine}: {e}"));
            assert_eq!(got, "posted", "{engine}");
        }
    }

    #[test]
    fn bad_arguments_are_rejected_before_launch() {
        let nowhere = &Browser::chromium("/nonexistent/chromium");
        assert!(matches!(
            probe_positions(nowhere, "<svg/>", SeekMode::Smil, &[f64::NAN]),
            Err(BrowserError::InvalidArgument(_))
        ));
        assert!(matches!(
            frame_strip(
                nowhere,
                "<svg/>",
                SeekMode::Smil,
                1.0,
                0,
                Path::new("x.png")
            ),
            Err(BrowserError::InvalidArgument(_))
        ));
        for nowhere in [nowhere, &Browser::firefox("/nonexistent/firefox")] {
            assert!(matches!(
                probe_positions(nowhere, "<svg/>", SeekMode::Smil, &[0.0]),
                Err(BrowserError::Launch { .. })
            ));
        }
    }
}
