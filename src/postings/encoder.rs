//! Incremental writer of one term's postings (used by flush and by merge).

use super::{BlockMeta, FieldBound, BLOCK_LEN};
use crate::codec::varint;

/// Occurrences of a term in one field of one document: `positions[start..end]`
/// of the buffer passed alongside.
pub type FieldRange = (usize, usize, usize);

/// Encodes documents of one term, in increasing doc id order.
#[derive(Debug, Clone)]
pub struct TermPostingsEncoder {
    n_fields: usize,
    pub(super) doc_freq: u32,
    last_doc: Option<u32>,
    pub(super) bytes: Vec<u8>,
    pub(super) positions: Vec<u8>,
    pub(super) blocks: Vec<BlockMeta>,
    pub(super) bounds: Vec<FieldBound>,
}

impl TermPostingsEncoder {
    pub fn new(n_fields: usize) -> Self {
        TermPostingsEncoder {
            n_fields,
            doc_freq: 0,
            last_doc: None,
            bytes: Vec::new(),
            positions: Vec::new(),
            blocks: Vec::new(),
            bounds: Vec::new(),
        }
    }

    /// Empties the encoder for another term, keeping its allocations.
    pub fn clear(&mut self) {
        self.doc_freq = 0;
        self.last_doc = None;
        self.bytes.clear();
        self.positions.clear();
        self.blocks.clear();
        self.bounds.clear();
    }

    pub fn doc_freq(&self) -> u32 {
        self.doc_freq
    }

    /// Appends one document. `ranges` are `(field, start, end)` into
    /// `positions`, sorted by field, each field at most once and non-empty
    /// (the range length is the tf); `field_lens[f]` is the length of field
    /// `f` in this document.
    pub fn push(&mut self, doc: u32, positions: &[u32], ranges: &[FieldRange], field_lens: &[u32]) {
        debug_assert!(self.last_doc.is_none_or(|last| doc > last));
        debug_assert!(!ranges.is_empty());
        if self.doc_freq as usize % BLOCK_LEN == 0 {
            self.blocks.push(BlockMeta {
                last_doc: doc,
                offset: self.bytes.len() as u32,
                pos_offset: self.positions.len() as u32,
                len: 0,
            });
            self.bounds
                .extend(std::iter::repeat_n(FieldBound::EMPTY, self.n_fields));
        }
        let delta = doc - self.last_doc.unwrap_or(0);
        varint::write_u32(&mut self.bytes, delta);
        if self.n_fields > 1 {
            let mask = ranges.iter().fold(0u32, |m, r| m | (1 << r.0));
            varint::write_u32(&mut self.bytes, mask);
        }
        let bounds_start = self.bounds.len() - self.n_fields;
        for &(field, start, end) in ranges {
            let tf = (end - start) as u32;
            varint::write_u32(&mut self.bytes, tf);
            let mut prev = 0;
            for &p in &positions[start..end] {
                varint::write_u32(&mut self.positions, p - prev);
                prev = p;
            }
            let bound = &mut self.bounds[bounds_start + field];
            bound.max_tf = bound.max_tf.max(tf);
            bound.min_len = bound.min_len.min(field_lens[field]);
        }
        let block = self.blocks.last_mut().expect("a block was opened above");
        block.last_doc = doc;
        block.len += 1;
        self.last_doc = Some(doc);
        self.doc_freq += 1;
    }
}
