//! Term proximity (`proximity: true`): a BM25TP-style term-pair bonus
//! (Rasolofo & Savoy 2003) applied as a **rerank** of the best
//! [`ProximityOptions::depth`] candidates of the BM25F pass (queries with
//! at least two distinct positive terms; others are untouched and cost
//! nothing more).
//!
//! For each pair of distinct positive query terms `(a, b)` and each text
//! field `f` both are searched in, every pair of their occurrences at
//! distance `1 <= d <= WINDOW` adds `1 / d²` to `acc_f(a, b)`. Fields
//! combine as BM25F combines tfs (`acc = Σ_f w_f · acc_f`), the sum is
//! saturated like a tf (`(k1 + 1) · acc / (k1 + acc)`), and weighted by
//! the smaller of the two terms' idf·boost and by
//! [`ProximityOptions::weight`]. The document's bonus is the sum over its
//! pairs. Tokens at the same position are alternatives (d = 0): no bonus.
//!
//! Why a rerank and not a scorer term: positions are decoded only for the
//! few candidates that can still make the page (never for the documents
//! MaxScore and block-max skip), and the pruning bounds stay what they are
//! (a bonus inside the scoring loop would have to be added to every
//! block's upper bound, weakening pruning for every term). The price: a
//! document outside the BM25F top `depth` cannot be lifted in by
//! its proximity, and the first pass collects that many candidates instead
//! of `offset + limit` (less pruning); `bench/relevance/options.rs` and
//! BENCHMARKS.md have the measured effect.

use crate::index::segment::Segment;

use crate::query::options::{ProximityOptions, MAX_TERMS};
use crate::query::plan::{Node, Plan};
use crate::query::scorer::ScoreParams;
use crate::query::searcher::Searcher;
use crate::query::topk::Candidate;

/// The plan terms proximity pairs up: distinct positive terms (not under
/// a `must_not`), highest idf first, at most [`MAX_TERMS`].
pub(crate) fn positive_terms(plan: &Plan) -> Vec<usize> {
    fn walk(node: &Node, out: &mut Vec<usize>) {
        match node {
            Node::Term(t) => out.push(*t),
            Node::Phrase { terms, .. } => out.extend(terms.iter().map(|&(t, _)| t)),
            Node::Bool { must, should, .. } => {
                for n in must.iter().chain(should) {
                    walk(n, out);
                }
            }
        }
    }
    let mut terms = Vec::new();
    if let Some(root) = &plan.root {
        walk(root, &mut terms);
    }
    let mut distinct: Vec<usize> = Vec::new();
    for t in terms {
        if !distinct
            .iter()
            .any(|&d| plan.terms[d].term == plan.terms[t].term)
        {
            distinct.push(t);
        }
    }
    // Highest idf first, query order among equals (the crate's one pair
    // sort: no sort instantiation of its own, see `crate::sort`).
    let order = crate::sort::order_by_key(
        distinct
            .iter()
            .map(|&t| !crate::sort::f32_key(plan.terms[t].idf)),
    );
    order
        .iter()
        .take(MAX_TERMS)
        .map(|&(_, i)| distinct[i as usize])
        .collect()
}

/// Decoded positions of one term in one document: per field, a sorted list.
#[derive(Default)]
struct TermPositions {
    buf: Vec<u32>,
    ranges: Vec<(usize, usize, usize)>,
    present: bool,
}

impl TermPositions {
    fn field(&self, f: usize) -> &[u32] {
        self.ranges
            .iter()
            .find(|r| r.0 == f)
            .map_or(&[], |&(_, s, e)| &self.buf[s..e])
    }
}

/// `Σ 1/d²` over occurrence pairs of two sorted position lists at distance
/// `1..=window` (a merge walk: each `a` scans only the `b`s in its window).
pub(crate) fn pair_weight(a: &[u32], b: &[u32], window: u32) -> f32 {
    let mut acc = 0.0f32;
    let mut start = 0;
    for &p in a {
        while start < b.len() && b[start] + window < p {
            start += 1;
        }
        for &q in &b[start..] {
            if q > p + window {
                break;
            }
            let d = p.abs_diff(q);
            if d > 0 {
                acc += 1.0 / (d * d) as f32;
            }
        }
    }
    acc
}

