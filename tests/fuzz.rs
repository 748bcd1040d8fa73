//! Property test over mutated rigs: start from every rig in `rigs/` (and
//! the bone-tree fixtures of features no example uses yet), apply
//! one to three mutations (numbers: 0, −0, negative, tiny, huge, 1e300,
//! integers as floats and back; types: a string, array, object, null or
//! bool where a value was; dropped fields; duplicated array elements;
//! degenerate geometry: repeated path points, zero and vanishing sizes,
//! coincident points) and check that nothing panics:
//!
//! - in process, `rig::load` then `bake_rig` under `catch_unwind`, and no
//!   NaN or infinity in the SVG of a successful bake;
//! - through the binary, for fewer cases: exit 0, 1 or 2 only, never a
//!   panic, and only finite numbers in what it wrote.
//!
//! The case counts are bounded so the file runs in well under a minute in
//! a debug test build; `PROPTEST_CASES` raises both (the binary gets a
//! quarter of them).

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use rigbake::bake::BakeOptions;
use rigbake::{Route, bake_rig, rig};
use serde_json::{Value, json};
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// In-process cases by default; the binary runs a quarter as many.
const CASES: u32 = 192;

/// The seeds: every rig in `rigs/`, and the bone-tree fixtures that use
/// what no example does yet (path targets, moving root bones, path-foot
/// spelled as a bone tree).
fn rigs() -> Vec<(String, Value)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dirs = ["rigs", "tests/fixtures/browser", "tests/fixtures/lowering"];
    let mut out: Vec<(String, Value)> = dirs
        .iter()
        .flat_map(|d| fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .map(|p| {
            let v = serde_json::from_str(&fs::read_to_string(&p).unwrap()).unwrap();
            let name = p.strip_prefix(root).unwrap_or(&p);
            (name.to_string_lossy().into_owned(), v)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Every value's JSON pointer, the root excluded.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// Numbers that break naive code.
const NUMBERS: [f64; 12] = [
    0.0, -0.0, -1.0, -250.0, 1e-300, 1e-9, 1e300, 1e6, 1.000001e6, 0.5, 3.0, 7200.0,
];

/// Keys whose value is a size: zeroed or made vanishing by `Geometry`.
const SIZES: [&str; 14] = [
    "radius",
    "rx",
    "ry",
    "length",
    "segment",
    "thigh",
    "shin",
    "stride",
    "amp",
    "head_radius",
    "width",
    "period_s",
    "step_height",
    "duty",
];

/// One mutation: its kind, which value it hits, and a free choice.
#[derive(Debug, Clone, Copy)]
struct Mutation {
    kind: u8,
    at: u32,
    pick: u32,
}

fn mutation() -> impl Strategy<Value = Mutation> {
    (0u8..6, any::<u32>(), any::<u32>()).prop_map(|(kind, at, pick)| Mutation { kind, at, pick })
}

/// The first point `[x, y]` anywhere in `v` (to make another coincide with it).
fn first_point(v: &Value) -> Option<Value> {
    match v {
        Value::Array(a) if a.len() == 2 && a.iter().all(Value::is_number) => Some(v.clone()),
        Value::Array(a) => a.iter().find_map(first_point),
        Value::Object(m) => m.values().find_map(first_point),
        _ => None,
    }
}

/// A path string with its first point repeated (a zero-length segment).
fn repeat_first_point(d: &str, pick: u32) -> Option<String> {
    let words: Vec<&str> = d.split_whitespace().collect();
    if words.len() < 3 || !words[0].eq_ignore_ascii_case("m") {
        return None;
    }
    let (x, y) = (words[1], words[2]);
    let rest = words[3..].join(" ");
    Some(match pick % 3 {
        0 => format!("M {x} {y} L {x} {y} {rest}"),
        1 => format!("M {x} {y} {rest} L {x} {y}"),
        _ => format!("M {x} {y} L {x} {y} L {x} {y} Z"),
    })
}

/// A path string with one of its numbers (an arc's radius, rotation or
/// flag, a point's coordinate) replaced by a number that breaks naive code
/// or one that overflows: every number written into a file is a number
/// the rig gave, path data included.
fn replace_number(d: &str, pick: u32) -> Option<String> {
    let spans = number_spans(d);
    if spans.is_empty() {
        return None;
    }
    let span = spans[pick as usize % spans.len()].clone();
    let with = match (pick / 7) % (NUMBERS.len() as u32 + 1) {
        k if k as usize == NUMBERS.len() => "1e999".to_string(),
        k => NUMBERS[k as usize].to_string(),
    };
    Some(format!("{} {with} {}", &d[..span.start], &d[span.end..]))
}

/// Where the numbers of path data `d` are (a run of digits, `.`, `e` after
/// a digit or `.`, or a `-`).
fn number_spans(d: &str) -> Vec<std::ops::Range<usize>> {
    let b = d.as_bytes();
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() || b[i] == b'.' || b[i] == b'-' {
            let start = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.' || b[i] == b'e') {
                i += 1;
            }
            spans.push(start..i);
        } else {
            i += 1;
        }
    }
    spans
}

/// `base` with every mutation applied in order.
fn mutate(base: &Value, muts: &[Mutation]) -> Value {
    let mut v = base.clone();
    for m in muts {
        apply(&mut v, *m);
    }
    v
}

fn apply(v: &mut Value, m: Mutation) {
    let mut all = Vec::new();
    pointers(v, String::new(), &mut all);
    if all.is_empty() {
        return;
    }
    let ptr = all[m.at as usize % all.len()].clone();
    let key = ptr.rsplit('/').next().unwrap_or("").to_string();
    let point = first_point(v);
    let (parent_ptr, last) = ptr.rsplit_once('/').unwrap();
    let parent_ptr = if parent_ptr.is_empty() {
        ""
    } else {
        parent_ptr
    };
    match m.kind {
        // a dropped field or array element
        2 => match v.pointer_mut(parent_ptr) {
            Some(Value::Object(o)) => {
                o.remove(&last.replace("~1", "/").replace("~0", "~"));
            }
            Some(Value::Array(a)) => {
                if let Ok(i) = last.parse::<usize>() {
                    a.remove(i);
                }
            }
            _ => {}
        },
        // a duplicated array element
        3 => {
            if let Some(Value::Array(a)) = v.pointer_mut(parent_ptr)
                && let Ok(i) = last.parse::<usize>()
            {
                let x = a[i].clone();
                a.insert(i, x);
            }
        }
        kind => {
            let Some(target) = v.pointer_mut(&ptr) else {
                return;
            };
            match kind {
                // numbers, integers as floats and floats as integers
                0 => {
                    let int = target.is_i64() || target.is_u64();
                    *target = match target.as_f64() {
                        Some(x) if m.pick.is_multiple_of(4) && int => json!(x),
                        Some(x) if m.pick.is_multiple_of(4) => json!(x.trunc() as i64),
                        _ => json!(NUMBERS[m.pick as usize % NUMBERS.len()]),
                    }
                }
                // types
                1 => {
                    *target = [
                        json!("NaN"),
                        json!("1e999"),
                        json!(""),
                        json!([]),
                        json!({}),
                        Value::Null,
                        json!(true),
                        json!([0, 0]),
                        json!(-1),
                    ][m.pick as usize % 9]
                        .clone()
                }
                // degenerate geometry
                _ => match target {
                    Value::String(d) => {
                        let r = if m.pick.is_multiple_of(2) {
                            repeat_first_point(d, m.pick / 2)
                        } else {
                            replace_number(d, m.pick / 2)
                        };
                        if let Some(r) = r {
                            *d = r;
                        }
                    }
                    Value::Number(_) if SIZES.contains(&key.as_str()) => {
                        *target = json!([0.0, 1e-300, 1e-12][m.pick as usize % 3]);
                    }
                    Value::Array(a) if a.len() == 2 && a.iter().all(Value::is_number) => {
                        if let Some(p) = point {
                            *target = p;
                        }
                    }
                    _ => *target = json!(0),
                },
            }
        }
    }
}

/// Every string in a rig (names, colours, path data).
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(x) => out.push(x.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// A token of the SVG that is not a finite number (the writer would spell
/// it NaN or inf). The rig's own strings are taken out first: a mutated
/// rig may be named "NaN", and its name is written.
fn non_finite(svg: &str, rig: &Value) -> bool {
    let mut names = Vec::new();
    strings(rig, &mut names);
    let mut svg = svg.to_string();
    for n in names.iter().filter(|n| !n.is_empty()) {
        svg = svg.replace(n.as_str(), " ");
    }
    svg.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))
        .any(|w| matches!(w, "NaN" | "-NaN" | "inf" | "-inf"))
}

