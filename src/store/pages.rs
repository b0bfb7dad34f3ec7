//! The doc store's pages (format 5): documents in order, grouped into pages
//! of about [`PAGE_BYTES`] and each page deflate-compressed on its own, so
//! that one page can be fetched and decoded without the others.
//!
//! Layout (docs/FORMAT.md "Segment", item 8): `varint n_pages`, per page
//! `varint n_docs`, `varint raw_len`, `varint packed_len`, then the pages'
//! packed bytes in order. A page unpacks to `n_docs` rows of `short id`,
//! `short stored` (format 4's doc store rows).

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;

use super::DocStore;

/// Raw bytes a page holds before it is closed: deflate's 32 KiB window sees
/// the whole of the previous page-half, and the page stays small enough to
/// fetch and unpack per hit. Measured on the packages corpus (bench/segments
/// /parts.rs): 16 KiB pages pack to 53 % of the text held, 64 KiB to 49 %.
pub const PAGE_BYTES: usize = 64 * 1024;

/// Deflate level: 4 packs within 1 % of level 9 at twice its speed
/// (measured over 64 KiB pages of the packages corpus: 65 against 27 MB/s).
const LEVEL: u8 = 4;

/// Deflate cannot expand more than 1032 to 1: a page claiming more is
/// damaged, and refusing it bounds what a crafted blob can make us allocate.
const MAX_EXPANSION: u64 = 1032;

/// Appends `docs` as pages.
pub fn write_pages(w: &mut ByteWriter, docs: &DocStore) {
    let mut dir = Vec::new();
    let mut packed = Vec::new();
    let mut raw = ByteWriter::default();
    let mut in_page = 0u32;
    let n = docs.len() as u32;
    for d in 0..n {
        raw.short_bytes(docs.id(d).as_bytes());
        raw.short_bytes(docs.stored_bytes(d));
        in_page += 1;
        if raw.buf.len() >= PAGE_BYTES || d + 1 == n {
            let page = miniz_oxide::deflate::compress_to_vec(&raw.buf, LEVEL);
            dir.push((in_page, raw.buf.len() as u32, page.len() as u32));
            packed.extend_from_slice(&page);
            raw.buf.clear();
            in_page = 0;
        }
    }
    w.varint(dir.len() as u32);
    for (docs, raw_len, packed_len) in dir {
        w.varint(docs);
        w.varint(raw_len);
        w.varint(packed_len);
    }
    w.buf.extend_from_slice(&packed);
}

/// Reads [`write_pages`]' output holding exactly `n_docs` documents.
pub fn read_pages(r: &mut ByteReader<'_>, n_docs: u32) -> Result<DocStore> {
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
        dir.push((docs, raw_len as usize, packed_len as usize));
    }
    if total != n_docs as u64 {
        return Err(r.corrupt("doc store pages do not match the document count"));
    }
    let mut store = DocStore::new();
    for (i, (docs, raw_len, packed_len)) in dir.into_iter().enumerate() {
        let packed = r.take(packed_len)?;
        let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(packed, raw_len)
            .ok()
            .filter(|raw| raw.len() == raw_len)
            .ok_or_else(|| r.corrupt(format!("doc store page {i} does not unpack")))?;
        let mut rows = ByteReader::new(r.key(), &raw);
        for _ in 0..docs {
            let id = rows.short_str()?;
            store.push(id.to_string(), rows.short_bytes()?);
        }
        if !rows.is_at_end() {
            return Err(r.corrupt(format!("doc store page {i} has trailing bytes")));
        }
    }
    Ok(store)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    fn store(n: u32, stored_len: usize) -> DocStore {
        let mut s = DocStore::new();
        for d in 0..n {
            let text = format!("{{\"text\":\"{}\"}}", "memory ".repeat(stored_len / 7) + &d.to_string());
            s.push(format!("doc-{d}"), text.as_bytes());
        }
        s
    }

    fn written(docs: &DocStore) -> Vec<u8> {
        let mut w = ByteWriter::default();
        write_pages(&mut w, docs);
        w.buf
    }

    fn read(bytes: &[u8], n_docs: u32) -> Result<DocStore> {
        let mut r = ByteReader::new("k", bytes);
        let docs = read_pages(&mut r, n_docs)?;
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
            assert!(pages <= raw / PAGE_BYTES + 1, "{pages} pages for {raw} bytes");
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
}
