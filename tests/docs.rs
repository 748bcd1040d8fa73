//! The documentation: README.md stays short, every relative link in
//! README.md and docs/*.md resolves (files and `#anchors`), and
//! `docs/rig-format.md` is the rig-format reference generated from the JSON
//! Schema that `rigbake schema` prints. What the docs quote of the tool is
//! what it prints now: bake summaries, `check` outputs (text, JSON,
//! JUnit), the README's table of errors and the byte counts and maxima of
//! the docs' tables of rigs, each from the command the doc names.
//!
//! Regenerate the reference with:
//!
//! ```text
//! RIGBAKE_BLESS=1 cargo test --test docs
//! ```

mod common;

use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

/// README.md's size limit, bytes.
const README_MAX_BYTES: u64 = 10_240;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn bless() -> bool {
    std::env::var_os("RIGBAKE_BLESS").is_some_and(|v| v == "1")
}

// ---------------------------------------------------------------------------
// Size

#[test]
fn readme_is_at_most_10_kib() {
    let len = fs::metadata(root().join("README.md")).unwrap().len();
    assert!(
        len <= README_MAX_BYTES,
        "README.md is {len} bytes, over {README_MAX_BYTES}: move detail into docs/"
    );
}

// ---------------------------------------------------------------------------
// Links

/// README.md and every Markdown file under docs/.
fn doc_files() -> Vec<PathBuf> {
    let mut v = vec![root().join("README.md")];
    let mut docs: Vec<PathBuf> = fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    v.extend(docs);
    v
}

/// Text outside fenced code blocks, line by line (code blocks hold JSON and
/// shell, whose brackets are no links).
fn prose_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            out.push(line);
        }
    }
    out
}

/// Inline link targets `[text](target)` in prose, skipping code spans.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in prose_lines(text) {
        // drop code spans so `[x, y](…)`-like text in code is not a link
        let mut plain = String::new();
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                plain.push(c);
            }
        }
        let b = plain.as_bytes();
        let mut i = 0;
        while let Some(off) = plain[i..].find("](") {
            let start = i + off + 2;
            let mut depth = 0usize;
            let mut end = start;
            while end < b.len() {
                match b[end] {
                    b'(' => depth += 1,
                    b')' if depth == 0 => break,
                    b')' => depth -= 1,
                    _ => {}
                }
                end += 1;
            }
            let target = plain[start..end].trim();
            let target = target.split_whitespace().next().unwrap_or("");
            out.push(target.to_string());
            i = end.min(b.len());
            if i >= b.len() {
                break;
            }
        }
    }
    out
}

/// GitHub's anchor for a heading: lower case, punctuation other than `-`
/// and `_` dropped, spaces to `-`; repeated headings get `-1`, `-2`, ….
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for line in prose_lines(text) {
        let t = line.trim_start();
        if !t.starts_with('#') {
            continue;
        }
        let heading = t.trim_start_matches('#');
        if !heading.starts_with(' ') {
            continue;
        }
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                '-' | '_' => Some(c),
                c if c.is_alphanumeric() => Some(c),
                _ => None,
            })
            .collect();
        let n = seen.entry(slug.clone()).or_insert(0);
        let anchor = if *n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        };
        *n += 1;
        out.insert(anchor);
    }
    out
}

#[test]
fn relative_links_and_anchors_resolve() {
    let mut bad = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = fs::read_to_string(&file).unwrap();
        let dir = file.parent().unwrap();
        let name = file.strip_prefix(root()).unwrap().display().to_string();
        for target in link_targets(&text) {
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match target.split_once('#') {
                Some((p, a)) => (p, Some(a)),
                None => (target.as_str(), None),
            };
            let resolved = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            if !resolved.exists() {
                bad.push(format!("{name}: {target}: no such file"));
                continue;
            }
            if let Some(anchor) = anchor {
                let ok = resolved.extension().is_some_and(|e| e == "md")
                    && anchors(&fs::read_to_string(&resolved).unwrap()).contains(anchor);
                if !ok {
                    bad.push(format!("{name}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(
        checked > 10,
        "only {checked} links found: is the parser broken?"
    );
    assert!(bad.is_empty(), "broken links:\n{}", bad.join("\n"));
}

// ---------------------------------------------------------------------------
// Command line reference

/// Whether `text` names `flag` as a whole word (`--max-error`, not the
/// start of `--max-error-px`).
fn names_flag(text: &str, flag: &str) -> bool {
    text.match_indices(flag).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + flag.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '-')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '-')
    })
}

/// Every option `rigbake <command> -h` lists is named in that command's
/// section of docs/cli.md (`## rigbake <command>`, up to the next `## `).
#[test]
fn cli_md_names_every_option_of_every_command() {
    let rigbake = || assert_cmd::Command::cargo_bin("rigbake").unwrap();
    let commands = common::subcommands();
    assert!(commands.len() >= 9, "{commands:?}");
    let docs = fs::read_to_string(root().join("docs/cli.md")).unwrap();
    let mut missing = Vec::new();
    let mut checked = 0;
    for cmd in commands {
        let heading = format!("## rigbake {cmd}\n");
        let Some(start) = docs.find(&heading) else {
            missing.push(format!("no section `## rigbake {cmd}`"));
            continue;
        };
        let body = &docs[start + heading.len()..];
        let section = &body[..body.find("\n## ").unwrap_or(body.len())];
        let help = rigbake().args([cmd.as_str(), "-h"]).output().unwrap();
        let help = String::from_utf8(help.stdout).unwrap();
        for line in help.lines().map(str::trim_start) {
            let Some(flag) = line
                .split_whitespace()
                .find(|w| w.starts_with("--"))
                .filter(|_| line.starts_with('-'))
            else {
                continue;
            };
            if flag == "--help" {
                continue;
            }
            checked += 1;
            if !names_flag(section, flag) {
                missing.push(format!("rigbake {cmd}: {flag}"));
            }
        }
    }
    assert!(checked >= 25, "only {checked} options read from the help");
    assert!(
        missing.is_empty(),
        "options missing from docs/cli.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn names_flag_finds_whole_flags_only() {
    assert!(names_flag("`--max-error PX`", "--max-error"));
    assert!(names_flag("[--keys N | --tolerance PX]", "--tolerance"));
    assert!(!names_flag("`--max-error-px`", "--max-error"));
    assert!(!names_flag("`--keys`", "--key"));
}

#[test]
fn link_parser_finds_links_and_anchors() {
    let md = "# A title\n\nSee [x](docs/a.md#b-c) and `[no](link)`.\n```\n[no](x)\n```\n## B `c`\n## B c\n";
    assert_eq!(link_targets(md), vec!["docs/a.md#b-c".to_string()]);
    let a = anchors(md);
    assert!(
        a.contains("a-title") && a.contains("b-c") && a.contains("b-c-1"),
        "{a:?}"
    );
}

// ---------------------------------------------------------------------------
// The rig-format reference

const REFERENCE: &str = "docs/rig-format.md";

#[test]
fn rig_format_reference_is_fresh() {
    let want = rig_format_markdown(&rigbake::schema::rig_schema());
    let path = root().join(REFERENCE);
    if bless() {
        fs::write(&path, &want).unwrap();
    }
    let have = fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "{REFERENCE} is stale (the rig schema changed): regenerate it with \
         `RIGBAKE_BLESS=1 cargo test --test docs`"
    );
}

