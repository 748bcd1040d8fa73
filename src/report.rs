//! Report: what a bake measured, as a text table or JSON.

use crate::clip::{Clip, Route};
use crate::emit;
use crate::fit::Fit;
use crate::geom::quantize;
use crate::measure::{ChainMeasure, IkMeasure, LegMeasure, SpringMeasure};
use serde::Serialize;
use std::fmt::Write;

pub mod check;

pub use check::{Probe, ProbeKind};

/// Decimal places kept for reported distances.
const REPORT_DECIMALS: u32 = 4;

/// One keyframe track of a leg (css: thigh or shin rotation; smil: the `d` morph).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TrackReport {
    pub name: String,
    pub fit: Fit,
    /// Distinct key times per period (0 % and 100 % count once).
    pub keys: usize,
    /// Normalised key times as written, including 0 and 1.
    pub key_times: Vec<f64>,
    /// Bytes of this track's `@keyframes` block or `<animate>` element.
    pub bytes: usize,
}

/// One leg's line in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegReport {
    pub name: String,
    /// Most distinct key times per period among this leg's tracks.
    pub keys: usize,
    pub fit: Fit,
    /// Max ankle–target distance, px (user units), as measured on the written keys.
    pub max_error_px: f64,
    /// RMS ankle–target distance over the period, px.
    pub rms_error_px: f64,
    /// Seconds into the period where the max occurs.
    pub worst_t_s: f64,
    /// The leg whose keyframes this one replays with a delay, if any.
    pub reuses: Option<String>,
    /// smil route only: worst bone-length distortion, px.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_bone_stretch_px: Option<f64>,
    /// `ik_chains` with a gait target over a ground: worst foot slip per
    /// step, px (stance displacement of the written foot minus the ground's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slip_px: Option<f64>,
    /// Legs aimed at a target trajectory (`ik_chains`, bone-tree `ik`):
    /// the largest distance, px, between the target the rig asked for and
    /// the point the solver aimed at (non-zero only where `"reach":
    /// "pull"` pulled the target back). `max_error_px` is measured against
    /// the aimed point; this is what it leaves out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach_px: Option<f64>,
    /// Legs aimed at a target trajectory: the worst distance, px, between
    /// the written target probe `<leg>-target` (keyed, or moved along the
    /// written path for a `path` target) and the target the rig asked for.
    /// A written point like the ankle: [`Report::max_error_px`] holds it to
    /// a tolerance and `check` lists it as a probe of kind `target`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_px: Option<f64>,
    /// Bone-tree `ik` over a `ground`: while the foot is down, the largest
    /// distance of the written effector from the ground line, px.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ground_px: Option<f64>,
    /// The leg's tracks. A reused track is listed under the leg that owns it too.
    pub tracks: Vec<TrackReport>,
}

/// One bone's line in a bone-tree report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneReport {
    /// The clip this line measures.
    pub clip: String,
    pub name: String,
    /// Distinct key times per period of the bone's rotation (0 when it
    /// does not rotate in this clip).
    pub keys: usize,
    /// Max distance between the written tip and the FK ideal, px.
    pub max_error_px: f64,
    /// RMS of that distance over the clip, px.
    pub rms_error_px: f64,
    /// Seconds into the clip where the max occurs.
    pub worst_t_s: f64,
}

/// A baked rig's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub rig: String,
    pub route: Route,
    pub period_s: f64,
    /// The tolerance asked for, if keys were fitted to one.
    pub tolerance_px: Option<f64>,
    pub legs: Vec<LegReport>,
    /// Bone-tree rigs: one line per clip and bone.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bones: Vec<BoneReport>,
    /// Remarks on how the bake was done (e.g. a fit the route cannot use).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Size of the SVG written, bytes.
    pub bytes: usize,
    /// Times evaluated per leg.
    pub samples: usize,
    /// Bone-tree rigs: one line per Verlet chain.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<ChainReport>,
    /// Bone-tree rigs: one line per spring.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub springs: Vec<SpringReport>,
}

/// One spring's line in a bone-tree report: what the bake measured, with
/// the distances rounded as reported.
pub type SpringReport = crate::measure::SpringMeasure;

