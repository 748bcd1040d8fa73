//! What an interrupted process leaves behind: temporary files, directories
//! it created, and child process groups (a preview's Chromium).
//!
//! # Method
//!
//! Whoever creates something that must not outlive the process registers it
//! ([`remove_on_signal`], [`remove_dir_on_signal`], [`kill_on_signal`]) and
//! keeps the returned [`Registered`] until the thing is gone or has become a
//! real output; dropping it forgets the registration. [`install`] starts the
//! one signal handler of the process (SIGINT and SIGTERM): it kills every
//! registered process group, removes the registered paths (newest first, so
//! a directory after the files in it), then ends the process by the same
//! signal with the default action, so a shell sees 130 (SIGINT) or 143
//! (SIGTERM). When a stop flag was given ([`stop_on_signal`], `bake
//! --watch`), the signal only sets the flag.
//!
//! Steps that must not be cut in half (the renames that put every output in
//! place) run under [`critical`]: the handler waits for them to finish, so
//! outputs are either all old or all new. The command's own end (an error
//! or a result) waits for the handler ([`yield_to_signal`]), so a signal
//! always ends the process by that signal.
//!
//! Without [`install`] (the library used on its own, tests) registering is
//! harmless bookkeeping.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

#[derive(Debug)]
enum Item {
    /// A temporary file, or a temporary directory with everything in it.
    Temp(PathBuf),
    /// A directory created for an output: removed only if empty.
    CreatedDir(PathBuf),
    /// A child process group (its leader's pid).
    Group(u32),
}

struct Registry {
    next: u64,
    items: Vec<(u64, Item)>,
    stop: Option<Arc<AtomicBool>>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    next: 0,
    items: Vec::new(),
    stop: None,
});

/// Held by [`critical`] sections; the handler takes it before cleaning up.
static GATE: Mutex<()> = Mutex::new(());

/// Set by the handler before it kills or removes anything, when it is
/// about to end the process by the signal.
static ENDING: AtomicBool = AtomicBool::new(false);

/// Where the process would end on its own (its result printed, an exit
/// code chosen): while the handler is ending it by a signal, wait for that
/// instead. A child the handler killed (a preview's Chromium) otherwise
/// let the command report the dead child and exit 2, and its temporaries
/// could outlive the process, before the handler re-raised the signal.
pub fn yield_to_signal() {
    while ENDING.load(Ordering::SeqCst) {
        std::thread::park();
    }
}

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A registration; dropping it forgets the item (without touching it).
#[derive(Debug)]
#[must_use = "dropping the registration forgets the item at once"]
pub struct Registered(u64);

impl Drop for Registered {
    fn drop(&mut self) {
        registry().items.retain(|(id, _)| *id != self.0);
    }
}

fn register(item: Item) -> Registered {
    let mut r = registry();
    r.next += 1;
    let id = r.next;
    r.items.push((id, item));
    Registered(id)
}

/// Remove this temporary file (or temporary directory, with its contents)
/// if the process is interrupted while the registration lives.
pub fn remove_on_signal(path: &Path) -> Registered {
    register(Item::Temp(path.to_path_buf()))
}

/// Remove this directory, only if it is empty, if the process is
/// interrupted while the registration lives.
pub fn remove_dir_on_signal(path: &Path) -> Registered {
    register(Item::CreatedDir(path.to_path_buf()))
}

/// Kill this child's process group (the child was started as its leader)
/// if the process is interrupted while the registration lives.
pub fn kill_on_signal(pid: u32) -> Registered {
    register(Item::Group(pid))
}

/// From now on SIGINT and SIGTERM only set `flag` (the caller stops on it).
pub fn stop_on_signal(flag: Arc<AtomicBool>) {
    registry().stop = Some(flag);
}

/// A section the signal handler waits for (see the module docs). Create
/// and register temporaries inside one, so that no temporary exists
/// unregistered.
pub fn critical() -> MutexGuard<'static, ()> {
    GATE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Sends SIGKILL to the process group led by `pid`.
#[cfg(unix)]
pub fn kill_group(pid: u32) {
    if let Ok(pid) = i32::try_from(pid) {
        // SAFETY: kill(2) has no memory-safety preconditions; a negative
        // pid names the process group.
        unsafe {
            libc::kill(-pid, libc::SIGKILL);
        }
    }
}

#[cfg(not(unix))]
pub fn kill_group(_pid: u32) {}

/// Kills the registered groups and removes the registered paths, newest
/// first. Returns true when a stop flag took the signal instead.
fn on_signal() -> bool {
    if let Some(flag) = &registry().stop {
        flag.store(true, Ordering::SeqCst);
        return true;
    }
    ENDING.store(true, Ordering::SeqCst);
    // Wait for a commit in progress; never released (the process ends).
    let gate = critical();
    std::mem::forget(gate);
    let items = std::mem::take(&mut registry().items);
    for (_, item) in &items {
        if let Item::Group(pid) = item {
            kill_group(*pid);
        }
    }
    for (_, item) in items.iter().rev() {
        match item {
            Item::Temp(p) => {
                if p.is_dir() {
                    let _ = std::fs::remove_dir_all(p);
                } else {
                    let _ = std::fs::remove_file(p);
                }
            }
            Item::CreatedDir(p) => {
                let _ = std::fs::remove_dir(p);
            }
            Item::Group(_) => {}
        }
    }
    false
}

/// Installs the process's SIGINT/SIGTERM handler (once; later calls do
/// nothing). The handler runs on its own thread.
#[cfg(unix)]
pub fn install() -> std::io::Result<()> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    std::thread::Builder::new()
        .name("rigbake-signals".into())
        .spawn(move || {
            for sig in signals.forever() {
                if !on_signal() {
                    let _ = signal_hook::low_level::emulate_default_handler(sig);
                }
            }
        })?;
    Ok(())
}

/// Installs the process's Ctrl-C handler (once; later calls do nothing);
/// an interrupted process exits with 130.
#[cfg(not(unix))]
pub fn install() -> std::io::Result<()> {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::SeqCst) {
        return Ok(());
    }
    ctrlc::set_handler(|| {
        if !on_signal() {
            std::process::exit(130);
        }
    })
    .map_err(std::io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dropping_a_registration_forgets_it() {
        let a = remove_on_signal(Path::new("/nonexistent/a"));
        let b = remove_dir_on_signal(Path::new("/nonexistent/b"));
        let n = |p: &str| {
            registry()
                .items
                .iter()
                .filter(
                    |(_, i)| matches!(i, Item::Temp(x) | Item::CreatedDir(x) if x == Path::new(p)),
                )
                .count()
        };
        assert_eq!((n("/nonexistent/a"), n("/nonexistent/b")), (1, 1));
        drop(a);
        assert_eq!((n("/nonexistent/a"), n("/nonexistent/b")), (0, 1));
        drop(b);
        assert_eq!(n("/nonexistent/b"), 0);
    }
}
