//! Everything the binary writes: output files (all or nothing, never over
//! an input, never rewritten when unchanged) and standard output.
//!
//! # Method
//!
//! [`write_all`] first refuses an output that is the same file as an input
//! or as another output (same device and inode when the file exists, else
//! the same canonical directory and name). An output whose file already
//! holds exactly these bytes is left alone (not even its mtime changes).
//! Every other output is written to a temporary `.rigbake-*` file beside it
//! (one at a time, possibly from several threads, through a [`Transaction`],
//! so a batch need not hold every output's bytes at once);
//! then, under [`interrupt::critical`], each existing target is kept as a
//! backup (a hard link, or a copy where links are refused) and the temporary
//! renamed over it. If any step fails, every target already replaced gets
//! its backup back (or is removed if it is new), so either every output is
//! replaced or none is. Temporaries and backups never outlive the call, and
//! a failed call removes the directories it created (one by one, only if
//! empty). SIGINT/SIGTERM during the staging removes the temporaries and the
//! created directories ([`interrupt`]); the renames are not interrupted.
//!
//! An output path that is a symbolic link names the file the link leads
//! to: that file is replaced (or made) as above and the link stays. An
//! output that is neither a regular file nor a directory (a device such as
//! `/dev/null`, a FIFO) cannot be replaced by a rename without removing it:
//! its bytes are written into it in place, once every output is staged and
//! before any is replaced, so a failure there (`/dev/full`) still leaves
//! every other output untouched (what was written into the device itself
//! cannot be taken back).
//!
//! What a command prints on standard output (an SVG or report sent to
//! `-`, a table, the summary) is printed after its files are staged and
//! before they are committed ([`write_all_then`]): if standard output
//! cannot take it, no file is written.

use anyhow::{Context, Result, anyhow, bail};
use rigbake::interrupt;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

/// One file to write: which option named it (`-o`, `--report`, `--plot`).
pub(crate) struct Output<'a> {
    pub what: &'static str,
    pub path: PathBuf,
    pub bytes: &'a [u8],
}

/// One file read: what it is (`rig`, `drawing`). Standard input (`-`) is
/// not a file and never conflicts.
pub(crate) struct Input<'a> {
    pub what: &'static str,
    pub path: &'a Path,
}

impl<'a> Input<'a> {
    /// A rig file read.
    pub(crate) fn rig(path: &'a Path) -> Self {
        Input { what: "rig", path }
    }

    /// Every rig file of a batch.
    pub(crate) fn rigs(paths: &'a [PathBuf]) -> Vec<Self> {
        paths.iter().map(|p| Input::rig(p)).collect()
    }
}

impl<'a> Output<'a> {
    pub(crate) fn new(what: &'static str, path: impl Into<PathBuf>, bytes: &'a [u8]) -> Self {
        Output {
            what,
            path: path.into(),
            bytes,
        }
    }
}

/// Where a path leads: the file's identity when it exists, and its
/// canonical directory joined with its name (resolving `.`, `..` and links
/// of every directory that exists).
#[derive(Debug, PartialEq)]
struct Resolved {
    id: Option<(u64, u64)>,
    name: Option<PathBuf>,
}

impl Resolved {
    fn of(path: &Path) -> Self {
        // (a link that leads nowhere yet names the file it would make)
        let path = link_target(path).unwrap_or_else(|_| path.to_path_buf());
        Resolved {
            id: file_id(&path),
            name: canonical_name(&path),
        }
    }

