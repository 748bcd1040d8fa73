//! Key reuse between limbs: two chains of bones with the same shape whose
//! motion is the same shifted in phase share one set of keyframes, the
//! second played with a negative delay (css `animation-delay`, smil
//! `begin`).
//!
//! **Chains.** A chain is a bone with its whole subtree. Two chains have the
//! same shape when their trees match bone for bone: the same lengths, the
//! same joint offset `at` relative to the parent and the same head radius
//! (the drawing style may differ). Neither may hold a spring bone, nor a
//! head under a squash (their written tracks depend on the ancestors' keys),
//! nor contain the other.
//!
//! **Detection, from the sampled motion.** For every bone pair `(a_i, b_i)`
//! of the two chains the local angles θ (radians, FK and IK solved) are
//! sampled at [`GRID`] times of one period; the grid shift `k / GRID` is the
//! one whose worst tip error `|wrap((θ_b(t) − d_b) − (θ_a(t + s) − d_a))| ·
//! reach(b_i)` is smallest (`d` the drawn local angles). A true shift
//! between two grid times (a leg 193.9° behind its pair) misses the nearest
//! by up to a grid step's movement, so that shift is then refined between
//! its neighbours on the table interpolated (Catmull-Rom, a golden-section
//! search: every time's error is nought at the true shift), and where the
//! table's own error outweighs the shift (a leg a thousandth of a degree
//! behind, a sharp IK motion), searched again near it on solved angles. The written
//! delay is `−s · period` rounded to the written seconds (microseconds),
//! and the match is then re-checked at that exact shift on
//! [`CHECK_SAMPLES`] times against [`REUSE_TOLERANCE_PX`] (the grid shift
//! first where its grid error is within ten times that, then the refined
//! one, then the one on solved angles). Two legs on one crank need no
//! search: where each chain's root is an `ik` entry's upper bone under a
//! static root bone and the two targets are one circle or ellipse turned
//! from other start angles (and moved as the roots are), b's angles are
//! a's shifted by the start angles' difference, and that shift is checked
//! first (`constructed_shift`; the search runs only should it fail), on
//! every `CHECK_COARSE`th check time only: the two chains then solve one
//! motion, their targets equal up to rounding (about 1e-13 px), so what
//! the check can still find (a construction that does not hold, a delay
//! rounded off the shift, another drawn pose) shows over the whole period,
//! not between two check times.
//! Names play no part. A pair that already
//! moves alike with no shift, each drawn in its own pose (two cranks
//! turning from other angles), is not reused: its keyframes are the same
//! block anyway, and any shift would fit it equally (one picked at random
//! would move the reused chain's drawn pose for nothing).
//!
//! **At most [`MAX_REPLAY_DELAYS`] delays a clip.** Each delay shifts its
//! sources' key times into the measure's sample times of every probe; past
//! that many distinct delays a chain keys its own motion.
//!
//! **css only.** The css route names a keyframes block once and any number
//! of rules play it; the smil route writes every animation's values on its
//! own element, so a shared track would be written out again (plus a
//! `begin`): reuse saves nothing there and is not planned.
//!
//! **Drawn pose.** A reused chain is drawn in the pose that makes the
//! shared keys land on its own motion: `d_b = θ_b(−s)` (its own pose half a
//! step earlier, for a gait half a period), decided on the first clip; the
//! other clips reuse only where that drawn pose fits them too. One-shot
//! clips never reuse (a shift has no meaning there).

use super::file::Play;
use super::fk;
use super::model::Figure;
use crate::clip::Route;
use crate::geom::{Rem1, SEC_DECIMALS, quantize, wrap_pi};
use std::cell::Cell;

/// Samples per period searched for the shift (divisible by 2, 3, 4, 5, 6, 8, 9, 10, 12).
pub const GRID: usize = 720;

/// Every how many rows of the table a pair is first judged on (see
/// [`plan_shared`]; a divisor of [`GRID`]).
pub(crate) const GRID_COARSE: usize = 8;
/// Samples per period at which a chosen shift is re-checked.
pub const CHECK_SAMPLES: usize = 2048;
/// Largest tip difference, px, between a chain's own motion and the shared
/// keys' source shifted by the written delay: the size of the rounding of
/// a written angle (0.0005° at a reach of 100 px is 0.0009 px).
pub const REUSE_TOLERANCE_PX: f64 = 1e-3;

/// Most distinct delays the replays of one clip play at: each delay adds
/// its sources' key times, shifted, to the times the measure stage
/// samples every probe at (256 bones each a step behind the last would
/// multiply them by 256), so a chain whose delay would be one more keys
/// its motion on its own.
pub const MAX_REPLAY_DELAYS: usize = 4;

/// One bone playing another bone's keys.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shared {
    /// The bone whose track is played.
    pub source: usize,
    /// Written delay, seconds (negative or zero).
    pub delay_s: f64,
}

