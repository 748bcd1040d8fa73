//! The smil route: `<animateTransform>` children for rotating, translating
//! and scaling groups, `<animateMotion>` for groups moved along a path, and
//! `<animate attributeName="d">` for morphed paths.
//!
//! A `d` morph must carry the same command list in every value or browsers
//! snap between values instead of interpolating; `morph_ds` always
//! writes `M x y L x y …` (or `M x y C …` for a cubic morph) with the same
//! number of points, in every value absolute or in every value relative. Unlike CSS, SMIL ignores `prefers-reduced-motion`.
//!
//! **Smaller, same motion.** `keyTimes` is left out when the keys are evenly
//! spaced and every segment is linear: SMIL then divides the duration into
//! equal intervals itself (the written times are those, rounded to six
//! places, so a browser's times differ from the measured clip's by at most
//! 5·10⁻⁷ of a period). With `calcMode="spline"` it is always written: the
//! SMIL and SVG rules define each keySpline on the interval between two
//! keyTimes ("one fewer sets of control points than there are keyTimes").
//! A group whose track holds one value (and starts without a delay) gets a
//! static `transform` attribute instead of an animation, or nothing for an
//! identity, and a morph whose points never change is not animated. Numbers
//! are written in their shortest form, except clock values (`dur`, `begin`),
//! whose SMIL grammar wants digits before the point.
//!
//! A rotation with more than a few keys writes its origin once instead of
//! in every value: the group sits at `translate(o)`, turns by bare angles
//! and holds its content in a `translate(−o)` group ([`origin_outside`]).
//!
//! Every `<animateTransform>` is `additive="sum"`: the animated group has
//! no `transform` of its own but that origin (static placement is on a
//! wrapper), so the sum is the animation after it, and a static transform
//! that an optimiser (svgo) moves from the wrapper onto the group still
//! applies before it.

use super::{fmt_coord, fmt_deg, fmt_t};
use crate::clip::{Anim, Axis, Clip, Ease, Morph, Node, Play, Track};
use crate::geom::{SEC_DECIMALS, T_DECIMALS, Vec2, fmt_num, quantize};
use svg::Node as _;
use svg::node::element::Element;

/// A SMIL clock value in seconds (`0.6s`, never `.6s`).
fn clock(s: f64) -> String {
    format!("{}s", fmt_num(s, SEC_DECIMALS))
}

fn timing(clip: &Clip, e: &mut Element, delay_s: f64) {
    e.assign("dur", clock(clip.period_s));
    if clip.figure.as_ref().is_some_and(|f| f.play == Play::Once) {
        // plays once and holds its last value
        e.assign("fill", "freeze");
    } else {
        e.assign("repeatCount", "indefinite");
    }
    if delay_s != 0.0 {
        e.assign("begin", clock(delay_s));
    }
}

/// The times are `i / (n − 1)` as written (rounded to the keyTime places).
pub(crate) fn evenly_spaced(times: &[f64]) -> bool {
    let n = times.len();
    n >= 2
        && times.iter().enumerate().all(|(i, t)| {
            quantize(i as f64 / (n - 1) as f64, T_DECIMALS) == quantize(*t, T_DECIMALS)
        })
}

/// keyTimes (unless evenly spaced and linear), plus calcMode/keySplines when
/// any segment is eased. A segment linear as written
/// ([`super::linear_as_written`]: a spline on the diagonal) counts as
/// linear and is written `0 0 1 1`.
fn key_times(e: &mut Element, times: &[f64], eases: &[Ease]) {
    let segments = &eases[..eases.len().saturating_sub(1)];
    let spline = segments.iter().any(|x| !super::linear_as_written(*x));
    if spline || !evenly_spaced(times) {
        e.assign(
            "keyTimes",
            times
                .iter()
                .map(|t| fmt_t(*t))
                .collect::<Vec<_>>()
                .join(";"),
        );
    }
    if spline {
        e.assign("calcMode", "spline");
        let splines = segments
            .iter()
            .map(|x| match x {
                Ease::CubicBezier(b) if !super::linear_as_written(*x) => {
                    b.iter().map(|v| fmt_t(*v)).collect::<Vec<_>>().join(" ")
                }
                _ => "0 0 1 1".to_string(),
            })
            .collect::<Vec<_>>()
            .join(";");
        e.assign("keySplines", splines);
    }
}

