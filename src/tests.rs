//! Unit tests that need a whole loaded rig: they sit above every module,
//! beside the loader, so the stages they test stay free of it (see the
//! layers in `lib.rs`).

/// Every rig in `rigs/`, loaded, in file-name order.
fn example_rigs() -> Vec<(std::path::PathBuf, crate::rig::Rig)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs");
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("rigs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let rig = crate::rig::load(&std::fs::read_to_string(&path).expect("read"))
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path, rig)
        })
        .collect()
}

mod measure {
    use crate::clip::Clip;
    use crate::geom::Vec2Ext;
    use crate::measure::*;

    fn seed_clip(route: crate::Route) -> Clip {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let opts = crate::bake::BakeOptions {
            route,
            keying: crate::bake::Keying::Uniform(10),
            fit: crate::fit::Fit::Linear,
            shortest_shape: false,
        };
        crate::bake_rig(&rig, &opts).clip
    }

    /// Regression pin for the design source's "knee right, ankle wrong" bug:
    /// shin keys that do not subtract the thigh's delta. The measure stage
    /// reads only the written tracks, so it must see both ankles (the near
    /// leg replays the far leg's keys) fly off while the knees stay put.
    #[test]
    fn catches_shin_keys_that_forget_the_thigh_delta() {
        let good = seed_clip(crate::Route::Css);
        let mut bad = good.clone();
        let track = |name: &str| bad.tracks.iter().position(|t| t.name == name).unwrap();
        let (thigh, shin) = (track("rb-main-far_thigh"), track("rb-main-far_shin"));
        let thigh_keys = bad.tracks[thigh].keys.clone();
        for (k, tk) in bad.tracks[shin].keys.iter_mut().zip(&thigh_keys) {
            k.value += tk.value; // world delta instead of world − parent delta
        }
        let drift = |probe: &str| {
            (0..200)
                .map(|k| {
                    let t = k as f64 / 200.0 * good.period_s;
                    probes_at(&good, t)[probe].dist(probes_at(&bad, t)[probe])
                })
                .fold(0.0, f64::max)
        };
        for leg in ["far", "near"] {
            let ankle = drift(&format!("{leg}-ankle"));
            assert!(ankle > 50.0, "{leg} ankle moved {ankle} px");
            let knee = drift(&format!("{leg}_thigh-tip"));
            assert!(knee < 1e-9, "{leg} knee moved {knee} px");
        }
    }

    /// The indexed walk of the hot loops reads exactly what the map of
    /// names reads, points of morphs included.
    #[test]
    fn indexed_probes_match_the_map() {
        for route in [crate::Route::Css, crate::Route::Smil] {
            let chunks = crate::measure::tests::probe_walk_matches_the_map(&seed_clip(route));
            assert!(chunks > 1);
        }
    }

    /// The flattened walk (fixed groups composed once, groups without an
    /// asked probe left out) reads every probe of every clip of every rig
    /// in `rigs/`, as baked by default on both routes, bit for bit as the
    /// straightforward walk of the tree does.
    #[test]
    fn indexed_probes_match_the_map_on_every_example_rig() {
        let (mut clips, mut chunked) = (0, 0);
        for (path, rig) in super::example_rigs() {
            for route in [crate::Route::Css, crate::Route::Smil] {
                let opts = crate::bake::BakeOptions::resolve(&rig, route, None, None, None);
                let baked = crate::bake_rig(&rig, &opts);
                for clip in &baked.clips {
                    eprintln!("{} {route:?} {}", path.display(), clip.name);
                    let chunks = crate::measure::tests::probe_walk_matches_the_map(clip);
                    chunked += (chunks > 1) as usize;
                    clips += 1;
                }
            }
        }
        assert!(clips >= 32, "only {clips} clips checked");
        // most clips' sample times are walked in several chunks
        assert!(chunked * 2 > clips, "{chunked} of {clips} clips in chunks");
    }

    #[test]
    fn smil_bone_stretch_is_reported_and_small() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let opts = crate::bake::BakeOptions::resolve(&rig, crate::Route::Smil, None, None, None);
        let report = crate::bake_rig(&rig, &opts).report;
        assert_eq!(report.legs.len(), 2);
        for l in &report.legs {
            let s = l.max_bone_stretch_px.unwrap();
            assert!(s > 0.0 && s < 3.0, "{s}");
        }
    }
}

/// How many groups of `clip` move along written path data.
fn motion(clip: &crate::clip::Clip) -> usize {
    clip.groups()
        .iter()
        .filter(|g| matches!(g.anim, Some(crate::clip::Anim::Motion { .. })))
        .count()
}

/// Path targets of every segment kind, start and direction.
const PATHS: [&str; 4] = [
    r#"{"path": {"d": "M 160 250 C 190 222 260 222 280 250 C 260 278 190 278 160 250 Z"}}"#,
    r#"{"path": {"d": "m 150 240 l 60 -15 q 60 -10 70 25 L 150 240", "start": 0.37, "along": "reverse"}}"#,
    r#"{"path": {"d": "M 150 250 A 60 22 0 1 1 270 250 A 60 22 0 1 1 150 250 Z", "start": 0.8}}"#,
    r#"{"path": {"d": "M 150 250 L 150 250 L 250 250 L 200 280 Z", "start": 0.5, "along": "reverse"}}"#,
];

mod chain {
    use super::{PATHS, motion};
    use crate::Route;
    use crate::chain::*;
    use crate::geom::Vec2Ext;

    /// The pipeline's bake of a chain rig (loaded as the bone tree it
    /// lowers into) with `keys` uniform keys, or fitted to `tol`.
    fn bake(
        rig: &crate::rig::Rig,
        route: Route,
        keys: Option<usize>,
        tol: Option<f64>,
    ) -> crate::Baked {
        let opts = crate::fit::BakeOptions::resolve(rig, route, keys, tol, None);
        crate::bake_rig(rig, &opts)
    }

    /// Where chain `i` of a loaded chain rig aims at `t`, and its effector
    /// and target probes.
    fn aim(rig: &crate::rig::Rig, i: usize, t: f64) -> (crate::geom::Vec2, String, String) {
        let fig = &rig.figure;
        (
            fig.clips[0].targets[i].at(t),
            fig.tip_probe(fig.ik[i].lower),
            fig.target_probe(i),
        )
    }

    const RIG: &str = r#"{
      "name": "c", "view_box": [0, 0, 400, 300], "period_s": 0.8, "keys": 40,
      "ik_chains": [
        { "name": "near", "root": { "bob": { "center": [200, 164], "amp": 3 } },
          "target": { "gait": { "origin": [200, 230], "stride": 44, "step_height": 8, "duty": 0.62, "phase": 0.5 } },
          "thigh": 37, "shin": 37, "depth_offset": [-3, 2] },
        { "name": "arm", "root": { "ellipse": { "center": [100, 100], "rx": 20, "ry": 8 } },
          "target": { "circle": { "center": [160, 130], "radius": 15, "direction": "ccw" } },
          "thigh": 50, "shin": 40, "knee": "backward" }
      ]}"#;

    #[test]
    fn stance_splits_at_the_loop_boundary() {
        // the chains as validated (the loader lowers them afterwards)
        let file = crate::rig::parse(RIG).unwrap();
        let (chains, _) = validate(&file.ik_chains, None, file.period_s).unwrap();
        // phase 0.5, duty 0.62: stance from t = 0.5 to 1.12, i.e. [0.5, 1] and [0, 0.12]
        let s = chains[0].ideal().stance();
        assert_eq!(s.len(), 2);
        assert!((s[0].0 - 0.5).abs() < 1e-12 && (s[0].1 - 1.0).abs() < 1e-12);
        assert!(s[1].0 == 0.0 && (s[1].1 - 0.12).abs() < 1e-12);
        assert!(chains[1].ideal().stance().is_empty());
    }

    /// `path` targets move along written path data, pulled or not (the
    /// target probe is the target asked for, before any pull); on both
    /// routes the probe is then on the ideal target to rounding, for any
    /// start, direction and segment kind; every other kind stays keyed.
    #[test]
    fn path_targets_move_exactly_and_other_kinds_stay_keyed() {
        let chain = |target: &str, reach: &str| {
            format!(
                r#"{{ "name": "c", "view_box": [0, 0, 400, 300], "period_s": 0.9, "keys": 12,
                  "ik_chains": [{{ "name": "a", "root": {{ "fixed": [200, 100] }},
                    "target": {target}, "thigh": 100, "shin": 100, "reach": "{reach}" }}] }}"#
            )
        };
        let keyed = [
            r#"{"circle": {"center": [200, 250], "radius": 20}}"#,
            r#"{"ellipse": {"center": [200, 250], "rx": 30, "ry": 10}}"#,
            r#"{"gait": {"origin": [200, 250], "stride": 40, "step_height": 8, "duty": 0.6}}"#,
            r#"{"track": {"keys": [[0, [180, 250]], [0.5, [220, 250]], [1, [180, 250]]]}}"#,
            r#"{"bob": {"center": [200, 250], "amp": 4}}"#,
        ];
        for route in [Route::Css, Route::Smil] {
            for (i, target) in PATHS.iter().enumerate() {
                for reach in ["error", "pull"] {
                    let rig = crate::rig::load(&chain(target, reach)).unwrap();
                    let clip = bake(&rig, route, Some(12), None).clip;
                    assert_eq!(motion(&clip), 1, "{target} ({reach})");
                    for k in 0..=997 {
                        let t_s = 0.9 * k as f64 / 997.0;
                        let (want, _, probe) = aim(&rig, 0, t_s / 0.9);
                        assert_eq!(probe, "a-target");
                        let p = crate::measure::probes_at(&clip, t_s)[probe.as_str()];
                        let d = p.dist(want);
                        assert!(d < 2e-3, "{route:?} path {i} ({reach}) at {t_s} s: {d}");
                    }
                }
            }
            for target in keyed {
                let rig = crate::rig::load(&chain(target, "error")).unwrap();
                let clip = bake(&rig, route, Some(12), None).clip;
                assert_eq!(motion(&clip), 0, "{target}");
            }
        }
    }

    #[test]
    fn written_ankle_hits_the_ideal_target_at_every_key_on_both_routes() {
        // world → local under a moving root: at key times only rounding is left
        let rig = crate::rig::load(RIG).unwrap();
        for route in [Route::Css, Route::Smil] {
            let clip = bake(&rig, route, Some(40), None).clip;
            for k in 0..=40 {
                let t = k as f64 / 40.0;
                let probes = crate::measure::probes_at(&clip, t * clip.period_s);
                for i in 0..2 {
                    let (want, ankle, _) = aim(&rig, i, t);
                    let d = probes[ankle.as_str()].dist(want);
                    assert!(d < 0.03, "{route:?} {ankle} at t = {t}: {d}");
                }
            }
        }
    }

    /// A random reachable chain rig: bobbing or circling root, a gait or
    /// an ellipse target, pulled or exact reach.
    fn random_rig(bob: f64, stride: f64, duty: f64, gait: bool, pull: bool, rx: f64) -> String {
        let target = if gait {
            format!(
                r#"{{ "gait": {{ "origin": [200, 228], "stride": {stride}, "step_height": 10, "duty": {duty} }} }}"#
            )
        } else {
            format!(r#"{{ "ellipse": {{ "center": [210, 212], "rx": {rx}, "ry": 9 }} }}"#)
        };
        let reach = if pull { "pull" } else { "clamp" };
        format!(
            r#"{{ "name": "p", "view_box": [0, 0, 400, 300], "period_s": 0.7, "keys": 8,
              "ik_chains": [
                {{ "name": "one", "root": {{ "bob": {{ "center": [200, 164], "amp": {bob} }} }},
                  "target": {target}, "thigh": 38, "shin": 38, "reach": "{reach}" }},
                {{ "name": "two", "root": {{ "circle": {{ "center": [200, 166], "radius": {bob} }} }},
                  "target": {target}, "thigh": 38, "shin": 38, "knee": "backward",
                  "reach": "{reach}", "depth_offset": [-3, -2] }}
              ]}}"#
        )
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 10, .. Default::default() })]
        /// The measure stage (not the fitter) confirms every fitted chain bake.
        #[test]
        fn fitted_chain_bakes_never_exceed_the_tolerance(
            bob in 0.5..5.0f64, stride in 20.0..50.0f64, duty in 0.35..0.7f64,
            gait: bool, pull: bool, rx in 5.0..25.0f64, tol in 0.1..1.0f64,
        ) {
            let rig = crate::rig::load(&random_rig(bob, stride, duty, gait, pull, rx)).unwrap();
            for route in [Route::Css, Route::Smil] {
                let report = bake(&rig, route, None, Some(tol)).report;
                proptest::prop_assert_eq!(report.legs.len(), 2);
                for l in &report.legs {
                    proptest::prop_assert!(l.max_error_px <= tol, "{route:?} {}: {} > {tol}", l.name, l.max_error_px);
                }
            }
        }
    }
}

mod figure {
    use crate::Route;
    use crate::figure::*;
    use crate::geom::Rem1;
    use crate::geom::{Vec2, Vec2Ext};
    use crate::measure;

