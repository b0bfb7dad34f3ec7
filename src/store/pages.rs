//! The doc store's pages (format 5): documents in order, grouped into pages
//! of about [`PAGE_BYTES`] and each page deflate-compressed on its own, so
//! that one page can be fetched and decoded without the others.
//!
//! Layout (docs/FORMAT.md "Segment"): `varint n_pages`, per page
//! `varint n_docs`, `varint raw_len`, `varint packed_len` (format 9: then
//! the rows' shape and the pages' dictionary, [`PageCodec`]), then the
//! pages' packed bytes in order. A page unpacks to `n_docs` rows: format 9
//! encodes them through the codec ([`super::rows`]); 6 to 8 as `short`
//! stored fields; 5 as `short id`, `short stored`.

use std::sync::Arc;

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;

use super::cache::{new_store_key, PageCache, UnpackedPage};
use super::deflate::{self, MAX_EXPANSION};
use super::rows::PageCodec;
use super::{DocStore, Ids};

/// Raw bytes a page holds before it is closed: a read unpacks its page up
/// to its row, so the page size is what a hit costs to read. Doc store of
/// 100k packages documents against all the text it holds
/// (bench/segments/parts.rs, level 6): format 8 (whole JSON rows, no
/// dictionary) 64 KiB pages 52.7 %, 128 KiB 50.6 %; format 9 (shaped rows
/// after a dictionary, which helps a page's first 32 KiB most) 64 KiB
/// 48.6 %, 32 KiB 48.7 %, 16 KiB 48.9 %. 16 KiB against 64: a lazy search
/// natively p50 2.8 -> 1.9 ms (4 MiB of cache), a whole load 175 -> 135
/// ms (bench/HISTORY.md).
pub const PAGE_BYTES: usize = 16 * 1024;

/// Deflate level of the pages: 6 packs within 0.3 % of level 9, 2 % better
/// than 4 (level 4 packs 65 MB/s, 9 packs 27, on 64 KiB pages).
const LEVEL: u8 = 6;

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
    codec: Arc<PageCodec>,
}

impl Drop for PackedPages {
    fn drop(&mut self) {
        self.cache.forget(self.key);
    }
}

impl PackedPages {
    pub(super) fn pack(docs: &DocStore, cache: Arc<PageCache>) -> PackedPages {
        let (pages, codec) = pack_pages(docs);
        PackedPages {
            key: new_store_key(),
            pages,
            cache,
            with_ids: false,
            codec: Arc::new(codec),
        }
    }

    pub(super) fn packed_bytes(&self) -> usize {
        self.pages.iter().map(|p| p.bytes.len() + 16).sum::<usize>() + self.codec.dict.len()
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
            let layout = Layout {
                with_ids: self.with_ids,
                codec: &self.codec,
            };
            let unpacked = unpack_prefix(&page.bytes, (page.raw_len, page.n_docs), row, layout);
            debug_assert!(unpacked.is_some(), "a held page no longer unpacks");
            unpacked.unwrap_or(UnpackedPage {
                raw: Vec::new(),
                stored: vec![(0, 0); page.n_docs as usize],
            })
        });
        Some((unpacked, row))
    }
}

/// How a page's rows are laid out: after their ids (format 5), and through
/// which codec.
#[derive(Clone, Copy)]
pub(super) struct Layout<'a> {
    pub with_ids: bool,
    pub codec: &'a PageCodec,
}

/// `docs`' stored fields in pages of about [`PAGE_BYTES`], each deflated
/// after the codec's dictionary.
fn pack_pages(docs: &DocStore) -> (Vec<PackedPage>, PageCodec) {
    let n = docs.len() as u32;
    let codec = PageCodec::of_rows(n as usize, &|d| docs.stored_bytes(d as u32).to_vec());
    let mut pages = Vec::new();
    let mut raw = ByteWriter::default();
    let mut first_doc = 0;
    for d in 0..n {
        codec.encode(&docs.stored_bytes(d), &mut raw);
        if raw.buf.len() >= PAGE_BYTES || d + 1 == n {
            pages.push(PackedPage {
                first_doc,
                n_docs: d + 1 - first_doc,
                raw_len: raw.buf.len() as u32,
                bytes: deflate::pack(&raw.buf, &codec.dict, LEVEL),
            });
            raw.buf.clear();
            first_doc = d + 1;
        }
    }
    (pages, codec)
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
    let (pages, codec) = match docs.packed() {
        // Packed pages of this format are written as they are.
        Some(p) if p.codec.tagged => (&p.pages, &*p.codec),
        _ => {
            packed = pack_pages(docs);
            (&packed.0, &packed.1)
        }
    };
    dir.varint(pages.len() as u32);
    for p in pages {
        dir.varint(p.n_docs);
        dir.varint(p.raw_len);
        dir.varint(p.bytes.len() as u32);
    }
    dir.varint(codec.keys.len() as u32);
    for key in &codec.keys {
        dir.short_bytes(key);
    }
    dir.short_bytes(&codec.dict);
    for p in pages {
        body.buf.extend_from_slice(&p.bytes);
        unit(body.buf.len());
    }
}

