//! The library's layers (stated in `src/lib.rs`), kept by reading the
//! `crate::` paths of every source file: a top-level module may name only
//! modules of lower layers, so the modules form no import cycle, the written
//! animation and the measure stage know nothing of rig kinds, and the
//! library never reaches the command line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bottom to top; the same table as the "Layers" section of `src/lib.rs`.
const LAYERS: &[&[&str]] = &[
    &["geom", "input", "interrupt"],
    &["valid"],
    &["trajectory"],
    &["clip", "solve"],
    &["fit", "measure", "emit"],
    &["report", "plot"],
    &["chain"],
    &["figure"],
    &["rig"],
    &["schema"],
    &["bake"],
    &[
        "art", "sweep", "plot", "template", "gallery", "browser", "watch", "tests",
    ],
];

/// Modules of the binary (declared in `main.rs`): they use the library as
/// `rigbake::…`, never `crate::…` paths into it.
const BINARY: &[&str] = &["batch", "output", "usage", "workflow"];

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The text without `//` and `/* */` comments (doc links are not uses).
fn code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix("//") {
            rest = r.find('\n').map_or("", |i| &r[i..]);
        } else if let Some(r) = rest.strip_prefix("/*") {
            rest = r.find("*/").map_or("", |i| &r[i + 2..]);
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// Top-level module → the other top-level modules its files name.
fn graph() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let top = |p: &Path| {
        let rel = p.strip_prefix(&src).unwrap();
        let first = rel.components().next().unwrap().as_os_str();
        first.to_str().unwrap().trim_end_matches(".rs").to_string()
    };
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for f in &files {
        let m = top(f);
        if m == "main" || m == "lib" {
            continue;
        }
        let t = code(&std::fs::read_to_string(f).unwrap());
        texts.entry(m).or_default().push_str(&t);
    }
    let names: BTreeSet<String> = texts.keys().cloned().collect();
    let mut g = BTreeMap::new();
    for (m, t) in &texts {
        let mut to = BTreeSet::new();
        for (i, _) in t.match_indices("crate::") {
            let after = &t[i + "crate::".len()..];
            let mut named: Vec<&str> = vec![ident_at(after)];
            if let Some(group) = after.strip_prefix('{') {
                let inner = &group[..group.find('}').unwrap_or(group.len())];
                named = inner
                    .split(',')
                    .map(|s| ident_at(s.trim()))
                    .filter(|s| !s.is_empty())
                    .collect();
            }
            for n in named {
                if n != m && names.contains(n) {
                    to.insert(n.to_string());
                }
            }
        }
        g.insert(m.clone(), to);
    }
    g
}

fn layer_of(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&m))
}

#[test]
fn every_module_names_only_lower_layers() {
    let g = graph();
    let mut wrong = Vec::new();
    for (m, to) in &g {
        if BINARY.contains(&m.as_str()) {
            continue;
        }
        let Some(lm) = layer_of(m) else {
            wrong.push(format!(
                "module `{m}` is in no layer: add it to LAYERS here and in lib.rs"
            ));
            continue;
        };
        for t in to {
            let lt = layer_of(t).unwrap_or(usize::MAX);
            if lt >= lm {
                wrong.push(format!(
                    "`{m}` (layer {lm}) names `{t}` (layer {lt}): a module may name only lower layers"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Independent of the table: no module reaches itself through others.
#[test]
fn top_level_modules_form_no_cycle() {
    let g = graph();
    fn reach(g: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<&str> = g[from].iter().map(String::as_str).collect();
        while let Some(m) = stack.pop() {
            if m == to {
                return true;
            }
            if seen.insert(m) {
                stack.extend(g.get(m).into_iter().flatten().map(String::as_str));
            }
        }
        false
    }
    let cyclic: Vec<&String> = g.keys().filter(|m| reach(&g, m, m)).collect();
    assert!(cyclic.is_empty(), "modules on an import cycle: {cyclic:?}");
}

/// The table itself is not vacuous: the test reads real edges (the pipeline's
/// top names its stages) and would see a back edge.
#[test]
fn the_graph_reads_real_edges() {
    let g = graph();
    assert!(g["bake"].contains("rig") && g["bake"].contains("fit"));
    assert!(g["figure"].contains("measure") && g["rig"].contains("figure"));
    assert_eq!(
        code("a // crate::rig\nb /* crate::rig */ c crate::{x, y}"),
        "a \nb  c crate::{x, y}"
    );
}

/// Command-line parsing lives in the binary: no library file uses clap.
#[test]
fn the_library_never_reaches_the_command_line() {
    let g = graph();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    let mut wrong = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().to_string();
        let top = rel.split(['/', '.']).next().unwrap().to_string();
        if top == "main" || BINARY.contains(&top.as_str()) {
            continue;
        }
        assert!(g.contains_key(&top) || top == "lib", "{rel}");
        if code(&std::fs::read_to_string(&f).unwrap()).contains("clap") {
            wrong.push(rel);
        }
    }
    assert!(wrong.is_empty(), "library files using clap: {wrong:?}");
}
