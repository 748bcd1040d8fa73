//! Measure: evaluate the written clip as a browser does, independently of the
//! solver, and report how far each probe drifts from its ideal.
//!
//! This module re-implements browser interpolation from the clip alone (the
//! rounded numbers the file holds): linear interpolation of rotate angles and
//! of path coordinates, `cubic-bezier()` timing solved x(s) = u → s → y(s),
//! transform composition down the group tree (`translate` attribute, then the
//! animated transform; a CSS `transform-origin` is `translate(o) · T ·
//! translate(−o)`), negative delays and infinite iteration. It never calls the
//! IK solver or reads the bake stage's samples, so it catches bake bugs.
//!
//! Sampling: every key time of every track (shifted by its delay) is a
//! breakpoint; each interval between breakpoints is evaluated at evenly
//! spaced times, 100 of them, or fewer where that spacing would be finer
//! than 1/2048 of the period (at least one: the breakpoint itself). Between
//! breakpoints every track is inside one segment, so the error is smooth
//! there and a 1/2048-period spacing misses its peak by about
//! `|e''|·h²/8`, thousandths of a pixel for the example rigs (measured:
//! every figure of `check rigs/*.json` within 0.0003 px of 100 samples per
//! interval), so dense keys do not cost 100 samples each. The maximum
//! is taken over those samples (so it may miss a sharper peak between
//! samples by a hair, never overstate it); RMS is the trapezoid rule over
//! the same samples. The probes are those of the
//! figure's bones, IK effectors and targets, springs and chains
//! (`figure::measured`), read by one walk of the group tree per time.

use crate::clip::{Anim, Axis, Clip, Ease, Item, Key, Morph, MotionPath, Node, Play};
use crate::geom::{Affine, AffineExt, Rem1, Vec2, Vec2Ext};
use std::collections::BTreeMap;

/// Most evaluations per interval between consecutive breakpoints.
pub const SAMPLES_PER_INTERVAL: usize = 100;

/// The finest sample spacing is the period over this (an interval shorter
/// than 100 such steps gets one sample per step, rounded up).
pub const SAMPLES_PER_PERIOD: usize = 2048;

/// What was measured for one leg.
#[derive(Debug, Clone, PartialEq)]
pub struct LegMeasure {
    pub name: String,
    /// Max ankle–target distance over the period, user units.
    pub max_error_px: f64,
    /// RMS ankle–target distance over the period (time-weighted), user units.
    pub rms_error_px: f64,
    /// Time of the max, seconds into the period.
    pub worst_t_s: f64,
    /// smil route: worst |bone length as drawn − rig length| over the period.
    pub max_bone_stretch_px: Option<f64>,
    /// Chains with a gait target over a scrolling ground: worst foot slip
    /// per step, px ([`foot_slip_px`]).
    pub slip_px: Option<f64>,
    /// Largest distance over the period between the target the rig asked
    /// for and the point the solver aimed at (a `"reach": "pull"` target
    /// pulled back), px ([`IdealTarget::reach_px`](crate::chain::IdealTarget::reach_px));
    /// `None` where the measured target is the drawn one (a pedal).
    pub reach_px: Option<f64>,
    /// Legs measured against an ideal target (`ik_chains`; bone-tree `ik`
    /// entries fill it in `figure::measured`): worst distance between the
    /// written target marker (its `<leg>-target` probe, keyed or moved
    /// along written path data) and that ideal, px; `None` for other legs.
    /// A probe's error like any other: a tolerance holds it
    /// ([`Report::max_error_px`](crate::report::Report::max_error_px)).
    pub target_px: Option<f64>,
}

/// Solve a CSS `cubic-bezier(x1, y1, x2, y2)` timing function at input
/// progress `u ∈ [0, 1]`: find s with x(s) = u (Newton's method, falling back
/// to bisection, to 1e-12), return y(s). x is monotone for x1, x2 ∈ [0, 1].
///
/// The two halves are [`bezier_param`] (which depends on `x1`, `x2` and `u`
/// only) and [`bezier_y`]: tracks that share key times and x control points
/// (every Hermite span of [`crate::fit::keys_from`]) may solve x once per
/// instant and read each y from it, bit for bit this value.
pub fn cubic_bezier(b: [f64; 4], u: f64) -> f64 {
    let [x1, y1, x2, y2] = b;
    bezier_y(y1, y2, bezier_param(x1, x2, u))
}

/// Where on a `cubic-bezier` curve the input progress u falls: at its start
/// (u ≤ 0), at its end (u ≥ 1), or at curve parameter s with x(s) = u.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BezierAt {
    Start,
    End,
    At(f64),
}

/// One cubic Bézier coordinate with end points 0 and 1 and inner control
/// values `p1`, `p2`, at curve parameter s.
#[inline]
fn bez(p1: f64, p2: f64, s: f64) -> f64 {
    let m = 1.0 - s;
    3.0 * m * m * s * p1 + 3.0 * m * s * s * p2 + s * s * s
}

/// The x half of [`cubic_bezier`]: the curve parameter s with x(s) = u.
pub fn bezier_param(x1: f64, x2: f64, u: f64) -> BezierAt {
    let dx = |s: f64| {
        let m = 1.0 - s;
        3.0 * m * m * x1 + 6.0 * m * s * (x2 - x1) + 3.0 * s * s * (1.0 - x2)
    };
    if u <= 0.0 {
        return BezierAt::Start;
    }
    if u >= 1.0 {
        return BezierAt::End;
    }
    let mut s = u;
    for _ in 0..8 {
        let err = bez(x1, x2, s) - u;
        let d = dx(s);
        if err.abs() < 1e-14 && d > 1e-6 {
            return BezierAt::At(s);
        }
        if d.abs() < 1e-9 {
            break;
        }
        s -= err / d;
    }
    // Bisection on [0, 1] (x is monotone), to the limit of f64.
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..64 {
        s = 0.5 * (lo + hi);
        if bez(x1, x2, s) < u {
            lo = s;
        } else {
            hi = s;
        }
    }
    BezierAt::At(0.5 * (lo + hi))
}

