//! Key reuse between limbs of bone-tree rigs (issue 12): chains of the same
//! shape whose motion is the same shifted in phase share one set of css
//! keyframes, the second played with a negative `animation-delay`; the
//! measure stage evaluates the shared track with its delay.

use rigbake::bake::BakeOptions;
use rigbake::clip::{Anim, Clip};
use rigbake::figure::{self, FigureBake, reuse};
use rigbake::geom::Vec2Ext;
use rigbake::rig::{self, Rig};
use rigbake::{Baked, Route, bake_rig, measure};
use std::path::Path;

mod common;

fn load_file(name: &str) -> Rig {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("rigs")
        .join(name);
    rig::load(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn bake(rig: &Rig, route: Route) -> Baked {
    bake_rig(rig, &BakeOptions::resolve(rig, route, None, None, None))
}

/// Every rotating group as `(class, track, delay_s)`.
fn rotations(clip: &Clip) -> Vec<(String, usize, f64)> {
    clip.groups()
        .into_iter()
        .filter_map(|g| match (&g.class, &g.anim) {
            (Some(c), Some(Anim::Rotate { track, delay_s, .. })) => {
                Some((c.clone(), *track, *delay_s))
            }
            _ => None,
        })
        .collect()
}

/// A figure with two arms of three bones each and names that say nothing
/// of which is which; `shift` is the second arm's phase lag (fraction of
/// the period) and `len2` its middle bone's length.
fn two_arms(shift: f64, len2: f64, amp2: f64) -> String {
    let phase = -shift * 360.0;
    format!(
        r##"{{
        "name": "arms", "view_box": [0, 0, 400, 300], "period_s": 1.5,
        "bones": [
            {{"name": "body", "at": [200, 150], "length": 40, "angle": {{"const_deg": -90}}}},
            {{"name": "p", "parent": "body", "at": "tip", "length": 30,
              "angle": {{"sine": {{"amp_deg": 30, "harmonic": 1, "phase_deg": 0, "offset_deg": 160}}}}}},
            {{"name": "q", "parent": "p", "at": "tip", "length": 25,
              "angle": {{"sine": {{"amp_deg": 20, "harmonic": 2, "phase_deg": 40, "offset_deg": -30}}}}}},
            {{"name": "r", "parent": "q", "at": "tip", "length": 10,
              "angle": {{"sine": {{"amp_deg": 10, "harmonic": 1, "phase_deg": 0}}}}}},
            {{"name": "zz", "parent": "body", "at": "tip", "length": 30, "style": {{"stroke": "#aa2222"}},
              "angle": {{"sine": {{"amp_deg": 30, "harmonic": 1, "phase_deg": {phase}, "offset_deg": 160}}}}}},
            {{"name": "aa", "parent": "zz", "at": "tip", "length": {len2},
              "angle": {{"sine": {{"amp_deg": {amp2}, "harmonic": 2, "phase_deg": {p2}, "offset_deg": -30}}}}}},
            {{"name": "m", "parent": "aa", "at": "tip", "length": 10,
              "angle": {{"sine": {{"amp_deg": 10, "harmonic": 1, "phase_deg": {phase}}}}}}}
        ]
    }}"##,
        p2 = 40.0 + 2.0 * phase
    )
}

/// The class: any phase shift on the grid (a third here), found from the
/// motion, not the names; the reused chain plays the source's tracks with
/// the delay `−shift · period`, and every bone stays within the default
/// tolerance as measured on the written file.
#[test]
fn a_chain_shifted_by_a_third_plays_the_first_chains_keys() {
    let rig = rig::load(&two_arms(1.0 / 3.0, 25.0, 20.0)).unwrap();
    let b = bake(&rig, Route::Css);
    let rot = rotations(&b.clip);
    let get = |c: &str| rot.iter().find(|r| r.0 == c).unwrap().clone();
    for (src, dst) in [("p", "zz"), ("q", "aa"), ("r", "m")] {
        let (s, d) = (get(&format!("rb-b-{src}")), get(&format!("rb-b-{dst}")));
        assert_eq!(s.1, d.1, "{dst} plays {src}'s track");
        assert_eq!(s.2, 0.0);
        // a third late is two thirds early
        assert_eq!(d.2, -1.0, "two thirds of 1.5 s");
    }
    for dst in ["zz", "aa", "m"] {
        let rules = common::css_rules(&b.svg, &format!("-b-{dst}"));
        assert!(rules.contains(&"animation-delay:-1s"), "{dst}: {rules:?}");
    }
    assert!(b.report.notes.iter().any(|n| n.contains("key reuse")));
    bones_within_the_default_tolerance(&b, "a third");
}

