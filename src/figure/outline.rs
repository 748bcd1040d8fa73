//! A `scene` part's path data kept as drawn: lines, Béziers and elliptical
//! arcs (`A`), so a wheel drawn as two arcs is written as two arcs, not as
//! the cubics kurbo turns arcs into.
//!
//! [`Outline::parse`] reads SVG path data as [`kurbo::BezPath::from_svg`]
//! does (relative commands, `H`/`V`, `S`/`T` reflections, implicit
//! repeats, flags without separators), after that parser has accepted it
//! (see [`crate::valid::path_data`]): [`Outline::to_bez`] is the same path
//! kurbo reads, element for element (tested). A rigid map (a turn, a move,
//! a uniform scale) keeps arcs arcs; any other map turns them into kurbo's
//! cubics first.

use crate::geom::{Affine, Vec2, fmt_len, fmt_num};
use kurbo::{Arc, BezPath, PathEl, Point, SvgArc};

/// One drawing command, absolute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Seg {
    El(PathEl),
    Arc(ArcTo),
}

/// An elliptical arc to `to` from the current point (radii, rotation in
/// degrees as written, flags as in SVG).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArcTo {
    pub radii: Vec2,
    pub rotation_deg: f64,
    pub large_arc: bool,
    pub sweep: bool,
    pub to: Point,
}

impl ArcTo {
    /// kurbo's arc from `from`.
    fn svg(&self, from: Point) -> SvgArc {
        SvgArc {
            from,
            to: self.to,
            radii: self.radii,
            x_rotation: self.rotation_deg.to_radians(),
            large_arc: self.large_arc,
            sweep: self.sweep,
        }
    }
}

/// Path data as drawn, absolute (see the module docs).
#[derive(Debug, Clone, PartialEq)]
pub struct Outline(pub Vec<Seg>);

/// Whether `m` is a turn, a move and a uniform scale (no mirror, no
/// shear): the maps that take an arc to an arc with the same flags.
fn similarity(m: Affine) -> Option<(f64, f64)> {
    let [a, b, c, d, _, _] = m.as_coeffs();
    let s = a.hypot(b);
    let tol = 1e-9 * s.max(1.0);
    (s > 0.0 && (a - d).abs() <= tol && (b + c).abs() <= tol).then(|| (s, b.atan2(a)))
}

impl Outline {
    /// Path data that kurbo has parsed; `None` where this reader does not
    /// follow (then the part is kept as kurbo's path).
    pub fn parse(d: &str) -> Option<Outline> {
        let mut lx = Lexer {
            s: d.as_bytes(),
            i: 0,
        };
        let mut out = Vec::new();
        let (mut cur, mut first) = (Point::ORIGIN, Point::ORIGIN);
        let mut last_ctrl: Option<Point> = None;
        let mut last_cmd = 0u8;
        let mut implicit_move: Option<Point> = None;
        while let Some(c) = lx.cmd(last_cmd) {
            if c != b'm' && c != b'M' {
                if out.is_empty() {
                    return None;
                }
                if let Some(p) = implicit_move.take() {
                    out.push(Seg::El(PathEl::MoveTo(p)));
                }
            }
            let rel = c.is_ascii_lowercase();
            let pt = |lx: &mut Lexer| -> Option<Point> {
                let p = lx.pair()?;
                Some(if rel { p + cur.to_vec2() } else { p })
            };
            let reflect = |ctrl: Option<Point>| match ctrl {
                Some(k) => (2.0 * cur.to_vec2() - k.to_vec2()).to_point(),
                None => cur,
            };
            match c.to_ascii_uppercase() {
                b'M' => {
                    implicit_move = None;
                    let p = pt(&mut lx)?;
                    out.push(Seg::El(PathEl::MoveTo(p)));
                    (cur, first, last_ctrl) = (p, p, Some(p));
                    last_cmd = c - (b'M' - b'L');
                }
                b'L' | b'H' | b'V' => {
                    let p = match c.to_ascii_uppercase() {
                        b'L' => pt(&mut lx)?,
                        b'H' => {
                            let x = lx.number()?;
                            lx.comma();
                            Point::new(if rel { x + cur.x } else { x }, cur.y)
                        }
                        _ => {
                            let y = lx.number()?;
                            lx.comma();
                            Point::new(cur.x, if rel { y + cur.y } else { y })
                        }
                    };
                    out.push(Seg::El(PathEl::LineTo(p)));
                    (cur, last_ctrl, last_cmd) = (p, Some(p), c);
                }
                up @ (b'Q' | b'T' | b'C' | b'S') => {
                    // `T` and `S` reflect the last control point
                    let p1 = if matches!(up, b'Q' | b'C') {
                        pt(&mut lx)?
                    } else {
                        reflect(last_ctrl)
                    };
                    let p2 = pt(&mut lx)?;
                    let (el, ctrl, end) = if matches!(up, b'Q' | b'T') {
                        (PathEl::QuadTo(p1, p2), p1, p2)
                    } else {
                        let p3 = pt(&mut lx)?;
                        (PathEl::CurveTo(p1, p2, p3), p2, p3)
                    };
                    out.push(Seg::El(el));
                    (cur, last_ctrl, last_cmd) = (end, Some(ctrl), c);
                }
                b'A' => {
                    let r = lx.pair()?;
                    let rot = lx.number()?;
                    lx.comma();
                    let large_arc = lx.flag()?;
                    lx.comma();
                    let sweep = lx.flag()?;
                    lx.comma();
                    let to = pt(&mut lx)?;
                    out.push(Seg::Arc(ArcTo {
                        radii: r.to_vec2(),
                        rotation_deg: rot,
                        large_arc,
                        sweep,
                        to,
                    }));
                    (cur, last_ctrl, last_cmd) = (to, Some(to), c);
                }
                b'Z' => {
                    out.push(Seg::El(PathEl::ClosePath));
                    cur = first;
                    implicit_move = Some(first);
                }
                _ => return None,
            }
        }
        Some(Outline(out))
    }

