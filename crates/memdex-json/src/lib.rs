//! memdex's JSON: a value tree, a strict parser and a byte-stable writer
//! (spec: README.md beside this crate).
//!
//! What it accepts: RFC 8259 text, strictly ([`parse`], [`validate`]): no
//! trailing commas, comments, leading zeros, `NaN`/`Infinity`, lone
//! surrogate escapes or raw control characters in strings; at most
//! [`parse::MAX_DEPTH`] - 1 nested containers (deeper is an error, never a
//! stack overflow). [`object_members`] gives an object's members as (key,
//! raw value text) without building values.
//!
//! What it builds ([`Value`]): integers as `u64` (non-negative) or `i64`,
//! any other number as the correctly rounded `f64` (an integer too large
//! for both becomes a float); objects as a [`Map`] sorted by key, a
//! duplicate key keeping its last value.
//!
//! What it writes ([`ToJson`], [`to_string`]): compact text, members in key
//! order, floats as their shortest round-trip text; the bytes are a
//! persistence format and never change.
//!
//! Errors: a [`parse::Reason`] and a position, displayed as `<reason> at
//! line L column C`.
//!
//! Why its own: the wasm needed only a `Value` parser, raw member spans and
//! compact output; serde_json brought its generic deserializer machinery and
//! error formatting that linked `<f64 as Display>` and
//! `core::unicode::printable` (bench/HISTORY.md, "Bundle size").
//! tests/json_props.rs checks every statement above against serde_json on
//! arbitrary and garbled texts (accepted texts, errors with their
//! positions, values, output bytes).
//!
//! - `value.rs`: [`Value`], [`Number`], [`Map`];
//! - `parse.rs`: [`parse`], [`validate`], [`object_members`];
//! - `number.rs`: decimal to `f64` (on wasm the slow path is the host's
//!   `parseFloat`: `core::num::dec2flt` would add ~15 KB gz);
//! - `write.rs`: [`ToJson`] and the string escaper;
//! - `fieldmap.rs`: [`FieldMap`], the sorted-`Vec` map behind [`Map`];
//! - `sort.rs`: the allocation-light sorts memdex shares.

pub mod fieldmap;
mod number;
pub mod parse;
/// Sorting helpers shared with memdex (no `sort_unstable` instantiations in
/// the wasm): `order_by_bytes` orders object members by key here.
pub mod sort;
mod value;
mod write;

pub use fieldmap::FieldMap;
pub use parse::{object_members, parse, string_literal, validate, Error};
pub use value::{Map, Number, Value};
pub use write::{pretty, string as write_string, Object, ToJson};

use std::borrow::Cow;

/// The top-level `(key, raw value)` pairs of a JSON object, in input order
/// (a reusable buffer: documents are read and stored fields split with it).
#[derive(Default)]
pub struct RawPairs<'a>(pub Vec<(Cow<'a, str>, &'a str)>);

impl<'a> RawPairs<'a> {
    /// Replaces the pairs by the members of `json` (keys unescaped, values
    /// as written); `false` unless `json` is exactly one JSON object.
    pub fn read(&mut self, json: &'a str) -> bool {
        self.0.clear();
        matches!(object_members(json, &mut self.0), Ok(true))
    }

    pub fn pairs(&self) -> &[(Cow<'a, str>, &'a str)] {
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
mod spec {
    use super::*;

    /// The examples the crate documentation states.
    #[test]
    fn stated_behaviour() {
        let out = |text: &str| to_string(&parse(text).unwrap());
        assert_eq!(
            out(r#"{"b":1,"a":[1.0,-0,1e100,0.1],"b":2}"#),
            r#"{"a":[1.0,-0.0,1e+100,0.1],"b":2}"#
        );
        assert_eq!(out("18446744073709551616"), "1.8446744073709552e+19");
        assert_ne!(parse("1").unwrap(), parse("1.0").unwrap());
        for bad in ["[1,]", "01", "NaN", "// c\n1", "\"\\ud800\"", "\"a\u{1}\""] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
        assert!(parse(&deep(parse::MAX_DEPTH as usize - 1)).is_ok());
        let err = parse(&deep(parse::MAX_DEPTH as usize)).unwrap_err();
        assert_eq!(err.reason(), parse::Reason::RecursionLimitExceeded);
        assert_eq!(
            parse("[1,").unwrap_err().to_string(),
            "EOF while parsing a value at line 1 column 3"
        );
    }
}

/// Test support for memdex's own tests (feature `serde-oracle`, a
/// dev-dependency feature: never in the shipped build).
#[cfg(feature = "serde-oracle")]
#[doc(hidden)]
pub mod tests {
    use super::*;

    /// A serde_json value (tests build documents with `json!`) as ours.
    pub fn from_serde(v: serde_json::Value) -> Value {
        match parse(&v.to_string()) {
            Ok(v) => v,
            Err(e) => panic!("{e}: {v}"),
        }
    }
}
