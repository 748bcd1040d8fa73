//! Plane geometry and number formatting.
//!
//! Points, vectors and maps are kurbo's [`Vec2`] and [`Affine`] (its `+`,
//! `-`, `*`, `from_angle`, `translate`, `rotate`, `scale` are the arithmetic
//! rigbake relies on); [`Vec2Ext`] and [`AffineExt`] add the rest. Where
//! kurbo has an operation of the same meaning that may not give the same bits
//! (`Vec2::length`, `Affine::rotate_about`), the trait keeps its own, so no
//! written digit depends on kurbo's choice.
//!
//! Angle convention (the only one in rigbake): SVG user space with y pointing
//! down; a positive angle turns +x toward +y, i.e. **clockwise on screen**,
//! the same sense as CSS `rotate()` and SVG `rotate()`. Angles are radians
//! unless a name ends in `_deg`.

pub use kurbo::{Affine, Vec2};

/// `x.rem_euclid(1.0)`, bit for bit, without `fmod`: the fraction of a
/// period that normalised times wrap to (hot in the solvers and samplers).
/// `x - trunc(x)` is exact (Sterbenz: `trunc(x)` is within a factor 2 of
/// `x`, or zero), so it is `fmod(x, 1)` but for the sign of a zero, which
/// `copysign` restores; the negative case then adds 1 as `rem_euclid` does.
pub trait Rem1 {
    fn rem1(self) -> f64;
}

impl Rem1 for f64 {
    #[inline]
    fn rem1(self) -> f64 {
        let r = (self - self.trunc()).copysign(self);
        if r < 0.0 { r + 1.0 } else { r }
    }
}

/// What rigbake needs of a [`Vec2`] (a point or vector in SVG user units,
/// y down) beyond kurbo's own methods.
#[allow(clippy::len_without_is_empty)] // a length, not a count: nothing is empty
pub trait Vec2Ext {
    /// Euclidean length: kurbo's [`Vec2::hypot`], `sqrt(x² + y²)` (not
    /// the C library's `hypot`, which guards against overflow no
    /// coordinate here comes near and took a tenth of a batch bake's time).
    fn len(self) -> f64;
    /// Distance to `other`: the [`len`](Vec2Ext::len) of the difference.
    fn dist(self, other: Vec2) -> f64;
    /// Direction angle `atan2(y, x)` in radians, in (−π, π] (kurbo's
    /// `atan2()`).
    fn angle_rad(self) -> f64;
    /// Turned by `a` radians (y down: clockwise on screen).
    fn turned(self, a: f64) -> Vec2;
    /// Each coordinate rounded to `decimals` places ([`quantize`]): the
    /// point as written.
    fn quantized(self, decimals: u32) -> Vec2;
}

impl Vec2Ext for Vec2 {
    fn len(self) -> f64 {
        self.hypot()
    }

    fn dist(self, other: Vec2) -> f64 {
        (self - other).len()
    }

    fn angle_rad(self) -> f64 {
        self.atan2()
    }

    fn turned(self, a: f64) -> Vec2 {
        let (s, c) = a.sin_cos();
        Vec2::new(c * self.x - s * self.y, s * self.x + c * self.y)
    }

    fn quantized(self, decimals: u32) -> Vec2 {
        Vec2::new(quantize(self.x, decimals), quantize(self.y, decimals))
    }
}

