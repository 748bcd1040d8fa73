//! Bake a bone-tree figure: drivers → parent-relative keyframes → [`Clip`]s.
//!
//! **Drawn pose.** Every bone is drawn once, in the rest pose (each bone's
//! own `angle` driver at t = 0), at absolute user-space coordinates; the
//! groups nest following the tree. A bone group rotates about its drawn
//! joint by `δ_b(t) = θ_b(t) − θ_b(rest)`, its *local* angle's change:
//! nested groups compose `M_b = M_parent · rotate_about(δ_b, joint_b)`, so
//! the world→local rule of the v1 legs generalises to any depth
//! (`local = world delta − parent world delta`, with θ_b already local).
//!
//! **Keys.** A constant driver gives two linear keys (or no animation when it
//! equals the rest angle). An eased track gives exactly its own keys, each
//! segment's easing as an exact timing function (hold keys are added at
//! t = 0 and t = 1 when the track starts late or ends early). A sine has no
//! exact timing-function form: it gets cubic Hermite keys ([`crate::fit`])
//! whose angle error times the bone's reach stays within its budget on a
//! dense grid, with its extrema as keys (the measure stage then checks the
//! written result independently). IK-solved bones and `move` go through
//! the same fitter with their extrema and corners as keys; `move` is added
//! to the lift tracks, which are then fitted rather than written exactly.
//! By default ([`Keyer::keys`]) a channel gets the smaller, as written, of
//! two key sets: keys placed where its curve needs them
//! ([`crate::fit::fewest_placed`], to [`PLACED_SHARE`] of its budget) and
//! the fewest uniform ones ([`crate::fit::fewest_uniform`]).
//! The two bones of an `ik` entry are fitted together
//! ([`crate::fit::pair`]: the effector and the joint kept within the
//! channel budget), except where each channel takes its own
//! shortest shape (the css default, [`Keyer::shortest_shape`]: a bone's
//! `linear()` stops often write fewer bytes than a pair's cubic keys) and
//! the entry does not ask to be keyed as a pair (`"keying": "pair"`, as
//! every cycling leg's entry does).
//!
//! These budgets and the cubic shape are the default [`Keyer`]; the keying
//! options replace them on every *fitted* channel (sine and IK bones,
//! `move` lift, heads, target probes, and in [`super`] springs and Verlet
//! chains): `--keys N` writes N uniform keys, `--tolerance` one budget for
//! all, `--fit` the segment shape. Constants and eased tracks stay exact.
//!
//! **Root motion.** `squash pivot ▸ scale ▸ unpivot ▸ lift x ▸ lift y ▸
//! bones`: `world = S · T · FK` as in [`super::fk`].
//!
//! **Heads.** A bone with `head_radius` draws a circle at its tip that
//! stays round under the squash: counter-rotation and counter-scale groups
//! around it (see `head_items`).

use super::fk;
use super::model::{Driver, EasedTrack, FigClip, Figure};
use crate::chain::ChainReach;
use crate::clip::{Anim, Axis, BoneInfo, Clip, Ease, FigureInfo, Item, Key, Node, Route, Track};
use crate::fit;
use crate::geom::{
    Affine, AffineExt, DEG_DECIMALS, Rem1, SEC_DECIMALS, T_DECIMALS, Unwrapped, Vec2, Vec2Ext,
    quantize, unwrap_near, wrap_pi,
};
use std::f64::consts::TAU;

/// Tip error allowed to a sine-driven bone's fitted keys, px (the fitter's
/// own dense estimate: angle error × reach).
pub const SINE_BUDGET_PX: f64 = 0.01;
/// Most keys per sine track.
pub const MAX_SINE_KEYS: usize = 1024;
/// Tip error allowed to each IK-solved bone's fitted keys, px (angle error
/// × reach, the fitter's dense estimate; the measure stage re-checks the
/// effector on the written file).
pub const IK_BUDGET_PX: f64 = 0.05;
/// Translation error allowed to fitted `move` keys, px.
pub const MOVE_BUDGET_PX: f64 = 0.02;
/// Most keys per fitted IK or `move` track.
pub const MAX_FIT_KEYS: usize = 1024;

/// The share of a channel's budget its keys are fitted to by default. A
/// probe moves with every channel above it (a foot with the root, the
/// thigh and the shin), and keys placed where they are needed leave each
/// channel's error near its budget almost everywhere, so two channels in
/// series could add up to twice it; half of it keeps the sum within the
/// budget for the usual two-bone limb, and the bake's tolerance loop
/// shrinks the budget when the measured file still misses.
pub const PLACED_SHARE: f64 = 0.5;
/// The share of a channel's budget its linear keys off the curve
/// ([`fit::fewest_banded_on`]) are fitted to: they miss by about all of it
/// nearly everywhere, so a parent's and a child's errors add up at the
/// child's tip more often than with keys on the curve. Of the 192
/// generated bone-tree rigs that bake of the 300 `tests/browser_fuzz.rs`
/// writes with `RIGBAKE_FUZZ_DUMP` (seed 7), 36 needed a retry without
/// these keys; with them at 0.5, 50; at 0.45, 35; at 0.4, 27, their files
/// 0.8 % smaller than without.
pub const BANDED_SHARE: f64 = 0.4;

/// How many keys a fitted channel gets (see [`Keyer`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ChannelKeys {
    /// Each channel to its own built-in budget ([`SINE_BUDGET_PX`],
    /// [`IK_BUDGET_PX`], [`MOVE_BUDGET_PX`], [`TARGET_BUDGET_PX`],
    /// [`HEAD_BUDGET_PX`], the springs' and chains' budgets): the default.
    Own,
    /// Every fitted channel to this one budget, px of probe movement (the
    /// fitter's dense estimate; a tolerance bake shrinks it until the
    /// measured file keeps the tolerance, see [`crate::bake_rig`]).
    Budget(f64),
    /// Exactly `n` uniform keys on every fitted channel.
    Uniform(usize),
    /// At most `n` keys per fitted channel, placed where its curve bends
    /// ([`fit::placed_keys`]; the sweep's adaptive columns).
    Placed(usize),
}

/// How a bone tree's fitted channels (sine-driven and IK-solved bones,
/// `move` lift, heads, IK target probes, springs, Verlet chains) are keyed:
/// how many keys, and the segment shape. Channels with an exact form (a
/// constant, an eased track) are written exactly whatever the keyer says.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keyer {
    pub keys: ChannelKeys,
    /// Segment shape: exact cubic (on smil, keySplines clamped to [0, 1])
    /// or linear.
    pub fit: crate::fit::Fit,
    /// Each fitted channel takes whichever of cubic and linear keys writes
    /// fewer css bytes ([`fit::css_len`]: linear keys are written as the
    /// stops of a `linear()` easing where that is shorter), both within the
    /// channel's budget (`bake --fit shortest`, css route).
    pub shortest_shape: bool,
}

impl Keyer {
    /// What a bake without keying options does: every channel to its own
    /// budget, cubic.
    pub const DEFAULT: Keyer = Keyer {
        keys: ChannelKeys::Own,
        fit: crate::fit::Fit::Cubic,
        shortest_shape: false,
    };

    /// The budget, px, of a channel whose own budget is `own_px`.
    pub fn budget_px(self, own_px: f64) -> f64 {
        match self.keys {
            ChannelKeys::Budget(px) => px,
            _ => own_px,
        }
    }

    /// A fixed key count for channels keyed on recorded frames (springs,
    /// Verlet chains), if the keyer asks for one.
    pub fn count(self) -> Option<usize> {
        match self.keys {
            ChannelKeys::Uniform(n) | ChannelKeys::Placed(n) => Some(n),
            ChannelKeys::Own | ChannelKeys::Budget(_) => None,
        }
    }

    /// Keys for curve `c` (whose `budget` is already this keyer's): by
    /// default the fewest bytes ([`fit::written_len`]) of keys placed to
    /// [`PLACED_SHARE`] of the budget and the fewest uniform keys within
    /// it, and for linear keys of linear keys free within the band
    /// ([`fit::fewest_banded_on`], to [`BANDED_SHARE`]); with
    /// [`Keyer::shortest_shape`], the fewest css bytes ([`fit::css_len`])
    /// of those, of the same two in linear segments to [`PLACED_SHARE`] and
    /// of the banded ones (the first of equals: placed, uniform, then
    /// linear placed, linear uniform, banded). Only sets that keep their
    /// budget compete ([`fit::Found::kept`]): linear keys a thousandth of
    /// the period apart cannot follow a fast enough turn, and their fewer
    /// bytes must not win over cubic keys that keep it. Where none keeps
    /// it (a cusp no key time meets), the fewest bytes of the sets that
    /// miss least on the check times ([`fit::max_error_on`],
    /// [`fit::least_miss`]) are taken.
    pub fn keys(self, c: &fit::Curve) -> Vec<Key> {
        // the placed fits of both shapes read `c.f` at the same check times
        let grid = fit::CheckGrid::default();
        // the uniform keys to `uniform_share` of the budget
        let fewest = |c: &fit::Curve, uniform_share: f64| {
            let placed = fit::fewest_placed_on(
                &fit::Curve {
                    budget: c.budget * PLACED_SHARE,
                    ..*c
                },
                &grid,
            );
            let u = fit::Curve {
                budget: c.budget * uniform_share,
                ..*c
            };
            // (linear keys try many counts: checked on the shared grid;
            // either search stops at a set writing over twice the placed
            // keys' bytes both ways it is compared, which no larger set
            // could undercut: each key adds at least two)
            let (written, css) = (fit::written_len(&placed.keys), fit::css_len(&placed.keys));
            let enough = |k: &[Key]| fit::written_len(k) > 2 * written && fit::css_len(k) > 2 * css;
            let uniform = match c.fit {
                fit::Fit::Linear => fit::fewest_uniform_on_until(&u, &grid, enough),
                _ => fit::fewest_uniform_until(&u, enough),
            };
            [placed, uniform]
        };
        match self.keys {
            ChannelKeys::Own | ChannelKeys::Budget(_) => {
                let mut all = fewest(c, 1.0).to_vec();
                let linear = fit::Curve {
                    fit: fit::Fit::Linear,
                    ..*c
                };
                if self.shortest_shape && c.fit != fit::Fit::Linear {
                    // linear keys, uniform ones too, to the placed keys'
                    // share: uniform linear keys miss by about their whole
                    // budget along the period, so a parent's and a child's
                    // errors add up at the child's tip (fitted to the whole
                    // budget they took over a chain of bones and made the
                    // file miss its goal, and the retries tighten every
                    // channel)
                    all.extend(fewest(&linear, PLACED_SHARE));
                }
                if self.shortest_shape || c.fit == fit::Fit::Linear {
                    // and linear keys off the curve, to their own share
                    let banded = fit::fewest_banded_on(
                        &fit::Curve {
                            budget: c.budget * BANDED_SHARE,
                            ..linear
                        },
                        &grid,
                    );
                    all.extend(banded.map(|keys| fit::Found { keys, kept: true }));
                }
                let len = if self.shortest_shape {
                    fit::css_len
                } else {
                    fit::written_len
                };
                // the fewest bytes of the sets that keep their budget;
                // where none can (a cusp no key time meets), of those
                // that miss least, as the curve's check times see it
                let kept = (0..all.len())
                    .filter(|&i| all[i].kept)
                    .min_by_key(|&i| len(&all[i].keys));
                let i = kept.unwrap_or_else(|| {
                    let found: Vec<(f64, usize)> = all
                        .iter()
                        .map(|f| (fit::max_error_on(c, &f.keys, &grid), len(&f.keys)))
                        .collect();
                    fit::least_miss(&found, c.budget).expect("the placed and uniform keys at least")
                });
                all.swap_remove(i).keys
            }
            ChannelKeys::Uniform(n) => fit::uniform_keys(c, n),
            ChannelKeys::Placed(n) => fit::placed_keys(c, n),
        }
    }
}

