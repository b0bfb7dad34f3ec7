//! Term dictionary: strictly increasing UTF-8 terms -> ordinal (the term's
//! rank, which indexes the segment's `TermInfo` table).
//!
//! Sorted and front-coded in blocks of [`BLOCK_LEN`] terms (layout in
//! docs/FORMAT.md): the first term of a block is stored whole, every other
//! one as (length of the prefix shared with its predecessor, suffix). Exact
//! lookup is a binary search over block heads and a scan of one block;
//! prefix ranges (autocomplete, `prefix*`) and Levenshtein matching
//! (`fuzzy~N`, [`TermDict::fuzzy`]) walk the terms in order, and merges
//! stream them ([`Union`]). Ordinals are ranks, so none are stored.
//! Building costs a prefix comparison and a copy per term (the `fst`
//! builder it replaced spent ~2.8k instructions and ~5 allocations per
//! term, and linked a 16 KB CRC table into the wasm). The `fst` crate is
//! now only the oracle of the differential tests.

mod builder;
mod fuzzy;
mod reader;

pub use builder::TermDictBuilder;
pub use fuzzy::anchors as typo_anchors;
pub use reader::{Terms, Union, UnionHit};

/// Most terms one prefix or fuzzy expansion may produce.
pub const MAX_EXPANSIONS: usize = 1024;

/// Terms per block: a lookup scans at most this many entries after its
/// binary search; larger blocks save index and head bytes. Measured on the
/// 186k terms of 100k `packages` documents: 16 gives 1.53 MB (the FST was
/// 1.83 MB) and ~1.5k instructions per lookup; 8 gives +7 % bytes and −5 %
/// instructions, 32 −3 % bytes and +12 % instructions.
const BLOCK_LEN: u32 = 16;

/// Footer: `u32 n_terms`, `u8 block_len`.
const FOOTER_LEN: usize = 5;

#[derive(Clone)]
pub struct TermDict {
    /// Terms region, block offsets (u32 each), footer.
    bytes: Vec<u8>,
    n_terms: u32,
    block_len: u32,
    /// Where the block offsets start (= length of the terms region).
    index_start: usize,
}

impl std::fmt::Debug for TermDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TermDict({} terms)", self.n_terms)
    }
}

impl Default for TermDict {
    fn default() -> Self {
        TermDictBuilder::new().finish()
    }
}

impl TermDict {
    /// Builds from strictly increasing terms; a term not greater than its
    /// predecessor is left out. The i-th kept term gets ordinal i.
    pub fn from_sorted<K: AsRef<str>>(terms: impl IntoIterator<Item = K>) -> TermDict {
        let mut builder = TermDictBuilder::new();
        for term in terms {
            builder.insert(term.as_ref());
        }
        builder.finish()
    }

    /// Reads [`TermDict::as_bytes`] output, checking the whole structure
    /// (offsets, lengths, order, UTF-8) so that no later operation can fail;
    /// the error names the first inconsistency.
    pub fn from_bytes(bytes: Vec<u8>) -> Result<TermDict, &'static str> {
        reader::validate(bytes)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn len(&self) -> usize {
        self.n_terms as usize
    }

    pub fn is_empty(&self) -> bool {
        self.n_terms == 0
    }

    /// Ordinal of `term`.
    pub fn get(&self, term: &str) -> Option<u64> {
        self.find(term.as_bytes()).map(u64::from)
    }

    /// Terms starting with `prefix`, in byte order, at most `limit`.
    pub fn prefix(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        let mut out = Vec::new();
        if limit == 0 {
            return out;
        }
        let mut terms = self.iter();
        let mut more = terms.seek(prefix.as_bytes());
        while more && terms.term().starts_with(prefix.as_bytes()) {
            out.push((
                String::from_utf8_lossy(terms.term()).into_owned(),
                terms.ord(),
            ));
            if out.len() == limit {
                break;
            }
            more = terms.advance().is_some();
        }
        out
    }

    /// Terms within Levenshtein `distance` of `term` (insertions, deletions
    /// and substitutions of Unicode scalar values), in byte order, at most
    /// `limit`.
    pub fn fuzzy(&self, term: &str, distance: u8, limit: usize) -> Vec<(String, u64)> {
        let mut unbounded = u64::MAX;
        fuzzy::search(self, term, distance, limit, &mut unbounded)
    }

    /// [`TermDict::fuzzy`] that stops after reaching `steps` terms of the
    /// dictionary (a skipped prefix counts as one), subtracting the terms
    /// reached from `steps`: the walk of a short query visits most of the
    /// dictionary, so a query's budget bounds it (`steps` left at 0 means
    /// the walk may have stopped early).
    pub fn fuzzy_bounded(
        &self,
        term: &str,
        distance: u8,
        limit: usize,
        steps: &mut u64,
    ) -> Vec<(String, u64)> {
        fuzzy::search(self, term, distance, limit, steps)
    }

    /// Terms within optimal-string-alignment distance `distance` of `term`
    /// (Levenshtein plus transpositions of adjacent chars, each one edit:
    /// `vitset`~1 finds `vitest`), starting with the first or second char
    /// of `term`, with their distance, in byte order, at most `limit`;
    /// `steps` bounds the walk as in [`TermDict::fuzzy_bounded`].
    pub fn typos_bounded(
        &self,
        term: &str,
        distance: u8,
        limit: usize,
        steps: &mut u64,
    ) -> Vec<(String, u64, u8)> {
        fuzzy::search_with(self, term, distance, true, limit, steps)
    }

    /// The term of ordinal `ord`.
    pub fn term_at(&self, ord: u64) -> Option<String> {
        let mut terms = self.iter();
        terms.seek_ord(u32::try_from(ord).ok()?)?;
        Some(String::from_utf8_lossy(terms.term()).into_owned())
    }

    /// All terms in order (for merges).
    pub fn iter(&self) -> Terms<'_> {
        Terms::new(self)
    }
}

/// Length of the common prefix of `a` and `b`, 8 bytes at a time (terms
/// are compared once per insert, lookup step and block head).
#[inline]
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + 8 <= n {
        let x = load8(&a[i..i + 8]) ^ load8(&b[i..i + 8]);
        if x != 0 {
            return i + (x.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

#[inline]
fn load8(s: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(s);
    u64::from_le_bytes(w)
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
