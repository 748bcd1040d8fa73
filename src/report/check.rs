//! What `check` reports: every measured max error of a set of bakes under
//! one vocabulary, compared with the thresholds, as JSON (the format
//! published in `schema/check.schema.json`, described in `docs/ci.md`) or
//! as JUnit XML.
//!
//! # One vocabulary
//!
//! The bake report names each figure after what it measures: a leg's
//! `max_error_px`, a chain's `max_deviation_px`, a spring's
//! `max_tip_error_px`. `check` holds them all to the same threshold, so here
//! each is a [`Probe`] `{kind, clip, name, max_error_px, rms_error_px}`: the
//! kind says which point was measured, and `max_error_px` always means the
//! largest distance, px, between where the written file puts that point and
//! where the ideal motion puts it. A CI script then compares one field with
//! one threshold whatever the rig; the bake report (`bake --report`) keeps
//! the kind-specific figures (seam, lag, key times).
//!
//! A leg aimed at a target also draws that target (its `<leg>-target`
//! marker, a written point that follows the target the rig asked for): it
//! is a probe of its own, kind `target`, held to `--max-error` like every
//! other written point.
//!
//! A leg carries two more figures that its `max_error_px` cannot show,
//! each with its own threshold: `max_slip_px`, how far a foot slides over
//! the ground per step (a bake can hit its pulled-back target exactly and
//! still skate), and `max_reach_px`, how far the point the solver aimed at
//! is from the target the rig asked for (`"reach": "pull"` moves an
//! unreachable target back, so `max_error_px` alone passes a foot that
//! hovers short of the ground). Both are `null` where they do not apply.

use super::Report;
use crate::clip::Route;
use serde::Serialize;
use std::fmt::Write;

/// The `version` of the JSON format. Any change to its fields (added,
/// removed, renamed or with a new meaning) increments it, and
/// `schema/check.schema.json` describes exactly this version.
pub const VERSION: u32 = 4;

/// What a [`Probe`] measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProbeKind {
    /// A leg's ankle against its pedal or target (an IK effector too).
    Leg,
    /// A leg's drawn target marker (`<leg>-target`) against the target the
    /// rig asked for (legs aimed at a target: `ik_chains`, bone-tree `ik`).
    Target,
    /// A Verlet chain's particles against the simulation.
    Chain,
    /// The bone tips below a spring against FK plus the simulated offset.
    Spring,
    /// A bone's tip against FK, in one clip.
    Bone,
    /// A round head's rim against FK, in one clip (`<bone>-rim`).
    Rim,
}

impl ProbeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ProbeKind::Leg => "leg",
            ProbeKind::Target => "target",
            ProbeKind::Chain => "chain",
            ProbeKind::Spring => "spring",
            ProbeKind::Bone => "bone",
            ProbeKind::Rim => "rim",
        }
    }
}

/// One measured point of a bake and its largest error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Probe {
    pub kind: ProbeKind,
    /// The clip, for bone and rim probes (`null` otherwise).
    pub clip: Option<String>,
    /// The leg (for a leg's target marker too), chain, spring bone or bone
    /// (`<bone>-rim` for a rim).
    pub name: String,
    /// Largest distance between the written point and the ideal one, px.
    pub max_error_px: f64,
    /// RMS of that distance over the period, px, where it is measured
    /// (legs, bones, rims; `null` otherwise: chains, springs, target
    /// markers).
    pub rms_error_px: Option<f64>,
    /// Legs with a gait target over a ground: foot slip per step, px
    /// (`null` otherwise).
    pub max_slip_px: Option<f64>,
    /// Legs aimed at a target trajectory: the largest distance between the
    /// target asked for and the point aimed at, px (`null` otherwise).
    pub max_reach_px: Option<f64>,
}

