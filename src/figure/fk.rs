//! Forward kinematics of a bone tree (seed 002's matrix cascade).
//!
//! For bone b with parent p, joint offset `at_b` (in p's frame) and local
//! angle θ_b (radians, clockwise on screen):
//!
//! ```text
//! M_b = M_p · translate(at_b) · rotate(θ_b)        (a root: translate(at_b) · rotate(θ_b))
//! joint_b = M_b · (0, 0)      tip_b = M_b · (length_b, 0)
//! ```
//!
//! A root bone with a `move` takes `at_b + mv(t) − mv(0)` for `at_b`
//! ([`super::model::Bone::joint_at`]), so its subtree rides along.
//!
//! The whole figure is then moved by the clip's root motion:
//! `W_b = S · T · M_b` with `T = translate(x(t), y(t))` and
//! `S = translate(pivot) · scale(sx, sy) · translate(−pivot)`,
//! `sx = 1 + (1 − sy) · k` (seed 000: lift first, squash about the ground last).
//! `move` adds `mv(t) − mv(0)` to the lift `(x(t), y(t))`.
//!
//! **IK bones.** Bones are visited in order; at an `ik` entry's `upper`
//! bone its joint `J = M_parent · at` is known (a moving bone point). The
//! target, given in user space, is mapped into the figure's frame by
//! `(S · T)⁻¹` (so root motion and squash are undone), pulled back along
//! J→target to `upper + lower − 1.5` for `"reach": "pull"`, and solved by
//! the law of cosines ([`crate::solve::ik`]) for world angles `α, β`. The
//! local angles are `θ_upper = α − parent world angle` and
//! `θ_lower = β − α`; FK then continues with them, so the written lower tip
//! lands on the target wherever the parent moves.

use super::model::{FigClip, Figure, RootMotion};
use crate::chain::ChainReach;
use crate::geom::{Affine, AffineExt, Vec2, Vec2Ext};
use crate::solve::ik;

/// `scale(sx, sy)` about the origin.
pub fn scale(sx: f64, sy: f64) -> Affine {
    Affine::scale_non_uniform(sx, sy)
}

/// World matrices `M_b` from local angles (radians), in bone order, at
/// normalised time t (which moves root bones that have a `move`; 0 for the
/// drawn pose). Parents precede children (a validated figure guarantees it).
pub fn world_matrices(fig: &Figure, local_rad: &[f64], t: f64) -> Vec<Affine> {
    world_matrices_turned(fig, local_rad, &[], t)
}

/// [`world_matrices`], taking bone b's `rotate(θ_b)` from `turns[b]`
/// (an angle and the rotation built from it) when that angle is θ_b bit
/// for bit, so a rotation [`solve`] built is not built again.
fn world_matrices_turned(
    fig: &Figure,
    local_rad: &[f64],
    turns: &[(f64, Affine)],
    t: f64,
) -> Vec<Affine> {
    let mut out: Vec<Affine> = Vec::with_capacity(fig.bones.len());
    for (b, bone) in fig.bones.iter().enumerate() {
        let turn = match turns.get(b) {
            Some(&(a, r)) if a.to_bits() == local_rad[b].to_bits() => r,
            _ => Affine::rotate(local_rad[b]),
        };
        let local = Affine::translate(bone.joint_at(t)) * turn;
        let m = match bone.parent {
            Some(p) => out[p] * local,
            None => local,
        };
        out.push(m);
    }
    out
}

/// `move`'s offset `mv(t) − mv(0)` at normalised time t (zero without one).
pub fn move_offset(root: &RootMotion, t: f64) -> Vec2 {
    root.mv.as_ref().map_or(Vec2::ZERO, |m| m.at(t) - m.at(0.0))
}

/// The root-motion matrix `S · T` at normalised time t.
pub fn root_matrix(root: &RootMotion, t: f64) -> Affine {
    let x = root.x.as_ref().map_or(0.0, |tr| tr.eval(t));
    let y = root.y.as_ref().map_or(0.0, |tr| tr.eval(t));
    let lift = Affine::translate(Vec2::new(x, y) + move_offset(root, t));
    match &root.squash {
        None => lift,
        Some(s) => {
            let sy = s.sy.eval(t);
            let sx = 1.0 + (1.0 - sy) * s.k;
            Affine::translate(s.pivot) * scale(sx, sy) * Affine::translate(s.pivot * -1.0) * lift
        }
    }
}

/// What [`solve`] finds at normalised time t.
struct Solved {
    /// Local angles of every bone, radians.
    local: Vec<f64>,
    /// Per `ik` entry: its upper joint and its target (figure frame,
    /// before any pull).
    ends: Vec<(Vec2, Vec2)>,
    /// Per `ik` entry: its target as asked, user space.
    asked: Vec<Vec2>,
    /// Per `ik` entry: the knee and the effector the IK solve placed
    /// (figure frame).
    points: Vec<(Vec2, Vec2)>,
    /// Per bone (with `ik` entries): the angle its world matrix was built
    /// with and the rotation built from it.
    turns: Vec<(f64, Affine)>,
    /// The root-motion matrix ([`root_matrix`]), where the solve needed it
    /// (with `ik` entries).
    root: Option<Affine>,
}