    /// Every number the outline writes, with what it is (`"coordinate"`,
    /// `"arc radius"`, `"arc rotation"`), in order.
    pub fn numbers(&self) -> Vec<(&'static str, f64)> {
        let mut out = Vec::new();
        let pts = |ps: &[Point], out: &mut Vec<(&'static str, f64)>| {
            for p in ps {
                out.push(("coordinate", p.x));
                out.push(("coordinate", p.y));
            }
        };
        for seg in &self.0 {
            match *seg {
                Seg::El(PathEl::MoveTo(p) | PathEl::LineTo(p)) => pts(&[p], &mut out),
                Seg::El(PathEl::QuadTo(a, b)) => pts(&[a, b], &mut out),
                Seg::El(PathEl::CurveTo(a, b, c)) => pts(&[a, b, c], &mut out),
                Seg::El(PathEl::ClosePath) => {}
                Seg::Arc(ArcTo {
                    radii,
                    rotation_deg,
                    to,
                    ..
                }) => {
                    out.push(("arc radius", radii.x));
                    out.push(("arc radius", radii.y));
                    out.push(("arc rotation", rotation_deg));
                    pts(&[to], &mut out);
                }
            }
        }
        out
    }

    /// The path as kurbo draws it: each arc as kurbo's cubics (a straight
    /// one as a line).
    pub fn to_bez(&self) -> BezPath {
        let mut path = BezPath::new();
        let mut cur = Point::ORIGIN;
        let mut first = Point::ORIGIN;
        for seg in &self.0 {
            match *seg {
                Seg::El(el) => {
                    path.push(el);
                    match el {
                        PathEl::MoveTo(p) => (cur, first) = (p, p),
                        PathEl::LineTo(p) | PathEl::QuadTo(_, p) | PathEl::CurveTo(_, _, p) => {
                            cur = p
                        }
                        PathEl::ClosePath => cur = first,
                    }
                }
                Seg::Arc(a) => {
                    let (to, arc) = (a.to, a.svg(cur));
                    match Arc::from_svg_arc(&arc) {
                        Some(arc) => arc.to_cubic_beziers(0.1, |p1, p2, p3| {
                            path.curve_to(p1, p2, p3);
                        }),
                        None => path.line_to(to),
                    }
                    cur = to;
                }
            }
        }
        path
    }

    /// The outline mapped by `m`: arcs stay arcs under a turn, a move and a
    /// uniform scale, else every arc becomes kurbo's cubics.
    pub fn mapped(&self, m: Affine) -> Outline {
        let Some((s, turn)) = similarity(m) else {
            let mut bez = self.to_bez();
            bez.apply_affine(m);
            return Outline(bez.elements().iter().map(|&e| Seg::El(e)).collect());
        };
        Outline(
            self.0
                .iter()
                .map(|seg| match *seg {
                    Seg::El(el) => Seg::El(m * el),
                    Seg::Arc(a) => Seg::Arc(ArcTo {
                        radii: a.radii * s,
                        rotation_deg: a.rotation_deg + turn.to_degrees(),
                        to: m * a.to,
                        ..a
                    }),
                })
                .collect(),
        )
    }

