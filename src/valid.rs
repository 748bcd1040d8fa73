//! The one place rig numbers, names and colours are checked.
//!
//! Every section of a rig file (cycling legs, `ik_chains` and their
//! trajectories, bone trees, springs, Verlet chains) validates through these
//! functions, so a value gets the same range, the same message and the same
//! echo ([`shown`]: `1e300`, not three hundred digits) wherever it appears.

use crate::geom::Vec2;
use crate::input::{escaped, shown_json_path};

/// Largest accepted magnitude of any coordinate or length, in user units.
pub const MAX_COORD: f64 = 1.0e6;
/// Smallest and largest scale a rig's squash may key: a matrix scaled
/// along one axis by at most 10⁶ times the other stays invertible to
/// rounding, which the IK solve and the springs need (they take points
/// into the figure's frame through its inverse).
pub const SCALE_RANGE: (f64, f64) = (1e-3, 1e3);
/// Smallest accepted period, in seconds: times are written to the
/// microsecond, so a shorter loop could not be written faithfully.
pub const MIN_PERIOD_S: f64 = 0.001;
/// Largest accepted period, in seconds (one hour).
pub const MAX_PERIOD_S: f64 = 3600.0;
/// Most keys per period accepted from a rig or `--keys`.
pub const MAX_KEYS: usize = 10_000;
/// Smallest accepted tolerance, px: every rig in `rigs/` keeps it on both
/// routes (`tests/keying.rs`), its moving coordinates written to 0.001 px
/// ([`TIGHT_TOLERANCE_PX`]).
pub const MIN_TOLERANCE_PX: f64 = 0.01;
/// Under this tolerance a bake rounds its moving coordinates (joints,
/// origins, translate keys, probes, chain particles, morphed points) to
/// [`crate::geom::FINE_LEN_DECIMALS`] places, 0.001 px, instead of
/// [`crate::geom::LEN_DECIMALS`] (`fit::Keying::len_decimals`).
/// Rounded to 0.01 px, they lie up to 0.007 px off a drawn point, and more
/// along a chain of joints, which leaves the keys too little of a tighter
/// tolerance: every rig in `rigs/` kept 0.015 px on both routes, but on
/// one route or the other 4 of them refused 0.012 px and 8 refused
/// 0.01 px. At this tolerance and above the files keep their 0.01 px
/// coordinates, and their bytes.
pub const TIGHT_TOLERANCE_PX: f64 = 0.02;
/// Smallest accepted length, width or radius, in user units: lengths are
/// written to [`crate::geom::LEN_DECIMALS`] places (0.01), so a shorter one
/// would be written as 0 (a `viewBox` 0 wide, a stroke that draws nothing,
/// a chain segment that folds to a point).
pub const MIN_LEN: f64 = 0.01;
/// Most legs in one cycling rig: each leg lowers into five bones (hip,
/// crank, pedal, thigh, shin) and a chainring may take one more, within
/// a bone tree's 256 bones; a torso's or chains' bones past that are
/// refused where the tree is checked.
pub const MAX_LEGS: usize = 51;

/// Everything that can be wrong with a rig file. Messages carry the JSON
/// path; input text in a path or message is shown through
/// [`crate::input::escaped`], so no variant can print a control character,
/// and a path's made-up key is cut short ([`crate::input::shown_json_path`];
/// the binary's [`crate::input::error_line`] cuts long quoted values).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RigError {
    /// The text is not JSON, or does not fit the format (unknown or missing
    /// field, wrong type, trailing data). `path` is the JSON path where
    /// serde stopped, `(root)` at the top level, `(end of file)` when the
    /// text ended too early.
    #[error(
        "{}: {} (line {line}, column {column})",
        shown_json_path(path),
        escaped(msg)
    )]
    Json {
        path: String,
        msg: String,
        line: usize,
        column: usize,
    },
    /// A field parsed but its value is not allowed (non-positive length, too many keys, …).
    #[error("{}: {}", shown_json_path(path), escaped(msg))]
    Invalid { path: String, msg: String },
    /// A leg's pedal target leaves the reachable annulus `[|thigh−shin|, thigh+shin]`
    /// around its hip at some crank angle and the leg did not opt into `"reach": "clamp"`.
    #[error(
        "{}: leg {leg:?} cannot reach its pedal at crank angle {crank_deg:.1}°: hip-to-target distance {dist:.2} is {why} by {by:.2} px (move the hip or the crank, change the bone lengths, or set \"reach\": \"clamp\")",
        shown_json_path(path)
    )]
    Unreachable {
        path: String,
        leg: String,
        crank_deg: f64,
        dist: f64,
        why: &'static str,
        by: f64,
    },
    /// The bone tree a cycling or `ik_chains` rig lowers into does not
    /// load: a value it writes is made of several of the rig's own (a crank
    /// centre, a pedal offset and a depth offset summed past ±[`MAX_COORD`],
    /// say). `inputs` names them, as the rig spells them, where the lowering
    /// can tell; `error` is the tree's own, at the tree's JSON path.
    #[error(
        "{}in the bone tree this rig lowers into, {error}",
        inputs.as_deref().map(|i| format!("{}: ", escaped(i))).unwrap_or_default()
    )]
    Lowered {
        inputs: Option<String>,
        error: Box<RigError>,
    },
}

