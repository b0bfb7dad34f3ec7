//! Search options and results: the public shape of a search, shared by the
//! Rust API, the wasm layer (JSON) and the CLI.

use crate::json::{Object, ToJson, Value};

use crate::jsonopt;
use crate::FieldMap;

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
    /// query text; see [`super::strategy`].
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
    /// Structural filter (see [`crate::index::filter`]); a JSON object keyed
    /// by field name.
    pub filter: Option<Value>,
    /// Treat every bare term as a prefix as well (search-as-you-type).
    pub prefix: bool,
    /// Edit distance applied to every bare term (0, 1 or 2), or
    /// [`crate::query::plan::FUZZY_AUTO`] (by word length).
    pub fuzzy: u8,
    /// `None` or `Some(false)`-like: no snippets. Present: snippets per field.
    pub highlight: Option<HighlightOptions>,
    pub explain: bool,
    pub k1: Option<f32>,
    pub b: Option<f32>,
    /// Which stored fields hits carry (JSON `storedFields`: `true`, `false`
    /// or a list of names).
    pub stored_fields: StoredSelection,
    /// Order by a field instead of by score (see [`super::list`]).
    pub sort: Option<super::list::SortSpec>,
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
    /// [`super::proximity`]); off by default.
    pub proximity: Option<super::proximity::ProximityOptions>,
    /// `Auto`: the options above that it decides are chosen by rules.
    pub strategy: Strategy,
    /// Add the documents linked to the hits (see [`super::agent`]).
    pub expand: Option<super::agent::ExpandOptions>,
    /// Decay scores by document age.
    pub recency: Option<super::agent::RecencyOptions>,
    /// MMR lambda (1 = relevance only, 0 = diversity only).
    pub diversity: Option<f32>,
    /// Collapse hits with the same normalized title+text.
    pub dedupe: bool,
}

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
        }
    }
}

const HIGHLIGHT_FIELDS: &[&str] = &["preTag", "postTag", "snippetLength"];
const SEARCH_FIELDS: &[&str] = &[
    "mode",
    "syntax",
    "limit",
    "offset",
    "minHits",
    "fields",
    "filter",
    "prefix",
    "fuzzy",
    "highlight",
    "explain",
    "k1",
    "b",
    "storedFields",
    "sort",
    "vector",
    "vectorField",
    "hybrid",
    "proximity",
    "strategy",
    "expand",
    "recency",
    "diversity",
    "dedupe",
];

impl HighlightOptions {
    /// Reads highlight options from JSON; `path` prefixes key names in errors.
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = HighlightOptions::default();
        for (k, v) in jsonopt::entries(v, path, HIGHLIGHT_FIELDS)? {
            match k {
                "preTag" => o.pre_tag = jsonopt::string(v, path, k)?,
                "postTag" => o.post_tag = jsonopt::string(v, path, k)?,
                _ => o.snippet_length = jsonopt::usize_(v, path, k)?,
            }
        }
        Ok(o)
    }
}

