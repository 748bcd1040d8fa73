//! rigbake: bake procedural 2D character motion into runtime-free animated SVG.
//!
//! # Pipeline
//!
//! ```text
//! rig file ──rig::parse/validate──▶ Rig (every rig a bone tree, `Rig.figure`:
//!   a cycling or `ik_chains` rig loads as the tree it lowers into, rig::lower)
//!   ──figure (FK, IK, springs, chains: ideal poses; fitted keys)──▶ Clip
//!     (parent-relative tracks + keys, rounded as written)
//!   ──emit (css or smil)──▶ SVG text
//!   ──measure::measure_probes (evaluates the written tracks as a browser does)
//!   ──report::build_figure──▶ Report
//! ```
//!
//! Each stage is a pure function of the previous one; files and exit codes
//! live in `main.rs` only. [`bake_rig`] runs the whole pipeline with the
//! options of [`bake`] ([`bake::BakeOptions`]).
//!
//! # Units and angles
//!
//! Lengths and coordinates are SVG user units ("px"), y pointing down. Times
//! are seconds (`_s`) or normalised `t ∈ [0, 1]` of one period. Angles are
//! radians (`_rad`) except where CSS/SVG want degrees (`_deg`, emit only).
//! **A positive angle turns +x toward +y: clockwise on screen**, the same sense
//! as CSS `rotate()`.
//!
//! # Layers
//!
//! Bottom to top; a module names only modules of lower layers, so there is
//! no import cycle (`tests/layers.rs` reads every `crate::` path to keep it
//! so). The written animation ([`clip`]) and the stages that write and judge
//! it ([`fit`], [`emit`], [`measure`]) know nothing of rig kinds; the solver
//! knows nothing of the file format's loader; nothing in the library parses
//! a command line (that is `main.rs`).
//!
//! 0. [`geom`] (kurbo's `Vec2` and `Affine` and what rigbake adds to them,
//!    angle wrap/unwrap and the one unwrap table, the one number
//!    formatter), [`input`] (reading files, escaping text shown in
//!    messages), [`interrupt`] (what SIGINT/SIGTERM cleans up).
//! 1. [`valid`]: the one place numbers, names, colours, keys, tolerances and
//!    periods are checked; `RigError`.
//! 2. [`trajectory`]: periodic paths (circle, ellipse, gait, bob, track,
//!    path) and the ideal target a chain aims at.
//! 3. [`clip`]: the written animation as data (tracks, keys, probes, how a
//!    clip plays, the segment shape); [`solve`] (two-bone IK, physics: of
//!    geometry alone, so the keyer's tests may solve a limb).
//! 4. [`fit`] (the one keyer: uniform keys
//!    or the fewest under a tolerance; bake options), [`emit`] (clip → SVG,
//!    the looks a figure is drawn in, [`emit::style`];
//!    one writer per route; every name scoped to the file, [`emit::scope`]),
//!    [`measure`] (independent evaluator of the written clip).
//! 5. [`report`]: figures as text or JSON, from a clip and its measurement;
//!    [`plot`]: SVG charts of error versus key count.
//! 6. [`chain`]: the `ik_chains` format (two-bone chains on trajectories,
//!    loaded as the bone tree they lower into), reach rules, ground scroll.
//! 7. [`figure`]: bone trees (FK, IK bones, eased tracks, squash, springs,
//!    Verlet chains, clips, far-limb key reuse): the bake of every rig.
//! 8. [`rig`]: the JSON format and its loading into the validated `Rig`
//!    (a cycling rig, `crank` + `legs`, lowered into its bone tree,
//!    `rig::lower`).
//! 9. [`schema`] (the JSON Schema of the rig format).
//! 10. [`bake`]: the options of one bake (keying, fit, route), resolved
//!     from a rig and the command line; the bake itself is [`bake_rig`].
//! 11. Commands built on the pipeline: [`sweep`] (error versus key count), [`art`] (`bake --art`), [`template`], [`gallery`],
//!     [`browser`] (headless Chromium and Firefox), [`watch`] (`bake --watch`).
//!
//! [`bake_rig`] (this file) runs the pipeline for any rig.

