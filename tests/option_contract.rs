//! The search options are one contract, declared in Rust
//! (`memdex::query::options::SEARCH_FIELDS`, the keys `SearchOptions::from_json`
//! accepts) and documented in `pkg-template/index.d.ts` (`SearchOptions`);
//! the entrances' own names for them (MCP tool inputs, the Worker's REST
//! parameters) are checked against `index.d.ts` by
//! `tests/js/entrances.test.mjs`. This test fails when an option exists on
//! one side only, or when the parser accepts a key without reading it.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeSet;

use memdex::query::options::{SearchOptions, SEARCH_FIELDS};

/// The top-level keys of `export interface SearchOptions` in index.d.ts.
fn declared_keys() -> BTreeSet<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg-template/index.d.ts");
    let text = std::fs::read_to_string(path).unwrap();
    let start = text
        .find("export interface SearchOptions")
        .expect("index.d.ts declares SearchOptions");
    let mut keys = BTreeSet::new();
    let mut depth = 0i32;
    let mut in_comment = false;
    for line in text[start..].lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("/*") {
            in_comment = true;
        }
        if in_comment {
            in_comment = !trimmed.contains("*/");
            continue;
        }
        if depth == 1 {
            let name: String = trimmed
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let rest = &trimmed[name.len()..];
            if !name.is_empty() && (rest.starts_with("?:") || rest.starts_with(':')) {
                keys.insert(name);
            }
        }
        depth += line.matches('{').count() as i32 - line.matches('}').count() as i32;
        if depth == 0 && line.contains('}') {
            break;
        }
    }
    keys
}

/// Options the package answers before the engine, which never sees them:
/// `semantic` asks the package's embedder for the query's vector (embed.js)
/// and reaches the engine as `vector`.
const PACKAGE_ONLY: &[&str] = &["semantic"];

#[test]
fn rust_and_typescript_declare_the_same_search_options() {
    let rust: BTreeSet<String> = SEARCH_FIELDS.iter().map(|s| s.to_string()).collect();
    let mut ts = declared_keys();
    for key in PACKAGE_ONLY {
        assert!(
            ts.remove(*key),
            "{key} is listed as package-only but index.d.ts does not declare it"
        );
        assert!(
            !rust.contains(*key),
            "{key} is listed as package-only but the engine reads it"
        );
    }
    let only_rust: Vec<_> = rust.difference(&ts).collect();
    let only_ts: Vec<_> = ts.difference(&rust).collect();
    assert!(
        only_rust.is_empty() && only_ts.is_empty(),
        "search options declared on one side only: Rust (SEARCH_FIELDS) only {only_rust:?}, \
         index.d.ts (SearchOptions) only {only_ts:?}; declare each option in both"
    );
}

/// A value for each option that differs from its default.
fn sample(key: &str) -> &'static str {
    match key {
        "mode" => r#""and""#,
        "syntax" => r#""strict""#,
        "limit" => "3",
        "offset" => "2",
        "minHits" => "4",
        "fields" => r#"{"title": 2}"#,
        "filter" => r#"{"namespace": "a"}"#,
        "prefix" | "explain" | "dedupe" | "highlight" | "proximity" | "expand" => "true",
        "fuzzy" => "1",
        "k1" => "1.5",
        "b" => "0.5",
        "storedFields" => "false",
        "sort" => r#"{"field": "timestamp"}"#,
        "vector" => "[0.5, 0.5]",
        "vectorField" => r#""v""#,
        "hybrid" => r#"{"alpha": 0.3}"#,
        "strategy" => r#""auto""#,
        "recency" => r#"{"halfLife": "7d"}"#,
        "diversity" => "0.5",
        "trackTotal" => "50",
        other => panic!("no sample value for the search option `{other}`: add one here"),
    }
}

#[test]
fn every_accepted_option_is_read() {
    let default = SearchOptions::default();
    for key in SEARCH_FIELDS {
        let json = format!("{{\"{key}\": {}}}", sample(key));
        let value = memdex::json::parse(&json).unwrap();
        let parsed = SearchOptions::from_json(&value)
            .unwrap_or_else(|e| panic!("`{key}` is declared but refused: {e}"));
        assert_ne!(parsed, default, "`{key}` is accepted but changes nothing");
    }
}
