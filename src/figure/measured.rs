//! Measure one written clip of a bone tree in a single pass over the
//! measure stage's sample times: every bone tip against FK (with the
//! springs), every head rim, and every `ik` entry's effector, target
//! marker, reach, foot-to-target distance and ground contact. The ideal
//! pose is solved once per sample ([`fk::PoseAt`]: [`fk::pose`]'s
//! values, only those read, into reused buffers; an IK limb's two tips
//! straight from the solve's knee and effector, without its angles) and
//! the written tree is
//! walked once per sample for all probes together
//! ([`measure::sample_probes_rows`]); the figures are the same as measuring
//! each probe on its own.

use super::model::FigClip;
use super::{Figure, add_spring_offsets, down_intervals, fk, reuse, unit_time};
use crate::clip::{Clip, LegInfo};
use crate::geom::{AffineExt, Vec2, Vec2Ext};
use crate::measure::{self, IkMeasure, LegMeasure};

/// What [`measure_clip`] measured of one clip.
#[derive(Debug, Clone)]
pub(crate) struct ClipMeasures {
    /// One per bone (`<bone>-tip`), then one per head bone (`<bone>-rim`,
    /// the worse of its two rim probes).
    pub tips: Vec<LegMeasure>,
    /// The head bones' names, in the order of their rims in `tips`.
    pub heads: Vec<String>,
    /// One per `ik` entry.
    pub ik: Vec<IkMeasure>,
    /// Sample times evaluated.
    pub samples: usize,
}

/// What [`measure_clip`] reads that can differ between the tries of one
/// bake call: the clip's index, the written clip, the drawn pose and the
/// clip's shared keys (the rig, its physics and the fit are the call's).
type Key = (usize, Clip, Vec<f64>, Vec<Option<reuse::Shared>>);

/// What the bakes of one [`super::bake_figure_keyed`] call measured, by
/// [`Key`]: the tries of a reuse plan often write a clip exactly as
/// another try (or the bake with keys of their own) did, and such a clip
/// measures the same. Shared by the tries baked in parallel; which of two
/// racing tries fills an entry does not matter (both measure the same).
#[derive(Default)]
pub(crate) struct Measured {
    taken: std::sync::Mutex<Vec<(Key, ClipMeasures)>>,
}

impl Measured {
    /// What `measure` gives for clip `ci` of `fig` baked with `plan`: taken
    /// from an equal clip measured before, else measured (and kept).
    pub(crate) fn kept(
        &self,
        (fig, plan): (&Figure, &reuse::Plan),
        ci: usize,
        clip: &Clip,
        measure: impl FnOnce() -> ClipMeasures,
    ) -> ClipMeasures {
        let same =
            |k: &Key| k.0 == ci && k.2 == fig.rest_rad && k.3 == plan.shared[ci] && k.1 == *clip;
        let taken = self.taken.lock().expect("no panic while held");
        if let Some((_, m)) = taken.iter().find(|(k, _)| same(k)) {
            return m.clone();
        }
        drop(taken);
        let m = measure();
        let key = (
            ci,
            clip.clone(),
            fig.rest_rad.clone(),
            plan.shared[ci].clone(),
        );
        self.taken
            .lock()
            .expect("no panic while held")
            .push((key, m.clone()));
        m
    }
}