/// The reuse decided for a figure and route.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Local angles (radians) of the drawn pose: `fig.rest_rad`, except in
    /// reused chains.
    pub drawn_rad: Vec<f64>,
    /// Per clip, per bone: the track it shares, if any.
    pub shared: Vec<Vec<Option<Shared>>>,
    /// Per clip: `(source chain root, reused chain root, delay_s)`.
    pub chains: Vec<Vec<(usize, usize, f64)>>,
    /// Per bone: the fraction of the usual fitting budget it gets (1 at
    /// first; [`crate::figure::bake_figure`] lowers it for the bones whose
    /// keys are shared until every probe of their chains measures no worse
    /// than with keys of their own, or within the goal of a bake to a
    /// tolerance).
    pub source_scale: Vec<f64>,
}

impl Plan {
    /// No reuse: every bone its own keys, drawn at `fig.rest_rad`.
    pub fn none(fig: &Figure) -> Plan {
        Plan {
            drawn_rad: fig.rest_rad.clone(),
            shared: vec![vec![None; fig.bones.len()]; fig.clips.len()],
            chains: vec![Vec::new(); fig.clips.len()],
            source_scale: vec![1.0; fig.bones.len()],
        }
    }

    /// Bones of the chain rooted at `root` (the root first, then its
    /// descendants in bone order).
    pub fn chain(fig: &Figure, root: usize) -> Vec<usize> {
        let mut v = vec![root];
        for b in root + 1..fig.bones.len() {
            if fig.bones[b].parent.is_some_and(|p| v.contains(&p)) {
                v.push(b);
            }
        }
        v
    }

    /// Whether any bone plays another bone's keys.
    pub fn reuses(&self) -> bool {
        self.chains.iter().any(|c| !c.is_empty())
    }

    /// Per clip: whether the chain from `a` replays its keys on the chain
    /// from `b` there.
    pub fn clips_of(&self, (a, b): (usize, usize)) -> Vec<bool> {
        self.chains
            .iter()
            .map(|c| c.iter().any(|&(x, y, _)| (x, y) == (a, b)))
            .collect()
    }
}

fn children(fig: &Figure) -> Vec<Vec<usize>> {
    let mut ch = vec![Vec::new(); fig.bones.len()];
    for (b, bone) in fig.bones.iter().enumerate() {
        if let Some(p) = bone.parent {
            ch[p].push(b);
        }
    }
    ch
}

/// Bone pairs of two chains of the same shape (roots first), or `None`.
fn same_shape(fig: &Figure, ch: &[Vec<usize>], a: usize, b: usize) -> Option<Vec<(usize, usize)>> {
    let (x, y) = (&fig.bones[a], &fig.bones[b]);
    if x.length != y.length
        || x.at != y.at
        || x.head_radius != y.head_radius
        || ch[a].len() != ch[b].len()
    {
        return None;
    }
    let mut out = vec![(a, b)];
    for (&ca, &cb) in ch[a].iter().zip(&ch[b]) {
        out.extend(same_shape(fig, ch, ca, cb)?);
    }
    Some(out)
}

fn ancestor(fig: &Figure, a: usize, mut b: usize) -> bool {
    while let Some(p) = fig.bones[b].parent {
        if p == a {
            return true;
        }
        b = p;
    }
    false
}

/// Worst tip error of `pairs` when b plays a's track shifted: `src(a, j)`
/// is a's angle at grid time j plus the shift and `back(b)` b's at minus
/// the shift, its drawn angle d_b unless `fixed` (then `drawn[b]`), read on
/// every `stride`th grid time. The search stops once the error reaches
/// `stop`, returning what it reached: at least `stop`, and the worst tip
/// error itself whenever that is below `stop`.
fn pairs_error(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    (drawn, fixed): (&[f64], bool),
    (stride, stop): (usize, f64),
    src: impl Fn(usize, usize) -> f64,
    back: impl Fn(usize) -> f64,
) -> f64 {
    let mut worst = 0.0f64;
    for &(a, b) in pairs {
        let db = if fixed { drawn[b] } else { back(b) };
        for j in (0..ang.len()).step_by(stride) {
            let e = wrap_pi((ang[j][b] - db) - (src(a, j) - drawn[a]));
            worst = worst.max(e.abs() * reach[b]);
            if worst >= stop {
                return worst;
            }
        }
    }
    worst
}

/// [`pairs_error`] at a shift of `k` grid steps, on every time, stopped at
/// `stop` (a shift no better than the best so far loses to it).
fn grid_error(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    drawn: (&[f64], bool),
    k: usize,
    stop: f64,
) -> f64 {
    let n = ang.len();
    let src = |a: usize, j: usize| ang[(j + k) % n][a];
    let back = |b: usize| ang[(n - k) % n][b];
    pairs_error(ang, pairs, reach, drawn, (1, stop), src, back)
}

