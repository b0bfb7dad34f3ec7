//! Block-encoded postings: for each term, the documents containing it, the
//! term frequency per text field, and the positions.
//!
//! Layout (all in one [`PostingsStore`] per segment; a term owns a contiguous
//! run of blocks described by its [`TermInfo`]):
//! - a block holds up to [`BLOCK_LEN`] documents; per document:
//!   `varint(doc - previous doc)`, then, when the schema has more than one
//!   text field, `varint(field mask)`, then `varint(tf)` for each set field;
//! - positions live in a separate stream (only phrase queries read them): per
//!   document, per set field, `tf` varint position deltas;
//! - per block, a [`BlockMeta`] (last doc id, byte offsets: the skip list) and
//!   per field a [`FieldBound`] (max tf, min field length) from which the
//!   query side derives a score upper bound for dynamic pruning.
//!
//! Invariants (enforced by [`TermPostingsEncoder::push`]): doc ids strictly
//! increase within a term; at most 32 text fields (the mask is a u32).

mod cursor;
mod docs;
pub mod encoder;

pub use cursor::PostingsCursor;
pub use encoder::TermPostingsEncoder;

/// Documents per block.
pub const BLOCK_LEN: usize = 128;
/// Sentinel doc id of an exhausted cursor.
pub const TERMINATED: u32 = u32::MAX;
/// Text fields are addressed by a bit in a u32 mask.
pub const MAX_TEXT_FIELDS: usize = 32;

/// The field mask naming every one of `n_fields` text fields.
pub fn all_fields(n_fields: usize) -> u32 {
    match n_fields {
        n if n >= 32 => u32::MAX,
        n => (1u32 << n) - 1,
    }
}

/// Skip entry of one block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockMeta {
    /// Largest doc id in the block.
    pub last_doc: u32,
    /// Byte offset of the block in [`PostingsStore::bytes`].
    pub offset: u32,
    /// Byte offset of the block's positions in [`PostingsStore::positions`].
    pub pos_offset: u32,
    /// Number of documents in the block.
    pub len: u32,
}

/// Per block and field: the largest tf and the smallest field length among
/// the block's documents that have the term in that field. Together they
/// bound any BM25F score in the block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldBound {
    pub max_tf: u32,
    pub min_len: u32,
}

impl FieldBound {
    pub const EMPTY: FieldBound = FieldBound {
        max_tf: 0,
        min_len: u32::MAX,
    };
}

/// Where a term's postings live in a [`PostingsStore`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TermInfo {
    /// Number of documents containing the term (deleted ones included).
    pub doc_freq: u32,
    pub first_block: u32,
    pub n_blocks: u32,
}

/// All postings of one segment.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PostingsStore {
    pub n_fields: usize,
    pub bytes: Vec<u8>,
    pub positions: Vec<u8>,
    pub blocks: Vec<BlockMeta>,
    /// `blocks.len() * n_fields` entries, block-major.
    pub bounds: Vec<FieldBound>,
}

impl PostingsStore {
    pub fn new(n_fields: usize) -> PostingsStore {
        PostingsStore {
            n_fields,
            ..Default::default()
        }
    }

    /// Moves a finished term encoder into the store.
    pub fn append(&mut self, encoder: &TermPostingsEncoder) -> TermInfo {
        let byte_base = self.bytes.len() as u32;
        let pos_base = self.positions.len() as u32;
        let first_block = self.blocks.len() as u32;
        self.bytes.extend_from_slice(&encoder.bytes);
        self.positions.extend_from_slice(&encoder.positions);
        self.blocks.extend(encoder.blocks.iter().map(|b| BlockMeta {
            offset: b.offset + byte_base,
            pos_offset: b.pos_offset + pos_base,
            ..*b
        }));
        self.bounds.extend_from_slice(&encoder.bounds);
        TermInfo {
            doc_freq: encoder.doc_freq,
            first_block,
            n_blocks: encoder.blocks.len() as u32,
        }
    }

    pub fn cursor(&self, info: TermInfo) -> PostingsCursor<'_> {
        PostingsCursor::new(self, info)
    }

    pub fn block_bounds(&self, block: usize) -> &[FieldBound] {
        let start = block * self.n_fields;
        self.bounds.get(start..start + self.n_fields).unwrap_or(&[])
    }

    pub fn heap_bytes(&self) -> usize {
        self.bytes.len()
            + self.positions.len()
            + self.blocks.len() * std::mem::size_of::<BlockMeta>()
            + self.bounds.len() * std::mem::size_of::<FieldBound>()
    }
}

#[cfg(test)]
mod tests;
