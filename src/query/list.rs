//! Listing without a query, and results ordered by a field instead of by
//! score.
//!
//! - A blank query with a `filter` or a `sort` lists the matching live
//!   documents (score 0). A blank query with neither still matches nothing:
//!   an empty search box shows nothing, as before.
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
use crate::index::document::{FieldRef, FilterKind, ResolvedSchema};
use crate::index::Index;
use crate::json::Value;
use crate::jsonopt;
use crate::store::Column;

use super::filter::{allowed, Filter};
use super::options::{Mode, SearchOptions, SearchResults};
use super::plan::Plan;
use super::topk::Candidate;

/// `sort` of a search: a field and a direction.
#[derive(Debug, Clone, PartialEq)]
pub struct SortSpec {
    pub field: String,
    pub descending: bool,
}

const SORT_FIELDS: &[&str] = &["field", "order"];

impl SortSpec {
    /// Reads `{ field, order: 'asc' | 'desc' }` (`order` defaults to `asc`).
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut field = None;
        let mut descending = false;
        for (k, v) in jsonopt::entries(v, path, SORT_FIELDS)? {
            match k {
                "field" => field = Some(jsonopt::string(v, path, k)?),
                _ => descending = jsonopt::variant(v, path, k, &["asc", "desc"])? == 1,
            }
        }
        let field = field.ok_or_else(|| format!("missing field `{path}.field`"))?;
        Ok(SortSpec { field, descending })
    }
}

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
            Some(FieldRef::Filter(column)) => Ok(SortColumn {
                column: *column,
                kind: schema.filters[*column].kind,
                descending: spec.descending,
            }),
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
pub(crate) fn collect_limit(index: &Index, opts: &SearchOptions) -> usize {
    match opts.sort {
        None => opts.offset + opts.limit,
        Some(_) => index
            .segments
            .iter()
            .map(|e| e.segment.n_docs as usize)
            .sum(),
    }
}

/// The page of `ranked` (best first) to return, and the total number of
/// matches when known (sorted searches see every match; ranked ones prune).
pub(crate) fn page<'a>(
    index: &'a Index,
    ranked: Vec<Candidate<'a>>,
    opts: &SearchOptions,
) -> Result<(Vec<Candidate<'a>>, Option<usize>)> {
    match &opts.sort {
        None => Ok((ranked.into_iter().skip(opts.offset).collect(), None)),
        Some(spec) => {
            let column = SortColumn::resolve(spec, &index.schema)?;
            let total = ranked.len();
            let page = order(index, ranked, Some(column), opts.offset, opts.limit);
            Ok((page, Some(total)))
        }
    }
}

impl Index {
    /// A listing ([`is_listing`]): every live document the filter allows,
    /// by the sort field or else by id, paged.
    pub(crate) fn list(
        &self,
        opts: &SearchOptions,
        filter: Option<&Filter>,
    ) -> Result<SearchResults> {
        let column = opts
            .sort
            .as_ref()
            .map(|s| SortColumn::resolve(s, &self.schema))
            .transpose()?;
        let mut all = Vec::new();
        for (si, entry) in self.segments.iter().enumerate() {
            let allow = filter.and_then(|f| f.evaluate(&entry.segment));
            for doc in 0..entry.segment.n_docs {
                if !entry.deletes.contains(doc) && allowed(&allow, doc) {
                    all.push(Candidate {
                        score: 0.0,
                        id: entry.segment.docs.id(doc),
                        segment: si,
                        doc,
                        // No query terms, so none matched: hits need no lookup.
                        matched: Some(0),
                    });
                }
            }
        }
        let total = all.len();
        let page = order(self, all, column, opts.offset, opts.limit);
        let hits = self.make_hits(&page, &Plan::default(), &self.score_params(opts), opts);
        Ok(SearchResults {
            hits,
            // Nothing to fall back from: every listed document matches.
            mode: match opts.mode {
                Mode::Or => Mode::Or,
                Mode::And | Mode::Fallback => Mode::And,
            },
            total: Some(total),
        })
    }
}

