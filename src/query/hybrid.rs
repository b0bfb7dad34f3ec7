//! Vector and hybrid search (`vector` in the search options).
//!
//! - A blank query with a `vector` is a pure vector search: the top
//!   `offset + limit` live documents the `filter` allows, by similarity
//!   (an exact scan, or int8 codes with an f32 rerank on `quantize: 'int8'`
//!   fields). Hit scores are the similarities.
//! - A query string with a `vector` is a hybrid search: the lexical search
//!   (same mode, fields, filter...) and the vector search each produce
//!   `max(hybrid.candidates, offset + limit)` candidates, fused by
//!   [`crate::vector::fusion`]; hit scores are the fused scores. Both lists
//!   apply the filter before ranking; a document in one list only stays
//!   eligible.
//!
//! Every vector or hybrid hit carries `lexical` and/or `vector`: its rank
//! (from 1) and score in each list that held it. Ties break by external id,
//! as in every ranking, so results do not depend on segmentation.

use crate::error::{Error, Result};
use crate::filter::{allowed, Filter};
use crate::schema::FieldRef;
use crate::vector::fusion::fuse;
use crate::vector::Metric;

use super::options::{Found, Mode, Page, SearchOptions, SearchResults};
use super::searcher::pass::Pass;
use super::searcher::Searcher;
use super::topk::{Candidate, DocId, TopK};

fn usage<T>(reason: String) -> Result<T> {
    Err(Error::Usage {
        reason: format!("search option {reason}"),
    })
}

/// The vector field a search reads (by `vectorField`, or the schema's only
/// one).
fn vector_field(index: &Searcher<'_>, opts: &SearchOptions) -> Result<usize> {
    match &opts.vector_field {
        Some(name) => match index.schema.by_name.get(name) {
            Some(FieldRef::Vector(f)) => Ok(*f),
            Some(_) => Err(Error::schema(name, "is not a vector field (vectorField)")),
            None => Err(Error::schema(name, "is not declared in the schema")),
        },
        None => match index.schema.vectors.len() {
            1 => Ok(0),
            0 => Err(Error::schema(
                "vector",
                "the schema has no vector field; declare one ({ type: 'vector', dimensions })",
            )),
            _ => usage("`vectorField` is required: the schema has several vector fields".into()),
        },
    }
}

/// Checks the vector options of a search (nothing to check without them).
pub(super) fn validate(index: &Searcher<'_>, opts: &SearchOptions) -> Result<()> {
    let Some(v) = &opts.vector else {
        if opts.hybrid.is_some() {
            return usage("`hybrid` needs a query `vector`".into());
        }
        if opts.vector_field.is_some() {
            return usage("`vectorField` needs a query `vector`".into());
        }
        return Ok(());
    };
    crate::build::need(crate::build::VECTORS, "vector search (`vector`)")?;
    if opts.sort.is_some() {
        return usage("`sort` cannot be combined with `vector`".into());
    }
    let field = &index.schema.vectors[vector_field(index, opts)?];
    if v.len() != field.dims as usize {
        return usage(format!(
            "`vector` has {} numbers but field `{}` has {} dimensions",
            v.len(),
            field.name,
            field.dims
        ));
    }
    if let Some(i) = v.iter().position(|x| !x.is_finite()) {
        return usage(format!("`vector[{i}]` is not a finite number"));
    }
    if field.metric == Metric::Cosine && v.iter().all(|&x| x == 0.0) {
        return usage("`vector` must not be all zeros on a cosine field".into());
    }
    Ok(())
}

