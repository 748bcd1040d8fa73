//! What rigbake writes, and what it leaves when writing fails or is cut
//! short: standard output failures exit 2; no output may be an input or
//! another output; several outputs are replaced all together or not at all;
//! a failed bake removes only directories it created and that are empty;
//! SIGINT/SIGTERM leave no temporary file, no created directory and no
//! child process behind, and end the process by that signal.
//!
//! The stall hook (`RIGBAKE_TEST_STALL_MS`) exists only in debug builds,
//! which is what `cargo test` runs.

mod common;

use common::{refused, snapshot, temporaries};
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn rigbake() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rigbake"));
    c.stdin(Stdio::null());
    c
}

/// A scratch directory holding `rig.json` (the seed rig, named
/// `seed-nested`) and `two.json` (the same rig named `two`).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let seed = fs::read_to_string(repo("rigs/seed-nested.json")).unwrap();
    fs::write(dir.path().join("rig.json"), &seed).unwrap();
    fs::write(
        dir.path().join("two.json"),
        seed.replace("\"seed-nested\"", "\"two\""),
    )
    .unwrap();
    dir
}

/// [`scratch`] with the rig's drawing `seed-nested.template.svg` too.
fn scratch_with_drawing() -> tempfile::TempDir {
    let dir = scratch();
    let t = rigbake()
        .current_dir(dir.path())
        .args(["template", "rig.json", "-o", "."])
        .output()
        .unwrap();
    assert!(t.status.success(), "{t:?}");
    dir
}

/// The class of every output flag that cannot be standard output: `-`
/// is refused in one line naming the flag (it made a file or directory
/// named `-`), nothing is written or printed, and `./-` still names a
/// file or directory called `-`.
#[test]
fn dash_is_refused_where_standard_output_cannot_be_written() {
    let dir = scratch();
    let d = dir.path();
    let cases: [(&[&str], &str); 6] = [
        (&["preview", "rig.json", "-o", "-"], "-o -: preview"),
        (&["gallery", "rig.json", "-o", "-"], "-o -: gallery"),
        (&["template", "rig.json", "-o", "-"], "-o -: template"),
        (&["bake", "rig.json", "--watch", "-o", "-"], "-o -: --watch"),
        (
            &["bake", "rig.json", "--watch", "-o", "o", "--report", "-"],
            "--report -: --watch",
        ),
        (
            &["sweep", "rig.json", "--keys", "4..5", "--plot", "-"],
            "--plot -: sweep",
        ),
    ];
    let before = snapshot(d);
    for (args, want) in cases {
        let out = rigbake().current_dir(d).args(args).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(want), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert_eq!(snapshot(d), before, "{args:?} wrote something");
    }
    let out = rigbake()
        .current_dir(d)
        .args(["template", "rig.json", "-o", "./-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(d.join("-/seed-nested.template.svg").is_file());
}

/// The commands that print on standard output, run in `dir`.
fn printing_commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["schema"],
        vec!["completions", "bash"],
        vec!["bake", "rig.json", "-o", "-"],
        vec!["bake", "rig.json", "-o", "out"],
        vec!["check", "rig.json", "--max-error", "100"],
        vec![
            "check",
            "rig.json",
            "--max-error",
            "100",
            "--format",
            "json",
        ],
        vec!["sweep", "rig.json", "--keys", "4..5"],
        vec!["sweep", "rig.json", "--keys", "4..5", "--format", "json"],
    ]
}

#[test]
fn a_full_standard_output_is_an_error_for_every_printing_command() {
    let dir = scratch();
    for args in printing_commands() {
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = rigbake()
            .current_dir(dir.path())
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        let err = refused(&out, &["standard output", "No space left"]);
        eprintln!("{args:?}: {err}");
    }
}

