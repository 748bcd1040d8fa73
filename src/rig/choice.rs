//! The rig format's shape, read from its JSON Schema (generated from
//! [`super::RigFile`]) where serde alone would say too little or accept
//! too much: the choices of an enum field given the wrong kind of value
//! ([`choices`]), and an object given as an array of its fields, which
//! serde would read in order ([`array_for_object`]).

use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The rig format's schema (draft-07, `definitions` for shared types),
/// generated from [`super::RigFile`]; `crate::schema` adds its title.
pub fn format_schema() -> Value {
    let generator = SchemaSettings::draft07().into_generator();
    generator
        .into_root_schema_for::<super::RigFile>()
        .to_value()
}

/// One step of a rig file path: a key of an object or an index of an array.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step<'p> {
    Key(&'p str),
    Index(usize),
}

/// The steps of a rig file path as errors name it (`bones[2].angle`: key
/// `bones`, index 2, key `angle`); `None` where an index is not a number.
pub fn steps(path: &str) -> Option<Vec<Step<'_>>> {
    let mut out = Vec::new();
    for seg in path.split('.') {
        let (key, indices) = seg.split_once('[').unwrap_or((seg, ""));
        if !key.is_empty() {
            out.push(Step::Key(key));
        }
        for i in indices.split('[').filter(|i| !i.is_empty()) {
            out.push(Step::Index(i.trim_end_matches(']').parse().ok()?));
        }
    }
    Some(out)
}

/// The value at `path` in a rig file's JSON `doc`, if it holds one.
pub fn value_at<'a>(doc: &'a Value, path: &str) -> Option<&'a Value> {
    steps(path)?
        .into_iter()
        .try_fold(doc, |v, step| match step {
            Step::Key(k) => v.get(k),
            Step::Index(i) => v.get(i),
        })
}

/// The schema of the field at `path` (a rig file path as errors name it:
/// `crank.direction`, `bones[2].angle`, `clips[0].root.squash.sy`) in
/// `schema` ([`format_schema`]), references and optional wrappers followed.
pub fn node_at<'a>(schema: &'a Value, path: &str) -> Option<&'a Value> {
    let node = resolve(schema, schema);
    steps(path)?.into_iter().try_fold(node, |node, step| {
        let next = match step {
            Step::Key(k) => property(schema, node, k)?,
            Step::Index(_) => node.get("items")?,
        };
        Some(resolve(schema, next))
    })
}

/// The choices an enum field of the schema takes: its string values and
/// the keys of its one-key object forms. `None` for a field of no choice.
pub fn choices(schema: &Value, node: &Value) -> Option<(Vec<String>, Vec<String>)> {
    let (mut names, mut keys) = (Vec::new(), Vec::new());
    let text = |v: &Value| v.as_str().map(str::to_string);
    if let Some(e) = node.get("enum").and_then(Value::as_array) {
        names.extend(e.iter().filter_map(text));
    }
    for branch in node
        .get("oneOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let b = resolve(schema, branch);
        if let Some(c) = b.get("const").and_then(text) {
            names.push(c);
        }
        if let Some(e) = b.get("enum").and_then(Value::as_array) {
            names.extend(e.iter().filter_map(text));
        }
        if let Some([k]) = b
            .get("required")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            keys.extend(text(k));
        }
    }
    (!names.is_empty() || !keys.is_empty()).then_some((names, keys))
}

/// What a field of several forms (an untagged enum of the rig format,
/// `anyOf` in the schema) takes, one phrase per form: its names (`one of
/// "tip", "origin"`), a number, a whole number, a point `[x, y]`, an
/// array of a form, an object with its keys. Empty for a field of one
/// form.
pub fn forms(schema: &Value, node: &Value) -> Vec<String> {
    node.get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| form(schema, resolve(schema, b), 0))
        .collect()
}

