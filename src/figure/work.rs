//! The up-front estimate of a bone tree's bake: how many keys it fits and
//! writes, and how much the measure stage evaluates, refused past a limit
//! before any bake work (at load with the rig's own keying, and again
//! where `--keys` or `--tolerance` become known: [`crate::rig::check_key_work`]).
//!
//! **Keys.** Every fitted channel of every written clip counts: a sine
//! driver, an `ik` entry's two bones and its target marker's x and y
//! tracks, the root's lift with a `move`, a root bone's `move` (x and y),
//! a round head's three counter tracks under a squash, a spring's two
//! offset tracks and a Verlet chain's particles. With uniform keys
//! (`--keys N`, the rig's `keys`) each counts N; otherwise the keys its
//! motion needs: [`KEYS_PER_CYCLE`] per cycle of a sine, gait, bob or
//! ellipse, a track's own keys, [`KEYS_PER_CYCLE`] per path segment. An
//! exact eased track (a bone's `track`, the root's x, y and squash
//! tracks) counts its keys whatever the keying.
//!
//! **Measure.** The measure stage samples every interval between written
//! key times and walks every probe (a bone's tip, a head's two rims, an
//! `ik` target, a chain's particles) at each: per clip, the clip's key
//! times (N plus its exact tracks' keys when uniform, N again for each
//! delay a replay may play at, else every channel's keys) times its
//! probes.

use super::Figure;
use super::model::{Driver, FigClip};
use crate::trajectory::Trajectory;
use crate::valid::{RigError, invalid};

/// Keys a fitted channel is counted per cycle of its motion (a sine, a
/// gait, a bob, an ellipse) and per path segment.
pub const KEYS_PER_CYCLE: usize = 8;

/// What a fitted key counts against [`MAX_BAKE_KEYS`], in uniform keys: a
/// fit searches for its keys (each try estimated on a dense grid), where
/// uniform keys are only evaluated and written (measured: 131,072 fitted
/// gait keys took 3.1 s, 5,120,000 uniform `move` keys 5.2 s).
pub const FITTED_KEY_COST: usize = 16;

/// Most keys one bake fits and writes, every channel of every written
/// clip (a fitted key counting [`FITTED_KEY_COST`]): about two seconds
/// and at most a few hundred MB in a release build.
pub const MAX_BAKE_KEYS: usize = 1_500_000;

/// Most measure work one bake does: over written clips, samples (the
/// measure's [`SAMPLES_PER_PERIOD`](crate::measure::SAMPLES_PER_PERIOD)
/// plus one per key time) × probes × (1 + `ik` entries ÷ [`IK_PER_PROBE`]);
/// a few seconds in a release build.
pub const MAX_MEASURE_WORK: usize = 10_000_000;

/// Most work one `sweep` does, in bakes at the limits: its cells' summed
/// [`estimate`]s stay within this many times [`MAX_BAKE_KEYS`] and
/// [`MAX_MEASURE_WORK`] (a minute or two in a release build).
pub const SWEEP_BAKES: usize = 48;

/// Each sample solves every `ik` entry for every probe's pose: a probe
/// costs one more walk per this many entries (measured: 128 entries at
/// 2,000 uniform keys took 6.3 s, 16 took 0.16 s).
pub const IK_PER_PROBE: usize = 8;

/// How the channels of a bake are keyed, as far as the estimate counts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum WorkKeys {
    /// Each fitted channel to a budget (the default, a tolerance): its
    /// motion's keys.
    Fitted,
    /// Exactly N uniform keys per fitted channel.
    Uniform(usize),
}

/// What the estimate reads beside the bones and clips: the springs and
/// chains (which the figure may not hold yet: at load the estimate runs
/// before the simulations) and the replays' delays.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Extra {
    pub springs: usize,
    /// Particles over all chains of one clip.
    pub particles: usize,
    /// The most distinct delays a clip's replays may play at
    /// ([`super::reuse::replay_delays_bound`]).
    pub replays: usize,
}

impl Extra {
    /// The springs, chains and replays of a loaded figure baked on `route`
    /// (`None`: either) keyed as `keys`: replays count with uniform keys
    /// on css only (the smil route replays nothing; a fitted replay's times
    /// stand for the keys its chain would have fitted).
    pub fn of(fig: &Figure, route: Option<crate::clip::Route>, keys: WorkKeys) -> Extra {
        let replays = match (route, keys) {
            (Some(crate::clip::Route::Smil), _) | (_, WorkKeys::Fitted) => 0,
            (_, WorkKeys::Uniform(_)) => super::reuse::replay_delays_bound(fig),
        };
        Extra {
            springs: fig.springs.len(),
            particles: fig.chains.iter().map(|c| c.drawn.len()).sum(),
            replays,
        }
    }
}

