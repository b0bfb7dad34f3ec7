//! Document-at-a-time scorers over one segment. Each scorer is positioned on
//! a document (or [`TERMINATED`]) and can advance or seek forward; `score`
//! is the score of the current document.

use crate::index::segment::Segment;
use crate::postings::{FieldBound, PostingsCursor, TermInfo, TERMINATED};

use super::bm25::{self, FieldNorm};
use super::budget::Steps;

pub trait Scorer {
    fn doc(&self) -> u32;
    fn advance(&mut self) -> u32;
    fn seek(&mut self, target: u32) -> u32;
    fn score(&mut self) -> f32;
    /// Estimated number of matching documents (for ordering intersections).
    fn cost(&self) -> u64;
}

/// Query-wide scoring constants.
#[derive(Debug, Clone)]
pub struct ScoreParams {
    pub k1: f32,
    /// Per text field.
    pub norms: Vec<FieldNorm>,
}

/// BM25F weight of one term: which fields count and the idf·boost factor.
#[derive(Debug, Clone)]
pub struct TermWeight {
    pub fields: u32,
    pub idf_boost: f32,
}

impl TermWeight {
    /// BM25F score from per-field tfs of one document.
    #[inline]
    pub fn score_doc(
        &self,
        params: &ScoreParams,
        seg: &Segment,
        doc: u32,
        cursor: &PostingsCursor<'_>,
    ) -> f32 {
        let mut tf = 0.0f32;
        let fields = self.fields;
        cursor.for_each_field_tf(|f, t| {
            if fields & (1 << f) != 0 {
                tf += params.norms[f].tf(t, seg.field_len(doc, f));
            }
        });
        bm25::saturate(self.idf_boost, params.k1, tf)
    }

    /// Upper bound of `score_doc` over a block, from its field bounds.
    pub fn block_bound(&self, params: &ScoreParams, bounds: &[FieldBound]) -> f32 {
        let mut tf = 0.0f32;
        for (f, bound) in bounds.iter().enumerate() {
            if self.fields & (1 << f) != 0 && bound.max_tf > 0 {
                tf += params.norms[f].tf(bound.max_tf, bound.min_len);
            }
        }
        // Guard against rounding making the bound a hair too small.
        bm25::saturate(self.idf_boost, params.k1, tf) * 1.0001 + 1e-6
    }
}

/// Scores one term's postings.
pub struct TermScorer<'a> {
    pub cursor: PostingsCursor<'a>,
    pub weight: TermWeight,
    params: &'a ScoreParams,
    seg: &'a Segment,
    cost: u64,
    /// The term is searched in only some of the segment's fields.
    restricted: bool,
    /// Block whose `inv_norms` are computed ([`usize::MAX`]: none yet).
    bound_block: usize,
    /// Per field, `w / (a + c · min_len)` of the current block: the largest
    /// value a tf of 1 can reach in that field anywhere in the block.
    inv_norms: Vec<f32>,
}

impl<'a> TermScorer<'a> {
    pub fn new(
        seg: &'a Segment,
        info: TermInfo,
        weight: TermWeight,
        params: &'a ScoreParams,
    ) -> Option<TermScorer<'a>> {
        let mut scorer = TermScorer {
            cursor: seg.cursor(info),
            weight,
            params,
            seg,
            cost: info.doc_freq as u64,
            restricted: false,
            bound_block: usize::MAX,
            inv_norms: vec![0.0; seg.n_fields],
        };
        let all = crate::postings::all_fields(seg.n_fields);
        scorer.restricted = scorer.weight.fields & all != all;
        scorer.skip_other_fields();
        Some(scorer)
    }

    /// Skips documents that have the term only in fields not searched.
    #[inline]
    fn skip_other_fields(&mut self) {
        if !self.restricted {
            return;
        }
        while self.cursor.doc() != TERMINATED && self.cursor.field_mask() & self.weight.fields == 0
        {
            self.cursor.advance();
        }
    }

    /// Advances, skipping blocks whose score bound plus `others` (an upper
    /// bound of everything the other terms can add) stays below `threshold`.
    #[inline]
    pub fn advance_competitive(&mut self, others: f32, threshold: f32) -> u32 {
        let (weight, params, postings) = (&self.weight, self.params, self.cursor.postings());
        self.cursor.advance_competitive(|b| {
            weight.block_bound(params, postings.block_bounds(b)) + others >= threshold
        });
        self.skip_other_fields();
        self.cursor.doc()
    }

    /// An upper bound of [`Scorer::score`] for the current document from
    /// its decoded tfs and the block's smallest field lengths: no length
    /// lookups and one division, so non-competitive documents are cheap to
    /// reject. Valid because a field's length in the block is at least its
    /// `min_len` and the score decreases with length.
    #[inline]
    pub fn doc_bound(&mut self) -> f32 {
        let Some(block) = self.cursor.block_index() else {
            // Exhausted: never a candidate; never reject.
            return f32::INFINITY;
        };
        if block != self.bound_block {
            self.bound_block = block;
            let bounds = self.cursor.postings().block_bounds(block);
            for (f, inv) in self.inv_norms.iter_mut().enumerate() {
                *inv = match bounds.get(f) {
                    Some(b) if self.weight.fields & (1 << f) != 0 && b.max_tf > 0 => {
                        self.params.norms[f].tf(1, b.min_len)
                    }
                    _ => 0.0,
                };
            }
        }
        let mut tf = 0.0f32;
        let inv = &self.inv_norms;
        self.cursor.for_each_field_tf(|f, t| {
            tf += inv.get(f).copied().unwrap_or(0.0) * t as f32;
        });
        // Same rounding guard as `block_bound`.
        bm25::saturate(self.weight.idf_boost, self.params.k1, tf) * 1.0001 + 1e-6
    }

    /// Upper bound of this term's score in the whole segment.
    pub fn max_score(&self) -> f32 {
        self.cursor
            .block_range()
            .map(|b| {
                let bounds = self.cursor.postings().block_bounds(b);
                self.weight.block_bound(self.params, bounds)
            })
            .fold(0.0, f32::max)
    }
}