/// One form's phrase ([`forms`]); `None` for one it cannot name.
fn form(schema: &Value, node: &Value, depth: usize) -> Option<String> {
    let quoted = |v: &[String], q: &str| {
        v.iter()
            .map(|x| format!("{q}{x}{q}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some((names, keys)) = choices(schema, node) {
        return Some(match (names.is_empty(), keys.is_empty()) {
            (false, true) => format!("one of {}", quoted(&names, "\"")),
            (true, false) => format!("an object with one of the keys {}", quoted(&keys, "`")),
            _ => format!(
                "one of {} or an object with one of the keys {}",
                quoted(&names, "\""),
                quoted(&keys, "`")
            ),
        });
    }
    match node.get("type").and_then(Value::as_str)? {
        "number" => Some("a number".into()),
        "integer" => Some("a whole number".into()),
        "string" => Some("a string".into()),
        "boolean" => Some("true or false".into()),
        "array" => {
            let items = resolve(schema, node.get("items")?);
            let pair = node.get("minItems") == Some(&Value::from(2))
                && node.get("maxItems") == Some(&Value::from(2));
            if pair && items.get("type").and_then(Value::as_str) == Some("number") {
                return Some("a point [x, y]".into());
            }
            (depth < 2)
                .then(|| form(schema, items, depth + 1))
                .flatten()
                .map(|f| format!("an array, each {f}"))
        }
        "object" => {
            let keys: Vec<String> = node
                .get("properties")
                .and_then(Value::as_object)?
                .keys()
                .cloned()
                .collect();
            Some(format!("an object with the keys {}", quoted(&keys, "`")))
        }
        _ => None,
    }
}

/// `node` with `$ref`, a single `allOf` and an optional's `anyOf` (the
/// value or null) followed to the schema that says what the value is.
fn resolve<'a>(schema: &'a Value, mut node: &'a Value) -> &'a Value {
    for _ in 0..16 {
        if let Some(r) = node.get("$ref").and_then(Value::as_str) {
            match r
                .strip_prefix("#/definitions/")
                .and_then(|name| schema.get("definitions")?.get(name))
            {
                Some(n) => node = n,
                None => return node,
            }
        } else if let Some([one]) = node
            .get("allOf")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
        {
            node = one;
        } else if let Some(any) = node.get("anyOf").and_then(Value::as_array)
            && let [one] = any
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                .collect::<Vec<_>>()
                .as_slice()
        {
            node = one;
        } else {
            return node;
        }
    }
    node
}

/// The schema of `key` in the object schema `node` (a named field, or any
/// key of a map: `additionalProperties`), or in the one of its `oneOf`
/// forms that has it (an enum variant's fields).
fn property<'a>(schema: &'a Value, node: &'a Value, key: &str) -> Option<&'a Value> {
    if let Some(p) = node.get("properties").and_then(|p| p.get(key)) {
        return Some(p);
    }
    if let Some(p) = node.get("additionalProperties").filter(|p| p.is_object()) {
        return Some(p);
    }
    node.get("oneOf")?
        .as_array()?
        .iter()
        .find_map(|b| resolve(schema, b).get("properties")?.get(key))
}

/// The path of the first array in `text` (a rig file's JSON) where the
/// format takes an object only (a section such as `crank`, a leg, a
/// bone): serde would read such an array as the object's fields in order.
/// The text is read as a stream beside the schema, building nothing;
/// `None` also where it is not well-formed JSON (serde then says where).
pub fn array_for_object(schema: &Value, text: &str) -> Option<String> {
    use serde::de::DeserializeSeed;
    let path = std::cell::RefCell::new(String::new());
    let found = std::cell::RefCell::new(None);
    let memo = std::cell::RefCell::new(Memo::default());
    let walk = Walk {
        schema,
        node: schema,
        path: &path,
        found: &found,
        memo: &memo,
    };
    let mut de = serde_json::Deserializer::from_str(text);
    walk.deserialize(&mut de).ok()?;
    found.into_inner()
}

/// One value of the file read beside its schema `node` (see
/// [`array_for_object`]): the path so far and the first array found where
/// an object belongs.
#[derive(Clone, Copy)]
struct Walk<'a> {
    schema: &'a Value,
    node: &'a Value,
    path: &'a std::cell::RefCell<String>,
    found: &'a std::cell::RefCell<Option<String>>,
    memo: &'a std::cell::RefCell<Memo<'a>>,
}

/// What one [`array_for_object`] has found of its schema's nodes (each
/// known by its address: the schema is borrowed for the whole walk), so
/// that a node met again (every bone under the bone schema, say) is not
/// looked up again: its [`resolve`]d node, and whether it is
/// [`object_only`].
#[derive(Default)]
struct Memo<'a> {
    resolved: fnv::FnvHashMap<*const Value, &'a Value>,
    object_only: fnv::FnvHashMap<*const Value, bool>,
}

