//! Several rigs in one `bake` or `check` call are baked in parallel: the
//! outputs, their order, the summaries and the report are byte for byte
//! what baking each rig alone gives, whatever the thread count
//! (`RAYON_NUM_THREADS`); a bad rig anywhere in the batch is the one error
//! (the first in input order), and then nothing is written, the previous
//! outputs keep their bytes and no temporary is left. A batch holds a few
//! rigs at a time, not all of them: a rig is read again for its bake, as
//! its file then reads.

use serde_json::Value;
mod common;

use common::{refused, snapshot, temporaries};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

#[path = "../benches/cycling_rigs.rs"]
mod cycling_rigs;
#[path = "../benches/scene_rigs.rs"]
mod scene_rigs;

/// `rigbake ARGS` with `threads` rayon threads (None: every core).
fn rigbake(threads: Option<usize>) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rigbake"));
    c.stdin(Stdio::null());
    match threads {
        Some(n) => c.env("RAYON_NUM_THREADS", n.to_string()),
        None => c.env_remove("RAYON_NUM_THREADS"),
    };
    c
}

const THREADS: [Option<usize>; 4] = [None, Some(1), Some(2), Some(5)];

/// A batch of every rig kind: the example rigs (cycling, figures, chains,
/// clips; not the slow whole characters, which add time but no kind) and
/// generated cycling rigs, in an order that is not the alphabetical one of
/// their names.
fn mixed_batch(dir: &Path) -> Vec<PathBuf> {
    let mut rigs = common::example_rigs_but_composites();
    rigs.reverse();
    let generated = cycling_rigs::write_cycling_rigs(&dir.join("gen"), 8).unwrap();
    // interleave: example, generated, example, …
    let mut out = Vec::new();
    let mut g = generated.into_iter();
    for r in rigs {
        out.push(r);
        out.extend(g.next());
    }
    out.extend(g);
    out
}

fn name_of(rig: &Path) -> String {
    let v: Value = serde_json::from_str(&fs::read_to_string(rig).unwrap()).unwrap();
    v["name"].as_str().unwrap().to_string()
}

#[test]
fn a_batch_is_each_rig_baked_alone_in_input_order_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let rigs = mixed_batch(tmp.path());
    let args = |out: &Path, report: &Path| {
        let mut a: Vec<std::ffi::OsString> = vec!["bake".into()];
        a.extend(rigs.iter().map(|r| r.as_os_str().to_owned()));
        a.extend(["--route".into(), "both".into(), "-o".into()]);
        a.push(out.as_os_str().to_owned());
        a.push("--report".into());
        a.push(report.as_os_str().to_owned());
        a
    };

    // each rig alone, one after the other
    let alone = tmp.path().join("alone");
    let mut stdout = Vec::new();
    let mut reports = Vec::new();
    for (i, rig) in rigs.iter().enumerate() {
        let report = tmp.path().join(format!("alone-{i}.json"));
        let out = rigbake(Some(1))
            .args(["bake", "--route", "both", "-o"])
            .arg(&alone)
            .arg(rig)
            .arg("--report")
            .arg(&report)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty());
        stdout.extend(out.stdout);
        let v: Value = serde_json::from_slice(&fs::read(&report).unwrap()).unwrap();
        reports.extend(v.as_array().unwrap().iter().cloned());
    }
    let expected_files = snapshot(&alone);
    assert_eq!(expected_files.len(), rigs.len() * 2);
    // the report follows input order, each rig's css before its smil
    let names: Vec<String> = rigs.iter().map(|r| name_of(r)).collect();
    let order: Vec<&str> = reports.iter().map(|r| r["rig"].as_str().unwrap()).collect();
    let expected_order: Vec<&str> = names
        .iter()
        .flat_map(|n| [n.as_str(), n.as_str()])
        .collect();
    assert_eq!(order, expected_order);

    let mut first_report = None;
    for threads in THREADS {
        let out_dir = tmp.path().join(format!("batch-{threads:?}"));
        let report = tmp.path().join(format!("batch-{threads:?}.json"));
        let out = rigbake(threads)
            .args(args(&out_dir, &report))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{threads:?}");
        assert!(
            out.stdout == stdout,
            "{threads:?}: the summary differs from the rigs baked alone:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(
            snapshot(&out_dir) == expected_files,
            "{threads:?}: outputs differ"
        );
        let batch_report = fs::read(&report).unwrap();
        let v: Value = serde_json::from_slice(&batch_report).unwrap();
        assert_eq!(v.as_array().unwrap(), &reports, "{threads:?}");
        // and the report's bytes do not depend on the thread count
        match &first_report {
            None => first_report = Some(batch_report),
            Some(f) => assert!(*f == batch_report, "{threads:?}"),
        }
    }
}

