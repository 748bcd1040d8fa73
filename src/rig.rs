//! Rig files: the JSON format (`RigFile`, a serde mirror of the file) and the
//! validated model (`Rig`) that every later stage works on.
//!
//! After [`validate`] every length is finite and at least
//! [`crate::valid::MIN_LEN`], every coordinate is
//! finite and within ±[`MAX_COORD`], names are unique identifiers and every
//! leg's target stays within reach over the whole crank turn (unless the leg
//! opted into `"reach": "clamp"`), so later stages have no error paths.

use crate::geom::{Vec2, Vec2Ext};
use crate::input::escaped;

pub use crate::solve::ik::Knee;
pub use crate::trajectory::Direction;
/// The one validation module, under its historical path.
pub use crate::valid as check;
pub use crate::valid::{
    MAX_COORD, MAX_KEYS, MAX_LEGS, MAX_PERIOD_S, MIN_PERIOD_S, MIN_TOLERANCE_PX, RESERVED_NAMES,
    RigError, check_keys, check_name, check_tolerance, period, shown, whole_ms,
};
use crate::valid::{check_len, check_num, check_point, invalid, is_ident};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::f64::consts::TAU;

pub mod choice;
mod lower;

/// What to do when a leg cannot reach its target somewhere in the cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Reach {
    /// An unreachable target is an input error (exit 2) naming leg and crank angle.
    #[default]
    Error,
    /// Reach toward the target (distance clamped to `[|thigh−shin|, thigh+shin]`);
    /// the report counts the gap as error.
    Clamp,
}

/// The rig file exactly as written (serde mirror of the JSON). Unknown fields are rejected.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RigFile {
    /// Optional JSON-Schema reference for editors; ignored by rigbake.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Rig name: output file stem, so letters, digits, `-`, `_`, `.` only.
    pub name: String,
    /// SVG viewBox `[min_x, min_y, width, height]` in user units; width and
    /// height at least 0.01 (lengths are written to 0.01).
    pub view_box: [f64; 4],
    /// Loop period in seconds (one crank turn), snapped to whole milliseconds
    /// (the report notes a snapped period).
    pub period_s: f64,
    /// Uniform keys per period on every fitted channel (legs, chains, bones,
    /// springs), 2 to 10000, and the bake's work estimate at N keys per
    /// fitted channel at most 1,500,000 keys and 10,000,000 measured (of the
    /// bone tree the rig loads as, a cycling or `ik_chains` rig's too; see
    /// [the CLI](cli.md)). Without it (and without `tolerance_px`) every rig is fitted
    /// to the default 0.25 px; the CLI's `--keys` or `--tolerance` override
    /// it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 2, max = 10000))]
    pub keys: Option<usize>,
    /// Fit the fewest keys found that keep every probe (ankle, effector,
    /// target marker, bone tip, particle) within this many px instead of
    /// using `keys` uniform keys; the CLI's `--keys` or `--tolerance`
    /// override it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tolerance_px: Option<f64>,
    /// The crank all pedals hang on (required with `legs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crank: Option<CrankFile>,
    /// Legs, front to back: later legs are drawn behind earlier ones; at
    /// most 51 (each loads as five bones of a tree's 256).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub legs: Vec<LegFile>,
    /// A bone tree (instead of `crank` + `legs`), parents before children.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bones: Vec<crate::figure::file::BoneFile>,
    /// Whole-figure motion of the bone tree's default clip (lift, squash).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root: Option<crate::figure::file::RootFile>,
    /// How the bone tree's default clip plays: `"loop"` (default) or `"once"`.
    #[serde(default)]
    pub play: crate::figure::file::Play,
    /// Named clips of the bone tree, switched by a `<prefix>-clip-<name>` class on the
    /// root `<svg>`; the first plays by default. Without `clips` the rig's
    /// motion is one clip named `main` (as reports and errors call it).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clips: Vec<crate::figure::file::ClipFile>,
    /// Verlet chains (hair, ponytail) pinned to bones, simulated in every
    /// clip: into a seamless loop, or once from rest for a `"once"` clip,
    /// which must have settled by its end.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<crate::figure::chain::ChainFile>,
    /// Two-bone IK chains inside the bone tree (legs to a gait, hands to a
    /// handle), solved every frame after their parents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ik: Vec<crate::figure::file::IkFile>,
    /// Bones whose subtree follows its joint through a damped spring,
    /// simulated in every clip like `chains`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub springs: Vec<crate::figure::spring::SpringFile>,
    /// A static torso line and head on a cycling rig (for a scarf to hang from).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub torso: Option<crate::figure::chain::TorsoFile>,
    /// Two-bone chains whose root and target follow trajectories (instead
    /// of `crank` + `legs` or `bones`), front to back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ik_chains: Vec<crate::chain::IkChainFile>,
    /// A scrolling row of ground dots under `ik_chains`, or under a bone
    /// tree (`follow` then names an `ik` entry by its `name` or `upper` bone; with
    /// `clips`, each clip scrolls it at its own target's gait speed, or
    /// leaves it still).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<crate::chain::GroundFile>,
    /// How a bone tree is drawn: `"figure"` (default: tapered limbs, round
    /// head, far side thinner and translucent), `"sticks"` (straight sticks
    /// and joint balls), `"limbs"` (thick round-capped strokes, IK targets
    /// as discs: the `ik_chains` drawing), or an object of overrides (see
    /// docs/style.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<crate::figure::style::RigStyleFile>,
    /// Drawn parts that are not bones (a bicycle, a boat, a path drawn),
    /// static or carried by a bone (`bones` rigs); `ik_chains` rigs take
    /// static parts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scene: Vec<crate::figure::file::ScenePartFile>,
}

/// `crank` in the rig file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CrankFile {
    /// Bottom-bracket centre `[x, y]`.
    pub center: [f64; 2],
    /// Crank arm length (pedal-axle circle radius), at least 0.01.
    pub radius: f64,
    /// Crank angle at t = 0, degrees, clockwise on screen from +x (default 0).
    #[serde(default)]
    pub start_deg: f64,
    /// `"cw"` (default) or `"ccw"`, as seen on screen.
    #[serde(default)]
    pub direction: Direction,
}

/// One entry of `legs` in the rig file.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LegFile {
    /// Leg name: names the leg's `ik` entry, its bones (`<name>_thigh`, …) and its probes (`<name>-ankle`, `<name>-target`).
    pub name: String,
    /// Hip joint `[x, y]`.
    pub hip: [f64; 2],
    /// Thigh length (hip→knee), at least 0.01.
    pub thigh: f64,
    /// Shin length (knee→ankle), at least 0.01.
    pub shin: f64,
    /// Ankle position relative to the pedal axle (default `[0, 0]`).
    #[serde(default)]
    pub pedal_offset: [f64; 2],
    /// `"forward"` (default) or `"backward"`.
    #[serde(default)]
    pub knee: Knee,
    /// This pedal's angle ahead of the crank's, degrees (default 0; the far pedal is 180).
    #[serde(default)]
    pub phase_deg: f64,
    /// Translation of this leg's whole side (leg, crank arm, pedal), default `[0, 0]`.
    #[serde(default)]
    pub depth_offset: [f64; 2],
    /// `"error"` (default) or `"clamp"`.
    #[serde(default)]
    pub reach: Reach,
}