    /// At the times that are keys of both IK tracks only rounding is left
    /// between the written effector and the ideal target, on both routes
    /// (walker). (Each track places its own keys; between them, and where
    /// only one track has a key, the other's fitting error is left.)
    #[test]
    fn written_effector_hits_the_target_at_key_times_on_both_routes() {
        let text =
            std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rigs/walker.json"))
                .unwrap();
        let rig = crate::rig::load(&text).unwrap();
        let fig = &rig.figure;
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            let clip = &fb.clips[0];
            assert_eq!(fb.ik.len(), 2);
            for im in &fb.ik {
                let i = fig
                    .ik
                    .iter()
                    .position(|k| im.leg.name.starts_with(&fig.bones[k.upper].name))
                    .unwrap();
                let keys = &clip.tracks[im.leg.tracks[0]].keys;
                let lower = &clip.tracks[im.leg.tracks[1]].keys;
                assert!(keys.len() > 4);
                let shared: Vec<_> = keys
                    .iter()
                    .filter(|k| lower.iter().any(|l| l.t == k.t))
                    .collect();
                assert!(shared.len() >= 3, "{route:?} {}: {shared:?}", im.leg.name);
                for k in shared {
                    let got = measure::probes_at(clip, k.t * clip.period_s)[&im.leg.ankle_probe];
                    let want = fk::ik_ideal(fig, &fig.clips[0], k.t.rem1())[i];
                    assert!(
                        got.dist(want) < 0.01,
                        "{route:?} {} t = {}: {}",
                        im.leg.name,
                        k.t,
                        got.dist(want)
                    );
                }
                assert!(im.measure.max_error_px < 0.1, "{}", im.measure.max_error_px);
            }
        }
    }

    /// A bone tree's `ik` target probe on a `path` moves along the written
    /// path itself, as an `ik_chains` marker does (one motion group, no
    /// keys), within 2e-3 px of the target at every time, for any start,
    /// direction and segment kind, on both routes; in a class-switched
    /// clip it stays keyed.
    #[test]
    fn path_target_probes_move_exactly_unless_clips_switch() {
        use super::motion;
        let text = one_leg;
        for route in [Route::Css, Route::Smil] {
            for (i, target) in super::PATHS.iter().enumerate() {
                let rig = crate::rig::load(&text(target, "")).unwrap();
                let fig = &rig.figure;
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                let clip = &fb.clips[0];
                assert_eq!(motion(clip), 1, "{target}");
                assert!(fb.ik[0].target_error_px < 2e-3, "{target}");
                for k in 0..=997 {
                    let t_s = 0.9 * k as f64 / 997.0;
                    let p = measure::probes_at(clip, t_s)["shin-target"];
                    let d = p.dist(fig.clips[0].targets[0].at(t_s / 0.9));
                    assert!(d < 2e-3, "{route:?} path {i} at {t_s} s: {d}");
                }
                let clips = r#", "clips": [{"name": "walk"}, {"name": "hop", "play": "once"}]"#;
                let rig = crate::rig::load(&text(target, clips)).unwrap();
                let fig = &rig.figure;
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                assert!(fb.clips.iter().all(|c| motion(c) == 0), "{target}");
                assert!(fb.ik.iter().all(|m| m.target_error_px < 0.05), "{target}");
            }
        }
    }

    /// A hip at (200, 100) with a 100 + 100 leg aimed at `target`, over
    /// 0.9 s, with `clips` (`""`, or `, "clips": […]`).
    fn one_leg(target: &str, clips: &str) -> String {
        format!(
            r#"{{ "name": "f", "view_box": [0, 0, 400, 300], "period_s": 0.9 {clips},
              "bones": [{{ "name": "hip", "at": [200, 100], "length": 0 }},
                {{ "name": "thigh", "parent": "hip", "length": 100 }},
                {{ "name": "shin", "parent": "thigh", "length": 100 }}],
              "ik": [{{ "upper": "thigh", "lower": "shin", "target": {target} }}] }}"#
        )
    }

    /// A circle target (a `circle`, or an `ellipse` with equal radii, at
    /// any start, either direction, with a rotation) of a lone looping clip
    /// is a probe in a group turning once per period: within 0.01 px of the
    /// target at 997 times on both routes (the drawn point's rounding), with
    /// two keys; a non-circular
    /// ellipse stays keyed, and so does a circle in class-switched clips.
    #[test]
    fn circle_target_probes_turn_exactly() {
        let text = one_leg;
        let turning = |clip: &crate::clip::Clip| {
            fn count(items: &[crate::clip::Item], clip: &crate::clip::Clip) -> usize {
                items
                    .iter()
                    .map(|it| match it {
                        crate::clip::Item::Group(g) => {
                            let own = match &g.anim {
                                Some(crate::clip::Anim::Rotate { track, .. }) => {
                                    g.class.as_deref().is_some_and(|c| c.starts_with("rb-t-"))
                                        as usize
                                        * (clip.tracks[*track].keys.len() == 2) as usize
                                }
                                _ => 0,
                            };
                            own + count(&g.children, clip)
                        }
                        _ => 0,
                    })
                    .sum()
            }
            count(&clip.root.children, clip)
        };
        let circles = [
            r#"{"circle": {"center": [210, 245], "radius": 30}}"#,
            r#"{"circle": {"center": [190, 250], "radius": 25, "start_deg": 137, "direction": "ccw"}}"#,
            r#"{"ellipse": {"center": [200, 240], "rx": 20, "ry": 20, "rotation_deg": 33, "start_deg": -50}}"#,
        ];
        for route in [Route::Css, Route::Smil] {
            for target in circles {
                let rig = crate::rig::load(&text(target, "")).unwrap();
                let fig = &rig.figure;
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                let clip = &fb.clips[0];
                assert_eq!(turning(clip), 1, "{route:?} {target}");
                assert!(fb.ik[0].target_error_px < 0.01, "{target}");
                for k in 0..=997 {
                    let t_s = 0.9 * k as f64 / 997.0;
                    let p = measure::probes_at(clip, t_s)["shin-target"];
                    let d = p.dist(fig.clips[0].targets[0].at(t_s / 0.9));
                    assert!(d < 0.01, "{route:?} {target} at {t_s} s: {d}");
                }
                let clips = r#", "clips": [{"name": "walk"}, {"name": "hop", "play": "once"}]"#;
                let rig = crate::rig::load(&text(target, clips)).unwrap();
                let fig = &rig.figure;
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                assert!(fb.clips.iter().all(|c| turning(c) == 0), "{target}");
            }
            let oval = r#"{"ellipse": {"center": [200, 240], "rx": 30, "ry": 12}}"#;
            let rig = crate::rig::load(&text(oval, "")).unwrap();
            let fig = &rig.figure;
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            assert_eq!(turning(&fb.clips[0]), 0, "{route:?} oval");
        }
    }

    /// A circle target whose turning group would turn as a bone's group
    /// does (a crank about the circle's centre, once per period the same
    /// way, nothing above it moving) draws its probe in that bone's group
    /// and has no group of its own, within 0.01 px of the target at 997
    /// times on both routes, wherever the crank starts; a crank turning
    /// twice per period, the other way or about another point, or under a
    /// moving parent, leaves the target its own group, and so does a target
    /// drawn with a disc (the `limbs` look).
    #[test]
    fn a_circle_target_rides_a_crank_that_turns_with_it() {
        let rig_with = |crank: &str, parent: &str, x: i32| {
            format!(
                r#"{{ "name": "f", "view_box": [0, 0, 400, 300], "period_s": 0.9,
                  "bones": [{{ "name": "base", "at": [{x}, 245], "length": 0, "angle": {parent} }},
                    {{ "name": "crank", "parent": "base", "length": 30, "angle": {crank} }},
                    {{ "name": "hip", "at": [200, 100], "length": 0 }},
                    {{ "name": "thigh", "parent": "hip", "length": 100 }},
                    {{ "name": "shin", "parent": "thigh", "length": 100 }}],
                  "ik": [{{ "upper": "thigh", "lower": "shin",
                    "target": {{"circle": {{"center": [210, 245], "radius": 30, "start_deg": 40}}}} }}] }}"#
            )
        };
        let turn = |from: i32, by: i32| {
            format!(
                r#"{{"track": {{"keys": [[0, {from}], [1, {}]], "ease": "linear"}}}}"#,
                from + by
            )
        };
        let crank_of = |clip: &crate::clip::Clip| -> Option<Vec<String>> {
            fn find(items: &[crate::clip::Item]) -> Option<&crate::clip::Node> {
                items.iter().find_map(|it| match it {
                    crate::clip::Item::Group(g) if g.class.as_deref() == Some("rb-b-crank") => {
                        Some(g)
                    }
                    crate::clip::Item::Group(g) => find(&g.children),
                    _ => None,
                })
            }
            let g = find(&clip.root.children)?;
            Some(
                g.children
                    .iter()
                    .filter_map(|it| match it {
                        crate::clip::Item::Probe { name, .. } => Some(name.clone()),
                        _ => None,
                    })
                    .collect(),
            )
        };
        let own_group = |clip: &crate::clip::Clip| {
            clip.groups()
                .iter()
                .any(|g| g.class.as_deref().is_some_and(|c| c.starts_with("rb-t-")))
        };
        let still = r#"{"const_deg": 0}"#;
        let swaying = r#"{"sine": {"amp_deg": 10, "harmonic": 1}}"#;
        let cases = [
            (turn(40, 360), still, 210, true),
            (turn(-75, 360), still, 210, true),
            (turn(40, 720), still, 210, false),
            (turn(40, -360), still, 210, false),
            (turn(40, 360), still, 212, false),
            (turn(40, 360), swaying, 210, false),
        ];
        for route in [Route::Css, Route::Smil] {
            for (crank, parent, x, rides) in &cases {
                let what = format!("{route:?} crank {crank} at x {x} under {parent}");
                let rig = crate::rig::load(&rig_with(crank, parent, *x)).unwrap();
                let fig = &rig.figure;
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                let clip = &fb.clips[0];
                let in_crank = crank_of(clip)
                    .unwrap_or_else(|| panic!("{what}: no crank group"))
                    .contains(&"shin-target".to_string());
                assert_eq!(in_crank, *rides, "{what}");
                assert_eq!(own_group(clip), !*rides, "{what}");
                for k in 0..=997 {
                    let t_s = 0.9 * k as f64 / 997.0;
                    let p = measure::probes_at(clip, t_s)["shin-target"];
                    let d = p.dist(fig.clips[0].targets[0].at(t_s / 0.9));
                    assert!(d < 0.01, "{what} at {t_s} s: {d}");
                }
            }
            // drawn with a disc (limbs), the target keeps its group: the
            // disc stays behind every limb
            let limbs = rig_with(&turn(40, 360), still, 210).replace(
                r#""period_s": 0.9,"#,
                r#""period_s": 0.9, "style": "limbs","#,
            );
            let rig = crate::rig::load(&limbs).unwrap();
            let fig = &rig.figure;
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            assert!(own_group(&fb.clips[0]), "{route:?} limbs");
            assert!(fb.ik[0].target_error_px < 0.01, "{route:?} limbs");
        }
    }

    /// Of two cranks turning alike about one centre (the far one drawn
    /// first), the target rides the one whose tip is drawn at the target's
    /// point, on both routes: that crank's tip probe is left out (the two
    /// would move alike) and its report line reads the target probe, which
    /// follows the crank's ideal tip; the other crank keeps its tip probe.
    #[test]
    fn a_crank_tip_at_its_target_is_read_from_the_target_probe() {
        let rig = crate::rig::load(
            r#"{ "name": "f", "view_box": [0, 0, 400, 300], "period_s": 0.9,
              "bones": [
                { "name": "far", "at": [210, 245], "length": 30,
                  "angle": {"track": {"keys": [[0, 220], [1, 580]], "ease": "linear"}} },
                { "name": "near", "at": [210, 245], "length": 30,
                  "angle": {"track": {"keys": [[0, 40], [1, 400]], "ease": "linear"}} },
                { "name": "hip", "at": [200, 100], "length": 0 },
                { "name": "thigh", "parent": "hip", "length": 100 },
                { "name": "shin", "parent": "thigh", "length": 100 }],
              "ik": [{ "upper": "thigh", "lower": "shin",
                "target": {"circle": {"center": [210, 245], "radius": 30, "start_deg": 40}} }] }"#,
        )
        .unwrap();
        let fig = &rig.figure;
        let (far, near) = (0, 1);
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            let clip = &fb.clips[0];
            let probes_in = |bone: &str| -> Vec<String> {
                let class = format!("rb-b-{bone}");
                let g = clip
                    .groups()
                    .into_iter()
                    .find(|g| g.class.as_deref() == Some(class.as_str()))
                    .unwrap_or_else(|| panic!("{route:?}: no group {class}"));
                g.children
                    .iter()
                    .filter_map(|it| match it {
                        crate::clip::Item::Probe { name, .. } => Some(name.clone()),
                        _ => None,
                    })
                    .collect()
            };
            assert_eq!(probes_in("near"), ["shin-target"], "{route:?}");
            assert_eq!(probes_in("far"), ["far-tip"], "{route:?}");
            let tips = clip.bone_tips();
            assert_eq!(tips[near].as_deref(), Some("shin-target"), "{route:?}");
            assert_eq!(tips[far].as_deref(), Some("far-tip"), "{route:?}");
            // the near crank's line: the target probe against its ideal tip
            let ms = &fb.measures[0].1;
            assert!(ms[near].max_error_px < 0.01, "{route:?}: {:?}", ms[near]);
            let report = crate::report::build_figure(&fb, route);
            assert!(report.bones.iter().any(|b| b.name == "near"), "{route:?}");
            let mut worst = 0.0f64;
            for k in 0..=997 {
                let t_s = 0.9 * k as f64 / 997.0;
                let at = measure::probes_at(clip, t_s);
                let a = (40.0 + 360.0 * t_s / 0.9f64).to_radians();
                let tip = Vec2::new(210.0 + 30.0 * a.cos(), 245.0 + 30.0 * a.sin());
                worst = worst.max(at["shin-target"].dist(tip));
            }
            assert!(worst < 0.01, "{route:?}: {worst}");
        }
    }

    /// A circle target whose path is the path of a point of a bone's group
    /// (the pedal, turning with its crank and back, so each of its points
    /// translates round a circle of the crank's radius: a target offset
    /// from the pedal) is drawn in that group, on both routes, and measures
    /// as its ideal circle; a target on another circle keeps its own group.
    #[test]
    fn a_target_carried_by_a_bone_group_is_drawn_in_it() {
        let rig = |radius: f64| {
            crate::rig::load(&format!(
                r#"{{ "name": "c", "view_box": [0, 0, 400, 300], "period_s": 0.9,
                  "bones": [
                    {{ "name": "crank", "at": [210, 245], "length": 30,
                      "angle": {{"track": {{"keys": [[0, 40], [1, 400]], "ease": "linear"}}}} }},
                    {{ "name": "pedal", "parent": "crank", "length": 0,
                      "angle": {{"track": {{"keys": [[0, -40], [1, -400]], "ease": "linear"}}}} }},
                    {{ "name": "hip", "at": [200, 100], "length": 0 }},
                    {{ "name": "thigh", "parent": "hip", "length": 100 }},
                    {{ "name": "shin", "parent": "thigh", "length": 100 }}],
                  "ik": [{{ "upper": "thigh", "lower": "shin",
                    "target": {{"circle": {{"center": [214, 239], "radius": {radius}, "start_deg": 40}}}} }}] }}"#
            ))
            .unwrap()
        };
        for (radius, carried) in [(30.0, true), (31.0, false)] {
            let rig = rig(radius);
            let fig = &rig.figure;
            for route in [Route::Css, Route::Smil] {
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                let clip = &fb.clips[0];
                let holder = clip
                    .groups()
                    .into_iter()
                    .find(|g| {
                        g.children.iter().any(|it| {
                            matches!(it, crate::clip::Item::Probe { name, .. } if name == "shin-target")
                        })
                    })
                    .and_then(|g| g.class.clone())
                    .unwrap_or_default();
                let want = if carried { "rb-b-pedal" } else { "rb-t-shin" };
                assert!(holder.starts_with(want), "{radius} {route:?}: {holder}");
                let mut worst = 0.0f64;
                for k in 0..=997 {
                    let t_s = 0.9 * k as f64 / 997.0;
                    let at = measure::probes_at(clip, t_s);
                    let a = (40.0 + 360.0 * t_s / 0.9f64).to_radians();
                    let ideal = Vec2::new(214.0 + radius * a.cos(), 239.0 + radius * a.sin());
                    worst = worst.max(at["shin-target"].dist(ideal));
                }
                assert!(worst < 0.01, "{radius} {route:?}: {worst}");
            }
        }
    }

    /// A root's `depth_offset` puts its subtree where `at + depth_offset`
    /// would, every probe measuring alike on both routes; on css it draws
    /// it at `at` inside one translate of the root's group, so a far side
    /// given its near side's `at` (its keys replayed half a period late)
    /// shares the near side's rules and its file is smaller; on smil the
    /// file is the one the offset in `at` writes.
    #[test]
    fn a_depth_offset_moves_the_subtree_and_shares_the_near_sides_rules() {
        let rig = |far: &str| {
            let text = format!(
                r#"{{ "name": "d", "view_box": [0, 0, 400, 300], "period_s": 1,
                  "bones": [
                    {{ "name": "far", {far}, "length": 60,
                       "angle": {{"sine": {{"amp_deg": 30, "harmonic": 1, "phase_deg": 180, "offset_deg": 90}}}} }},
                    {{ "name": "far_low", "parent": "far", "length": 40,
                       "angle": {{"sine": {{"amp_deg": 20, "harmonic": 1, "phase_deg": 180}}}} }},
                    {{ "name": "near", "at": [200, 100], "length": 60,
                       "angle": {{"sine": {{"amp_deg": 30, "harmonic": 1, "offset_deg": 90}}}} }},
                    {{ "name": "near_low", "parent": "near", "length": 40,
                       "angle": {{"sine": {{"amp_deg": 20, "harmonic": 1}}}} }}] }}"#
            );
            crate::rig::load(&text).unwrap()
        };
        let offset = rig(r#""at": [200, 100], "depth_offset": [-6.25, -7]"#);
        let placed = rig(r#""at": [193.75, 93]"#);
        let d = Vec2::new(-6.25, -7.0);
        for route in [Route::Css, Route::Smil] {
            let bake = |r: &crate::rig::Rig| {
                let fig = &r.figure;
                bake_figure(&r.name, r.view_box, fig, route, None)
            };
            let (a, b) = (bake(&offset), bake(&placed));
            let (ca, cb) = (&a.clips[0], &b.clips[0]);
            // on css the far root's group is translated, nothing else is;
            // smil draws it where it stands (no rules to share)
            let moved: Vec<(Option<String>, Vec2)> = ca
                .groups()
                .iter()
                .filter(|g| g.translate != Vec2::ZERO)
                .map(|g| (g.class.clone(), g.translate))
                .collect();
            let want = match route {
                Route::Css => vec![(Some("rb-b-far".to_string()), d)],
                Route::Smil => Vec::new(),
            };
            assert_eq!(moved, want, "{route:?}");
            if route == Route::Smil {
                assert_eq!(a.svg, b.svg, "smil: the same file");
            }
            assert!(cb.groups().iter().all(|g| g.translate == Vec2::ZERO));
            let mut worst = 0.0f64;
            for k in 0..=400 {
                let t_s = k as f64 / 400.0;
                let (pa, pb) = (measure::probes_at(ca, t_s), measure::probes_at(cb, t_s));
                assert_eq!(pa.len(), pb.len(), "{route:?}");
                for (name, p) in &pa {
                    worst = worst.max(p.dist(pb[name]));
                }
            }
            // each written to 0.01 px, the far side from another place
            assert!(worst <= 0.02, "{route:?}: {worst}");
            for (ma, mb) in a.measures[0].1.iter().zip(&b.measures[0].1) {
                assert!(
                    (ma.max_error_px - mb.max_error_px).abs() <= 0.02,
                    "{route:?}: {ma:?} against {mb:?}"
                );
            }
            if route == Route::Css {
                let origins = |svg: &str| svg.matches("transform-origin").count();
                assert!(origins(&a.svg) < origins(&b.svg), "{route:?}\n{}", a.svg);
                assert!(
                    a.svg.len() < b.svg.len(),
                    "{} >= {}",
                    a.svg.len(),
                    b.svg.len()
                );
            }
        }
        // only a root takes one
        let err = crate::rig::load(
            r#"{ "name": "d", "view_box": [0, 0, 400, 300], "period_s": 1,
              "bones": [{ "name": "a", "at": [200, 100], "length": 60 },
                        { "name": "arm", "parent": "a", "length": 40, "depth_offset": [1, 2] }] }"#,
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("bones[1].depth_offset"), "{err}");
    }

    /// A `depth_offset` on every root of every example bone tree, each
    /// root's `at` moved back by it so the figure stands where it stood:
    /// every probe of every clip is where it was at every time, and every
    /// bone measures as it did, on both routes (springs, Verlet chains, a
    /// squash with a round head, moves, ground, clips, scene parts, targets
    /// riding cranks).
    #[test]
    fn a_depth_offset_on_every_root_leaves_every_example_where_it_was() {
        let d = [-6.0, -7.0];
        let mut checked = 0;
        for (path, plain) in super::example_rigs() {
            let text = std::fs::read_to_string(&path).unwrap();
            let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
            let Some(bones) = v["bones"].as_array_mut() else {
                continue;
            };
            for b in bones.iter_mut().filter(|b| b.get("parent").is_none()) {
                let at = [b["at"][0].as_f64().unwrap(), b["at"][1].as_f64().unwrap()];
                b["at"] = serde_json::json!([at[0] - d[0], at[1] - d[1]]);
                b["depth_offset"] = serde_json::json!(d);
            }
            let offset = crate::rig::load(&v.to_string()).unwrap();
            for route in [Route::Css, Route::Smil] {
                let bake =
                    |r: &crate::rig::Rig| bake_figure(&r.name, r.view_box, &r.figure, route, None);
                let (a, b) = (bake(&plain), bake(&offset));
                let what = format!("{} {route:?}", path.display());
                assert_eq!(a.clips.len(), b.clips.len(), "{what}");
                for (ca, cb) in a.clips.iter().zip(&b.clips) {
                    for k in 0..=120 {
                        let t_s = ca.period_s * k as f64 / 120.0;
                        let (pa, pb) = (measure::probes_at(ca, t_s), measure::probes_at(cb, t_s));
                        assert_eq!(pa.len(), pb.len(), "{what}");
                        for (name, p) in &pa {
                            let e = p.dist(pb[name]);
                            assert!(e <= 0.02, "{what} {} {name} at {t_s} s: {e} px", ca.name);
                        }
                    }
                }
                for ((_, ma), (_, mb)) in a.measures.iter().zip(&b.measures) {
                    for (x, y) in ma.iter().zip(mb) {
                        assert!(
                            (x.max_error_px - y.max_error_px).abs() <= 0.02,
                            "{what}: {x:?} against {y:?}"
                        );
                    }
                }
            }
            checked += 1;
        }
        assert!(checked >= 9, "{checked}");
    }

    /// Every `<lower>-target` probe follows its target within the keys'
    /// budget plus rounding, on both routes, for every example bone tree,
    /// every bone-tree fixture, and a target that a path target matches
    /// shifted in phase (a `track` back and forth along a line, whose probe
    /// once played the path target's keys although that one is written as
    /// a motion along its path and has none, so it stood still).
    #[test]
    fn every_target_probe_follows_its_target() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut rigs: Vec<(String, crate::rig::Rig)> = super::example_rigs()
            .into_iter()
            .map(|(p, r)| (p.display().to_string(), r))
            .collect();
        for f in [
            "browser/path_targets.json",
            "browser/moving_roots.json",
            "lowering/path-foot.json",
        ] {
            let text = std::fs::read_to_string(root.join("tests/fixtures").join(f)).unwrap();
            rigs.push((f.into(), crate::rig::load(&text).unwrap()));
        }
        let follower = r#"{ "name": "f", "view_box": [0, 0, 400, 320], "period_s": 1,
          "bones": [{"name": "p", "at": [200, 100], "length": 0},
            {"name": "p_thigh", "parent": "p", "length": 100},
            {"name": "p_shin", "parent": "p_thigh", "length": 100},
            {"name": "q", "at": [200, 100], "length": 0},
            {"name": "q_thigh", "parent": "q", "length": 100},
            {"name": "q_shin", "parent": "q_thigh", "length": 100}],
          "ik": [{"upper": "p_thigh", "lower": "p_shin",
                  "target": {"path": {"d": "M 150 250 L 250 250 L 150 250"}}},
                 {"upper": "q_thigh", "lower": "q_shin", "target": {"track": {"keys":
                  [[0, [250, 250]], [0.5, [150, 250]], [1, [250, 250]]], "ease": "linear"}}}] }"#;
        rigs.push(("follower".into(), crate::rig::load(follower).unwrap()));
        let mut checked = 0;
        for (name, rig) in &rigs {
            let fig = &rig.figure;
            for route in [Route::Css, Route::Smil] {
                let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
                for m in &fb.ik {
                    let e = m.target_error_px;
                    assert!(e <= 0.05, "{name} {route:?} {}: {e} px", m.leg.name);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 40, "{checked}");
    }

    /// A root bone's `move` carries it and its subtree by `mv(t) − mv(0)`:
    /// every tip of that subtree is the unmoved figure's tip plus the
    /// offset (an IK leg under a bobbing hip reaching the same fixed
    /// target), other roots stay put; on both routes the written probes
    /// follow within the default tolerance, with one translate group per
    /// axis that moves (the bob: y only; the slide: x only).
    #[test]
    fn root_bones_move_along_their_trajectories() {
        let text = |moves: bool| {
            let (hip, seat) = if moves {
                (
                    r#", "move": {"bob": {"center": [0, 0], "amp": 6}}"#,
                    r#", "move": {"track": {"keys": [[0, [0, 0]], [0.4, [-32, 0]], [1, [0, 0]]], "ease": "smoothstep"}}"#,
                )
            } else {
                ("", "")
            };
            format!(
                r#"{{ "name": "m", "view_box": [0, 0, 400, 320], "period_s": 1.6,
                  "bones": [{{ "name": "hip", "at": [200, 100], "length": 0 {hip} }},
                    {{ "name": "thigh", "parent": "hip", "length": 90 }},
                    {{ "name": "shin", "parent": "thigh", "length": 90 }},
                    {{ "name": "seat", "at": [120, 200], "length": 30 {seat},
                      "angle": {{ "sine": {{ "amp_deg": 20, "harmonic": 1 }} }} }},
                    {{ "name": "arm", "parent": "seat", "length": 20 }},
                    {{ "name": "post", "at": [60, 60], "length": 10 }}],
                  "ik": [{{ "upper": "thigh", "lower": "shin", "target": {{ "fixed": [240, 250] }} }}] }}"#
            )
        };
        let moving = crate::rig::load(&text(true)).unwrap();
        let still = crate::rig::load(&text(false)).unwrap();
        let (fm, fs) = (&moving.figure, &still.figure);
        let (cm, cs) = (&fm.clips[0], &fs.clips[0]);
        for k in 0..=64 {
            let t = k as f64 / 64.0;
            let (tm, ts) = (fk::tips(fm, cm, t), fk::tips(fs, cs, t));
            let bob = fm.bones[0].joint_at(t) - fm.bones[0].at;
            let slide = fm.bones[3].joint_at(t) - fm.bones[3].at;
            assert!(bob.x == 0.0 && bob.y <= 0.0 && slide.y == 0.0);
            // the hip and its thigh; the shin's tip stays on the target
            assert!(tm[0].dist(ts[0] + bob) < 1e-9, "t = {t}");
            assert!(tm[2].dist(Vec2::new(240.0, 250.0)) < 1e-9, "t = {t}");
            for b in [3, 4] {
                assert!(tm[b].dist(ts[b] + slide) < 1e-9, "t = {t} bone {b}");
            }
            assert_eq!(tm[5], ts[5]);
        }
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&moving.name, moving.view_box, fm, route, None);
            let clip = &fb.clips[0];
            let classes: Vec<&str> = clip
                .groups()
                .iter()
                .filter_map(|g| g.class.as_deref())
                .filter(|c| c.starts_with("rb-m-"))
                .collect();
            assert_eq!(classes, ["rb-m-hip-y", "rb-m-seat-x"], "{route:?}");
            for k in 0..=400 {
                let t_s = 1.6 * k as f64 / 400.0;
                let at = measure::probes_at(clip, t_s);
                let want = fk::tips(fm, cm, t_s / 1.6);
                for (b, bone) in fm.bones.iter().enumerate() {
                    let Some(got) = at.get(&format!("{}-tip", bone.name)) else {
                        // a bone of length 0 has no probe: its tip is the
                        // joint of its children, checked with them
                        assert!(
                            !fm.has_tip_probe(b),
                            "{route:?}: no probe for {}",
                            bone.name
                        );
                        continue;
                    };
                    let d = got.dist(want[b]);
                    assert!(d <= 0.25, "{route:?} {} at {t_s} s: {d}", bone.name);
                }
            }
        }
    }

    /// A head under a rotating ancestor (a sine, fitted keys), its own eased
    /// neck and a root squash: on both routes, at many times, the written
    /// rim probes sit at the written centre plus `m·r·(1, 0)` and
    /// `m·r·(0, 1)` (round, axis-aligned, radius by the mean scale) within
    /// the budget, and the measured rim line agrees.
    #[test]
    fn head_stays_round_under_squash_and_rotation() {
        let text = r#"{
            "name": "heady", "view_box": [0, 0, 400, 400], "period_s": 1.5,
            "bones": [
                {"name": "spine", "at": [200, 300], "length": 60,
                 "angle": {"sine": {"amp_deg": 25, "harmonic": 1, "offset_deg": -90}}},
                {"name": "neck", "parent": "spine", "length": 15,
                 "angle": {"track": {"keys": [[0, 0], [0.3, 30], [0.7, -20], [1, 0]]}}},
                {"name": "head", "parent": "neck", "length": 4, "head_radius": 14}
            ],
            "root": {
                "y": {"keys": [[0, 0], [0.5, -40], [1, 0]]},
                "squash": {"sy": {"keys": [[0, 1], [0.2, 0.6], [0.45, 1.3], [0.8, 0.9], [1, 1]],
                                   "ease": ["easeOutCubic", "smoothstep", "easeInCubic", "linear"]},
                           "pivot": [200, 300], "k": 0.8}
            }
        }"#;
        let rig = crate::rig::load(text).unwrap();
        let fig = &rig.figure;
        let fc = &fig.clips[0];
        let s = fc.root.squash.as_ref().unwrap();
        for route in [Route::Css, Route::Smil] {
            let fb = bake_figure(&rig.name, rig.view_box, fig, route, None);
            let clip = &fb.clips[0];
            let mut worst = 0.0f64;
            for k in 0..=600 {
                let t_s = clip.period_s * k as f64 / 600.0;
                let u = k as f64 / 600.0;
                let sy = s.sy.eval(u);
                let m = (1.0 + (1.0 - sy) * s.k + sy) / 2.0;
                let p = measure::probes_at(clip, t_s);
                let c = p["head-tip"];
                let dx = p["head-rim-x"] - c - crate::geom::Vec2::new(m * 14.0, 0.0);
                let dy = p["head-rim-y"] - c - crate::geom::Vec2::new(0.0, m * 14.0);
                worst = worst.max(dx.len()).max(dy.len());
            }
            assert!(
                worst <= bake::HEAD_BUDGET_PX,
                "{route:?}: rim off by {worst} px"
            );
            let rim = fb.measures[0]
                .1
                .iter()
                .find(|m| m.name == "head-rim")
                .unwrap();
            let tip = fb.measures[0]
                .1
                .iter()
                .find(|m| m.name == "head-tip")
                .unwrap();
            assert!(
                rim.max_error_px <= bake::HEAD_BUDGET_PX + tip.max_error_px,
                "{route:?}: measured rim {} tip {}",
                rim.max_error_px,
                tip.max_error_px
            );
            // the squash is strong: without the counter groups the rim would be far off
            assert!(
                clip.tracks
                    .iter()
                    .any(|t| t.name == "rb-main-head-head-turn")
            );
        }
    }

    /// Without a squash a head is a plain circle: no counter groups, and the
    /// rim probes (turning with the bone) are measured against FK.
    #[test]
    fn head_without_squash_is_a_plain_circle() {
        let text = r#"{
            "name": "nod", "view_box": [0, 0, 400, 400], "period_s": 1,
            "bones": [
                {"name": "neck", "at": [200, 300], "length": 20,
                 "angle": {"track": {"keys": [[0, -90], [0.5, -60], [1, -90]]}}},
                {"name": "head", "parent": "neck", "length": 0, "head_radius": 9}
            ]
        }"#;
        let rig = crate::rig::load(text).unwrap();
        let fig = &rig.figure;
        // the prefix `rb` writes the clip's local names
        let fb = bake_figure(&rig.name, rig.view_box, fig, Route::Css, Some("rb"));
        assert!(!fb.svg.contains("rb-hr-"), "{}", fb.svg);
        assert!(
            fb.svg
                .contains(r#"class="rb-head rb-f0" cx="200" cy="280" r="9""#)
        );
        let rim = fb.measures[0]
            .1
            .iter()
            .find(|m| m.name == "head-rim")
            .unwrap();
        assert!(rim.max_error_px < 0.01, "{}", rim.max_error_px);
    }
}