/// Add the `<animateTransform>` child (or, for a constant track, the static
/// `transform` attribute) of an animated group.
///
/// Returns the origin of a rotation written with bare angles (see
/// [`origin_outside`]): the caller then places the group at the origin and
/// its content in a group moved back by it.
pub fn animate_group(clip: &Clip, node: &Node, g: &mut Element) -> Option<Vec2> {
    let Some(anim) = &node.anim else { return None };
    if let Anim::Motion {
        path,
        keys,
        delay_s,
    } = anim
    {
        g.append(animate_motion(clip, &path.d, keys, *delay_s));
        return None;
    }
    let outside = origin_outside(clip, node);
    let (kind, values, track, delay_s): (&str, Vec<String>, &Track, f64) = match anim {
        Anim::Translate {
            track,
            axis,
            delay_s,
        } => {
            let tr = &clip.tracks[*track];
            let values = tr.keys.iter().map(|k| match axis {
                Axis::X => fmt_coord(k.value),
                Axis::Y => format!("0 {}", fmt_coord(k.value)),
            });
            ("translate", values.collect(), tr, *delay_s)
        }
        Anim::Scale { sx, sy, delay_s } => {
            let (kx, ky) = (&clip.tracks[*sx].keys, &clip.tracks[*sy].keys);
            let values = kx.iter().zip(ky).map(|(x, y)| {
                let (x, y) = (fmt_t(x.value), fmt_t(y.value));
                if x == y { x } else { format!("{x} {y}") }
            });
            ("scale", values.collect(), &clip.tracks[*sx], *delay_s)
        }
        Anim::Rotate {
            track,
            origin,
            delay_s,
        } => {
            let tr = &clip.tracks[*track];
            let at = origin_text(*origin);
            let values = tr.keys.iter().map(|k| match outside {
                Some(_) => fmt_deg(k.value),
                None => format!("{} {at}", fmt_deg(k.value)),
            });
            ("rotate", values.collect(), tr, *delay_s)
        }
        Anim::Motion { .. } => unreachable!("written above"),
    };
    if values.iter().all(|v| *v == values[0]) && delay_s <= 0.0 {
        let v = &values[0];
        let identity = match kind {
            "rotate" => v.starts_with("0 "),
            "scale" => v == "1",
            _ => v == "0" || v == "0 0",
        };
        if !identity {
            g.assign("transform", format!("{kind}({v})"));
        }
        return None;
    }
    g.append(transform_anim(clip, kind, values, track, delay_s));
    outside
}

/// `ox oy`, as a rotation's origin is written.
fn origin_text(origin: Vec2) -> String {
    format!("{} {}", fmt_coord(origin.x), fmt_coord(origin.y))
}

/// Where an animated rotation's origin goes, when it is not in every value
/// (`a ox oy`): a rotation about `o` is `translate(o)·rotate(a)·translate(−o)`,
/// so the group may sit at `transform="translate(o)"` (the
/// `additive="sum"` animation applies after it), turn by bare angles, and
/// hold its content in a `<g transform="translate(−o)">`. That form is
/// taken, and `Some(o)` returned, when it writes fewer bytes: a rotation
/// with more than a few keys (a Verlet chain's segments, a bone keyed to a
/// tolerance). `None` for any other animation, and for one whose values
/// all agree (written as a static transform).
pub fn origin_outside(clip: &Clip, node: &Node) -> Option<Vec2> {
    let Some(Anim::Rotate {
        track,
        origin,
        delay_s,
    }) = &node.anim
    else {
        return None;
    };
    let keys = &clip.tracks[*track].keys;
    let first = fmt_deg(keys[0].value);
    if *delay_s <= 0.0 && keys.iter().all(|k| fmt_deg(k.value) == first) {
        return None;
    }
    let at = origin_text(*origin);
    let back = origin_text(Vec2::ZERO - *origin);
    // ` ox oy` in every value, against ` transform="translate(ox oy)"` and
    // `<g transform="translate(-ox -oy)"></g>`
    let inside = keys.len() * (at.len() + 1);
    let outside = at.len() + 26 + back.len() + 30;
    (outside < inside).then_some(*origin)
}

/// An `<animateTransform type=kind>` with the given values, timed by `track`'s
/// key times and easings (bone-tree root motion).
fn transform_anim(
    clip: &Clip,
    kind: &str,
    values: Vec<String>,
    track: &Track,
    delay_s: f64,
) -> Element {
    let mut a = Element::new("animateTransform");
    a.assign("attributeName", "transform");
    // composes with any static transform an optimiser moves onto the group
    a.assign("additive", "sum");
    a.assign("type", kind);
    timing(clip, &mut a, delay_s);
    a.assign("values", values.join(";"));
    let times: Vec<f64> = track.keys.iter().map(|k| k.t).collect();
    let eases: Vec<Ease> = track.keys.iter().map(|k| k.ease).collect();
    key_times(&mut a, &times, &eases);
    a
}

/// The `<animateMotion>` child of a group moved along path data by arc
/// length: `calcMode="paced"` for one plain lap (`0;1`), else `keyPoints`
/// (fractions of the length) at `keyTimes`, linear in between (a reverse
/// lap `1;0`, or a closed loop started part-way along: `s;1;0;s` at
/// `0;1−s;1−s;1`). `rotate` is
/// left at its default, 0: the group does not turn with the path.
pub fn animate_motion(clip: &Clip, d: &str, keys: &[(f64, f64)], delay_s: f64) -> Element {
    let mut a = Element::new("animateMotion");
    timing(clip, &mut a, delay_s);
    a.assign("path", d);
    if keys == [(0.0, 0.0), (1.0, 1.0)] {
        a.assign("calcMode", "paced");
        return a;
    }
    a.assign("calcMode", "linear");
    let join = |f: &dyn Fn(&(f64, f64)) -> f64| {
        keys.iter()
            .map(|k| fmt_t(f(k)))
            .collect::<Vec<_>>()
            .join(";")
    };
    a.assign("keyPoints", join(&|k| k.1));
    a.assign("keyTimes", join(&|k| k.0));
    a
}

/// The `<animate attributeName="d">` child of a morphed path.
pub fn animate_d(clip: &Clip, m: &Morph) -> Element {
    let mut a = Element::new("animate");
    a.assign("attributeName", "d");
    timing(clip, &mut a, 0.0);
    a.assign("values", super::morph_ds(m).join(";"));
    let times: Vec<f64> = m.keys.iter().map(|(t, _)| *t).collect();
    key_times(&mut a, &times, &vec![Ease::Linear; times.len()]);
    a
}