/// The y half of [`cubic_bezier`]: y at the parameter [`bezier_param`] found.
#[inline]
pub fn bezier_y(y1: f64, y2: f64, at: BezierAt) -> f64 {
    match at {
        BezierAt::Start => 0.0,
        BezierAt::End => 1.0,
        BezierAt::At(s) => bez(y1, y2, s),
    }
}

fn ease(e: Ease, s: f64) -> f64 {
    match e {
        Ease::Linear => s,
        Ease::CubicBezier(b) => cubic_bezier(b, s),
    }
}

/// Progress through one iteration, in [0, 1), of an infinite animation with
/// the given delay at document time `t_s`.
fn progress(t_s: f64, delay_s: f64, period_s: f64) -> f64 {
    let u = ((t_s - delay_s) / period_s).rem1();
    if u >= 1.0 { 0.0 } else { u }
}

/// Progress of an animation of `clip` at document time `t_s`: wraps for
/// looping clips ([`progress`]); a one-shot clip (`Play::Once`, CSS
/// `1 forwards`, SMIL `fill="freeze"`) runs from 0 to 1 once and then holds
/// 1. Before its delay a one-shot clip is at 0 (it has no negative delays).
fn clip_progress(clip: &Clip, t_s: f64, delay_s: f64) -> f64 {
    match clip.figure.as_ref().map(|f| f.play) {
        Some(Play::Once) => ((t_s - delay_s) / clip.period_s).clamp(0.0, 1.0),
        _ => progress(t_s, delay_s, clip.period_s),
    }
}

/// The value of track `track` of `clip` at document time `t_s` (delay 0),
/// as a browser interpolates it: the independent evaluator, public so tests
/// can compare a written track with a formula.
pub fn eval_track(clip: &Clip, track: usize, t_s: f64) -> f64 {
    track_value(&clip.tracks[track].keys, clip_progress(clip, t_s, 0.0))
}