/// Every bone of `b` measures within the default tolerance (`what` names
/// the bake in a failure).
fn bones_within_the_default_tolerance(b: &Baked, what: &str) {
    for bone in &b.report.bones {
        assert!(
            bone.max_error_px <= rigbake::bake::DEFAULT_TOLERANCE_PX,
            "{what}, {}: {}",
            bone.name,
            bone.max_error_px
        );
    }
}

/// The class between the grid: a phase shift that is no multiple of
/// 1/720 of the period (a cycling leg 193.9° behind its pair, a lag of
/// 0.31234 periods, …) is found to the written microsecond, not only the
/// shifts on the search grid, and the reused chain still measures within
/// the default tolerance.
#[test]
fn a_shift_between_grid_times_is_found_to_the_microsecond() {
    for shift in [193.9 / 360.0, 0.31234, 0.0517, 0.97013, 0.5 + 0.25 / 720.0] {
        assert!(
            (shift * reuse::GRID as f64).fract() > 1e-3,
            "{shift} is off the grid"
        );
        let rig = rig::load(&two_arms(shift, 25.0, 20.0)).unwrap();
        let b = bake(&rig, Route::Css);
        let rot = rotations(&b.clip);
        let get = |c: &str| rot.iter().find(|r| r.0 == c).unwrap().clone();
        let want = -(1.0 - shift) * 1.5;
        for (src, dst) in [("p", "zz"), ("q", "aa"), ("r", "m")] {
            let (s, d) = (get(&format!("rb-b-{src}")), get(&format!("rb-b-{dst}")));
            assert_eq!(s.1, d.1, "shift {shift}: {dst} plays {src}'s track");
            assert!(
                (d.2 - want).abs() <= 1.0000001e-6,
                "shift {shift}: delay {} for {want}",
                d.2
            );
        }
        bones_within_the_default_tolerance(&b, &format!("shift {shift}"));
    }
}

/// Not the same shape (a bone longer) or not the same motion (another
/// amplitude) in the middle bone: the two arms keep keys of their own,
/// while their last bones (chains of one bone, the same shape and motion
/// half a period apart) still share theirs.
#[test]
fn other_shapes_and_other_motions_keep_their_own_keys() {
    for text in [two_arms(0.5, 26.0, 20.0), two_arms(0.5, 25.0, 21.0)] {
        let rig = rig::load(&text).unwrap();
        let b = bake(&rig, Route::Css);
        let rot = rotations(&b.clip);
        let get = |c: &str| rot.iter().find(|r| r.0 == c).unwrap().clone();
        for (src, dst) in [("p", "zz"), ("q", "aa")] {
            let (s, d) = (get(&format!("rb-b-{src}")), get(&format!("rb-b-{dst}")));
            assert_ne!(s.1, d.1, "{rot:?}");
            assert_eq!(d.2, 0.0);
        }
        // the one-bone chains r and m may share (when that measures no worse)
        let (r, m) = (get("rb-b-r"), get("rb-b-m"));
        assert!(m.2 == 0.0 || (m.1 == r.1 && m.2 == -0.75), "{rot:?}");
    }
}

/// The measure stage reads the delay: the same clip with the reused
/// chain's delay dropped is measured far off.
#[test]
fn the_measure_stage_evaluates_the_delay() {
    let rig = load_file("walker.json");
    let fig = &rig.figure;
    let fb = figure::bake_figure(&rig.name, rig.view_box, fig, Route::Css, None);
    let mut clip = fb.clips[0].clone();
    let mut dropped = 0;
    fn undelay(n: &mut rigbake::clip::Node, k: &mut usize) {
        if let Some(Anim::Rotate { delay_s, .. }) = &mut n.anim
            && *delay_s != 0.0
        {
            *delay_s = 0.0;
            *k += 1;
        }
        for c in &mut n.children {
            if let rigbake::clip::Item::Group(g) = c {
                undelay(g, k);
            }
        }
    }
    undelay(&mut clip.root, &mut dropped);
    assert_eq!(dropped, 4, "thigh, shin, upper and fore arm");
    let probe = |c: &Clip| {
        let ts = measure::sample_times(c);
        ts.iter()
            .map(|&t| {
                let a = measure::probes_at(c, t)["shin_n-tip"];
                let u = (t / c.period_s).rem_euclid(1.0);
                let want = figure::fk::ik_ideal(fig, &fig.clips[0], u)[1];
                a.dist(want)
            })
            .fold(0.0, f64::max)
    };
    assert!(probe(&fb.clips[0]) < 0.05, "{}", probe(&fb.clips[0]));
    assert!(probe(&clip) > 10.0, "{}", probe(&clip));
}