/// Times where a clip's curves may have corners: key times of its eased
/// tracks (drivers, lift, squash), `move` corners, IK targets' corners and
/// the times an IK limb's reach makes a corner ([`fk::reach_switches`]).
fn clip_corners(fig: &Figure, clip: &FigClip) -> Vec<f64> {
    // t = 0 (and so 1): one-sided end slopes, right for one-shot clips too
    let mut v: Vec<f64> = vec![0.0];
    for d in &clip.drivers {
        if let Driver::Track(tr) = d {
            v.extend(tr.keys.iter().map(|k| k.0));
        }
    }
    let r = &clip.root;
    for tr in [&r.x, &r.y].into_iter().flatten() {
        v.extend(tr.keys.iter().map(|k| k.0));
    }
    if let Some(s) = &r.squash {
        v.extend(s.sy.keys.iter().map(|k| k.0));
    }
    for m in
        r.mv.iter()
            .chain(fig.bones.iter().filter_map(|b| b.mv.as_ref()))
    {
        v.extend(m.corners());
    }
    for (i, target) in clip.targets.iter().enumerate() {
        v.extend(target.corners());
        v.extend(fk::reach_switches(fig, clip, i, 2048));
    }
    let mut v: Vec<f64> = v
        .into_iter()
        .map(|t| quantize(t.rem1(), T_DECIMALS))
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// Keys (plus extrema and `corners`) for a sampled curve as `keyer` asks:
/// by default the fewest uniform ones within `budget` (curve units), step
/// 4, values to `decimals`.
fn fitted_keys(
    f: &dyn Fn(f64) -> f64,
    corners: &[f64],
    budget: f64,
    (route, keyer): (Route, Keyer),
    decimals: u32,
) -> Vec<Key> {
    // corners win over extrema found next to them (an extremum at a
    // corner is found by bisection only to within its grid)
    let mut fixed = corners.to_vec();
    fixed.extend(
        fit::extrema(f)
            .into_iter()
            .filter(|e| corners.iter().all(|c| (c - e).abs() > fit::MIN_GAP)),
    );
    fixed.sort_by(f64::total_cmp);
    fixed.dedup_by(|a, b| (*a - *b).abs() < fit::MIN_GAP);
    keyer.keys(&fit::Curve {
        f,
        fixed: &fixed,
        corners,
        step: 4,
        budget,
        max_keys: MAX_FIT_KEYS,
        clamp_y: route == Route::Smil,
        decimals,
        fit: keyer.fit,
    })
}

/// What the bakes of one call (the tries of a reuse plan, see
/// [`super::bake_figure_keyed`]) fit alike: each channel's keys, by clip
/// index, bone, reach (the budget's divisor) and the rest angle the bone
/// is keyed about (its keys are its local angle minus that one, whatever
/// the rest of the drawn pose; see [`bake`] for a bone keyed in its own
/// pose and drawn in another); the figure, route and keyer are the
/// call's, so nothing else they read can differ.
/// Tries baked in parallel share it; two racing tries may fit one channel
/// twice, and either result is the same. (The ideal motion they fit to is
/// the figure's, whatever the call: [`super::ideal::Ideal`].)
#[derive(Default)]
pub(crate) struct Fitted {
    channels: Memo<ChannelKey, Option<Vec<Key>>>,
    /// An `ik` entry's two channels fitted together: clip index, entry,
    /// budget scale's bits, the bits of the two bones' rest angles they are
    /// keyed about.
    pairs: Memo<PairKey, [Option<Vec<Key>>; 2]>,
    /// The clip's other fitted tracks (IK targets' paths, root motion with
    /// a `move`, heads' counter tracks), by what they are fitted from
    /// ([`TrackKey`]).
    tracks: Memo<TrackKey, Vec<Vec<Key>>>,
    /// Per clip and `ik` entry: the earlier entry whose target path this
    /// one follows, and the written delay (see [`target_items`]).
    follows: Memo<(usize, usize), Option<(usize, f64)>>,
}

#[cfg(test)]
impl Fitted {
    /// The clips (by index) anything was fitted for, each once, in order.
    pub(crate) fn clips_keyed(&self) -> Vec<usize> {
        fn keys<K: Clone, V>(m: &Memo<K, V>) -> Vec<K> {
            m.lock()
                .expect("no panic while held")
                .keys()
                .cloned()
                .collect()
        }
        let mut out: Vec<usize> = Vec::new();
        out.extend(keys(&self.channels).iter().map(|k| k.0));
        out.extend(keys(&self.pairs).iter().map(|k| k.0));
        out.extend(keys(&self.follows).iter().map(|k| k.0));
        out.extend(keys(&self.tracks).iter().map(|k| match k {
            TrackKey::Target { clip, .. }
            | TrackKey::Lift { clip, .. }
            | TrackKey::BoneMove { clip, .. }
            | TrackKey::Head { clip, .. } => *clip,
        }));
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A fitted track other than a bone's channel in [`Fitted`]. A target's
/// path and the root motion depend only on the clip (by index) and the
/// call's route and keyer; a head's counter tracks on the written keys
/// they undo, which are part of the key (their `Debug` text: every
/// distinct value, `-0` included, reads differently).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum TrackKey {
    Target {
        clip: usize,
        entry: usize,
        x: bool,
    },
    Lift {
        clip: usize,
        x: bool,
    },
    /// A root bone's `move` offset along one axis.
    BoneMove {
        clip: usize,
        bone: usize,
        x: bool,
    },
    Head {
        clip: usize,
        bone: usize,
        written: String,
    },
}

/// An `ik` entry's two channels in [`Fitted`]: clip index, entry, budget
/// scale's bits, the bits of the two bones' rest angles they are keyed
/// about.
type PairKey = (usize, usize, u64, u64, u64);

/// A fitted channel in [`Fitted`]: clip index, bone, reach's bits, the
/// bits of the rest angle the bone is keyed about.
type ChannelKey = (usize, usize, u64, u64);

pub(crate) type Memo<K, V> = std::sync::Mutex<std::collections::BTreeMap<K, V>>;

/// The value kept under `key`, else `make()` (computed without the lock
/// held, then kept).
pub(crate) fn memo<K: Ord, V: Clone>(m: &Memo<K, V>, key: K, make: impl FnOnce() -> V) -> V {
    if let Some(v) = m.lock().expect("no panic while held").get(&key) {
        return v.clone();
    }
    let v = make();
    m.lock()
        .expect("no panic while held")
        .entry(key)
        .or_insert(v)
        .clone()
}

/// One clip's IK solves by normalised time, as one fit reads them and as
/// kept for the figure ([`super::ideal::Ideal`]): every IK-solved bone of
/// the clip fits its keys at the same times (the unwrap table's grid, the
/// fitter's dense grids), in every try of a reuse plan and every refit, so
/// each time is solved once. An entry that [`fk::solvable_alone`] says so
/// of is solved on its own ([`fk::entry_angles`]: its bones' angles, the
/// same bits for less work), the other IK bones with the whole figure
/// ([`fk::local_angles`]).
pub(super) struct Solves<'a> {
    whole: super::ideal::TimeReader<'a, Vec<f64>>,
    /// Per `ik` entry, where it is solvable alone, its solver and its own
    /// solves.
    entries: Vec<Option<(fk::EntrySolver<'a>, EntrySolves<'a>)>>,
}

/// One `ik` entry's solves ([`fk::entry_angles`]), kept by clip index and
/// entry.
type EntrySolves<'a> = super::ideal::TimeReader<'a, (f64, f64), (usize, usize)>;

impl<'a> Solves<'a> {
    /// The solves of clip `ci` (`clip`) of `fig`.
    pub(super) fn new(
        fig: &'a Figure,
        (ci, clip): (usize, &'a FigClip),
        ideal: &'a super::ideal::Ideal,
    ) -> Self {
        Solves {
            whole: ideal.solves.reader(ci),
            entries: fk::entry_solvers(fig, clip)
                .into_iter()
                .enumerate()
                .map(|(i, solver)| solver.map(|s| (s, ideal.entry_solves.reader((ci, i)))))
                .collect(),
        }
    }

    /// Bone `b`'s local angle at t, radians: an IK bone's kept solve, any
    /// other bone's driver (what the solve would give it).
    pub(super) fn angle(&self, fig: &Figure, clip: &FigClip, b: usize, t: f64) -> f64 {
        let Some(i) = fig.ik.iter().position(|k| k.upper == b || k.lower == b) else {
            return clip.drivers[b].eval(t);
        };
        if let Some((solver, r)) = &self.entries[i] {
            let upper = fig.ik[i].upper == b;
            let pick = |&(u, l): &(f64, f64)| if upper { u } else { l };
            return r.with(t, |t| solver.angles(t), pick);
        }
        self.whole
            .with(t, |t| fk::local_angles(fig, clip, t), |v| v[b])
    }

    /// The local angles of `ik` entry `i`'s upper and lower bones as a
    /// function of t: [`Solves::angle`] of each, read from one kept solve
    /// where the entry is solved alone and neither bone is in an earlier
    /// entry (decided once, not at each time).
    fn pair_angles<'s>(
        &'s self,
        fig: &'s Figure,
        clip: &'s FigClip,
        i: usize,
    ) -> impl Fn(f64) -> (f64, f64) + 's {
        let (u, l) = (fig.ik[i].upper, fig.ik[i].lower);
        let first = |b: usize| fig.ik.iter().position(|k| k.upper == b || k.lower == b);
        let one = (first(u) == Some(i) && first(l) == Some(i))
            .then_some(self.entries[i].as_ref())
            .flatten();
        move |t| match one {
            Some((solver, r)) => r.with(t, |t| solver.angles(t), |&a| a),
            None => (self.angle(fig, clip, u, t), self.angle(fig, clip, l, t)),
        }
    }

    /// Adds what this fit solved to what the figure keeps.
    pub(super) fn keep(self) {
        self.whole.keep();
        for (_, r) in self.entries.into_iter().flatten() {
            r.keep();
        }
    }
}

/// Keys of an IK-solved bone: its local angle (unwrapped continuously from
/// the rest angle over the loop) minus the rest angle, degrees, fitted.
fn ik_bone_keys(
    fig: &Figure,
    clip: &FigClip,
    b: usize,
    reach_px: f64,
    corners: &[f64],
    rk: (Route, Keyer),
    solved: &Solves,
) -> Option<Vec<Key>> {
    let rest = fig.rest_rad[b];
    let raw = |t: f64| solved.angle(fig, clip, b, t);
    // continuous over the loop, starting on the rest angle's turn
    let table = Unwrapped::new(|t| (raw(t), 0.0));
    let a0 = table.at(0.0, (raw(0.0), 0.0)).0;
    let turn = unwrap_near(a0, rest) - a0;
    let f = |t: f64| (table.at(t, (raw(t), 0.0)).0 + turn - rest).to_degrees();
    let budget = (rk.1.budget_px(IK_BUDGET_PX) / reach_px.max(1e-9)).to_degrees();
    let keys = fitted_keys(&f, corners, budget, rk, DEG_DECIMALS);
    keys.iter().any(|k| k.value != 0.0).then_some(keys)
}

