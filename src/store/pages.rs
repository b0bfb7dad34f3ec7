//! The doc store's pages (format 5): documents in order, grouped into pages
//! of about [`PAGE_BYTES`] and each page deflate-compressed on its own, so
//! that one page can be fetched and decoded without the others.
//!
//! Layout (docs/FORMAT.md "Segment", item 8): `varint n_pages`, per page
//! `varint n_docs`, `varint raw_len`, `varint packed_len`, then the pages'
//! packed bytes in order. A page unpacks to `n_docs` rows of `short id`,
//! `short stored` (format 4's doc store rows).

use std::sync::Arc;

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;

use super::cache::{new_store_key, PageCache, UnpackedPage};
use super::{DocStore, Ids};

/// Raw bytes a page holds before it is closed: the page stays small enough
/// to fetch and unpack per hit (a read unpacks only up to its row). Format 6
/// keeps the ids apart from the rows (a lazy reader holds them all), which
/// loses what ids share with titles; doc store of 100k packages documents
/// against all the text it holds (bench/segments/parts.rs, level 6): 64 KiB
/// pages 52.7 %, 128 KiB 50.6 %, 256 KiB 50.2 % (format 5, ids in the rows,
/// 64 KiB at level 4: 48.7 %).
pub const PAGE_BYTES: usize = 128 * 1024;

/// Deflate level of the pages: 6 packs within 0.3 % of level 9, 2 % better
/// than 4 (level 4 packs 65 MB/s, 9 packs 27, on 64 KiB pages).
const LEVEL: u8 = 6;

/// Deflate cannot expand more than 1032 to 1: a page claiming more is
/// damaged, and refusing it bounds what a crafted blob can make us allocate.
const MAX_EXPANSION: u64 = 1032;

/// A page as stored: its documents and its deflate bytes.
#[derive(Debug)]
struct PackedPage {
    first_doc: u32,
    n_docs: u32,
    raw_len: u32,
    bytes: Vec<u8>,
}

/// A doc store's stored fields kept packed, unpacked through the cache.
#[derive(Debug)]
pub(super) struct PackedPages {
    key: u64,
    pages: Vec<PackedPage>,
    cache: Arc<PageCache>,
    /// Rows start with the document's id (format 5; format 6 keeps the ids
    /// apart, [`write_ids`]).
    with_ids: bool,
}

impl Drop for PackedPages {
    fn drop(&mut self) {
        self.cache.forget(self.key);
    }
}

impl PackedPages {
    pub(super) fn pack(docs: &DocStore, cache: Arc<PageCache>) -> PackedPages {
        PackedPages {
            key: new_store_key(),
            pages: pack_pages(docs),
            cache,
            with_ids: false,
        }
    }

    pub(super) fn packed_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.bytes.len() + 16).sum()
    }

    /// The unpacked page holding `doc`'s stored fields, and its row there.
    pub(super) fn stored(&self, doc: u32) -> Option<(Arc<UnpackedPage>, usize)> {
        let i = self
            .pages
            .partition_point(|p| p.first_doc + p.n_docs <= doc);
        let page = self.pages.get(i).filter(|p| p.first_doc <= doc)?;
        let row = (doc - page.first_doc) as usize;
        let unpacked = self.cache.get(self.key, i as u32, row, || {
            // The bytes unpacked when the store was read or packed: only a
            // bug could make them fail now, and then the fields read empty.
            let unpacked = unpack_through(page, row, self.with_ids);
            debug_assert!(unpacked.is_some(), "a held page no longer unpacks");
            unpacked.unwrap_or(UnpackedPage {
                raw: Vec::new(),
                stored: vec![(0, 0); page.n_docs as usize],
            })
        });
        Some((unpacked, row))
    }
}

