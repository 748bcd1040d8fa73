//! Verlet chains (hair, ponytail, scarf) pinned to a bone or a fixed
//! point, simulated offline into a seamless loop and baked as a nested
//! rotation chain on both routes.
//!
//! **Input.** On a bone-tree rig a `chains` entry names an anchor point on a
//! bone (`"tip"`, `"origin"` or `[x, y]` in the bone's frame). The anchor's
//! world position over the loop comes from the figure's FK ([`super::fk`],
//! root motion and springs above the bone included), so it is periodic in
//! t. On a cycling rig (`crank` + `legs`) the anchor is a fixed `[x, y]` in
//! user space ([`check_fixed_anchors`], then lowered into a root bone), optionally with a static [`Torso`].
//!
//! **Units.** `gravity` and `wind` are accelerations in px/s² (seed 004's
//! per-frame figures at 60 fps times 3600). `damping` is the fraction of
//! velocity kept **per 1/60 s** (seed 004's 0.97 per frame); the fixed
//! sub-step keeps `damping^(60·dt)`. Colliders are circles in user space.
//!
//! **Simulation.** [`crate::solve::physics::loop_chain`] with a fixed
//! sub-step of at most [`MAX_DT_S`] (independent of the key count), warmed
//! up until the seam state settles; the recording holds [`FRAMES`] + 1
//! frames over one period. Validation fails when the seam error exceeds
//! [`SEAM_TOLERANCE_PX`].
//!
//! **Bake.** [`rotation_items`], a nested rotation chain (one group per
//! segment, local angle = world angle − previous segment's), which every
//! browser animates (Safari does not animate CSS `d`), written as
//! `@keyframes` on the css route and `<animateTransform>` on the smil
//! route: one angle per key and segment, where a `d` morph of the curve
//! through the particles wrote six coordinates. Stroke width and colour
//! are interpolated from root to tip (a tapered, graded chain; `"side":
//! "far"` draws it first, thinner and darker). Keys sit on recorded
//! frames (cubic Hermite on the css route, linear on the smil route, whose
//! keySplines cannot overshoot), one set of key times for the whole chain
//! ([`KeyPlan`]): placed by [`Placer`] so that the measured particle
//! deviation (the written clip against the recorded frames, interpolated
//! linearly) is within [`KEY_BUDGET_PX`] (or the bake's budget), a hold
//! taking one key at each end; `super::add_chains` checks the placement
//! on the measure stage and keeps it or the fewest uniform keys (divisors
//! of [`FRAMES`]), whichever writes fewer bytes. The probe `<chain>-p<i>`
//! is particle i (i ≥ 1; particle 0 is the anchor).

use super::file::{AtFile, AtName};
use super::fk;
use super::model::{FigClip, Figure};
use crate::geom::{AffineExt, LEN_DECIMALS, Vec2, Vec2Ext, quantize};
use crate::solve::physics::{
    Budget, ChainParams, LoopParams, Recording, SETTLE_PX, SETTLE_TAIL, SIM_BUDGET, loop_chain,
};
use crate::valid::RigError;
use crate::valid::{check_len as positive, check_num as finite, check_within, invalid, rgb};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f64::consts::TAU;

/// Largest simulation sub-step, seconds.
pub const MAX_DT_S: f64 = 1.0 / 3600.0;
/// Recorded frames per period (keys sit on these).
pub const FRAMES: usize = 720;
/// Largest allowed seam error and baked particle deviation, px.
pub const SEAM_TOLERANCE_PX: f64 = 0.1;
/// Particle deviation the keys are picked for on the measure stage, px:
/// [`SEAM_TOLERANCE_PX`] less 0.01 px left to a browser's own arithmetic.
pub const KEY_BUDGET_PX: f64 = 0.09;
/// Default warm-up cap, periods.
pub const DEFAULT_WARMUP: usize = 400;
/// Largest warm-up cap a rig may ask for, periods (the rig's simulation
/// budget, [`SIM_BUDGET`], may allow fewer).
pub const MAX_WARMUP: usize = 1000;
/// Most particles per chain.
pub const MAX_PARTICLES: usize = 64;
/// Most chains in one rig.
pub const MAX_CHAINS: usize = 4;
/// Most colliders per chain.
pub const MAX_COLLIDERS: usize = 16;

/// `chains` holds at most [`MAX_CHAINS`] entries.
fn check_count(files: &[ChainFile]) -> Result<(), RigError> {
    if files.len() > MAX_CHAINS {
        return Err(invalid(
            "chains",
            format!("at most {MAX_CHAINS} chains, got {}", files.len()),
        ));
    }
    Ok(())
}

/// One wind component: a constant, `offset + amp · sin(2π·harmonic·t +
/// phase)`, or a timeline keyed over the loop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum WindComponentFile {
    /// Constant acceleration, px/s².
    Const(f64),
    /// Periodic with the loop, px/s².
    Periodic(PeriodicFile),
    /// A timeline, px/s²: `{"keys": [[t, value], …], "ease": …}` as a bone's
    /// `track`, the last value equal to the first (e.g. wind that grows as a
    /// gait's blend timeline speeds the figure up).
    Keys(crate::trajectory::timeline::LoopKeysFile),
}

/// `offset + amp · sin(2π · harmonic · t + phase_deg)`, t the loop's normalised time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PeriodicFile {
    pub amp: f64,
    /// Whole cycles per loop (0 to 64), so the wind loops with the clip.
    #[schemars(range(max = 64))]
    pub harmonic: u32,
    #[serde(default)]
    pub phase_deg: f64,
    #[serde(default)]
    pub offset: f64,
}

/// Wind acceleration, px/s², per axis (default 0).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WindFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<WindComponentFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<WindComponentFile>,
}

/// Where the chain's root particle is pinned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AnchorFile {
    /// A bone's name (bone-tree rigs). Absent on a cycling (`crank` +
    /// `legs`) rig, where `at` is a fixed `[x, y]` in user space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bone: Option<String>,
    /// `"tip"` (default), `"origin"` or `[x, y]` in the bone's frame; in
    /// user space without a bone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<AtFile>,
}

/// A circle the particles are pushed out of, user space.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ColliderFile {
    pub center: [f64; 2],
    /// At least 0.01 (lengths are written to 0.01).
    pub radius: f64,
}

/// How a chain is drawn: width and colour interpolated root → tip.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainStyleFile {
    /// Stroke width at the root, user units, at least 0.01 (default 8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_root: Option<f64>,
    /// Stroke width at the tip, user units, at least 0.01 (default 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width_tip: Option<f64>,
    /// `#rgb` or `#rrggbb` at the root (default `#7c2d12`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_root: Option<String>,
    /// `#rgb` or `#rrggbb` at the tip (default `#f59e0b`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color_tip: Option<String>,
    /// `"near"` (default: drawn over the figure) or `"far"` (drawn first,
    /// behind it, narrower and darker: 0.75 of the width, 0.58 of the
    /// brightness).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub side: Option<Side>,
}

/// Which side of the figure a chain hangs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Near,
    Far,
}

/// Width factor of a far-side chain (seed 000: far limbs are thinner).
pub const FAR_WIDTH: f64 = 0.75;
/// Brightness factor of a far-side chain's colours (seed 000: darker).
pub const FAR_SHADE: f64 = 0.58;

/// Constraint passes per sub-step of a chain without `iterations`: at
/// sub-steps of at most 1/3600 s it keeps its length within 0.02 % under
/// the examples' gravity and wind (the report prints each chain's figure;
/// a far stronger wind, or a segment far below a pixel, stretches it
/// more).
pub const PASSES: usize = 6;
/// Most `iterations` (passes per 1/60 s step, seed 004's scheme).
pub const MAX_ITERATIONS: usize = 100;

/// One entry of `chains`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChainFile {
    /// Identifier, used in probes (`<name>-p<i>`).
    pub name: String,
    pub anchor: AnchorFile,
    /// Segments (particles − 1), 1 to 63.
    #[schemars(range(min = 1, max = 63))]
    pub segments: usize,
    /// Segment rest length, user units, at least 0.01.
    pub segment: f64,
    /// Constraint passes per 1/60 s frame, 1..=100. Set, the chain is
    /// solved as seed 004 solves it: one Verlet step per 1/60 s frame with
    /// this many passes, so fewer passes leave a softer chain that
    /// stretches under gravity and wind. Absent, it is solved with 6 passes
    /// every sub-step of at most 1/3600 s, which keeps it within 0.02 % of
    /// its length under the examples' gravity and wind; the report prints
    /// each chain's figure (`segment length within … %`), larger under a
    /// far stronger wind or with a segment far below a pixel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iterations: Option<usize>,
    /// Velocity kept per 1/60 s, in (0, 1) (default 0.97).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub damping: Option<f64>,
    /// Acceleration `[x, y]`, px/s² (default `[0, 1260]`: 0.35 px/frame² at 60 fps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gravity: Option<[f64; 2]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wind: Option<WindFile>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colliders: Vec<ColliderFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<ChainStyleFile>,
    /// Warm-up cap, periods (default 400, at most 1000; the rig's
    /// simulation budget may allow fewer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_warmup_periods: Option<usize>,
}

/// A static torso line and head for a cycling rig that carries a chain (a
/// scarf needs a neck to hang from): drawn under the legs' hips.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TorsoFile {
    /// Bottom of the torso line (usually the hip), user space.
    pub hip: [f64; 2],
    /// Top of the torso line, user space.
    pub neck: [f64; 2],
    /// Head circle radius, at least 0.01; the head sits on the line's extension above the neck.
    pub head_radius: f64,
    /// Torso stroke width, at least 0.01 (default 14).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub width: Option<f64>,
}

/// A validated torso: line `hip → neck`, head centre and radius.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Torso {
    pub hip: Vec2,
    pub neck: Vec2,
    pub head: Vec2,
    pub head_radius: f64,
    pub width: f64,
}

/// Validate `torso` (JSON path `torso`).
pub fn validate_torso(t: &TorsoFile) -> Result<Torso, RigError> {
    let pt = |name: &str, p: [f64; 2]| -> Result<Vec2, RigError> {
        Ok(Vec2::new(
            finite(&format!("torso.{name}[0]"), p[0])?,
            finite(&format!("torso.{name}[1]"), p[1])?,
        ))
    };
    let hip = pt("hip", t.hip)?;
    let neck = pt("neck", t.neck)?;
    let r = positive("torso.head_radius", t.head_radius)?;
    let width = positive("torso.width", t.width.unwrap_or(14.0))?;
    let d = neck - hip;
    if d.len() < 1e-9 {
        return Err(invalid("torso.neck", "must differ from `hip`"));
    }
    Ok(Torso {
        hip,
        neck,
        head: neck + d * ((r + width * 0.5) / d.len()),
        head_radius: r,
        width,
    })
}