    /// Whether two paths are the same file (the rule [`Seen`] applies).
    #[cfg(test)]
    fn same(&self, other: &Resolved) -> bool {
        (self.id.is_some() && self.id == other.id)
            || (self.name.is_some() && self.name == other.name)
    }
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(_path: &Path) -> Option<(u64, u64)> {
    None
}

/// The longest existing ancestor canonicalised, then the rest of the path
/// applied lexically.
fn canonical_name(path: &Path) -> Option<PathBuf> {
    let abs = std::path::absolute(path).ok()?;
    let comps: Vec<Component> = abs.components().collect();
    for split in (1..=comps.len()).rev() {
        let head: PathBuf = comps[..split].iter().collect();
        if let Ok(mut out) = head.canonicalize() {
            for c in &comps[split..] {
                match c {
                    Component::CurDir => {}
                    Component::ParentDir => {
                        out.pop();
                    }
                    other => out.push(other),
                }
            }
            return Some(out);
        }
    }
    None
}

/// The paths seen so far, by file identity and by canonical name, each
/// with the index of the first path that had it. Two paths are the same
/// file when both have an identity and it is equal, or both have a name and
/// it is equal; finding the first earlier path that is the same file as a
/// new one takes two lookups, so thousands of outputs are checked in linear
/// time.
#[derive(Default)]
struct Seen {
    by_id: HashMap<(u64, u64), usize>,
    by_name: HashMap<PathBuf, usize>,
}

impl Seen {
    fn add(&mut self, r: Resolved, index: usize) {
        if let Some(id) = r.id {
            self.by_id.entry(id).or_insert(index);
        }
        if let Some(name) = r.name {
            self.by_name.entry(name).or_insert(index);
        }
    }

    /// The first path added that is the same file as `r`.
    fn first_same(&self, r: &Resolved) -> Option<usize> {
        let by_id = r.id.and_then(|id| self.by_id.get(&id));
        let by_name = r.name.as_ref().and_then(|n| self.by_name.get(n));
        by_id.into_iter().chain(by_name).min().copied()
    }
}

/// Refuses an output that is an input or another output (see module docs).
pub(crate) fn check_distinct(outputs: &[Output], inputs: &[Input]) -> Result<()> {
    let mut ins = Seen::default();
    for (k, i) in inputs.iter().enumerate() {
        if i.path != Path::new("-") {
            ins.add(Resolved::of(i.path), k);
        }
    }
    let mut outs = Seen::default();
    for (k, o) in outputs.iter().enumerate() {
        let r = Resolved::of(&o.path);
        if let Some(i) = ins.first_same(&r).map(|k| &inputs[k]) {
            bail!(
                "{}: {}: would overwrite the {} {}; nothing written",
                o.path.display(),
                o.what,
                i.what,
                i.path.display()
            );
        }
        if let Some(first) = outs.first_same(&r).map(|k| &outputs[k]) {
            if first.what == o.what {
                bail!(
                    "{}: {}: two outputs would be written to this one file (do two rigs share a \"name\"?); nothing written",
                    o.path.display(),
                    o.what
                );
            }
            bail!(
                "{}: {}: would overwrite the output of {} ({}); nothing written",
                o.path.display(),
                o.what,
                first.what,
                first.path.display()
            );
        }
        outs.add(r, k);
    }
    Ok(())
}

/// Writes every output or none (see the module docs).
pub(crate) fn write_all(outputs: &[Output], inputs: &[Input]) -> Result<()> {
    write_all_then(outputs, inputs, || Ok(()))
}

/// [`write_all`], calling `print` (what the command prints on standard
/// output) once every output is staged and before any is committed: when
/// it fails, nothing is written.
pub(crate) fn write_all_then(
    outputs: &[Output],
    inputs: &[Input],
    print: impl FnOnce() -> Result<()>,
) -> Result<()> {
    check_distinct(outputs, inputs)?;
    let tx = Transaction::new();
    let mut staged = Vec::with_capacity(outputs.len());
    for o in outputs {
        staged.extend(tx.stage(o)?);
    }
    print()?;
    tx.commit(staged)
}

/// The most symbolic links [`link_target`] follows in a row (Linux's own
/// limit).
const MAX_LINKS: usize = 40;

/// Where writing to `path` lands: `path` itself or, where it is a symbolic
/// link (however many in a row), the file the links lead to, which need
/// not exist yet. Renaming a file over the link itself would cut it.
fn link_target(path: &Path) -> Result<PathBuf> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p)
                    .with_context(|| format!("{}: cannot read the link", p.display()))?;
                // (an absolute `to` replaces the directory it is joined to)
                p = match p.parent() {
                    Some(d) => d.join(to),
                    None => to,
                };
            }
            _ => return Ok(p),
        }
    }
    bail!("{}: too many levels of symbolic links", path.display())
}