/// The shift `k` in `1..n` with the smallest [`grid_error`] (the first of
/// equals) and that error, if that error is at most `within`; each
/// shift's search stopped at the best so far, or at `within` before any
/// shift gets there (a shift that misses `within` is never taken, so its
/// exact error is not needed: most shifts of a motion stop after a few
/// samples).
///
/// The shifts are searched in parallel runs, each stopped at its own best
/// so far; the best of the runs' bests is the same shift and error as one
/// run over all gives (every best is an exact error, the least of them
/// wins and the first of equals), whatever the core count.
fn best_shift(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    drawn: (&[f64], bool),
    within: f64,
) -> Option<(usize, f64)> {
    best_shift_in_runs(ang, pairs, reach, drawn, within, SHIFT_RUN)
}

/// [`best_shift`] in runs of at least `run` shifts.
fn best_shift_in_runs(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    drawn: (&[f64], bool),
    within: f64,
    run: usize,
) -> Option<(usize, f64)> {
    use rayon::prelude::*;
    let better = |a: Option<(usize, f64)>, b: Option<(usize, f64)>| match (a, b) {
        (Some(x), Some(y)) if y.1 < x.1 || (y.1 == x.1 && y.0 < x.0) => Some(y),
        (Some(x), _) => Some(x),
        (None, y) => y,
    };
    // (an error of exactly `within` is taken: the first stop is just past it)
    let first_stop = within.next_up();
    (1..ang.len())
        .into_par_iter()
        .with_min_len(run)
        .fold(
            || None,
            |best: Option<(usize, f64)>, k| {
                let stop = best.map_or(first_stop, |b| b.1);
                let err = grid_error(ang, pairs, reach, drawn, k, stop);
                if err < stop { Some((k, err)) } else { best }
            },
        )
        .reduce(|| None, better)
}

/// The most a chain pair's tip error can differ between a shift and the
/// nearest grid shift: a grid step's largest tip movement of the source
/// bones (`ang[j + 1] − ang[j]` times the reusing bone's reach), twice
/// over when the reusing chain's drawn pose moves with the shift.
fn step_movement(ang: &[Vec<f64>], pairs: &[(usize, usize)], reach: &[f64], fixed: bool) -> f64 {
    let n = ang.len();
    let step = pairs
        .iter()
        .flat_map(|&(a, b)| {
            (0..n).map(move |j| wrap_pi(ang[(j + 1) % n][a] - ang[j][a]).abs() * reach[b])
        })
        .fold(0.0, f64::max);
    if fixed { step } else { 2.0 * step }
}

/// Bone `b`'s angle at `x` grid steps (any real, the table periodic):
/// Catmull-Rom between the table's neighbours, unwrapped about the step's
/// start.
fn table_at(ang: &[Vec<f64>], b: usize, x: f64) -> f64 {
    let n = ang.len();
    let f = x.floor();
    let u = x - f;
    let j = (f as i64).rem_euclid(n as i64) as usize;
    let p1 = ang[j][b];
    let p0 = p1 + wrap_pi(ang[(j + n - 1) % n][b] - p1);
    let p2 = p1 + wrap_pi(ang[(j + 1) % n][b] - p1);
    let p3 = p2 + wrap_pi(ang[(j + 2) % n][b] - p2);
    p1 + 0.5
        * u
        * ((p2 - p0)
            + u * ((2.0 * p0 - 5.0 * p1 + 4.0 * p2 - p3) + u * (3.0 * (p1 - p2) + p3 - p0)))
}

/// [`pairs_error`] at a shift of `x` grid steps (any real), the table
/// interpolated ([`table_at`]), on every [`REFINE_STRIDE`]th time: every
/// time's error is nought at the true shift, so a share of them finds it.
fn shift_error(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    drawn: (&[f64], bool),
    x: f64,
) -> f64 {
    let n = ang.len() as f64;
    let src = |a: usize, j: usize| table_at(ang, a, j as f64 + x);
    let back = |b: usize| table_at(ang, b, n - x);
    pairs_error(
        ang,
        pairs,
        reach,
        drawn,
        (REFINE_STRIDE, f64::INFINITY),
        src,
        back,
    )
}

/// The shift, in grid steps within one of `k`, with the least
/// [`shift_error`] ([`least_of`]).
fn refined_shift(
    ang: &[Vec<f64>],
    pairs: &[(usize, usize)],
    reach: &[f64],
    drawn: (&[f64], bool),
    k: usize,
) -> f64 {
    let err = |x: f64| shift_error(ang, pairs, reach, drawn, x);
    // (a bracket of 1e-5 steps is a hundredth of a written microsecond at
    // a period of 0.72 s, a thousandth at 7.2 s)
    least_of(err, (k as f64 - 1.0, k as f64 + 1.0), 1e-5)
}

