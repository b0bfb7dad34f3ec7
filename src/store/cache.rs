//! The bounded cache of unpacked doc store pages: an index opened with
//! `cacheBytes` keeps its stored fields packed ([`super::pages`]) and unpacks
//! a page when a read needs it, keeping at most `limit` bytes of unpacked
//! pages and evicting the least recently used first.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap as HashMap;

/// An unpacked page: its rows' bytes and, per document, where its stored
/// fields are in them.
#[derive(Debug)]
pub struct UnpackedPage {
    pub raw: Vec<u8>,
    /// `(start, end)` of each document's stored fields in `raw`.
    pub stored: Vec<(u32, u32)>,
}

impl UnpackedPage {
    fn bytes(&self) -> usize {
        self.raw.len() + self.stored.len() * 8 + 64
    }
}

/// What the cache holds and did, for `stats()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// The bound, in bytes of unpacked pages.
    pub limit: u64,
    /// Bytes of unpacked pages held now.
    pub bytes: u64,
    /// Reads answered from an unpacked page already held.
    pub hits: u64,
    /// Pages unpacked (each read that was not a hit).
    pub unpacks: u64,
}

impl crate::json::ToJson for CacheStats {
    fn write_json(&self, out: &mut String) {
        crate::json::Object::new(out)
            .field("limit", &self.limit)
            .field("bytes", &self.bytes)
            .field("hits", &self.hits)
            .field("unpacks", &self.unpacks)
            .end();
    }
}

/// A byte count option `what` (`cacheBytes`, `lazyAboveBytes`) given as a
/// JS number: a whole number of bytes a wasm32 `usize` holds.
pub fn byte_count(what: &str, value: f64) -> crate::error::Result<usize> {
    if value.fract() == 0.0 && (0.0..=u32::MAX as f64).contains(&value) {
        return Ok(value as usize);
    }
    Err(crate::error::Error::Usage {
        // No `{value}`: formatting an f64 links core's float printing (15 KB gz of wasm).
        reason: format!(
            "{what} must be a whole number of bytes from 0 to {}",
            u32::MAX
        ),
    })
}

/// (doc store, page) → unpacked page, shared by every segment of an index.
#[derive(Debug)]
pub struct PageCache {
    limit: usize,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    pages: HashMap<(u64, u32), (Arc<UnpackedPage>, u64)>,
    bytes: usize,
    clock: u64,
    hits: u64,
    unpacks: u64,
}

/// Identifies a packed doc store inside the shared cache.
static NEXT_STORE: AtomicU64 = AtomicU64::new(1);

pub(crate) fn new_store_key() -> u64 {
    NEXT_STORE.fetch_add(1, Ordering::Relaxed)
}

impl PageCache {
    pub fn new(limit: usize) -> Arc<PageCache> {
        Arc::new(PageCache {
            limit,
            state: Mutex::default(),
        })
    }

    pub fn stats(&self) -> CacheStats {
        let s = self.lock();
        CacheStats {
            limit: self.limit as u64,
            bytes: s.bytes as u64,
            hits: s.hits,
            unpacks: s.unpacks,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic cannot leave `State` inconsistent (every update is a few
        // plain assignments), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Page `page` of store `store` through row `row` at least, unpacked
    /// by `unpack` unless held that far (a page may be held unpacked only
    /// up to some row). The page is returned even when it alone exceeds the
    /// limit (then it is not kept).
    pub(crate) fn get(
        &self,
        store: u64,
        page: u32,
        row: usize,
        unpack: impl FnOnce() -> UnpackedPage,
    ) -> Arc<UnpackedPage> {
        let mut s = self.lock();
        s.clock += 1;
        let now = s.clock;
        if let Some((found, used)) = s.pages.get_mut(&(store, page)) {
            if found.stored.len() > row {
                *used = now;
                let found = found.clone();
                s.hits += 1;
                return found;
            }
        }
        s.unpacks += 1;
        drop(s);
        let unpacked = Arc::new(unpack());
        let size = unpacked.bytes();
        let mut s = self.lock();
        // A shorter unpacking of the same page gives way to this one.
        let shorter = s
            .pages
            .get(&(store, page))
            .map(|(held, _)| held.stored.len() < unpacked.stored.len());
        if shorter == Some(true) {
            if let Some((held, _)) = s.pages.remove(&(store, page)) {
                s.bytes -= held.bytes();
            }
        }
        if size <= self.limit && !s.pages.contains_key(&(store, page)) {
            while s.bytes + size > self.limit {
                let oldest = s
                    .pages
                    .iter()
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(k, _)| *k);
                let Some(oldest) = oldest else { break };
                if let Some((evicted, _)) = s.pages.remove(&oldest) {
                    s.bytes -= evicted.bytes();
                }
            }
            s.bytes += size;
            s.pages.insert((store, page), (unpacked.clone(), now));
        }
        unpacked
    }

    /// Drops the pages of a store that is gone (merged away or reloaded).
    pub(crate) fn forget(&self, store: u64) {
        let mut s = self.lock();
        let gone: Vec<(u64, u32)> = s.pages.keys().filter(|k| k.0 == store).copied().collect();
        for k in gone {
            if let Some((p, _)) = s.pages.remove(&k) {
                s.bytes -= p.bytes();
            }
        }
    }
}