mod fk {
    use crate::figure::fk::*;
    use crate::geom::{Affine, AffineExt, Vec2Ext};
    use crate::solve::ik;

    /// An entry's solver keeps the frame of an entry whose frame does not
    /// move (a cyclist's hip) and finds it again at every time otherwise
    /// (a runner's moving root), and gives the whole solve's angles, joint
    /// and target bit for bit either way, for every entry solved on its own
    /// of every clip of every bone-tree rig in `rigs/`.
    #[test]
    fn an_entry_solver_keeps_a_still_frame_and_solves_as_the_whole() {
        let bits = |v: crate::geom::Vec2| (v.x.to_bits(), v.y.to_bits());
        let mut kinds = (0, 0);
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            for clip in &fig.clips {
                for (i, solver) in entry_solvers(fig, clip).iter().enumerate() {
                    let Some(solver) = solver else { continue };
                    if solver.is_still() {
                        kinds.0 += 1;
                    } else {
                        kinds.1 += 1;
                    }
                    let k = &fig.ik[i];
                    for n in 0..=150 {
                        let t = n as f64 / 150.0 + if n % 3 == 1 { 1e-7 } else { 0.0 };
                        let name = format!("{} {} entry {i} t {t}", path.display(), clip.name);
                        let whole = local_angles(fig, clip, t);
                        let (u, l) = solver.angles(t);
                        assert_eq!(u.to_bits(), whole[k.upper].to_bits(), "{name}");
                        assert_eq!(l.to_bits(), whole[k.lower].to_bits(), "{name}");
                        let (j, g) = solver.ends(t);
                        let (wj, wg) = ik_joints_and_targets(fig, clip, t)[i];
                        assert_eq!((bits(j), bits(g)), (bits(wj), bits(wg)), "{name}");
                    }
                }
            }
        }
        assert!(kinds.0 > 0 && kinds.1 > 0, "{kinds:?}");
    }

    /// [`PoseAt`] is the whole solve ([`pose`]) bit for bit (the world
    /// matrices of the wanted bones and their ancestors, root matrix, ideal
    /// effectors, asked targets), at times out of order, for several
    /// choices of wanted bones, for every clip of every bone-tree rig in
    /// `rigs/`: those whose `ik` entries are each solved on their own (the
    /// entries' solvers' angles in place of their bones' drivers) and the
    /// others (the whole solve at each time).
    #[test]
    fn pose_at_is_the_whole_pose_for_the_wanted_bones() {
        let bits = |v: &crate::geom::Vec2| (v.x.to_bits(), v.y.to_bits());
        let mbits = |m: &Affine| m.as_coeffs().map(f64::to_bits);
        let mut checked = 0;
        let mut alone = 0;
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            let nb = fig.bones.len();
            for clip in &fig.clips {
                if !fig.ik.is_empty() && entry_solvers(fig, clip).iter().all(Option::is_some) {
                    alone += 1;
                }
                for pick in 0..3 {
                    let want: Vec<bool> = (0..nb)
                        .map(|b| match pick {
                            0 => true,
                            1 => b % 2 == 0,
                            _ => fig.bones[b].length > 0.0,
                        })
                        .collect();
                    let mut need = want.clone();
                    for b in (0..nb).rev() {
                        if let Some(p) = fig.bones[b].parent.filter(|_| need[b]) {
                            need[p] = true;
                        }
                    }
                    let mut at = PoseAt::new(fig, clip, &want, &[]);
                    for n in 0..=60 {
                        let t = ((n * 37) % 61) as f64 / 60.0 + if n % 2 == 1 { 1e-6 } else { 0.0 };
                        at.at(t);
                        let (a, b) = (pose(fig, clip, t), &at.pose);
                        let name = format!("{} {} pick {pick} t {t}", path.display(), clip.name);
                        for (k, &needed) in need.iter().enumerate() {
                            if needed {
                                assert_eq!(
                                    mbits(&a.world[k]),
                                    mbits(&b.world[k]),
                                    "{name} bone {k}"
                                );
                            }
                        }
                        assert_eq!(mbits(&a.root), mbits(&b.root), "{name}");
                        let all = |v: &[crate::geom::Vec2]| v.iter().map(bits).collect::<Vec<_>>();
                        assert_eq!(all(&a.ik), all(&b.ik), "{name}");
                        assert_eq!(all(&a.asked), all(&b.asked), "{name}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 0);
        assert!(alone > 0, "no clip with every entry solved on its own");
    }

    /// [`PoseAt::tips`] are the whole solve's ([`Pose::tips`]) bit for bit
    /// for every bone whose tip is asked for, also those of the `ik`
    /// entries solved for their points alone (without angles); the world
    /// matrices asked for beside them stay the whole solve's bit for bit,
    /// and no entry whose bone's matrix is asked for (or with another bone
    /// read hanging from it) is solved for its points. Every clip of every
    /// bone-tree rig in `rigs/`, at times out of order, asking for no
    /// matrix, the heads' (as the measure does) or every third bone's. And
    /// the whole solve's tips are where its world matrices put them, to
    /// 1e-9 px.
    #[test]
    fn pose_at_tips_are_the_whole_poses_tips() {
        let bits = |v: &crate::geom::Vec2| (v.x.to_bits(), v.y.to_bits());
        let mbits = |m: &Affine| m.as_coeffs().map(f64::to_bits);
        let (mut pointed, mut on) = (0, 0);
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            let nb = fig.bones.len();
            let tipped: Vec<bool> = (0..nb).map(|b| fig.bones[b].length > 0.0).collect();
            for clip in &fig.clips {
                for pick in 0..3 {
                    let want: Vec<bool> = (0..nb)
                        .map(|b| match pick {
                            0 => false,
                            1 => fig.bones[b].head_radius.is_some(),
                            _ => b % 3 == 0,
                        })
                        .collect();
                    let mut at = PoseAt::new(fig, clip, &want, &tipped);
                    // the bones of the entries solved for their points
                    let mut on_points = vec![false; nb];
                    for (k, &p) in fig.ik.iter().zip(at.pointed()) {
                        if p {
                            assert!(!want[k.upper] && !want[k.lower], "{}", path.display());
                            for c in 0..nb {
                                let parent = fig.bones[c].parent;
                                let hangs = c != k.lower
                                    && (parent == Some(k.upper) || parent == Some(k.lower));
                                assert!(!(hangs && (want[c] || tipped[c])), "{}", path.display());
                            }
                            (on_points[k.upper], on_points[k.lower]) = (true, true);
                            pointed += 1;
                        }
                    }
                    for n in 0..=60 {
                        let t = ((n * 37) % 61) as f64 / 60.0 + if n % 2 == 1 { 1e-6 } else { 0.0 };
                        at.at(t);
                        let a = pose(fig, clip, t);
                        let tips = a.tips(fig);
                        let name = format!("{} {} pick {pick} t {t}", path.display(), clip.name);
                        for b in (0..nb).filter(|&b| tipped[b]) {
                            assert_eq!(bits(&tips[b]), bits(&at.tips[b]), "{name} bone {b}");
                            let m = (a.root * a.world[b])
                                .apply(crate::geom::Vec2::new(fig.bones[b].length, 0.0));
                            let d = tips[b].dist(m);
                            assert!(d < 1e-9, "{name} bone {b}: {d} px");
                            if on_points[b] {
                                on += 1;
                            }
                        }
                        for b in (0..nb).filter(|&b| want[b]) {
                            assert_eq!(mbits(&a.world[b]), mbits(&at.pose.world[b]), "{name} {b}");
                        }
                    }
                }
            }
        }
        assert!(pointed > 0 && on > 0, "{pointed} {on}");
    }

    /// A pose's world matrices, built with the rotations the IK solve
    /// already made, are [`world_matrices`] of the local angles bit for
    /// bit, its root matrix the one the solve took is [`root_matrix`], and
    /// its asked targets are the trajectories at t, for every clip of every
    /// bone-tree rig in `rigs/`.
    #[test]
    fn pose_world_is_world_matrices_of_the_local_angles() {
        let mut checked = 0;
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            for fc in &fig.clips {
                for k in 0..=97 {
                    let t = k as f64 / 97.0;
                    let want = world_matrices(fig, &local_angles(fig, fc, t), t);
                    let p = pose(fig, fc, t);
                    assert_eq!(p.world, want, "{} {t}", path.display());
                    assert_eq!(p.root, root_matrix(&fc.root, t), "{} {t}", path.display());
                    let asked: Vec<_> = fc.targets.iter().map(|g| g.at(t)).collect();
                    assert_eq!(p.asked, asked, "{} {t}", path.display());
                }
                checked += !fig.ik.is_empty() as usize;
            }
        }
        assert!(checked >= 4, "only {checked} clips with ik entries checked");
    }

    /// An arm on a swaying, sliding, squashed body: at every t the lower
    /// tip of the solved pose is the target exactly (world → local through
    /// a moving parent and the inverse root matrix), and the local angles
    /// add up to the solver's world angles.
    #[test]
    fn ik_tip_hits_the_target_through_a_moving_parent_and_root() {
        let json = r#"{
          "name": "arm", "view_box": [0, 0, 400, 300], "period_s": 1,
          "bones": [
            {"name": "body", "at": [200, 200], "length": 60,
             "angle": {"sine": {"amp_deg": 10, "harmonic": 2, "offset_deg": -90}}},
            {"name": "upper", "parent": "body", "at": [50, 5], "length": 45},
            {"name": "lower", "parent": "upper", "at": "tip", "length": 40}
          ],
          "root": {"x": {"keys": [[0, 0], [0.5, 30], [1, 0]]},
                   "squash": {"sy": {"keys": [[0, 1], [0.5, 0.8], [1, 1]]}, "pivot": [200, 250]},
                   "move": {"circle": {"center": [0, 0], "radius": 6}}},
          "ik": [{"upper": "upper", "lower": "lower", "knee": "backward",
                  "target": {"ellipse": {"center": [245, 165], "rx": 15, "ry": 8}}}]
        }"#;
        let rig = crate::rig::load(json).unwrap();
        let fig = &rig.figure;
        let clip = &fig.clips[0];
        for k in 0..=400 {
            let t = k as f64 / 400.0;
            let tips = tips(fig, clip, t);
            let target = fig.ik[0].target.at(t);
            assert!(
                tips[2].dist(target) < 1e-9,
                "t = {t}: {:?} vs {target:?}",
                tips[2]
            );
            assert!(ik_ideal(fig, clip, t)[0].dist(target) < 1e-9);
            // local = world − parent world, in the figure's frame
            let a = local_angles(fig, clip, t);
            let w = world_matrices(fig, &a, t);
            let world = |m: &Affine| m.angle_rad();
            let d = crate::geom::wrap_pi(world(&w[1]) - (a[0] + a[1]));
            assert!(d.abs() < 1e-9, "{d}");
            let (joint, goal) = ik_joints_and_targets(fig, clip, t)[0];
            let want = ik::solve(joint, goal, 45.0, 40.0, crate::solve::ik::Knee::Backward);
            let d = crate::geom::wrap_pi(world(&w[2]) - want.bone2_rad);
            assert!(d.abs() < 1e-9, "{d}");
        }
    }
}

