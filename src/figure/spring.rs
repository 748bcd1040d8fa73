//! Spring-follow bones (seed 000's head): a bone's drawn subtree follows
//! its FK joint through a damped spring, so it lags behind the motion and
//! overshoots when the motion turns.
//!
//! **Input.** A `springs` entry names a bone, a `stiffness` k (1/s²) and a
//! `damping` c (1/s), per unit mass: `a = k·(target − x) − c·v`.
//!
//! **Simulation.** The target is the bone's joint in world space (FK with
//! root motion, [`super::fk`]); [`crate::solve::physics::loop_spring`]
//! integrates it with the chains' fixed sub-step (at most
//! [`super::chain::MAX_DT_S`], independent of the key count), warmed up
//! until the seam settles, and records [`super::chain::FRAMES`] + 1
//! frames. The result is an **offset** `o(t) = spring(t) − target(t)`, in
//! world space, that moves the bone and everything below it (bones and the
//! anchors of chains). Offsets of nested springs add up.
//!
//! **Bake.** The bone's group is wrapped in two translate groups (x, then
//! y) inside its parent's group. A translate inside rotating (and, with a
//! root squash, scaling) groups is mapped by the parent's written linear
//! part `L_p(t)`, so the written value is `L_p(t)⁻¹ · o(t)`, with
//! `L_p(t) = S·R(Σ δ)` the root motion's linear part times the parent's
//! world rotation change since the drawn pose. Keys are uniform on recorded
//! frames, linear, the fewest among the divisors of
//! [`super::chain::FRAMES`] whose measured tip error (every bone of the
//! subtree against FK + offset) is within [`SPRING_BUDGET_PX`].

use super::chain::{FRAMES, SEAM_TOLERANCE_PX};
use super::fk;
use super::model::{FigClip, Figure};
use crate::clip::{Anim, Axis, Item, Key, Node, Track};
use crate::fit::Fit;
use crate::geom::{Affine, AffineExt, T_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::solve::physics::{
    LoopParams, Recording, SETTLE_PX, SETTLE_TAIL, loop_spring, once_spring,
};
use crate::valid::RigError;
use crate::valid::invalid;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Largest stiffness, 1/s² (semi-implicit Euler needs `dt·√k < 2`).
pub const MAX_STIFFNESS: f64 = 1.0e5;
/// Largest damping, 1/s.
pub const MAX_DAMPING: f64 = 1.0e4;
/// Tip error allowed to a spring's translate keys, px (measured on the
/// written clip, rotation fits included).
pub const SPRING_BUDGET_PX: f64 = 0.05;
/// Warm-up cap, periods.
pub const SPRING_WARMUP: usize = 2000;
/// Most springs × bones × clips in one rig: fitting a spring's keys
/// measures its subtree against FK with every spring above, in every clip,
/// so the cost grows as the square of springs × bones (1 spring on 250
/// bones, or 8 on 40, about a second; 8 on 250 took a minute) and with the
/// clips (2 springs on a 200-bone chain took 3 s in one clip, 138 s in 16).
/// Where no key count keeps a spring's subtree within its budget (its
/// bones' own keys already miss it: a long chain of short bones), every
/// count of both shapes is bounded from below at every eighth sample time
/// and measured in full only where the choice needs it: at the limit, in
/// one clip, 2 springs on a chain of 200 two-pixel bones take 4 s in a
/// release build on two cores, 4 on 100, 8 on 50 or 16 on 25 two to three
/// (11 s and six to seven with every count measured in full; 2 on 100 took
/// 139 s before each time's ideal tips were found once for all the counts
/// and each ancestor's matrix once for all the subtree's tips, 1 s now).
pub const MAX_SPRING_WORK: usize = 400;

/// One entry of `springs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpringFile {
    /// The bone whose subtree follows its joint through the spring. The
    /// bone's own segment moves with it, so its joint leaves its parent's
    /// tip while the spring lags: spring a bone drawn from its parent's
    /// tip (a head, a zero-length neck) rather than one whose segment
    /// should stay joined.
    pub bone: String,
    /// k, 1/s², in (0, 100000] (seed 000: 260).
    pub stiffness: f64,
    /// c, 1/s, in (0, 10000] (seed 000: 26).
    pub damping: f64,
}