/// Measure clip `ci` (`clip`, written from `fc`) of `fig`, whose springs
/// and chains are those simulated for this clip.
///
/// - Tips: `<bone>-tip` against the FK tip plus every spring's offset.
/// - Heads (`head_radius`): the rim probes `<bone>-rim-x`, `<bone>-rim-y`
///   against `W(c) + m · r · (1, 0)` and `W(c) + m · r · (0, 1)`, W(c) the
///   ideal tip and `m = (sx + sy)/2` of the ideal squash (1 without). A
///   figure without any squash draws a plain circle whose rim probes turn
///   with the bone: they are measured against `W(c) + R(Φ) · r · e`
///   instead (Φ the bone's ideal world turn).
/// - `ik` entries: the lower bone's tip against [`fk::ik_ideal`] (the
///   target, pulled for `"pull"`); with a ground and a gait target the foot
///   slip per step ([`measure::foot_slip_px`], as for `ik_chains`), with a
///   planted target over a ground the slip while down; how far the aimed
///   point ever is from the target asked for (`reach_px`); the target
///   marker against that target; the written foot-to-target distance; the
///   foot's distance from the ground line while down.
pub(crate) fn measure_clip(
    fig: &Figure,
    (ci, fc): (usize, &FigClip),
    clip: &Clip,
    plan: &reuse::Plan,
    fit: crate::fit::Fit,
) -> ClipMeasures {
    let nb = fig.bones.len();
    let period = clip.period_s;
    let applied: Vec<usize> = (0..fig.springs.len()).collect();
    let heads: Vec<(usize, f64)> = (0..nb)
        .filter_map(|b| fig.bones[b].head_radius.map(|r| (b, r)))
        .collect();
    // the written structure has the counter groups (see bake::head_items)
    let squashed = fig.clips.iter().any(|c| c.root.squash.is_some());
    let rest = fk::world_matrices(fig, &fig.rest_rad, 0.0);
    // each bone's tip probe as written (a crank's may be its target's)
    let tips = clip.bone_tips();
    let mut probes: Vec<String> = (0..nb)
        .map(|b| tips[b].clone().unwrap_or_else(|| fig.tip_probe(b)))
        .collect();
    for &(b, _) in &heads {
        let name = &fig.bones[b].name;
        probes.push(format!("{name}-rim-x"));
        probes.push(format!("{name}-rim-y"));
    }
    let target0 = probes.len();
    for i in 0..fig.ik.len() {
        probes.push(fig.target_probe(i));
    }
    let nk = fig.ik.len();
    let downs: Vec<Vec<(f64, f64)>> = (0..nk).map(|i| down_intervals(fig, fc, i)).collect();
    let planted: Vec<bool> = (0..nk)
        .map(|i| !fc.targets[i].is_gait() && fig.ground.is_some() && !downs[i].is_empty())
        .collect();
    let ground = crate::clip::GROUND_PROBE;
    let ground_at = planted.iter().any(|&p| p).then(|| {
        probes.push(ground.to_string());
        probes.len() - 1
    });
    // a planted foot's place relative to the ground at each interval's start
    let rel0: Vec<Vec<Vec2>> = (0..nk)
        .map(|i| {
            if !planted[i] {
                return Vec::new();
            }
            let foot = &probes[fig.ik[i].lower];
            downs[i]
                .iter()
                .map(|&(a, _)| {
                    let start = measure::probes_at(clip, a * period);
                    start[foot] - (start[ground] - measure::ground_unwrap(clip, a * period))
                })
                .collect()
        })
        .collect();
    let within = |t: f64, (a, b): (f64, f64)| t >= a * period && t <= b * period;

    let mut target_px = vec![0.0f64; nk];
    let mut reach_px = vec![0.0f64; nk];
    let mut foot_to_target_px = vec![0.0f64; nk];
    let mut ground_px = vec![0.0f64; nk];
    let mut planted_px = vec![0.0f64; nk];
    // the probes written (a bone of length 0 has none: its error is 0, its
    // tip being its joint), and where each of `probes` is among them
    let written: Vec<usize> = (0..probes.len())
        .filter(|&j| j >= nb || tips[j].is_some())
        .collect();
    let walked: Vec<String> = written.iter().map(|&j| probes[j].clone()).collect();
    let mut slot = vec![None; probes.len()];
    for (w, &j) in written.iter().enumerate() {
        slot[j] = Some(w);
    }
    // the bones whose ideal tip is read: those with a written tip probe,
    // and the heads (whose world matrix is read too)
    let mut tipped: Vec<bool> = (0..nb).map(|b| slot[b].is_some()).collect();
    let mut want = vec![false; nb];
    for &(b, _) in &heads {
        (tipped[b], want[b]) = (true, true);
    }
    // per sample time (in parallel, each chunk of times posing the figure
    // into buffers of its own) a row: every tip and rim probe's error, then
    // per IK entry its effector's error, target marker, reach, foot to
    // marker, height off the ground while down and planted slip (0 where
    // not down); then folded in time order
    let stride = target0 + 6 * nk;
    let (ts, rows) = measure::sample_probes_rows(
        clip,
        &walked,
        || {
            (
                fk::PoseAt::new(fig, fc, &want, &tipped),
                vec![Vec2::ZERO; nb],
            )
        },
        |(posed, tips), t, walked_at, out: &mut Vec<f64>| {
            let at = |j: usize| walked_at[slot[j].expect("a written probe")];
            let u = unit_time(fc.play, t, period);
            posed.at(u);
            let pose = &posed.pose;
            tips.copy_from_slice(&posed.tips);
            add_spring_offsets(fig, u, &applied, tips);
            for b in 0..nb {
                out.push(slot[b].map_or(0.0, |w| walked_at[w].dist(tips[b])));
            }
            for (h, &(b, r)) in heads.iter().enumerate() {
                let m = fc.root.squash.as_ref().map_or(1.0, |s| {
                    let sy = s.sy.eval(u);
                    (1.0 + (1.0 - sy) * s.k + sy) / 2.0
                });
                let c = tips[b];
                let (ex, ey) = if squashed {
                    (Vec2::new(m * r, 0.0), Vec2::new(0.0, m * r))
                } else {
                    // the bone's world turn since the drawn pose (no squash:
                    // root motion only translates)
                    let w = pose.world[b];
                    let phi = w.angle_rad() - rest[b].angle_rad();
                    let (sin, cos) = phi.sin_cos();
                    (Vec2::new(r * cos, r * sin), Vec2::new(-r * sin, r * cos))
                };
                let j = nb + 2 * h;
                out.push(at(j).dist(c + ex));
                out.push(at(j + 1).dist(c + ey));
            }
            for (i, k) in fig.ik.iter().enumerate() {
                let (foot, marker) = (at(k.lower), at(target0 + i));
                let ideal = pose.ik[i];
                let asked = pose.asked[i];
                let mut ground_px = 0.0f64;
                if let Some(g) = &fig.ground
                    && downs[i].iter().any(|&d| within(t, d))
                {
                    ground_px = (foot.y - g.y).abs();
                }
                let mut planted_px = 0.0f64;
                if let Some(gi) = ground_at.filter(|_| planted[i]) {
                    for (d, r0) in downs[i].iter().zip(&rel0[i]) {
                        if within(t, *d) {
                            let ground = at(gi) - measure::ground_unwrap(clip, t);
                            planted_px = planted_px.max((foot - ground - *r0).len());
                        }
                    }
                }
                out.extend([
                    foot.dist(ideal),
                    marker.dist(asked),
                    asked.dist(ideal),
                    foot.dist(marker),
                    ground_px,
                    planted_px,
                ]);
            }
        },
    );
    let column = |_| Vec::with_capacity(ts.len());
    let mut errs: Vec<Vec<f64>> = (0..target0).map(column).collect();
    let mut ik_errs: Vec<Vec<f64>> = (0..nk).map(column).collect();
    for row in rows.iter().flat_map(|c| c.chunks_exact(stride.max(1))) {
        let (row, ik) = row.split_at(target0);
        for (e, x) in errs.iter_mut().zip(row) {
            e.push(*x);
        }
        for (i, f) in ik.chunks_exact(6).enumerate() {
            let &[err, target, reach, to_target, ground, planted] = f else {
                unreachable!("rows of six")
            };
            ik_errs[i].push(err);
            target_px[i] = target_px[i].max(target);
            reach_px[i] = reach_px[i].max(reach);
            foot_to_target_px[i] = foot_to_target_px[i].max(to_target);
            ground_px[i] = ground_px[i].max(ground);
            planted_px[i] = planted_px[i].max(planted);
        }
    }

    let mut tips: Vec<LegMeasure> = (0..nb)
        .map(|b| measure::probe_measure(&probes[b], &ts, &errs[b], period))
        .collect();
    for (h, &(b, _)) in heads.iter().enumerate() {
        let j = nb + 2 * h;
        let worst = [j, j + 1]
            .map(|j| measure::probe_measure(&probes[j], &ts, &errs[j], period))
            .into_iter()
            .max_by(|a, b| a.max_error_px.total_cmp(&b.max_error_px))
            .expect("two probes");
        tips.push(LegMeasure {
            name: format!("{}-rim", fig.bones[b].name),
            ..worst
        });
    }

    let infos = clip.figure.as_ref().map_or(&[][..], |f| &f.bones[..]);
    let prefix = if fig.switched {
        format!("{}:", fc.name)
    } else {
        String::new()
    };
    let ik = fig
        .ik
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let (up, lo) = (&fig.bones[k.upper], &fig.bones[k.lower]);
            let probe = probes[k.lower].clone();
            let tracks: Vec<usize> = [k.upper, k.lower]
                .iter()
                .filter_map(|&b| infos.get(b).and_then(|x| x.track))
                .collect();
            let leg = LegInfo {
                name: format!("{prefix}{}", fig.ik_label(i)),
                ankle_probe: probe.clone(),
                target_probe: probe.clone(),
                thigh: up.length,
                shin: lo.length,
                tracks: tracks.clone(),
                // as written: linear where every segment of its tracks is
                // (`--fit shortest` may key a channel linear)
                fit: if tracks
                    .iter()
                    .all(|&t| crate::fit::segments_linear(&clip.tracks[t].keys))
                {
                    crate::fit::Fit::Linear
                } else {
                    fit
                },
                // the entry whose upper bone's keys this one plays
                reuses: plan.shared[ci][k.upper].and_then(|sh| {
                    let src = fig.ik.iter().position(|o| o.upper == sh.source)?;
                    Some(format!("{prefix}{}", fig.ik_label(src)))
                }),
                ideal: Some(crate::chain::IdealTarget {
                    root: fc.targets[i].clone(),
                    target: fc.targets[i].clone(),
                    pull_to: None,
                    offset: Vec2::ZERO,
                }),
            };
            let mut m = measure::probe_measure(&probe, &ts, &ik_errs[i], period);
            m.name = leg.name.clone();
            m.slip_px = match &fc.targets[i] {
                t if t.is_gait() => measure::foot_slip_px(clip, &leg),
                _ if planted[i] => Some(planted_px[i]),
                _ => None,
            };
            m.reach_px = Some(reach_px[i]);
            m.target_px = Some(target_px[i]);
            // a limb written as a morph (see super::morph) keeps its bones'
            // lengths only at its keys
            m.max_bone_stretch_px =
                measure::morph_stretch_px(clip, &probe, (up.length, lo.length), &ts);
            IkMeasure {
                clip: ci,
                leg,
                measure: m,
                target_error_px: target_px[i],
                foot_to_target_px: foot_to_target_px[i],
                ground_px: fig
                    .ground
                    .as_ref()
                    .map(|_| ground_px[i])
                    .filter(|_| !downs[i].is_empty()),
            }
        })
        .collect();
    ClipMeasures {
        tips,
        heads: heads
            .iter()
            .map(|&(b, _)| fig.bones[b].name.clone())
            .collect(),
        ik,
        samples: ts.len(),
    }
}
