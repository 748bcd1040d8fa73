//! Output bytes do not depend on the run, the locale, the working directory
//! or how the rig paths are spelled: every rig in `rigs/`, both routes,
//! baked twice under different locales from different directories, gives
//! the bytes committed in `out/` and the same report.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

mod common;

/// Every rig file in `rigs/`, sorted.
fn rigs() -> Vec<PathBuf> {
    let v = common::example_rigs();
    assert!(v.len() >= 10, "rigs/ holds {} rigs", v.len());
    v
}

/// Bakes every rig (both routes) into a fresh directory from `cwd`, with
/// the rig paths given relative to `cwd`, under `locale`; returns the
/// output files' bytes by name and the JSON report.
fn bake(cwd: &Path, locale: &str) -> (Vec<(String, Vec<u8>)>, Vec<u8>) {
    let out = tempfile::tempdir().unwrap();
    let rel: Vec<PathBuf> = rigs()
        .iter()
        .map(|p| {
            let up: PathBuf = cwd.components().skip(1).map(|_| "..").collect();
            up.join(p.strip_prefix("/").unwrap())
        })
        .collect();
    let o = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .current_dir(cwd)
        .env("LC_ALL", locale)
        .env("LANG", locale)
        .env("LC_NUMERIC", locale)
        .arg("bake")
        .args(&rel)
        .args(["--route", "both", "-q", "--report", "-", "-o"])
        .arg(out.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{locale} in {}: {}",
        cwd.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(out.path())
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    (files, o.stdout)
}

#[test]
fn output_bytes_do_not_depend_on_run_locale_or_directory() {
    let elsewhere = tempfile::tempdir().unwrap();
    let runs = [
        (repo("."), "C"),
        (elsewhere.path().to_path_buf(), "de_DE.UTF-8"),
        (repo("rigs"), "tr_TR.UTF-8"),
        (repo("."), "C"),
    ];
    let (first, first_report) = bake(&runs[0].0, runs[0].1);
    assert_eq!(first.len(), 2 * rigs().len());
    for (name, bytes) in &first {
        let committed = fs::read(repo("out").join(name)).unwrap();
        assert!(
            *bytes == committed,
            "{name} differs from out/{name} (regenerate out/ as the README says)"
        );
    }
    for (cwd, locale) in &runs[1..] {
        let (files, report) = bake(cwd, locale);
        assert!(
            files == first,
            "{locale} in {}: different output bytes",
            cwd.display()
        );
        assert!(
            report == first_report,
            "{locale} in {}: different report",
            cwd.display()
        );
    }
}