#[test]
fn check_prints_in_input_order_whatever_the_thread_count() {
    let tmp = tempfile::tempdir().unwrap();
    let rigs = mixed_batch(tmp.path());
    for format in ["text", "json", "junit"] {
        let mut seen: Option<Output> = None;
        for threads in [Some(1), Some(4)] {
            let out = rigbake(threads)
                .arg("check")
                .args(&rigs)
                .args(["--max-error", "0.1", "--format", format])
                .output()
                .unwrap();
            // some example rigs drift more than 0.1 px: exit 1, listed on stderr
            assert_eq!(out.status.code(), Some(1), "{format} {threads:?}");
            match &seen {
                None => {
                    if format == "json" {
                        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
                        let files: Vec<String> = v["results"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|c| c["file"].as_str().unwrap().to_string())
                            .collect();
                        let expected: Vec<String> =
                            rigs.iter().map(|r| r.display().to_string()).collect();
                        assert_eq!(files, expected);
                    }
                    seen = Some(out);
                }
                Some(first) => {
                    assert!(first.stdout == out.stdout, "{format} {threads:?}: stdout");
                    assert!(first.stderr == out.stderr, "{format} {threads:?}: stderr");
                }
            }
        }
    }
}

/// `n` generated rigs in `dir/rigs`, and their outputs from a first bake
/// into `dir/out`, then overwritten with other bytes (so a second bake
/// would replace every one of them).
fn baked_once(dir: &Path, n: usize) -> Vec<PathBuf> {
    let rigs = cycling_rigs::write_cycling_rigs(&dir.join("rigs"), n).unwrap();
    let out = rigbake(None)
        .arg("bake")
        .args(&rigs)
        .arg("-o")
        .arg(dir.join("out"))
        .arg("--quiet")
        .output()
        .unwrap();
    assert!(out.status.success());
    for e in fs::read_dir(dir.join("out")).unwrap() {
        fs::write(e.unwrap().path(), "<svg>previous</svg>").unwrap();
    }
    rigs
}

/// Ways to spoil rig `i` of a batch (in its file, or in the place its
/// output goes); each returns what the one error line must name.
fn spoil(dir: &Path, rigs: &[PathBuf], i: usize, how: &str) -> Vec<String> {
    let path = &rigs[i];
    let file = path.display().to_string();
    let text = fs::read_to_string(path).unwrap();
    match how {
        // not JSON
        "syntax" => {
            fs::write(path, &text[..text.len() / 2]).unwrap();
            vec![file]
        }
        // JSON, but no rig
        "field" => {
            fs::write(path, text.replace("\"thigh\"", "\"thighs\"")).unwrap();
            vec![file, "thighs".into()]
        }
        // a rig that fails validation (the hip far out of reach)
        "reach" => {
            let mut v: Value = serde_json::from_str(&text).unwrap();
            v["legs"][0]["hip"] = serde_json::json!([420, -400]);
            fs::write(path, v.to_string()).unwrap();
            vec![file, "cannot reach".into()]
        }
        // a rig that bakes, whose output cannot be written (fails on the
        // worker, while the others are being staged)
        "output" => {
            let target = dir.join("out").join(format!("{}.svg", name_of(path)));
            fs::remove_file(&target).unwrap();
            fs::create_dir(&target).unwrap();
            vec![target.display().to_string(), "is a directory".into()]
        }
        // a rig that shares its name with the one before
        "name" => {
            let prev = name_of(&rigs[i - 1]);
            fs::write(path, text.replacen(&name_of(path), &prev, 1)).unwrap();
            vec!["two outputs would be written to this one file".into(), prev]
        }
        other => panic!("no spoil {other}"),
    }
}