/// One Verlet chain's line in a bone-tree report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChainReport {
    pub name: String,
    /// Keys per period of the chain's rotation tracks (css) or `d` morphs
    /// (smil), one set of key times for all (t = 0 and t = 1 counted once).
    pub keys: usize,
    /// Max distance of a written particle from the simulated one (recorded
    /// frames, each segment turned between them at its length), px,
    /// measured on the written clip.
    pub max_deviation_px: f64,
    /// Max particle distance between the first and last frame of the loop, px.
    pub seam_error_px: f64,
    /// Whether the warm-up settled (seam state moved < 1e-4 px in a period).
    pub converged: bool,
    /// Periods simulated before the recorded one.
    pub warmup_periods: usize,
    /// Largest segment length deviation from the rest length on any
    /// recorded frame, % of the rest length.
    pub max_length_error_pct: f64,
}

impl ChainReport {
    /// The report line of a measured chain (figures rounded for the report).
    pub fn from_measure(c: &crate::measure::ChainMeasure) -> ChainReport {
        let q = |x: f64| quantize(x, REPORT_DECIMALS);
        ChainReport {
            name: c.name.clone(),
            keys: c.keys,
            max_deviation_px: q(c.max_deviation_px),
            seam_error_px: q(c.seam_error_px),
            converged: c.converged,
            warmup_periods: c.warmup_periods,
            max_length_error_pct: q(c.max_length_error * 100.0),
        }
    }
}

fn track_reports(clip: &Clip, info: &crate::clip::LegInfo) -> Vec<TrackReport> {
    let distinct = |times: &[f64]| times.len() - 1;
    if let Some(m) = clip.morph(&info.ankle_probe) {
        let times: Vec<f64> = m.keys.iter().map(|k| k.0).collect();
        return vec![TrackReport {
            name: format!("{}-d", info.name),
            fit: info.fit,
            keys: distinct(&times),
            key_times: times,
            bytes: emit::smil::animate_d(clip, m).to_string().len(),
        }];
    }
    info.tracks
        .iter()
        .map(|&i| {
            let tr = &clip.tracks[i];
            let times: Vec<f64> = tr.keys.iter().map(|k| k.t).collect();
            TrackReport {
                name: tr.name.clone(),
                fit: info.fit,
                keys: distinct(&times),
                key_times: times,
                bytes: keyframes_bytes(clip, i),
            }
        })
        .collect()
}

/// Bytes of track `i`'s `@keyframes` block as the css writer writes it: a
/// translation (chain roots and markers) or a rotation.
fn keyframes_bytes(clip: &Clip, i: usize) -> usize {
    emit::css::track_keyframes(clip, i).len()
}

/// One route's bake of a figure: its clips, the SVG, and per clip the
/// measured tip drift of every bone against the FK ideal.
#[derive(Debug, Clone)]
pub struct FigureBake {
    pub clips: Vec<Clip>,
    pub svg: String,
    /// `(clip name, per-bone measurement)` in clip order.
    pub measures: Vec<(String, Vec<LegMeasure>)>,
    /// Times evaluated per clip (the largest).
    pub samples: usize,
    /// Remarks for the report.
    pub notes: Vec<String>,
    /// One line per Verlet chain (first clip).
    pub chains: Vec<ChainMeasure>,
    /// Per written clip and `ik` entry: the effector (lower tip) against
    /// its ideal target, with foot slip over a ground.
    pub ik: Vec<IkMeasure>,
    /// One line per spring (first clip).
    pub springs: Vec<SpringMeasure>,
}

