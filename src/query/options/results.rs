//! The answer to a search: hits, how each was found, and what limited it.

use crate::json::{Object, ToJson};
use crate::query::budget::Limited;
use crate::FieldMap;

use super::search::Mode;

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
    pub via: Option<Via>,
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
    /// [`crate::query::budget`].
    pub limited: Vec<Limited>,
    /// What the engine read differently from how it was written (lenient
    /// `kind:rule` applied as a filter, `foo:bar` with no field `foo`
    /// searched as words), one sentence each; empty for most searches.
    pub warnings: Vec<String>,
    /// What `strategy: 'auto'` chose (absent otherwise).
    pub strategy: Option<Choice>,
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

impl ToJson for Via {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("from", &self.from)
            .field("type", &self.link_type)
            .field("hops", &(self.hops as usize))
            .end();
    }
}

impl ToJson for Limited {
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

/// How a document reached by expansion was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Via {
    /// The hit (or the `related` start) the traversal started from.
    pub from: String,
    /// The type of the last edge followed.
    pub link_type: String,
    /// Edges from `from`.
    pub hops: u32,
}

/// Why `auto` chose its mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Quoted,
    Identifier,
    Short,
    NaturalLanguage,
}

impl Reason {
    pub fn name(self) -> &'static str {
        match self {
            Reason::Quoted => "quoted",
            Reason::Identifier => "identifier",
            Reason::Short => "short",
            Reason::NaturalLanguage => "natural-language",
        }
    }
}

/// What `auto` chose for one query.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub reason: Reason,
    pub mode: Mode,
    /// Proximity rerank on (natural-language questions).
    pub proximity: bool,
    /// Link expansion hops (relation questions).
    pub expand_hops: Option<u8>,
    /// Hybrid lexical + vector fusion (a `vector` option was given).
    pub hybrid: bool,
    /// The text searched, when the rules rewrote the query (relation
    /// words removed).
    pub query: Option<String>,
}

impl ToJson for Choice {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.field("name", &"auto")
            .field("reason", &self.reason.name())
            .field("mode", &self.mode)
            .field("proximity", &self.proximity);
        if let Some(hops) = self.expand_hops {
            o.field("expand", &Hops(hops));
        }
        if self.hybrid {
            o.field("hybrid", &true);
        }
        if let Some(q) = &self.query {
            o.field("query", q);
        }
        o.end();
    }
}

struct Hops(u8);

impl ToJson for Hops {
    fn write_json(&self, out: &mut String) {
        Object::new(out).field("hops", &(self.0 as u64)).end();
    }
}
