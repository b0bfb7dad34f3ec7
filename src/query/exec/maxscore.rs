//! MaxScore over a flat disjunction of terms.

use crate::postings::TERMINATED;
use crate::query::scorer::{Scorer, TermScorer};
use crate::query::topk::{Candidate, DocId, TopK};

use super::scorers::SegmentRun;

/// MaxScore (Turtle & Flood) over a flat disjunction of terms: terms whose
/// cumulative upper bound cannot beat the current k-th score are
/// "non-essential" — they never generate candidates, and are only probed for
/// candidates that might still make it. One scoring step per essential term
/// per candidate (what choosing the candidate scans).
pub(crate) fn maxscore<'a>(
    run: &SegmentRun<'a, '_, impl Fn(u32) -> bool>,
    terms: &[usize],
    top: &mut TopK<'a>,
) {
    let (plan, si, live, steps) = (run.plan, run.si, run.live, run.steps);
    let seg = &run.entry.segment;
    // (scorer, upper bound, slot in `terms`)
    let mut scorers: Vec<(TermScorer<'_>, f32, usize)> = Vec::new();
    for (slot, &t) in terms.iter().enumerate() {
        if let Some(s) = run.scorer(t) {
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
    // While matches are counted (see `super::count`), each term dropped
    // from candidate generation is walked afterwards from the document it
    // was dropped at, past the candidates marked since the first drop
    // (every earlier candidate lies before that document).
    let mut marked: Vec<u64> = Vec::new();
    let mut walks: Vec<(usize, u32)> = Vec::new();
    loop {
        let threshold = top.threshold().unwrap_or(f32::NEG_INFINITY);
        // No block is skipped while counting.
        let skipping = match run.count.open() {
            true => f32::NEG_INFINITY,
            false => threshold,
        };
        while first_essential < scorers.len() && prefix[first_essential] < threshold {
            if run.count.open() {
                let s = &scorers[first_essential];
                walks.push((terms[s.2], s.0.doc()));
                if marked.is_empty() {
                    marked = vec![0u64; (seg.n_docs as usize).div_ceil(64)];
                }
            }
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
                    s.0.advance_competitive(others, skipping);
                }
            }
            continue;
        }
        if run.count.open() {
            if let Some(word) = marked.get_mut((candidate / 64) as usize) {
                *word |= 1u64 << (candidate % 64);
            }
            run.count.add();
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
                        s.0.advance_competitive(others, skipping);
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
        // A term's score at the candidate, by its slot in `terms`.
        let mut record = |slot: usize, v: f32| {
            matched |= 1u64.checked_shl(terms[slot] as u32).unwrap_or(0);
            contrib[slot] = v;
            filled |= 1u64.checked_shl(slot as u32).unwrap_or(0);
            if wide {
                wide_filled[slot / 64] |= 1 << (slot % 64);
            }
        };
        for s in &mut scorers[first_essential..] {
            if s.0.doc() == candidate {
                let v = s.0.score();
                record(s.2, v);
                partial += v;
                let others = total - s.1;
                s.0.advance_competitive(others, skipping);
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
                let v = s.0.score();
                record(s.2, v);
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
                id: DocId::new(&seg.docs, candidate),
                segment: si,
                doc: candidate,
                matched: (plan.terms.len() <= 64).then_some(matched),
            });
        }
    }
    steps.settle(left);
    if run.count.open() && !walks.is_empty() {
        count_unvisited(run, &walks, &mut marked);
    }
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

/// Counts the live matches MaxScore's loop never visited: for each
/// `(plan term, doc)` in `walks`, that term's postings from `doc` on (it
/// stopped generating candidates there), skipping and marking the
/// documents `marked` holds. Out of steps, counting stops undecided.
fn count_unvisited(
    run: &SegmentRun<'_, '_, impl Fn(u32) -> bool>,
    walks: &[(usize, u32)],
    marked: &mut [u64],
) {
    let (seg, count) = (&run.entry.segment, run.count);
    for &(t, from) in walks {
        let qt = &run.plan.terms[t];
        let Some(info) = qt.info(seg) else {
            continue;
        };
        let (postings, info) = seg.postings_of(info);
        postings.for_each_doc(info, from, |doc, mask| {
            if !count.open() {
                return false;
            }
            if !count.take_step() {
                return false;
            }
            let (word, bit) = ((doc / 64) as usize, 1u64 << (doc % 64));
            let unseen = marked.get(word).is_some_and(|w| w & bit == 0);
            if unseen && mask & qt.fields != 0 {
                marked[word] |= bit;
                if (run.live)(doc) {
                    count.add();
                }
            }
            true
        });
    }
}