/// Whether `path` is neither a regular file nor a directory: a device, a
/// FIFO, a socket (see the module docs).
fn special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir())
}

/// Whether `path` is a file that already holds exactly `bytes`.
fn unchanged(path: &Path, bytes: &[u8]) -> bool {
    match std::fs::metadata(path) {
        Ok(m) if m.is_file() && m.len() == bytes.len() as u64 => {
            std::fs::read(path).is_ok_and(|old| old == bytes)
        }
        _ => false,
    }
}

/// One output ready for [`Transaction::commit`].
pub(crate) enum Staged {
    /// Written to its temporary file (closed, so a batch of thousands
    /// holds no descriptors), to be renamed over `path`. Dropping it
    /// removes the temporary.
    Renamed {
        tmp: tempfile::TempPath,
        _on_signal: interrupt::Registered,
        path: PathBuf,
    },
    /// A special file's bytes, to be written into it in place.
    InPlace { path: PathBuf, bytes: Vec<u8> },
}

impl Staged {
    /// The bytes staged for `target` (what [`Transaction::stage`] returned
    /// for it), read back: from the temporary, from the bytes kept for a
    /// special file, or, when nothing was staged because the target already
    /// held them, from the target. So a caller that still needs an output's
    /// bytes after staging it (the gallery's frame strips) need not hold
    /// them meanwhile.
    pub(crate) fn read_back(staged: Option<&Staged>, target: &Path) -> Result<Vec<u8>> {
        let from = match staged {
            Some(Staged::InPlace { bytes, .. }) => return Ok(bytes.clone()),
            Some(Staged::Renamed { tmp, .. }) => tmp.to_path_buf(),
            None => target.to_path_buf(),
        };
        std::fs::read(&from).with_context(|| format!("{}: cannot read back", target.display()))
    }
}

/// Outputs written all or nothing, one at a time: [`Transaction::stage`]
/// each output as soon as its bytes exist (from any thread; the bytes can
/// then be dropped), then [`Transaction::commit`] them all. [`write_all`]
/// is the one-call form. A transaction dropped without a successful commit
/// removes the directories it created (innermost first, only if empty);
/// drop its [`Staged`] files first (their temporaries are in them).
pub(crate) struct Transaction {
    /// Every directory this transaction made, outermost first.
    created: Mutex<Vec<(PathBuf, interrupt::Registered)>>,
    committed: bool,
}

impl Drop for Transaction {
    fn drop(&mut self) {
        if self.committed {
            return;
        }
        let created = self.created.get_mut().unwrap_or_else(|e| e.into_inner());
        for (dir, _) in created.iter().rev() {
            let _ = std::fs::remove_dir(dir);
        }
    }
}

impl Transaction {
    pub(crate) fn new() -> Self {
        Transaction {
            created: Mutex::new(Vec::new()),
            committed: false,
        }
    }

