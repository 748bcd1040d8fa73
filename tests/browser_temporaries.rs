//! A browser launch leaves nothing in the system's temporary directory: a
//! Chromium killed as soon as its result is in cannot remove its singleton
//! socket directory (`org.chromium.Chromium.*`), so the driver points the
//! browser's `TMPDIR` at the launch's own directory, which it removes.
//!
//! Alone in its test binary, so no other launch runs beside it. Needs
//! Chromium; without one it is skipped with a notice on stderr, unless
//! `CI=true`, where it fails.

use rigbake::browser::{self, Browser, SeekMode};

/// Entries of the system temporary directory that browsers leave.
fn browser_leftovers() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("org.chromium.") || n.starts_with("rust_mozprofile"))
        .collect();
    names.sort();
    names
}

#[test]
fn measuring_launches_leave_no_browser_temporaries() {
    let Some(chromium) = browser::find_chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no Chromium found"
        );
        eprintln!("skipped: no Chromium found (set RIGBAKE_CHROMIUM)");
        return;
    };
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let svg = std::fs::read_to_string(root.join("out/seed-nested.svg")).unwrap();
    let before = browser_leftovers();
    let mut engines = vec![Browser::chromium(chromium)];
    if let Some(firefox) = browser::find_firefox() {
        engines.push(Browser::firefox(firefox));
    }
    for b in &engines {
        for _ in 0..3 {
            let got = browser::probe_positions(b, &svg, SeekMode::WebAnimations, &[0.0, 0.3])
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(got.len(), 2);
        }
    }
    let left: Vec<String> = browser_leftovers()
        .into_iter()
        .filter(|n| !before.contains(n))
        .collect();
    assert!(
        left.is_empty(),
        "left in {}: {left:?}",
        std::env::temp_dir().display()
    );
}
