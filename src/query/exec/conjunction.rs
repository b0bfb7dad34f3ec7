//! A conjunction of terms without dynamic dispatch.

use crate::postings::TERMINATED;
use crate::query::scorer::Scorer;
use crate::query::topk::{Candidate, DocId, TopK};

use super::scorers::SegmentRun;

/// A conjunction of terms: the rarest term leads and the others seek to it
/// (what `IntersectionScorer` does, without dynamic dispatch), and the lead
/// skips whole blocks whose score bound plus the other terms' maxima cannot
/// reach the k-th score. One scoring step per term per alignment.
pub(crate) fn conjunction_of_terms<'a>(
    run: &SegmentRun<'a, '_, impl Fn(u32) -> bool>,
    terms: &[usize],
    top: &mut TopK<'a>,
) {
    let (plan, si, live, steps) = (run.plan, run.si, run.live, run.steps);
    let seg = &run.entry.segment;
    let mut scorers = Vec::with_capacity(terms.len());
    for &t in terms {
        match run.scorer(t) {
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
            if run.count.open() {
                run.count.add();
            }
            // Canonical (query) order, as the generic intersection sums.
            let score: f32 = scorers.iter_mut().map(|s| s.score()).sum();
            if top.admits(score) {
                top.offer(Candidate {
                    score,
                    id: DocId::new(&seg.docs, candidate),
                    segment: si,
                    doc: candidate,
                    matched,
                });
            }
        }
        let threshold = match run.count.open() {
            true => f32::NEG_INFINITY,
            false => top.threshold().unwrap_or(f32::NEG_INFINITY),
        };
        candidate = scorers[lead].advance_competitive(others, threshold);
    }
    steps.settle(left);
}
