//! Every probe of every file in `out/` stays inside the file's view box over
//! the whole period of every clip.
//!
//! `out/` holds exactly what `rigs/*.json` bake to (pinned byte for byte by
//! `tests/golden.rs`), so each rig is baked here on both routes as the CLI
//! does and the written clips are evaluated by the measure stage
//! ([`measure::probes_at`]) at its own sample times: every key time of every
//! animation plus points in between. A bone-tree rig's every clip is checked
//! (a class-switched css file holds them all).

use rigbake::bake::BakeOptions;
use rigbake::clip::Clip;
use rigbake::measure;
use rigbake::rig::{self, Rig};
use rigbake::{Route, bake_rig};
use std::path::Path;

mod common;

/// Every clip a rig's files hold on `route`, baked as the CLI does.
fn clips(rig: &Rig, route: Route) -> Vec<Clip> {
    bake_rig(rig, &BakeOptions::resolve(rig, route, None, None, None)).clips
}

/// The x of every ground dot drawn in `svg` (the row at rest).
fn ground_dots(svg: &str) -> Vec<f64> {
    common::ground_dots(svg).iter().map(|d| d.0).collect()
}

/// `(clip, probe, t_s, x, y)` of every sampled probe position outside the
/// clip's view box, the `ground` probe included (a row whose travel per
/// loop is longer than the view box is wide wraps back by one dot spacing
/// as it goes, so its probe stays in view too). The row of dots itself
/// (`dots`, their x at rest) must also cover the view box's width at every
/// time: a gap at its edge is reported as the probe `ground row`.
fn outside(clip: &Clip, dots: &[f64]) -> Vec<(String, String, f64, f64, f64)> {
    let [x0, y0, w, h] = clip.view_box;
    let mut out = Vec::new();
    let ts = measure::sample_times(clip);
    // at most ~4000 times per clip: the probes move smoothly between them
    // (and every time within a wrapping row's step, where it does not)
    let step = ts.len().div_ceil(4000).max(1);
    let stepping = |t: f64| {
        let u = measure::ground_unwrap(clip, t).x / clip.ground_wrap_px.unwrap_or(1.0);
        u.fract() != 0.0
    };
    let samples: Vec<_> = ts
        .iter()
        .enumerate()
        .filter(|&(i, &t)| i % step == 0 || i + 1 == ts.len() || stepping(t))
        .map(|(_, &t)| (t, measure::probes_at(clip, t)))
        .collect();
    let start_x = measure::probes_at(clip, 0.0)
        .get("ground")
        .map_or(0.0, |p| p.x);
    let (lo, hi) = dots
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), &x| {
            (l.min(x), h.max(x))
        });
    let spacing = if dots.len() > 1 {
        (hi - lo) / (dots.len() - 1) as f64
    } else {
        w
    };
    for (t, probes) in samples {
        for (name, p) in probes {
            if name == "ground" && !dots.is_empty() {
                // the row's offset since t = 0, applied to every dot
                let dx = p.x - start_x;
                if lo + dx > x0 + spacing || hi + dx < x0 + w - spacing {
                    out.push((clip.name.clone(), "ground row".into(), t, lo + dx, p.y));
                }
            }
            if !(x0..=x0 + w).contains(&p.x) || !(y0..=y0 + h).contains(&p.y) {
                out.push((clip.name.clone(), name, t, p.x, p.y));
            }
        }
    }
    out
}

fn rig_at(path: &Path) -> Rig {
    let text = std::fs::read_to_string(path).unwrap();
    rig::load(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_probe_of_every_example_stays_inside_the_view_box() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths = common::example_rigs();
    assert!(paths.len() >= 10, "rigs/ holds {} rigs", paths.len());
    let mut bad = Vec::new();
    let mut probes = 0;
    for path in &paths {
        let rig = rig_at(path);
        for route in [Route::Css, Route::Smil] {
            let file = match route {
                Route::Css => format!("{}.svg", rig.name),
                Route::Smil => format!("{}.smil.svg", rig.name),
            };
            let dots = ground_dots(&std::fs::read_to_string(root.join("out").join(file)).unwrap());
            for clip in clips(&rig, route) {
                probes += measure::probes_at(&clip, 0.0).len();
                for (c, probe, t, x, y) in outside(&clip, &dots).into_iter().take(3) {
                    bad.push(format!(
                        "{} ({}, clip {c}): {probe} at ({x:.2}, {y:.2}), t = {t:.4} s, outside view box {:?}",
                        path.file_name().unwrap().to_string_lossy(),
                        route.as_str(),
                        rig.view_box
                    ));
                }
            }
        }
    }
    assert!(probes > 100, "only {probes} probes looked at");
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The check sees a figure that leaves its canvas: the same rig with the
/// view box's right edge pulled in past the pedals fails it.
#[test]
fn a_probe_leaving_the_view_box_is_caught() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("rigs/cyclist.json")).unwrap();
    let mut file: serde_json::Value = serde_json::from_str(&text).unwrap();
    // the front pedal reaches x = 470; an edge at 460 cuts it off for part of the turn
    file["view_box"] = serde_json::json!([0, 0, 460, 600]);
    let rig = rig::load(&file.to_string()).unwrap();
    let clip = &clips(&rig, Route::Css)[0];
    let out = outside(clip, &[]);
    assert!(
        out.iter().any(|(_, p, ..)| p == "shin-tip"),
        "the near ankle crosses x = 460, yet nothing was reported: {out:?}"
    );
    assert!(
        out.iter().all(|&(_, _, _, x, _)| x > 460.0),
        "only points past the right edge are outside: {out:?}"
    );
}

/// The ground rows are judged too: run-up's row (keyed, wrapping) covers
/// the view box at every time and its probe stays inside, while the same
/// row cut to its first half leaves a gap that is caught, and the same rig
/// with its row written unwrapped (moved on by the steps it took) sends
/// its probe out of the view box, which is caught.
#[test]
fn a_ground_row_that_stops_short_or_scrolls_away_is_caught() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let rig = rig_at(&root.join("rigs/run-up.json"));
    let svg = std::fs::read_to_string(root.join("out/run-up.svg")).unwrap();
    let dots = ground_dots(&svg);
    assert!(dots.len() > 10, "{dots:?}");
    let clip = &clips(&rig, Route::Css)[0];
    let whole = outside(clip, &dots);
    assert!(whole.is_empty(), "{whole:?}");
    let half = &dots[..dots.len() / 2];
    let cut = outside(clip, half);
    assert!(
        cut.iter().any(|(_, p, ..)| p == "ground row"),
        "a row of {} dots leaves the view box's right edge bare, yet nothing was reported",
        half.len()
    );
    // unwrap the row: each key moved on by the steps taken before it
    let wrap = clip.ground_wrap_px.expect("run-up's row wraps");
    let mut unwrapped = clip.clone();
    let ground = unwrapped
        .tracks
        .iter_mut()
        .find(|t| t.name.ends_with("ground"))
        .unwrap();
    let mut steps = 0.0;
    let mut prev = ground.keys[0].value;
    for k in ground.keys.iter_mut() {
        if k.value - prev > wrap / 2.0 {
            steps += 1.0;
        }
        prev = k.value;
        k.value -= steps * wrap;
    }
    assert!(steps > 10.0, "{steps} steps");
    unwrapped.ground_wrap_px = None;
    let away = outside(&unwrapped, &[]);
    assert!(
        away.iter().any(|(_, p, ..)| p == "ground"),
        "a row scrolling {:.0} px left in a {}-px view box, yet its probe was not caught",
        steps * wrap,
        clip.view_box[2]
    );
}