fn solve(fig: &Figure, clip: &FigClip, t: f64) -> Solved {
    let mut local: Vec<f64> = clip.drivers.iter().map(|d| d.eval(t)).collect();
    if fig.ik.is_empty() {
        return Solved {
            local,
            ends: Vec::new(),
            asked: Vec::new(),
            points: Vec::new(),
            turns: Vec::new(),
            root: None,
        };
    }
    let root = root_matrix(&clip.root, t);
    let to_fig = root
        .checked_inverse()
        .expect("validation keeps root scales > 0");
    let mut world: Vec<Affine> = Vec::with_capacity(fig.bones.len());
    let mut ends = vec![(Vec2::ZERO, Vec2::ZERO); fig.ik.len()];
    let mut asked = vec![Vec2::ZERO; fig.ik.len()];
    let mut points = vec![(Vec2::ZERO, Vec2::ZERO); fig.ik.len()];
    let mut turns = Vec::with_capacity(fig.bones.len());
    for (b, bone) in fig.bones.iter().enumerate() {
        let parent = bone.parent.map_or(Affine::IDENTITY, |p| world[p]);
        if let Some(i) = fig.ik.iter().position(|k| k.upper == b) {
            let k = &fig.ik[i];
            let joint = parent.apply(bone.joint_at(t));
            asked[i] = clip.targets[i].at(t);
            let target = to_fig.apply(asked[i]);
            ends[i] = (joint, target);
            let goal = pulled(joint, target, k.pull_to(&fig.bones));
            let (l1, l2) = (bone.length, fig.bones[k.lower].length);
            let pose = ik::solve(joint, goal, l1, l2, k.knee);
            let parent_rad = parent.angle_rad();
            local[b] = pose.bone1_rad - parent_rad;
            local[k.lower] = pose.bone2_rad - pose.bone1_rad;
            points[i] = (pose.joint, pose.end);
        }
        let turn = Affine::rotate(local[b]);
        turns.push((local[b], turn));
        world.push(parent * Affine::translate(bone.joint_at(t)) * turn);
    }
    Solved {
        local,
        ends,
        asked,
        points,
        turns,
        root: Some(root),
    }
}

/// Whether [`entry_angles`] can solve `ik` entry `i` on its own: no
/// ancestor of its upper bone is an `ik` bone, and neither of its two
/// bones belongs to another entry (whose solve would set its angle).
pub fn solvable_alone(fig: &Figure, i: usize) -> bool {
    let k = &fig.ik[i];
    let in_ik = |b: usize| fig.ik.iter().any(|e| e.upper == b || e.lower == b);
    let in_other = |b: usize| {
        fig.ik
            .iter()
            .enumerate()
            .any(|(j, e)| j != i && (e.upper == b || e.lower == b))
    };
    let mut a = fig.bones[k.upper].parent;
    while let Some(x) = a {
        if in_ik(x) {
            return false;
        }
        a = fig.bones[x].parent;
    }
    !in_other(k.upper) && !in_other(k.lower)
}

/// `ik` entry `i`'s frame at normalised time t from the upper bone's
/// ancestors alone (`ancestors`, [`entry_ancestors`]): the parent's world
/// matrix, the upper joint and the map from user space into the figure's
/// frame, `(S · T)⁻¹`; bit for bit what the whole solve ([`local_angles`],
/// [`ik_joints_and_targets`]) gives them (the same operations on the same
/// values, parents' matrices composed as the whole solve composes them),
/// for an entry [`solvable_alone`] says this of.
fn entry_frame(
    fig: &Figure,
    clip: &FigClip,
    (i, ancestors): (usize, &[(usize, Option<Affine>)]),
    t: f64,
) -> (Affine, Vec2, Affine) {
    let k = &fig.ik[i];
    let mut parent = Affine::IDENTITY;
    for &(x, turn) in ancestors {
        let turn = turn.unwrap_or_else(|| Affine::rotate(clip.drivers[x].eval(t)));
        parent = parent * Affine::translate(fig.bones[x].joint_at(t)) * turn;
    }
    let root = root_matrix(&clip.root, t);
    let to_fig = root
        .checked_inverse()
        .expect("validation keeps root scales > 0");
    let joint = parent.apply(fig.bones[k.upper].joint_at(t));
    (parent, joint, to_fig)
}

/// The ancestors of `ik` entry `i`'s upper bone, root first, each with
/// its turn where its driver is a constant (the same matrix at every
/// time, made once).
fn entry_ancestors(fig: &Figure, clip: &FigClip, i: usize) -> Vec<(usize, Option<Affine>)> {
    let mut up: Vec<usize> =
        std::iter::successors(fig.bones[fig.ik[i].upper].parent, |&x| fig.bones[x].parent)
            .collect();
    up.reverse();
    up.into_iter()
        .map(|x| {
            let fixed = matches!(clip.drivers[x], super::model::Driver::Const(_));
            (x, fixed.then(|| Affine::rotate(clip.drivers[x].eval(0.0))))
        })
        .collect()
}