/// `docs`' stored fields in pages of about [`PAGE_BYTES`], each deflated.
fn pack_pages(docs: &DocStore) -> Vec<PackedPage> {
    let mut pages = Vec::new();
    let mut raw = ByteWriter::default();
    let mut first_doc = 0;
    let n = docs.len() as u32;
    for d in 0..n {
        raw.short_bytes(&docs.stored_bytes(d));
        if raw.buf.len() >= PAGE_BYTES || d + 1 == n {
            pages.push(PackedPage {
                first_doc,
                n_docs: d + 1 - first_doc,
                raw_len: raw.buf.len() as u32,
                bytes: miniz_oxide::deflate::compress_to_vec(&raw.buf, LEVEL),
            });
            raw.buf.clear();
            first_doc = d + 1;
        }
    }
    pages
}

/// Appends `docs` as pages (a packed store's pages as they are): the
/// directory to `dir`, the packed bytes to `body`, calling `unit` as each
/// page ends there (format 6 keeps them apart; format 5 wrote both in one).
pub fn write_pages(
    dir: &mut ByteWriter,
    body: &mut ByteWriter,
    docs: &DocStore,
    unit: &mut dyn FnMut(usize),
) {
    let packed;
    let pages = match docs.packed() {
        Some(p) if !p.with_ids => &p.pages,
        _ => {
            packed = pack_pages(docs);
            &packed
        }
    };
    dir.varint(pages.len() as u32);
    for p in pages {
        dir.varint(p.n_docs);
        dir.varint(p.raw_len);
        dir.varint(p.bytes.len() as u32);
    }
    for p in pages {
        body.buf.extend_from_slice(&p.bytes);
        unit(body.buf.len());
    }
}

/// The page's rows up to `row` at least: inflated only as far as the rows
/// before it take, as their share of the page suggests (then the whole page
/// if that fell short), so a read near the page's start unpacks little.
fn unpack_through(page: &PackedPage, row: usize, with_ids: bool) -> Option<UnpackedPage> {
    unpack_prefix(&page.bytes, (page.raw_len, page.n_docs), row, with_ids)
}

/// [`unpack_through`] of a page's `packed` bytes, of `raw_len` bytes and
/// `n_docs` rows.
pub(super) fn unpack_prefix(
    packed: &[u8],
    (raw_len, n_docs): (u32, u32),
    row: usize,
    with_ids: bool,
) -> Option<UnpackedPage> {
    let raw_len = raw_len as usize;
    let share = raw_len as u64 * (row as u64 + 1) / u64::from(n_docs.max(1));
    let guess = (share as usize + PREFIX_SLACK).min(raw_len);
    if guess < raw_len {
        if let Err(partial) = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, guess) {
            let prefix = rows_of(partial.output, n_docs, with_ids, &mut |_| {});
            if prefix.stored.len() > row {
                return Some(prefix);
            }
        }
    }
    unpack(packed, raw_len, n_docs, with_ids, &mut |_| {})
}

/// Bytes inflated beyond a row's share of its page: rows differ in length.
const PREFIX_SLACK: usize = 4096;

/// The whole rows at the start of `raw` (at most `n_docs`): `short` stored
/// fields, after a `short` id `with_ids`, which goes to `id`.
fn rows_of(raw: Vec<u8>, n_docs: u32, with_ids: bool, id: &mut dyn FnMut(&str)) -> UnpackedPage {
    let mut stored = Vec::with_capacity(n_docs as usize);
    let mut rows = ByteReader::new("", &raw);
    for _ in 0..n_docs {
        if with_ids {
            let Ok(row_id) = rows.short_str() else { break };
            id(row_id);
        }
        let Ok(bytes) = rows.short_bytes() else { break };
        let end = raw.len() - rows.remaining();
        stored.push(((end - bytes.len()) as u32, end as u32));
    }
    UnpackedPage { raw, stored }
}

/// Inflates a page of `n_docs` rows into exactly `raw_len` bytes, calling
/// `id` with each row's id; `None` if it does not.
pub(super) fn unpack(
    packed: &[u8],
    raw_len: usize,
    n_docs: u32,
    with_ids: bool,
    id: &mut dyn FnMut(&str),
) -> Option<UnpackedPage> {
    let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, raw_len).ok()?;
    if raw.len() != raw_len {
        return None;
    }
    let page = rows_of(raw, n_docs, with_ids, id);
    let whole = page.stored.len() == n_docs as usize
        && page.stored.last().map_or(0, |r| r.1 as usize) == raw_len;
    whole.then_some(page)
}

