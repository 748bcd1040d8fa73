//! The css route, the one css writer of every clip kind: a rule per animated
//! group and an `@keyframes` block per distinct keyframe body.
//!
//! - `Anim::Rotate` becomes keyframes of the `rotate: Xdeg` property with
//!   `transform-origin` at the drawn joint in the view box's coordinates
//!   (`transform-box: view-box`, the initial value, restored by one rule
//!   per file against a page's own sheet, see `Sheet::written`), so the
//!   origin is in the group's own user space (its parent's coordinates,
//!   before the group's transform).
//! - `Anim::Translate` animates the individual `translate:` property and
//!   `Anim::Scale` the `scale:` property about the group's own origin
//!   (`transform-origin: 0 0`).
//! - `Anim::Motion` becomes `offset-path: path("…")` with `offset-rotate:
//!   0deg` and keyframes of `offset-distance` (linear; a phase is a negative
//!   `animation-delay`): the group's origin rides on the written path by
//!   arc length, in its parent's user space.
//! - Morphed paths with a probe get `d: path()` keyframes, linear between keys.
//!
//! **Timing.** A timing function inside a keyframe applies to the segment
//! after that key; a keyframe without one uses the element's
//! `animation-timing-function`. So the timing function most segments of a
//! track use goes into the `animation` shorthand of the rule, and only keys
//! whose segment differs carry their own.
//!
//! **Smaller, same motion.** Two animations whose keyframe bodies are
//! identical share one `@keyframes` block (the first name), and a linear
//! turn that is a written block played backward, up to whole turns (a
//! pedal's counter-turn against its crank), plays that block with
//! `reverse` (`backward_turn`); within a block,
//! keys whose blocks are identical share one selector list (`0%,to{…}`,
//! see `Frames::body`), and a Bézier on the diagonal is written `linear`.
//! Rules whose bodies are identical share one selector list too, a late
//! replay's delay in a rule of its own (`Sheet`). A track whose
//! keys all hold one value (and that starts without a delay) is not
//! animated: an identity value (no turn, no shift, scale 1) writes nothing,
//! any other a static declaration. Numbers are written in their shortest
//! form ([`crate::geom::fmt_short`]), a zero length without its unit
//! where the grammar allows it (`translate`, `transform-origin`; not a
//! zero angle of the `rotate` property, whose `<angle>` needs one).

use super::scope::Scope;
use super::{fmt_coord, fmt_deg, fmt_pct, fmt_s, fmt_t};
use crate::clip::{Anim, Axis, Clip, Ease, Item, Morph, Node, Play, Track};
use fnv::FnvHashMap as HashMap;
use std::fmt::Write;

/// Pauses every css animation of the document under reduced motion.
pub(crate) const REDUCED_MOTION: &str =
    "@media (prefers-reduced-motion:reduce){*{animation-play-state:paused!important}}";

/// The animation rules, keyframes and reduced-motion rule for a css clip,
/// every name scoped by `sc`.
pub fn style(clip: &Clip, sc: &Scope) -> String {
    let (mut s, frames) = Sheet::shortest(sc, |sheet| sheet.add_clip(clip, ""));
    s.push_str(&frames);
    s.push_str(REDUCED_MOTION);
    s
}

/// A length with its unit, or a bare `0`.
fn px(x: f64) -> String {
    let v = fmt_coord(x);
    if v == "0" { v } else { format!("{v}px") }
}

/// The css timing function of a segment: `linear` also for a Bézier whose
/// written control points lie on the diagonal (`y1 = x1`, `y2 = x2`: then
/// y(s) = x(s), the identity, exactly).
fn timing(e: Ease) -> String {
    match e {
        Ease::CubicBezier(b) if !super::linear_as_written(e) => format!(
            "cubic-bezier({},{},{},{})",
            fmt_t(b[0]),
            fmt_t(b[1]),
            fmt_t(b[2]),
            fmt_t(b[3])
        ),
        _ => "linear".to_string(),
    }
}

/// The timing function most segments use (ties: the one met first); a
/// single key has no segment and takes `linear`.
fn usual_timing(timings: &[String]) -> String {
    // each distinct timing's count and first index, in one pass: a track
    // of a Verlet chain or a morph may hold hundreds of keys
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::default();
    for (i, t) in timings.iter().enumerate() {
        counts.entry(t.as_str()).or_insert((0, i)).0 += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(_, (n, first))| (n, std::cmp::Reverse(first)))
        .map_or_else(|| "linear".to_string(), |(t, _)| t.to_string())
}

/// One animation as the sheet writes it: key times, the declaration at each
/// key, and the timing function of each segment.
struct Frames {
    times: Vec<f64>,
    decls: Vec<String>,
    timings: Vec<String>,
    /// A one-number track (a turn, a translation along one axis): each
    /// key's number as written, and the unit keyframes body that maps an
    /// eased progress `p` to that number's declaration (`rotate: p deg`),
    /// so the track may be written as the stops of a `linear()` easing
    /// instead (see [`Frames::stops`]).
    scalar: Option<(Vec<String>, Unit)>,
}

/// Keyframes that map an eased progress `p` to the declaration of the
/// number `p` itself (`rotate: p deg`), shared by every track written as
/// `linear()` stops ([`Frames::stops`]), and the name they are written under.
#[derive(Clone, Copy)]
struct Unit {
    name: &'static str,
    body: &'static str,
}

const TURN: Unit = Unit {
    name: "turn",
    body: "{0%{rotate:0deg}to{rotate:1deg}}",
};
const SLIDE_X: Unit = Unit {
    name: "slide-x",
    body: "{0%{translate:0}to{translate:1px}}",
};
const SLIDE_Y: Unit = Unit {
    name: "slide-y",
    body: "{0%{translate:0}to{translate:0 1px}}",
};

