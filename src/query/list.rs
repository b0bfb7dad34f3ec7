//! Listing without a query, and results ordered by a field instead of by
//! score.
//!
//! - A blank query with a `filter` or a `sort` lists the matching live
//!   documents (score 0). A blank query with neither still matches nothing:
//!   an empty search box shows nothing.
//! - `sort: { field, order }` orders any search by a number, date, boolean
//!   or keyword field. Every match is collected (a field order cannot prune
//!   by score), so sorted searches and listings also know `total`, the number
//!   of matches before `offset`/`limit`.
//!
//! Order is deterministic and independent of segmentation: by the field's
//! value, documents without a value last in either order, then by external
//! id ascending (the tie-break ranked search uses). A keyword field with
//! several values sorts by its smallest value ascending and by its largest
//! descending (so `desc` is the reverse of `asc` for single values).
//!
//! Sorting goes through [`crate::sort`] (one `(u64, u32)` sort
//! instantiation): every value becomes a `u64` key whose order is the
//! wanted order, and only the equal-key runs that reach into the returned
//! page are sorted by id.

use crate::error::{Error, Result};
use crate::schema::{FieldRef, FilterKind, ResolvedSchema};
use crate::store::Column;

use super::options::{Mode, Page, SearchOptions, SearchResults, SortSpec};
use super::plan::Plan;
use super::searcher::Searcher;
use super::topk::{Candidate, DocId, TopK};
use crate::filter::{allowed, Filter};

/// The filter column a sort reads, and how its values compare.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SortColumn {
    column: usize,
    kind: FilterKind,
    descending: bool,
}

impl SortColumn {
    /// The column of `spec.field`; a `SCHEMA` error naming the field when
    /// it is not a number, date, boolean or keyword field.
    pub(crate) fn resolve(spec: &SortSpec, schema: &ResolvedSchema) -> Result<SortColumn> {
        match schema.by_name.get(&spec.field) {
            Some(FieldRef::Filter(column)) if schema.filters[*column].kind != FilterKind::Links => {
                Ok(SortColumn {
                    column: *column,
                    kind: schema.filters[*column].kind,
                    descending: spec.descending,
                })
            }
            Some(_) => Err(Error::schema(
                &spec.field,
                "cannot sort by this field: sort by a number, date, boolean or keyword field",
            )),
            None => Err(Error::schema(&spec.field, "is not declared in the schema")),
        }
    }
}

/// Whether this search is a listing: a blank query with a filter or a sort.
pub(crate) fn is_listing(query: &str, opts: &SearchOptions) -> bool {
    query.trim().is_empty() && (opts.filter.is_some() || opts.sort.is_some())
}

/// How many ranked candidates a search collects: the page, or every
/// document when the page is chosen by a field order afterwards.
pub(crate) fn collect_limit(index: &Searcher<'_>, page: Page<'_>) -> usize {
    match page.sort {
        None => page.end(),
        Some(_) => index
            .segments
            .iter()
            .map(|e| e.segment.n_docs as usize)
            .sum(),
    }
}

/// The page of the collected candidates to return, and the total number of
/// matches when known (sorted searches see every match; ranked ones prune).
pub(crate) fn page<'a>(
    index: &'a Searcher<'a>,
    top: TopK<'a>,
    p: Page<'_>,
) -> Result<(Vec<Candidate<'a>>, Option<usize>)> {
    match p.sort {
        None => Ok((top.into_sorted().into_iter().skip(p.offset).collect(), None)),
        Some(spec) => {
            let column = SortColumn::resolve(spec, index.schema)?;
            // Unordered: `order` sorts by the field and breaks ties by id.
            let all = top.into_vec();
            let total = all.len();
            let shown = order(index, all, Some(column), p.offset, p.limit);
            Ok((shown, Some(total)))
        }
    }
}

impl Searcher<'_> {
    /// A listing ([`is_listing`]): every live document the filter allows,
    /// by the sort field or else by id, paged.
    pub(crate) fn list(
        &self,
        opts: &SearchOptions,
        p: Page<'_>,
        filter: Option<&Filter>,
    ) -> Result<SearchResults> {
        let column = p
            .sort
            .map(|s| SortColumn::resolve(s, self.schema))
            .transpose()?;
        let mut all = Vec::new();
        for (si, entry) in self.segments.iter().enumerate() {
            let allow = filter.and_then(|f| f.evaluate(&entry.segment));
            for doc in 0..entry.segment.n_docs {
                if !entry.deletes.contains(doc) && allowed(&allow, doc) {
                    all.push(Candidate {
                        score: 0.0,
                        id: DocId::new(&entry.segment.docs, doc),
                        segment: si,
                        doc,
                        // No query terms, so none matched: hits need no lookup.
                        matched: Some(0),
                    });
                }
            }
        }
        let total = all.len();
        let shown = order(self, all, column, p.offset, p.limit);
        let mut limited = Vec::new();
        let params = self.score_params(opts);
        let hits = self.make_hits(&shown, &Plan::default(), &params, opts, p, &mut limited)?;
        Ok(SearchResults {
            hits,
            // Nothing to fall back from: every listed document matches.
            mode: match opts.mode {
                Mode::Or => Mode::Or,
                Mode::And | Mode::Fallback => Mode::And,
            },
            total: Some(total),
            total_exact: true,
            // A listing visits each live document once: only its answer
            // is bounded.
            limited,
            warnings: Vec::new(),
            strategy: None,
        })
    }
}