/// Keys of `ik` entry `i`'s two bones fitted together ([`fit::pair::Pair`]):
/// each bone's local angle (unwrapped continuously from its rest angle over
/// the loop) minus its rest angle, judged by where the written rotations
/// put the lower bone's tip and the joint against FK of the solved angles,
/// within `budget_px`; the rotation of the parent carries both alike.
/// `None` for a bone that never leaves its rest angle.
fn ik_pair_keys(
    fig: &Figure,
    clip: &FigClip,
    i: usize,
    budget_px: f64,
    corners: &[f64],
    (route, keyer): (Route, Keyer),
    solved: &Solves,
) -> [Option<Vec<Key>>; 2] {
    let (u, l) = (fig.ik[i].upper, fig.ik[i].lower);
    let rest = fk::world_matrices(fig, &fig.rest_rad, 0.0);
    let raw = &solved.pair_angles(fig, clip, i);
    // continuous over the loop, each starting on its rest angle's turn
    let table = Unwrapped::new(raw);
    let a0 = table.at(0.0, raw(0.0));
    let turns = (
        unwrap_near(a0.0, fig.rest_rad[u]) - a0.0 - fig.rest_rad[u],
        unwrap_near(a0.1, fig.rest_rad[l]) - a0.1 - fig.rest_rad[l],
    );
    let local = move |t: f64| {
        let a = table.at(t, raw(t));
        (a.0 + turns.0, a.1 + turns.1)
    };
    let root = rest[u].apply(Vec2::ZERO);
    let joint = rest[l].apply(Vec2::ZERO);
    let end = rest[l].apply(Vec2::new(fig.bones[l].length, 0.0));
    let samples: Vec<fit::pair::PairSample> = (0..=fit::FIT_SAMPLES)
        .map(|k| {
            let a = local(k as f64 / fit::FIT_SAMPLES as f64);
            let j = root + (joint - root).turned(a.0);
            fit::pair::PairSample {
                local: a,
                joint: j,
                end: j + (end - joint).turned(a.0 + a.1),
            }
        })
        .collect();
    let pair = |fit: fit::Fit| {
        fit::pair::Pair::new(
            fit::pair::PairMotion {
                local: Box::new(&local),
                samples: samples.clone(),
                root,
                drawn: [root, joint, end].map(|p| p.quantized(fig.len_decimals)),
                corners: corners.to_vec(),
                judge_joint: true,
                clamp_y: route == Route::Smil,
            },
            fit,
        )
    };
    let css = |k: &[Vec<Key>; 2]| k.iter().map(|k| fit::css_len(k)).sum::<usize>();
    let p = pair(keyer.fit);
    // With the shortest shape, also the fewest uniform linear keys within
    // the budget, lifted off the curve (`Pair::lifted`), written as the
    // stops of a `linear()` easing without positions: a few bytes a key,
    // where a curved key takes dozens. Searched once the curved keys are
    // pruned, only up to the count whose stops (two bytes a value at
    // least, in two sets) would write more than those: the curved keys'
    // last pass only removes keys.
    let linear: std::cell::OnceCell<Option<[Vec<Key>; 2]>> = std::cell::OnceCell::new();
    let linear_within = |curved: usize| {
        linear.get_or_init(|| {
            if !(keyer.shortest_shape && keyer.fit == fit::Fit::Cubic) {
                return None;
            }
            let lp = pair(fit::Fit::Linear).lifted();
            let times = fit::uniform_floor(&lp, budget_px, (curved / 4).min(MAX_FIT_KEYS))?;
            Some([lp.keys(&times, 0), lp.keys(&times, 1)])
        })
    };
    // (the curved keys' last pass, shifting keys to remove more, only
    // where it could bring them under the linear ones: see SHIFT_REACH)
    let within_reach = |times: &[Vec<f64>]| {
        let curved = css(&[p.keys(times, 0), p.keys(times, 1)]);
        linear_within(curved)
            .as_ref()
            .is_none_or(|l| (curved as f64) < SHIFT_REACH * css(l) as f64)
    };
    let times = fit::refine_if(&p, budget_px, MAX_FIT_KEYS, &within_reach);
    let mut keys = [p.keys(&times, 0), p.keys(&times, 1)];
    // (a fit that ended before its last pass has not searched yet)
    if let Some(l) = linear_within(css(&keys))
        .as_ref()
        .filter(|l| css(l) < css(&keys))
    {
        keys = l.clone();
    }
    keys.map(|k| k.iter().any(|k| k.value != 0.0).then_some(k))
}

/// Whether `ik` entry `i`'s end and joint errors are its keys' alone in
/// `clip`: nothing above the pair moves (every ancestor of its upper bone
/// holds a constant angle, is no IK bone and no spring's, and the figure
/// stands still) and no bone hangs from it but its own lower bone. Then
/// no parent's error adds to the pair's and no child's to it (a chain is
/// drawn in world space, whatever it hangs from: `super::add_chains`),
/// and the pair may take the share of the budget a limb written as a
/// morph takes ([`super::morph::BUDGET_SHARE`]) instead of leaving room
/// for them (the bake's tolerance loop still measures the file and
/// tightens on a miss).
pub(crate) fn error_alone(fig: &Figure, clip: &FigClip, i: usize) -> bool {
    let (u, l) = (fig.ik[i].upper, fig.ik[i].lower);
    let ik_bone = |b: usize| fig.ik.iter().any(|k| k.upper == b || k.lower == b);
    let sprung = |b: usize| fig.springs.iter().any(|s| s.bone == b);
    let still = |b: usize| {
        matches!(clip.drivers[b], Driver::Const(_))
            && !ik_bone(b)
            && !sprung(b)
            && fig.bones[b].mv.is_none()
    };
    let mut above = fig.bones[u].parent;
    while let Some(a) = above {
        if !still(a) {
            return false;
        }
        above = fig.bones[a].parent;
    }
    let root = &clip.root;
    root.x.is_none()
        && root.y.is_none()
        && root.squash.is_none()
        && root.mv.is_none()
        && fig
            .bones
            .iter()
            .enumerate()
            .all(|(b, bone)| b == l || (bone.parent != Some(u) && bone.parent != Some(l)))
}

/// How many times the bytes of an IK pair's linear keys its curved keys
/// may write after pruning and still take the pass that shifts keys to
/// remove more ([`fit::refine_if`]); further behind, the linear keys are
/// taken without it. Measured with the pass always taken: on the 1,000
/// generated rigs of `benches/batch.rs` no pair's curved keys came under
/// its linear ones (the least ratio after the pass 1.06), and the pass
/// took a pair's bytes down to 0.58 of the pruned ones at most (in
/// `rigs/`, 0.29, for a pair whose own bones, apart, write fewer). Those
/// rigs and `rigs/` (both routes) bake the same bytes either way, and the
/// 1,000 take about an eighth less time (`cargo bench --bench batch`).
const SHIFT_REACH: f64 = 1.5;

/// Keys of an eased track as written: values through `value` (then rounded
/// to `decimals`), each segment's easing exact, hold keys at 0 and 1 added.
pub fn eased_keys(tr: &EasedTrack, value: impl Fn(f64) -> f64, decimals: u32) -> Vec<Key> {
    let mut keys = Vec::with_capacity(tr.keys.len() + 2);
    let q = |v: f64| quantize(value(v), decimals);
    let (t0, v0) = tr.keys[0];
    if t0 > 0.0 {
        keys.push(Key {
            t: 0.0,
            value: q(v0),
            ease: Ease::Linear,
        });
    }
    for (i, &(t, v)) in tr.keys.iter().enumerate() {
        let ease = match tr.eases.get(i).and_then(|e| e.bezier()) {
            Some(b) => Ease::CubicBezier(b.map(|x| quantize(x, T_DECIMALS))),
            None => Ease::Linear,
        };
        keys.push(Key {
            t: quantize(t, T_DECIMALS),
            value: q(v),
            ease,
        });
    }
    let &(tn, vn) = tr.keys.last().expect("validated: at least one key");
    if tn < 1.0 {
        keys.push(Key {
            t: 1.0,
            value: q(vn),
            ease: Ease::Linear,
        });
    }
    if keys.len() == 1 {
        // a single key at t = 0 or 1: a constant
        let v = keys[0].value;
        keys = constant_keys(v);
    }
    if let Some(last) = keys.last_mut() {
        last.ease = Ease::Linear;
    }
    keys
}

/// A bone's rotation keys (`None`: none, the bone at rest) turned by `d`
/// degrees, at the written rounding: the same motion about a rest pose `d`
/// away.
fn turned(keys: Option<Vec<Key>>, d: f64) -> Option<Vec<Key>> {
    let q = |v: f64| quantize(v, DEG_DECIMALS);
    match keys {
        Some(keys) => Some(
            keys.into_iter()
                .map(|k| Key {
                    value: q(k.value + d),
                    ..k
                })
                .collect(),
        ),
        None => (q(d) != 0.0).then(|| constant_keys(q(d))),
    }
}

/// A track that holds `v` for the whole period (keys at 0 and 1, linear).
fn constant_keys(v: f64) -> Vec<Key> {
    [0.0, 1.0]
        .map(|t| Key {
            t,
            value: v,
            ease: Ease::Linear,
        })
        .to_vec()
}

/// Farthest any point of bone b's subtree can be from b's joint, user units:
/// `reach(b) = max(length_b, max_c |at_c| + reach(c))` over children c.
pub fn reach(fig: &Figure) -> Vec<f64> {
    let mut r: Vec<f64> = fig.bones.iter().map(|b| b.length).collect();
    for c in (0..fig.bones.len()).rev() {
        if let Some(p) = fig.bones[c].parent {
            r[p] = r[p].max(fig.bones[c].at.len() + r[c]);
        }
    }
    r
}

/// Rotation keys (degrees, relative to the rest angle) for one bone, or
/// `None` when the bone never leaves its rest angle.
fn bone_keys(
    driver: &Driver,
    rest_rad: f64,
    reach_px: f64,
    (route, keyer): (Route, Keyer),
) -> Option<Vec<Key>> {
    let deg = |a: f64| (a - rest_rad).to_degrees();
    match driver {
        Driver::Const(a) => {
            let v = quantize(deg(*a), DEG_DECIMALS);
            (v != 0.0).then(|| constant_keys(v))
        }
        Driver::Track(tr) => {
            // exact whatever the keyer asks, `--keys N` too: its holds
            // written as one constant segment each
            let keys = crate::clip::without_flat_keys(eased_keys(tr, deg, DEG_DECIMALS));
            keys.iter().any(|k| k.value != 0.0).then_some(keys)
        }
        Driver::Sine {
            harmonic,
            phase_rad,
            clock,
            ..
        } => {
            let f = |t: f64| deg(driver.eval(t));
            let h = *harmonic as f64;
            let cycles = *harmonic as usize * driver.loop_cycles() as usize;
            // extrema: 2π·h·x + phase = π/2 + kπ, x the time (or the
            // followed gait's cycles, mapped back to time)
            let extrema: Vec<f64> = (0..2 * cycles as i64 + 2)
                .map(|k| {
                    let x = (std::f64::consts::FRAC_PI_2 + k as f64 * std::f64::consts::PI
                        - phase_rad)
                        / (TAU * h);
                    let t = clock.as_ref().map_or(x, |c| c.time_of(x));
                    quantize(t.rem1(), T_DECIMALS)
                })
                .collect();
            Some(keyer.keys(&fit::Curve {
                f: &f,
                fixed: &extrema,
                corners: &[],
                step: 4 * cycles,
                budget: keyer.budget_px(SINE_BUDGET_PX).to_degrees() / reach_px,
                max_keys: MAX_SINE_KEYS,
                clamp_y: route == Route::Smil,
                decimals: DEG_DECIMALS,
                fit: keyer.fit,
            }))
        }
    }
}