/// `e` said of one clip of several: an error about a whole chain or
/// spring (its simulation, whose path is `chains[i]` or `springs[i]`, not
/// one of its fields) names the clip and that clip's period, which the
/// simulation depends on, unless it names the clip already; so a rig with
/// `clips` says which clip a physics error is about.
pub fn in_clip(e: RigError, clip: &str, period_s: f64) -> RigError {
    match e {
        RigError::Invalid { path, msg }
            if path.ends_with(']') && !msg.contains(&format!("{clip:?}")) =>
        {
            RigError::Invalid {
                path,
                msg: format!("in clip {clip:?} (period_s {} s): {msg}", shown(period_s)),
            }
        }
        other => other,
    }
}

pub fn invalid(path: impl Into<String>, msg: impl Into<String>) -> RigError {
    RigError::Invalid {
        path: path.into(),
        msg: msg.into(),
    }
}

/// A number as shown in messages: plain, or in exponent form when it is very
/// large or very small (`1e300`, not three hundred digits).
pub fn shown(x: f64) -> String {
    if x.is_finite() && x != 0.0 && !(1e-4..1e7).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

/// A measured or computed number as shown in messages: rounded to
/// `decimals` places as the files write it where it is finite and of
/// everyday size, else as [`shown`] puts it (`inf`, `NaN`, `1e300`), so
/// a message about a number gone wrong never fails to be written.
pub fn shown_to(x: f64, decimals: u32) -> String {
    if x.is_finite() && x.abs() < 1e7 {
        crate::geom::fmt_num(x, decimals)
    } else {
        shown(x)
    }
}

/// A measured number in a table of fixed decimals (the text summary):
/// `decimals` places, zeros kept, where it is finite and of everyday size,
/// else as [`shown`] puts it, so a column never runs to hundreds of digits.
pub fn shown_fixed(x: f64, decimals: usize) -> String {
    if x.is_finite() && x.abs() < 1e7 {
        format!("{x:.decimals$}")
    } else {
        shown(x)
    }
}

pub fn check_num(path: &str, x: f64) -> Result<f64, RigError> {
    if !x.is_finite() {
        return Err(invalid(
            path,
            format!("must be a finite number, got {}", shown(x)),
        ));
    }
    if x.abs() > MAX_COORD {
        return Err(invalid(
            path,
            format!("must be within ±{MAX_COORD}, got {}", shown(x)),
        ));
    }
    Ok(x)
}

pub fn check_point(path: &str, p: [f64; 2]) -> Result<Vec2, RigError> {
    Ok(Vec2::new(
        check_num(&format!("{path}[0]"), p[0])?,
        check_num(&format!("{path}[1]"), p[1])?,
    ))
}

/// Check a length, width or radius: finite, within ±[`MAX_COORD`], and at
/// least [`MIN_LEN`], so the file writes it as more than 0.
pub fn check_len(path: &str, x: f64) -> Result<f64, RigError> {
    let x = check_num(path, x)?;
    if x < MIN_LEN {
        return Err(invalid(
            path,
            format!(
                "must be at least {MIN_LEN} (lengths are written to {MIN_LEN}), got {}",
                shown(x)
            ),
        ));
    }
    Ok(x)
}

/// [`check_len`] for a length that may also be exactly 0 (a bone without
/// one, a dash's gap): 0, or at least [`MIN_LEN`].
pub fn check_len_or_zero(path: &str, x: f64) -> Result<f64, RigError> {
    let x = check_num(path, x)?;
    if x != 0.0 && x < MIN_LEN {
        return Err(invalid(
            path,
            format!(
                "must be 0 or at least {MIN_LEN} (lengths are written to {MIN_LEN}), got {}",
                shown(x)
            ),
        ));
    }
    Ok(x + 0.0)
}

pub fn is_ident(s: &str, extra: &[char]) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || extra.contains(&c))
}

