//! Tombstones: a bitset of deleted local doc ids per segment.

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeleteSet {
    words: Vec<u64>,
    count: u32,
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
        true
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