/// The gait rigs reuse the far leg and the far arm on the css route (one
/// keyframes block each for two limbs), never on smil (where values are
/// written per element anyway), and every probe measures no worse than the
/// same rig baked with keys of its own, or within the default bake's goal
/// (0.25 px, its channels fitted to 0.2 px); foot slip no worse in any
/// case. stickman reuses them in its walk clip (the first).
#[test]
fn walker_jogger_runner_and_stickman_reuse_their_far_limbs() {
    use rigbake::figure::bake::{ChannelKeys, Keyer};
    // what a default bake keys with first (`fitted (cubic or linear,
    // whichever writes fewer bytes per channel or IK limb) to 0.2 px`),
    // to keep its goal
    let (budget, goal) = (0.2, rigbake::bake::DEFAULT_TOLERANCE_PX);
    let keyer = Keyer {
        keys: ChannelKeys::Budget(budget),
        fit: rigbake::fit::Fit::Cubic,
        shortest_shape: true,
    };
    for name in ["walker.json", "jogger.json", "runner.json", "stickman.json"] {
        let rig = load_file(name);
        let fig = &rig.figure;
        let plan = reuse::plan(fig, Route::Css);
        assert_eq!(plan.chains[0].len(), 2, "{name}: {:?}", plan.chains);
        assert!(!reuse::plan(fig, Route::Smil).reuses());
        let css = bake(&rig, Route::Css);
        let rot = rotations(&css.clip);
        let delayed: Vec<_> = rot.iter().filter(|r| r.2 < 0.0).collect();
        assert_eq!(delayed.len(), 4, "{name}: {rot:?}");
        let half = -(css.clip.period_s / 2.0);
        assert!(delayed.iter().all(|r| (r.2 - half).abs() < 1e-9));
        // the far limb's rules name the near limb's keyframes
        let anim = |bone: &str| {
            common::animation_name(&css.svg, &format!("-b-{bone}"))
                .unwrap_or_else(|| panic!("{name}: no animation rule for {bone}"))
        };
        for (near, far) in [
            ("thigh_f", "thigh_n"),
            ("shin_f", "shin_n"),
            ("uarm_f", "uarm_n"),
        ] {
            assert_eq!(anim(near), anim(far), "{name}");
            let body = format!("@keyframes {}{{", anim(near));
            assert_eq!(css.svg.matches(&body).count(), 1, "{name}");
        }
        let smil = bake(&rig, Route::Smil);
        assert!(!smil.svg.contains("begin="), "{name}");
        let leg = css.report.legs.iter().find(|l| l.reuses.is_some()).unwrap();
        assert!(
            leg.reuses.as_deref().unwrap().ends_with("thigh_f-shin_f"),
            "{name}: {:?}",
            leg.reuses
        );
        // against the same rig with keys of its own, keyed alike: smaller,
        // and no probe worse unless within the goal
        let (fb, own) = to_goal_and_own(&rig, keyer, goal);
        assert_eq!(fb.svg, css.svg, "{name}: the default bake keys as `keyer`");
        assert!(
            fb.svg.len() < own.svg.len(),
            "{name}: {} vs {} bytes",
            fb.svg.len(),
            own.svg.len()
        );
        no_worse_or_within(name, &fb, &own, goal);
    }
}

/// A bone-tree rig baked on the css route with its channels keyed as
/// `keyer`, its reuse pairs judged against `goal` as a bake to that goal
/// judges them; and with keys of its own, keyed alike.
fn to_goal_and_own(
    rig: &Rig,
    keyer: rigbake::figure::bake::Keyer,
    goal: f64,
) -> (FigureBake, FigureBake) {
    let fig = &rig.figure;
    let ideal = figure::ideal::Ideal::default();
    let route = (Route::Css, keyer, Some(goal));
    let fb = figure::bake_figure_shared(&rig.name, rig.view_box, fig, route, None, &ideal);
    let none = reuse::Plan::none(fig);
    let keyed = (Route::Css, keyer);
    let own = figure::bake_planned_keyed(&rig.name, rig.view_box, fig, keyed, None, &none);
    (fb, own)
}