/// Where `err` is least in `(lo, hi)`, to within `tol`: a golden-section
/// search, the error of a shift being least at the true shift and growing
/// with the distance from it on either side.
fn least_of(err: impl Fn(f64) -> f64, (mut lo, mut hi): (f64, f64), tol: f64) -> f64 {
    let r = (5f64.sqrt() - 1.0) / 2.0;
    let (mut x1, mut x2) = (hi - r * (hi - lo), lo + r * (hi - lo));
    let (mut e1, mut e2) = (err(x1), err(x2));
    while hi - lo > tol {
        if e1 <= e2 {
            hi = x2;
            (x2, e2) = (x1, e1);
            x1 = hi - r * (hi - lo);
            e1 = err(x1);
        } else {
            lo = x1;
            (x1, e1) = (x2, e2);
            x2 = lo + r * (hi - lo);
            e2 = err(x2);
        }
    }
    (lo + hi) / 2.0
}

/// How far, in grid steps, the search on solved angles looks on either
/// side of the shift the interpolated table gave (where the table's own
/// error outweighs a shift of a few thousandths of a step).
const POLISH_STEPS: f64 = 0.1;

/// Every how many grid times [`shift_error`] reads.
const REFINE_STRIDE: usize = 8;

/// Every how manyth of its times the check reads first (then the others).
const CHECK_COARSE: usize = 8;

/// Fewest shifts [`best_shift`] searches in one run.
const SHIFT_RUN: usize = 45;

/// Two chain roots `(a, b)` and their bones paired, source first.
pub(crate) type Candidate = (usize, usize, Vec<(usize, usize)>);

/// The pairs of chains that may share keys, `(a, b, bone pairs)`: the same
/// shape, disjoint, neither holding a spring bone nor a head under a
/// squash, each source bone before the bone that plays its keys.
pub(crate) fn candidates(fig: &Figure) -> Vec<Candidate> {
    let nb = fig.bones.len();
    let ch = children(fig);
    let squashed = fig.clips.iter().any(|c| c.root.squash.is_some());
    let excluded: Vec<bool> = (0..nb)
        .map(|b| {
            fig.springs.iter().any(|s| s.bone == b)
                || (squashed && fig.bones[b].head_radius.is_some())
        })
        .collect();
    let mut candidates = Vec::new();
    for b in 0..nb {
        for a in 0..b {
            if ancestor(fig, a, b) {
                continue;
            }
            if let Some(pairs) = same_shape(fig, &ch, a, b) {
                // a source bone comes first, so its track exists when the
                // reusing bone is baked
                if pairs
                    .iter()
                    .all(|&(x, y)| x < y && !excluded[x] && !excluded[y])
                {
                    candidates.push((a, b, pairs));
                }
            }
        }
    }
    candidates
}

/// The shift `s` (a fraction of the period, in `[0, 1)`) at which chain
/// `b` moves as chain `a` by construction (b's local angles at t are a's
/// at t + s), where it is known without a search: each root the upper
/// bone of an `ik` entry whose lower bone is the next pair's (the same
/// knee, reach and keying), the roots' parents static root bones (a
/// constant angle and a length, the same for both, no `move`) in a clip without root
/// motion, and the two targets the same circle or ellipse (radii,
/// rotation, direction) whose centres differ by what the parents' joints
/// (`at`, with any `depth_offset`) do: the targets then differ only in their
/// start angle, and b's target at t is a's at t + s translated. `None`
/// for any other pair (searched as before). The shift is still checked,
/// on the check's coarse times (see the module docs); it only replaces the
/// search.
fn constructed_shift(
    fig: &Figure,
    clip: &super::model::FigClip,
    (a, b): (usize, usize),
    pairs: &[(usize, usize)],
) -> Option<f64> {
    use super::model::Driver;
    use crate::trajectory::Trajectory;
    let root = &clip.root;
    if root.x.is_some() || root.y.is_some() || root.squash.is_some() || root.mv.is_some() {
        return None;
    }
    let ea = fig.ik.iter().position(|k| k.upper == a)?;
    let eb = fig.ik.iter().position(|k| k.upper == b)?;
    let (ka, kb) = (&fig.ik[ea], &fig.ik[eb]);
    if !pairs.contains(&(ka.lower, kb.lower))
        || ka.knee != kb.knee
        || ka.reach != kb.reach
        || ka.keying != kb.keying
    {
        return None;
    }
    let (pa, pb) = (fig.bones[a].parent?, fig.bones[b].parent?);
    let static_root = |p: usize| {
        let bone = &fig.bones[p];
        match clip.drivers[p] {
            Driver::Const(v) if bone.parent.is_none() && bone.mv.is_none() => Some(v),
            _ => None,
        }
    };
    if static_root(pa)?.to_bits() != static_root(pb)?.to_bits()
        || fig.bones[pa].length != fig.bones[pb].length
    {
        return None;
    }
    // (a root's `at` holds its `depth_offset`)
    let moved = fig.bones[pb].at - fig.bones[pa].at;
    match (&clip.targets[ea], &clip.targets[eb]) {
        (
            Trajectory::Ellipse {
                center: ca,
                rx,
                ry,
                rotation_rad,
                start_rad: sa,
                sign,
                ..
            },
            Trajectory::Ellipse {
                center: cb,
                rx: rx_b,
                ry: ry_b,
                rotation_rad: rotation_b,
                start_rad: sb,
                sign: sign_b,
                ..
            },
        ) if (rx, ry, rotation_rad, sign) == (rx_b, ry_b, rotation_b, sign_b) => {
            let off = *cb - *ca - moved;
            let size = 1.0 + ca.x.abs() + ca.y.abs() + moved.x.abs() + moved.y.abs();
            if off.x.abs() > 1e-9 * size || off.y.abs() > 1e-9 * size {
                return None;
            }
            // b's angle on its ellipse at t, start_b + sign·τ·t, is a's at
            // t + s: start_a + sign·τ·(t + s)
            Some(((sb - sa) / (sign * std::f64::consts::TAU)).rem1())
        }
        _ => None,
    }
}

