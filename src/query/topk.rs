//! Top-k collection with deterministic ties: higher score first, then the
//! smaller external id. Ids (not segment-local doc ids) break ties so results
//! do not depend on how documents are split into segments.

use std::cmp::Ordering;
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
            .then_with(|| cmp_bytes(self.id.get().as_bytes(), other.id.get().as_bytes()))
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

/// A score multiplier per (segment, doc), at most 1 (recency): pruning
/// bounds of raw scores stay valid for the adjusted ones.
pub type Adjust<'a> = Box<dyn Fn(usize, u32) -> f32 + 'a>;

pub struct TopK<'a> {
    k: usize,
    heap: BinaryHeap<Worst<'a>>,
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
        (self.heap.len() >= self.k)
            .then(|| self.heap.peek().map_or(f32::NEG_INFINITY, |w| w.0.score))
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
        if self.heap.len() < self.k {
            self.heap.push(Worst(c));
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if c.rank_cmp(&worst.0) == Ordering::Less {
                // Replacing the top sifts once; pop + push would sift twice.
                *worst = Worst(c);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.heap.len()
    }

    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// In no particular order (for callers that order them otherwise,
    /// e.g. by a field: the heap sort of `into_sorted` is wasted there).
    pub fn into_vec(self) -> Vec<Candidate<'a>> {
        self.heap.into_vec().into_iter().map(|w| w.0).collect()
    }

    /// Best first.
    pub fn into_sorted(self) -> Vec<Candidate<'a>> {
        // The heap's own sort (ascending `Worst` = best first) needs no sort
        // instantiation. Unstable, but live ids are unique (an id's older
        // copy is deleted), so `rank_cmp` has no ties between candidates.
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|w| w.0)
            .collect()
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