/// Whether any channel of the figure is fitted (and so takes a [`Keyer`]'s
/// key count): a sine-driven or IK-solved bone, a `move`, a round head
/// under a squash, an IK target probe, a spring or a Verlet chain. Without
/// one every channel is a constant or an exact eased track.
pub fn has_fitted_channels(fig: &Figure) -> bool {
    let sine = |d: &Driver| matches!(d, Driver::Sine { .. });
    let squash_head = fig.clips.iter().any(|c| c.root.squash.is_some())
        && fig.bones.iter().any(|b| b.head_radius.is_some());
    !fig.ik.is_empty()
        || !fig.springs.is_empty()
        || !fig.chains.is_empty()
        || squash_head
        || fig
            .clips
            .iter()
            .any(|c| c.drivers.iter().any(sine) || moves(c, Axis::X) || moves(c, Axis::Y))
}

/// Which optional root groups the shared structure has (union over clips).
#[derive(Debug, Clone, Copy, Default)]
struct Shape {
    x: bool,
    y: bool,
    squash: Option<Vec2>,
}

/// Whether a clip's `move` changes the given coordinate (dense check).
fn moves(clip: &FigClip, axis: Axis) -> bool {
    (0..=1024).any(|k| {
        let o = fk::move_offset(&clip.root, k as f64 / 1024.0);
        (if axis == Axis::X { o.x } else { o.y }).abs() > 1e-9
    })
}

/// Bake every clip of a figure for one route. All clips share one group
/// structure and drawn pose, so a class-switched css file can draw once.
/// `plan` says which bones play another bone's keys (see [`super::reuse`]);
/// `fig.rest_rad` must be its drawn pose, `own` the same figure in its own
/// rest pose: a bone drawn otherwise whose keys a clip does not share is
/// keyed there as in `own` and its keys turned to the drawn pose.
pub(crate) fn bake(
    name: &str,
    view_box: [f64; 4],
    (own, fig): (&Figure, &Figure),
    (route, keyer): (Route, Keyer),
    plan: &super::reuse::Plan,
    (fitted, ideal): (&Fitted, &super::ideal::Ideal),
) -> Vec<Clip> {
    let shape = Shape {
        x: fig
            .clips
            .iter()
            .any(|c| c.root.x.is_some() || moves(c, Axis::X)),
        y: fig
            .clips
            .iter()
            .any(|c| c.root.y.is_some() || moves(c, Axis::Y)),
        squash: fig.clips.iter().find_map(|c| {
            c.root
                .squash
                .as_ref()
                .map(|s| s.pivot.quantized(fig.len_decimals))
        }),
    };
    // each clip the route writes on its own (in parallel), collected in
    // clip order (the smil route writes the first only: the others are
    // not keyed, as the bake's work estimate counts them)
    use rayon::prelude::*;
    (0..super::written_clips(fig, route))
        .into_par_iter()
        .map(|ci| {
            bake_clip(
                name,
                view_box,
                (own, fig),
                (ci, &fig.clips[ci]),
                (route, keyer),
                shape,
                &plan.shared[ci],
                (&plan.source_scale, fitted, ideal),
            )
        })
        .collect()
}

/// The period of a clip as its animation is written, seconds.
pub(crate) fn written_period(clip: &FigClip) -> f64 {
    quantize(clip.period_s, SEC_DECIMALS)
}