/// Whether `ik` entry `i`'s frame ([`entry_frame`]) is the same at every
/// time in `clip`: no root motion, and the upper bone and each of its
/// ancestors without a `move` and held by a constant driver.
fn entry_frame_still(fig: &Figure, clip: &FigClip, i: usize) -> bool {
    let r = &clip.root;
    let still_root = r.x.is_none() && r.y.is_none() && r.squash.is_none() && r.mv.is_none();
    let upper = fig.ik[i].upper;
    let still_bone = |b: usize| fig.bones[b].mv.is_none();
    let still_driver = |b: usize| matches!(clip.drivers[b], super::model::Driver::Const(_));
    still_root
        && still_bone(upper)
        && std::iter::successors(fig.bones[upper].parent, |&x| fig.bones[x].parent)
            .all(|x| still_bone(x) && still_driver(x))
}

/// `ik` entry `i` of `clip` made ready to be solved on its own at many
/// times ([`entry_angles`], [`entry_ends`]), for an entry
/// [`solvable_alone`] says this of: where its frame does not move (no
/// root motion, and the upper bone and its ancestors without a `move` and
/// held by constant drivers: a cyclist's hip, say) the frame is found once
/// (it depends on no time: the same bits at every one), else at each
/// time.
#[derive(Clone)]
pub struct EntrySolver<'a> {
    fig: &'a Figure,
    clip: &'a FigClip,
    i: usize,
    /// The frame and its parent's world angle (radians), when still.
    still: Option<((Affine, Vec2, Affine), f64)>,
    /// The upper bone's ancestors ([`entry_ancestors`]).
    ancestors: Vec<(usize, Option<Affine>)>,
    /// The parent's world angle (radians) where every ancestor's turn is
    /// a constant: moves and root motion only translate, so the parent's
    /// matrix turns the same at every time (its linear part is the
    /// product of the turns alone, the same bits at any time).
    parent_rad: Option<f64>,
}

impl<'a> EntrySolver<'a> {
    pub fn new(fig: &'a Figure, clip: &'a FigClip, i: usize) -> Self {
        let ancestors = entry_ancestors(fig, clip, i);
        let frame_at = |t: f64| entry_frame(fig, clip, (i, &ancestors), t);
        let still = entry_frame_still(fig, clip, i).then(|| {
            let frame = frame_at(0.0);
            (frame, frame.0.angle_rad())
        });
        let turns_fixed = ancestors.iter().all(|(_, turn)| turn.is_some());
        let parent_rad = turns_fixed.then(|| frame_at(0.0).0.angle_rad());
        EntrySolver {
            fig,
            clip,
            i,
            still,
            ancestors,
            parent_rad,
        }
    }

    /// Whether the entry's frame does not move, and is kept.
    pub fn is_still(&self) -> bool {
        self.still.is_some()
    }

    /// The frame at t, and the parent's world angle (radians) where kept
    /// (a still frame's, or a parent's that turns the same at every time).
    fn frame(&self, t: f64) -> ((Affine, Vec2, Affine), Option<f64>) {
        match self.still {
            Some((frame, rad)) => (frame, Some(rad)),
            None => {
                let frame = entry_frame(self.fig, self.clip, (self.i, &self.ancestors), t);
                (frame, self.parent_rad)
            }
        }
    }

    /// Where the entry's frame is still: the upper joint and the map from
    /// user space into the figure's frame, the same at every time (what
    /// [`Self::ends`] reads, bit for bit).
    pub fn still_ends_frame(&self) -> Option<(Vec2, Affine)> {
        let ((_, joint, to_fig), _) = self.still?;
        Some((joint, to_fig))
    }

    /// [`entry_ends`] at t.
    pub fn ends(&self, t: f64) -> (Vec2, Vec2) {
        let ((_, joint, to_fig), _) = self.frame(t);
        (joint, to_fig.apply(self.clip.targets[self.i].at(t)))
    }

    /// [`entry_angles`] at t.
    pub fn angles(&self, t: f64) -> (f64, f64) {
        self.solve(t).angles
    }

    /// The entry solved at t: its angles ([`entry_angles`]), its ends
    /// ([`entry_ends`]) and its target as asked (user space).
    fn solve(&self, t: f64) -> EntrySolved {
        let (fig, k) = (self.fig, &self.fig.ik[self.i]);
        let g = self.goal(t);
        let bone = &fig.bones[k.upper];
        let pose = ik::solve(
            g.joint,
            g.goal,
            bone.length,
            fig.bones[k.lower].length,
            k.knee,
        );
        let parent_rad = g.parent_rad.unwrap_or_else(|| g.parent.angle_rad());
        EntrySolved {
            angles: (pose.bone1_rad - parent_rad, pose.bone2_rad - pose.bone1_rad),
            ends: (g.joint, g.target),
            asked: g.asked,
            points: (pose.joint, pose.end),
        }
    }

    /// What the entry is solved toward at t.
    fn goal(&self, t: f64) -> EntryGoal {
        let k = &self.fig.ik[self.i];
        let ((parent, joint, to_fig), parent_rad) = self.frame(t);
        let asked = self.clip.targets[self.i].at(t);
        let target = to_fig.apply(asked);
        let goal = pulled(joint, target, k.pull_to(&self.fig.bones));
        EntryGoal {
            parent,
            parent_rad,
            joint,
            target,
            goal,
            asked,
        }
    }