/// Every command that writes files and prints too (the summary, a table,
/// an SVG or report sent to `-`), with a standard output that takes
/// nothing: exit 2 and no file written, none replaced (a previous output
/// and report stay), no directory made. What is printed is printed before
/// the files are put in place.
#[test]
fn a_full_standard_output_writes_no_file() {
    let dir = scratch_with_drawing();
    let d = dir.path();
    fs::write(d.join("prev.svg"), "previous").unwrap();
    fs::write(d.join("prev.json"), "previous").unwrap();
    let art = ["--art", "seed-nested.template.svg"];
    let cases: Vec<Vec<&str>> = vec![
        vec!["bake", "rig.json", "-o", "out"],
        vec![
            "bake", "rig.json", "two.json", "--route", "both", "-o", "out",
        ],
        vec!["bake", "rig.json", "-o", "prev.svg"],
        vec!["bake", "rig.json", "-o", "out", "--report", "-"],
        vec!["bake", "rig.json", "-o", "-", "--report", "prev.json"],
        [&["bake", "rig.json"][..], &art, &["-o", "prev.svg"]].concat(),
        [
            &["bake", "rig.json"][..],
            &art,
            &["-o", "prev.svg", "--report", "-"],
        ]
        .concat(),
        [
            &["bake", "rig.json"][..],
            &art,
            &["-o", "-", "--report", "prev.json"],
        ]
        .concat(),
        vec!["sweep", "rig.json", "--keys", "4..5", "--plot", "prev.svg"],
    ];
    for args in cases {
        let before = snapshot(d);
        let full = fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = rigbake()
            .current_dir(d)
            .args(&args)
            .stdout(full)
            .output()
            .unwrap();
        refused(&out, &["standard output", "No space left"]);
        let after = snapshot(d);
        let changed: Vec<_> = after
            .iter()
            .filter(|f| !before.contains(f))
            .map(|(p, _)| p)
            .collect();
        assert!(changed.is_empty(), "{args:?} wrote {changed:?}");
        assert!(!d.join("out").exists(), "{args:?} made a directory");
        // and with a standard output that takes it, the same command writes
        let out = rigbake()
            .current_dir(d)
            .args(&args)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        assert_ne!(snapshot(d), before, "{args:?} wrote nothing");
        // back to the state before, for the next command
        let _ = fs::remove_dir_all(d.join("out"));
        fs::write(d.join("prev.svg"), "previous").unwrap();
        fs::write(d.join("prev.json"), "previous").unwrap();
    }
}

#[test]
fn a_closed_standard_output_is_an_error_for_every_printing_command() {
    let dir = scratch();
    for args in printing_commands() {
        let out = Command::new("sh")
            .current_dir(dir.path())
            .arg("-c")
            .arg("exec \"$0\" \"$@\" >&-")
            .arg(env!("CARGO_BIN_EXE_rigbake"))
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        refused(&out, &["standard output", "closed"]);
    }
}

#[test]
fn a_broken_pipe_and_dev_null_stay_quiet_with_exit_0() {
    let dir = scratch();
    for args in printing_commands() {
        let mut child = rigbake()
            .current_dir(dir.path())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away at once
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("rigbake: error"), "{args:?}: {err}");

        let out = rigbake()
            .current_dir(dir.path())
            .args(&args)
            .stdout(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
    }
}

/// Runs `args` in `dir` and asserts a refusal naming `needles` that
/// changed nothing in `dir`.
fn refused_untouched(dir: &Path, args: &[&str], needles: &[&str]) {
    let before = snapshot(dir);
    let out = rigbake().current_dir(dir).args(args).output().unwrap();
    refused(&out, needles);
    assert_eq!(snapshot(dir), before, "{args:?} changed files");
}

