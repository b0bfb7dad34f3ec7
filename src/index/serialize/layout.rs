//! Formats 6 to 9: a segment as a head and a body (docs/FORMAT.md
//! "Segment"); 7 stores the ids in blocks (6: one stream), 8 the surface
//! words in shards (6 and 7: one unit).
//! The head holds what a search needs for every document (field lengths,
//! namespaces, filter, links and vector columns) and the directories of the
//! body; the body holds the units a reader can fetch alone (term shards,
//! doc store pages, the surface words), cut into parts of about
//! the storage's part size ([`crate::storage::Storage::part_bytes`]), one
//! chunk blob each.

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::postings::MAX_TEXT_FIELDS;
use crate::store::{Column, IdsDir, KeywordColumn, PageCache, PageDir};
use crate::vector::VectorColumn;

use super::super::lengths::FieldLengths;
use super::super::persist::CHUNK_PAYLOAD;
use super::super::segment::Segment;
use super::super::surfaces::Surfaces;
use super::columns;
use super::shards::{self, check_entry, read_shard, Assembled, ShardEntry};
use super::SegmentBytes;

/// `u32 n_docs`, `u32 n_fields`, `u32 head_len`.
pub(crate) const HEAD_PREFIX: usize = 12;

/// A segment's head, decoded.
#[derive(Debug)]
pub(crate) struct Head {
    pub n_docs: u32,
    pub n_fields: usize,
    pub shards: Vec<ShardEntry>,
    pub field_lens: FieldLengths,
    pub pages: PageDir,
    /// Where the documents' ids are (the first unit of the body).
    pub ids: IdsDir,
    pub namespaces: KeywordColumn,
    pub columns: Vec<Column>,
    pub vectors: Vec<VectorColumn>,
    /// The surface word units: shards (format 8), or one unit of no first
    /// word and no count (6 and 7).
    pub surfaces: Vec<ShardEntry>,
    /// Byte length of each part of the body, in order.
    pub parts: Vec<usize>,
}