    /// [`Self::solve`] without the angles (NaN): the same points, ends
    /// and target as asked, bit for bit ([`ik::joint_and_end`]).
    fn points(&self, t: f64) -> EntrySolved {
        let (fig, k) = (self.fig, &self.fig.ik[self.i]);
        let g = self.goal(t);
        let (l1, l2) = (fig.bones[k.upper].length, fig.bones[k.lower].length);
        EntrySolved {
            angles: (f64::NAN, f64::NAN),
            ends: (g.joint, g.target),
            asked: g.asked,
            points: ik::joint_and_end(g.joint, g.goal, l1, l2, k.knee),
        }
    }
}

/// What [`EntrySolver::goal`] finds at one time.
struct EntryGoal {
    /// The parent's world matrix.
    parent: Affine,
    /// The parent's world angle (radians), where kept.
    parent_rad: Option<f64>,
    /// The upper joint (figure frame).
    joint: Vec2,
    /// The target (figure frame, before any pull).
    target: Vec2,
    /// The point solved toward: the target, pulled.
    goal: Vec2,
    /// The target as asked (user space).
    asked: Vec2,
}

/// What [`EntrySolver::solve`] finds at one time.
struct EntrySolved {
    /// Local angles (upper, lower), radians.
    angles: (f64, f64),
    /// Upper joint and target in the figure's frame (before any pull).
    ends: (Vec2, Vec2),
    /// The target as asked, user space.
    asked: Vec2,
    /// The knee and the effector (figure frame).
    points: (Vec2, Vec2),
}

/// `ik` entry `i`'s upper joint and target in the figure's frame at
/// normalised time t (the target before any pull), from the upper bone's
/// ancestors alone: [`ik_joints_and_targets`]`[i]` bit for bit, for an
/// entry [`solvable_alone`] says this of.
pub fn entry_ends(fig: &Figure, clip: &FigClip, i: usize, t: f64) -> (Vec2, Vec2) {
    EntrySolver::new(fig, clip, i).ends(t)
}

/// `ik` entry `i`'s local angles (upper, lower) at normalised time t,
/// radians, from the upper bone's ancestors alone (the joint and target
/// [`entry_ends`] gives): bit for bit what [`local_angles`] gives them, for
/// an entry [`solvable_alone`] says this of.
pub fn entry_angles(fig: &Figure, clip: &FigClip, i: usize, t: f64) -> (f64, f64) {
    EntrySolver::new(fig, clip, i).angles(t)
}

/// Every `ik` entry of `clip` that [`solvable_alone`] admits made ready to
/// be solved on its own ([`EntrySolver`]); `None` for the others.
pub fn entry_solvers<'a>(fig: &'a Figure, clip: &'a FigClip) -> Vec<Option<EntrySolver<'a>>> {
    (0..fig.ik.len())
        .map(|i| solvable_alone(fig, i).then(|| EntrySolver::new(fig, clip, i)))
        .collect()
}

/// Local angles (radians) at normalised time t of the bones `want` marks,
/// bit for bit what [`local_angles`] gives them, solving only what they
/// need ([`WantedAngles`]). Bones not marked are NaN.
pub fn wanted_angles(fig: &Figure, clip: &FigClip, want: &[bool], t: f64) -> Vec<f64> {
    let bones: Vec<usize> = (0..fig.bones.len()).filter(|&b| want[b]).collect();
    let mut out = vec![f64::NAN; fig.bones.len()];
    WantedAngles::new(fig, clip).each(&bones, t, &mut Vec::new(), |k, v| out[bones[k]] = v);
    out
}

/// Local angles (radians) of chosen bones of one clip, for many times (the
/// reuse search's): bit for bit what [`local_angles`] gives them, solving
/// only what they need: a bone of no `ik` entry reads its driver, the
/// bones of an entry [`solvable_alone`] that entry on its own
/// ([`entry_angles`], once for both), any other `ik` bone the whole
/// figure (once). Nothing is allocated per time but a whole-figure solve.
pub struct WantedAngles<'a> {
    fig: &'a Figure,
    clip: &'a FigClip,
    /// The clip's [`entry_solvers`].
    solvers: Vec<Option<EntrySolver<'a>>>,
    /// Per bone: its `ik` entry, if any.
    entry: Vec<Option<usize>>,
}

impl<'a> WantedAngles<'a> {
    pub fn new(fig: &'a Figure, clip: &'a FigClip) -> Self {
        WantedAngles {
            fig,
            clip,
            solvers: entry_solvers(fig, clip),
            entry: (0..fig.bones.len())
                .map(|b| fig.ik.iter().position(|k| k.upper == b || k.lower == b))
                .collect(),
        }
    }