impl Scorer for TermScorer<'_> {
    #[inline]
    fn doc(&self) -> u32 {
        self.cursor.doc()
    }
    #[inline]
    fn advance(&mut self) -> u32 {
        self.cursor.advance();
        self.skip_other_fields();
        self.cursor.doc()
    }
    #[inline]
    fn seek(&mut self, target: u32) -> u32 {
        self.cursor.seek(target);
        self.skip_other_fields();
        self.cursor.doc()
    }
    #[inline]
    fn score(&mut self) -> f32 {
        self.weight
            .score_doc(self.params, self.seg, self.cursor.doc(), &self.cursor)
    }
    fn cost(&self) -> u64 {
        self.cost
    }
}

/// Matches nothing (a term absent from the segment).
pub struct EmptyScorer;

impl Scorer for EmptyScorer {
    fn doc(&self) -> u32 {
        TERMINATED
    }
    fn advance(&mut self) -> u32 {
        TERMINATED
    }
    fn seek(&mut self, _: u32) -> u32 {
        TERMINATED
    }
    fn score(&mut self) -> f32 {
        0.0
    }
    fn cost(&self) -> u64 {
        0
    }
}

/// Disjunction: documents matching any child; score = sum of matching
/// children, in child order (so sums are reproducible). Each move costs a
/// scoring step per child (it scans them all).
pub struct UnionScorer<'a> {
    children: Vec<Box<dyn Scorer + 'a>>,
    /// Each child's current document: only the union moves its children,
    /// so it keeps them here instead of asking each one (a dynamic call)
    /// whenever it looks for the smallest.
    docs: Vec<u32>,
    doc: u32,
    steps: &'a Steps,
}

impl<'a> UnionScorer<'a> {
    pub fn new(children: Vec<Box<dyn Scorer + 'a>>, steps: &'a Steps) -> Self {
        let docs: Vec<u32> = children.iter().map(|c| c.doc()).collect();
        let doc = docs.iter().copied().min().unwrap_or(TERMINATED);
        UnionScorer {
            children,
            docs,
            doc,
            steps,
        }
    }
    fn refresh(&mut self) -> u32 {
        self.doc = self.docs.iter().copied().min().unwrap_or(TERMINATED);
        self.doc
    }
    /// Pays for one move; out of steps, the union ends.
    #[inline]
    fn pay(&mut self) -> bool {
        if self.steps.take(self.children.len() as u64) {
            return true;
        }
        self.doc = TERMINATED;
        false
    }
}

impl Scorer for UnionScorer<'_> {
    fn doc(&self) -> u32 {
        self.doc
    }
    fn advance(&mut self) -> u32 {
        if !self.pay() {
            return TERMINATED;
        }
        let cur = self.doc;
        for (c, d) in self.children.iter_mut().zip(&mut self.docs) {
            if *d == cur {
                *d = c.advance();
            }
        }
        self.refresh()
    }
    fn seek(&mut self, target: u32) -> u32 {
        if !self.pay() {
            return TERMINATED;
        }
        for (c, d) in self.children.iter_mut().zip(&mut self.docs) {
            if *d < target {
                *d = c.seek(target);
            }
        }
        self.refresh()
    }
    fn score(&mut self) -> f32 {
        // Scans every child too; running out here ends the pass at the
        // next move.
        self.steps.take(self.children.len() as u64);
        let cur = self.doc;
        let mut s = 0.0;
        for (c, &d) in self.children.iter_mut().zip(&self.docs) {
            if d == cur {
                s += c.score();
            }
        }
        s
    }
    fn cost(&self) -> u64 {
        self.children.iter().map(|c| c.cost()).sum()
    }
}

