//! Watching input files for `rigbake bake --watch`.
//!
//! # Method
//!
//! Each watched file's *directory* is watched (non-recursively) through
//! `notify`, and events are filtered down to the watched file names and to
//! content changes: a file created, written (data modified, or closed after
//! writing), renamed or removed. Reading a file (opening, closing after
//! reading, access times) and metadata changes are not changes, so a bake's
//! own read of its inputs, or a `cat` of them, reports nothing. Watching
//! the directory rather than the file keeps working when an editor saves by
//! writing a new file and renaming it over the old one (the old inode, and a
//! watch on it, is gone after the first save). Events for one file within
//! [`DEBOUNCE`] of each other are merged into one, so an editor's
//! write-truncate-write or write-rename sequence is reported once.
//!
//! A watched directory that is removed is watched again as soon as it
//! exists again (checked every [`POLL`]); its files are then reported as
//! changed (and, while it is gone, as changed once when it goes).
//!
//! # Limits
//!
//! - A file is matched by its directory's canonical path plus its file name,
//!   and, where it is a symbolic link, by the canonical path of the file it
//!   leads to, whose directory is watched too (a save through the link or to
//!   the file it names is seen). A link pointed elsewhere is followed from
//!   its next report on.
//! - A report means "written", not "different": a save of the same bytes is
//!   reported; the caller compares contents (`bake --watch` does, and skips
//!   the bake).
//! - Relies on the platform's file notification (inotify on Linux); on
//!   network file systems without notifications nothing is reported.

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{Event, EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Quiet time after the last event for a file before it is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// How often the loop checks the stop flag and the watched directories
/// while no event arrives.
pub const POLL: Duration = Duration::from_millis(100);

/// What can go wrong while setting up or running a watch.
#[derive(Debug, thiserror::Error)]
pub enum WatchError {
    /// A watched file's directory does not exist or cannot be resolved.
    /// The OS error is the source (shown once, after this message).
    #[error("{}: cannot watch this directory", crate::input::shown_path(path))]
    Path {
        path: PathBuf,
        #[source]
        error: std::io::Error,
    },
    /// The file-notification backend failed (for example the inotify watch
    /// limit was reached); the backend's error is the source.
    #[error("file watching failed")]
    Notify(#[from] notify::Error),
}

/// The absolute path a watched file's events arrive under: canonical
/// directory joined with the file name (the file itself may not exist).
fn event_path(file: &Path) -> Result<(PathBuf, PathBuf), WatchError> {
    let name = file.file_name().ok_or_else(|| WatchError::Path {
        path: file.to_path_buf(),
        error: std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a file path"),
    })?;
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let dir = dir.canonicalize().map_err(|error| WatchError::Path {
        path: dir.to_path_buf(),
        error,
    })?;
    Ok((dir.join(name), dir))
}

/// Where a watched file's events arrive: [`event_path`], and where it is a
/// symbolic link, the canonical path of the file it leads to (with that
/// file's directory).
fn event_paths(file: &Path) -> Result<Vec<(PathBuf, PathBuf)>, WatchError> {
    let mut out = vec![event_path(file)?];
    if std::fs::symlink_metadata(file).is_ok_and(|m| m.file_type().is_symlink())
        && let Ok(real) = file.canonicalize()
        && let Some(dir) = real.parent()
        && real != out[0].0
    {
        out.push((real.clone(), dir.to_path_buf()));
    }
    Ok(out)
}

/// Whether an event of this kind can mean the file's bytes changed.
fn is_content_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(m) => !matches!(m, ModifyKind::Metadata(_)),
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// A directory's identity, `None` while it does not exist.
fn dir_id(dir: &Path) -> Option<(u64, u64)> {
    let m = std::fs::metadata(dir).ok().filter(|m| m.is_dir())?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        Some((0, 0))
    }
}

/// Calls `on_ready` once the watches are in place, then `on_change` with
/// the watched files whose content may have changed (as given in `files`,
/// in their order) after every debounced burst of changes, until `stop`
/// becomes true (checked at least every [`POLL`]). Returns `Ok(())` when
/// stopped; a notification backend error ends the watch with
/// [`WatchError::Notify`].
pub fn watch_files(
    files: &[PathBuf],
    stop: &AtomicBool,
    on_ready: impl FnOnce(),
    mut on_change: impl FnMut(&[PathBuf]),
) -> Result<(), WatchError> {
    // per file: the paths its events arrive under, with their directories
    let mut targets: Vec<Vec<(PathBuf, PathBuf)>> = Vec::with_capacity(files.len());
    // canonical directory -> identity when last armed
    let mut dirs: BTreeMap<PathBuf, Option<(u64, u64)>> = BTreeMap::new();
    for f in files {
        let paths = event_paths(f)?;
        for (_, dir) in &paths {
            dirs.insert(dir.clone(), None);
        }
        targets.push(paths);
    }
    let (tx, rx) = mpsc::channel::<notify::Result<Event>>();
    let mut watcher = RecommendedWatcher::new(tx, notify::Config::default())?;
    for (dir, id) in dirs.iter_mut() {
        watcher.watch(dir, RecursiveMode::NonRecursive)?;
        *id = dir_id(dir);
    }
    on_ready();
    // target index -> time of its latest event
    let mut pending: BTreeMap<usize, Instant> = BTreeMap::new();
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        let wait = pending
            .values()
            .map(|&t| (t + DEBOUNCE).saturating_duration_since(now))
            .min()
            .map_or(POLL, |d| d.min(POLL));
        match rx.recv_timeout(wait) {
            Ok(event) => {
                let event = event?;
                let all = event.need_rescan();
                if all || is_content_change(&event.kind) {
                    for (i, paths) in targets.iter().enumerate() {
                        if all
                            || event
                                .paths
                                .iter()
                                .any(|p| paths.iter().any(|(a, _)| p == a))
                        {
                            pending.insert(i, Instant::now());
                        }
                    }
                }
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
        // A directory removed, or removed and made again: re-arm.
        for (dir, armed) in dirs.iter_mut() {
            let id = dir_id(dir);
            if id == *armed {
                continue;
            }
            let _ = watcher.unwatch(dir);
            if id.is_some() {
                watcher.watch(dir, RecursiveMode::NonRecursive)?;
            }
            *armed = id;
            for (i, paths) in targets.iter().enumerate() {
                if paths.iter().any(|(_, d)| d == dir) {
                    pending.insert(i, Instant::now());
                }
            }
        }
        let now = Instant::now();
        let due: Vec<usize> = pending
            .iter()
            .filter(|&(_, &t)| now.duration_since(t) >= DEBOUNCE)
            .map(|(&i, _)| i)
            .collect();
        if !due.is_empty() {
            for &i in &due {
                pending.remove(&i);
                // a link pointed elsewhere: its new file's directory too
                if let Ok(paths) = event_paths(&files[i])
                    && paths != targets[i]
                {
                    for (_, dir) in &paths {
                        if !dirs.contains_key(dir) {
                            let id = dir_id(dir);
                            if id.is_some() {
                                watcher.watch(dir, RecursiveMode::NonRecursive)?;
                            }
                            dirs.insert(dir.clone(), id);
                        }
                    }
                    targets[i] = paths;
                }
            }
            let changed: Vec<PathBuf> = due.iter().map(|&i| files[i].clone()).collect();
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

    /// A watcher of `file` on a thread of its own: its stop flag, each
    /// report's files as they arrive, and the thread.
    #[allow(clippy::type_complexity)]
    fn watching(
        file: &std::path::Path,
    ) -> (
        Arc<AtomicBool>,
        mpsc::Receiver<Vec<PathBuf>>,
        std::thread::JoinHandle<Result<(), WatchError>>,
    ) {
        let stop = Arc::new(AtomicBool::new(false));
        let (tx, rx) = mpsc::channel();
        let (flag, file) = (stop.clone(), file.to_path_buf());
        let handle = std::thread::spawn(move || {
            watch_files(
                std::slice::from_ref(&file),
                &flag,
                || {},
                |c| {
                    tx.send(c.to_vec()).unwrap();
                },
            )
        });
        (stop, rx, handle)
    }

    /// A write to a watched file is reported once per burst; a write to a
    /// sibling file in the same directory is not reported.
    #[test]
    fn reports_the_watched_file_and_ignores_siblings() {
        let dir = tempfile::tempdir().unwrap();
        let rig = dir.path().join("rig.json");
        let other = dir.path().join("other.json");
        std::fs::write(&rig, "1").unwrap();
        let (stop, rx, handle) = watching(&rig);
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

    /// A watched file that is a symbolic link into another directory: a
    /// write to the file it names, a rename-save over that file and a write
    /// through the link are each reported once, under the name given; a
    /// sibling of the linked file is not.
    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_is_followed_to_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let (real, links) = (dir.path().join("real"), dir.path().join("links"));
        std::fs::create_dir(&real).unwrap();
        std::fs::create_dir(&links).unwrap();
        let file = real.join("s.json");
        std::fs::write(&file, "1").unwrap();
        let link = links.join("s.json");
        std::os::unix::fs::symlink("../real/s.json", &link).unwrap();
        let (stop, rx, handle) = watching(&link);
        std::thread::sleep(Duration::from_millis(300));
        let saves: [&dyn Fn(); 3] = [
            &|| std::fs::write(&file, "2").unwrap(),
            &|| {
                std::fs::write(real.join(".s.tmp"), "3").unwrap();
                std::fs::rename(real.join(".s.tmp"), &file).unwrap();
            },
            &|| std::fs::write(&link, "4").unwrap(),
        ];
        for (k, save) in saves.iter().enumerate() {
            std::fs::write(real.join("sibling.json"), "x").unwrap();
            save();
            let got = rx.recv_timeout(Duration::from_secs(5));
            assert_eq!(got.ok(), Some(vec![link.clone()]), "save {k}");
            // one report per save
            assert!(rx.recv_timeout(DEBOUNCE * 3).is_err(), "save {k} twice");
        }
        stop.store(true, Ordering::SeqCst);
        handle.join().unwrap().unwrap();
    }

    #[test]
    fn only_writes_count_as_changes() {
        use notify::event::{CreateKind, DataChange, MetadataKind, RemoveKind, RenameMode};
        for k in [
            EventKind::Access(AccessKind::Open(AccessMode::Any)),
            EventKind::Access(AccessKind::Close(AccessMode::Read)),
            EventKind::Access(AccessKind::Read),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime)),
            EventKind::Modify(ModifyKind::Metadata(MetadataKind::Any)),
            EventKind::Other,
        ] {
            assert!(!is_content_change(&k), "{k:?}");
        }
        for k in [
            EventKind::Create(CreateKind::File),
            EventKind::Modify(ModifyKind::Data(DataChange::Any)),
            EventKind::Modify(ModifyKind::Name(RenameMode::To)),
            EventKind::Access(AccessKind::Close(AccessMode::Write)),
            EventKind::Remove(RemoveKind::File),
        ] {
            assert!(is_content_change(&k), "{k:?}");
        }
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