pub mod art;
pub mod bake;
pub mod browser;
pub mod chain;
pub mod clip;
pub mod emit;
pub mod figure;
pub mod fit;
pub mod gallery;
pub mod geom;
pub mod input;
pub mod interrupt;
pub mod measure;
pub mod plot;
pub mod report;
pub mod rig;
pub mod schema;
pub mod solve;
pub mod sweep;
pub mod template;
pub mod trajectory;
pub mod valid;

#[cfg(test)]
mod tests;
pub mod watch;

pub use clip::Route;

/// A finished bake: the clip, its SVG text and its report.
#[derive(Debug, Clone)]
pub struct Baked {
    /// The first (for most rigs the only) clip.
    pub clip: clip::Clip,
    /// Every clip the SVG holds, `clip` first (a bone tree's `clips`).
    pub clips: Vec<clip::Clip>,
    pub svg: String,
    pub report: report::Report,
}

impl Baked {
    /// A bake of one clip.
    pub fn one(clip: clip::Clip, svg: String, report: report::Report) -> Baked {
        Baked {
            clips: vec![clip.clone()],
            clip,
            svg,
            report,
        }
    }
}

/// Run the whole pipeline on a validated rig.
///
/// With [`bake::Keying::Tolerance`], the fitter works to its own dense
/// estimate with a small margin; the written clip is then measured
/// independently and, should any leg still exceed the tolerance (rounding,
/// a peak between the fitter's samples), refitted with a tighter internal
/// tolerance (the crate's one retry loop, `tighten`: up to
/// [`TOLERANCE_RETRIES`] times, fewer when retries stop closing the
/// miss). The report's
/// `max_error_px` is always the independent measurement; callers compare it
/// with the tolerance (`bake` refuses to write a file that misses it).
///
/// Under a tolerance tighter than [`valid::TIGHT_TOLERANCE_PX`], the
/// figure's moving coordinates are rounded to 0.001 px instead of 0.01
/// ([`fit::Keying::len_decimals`]).
pub fn bake_rig(rig: &rig::Rig, opts: &bake::BakeOptions) -> Baked {
    let decimals = opts.keying.len_decimals();
    let fine;
    let fig = if decimals == rig.figure.len_decimals {
        &rig.figure
    } else {
        fine = rig.figure.written_to(decimals);
        &fine
    };
    let mut baked = bake_figure_rig(rig, fig, opts);
    baked.report.notes.splice(0..0, rig.notes.iter().cloned());
    if let fit::Keying::Goal(px) = opts.keying {
        baked.report.notes.extend(goal_missed(&baked.report, px));
    }
    baked
}

/// A note when a bake at the default goal (`px`, not a promise) wrote a
/// probe past it: which probe, and why it may stay so.
fn goal_missed(report: &report::Report, px: f64) -> Option<String> {
    let worst = report.worst_probe().filter(|p| p.max_error_px > px)?;
    Some(format!(
        "goal: the default {} px is not met: best found {} {} px (an error no key closes, such as a target clamped out of reach or the cusp where it leaves its reach, stays; --tolerance {} would refuse the file)",
        geom::fmt_num(px, 4),
        worst.label(),
        geom::fmt_num(worst.max_error_px, 4),
        geom::fmt_num(px, 4),
    ))
}

/// The error a fitted bake of `fig` is judged by against its goal (the
/// retries, and the choice between shapes): `report`'s largest, but that a
/// `"reach": "clamp"` leg's error counts the gap between the target and
/// the reachable foot, which no key closes, so such a leg is judged by its
/// lower bone's tip (the foot against the solved pose), as every other
/// probe is judged. The report still counts the gap, and an asked
/// tolerance refuses it.
pub fn judged_error_px(fig: &figure::Figure, report: &report::Report) -> f64 {
    let clamped: Vec<String> = (fig.ik.iter().enumerate())
        .filter(|(_, k)| k.reach == chain::ChainReach::Clamp)
        .map(|(i, _)| fig.ik_label(i))
        .collect();
    report.max_error_px_but(|leg| {
        let own = leg.rsplit(':').next().unwrap_or(leg);
        clamped.iter().any(|c| c == own)
    })
}

