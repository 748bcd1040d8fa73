//! Bake: ideal world motion → written clip (parent-relative keyframes).
//!
//! **css route.** Each leg is two nested groups drawn in a *drawn pose* (its
//! phase-0 pose). The thigh group rotates about the drawn hip by
//! `θ_thigh(t) − θ_thigh(0)`; the shin group, nested inside, rotates about the
//! drawn knee by `(θ_shin(t) − θ_shin(0)) − (θ_thigh(t) − θ_thigh(0))`: the
//! child inherits the parent's rotation, so its key is the world delta minus
//! the parent's delta (forgetting the subtraction gives "knee right, ankle
//! wrong"). Angles are unwrapped world angles in radians, written in degrees.
//!
//! **Reuse.** A leg with the same hip, bones, pedal offset, knee and reach as
//! an earlier leg is drawn in that leg's phase-0 shape (plus its own
//! `depth_offset`) and plays the earlier leg's keyframes with a negative
//! `animation-delay` equal to its phase lead: after the delay the local delta
//! `f(θ₀ + Δ + ωt) − f(θ₀)` lands on the drawn `f(θ₀)`, giving exactly the
//! world pose `f(θ₀ + Δ + ωt)`.
//!
//! **smil route.** Each leg is one `M hip L knee L ankle` path whose absolute
//! joint positions are keyed; no parent-relative conversion is needed.
//!
//! Keys are uniform in time: `t_k = k / n`, k = 0..=n, linear between keys.
//! Linear interpolation of angles leaves the ankle off the ideal curve by a
//! chord sag that falls as 1/n²; the measure stage reports how much.

use crate::clip::{Anim, Clip, Item, LegInfo, Morph, Node, Route, Track};
pub use crate::emit::scope::{FIXED_NAMES, SIDE_PARTS, leg_names, side_names};
use crate::fit::morph::MorphProblem;
use crate::fit::pair::{Pair, PairMotion, PairSample};
use crate::fit::{self, FIT_SAMPLES, Fit};
pub use crate::fit::{BakeOptions, DEFAULT_TOLERANCE_PX, Keying, MAX_FIT_KEYS};
use crate::geom::{LEN_DECIMALS, Rem1, SEC_DECIMALS, Vec2, quantize};
use crate::motion::{LegMotion, Motion};
use crate::rig::{Crank, Leg, Rig};
use std::f64::consts::TAU;

impl BakeOptions {
    /// The options for one rig and route, from optional overrides: `keys`
    /// (uniform) wins, then `tolerance_px`, then the rig's `tolerance_px`,
    /// then the rig's `keys`; with none of them, keys are fitted to
    /// [`DEFAULT_TOLERANCE_PX`] ([`Keying::Goal`]). The fit defaults to cubic
    /// for a fitted bake on the css route (on both routes for a bone tree)
    /// and to linear otherwise; with no `fit` given, a fitted css bake also
    /// sets [`BakeOptions::shortest_shape`] (a bone tree's channels take
    /// whichever of cubic and linear keys writes fewer bytes).
    pub fn resolve(
        rig: &Rig,
        route: Route,
        keys: Option<usize>,
        tolerance_px: Option<f64>,
        fit: Option<Fit>,
    ) -> Self {
        let keying = match (keys, tolerance_px.or(rig.tolerance_px), rig.keys) {
            (Some(n), _, _) => Keying::Uniform(n),
            (None, Some(px), _) => Keying::Tolerance(px),
            (None, None, Some(n)) => Keying::Uniform(n),
            (None, None, None) => Keying::Goal(DEFAULT_TOLERANCE_PX),
        };
        // a bone tree's rotations take keySplines on smil too (no d morph)
        let chosen = fit;
        let fit = fit.unwrap_or(match (route, keying.fit_tolerance()) {
            (Route::Css, Some(_)) => Fit::Cubic,
            (Route::Smil, Some(_)) if rig.figure.is_some() => Fit::Cubic,
            _ => Fit::Linear,
        });
        // no `--fit`: a bone tree's css channels take the shorter shape
        let shortest_shape =
            chosen.is_none() && route == Route::Css && keying.fit_tolerance().is_some();
        BakeOptions {
            route,
            keying,
            fit,
            shortest_shape,
        }
    }
}

