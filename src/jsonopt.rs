//! Hand-written reading of JSON option objects (search options, index
//! configuration) from a parsed [`crate::json::Value`].
//!
//! Replaces `#[derive(Deserialize)]` on those types: the derived visitors
//! (one per type and per deserializer, plus serde's buffering for the
//! internally tagged `FieldDef`) cost ~80 KB of wasm, while `Value` parsing is
//! linked anyway for documents. Accepted inputs are those of the derives they
//! replace: unknown keys are rejected, `null` means "absent" only for
//! `Option` fields, a JSON array is read positionally (serde's sequence form
//! of a struct) and a unit enum may be spelled `"name"` or `{"name": null}`.
//! Errors name the offending key path (`highlight.snippetLength`).

use crate::json::{Map, Value};

pub(crate) type Res<T> = std::result::Result<T, String>;

/// `parent.key` (or `key` at the top level), for error messages.
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

/// A short description of a JSON value for "got ..." in error messages.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean `{b}`"),
        Value::Number(n) => format!("number `{n}`"),
        Value::String(s) => format!("string \"{s}\""),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

/// "invalid type for `path`: expected X, got Y".
pub(crate) fn invalid(path: &str, expected: &str, got: &Value) -> String {
    let what = if path.is_empty() {
        String::new()
    } else {
        format!(" for `{path}`")
    };
    format!(
        "invalid type{what}: expected {expected}, got {}",
        describe(got)
    )
}

/// "`a`, `b`, `c`".
fn one_of(names: &[&str]) -> String {
    let mut msg = String::new();
    for (i, f) in names.iter().enumerate() {
        if i > 0 {
            msg.push_str(", ");
        }
        msg.push('`');
        msg.push_str(f);
        msg.push('`');
    }
    msg
}

/// "unknown field `path`, expected one of `a`, `b`".
pub(crate) fn unknown(parent: &str, key: &str, fields: &[&str]) -> String {
    format!(
        "unknown field `{}`, expected one of {}",
        join(parent, key),
        one_of(fields)
    )
}

/// The `(key, value)` pairs of an options object, keys checked against
/// `fields`. A JSON array is read positionally against `fields`.
pub(crate) fn entries<'a>(
    v: &'a Value,
    path: &str,
    fields: &'static [&'static str],
) -> Res<Vec<(&'a str, &'a Value)>> {
    match v {
        Value::Object(m) => members(m, None, path, fields),
        Value::Array(a) => positional(a, path, fields),
        other => Err(invalid(path, "an object", other)),
    }
}

/// [`entries`] of an object, without its member `except` (a tag read
/// separately, not a copy of the object minus the key).
pub(crate) fn members<'a>(
    m: &'a Map,
    except: Option<&str>,
    path: &str,
    fields: &'static [&'static str],
) -> Res<Vec<(&'a str, &'a Value)>> {
    m.iter()
        .filter(|(k, _)| Some(k.as_str()) != except)
        .map(|(k, v)| {
            if fields.contains(&k.as_str()) {
                Ok((k.as_str(), v))
            } else {
                Err(unknown(path, k, fields))
            }
        })
        .collect()
}

/// [`entries`] of a JSON array: its elements are `fields` in order.
pub(crate) fn positional<'a>(
    a: &'a [Value],
    path: &str,
    fields: &'static [&'static str],
) -> Res<Vec<(&'a str, &'a Value)>> {
    if a.len() <= fields.len() {
        Ok(fields.iter().copied().zip(a).collect())
    } else {
        Err(format!(
            "`{}`: expected at most {} elements, got {}",
            if path.is_empty() { "(top level)" } else { path },
            fields.len(),
            a.len()
        ))
    }
}

/// `None` for `null` (an absent `Option`).
pub(crate) fn opt(v: &Value) -> Option<&Value> {
    (!v.is_null()).then_some(v)
}

pub(crate) fn boolean(v: &Value, path: &str, key: &str) -> Res<bool> {
    v.as_bool()
        .ok_or_else(|| invalid(&join(path, key), "a boolean", v))
}

/// A non-negative integer up to `max`.
pub(crate) fn uint(v: &Value, path: &str, key: &str, max: u64) -> Res<u64> {
    match v.as_u64() {
        Some(n) if n <= max => Ok(n),
        _ => Err(invalid(
            &join(path, key),
            &if max == usize::MAX as u64 {
                "a non-negative integer".to_string()
            } else {
                format!("an integer between 0 and {max}")
            },
            v,
        )),
    }
}

pub(crate) fn usize_(v: &Value, path: &str, key: &str) -> Res<usize> {
    uint(v, path, key, usize::MAX as u64).map(|n| n as usize)
}

/// Any JSON number, converted as serde converts it (`u64`/`i64`/`f64` as f32).
pub(crate) fn f32_(v: &Value, path: &str, key: &str) -> Res<f32> {
    match v {
        Value::Number(n) => Ok(if let Some(u) = n.as_u64() {
            u as f32
        } else if let Some(i) = n.as_i64() {
            i as f32
        } else {
            n.as_f64().unwrap_or(f64::NAN) as f32
        }),
        _ => Err(invalid(&join(path, key), "a number", v)),
    }
}

pub(crate) fn string(v: &Value, path: &str, key: &str) -> Res<String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| invalid(&join(path, key), "a string", v))
}

pub(crate) fn strings(v: &Value, path: &str, key: &str) -> Res<Vec<String>> {
    match v {
        Value::Array(a) => a.iter().map(|s| string(s, path, key)).collect(),
        _ => Err(invalid(&join(path, key), "an array of strings", v)),
    }
}

/// Index of a unit variant in `names`: `"name"` or `{"name": null}`.
pub(crate) fn variant(v: &Value, path: &str, key: &str, names: &[&str]) -> Res<usize> {
    let name = match v {
        Value::String(s) => Some(s.as_str()),
        Value::Object(m) if m.len() == 1 => m
            .iter()
            .next()
            .and_then(|(k, v)| v.is_null().then_some(k.as_str())),
        _ => None,
    };
    let Some(name) = name else {
        return Err(invalid(&join(path, key), "a string", v));
    };
    names.iter().position(|n| *n == name).ok_or_else(|| {
        format!(
            "invalid value for `{}`: unknown variant `{name}`, expected one of {}",
            join(path, key),
            one_of(names)
        )
    })
}