/// Segment index (binary search over sorted key times `t_at(0..n)`) holding
/// `u`, and the linear fraction through it.
fn segment(n: usize, t_at: impl Fn(usize) -> f64, u: f64) -> (usize, f64) {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if t_at(mid) <= u {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    // last i with t_at(i) <= u, kept within the n − 1 segments
    let i = lo.clamp(1, n - 1) - 1;
    (i, segment_progress(t_at(i), t_at(i + 1), u))
}

/// Progress s ∈ [0, 1] through the segment from key time `t0` to `t1` at
/// u, as [`track_value`] reads it (1 on an empty segment).
#[inline]
pub fn segment_progress(t0: f64, t1: f64, u: f64) -> f64 {
    let span = t1 - t0;
    if span > 0.0 {
        ((u - t0) / span).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

/// A track's value at progress u.
pub fn track_value(keys: &[Key], u: f64) -> f64 {
    let (i, s) = segment(keys.len(), |i| keys[i].t, u);
    let (a, b) = (&keys[i], &keys[i + 1]);
    a.value + (b.value - a.value) * ease(a.ease, s)
}

fn anim_matrix(clip: &Clip, anim: &Anim, t_s: f64) -> Affine {
    match anim {
        Anim::Rotate {
            track,
            origin,
            delay_s,
        } => {
            let u = clip_progress(clip, t_s, *delay_s);
            let deg = track_value(&clip.tracks[*track].keys, u);
            Affine::rotate_around(deg.to_radians(), *origin)
        }
        Anim::Translate {
            track,
            axis,
            delay_s,
        } => {
            let u = clip_progress(clip, t_s, *delay_s);
            let v = track_value(&clip.tracks[*track].keys, u);
            Affine::translate(match axis {
                Axis::X => Vec2::new(v, 0.0),
                Axis::Y => Vec2::new(0.0, v),
            })
        }
        Anim::Scale { sx, sy, delay_s } => {
            let u = clip_progress(clip, t_s, *delay_s);
            Affine::scale_non_uniform(
                track_value(&clip.tracks[*sx].keys, u),
                track_value(&clip.tracks[*sy].keys, u),
            )
        }
        Anim::Motion {
            path,
            keys,
            delay_s,
        } => {
            let u = clip_progress(clip, t_s, *delay_s);
            let (i, s) = segment(keys.len(), |i| keys[i].0, u);
            let f = keys[i].1 + (keys[i + 1].1 - keys[i].1) * s;
            // scale(1/k) · translate(P) · scale(k) = translate(P / k)
            Affine::translate(motion_point(path, f) * (1.0 / path.scale))
        }
    }
}

/// The transform a group applies at document time `t_s`: its static
/// translate, then its animation (identity without one), as [`probes_at`]
/// composes them.
pub fn group_matrix(clip: &Clip, node: &Node, t_s: f64) -> Affine {
    let m = Affine::translate(node.translate);
    match &node.anim {
        Some(a) => m * anim_matrix(clip, a, t_s),
        None => m,
    }
}

/// The point at `fraction` of the length of written path data (in path
/// units, see [`MotionPath::scale`]), as CSS
/// `offset-distance` and SMIL `keyPoints` place it: the arc length
/// `fraction × total` is found segment by segment (kurbo's arc length and
/// its inverse); the moves between subpaths add no length. `fraction` is
/// clamped to [0, 1].
pub fn motion_point(path: &MotionPath, fraction: f64) -> Vec2 {
    use kurbo::{ParamCurve, ParamCurveArclen};
    let total = *path.cum.last().expect("written path data has a segment");
    let s = fraction.clamp(0.0, 1.0) * total;
    let i = path
        .cum
        .partition_point(|&c| c < s)
        .min(path.segs.len() - 1);
    let before = if i == 0 { 0.0 } else { path.cum[i - 1] };
    let seg = path.segs[i];
    let u = seg.inv_arclen((s - before).max(0.0), path.accuracy);
    let q = seg.eval(u);
    Vec2::new(q.x, q.y)
}

/// Positions of every probe at document time `t_s`, in root user space.
///
/// For morphed paths (smil route) the probe is the path's last point.
pub fn probes_at(clip: &Clip, t_s: f64) -> BTreeMap<String, Vec2> {
    let mut out = BTreeMap::new();
    walk(
        clip,
        &clip.root,
        Affine::IDENTITY,
        t_s,
        &mut |name, pts, m| {
            if let Some(p) = pts.last() {
                out.insert(name.to_string(), m.apply(*p));
            }
        },
    );
    out
}

/// Morphs with at most this many points are interpolated on the stack.
const STACK_POINTS: usize = 8;

/// The points of morph `mo` at document time `t_s` (delay 0, linear
/// between its keys), handed to `visit` (on the stack for short morphs).
fn morph_at(clip: &Clip, mo: &Morph, t_s: f64, visit: &mut dyn FnMut(&[Vec2])) {
    let u = progress(t_s, 0.0, clip.period_s);
    let (i, f) = segment(mo.keys.len(), |i| mo.keys[i].0, u);
    let (a, b) = (&mo.keys[i].1, &mo.keys[i + 1].1);
    let lerp = |(p, q): (&Vec2, &Vec2)| *p + (*q - *p) * f;
    let n = a.len().min(b.len());
    if n <= STACK_POINTS {
        let mut buf = [Vec2::ZERO; STACK_POINTS];
        for (o, pq) in buf.iter_mut().zip(a.iter().zip(b)) {
            *o = lerp(pq);
        }
        visit(&buf[..n]);
    } else {
        let pts: Vec<Vec2> = a.iter().zip(b).map(lerp).collect();
        visit(&pts);
    }
}

/// The straightforward evaluation: walk the group tree at `t_s`, composing
/// each group's matrix onto its parent's, and hand `visit` every probe
/// (name, its points, the matrix of its group). [`ProbeWalk`] is the fast
/// path of the hot loops and gives the same positions bit for bit.
fn walk(
    clip: &Clip,
    node: &Node,
    parent: Affine,
    t_s: f64,
    visit: &mut dyn FnMut(&str, &[Vec2], Affine),
) {
    let m = parent * group_matrix(clip, node, t_s);
    for item in &node.children {
        match item {
            Item::Group(g) => walk(clip, g, m, t_s, visit),
            Item::Probe { name, at } => visit(name, &[*at], m),
            Item::Morph(mo) => {
                if let Some(name) = &mo.probe {
                    morph_at(clip, mo, t_s, &mut |pts| visit(name, pts, m));
                }
            }
            Item::Line { .. }
            | Item::Circle { .. }
            | Item::Dots { .. }
            | Item::Rect { .. }
            | Item::Taper { .. }
            | Item::Part { .. } => {}
        }
    }
}

/// A group of a [`ProbeWalk`], in depth-first order (parents first).
struct Step<'c> {
    node: &'c Node,
    /// The parent's step; `None` for the root.
    parent: Option<usize>,
}

/// A probe of a [`ProbeWalk`]: the step of its group and what it reads.
enum Visit<'c> {
    Point(Vec2),
    Morph(&'c Morph),
}

/// The probes of a clip resolved to their place in the group tree, so the
/// hot loops of the measure stage read positions by index into reused
/// buffers: the tree is flattened once into steps (parents before
/// children), groups whose matrix cannot change (no animation on them or
/// above them) are composed once, and groups that hold no asked probe are
/// left out. Each matrix is composed as [`walk`] composes it (the parent's
/// matrix times [`group_matrix`]), so positions are [`probes_at`]'s, bit
/// for bit.
struct ProbeWalk<'c> {
    clip: &'c Clip,
    steps: Vec<Step<'c>>,
    /// The steps whose matrix changes with time, in order.
    moving: Vec<usize>,
    /// Per step: its matrix at the last time walked.
    mats: Vec<Affine>,
    /// Per visit: its step and what it reads.
    visits: Vec<(usize, Visit<'c>)>,
    /// Name of every probe visit, in walk order.
    names: Vec<&'c str>,
    /// Whether the visit carries points (a morph may have none).
    some: Vec<bool>,
    /// Per visit at the last time walked: position (a morph's last point).
    at: Vec<Vec2>,
}

impl<'c> ProbeWalk<'c> {
    /// A walk reading every probe of the clip.
    fn new(clip: &'c Clip) -> Self {
        Self::walking(clip, None)
    }

    /// A walk of the probes named in `probes` ([`ProbeWalk::only`]) and
    /// each one's index in its positions.
    ///
    /// # Panics
    /// When the clip has no probe of one of the names.
    fn of(clip: &'c Clip, probes: &[String]) -> (Self, Vec<usize>) {
        let pw = ProbeWalk::only(clip, probes);
        let index = probes
            .iter()
            .map(|name| {
                pw.index(name)
                    .unwrap_or_else(|| panic!("the clip has no probe {name:?}"))
            })
            .collect();
        (pw, index)
    }

    /// A walk that evaluates only the groups leading to the probes named in
    /// `wanted` and reads only those probes (their positions are the whole
    /// walk's, bit for bit).
    fn only(clip: &'c Clip, wanted: &[String]) -> Self {
        Self::walking(clip, Some(wanted))
    }

    fn walking(clip: &'c Clip, wanted: Option<&[String]>) -> Self {
        let mut pw = ProbeWalk {
            clip,
            steps: Vec::new(),
            moving: Vec::new(),
            mats: Vec::new(),
            visits: Vec::new(),
            names: Vec::new(),
            some: Vec::new(),
            at: Vec::new(),
        };
        pw.flatten(&clip.root, None, wanted);
        let mut moves = Vec::with_capacity(pw.steps.len());
        for (i, step) in pw.steps.iter().enumerate() {
            let parent = step.parent.map_or(Affine::IDENTITY, |p| pw.mats[p]);
            moves.push(step.node.anim.is_some() || step.parent.is_some_and(|p| moves[p]));
            if moves[i] {
                pw.moving.push(i);
            }
            // a fixed group's matrix is the same at every time
            pw.mats.push(parent * group_matrix(clip, step.node, 0.0));
        }
        let n = pw.visits.len();
        pw.at.reserve(n);
        pw
    }

    /// Add `node` (a group below step `parent`) and, depth first, the
    /// groups below it that hold a wanted probe (all when `wanted` is
    /// `None`); whether anything wanted was added. The root is always kept.
    fn flatten(
        &mut self,
        node: &'c Node,
        parent: Option<usize>,
        wanted: Option<&[String]>,
    ) -> bool {
        let is_wanted = |name: &str| wanted.is_none_or(|w| w.iter().any(|x| x == name));
        let (steps, visits) = (self.steps.len(), self.visits.len());
        self.steps.push(Step { node, parent });
        let mut any = false;
        for item in &node.children {
            match item {
                Item::Group(g) => any |= self.flatten(g, Some(steps), wanted),
                Item::Probe { name, at } if is_wanted(name) => {
                    self.visits.push((steps, Visit::Point(*at)));
                    self.names.push(name);
                    self.some.push(true);
                    any = true;
                }
                Item::Morph(mo) => match &mo.probe {
                    Some(name) if is_wanted(name) => {
                        let n = mo.keys[0].1.len().min(mo.keys[1].1.len());
                        self.visits.push((steps, Visit::Morph(mo)));
                        self.names.push(name);
                        self.some.push(n > 0);
                        any = true;
                    }
                    _ => {}
                },
                Item::Probe { .. }
                | Item::Line { .. }
                | Item::Circle { .. }
                | Item::Dots { .. }
                | Item::Rect { .. }
                | Item::Taper { .. }
                | Item::Part { .. } => {}
            }
        }
        if !any && parent.is_some() {
            self.steps.truncate(steps);
            self.visits.truncate(visits);
        }
        any
    }

    /// The visit [`probes_at`] reports under `name` (the last with points).
    fn index(&self, name: &str) -> Option<usize> {
        (0..self.names.len())
            .rev()
            .find(|&i| self.some[i] && self.names[i] == name)
    }

    /// Evaluate the walk at `t_s`, filling the buffers (no allocation once warm).
    fn at_time(&mut self, t_s: f64) {
        let clip = self.clip;
        for &i in &self.moving {
            let step = &self.steps[i];
            let parent = step.parent.map_or(Affine::IDENTITY, |p| self.mats[p]);
            self.mats[i] = parent * group_matrix(clip, step.node, t_s);
        }
        self.at.clear();
        let at = &mut self.at;
        for (step, visit) in &self.visits {
            let m = self.mats[*step];
            match visit {
                Visit::Point(p) => at.push(m.apply(*p)),
                Visit::Morph(mo) => morph_at(clip, mo, t_s, &mut |pts| {
                    at.push(pts.last().map_or(Vec2::ZERO, |p| m.apply(*p)));
                }),
            }
        }
    }
}

/// Every key time (seconds into the period, after delays) of every animation
/// in the clip, plus 0 and the period, sorted and de-duplicated.
pub fn breakpoints(clip: &Clip) -> Vec<f64> {
    let groups = clip.groups();
    let morphs = groups.iter().flat_map(|n| {
        n.children.iter().filter_map(|item| match item {
            Item::Morph(m) => Some(m),
            _ => None,
        })
    });
    breakpoints_of(clip, groups.iter().copied(), morphs)
}

/// Every key time (seconds into the period, after delays) of the
/// animations of `groups` and of `morphs`, plus 0 and the period, sorted
/// and de-duplicated (the order they come in does not matter).
fn breakpoints_of<'a>(
    clip: &Clip,
    groups: impl IntoIterator<Item = &'a Node>,
    morphs: impl IntoIterator<Item = &'a Morph>,
) -> Vec<f64> {
    let t = clip.period_s;
    let mut bp = vec![0.0, t];
    let mut push_keys = |times: &mut dyn Iterator<Item = f64>, delay_s: f64| {
        for k in times {
            bp.push((k * t + delay_s).rem_euclid(t));
        }
    };
    for node in groups {
        match &node.anim {
            Some(Anim::Rotate { track, delay_s, .. })
            | Some(Anim::Translate { track, delay_s, .. })
            | Some(Anim::Scale {
                sy: track, delay_s, ..
            }) => push_keys(&mut clip.tracks[*track].keys.iter().map(|k| k.t), *delay_s),
            Some(Anim::Motion { keys, delay_s, .. }) => {
                push_keys(&mut keys.iter().map(|k| k.0), *delay_s)
            }
            None => {}
        }
    }
    for m in morphs {
        push_keys(&mut m.keys.iter().map(|k| k.0), 0.0);
    }
    bp.sort_by(f64::total_cmp);
    bp.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    bp
}

/// The evaluation times: up to [`SAMPLES_PER_INTERVAL`] per breakpoint
/// interval (`times_between`).
pub fn sample_times(clip: &Clip) -> Vec<f64> {
    times_between(&breakpoints(clip), clip.period_s)
}

/// Evenly spaced times per interval of the breakpoints `bp`, starting on
/// the breakpoint: [`SAMPLES_PER_INTERVAL`] of them, or one per period /
/// [`SAMPLES_PER_PERIOD`] (rounded up, at least one) where that is fewer;
/// and the period at the end.
fn times_between(bp: &[f64], period_s: f64) -> Vec<f64> {
    let h = period_s / SAMPLES_PER_PERIOD as f64;
    let mut ts = Vec::with_capacity(bp.len() + SAMPLES_PER_PERIOD);
    for w in bp.windows(2) {
        let n = ((w[1] - w[0]) / h)
            .ceil()
            .clamp(1.0, SAMPLES_PER_INTERVAL as f64) as usize;
        for j in 0..n {
            ts.push(w[0] + (w[1] - w[0]) * j as f64 / n as f64);
        }
    }
    ts.push(period_s);
    ts
}

/// Max of the error samples `e` at times `ts` (with its time) and the RMS
/// over `period_s` by the trapezoid rule.
fn max_and_rms(ts: &[f64], e: &[f64], period_s: f64) -> (f64, f64, f64) {
    let (mut worst, mut worst_t, mut integral) = (0.0, 0.0, 0.0);
    for k in 0..e.len() {
        if e[k] > worst {
            worst = e[k];
            worst_t = ts[k];
        }
        if k + 1 < e.len() {
            integral += 0.5 * (e[k] * e[k] + e[k + 1] * e[k + 1]) * (ts[k + 1] - ts[k]);
        }
    }
    (worst, worst_t, (integral / period_s).sqrt())
}

/// How far a morphed leg's bones (points hip, knee, ankle) are from their
/// lengths `(thigh, shin)`, px: the larger of the two differences.
fn stretch_px(pts: &[Vec2], (thigh, shin): (f64, f64)) -> f64 {
    (pts[0].dist(pts[1]) - thigh)
        .abs()
        .max((pts[1].dist(pts[2]) - shin).abs())
}

/// The largest bone stretch (`bone stretch` in a report) of the morph carrying
/// `probe` at the document times `ts_s` (a bone tree's limb written as a
/// morph); `None` without such a morph. The points are those of the
/// morph's own frame: the stretch of a limb whose group turns or
/// translates, not scales.
pub fn morph_stretch_px(clip: &Clip, probe: &str, bones: (f64, f64), ts_s: &[f64]) -> Option<f64> {
    let mo = clip.morph(probe)?;
    let mut most = 0.0f64;
    for &t in ts_s {
        morph_at(clip, mo, t, &mut |pts| {
            most = most.max(stretch_px(pts, bones))
        });
    }
    Some(most)
}

/// Foot slip of a chain over the written ground, px per step: over each
/// stance interval (from the ideal gait, the spec), the ankle's written
/// displacement minus the ground probe's, `|∫ (v_foot − v_ground) dt|`;
/// the largest of the steps of one loop (a gait of several steps per loop
/// has a stance each). The ground track wraps only at the loop boundary,
/// where a stance is split: its two pieces (one ending at the loop's end,
/// one starting at its start) are one step. `None` without a gait target
/// or a ground.
pub fn foot_slip_px(clip: &Clip, leg: &crate::clip::LegInfo) -> Option<f64> {
    let ideal = leg.ideal.as_ref()?;
    let stance = ideal.stance();
    let ground = crate::clip::GROUND_PROBE;
    if stance.is_empty() || !probes_at(clip, 0.0).contains_key(ground) {
        return None;
    }
    let mut steps: Vec<Vec2> = Vec::new();
    let mut across = None;
    for (a, b) in stance {
        // just before the end: at exactly the period the ground has wrapped
        let (ta, tb) = (a * clip.period_s, b * clip.period_s - 1e-9);
        let (pa, pb) = (probes_at(clip, ta), probes_at(clip, tb));
        let moved = pb[ground] - pa[ground] - (ground_unwrap(clip, tb) - ground_unwrap(clip, ta));
        let rel = (pb[&leg.ankle_probe] - pa[&leg.ankle_probe]) - moved;
        if a <= 0.0 || b >= 1.0 {
            across = Some(across.unwrap_or(Vec2::ZERO) + rel);
        } else {
            steps.push(rel);
        }
    }
    steps.extend(across);
    Some(steps.iter().map(|v| v.len()).fold(0.0, f64::max))
}

/// How far a wrapping ground row ([`Clip::ground_wrap_px`]) has stepped
/// back by document time `t_s` (t ∈ [0, period]): the wrap times the
/// number of steps written so far, a step counting in part while it is
/// under way. The `ground` probe's written position minus this is where
/// a row that never wrapped would be: a point on the ground that moves on
/// continuously, as a planted foot does. Zero for a row that does not
/// wrap. Steps are read from the written keys (one key to the next rising
/// by more than half the wrap), so this holds for what was written.
pub fn ground_unwrap(clip: &Clip, t_s: f64) -> Vec2 {
    let Some(wrap) = clip.ground_wrap_px else {
        return Vec2::ZERO;
    };
    let track = clip.groups().into_iter().find_map(|g| match g.anim {
        Some(Anim::Translate { track, .. }) if g.class.as_deref() == Some("rb-ground") => {
            Some(&clip.tracks[track])
        }
        _ => None,
    });
    let Some(track) = track else {
        return Vec2::ZERO;
    };
    let u = t_s / clip.period_s;
    let steps: f64 = track
        .keys
        .windows(2)
        .filter(|w| w[1].value - w[0].value > wrap / 2.0)
        .map(|w| ((u - w[0].t) / (w[1].t - w[0].t)).clamp(0.0, 1.0))
        .sum();
    Vec2::new(steps * wrap, 0.0)
}

/// Measure named probes of a clip against ideal positions: `ideal(t_s)`
/// returns the wanted point of each probe in `probes` (same order) at
/// document time `t_s`, sampled, maxed and averaged as the module docs
/// say; the probes are read with [`probes_at`], the written animation
/// only.
pub fn measure_probes(
    clip: &Clip,
    probes: &[String],
    ideal: &dyn Fn(f64) -> Vec<Vec2>,
) -> (Vec<LegMeasure>, usize) {
    let mut errs: Vec<Vec<f64>> = vec![Vec::new(); probes.len()];
    let ts = sample_probes(clip, probes, |t, at| {
        let want = ideal(t);
        for (i, p) in at.iter().enumerate() {
            errs[i].push(p.dist(want[i]));
        }
    });
    let out = probes
        .iter()
        .zip(&errs)
        .map(|(name, e)| probe_measure(name, &ts, e, clip.period_s))
        .collect();
    (out, ts.len())
}

/// Walk the written clip once at each of the measure stage's sample times
/// ([`sample_times`], returned) and hand `visit` the time and the positions
/// of the probes named in `probes` (same order), exactly as [`probes_at`]
/// reads them: one pass for any number of probes and figures (the
/// positions found in parallel, [`sample_probes_map`]; `visit` called in
/// time order).
///
/// # Panics
/// When the clip has no probe of one of the names.
pub fn sample_probes(
    clip: &Clip,
    probes: &[String],
    mut visit: impl FnMut(f64, &[Vec2]),
) -> Vec<f64> {
    let n = probes.len();
    // each chunk's positions in one buffer, a row of `n` per time
    let (ts, chunks) = walk_chunks(
        clip,
        probes,
        || (),
        |_, _, at, rows| rows.extend_from_slice(at),
    );
    let mut rows = chunks.iter().flat_map(|c| c.chunks_exact(n.max(1)));
    for &t in &ts {
        visit(
            t,
            if n == 0 {
                &[]
            } else {
                rows.next().expect("a row per time")
            },
        );
    }
    ts
}

/// Sample times one walk of [`sample_probes_map`] takes on.
pub const WALK_CHUNK: usize = 256;

/// `map(t, positions)` at each of the measure stage's sample times (with
/// the times, in order): the positions of the probes named in `probes`
/// as [`sample_probes`] hands them, the times walked in parallel in
/// chunks of [`WALK_CHUNK`], each by a walk of its own (a walk keeps no
/// value from one time to the next: the same bits in any order).
///
/// # Panics
/// When the clip has no probe of one of the names.
pub fn sample_probes_map<R: Send>(
    clip: &Clip,
    probes: &[String],
    map: impl Fn(f64, &[Vec2]) -> R + Sync,
) -> (Vec<f64>, Vec<R>) {
    let (ts, chunks) = walk_chunks(clip, probes, || (), |_, t, at, rows| rows.push(map(t, at)));
    (ts, chunks.into_iter().flatten().collect())
}

/// [`sample_probes_map`] for a map that writes a row of values per time
/// and keeps scratch from one time to the next: each chunk of times
/// ([`WALK_CHUNK`] of them) makes its own scratch with `init`, and at each
/// time t `push(scratch, t, positions, out)` appends that time's values to
/// the chunk's `out`. The times, and per chunk in time order the values
/// pushed (a chunk holds whole rows: read them one chunk after another).
///
/// # Panics
/// When the clip has no probe of one of the names.
pub fn sample_probes_rows<S, R: Send>(
    clip: &Clip,
    probes: &[String],
    init: impl Fn() -> S + Sync,
    push: impl Fn(&mut S, f64, &[Vec2], &mut Vec<R>) + Sync,
) -> (Vec<f64>, Vec<Vec<R>>) {
    walk_chunks(clip, probes, init, push)
}

/// The measure stage's sample times, and per chunk of [`WALK_CHUNK`] of
/// them (walked in parallel, each by a walk of its own, with scratch of
/// its own made by `init`) what `push(scratch, t, at, out)` adds to the
/// chunk's `out` at each time t, in order, `at` holding the positions of
/// the probes named in `probes` (same order).
fn walk_chunks<S, R: Send>(
    clip: &Clip,
    probes: &[String],
    init: impl Fn() -> S + Sync,
    push: impl Fn(&mut S, f64, &[Vec2], &mut Vec<R>) + Sync,
) -> (Vec<f64>, Vec<Vec<R>>) {
    use rayon::prelude::*;
    let ts = sample_times(clip);
    let chunks = ts
        .par_chunks(WALK_CHUNK)
        .map(|chunk| {
            let (mut pw, index) = ProbeWalk::of(clip, probes);
            let mut scratch = init();
            let mut at = Vec::with_capacity(index.len());
            let mut out = Vec::new();
            for (k, &t) in chunk.iter().enumerate() {
                pw.at_time(t);
                at.clear();
                at.extend(index.iter().map(|&j| pw.at[j]));
                push(&mut scratch, t, &at, &mut out);
                if k == 0 {
                    // room for as much at each time to come
                    out.reserve(out.len() * (chunk.len() - 1));
                }
            }
            out
        })
        .collect();
    (ts, chunks)
}

/// Whether the clip has a probe named `name` (as [`probes_at`] finds it).
pub fn has_probe(clip: &Clip, name: &str) -> bool {
    ProbeWalk::new(clip).index(name).is_some()
}

/// One probe's figures from its error `errs[k]` at each sample time
/// `ts[k]`: the max, its time and the RMS (the trapezoid rule over the
/// samples, as the module docs say).
pub fn probe_measure(name: &str, ts: &[f64], errs: &[f64], period_s: f64) -> LegMeasure {
    let (worst, worst_t, rms) = max_and_rms(ts, errs, period_s);
    LegMeasure {
        name: name.to_string(),
        max_error_px: worst,
        rms_error_px: rms,
        worst_t_s: worst_t,
        max_bone_stretch_px: None,
        slip_px: None,
        reach_px: None,
        target_px: None,
    }
}

/// Whether any probe in `probes` is farther than `budget_px` from its ideal
/// at every `stride`-th of [`measure_probes`]' sample times: a cheap first
/// look for a search over key counts (a count that is over the budget here
/// is over it in the full measure too, whose maximum includes these times).
pub fn over_budget_at_stride(
    clip: &Clip,
    probes: &[String],
    ideal: &dyn Fn(f64) -> Vec<Vec2>,
    stride: usize,
    budget_px: f64,
) -> bool {
    worst_at_stride(clip, probes, ideal, stride, budget_px) > budget_px
}

/// The largest distance of any probe in `probes` from its ideal at every
/// `stride`-th of [`measure_probes`]' sample times: a lower bound of the
/// largest `max_error_px` [`measure_probes`] finds, whose maximum includes
/// these times read by the same walk (so at stride 1 the two are equal, bit
/// for bit).
pub fn max_error_at_stride(
    clip: &Clip,
    probes: &[String],
    ideal: &dyn Fn(f64) -> Vec<Vec2>,
    stride: usize,
) -> f64 {
    worst_at_stride(clip, probes, ideal, stride, f64::INFINITY)
}

/// The largest probe error at every `stride`-th sample time (NaNs passed
/// over, as [`max_and_rms`] does), up to the first time with one over
/// `stop_above`.
fn worst_at_stride(
    clip: &Clip,
    probes: &[String],
    ideal: &dyn Fn(f64) -> Vec<Vec2>,
    stride: usize,
    stop_above: f64,
) -> f64 {
    let (mut pw, index) = ProbeWalk::of(clip, probes);
    let mut worst = 0.0;
    for t in sample_times(clip).into_iter().step_by(stride.max(1)) {
        pw.at_time(t);
        let want = ideal(t);
        for (&j, w) in index.iter().zip(&want) {
            let e = pw.at[j].dist(*w);
            if e > worst {
                worst = e;
            }
        }
        if worst > stop_above {
            break;
        }
    }
    worst
}

/// What the bake of one spring measured (also its report line).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SpringMeasure {
    /// The bone.
    pub bone: String,
    /// Uniform keys per period of each translate track.
    pub keys: usize,
    /// Max distance of a written bone tip of the subtree from FK + the
    /// simulated offset, px, measured on the written clip.
    pub max_tip_error_px: f64,
    /// Largest `|spring − target|` over the loop (the lag), px.
    pub max_lag_px: f64,
    /// Spring point distance between the first and last frame of the loop, px.
    pub seam_error_px: f64,
    pub converged: bool,
    pub warmup_periods: usize,
}

