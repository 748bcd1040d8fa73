//! Watching input files for `rigbake bake --watch`.
//!
//! # Method
//!
//! Each watched file's *directory* is watched (non-recursively) through
//! `notify-debouncer-mini`, and events are filtered down to the watched file
//! names. Watching the directory rather than the file keeps working when an
//! editor saves by writing a new file and renaming it over the old one (the
//! old inode, and a watch on it, is gone after the first save). Events for
//! one file within [`DEBOUNCE`] of each other are merged into one, so an
//! editor's write-truncate-write or write-rename sequence triggers one
//! re-bake, not several.
//!
//! # Limits
//!
//! - A file is matched by its directory's canonical path plus its file name;
//!   a file reached through a symbolic link to another directory is not
//!   followed (the link's own directory is watched).
//! - The debouncer reports "something changed", not what: the callback
//!   re-reads every input. A save that leaves the bytes unchanged still
//!   triggers a re-bake.
//! - Relies on the platform's file notification (inotify on Linux); on
//!   network file systems without notifications nothing is reported.

use notify_debouncer_mini::notify::RecursiveMode;
use notify_debouncer_mini::{DebounceEventResult, new_debouncer};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Quiet time after the last event for a file before it is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// How often the loop checks the stop flag while no event arrives.
const POLL: Duration = Duration::from_millis(100);

/// What can go wrong while setting up or running a watch.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// A watched file's directory does not exist or cannot be resolved.
    /// The OS error is the source (shown once, after this message).
    #[error("{}: cannot watch this directory", crate::input::shown_path(path))]
    Path {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file-notification backend failed (for example the inotify watch
    /// limit was reached); the backend's error is the source.
    #[error("file watching failed")]
    Notify(#[from] notify_debouncer_mini::notify::Error),
}

/// The absolute path a watched file's events arrive under: canonical
/// directory joined with the file name (the file itself may not exist).
fn event_path(file: &Path) -> Result<(PathBuf, PathBuf), WatchError> {
    let name = file.file_name().ok_or_else(|| WatchError::Path {
        path: file.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
    })?;
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = dir.canonicalize().map_err(|source| WatchError::Path {
        path: dir.to_path_buf(),
        source,
    })?;
    Ok((dir.join(name), dir))
}

/// Checks that every file's directory can be resolved (what
/// [`watch_files`] needs first), so a caller can refuse before other work.
pub fn check_paths(files: &[PathBuf]) -> Result<(), WatchError> {
    files.iter().try_for_each(|f| event_path(f).map(|_| ()))
}

/// Calls `on_ready` once the watches are in place, then `on_change` with
/// the watched files that changed (as given in `files`, in their order)
/// after every debounced burst of changes, until `stop` becomes true
/// (checked at least every 100 ms). Returns `Ok(())` when stopped; a
/// notification backend error ends the watch with [`WatchError::Notify`].
pub fn watch_files(
    files: &[PathBuf],
    stop: &AtomicBool,
    on_ready: impl FnOnce(),
    mut on_change: impl FnMut(&[PathBuf]),
) -> Result<(), WatchError> {
    let mut targets = Vec::with_capacity(files.len());
    let mut dirs = BTreeSet::new();
    for f in files {
        let (abs, dir) = event_path(f)?;
        targets.push((abs, f.clone()));
        dirs.insert(dir);
    }
    let (tx, rx) = mpsc::channel::<DebounceEventResult>();
    let mut debouncer = new_debouncer(DEBOUNCE, tx)?;
    for dir in &dirs {
        debouncer
            .watcher()
            .watch(dir, RecursiveMode::NonRecursive)?;
    }
    on_ready();
    while !stop.load(Ordering::SeqCst) {
        let events = match rx.recv_timeout(POLL) {
            Ok(r) => r?,
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        let changed: Vec<PathBuf> = targets
            .iter()
            .filter(|(abs, _)| events.iter().any(|e| &e.path == abs))
            .map(|(_, given)| given.clone())
            .collect();
        if !changed.is_empty() {
            on_change(&changed);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Instant;

    /// A write to a watched file is reported once per burst; a write to a
    /// sibling file in the same directory is not reported.
    #[test]
    fn reports_the_watched_file_and_ignores_siblings() {
        let dir = tempfile::tempdir().unwrap();
        let rig = dir.path().join("rig.json");
        let other = dir.path().join("other.json");
        std::fs::write(&rig, "1").unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let handle = {
            let (stop, rig) = (stop.clone(), rig.clone());
            std::thread::spawn(move || {
                watch_files(
                    std::slice::from_ref(&rig),
                    &stop,
                    || {},
                    |c| {
                        tx.send(c.to_vec()).unwrap();
                    },
                )
            })
        };
        std::thread::sleep(Duration::from_millis(300));
        std::fs::write(&other, "x").unwrap();
        std::fs::write(&rig, "2").unwrap();
        std::fs::write(&rig, "3").unwrap();
        let got = rx.recv_timeout(Duration::from_secs(5)).unwrap();
        assert_eq!(got, vec![rig.clone()]);
        // the sibling never shows up
        let deadline = Instant::now() + Duration::from_millis(500);
        while let Ok(c) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            assert_eq!(c, vec![rig.clone()]);
        }
        stop.store(true, Ordering::SeqCst);
        handle.join().unwrap().unwrap();
    }

    #[test]
    fn missing_directory_is_an_error() {
        let stop = AtomicBool::new(true);
        let err = watch_files(
            &[PathBuf::from("/nonexistent-dir/rig.json")],
            &stop,
            || {},
            |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("/nonexistent-dir"), "{err}");
    }
}
