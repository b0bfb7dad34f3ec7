//! Top-k collection with deterministic ties: higher score first, then the
//! smaller external id. Ids (not segment-local doc ids) break ties so results
//! do not depend on how documents are split into segments.
//!
//! Two candidates of one segment compare their ids' ranks when the segment
//! stores them (format 10, `crate::store::IdOrder`): the same order without
//! unpacking an id block of a lazily opened segment. So the collector keeps
//! the candidates of the segment being searched in a heap of their own
//! (ties there compare ranks), and compares with other segments' candidates
//! only when a segment's run ends: ids are read for at most a few `k`
//! candidates per segment instead of for every tie at the k-th score.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

#[derive(Debug, Clone)]
pub struct Candidate<'a> {
    pub score: f32,
    pub id: DocId<'a>,
    pub segment: usize,
    pub doc: u32,
    /// Bit `t` set: plan term `t` occurs in a searched field of the
    /// document. Known when the scoring loop saw every term (MaxScore);
    /// `None` means the hit builder must look it up.
    pub matched: Option<u64>,
}

impl Candidate<'_> {
    /// `Less` when `self` ranks before `other`.
    pub(super) fn rank_cmp(&self, other: &Self) -> Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.id.cmp(&other.id))
    }
}

/// A candidate's external id, read when it is needed (a tie, a hit): a
/// lazily opened segment unpacks the block of ids holding it only then, so
/// a search does not unpack the ids of every candidate it admits.
#[derive(Clone, Copy)]
pub struct DocId<'a> {
    docs: &'a crate::store::DocStore,
    doc: u32,
}

impl<'a> DocId<'a> {
    pub fn new(docs: &'a crate::store::DocStore, doc: u32) -> DocId<'a> {
        DocId { docs, doc }
    }

    pub fn get(&self) -> &'a str {
        self.docs.id(self.doc)
    }

    /// Byte order of the ids: by their ranks within one doc store that
    /// stores them, else by the ids.
    fn cmp(&self, other: &DocId<'_>) -> Ordering {
        if std::ptr::eq(self.docs, other.docs) {
            let ids = self.docs.ids();
            if let (Some(a), Some(b)) = (ids.rank(self.doc as usize), ids.rank(other.doc as usize))
            {
                return a.cmp(&b);
            }
        }
        cmp_bytes(self.get().as_bytes(), other.get().as_bytes())
    }
}

impl std::fmt::Debug for DocId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// Lexicographic byte order, 8 bytes at a time. Equal scores are common
/// (same tf, same field lengths), so ties compare ids often, and ids share
/// long prefixes (`pypi:universal-mcp-…`); wasm's `memcmp` goes byte by byte.
fn cmp_bytes(a: &[u8], b: &[u8]) -> Ordering {
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let (x, y) = (word(x), word(y));
        if x != y {
            return x.cmp(&y);
        }
    }
    let done = a.len().min(b.len()) / 8 * 8;
    a[done..].cmp(&b[done..])
}

/// An 8-byte chunk as a big-endian word (integer order is byte order).
/// Through `&[u8; 8]`, it is one load; `copy_from_slice` of a runtime length
/// stays a call to `memcpy` in wasm.
#[inline]
fn word(chunk: &[u8]) -> u64 {
    <&[u8; 8]>::try_from(chunk).map_or(0, |w| u64::from_be_bytes(*w))
}

/// Heap entry ordered so the worst-ranked candidate is at the top.
struct Worst<'a>(Candidate<'a>);

impl PartialEq for Worst<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Worst<'_> {}
impl PartialOrd for Worst<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Worst<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.rank_cmp(&other.0)
    }
}

/// A score ordered by `total_cmp`.
#[derive(Clone, Copy)]
struct Score(f32);