/// Every unit keyframes body.
const UNITS: [Unit; 3] = [TURN, SLIDE_X, SLIDE_Y];

impl Frames {
    fn of_track(track: &Track, decl: impl Fn(usize) -> String) -> Frames {
        let n = track.keys.len();
        Frames {
            times: track.keys.iter().map(|k| k.t).collect(),
            decls: (0..n).map(decl).collect(),
            timings: track.keys[..n.saturating_sub(1)]
                .iter()
                .map(|k| timing(k.ease))
                .collect(),
            scalar: None,
        }
    }

    /// The same frames, each key's number also kept for [`Frames::stops`].
    fn with_scalar(mut self, values: Vec<String>, unit: Unit) -> Frames {
        self.scalar = Some((values, unit));
        self
    }

    /// A track whose segments are all linear, as one `linear()` easing over
    /// the unit keyframes: `linear(v0, v1 t1%, …, vn)` eases the progress
    /// through the key values themselves (an output past 1 extrapolates the
    /// unit keyframes: `rotate: 0deg → 1deg` at progress 23.7 is 23.7deg),
    /// so the motion is the keyframes' own, point for point. Input
    /// positions are left out where the keys are evenly spaced (the
    /// function spaces unpositioned points evenly), and at 0 % and 100 %.
    /// `None` for a track with a curved segment, or keys not spanning the
    /// period.
    fn stops(&self) -> Option<(String, Unit)> {
        let (values, unit) = self.scalar.as_ref()?;
        let n = self.times.len();
        if n < 2
            || self.times[0] != 0.0
            || self.times[n - 1] != 1.0
            || self.timings.iter().any(|t| t != "linear")
        {
            return None;
        }
        let even = (1..n - 1).all(|k| (self.times[k] - k as f64 / (n - 1) as f64).abs() < 1e-6);
        let mut s = String::from("linear(");
        for (k, (t, v)) in self.times.iter().zip(values).enumerate() {
            if k > 0 {
                s.push(',');
            }
            s.push_str(v);
            if !even && k > 0 && k + 1 < n {
                let _ = write!(s, " {}%", fmt_pct(*t));
            }
        }
        s.push(')');
        Some((s, *unit))
    }

    fn of_morph(m: &Morph) -> Frames {
        Frames {
            times: m.keys.iter().map(|k| k.0).collect(),
            decls: super::morph_ds(m)
                .iter()
                .map(|d| format!("d:path(\"{d}\")"))
                .collect(),
            timings: vec!["linear".to_string(); m.keys.len().saturating_sub(1)],
            scalar: None,
        }
    }

    /// Every key declares the same thing.
    fn constant(&self) -> bool {
        self.decls.iter().all(|d| *d == self.decls[0])
    }

    /// The body of the `@keyframes` block (after its name) with `usual` as
    /// the animation's timing function: each key at its percentage, plus its
    /// own timing function where its segment differs. Keys whose blocks are
    /// identical share one selector list (`0%,to{…}`), written where the
    /// first of them is (keyframes are ordered by their offsets, not by
    /// where they are written). The last key has no segment after it, so
    /// its timing function is never used: it joins the first block that
    /// declares the same value, whatever that block's timing function.
    fn body(&self, usual: &str) -> String {
        // (selectors, block content), and the first block of each content
        // and of each declaration (a chain's track may hold hundreds of keys)
        let mut blocks: Vec<(String, String)> = Vec::new();
        let mut of_content: HashMap<String, usize> = HashMap::default();
        let mut of_decl: HashMap<&str, usize> = HashMap::default();
        let n = self.times.len();
        for (i, (t, d)) in self.times.iter().zip(&self.decls).enumerate() {
            let pct = fmt_pct(*t);
            let sel = if pct == "100" {
                "to".to_string()
            } else {
                format!("{pct}%")
            };
            let mut content = d.clone();
            if let Some(tf) = self.timings.get(i).filter(|tf| *tf != usual) {
                let _ = write!(content, ";animation-timing-function:{tf}");
            }
            // (a track ends at t = 1: its last key is the `to` keyframe)
            let last = i + 1 == n && n > 1 && sel == "to";
            let same = if last {
                of_decl.get(d.as_str())
            } else {
                of_content.get(&content)
            };
            match same {
                Some(&b) => {
                    blocks[b].0.push(',');
                    blocks[b].0.push_str(&sel);
                }
                None => {
                    of_decl.entry(d.as_str()).or_insert(blocks.len());
                    of_content.entry(content.clone()).or_insert(blocks.len());
                    blocks.push((sel, content));
                }
            }
        }
        let mut s = String::from("{");
        for (sels, content) in blocks {
            let _ = write!(s, "{sels}{{{content}}}");
        }
        s.push('}');
        s
    }
}

/// Rules and keyframes of one or more clips, keyframe bodies written once,
/// every class and keyframes name scoped.
///
/// Rules whose bodies are identical are written once with a selector list
/// (`.a,.b{…}`, where the first of them stood). A group that replays
/// another's keyframes late shares that group's rule and gets its delay
/// from a rule of its own after all the others (`.b{animation-delay:-.6s}`:
/// the same specificity, later, so it overrides the shorthand's 0s). Each
/// animated group has one rule per clip, so no element meets two rules of
/// the same specificity that set one property differently, and moving a
/// rule up to its twin changes nothing.
///
/// The sheet collects the rules and animations in order, each animation
/// with both of its forms (its own keyframes, the stops of a `linear()`
/// easing), and decides between them when it is written ([`Sheet::written`]).
pub(crate) struct Sheet {
    scope: Scope,
    /// The rules and animations, in order.
    ops: Vec<Op>,
    /// Some rule places a `transform-origin` in the view box.
    origins: bool,
    /// The local stem (`rb-<clip>-`) left out of keyframes names, in a
    /// file of one clip ([`Sheet::one_clip`]).
    stem: Option<String>,
}