/// Every probe of `fb` (every clip) measures no worse than in `own` at the
/// report's four decimals or is within `goal`; no foot slips more than
/// 0.005 px a step more, and no target is reached less.
fn no_worse_or_within(name: &str, fb: &FigureBake, own: &FigureBake, goal: f64) {
    let q = |x: f64| (x * 1e4).round();
    let passes = |a: f64, b: f64| q(a) <= q(b) || q(a) <= q(goal);
    for ((_, ma), (_, mb)) in fb.measures.iter().zip(&own.measures) {
        for (a, b) in ma.iter().zip(mb) {
            assert!(
                passes(a.max_error_px, b.max_error_px),
                "{name} at {goal}: {}",
                a.name
            );
        }
    }
    for (a, b) in fb.ik.iter().zip(&own.ik) {
        let (ea, eb) = (a.measure.max_error_px, b.measure.max_error_px);
        assert!(passes(ea, eb), "{name} at {goal}: {}", a.leg.name);
        if let (Some(sa), Some(sb)) = (a.measure.slip_px, b.measure.slip_px) {
            assert!(
                sa <= sb + 0.005,
                "{name} at {goal}: {} slip {sa} vs {sb}",
                a.leg.name
            );
        }
        assert_eq!(
            a.measure.slip_px.is_some(),
            b.measure.slip_px.is_some(),
            "{name}"
        );
        match (a.measure.reach_px, b.measure.reach_px) {
            (Some(ra), Some(rb)) => assert!(q(ra) <= q(rb), "{name} at {goal}: reach {ra} vs {rb}"),
            (ra, rb) => assert_eq!(ra.is_some(), rb.is_some(), "{name} at {goal}: reach"),
        }
    }
}

/// The class of the rule above: at any goal, with the channels fitted to
/// the first budget a bake to that goal tries (0.8 of it), a bake that
/// judges its reuse pairs against the goal keeps every probe of every
/// figure in `rigs/` with a reuse plan, cycling rigs lowered to bones
/// included, no worse than keys of its own would, or within the goal;
/// foot slip and reach no worse.
#[test]
fn reuse_judged_against_any_goal_keeps_it_or_does_no_worse() {
    use rigbake::figure::bake::{ChannelKeys, Keyer};
    let (mut figures, mut reused) = (0, 0);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    paths.sort();
    for path in paths {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let rig = rig::load(&text).unwrap();
        let fig = &rig.figure;
        if !reuse::plan(fig, Route::Css).reuses() {
            continue;
        }
        figures += 1;
        for goal in [0.1, 0.25, 0.5] {
            let keyer = Keyer {
                keys: ChannelKeys::Budget(goal * 0.8),
                fit: rigbake::fit::Fit::Cubic,
                shortest_shape: true,
            };
            let (fb, own) = to_goal_and_own(&rig, keyer, goal);
            reused += fb.notes.iter().any(|n| n.starts_with("key reuse")) as usize;
            no_worse_or_within(&name, &fb, &own, goal);
        }
    }
    assert!(figures >= 10, "only {figures} figures with a reuse plan");
    assert!(reused >= 2 * figures, "only {reused} bakes reused keys");
}

/// A cycling rig as `rigbake lower` writes it, its far pedal 193.9° behind
/// the near one (`tests/fixtures/browser/off_grid_reuse.json`, which the
/// browser suite also measures): the far leg plays the near leg's keys at
/// the delay of its phase, to the microsecond.
#[test]
fn a_lowered_cycling_rig_off_the_grid_reuses_its_far_leg() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/browser/off_grid_reuse.json");
    let rig = rig::load(&std::fs::read_to_string(path).unwrap()).unwrap();
    // 0.8 s × (1 − 193.9/360)
    near_leg_plays_the_far_legs_keys(&bake(&rig, Route::Css), -0.369111);
}

/// The near leg's thigh and shin (a lowered cycling rig or `ik_chains`)
/// play the far leg's tracks with the delay `delay_s`.
fn near_leg_plays_the_far_legs_keys(b: &Baked, delay_s: f64) {
    let rot = rotations(&b.clip);
    let get = |c: &str| rot.iter().find(|r| r.0.ends_with(c)).unwrap().clone();
    for bone in ["thigh", "shin"] {
        let (far, near) = (get(&format!("-far_{bone}")), get(&format!("-near_{bone}")));
        assert_eq!(far.1, near.1, "{bone}: {rot:?}");
        assert_eq!(far.2, 0.0);
        assert_eq!(near.2, delay_s, "{bone}");
    }
}