    /// Absolute path data, every coordinate and radius as a written length,
    /// an arc's rotation in degrees (3 places).
    pub fn d(&self) -> String {
        let pt = |p: Point| format!("{} {}", fmt_len(p.x), fmt_len(p.y));
        let mut out = String::new();
        for seg in &self.0 {
            out.push_str(&match *seg {
                Seg::El(PathEl::MoveTo(p)) => format!("M{}", pt(p)),
                Seg::El(PathEl::LineTo(p)) => format!("L{}", pt(p)),
                Seg::El(PathEl::QuadTo(a, b)) => format!("Q{} {}", pt(a), pt(b)),
                Seg::El(PathEl::CurveTo(a, b, c)) => format!("C{} {} {}", pt(a), pt(b), pt(c)),
                Seg::El(PathEl::ClosePath) => "Z".to_string(),
                Seg::Arc(ArcTo {
                    radii,
                    rotation_deg,
                    large_arc,
                    sweep,
                    to,
                }) => {
                    // the rotation within [0°, 180°): an ellipse turned by
                    // half a turn is the same ellipse
                    let deg = rotation_deg.rem_euclid(180.0);
                    let deg = fmt_num(deg, 3);
                    let deg = if deg == "180" { "0".to_string() } else { deg };
                    format!(
                        "A{} {} {deg} {} {} {}",
                        fmt_len(radii.x.abs()),
                        fmt_len(radii.y.abs()),
                        u8::from(large_arc),
                        u8::from(sweep),
                        pt(to)
                    )
                }
            });
        }
        out
    }
}