/// What rigbake needs of an [`Affine`] (`p ↦ (a·x + c·y + e, b·x + d·y + f)`
/// with coefficients `[a, b, c, d, e, f]`, the SVG `matrix(a b c d e f)`;
/// `self * rhs` applies `rhs` first, SVG transform-list order) beyond
/// kurbo's own methods.
pub trait AffineExt: Sized {
    /// Rotation by `angle_rad` about `origin`: `translate(o)·rotate(θ)·translate(−o)`
    /// multiplied out in that order, which is what CSS `transform-origin`
    /// does to `rotate()`. (kurbo's `rotate_about` takes a point and
    /// composes `rotate(θ)·translate(−o)` before adding `o`, which can differ
    /// in the sign of a zero.)
    fn rotate_around(angle_rad: f64, origin: Vec2) -> Self;
    /// The inverse map (kurbo's `inverse()`), or `None` when the map is
    /// (nearly) singular: a determinant that is not finite or within `1e-12`
    /// of zero relative to the largest linear coefficient squared (kurbo
    /// divides by any determinant).
    fn checked_inverse(&self) -> Option<Self>;
    /// Apply to a point.
    fn apply(&self, p: Vec2) -> Vec2;
    /// The direction the map turns +x to, `atan2(b, a)` in radians: the
    /// angle of a rotation, whatever translation follows it.
    fn angle_rad(&self) -> f64;
}

impl AffineExt for Affine {
    fn rotate_around(angle_rad: f64, origin: Vec2) -> Affine {
        Affine::translate(origin) * Affine::rotate(angle_rad) * Affine::translate(origin * -1.0)
    }

    fn checked_inverse(&self) -> Option<Affine> {
        let det = self.determinant();
        let [a, b, c, d, ..] = self.as_coeffs();
        let scale = a.abs().max(b.abs()).max(c.abs()).max(d.abs());
        if !det.is_finite() || scale == 0.0 || det.abs() <= 1e-12 * scale * scale {
            return None;
        }
        Some(self.inverse())
    }

    fn apply(&self, p: Vec2) -> Vec2 {
        let [a, b, c, d, e, f] = self.as_coeffs();
        Vec2::new(a * p.x + c * p.y + e, b * p.x + d * p.y + f)
    }

    fn angle_rad(&self) -> f64 {
        let [a, b, ..] = self.as_coeffs();
        b.atan2(a)
    }
}

/// Wrap an angle into (−π, π] (radians): `angle % τ`, then one turn added
/// or taken away. `%` is exact and returns its operand unchanged below a
/// turn, so it is skipped there (the same bits, without an `fmod` call:
/// most angles wrapped are within a turn).
pub fn wrap_pi(angle_rad: f64) -> f64 {
    let tau = std::f64::consts::TAU;
    let mut a = if angle_rad.abs() < tau {
        angle_rad
    } else {
        angle_rad % tau
    };
    if a <= -std::f64::consts::PI {
        a += tau;
    } else if a > std::f64::consts::PI {
        a -= tau;
    }
    a
}

/// `(sin δ, cos δ − 1)`: a series for small angles (a fitted key's error,
/// a chain segment's turn within a recorded frame), exact to rounding below
/// 0.1 rad, `sin_cos` beyond.
pub fn small_sin_cos_m1(d: f64) -> (f64, f64) {
    // Taylor coefficients ±1/k! (sine odd k ≤ 11, cosine even 2 ≤ k ≤ 12)
    const S: [f64; 5] = [
        -1.0 / 6.0,
        1.0 / 120.0,
        -1.0 / 5040.0,
        1.0 / 362_880.0,
        -1.0 / 39_916_800.0,
    ];
    const C: [f64; 6] = [
        -1.0 / 2.0,
        1.0 / 24.0,
        -1.0 / 720.0,
        1.0 / 40_320.0,
        -1.0 / 3_628_800.0,
        1.0 / 479_001_600.0,
    ];
    if d.abs() >= 0.1 {
        let (s, c) = d.sin_cos();
        return (s, c - 1.0);
    }
    let d2 = d * d;
    let s = S.iter().rev().fold(0.0, |acc, &k| acc * d2 + k);
    let c = C.iter().rev().fold(0.0, |acc, &k| acc * d2 + k);
    (d + d * d2 * s, d2 * c)
}

/// The representative of `angle_rad` (plus a whole number of turns) nearest to
/// `reference_rad`: `reference + wrap_pi(angle − reference)`. Used to unwrap
/// angle series so that consecutive samples never jump by a full turn.
pub fn unwrap_near(angle_rad: f64, reference_rad: f64) -> f64 {
    reference_rad + wrap_pi(angle_rad - reference_rad)
}

