//! Tombstones: a bitset of deleted local doc ids per segment.

use std::sync::Mutex;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteSet {
    words: Vec<u64>,
    count: u32,
    /// Live document frequencies of the terms queries asked for, valid for
    /// the current set: counting them walks a term's whole postings, which
    /// per query term was O(df) in every segment with a tombstone (agents
    /// upsert, so that is most segments). Cleared by every `insert`.
    live_df: LiveDfMemo,
}

/// Memoized derived data, not part of the set's value: equality ignores
/// it and a clone starts empty.
#[derive(Default)]
struct LiveDfMemo(Mutex<Vec<(u32, u64)>>);

/// Distinct terms remembered per segment; beyond it the memo starts over.
const LIVE_DF_MEMO_TERMS: usize = 4096;

impl Clone for LiveDfMemo {
    fn clone(&self) -> Self {
        LiveDfMemo::default()
    }
}

impl PartialEq for LiveDfMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for LiveDfMemo {}

impl std::fmt::Debug for LiveDfMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LiveDfMemo")
    }
}

impl DeleteSet {
    /// Marks `doc` deleted; returns false if it already was.
    pub fn insert(&mut self, doc: u32) -> bool {
        let (w, bit) = ((doc / 64) as usize, 1u64 << (doc % 64));
        if self.words.len() <= w {
            self.words.resize(w + 1, 0);
        }
        if self.words[w] & bit != 0 {
            return false;
        }
        self.words[w] |= bit;
        self.count += 1;
        if let Ok(memo) = self.live_df.0.get_mut() {
            memo.clear();
        }
        true
    }

    /// The live document frequency of a term of this segment, keyed by its
    /// first postings block (unique per term): `count()` walks its postings,
    /// once per term until the set changes.
    pub fn live_doc_freq(&self, term_block: u32, count: impl FnOnce() -> u64) -> u64 {
        // A poisoned lock only means a panic elsewhere: count without it.
        let Ok(mut memo) = self.live_df.0.lock() else {
            return count();
        };
        // Sorted by key: a binary search, and no hash map code in the wasm.
        let at = match memo.binary_search_by_key(&term_block, |e| e.0) {
            Ok(i) => return memo[i].1,
            Err(i) => i,
        };
        let df = count();
        if memo.len() >= LIVE_DF_MEMO_TERMS {
            memo.clear();
            memo.push((term_block, df));
        } else {
            memo.insert(at, (term_block, df));
        }
        df
    }

    /// Drops the memo of live document frequencies: a lazily opened
    /// segment renumbers its blocks whenever the terms it holds change.
    pub fn forget_live_doc_freqs(&mut self) {
        if let Ok(memo) = self.live_df.0.get_mut() {
            memo.clear();
        }
    }

    #[inline]
    pub fn contains(&self, doc: u32) -> bool {
        self.words
            .get((doc / 64) as usize)
            .is_some_and(|w| w & (1u64 << (doc % 64)) != 0)
    }

    pub fn len(&self) -> u32 {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}
