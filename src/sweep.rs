//! Sweep: measured max error versus keys per track, for each way of
//! placing keys, the design source's error table computed for any rig
//! (every rig bakes as a bone tree: cycling legs and `ik_chains` as the
//! tree they lower into).
//!
//! Columns: uniform keys with linear or cubic segments, and adaptive
//! placement on the same key budget ([`crate::bake::Keying::Budget`]: each
//! fitted channel's keys where it bends, [`crate::fit::placed_keys`]). Every figure is the
//! measure stage's max over every probe of a real bake
//! ([`crate::report::Report::max_error_px`]).

use crate::bake::{BakeOptions, Keying};
use crate::clip::Route;
use crate::fit::Fit;
use crate::rig::Rig;
use serde::Serialize;
use std::fmt::Write;

/// One way of placing keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Method {
    pub adaptive: bool,
    pub fit: Fit,
}

impl Method {
    pub fn label(self) -> String {
        format!(
            "{}-{}",
            if self.adaptive { "adaptive" } else { "uniform" },
            self.fit.as_str()
        )
    }
}

/// One row of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    /// Key budget per bone.
    pub keys: usize,
    /// Measured max error (px) per method, in [`Sweep::methods`] order;
    /// `None` where the method needs more keys than the budget to start.
    pub max_error_px: Vec<Option<f64>>,
}

/// The whole table.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Sweep {
    pub rig: String,
    pub route: Route,
    pub methods: Vec<Method>,
    pub rows: Vec<Row>,
}

/// Refuse a sweep over the key counts `a..=b` with `fits` (at `--keys`)
/// before any work: every cell is a bake, so its largest count obeys
/// bake's limit ([`crate::rig::check_key_work`]), and the cells together
/// stay within [`SWEEP_BAKES`](crate::figure::work::SWEEP_BAKES) bakes at
/// the limits.
pub fn check_work(
    rig: &Rig,
    route: Route,
    (a, b): (usize, usize),
    fits: &[Fit],
) -> Result<(), crate::valid::RigError> {
    use crate::figure::work;
    let remedy = "sweep fewer keys per track, a smaller B in --keys A..B";
    crate::rig::check_key_work("--keys", Some(b), rig, Some(route), remedy)?;
    let fig = &rig.figure;
    let clips = match route {
        Route::Smil => 1,
        Route::Css => fig.clips.len(),
    };
    let methods = 2 * fits.len();
    work::check_sweep(
        fig,
        clips,
        ((a, b), methods),
        "--keys",
        work::Extra::of(fig, Some(route), work::WorkKeys::Uniform(b)),
    )
}

/// Measure every method at every key count in `keys` (pure; each cell is a bake).
pub fn sweep(rig: &Rig, route: Route, keys: &[usize], fits: &[Fit]) -> Sweep {
    // (rotations take keySplines on smil too; a d morph keys linearly
    // whatever its cell asks)
    let fits = fits.to_vec();
    let methods: Vec<Method> = fits
        .iter()
        .flat_map(|&fit| [false, true].map(|adaptive| Method { adaptive, fit }))
        .collect();
    let rows = keys
        .iter()
        .map(|&n| Row {
            keys: n,
            max_error_px: methods
                .iter()
                .map(|m| {
                    let keying = if m.adaptive {
                        Keying::Budget(n)
                    } else {
                        Keying::Uniform(n)
                    };
                    let opts = BakeOptions {
                        route,
                        keying,
                        fit: m.fit,
                        shortest_shape: false,
                    };
                    let r = crate::bake_rig(rig, &opts).report;
                    let used = r.legs.iter().map(|l| l.keys).max().unwrap_or(0);
                    (used <= n).then(|| r.max_error_px())
                })
                .collect(),
        })
        .collect();
    Sweep {
        rig: rig.name.clone(),
        route,
        methods,
        rows,
    }
}

impl Sweep {
    /// The table as text, one row per key count.
    pub fn to_text(&self) -> String {
        let mut s = format!(
            "{} ({}): measured max error, px, by keys per track\n{:>5}",
            self.rig,
            self.route.as_str(),
            "keys"
        );
        for m in &self.methods {
            let _ = write!(s, "  {:>15}", m.label());
        }
        s.push('\n');
        for r in &self.rows {
            let _ = write!(s, "{:>5}", r.keys);
            for e in &r.max_error_px {
                match e {
                    Some(e) => {
                        let _ = write!(s, "  {e:>15.3}");
                    }
                    None => {
                        let _ = write!(s, "  {:>15}", "-");
                    }
                }
            }
            s.push('\n');
        }
        s
    }

    /// An SVG line chart: keys per bone against max error on a log scale.
    pub fn to_svg(&self) -> String {
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .methods
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let pts = self
                    .rows
                    .iter()
                    .filter_map(|r| r.max_error_px[i].map(|e| (r.keys as f64, e)))
                    .collect();
                (m.label(), pts)
            })
            .collect();
        crate::plot::log_line_chart(
            &format!("{} ({}): max error vs keys", self.rig, self.route.as_str()),
            "keys per track",
            "max error (px, log scale)",
            &series,
        )
    }
}