/// Conjunction: documents matching every child. The cheapest child leads,
/// the others seek to it (intersection from the rarest term). Each round
/// of alignment costs a scoring step per child.
pub struct IntersectionScorer<'a> {
    children: Vec<Box<dyn Scorer + 'a>>,
    /// Child indexes by increasing cost; scores are summed in child order.
    order: Vec<usize>,
    doc: u32,
    steps: &'a Steps,
}

impl<'a> IntersectionScorer<'a> {
    pub fn new(children: Vec<Box<dyn Scorer + 'a>>, steps: &'a Steps) -> Self {
        // Stable: equal costs keep child order.
        let order: Vec<usize> = crate::sort::order_by_key(children.iter().map(|c| c.cost()))
            .into_iter()
            .map(|(_, i)| i as usize)
            .collect();
        let mut s = IntersectionScorer {
            children,
            order,
            doc: TERMINATED,
            steps,
        };
        let start = s.children.get(s.order[0]).map_or(TERMINATED, |c| c.doc());
        s.doc = s.align(start);
        s
    }

    /// Finds the first doc >= `candidate` that all children share.
    fn align(&mut self, mut candidate: u32) -> u32 {
        'outer: loop {
            if candidate == TERMINATED || !self.steps.take(self.children.len() as u64) {
                return TERMINATED;
            }
            for &i in &self.order {
                let d = self.children[i].seek(candidate);
                if d != candidate {
                    candidate = d;
                    continue 'outer;
                }
            }
            return candidate;
        }
    }
}

impl Scorer for IntersectionScorer<'_> {
    fn doc(&self) -> u32 {
        self.doc
    }
    fn advance(&mut self) -> u32 {
        let lead = self.order[0];
        let next = self.children[lead].advance();
        self.doc = self.align(next);
        self.doc
    }
    fn seek(&mut self, target: u32) -> u32 {
        if target <= self.doc {
            return self.doc;
        }
        self.doc = self.align(target);
        self.doc
    }
    fn score(&mut self) -> f32 {
        self.children.iter_mut().map(|c| c.score()).sum()
    }
    fn cost(&self) -> u64 {
        self.children.iter().map(|c| c.cost()).min().unwrap_or(0)
    }
}

/// Required part plus optional part that only adds score.
pub struct ReqOptScorer<'a> {
    pub required: Box<dyn Scorer + 'a>,
    pub optional: Box<dyn Scorer + 'a>,
}

impl Scorer for ReqOptScorer<'_> {
    fn doc(&self) -> u32 {
        self.required.doc()
    }
    fn advance(&mut self) -> u32 {
        self.required.advance()
    }
    fn seek(&mut self, target: u32) -> u32 {
        self.required.seek(target)
    }
    fn score(&mut self) -> f32 {
        let d = self.required.doc();
        let mut s = self.required.score();
        if self.optional.doc() < d {
            self.optional.seek(d);
        }
        if self.optional.doc() == d {
            s += self.optional.score();
        }
        s
    }
    fn cost(&self) -> u64 {
        self.required.cost()
    }
}

/// Positive matches minus excluded ones.
pub struct ExclusionScorer<'a> {
    positive: Box<dyn Scorer + 'a>,
    negative: Box<dyn Scorer + 'a>,
}

impl<'a> ExclusionScorer<'a> {
    pub fn new(positive: Box<dyn Scorer + 'a>, negative: Box<dyn Scorer + 'a>) -> Self {
        let mut s = ExclusionScorer { positive, negative };
        let d = s.positive.doc();
        s.skip_excluded(d);
        s
    }
    fn skip_excluded(&mut self, mut d: u32) -> u32 {
        while d != TERMINATED && self.negative.seek(d) == d {
            d = self.positive.advance();
        }
        d
    }
}

impl Scorer for ExclusionScorer<'_> {
    fn doc(&self) -> u32 {
        self.positive.doc()
    }
    fn advance(&mut self) -> u32 {
        let d = self.positive.advance();
        self.skip_excluded(d)
    }
    fn seek(&mut self, target: u32) -> u32 {
        let d = self.positive.seek(target);
        self.skip_excluded(d)
    }
    fn score(&mut self) -> f32 {
        self.positive.score()
    }
    fn cost(&self) -> u64 {
        self.positive.cost()
    }
}

