//! Stored fields of a lazily opened segment: the page directory and the
//! ids are held, a page's packed bytes only once fetched. A read of a page
//! not held reads empty and is recorded; the lazy index fetches what was
//! asked for and searches again (src/index/lazy).

use std::sync::{Arc, Mutex};

use super::cache::{new_store_key, PageCache, UnpackedPage};
use super::pages::{unpack_prefix, Layout, PageDir};
use super::rows::PageCodec;

#[derive(Debug)]
pub(super) struct LazyPages {
    key: u64,
    /// Per page: first doc, docs, unpacked bytes.
    pages: Vec<(u32, u32, u32)>,
    codec: Arc<PageCodec>,
    packed: Mutex<Vec<Option<Arc<[u8]>>>>,
    /// Pages asked for: `(page, held)`.
    asked: Mutex<Vec<(u32, bool)>>,
    /// A held page that did not unpack to its rows (checked as it is read:
    /// unpacking every page when it arrives would double the work).
    damaged: Mutex<Option<u32>>,
    cache: Arc<PageCache>,
}

impl Drop for LazyPages {
    fn drop(&mut self) {
        self.cache.forget(self.key);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl LazyPages {
    pub(super) fn new(dir: &PageDir, cache: Arc<PageCache>) -> LazyPages {
        let mut first = 0;
        let pages = dir
            .iter()
            .map(|&(docs, raw_len, _)| {
                first += docs;
                (first - docs, docs, raw_len)
            })
            .collect::<Vec<_>>();
        LazyPages {
            key: new_store_key(),
            packed: Mutex::new(vec![None; pages.len()]),
            pages,
            codec: dir.codec.clone(),
            asked: Mutex::default(),
            damaged: Mutex::default(),
            cache,
        }
    }

    pub(super) fn stored(&self, doc: u32) -> Option<(Arc<UnpackedPage>, usize)> {
        let i = self.pages.partition_point(|p| p.0 + p.1 <= doc);
        let &(first, n_docs, raw_len) = self.pages.get(i).filter(|p| p.0 <= doc)?;
        let packed = lock(&self.packed).get(i).cloned().flatten();
        let mut asked = lock(&self.asked);
        if !asked.contains(&(i as u32, packed.is_some())) {
            asked.push((i as u32, packed.is_some()));
        }
        drop(asked);
        let packed = packed?;
        let row = (doc - first) as usize;
        let mut failed = false;
        let page = self.cache.get(self.key, i as u32, row, || {
            let layout = Layout {
                with_ids: false,
                codec: &self.codec,
            };
            unpack_prefix(&packed, (raw_len, n_docs), row, layout).unwrap_or_else(|| {
                failed = true;
                // No rows: never taken for a hit, and next to nothing held.
                UnpackedPage {
                    raw: Vec::new(),
                    stored: Vec::new(),
                }
            })
        });
        if failed || page.stored.len() <= row {
            *lock(&self.damaged) = Some(i as u32);
            return None;
        }
        Some((page, row))
    }

    /// Holds page `i`'s packed bytes (checked as rows are read from them).
    pub(super) fn provide(&self, i: u32, packed: &[u8]) -> Result<(), &'static str> {
        let &(_, _, raw_len) = self.pages.get(i as usize).ok_or("no such page")?;
        if raw_len as u64 > packed.len() as u64 * super::deflate::MAX_EXPANSION {
            return Err("a doc store page claims more than deflate can expand to");
        }
        lock(&self.packed)[i as usize] = Some(Arc::from(packed));
        Ok(())
    }

    /// A page found damaged since the last call (dropped: it is fetched
    /// again when next read).
    pub(super) fn take_damaged(&self) -> Option<u32> {
        let page = lock(&self.damaged).take()?;
        self.release(page);
        Some(page)
    }

    pub(super) fn release(&self, i: u32) {
        if let Some(slot) = lock(&self.packed).get_mut(i as usize) {
            *slot = None;
        }
    }

    pub(super) fn take_asked(&self) -> Vec<(u32, bool)> {
        std::mem::take(&mut *lock(&self.asked))
    }

    pub(super) fn packed_bytes(&self) -> usize {
        lock(&self.packed)
            .iter()
            .flatten()
            .map(|p| p.len())
            .sum::<usize>()
            + self.pages.len() * 12
            + self.codec.dict.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::bytes::{ByteReader, ByteWriter};
    use crate::store::{read_page_dir, write_pages, DocStore};

    /// Pages read back from what was provided; a page whose bytes do not
    /// unpack to its rows reads empty, is reported once, and is dropped.
    #[test]
    fn provided_pages_read_back_and_damage_is_reported() {
        let mut docs = DocStore::new();
        for d in 0..3000u32 {
            docs.push(
                format!("d{d}"),
                format!("{{\"text\":\"row {d} {}\"}}", "x".repeat(d as usize % 300)).as_bytes(),
            );
        }
        let (mut dir, mut body, mut ends) = (ByteWriter::default(), ByteWriter::default(), vec![0]);
        write_pages(&mut dir, &mut body, &docs, &mut |end| ends.push(end));
        let version = crate::codec::blob::FORMAT_VERSION;
        let dir = read_page_dir(&mut ByteReader::new("k", &dir.buf), 3000, version).unwrap();
        assert!(dir.len() > 2);
        let ids = docs.ids().clone();
        let lazy = DocStore::lazy(ids, &dir, PageCache::new(1 << 20));
        assert_eq!(lazy.stored_bytes(5).len(), 0, "not provided yet");
        assert_eq!(lazy.take_asked_pages(), vec![(0, false)]);
        // Page 1 arrives damaged (half its bytes), the others whole.
        for (i, w) in ends.windows(2).enumerate() {
            let bytes = &body.buf[w[0]..w[1]];
            let bytes = if i == 1 {
                &bytes[..bytes.len() / 2]
            } else {
                bytes
            };
            lazy.provide_page(i as u32, bytes).unwrap();
        }
        let page_1 = dir[0].0..dir[0].0 + dir[1].0;
        for d in (0..3000).step_by(7).filter(|d| !page_1.contains(d)) {
            assert_eq!(*lazy.stored_bytes(d), *docs.stored_bytes(d));
        }
        assert_eq!(lazy.take_damaged_page(), None);
        assert_eq!(lazy.stored_bytes(page_1.end - 1).len(), 0, "past the cut");
        assert_eq!(lazy.take_damaged_page(), Some(1));
        assert_eq!(lazy.take_damaged_page(), None);
        assert_eq!(
            lazy.stored_bytes(page_1.start).len(),
            0,
            "dropped: asked for again"
        );
        assert!(lazy.take_asked_pages().contains(&(1, false)));
    }
}
