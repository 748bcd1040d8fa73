//! The smil route: `<animateTransform type="rotate">` children for rotating
//! groups and `<animate attributeName="d">` for morphed paths.
//!
//! A `d` morph must carry the same command list in every value or browsers
//! snap between values instead of interpolating; [`super::polyline_d`] always
//! writes `M x y L x y …` with the same number of points. Unlike CSS, SMIL
//! ignores `prefers-reduced-motion`.

use super::{fmt_s, fmt_t, polyline_d};
use crate::clip::{Anim, Clip, Ease, Morph, Node, Track};
use crate::geom::{fmt_deg, fmt_len};
use svg::Node as _;
use svg::node::element::Element;

fn timing(clip: &Clip, e: &mut Element, delay_s: f64) {
    e.assign("dur", format!("{}s", fmt_s(clip.period_s)));
    e.assign("repeatCount", "indefinite");
    if delay_s != 0.0 {
        e.assign("begin", format!("{}s", fmt_s(delay_s)));
    }
}

/// keyTimes, plus calcMode/keySplines when any segment is eased.
fn key_times(e: &mut Element, times: &[f64], eases: &[Ease]) {
    e.assign(
        "keyTimes",
        times
            .iter()
            .map(|t| fmt_t(*t))
            .collect::<Vec<_>>()
            .join(";"),
    );
    if eases.iter().any(|x| *x != Ease::Linear) {
        e.assign("calcMode", "spline");
        let splines = eases[..eases.len() - 1]
            .iter()
            .map(|x| match x {
                Ease::Linear => "0 0 1 1".to_string(),
                Ease::CubicBezier(b) => b.iter().map(|v| fmt_t(*v)).collect::<Vec<_>>().join(" "),
            })
            .collect::<Vec<_>>()
            .join(";");
        e.assign("keySplines", splines);
    }
}

/// Add the `<animateTransform>` child for an animated group.
pub fn animate_group(clip: &Clip, node: &Node, g: &mut Element) {
    let Some(Anim::Rotate {
        track,
        origin,
        delay_s,
    }) = &node.anim
    else {
        // Orbits are written as nested rotations on this route (see bake).
        unreachable!("the smil route only rotates groups about an origin");
    };
    let Track { keys, .. } = &clip.tracks[*track];
    let mut a = Element::new("animateTransform");
    a.assign("attributeName", "transform");
    a.assign("type", "rotate");
    timing(clip, &mut a, *delay_s);
    let (ox, oy) = (fmt_len(origin.x), fmt_len(origin.y));
    a.assign(
        "values",
        keys.iter()
            .map(|k| format!("{} {ox} {oy}", fmt_deg(k.value)))
            .collect::<Vec<_>>()
            .join(";"),
    );
    let times: Vec<f64> = keys.iter().map(|k| k.t).collect();
    let eases: Vec<Ease> = keys.iter().map(|k| k.ease).collect();
    key_times(&mut a, &times, &eases);
    g.append(a);
}

/// The `<animate attributeName="d">` child of a morphed path.
pub fn animate_d(clip: &Clip, m: &Morph) -> Element {
    let mut a = Element::new("animate");
    a.assign("attributeName", "d");
    timing(clip, &mut a, 0.0);
    a.assign(
        "values",
        m.keys
            .iter()
            .map(|(_, pts)| polyline_d(pts))
            .collect::<Vec<_>>()
            .join(";"),
    );
    let times: Vec<f64> = m.keys.iter().map(|(t, _)| *t).collect();
    key_times(&mut a, &times, &vec![Ease::Linear; times.len()]);
    a
}
