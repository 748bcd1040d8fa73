//! `rigbake schema`: the committed `schema/rig.schema.json` is what the code
//! generates, every rig in `rigs/` validates against it with an independent
//! JSON-Schema validator (boon, draft-07), and typical mistakes are rejected.
//!
//! Regenerate the committed schema with either of:
//!
//! ```text
//! RIGBAKE_BLESS=1 cargo test --test schema
//! cargo run -- schema > schema/rig.schema.json
//! ```

use assert_cmd::Command;
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const SCHEMA_URL: &str = "file:///rigbake/schema/rig.schema.json";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn schema_path() -> PathBuf {
    root().join("schema/rig.schema.json")
}

fn rig_paths() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = fs::read_dir(root().join("rigs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no rigs in rigs/");
    v
}

/// A compiled validator for the generated schema.
struct Validator {
    schemas: boon::Schemas,
    index: boon::SchemaIndex,
}

impl Validator {
    fn new() -> Self {
        let mut compiler = boon::Compiler::new();
        compiler.set_default_draft(boon::Draft::V7);
        compiler
            .add_resource(SCHEMA_URL, rigbake::schema::rig_schema())
            .expect("schema loads");
        let mut schemas = boon::Schemas::new();
        let index = compiler
            .compile(SCHEMA_URL, &mut schemas)
            .unwrap_or_else(|e| panic!("schema compiles: {e:#}"));
        Validator { schemas, index }
    }

    fn check(&self, rig: &Value) -> Result<(), String> {
        self.schemas
            .validate(rig, self.index)
            .map_err(|e| format!("{e}"))
    }
}

fn seed() -> Value {
    serde_json::from_str(&fs::read_to_string(root().join("rigs/seed-nested.json")).unwrap())
        .unwrap()
}

#[test]
fn committed_schema_is_fresh() {
    let want = rigbake::schema::rig_schema_text();
    if std::env::var_os("RIGBAKE_BLESS").is_some_and(|v| v == "1") {
        fs::create_dir_all(root().join("schema")).unwrap();
        fs::write(schema_path(), &want).unwrap();
    }
    let have = fs::read_to_string(schema_path()).unwrap_or_default();
    assert!(
        have == want,
        "schema/rig.schema.json is stale: run `RIGBAKE_BLESS=1 cargo test --test schema` \
         (or `cargo run -- schema > schema/rig.schema.json`)"
    );
}

#[test]
fn cli_prints_the_same_schema() {
    let out = Command::cargo_bin("rigbake")
        .unwrap()
        .arg("schema")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stderr.is_empty());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        rigbake::schema::rig_schema_text()
    );
}

#[test]
fn schema_is_draft07_with_closed_objects() {
    let v = rigbake::schema::rig_schema();
    assert_eq!(v["$schema"], "http://json-schema.org/draft-07/schema#");
    assert_eq!(v["additionalProperties"], false);
    for def in ["CrankFile", "LegFile"] {
        assert_eq!(
            v["definitions"][def]["additionalProperties"], false,
            "{def}"
        );
    }
    // doc comments become descriptions
    let thigh = &v["definitions"]["LegFile"]["properties"]["thigh"];
    assert!(
        thigh["description"]
            .as_str()
            .is_some_and(|d| d.contains("hip→knee")),
        "{thigh}"
    );
}

#[test]
fn every_example_rig_validates_and_points_at_the_schema() {
    let v = Validator::new();
    for path in rig_paths() {
        let text = fs::read_to_string(&path).unwrap();
        let rig: Value = serde_json::from_str(&text).unwrap();
        if let Err(e) = v.check(&rig) {
            panic!("{}: {e}", path.display());
        }
        // what the schema accepts, rigbake parses
        rigbake::rig::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        if let Some(s) = rig.get("$schema") {
            assert_eq!(s, "../schema/rig.schema.json", "{}", path.display());
            let target = path.parent().unwrap().join(s.as_str().unwrap());
            assert!(target.is_file(), "{} does not exist", target.display());
        }
    }
}

#[test]
fn typo_in_a_leg_field_is_rejected() {
    let v = Validator::new();
    let mut rig = seed();
    assert!(v.check(&rig).is_ok());
    let leg = rig["legs"][0].as_object_mut().unwrap();
    let thigh = leg.remove("thigh").unwrap();
    leg.insert("thihg".into(), thigh);
    let err = v.check(&rig).unwrap_err();
    assert!(err.contains("thihg"), "{err}");
    // rigbake agrees
    assert!(rigbake::rig::parse(&rig.to_string()).is_err());
}

#[test]
fn typo_at_top_level_and_bad_enum_are_rejected() {
    let v = Validator::new();
    let mut rig = seed();
    rig.as_object_mut()
        .unwrap()
        .insert("period".into(), 1.0.into());
    assert!(v.check(&rig).unwrap_err().contains("period"));

    let mut rig = seed();
    rig["legs"][0]["knee"] = "fwd".into();
    assert!(v.check(&rig).is_err());

    let mut rig = seed();
    rig["view_box"] = serde_json::json!([0, 0, 800]);
    assert!(v.check(&rig).is_err());
}

/// No section is left untyped: every property of every object in the
/// schema has a type, a reference, a choice or an enum (before, the
/// trajectories of `ik_chains`, `ik[].target`, `root.move` and `ground`
/// read "any JSON"), and a mistyped trajectory in each of those places is
/// rejected by the schema as it is by rigbake.
#[test]
fn every_section_is_typed_and_a_mistyped_trajectory_is_rejected() {
    fn walk(v: &Value, at: &str, untyped: &mut Vec<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Object(props)) = m.get("properties") {
                    for (name, p) in props {
                        let typed = p.as_object().is_some_and(|o| {
                            ["type", "$ref", "anyOf", "oneOf", "allOf", "enum", "const"]
                                .iter()
                                .any(|k| o.contains_key(*k))
                        });
                        if !typed {
                            untyped.push(format!("{at}/properties/{name}"));
                        }
                    }
                }
                for (k, x) in m {
                    walk(x, &format!("{at}/{k}"), untyped);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(x, &format!("{at}/{i}"), untyped);
                }
            }
            _ => {}
        }
    }
    let mut untyped = Vec::new();
    walk(&rigbake::schema::rig_schema(), "", &mut untyped);
    assert!(untyped.is_empty(), "untyped: {untyped:?}");

    let v = Validator::new();
    let rig_of = |name: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(root().join(format!("rigs/{name}.json"))).unwrap())
            .unwrap()
    };
    let bad_circle = serde_json::json!({"circle": {"center": [0, 0], "radius": "big"}});
    let mut cases: Vec<(&str, Value)> = Vec::new();
    let mut r = rig_of("path-foot");
    r["ik_chains"][0]["target"] = bad_circle.clone();
    cases.push(("ik_chains[0].target", r));
    let mut r = rig_of("walker");
    r["ik"][0]["target"] = bad_circle.clone();
    cases.push(("ik[0].target", r));
    let mut r = rig_of("walker");
    r["root"]["move"] = serde_json::json!({"bob": {"center": [0, 0], "amp": "high"}});
    cases.push(("root.move", r));
    let mut r = rig_of("walker");
    r["ground"]["y"] = "low".into();
    cases.push(("ground.y", r));
    for (what, rig) in cases {
        assert!(v.check(&rig).is_err(), "{what}: the schema accepts it");
        assert!(
            rigbake::rig::parse(&rig.to_string()).is_err(),
            "{what}: rigbake accepts it"
        );
    }
}
