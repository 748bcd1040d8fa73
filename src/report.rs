//! Report: what a bake measured, as a text table or JSON.

use crate::clip::{Clip, Route};
use crate::geom::quantize;
use crate::measure::Measurement;
use serde::Serialize;
use std::fmt::Write;

/// Decimal places kept for reported distances.
const REPORT_DECIMALS: u32 = 4;

/// One leg's line in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LegReport {
    pub name: String,
    /// Distinct key times per period of this leg's tracks.
    pub keys: usize,
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
}

/// A baked rig's report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub rig: String,
    pub route: Route,
    pub period_s: f64,
    pub legs: Vec<LegReport>,
    /// Size of the SVG written, bytes.
    pub bytes: usize,
    /// Times evaluated per leg.
    pub samples: usize,
}

/// Combine a clip, its measurement and the emitted size into a report.
pub fn build(clip: &Clip, m: &Measurement, bytes: usize) -> Report {
    let q = |x: f64| quantize(x, REPORT_DECIMALS);
    Report {
        rig: clip.name.clone(),
        route: clip.route,
        period_s: clip.period_s,
        legs: clip
            .legs
            .iter()
            .zip(&m.legs)
            .map(|(info, lm)| LegReport {
                name: info.name.clone(),
                keys: info.keys,
                max_error_px: q(lm.max_error_px),
                rms_error_px: q(lm.rms_error_px),
                worst_t_s: q(lm.worst_t_s),
                reuses: info.reuses.clone(),
                max_bone_stretch_px: lm.max_bone_stretch_px.map(q),
            })
            .collect(),
        bytes,
        samples: m.samples,
    }
}

impl Report {
    /// The worst leg's max error.
    pub fn max_error_px(&self) -> f64 {
        self.legs.iter().map(|l| l.max_error_px).fold(0.0, f64::max)
    }

    /// A short human table: one header line per rig and route, one line per leg.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{} ({}, {} bytes, period {}s)\n",
            self.rig,
            self.route.as_str(),
            self.bytes,
            self.period_s
        );
        for l in &self.legs {
            let _ = write!(
                s,
                "  {:<8} keys {:>3}  max {:>8.3} px  rms {:>7.3} px",
                l.name, l.keys, l.max_error_px, l.rms_error_px
            );
            if let Some(st) = l.max_bone_stretch_px {
                let _ = write!(s, "  bone stretch {st:.3} px");
            }
            if let Some(r) = &l.reuses {
                let _ = write!(s, "  (reuses {r})");
            }
            s.push('\n');
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
