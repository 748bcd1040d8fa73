//! `rigbake bake --watch`: a save of the rig re-bakes within 2 s, a broken
//! save prints the error and keeps the last good output, and Ctrl-C (SIGINT)
//! ends the process with exit 0. Every wait is bounded; the child is killed
//! if the test fails half-way.

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// Kills the child when the test ends, however it ends.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lines of a child's stream, read on a thread.
fn lines(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// Waits (at most `limit`) for a line containing `needle`.
fn wait_line(rx: &Receiver<String>, needle: &str, limit: Duration) -> String {
    let deadline = Instant::now() + limit;
    let mut seen = Vec::new();
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) if l.contains(needle) => return l,
            Ok(l) => seen.push(l),
            Err(_) => panic!("no line with {needle:?} within {limit:?}; saw {seen:?}"),
        }
    }
}

/// Waits (at most `limit`) until `path` holds something other than `old`.
fn wait_change(path: &Path, old: &str, limit: Duration) -> Option<(String, Duration)> {
    let start = Instant::now();
    while start.elapsed() < limit {
        if let Ok(now) = std::fs::read_to_string(path)
            && now != old
        {
            return Some((now, start.elapsed()));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

#[test]
fn rebakes_on_save_survives_a_broken_save_and_exits_0_on_ctrl_c() {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("rig.json");
    let out = dir.path().join("out.svg");
    let seed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/seed-nested.json"),
    )
    .unwrap();
    assert!(seed.contains("\"thigh\": 128"));
    std::fs::write(&rig, &seed).unwrap();

    let child = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .args(["bake", "--watch", "-o"])
        .arg(&out)
        .arg(&rig)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut guard = Guard(child);
    let stdout = lines(guard.0.stdout.take().unwrap());
    let stderr = lines(guard.0.stderr.take().unwrap());

    // The first bake happens before watching starts.
    wait_line(&stdout, "seed-nested (css", Duration::from_secs(20));
    wait_line(&stderr, "watching 1 file", Duration::from_secs(20));
    let first = std::fs::read_to_string(&out).unwrap();
    // (the seed's near thigh, a bone of the tree the rig loads as)
    assert!(first.contains("-b-near_thigh{"));

    // Lengthen the thighs: the output changes within 2 s.
    std::fs::write(&rig, seed.replace("\"thigh\": 128", "\"thigh\": 131")).unwrap();
    let (second, took) = wait_change(&out, &first, Duration::from_secs(2))
        .expect("output did not change within 2 s of the save");
    assert!(second.contains("-b-near_thigh{"), "{second}");
    eprintln!("re-baked {took:?} after the save");
    wait_line(&stdout, "seed-nested (css", Duration::from_secs(5));

    // A broken save: error printed, previous output kept, still running.
    std::fs::write(&rig, "{ \"name\": \"seed-nested\", ").unwrap();
    let err = wait_line(&stderr, "rigbake: error:", Duration::from_secs(5));
    assert!(err.contains("rig.json"), "{err}");
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), second);
    assert!(
        guard.0.try_wait().unwrap().is_none(),
        "watch process exited"
    );

    // Fixing the file bakes again.
    std::fs::write(&rig, &seed).unwrap();
    let (third, _) = wait_change(&out, &second, Duration::from_secs(2))
        .expect("no re-bake after fixing the rig");
    assert_eq!(third, first, "same rig, same bytes");

    // Ctrl-C: exit 0, promptly.
    let pid = guard.0.id().to_string();
    let sent = Command::new("kill").args(["-INT", &pid]).status().unwrap();
    assert!(sent.success());
    let deadline = Instant::now() + Duration::from_secs(5);
    let status = loop {
        if let Some(s) = guard.0.try_wait().unwrap() {
            break s;
        }
        assert!(Instant::now() < deadline, "still running 5 s after SIGINT");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
}

#[test]
fn watch_refuses_standard_output() {
    let out = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["bake", "--watch", "-o", "-", "rigs/seed-nested.json"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--watch"));
}

#[test]
fn saving_the_drawing_rebakes_with_art() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let art = dir.path().join("drawing.svg");
    let out = dir.path().join("animated.svg");
    let drawing = std::fs::read_to_string(root.join("tests/fixtures/art/cyclist.svg")).unwrap();
    std::fs::write(&art, &drawing).unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .current_dir(root)
        .args([
            "bake",
            "rigs/seed-nested.json",
            "--watch",
            "--quiet",
            "--art",
        ])
        .arg(&art)
        .arg("-o")
        .arg(&out)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut guard = Guard(child);
    let stderr = lines(guard.0.stderr.take().unwrap());
    wait_line(&stderr, "watching 2 file", Duration::from_secs(20));
    let first = std::fs::read_to_string(&out).unwrap();
    assert!(first.contains("#457b9d"));

    std::fs::write(&art, drawing.replace("#457b9d", "#2a9d8f")).unwrap();
    let (second, _) = wait_change(&out, &first, Duration::from_secs(2))
        .expect("output did not change within 2 s of saving the drawing");
    assert!(second.contains("#2a9d8f") && second.contains("@keyframes"));

    // A drawing saved without its shin: error, previous output kept.
    std::fs::write(&art, drawing.replace("id=\"shin-near\"", "id=\"leg\"")).unwrap();
    let err = wait_line(&stderr, "rigbake: error:", Duration::from_secs(5));
    assert!(err.contains("shin-near"), "{err}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), second);
    assert!(
        guard.0.try_wait().unwrap().is_none(),
        "watch process exited"
    );
}

/// Every line that arrives within `d`.
fn drain(rx: &Receiver<String>, d: Duration) -> Vec<String> {
    let deadline = Instant::now() + d;
    let mut got = Vec::new();
    while let Ok(l) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        got.push(l);
    }
    got
}

/// A running `bake --watch` of `rig` into `out`, after its first bake.
struct Watching {
    guard: Guard,
    stdout: Receiver<String>,
    stderr: Receiver<String>,
}

fn start_watch(rig: &Path, out: &Path) -> Watching {
    let child = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .args(["bake", "--watch", "-o"])
        .arg(out)
        .arg(rig)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut guard = Guard(child);
    let stdout = lines(guard.0.stdout.take().unwrap());
    let stderr = lines(guard.0.stderr.take().unwrap());
    wait_line(&stdout, "seed-nested (css", Duration::from_secs(20));
    wait_line(&stderr, "watching 1 file", Duration::from_secs(20));
    Watching {
        guard,
        stdout,
        stderr,
    }
}

impl Watching {
    /// Bakes (summary lines) and bake announcements within `d`.
    fn bakes_within(&self, d: Duration) -> (usize, Vec<String>) {
        let err = drain(&self.stderr, d);
        let bakes = drain(&self.stdout, Duration::from_millis(50))
            .iter()
            .filter(|l| l.starts_with("seed-nested (css"))
            .count();
        (bakes, err)
    }
}

fn seed_text() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/seed-nested.json"))
        .unwrap()
}

