//! From the syntax tree to an executable plan: analyze term text with each
//! field's analyzer, expand prefixes and fuzzy terms against the term
//! dictionaries, resolve implicit operators by the search mode, and attach
//! index-wide statistics (df, idf) to every term.

use crate::error::Result;
use crate::index::segment::Segment;
use crate::postings::{TermInfo, TERMINATED};
use crate::query::searcher::Searcher;
use crate::schema::FieldRef;
use crate::termdict::MAX_EXPANSIONS;
use crate::FieldMap;

use super::ast::{Clause, Occur, Query};
use super::bm25;
use super::budget::Budget;

pub use super::budget::MAX_TERM_EXPANSIONS;
/// Typo matches of one word kept (closest first, then most frequent).
pub const MAX_TYPO_EXPANSIONS: usize = 16;
/// Score multiplier of expanded (non-exact) terms: prefix completions, and
/// typo matches once per edit (distance 1: 0.5, distance 2: 0.25), so an
/// exact match outranks a near one.
pub const EXPANSION_BOOST: f32 = 0.5;
pub use super::options::FUZZY_AUTO;

/// Typo tolerance for a word of `chars` characters: none below 4 (too many
/// short words are one edit apart), 1 up to 7, 2 from 8 on.
pub fn auto_distance(chars: usize) -> u8 {
    match chars {
        0..=3 => 0,
        4..=7 => 1,
        _ => 2,
    }
}

/// One index term of the query with its statistics.
#[derive(Debug, Clone)]
pub struct QueryTerm {
    pub term: String,
    /// Text fields (bit mask) this term is searched in.
    pub fields: u32,
    pub boost: f32,
    pub doc_freq: u64,
    pub idf: f32,
    /// Its postings in each segment the plan was made over, found while
    /// counting `doc_freq` (by the segment's address: the searcher holds
    /// those segments for the whole search), so scoring does not look the
    /// term up again.
    found: Vec<(usize, Option<TermInfo>)>,
}

/// Equal terms and statistics (where each segment holds them aside).
impl PartialEq for QueryTerm {
    fn eq(&self, o: &QueryTerm) -> bool {
        (&self.term, self.fields, self.boost, self.doc_freq, self.idf)
            == (&o.term, o.fields, o.boost, o.doc_freq, o.idf)
    }
}

impl QueryTerm {
    /// The term's postings in `seg` (`None`: the segment lacks it).
    pub fn info(&self, seg: &Segment) -> Option<TermInfo> {
        let key = seg as *const Segment as usize;
        match self.found.iter().find(|(k, _)| *k == key) {
            Some(&(_, info)) => info,
            None => seg.term(&self.term),
        }
    }
}

/// Executable query tree; terms are indexes into [`Plan::terms`].
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Term(usize),
    Phrase {
        /// (term, position offset within the phrase)
        terms: Vec<(usize, u32)>,
        slop: u32,
        fields: u32,
        boost: f32,
        idf: f32,
    },
    Bool {
        must: Vec<Node>,
        should: Vec<Node>,
        must_not: Vec<Node>,
    },
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub root: Option<Node>,
    pub terms: Vec<QueryTerm>,
}

impl Plan {
    /// The plan is a flat disjunction of terms (the MaxScore fast path).
    pub fn flat_terms(&self) -> Option<Vec<usize>> {
        match &self.root {
            Some(Node::Term(t)) => Some(vec![*t]),
            Some(Node::Bool {
                must,
                should,
                must_not,
            }) if must.is_empty() && must_not.is_empty() => only_terms(should),
            _ => None,
        }
    }
}

impl Plan {
    /// The plan is a pure conjunction of terms (the usual AND-mode plan),
    /// in query order.
    pub fn conjunction_terms(&self) -> Option<Vec<usize>> {
        match &self.root {
            Some(Node::Term(t)) => Some(vec![*t]),
            Some(Node::Bool {
                must,
                should,
                must_not,
            }) if should.is_empty() && must_not.is_empty() => only_terms(must),
            _ => None,
        }
    }