impl Probe {
    /// Every threshold this probe exceeds, in field order (a NaN is no
    /// number within a threshold).
    pub fn failures(&self, th: &Thresholds) -> Vec<Failure> {
        // (only legs have slip and reach figures)
        let leg = format!("leg {}:", self.name);
        let checks = [
            (
                "max_error_px",
                Some(self.max_error_px),
                th.max_error_px,
                format!("{} {} px", self.label(), self.max_error_px),
            ),
            (
                "max_slip_px",
                self.max_slip_px,
                th.max_slip_px,
                format!(
                    "{leg} foot slip {} px/step",
                    self.max_slip_px.unwrap_or(0.0)
                ),
            ),
            (
                "max_reach_px",
                self.max_reach_px,
                th.max_reach_px,
                format!(
                    "{leg} target out of reach by {} px",
                    self.max_reach_px.unwrap_or(0.0)
                ),
            ),
        ];
        checks
            .into_iter()
            .filter_map(|(metric, value, threshold, what)| {
                let v = value?;
                (v.is_nan() || v > threshold).then(|| Failure {
                    kind: self.kind,
                    clip: self.clip.clone(),
                    name: self.name.clone(),
                    metric,
                    value: v,
                    threshold,
                    message: format!("{what} > {} px", crate::valid::shown(threshold)),
                })
            })
            .collect()
    }

    /// How messages name it: `leg near: max error`, `leg thigh_n-shin_n:
    /// target marker error`, `chain hair: max particle deviation`, `spring tail: max tip error`, `clip idle bone
    /// arm: max tip error`, `clip jump bone head-rim: max rim error`.
    pub fn label(&self) -> String {
        match self.kind {
            ProbeKind::Leg => format!("leg {}: max error", self.name),
            ProbeKind::Target => format!("leg {}: target marker error", self.name),
            ProbeKind::Chain => format!("chain {}: max particle deviation", self.name),
            ProbeKind::Spring => format!("spring {}: max tip error", self.name),
            ProbeKind::Bone | ProbeKind::Rim => format!(
                "clip {} bone {}: max {} error",
                self.clip.as_deref().unwrap_or(""),
                self.name,
                if self.kind == ProbeKind::Rim {
                    "rim"
                } else {
                    "tip"
                }
            ),
        }
    }
}

/// The limits `check` applies; each is named as the probe field it bounds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Thresholds {
    /// `--max-error`: the largest acceptable `max_error_px` of any probe.
    pub max_error_px: f64,
    /// `--max-slip`: the largest acceptable `max_slip_px` of any leg.
    pub max_slip_px: f64,
    /// `--max-reach`: the largest acceptable `max_reach_px` of any leg.
    pub max_reach_px: f64,
}

impl Thresholds {
    /// `--max-slip`'s default, px per step: a foot that slides less than
    /// half a pixel a step reads as planted.
    pub const DEFAULT_MAX_SLIP_PX: f64 = 0.5;
}

/// One exceeded threshold.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Failure {
    pub kind: ProbeKind,
    pub clip: Option<String>,
    pub name: String,
    /// The probe field compared (`max_error_px`, `max_slip_px` or
    /// `max_reach_px`); its threshold has the same name in [`Thresholds`].
    pub metric: &'static str,
    /// Its value (`null` when it is not a finite number, which fails too).
    pub value: f64,
    pub threshold: f64,
    /// One line for people: `leg near: max error 3.5293 px > 1 px`,
    /// `leg thigh_n-shin_n: target marker error 35.48 px > 0.25 px`,
    /// `leg thigh_n-shin_n: foot slip 7.739 px/step > 0.5 px`,
    /// `leg thigh_n-shin_n: target out of reach by 6.2 px > 1 px`.
    pub message: String,
}

/// One rig file baked for one route.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Case {
    /// The rig's `name` (with `-<clip>` under `--clip`).
    pub rig: String,
    /// The rig file as given on the command line.
    pub file: String,
    pub route: Route,
    /// No threshold exceeded.
    pub ok: bool,
    /// The largest `max_error_px` of its probes (0 when it has none).
    pub max_error_px: f64,
    pub failures: Vec<Failure>,
    pub probes: Vec<Probe>,
    /// The report's notes: what was measured and how (e.g. that the smil
    /// route writes only the first clip of a rig with clips).
    pub notes: Vec<String>,
}