/// A validated, simulated spring.
#[derive(Debug, Clone, PartialEq)]
pub struct Spring {
    /// Index of the bone.
    pub bone: usize,
    pub stiffness: f64,
    pub damping: f64,
    /// The spring point (one per frame) over one period.
    pub recording: Recording,
    /// `spring − target` per recorded frame, world space.
    pub offsets: Vec<Vec2>,
}

impl Spring {
    /// The offset at normalised time u ∈ [0, 1], recorded frames
    /// interpolated linearly.
    pub fn offset_at(&self, u: f64) -> Vec2 {
        let f = &self.offsets;
        let x = u.clamp(0.0, 1.0) * (f.len() - 1) as f64;
        let i = (x.floor() as usize).min(f.len() - 2);
        let s = x - i as f64;
        f[i] + (f[i + 1] - f[i]) * s
    }

    /// Largest `|spring − target|` over the loop, px.
    pub fn max_lag_px(&self) -> f64 {
        self.offsets.iter().map(|o| o.len()).fold(0.0, f64::max)
    }
}

/// Whether bone `b` is `a` or below it.
pub fn in_subtree(fig: &Figure, a: usize, b: usize) -> bool {
    let mut x = Some(b);
    while let Some(i) = x {
        if i == a {
            return true;
        }
        x = fig.bones[i].parent;
    }
    false
}

/// The summed offset of every spring at or above bone `b`, world space.
pub fn offset(fig: &Figure, b: usize, u: f64) -> Vec2 {
    fig.springs
        .iter()
        .filter(|s| in_subtree(fig, s.bone, b))
        .fold(Vec2::ZERO, |acc, s| acc + s.offset_at(u))
}

/// Validate `springs` against a validated figure and simulate each in
/// every clip: into a seamless loop for a looping clip, once from rest for
/// a one-shot clip (which must have settled by its end, see
/// [`crate::solve::physics::SETTLE_PX`]). One list per clip, in clip order.
pub fn validate(
    files: &[SpringFile],
    fig: &Figure,
    budget: &mut crate::solve::physics::Budget,
) -> Result<Vec<Vec<Spring>>, RigError> {
    if files.is_empty() {
        return Ok(vec![Vec::new(); fig.clips.len()]);
    }
    let clips = fig.clips.len();
    let work = files.len() * fig.bones.len() * clips;
    if work > MAX_SPRING_WORK {
        let (per_clip, fewer) = if clips > 1 {
            (
                format!(" × {clips} clips"),
                "springs, bones or clips (or bake one clip with --clip NAME)",
            )
        } else {
            (String::new(), "springs or bones")
        };
        return Err(invalid(
            "springs",
            format!(
                "{} springs × {} bones{per_clip} = {work} is more than the {MAX_SPRING_WORK} a bake fits in a few seconds; use fewer {fewer}",
                files.len(),
                fig.bones.len(),
            ),
        ));
    }
    let mut per_clip = Vec::with_capacity(fig.clips.len());
    for clip in &fig.clips {
        let springs = validate_clip(files, fig, clip, budget).map_err(|e| {
            if fig.clips.len() > 1 {
                crate::valid::in_clip(e, &clip.name, clip.period_s)
            } else {
                e
            }
        })?;
        per_clip.push(springs);
    }
    Ok(per_clip)
}