/// A validated, simulated chain.
#[derive(Debug, Clone, PartialEq)]
pub struct Chain {
    pub name: String,
    pub params: ChainParams,
    /// Per segment (root first): stroke width and colour `#rrggbb`.
    pub widths: Vec<f64>,
    pub colours: Vec<String>,
    /// Drawn behind the figure (see [`Side`]).
    pub far: bool,
    /// Particles as drawn (the first clip's first recorded frame); the css
    /// route moves and turns them to each clip's recorded frames.
    pub drawn: Vec<Vec2>,
    /// The recorded loop (or one-shot play) of the clip.
    pub recording: Recording,
    /// Solved with `iterations` (seed 004's scheme), so its segments
    /// stretch: the css route also moves each joint along its segment.
    pub stretches: bool,
    /// The decimal places the particles are written to (the figure's
    /// [`super::Figure::len_decimals`]).
    pub len_decimals: u32,
    /// The written values of every recorded frame, kept from their first
    /// use ([`Chain::written`]).
    written: WrittenCache,
}

impl Chain {
    /// The css route's written values and slopes on every recorded frame
    /// ([`CssFrames`]), which [`Placer`] and every [`rotation_items`] of
    /// the chain read: computed on the first call and kept. The kept copy
    /// is used only while what it was computed from (`drawn`, the
    /// recording's frames and play, the particle count, `stretches`) is
    /// unchanged, compared value for value; after a change the values are
    /// computed afresh (and not kept).
    fn written(&self) -> std::sync::Arc<CssFrames> {
        if let Some(w) = self.written.0.get() {
            if w.computed_from(self) {
                return w.clone();
            }
            return std::sync::Arc::new(CssFrames::new(self));
        }
        self.written
            .0
            .get_or_init(|| std::sync::Arc::new(CssFrames::new(self)))
            .clone()
    }
}

impl Chain {
    /// Computes the written values ([`Chain::written`]) now and keeps them,
    /// so every clone made afterwards shares them.
    pub(crate) fn keep_written(&self) {
        self.written();
    }
}

/// A chain's [`CssFrames`], computed once (see [`Chain::written`]). Not
/// part of the chain's value: any two compare equal.
#[derive(Clone, Default)]
struct WrittenCache(std::sync::OnceLock<std::sync::Arc<CssFrames>>);

impl PartialEq for WrittenCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for WrittenCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self.0.get() {
            Some(_) => "WrittenCache(kept)",
            None => "WrittenCache(empty)",
        })
    }
}

/// A validated wind component: `(offset, amp, harmonic, phase_rad)` of a
/// sine, or a timeline.
enum Wind {
    Sine(f64, f64, f64, f64),
    Keys(crate::trajectory::timeline::Keyed),
}

impl Wind {
    /// The acceleration at normalised time t ∈ [0, 1), px/s².
    fn at(&self, t: f64) -> f64 {
        match self {
            Wind::Sine(o, a, h, ph) => o + a * (TAU * h * t + ph).sin(),
            Wind::Keys(k) => k.eval(t),
        }
    }
}

/// A wind component as a function of normalised time.
fn wind_fn(path: &str, w: &Option<WindComponentFile>) -> Result<Wind, RigError> {
    Ok(match w {
        None => Wind::Sine(0.0, 0.0, 0.0, 0.0),
        Some(WindComponentFile::Const(c)) => Wind::Sine(finite(path, *c)?, 0.0, 0.0, 0.0),
        Some(WindComponentFile::Keys(k)) => Wind::Keys(crate::trajectory::timeline::validate_loop(
            path,
            k,
            &|q, v| finite(q, v),
        )?),
        Some(WindComponentFile::Periodic(p)) => {
            if p.harmonic > 64 {
                return Err(invalid(
                    format!("{path}.harmonic"),
                    format!("must be at most 64, got {}", p.harmonic),
                ));
            }
            Wind::Sine(
                finite(&format!("{path}.offset"), p.offset)?,
                finite(&format!("{path}.amp"), p.amp)?,
                p.harmonic as f64,
                finite(&format!("{path}.phase_deg"), p.phase_deg)?.to_radians(),
            )
        }
    })
}

/// The anchor's world position at normalised time t (FK with root motion).
/// Only the bones from the root down to `bone` are evaluated where none of
/// them is an `ik` bone ([`super::spring::bone_matrix`]).
pub fn anchor_at(fig: &Figure, clip: &FigClip, bone: usize, local: Vec2, t: f64) -> Vec2 {
    (fk::root_matrix(&clip.root, t) * super::spring::bone_matrix(fig, clip, bone, t)).apply(local)
}

/// Validate `chains` against a validated figure and simulate each in
/// every clip (the clip's springs, in [`Figure::physics`], move the
/// anchors): into a seamless loop for a looping clip, once from rest for a
/// one-shot clip, which must have settled by its end
/// ([`crate::solve::physics::SETTLE_PX`]). Every clip's copy of a chain is
/// drawn in the first clip's first frame ([`Chain::drawn`]). One list per
/// clip, in clip order.
pub fn validate(
    files: &[ChainFile],
    fig: &Figure,
    budget: &mut Budget,
) -> Result<Vec<Vec<Chain>>, RigError> {
    if files.is_empty() {
        return Ok(vec![Vec::new(); fig.clips.len()]);
    }
    check_count(files)?;
    let views: Vec<Figure> = (0..fig.clips.len()).map(|c| fig.for_clip(c)).collect();
    // The clips' simulations run side by side, each on the budget as it
    // stands, and are kept when each is the one a run in clip order makes
    // (from the budget left after the clips before): it got the same
    // warm-up cap, or it settled before either cap could stop it (its
    // pre-warm below half of both, its warm-up within both). Otherwise (an
    // error, or a budget running short) that run, in clip order.
    if views.len() > 1 {
        use rayon::prelude::*;
        let start = *budget;
        let runs: Vec<Result<Vec<Chain>, RigError>> = views
            .par_iter()
            .map(|v| validate_clip(files, v, &mut start.clone()))
            .collect();
        let mut serial = start;
        let same = runs.iter().zip(&views).all(|(run, view)| {
            let Ok(chains) = run else { return false };
            let mut own = start;
            chains.iter().zip(files).all(|(ch, cf)| {
                let per_period = period_work(cf, view);
                let asked = cf.max_warmup_periods.unwrap_or(DEFAULT_WARMUP);
                let r = &ch.recording;
                let kept = match (
                    own.warmup_cap(per_period, asked),
                    serial.warmup_cap(per_period, asked),
                ) {
                    (Some(a), Some(b)) => {
                        a == b
                            || (r.converged
                                && r.prewarm_periods < a / 2
                                && r.prewarm_periods <= b / 2
                                && r.warmup_periods <= b)
                    }
                    _ => false,
                };
                own.spend(ch.recording.warmup_periods + 1, per_period);
                serial.spend(ch.recording.warmup_periods + 1, per_period);
                kept
            })
        });
        if same {
            *budget = serial;
            let mut per_clip: Vec<Vec<Chain>> = runs.into_iter().flatten().collect();
            drawn_as_first(&mut per_clip);
            return Ok(per_clip);
        }
    }
    validate_in_order(files, &views, budget)
}

/// [`validate`] one clip after the other (`views`: the figure for each).
pub(crate) fn validate_in_order(
    files: &[ChainFile],
    views: &[Figure],
    budget: &mut Budget,
) -> Result<Vec<Vec<Chain>>, RigError> {
    let mut per_clip: Vec<Vec<Chain>> = Vec::with_capacity(views.len());
    for view in views {
        let clip = &view.clips[0];
        let chains = validate_clip(files, view, budget).map_err(|e| {
            if views.len() > 1 {
                crate::valid::in_clip(e, &clip.name, clip.period_s)
            } else {
                e
            }
        })?;
        per_clip.push(chains);
    }
    drawn_as_first(&mut per_clip);
    Ok(per_clip)
}

/// Every clip's chains drawn in the first clip's pose (one drawing for
/// every clip of a class-switched file).
fn drawn_as_first(per_clip: &mut [Vec<Chain>]) {
    if let Some((first, rest)) = per_clip.split_first_mut() {
        for out in rest {
            for (ch, f) in out.iter_mut().zip(first.iter()) {
                ch.drawn = f.drawn.clone();
            }
        }
    }
}

/// Particle updates per simulated period of a chain of `fig`'s clip (as
/// [`simulate`] counts them for its budget).
fn period_work(cf: &ChainFile, fig: &Figure) -> u64 {
    let (steps, iterations) = steps_and_passes(cf, fig.clips[0].period_s);
    let per_step = step_cost(
        cf.segments,
        iterations,
        cf.colliders.len(),
        Some(fk_cost(fig)),
    );
    (steps as u64).saturating_mul(per_step)
}

/// Sub-steps per period and passes per sub-step of a chain: fine sub-steps
/// and [`PASSES`] without `iterations`; with it, seed 004's scheme, one
/// step per 1/60 s frame and `iterations` passes each.
fn steps_and_passes(cf: &ChainFile, period_s: f64) -> (usize, usize) {
    match cf.iterations {
        None => (substeps(period_s), PASSES),
        Some(i) => (((period_s * 60.0).round() as usize).max(1), i),
    }
}

/// Particle updates per sub-step: `n + 1` particles through every pass
/// (and again per collider), plus the anchor's FK when it has one.
fn step_cost(n: usize, iterations: usize, colliders: usize, fk_cost: Option<u64>) -> u64 {
    ((n + 1) * iterations * (1 + colliders)) as u64 + fk_cost.unwrap_or(0)
}

/// The FK cost of a bone tree's chain anchor per sub-step: every bone and
/// every spring's offset.
fn fk_cost(fig: &Figure) -> u64 {
    (fig.bones.len() + fig.springs.len()) as u64
}