/// A scratch directory holding the seed rig as `rig.json` (its text
/// returned) and the path of an output `out.svg` beside it.
fn seed_in_scratch() -> (tempfile::TempDir, PathBuf, PathBuf, String) {
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("rig.json");
    let out = dir.path().join("out.svg");
    let seed = seed_text();
    std::fs::write(&rig, &seed).unwrap();
    (dir, rig, out, seed)
}

/// Identity and mtime of a file: unchanged means not rewritten.
fn stamp(p: &Path) -> (u64, std::time::SystemTime) {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(p).unwrap();
    (m.ino(), m.modified().unwrap())
}

/// One save bakes exactly once; reading the rig afterwards (20 `cat`s,
/// the bake's own read) bakes nothing and leaves the output alone.
#[test]
fn one_save_bakes_once_and_reads_bake_nothing() {
    let (_dir, rig, out, seed) = seed_in_scratch();
    let mut w = start_watch(&rig, &out);
    let (bakes, err) = w.bakes_within(Duration::from_millis(800));
    assert_eq!(bakes, 0, "baked without a save: {err:?}");

    std::fs::write(&rig, seed.replace("\"thigh\": 128", "\"thigh\": 131")).unwrap();
    let (bakes, err) = w.bakes_within(Duration::from_millis(1500));
    assert_eq!(bakes, 1, "{err:?}");
    assert_eq!(
        err.iter().filter(|l| l.contains("changed, baking")).count(),
        1
    );
    let after_save = stamp(&out);

    for _ in 0..20 {
        let st = Command::new("cat")
            .arg(&rig)
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(st.success());
        std::thread::sleep(Duration::from_millis(20));
    }
    let (bakes, err) = w.bakes_within(Duration::from_millis(1500));
    assert_eq!(bakes, 0, "reading the rig baked: {err:?}");
    assert!(err.is_empty(), "{err:?}");
    assert_eq!(stamp(&out), after_save, "output rewritten");
    assert!(w.guard.0.try_wait().unwrap().is_none(), "watch exited");
}

/// A save of the same bytes bakes nothing; a save that changes the rig but
/// not the output (spacing) bakes, and leaves the output file alone.
#[test]
fn same_bytes_bake_nothing_and_same_output_is_not_rewritten() {
    let (_dir, rig, out, seed) = seed_in_scratch();
    let w = start_watch(&rig, &out);
    let first = stamp(&out);

    std::fs::write(&rig, &seed).unwrap();
    let (bakes, err) = w.bakes_within(Duration::from_millis(1000));
    assert_eq!(bakes, 0, "{err:?}");

    std::fs::write(&rig, format!("{seed}\n\n")).unwrap();
    let (bakes, err) = w.bakes_within(Duration::from_millis(1500));
    assert_eq!(bakes, 1, "{err:?}");
    assert_eq!(stamp(&out), first, "identical output rewritten");
}

