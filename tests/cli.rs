//! Command-line tests for the `rigbake` binary: exit status, stdout, stderr
//! and the files left on disk.
//!
//! Bad input must exit 2 with one line on stderr that names the file and the
//! field (JSON path) or line/column, must not panic, must not write anything
//! into the output directory (no stray temporary either) and must leave an
//! existing output file byte-identical. The success-path tests pin the file
//! names, the report fields, determinism, number formatting and the
//! acceptance figures (measured by the tool, never typed into it).

mod common;

use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// Most decimal places any number in an emitted SVG may have (key times and
/// seconds are written with 6, lengths with 2, degrees with 3).
const MAX_SVG_DECIMALS: usize = 6;

/// What a previous bake left in the output directory; a failed bake must not touch it.
const PREVIOUS: &[u8] = b"<svg><!-- previous bake --></svg>\n";

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn seed_path() -> PathBuf {
    repo("rigs/seed-nested.json")
}

fn seed() -> Value {
    serde_json::from_str(&fs::read_to_string(seed_path()).unwrap()).unwrap()
}

fn rigbake() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rigbake"))
}

/// A temp dir holding an input rig (`in/<file>`) and an output dir (`out/`)
/// that already holds `seed-nested.svg` from a "previous bake".
struct Scene {
    tmp: TempDir,
    rig: PathBuf,
}

impl Scene {
    /// `rigs/seed-nested.json` with `edit` applied, written as `in/<file>`.
    fn with(file: &str, edit: impl FnOnce(&mut Value)) -> Scene {
        let mut v = seed();
        edit(&mut v);
        Scene::text(file, &serde_json::to_string_pretty(&v).unwrap())
    }

    /// A rig file with exactly this text.
    fn text(file: &str, text: &str) -> Scene {
        let tmp = TempDir::new().unwrap();
        fs::create_dir(tmp.path().join("in")).unwrap();
        fs::create_dir(tmp.path().join("out")).unwrap();
        fs::write(tmp.path().join("out/seed-nested.svg"), PREVIOUS).unwrap();
        let rig = tmp.path().join("in").join(file);
        fs::write(&rig, text).unwrap();
        Scene { tmp, rig }
    }