impl Case {
    /// Every probe of report `r` (baked from rig file `file`) compared with
    /// the thresholds.
    pub fn of(thresholds: &Thresholds, file: String, r: &Report) -> Case {
        let probes = r.probes();
        let failures: Vec<Failure> = probes.iter().flat_map(|p| p.failures(thresholds)).collect();
        Case {
            rig: r.rig.clone(),
            file,
            route: r.route,
            ok: failures.is_empty(),
            max_error_px: probes.iter().map(|p| p.max_error_px).fold(0.0, f64::max),
            failures,
            probes,
            notes: r.notes.clone(),
        }
    }
}

/// A whole `check` run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub version: u32,
    /// Every case passed (the exit code is 0).
    pub ok: bool,
    pub thresholds: Thresholds,
    /// One per rig file and route, in command-line order.
    pub results: Vec<Case>,
}

impl Check {
    /// Compares every probe of every report with the thresholds; `bakes`
    /// pairs each report with the rig file it came from.
    pub fn new<'a>(
        thresholds: Thresholds,
        bakes: impl IntoIterator<Item = (String, &'a Report)>,
    ) -> Check {
        let results = bakes
            .into_iter()
            .map(|(file, r)| Case::of(&thresholds, file, r))
            .collect();
        Check::of_cases(thresholds, results)
    }

    /// The check of cases already compared ([`Case::of`]), in order.
    pub fn of_cases(thresholds: Thresholds, results: Vec<Case>) -> Check {
        Check {
            version: VERSION,
            ok: results.iter().all(|c| c.ok),
            thresholds,
            results,
        }
    }

    /// The text format's last lines: `ok: …` with the thresholds, or
    /// `failed: N figures over their thresholds (each on stderr)` and,
    /// where an error exceeded `--max-error` and the bake was not asked a
    /// tolerance (`tolerance_given`), a hint that `--tolerance` bakes to
    /// it (a bake keeps its own goal, not the check's threshold; with
    /// `keys_given`, uniform keys bound nothing).
    pub fn verdict(&self, tolerance_given: bool, keys_given: bool) -> String {
        let th = &self.thresholds;
        let shown = crate::valid::shown;
        if self.ok {
            return format!(
                "ok: every measured error within {} px, foot slip within {} px/step, every target within {} px of reach\n",
                shown(th.max_error_px),
                shown(th.max_slip_px),
                shown(th.max_reach_px)
            );
        }
        let n = self.failures().count();
        let mut t = if n == 1 {
            "failed: 1 figure over its threshold (each on stderr)\n".to_string()
        } else {
            format!("failed: {n} figures over their thresholds (each on stderr)\n")
        };
        let error = self.failures().any(|(_, f)| f.metric == "max_error_px");
        // (--tolerance takes 0.01 px and up)
        if error && !tolerance_given && th.max_error_px >= 0.01 {
            let px = shown(th.max_error_px);
            let (how, instead) = if keys_given {
                (
                    "--keys N writes uniform keys, with no bound on the error".to_string(),
                    " instead of --keys",
                )
            } else {
                (
                    format!(
                        "rigs are baked to keep {} px or their own tolerance_px",
                        shown(crate::fit::DEFAULT_TOLERANCE_PX)
                    ),
                    "",
                )
            };
            t.push_str(&format!(
                "hint: {how}; --tolerance {px}{instead} bakes them to keep {px} px (or says it cannot)\n"
            ));
        }
        t
    }

    /// Every failure with its case, in order.
    pub fn failures(&self) -> impl Iterator<Item = (&Case, &Failure)> {
        self.results
            .iter()
            .flat_map(|c| c.failures.iter().map(move |f| (c, f)))
    }