mod style {
    use crate::figure::model::Figure;
    use crate::figure::style::*;

    fn fig(json: &str) -> Figure {
        let rig = crate::rig::load(json).expect("valid rig");
        rig.figure
    }

    const LEGS: &str = r#"{"name":"t","view_box":[0,0,200,200],"period_s":1,
        "bones":[{"name":"spine","at":[100,100],"length":50,"angle":{"const_deg":-90}},
                 {"name":"thigh_f","parent":"spine","at":"origin","length":30,"angle":{"const_deg":180}},
                 {"name":"shin_f","parent":"thigh_f","length":30},
                 {"name":"thigh_n","parent":"spine","at":"origin","length":30,"angle":{"const_deg":180}},
                 {"name":"shin_n","parent":"thigh_n","length":30,"style":{"width":3}},
                 {"name":"neck","parent":"spine","length":10},
                 {"name":"head","parent":"neck","length":1,"style":{"width":15}}]}"#;

    #[test]
    fn limbs_taper_by_length_and_share_the_knee_radius() {
        let f = fig(LEGS);
        let r = radii(&f);
        // spine carries limbs: uniform root width 8 → radius 4
        assert_eq!(r[0], (4.0, 4.0));
        // near thigh + shin: 8 → 5.75 at the knee → 3.5 at the foot
        assert_eq!(r[3], (4.0, 2.88));
        // the shin's own width 3 halves its radii
        assert_eq!(r[4], (1.44, 0.88));
        // far side: × 0.8, the same knee radius on both bones
        assert_eq!(r[1], (3.2, 2.3));
        assert_eq!(r[2], (2.3, 1.4));
        // a neck under a head keeps the root width
        assert_eq!(r[5], (4.0, 4.0));
    }
}

/// A spring subtree's ideal tips taken from its bones' drivers and their
/// ancestors' alone are the whole figure's, bit for bit: every bone of
/// every example rig, in every clip, with its springs applied and without.
#[test]
fn ideal_tips_of_some_bones_are_the_whole_figures() {
    let mut cheap = 0;
    for (path, rig) in example_rigs() {
        for c in 0..rig.figure.clips.len() {
            let view = rig.figure.for_clip(c);
            let fc = &view.clips[0];
            let all_springs: Vec<usize> = (0..view.springs.len()).collect();
            for applied in [&[][..], &all_springs[..]] {
                for n in 0..=97 {
                    let t_s = fc.period_s * n as f64 / 97.0 + if n % 2 == 1 { 1e-4 } else { 0.0 };
                    let whole = crate::figure::ideal_tips(&view, fc, fc.period_s, t_s, applied);
                    for b in 0..view.bones.len() {
                        let some = crate::figure::ideal_tips_of(
                            &view,
                            fc,
                            (fc.period_s, t_s),
                            applied,
                            &[b],
                        );
                        let at = format!("{} clip {c} bone {b} t {t_s}", path.display());
                        assert_eq!(some[b].x.to_bits(), whole[b].x.to_bits(), "{at}");
                        assert_eq!(some[b].y.to_bits(), whole[b].y.to_bits(), "{at}");
                        cheap += usize::from(!crate::figure::spring::path_has_ik(&view, b));
                    }
                }
            }
        }
    }
    // (most bones take the cheap way: the comparison is not only of the
    // whole solve with itself)
    assert!(cheap > 10_000, "{cheap}");
}

/// The one-pass clip measure of bone trees (`figure::measured`).
mod figure_measured {
    use crate::clip::Route;
    use crate::figure::{Figure, bake_planned, down_intervals, fk, reuse, spring, unit_time};
    use crate::geom::Vec2Ext;
    use crate::measure;

    /// FK tips plus every spring's offset at or above each bone: the
    /// ideal the tips are measured against, derived here on its own.
    fn ideal_tips(
        f: &Figure,
        fc: &crate::figure::model::FigClip,
        period: f64,
        t: f64,
    ) -> Vec<crate::geom::Vec2> {
        let u = unit_time(fc.play, t, period);
        let mut tips = fk::tips(f, fc, u);
        for (b, tip) in tips.iter_mut().enumerate() {
            for s in &f.springs {
                if spring::in_subtree(f, s.bone, b) {
                    *tip += s.offset_at(u);
                }
            }
        }
        tips
    }

    /// The measures one bake call keeps are those of the clip asked
    /// about: an equal clip (same pose, same shared keys) gets the
    /// measure taken before, and a clip with one key moved, or drawn in
    /// another pose, is measured anew, each time what measuring it
    /// directly gives (on every bone-tree rig with an `ik` entry in `rigs/`).
    #[test]
    fn kept_measures_are_those_of_the_clip() {
        use crate::figure::measured::{Measured, measure_clip};
        let mut checked = 0;
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            if fig.ik.is_empty() {
                continue;
            }
            let plan = reuse::Plan::none(fig);
            let fb = bake_planned(&rig.name, rig.view_box, fig, Route::Css, None, &plan);
            let view = fig.for_clip(0);
            let f = Figure {
                springs: view.springs.clone(),
                chains: view.chains.clone(),
                ..fig.clone()
            };
            let fc = &fig.clips[0];
            let fit = crate::fit::Fit::Cubic;
            let direct = |f: &Figure, clip: &crate::clip::Clip| {
                format!("{:?}", measure_clip(f, (0, fc), clip, &plan, fit))
            };
            let memo = Measured::default();
            let kept = |f: &Figure, clip: &crate::clip::Clip| {
                let m = memo.kept((f, &plan), 0, clip, || {
                    measure_clip(f, (0, fc), clip, &plan, fit)
                });
                format!("{m:?}")
            };
            let clip = &fb.clips[0];
            let first = kept(&f, clip);
            assert_eq!(first, direct(&f, clip), "{}", path.display());
            assert_eq!(kept(&f, &clip.clone()), first, "{}", path.display());
            // one key of the first fitted ik track moved by a hundredth of a degree
            let mut moved = clip.clone();
            let track = fb.ik[0].leg.tracks[0];
            moved.tracks[track].keys[1].value += 0.01;
            let other = kept(&f, &moved);
            assert_ne!(other, first, "{}", path.display());
            assert_eq!(other, direct(&f, &moved), "{}", path.display());
            // the same clip drawn in another pose
            let mut posed = f.clone();
            posed.rest_rad[fig.ik[0].upper] += 0.1;
            assert_eq!(
                kept(&posed, clip),
                direct(&posed, clip),
                "{}",
                path.display()
            );
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} rigs checked");
    }

    /// Clips with more samples skip the `probes_at` checks (time).
    const MAP_SAMPLES: usize = 30_000;

    /// The one-pass measure gives, bit for bit, what a walk per probe
    /// gives (tips through `measure_probes`, the foot-to-target distance
    /// and ground contact through `probes_at`'s map of every probe), on
    /// every bone-tree rig in `rigs/`: no figure moves when the passes are
    /// merged. The looks at every n-th sample time read the same errors.
    #[test]
    fn one_pass_equals_a_walk_per_probe() {
        let mut checked = 0;
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            let fb = bake_planned(
                &rig.name,
                rig.view_box,
                fig,
                Route::Css,
                None,
                &reuse::Plan::none(fig),
            );
            let nb = fig.bones.len();
            let nk = fig.ik.len();
            for (ci, clip) in fb.clips.iter().enumerate() {
                let fc = &fig.clips[ci];
                let period = clip.period_s;
                let view = fig.for_clip(ci);
                let f = Figure {
                    springs: view.springs.clone(),
                    chains: view.chains.clone(),
                    ..fig.clone()
                };
                // (a bone of length 0 has no probe, and error 0; a crank's
                // tip may be read from its target's probe)
                let written = clip.bone_tips();
                let probed: Vec<usize> = (0..nb).filter(|&b| written[b].is_some()).collect();
                let names: Vec<String> = probed.iter().flat_map(|&b| written[b].clone()).collect();
                let ideal = |t: f64| -> Vec<crate::geom::Vec2> {
                    let all = ideal_tips(&f, fc, period, t);
                    probed.iter().map(|&b| all[b]).collect()
                };
                let (tips, _) = measure::measure_probes(clip, &names, &ideal);
                // the strided looks read the same walk: every stride's
                // largest error is at most the measure's, equal at stride 1,
                // and over a budget exactly where the largest is
                let worst = tips.iter().map(|m| m.max_error_px).fold(0.0, f64::max);
                for stride in [1, 2, 3, 8, 13] {
                    let at = measure::max_error_at_stride(clip, &names, &ideal, stride);
                    let what = format!("{} clip {ci} stride {stride}", path.display());
                    if stride == 1 {
                        assert_eq!(at.to_bits(), worst.to_bits(), "{what}");
                    }
                    assert!(at <= worst, "{what}: {at} > {worst}");
                    for budget in [0.0, at * 0.5, at, worst] {
                        let over =
                            measure::over_budget_at_stride(clip, &names, &ideal, stride, budget);
                        assert_eq!(over, at > budget, "{what} budget {budget}");
                    }
                }
                // and they read every n-th of the measure's times from the
                // first: an ideal far off at one time is seen exactly at
                // the strides that reach it
                let ts = measure::sample_times(clip);
                for k in [0, 1, ts.len() / 2, ts.len() - 1] {
                    let off = |t: f64| {
                        let mut want = ideal(t);
                        if t.to_bits() == ts[k].to_bits() {
                            want[0].x += 1e6;
                        }
                        want
                    };
                    for stride in [1, 2, 3, 8] {
                        let at = measure::max_error_at_stride(clip, &names, &off, stride);
                        let what = format!("{} clip {ci} time {k} stride {stride}", path.display());
                        assert_eq!(at > 1e5, k % stride == 0, "{what}");
                    }
                }
                for b in 0..nb {
                    let got = &fb.measures[ci].1[b];
                    match probed.iter().position(|&x| x == b) {
                        Some(k) => assert_eq!(*got, tips[k], "{}", path.display()),
                        None => assert_eq!(got.max_error_px, 0.0, "{}", path.display()),
                    }
                }
                let probes: Vec<String> = (0..nb).map(|b| fig.tip_probe(b)).collect();
                let ts = measure::sample_times(clip);
                for (i, k) in fig.ik.iter().enumerate() {
                    let got = &fb.ik[ci * nk + i];
                    let foot = &probes[k.lower];
                    let target = fig.target_probe(i);
                    let unit = |t: f64| unit_time(fc.play, t, period);
                    let (m, _) = measure::measure_probes(clip, std::slice::from_ref(foot), &|t| {
                        vec![fk::ik_ideal(fig, fc, unit(t))[i]]
                    });
                    let what = format!("{} clip {ci} entry {i}", path.display());
                    assert_eq!(got.measure.max_error_px, m[0].max_error_px, "{what}");
                    assert_eq!(got.measure.rms_error_px, m[0].rms_error_px, "{what}");
                    assert_eq!(got.measure.worst_t_s, m[0].worst_t_s, "{what}");
                    let (tm, _) =
                        measure::measure_probes(clip, std::slice::from_ref(&target), &|t| {
                            vec![fc.targets[i].at(unit(t))]
                        });
                    assert_eq!(got.target_error_px, tm[0].max_error_px, "{what}");
                    let reach = ts
                        .iter()
                        .map(|&t| {
                            fc.targets[i]
                                .at(unit(t))
                                .dist(fk::ik_ideal(fig, fc, unit(t))[i])
                        })
                        .fold(0.0, f64::max);
                    assert_eq!(got.measure.reach_px, Some(reach), "{what}");
                    // (the map of every probe per sample is slow: clips of
                    // many samples are checked through the walks above only)
                    if ts.len() > MAP_SAMPLES {
                        checked += 1;
                        continue;
                    }
                    let maps: Vec<_> = ts.iter().map(|&t| measure::probes_at(clip, t)).collect();
                    let f2t = maps
                        .iter()
                        .map(|p| p[foot].dist(p[&target]))
                        .fold(0.0, f64::max);
                    assert_eq!(got.foot_to_target_px, f2t, "{what}");
                    let down = down_intervals(fig, fc, i);
                    let ground = fig.ground.as_ref().filter(|_| !down.is_empty()).map(|g| {
                        ts.iter()
                            .zip(&maps)
                            .filter(|&(&t, _)| {
                                down.iter()
                                    .any(|&(a, b)| t >= a * period && t <= b * period)
                            })
                            .map(|(_, p)| (p[foot].y - g.y).abs())
                            .fold(0.0, f64::max)
                    });
                    assert_eq!(got.ground_px, ground, "{what}");
                    checked += 1;
                }
            }
        }
        assert!(checked >= 4, "only {checked} ik entries checked");
    }
}