#[test]
fn a_bad_rig_in_the_middle_is_the_error_and_nothing_is_written_whatever_the_thread_count() {
    for how in ["syntax", "field", "reach", "output", "name"] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let rigs = baked_once(dir, 24);
        let needles = spoil(dir, &rigs, 13, how);
        let before = snapshot(&dir.join("out"));
        for threads in THREADS {
            for cmd in ["bake", "check"] {
                if cmd == "check" && (how == "output" || how == "name") {
                    continue; // check writes nothing
                }
                let mut c = rigbake(threads);
                c.arg(cmd).args(&rigs);
                if cmd == "bake" {
                    c.arg("-o")
                        .arg(dir.join("out"))
                        .arg("--report")
                        .arg(dir.join("r.json"));
                } else {
                    c.args(["--max-error", "100"]);
                }
                let out = c.output().unwrap();
                let n: Vec<&str> = needles.iter().map(String::as_str).collect();
                let line = refused(&out, &n);
                assert!(out.stdout.is_empty(), "{how} {cmd} {threads:?}");
                // no other rig is named
                for (j, r) in rigs.iter().enumerate() {
                    if j != 13 && how != "name" && how != "output" {
                        assert!(!line.contains(&r.display().to_string()), "{line}");
                    }
                }
                assert!(
                    snapshot(&dir.join("out")) == before,
                    "{how} {threads:?}: outputs changed"
                );
                assert!(
                    temporaries(dir).is_empty(),
                    "{how} {threads:?}: {:?}",
                    temporaries(dir)
                );
                assert!(!dir.join("r.json").exists());
            }
        }
    }
}

#[test]
fn of_several_bad_rigs_the_first_in_input_order_is_the_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let rigs = baked_once(dir, 40);
    // the last spoilt rigs fail first when the batch is split between threads
    let first = spoil(dir, &rigs, 11, "output");
    for i in [12, 25, 39] {
        spoil(dir, &rigs, i, "output");
    }
    let before = snapshot(&dir.join("out"));
    for threads in THREADS {
        for _ in 0..3 {
            let out = rigbake(threads)
                .arg("bake")
                .args(&rigs)
                .arg("-o")
                .arg(dir.join("out"))
                .output()
                .unwrap();
            let n: Vec<&str> = first.iter().map(String::as_str).collect();
            refused(&out, &n);
            assert!(snapshot(&dir.join("out")) == before, "{threads:?}");
            assert!(temporaries(dir).is_empty(), "{threads:?}");
        }
    }
}

#[test]
fn a_failed_batch_removes_the_output_directory_it_created() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let rigs = cycling_rigs::write_cycling_rigs(&dir.join("rigs"), 12).unwrap();
    fs::write(dir.join("file"), "not a directory").unwrap();
    for threads in THREADS {
        // every SVG is staged in new/out before the report fails
        let out = rigbake(threads)
            .arg("bake")
            .args(&rigs)
            .arg("-o")
            .arg(dir.join("new/out"))
            .arg("--report")
            .arg(dir.join("file/r.json"))
            .output()
            .unwrap();
        refused(&out, &["file", "is not a directory"]);
        assert!(!dir.join("new").exists(), "{threads:?}");
        assert!(temporaries(dir).is_empty());
    }
}