/// [`validate`] for a figure of one clip.
fn validate_clip(
    files: &[ChainFile],
    fig: &Figure,
    budget: &mut Budget,
) -> Result<Vec<Chain>, RigError> {
    let clip = &fig.clips[0];
    let mut out: Vec<Chain> = Vec::with_capacity(files.len());
    for (i, cf) in files.iter().enumerate() {
        let p = format!("chains[{i}]");
        crate::valid::check_name(&format!("{p}.name"), &cf.name)?;
        let taken = out.iter().any(|c| c.name == cf.name)
            || fig.bones.iter().any(|b| b.name == cf.name)
            || fig.ik.iter().any(|k| k.name.as_ref() == Some(&cf.name));
        if taken {
            return Err(invalid(
                format!("{p}.name"),
                format!(
                    "{:?} is already the name of a bone, chain or `ik` entry",
                    cf.name
                ),
            ));
        }
        // a bone's part named as one of the chain's segments would take
        // its place in a drawing
        let segment_named = |part: &str| {
            part.strip_prefix(cf.name.as_str())
                .and_then(|r| r.strip_prefix('-'))
                .and_then(|j| j.parse::<usize>().ok())
                .is_some_and(|j| segment_part(&cf.name, j) == part && j < cf.segments)
        };
        if let Some((b, part)) = fig
            .bones
            .iter()
            .enumerate()
            .find_map(|(b, bone)| Some((b, bone.parts.iter().find(|p| segment_named(p))?)))
        {
            return Err(invalid(
                format!("{p}.name"),
                format!(
                    "{:?} names the chain's segment {part:?} in a drawing, which is already a part of bones[{b}]; rename one",
                    cf.name
                ),
            ));
        }
        let Some(name) = cf.anchor.bone.as_deref() else {
            return Err(invalid(
                format!("{p}.anchor.bone"),
                "a chain on a bone tree needs the name of the bone it hangs from",
            ));
        };
        let Some(bone) = fig.bones.iter().position(|b| b.name == name) else {
            return Err(invalid(
                format!("{p}.anchor.bone"),
                format!("no bone is named {name:?}"),
            ));
        };
        let local = match cf.anchor.at {
            None | Some(AtFile::Named(AtName::Tip)) => Vec2::new(fig.bones[bone].length, 0.0),
            Some(AtFile::Named(AtName::Origin)) => Vec2::ZERO,
            Some(AtFile::Offset([x, y])) => Vec2::new(
                finite(&format!("{p}.anchor.at[0]"), x)?,
                finite(&format!("{p}.anchor.at[1]"), y)?,
            ),
        };
        // a spring above the anchor bone moves the anchor too
        let anchor =
            |t: f64| anchor_at(fig, clip, bone, local, t) + super::spring::offset(fig, bone, t);
        // FK of every bone, and every spring's offset, at each sub-step
        let fk_cost = Some(fk_cost(fig));
        let once = clip.play == super::file::Play::Once;
        let mut ch = simulate(&p, cf, clip.period_s, &anchor, fk_cost, once, budget)?;
        if once && (ch.recording.seam_error_px.is_nan() || ch.recording.seam_error_px > SETTLE_PX) {
            return Err(invalid(
                p,
                format!(
                    "has not settled when the one-shot clip {:?} ends: it still moves {:.3} px over the last {} % (at most {SETTLE_PX} px); end the clip on a longer hold, or lower `damping`",
                    clip.name,
                    ch.recording.seam_error_px,
                    SETTLE_TAIL * 100.0
                ),
            ));
        }
        ch.drawn = ch.recording.frames[0].clone();
        out.push(ch);
    }
    Ok(out)
}

/// The fixed anchors of a cycling rig's `chains` (it has no bones): each
/// chain named once and anchored at a finite `[x, y]` in user space. The
/// rest of each chain is checked, and simulated over the rig's period,
/// where the rig loads as the bone tree it lowers into (each anchor a root
/// bone at that point, the chain's other fields and paths its own).
pub fn check_fixed_anchors(files: &[ChainFile]) -> Result<(), RigError> {
    check_count(files)?;
    for (i, cf) in files.iter().enumerate() {
        let p = format!("chains[{i}]");
        crate::valid::check_name(&format!("{p}.name"), &cf.name)?;
        if files[..i].iter().any(|c| c.name == cf.name) {
            return Err(invalid(
                format!("{p}.name"),
                format!("{:?} is already the name of a chain", cf.name),
            ));
        }
        if let Some(b) = &cf.anchor.bone {
            return Err(invalid(
                format!("{p}.anchor.bone"),
                format!(
                    "a cycling rig has no bones (got {b:?}); anchor the chain with \"at\": [x, y]"
                ),
            ));
        }
        let Some(AtFile::Offset([x, y])) = cf.anchor.at else {
            return Err(invalid(
                format!("{p}.anchor.at"),
                "a chain on a cycling rig needs a fixed point [x, y] in user space",
            ));
        };
        finite(&format!("{p}.anchor.at[0]"), x)?;
        finite(&format!("{p}.anchor.at[1]"), y)?;
    }
    Ok(())
}

/// Sub-steps per period: at most [`MAX_DT_S`] each, a whole number per
/// recorded frame.
pub fn substeps(period_s: f64) -> usize {
    let per_frame = (period_s / MAX_DT_S / FRAMES as f64).ceil().max(1.0) as usize;
    FRAMES * per_frame
}

/// The warm-up cap a simulation at JSON path `p` gets from the rig's
/// `budget`: `cap`, or fewer when the budget allows fewer. `per_step` is its
/// cost in particle updates per sub-step and `why` spells it out. Refused
/// when the budget cannot pay for one warm-up period and the recorded one.
pub fn budget_warmup(
    p: &str,
    period_s: f64,
    steps: usize,
    per_step: u64,
    why: &str,
    cap: usize,
    budget: &Budget,
) -> Result<usize, RigError> {
    let steps = steps as u64;
    let per_period = steps.saturating_mul(per_step);
    let Some(allowed) = budget.warmup_cap(per_period, cap) else {
        let left = if budget.left() < SIM_BUDGET {
            format!(
                " ({} left after the simulations before it)",
                crate::valid::shown(budget.left() as f64)
            )
        } else {
            String::new()
        };
        return Err(invalid(
            p,
            format!(
                "simulating one period takes period_s {} s = {steps} sub-steps × {why} = {} particle updates; a warm-up period and the recorded one are more than the rig's simulation budget of {}{left}; shorten period_s, or make each sub-step cheaper ({})",
                crate::valid::shown(period_s),
                crate::valid::shown(per_period as f64),
                crate::valid::shown(SIM_BUDGET as f64),
                if why.contains("particles") {
                    "fewer `segments` or `colliders`"
                } else {
                    "fewer bones"
                }
            ),
        ));
    };
    Ok(allowed)
}

/// Check the rest of a chain entry at JSON path `p` and simulate it into a
/// loop of `period_s` with the root particle pinned to `anchor(t)`, which
/// costs `fk_cost` particle updates to evaluate (FK), if any; the work is
/// taken from the rig's `budget`.
#[allow(clippy::too_many_arguments)]
fn simulate(
    p: &str,
    cf: &ChainFile,
    period_s: f64,
    anchor: &dyn Fn(f64) -> Vec2,
    fk_cost: Option<u64>,
    once: bool,
    budget: &mut Budget,
) -> Result<Chain, RigError> {
    check_within(&format!("{p}.segments"), cf.segments, 1, MAX_PARTICLES - 1)?;
    let segment = positive(&format!("{p}.segment"), cf.segment)?;
    let damping60 = cf.damping.unwrap_or(0.97);
    if !(damping60.is_finite() && damping60 > 0.0 && damping60 < 1.0) {
        return Err(invalid(
            format!("{p}.damping"),
            format!(
                "must be within (0, 1): the velocity kept per 1/60 s, got {}",
                crate::valid::shown(damping60)
            ),
        ));
    }
    let [gx, gy] = cf.gravity.unwrap_or([0.0, 1260.0]);
    let gravity = Vec2::new(
        finite(&format!("{p}.gravity[0]"), gx)?,
        finite(&format!("{p}.gravity[1]"), gy)?,
    );
    let wind = cf.wind.clone().unwrap_or_default();
    let wx = wind_fn(&format!("{p}.wind.x"), &wind.x)?;
    let wy = wind_fn(&format!("{p}.wind.y"), &wind.y)?;
    if cf.colliders.len() > MAX_COLLIDERS {
        return Err(invalid(
            format!("{p}.colliders"),
            format!(
                "at most {MAX_COLLIDERS} colliders, got {}",
                cf.colliders.len()
            ),
        ));
    }
    let mut colliders = Vec::with_capacity(cf.colliders.len());
    for (j, c) in cf.colliders.iter().enumerate() {
        let cp = format!("{p}.colliders[{j}]");
        colliders.push((
            Vec2::new(
                finite(&format!("{cp}.center[0]"), c.center[0])?,
                finite(&format!("{cp}.center[1]"), c.center[1])?,
            ),
            positive(&format!("{cp}.radius"), c.radius)?,
        ));
    }
    let style = cf.style.clone().unwrap_or_default();
    let w0 = positive(
        &format!("{p}.style.width_root"),
        style.width_root.unwrap_or(8.0),
    )?;
    let w1 = positive(
        &format!("{p}.style.width_tip"),
        style.width_tip.unwrap_or(2.0),
    )?;
    let c0 = rgb(
        &format!("{p}.style.color_root"),
        style.color_root.as_deref().unwrap_or("#7c2d12"),
    )?;
    let c1 = rgb(
        &format!("{p}.style.color_tip"),
        style.color_tip.as_deref().unwrap_or("#f59e0b"),
    )?;
    let far = style.side == Some(Side::Far);
    let (wf, shade) = if far {
        (FAR_WIDTH, FAR_SHADE)
    } else {
        (1.0, 1.0)
    };
    let n = cf.segments;
    let frac = |k: usize| {
        if n == 1 {
            0.0
        } else {
            k as f64 / (n - 1) as f64
        }
    };
    let widths = (0..n)
        .map(|k| quantize((w0 + (w1 - w0) * frac(k)) * wf, LEN_DECIMALS))
        .collect();
    let colours = (0..n)
        .map(|k| {
            let mix =
                |a: u8, b: u8| ((a as f64 + (b as f64 - a as f64) * frac(k)) * shade).round() as u8;
            format!(
                "#{:02x}{:02x}{:02x}",
                mix(c0[0], c1[0]),
                mix(c0[1], c1[1]),
                mix(c0[2], c1[2])
            )
        })
        .collect();

    let max_periods = check_within(
        &format!("{p}.max_warmup_periods"),
        cf.max_warmup_periods.unwrap_or(DEFAULT_WARMUP),
        1,
        MAX_WARMUP,
    )?;
    // without `iterations`: fine sub-steps that keep the length; with it,
    // seed 004's scheme: one step per 1/60 s frame, `iterations` passes each
    if let Some(i) = cf.iterations {
        check_within(&format!("{p}.iterations"), i, 1, MAX_ITERATIONS)?;
    }
    let (substeps, iterations) = steps_and_passes(cf, period_s);
    let per_step = step_cost(n, iterations, cf.colliders.len(), fk_cost);
    let why = format!(
        "({} particles × {} passes{}{})",
        n + 1,
        iterations,
        match cf.colliders.len() {
            0 => String::new(),
            1 => " × (1 + 1 collider)".to_string(),
            c => format!(" × (1 + {c} colliders)"),
        },
        match fk_cost {
            Some(b) => format!(" + {b} for the anchor's FK"),
            None => String::new(),
        }
    );
    let asked = max_periods;
    let max_periods = budget_warmup(p, period_s, substeps, per_step, &why, asked, budget)?;
    let dt = period_s / substeps as f64;
    let params = ChainParams {
        count: n + 1,
        segment,
        iterations,
        damping: damping60.powf(60.0 * dt),
        gravity,
        colliders,
    };
    let lp = LoopParams {
        period_s,
        substeps,
        frames: FRAMES,
        seam_eps_px: 1e-4,
        max_periods,
    };
    let wind_at = |t: f64| Vec2::new(wx.at(t), wy.at(t));
    let recording = if once {
        crate::solve::physics::once_chain(&params, &lp, anchor, &wind_at)
    } else {
        loop_chain(&params, &lp, anchor, &wind_at)
    };
    budget.spend(recording.warmup_periods + 1, substeps as u64 * per_step);
    if !once && (recording.seam_error_px.is_nan() || recording.seam_error_px > SEAM_TOLERANCE_PX) {
        let cut = max_periods < asked && !recording.converged;
        return Err(invalid(
            p,
            format!(
                "the simulated loop does not close: seam error {:.3} px > {SEAM_TOLERANCE_PX} px after {} warm-up periods{}; {}",
                recording.seam_error_px,
                recording.warmup_periods,
                if recording.converged {
                    ""
                } else if cut {
                    " (not converged; the rig's simulation budget allows no more periods of this chain)"
                } else {
                    " (not converged)"
                },
                if cut {
                    "add damping (lower `damping`), or make a period cheaper (shorter period_s, fewer `segments`)"
                } else {
                    "add damping (lower `damping`) or a longer warm-up (raise `max_warmup_periods`)"
                }
            ),
        ));
    }
    Ok(Chain {
        name: cf.name.clone(),
        params,
        widths,
        colours,
        far,
        drawn: Vec::new(),
        recording,
        stretches: cf.iterations.is_some(),
        len_decimals: LEN_DECIMALS,
        written: WrittenCache::default(),
    })
}