/// Decimal places lengths and coordinates (user units) are rounded to in a
/// bake: 0.01 px. A bake to a tight tolerance rounds its moving
/// coordinates to [`FINE_LEN_DECIMALS`] instead (`fit::Keying::len_decimals`).
pub const LEN_DECIMALS: u32 = 2;
/// Decimal places of the moving coordinates in a bake to a tight tolerance
/// (0.001 px), and the most a writer prints: a length rounded to
/// [`LEN_DECIMALS`] prints the same at either. With 0.01 px, the rounding
/// of the drawn joints alone (up to 0.007 px off a point, more along a
/// chain of joints) leaves too little of a 0.01 px tolerance for the keys:
/// 8 of the 16 example rigs refused it.
pub const FINE_LEN_DECIMALS: u32 = 3;
/// Decimal places written for angles in degrees.
pub const DEG_DECIMALS: u32 = 3;
/// Decimal places written for normalised key times (fractions of the period).
pub const T_DECIMALS: u32 = 6;
/// Decimal places written for times in seconds.
pub const SEC_DECIMALS: u32 = 6;
/// Decimal places written for the control points of a fitted
/// `cubic-bezier(1/3, y1, 2/3, y2)` segment. A y off by half a unit in the
/// last place moves the segment's value by at most 0.45 × 5·10⁻⁵ of its
/// change (0.0014° on a 60° swing), 1/3 written `.3333` retimes it by at
/// most 10⁻⁵ of its length; the measure stage evaluates the written digits,
/// so what is reported is what the file does. Four places instead of six
/// shorten every fitted key by eight characters.
pub const BEZIER_DECIMALS: u32 = 4;

/// Round `x` to `decimals` places, the value that [`fmt_num`] writes.
///
/// Every number that reaches an output file goes through this first, so the
/// measure stage evaluates exactly what was written.
pub fn quantize(x: f64, decimals: u32) -> f64 {
    let scale = 10f64.powi(decimals as i32);
    let q = (x * scale).round() / scale;
    if q == 0.0 { 0.0 } else { q }
}

/// Format `x` with at most `decimals` places, trailing zeros trimmed, never `-0`.
///
/// Panics if `x` is not finite: non-finite values are rejected at validation,
/// so reaching here with one is a bug, never bad input.
pub fn fmt_num(x: f64, decimals: u32) -> String {
    fmt_digits(x, decimals, true)
}

/// [`fmt_num`] by way of `format!` (the float formatter): what the digit
/// path of [`fmt_digits`] is tested against, and its path for numbers too
/// large for it.
fn fmt_num_formatted(x: f64, decimals: u32) -> String {
    let q = quantize(x, decimals);
    let mut s = format!("{:.*}", decimals as usize, q);
    if s.contains('.') {
        while s.ends_with('0') {
            s.pop();
        }
        if s.ends_with('.') {
            s.pop();
        }
    }
    if s == "-0" { "0".to_string() } else { s }
}

