//! The ideal motion: what each leg should do over one period, before any keys.
//!
//! For leg `i` at normalised time `t ∈ [0, 1]` the pedal angle is
//! `θ(t) = start + phase_i ± 2π·t` (+ for `cw`, − for `ccw`), the target is
//! `center + radius·(cos θ, sin θ) + pedal_offset`, and the pose is the
//! two-bone IK solution toward it (see [`crate::solve::ik`]). Coordinates are
//! the leg's *own* side, before its `depth_offset` (which moves leg and target
//! together and so adds no error).
//!
//! World angles are made continuous ("unwrapped") along t by dense sampling:
//! [`LegMotion::angles_at`] returns the representative nearest the dense
//! curve, so a bone that turns past ±180° keeps counting instead of jumping.

use crate::geom::{Vec2, unwrap_near};
use crate::rig::{Leg, Rig};
use crate::solve::ik::{self, TwoBonePose};

/// Dense samples per period used to unwrap angle curves. A bone would have
/// to turn by more than half a turn within 1/4096 of a period to fool it.
pub const UNWRAP_SAMPLES: usize = 4096;

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
    /// Unwrapped thigh and shin world angles at t = k / UNWRAP_SAMPLES, k = 0..=N.
    dense: Vec<(f64, f64)>,
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
        legs: rig
            .legs
            .iter()
            .map(|leg| LegMotion::new(rig, leg))
            .collect(),
    }
}

impl LegMotion {
    fn new(rig: &Rig, leg: &Leg) -> Self {
        let mut m = LegMotion {
            leg: leg.clone(),
            center: rig.crank.center,
            radius: rig.crank.radius,
            theta0_rad: rig.crank.start_rad + leg.phase_rad,
            sign: rig.crank.sign(),
            dense: Vec::with_capacity(UNWRAP_SAMPLES + 1),
        };
        let mut prev: Option<(f64, f64)> = None;
        for k in 0..=UNWRAP_SAMPLES {
            let p = m.pose_at(k as f64 / UNWRAP_SAMPLES as f64);
            let a = match prev {
                None => (p.bone1_rad, p.bone2_rad),
                Some((t0, s0)) => (unwrap_near(p.bone1_rad, t0), unwrap_near(p.bone2_rad, s0)),
            };
            m.dense.push(a);
            prev = Some(a);
        }
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
        let p = self.pose_at(t);
        let x = (t.clamp(0.0, 1.0) * UNWRAP_SAMPLES as f64).round() as usize;
        let (t_ref, s_ref) = self.dense[x.min(UNWRAP_SAMPLES)];
        (
            unwrap_near(p.bone1_rad, t_ref),
            unwrap_near(p.bone2_rad, s_ref),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_periodic_and_on_the_circle() {
        let rig = crate::rig::load(crate::rig::tests_support::SEED).unwrap();
        let m = sample(&rig);
        for lm in &m.legs {
            assert!(lm.target_at(0.0).dist(lm.target_at(1.0)) < 1e-9);
            for k in 0..16 {
                let t = k as f64 / 16.0;
                let r = lm.target_at(t).dist(rig.crank.center + lm.leg.pedal_offset);
                assert!((r - rig.crank.radius).abs() < 1e-9);
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
}
