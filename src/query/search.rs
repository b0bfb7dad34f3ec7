//! Running a search: options -> plan -> per-segment scoring into one top-k
//! -> hits with stored fields, matched terms, snippets and explanations.

use crate::error::{Error, Result};
use crate::index::document::FieldRef;
use crate::index::segment::Segment;
use crate::index::{Index, SegmentEntry};
use crate::postings::TERMINATED;

use super::ast::Query;
use super::bm25::FieldNorm;
use super::budget::{
    Budget, Limited, Limits, Steps, MAX_ANSWER_BYTES, MAX_HIGHLIGHT_TAG_BYTES, MAX_SNIPPET_LENGTH,
};
use super::options::{
    Hit, Mode, SearchOptions, SearchResults, StoredSelection, Strategy, Syntax, TermExplanation,
};
use super::parser;
use super::plan::{Node, Plan, PlanOptions, Planner};
use super::scorer::{
    EmptyScorer, ExclusionScorer, IntersectionScorer, PhraseScorer, ReqOptScorer, ScoreParams,
    Scorer, TermScorer, TermWeight, UnionScorer,
};
use super::snippet;
use super::topk::{Candidate, TopK};
use crate::index::filter::{allowed, Filter};
use crate::store::StoredFields;

/// A ranked page of candidates with what it takes to turn them into hits.
pub(super) struct Ranked<'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub total: Total,
    pub limited: Vec<Limited>,
    pub plan: Plan,
    pub params: ScoreParams,
}

/// Matches of one scoring pass: counted, or a lower bound (pruned).
pub(super) enum Total {
    Exact(usize),
    AtLeast(usize),
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
    pub sort: Option<&'a super::list::SortSpec>,
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

/// Largest `offset + limit` a search may ask for.
pub const MAX_RESULTS: usize = 10_000;
/// Most candidates `diversity` and `dedupe` rerank (the top of the
/// ranking; ranks past it stay in score order).
pub const MAX_RERANK_POOL: usize = 1_000;
/// Longest accepted query, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;

impl Index {
    /// Searches the index. Buffered writes are flushed first, so every
    /// acknowledged `add`/`delete` is visible.
    pub fn search(&mut self, query: &str, opts: &SearchOptions) -> Result<SearchResults> {
        self.flush();
        self.search_flushed(query, opts)
    }

    /// Search over the flushed segments only (no buffered writes).
    pub fn search_flushed(&self, query: &str, opts: &SearchOptions) -> Result<SearchResults> {
        self.search_with_limits(query, opts, self.query_limits())
    }

    /// The cost limits of each search pass over this index (see
    /// [`super::budget`]): they grow with the documents and terms.
    pub fn query_limits(&self) -> Limits {
        let terms = self
            .segments
            .iter()
            .map(|e| e.segment.terms.len() as u64)
            .sum();
        Limits::for_index(self.live_docs, terms)
    }

    /// [`Index::search_flushed`] under the given limits (each pass of a
    /// fallback search gets them whole).
    pub(crate) fn search_with_limits(
        &self,
        query: &str,
        opts: &SearchOptions,
        limits: Limits,
    ) -> Result<SearchResults> {
        // `strategy: 'auto'` asks for link expansion on relation questions
        // ("what depends on X": the documents linking to X's hits, and what
        // they link to: direction `both`); an explicit `expand` wins.
        let auto_expand;
        let expand = match (opts.strategy, &opts.expand) {
            (Strategy::Auto, None) => {
                let hops = super::strategy::choose(query, opts.vector.is_some()).expand_hops;
                auto_expand = hops.map(|hops| super::agent::ExpandOptions {
                    hops: hops.into(),
                    direction: super::agent::Direction::Both,
                    ..Default::default()
                });
                auto_expand.as_ref()
            }
            (_, given) => given.as_ref(),
        };
        let rerank = opts.diversity.is_some() || opts.dedupe;
        if !rerank && expand.is_none() {
            return self.search_ranked(query, opts, Page::of(opts), limits);
        }
        let mut r = match rerank {
            true => self.reranked_page(query, opts, limits)?,
            false => self.search_ranked(query, opts, Page::of(opts), limits)?,
        };
        if let Some(e) = expand {
            let hits = std::mem::take(&mut r.hits);
            r.hits = self.expand_hits(hits, e, opts, limits, &mut r.limited)?;
        }
        Ok(r)
    }