/// `cands[offset..offset + limit]` in the order of `column` (all keys equal
/// when `None`: id order), ties by id. Loops with `push` rather than
/// iterator chains: each distinct `collect` is its own copy in the wasm.
fn order<'a>(
    index: &Searcher<'_>,
    cands: Vec<Candidate<'a>>,
    column: Option<SortColumn>,
    offset: usize,
    limit: usize,
) -> Vec<Candidate<'a>> {
    let end = offset.saturating_add(limit).min(cands.len());
    let mut page = Vec::new();
    if offset >= end {
        return page;
    }
    let keys = match column {
        Some(c) => sort_keys(index, &cands, c),
        None => vec![0; cands.len()],
    };
    let mut sorted = crate::sort::order_by_key(keys.into_iter());
    // Break ties by id inside each equal-key run that reaches the page.
    let mut i = 0;
    while i < end {
        let mut j = i + 1;
        while j < sorted.len() && sorted[j].0 == sorted[i].0 {
            j += 1;
        }
        if j > offset && j - i > 1 {
            let mut ids: Vec<&[u8]> = Vec::with_capacity(j - i);
            for p in &sorted[i..j] {
                ids.push(cands[p.1 as usize].id.get().as_bytes());
            }
            let run = sorted[i..j].to_vec();
            for (k, p) in crate::sort::order_by_bytes(&ids).into_iter().enumerate() {
                sorted[i + k] = run[p.1 as usize];
            }
        }
        i = j;
    }
    page.reserve(end - offset);
    for p in &sorted[offset..end] {
        page.push(cands[p.1 as usize].clone());
    }
    page
}

/// Key of a missing value: after every present value in either order.
const MISSING: u64 = u64::MAX;

/// One `u64` per candidate, ordered as the sort wants; never [`MISSING`]
/// for a present value (see [`f64_key`]; keyword ranks are small).
fn sort_keys(index: &Searcher<'_>, cands: &[Candidate<'_>], c: SortColumn) -> Vec<u64> {
    let ranks = keyword_ranks(index, c);
    let mut keys = Vec::with_capacity(cands.len());
    for cand in cands {
        let doc = cand.doc as usize;
        let key = match index.segments[cand.segment].segment.columns.get(c.column) {
            Some(Column::Number(xs)) => xs.get(doc).filter(|x| !x.is_nan()).map(|&x| f64_key(x)),
            Some(Column::Boolean(bs)) => bs.get(doc).filter(|&&b| b < 2).map(|&b| b as u64),
            Some(Column::Keyword(_)) => ranks[cand.segment]
                .get(doc)
                .copied()
                .filter(|&r| r != MISSING),
            Some(Column::Links(_)) | None => None,
        };
        keys.push(match key {
            Some(k) if c.descending => !k,
            Some(k) => k,
            None => MISSING,
        });
    }
    keys
}

/// A key ordered like `f64::total_cmp` (`-0.0` counted as `0.0`). Keys of
/// non-NaN values, and their complements, stay below `u64::MAX`.
fn f64_key(x: f64) -> u64 {
    let b = (x + 0.0).to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

/// For a keyword column, per segment and document: the rank of its smallest
/// value (largest when descending) among the column's distinct values in
/// the whole index, or [`MISSING`]. Empty for other columns.
fn keyword_ranks(index: &Searcher<'_>, c: SortColumn) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    if c.kind != FilterKind::Keyword {
        return out;
    }
    // (segment, docs) of every (segment, value) entry, and the value.
    let mut entries: Vec<(usize, &[u32])> = Vec::new();
    let mut values: Vec<&[u8]> = Vec::new();
    for (si, entry) in index.segments.iter().enumerate() {
        out.push(vec![MISSING; entry.segment.n_docs as usize]);
        if let Some(Column::Keyword(col)) = entry.segment.columns.get(c.column) {
            for (v, docs) in &col.values {
                entries.push((si, docs));
                values.push(v.as_bytes());
            }
        }
    }
    // Walk the values in order; equal values (from different segments)
    // share a rank.
    let mut rank = 0;
    let mut prev: Option<&[u8]> = None;
    for (_, i) in crate::sort::order_by_bytes(&values) {
        let (si, docs) = entries[i as usize];
        let v = values[i as usize];
        if prev.is_some_and(|p| p != v) {
            rank += 1;
        }
        prev = Some(v);
        for &d in docs {
            let slot = &mut out[si][d as usize];
            // Descending keys are complemented later, so keep the largest
            // rank then: it becomes the smallest key.
            if *slot == MISSING || (rank < *slot) != c.descending {
                *slot = rank;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f64_keys_order_like_total_cmp_and_avoid_missing() {
        let xs = [
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            1.0,
            1.7e12,
            f64::MAX,
            f64::INFINITY,
        ];
        for &a in &xs {
            for &b in &xs {
                let want = (a + 0.0).total_cmp(&(b + 0.0));
                assert_eq!(f64_key(a).cmp(&f64_key(b)), want, "{a} {b}");
                assert_eq!((!f64_key(a)).cmp(&!f64_key(b)), want.reverse(), "{a} {b}");
            }
            assert_ne!(f64_key(a), MISSING);
            assert_ne!(!f64_key(a), MISSING);
        }
    }

    #[test]
    fn sort_spec_from_json() {
        let parse = |s: &str| SortSpec::from_json(&crate::json::parse(s).unwrap());
        assert_eq!(
            parse(r#"{"field":"timestamp","order":"desc"}"#),
            Ok(SortSpec {
                field: "timestamp".into(),
                descending: true
            })
        );
        assert!(!parse(r#"{"field":"kind"}"#).unwrap().descending);
        assert!(parse(r#"{"order":"asc"}"#)
            .unwrap_err()
            .contains("sort.field"));
        assert!(parse(r#"{"field":"kind","order":"up"}"#)
            .unwrap_err()
            .contains("unknown variant `up`"));
        assert!(parse(r#"{"field":"kind","by":1}"#)
            .unwrap_err()
            .contains("unknown field `sort.by`"));
    }
}