#[test]
fn rig_format_reference_names_every_field_and_enum_value() {
    let schema = rigbake::schema::rig_schema();
    let text = rig_format_markdown(&schema);
    let mut objects: Vec<&Value> = vec![&schema];
    objects.extend(schema["definitions"].as_object().unwrap().values());
    for obj in objects {
        for field in obj["properties"].as_object().into_iter().flatten() {
            assert!(
                text.contains(&format!("`{}`", field.0)),
                "field {}",
                field.0
            );
        }
        for v in obj["oneOf"].as_array().into_iter().flatten() {
            if let Some(c) = v["const"].as_str() {
                assert!(text.contains(&format!("`\"{c}\"`")), "value {c}");
            }
        }
    }
}

/// Definitions in the order a reader meets them: breadth first from the
/// top-level fields, then any not reached.
fn definition_order(schema: &Value) -> Vec<String> {
    fn refs(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    out.push(r.trim_start_matches("#/definitions/").to_string());
                }
                // properties in name order, as serde_json keeps them
                for (k, x) in m {
                    if k != "definitions" {
                        refs(x, out);
                    }
                }
            }
            Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
            _ => {}
        }
    }
    let defs = schema["definitions"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let mut order = Vec::new();
    let mut seen = BTreeSet::new();
    let mut queue = VecDeque::new();
    let mut first = Vec::new();
    refs(&schema["properties"], &mut first);
    queue.extend(first);
    while let Some(name) = queue.pop_front() {
        if !defs.contains_key(&name) || !seen.insert(name.clone()) {
            continue;
        }
        let mut next = Vec::new();
        refs(&defs[&name], &mut next);
        queue.extend(next);
        order.push(name);
    }
    for name in defs.keys() {
        if seen.insert(name.clone()) {
            order.push(name.clone());
        }
    }
    order
}

/// The heading a definition gets: its type name without the `File` suffix.
fn title(def: &str) -> &str {
    def.strip_suffix("File").unwrap_or(def)
}

fn anchor_of(def: &str) -> String {
    title(def).to_lowercase()
}

/// One line of prose from a description (tables take no line breaks);
/// rustdoc's intra-doc links (`` [`NAME`] ``) become plain code spans.
fn one_line(s: &str) -> String {
    let mut text = s.split_whitespace().collect::<Vec<_>>().join(" ");
    while let Some(start) = text.find("[`") {
        let Some(len) = text[start..].find("`]") else {
            break;
        };
        let end = start + len;
        let inner = text[start + 1..end + 1].to_string();
        text.replace_range(start..end + 2, &inner);
    }
    text.replace('|', "\\|")
}

fn description(v: &Value) -> String {
    v["description"].as_str().map(one_line).unwrap_or_default()
}

fn ref_name(v: &Value) -> Option<&str> {
    v["$ref"]
        .as_str()
        .map(|r| r.trim_start_matches("#/definitions/"))
}

/// The schema of `v` without an `Option`'s `null` branch or a lone `allOf`.
fn unwrap_optional(v: &Value) -> &Value {
    if let Some(all) = v["allOf"].as_array()
        && all.len() == 1
    {
        return unwrap_optional(&all[0]);
    }
    if let Some(any) = v["anyOf"].as_array() {
        let non_null: Vec<&Value> = any.iter().filter(|x| x["type"] != "null").collect();
        if non_null.len() == 1 && any.len() == 2 {
            return unwrap_optional(non_null[0]);
        }
    }
    v
}

fn json_inline(v: &Value) -> String {
    /// `1.0` reads better as `1`.
    fn whole(v: &Value) -> Value {
        match v {
            Value::Number(n) => match n.as_f64() {
                Some(f) if f.fract() == 0.0 && f.abs() < 1e15 => Value::from(f as i64),
                _ => v.clone(),
            },
            Value::Array(a) => Value::Array(a.iter().map(whole).collect()),
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, x)| (k.clone(), whole(x))).collect())
            }
            _ => v.clone(),
        }
    }
    let s = serde_json::to_string(&whole(v)).unwrap();
    format!("`{}`", s.replace('|', "\\|"))
}