fn cases(default: u32) -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

fn mutated() -> impl Strategy<Value = (usize, Vec<Mutation>, bool)> {
    (
        0usize..1000,
        prop::collection::vec(mutation(), 1..4),
        any::<bool>(),
    )
}

#[test]
fn mutated_rigs_never_panic_in_process() {
    let rigs = rigs();
    let (baked, refused) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let mut runner = TestRunner::new(Config {
        cases: cases(CASES),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&mutated(), |(r, muts, smil)| {
            let (name, base) = &rigs[r % rigs.len()];
            let v = mutate(base, &muts);
            let text = v.to_string();
            let route = if smil { Route::Smil } else { Route::Css };
            let got = catch_unwind(AssertUnwindSafe(|| {
                rig::load(&text).map(|rig| {
                    let opts = BakeOptions::resolve(&rig, route, None, None, None);
                    bake_rig(&rig, &opts).svg
                })
            }));
            match got {
                Err(_) => prop_assert!(false, "{name} {muts:?} panicked: {text}"),
                Ok(Ok(svg)) => {
                    baked.set(baked.get() + 1);
                    prop_assert!(!non_finite(&svg, &v), "{name} {muts:?}: NaN in {text}")
                }
                Ok(Err(e)) => {
                    refused.set(refused.get() + 1);
                    let msg = e.to_string();
                    prop_assert!(!msg.is_empty() && !msg.contains('\n'), "{msg:?}");
                    // in the format's words, not Rust's
                    for rust in [
                        "untagged enum",
                        "expected f64",
                        "expected u32",
                        "expected u64",
                        "expected usize",
                    ] {
                        prop_assert!(!msg.contains(rust), "{name} {muts:?}: {msg}");
                    }
                }
            }
            Ok(())
        })
        .unwrap();
    eprintln!(
        "in process: {} baked, {} refused",
        baked.get(),
        refused.get()
    );
}

#[test]
fn mutated_rigs_exit_0_1_or_2_through_the_binary() {
    let rigs = rigs();
    let mut runner = TestRunner::new(Config {
        cases: cases(CASES).div_ceil(4),
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&mutated(), |(r, muts, smil)| {
            let (name, base) = &rigs[r % rigs.len()];
            let v = mutate(base, &muts);
            let tmp = tempfile::TempDir::new().unwrap();
            let path = tmp.path().join("r.json");
            fs::write(&path, v.to_string()).unwrap();
            let out = tmp.path().join("out");
            let o = std::process::Command::new(env!("CARGO_BIN_EXE_rigbake"))
                .arg("bake")
                .arg(&path)
                .arg("-o")
                .arg(&out)
                .args(["--route", if smil { "smil" } else { "css" }])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            let code = o.status.code();
            prop_assert!(
                matches!(code, Some(0..=2)) && !stderr.contains("panicked"),
                "{name} {muts:?}: exit {code:?}: {stderr}\n{v}"
            );
            if code != Some(0) {
                prop_assert_eq!(stderr.trim_end().lines().count(), 1, "{}", stderr);
            }
            if out.exists() {
                for e in fs::read_dir(&out).unwrap() {
                    let e = e.unwrap();
                    let name = e.file_name().to_string_lossy().into_owned();
                    prop_assert!(!name.starts_with(".rigbake-"), "temp file left: {}", name);
                    let svg = fs::read_to_string(e.path()).unwrap();
                    prop_assert!(!non_finite(&svg, &v), "{} {:?}: NaN in {}", name, muts, v);
                }
            }
            Ok(())
        })
        .unwrap();
}

/// Every number of every example `scene` part's path data, replaced in turn
/// by numbers that break naive code (huge, tiny, overflowing, negative):
/// the part is refused naming `scene[0].d`, or written, static and carried
/// by a turned bone, with every number finite and short (no 300-digit echo
/// of a 1e300 arc radius, no panic on a 1e999 one).
#[test]
fn every_number_of_a_scene_part_is_checked_or_written_short() {
    use rigbake::clip::Item;
    use rigbake::figure::file::ScenePartFile;
    use rigbake::figure::scene::{item, validate};
    use rigbake::geom::{Affine, Vec2};
    let mut ds: Vec<String> = vec!["M0 0L5 5A20 10 30 0 1 40 40Q50 50 60 40Z".into()];
    for (_, v) in rigs() {
        for p in v["scene"].as_array().into_iter().flatten() {
            ds.push(p["d"].as_str().unwrap().to_string());
        }
    }
    let values = [
        "1e300", "-1e300", "1e999", "1e-300", "0", "-0", "1000001", "-250",
    ];
    let turned = Affine::translate(Vec2::new(30.0, -12.0)) * Affine::rotate(0.7);
    let (mut refused, mut written) = (0, 0);
    for d in &ds {
        for span in number_spans(d).into_iter().take(40) {
            for v in values {
                let bad = format!("{} {v} {}", &d[..span.start], &d[span.end..]);
                for bone in [None, Some("b".to_string())] {
                    let file = ScenePartFile {
                        name: "p".into(),
                        d: bad.clone(),
                        bone: bone.clone(),
                        layer: None,
                        style: Default::default(),
                    };
                    match validate(&[file], &["b".into()], &[turned]) {
                        Err(e) => {
                            let e = e.to_string();
                            assert!(e.contains("scene[0].d"), "{bad}: {e}");
                            refused += 1;
                        }
                        Ok(parts) => {
                            let m = if bone.is_some() {
                                turned
                            } else {
                                Affine::IDENTITY
                            };
                            let Item::Part { d: out, .. } = item(&parts[0], m) else {
                                panic!("a part is written as a part")
                            };
                            for tok in out.split(|c: char| c.is_ascii_alphabetic() || c == ' ') {
                                if tok.is_empty() {
                                    continue;
                                }
                                let x: f64 = tok.parse().unwrap_or_else(|_| panic!("{bad}: {out}"));
                                assert!(x.is_finite() && tok.len() <= 12, "{bad}: {tok} in {out}");
                            }
                            written += 1;
                        }
                    }
                }
            }
        }
    }
    assert!(
        refused > 100 && written > 100,
        "{refused} refused, {written} written"
    );
}
