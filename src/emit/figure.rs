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
//! skeleton and scopes every clip's rules under the class
//! `<prefix>-clip-<name>` ([`Scope::clip_class`]), which the root `<svg>`
//! carries (the first clip by default); setting another such class on the
//! root starts that clip from its beginning, no script needed. The clip
//! rules sit in one `@media all{…}` block and select the root by
//! `[class~="…"]`: svgo inlines only rules outside `@media` (so the current
//! clip's rules are not frozen into `style` attributes) and drops rules whose
//! class selectors name a class no element carries (an attribute selector
//! is not such a class selector), so every clip survives it. SMIL
//! animations run on the document timeline and a class cannot restart
//! them, so the smil route is given one clip per file (see
//! [`crate::figure::bake_figure`]).

use super::scope::Scope;
use super::{Writer, fmt_s, fmt_t, group};
use crate::clip::{Anim, Axis, Clip, Play, Route};
use crate::geom::{fmt_deg, fmt_len, fmt_num};
use std::fmt::Write;
use svg::Node as _;

/// Drawing of bones and joints (seed 002's colours).
const FIGURE_CSS: &str = "\
.rb-bone{fill:none;stroke-linecap:round}\
.rb-joint{fill:#38bdf8}";

/// Emit one or more clips of the same figure as one SVG. `switched`: the
/// rig listed `clips`, so each clip is selected by a
/// [`Scope::clip_class`] class on the root (css route only). All clips
/// share one route and one group structure; the drawing is the first
/// clip's. `prefix`: the scope's prefix (`bake --prefix`), else automatic.
pub fn emit_figure(
    clips: &[Clip],
    switched: bool,
    colours: &[String],
    prefix: Option<&str>,
) -> String {
    super::scope::scoped(&clips[0].name, prefix, |sc| {
        emit_in(clips, switched, colours, sc)
    })
}

fn emit_in(clips: &[Clip], switched: bool, colours: &[String], sc: &Scope) -> String {
    let first = &clips[0];
    let mut style = sc.sheet(FIGURE_CSS);
    for (i, c) in colours.iter().enumerate() {
        let _ = write!(style, ".{}{{stroke:{c}}}", sc.name(&format!("rb-s{i}")));
    }
    // heads (`head_radius`) are filled circles, `rb-head rb-f<i>`
    let heads = first.groups().iter().any(|g| {
        g.children.iter().any(
            |c| matches!(c, crate::clip::Item::Circle { class, .. } if class.starts_with("rb-head")),
        )
    });
    if heads {
        for (i, c) in colours.iter().enumerate() {
            let _ = write!(style, ".{}{{fill:{c}}}", sc.name(&format!("rb-f{i}")));
        }
    }
    let select = |c: &Clip| -> String {
        if switched {
            format!("[class~=\"{}\"] ", sc.clip_class(&clip_name(c)))
        } else {
            String::new()
        }
    };
    let mut extra = Vec::new();
    if switched {
        extra.push(("class", sc.clip_class(&clip_name(first))));
        extra.push((
            "data-clips",
            clips.iter().map(clip_name).collect::<Vec<_>>().join(" "),
        ));
    }
    if first.route == Route::Css {
        let (mut rules, mut frames) = (String::new(), String::new());
        for c in clips {
            let (r, f) = css_rules(c, &select(c), sc);
            rules.push_str(&r);
            frames.push_str(&f);
        }
        if switched {
            let _ = write!(style, "@media all{{{rules}}}");
        } else {
            style.push_str(&rules);
        }
        style.push_str(&frames);
        style.push_str(
            "@media (prefers-reduced-motion:reduce){*{animation-play-state:paused!important}}",
        );
    }
    let mut doc = super::document(first, style, extra);
    doc.append(group(&Writer::new(first, sc), &first.root));
    super::finish(doc)
}

fn clip_name(c: &Clip) -> String {
    c.figure
        .as_ref()
        .map_or_else(|| "main".to_string(), |f| f.clip.clone())
}

/// Animation rules and keyframes of one figure clip, selectors prefixed by
/// `select`, names scoped by `sc`: `(rules, @keyframes blocks)`.
pub fn css_rules(clip: &Clip, select: &str, sc: &Scope) -> (String, String) {
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
                super::css::keyframes_with(&mut frames, sc, &clip.tracks[*track], |i| {
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
                super::css::keyframes_with(&mut frames, sc, &clip.tracks[*track], |i| {
                    let v = fmt_len(clip.tracks[*track].keys[i].value);
                    match axis {
                        Axis::X => format!("translate:{v}px 0px"),
                        Axis::Y => format!("translate:0px {v}px"),
                    }
                });
                (*track, String::new())
            }
            Anim::Scale { sx, sy, .. } => {
                super::css::keyframes_with(&mut frames, sc, &clip.tracks[*sx], |i| {
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
            "{select}.{}{{animation:{} {period}s linear {iter}{extra}}}",
            sc.name(class),
            sc.name(&clip.tracks[track].name)
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
            let name = sc.name(&format!("rb-{}-{probe}", clip_name(clip)));
            let _ = write!(
                s,
                "{select}.{}{{animation:{name} {period}s linear {iter}}}",
                sc.name(&super::morph_class(probe))
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
    (s, frames)
}
