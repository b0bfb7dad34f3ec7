//! Segment serializer and reader (the persisted layout is in docs/FORMAT.md).
//!
//! The reader validates every structural invariant the search code relies
//! on (offsets inside their buffers, block ranges inside the block table,
//! lengths consistent with the doc count), so a blob that passes its CRC but
//! was crafted or written by a buggy build is `CORRUPT`, never a panic.
//! Format 7 ([`layout`]) is written, 6 read there too; formats 2 to 5 are
//! read here.

use std::sync::Arc;

use crate::codec::bytes::ByteReader;
use crate::error::Result;
use crate::postings::{PostingsStore, MAX_TEXT_FIELDS};
use crate::storage::PART_BYTES;
use crate::store::{DocStore, PageCache};
use crate::termdict::TermDict;

use super::segment::Segment;

pub(crate) mod columns;
pub(crate) mod layout;
mod postings;
pub(crate) mod shards;

pub(crate) use columns::{read_doc_list, write_doc_list};

/// A serialized segment and where its chunks end: the head cut every
/// [`super::persist::CHUNK_PAYLOAD`] bytes, then the body's parts.
pub struct SegmentBytes {
    pub bytes: Vec<u8>,
    /// End of each chunk in `bytes`, increasing, the last at its length.
    pub ends: Vec<usize>,
}

impl SegmentBytes {
    /// The chunks, in order.
    pub fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(s, &e)| &self.bytes[s..e])
    }
}

/// `seg`'s bytes, its body in parts of [`PART_BYTES`].
pub fn write_segment(seg: &Segment) -> SegmentBytes {
    write_segment_in(seg, PART_BYTES)
}

/// `seg`'s bytes, its body in parts of about `part_bytes`.
pub fn write_segment_in(seg: &Segment, part_bytes: usize) -> SegmentBytes {
    layout::write(seg, part_bytes, &mut |_, _| {})
}

/// Serialized bytes of each part of `seg`, summed by part, in the order
/// each first appears (the storage breakdown in bench/ sums them).
pub fn part_sizes(seg: &Segment) -> Vec<(&'static str, usize)> {
    let mut sizes: Vec<(&'static str, usize)> = Vec::new();
    let total = layout::write(seg, PART_BYTES, &mut |part, bytes| match sizes
        .iter_mut()
        .find(|s| s.0 == part)
    {
        Some(s) => s.1 += bytes,
        None => sizes.push((part, bytes)),
    })
    .bytes
    .len();
    debug_assert_eq!(sizes.iter().map(|s| s.1).sum::<usize>(), total);
    sizes
}

/// Reads a segment of format `version` (the chunks' payloads, concatenated).
/// Stored fields stay packed behind `cache` when given.
pub fn read_segment(
    key: &str,
    bytes: &[u8],
    version: u32,
    cache: Option<&Arc<PageCache>>,
) -> Result<Segment> {
    if version >= 6 {
        return layout::read(key, bytes, version, cache);
    }
    read_legacy(key, bytes, version, cache)
}

/// Reads a segment of format 2 to 5: one stream of items 1 to 11 of
/// docs/FORMAT.md "Segment". Version 3 adds vector columns and the surface
/// words after the columns; a v2 segment has neither.
fn read_legacy(
    key: &str,
    bytes: &[u8],
    version: u32,
    cache: Option<&Arc<PageCache>>,
) -> Result<Segment> {
    let mut r = ByteReader::new(key, bytes);
    let n_docs = r.u32()?;
    let n_fields = r.u32()? as usize;
    if n_fields == 0 || n_fields > MAX_TEXT_FIELDS {
        return Err(r.corrupt(format!("invalid text field count {n_fields}")));
    }
    let dict = r.bytes()?.to_vec();
    let terms = TermDict::from_bytes(dict)
        .map_err(|reason| r.corrupt(format!("term dictionary: {reason}")))?;
    let term_infos = postings::read_term_table(&mut r, version, terms.len(), n_docs)?;
    let postings_bytes = r.bytes()?.to_vec();
    let positions = r.bytes()?.to_vec();
    let (blocks, bounds) = postings::read_blocks(
        &mut r,
        version,
        &term_infos,
        (n_docs, n_fields),
        (postings_bytes.len(), positions.len()),
    )?;
    let field_lens = columns::read_field_lens(&mut r, version, (n_docs, n_fields))?;
    let docs = read_docs(&mut r, version, n_docs, cache)?;
    let (namespaces, columns, vectors) = columns::read_columns(&mut r, version, n_docs)?;
    let surfaces = columns::read_surfaces(&mut r, version, terms.len())?;
    if !r.is_at_end() {
        return Err(r.corrupt("trailing bytes after the segment"));
    }
    Ok(Segment {
        n_docs,
        n_fields,
        terms,
        term_infos,
        postings: PostingsStore {
            n_fields,
            bytes: postings_bytes,
            positions,
            blocks,
            bounds,
        },
        field_lens,
        docs,
        namespaces,
        columns,
        vectors,
        surfaces,
        incoming: Default::default(),
        lazy: None,
    })
}

/// The doc store: deflated pages of rows (format 5, [`crate::store::read_pages`]),
/// else per document its id and stored JSON, `varint`-length prefixed
/// (format 4) or `u64` (2 and 3, after a `u64` document count).
fn read_docs(
    r: &mut ByteReader<'_>,
    version: u32,
    n_docs: u32,
    cache: Option<&Arc<PageCache>>,
) -> Result<DocStore> {
    if version >= 5 {
        let dir = crate::store::read_page_dir(r, n_docs, version)?;
        return crate::store::read_pages(r, dir, None, cache);
    }
    if version < 4 && r.len(16)? != n_docs as usize {
        return Err(r.corrupt("document store does not match the document count"));
    }
    let mut docs = DocStore::new();
    for _ in 0..n_docs {
        let (id, stored) = if version >= 4 {
            (r.short_str()?, r.short_bytes()?)
        } else {
            (r.str()?, r.bytes()?)
        };
        docs.push(id.to_string(), stored);
    }
    Ok(docs)
}

#[cfg(test)]
mod tests;
