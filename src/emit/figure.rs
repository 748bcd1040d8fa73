//! Bone-tree clips → SVG: one nested `<g>` per bone, root motion around it.
//!
//! **css route.** A rotating bone group gets `transform: rotate()` keyframes
//! about its drawn joint (`transform-origin` + `transform-box: view-box`);
//! the lift groups animate the individual `translate:` property and the
//! squash group `scale:` about its own origin (`transform-origin: 0 0`; the
//! pivot is placed by static translates on a parent and a child group, so
//! no transform attribute ever shares an element with an animated
//! property). The style sheet is written by [`super::css`], the one css
//! writer (timing functions, shared keyframe bodies, constant tracks).
//! Looping clips are `infinite`, one-shot clips `1 forwards` (hold the last
//! frame).
//!
//! **Class-switched clips** (a rig with `clips`): the css route writes one
//! skeleton and scopes every clip's rules under `.clip-<name>`, which the
//! root `<svg>` carries (the first clip by default); setting another class
//! on the root starts that clip from its beginning, no script needed. SMIL
//! animations run on the document timeline and a class cannot restart
//! them, so the smil route is given one clip per file (see
//! [`crate::figure::bake_figure`]).

use super::css::{Sheet, clip_name};
use super::group;
use crate::clip::{Clip, Route};
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
        // one sheet: clips that share a keyframe body share its block
        let mut sheet = Sheet::default();
        for c in clips {
            sheet.add_clip(c, &scope(c));
        }
        style.push_str(&sheet.finish());
        style.push_str(super::css::REDUCED_MOTION);
    }
    let mut doc = super::document(first, style, extra);
    doc.append(group(first, &first.root));
    super::finish(doc)
}
