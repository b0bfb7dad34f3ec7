//! memdex's own JSON: a value tree, a strict parser and a writer.
//!
//! Replaces serde_json (and serde) in the library: the wasm needed only a
//! `Value` parser, raw member spans and compact output, but serde_json
//! brought its generic deserializer machinery, `RawValue`, and error
//! formatting that linked `<f64 as Display>` and `core::unicode::printable`
//! (see bench/HISTORY.md, "Bundle size"). Behaviour is serde_json's where
//! memdex relied on it, and tests/json_props.rs checks it against
//! serde_json on arbitrary and garbled texts:
//! - accepted and rejected texts, errors (reason, line, column) and the
//!   recursion limit ([`parse::MAX_DEPTH`]);
//! - values: integers as `u64`/`i64`, other numbers as correctly rounded
//!   `f64`, objects sorted by key with the last duplicate kept;
//! - output ([`ToJson`]): byte-identical compact text (persisted manifests
//!   and stored fields depend on it).
//!
//! - `value.rs`: [`Value`], [`Number`], [`Map`];
//! - `parse.rs`: [`parse`], [`validate`], [`object_members`] (raw spans of
//!   an object's members, for documents and stored fields);
//! - `number.rs`: decimal to `f64`;
//! - `write.rs`: [`ToJson`] and the string escaper.

mod number;
pub mod parse;
mod value;
mod write;

pub use parse::{object_members, parse, string_literal, validate, Error};
pub use value::{Map, Number, Value};
pub use write::{pretty, string as write_string, Object, ToJson};

use std::borrow::Cow;

/// The top-level `(key, raw value)` pairs of a JSON object, in input order
/// (a reusable buffer: documents are read and stored fields split with it).
#[derive(Default)]
pub struct RawPairs<'a>(pub(crate) Vec<(Cow<'a, str>, &'a str)>);

impl<'a> RawPairs<'a> {
    /// Replaces the pairs by the members of `json` (keys unescaped, values
    /// as written); `false` unless `json` is exactly one JSON object.
    pub(crate) fn read(&mut self, json: &'a str) -> bool {
        self.0.clear();
        matches!(object_members(json, &mut self.0), Ok(true))
    }

    pub(crate) fn pairs(&self) -> &[(Cow<'a, str>, &'a str)] {
        &self.0
    }
}

/// Compact JSON text of a value.
pub fn to_string<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = String::new();
    value.write_json(&mut out);
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A serde_json value (tests build documents with `json!`) as ours.
    pub(crate) fn from_serde(v: serde_json::Value) -> Value {
        match parse(&v.to_string()) {
            Ok(v) => v,
            Err(e) => panic!("{e}: {v}"),
        }
    }
}