/// [`fmt_num`], with the leading zero of a magnitude below 1 when
/// `leading_zero`. [`quantize`] writes `k / 10^decimals` for the integer
/// `k = round(x · 10^decimals)`; while `|k| < 2^50` that double is within
/// half an ulp, far less than half a unit of the last place, of
/// `k / 10^decimals`, so its decimal expansion rounded to `decimals`
/// places (what `format!` prints) is `k`'s digits with the point put in:
/// those are written directly, without the float formatter.
fn fmt_digits(x: f64, decimals: u32, leading_zero: bool) -> String {
    assert!(x.is_finite(), "non-finite number reached the writer: {x}");
    let scale = 10f64.powi(decimals as i32);
    let k = (x * scale).round();
    if k.abs() >= (1u64 << 50) as f64 {
        let s = fmt_num_formatted(x, decimals);
        return if leading_zero {
            s
        } else {
            without_leading_zero(s)
        };
    }
    let k = k as i64;
    if k == 0 {
        return "0".to_string();
    }
    let digits = k.unsigned_abs().to_string();
    let d = decimals as usize;
    let (int, frac) = if digits.len() > d {
        digits.split_at(digits.len() - d)
    } else {
        ("", digits.as_str())
    };
    let frac = frac.trim_end_matches('0');
    let mut s = String::with_capacity(digits.len() + d + 3);
    if k < 0 {
        s.push('-');
    }
    if int.is_empty() {
        if leading_zero || frac.is_empty() {
            s.push('0');
        }
    } else {
        s.push_str(int);
    }
    if !frac.is_empty() {
        s.push('.');
        for _ in 0..d.saturating_sub(digits.len()) {
            s.push('0');
        }
        s.push_str(frac);
    }
    s
}

fn without_leading_zero(s: String) -> String {
    if let Some(rest) = s.strip_prefix("0.") {
        format!(".{rest}")
    } else if let Some(rest) = s.strip_prefix("-0.") {
        format!("-.{rest}")
    } else {
        s
    }
}

/// [`fmt_num`] in the shortest form CSS and SVG number grammars accept: a
/// magnitude below 1 loses its leading zero (`0.5` → `.5`, `-0.25` → `-.25`).
/// Same digits, same value: only for numbers written into an SVG file, never
/// for text people read (reports, messages).
pub fn fmt_short(x: f64, decimals: u32) -> String {
    fmt_digits(x, decimals, false)
}

/// `fmt_short(x, decimals).len()`, counted without writing the number:
/// for the writers' size estimates, which weigh many candidate key sets.
pub fn short_len(x: f64, decimals: u32) -> usize {
    let k = (x * 10f64.powi(decimals as i32)).round();
    // (NaN and infinities too: the writer's own message)
    if k.is_nan() || k.abs() >= (1u64 << 50) as f64 {
        return fmt_short(x, decimals).len();
    }
    let k = k as i64;
    if k == 0 {
        return 1;
    }
    // the digits without the trailing zeros of the fraction: `d` places
    let (mut m, mut d) = (k.unsigned_abs(), decimals);
    while d > 0 && m % 10 == 0 {
        m /= 10;
        d -= 1;
    }
    let digits = m.ilog10() + 1;
    let sign = usize::from(k < 0);
    let body = if d == 0 {
        digits
    } else if digits > d {
        // integer part, point, fraction
        digits + 1
    } else {
        // point, zeros, fraction (no leading zero)
        d + 1
    };
    sign + body as usize
}

/// Format a length / coordinate in user units.
pub fn fmt_len(x: f64) -> String {
    fmt_num(x, LEN_DECIMALS)
}

/// Format an angle given in degrees.
pub fn fmt_deg(x: f64) -> String {
    fmt_num(x, DEG_DECIMALS)
}

/// A map keyed by a time's bits (`f64::to_bits`): the solves and samples
/// kept per time. Times such as k/1024 differ only in a few high mantissa
/// bits, which FNV leaves in the hash's high bits while the table indexes
/// by its low ones; [`TimeHasher`] mixes every bit into every bit.
pub type TimeMap<V> = std::collections::HashMap<u64, V, std::hash::BuildHasherDefault<TimeHasher>>;

/// The hasher of [`TimeMap`]: the u64 key through SplitMix64's finaliser.
#[derive(Debug, Default, Clone, Copy)]
pub struct TimeHasher(u64);

