//! `rigbake preview`: a PNG frame strip through headless Chromium, a clear
//! exit-2 error when Chromium is missing, and nothing written on failure.
//!
//! The rendering test needs Chromium; without one it is skipped with a
//! notice on stderr, unless `CI=true`, where it fails.

use assert_cmd::Command;
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn rigbake() -> Command {
    let mut c = Command::cargo_bin("rigbake").unwrap();
    c.current_dir(root());
    c
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

/// Whether Chromium is here to render with; without it a rendering test
/// is skipped with a notice, except under `CI=true`, where it fails.
fn chromium_or_skip() -> bool {
    if rigbake::browser::find_chromium().is_some() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but no Chromium found"
    );
    eprintln!("skipping preview rendering test: no Chromium found");
    false
}

#[test]
fn strip_has_one_frame_per_requested_moment() {
    if !chromium_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("strip.png");
    for (route, frames) in [("css", 5usize), ("smil", 3)] {
        let out = rigbake()
            .args(["preview", "rigs/seed-nested.json", "-o"])
            .arg(&png)
            .args(["--frames", &frames.to_string(), "--route", route])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{route}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let bytes = std::fs::read(&png).unwrap();
        let (w, h) = png_size(&bytes);
        assert_eq!(
            w,
            rigbake::browser::STRIP_FRAME_WIDTH_PX * frames as u32,
            "{route}"
        );
        // seed-nested's viewBox is 800 x 600
        assert_eq!(h, rigbake::browser::STRIP_FRAME_WIDTH_PX * 3 / 4, "{route}");
    }
    // only the PNG is left: the temporary file was renamed into place
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(names.len(), 1);
}

/// The class of every drawing's shape: each rig in `rigs/` previews with
/// its drawing in every frame, its ink spanning at least a quarter of the
/// frame's width or height (a 640 × 360 viewBox, `recumbent.json`'s, came out as
/// the knees' tips on a blank strip: Chromium shot a window under about
/// 140 px tall wrongly, so a frame is at least
/// [`rigbake::browser::STRIP_FRAME_MIN_HEIGHT_PX`] tall).
#[test]
fn every_rig_previews_its_whole_drawing_in_every_frame() {
    if !chromium_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut rigs: Vec<_> = std::fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    rigs.sort();
    assert!(rigs.len() >= 10);
    let frames = 2;
    for rig in rigs {
        let name = rig.file_stem().unwrap().to_string_lossy().into_owned();
        let png = dir.path().join(format!("{name}.png"));
        let out = rigbake()
            .arg("preview")
            .arg(&rig)
            .arg("-o")
            .arg(&png)
            .args(["--frames", &frames.to_string()])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&png).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let channels = info.color_type.samples();
        assert_eq!(info.bit_depth, png::BitDepth::Eight, "{name}");
        let (w, h) = (info.width as usize, info.height as usize);
        assert!(
            h as u32 >= rigbake::browser::STRIP_FRAME_MIN_HEIGHT_PX,
            "{name}: {h} px tall"
        );
        let frame_w = w / frames;
        let inked = |x: usize, y: usize| {
            let px = &buf[(y * w + x) * channels..][..channels.min(3)];
            px.iter().any(|&c| c < 200)
        };
        for f in 0..frames {
            let columns = f * frame_w..(f + 1) * frame_w;
            let rows: Vec<usize> = (0..h)
                .filter(|&y| columns.clone().any(|x| inked(x, y)))
                .collect();
            let cols: Vec<usize> = columns
                .clone()
                .filter(|&x| (0..h).any(|y| inked(x, y)))
                .collect();
            let span = |v: &[usize]| v.last().map_or(0, |l| l + 1 - v[0]);
            let (tall, wide) = (span(&rows), span(&cols));
            assert!(
                tall * 4 >= h || wide * 4 >= frame_w,
                "{name}: frame {f}'s drawing spans {wide} × {tall} px of {frame_w} × {h}"
            );
        }
    }
}

#[test]
fn missing_chromium_is_a_clear_input_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("strip.png");
    let out = rigbake()
        .env_remove("RIGBAKE_CHROMIUM")
        .env("PATH", dir.path())
        .args(["preview", "rigs/seed-nested.json", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("Chromium") && err.contains("RIGBAKE_CHROMIUM"),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn frame_count_out_of_range_is_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("strip.png");
    for n in ["0", "33"] {
        let out = rigbake()
            .args(["preview", "rigs/seed-nested.json", "--frames", n, "-o"])
            .arg(&png)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--frames {n}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("--frames"));
    }
    assert!(!png.exists());
}