    /// Bits of the plan terms every hit contains in a searched field, when
    /// that is all the query asks (a pure conjunction of terms): hits then
    /// need no lookup of their matched terms.
    pub fn conjunction_bits(&self) -> Option<u64> {
        let required = self.conjunction_terms()?;
        (self.terms.len() <= 64).then(|| required.iter().fold(0, |bits, &t| bits | 1 << t))
    }
}

/// The term indexes of `nodes`, if every node is a bare term.
fn only_terms(nodes: &[Node]) -> Option<Vec<usize>> {
    nodes
        .iter()
        .map(|n| match n {
            Node::Term(t) => Some(*t),
            _ => None,
        })
        .collect()
}

pub struct PlanOptions<'a> {
    pub and_mode: bool,
    /// Field name -> weight override; `None` = all text fields, schema weights.
    pub fields: Option<&'a FieldMap<f32>>,
    pub prefix: bool,
    pub fuzzy: u8,
}

pub struct Planner<'a> {
    index: &'a Searcher<'a>,
    opts: PlanOptions<'a>,
    /// Mask of the text fields searched by default.
    default_fields: u32,
    terms: Vec<QueryTerm>,
    /// Expansions and dictionary steps each expanding term may use.
    share: (usize, u64),
    /// Prefix/fuzzy terms of the query (after merging repeats).
    expanding: usize,
}

