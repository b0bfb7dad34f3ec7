//! Stored fields handed out with hits, kept as JSON text.
//!
//! The document store already holds each document's stored fields as a JSON
//! object. Parsing that into `Value`s only to serialize it again
//! for the JS boundary cost more than the whole top-k search for typical
//! queries (~1.3 µs per stored field in wasm). [`StoredFields`] validates the
//! text once and serializes it verbatim; callers that want values parse on
//! demand ([`StoredFields::get`], [`StoredFields::to_map`]).

use std::borrow::Cow;
use std::fmt;

use crate::json::{self, Map, ToJson, Value};

use crate::json::RawPairs;
use crate::schema::NAMESPACE_KEY;

/// A JSON object of stored fields (never the namespace, which hits carry on
/// their own). Invariant: the text is a valid JSON object without
/// surrounding whitespace; `None` is `{}`, so hits without stored fields
/// allocate nothing for them.
#[derive(Clone)]
pub struct StoredFields(Option<Box<str>>);

impl StoredFields {
    /// No stored fields: `{}`.
    pub fn empty() -> StoredFields {
        StoredFields(None)
    }

    /// Splits a document's stored JSON into its fields and its namespace.
    /// Bytes that are not a JSON object give no fields: persisted bytes are
    /// checksummed, so this only keeps a bug from reaching the caller.
    pub fn split_namespace(stored: &[u8]) -> (StoredFields, Option<String>) {
        let Ok(text) = std::str::from_utf8(stored) else {
            return (StoredFields::empty(), None);
        };
        // The writer emits keys unescaped, so a stored namespace always
        // shows as this literal; without it the text is returned as it is.
        if !text.contains("\"namespace\"") {
            return (StoredFields(raw(Cow::Borrowed(text))), None);
        }
        if let Some(split) = split_trailing_namespace(text) {
            return split;
        }
        let mut pairs = RawPairs::default();
        if !pairs.read(text) {
            return (StoredFields::empty(), None);
        }
        let namespace = pairs
            .pairs()
            .iter()
            .find(|(key, _)| key == NAMESPACE_KEY)
            .and_then(|(_, value)| json_string(value));
        let fields = object(pairs.pairs().iter().filter(|(key, _)| key != NAMESPACE_KEY));
        (fields, namespace)
    }

    /// Only the namespace of a document's stored JSON (hits that return no
    /// stored fields still carry it).
    pub fn namespace_of(stored: &[u8]) -> Option<String> {
        // From the end: the writer puts the namespace last, so this reads a
        // few bytes instead of validating and scanning the whole document.
        let at = rfind(stored, br#""namespace""#)?;
        let tail = std::str::from_utf8(&stored[at..]).ok();
        tail.and_then(trailing_namespace)
            .map(|(_, namespace)| namespace)
            .or_else(|| StoredFields::split_namespace(stored).1)
    }

    /// The fields named in `names` (in stored order); others dropped.
    pub fn select(&self, names: &[String]) -> StoredFields {
        let mut pairs = RawPairs::default();
        if !pairs.read(self.as_json()) {
            return StoredFields::empty();
        }
        object(
            pairs
                .pairs()
                .iter()
                .filter(|(key, _)| names.iter().any(|n| n == key)),
        )
    }

    /// The JSON text of the object.
    pub fn as_json(&self) -> &str {
        self.0.as_deref().unwrap_or("{}")
    }

    /// The value of one stored field, parsed.
    pub fn get(&self, key: &str) -> Option<Value> {
        self.to_map().remove(key)
    }

    /// All stored fields, parsed.
    pub fn to_map(&self) -> Map {
        match json::parse(self.as_json()) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }
}

/// The document writer puts the namespace last (`…,"namespace":"ns"}`):
/// cut it off without parsing the object into members. `None` when the text
/// does not end that way (then the general path decides).
fn split_trailing_namespace(text: &str) -> Option<(StoredFields, Option<String>)> {
    let (at, namespace) = trailing_namespace(text)?;
    let before = text[..at].trim_end();
    let fields = match before.strip_suffix(',') {
        Some(rest) => format!("{rest}}}"),
        None if before == "{" => "{}".to_string(),
        None => return None,
    };
    // Validation also rejects a `"namespace":` that sat inside a string.
    let fields = raw(Cow::Owned(fields))?;
    Some((StoredFields(Some(fields)), Some(namespace)))
}

/// `(offset of the key, namespace)` when the text ends with
/// `"namespace":"…"}`.
fn trailing_namespace(text: &str) -> Option<(usize, String)> {
    let at = text.rfind(NAMESPACE_KEY_JSON_STR)?;
    let value = text[at + NAMESPACE_KEY_JSON_STR.len()..].strip_suffix('}')?;
    Some((at, json_string(value)?))
}

/// The string `json` holds, if it is exactly one JSON string.
fn json_string(json: &str) -> Option<String> {
    json::string_literal(json).map(|s| s.into_owned())
}

/// The namespace member's key as the writer emits it.
const NAMESPACE_KEY_JSON_STR: &str = "\"namespace\":";

/// Offset of the last occurrence of `needle` in `haystack`.
fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    (0..=haystack.len().checked_sub(needle.len())?)
        .rev()
        .find(|&i| haystack[i] == first && haystack[i..].starts_with(needle))
}