/// One entry of a [`Sheet`].
enum Op {
    /// A static rule: (selector, body).
    Rule(String, String),
    Anim(Box<Pending>),
}

/// One animation of a [`Sheet`], both of its forms, not yet decided.
struct Pending {
    selector: String,
    /// Its own keyframes' local name (without the clip stem in a file of
    /// one clip).
    name: String,
    /// Its own keyframes' body, and the timing function most of its
    /// segments use (the rule's).
    own: (String, String),
    /// The stops of a `linear()` easing over unit keyframes
    /// ([`Frames::stops`]), where every segment is linear.
    stops: Option<(String, Unit)>,
    /// The body of keyframes that, played in reverse, make the same
    /// motion ([`backward_turn`]).
    backward: Option<String>,
    /// `animation-delay`, where not 0.
    delay: Option<String>,
    /// The period, seconds, as written.
    period: String,
    /// The iteration part of the shorthand (`infinite`, `1 forwards`).
    iter: &'static str,
    /// Static declarations after the shorthand (an origin).
    extra: String,
}

impl Pending {
    /// Animation `frames` of `clip` on `selector` under the keyframes name
    /// `name`, with no delay, no backward form and nothing after the
    /// shorthand.
    fn new(clip: &Clip, selector: &str, name: String, frames: &Frames) -> Pending {
        let usual = usual_timing(&frames.timings);
        Pending {
            selector: selector.to_string(),
            name,
            own: (frames.body(&usual), usual),
            stops: frames.stops(),
            backward: None,
            delay: None,
            period: fmt_s(clip.period_s),
            iter: match clip.figure.as_ref().map(|f| f.play) {
                Some(Play::Once) => "1 forwards",
                _ => "infinite",
            },
            extra: String::new(),
        }
    }
}

/// A sheet as written: its rules, delay rules and keyframes.
#[derive(Default)]
struct Out {
    /// (selectors, body), in order of first appearance.
    rules: Vec<(Vec<String>, String)>,
    /// (selector, `animation-delay` value) of the late replays.
    delays: Vec<(String, String)>,
    frames: String,
    /// Written keyframes: (name, body).
    written: Vec<(String, String)>,
}

impl Out {
    /// Add a rule, joining an earlier one with the same body.
    fn rule(&mut self, selector: &str, body: String) {
        match self.rules.iter_mut().find(|(_, b)| *b == body) {
            Some((sels, _)) => sels.push(selector.to_string()),
            None => self.rules.push((vec![selector.to_string()], body)),
        }
    }

    /// Whether a keyframes block with this body is written.
    fn has(&self, body: &str) -> bool {
        self.written.iter().any(|(_, b)| b == body)
    }

    /// The name under which `body` is written: an earlier block with the same
    /// body, else `name` (or `name-<k>` if `name` already holds another body).
    fn keyframes(&mut self, name: &str, body: String) -> String {
        if let Some((n, _)) = self.written.iter().find(|(_, b)| *b == body) {
            return n.clone();
        }
        let mut unique = name.to_string();
        let mut k = 2;
        while self.written.iter().any(|(n, _)| *n == unique) {
            unique = format!("{name}-{k}");
            k += 1;
        }
        let _ = write!(self.frames, "@keyframes {unique}{body}");
        self.written.push((unique.clone(), body));
        unique
    }

    /// How animation `p` is written (keyframes name, body, the rule's
    /// timing function): its own keyframes or its stops over the unit
    /// keyframes, whichever writes fewer bytes, a body already written
    /// costing nothing (with `prepaid`, every unit body counts as written).
    fn form<'p>(&self, p: &'p Pending, prepaid: bool) -> (&'p str, &'p str, &'p str) {
        let cost = |body: &str, name: &str, timing: &str| {
            let paid = self.has(body) || (prepaid && UNITS.iter().any(|u| u.body == body));
            let block = if paid { 0 } else { name.len() + body.len() };
            block + timing.len()
        };
        let (own, usual) = &p.own;
        match &p.stops {
            Some((stops, unit))
                if cost(unit.body, unit.name, stops) < cost(own, &p.name, usual) =>
            {
                (unit.name, unit.body, stops.as_str())
            }
            _ => (p.name.as_str(), own.as_str(), usual.as_str()),
        }
    }

    /// Write animation `p`: its own keyframes (the usual timing function
    /// on the rule) or its stops over the unit keyframes, whichever writes
    /// fewer bytes, a body already written costing nothing (with
    /// `prepaid`, every unit body counts as written); or a block already
    /// written that plays the motion backward, played in reverse. Names
    /// are scoped by `scope`.
    fn animation(&mut self, p: &Pending, prepaid: bool, scope: &Scope) {
        let (name, body, timing) = self.form(p, prepaid);
        // a block already written that plays this motion backward: that
        // block reversed, instead of a block of its own
        let (body, timing, direction) = match &p.backward {
            Some(back) if !self.has(body) && self.has(back) => {
                (back.as_str(), "linear", " reverse")
            }
            _ => (body, timing, ""),
        };
        let name = self.keyframes(&scope.name(name), body.to_string());
        if let Some(d) = &p.delay {
            self.delays.push((p.selector.clone(), d.clone()));
        }
        let Pending {
            period,
            iter,
            extra,
            ..
        } = p;
        let body = format!("animation:{name} {period}s {timing} {iter}{direction}{extra}");
        self.rule(&p.selector, body);
    }
}

