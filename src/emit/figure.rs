//! Bone-tree clips → SVG: one nested `<g>` per bone, root motion around it.
//!
//! **css route.** A rotating bone group gets `transform: rotate()` keyframes
//! about its drawn joint (`transform-origin` + `transform-box: view-box`);
//! the lift groups animate the individual `translate:` property and the
//! squash group `scale:` about its own origin (`transform-origin: 0 0`; the
//! pivot is placed by static translates on a parent and a child group, so
//! no transform attribute ever shares an element with an animated
//! property). A key's easing is written as `animation-timing-function`
//! inside its keyframe, which applies to the segment after it. Looping
//! clips are `infinite`, one-shot clips `1 forwards` (hold the last frame).
//!
//! **Class-switched clips** (a rig with `clips`): the css route writes one
//! skeleton and scopes every clip's rules under `.clip-<name>`, which the
//! root `<svg>` carries (the first clip by default); setting another class
//! on the root starts that clip from its beginning, no script needed. SMIL
//! animations run on the document timeline and a class cannot restart
//! them, so the smil route is given one clip per file (see
//! [`crate::figure::bake_figure`]).

use super::{fmt_s, fmt_t, group};
use crate::clip::{Anim, Axis, Clip, Play, Route};
use crate::geom::{fmt_deg, fmt_len, fmt_num};
use std::fmt::Write;
use svg::Node as _;

/// Drawing of bones and joints (seed 002's colours).
const FIGURE_CSS: &str = "\
.rb-bone{fill:none;stroke-linecap:round}\
.rb-joint{fill:#38bdf8}";

/// Emit one or more clips of the same figure as one SVG. `switched`: the
/// rig listed `clips`, so each clip is selected by a `clip-<name>` class on
/// the root (css route only). All clips share one route and one group
/// structure; the drawing is the first clip's.
pub fn emit_figure(clips: &[Clip], switched: bool, colours: &[String]) -> String {
    let first = &clips[0];
    let mut style = String::from(FIGURE_CSS);
    for (i, c) in colours.iter().enumerate() {
        let _ = write!(style, ".rb-s{i}{{stroke:{c}}}");
    }
    // heads (`head_radius`) are filled circles, `rb-head rb-f<i>`
    let heads = first.groups().iter().any(|g| {
        g.children.iter().any(
            |c| matches!(c, crate::clip::Item::Circle { class, .. } if class.starts_with("rb-head")),
        )
    });
    if heads {
        for (i, c) in colours.iter().enumerate() {
            let _ = write!(style, ".rb-f{i}{{fill:{c}}}");
        }
    }
    let scope = |c: &Clip| -> String {
        if switched {
            format!(".clip-{} ", clip_name(c))
        } else {
            String::new()
        }
    };
    let mut extra = Vec::new();
    if switched {
        extra.push(("class", format!("clip-{}", clip_name(first))));
        extra.push((
            "data-clips",
            clips.iter().map(clip_name).collect::<Vec<_>>().join(" "),
        ));
    }
    if first.route == Route::Css {
        for c in clips {
            style.push_str(&css_rules(c, &scope(c)));
        }
        style.push_str(
            "@media (prefers-reduced-motion:reduce){*{animation-play-state:paused!important}}",
        );
    }
    let mut doc = super::document(first, style, extra);
    doc.append(group(first, &first.root));
    super::finish(doc)
}

fn clip_name(c: &Clip) -> String {
    c.figure
        .as_ref()
        .map_or_else(|| "main".to_string(), |f| f.clip.clone())
}

/// Animation rules and keyframes of one figure clip, selectors prefixed by `scope`.
pub fn css_rules(clip: &Clip, scope: &str) -> String {
    let mut s = String::new();
    let mut frames = String::new();
    let period = fmt_s(clip.period_s);
    let iter = match clip.figure.as_ref().map(|f| f.play) {
        Some(Play::Once) => "1 forwards",
        _ => "infinite",
    };
    for node in clip.groups() {
        let (Some(anim), Some(class)) = (&node.anim, &node.class) else {
            continue;
        };
        let (track, extra) = match anim {
            Anim::Rotate { track, origin, .. } => {
                super::css::keyframes_with(&mut frames, &clip.tracks[*track], |i| {
                    format!(
                        "transform:rotate({}deg)",
                        fmt_deg(clip.tracks[*track].keys[i].value)
                    )
                });
                (
                    *track,
                    format!(
                        ";transform-origin:{}px {}px;transform-box:view-box",
                        fmt_len(origin.x),
                        fmt_len(origin.y)
                    ),
                )
            }
            Anim::Translate { track, axis, .. } => {
                super::css::keyframes_with(&mut frames, &clip.tracks[*track], |i| {
                    let v = fmt_len(clip.tracks[*track].keys[i].value);
                    match axis {
                        Axis::X => format!("translate:{v}px 0px"),
                        Axis::Y => format!("translate:0px {v}px"),
                    }
                });
                (*track, String::new())
            }
            Anim::Scale { sx, sy, .. } => {
                super::css::keyframes_with(&mut frames, &clip.tracks[*sx], |i| {
                    format!(
                        "scale:{} {}",
                        fmt_t(clip.tracks[*sx].keys[i].value),
                        fmt_t(clip.tracks[*sy].keys[i].value)
                    )
                });
                (
                    *sx,
                    ";transform-origin:0px 0px;transform-box:view-box".to_string(),
                )
            }
            Anim::Orbit { .. } => continue,
        };
        let _ = write!(
            s,
            "{scope}.{class}{{animation:{} {period}s linear {iter}{extra}}}",
            clip.tracks[track].name
        );
    }
    // morphed paths (Verlet chain segments): CSS `d: path()` keyframes,
    // linear between keys, selected by the path's probe name
    for node in clip.groups() {
        for item in &node.children {
            let crate::clip::Item::Morph(m) = item else {
                continue;
            };
            let Some(probe) = &m.probe else { continue };
            let name = format!("rb-{}-{probe}", clip_name(clip));
            let _ = write!(
                s,
                "{scope}[data-probe=\"{probe}\"]{{animation:{name} {period}s linear {iter}}}"
            );
            let _ = write!(frames, "@keyframes {name}{{");
            for (t, pts) in &m.keys {
                let _ = write!(
                    frames,
                    "{}%{{d:path(\"{}\")}}",
                    fmt_num(t * 100.0, 4),
                    super::morph_d(m, pts)
                );
            }
            frames.push('}');
        }
    }
    s.push_str(&frames);
    s
}