    /// The page of a `diversity` / `dedupe` search. The window of
    /// [`super::agent::pool_size`] candidates, at most [`MAX_RERANK_POOL`]
    /// (each with every stored field), is deduplicated, then reordered by
    /// MMR under the rerank steps of `limits`; ranks past the window follow
    /// in score order (a page reaching them is `limited: rerank`).
    fn reranked_page(
        &self,
        query: &str,
        opts: &SearchOptions,
        limits: Limits,
    ) -> Result<SearchResults> {
        let wanted = super::agent::pool_size(opts.offset, opts.limit);
        let window = wanted.min(MAX_RERANK_POOL);
        let pool = Page {
            offset: 0,
            limit: window,
            stored: &StoredSelection::All,
            snippets: false,
            ..Page::of(opts)
        };
        let mut r = self.search_ranked(query, opts, pool, limits)?;
        // A full window: more matches may rank after it.
        let more = r.hits.len() == window;
        let hits = std::mem::take(&mut r.hits);
        let reranked = self.rerank(hits, opts, limits, &mut r.limited)?;
        let (start, end) = (opts.offset, opts.offset + opts.limit);
        let kept = reranked.len();
        let mut page: Vec<Hit> = reranked
            .into_iter()
            .skip(start)
            .take(opts.limit)
            .map(|h| self.finish_reranked(h, opts))
            .collect();
        if more && end > kept {
            let what = "rerank window (diversity, dedupe)";
            let got = wanted.max(MAX_RERANK_POOL + 1);
            Limited::Rerank.reached(strict(opts), &mut r.limited, what, MAX_RERANK_POOL, got)?;
            let past = Page {
                offset: window + start.saturating_sub(kept),
                limit: end - start.max(kept),
                ..Page::of(opts)
            };
            let rest = self.search_ranked(query, opts, past, limits)?;
            page.extend(rest.hits);
            for l in rest.limited {
                if !r.limited.contains(&l) {
                    r.limited.push(l);
                }
            }
        }
        r.hits = page;
        Ok(r)
    }

    /// `dedupe`, then `diversity`, over a pool of hits with every stored
    /// field, under the rerank steps of `limits`: the pool reordered (and
    /// shortened by dedupe).
    fn rerank(
        &self,
        pool: Vec<Hit>,
        opts: &SearchOptions,
        limits: Limits,
        limited: &mut Vec<Limited>,
    ) -> Result<Vec<Hit>> {
        use super::agent;
        let steps = Steps::new(limits.rerank_steps);
        let vector_field = opts.vector_field.as_deref();
        let mut hits = pool;
        let vectors = self.hit_vectors(&hits, vector_field);
        if opts.dedupe {
            hits = agent::dedupe(hits, &vectors, &steps);
        }
        if let Some(lambda) = opts.diversity {
            // Dedupe dropped hits: their vectors no longer line up.
            let vectors = match opts.dedupe {
                true => self.hit_vectors(&hits, vector_field),
                false => vectors,
            };
            hits = agent::mmr(hits, lambda, &vectors, opts.offset + opts.limit, &steps);
        }
        if steps.ran_out() {
            let limit = usize::try_from(limits.rerank_steps).unwrap_or(usize::MAX);
            let what = "rerank steps (diversity, dedupe)";
            Limited::Rerank.reached(strict(opts), limited, what, limit, limit + 1)?;
        }
        Ok(hits)
    }

    /// A reranked pool hit as the page shows it: its snippets, and the
    /// stored fields the options select.
    fn finish_reranked(&self, mut h: Hit, opts: &SearchOptions) -> Hit {
        if let Some(hl) = &opts.highlight {
            h.snippets = self.snippets(&h.fields.to_map(), &h.matched_terms, hl);
        }
        h.fields = match &opts.stored_fields {
            StoredSelection::All => h.fields,
            StoredSelection::None => StoredFields::empty(),
            StoredSelection::Only(names) => h.fields.select(names),
        };
        h
    }

    /// A search without the post-processing of `expand`, `diversity` and
    /// `dedupe`.
    fn search_ranked(
        &self,
        query: &str,
        opts: &SearchOptions,
        page: Page<'_>,
        limits: Limits,
    ) -> Result<SearchResults> {
        validate(self, query, opts)?;
        // `strategy: 'auto'`: the rules of [`super::strategy`] choose the
        // mode and proximity (and, once the index has them, link expansion
        // and hybrid fusion); the other options apply as given.
        let choice = (opts.strategy == Strategy::Auto)
            .then(|| super::strategy::choose(query, opts.vector.is_some()));
        let (query, mode, proximity) = match &choice {
            Some(c) => (
                c.query.as_deref().unwrap_or(query),
                c.mode,
                opts.proximity.or(c.proximity.then(Default::default)),
            ),
            None => (query, opts.mode, opts.proximity),
        };
        let mut ast = self.parse_query(query, opts.syntax)?;
        // Lenient `kind:rule` on a keyword/boolean field is that filter.
        let words = match opts.syntax {
            Syntax::Lenient => super::fieldfilter::extract(&mut ast, &self.schema),
            Syntax::Strict => Default::default(),
        };
        super::merge::merge_repeats(&mut ast);
        let mut filter = match &opts.filter {
            Some(json) if !json.is_null() => Some(Filter::compile(json, &self.schema)?),
            _ => None,
        };
        let from_words = !words.conditions.is_empty();
        if from_words {
            filter
                .get_or_insert_with(Filter::default)
                .conditions
                .extend(words.conditions);
        }
        if opts.vector.is_some() {
            // The lexical list runs with what the strategy chose (it once
            // got the caller's options: `auto` reported proximity and
            // fallback, and ran neither).
            let lexical = (mode, proximity.as_ref());
            let filter = filter.as_ref();
            let mut results = self.hybrid(query, &ast, opts, lexical, page, filter, limits)?;
            results.warnings = words.warnings;
            results.strategy = choice;
            return Ok(results);
        }
        if super::list::is_listing(query, opts) || (from_words && ast.is_empty()) {
            let mut results = self.list(opts, page, filter.as_ref())?;
            results.warnings = words.warnings;
            results.strategy = choice;
            return Ok(results);
        }
        let (and_first, fallback) = match mode {
            Mode::Or => (false, false),
            Mode::And => (true, false),
            Mode::Fallback => (true, true),
        };
        let pass = |and_mode| {
            self.run(
                &ast,
                opts,
                page,
                proximity.as_ref(),
                filter.as_ref(),
                and_mode,
                limits,
            )
        };
        let (mut hits, mut total, mut limited) = pass(and_first)?;
        let mut mode = if and_first { Mode::And } else { Mode::Or };
        if fallback && hits.len() < opts.min_hits.max(1).min(page.end()) {
            (hits, total, limited) = pass(false)?;
            mode = Mode::Or;
        }
        let (total, total_exact) = match total {
            Total::Exact(n) => (Some(n), true),
            Total::AtLeast(n) => (Some(n.max(page.offset + hits.len())), false),
        };
        Ok(SearchResults {
            hits,
            mode,
            total,
            total_exact,
            limited,
            warnings: words.warnings,
            strategy: choice,
        })
    }