impl SearchOptions {
    /// Reads search options from JSON (camelCase keys, every key optional,
    /// unknown keys rejected); the error names the offending key.
    pub fn from_json(v: &Value) -> Result<Self, String> {
        let mut o = SearchOptions::default();
        for (k, v) in jsonopt::entries(v, "", SEARCH_FIELDS)? {
            match k {
                "mode" => {
                    o.mode = [Mode::Or, Mode::And, Mode::Fallback]
                        [jsonopt::variant(v, "", k, &["or", "and", "fallback"])?]
                }
                "syntax" => {
                    o.syntax = [Syntax::Lenient, Syntax::Strict]
                        [jsonopt::variant(v, "", k, &["lenient", "strict"])?]
                }
                "limit" => o.limit = jsonopt::usize_(v, "", k)?,
                "offset" => o.offset = jsonopt::usize_(v, "", k)?,
                "minHits" => o.min_hits = jsonopt::usize_(v, "", k)?,
                "fields" => {
                    o.fields = match jsonopt::opt(v) {
                        None => None,
                        Some(Value::Object(m)) => {
                            let mut fields = FieldMap::new();
                            for (name, w) in m {
                                fields.insert(name.clone(), jsonopt::f32_(w, k, name)?);
                            }
                            Some(fields)
                        }
                        Some(v) => return Err(jsonopt::invalid(k, "an object", v)),
                    }
                }
                "filter" => o.filter = jsonopt::opt(v).cloned(),
                "prefix" => o.prefix = jsonopt::boolean(v, "", k)?,
                "fuzzy" => {
                    o.fuzzy = match v {
                        Value::Bool(false) => 0,
                        Value::Bool(true) => super::plan::FUZZY_AUTO,
                        Value::String(s) if s == "auto" => super::plan::FUZZY_AUTO,
                        // Over 2 is refused when the search starts.
                        _ => jsonopt::uint(v, "", k, u8::MAX.into())?.min(3) as u8,
                    }
                }
                "highlight" => {
                    o.highlight = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(Value::Bool(true)) => Some(HighlightOptions::default()),
                        Some(v) => Some(HighlightOptions::from_json(v, k)?),
                    }
                }
                "explain" => o.explain = jsonopt::boolean(v, "", k)?,
                "storedFields" => {
                    o.stored_fields = match jsonopt::opt(v) {
                        None | Some(Value::Bool(true)) => StoredSelection::All,
                        Some(Value::Bool(false)) => StoredSelection::None,
                        Some(Value::Array(names)) => StoredSelection::Only(
                            names
                                .iter()
                                .map(|n| n.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>()
                                .ok_or_else(|| jsonopt::invalid(k, "a list of field names", v))?,
                        ),
                        Some(v) => {
                            return Err(jsonopt::invalid(
                                k,
                                "true, false or a list of field names",
                                v,
                            ))
                        }
                    }
                }
                "vector" => {
                    o.vector = match jsonopt::opt(v) {
                        None => None,
                        Some(Value::Array(xs)) => Some(
                            xs.iter()
                                .map(|x| x.as_f64().map(|x| x as f32))
                                .collect::<Option<Vec<f32>>>()
                                .ok_or_else(|| {
                                    jsonopt::invalid(
                                        k,
                                        "an array of numbers (or a Float32Array)",
                                        v,
                                    )
                                })?,
                        ),
                        Some(v) => {
                            return Err(jsonopt::invalid(
                                k,
                                "an array of numbers (or a Float32Array)",
                                v,
                            ))
                        }
                    }
                }
                "vectorField" => {
                    o.vector_field = jsonopt::opt(v)
                        .map(|v| jsonopt::string(v, "", k))
                        .transpose()?
                }
                "hybrid" => {
                    o.hybrid = jsonopt::opt(v)
                        .map(crate::vector::fusion::HybridOptions::from_json)
                        .transpose()?
                }
                "proximity" => o.proximity = super::proximity::ProximityOptions::from_json(v)?,
                "strategy" => {
                    o.strategy = [Strategy::None, Strategy::Auto]
                        [jsonopt::variant(v, "", k, &["none", "auto"])?]
                }
                "sort" => {
                    o.sort = jsonopt::opt(v)
                        .map(super::list::SortSpec::from_json)
                        .transpose()?
                }
                "expand" => {
                    o.expand = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(v) => Some(super::agent::ExpandOptions::from_json(v, k)?),
                    }
                }
                "recency" => {
                    o.recency = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(v) => Some(super::agent::RecencyOptions::from_json(v, k)?),
                    }
                }
                "diversity" => {
                    o.diversity = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(Value::Bool(true)) => Some(0.7),
                        Some(Value::Number(_)) => Some(jsonopt::f32_(v, "", k)?),
                        Some(v) => {
                            let mut lambda = 0.7;
                            for (name, x) in jsonopt::entries(v, k, &["lambda"])? {
                                lambda = jsonopt::f32_(x, k, name)?;
                            }
                            Some(lambda)
                        }
                    };
                    if o.diversity.is_some_and(|l| !(0.0..=1.0).contains(&l)) {
                        return Err("`diversity.lambda` must be between 0 and 1".into());
                    }
                }
                "dedupe" => o.dedupe = jsonopt::boolean(v, "", k)?,
                "k1" => {
                    o.k1 = jsonopt::opt(v)
                        .map(|v| jsonopt::f32_(v, "", k))
                        .transpose()?
                }
                _ => {
                    o.b = jsonopt::opt(v)
                        .map(|v| jsonopt::f32_(v, "", k))
                        .transpose()?
                }
            }
        }
        Ok(o)
    }
}

/// One term's contribution in one field, for `explain`.
#[derive(Debug, Clone, PartialEq)]
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
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    pub id: String,
    pub score: f32,
    pub namespace: Option<String>,
    /// Stored fields of the document (JSON text; `get`/`to_map` parse it).
    pub fields: crate::store::StoredFields,
    /// Index terms of the query that occur in this document.
    pub matched_terms: Vec<String>,
    /// Field -> HTML-escaped snippet with highlight tags (when asked for).
    pub snippets: FieldMap<String>,
    pub explanation: Option<Vec<TermExplanation>>,
    /// How a hybrid or vector search found the hit: its rank (from 1) and
    /// score in the lexical list and in the vector list (each absent when
    /// that list did not hold it; both absent for plain searches).
    pub lexical: Option<Found>,
    pub vector: Option<Found>,
    /// How `expand` reached this document (absent for direct matches).
    pub via: Option<super::agent::Via>,
    /// With `dedupe`: ids of the near-duplicates collapsed into this hit.
    pub duplicates: Vec<String>,
}