/// Writes members back as one JSON object.
fn object<'p, 'a: 'p>(pairs: impl Iterator<Item = &'p (Cow<'a, str>, &'a str)>) -> StoredFields {
    let mut json = String::from("{");
    for (key, value) in pairs {
        if json.len() > 1 {
            json.push(',');
        }
        json::write_string(key, &mut json);
        json.push(':');
        json.push_str(value);
    }
    json.push('}');
    StoredFields(raw(Cow::Owned(json)))
}

/// Validates `json` as an object and boxes it without surrounding
/// whitespace (valid JSON starts and ends with non-space ASCII, so `trim`
/// removes exactly the JSON whitespace); an owned text that is already
/// trimmed is kept, not copied.
fn raw(json: Cow<'_, str>) -> Option<Box<str>> {
    json::validate(&json).ok()?;
    let trimmed = json.trim();
    if !trimmed.starts_with('{') {
        return None;
    }
    Some(match json {
        Cow::Owned(s) if s.len() == trimmed.len() => s.into_boxed_str(),
        _ => trimmed.into(),
    })
}

impl PartialEq for StoredFields {
    fn eq(&self, other: &Self) -> bool {
        self.as_json() == other.as_json()
    }
}

impl fmt::Debug for StoredFields {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_json())
    }
}

impl Default for StoredFields {
    fn default() -> Self {
        StoredFields::empty()
    }
}