    /// `put(k, θ)` for the `k`th bone of `bones` (any order) at normalised
    /// time t; `solved` holds the entries solved alone at t, by index
    /// (cleared first: a buffer the caller keeps for many times).
    pub fn each(
        &self,
        bones: &[usize],
        t: f64,
        solved: &mut Vec<(usize, (f64, f64))>,
        mut put: impl FnMut(usize, f64),
    ) {
        solved.clear();
        let mut whole: Option<Vec<f64>> = None;
        for (k, &b) in bones.iter().enumerate() {
            let v = match self.entry[b] {
                None => self.clip.drivers[b].eval(t),
                Some(i) => match &self.solvers[i] {
                    Some(solver) => {
                        let (u, l) = match solved.iter().find(|e| e.0 == i) {
                            Some(&(_, ul)) => ul,
                            None => {
                                let ul = solver.angles(t);
                                solved.push((i, ul));
                                ul
                            }
                        };
                        if self.fig.ik[i].upper == b { u } else { l }
                    }
                    None => whole.get_or_insert_with(|| local_angles(self.fig, self.clip, t))[b],
                },
            };
            put(k, v);
        }
    }
}

/// Seed 000's pull: a target farther than `max` from the joint is moved
/// back along joint→target to distance `max`.
pub fn pulled(joint: Vec2, target: Vec2, max: Option<f64>) -> Vec2 {
    match max {
        Some(max) if target.dist(joint) > max => {
            joint + (target - joint) * (max / target.dist(joint))
        }
        _ => target,
    }
}

/// Local angles of every bone in a clip at normalised time t, radians:
/// the drivers, with `ik` bones solved (see the module docs).
pub fn local_angles(fig: &Figure, clip: &FigClip, t: f64) -> Vec<f64> {
    solve(fig, clip, t).local
}

/// Every `ik` entry's upper joint and target in the figure's frame at t
/// (the target before any pull), from one solve.
pub fn ik_joints_and_targets(fig: &Figure, clip: &FigClip, t: f64) -> Vec<(Vec2, Vec2)> {
    solve(fig, clip, t).ends
}

/// Where each `ik` entry's effector should be at t, user space: the target
/// (pulled back for `"pull"`, in the figure's frame), never the solver's
/// angles. `"clamp"` keeps the raw target, so the gap counts as error.
pub fn ik_ideal(fig: &Figure, clip: &FigClip, t: f64) -> Vec<Vec2> {
    pose(fig, clip, t).ik
}

/// The ideal pose of a clip at normalised time t, from one solve: what
/// [`tips`] and [`ik_ideal`] read, for callers that want both per sample.
#[derive(Debug, Clone)]
pub struct Pose {
    /// World matrices `M_b` without root motion ([`world_matrices`] of
    /// [`local_angles`]).
    pub world: Vec<Affine>,
    /// The root-motion matrix `S · T` ([`root_matrix`]).
    pub root: Affine,
    /// Per `ik` entry, its ideal effector ([`ik_ideal`]).
    pub ik: Vec<Vec2>,
    /// Per `ik` entry, its target as asked, user space (the trajectory at t).
    pub asked: Vec<Vec2>,
    /// Per `ik` entry, the knee and the effector the IK solve placed
    /// (figure frame, without root motion).
    pub points: Vec<(Vec2, Vec2)>,
}

impl Pose {
    /// Every bone's tip in user space ([`tips`]): an `ik` entry's two
    /// bones' the knee and effector its solve placed, the others' from
    /// their world matrices (the same points to rounding: the IK bones'
    /// matrices are built from angles taken from those points).
    pub fn tips(&self, fig: &Figure) -> Vec<Vec2> {
        let mut tips: Vec<Vec2> = (0..fig.bones.len())
            .map(|b| self.world_tip(fig, b))
            .collect();
        for (k, &(knee, end)) in fig.ik.iter().zip(&self.points) {
            (tips[k.upper], tips[k.lower]) = (self.root.apply(knee), self.root.apply(end));
        }
        tips
    }

    /// Bone `b`'s tip in user space from its world matrix.
    fn world_tip(&self, fig: &Figure, b: usize) -> Vec2 {
        (self.root * self.world[b]).apply(Vec2::new(fig.bones[b].length, 0.0))
    }
}

/// The [`Pose`] of `clip` at normalised time t.
pub fn pose(fig: &Figure, clip: &FigClip, t: f64) -> Pose {
    let s = solve(fig, clip, t);
    let root = s.root.unwrap_or_else(|| root_matrix(&clip.root, t));
    Pose {
        world: world_matrices_turned(fig, &s.local, &s.turns, t),
        ik: ideal_effectors(fig, root, &s.ends),
        root,
        asked: s.asked,
        points: s.points,
    }
}

