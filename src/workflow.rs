//! The illustrator-facing commands: `preview`, `bake --art`, `bake --watch`.
//!
//! Like the rest of the binary, this module only reads files, calls the
//! library and writes outputs atomically; the work itself is in
//! [`rigbake::art`], [`rigbake::browser`] and [`rigbake::watch`].

use super::{BakeArgs, Exit, RouteArg, SweepRoute, load_rig};
use anyhow::{Context, Result, anyhow, bail};
use rigbake::Route;
use rigbake::browser::{self, SeekMode};
use std::path::{Path, PathBuf};

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
