//! Incremental construction of a [`TermDict`] from terms in increasing order.

use super::{common_prefix, TermDict, BLOCK_LEN};
use crate::codec::varint;

/// Appends terms in increasing order; callers need not collect them first.
pub struct TermDictBuilder {
    /// Terms region so far; [`TermDictBuilder::finish`] appends the rest.
    bytes: Vec<u8>,
    offsets: Vec<u32>,
    last: Vec<u8>,
    n_terms: u32,
    pub(super) block_len: u32,
}

impl Default for TermDictBuilder {
    fn default() -> Self {
        TermDictBuilder::new()
    }
}

impl TermDictBuilder {
    pub fn new() -> TermDictBuilder {
        TermDictBuilder {
            bytes: Vec::new(),
            offsets: Vec::new(),
            last: Vec::new(),
            n_terms: 0,
            block_len: BLOCK_LEN,
        }
    }

    /// Adds `term` and returns its ordinal, or adds nothing and returns
    /// `None` unless `term` is greater than the previous term (a caller bug;
    /// skipping keeps the dictionary valid).
    pub fn insert(&mut self, term: &str) -> Option<u64> {
        self.insert_bytes(term.as_bytes())
    }

    /// [`TermDictBuilder::insert`] of a term known to be UTF-8 (a term of
    /// another dictionary, checked when that one was read).
    pub(crate) fn insert_bytes(&mut self, term: &[u8]) -> Option<u64> {
        let shared = common_prefix(&self.last, term);
        let greater = match (self.last.get(shared), term.get(shared)) {
            (Some(a), Some(b)) => b > a,
            (None, next) => next.is_some() || self.n_terms == 0,
            (Some(_), None) => false,
        };
        // Offsets, lengths and the count are u32 in the format.
        let too_big = u32::try_from(self.bytes.len() + term.len()).is_err();
        if !greater || too_big || self.n_terms == u32::MAX {
            return None;
        }
        if self.n_terms % self.block_len == 0 {
            self.offsets.push(self.bytes.len() as u32);
            varint::write_u32(&mut self.bytes, term.len() as u32);
            self.bytes.extend_from_slice(term);
        } else {
            varint::write_u32(&mut self.bytes, shared as u32);
            varint::write_u32(&mut self.bytes, (term.len() - shared) as u32);
            self.bytes.extend_from_slice(&term[shared..]);
        }
        self.last.truncate(shared);
        self.last.extend_from_slice(&term[shared..]);
        self.n_terms += 1;
        Some(u64::from(self.n_terms - 1))
    }

    pub fn finish(self) -> TermDict {
        let mut bytes = self.bytes;
        let index_start = bytes.len();
        bytes.reserve(self.offsets.len() * 4 + super::FOOTER_LEN);
        for offset in &self.offsets {
            bytes.extend_from_slice(&offset.to_le_bytes());
        }
        bytes.extend_from_slice(&self.n_terms.to_le_bytes());
        bytes.push(self.block_len as u8);
        bytes.shrink_to_fit();
        TermDict {
            bytes,
            n_terms: self.n_terms,
            block_len: self.block_len,
            index_start,
        }
    }
}