/// The recorded particles at normalised time u ∈ [0, 1], between
/// recorded frames as [`between`] moves them.
pub fn particles_at(chain: &Chain, u: f64) -> Vec<Vec2> {
    let mut out = Vec::new();
    recorded(chain)(u, &mut out);
    out
}

/// [`particles_at`] as a function writing into its second argument, for
/// many times: the frames' segments are measured once (and kept with the
/// chain's written values once it is drawn).
pub fn recorded(chain: &Chain) -> impl Fn(f64, &mut Vec<Vec2>) + '_ {
    let polar = if chain.drawn.len() == chain.params.count {
        chain.written().polar.clone()
    } else {
        std::sync::Arc::new(chain.recording.frames.iter().map(|f| segments(f)).collect())
    };
    move |u, out| {
        // (a one-shot play holds its last frame: u is clamped)
        let f = &chain.recording.frames;
        let x = u.clamp(0.0, 1.0) * (f.len() - 1) as f64;
        let i = (x.floor() as usize).min(f.len() - 2);
        let (a, b) = (
            (&f[i][..], &polar[i][..]),
            (&f[i + 1][..], &polar[i + 1][..]),
        );
        between_measured(a, b, x - i as f64, out);
    }
}

/// Each segment of a recorded frame as [`between`] turns it: its direction
/// (rad), its length and its unit vector.
fn segments(frame: &[Vec2]) -> Vec<(f64, f64, Vec2)> {
    frame
        .windows(2)
        .map(|w| {
            let d = w[1] - w[0];
            let angle = d.angle();
            (angle, d.length(), Vec2::from_angle(angle))
        })
        .collect()
}

/// Particles a fraction `s` ∈ [0, 1] of the way from recorded frame `a` to
/// the next, `b`, into `out`: the root particle along the straight line,
/// every segment turned through the smaller angle between its two
/// directions with its length changed linearly. A segment so keeps its
/// length between frames, as the simulation keeps it; the straight line
/// between two recorded positions of a particle would shorten a segment
/// of length L turning by Δθ by L·(1 − cos(Δθ/2)) halfway (0.13 px for a
/// 13.5 px lock of hair turning 16° in a frame, as stickman's does when
/// the jump takes off), which no written chain can follow. At `s` = 0 the
/// frame `a` itself.
pub fn between(a: &[Vec2], b: &[Vec2], s: f64, out: &mut Vec<Vec2>) {
    between_measured((a, &segments(a)), (b, &segments(b)), s, out);
}

/// [`between`] with each frame's [`segments`] measured beforehand.
fn between_measured(
    (a, sa): (&[Vec2], &[(f64, f64, Vec2)]),
    (b, sb): (&[Vec2], &[(f64, f64, Vec2)]),
    s: f64,
    out: &mut Vec<Vec2>,
) {
    out.clear();
    if s == 0.0 {
        out.extend_from_slice(a);
        return;
    }
    let mut at = a[0] + (b[0] - a[0]) * s;
    out.push(at);
    for (&(ta, la, u), &(tb, lb, _)) in sa.iter().zip(sb) {
        // the direction at a, turned (usually a small angle: a series)
        let (sin, cos_m1) = crate::geom::small_sin_cos_m1(crate::geom::wrap_pi(tb - ta) * s);
        let dir = u + Vec2::new(u.x * cos_m1 - u.y * sin, u.x * sin + u.y * cos_m1);
        at += dir * (la + (lb - la) * s);
        out.push(at);
    }
}

/// Key counts tried, fewest first: the divisors of [`FRAMES`] from 4.
pub fn key_counts() -> Vec<usize> {
    (4..=FRAMES).filter(|n| FRAMES.is_multiple_of(*n)).collect()
}

/// Which recorded frames carry a chain's keys, and the shape of each span
/// between them. Every segment's track of one chain shares the one set of
/// key times.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyPlan {
    /// Recorded frame indices, increasing: 0 first, [`FRAMES`] last.
    pub frames: Vec<usize>,
    /// Segment shape of span i (`frames[i]` → `frames[i + 1]`) on the css
    /// route; the smil route writes every span linear.
    pub fits: Vec<crate::fit::Fit>,
}

impl KeyPlan {
    /// `n` uniform keys (n divides [`FRAMES`]), every span `fit`.
    pub fn uniform(n: usize, fit: crate::fit::Fit) -> KeyPlan {
        let step = FRAMES / n;
        KeyPlan {
            frames: (0..=n).map(|k| k * step).collect(),
            fits: vec![fit; n],
        }
    }

    /// Keys per period: the spans between key times (t = 0 and t = 1 are one key).
    pub fn keys(&self) -> usize {
        self.frames.len() - 1
    }

    /// The key times as written (normalised, rounded).
    fn times(&self) -> Vec<f64> {
        self.frames.iter().map(|&f| frame_time(f)).collect()
    }
}

/// Normalised time of recorded frame `f`, as written.
fn frame_time(f: usize) -> f64 {
    quantize(f as f64 / FRAMES as f64, crate::geom::T_DECIMALS)
}

/// Evaluations per recorded frame interval of [`Placer`]'s estimate.
pub const CSS_SUBSAMPLES: usize = 4;

/// Places a chain's keys on recorded frames for one route: the fewest
/// spans found whose written particles stay within a budget of the
/// recording (between frames as [`between`] moves them).
///
/// With one key-time set for the whole chain, what a span writes depends
/// only on its two end frames (their rounded values and, for cubic spans,
/// the recorded slopes there), so a span's error is a function of its ends
/// alone and the plan is a segmentation of the frames: from each key, the
/// next is the farthest frame whose span stays within the budget (found by
/// doubling the span, then bisecting). A span where the chain holds still
/// costs nothing, so a hold of any length takes one key at each end. When
/// feasibility is monotone in the span's length (a shorter span of a
/// feasible one is feasible) this is the fewest keys; otherwise it is few,
/// not provably the fewest.
///
/// The estimate: spans are evaluated as [`crate::measure`] reads them (the
/// written, rounded keys; nested rotations composed) at
/// [`CSS_SUBSAMPLES`] times per frame interval, against the recording
/// between frames as [`between`] moves them; the measure stage then checks the
/// written clip independently (see `add_chains`). The smil route's spans
/// are linear.
pub struct Placer<'a> {
    chain: &'a Chain,
    route: crate::clip::Route,
    /// The written values and slopes of every frame.
    css: std::sync::Arc<CssFrames>,
    /// The recording at each time a span is checked at, frame `i /
    /// CSS_SUBSAMPLES` for i = 0..=`FRAMES · CSS_SUBSAMPLES` (between frames
    /// as [`between`] moves them): every particle, time after time. Every
    /// span the plans try reads these, whatever its ends, so they are
    /// found once.
    recorded: Vec<Vec2>,
}