/// `transform-origin` in the parent's user space, as a declaration after
/// the shorthand.
fn origin_decl(x: f64, y: f64) -> String {
    format!(";transform-origin:{} {}", px(x), px(y))
}

impl Sheet {
    pub(crate) fn new(scope: Scope) -> Sheet {
        Sheet {
            scope,
            ops: Vec::new(),
            origins: false,
            stem: None,
        }
    }

    /// The rules and keyframes ([`Sheet::written`]) of a sheet that `add` fills,
    /// the shorter of two ways to write it. Each animation takes the fewer
    /// bytes of its own keyframes and the stops of a `linear()` easing over
    /// shared unit keyframes, and the unit block is paid for by the first
    /// animation that uses it: written in order, a first one that cannot
    /// pay for it alone keeps its keyframes even where later ones use the
    /// unit anyway (a crank's turn before its legs' stops). So the sheet
    /// is also written with every unit block counted as paid, and the
    /// shorter text is kept (where no animation has stops, both ways are
    /// one).
    pub(crate) fn shortest(scope: &Scope, add: impl FnOnce(&mut Sheet)) -> (String, String) {
        let mut sheet = Sheet::new(scope.clone());
        add(&mut sheet);
        let a = sheet.written(false);
        let stops = (sheet.ops.iter()).any(|op| matches!(op, Op::Anim(p) if p.stops.is_some()));
        if !stops {
            return a;
        }
        let b = sheet.written(true);
        if b.0.len() + b.1.len() < a.0.len() + a.1.len() {
            b
        } else {
            a
        }
    }

    /// The sheet holds one clip, `clip`: its keyframes names leave out the
    /// clip's name (`rb-main-far_thigh` is written `<prefix>-far_thigh`).
    /// Every name keeps the file's prefix, and stays unique as
    /// [`Out::keyframes`] makes it (bone, chain and clip names hold no
    /// `-`, so a track's name less its clip stem is still its own).
    pub(crate) fn one_clip(&mut self, clip: &str) {
        self.stem = Some(format!("rb-{clip}-"));
    }