/// The most distinct delays a clip of `fig` may replay keys at (css):
/// [`MAX_REPLAY_DELAYS`], or fewer where fewer chains could play
/// another's keys (none without two chains of one shape).
pub fn replay_delays_bound(fig: &Figure) -> usize {
    let mut reusing: Vec<usize> = candidates(fig).into_iter().map(|c| c.1).collect();
    reusing.sort_unstable();
    reusing.dedup();
    reusing.len().min(MAX_REPLAY_DELAYS)
}

/// The grid table's rows at every `step`th grid time (`GRID / step` of
/// them, rounded up), the angles of `bones` (NaN for the others of the
/// `nb`): a row is the same bit for bit whichever step and bones it is
/// made with (each bone's angle is its own, [`fk::WantedAngles::each`]).
pub(crate) fn table_rows(
    angles: &fk::WantedAngles,
    nb: usize,
    bones: &[usize],
    step: usize,
) -> Vec<Vec<f64>> {
    use rayon::prelude::*;
    (0..GRID.div_ceil(step))
        .into_par_iter()
        .map_init(Vec::new, |solved, i| {
            let t = (i * step) as f64 / GRID as f64;
            let mut row = vec![f64::NAN; nb];
            angles.each(bones, t, solved, |k, v| row[bones[k]] = v);
            row
        })
        .collect()
}

/// Plan the key reuse of every clip of `fig` on `route`.
pub fn plan(fig: &Figure, route: Route) -> Plan {
    plan_shared(fig, route, &super::ideal::Ideal::default())
}

/// [`plan`], the IK solves of the search on solved angles taken from (and
/// added to) `ideal`, which the bakes of `fig` share ([`super::ideal`]).
/// The grid table and the check solve their own times directly, each
/// `ik` entry once per time for both its bones ([`fk::WantedAngles`]):
/// their times are not the fitter's (a source chain's check times are
/// shifted off every grid, and a reused chain fits no keys), so keeping
/// them would only lengthen every later lookup.
pub(crate) fn plan_shared(fig: &Figure, route: Route, ideal: &super::ideal::Ideal) -> Plan {
    plan_with(fig, route, ideal, true, &Cell::new(0))
}

/// [`plan`] with every pair searched, none taken by construction (the
/// reference the construction is tested against).
#[cfg(test)]
pub(crate) fn plan_searched(fig: &Figure, route: Route) -> Plan {
    plan_with(
        fig,
        route,
        &super::ideal::Ideal::default(),
        false,
        &Cell::new(0),
    )
}

/// [`plan`], and the angles its grid tables and still-bone checks solved
/// (a bone's angle at one grid time each): the work that grows with the
/// candidate pairs of a crowd of chains of one shape.
#[cfg(test)]
pub(crate) fn plan_tabled(fig: &Figure) -> (Plan, usize) {
    let tabled = Cell::new(0);
    let plan = plan_with(fig, Route::Css, &Default::default(), true, &tabled);
    (plan, tabled.get())
}

/// [`constructed_shift`] of the chains rooted at `a` and `b` in clip `ci`,
/// if they are a candidate pair.
#[cfg(test)]
pub(crate) fn constructed(fig: &Figure, ci: usize, (a, b): (usize, usize)) -> Option<f64> {
    let (_, _, pairs) = candidates(fig).into_iter().find(|c| (c.0, c.1) == (a, b))?;
    constructed_shift(fig, &fig.clips[ci], (a, b), &pairs)
}