/// SIGINT or SIGTERM while several workers are staging their SVGs: no
/// temporary left, the previous outputs keep their bytes, the directory
/// the call created is gone, and the process ends by that signal. (The
/// stall hook `RIGBAKE_TEST_STALL_MS` exists only in debug builds, which
/// is what `cargo test` runs.)
#[test]
fn a_signal_while_workers_stage_leaves_previous_outputs_and_no_temporaries() {
    use std::os::unix::process::ExitStatusExt;
    use std::time::{Duration, Instant};
    // over the previous outputs, and into a directory the call creates
    for (sig, num, out) in [("INT", 2, "out"), ("TERM", 15, "new/out")] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let rigs = baked_once(dir, 12);
        let before = snapshot(dir);
        let mut child = rigbake(Some(3))
            .env("RIGBAKE_TEST_STALL_MS", "30000")
            .arg("bake")
            .args(&rigs)
            .arg("-o")
            .arg(dir.join(out))
            .arg("--report")
            .arg(dir.join("r.json"))
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(30);
        while temporaries(dir).len() < 3 {
            assert!(
                Instant::now() < deadline,
                "{sig}: no three temporaries at once"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        let sent = Command::new("kill")
            .args([format!("-{sig}"), child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + Duration::from_secs(10);
        let status = loop {
            if let Some(s) = child.try_wait().unwrap() {
                break s;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("{sig}: still running");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        assert_eq!(status.signal(), Some(num), "{sig}: {status:?}");
        assert!(snapshot(dir) == before, "{sig}: files changed");
        assert!(temporaries(dir).is_empty(), "{sig}");
    }
}

/// Runs `c` with its data segment (the heap and every private writable
/// mapping, Linux ≥ 4.7) limited to `bytes`: an allocation past it fails
/// and the process aborts.
#[cfg(target_os = "linux")]
fn with_data_limit(c: &mut Command, bytes: u64) -> &mut Command {
    use std::os::unix::process::CommandExt;
    let limit = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit is async-signal-safe; the closure allocates nothing.
    unsafe {
        c.pre_exec(move || {
            if libc::setrlimit(libc::RLIMIT_DATA, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

/// Runs `c` (`what`, for the message) within a data limit of `limit`
/// bytes ([`with_data_limit`]) and asserts that it succeeds; its output.
#[cfg(target_os = "linux")]
fn succeeds_within(what: &str, c: &mut Command, limit: u64) -> Output {
    let out = with_data_limit(c, limit).output().unwrap();
    assert!(
        out.status.success(),
        "{what} within {} MiB: {:?} {}",
        limit >> 20,
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A batch holds a few rigs at a time (one per thread), not every rig of
/// the batch: 40 rigs of 0.5 MB (each about 3.5 MB once parsed and
/// validated, 140 MB for all) bake, check and make a gallery on two
/// threads within a 64 MiB data limit, which about two such rigs and their
/// bakes fit (the bake needs under 32 MiB). When every rig was held from
/// its validation to the end of the batch, each of the three needed over
/// 128 MiB.
#[cfg(target_os = "linux")]
#[test]
fn a_batch_holds_a_few_rigs_at_a_time_not_the_batch() {
    const LIMIT: u64 = 64 << 20;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let rigs = scene_rigs::write_scene_rigs(&dir.join("rigs"), 40, 64, 1024).unwrap();
    let within_limit = |what: &str, c: &mut Command| {
        succeeds_within(what, c, LIMIT);
    };
    let out = dir.join("out");
    within_limit(
        "bake",
        rigbake(Some(2))
            .arg("bake")
            .args(&rigs)
            .arg("-o")
            .arg(&out)
            .arg("--quiet"),
    );
    assert_eq!(fs::read_dir(&out).unwrap().count(), rigs.len());
    within_limit(
        "check",
        rigbake(Some(2))
            .arg("check")
            .args(&rigs)
            .args(["--max-error", "1000", "--quiet"]),
    );
    // (without Chromium: the strips are drawn in Chromium's memory)
    let gallery = dir.join("gallery");
    within_limit(
        "gallery",
        rigbake(Some(2))
            .arg("gallery")
            .args(&rigs)
            .arg("-o")
            .arg(&gallery)
            .env("RIGBAKE_CHROMIUM", "")
            .env("PATH", "/nonexistent"),
    );
    assert_eq!(fs::read_dir(&gallery).unwrap().count(), 2 * rigs.len() + 1);
}

/// Rigs whose reports are big and whose bakes are small: `n` bone trees of
/// 255 bones at constant angles (written exactly, nothing fitted), each in
/// 8 clips, so each report has 2,040 bone lines (about 290 KB once made,
/// 360 KB as JSON) and each bake needs a few MiB.
fn big_report_rigs(dir: &Path, n: usize) -> Vec<PathBuf> {
    fs::create_dir_all(dir).unwrap();
    let mut bones = vec![serde_json::json!({"name": "root", "at": [400, 300], "length": 0})];
    bones.extend((0..255).map(|i| {
        serde_json::json!({
            "name": format!("bone_with_a_long_name_{i:03}"),
            "parent": "root", "at": "origin", "length": 10,
            "angle": {"const_deg": i},
        })
    }));
    let clips: Vec<Value> = (0..8)
        .map(|k| serde_json::json!({"name": format!("c{k}"), "angles": {}}))
        .collect();
    (0..n)
        .map(|i| {
            let rig = serde_json::json!({
                "name": format!("reports-{i:03}"), "view_box": [0, 0, 800, 600],
                "period_s": 1, "bones": bones, "clips": clips,
            });
            let p = dir.join(format!("reports-{i:03}.json"));
            fs::write(&p, rig.to_string()).unwrap();
            p
        })
        .collect()
}

/// A batch keeps of each bake only what it prints or writes, not its
/// report: `bake -q` and `check -q` print nothing, so 80 rigs with big
/// reports ([`big_report_rigs`], about 23 MB of reports) bake and check on
/// two threads within a 36 MiB data limit (the release build needs 24 and
/// 25). When every report was kept to the end of the batch, `bake` needed
/// over 40 MiB and `check` over 72. `bake --report` still writes every
/// report.
#[cfg(target_os = "linux")]
#[test]
fn a_batch_keeps_no_report_it_does_not_print() {
    const LIMIT: u64 = 36 << 20;
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let rigs = big_report_rigs(&dir.join("rigs"), 80);
    let within_limit = |what: &str, c: &mut Command| succeeds_within(what, c, LIMIT);
    let out = dir.join("out");
    let bake = || {
        let mut c = rigbake(Some(2));
        c.arg("bake").args(&rigs).arg("-o").arg(&out);
        c
    };
    within_limit("bake", bake().arg("--quiet"));
    assert_eq!(fs::read_dir(&out).unwrap().count(), rigs.len());
    let checked = within_limit(
        "check",
        rigbake(Some(2))
            .arg("check")
            .args(&rigs)
            .args(["--max-error", "1000", "--quiet"]),
    );
    assert!(checked.stdout.is_empty() && checked.stderr.is_empty());
    // (what is kept when a report is asked is what it is made of)
    let report = dir.join("report.json");
    let written = bake()
        .arg("--quiet")
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert!(written.status.success());
    let reports: Value = serde_json::from_str(&fs::read_to_string(&report).unwrap()).unwrap();
    let reports = reports.as_array().unwrap();
    assert_eq!(reports.len(), rigs.len());
    for (r, rig) in reports.iter().zip(&rigs) {
        assert_eq!(r["rig"].as_str().unwrap(), name_of(rig));
        assert_eq!(r["bones"].as_array().unwrap().len(), 255 * 8);
    }
}

/// A batch of two rigs on one thread whose first output is staged slowly
/// (the debug-only stall hook), so the test can rewrite the second rig's
/// file after the batch validated it and before the batch reads it again
/// to bake it: `change(path)` rewrites it. Returns the call's output.
fn rewritten_mid_batch(dir: &Path, rigs: &[PathBuf], change: impl FnOnce(&Path)) -> Output {
    use std::time::{Duration, Instant};
    let child = rigbake(Some(1))
        .env("RIGBAKE_TEST_STALL_MS", "2000")
        .arg("bake")
        .args(rigs)
        .arg("-o")
        .arg(dir.join("out"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // the first rig's SVG is being staged: the second is not read yet
    let deadline = Instant::now() + Duration::from_secs(30);
    while temporaries(dir).is_empty() {
        assert!(Instant::now() < deadline, "no temporary");
        std::thread::sleep(Duration::from_millis(5));
    }
    change(&rigs[1]);
    child.wait_with_output().unwrap()
}

#[test]
fn a_rig_rewritten_between_validation_and_bake_is_baked_as_read_then_or_refused() {
    // rewritten as another valid rig of the same name: baked as it now reads
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let rigs = baked_once(dir, 3);
    let rigs = &rigs[..2];
    let other = fs::read_to_string(dir.join("rigs/rig-0002.json"))
        .unwrap()
        .replacen("gen-0002", "gen-0001", 1);
    let out = rewritten_mid_batch(dir, rigs, |p| fs::write(p, &other).unwrap());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let alone = dir.join("alone");
    fs::create_dir(&alone).unwrap();
    fs::write(alone.join("rig.json"), &other).unwrap();
    let baked = rigbake(Some(1))
        .arg("bake")
        .arg(alone.join("rig.json"))
        .arg("-o")
        .arg(alone.join("out"))
        .output()
        .unwrap();
    assert!(baked.status.success());
    assert!(
        fs::read(dir.join("out/gen-0001.svg")).unwrap()
            == fs::read(alone.join("out/gen-0001.svg")).unwrap()
    );

    // renamed (its output would not be the file checked), or no longer a
    // rig: the error names the file, and nothing is written
    let renamed = |p: &Path| {
        let text = fs::read_to_string(p).unwrap();
        fs::write(p, text.replacen("gen-0001", "renamed", 1)).unwrap();
    };
    let broken = |p: &Path| {
        let text = fs::read_to_string(p).unwrap();
        fs::write(p, &text[..text.len() / 2]).unwrap();
    };
    for (how, change, needles) in [
        (
            "renamed",
            &renamed as &dyn Fn(&Path),
            &["changed while the batch ran", "\"renamed\"", "\"gen-0001\""][..],
        ),
        ("broken", &broken, &["EOF while parsing"][..]),
    ] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        let rigs = baked_once(dir, 2);
        let before = snapshot(&dir.join("out"));
        let out = rewritten_mid_batch(dir, &rigs, change);
        let file = rigs[1].display().to_string();
        let mut n = vec![file.as_str()];
        n.extend(needles);
        refused(&out, &n);
        assert!(out.stdout.is_empty(), "{how}");
        assert!(
            snapshot(&dir.join("out")) == before,
            "{how}: outputs changed"
        );
        assert!(temporaries(dir).is_empty(), "{how}");
    }
}