#[allow(clippy::too_many_arguments)]
fn bake_clip(
    name: &str,
    view_box: [f64; 4],
    (own, fig): (&Figure, &Figure),
    (ci, clip): (usize, &FigClip),
    (route, keyer): (Route, Keyer),
    shape: Shape,
    shared: &[Option<super::reuse::Shared>],
    (source_scale, fitted, ideal): (&[f64], &Fitted, &super::ideal::Ideal),
) -> Clip {
    // the drawn pose; on css a root's `depth_offset` (in its `at`) is left
    // out of its subtree's drawing and written once, as its group's
    // translate, so a far side shares its near side's rules (smil writes
    // every animation on its own element: a translate would only add bytes)
    let depth: Vec<Vec2> = (0..fig.bones.len())
        .map(|b| {
            let mut root = b;
            while let Some(p) = fig.bones[root].parent {
                root = p;
            }
            match route {
                Route::Css => fig.bones[root].depth_offset.quantized(fig.len_decimals),
                Route::Smil => Vec2::ZERO,
            }
        })
        .collect();
    let rest: Vec<Affine> = fk::world_matrices(fig, &fig.rest_rad, 0.0)
        .into_iter()
        .zip(&depth)
        .map(|(m, &d)| Affine::translate(Vec2::ZERO - d) * m)
        .collect();
    let reach = reach(fig);
    let colours = colours(fig);
    let radii = super::style::radii(fig);
    let corners = if fig.ik.is_empty()
        && clip.root.mv.is_none()
        && fig.bones.iter().all(|b| b.mv.is_none())
    {
        Vec::new()
    } else {
        ideal.corners(ci, || clip_corners(fig, clip))
    };
    let squash_keys = clip.root.squash.as_ref().map(squash_keys);
    let mut tracks: Vec<Track> = Vec::new();
    let mut infos: Vec<BoneInfo> = Vec::new();
    let mut nodes: Vec<Option<Node>> = Vec::with_capacity(fig.bones.len());
    // an `ik` entry's bones fitted together (to a budget of effector and
    // joint movement); with the shortest shape, that or each bone's channel
    // alone, whichever writes fewer bytes (see `fit` below)
    let joint_keys = matches!(keyer.keys, ChannelKeys::Own | ChannelKeys::Budget(_));
    // a bone's keys, kept in `fitted` (a source of shared keys in this
    // clip may be fitted tighter: its budget times `plan.source_scale`, as
    // if its reach were longer; a pair to the smaller of its bones'
    // scales; in a clip where nothing plays its keys a bone keeps its
    // usual budget)
    let source_scale: Vec<f64> = (0..fig.bones.len())
        .map(|b| {
            if shared.iter().flatten().any(|sh| sh.source == b) {
                source_scale[b]
            } else {
                1.0
            }
        })
        .collect();
    // A bone drawn in another pose than its own (a reused chain, drawn so
    // that the shared keys land on its motion) whose keys are not shared in
    // this clip is keyed as in its own pose and its keys turned by the
    // difference: the clip is written as without reuse but for the
    // rounding of the turned values (a fit in the drawn pose could place
    // other keys, and so move the clip's feet, that no pair plays in).
    let turn_deg: Vec<Option<f64>> = (0..fig.bones.len())
        .map(|b| {
            let (o, d) = (own.rest_rad[b], fig.rest_rad[b]);
            (shared[b].is_none() && o != d).then(|| wrap_pi(o - d).to_degrees())
        })
        .collect();
    // (the figure bone `b` is keyed in, and the pose of an entry's bones)
    let keyed_in = |b: usize| if turn_deg[b].is_some() { own } else { fig };
    let alone = |b: usize, solves: &Solves| {
        let fig = keyed_in(b);
        let reach_b = reach[b] / source_scale[b];
        let key = (ci, b, reach_b.to_bits(), fig.rest_rad[b].to_bits());
        memo(&fitted.channels, key, || {
            if fig.ik.iter().any(|k| k.upper == b || k.lower == b) {
                let rk = (route, keyer);
                ik_bone_keys(fig, clip, b, reach_b, &corners, rk, solves)
            } else {
                bone_keys(&clip.drivers[b], fig.rest_rad[b], reach_b, (route, keyer))
            }
        })
    };
    let fit_own = |b: usize, solves: &Solves| {
        let entry = fig.ik.iter().position(|k| k.upper == b || k.lower == b);
        let Some(i) = entry.filter(|_| joint_keys) else {
            return alone(b, solves);
        };
        let (u, l) = (fig.ik[i].upper, fig.ik[i].lower);
        let scale = source_scale[u].min(source_scale[l]);
        let pose = if turn_deg[u].is_some() || turn_deg[l].is_some() {
            own
        } else {
            fig
        };
        let key = (
            ci,
            i,
            scale.to_bits(),
            pose.rest_rad[u].to_bits(),
            pose.rest_rad[l].to_bits(),
        );
        let pair = memo(&fitted.pairs, key, || {
            let share = if error_alone(fig, clip, i) {
                super::morph::BUDGET_SHARE
            } else {
                1.0
            };
            let budget = keyer.budget_px(IK_BUDGET_PX) * scale * share;
            ik_pair_keys(pose, clip, i, budget, &corners, (route, keyer), solves)
        });
        let side = usize::from(b == l);
        if !keyer.shortest_shape || fig.ik[i].keying == super::file::IkKeying::Pair {
            return pair[side].clone();
        }
        // each bone fitted alone to its own shortest shape, or the two
        // fitted together: whichever writes fewer css bytes for the entry
        // (the same choice for both bones). (The two fitted together in
        // linear segments, a third choice, wrote smaller files for some
        // rigs and larger for others: a reused chain's linear pair keys
        // often fail the far limb's check where its own shortest shapes
        // pass, so the plan fits the source tighter.)
        let apart = [alone(u, solves), alone(l, solves)];
        let len = |keys: &[Option<Vec<Key>>; 2]| -> usize {
            keys.iter().flatten().map(|k| fit::css_len(k)).sum()
        };
        if len(&pair) < len(&apart) {
            pair[side].clone()
        } else {
            apart[side].clone()
        }
    };
    let fit = |b: usize, solves: &Solves| {
        let keys = fit_own(b, solves);
        match turn_deg[b] {
            Some(d) => turned(keys, d),
            None => keys,
        }
    };
    // Every channel of the clip is fitted first, in parallel (the loop
    // below finds them kept): the bones of an `ik` entry solved on its own
    // in one job (they read the same solves), the other IK bones in one
    // (the whole figure's solves), every other channel in a job of its own.
    // Beside them, the IK targets' markers are built once and thrown
    // away: their fitted tracks, which read no bone, are then kept for the
    // markers built below, after every bone; so are a squashed head's
    // counter keys where neither it nor a bone above it is an IK bone or
    // plays shared keys (they read the rotation keys of those bones,
    // fitted again or found kept, as the loop below finds them). The jobs
    // start in order, IK bones (the longest) first, then the markers and
    // heads, then the other channels.
    // bone b and its ancestors, b first
    let up_from = |b: usize| std::iter::successors(Some(b), |&x| fig.bones[x].parent);
    enum Job {
        Bones(Vec<usize>),
        Targets,
        Head(usize),
    }
    // (the IK bones by group: an entry solved alone, or the whole figure)
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: Vec<Option<usize>> = vec![None; fig.ik.len() + 1];
    let mut rest_jobs: Vec<Job> = Vec::new();
    // (a limb written as a morph is keyed by its own fitter, below)
    let morphed = |b: usize| super::morph::entry_of(fig, route, b);
    for b in (0..fig.bones.len()).filter(|&b| shared[b].is_none() && morphed(b).is_none()) {
        let group = fig
            .ik
            .iter()
            .position(|k| k.upper == b || k.lower == b)
            .map(|i| {
                if fk::solvable_alone(fig, i) {
                    i
                } else {
                    fig.ik.len()
                }
            });
        match group {
            Some(g) => match group_of[g] {
                Some(x) => groups[x].push(b),
                None => {
                    group_of[g] = Some(groups.len());
                    groups.push(vec![b]);
                }
            },
            None => rest_jobs.push(Job::Bones(vec![b])),
        }
    }
    let mut jobs: Vec<Job> = groups.into_iter().map(Job::Bones).collect();
    if !fig.ik.is_empty() {
        jobs.push(Job::Targets);
    }
    if shape.squash.is_some() {
        for b in (0..fig.bones.len()).filter(|&b| fig.bones[b].head_radius.is_some()) {
            let unshared = up_from(b).all(|x| shared[x].is_none());
            if unshared && !super::spring::path_has_ik(fig, b) {
                jobs.push(Job::Head(b));
            }
        }
    }
    jobs.extend(rest_jobs);
    let run = |job: &Job| match job {
        Job::Bones(bones) => {
            let solves = Solves::new(fig, (ci, clip), ideal);
            for &b in bones {
                fit(b, &solves);
            }
            solves.keep();
        }
        Job::Targets => {
            let period_s = written_period(clip);
            let keyed = (&corners[..], (route, keyer), (period_s, fitted));
            target_items(fig, (ci, clip), keyed, &mut Vec::new());
        }
        &Job::Head(b) => {
            let solves = Solves::new(fig, (ci, clip), ideal);
            let turns: Vec<Vec<Key>> = up_from(b).filter_map(|a| fit(a, &solves)).collect();
            solves.keep();
            let r = fig.bones[b]
                .head_radius
                .map_or(0.0, |r| quantize(r, fig.len_decimals));
            head_fits(
                &turns,
                squash_keys.as_ref(),
                r,
                (route, keyer),
                (fitted, ci, b),
            );
        }
    };
    rayon::scope_fifo(|s| {
        for job in &jobs {
            s.spawn_fifo(move |_| run(job));
        }
    });
    let solved_at = Solves::new(fig, (ci, clip), ideal);
    for (b, bone) in fig.bones.iter().enumerate() {
        if let Some(i) = morphed(b) {
            // the upper bone's node holds the morph, the lower has none
            let lower = fig.ik[i].lower == b;
            let colour = colours.iter().position(|c| *c == bone.stroke).unwrap_or(0);
            let how = (morph_keys(keyer), colour);
            let parent_rest = bone.parent.map(|p| rest[p]);
            nodes.push((!lower).then(|| super::morph::limb(fig, clip, i, parent_rest, how)));
            infos.push(BoneInfo {
                name: bone.name.clone(),
                tip_probe: lower.then(|| fig.tip_probe(b)),
                track: None,
                drawn: rest[b],
            });
            continue;
        }
        let joint = rest[b].apply(Vec2::ZERO).quantized(fig.len_decimals);
        let tip = rest[b]
            .apply(Vec2::new(bone.length, 0.0))
            .quantized(fig.len_decimals);
        let (track, delay_s) = match shared[b] {
            // the source bone comes earlier: its track is already written
            Some(sh) => (infos[sh.source].track, sh.delay_s),
            None => {
                let keys = fit(b, &solved_at);
                let track = keys.map(|keys| {
                    tracks.push(Track {
                        name: format!("rb-{}-{}", clip.name, bone.name),
                        keys,
                    });
                    tracks.len() - 1
                });
                (track, 0.0)
            }
        };
        let tip_probe = fig.has_tip_probe(b).then(|| fig.tip_probe(b));
        let colour = colours.iter().position(|c| *c == bone.stroke).unwrap_or(0);
        // carried `scene` parts, behind the bone's own drawing
        let mut children: Vec<Item> = fig
            .scene
            .iter()
            .filter(|p| p.bone == Some(b))
            .map(|p| super::scene::item(p, rest[b]))
            .collect();
        children.extend(super::style::bone_items(fig, &radii, b, joint, tip, colour));
        children.extend(tip_probe.clone().map(|name| Item::Probe { name, at: tip }));
        if let Some(r) = bone.head_radius {
            // ancestors' rotation tracks (this bone's own included)
            let mut turns: Vec<usize> = track.into_iter().collect();
            let mut a = bone.parent;
            while let Some(p) = a {
                turns.extend(infos[p].track);
                a = fig.bones[p].parent;
            }
            children.extend(head_items(Head {
                clip: &clip.name,
                bone: &bone.name,
                center: tip,
                r: quantize(r, fig.len_decimals),
                class: format!(
                    "rb-head rb-f{}",
                    colours.iter().position(|c| *c == bone.stroke).unwrap_or(0)
                ),
                squashed: shape.squash.is_some(),
                squash: squash_keys.as_ref(),
                turns: &turns,
                route,
                keyer,
                tracks: &mut tracks,
                fitted: (fitted, ci, b),
            }));
        }
        nodes.push(Some(Node {
            class: Some(format!("rb-b-{}", bone.name)),
            translate: if bone.parent.is_none() {
                depth[b]
            } else {
                Vec2::ZERO
            },
            anim: track.map(|track| Anim::Rotate {
                track,
                origin: joint,
                delay_s,
            }),
            children,
        }));
        infos.push(BoneInfo {
            name: bone.name.clone(),
            tip_probe,
            track,
            drawn: rest[b],
        });
    }
    solved_at.keep();
    // Build subtrees last bone first: when bone b is reached every later
    // bone (all of b's descendants) is complete; children keep file order
    // and are drawn after (over) their parent's own drawing, except where
    // the style puts the far side behind it ([`super::style::assemble`]).
    for b in (0..fig.bones.len()).rev() {
        let kids: Vec<(usize, Item)> = (b + 1..fig.bones.len())
            .filter(|&c| fig.bones[c].parent == Some(b))
            .filter_map(|c| nodes[c].take().map(|n| (c, super::morph::in_parent(n))))
            .collect();
        if let Some(n) = nodes[b].as_mut() {
            super::style::assemble(fig, b, &mut n.children, kids);
        }
    }
    let roots: Vec<(usize, Item)> = (0..fig.bones.len())
        .filter(|&b| fig.bones[b].parent.is_none())
        .filter_map(|b| {
            let node = nodes[b].take()?;
            let keyed = (ci, b, &corners[..], (route, keyer), fitted);
            Some((b, bone_move(fig, clip, keyed, node, &mut tracks)))
        })
        .collect();
    let roots = super::style::order_roots(fig, roots);
    let mut inner = roots;
    let wrap = |class: &str, anim: Option<Anim>, children: Vec<Item>| {
        vec![Item::Group(Node {
            class: Some(class.into()),
            translate: Vec2::ZERO,
            anim,
            children,
        })]
    };
    let lift = |axis: Axis, tr: &Option<EasedTrack>, tracks: &mut Vec<Track>| {
        let keys = if moves(clip, axis) {
            // eased track plus `move`: no exact form, fitted
            let f = |t: f64| {
                let o = fk::move_offset(&clip.root, t);
                let m = if axis == Axis::X { o.x } else { o.y };
                m + tr.as_ref().map_or(0.0, |tr| tr.eval(t))
            };
            let key = TrackKey::Lift {
                clip: ci,
                x: axis == Axis::X,
            };
            let fit = || {
                let budget = keyer.budget_px(MOVE_BUDGET_PX);
                vec![fitted_keys(
                    &f,
                    &corners,
                    budget,
                    (route, keyer),
                    fig.len_decimals,
                )]
            };
            memo(&fitted.tracks, key, fit).pop()
        } else {
            tr.as_ref()
                .map(|tr| crate::clip::without_flat_keys(eased_keys(tr, |v| v, fig.len_decimals)))
        };
        keys.map(|keys| {
            tracks.push(Track {
                name: format!(
                    "rb-{}-lift-{}",
                    clip.name,
                    if axis == Axis::X { "x" } else { "y" }
                ),
                keys,
            });
            Anim::Translate {
                track: tracks.len() - 1,
                axis,
                delay_s: 0.0,
            }
        })
    };
    if shape.y {
        let anim = lift(Axis::Y, &clip.root.y, &mut tracks);
        inner = wrap("rb-lift-y", anim, inner);
    }
    if shape.x {
        let anim = lift(Axis::X, &clip.root.x, &mut tracks);
        inner = wrap("rb-lift-x", anim, inner);
    }
    if let Some(pivot) = shape.squash {
        let anim = squash_keys.map(|(sx, sy)| {
            tracks.push(Track {
                name: format!("rb-{}-squash-x", clip.name),
                keys: sx,
            });
            tracks.push(Track {
                name: format!("rb-{}-squash-y", clip.name),
                keys: sy,
            });
            Anim::Scale {
                sx: tracks.len() - 2,
                sy: tracks.len() - 1,
                delay_s: 0.0,
            }
        });
        let unpivot = Node {
            translate: pivot * -1.0,
            children: inner,
            ..Node::default()
        };
        let squash = wrap("rb-squash", anim, vec![Item::Group(unpivot)]);
        inner = vec![Item::Group(Node {
            translate: pivot,
            children: squash,
            ..Node::default()
        })];
    }
    if let Some(g) = &fig.ground {
        // world space, behind the figure, outside root motion; one row of
        // dots for every clip, each clip scrolling it at its own speed
        // a keyed (timed gait's) row wraps: it moves one spacing at most
        let span = |c: &super::model::FigClip| match c.ground_keys.is_empty() {
            true => c.ground_speed_px_s * c.period_s,
            false => fig.ground_spacing_px,
        };
        let max_travel = fig.clips.iter().map(span).fold(0.0, f64::max);
        let travel = clip.ground_speed_px_s * clip.period_s;
        let ground = crate::chain::spaced_ground_node(
            g,
            fig.ground_spacing_px,
            (travel, max_travel),
            (!clip.ground_keys.is_empty()).then(|| (&clip.ground_keys[..], written_period(clip))),
            &mut tracks,
        );
        if fig.switched {
            // the track's name is scoped to the clip like every other track
            if let Some(t) = tracks.last_mut() {
                t.name = format!("rb-{}-ground", clip.name);
            }
        }
        inner.insert(0, Item::Group(ground));
    }
    let period_s = written_period(clip);
    let keyed = (&corners[..], (route, keyer), (period_s, fitted));
    let targets = target_items(fig, (ci, clip), keyed, &mut tracks);
    let tips: Vec<Option<String>> = infos.iter().map(|i| i.tip_probe.clone()).collect();
    let decimals = fig.len_decimals;
    let (targets, aliases) = into_turning_bones(targets, &mut inner, &tracks, &tips, decimals);
    let targets = into_carrying_groups(targets, &mut inner, (&tracks, period_s, route), decimals);
    for (tip, target) in aliases {
        for info in infos
            .iter_mut()
            .filter(|i| i.tip_probe.as_ref() == Some(&tip))
        {
            info.tip_probe = Some(target.clone());
        }
    }
    if fig.style.look == super::style::Look::Limbs {
        // behind the limbs (in front of the ground)
        let at = usize::from(fig.ground.is_some());
        inner.splice(at..at, targets);
    } else {
        inner.extend(targets);
    }
    scene_layers(fig, &mut inner);
    let mut written = Clip {
        name: name.to_string(),
        route,
        period_s,
        view_box,
        tracks,
        root: Node {
            children: inner,
            ..Node::default()
        },
        legs: Vec::new(),
        figure: Some(FigureInfo {
            clip: clip.name.clone(),
            play: clip.play,
            bones: infos,
        }),
        ground_wrap_px: (fig.ground.is_some() && !clip.ground_keys.is_empty())
            .then_some(fig.ground_spacing_px),
    };
    // (springs and Verlet chains, added later, keep one key-time set per
    // spring or chain; `--keys N` writes its N uniform keys as asked)
    if !matches!(keyer.keys, ChannelKeys::Uniform(_)) {
        written.drop_flat_keys();
    }
    written
}

