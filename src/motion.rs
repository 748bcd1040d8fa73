//! The ideal motion: what each leg should do over one period, before any keys.
//!
//! For leg `i` at normalised time `t ∈ [0, 1]` the pedal angle is
//! `θ(t) = start + phase_i ± 2π·t` (+ for `cw`, − for `ccw`), the target is
//! `center + radius·(cos θ, sin θ) + pedal_offset`, and the pose is the
//! two-bone IK solution toward it (see [`crate::solve::ik`]). Coordinates are
//! the leg's *own* side, before its `depth_offset` (which moves leg and target
//! together and so adds no error).
//!
//! World angles are made continuous ("unwrapped") along t by sampling
//! ([`Unwrapped`]): [`LegMotion::angles_at`] returns the representative
//! nearest the sampled curve, so a bone that turns past ±180° keeps counting
//! instead of jumping.

use crate::geom::{Rem1, Vec2, Vec2Ext};
pub use crate::geom::{UNWRAP_COARSE, UNWRAP_MAX_STEP, UNWRAP_SAMPLES, Unwrapped};
use crate::rig::{Crank, Leg, Rig};
use crate::solve::ik::{self, TwoBonePose};

/// One leg's ideal motion.
#[derive(Debug, Clone)]
pub struct LegMotion {
    leg: Leg,
    center: Vec2,
    radius: f64,
    /// θ(0) for this leg, radians.
    theta0_rad: f64,
    /// +1 cw, −1 ccw.
    sign: f64,
    /// Unwrapped thigh and shin world angles.
    unwrapped: Unwrapped,
}

/// The whole rig's ideal motion over one period.
#[derive(Debug, Clone)]
pub struct Motion {
    pub period_s: f64,
    pub legs: Vec<LegMotion>,
}

/// Sample the rig's ideal motion (pure; no error paths after validation).
pub fn sample(rig: &Rig) -> Motion {
    Motion {
        period_s: rig.period_s,
        // validation gives every rig with legs a crank
        legs: match &rig.crank {
            Some(crank) => rig
                .legs
                .iter()
                .map(|leg| LegMotion::new(crank, leg))
                .collect(),
            None => Vec::new(),
        },
    }
}

impl LegMotion {
    fn new(crank: &Crank, leg: &Leg) -> Self {
        let mut m = LegMotion {
            leg: leg.clone(),
            center: crank.center,
            radius: crank.radius,
            theta0_rad: crank.start_rad + leg.phase_rad,
            sign: crank.sign(),
            unwrapped: Unwrapped::default(),
        };
        m.unwrapped = Unwrapped::new(|t| {
            let p = m.pose_at(t);
            (p.bone1_rad, p.bone2_rad)
        });
        m
    }

    /// The leg this motion belongs to.
    pub fn leg(&self) -> &Leg {
        &self.leg
    }

    /// Pedal angle θ(t) in radians (clockwise on screen), t normalised.
    pub fn pedal_angle_rad(&self, t: f64) -> f64 {
        self.theta0_rad + self.sign * std::f64::consts::TAU * t
    }

    /// The ankle target at normalised time t (leg side coordinates).
    pub fn target_at(&self, t: f64) -> Vec2 {
        self.center
            + Vec2::from_angle(self.pedal_angle_rad(t)) * self.radius
            + self.leg.pedal_offset
    }

    /// Where a `"reach": "clamp"` leg's target leaves or re-enters its
    /// reach ([`ik::clamp_switches`]), as written key times: the cusps of
    /// its angles, which a fit keys at (none for a leg that must reach, or
    /// one that only grazes its reach).
    pub fn reach_corners(&self) -> Vec<f64> {
        if self.leg.reach != crate::rig::Reach::Clamp {
            return Vec::new();
        }
        let (l1, l2) = (self.leg.thigh, self.leg.shin);
        let mut v: Vec<f64> =
            ik::clamp_switches(2048, |t| self.target_at(t).dist(self.leg.hip), l1, l2)
                .into_iter()
                .map(|t| crate::geom::quantize(t.rem1(), crate::geom::T_DECIMALS))
                .collect();
        v.sort_by(f64::total_cmp);
        v.dedup();
        v
    }

    /// The IK pose at normalised time t; angles wrapped to (−π, π].
    pub fn pose_at(&self, t: f64) -> TwoBonePose {
        ik::solve(
            self.leg.hip,
            self.target_at(t),
            self.leg.thigh,
            self.leg.shin,
            self.leg.knee,
        )
    }

    /// Unwrapped (thigh, shin) world angles at normalised time t ∈ [0, 1], radians.
    /// Continuous in t; at t = 1 they differ from t = 0 by whole turns only.
    pub fn angles_at(&self, t: f64) -> (f64, f64) {
        self.angles_of(t, &self.pose_at(t))
    }