    /// The local keyframes name of an animation named `name`: without the
    /// clip stem in a file of one clip.
    fn short<'a>(&self, name: &'a str) -> std::borrow::Cow<'a, str> {
        match self.stem.as_deref().and_then(|s| name.strip_prefix(s)) {
            Some(rest) => format!("rb-{rest}").into(),
            None => name.into(),
        }
    }

    /// Add a static rule.
    #[cfg(test)]
    fn rule(&mut self, selector: &str, body: String) {
        self.ops.push(Op::Rule(selector.to_string(), body));
    }

    /// One animation of `clip` on `selector` as the sheet keeps it: `extra`
    /// are static declarations the animated property needs (its origin),
    /// `identity` the declaration that equals no animation at all (a
    /// constant track at it is nothing, another constant a static rule).
    /// `backward`: the body of keyframes that, played in reverse, make
    /// the same motion ([`backward_turn`]).
    #[allow(clippy::too_many_arguments)]
    fn animation_op(
        &self,
        clip: &Clip,
        selector: &str,
        name: &str,
        frames: Frames,
        delay_s: f64,
        extra: &str,
        identity: Option<&str>,
        backward: Option<String>,
    ) -> Option<Op> {
        if frames.constant() && delay_s <= 0.0 {
            let d = &frames.decls[0];
            return (identity != Some(d.as_str()))
                .then(|| Op::Rule(selector.to_string(), format!("{d}{extra}")));
        }
        let pending = Pending {
            backward,
            delay: (delay_s != 0.0).then(|| format!("{}s", fmt_s(delay_s))),
            extra: extra.to_string(),
            ..Pending::new(clip, selector, self.short(name).into_owned(), &frames)
        };
        Some(Op::Anim(Box::new(pending)))
    }

    /// `transform-origin` in the parent's user space: the declaration, and
    /// the sheet's one `transform-box: view-box` rule (see `Sheet::written`).
    #[cfg(test)]
    fn origin(&mut self, x: f64, y: f64) -> String {
        self.origins = true;
        origin_decl(x, y)
    }

    /// Add every animation of `clip`, selectors prefixed by `select`: each
    /// group's, then each morphed path's, in the order of the clip's
    /// groups. Their keyframes' text is most of a sheet's work and each
    /// depends on its own track alone, so they are made side by side and
    /// kept in that order.
    pub(crate) fn add_clip(&mut self, clip: &Clip, select: &str) {
        use rayon::prelude::*;
        let groups = clip.groups();
        let turned: Vec<(Option<Op>, bool)> = groups
            .par_iter()
            .map(|node| self.group_op(clip, select, node))
            .collect();
        // morphed paths (Verlet chain segments): selected by their class
        let morphs: Vec<&Morph> = (groups.iter())
            .flat_map(|node| {
                node.children.iter().filter_map(|item| match item {
                    Item::Morph(m) if m.probe.is_some() => Some(m),
                    _ => None,
                })
            })
            .collect();
        let morphed: Vec<Option<Op>> = morphs
            .par_iter()
            .map(|m| self.morph_op(clip, select, m))
            .collect();
        for (op, origin) in turned {
            self.origins |= origin;
            self.ops.extend(op);
        }
        self.ops.extend(morphed.into_iter().flatten());
    }

    /// The animation of `node` in `clip` ([`Sheet::animation_op`]), if it
    /// has one, and whether it turns or scales about an origin (which the
    /// sheet's `transform-box` rule must reach, see `Sheet::written`).
    fn group_op(&self, clip: &Clip, select: &str, node: &Node) -> (Option<Op>, bool) {
        let (Some(anim), Some(class)) = (&node.anim, &node.class) else {
            return (None, false);
        };
        let selector = format!("{select}.{}", self.scope.name(class));
        let keys = |i: usize| &clip.tracks[i].keys;
        match anim {
            Anim::Rotate {
                track,
                origin,
                delay_s,
            } => {
                let f = rotate_frames(&clip.tracks[*track]);
                let extra = origin_decl(origin.x, origin.y);
                let name = &clip.tracks[*track].name;
                let identity = Some("rotate:0deg");
                let back = backward_turn(&clip.tracks[*track]);
                let op =
                    self.animation_op(clip, &selector, name, f, *delay_s, &extra, identity, back);
                (op, true)
            }
            Anim::Translate {
                track,
                axis,
                delay_s,
            } => {
                let f = translate_frames(&clip.tracks[*track], *axis);
                let name = &clip.tracks[*track].name;
                let identity = Some("translate:0");
                let op = self.animation_op(clip, &selector, name, f, *delay_s, "", identity, None);
                (op, false)
            }
            Anim::Motion {
                path,
                keys,
                delay_s,
            } => {
                let f = Frames {
                    times: keys.iter().map(|k| k.0).collect(),
                    decls: keys
                        .iter()
                        .map(|k| format!("offset-distance:{}%", fmt_pct(k.1)))
                        .collect(),
                    timings: vec!["linear".to_string(); keys.len().saturating_sub(1)],
                    scalar: None,
                };
                let extra = format!(";offset-path:path(\"{}\");offset-rotate:0deg", path.d);
                let op = self.animation_op(clip, &selector, class, f, *delay_s, &extra, None, None);
                (op, false)
            }
            Anim::Scale { sx, sy, delay_s } => {
                let f = Frames::of_track(&clip.tracks[*sx], |i| {
                    let (x, y) = (fmt_t(keys(*sx)[i].value), fmt_t(keys(*sy)[i].value));
                    if x == y {
                        format!("scale:{x}")
                    } else {
                        format!("scale:{x} {y}")
                    }
                });
                let extra = origin_decl(0.0, 0.0);
                let name = &clip.tracks[*sx].name;
                let identity = Some("scale:1");
                let op =
                    self.animation_op(clip, &selector, name, f, *delay_s, &extra, identity, None);
                (op, true)
            }
        }
    }

    /// The animation of the morphed path `m` (a chain segment, which has
    /// a probe) in `clip`; a constant path is the static `d` the element
    /// already has.
    fn morph_op(&self, clip: &Clip, select: &str, m: &Morph) -> Option<Op> {
        let probe = m.probe.as_ref()?;
        let class = self.scope.name(&super::morph_class(probe));
        let selector = format!("{select}.{class}");
        let name = format!("rb-{}-{probe}", clip_name(clip));
        let f = Frames::of_morph(m);
        let identity = f.decls[0].clone();
        self.animation_op(clip, &selector, &name, f, 0.0, "", Some(&identity), None)
    }

    /// The rules and the keyframes, apart, each animation's form decided
    /// in order (with `prepaid`, as if every unit block were already
    /// written: see [`Sheet::shortest`]).
    ///
    /// `transform-box: view-box` is the initial value, but a page's own
    /// sheet may set another on every element (`svg *{transform-box:
    /// fill-box}` is a common snippet), which would move every origin; one
    /// rule restores it on the groups that need it. Every group on the css
    /// route whose motion has an origin carries an id `<prefix>-n<k>`
    /// ([`Scope::id`]; the few others with one are static guards, see the
    /// module docs of [`super`]), so an id-prefix selector reaches them all,
    /// with a class's specificity, also after svgo has inlined their rules
    /// and taken their classes out. (The stem is an identifier, a prefix
    /// starting with a letter or `_`: no quotes.)
    fn written(&self, prepaid: bool) -> (String, String) {
        let mut out = Out::default();
        for op in &self.ops {
            match op {
                Op::Rule(selector, body) => out.rule(selector, body.clone()),
                Op::Anim(p) => out.animation(p, prepaid, &self.scope),
            }
        }
        let mut s = String::new();
        if self.origins {
            let _ = write!(
                s,
                "[id^={}]{{transform-box:view-box}}",
                self.scope.id_stem()
            );
        }
        for (sels, body) in &out.rules {
            let _ = write!(s, "{}{{{body}}}", sels.join(","));
        }
        let mut delays: Vec<(Vec<&str>, &str)> = Vec::new();
        for (sel, delay) in &out.delays {
            match delays.iter_mut().find(|(_, d)| d == delay) {
                Some((sels, _)) => sels.push(sel),
                None => delays.push((vec![sel], delay)),
            }
        }
        for (sels, delay) in delays {
            let _ = write!(s, "{}{{animation-delay:{delay}}}", sels.join(","));
        }
        (s, out.frames)
    }
}

/// The declaration of a translation along one axis (`translate: x` leaves y
/// at 0).
fn translate_decl(axis: Axis, v: f64) -> String {
    match axis {
        Axis::X => format!("translate:{}", px(v)),
        Axis::Y if fmt_coord(v) == "0" => "translate:0".to_string(),
        Axis::Y => format!("translate:0 {}", px(v)),
    }
}

/// The declaration of a turn about the `transform-origin`: the individual
/// `rotate` property (the same turn as `transform: rotate()` on an element
/// with no other transform, which an animated group never has).
fn rotate_decl(v: f64) -> String {
    format!("rotate:{}deg", fmt_deg(v))
}

/// A figure clip's name (`main` for a cycling clip).
pub(crate) fn clip_name(c: &Clip) -> String {
    c.figure
        .as_ref()
        .map_or_else(|| "main".to_string(), |f| f.clip.clone())
}