/// Words that bone-tree and chain drawings use in their own class and
/// keyframes names (`rb-<word>`), besides `rb-s<digits>` colour classes.
pub const RESERVED_NAMES: [&str; 7] = ["b", "bone", "dot", "ground", "joint", "lift", "squash"];

/// Check a bone, clip or chain name: `[A-Za-z][A-Za-z0-9_]*`, at most 32,
/// not a [`RESERVED_NAMES`] word. No hyphen: names are joined with `-` into
/// class and keyframes names (`rb-<clip>-<bone>`), which must stay distinct.
pub fn check_name(path: &str, s: &str) -> Result<(), RigError> {
    let mut c = s.chars();
    let ok = s.len() <= 32
        && matches!(c.next(), Some(x) if x.is_ascii_alphabetic())
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_');
    if !ok {
        return Err(invalid(
            path,
            format!(
                "must start with a letter and hold only letters, digits and '_' (at most 32), got {s:?}"
            ),
        ));
    }
    if RESERVED_NAMES.contains(&s) || (s.starts_with('s') && s[1..].parse::<u32>().is_ok()) {
        return Err(invalid(
            path,
            format!("{s:?} is a name the drawing uses for itself; pick another"),
        ));
    }
    Ok(())
}

/// Check a whole number against `lo..=hi`.
pub fn check_within(path: &str, n: usize, lo: usize, hi: usize) -> Result<usize, RigError> {
    if !(lo..=hi).contains(&n) {
        return Err(invalid(
            path,
            format!("must be within {lo}..={hi}, got {n}"),
        ));
    }
    Ok(n)
}

/// Check keys against the accepted range; shared by the rig field and `--keys`.
pub fn check_keys(path: &str, keys: usize) -> Result<usize, RigError> {
    if !(2..=MAX_KEYS).contains(&keys) {
        return Err(invalid(
            path,
            format!("must be between 2 and {MAX_KEYS}, got {keys}"),
        ));
    }
    Ok(keys)
}

/// Check a tolerance; shared by the rig field and `--tolerance`.
pub fn check_tolerance(path: &str, px: f64) -> Result<f64, RigError> {
    if !px.is_finite() || !(MIN_TOLERANCE_PX..=MAX_COORD).contains(&px) {
        return Err(invalid(
            path,
            format!(
                "must be between {MIN_TOLERANCE_PX} and {MAX_COORD} px, got {}",
                shown(px)
            ),
        ));
    }
    Ok(px)
}

/// Validate a period (`path` names the field) and snap it to whole
/// milliseconds.
///
/// SMIL clocks count whole milliseconds (Firefox plays `dur="0.666667s"`
/// over 667 ms), and svgo rounds attribute numbers to three decimals, so a
/// period that is not whole milliseconds cannot be played or read back
/// exactly. Every period is therefore snapped, and the motion solved for the
/// snapped period; `period_notes` says so in the report.
pub fn period(path: &str, p: f64) -> Result<f64, RigError> {
    if !(MIN_PERIOD_S..=MAX_PERIOD_S).contains(&p) {
        return Err(invalid(
            path,
            format!(
                "must be between {MIN_PERIOD_S} and {MAX_PERIOD_S} seconds, got {}",
                shown(p)
            ),
        ));
    }
    Ok(whole_ms(p))
}

/// `p` seconds rounded to whole milliseconds (exact for a period that
/// already is: `(1.2 * 1000).round() / 1000 == 1.2`).
pub fn whole_ms(p: f64) -> f64 {
    (p * 1000.0).round() / 1000.0
}

