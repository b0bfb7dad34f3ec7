//! Reading postings: a cursor that decodes one block at a time and can seek
//! forward using the block skip entries.

use super::{PostingsStore, TermInfo, BLOCK_LEN, TERMINATED};
use crate::codec::varint;

/// Iterates the documents of one term in increasing order.
pub struct PostingsCursor<'a> {
    store: &'a PostingsStore,
    /// Absolute index of the current block in `store.blocks`.
    block: usize,
    first_block: usize,
    end_block: usize,
    docs: [u32; BLOCK_LEN],
    masks: [u32; BLOCK_LEN],
    /// `tf_offsets[i]..tf_offsets[i + 1]` indexes `tfs` for doc `i`.
    tf_offsets: [u16; BLOCK_LEN + 1],
    /// `BLOCK_LEN * n_fields` slots, allocated once: a document has at most
    /// one tf per field, since masks are cut to the segment's fields.
    tfs: Vec<u32>,
    len: usize,
    idx: usize,
    doc: u32,
    /// Lazily advanced position-stream pointer: positions of block doc
    /// `pos_idx` start at byte `pos_ptr`.
    pos_idx: usize,
    pos_ptr: usize,
}

impl<'a> PostingsCursor<'a> {
    /// The postings it reads (whose blocks [`PostingsCursor::block_index`]
    /// numbers).
    pub fn postings(&self) -> &'a PostingsStore {
        self.store
    }

    pub(super) fn new(store: &'a PostingsStore, info: TermInfo) -> Self {
        let first = info.first_block as usize;
        let mut cursor = PostingsCursor {
            store,
            block: first,
            first_block: first,
            end_block: first + info.n_blocks as usize,
            docs: [0; BLOCK_LEN],
            masks: [0; BLOCK_LEN],
            tf_offsets: [0; BLOCK_LEN + 1],
            tfs: vec![0; BLOCK_LEN * store.n_fields.clamp(1, 32)],
            len: 0,
            idx: 0,
            doc: TERMINATED,
            pos_idx: 0,
            pos_ptr: 0,
        };
        cursor.load_block();
        cursor
    }

    /// Current doc id, or [`TERMINATED`].
    #[inline]
    pub fn doc(&self) -> u32 {
        self.doc
    }

    /// Moves to the next document.
    #[inline]
    pub fn advance(&mut self) -> u32 {
        self.idx += 1;
        if self.idx < self.len {
            self.doc = self.docs[self.idx];
        } else {
            self.block += 1;
            self.load_block();
        }
        self.doc
    }

    /// Moves to the first document `>= target`.
    pub fn seek(&mut self, target: u32) -> u32 {
        if self.doc >= target {
            return self.doc;
        }
        if self.block_last_doc() < target {
            // Skip whole blocks without decoding them.
            let blocks = &self.store.blocks[self.block..self.end_block];
            let skip = blocks.partition_point(|b| b.last_doc < target);
            self.block += skip;
            self.load_block();
            if self.doc >= target {
                return self.doc;
            }
        }
        // The block's last doc is >= target, so the answer is in this block;
        // probes land close by, so a linear scan beats a binary search.
        let rest = self.docs.get(self.idx..self.len).unwrap_or(&[]);
        if let Some(step) = rest.iter().position(|&d| d >= target) {
            self.idx += step;
            self.doc = rest[step];
            return self.doc;
        }
        // Inconsistent block metadata (last_doc too large): walk on.
        while self.doc < target {
            self.advance();
        }
        self.doc
    }

    /// Blocks of this term (for score bounds).
    #[inline]
    pub fn block_range(&self) -> std::ops::Range<usize> {
        self.first_block..self.end_block
    }

    /// Moves to the next document for which `competitive(block)` holds of
    /// its block: blocks that fail the test are skipped without decoding.
    /// `competitive` must be a property of whole blocks (a score upper bound
    /// under the current threshold), so skipped documents cannot matter.
    pub fn advance_competitive(&mut self, competitive: impl Fn(usize) -> bool) -> u32 {
        self.idx += 1;
        if self.idx < self.len {
            self.doc = self.docs[self.idx];
            return self.doc;
        }
        self.block += 1;
        while self.block < self.end_block && !competitive(self.block) {
            self.block += 1;
        }
        self.load_block();
        self.doc
    }

    /// Index of the current block (for block-max bounds), if any.
    #[inline]
    pub fn block_index(&self) -> Option<usize> {
        (self.block < self.end_block).then_some(self.block)
    }

    /// Last doc id of the current block.
    #[inline]
    pub fn block_last_doc(&self) -> u32 {
        self.store
            .blocks
            .get(self.block)
            .filter(|_| self.block < self.end_block)
            .map_or(TERMINATED, |b| b.last_doc)
    }

    /// Calls `f(field, tf)` for every field of the current document.
    #[inline]
    pub fn for_each_field_tf(&self, mut f: impl FnMut(usize, u32)) {
        let mut mask = self.masks[self.idx];
        let start = self.tf_offsets[self.idx] as usize;
        let mut j = start;
        while mask != 0 {
            let field = mask.trailing_zeros() as usize;
            f(field, self.tfs[j]);
            j += 1;
            mask &= mask - 1;
        }
    }

    /// Bit mask of the fields of the current document.
    #[inline]
    pub fn field_mask(&self) -> u32 {
        if self.doc == TERMINATED {
            0
        } else {
            self.masks[self.idx]
        }
    }

    /// Term frequency of the current document in `field`.
    pub fn tf(&self, field: usize) -> u32 {
        let mut result = 0;
        self.for_each_field_tf(|f, tf| {
            if f == field {
                result = tf;
            }
        });
        result
    }

    /// Positions of the current document in `field` (empty if absent).
    pub fn positions(&mut self, field: usize) -> Vec<u32> {
        let mut buf = Vec::new();
        let mut ranges = Vec::new();
        self.read_positions(&mut buf, &mut ranges);
        ranges
            .iter()
            .find(|r| r.0 == field)
            .map(|&(_, s, e)| buf[s..e].to_vec())
            .unwrap_or_default()
    }

    /// Decodes the positions of the current document for all its fields into
    /// `buf` (cleared), with `(field, start, end)` ranges into it. Reading
    /// documents of a block in order is linear overall.
    pub fn read_positions(&mut self, buf: &mut Vec<u32>, ranges: &mut Vec<(usize, usize, usize)>) {
        buf.clear();
        ranges.clear();
        if self.doc == TERMINATED {
            return;
        }
        let stream = &self.store.positions;
        if self.pos_idx > self.idx {
            // Rewind to the block start (only when reading out of order).
            self.pos_idx = 0;
            self.pos_ptr = self.store.blocks[self.block].pos_offset as usize;
        }
        let skip_from = self.tf_offsets[self.pos_idx] as usize;
        let skip_to = self.tf_offsets[self.idx] as usize;
        let skip: u32 = self.tfs[skip_from..skip_to].iter().sum();
        for _ in 0..skip {
            varint::read_u32(stream, &mut self.pos_ptr);
        }
        let mut mask = self.masks[self.idx];
        let mut j = skip_to;
        while mask != 0 {
            let field = mask.trailing_zeros() as usize;
            let start = buf.len();
            let mut p = 0u32;
            for _ in 0..self.tfs[j] {
                p = p.wrapping_add(varint::read_u32(stream, &mut self.pos_ptr));
                buf.push(p);
            }
            ranges.push((field, start, buf.len()));
            j += 1;
            mask &= mask - 1;
        }
        self.pos_idx = self.idx + 1;
    }

    fn load_block(&mut self) {
        self.idx = 0;
        self.len = 0;
        self.tf_offsets[0] = 0;
        let Some(meta) = self
            .store
            .blocks
            .get(self.block)
            .filter(|_| self.block < self.end_block)
        else {
            self.doc = TERMINATED;
            return;
        };
        // Deltas continue across blocks; the first block starts from 0.
        let mut doc = if self.block > self.first_block {
            self.store.blocks[self.block - 1].last_doc
        } else {
            0
        };
        self.pos_idx = 0;
        self.pos_ptr = meta.pos_offset as usize;
        let buf = &self.store.bytes;
        let mut pos = meta.offset as usize;
        let n = (meta.len as usize).min(BLOCK_LEN);
        let multi = self.store.n_fields > 1;
        // Corrupt masks must not name fields that do not exist.
        let valid_fields = super::all_fields(self.store.n_fields.max(1));
        let mut j = 0usize;
        let tfs = &mut self.tfs[..];
        // Zipped slices: no per-element bounds checks in the hot loop.
        let slots = self.docs[..n]
            .iter_mut()
            .zip(&mut self.masks[..n])
            .zip(&mut self.tf_offsets[..n]);
        for ((doc_slot, mask_slot), offset_slot) in slots {
            doc = doc.wrapping_add(varint::read_u32(buf, &mut pos));
            *doc_slot = doc;
            let mut mask = if multi {
                varint::read_u32(buf, &mut pos) & valid_fields
            } else {
                1
            };
            *mask_slot = mask;
            *offset_slot = j as u16;
            while mask != 0 {
                let tf = varint::read_u32(buf, &mut pos);
                if let Some(slot) = tfs.get_mut(j) {
                    *slot = tf;
                }
                j += 1;
                mask &= mask - 1;
            }
        }
        self.tf_offsets[n] = j.min(self.tfs.len()) as u16;
        self.len = n;
        self.doc = if n > 0 { self.docs[0] } else { TERMINATED };
    }
}
