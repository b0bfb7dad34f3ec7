//! Search options and results: the public shape of a search, shared by the
//! Rust API, the wasm layer (JSON) and the CLI.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How query terms combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Any term may match; more matching terms score higher.
    #[default]
    Or,
    /// Every term is required.
    And,
    /// Run AND; when it finds fewer than `minHits`, run OR instead.
    Fallback,
}

/// Query syntax handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    /// Never fails: malformed syntax degrades to plain terms.
    #[default]
    Lenient,
    /// Fails with `INVALID_QUERY` naming position and reason.
    Strict,
}

/// Highlighting of matched terms in snippets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct HighlightOptions {
    pub pre_tag: String,
    pub post_tag: String,
    /// Approximate snippet length in characters.
    pub snippet_length: usize,
}

impl Default for HighlightOptions {
    fn default() -> Self {
        HighlightOptions {
            pre_tag: "<mark>".into(),
            post_tag: "</mark>".into(),
            snippet_length: 160,
        }
    }
}

/// Options of one search. Every field has a default; JS passes camelCase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct SearchOptions {
    pub mode: Mode,
    pub syntax: Syntax,
    pub limit: usize,
    pub offset: usize,
    /// For `Mode::Fallback`: the AND result is kept when it has at least this
    /// many hits.
    pub min_hits: usize,
    /// Restrict to these text fields, with optional weight overrides.
    pub fields: Option<BTreeMap<String, f32>>,
    /// Structural filter (see [`crate::query::filter`]); a JSON object keyed
    /// by field name.
    pub filter: Option<Value>,
    /// Treat every bare term as a prefix as well (search-as-you-type).
    pub prefix: bool,
    /// Edit distance applied to every bare term (0, 1 or 2).
    pub fuzzy: u8,
    /// `None` or `Some(false)`-like: no snippets. Present: snippets per field.
    pub highlight: Option<HighlightOptions>,
    pub explain: bool,
    pub k1: Option<f32>,
    pub b: Option<f32>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            mode: Mode::Or,
            syntax: Syntax::Lenient,
            limit: 10,
            offset: 0,
            min_hits: 1,
            fields: None,
            filter: None,
            prefix: false,
            fuzzy: 0,
            highlight: None,
            explain: false,
            k1: None,
            b: None,
        }
    }
}

/// One term's contribution in one field, for `explain`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TermExplanation {
    pub term: String,
    pub field: String,
    pub idf: f32,
    pub tf: f32,
    pub field_length: f32,
    pub avg_field_length: f32,
    pub weight: f32,
    pub score: f32,
}

/// One search hit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    pub id: String,
    pub score: f32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    /// Stored fields of the document (JSON text; `get`/`to_map` parse it).
    pub fields: crate::store::StoredFields,
    /// Index terms of the query that occur in this document.
    pub matched_terms: Vec<String>,
    /// Field -> HTML-escaped snippet with highlight tags (when asked for).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub snippets: BTreeMap<String, String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Vec<TermExplanation>>,
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchResults {
    pub hits: Vec<Hit>,
    /// The mode that produced `hits` (`Fallback` resolves to `And` or `Or`).
    pub mode: Mode,
}