/// [`pose`] at many times of one clip, into buffers kept from one time to
/// the next (no allocation per time once warm), building only
/// what a caller reads: the world matrices of the bones marked in `want`
/// and of their ancestors (and only their drivers read). A wanted bone
/// whose world matrix is the same at every time (a constant driver, no
/// `move`, in no `ik` entry, and its parent such a bone or none) has it
/// built once. Where every `ik` entry is [`solvable_alone`], the entries'
/// solvers ([`entry_solvers`]) give their bones' angles in place of their
/// drivers', and the world matrices are built as [`world_matrices`] builds
/// them: every value built is [`pose`]'s bit for bit (the same operations
/// on the same values; the whole solve builds the matrices twice, the
/// second time as here). The world matrices of the other bones are not
/// kept up to date. A clip whose `ik` entries are not all solvable alone
/// takes the whole [`pose`] at each time.
///
/// The tips of the bones a caller reads are made too ([`Self::tips`]), as
/// [`Pose::tips`] makes them (an `ik` entry's two bones' are the knee and
/// effector its solve placed). An entry solved on its own whose bones'
/// world matrices nothing reads (neither is asked for, no other bone read
/// hangs from them) is solved for those points alone
/// ([`ik::joint_and_end`]), without its angles and the two rotations made
/// of them: the measure reads only tips, and those are most of its ideal
/// pose's cost in a rig of IK legs.
pub struct PoseAt<'a> {
    fig: &'a Figure,
    clip: &'a FigClip,
    solvers: Vec<Option<EntrySolver<'a>>>,
    /// Whether every `ik` entry is solved on its own (else [`pose`]).
    alone: bool,
    /// Per bone: its world matrix is built at each time (wanted, and not
    /// the same at every time).
    moving: Vec<bool>,
    /// Per bone: its driver is read (moving and in no `ik` entry).
    driven: Vec<bool>,
    /// Local angles (radians) of the moving bones at the last time.
    local: Vec<f64>,
    /// Per `ik` entry at the last time: its upper joint and target in the
    /// figure's frame (before any pull).
    ends: Vec<(Vec2, Vec2)>,
    /// The pose at the last time (see above for its world matrices).
    pub pose: Pose,
    /// Per `ik` entry: solved for its bones' tips alone ([`Self::tips`]),
    /// its bones' world matrices not built.
    pointed: Vec<bool>,
    /// Per bone: its tip is read ([`Self::tips`]).
    tipped: Vec<bool>,
    /// Per bone: its tip is read and made from its world matrix (in no
    /// `ik` entry).
    tip_world: Vec<bool>,
    /// The tips (user space) of the bones whose tips are read, at the last
    /// time, [`Pose::tips`]' bit for bit.
    pub tips: Vec<Vec2>,
}

impl<'a> PoseAt<'a> {
    /// Ready to pose `clip` of `fig` for the tips of the bones `tips`
    /// marks ([`Self::tips`]) and the world matrices of the bones `want`
    /// marks (and their ancestors'). An `ik` entry solved on its own whose
    /// bones' world matrices nothing reads (neither is marked in `want`,
    /// and no other bone read hangs from them) is solved for its points
    /// alone, without its angles.
    pub fn new(fig: &'a Figure, clip: &'a FigClip, want: &[bool], tips: &[bool]) -> Self {
        let nb = fig.bones.len();
        let solvers = entry_solvers(fig, clip);
        let alone = solvers.iter().all(Option::is_some);
        let in_ik = |b: usize| fig.ik.iter().any(|k| k.upper == b || k.lower == b);
        let mut tipped = tips.to_vec();
        tipped.resize(nb, false);
        let read = |b: usize| want.get(b).copied().unwrap_or(false);
        // the bones read and their ancestors (parents precede children)
        let with_ancestors = |mut need: Vec<bool>| {
            for b in (0..nb).rev() {
                if need[b]
                    && let Some(p) = fig.bones[b].parent
                {
                    need[p] = true;
                }
            }
            need
        };
        let all = with_ancestors((0..nb).map(|b| read(b) || tipped[b]).collect());
        let pointed: Vec<bool> = fig
            .ik
            .iter()
            .map(|k| {
                let hangs = |c: usize| {
                    c != k.lower
                        && matches!(fig.bones[c].parent, Some(p) if p == k.upper || p == k.lower)
                };
                alone && !read(k.upper) && !read(k.lower) && !(0..nb).any(|c| hangs(c) && all[c])
            })
            .collect();
        let mut on_points = vec![false; nb];
        for (k, _) in fig.ik.iter().zip(&pointed).filter(|(_, p)| **p) {
            on_points[k.upper] = true;
            on_points[k.lower] = true;
        }
        let need = with_ancestors(
            (0..nb)
                .map(|b| read(b) || (tipped[b] && !on_points[b]))
                .collect(),
        );
        let mut fixed = vec![false; nb];
        let mut world = vec![Affine::IDENTITY; nb];
        for (b, bone) in fig.bones.iter().enumerate() {
            let parent_fixed = bone.parent.is_none_or(|p| fixed[p]);
            let still = matches!(clip.drivers[b], super::model::Driver::Const(_))
                && bone.mv.is_none()
                && !in_ik(b);
            fixed[b] = need[b] && still && parent_fixed;
            if fixed[b] {
                // as world_matrices builds it (the driver and the joint are
                // the same at every time)
                let turn = Affine::rotate(clip.drivers[b].eval(0.0));
                let local = Affine::translate(bone.joint_at(0.0)) * turn;
                world[b] = match bone.parent {
                    Some(p) => world[p] * local,
                    None => local,
                };
            }
        }
        let moving: Vec<bool> = (0..nb).map(|b| need[b] && !fixed[b]).collect();
        let driven = (0..nb).map(|b| moving[b] && !in_ik(b)).collect();
        let nk = fig.ik.len();
        PoseAt {
            fig,
            clip,
            solvers,
            alone,
            moving,
            driven,
            local: vec![0.0; nb],
            ends: Vec::with_capacity(nk),
            pose: Pose {
                world,
                root: Affine::IDENTITY,
                ik: Vec::with_capacity(nk),
                asked: Vec::with_capacity(nk),
                points: Vec::with_capacity(nk),
            },
            tip_world: (0..nb).map(|b| tipped[b] && !in_ik(b)).collect(),
            tipped,
            pointed,
            tips: vec![Vec2::ZERO; nb],
        }
    }