impl<'a> Walk<'a> {
    /// The walk of a value under `node`, at the path so far plus `step`.
    fn at(self, node: &'a Value) -> Walk<'a> {
        Walk { node, ..self }
    }

    /// [`resolve`] of this walk's node.
    fn resolved(self) -> &'a Value {
        let key = self.node as *const Value;
        if let Some(n) = self.memo.borrow().resolved.get(&key) {
            return n;
        }
        let n = resolve(self.schema, self.node);
        self.memo.borrow_mut().resolved.insert(key, n);
        n
    }

    /// [`object_only`] of `node` (a resolved node).
    fn object_only(self, node: &'a Value) -> bool {
        let key = node as *const Value;
        if let Some(&b) = self.memo.borrow().object_only.get(&key) {
            return b;
        }
        let b = object_only(self.schema, node);
        self.memo.borrow_mut().object_only.insert(key, b);
        b
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A JSON walk's scalar visits: a scalar holds no object, nothing to find.
macro_rules! scalars_pass {
    () => {
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    };
}

impl<'de> serde::de::Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    scalars_pass!();

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        use serde::de::IgnoredAny;
        use std::fmt::Write;
        let node = self.resolved();
        if self.found.borrow().is_none() && self.object_only(node) {
            *self.found.borrow_mut() = Some(self.path.borrow().clone());
        }
        let items = node.get("items").filter(|_| self.found.borrow().is_none());
        for i in 0.. {
            // a tuple's entries each have their own schema
            let item = match items {
                Some(Value::Array(tuple)) => tuple.get(i),
                other => other,
            };
            let more = match item {
                Some(n) => {
                    let len = self.path.borrow().len();
                    let _ = write!(self.path.borrow_mut(), "[{i}]");
                    let more = seq.next_element_seed(self.at(n))?.is_some();
                    self.path.borrow_mut().truncate(len);
                    more
                }
                None => seq.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                break;
            }
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::IgnoredAny;
        let node = self.resolved();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match property(self.schema, node, &key).filter(|_| self.found.borrow().is_none()) {
                Some(n) => {
                    let len = self.path.borrow().len();
                    {
                        let mut p = self.path.borrow_mut();
                        if !p.is_empty() {
                            p.push('.');
                        }
                        p.push_str(&key);
                    }
                    map.next_value_seed(self.at(n))?;
                    self.path.borrow_mut().truncate(len);
                }
                None => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// The first key that the object at `path` (a rig file path as errors
/// name it) of `text` gives twice, read as the text streams: a `Value`
/// keeps only one of them, so a message built from one (a choice's or a
/// field of several forms') would name the key once. `None` where the
/// object repeats no key, or `path` leads to none.
pub fn repeated_key(text: &str, path: &str) -> Option<String> {
    use serde::de::DeserializeSeed;
    let steps = if path.is_empty() {
        Vec::new()
    } else {
        steps(path)?
    };
    let found = std::cell::RefCell::new(None);
    let mut de = serde_json::Deserializer::from_str(text);
    // (an early stop is an error to serde_json; what was found stands)
    let _ = Repeat {
        steps: &steps,
        found: &found,
    }
    .deserialize(&mut de);
    found.into_inner()
}

/// The object at the end of `steps`, looked for by [`repeated_key`].
#[derive(Clone, Copy)]
struct Repeat<'a, 'p> {
    steps: &'a [Step<'p>],
    found: &'a std::cell::RefCell<Option<String>>,
}

impl<'de> serde::de::DeserializeSeed<'de> for Repeat<'_, '_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Repeat<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    scalars_pass!();

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        use serde::de::IgnoredAny;
        for i in 0.. {
            let more = match self.steps.split_first() {
                Some((Step::Index(j), rest)) if *j == i => seq
                    .next_element_seed(Repeat {
                        steps: rest,
                        ..self
                    })?
                    .is_some(),
                _ => seq.next_element::<IgnoredAny>()?.is_some(),
            };
            if !more {
                break;
            }
        }
        Ok(())
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        use serde::de::{Error, IgnoredAny};
        let mut seen = std::collections::BTreeSet::new();
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            match self.steps.split_first() {
                None => {
                    if !seen.insert(key.to_string()) {
                        *self.found.borrow_mut() = Some(key.into_owned());
                        return Err(A::Error::custom("found"));
                    }
                    map.next_value::<IgnoredAny>()?;
                }
                Some((Step::Key(k), rest)) if *k == key => {
                    map.next_value_seed(Repeat {
                        steps: rest,
                        ..self
                    })?;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(())
    }
}

/// Whether `node` takes an object only: no form of it is an array.
fn object_only(schema: &Value, node: &Value) -> bool {
    let takes_object = |n: &Value| {
        n.get("type").and_then(Value::as_str) == Some("object") || n.get("properties").is_some()
    };
    let takes_array = |n: &Value| match n.get("type") {
        Some(Value::String(t)) => t == "array",
        Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
        _ => n.get("items").is_some(),
    };
    match node
        .get("oneOf")
        .or(node.get("anyOf"))
        .and_then(Value::as_array)
    {
        Some(forms) => {
            let forms: Vec<&Value> = forms.iter().map(|f| resolve(schema, f)).collect();
            forms.iter().any(|f| takes_object(f)) && !forms.iter().any(|f| takes_array(f))
        }
        None => takes_object(node) && !takes_array(node),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of several forms in the rig format (each `anyOf` of the
    /// schema but an optional's value-or-null) has a phrase for each of its
    /// forms, so a value that matches none is told what they are.
    #[test]
    fn every_form_of_every_field_of_several_forms_is_named() {
        let schema = format_schema();
        let mut fields = 0;
        let mut stack = vec![&schema];
        while let Some(node) = stack.pop() {
            match node {
                Value::Object(m) => {
                    if let Some(Value::Array(any)) = m.get("anyOf") {
                        let branches: Vec<&Value> = any
                            .iter()
                            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"))
                            .collect();
                        if branches.len() > 1 {
                            fields += 1;
                            let got = forms(&schema, node);
                            assert_eq!(got.len(), branches.len(), "{node}: {got:?}");
                        }
                    }
                    stack.extend(m.values());
                }
                Value::Array(v) => stack.extend(v),
                _ => {}
            }
        }
        assert!(fields >= 5, "{fields} fields of several forms");
    }

    /// The rig format's description of a far chain states the factors
    /// it is drawn with.
    #[test]
    fn the_far_sides_factors_are_the_ones_the_format_states() {
        use crate::figure::chain::{FAR_SHADE, FAR_WIDTH};
        let schema = format_schema().to_string();
        for factor in [FAR_WIDTH, FAR_SHADE] {
            let said = format!("{factor} of the");
            assert!(schema.contains(&said), "{said}");
        }
    }
}