    /// Writes `o` to a registered temporary file beside its target (the
    /// file a symbolic link leads to), keeps its bytes for a special file,
    /// or does nothing (`None`) when the target already holds exactly these
    /// bytes.
    pub(crate) fn stage(&self, o: &Output) -> Result<Option<Staged>> {
        if o.path.is_dir() {
            bail!("{}: is a directory, expected a file path", o.path.display());
        }
        let target = link_target(&o.path)?;
        let path = target.as_path();
        if special(path) {
            return Ok(Some(Staged::InPlace {
                path: path.to_path_buf(),
                bytes: o.bytes.to_vec(),
            }));
        }
        if unchanged(path, o.bytes) {
            return Ok(None);
        }
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        // one stat: another bake may remove the directory between two
        match std::fs::metadata(&dir) {
            Ok(m) if !m.is_dir() => bail!("{}: is not a directory", dir.display()),
            // the directories a path names are made, not those a link
            // leads to (a link is someone's pointer elsewhere: a slip
            // there would make directories anywhere)
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && target != o.path => bail!(
                "{}: is a symbolic link to {}, whose directory does not exist",
                o.path.display(),
                target.display()
            ),
            _ => {}
        }
        let mut builder = tempfile::Builder::new();
        builder.prefix(".rigbake-");
        // A replaced file keeps its mode exactly (set on the open file after
        // creation, which the umask does not mask); a new one gets 0666
        // less the umask.
        let kept_mode = std::fs::metadata(path).ok().map(|m| m.permissions());
        builder.permissions(new_file_permissions());
        // Another bake may remove an empty directory it created just as
        // this one starts using it (ENOENT): make the path again, a few times.
        let mut attempt = 0;
        let (mut tmp, reg) = loop {
            attempt += 1;
            let made = self.create_dirs(&dir).and_then(|()| {
                let _gate = interrupt::critical();
                // (tempfile's error names the temporary; keep only the cause)
                let tmp = builder
                    .tempfile_in(&dir)
                    .map_err(|e| (dir.clone(), std::io::Error::from(e.kind())))?;
                let reg = interrupt::remove_on_signal(tmp.path());
                Ok((tmp, reg))
            });
            match made {
                Ok(t) => break t,
                Err((_, e)) if e.kind() == std::io::ErrorKind::NotFound && attempt < 8 => {}
                Err((d, e)) if d == dir && dir.is_dir() => {
                    return Err(anyhow!(e)).with_context(|| {
                        format!("{}: cannot write in this directory", d.display())
                    });
                }
                Err((d, e)) => {
                    return Err(anyhow!(e))
                        .with_context(|| format!("{}: cannot create directory", d.display()));
                }
            }
        };
        if let Some(mode) = kept_mode {
            tmp.as_file()
                .set_permissions(mode)
                .with_context(|| format!("{}: cannot keep its mode", path.display()))?;
        }
        stall_for_tests();
        tmp.write_all(o.bytes)
            .and_then(|_| tmp.flush())
            .with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(Some(Staged::Renamed {
            tmp: tmp.into_temp_path(),
            _on_signal: reg,
            path: path.to_path_buf(),
        }))
    }

    /// Puts every staged file in place in the given order, or none (see
    /// the module docs); on failure also removes the directories made.
    /// Special files are written first, outside the critical section (a
    /// FIFO's write waits for a reader and may be interrupted): when one
    /// fails, nothing is replaced yet.
    pub(crate) fn commit(mut self, staged: Vec<Staged>) -> Result<()> {
        let (in_place, renamed): (Vec<Staged>, Vec<Staged>) = staged
            .into_iter()
            .partition(|s| matches!(s, Staged::InPlace { .. }));
        for s in &in_place {
            if let Staged::InPlace { path, bytes } = s {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(path)
                    .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
                    .with_context(|| format!("{}: cannot write", path.display()))?;
            }
        }
        commit(renamed)?;
        self.committed = true;
        Ok(())
    }

    /// Creates `dir` and its missing ancestors one at a time, recording
    /// each one this process created (a directory someone else, or another
    /// thread, creates meanwhile is not recorded twice).
    fn create_dirs(&self, dir: &Path) -> Result<(), (PathBuf, std::io::Error)> {
        self.create_dirs_by(dir, |d| std::fs::create_dir(d))
    }