/// Crank arm, pedal and leg styling widths, from the geometry.
fn bone_width(leg: &Leg) -> f64 {
    crate::emit::style::limb_width(leg.thigh, leg.shin)
}

fn q_len(p: Vec2) -> Vec2 {
    Vec2::new(quantize(p.x, LEN_DECIMALS), quantize(p.y, LEN_DECIMALS))
}

/// Parent-relative rotations (radians) of the thigh and shin groups at
/// normalised time t, for groups drawn in the leg's phase-0 pose:
/// `thigh_local = θ_thigh(t) − θ_thigh(0)`,
/// `shin_local = (θ_shin(t) − θ_shin(0)) − (θ_thigh(t) − θ_thigh(0))`,
/// from unwrapped world angles.
pub fn local_angles_rad(lm: &LegMotion, t: f64) -> (f64, f64) {
    local_of(lm.angles_at(0.0), lm.angles_at(t))
}

/// The local rotations of [`local_angles_rad`] from the unwrapped world
/// angles at 0 and at t.
fn local_of((thigh0, shin0): (f64, f64), (thigh, shin): (f64, f64)) -> (f64, f64) {
    let thigh_local = thigh - thigh0;
    (thigh_local, (shin - shin0) - thigh_local)
}

/// A css-route leg as a [`Pair`]: its thigh and shin turns from the drawn
/// phase-0 pose ([`local_angles_rad`], the angles at 0 solved once, those
/// at the fitter's times from poses solved once), its ankle judged against
/// the ideal one (a clamped leg keeps its gap), keyed where a clamped leg's
/// target leaves or re-enters its reach ([`LegMotion::reach_corners`]).
fn leg_pair(lm: &LegMotion, fit: Fit) -> Pair<'_> {
    let pose0 = lm.pose_at(0.0);
    let zero = lm.angles_of(0.0, &pose0);
    let samples = (0..=FIT_SAMPLES)
        .map(|k| {
            let t = k as f64 / FIT_SAMPLES as f64;
            let p = lm.pose_at(t);
            PairSample {
                local: local_of(zero, lm.angles_of(t, &p)),
                joint: p.joint,
                end: p.end,
            }
        })
        .collect();
    let motion = PairMotion {
        local: Box::new(move |t| local_of(zero, lm.angles_at(t))),
        samples,
        root: lm.leg().hip,
        drawn: [q_len(lm.leg().hip), q_len(pose0.joint), q_len(pose0.end)],
        corners: lm.reach_corners(),
        judge_joint: false,
        clamp_y: false,
    };
    Pair::new(motion, fit)
}

/// Fitting a smil-route leg ([`MorphProblem`]): its ankle `end(t)` (the
/// reachable one: a leg clamped out of reach keeps its gap whatever the
/// keys), keyed first where a clamped leg's target leaves or re-enters its
/// reach ([`LegMotion::reach_corners`]).
fn smil_leg<'a>(lm: &LegMotion, end: &'a dyn Fn(f64) -> Vec2) -> MorphProblem<'a> {
    MorphProblem::new(end, lm.reach_corners())
}

/// Two geometric legs that can share keyframes (same shape, any phase).
fn same_shape(a: &Leg, b: &Leg) -> bool {
    a.hip == b.hip
        && a.thigh == b.thigh
        && a.shin == b.shin
        && a.pedal_offset == b.pedal_offset
        && a.knee == b.knee
        && a.reach == b.reach
}

/// The negative delay (seconds, as written) that makes a leg whose pedal leads
/// by `lead_rad` replay keyframes baked for phase 0.
fn reuse_delay_s(lead_rad: f64, sign: f64, period_s: f64) -> f64 {
    let frac = (sign * lead_rad / TAU).rem1();
    let d = quantize(-frac * period_s, SEC_DECIMALS);
    if d == 0.0 { 0.0 } else { d }
}