/// Exact or sloppy phrase: the conjunction of its terms whose positions line
/// up (within `slop`) in one field. Phrase frequency replaces tf in BM25F.
pub struct PhraseScorer<'a> {
    terms: Vec<(TermScorer<'a>, u32)>,
    /// A scoring step per term per round of alignment.
    steps: &'a Steps,
    slop: u32,
    fields: u32,
    idf_boost: f32,
    params: &'a ScoreParams,
    seg: &'a Segment,
    doc: u32,
    /// Phrase frequency per field of the current doc.
    freqs: Vec<u32>,
    buf: Vec<u32>,
    ranges: Vec<(usize, usize, usize)>,
}

impl<'a> PhraseScorer<'a> {
    pub fn new(
        seg: &'a Segment,
        terms: Vec<(TermScorer<'a>, u32)>,
        slop: u32,
        fields: u32,
        idf_boost: f32,
        params: &'a ScoreParams,
        steps: &'a Steps,
    ) -> Self {
        let mut s = PhraseScorer {
            terms,
            steps,
            slop,
            fields,
            idf_boost,
            params,
            seg,
            doc: TERMINATED,
            freqs: vec![0; seg.n_fields],
            buf: Vec::new(),
            ranges: Vec::new(),
        };
        let start = s
            .terms
            .iter()
            .map(|t| t.0.doc())
            .max()
            .unwrap_or(TERMINATED);
        s.doc = s.find(start);
        s
    }

    fn find(&mut self, mut candidate: u32) -> u32 {
        loop {
            // Align all terms on one document.
            'align: loop {
                if candidate == TERMINATED || !self.steps.take(self.terms.len() as u64) {
                    return TERMINATED;
                }
                for t in &mut self.terms {
                    let d = t.0.seek(candidate);
                    if d != candidate {
                        candidate = d;
                        continue 'align;
                    }
                }
                break;
            }
            if self.match_positions() {
                return candidate;
            }
            candidate = self.terms[0].0.advance();
        }
    }

    /// Counts phrase occurrences per field of the aligned document.
    fn match_positions(&mut self) -> bool {
        let mut any = false;
        for f in 0..self.seg.n_fields {
            self.freqs[f] = 0;
            if self.fields & (1 << f) == 0 {
                continue;
            }
            let mut lists: Vec<Vec<u32>> = Vec::with_capacity(self.terms.len());
            for (t, _) in &mut self.terms {
                t.cursor.read_positions(&mut self.buf, &mut self.ranges);
                let list = self
                    .ranges
                    .iter()
                    .find(|r| r.0 == f)
                    .map(|&(_, s, e)| self.buf[s..e].to_vec())
                    .unwrap_or_default();
                lists.push(list);
            }
            if lists.iter().any(Vec::is_empty) {
                continue;
            }
            let count = count_phrase(
                &lists,
                &self.terms.iter().map(|t| t.1).collect::<Vec<_>>(),
                self.slop,
            );
            self.freqs[f] = count;
            any |= count > 0;
        }
        any
    }
}

/// Occurrences of the phrase: for each position `p` of the first term, the
/// other terms appear at `p + offset` (± slop).
fn count_phrase(lists: &[Vec<u32>], offsets: &[u32], slop: u32) -> u32 {
    let mut count = 0;
    for &start in &lists[0] {
        let base = start as i64 - offsets[0] as i64;
        let ok = lists.iter().zip(offsets).skip(1).all(|(list, &off)| {
            let want = base + off as i64;
            list.iter()
                .any(|&p| (p as i64 - want).unsigned_abs() <= slop as u64)
        });
        if ok {
            count += 1;
        }
    }
    count
}

impl Scorer for PhraseScorer<'_> {
    fn doc(&self) -> u32 {
        self.doc
    }
    fn advance(&mut self) -> u32 {
        let next = self.terms[0].0.advance();
        self.doc = self.find(next);
        self.doc
    }
    fn seek(&mut self, target: u32) -> u32 {
        if target <= self.doc {
            return self.doc;
        }
        self.doc = self.find(target);
        self.doc
    }
    fn score(&mut self) -> f32 {
        let mut tf = 0.0;
        for f in 0..self.seg.n_fields {
            if self.freqs[f] > 0 {
                tf += self.params.norms[f].tf(self.freqs[f], self.seg.field_len(self.doc, f));
            }
        }
        bm25::saturate(self.idf_boost, self.params.k1, tf)
    }
    fn cost(&self) -> u64 {
        self.terms.iter().map(|t| t.0.cost()).min().unwrap_or(0)
    }
}