impl std::hash::Hasher for TimeHasher {
    fn finish(&self) -> u64 {
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn write(&mut self, bytes: &[u8]) {
        // (only u64 keys are hashed; any other input is folded in)
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 ^= x;
    }
}

/// Dense samples per period used to unwrap angle curves when the coarse grid
/// is not fine enough. A bone would have to turn by more than half a turn
/// within 1/4096 of a period to fool it.
pub const UNWRAP_SAMPLES: usize = 4096;
/// Samples per period tried first ([`Unwrapped`]).
pub const UNWRAP_COARSE: usize = 256;
/// Largest step (radians) between neighbouring coarse samples that the
/// coarse grid accepts; past it the curve is sampled at [`UNWRAP_SAMPLES`].
pub const UNWRAP_MAX_STEP: f64 = 0.5;

/// A pair of angle curves (radians) made continuous along t ∈ [0, 1] on a
/// grid: [`UNWRAP_COARSE`] steps when no step there exceeds
/// [`UNWRAP_MAX_STEP`] (a smooth motion), else [`UNWRAP_SAMPLES`]. The
/// nearest grid value is then within a fraction of a radian of the curve,
/// far inside the half turn that [`unwrap_near`] needs.
#[derive(Debug, Clone, Default)]
pub struct Unwrapped {
    n: usize,
    grid: Vec<(f64, f64)>,
}

impl Unwrapped {
    /// Grid steps per period: [`UNWRAP_COARSE`] or [`UNWRAP_SAMPLES`].
    pub fn steps(&self) -> usize {
        self.n
    }

    /// Unwrap `raw(t)` (angles wrapped anywhere) along t.
    pub fn new(raw: impl Fn(f64) -> (f64, f64)) -> Self {
        let build = |n: usize| {
            let mut grid: Vec<(f64, f64)> = Vec::with_capacity(n + 1);
            let mut smooth = true;
            for k in 0..=n {
                let (a, b) = raw(k as f64 / n as f64);
                let next = match grid.last() {
                    None => (a, b),
                    Some(&(pa, pb)) => {
                        let u = (unwrap_near(a, pa), unwrap_near(b, pb));
                        smooth &= (u.0 - pa).abs() <= UNWRAP_MAX_STEP
                            && (u.1 - pb).abs() <= UNWRAP_MAX_STEP;
                        u
                    }
                };
                grid.push(next);
            }
            (Unwrapped { n, grid }, smooth)
        };
        match build(UNWRAP_COARSE) {
            (u, true) => u,
            _ => build(UNWRAP_SAMPLES).0,
        }
    }

    /// The grid value nearest t (clamped to [0, 1]).
    pub fn near(&self, t: f64) -> (f64, f64) {
        let x = (t.clamp(0.0, 1.0) * self.n as f64).round() as usize;
        self.grid[x.min(self.n)]
    }

    /// The representatives of the wrapped angles `(a, b)` at t continuous
    /// with the curve.
    pub fn at(&self, t: f64, (a, b): (f64, f64)) -> (f64, f64) {
        let (ra, rb) = self.near(t);
        (unwrap_near(a, ra), unwrap_near(b, rb))
    }
}

/// Uniform numbers in [0, 1) by xorshift from `seed`: the unit tests'
/// random cases, the same sequence on every run.
#[cfg(test)]
pub(crate) fn unit_rng(mut seed: u64) -> impl FnMut() -> f64 {
    move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f64::consts::PI;

    /// The times the fitter and the measure key by (k/N for a grid of N,
    /// and arbitrary key times) fall into distinct buckets of a table
    /// indexed by the hash's low bits as often as random keys would: at
    /// least 60 % of 1,024 keys in 1,024 buckets (random keys fill 63 %).
    #[test]
    fn time_hashes_spread_over_the_low_bits() {
        use std::hash::{BuildHasher, Hasher};
        let hash = |t: f64| {
            let mut h = std::hash::BuildHasherDefault::<TimeHasher>::default().build_hasher();
            h.write_u64(t.to_bits());
            h.finish()
        };
        for n in [256usize, 1024, 4096] {
            let keys: Vec<f64> = (0..1024).map(|k| k as f64 / n as f64).collect();
            let mut low: Vec<u64> = keys.iter().map(|&t| hash(t) & 1023).collect();
            low.sort_unstable();
            low.dedup();
            assert!(low.len() >= 614, "{n}: {} distinct buckets", low.len());
        }
    }

    proptest! {
        /// `rem1` is `rem_euclid(1.0)` bit for bit, across magnitudes and
        /// signs (whole numbers and zeros included).
        #[test]
        fn rem1_is_rem_euclid_one(m in -1.0e6f64..1.0e6, e in -30i32..40, whole in any::<bool>()) {
            let x = m * 10f64.powi(e);
            let x = if whole { x.round() } else { x };
            for x in [x, -x] {
                prop_assert_eq!(x.rem1().to_bits(), x.rem_euclid(1.0).to_bits(), "{}", x);
            }
        }
    }

    #[test]
    fn rem1_is_rem_euclid_one_at_the_edges() {
        let edges = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            1e-300,
            -1e-300,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            1.0 - f64::EPSILON,
            -(1.0 - f64::EPSILON),
            4503599627370495.5,
            -4503599627370495.5,
            9007199254740993.0,
            -9007199254740993.0,
            f64::MAX,
            f64::MIN,
            -1e-17,
            -5e-324,
            5e-324,
            2.0f64.powi(52),
            -(2.0f64.powi(52)),
        ];
        for x in edges {
            assert_eq!(x.rem1().to_bits(), x.rem_euclid(1.0).to_bits(), "{x:e}");
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(x.rem1().is_nan() && x.rem_euclid(1.0).is_nan());
        }
    }

