//! The smil route: `<animateTransform type="rotate">` children for rotating
//! groups and `<animate attributeName="d">` for morphed paths.
//!
//! A `d` morph must carry the same command list in every value or browsers
//! snap between values instead of interpolating; [`super::morph_d`] always
//! writes `M x y L x y …` (or `M x y C …` for a cubic morph) with the same
//! number of points. Unlike CSS, SMIL
//! ignores `prefers-reduced-motion`.
//!
//! Every `<animateTransform>` is `additive="sum"`: the animated group has
//! no `transform` of its own (static placement is on a wrapper), so the sum
//! is the animation alone, and a static transform that an optimiser (svgo)
//! moves from the wrapper onto the group still applies before it.

use super::{fmt_s, fmt_t};
use crate::clip::{Anim, Axis, Clip, Ease, Morph, Node, Play, Track};
use crate::geom::{fmt_deg, fmt_len};
use svg::Node as _;
use svg::node::element::Element;

fn timing(clip: &Clip, e: &mut Element, delay_s: f64) {
    e.assign("dur", format!("{}s", fmt_s(clip.period_s)));
    if clip.figure.as_ref().is_some_and(|f| f.play == Play::Once) {
        // plays once and holds its last value
        e.assign("fill", "freeze");
    } else {
        e.assign("repeatCount", "indefinite");
    }
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
    match &node.anim {
        Some(Anim::Translate {
            track,
            axis,
            delay_s,
        }) => {
            let keys = &clip.tracks[*track].keys;
            let values = keys.iter().map(|k| match axis {
                Axis::X => format!("{} 0", fmt_len(k.value)),
                Axis::Y => format!("0 {}", fmt_len(k.value)),
            });
            g.append(transform_anim(
                clip,
                "translate",
                values,
                &clip.tracks[*track],
                *delay_s,
            ));
            return;
        }
        Some(Anim::Scale { sx, sy, delay_s }) => {
            let (kx, ky) = (&clip.tracks[*sx].keys, &clip.tracks[*sy].keys);
            let values = kx
                .iter()
                .zip(ky)
                .map(|(x, y)| format!("{} {}", fmt_t(x.value), fmt_t(y.value)));
            g.append(transform_anim(
                clip,
                "scale",
                values,
                &clip.tracks[*sx],
                *delay_s,
            ));
            return;
        }
        _ => {}
    }
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
    // composes with any static transform an optimiser moves onto the group
    a.assign("additive", "sum");
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

/// An `<animateTransform type=kind>` with the given values, timed by `track`'s
/// key times and easings (bone-tree root motion).
fn transform_anim(
    clip: &Clip,
    kind: &str,
    values: impl Iterator<Item = String>,
    track: &Track,
    delay_s: f64,
) -> Element {
    let mut a = Element::new("animateTransform");
    a.assign("attributeName", "transform");
    // composes with any static transform an optimiser moves onto the group
    a.assign("additive", "sum");
    a.assign("type", kind);
    timing(clip, &mut a, delay_s);
    a.assign("values", values.collect::<Vec<_>>().join(";"));
    let times: Vec<f64> = track.keys.iter().map(|k| k.t).collect();
    let eases: Vec<Ease> = track.keys.iter().map(|k| k.ease).collect();
    key_times(&mut a, &times, &eases);
    a
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
            .map(|(_, pts)| super::morph_d(m, pts))
            .collect::<Vec<_>>()
            .join(";"),
    );
    let times: Vec<f64> = m.keys.iter().map(|(t, _)| *t).collect();
    key_times(&mut a, &times, &vec![Ease::Linear; times.len()]);
    a
}