#[test]
fn no_output_may_be_an_input_however_it_is_spelled() {
    let dir = scratch();
    let d = dir.path();
    fs::create_dir(d.join("sub")).unwrap();
    fs::hard_link(d.join("rig.json"), d.join("hard.json")).unwrap();
    std::os::unix::fs::symlink(d.join("rig.json"), d.join("soft.json")).unwrap();
    let abs = d.join("rig.json");
    let abs = abs.to_str().unwrap();
    for spelling in [
        "rig.json",
        "./rig.json",
        "sub/../rig.json",
        "hard.json",
        "soft.json",
        abs,
    ] {
        refused_untouched(
            d,
            &["bake", "rig.json", "-o", "o.svg", "--report", spelling],
            &["--report", "would overwrite the rig", spelling],
        );
        // (-o naming a file that is not .svg is refused as not a directory)
        refused_untouched(d, &["bake", "rig.json", "-o", spelling], &["-o"]);
        refused_untouched(
            d,
            &["sweep", "rig.json", "--keys", "4..5", "--plot", spelling],
            &["--plot", "would overwrite the rig"],
        );
        refused_untouched(
            d,
            &["preview", "rig.json", "-o", spelling],
            &["-o", "would overwrite the rig"],
        );
    }
    // A rig saved with an .svg name, as the single output.
    fs::copy(d.join("rig.json"), d.join("rig.svg")).unwrap();
    refused_untouched(
        d,
        &["bake", "rig.svg", "-o", "sub/../rig.svg"],
        &["-o", "would overwrite the rig"],
    );
    // The second rig of several.
    refused_untouched(
        d,
        &[
            "bake",
            "rig.json",
            "two.json",
            "-o",
            "out",
            "--report",
            "./two.json",
        ],
        &["would overwrite the rig", "two.json"],
    );
    // The drawing of --art, as -o or as --report.
    fs::copy(repo("tests/fixtures/art/cyclist.svg"), d.join("art.svg")).unwrap();
    refused_untouched(
        d,
        &[
            "bake",
            "rig.json",
            "--art",
            "art.svg",
            "-o",
            "./sub/../art.svg",
        ],
        &["would overwrite the drawing"],
    );
    refused_untouched(
        d,
        &[
            "bake", "rig.json", "--art", "art.svg", "-o", "a.svg", "--report", "art.svg",
        ],
        &["--report", "would overwrite the drawing"],
    );
}

#[test]
fn no_output_may_be_another_output() {
    let dir = scratch();
    let d = dir.path();
    refused_untouched(
        d,
        &[
            "bake",
            "rig.json",
            "-o",
            "rep",
            "--report",
            "./rep/seed-nested.svg",
        ],
        &["--report", "would overwrite the output of -o"],
    );
    refused_untouched(
        d,
        &["bake", "rig.json", "-o", "o.svg", "--report", "x/../o.svg"],
        &["--report", "would overwrite the output of -o"],
    );
    refused_untouched(
        d,
        &[
            "bake",
            "rig.json",
            "--route",
            "both",
            "-o",
            "rep",
            "--report",
            "rep/seed-nested.smil.svg",
        ],
        &["--report", "would overwrite the output of -o"],
    );
    // Two rigs with one name.
    fs::copy(d.join("rig.json"), d.join("same.json")).unwrap();
    refused_untouched(
        d,
        &["bake", "rig.json", "same.json", "-o", "out"],
        &["two outputs would be written to this one file"],
    );
    // Existing outputs, same file through a hard link.
    fs::write(d.join("o.svg"), "old").unwrap();
    fs::hard_link(d.join("o.svg"), d.join("link.json")).unwrap();
    refused_untouched(
        d,
        &["bake", "rig.json", "-o", "o.svg", "--report", "link.json"],
        &["would overwrite the output of -o"],
    );
}