/// A bone-tree rig: every clip baked for one route into one SVG and
/// measured bone by bone against FK; `clip` is the first clip.
///
/// Keying ([`figure::bake::Keyer`]) acts on every fitted channel (sine and
/// IK bones, `move` lift, heads, target probes, springs, Verlet chains);
/// constants and eased tracks are written exactly whatever is asked:
/// - `Tolerance(px)`: every fitted channel to one budget, starting at 0.8
///   of the tolerance and shrunk by how far the measured file missed it
///   ([`tighten`]) until the file keeps it, up to [`TOLERANCE_RETRIES`]
///   times, fewer when retries stop closing the miss (the caller refuses
///   a file that still misses it); a `"reach":
///   "clamp"` leg, whose error counts a gap no key closes, is judged there
///   by its bones' tips; where the shortest shapes (the css default) miss
///   it, every channel cubic and every channel linear are fitted too, and
///   the least error of the three taken;
/// - the default `Goal(px)` ([`bake::DEFAULT_TOLERANCE_PX`]): the same,
///   but not a promise (the report carries no tolerance), and of the
///   three shapes the fewest bytes of those the least error is not clearly
///   less than ([`fit::least_miss`]);
/// - `Uniform(n)`: `n` uniform keys per fitted channel; `Budget(n)`: at
///   most `n`, placed where each channel bends ([`fit::placed_keys`]).
fn bake_figure_rig(rig: &rig::Rig, fig: &figure::Figure, opts: &bake::BakeOptions) -> Baked {
    use figure::bake::{ChannelKeys, Keyer};
    // every refit solves the same ideal motion
    let ideal = figure::ideal::Ideal::default();
    let shortest = opts.shortest_shape && opts.route == Route::Css;
    let shape = (opts.fit, shortest);
    let run = |keys: ChannelKeys, goal_px: Option<f64>, (fit, shortest_shape): (fit::Fit, bool)| {
        let keyer = Keyer {
            keys,
            fit,
            shortest_shape,
        };
        let fb = figure::bake_figure_shared(
            &rig.name,
            rig.view_box,
            fig,
            (opts.route, keyer, goal_px),
            rig.prefix.as_deref(),
            &ideal,
        );
        let report = report::build_figure(&fb, opts.route);
        (fb, report)
    };
    const EXACT: &str = "constant channels and eased tracks are written exactly as given (an eased track's keys are its own, none fitted)";
    let fit = opts.fit.as_str();
    // (`--fit shortest` acts where channels are fitted to a budget)
    let fitted = if shortest {
        "cubic or linear, whichever writes fewer bytes per channel or IK limb"
    } else {
        fit
    };
    let mut limbs_note = None;
    let (fb, mut report, note, tolerance) = match opts.keying {
        bake::Keying::Uniform(n) => {
            let (fb, r) = run(ChannelKeys::Uniform(n), None, shape);
            let note = format!("keys: {n} uniform {fit} keys on every fitted channel; {EXACT}");
            (fb, r, Some(note), None)
        }
        bake::Keying::Budget(n) => {
            let (fb, r) = run(ChannelKeys::Placed(n), None, shape);
            let note = format!(
                "keys: at most {n} {fit} keys on every fitted channel, placed where it bends; {EXACT}"
            );
            (fb, r, Some(note), None)
        }
        bake::Keying::Tolerance(px) | bake::Keying::Goal(px) => {
            // the default goal is not a promise (see Keying::Goal)
            let promised = matches!(opts.keying, bake::Keying::Tolerance(_));
            let first = px * fit::TREE_FIRST_BUDGET;
            let worst_of = |r: &report::Report| judged_error_px(fig, r);
            let fit_with = |shape: (fit::Fit, bool)| {
                tighten(first, (Some(px), promised), |budget| {
                    let (fb, r) = run(ChannelKeys::Budget(budget), Some(px), shape);
                    let worst = worst_of(&r);
                    ((fb, r), worst)
                })
            };
            let ((mut fb, mut r), mut budget) = fit_with(shape);
            let mut fitted = fitted.to_string();
            // The shortest shapes buy bytes, not error: where their best
            // bake misses the goal, every channel's cubic keys and every
            // channel's linear keys (`--fit cubic`, `--fit linear`) are
            // baked too, and of the three the one taken is, for an asked
            // tolerance (which a miss refuses), the least error (the first
            // of equals); for the default goal, the fewest bytes of those
            // the least error is not clearly less than (`fit::least_miss`,
            // as every choice between misses); each shape through its own
            // retries (one bake of each at the first budget missed the
            // 6.94 px a generated rig's linear keys reach by their retries,
            // against 8.45). A shape chosen per channel by its bytes can
            // cost the file its goal where every shape misses a channel's
            // budget: a generated rig's spring, linear, left its head's
            // rim 0.253 px off where cubic keys left 0.2217, so
            // `--tolerance 0.25` refused a file it could write; an IK arm
            // crossing a 57° turn in a thousandth of the period in one
            // cubic segment missed by 52.6 px where linear keys missed by
            // 13.1 (`tests/misses.rs`).
            let missed = worst_of(&r);
            if shortest && missed > px {
                let alone = |f: fit::Fit| fit_with((f, false));
                let (cubic, linear) =
                    rayon::join(|| alone(fit::Fit::Cubic), || alone(fit::Fit::Linear));
                let mut tried = vec![(fit::Fit::Cubic, cubic), (fit::Fit::Linear, linear)];
                // (worst error, bytes): the shortest shapes' bake first
                let mut found = vec![(missed, fb.svg.len())];
                found.extend(
                    tried
                        .iter()
                        .map(|(_, ((fb, r), _))| (worst_of(r), fb.svg.len())),
                );
                let pick = if promised {
                    (0..found.len()).min_by(|&a, &b| found[a].0.total_cmp(&found[b].0))
                } else {
                    fit::least_miss(&found, px)
                };
                if let Some(i) = pick.filter(|&i| i > 0) {
                    let (f, ((fb_i, r_i), budget_i)) = tried.swap_remove(i - 1);
                    fitted = format!(
                        "{} on every channel: with cubic or linear, whichever writes fewer bytes per channel or IK limb, the file missed {px} px by {} px",
                        f.as_str(),
                        geom::fmt_num(missed - px, 4)
                    );
                    (fb, r, budget) = (fb_i, r_i, budget_i);
                }
            }
            let note = format!(
                "keys: every fitted channel fitted ({fitted}) to {} px of probe movement to keep {px} px; {EXACT}",
                geom::fmt_num(budget, 4)
            );
            // an IK limb with nothing moving above it or hanging from it
            // takes a larger share (`figure::bake::error_alone`; named
            // where that holds in every clip)
            let alone: Vec<String> = (0..fig.ik.len())
                .filter(|&i| (fig.clips.iter()).all(|c| figure::bake::error_alone(fig, c, i)))
                .map(|i| fig.ik_label(i))
                .collect();
            limbs_note = (!alone.is_empty()).then(|| {
                format!(
                    "keys: the IK limbs {} (nothing moving above them or hanging from them) fitted to {} px",
                    alone.join(", "),
                    geom::fmt_num(budget * figure::morph::BUDGET_SHARE, 4)
                )
            });
            (fb, r, Some(note), promised.then_some(px))
        }
    };
    let note = match note {
        Some(_) if !figure::bake::has_fitted_channels(fig) => Some(
            "keys: every channel of this rig is a constant or an exact eased track: --keys and --fit change nothing, --tolerance only checks"
                .to_string(),
        ),
        n => n,
    };
    report.tolerance_px = tolerance;
    report
        .notes
        .splice(0..0, note.into_iter().chain(limbs_note));
    report.notes.extend(morph_note(fig, opts.route));
    Baked {
        clip: fb.clips[0].clone(),
        clips: fb.clips,
        svg: fb.svg,
        report,
    }
}