/// Bake a rig's motion into a clip (pure).
pub fn bake(rig: &Rig, motion: &Motion, opts: &BakeOptions) -> Clip {
    let period_s = quantize(rig.period_s, SEC_DECIMALS);
    let fit = opts.effective_fit();
    let crank = Crank::of(rig);
    let sign = crank.sign();
    let center = q_len(crank.center);
    let radius = quantize(crank.radius, LEN_DECIMALS);
    let mut tracks: Vec<Track> = vec![Track::full_turn("rb-crank".into(), sign)];
    let crank_track = 0;
    let mut sides: Vec<Node> = Vec::new();
    let mut infos: Vec<LegInfo> = Vec::new();
    // For each leg that owns keyframes: (index of its thigh track, its leg index).
    let mut owners: Vec<(usize, usize)> = Vec::new();

    for (i, lm) in motion.legs.iter().enumerate() {
        let leg = lm.leg();
        let theta0 = crank.start_rad + leg.phase_rad;
        let width = bone_width(leg);
        let side_class = side_names(&leg.name, "");
        let mut side = Node {
            class: Some(side_class.clone()),
            translate: q_len(leg.depth_offset),
            anim: None,
            children: Vec::new(),
        };
        let pedal_axle0 = q_len(center + Vec2::from_angle(theta0) * radius);
        let target_probe = format!("{}-target", leg.name);
        let ankle_probe = format!("{}-ankle", leg.name);
        let offset = q_len(leg.pedal_offset);
        let pedal_w = quantize((radius * 0.5).max(4.0), LEN_DECIMALS);
        let pedal_h = quantize((width * 0.4).max(2.0), LEN_DECIMALS);

        // Crank arm (both routes): drawn at θ0, turning with the crank.
        let arm = Item::Line {
            from: center,
            to: pedal_axle0,
            class: "rb-arm".into(),
            width: quantize((width * 0.35).max(1.5), 1),
        };
        // The arm turns with the crank; the pedal, drawn at its phase-0
        // axle inside the arm's group, turns back about that axle as fast,
        // so it stays level. One structure on both routes; the css route
        // names the groups its rules select (every leg's counter-turn has
        // the same keys, so the file writes one keyframes block for them).
        let counter = tracks.len();
        tracks.push(Track::full_turn(side_names(&side_class, "counter"), -sign));
        let class = |part: &str| (opts.route == Route::Css).then(|| side_names(&side_class, part));
        let pedal = Node {
            class: class("pedal"),
            anim: Some(Anim::Rotate {
                track: counter,
                origin: pedal_axle0,
                delay_s: 0.0,
            }),
            children: vec![
                pedal_rect(pedal_axle0, pedal_w, pedal_h),
                Item::Probe {
                    name: target_probe.clone(),
                    at: q_len(pedal_axle0 + offset),
                },
            ],
            ..Node::default()
        };
        side.children.push(Item::Group(Node {
            class: class("crank"),
            anim: Some(Anim::Rotate {
                track: crank_track,
                origin: center,
                delay_s: 0.0,
            }),
            children: vec![arm, Item::Group(pedal)],
            ..Node::default()
        }));

        let leg_class = if i == 0 { "rb-leg" } else { "rb-leg rb-back" };
        let (leg_tracks, reuses) = match opts.route {
            Route::Css => {
                let reused = owners
                    .iter()
                    .find(|&&(_, j)| same_shape(motion.legs[j].leg(), leg))
                    .copied();
                let (thigh_track, src, delay_s) = match reused {
                    Some((tt, j)) => {
                        let lead = leg.phase_rad - motion.legs[j].leg().phase_rad;
                        (tt, &motion.legs[j], reuse_delay_s(lead, sign, period_s))
                    }
                    None => {
                        let tt = tracks.len();
                        // a fitted leg's keys from its problem, whose memo
                        // already holds every key time's value and slope
                        let fitted =
                            |p: Pair, times: Vec<Vec<f64>>| [p.keys(&times, 0), p.keys(&times, 1)];
                        let [thigh_keys, shin_keys] = match opts.keying {
                            Keying::Uniform(n) => {
                                let times = fit::uniform_times(n);
                                let thigh_deg = |t: f64| local_angles_rad(lm, t).0.to_degrees();
                                let shin_deg = |t: f64| local_angles_rad(lm, t).1.to_degrees();
                                [
                                    fit::keys_at(&times, &thigh_deg, fit),
                                    fit::keys_at(&times, &shin_deg, fit),
                                ]
                            }
                            Keying::Tolerance(px) | Keying::Goal(px) => {
                                let p = leg_pair(lm, fit);
                                let times = fit::refine(&p, px, MAX_FIT_KEYS);
                                fitted(p, times)
                            }
                            Keying::Budget(n) => {
                                let p = leg_pair(lm, fit);
                                let times = fit::fill(&p, n);
                                fitted(p, times)
                            }
                        };
                        tracks.push(Track {
                            name: side_names(&side_class, "thigh"),
                            keys: thigh_keys,
                        });
                        tracks.push(Track {
                            name: side_names(&side_class, "shin"),
                            keys: shin_keys,
                        });
                        owners.push((tt, i));
                        (tt, lm, 0.0)
                    }
                };
                side.children.push(Item::Group(leg_groups(
                    src,
                    thigh_track,
                    delay_s,
                    &side_class,
                    &ankle_probe,
                    leg_class,
                    width,
                )));
                (
                    vec![thigh_track, thigh_track + 1],
                    reused.map(|(_, j)| motion.legs[j].leg().name.clone()),
                )
            }
            Route::Smil => {
                let hip = q_len(leg.hip);
                let times = match opts.keying {
                    Keying::Uniform(n) => fit::uniform_times(n),
                    Keying::Tolerance(px) | Keying::Goal(px) => {
                        fit::refine(&smil_leg(lm, &|t| lm.pose_at(t).end), px, MAX_FIT_KEYS)
                            .remove(0)
                    }
                    Keying::Budget(n) => {
                        fit::fill(&smil_leg(lm, &|t| lm.pose_at(t).end), n).remove(0)
                    }
                };
                let keys = times
                    .iter()
                    .map(|&t| {
                        let p = lm.pose_at(t);
                        (t, vec![hip, q_len(p.joint), q_len(p.end)])
                    })
                    .collect::<Vec<_>>();
                side.children.push(Item::Morph(Morph {
                    class: leg_class.into(),
                    width,
                    probe: Some(ankle_probe.clone()),
                    cubic: false,
                    keys,
                }));
                (Vec::new(), None)
            }
        };
        side.children.push(Item::Circle {
            center: q_len(leg.hip),
            r: quantize(width * 0.5, 1),
            class: "rb-hip".into(),
        });
        infos.push(LegInfo {
            name: leg.name.clone(),
            ankle_probe,
            target_probe,
            thigh: leg.thigh,
            shin: leg.shin,
            tracks: leg_tracks,
            fit,
            reuses,
            ideal: None,
        });
        sides.push(side);
    }

    // Draw back to front: later legs are behind; the bike sits between the
    // first leg and the rest.
    let mut root = Node::default();
    let first = sides.remove(0);
    for side in sides.into_iter().rev() {
        root.children.push(Item::Group(side));
    }
    root.children.push(bike(rig, center, radius, crank_track));
    root.children.push(Item::Group(first));

    Clip {
        name: rig.name.clone(),
        route: opts.route,
        period_s,
        view_box: rig.view_box,
        tracks,
        root,
        legs: infos,
        figure: None,
        ground_wrap_px: None,
    }
}