    fn out(&self) -> PathBuf {
        self.tmp.path().join("out")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    /// `rigbake bake <rig> -o out/ <extra...>`
    fn bake(&self, extra: &[&str]) -> Command {
        let mut c = rigbake();
        c.arg("bake")
            .arg(&self.rig)
            .arg("-o")
            .arg(self.out())
            .args(extra);
        c
    }

    /// `rigbake check <rig> --max-error 100 <extra...>`
    fn check(&self, extra: &[&str]) -> Command {
        let mut c = rigbake();
        c.arg("check")
            .arg(&self.rig)
            .args(["--max-error", "100"])
            .args(extra);
        c
    }

    /// The output directory still holds exactly the previous bake, byte for byte.
    fn assert_out_untouched(&self) {
        let names = dir_names(&self.out());
        assert_eq!(names, ["seed-nested.svg"], "output dir changed: {names:?}");
        assert_eq!(
            fs::read(self.out().join("seed-nested.svg")).unwrap(),
            PREVIOUS,
            "existing output was modified"
        );
    }
}

/// File names in a directory, sorted (hidden temporaries included).
fn dir_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Run, and require: exit 2, one stderr line that names every `needle`, no
/// panic, nothing on stdout. Returns the stderr line.
fn fails_with(cmd: &mut Command, needles: &[&str]) -> String {
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(2), "exit status; stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "panic: {stderr}");
    let line = stderr.strip_suffix('\n').unwrap_or(&stderr);
    assert!(!line.is_empty(), "no message on stderr");
    assert!(!line.contains('\n'), "message is not one line: {stderr}");
    for n in needles {
        assert!(line.contains(n), "message lacks {n:?}: {line}");
    }
    assert!(
        out.stdout.is_empty(),
        "stdout not empty: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    line.to_string()
}

/// A bad rig: `bake` and `check` both exit 2 with a one-line message naming
/// the rig file and every needle, and the output dir is untouched.
fn bad_rig(scene: &Scene, needles: &[&str]) -> String {
    let file = scene.rig.file_name().unwrap().to_str().unwrap();
    let mut all = vec![file];
    all.extend_from_slice(needles);
    let line = fails_with(&mut scene.bake(&[]), &all);
    scene.assert_out_untouched();
    let check_line = fails_with(&mut scene.check(&[]), &all);
    assert_eq!(line, check_line, "bake and check disagree");
    line
}

// ---------------------------------------------------------------- bad rigs

#[test]
fn malformed_json_truncated_names_line_and_column() {
    let full = fs::read_to_string(seed_path()).unwrap();
    let scene = Scene::text("trunc.json", &full[..full.len() / 2]);
    bad_rig(&scene, &["line ", "column "]);
}

#[test]
fn malformed_json_not_json_at_all() {
    let scene = Scene::text("junk.json", "name = \"seed-nested\"\n");
    bad_rig(&scene, &["line 1", "column "]);
}

#[test]
fn empty_rig_file() {
    let scene = Scene::text("empty.json", "");
    bad_rig(&scene, &["line 1", "column 0"]);
}

#[test]
fn unknown_field_at_top_level() {
    let scene = Scene::with("top.json", |v| v["period"] = json!(1.2));
    bad_rig(&scene, &["period", "unknown field"]);
}

#[test]
fn unknown_field_nested_in_a_leg() {
    let scene = Scene::with("typo.json", |v| v["legs"][1]["thigh_len"] = json!(128));
    let line = bad_rig(&scene, &["legs[1]", "thigh_len", "unknown field"]);
    assert!(line.contains("legs[1].thigh_len"), "{line}");
}

#[test]
fn unknown_field_nested_in_crank() {
    let scene = Scene::with("crank.json", |v| v["crank"]["radius_px"] = json!(50));
    bad_rig(&scene, &["crank.radius_px", "unknown field"]);
}

#[test]
fn missing_required_field() {
    let scene = Scene::with("missing.json", |v| {
        v.as_object_mut().unwrap().remove("period_s");
    });
    bad_rig(&scene, &["missing field `period_s`"]);
}

#[test]
fn missing_required_leg_field() {
    let scene = Scene::with("noshin.json", |v| {
        v["legs"][0].as_object_mut().unwrap().remove("shin");
    });
    bad_rig(&scene, &["legs[0]", "missing field `shin`"]);
}

#[test]
fn wrong_type_string_for_a_number() {
    let scene = Scene::with("str.json", |v| v["legs"][0]["thigh"] = json!("128"));
    bad_rig(
        &scene,
        &["legs[0].thigh", "invalid type", "line ", "column "],
    );
}

#[test]
fn zero_thigh() {
    let scene = Scene::with("zero.json", |v| v["legs"][1]["thigh"] = json!(0));
    bad_rig(&scene, &["legs[1].thigh", "must be at least 0.01", "got 0"]);
}

#[test]
fn negative_thigh() {
    let scene = Scene::with("neg.json", |v| v["legs"][1]["thigh"] = json!(-3));
    bad_rig(
        &scene,
        &["legs[1].thigh: must be at least 0.01 (lengths are written to 0.01), got -3"],
    );
}

#[test]
fn huge_thigh() {
    let scene = Scene::with("huge.json", |v| v["legs"][0]["thigh"] = json!(1e9));
    bad_rig(&scene, &["legs[0].thigh", "got 1e9"]);
}

#[test]
fn number_1e999_is_out_of_range() {
    let text = fs::read_to_string(seed_path())
        .unwrap()
        .replace("\"thigh\": 128", "\"thigh\": 1e999");
    assert!(text.contains("1e999"));
    let scene = Scene::text("inf.json", &text);
    bad_rig(
        &scene,
        &["legs[0].thigh", "out of range", "line ", "column "],
    );
}

#[test]
fn nan_is_not_json() {
    let text = fs::read_to_string(seed_path())
        .unwrap()
        .replace("\"shin\": 112", "\"shin\": NaN");
    assert!(text.contains("NaN"));
    let scene = Scene::text("nan.json", &text);
    bad_rig(&scene, &["legs[0].shin", "line ", "column "]);
}

#[test]
fn period_zero() {
    let scene = Scene::with("p0.json", |v| v["period_s"] = json!(0));
    bad_rig(&scene, &["period_s", "got 0"]);
}

#[test]
fn period_negative() {
    let scene = Scene::with("pneg.json", |v| v["period_s"] = json!(-1.2));
    bad_rig(&scene, &["period_s", "got -1.2"]);
}

#[test]
fn keys_one_in_rig() {
    let scene = Scene::with("k1.json", |v| v["keys"] = json!(1));
    bad_rig(&scene, &["keys", "got 1"]);
}

#[test]
fn keys_absurd_in_rig() {
    let scene = Scene::with("kbig.json", |v| v["keys"] = json!(1_000_000_000u64));
    bad_rig(&scene, &["keys", "got 1000000000"]);
}

#[test]
fn keys_negative_in_rig() {
    let scene = Scene::with("kneg.json", |v| v["keys"] = json!(-1));
    bad_rig(&scene, &["keys", "-1"]);
}

#[test]
fn keys_one_on_command_line() {
    let scene = Scene::with("ok.json", |_| {});
    fails_with(&mut scene.bake(&["--keys", "1"]), &["--keys", "got 1"]);
    scene.assert_out_untouched();
    fails_with(&mut scene.check(&["--keys", "1"]), &["--keys", "got 1"]);
}

#[test]
fn keys_absurd_on_command_line() {
    let scene = Scene::with("ok.json", |_| {});
    let n = "1000000000";
    fails_with(&mut scene.bake(&["--keys", n]), &["--keys", n]);
    scene.assert_out_untouched();
    fails_with(&mut scene.check(&["--keys", n]), &["--keys", n]);
}

#[test]
fn huge_coordinate() {
    let scene = Scene::with("coord.json", |v| v["crank"]["center"] = json!([1e300, 420]));
    bad_rig(&scene, &["crank.center[0]"]);
}

#[test]
fn huge_hip_coordinate() {
    let scene = Scene::with("hip.json", |v| v["legs"][1]["hip"] = json!([352, -1e7]));
    bad_rig(&scene, &["legs[1].hip[1]"]);
}

#[test]
fn empty_legs() {
    let scene = Scene::with("nolegs.json", |v| v["legs"] = json!([]));
    bad_rig(&scene, &["legs", "at least one leg"]);
}

#[test]
fn duplicate_leg_names() {
    let scene = Scene::with("dup.json", |v| v["legs"][1]["name"] = json!("near"));
    bad_rig(&scene, &["legs[1].name", "\"near\""]);
}

#[test]
fn bad_rig_name_path_traversal() {
    let scene = Scene::with("name.json", |v| v["name"] = json!("../evil"));
    bad_rig(&scene, &["name", "../evil"]);
    assert!(!scene.path("evil.svg").exists());
}

#[test]
fn bad_rig_name_empty() {
    let scene = Scene::with("noname.json", |v| v["name"] = json!(""));
    bad_rig(&scene, &["name"]);
}

#[test]
fn unreachable_target_names_leg_and_crank_angle() {
    // shin 60: thigh + shin = 188 < farthest pedal distance (√(68² + 165²) + 50 ≈ 228.5),
    // reached along hip→centre at atan2(165, 68) ≈ 67.6°.
    let scene = Scene::with("reach.json", |v| v["legs"][0]["shin"] = json!(60));
    bad_rig(
        &scene,
        &["legs[0]", "\"near\"", "crank angle 67.6°", "40.46 px"],
    );
}

#[test]
fn unreachable_target_too_close() {
    // thigh 250, shin 100: |thigh − shin| = 150 > nearest pedal distance
    // √(68² + 165²) − 50 ≈ 128.46, reached opposite the far end, at 247.6°.
    let scene = Scene::with("close.json", |v| {
        v["legs"][1]["thigh"] = json!(250);
        v["legs"][1]["shin"] = json!(100);
    });
    bad_rig(
        &scene,
        &[
            "legs[1]",
            "\"far\"",
            "crank angle 247.6°",
            "less than",
            "21.54 px",
        ],
    );
}

#[test]
fn missing_rig_file() {
    let scene = Scene::with("ok.json", |_| {});
    let missing = scene.path("in/nope.json");
    let mut c = rigbake();
    c.arg("bake").arg(&missing).arg("-o").arg(scene.out());
    fails_with(&mut c, &["nope.json", "cannot read"]);
    scene.assert_out_untouched();
}

#[test]
fn rig_path_is_a_directory() {
    let scene = Scene::with("ok.json", |_| {});
    let mut c = rigbake();
    c.arg("bake")
        .arg(scene.path("in"))
        .arg("-o")
        .arg(scene.out());
    fails_with(&mut c, &["in", "cannot read"]);
    scene.assert_out_untouched();
}

#[test]
fn rig_file_not_utf8() {
    let scene = Scene::with("ok.json", |_| {});
    let bin = scene.path("in/bin.json");
    fs::write(&bin, b"{\"name\": \"\xff\xfe\"}").unwrap();
    let mut c = rigbake();
    c.arg("bake").arg(&bin).arg("-o").arg(scene.out());
    fails_with(&mut c, &["bin.json"]);
    scene.assert_out_untouched();
}

#[test]
fn one_bad_rig_among_good_ones_writes_nothing() {
    let scene = Scene::with("bad.json", |v| v["legs"][1]["shin"] = json!(-1));
    let mut c = rigbake();
    c.arg("bake")
        .arg(repo("rigs/seed-smil.json"))
        .arg(&scene.rig)
        .args(["--route", "both", "-o"])
        .arg(scene.out());
    fails_with(&mut c, &["bad.json", "legs[1].shin"]);
    scene.assert_out_untouched();
}

// ---------------------------------------------------------- bad outputs

#[test]
fn unwritable_output_file_under_proc() {
    let mut c = rigbake();
    c.arg("bake").arg(seed_path()).args(["-o", "/proc/x.svg"]);
    fails_with(&mut c, &["/proc"]);
    assert!(!Path::new("/proc/x.svg").exists());
}

#[test]
fn output_dir_under_a_regular_file() {
    let scene = Scene::with("ok.json", |_| {});
    fs::write(scene.path("file.txt"), b"keep").unwrap();
    let target = scene.path("file.txt/out");
    let mut c = rigbake();
    c.arg("bake").arg(&scene.rig).arg("-o").arg(&target);
    fails_with(&mut c, &["file.txt"]);
    assert_eq!(fs::read(scene.path("file.txt")).unwrap(), b"keep");
}

#[test]
fn output_svg_under_a_regular_file() {
    let scene = Scene::with("ok.json", |_| {});
    fs::write(scene.path("file.txt"), b"keep").unwrap();
    let mut c = rigbake();
    c.arg("bake")
        .arg(&scene.rig)
        .arg("-o")
        .arg(scene.path("file.txt/x.svg"));
    fails_with(&mut c, &["file.txt"]);
    assert_eq!(fs::read(scene.path("file.txt")).unwrap(), b"keep");
}

#[test]
fn output_is_an_existing_regular_file() {
    let scene = Scene::with("ok.json", |_| {});
    let file = scene.out().join("seed-nested.svg");
    let mut c = rigbake();
    c.arg("bake")
        .arg(&scene.rig)
        .args(["--route", "both", "-o"])
        .arg(&file);
    fails_with(&mut c, &["seed-nested.svg"]);
    scene.assert_out_untouched();
}

#[test]
fn output_ending_in_svg_in_any_case_is_one_file() {
    for name in ["x.svg", "X.SVG", "x.Svg"] {
        let tmp = TempDir::new().unwrap();
        let target = tmp.path().join(name);
        let mut c = rigbake();
        c.arg("bake")
            .arg(seed_path())
            .arg("-o")
            .arg(&target)
            .arg("-q");
        c.assert().success().stdout("").stderr("");
        assert!(target.is_file(), "{name}: not a file");
        assert!(
            fs::read_to_string(&target).unwrap().starts_with("<svg"),
            "{name}"
        );
        assert_eq!(dir_names(tmp.path()), [name]);
    }
}

/// A name written as a directory (a trailing `/`) is one, `.svg` or not:
/// `-o out.svg/` writes `out.svg/<name>.svg`, for `bake` and `bake --art`.
#[test]
fn output_with_a_trailing_slash_is_a_directory() {
    let tmp = TempDir::new().unwrap();
    let tpl = tmp.path().join("tpl");
    rigbake()
        .args(["template"])
        .arg(seed_path())
        .arg("-o")
        .arg(&tpl)
        .assert()
        .success();
    for (name, art) in [("out.svg/", false), ("art.SVG/", true)] {
        let target = format!("{}/{name}", tmp.path().display());
        let mut c = rigbake();
        c.arg("bake").arg(seed_path());
        if art {
            c.arg("--art").arg(tpl.join("seed-nested.template.svg"));
        }
        c.arg("-o").arg(&target).arg("-q");
        c.assert().success().stderr("");
        let dir = tmp.path().join(name.trim_end_matches('/'));
        assert_eq!(dir_names(&dir), ["seed-nested.svg"], "{name}");
    }
}

/// The documented rule: an `-o` name not ending in `.svg` is a directory,
/// whatever its extension.
#[test]
fn output_with_another_extension_is_a_directory() {
    let tmp = TempDir::new().unwrap();
    let target = tmp.path().join("o.txt");
    let mut c = rigbake();
    c.arg("bake")
        .arg(seed_path())
        .arg("-o")
        .arg(&target)
        .arg("-q");
    c.assert().success();
    assert_eq!(dir_names(&target), ["seed-nested.svg"]);
}

#[test]
fn output_existing_file_not_svg_is_refused_in_good_grammar() {
    let scene = Scene::with("ok.json", |_| {});
    let file = scene.path("exist.txt");
    fs::write(&file, b"keep").unwrap();
    let mut one = rigbake();
    one.arg("bake").arg(&scene.rig).arg("-o").arg(&file);
    let line = fails_with(&mut one, &["exist.txt: is a file", "name a .svg file"]);
    assert!(!line.contains("1 outputs"), "{line}");
    let mut two = rigbake();
    two.arg("bake")
        .arg(&scene.rig)
        .args(["--route", "both", "-o"])
        .arg(&file);
    fails_with(
        &mut two,
        &["exist.txt: is a file, but 2 outputs need a directory"],
    );
    assert_eq!(fs::read(&file).unwrap(), b"keep");
    // a device is called what it is, not a file
    let mut null = rigbake();
    null.arg("bake").arg(&scene.rig).args(["-o", "/dev/null"]);
    fails_with(
        &mut null,
        &["-o /dev/null: is a character device, and a name not ending in .svg is a directory"],
    );
}

#[test]
fn report_path_is_an_existing_directory() {
    let scene = Scene::with("ok.json", |_| {});
    let dir = scene.path("reports");
    fs::create_dir(&dir).unwrap();
    fails_with(
        &mut scene.bake(&["--report", dir.to_str().unwrap()]),
        &["reports", "directory"],
    );
    scene.assert_out_untouched();
    assert!(dir_names(&dir).is_empty(), "{:?}", dir_names(&dir));
}

#[test]
fn single_file_output_with_two_rigs() {
    let scene = Scene::with("ok.json", |_| {});
    let x = scene.out().join("x.svg");
    let mut c = rigbake();
    c.arg("bake")
        .arg(&scene.rig)
        .arg(repo("rigs/seed-smil.json"))
        .arg("-o")
        .arg(&x);
    fails_with(&mut c, &["x.svg", "2 outputs"]);
    scene.assert_out_untouched();
}

#[test]
fn single_file_output_with_both_routes() {
    let scene = Scene::with("ok.json", |_| {});
    let x = scene.out().join("x.svg");
    let mut c = rigbake();
    c.arg("bake")
        .arg(&scene.rig)
        .args(["--route", "both", "-o"])
        .arg(&x);
    fails_with(&mut c, &["x.svg"]);
    scene.assert_out_untouched();
}

#[test]
fn stdout_output_with_two_rigs() {
    let mut c = rigbake();
    c.arg("bake")
        .arg(seed_path())
        .arg(repo("rigs/seed-smil.json"))
        .args(["-o", "-"]);
    fails_with(&mut c, &["-o -"]);
}

// ------------------------------------------------------------- bad usage

#[test]
fn unknown_cli_flag_is_a_usage_error() {
    rigbake()
        .arg("bake")
        .arg(seed_path())
        .arg("--bogus")
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            predicate::str::contains("--bogus").and(predicate::str::contains("panicked").not()),
        );
}

#[test]
fn unknown_route_is_a_usage_error() {
    rigbake()
        .arg("bake")
        .arg(seed_path())
        .args(["--route", "canvas"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("canvas"));
}

#[test]
fn missing_subcommand_and_missing_rig_are_usage_errors() {
    rigbake().assert().code(2);
    rigbake()
        .arg("bake")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("<RIG>"));
}

#[test]
fn check_requires_max_error() {
    rigbake()
        .arg("check")
        .arg(seed_path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--max-error"));
}

#[test]
fn check_negative_max_error() {
    let mut c = rigbake();
    c.arg("check").arg(seed_path()).arg("--max-error=-1");
    fails_with(&mut c, &["--max-error", "-1"]);
}

#[test]
fn check_nan_max_error() {
    let mut c = rigbake();
    c.arg("check").arg(seed_path()).args(["--max-error", "NaN"]);
    fails_with(&mut c, &["--max-error", "NaN"]);
}

#[test]
fn check_infinite_max_error() {
    let mut c = rigbake();
    c.arg("check").arg(seed_path()).args(["--max-error", "inf"]);
    fails_with(&mut c, &["--max-error", "inf"]);
}

// ------------------------------------------------------------ success paths

/// Bake into a fresh temp dir; returns the dir and stdout.
fn bake_ok(rigs: &[PathBuf], extra: &[&str]) -> (TempDir, String) {
    let tmp = TempDir::new().unwrap();
    let out = rigbake()
        .arg("bake")
        .args(rigs)
        .arg("-o")
        .arg(tmp.path())
        .args(extra)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(stderr.is_empty(), "stderr: {stderr}");
    (tmp, String::from_utf8(out.stdout).unwrap())
}

fn json_report(path: &Path) -> Value {
    serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn bake_writes_name_svg_and_prints_a_summary() {
    let (tmp, stdout) = bake_ok(&[seed_path()], &[]);
    assert_eq!(dir_names(tmp.path()), ["seed-nested.svg"]);
    let svg = fs::read_to_string(tmp.path().join("seed-nested.svg")).unwrap();
    assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
    assert!(svg.ends_with("</svg>\n"));
    assert!(svg.contains("@keyframes"));
    assert!(svg.contains("data-probe=\"near-ankle\""));
    assert!(svg.contains("data-probe=\"far-target\""));
    assert!(stdout.contains("seed-nested"), "{stdout}");
    assert!(
        stdout.contains("near") && stdout.contains("far"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{} bytes", svg.len())), "{stdout}");
}

#[test]
fn bake_replaces_an_existing_output() {
    let scene = Scene::with("ok.json", |_| {});
    scene.bake(&["--quiet"]).assert().success().stdout("");
    assert_eq!(dir_names(&scene.out()), ["seed-nested.svg"]);
    let svg = fs::read(scene.out().join("seed-nested.svg")).unwrap();
    assert_ne!(svg, PREVIOUS);
    assert!(svg.starts_with(b"<svg"));
}

#[test]
fn bake_route_both_writes_css_and_smil_files() {
    let (tmp, _) = bake_ok(&[seed_path()], &["--route", "both"]);
    assert_eq!(
        dir_names(tmp.path()),
        ["seed-nested.smil.svg", "seed-nested.svg"]
    );
    let css = fs::read_to_string(tmp.path().join("seed-nested.svg")).unwrap();
    let smil = fs::read_to_string(tmp.path().join("seed-nested.smil.svg")).unwrap();
    assert!(css.contains("@keyframes") && !css.contains("<animate "));
    assert!(smil.contains("<animate attributeName=\"d\""));
}

#[test]
fn bake_route_smil_writes_only_the_smil_file() {
    let (tmp, _) = bake_ok(&[seed_path()], &["--route", "smil"]);
    assert_eq!(dir_names(tmp.path()), ["seed-nested.smil.svg"]);
}

#[test]
fn bake_single_named_file() {
    let tmp = TempDir::new().unwrap();
    let file = tmp.path().join("bike.svg");
    rigbake()
        .arg("bake")
        .arg(seed_path())
        .arg("-o")
        .arg(&file)
        .arg("--quiet")
        .assert()
        .success();
    assert_eq!(dir_names(tmp.path()), ["bike.svg"]);
    let (dir, _) = bake_ok(&[seed_path()], &[]);
    assert_eq!(
        fs::read(&file).unwrap(),
        fs::read(dir.path().join("seed-nested.svg")).unwrap()
    );
}

#[test]
fn bake_creates_a_missing_output_dir() {
    let tmp = TempDir::new().unwrap();
    let nested = tmp.path().join("a/b");
    rigbake()
        .arg("bake")
        .arg(seed_path())
        .arg("-o")
        .arg(&nested)
        .arg("--quiet")
        .assert()
        .success();
    assert_eq!(dir_names(&nested), ["seed-nested.svg"]);
}

#[test]
fn bake_to_stdout_puts_svg_on_stdout_and_summary_on_stderr() {
    let out = rigbake()
        .arg("bake")
        .arg(seed_path())
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let (dir, _) = bake_ok(&[seed_path()], &[]);
    assert_eq!(
        out.stdout,
        fs::read(dir.path().join("seed-nested.svg")).unwrap()
    );
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("near") && stderr.contains("far"),
        "{stderr}"
    );
    assert!(stderr.contains("max"), "{stderr}");
}

#[test]
fn bake_quiet_prints_nothing() {
    let (_, stdout) = bake_ok(&[seed_path()], &["--quiet"]);
    assert_eq!(stdout, "");
}

#[test]
fn report_json_has_the_documented_fields() {
    let tmp = TempDir::new().unwrap();
    let cwd = TempDir::new().unwrap();
    rigbake()
        .current_dir(cwd.path())
        .arg("bake")
        .arg(seed_path())
        .arg("-o")
        .arg(tmp.path())
        .args(["--report", "r.json", "--quiet"])
        .assert()
        .success();
    // A relative report path is relative to the working directory, not to -o.
    assert_eq!(dir_names(tmp.path()), ["seed-nested.svg"]);
    assert_eq!(dir_names(cwd.path()), ["r.json"]);
    let r = json_report(&cwd.path().join("r.json"));
    assert_eq!(r["rig"], "seed-nested");
    assert_eq!(r["route"], "css");
    let svg_len = fs::metadata(tmp.path().join("seed-nested.svg"))
        .unwrap()
        .len();
    assert_eq!(r["bytes"].as_u64(), Some(svg_len));
    let legs = r["legs"].as_array().unwrap();
    assert_eq!(legs.len(), 2);
    for (leg, name) in legs.iter().zip(["near", "far"]) {
        assert_eq!(leg["name"], name);
        // the default bake: keys fitted to 0.25 px, 30 evenly spaced linear
        // ones per bone here (the stops of a `linear()` easing, fewer bytes
        // than the 5 and 4 cubic keys of `--fit cubic`)
        let keys = leg["keys"].as_u64().unwrap();
        assert!((2..=40).contains(&keys), "{keys} keys");
        assert_eq!(leg["fit"], "linear");
        let max = leg["max_error_px"].as_f64().unwrap();
        assert!(max <= 0.25, "max {max}");
        let rms = leg["rms_error_px"].as_f64().unwrap();
        assert!(0.0 < rms && rms <= max, "rms {rms} max {max}");
        assert!(leg.get("reuses").is_some(), "reuses must be present");
    }
    // one leg plays the other's keys (which one: see the acceptance
    // figures below)
    let reuses = (legs[0]["reuses"].as_str(), legs[1]["reuses"].as_str());
    assert!(
        matches!(reuses, (Some("far"), None) | (None, Some("near"))),
        "{reuses:?}"
    );
}

#[test]
fn report_for_several_outputs_is_an_array() {
    let tmp = TempDir::new().unwrap();
    let report = tmp.path().join("r.json");
    rigbake()
        .arg("bake")
        .arg(seed_path())
        .arg(repo("rigs/seed-smil.json"))
        .args(["--route", "both", "--quiet", "-o"])
        .arg(tmp.path())
        .arg("--report")
        .arg(&report)
        .assert()
        .success();
    let r = json_report(&report);
    let got: Vec<(String, String)> = r
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["rig"].as_str().unwrap().to_string(),
                x["route"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        ("seed-nested", "css"),
        ("seed-nested", "smil"),
        ("seed-smil", "css"),
        ("seed-smil", "smil"),
    ];
    assert_eq!(
        got,
        want.map(|(a, b)| (a.to_string(), b.to_string())).to_vec()
    );
    for x in r.as_array().unwrap() {
        let name = match x["route"].as_str().unwrap() {
            "css" => format!("{}.svg", x["rig"].as_str().unwrap()),
            _ => format!("{}.smil.svg", x["rig"].as_str().unwrap()),
        };
        let len = fs::metadata(tmp.path().join(name)).unwrap().len();
        assert_eq!(x["bytes"].as_u64(), Some(len));
    }
}

#[test]
fn output_is_deterministic() {
    let rigs = [
        seed_path(),
        repo("rigs/seed-smil.json"),
        repo("rigs/recumbent.json"),
    ];
    let (a, _) = bake_ok(&rigs, &["--route", "both", "--quiet"]);
    let (b, _) = bake_ok(&rigs, &["--route", "both", "--quiet"]);
    let names = dir_names(a.path());
    assert_eq!(names.len(), 6, "{names:?}");
    assert_eq!(names, dir_names(b.path()));
    for n in &names {
        assert_eq!(
            fs::read(a.path().join(n)).unwrap(),
            fs::read(b.path().join(n)).unwrap(),
            "{n} differs between two bakes"
        );
    }
}

/// Every number literal in `text` (skipping identifiers such as `x1`, `w3`
/// and hex colours such as `#1d1d1d`).
fn numbers(text: &str) -> Vec<&str> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_alphabetic() || c == b'_' || c == b'#' {
            let s = i;
            i += 1;
            // a name goes on through `-` (`seed-nested-0e0a1b-hip`); a path
            // command is one letter (`L-7` is L and -7)
            while i < b.len()
                && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || (b[i] == b'-' && i - s > 1))
            {
                i += 1;
            }
            continue;
        }
        let starts = c.is_ascii_digit()
            || ((c == b'-' || c == b'.') && i + 1 < b.len() && b[i + 1].is_ascii_digit());
        if starts {
            let s = i;
            i += 1;
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            // an exponent would be a formatting bug; keep it in the token
            if i + 1 < b.len()
                && (b[i] == b'e' || b[i] == b'E')
                && (b[i + 1].is_ascii_digit() || b[i + 1] == b'-' || b[i + 1] == b'+')
            {
                i += 2;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            }
            out.push(&text[s..i]);
            continue;
        }
        i += 1;
    }
    out
}

#[test]
fn number_scanner_finds_what_it_should() {
    let got = numbers(
        r##"<line class="rb-0e0a1b-hip" x1="-0.5" stroke="#1d1d1d" d="M 3 4.25 L-7 1e5"/> w3 10%"##,
    );
    assert_eq!(got, ["-0.5", "3", "4.25", "-7", "1e5", "10"]);
}

#[test]
fn svg_numbers_are_plain_fixed_precision_and_never_negative_zero() {
    let rigs = [
        seed_path(),
        repo("rigs/seed-smil.json"),
        repo("rigs/recumbent.json"),
    ];
    let (tmp, _) = bake_ok(&rigs, &["--route", "both", "--quiet", "--keys", "7"]);
    let mut seen = 0;
    for name in dir_names(tmp.path()) {
        let svg = fs::read_to_string(tmp.path().join(&name)).unwrap();
        assert!(!svg.contains("NaN"), "{name}: NaN");
        assert!(!svg.replace("infinite", "").contains("inf"), "{name}: inf");
        assert!(!svg.contains("--"), "{name}: double minus");
        for tok in numbers(&svg) {
            seen += 1;
            assert!(!tok.contains(['e', 'E']), "{name}: exponent in {tok:?}");
            let v: f64 = tok.parse().unwrap_or_else(|_| panic!("{name}: {tok:?}"));
            assert!(!(tok.starts_with('-') && v == 0.0), "{name}: -0 as {tok:?}");
            if let Some((_, frac)) = tok.split_once('.') {
                assert!(
                    frac.len() <= MAX_SVG_DECIMALS,
                    "{name}: {tok} has more than {MAX_SVG_DECIMALS} decimals"
                );
                assert!(!frac.ends_with('0'), "{name}: trailing zero in {tok}");
                assert!(!frac.is_empty(), "{name}: bare point in {tok}");
            }
        }
    }
    assert!(seen > 500, "only {seen} numbers scanned");
}

#[test]
fn check_passes_under_a_generous_threshold() {
    rigbake()
        .arg("check")
        .arg(seed_path())
        .args(["--max-error", "100"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains("near").and(predicate::str::contains("ok")))
        .stderr("");
}

#[test]
fn check_fails_with_exit_1_naming_the_leg() {
    rigbake()
        .arg("check")
        .arg(seed_path())
        .args(["--max-error", "0.1"])
        .assert()
        .code(1)
        .stderr(
            predicate::str::contains("leg near")
                .and(predicate::str::contains("seed-nested"))
                .and(predicate::str::contains("panicked").not()),
        );
}

#[test]
fn check_writes_no_file() {
    let tmp = TempDir::new().unwrap();
    rigbake()
        .current_dir(tmp.path())
        .arg("check")
        .arg(seed_path())
        .args(["--max-error", "100", "--route", "both"])
        .assert()
        .success();
    assert!(dir_names(tmp.path()).is_empty());
}

#[test]
fn check_format_json_is_valid_json() {
    let out = rigbake()
        .arg("check")
        .arg(seed_path())
        .args(["--max-error", "100", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &v["results"][0];
    assert_eq!(r["rig"], "seed-nested");
    assert_eq!(r["probes"][0]["name"], "near");
    assert!(r["probes"][0]["max_error_px"].as_f64().unwrap() > 0.0);

    // failing check: still valid JSON on stdout, the verdict on stderr
    let out = rigbake()
        .arg("check")
        .arg(seed_path())
        .args(["--max-error", "0.1", "--format", "json", "--route", "both"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["results"].as_array().unwrap().len(), 2);
    assert!(String::from_utf8_lossy(&out.stderr).contains("leg near"));
}

#[test]
fn help_of_each_subcommand_exits_0_and_lists_options() {
    let cmds = common::subcommands();
    assert!(
        cmds.iter().any(|c| c == "bake") && cmds.iter().any(|c| c == "check"),
        "{cmds:?}"
    );
    for cmd in &cmds {
        let out = rigbake().args([cmd, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd} --help");
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.contains("Usage: rigbake"), "{cmd}:\n{text}");
        assert!(text.contains("Options:"), "{cmd}:\n{text}");
        assert!(text.contains("--help"), "{cmd}:\n{text}");
    }
}

#[test]
fn help_of_bake_and_check_mentions_their_options() {
    let cases: [(&str, &[&str]); 2] = [
        (
            "bake",
            &["--output", "--route", "--keys", "--report", "--quiet"],
        ),
        ("check", &["--max-error", "--route", "--keys", "--format"]),
    ];
    for (cmd, words) in cases {
        let out = rigbake().args([cmd, "--help"]).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{cmd} --help");
        let text = String::from_utf8(out.stdout).unwrap();
        for w in words {
            assert!(text.contains(w), "{cmd} --help lacks {w}:\n{text}");
        }
    }
}

// ---------------------------------------------------- acceptance figures

/// Per-leg (max_error_px, reuses) measured by `bake ... --report`.
fn measured(rig: &str, extra: &[&str]) -> BTreeMap<String, (f64, Option<String>)> {
    let r = common::baked_report(&repo(rig), extra);
    r["legs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["name"].as_str().unwrap().to_string(),
                (
                    l["max_error_px"].as_f64().unwrap(),
                    l["reuses"].as_str().map(str::to_string),
                ),
            )
        })
        .collect()
}

/// One leg plays the other's keys half a period later: which one is the
/// source follows the order of the tree the rig loads as (`rigbake lower`
/// writes the far leg's bones first, so today near reuses far).
#[test]
fn acceptance_seed_nested_10_keys_about_3_5_px_one_leg_reuses_the_other() {
    let m = measured("rigs/seed-nested.json", &["--keys", "10"]);
    let (near, near_reuses) = &m["near"];
    let (far, far_reuses) = &m["far"];
    assert!((3.3..=3.7).contains(near), "near max error {near}");
    assert_eq!(far, near);
    match (near_reuses.as_deref(), far_reuses.as_deref()) {
        (Some("far"), None) | (None, Some("near")) => {}
        other => panic!("not one leg reusing the other: {other:?}"),
    }
}

#[test]
fn acceptance_seed_nested_8_keys_about_5_4_px() {
    let m = measured("rigs/seed-nested.json", &["--keys", "8"]);
    let near = m["near"].0;
    assert!((near - 5.4).abs() <= 0.3, "near max error {near}");
    assert_eq!(m["far"].0, near);
}

#[test]
fn acceptance_seed_nested_12_keys_about_2_5_px() {
    let m = measured("rigs/seed-nested.json", &["--keys", "12"]);
    let near = m["near"].0;
    assert!((near - 2.5).abs() <= 0.2, "near max error {near}");
    assert_eq!(m["far"].0, near);
}

#[test]
fn acceptance_seed_smil_8_keys_about_2_4_px() {
    let m = measured("rigs/seed-smil.json", &["--route", "smil", "--keys", "8"]);
    for (name, (max, _)) in &m {
        assert!((max - 2.4).abs() <= 0.2, "{name} max error {max}");
    }
    assert_eq!(m.len(), 2);
}

#[test]
fn error_falls_as_keys_grow() {
    let e: Vec<f64> = [8, 10, 12, 16]
        .iter()
        .map(|k| measured("rigs/seed-nested.json", &["--keys", &k.to_string()])["near"].0)
        .collect();
    assert!(e.windows(2).all(|w| w[1] < w[0]), "{e:?}");
    // roughly 1/keys²: doubling keys from 8 to 16 cuts the error about fourfold
    let ratio = e[0] / e[3];
    assert!(
        (3.0..=5.0).contains(&ratio),
        "8→16 keys ratio {ratio}: {e:?}"
    );
}

// ------------------------------------------------------------ regressions
//
// Each test below pins a product bug found while writing this suite (all
// fixed since).

#[test]
fn regression_period_that_rounds_to_zero_is_rejected() {
    let scene = Scene::with("ptiny.json", |v| v["period_s"] = json!(1e-9));
    bad_rig(&scene, &["period_s"]);
}

/// Either the rig is rejected naming the leg, or the SVG keeps every
/// animated class on the elements of one leg: a CSS rule must never reach a
/// group it was not written for.
fn leg_names_stay_apart(file: &str, names: [&str; 2]) {
    let scene = Scene::with(file, |v| {
        v["legs"][0]["name"] = json!(names[0]);
        v["legs"][1]["name"] = json!(names[1]);
    });
    let out = rigbake()
        .arg("bake")
        .arg(&scene.rig)
        .args(["-o", "-"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    if out.status.code() == Some(2) {
        assert!(stderr.contains("legs[1].name"), "{stderr}");
        return;
    }
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let svg = String::from_utf8(out.stdout).unwrap();
    let mut uses: BTreeMap<&str, usize> = BTreeMap::new();
    for attr in svg.split("class=\"").skip(1) {
        for class in attr.split('"').next().unwrap().split(' ') {
            *uses.entry(class).or_default() += 1;
        }
    }
    for (class, n) in uses {
        let animated = svg.contains(&format!(".{class}{{animation:"));
        assert!(
            !(animated && n > 1),
            "class {class} is animated and sits on {n} elements"
        );
    }
}

#[test]
fn regression_leg_names_whose_classes_collide() {
    leg_names_stay_apart("collide.json", ["a", "a-thigh"]);
}

#[test]
fn regression_leg_named_like_a_bike_part() {
    leg_names_stay_apart("chainring.json", ["near", "chainring"]);
}

#[test]
fn regression_two_rigs_with_one_name_are_rejected() {
    let scene = Scene::with("same-name.json", |v| {
        v["period_s"] = json!(2);
        v["legs"][1]["phase_deg"] = json!(170);
    });
    let mut c = rigbake();
    c.arg("bake")
        .arg(seed_path())
        .arg(&scene.rig)
        .arg("-o")
        .arg(scene.out());
    fails_with(&mut c, &["seed-nested"]);
    scene.assert_out_untouched();
}

#[test]
fn regression_failed_bake_creates_no_directory() {
    let scene = Scene::with("ok.json", |_| {});
    let dir = scene.path("reports");
    fs::create_dir(&dir).unwrap();
    let fresh = scene.path("fresh");
    let mut c = rigbake();
    c.arg("bake")
        .arg(&scene.rig)
        .arg("-o")
        .arg(fresh.join("sub"))
        .arg("--report")
        .arg(&dir);
    fails_with(&mut c, &["reports"]);
    assert!(!fresh.exists(), "{} was left behind", fresh.display());
}

#[cfg(unix)]
#[test]
fn regression_output_files_get_ordinary_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let (tmp, _) = bake_ok(&[seed_path()], &["--quiet"]);
    let ordinary = tmp.path().join("ordinary.txt");
    fs::write(&ordinary, b"x").unwrap();
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode(&tmp.path().join("seed-nested.svg")),
        mode(&ordinary),
        "svg mode {:o} vs ordinary {:o}",
        mode(&tmp.path().join("seed-nested.svg")),
        mode(&ordinary)
    );
}

/// Huge numbers are named in exponent form, not as hundreds of digits.
#[test]
fn regression_huge_number_is_shown_short() {
    let scene = Scene::with("h300.json", |v| v["crank"]["center"][0] = json!(1e300));
    bad_rig(&scene, &["crank.center[0]", "got 1e300"]);
}

/// A file cut short names where it ended instead of a bare `?`.
#[test]
fn regression_truncated_file_names_the_end() {
    let scene = Scene::with("cut.json", |_| {});
    let text = fs::read_to_string(&scene.rig).unwrap();
    fs::write(&scene.rig, &text[..text.len() / 2]).unwrap();
    let out = rigbake()
        .arg("check")
        .arg(&scene.rig)
        .args(["--max-error", "1"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(!stderr.contains(": ?:"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// Bone names are joined with `-` into keyframes names, so a hyphen in one
/// could make two bones share a name: rejected, naming the field.
#[test]
fn regression_bone_name_with_hyphen_is_rejected() {
    let text = fs::read_to_string("rigs/robot-arm.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["bones"][1]["name"] = json!("upper-arm");
    let dir = tempfile::tempdir().unwrap();
    let rig = dir.path().join("hyphen.json");
    fs::write(&rig, v.to_string()).unwrap();
    let out = rigbake()
        .arg("bake")
        .arg(&rig)
        .arg("-o")
        .arg(dir.path().join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("bones[1].name") && stderr.contains("hyphen.json"),
        "{stderr}"
    );
    assert!(!dir.path().join("out").exists());
}

/// `head_radius` must be at least 0.01: exit 2 naming the file, `bones[i].head_radius`
/// and the value.
#[test]
fn head_radius_not_positive_is_refused() {
    for r in [0.0, -4.0] {
        let text = fs::read_to_string(repo("rigs/jump.json")).unwrap();
        let mut v: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["bones"][6]["name"], "head");
        v["bones"][6]["head_radius"] = serde_json::json!(r);
        let scene = Scene::text("head.json", &v.to_string());
        bad_rig(
            &scene,
            &["bones[6].head_radius", "at least 0.01", &format!("{r}")],
        );
    }
}

/// `move` belongs to root bones only, and its trajectory is checked like
/// any other: exit 2 naming the file, `bones[i].move…` and the value.
#[test]
fn bone_move_on_a_child_or_out_of_range_is_refused() {
    let text = fs::read_to_string(repo("rigs/robot-arm.json")).unwrap();
    let bob = |amp: f64| serde_json::json!({"bob": {"center": [0, 0], "amp": amp}});
    let mut child: Value = serde_json::from_str(&text).unwrap();
    child["bones"][1]["move"] = bob(4.0);
    let scene = Scene::text("child.json", &child.to_string());
    bad_rig(&scene, &["bones[1].move", "only a root bone"]);
    let mut huge: Value = serde_json::from_str(&text).unwrap();
    huge["bones"][0]["move"] = bob(1e300);
    let scene = Scene::text("huge.json", &huge.to_string());
    bad_rig(&scene, &["bones[0].move.bob.amp", "1e300"]);
}

/// The measured head rim is a report line (`head-rim`), and `check
/// --max-error` fails on it.
#[test]
fn check_fails_on_the_head_rim() {
    let out = rigbake()
        .args([
            "check",
            "rigs/jump.json",
            "--route",
            "css",
            "--max-error",
            "0",
        ])
        .current_dir(repo("."))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("head-rim"), "{stdout}");
    assert!(
        stderr.contains("clip jump bone head-rim: max rim error"),
        "{stderr}"
    );
}