    fn parse_query(&self, query: &str, syntax: Syntax) -> Result<Query> {
        // Only text fields are addressable with `field:`; anything else
        // degrades to plain text (lenient) or is reported (strict).
        let fields: Vec<&str> = self.schema.text.iter().map(|f| f.name.as_str()).collect();
        match syntax {
            Syntax::Lenient => Ok(parser::parse_lenient(query, &fields)),
            Syntax::Strict => parser::parse_strict(query, &fields).map_err(|e| match e {
                Error::InvalidQuery { position, reason } => Error::InvalidQuery {
                    position,
                    reason: super::fieldfilter::strict_hint(&reason, &self.schema)
                        .unwrap_or(reason),
                },
                e => e,
            }),
        }
    }

    /// One planning and scoring pass under its own budget; also returns
    /// the total (sorted searches) and the budgets that ran out (a strict
    /// search fails on them instead).
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        ast: &Query,
        opts: &SearchOptions,
        page: Page<'_>,
        proximity: Option<&super::proximity::ProximityOptions>,
        filter: Option<&Filter>,
        and_mode: bool,
        limits: Limits,
    ) -> Result<(Vec<Hit>, Total, Vec<Limited>)> {
        let mut r = self.ranked(ast, opts, page, proximity, filter, and_mode, limits)?;
        let hits = self.make_hits(
            &r.candidates,
            &r.plan,
            &r.params,
            opts,
            page,
            &mut r.limited,
        )?;
        Ok((hits, r.total, r.limited))
    }