/// The type of a field, as Markdown (definitions linked).
fn type_of(v: &Value) -> String {
    let v = unwrap_optional(v);
    if let Some(name) = ref_name(v) {
        return format!("[{}](#{})", title(name), anchor_of(name));
    }
    if let Some(c) = v.get("const") {
        return json_inline(c);
    }
    if let Some(e) = v["enum"].as_array() {
        return e.iter().map(json_inline).collect::<Vec<_>>().join(" \\| ");
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(alts) = v[key].as_array() {
            return alts
                .iter()
                .filter(|x| x["type"] != "null")
                .map(type_of)
                .collect::<Vec<_>>()
                .join(" or ");
        }
    }
    let types: Vec<&str> = match &v["type"] {
        Value::String(s) => vec![s.as_str()],
        Value::Array(a) => a
            .iter()
            .filter_map(Value::as_str)
            .filter(|t| *t != "null")
            .collect(),
        _ => vec![],
    };
    match types.as_slice() {
        ["array"] => {
            let items = &v["items"];
            // a tuple (draft 07: `items` is one schema per position)
            if let Some(each) = items.as_array() {
                let ts: Vec<String> = each.iter().map(type_of).collect();
                return format!("[{}]", ts.join(", "));
            }
            let (min, max) = (v["minItems"].as_u64(), v["maxItems"].as_u64());
            if let (Some(a), Some(b)) = (min, max)
                && a == b
                && a <= 4
            {
                let t = type_of(items);
                return format!("[{}]", vec![t; a as usize].join(", "));
            }
            if items == &Value::Bool(true) || items.is_null() {
                return "array".into();
            }
            format!("array of {}", type_of(items))
        }
        ["integer"] => "integer".into(),
        ["number"] => "number".into(),
        ["string"] => "string".into(),
        ["boolean"] => "boolean".into(),
        ["object"] => match v.get("additionalProperties") {
            Some(values) if values.is_object() => {
                format!("object: name → {}", type_of(values))
            }
            _ => "object".into(),
        },
        [] => "any JSON (see the description)".into(),
        many => many.join(" or "),
    }
}

/// Default and range notes of a field.
fn constraints(v: &Value, required: bool) -> String {
    let mut parts = Vec::new();
    if required {
        parts.push("required".to_string());
    } else if let Some(d) = v.get("default").filter(|d| !d.is_null()) {
        parts.push(format!("default {}", json_inline(d)));
    } else {
        parts.push("optional".to_string());
    }
    let inner = unwrap_optional(v);
    for (key, word) in [
        ("minimum", "≥"),
        ("exclusiveMinimum", ">"),
        ("maximum", "≤"),
        ("exclusiveMaximum", "<"),
    ] {
        if let Some(n) = inner.get(key) {
            parts.push(format!("{word} {n}"));
        }
    }
    if inner["type"] == "array" && inner["minItems"] != inner["maxItems"] {
        if let Some(n) = inner["minItems"].as_u64() {
            parts.push(format!("at least {n} entries"));
        }
        if let Some(n) = inner["maxItems"].as_u64() {
            parts.push(format!("at most {n} entries"));
        }
    }
    parts.join(", ")
}