/// What the reach check reads of a cycling rig's crank (the rest of it is
/// checked and then lowered with the file).
#[derive(Debug, Clone, PartialEq)]
struct Crank {
    center: Vec2,
    /// Pedal-axle circle radius, user units, at least 0.01.
    radius: f64,
}

/// What the reach check reads of a cycling rig's leg (the rest of it is
/// checked and then lowered with the file).
#[derive(Debug, Clone, PartialEq)]
struct Leg<'a> {
    name: &'a str,
    hip: Vec2,
    /// Thigh length, user units, at least 0.01.
    thigh: f64,
    /// Shin length, user units, at least 0.01.
    shin: f64,
    pedal_offset: Vec2,
}

/// A validated rig: every later stage can rely on the invariants in the module docs.
#[derive(Debug, Clone, PartialEq)]
pub struct Rig {
    pub name: String,
    /// `[min_x, min_y, width, height]`, width and height at least 0.01.
    pub view_box: [f64; 4],
    /// Loop period, seconds, in (0, [`MAX_PERIOD_S`]].
    pub period_s: f64,
    /// Uniform keys per period asked for by the rig, in 2..=[`MAX_KEYS`].
    pub keys: Option<usize>,
    /// Probe tolerance to fit keys to, px, in [[`MIN_TOLERANCE_PX`], [`MAX_COORD`]].
    pub tolerance_px: Option<f64>,
    /// The bone tree every rig loads as: a cycling rig (`crank` + `legs`)
    /// and an `ik_chains` rig as the tree they lower into (module `lower`).
    pub figure: crate::figure::Figure,
    /// What loading changed in the user's numbers (a period snapped to
    /// whole milliseconds); every bake's report carries these first.
    pub notes: Vec<String>,
    /// Not in the file: `bake --prefix`, the prefix of every class,
    /// `@keyframes` name and id the file defines; `None` for the automatic
    /// one (see [`crate::emit::scope`]).
    pub prefix: Option<String>,
}

/// Check a bake's keying against the work it asks of this rig, before any
/// bake work; shared by the rig's own keying, `bake --keys`/`--tolerance`
/// and `sweep --keys`, whose error ends with `remedy` (what the one who
/// asked can do instead). `keys`: uniform keys per period, `None` for
/// fitted keys (a tolerance or the default goal). `route`: the route
/// baked, whose written clips count (`None`: every clip, as css writes).
///
/// The estimate is [`crate::figure::work`]'s (every rig loads as a bone
/// tree): every fitted channel of every written clip, weighted by its
/// motion or by the uniform key count, and the measure stage's key times
/// × probes; the error is at `path` for uniform keys, else at the field
/// that adds the most.
pub fn check_key_work(
    path: &str,
    keys: Option<usize>,
    rig: &Rig,
    route: Option<crate::clip::Route>,
    remedy: &str,
) -> Result<(), RigError> {
    use crate::figure::work;
    let fig = &rig.figure;
    let clips = match route {
        Some(crate::clip::Route::Smil) => 1,
        _ => fig.clips.len(),
    };
    let keys = keys.map_or(work::WorkKeys::Fitted, work::WorkKeys::Uniform);
    work::check(
        fig,
        clips,
        (keys, path, remedy),
        work::Extra::of(fig, route, keys),
    )
}

/// What [`check_key_work`] advises a bake: its other ways to key.
pub const FEWER_KEYS_OR_A_TOLERANCE: &str = "use fewer keys, or a tolerance";

/// Parse rig JSON text into a [`RigFile`], with the JSON path of any error.
///
/// A leading UTF-8 byte order mark is skipped. The rig must be the whole
/// text: anything but whitespace after it is an error at its line and column.
pub fn parse(text: &str) -> Result<RigFile, RigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    // serde would also read a rig from an array of its fields in order
    if let Some(at) = text.find(|c: char| !c.is_ascii_whitespace())
        && !text[at..].starts_with('{')
    {
        let found = match text.as_bytes()[at] {
            b'[' => "an array",
            b'"' => "a string",
            b't' | b'f' => "a boolean",
            b'n' => "null",
            b'-' | b'0'..=b'9' => "a number",
            _ => "something else",
        };
        let line = text[..at].matches('\n').count() + 1;
        let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
        return Err(RigError::Json {
            path: "(root)".into(),
            msg: format!("expected a rig (a JSON object), found {found}"),
            line,
            column,
        });
    }
    // (read before the schema is looked at, which may still be in the
    // making: see `prepare`)
    let de = &mut serde_json::Deserializer::from_str(text);
    let read: Result<RigFile, _> = serde_path_to_error::deserialize(&mut *de);
    // serde would also read any section from an array of its fields: that
    // error comes first
    if let Some(path) = choice::array_for_object(format_schema(), text) {
        let msg = choice_expected(text, &path)
            .unwrap_or_else(|| "expected an object, found an array".into());
        return Err(invalid(path, msg));
    }
    let file = read.map_err(|e| {
        let path = e.path().to_string();
        json_error(text, &path, e.into_inner())
    })?;
    de.end().map_err(|e| RigError::Json {
        path: "(root)".into(),
        msg: "trailing characters after the rig (a file holds one rig object)".into(),
        line: e.line(),
        column: e.column(),
    })?;
    Ok(file)
}

/// Starts making, on the thread pool, what the first [`parse`] of a
/// process needs and takes longest to make: the format's schema
/// (`format_schema`, most of a millisecond), so that it is made while
/// the command line and the file are read; the pool's threads start
/// with it. A [`parse`] that comes first waits for it, or makes it.
pub fn prepare() {
    rayon::spawn(|| {
        format_schema();
    });
}

/// The rig format's schema, generated once ([`choice::format_schema`]).
fn format_schema() -> &'static serde_json::Value {
    static SCHEMA: std::sync::OnceLock<serde_json::Value> = std::sync::OnceLock::new();
    SCHEMA.get_or_init(choice::format_schema)
}

