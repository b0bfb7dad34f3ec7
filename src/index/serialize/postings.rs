//! The postings tables of a segment: the term table, the block table and the
//! per-block field bounds (docs/FORMAT.md "Segment", items 3, 5 and 6).
//!
//! Format 4 writes only what cannot be derived: a term's document count
//! (its block count follows, blocks being full but the last, and its first
//! block is the running sum), per block the gap to its last document and its
//! byte lengths (offsets are running sums that must end exactly at the
//! buffers' ends), per block and field the bound as varints. Versions 2 and
//! 3 stored each of those as fixed u32s; their reader checks that they
//! describe the same canonical layout every memdex writer produces
//! ([`crate::postings::PostingsStore::append`]), so any segment read can be
//! written as format 4 without loss.

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;
use crate::postings::{BlockMeta, FieldBound, TermInfo, BLOCK_LEN};

/// Blocks a term of `doc_freq` documents owns.
fn blocks_of(doc_freq: u32) -> u32 {
    doc_freq.div_ceil(BLOCK_LEN as u32)
}

/// Documents in block `i` of a term of `doc_freq` documents.
fn block_len(doc_freq: u32, i: u32) -> u32 {
    (doc_freq - i * BLOCK_LEN as u32).min(BLOCK_LEN as u32)
}

pub(super) fn write_term_table(w: &mut ByteWriter, term_infos: &[TermInfo]) {
    w.u64(term_infos.len() as u64);
    for t in term_infos {
        w.varint(t.doc_freq);
    }
}

/// Block table: per block `varint` gap to its last document (absolute for
/// a term's first block), `varint` postings bytes, `varint` positions bytes.
pub(super) fn write_block_table(
    w: &mut ByteWriter,
    term_infos: &[TermInfo],
    blocks: &[BlockMeta],
    (postings_len, positions_len): (usize, usize),
) {
    w.u64(blocks.len() as u64);
    for t in term_infos {
        let mut prev = 0;
        let first = t.first_block as usize;
        for b in first..first + t.n_blocks as usize {
            let block = &blocks[b];
            let (end, pos_end) = match blocks.get(b + 1) {
                Some(next) => (next.offset, next.pos_offset),
                None => (postings_len as u32, positions_len as u32),
            };
            w.varint(block.last_doc - prev);
            w.varint(end - block.offset);
            w.varint(pos_end - block.pos_offset);
            prev = block.last_doc;
        }
    }
}

/// Bounds: `varint max_tf`, then `varint min_len` only when `max_tf > 0`
/// (a field without the term bounds nothing; it reads as
/// [`FieldBound::EMPTY`]).
pub(super) fn write_bounds(w: &mut ByteWriter, bounds: &[FieldBound]) {
    for b in bounds {
        w.varint(b.max_tf);
        if b.max_tf > 0 {
            w.varint(b.min_len);
        }
    }
}

/// Reads the term table (`version` 4: varint document counts; 2 and 3:
/// fixed `doc_freq, first_block, n_blocks`).
pub(super) fn read_term_table(
    r: &mut ByteReader<'_>,
    version: u32,
    n_terms: usize,
    n_docs: u32,
) -> Result<Vec<TermInfo>> {
    let n = r.len(if version >= 4 { 1 } else { 12 })?;
    if n != n_terms {
        return Err(r.corrupt("term dictionary and term table differ in size"));
    }
    let mut term_infos = Vec::with_capacity(n);
    let mut first_block = 0u32;
    for _ in 0..n {
        let info = if version >= 4 {
            let doc_freq = r.varint()?;
            TermInfo {
                doc_freq,
                first_block,
                n_blocks: blocks_of(doc_freq),
            }
        } else {
            TermInfo {
                doc_freq: r.u32()?,
                first_block: r.u32()?,
                n_blocks: r.u32()?,
            }
        };
        if info.doc_freq == 0 || info.doc_freq > n_docs {
            return Err(r.corrupt("term document count out of range"));
        }
        first_block = first_block
            .checked_add(info.n_blocks)
            .ok_or_else(|| r.corrupt("block count overflows"))?;
        term_infos.push(info);
    }
    Ok(term_infos)
}