impl<'a> Placer<'a> {
    pub fn new(chain: &'a Chain, route: crate::clip::Route) -> Placer<'a> {
        let css = chain.written();
        let frames = &chain.recording.frames;
        let steps = FRAMES * CSS_SUBSAMPLES;
        let mut recorded = Vec::with_capacity((steps + 1) * chain.params.count);
        let mut at_step = Vec::with_capacity(chain.params.count);
        for i in 0..=steps {
            let at = i as f64 / CSS_SUBSAMPLES as f64;
            // the recording between frames f and f + 1, a fraction s along
            let f = (at.floor() as usize).min(FRAMES - 1);
            let s = at - f as f64;
            let pair = |f: usize| (&frames[f][..], &css.polar[f][..]);
            between_measured(pair(f), pair(f + 1), s, &mut at_step);
            debug_assert_eq!(at_step.len(), chain.params.count);
            recorded.extend_from_slice(&at_step);
        }
        Placer {
            chain,
            route,
            css,
            recorded,
        }
    }

    /// The plan: from frame 0, each next key on the farthest frame whose
    /// span keeps the estimate within `budget_px` (spans `fit`, linear on
    /// the smil route). Where even the next frame misses it (a whip
    /// between recorded frames), a one-frame span of the better shape.
    pub fn plan(&self, fit: crate::fit::Fit, budget_px: f64) -> KeyPlan {
        use crate::fit::Fit;
        let fit = match self.route {
            crate::clip::Route::Smil => Fit::Linear,
            crate::clip::Route::Css => fit,
        };
        let mut frames = vec![0];
        let mut fits = Vec::new();
        let mut a = 0;
        while a < FRAMES {
            let ok = |b: usize| self.span_error(a, b, fit, budget_px) <= budget_px;
            if !ok(a + 1) {
                let other = if fit == Fit::Cubic {
                    Fit::Linear
                } else {
                    Fit::Cubic
                };
                let err = |f| self.span_error(a, a + 1, f, f64::INFINITY);
                let better = if self.route == crate::clip::Route::Css && err(other) < err(fit) {
                    other
                } else {
                    fit
                };
                frames.push(a + 1);
                fits.push(better);
                a += 1;
                continue;
            }
            // double the span while it keeps the budget, then bisect
            let (mut lo, mut hi) = (a + 1, None);
            while lo < FRAMES {
                let next = (a + 2 * (lo - a)).min(FRAMES);
                if ok(next) {
                    lo = next;
                } else {
                    hi = Some(next);
                    break;
                }
            }
            if let Some(mut hi) = hi {
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if ok(mid) {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
            }
            frames.push(lo);
            fits.push(fit);
            a = lo;
        }
        KeyPlan { frames, fits }
    }

    /// Whether every span of `plan` keeps the estimate within `budget_px`.
    pub fn within(&self, plan: &KeyPlan, budget_px: f64) -> bool {
        plan.frames
            .windows(2)
            .zip(&plan.fits)
            .all(|(w, &fit)| self.span_error(w[0], w[1], fit, budget_px) <= budget_px)
    }

    /// Largest distance of a written particle (1 and up) from the
    /// recording over the span from frame `a` to frame `b` written `fit`;
    /// stops early with a value over `limit` once one is found (the
    /// instants are looked at every `fit::SPAN_STRIDE`-th first:
    /// which value over `limit` it returns depends on that order, whether
    /// the span is within `limit` does not).
    ///
    /// Every channel of the span is a two-key track on the same key times,
    /// so the progress through the span, and the x solve of the cubic
    /// spans (their x control points are the same), are found once per
    /// instant and shared by the channels; the values are
    /// [`crate::measure::track_value`]'s bit for bit.
    pub fn span_error(&self, a: usize, b: usize, fit: crate::fit::Fit, limit: f64) -> f64 {
        let n = self.chain.params.count;
        let m = n - 1;
        let mut worst = 0.0f64;
        let css = &*self.css;
        let (ta, tb) = (frame_time(a), frame_time(b));
        let span = |c: &Channel| {
            SpanTrack::new(&crate::fit::keys_from(
                &[ta, tb],
                &[(c.values[a], c.slopes[a]), (c.values[b], c.slopes[b])],
                fit,
            ))
        };
        let x = span(&css.x);
        let y = span(&css.y);
        let rot: Vec<SpanTrack> = css.rot.iter().map(span).collect();
        let along: Vec<[SpanTrack; 2]> = css
            .along
            .iter()
            .map(|[sx, sy]| [span(sx), span(sy)])
            .collect();
        let steps = (b - a) * CSS_SUBSAMPLES;
        let mut world = vec![0.0; m];
        let mut stretch = vec![Vec2::ZERO; m];
        // every SPAN_STRIDE-th instant first, then the others: the largest
        // distance is the same in any order, and a span past `limit` (most
        // of the longer spans the plan's search tries) usually shows it at
        // one of the first few
        use crate::fit::SPAN_STRIDE;
        let first = (0..=steps).step_by(SPAN_STRIDE);
        let rest = (0..=steps).filter(|k| k % SPAN_STRIDE != 0);
        for k in first.chain(rest) {
            let at = a as f64 + k as f64 / CSS_SUBSAMPLES as f64;
            let u = at / FRAMES as f64;
            let s = crate::measure::segment_progress(ta, tb, u);
            let mut shared = SharedX::default();
            let mut sum = 0.0;
            for (w, r) in world.iter_mut().zip(&rot) {
                sum += r.at(s, &mut shared);
                *w = sum;
            }
            for (st, [sx, sy]) in stretch.iter_mut().zip(&along) {
                *st = Vec2::new(sx.at(s, &mut shared), sy.at(s, &mut shared));
            }
            // (the time `a + k / CSS_SUBSAMPLES` is the table's step
            // `a · CSS_SUBSAMPLES + k`, both exact in binary)
            let i = a * CSS_SUBSAMPLES + k;
            let want = &self.recorded[i * n..(i + 1) * n];
            let mut w = css.drawn[0] + Vec2::new(x.at(s, &mut shared), y.at(s, &mut shared));
            for j in 0..m {
                w = css.joint(j, w, world[j], stretch[j]);
                worst = max_len(worst, w - want[j + 1]);
            }
            if worst > limit {
                return worst;
            }
        }
        worst
    }
}

/// `worst.max(d.len())`, bit for bit, with the length (a square root)
/// taken only where it can raise `worst`: not when `|d|²`, computed, is
/// below `worst² · (1 − 10⁻⁹)`. Then the length, the square root of that
/// same computed sum, is below `worst · (1 − 4·10⁻¹⁰)` whatever the
/// rounding of `worst²` (a few units in 2⁻⁵³). Only for `worst > 10⁻¹⁰⁰`,
/// whose square is a normal number; a NaN or infinite `d` takes the length.
#[inline]
fn max_len(worst: f64, d: Vec2) -> f64 {
    if worst > 1e-100 && d.x * d.x + d.y * d.y < worst * worst * (1.0 - 1e-9) {
        return worst;
    }
    worst.max(d.len())
}

/// One channel written over one span: a two-key track, read as
/// [`crate::measure::track_value`] reads it, `v0 + dv · ease(s)`.
struct SpanTrack {
    v0: f64,
    dv: f64,
    ease: crate::clip::Ease,
}

impl SpanTrack {
    /// The span of the first two `keys`.
    fn new(keys: &[crate::clip::Key]) -> SpanTrack {
        SpanTrack {
            v0: keys[0].value,
            dv: keys[1].value - keys[0].value,
            ease: keys[0].ease,
        }
    }

    /// The value at progress s through the span; `shared` holds the x solve
    /// of a cubic span at this s for the next channel with the same x
    /// control points.
    fn at(&self, s: f64, shared: &mut SharedX) -> f64 {
        let e = match self.ease {
            crate::clip::Ease::Linear => s,
            crate::clip::Ease::CubicBezier(b) => shared.y(b, s),
        };
        self.v0 + self.dv * e
    }
}

/// The x half of a `cubic-bezier` ([`crate::measure::bezier_param`]) at one
/// progress, kept for the channels that share its x control points.
#[derive(Default)]
struct SharedX {
    /// x1 and x2 (bits) and the parameter solved for them.
    solved: Option<(u64, u64, crate::measure::BezierAt)>,
}

impl SharedX {
    /// [`crate::measure::cubic_bezier`]`(b, s)`, s the same on every call.
    fn y(&mut self, b: [f64; 4], s: f64) -> f64 {
        let [x1, y1, x2, y2] = b;
        let key = (x1.to_bits(), x2.to_bits());
        let at = match self.solved {
            Some((k1, k2, at)) if (k1, k2) == key => at,
            _ => {
                let at = crate::measure::bezier_param(x1, x2, s);
                self.solved = Some((key.0, key.1, at));
                at
            }
        };
        crate::measure::bezier_y(y1, y2, at)
    }
}

/// One written css value per recorded frame, and its slope per unit t.
struct Channel {
    values: Vec<f64>,
    slopes: Vec<f64>,
}

impl Channel {
    fn with_capacity(n: usize) -> Channel {
        Channel {
            values: Vec::with_capacity(n),
            slopes: Vec::with_capacity(n),
        }
    }
}

/// The css route's written values on every recorded frame (see
/// [`rotation_items`]): the anchor's translation, each segment's local
/// angle (degrees) and, for a stretching chain, each joint's move along
/// its drawn segment; with slopes from the recorded frames either side.
struct CssFrames {
    /// The drawn (rounded) particles of the first frame.
    drawn: Vec<Vec2>,
    /// Segment j as drawn, `drawn[j + 1] − drawn[j]`.
    seg: Vec<Vec2>,
    /// What the values were computed from: the chain's `drawn`, recorded
    /// frames, play, particle count, `stretches` and `len_decimals` (see
    /// [`Chain::written`]).
    source: (
        Vec<Vec2>,
        crate::solve::physics::Frames,
        bool,
        usize,
        bool,
        u32,
    ),
    x: Channel,
    y: Channel,
    rot: Vec<Channel>,
    /// Empty unless the chain stretches.
    along: Vec<[Channel; 2]>,
    /// Every recorded frame's [`segments`], what [`between`] turns.
    polar: std::sync::Arc<Vec<Vec<(f64, f64, Vec2)>>>,
}

impl CssFrames {
    fn new(chain: &Chain) -> CssFrames {
        use crate::geom::DEG_DECIMALS;
        use std::f64::consts::PI;
        let m = chain.params.count - 1;
        let frames = &chain.recording.frames;
        let places = chain.len_decimals;
        let drawn: Vec<Vec2> = chain.drawn.iter().map(|p| p.quantized(places)).collect();
        let phi: Vec<f64> = (0..m)
            .map(|j| {
                let d = drawn[j + 1] - drawn[j];
                d.y.atan2(d.x)
            })
            .collect();
        let len: Vec<f64> = (0..m).map(|j| drawn[j].dist(drawn[j + 1])).collect();
        let n = frames.len();
        let mut x = Channel::with_capacity(n);
        let mut y = Channel::with_capacity(n);
        let mut rot: Vec<Channel> = (0..m).map(|_| Channel::with_capacity(n)).collect();
        let mut along: Vec<[Channel; 2]> = if chain.stretches {
            (0..m)
                .map(|_| [Channel::with_capacity(n), Channel::with_capacity(n)])
                .collect()
        } else {
            Vec::new()
        };
        // central differences, wrapped at the seam of a loop; one-sided at
        // the ends of a one-shot play (the same slope either side of a key)
        let once = chain.recording.once;
        let around = |fi: usize| match (once, fi) {
            (true, 0) => (0, 1, FRAMES as f64),
            (true, FRAMES) => (FRAMES - 1, FRAMES, FRAMES as f64),
            (false, 0) | (false, FRAMES) => (FRAMES - 1, 1, FRAMES as f64 / 2.0),
            _ => (fi - 1, fi + 1, FRAMES as f64 / 2.0),
        };
        // every recorded frame's segments (what `between` turns; their
        // directions are the slopes' too), each frame's found on its own,
        // in parallel
        let polar: Vec<Vec<(f64, f64, Vec2)>> = {
            use rayon::prelude::*;
            frames.par_iter().map(|f| segments(f)).collect()
        };
        let world_slope = |fi: usize, j: usize| {
            let (a, b, per_t) = around(fi);
            crate::geom::wrap_pi(polar[b][j].0 - polar[a][j].0).to_degrees() * per_t
        };
        let mut unwrapped = vec![0.0f64; m];
        for (fi, f) in frames.iter().enumerate() {
            let (a, b, per_t) = around(fi);
            let (a, b) = (&frames[a], &frames[b]);
            let dx = quantize(f[0].x - drawn[0].x, places);
            let dy = quantize(f[0].y - drawn[0].y, places);
            let d0 = (b[0] - a[0]) * per_t;
            x.values.push(dx);
            x.slopes.push(d0.x);
            y.values.push(dy);
            y.slopes.push(d0.y);
            let mut w = drawn[0] + Vec2::new(dx, dy);
            let (mut prev_q, mut prev_slope) = (0.0, 0.0);
            for j in 0..m {
                let d = f[j + 1] - w;
                let raw = d.y.atan2(d.x) - phi[j];
                // continuous in time: the nearest turn to the previous frame's
                let delta = raw - ((raw - unwrapped[j]) / (2.0 * PI)).round() * 2.0 * PI;
                unwrapped[j] = delta;
                let world_q = quantize(delta.to_degrees(), DEG_DECIMALS);
                rot[j].values.push(quantize(world_q - prev_q, DEG_DECIMALS));
                let slope = world_slope(fi, j);
                rot[j].slopes.push(slope - prev_slope);
                (prev_q, prev_slope) = (world_q, slope);
                // a stretching chain's joint j + 1 moves along segment j, drawn space
                let st = if chain.stretches {
                    let s = d.len() - len[j];
                    let st = Vec2::new(
                        quantize(s * phi[j].cos(), places),
                        quantize(s * phi[j].sin(), places),
                    );
                    let ds = (b[j + 1].dist(b[j]) - a[j + 1].dist(a[j])) * per_t;
                    along[j][0].values.push(st.x);
                    along[j][0].slopes.push(ds * phi[j].cos());
                    along[j][1].values.push(st.y);
                    along[j][1].slopes.push(ds * phi[j].sin());
                    st
                } else {
                    Vec2::ZERO
                };
                w = CssFrames::joint_of(&drawn, j, w, world_q, st);
            }
        }
        CssFrames {
            seg: drawn.windows(2).map(|w| w[1] - w[0]).collect(),
            drawn,
            source: (
                chain.drawn.clone(),
                frames.clone(),
                once,
                chain.params.count,
                chain.stretches,
                places,
            ),
            x,
            y,
            rot,
            along,
            polar: std::sync::Arc::new(polar),
        }
    }

    /// Whether these are the values of `chain` as it is now (its inputs
    /// equal, value for value, to the ones they were computed from).
    fn computed_from(&self, chain: &Chain) -> bool {
        let (drawn, frames, once, count, stretches, decimals) = &self.source;
        *drawn == chain.drawn
            && (std::sync::Arc::ptr_eq(frames, &chain.recording.frames)
                || *frames == chain.recording.frames)
            && *once == chain.recording.once
            && *count == chain.params.count
            && *stretches == chain.stretches
            && *decimals == chain.len_decimals
    }

    /// Joint j + 1 as written, from joint j at `w`: the drawn segment plus
    /// its stretch `st`, turned by segment j's world angle (degrees).
    fn joint(&self, j: usize, w: Vec2, world_deg: f64, st: Vec2) -> Vec2 {
        w + crate::geom::Affine::rotate(world_deg.to_radians()).apply(self.seg[j] + st)
    }

    fn joint_of(drawn: &[Vec2], j: usize, w: Vec2, world_deg: f64, st: Vec2) -> Vec2 {
        w + crate::geom::Affine::rotate(world_deg.to_radians()).apply(drawn[j + 1] - drawn[j] + st)
    }
}

/// A chain keyed as `plan` says, on either route: a nested rotation chain
/// in world space.
///
/// The chain is drawn once as straight segments through the particles of
/// recorded frame 0 (rounded), `d_0 … d_m`. Two translate groups move the
/// anchor by `particle_0(t) − d_0`; inside them segment group j rotates
/// about its drawn joint `d_j` and holds segment j's line, the probe of
/// particle j + 1 and group j + 1, so it turns by the sum of the local
/// angles of groups 0..=j: the world→local rule of the bone tree
/// (`local_j = world_j − world_(j−1)`). Drawn lengths are constant; the
/// world angle of segment j at a key points from the *written* joint j
/// (after segments 0..j) at the simulated particle j + 1, so a length
/// difference is not carried down the chain. World angles are rounded
/// first and the local keys are differences of rounded world angles, so
/// rounding does not add up along the chain either; they are unwrapped
/// frame by frame (the nearest turn to the previous recorded frame).
///
/// World space, not nested in the anchor bone: a bone's group can carry
/// the root squash (a non-uniform scale), which would stretch the
/// segments; in world space only rigid rotations and the anchor's
/// translation act on the chain.
///
/// Keys sit on the plan's recorded frames. A [`crate::fit::Fit::Cubic`]
/// span is a cubic Hermite ([`crate::fit::keys_from`]: exact
/// `cubic-bezier(1/3, y1, 2/3, y2)` timing functions), its slopes from the
/// recorded frames either side of each key (segment angles and the
/// anchor; a local slope is the difference of world slopes, so the nested
/// sum is the world angle's Hermite); a `Linear` span is straight.
///
/// `base` is the index the first returned track will have in the clip.
pub fn rotation_items(
    chain: &Chain,
    plan: &KeyPlan,
    (clip_name, groups): (&str, Option<&ChainGroups>),
    base: usize,
    class_of: &dyn Fn(&str) -> String,
) -> (Vec<crate::clip::Track>, Vec<crate::clip::Item>) {
    use crate::clip::{Anim, Axis, Ease, Item, Key, Node, Track};
    use crate::fit::Fit;
    let css = chain.written();
    let m = chain.params.count - 1;
    let drawn = &css.drawn;
    let times = plan.times();
    let keys = |c: &Channel| -> Vec<Key> {
        let samples: Vec<(f64, f64)> = plan
            .frames
            .iter()
            .map(|&fi| (c.values[fi], c.slopes[fi]))
            .collect();
        let mut keys = crate::fit::keys_from(&times, &samples, Fit::Cubic);
        for (k, fit) in keys.iter_mut().zip(&plan.fits) {
            if *fit == Fit::Linear {
                k.ease = Ease::Linear;
            }
        }
        keys
    };
    let moves = |c: &Channel| moves(plan, c);
    let own = ChainGroups::of(chain, plan);
    let groups = groups.unwrap_or(&own);
    // `children` in a group moved along `axis` by `c` (still where `c`
    // does not move in this clip), keyed as track
    // `rb-<clip>-<chain>-<track tag>`; the group's class is `rb-c-<chain>-<class tag>`
    let translated = |tracks: &mut Vec<Track>,
                      (track_tag, class_tag): (String, String),
                      axis: Axis,
                      c: &Channel,
                      children: Vec<Item>| {
        let anim = moves(c).then(|| {
            tracks.push(Track {
                name: format!("rb-{clip_name}-{}-{track_tag}", chain.name),
                keys: keys(c),
            });
            Anim::Translate {
                track: base + tracks.len() - 1,
                axis,
                delay_s: 0.0,
            }
        });
        Node {
            class: Some(format!("rb-c-{}-{class_tag}", chain.name)),
            translate: Vec2::ZERO,
            anim,
            children,
        }
    };
    let mut tracks = Vec::new();
    let mut inner: Option<Node> = None;
    for j in (0..m).rev() {
        let line = Item::Line {
            from: drawn[j],
            to: drawn[j + 1],
            class: class_of(&chain.colours[j]),
            width: chain.widths[j],
        };
        let mut children = vec![
            line.clone(),
            Item::Probe {
                name: probe(chain, j + 1),
                at: drawn[j + 1],
            },
        ];
        if let Some(g) = inner.take() {
            children.push(Item::Group(g));
        }
        // a stretching segment: its far joint (the probe, the rest of the
        // chain and a copy of the segment's line, which with the line left
        // in place covers the stretched length) moves along the drawn segment
        let mut moved = false;
        if let Some([sx, sy]) = css.along.get(j) {
            for (axis, c, tag) in [(Axis::Y, sy, "y"), (Axis::X, sx, "x")] {
                if !groups.along(j, axis) {
                    continue;
                }
                children = vec![Item::Group(translated(
                    &mut tracks,
                    (format!("s{j}{tag}"), format!("{j}s{tag}")),
                    axis,
                    c,
                    std::mem::take(&mut children),
                ))];
                moved = true;
            }
        }
        if moved {
            children.insert(0, line);
        }
        let anim = moves(&css.rot[j]).then(|| {
            tracks.push(Track {
                name: format!("rb-{clip_name}-{}-r{j}", chain.name),
                keys: keys(&css.rot[j]),
            });
            Anim::Rotate {
                track: base + tracks.len() - 1,
                origin: drawn[j],
                delay_s: 0.0,
            }
        });
        inner = Some(Node {
            class: Some(segment_class(&chain.name, j)),
            translate: Vec2::ZERO,
            anim,
            children,
        });
    }
    let mut node = inner.expect("a chain has at least one segment");
    for (axis, c, tag) in [(Axis::Y, &css.y, "y"), (Axis::X, &css.x, "x")] {
        if !groups.anchor(axis) {
            continue;
        }
        node = translated(
            &mut tracks,
            (tag.to_string(), tag.to_string()),
            axis,
            c,
            vec![Item::Group(node)],
        );
    }
    (tracks, vec![Item::Group(node)])
}

/// Whether channel `c` moves at the frames `plan` keys.
fn moves(plan: &KeyPlan, c: &Channel) -> bool {
    plan.frames.iter().any(|&fi| c.values[fi] != 0.0)
}

/// Which translated groups [`rotation_items`] writes for a chain: its
/// anchor's move along y and x, and each stretching segment's far joint's
/// move along y and x. A class-switched file draws one structure for all
/// its clips, so there each group is written where any clip moves it
/// ([`ChainGroups::add`]; still in the clips that do not).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ChainGroups {
    /// [y, x].
    anchor: [bool; 2],
    /// Per stretching segment, [y, x].
    along: Vec<[bool; 2]>,
}

impl ChainGroups {
    /// The groups that move when `chain` is keyed as `plan`.
    pub fn of(chain: &Chain, plan: &KeyPlan) -> ChainGroups {
        let css = chain.written();
        ChainGroups {
            anchor: [moves(plan, &css.y), moves(plan, &css.x)],
            along: css
                .along
                .iter()
                .map(|[sx, sy]| [moves(plan, sy), moves(plan, sx)])
                .collect(),
        }
    }