    /// The JSON document (pretty-printed, one object, newline-terminated).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a check serialises");
        s.push('\n');
        s
    }

    /// JUnit XML: a `<testsuites>` root, a `<testsuite>` per rig file given, a
    /// `<testcase>` per rig file and route (named `<rig> (<route>)`, class
    /// name the rig), a `<failure>` per exceeded threshold, and every probe
    /// in the test case's `<system-out>`.
    pub fn to_junit(&self) -> String {
        let failed = self.results.iter().filter(|c| !c.ok).count();
        let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            s,
            "<testsuites name=\"rigbake check\" tests=\"{}\" failures=\"{failed}\" errors=\"0\">",
            self.results.len()
        );
        // cases of one file given once are adjacent, one per route (a file
        // given twice in a row is two suites: its routes repeat)
        let mut suites: Vec<&[Case]> = Vec::new();
        let mut start = 0;
        for i in 1..=self.results.len() {
            let ends = i == self.results.len() || {
                let (group, next) = (&self.results[start..i], &self.results[i]);
                group[0].file != next.file || group.iter().any(|c| c.route == next.route)
            };
            if ends {
                suites.push(&self.results[start..i]);
                start = i;
            }
        }
        for suite in suites {
            let _ = writeln!(
                s,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"0\">",
                xml_attr(&suite[0].file),
                suite.len(),
                suite.iter().filter(|c| !c.ok).count()
            );
            let th = &self.thresholds;
            let _ = writeln!(
                s,
                "    <properties>\n      <property name=\"max_error_px\" value=\"{}\"/>\n      <property name=\"max_slip_px\" value=\"{}\"/>\n      <property name=\"max_reach_px\" value=\"{}\"/>\n    </properties>",
                crate::valid::shown(th.max_error_px),
                crate::valid::shown(th.max_slip_px),
                crate::valid::shown(th.max_reach_px)
            );
            for c in suite {
                let _ = writeln!(
                    s,
                    "    <testcase name=\"{} ({})\" classname=\"{}\" file=\"{}\">",
                    xml_attr(&c.rig),
                    c.route.as_str(),
                    xml_attr(&c.rig),
                    xml_attr(&c.file)
                );
                for f in &c.failures {
                    let _ = writeln!(
                        s,
                        "      <failure type=\"{}\" message=\"{}\">{} ({}) {}</failure>",
                        f.metric,
                        xml_attr(&f.message),
                        xml_text(&c.rig),
                        c.route.as_str(),
                        xml_text(&f.message)
                    );
                }
                let mut out = String::new();
                for p in &c.probes {
                    let _ = write!(out, "{} {} px", p.label(), p.max_error_px);
                    if let Some(rms) = p.rms_error_px {
                        let _ = write!(out, " (rms {rms} px)");
                    }
                    if let Some(slip) = p.max_slip_px {
                        let _ = write!(out, ", foot slip {slip} px/step");
                    }
                    if let Some(reach) = p.max_reach_px {
                        let _ = write!(out, ", out of reach by {reach} px");
                    }
                    out.push('\n');
                }
                for n in &c.notes {
                    let _ = writeln!(out, "note: {n}");
                }
                let _ = writeln!(s, "      <system-out>{}</system-out>", xml_text(&out));
                s.push_str("    </testcase>\n");
            }
            s.push_str("  </testsuite>\n");
        }
        s.push_str("</testsuites>\n");
        s
    }
}

/// `text` escaped for XML character data: `&`, `<`, `>` as entities, and
/// every character XML 1.0 cannot hold at all (controls other than tab,
/// newline and carriage return; U+FFFE, U+FFFF) as U+FFFD.
pub fn xml_text(text: &str) -> String {
    escape(text, false)
}

/// `text` escaped for a double- or single-quoted XML attribute value: as
/// [`xml_text`], plus both quotes, and tab, newline and carriage return as
/// character references (a parser would turn them into spaces).
pub fn xml_attr(text: &str) -> String {
    escape(text, true)
}