/// An output whose file already holds the new bytes is not rewritten:
/// same inode, same mtime.
#[test]
fn an_unchanged_output_is_not_rewritten() {
    use std::os::unix::fs::MetadataExt;
    let dir = scratch();
    let d = dir.path();
    let bake = || {
        let out = rigbake()
            .current_dir(d)
            .args([
                "bake", "rig.json", "two.json", "-o", "out", "--report", "r.json",
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
    };
    bake();
    let old = fs::FileTimes::new().set_modified(std::time::UNIX_EPOCH + Duration::from_secs(7));
    let files = ["out/seed-nested.svg", "out/two.svg", "r.json"];
    let before: Vec<(u64, std::time::SystemTime)> = files
        .iter()
        .map(|f| {
            let p = d.join(f);
            fs::File::options()
                .write(true)
                .open(&p)
                .unwrap()
                .set_times(old)
                .unwrap();
            let m = fs::metadata(&p).unwrap();
            (m.ino(), m.modified().unwrap())
        })
        .collect();
    bake();
    for (f, b) in files.iter().zip(&before) {
        let m = fs::metadata(d.join(f)).unwrap();
        assert_eq!((m.ino(), m.modified().unwrap()), *b, "{f} was rewritten");
    }
}

/// A replaced output keeps its exact mode, whatever the umask (bits the
/// umask would clear included); a new one gets 0666 less the umask.
#[test]
fn a_replaced_output_keeps_its_mode_whatever_the_umask() {
    let dir = scratch();
    let d = dir.path();
    let bake = |umask: &str, keys: &str| {
        let out = Command::new("sh")
            .current_dir(d)
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$@\""))
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_rigbake"))
            .args(["bake", "rig.json", "-o", "out.svg", "--report", "r.json"])
            .args(["--keys", keys])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    bake("022", "10");
    for f in ["out.svg", "r.json"] {
        let m = fs::metadata(d.join(f)).unwrap().permissions().mode() & 0o777;
        assert_eq!(m, 0o644, "new {f} under umask 022: {m:o}");
    }
    for (mode, umask, keys) in [
        (0o666, "022", "11"),
        (0o640, "077", "12"),
        (0o604, "002", "13"),
    ] {
        for f in ["out.svg", "r.json"] {
            fs::set_permissions(d.join(f), fs::Permissions::from_mode(mode)).unwrap();
        }
        let before = fs::read(d.join("out.svg")).unwrap();
        bake(umask, keys);
        assert_ne!(fs::read(d.join("out.svg")).unwrap(), before, "not replaced");
        for f in ["out.svg", "r.json"] {
            let m = fs::metadata(d.join(f)).unwrap().permissions().mode() & 0o777;
            assert_eq!(m, mode, "{f} replaced under umask {umask}: {m:o}");
        }
    }
}

/// Whether `chattr +i` works here (root on a file system that supports it).
fn immutable(path: &Path, on: bool) -> bool {
    Command::new("chattr")
        .arg(if on { "+i" } else { "-i" })
        .arg(path)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_failed_rename_restores_every_output_already_replaced() {
    let dir = scratch();
    let d = dir.path();
    let out_dir = d.join("out");
    fs::create_dir(&out_dir).unwrap();
    // The first target is a symbolic link: it must come back as the link.
    fs::write(d.join("kept.svg"), "old seed").unwrap();
    std::os::unix::fs::symlink("../kept.svg", out_dir.join("seed-nested.svg")).unwrap();
    for (name, old) in [
        ("seed-nested.smil.svg", "old seed smil"),
        ("two.svg", "old two"),
        ("two.smil.svg", "old two smil"),
    ] {
        fs::write(out_dir.join(name), old).unwrap();
    }
    fs::write(d.join("r.json"), "old report").unwrap();
    // The rename order follows the rigs and routes: make the third target,
    // and then the last one (the report), refuse to be replaced.
    for blocked in [out_dir.join("two.svg"), d.join("r.json")] {
        if !immutable(&blocked, true) {
            eprintln!(
                "skipped: chattr +i is not supported here (needs root and ext2/3/4-like file system)"
            );
            return;
        }
        let before = snapshot(d);
        let out = rigbake()
            .current_dir(d)
            .args([
                "bake", "rig.json", "two.json", "--route", "both", "-o", "out", "--report",
                "r.json",
            ])
            .output()
            .unwrap();
        immutable(&blocked, false);
        refused(
            &out,
            &[
                "cannot replace",
                blocked.file_name().unwrap().to_str().unwrap(),
            ],
        );
        assert_eq!(snapshot(d), before, "outputs changed or temporaries left");
        let link = fs::symlink_metadata(out_dir.join("seed-nested.svg")).unwrap();
        assert!(link.file_type().is_symlink(), "the link was not restored");
        assert!(temporaries(d).is_empty());
    }
}

/// A failed bake removes the directories it created only if empty: a
/// concurrent bake that wrote into one keeps its file.
#[test]
fn a_failed_bake_keeps_what_another_wrote_into_a_directory_it_created() {
    let dir = scratch();
    let d = dir.path();
    fs::write(d.join("plain-file"), "x").unwrap();
    // A: creates new/deeper, stalls, then fails on the report (its parent
    // is a file).
    let mut a = rigbake()
        .current_dir(d)
        .env("RIGBAKE_TEST_STALL_MS", "1500")
        .args([
            "bake",
            "rig.json",
            "-o",
            "new/deeper",
            "--report",
            "plain-file/r.json",
            "-q",
        ])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for(|| d.join("new/deeper").is_dir(), "A to create new/deeper");
    // B: writes into the directory A created, and succeeds.
    let b = rigbake()
        .current_dir(d)
        .args(["bake", "two.json", "-o", "new/deeper", "-q"])
        .output()
        .unwrap();
    assert_eq!(b.status.code(), Some(0));
    let a = kill_after(&mut a, Duration::from_secs(20));
    assert_eq!(a.code(), Some(2));
    assert!(
        d.join("new/deeper/two.svg").is_file(),
        "B's output was deleted"
    );
    assert!(!d.join("new/deeper/seed-nested.svg").exists());
    assert!(temporaries(d).is_empty(), "{:?}", temporaries(d));

    // Without the stall, many rounds: B never fails (A may remove an empty
    // directory B is about to use: B makes it again) and never loses its file.
    for round in 0..40 {
        let _ = fs::remove_dir_all(d.join("race"));
        let mut a = rigbake()
            .current_dir(d)
            .args([
                "bake",
                "rig.json",
                "-o",
                "race/d",
                "--report",
                "plain-file/r.json",
                "-q",
            ])
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let b = rigbake()
            .current_dir(d)
            .args(["bake", "two.json", "-o", "race/d", "-q"])
            .output()
            .unwrap();
        assert_eq!(b.status.code(), Some(0), "round {round}: {b:?}");
        assert_eq!(kill_after(&mut a, Duration::from_secs(20)).code(), Some(2));
        assert!(
            d.join("race/d/two.svg").is_file(),
            "round {round}: B's output deleted"
        );
        assert!(temporaries(d).is_empty(), "round {round}");
    }

    // Alone, the same failure removes every directory it created.
    let out = rigbake()
        .current_dir(d)
        .args([
            "bake",
            "rig.json",
            "-o",
            "fresh/a/b",
            "--report",
            "plain-file/r.json",
        ])
        .output()
        .unwrap();
    refused(&out, &["plain-file"]);
    assert!(!d.join("fresh").exists());
}

fn wait_for(mut cond: impl FnMut() -> bool, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !cond() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Waits for the child (killing it after `limit`).
fn kill_after(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + limit;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([&format!("-{sig}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

/// SIGINT or SIGTERM while the outputs are being written: no temporary
/// left, no created directory left, old outputs intact, and the process
/// ends by that signal (a shell shows 130 or 143).
#[test]
fn a_signal_during_the_write_leaves_old_outputs_and_no_temporaries() {
    for (sig, num) in [("INT", 2), ("TERM", 15)] {
        let dir = scratch();
        let d = dir.path();
        fs::write(d.join("r.json"), "old report").unwrap();
        let before = snapshot(d);
        let mut child = rigbake()
            .current_dir(d)
            .env("RIGBAKE_TEST_STALL_MS", "30000")
            .args([
                "bake",
                "rig.json",
                "-o",
                "new/dir/o.svg",
                "--report",
                "r.json",
            ])
            .spawn()
            .unwrap();
        wait_for(|| !temporaries(d).is_empty(), "a temporary file");
        signal(&child, sig);
        let status = kill_after(&mut child, Duration::from_secs(10));
        assert_eq!(status.signal(), Some(num), "{sig}: {status:?}");
        assert_eq!(snapshot(d), before, "{sig}: files changed");
        assert!(!d.join("new").exists(), "{sig}: created directory left");
    }
}

/// The state letter of a process in /proc, None once it is gone (a zombie
/// whose parent is gone counts as ended too).
fn alive(pid: &str) -> bool {
    fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| s.rsplit(')').next().map(|r| r.trim().to_string()))
        .is_some_and(|r| !r.starts_with('Z') && !r.starts_with('X'))
}

/// `preview` and `gallery` interrupted while "Chromium" runs: the process
/// ends by that signal (130 or 143, never the dead browser reported as an
/// error with exit 2), the fake browser and its child (same process group)
/// are killed, the browser's temporary directory (filled with files, as a
/// real profile is, so that removing it takes a while) and the command's
/// scratch directory are removed, and nothing is written. Five rounds per
/// signal and command: the command's own end once raced the handler.
#[test]
fn an_interrupted_preview_ends_its_browser_and_removes_its_temporaries() {
    let dir = scratch();
    let d = dir.path();
    let tmp = d.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let fake = d.join("fake-chromium");
    fs::write(
        &fake,
        format!(
            "#!/bin/sh
\
             for a in \"$@\"; do case \"$a\" in --user-data-dir=*) p=\"${{a#--user-data-dir=}}\";; esac; done
\
             mkdir -p \"$p\" && i=0 && while [ $i -lt 400 ]; do : > \"$p/f$i\"; i=$((i+1)); done
\
             sleep 60 &
echo \"$$ $!\" > {}/pids
wait
",
            d.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&fake, fs::Permissions::from_mode(0o755)).unwrap();
    let commands: [&[&str]; 2] = [
        &["preview", "rig.json", "-o", "strip.png"],
        &["gallery", "rig.json", "-o", "g"],
    ];
    for args in commands {
        for (sig, num) in [("INT", 2), ("TERM", 15)] {
            for round in 0..5 {
                let _ = fs::remove_file(d.join("pids"));
                let mut child = rigbake()
                    .current_dir(d)
                    .env("RIGBAKE_CHROMIUM", &fake)
                    .env("TMPDIR", &tmp)
                    .args(args)
                    .stderr(Stdio::null())
                    .spawn()
                    .unwrap();
                wait_for(
                    || fs::read_to_string(d.join("pids")).is_ok_and(|s| s.ends_with('\n')),
                    "the fake browser to start",
                );
                let pids = fs::read_to_string(d.join("pids")).unwrap();
                assert!(fs::read_dir(&tmp).unwrap().next().is_some());
                signal(&child, sig);
                let status = kill_after(&mut child, Duration::from_secs(10));
                let what = format!("{} {sig} round {round}", args[0]);
                assert_eq!(status.signal(), Some(num), "{what}: {status:?}");
                for pid in pids.split_whitespace() {
                    wait_for(|| !alive(pid), "the browser's process group to end");
                }
                let left: Vec<_> = fs::read_dir(&tmp)
                    .unwrap()
                    .map(|e| e.unwrap().path())
                    .collect();
                assert!(left.is_empty(), "{what}: left {left:?}");
                assert!(!d.join("strip.png").exists(), "{what}");
                assert!(!d.join("g").exists(), "{what}");
                assert!(temporaries(d).is_empty(), "{what}");
            }
        }
    }
}

/// Every command that writes a file, each with the path of that file and
/// the arguments that write it (in a [`scratch`] directory whose drawing
/// `seed-nested.template.svg` is made first).
fn file_writers() -> Vec<(Vec<&'static str>, &'static str)> {
    vec![
        (vec!["bake", "rig.json", "-o", "w.svg"], "w.svg"),
        (vec!["bake", "rig.json", "-o", "dir"], "dir/seed-nested.svg"),
        (
            vec!["bake", "rig.json", "-o", "o.svg", "--report", "w.json"],
            "w.json",
        ),
        (
            vec![
                "bake",
                "rig.json",
                "--art",
                "seed-nested.template.svg",
                "-o",
                "w.svg",
            ],
            "w.svg",
        ),
        (
            vec!["sweep", "rig.json", "--keys", "4..5", "--plot", "w.svg"],
            "w.svg",
        ),
        (vec!["lower", "rig.json", "-o", "w.json"], "w.json"),
        (
            vec!["template", "rig.json", "-o", "tpl"],
            "tpl/seed-nested.template.svg",
        ),
        (vec!["template", "rig.json", "-o", "w.svg"], "w.svg"),
    ]
}

/// A scratch directory for [`file_writers`], with the directories their
/// outputs go into.
fn writer_scratch() -> tempfile::TempDir {
    let dir = scratch_with_drawing();
    let d = dir.path();
    fs::create_dir(d.join("dir")).unwrap();
    fs::create_dir(d.join("tpl")).unwrap();
    dir
}

/// A scratch directory where `args` ran once as a regular file write,
/// and the bytes it wrote to `file` (what any other output must get).
fn written_once(args: &[&str], file: &str) -> (tempfile::TempDir, Vec<u8>) {
    let dir = writer_scratch();
    let out = run_in(dir.path(), args);
    assert!(out.status.success(), "{args:?}: {out:?}");
    let want = fs::read(dir.path().join(file)).unwrap();
    (dir, want)
}

/// `args` run in `dir` (standard output taken and dropped).
fn run_in(dir: &Path, args: &[&str]) -> std::process::Output {
    rigbake().current_dir(dir).args(args).output().unwrap()
}

/// The class of every output path that is a symbolic link, for every
/// command that writes a file: the file the link leads to gets the bytes
/// (made where it does not exist yet, through a chain of two links too)
/// and the link stays a link. (Renaming over the path cut the link and
/// left its file with the old bytes.) A link into a directory that does
/// not exist is refused: no directory is made where a link points (it
/// made them, as for a path named on the command line).
#[test]
fn an_output_that_is_a_link_writes_the_file_it_leads_to() {
    for (args, file) in file_writers() {
        let (dir, want) = written_once(&args, file);
        let d = dir.path();
        fs::remove_file(d.join(file)).unwrap();
        fs::create_dir(d.join("real")).unwrap();
        // an existing file, behind one link and behind two
        fs::write(d.join("real/old"), "old").unwrap();
        std::os::unix::fs::symlink(d.join("real/old"), d.join("real/hop")).unwrap();
        for to in ["real/old", "real/hop"] {
            let _ = fs::remove_file(d.join(file));
            std::os::unix::fs::symlink(d.join(to), d.join(file)).unwrap();
            fs::write(d.join("real/old"), "old").unwrap();
            let out = run_in(d, &args);
            assert!(out.status.success(), "{args:?} via {to}: {out:?}");
            let meta = fs::symlink_metadata(d.join(file)).unwrap();
            assert!(meta.file_type().is_symlink(), "{args:?}: the link was cut");
            assert_eq!(
                fs::read(d.join("real/old")).unwrap(),
                want,
                "{args:?} via {to}"
            );
        }
        // a link to a file not made yet (relative, as `ln -s` writes it)
        fs::remove_file(d.join(file)).unwrap();
        let up = if file.contains('/') { "../" } else { "" };
        std::os::unix::fs::symlink(format!("{up}real/new"), d.join(file)).unwrap();
        let out = run_in(d, &args);
        assert!(out.status.success(), "{args:?} to a new file: {out:?}");
        assert!(
            fs::symlink_metadata(d.join(file))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(fs::read(d.join("real/new")).unwrap(), want, "{args:?}");
        assert!(temporaries(d).is_empty(), "{args:?} left temporaries");
        // a link into a directory that does not exist: refused, naming
        // the link and where it leads, and no directory made there
        fs::remove_file(d.join(file)).unwrap();
        std::os::unix::fs::symlink(d.join("gone/deeper/x.svg"), d.join(file)).unwrap();
        let line = refused(
            &run_in(d, &args),
            &["is a symbolic link to ", "gone/deeper/x.svg"],
        );
        assert!(line.contains("whose directory does not exist"), "{line}");
        assert!(
            !d.join("gone").exists(),
            "{args:?} made the link's directory"
        );
    }
}

/// The class of every output path that is neither a regular file nor a
/// directory, for every command that writes a file: a FIFO stays a FIFO
/// and its reader gets the bytes a regular file would; a device node
/// (made as `/dev/null` and `/dev/full` are, where this runs as root)
/// stays that device; a device that takes nothing (`/dev/full`) is exit 2
/// in one line, and no other output of the call is written. (Renaming
/// over such a path replaced the device or FIFO by a regular file, exit 0,
/// a FIFO's reader got nothing, and as root `--report /dev/null` removed
/// the system's `/dev/null`.)
#[test]
fn an_output_that_is_a_device_or_fifo_is_written_in_place() {
    use std::io::Read;
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
    let mut devices_tested = false;
    for (args, file) in file_writers() {
        let (dir, want) = written_once(&args, file);
        let d = dir.path();
        let path = d.join(file);
        fs::remove_file(&path).unwrap();
        let _ = fs::remove_file(d.join("o.svg"));
        // a FIFO, read to its end by another thread; a second name for
        // it lets the test end a reader still waiting should the FIFO
        // have been replaced
        assert!(common::mknod(&path, libc::S_IFIFO, 0), "mkfifo");
        fs::hard_link(&path, d.join("fifo-again")).unwrap();
        let reader = {
            let path = path.clone();
            std::thread::spawn(move || {
                let mut got = Vec::new();
                fs::File::open(path).unwrap().read_to_end(&mut got).unwrap();
                got
            })
        };
        let out = run_in(d, &args);
        let _ = fs::OpenOptions::new()
            .write(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(d.join("fifo-again"));
        let got = reader.join().unwrap();
        assert!(out.status.success(), "{args:?} into a FIFO: {out:?}");
        assert!(fs::symlink_metadata(&path).unwrap().file_type().is_fifo());
        assert_eq!(got, want, "{args:?}: what the FIFO's reader got");
        fs::remove_file(&path).unwrap();
        fs::remove_file(d.join("fifo-again")).unwrap();
        // device nodes like /dev/null (1, 3) and /dev/full (1, 7) (no
        // snapshot of the directory while one is there: reading /dev/full
        // never ends)
        if !common::mknod(&path, libc::S_IFCHR, libc::makedev(1, 3)) {
            continue;
        }
        devices_tested = true;
        let out = run_in(d, &args);
        assert!(out.status.success(), "{args:?} into a null device: {out:?}");
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_char_device()
        );
        fs::remove_file(&path).unwrap();
        let _ = fs::remove_file(d.join("o.svg"));
        assert!(common::mknod(&path, libc::S_IFCHR, libc::makedev(1, 7)));
        let out = run_in(d, &args);
        refused(&out, &[file, "cannot write", "No space left"]);
        assert!(
            fs::symlink_metadata(&path)
                .unwrap()
                .file_type()
                .is_char_device()
        );
        assert!(!d.join("o.svg").exists(), "{args:?}: wrote another output");
        fs::remove_file(&path).unwrap();
        assert!(temporaries(d).is_empty(), "{args:?} left temporaries");
    }
    if !devices_tested {
        eprintln!("device nodes not tested: mknod needs root");
    }
}

/// A directory output (`bake -o DIR`, `template -o DIR`, `gallery -o DIR`)
/// that is a link leading nowhere, or round in a loop, is exit 2 in one
/// line saying so, nothing written (it said `File exists`).
#[test]
fn a_directory_output_that_is_a_broken_link_says_so() {
    let dir = scratch();
    let d = dir.path();
    std::os::unix::fs::symlink("nowhere/x", d.join("dangling")).unwrap();
    std::os::unix::fs::symlink("loop-b", d.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", d.join("loop-b")).unwrap();
    for link in ["dangling", "loop-a"] {
        for cmd in ["bake", "template", "gallery"] {
            refused_untouched(
                d,
                &[cmd, "rig.json", "-o", link],
                &[link, "a symbolic link that leads to no directory"],
            );
        }
    }
}