/// A doc store's page directory: per page `(n_docs, raw_len, packed_len)`.
pub type PageDir = Vec<(u32, u32, usize)>;

/// Reads a page directory of pages holding exactly `n_docs` documents.
pub fn read_page_dir(r: &mut ByteReader<'_>, n_docs: u32) -> Result<PageDir> {
    let n_pages = r.varint()? as usize;
    if n_pages > r.remaining() / 3 {
        return Err(r.corrupt("doc store page count exceeds the blob"));
    }
    let mut dir = Vec::with_capacity(n_pages);
    let mut total = 0u64;
    for _ in 0..n_pages {
        let (docs, raw_len, packed_len) = (r.varint()?, r.varint()?, r.varint()?);
        total += docs as u64;
        if docs == 0 || raw_len as u64 > packed_len as u64 * MAX_EXPANSION {
            return Err(r.corrupt("invalid doc store page"));
        }
        dir.push((docs, raw_len, packed_len as usize));
    }
    if total != n_docs as u64 {
        return Err(r.corrupt("doc store pages do not match the document count"));
    }
    Ok(dir)
}

/// Reads the packed pages `dir` describes from `r`: kept packed behind
/// `cache` when given, else unpacked into the store. `ids`: the documents'
/// ids (format 6), else the rows start with them (format 5).
pub fn read_pages(
    r: &mut ByteReader<'_>,
    dir: PageDir,
    ids: Option<Ids>,
    cache: Option<&Arc<PageCache>>,
) -> Result<DocStore> {
    let n_docs: usize = dir.iter().map(|p| p.0 as usize).sum();
    let with_ids = ids.is_none();
    if ids.as_ref().is_some_and(|ids| ids.len() != n_docs) {
        return Err(r.corrupt("the doc store's ids do not match its pages"));
    }
    let mut ids = ids.unwrap_or_else(|| Ids::with_capacity(n_docs));
    let mut pages = Vec::with_capacity(if cache.is_some() { dir.len() } else { 0 });
    let (mut bytes, mut offsets) = (Vec::new(), Vec::with_capacity(n_docs + 1));
    offsets.push(0u32);
    let mut first_doc = 0;
    for (i, (docs, raw_len, packed_len)) in dir.into_iter().enumerate() {
        let packed = r.take(packed_len)?;
        let page = unpack(packed, raw_len as usize, docs, with_ids, &mut |id| {
            ids.push(id)
        });
        let page = page.ok_or_else(|| r.corrupt(format!("doc store page {i} does not unpack")))?;
        if cache.is_some() {
            pages.push(PackedPage {
                first_doc,
                n_docs: docs,
                raw_len,
                bytes: packed.to_vec(),
            });
        } else {
            for &(s, e) in &page.stored {
                bytes.extend_from_slice(&page.raw[s as usize..e as usize]);
                offsets.push(bytes.len() as u32);
            }
        }
        first_doc += docs;
    }
    let stored = match cache {
        Some(cache) => super::Stored::Packed(Arc::new(PackedPages {
            key: new_store_key(),
            pages,
            cache: cache.clone(),
            with_ids,
        })),
        None => super::Stored::Raw { bytes, offsets },
    };
    Ok(DocStore { ids, stored })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn store(n: u32, stored_len: usize) -> DocStore {
        let mut s = DocStore::new();
        for d in 0..n {
            let text = format!(
                "{{\"text\":\"{}\"}}",
                "memory ".repeat(stored_len / 7) + &d.to_string()
            );
            s.push(format!("doc-{d}"), text.as_bytes());
        }
        s
    }

    /// Format 5's layout: the directory, then the pages.
    fn written(docs: &DocStore) -> Vec<u8> {
        let (mut w, mut body) = (ByteWriter::default(), ByteWriter::default());
        write_pages(&mut w, &mut body, docs, &mut |_| {});
        w.buf.extend_from_slice(&body.buf);
        w.buf
    }

    fn read(bytes: &[u8], n_docs: u32) -> Result<DocStore> {
        read_behind(bytes, n_docs, None)
    }

    /// Pages of `n_docs` documents whose ids are those of [`store`].
    fn read_behind(bytes: &[u8], n_docs: u32, cache: Option<&Arc<PageCache>>) -> Result<DocStore> {
        let mut r = ByteReader::new("k", bytes);
        let dir = read_page_dir(&mut r, n_docs)?;
        let mut ids = Ids::default();
        (0..n_docs).for_each(|d| ids.push(&format!("doc-{d}")));
        let docs = read_pages(&mut r, dir, Some(ids), cache)?;
        assert!(r.is_at_end());
        Ok(docs)
    }

    #[test]
    fn round_trips_across_page_boundaries() {
        for (n, len) in [(0, 0), (1, 10), (3000, 100), (5, PAGE_BYTES * 2)] {
            let docs = store(n, len);
            let bytes = written(&docs);
            assert_eq!(read(&bytes, n).unwrap(), docs, "{n} docs of {len}");
            let mut r = ByteReader::new("k", &bytes);
            let pages = r.varint().unwrap() as usize;
            // A page closes once it holds PAGE_BYTES, so pages stay near it.
            let raw: usize = (0..n).map(|d| docs.stored_bytes(d).len() + 10).sum();
            assert!(
                pages <= raw / PAGE_BYTES + 1,
                "{pages} pages for {raw} bytes"
            );
            assert!(n == 0 || raw / pages < 2 * PAGE_BYTES + len + 64);
        }
    }

    #[test]
    fn damage_is_corrupt_never_a_panic() {
        let docs = store(3000, 100);
        let bytes = written(&docs);
        // Every flipped byte is an error or (rarely) the same documents.
        for i in (0..bytes.len()).step_by(97) {
            let mut bad = bytes.clone();
            bad[i] ^= 0x5a;
            match read(&bad, 3000) {
                Err(Error::Corrupt { key, .. }) => assert_eq!(key, "k"),
                Err(e) => panic!("byte {i}: {e:?}"),
                Ok(got) => assert_eq!(got.len(), 3000),
            }
        }
        // Truncation, a wrong document count, and a page claiming more than
        // deflate can expand to.
        assert!(read(&bytes[..bytes.len() - 1], 3000).is_err());
        assert!(read(&bytes, 2999).is_err());
        let mut w = ByteWriter::default();
        w.varint(1);
        w.varint(1);
        w.varint(u32::MAX);
        w.varint(2);
        w.buf.extend_from_slice(&[0x03, 0x00]);
        let err = read(&w.buf, 1).unwrap_err();
        assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    }

    /// A store read (or packed) behind a cache too small for two pages
    /// answers every document exactly, in any order, and writes the same
    /// bytes; the cache stays under its limit and counts what it did.
    #[test]
    fn packed_stores_answer_alike_under_a_tiny_cache() {
        let docs = store(3000, 100);
        let bytes = written(&docs);
        let cache = PageCache::new(PAGE_BYTES + PAGE_BYTES / 2);
        let read = read_behind(&bytes, 3000, Some(&cache)).unwrap();
        let mut packed = docs.clone();
        packed.pack(&cache);
        for s in [&read, &packed] {
            assert!(s.packed().is_some());
            assert_eq!(written(s), bytes, "packed pages are written as they are");
            // Forward, backward and strided: every order evicts.
            let order = (0..3000).chain((0..3000).rev()).chain((0..3000).step_by(7));
            for d in order {
                assert_eq!(*s.stored_bytes(d), *docs.stored_bytes(d), "doc {d}");
                assert_eq!(s.id(d), docs.id(d));
            }
            let stats = cache.stats();
            assert!(stats.bytes <= stats.limit, "{stats:?}");
            assert!(stats.unpacks > 10 && stats.hits > 1000, "{stats:?}");
        }
        assert_eq!(read, docs);
        // A store that is dropped leaves nothing in the cache.
        drop((read, packed));
        assert_eq!(cache.stats().bytes, 0);
    }
}
