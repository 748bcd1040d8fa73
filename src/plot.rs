//! A small SVG line chart with a log-scale y axis (for `rigbake sweep --plot`).

use crate::geom::fmt_num;
use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 440.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 190.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 60.0;
const COLORS: [&str; 6] = [
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Chart `series` (name, points (x, y > 0)) with linear x and log10 y axes,
/// decade grid lines, axis labels and a legend. Points with y ≤ 0 are dropped.
pub fn log_line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    let pts = || {
        series
            .iter()
            .flat_map(|(_, p)| p.iter())
            .filter(|p| p.1 > 0.0)
    };
    let x_min = pts().map(|p| p.0).fold(f64::INFINITY, f64::min);
    let x_max = pts().map(|p| p.0).fold(f64::NEG_INFINITY, f64::max);
    let (x_min, x_max) = if x_min.is_finite() && x_max > x_min {
        (x_min, x_max)
    } else {
        (0.0, 1.0)
    };
    let y_lo = pts()
        .map(|p| p.1.log10().floor())
        .fold(f64::INFINITY, f64::min);
    let y_hi = pts()
        .map(|p| p.1.log10().ceil())
        .fold(f64::NEG_INFINITY, f64::max);
    let (y_lo, y_hi) = if y_lo.is_finite() && y_hi > y_lo {
        (y_lo, y_hi)
    } else {
        (-1.0, 1.0)
    };
    let pw = W - LEFT - RIGHT;
    let ph = H - TOP - BOTTOM;
    let sx = |x: f64| LEFT + (x - x_min) / (x_max - x_min) * pw;
    let sy = |y: f64| TOP + (y_hi - y.log10()) / (y_hi - y_lo) * ph;
    let f = |v: f64| fmt_num(v, 2);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{W}\" height=\"{H}\" fill=\"#fff\"/>\n<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">{}</text>\n",
        f(LEFT + pw / 2.0),
        esc(title)
    );
    // decade grid and y tick labels
    let mut d = y_lo as i32;
    while d as f64 <= y_hi {
        let y = sy(10f64.powi(d));
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
            f(LEFT),
            f(y),
            f(LEFT + pw),
            f(y),
            f(LEFT - 6.0),
            f(y + 4.0),
            fmt_num(10f64.powi(d), 4)
        );
        d += 1;
    }
    // x ticks: about 8
    let step = ((x_max - x_min) / 8.0).ceil().max(1.0);
    let mut x = x_min;
    while x <= x_max + 1e-9 {
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#999\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            f(sx(x)),
            f(TOP + ph),
            f(TOP + ph + 5.0),
            f(TOP + ph + 18.0),
            fmt_num(x, 2)
        );
        x += step;
    }
    let _ = writeln!(
        s,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>",
        f(LEFT),
        f(TOP),
        f(pw),
        f(ph)
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        f(LEFT + pw / 2.0),
        f(H - 18.0),
        esc(x_label)
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(22 {}) rotate(-90)\" text-anchor=\"middle\">{}</text>",
        f(TOP + ph / 2.0),
        esc(y_label)
    );
    for (i, (name, p)) in series.iter().enumerate() {
        let color = COLORS[i % COLORS.len()];
        let points: Vec<String> = p
            .iter()
            .filter(|q| q.1 > 0.0)
            .map(|q| format!("{},{}", f(sx(q.0)), f(sy(q.1))))
            .collect();
        if !points.is_empty() {
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"2\" points=\"{}\"/>",
                points.join(" ")
            );
        }
        let ly = TOP + 10.0 + 22.0 * i as f64;
        let lx = LEFT + pw + 16.0;
        let _ = writeln!(
            s,
            "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{color}\" stroke-width=\"3\"/><text x=\"{}\" y=\"{}\">{}</text>",
            f(lx),
            f(ly),
            f(lx + 24.0),
            f(ly),
            f(lx + 30.0),
            f(ly + 4.0),
            esc(name)
        );
    }
    s.push_str("</svg>\n");
    s
}