fn escape(text: &str, attr: bool) -> String {
    let mut s = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => s.push_str("&amp;"),
            '<' => s.push_str("&lt;"),
            '>' => s.push_str("&gt;"),
            '"' if attr => s.push_str("&quot;"),
            '\'' if attr => s.push_str("&apos;"),
            '\t' | '\n' | '\r' if attr => {
                let _ = write!(s, "&#{};", u32::from(c));
            }
            '\t' | '\n' | '\r' => s.push(c),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => s.push('\u{fffd}'),
            c => s.push(c),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind of awkward string survives a round trip through a real
    /// XML parser, in an attribute and in text (controls become U+FFFD).
    #[test]
    fn escaped_strings_parse_back() {
        let nasty = "a&b<c>d\"e'f\tg\nh\ri\u{1}j\u{1f}k\u{fffe}l]]>m&amp;";
        let want = "a&b<c>d\"e'f\tg\nh\ri\u{fffd}j\u{fffd}k\u{fffd}l]]>m&amp;";
        for q in ['"', '\''] {
            let doc = format!("<r a={q}{}{q}>{}</r>", xml_attr(nasty), xml_text(nasty));
            let x = roxmltree::Document::parse(&doc).unwrap_or_else(|e| panic!("{e}: {doc}"));
            let r = x.root_element();
            assert_eq!(r.attribute("a"), Some(want));
            // (a parser reports a carriage return in text as a newline)
            assert_eq!(r.text(), Some(want.replace('\r', "\n").as_str()));
        }
    }

    fn probe(kind: ProbeKind, name: &str, px: f64) -> Probe {
        Probe {
            kind,
            clip: None,
            name: name.into(),
            max_error_px: px,
            rms_error_px: None,
            max_slip_px: None,
            max_reach_px: None,
        }
    }

    /// Over the threshold fails, at it passes, and a NaN fails.
    #[test]
    fn thresholds_are_inclusive_and_nan_fails() {
        let mut r = Report {
            rig: "r".into(),
            route: Route::Css,
            period_s: 1.0,
            tolerance_px: None,
            legs: Vec::new(),
            bones: Vec::new(),
            notes: Vec::new(),
            bytes: 0,
            samples: 0,
            chains: Vec::new(),
            springs: Vec::new(),
        };
        r.bones = [("a", 1.0), ("b", 1.5), ("c", f64::NAN)]
            .into_iter()
            .map(|(n, px)| super::super::BoneReport {
                clip: "main".into(),
                name: n.into(),
                keys: 2,
                max_error_px: px,
                rms_error_px: px,
                worst_t_s: 0.0,
            })
            .collect();
        let th = Thresholds {
            max_error_px: 1.0,
            max_slip_px: 0.5,
            max_reach_px: 1.0,
        };
        let c = Check::new(th, [("r.json".into(), &r)]);
        assert!(!c.ok);
        let failed: Vec<&str> = c.failures().map(|(_, f)| f.name.as_str()).collect();
        assert_eq!(failed, ["b", "c"]);
        assert_eq!(c.results[0].max_error_px, 1.5);
        assert_eq!(
            c.results[0].failures[0].message,
            "clip main bone b: max tip error 1.5 px > 1 px"
        );
        assert_eq!(
            probe(ProbeKind::Chain, "hair", 0.0).label(),
            "chain hair: max particle deviation"
        );
    }

    /// Slip and reach are held to their own thresholds, inclusively; a NaN
    /// fails and a figure that does not apply (`None`) never does.
    #[test]
    fn slip_and_reach_have_their_own_inclusive_thresholds() {
        let th = Thresholds {
            max_error_px: 1.0,
            max_slip_px: 0.5,
            max_reach_px: 2.0,
        };
        let leg = |slip: Option<f64>, reach: Option<f64>| Probe {
            max_slip_px: slip,
            max_reach_px: reach,
            ..probe(ProbeKind::Leg, "near", 1.0)
        };
        let metrics = |p: Probe| -> Vec<&'static str> {
            p.failures(&th).into_iter().map(|f| f.metric).collect()
        };
        assert!(metrics(leg(None, None)).is_empty());
        assert!(metrics(leg(Some(0.5), Some(2.0))).is_empty());
        assert_eq!(metrics(leg(Some(0.51), Some(2.0))), ["max_slip_px"]);
        assert_eq!(metrics(leg(Some(0.0), Some(2.01))), ["max_reach_px"]);
        assert_eq!(
            metrics(leg(Some(f64::NAN), Some(f64::NAN))),
            ["max_slip_px", "max_reach_px"]
        );
        let f = &leg(Some(7.7387), Some(13.0213)).failures(&th);
        assert_eq!(f[0].message, "leg near: foot slip 7.7387 px/step > 0.5 px");
        assert_eq!(
            f[1].message,
            "leg near: target out of reach by 13.0213 px > 2 px"
        );
        assert_eq!((f[1].value, f[1].threshold), (13.0213, 2.0));
    }
}