fn pedal_rect(center: Vec2, w: f64, h: f64) -> Item {
    Item::Rect {
        center,
        w,
        h,
        class: "rb-pedal".into(),
    }
}

/// The css-route leg: thigh group about the drawn hip, shin group nested
/// inside about the drawn knee, ankle probe at the drawn ankle. `src` is the
/// leg whose phase-0 pose is drawn and whose tracks (`thigh_track`,
/// `thigh_track + 1`) are played with `delay_s`.
fn leg_groups(
    src: &LegMotion,
    thigh_track: usize,
    delay_s: f64,
    side_class: &str,
    ankle_probe: &str,
    class: &str,
    width: f64,
) -> Node {
    let pose = src.pose_at(0.0);
    let hip = q_len(src.leg().hip);
    let knee = q_len(pose.joint);
    let ankle = q_len(pose.end);
    let shin = Node {
        class: Some(side_names(side_class, "shin")),
        anim: Some(Anim::Rotate {
            track: thigh_track + 1,
            origin: knee,
            delay_s,
        }),
        children: vec![
            Item::Line {
                from: knee,
                to: ankle,
                class: class.into(),
                width,
            },
            Item::Probe {
                name: ankle_probe.into(),
                at: ankle,
            },
        ],
        ..Node::default()
    };
    Node {
        class: Some(side_names(side_class, "thigh")),
        anim: Some(Anim::Rotate {
            track: thigh_track,
            origin: hip,
            delay_s,
        }),
        children: vec![
            Item::Line {
                from: hip,
                to: knee,
                class: class.into(),
                width,
            },
            Item::Group(shin),
        ],
        ..Node::default()
    }
}