mod linear_stops {
    use crate::clip::Anim;

    /// Every rig baked with uniform linear keys on the css route: each
    /// turning track is written as the stops of a `linear()` easing when
    /// that is shorter than its keyframes, the stops are its key values in
    /// order, and the fitter's byte count of the stops ([`crate::fit::stops_len`])
    /// is the written text's, exactly.
    #[test]
    fn uniform_linear_bakes_write_turns_as_stops_the_fitter_counts() {
        let mut stops_seen = 0;
        for (path, rig) in super::example_rigs() {
            let mut opts = crate::bake::BakeOptions::resolve(
                &rig,
                crate::Route::Css,
                Some(12),
                None,
                Some(crate::fit::Fit::Linear),
            );
            opts.shortest_shape = false;
            let baked = crate::bake_rig(&rig, &opts);
            let clip = &baked.clip;
            for node in clip.groups() {
                let Some(Anim::Rotate { track, .. }) = &node.anim else {
                    continue;
                };
                let keys = &clip.tracks[*track].keys;
                if !crate::fit::segments_linear(keys) {
                    continue;
                }
                let text = crate::emit::css::track_keyframes(clip, *track);
                let Some(inner) = text
                    .strip_prefix("linear(")
                    .and_then(|s| s.strip_suffix(')'))
                else {
                    assert!(text.starts_with("@keyframes"), "{}: {text}", path.display());
                    continue;
                };
                stops_seen += 1;
                let values: Vec<&str> = inner
                    .split(',')
                    .map(|s| s.split(' ').next().unwrap())
                    .collect();
                let expected: Vec<String> =
                    keys.iter().map(|k| crate::emit::fmt_deg(k.value)).collect();
                assert_eq!(values, expected, "{}", path.display());
                assert_eq!(
                    crate::fit::stops_len(keys).map(|n| n + "linear(".len()),
                    Some(text.len()),
                    "{}: {text}",
                    path.display()
                );
            }
        }
        assert!(stops_seen > 10, "only {stops_seen} tracks written as stops");
    }
}

mod tighten {
    use crate::{RETRY_LEAST, RETRY_MARGIN, RETRY_MOST, RETRY_STALLS, TOLERANCE_RETRIES, tighten};

    /// The budgets each bake was asked for, and what `tighten` returned,
    /// for a goal of 1 and bakes measuring `worst(budget)`.
    fn run(mut worst: impl FnMut(f64) -> f64) -> (Vec<f64>, (usize, f64)) {
        let mut asked = Vec::new();
        let out = tighten(0.8, (Some(1.0), false), |budget| {
            asked.push(budget);
            (asked.len(), worst(budget))
        });
        (asked, out)
    }

    /// One loop for every rig kind: it stops at the first bake that meets
    /// its goal and returns it with its budget; after a miss it scales the
    /// budget by the miss (goal / worst, times the margin), within its
    /// least and most step (a NaN as a miss by the most); a goal it cannot
    /// meet ends it after TOLERANCE_RETRIES retries, or RETRY_STALLS in a
    /// row that gain nothing and one more by the least step, with the best
    /// bake kept.
    #[test]
    fn retries_scale_the_budget_by_the_miss_a_bounded_number_of_times() {
        // met at once: one bake
        let (asked, out) = run(|b| b);
        assert_eq!((asked, out), (vec![0.8], (1, 0.8)));
        // the worst error twice the budget: a miss by 1.6, one step to
        // 0.8 / 1.6 * margin, which is met
        let (asked, (baked, budget)) = run(|b| 2.0 * b);
        assert_eq!(asked.len(), 2);
        assert!(
            (asked[1] - 0.8 / 1.6 * RETRY_MARGIN).abs() < 1e-12,
            "{asked:?}"
        );
        assert_eq!((baked, budget), (2, asked[1]));
        // a near miss tightens by the most step, a wide one by the least,
        // a NaN by the least
        for (worst, step) in [
            (1.01, RETRY_MOST),
            (100.0, RETRY_LEAST),
            (f64::NAN, RETRY_LEAST),
        ] {
            let (asked, _) = run(|b| if b == 0.8 { worst } else { 0.0 });
            assert_eq!(asked, vec![0.8, 0.8 * step], "worst {worst}");
        }
        // never met but every retry gains: TOLERANCE_RETRIES retries, the
        // best (the last) kept
        let (asked, (baked, budget)) = run(|b| 1.0 + 100.0 * b);
        assert_eq!(asked.len(), TOLERANCE_RETRIES + 1);
        assert_eq!(baked, TOLERANCE_RETRIES + 1);
        assert_eq!(budget, *asked.last().unwrap());
        // never met, no retry gains: RETRY_STALLS retries, each by the
        // miss, then one by the least step, then the first bake (the best,
        // the loosest) kept
        let (asked, (baked, budget)) = run(|_| 2.0);
        assert_eq!(asked.len(), RETRY_STALLS + 2);
        assert_eq!((baked, budget), (1, 0.8));
        for (k, w) in asked.windows(2).enumerate() {
            let step = if k < RETRY_STALLS {
                0.5 * RETRY_MARGIN
            } else {
                RETRY_LEAST
            };
            assert!((w[1] / w[0] - step).abs() < 1e-12, "{asked:?}");
        }
        // an error that falls only at a much tighter budget: the steps by
        // the miss stall, the least step meets the goal
        let (asked, (baked, budget)) = run(|b| if b < 0.5 { 0.5 } else { 1.1 });
        assert_eq!(asked.len(), RETRY_STALLS + 2, "{asked:?}");
        assert_eq!((baked, budget), (asked.len(), *asked.last().unwrap()));
        // a stall, gains, then stalls: the loop goes on past one stall,
        // takes the least step after RETRY_STALLS in a row that close under
        // 1 − MISS_GAIN of the best miss, stops when that gains nothing
        // either, and keeps the last bake that gained (1.8: the tighter
        // 1.79 and 1.785 miss by less, but by a hair)
        let seq = [3.0, 3.0, 2.0, 1.8, 1.79, 1.785, 9.0];
        let mut n = 0;
        let (asked, (baked, budget)) = run(|_| {
            n += 1;
            seq[n - 1]
        });
        assert_eq!(asked.len(), 7, "{asked:?}");
        assert!((asked[6] / asked[5] - RETRY_LEAST).abs() < 1e-12);
        assert_eq!((baked, budget), (4, asked[3]));
        // small steps near the goal close much of the miss: they gain, and
        // the goal is met
        let seq = [1.05, 1.04, 1.03, 1.02, 1.01, 1.0, 9.0];
        let mut n = 0;
        let (asked, (baked, _)) = run(|_| {
            n += 1;
            seq[n - 1]
        });
        assert_eq!((asked.len(), baked), (6, 6));
        // never met, every retry closes 5 % of the miss (so the loop goes
        // on) but none misses by a twentieth of the goal less than the
        // first: the first, the loosest, is kept
        let seq = [1.04, 1.03, 1.02, 1.015, 1.012, 1.01, 1.009];
        let mut n = 0;
        let (asked, (baked, budget)) = run(|_| {
            n += 1;
            seq[n - 1]
        });
        assert_eq!(asked.len(), TOLERANCE_RETRIES + 1, "{asked:?}");
        assert_eq!((baked, budget), (1, 0.8));
        // the same for a promised goal (an asked tolerance, refused when
        // missed): the least error, which the refusal names
        let mut n = 0;
        let (baked, _) = tighten(0.8, (Some(1.0), true), |_| {
            n += 1;
            (n, seq[n - 1])
        });
        assert_eq!(baked, seq.len());
        // equals: the first is kept
        let seq = [3.0, 2.0, 2.0, 2.0, 2.0];
        let mut n = 0;
        let (asked, (baked, _)) = run(|_| {
            n += 1;
            seq[n - 1]
        });
        assert_eq!((asked.len(), baked), (5, 2));
        // a NaN is worse than any error
        let seq = [f64::NAN, 3.0, f64::NAN, f64::NAN, f64::NAN];
        let mut n = 0;
        let (asked, (baked, _)) = run(|_| {
            n += 1;
            seq[n - 1]
        });
        assert_eq!((asked.len(), baked), (5, 2));
        // no goal: the first bake is kept, whatever it measured
        let out = tighten(0.8, (None, false), |b| (b, f64::INFINITY));
        assert_eq!(out, (0.8, 0.8));
    }
}

/// The memos of the bone-tree bake ([`crate::figure`]).
mod figure_memo {
    use super::example_rigs;
    use crate::clip::Route;
    use crate::figure::{CallMemo, bake, bake_planned_keyed, bake_planned_measured, ideal, reuse};

    /// A figure's css reuse plan, if it reuses, and the plan with every
    /// bone's budget scale at 0.6.
    fn plan_and_tighter(fig: &crate::figure::Figure) -> Option<(reuse::Plan, reuse::Plan)> {
        let plan = reuse::plan(fig, Route::Css);
        if !plan.reuses() {
            return None;
        }
        let mut tighter = plan.clone();
        for s in tighter.source_scale.iter_mut() {
            *s = 0.6;
        }
        Some((plan, tighter))
    }

    /// What one call's bakes keep for each other (fitted channels by the
    /// bone's drawn angle; IK targets' paths, which targets follow which,
    /// and root motion with a `move` by clip; heads' counter tracks by
    /// the written keys they undo; corners and IK solves by clip; the
    /// figure's [`crate::figure::ideal::Ideal`] shared across calls) changes nothing: on
    /// every bone-tree rig in `rigs/` with a reuse plan, a run of bakes
    /// (keys of their own, the plan, its sources fitted tighter, then the
    /// plan again with another keyer) through one memo writes and measures
    /// each bake exactly as a fresh bake of it does.
    #[test]
    fn bakes_sharing_one_memo_equal_fresh_bakes() {
        let mut checked = 0;
        for (path, rig) in example_rigs() {
            let fig = &rig.figure;
            let Some((plan, tighter)) = plan_and_tighter(fig) else {
                continue;
            };
            let keyer = bake::Keyer {
                keys: bake::ChannelKeys::Budget(0.2),
                fit: crate::fit::Fit::Cubic,
                shortest_shape: true,
            };
            let other = bake::Keyer {
                keys: bake::ChannelKeys::Budget(0.12),
                ..keyer
            };
            let ideal = ideal::Ideal::default();
            let runs = [
                (keyer, reuse::Plan::none(fig)),
                (keyer, plan.clone()),
                (keyer, tighter),
                (other, plan),
            ];
            let mut memo = CallMemo::new(&ideal);
            let mut last_keyer = keyer;
            for (k, p) in &runs {
                if *k != last_keyer {
                    // a new call (another keyer), the same figure's ideal
                    memo = CallMemo::new(&ideal);
                    last_keyer = *k;
                }
                let view_box = rig.view_box;
                let shared = bake_planned_measured(
                    &rig.name,
                    view_box,
                    fig,
                    (Route::Css, *k),
                    None,
                    p,
                    &memo,
                );
                let fresh = bake_planned_keyed(&rig.name, view_box, fig, (Route::Css, *k), None, p);
                assert_eq!(shared.svg, fresh.svg, "{}", path.display());
                assert_eq!(
                    format!("{:?} {:?}", shared.measures, shared.ik),
                    format!("{:?} {:?}", fresh.measures, fresh.ik),
                    "{}",
                    path.display()
                );
            }
            checked += 1;
        }
        assert!(checked >= 4, "only {checked} rigs checked");
    }

    /// A source of shared keys is fitted tighter only in the clips where
    /// another chain plays its keys: on every bone-tree rig in `rigs/`
    /// with a reuse plan, a bake with every `source_scale` at 0.6 writes
    /// each clip's tracks of the bones that are no source in that clip
    /// exactly as the plan at scale 1 does, and tightens some source's
    /// track. (Stickman's jump plays no shared keys; its legs, sources in
    /// walk and run, once took the tighter budget there too: 676 B more.)
    #[test]
    fn sources_are_fitted_tighter_only_where_their_keys_are_shared() {
        let (mut same, mut elsewhere, mut tightened) = (0, 0, 0);
        for (path, rig) in example_rigs() {
            let fig = &rig.figure;
            let Some((plan, tighter)) = plan_and_tighter(fig) else {
                continue;
            };
            let bake = |p: &reuse::Plan| {
                bake_planned_keyed(
                    &rig.name,
                    rig.view_box,
                    fig,
                    (Route::Css, bake::Keyer::DEFAULT),
                    None,
                    p,
                )
            };
            let (usual, tight) = (bake(&plan), bake(&tighter));
            for (ci, fc) in fig.clips.iter().enumerate() {
                let sources = |b: usize| plan.shared[ci].iter().flatten().any(|sh| sh.source == b);
                for (b, bone) in fig.bones.iter().enumerate() {
                    if plan.shared[ci][b].is_some() {
                        continue;
                    }
                    let name = format!("rb-{}-{}", fc.name, bone.name);
                    let keys = |fb: &crate::figure::FigureBake| {
                        fb.clips[ci]
                            .tracks
                            .iter()
                            .find(|t| t.name == name)
                            .map(|t| t.keys.clone())
                    };
                    let (a, b2) = (keys(&usual), keys(&tight));
                    if sources(b) {
                        tightened += usize::from(a != b2);
                        continue;
                    }
                    assert_eq!(
                        a,
                        b2,
                        "{} {name}: not a source in this clip",
                        path.display()
                    );
                    same += 1;
                    let source_elsewhere = plan
                        .shared
                        .iter()
                        .any(|c| c.iter().flatten().any(|sh| sh.source == b));
                    elsewhere += usize::from(source_elsewhere);
                }
            }
        }
        assert!(same >= 20, "only {same} channels compared");
        assert!(
            elsewhere >= 4,
            "only {elsewhere} channels are sources in another clip"
        );
        assert!(tightened >= 4, "only {tightened} source channels tightened");
    }
}

/// What a chain is measured against between its recorded frames.
mod chain_ideal {
    use super::example_rigs;
    use crate::clip::{Clip, Route};
    use crate::figure::{add_chains, bake};