/// A hit's place in one candidate list of a hybrid search.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Found {
    pub rank: usize,
    pub score: f32,
}

impl ToJson for Found {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("rank", &self.rank)
            .field("score", &self.score)
            .end();
    }
}

/// The answer to a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    pub hits: Vec<Hit>,
    /// The mode that produced `hits` (`Fallback` resolves to `And` or `Or`).
    pub mode: Mode,
    /// Matches before `offset`/`limit`: exact for listings and sorted
    /// searches (they visit every match); for ranked searches, which prune,
    /// a lower bound (the matches scored in full, at least the hits seen),
    /// with `total_exact` false (Elasticsearch's `total.relation: gte`).
    pub total: Option<usize>,
    /// Whether `total` counts every match.
    pub total_exact: bool,
    /// The budgets that ran out while producing `hits` (empty for a full
    /// answer): a lenient search degrades instead of failing, see
    /// [`super::budget`].
    pub limited: Vec<super::budget::Limited>,
    /// What the engine read differently from how it was written (lenient
    /// `kind:rule` applied as a filter, `foo:bar` with no field `foo`
    /// searched as words), one sentence each; empty for most searches.
    pub warnings: Vec<String>,
    /// What `strategy: 'auto'` chose (absent otherwise).
    pub strategy: Option<super::strategy::Choice>,
}

// JSON as the serde derives wrote it (`searchJson`, the CLI): camelCase
// keys in declaration order; a hit omits an absent namespace and
// explanation and empty snippets.

impl Mode {
    /// The lowercase name JSON uses.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Or => "or",
            Mode::And => "and",
            Mode::Fallback => "fallback",
        }
    }
}

impl ToJson for Mode {
    fn write_json(&self, out: &mut String) {
        self.name().write_json(out);
    }
}

impl ToJson for TermExplanation {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("term", &self.term)
            .field("field", &self.field)
            .field("idf", &self.idf)
            .field("tf", &self.tf)
            .field("fieldLength", &self.field_length)
            .field("avgFieldLength", &self.avg_field_length)
            .field("weight", &self.weight)
            .field("score", &self.score)
            .end();
    }
}

impl ToJson for Hit {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.field("id", &self.id).field("score", &self.score);
        if let Some(namespace) = &self.namespace {
            o.field("namespace", namespace);
        }
        o.field("fields", &self.fields)
            .field("matchedTerms", &self.matched_terms);
        if !self.snippets.is_empty() {
            o.field("snippets", &self.snippets);
        }
        if let Some(explanation) = &self.explanation {
            o.field("explanation", explanation);
        }
        self.write_how_found(&mut o);
        o.end();
    }
}

impl Hit {
    /// Writes how a hybrid, expanded or deduplicated search found the hit
    /// (`lexical`, `vector`, `via`, `duplicates`; nothing for plain hits)
    /// into `o`: the JSON of a hit, and the part the wasm results merge
    /// into a hit object.
    pub(crate) fn write_how_found(&self, o: &mut Object<'_>) {
        if let Some(lexical) = &self.lexical {
            o.field("lexical", lexical);
        }
        if let Some(vector) = &self.vector {
            o.field("vector", vector);
        }
        if let Some(via) = &self.via {
            o.field("via", via);
        }
        if !self.duplicates.is_empty() {
            o.field("duplicates", &self.duplicates);
        }
    }
}

impl ToJson for super::agent::Via {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("from", &self.from)
            .field("type", &self.link_type)
            .field("hops", &(self.hops as usize))
            .end();
    }
}

impl ToJson for super::budget::Limited {
    fn write_json(&self, out: &mut String) {
        self.as_str().write_json(out);
    }
}

impl ToJson for SearchResults {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.field("hits", &self.hits).field("mode", &self.mode);
        if let Some(total) = &self.total {
            o.field("total", total);
            o.field("totalExact", &self.total_exact);
        }
        // `tookMs` is not written: equal searches give equal JSON (the JS
        // `search` adds its own measured `tookMs`).
        // Only degraded answers carry it: full answers' JSON is unchanged.
        if !self.limited.is_empty() {
            o.field("limited", &self.limited);
        }
        if !self.warnings.is_empty() {
            o.field("warnings", &self.warnings);
        }
        if let Some(strategy) = &self.strategy {
            o.field("strategy", strategy);
        }
        o.end();
    }
}