/// The object's text, verbatim.
impl ToJson for StoredFields {
    fn write_json(&self, out: &mut String) {
        out.push_str(self.as_json());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_without_namespace_is_kept_verbatim() {
        let stored = br#"{"text":"a \"quoted\" \u00e9 line","title":"T"}"#;
        let (fields, ns) = StoredFields::split_namespace(stored);
        assert_eq!(ns, None);
        assert_eq!(fields.as_json().as_bytes(), stored);
        assert_eq!(fields.get("text").unwrap(), "a \"quoted\" é line");
    }

    #[test]
    fn namespace_is_split_off_and_order_kept() {
        let stored = br#"{"b":[1,{"x":null}],"a":"namespace","namespace":"ns\"1"}"#;
        let (fields, ns) = StoredFields::split_namespace(stored);
        assert_eq!(ns.as_deref(), Some("ns\"1"));
        assert_eq!(fields.as_json(), r#"{"b":[1,{"x":null}],"a":"namespace"}"#);
        assert_eq!(
            Value::Object(fields.to_map()),
            crate::json::tests::from_serde(json!({"a": "namespace", "b": [1, {"x": null}]}))
        );
    }

    #[test]
    fn namespace_anywhere_and_lookalikes() {
        let cases: [(&[u8], &str, Option<&str>); 4] = [
            (br#"{"namespace":"n","z":1}"#, r#"{"z":1}"#, Some("n")),
            (
                br#"{"a":"x\",\"namespace\":\"n\"}"}"#,
                r#"{"a":"x\",\"namespace\":\"n\"}"}"#,
                None,
            ),
            (br#"{"a":1, "namespace" : "n" }"#, r#"{"a":1}"#, Some("n")),
            (
                br#"{"a":"\"namespace\":","namespace":"n"}"#,
                r#"{"a":"\"namespace\":"}"#,
                Some("n"),
            ),
        ];
        for (stored, fields, ns) in cases {
            let (got, got_ns) = StoredFields::split_namespace(stored);
            assert_eq!(
                (got.as_json(), got_ns.as_deref()),
                (fields, ns),
                "{}",
                String::from_utf8_lossy(stored)
            );
        }
    }

    /// `namespace_of` (the `storedFields: false` path) reads from the end
    /// only; it must agree with the full split on every input.
    #[test]
    fn namespace_of_agrees_with_split() {
        let inputs: [&[u8]; 14] = [
            br#"{"namespace":"n","z":1}"#,
            br#"{"a":"x\",\"namespace\":\"n\"}"}"#,
            br#"{"a":1, "namespace" : "n" }"#,
            br#"{"a":"\"namespace\":","namespace":"n"}"#,
            br#"{"a":{"namespace":"inner"}}"#,
            br#"{"a":{"x":1,"namespace":"inner"},"namespace":"outer"}"#,
            br#"{"namespace":"ns\"1"}"#,
            br#"{"namespace":"\u00e9"}"#,
            br#"{"a":"namespace"}"#,
            br#"{"namespace":1}"#,
            b"{\"namespace\":1",
            b"",
            &[0xff, b'"', b'n'],
            b"{\"t\":\"\xc3\xa9\",\"namespace\":\"n\"}",
        ];
        for stored in inputs {
            assert_eq!(
                StoredFields::namespace_of(stored),
                StoredFields::split_namespace(stored).1,
                "{}",
                String::from_utf8_lossy(stored)
            );
        }
    }

    proptest::proptest! {
        #[test]
        fn namespace_of_agrees_with_split_on_objects(
            members in proptest::collection::vec(("[a-z\"\\:{}]{0,12}", "[ -~é]{0,12}"), 0..5),
            namespace in proptest::option::of("[ -~é]{0,8}"),
        ) {
            let mut map = serde_json::Map::new();
            for (k, v) in members {
                map.insert(k, serde_json::Value::String(v));
            }
            let mut json = serde_json::to_string(&map).unwrap();
            if let Some(ns) = namespace {
                json.pop();
                if json.len() > 1 {
                    json.push(',');
                }
                json.push_str(&format!("\"namespace\":{}}}", serde_json::to_string(&ns).unwrap()));
            }
            proptest::prop_assert_eq!(
                StoredFields::namespace_of(json.as_bytes()),
                StoredFields::split_namespace(json.as_bytes()).1
            );
        }
    }

    #[test]
    fn only_a_namespace_leaves_an_empty_object() {
        let (fields, ns) = StoredFields::split_namespace(br#"{"namespace":"n"}"#);
        assert_eq!((fields.as_json(), ns.as_deref()), ("{}", Some("n")));
    }

    #[test]
    fn undecodable_bytes_give_no_fields() {
        for bad in [
            &b""[..],
            b"{",
            b"[1,2]",
            b"\"s\"",
            b"{\"a\":}",
            &[0xff, 0xfe],
            b"{\"namespace\":1",
        ] {
            let (fields, ns) = StoredFields::split_namespace(bad);
            assert_eq!(fields.as_json(), "{}", "{bad:?}");
            assert_eq!(ns, None);
        }
    }

    #[test]
    fn serializes_as_the_object_itself() {
        let (fields, _) = StoredFields::split_namespace(b" {\"k\":[true,2.50]}\n");
        assert_eq!(fields.to_json(), r#"{"k":[true,2.50]}"#);
        assert_eq!(StoredFields::empty().to_json(), "{}");
        assert!(raw(Cow::Borrowed("[1]")).is_none());
    }
}