    /// A clip of `rig`'s name and view box with nothing in it.
    fn empty_clip(rig: &crate::rig::Rig, route: Route, period_s: f64) -> Clip {
        Clip {
            name: rig.name.clone(),
            route,
            period_s,
            view_box: rig.view_box,
            tracks: Vec::new(),
            root: Default::default(),
            legs: Vec::new(),
            figure: None,
            ground_wrap_px: None,
        }
    }

    /// Every Verlet chain of every rig in `rigs/` (each clip's copy, and a
    /// cycling rig's fixed chains) keyed on every recorded frame, linear
    /// spans, measures within 0.05 px of its simulation: the motion it is
    /// measured against between frames is one a written chain can follow.
    /// Only the rounding of the drawn pose to 0.01 px is left. (Measured
    /// against the straight lines between recorded positions, stickman's
    /// jump hair kept 0.155 px at any key count, so `--tolerance 0.15`
    /// was refused and 0.18 px took every frame, 161 KB.)
    #[test]
    fn a_chain_keyed_on_every_frame_follows_its_simulation() {
        let keyer = bake::Keyer {
            keys: bake::ChannelKeys::Uniform(crate::figure::chain::FRAMES),
            fit: crate::fit::Fit::Linear,
            shortest_shape: false,
        };
        let mut checked = Vec::new();
        for (path, rig) in example_rigs() {
            let mut sets: Vec<(f64, &[crate::figure::chain::Chain])> = Vec::new();
            let fig = &rig.figure;
            for (c, clip) in fig.clips.iter().enumerate() {
                sets.push((bake::written_period(clip), fig.clip_chains(c)));
            }
            for (period_s, chains) in sets.into_iter().filter(|s| !s.1.is_empty()) {
                for route in [Route::Css, Route::Smil] {
                    let mut clip = empty_clip(&rig, route, period_s);
                    let m = add_chains(
                        &mut clip,
                        (chains, None),
                        &mut Vec::new(),
                        "c",
                        keyer,
                        &Default::default(),
                    );
                    for c in m {
                        assert_eq!(c.keys, crate::figure::chain::FRAMES);
                        assert!(
                            c.max_deviation_px <= 0.05,
                            "{} {route:?} {}: {} px",
                            path.display(),
                            c.name,
                            c.max_deviation_px
                        );
                        checked.push(c.max_deviation_px);
                    }
                }
            }
        }
        // ponytail, run-up, runner, cyclist, cyclist-scarf and stickman's
        // three clips, both routes
        assert!(checked.len() >= 8 * 2, "{}", checked.len());
    }

    /// The clip a chain's key plans are measured on while they are chosen
    /// plays as the file does: keyed on every recorded frame, every chain
    /// of every clip (one-shot ones too) of `rigs/`, and the one-shot hair
    /// of a generated rig that ends 0.33 px from where it starts, measures
    /// within 0.05 px of its simulation. Measured as a loop, that hair's
    /// plans all missed by that step at the period's end, whatever their
    /// keys, and it took a key on every frame (166 KB).
    #[test]
    fn the_clip_a_chain_plan_is_measured_on_plays_as_the_file() {
        use crate::figure::{ChainJob, chain};
        let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/misses/chain.json");
        let mut rigs = example_rigs();
        rigs.push((
            fixture.clone(),
            crate::rig::load(&std::fs::read_to_string(&fixture).unwrap()).unwrap(),
        ));
        let mut once = 0;
        for (path, rig) in &rigs {
            let fig = &rig.figure;
            for (c, fc) in fig.clips.iter().enumerate() {
                for (i, ch) in fig.clip_chains(c).iter().enumerate() {
                    if *path == fixture && !ch.recording.once {
                        continue;
                    }
                    let clip = empty_clip(rig, Route::Css, bake::written_period(fc));
                    let job = ChainJob::in_clip(&clip, &fc.name, i, ch);
                    let every = chain::KeyPlan::uniform(chain::FRAMES, crate::fit::Fit::Linear);
                    let worst = job.worst(&job.keyed(&every, &|c: &str| c.to_string()));
                    assert!(
                        worst <= 0.05,
                        "{} {} {}: {worst} px",
                        path.display(),
                        fc.name,
                        ch.name
                    );
                    once += usize::from(ch.recording.once);
                }
            }
        }
        // stickman's jump and the generated rig's hair
        assert!(once >= 2, "{once} one-shot chains");
    }
}

/// The ancestors-only FK of springs and chain anchors ([`crate::figure::spring`]).
mod chain_plans {
    use super::example_rigs;
    use crate::clip::Route;
    use crate::figure::{
        BONE_CHAIN_CLASS, ChainPlans, add_chains, bake, ideal, plan_chains, reuse,
    };

    /// The chains' key plans chosen ahead, in parallel ([`plan_chains`]),
    /// are those [`add_chains`] chooses on its own: on every bone-tree rig
    /// in `rigs/` with Verlet chains, both routes, the default keyer and a
    /// key count, the written clips keyed with the plans chosen ahead equal
    /// those keyed alone, and keying them chose no plan of its own (the
    /// memo holds one plan per chain of the written clips before and after).
    #[test]
    fn plans_chosen_ahead_are_the_plans_chosen_alone() {
        let mut checked = 0;
        for (path, rig) in example_rigs() {
            let fig = &rig.figure;
            let keyers = [
                bake::Keyer::DEFAULT,
                bake::Keyer {
                    keys: bake::ChannelKeys::Uniform(12),
                    ..bake::Keyer::DEFAULT
                },
            ];
            for route in [Route::Css, Route::Smil] {
                for keyer in keyers {
                    let written = if route == Route::Smil {
                        1
                    } else {
                        fig.clips.len()
                    };
                    let views: Vec<_> = (0..written).map(|c| fig.for_clip(c)).collect();
                    let chains: usize = views.iter().map(|v| v.chains.len()).sum();
                    if chains == 0 {
                        continue;
                    }
                    let ahead = ChainPlans::default();
                    let at = (rig.name.as_str(), rig.view_box);
                    plan_chains(at, fig, route, keyer, &ahead);
                    let chosen = || ahead.lock().unwrap().len();
                    assert_eq!(chosen(), chains, "{}", path.display());
                    let ideal = ideal::Ideal::default();
                    let fitted = bake::Fitted::default();
                    let none = reuse::Plan::none(fig);
                    let clips = bake::bake(
                        at.0,
                        at.1,
                        (fig, fig),
                        (route, keyer),
                        &none,
                        (&fitted, &ideal),
                    );
                    let (mut ca, mut cb) = (bake::colours(fig), bake::colours(fig));
                    for (clip, view) in clips.iter().zip(&views) {
                        let (mut a, mut b) = (clip.clone(), clip.clone());
                        let alone = ChainPlans::default();
                        let ma = add_chains(
                            &mut a,
                            (&view.chains, None),
                            &mut ca,
                            BONE_CHAIN_CLASS,
                            keyer,
                            &ahead,
                        );
                        let mb = add_chains(
                            &mut b,
                            (&view.chains, None),
                            &mut cb,
                            BONE_CHAIN_CLASS,
                            keyer,
                            &alone,
                        );
                        assert_eq!(a, b, "{} {route:?}", path.display());
                        assert_eq!(ma, mb, "{} {route:?}", path.display());
                        checked += view.chains.len();
                    }
                    assert_eq!(ca, cb);
                    assert_eq!(chosen(), chains, "{}", path.display());
                }
            }
        }
        // ponytail, run-up, runner, cyclist and stickman's three clips
        assert!(checked >= 4 * 4 + 3 * 2 + 2, "{checked}");
    }