/// Chainring and seat tube: the crank's centre, turning with the crank.
fn bike(rig: &Rig, center: Vec2, radius: f64, crank_track: usize) -> Item {
    let ring_r = quantize(radius * 0.45, LEN_DECIMALS);
    let seat = q_len(rig.legs[0].hip);
    Item::Group(Node {
        class: Some("rb-bike".into()),
        children: vec![
            Item::Line {
                from: seat,
                to: center,
                class: "rb-frame".into(),
                width: quantize((radius * 0.16).max(2.0), 1),
            },
            Item::Group(Node {
                class: Some("rb-chainring".into()),
                anim: Some(Anim::Rotate {
                    track: crank_track,
                    origin: center,
                    delay_s: 0.0,
                }),
                children: vec![Item::Circle {
                    center,
                    r: ring_r,
                    class: "rb-ring".into(),
                }],
                ..Node::default()
            }),
        ],
        ..Node::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::pair::BLOCK;
    use crate::fit::{Estimate, Problem};
    use crate::geom::{Affine, AffineExt, Vec2Ext};

    /// FK of the local tracks through nested groups (thigh about the drawn
    /// hip, shin about the drawn knee) reproduces the IK world pose, also for
    /// a leg that replays another leg's keys with a phase lead.
    #[test]
    fn world_to_local_round_trip_through_nested_groups() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let near = &motion.legs[0];
        let far = &motion.legs[1];
        let drawn = near.pose_at(0.0);
        let hip = near.leg().hip;
        for k in 0..=40 {
            let t = k as f64 / 40.0;
            for (lm, lead) in [(near, 0.0), (far, 0.5)] {
                let (lt, ls) = local_angles_rad(near, (t + lead) % 1.0);
                let thigh = Affine::rotate_around(lt, hip);
                let shin = thigh * Affine::rotate_around(ls, drawn.joint);
                let want = lm.pose_at(t);
                assert!(
                    thigh.apply(drawn.joint).dist(want.joint) < 1e-9,
                    "knee t={t}"
                );
                assert!(shin.apply(drawn.end).dist(want.end) < 1e-9, "ankle t={t}");
            }
        }
    }

    #[test]
    fn reuse_delay_is_the_phase_lead() {
        assert_eq!(reuse_delay_s(std::f64::consts::PI, 1.0, 1.2), -0.6);
        assert_eq!(reuse_delay_s(std::f64::consts::PI / 2.0, 1.0, 2.0), -0.5);
        // counter-clockwise: a lead of +90° is reached by going back 3/4 of a turn
        assert_eq!(reuse_delay_s(std::f64::consts::PI / 2.0, -1.0, 2.0), -1.5);
        assert_eq!(reuse_delay_s(0.0, 1.0, 2.0), 0.0);
    }

    /// The css estimate without shortcuts: every sample's keys evaluated
    /// and its error computed exactly; the max, its first time and blame.
    fn reference(p: &Pair, lm: &LegMotion, times: &[Vec<f64>]) -> Estimate {
        let keys = [p.keys(times, 0), p.keys(times, 1)];
        let (mut max, mut at) = (-1.0, 0);
        let pose0 = lm.pose_at(0.0);
        let (hip, knee0, ankle0) = (q_len(lm.leg().hip), q_len(pose0.joint), q_len(pose0.end));
        for (i, &t) in p.ts.iter().enumerate() {
            let a1 = fit::eval_keys(&keys[0], t).to_radians();
            let a2 = fit::eval_keys(&keys[1], t).to_radians();
            let e = p.error2(i, p.thigh_share(i, a1), a1, a2);
            // the drawn leg turned by the written angles, against the target
            let ankle = hip + (knee0 - hip).turned(a1) + (ankle0 - knee0).turned(a1 + a2);
            let want = ankle.dist(lm.pose_at(t).end);
            assert!(
                (e.sqrt() - want).abs() < 1e-9,
                "t {t}: {} vs {want}",
                e.sqrt()
            );
            if e > max {
                (max, at) = (e, i);
            }
        }
        let d = |set: usize| {
            (fit::eval_keys(&keys[set], p.ts[at]) - p.ideal[set][at])
                .to_radians()
                .abs()
        };
        let (arm1, arm2) = p.arms[at];
        Estimate {
            max_px: max.sqrt(),
            worst_t: p.ts[at],
            blame: if d(0) * arm1 >= d(1) * arm2 { 0 } else { 1 },
        }
    }

    /// The local angles kept for t = 0 and 1 are those solved there, and a
    /// fitted leg's keys read from the problem's memo are the keys written
    /// from `local_angles_rad` itself, for both segment shapes.
    #[test]
    fn kept_ends_and_memoised_keys_equal_the_solved_ones() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let bits = |a: (f64, f64)| (a.0.to_bits(), a.1.to_bits());
        for lm in &motion.legs {
            for fit in [Fit::Cubic, Fit::Linear] {
                let p = leg_pair(lm, fit);
                for t in [0.0, 1.0] {
                    assert_eq!(bits(p.local(t)), bits(local_angles_rad(lm, t)), "{t}");
                }
                let times = fit::refine(&p, DEFAULT_TOLERANCE_PX, MAX_FIT_KEYS);
                for set in 0..2 {
                    let f = |t: f64| {
                        let a = local_angles_rad(lm, t);
                        if set == 0 { a.0 } else { a.1 }.to_degrees()
                    };
                    let want = fit::keys_at(&times[set], &f, fit);
                    assert!(want.len() > 2, "{fit:?} {set}: {want:?}");
                    assert_eq!(p.keys(&times, set), want, "{fit:?} {set}");
                }
            }
        }
    }

    /// `uppers` gives every sample the bits `upper` gives it, for runs
    /// starting anywhere, written angles near and far from the ideal ones.
    #[test]
    fn uppers_equal_upper_at_every_sample() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        let p = leg_pair(&motion.legs[0], Fit::Cubic);
        let n = p.ts.len();
        for (k, off) in [0.0, 1e-4, 0.3, -2.0].into_iter().enumerate() {
            let thighs: Vec<f64> = (0..n)
                .map(|i| p.ideal[0][i] + off * (i % 7) as f64)
                .collect();
            let shins: Vec<f64> = (0..n)
                .map(|i| p.ideal[1][i] - off * (i % 5) as f64)
                .collect();
            for start in [0, 1, 31, 500 + k, n - BLOCK, n - 1] {
                let range = start..(start + BLOCK).min(n);
                let mut out = vec![f64::NAN; range.len()];
                p.uppers(&thighs, &shins, range.clone(), &mut out);
                for (i, &got) in range.zip(&out) {
                    let (a1, a2) = (thighs[i].to_radians(), shins[i].to_radians());
                    let want = p.upper(&p.turned[i], a1, a2);
                    assert_eq!(got.to_bits(), want.to_bits(), "{off} at {i}");
                }
            }
        }
    }

    /// The starting keys (extrema of each set's local angle, solved once
    /// per time for both sets) are those of `local_angles_rad` itself.
    #[test]
    fn initial_keys_are_the_extrema_of_the_local_angles() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let motion = crate::motion::sample(&rig);
        for lm in &motion.legs {
            let p = leg_pair(lm, Fit::Cubic);
            for set in [0, 1, 0] {
                let f = |t: f64| {
                    let a = local_angles_rad(lm, t);
                    if set == 0 { a.0 } else { a.1 }
                };
                let mut want = vec![0.0];
                want.extend(fit::extrema(&f));
                want.push(1.0);
                assert!(want.len() > 2, "set {set}: {want:?}");
                assert_eq!(p.initial(set), want, "set {set}");
            }
        }
    }

    /// The fitters' incremental estimate (only the samples a trial's changed
    /// keys reach, upper bounds where they cannot matter) equals a full
    /// evaluation by a fresh problem and, on the css route, an evaluation
    /// of every sample without shortcuts, over a long random walk of
    /// insertions, removals and shifts in either set, on both routes, also
    /// after bounded estimates that stopped part way; for a forward and a
    /// backward knee.
    #[test]
    fn incremental_estimates_equal_full_ones() {
        let backward = crate::rig::tests_support::SEED.replace("\"forward\"", "\"backward\"");
        assert_ne!(backward, crate::rig::tests_support::SEED);
        for text in [crate::rig::tests_support::SEED, &backward] {
            incremental_walk(&crate::rig::load(text).unwrap());
        }
    }

    fn incremental_walk(rig: &Rig) {
        let motion = crate::motion::sample(rig);
        let lm = &motion.legs[0];
        let mut rnd = crate::geom::unit_rng(0x2545_f491_4f6c_dd1du64);
        let css = leg_pair(lm, Fit::Cubic);
        let end = |t: f64| lm.pose_at(t).end;
        let smil = smil_leg(lm, &end);
        let mut times = vec![fit::uniform_times(4), fit::uniform_times(6)];
        for step in 0..300 {
            let set = (rnd() * 2.0) as usize;
            let v = &mut times[set];
            match (rnd() * 3.0) as usize {
                0 => {
                    fit::insert_sorted(v, rnd());
                }
                1 if v.len() > 3 => {
                    v.remove(1 + (rnd() * (v.len() - 2) as f64) as usize);
                }
                _ => {
                    let i = 1 + (rnd() * (v.len() - 2) as f64) as usize;
                    let t = quantize(v[i] + (rnd() - 0.5) * 0.02, crate::geom::T_DECIMALS);
                    if t - v[i - 1] >= fit::MIN_GAP && v[i + 1] - t >= fit::MIN_GAP {
                        v[i] = t;
                    }
                }
            }
            let want = leg_pair(lm, Fit::Cubic).estimate(&times);
            let full = reference(&css, lm, &times);
            assert_eq!(want, full, "css step {step}: {times:?}");
            if step % 2 == 0 {
                // a bounded estimate, cut short or not, then the full one
                let bound = want.max_px * (0.5 + rnd());
                let within = css.estimate_within(&times, bound);
                assert_eq!(within.is_some(), want.max_px <= bound, "step {step}");
                if let Some(e) = within {
                    assert_eq!(e, want, "css step {step}: {times:?}");
                }
            }
            css.check_stale();
            let got = css.estimate(&times);
            assert_eq!(got, want, "css step {step}: {times:?}");
            css.check_stale();
            // the same keys again: nothing re-evaluated, the bound still holds
            assert_eq!(css.estimate_within(&times, want.max_px), Some(want));
            assert_eq!(css.estimate_within(&times, want.max_px * 0.9), None);
            let one = [times[set].clone()];
            let got = smil.estimate(&one);
            let want = smil_leg(lm, &end).estimate(&one);
            assert_eq!(got, want, "smil step {step}: {one:?}");
        }
    }
}