/// Where the interpolated samples are too coarse for the shift (two
/// `ik_chains` legs with backward knees on an ellipse, the far one 0.001°
/// behind: the table's error outweighs 0.002 of a step, and its search
/// drifted to a whole period), the shift is searched again on solved
/// angles: the far leg replays the near one's keys 0.001° late.
#[test]
fn a_shift_finer_than_the_table_is_found_on_solved_angles() {
    let chain = |name: &str, start: f64, extra: &str| {
        format!(
            r#"{{"name": "{name}", "root": {{"fixed": [200, 100]}}, "thigh": 90, "shin": 90,
                "knee": "backward"{extra}, "target": {{"ellipse": {{"center": [200, 230],
                "rx": 50, "ry": 20, "rotation_deg": 15, "direction": "cw", "start_deg": {start}}}}}}}"#
        )
    };
    let text = format!(
        r#"{{"name": "c", "view_box": [0, 0, 400, 320], "period_s": 1.6,
            "ik_chains": [{}, {}]}}"#,
        chain("near", 0.0, ""),
        chain("far", 359.999, r#", "depth_offset": [-6, -7]"#)
    );
    let rig = rig::load(&text).unwrap();
    let b = bake(&rig, Route::Css);
    // the near leg leads by 0.001° of 1.6 s: 4.4 µs, within one period
    near_leg_plays_the_far_legs_keys(&b, -0.000004);
    bones_within_the_default_tolerance(&b, "0.001°");
}

/// `n` root bones of one shape, each a sine a `1 / n` period behind the
/// last: any of them could play the first one's keys at its own delay.
fn fan(n: usize, keys: Option<usize>) -> String {
    let bones: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name": "f{i}", "at": [200, 150], "length": 20,
                  "angle": {{"sine": {{"amp_deg": 40, "harmonic": 1, "phase_deg": {p}}}}}}}"#,
                p = -360.0 * i as f64 / n as f64
            )
        })
        .collect();
    let keys = keys.map_or(String::new(), |k| format!(r#""keys": {k},"#));
    format!(
        r#"{{"name": "fan", "view_box": [0, 0, 400, 300], "period_s": 1.6, {keys}
            "bones": [{}]}}"#,
        bones.join(",")
    )
}

/// The class of replays at many delays: each distinct delay shifts its
/// source's key times into every probe's sample times, so a clip plays
/// replays at no more than [`reuse::MAX_REPLAY_DELAYS`] delays (16 chains
/// each a sixteenth behind the last once wrote 15, and 256 of them at the
/// most keys allowed took 18 s and 4 GB to measure); the other chains key
/// their own motion, every bone stays within the default tolerance, the
/// measure's sample times are what the work estimate counts for them
/// (uniform keys: N per delay and N of its own), and a figure with fewer
/// chains of one shape counts fewer.
#[test]
fn replays_play_at_no_more_than_the_most_delays_a_clip_allows() {
    for keys in [None, Some(61)] {
        let rig = rig::load(&fan(16, keys)).unwrap();
        let b = bake(&rig, Route::Css);
        let mut delays: Vec<u64> = rotations(&b.clip)
            .iter()
            .map(|r| r.2.to_bits())
            .filter(|&d| d != 0.0f64.to_bits())
            .collect();
        delays.sort_unstable();
        delays.dedup();
        assert_eq!(delays.len(), reuse::MAX_REPLAY_DELAYS, "{keys:?}");
        bones_within_the_default_tolerance(&b, "a fan of 16");
        let fig = &rig.figure;
        assert_eq!(reuse::replay_delays_bound(fig), reuse::MAX_REPLAY_DELAYS);
        if let Some(n) = keys {
            // the times the estimate counts bound the times measured
            let counted = measure::SAMPLES_PER_PERIOD + n * (1 + reuse::MAX_REPLAY_DELAYS);
            assert!(
                b.report.samples <= counted,
                "{} > {counted}",
                b.report.samples
            );
            // (61 keys: no delay, a sixteenth of the period or more,
            // lands a shifted key time on another)
            let times = measure::breakpoints(&b.clip).len();
            assert_eq!(times, n * (1 + reuse::MAX_REPLAY_DELAYS) + 1);
        }
    }
    for (n, bound) in [(1, 0), (2, 1), (3, 2)] {
        let rig = rig::load(&fan(n, None)).unwrap();
        assert_eq!(reuse::replay_delays_bound(&rig.figure), bound, "{n} chains");
    }
}