/// The report of a bone-tree bake: one line per clip and bone.
pub fn build_figure(fb: &FigureBake, route: Route) -> Report {
    let q = |x: f64| quantize(x, REPORT_DECIMALS);
    let first = &fb.clips[0];
    let mut bones = Vec::new();
    for (clip, (name, ms)) in fb.clips.iter().zip(&fb.measures) {
        let infos = clip.figure.as_ref().map_or(&[][..], |f| &f.bones[..]);
        // (a bone of length 0 has no probe: no line; nor has a limb
        // written as a morph: its effector is its `ik` entry's line)
        let own_line = |i: &crate::clip::BoneInfo| {
            i.tip_probe
                .as_deref()
                .is_some_and(|p| clip.morph(p).is_none())
        };
        for (info, m) in infos.iter().zip(ms).filter(|(i, _)| own_line(i)) {
            bones.push(BoneReport {
                clip: name.clone(),
                name: info.name.clone(),
                keys: info.track.map_or(0, |t| clip.tracks[t].keys.len() - 1),
                max_error_px: q(m.max_error_px),
                rms_error_px: q(m.rms_error_px),
                worst_t_s: q(m.worst_t_s),
            });
        }
        // after the bones: head rims (`<bone>-rim`, see figure::measured)
        for m in ms.iter().skip(infos.len()) {
            bones.push(BoneReport {
                clip: name.clone(),
                name: m.name.clone(),
                keys: 0,
                max_error_px: q(m.max_error_px),
                rms_error_px: q(m.rms_error_px),
                worst_t_s: q(m.worst_t_s),
            });
        }
    }
    // ik entries report as legs: effector vs ideal target, slip, tracks
    let legs = fb
        .ik
        .iter()
        .map(|im| {
            let tracks = track_reports(&fb.clips[im.clip], &im.leg);
            let lm = &im.measure;
            LegReport {
                name: im.leg.name.clone(),
                keys: tracks.iter().map(|t| t.keys).max().unwrap_or(0),
                fit: im.leg.fit,
                max_error_px: q(lm.max_error_px),
                rms_error_px: q(lm.rms_error_px),
                worst_t_s: q(lm.worst_t_s),
                reuses: im.leg.reuses.clone(),
                max_bone_stretch_px: lm.max_bone_stretch_px.map(q),
                slip_px: lm.slip_px.map(q),
                reach_px: lm.reach_px.map(q),
                target_px: lm.target_px.map(q),
                ground_px: im.ground_px.map(q),
                tracks,
            }
        })
        .collect();
    Report {
        rig: first.name.clone(),
        route,
        period_s: first.period_s,
        tolerance_px: None,
        legs,
        bones,
        notes: fb.notes.clone(),
        bytes: fb.svg.len(),
        samples: fb.samples,
        chains: fb.chains.iter().map(ChainReport::from_measure).collect(),
        springs: fb
            .springs
            .iter()
            .map(|s| SpringReport {
                max_tip_error_px: q(s.max_tip_error_px),
                max_lag_px: q(s.max_lag_px),
                seam_error_px: q(s.seam_error_px),
                ..s.clone()
            })
            .collect(),
    }
}

impl Report {
    /// Every max error this report measured, one [`Probe`] each, in
    /// report order: legs (ankles, IK effectors, each followed by its
    /// target marker where it draws one), chain particles, spring tips,
    /// bone tips and head rims.
    pub fn probes(&self) -> Vec<Probe> {
        let legs = self.legs.iter().flat_map(|l| {
            let leg = Probe {
                kind: ProbeKind::Leg,
                clip: None,
                name: l.name.clone(),
                max_error_px: l.max_error_px,
                rms_error_px: Some(l.rms_error_px),
                max_slip_px: l.slip_px,
                max_reach_px: l.reach_px,
            };
            // the drawn `<leg>-target` against the target asked for
            let target = l.target_px.map(|px| Probe {
                kind: ProbeKind::Target,
                clip: None,
                name: l.name.clone(),
                max_error_px: px,
                rms_error_px: None,
                max_slip_px: None,
                max_reach_px: None,
            });
            std::iter::once(leg).chain(target)
        });
        let chains = self.chains.iter().map(|c| Probe {
            kind: ProbeKind::Chain,
            clip: None,
            name: c.name.clone(),
            max_error_px: c.max_deviation_px,
            rms_error_px: None,
            max_slip_px: None,
            max_reach_px: None,
        });
        let springs = self.springs.iter().map(|s| Probe {
            kind: ProbeKind::Spring,
            clip: None,
            name: s.bone.clone(),
            max_error_px: s.max_tip_error_px,
            rms_error_px: None,
            max_slip_px: None,
            max_reach_px: None,
        });
        let bones = self.bones.iter().map(|b| Probe {
            // bone names have no `-`: `<head>-rim` is a round head's rim line
            kind: if b.name.ends_with("-rim") {
                ProbeKind::Rim
            } else {
                ProbeKind::Bone
            },
            clip: Some(b.clip.clone()),
            name: b.name.clone(),
            max_error_px: b.max_error_px,
            rms_error_px: Some(b.rms_error_px),
            max_slip_px: None,
            max_reach_px: None,
        });
        legs.chain(chains).chain(springs).chain(bones).collect()
    }

    /// The probe whose max error is [`Report::max_error_px`] (legs, IK
    /// effectors, target markers, chain particles, spring tips, bone tips,
    /// head rims; the last of equals), if any.
    pub fn worst_probe(&self) -> Option<Probe> {
        self.probes()
            .into_iter()
            .max_by(|a, b| a.max_error_px.total_cmp(&b.max_error_px))
    }

