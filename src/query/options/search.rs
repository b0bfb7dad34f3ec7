//! The options of one search, with their defaults.

use crate::json::Value;
use crate::FieldMap;

use super::stages::{ExpandOptions, ProximityOptions, RecencyOptions, SortSpec};

/// `fuzzy: 'auto'` / `true`: words the index does not contain (no live
/// document) get the distance of their length ([`crate::query::plan::auto_distance`]), the
/// matches at one edit if any, else those at two; words it contains are
/// taken as meant.
pub const FUZZY_AUTO: u8 = u8::MAX;

/// How query terms combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Any term may match; more matching terms score higher. The default:
    /// measured best for natural-language questions (BENCHMARKS.md,
    /// "Proximity and the natural-language default"); the MCP tools and
    /// the Worker pass no mode unless asked, so they share it.
    #[default]
    Or,
    /// Every term is required.
    And,
    /// Run AND; when it finds fewer than `minHits`, run OR instead.
    Fallback,
}

/// Query syntax handling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// Never fails: malformed syntax degrades to plain terms.
    #[default]
    Lenient,
    /// Fails with `INVALID_QUERY` naming position and reason.
    Strict,
}

/// How a search picks its options (`strategy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// The options as given.
    #[default]
    None,
    /// Rules pick the mode (and proximity, expansion, hybrid) from the
    /// query text; see [`crate::query::strategy`].
    Auto,
}

/// Highlighting of matched terms in snippets.
///
/// Deserialized by hand ([`HighlightOptions::from_json`]): same inputs as a
/// `#[serde(default, deny_unknown_fields)]` derive, much less wasm.
#[derive(Debug, Clone, PartialEq)]
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
///
/// Deserialized by hand ([`SearchOptions::from_json`]): same inputs as a
/// `#[serde(default, deny_unknown_fields)]` derive, much less wasm.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchOptions {
    pub mode: Mode,
    pub syntax: Syntax,
    pub limit: usize,
    pub offset: usize,
    /// For `Mode::Fallback`: the AND result is kept when it has at least this
    /// many hits.
    pub min_hits: usize,
    /// Restrict to these text fields, with optional weight overrides.
    pub fields: Option<FieldMap<f32>>,
    /// Structural filter (see [`crate::filter`]); a JSON object keyed
    /// by field name.
    pub filter: Option<Value>,
    /// Treat every bare term as a prefix as well (search-as-you-type).
    pub prefix: bool,
    /// Edit distance applied to every bare term (0, 1 or 2), or
    /// [`FUZZY_AUTO`] (by word length).
    pub fuzzy: u8,
    /// `None` or `Some(false)`-like: no snippets. Present: snippets per field.
    pub highlight: Option<HighlightOptions>,
    pub explain: bool,
    pub k1: Option<f32>,
    pub b: Option<f32>,
    /// Which stored fields hits carry (JSON `storedFields`: `true`, `false`
    /// or a list of names).
    pub stored_fields: StoredSelection,
    /// Order by a field instead of by score (see [`crate::query::list`]).
    pub sort: Option<SortSpec>,
    /// Query vector (`vector`): alone, a pure vector search; with a query
    /// string, a hybrid search (see [`crate::vector`]).
    pub vector: Option<Vec<f32>>,
    /// The vector field searched (`vectorField`); may be left out when the
    /// schema has one vector field.
    pub vector_field: Option<String>,
    /// How lexical and vector candidates are fused (`hybrid`); defaults
    /// apply when a vector comes with a query string.
    pub hybrid: Option<crate::vector::fusion::HybridOptions>,
    /// Term-proximity rerank of the top candidates (see
    /// [`crate::query::rerank::proximity`]); off by default.
    pub proximity: Option<ProximityOptions>,
    /// `Auto`: the options above that it decides are chosen by rules.
    pub strategy: Strategy,
    /// Add the documents linked to the hits (see [`crate::query::expand`]).
    pub expand: Option<ExpandOptions>,
    /// Decay scores by document age.
    pub recency: Option<RecencyOptions>,
    /// MMR lambda (1 = relevance only, 0 = diversity only).
    pub diversity: Option<f32>,
    /// Collapse hits with the same normalized title+text.
    pub dedupe: bool,
    /// Count matches exactly up to this many (JSON `trackTotal`: a number,
    /// `true` for every match, `false` for none); past it `total` is a
    /// lower bound with `total_exact` false.
    pub track_total: usize,
}

/// Default `trackTotal`: Elasticsearch's `track_total_hits`.
pub const DEFAULT_TRACK_TOTAL: usize = 10_000;

/// Stored fields returned with each hit.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum StoredSelection {
    /// All stored fields (the default).
    #[default]
    All,
    /// None: hits carry ids, scores, matched terms (and snippets when
    /// asked) — the cheapest answer when the caller holds the documents.
    None,
    /// Only these stored fields.
    Only(Vec<String>),
}

impl SearchOptions {
    /// Whether over-limit stages fail (`LIMIT`) rather than flag the answer.
    pub(crate) fn strict(&self) -> bool {
        self.syntax == Syntax::Strict
    }
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
            stored_fields: StoredSelection::All,
            sort: None,
            vector: None,
            vector_field: None,
            hybrid: None,
            proximity: None,
            strategy: Strategy::None,
            expand: None,
            recency: None,
            diversity: None,
            dedupe: false,
            track_total: DEFAULT_TRACK_TOTAL,
        }
    }
}

/// The part of the answer a pass produces, where it differs from the
/// caller's options: a rerank (`diversity`, `dedupe`) ranks a larger pool
/// from the top with every stored field and pages it afterwards; hybrid's
/// lexical list is unsorted and unpaged. Overrides beside the options, not
/// a copy of them.
#[derive(Clone, Copy)]
pub(crate) struct Page<'a> {
    pub offset: usize,
    pub limit: usize,
    pub sort: Option<&'a SortSpec>,
    pub stored: &'a StoredSelection,
    /// Whether hits get their snippets (a rerank pool gets them after
    /// paging: only the page's hits need them).
    pub snippets: bool,
}

impl<'a> Page<'a> {
    /// The page the options ask for.
    pub fn of(opts: &'a SearchOptions) -> Self {
        Page {
            offset: opts.offset,
            limit: opts.limit,
            sort: opts.sort.as_ref(),
            stored: &opts.stored_fields,
            snippets: true,
        }
    }

    /// `offset + limit`: how many ranked candidates the page needs.
    pub fn end(&self) -> usize {
        self.offset + self.limit
    }
}
