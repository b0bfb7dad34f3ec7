//! Scorer trees and exhaustive collection, for the queries the fast
//! kernels ([`super::maxscore`], [`super::conjunction`]) do not cover.

use crate::index::segment::Segment;
use crate::index::SegmentEntry;
use crate::postings::TERMINATED;
use crate::query::budget::Steps;
use crate::query::plan::{Node, Plan};
use crate::query::scorer::{
    EmptyScorer, ExclusionScorer, IntersectionScorer, PhraseScorer, ReqOptScorer, ScoreParams,
    Scorer, TermScorer, TermWeight, UnionScorer,
};
use crate::query::topk::{Candidate, DocId, TopK};

use super::count::MatchCount;

/// One segment's scoring pass: what every kernel reads.
pub(crate) struct SegmentRun<'a, 'p, L> {
    pub plan: &'p Plan,
    pub entry: &'a SegmentEntry,
    /// The segment's place in the searcher (candidates carry it).
    pub si: usize,
    pub params: &'p ScoreParams,
    /// Whether a document is live and passes the filter.
    pub live: &'p L,
    pub steps: &'p Steps,
    /// Matches counted for an exact total (no pruning while it is open).
    pub count: &'p MatchCount,
}

impl<'a, 'p, L> SegmentRun<'a, 'p, L> {
    /// The scorer of plan term `t` in this segment; `None` when the segment
    /// lacks the term.
    pub(crate) fn scorer(&self, t: usize) -> Option<TermScorer<'p>>
    where
        'a: 'p,
    {
        term_scorer(self.plan, t, &self.entry.segment, self.params)
    }
}

pub(crate) fn term_scorer<'a>(
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
    TermScorer::new(seg, qt.info(seg)?, weight, params)
}

pub(crate) fn build_scorer<'a>(
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
pub(crate) fn collect<'a>(
    scorer: &mut dyn Scorer,
    run: &SegmentRun<'a, '_, impl Fn(u32) -> bool>,
    matched: Option<u64>,
    top: &mut TopK<'a>,
) {
    let (entry, si, live, steps) = (run.entry, run.si, run.live, run.steps);
    let mut doc = scorer.doc();
    while doc != TERMINATED {
        if !steps.take(1) {
            return;
        }
        if live(doc) {
            if run.count.open() {
                run.count.add();
            }
            let score = scorer.score();
            if !top.admits(score) {
                doc = scorer.advance();
                continue;
            }
            top.offer(Candidate {
                score,
                id: DocId::new(&entry.segment.docs, doc),
                segment: si,
                doc,
                matched,
            });
        }
        doc = scorer.advance();
    }
}