/// A serde_json error at `path` (as serde_path_to_error writes it) as a
/// [`RigError::Json`] in our words.
fn json_error(text: &str, path: &str, inner: serde_json::Error) -> RigError {
    let (line, column) = (inner.line(), inner.column());
    let mut msg = strip_position(&inner.to_string());
    // serde_path_to_error writes "." for the top level and ends a path with
    // "?" when a key was being read; only a text that ended early is "end of file"
    let path = if inner.is_eof() && text.trim().is_empty() {
        msg = "the file is empty; expected a rig (a JSON object)".into();
        "(root)".to_string()
    } else if inner.is_eof() {
        "(end of file)".to_string()
    } else {
        match path.strip_suffix('?').map(|p| p.trim_end_matches('.')) {
            Some("") => "(root)".into(),
            Some(p) => p.into(),
            None if path == "." => "(root)".into(),
            None => path.into(),
        }
    };
    // serde_json says "trailing characters" when a fixed-length array
    // (a point, the view box) holds more entries than it takes
    if msg == "trailing characters"
        && let Some(m) = too_many_entries(text, line, column)
    {
        msg = m;
    }
    // and only "expected value" when a choice (`"cw"`, `{"sine": …}`) is
    // given anything but a string or a one-key object
    if msg == "expected value"
        && let Some(m) = choice_expected(text, &path)
    {
        msg = m;
    }
    // a field of several forms (an untagged enum) that matched none: its
    // forms, from the schema, and what the file holds there
    if msg.starts_with("data did not match any variant of untagged enum")
        && let Some(m) = forms_expected(text, &path)
    {
        msg = m;
    }
    // Rust's names for number types, in the format's words (an unsigned
    // one takes no sign: `-1` is whole, but not one of them), and a whole
    // number written with a point or an exponent (`2.0`, `1e3`), which
    // JSON reads as a fraction, said so
    for (rust, ours) in [
        ("expected f64", "expected a number"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
    ] {
        if let Some(head) = msg.strip_suffix(rust) {
            let fraction = head.starts_with("invalid type: floating point");
            msg = format!("{head}{ours}");
            if fraction {
                msg.push_str(", written without a decimal point or an exponent");
            }
        }
    }
    if let Some(near) = nearest_field(&msg) {
        msg = format!("{msg}; did you mean `{near}`?");
    }
    if msg == "key must be a string" {
        msg = "key must be a string (JSON allows no comments and no trailing commas)".into();
    }
    RigError::Json {
        path,
        msg,
        line,
        column,
    }
}

/// The message for a field at `path` that takes one of several choices
/// (an enum of the rig format) where serde_json says only "expected
/// value": the choices, from the rig format's schema, and what the file
/// holds there. `None` where the field takes no choice.
fn choice_expected(text: &str, path: &str) -> Option<String> {
    let schema = format_schema();
    let node = choice::node_at(schema, path)?;
    let (names, keys) = choice::choices(schema, node)?;
    // what the file holds there (it is well-formed JSON: the error is a
    // value of the wrong kind)
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let value = choice::value_at(&doc, path)?;
    // (serde says only "expected value" after a choice's key given twice)
    if let Some(k) = choice::repeated_key(text, path) {
        return Some(duplicate(&k));
    }
    let list = |v: &[String], quote: &str| {
        v.iter()
            .map(|x| format!("{quote}{x}{quote}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let found = found_text(value);
    let expected = match (names.is_empty(), keys.is_empty()) {
        (false, true) => format!("one of {}", list(&names, "\"")),
        (true, false) => format!(
            "an object with exactly one of the keys {}",
            list(&keys, "`")
        ),
        _ => format!(
            "one of {} or an object with exactly one of the keys {}",
            list(&names, "\""),
            list(&keys, "`")
        ),
    };
    Some(format!("expected {expected}; found {found}"))
}

/// For serde's "unknown field `x`, expected one of `a`, `b`, …": the
/// expected name nearest to `x` where it is a likely slip of the hand or
/// of the case (`viewbox`, `View_Box`, `lenght` for `length`): the same
/// letters but for case and `_`, or at most two edits (one for a name of
/// four letters or fewer). `None` otherwise.
fn nearest_field(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("unknown field `")?;
    let (got, rest) = rest.split_once('`')?;
    let names: Vec<&str> = rest
        .strip_prefix(", expected one of ")
        .or_else(|| rest.strip_prefix(", expected "))?
        .split(", ")
        .filter_map(|n| n.strip_prefix('`')?.strip_suffix('`'))
        .collect();
    let plain = |s: &str| s.to_ascii_lowercase().replace('_', "");
    if let Some(n) = names.iter().find(|n| plain(n) == plain(got)) {
        return Some(n.to_string());
    }
    let (best, d) = names
        .iter()
        .map(|n| (n, edits(&got.to_ascii_lowercase(), n)))
        .min_by_key(|&(_, d)| d)?;
    let most = if got.chars().count() <= 4 { 1 } else { 2 };
    (d <= most).then(|| best.to_string())
}

/// Levenshtein distance between `a` and `b`, by characters.
fn edits(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// What a rig file holds where a value of another kind was expected, in
/// a message's words: a string quoted, a number, "an array", "an object
/// with the keys …" (the first four).
fn found_text(value: &serde_json::Value) -> String {
    let list = |v: &[String]| {
        v.iter()
            .map(|x| format!("`{x}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    match value {
        serde_json::Value::Object(m) if m.is_empty() => "an empty object".to_string(),
        serde_json::Value::Object(m) => {
            let named: Vec<String> = m.keys().take(4).cloned().collect();
            let more = if m.len() > 4 {
                format!(" (of {} keys)", m.len())
            } else {
                String::new()
            };
            format!("an object with the keys {}{more}", list(&named))
        }
        serde_json::Value::Array(_) => "an array".to_string(),
        // (the error line escapes and shortens what it quotes)
        serde_json::Value::String(s) => format!("{s:?}"),
        v => v.to_string(),
    }
}

/// A key given twice, as serde says it of a struct's field (`duplicate
/// field `radius``), or quoted where it is not a plain name.
fn duplicate(key: &str) -> String {
    if is_ident(key, &[]) {
        format!("duplicate field `{key}`")
    } else {
        format!("duplicate field {key:?}")
    }
}

/// The message for a field of several forms at `path` that the file's
/// value matches none of: the forms ([`choice::forms`]) and what the file
/// holds there. `None` where the schema names no forms there.
fn forms_expected(text: &str, path: &str) -> Option<String> {
    let schema = format_schema();
    let forms = choice::forms(schema, choice::node_at(schema, path)?);
    if forms.is_empty() {
        return None;
    }
    // (no form takes a key given twice)
    if let Some(k) = choice::repeated_key(text, path) {
        return Some(duplicate(&k));
    }
    let doc: serde_json::Value = serde_json::from_str(text).ok()?;
    let found = found_text(choice::value_at(&doc, path)?);
    Some(format!("expected {}; found {found}", forms.join("; or ")))
}

/// The message for an array holding more entries than its fixed length,
/// when serde_json stopped at (`line`, `column`) on the first extra entry:
/// the entries before it are counted back to the array's `[` (they parsed
/// as numbers or arrays of numbers, so they hold no strings), and the whole
/// array is counted when it is well-formed JSON.
fn too_many_entries(text: &str, line: usize, column: usize) -> Option<String> {
    let line_start = match line {
        0 => return None,
        1 => 0,
        _ => text.match_indices('\n').nth(line - 2)?.0 + 1,
    };
    let at = (line_start + column.checked_sub(1)?).min(text.len());
    let head = text.get(..at)?.trim_end();
    // without a comma before it, the entry is a syntax error, not one too many
    let Some(head) = head.strip_suffix(',') else {
        return Some("expected `,` or `]`".into());
    };
    let (mut depth, mut commas, mut nested) = (0usize, 0usize, false);
    let mut open = None;
    for (i, b) in head.bytes().enumerate().rev() {
        match b {
            b']' => {
                depth += 1;
                nested = true;
            }
            b'[' if depth == 0 => {
                open = Some(i);
                break;
            }
            b'[' => depth -= 1,
            b',' if depth == 0 => commas += 1,
            b'"' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    let open = open?;
    let expected = commas + 1;
    let noun = match (nested, expected) {
        (true, 1) => "entry",
        (true, _) => "entries",
        (false, 1) => "number",
        (false, _) => "numbers",
    };
    let got = serde_json::Deserializer::from_str(&text[open..])
        .into_iter::<serde_json::Value>()
        .next()
        .and_then(|v| v.ok())
        .and_then(|v| v.as_array().map(Vec::len));
    Some(match got {
        Some(n) => format!("expected {expected} {noun}, got {n}"),
        None => format!("expected {expected} {noun}, got more"),
    })
}

/// serde_json appends " at line L column C" to its messages; we print it once, our way.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// Parse and validate in one step.
pub fn load(text: &str) -> Result<Rig, RigError> {
    validate(&parse(text)?)
}

/// [`load`] keeping only the bone-tree clip named `clip` (the CLI's
/// `--clip`): the rig is renamed `<name>-<clip>` so its outputs do not
/// replace the whole rig's, and its chains are simulated under that clip.
/// This is how a clip gets its own SVG, and how the smil route (which
/// cannot switch clips by class) writes a clip other than the first.
pub fn load_clip(text: &str, clip: &str) -> Result<Rig, RigError> {
    let mut file = parse(text)?;
    if file.clips.is_empty() {
        return Err(invalid(
            "clips",
            format!("--clip {clip:?} asks for a clip, but this rig has no `clips`"),
        ));
    }
    let Some(i) = file.clips.iter().position(|c| c.name == clip) else {
        let names: Vec<&str> = file.clips.iter().map(|c| c.name.as_str()).collect();
        return Err(invalid(
            "clips",
            format!(
                "--clip {clip:?} names no clip (this rig has: {})",
                escaped(&names.join(", "))
            ),
        ));
    };
    file.clips = vec![file.clips.swap_remove(i)];
    file.name = format!("{}-{clip}", file.name);
    validate(&file)
}

/// Notes on values that read like another unit than the format's: every
/// angle (a field named `…_deg`) under 3.2° in magnitude, where at least
/// two are not zero (radians typed as degrees: 1.57 for a right angle),
/// and a period over a minute (milliseconds typed as seconds). A rig may
/// mean them; the note only says what the numbers are read as.
fn unit_notes(file: &RigFile) -> Vec<String> {
    fn degrees(v: &serde_json::Value, under_deg: bool, out: &mut Vec<f64>) {
        match v {
            serde_json::Value::Number(n) if under_deg => out.extend(n.as_f64()),
            serde_json::Value::Array(a) => a.iter().for_each(|x| degrees(x, under_deg, out)),
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    degrees(x, under_deg || k.ends_with("_deg"), out);
                }
            }
            _ => {}
        }
    }
    let mut notes = Vec::new();
    let mut angles = Vec::new();
    if let Ok(v) = serde_json::to_value(file) {
        degrees(&v, false, &mut angles);
    }
    let nonzero: Vec<f64> = angles.into_iter().filter(|a| *a != 0.0).collect();
    if nonzero.len() >= 2 && nonzero.iter().all(|a| a.abs() < 3.2) {
        notes.push(format!(
            "every angle of this rig (the fields named …_deg) is under 3.2°, the largest {}°: angles are degrees; radians would be 57.3 times larger (1.57 rad = 90°)",
            shown(nonzero.iter().fold(0.0, |m: f64, a| m.max(a.abs())))
        ));
    }
    let periods = std::iter::once(("period_s".to_string(), Some(file.period_s))).chain(
        file.clips
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("clips[{i}].period_s"), c.period_s)),
    );
    for (path, p) in periods {
        if let Some(p) = p.filter(|p| *p > 60.0) {
            notes.push(format!(
                "{path} {} s is {} min: periods are seconds (1.2 for 1200 ms)",
                shown(p),
                shown((p / 60.0 * 10.0).round() / 10.0)
            ));
        }
    }
    notes
}

/// One note per period in the file that [`period`] snapped.
fn period_notes(file: &RigFile) -> Vec<String> {
    let given = std::iter::once(("period_s".to_string(), Some(file.period_s))).chain(
        file.clips
            .iter()
            .enumerate()
            .map(|(i, c)| (format!("clips[{i}].period_s"), c.period_s)),
    );
    given
        .filter_map(|(path, p)| {
            let p = p?;
            let snapped = whole_ms(p);
            (snapped != p).then(|| {
                format!(
                    "{path} {} s is baked as {} s: periods are whole milliseconds, as SMIL clocks \
                     count them; the motion is solved for the snapped period",
                    shown(p),
                    shown(snapped)
                )
            })
        })
        .collect()
}

/// The bone tree an `ik_chains` file lowers into (module `lower`): the
/// file is validated as a chain file first, so an error names the user's
/// own JSON path (`ik_chains[1].thigh`); a file without `ik_chains` is
/// refused at `ik_chains`. The loader validates the tree itself (an
/// `ik_chains` rig loads as it), so the tree returned loads.
pub fn lower_chains(file: &RigFile) -> Result<RigFile, RigError> {
    if file.ik_chains.is_empty() {
        return Err(invalid(
            "ik_chains",
            "missing: only `ik_chains` lower into bones",
        ));
    }
    Ok(lowered(file, validate(file)?.period_s)?.file)
}

/// A rig file as JSON text, as a person would write it: two-space
/// indents, `name` first in every object and the other fields in
/// alphabetical order, an array of numbers or strings on one line
/// (`[352, 255]`), a whole number without a fraction (`50`, not `50.0`);
/// `parse` reads it back to the same file.
pub fn to_text(file: &RigFile) -> String {
    fn scalar(v: &serde_json::Value) -> bool {
        !(v.is_array() || v.is_object())
    }
    fn number(v: &serde_json::Value) -> String {
        match v.as_f64() {
            // the shortest text that reads back to the same f64
            Some(x) if x.fract() == 0.0 && x.abs() < 1e15 => format!("{}", x as i64),
            _ => v.to_string(),
        }
    }
    fn write(v: &serde_json::Value, indent: usize, out: &mut String) {
        use serde_json::Value;
        let pad = |n: usize| "  ".repeat(n);
        match v {
            Value::Number(_) => out.push_str(&number(v)),
            Value::Array(items) if items.iter().all(scalar) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write(item, indent, out);
                }
                out.push(']');
            }
            Value::Array(items) => {
                out.push_str("[\n");
                for (i, item) in items.iter().enumerate() {
                    out.push_str(&pad(indent + 1));
                    write(item, indent + 1, out);
                    out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push(']');
            }
            Value::Object(map) if map.is_empty() => out.push_str("{}"),
            Value::Object(map) => {
                out.push_str("{\n");
                // `name` first, as a person writes it, then the rest in order
                let mut keys: Vec<(&String, &Value)> = map.iter().collect();
                keys.sort_by_key(|(k, _)| *k != "name");
                for (i, (k, item)) in keys.into_iter().enumerate() {
                    out.push_str(&pad(indent + 1));
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push_str(": ");
                    write(item, indent + 1, out);
                    out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
                }
                out.push_str(&pad(indent));
                out.push('}');
            }
            _ => out.push_str(&v.to_string()),
        }
    }
    let v = serde_json::to_value(file).expect("a rig file serialises");
    let mut out = String::new();
    write(&v, 0, &mut out);
    out.push('\n');
    out
}

/// The bone tree a cycling or `ik_chains` rig lowers into
/// ([`lower_legs`], [`lower_chains`]); a bone tree is refused at `bones`
/// (it is one already).
pub fn lower(file: &RigFile) -> Result<RigFile, RigError> {
    if !file.legs.is_empty() {
        lower_legs(file)
    } else if !file.ik_chains.is_empty() {
        lower_chains(file)
    } else if !file.bones.is_empty() {
        Err(invalid(
            "bones",
            "this rig is a bone tree already; only `crank` + `legs` or `ik_chains` lower into one",
        ))
    } else {
        // what the loader says of a rig with none of them
        Err(validate(file).err().unwrap_or_else(|| {
            invalid(
                "legs",
                "missing: only `crank` + `legs` or `ik_chains` lower into bones",
            )
        }))
    }
}

/// The bone tree a cycling rig (`crank` + `legs`) lowers into (module
/// `lower`): the file is validated as a cycling rig first, so an error names
/// the user's own JSON path (`legs[1].thigh`, or the crank angle where a
/// pedal is out of reach); a file without legs is refused at `legs`.
///
/// Loading a cycling rig is loading this tree ([`validate`]), so what is
/// returned loads: a value the tree would write out of the loader's
/// bounds (a crank centre, a pedal offset and a depth offset summed past
/// ±[`MAX_COORD`]) is a [`RigError::Lowered`] naming the rig's fields it
/// is made of and the tree's path and value.
pub fn lower_legs(file: &RigFile) -> Result<RigFile, RigError> {
    if file.legs.is_empty() {
        return Err(invalid(
            "legs",
            "missing: only `crank` + `legs` lower into bones here",
        ));
    }
    // (the load validates the tree it lowers into)
    validate(file)?;
    Ok(lower::legs_as_bones(file).file)
}

/// An `ik` entry's `"smil": "morph"` only where one morphed path can draw
/// the limb (see [`crate::figure::morph`]): the `limbs` look, both bones in
/// one stroke and width, and nothing else drawn on or hung from them (no
/// child bone but `lower`, no `parts`, `head_radius`, carried `scene`
/// part, spring or chain anchor), the upper bone not moving on its own
/// (`move`).
fn check_ik_morphs(file: &RigFile, fig: &crate::figure::Figure) -> Result<(), RigError> {
    use crate::figure::file::IkSmil;
    for (i, f) in file.ik.iter().enumerate() {
        if f.smil != Some(IkSmil::Morph) {
            continue;
        }
        let p = format!("ik[{i}].smil");
        let k = &fig.ik[i];
        let refuse = |why: String| {
            Err(invalid(
                &p,
                format!("\"morph\" draws the limb as one path: {why}"),
            ))
        };
        if fig.style.look != crate::figure::style::Look::Limbs {
            return refuse("only in the \"limbs\" look (`style.look`)".into());
        }
        let (up, lo) = (&fig.bones[k.upper], &fig.bones[k.lower]);
        if up.stroke != lo.stroke || up.width != lo.width {
            return refuse(format!(
                "bones {:?} and {:?} need one stroke and width",
                up.name, lo.name
            ));
        }
        if up.mv.is_some() {
            return refuse(format!("bone {:?} may not `move`", up.name));
        }
        for b in [k.upper, k.lower] {
            let name = &fig.bones[b].name;
            let child = fig
                .bones
                .iter()
                .find(|c| c.parent == Some(b) && !(b == k.upper && c.name == lo.name));
            let why = if let Some(c) = child {
                format!("bone {:?} hangs from {name:?}", c.name)
            } else if !fig.bones[b].parts.is_empty() {
                format!("bone {name:?} carries `parts`")
            } else if fig.bones[b].head_radius.is_some() {
                format!("bone {name:?} draws a head (`head_radius`)")
            } else if fig.scene.iter().any(|s| s.bone == Some(b)) {
                format!("bone {name:?} carries a `scene` part")
            } else if file.springs.iter().any(|s| &s.bone == name) {
                format!("a spring acts on bone {name:?}")
            } else if file
                .chains
                .iter()
                .any(|c| c.anchor.bone.as_ref() == Some(name))
            {
                format!("a chain hangs from bone {name:?}")
            } else {
                continue;
            };
            return refuse(why);
        }
    }
    Ok(())
}

/// Validate a parsed rig file into a [`Rig`]; the first problem found is returned.
pub fn validate(file: &RigFile) -> Result<Rig, RigError> {
    let mut rig = validate_parts(file)?;
    rig.notes = period_notes(file);
    rig.notes.extend(unit_notes(file));
    Ok(rig)
}

fn validate_parts(file: &RigFile) -> Result<Rig, RigError> {
    if file.name.len() > 64 || !is_ident(&file.name, &['.']) {
        return Err(invalid(
            "name",
            format!(
                "must start with a letter and hold only letters, digits, '-', '_', '.' (at most 64), got {:?}",
                file.name
            ),
        ));
    }
    let mut view_box = [0.0; 4];
    for (i, v) in file.view_box.iter().enumerate() {
        // [x, y, width, height]: the width and height are lengths
        let path = format!("view_box[{i}]");
        view_box[i] = if i < 2 {
            check_num(&path, *v)?
        } else {
            check_len(&path, *v)?
        };
    }
    let period_s = period("period_s", file.period_s)?;
    let keys = file.keys.map(|k| check_keys("keys", k)).transpose()?;
    let tolerance_px = match file.tolerance_px {
        Some(px) => Some(check_tolerance("tolerance_px", px)?),
        None => None,
    };
    if !file.bones.is_empty() {
        if !file.ik_chains.is_empty() {
            return Err(invalid("ik_chains", "cannot be combined with `bones`"));
        }
        return validate_figure(file, view_box, period_s, keys, tolerance_px);
    }
    if !file.ik_chains.is_empty() {
        return validate_chains(file, view_box, period_s, keys, tolerance_px);
    }
    if file.ground.is_some() {
        return Err(invalid(
            "ground",
            "belongs to `ik_chains` or `bones`: add chains or bones",
        ));
    }
    for (set, path) in [
        (file.root.is_some(), "root"),
        (!file.clips.is_empty(), "clips"),
        (!file.ik.is_empty(), "ik"),
        (!file.springs.is_empty(), "springs"),
        (!file.scene.is_empty(), "scene"),
    ] {
        if set {
            return Err(invalid(path, "belongs to a bone tree: add `bones`"));
        }
    }
    let Some(crank_file) = &file.crank else {
        return Err(if file.legs.is_empty() {
            invalid(
                "(root)",
                "a rig needs `crank` and `legs` (cycling legs) or `bones` (a bone tree); found neither",
            )
        } else {
            invalid("crank", "missing: `legs` need a `crank`")
        });
    };
    if file.style.is_some() {
        return Err(invalid("style", "belongs to a bone tree: add `bones`"));
    }
    let crank = Crank {
        center: check_point("crank.center", crank_file.center)?,
        radius: check_len("crank.radius", crank_file.radius)?,
    };
    check_num("crank.start_deg", crank_file.start_deg)?;
    if file.legs.is_empty() {
        return Err(invalid("legs", "must hold at least one leg"));
    }
    if file.legs.len() > MAX_LEGS {
        return Err(invalid(
            "legs",
            format!("at most {MAX_LEGS} legs, got {}", file.legs.len()),
        ));
    }
    for (i, lf) in file.legs.iter().enumerate() {
        let p = format!("legs[{i}]");
        if lf.name.len() > 32 || !is_ident(&lf.name, &[]) {
            return Err(invalid(
                format!("{p}.name"),
                format!(
                    "must start with a letter and hold only letters, digits, '-', '_' (at most 32), got {:?}",
                    lf.name
                ),
            ));
        }
        if let Some(j) = file.legs[..i].iter().position(|l| l.name == lf.name) {
            return Err(invalid(
                format!("{p}.name"),
                format!("{:?} is already the name of legs[{j}]", lf.name),
            ));
        }
        let leg = Leg {
            name: &lf.name,
            hip: check_point(&format!("{p}.hip"), lf.hip)?,
            thigh: check_len(&format!("{p}.thigh"), lf.thigh)?,
            shin: check_len(&format!("{p}.shin"), lf.shin)?,
            pedal_offset: check_point(&format!("{p}.pedal_offset"), lf.pedal_offset)?,
        };
        check_num(&format!("{p}.phase_deg"), lf.phase_deg)?;
        check_point(&format!("{p}.depth_offset"), lf.depth_offset)?;
        if lf.reach == Reach::Error {
            check_reach(&p, &leg, &crank)?;
        }
    }
    // (the chains' anchors and the torso in the rig's own terms; the
    // tree's validation checks the rest of them at the same paths)
    crate::figure::chain::check_fixed_anchors(&file.chains)?;
    if let Some(t) = &file.torso {
        crate::figure::chain::validate_torso(t)?;
    }
    let tree = lower::legs_as_bones(file);
    validate_figure(&tree.file, view_box, period_s, keys, tolerance_px)
        .map_err(|e| tree.explain(e, true))
}

/// A bone-tree rig: `bones` (and optionally `root`, `play`, `clips`), no
/// `crank` or `legs`. The returned rig's `crank` is a placeholder no stage
/// reads (`legs` is empty).
fn validate_figure(
    file: &RigFile,
    view_box: [f64; 4],
    period_s: f64,
    keys: Option<usize>,
    tolerance_px: Option<f64>,
) -> Result<Rig, RigError> {
    if file.crank.is_some() || !file.legs.is_empty() {
        let path = if file.crank.is_some() {
            "crank"
        } else {
            "legs"
        };
        return Err(invalid(
            path,
            "a rig holds either `crank` + `legs` or `bones`, not both",
        ));
    }
    if file.torso.is_some() {
        return Err(invalid(
            "torso",
            "belongs to a cycling rig (`crank` + `legs`); a bone tree draws its own body",
        ));
    }
    let figure = crate::figure::model::validate(
        &file.bones,
        file.root.as_ref(),
        file.play,
        &file.clips,
        &file.ik,
        period_s,
    )?;
    // the least work any bake of the rig asks (fitted keys, one clip: a
    // tolerance and `--clip` or the smil route), before the simulations;
    // a bake's own keying and route are checked where they are known
    // (`check_key_work`: the rig's `keys` may be overridden by a flag)
    {
        use crate::figure::work;
        // (fitted keys: a replay's times stand for the keys its chain
        // would have fitted, so replays count nothing)
        let extra = work::Extra {
            springs: file.springs.len(),
            particles: file.chains.iter().map(|c| c.segments + 1).sum(),
            replays: 0,
        };
        let how = (work::WorkKeys::Fitted, "keys", FEWER_KEYS_OR_A_TOLERANCE);
        work::check(&figure, 1, how, extra)?;
    }
    // The IK reach check and the physics read the figure alone: side by
    // side (the simulations are serial work), the reach error first.
    let (reach, physics) = rayon::join(
        || crate::figure::model::check_ik_reach(&figure),
        || with_style_and_physics(file, figure.clone()),
    );
    reach?;
    let mut figure = physics?;
    figure.springs = figure.physics[0].springs.clone();
    figure.chains = figure.physics[0].chains.clone();
    figure.scene = crate::figure::scene::validate(
        &file.scene,
        &figure
            .bones
            .iter()
            .map(|b| b.name.clone())
            .collect::<Vec<_>>(),
        &crate::figure::fk::world_matrices(&figure, &figure.rest_rad, 0.0),
    )?;
    check_ik_morphs(file, &figure)?;
    if let Some(g) = &file.ground {
        crate::figure::model::validate_ground(&mut figure, g)?;
    }
    Ok(Rig {
        name: file.name.clone(),
        prefix: None,
        view_box,
        period_s,
        keys,
        tolerance_px,
        figure,
        notes: Vec::new(),
    })
}

/// `figure` with the rig's style, and its springs and chains simulated in
/// every clip (they share one simulation budget; the chains' anchors ride
/// the clip's springs).
fn with_style_and_physics(
    file: &RigFile,
    mut figure: crate::figure::Figure,
) -> Result<crate::figure::Figure, RigError> {
    if let Some(sf) = &file.style {
        let names: Vec<String> = figure.bones.iter().map(|b| b.name.clone()).collect();
        figure.style = crate::figure::style::check_style(sf, &names)?;
        crate::figure::style::apply_colours(&mut figure, &file.bones);
    }
    let mut budget = crate::solve::physics::Budget::default();
    let springs = crate::figure::spring::validate(&file.springs, &figure, &mut budget)?;
    figure.physics = springs
        .into_iter()
        .map(|springs| crate::figure::model::ClipPhysics {
            springs,
            chains: Vec::new(),
        })
        .collect();
    let chains = crate::figure::chain::validate(&file.chains, &figure, &mut budget)?;
    for (p, c) in figure.physics.iter_mut().zip(chains) {
        p.chains = c;
    }
    Ok(figure)
}

/// A chain rig: `ik_chains` (and optionally `ground` and `scene`), no
/// `crank`, `legs`, `bones`, `root` or `clips`; loaded as the bone tree it
/// lowers into ([`lowered`]).
fn validate_chains(
    file: &RigFile,
    view_box: [f64; 4],
    period_s: f64,
    keys: Option<usize>,
    tolerance_px: Option<f64>,
) -> Result<Rig, RigError> {
    let tree = lowered(file, period_s)?;
    validate_figure(&tree.file, view_box, period_s, keys, tolerance_px)
        .map_err(|e| tree.explain(e, false))
}

/// The bone tree of a chain rig (module `lower`), after checking it as a
/// chain file: an error names the user's own JSON path
/// (`ik_chains[1].thigh`); an error the tree's validation then finds in
/// what the lowering made of the chains (a target moved by a depth offset
/// past ±[`MAX_COORD`]) names the chain's fields too
/// ([`lower::Lowered::explain`]).
fn lowered(file: &RigFile, period_s: f64) -> Result<lower::Lowered, RigError> {
    for (set, path) in [
        (file.crank.is_some(), "crank"),
        (!file.legs.is_empty(), "legs"),
        (file.root.is_some(), "root"),
        (!file.clips.is_empty(), "clips"),
        (!file.chains.is_empty(), "chains"),
        (!file.ik.is_empty(), "ik"),
        (!file.springs.is_empty(), "springs"),
        (file.torso.is_some(), "torso"),
        (file.style.is_some(), "style"),
    ] {
        if set {
            return Err(invalid(path, "cannot be combined with `ik_chains`"));
        }
    }
    let (chains, _) = crate::chain::validate(&file.ik_chains, file.ground.as_ref(), period_s)?;
    crate::figure::scene::validate(&file.scene, &[], &[])?;
    Ok(lower::as_bones(file, &chains))
}

/// The pedal target runs on a circle (centre `crank.center + pedal_offset`,
/// radius `crank.radius`), so its distance from the hip ranges exactly over
/// `[|D − r|, D + r]` with D the hip-to-centre distance: the far end at crank
/// angle `atan2(c − hip)`, the near end opposite. Both are checked against the
/// two-bone annulus `[|thigh − shin|, thigh + shin]`; a target on the hip itself
/// (distance 0) has no defined direction and is rejected too.
fn check_reach(path: &str, leg: &Leg, crank: &Crank) -> Result<(), RigError> {
    const EPS: f64 = 1e-9;
    let c = crank.center + leg.pedal_offset;
    let to_c = c - leg.hip;
    let d_c = to_c.len();
    let r = crank.radius;
    let toward = if d_c > 0.0 { to_c.angle_rad() } else { 0.0 };
    let deg = |a: f64| a.to_degrees().rem_euclid(360.0);
    let (lo, hi) = ((leg.thigh - leg.shin).abs(), leg.thigh + leg.shin);
    let far = d_c + r;
    if far > hi + EPS {
        return Err(RigError::Unreachable {
            path: path.into(),
            leg: leg.name.to_string(),
            crank_deg: deg(toward),
            dist: far,
            why: "more than thigh + shin",
            by: far - hi,
        });
    }
    let near = (d_c - r).abs();
    if near < lo - EPS || near < EPS {
        return Err(RigError::Unreachable {
            path: path.into(),
            leg: leg.name.to_string(),
            crank_deg: deg(toward + TAU / 2.0),
            dist: near,
            why: if near < EPS && lo < EPS {
                "zero (the pedal passes through the hip)"
            } else {
                "less than |thigh - shin|"
            },
            by: (lo - near).max(0.0),
        });
    }
    Ok(())
}

/// Rig texts shared by unit tests across modules.
#[cfg(test)]
pub(crate) mod tests_support {
    /// `rigs/seed-nested.json` as the design source gives it.
    pub(crate) const SEED: &str = r#"{
      "name": "seed-nested", "view_box": [0, 0, 800, 600], "period_s": 1.2, "keys": 10,
      "crank": { "center": [420, 420], "radius": 50, "start_deg": 0, "direction": "cw" },
      "legs": [
        { "name": "near", "hip": [352, 255], "thigh": 128, "shin": 112,
          "pedal_offset": [0, 0], "knee": "forward", "phase_deg": 0 },
        { "name": "far",  "hip": [352, 255], "thigh": 128, "shin": 112,
          "pedal_offset": [0, 0], "knee": "forward", "phase_deg": 180, "depth_offset": [-6, -7] }
      ]}"#;
}

#[cfg(test)]
mod tests {
    use super::tests_support::SEED;
    use super::*;

    fn with(edit: impl FnOnce(&mut serde_json::Value)) -> String {
        let mut v: serde_json::Value = serde_json::from_str(SEED).unwrap();
        edit(&mut v);
        v.to_string()
    }

    #[test]
    fn periods_snap_to_whole_milliseconds_with_a_note() {
        let rig = load(&with(|v| v["period_s"] = serde_json::json!(0.666667))).unwrap();
        assert_eq!(rig.period_s, 0.667);
        assert_eq!(rig.notes.len(), 1, "{:?}", rig.notes);
        assert!(rig.notes[0].contains("period_s 0.666667 s is baked as 0.667 s"));
        for p in [1.2, 0.001, 4.567, 60.0] {
            let rig = load(&with(|v| v["period_s"] = serde_json::json!(p))).unwrap();
            assert_eq!(rig.period_s, p);
            assert!(rig.notes.is_empty(), "{p}: {:?}", rig.notes);
        }
    }

    /// Values that read like another unit are noted, not refused: a period
    /// over a minute (milliseconds typed as seconds), at the top level or
    /// in a clip, and angles that are all under 3.2° (radians typed as
    /// degrees); none of the example rigs' values are.
    #[test]
    fn numbers_in_another_unit_than_the_formats_are_noted() {
        let rig = load(&with(|v| v["period_s"] = serde_json::json!(3600))).unwrap();
        assert_eq!(rig.period_s, 3600.0);
        assert_eq!(
            rig.notes,
            ["period_s 3600 s is 60 min: periods are seconds (1.2 for 1200 ms)"]
        );
        let text = r#"{"name": "wave", "view_box": [0, 0, 200, 200], "period_s": 1,
          "bones": [{"name": "arm", "at": [100, 100], "length": 40, "angle": {"const_deg": 1.2}},
                    {"name": "fore", "parent": "arm", "at": "tip", "length": 30,
                     "angle": {"sine": {"amp_deg": 0.5, "harmonic": 1, "offset_deg": -1.57}}}],
          "clips": [{"name": "idle", "period_s": 1200, "angles": {"arm": {"const_deg": 0.3}}}]}"#;
        let rig = load(text).unwrap();
        assert_eq!(rig.notes.len(), 2, "{:?}", rig.notes);
        assert!(
            rig.notes[0].starts_with("every angle of this rig"),
            "{}",
            rig.notes[0]
        );
        assert!(
            rig.notes[0].contains("the largest 1.57°"),
            "{}",
            rig.notes[0]
        );
        assert!(rig.notes[1].starts_with("clips[0].period_s 1200 s is 20 min"));
        // one small angle, or small angles beside a large one, are degrees
        for edit in [r#""offset_deg": -1.57"#, r#""amp_deg": 0.5"#] {
            let t = text.replace(edit, &edit.replace("-1.57", "-45").replace("0.5", "30"));
            let t = t.replace(r#""const_deg": 0.3"#, r#""const_deg": 0"#);
            assert!(
                load(&t)
                    .unwrap()
                    .notes
                    .iter()
                    .all(|n| !n.starts_with("every angle"))
            );
        }
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rigs");
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rig = load(&std::fs::read_to_string(&p).unwrap()).unwrap();
            assert!(
                rig.notes
                    .iter()
                    .all(|n| !n.contains("min: periods") && !n.starts_with("every angle")),
                "{}: {:?}",
                p.display(),
                rig.notes
            );
        }
    }

    #[test]
    fn clip_periods_snap_like_the_top_level_one() {
        let text = r#"{"name": "wave", "view_box": [0, 0, 200, 200], "period_s": 1,
          "bones": [{"name": "arm", "at": [100, 100], "length": 40, "angle": {"const_deg": 0}}],
          "clips": [{"name": "idle", "period_s": 0.4938271, "angles": {"arm": {"const_deg": 10}}}]}"#;
        let rig = load(text).unwrap();
        let fig = &rig.figure;
        assert_eq!(fig.clips[0].period_s, 0.494);
        assert_eq!(rig.notes.len(), 1, "{:?}", rig.notes);
        assert!(rig.notes[0].starts_with("clips[0].period_s 0.4938271 s is baked as 0.494 s"));
    }

    #[test]
    fn seed_rig_validates_with_defaults() {
        let rig = load(SEED).unwrap();
        assert_eq!(rig.keys, Some(10));
        // the rig loads as its bone tree: the far side's hip carries the
        // leg's depth offset, and each leg is an `ik` entry of its name
        let fig = &rig.figure;
        let hip = fig.bones.iter().find(|b| b.name == "far_hip").unwrap();
        assert_eq!(hip.depth_offset, Vec2::new(-6.0, -7.0));
        let names: Vec<_> = fig.ik.iter().map(|k| k.name.as_deref()).collect();
        assert_eq!(names, [Some("near"), Some("far")]);
        assert!(
            fig.ik
                .iter()
                .all(|k| k.reach == crate::chain::ChainReach::Error)
        );
    }

    #[test]
    fn unknown_field_names_its_path() {
        let text = with(|v| v["legs"][1]["thigh_len"] = 3.into());
        let err = load(&text).unwrap_err().to_string();
        assert!(err.starts_with("legs[1]"), "{err}");
        assert!(err.contains("unknown field `thigh_len`"), "{err}");
    }

    #[test]
    fn negative_length_names_path_and_value() {
        let text = with(|v| v["legs"][1]["thigh"] = (-3).into());
        assert_eq!(
            load(&text).unwrap_err().to_string(),
            "legs[1].thigh: must be at least 0.01 (lengths are written to 0.01), got -3"
        );
    }

    #[test]
    fn unreachable_names_leg_angle_and_gap() {
        let text = with(|v| v["legs"][0]["shin"] = 60.into());
        let err = load(&text).unwrap_err();
        match &err {
            RigError::Unreachable {
                leg, crank_deg, by, ..
            } => {
                assert_eq!(leg, "near");
                // farthest pedal point lies along hip→centre: atan2(165, 68) ≈ 67.6°
                assert!((crank_deg - 67.6).abs() < 0.1, "{crank_deg}");
                let d = (68f64.hypot(165.0)) + 50.0;
                assert!((by - (d - 188.0)).abs() < 1e-9);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn figure_and_chain_names_exclude_hyphens_and_reserved_words() {
        assert!(check_name("n", "uarm_f").is_ok());
        // clip "a" + bone "b-c" and clip "a-b" + bone "c" would both be rb-a-b-c
        assert!(check_name("n", "b-c").is_err());
        for w in ["bone", "joint", "squash", "s0", "s12"] {
            let e = check_name("bones[1].name", w).unwrap_err().to_string();
            assert!(e.starts_with("bones[1].name: "), "{e}");
        }
        assert!(check_name("n", "spine").is_ok());
    }

    fn json_err(text: &str) -> String {
        parse(text).unwrap_err().to_string()
    }

    #[test]
    fn text_after_the_rig_is_an_error_at_its_position() {
        let one = with(|_| {});
        assert!(parse(&format!("{one}\n \t\r\n")).is_ok());
        for (tail, at) in [
            ("x", "(line 1, column"),
            ("\n{}", "(line 2, column 1)"),
            ("\n\n  ]", "(line 3, column 3)"),
            (&*one, "(line 1, column"),
        ] {
            let e = json_err(&format!("{one}{tail}"));
            assert!(
                e.starts_with("(root): trailing characters after the rig"),
                "{e}"
            );
            assert!(e.contains(at), "{tail:?}: {e}");
        }
    }

    #[test]
    fn a_byte_order_mark_is_skipped_and_an_empty_file_named() {
        assert!(load(&format!("\u{feff}{SEED}")).is_ok());
        for empty in ["", "  \n", "\u{feff}"] {
            assert!(json_err(empty).starts_with("(root): the file is empty"));
        }
    }

    #[test]
    fn end_of_file_only_when_the_text_ended() {
        let cut = &SEED[..SEED.find("\"period_s\"").unwrap()];
        assert!(
            json_err(cut).starts_with("(end of file): "),
            "{}",
            json_err(cut)
        );
        // a syntax error while reading a key, at the top level and deeper
        let e = json_err(r#"{"name": "x" "view_box": [0, 0, 1, 1]}"#);
        assert!(e.starts_with("(root): expected `,` or `}`"), "{e}");
        let e = json_err(r#"{"crank": {"radius": 1 "center": [0, 0]}}"#);
        assert!(e.starts_with("crank: expected `,` or `}`"), "{e}");
    }

    #[test]
    fn a_fixed_length_array_with_more_entries_says_how_many() {
        let e = load(&with(|v| {
            v["view_box"] = serde_json::json!([0, 0, 8, 6, 5, 4])
        }))
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("view_box: expected 4 numbers, got 6 (line 1"),
            "{e}"
        );
        let e = load(&with(|v| {
            v["legs"][1]["hip"] = serde_json::json!([1, 2, 3])
        }))
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("legs[1].hip: expected 2 numbers, got 3"),
            "{e}"
        );
        // spread over lines, and a missing comma is a syntax error, not an extra entry
        let text = SEED.replace("[0, 0, 800, 600]", "[0,\n 0,\n 800,\n 600,\n 7]");
        assert!(
            json_err(&text).starts_with("view_box: expected 4 numbers, got 5 (line 6, column 2)"),
            "{}",
            json_err(&text)
        );
        let text = SEED.replace("[0, 0, 800, 600]", "[0, 0, 800, 600 7]");
        assert!(
            json_err(&text).starts_with("view_box: expected `,` or `]`"),
            "{}",
            json_err(&text)
        );
    }

    #[test]
    fn messages_escape_control_characters_from_the_input() {
        for bad in [
            "a\nb",
            "\u{1b}[2J",
            "\r",
            "\t",
            "\u{7f}",
            "\u{2028}",
            "\u{202e}",
        ] {
            for text in [
                with(|v| v[bad] = 1.into()),
                with(|v| v["crank"]["direction"] = bad.into()),
                with(|v| v["legs"][0]["name"] = bad.into()),
                with(|v| v["name"] = bad.into()),
            ] {
                let e = load(&text).unwrap_err().to_string();
                assert!(
                    !e.chars()
                        .any(|c| c.is_control() || ('\u{2028}'..='\u{202e}').contains(&c)),
                    "{e:?}"
                );
            }
        }
    }

    #[test]
    fn clamp_opts_out_of_reach_check() {
        let text = with(|v| {
            v["legs"][0]["shin"] = 60.into();
            v["legs"][0]["reach"] = "clamp".into();
        });
        assert!(load(&text).is_ok());
    }
}