impl PartialEq for Score {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Score {}
impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Score {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// A score multiplier per (segment, doc), at most 1 (recency): pruning
/// bounds of raw scores stay valid for the adjusted ones.
pub type Adjust<'a> = Box<dyn Fn(usize, u32) -> f32 + 'a>;

pub struct TopK<'a> {
    k: usize,
    /// The best `k` of the candidates of the segment offered last.
    heap: BinaryHeap<Worst<'a>>,
    segment: usize,
    /// Candidates of the segments offered before, the best `k` of them
    /// among at most `2k` (trimmed when they pass that).
    settled: Vec<Worst<'a>>,
    /// The best `k` scores offered: the threshold.
    scores: BinaryHeap<Reverse<Score>>,
    adjust: Option<Adjust<'a>>,
    /// Candidates offered: matches the scoring loop scored in full, a
    /// lower bound of the matches when it pruned.
    offered: usize,
}

impl<'a> TopK<'a> {
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            // Sorted searches collect every match (k = all documents):
            // grow with the matches instead of reserving k up front.
            heap: BinaryHeap::with_capacity(k.saturating_add(1).min(1024)),
            segment: 0,
            settled: Vec::new(),
            scores: BinaryHeap::with_capacity(k.saturating_add(1).min(1024)),
            adjust: None,
            offered: 0,
        }
    }

    /// Multiplies every offered score by `adjust(segment, doc)` (in `[0, 1]`).
    pub fn set_adjust(&mut self, adjust: Adjust<'a>) {
        self.adjust = Some(adjust);
    }

    /// See [`TopK::offered`] field docs: a lower bound of the matches.
    pub fn offered(&self) -> usize {
        self.offered
    }

    /// Score a candidate must reach to possibly enter (ties may still enter
    /// by id), or `None` while the heap is not full.
    #[inline]
    pub fn threshold(&self) -> Option<f32> {
        if self.k == 0 {
            return Some(f32::INFINITY);
        }
        (self.scores.len() >= self.k)
            .then(|| self.scores.peek().map_or(f32::NEG_INFINITY, |s| (s.0).0))
    }

    /// Whether a candidate with this score could enter. Lets callers skip
    /// building a candidate (its id lookup is a cache miss) for the common
    /// case of a score below the k-th.
    #[inline]
    pub fn admits(&self, score: f32) -> bool {
        self.threshold().is_none_or(|t| score >= t)
    }

    pub fn offer(&mut self, mut c: Candidate<'a>) {
        self.offered += 1;
        if let Some(adjust) = &self.adjust {
            c.score *= adjust(c.segment, c.doc);
        }
        if self.k == 0 {
            return;
        }
        let key = Reverse(Score(c.score));
        if self.scores.len() < self.k {
            self.scores.push(key);
        } else if let Some(mut least) = self.scores.peek_mut() {
            if key < *least {
                *least = key;
            }
        }
        if c.segment != self.segment {
            self.settle();
            self.segment = c.segment;
        }
        admit(&mut self.heap, self.k, Worst(c));
    }

    /// Moves the segment's candidates to `settled`, trimmed to the best
    /// `k` when they pass `2k`.
    fn settle(&mut self) {
        self.settled
            .extend(std::mem::take(&mut self.heap).into_vec());
        if self.settled.len() >= self.k.saturating_mul(2) {
            self.settled = best(std::mem::take(&mut self.settled), self.k).into_vec();
        }
    }

    /// Candidates held: the offered ones, up to `k`.
    pub fn len(&self) -> usize {
        self.scores.len()
    }

    pub fn is_empty(&self) -> bool {
        self.scores.is_empty()
    }

    fn finish(mut self) -> BinaryHeap<Worst<'a>> {
        self.settle();
        best(self.settled, self.k)
    }

    /// In no particular order (for callers that order them otherwise,
    /// e.g. by a field: the heap sort of `into_sorted` is wasted there).
    pub fn into_vec(self) -> Vec<Candidate<'a>> {
        self.finish().into_vec().into_iter().map(|w| w.0).collect()
    }

    /// Best first.
    pub fn into_sorted(self) -> Vec<Candidate<'a>> {
        // The heap's own sort (ascending `Worst` = best first) needs no sort
        // instantiation. Unstable, but live ids are unique (an id's older
        // copy is deleted), so `rank_cmp` has no ties between candidates.
        self.finish()
            .into_sorted_vec()
            .into_iter()
            .map(|w| w.0)
            .collect()
    }
}

/// The best `k` of `candidates`, as a heap.
fn best(candidates: Vec<Worst<'_>>, k: usize) -> BinaryHeap<Worst<'_>> {
    let mut heap = BinaryHeap::with_capacity(k.min(candidates.len()));
    candidates.into_iter().for_each(|c| admit(&mut heap, k, c));
    heap
}

/// Adds `c` to `heap`, which keeps the best `k`. (One instantiation of the
/// heap's code for the collector's two heaps and the trims.)
fn admit<'a>(heap: &mut BinaryHeap<Worst<'a>>, k: usize, c: Worst<'a>) {
    if heap.len() < k {
        heap.push(c);
    } else if let Some(mut worst) = heap.peek_mut() {
        if c < *worst {
            // Replacing the top sifts once; pop + push would sift twice.
            *worst = c;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmp_bytes_is_byte_order() {
        let words = [
            "",
            "a",
            "ab",
            "pypi:universal-mcp-firecrawl",
            "pypi:universal-mcp-hashnode",
            "pypi:universal-mcp-",
            "pypi:universal-mcp-hashnode2",
            "npm:@x/y",
            "é",
            "e\u{0}",
            "12345678",
            "123456789",
            "12345679",
            "1234567",
            "ÿÿÿÿÿÿÿÿÿ",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    cmp_bytes(a.as_bytes(), b.as_bytes()),
                    a.cmp(b),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn cmp_bytes_matches_slice_order(a: Vec<u8>, b: Vec<u8>, shared in 0usize..20) {
            // A shared prefix makes the chunked path go past the first words.
            let prefix: Vec<u8> = a.iter().take(shared).copied().collect();
            let b = [prefix, b].concat();
            proptest::prop_assert_eq!(cmp_bytes(&a, &b), a.as_slice().cmp(b.as_slice()));
            proptest::prop_assert_eq!(cmp_bytes(&b, &a), b.as_slice().cmp(a.as_slice()));
        }
    }
}
