//! The gallery page (`rigbake gallery`): one HTML page showing every baked
//! file animating, with its report figures and a frame strip.
//!
//! Each file is shown as `<img src="FILE">`: an image is its own document,
//! so the ids, classes and `@keyframes` of different files never meet on
//! the page (inlined SVG would share one namespace), and an `<img>`
//! animates CSS and SMIL alike. The figures are the report's, as
//! `check --format json` prints them (per probe: kind, clip, name, max
//! error; the file's bytes). The strip is a PNG of one period made by
//! [`crate::browser::frame_strip`], or, when no strip could be made, the
//! page says why instead.
//!
//! [`page`] is a pure function of its entries: the same bakes give the
//! same bytes (no dates, no absolute paths). The markup is well-formed XML
//! as well as HTML, so tests read it with an XML parser.

use crate::report::Report;
use crate::report::check::{xml_attr, xml_text};
use std::fmt::Write as _;

/// One baked file on the page.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    /// The SVG's file name, relative to the page (`seed-nested.svg`).
    pub file: String,
    pub report: &'a Report,
    /// The frame strip's file name relative to the page, when one was made.
    pub strip: Option<String>,
}

/// Frames in each strip (one period).
pub const STRIP_FRAMES: usize = 8;

/// The strip's file name for an SVG file name: `x.svg` → `x.strip.png`,
/// `x.smil.svg` → `x.smil.strip.png`.
pub fn strip_name(svg_file: &str) -> String {
    let stem = svg_file.strip_suffix(".svg").unwrap_or(svg_file);
    format!("{stem}.strip.png")
}

/// The page. `no_strip` is shown in place of every missing strip (e.g.
/// "no headless Chromium found").
pub fn page(entries: &[Entry], no_strip: &str) -> String {
    let mut s = String::new();
    s.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n\
         <title>rigbake gallery</title>\n<style>\n\
         body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;background:#fafafa}\n\
         section{background:#fff;border:1px solid #ddd;border-radius:6px;padding:1em;margin:0 0 1.5em}\n\
         .anim{max-width:360px;max-height:300px;border:1px solid #eee;background:#fff}\n\
         .strip{display:block;max-width:100%;margin-top:.5em;border:1px solid #eee}\n\
         table{border-collapse:collapse;margin-top:.5em}td,th{padding:2px 10px;text-align:left}\n\
         td.num{text-align:right;font-variant-numeric:tabular-nums}\n\
         .note{color:#666;font-style:italic}\n\
         </style>\n</head>\n<body>\n<h1>rigbake gallery</h1>\n",
    );
    let _ = writeln!(
        s,
        "<p>{} baked files, each animating as an image, with the figures its report measured \
         (largest distance of each written point from the ideal motion) and {STRIP_FRAMES} \
         frames of one period.</p>",
        entries.len()
    );
    for e in entries {
        let r = e.report;
        let file = xml_attr(&e.file);
        let _ = writeln!(s, "<section id=\"{file}\">");
        let _ = writeln!(s, "<h2><a href=\"{file}\">{}</a></h2>", xml_text(&e.file));
        let _ = writeln!(
            s,
            "<p>rig {} · route {} · period {} s · <span class=\"bytes\" data-bytes=\"{}\">{} bytes</span></p>",
            xml_text(&r.rig),
            r.route.as_str(),
            r.period_s,
            r.bytes,
            r.bytes
        );
        let _ = writeln!(
            s,
            "<img class=\"anim\" src=\"{file}\" alt=\"{} ({}) animating\"/>",
            xml_attr(&r.rig),
            r.route.as_str()
        );
        s.push_str(
            "<table>\n<tr><th>probe</th><th>clip</th><th>name</th><th>max error, px</th></tr>\n",
        );
        for p in r.probes() {
            let clip = p.clip.as_deref().unwrap_or("");
            let _ = writeln!(
                s,
                "<tr class=\"probe\" data-kind=\"{}\" data-clip=\"{}\" data-name=\"{}\" data-max-error-px=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
                p.kind.as_str(),
                xml_attr(clip),
                xml_attr(&p.name),
                p.max_error_px,
                p.kind.as_str(),
                xml_text(clip),
                xml_text(&p.name),
                p.max_error_px
            );
        }
        s.push_str("</table>\n");
        match &e.strip {
            Some(png) => {
                let _ = writeln!(
                    s,
                    "<img class=\"strip\" src=\"{}\" alt=\"{STRIP_FRAMES} frames of one period of {}\"/>",
                    xml_attr(png),
                    file
                );
            }
            None => {
                let _ = writeln!(
                    s,
                    "<p class=\"note no-strip\">No frame strip: {}</p>",
                    xml_text(no_strip)
                );
            }
        }
        s.push_str("</section>\n");
    }
    s.push_str("</body>\n</html>\n");
    s
}