/// Smallest gap between two keys of a track, as a fraction of its period:
/// key times are written to [`crate::geom::T_DECIMALS`] places (10⁻⁶ of
/// the period, as periods are written to the millisecond), so two keys
/// nearer than that would be written at one time.
pub const MIN_KEY_GAP: f64 = 1e-6;

/// Check the time `t` of one key of a track (`path` names its `[0]`)
/// against the key before it, `prev`: strictly later, and written (to
/// [`MIN_KEY_GAP`]) at a later time too; and, for a key within (0, 1), not
/// written at 0 or 1, where the track's hold keys are written. The times
/// of an eased track, a timeline, a `track` trajectory: every `keys` of
/// `[t, value]` goes through here.
pub fn key_time(path: &str, t: f64, prev: Option<f64>) -> Result<f64, RigError> {
    let written = |t: f64| crate::geom::quantize(t, crate::geom::T_DECIMALS);
    if let Some(prev) = prev {
        if t <= prev {
            return Err(invalid(
                path,
                format!(
                    "key times must strictly increase, got {} after {} (repeat the value at a later time for a hold)",
                    shown(t),
                    shown(prev)
                ),
            ));
        }
        if written(t) <= written(prev) {
            return Err(invalid(
                path,
                format!(
                    "key time {} is less than {MIN_KEY_GAP} of the period after the key before ({}): key times are written to {MIN_KEY_GAP}, so both would be written at {}",
                    shown(t),
                    shown(prev),
                    shown(written(t))
                ),
            ));
        }
    }
    let w = written(t);
    if (t > 0.0 && w == 0.0) || (t < 1.0 && w == 1.0) {
        return Err(invalid(
            path,
            format!(
                "key time {} is less than {MIN_KEY_GAP} of the period from {w}: key times are written to {MIN_KEY_GAP}, so it would be written at {w}; give {w}",
                shown(t)
            ),
        ));
    }
    Ok(t)
}

/// Read a JSON object that is a map (name → value: a clip's `angles`),
/// refusing a repeated key as serde refuses a repeated field
/// (`duplicate key "hip"`), where a map would keep the last silently.
/// Every map-typed field of the rig format is read through this
/// (`#[serde(deserialize_with = "crate::valid::unique_keys")]`).
pub fn unique_keys<'de, D, V>(d: D) -> Result<std::collections::BTreeMap<String, V>, D::Error>
where
    D: serde::Deserializer<'de>,
    V: serde::Deserialize<'de>,
{
    struct Keys<V>(std::marker::PhantomData<V>);
    impl<'de, V: serde::Deserialize<'de>> serde::de::Visitor<'de> for Keys<V> {
        type Value = std::collections::BTreeMap<String, V>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = std::collections::BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Keys(std::marker::PhantomData))
}

/// Check a colour `#rgb` or `#rrggbb`; returns it lower-cased.
pub fn colour(path: &str, s: &str) -> Result<String, RigError> {
    let hex = s.strip_prefix('#').unwrap_or("");
    if (hex.len() == 3 || hex.len() == 6) && hex.chars().all(|c| c.is_ascii_hexdigit()) {
        Ok(s.to_ascii_lowercase())
    } else {
        Err(invalid(
            path,
            format!("must be a colour like \"#6366f1\" or \"#abc\", got {s:?}"),
        ))
    }
}

/// [`colour`] as red, green and blue bytes (`#abc` is `#aabbcc`).
pub fn rgb(path: &str, s: &str) -> Result<[u8; 3], RigError> {
    let hex = colour(path, s)?;
    let d: Vec<u8> = hex[1..]
        .chars()
        .map(|c| c.to_digit(16).expect("checked hex") as u8)
        .collect();
    Ok(if d.len() == 3 {
        [d[0] * 17, d[1] * 17, d[2] * 17]
    } else {
        [d[0] * 16 + d[1], d[2] * 16 + d[3], d[4] * 16 + d[5]]
    })
}

/// A paint: `"none"` (`None`) or a [`colour`].
pub fn paint(path: &str, s: &str) -> Result<Option<String>, RigError> {
    if s == "none" {
        return Ok(None);
    }
    colour(path, s).map(Some).map_err(|_| {
        invalid(
            path,
            format!("must be \"none\" or a colour like \"#6366f1\", got {s:?}"),
        )
    })
}