/// How a limb written as a morph ([`super::morph`]) is keyed for `keyer`:
/// a budget is the effector's (a bake without keying options: the default
/// goal, [`crate::fit::DEFAULT_TOLERANCE_PX`]).
fn morph_keys(keyer: Keyer) -> super::morph::MorphKeys {
    use super::morph::MorphKeys;
    match keyer.keys {
        ChannelKeys::Uniform(n) => MorphKeys::Uniform(n),
        ChannelKeys::Placed(n) => MorphKeys::Placed(n),
        ChannelKeys::Budget(px) => MorphKeys::Within(px * super::morph::BUDGET_SHARE),
        ChannelKeys::Own => MorphKeys::Within(crate::fit::DEFAULT_TOLERANCE_PX),
    }
}

/// The target groups of `targets` that turn exactly as a bone's group of
/// `inner` does (a circle target's group, see [`target_items`], under a
/// crank bone that carries its pedal round it: the same keys about the same
/// point, no delay, and nothing above the bone's group moving) give their
/// probe to that group: the same motion, one group fewer. A target drawn
/// with a disc (the `limbs` look) keeps its group, so the disc stays behind
/// every limb. The others are returned as they are.
///
/// Of the groups that turn so, the one whose bone's tip probe (one of
/// `tips`) is drawn where the target probe is takes it (a crank's tip is
/// its pedal, the target): that tip probe is then left out, the two moving
/// alike, and the bone reads its tip from the target probe. Returned with
/// the targets left: each `(tip probe, target probe)` so merged. A probe
/// moved into another group is drawn there rounded to `decimals` places
/// ([`Figure::len_decimals`]).
fn into_turning_bones(
    targets: Vec<Item>,
    inner: &mut [Item],
    tracks: &[Track],
    tips: &[Option<String>],
    decimals: u32,
) -> (Vec<Item>, Vec<(String, String)>) {
    /// Every group down `items`, reached through still groups only (a
    /// static translate, such as a root's `depth_offset`, is still), that
    /// turns by `keys` about `origin` (user space) with no delay, in
    /// drawing order, with the translation above its content.
    fn find<'a>(
        items: &'a mut [Item],
        (keys, origin): (&[Key], Vec2),
        tracks: &[Track],
        above: Vec2,
        out: &mut Vec<(&'a mut Node, Vec2)>,
    ) {
        for item in items {
            let Item::Group(node) = item else { continue };
            // (a node's translate is outside its animation)
            let at = above + node.translate;
            match node.anim {
                Some(Anim::Rotate {
                    track,
                    origin: o,
                    delay_s,
                }) if (o + at).dist(origin) < 1e-9
                    && delay_s == 0.0
                    && tracks[track].keys == keys =>
                {
                    out.push((node, at));
                }
                None => find(&mut node.children, (keys, origin), tracks, at, out),
                _ => {}
            }
        }
    }
    // the tip probe of `node`'s own bone drawn at `at`, if any
    let tip_at = |node: &Node, at: Vec2| {
        node.children.iter().position(|c| {
            matches!(c, Item::Probe { name, at: p }
                if *p == at && tips.iter().flatten().any(|t| t == name))
        })
    };
    let mut rest = Vec::new();
    let mut aliases = Vec::new();
    for item in targets {
        let turning = match &item {
            Item::Group(Node {
                anim:
                    Some(Anim::Rotate {
                        track,
                        origin,
                        delay_s,
                    }),
                translate,
                children,
                ..
            }) if *delay_s == 0.0
                && *translate == Vec2::ZERO
                && children.iter().all(|c| matches!(c, Item::Probe { .. })) =>
            {
                Some((*track, *origin))
            }
            _ => None,
        };
        let mut groups = Vec::new();
        if let Some((t, o)) = turning {
            find(inner, (&tracks[t].keys, o), tracks, Vec2::ZERO, &mut groups);
        }
        let (Item::Group(g), false) = (&item, groups.is_empty()) else {
            rest.push(item);
            continue;
        };
        // (a target group holds its one probe) where each group draws it
        let local = |at: Vec2, above: Vec2| (at - above).quantized(decimals);
        let probe = g.children.iter().find_map(|c| match c {
            Item::Probe { name, at } => Some((name.clone(), *at)),
            _ => None,
        });
        let at_tip = probe.as_ref().and_then(|(_, at)| {
            groups
                .iter()
                .position(|(n, above)| tip_at(n, local(*at, *above)).is_some())
        });
        let (bone, above) = groups.swap_remove(at_tip.unwrap_or(0));
        if let (Some(_), Some((target, at))) = (at_tip, &probe) {
            let k = tip_at(bone, local(*at, above)).expect("found above");
            if let Item::Probe { name, .. } = bone.children.remove(k) {
                aliases.push((name, target.clone()));
            }
        }
        let Item::Group(g) = item else { unreachable!() };
        let moved = g.children.into_iter().map(|c| match c {
            Item::Probe { name, at } => Item::Probe {
                name,
                at: local(at, above),
            },
            c => c,
        });
        bone.children.splice(0..0, moved);
    }
    (rest, aliases)
}

/// Samples per period at which [`into_carrying_groups`] compares a target
/// probe's path with a group's motion (besides every key time).
const CARRY_SAMPLES: usize = 256;
/// Largest difference, px, between a target probe's path and the path of
/// the point a group carries for it: the two are the same motion.
const CARRY_TOLERANCE_PX: f64 = 1e-6;

/// Each target group of `targets` that holds one probe, when a group of
/// `inner` carries a point along exactly the probe's path (a circle target
/// offset from its pedal, riding the pedal bone that turns with the crank
/// and back: a point of the pedal's group translates round the target's
/// circle), gives its probe to that group, drawn at that point: the same
/// motion, one group fewer. The first such group in drawing order takes
/// it; the path is compared at every key time and [`CARRY_SAMPLES`] more,
/// within [`CARRY_TOLERANCE_PX`], with the point as written (rounded to
/// `decimals` places, [`Figure::len_decimals`]). The others are returned
/// as they are.
fn into_carrying_groups(
    targets: Vec<Item>,
    inner: &mut [Item],
    (tracks, period_s, route): (&[Track], f64, Route),
    decimals: u32,
) -> Vec<Item> {
    use crate::measure::group_matrix;
    // a moving group holding one probe, the only kind that may be carried
    let lone_probe = |item: &Item| {
        matches!(item, Item::Group(g)
            if g.anim.is_some() && matches!(g.children.as_slice(), [Item::Probe { .. }]))
    };
    if !targets.iter().any(lone_probe) {
        return targets;
    }
    let timing = Clip {
        name: String::new(),
        route,
        period_s,
        view_box: [0.0; 4],
        tracks: tracks.to_vec(),
        root: Node::default(),
        legs: Vec::new(),
        figure: None,
        ground_wrap_px: None,
    };
    let mut ts: Vec<f64> = (0..CARRY_SAMPLES)
        .map(|k| k as f64 / CARRY_SAMPLES as f64)
        .chain(tracks.iter().flat_map(|t| t.keys.iter().map(|k| k.t)))
        .map(|u| u * period_s)
        .collect();
    ts.sort_by(f64::total_cmp);
    ts.dedup();
    /// The index path and written point of the first group down `items`
    /// (each `above` the composed matrices at `ts`) whose motion carries a
    /// point along `path`.
    fn find(
        items: &[Item],
        (timing, ts): (&Clip, &[f64]),
        above: &[Affine],
        (path, decimals): (&[Vec2], u32),
    ) -> Option<(Vec<usize>, Vec2)> {
        for (i, item) in items.iter().enumerate() {
            let Item::Group(node) = item else { continue };
            let m: Vec<Affine> = ts
                .iter()
                .zip(above)
                .map(|(&t, a)| *a * group_matrix(timing, node, t))
                .collect();
            // the point drawn where the probe starts, as written
            let at = node
                .anim
                .as_ref()
                .and_then(|_| m[0].checked_inverse())
                .map(|inv| inv.apply(path[0]).quantized(decimals));
            if let Some(at) = at
                && m.iter()
                    .zip(path)
                    .all(|(mt, p)| mt.apply(at).dist(*p) <= CARRY_TOLERANCE_PX)
            {
                return Some((vec![i], at));
            }
            if let Some((mut to, at)) = find(&node.children, (timing, ts), &m, (path, decimals)) {
                to.insert(0, i);
                return Some((to, at));
            }
        }
        None
    }
    let mut rest = Vec::new();
    for item in targets {
        let carried = match &item {
            Item::Group(g) if lone_probe(&item) => {
                let [Item::Probe { name, at }] = g.children.as_slice() else {
                    unreachable!("a lone probe")
                };
                let path: Vec<Vec2> = ts
                    .iter()
                    .map(|&t| group_matrix(&timing, g, t).apply(*at))
                    .collect();
                let above = vec![Affine::IDENTITY; ts.len()];
                find(inner, (&timing, &ts), &above, (&path, decimals)).map(|f| (name.clone(), f))
            }
            _ => None,
        };
        let Some((name, (to, at))) = carried else {
            rest.push(item);
            continue;
        };
        node_at(inner, &to)
            .children
            .insert(0, Item::Probe { name, at });
    }
    rest
}

/// The group at index path `to` down `items`.
fn node_at<'a>(items: &'a mut [Item], to: &[usize]) -> &'a mut Node {
    let Item::Group(g) = &mut items[to[0]] else {
        unreachable!("an index path of groups")
    };
    if to.len() == 1 {
        g
    } else {
        node_at(&mut g.children, &to[1..])
    }
}