/// The rows of a page (`packed`, of `raw_len` bytes and `n_docs` rows) up
/// to `row` at least: inflated only as far as the rows before it take, as
/// their share of the page suggests (then the whole page if that fell
/// short), so a read near the page's start unpacks little.
pub(super) fn unpack_prefix(
    packed: &[u8],
    (raw_len, n_docs): (u32, u32),
    row: usize,
    layout: Layout<'_>,
) -> Option<UnpackedPage> {
    let raw_len = raw_len as usize;
    let share = raw_len as u64 * (row as u64 + 1) / u64::from(n_docs.max(1));
    let guess = (share as usize + PREFIX_SLACK).min(raw_len);
    if guess < raw_len {
        if let Err(partial) = deflate::unpack(packed, &layout.codec.dict, guess) {
            let (prefix, _) = rows_of(partial, n_docs, layout, &mut |_| {});
            if prefix.stored.len() > row {
                return Some(prefix);
            }
        }
    }
    unpack(packed, raw_len, n_docs, layout, &mut |_| {})
}

/// Bytes inflated beyond a row's share of its page: rows differ in length.
const PREFIX_SLACK: usize = 4096;

/// The whole rows at the start of `raw` (at most `n_docs`), after a
/// `short` id each `with_ids` (which goes to `id`), and the bytes they
/// take. Untagged rows are read in place; tagged ones are rebuilt.
fn rows_of(
    raw: Vec<u8>,
    n_docs: u32,
    layout: Layout<'_>,
    id: &mut dyn FnMut(&str),
) -> (UnpackedPage, usize) {
    let mut stored = Vec::with_capacity(n_docs as usize);
    let mut rows = ByteReader::new("", &raw);
    let mut rebuilt = Vec::new();
    for _ in 0..n_docs {
        if layout.with_ids {
            let Ok(row_id) = rows.short_str() else { break };
            id(row_id);
        }
        if layout.codec.tagged {
            let start = rebuilt.len() as u32;
            if layout.codec.decode(&mut rows, &mut rebuilt).is_none() {
                break;
            }
            stored.push((start, rebuilt.len() as u32));
        } else {
            let Ok(bytes) = rows.short_bytes() else { break };
            let end = raw.len() - rows.remaining();
            stored.push(((end - bytes.len()) as u32, end as u32));
        }
    }
    let used = raw.len() - rows.remaining();
    let raw = if layout.codec.tagged { rebuilt } else { raw };
    (UnpackedPage { raw, stored }, used)
}

/// Inflates a page of `n_docs` rows into exactly `raw_len` bytes, calling
/// `id` with each row's id; `None` if it does not.
pub(super) fn unpack(
    packed: &[u8],
    raw_len: usize,
    n_docs: u32,
    layout: Layout<'_>,
    id: &mut dyn FnMut(&str),
) -> Option<UnpackedPage> {
    let raw = deflate::unpack(packed, &layout.codec.dict, raw_len).ok()?;
    if raw.len() != raw_len {
        return None;
    }
    let (page, used) = rows_of(raw, n_docs, layout, id);
    (page.stored.len() == n_docs as usize && used == raw_len).then_some(page)
}

/// A doc store's page directory: per page `(n_docs, raw_len, packed_len)`,
/// and how the pages encode their rows.
#[derive(Debug, Clone, Default)]
pub struct PageDir {
    pub pages: Vec<(u32, u32, usize)>,
    pub codec: Arc<PageCodec>,
}

impl std::ops::Deref for PageDir {
    type Target = [(u32, u32, usize)];
    fn deref(&self) -> &Self::Target {
        &self.pages
    }
}

/// Reads a page directory of pages holding exactly `n_docs` documents, and
/// (format 9) their codec.
pub fn read_page_dir(r: &mut ByteReader<'_>, n_docs: u32, version: u32) -> Result<PageDir> {
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
    let mut codec = PageCodec::default();
    if version >= 9 {
        let n_keys = r.varint()? as usize;
        if n_keys > r.remaining() {
            return Err(r.corrupt("doc store row shape exceeds the blob"));
        }
        codec.tagged = true;
        for _ in 0..n_keys {
            codec.keys.push(r.short_bytes()?.to_vec());
        }
        codec.dict = r.short_bytes()?.to_vec();
        if codec.dict.len() > deflate::DICT_BYTES {
            return Err(r.corrupt("doc store page dictionary over 32 KiB"));
        }
    }
    Ok(PageDir {
        pages: dir,
        codec: Arc::new(codec),
    })
}