/// On the smil route, a note naming the `ik` limbs written as a `d` morph
/// ([`figure::morph`]), as a cycling rig's legs are written.
fn morph_note(fig: &figure::Figure, route: Route) -> Option<String> {
    let names: Vec<String> = (0..fig.ik.len())
        .filter(|&i| figure::morph::entry_of(fig, route, fig.ik[i].upper).is_some())
        .map(|i| fig.ik_label(i))
        .collect();
    (!names.is_empty()).then(|| {
        format!(
            "smil route: {} written as d morphs (\"smil\": \"morph\"): linear keys, fitted to the effector alone; the bones stretch between keys",
            names.join(", ")
        )
    })
}

/// How often [`bake_rig`] refits with a tighter internal tolerance.
pub const TOLERANCE_RETRIES: usize = 6;

/// The retry loop of every fitted bake (every rig is a bone tree):
/// `bake(budget)` bakes with keys fitted to `budget` and returns
/// the written file's measured worst error. Without a `goal` the first
/// bake is kept. Otherwise the budget starts at `first`; after a bake that
/// misses the goal it is scaled by how far the bake missed, `goal / worst`
/// (the worst error grows about in proportion to the budget), with
/// [`RETRY_MARGIN`] to land under the goal, and at least [`RETRY_LEAST`]
/// and at most [`RETRY_MOST`] of itself; until a bake meets the goal (it
/// is returned with its budget), [`TOLERANCE_RETRIES`] retries are spent,
/// or [`RETRY_STALLS`] retries in a row gained nothing (missed by no less
/// than [`fit::MISS_GAIN`] of the least miss so far,
/// [`fit::misses_less`]) and one more by [`RETRY_LEAST`] gained nothing
/// either: an error that a tighter budget does not lower (a cusp the keys
/// cannot follow, a gap no key closes) would only buy keys and time, but
/// one that falls only at a much tighter budget (keys changing shape; a
/// generated bone rig missed 0.25 px by 0.014 px at the first three
/// budgets, from 0.2 px, and kept it at 0.045 px) is reached by that one
/// step. A goal missed returns the best bake: the last clearly better
/// than those before it ([`fit::clearly_less`]), so a tighter bake that
/// missed by a hair less does not replace a looser one
/// (a generated rig whose target is clamped out of reach, kept at a
/// budget of 0.0046 px, wrote 125 KB for 0.469 px, where 17 KB kept
/// 0.4703 px, and 18 KB do now that the rest of its limb keeps the budget
/// beside the cusp: `tests/misses.rs`). A `promised` goal (an asked tolerance,
/// whose miss the caller refuses, writing nothing) returns the bake of the
/// least error instead, the first of equals: the refusal names the least
/// error found.
pub(crate) fn tighten<T>(
    first: f64,
    (goal, promised): (Option<f64>, bool),
    mut bake: impl FnMut(f64) -> (T, f64),
) -> (T, f64) {
    let mut budget = first;
    let mut retries = 0;
    let mut stalls = 0;
    let mut leaped = false;
    // (the least worst error so far, and the best missing bake: baked,
    // worst error, budget)
    let mut least: Option<f64> = None;
    let mut best: Option<(T, f64, f64)> = None;
    loop {
        let (baked, worst) = bake(budget);
        let Some(goal) = goal else {
            return (baked, budget);
        };
        // (a NaN worst misses, and is worse than any)
        if worst <= goal {
            return (baked, budget);
        }
        let worst = if worst.is_nan() { f64::INFINITY } else { worst };
        // (a gain closes the miss: near the goal a small step is a gain)
        match least {
            Some(l) if !fit::misses_less(worst, l, goal) => stalls += 1,
            _ => stalls = 0,
        }
        least = Some(least.map_or(worst, |l: f64| l.min(worst)));
        // (a bake not clearly better is no better, however little less it
        // misses by: the looser one is kept; but for a refusal's message)
        let better = |b: f64| {
            if promised {
                worst < b
            } else {
                fit::clearly_less(worst, b, goal)
            }
        };
        if best.as_ref().is_none_or(|(_, b, _)| better(*b)) {
            best = Some((baked, worst, budget));
        }
        if retries == TOLERANCE_RETRIES || (stalls == RETRY_STALLS && leaped) {
            let (baked, _, budget) = best.expect("a bake was kept");
            return (baked, budget);
        }
        let scale = if stalls == RETRY_STALLS {
            // once: the least step, past what the steps by the miss
            // reached (an error that falls only at a much tighter budget,
            // as keys change shape)
            leaped = true;
            stalls -= 1;
            RETRY_LEAST
        } else {
            (goal / worst * RETRY_MARGIN).clamp(RETRY_LEAST, RETRY_MOST)
        };
        budget *= scale;
        retries += 1;
    }
}

/// How many retries in a row [`tighten`] takes without a gain (a miss
/// under [`fit::MISS_GAIN`] of the least so far, [`fit::misses_less`])
/// before it stops.
pub(crate) const RETRY_STALLS: usize = 2;

/// The share of the proportional step [`tighten`] takes (just under it,
/// so the next bake lands under its goal rather than on it).
pub(crate) const RETRY_MARGIN: f64 = 0.95;
/// The smallest factor [`tighten`] scales a budget by in one retry.
pub(crate) const RETRY_LEAST: f64 = 0.3;
/// The largest factor [`tighten`] scales a budget by in one retry (a bake
/// that only just misses still tightens by a tenth).
pub(crate) const RETRY_MOST: f64 = 0.9;
