//! Two-bone inverse kinematics by the law of cosines.
//!
//! Given a root (hip), a target (ankle), bone lengths `l1` (thigh) and `l2`
//! (shin): with `d = |target − root|` and `phi = atan2(target − root)`, the
//! angle at the root between the root→target line and the first bone is
//! `a = acos((l1² + d² − l2²) / (2·l1·d))`, and the first bone points along
//! `phi − a` ([`Knee::Forward`]) or `phi + a` ([`Knee::Backward`]). Angles are
//! radians, clockwise on screen (y down), like every angle in rigbake.
//!
//! Two clamps keep it free of NaN: `d` is clamped into `[|l1 − l2|, l1 + l2]`
//! (an out-of-reach target is then reached toward, not hit) and the cosine
//! into `[−1, 1]` (rounding can push it to 1.0000000001).

use crate::geom::{Vec2, Vec2Ext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which of the two IK solutions a leg takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Knee {
    /// Thigh at `phi − a`: the knee lies counter-clockwise (on screen) of the
    /// hip→ankle line. For a rider facing +x with the hip above the crank this
    /// puts the knee in front, toward the handlebars.
    #[default]
    Forward,
    /// Thigh at `phi + a`: the mirror solution, knee clockwise of hip→ankle.
    Backward,
}

/// A solved two-bone pose. Angles are world angles in radians.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TwoBonePose {
    /// Direction of root→joint (thigh), radians, in (−π, π].
    pub bone1_rad: f64,
    /// Direction of joint→end (shin), radians, in (−π, π].
    pub bone2_rad: f64,
    /// The middle joint (knee).
    pub joint: Vec2,
    /// Where the chain's end actually is: the target when reachable.
    pub end: Vec2,
}

/// Solve the two-bone chain `root —l1— joint —l2— end` toward `target`.
///
/// Exact (to rounding) when `|l1 − l2| ≤ d ≤ l1 + l2` and `d > 0`; otherwise
/// the end lands at the nearest reachable distance along root→target.
pub fn solve(root: Vec2, target: Vec2, l1: f64, l2: f64, knee: Knee) -> TwoBonePose {
    let r = Reached::of(root, target, l1, l2, knee);
    let phi = if r.d_raw > 0.0 { r.to.angle_rad() } else { 0.0 };
    let a = r.cos_a.acos();
    let bone1 = match knee {
        Knee::Forward => phi - a,
        Knee::Backward => phi + a,
    };
    let bone2 = (r.end - r.joint).angle_rad();
    TwoBonePose {
        bone1_rad: crate::geom::wrap_pi(bone1),
        bone2_rad: bone2,
        joint: r.joint,
        end: r.end,
    }
}

/// The middle joint and the end of [`solve`]'s pose, without its angles
/// (bit for bit its `joint` and `end`).
pub fn joint_and_end(root: Vec2, target: Vec2, l1: f64, l2: f64, knee: Knee) -> (Vec2, Vec2) {
    let r = Reached::of(root, target, l1, l2, knee);
    (r.joint, r.end)
}

/// What [`solve`] finds before its angles: the points, and what the
/// angles are made from.
struct Reached {
    to: Vec2,
    d_raw: f64,
    cos_a: f64,
    joint: Vec2,
    end: Vec2,
}

impl Reached {
    fn of(root: Vec2, target: Vec2, l1: f64, l2: f64, knee: Knee) -> Self {
        let to = target - root;
        let d_raw = to.len();
        let d = d_raw.clamp((l1 - l2).abs(), l1 + l2);
        let cos_a = if d > 0.0 {
            ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0)
        } else {
            1.0
        };
        // The root→target direction, and the upper bone's: that direction
        // turned by ∓a, from cos a and sin a = √((1 − cos a)(1 + cos a))
        // (each factor exact where it is small), not from the sine and
        // cosine of an angle.
        let along = if d_raw > 0.0 {
            to * (1.0 / d_raw)
        } else {
            Vec2::new(1.0, 0.0)
        };
        let sin_a = ((1.0 - cos_a) * (1.0 + cos_a)).sqrt();
        let turn = match knee {
            Knee::Forward => -sin_a,
            Knee::Backward => sin_a,
        };
        let upper = Vec2::new(
            along.x * cos_a - along.y * turn,
            along.x * turn + along.y * cos_a,
        );
        // The end sits on the root→target line at distance d.
        Reached {
            to,
            d_raw,
            cos_a,
            joint: root + upper * l1,
            end: root + along * d,
        }
    }
}