fn validate_clip(
    files: &[SpringFile],
    fig: &Figure,
    clip: &FigClip,
    budget: &mut crate::solve::physics::Budget,
) -> Result<Vec<Spring>, RigError> {
    let once = clip.play == super::file::Play::Once;
    let mut out: Vec<Spring> = Vec::with_capacity(files.len());
    for (i, sf) in files.iter().enumerate() {
        let p = format!("springs[{i}]");
        let Some(bone) = fig.bones.iter().position(|b| b.name == sf.bone) else {
            return Err(invalid(
                format!("{p}.bone"),
                format!("no bone is named {:?}", sf.bone),
            ));
        };
        // IK is solved on the FK skeleton; a spring offset above an IK
        // bone would carry its effector off the target.
        if let Some(k) = fig
            .ik
            .iter()
            .find(|k| in_subtree(fig, bone, k.upper) || in_subtree(fig, bone, k.lower))
        {
            return Err(invalid(
                format!("{p}.bone"),
                format!(
                    "{:?} carries the ik bones {:?}/{:?}, whose effector would leave its target; put the spring on a bone outside the IK limbs (e.g. the head)",
                    sf.bone, fig.bones[k.upper].name, fig.bones[k.lower].name
                ),
            ));
        }
        if out.iter().any(|s| s.bone == bone) {
            return Err(invalid(
                format!("{p}.bone"),
                format!("{:?} already has a spring", sf.bone),
            ));
        }
        let range = |name: &str, v: f64, max: f64| {
            if v.is_finite() && v > 0.0 && v <= max {
                Ok(v)
            } else {
                Err(invalid(
                    format!("{p}.{name}"),
                    format!(
                        "must be > 0 and at most {}, got {}",
                        crate::valid::shown(max),
                        crate::valid::shown(v)
                    ),
                ))
            }
        };
        let stiffness = range("stiffness", sf.stiffness, MAX_STIFFNESS)?;
        let damping = range("damping", sf.damping, MAX_DAMPING)?;
        let period_s = clip.period_s;
        // the target is FK of every bone (and the springs above) per sub-step
        let per_step = (1 + fig.bones.len() + out.len()) as u64;
        let why = format!("(1 spring + {} for its target's FK)", per_step - 1);
        let steps = super::chain::substeps(period_s);
        let max_periods = super::chain::budget_warmup(
            &p,
            period_s,
            steps,
            per_step,
            &why,
            SPRING_WARMUP,
            budget,
        )?;
        let lp = LoopParams {
            period_s,
            substeps: steps,
            frames: FRAMES,
            seam_eps_px: 1e-5,
            max_periods,
        };
        let target = |t: f64| joint_at(fig, clip, bone, t);
        let recording = if once {
            once_spring(stiffness, damping, &lp, &target)
        } else {
            loop_spring(stiffness, damping, &lp, &target)
        };
        budget.spend(recording.warmup_periods + 1, lp.substeps as u64 * per_step);
        if once && (recording.seam_error_px.is_nan() || recording.seam_error_px > SETTLE_PX) {
            return Err(invalid(
                p,
                format!(
                    "has not settled when the one-shot clip {:?} ends: it still moves {:.3} px over the last {} % (at most {SETTLE_PX} px); end the clip on a longer hold, or raise `damping`",
                    clip.name,
                    recording.seam_error_px,
                    SETTLE_TAIL * 100.0
                ),
            ));
        }
        if !once
            && (recording.seam_error_px.is_nan() || recording.seam_error_px > SEAM_TOLERANCE_PX)
        {
            return Err(invalid(
                p,
                format!(
                    "the simulated loop does not close: seam error {:.3} px > {SEAM_TOLERANCE_PX} px after {} warm-up periods{}; raise `damping`",
                    recording.seam_error_px,
                    recording.warmup_periods,
                    if max_periods < SPRING_WARMUP && !recording.converged {
                        " (the rig's simulation budget allows no more)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        let offsets = recording
            .frames
            .iter()
            .enumerate()
            .map(|(k, f)| f[0] - target(k as f64 / FRAMES as f64))
            .collect();
        out.push(Spring {
            bone,
            stiffness,
            damping,
            recording,
            offsets,
        });
    }
    Ok(out)
}

/// Bone b's joint in world space at normalised time t (FK and root motion).
pub fn joint_at(fig: &Figure, clip: &FigClip, b: usize, t: f64) -> Vec2 {
    (fk::root_matrix(&clip.root, t) * bone_matrix(fig, clip, b, t)).apply(Vec2::ZERO)
}

/// Bone b's FK matrix `M_b` at normalised time t: entry b of
/// [`fk::world_matrices`] of [`fk::local_angles`], bit for bit.
///
/// `M_b` is the product, root first, of `translate(at) · rotate(θ)` of b
/// and its ancestors, and an ancestor's θ is its driver's value unless it
/// is an `ik` bone (solved from the whole skeleton). So when no bone from
/// the root down to b is an `ik` bone, only those bones' drivers are
/// evaluated and multiplied, in the same order; otherwise the whole
/// figure is solved. (A spring's target or a chain's anchor is evaluated
/// at every sub-step of the simulation: on a head above IK legs, this
/// leaves the legs' IK out.)
pub fn bone_matrix(fig: &Figure, clip: &FigClip, b: usize, t: f64) -> Affine {
    if path_has_ik(fig, b) {
        return fk::world_matrices(fig, &fk::local_angles(fig, clip, t), t)[b];
    }
    path_matrix(fig, clip, b, t)
}

/// Whether any bone of `only` has an `ik` bone (upper or lower) at or
/// above it ([`path_has_ik`] of each): one pass over the bones, parents
/// first, instead of a walk up the tree per bone.
pub(crate) fn any_path_has_ik(fig: &Figure, only: &[usize]) -> bool {
    if fig.ik.is_empty() {
        return false;
    }
    let mut ik = vec![false; fig.bones.len()];
    for k in &fig.ik {
        ik[k.upper] = true;
        ik[k.lower] = true;
    }
    for b in 0..fig.bones.len() {
        if let Some(p) = fig.bones[b].parent {
            ik[b] |= ik[p];
        }
    }
    only.iter().any(|&b| ik[b])
}

/// Whether b or one of its ancestors is an `ik` bone (upper or lower).
pub(crate) fn path_has_ik(fig: &Figure, b: usize) -> bool {
    let mut x = Some(b);
    while let Some(i) = x {
        if fig.ik.iter().any(|k| k.upper == i || k.lower == i) {
            return true;
        }
        x = fig.bones[i].parent;
    }
    false
}

/// `M_b` from the drivers of b and its ancestors, composed as
/// [`fk::world_matrices`] composes them (parent's matrix times the bone's
/// local one).
fn path_matrix(fig: &Figure, clip: &FigClip, b: usize, t: f64) -> Affine {
    let local = local_matrix(fig, clip, b, t);
    match fig.bones[b].parent {
        Some(p) => path_matrix(fig, clip, p, t) * local,
        None => local,
    }
}

/// Bone b's own `translate(at) · rotate(θ)` at normalised time t, θ its
/// driver's value.
fn local_matrix(fig: &Figure, clip: &FigClip, b: usize, t: f64) -> Affine {
    Affine::translate(fig.bones[b].joint_at(t)) * Affine::rotate(clip.drivers[b].eval(t))
}

/// [`path_matrix`] of each bone of `bones` (none of them an `ik` bone or
/// below one) at normalised time t, bit for bit, each ancestor's matrix
/// composed once for all of them: entry b is set for every bone of
/// `bones` and their ancestors. (Bone by bone, the tips of a subtree deep
/// in a long chain composed the whole path from the root for each.)
pub(crate) fn path_matrices(
    fig: &Figure,
    clip: &FigClip,
    bones: &[usize],
    t: f64,
) -> Vec<Option<Affine>> {
    let mut m: Vec<Option<Affine>> = vec![None; fig.bones.len()];
    let mut path = Vec::new();
    for &b in bones {
        // b and its ancestors up to the first one already composed
        let mut x = Some(b);
        while let Some(i) = x.filter(|&i| m[i].is_none()) {
            path.push(i);
            x = fig.bones[i].parent;
        }
        let mut above = x.and_then(|i| m[i]);
        for &i in path.iter().rev() {
            let local = local_matrix(fig, clip, i, t);
            let mi = match above {
                Some(p) => p * local,
                None => local,
            };
            m[i] = Some(mi);
            above = Some(mi);
        }
        path.clear();
    }
    m
}

/// The linear part of the written transform of bone b's *parent* group at
/// normalised time t: root motion times the parent's world rotation change
/// since the drawn (rest) pose; root motion alone for a root bone.
fn parent_linear(fig: &Figure, clip: &FigClip, b: usize, t: f64) -> Affine {
    let mut m = fk::root_matrix(&clip.root, t);
    if let Some(p) = fig.bones[b].parent {
        let now = fk::world_matrices(fig, &fk::local_angles(fig, clip, t), t);
        let rest = fk::world_matrices(fig, &fig.rest_rad, 0.0);
        let turn = now[p].angle_rad() - rest[p].angle_rad();
        m *= Affine::rotate(turn);
    }
    m.with_translation(Vec2::ZERO)
}

/// `L⁻¹ · v` for a linear map L (no translation; scales > 0 by validation).
fn solve(l: &Affine, v: Vec2) -> Vec2 {
    l.checked_inverse()
        .expect("validation keeps bone-frame scales > 0")
        .apply(v)
}

/// The written (parent-frame) offset of spring `s` at recorded frame k.
pub fn local_offset(fig: &Figure, clip: &FigClip, s: &Spring, k: usize) -> Vec2 {
    let t = k as f64 / FRAMES as f64;
    solve(&parent_linear(fig, clip, s.bone, t), s.offsets[k])
}

/// A spring's [`local_offset`] at each recorded frame, each found once,
/// when first read: the key counts tried read many of the same frames (a
/// count's keys fall on the frames of every count dividing it, and each
/// key reads its neighbours too), and each offset takes a solve of the
/// figure.
pub struct LocalOffsets<'a> {
    fig: &'a Figure,
    clip: &'a FigClip,
    s: &'a Spring,
    found: Vec<std::sync::OnceLock<Vec2>>,
}

impl<'a> LocalOffsets<'a> {
    /// Spring `s` of `fig` in `clip`, no frame read yet.
    pub fn new(fig: &'a Figure, clip: &'a FigClip, s: &'a Spring) -> Self {
        LocalOffsets {
            fig,
            clip,
            s,
            found: (0..=FRAMES).map(|_| std::sync::OnceLock::new()).collect(),
        }
    }

    /// The local offset at recorded frame k.
    pub fn at(&self, k: usize) -> Vec2 {
        *self.found[k].get_or_init(|| local_offset(self.fig, self.clip, self.s, k))
    }
}

/// Translate keys (x and y tracks) of spring `s` (its `offsets`) with `n`
/// uniform keys (n divides [`FRAMES`]), rounded as written. `Fit::Cubic`
/// (css) makes each segment the Hermite cubic through the key values with
/// one-sided slopes from the neighbouring recorded frames (exact
/// `cubic-bezier(1/3, y1, 2/3, y2)` timing functions); `Fit::Linear` (smil,
/// whose keySplines cannot leave [0, 1]) draws straight segments.
pub fn keys(offsets: &LocalOffsets, n: usize, fit: Fit) -> [Vec<Key>; 2] {
    let s = offsets.s;
    let step = FRAMES / n;
    let at = |k: usize| offsets.at(k);
    let times: Vec<f64> = (0..=n)
        .map(|k| quantize(k as f64 / n as f64, T_DECIMALS))
        .collect();
    // one-sided slopes: the offset has corners where the driven joint's
    // velocity jumps (a bob's touch-down), and a key on one keeps both sides
    let pts: Vec<(Vec2, Vec2, Vec2)> = (0..=n)
        .map(|k| {
            let f = k * step;
            let here = at(f);
            let per = FRAMES as f64;
            if s.recording.once {
                // a one-shot clip: one-sided at its ends
                let next = if f == FRAMES { here } else { at(f + 1) };
                let prev = if f == 0 { here } else { at(f - 1) };
                let din = if f == 0 { next - here } else { here - prev };
                let dout = if f == FRAMES {
                    here - prev
                } else {
                    next - here
                };
                return (here, din * per, dout * per);
            }
            // the loop is closed (seam ≤ tolerance): wrap the neighbours
            let next = at(if f == FRAMES { 1 } else { f + 1 });
            let prev = at(if f == 0 { FRAMES - 1 } else { f - 1 });
            (here, (here - prev) * per, (next - here) * per)
        })
        .collect();
    let axis = |f: &dyn Fn(Vec2) -> f64| -> Vec<Key> {
        let samples: Vec<(f64, f64, f64)> = pts
            .iter()
            .map(|&(v, din, dout)| (f(v), f(din), f(dout)))
            .collect();
        crate::fit::keys_from_sided(&times, &samples, fit, offsets.fig.len_decimals)
    };
    [axis(&|v| v.x), axis(&|v| v.y)]
}

/// Wrap the group of class `class` (anywhere below `node`) with `wrap`;
/// whether it was found.
fn wrap_group(node: &mut Node, class: &str, wrap: &mut dyn FnMut(Node) -> Node) -> bool {
    for item in &mut node.children {
        if let Item::Group(g) = item {
            if g.class.as_deref() == Some(class) {
                let inner = std::mem::take(g);
                *g = wrap(inner);
                return true;
            }
            if wrap_group(g, class, wrap) {
                return true;
            }
        }
    }
    false
}

/// Put spring `s`'s translate groups (x outside y) around its bone's group
/// in `clip` with the given keys (the tracks are appended to the clip's).
pub fn apply(clip: &mut crate::clip::Clip, fig: &Figure, s: &Spring, keys: [Vec<Key>; 2]) {
    let bone = &fig.bones[s.bone].name;
    let clip_name = clip.figure.as_ref().map_or_else(
        || super::model::DEFAULT_CLIP.to_string(),
        |f| f.clip.clone(),
    );
    let [kx, ky] = keys;
    let base = clip.tracks.len();
    clip.tracks.push(Track {
        name: format!("rb-{clip_name}-{bone}-spring-x"),
        keys: kx,
    });
    clip.tracks.push(Track {
        name: format!("rb-{clip_name}-{bone}-spring-y"),
        keys: ky,
    });
    let mut wrap = |inner: Node| Node {
        class: Some(format!("rb-spring-{bone}-x")),
        translate: Vec2::ZERO,
        anim: Some(Anim::Translate {
            track: base,
            axis: Axis::X,
            delay_s: 0.0,
        }),
        children: vec![Item::Group(Node {
            class: Some(format!("rb-spring-{bone}-y")),
            translate: Vec2::ZERO,
            anim: Some(Anim::Translate {
                track: base + 1,
                axis: Axis::Y,
                delay_s: 0.0,
            }),
            children: vec![Item::Group(inner)],
        })],
    };
    let found = wrap_group(&mut clip.root, &format!("rb-b-{bone}"), &mut wrap);
    debug_assert!(found, "every bone has a group");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::file::{BoneFile, RootFile};

    /// A torso swaying ±25° on a bobbing root, a neck and a head on top:
    /// the head's parent frame rotates, so its translate must be un-rotated.
    fn figure(springs: &str) -> Figure {
        let bones: Vec<BoneFile> = serde_json::from_str(
            r#"[{ "name": "torso", "at": [100, 150], "length": 60,
                  "angle": { "sine": { "amp_deg": 25, "harmonic": 1, "offset_deg": -90 } } },
                { "name": "neck", "parent": "torso", "length": 12,
                  "angle": { "sine": { "amp_deg": 10, "harmonic": 2 } } },
                { "name": "head", "parent": "neck", "length": 20, "angle": { "const_deg": 0 } }]"#,
        )
        .unwrap();
        let root: RootFile =
            serde_json::from_str(r#"{ "y": { "keys": [[0, 0], [0.5, 10], [1, 0]] } }"#).unwrap();
        let mut fig =
            super::super::model::validate(&bones, Some(&root), Default::default(), &[], &[], 0.8)
                .unwrap();
        let files: Vec<SpringFile> = serde_json::from_str(springs).unwrap();
        fig.springs = validate(&files, &fig, &mut Default::default())
            .unwrap()
            .remove(0);
        fig
    }

    const HEAD: &str = r#"[{ "bone": "neck", "stiffness": 260, "damping": 26 }]"#;

    #[test]
    fn written_tips_follow_the_simulated_spring_on_both_routes() {
        let fig = figure(HEAD);
        let s = &fig.springs[0];
        assert!(s.recording.converged && s.recording.seam_error_px <= SEAM_TOLERANCE_PX);
        // the spring lags: a visible offset, not a rigid follow
        assert!(s.max_lag_px() > 1.0, "lag {}", s.max_lag_px());
        for route in [crate::clip::Route::Css, crate::clip::Route::Smil] {
            let fb = super::super::bake_figure("t", [0.0, 0.0, 200.0, 200.0], &fig, route, None);
            let clip = &fb.clips[0];
            assert_eq!(fb.springs.len(), 1);
            assert!(fb.springs[0].max_tip_error_px <= SPRING_BUDGET_PX);
            // independently: on every recorded frame the written neck and
            // head tips are FK + the simulated offset
            for k in (0..=FRAMES).step_by(7) {
                let u = k as f64 / FRAMES as f64;
                let got = crate::measure::probes_at(clip, u * clip.period_s);
                let fk = fk::tips(&fig, &fig.clips[0], u);
                for (b, name) in [(1, "neck-tip"), (2, "head-tip")] {
                    let want = fk[b] + s.offsets[k];
                    let e = got[name].dist(want);
                    assert!(e <= SEAM_TOLERANCE_PX, "{route:?} {name} frame {k}: {e}");
                }
                // the torso does not move with the spring
                assert!(got["torso-tip"].dist(fk[0]) < 0.05);
            }
        }
    }

    /// A spring on a root bone under a root squash (a non-uniform scale):
    /// the written translate is un-scaled, and the written tips are FK +
    /// the simulated offset.
    #[test]
    fn a_root_spring_under_squash_is_unscaled() {
        let bones: Vec<BoneFile> = serde_json::from_str(
            r#"[{ "name": "body", "at": [100, 150], "length": 40, "angle": { "const_deg": -90 } },
                { "name": "arm", "parent": "body", "length": 30,
                  "angle": { "sine": { "amp_deg": 30, "harmonic": 1, "offset_deg": 90 } } }]"#,
        )
        .unwrap();
        let root: RootFile = serde_json::from_str(
            r#"{ "x": { "keys": [[0, 0], [0.5, 30], [1, 0]], "ease": "smoothstep" },
                 "squash": { "sy": { "keys": [[0, 1], [0.25, 0.7], [0.5, 1]] }, "pivot": [100, 190] } }"#,
        )
        .unwrap();
        let mut fig =
            super::super::model::validate(&bones, Some(&root), Default::default(), &[], &[], 0.6)
                .unwrap();
        let files: Vec<SpringFile> =
            serde_json::from_str(r#"[{ "bone": "body", "stiffness": 200, "damping": 18 }]"#)
                .unwrap();
        fig.springs = validate(&files, &fig, &mut Default::default())
            .unwrap()
            .remove(0);
        let s = &fig.springs[0];
        assert!(s.max_lag_px() > 1.0, "lag {}", s.max_lag_px());
        for route in [crate::clip::Route::Css, crate::clip::Route::Smil] {
            let fb = super::super::bake_figure("t", [0.0, 0.0, 300.0, 300.0], &fig, route, None);
            let clip = &fb.clips[0];
            for k in (0..=FRAMES).step_by(11) {
                let u = k as f64 / FRAMES as f64;
                let got = crate::measure::probes_at(clip, u * clip.period_s);
                let fk = fk::tips(&fig, &fig.clips[0], u);
                for (b, name) in [(0, "body-tip"), (1, "arm-tip")] {
                    let e = got[name].dist(fk[b] + s.offsets[k]);
                    assert!(e <= SEAM_TOLERANCE_PX, "{route:?} {name} frame {k}: {e}");
                }
            }
        }
    }

    #[test]
    fn a_translate_in_a_rotating_frame_is_unrotated() {
        let fig = figure(HEAD);
        let s = &fig.springs[0];
        let clip = &fig.clips[0];
        // the written local offset, pushed through the parent's written
        // rotation, is the world offset; and it differs from the world
        // offset (the parent does rotate)
        let mut differs = false;
        for k in (0..FRAMES).step_by(37) {
            let t = k as f64 / FRAMES as f64;
            let local = local_offset(&fig, clip, s, k);
            let l = parent_linear(&fig, clip, s.bone, t);
            assert!(l.apply(local).dist(s.offsets[k]) < 1e-9);
            differs |= local.dist(s.offsets[k]) > 0.1;
        }
        assert!(differs);
    }

    #[test]
    fn halving_the_step_changes_the_spring_little() {
        let fig = figure("[]");
        let clip = &fig.clips[0];
        let target = |t: f64| joint_at(&fig, clip, 1, t);
        let run = |substeps: usize| {
            let lp = LoopParams {
                period_s: 0.8,
                substeps,
                frames: 80,
                seam_eps_px: 1e-6,
                max_periods: 500,
            };
            loop_spring(260.0, 26.0, &lp, &target)
        };
        let (a, b) = (run(2880), run(5760));
        let worst = a
            .frames
            .iter()
            .zip(b.frames.iter())
            .map(|(p, q)| p[0].dist(q[0]))
            .fold(0.0, f64::max);
        assert!(worst < 0.1, "moved {worst} px");
        assert_eq!(a, run(2880), "deterministic");
    }

    #[test]
    fn bad_springs_name_their_path() {
        let fig = figure("[]");
        let bad = |json: &str| {
            let files: Vec<SpringFile> = serde_json::from_str(json).unwrap();
            validate(&files, &fig, &mut Default::default())
                .unwrap_err()
                .to_string()
        };
        let e = bad(r#"[{ "bone": "tail", "stiffness": 260, "damping": 26 }]"#);
        assert!(e.contains("springs[0].bone"), "{e}");
        let e = bad(r#"[{ "bone": "neck", "stiffness": 0, "damping": 26 }]"#);
        assert!(e.contains("springs[0].stiffness"), "{e}");
        let e = bad(r#"[{ "bone": "neck", "stiffness": 260, "damping": 26 },
                { "bone": "neck", "stiffness": 100, "damping": 20 }]"#);
        assert!(e.contains("springs[1].bone"), "{e}");
    }
}