/// [`plan_shared`], the shifts known by construction ([`constructed_shift`])
/// taken without the search where `construct`, else every pair searched;
/// `tabled` counts the angles the grid tables solve ([`plan_tabled`]).
fn plan_with(
    fig: &Figure,
    route: Route,
    ideal: &super::ideal::Ideal,
    construct: bool,
    tabled: &Cell<usize>,
) -> Plan {
    let nb = fig.bones.len();
    let mut drawn = fig.rest_rad.clone();
    let mut shared = vec![vec![None; nb]; fig.clips.len()];
    let mut chains = vec![Vec::new(); fig.clips.len()];
    let reach = super::bake::reach(fig);
    let candidates = candidates(fig);
    // smil writes every animation's values on its own element: a shared
    // track would be written twice anyway, so reuse saves nothing there
    if candidates.is_empty() || route == Route::Smil {
        return Plan::none(fig);
    }
    let mut wanted = vec![false; nb];
    for &(x, y) in candidates.iter().flat_map(|c| &c.2) {
        wanted[x] = true;
        wanted[y] = true;
    }
    let wanted: Vec<usize> = (0..nb).filter(|&b| wanted[b]).collect();
    // bones of a chain that reuses (in any clip) or of a source chain
    let mut reusing = vec![false; nb];
    let mut sourcing = vec![false; nb];
    for (ci, clip) in fig.clips.iter().enumerate() {
        if clip.play == Play::Once {
            continue;
        }
        // (only the candidates' bones are read: NaN elsewhere)
        let angles = fk::WantedAngles::new(fig, clip);
        let rows = |bones: &[usize], step: usize| {
            tabled.set(tabled.get() + bones.len() * GRID.div_ceil(step));
            table_rows(&angles, nb, bones, step)
        };
        // A pair is first judged on every `GRID_COARSE`th row of the table
        // (a chain that moves there moves, one whose tips part from its
        // source's there is not alike: each is a max over the rows), then,
        // where that leaves a doubt, on every row of its own bones; the
        // whole table is made only where a shift is searched, which a pair
        // whose shift is known by construction (two legs on one crank)
        // seldom needs.
        let coarse = rows(&wanted, GRID_COARSE);
        let whole_table = std::cell::OnceCell::new();
        let whole = || -> &Vec<Vec<f64>> { whole_table.get_or_init(|| rows(&wanted, 1)) };
        // Whether bone `x` moves in the clip (past the tolerance from its
        // angle at 0, at any grid time), judged once a bone however many
        // pairs it is in: on the coarse rows, then on the whole table if it
        // is made, else on the bone's own angles at every grid time (the
        // same bits as any table's: see [`table_rows`]). Judged once a
        // pair, a crowd of still bones of one shape made a table for each
        // of their n² / 2 pairs.
        let judged: Vec<Cell<Option<bool>>> = vec![Default::default(); nb];
        // (the angles the pairs' own tables hold, each a bone's at every
        // grid time: see `exact` below)
        let own_angles = Cell::new(0);
        let moves = |x: usize| -> bool {
            if let Some(m) = judged[x].get() {
                return m;
            }
            let past = |v: f64, at_0: f64| wrap_pi(v - at_0).abs() * reach[x] > REUSE_TOLERANCE_PX;
            let on = |ang: &[Vec<f64>]| ang.iter().any(|row| past(row[x], ang[0][x]));
            let m = on(&coarse)
                || match whole_table.get() {
                    Some(all) => on(all),
                    None => {
                        let mut solved = Vec::new();
                        let mut at = |i: usize| {
                            let mut v = f64::NAN;
                            angles.each(&[x], i as f64 / GRID as f64, &mut solved, |_, a| v = a);
                            v
                        };
                        tabled.set(tabled.get() + GRID);
                        let at_0 = at(0);
                        (1..GRID).any(|i| past(at(i), at_0))
                    }
                };
            judged[x].set(Some(m));
            m
        };
        // the search on solved angles reads its solves through the
        // figure's (it reads each time once per bone of an entry, and its
        // golden-section steps come back near the same times); the check
        // solves its own (see above)
        let solves = super::bake::Solves::new(fig, (ci, clip), ideal);
        let angle_at = |b: usize, t: f64| solves.angle(fig, clip, b, t);
        let period = quantize(clip.period_s, SEC_DECIMALS);
        for (a, b, pairs) in &candidates {
            let (a, b) = (*a, *b);
            let first = ci == 0;
            // a reusing bone cannot be a source, a source cannot reuse, and
            // after the first clip only chains reused there may reuse
            if pairs.iter().any(|&(x, y)| reusing[x] || sourcing[y])
                || pairs.iter().any(|&(_, y)| shared[ci][y].is_some())
                || (!first && !pairs.iter().all(|&(_, y)| reusing[y]))
            {
                continue;
            }
            // a chain that never moves gains nothing
            if !pairs.iter().any(|&(x, _)| moves(x)) {
                continue;
            }
            let own_table = std::cell::OnceCell::new();
            let exact = || -> &Vec<Vec<f64>> {
                if let Some(table) = whole_table.get().or(own_table.get()) {
                    return table;
                }
                let mut bones: Vec<usize> = pairs.iter().flat_map(|&(x, y)| [x, y]).collect();
                bones.sort_unstable();
                bones.dedup();
                // once the pairs' own tables would have solved more angles
                // than the whole table holds, the whole table (a crowd of
                // chains of one shape moving alike would otherwise make one
                // for each of their n² / 2 pairs)
                let solved = own_angles.get() + bones.len();
                if solved > wanted.len() {
                    return whole();
                }
                own_angles.set(solved);
                own_table.get_or_init(|| rows(&bones, 1))
            };
            // nor one that already moves as its source does, each drawn in
            // its own pose (two cranks turning alike from other angles):
            // their keyframes are the same, written once, with no delay
            let alike = |ang: &[Vec<f64>]| {
                grid_error(ang, pairs, &reach, (&drawn, true), 0, f64::INFINITY)
                    <= REUSE_TOLERANCE_PX
            };
            if alike(&coarse) && alike(exact()) {
                continue;
            }
            // the clip's delays so far: once there are as many as a clip
            // may play at, only those are tried (each checked as below),
            // so a crowd of chains costs a few checks each, not a search
            let mut delays: Vec<f64> = Vec::new();
            for c in &chains[ci] {
                let c: &(usize, usize, f64) = c;
                if !delays.iter().any(|d| d.to_bits() == c.2.to_bits()) {
                    delays.push(c.2);
                }
            }
            let full = delays.len() >= MAX_REPLAY_DELAYS;
            let mut tried = Vec::new();
            // (the check's bones, reusing and source, and their angles at
            // one time)
            let ys: Vec<usize> = pairs.iter().map(|p| p.1).collect();
            let xs: Vec<usize> = pairs.iter().map(|p| p.0).collect();
            let (mut own, mut src) = (vec![0.0; pairs.len()], vec![0.0; pairs.len()]);
            let mut solved = Vec::new();
            let mut check = |candidates: &mut dyn Iterator<Item = f64>, coarse_only: bool| {
                for x in candidates {
                    // (within one period: a search past the last grid step
                    // finds a shift just over a whole period)
                    let x = x.rem_euclid(GRID as f64);
                    let delay_s = quantize(-x / GRID as f64 * period, SEC_DECIMALS);
                    if tried.contains(&delay_s.to_bits()) {
                        continue;
                    }
                    tried.push(delay_s.to_bits());
                    let s = -delay_s / period;
                    let mut d = drawn.clone();
                    if first {
                        let back = fk::local_angles(fig, clip, (-s).rem1());
                        for &(_, y) in pairs {
                            d[y] = back[y];
                        }
                    }
                    // (every eighth time first: a shift that fails, fails
                    // sooner; one that passes is read on every time all the
                    // same, unless only the coarse times are asked for)
                    let fine = (0..CHECK_SAMPLES).filter(|j| j % CHECK_COARSE != 0);
                    let ok = (0..CHECK_SAMPLES)
                        .step_by(CHECK_COARSE)
                        .chain(fine.take(if coarse_only { 0 } else { CHECK_SAMPLES }))
                        .all(|j| {
                            let t = j as f64 / CHECK_SAMPLES as f64;
                            let ts = (t + s).rem1();
                            angles.each(&ys, t, &mut solved, |k, v| own[k] = v);
                            angles.each(&xs, ts, &mut solved, |k, v| src[k] = v);
                            pairs.iter().enumerate().all(|(k, &(x, y))| {
                                let e = wrap_pi((own[k] - d[y]) - (src[k] - d[x]));
                                e.abs() * reach[y] <= REUSE_TOLERANCE_PX
                            })
                        });
                    if ok {
                        return Some((delay_s, d));
                    }
                }
                None
            };
            // a pair whose shift is known by construction (two legs on one
            // crank) takes it without the search, checked on the coarse
            // times (see the module docs); should it fail, the search runs
            // as for any other pair
            let constructed = (construct && !full)
                .then(|| constructed_shift(fig, clip, (a, b), pairs))
                .flatten()
                .and_then(|s| check(&mut std::iter::once(s * GRID as f64), true));
            let found = if let Some(found) = constructed {
                Some(found)
            } else {
                let ang = whole();
                // (a shift on the grid whose grid error is past ten times the
                // check's tolerance would fail the check; one between two grid
                // times misses the nearer by up to a grid step's movement)
                let within = 10.0 * REUSE_TOLERANCE_PX;
                let drawn_as = (drawn.as_slice(), !first);
                let found_shift = if full {
                    None
                } else {
                    let between = step_movement(ang, pairs, &reach, !first);
                    match best_shift(ang, pairs, &reach, drawn_as, within + between) {
                        Some(found) => Some(found),
                        None => continue,
                    }
                };
                let (k, err) = found_shift.unwrap_or((0, f64::INFINITY));
                // the grid shift where it is that close (half a period, a
                // third, …); failing that, the shift between grid times where
                // the error is least on the interpolated table; failing that,
                // where it is least on solved angles near it (each only when
                // the one before fails its check)
                let grid = (err <= within).then_some(k as f64);
                let solved_error = |x: f64| {
                    let s = x / GRID as f64;
                    let src = |a: usize, j: usize| angle_at(a, (j as f64 / GRID as f64 + s).rem1());
                    let back = |b: usize| angle_at(b, (-s).rem1());
                    pairs_error(
                        ang,
                        pairs,
                        &reach,
                        drawn_as,
                        (REFINE_STRIDE, f64::INFINITY),
                        src,
                        back,
                    )
                };
                // (each found lazily, in order: the table's shift before the
                // search near it)
                let table = Cell::new(0.0);
                let taken = delays
                    .iter()
                    .filter(|_| full)
                    .map(|d| -d / period * GRID as f64);
                let searched = (!full).then(|| {
                    grid.into_iter()
                        .chain(std::iter::once_with(|| {
                            table.set(refined_shift(ang, pairs, &reach, drawn_as, k));
                            table.get()
                        }))
                        .chain(
                            std::iter::once_with(|| {
                                // (only where the table comes close: a motion that
                                // differs is refused without the search)
                                let t = table.get();
                                (shift_error(ang, pairs, &reach, drawn_as, t) <= within).then(
                                    || {
                                        least_of(
                                            solved_error,
                                            (t - POLISH_STEPS, t + POLISH_STEPS),
                                            1e-6,
                                        )
                                    },
                                )
                            })
                            .flatten(),
                        )
                });
                let mut candidates = taken.chain(searched.into_iter().flatten());
                check(&mut candidates, false)
            };
            let Some((delay_s, d)) = found else {
                continue;
            };
            if full && !delays.iter().any(|x| x.to_bits() == delay_s.to_bits()) {
                continue;
            }
            drawn = d;
            for &(x, y) in pairs {
                reusing[y] = true;
                sourcing[x] = true;
                shared[ci][y] = Some(Shared { source: x, delay_s });
            }
            chains[ci].push((a, b, delay_s));
        }
        solves.keep();
    }
    Plan {
        drawn_rad: drawn,
        shared,
        chains,
        source_scale: vec![1.0; nb],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shift search with its early stops picks the shift and error of
    /// the full search (every shift's error taken over all samples, the
    /// first of equals), or none when that error is past the bound it is
    /// given, on tables with ties and near ties, whatever the bound (none,
    /// the best error itself, just below it, the error of an average shift),
    /// the runs the search is split into and the threads that search them.
    #[test]
    fn best_shift_equals_the_full_search() {
        let mut next = crate::geom::unit_rng(0x2545f4914f6cdd1du64);
        for case in 0..60 {
            let n = 24 + case % 7;
            let bones = 4;
            // a periodic motion (shifted copies match) plus noise, coarse
            // in some cases so that shifts tie
            let coarse = case % 3 == 0;
            let ang: Vec<Vec<f64>> = (0..n)
                .map(|j| {
                    (0..bones)
                        .map(|b| {
                            let x = (j as f64 / n as f64 + b as f64 * 0.25) * std::f64::consts::TAU;
                            let v = x.sin() * 2.0 + next() * 0.3;
                            if coarse { (v * 2.0).round() / 2.0 } else { v }
                        })
                        .collect()
                })
                .collect();
            let pairs = [(0, 2), (1, 3)];
            let reach = [30.0, 20.0, 30.0, 20.0];
            let drawn: Vec<f64> = (0..bones).map(|_| next()).collect();
            for fixed in [false, true] {
                let full = (1..n)
                    .map(|k| {
                        let e = grid_error(&ang, &pairs, &reach, (&drawn, fixed), k, f64::INFINITY);
                        (k, e)
                    })
                    .min_by(|x, y| x.1.total_cmp(&y.1));
                let (_, least) = full.expect("shifts to search");
                let typical =
                    grid_error(&ang, &pairs, &reach, (&drawn, fixed), n / 2, f64::INFINITY);
                for within in [f64::INFINITY, least, least.next_down(), typical] {
                    let want = full.filter(|&(_, e)| e <= within);
                    if within == least.next_down() {
                        assert_eq!(want, None);
                    }
                    let drawn = (drawn.as_slice(), fixed);
                    assert_eq!(best_shift(&ang, &pairs, &reach, drawn, within), want);
                    for threads in [1, 3] {
                        let pool = rayon::ThreadPoolBuilder::new()
                            .num_threads(threads)
                            .build()
                            .expect("a thread pool");
                        for run in [1, 2, 5, n] {
                            let found = pool.install(|| {
                                best_shift_in_runs(&ang, &pairs, &reach, drawn, within, run)
                            });
                            assert_eq!(
                                found, want,
                                "{threads} threads, runs of {run}, within {within}"
                            );
                        }
                    }
                }
            }
        }
    }
}