    /// [`wrap_pi`] as written before its within-a-turn shortcut.
    fn wrap_pi_by_fmod(angle_rad: f64) -> f64 {
        let tau = std::f64::consts::TAU;
        let mut a = angle_rad % tau;
        if a <= -std::f64::consts::PI {
            a += tau;
        } else if a > std::f64::consts::PI {
            a -= tau;
        }
        a
    }

    proptest! {
        /// `wrap_pi` gives the bits of the plain `%` form across
        /// magnitudes and signs, a turn either side of its shortcut's edge
        /// included.
        #[test]
        fn wrap_pi_is_the_fmod_form(m in -1.0e6f64..1.0e6, e in -30i32..10, turns in -3i32..=3) {
            let x = m * 10f64.powi(e) + turns as f64 * std::f64::consts::TAU;
            for x in [x, -x] {
                prop_assert_eq!(wrap_pi(x).to_bits(), wrap_pi_by_fmod(x).to_bits(), "{}", x);
            }
        }
    }

    #[test]
    fn wrap_pi_is_the_fmod_form_at_the_edges() {
        let tau = std::f64::consts::TAU;
        let pi = std::f64::consts::PI;
        let below = |x: f64| f64::from_bits(x.to_bits() - 1);
        let above = |x: f64| f64::from_bits(x.to_bits() + 1);
        let mut edges = vec![0.0, -0.0, 5e-324, f64::MAX, f64::MIN, 1e300];
        for x in [pi, tau, 2.0 * tau, 3.0 * pi] {
            edges.extend([x, below(x), above(x)]);
        }
        for x in edges {
            for x in [x, -x] {
                assert_eq!(wrap_pi(x).to_bits(), wrap_pi_by_fmod(x).to_bits(), "{x:e}");
            }
        }
        for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            assert!(wrap_pi(x).is_nan() && wrap_pi_by_fmod(x).is_nan());
        }
    }

    proptest! {
        /// The digit path writes what the float formatter writes, for
        /// every magnitude up to far past any written number, every sign
        /// and every place count the writers use, with and without the
        /// leading zero.
        #[test]
        fn fmt_digits_equals_the_float_formatter(
            m in -1.0e16f64..1.0e16,
            e in -12i32..3,
            decimals in 0u32..=7,
        ) {
            let x = m * 10f64.powi(e);
            let want = fmt_num_formatted(x, decimals);
            prop_assert_eq!(fmt_num(x, decimals), want.clone(), "{} {}", x, decimals);
            prop_assert_eq!(fmt_short(x, decimals), without_leading_zero(want), "{} {}", x, decimals);
            prop_assert_eq!(short_len(x, decimals), fmt_short(x, decimals).len(), "{} {}", x, decimals);
        }
    }

    /// Halves, ties and values next to them, where rounding could differ.
    #[test]
    fn fmt_digits_equals_the_float_formatter_near_ties() {
        for decimals in 0..=6u32 {
            let unit = 10f64.powi(-(decimals as i32));
            for k in -2000i64..=2000 {
                for off in [-0.5000001, -0.5, -0.4999999, 0.0, 0.25, 0.5, 0.5000001] {
                    for big in [0.0, 1234.0, 98765.0] {
                        let x = (k as f64 + off) * unit + big;
                        assert_eq!(
                            fmt_num(x, decimals),
                            fmt_num_formatted(x, decimals),
                            "{x} {decimals}"
                        );
                        assert_eq!(
                            fmt_short(x, decimals),
                            without_leading_zero(fmt_num_formatted(x, decimals)),
                            "{x} {decimals}"
                        );
                        assert_eq!(
                            short_len(x, decimals),
                            fmt_short(x, decimals).len(),
                            "{x} {decimals}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn fmt_trims_and_never_writes_negative_zero() {
        assert_eq!(fmt_num(0.30000000000000004, 3), "0.3");
        assert_eq!(fmt_num(-0.0001, 3), "0");
        assert_eq!(fmt_num(-0.0, 2), "0");
        assert_eq!(fmt_num(12.0, 2), "12");
        assert_eq!(fmt_num(-1.005, 1), "-1");
        assert_eq!(fmt_num(1234.5678, 2), "1234.57");
    }

    #[test]
    fn short_form_drops_only_a_leading_zero_and_keeps_the_value() {
        assert_eq!(fmt_short(0.5, 2), ".5");
        assert_eq!(fmt_short(-0.25, 2), "-.25");
        assert_eq!(fmt_short(0.333333, 6), ".333333");
        assert_eq!(fmt_short(-0.0001, 3), "0");
        assert_eq!(fmt_short(10.05, 2), "10.05");
        assert_eq!(fmt_short(-1.5, 2), "-1.5");
        assert_eq!(fmt_short(0.0, 2), "0");
        for &x in &[0.123456, -0.987654, 0.000001, -12.5, 359.9995, 1e-9] {
            for d in [2, 3, 6] {
                let short: f64 = fmt_short(x, d).parse().unwrap();
                let long: f64 = fmt_num(x, d).parse().unwrap();
                assert_eq!(short, long, "{x} at {d} places");
                assert!(fmt_short(x, d).len() <= fmt_num(x, d).len());
            }
        }
    }

    #[test]
    fn quantize_matches_what_is_written() {
        for &x in &[0.123456, -7.777777, 359.9995, 1e-9, 42.0] {
            let written: f64 = fmt_num(x, 3).parse().unwrap();
            assert_eq!(quantize(x, 3), written);
        }
    }

    #[test]
    fn wrap_and_unwrap() {
        assert!((wrap_pi(3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap_pi(-PI) - PI).abs() < 1e-12);
        assert!((unwrap_near(-3.1, 3.1) - (2.0 * PI - 3.1)).abs() < 1e-12);
    }

    #[test]
    fn affine_composition_order_is_svg_order() {
        // translate(10,0) rotate(90deg): rotate first, then translate.
        let m = Affine::translate(Vec2::new(10.0, 0.0)) * Affine::rotate(PI / 2.0);
        let p = m.apply(Vec2::new(1.0, 0.0));
        assert!((p.x - 10.0).abs() < 1e-12 && (p.y - 1.0).abs() < 1e-12);
        let r = Affine::rotate_around(PI, Vec2::new(5.0, 5.0));
        let q = r.apply(Vec2::new(6.0, 5.0));
        assert!((q.x - 4.0).abs() < 1e-12 && (q.y - 5.0).abs() < 1e-12);
    }
}