    /// [`Index::run`] up to the ranked page (no hits built yet).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn ranked(
        &self,
        ast: &Query,
        opts: &SearchOptions,
        page: Page<'_>,
        proximity: Option<&super::proximity::ProximityOptions>,
        filter: Option<&Filter>,
        and_mode: bool,
        limits: Limits,
    ) -> Result<Ranked<'_>> {
        let mut budget = Budget::new(limits, opts.syntax == Syntax::Strict);
        let plan = Planner::new(
            self,
            PlanOptions {
                and_mode,
                fields: opts.fields.as_ref(),
                prefix: opts.prefix,
                fuzzy: opts.fuzzy,
            },
        )
        .plan(ast, &mut budget)?;
        let params = self.score_params(opts);
        let Some(root) = &plan.root else {
            return Ok(Ranked {
                candidates: Vec::new(),
                total: Total::Exact(0),
                limited: budget.limited().to_vec(),
                plan,
                params,
            });
        };
        // Proximity reranks the best `depth` of a ranked search of at least
        // two distinct terms (one term has no pairs: nothing to collect).
        let rerank = proximity
            .filter(|_| page.sort.is_none() && super::proximity::positive_terms(&plan).len() >= 2);
        let k = match rerank {
            Some(p) => p.collect(super::list::collect_limit(self, page)),
            None => super::list::collect_limit(self, page),
        };
        let mut top = TopK::new(k);
        if let Some(r) = &opts.recency {
            let recency = super::agent::Recency::new(self, r)?;
            top.set_adjust(Box::new(move |s, d| recency.factor(s, d)));
        }
        let flat = plan.flat_terms();
        let conjunction = plan.conjunction_terms();
        let steps = &budget.scoring;
        for (si, entry) in self.segments.iter().enumerate() {
            if steps.ran_out() {
                break;
            }
            let allow = filter.and_then(|f| f.evaluate(&entry.segment));
            let live = |d: u32| !entry.deletes.contains(d) && allowed(&allow, d);
            match (&flat, &conjunction) {
                (Some(terms), _) => {
                    maxscore(&plan, terms, entry, si, &params, &live, &mut top, steps)
                }
                (None, Some(terms)) => {
                    conjunction_of_terms(&plan, terms, entry, si, &params, &live, &mut top, steps)
                }
                (None, None) => {
                    let mut scorer = build_scorer(root, &plan, &entry.segment, &params, steps);
                    let matched = plan.conjunction_bits();
                    collect(scorer.as_mut(), entry, si, matched, &live, &mut top, steps)
                }
            }
        }
        if steps.ran_out() {
            budget.scoring_cut()?;
        }
        // The heap never filled: nothing was pruned, every match was offered.
        let offered = match top.len() < k {
            true => Total::Exact(top.offered()),
            false => Total::AtLeast(top.offered()),
        };
        let (candidates, total) = match &rerank {
            Some(p) => {
                let mut ranked = top.into_sorted();
                self.proximity_rerank(&mut ranked, &plan, &params, p);
                let shown = ranked.into_iter().skip(page.offset).take(page.limit);
                (shown.collect(), None)
            }
            None => super::list::page(self, top, page)?,
        };
        // Pruned top-k scores only some matches: `offered` is a lower bound.
        let total = total.map_or(offered, Total::Exact);
        Ok(Ranked {
            candidates,
            total,
            limited: budget.limited().to_vec(),
            plan,
            params,
        })
    }

    pub(super) fn score_params(&self, opts: &SearchOptions) -> ScoreParams {
        let b = opts.b.unwrap_or(self.config().b);
        let n = self.live_docs.max(1) as f64;
        let norms = self
            .schema
            .text
            .iter()
            .enumerate()
            .map(|(f, field)| {
                let weight = match &opts.fields {
                    Some(map) => map.get(&field.name).copied().unwrap_or(0.0),
                    None => field.weight,
                };
                FieldNorm::new(weight, b, (self.live_field_len[f] as f64 / n) as f32)
            })
            .collect();
        ScoreParams {
            k1: opts.k1.unwrap_or(self.config().k1),
            norms,
        }
    }

    /// Turns ranked candidates into hits. Term matches come from the scoring
    /// loop when it recorded them; otherwise (and for explanations) they are
    /// read with one cursor per (segment, term), visiting hits in doc order.
    ///
    /// The hits' stored fields, snippets and explanations count against
    /// [`MAX_ANSWER_BYTES`]: the hits past it are left out (`answer` in
    /// `limited`; `LIMIT` when strict). The first hit always fits.
    pub(super) fn make_hits(
        &self,
        ranked: &[Candidate<'_>],
        plan: &Plan,
        params: &ScoreParams,
        opts: &SearchOptions,
        page: Page<'_>,
        limited: &mut Vec<Limited>,
    ) -> Result<Vec<Hit>> {
        let stored = page.stored;
        // (segment, doc) pairs are distinct, so any sort gives this order.
        let order = crate::sort::order_by_key(
            ranked
                .iter()
                .map(|c| (c.segment as u64) << 32 | c.doc as u64),
        );
        let mut annotations: Vec<(Vec<String>, Vec<TermExplanation>)> =
            vec![Default::default(); ranked.len()];
        let mut cursors: Vec<Option<crate::postings::PostingsCursor<'_>>> = Vec::new();
        let mut current_segment = usize::MAX;
        for &(_, i) in &order {
            let i = i as usize;
            let c = &ranked[i];
            if let (Some(bits), false) = (c.matched, opts.explain) {
                let (matched, _) = &mut annotations[i];
                for (t, qt) in plan.terms.iter().enumerate() {
                    if bits >> t & 1 == 1 && !matched.contains(&qt.term) {
                        matched.push(qt.term.clone());
                    }
                }
                continue;
            }
            let seg = &self.segments[c.segment].segment;
            if c.segment != current_segment {
                current_segment = c.segment;
                cursors = plan
                    .terms
                    .iter()
                    .map(|qt| seg.term(&qt.term).map(|info| seg.postings.cursor(info)))
                    .collect();
            }
            let (matched, explanation) = &mut annotations[i];
            for (qt, cursor) in plan.terms.iter().zip(cursors.iter_mut()) {
                let Some(cursor) = cursor else { continue };
                if cursor.seek(c.doc) != c.doc || cursor.field_mask() & qt.fields == 0 {
                    continue;
                }
                if !matched.contains(&qt.term) {
                    matched.push(qt.term.clone());
                }
                if opts.explain {
                    self.explain_term(qt, seg, c.doc, cursor, params, explanation);
                }
            }
        }
        let highlight = opts.highlight.as_ref().filter(|_| page.snippets);
        let mut bytes = 0usize;
        let mut hits = Vec::with_capacity(ranked.len());
        for (c, (matched_terms, explanation)) in ranked.iter().zip(annotations) {
            let docs = &self.segments[c.segment].segment.docs;
            // Every hit costs its id and score; decoded fields their bytes;
            // an explanation ~64 bytes a part.
            let mut cost = c.id.len() + 32 + 64 * explanation.len();
            if !matches!((stored, highlight), (StoredSelection::None, None)) {
                cost += docs.stored_bytes(c.doc).len();
            }
            if bytes.saturating_add(cost) > MAX_ANSWER_BYTES && !hits.is_empty() {
                let what = "answer bytes (stored fields, snippets, explanations)";
                let got = bytes.saturating_add(cost);
                Limited::Answer.reached(strict(opts), limited, what, MAX_ANSWER_BYTES, got)?;
                break;
            }
            let hit = {
                let (fields, namespace, snippets) = match (stored, highlight) {
                    (StoredSelection::None, None) => {
                        let namespace = StoredFields::namespace_of(docs.stored_bytes(c.doc));
                        (StoredFields::empty(), namespace, Default::default())
                    }
                    (selection, highlight) => {
                        let (all, namespace) = docs.stored_fields(c.doc);
                        let snippets = match highlight {
                            Some(h) => self.snippets(&all.to_map(), &matched_terms, h),
                            None => Default::default(),
                        };
                        let fields = match selection {
                            StoredSelection::All => all,
                            StoredSelection::None => StoredFields::empty(),
                            StoredSelection::Only(names) => all.select(names),
                        };
                        (fields, namespace, snippets)
                    }
                };
                Hit {
                    id: c.id.to_string(),
                    score: c.score,
                    namespace,
                    fields,
                    matched_terms,
                    snippets,
                    explanation: opts.explain.then_some(explanation),
                    lexical: None,
                    vector: None,
                    via: None,
                    duplicates: Vec::new(),
                }
            };
            bytes += cost + hit.snippets.values().map(String::len).sum::<usize>();
            hits.push(hit);
        }
        Ok(hits)
    }

    /// Per-field parts of one term's BM25F score; the parts of a term sum to
    /// its contribution (saturation is shared across fields, so each field
    /// gets its share of the weighted, normalized tf).
    fn explain_term(
        &self,
        qt: &super::plan::QueryTerm,
        seg: &Segment,
        doc: u32,
        cursor: &crate::postings::PostingsCursor<'_>,
        params: &ScoreParams,
        out: &mut Vec<TermExplanation>,
    ) {
        let weight = TermWeight {
            fields: qt.fields,
            idf_boost: qt.idf * qt.boost,
        };
        let total = weight.score_doc(params, seg, doc, cursor);
        let mut parts = Vec::new();
        cursor.for_each_field_tf(|f, tf| {
            if qt.fields & (1 << f) != 0 {
                parts.push((f, tf, params.norms[f].tf(tf, seg.field_len(doc, f))));
            }
        });
        let sum: f32 = parts.iter().map(|p| p.2).sum();
        for (f, tf, norm_tf) in parts {
            let norm = &params.norms[f];
            out.push(TermExplanation {
                term: qt.term.clone(),
                field: self.schema.text[f].name.clone(),
                idf: qt.idf,
                tf: tf as f32,
                field_length: seg.field_len(doc, f) as f32,
                avg_field_length: if norm.c > 0.0 {
                    (1.0 - norm.a) / norm.c
                } else {
                    0.0
                },
                weight: norm.weight * qt.boost,
                score: if sum > 0.0 {
                    total * norm_tf / sum
                } else {
                    0.0
                },
            });
        }
    }
}