impl Searcher<'_> {
    /// Adds the proximity bonus to the first `depth` of `ranked` (best
    /// first) and sorts them again; ties by id as top-k does.
    pub(crate) fn proximity_rerank<'a>(
        &'a self,
        ranked: &mut [Candidate<'a>],
        plan: &Plan,
        params: &ScoreParams,
        opts: &ProximityOptions,
    ) {
        let depth = opts.depth.min(ranked.len());
        let ranked = &mut ranked[..depth];
        let terms = positive_terms(plan);
        if terms.len() < 2 || ranked.is_empty() || opts.weight == 0.0 {
            return;
        }
        // Visit candidates in (segment, doc) order: cursors only move forward.
        let order = crate::sort::order_by_key(
            ranked
                .iter()
                .map(|c| (c.segment as u64) << 32 | c.doc as u64),
        );
        let mut cursors: Vec<Option<crate::postings::PostingsCursor<'_>>> = Vec::new();
        let mut positions: Vec<TermPositions> = terms.iter().map(|_| Default::default()).collect();
        let mut current = usize::MAX;
        let k1 = params.k1;
        for &(_, i) in &order {
            let c = &mut ranked[i as usize];
            let seg: &Segment = &self.segments[c.segment].segment;
            if c.segment != current {
                current = c.segment;
                cursors = terms
                    .iter()
                    .map(|&t| plan.terms[t].info(seg).map(|info| seg.cursor(info)))
                    .collect();
            }
            let mut present = 0;
            for ((cursor, pos), &t) in cursors.iter_mut().zip(&mut positions).zip(&terms) {
                pos.present = false;
                let Some(cursor) = cursor else { continue };
                // The scoring loop's record of the terms it saw: no seek
                // for a term the candidate lacks.
                if c.matched.is_some_and(|bits| t < 64 && bits >> t & 1 == 0) {
                    continue;
                }
                if cursor.seek(c.doc) == c.doc {
                    cursor.read_positions(&mut pos.buf, &mut pos.ranges);
                    pos.present = true;
                    present += 1;
                }
            }
            if present < 2 {
                continue;
            }
            let mut bonus = 0.0f32;
            for a in 0..terms.len() {
                if !positions[a].present {
                    continue;
                }
                let qa = &plan.terms[terms[a]];
                for b in a + 1..terms.len() {
                    if !positions[b].present {
                        continue;
                    }
                    let qb = &plan.terms[terms[b]];
                    let mut fields = qa.fields & qb.fields;
                    let mut acc = 0.0f32;
                    while fields != 0 {
                        let f = fields.trailing_zeros() as usize;
                        fields &= fields - 1;
                        let w = params.norms.get(f).map_or(0.0, |n| n.weight);
                        if w > 0.0 {
                            acc += w * pair_weight(
                                positions[a].field(f),
                                positions[b].field(f),
                                opts.window,
                            );
                        }
                    }
                    if acc > 0.0 {
                        let idf = (qa.idf * qa.boost).min(qb.idf * qb.boost);
                        bonus += idf * (k1 + 1.0) * acc / (k1 + acc);
                    }
                }
            }
            c.score += opts.weight * bonus;
        }
        // Insertion sort: `depth` is small (20 by default, at most 1,000)
        // and nearly sorted already, and a `sort_by` on candidates would
        // compile a standard sort of its own into the wasm (see
        // `crate::sort`).
        for i in 1..ranked.len() {
            let mut j = i;
            while j > 0 && ranked[j].rank_cmp(&ranked[j - 1]).is_lt() {
                ranked.swap(j, j - 1);
                j -= 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::options::ProximityOptions;

    #[test]
    fn pair_weight_counts_pairs_in_the_window_by_inverse_square_distance() {
        assert_eq!(pair_weight(&[3], &[4], 5), 1.0);
        assert_eq!(pair_weight(&[4], &[2], 5), 0.25);
        // Same position: alternatives, no bonus; beyond the window: none.
        assert_eq!(pair_weight(&[4], &[4, 10], 5), 0.0);
        // Two occurrences of a near one b: 1 + 1/4.
        assert_eq!(pair_weight(&[1, 4], &[2], 5), 1.25);
        assert_eq!(pair_weight(&[], &[2], 5), 0.0);
    }

    #[test]
    fn options_parse_and_check() {
        let parse = |s: &str| ProximityOptions::from_json(&crate::json::parse(s).unwrap());
        assert_eq!(parse("false").unwrap(), None);
        assert_eq!(parse("true").unwrap(), Some(ProximityOptions::default()));
        let o = parse(r#"{"weight":2,"window":3}"#).unwrap().unwrap();
        assert_eq!((o.weight, o.window), (2.0, 3));
        assert!(parse(r#"{"wieght":2}"#).unwrap_err().contains("wieght"));
        assert!(parse("3").is_err());
        let zero = ProximityOptions {
            window: 0,
            ..Default::default()
        };
        assert!(zero.check().unwrap_err().contains("proximity.window"));
    }
}