/// Which side of the reachable ring `|l1 − l2| ≤ d ≤ l1 + l2` a target at
/// distance `d` from the root lies: −1 inside it (too close), 0 on it, 1
/// outside it (too far). Where it changes along a motion, a clamped chain's
/// angles have a cusp: held straight (or folded) on one side, on the other
/// the joint turns as the square root of the time.
pub fn reach_side(d: f64, l1: f64, l2: f64) -> i8 {
    if d > l1 + l2 {
        1
    } else if d < (l1 - l2).abs() {
        -1
    } else {
        0
    }
}

/// How far, px, a clamped chain's target must leave its reach before its
/// cusps are keyed ([`clamp_switches`]): a target that only grazes the
/// edge bends the joint too little for keys there to pay.
pub const CUSP_LEAST_GAP_PX: f64 = 0.1;

/// Where a clamped chain's target, at distance `dist(t)` from the root,
/// leaves or re-enters the reachable ring ([`reach_side`], [`switches`] on a
/// grid of `n`): none unless it leaves the ring by more than
/// [`CUSP_LEAST_GAP_PX`] somewhere on the grid.
pub fn clamp_switches(n: usize, dist: impl Fn(f64) -> f64, l1: f64, l2: f64) -> Vec<f64> {
    let gap = |d: f64| (d - (l1 + l2)).max((l1 - l2).abs() - d);
    let far = (0..=n).any(|k| gap(dist(k as f64 / n as f64)) > CUSP_LEAST_GAP_PX);
    if !far {
        return Vec::new();
    }
    switches(n, |t| reach_side(dist(t), l1, l2))
}