impl Index {
    /// Highlighted snippets of the stored text fields that contain a
    /// matched term (re-analyzed: positions are not needed at query time).
    fn snippets(
        &self,
        fields: &crate::json::Map,
        matched: &[String],
        opts: &super::options::HighlightOptions,
    ) -> crate::FieldMap<String> {
        // The map type snippet.rs already uses (one hash table instance
        // less in the wasm than a `HashSet<&str>`).
        let matched: rustc_hash::FxHashMap<&str, usize> = matched
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i))
            .collect();
        let mut out = crate::FieldMap::new();
        for field in &self.schema.text {
            let Some(crate::json::Value::String(text)) = fields.get(&field.name) else {
                continue;
            };
            let tokens = field.analyzer.analyze(text);
            if let Some(s) = snippet::snippet(
                text,
                &tokens,
                |t| matched.contains_key(t.term.as_str()),
                opts,
            ) {
                out.insert(field.name.clone(), s);
            }
        }
        out
    }
}

/// Whether over-limit stages fail (`LIMIT`) rather than flag the answer.
pub(super) fn strict(opts: &SearchOptions) -> bool {
    opts.syntax == Syntax::Strict
}

fn validate(index: &Index, query: &str, opts: &SearchOptions) -> Result<()> {
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::Limit {
            what: "query bytes",
            limit: MAX_QUERY_BYTES,
            got: query.len(),
        });
    }
    let wanted = opts.offset.saturating_add(opts.limit);
    if wanted > MAX_RESULTS {
        return Err(Error::Limit {
            what: "offset + limit",
            limit: MAX_RESULTS,
            got: wanted,
        });
    }
    if let Some(h) = &opts.highlight {
        let tag = h.pre_tag.len().max(h.post_tag.len());
        if tag > MAX_HIGHLIGHT_TAG_BYTES {
            return Err(Error::Limit {
                what: "highlight tag bytes (preTag, postTag)",
                limit: MAX_HIGHLIGHT_TAG_BYTES,
                got: tag,
            });
        }
        if h.snippet_length > MAX_SNIPPET_LENGTH {
            return Err(Error::Limit {
                what: "highlight snippetLength",
                limit: MAX_SNIPPET_LENGTH,
                got: h.snippet_length,
            });
        }
    }
    // Wrong values are the caller's (`USAGE`); names the schema lacks are
    // `SCHEMA` (below).
    let usage = |reason: &str| {
        Err(Error::Usage {
            reason: format!("search option {reason}"),
        })
    };
    if opts.fuzzy > 2 && opts.fuzzy != super::plan::FUZZY_AUTO {
        return usage(
            "`fuzzy` must be 0, 1 or 2 (an edit distance), 'auto' or true (by word length), or false",
        );
    }
    if let Some(k1) = opts.k1 {
        if !k1.is_finite() || k1 < 0.0 {
            return usage("`k1` must be a finite number >= 0");
        }
    }
    if let Some(b) = opts.b {
        if !(0.0..=1.0).contains(&b) {
            return usage("`b` must be a number between 0 and 1");
        }
    }
    if let Some(Err(reason)) = opts.proximity.map(|p| p.check()) {
        return usage(reason);
    }
    if let Some(sort) = &opts.sort {
        super::list::SortColumn::resolve(sort, &index.schema)?;
    }
    super::hybrid::validate(index, opts)?;
    if let StoredSelection::Only(names) = &opts.stored_fields {
        for name in names {
            if !index
                .config()
                .fields
                .get(name)
                .is_some_and(|f| f.is_stored())
            {
                return Err(Error::schema(
                    name,
                    "is not a stored field (storedFields lists fields declared with stored: true)",
                ));
            }
        }
    }
    if let Some(fields) = &opts.fields {
        for (name, w) in fields {
            if !matches!(index.schema.by_name.get(name), Some(FieldRef::Text(_))) {
                return Err(Error::schema(name, "is not a text field"));
            }
            if !w.is_finite() || *w < 0.0 {
                return usage(&format!("`fields.{name}` must be a finite weight >= 0"));
            }
        }
    }
    Ok(())
}