/// Reads the block table and the bounds after the postings buffers, whose
/// lengths are `buffers`.
pub(super) fn read_blocks(
    r: &mut ByteReader<'_>,
    version: u32,
    term_infos: &[TermInfo],
    (n_docs, n_fields): (u32, usize),
    buffers: (usize, usize),
) -> Result<(Vec<BlockMeta>, Vec<FieldBound>)> {
    if version < 4 {
        return read_fixed_blocks(r, term_infos, (n_docs, n_fields), buffers);
    }
    let n_blocks = r.len(3)?;
    let expected: u64 = term_infos.iter().map(|t| t.n_blocks as u64).sum();
    if n_blocks as u64 != expected {
        return Err(r.corrupt("block table does not match the terms' document counts"));
    }
    let mut blocks = Vec::with_capacity(n_blocks);
    let (mut offset, mut pos_offset) = (0u64, 0u64);
    for t in term_infos {
        let mut last_doc = 0u32;
        for i in 0..t.n_blocks {
            let gap = r.varint()?;
            last_doc = last_doc
                .checked_add(gap)
                .filter(|&d| d < n_docs && (i == 0 || gap > 0))
                .ok_or_else(|| r.corrupt("block entry out of range"))?;
            blocks.push(BlockMeta {
                last_doc,
                offset: offset as u32,
                pos_offset: pos_offset as u32,
                len: block_len(t.doc_freq, i),
            });
            offset += r.varint()? as u64;
            pos_offset += r.varint()? as u64;
            if offset > buffers.0 as u64 || pos_offset > buffers.1 as u64 {
                return Err(r.corrupt("block entry out of range"));
            }
        }
    }
    if (offset, pos_offset) != (buffers.0 as u64, buffers.1 as u64) {
        return Err(r.corrupt("block lengths do not cover the postings"));
    }
    let n_bounds = n_blocks as u64 * n_fields as u64;
    if n_bounds > r.remaining() as u64 {
        return Err(r.corrupt("block bounds do not match the block table"));
    }
    let mut bounds = Vec::with_capacity(n_bounds as usize);
    for _ in 0..n_bounds {
        let max_tf = r.varint()?;
        bounds.push(if max_tf == 0 {
            FieldBound::EMPTY
        } else {
            FieldBound {
                max_tf,
                min_len: r.varint()?,
            }
        });
    }
    Ok((blocks, bounds))
}

/// The fixed-width tables of formats 2 and 3, checked to be the canonical
/// layout (see the module's documentation).
fn read_fixed_blocks(
    r: &mut ByteReader<'_>,
    term_infos: &[TermInfo],
    (n_docs, n_fields): (u32, usize),
    buffers: (usize, usize),
) -> Result<(Vec<BlockMeta>, Vec<FieldBound>)> {
    let n_blocks = r.len(16)?;
    let mut blocks = Vec::with_capacity(n_blocks);
    for _ in 0..n_blocks {
        blocks.push(BlockMeta {
            last_doc: r.u32()?,
            offset: r.u32()?,
            pos_offset: r.u32()?,
            len: r.u32()?,
        });
    }
    let n_bounds = r.len(8)?;
    if n_bounds != n_blocks * n_fields {
        return Err(r.corrupt("block bounds do not match the block table"));
    }
    let mut bounds = Vec::with_capacity(n_bounds);
    for _ in 0..n_bounds {
        bounds.push(FieldBound {
            max_tf: r.u32()?,
            min_len: r.u32()?,
        });
    }
    check_canonical(r, term_infos, &blocks, n_docs, buffers)?;
    Ok((blocks, bounds))
}

/// Terms own consecutive runs of blocks in term order, each run as many
/// blocks as the term's document count needs, full but the last; block
/// offsets start at 0 and increase, inside the buffers; last documents
/// increase within a term and stay below `n_docs`.
fn check_canonical(
    r: &ByteReader<'_>,
    term_infos: &[TermInfo],
    blocks: &[BlockMeta],
    n_docs: u32,
    (postings_len, positions_len): (usize, usize),
) -> Result<()> {
    let mut next_block = 0u32;
    let (mut offset, mut pos_offset) = (0u32, 0u32);
    for t in term_infos {
        if t.doc_freq == 0 || t.first_block != next_block || t.n_blocks != blocks_of(t.doc_freq) {
            return Err(r.corrupt("term points outside the block table"));
        }
        let run = blocks
            .get(t.first_block as usize..(t.first_block + t.n_blocks) as usize)
            .ok_or_else(|| r.corrupt("term points outside the block table"))?;
        let mut last_doc = None;
        for (i, b) in run.iter().enumerate() {
            let ordered = last_doc.is_none_or(|d| b.last_doc > d);
            if b.len != block_len(t.doc_freq, i as u32)
                || b.last_doc >= n_docs
                || !ordered
                || b.offset < offset
                || b.pos_offset < pos_offset
                || b.offset as usize > postings_len
                || b.pos_offset as usize > positions_len
            {
                return Err(r.corrupt("block entry out of range"));
            }
            (offset, pos_offset, last_doc) = (b.offset, b.pos_offset, Some(b.last_doc));
        }
        next_block += t.n_blocks;
    }
    if next_block as usize != blocks.len()
        || blocks
            .first()
            .is_some_and(|b| b.offset != 0 || b.pos_offset != 0)
    {
        return Err(r.corrupt("block table does not match the term table"));
    }
    Ok(())
}