    /// [`LegMotion::angles_at`] from the pose at t, already solved.
    pub fn angles_of(&self, t: f64, pose: &TwoBonePose) -> (f64, f64) {
        self.unwrapped.at(t, (pose.bone1_rad, pose.bone2_rad))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geom::Vec2Ext;

    #[test]
    fn targets_are_periodic_and_on_the_circle() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let m = sample(&rig);
        for lm in &m.legs {
            assert!(lm.target_at(0.0).dist(lm.target_at(1.0)) < 1e-9);
            for k in 0..16 {
                let t = k as f64 / 16.0;
                let r = lm
                    .target_at(t)
                    .dist(Crank::of(&rig).center + lm.leg.pedal_offset);
                assert!((r - Crank::of(&rig).radius).abs() < 1e-9);
            }
        }
        // far pedal is half a turn ahead
        let far_t0 = m.legs[1].target_at(0.0);
        assert!(far_t0.dist(m.legs[0].target_at(0.5)) < 1e-9);
    }

    #[test]
    fn angles_are_continuous_and_return_after_a_period() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        for lm in sample(&rig).legs {
            let (a0, b0) = lm.angles_at(0.0);
            let (a1, b1) = lm.angles_at(1.0);
            assert!((a0 - a1).abs() < 1e-9 && (b0 - b1).abs() < 1e-9);
            let mut prev = lm.angles_at(0.0);
            for k in 1..=1000 {
                let cur = lm.angles_at(k as f64 / 1000.0);
                assert!((cur.0 - prev.0).abs() < 0.1 && (cur.1 - prev.1).abs() < 0.1);
                prev = cur;
            }
        }
    }

    /// The coarse table gives the same unwrapped angles as unwrapping on the
    /// 4,096-step grid, for legs over the whole reachable range of hip–crank
    /// distances (nearly straight to tightly folded), both knees and both
    /// directions; and a curve that turns fast between coarse samples falls
    /// back to the fine grid.
    #[test]
    fn coarse_unwrap_matches_the_dense_one_and_falls_back_when_fast() {
        let dense_ref = |lm: &LegMotion| {
            let mut prev: Option<(f64, f64)> = None;
            (0..=UNWRAP_SAMPLES)
                .map(|k| {
                    let p = lm.pose_at(k as f64 / UNWRAP_SAMPLES as f64);
                    let a = match prev {
                        None => (p.bone1_rad, p.bone2_rad),
                        Some((a, b)) => (
                            crate::geom::unwrap_near(p.bone1_rad, a),
                            crate::geom::unwrap_near(p.bone2_rad, b),
                        ),
                    };
                    prev = Some(a);
                    a
                })
                .collect::<Vec<_>>()
        };
        let mut checked = 0;
        for hip_y in [250.0, 280.0, 320.0, 340.0] {
            for (knee, dir) in [("forward", "cw"), ("backward", "ccw")] {
                let text = format!(
                    r#"{{ "name": "u", "view_box": [0, 0, 800, 600], "period_s": 1,
                      "crank": {{ "center": [420, 420], "radius": 50, "direction": "{dir}" }},
                      "legs": [ {{ "name": "n", "hip": [400, {hip_y}], "thigh": 128, "shin": 112,
                                   "knee": "{knee}", "reach": "clamp" }} ] }}"#
                );
                let rig = crate::rig::load(&text).unwrap();
                let lm = &sample(&rig).legs[0];
                let want = dense_ref(lm);
                for (k, &(a, b)) in want.iter().enumerate() {
                    let t = k as f64 / UNWRAP_SAMPLES as f64;
                    let got = lm.angles_at(t);
                    assert!(
                        (got.0 - a).abs() < 1e-9 && (got.1 - b).abs() < 1e-9,
                        "hip_y {hip_y} {knee} t {t}: {got:?} vs {a} {b}"
                    );
                    checked += 1;
                }
            }
        }
        assert_eq!(checked, 8 * (UNWRAP_SAMPLES + 1));
        // seven whole turns per period: 0.17 rad per coarse step is smooth,
        // 41 turns (1.0 rad per step) is not and takes the fine grid
        for (turns, n) in [(7.0, UNWRAP_COARSE), (41.0, UNWRAP_SAMPLES)] {
            let u = Unwrapped::new(|t: f64| {
                let a = (std::f64::consts::TAU * turns * t)
                    .sin()
                    .atan2((std::f64::consts::TAU * turns * t).cos());
                (a, -a)
            });
            assert_eq!(u.steps(), n, "{turns} turns");
            let end = u.near(1.0);
            assert!(
                (end.0 - std::f64::consts::TAU * turns).abs() < 1e-6,
                "{end:?}"
            );
        }
    }
}