    /// The worst probe's max error: legs (ankles, IK effectors), their
    /// target markers, chain particles, spring tips, bone tips and head
    /// rims: every figure `check --max-error` compares, so a bake that
    /// keeps a tolerance passes `check` at it. (A spring's tip line is
    /// measured while its keys are chosen, on the clip as it then stands,
    /// and may differ from its bones' final tip figures in the last
    /// reported place.) A bake asked to keep a tolerance keeps this.
    pub fn max_error_px(&self) -> f64 {
        self.max_error_px_but(|_| false)
    }

    /// [`Report::max_error_px`] without the legs named by `skip` (their
    /// bones' tips and their target markers still count: a marker is
    /// measured against the target asked for, whatever the leg reaches).
    pub fn max_error_px_but(&self, skip: impl Fn(&str) -> bool) -> f64 {
        self.probes()
            .into_iter()
            .filter(|p| !(p.kind == ProbeKind::Leg && skip(&p.name)))
            .map(|p| p.max_error_px)
            .fold(0.0, f64::max)
    }

    /// A short human table: one header line per rig and route, one line per leg.
    /// Every measured number goes through [`crate::valid::shown_fixed`]
    /// (a runaway one in exponent form, not a hundred digits).
    pub fn to_text(&self) -> String {
        let f3 = |x: f64| crate::valid::shown_fixed(x, 3);
        let f4 = |x: f64| crate::valid::shown_fixed(x, 4);
        let mut s = format!(
            "{} ({}, {} bytes, period {}s)\n",
            self.rig,
            self.route.as_str(),
            self.bytes,
            self.period_s
        );
        for l in &self.legs {
            let keys = l
                .tracks
                .iter()
                .map(|t| t.keys.to_string())
                .collect::<Vec<_>>()
                .join("/");
            let _ = write!(
                s,
                "  {:<8} keys {:>5} {:<6}  max {:>8} px  rms {:>7} px",
                l.name,
                keys,
                l.fit.as_str(),
                f3(l.max_error_px),
                f3(l.rms_error_px)
            );
            if let Some(st) = l.max_bone_stretch_px {
                let _ = write!(s, "  bone stretch {} px", f3(st));
            }
            if let Some(sl) = l.slip_px {
                let _ = write!(s, "  slip {} px/step", f3(sl));
            }
            if let Some(g) = l.ground_px {
                let _ = write!(s, "  ground {} px", f3(g));
            }
            if let Some(t) = l.target_px.filter(|&t| t > 0.0) {
                let _ = write!(s, "  marker {} px", f3(t));
            }
            if let Some(r) = l.reach_px.filter(|&r| r > 0.0) {
                let _ = write!(s, "  target out of reach by {} px", f3(r));
            }
            if let Some(r) = &l.reuses {
                let _ = write!(s, "  (reuses {r})");
            }
            s.push('\n');
        }
        for b in &self.bones {
            let _ = writeln!(
                s,
                "  {:<8} {:<10} keys {:>5}  max {:>8} px  rms {:>7} px",
                b.clip,
                b.name,
                b.keys,
                f3(b.max_error_px),
                f3(b.rms_error_px)
            );
        }
        for c in &self.chains {
            let _ = writeln!(
                s,
                "  chain {:<10} keys {:>5}  max deviation {:>7} px  seam {} px  converged {} after {} warm-up periods  segment length within {} %",
                c.name,
                c.keys,
                f4(c.max_deviation_px),
                f4(c.seam_error_px),
                if c.converged { "yes" } else { "no" },
                c.warmup_periods,
                f3(c.max_length_error_pct)
            );
        }
        for sp in &self.springs {
            let _ = writeln!(
                s,
                "  spring {:<9} keys {:>5}  max tip error {:>7} px  lag up to {} px  seam {} px  converged {} after {} warm-up periods",
                sp.bone,
                sp.keys,
                f4(sp.max_tip_error_px),
                f3(sp.max_lag_px),
                f4(sp.seam_error_px),
                if sp.converged { "yes" } else { "no" },
                sp.warmup_periods
            );
        }
        for n in &self.notes {
            let _ = writeln!(s, "  note: {n}");
        }
        s
    }
}

/// Serialise reports as JSON: one object for one report, an array otherwise.
pub fn to_json(reports: &[Report]) -> String {
    let mut s = if reports.len() == 1 {
        serde_json::to_string_pretty(&reports[0])
    } else {
        serde_json::to_string_pretty(reports)
    }
    .expect("reports serialise");
    s.push('\n');
    s
}