impl Searcher<'_> {
    /// The `k` best live documents by similarity to `query` (already
    /// normalized for cosine fields) in vector field `field`, best first.
    pub(crate) fn vector_candidates(
        &self,
        field: usize,
        query: &[f32],
        filter: Option<&Filter>,
        k: usize,
        int8: bool,
    ) -> Vec<Candidate<'_>> {
        let mut top = TopK::new(k);
        for (si, entry) in self.segments.iter().enumerate() {
            let Some(col) = entry.segment.vectors.get(field) else {
                continue;
            };
            if col.is_empty() {
                continue;
            }
            let allow = filter.and_then(|f| f.evaluate(&entry.segment));
            let live = |d: u32| !entry.deletes.contains(d) && allowed(&allow, d);
            let id = |d: u32| entry.segment.docs.id(d);
            for (score, doc) in crate::vector::scan(col, query, &live, k, int8, &id) {
                top.offer(Candidate {
                    score,
                    id: DocId::new(&entry.segment.docs, doc),
                    segment: si,
                    doc,
                    matched: None,
                });
            }
        }
        top.into_sorted()
    }

    /// A search with a `vector` (see the module docs); the lexical list in
    /// `lexical`'s mode and proximity (the caller's, or what `strategy:
    /// 'auto'` chose).
    pub(crate) fn hybrid(
        &self,
        query: &str,
        lexical_mode: Mode,
        pass: &Pass<'_>,
    ) -> Result<SearchResults> {
        let (opts, page, filter) = (pass.opts, pass.page, pass.filter);
        let f = vector_field(self, opts)?;
        let field = &self.schema.vectors[f];
        let mut qv = opts.vector.clone().unwrap_or_default();
        if field.metric == Metric::Cosine {
            crate::vector::normalize(&mut qv);
        }
        let want = page.end();
        let h = opts.hybrid.clone().unwrap_or_default();
        let blank = query.trim().is_empty();
        let n = if blank { want } else { h.candidates.max(want) };
        let vector = self.vector_candidates(f, &qv, filter, n, field.int8);

        // The lexical list (empty for a blank query), with the usual modes.
        let lex_page = Page {
            offset: 0,
            limit: if blank { 0 } else { n },
            sort: None,
            ..page
        };
        let (and_first, fallback) = match lexical_mode {
            Mode::Or => (false, false),
            Mode::And => (true, false),
            Mode::Fallback => (true, true),
        };
        let lexical_pass = |and_mode| Pass {
            page: lex_page,
            and_mode,
            ..*pass
        };
        let mut lexical = self.ranked(&lexical_pass(and_first))?;
        let mut mode = if and_first { Mode::And } else { Mode::Or };
        if !blank && fallback && lexical.candidates.len() < opts.min_hits.max(1).min(want) {
            lexical = self.ranked(&lexical_pass(false))?;
            mode = Mode::Or;
        }

        let key = |c: &Candidate<'_>| (c.segment as u64) << 32 | c.doc as u64;
        let lex_list: Vec<(u64, f32)> = lexical
            .candidates
            .iter()
            .map(|c| (key(c), c.score))
            .collect();
        let vec_list: Vec<(u64, f32)> = vector.iter().map(|c| (key(c), c.score)).collect();
        let fused = if blank {
            // Pure vector search: the similarity is the score.
            (0..vector.len())
                .map(|i| crate::vector::fusion::Fused {
                    score: vector[i].score,
                    lexical: None,
                    vector: Some(i),
                })
                .collect()
        } else {
            fuse(&lex_list, &vec_list, &h)
        };
        let mut top = TopK::new(want);
        for fu in &fused {
            // The lexical candidate knows its matched terms; prefer it.
            let base = match (fu.lexical, fu.vector) {
                (Some(l), _) => &lexical.candidates[l],
                (None, Some(v)) => &vector[v],
                (None, None) => continue,
            };
            if top.admits(fu.score) {
                top.offer(Candidate {
                    score: fu.score,
                    ..base.clone()
                });
            }
        }
        let shown: Vec<Candidate<'_>> = top.into_sorted().into_iter().skip(page.offset).collect();
        let mut limited = lexical.limited;
        let plan = &lexical.plan;
        let mut hits = self.make_hits(&shown, plan, &lexical.params, opts, page, &mut limited)?;
        let lex_rank = crate::sort::KeyPositions::new(lex_list.iter().map(|x| x.0));
        let vec_rank = crate::sort::KeyPositions::new(vec_list.iter().map(|x| x.0));
        for (hit, c) in hits.iter_mut().zip(&shown) {
            let k = key(c);
            hit.lexical = lex_rank.get(k).map(|i| Found {
                rank: i + 1,
                score: lex_list[i].1,
            });
            hit.vector = vec_rank.get(k).map(|i| Found {
                rank: i + 1,
                score: vec_list[i].1,
            });
        }
        Ok(SearchResults {
            hits,
            mode,
            total: None,
            total_exact: false,
            limited,
            warnings: Vec::new(),
            strategy: None,
        })
    }
}
