//! Progress on batch bakes: a "baking i/n" line on stderr only when stderr
//! is a terminal, nothing at all otherwise (pipes, logs, CI), and nothing
//! with --quiet.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const RIGS: [&str; 3] = [
    "rigs/seed-nested.json",
    "rigs/seed-smil.json",
    "rigs/recumbent.json",
];

#[test]
fn no_progress_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .current_dir(root())
        .arg("bake")
        .args(RIGS)
        .arg("-o")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
}

/// Runs the batch bake under `script`, which gives it a pseudo-terminal.
fn under_a_terminal(quiet: bool) -> Option<String> {
    let have_script = Command::new("script").arg("--version").output().is_ok();
    if !have_script {
        eprintln!("skipping terminal progress test: `script` (util-linux) not found");
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let cmd = format!(
        "{} bake {} -o {}{}",
        env!("CARGO_BIN_EXE_rigbake"),
        RIGS.join(" "),
        dir.path().display(),
        if quiet { " --quiet" } else { "" }
    );
    let out = Command::new("script")
        .current_dir(root())
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 3);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_on_a_terminal_and_none_with_quiet() {
    let Some(text) = under_a_terminal(false) else {
        return;
    };
    for i in 1..=3 {
        assert!(text.contains(&format!("baking {i}/3: ")), "{text:?}");
    }
    // the line is erased before the summary
    assert!(text.contains("\r\x1b[2K"), "{text:?}");
    let quiet = under_a_terminal(true).unwrap();
    assert!(!quiet.contains("baking"), "{quiet:?}");
}