fn term_scorer<'a>(
    plan: &Plan,
    t: usize,
    seg: &'a Segment,
    params: &'a ScoreParams,
) -> Option<TermScorer<'a>> {
    let qt = &plan.terms[t];
    let weight = TermWeight {
        fields: qt.fields,
        idf_boost: qt.idf * qt.boost,
    };
    TermScorer::new(seg, &qt.term, weight, params)
}

fn build_scorer<'a>(
    node: &Node,
    plan: &Plan,
    seg: &'a Segment,
    params: &'a ScoreParams,
    steps: &'a Steps,
) -> Box<dyn Scorer + 'a> {
    match node {
        Node::Term(t) => match term_scorer(plan, *t, seg, params) {
            Some(s) => Box::new(s),
            None => Box::new(EmptyScorer),
        },
        Node::Phrase {
            terms,
            slop,
            fields,
            boost,
            idf,
        } => {
            let mut scorers = Vec::new();
            for &(t, offset) in terms {
                match term_scorer(plan, t, seg, params) {
                    Some(s) => scorers.push((s, offset)),
                    None => return Box::new(EmptyScorer),
                }
            }
            Box::new(PhraseScorer::new(
                seg,
                scorers,
                *slop,
                *fields,
                idf * boost,
                params,
                steps,
            ))
        }
        Node::Bool {
            must,
            should,
            must_not,
        } => {
            let build_all = |nodes: &[Node]| -> Vec<Box<dyn Scorer + 'a>> {
                nodes
                    .iter()
                    .map(|n| build_scorer(n, plan, seg, params, steps))
                    .collect()
            };
            let mut positive: Box<dyn Scorer + 'a> = if !must.is_empty() {
                let req = one_or(build_all(must), |c| {
                    Box::new(IntersectionScorer::new(c, steps))
                });
                if should.is_empty() {
                    req
                } else {
                    Box::new(ReqOptScorer {
                        required: req,
                        optional: one_or(build_all(should), |c| {
                            Box::new(UnionScorer::new(c, steps))
                        }),
                    })
                }
            } else {
                one_or(build_all(should), |c| Box::new(UnionScorer::new(c, steps)))
            };
            if !must_not.is_empty() {
                let negative = one_or(build_all(must_not), |c| {
                    Box::new(UnionScorer::new(c, steps))
                });
                positive = Box::new(ExclusionScorer::new(positive, negative));
            }
            positive
        }
    }
}

fn one_or<'a>(
    mut scorers: Vec<Box<dyn Scorer + 'a>>,
    many: impl FnOnce(Vec<Box<dyn Scorer + 'a>>) -> Box<dyn Scorer + 'a>,
) -> Box<dyn Scorer + 'a> {
    if scorers.len() == 1 {
        scorers.pop().unwrap_or_else(|| Box::new(EmptyScorer))
    } else if scorers.is_empty() {
        Box::new(EmptyScorer)
    } else {
        many(scorers)
    }
}