fn field_table(out: &mut String, obj: &Value) {
    let props: &Map<String, Value> = match obj["properties"].as_object() {
        Some(p) => p,
        None => return,
    };
    let required: BTreeSet<&str> = obj["required"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    out.push_str("| field | type | required / default | description |\n|---|---|---|---|\n");
    for (name, v) in props {
        out.push_str(&format!(
            "| `{name}` | {} | {} | {} |\n",
            type_of(v),
            constraints(v, required.contains(name.as_str())),
            description(v)
        ));
    }
    out.push('\n');
}

/// A definition that is a choice: enum values, tagged objects or shapes.
fn alternatives(out: &mut String, alts: &[Value]) {
    if alts.iter().all(|a| a.get("const").is_some()) {
        out.push_str("| value | meaning |\n|---|---|\n");
        for a in alts {
            out.push_str(&format!(
                "| {} | {} |\n",
                json_inline(&a["const"]),
                description(a)
            ));
        }
        out.push('\n');
        return;
    }
    out.push_str("One of:\n\n");
    for a in alts {
        let props = a["properties"].as_object();
        let line = match props {
            Some(p) if p.len() == 1 && a["type"] == "object" => {
                let (k, v) = p.iter().next().unwrap();
                format!("an object `{{\"{k}\": …}}` holding {}", type_of(v))
            }
            _ => type_of(a),
        };
        let d = description(a);
        if d.is_empty() {
            out.push_str(&format!("- {line}\n"));
        } else {
            out.push_str(&format!("- {line}: {d}\n"));
        }
    }
    out.push('\n');
}

/// `docs/rig-format.md`: every section, field, type, description, enum
/// value, default and range the schema holds.
fn rig_format_markdown(schema: &Value) -> String {
    let mut out = String::new();
    out.push_str(
        "# Rig format reference\n\n\
         <!-- Generated from the JSON Schema printed by `rigbake schema`; do not edit.\n     \
         Regenerate: RIGBAKE_BLESS=1 cargo test --test docs -->\n\n\
         Generated from the JSON Schema that `rigbake schema` prints (the repository keeps a \
         copy in [`schema/rig.schema.json`](../schema/rig.schema.json)); regenerate this page \
         with `RIGBAKE_BLESS=1 cargo test --test docs`. The schema gives the shape of a rig \
         file: field names, types, enum values and defaults. Unknown fields are errors. Value \
         rules (lengths at least 0.01, as they are written to 0.01; unique names, reachable targets, coordinate bounds) are checked \
         by `rigbake` itself and reported as one error line naming the field. What each \
         trajectory (`ik_chains`, `root.move`, `ik[].target`, a clip's `ik`) does is described \
         in [the walker guide](walker.md) and \
         [how it works](how-it-works.md#trajectories).\n\n",
    );
    if let Some(d) = schema["description"].as_str() {
        out.push_str(&one_line(d));
        out.push_str("\n\n");
    }
    let order = definition_order(schema);
    out.push_str("## Rig file\n\nThe top-level object.\n\n");
    field_table(&mut out, schema);
    out.push_str("Types used above, in the order they appear:\n\n");
    for name in &order {
        out.push_str(&format!("- [{}](#{})\n", title(name), anchor_of(name)));
    }
    out.push('\n');
    for name in &order {
        let def = &schema["definitions"][name];
        out.push_str(&format!("## {}\n\n", title(name)));
        let d = description(def);
        if !d.is_empty() {
            out.push_str(&d);
            out.push_str("\n\n");
        }
        if def["properties"].is_object() {
            field_table(&mut out, def);
        } else if let Some(alts) = def["oneOf"].as_array().or(def["anyOf"].as_array()) {
            alternatives(&mut out, alts);
        } else {
            out.push_str(&format!("Type: {}.\n\n", type_of(def)));
        }
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

// ---------------------------------------------------------------------------
// Examples in the guides

/// Fenced ```json blocks of a Markdown text.
fn json_blocks(text: &str) -> Vec<String> {
    fenced_blocks(text)
        .into_iter()
        .filter(|(info, _)| info.starts_with("json"))
        .map(|(_, lines)| lines.iter().map(|l| format!("{l}\n")).collect())
        .collect()
}

/// `rigbake bake` in a fresh directory: the exit code, stdout and stderr.
fn bake_in_tmp(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let tmp = tempfile::TempDir::new().unwrap();
    let out = assert_cmd::Command::cargo_bin("rigbake")
        .unwrap()
        .current_dir(tmp.path())
        .arg("bake")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every complete rig shown in the guides (a JSON object with a `name`
/// and a `view_box`) bakes on both routes; fragments are skipped.
#[test]
fn rigs_shown_in_the_docs_bake() {
    let tmp = tempfile::TempDir::new().unwrap();
    let mut baked = Vec::new();
    for file in doc_files() {
        let text = fs::read_to_string(&file).unwrap();
        for (i, block) in json_blocks(&text).into_iter().enumerate() {
            let Ok(v) = serde_json::from_str::<Value>(&block) else {
                continue;
            };
            if v.get("name").is_none() || v.get("view_box").is_none() {
                continue;
            }
            let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
            let path = tmp.path().join(format!("{stem}-{i}.json"));
            fs::write(&path, &block).unwrap();
            let (code, _, stderr) = bake_in_tmp(&[
                path.as_os_str(),
                "--route".as_ref(),
                "both".as_ref(),
                "-o".as_ref(),
                tmp.path().join("out").as_os_str(),
            ]);
            assert_eq!(code, Some(0), "{stem} block {i}: {stderr}");
            baked.push(format!("{stem}/{}", v["name"]));
        }
    }
    for want in ["walker/\"step1\"", "walker/\"step2\"", "walker/\"step3\""] {
        assert!(
            baked.iter().any(|b| b == want),
            "{want} not found in {baked:?}"
        );
    }
}

/// The drawing of the rider guide animates with the example rig, its knee
/// marker on the rig's knee, as the guide shows.
#[test]
fn rider_guide_example_bakes() {
    let rig = root().join("rigs/seed-nested.json");
    let art = root().join("docs/examples/rider.svg");
    let (code, stdout, stderr) = bake_in_tmp(&[
        rig.as_os_str(),
        "--art".as_ref(),
        art.as_os_str(),
        "-o".as_ref(),
        "rider.svg".as_ref(),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    // the guide's figures: the default bake's summary and leg lines, as
    // printed now
    let guide = fs::read_to_string(root().join("docs/draw-your-rider.md")).unwrap();
    let quoted: Vec<&str> = guide
        .lines()
        .filter(|l| {
            l.starts_with("seed-nested (css,") || l.contains(" keys ") && l.contains(" max ")
        })
        .collect();
    assert!(quoted.len() >= 3, "{quoted:?}");
    for line in quoted {
        assert!(
            stdout.lines().any(|l| l == line),
            "{line:?} not in\n{stdout}"
        );
    }
    assert!(
        stderr.contains("art: joint-knee-near is 0 px")
            || stdout.contains("art: joint-knee-near is 0 px"),
        "{stdout}{stderr}"
    );
    let guide = fs::read_to_string(root().join("docs/draw-your-rider.md")).unwrap();
    assert!(guide.contains("--art docs/examples/rider.svg"));
}

/// The README's examples table quotes each rig's largest css-route error
/// from `rigbake check rigs/*.json --max-error 4 --format json`
/// (`results[].max_error_px`, shown to 3 decimals); every row must match
/// what that command reports now, and every rig in `rigs/` has a row.
#[test]
fn readme_examples_figures_are_what_check_reports() {
    let readme = fs::read_to_string(root().join("README.md")).unwrap();
    let mut quoted = BTreeMap::new();
    for line in readme.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | `name` | what | 1.234 px |
        if cells.len() == 5
            && cells[1].starts_with('`')
            && let Some(px) = cells[3].strip_suffix(" px")
        {
            quoted.insert(cells[1].trim_matches('`').to_string(), px.to_string());
        }
    }
    let mut rigs: Vec<PathBuf> = fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    rigs.sort();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_rigbake"))
        .current_dir(root())
        .arg("check")
        .args(&rigs)
        .args(["--max-error", "4", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut measured = BTreeMap::new();
    for r in v["results"].as_array().unwrap() {
        if r["route"] == "css" {
            let px = r["max_error_px"].as_f64().unwrap();
            measured.insert(r["rig"].as_str().unwrap().to_string(), format!("{px:.3}"));
        }
    }
    assert_eq!(measured.len(), rigs.len());
    assert_eq!(
        quoted, measured,
        "README examples table (left) vs `rigbake check rigs/*.json --max-error 4 --format json` (right)"
    );
}

/// The scoped names the web page guide shows as examples are the ones the
/// files in `out/` carry (a change of the prefix scheme or of those files
/// shows here): every `` `<prefix>-b-near_thigh` `` and
/// `` `@keyframes <prefix>-far_crank` `` is seed-nested's, every
/// `class="<prefix>-clip-jump"` jump's.
#[test]
fn web_page_guide_names_the_prefixes_out_carries() {
    let guide = fs::read_to_string(root().join("docs/web-page.md")).unwrap();
    // each `open<prefix>close` of the guide: the prefix
    let quoted = |open: &str, close: &str| -> Vec<String> {
        guide
            .match_indices(close)
            .filter_map(|(i, _)| {
                let before = &guide[..i];
                before
                    .rfind(open)
                    .map(|j| before[j + open.len()..].to_string())
            })
            .filter(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric()))
            .collect()
    };
    let seed = fs::read_to_string(root().join("out/seed-nested.svg")).unwrap();
    let jump = fs::read_to_string(root().join("out/jump.svg")).unwrap();
    let mut checked = 0;
    for p in quoted("`", "-b-near_thigh`") {
        assert!(
            seed.contains(&format!(".{p}-b-near_thigh")),
            "{p}-b-near_thigh"
        );
        checked += 1;
    }
    for p in quoted("`@keyframes ", "-turn`") {
        assert!(seed.contains(&format!("@keyframes {p}-turn{{")), "{p}-turn");
        checked += 1;
    }
    for p in quoted("`class=\"", "-clip-jump\"`") {
        assert!(
            jump.contains(&format!("class=\"{p}-clip-jump\"")),
            "{p}-clip-jump"
        );
        checked += 1;
    }
    assert!(
        checked >= 3,
        "the guide's examples were not found ({checked})"
    );
}

/// Every fenced block of the docs with its info string (`sh`, `text`,
/// `json`, …) and its lines, in order.
fn fenced_blocks(text: &str) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut cur: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        let t = line.trim_start();
        match &mut cur {
            None if t.starts_with("```") => cur = Some((t[3..].trim().to_string(), Vec::new())),
            Some(_) if t.starts_with("```") => out.extend(cur.take()),
            Some((_, lines)) => lines.push(line.to_string()),
            None => {}
        }
    }
    out
}

/// Every bake summary a doc quotes (a `text` block opening with
/// `<rig> (css, N bytes, period Ps)`) is what the `rigbake bake` command of
/// the `sh` block before it prints now, line for line (`…` stands for
/// lines left out). The rig is `rigs/<rig>.json` or, where the guide builds
/// it, the JSON block of that name in the same doc; outputs go to a
/// temporary directory.
#[test]
fn bake_summaries_quoted_in_the_docs_are_what_bake_prints() {
    let tmp = tempfile::TempDir::new().unwrap();
    let mut checked = Vec::new();
    for file in doc_files() {
        let text = fs::read_to_string(&file).unwrap();
        let doc = file.file_name().unwrap().to_string_lossy().into_owned();
        let blocks = fenced_blocks(&text);
        for (k, (info, lines)) in blocks.iter().enumerate() {
            let Some(first) = lines.first() else { continue };
            let is_summary = info == "text"
                && first.contains(" bytes, period ")
                && (first.contains(" (css, ") || first.contains(" (smil, "));
            if !is_summary {
                continue;
            }
            let rig_name = first.split(" (").next().unwrap().to_string();
            // the rig file
            let in_rigs = root().join(format!("rigs/{rig_name}.json"));
            let rig_path = if in_rigs.exists() {
                in_rigs
            } else {
                let block = json_blocks(&text)
                    .into_iter()
                    .rev()
                    .find(|b| {
                        serde_json::from_str::<Value>(b).is_ok_and(|v| {
                            v["name"] == rig_name.as_str() && v.get("view_box").is_some()
                        })
                    })
                    .unwrap_or_else(|| panic!("{doc}: no rig named {rig_name}"));
                let p = tmp.path().join(format!("{rig_name}.json"));
                fs::write(&p, block).unwrap();
                p
            };
            // the command: the first `rigbake bake` line naming the rig in
            // the nearest sh block before it that has one ("the first
            // command prints")
            let names_rig = |l: &&String| {
                l.trim_start().starts_with("rigbake bake ")
                    && l.contains(&format!("{rig_name}.json"))
            };
            let command = blocks[..k]
                .iter()
                .rev()
                .filter(|(info, _)| info == "sh")
                .find_map(|(_, l)| l.iter().find(names_rig))
                .unwrap_or_else(|| panic!("{doc}: no command before the {rig_name} summary"))
                .clone();
            let words: Vec<&str> = command
                .split('#')
                .next()
                .unwrap()
                .split_whitespace()
                .skip(2)
                .collect();
            let mut args: Vec<std::ffi::OsString> = Vec::new();
            let mut i = 0;
            while i < words.len() {
                let w = words[i];
                if w == "-o" {
                    args.push("-o".into());
                    args.push(tmp.path().join("out").join("").into_os_string());
                    i += 2;
                    continue;
                }
                if w.ends_with(&format!("{rig_name}.json")) {
                    args.push(rig_path.clone().into_os_string());
                } else if w.starts_with("docs/") || w.starts_with("rigs/") {
                    args.push(root().join(w).into_os_string());
                } else {
                    args.push(w.into());
                }
                i += 1;
            }
            // (in a temporary directory: a command without `-o` writes
            // there, not into the repository)
            let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
            let (code, stdout, stderr) = bake_in_tmp(&args);
            assert_eq!(code, Some(0), "{doc}: {command}: {stdout}{stderr}");
            let printed: Vec<&str> = stdout.lines().collect();
            let mut at = 0;
            for want in lines.iter().filter(|l| l.trim() != "…") {
                let found = printed[at..].iter().position(|l| l == want);
                assert!(
                    found.is_some(),
                    "{doc}: `{command}` no longer prints\n{want}\nit prints:\n{stdout}"
                );
                at += found.unwrap() + 1;
            }
            checked.push(format!("{doc}:{rig_name}"));
        }
    }
    // the quick start, the rider guide and the walker guide's steps
    for want in [
        "README.md:seed-nested",
        "draw-your-rider.md:seed-nested",
        "walker.md:step2",
        "walker.md:step3",
    ] {
        assert!(
            checked.iter().any(|c| c == want),
            "{want} not checked: {checked:?}"
        );
    }
}

/// docs/ci.md's walker-short example: the rig its `jq` recipe makes (the
/// walker's thighs and shins set to 30 px) checked at `--max-error 1`
/// prints the lines the guide quotes, stdout then stderr, each quoted line
/// in order (the guide leaves lines out with `…`).
#[test]
fn ci_guide_walker_short_example_is_what_check_prints() {
    let guide = fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let start = guide
        .find("$ rigbake check walker-short.json --max-error 1\n")
        .expect("the example");
    let block = &guide[start..start + guide[start..].find("```").unwrap()];
    let quoted: Vec<&str> = block.lines().skip(1).filter(|l| l.trim() != "…").collect();
    assert!(quoted.len() >= 6, "{block}");
    let mut v: Value =
        serde_json::from_str(&fs::read_to_string(root().join("rigs/walker.json")).unwrap())
            .unwrap();
    for b in v["bones"].as_array_mut().unwrap() {
        let name = b["name"].as_str().unwrap().to_owned();
        if name.starts_with("thigh_") || name.starts_with("shin_") {
            b["length"] = 30.into();
        }
    }
    let tmp = tempfile::TempDir::new().unwrap();
    fs::write(tmp.path().join("walker-short.json"), v.to_string()).unwrap();
    let out = assert_cmd::Command::cargo_bin("rigbake")
        .unwrap()
        .current_dir(tmp.path())
        .args(["check", "walker-short.json", "--max-error", "1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut lines = printed.lines();
    for q in quoted {
        assert!(
            lines.any(|l| l == q),
            "docs/ci.md quotes {q:?}, which `rigbake check walker-short.json --max-error 1` does not print in that order:\n{printed}"
        );
    }
}

/// Whether `real` is what `doc` quotes of it: objects with the same keys
/// and matching values, arrays whose items match in order where a `"…"`
/// item stands for any number left out, a string ending in `…` for any
/// string it begins, numbers equal as numbers. `Err` names the first
/// mismatch by its JSON path.
fn abridged_match(doc: &Value, real: &Value, path: &str) -> Result<(), String> {
    let differ = || {
        Err(format!(
            "{path}: the doc quotes {doc}, the output holds {real}"
        ))
    };
    match (doc, real) {
        (Value::String(d), Value::String(r)) => match d.strip_suffix('…') {
            Some(start) if r.starts_with(start) => Ok(()),
            _ if d == r => Ok(()),
            _ => differ(),
        },
        (Value::Number(d), Value::Number(r)) if d.as_f64() == r.as_f64() => Ok(()),
        (Value::Object(d), Value::Object(r)) => {
            let (dk, rk): (Vec<_>, Vec<_>) = (d.keys().collect(), r.keys().collect());
            if dk.iter().collect::<BTreeSet<_>>() != rk.iter().collect::<BTreeSet<_>>() {
                return Err(format!(
                    "{path}: the doc quotes the keys {dk:?}, the output {rk:?}"
                ));
            }
            d.iter()
                .try_for_each(|(k, v)| abridged_match(v, &r[k], &format!("{path}.{k}")))
        }
        (Value::Array(d), Value::Array(r)) => {
            // every way of matching the quoted items in order, "…" skipping
            // any run of the output's (a quoted array is a few items long)
            fn walk(d: &[Value], r: &[Value], path: &str, at: usize) -> Result<(), String> {
                match d.split_first() {
                    None if r.is_empty() => Ok(()),
                    None => Err(format!(
                        "{path}[{at}..]: {} items the doc leaves out without a \"…\"",
                        r.len()
                    )),
                    Some((Value::String(s), rest)) if s == "…" => {
                        let mut last = Err(format!("{path}: nothing after \"…\" matches"));
                        for skip in 0..=r.len() {
                            last = walk(rest, &r[skip..], path, at + skip);
                            if last.is_ok() {
                                break;
                            }
                        }
                        last
                    }
                    Some((first, rest)) => match r.split_first() {
                        None => Err(format!(
                            "{path}[{at}]: the doc quotes {first}, the output has no more items"
                        )),
                        Some((one, more)) => abridged_match(first, one, &format!("{path}[{at}]"))
                            .and_then(|()| walk(rest, more, path, at + 1)),
                    },
                }
            }
            walk(d, r, path, 0)
        }
        _ if doc == real => Ok(()),
        _ => differ(),
    }
}

#[test]
fn abridged_match_skips_only_what_the_doc_marks() {
    let real: Value = serde_json::json!({"a": [1, 2, 3, 4], "s": "keys: ten of them"});
    let ok = |doc: Value| abridged_match(&doc, &real, "$").is_ok();
    assert!(ok(serde_json::json!({"a": [1, "…", 4], "s": "keys: …"})));
    assert!(ok(
        serde_json::json!({"a": ["…"], "s": "keys: ten of them"})
    ));
    assert!(ok(serde_json::json!({"a": [1, 2, "…"], "s": "…"})));
    assert!(!ok(serde_json::json!({"a": [1, 3, "…"], "s": "keys: …"})));
    assert!(!ok(serde_json::json!({"a": [1, "…"], "s": "key: …"})));
    assert!(!ok(serde_json::json!({"a": [1, 2, 3], "s": "…"})));
    assert!(!ok(serde_json::json!({"a": ["…"]})));
    assert!(!ok(serde_json::json!({"a": ["…", 5], "s": "…"})));
}

/// Every output of `rigbake check` that docs/ci.md quotes is what the
/// command named in backquotes just before it prints now: a `text` block
/// of `rigbake:` lines its stderr, other `text` and `xml` blocks its stdout
/// (each quoted line in order, `…` for lines left out), a `json` block its
/// stdout by [`abridged_match`]. (A transcript opening with `$ ` has its
/// own test.)
#[test]
fn check_outputs_quoted_in_the_ci_guide_are_what_check_prints() {
    let guide = fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let mut prose = String::new();
    let mut block: Option<(String, Vec<&str>)> = None;
    let mut checked = Vec::new();
    for line in guide.lines() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut block, fence) {
            (None, Some(info)) => block = Some((info.trim().to_string(), Vec::new())),
            (None, None) => {
                prose.push(' ');
                prose.push_str(line);
            }
            (Some((_, lines)), None) => lines.push(line),
            (Some((info, lines)), Some(_)) => {
                let quoted = matches!(info.as_str(), "text" | "json" | "xml")
                    && lines.first().is_some_and(|l| !l.starts_with("$ "));
                let command = prose
                    .rfind("`rigbake check ")
                    .map(|i| &prose[i + 1..])
                    .and_then(|c| c.split('`').next());
                if let (true, Some(command)) = (quoted, command) {
                    let words: Vec<&str> = command.split_whitespace().collect();
                    let out = assert_cmd::Command::cargo_bin("rigbake")
                        .unwrap()
                        .current_dir(root())
                        .args(&words[1..])
                        .output()
                        .unwrap();
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    let stderr = String::from_utf8_lossy(&out.stderr);
                    if info == "json" {
                        let doc: Value = serde_json::from_str(&lines.join("\n")).unwrap();
                        let real: Value = serde_json::from_str(&stdout).unwrap();
                        if let Err(e) = abridged_match(&doc, &real, "$") {
                            panic!("docs/ci.md, `{command}`: {e}");
                        }
                    } else {
                        let printed = if lines[0].starts_with("rigbake: ") {
                            &stderr
                        } else {
                            &stdout
                        };
                        let mut printed_lines = printed.lines();
                        for q in lines.iter().filter(|l| l.trim() != "…") {
                            assert!(
                                printed_lines.any(|l| l == *q),
                                "docs/ci.md quotes {q:?}, which `{command}` does not print in that order:\n{printed}"
                            );
                        }
                    }
                    checked.push(format!("{info}: {command}"));
                }
                prose.clear();
                block = None;
            }
        }
    }
    for want in [
        "text: rigbake check rigs/seed-nested.json --keys 10 --max-error 1",
        "json: rigbake check rigs/cyclist-scarf.json --keys 10 --max-error 1 --format json",
        "xml: rigbake check rigs/seed-nested.json --route both --keys 10 --max-error 3 --format junit",
    ] {
        let want = want.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            checked
                .iter()
                .any(|c| c.split_whitespace().collect::<Vec<_>>().join(" ") == want),
            "{want} not checked: {checked:?}"
        );
    }
}

/// The Markdown tables of a text: each with the prose before it (since the
/// previous table or fenced block) and its rows of cells (header first,
/// the `|---|` line left out).
fn tables(text: &str) -> Vec<(String, Vec<Vec<String>>)> {
    let mut out = Vec::new();
    let (mut prose, mut rows, mut fenced) = (String::new(), Vec::<Vec<String>>::new(), false);
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") {
            fenced = !fenced;
            prose.clear();
            continue;
        }
        if !fenced && t.starts_with('|') {
            if !t.starts_with("|---") {
                let cells = t.trim_matches('|').split('|');
                rows.push(cells.map(|c| c.trim().to_string()).collect());
            }
            continue;
        }
        if !rows.is_empty() {
            out.push((std::mem::take(&mut prose), std::mem::take(&mut rows)));
        }
        if !fenced {
            prose.push(' ');
            prose.push_str(t);
        }
    }
    if !rows.is_empty() {
        out.push((prose, rows));
    }
    out
}

/// The whole numbers of a cell in order (thousands separators read).
fn whole_numbers(cell: &str, unit: &str) -> Vec<u64> {
    let cell = cell.replace(',', "");
    let mut out = Vec::new();
    let words: Vec<&str> = cell
        .split(|c: char| c.is_whitespace() || c == '/')
        .collect();
    for (i, w) in words.iter().enumerate() {
        let next = words[i + 1..].iter().find(|w| !w.is_empty());
        if let Ok(n) = w.parse::<u64>()
            && (unit.is_empty() || next == Some(&unit))
        {
            out.push(n);
        }
    }
    out
}

/// The decimals of a table cell quoted for each route: a header naming
/// `css / smil` splits the cell at its one `/` (css figures before it,
/// smil after) or, with more, each `, `-separated group `a / b` alike; a
/// header naming one route gives it every decimal of the cell.
fn route_decimals(header: &str, cell: &str) -> Vec<(&'static str, String)> {
    let decimals = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .filter(|w| w.contains('.') && w.trim_matches('.').len() == w.len())
            .map(str::to_string)
            .collect()
    };
    let mut out = Vec::new();
    if header.contains("css / smil") {
        let groups: Vec<&str> = if cell.matches(" / ").count() == 1 {
            vec![cell]
        } else {
            cell.split(", ").collect()
        };
        for g in groups {
            let (css, smil) = g.split_once(" / ").unwrap_or((g, ""));
            out.extend(decimals(css).into_iter().map(|d| ("css", d)));
            out.extend(decimals(smil).into_iter().map(|d| ("smil", d)));
        }
    } else if header.contains("css") != header.contains("smil") {
        let route = if header.contains("css") {
            "css"
        } else {
            "smil"
        };
        out.extend(decimals(cell).into_iter().map(|d| (route, d)));
    }
    out
}

/// Every byte count and error in a table of rigs in the docs is what the
/// command the prose before the table names prints now (`NAME` standing
/// for the row's rig; `-o` into a temporary directory): a byte count (a
/// column `bytes css / smil`, `bytes` beside a `route` column, or a column
/// of one route whose header names bytes, counted `N B`) the size of that
/// rig's bake on that route, and a px figure (a column whose header names
/// a max or a deviation, its routes as [`route_decimals`] reads them, or
/// the `route` column's) one of the maxima that bake's summary prints
/// (`max N px`, `max deviation N px`).
/// Tables of rigs only (a first column `rig`); a row's rig is the first
/// backquoted word of its first cell, else its first word; tables of what
/// a change saved (a `→` in a cell) are history and not read.
#[test]
fn figures_in_the_tables_of_rigs_are_what_bake_prints() {
    let tmp = tempfile::TempDir::new().unwrap();
    // per command: (rig, route) → (bytes, the summary's lines)
    type Printed = BTreeMap<(String, String), (u64, String)>;
    let mut printed: BTreeMap<String, Printed> = BTreeMap::new();
    let mut bake = |command: &str| -> Printed {
        printed
            .entry(command.to_string())
            .or_insert_with(|| {
                let mut args: Vec<std::ffi::OsString> = Vec::new();
                let mut words = command.split_whitespace().skip(2);
                while let Some(w) = words.next() {
                    if w == "-o" || w == "--report" {
                        words.next();
                    } else if let Some((dir, suffix)) = w.split_once("/*") {
                        let mut files: Vec<PathBuf> = fs::read_dir(root().join(dir))
                            .unwrap()
                            .map(|e| e.unwrap().path())
                            .filter(|p| p.to_string_lossy().ends_with(suffix))
                            .collect();
                        files.sort();
                        args.extend(files.into_iter().map(PathBuf::into_os_string));
                    } else if w.starts_with("rigs/") || w.starts_with("tests/") {
                        args.push(root().join(w).into_os_string());
                    } else {
                        args.push(w.into());
                    }
                }
                args.push("-o".into());
                args.push(tmp.path().join("out").join("").into_os_string());
                let args: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
                let (code, stdout, stderr) = bake_in_tmp(&args);
                assert_eq!(code, Some(0), "{command}: {stderr}");
                // `<rig> (<route>, <n> bytes, …` opens each summary
                let mut out = Printed::new();
                let mut at: Option<(String, String)> = None;
                for l in stdout.lines() {
                    let head = l.split_once(" (").and_then(|(rig, rest)| {
                        let (route, rest) = rest.split_once(", ")?;
                        let bytes: u64 = rest.split_once(" bytes")?.0.parse().ok()?;
                        Some(((rig.to_string(), route.to_string()), bytes))
                    });
                    if let Some((key, bytes)) = head.filter(|_| !l.starts_with(' ')) {
                        out.insert(key.clone(), (bytes, String::new()));
                        at = Some(key);
                    } else if let Some(key) = &at {
                        let text = &mut out.get_mut(key).unwrap().1;
                        text.push_str(l);
                        text.push('\n');
                    }
                }
                out
            })
            .clone()
    };
    let (mut bytes_checked, mut px_checked) = (0, 0);
    let texts = doc_files()
        .into_iter()
        .map(|f| fs::read_to_string(f).unwrap());
    for (prose, rows) in texts.flat_map(|t| tables(&t)) {
        let header = &rows[0];
        let route_col = header.iter().position(|h| h == "route");
        // per column: which routes' bytes it holds, and their unit
        let bytes_columns: Vec<(usize, Vec<&str>, &str)> = header
            .iter()
            .enumerate()
            .filter_map(|(i, h)| {
                if h.starts_with("bytes css / smil") {
                    Some((i, vec!["css", "smil"], ""))
                } else if h == "bytes" && route_col.is_some() {
                    Some((i, vec![], ""))
                } else if h.contains("bytes") && h.contains("css") != h.contains("smil") {
                    Some((i, vec![if h.contains("css") { "css" } else { "smil" }], "B"))
                } else {
                    None
                }
            })
            .collect();
        let px_columns: Vec<usize> = (0..header.len())
            .filter(|&i| {
                let h = &header[i];
                (h.contains("max") || h.contains("deviation")) && !h.contains("length")
            })
            .collect();
        if header[0] != "rig"
            || (bytes_columns.is_empty() && px_columns.is_empty())
            || rows.iter().flatten().any(|c| c.contains('→'))
        {
            continue;
        }
        let Some(command) = prose
            .rfind("`rigbake bake ")
            .map(|i| prose[i + 1..].split('`').next().unwrap().to_string())
        else {
            // (a table of what a rig holds, with no bake behind it)
            assert!(
                bytes_columns.is_empty(),
                "no command before the table {header:?}"
            );
            continue;
        };
        for row in &rows[1..] {
            let first = &row[0];
            let rig = match first.split('`').nth(1) {
                Some(r) => r.to_string(),
                None => first.split_whitespace().next().unwrap().to_string(),
            };
            let now = bake(&command.replace("NAME", &rig));
            let of = |route: &str| {
                now.get(&(rig.clone(), route.to_string()))
                    .unwrap_or_else(|| panic!("`{command}` prints no {route} bake of {rig}"))
            };
            for (i, routes, unit) in &bytes_columns {
                let routes = if routes.is_empty() {
                    vec![row[route_col.unwrap()].split_whitespace().next().unwrap()]
                } else {
                    routes.clone()
                };
                let numbers = whole_numbers(&row[*i], unit);
                assert!(numbers.len() >= routes.len(), "{rig}: {:?}", row[*i]);
                for (route, quoted) in routes.iter().zip(numbers) {
                    let written = of(route).0;
                    assert_eq!(
                        quoted, written,
                        "the docs quote {quoted} B for {rig} ({route}) from `{command}`, which writes {written} B"
                    );
                    bytes_checked += 1;
                }
            }
            for &i in &px_columns {
                let quoted = match route_col {
                    Some(r) if !header[i].contains("css") => {
                        let route = if row[r].starts_with("css") {
                            "css"
                        } else {
                            "smil"
                        };
                        route_decimals(route, &row[i])
                    }
                    _ => route_decimals(&header[i], &row[i]),
                };
                for (route, figure) in quoted {
                    let summary = &of(route).1;
                    let words: Vec<&str> = summary.split_whitespace().collect();
                    assert!(
                        words
                            .windows(2)
                            .any(|w| matches!(w[0], "max" | "deviation") && w[1] == figure),
                        "the docs quote {figure} px for {rig} ({route}) from `{command}`, which prints:\n{summary}"
                    );
                    px_checked += 1;
                }
            }
        }
    }
    // the chain table (4), the gaits (8), the ik_chains (8), the cycling
    // rigs at 0.1 px (6); their errors
    assert!(bytes_checked >= 26, "{bytes_checked} byte counts checked");
    assert!(px_checked >= 26, "{px_checked} errors checked");
}

#[test]
fn route_decimals_split_by_the_header() {
    let r = |h, c| route_decimals(h, c);
    let pairs = |v: Vec<(&str, String)>| -> Vec<String> {
        v.into_iter().map(|(r, d)| format!("{r} {d}")).collect()
    };
    assert_eq!(
        pairs(r("max css / smil", "0.213 / 0.085")),
        ["css 0.213", "smil 0.085"]
    );
    assert_eq!(
        pairs(r(
            "max css / smil",
            "0.130 / 0.156 (legs), 0.120 / 0.111 (arms)"
        )),
        ["css 0.130", "smil 0.156", "css 0.120", "smil 0.111"]
    );
    assert_eq!(
        pairs(r("max css / smil (px)", "0.366, 0.273 / 0.326, 0.184")),
        ["css 0.366", "css 0.273", "smil 0.326", "smil 0.184"]
    );
    assert_eq!(
        pairs(r("css (keys), max error, bytes", "46/46, 0.096 px, 3246 B")),
        ["css 0.096"]
    );
}

#[test]
fn whole_numbers_read_thousands_and_units() {
    assert_eq!(
        whole_numbers("5722 / 8249 (with hair)", ""),
        vec![5722, 8249]
    );
    assert_eq!(whole_numbers("2,962 / 3,619", ""), vec![2962, 3619]);
    assert_eq!(whole_numbers("46/46, 0.096 px, 3246 B", "B"), vec![3246]);
    assert_eq!(whole_numbers("52, 0.092 px, 5763 B", "B"), vec![5763]);
}
