//! Reading only which documents hold a term: the doc ids and field masks
//! of its postings, term frequencies skipped, not decoded. What counting
//! matches needs, at a fraction of a cursor's work.

use super::{PostingsStore, TermInfo, BLOCK_LEN};
use crate::codec::varint;

impl PostingsStore {
    /// Calls `visit(doc, field_mask)` for the term's documents from `from`
    /// on, in order, block by block; `visit` returns whether to go on.
    /// Blocks ending before `from` are skipped by their metadata.
    pub fn for_each_doc(&self, info: TermInfo, from: u32, mut visit: impl FnMut(u32, u32) -> bool) {
        let first = info.first_block as usize;
        let end = first + info.n_blocks as usize;
        let Some(blocks) = self.blocks.get(first..end) else {
            return;
        };
        let start = blocks.partition_point(|b| b.last_doc < from);
        let multi = self.n_fields > 1;
        let valid_fields = super::all_fields(self.n_fields.max(1));
        let buf = &self.bytes[..];
        for (i, meta) in blocks.iter().enumerate().skip(start) {
            // Deltas continue across blocks; the first block starts from 0.
            let mut doc = if i > 0 { blocks[i - 1].last_doc } else { 0 };
            let mut pos = meta.offset as usize;
            for _ in 0..(meta.len as usize).min(BLOCK_LEN) {
                doc = doc.wrapping_add(varint::read_u32(buf, &mut pos));
                let mask = match multi {
                    true => varint::read_u32(buf, &mut pos) & valid_fields,
                    false => 1,
                };
                // One term frequency per field of the mask.
                for _ in 0..mask.count_ones() {
                    while buf.get(pos).is_some_and(|b| b & 0x80 != 0) {
                        pos += 1;
                    }
                    pos += 1;
                }
                if doc >= from && !visit(doc, mask) {
                    return;
                }
            }
        }
    }
}