pub(super) fn write(
    seg: &Segment,
    part_bytes: usize,
    mark: &mut dyn FnMut(&'static str, usize),
) -> SegmentBytes {
    let mut body = ByteWriter::default();
    let ids = crate::store::write_ids(&mut body, seg.docs.ids());
    // The order is an index over the ids, not stored text: a part apart.
    mark("id order", ids.order_len);
    let ids_packed = ids.packed_len();
    let mut units = vec![ids.unit_len()];
    let shards = shards::write_shards(&mut body, seg, &mut |end| units.push(end), mark);
    let mut dir = ByteWriter::default();
    let start = body.buf.len();
    crate::store::write_pages(&mut dir, &mut body, &seg.docs, &mut |end| units.push(end));
    mark(
        "doc store",
        body.buf.len() - start + dir.buf.len() + ids_packed,
    );
    let start = body.buf.len();
    let surfaces =
        columns::write_surface_shards(&mut body, &seg.surfaces, &mut |end| units.push(end));
    mark("surface words", body.buf.len() - start);
    let parts = cut_parts(&units, part_bytes);

    let mut w = ByteWriter::default();
    w.u32(seg.n_docs);
    w.u32(seg.n_fields as u32);
    w.u32(0); // the head's length, once known
    shards::write_entries(&mut w, &shards);
    mark("segment head", w.buf.len());
    let start = w.buf.len();
    columns::write_field_lens(&mut w, &seg.field_lens);
    mark("field lengths", w.buf.len() - start);
    w.buf.extend_from_slice(&dir.buf);
    let start = w.buf.len();
    ids.write(&mut w);
    mark("doc store", w.buf.len() - start);
    columns::write_columns(&mut w, seg, mark);
    let start = w.buf.len();
    shards::write_entries(&mut w, &surfaces);
    w.varint(parts.len() as u32);
    let mut prev = 0;
    for &end in &parts {
        w.varint((end - prev) as u32);
        prev = end;
    }
    mark("segment head", w.buf.len() - start);
    let head_len = w.buf.len();
    w.buf[8..12].copy_from_slice(&(head_len as u32).to_le_bytes());
    let mut ends: Vec<usize> = (1..head_len.div_ceil(CHUNK_PAYLOAD))
        .map(|i| i * CHUNK_PAYLOAD)
        .collect();
    ends.push(head_len);
    ends.extend(parts.iter().map(|end| head_len + end));
    w.buf.extend_from_slice(&body.buf);
    SegmentBytes { bytes: w.buf, ends }
}

/// Ends of the body's parts, given the ends of its units: units gather
/// until the next would take a part over `part_bytes`; a unit over
/// [`CHUNK_PAYLOAD`] is cut into pieces of that size.
pub(super) fn cut_parts(units: &[usize], part_bytes: usize) -> Vec<usize> {
    let mut ends = Vec::new();
    let (mut start, mut prev) = (0, 0);
    for &end in units {
        if end - start > part_bytes && prev > start {
            ends.push(prev);
            start = prev;
        }
        while end - start > CHUNK_PAYLOAD {
            start += CHUNK_PAYLOAD;
            ends.push(start);
        }
        prev = end;
    }
    if prev > start {
        ends.push(prev);
    }
    ends
}

/// The head's length, from the first [`HEAD_PREFIX`] bytes of a segment.
pub(crate) fn head_len(key: &str, prefix: &[u8]) -> Result<usize> {
    let mut r = ByteReader::new(key, prefix);
    r.take(8)?;
    let len = r.u32()? as usize;
    if len < HEAD_PREFIX {
        return Err(r.corrupt("segment head length out of range"));
    }
    Ok(len)
}

/// Decodes a head of format `version` (`bytes`: exactly the head),
/// checking that its directories describe a body its parts cover exactly.
pub(crate) fn read_head(key: &str, bytes: &[u8], version: u32) -> Result<Head> {
    let mut r = ByteReader::new(key, bytes);
    let n_docs = r.u32()?;
    let n_fields = r.u32()? as usize;
    if n_fields == 0 || n_fields > MAX_TEXT_FIELDS {
        return Err(r.corrupt(format!("invalid text field count {n_fields}")));
    }
    if r.u32()? as usize != bytes.len() {
        return Err(r.corrupt("segment head length differs from its bytes"));
    }
    let shards = shards::read_entries(&mut r)?;
    if !in_order(&shards) {
        return Err(r.corrupt("term shard directory out of order"));
    }
    let field_lens = columns::read_field_lens(&mut r, version, (n_docs, n_fields))?;
    let pages = crate::store::read_page_dir(&mut r, n_docs, version)?;
    let ids = match version {
        6 => IdsDir::whole(&mut r, n_docs)?,
        _ => IdsDir::read(&mut r, n_docs, version)?,
    };
    let (namespaces, columns, vectors) = columns::read_columns(&mut r, version, n_docs)?;
    let surfaces = match version {
        6 | 7 => vec![ShardEntry {
            first_term: String::new(),
            n_terms: 0,
            len: r.varint()?,
        }],
        _ => {
            let entries = shards::read_entries(&mut r)?;
            if !in_order(&entries) {
                return Err(r.corrupt("surface word shard directory out of order"));
            }
            entries
        }
    };
    let n_parts = r.varint()? as usize;
    if n_parts > r.remaining() {
        return Err(r.corrupt("part count exceeds the segment head"));
    }
    let parts = (0..n_parts)
        .map(|_| r.varint().map(|l| l as usize))
        .collect::<Result<Vec<_>>>()?;
    if !r.is_at_end() {
        return Err(r.corrupt("trailing bytes after the segment head"));
    }
    let units: u64 = shards.iter().map(|s| s.len as u64).sum::<u64>()
        + pages.iter().map(|p| p.2 as u64).sum::<u64>()
        + ids.unit_len() as u64
        + surfaces.iter().map(|s| s.len as u64).sum::<u64>();
    if parts.contains(&0) || parts.iter().map(|&p| p as u64).sum::<u64>() != units {
        return Err(r.corrupt("the segment's parts do not cover its body"));
    }
    Ok(Head {
        n_docs,
        n_fields,
        shards,
        field_lens,
        pages,
        ids,
        namespaces,
        columns,
        vectors,
        surfaces,
        parts,
    })
}

/// Whether shard entries are in strictly increasing order of their first
/// terms and none is empty.
fn in_order(entries: &[ShardEntry]) -> bool {
    let ordered = entries
        .windows(2)
        .all(|p| p[0].first_term.as_bytes() < p[1].first_term.as_bytes());
    ordered && entries.iter().all(|s| s.n_terms > 0)
}

/// Reads a whole segment of format 6, 7 or 8 (head and body, concatenated).
pub(super) fn read(
    key: &str,
    bytes: &[u8],
    version: u32,
    cache: Option<&std::sync::Arc<PageCache>>,
) -> Result<Segment> {
    let len = head_len(key, bytes)?;
    let head_bytes = bytes.get(..len).ok_or_else(|| Error::Corrupt {
        key: key.to_string(),
        reason: "segment shorter than its head".into(),
    })?;
    let head = read_head(key, head_bytes, version)?;
    let mut body = ByteReader::new(key, &bytes[len..]);
    if head.parts.iter().sum::<usize>() != body.remaining() {
        return Err(body.corrupt("segment body differs from its parts"));
    }
    let ids = body.take(head.ids.packed_len())?;
    let ids = crate::store::read_ids(&body, ids, &head.ids, head.n_docs)?;
    // A whole segment's ids are unpacked: they compare without the order.
    body.take(head.ids.order_len)?;
    let dims = (head.n_docs, head.n_fields);
    let mut assembled = Assembled::new(head.n_fields);
    for entry in &head.shards {
        let mut r = ByteReader::new(key, body.take(entry.len as usize)?);
        let shard = read_shard(&mut r, version, dims)?;
        check_entry(key, &shard, entry)?;
        assembled.push(key, &shard)?;
    }
    let (terms, term_infos, postings) = assembled.finish();
    let docs = crate::store::read_pages(&mut body, head.pages, Some(ids), cache)?;
    let mut units = Vec::with_capacity(head.surfaces.len());
    for entry in &head.surfaces {
        let mut r = ByteReader::new(key, body.take(entry.len as usize)?);
        units.push(columns::read_surface_unit(
            &mut r,
            version,
            terms.len(),
            entry,
        )?);
    }
    let surfaces = match units.len() {
        1 => units.swap_remove(0),
        _ => Surfaces::join(&units.iter().collect::<Vec<_>>())
            .map_err(|reason| body.corrupt(reason))?,
    };
    if !body.is_at_end() {
        return Err(body.corrupt("trailing bytes after the segment"));
    }
    Ok(Segment {
        n_docs: head.n_docs,
        n_fields: head.n_fields,
        terms,
        term_infos,
        postings,
        field_lens: head.field_lens,
        docs,
        namespaces: head.namespaces,
        columns: head.columns,
        vectors: head.vectors,
        surfaces,
        incoming: Default::default(),
        lazy: None,
    })
}