/// The rig's directory removed and made again: the watch re-arms, and the
/// next save there bakes (once).
#[test]
fn a_removed_and_recreated_directory_is_watched_again() {
    let dir = tempfile::tempdir().unwrap();
    let rigs = dir.path().join("rigs");
    std::fs::create_dir(&rigs).unwrap();
    let rig = rigs.join("rig.json");
    let out = dir.path().join("out.svg");
    let seed = seed_text();
    std::fs::write(&rig, &seed).unwrap();
    let mut w = start_watch(&rig, &out);
    let first = std::fs::read_to_string(&out).unwrap();

    std::fs::remove_dir_all(&rigs).unwrap();
    let (bakes, err) = w.bakes_within(Duration::from_millis(800));
    assert_eq!(bakes, 0);
    assert!(
        err.iter()
            .any(|l| l.contains("rigbake: error:") && l.contains("rig.json")),
        "{err:?}"
    );
    assert_eq!(std::fs::read_to_string(&out).unwrap(), first, "output lost");

    std::fs::create_dir(&rigs).unwrap();
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(&rig, seed.replace("\"thigh\": 128", "\"thigh\": 131")).unwrap();
    let (second, _) = wait_change(&out, &first, Duration::from_secs(3))
        .expect("no bake after the directory came back");
    assert!(second.contains("@keyframes"));
    let (bakes, err) = w.bakes_within(Duration::from_millis(1000));
    assert!(bakes <= 1, "{err:?}");
    let (more, err) = w.bakes_within(Duration::from_millis(1000));
    assert_eq!(more, 0, "{err:?}");
    assert!(w.guard.0.try_wait().unwrap().is_none(), "watch exited");
}

/// A rig in a directory that does not exist: one error line, exit 2,
/// nothing written (the watch is set up before the first bake).
#[test]
fn a_missing_directory_is_one_error_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .args(["bake", "--watch", "-o"])
        .arg(dir.path().join("out.svg"))
        .arg(dir.path().join("gone/rig.json"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("gone: cannot watch this directory: "), "{err}");
    assert_eq!(err.matches("No such file").count(), 1, "{err}");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// The class of saves that leave something a bake refuses to read (a
/// FIFO, an oversized file, a character device where this runs as root):
/// the watch reads no more of it than a bake would, says why in one line,
/// keeps watching and bakes the next good save once. (The watch read
/// each save whole before comparing: a FIFO blocked it for good, a zero
/// device grew its memory by gigabytes a second, a 3 GiB file took 3 GB.)
#[test]
fn a_save_that_leaves_no_regular_file_is_refused_and_the_watch_goes_on() {
    let (_dir, rig, out, seed) = seed_in_scratch();
    let mut w = start_watch(&rig, &out);
    let big = |path: &Path| {
        let f = std::fs::File::create(path).unwrap();
        f.set_len(3 << 30).unwrap();
        true
    };
    // (what the save leaves, made at the rig's path; false where it cannot)
    type Put<'a> = Box<dyn Fn(&Path) -> bool + 'a>;
    let cases: Vec<(&str, Put)> = vec![
        (
            "named pipe",
            Box::new(|p| common::mknod(p, libc::S_IFIFO, 0)),
        ),
        ("larger than", Box::new(big)),
        (
            "character device",
            Box::new(|p| common::mknod(p, libc::S_IFCHR, libc::makedev(1, 5))),
        ),
    ];
    for (i, (why, put)) in cases.iter().enumerate() {
        std::fs::remove_file(&rig).unwrap();
        if !put(&rig) {
            eprintln!("{why}: not tested (mknod needs root)");
            std::fs::write(&rig, &seed).unwrap();
            let _ = w.bakes_within(Duration::from_millis(1500));
            continue;
        }
        let (bakes, err) = w.bakes_within(Duration::from_millis(1500));
        assert_eq!(bakes, 0, "{why}: {err:?}");
        let refused: Vec<_> = err
            .iter()
            .filter(|l| l.starts_with("rigbake: error:"))
            .collect();
        assert_eq!(refused.len(), 1, "{why}: {err:?}");
        assert!(
            refused[0].contains("rig.json") && refused[0].contains(why),
            "{refused:?}"
        );
        // the next good save bakes once (a new length each time, so the
        // bytes differ from the last good ones)
        std::fs::remove_file(&rig).unwrap();
        std::fs::write(&rig, format!("{seed}{}", "\n".repeat(i + 1))).unwrap();
        let (bakes, err) = w.bakes_within(Duration::from_millis(1500));
        assert_eq!(bakes, 1, "{why}, then a good save: {err:?}");
    }
    assert!(w.guard.0.try_wait().unwrap().is_none(), "watch exited");
}