    /// [`Transaction::create_dirs`], making each directory with `mkdir`.
    /// A directory that `mkdir` finds existing but that is gone when looked
    /// at (another bake made it and, failing, removed it again) is reported
    /// as not found, which [`Transaction::stage`] tries again like a
    /// directory removed before `mkdir`.
    fn create_dirs_by(
        &self,
        dir: &Path,
        mkdir: impl Fn(&Path) -> std::io::Result<()>,
    ) -> Result<(), (PathBuf, std::io::Error)> {
        if dir.is_dir() {
            return Ok(());
        }
        let mut missing = Vec::new();
        let mut cur = dir;
        loop {
            if cur.as_os_str().is_empty() || cur.exists() {
                break;
            }
            missing.push(cur.to_path_buf());
            match cur.parent() {
                Some(p) => cur = p,
                None => break,
            }
        }
        for d in missing.into_iter().rev() {
            let _gate = interrupt::critical();
            match mkdir(&d) {
                Ok(()) => {
                    let reg = interrupt::remove_dir_on_signal(&d);
                    self.created
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((d, reg));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && d.is_dir() => {}
                Err(e)
                    if e.kind() == std::io::ErrorKind::AlreadyExists
                        && std::fs::symlink_metadata(&d).is_err() =>
                {
                    return Err((d, std::io::ErrorKind::NotFound.into()));
                }
                // (a link that leads nowhere, or round in a loop)
                Err(e)
                    if e.kind() == std::io::ErrorKind::AlreadyExists
                        && std::fs::symlink_metadata(&d).is_ok_and(|m| m.is_symlink()) =>
                {
                    let why = "a symbolic link that leads to no directory";
                    return Err((d, std::io::Error::other(why)));
                }
                Err(e) => return Err((d, e)),
            }
        }
        Ok(())
    }
}

/// Puts every staged file in place, or restores every target (see module
/// docs). Runs as one critical section.
fn commit(staged: Vec<Staged>) -> Result<()> {
    let _gate = interrupt::critical();
    let mut done: Vec<(&Path, Option<tempfile::NamedTempFile<()>>)> = Vec::new();
    let mut failure = None;
    let renamed = staged.iter().filter_map(|s| match s {
        Staged::Renamed { tmp, path, .. } => Some((tmp, path)),
        Staged::InPlace { .. } => None,
    });
    for (tmp, path) in renamed {
        let backup = match backup(path) {
            Ok(b) => b,
            Err(e) => {
                failure = Some(e);
                break;
            }
        };
        match std::fs::rename(&**tmp, path) {
            Ok(()) => done.push((path, backup)),
            Err(e) => {
                failure = Some(anyhow!("{}: cannot replace: {e}", path.display()));
                break;
            }
        }
    }
    let Some(failure) = failure else {
        // The temporaries are the outputs now: forget their names (the
        // backups are removed as they drop).
        for s in staged {
            if let Staged::Renamed { tmp, .. } = s {
                let _ = tmp.keep();
            }
        }
        return Ok(());
    };
    for (path, backup) in done.into_iter().rev() {
        let _ = match backup {
            Some(b) => std::fs::rename(b.path(), path),
            None => std::fs::remove_file(path),
        };
    }
    Err(failure)
}

/// Keeps the current content of `path` (if it exists) under a temporary
/// name beside it: a hard link, else a copy. Removed when dropped.
fn backup(path: &Path) -> Result<Option<tempfile::NamedTempFile<()>>> {
    // (a symbolic link is kept as a link: hard_link does not follow it)
    if !std::fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir()) {
        return Ok(None);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    tempfile::Builder::new()
        .prefix(".rigbake-old-")
        .make_in(dir, |p| match std::fs::hard_link(path, p) {
            Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => {
                std::fs::copy(path, p).map(|_| ())
            }
            other => other,
        })
        .map(Some)
        .with_context(|| format!("{}: cannot keep a backup while replacing", path.display()))
}

/// What a newly created file gets: 0666, which the OS masks with the umask.
#[cfg(unix)]
fn new_file_permissions() -> std::fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    std::fs::Permissions::from_mode(0o666)
}