    /// A bake keys the clips its route writes and no other: on the smil
    /// route (which writes the first clip) a rig of several clips is keyed
    /// as its first clip alone, as the bake's work estimate counts it (the
    /// other clips were keyed and dropped, 16 clips taking 14 times the
    /// work checked); on css every clip. Every bone-tree rig in `rigs/`
    /// with several clips, and one of 3 clips made by copying its first.
    #[test]
    fn a_bake_keys_only_the_clips_its_route_writes() {
        let mut checked = 0;
        for (path, rig) in example_rigs() {
            let fig = &rig.figure;
            let mut copied = fig.clone();
            copied.clips = vec![fig.clips[0].clone(); 3];
            for fig in [fig, &copied].into_iter().filter(|f| f.clips.len() > 1) {
                for route in [Route::Css, Route::Smil] {
                    let fitted = bake::Fitted::default();
                    let clips = bake::bake(
                        &rig.name,
                        rig.view_box,
                        (fig, fig),
                        (route, bake::Keyer::DEFAULT),
                        &reuse::Plan::none(fig),
                        (&fitted, &ideal::Ideal::default()),
                    );
                    let written = if route == Route::Smil {
                        1
                    } else {
                        fig.clips.len()
                    };
                    assert_eq!(clips.len(), written, "{} {route:?}", path.display());
                    // (a clip of constant channels fits nothing)
                    let keyed = fitted.clips_keyed();
                    assert!(
                        keyed.iter().all(|&c| c < written),
                        "{} {route:?}: {keyed:?}",
                        path.display()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 2 * 10, "{checked}");
    }
}

mod bone_fk {
    use crate::clip::Route;
    use crate::figure::fk;
    use crate::figure::spring::{any_path_has_ik, bone_matrix, path_has_ik, path_matrices};
    use crate::geom::Affine;

    /// The one-pass look for IK above a set of bones is the walk up from
    /// each: on every bone alone, on none, on all, and on the bones off IK
    /// paths with one on them added, on every example rig.
    #[test]
    fn ik_above_any_bone_is_found_in_one_pass() {
        let mut with_ik = 0;
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            let n = fig.bones.len();
            let what = path.display();
            for b in 0..n {
                assert_eq!(
                    any_path_has_ik(fig, &[b]),
                    path_has_ik(fig, b),
                    "{what} bone {b}"
                );
            }
            assert!(!any_path_has_ik(fig, &[]), "{what}");
            let all: Vec<usize> = (0..n).collect();
            assert_eq!(any_path_has_ik(fig, &all), !fig.ik.is_empty(), "{what}");
            let off: Vec<usize> = (0..n).filter(|&b| !path_has_ik(fig, b)).collect();
            assert!(!any_path_has_ik(fig, &off), "{what}");
            if let Some(on) = (0..n).rev().find(|&b| path_has_ik(fig, b)) {
                let mut more = off.clone();
                more.push(on);
                assert!(any_path_has_ik(fig, &more), "{what}");
                with_ik += 1;
            }
        }
        assert!(with_ik >= 4, "only {with_ik} rigs with IK");
    }

    /// The FK of a bone's ancestors alone is the whole figure's FK bit for
    /// bit, on every bone (those above or in IK limbs take the whole
    /// solve) of every clip: figures with IK legs, springs, root motion
    /// and clips. So are the matrices of the bones off IK paths composed
    /// together ([`path_matrices`]), asked for in any order (children
    /// before parents, every other bone), with entries for those bones and
    /// their ancestors only.
    #[test]
    fn bone_matrix_is_the_whole_figures_fk() {
        let rigs = [
            include_str!("../rigs/cyclist.json"),
            include_str!("../rigs/stickman.json"),
        ];
        let mut short = 0;
        for text in rigs {
            let rig = crate::rig::load(text).unwrap();
            let fig = &rig.figure;
            assert!(!fig.ik.is_empty());
            for clip in &fig.clips {
                for k in 0..=97 {
                    let t = k as f64 / 97.0;
                    let whole = fk::world_matrices(fig, &fk::local_angles(fig, clip, t), t);
                    let bits = |m: Affine| m.as_coeffs().map(f64::to_bits);
                    for (b, want) in whole.iter().enumerate() {
                        let got = bone_matrix(fig, clip, b, t);
                        assert_eq!(bits(got), bits(*want), "{} bone {b} t {t}", clip.name);
                        short += !path_has_ik(fig, b) as usize;
                    }
                    let off_ik: Vec<usize> = (0..fig.bones.len())
                        .rev()
                        .filter(|&b| !path_has_ik(fig, b))
                        .collect();
                    for asked in [off_ik.clone(), off_ik.iter().copied().step_by(2).collect()] {
                        let got = path_matrices(fig, clip, &asked, t);
                        for (b, m) in got.iter().enumerate() {
                            // (b is asked for, or an ancestor of a bone asked for)
                            let set = asked.iter().any(|&a| {
                                let mut x = Some(a);
                                std::iter::from_fn(|| {
                                    let i = x?;
                                    x = fig.bones[i].parent;
                                    Some(i)
                                })
                                .any(|i| i == b)
                            });
                            assert_eq!(m.is_some(), set, "{} bone {b} t {t}", clip.name);
                            if let Some(m) = m {
                                assert_eq!(
                                    bits(*m),
                                    bits(whole[b]),
                                    "{} bone {b} t {t}",
                                    clip.name
                                );
                            }
                        }
                    }
                }
            }
        }
        // most bones (heads, arms, torsos) took the short path
        assert!(short > 98 * 10, "{short}");
    }

    /// [`fk::wanted_angles`] at `t` for every bone, each bone alone and
    /// every other bone: `whole`'s bits where asked, NaN elsewhere; and
    /// [`fk::WantedAngles::each`] (the reuse search's) the same bits for the
    /// same bones asked in reverse order, its buffer kept from the ask
    /// before.
    fn assert_same_wanted_angles(
        fig: &crate::figure::Figure,
        clip: &crate::figure::model::FigClip,
        t: f64,
        whole: &[f64],
        name: &str,
    ) {
        let nb = fig.bones.len();
        let mut asks = vec![vec![true; nb]];
        asks.extend((0..nb).map(|b| (0..nb).map(|x| x == b).collect()));
        asks.push((0..nb).map(|x| x % 2 == 1).collect());
        let each = fk::WantedAngles::new(fig, clip);
        let mut solved = Vec::new();
        for want in &asks {
            let got = fk::wanted_angles(fig, clip, want, t);
            for b in 0..nb {
                if want[b] {
                    assert_eq!(got[b].to_bits(), whole[b].to_bits(), "{name} bone {b}");
                } else {
                    assert!(got[b].is_nan(), "{name} bone {b} not asked for");
                }
            }
            let bones: Vec<usize> = (0..nb).rev().filter(|&b| want[b]).collect();
            let mut seen = 0;
            each.each(&bones, t, &mut solved, |k, v| {
                assert_eq!(k, seen, "{name}: bones in order");
                seen += 1;
                let b = bones[k];
                assert_eq!(v.to_bits(), whole[b].to_bits(), "{name} bone {b} (each)");
            });
            assert_eq!(seen, bones.len(), "{name}");
        }
    }

    /// An `ik` entry solved on its own ([`fk::entry_angles`]) gives its
    /// bones' angles bit for bit as the whole figure's solve, and its ends
    /// ([`fk::entry_ends`], the reach check's) the whole solve's joint and
    /// target, for every entry of every bone-tree rig in `rigs/` that
    /// [`fk::solvable_alone`] admits (all of them), at times on and off the
    /// fitter's grids; an entry below another's bones is not admitted.
    /// [`fk::wanted_angles`] (the reuse search's) gives every bone's angle
    /// as the whole solve does, whichever bones are asked for, in the rigs
    /// and with an entry that is not admitted.
    #[test]
    fn an_entry_solved_alone_is_the_whole_solve() {
        let rigs = [
            include_str!("../rigs/cyclist.json"),
            include_str!("../rigs/jogger.json"),
            include_str!("../rigs/jump.json"),
            include_str!("../rigs/rower.json"),
            include_str!("../rigs/run-up.json"),
            include_str!("../rigs/runner.json"),
            include_str!("../rigs/stickman.json"),
            include_str!("../rigs/walker.json"),
        ];
        let mut checked = 0;
        for text in rigs {
            let rig = crate::rig::load(text).unwrap();
            let fig = &rig.figure;
            for (i, k) in fig.ik.iter().enumerate() {
                assert!(fk::solvable_alone(fig, i), "{} entry {i}", rig.name);
                for clip in &fig.clips {
                    for n in 0..=211 {
                        let t = n as f64 / 211.0 + if n % 2 == 0 { 0.0 } else { 1e-5 };
                        let whole = fk::local_angles(fig, clip, t);
                        let (u, l) = fk::entry_angles(fig, clip, i, t);
                        let name = format!("{} {} entry {i} t {t}", rig.name, clip.name);
                        assert_eq!(u.to_bits(), whole[k.upper].to_bits(), "{name}");
                        assert_eq!(l.to_bits(), whole[k.lower].to_bits(), "{name}");
                        let (j, g) = fk::entry_ends(fig, clip, i, t);
                        let (wj, wg) = fk::ik_joints_and_targets(fig, clip, t)[i];
                        let bits = |v: crate::geom::Vec2| (v.x.to_bits(), v.y.to_bits());
                        assert_eq!((bits(j), bits(g)), (bits(wj), bits(wg)), "{name}");
                        if i == 0 {
                            assert_same_wanted_angles(fig, clip, t, &whole, &name);
                        }
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 212 * 16, "{checked}");
        // a second limb hung below the first one's lower bone
        let nested = r#"{"name": "nested", "view_box": [0, 0, 200, 200], "period_s": 1,
            "bones": [
                {"name": "upper1", "at": [100, 50], "length": 40},
                {"name": "lower1", "parent": "upper1", "at": "tip", "length": 40},
                {"name": "upper2", "parent": "lower1", "at": "tip", "length": 20},
                {"name": "lower2", "parent": "upper2", "at": "tip", "length": 20}],
            "ik": [
                {"upper": "upper1", "lower": "lower1", "target": {"fixed": [130, 110]}},
                {"upper": "upper2", "lower": "lower2", "target": {"fixed": [150, 140]}}]}"#;
        let rig = crate::rig::load(nested).unwrap();
        let fig = &rig.figure;
        assert!(fk::solvable_alone(fig, 0));
        assert!(!fk::solvable_alone(fig, 1));
        for n in 0..=37 {
            let t = n as f64 / 37.0;
            let whole = fk::local_angles(fig, &fig.clips[0], t);
            assert_same_wanted_angles(fig, &fig.clips[0], t, &whole, "nested");
        }
        // its bake fits the second limb to the whole figure's solves
        let fb = crate::figure::bake_figure(&rig.name, rig.view_box, fig, Route::Css, Some("rb"));
        let errs: Vec<f64> = fb.ik.iter().map(|m| m.measure.max_error_px).collect();
        assert_eq!(errs.len(), 2);
        assert!(errs.iter().all(|&e| e < 0.25), "{errs:?}");
    }
}

mod flat_keys {
    use crate::clip::{Anim, Ease, Key, Track};
    use crate::measure::track_value;

    /// A key inside a run of equal values goes, and the track's value is
    /// the same at every time: runs at the start, inside and at the end,
    /// of three to five keys, under linear and overshooting easings.
    #[test]
    fn dropping_flat_keys_changes_no_value() {
        let eases = [Ease::Linear, Ease::CubicBezier([0.3333, 1.4, 0.6667, -0.3])];
        let runs: [&[f64]; 5] = [
            &[2.0, 2.0, 2.0, 5.0, -1.0, 2.0],
            &[0.0, 3.0, 3.0, 3.0, 3.0, 1.0, 0.0],
            &[0.0, 1.0, 4.0, 4.0, 4.0, 4.0, 4.0],
            &[7.0, 7.0, 7.0, 7.0],
            &[0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 9.0, 9.0, 9.0, 0.0],
        ];
        for values in runs {
            for (e, ease) in eases.iter().enumerate() {
                let n = values.len();
                let keys: Vec<Key> = values
                    .iter()
                    .enumerate()
                    .map(|(i, &value)| Key {
                        t: if i + 1 == n {
                            1.0
                        } else {
                            i as f64 / (n - 1) as f64 * (1.0 - 0.01 * e as f64)
                        },
                        value,
                        ease: if i % 2 == 0 { *ease } else { Ease::Linear },
                    })
                    .collect();
                let mut track = Track {
                    name: "x".into(),
                    keys: keys.clone(),
                };
                track.drop_flat_keys();
                let inner = (1..n - 1)
                    .filter(|&i| values[i - 1] == values[i] && values[i] == values[i + 1])
                    .count();
                assert_eq!(track.keys.len(), n - inner, "{values:?}");
                assert_eq!(
                    (track.keys[0], *track.keys.last().unwrap()),
                    (keys[0], keys[n - 1])
                );
                for k in 0..=2000 {
                    let u = k as f64 / 2000.0;
                    assert_eq!(
                        track_value(&track.keys, u),
                        track_value(&keys, u),
                        "{values:?} {ease:?} at {u}"
                    );
                }
            }
        }
    }

    /// No written bone, `move` or target track of any rig in `rigs/`, on
    /// either route, keys a value inside a run of equal ones (a scale's two
    /// tracks aside; springs and Verlet chains keep one key-time set each).
    #[test]
    fn no_written_track_keys_the_inside_of_a_flat_run() {
        let mut tracks = 0;
        for (path, rig) in super::example_rigs() {
            for route in [crate::Route::Css, crate::Route::Smil] {
                let opts = crate::bake::BakeOptions::resolve(&rig, route, None, None, None);
                let baked = crate::bake_rig(&rig, &opts);
                for clip in &baked.clips {
                    // (a scale's tracks are not among them)
                    let mut checked: Vec<usize> = Vec::new();
                    for g in clip.groups() {
                        match g.anim {
                            Some(Anim::Rotate { track, .. } | Anim::Translate { track, .. })
                                if g.class.as_deref().is_some_and(|c| {
                                    ["rb-b-", "rb-m-", "rb-t-"].iter().any(|p| c.contains(p))
                                }) =>
                            {
                                checked.push(track)
                            }
                            _ => {}
                        }
                    }
                    for (i, t) in clip.tracks.iter().enumerate() {
                        if !checked.contains(&i) {
                            continue;
                        }
                        tracks += 1;
                        for w in t.keys.windows(3) {
                            assert!(
                                !(w[0].value == w[1].value && w[1].value == w[2].value),
                                "{} {route:?} {}: a key at {} inside a run of {}",
                                path.display(),
                                t.name,
                                w[1].t,
                                w[1].value
                            );
                        }
                    }
                }
            }
        }
        assert!(tracks > 100, "{tracks}");
    }
}

mod chain_clips {
    use crate::figure::Figure;
    use crate::figure::chain;
    use crate::solve::physics::{Budget, SIM_BUDGET};

    /// The clips of a class-switched figure simulated side by side give
    /// what simulating them one after the other gives, chains, budget left
    /// and errors alike: with the budget to spare, with one that cuts the
    /// later clips' warm-up caps (the first clip's chain then settles
    /// before either cap; a cut that stops one sends the clips in order)
    /// and with one too small for the first clip.
    #[test]
    fn clips_simulated_side_by_side_are_the_clips_simulated_in_order() {
        let text = std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs/stickman.json"),
        )
        .unwrap();
        let file = crate::rig::parse(&text).unwrap();
        let fig = crate::rig::load(&text).unwrap().figure;
        assert!(fig.clips.len() >= 3 && !file.chains.is_empty());
        let views: Vec<Figure> = (0..fig.clips.len()).map(|c| fig.for_clip(c)).collect();
        let mut all = Budget::default();
        chain::validate_in_order(&file.chains, &views, &mut all).unwrap();
        let spent = SIM_BUDGET - all.left();
        let mut outcomes = Vec::new();
        for left in [
            SIM_BUDGET,
            spent + spent / 50,
            spent / 2,
            spent / 3,
            spent / 40,
        ] {
            let budget = || {
                let mut b = Budget::default();
                b.spend(1, SIM_BUDGET - left);
                b
            };
            let (mut a, mut b) = (budget(), budget());
            let side = chain::validate(&file.chains, &fig, &mut a);
            let order = chain::validate_in_order(&file.chains, &views, &mut b);
            match (&side, &order) {
                (Ok(x), Ok(y)) => {
                    assert!(x == y, "budget {left}: the chains differ");
                    assert_eq!(a, b, "budget {left}");
                }
                (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string()),
                _ => panic!(
                    "budget {left}: {:?} against {:?}",
                    side.is_ok(),
                    order.is_ok()
                ),
            }
            outcomes.push(order.is_ok());
        }
        // the budgets tried reach both outcomes
        assert!(
            outcomes.contains(&true) && outcomes.contains(&false),
            "{outcomes:?}"
        );
    }
}

/// The reuse search's comparison with the bake of own keys
/// ([`crate::figure::bake_figure_shared`]).
mod reuse_compare {
    use super::example_rigs;
    use crate::clip::Route;
    use crate::figure::{
        Figure, bake, bake_planned_keyed, no_worse, pair_bones, reuse, within_any,
    };

    /// Every rig in `rigs/`, as the figure it loads as.
    fn figures() -> Vec<(String, Figure)> {
        example_rigs()
            .into_iter()
            .filter_map(|(path, rig)| {
                let name = path.file_stem()?.to_string_lossy().into_owned();
                Some((name, rig.figure))
            })
            .collect()
    }

    /// The class of comparisons the reuse tries skip: wherever a try keeps
    /// every probe of some bones within the budget with its feet within the
    /// slip slack and its full reach, in the clips a pair plays in
    /// ([`within_any`]), it is no worse ([`no_worse`]) there than the bake
    /// with keys of their own, on every figure in `rigs/` (cycling rigs
    /// lowered), at budgets that make both answers occur.
    #[test]
    fn within_the_budget_is_no_worse_than_own_keys() {
        let (mut skipped, mut compared) = (0, 0);
        for (name, fig) in figures() {
            let plan = reuse::plan(&fig, Route::Css);
            if !plan.reuses() {
                continue;
            }
            let none = reuse::Plan::none(&fig);
            for px in [0.05, 0.2, 1.0] {
                let keyer = bake::Keyer {
                    keys: bake::ChannelKeys::Budget(px),
                    ..bake::Keyer::DEFAULT
                };
                let bake = |plan: &reuse::Plan| {
                    let view_box = [0.0, 0.0, 100.0, 100.0];
                    bake_planned_keyed(&name, view_box, &fig, (Route::Css, keyer), None, plan)
                };
                let (tried, own) = (bake(&plan), bake(&none));
                // every bone in every clip, every bone in the clips with
                // reuse, and each pair's bones in the clips it plays in
                let clips = fig.clips.len();
                let reusing: Vec<bool> = plan.chains.iter().map(|c| !c.is_empty()).collect();
                let mut sets: Vec<(Vec<bool>, Vec<bool>)> = vec![
                    (vec![true; fig.bones.len()], vec![true; clips]),
                    (vec![true; fig.bones.len()], reusing),
                ];
                for &(a, b, _) in plan.chains.iter().flatten() {
                    sets.push((pair_bones(&fig, (a, b)).1, plan.clips_of((a, b))));
                }
                for (bones, clips) in &sets {
                    let marked = (&bones[..], &clips[..]);
                    if within_any(&fig, &tried, marked, px) {
                        skipped += 1;
                        assert!(
                            no_worse(&fig, &tried, &own, marked, px),
                            "{name} at {px} px: within the budget but worse than own keys"
                        );
                    } else {
                        compared += 1;
                    }
                }
            }
        }
        assert!(
            skipped > 0 && compared > 0,
            "{skipped} skipped, {compared} compared"
        );
    }
}

/// The reuse search's table of angles.
mod reuse_table {
    use super::example_rigs;
    use crate::figure::reuse;

    /// The table's rows made at a coarser step, or of a pair's bones
    /// alone, are the whole table's rows bit for bit (what judging a pair
    /// on every `GRID_COARSE`th row, then on its own bones, rests on: each
    /// is then a max over a subset of the same numbers), on every clip of
    /// every bone-tree rig in `rigs/` with a candidate pair.
    #[test]
    fn coarse_and_own_rows_are_the_whole_tables() {
        let bits = |row: &[f64], bones: &[usize]| {
            bones.iter().map(|&b| row[b].to_bits()).collect::<Vec<_>>()
        };
        let mut checked = 0;
        for (path, rig) in example_rigs() {
            let fig = &rig.figure;
            let nb = fig.bones.len();
            let cands = reuse::candidates(fig);
            let mut wanted: Vec<usize> = cands
                .iter()
                .flat_map(|c| &c.2)
                .flat_map(|&(x, y)| [x, y])
                .collect();
            wanted.sort_unstable();
            wanted.dedup();
            for clip in &fig.clips {
                let angles = crate::figure::fk::WantedAngles::new(fig, clip);
                let whole = reuse::table_rows(&angles, nb, &wanted, 1);
                assert_eq!(whole.len(), reuse::GRID);
                let coarse = reuse::table_rows(&angles, nb, &wanted, reuse::GRID_COARSE);
                assert_eq!(coarse.len(), reuse::GRID / reuse::GRID_COARSE);
                for (i, row) in coarse.iter().enumerate() {
                    let at = format!("{} {} row {i}", path.display(), clip.name);
                    assert_eq!(
                        bits(row, &wanted),
                        bits(&whole[i * reuse::GRID_COARSE], &wanted),
                        "{at}"
                    );
                }
                for (_, _, pairs) in &cands {
                    let mut own: Vec<usize> = pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
                    own.sort_unstable();
                    own.dedup();
                    let table = reuse::table_rows(&angles, nb, &own, 1);
                    for (j, row) in table.iter().enumerate() {
                        let at = format!("{} {} row {j}", path.display(), clip.name);
                        assert_eq!(bits(row, &own), bits(&whole[j], &own), "{at}");
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 0);
    }
}

/// Shifts known by construction ([`reuse::constructed`]): two legs on one
/// crank take the shift of their pedals' phases without the search, and
/// the plan is the one the search finds.
mod reuse_construct {
    use super::example_rigs;
    use crate::clip::Route;
    use crate::figure::{Figure, reuse};

    /// A generated cycling rig's text (as `benches/cycling_rigs.rs`
    /// writes them), the far leg `phase` degrees on.
    fn cycling(phase: f64, direction: &str) -> String {
        format!(
            r#"{{
  "name": "odd", "view_box": [0, 0, 800, 600], "period_s": 1.3,
  "crank": {{ "center": [420, 420], "radius": 41.3, "start_deg": 0, "direction": "{direction}" }},
  "legs": [
    {{ "name": "near", "hip": [392, 262], "thigh": 121.4, "shin": 108.9,
      "pedal_offset": [0, 0], "knee": "forward", "phase_deg": 0 }},
    {{ "name": "far", "hip": [392, 262], "thigh": 121.4, "shin": 108.9,
      "pedal_offset": [0, 0], "knee": "forward", "phase_deg": {phase}, "depth_offset": [-6, -7] }}
  ]
}}"#
        )
    }

    fn load(text: &str) -> Figure {
        crate::rig::load(text).expect("a rig").figure
    }

    /// The tree `text` lowers into, as JSON, for editing.
    fn lowered(text: &str) -> serde_json::Value {
        let file = crate::rig::lower(&crate::rig::parse(text).expect("parse")).expect("lower");
        serde_json::from_str(&crate::rig::to_text(&file)).expect("json")
    }

    fn bone(fig: &Figure, name: &str) -> usize {
        fig.bones.iter().position(|b| b.name == name).expect(name)
    }

    /// The plan as planned equals the plan of the search alone: the same
    /// chains, delays and shared tracks, the drawn pose within 1e-12.
    fn same_as_searched(name: &str, fig: &Figure) -> reuse::Plan {
        let plan = reuse::plan(fig, Route::Css);
        let searched = reuse::plan_searched(fig, Route::Css);
        assert_eq!(plan.chains, searched.chains, "{name}: chains");
        assert_eq!(plan.shared, searched.shared, "{name}: shared");
        for (x, y) in plan.drawn_rad.iter().zip(&searched.drawn_rad) {
            assert!((x - y).abs() <= 1e-12, "{name}: drawn {x} against {y}");
        }
        plan
    }

    #[test]
    fn constructed_shift_plans_as_the_search() {
        let mut constructed = 0;
        for (path, rig) in example_rigs() {
            let name = path.display().to_string();
            let fig = &rig.figure;
            same_as_searched(&name, fig);
            let n = fig.bones.len();
            constructed += (0..n)
                .flat_map(|b| (0..b).map(move |a| (a, b)))
                .filter(|&ab| reuse::constructed(fig, 0, ab).is_some())
                .count();
        }
        assert!(constructed > 0, "no rig in rigs/ has a constructed pair");
        for direction in ["cw", "ccw"] {
            for phase in [193.7, 150.0, 180.0, 0.25] {
                let name = format!("phase {phase} {direction}");
                let fig = load(&cycling(phase, direction));
                let (far, near) = (bone(&fig, "far_thigh"), bone(&fig, "near_thigh"));
                let s = reuse::constructed(&fig, 0, (far, near)).expect(&name);
                // the far pedal is `phase` ahead: the near leg's motion is the
                // far leg's `phase` later in the turn's own direction
                let turn = if direction == "cw" { 1.0 } else { -1.0 };
                let want = (-turn * phase / 360.0f64).rem_euclid(1.0);
                assert!((s - want).abs() < 1e-12, "{name}: {s} against {want}");
                let plan = same_as_searched(&name, &fig);
                if phase != 0.25 {
                    assert!(
                        plan.chains[0].iter().any(|c| (c.0, c.1) == (far, near)),
                        "{name}"
                    );
                }
            }
        }
    }

    /// Where the construction does not apply (the far target the same
    /// circle written as a turned ellipse, the hips of other lengths, a
    /// hip that moves) the pair is searched, and found where it is
    /// reusable (the turned circle: the same motion).
    #[test]
    fn pairs_not_constructed_are_searched() {
        let text = cycling(193.7, "cw");
        let far_entry = |v: &mut serde_json::Value| -> usize {
            let ik = v["ik"].as_array().expect("ik");
            ik.iter()
                .position(|e| e["upper"] == "far_thigh")
                .expect("far entry")
        };
        // the same circle, turned a quarter with its start a quarter back
        let mut turned = lowered(&text);
        let i = far_entry(&mut turned);
        let c = turned["ik"][i]["target"]["circle"].clone();
        let start = c["start_deg"].as_f64().expect("start");
        turned["ik"][i]["target"] = serde_json::json!({"ellipse": {
            "center": c["center"], "rx": c["radius"], "ry": c["radius"],
            "rotation_deg": 90, "start_deg": start - 90.0, "direction": c["direction"]}});
        // the near hip a bone of some length (a chain of another shape)
        let mut long = lowered(&text);
        for b in long["bones"].as_array_mut().expect("bones") {
            if b["name"] == "near_hip" {
                b["length"] = serde_json::json!(1);
            }
        }
        // the near hip swaying
        let mut swaying = lowered(&text);
        for b in swaying["bones"].as_array_mut().expect("bones") {
            if b["name"] == "near_hip" {
                b["angle"] = serde_json::json!({"sine": {"amp_deg": 2, "harmonic": 1, "phase_deg": 0, "offset_deg": 0}});
            }
        }
        for (name, v, reused) in [
            ("turned", turned, true),
            ("long", long, false),
            ("swaying", swaying, false),
        ] {
            let fig = load(&v.to_string());
            let (far, near) = (bone(&fig, "far_thigh"), bone(&fig, "near_thigh"));
            assert_eq!(reuse::constructed(&fig, 0, (far, near)), None, "{name}");
            let plan = same_as_searched(name, &fig);
            let found = plan.chains[0].iter().any(|c| (c.0, c.1) == (far, near));
            assert_eq!(found, reused, "{name}");
        }
    }

    /// A crowd of chains of one shape (one or two bones each, in one or
    /// three clips) has n² / 2 candidate pairs, still, moving alike, phase
    /// shifted, only a lower bone moving, half of them still: the planner's
    /// tables solve at most four angles per bone and grid time in each
    /// clip however many chains there are (a coarse table, a bone's own
    /// check, the pairs' own tables until they hold as much as the whole
    /// table, the whole table). Judged a pair at a time, a crowd of 64
    /// still bones solved each pair's table: 64 · 63 · 720 angles a clip.
    #[test]
    fn a_crowd_of_one_shape_tables_each_bone_a_few_times() {
        use serde_json::json;
        let sine = |phase: f64, offset: f64| json!({"sine": {"amp_deg": 20, "harmonic": 1, "phase_deg": phase, "offset_deg": offset}});
        let still = |deg: f64| json!({"const_deg": deg});
        type Drive = fn(
            usize,
            &dyn Fn(f64, f64) -> serde_json::Value,
            &dyn Fn(f64) -> serde_json::Value,
        ) -> serde_json::Value;
        let shapes: [(&str, Drive, Drive); 5] = [
            ("still", |i, _, c| c(i as f64), |i, _, c| c(-(i as f64))),
            (
                "alike",
                |i, s, _| s(0.0, i as f64),
                |i, s, _| s(90.0, -(i as f64)),
            ),
            (
                "shifted",
                |i, s, _| s(7.0 * i as f64, 0.0),
                |i, s, _| s(90.0 + 7.0 * i as f64, 0.0),
            ),
            (
                "lower",
                |i, _, c| c(i as f64),
                |i, s, _| s(0.0, -(i as f64)),
            ),
            (
                "half",
                |i, s, c| if i % 2 == 0 { c(i as f64) } else { s(0.0, 0.0) },
                |_, _, c| c(5.0),
            ),
        ];
        for (shape, upper, lower) in shapes {
            for depth in [1, 2] {
                for clips in [1, 3] {
                    for n in [8, 64] {
                        let mut bones =
                            vec![json!({"name": "root", "at": [400, 300], "length": 0})];
                        for i in 0..n {
                            bones.push(json!({"name": format!("u{i}"), "parent": "root",
                                "at": "origin", "length": 10, "angle": upper(i, &sine, &still)}));
                            if depth == 2 {
                                bones.push(
                                    json!({"name": format!("l{i}"), "parent": format!("u{i}"),
                                    "length": 8, "angle": lower(i, &sine, &still)}),
                                );
                            }
                        }
                        let clips: Vec<_> = (0..clips)
                            .map(|k| json!({"name": format!("c{k}"), "angles": {}}))
                            .collect();
                        let rig = json!({"name": "crowd", "view_box": [0, 0, 800, 600],
                            "period_s": 1, "bones": bones, "clips": clips});
                        let fig = crate::rig::load(&rig.to_string())
                            .expect("valid rig")
                            .figure;
                        let (_, tabled) = reuse::plan_tabled(&fig);
                        let bound = 4 * fig.bones.len() * reuse::GRID * fig.clips.len();
                        assert!(
                            tabled <= bound,
                            "{shape}, {n} chains of {depth}, {} clips: {tabled} angles tabled, past {bound}",
                            fig.clips.len()
                        );
                    }
                }
            }
        }
    }
}

mod ik_morph {
    use crate::clip::{Item, Node, Route};
    use crate::figure::file::IkSmil;
    use crate::figure::morph::{MorphKeys, entry_of, in_parent, limb};
    use crate::geom::Vec2Ext;

    fn morph_seed() -> crate::rig::Rig {
        let text = crate::rig::tests_support::SEED;
        let file = crate::rig::parse(text).unwrap();
        let mut tree = crate::rig::lower_legs(&file).unwrap();
        for k in &mut tree.ik {
            k.smil = Some(IkSmil::Morph);
        }
        crate::rig::validate(&tree).unwrap()
    }

    /// At every key the written points are the solved pose: the joint,
    /// the knee a thigh from it and the effector a shin from the knee (to
    /// the rounding of the written points), the effector on the ideal one;
    /// the lowered legs' hips stay still.
    #[test]
    fn morph_keyed_points_are_the_solved_pose() {
        let rig = morph_seed();
        let fig = &rig.figure;
        let fc = &fig.clips[0];
        assert!(fig.ik.iter().all(|k| k.smil == IkSmil::Morph));
        let rest = crate::figure::fk::world_matrices(fig, &fig.rest_rad, 0.0);
        for (i, k) in fig.ik.iter().enumerate() {
            let parent = fig.bones[k.upper].parent.map(|p| rest[p]);
            let node = limb(fig, fc, i, parent, (MorphKeys::Uniform(12), 0));
            let Item::Morph(m) = in_parent(node) else {
                panic!("a morph drawn straight into its parent")
            };
            assert_eq!(m.keys.len(), 13);
            assert_eq!(m.probe, Some(fig.tip_probe(k.lower)));
            let (l1, l2) = (fig.bones[k.upper].length, fig.bones[k.lower].length);
            for (u, pts) in &m.keys {
                let pose = crate::figure::fk::pose(fig, fc, *u);
                assert!((pts[0].dist(pts[1]) - l1).abs() < 0.02, "{u}");
                assert!((pts[1].dist(pts[2]) - l2).abs() < 0.02, "{u}");
                assert!(pts[2].dist(pose.ik[i]) < 0.01, "{u}: {:?}", pts[2]);
                assert_eq!(pts[0], m.keys[0].1[0], "{u}: the hip moved");
            }
        }
    }

    /// The css route, and a limb left to rotations, keep their groups.
    #[test]
    fn morph_only_an_entry_so_marked_on_smil() {
        let rig = morph_seed();
        let mut fig = rig.figure.clone();
        let up = fig.ik[0].upper;
        assert_eq!(entry_of(&fig, Route::Smil, up), Some(0));
        assert_eq!(entry_of(&fig, Route::Css, up), None);
        fig.ik[0].smil = IkSmil::Rotate;
        assert_eq!(entry_of(&fig, Route::Smil, up), None);
        let g = Node {
            class: Some("x".into()),
            ..Node::default()
        };
        assert!(matches!(in_parent(g), Item::Group(_)));
    }
}

/// The reach check's plan against sampling every time (it parses rig
/// text, so it lives above the rig loader).
mod reach_plan {
    use crate::chain::ChainReach;
    use crate::figure::model::{Figure, IK_REACH_SAMPLES, check_ik_reach, validate};
    use crate::geom::Vec2Ext;

    /// [`check_ik_reach`] as it was before the reach plan: every entry
    /// sampled at every time.
    fn reach_sampled(fig: &Figure) -> Result<(), String> {
        for clip in &fig.clips {
            for k in 0..IK_REACH_SAMPLES {
                let t = k as f64 / IK_REACH_SAMPLES as f64;
                let ends = crate::figure::fk::ik_joints_and_targets(fig, clip, t);
                for (i, ik) in fig.ik.iter().enumerate() {
                    if ik.reach != ChainReach::Error {
                        continue;
                    }
                    let (l1, l2) = (fig.bones[ik.upper].length, fig.bones[ik.lower].length);
                    let d = ends[i].0.dist(ends[i].1);
                    if d > l1 + l2 + 1e-9 || d < (l1 - l2).abs() - 1e-9 || d < 1e-9 {
                        return Err(format!("ik[{i}] {} {k} {d:.2}", clip.name));
                    }
                }
            }
        }
        Ok(())
    }

    /// Targets on circles and ellipses whose farthest or nearest point,
    /// met at a sampled time, is a hair (from 1e-13 px to a pixel) outside
    /// or inside the reach or its 1e-9 slack, under a still hip and under
    /// root motion (not still: sampled): refused at the same entry, time
    /// and distance as when every time was sampled.
    #[test]
    fn reach_plans_refuse_what_sampling_every_time_refuses() {
        let (l1, l2) = (100.0, 80.0);
        let hip = (300.0, 200.0);
        let mut checked = [0, 0];
        for (n, delta) in [
            0.0, 1e-13, -1e-13, 1e-11, -1e-11, 1e-9, -1e-9, 1.001e-9, 0.999e-9, 2e-9, -2e-9, 1e-7,
            -1e-7, 1e-4, -1e-4, 0.3, -0.3,
        ]
        .into_iter()
        .enumerate()
        {
            for (form, outer, root) in [
                ("circle", true, ""),
                ("circle", false, ""),
                ("ellipse", true, ""),
                ("ellipse", false, ""),
                (
                    "circle",
                    true,
                    r#", "root": {"y": {"keys": [[0, 0], [1, 0]]}}"#,
                ),
            ] {
                // the centre right of the hip: the farthest point at the
                // turn 0, the nearest at a half turn, each at sample k0
                let m = 61.0;
                let (cx, cy) = (hip.0 + m, hip.1);
                let r = if outer {
                    l1 + l2 - m + delta
                } else {
                    m - (l1 - l2) + delta
                };
                let k0 = 5 * n + 3;
                let start = -360.0 * k0 as f64 / IK_REACH_SAMPLES as f64;
                let target = match form {
                    "circle" => format!(
                        r#"{{"circle": {{"center": [{cx}, {cy}], "radius": {r}, "start_deg": {start}}}}}"#
                    ),
                    _ => format!(
                        r#"{{"ellipse": {{"center": [{cx}, {cy}], "rx": {r}, "ry": {}, "start_deg": {}, "direction": "ccw"}}}}"#,
                        r * 0.75,
                        -start
                    ),
                };
                let text = format!(
                    r#"{{"name": "r", "view_box": [0, 0, 800, 600], "period_s": 1, "bones": [
                        {{"name": "hip", "at": [{}, {}], "length": 0}},
                        {{"name": "thigh", "parent": "hip", "length": {l1}}},
                        {{"name": "shin", "parent": "thigh", "length": {l2}}}],
                      "ik": [{{"upper": "thigh", "lower": "shin", "target": {target}}}]{root}}}"#,
                    hip.0, hip.1
                );
                let file = crate::rig::parse(&text).unwrap();
                let fig = validate(
                    &file.bones,
                    file.root.as_ref(),
                    file.play,
                    &file.clips,
                    &file.ik,
                    1.0,
                )
                .unwrap();
                let want = reach_sampled(&fig);
                let got = check_ik_reach(&fig);
                assert_eq!(got.is_ok(), want.is_ok(), "{text}: {got:?} {want:?}");
                if let (Err(got), Err(want)) = (got, want) {
                    let k: usize = want.split(' ').nth(2).unwrap().parse().unwrap();
                    let t = format!("t = {:.4}", k as f64 / IK_REACH_SAMPLES as f64);
                    let d = want.split(' ').nth(3).unwrap();
                    let msg = got.to_string();
                    assert!(msg.contains(&t) && msg.contains(d), "{msg} / {want}");
                }
                checked[usize::from(reach_sampled(&fig).is_ok())] += 1;
            }
        }
        assert!(checked[0] > 10 && checked[1] > 10, "{checked:?}");
    }
}

mod pair_alone {
    use crate::figure::bake::{error_alone, ideal_tips};
    use crate::geom::Vec2Ext;

