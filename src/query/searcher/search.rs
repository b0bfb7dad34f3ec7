//! Running a search: options -> plan -> per-segment scoring into one top-k
//! -> the rerank stages -> hits (see [`crate::query::hits`]).

use crate::error::{Error, Result};
use crate::filter::{allowed, Filter};
use crate::query::ast::Query;
use crate::query::bm25::{self, FieldNorm};
use crate::query::budget::{Budget, Limited, Limits, Steps, MAX_RERANK_POOL};
use crate::query::exec::conjunction::conjunction_of_terms;
use crate::query::exec::count::MatchCount;
use crate::query::exec::maxscore::maxscore;
use crate::query::exec::scorers::{build_scorer, collect, SegmentRun};
use crate::query::options::{
    Hit, Mode, Page, SearchOptions, SearchResults, StoredSelection, Strategy, Syntax,
};
use crate::query::parser;
use crate::query::plan::{Plan, PlanOptions, Planner};
use crate::query::scorer::ScoreParams;
use crate::query::topk::TopK;
use crate::store::StoredFields;

use super::pass::{Pass, Ranked, Total};
use super::validate::validate;
use super::Searcher;

impl Searcher<'_> {
    /// Searches the snapshot (see [`crate::Index::searcher`] for which
    /// writes it sees).
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<SearchResults> {
        self.search_with_limits(query, opts, self.query_limits())
    }

    /// The cost limits of each search pass over this index (see
    /// [`crate::query::budget`]): they grow with the documents and terms.
    pub fn query_limits(&self) -> Limits {
        let terms = self
            .segments
            .iter()
            .map(|e| e.segment.n_terms() as u64)
            .sum();
        Limits::for_index(self.live_docs, terms)
    }

    /// [`Searcher::search`] under the given limits (each pass of a
    /// fallback search gets them whole).
    pub(crate) fn search_with_limits(
        &self,
        query: &str,
        opts: &SearchOptions,
        limits: Limits,
    ) -> Result<SearchResults> {
        if opts.expand.is_some() {
            crate::build::need(crate::build::LINKS, "link expansion (`expand`)")?;
        }
        // `strategy: 'auto'` asks for link expansion on relation questions
        // ("what depends on X": the documents linking to X's hits, and what
        // they link to: direction `both`); an explicit `expand` wins. The
        // guard keeps link traversal out of the lexical build's wasm.
        let auto_expand;
        let expand = match (opts.strategy, &opts.expand) {
            (Strategy::Auto, None) if crate::build::LINKS => {
                let hops = crate::query::strategy::choose(query, opts.vector.is_some()).expand_hops;
                auto_expand = hops.map(|hops| crate::query::options::ExpandOptions {
                    hops: hops.into(),
                    direction: crate::query::options::Direction::Both,
                    ..Default::default()
                });
                auto_expand.as_ref()
            }
            (_, given) => given.as_ref(),
        };
        let rerank = opts.diversity.is_some() || opts.dedupe;
        if rerank {
            crate::build::need(crate::build::RERANK, "`diversity` and `dedupe`")?;
        }
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
    /// [`crate::query::rerank::diversity::pool_size`] candidates, at most [`MAX_RERANK_POOL`]
    /// (each with every stored field), is deduplicated, then reordered by
    /// MMR under the rerank steps of `limits`; ranks past the window follow
    /// in score order (a page reaching them is `limited: rerank`).
    fn reranked_page(
        &self,
        query: &str,
        opts: &SearchOptions,
        limits: Limits,
    ) -> Result<SearchResults> {
        let wanted = crate::query::rerank::diversity::pool_size(opts.offset, opts.limit);
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
            Limited::Rerank.reached(opts.strict(), &mut r.limited, what, MAX_RERANK_POOL, got)?;
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
        use crate::query::rerank::diversity;
        let steps = Steps::new(limits.rerank_steps);
        let vector_field = opts.vector_field.as_deref();
        let mut hits = pool;
        let vectors = self.hit_vectors(&hits, vector_field);
        if opts.dedupe {
            hits = diversity::dedupe(hits, &vectors, &steps);
        }
        if let Some(lambda) = opts.diversity {
            // Dedupe dropped hits: their vectors no longer line up.
            let vectors = match opts.dedupe {
                true => self.hit_vectors(&hits, vector_field),
                false => vectors,
            };
            hits = diversity::mmr(hits, lambda, &vectors, opts.offset + opts.limit, &steps);
        }
        if steps.ran_out() {
            let limit = usize::try_from(limits.rerank_steps).unwrap_or(usize::MAX);
            let what = "rerank steps (diversity, dedupe)";
            Limited::Rerank.reached(opts.strict(), limited, what, limit, limit + 1)?;
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
        // `strategy: 'auto'`: the rules of [`crate::query::strategy`] choose the
        // mode and proximity (and, once the index has them, link expansion
        // and hybrid fusion); the other options apply as given.
        let choice = (opts.strategy == Strategy::Auto)
            .then(|| crate::query::strategy::choose(query, opts.vector.is_some()));
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
            Syntax::Lenient => crate::filter::words::extract(&mut ast, self.schema),
            Syntax::Strict => Default::default(),
        };
        crate::query::merge::merge_repeats(&mut ast);
        let mut filter = match &opts.filter {
            Some(json) if !json.is_null() => Some(Filter::compile(json, self.schema)?),
            _ => None,
        };
        let from_words = !words.conditions.is_empty();
        if from_words {
            filter
                .get_or_insert_with(Filter::default)
                .conditions
                .extend(words.conditions);
        }
        if crate::build::VECTORS && opts.vector.is_some() {
            // The lexical list runs in the mode and proximity the strategy
            // chose and reports, not the caller's.
            let pass = Pass {
                ast: &ast,
                opts,
                page,
                proximity: proximity.as_ref(),
                filter: filter.as_ref(),
                and_mode: false,
                limits,
                // Fused answers carry no total.
                track_total: 0,
            };
            let mut results = self.hybrid(query, mode, &pass)?;
            results.warnings = words.warnings;
            results.strategy = choice;
            return Ok(results);
        }
        if crate::query::list::is_listing(query, opts) || (from_words && ast.is_empty()) {
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
            self.run(&Pass {
                ast: &ast,
                opts,
                page,
                proximity: proximity.as_ref(),
                filter: filter.as_ref(),
                and_mode,
                limits,
                track_total: opts.track_total,
            })
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
                    reason: crate::filter::words::strict_hint(&reason, self.schema)
                        .unwrap_or(reason),
                },
                e => e,
            }),
        }
    }

    /// One planning and scoring pass under its own budget; also returns
    /// the total (sorted searches) and the budgets that ran out (a strict
    /// search fails on them instead).
    fn run(&self, pass: &Pass<'_>) -> Result<(Vec<Hit>, Total, Vec<Limited>)> {
        let (opts, page) = (pass.opts, pass.page);
        let mut r = match self.memo.and_then(|m| m.take(self, pass)) {
            Some(ranked) => ranked,
            None => self.ranked(pass)?,
        };
        let ranked_limited = self.memo.map(|_| r.limited.clone());
        let hits = self.make_hits(
            &r.candidates,
            &r.plan,
            &r.params,
            opts,
            page,
            &mut r.limited,
        )?;
        let total = r.total;
        if let (Some(memo), Some(before)) = (self.memo, ranked_limited) {
            // Kept as ranking left it: the hits add their own limits again.
            let limited = std::mem::replace(&mut r.limited, before);
            memo.keep(pass, r);
            return Ok((hits, total, limited));
        }
        Ok((hits, total, r.limited))
    }

    /// [`Searcher::run`] up to the ranked page (no hits built yet).
    pub(crate) fn ranked(&self, pass: &Pass<'_>) -> Result<Ranked<'_>> {
        let Pass {
            ast,
            opts,
            page,
            proximity,
            filter,
            and_mode,
            limits,
            track_total,
        } = *pass;
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
        let rerank = proximity.filter(|_| {
            page.sort.is_none() && crate::query::rerank::proximity::positive_terms(&plan).len() >= 2
        });
        let k = match rerank {
            Some(p) => p.collect(crate::query::list::collect_limit(self, page)),
            None => crate::query::list::collect_limit(self, page),
        };
        let mut top = TopK::new(k);
        if let Some(r) = &opts.recency {
            let recency = crate::query::rerank::recency::Recency::new(self, r)?;
            top.set_adjust(Box::new(move |s, d| recency.factor(s, d)));
        }
        let flat = plan.flat_terms();
        let conjunction = plan.conjunction_terms();
        let known_total = self.known_total(&plan, flat.as_deref(), filter, track_total);
        let count_cap = (track_total > 0 && known_total.is_none()).then_some(track_total);
        let count = MatchCount::new(count_cap, limits.scoring_steps);
        let steps = &budget.scoring;
        for (si, entry) in self.segments.iter().enumerate() {
            if steps.ran_out() {
                break;
            }
            let allow = filter.and_then(|f| f.evaluate(&entry.segment));
            let live = |d: u32| !entry.deletes.contains(d) && allowed(&allow, d);
            let run = SegmentRun {
                plan: &plan,
                entry,
                si,
                params: &params,
                live: &live,
                steps,
                count: &count,
            };
            match (&flat, &conjunction) {
                (Some(terms), _) => maxscore(&run, terms, &mut top),
                (None, Some(terms)) => conjunction_of_terms(&run, terms, &mut top),
                (None, None) => {
                    let mut scorer = build_scorer(root, &plan, &entry.segment, &params, steps);
                    collect(scorer.as_mut(), &run, plan.conjunction_bits(), &mut top)
                }
            }
        }
        if steps.ran_out() {
            budget.scoring_cut()?;
        }
        // Counted while nothing pruned; else the heap never filled (every
        // match was offered); else `offered` is a lower bound.
        let total = match (known_total, count.exact()) {
            (Some(known), _) => known,
            (None, Some(n)) if !budget.scoring.ran_out() => Total::Exact(n),
            _ if count.passed_cap() => Total::AtLeast(count.cap().max(top.offered())),
            _ if top.len() < k => Total::Exact(top.offered()),
            _ => Total::AtLeast(top.offered()),
        };
        let (candidates, sorted_total) = match &rerank {
            Some(p) => {
                let mut ranked = top.into_sorted();
                self.proximity_rerank(&mut ranked, &plan, &params, p);
                let shown = ranked.into_iter().skip(page.offset).take(page.limit);
                (shown.collect(), None)
            }
            None => crate::query::list::page(self, top, page)?,
        };
        let total = sorted_total.map_or(total, Total::Exact);
        Ok(Ranked {
            candidates,
            total,
            limited: budget.limited().to_vec(),
            plan,
            params,
        })
    }

    /// The total of an unfiltered query of plain terms (searched in every
    /// field), when planning already knows it: one term's live document
    /// frequency, or "at least" the most frequent term's when that passes
    /// `cap`. Saves counting (or, past the cap, visiting) every match.
    fn known_total(
        &self,
        plan: &Plan,
        flat: Option<&[usize]>,
        filter: Option<&Filter>,
        cap: usize,
    ) -> Option<Total> {
        let terms = flat.filter(|_| filter.is_none() && cap > 0)?;
        let every_field = crate::postings::all_fields(self.schema.text.len());
        let plain = |&t: &usize| plan.terms[t].fields & every_field == every_field;
        if !terms.iter().all(plain) {
            return None;
        }
        let most = terms.iter().map(|&t| plan.terms[t].doc_freq).max()?;
        let most = usize::try_from(most).unwrap_or(usize::MAX);
        match (terms.len(), most > cap) {
            (1, false) => Some(Total::Exact(most)),
            (_, true) => Some(Total::AtLeast(most)),
            _ => None,
        }
    }

    pub(crate) fn score_params(&self, opts: &SearchOptions) -> ScoreParams {
        let b = opts.b.unwrap_or(self.config().b);
        let n = self.live_docs.max(1) as f64;
        let weights: Vec<f32> = (self.schema.text.iter())
            .map(|field| match &opts.fields {
                Some(map) => map.get(&field.name).copied().unwrap_or(0.0),
                None => field.weight,
            })
            .collect();
        let scale = bm25::weight_scale(&weights);
        let norms = (weights.iter().enumerate())
            .map(|(f, &w)| FieldNorm::new(w * scale, b, (self.live_field_len[f] as f64 / n) as f32))
            .collect();
        ScoreParams {
            k1: opts.k1.unwrap_or(self.config().k1),
            norms,
        }
    }
}