/// Root bone b's group, inside translate groups (x outside, y inside) that
/// carry it by its `move` offset `mv(t) − mv(0)` on fitted keys (within
/// [`MOVE_BUDGET_PX`]), an axis that never moves left out; the group
/// itself without a `move`. The shape depends on the trajectory alone, so
/// every clip of a class-switched file writes the same groups.
fn bone_move(
    fig: &Figure,
    clip: &FigClip,
    (ci, b, corners, (route, keyer), fitted): (usize, usize, &[f64], (Route, Keyer), &Fitted),
    node: Node,
    tracks: &mut Vec<Track>,
) -> Item {
    let bone = &fig.bones[b];
    if bone.mv.is_none() {
        return Item::Group(node);
    }
    let moved = Moved {
        offset: &|t| bone.joint_at(t) - bone.at,
        corners,
        own_px: MOVE_BUDGET_PX,
        key: &|x| TrackKey::BoneMove {
            clip: ci,
            bone: b,
            x,
        },
        track: &|tag| format!("rb-{}-{}-move-{tag}", clip.name, bone.name),
        class: &|tag| format!("rb-m-{}-{tag}", bone.name),
        // (a bone's `move` is the rig's, the same in every clip)
        every_axis: false,
        decimals: fig.len_decimals,
    };
    let (mut items, _) = moved.wrap(vec![Item::Group(node)], (route, keyer, fitted), tracks);
    items.pop().expect("one item, wrapped or not")
}

/// A group moved by a fitted offset: a root bone's `move`, an IK target
/// probe along its target.
struct Moved<'a> {
    /// The offset at normalised time t, px.
    offset: &'a dyn Fn(f64) -> Vec2,
    corners: &'a [f64],
    /// The channel's own budget, px ([`Keyer::budget_px`]).
    own_px: f64,
    /// Where an axis' keys are kept in [`Fitted`] (`x`: the X axis).
    key: &'a dyn Fn(bool) -> TrackKey,
    /// The track's and the group's names for an axis' tag (`x`, `y`).
    track: &'a dyn Fn(&str) -> String,
    class: &'a dyn Fn(&str) -> String,
    /// Write both axes' groups, one that never moves without an
    /// animation (a class-switched file: another clip may move it).
    every_axis: bool,
    /// The places its keys are rounded to ([`Figure::len_decimals`]).
    decimals: u32,
}

/// A translate group's axis, tag (`x`, `y`) and track (`None`: still).
type AxisGroup = (Axis, &'static str, Option<usize>);

impl Moved<'_> {
    /// `item` inside translate groups, X outside and Y inside, each on
    /// keys fitted to the offset along its axis (an axis that never moves
    /// left out, or still with [`Moved::every_axis`]); and the (axis, tag,
    /// track) of each group, innermost first.
    fn wrap(
        &self,
        items: Vec<Item>,
        (route, keyer, fitted): (Route, Keyer, &Fitted),
        tracks: &mut Vec<Track>,
    ) -> (Vec<Item>, Vec<AxisGroup>) {
        let mut items = items;
        let mut written = Vec::new();
        for (axis, tag) in [(Axis::Y, "y"), (Axis::X, "x")] {
            let f = |t: f64| {
                let d = (self.offset)(t);
                if axis == Axis::X { d.x } else { d.y }
            };
            if (0..=1024).all(|j| f(j as f64 / 1024.0).abs() < 1e-9) {
                if self.every_axis {
                    written.push((axis, tag, None));
                    items = vec![translated((self.class)(tag), (None, axis, 0.0), items)];
                }
                continue;
            }
            let fit = || {
                let budget = keyer.budget_px(self.own_px);
                let rk = (route, keyer);
                vec![fitted_keys(&f, self.corners, budget, rk, self.decimals)]
            };
            let key = (self.key)(axis == Axis::X);
            let keys = memo(&fitted.tracks, key, fit).pop().expect("one track");
            tracks.push(Track {
                name: (self.track)(tag),
                keys,
            });
            written.push((axis, tag, Some(tracks.len() - 1)));
            items = vec![translated(
                (self.class)(tag),
                (Some(tracks.len() - 1), axis, 0.0),
                items,
            )];
        }
        (items, written)
    }
}

/// `children` in a group of class `class` translated along `axis` by
/// track `track` (still without one), played `delay_s` late.
fn translated(
    class: String,
    (track, axis, delay_s): (Option<usize>, Axis, f64),
    children: Vec<Item>,
) -> Item {
    Item::Group(Node {
        class: Some(class),
        translate: Vec2::ZERO,
        anim: track.map(|track| Anim::Translate {
            track,
            axis,
            delay_s,
        }),
        children,
    })
}

/// Static `scene` parts: `"back"` ones before everything (the ground
/// included), `"front"` ones after.
fn scene_layers(fig: &Figure, inner: &mut Vec<Item>) {
    use super::file::LayerName;
    let back = super::scene::static_items(&fig.scene, LayerName::Back);
    inner.splice(0..0, back);
    inner.extend(super::scene::static_items(&fig.scene, LayerName::Front));
}

/// Translation error allowed to the fitted keys of an IK target probe, px.
pub const TARGET_BUDGET_PX: f64 = 0.02;

/// A limbs-look target disc's radius per width of its lower bone (the
/// `ik_chains` marker's).
pub const TARGET_DISC: f64 = 0.6;

/// Every `ik` entry's target probe `<lower>-target` (`<name>-target` for a
/// named entry; in the limbs look under a disc): a zero-radius circle at
/// the target the entry asks for (user space, outside root motion; for
/// `"reach": "pull"` the target before any pull), moved along it by fitted
/// translate keys (x, then y inside), within [`TARGET_BUDGET_PX`]; a `path`
/// target of a lone looping clip rides on the written path itself
/// ([`crate::chain::exact_marker`]). With the
/// effector probe `<lower>-tip` (`<name>-ankle`) beside it, any tool can measure the foot (or
/// hand) against its target from the file alone. On the css route a
/// target that follows an earlier one's path shifted in phase (a far foot)
/// plays that one's keys with a negative delay, as reused bone chains do
/// (see [`super::reuse`]).
fn target_items(
    fig: &Figure,
    (ci, fc): (usize, &FigClip),
    (corners, (route, keyer), (period_s, fitted)): (&[f64], (Route, Keyer), (f64, &Fitted)),
    tracks: &mut Vec<Track>,
) -> Vec<Item> {
    let clip = fc.name.as_str();
    use super::reuse::{GRID, REUSE_TOLERANCE_PX};
    let mut out = Vec::new();
    // per entry: its translate groups (axis, tag, track), innermost first
    let mut written: Vec<Vec<AxisGroup>> = Vec::new();
    // per entry: whether its probe rides on its written path (then no
    // later entry can play its keys)
    let mut exact_at: Vec<bool> = Vec::new();
    let at_in = |c: usize, i: usize, t: f64| fig.clips[c].targets[i].at(t.rem1());
    let at = |i: usize, t: f64| at_in(ci, i, t);
    // an earlier target of clip c whose path entry j's follows, shifted:
    // its index and the written delay (clip c's)
    let follows_in = |c: usize, j: usize, exact_at: &[bool]| {
        let period_s = written_period(&fig.clips[c]);
        memo(&fitted.follows, (c, j), || {
            (0..j).filter(|&i| !exact_at[i]).find_map(|i| {
                let s = (0..GRID).map(|g| g as f64 / GRID as f64).find(|&s| {
                    (0..GRID).all(|g| {
                        let t = g as f64 / GRID as f64;
                        (at_in(c, j, t) - at_in(c, i, t + s)).len() <= REUSE_TOLERANCE_PX
                    })
                })?;
                let delay_s = quantize(-s * period_s, SEC_DECIMALS);
                let s = -delay_s / period_s;
                (0..4096)
                    .all(|g| {
                        let t = g as f64 / 4096.0;
                        (at_in(c, j, t) - at_in(c, i, t + s)).len() <= REUSE_TOLERANCE_PX
                    })
                    .then_some((i, delay_s))
            })
        })
    };
    // A class-switched file draws every marker once, where the first clip
    // draws it (where the target it follows starts, else where its own
    // does), and every clip moves it from there: the point each marker's
    // offsets are keyed from (unrounded), by entry. (A lone clip draws its
    // markers where its own targets start.)
    let switched_from: Vec<Vec2> = if fig.switched && route == Route::Css {
        let none = vec![false; fig.ik.len()];
        let first_loops = fig.clips[0].play == crate::clip::Play::Loop;
        (0..fig.ik.len())
            .map(|j| {
                let follows = first_loops.then(|| follows_in(0, j, &none)).flatten();
                at_in(0, follows.map_or(j, |(i, _)| i), 0.0)
            })
            .collect()
    } else {
        Vec::new()
    };
    let q = |p: Vec2| p.quantized(fig.len_decimals);
    for j in 0..fig.ik.len() {
        let target = &fc.targets[j];
        // the entry's name, else its lower bone's
        let stem = fig.ik_stem(j);
        // the target probe at `at`, behind a disc in the limbs look
        let marked = |at: Vec2| {
            let mut v = Vec::with_capacity(2);
            if fig.style.look == super::style::Look::Limbs && fig.style.joint_fill.is_some() {
                v.push(Item::Circle {
                    center: at,
                    r: quantize(fig.bones[fig.ik[j].lower].width * TARGET_DISC, 1),
                    class: "rb-joint".into(),
                });
            }
            v.push(Item::Probe {
                name: fig.target_probe(j),
                at,
            });
            v
        };
        // a path target of a lone looping clip rides on the written path
        // itself, as an `ik_chains` marker does: exact, and no keys (a
        // class-switched or one-shot clip keeps keyed translations, the
        // groups every clip shares)
        //
        // a circle target of a lone looping clip (a pedal) turns about its
        // centre once per period, as a crank does: exact to the rounding
        // of the drawn point (0.005 px per axis), and two keys; it is drawn
        // where the target starts (so a still picture of the file, an
        // editor's, shows it there)
        let lone_loop = !fig.switched && fc.play == crate::clip::Play::Loop;
        let exact = lone_loop
            .then(|| {
                if let Some(anim) =
                    crate::chain::exact_marker(target, ChainReach::Error, route, period_s)
                {
                    return Some((anim, Vec2::ZERO));
                }
                let (center, r, start, sign) = target.as_circle()?;
                let center = q(center);
                tracks.push(Track::full_turn(format!("rb-t-{stem}"), sign));
                let anim = Anim::Rotate {
                    track: tracks.len() - 1,
                    origin: center,
                    delay_s: 0.0,
                };
                Some((anim, q(center + Vec2::from_angle(start) * r)))
            })
            .flatten();
        if let Some((anim, at)) = exact {
            out.push(Item::Group(Node {
                class: Some(format!("rb-t-{stem}")),
                translate: Vec2::ZERO,
                anim: Some(anim),
                children: marked(at),
            }));
            written.push(Vec::new());
            exact_at.push(true);
            continue;
        }
        exact_at.push(false);
        // where the marker is drawn (unrounded): its offsets are keyed
        // from there
        let p0 = switched_from
            .get(j)
            .copied()
            .unwrap_or_else(|| target.at(0.0));
        // an earlier target whose path this one follows, shifted by s (in
        // a switched file only one drawn at the same point: the source's
        // offsets are keyed from there); never in a one-shot clip, whose
        // `1 forwards` animation a negative delay would end early and hold
        let follows = (route == Route::Css && fc.play == crate::clip::Play::Loop)
            .then(|| follows_in(ci, j, &exact_at))
            .flatten()
            .filter(|&(i, _)| {
                switched_from.is_empty() || q(switched_from[i]) == q(switched_from[j])
            });
        // a lone clip's marker is drawn where its source starts, so the
        // source's keys played `delay_s` late land on its own path
        let drawn = if switched_from.is_empty() {
            follows.map_or(p0, |(i, _)| at(i, 0.0))
        } else {
            p0
        };
        let mut items = marked(q(drawn));
        if let Some((i, delay_s)) = follows {
            for &(axis, tag, track) in &written[i] {
                items = vec![translated(
                    format!("rb-t-{stem}-{tag}"),
                    (track, axis, delay_s),
                    items,
                )];
            }
            written.push(written[i].clone());
            out.extend(items);
            continue;
        }
        let mut cs = corners.to_vec();
        cs.extend(
            target
                .corners()
                .into_iter()
                .map(|t| quantize(t, T_DECIMALS)),
        );
        cs.push(0.0);
        cs.sort_by(f64::total_cmp);
        cs.dedup();
        let moved = Moved {
            offset: &|t| target.at(t) - p0,
            corners: &cs,
            own_px: TARGET_BUDGET_PX,
            key: &|x| TrackKey::Target {
                clip: ci,
                entry: j,
                x,
            },
            track: &|tag| format!("rb-{clip}-{stem}-target-{tag}"),
            class: &|tag| format!("rb-t-{stem}-{tag}"),
            every_axis: !switched_from.is_empty(),
            decimals: fig.len_decimals,
        };
        let (moved_items, mine) = moved.wrap(items, (route, keyer, fitted), tracks);
        written.push(mine);
        out.extend(moved_items);
    }
    out
}