    /// Every group of `self` or of `other`.
    pub fn add(&mut self, other: &ChainGroups) {
        for (a, b) in self.anchor.iter_mut().zip(other.anchor) {
            *a |= b;
        }
        if self.along.len() < other.along.len() {
            self.along.resize(other.along.len(), [false; 2]);
        }
        for (a, b) in self.along.iter_mut().zip(&other.along) {
            a[0] |= b[0];
            a[1] |= b[1];
        }
    }

    fn anchor(&self, axis: crate::clip::Axis) -> bool {
        self.anchor[usize::from(axis == crate::clip::Axis::X)]
    }

    fn along(&self, j: usize, axis: crate::clip::Axis) -> bool {
        self.along
            .get(j)
            .is_some_and(|a| a[usize::from(axis == crate::clip::Axis::X)])
    }
}

/// Largest `|length − segment| / segment` of any segment on any recorded frame.
pub fn max_length_error(chain: &Chain) -> f64 {
    let l = chain.params.segment;
    chain
        .recording
        .frames
        .iter()
        .flat_map(|f| f.windows(2).map(move |w| (w[0].dist(w[1]) - l).abs() / l))
        .fold(0.0, f64::max)
}

/// The probe name of particle i.
pub fn probe(chain: &Chain, i: usize) -> String {
    format!("{}-p{i}", chain.name)
}

/// The class of segment j's group ([`rotation_items`]): `rb-c-<chain>-<j>`;
/// it turns about particle j.
pub fn segment_class(chain: &str, j: usize) -> String {
    format!("rb-c-{chain}-{j}")
}

/// Segment j's part name in a drawing (`rigbake template` writes it, `bake
/// --art` binds it): `<chain>-<j>`, the segment from particle j to particle
/// j + 1, as its group's class ([`segment_class`]) names it. No bone, chain
/// or `ik` entry is named so (their names hold no `-`), and no bone's
/// `parts` may be (checked with the chains).
pub fn segment_part(chain: &str, j: usize) -> String {
    format!("{chain}-{j}")
}

/// The particles in the pose a drawing shows (`rigbake template` draws
/// it, `bake --art` checks it): the recorded frame at t = 0.
pub fn phase0(chain: &Chain) -> Vec<Vec2> {
    particles_at(chain, 0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::figure::file::BoneFile;

    fn figure() -> Figure {
        let bones: Vec<BoneFile> = serde_json::from_str(
            r#"[{ "name": "head", "at": [100, 50], "length": 20,
                  "angle": { "sine": { "amp_deg": 20, "harmonic": 1, "offset_deg": -90 } } }]"#,
        )
        .unwrap();
        super::super::model::validate(&bones, None, Default::default(), &[], &[], 1.0).unwrap()
    }