/// What track `i` of `clip` is written as when written alone, first in its
/// file (a translation if a group translates by it, else a rotation): its
/// `@keyframes` block (the timing function most of its segments use left to
/// the animation rule), or the `linear()` easing of its stops where every
/// segment is linear and that is shorter (see `Out::form`).
pub fn track_keyframes(clip: &Clip, i: usize) -> String {
    let track = &clip.tracks[i];
    let axis = clip.groups().into_iter().find_map(|g| match g.anim {
        Some(Anim::Translate { track, axis, .. }) if track == i => Some(axis),
        _ => None,
    });
    let f = match axis {
        Some(axis) => translate_frames(track, axis),
        None => rotate_frames(track),
    };
    let p = Pending::new(clip, "", track.name.clone(), &f);
    match Out::default().form(&p, false) {
        (name, _, timing) if name != track.name => timing.to_string(),
        (name, body, _) => format!("@keyframes {name}{body}"),
    }
}

/// The keyframes body (linear) of the turn `track` played backward: its
/// keys in reverse order at times `1 − t`, every angle plus the whole turns
/// that make the first equal the track's own first angle. Played with
/// `animation-direction: reverse`, such keyframes give at progress p their
/// value at 1 − p: the track's angle at p plus those whole turns, the same
/// rotation. A track whose keys span the period, every segment linear as
/// written, and that ends a whole number of turns from where it starts
/// (a crank's turn: its pedal's counter-turn is the crank's played
/// backward); `None` for any other.
fn backward_turn(track: &Track) -> Option<String> {
    let keys = &track.keys;
    let n = keys.len();
    if n < 2
        || keys[0].t != 0.0
        || keys[n - 1].t != 1.0
        || keys[..n - 1]
            .iter()
            .any(|k| !super::linear_as_written(k.ease))
    {
        return None;
    }
    let turns = (keys[0].value - keys[n - 1].value) / 360.0;
    if (turns - turns.round()).abs() > 1e-9 {
        return None;
    }
    let shift = turns.round() * 360.0;
    let back = Track {
        name: track.name.clone(),
        keys: keys
            .iter()
            .rev()
            .map(|k| crate::clip::Key {
                t: 1.0 - k.t,
                value: k.value + shift,
                ease: Ease::Linear,
            })
            .collect(),
    };
    Some(rotate_frames(&back).body("linear"))
}

/// A turn's frames, each key's angle also kept for [`Frames::stops`].
fn rotate_frames(track: &Track) -> Frames {
    Frames::of_track(track, |i| rotate_decl(track.keys[i].value))
        .with_scalar(track.keys.iter().map(|k| fmt_deg(k.value)).collect(), TURN)
}