/// The estimate of one bake ([`estimate`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Work {
    /// Keys fitted and written, over all written clips.
    pub keys: usize,
    /// Key times × probes the measure stage walks, over all written clips.
    pub measure: usize,
    /// The keys of the largest clip, and its measure.
    pub clip_keys: usize,
    pub clip_measure: usize,
    /// Keys by the rig's field they come from: `ik`, `bones`, `root`,
    /// `springs`, `chains`.
    pub by_field: [(&'static str, usize); 5],
    pub clips: usize,
}

impl Work {
    fn over(&self) -> bool {
        self.keys > MAX_BAKE_KEYS || self.measure > MAX_MEASURE_WORK
    }
}

/// Refuse a sweep of `fig`'s first `clips` clips over the key counts
/// `a..=b`, `methods` bakes at each, whose summed [`estimate`] (uniform
/// keys) is past [`SWEEP_BAKES`] bakes at the limits: at `keys_path`
/// with the figures and the largest B that passes.
pub fn check_sweep(
    fig: &Figure,
    clips: usize,
    ((a, b), methods): ((usize, usize), usize),
    keys_path: &str,
    extra: Extra,
) -> Result<(), RigError> {
    let max_keys = MAX_BAKE_KEYS.saturating_mul(SWEEP_BAKES);
    let max_measure = MAX_MEASURE_WORK.saturating_mul(SWEEP_BAKES);
    let (mut keys, mut measure) = (0usize, 0usize);
    let mut most = None;
    for n in a..=b {
        let w = estimate(fig, clips, WorkKeys::Uniform(n), extra);
        keys = keys.saturating_add(w.keys.saturating_mul(methods));
        measure = measure.saturating_add(w.measure.saturating_mul(methods));
        if (keys > max_keys || measure > max_measure) && most.is_none() {
            most = Some(n - 1);
        }
    }
    let Some(most) = most else {
        return Ok(());
    };
    let most = if most >= a {
        format!("from A = {a}, B at most {most}")
    } else {
        format!("no B passes from A = {a}")
    };
    Err(invalid(
        keys_path,
        format!(
            "sweeping {a}..{b} ({methods} bake{} per key count) is {keys} keys to fit and write and {measure} to measure, more than the {SWEEP_BAKES} bakes at {MAX_BAKE_KEYS} and {MAX_MEASURE_WORK} a sweep does in a minute or two; sweep a narrower range or one --fit ({most})",
            if methods == 1 { "" } else { "s" }
        ),
    ))
}

/// Keys a fit of `t`'s motion needs (0 for a fixed point).
pub fn trajectory_keys(t: &Trajectory) -> usize {
    match t {
        Trajectory::Fixed(_) => 0,
        Trajectory::Ellipse { .. } | Trajectory::Gait { .. } | Trajectory::Bob { .. } => {
            KEYS_PER_CYCLE
        }
        Trajectory::Track { keys, .. } => keys.len(),
        Trajectory::Path { segs, .. } => KEYS_PER_CYCLE * segs.len(),
        Trajectory::TimedGait(g) => KEYS_PER_CYCLE * g.cadence.cycles as usize,
        Trajectory::TimedBob(b) => KEYS_PER_CYCLE * b.cadence.cycles as usize,
    }
}

/// Keys of a bone's angle driver: a sine's by its cycles (or N), an
/// eased track's own, none for a constant.
fn driver_keys(d: &Driver, fitted: &dyn Fn(usize) -> usize) -> usize {
    match d {
        Driver::Const(_) => 0,
        Driver::Sine { harmonic, .. } => {
            fitted(KEYS_PER_CYCLE * *harmonic as usize * d.loop_cycles() as usize)
        }
        Driver::Track(t) => t.keys.len(),
    }
}

/// The estimate of a bake of `fig`'s first `clips` clips (a css bake
/// writes all, a smil bake the first), keyed as `keys` says, with
/// `extra`'s springs, chains and replays.
pub fn estimate(fig: &Figure, clips: usize, keys: WorkKeys, extra: Extra) -> Work {
    let fitted = |own: usize| match keys {
        WorkKeys::Fitted => own,
        WorkKeys::Uniform(n) => n,
    };
    let nb = fig.bones.len();
    let heads: Vec<usize> = (0..nb)
        .filter(|&b| fig.bones[b].head_radius.is_some())
        .collect();
    let squashed = fig.clips.iter().any(|c| c.root.squash.is_some());
    let probes = (nb + 2 * heads.len() + fig.ik.len() + extra.particles)
        .saturating_mul(IK_PER_PROBE + fig.ik.len())
        / IK_PER_PROBE;
    let mut w = Work {
        by_field: [
            ("ik", 0),
            ("bones", 0),
            ("root", 0),
            ("springs", 0),
            ("chains", 0),
        ],
        clips: clips.min(fig.clips.len()),
        ..Work::default()
    };
    for clip in &fig.clips[..w.clips] {
        let (c, busiest) = clip_keys(fig, clip, &heads, squashed, extra, &fitted);
        let total: usize = c.iter().sum();
        // the exact tracks' keys (bones' `track`s, the root's tracks)
        let exact = (0..fig.bones.len())
            .filter(|&b| !fig.ik.iter().any(|k| k.upper == b || k.lower == b))
            .map(|b| match &clip.drivers[b] {
                Driver::Track(t) => t.keys.len(),
                _ => 0,
            })
            .sum::<usize>()
            + exact_root_keys(clip);
        let exact = exact.min(total);
        // the measure's key times: exact tracks' own; uniform keys share
        // theirs; fitted keys of like motions fall together, of others
        // interleave (at most [`KEYS_PER_CYCLE`] channels' worth of the
        // busiest)
        let times = exact.saturating_add(match keys {
            WorkKeys::Fitted => (total - exact).min(KEYS_PER_CYCLE.saturating_mul(busiest)),
            // (shared times, shifted again by each delay a replay of
            // them may play at)
            WorkKeys::Uniform(n) => n.saturating_mul(1 + extra.replays),
        });
        let samples = crate::measure::SAMPLES_PER_PERIOD.saturating_add(times);
        let measure = samples.saturating_mul(probes);
        // a fitted key is searched for: it costs more than a uniform one
        let total = match keys {
            WorkKeys::Fitted => (total - exact)
                .saturating_mul(FITTED_KEY_COST)
                .saturating_add(exact),
            WorkKeys::Uniform(_) => total,
        };
        for (f, k) in w.by_field.iter_mut().zip(c) {
            f.1 = f.1.saturating_add(k);
        }
        w.keys = w.keys.saturating_add(total);
        w.measure = w.measure.saturating_add(measure);
        w.clip_keys = w.clip_keys.max(total);
        w.clip_measure = w.clip_measure.max(measure);
    }
    w
}

/// The root's exact tracks' keys in a clip (x, y, squash).
fn exact_root_keys(clip: &FigClip) -> usize {
    let r = &clip.root;
    [&r.x, &r.y]
        .into_iter()
        .flatten()
        .map(|t| t.keys.len())
        .sum::<usize>()
        + r.squash.as_ref().map_or(0, |s| s.sy.keys.len())
}

/// One clip's keys by field: `ik`, `bones`, `root`, `springs`, `chains`.
fn clip_keys(
    fig: &Figure,
    clip: &FigClip,
    heads: &[usize],
    squashed: bool,
    extra: Extra,
    fitted: &dyn Fn(usize) -> usize,
) -> ([usize; 5], usize) {
    let nb = fig.bones.len();
    let entry = |b: usize| fig.ik.iter().position(|k| k.upper == b || k.lower == b);
    let mv = clip.root.mv.as_ref().map_or(0, trajectory_keys);
    // each bone's own keys, and its own and its ancestors' (what a limb or
    // a head under it follows), parents first
    let mut own = vec![0usize; nb];
    let mut above = vec![0usize; nb];
    let (mut ik, mut bones) = (0usize, 0usize);
    for b in 0..nb {
        let base = fig.bones[b].parent.map_or(mv, |p| above[p]);
        match entry(b) {
            Some(i) if fig.ik[i].upper == b => {
                // the two bones and the target marker's x and y: the
                // target's motion and what moves the limb's root
                let target = clip.targets.get(i).map_or(0, trajectory_keys);
                let k = fitted(target.saturating_add(base).max(KEYS_PER_CYCLE));
                ik = ik.saturating_add(4 * k);
                own[b] = k;
            }
            Some(i) => own[b] = own[fig.ik[i].upper],
            None => {
                own[b] = driver_keys(&clip.drivers[b], fitted);
                bones = bones.saturating_add(own[b]);
            }
        }
        if let Some(m) = &fig.bones[b].mv {
            // a root bone's `move`, x and y
            let k = fitted(trajectory_keys(m).max(KEYS_PER_CYCLE));
            bones = bones.saturating_add(2 * k);
            own[b] = own[b].saturating_add(k);
        }
        above[b] = own[b].saturating_add(base);
    }
    if squashed {
        // a round head's counter rotation and scales (x, y)
        for &b in heads {
            let k = fitted(
                above[b]
                    .saturating_add(exact_root_keys(clip))
                    .max(KEYS_PER_CYCLE),
            );
            bones = bones.saturating_add(3 * k);
        }
    }
    let mut root = exact_root_keys(clip);
    if mv > 0 {
        // the lift, x and y, fitted with the tracks it is added to
        root = root.saturating_add(2 * fitted(mv.saturating_add(exact_root_keys(clip))));
    }
    // springs and chains follow the clip's busiest motion
    let busiest = own.iter().copied().max().unwrap_or(0).max(mv);
    let phys = fitted(busiest.max(KEYS_PER_CYCLE));
    let springs = extra.springs.saturating_mul(2 * phys);
    let chains = extra.particles.saturating_mul(phys);
    ([ik, bones, root, springs, chains], phys)
}

/// Refuse a bake of `fig` whose [`estimate`] is past [`MAX_BAKE_KEYS`] or
/// [`MAX_MEASURE_WORK`], with the figures and a remedy. With uniform keys
/// the error is at `keys_path` (`keys`, `--keys`) and ends with `remedy`
/// and the most keys that fit; otherwise it names the field that adds
/// the most keys (`clips` when every clip alone would pass).
pub fn check(
    fig: &Figure,
    clips: usize,
    (keys, keys_path, remedy): (WorkKeys, &str, &str),
    extra: Extra,
) -> Result<(), RigError> {
    let w = estimate(fig, clips, keys, extra);
    if !w.over() {
        return Ok(());
    }
    let parts: Vec<String> = w
        .by_field
        .iter()
        .filter(|f| f.1 > 0)
        .map(|(f, k)| format!("{f} {k}"))
        .collect();
    let weight = match keys {
        WorkKeys::Fitted => format!(", a fitted one counting {FITTED_KEY_COST}"),
        WorkKeys::Uniform(_) => String::new(),
    };
    let figures = format!(
        "{} keys to fit and write ({}{weight}) over {} clip{} and {} to measure (samples × probes) is more than the {MAX_BAKE_KEYS} and {MAX_MEASURE_WORK} a bake does in a few seconds",
        w.keys,
        parts.join(", "),
        w.clips,
        if w.clips == 1 { "" } else { "s" },
        w.measure,
    );
    if let WorkKeys::Uniform(n) = keys {
        // (the estimate grows with n: the largest that passes, halving)
        let passes = |m: usize| !estimate(fig, clips, WorkKeys::Uniform(m), extra).over();
        let most = passes(2).then(|| {
            let (mut lo, mut hi) = (2, n);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if passes(mid) { lo = mid } else { hi = mid }
            }
            lo
        });
        let most = match most {
            Some(m) => format!("at most {m} keys fit this rig"),
            None => "no key count fits this rig".to_string(),
        };
        return Err(invalid(
            keys_path,
            format!("{n} keys per fitted channel: {figures}; {remedy} ({most})"),
        ));
    }
    let (field, remedy) = if w.clips > 1
        && w.clip_keys <= MAX_BAKE_KEYS
        && w.clip_measure <= MAX_MEASURE_WORK
    {
        (
            "clips",
            "use fewer clips, or bake one at a time with --clip NAME",
        )
    } else {
        let top = w
            .by_field
            .iter()
            .max_by_key(|f| f.1)
            .expect("five fields")
            .0;
        let remedy = match top {
            "ik" => {
                "use fewer `ik` entries or simpler targets (fewer gait or bob cycles, fewer track keys)"
            }
            "root" => "use a simpler `move` (fewer cycles or keys)",
            "springs" => "use fewer springs or a simpler motion",
            "chains" => "use fewer chains or segments, or a simpler motion",
            _ => "use fewer bones or heads, lower harmonics, fewer cycles or fewer keys",
        };
        (top, remedy)
    };
    Err(invalid(field, format!("{figures}; {remedy}")))
}