    /// Per `ik` entry: whether it is solved for its points alone.
    #[cfg(test)]
    pub(crate) fn pointed(&self) -> &[bool] {
        &self.pointed
    }

    /// Pose the clip at normalised time t (into [`Self::pose`]).
    pub fn at(&mut self, t: f64) {
        let (fig, clip) = (self.fig, self.clip);
        if !self.alone {
            self.pose = pose(fig, clip, t);
            self.make_tips();
            return;
        }
        for (b, d) in clip.drivers.iter().enumerate() {
            if self.driven[b] {
                self.local[b] = d.eval(t);
            }
        }
        self.ends.clear();
        self.pose.asked.clear();
        self.pose.points.clear();
        for (i, (k, solver)) in fig.ik.iter().zip(self.solvers.iter().flatten()).enumerate() {
            let s = if self.pointed[i] {
                solver.points(t)
            } else {
                solver.solve(t)
            };
            (self.local[k.upper], self.local[k.lower]) = s.angles;
            self.ends.push(s.ends);
            self.pose.asked.push(s.asked);
            self.pose.points.push(s.points);
        }
        let root = root_matrix(&clip.root, t);
        let world = &mut self.pose.world;
        for (b, bone) in fig.bones.iter().enumerate() {
            if !self.moving[b] {
                continue;
            }
            let turn = Affine::rotate(self.local[b]);
            let local = Affine::translate(bone.joint_at(t)) * turn;
            world[b] = match bone.parent {
                Some(p) => world[p] * local,
                None => local,
            };
        }
        self.pose.ik.clear();
        self.pose.ik.extend(
            fig.ik.iter().zip(&self.ends).map(|(k, &(joint, target))| {
                root.apply(pulled(joint, target, k.pull_to(&fig.bones)))
            }),
        );
        self.pose.root = root;
        self.make_tips();
    }

    /// The tips read, as [`Pose::tips`] makes them.
    fn make_tips(&mut self) {
        let pose = &self.pose;
        for b in 0..self.fig.bones.len() {
            if self.tip_world[b] {
                self.tips[b] = pose.world_tip(self.fig, b);
            }
        }
        for (k, &(knee, end)) in self.fig.ik.iter().zip(&pose.points) {
            if self.tipped[k.upper] {
                self.tips[k.upper] = pose.root.apply(knee);
            }
            if self.tipped[k.lower] {
                self.tips[k.lower] = pose.root.apply(end);
            }
        }
    }
}

/// Each `ik` entry's ideal effector ([`ik_ideal`]), user space, from its
/// upper joint and target in the figure's frame and the root-motion
/// matrix.
fn ideal_effectors(fig: &Figure, root: Affine, ends: &[(Vec2, Vec2)]) -> Vec<Vec2> {
    fig.ik
        .iter()
        .zip(ends)
        .map(|(k, &(joint, target))| root.apply(pulled(joint, target, k.pull_to(&fig.bones))))
        .collect()
}

/// Times where entry `i`'s angles have a corner because of its `reach`:
/// where `"pull"` switches on or off, or where a `"clamp"` target leaves
/// or re-enters the reachable ring ([`ik::clamp_switches`]: a cusp, so a
/// key is needed there, unless the target only grazes its reach). Found on
/// a grid of `n` and bisected; none for `"error"`, whose targets stay
/// within reach.
pub fn reach_switches(fig: &Figure, clip: &FigClip, i: usize, n: usize) -> Vec<f64> {
    let k = &fig.ik[i];
    let dist = |t: f64| {
        let (j, g) = ik_joints_and_targets(fig, clip, t)[i];
        j.dist(g)
    };
    match (k.reach, k.pull_to(&fig.bones)) {
        (ChainReach::Pull, Some(max)) => ik::switches(n, |t| i8::from(dist(t) > max)),
        (ChainReach::Clamp, _) => {
            let (l1, l2) = (fig.bones[k.upper].length, fig.bones[k.lower].length);
            ik::clamp_switches(n, dist, l1, l2)
        }
        _ => Vec::new(),
    }
}