impl<'a> Planner<'a> {
    pub fn new(index: &'a Searcher<'a>, opts: PlanOptions<'a>) -> Planner<'a> {
        let default_fields = match opts.fields {
            None => (0..index.schema.text.len()).fold(0u32, |m, f| m | (1 << f)),
            Some(map) => map
                .keys()
                .filter_map(|name| match index.schema.by_name.get(name) {
                    Some(FieldRef::Text(f)) => Some(1u32 << f),
                    _ => None,
                })
                .fold(0, |m, b| m | b),
        };
        Planner {
            index,
            opts,
            default_fields,
            terms: Vec::new(),
            share: (MAX_TERM_EXPANSIONS, u64::MAX),
            expanding: 0,
        }
    }

    /// Plans `query` (searches merge its repeated clauses first:
    /// [`super::merge`]), spending expansions from `budget`: `LIMIT` when a
    /// strict search's expansions are cut.
    pub fn plan(mut self, query: &Query, budget: &mut Budget) -> Result<Plan> {
        self.expanding = self.count_expanding(query);
        self.share = budget.expansion_share(self.expanding);
        let and_mode = self.opts.and_mode;
        let root = self.lower(query, 1.0, and_mode, budget)?;
        Ok(Plan {
            root,
            terms: self.terms,
        })
    }

    /// Leaves of `query` that expand (prefix or fuzzy, written or by option).
    fn count_expanding(&self, query: &Query) -> usize {
        match query {
            Query::Term { prefix, fuzzy, .. } => {
                usize::from(*prefix || self.opts.prefix || *fuzzy > 0 || self.opts.fuzzy > 0)
            }
            Query::Phrase { .. } => 0,
            Query::Bool { clauses, .. } => {
                clauses.iter().map(|c| self.count_expanding(&c.query)).sum()
            }
        }
    }

    fn field_mask(&self, field: &Option<String>) -> u32 {
        match field {
            None => self.default_fields,
            Some(name) => match self.index.schema.by_name.get(name) {
                Some(FieldRef::Text(f)) => 1 << f,
                _ => 0,
            },
        }
    }

    /// Analyzes `text` per field; returns per distinct token sequence the
    /// fields producing it (fields sharing an analyzer share a sequence).
    fn analyze(&self, text: &str, mask: u32) -> Vec<(Vec<crate::analysis::Token>, u32)> {
        let mut out: Vec<(Vec<crate::analysis::Token>, u32)> = Vec::new();
        // (analysis group, entry of `out`) of the groups analyzed so far.
        let mut analyzed: Vec<(usize, usize)> = Vec::new();
        for (f, field) in self.index.schema.text.iter().enumerate() {
            if mask & (1 << f) == 0 {
                continue;
            }
            if let Some(&(_, i)) = analyzed.iter().find(|(g, _)| *g == field.analysis_group) {
                out[i].1 |= 1 << f;
                continue;
            }
            let tokens = field.analyzer.analyze(text);
            let i = out
                .iter()
                .position(|(t, _)| *t == tokens)
                .unwrap_or(out.len());
            analyzed.push((field.analysis_group, i));
            match out.get_mut(i) {
                Some((_, m)) => *m |= 1 << f,
                None => out.push((tokens, 1 << f)),
            }
        }
        out
    }

    /// Per token of `text` (as [`Planner::analyze`] yields them for the
    /// fields `fields`), the word before stemming, if it was stemmed.
    fn surfaces(&self, text: &str, fields: u32) -> Vec<Option<String>> {
        let mut out = Vec::new();
        let field = (fields.trailing_zeros() as usize).min(31);
        if let Some(field) = self.index.schema.text.get(field) {
            field.analyzer.analyze_each(text, false, |t| {
                out.push(t.surface.map(str::to_string));
            });
        }
        out
    }

    fn add_term(&mut self, term: String, fields: u32, boost: f32) -> usize {
        let (doc_freq, found) = self.doc_freq(&term);
        let idf = bm25::idf(self.index.live_docs as f64, doc_freq as f64);
        self.terms.push(QueryTerm {
            term,
            fields,
            boost,
            doc_freq,
            idf,
            found,
        });
        self.terms.len() - 1
    }

    /// Live documents containing `term`, over all segments, and where
    /// each segment holds its postings.
    fn doc_freq(&self, term: &str) -> (u64, Vec<(usize, Option<TermInfo>)>) {
        let mut df = 0u64;
        let mut found = Vec::with_capacity(self.index.segments.len());
        for entry in self.index.segments {
            let seg: &Segment = &entry.segment;
            let ord = seg.term_ord(term);
            if let Some(ord) = ord {
                df += live_doc_freq(entry, ord as u32);
            }
            let info = ord.and_then(|o| seg.term_info(o));
            found.push((seg as *const Segment as usize, info));
        }
        (df, found)
    }

    /// Terms of the dictionaries matching a prefix or fuzzy pattern, most
    /// frequent first, other than `term` itself, within this term's share
    /// of the budget, with their score multiplier. Fuzzy matching is by
    /// optimal string alignment distance (transpositions count one) against
    /// the index terms and against the segments' surface words (`surface`,
    /// the query word before stemming), which map to their stems.
    fn expand(
        &self,
        term: &str,
        surface: Option<&str>,
        prefix: bool,
        fuzzy: u8,
        budget: &mut Budget,
    ) -> Result<Vec<(String, f32)>> {
        let (share, steps_share) = self.share;
        // Steps go to the segments by dictionary size: the walks cost that.
        let sizes: Vec<u64> = self
            .index
            .segments
            .iter()
            .map(|e| e.segment.n_terms() as u64)
            .collect();
        let total = sizes.iter().sum::<u64>().max(1);
        let mut walk_cut = false;
        let mut found: Vec<(String, u64)> = Vec::new();
        // Smallest edit distance of each fuzzy match (prefix matches: none).
        let mut distances: Vec<(String, u8)> = Vec::new();
        for (entry, size) in self.index.segments.iter().zip(sizes) {
            // Both below 2^32 in practice; saturating keeps it safe without
            // 128-bit division code in the wasm.
            let wanted = steps_share.saturating_mul(size) / total;
            let mut steps = budget.take_dictionary_steps(wanted.max(1));
            let mut hits = Vec::new();
            if prefix {
                // Listing a prefix's terms takes a step per term listed.
                let limit = MAX_EXPANSIONS.min(usize::try_from(steps).unwrap_or(usize::MAX));
                hits.extend(entry.segment.prefix_terms(term, limit));
                steps -= hits.len() as u64;
                walk_cut |= hits.len() == limit && limit < MAX_EXPANSIONS;
            }
            if fuzzy > 0 {
                // A stemmed query word is matched against the segment's
                // words as written (mapped to their stems), anything else
                // (compounds, numbers, unstemmed fields, v2 segments)
                // against its terms: one walk either way.
                let surfaces = &entry.segment.surfaces;
                let mut matched = Vec::new();
                // A lazy segment fetches what the walk needs for the next round.
                let words_here = surface.is_none_or(|w| entry.segment.has_typo_words(w));
                match surface {
                    Some(_) if !words_here => {}
                    Some(word) if !surfaces.words.is_empty() => {
                        for (_, w, d) in
                            surfaces
                                .words
                                .typos_bounded(word, fuzzy, MAX_EXPANSIONS, &mut steps)
                        {
                            let stem = surfaces.stems.get(w as usize).copied().unwrap_or(0);
                            if let Some(t) = entry.segment.stem(stem) {
                                matched.push((t, u64::from(stem), d));
                            }
                        }
                    }
                    _ => {
                        matched = entry
                            .segment
                            .typo_terms(term, fuzzy, MAX_EXPANSIONS, &mut steps);
                    }
                }
                walk_cut |= steps == 0 && matched.len() < MAX_EXPANSIONS;
                for (t, ord, d) in matched {
                    distances.push((t.clone(), d));
                    hits.push((t, ord));
                }
            }
            budget.return_dictionary_steps(steps);
            for (t, ord) in hits {
                let df = entry.segment.term_info(ord).map_or(0, |i| i.doc_freq);
                found.push((t, df as u64));
            }
        }
        if walk_cut {
            budget.dictionary_cut()?;
        }
        // The selection the per-term cap alone makes (the term itself
        // included, then left out), cut to the share: a full share keeps
        // every term the cap allows.
        let typos = fuzzy > 0 && !prefix;
        let mut ranked = by_doc_freq(
            found,
            if typos {
                usize::MAX
            } else {
                MAX_TERM_EXPANSIONS
            },
        );
        let mut cap = MAX_TERM_EXPANSIONS;
        if typos {
            // Typos: the closest first (most frequent first at equal
            // distance), and fewer of them.
            let distance = |t: &str| {
                let d = distances.iter().filter(|(m, _)| m == t).map(|&(_, d)| d);
                u64::from(d.min().unwrap_or(0))
            };
            let order = crate::sort::order_by_key(ranked.iter().map(|(t, _)| distance(t)));
            ranked = crate::sort::permute(ranked, &order);
            cap = MAX_TYPO_EXPANSIONS;
        }
        let take = share.min(cap);
        let share_cut = ranked.len() > take && take < cap;
        let mut kept: Vec<(String, f32)> = ranked
            .into_iter()
            .take(take)
            .map(|(t, _)| t)
            .filter(|t| t != term)
            .map(|t| {
                let d = distances
                    .iter()
                    .filter(|(m, _)| *m == t)
                    .map(|&(_, d)| d)
                    .min();
                let factor = match d {
                    Some(d) => EXPANSION_BOOST.powi(i32::from(d.max(1))),
                    None => EXPANSION_BOOST,
                };
                (t, factor)
            })
            .collect();
        let granted = budget.take_expansions(kept.len());
        let total_cut = granted < kept.len();
        kept.truncate(granted);
        if share_cut || total_cut {
            budget.expansions_cut(self.expanding)?;
        }
        Ok(kept)
    }

    /// `required` tells whether a multi-token word must match all its tokens.
    fn lower(
        &mut self,
        query: &Query,
        boost: f32,
        required: bool,
        budget: &mut Budget,
    ) -> Result<Option<Node>> {
        match query {
            Query::Term {
                field,
                text,
                boost: b,
                prefix,
                fuzzy,
            } => {
                let mask = self.field_mask(field);
                let prefix = *prefix || self.opts.prefix;
                let fuzzy = (*fuzzy).max(self.opts.fuzzy);
                let mut alternatives = Vec::new();
                for (tokens, fields) in self.analyze(text, mask) {
                    let surfaces = if fuzzy > 0 {
                        self.surfaces(text, fields)
                    } else {
                        Vec::new()
                    };
                    // Tokens sharing a position are alternatives (a compound
                    // and its first part); positions are what AND requires.
                    let mut parts: Vec<Node> = Vec::new();
                    let mut last_position = None;
                    let mut group: Vec<Node> = Vec::new();
                    let single = tokens.len() == 1;
                    for (i, token) in tokens.into_iter().enumerate() {
                        // Words joined by hyphens (`three-dimensional`) are
                        // searched as their words: the whole token spells
                        // the same words, and adding it would count them
                        // again with the compound's high idf. Identifiers
                        // (`getUserById`, `src/lib/auth.ts`) keep theirs:
                        // it names one thing, so the exact one ranks first.
                        if !single && is_hyphenated_words(&token.term) {
                            continue;
                        }
                        if last_position != Some(token.position) && !group.is_empty() {
                            parts.push(either(std::mem::take(&mut group)));
                        }
                        last_position = Some(token.position);
                        let exact = self.add_term(token.term.clone(), fields, boost * b);
                        group.push(Node::Term(exact));
                        let stemmed = surfaces.get(i).and_then(|s| s.as_deref());
                        let surface = stemmed.unwrap_or(&token.term);
                        let distance = match fuzzy {
                            // Only words the index lacks: a known word is
                            // taken as meant (measured in BENCHMARKS.md,
                            // "Typo tolerance").
                            FUZZY_AUTO if self.terms[exact].doc_freq > 0 => 0,
                            FUZZY_AUTO => auto_distance(surface.chars().count()),
                            d => d.min(2),
                        };
                        if prefix || distance > 0 {
                            let stemmed = stemmed.map(str::to_string);
                            let word = (&token.term, stemmed.as_deref());
                            // 'auto' tries one edit first: a word one edit
                            // off is the usual typo, and that walk is far
                            // cheaper than the two-edit one.
                            let first = if fuzzy == FUZZY_AUTO {
                                distance.min(1)
                            } else {
                                distance
                            };
                            let mut found = self.expand(word.0, word.1, prefix, first, budget)?;
                            if found.is_empty() && first < distance {
                                found = self.expand(word.0, word.1, prefix, distance, budget)?;
                            }
                            for (t, factor) in found {
                                let id = self.add_term(t, fields, boost * b * factor);
                                group.push(Node::Term(id));
                            }
                        }
                    }
                    if !group.is_empty() {
                        parts.push(either(group));
                    }
                    if let Some(node) = combine(parts, required) {
                        alternatives.push(node);
                    }
                }
                Ok(match alternatives.len() {
                    0 => None,
                    1 => alternatives.pop(),
                    _ => Some(either(alternatives)),
                })
            }
            Query::Phrase {
                field,
                text,
                slop,
                boost: b,
            } => {
                let mask = self.field_mask(field);
                let mut alternatives = Vec::new();
                for (tokens, fields) in self.analyze(text, mask) {
                    if tokens.len() <= 1 {
                        let parts = tokens
                            .into_iter()
                            .map(|t| Node::Term(self.add_term(t.term, fields, boost * b)))
                            .collect();
                        alternatives.extend(combine(parts, true));
                        continue;
                    }
                    let first = tokens[0].position;
                    let mut idf = 0.0;
                    let mut terms = Vec::new();
                    for t in tokens {
                        let id = self.add_term(t.term, fields, boost * b);
                        idf += self.terms[id].idf;
                        terms.push((id, t.position - first));
                    }
                    alternatives.push(Node::Phrase {
                        terms,
                        slop: *slop,
                        fields,
                        boost: boost * b,
                        idf,
                    });
                }
                Ok(match alternatives.len() {
                    0 => None,
                    1 => alternatives.pop(),
                    _ => Some(either(alternatives)),
                })
            }
            Query::Bool { clauses, boost: b } => {
                let (mut must, mut should, mut must_not) = (Vec::new(), Vec::new(), Vec::new());
                for Clause { occur, query } in clauses {
                    let occur = match occur {
                        Occur::Default if self.opts.and_mode => Occur::Must,
                        Occur::Default => Occur::Should,
                        other => *other,
                    };
                    let child = self.lower(query, boost * b, occur == Occur::Must, budget)?;
                    // Clauses that analyze to nothing (stopwords) are dropped.
                    let Some(child) = child else { continue };
                    match (occur, child) {
                        (Occur::Must, child) => must.push(child),
                        (Occur::MustNot, child) => must_not.push(child),
                        // A nested pure disjunction scores the same flattened,
                        // and flat disjunctions take the MaxScore path.
                        (
                            _,
                            Node::Bool {
                                must: m,
                                should: s,
                                must_not: n,
                            },
                        ) if m.is_empty() && n.is_empty() => should.extend(s),
                        (_, child) => should.push(child),
                    }
                }
                if must.is_empty() && should.is_empty() {
                    return Ok(None);
                }
                if must_not.is_empty() && must.is_empty() && should.len() == 1 {
                    return Ok(should.pop());
                }
                if must_not.is_empty() && should.is_empty() && must.len() == 1 {
                    return Ok(must.pop());
                }
                Ok(Some(Node::Bool {
                    must,
                    should,
                    must_not,
                }))
            }
        }
    }
}

/// Live documents of the segment containing its term `ord`.
pub(crate) fn live_doc_freq(entry: &crate::index::SegmentEntry, ord: u32) -> u64 {
    let seg = &entry.segment;
    let Some(info) = seg.term_info(u64::from(ord)) else {
        return 0;
    };
    if entry.deletes.is_empty() {
        return u64::from(info.doc_freq);
    }
    entry.deletes.live_doc_freq(info.first_block, || {
        let mut live = 0u64;
        let mut c = seg.cursor(info);
        while c.doc() != TERMINATED {
            live += u64::from(!entry.deletes.contains(c.doc()));
            c.advance();
        }
        live
    })
}

/// A disjunction of nodes (a single node stays itself).
fn either(mut nodes: Vec<Node>) -> Node {
    if nodes.len() == 1 {
        return nodes.pop().expect("one node");
    }
    Node::Bool {
        must: Vec::new(),
        should: nodes,
        must_not: Vec::new(),
    }
}

/// A whole token of words joined by hyphens only, without digits
/// (`large-deflection`; not `v1-2` or `a-b.c`).
fn is_hyphenated_words(term: &str) -> bool {
    term.contains('-')
        && !term.contains(|c: char| {
            c.is_ascii_digit() || matches!(c, '_' | '.' | '/' | '\\' | '@' | ':')
        })
}

/// Tokens of one word: all required (AND) or any (OR).
fn combine(mut parts: Vec<Node>, required: bool) -> Option<Node> {
    match parts.len() {
        0 => None,
        1 => parts.pop(),
        _ if required => Some(Node::Bool {
            must: parts,
            should: Vec::new(),
            must_not: Vec::new(),
        }),
        _ => Some(either(parts)),
    }
}

/// The first `limit` distinct terms of `found` by document frequency
/// (summed over repeats: segments, prefix and fuzzy matches), highest
/// first, equal frequencies in term order. A sorted `Vec` rather than a
/// `BTreeMap<String, u64>`: no map code of its own in the wasm.
pub(crate) fn by_doc_freq(mut found: Vec<(String, u64)>, limit: usize) -> Vec<(String, u64)> {
    let bytes: Vec<&[u8]> = found.iter().map(|t| t.0.as_bytes()).collect();
    let by_term = crate::sort::order_by_bytes(&bytes);
    let mut terms: Vec<(String, u64)> = Vec::with_capacity(found.len());
    for &(_, i) in &by_term {
        let (term, df) = std::mem::take(&mut found[i as usize]);
        match terms.last_mut() {
            Some(last) if last.0 == term => last.1 += df,
            _ => terms.push((term, df)),
        }
    }
    // `terms` is in term order, so a stable sort by `!df` breaks ties by term.
    let order = crate::sort::order_by_key(terms.iter().map(|t| !t.1));
    order
        .iter()
        .take(limit)
        .map(|&(_, i)| std::mem::take(&mut terms[i as usize]))
        .collect()
}

#[cfg(test)]
mod tests;