/// Exhaustive document-at-a-time collection (complex queries). The
/// scorer tree spends `steps` as it moves (and ends when they run out);
/// one more per collected document.
fn collect<'a>(
    scorer: &mut dyn Scorer,
    entry: &'a SegmentEntry,
    si: usize,
    matched: Option<u64>,
    live: &impl Fn(u32) -> bool,
    top: &mut TopK<'a>,
    steps: &Steps,
) {
    let mut doc = scorer.doc();
    while doc != TERMINATED {
        if !steps.take(1) {
            return;
        }
        if live(doc) {
            let score = scorer.score();
            if !top.admits(score) {
                doc = scorer.advance();
                continue;
            }
            top.offer(Candidate {
                score,
                id: entry.segment.docs.id(doc),
                segment: si,
                doc,
                matched,
            });
        }
        doc = scorer.advance();
    }
}

/// A conjunction of terms: the rarest term leads and the others seek to it
/// (what `IntersectionScorer` does, without dynamic dispatch), and the lead
/// skips whole blocks whose score bound plus the other terms' maxima cannot
/// reach the k-th score. One scoring step per term per alignment.
#[allow(clippy::too_many_arguments)]
fn conjunction_of_terms<'a>(
    plan: &Plan,
    terms: &[usize],
    entry: &'a SegmentEntry,
    si: usize,
    params: &ScoreParams,
    live: &impl Fn(u32) -> bool,
    top: &mut TopK<'a>,
    steps: &Steps,
) {
    let seg = &entry.segment;
    let mut scorers = Vec::with_capacity(terms.len());
    for &t in terms {
        match term_scorer(plan, t, seg, params) {
            Some(s) => scorers.push(s),
            None => return,
        }
    }
    // Seek order: cheapest first (stable, as the generic intersection).
    let order: Vec<usize> = crate::sort::order_by_key(scorers.iter().map(|s| s.cost()))
        .into_iter()
        .map(|(_, i)| i as usize)
        .collect();
    let Some((&lead, rest)) = order.split_first() else {
        return;
    };
    let others: f32 = rest.iter().map(|&i| scorers[i].max_score()).sum();
    let matched = plan.conjunction_bits();
    // As in MaxScore, each document is aligned on once: only conjunctions
    // of more than 64 terms can reach a limit, so only they count.
    let cost = if terms.len() > 64 {
        terms.len() as u64
    } else {
        0
    };
    let mut left = steps.left();
    let mut candidate = scorers[lead].doc();
    'align: while candidate != TERMINATED {
        let Some(rest_left) = left.checked_sub(cost) else {
            steps.exhaust();
            break;
        };
        left = rest_left;
        for &i in rest {
            let d = scorers[i].seek(candidate);
            if d != candidate {
                candidate = scorers[lead].seek(d);
                continue 'align;
            }
        }
        if live(candidate) {
            // Canonical (query) order, as the generic intersection sums.
            let score: f32 = scorers.iter_mut().map(|s| s.score()).sum();
            if top.admits(score) {
                top.offer(Candidate {
                    score,
                    id: seg.docs.id(candidate),
                    segment: si,
                    doc: candidate,
                    matched,
                });
            }
        }
        let threshold = top.threshold().unwrap_or(f32::NEG_INFINITY);
        candidate = scorers[lead].advance_competitive(others, threshold);
    }
    steps.settle(left);
}