#[cfg(not(unix))]
fn new_file_permissions() -> std::fs::Permissions {
    let f = tempfile::tempfile().expect("a temporary file for default permissions");
    f.metadata().expect("its metadata").permissions()
}

/// Test hook (debug builds only): `RIGBAKE_TEST_STALL_MS` sleeps after each
/// temporary file is created, so a test can signal the process mid-write.
fn stall_for_tests() {
    #[cfg(debug_assertions)]
    if let Some(ms) = std::env::var("RIGBAKE_TEST_STALL_MS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// Refuses `-` (standard output) as the `flag` path of a command that
/// writes only files (`-` would otherwise be a file or directory named
/// `-`), or of one whose standard output is taken: `why` says so and what
/// to name instead.
pub(crate) fn refuse_stdout(flag: &str, path: &Path, why: &str) -> Result<()> {
    if path == Path::new("-") {
        anyhow::bail!("{flag} -: {why}");
    }
    Ok(())
}

/// Writes `text` to standard output. A closed pipe (`rigbake ... | head`)
/// drops the rest quietly; any other failure (a full disk, standard output
/// closed) is an error.
pub(crate) fn stdout(text: &str) -> Result<()> {
    stdout_by(|| std::io::stdout().lock().write_all(text.as_bytes()))
}

/// Runs `write`, which writes to standard output itself (clap's help and
/// version), then flushes standard output, with the rules of [`stdout`].
pub(crate) fn stdout_by(write: impl FnOnce() -> std::io::Result<()>) -> Result<()> {
    if stdout_closed() {
        bail!("standard output: cannot write: it is closed");
    }
    match write().and_then(|_| std::io::stdout().lock().flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(anyhow!("standard output: cannot write: {e}"))
        }
        _ => Ok(()),
    }
}

/// Whether the process was started with standard output closed. The Rust
/// runtime then opens /dev/null read-write on descriptor 1 before `main`
/// (a shell's `>/dev/null` opens it write-only), and writes would vanish.
#[cfg(unix)]
fn stdout_closed() -> bool {
    static CLOSED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *CLOSED.get_or_init(|| {
        // SAFETY: fstat and fcntl only read the descriptor's state into
        // the zeroed struct we own.
        unsafe {
            let mut st: libc::stat = std::mem::zeroed();
            if libc::fstat(1, &mut st) != 0 {
                return true;
            }
            let flags = libc::fcntl(1, libc::F_GETFL);
            (st.st_mode & libc::S_IFMT) == libc::S_IFCHR
                && st.st_rdev == libc::makedev(1, 3)
                && flags >= 0
                && (flags & libc::O_ACCMODE) == libc::O_RDWR
        }
    })
}

#[cfg(not(unix))]
fn stdout_closed() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way a directory can come and go under `create_dirs` while
    /// another bake makes and removes it: made meanwhile (kept, not
    /// recorded as ours), made and removed again (not found: `stage` tries
    /// again), a file in its place (an error naming it).
    #[test]
    fn a_directory_another_bake_makes_or_removes_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let target = d.join("a/b");
        let exists = || Err(std::io::ErrorKind::AlreadyExists.into());

        // made by the other bake just before ours: it exists, nothing recorded
        let t = Transaction::new();
        let made_meanwhile = |p: &Path| std::fs::create_dir(p).and_then(|()| exists());
        assert!(t.create_dirs_by(&target, made_meanwhile).is_ok());
        assert!(target.is_dir());
        assert!(t.created.lock().unwrap().is_empty());
        std::fs::remove_dir_all(d.join("a")).unwrap();

        // made and removed again before we look: not found, for a retry
        let t = Transaction::new();
        match t.create_dirs_by(&target, |_| exists()) {
            Err((p, e)) => {
                assert_eq!(p, d.join("a"));
                assert_eq!(e.kind(), std::io::ErrorKind::NotFound);
            }
            Ok(()) => panic!("a vanished directory was taken as made"),
        }
        // the retry makes both levels and records them, outermost first
        assert!(t.create_dirs(&target).is_ok());
        let made: Vec<PathBuf> = t
            .created
            .lock()
            .unwrap()
            .iter()
            .map(|c| c.0.clone())
            .collect();
        assert_eq!(made, vec![d.join("a"), target.clone()]);
        drop(t);
        assert!(
            !d.join("a").exists(),
            "an uncommitted transaction keeps its directories"
        );

        // a file where the directory should be: that error, no retry
        std::fs::write(d.join("a"), "x").unwrap();
        let t = Transaction::new();
        match t.create_dirs(&target) {
            Err((p, e)) => {
                assert_eq!(p, target);
                assert_ne!(e.kind(), std::io::ErrorKind::NotFound);
            }
            Ok(()) => panic!("a directory was made inside a file"),
        }
    }

    #[test]
    fn spellings_of_one_file_resolve_alike() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("rig.json"), "{}").unwrap();
        let rig = Resolved::of(&d.join("rig.json"));
        for other in [
            d.join("sub/../rig.json"),
            d.join("./rig.json"),
            d.join("sub/./../sub/../rig.json"),
        ] {
            assert!(rig.same(&Resolved::of(&other)), "{}", other.display());
        }
        // not yet existing files: same canonical directory and name
        let a = Resolved::of(&d.join("new/x/../o.svg"));
        assert!(a.same(&Resolved::of(&d.join("new/o.svg"))));
        assert!(!a.same(&Resolved::of(&d.join("new/p.svg"))));
        assert!(!rig.same(&a));
    }

    #[cfg(unix)]
    #[test]
    fn seen_finds_the_first_earlier_path_that_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("sub")).unwrap();
        std::fs::write(d.join("a.svg"), "a").unwrap();
        std::fs::hard_link(d.join("a.svg"), d.join("sub/link.svg")).unwrap();
        let paths = [
            d.join("new.svg"),
            d.join("a.svg"),
            d.join("sub/../new.svg"),
            d.join("sub/link.svg"),
            d.join("other.svg"),
            d.join("./a.svg"),
            d.join("sub/x/../../other.svg"),
        ];
        let resolved: Vec<Resolved> = paths.iter().map(|p| Resolved::of(p)).collect();
        let mut seen = Seen::default();
        for (k, r) in resolved.iter().enumerate() {
            let linear = resolved[..k].iter().position(|e| e.same(r));
            assert_eq!(seen.first_same(r), linear, "{}", paths[k].display());
            seen.add(Resolved::of(&paths[k]), k);
        }
        // (new.svg twice, a.svg through a link and a spelling, other.svg)
        assert_eq!(seen.first_same(&Resolved::of(&d.join("new.svg"))), Some(0));
        assert_eq!(
            seen.first_same(&Resolved::of(&d.join("sub/link.svg"))),
            Some(1)
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_hard_link_is_the_same_file() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.json");
        std::fs::write(&a, "{}").unwrap();
        std::fs::hard_link(&a, dir.path().join("b.json")).unwrap();
        assert!(Resolved::of(&a).same(&Resolved::of(&dir.path().join("b.json"))));
    }

    #[test]
    fn an_unchanged_output_keeps_its_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("o.svg");
        std::fs::write(&p, "same").unwrap();
        let old = std::fs::File::open(&p).unwrap();
        let t = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000);
        old.set_modified(t).unwrap();
        write_all(&[Output::new("-o", &p, b"same")], &[]).unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().modified().unwrap(), t);
        write_all(&[Output::new("-o", &p, b"new")], &[]).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"new");
    }
}