    fn hair() -> ChainFile {
        serde_json::from_str(
            r#"{ "name": "hair", "anchor": { "bone": "head" }, "segments": 4, "segment": 9,
                 "wind": { "x": { "amp": 300, "harmonic": 1 } } }"#,
        )
        .unwrap()
    }

    #[test]
    fn a_short_lock_loops_keeps_its_segments_and_bakes_on_recorded_frames() {
        let fig = figure();
        let chains = validate(&[hair()], &fig, &mut Budget::default())
            .unwrap()
            .remove(0);
        let ch = &chains[0];
        assert!(ch.recording.converged && ch.recording.seam_error_px <= SEAM_TOLERANCE_PX);
        assert_eq!(ch.recording.frames.len(), FRAMES + 1);
        // the root particle is the anchor (the head's tip) on every frame
        for (k, f) in ch.recording.frames.iter().enumerate() {
            let a = anchor_at(
                &fig,
                &fig.clips[0],
                0,
                Vec2::new(20.0, 0.0),
                k as f64 / FRAMES as f64,
            );
            assert!(f[0].dist(a) < 1e-9);
            for w in f.windows(2) {
                assert!((w[0].dist(w[1]) - 9.0).abs() < 0.09);
            }
        }
        let plan = KeyPlan::uniform(24, crate::fit::Fit::Linear);
        let clip = keyed(ch, &plan, crate::clip::Route::Smil);
        // one rotation per segment (and the anchor's translation), every
        // track on the plan's 25 key times, the last particle's probe inside
        assert!(clip.tracks.len() >= 4, "{} tracks", clip.tracks.len());
        for t in &clip.tracks {
            assert_eq!(t.keys.len(), 25, "{}", t.name);
            assert_eq!(t.keys[24].t, 1.0);
        }
        assert!(crate::measure::has_probe(&clip, "hair-p4"));
        assert_eq!(ch.colours[0], "#7c2d12");
        assert_eq!(ch.colours[3], "#f59e0b");
    }

    #[test]
    fn rotation_chain_keeps_lengths_and_follows_the_particles() {
        let fig = figure();
        let ch = &validate(&[hair()], &fig, &mut Budget::default()).unwrap()[0][0];
        let n = 180;
        let plan = KeyPlan::uniform(n, crate::fit::Fit::Linear);
        let clip = keyed(ch, &plan, crate::clip::Route::Css);
        // one rotation per segment, the anchor translates on both axes
        assert_eq!(clip.tracks.len(), 4 + 2);
        let step = FRAMES / n;
        for k in 0..n {
            let t = k as f64 / n as f64;
            let got = crate::measure::probes_at(&clip, t);
            let f = &ch.recording.frames[k * step];
            let mut prev = f[0];
            for i in 1..=4 {
                let p = got[&probe(ch, i)];
                // on a key: the written particle is the simulated one
                assert!(p.dist(f[i]) < 0.05, "key {k} p{i}: {}", p.dist(f[i]));
                // every written segment is as long as the drawn one
                assert!((p.dist(prev) - 9.0).abs() < 0.09);
                prev = p;
            }
        }
    }

    #[test]
    fn the_budget_caps_the_warm_up_and_refuses_what_cannot_loop() {
        // 1 s: 3600 sub-steps; 10 updates each: 36,000 per period
        let mut b = Budget::default();
        assert_eq!(substeps(1.0), 3600);
        let per_period = 36_000;
        let fit = (SIM_BUDGET / per_period) as usize;
        assert_eq!(
            budget_warmup("c", 1.0, 3600, 10, "x", 400, &b).unwrap(),
            400
        );
        assert_eq!(
            budget_warmup("c", 1.0, 3600, 10, "x", 100_000, &b).unwrap(),
            fit - 1
        );
        b.spend(fit - 1, per_period);
        // one period left: no warm-up and recording
        let e = budget_warmup("c", 1.0, 3600, 10, "(x)", 400, &b)
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("c: simulating one period takes period_s 1 s = 3600 sub-steps × (x) = 36000 particle updates"), "{e}");
        assert!(e.contains("left after the simulations before it"), "{e}");
        // the shortest period still runs whole frames
        assert_eq!(substeps(0.001), FRAMES);
    }

    #[test]
    fn a_missing_anchor_bone_names_its_path() {
        let mut h = hair();
        h.anchor.bone = Some("hat".into());
        let err = validate(&[h], &figure(), &mut Budget::default())
            .unwrap_err()
            .to_string();
        assert!(err.contains("chains[0].anchor.bone"), "{err}");
    }

    /// A head that nods once early in an 8 s one-shot clip and
    /// then holds, with a short lock of hair that settles in the hold.
    fn one_shot() -> Chain {
        let bones: Vec<BoneFile> = serde_json::from_str(
            r#"[{ "name": "head", "at": [100, 50], "length": 20,
                  "angle": { "track": { "keys": [[0, -90], [0.03, -40], [0.06, -90]],
                                        "ease": ["smoothstep", "smoothstep"] } } }]"#,
        )
        .unwrap();
        let fig = super::super::model::validate(
            &bones,
            None,
            super::super::file::Play::Once,
            &[],
            &[],
            8.0,
        )
        .unwrap();
        let mut h = hair();
        h.wind = None;
        h.damping = Some(0.9);
        let mut chains = validate(&[h], &fig, &mut Budget::default()).unwrap();
        chains.remove(0).remove(0)
    }

    /// Looping chains of several kinds: wind-blown, stretching (seed
    /// 004's scheme), pushed round a collider.
    fn loops() -> Vec<Chain> {
        let fig = figure();
        let mut stretchy = hair();
        stretchy.name = "soft".into();
        stretchy.iterations = Some(2);
        let mut pushed = hair();
        pushed.name = "pushed".into();
        pushed.colliders = vec![ColliderFile {
            center: [112.0, 60.0],
            radius: 6.0,
        }];
        [hair(), stretchy, pushed]
            .into_iter()
            .map(|c| validate(&[c], &fig, &mut Budget::default()).unwrap()[0].remove(0))
            .collect()
    }

    /// `chain` alone keyed as `plan` for `route`, as a clip of 1 s.
    fn keyed(chain: &Chain, plan: &KeyPlan, route: crate::clip::Route) -> crate::clip::Clip {
        use crate::clip::{Clip, Node};
        let class = |c: &str| c.to_string();
        let (tracks, items) = rotation_items(chain, plan, ("main", None), 0, &class);
        Clip {
            name: "t".into(),
            route,
            period_s: 1.0,
            view_box: [0.0, 0.0, 200.0, 200.0],
            tracks,
            root: Node {
                children: items,
                ..Default::default()
            },
            legs: Vec::new(),
            figure: None,
            ground_wrap_px: None,
        }
    }

    const ROUTES: [crate::clip::Route; 2] = [crate::clip::Route::Css, crate::clip::Route::Smil];

    #[test]
    fn a_one_shot_chain_that_holds_still_takes_few_keys_in_its_hold() {
        use crate::fit::Fit;
        let ch = one_shot();
        assert!(ch.recording.once);
        let frames = &ch.recording.frames;
        // the hold: from the first frame after which no particle is ever
        // more than 0.02 px from where it ends
        let last = &frames[FRAMES];
        let still = |f: &Vec<Vec2>| f.iter().zip(last).all(|(a, b)| a.dist(*b) <= 0.02);
        let hold = (0..=FRAMES)
            .rev()
            .take_while(|&f| still(&frames[f]))
            .last()
            .unwrap();
        assert!(hold < FRAMES / 2, "the hair settles late: frame {hold}");
        for route in ROUTES {
            let placer = Placer::new(&ch, route);
            let plan = placer.plan(Fit::Cubic, KEY_BUDGET_PX);
            assert_eq!((plan.frames[0], *plan.frames.last().unwrap()), (0, FRAMES));
            let in_hold = plan.frames.iter().filter(|&&f| f > hold).count();
            let moving = plan.frames.iter().filter(|&&f| f <= hold).count();
            // the hold takes at most a key where the last motion fades and
            // the clip's last key, however long it is
            assert!(
                in_hold <= 2,
                "{route:?}: {in_hold} keys in the hold, plan {:?}",
                plan.frames
            );
            assert!(moving > in_hold, "{route:?}: {moving} keys in the motion");
            // uniform keys as dense as the motion needs would key the hold too
            let spacing = plan
                .frames
                .windows(2)
                .map(|w| w[1] - w[0])
                .filter(|&d| d > 0);
            let densest = spacing.min().unwrap();
            assert!(
                plan.keys() * 4 < FRAMES / densest,
                "{route:?}: {} keys",
                plan.keys()
            );
            // and the written chain keeps the budget on every frame
            let clip = keyed(&ch, &plan, route);
            for (f, want) in frames.iter().enumerate() {
                let got = crate::measure::probes_at(&clip, f as f64 / FRAMES as f64);
                for i in 1..want.len() {
                    let d = got[&probe(&ch, i)].dist(want[i]);
                    assert!(d <= KEY_BUDGET_PX + 1e-3, "{route:?} frame {f} p{i}: {d}");
                }
            }
        }
    }

    #[test]
    fn every_recorded_frame_of_a_looped_chain_is_within_budget_of_the_written_keys() {
        use crate::fit::Fit;
        for ch in &loops() {
            for (route, fit) in [
                (crate::clip::Route::Css, Fit::Cubic),
                (crate::clip::Route::Css, Fit::Linear),
                (crate::clip::Route::Smil, Fit::Linear),
            ] {
                for budget in [0.05, KEY_BUDGET_PX, 0.2] {
                    let plan = Placer::new(ch, route).plan(fit, budget);
                    assert!(
                        plan.keys() < FRAMES,
                        "{} {route:?}: every frame keyed",
                        ch.name
                    );
                    let clip = keyed(ch, &plan, route);
                    let mut worst = 0.0f64;
                    for (f, want) in ch.recording.frames.iter().enumerate() {
                        let got = crate::measure::probes_at(&clip, f as f64 / FRAMES as f64);
                        for i in 1..want.len() {
                            worst = worst.max(got[&probe(ch, i)].dist(want[i]));
                        }
                    }
                    // (key times are written to 1e-6 of the period)
                    assert!(
                        worst <= budget + 1e-3,
                        "{} {route:?} {fit:?} budget {budget}: {worst} px with {} keys",
                        ch.name,
                        plan.keys()
                    );
                }
            }
        }
    }

    /// [`Placer::span_error`] the straightforward way: every channel a
    /// track read by [`crate::measure::track_value`], every joint turned
    /// from the drawn particles.
    fn span_error_reference(pl: &Placer, a: usize, b: usize, fit: crate::fit::Fit) -> f64 {
        let frames = &pl.chain.recording.frames;
        let n = pl.chain.params.count;
        let mut worst = 0.0f64;
        let css = &pl.css;
        let (ta, tb) = (frame_time(a), frame_time(b));
        let span = |c: &Channel| {
            let keys = crate::fit::keys_from(
                &[ta, tb],
                &[(c.values[a], c.slopes[a]), (c.values[b], c.slopes[b])],
                fit,
            );
            move |u: f64| crate::measure::track_value(&keys, u)
        };
        let (x, y) = (span(&css.x), span(&css.y));
        let rot: Vec<_> = css.rot.iter().map(span).collect();
        let along: Vec<[_; 2]> = css
            .along
            .iter()
            .map(|[sx, sy]| [span(sx), span(sy)])
            .collect();
        let mut world = vec![0.0; n - 1];
        let mut stretch = vec![Vec2::ZERO; n - 1];
        for k in 0..=(b - a) * CSS_SUBSAMPLES {
            let at = a as f64 + k as f64 / CSS_SUBSAMPLES as f64;
            let u = at / FRAMES as f64;
            let mut sum = 0.0;
            for (j, r) in rot.iter().enumerate() {
                sum += r(u);
                world[j] = sum;
            }
            for (j, [sx, sy]) in along.iter().enumerate() {
                stretch[j] = Vec2::new(sx(u), sy(u));
            }
            let f = (at.floor() as usize).min(FRAMES - 1);
            let s = at - f as f64;
            let mut want = Vec::new();
            between(&frames[f], &frames[f + 1], s, &mut want);
            let mut w = css.drawn[0] + Vec2::new(x(u), y(u));
            for j in 0..n - 1 {
                w = CssFrames::joint_of(&css.drawn, j, w, world[j], stretch[j]);
                worst = worst.max(w.dist(want[j + 1]));
            }
        }
        worst
    }

    /// The shared span evaluation returns the straightforward one's value
    /// bit for bit where the span keeps `limit`, and a value over `limit`
    /// (one of the span's, so at most its largest) exactly where it does
    /// not: looping, stretching, pushed and one-shot chains, both shapes,
    /// spans short and long, with and without an early stop.
    #[test]
    fn span_error_is_the_straightforward_evaluation() {
        use crate::fit::Fit;
        let mut chains = loops();
        chains.push(one_shot());
        let mut stopped = 0;
        for ch in &chains {
            for route in ROUTES {
                let pl = Placer::new(ch, route);
                for (a, b) in [(0, 1), (0, 7), (13, 40), (100, 101), (350, 720), (700, 720)] {
                    for fit in [Fit::Cubic, Fit::Linear] {
                        for limit in [0.0, 0.02, KEY_BUDGET_PX, f64::INFINITY] {
                            let got = pl.span_error(a, b, fit, limit);
                            let want = span_error_reference(&pl, a, b, fit);
                            let at = format!("{} {route:?} {a}..{b} {fit:?} {limit}", ch.name);
                            if want <= limit {
                                assert_eq!(got.to_bits(), want.to_bits(), "{at}: {got} vs {want}");
                            } else {
                                assert!(got > limit && got <= want, "{at}: {got} vs {want}");
                                stopped += 1;
                            }
                        }
                    }
                }
            }
        }
        // the early stop was taken, and spans ran to their end
        assert!(stopped > 20 && stopped < 8 * 6 * 2 * 4, "{stopped}");
    }

    /// `max_len` is `max` of the length bit for bit: lengths just under,
    /// at and over the running max in every direction, far below and
    /// far over it, tiny, huge, infinite and NaN differences.
    #[test]
    fn max_len_is_the_max_of_the_length() {
        let mut skipped = 0;
        let worsts = [
            0.0,
            1e-300,
            1e-100,
            2e-100,
            1e-7,
            0.0123,
            0.09,
            1.0,
            37.5,
            1e150,
            f64::INFINITY,
        ];
        for &worst in &worsts {
            for k in 0..360 {
                let (s, c) = (k as f64 * 0.0174533 + 0.1).sin_cos();
                for f in [
                    0.0,
                    1e-9,
                    0.5,
                    1.0 - 1e-6,
                    1.0 - 5e-10,
                    1.0 - 1e-12,
                    1.0 - 1e-16,
                    1.0,
                    1.0 + 1e-16,
                    1.0 + 1e-12,
                    2.0,
                    1e10,
                ] {
                    let r = worst * f;
                    let d = Vec2::new(r * c, r * s);
                    let want = worst.max(d.len());
                    assert_eq!(
                        max_len(worst, d).to_bits(),
                        want.to_bits(),
                        "{worst} {f} {k}"
                    );
                    skipped += (worst.max(d.len()) == worst && d.len() < worst) as usize;
                }
            }
            for d in [
                Vec2::new(f64::NAN, 1.0),
                Vec2::new(f64::INFINITY, 0.0),
                Vec2::new(1e-200, 1e-200),
                Vec2::new(1e200, -1e200),
                Vec2::ZERO,
            ] {
                assert_eq!(
                    max_len(worst, d).to_bits(),
                    worst.max(d.len()).to_bits(),
                    "{worst} {d:?}"
                );
            }
        }
        assert!(skipped > 10_000, "{skipped}");
    }

    /// The written values' bits, for comparing two [`CssFrames`].
    fn written_bits(c: &CssFrames) -> Vec<u64> {
        let ch = |c: &Channel| {
            c.values
                .iter()
                .chain(&c.slopes)
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        let mut out: Vec<u64> = c
            .drawn
            .iter()
            .flat_map(|p| [p.x.to_bits(), p.y.to_bits()])
            .collect();
        out.extend(ch(&c.x));
        out.extend(ch(&c.y));
        for r in &c.rot {
            out.extend(ch(r));
        }
        for [a, b] in &c.along {
            out.extend(ch(a));
            out.extend(ch(b));
        }
        out
    }

    /// Between two frames the root particle moves along the straight line
    /// and each segment turns the shorter way (across ±180° too) at the
    /// linear blend of its two lengths; the first frame comes back bit for
    /// bit, the second to rounding.
    #[test]
    fn between_frames_a_segment_turns_at_its_length() {
        let polar = |r: f64, deg: f64| Vec2::from_angle(deg.to_radians()) * r;
        let a = [
            Vec2::ZERO,
            polar(10.0, 0.0),
            polar(10.0, 0.0) + polar(10.0, 170.0),
        ];
        let root = Vec2::new(2.0, 0.0);
        let b1 = root + polar(12.0, 90.0);
        let b = [root, b1, b1 + polar(10.0, -170.0)];
        let mut out = Vec::new();
        between(&a, &b, 0.0, &mut out);
        assert_eq!(out, a);
        between(&a, &b, 1.0, &mut out);
        for (p, q) in out.iter().zip(&b) {
            assert!(p.dist(*q) < 1e-12, "{p:?} {q:?}");
        }
        between(&a, &b, 0.5, &mut out);
        let p1 = Vec2::new(1.0, 0.0) + polar(11.0, 45.0);
        // 170° to -170°: 20° the shorter way, through 180°
        let want = [Vec2::new(1.0, 0.0), p1, p1 + polar(10.0, 180.0)];
        for (p, q) in out.iter().zip(&want) {
            assert!(p.dist(*q) < 1e-12, "{p:?} {q:?}");
        }
        // the straight line would have shortened the first segment
        let chord = (a[1] + b[1]) * 0.5 - (a[0] + b[0]) * 0.5;
        assert!(chord.length() < 11.0 - 2.0);
    }

    /// A chain's recorded particles read the same whether or not it is
    /// drawn yet (its segments then measured afresh, not kept).
    #[test]
    fn particles_between_frames_need_no_drawn_pose() {
        for ch in loops() {
            let mut bare = ch.clone();
            bare.drawn.clear();
            for k in 0..=97 {
                let u = k as f64 / 97.0;
                assert_eq!(particles_at(&bare, u), particles_at(&ch, u), "{u}");
            }
        }
    }

    /// The kept written values are the ones computed afresh, and a chain
    /// whose drawn particles or recording change after they were kept gets
    /// its new values, not the kept ones.
    #[test]
    fn kept_written_values_follow_the_chain() {
        for ch in loops() {
            let kept = ch.written();
            assert!(std::sync::Arc::ptr_eq(&kept, &ch.written()), "kept once");
            assert_eq!(written_bits(&kept), written_bits(&CssFrames::new(&ch)));
            let mut moved = ch.clone();
            moved.drawn[2].x += 0.5;
            assert_eq!(
                written_bits(&moved.written()),
                written_bits(&CssFrames::new(&moved))
            );
            assert_ne!(written_bits(&moved.written()), written_bits(&kept));
            let mut resimulated = ch.clone();
            std::sync::Arc::make_mut(&mut resimulated.recording.frames)[360][3].y += 0.5;
            assert_eq!(
                written_bits(&resimulated.written()),
                written_bits(&CssFrames::new(&resimulated))
            );
            assert_ne!(written_bits(&resimulated.written()), written_bits(&kept));
            // a copy that is not changed reads the kept values
            assert!(std::sync::Arc::ptr_eq(&ch.clone().written(), &kept));
            // one written to 0.001 px (a bake under a tight tolerance) gets
            // values rounded so, not the kept ones
            let mut fine = ch.clone();
            fine.len_decimals = crate::geom::FINE_LEN_DECIMALS;
            let w = fine.written();
            assert_eq!(written_bits(&w), written_bits(&CssFrames::new(&fine)));
            assert_ne!(written_bits(&w), written_bits(&kept));
            for (p, drawn) in w.drawn.iter().zip(&ch.drawn) {
                assert_eq!(*p, drawn.quantized(crate::geom::FINE_LEN_DECIMALS));
            }
            let thousandths = |p: &Vec2| [p.x, p.y].map(|v| (v * 1000.0).round() % 10.0 != 0.0);
            assert!(
                w.drawn.iter().any(|p| thousandths(p).contains(&true)),
                "{:?}",
                w.drawn
            );
        }
    }

    #[test]
    fn the_seam_of_a_looping_chain_stays_closed() {
        use crate::fit::Fit;
        for ch in &loops() {
            assert!(!ch.recording.once);
            for route in ROUTES {
                let plan = Placer::new(ch, route).plan(Fit::Cubic, KEY_BUDGET_PX);
                let clip = keyed(ch, &plan, route);
                // the last written instant of the loop and the first
                let end = crate::measure::probes_at(&clip, 1.0 - 1e-9);
                let start = crate::measure::probes_at(&clip, 0.0);
                for i in 1..ch.params.count {
                    let name = probe(ch, i);
                    let d = end[&name].dist(start[&name]);
                    // the recording's own seam plus rounding as written
                    assert!(
                        d <= ch.recording.seam_error_px + 0.02,
                        "{} {route:?} p{i}: {d} px across the seam",
                        ch.name
                    );
                }
                // no track closes by a whole turn (a spin at the seam)
                for tr in &clip.tracks {
                    let (a, b) = (tr.keys[0].value, tr.keys[tr.keys.len() - 1].value);
                    assert!((a - b).abs() < 1.0, "{}: {a} → {b}", tr.name);
                }
            }
        }
    }
}