/// MaxScore (Turtle & Flood) over a flat disjunction of terms: terms whose
/// cumulative upper bound cannot beat the current k-th score are
/// "non-essential" — they never generate candidates, and are only probed for
/// candidates that might still make it. One scoring step per essential term
/// per candidate (what choosing the candidate scans).
#[allow(clippy::too_many_arguments)]
fn maxscore<'a>(
    plan: &Plan,
    terms: &[usize],
    entry: &'a SegmentEntry,
    si: usize,
    params: &ScoreParams,
    live: &impl Fn(u32) -> bool,
    top: &mut TopK<'a>,
    steps: &Steps,
) {
    let seg = &entry.segment;
    // (scorer, upper bound, slot in `terms`)
    let mut scorers: Vec<(TermScorer<'_>, f32, usize)> = Vec::new();
    for (slot, &t) in terms.iter().enumerate() {
        if let Some(s) = term_scorer(plan, t, seg, params) {
            let ub = s.max_score();
            scorers.push((s, ub, slot));
        }
    }
    if scorers.is_empty() {
        return;
    }
    // By upper bound; equal bounds keep term order (a stable sort).
    let order = crate::sort::order_by_key(scorers.iter().map(|s| crate::sort::f32_key(s.1)));
    let mut scorers = crate::sort::permute(scorers, &order);
    let mut prefix = Vec::with_capacity(scorers.len());
    let mut acc = 0.0f32;
    for s in &scorers {
        acc += s.1;
        prefix.push(acc);
    }
    let total = acc;
    // Per-slot contributions of the current candidate. Up to 64 slots, a
    // bit set says which are filled, so nothing is cleared per candidate.
    let mut contrib = vec![0.0f32; terms.len()];
    let wide = terms.len() > 64;
    // Wide queries: which slots the current candidate filled, 64 a word.
    let mut wide_filled = vec![0u64; if wide { terms.len().div_ceil(64) } else { 0 }];
    let mut first_essential = 0;
    let mut left = steps.left();
    loop {
        let threshold = top.threshold().unwrap_or(f32::NEG_INFINITY);
        while first_essential < scorers.len() && prefix[first_essential] < threshold {
            first_essential += 1;
        }
        if first_essential == scorers.len() {
            break;
        }
        // Each document is a candidate once: a query of at most 64 terms
        // takes at most 64 steps a document, below every limit (at least
        // 100 a document), so only wide ones count, off the ordinary path.
        if wide {
            let Some(rest) = left.checked_sub((scorers.len() - first_essential) as u64) else {
                steps.exhaust();
                break;
            };
            left = rest;
        }
        let candidate = scorers[first_essential..]
            .iter()
            .map(|s| s.0.doc())
            .min()
            .unwrap_or(TERMINATED);
        if candidate == TERMINATED {
            break;
        }
        if !live(candidate) {
            for s in &mut scorers[first_essential..] {
                if s.0.doc() == candidate {
                    let others = total - s.1;
                    s.0.advance_competitive(others, threshold);
                }
            }
            continue;
        }
        // Cheap rejection before any length lookup: the essential terms'
        // per-document bounds plus everything the non-essential ones can add.
        if threshold > f32::NEG_INFINITY {
            let mut bound = first_essential.checked_sub(1).map_or(0.0, |i| prefix[i]);
            for s in &mut scorers[first_essential..] {
                if s.0.doc() == candidate {
                    bound += s.0.doc_bound();
                }
            }
            if bound < threshold {
                for s in &mut scorers[first_essential..] {
                    if s.0.doc() == candidate {
                        let others = total - s.1;
                        s.0.advance_competitive(others, threshold);
                    }
                }
                continue;
            }
        }
        if wide {
            // Only the slots the last candidate filled: clearing all of
            // them cost a pass over every term per candidate.
            for (w, word) in wide_filled.iter_mut().enumerate() {
                let mut bits = std::mem::take(word);
                while bits != 0 {
                    contrib[w * 64 + bits.trailing_zeros() as usize] = 0.0;
                    bits &= bits - 1;
                }
            }
        }
        let mut filled = 0u64;
        let mut partial = 0.0f32;
        // Plan terms seen at the candidate, so hits need no second lookup.
        let mut matched = 0u64;
        let bit = |slot: usize| 1u64.checked_shl(terms[slot] as u32).unwrap_or(0);
        for s in &mut scorers[first_essential..] {
            if s.0.doc() == candidate {
                matched |= bit(s.2);
                let v = s.0.score();
                contrib[s.2] = v;
                filled |= 1u64.checked_shl(s.2 as u32).unwrap_or(0);
                if wide {
                    wide_filled[s.2 / 64] |= 1 << (s.2 % 64);
                }
                partial += v;
                let others = total - s.1;
                s.0.advance_competitive(others, threshold);
            }
        }
        let mut competitive = true;
        // Non-essential terms left unprobed (the loop stops early).
        let mut unprobed = 0;
        for i in (0..first_essential).rev() {
            if partial + prefix[i] < threshold {
                competitive = false;
                unprobed = i + 1;
                break;
            }
            let s = &mut scorers[i];
            if s.0.seek(candidate) == candidate {
                matched |= bit(s.2);
                let v = s.0.score();
                contrib[s.2] = v;
                filled |= 1u64.checked_shl(s.2 as u32).unwrap_or(0);
                if wide {
                    wide_filled[s.2 / 64] |= 1 << (s.2 % 64);
                }
                partial += v;
            }
        }
        // The non-essential terms probed for this candidate.
        if wide {
            let Some(rest) = left.checked_sub((first_essential - unprobed) as u64) else {
                steps.exhaust();
                break;
            };
            left = rest;
        }
        if competitive {
            // Canonical summation order (slot order; unfilled slots add
            // exactly nothing): scores do not depend on pruning.
            let score = if wide {
                sum_filled_wide(&contrib, &wide_filled)
            } else {
                sum_filled(&contrib, filled)
            };
            if !top.admits(score) {
                continue;
            }
            top.offer(Candidate {
                score,
                id: seg.docs.id(candidate),
                segment: si,
                doc: candidate,
                matched: (plan.terms.len() <= 64).then_some(matched),
            });
        }
    }
    steps.settle(left);
}

/// [`sum_filled`] over any number of slots, one word of `filled` per 64.
fn sum_filled_wide(values: &[f32], filled: &[u64]) -> f32 {
    let mut sum = 0.0f32;
    for (w, &word) in filled.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            sum += values[w * 64 + bits.trailing_zeros() as usize];
            bits &= bits - 1;
        }
    }
    sum
}

/// Sum of `values[i]` for the set bits `i` of `filled`, in increasing `i`.
#[inline]
fn sum_filled(values: &[f32], mut filled: u64) -> f32 {
    let mut sum = 0.0f32;
    while filled != 0 {
        sum += values
            .get(filled.trailing_zeros() as usize)
            .copied()
            .unwrap_or(0.0);
        filled &= filled - 1;
    }
    sum
}