/// A translation's frames along `axis`, each key's length also kept for
/// [`Frames::stops`].
fn translate_frames(track: &Track, axis: Axis) -> Frames {
    Frames::of_track(track, |i| translate_decl(axis, track.keys[i].value)).with_scalar(
        track.keys.iter().map(|k| fmt_coord(k.value)).collect(),
        match axis {
            Axis::X => SLIDE_X,
            Axis::Y => SLIDE_Y,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::Key;

    fn track(keys: &[(f64, f64, Ease)]) -> Track {
        Track {
            name: "rb-t".into(),
            keys: keys
                .iter()
                .map(|&(t, value, ease)| Key { t, value, ease })
                .collect(),
        }
    }

    const OUT: Ease = Ease::CubicBezier([0.333333, 1.0, 0.666667, 1.0]);

    #[test]
    fn the_usual_timing_function_is_left_to_the_rule() {
        let t = track(&[
            (0.0, 0.0, OUT),
            (0.25, 10.0, OUT),
            (0.5, -0.5, Ease::Linear),
            (1.0, 0.0, Ease::Linear),
        ]);
        let f = Frames::of_track(&t, |i| rotate_decl(t.keys[i].value));
        let usual = usual_timing(&f.timings);
        assert_eq!(usual, "cubic-bezier(.333333,1,.666667,1)");
        assert_eq!(
            f.body(&usual),
            "{0%,to{rotate:0deg}25%{rotate:10deg}\
             50%{rotate:-.5deg;animation-timing-function:linear}}"
        );
        // the last key's easing has no segment: it never decides nor is written
        let t = track(&[(0.0, 1.0, Ease::Linear), (1.0, 2.0, OUT)]);
        let f = Frames::of_track(&t, |i| t.keys[i].value.to_string());
        assert_eq!(usual_timing(&f.timings), "linear");
        assert!(!f.body("linear").contains("timing"));
    }

    /// The most used timing wins; of two used equally often, the one met
    /// first; none is `linear`.
    #[test]
    fn the_usual_timing_is_the_most_used_and_ties_go_to_the_first() {
        let v = |ts: &[&str]| ts.iter().map(|t| t.to_string()).collect::<Vec<_>>();
        assert_eq!(usual_timing(&v(&["a", "b", "b", "c"])), "b");
        assert_eq!(usual_timing(&v(&["b", "a", "a", "b", "c"])), "b");
        assert_eq!(usual_timing(&v(&["c", "a", "b", "a", "b"])), "a");
        assert_eq!(usual_timing(&v(&["c"])), "c");
        assert_eq!(usual_timing(&[]), "linear");
    }

    #[test]
    fn identical_key_blocks_share_one_selector_list() {
        let lin = Ease::Linear;
        // a hold (10 % to 50 %), back to the first value at the end; the
        // last key carries an easing that has no segment to time
        let t = track(&[
            (0.0, 1.0, OUT),
            (0.1, 2.0, lin),
            (0.3, 2.0, lin),
            (0.5, 2.0, OUT),
            (0.7, 1.0, lin),
            (1.0, 1.0, lin),
        ]);
        let f = Frames::of_track(&t, |i| rotate_decl(t.keys[i].value));
        let usual = usual_timing(&f.timings);
        assert_eq!(usual, "linear");
        // 50 % declares 2deg too, but times its segment differently; 70 %
        // declares the first value with another timing function than 0 %;
        // `to` joins the first block that declares its value
        assert_eq!(
            f.body(&usual),
            "{0%,to{rotate:1deg;animation-timing-function:cubic-bezier(.333333,1,.666667,1)}\
             10%,30%{rotate:2deg}\
             50%{rotate:2deg;animation-timing-function:cubic-bezier(.333333,1,.666667,1)}\
             70%{rotate:1deg}}"
        );
    }

    #[test]
    fn a_bezier_on_the_diagonal_is_written_linear() {
        let diag = Ease::CubicBezier([0.333333, 0.333333, 0.666667, 0.666667]);
        assert_eq!(timing(diag), "linear");
        assert_eq!(timing(OUT), "cubic-bezier(.333333,1,.666667,1)");
        let off = Ease::CubicBezier([0.333333, 0.333334, 0.666667, 0.666667]);
        assert_eq!(timing(off), "cubic-bezier(.333333,.333334,.666667,.666667)");
    }

    #[test]
    fn identical_bodies_are_written_once_and_names_never_collide() {
        let mut out = Out::default();
        assert_eq!(out.keyframes("a", "{0%{x:1}to{x:2}}".into()), "a");
        assert_eq!(out.keyframes("b", "{0%{x:1}to{x:2}}".into()), "a");
        assert_eq!(out.keyframes("a", "{0%{x:3}to{x:2}}".into()), "a-2");
        assert_eq!(out.frames.matches("@keyframes").count(), 2);
    }

    #[test]
    fn twin_rules_share_a_selector_list_and_late_replays_get_a_delay_rule() {
        let mut sheet = Sheet::new(Scope::with_prefix("p"));
        let o = sheet.origin(1.0, 2.0);
        let anim = |selector: &str, delay: Option<&str>| {
            Op::Anim(Box::new(Pending {
                selector: selector.into(),
                name: "rb-k".into(),
                own: ("{0%{rotate:0deg}to{rotate:9deg}}".into(), "linear".into()),
                stops: None,
                backward: None,
                delay: delay.map(Into::into),
                period: "1".into(),
                iter: "infinite",
                extra: o.clone(),
            }))
        };
        sheet.ops.push(anim(".a", None));
        sheet.rule(".b", "rotate:5deg".into());
        sheet.ops.push(anim(".c", Some("-.5s")));
        sheet.ops.push(anim(".d", Some("-.25s")));
        sheet.ops.push(anim(".e", Some("-.5s")));
        let (rules, frames) = sheet.written(false);
        // one transform-box rule for every id of the file, first; twins
        // where the first stood; delays last, so they override the
        // shorthand's 0s at the same specificity
        assert_eq!(
            rules,
            "[id^=p-n]{transform-box:view-box}\
             .a,.c,.d,.e{animation:p-k 1s linear infinite;transform-origin:1px 2px}\
             .b{rotate:5deg}\
             .c,.e{animation-delay:-.5s}.d{animation-delay:-.25s}"
        );
        assert_eq!(frames, "@keyframes p-k{0%{rotate:0deg}to{rotate:9deg}}");
        // without an origin there is no transform-box rule
        let mut sheet = Sheet::new(Scope::with_prefix("p"));
        sheet.rule(".a", "translate:1px".into());
        assert_eq!(sheet.written(false).0, ".a{translate:1px}");
    }

    /// A crank's turn written first cannot pay for the unit block alone
    /// and keeps its keyframes in order; the legs after it use the unit
    /// anyway, so the sheet counted with the unit paid (the crank's turn
    /// as stops too) is shorter and is the one kept. Where no later track
    /// uses the unit, the sheet in order is.
    #[test]
    fn the_shorter_of_the_sheet_in_order_and_with_the_unit_paid_is_kept() {
        let lin = Ease::Linear;
        let crank = track(&[(0.0, 0.0, lin), (1.0, 360.0, lin)]);
        let leg = track(&[
            (0.0, 0.0, lin),
            (0.25, 12.5, lin),
            (0.5, -3.25, lin),
            (0.75, 8.0, lin),
            (1.0, 0.0, lin),
        ]);
        let clip = Clip {
            name: "t".into(),
            route: crate::clip::Route::Css,
            period_s: 1.0,
            view_box: [0.0, 0.0, 1.0, 1.0],
            tracks: Vec::new(),
            root: Default::default(),
            legs: Vec::new(),
            figure: None,
            ground_wrap_px: None,
        };
        let add = |sheet: &mut Sheet, tracks: &[(&str, &Track)]| {
            for (sel, t) in tracks {
                let f = rotate_frames(t);
                let name = format!("rb-{}", &sel[1..]);
                let op = sheet.animation_op(&clip, sel, &name, f, 0.0, "", None, None);
                sheet.ops.extend(op);
            }
        };
        let all = [(".c", &crank), (".l", &leg), (".m", &leg)];
        let mut sheet = Sheet::new(Scope::with_prefix("p"));
        add(&mut sheet, &all);
        let (in_order, paid) = (sheet.written(false), sheet.written(true));
        assert!(in_order.1.contains("@keyframes p-c{"), "{in_order:?}");
        assert_eq!(paid.1, format!("@keyframes p-turn{}", TURN.body));
        assert!(
            paid.0
                .starts_with(".c{animation:p-turn 1s linear(0,360) infinite}")
        );
        let len = |(a, b): &(String, String)| a.len() + b.len();
        assert!(len(&paid) < len(&in_order));
        let kept = Sheet::shortest(&Scope::with_prefix("p"), |sheet| add(sheet, &all));
        assert_eq!(kept, paid);
        // the crank alone keeps its own keyframes
        let kept = Sheet::shortest(&Scope::with_prefix("p"), |sheet| add(sheet, &all[..1]));
        assert_eq!(kept.1, "@keyframes p-c{0%{rotate:0deg}to{rotate:360deg}}");
    }

    #[test]
    fn linear_tracks_are_stops_of_a_linear_easing_with_positions_where_uneven() {
        let lin = Ease::Linear;
        // evenly spaced: no positions at all
        let even = track(&[
            (0.0, 0.0, lin),
            (0.25, 5.5, lin),
            (0.5, -2.0, lin),
            (0.75, 1.0, lin),
            (1.0, 0.0, lin),
        ]);
        let (stops, unit) = rotate_frames(&even).stops().unwrap();
        assert_eq!(stops, "linear(0,5.5,-2,1,0)");
        assert_eq!(unit.body, "{0%{rotate:0deg}to{rotate:1deg}}");
        // uneven: every inner stop has its percentage, the ends none
        let uneven = track(&[
            (0.0, 1.0, lin),
            (0.1, 2.25, lin),
            (0.65, -3.0, lin),
            (1.0, 1.0, lin),
        ]);
        let (stops, _) = rotate_frames(&uneven).stops().unwrap();
        assert_eq!(stops, "linear(1,2.25 10%,-3 65%,1)");
        let (stops, unit) = translate_frames(&uneven, Axis::Y).stops().unwrap();
        assert_eq!(
            (stops.as_str(), unit.name),
            ("linear(1,2.25 10%,-3 65%,1)", "slide-y")
        );
        // one curved segment, or keys not spanning the period: keyframes only
        let curved = track(&[(0.0, 0.0, OUT), (0.5, 1.0, lin), (1.0, 0.0, lin)]);
        assert!(rotate_frames(&curved).stops().is_none());
        let short = track(&[(0.0, 0.0, lin), (0.5, 1.0, lin)]);
        assert!(rotate_frames(&short).stops().is_none());
        // the last key's easing shapes no segment
        let tail = track(&[(0.0, 0.0, lin), (0.5, 1.0, lin), (1.0, 0.0, OUT)]);
        assert_eq!(rotate_frames(&tail).stops().unwrap().0, "linear(0,1,0)");
        // a track that is not one number (a scale) has no stops
        let f = Frames::of_track(&even, |i| format!("scale:{}", even.keys[i].value));
        assert!(f.stops().is_none());
    }

    /// A linear turn is written as an earlier block played in reverse
    /// where that block is the turn backward up to whole turns: played at
    /// p it gives the turn's angle at 1 − p. A curved segment, keys not
    /// spanning the period, or an end that is not whole turns from the
    /// start: no backward form.
    #[test]
    fn a_turn_played_backward_shares_the_block_reversed() {
        let lin = Ease::Linear;
        let crank = track(&[(0.0, 0.0, lin), (1.0, 360.0, lin)]);
        let pedal = track(&[(0.0, 0.0, lin), (1.0, -360.0, lin)]);
        assert_eq!(
            backward_turn(&pedal).unwrap(),
            rotate_frames(&crank).body("linear")
        );
        // uneven keys: times 1 − t, values reversed, shifted by whole turns
        let wobble = track(&[
            (0.0, 10.0, lin),
            (0.25, 100.0, lin),
            (0.75, -200.0, lin),
            (1.0, -710.0, lin),
        ]);
        assert_eq!(
            backward_turn(&wobble).unwrap(),
            "{0%{rotate:10deg}25%{rotate:520deg}75%{rotate:820deg}to{rotate:730deg}}"
        );
        // the backward block evaluated at 1 − p is the track at p, up to
        // whole turns (linear between keys)
        let at = |keys: &[(f64, f64)], p: f64| {
            let k = keys.windows(2).find(|w| p <= w[1].0).unwrap();
            let s = (p - k[0].0) / (k[1].0 - k[0].0);
            k[0].1 + s * (k[1].1 - k[0].1)
        };
        let fwd = [(0.0, 10.0), (0.25, 100.0), (0.75, -200.0), (1.0, -710.0)];
        let back = [(0.0, 10.0), (0.25, 520.0), (0.75, 820.0), (1.0, 730.0)];
        for i in 0..=20 {
            let p = i as f64 / 20.0;
            let d = at(&back, 1.0 - p) - at(&fwd, p);
            assert!((d / 360.0 - (d / 360.0).round()).abs() < 1e-9, "{p}: {d}");
        }
        for other in [
            track(&[(0.0, 0.0, OUT), (1.0, 360.0, lin)]),
            track(&[(0.0, 0.0, lin), (0.5, 360.0, lin)]),
            track(&[(0.0, 0.0, lin), (1.0, 350.0, lin)]),
        ] {
            assert_eq!(backward_turn(&other), None);
        }
    }

    #[test]
    fn zero_lengths_and_angles_drop_their_unit() {
        assert_eq!(px(0.0001), "0");
        assert_eq!(px(0.001), ".001px");
        assert_eq!(px(-0.5), "-.5px");
        assert_eq!(translate_decl(Axis::X, -70.97), "translate:-70.97px");
        assert_eq!(translate_decl(Axis::Y, 3.0), "translate:0 3px");
        assert_eq!(translate_decl(Axis::Y, 0.0), "translate:0");
    }
}