/// An opacity in [0, 1].
pub fn opacity(path: &str, x: f64) -> Result<f64, RigError> {
    if !x.is_finite() || !(0.0..=1.0).contains(&x) {
        return Err(invalid(
            path,
            format!("must be between 0 and 1, got {}", shown(x)),
        ));
    }
    Ok(x)
}

/// Most drawing commands in one path of a rig file.
pub const MAX_PATH_ELEMENTS: usize = 4096;

/// SVG path data: parsed (arcs become cubic Béziers), at least one drawing
/// command, at most [`MAX_PATH_ELEMENTS`], every coordinate within ±[`MAX_COORD`].
/// The one reader of a rig's path data (scene parts, path targets and
/// `move` paths); a character outside the path grammar is refused where it
/// stands (the parser would stop there and keep what it had read).
pub fn path_data(path: &str, d: &str) -> Result<kurbo::BezPath, RigError> {
    // (quoted as Rust quotes it, control characters escaped once; a long
    // value is cut where every message is, `input::shortened`)
    let shown_d = || format!("{d:?}");
    if let Some((i, c)) = d
        .chars()
        .enumerate()
        .find(|&(_, c)| !(c.is_ascii_alphanumeric() || " \t\n\r\x0c,.+-".contains(c)))
        .or_else(|| {
            // letters: the commands and an exponent's `e`
            d.chars()
                .enumerate()
                .find(|&(_, c)| c.is_ascii_alphabetic() && !"MmZzLlHhVvCcSsQqTtAaEe".contains(c))
        })
    {
        return Err(invalid(
            path,
            format!(
                "is not SVG path data (unexpected {c:?} at character {}): {}",
                i + 1,
                shown_d()
            ),
        ));
    }
    let bez = kurbo::BezPath::from_svg(d)
        .map_err(|e| invalid(path, format!("is not SVG path data ({e}): {}", shown_d())))?;
    let n = bez.elements().len();
    if n < 2 {
        return Err(invalid(
            path,
            format!(
                "must draw something (a move and at least one segment), got {}",
                shown_d()
            ),
        ));
    }
    if n > MAX_PATH_ELEMENTS {
        return Err(invalid(
            path,
            format!("at most {MAX_PATH_ELEMENTS} commands, got {n}"),
        ));
    }
    for el in bez.elements() {
        let pts = match *el {
            kurbo::PathEl::MoveTo(p) | kurbo::PathEl::LineTo(p) => [p, p, p],
            kurbo::PathEl::QuadTo(a, b) => [a, b, b],
            kurbo::PathEl::CurveTo(a, b, c) => [a, b, c],
            kurbo::PathEl::ClosePath => continue,
        };
        for p in pts {
            check_num(path, p.x)?;
            check_num(path, p.y)?;
        }
    }
    Ok(bez)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every f64 a message may show is written, rounded where it is of
    /// everyday size, in exponent form where it is not, and as words where
    /// it is not a number at all.
    #[test]
    fn every_number_a_message_shows_is_written() {
        assert_eq!(shown_to(1.23456, 2), "1.23");
        assert_eq!(shown_to(-0.004, 2), "0");
        assert_eq!(shown_to(1e300, 2), "1e300");
        assert_eq!(shown_to(-2.5e7, 2), "-2.5e7");
        assert_eq!(shown_to(f64::INFINITY, 2), "inf");
        assert_eq!(shown_to(f64::NEG_INFINITY, 2), "-inf");
        assert_eq!(shown_to(f64::NAN, 2), "NaN");
        assert_eq!(shown_fixed(0.5, 3), "0.500");
        assert_eq!(shown_fixed(3.28e98, 3), "3.28e98");
        assert_eq!(shown_fixed(f64::NAN, 3), "NaN");
        for bits in [
            0u64,
            1,
            0x7fef_ffff_ffff_ffff,
            0x7ff8_0000_0000_0001,
            0xfff0_0000_0000_0000,
        ] {
            let x = f64::from_bits(bits);
            assert!(!shown_to(x, 3).is_empty() && !shown(x).is_empty(), "{x:e}");
        }
    }
}
