//! The doc-ordered parts of a segment that every format lays out alike:
//! field lengths, namespaces, filter, links and vector columns, surface
//! words, and the doc lists they are made of (docs/FORMAT.md "Segment").

use rustc_hash::FxHashMap as HashMap;

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;
use crate::store::{Column, KeywordColumn};
use crate::termdict::TermDict;
use crate::vector::VectorColumn;

use super::super::lengths::FieldLengths;
use super::super::segment::Segment;
use super::super::surfaces::Surfaces;
use super::shards::ShardEntry;

const COL_KEYWORD: u8 = 1;
const COL_NUMBER: u8 = 2;
const COL_BOOLEAN: u8 = 3;
/// Format v3: a vector field's column (see [`write_vectors`]).
const COL_VECTOR: u8 = 4;
/// Format 3: a links field's edges (docs/FORMAT.md).
const COL_LINKS: u8 = 5;

/// Namespaces, then the filter and links columns, then the vector columns.
pub(super) fn write_columns(
    w: &mut ByteWriter,
    seg: &Segment,
    mark: &mut dyn FnMut(&'static str, usize),
) {
    let start = w.buf.len();
    write_keywords(w, &seg.namespaces);
    mark("namespaces", w.buf.len() - start);
    let start = w.buf.len();
    w.u64((seg.columns.len() + seg.vectors.len()) as u64);
    for c in &seg.columns {
        match c {
            Column::Keyword(k) => {
                w.u8(COL_KEYWORD);
                write_keywords(w, k);
            }
            Column::Number(v) => {
                // Format 4: the documents that have a number, then their
                // numbers (a sparse column costs what it holds).
                w.u8(COL_NUMBER);
                let present = || (0..v.len() as u32).filter(|&d| !v[d as usize].is_nan());
                write_doc_list(w, present().count(), present());
                present().for_each(|d| w.f64(v[d as usize]));
            }
            Column::Boolean(v) => {
                w.u8(COL_BOOLEAN);
                w.bytes(v);
            }
            Column::Links(v) => {
                w.u8(COL_LINKS);
                w.u64(v.len() as u64);
                for edges in (0..v.len() as u32).map(|d| v.get(d)) {
                    w.varint(edges.len() as u32);
                    for (t, to) in edges {
                        w.str(t);
                        w.str(to);
                    }
                }
            }
        }
    }
    mark("filter and links columns", w.buf.len() - start);
    let start = w.buf.len();
    for v in &seg.vectors {
        write_vectors(w, v);
    }
    mark("vectors", w.buf.len() - start);
}

/// The columns [`write_columns`] wrote: namespaces, filter columns, vectors.
pub(super) fn read_columns(
    r: &mut ByteReader<'_>,
    version: u32,
    n_docs: u32,
) -> Result<(KeywordColumn, Vec<Column>, Vec<VectorColumn>)> {
    let namespaces = read_keywords(r, n_docs)?;
    let n_columns = r.len(1)?;
    let mut columns = Vec::with_capacity(n_columns);
    let mut vectors = Vec::new();
    for _ in 0..n_columns {
        let kind = r.u8()?;
        if kind == COL_VECTOR && version >= 3 {
            vectors.push(read_vectors(r, n_docs)?);
            continue;
        }
        columns.push(match kind {
            COL_KEYWORD => Column::Keyword(read_keywords(r, n_docs)?),
            COL_NUMBER => Column::Number(read_numbers(r, version, n_docs)?),
            COL_BOOLEAN => {
                let v = r.bytes()?.to_vec();
                if v.len() != n_docs as usize {
                    return Err(r.corrupt("boolean column does not match the document count"));
                }
                Column::Boolean(v)
            }
            COL_LINKS if version >= 3 => {
                let n = r.len(1)?;
                if n != n_docs as usize {
                    return Err(r.corrupt("links column does not match the document count"));
                }
                let mut v = crate::store::LinkColumn::default();
                for _ in 0..n {
                    let count = r.varint()? as usize;
                    let mut edges = Vec::with_capacity(count.min(64));
                    for _ in 0..count {
                        let t = r.str()?.to_string();
                        edges.push((t, r.str()?.to_string()));
                    }
                    v.push(edges);
                }
                Column::Links(v)
            }
            other => return Err(r.corrupt(format!("unknown column kind {other}"))),
        });
    }
    Ok((namespaces, columns, vectors))
}

/// Field lengths, `n_docs * n_fields` varints, doc-major.
pub(super) fn write_field_lens(w: &mut ByteWriter, lens: &FieldLengths) {
    for len in lens.to_doc_major() {
        w.varint(len);
    }
}

pub(super) fn read_field_lens(
    r: &mut ByteReader<'_>,
    version: u32,
    (n_docs, n_fields): (u32, usize),
) -> Result<FieldLengths> {
    // u64: n_docs * n_fields may not fit a wasm32 usize in a crafted blob.
    let cells = n_docs as u64 * n_fields as u64;
    let field_lens = if version >= 4 {
        // At least a byte per varint: a count the blob cannot hold is
        // refused before anything is allocated.
        if cells > r.remaining() as u64 {
            return Err(r.corrupt("field length table does not match the document count"));
        }
        (0..cells).map(|_| r.varint()).collect::<Result<Vec<_>>>()?
    } else {
        let lens = r.u32s()?;
        if lens.len() as u64 != cells {
            return Err(r.corrupt("field length table does not match the document count"));
        }
        lens
    };
    Ok(FieldLengths::from_doc_major(&field_lens, n_fields))
}

/// Surface words (format 3): their dictionary, then per word its stem's
/// ordinal and its document count.
pub(super) fn write_surfaces(w: &mut ByteWriter, surfaces: &Surfaces) {
    w.bytes(surfaces.words.as_bytes());
    w.u64(surfaces.stems.len() as u64);
    for (&stem, &count) in surfaces.stems.iter().zip(&surfaces.counts) {
        w.varint(stem);
        w.varint(count);
    }
}

/// Bytes of words a surface word shard gathers before it closes (format
/// 8): a typo fetches the shards of one or two first letters, a
/// completion those of its prefix.
pub(crate) const SURFACE_SHARD_BYTES: usize = 32 * 1024;

/// Surface words as shards (format 8), each written as
/// [`write_surfaces`] writes all of them, one unit each (`unit` is called
/// after each); returns their head entries.
pub(super) fn write_surface_shards(
    w: &mut ByteWriter,
    surfaces: &Surfaces,
    unit: &mut dyn FnMut(usize),
) -> Vec<ShardEntry> {
    let mut entries = Vec::new();
    let mut words = surfaces.words.iter();
    let mut pending: Vec<String> = Vec::new();
    let (mut first, mut bytes) = (0, 0);
    let n = surfaces.words.len();
    while words.advance().is_some() {
        let word = String::from_utf8_lossy(words.term()).into_owned();
        bytes += word.len() + 4;
        pending.push(word);
        let end = first + pending.len();
        if bytes >= SURFACE_SHARD_BYTES || end == n {
            let start = w.buf.len();
            write_surfaces(w, &surfaces.slice(first..end, &pending));
            unit(w.buf.len());
            entries.push(ShardEntry {
                first_term: std::mem::take(&mut pending).swap_remove(0),
                n_terms: (end - first) as u32,
                len: (w.buf.len() - start) as u32,
            });
            (first, bytes) = (end, 0);
        }
    }
    entries
}

/// One unit of surface words as its head entry describes it (all of
/// `r`): a shard of format 8, or all the words of a format 6 or 7 segment
/// (an entry of no first word and no count).
pub(crate) fn read_surface_unit(
    r: &mut ByteReader<'_>,
    version: u32,
    n_terms: usize,
    entry: &ShardEntry,
) -> Result<Surfaces> {
    let surfaces = read_surfaces(r, version, n_terms)?;
    let described = version < 8 || entry.describes(&surfaces.words);
    if !r.is_at_end() || !described {
        return Err(r.corrupt("a surface word shard differs from the segment head's entry for it"));
    }
    Ok(surfaces)
}

/// [`write_surfaces`]' output over a segment of `n_terms` terms (none
/// before version 3).
pub(crate) fn read_surfaces(
    r: &mut ByteReader<'_>,
    version: u32,
    n_terms: usize,
) -> Result<Surfaces> {
    let mut surfaces = Surfaces::default();
    if version >= 3 {
        let words = TermDict::from_bytes(r.bytes()?.to_vec())
            .map_err(|reason| r.corrupt(format!("surface words: {reason}")))?;
        surfaces = Surfaces {
            words,
            ..Default::default()
        };
        if version >= 4 {
            let n = r.len(2)?;
            for _ in 0..n {
                surfaces.stems.push(r.varint()?);
                surfaces.counts.push(r.varint()?);
            }
        } else {
            surfaces.stems = r.u32s()?;
            surfaces.counts = r.u32s()?;
        }
        surfaces
            .validate(n_terms)
            .map_err(|reason| r.corrupt(reason))?;
    }
    Ok(surfaces)
}

/// A vector column (after the filter columns, in vector field order):
/// `u8 COL_VECTOR`, `u32 dims`, `u64 count`, `count` varint doc deltas
/// (ascending local ids), then the rows as length-prefixed bytes of
/// `count * dims` little-endian f32.
fn write_vectors(w: &mut ByteWriter, col: &VectorColumn) {
    w.u8(COL_VECTOR);
    w.u32(col.dims);
    write_doc_list(w, col.docs.len(), col.docs.iter().copied());
    w.u64(col.data.len() as u64 * 4);
    w.buf.reserve(col.data.len() * 4);
    for x in &col.data {
        w.buf.extend_from_slice(&x.to_le_bytes());
    }
}

fn read_vectors(r: &mut ByteReader<'_>, n_docs: u32) -> Result<VectorColumn> {
    let dims = r.u32()?;
    if dims > crate::vector::MAX_DIMENSIONS {
        return Err(r.corrupt("vector column dimensions out of range"));
    }
    let docs = read_doc_list(r, n_docs, "vector doc list")?;
    let count = docs.len();
    let bytes = r.bytes()?;
    if bytes.len() != count * dims as usize * 4 || (count > 0 && dims == 0) {
        return Err(r.corrupt("vector rows do not match the vector doc list"));
    }
    let data = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    Ok(VectorColumn::new(dims, docs, data))
}

fn write_keywords(w: &mut ByteWriter, col: &KeywordColumn) {
    // Sorted so equal segments serialize to equal bytes (content addressing).
    let values: Vec<(&String, &Vec<u32>)> = col.values.iter().collect();
    let bytes: Vec<&[u8]> = values.iter().map(|v| v.0.as_bytes()).collect();
    w.u64(values.len() as u64);
    for &(_, i) in &crate::sort::order_by_bytes(&bytes) {
        let (value, docs) = values[i as usize];
        w.str(value);
        write_doc_list(w, docs.len(), docs.iter().copied());
    }
}

/// A number column as a value per document (`NaN`: none). Format 4 stores
/// the documents that have one ([`write_doc_list`]) and their values; 2 and
/// 3 stored `u64 n_docs` values.
fn read_numbers(r: &mut ByteReader<'_>, version: u32, n_docs: u32) -> Result<Vec<f64>> {
    if version >= 4 {
        let present = read_doc_list(r, n_docs, "number doc list")?;
        if present.len().saturating_mul(8) > r.remaining() {
            return Err(r.corrupt("number column does not match its doc list"));
        }
        let mut v = vec![f64::NAN; n_docs as usize];
        for d in present {
            v[d as usize] = r.f64()?;
        }
        return Ok(v);
    }
    let n = r.len(8)?;
    if n != n_docs as usize {
        return Err(r.corrupt("number column does not match the document count"));
    }
    (0..n).map(|_| r.f64()).collect()
}

/// `u64 count`, then `count` varint deltas of strictly ascending doc ids
/// (the first delta is the id itself): column doc lists and tombstones.
/// `docs` yields exactly `count` ids.
pub(crate) fn write_doc_list(w: &mut ByteWriter, count: usize, docs: impl Iterator<Item = u32>) {
    w.u64(count as u64);
    let mut prev = 0;
    for d in docs {
        w.varint(d - prev);
        prev = d;
    }
}

/// Reads [`write_doc_list`]'s output: ids below `n_docs`, strictly
/// ascending, else `CORRUPT`: "`what` out of range".
pub(crate) fn read_doc_list(r: &mut ByteReader<'_>, n_docs: u32, what: &str) -> Result<Vec<u32>> {
    let count = r.len(1)?;
    let mut docs = Vec::with_capacity(count);
    let mut prev = 0u32;
    for i in 0..count {
        let delta = r.varint()?;
        let d = prev
            .checked_add(delta)
            .filter(|&d| d < n_docs && (i == 0 || delta > 0));
        let d = d.ok_or_else(|| r.corrupt(format!("{what} out of range")))?;
        docs.push(d);
        prev = d;
    }
    Ok(docs)
}

fn read_keywords(r: &mut ByteReader<'_>, n_docs: u32) -> Result<KeywordColumn> {
    let n = r.len(9)?;
    let mut values = HashMap::with_capacity_and_hasher(n, Default::default());
    for _ in 0..n {
        let value = r.str()?.to_string();
        values.insert(value, read_doc_list(r, n_docs, "keyword doc list")?);
    }
    Ok(KeywordColumn { values })
}