/// Times in (0, 1] where `side(t)` changes, found on a grid of `n` steps
/// and bisected to the precision of a double: where a clamp or a pull
/// switches on or off along a loop (the corners a fit keys at).
pub fn switches(n: usize, side: impl Fn(f64) -> i8) -> Vec<f64> {
    let mut out = Vec::new();
    let mut prev = side(0.0);
    for k in 1..=n {
        let (a, b) = ((k - 1) as f64 / n as f64, k as f64 / n as f64);
        let now = side(b);
        if now != prev {
            let (mut lo, mut hi) = (a, b);
            for _ in 0..50 {
                let mid = 0.5 * (lo + hi);
                if side(mid) == prev {
                    lo = mid
                } else {
                    hi = mid
                }
            }
            out.push(0.5 * (lo + hi));
        }
        prev = now;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn cross(a: Vec2, b: Vec2) -> f64 {
        a.x * b.y - a.y * b.x
    }

    #[test]
    fn right_triangle_worked_example() {
        // 3-4-5 triangle: root (0,0), target (5,0), l1 = 3, l2 = 4.
        // cos a = (9 + 25 − 16) / 30 = 0.6, a = 53.13°; forward takes phi − a = −53.13°,
        // i.e. the knee above the line on screen (y down): (1.8, −2.4).
        let p = solve(Vec2::ZERO, Vec2::new(5.0, 0.0), 3.0, 4.0, Knee::Forward);
        assert!((p.joint.x - 1.8).abs() < 1e-12 && (p.joint.y + 2.4).abs() < 1e-12);
        let b = solve(Vec2::ZERO, Vec2::new(5.0, 0.0), 3.0, 4.0, Knee::Backward);
        assert!((b.joint.y - 2.4).abs() < 1e-12);
    }

    proptest! {
        #[test]
        fn reachable_targets_are_hit_with_exact_bones(
            rx in -500.0..500.0f64, ry in -500.0..500.0f64,
            l1 in 1.0..300.0f64, l2 in 1.0..300.0f64,
            frac in 0.0..=1.0f64, dir in -3.2..3.2f64, fwd in any::<bool>(),
        ) {
            let lo = (l1 - l2).abs().max(1e-3);
            let d = lo + (l1 + l2 - lo) * frac;
            let root = Vec2::new(rx, ry);
            let target = root + Vec2::from_angle(dir) * d;
            let knee = if fwd { Knee::Forward } else { Knee::Backward };
            let p = solve(root, target, l1, l2, knee);
            prop_assert!(p.end.dist(target) < 1e-9);
            prop_assert!((p.joint.dist(root) - l1).abs() < 1e-9);
            prop_assert!((p.end.dist(p.joint) - l2).abs() < 1e-9);
            // FK of the solved angles reproduces the end (FK(IK(target)) ≈ target).
            let fk = root + Vec2::from_angle(p.bone1_rad) * l1 + Vec2::from_angle(p.bone2_rad) * l2;
            prop_assert!(fk.dist(target) < 1e-9, "fk {:?} target {:?}", fk, target);
            // knee side: forward puts the knee counter-clockwise on screen of root→target,
            // i.e. cross(target − root, joint − root) ≤ 0 with y down.
            let c = cross(target - root, p.joint - root);
            let tol = 1e-9 * l1 * d;
            if fwd { prop_assert!(c <= tol) } else { prop_assert!(c >= -tol) }
        }

        /// The joint and the end are placed without the sine and cosine of
        /// an angle: for any target (within reach, past it, inside it, at
        /// the root), the joint still lies along the upper bone's angle at
        /// its length, and the end along root→target at the clamped
        /// distance, as the angles' sines and cosines place them; and
        /// [`joint_and_end`] finds the same two points, bit for bit.
        #[test]
        fn joint_and_end_lie_where_the_angles_point(
            tx in -700.0..700.0f64, ty in -700.0..700.0f64,
            l1 in 0.5..300.0f64, l2 in 0.5..300.0f64,
            at_root in 0..8u8, fwd in any::<bool>(),
        ) {
            let root = Vec2::new(37.0, -12.0);
            let target = if at_root == 0 { root } else { root + Vec2::new(tx, ty) };
            let knee = if fwd { Knee::Forward } else { Knee::Backward };
            let p = solve(root, target, l1, l2, knee);
            let scale = l1 + l2 + target.dist(root);
            let joint = root + Vec2::from_angle(p.bone1_rad) * l1;
            prop_assert!(p.joint.dist(joint) < 1e-12 * scale, "{:?} vs {:?}", p.joint, joint);
            let to = target - root;
            let phi = if to.len() > 0.0 { to.angle_rad() } else { 0.0 };
            let d = to.len().clamp((l1 - l2).abs(), l1 + l2);
            let end = root + Vec2::from_angle(phi) * d;
            prop_assert!(p.end.dist(end) < 1e-12 * scale, "{:?} vs {:?}", p.end, end);
            // and the points alone are the solve's, bit for bit
            let bits = |v: Vec2| (v.x.to_bits(), v.y.to_bits());
            let (j, e) = joint_and_end(root, target, l1, l2, knee);
            prop_assert_eq!((bits(j), bits(e)), (bits(p.joint), bits(p.end)));
        }

        #[test]
        fn never_nan_even_out_of_reach(
            tx in -1000.0..1000.0f64, ty in -1000.0..1000.0f64,
            l1 in 0.1..300.0f64, l2 in 0.1..300.0f64,
        ) {
            let p = solve(Vec2::ZERO, Vec2::new(tx, ty), l1, l2, Knee::Forward);
            prop_assert!(p.joint.is_finite() && p.end.is_finite());
            prop_assert!(p.bone1_rad.is_finite() && p.bone2_rad.is_finite());
        }
    }
}