    /// An `ik` entry counted alone ([`error_alone`]) sits under still
    /// bones only (every ancestor's joint and tip in one place all clip
    /// long) and holds no bone but its own lower one; over `rigs/`, the
    /// cycling rigs' legs are alone (a spring or chain elsewhere in the
    /// figure changes nothing) and a figure that walks, rows or jumps
    /// carries its legs.
    #[test]
    fn a_pair_alone_hangs_from_still_bones_and_holds_nothing() {
        let mut alone = Vec::new();
        for (path, rig) in super::example_rigs() {
            let fig = &rig.figure;
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            for (ci, clip) in fig.clips.iter().enumerate() {
                for (i, k) in fig.ik.iter().enumerate() {
                    if !error_alone(fig, clip, i) {
                        continue;
                    }
                    alone.push(format!("{name} {ci} {i}"));
                    let tips: Vec<_> = (0..=64)
                        .map(|s| ideal_tips(fig, clip, 1.0, s as f64 / 64.0))
                        .collect();
                    let mut above = fig.bones[k.upper].parent;
                    while let Some(a) = above {
                        for t in &tips {
                            assert!(t[a].dist(tips[0][a]) < 1e-9, "{name}: bone {a} moves");
                        }
                        above = fig.bones[a].parent;
                    }
                    for (b, bone) in fig.bones.iter().enumerate() {
                        let under = bone.parent == Some(k.upper) || bone.parent == Some(k.lower);
                        assert!(
                            !under || b == k.lower,
                            "{name}: bone {b} hangs from entry {i}"
                        );
                    }
                }
            }
            // (cyclist's arms hang from its swaying spine, its legs alone)
            let cycling = ["seed-nested", "seed-smil", "recumbent", "cyclist-scarf"];
            let count = alone
                .iter()
                .filter(|a| a.starts_with(&format!("{name} ")))
                .count();
            if cycling.contains(&name.as_str()) {
                assert_eq!(count, 2, "{name}: {alone:?}");
                assert_eq!(fig.ik.len() * fig.clips.len(), 2, "{name}");
            } else if name == "cyclist" {
                assert_eq!(count, 2, "{name}: {alone:?}");
                assert_eq!(fig.ik.len(), 4, "{name}");
            } else if ["walker", "runner", "rower", "jump"].contains(&name.as_str()) {
                assert_eq!(count, 0, "{name}: {alone:?}");
            }
        }
    }
}

mod key_choice {
    use crate::figure::bake::{ChannelKeys, Keyer};
    use crate::fit::{self, CheckGrid, Curve, Fit};

    /// Beside a kink no corner names, a budget no key set keeps (1e-4 on
    /// a cusp of 40·√|t − 0.3|): the channel takes the set that misses
    /// least, as the check times see it, not the one of fewest bytes (the
    /// sparse linear keys, which missed the most), on both shapes' keyers.
    #[test]
    fn where_no_set_keeps_its_budget_the_least_error_wins() {
        let cusp = |t: f64| 40.0 * (t - 0.3).abs().sqrt();
        for (fit, shortest_shape) in [
            (Fit::Cubic, true),
            (Fit::Cubic, false),
            (Fit::Linear, false),
        ] {
            let c = Curve {
                f: &cusp,
                fixed: &[],
                corners: &[],
                step: 4,
                budget: 1e-4,
                max_keys: 1024,
                clamp_y: false,
                decimals: 3,
                fit,
            };
            let keyer = Keyer {
                keys: ChannelKeys::Budget(1e-4),
                fit,
                shortest_shape,
            };
            let grid = CheckGrid::default();
            let chosen = fit::max_error_on(&c, &keyer.keys(&c), &grid);
            for shape in [Fit::Cubic, Fit::Linear] {
                let placed = fit::fewest_placed_on(&Curve { fit: shape, ..c }, &grid);
                assert!(!placed.kept, "{shape:?}");
                let other = fit::max_error_on(&c, &placed.keys, &grid);
                if shape == fit || shortest_shape {
                    assert!(
                        chosen <= other,
                        "{fit:?} {shortest_shape}: {chosen} > {shape:?} {other}"
                    );
                }
            }
        }
    }
}
