//! Stored fields of a lazily opened segment: the page directory and the
//! ids are held, a page's packed bytes only once fetched. A read of a page
//! not held reads empty and is recorded; the lazy index fetches what was
//! asked for and searches again (src/index/lazy).

use std::sync::{Arc, Mutex};

use super::cache::{new_store_key, PageCache, UnpackedPage};
use super::pages::{unpack, unpack_prefix, PageDir};

#[derive(Debug)]
pub(super) struct LazyPages {
    key: u64,
    /// Per page: first doc, docs, unpacked bytes.
    pages: Vec<(u32, u32, u32)>,
    packed: Mutex<Vec<Option<Arc<[u8]>>>>,
    /// Pages asked for: `(page, held)`.
    asked: Mutex<Vec<(u32, bool)>>,
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
            asked: Mutex::default(),
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
        let page = self.cache.get(self.key, i as u32, row, || {
            // Checked whole when provided: only a bug makes this fail.
            unpack_prefix(&packed, (raw_len, n_docs), row, false).unwrap_or(UnpackedPage {
                raw: Vec::new(),
                stored: vec![(0, 0); n_docs as usize],
            })
        });
        Some((page, row))
    }

    /// Holds page `i`'s packed bytes, once they unpack to exactly its rows.
    pub(super) fn provide(&self, i: u32, packed: &[u8]) -> Result<(), &'static str> {
        let &(_, n_docs, raw_len) = self.pages.get(i as usize).ok_or("no such page")?;
        unpack(packed, raw_len as usize, n_docs, false, &mut |_| {})
            .ok_or("a doc store page does not unpack to its rows")?;
        lock(&self.packed)[i as usize] = Some(Arc::from(packed));
        Ok(())
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
    }
}