/// The written squash tracks `(sx, sy)`: sy's eased keys, and
/// `sx = 1 + (1 − sy) · k` at the same times with the same easings.
fn squash_keys(s: &super::model::Squash) -> (Vec<Key>, Vec<Key>) {
    let sy = eased_keys(&s.sy, |v| v, T_DECIMALS);
    let sx = sy
        .iter()
        .map(|k| Key {
            value: quantize(1.0 + (1.0 - k.value) * s.k, T_DECIMALS),
            ..*k
        })
        .collect();
    (sx, sy)
}

/// Rim error allowed to a head's fitted counter-rotation and counter-scale
/// keys together, px (the fitter's dense estimates; half to the rotation, a
/// quarter to each axis' scale). The measure stage re-checks the rim probes.
pub const HEAD_BUDGET_PX: f64 = 0.02;

/// What [`head_items`] needs.
struct Head<'a> {
    clip: &'a str,
    bone: &'a str,
    /// The drawn tip (rest pose, user space), the circle's centre.
    center: Vec2,
    r: f64,
    class: String,
    /// The shared structure has a squash (any clip).
    squashed: bool,
    /// This clip's written squash tracks `(sx, sy)`.
    squash: Option<&'a (Vec<Key>, Vec<Key>)>,
    /// Rotation tracks (degrees, relative to the drawn pose) of the head
    /// bone and all its ancestors: their sum is the total turn Φ.
    turns: &'a [usize],
    route: Route,
    keyer: Keyer,
    tracks: &'a mut Vec<Track>,
    /// Where the counter tracks are kept, by clip index and bone.
    fitted: (&'a Fitted, usize, usize),
}

/// A round head: a filled circle at `center` with probes `<bone>-rim-x`
/// and `<bone>-rim-y` at `center + (r, 0)` and `center + (0, r)`.
///
/// Without a squash in the structure that is all (a rotation leaves a
/// circle a circle). Under a squash `S = diag(sx, sy)` the circle sits in
/// the bone's innermost group, whose linear part is `S · R(Φ)`; it is
/// wrapped in `rotate(−Φ)` about the centre, then (placed by a static
/// translate to the centre) `scale(m/sx, 1)` and `scale(1, m/sy)`,
/// `m = (sx + sy)/2`, so the circle's linear part is
/// `S · R(Φ) · R(−Φ) · diag(m/sx, m/sy) = m · I`: round, radius `m · r`,
/// centre fixed. Φ is the sum of the written rotation tracks and sx, sy
/// the written squash tracks; none of the three curves has an exact
/// timing-function form, so each is fitted
/// ([`crate::fit::fewest_uniform`], their key times as corners)
/// within its share of [`HEAD_BUDGET_PX`]. Each scale group animates one
/// axis: the other axis' track holds 1 with the same keys and easings (a
/// `scale:` keyframe writes both values with one timing function). The
/// groups are shared by every clip: a clip without a squash still turns
/// back by −Φ (so its rim probes stay axis-aligned) and leaves the scale
/// groups still.
fn head_items(h: Head) -> Vec<Item> {
    let c = h.center;
    let circle = |at: Vec2| Item::Circle {
        center: at,
        r: h.r,
        class: h.class.clone(),
    };
    let rim = |at: Vec2| {
        [
            Item::Probe {
                name: format!("{}-rim-x", h.bone),
                at: at + Vec2::new(h.r, 0.0),
            },
            Item::Probe {
                name: format!("{}-rim-y", h.bone),
                at: at + Vec2::new(0.0, h.r),
            },
        ]
    };
    if !h.squashed {
        let mut v = vec![circle(c)];
        v.extend(rim(c));
        return v;
    }
    // the written rotation tracks
    let turns: Vec<Vec<Key>> = h.turns.iter().map(|&i| h.tracks[i].keys.clone()).collect();
    let mut fits = head_fits(&turns, h.squash, h.r, (h.route, h.keyer), h.fitted).into_iter();
    let rot_keys = fits.next().expect("the rotation's keys");
    let rot = rot_keys.iter().any(|k| k.value != 0.0).then(|| {
        h.tracks.push(Track {
            name: format!("rb-{}-{}-head-turn", h.clip, h.bone),
            keys: rot_keys,
        });
        Anim::Rotate {
            track: h.tracks.len() - 1,
            origin: c,
            delay_s: 0.0,
        }
    });
    let (scale_x, scale_y) = match h.squash {
        None => (None, None),
        Some(_) => {
            let kx = fits.next().expect("the x scale's keys");
            let ky = fits.next().expect("the y scale's keys");
            let ones = |keys: &[Key]| -> Vec<Key> {
                keys.iter().map(|k| Key { value: 1.0, ..*k }).collect()
            };
            let (ox, oy) = (ones(&kx), ones(&ky));
            let mut push = |name: &str, keys: Vec<Key>| {
                h.tracks.push(Track {
                    name: format!("rb-{}-{}-{name}", h.clip, h.bone),
                    keys,
                });
                h.tracks.len() - 1
            };
            // a scale's first track names its keyframes and gives the easings
            let x = push("head-x", kx);
            let scale_x = Anim::Scale {
                sx: x,
                sy: push("head-x-sy", ox),
                delay_s: 0.0,
            };
            let y1 = push("head-y", oy);
            let scale_y = Anim::Scale {
                sx: y1,
                sy: push("head-y-sy", ky),
                delay_s: 0.0,
            };
            (Some(scale_x), Some(scale_y))
        }
    };
    let group = |class: &str, anim: Option<Anim>, translate: Vec2, children: Vec<Item>| {
        Item::Group(Node {
            class: (!class.is_empty()).then(|| format!("rb-h{class}-{}", h.bone)),
            translate,
            anim,
            children,
        })
    };
    let mut drawn = vec![circle(Vec2::ZERO)];
    drawn.extend(rim(Vec2::ZERO));
    let sy = group("y", scale_y, Vec2::ZERO, drawn);
    let sx = group("x", scale_x, Vec2::ZERO, vec![sy]);
    let place = group("", None, c, vec![sx]);
    vec![group("r", rot, Vec2::ZERO, vec![place])]
}

/// A squashed head's counter keys ([`head_items`]): the counter
/// rotation's, then the counter scales' (x, y) where the clip has a
/// squash; fitted to `turns` (the written rotation tracks of the head
/// bone and its ancestors) and `squash` (the clip's written squash
/// tracks), and kept in `kept` (the fitted tracks, clip index and bone).
fn head_fits(
    turns: &[Vec<Key>],
    squash: Option<&(Vec<Key>, Vec<Key>)>,
    r: f64,
    (route, keyer): (Route, Keyer),
    kept: (&Fitted, usize, usize),
) -> Vec<Vec<Key>> {
    // the written rotation tracks, summed and negated: −Φ(u), degrees
    let phi = |u: f64| -> f64 {
        -turns
            .iter()
            .map(|k| crate::measure::track_value(k, u))
            .sum::<f64>()
    };
    let s_at = |u: f64| {
        squash.map_or((1.0, 1.0), |(sxk, syk)| {
            (
                crate::measure::track_value(sxk, u),
                crate::measure::track_value(syk, u),
            )
        })
    };
    // the counter rotation's keys, then the counter scales' (x, y)
    let (fitted, clip, bone) = kept;
    let key = TrackKey::Head {
        clip,
        bone,
        written: format!("{:?}", (turns, squash)),
    };
    memo(&fitted.tracks, key, || {
        // rim displacement per unit of error: a turn ε of the counter
        // rotation moves the rim by about r · m · max(sx/sy, sy/sx) · ε, a
        // scale error δ on one axis by r · s · δ
        let (mut g_rot, mut g_x, mut g_y) = (0.0f64, 0.0f64, 0.0f64);
        for k in 0..=fit::FIT_SAMPLES {
            let (sx, sy) = s_at(k as f64 / fit::FIT_SAMPLES as f64);
            g_rot = g_rot.max((sx + sy) / 2.0 * (sx / sy).max(sy / sx));
            g_x = g_x.max(sx);
            g_y = g_y.max(sy);
        }
        let sorted = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v.dedup();
            v
        };
        let corners = sorted(turns.iter().flatten().map(|k| k.t).collect());
        let head_px = keyer.budget_px(HEAD_BUDGET_PX);
        let rk = (route, keyer);
        let rot_budget = (0.5 * head_px / (r * g_rot)).to_degrees();
        // (the three fits side by side)
        let rot = || vec![fitted_keys(&phi, &corners, rot_budget, rk, DEG_DECIMALS)];
        let scales = || {
            let Some((sxk, _)) = squash else {
                return Vec::new();
            };
            let corners = sorted(sxk.iter().map(|k| k.t).collect());
            let fx = |u: f64| {
                let (sx, sy) = s_at(u);
                (sx + sy) / (2.0 * sx)
            };
            let fy = |u: f64| {
                let (sx, sy) = s_at(u);
                (sx + sy) / (2.0 * sy)
            };
            let share = 0.25 * head_px / r;
            let (x, y) = rayon::join(
                || fitted_keys(&fx, &corners, share / g_x, rk, T_DECIMALS),
                || fitted_keys(&fy, &corners, share / g_y, rk, T_DECIMALS),
            );
            vec![x, y]
        };
        let (mut v, scales) = rayon::join(rot, scales);
        v.extend(scales);
        v
    })
}

/// Distinct stroke colours in bone order (`rb-s<i>` classes).
pub fn colours(fig: &Figure) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for b in &fig.bones {
        if !v.contains(&b.stroke) {
            v.push(b.stroke.clone());
        }
    }
    v
}

/// The FK ideal tips of a clip at document time `t_s`, with the same time
/// mapping as the written animation: a loop wraps (`t_s = period` shows
/// t = 0), a one-shot clip holds its last frame.
pub fn ideal_tips(fig: &Figure, clip: &FigClip, period_s: f64, t_s: f64) -> Vec<Vec2> {
    let u = match clip.play {
        super::file::Play::Once => (t_s / period_s).clamp(0.0, 1.0),
        super::file::Play::Loop => (t_s / period_s).rem1(),
    };
    fk::tips(fig, clip, u)
}