/// What was measured for one `ik` entry in one clip.
#[derive(Debug, Clone)]
pub struct IkMeasure {
    /// Index into [`FigureBake::clips`](crate::report::FigureBake::clips).
    pub clip: usize,
    /// The entry as a leg: name `<upper>-<lower>` (prefixed `<clip>:` when
    /// clips are switched), effector probe, the two bones' tracks.
    pub leg: crate::clip::LegInfo,
    /// `slip_px` is set with a ground and a gait target; `reach_px` always.
    pub measure: LegMeasure,
    /// Largest distance of the written target probe `<lower>-target` from
    /// the target the entry asks for, px.
    pub target_error_px: f64,
    /// Largest distance between the written effector and the written
    /// target probe, px: the foot-to-target distance any tool reads from
    /// the file (`reach_px` give or take `max_error_px + target_error_px`).
    pub foot_to_target_px: f64,
    /// With a ground, while the foot is down (`figure::down_intervals`): the
    /// largest distance of the written effector from the ground line, px.
    pub ground_px: Option<f64>,
}

/// What the bake of one Verlet chain measured.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainMeasure {
    pub name: String,
    /// Uniform keys per period of every segment's morph.
    pub keys: usize,
    /// Max distance of any written particle from the simulated one
    /// (between recorded frames as `figure::chain::between` moves them), px.
    pub max_deviation_px: f64,
    /// Max particle distance between the loop's first and last recorded frame, px.
    pub seam_error_px: f64,
    pub converged: bool,
    pub warmup_periods: usize,
    /// Largest relative deviation of a simulated segment length from the
    /// rest length over the recorded frames (0.01 = 1 %).
    pub max_length_error: f64,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `cubic_bezier` as one function (the x solve and the y read not
    /// split), the straightforward form of [`cubic_bezier`].
    fn cubic_bezier_whole(b: [f64; 4], u: f64) -> f64 {
        let [x1, y1, x2, y2] = b;
        let bez = |p1: f64, p2: f64, s: f64| {
            let m = 1.0 - s;
            3.0 * m * m * s * p1 + 3.0 * m * s * s * p2 + s * s * s
        };
        let dx = |s: f64| {
            let m = 1.0 - s;
            3.0 * m * m * x1 + 6.0 * m * s * (x2 - x1) + 3.0 * s * s * (1.0 - x2)
        };
        if u <= 0.0 {
            return 0.0;
        }
        if u >= 1.0 {
            return 1.0;
        }
        let mut s = u;
        for _ in 0..8 {
            let err = bez(x1, x2, s) - u;
            let d = dx(s);
            if err.abs() < 1e-14 && d > 1e-6 {
                return bez(y1, y2, s);
            }
            if d.abs() < 1e-9 {
                break;
            }
            s -= err / d;
        }
        let (mut lo, mut hi) = (0.0, 1.0);
        for _ in 0..64 {
            s = 0.5 * (lo + hi);
            if bez(x1, x2, s) < u {
                lo = s;
            } else {
                hi = s;
            }
        }
        s = 0.5 * (lo + hi);
        bez(y1, y2, s)
    }

    /// The split solve (x once, any y from it) is the whole one bit for
    /// bit, Newton and bisection paths and the ends included.
    #[test]
    fn split_cubic_bezier_is_the_whole_one() {
        let xs = [
            (1.0 / 3.0, 2.0 / 3.0),
            (0.333333, 0.666667),
            (0.0, 1.0),
            (1.0, 0.0),
            (0.42, 0.58),
            (0.9, 0.1),
        ];
        let ys = [(-1.5, 2.5), (0.1, 0.9), (0.0, 0.0), (1.0, 1.0), (2.9, -1.9)];
        let mut newton = 0;
        for &(x1, x2) in &xs {
            for k in -2..=1002 {
                let u = k as f64 / 1000.0 + if k % 7 == 0 { 1e-17 } else { 0.0 };
                let at = bezier_param(x1, x2, u);
                for &(y1, y2) in &ys {
                    let want = cubic_bezier_whole([x1, y1, x2, y2], u);
                    assert_eq!(
                        bezier_y(y1, y2, at).to_bits(),
                        want.to_bits(),
                        "{x1} {x2} {u}"
                    );
                    assert_eq!(cubic_bezier([x1, y1, x2, y2], u).to_bits(), want.to_bits());
                }
                newton += matches!(at, BezierAt::At(_)) as usize;
            }
        }
        assert!(newton > 5000);
    }

    /// `segment_progress` is the fraction `track_value` took inline.
    #[test]
    fn segment_progress_is_the_inline_fraction() {
        for (t0, t1) in [(0.0, 1.0), (0.25, 0.5), (0.5, 0.5), (0.1, 0.3)] {
            for k in -5..=105 {
                let u = k as f64 / 100.0;
                let span: f64 = t1 - t0;
                let want: f64 = if span > 0.0 {
                    ((u - t0) / span).clamp(0.0, 1.0)
                } else {
                    1.0
                };
                assert_eq!(segment_progress(t0, t1, u).to_bits(), want.to_bits());
            }
        }
    }

    /// Every breakpoint is a sample; an interval gets 100 evenly spaced
    /// samples, or one per 1/2048 of the period where that is fewer; so a
    /// period holds at most 2048 samples plus one per breakpoint.
    #[test]
    fn sample_spacing_is_capped_per_interval_and_per_period() {
        let period = 0.8;
        let h = period / SAMPLES_PER_PERIOD as f64;
        // a long interval, a short one (10.5 steps), one shorter than a step
        let bp = [0.0, 0.5, 0.5 + 10.5 * h, 0.5 + 10.8 * h, period];
        let ts = times_between(&bp, period);
        for b in &bp {
            assert!(ts.contains(b), "breakpoint {b} sampled");
        }
        let count = |lo: f64, hi: f64| ts.iter().filter(|&&t| t >= lo && t < hi).count();
        assert_eq!(count(bp[0], bp[1]), SAMPLES_PER_INTERVAL);
        assert_eq!(count(bp[1], bp[2]), 11);
        assert_eq!(count(bp[2], bp[3]), 1);
        assert!(ts.windows(2).all(|w| w[0] < w[1]), "rising");
        // dense breakpoints: bounded by the period's budget, not 100 each
        let dense: Vec<f64> = (0..=1000).map(|k| period * k as f64 / 1000.0).collect();
        let n = times_between(&dense, period).len();
        assert!(n <= SAMPLES_PER_PERIOD + dense.len(), "{n} samples");
        assert!(n >= SAMPLES_PER_PERIOD, "{n} samples");
    }

    #[test]
    fn exact_easings_match_their_polynomials() {
        for k in 0..=1000 {
            let u = k as f64 / 1000.0;
            let smooth = u * u * (3.0 - 2.0 * u);
            assert!((cubic_bezier([1. / 3., 0., 2. / 3., 1.], u) - smooth).abs() < 1e-9);
            let out = 1.0 - (1.0 - u).powi(3);
            assert!((cubic_bezier([1. / 3., 1., 2. / 3., 1.], u) - out).abs() < 1e-9);
            assert!((cubic_bezier([1. / 3., 0., 2. / 3., 0.], u) - u.powi(3)).abs() < 1e-9);
        }
    }

    proptest! {
        /// Against an independent reference: dense bisection on the curve.
        #[test]
        fn cubic_bezier_matches_bisection_reference(
            x1 in 0.0..=1.0f64, y1 in -2.0..3.0f64, x2 in 0.0..=1.0f64, y2 in -2.0..3.0f64,
            u in 0.0..=1.0f64,
        ) {
            let (mut lo, mut hi) = (0.0f64, 1.0f64);
            let bx = |s: f64| 3.0 * (1.0 - s).powi(2) * s * x1 + 3.0 * (1.0 - s) * s * s * x2 + s.powi(3);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if bx(mid) < u { lo = mid } else { hi = mid }
            }
            let s = 0.5 * (lo + hi);
            let y = 3.0 * (1.0 - s).powi(2) * s * y1 + 3.0 * (1.0 - s) * s * s * y2 + s.powi(3);
            prop_assert!((cubic_bezier([x1, y1, x2, y2], u) - y).abs() < 1e-9);
        }
    }
    /// The shortcut on [0, 1) keeps `rem_euclid`'s bits, at the ends too.
    #[test]
    fn progress_equals_rem_euclid() {
        let times = [
            -2.5,
            -1.0,
            -1e-300,
            -0.0,
            0.0,
            1e-300,
            0.3,
            0.7,
            1.0,
            1.2,
            1.0 - 1e-16,
            7.9,
        ];
        for &t in &times {
            for (delay, period) in [(0.0f64, 1.0f64), (-0.6, 1.2), (0.25, 0.7), (-1.5, 2.0)] {
                let u = ((t - delay) / period).rem1();
                let want = if u >= 1.0 { 0.0 } else { u };
                let got = progress(t, delay, period);
                assert_eq!(got.to_bits(), want.to_bits(), "{t} {delay} {period}");
            }
        }
    }

    #[test]
    fn progress_wraps_negative_delays() {
        assert!((progress(0.0, -0.6, 1.2) - 0.5).abs() < 1e-12);
        assert!((progress(0.9, -0.6, 1.2) - 0.25).abs() < 1e-12);
        assert_eq!(progress(1.2, 0.0, 1.2), 0.0);
    }

    /// The indexed walk of the hot loops reads exactly what the map of
    /// names reads, points of morphs included, and so do the walks of the
    /// sample times in parallel chunks, in time order (called on real clips
    /// by the crate's rig-level tests). Returns how many chunks the sample
    /// times took.
    pub(crate) fn probe_walk_matches_the_map(clip: &Clip) -> usize {
        let route = clip.route;
        // a walk kept to one probe's groups reads it exactly as the whole walk
        let names: Vec<String> = probes_at(clip, 0.0).into_keys().collect();
        assert!(names.len() > 1);
        for name in &names {
            let mut one = ProbeWalk::only(clip, std::slice::from_ref(name));
            assert!(one.names.len() < ProbeWalk::new(clip).names.len() || names.len() == 1);
            for k in 0..=11 {
                let t = clip.period_s * k as f64 / 11.0;
                one.at_time(t);
                assert_eq!(one.at[one.index(name).unwrap()], probes_at(clip, t)[name]);
            }
        }
        let mut pw = ProbeWalk::new(clip);
        for k in 0..=37 {
            let t = clip.period_s * k as f64 / 37.0;
            let map = probes_at(clip, t);
            pw.at_time(t);
            assert!(!map.is_empty());
            for (name, p) in &map {
                assert_eq!(
                    pw.at[pw.index(name).unwrap()],
                    *p,
                    "{route:?} {name} at {t}"
                );
            }
        }
        let (ts, rows) = sample_probes_map(clip, &names, |t, at| (t, at.to_vec()));
        assert_eq!(ts, sample_times(clip));
        assert_eq!(rows.len(), ts.len());
        for (k, (t, at)) in rows.iter().enumerate() {
            assert_eq!(t.to_bits(), ts[k].to_bits());
            // (every time near a chunk's edges, a sparse sample elsewhere)
            if k % WALK_CHUNK < 2 || k % WALK_CHUNK + 2 >= WALK_CHUNK || k % 29 == 0 {
                let map = probes_at(clip, *t);
                for (name, p) in names.iter().zip(at) {
                    assert_eq!(*p, map[name], "{route:?} {name} at {t}");
                }
            }
        }
        ts.len().div_ceil(WALK_CHUNK)
    }
}