/// `cands[offset..offset + limit]` in the order of `column` (all keys equal
/// when `None`: id order), ties by id.
fn order<'a>(
    index: &Index,
    cands: Vec<Candidate<'a>>,
    column: Option<SortColumn>,
    offset: usize,
    limit: usize,
) -> Vec<Candidate<'a>> {
    let end = offset.saturating_add(limit).min(cands.len());
    if offset >= end {
        return Vec::new();
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
            let ids: Vec<&[u8]> = sorted[i..j]
                .iter()
                .map(|&(_, c)| cands[c as usize].id.as_bytes())
                .collect();
            let by_id = crate::sort::order_by_bytes(&ids);
            let run: Vec<(u64, u32)> = by_id.iter().map(|&(_, r)| sorted[i + r as usize]).collect();
            sorted[i..j].copy_from_slice(&run);
        }
        i = j;
    }
    let mut slots: Vec<Option<Candidate<'a>>> = cands.into_iter().map(Some).collect();
    sorted[offset..end]
        .iter()
        .filter_map(|&(_, c)| slots[c as usize].take())
        .collect()
}

/// Key of a missing value: after every present value in either order.
const MISSING: u64 = u64::MAX;

/// One `u64` per candidate, ordered as the sort wants. Present keys never
/// equal [`MISSING`] (see [`f64_key`]).
fn sort_keys(index: &Index, cands: &[Candidate<'_>], c: SortColumn) -> Vec<u64> {
    let dir = |k: u64| if c.descending { !k } else { k };
    if c.kind == FilterKind::Keyword {
        return keyword_keys(index, cands, c);
    }
    cands
        .iter()
        .map(
            |cand| match index.segments[cand.segment].segment.columns.get(c.column) {
                Some(Column::Number(xs)) => match xs.get(cand.doc as usize) {
                    Some(&x) if !x.is_nan() => dir(f64_key(x)),
                    _ => MISSING,
                },
                Some(Column::Boolean(bs)) => match bs.get(cand.doc as usize) {
                    Some(&b) if b < 2 => dir(b as u64),
                    _ => MISSING,
                },
                _ => MISSING,
            },
        )
        .collect()
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

/// Keyword keys: each candidate's smallest value (largest when descending),
/// ranked among the candidates' values, equal values sharing a rank.
fn keyword_keys(index: &Index, cands: &[Candidate<'_>], c: SortColumn) -> Vec<u64> {
    // Per segment, doc -> chosen value: keyword columns map value -> docs.
    let mut chosen: Vec<Vec<Option<&str>>> = Vec::with_capacity(index.segments.len());
    for entry in &index.segments {
        let mut slots: Vec<Option<&str>> = vec![None; entry.segment.n_docs as usize];
        if let Some(Column::Keyword(col)) = entry.segment.columns.get(c.column) {
            for (value, docs) in &col.values {
                for &d in docs {
                    let slot = &mut slots[d as usize];
                    let better = match slot {
                        None => true,
                        Some(s) => (value.as_str() < *s) != c.descending,
                    };
                    if better {
                        *slot = Some(value.as_str());
                    }
                }
            }
        }
        chosen.push(slots);
    }
    let values: Vec<Option<&str>> = cands
        .iter()
        .map(|cand| chosen[cand.segment][cand.doc as usize])
        .collect();
    let present: Vec<&[u8]> = values.iter().map(|v| v.unwrap_or("").as_bytes()).collect();
    let mut keys = vec![MISSING; cands.len()];
    let mut rank = 0u64;
    let mut prev: Option<&[u8]> = None;
    for (_, i) in crate::sort::order_by_bytes(&present) {
        let i = i as usize;
        if values[i].is_none() {
            continue;
        }
        if prev.is_some_and(|p| p != present[i]) {
            rank += 1;
        }
        prev = Some(present[i]);
        // Ranks are below the candidate count, so neither form is MISSING.
        keys[i] = if c.descending {
            MISSING - 1 - rank
        } else {
            rank
        };
    }
    keys
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
        let parse = |s: &str| SortSpec::from_json(&crate::json::parse(s).unwrap(), "sort");
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