/// The ideal (FK) tip of every bone at normalised time t, user space.
pub fn tips(fig: &Figure, clip: &FigClip, t: f64) -> Vec<Vec2> {
    pose(fig, clip, t).tips(fig)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::model::{Bone, Driver};

    /// A tiny deterministic generator (xorshift) so the test needs no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    fn mat(angle: f64, at: Vec2) -> [[f64; 3]; 3] {
        let (s, c) = angle.sin_cos();
        [[c, -s, at.x], [s, c, at.y], [0.0, 0.0, 1.0]]
    }

    fn mul(a: [[f64; 3]; 3], b: [[f64; 3]; 3]) -> [[f64; 3]; 3] {
        let mut m = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                m[i][j] = (0..3).map(|k| a[i][k] * b[k][j]).sum();
            }
        }
        m
    }

    /// World matrices of random trees with a 6-deep chain equal the product
    /// of the local 3×3 matrices along the path from the root (within 1e-9).
    #[test]
    fn world_is_product_of_locals_on_random_6_deep_trees() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for _ in 0..200 {
            let mut bones: Vec<Bone> = Vec::new();
            // bones 0..6 form a chain (depth 6); 6..12 hang on random earlier bones
            for i in 0..12 {
                let parent = match i {
                    0 => None,
                    1..=5 => Some(i - 1),
                    _ => Some((rng.next() * i as f64) as usize),
                };
                bones.push(Bone {
                    name: format!("b{i}"),
                    parent,
                    at: Vec2::new(rng.next() * 200.0 - 100.0, rng.next() * 200.0 - 100.0),
                    length: rng.next() * 100.0,
                    width: 1.0,
                    head_radius: None,
                    stroke: "#000".into(),
                    mv: None,
                    depth_offset: Vec2::ZERO,
                    parts: Vec::new(),
                });
            }
            let fig = Figure {
                rest_rad: vec![0.0; bones.len()],
                bones,
                clips: Vec::new(),
                switched: false,
                chains: Vec::new(),
                ik: Vec::new(),
                ground: None,
                ground_spacing_px: 0.0,
                springs: Vec::new(),
                style: Default::default(),
                physics: Vec::new(),
                scene: Vec::new(),
                len_decimals: crate::geom::LEN_DECIMALS,
            };
            let angles: Vec<f64> = (0..12)
                .map(|_| (rng.next() - 0.5) * 4.0 * std::f64::consts::PI)
                .collect();
            let w = world_matrices(&fig, &angles, 0.0);
            for (b, m) in w.iter().enumerate() {
                let mut chain = vec![b];
                while let Some(p) = fig.bones[*chain.last().unwrap()].parent {
                    chain.push(p);
                }
                let mut want = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                for &i in chain.iter().rev() {
                    want = mul(want, mat(angles[i], fig.bones[i].at));
                }
                let [a, b, c, d, e, f] = m.as_coeffs();
                let got = [a, c, e, b, d, f];
                let exp = [
                    want[0][0], want[0][1], want[0][2], want[1][0], want[1][1], want[1][2],
                ];
                for (g, e) in got.iter().zip(exp) {
                    assert!((g - e).abs() < 1e-9, "bone {b}: {got:?} vs {exp:?}");
                }
            }
            // depth of bone 5 is 6
            let mut depth = 1;
            let mut b = 5;
            while let Some(p) = fig.bones[b].parent {
                depth += 1;
                b = p;
            }
            assert_eq!(depth, 6);
        }
    }

    #[test]
    fn seed_002_arm_tip_by_hand() {
        // shoulder 80 at (200,200), upper 70 at the shoulder's tip, fore 50
        let bone = |name: &str, parent, at: Vec2, length| Bone {
            name: name.into(),
            parent,
            at,
            length,
            width: 6.0,
            stroke: "#000".into(),
            head_radius: None,
            mv: None,
            depth_offset: Vec2::ZERO,
            parts: Vec::new(),
        };
        let fig = Figure {
            bones: vec![
                bone("shoulder", None, Vec2::new(200.0, 200.0), 80.0),
                bone("upper", Some(0), Vec2::new(80.0, 0.0), 70.0),
                bone("fore", Some(1), Vec2::new(70.0, 0.0), 50.0),
            ],
            rest_rad: vec![0.0; 3],
            clips: Vec::new(),
            switched: false,
            chains: Vec::new(),
            ik: Vec::new(),
            ground: None,
            ground_spacing_px: 0.0,
            springs: Vec::new(),
            style: Default::default(),
            physics: Vec::new(),
            scene: Vec::new(),
            len_decimals: crate::geom::LEN_DECIMALS,
        };
        let (a, b, c) = (0.3f64, -0.5f64, 0.9f64);
        let w = world_matrices(&fig, &[a, b, c], 0.0);
        let tip = w[2].apply(Vec2::new(50.0, 0.0));
        let want = Vec2::new(200.0, 200.0)
            + Vec2::from_angle(a) * 80.0
            + Vec2::from_angle(a + b) * 70.0
            + Vec2::from_angle(a + b + c) * 50.0;
        assert!(tip.dist(want) < 1e-9);
        let _ = Driver::Const(0.0);
    }

    #[test]
    fn pull_stops_short_of_a_far_target_by_the_margin() {
        let j = Vec2::new(0.0, 0.0);
        let p = pulled(j, Vec2::new(100.0, 0.0), Some(72.5));
        assert!((p.x - 72.5).abs() < 1e-12 && p.y == 0.0);
        assert_eq!(
            pulled(j, Vec2::new(10.0, 0.0), Some(72.5)),
            Vec2::new(10.0, 0.0)
        );
        assert_eq!(
            pulled(j, Vec2::new(100.0, 0.0), None),
            Vec2::new(100.0, 0.0)
        );
    }
}
