//! The css route: one rule per animated group and one `@keyframes` per track.
//!
//! `Anim::Rotate` becomes `transform: rotate(Xdeg)` keyframes with
//! `transform-origin` at the drawn joint and `transform-box: view-box`, so the
//! origin is in the group's own user space (its parent's coordinates, before
//! the group's transform). `Anim::Orbit` becomes the composite
//! `translate(c) rotate(θ) translate(r, 0) rotate(−θ)`, which needs no origin.
//! Timing is `linear` unless a key carries its own `animation-timing-function`,
//! which then applies to the segment after that key.

use super::scope::Scope;
use super::{fmt_s, fmt_t};
use crate::clip::{Anim, Clip, Ease, Track};
use crate::geom::{fmt_deg, fmt_len, fmt_num};
use std::fmt::Write;

/// The animation rules, keyframes and reduced-motion rule for a css clip,
/// every name scoped by `sc`.
pub fn style(clip: &Clip, sc: &Scope) -> String {
    let mut s = String::new();
    let period = fmt_s(clip.period_s);
    let mut used = vec![false; clip.tracks.len()];
    for node in clip.groups() {
        let (Some(anim), Some(class)) = (&node.anim, &node.class) else {
            continue;
        };
        let (track, delay_s, origin) = match anim {
            Anim::Rotate {
                track,
                origin,
                delay_s,
            } => (*track, *delay_s, Some(*origin)),
            Anim::Orbit { track, delay_s, .. } => (*track, *delay_s, None),
            // bone-tree clips are styled by `super::figure`
            Anim::Translate { .. } | Anim::Scale { .. } => continue,
        };
        used[track] = true;
        let delay = if delay_s != 0.0 {
            format!(" {}s", fmt_s(delay_s))
        } else {
            String::new()
        };
        let _ = write!(
            s,
            ".{}{{animation:{} {period}s linear{delay} infinite",
            sc.name(class),
            sc.name(&clip.tracks[track].name)
        );
        if let Some(o) = origin {
            let _ = write!(
                s,
                ";transform-origin:{}px {}px;transform-box:view-box",
                fmt_len(o.x),
                fmt_len(o.y)
            );
        }
        s.push('}');
    }
    for node in clip.groups() {
        if let Some(Anim::Orbit {
            track,
            center,
            radius,
            ..
        }) = &node.anim
        {
            let (c, r) = (*center, *radius);
            keyframes(&mut s, sc, &clip.tracks[*track], |v| {
                format!(
                    "translate({}px,{}px) rotate({}deg) translate({}px,0px) rotate({}deg)",
                    fmt_len(c.x),
                    fmt_len(c.y),
                    fmt_deg(v),
                    fmt_len(r),
                    fmt_deg(-v)
                )
            });
            used[*track] = false;
        }
    }
    for (i, track) in clip.tracks.iter().enumerate() {
        if used[i] {
            s.push_str(&rotate_keyframes(track, sc));
        }
    }
    s.push_str("@media (prefers-reduced-motion:reduce){*{animation-play-state:paused!important}}");
    s
}

/// The `@keyframes` block of a rotation track, as written.
pub fn rotate_keyframes(track: &Track, sc: &Scope) -> String {
    let mut s = String::new();
    keyframes(&mut s, sc, track, |v| format!("rotate({}deg)", fmt_deg(v)));
    s
}

fn keyframes(s: &mut String, sc: &Scope, track: &Track, transform: impl Fn(f64) -> String) {
    keyframes_with(s, sc, track, |i| {
        format!("transform:{}", transform(track.keys[i].value))
    });
}

/// Write `@keyframes <scoped track name>{…}`: key i at its percentage with
/// the declaration `decl(i)`, plus its own `animation-timing-function` when
/// its segment is a cubic-bezier (it applies to the segment after the key).
pub(crate) fn keyframes_with(
    s: &mut String,
    sc: &Scope,
    track: &Track,
    decl: impl Fn(usize) -> String,
) {
    let _ = write!(s, "@keyframes {}{{", sc.name(&track.name));
    for (i, k) in track.keys.iter().enumerate() {
        let _ = write!(s, "{}%{{{}", fmt_num(k.t * 100.0, 4), decl(i));
        if let (Ease::CubicBezier(b), true) = (k.ease, i + 1 < track.keys.len()) {
            let _ = write!(
                s,
                ";animation-timing-function:cubic-bezier({},{},{},{})",
                fmt_t(b[0]),
                fmt_t(b[1]),
                fmt_t(b[2]),
                fmt_t(b[3])
            );
        }
        s.push('}');
    }
    s.push('}');
}