/// SVG path data's tokens, read as kurbo's lexer reads them.
struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl Lexer<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.s.len() && self.s[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    /// The next command letter, or `last` repeated where a number follows
    /// (kurbo's `get_cmd`).
    fn cmd(&mut self, last: u8) -> Option<u8> {
        self.skip_ws();
        let &c = self.s.get(self.i)?;
        if c.is_ascii_alphabetic() {
            self.i += 1;
            Some(c)
        } else if last != 0 && (c == b'-' || c == b'.' || c.is_ascii_digit()) {
            Some(last)
        } else {
            None
        }
    }

    fn comma(&mut self) {
        self.skip_ws();
        if self.s.get(self.i) == Some(&b',') {
            self.i += 1;
        }
    }

    fn number(&mut self) -> Option<f64> {
        self.skip_ws();
        let start = self.i;
        let digits = |lx: &mut Lexer| {
            while lx.i < lx.s.len() && lx.s[lx.i].is_ascii_digit() {
                lx.i += 1;
            }
        };
        if matches!(self.s.get(self.i), Some(b'-' | b'+')) {
            self.i += 1;
        }
        digits(self);
        if self.s.get(self.i) == Some(&b'.') {
            self.i += 1;
            digits(self);
        }
        if matches!(self.s.get(self.i), Some(b'e' | b'E')) {
            let mark = self.i;
            self.i += 1;
            if matches!(self.s.get(self.i), Some(b'-' | b'+')) {
                self.i += 1;
            }
            let exp = self.i;
            digits(self);
            if self.i == exp {
                self.i = mark;
            }
        }
        std::str::from_utf8(&self.s[start..self.i])
            .ok()?
            .parse()
            .ok()
    }

    fn pair(&mut self) -> Option<Point> {
        let x = self.number()?;
        self.comma();
        let y = self.number()?;
        self.comma();
        Some(Point::new(x, y))
    }

    fn flag(&mut self) -> Option<bool> {
        self.skip_ws();
        let f = match self.s.get(self.i)? {
            b'0' => false,
            b'1' => true,
            _ => return None,
        };
        self.i += 1;
        Some(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random path data in every spelling kurbo reads: absolute and
    /// relative commands, `H`/`V`, `S`/`T` after any command, implicit
    /// repeats, arcs with flags run together, commas and no separators.
    fn random_d(seed: u64) -> String {
        let mut x = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let mut rnd = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let num = |rnd: &mut dyn FnMut() -> u64| {
            let v = (rnd() % 40000) as f64 / 100.0 - 200.0;
            let v = if rnd().is_multiple_of(5) {
                v.round()
            } else {
                v
            };
            v.to_string()
        };
        let mut d = format!("M{} {}", num(&mut rnd), num(&mut rnd));
        let n = 1 + rnd() % 12;
        for _ in 0..n {
            let c = b"MmLlHhVvCcSsQqTtAaZz"[(rnd() % 20) as usize] as char;
            let sep = [" ", ",", " , ", ""][(rnd() % 4) as usize];
            let args = match c.to_ascii_uppercase() {
                'M' | 'L' | 'T' => 2,
                'H' | 'V' => 1,
                'C' => 6,
                'S' | 'Q' => 4,
                'Z' => 0,
                _ => 0,
            };
            d.push(c);
            if c.eq_ignore_ascii_case(&'a') {
                let r = |rnd: &mut dyn FnMut() -> u64| {
                    ((rnd() % 9000) as f64 / 100.0 + 1.0).to_string()
                };
                let flags = if rnd().is_multiple_of(2) {
                    "1 0 "
                } else {
                    "01"
                };
                d.push_str(&format!(
                    "{}{sep}{} {} {flags}{} {}",
                    r(&mut rnd),
                    r(&mut rnd),
                    rnd() % 360,
                    if flags == "01" {
                        format!(" {}", num(&mut rnd))
                    } else {
                        num(&mut rnd)
                    },
                    num(&mut rnd)
                ));
                continue;
            }
            let repeats = if args > 0 && rnd().is_multiple_of(3) {
                2
            } else {
                1
            };
            let vals: Vec<String> = (0..args * repeats).map(|_| num(&mut rnd)).collect();
            d.push_str(&vals.join(if sep.is_empty() { " " } else { sep }));
        }
        d
    }

    fn same(a: &BezPath, b: &BezPath, what: &str) {
        assert_eq!(a.elements().len(), b.elements().len(), "{what}");
        for (x, y) in a.elements().iter().zip(b.elements()) {
            let close = |p: Point, q: Point| (p - q).hypot() < 1e-9;
            let ok = match (*x, *y) {
                (PathEl::MoveTo(p), PathEl::MoveTo(q)) | (PathEl::LineTo(p), PathEl::LineTo(q)) => {
                    close(p, q)
                }
                (PathEl::QuadTo(p1, p2), PathEl::QuadTo(q1, q2)) => close(p1, q1) && close(p2, q2),
                (PathEl::CurveTo(p1, p2, p3), PathEl::CurveTo(q1, q2, q3)) => {
                    close(p1, q1) && close(p2, q2) && close(p3, q3)
                }
                (PathEl::ClosePath, PathEl::ClosePath) => true,
                _ => false,
            };
            assert!(ok, "{what}: {x:?} against {y:?}");
        }
    }

    /// On 3,000 random paths and every `scene` part of the example rigs,
    /// the outline is kurbo's path element for element, wherever kurbo
    /// reads the data.
    #[test]
    fn reads_what_kurbo_reads() {
        let mut ds: Vec<String> = (0..3000).map(random_d).collect();
        for e in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/rigs")).unwrap() {
            let v: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap();
            for p in v["scene"].as_array().into_iter().flatten() {
                ds.push(p["d"].as_str().unwrap().to_string());
            }
        }
        let mut read = 0;
        for d in &ds {
            let Ok(want) = BezPath::from_svg(d) else {
                continue;
            };
            let got = Outline::parse(d).unwrap_or_else(|| panic!("kurbo reads {d:?}, we do not"));
            same(&got.to_bez(), &want, d);
            read += 1;
        }
        assert!(read > 2500, "{read}");
    }

    /// Written path data reads back (through kurbo) to the same path
    /// within the written rounding, arcs as arcs; a rigid map keeps arcs
    /// and moves the path as kurbo moves its cubics; a shear turns them
    /// into cubics.
    #[test]
    fn writes_arcs_as_arcs_and_maps_them() {
        let d = "M350 440A100 100 0 1 1 150 440A100 60 30 0 0 350 440ZM10 10L20 20";
        let o = Outline::parse(d).unwrap();
        assert_eq!(o.d(), d);
        let m = Affine::translate((30.0, -12.0)) * Affine::rotate(0.7);
        let moved = o.mapped(m);
        assert_eq!(
            moved.0.iter().filter(|s| matches!(s, Seg::Arc(_))).count(),
            2
        );
        let mut want = o.to_bez();
        want.apply_affine(m);
        let back = Outline::parse(&moved.d()).unwrap().to_bez();
        for (x, y) in back.elements().iter().zip(want.elements()) {
            if let (Some(p), Some(q)) = (x.end_point(), y.end_point()) {
                assert!((p - q).hypot() < 0.01, "{x:?} {y:?}");
            }
        }
        assert_eq!(back.elements().len(), want.elements().len());
        let round = moved.mapped(m.inverse());
        assert_eq!(round.d(), d);
        let sheared = o.mapped(Affine::new([1.0, 0.0, 0.5, 1.0, 0.0, 0.0]));
        assert!(sheared.0.iter().all(|s| matches!(s, Seg::El(_))));
    }
}