/// The stored bytes of the pages after the first, which took `first`
/// bytes of `first_raw` unpacked: rows rebuilt from their shape (format 9)
/// grow alike in every page, so the first page's ratio and 1/16 of slack,
/// but never more than twice the pages' raw bytes (what doubling could
/// leave: a first page of unusually small rows does not over-reserve
/// more). Reserved once, the store is not copied by ~20 doublings (at 1M
/// documents, 11 % of a native whole load, mostly in fresh pages).
fn stored_estimate(dir: &PageDir, first_raw: u32, first: usize) -> usize {
    let rest: u64 = dir.iter().skip(1).map(|p| u64::from(p.1)).sum();
    let estimate = rest * first as u64 / u64::from(first_raw.max(1));
    usize::try_from((estimate + estimate / 16).min(2 * rest)).unwrap_or(0)
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
    let layout = Layout {
        with_ids,
        codec: &dir.codec,
    };
    if ids.as_ref().is_some_and(|ids| ids.len() != n_docs) {
        return Err(r.corrupt("the doc store's ids do not match its pages"));
    }
    let mut ids = ids.unwrap_or_else(|| Ids::with_capacity(n_docs));
    let mut pages = Vec::with_capacity(if cache.is_some() { dir.len() } else { 0 });
    let (mut bytes, mut offsets) = (Vec::new(), Vec::with_capacity(n_docs + 1));
    offsets.push(0u32);
    let mut first_doc = 0;
    for (i, &(docs, raw_len, packed_len)) in dir.iter().enumerate() {
        let packed = r.take(packed_len)?;
        let page = unpack(packed, raw_len as usize, docs, layout, &mut |id| {
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
            if i == 0 {
                bytes.reserve(stored_estimate(&dir, raw_len, bytes.len()));
            }
        }
        first_doc += docs;
    }
    bytes.shrink_to_fit();
    let stored = match cache {
        Some(cache) => super::Stored::Packed(Arc::new(PackedPages {
            key: new_store_key(),
            pages,
            cache: cache.clone(),
            with_ids,
            codec: dir.codec.clone(),
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
        let dir = read_page_dir(&mut r, n_docs, crate::codec::blob::FORMAT_VERSION)?;
        let mut ids = Ids::default();
        (0..n_docs).for_each(|d| ids.push(&format!("doc-{d}")));
        let docs = read_pages(&mut r, dir, Some(ids), cache)?;
        assert!(r.is_at_end());
        Ok(docs)
    }

    #[test]
    fn a_whole_read_holds_its_stored_bytes_without_slack() {
        // Pages of rows rebuilt from their shape (longer than stored) and
        // rows of growing length: the first page's estimate is off both ways.
        for (n, len) in [(3000, 100), (400, 3000)] {
            let docs = store(n, len);
            let read = read(&written(&docs), n).unwrap();
            assert_eq!(read, docs);
            let super::super::Stored::Raw { bytes, .. } = &read.stored else {
                panic!("a read without a cache unpacks the pages");
            };
            assert_eq!(bytes.capacity(), bytes.len(), "{n} docs of {len}");
        }
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

    /// Rows of the segment's shape and of others (format 9 keeps those
    /// whole) read back exactly, packed or not, from any row on.
    #[test]
    fn rows_of_every_shape_round_trip() {
        let mut docs = DocStore::new();
        for d in 0..3000u32 {
            let row = match d % 5 {
                0 => format!(r#"{{"tags":["a","b{d}"],"text":"x"}}"#),
                1 => format!(r#"{{"n":{d}}}"#),
                _ => format!(
                    r#"{{"text":"row \"{d}\" {}","title":"t{d}"}}"#,
                    "y".repeat(d as usize % 90)
                ),
            };
            docs.push(format!("doc-{d}"), row.as_bytes());
        }
        let bytes = written(&docs);
        assert_eq!(read(&bytes, 3000).unwrap(), docs);
        let cache = PageCache::new(PAGE_BYTES);
        let packed = read_behind(&bytes, 3000, Some(&cache)).unwrap();
        for d in (0..3000).rev().step_by(3) {
            assert_eq!(*packed.stored_bytes(d), *docs.stored_bytes(d), "doc {d}");
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
