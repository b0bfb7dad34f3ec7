//! Async key-value storage: the only thing persistence needs from a backend.
//!
//! Storage knows bytes and keys, nothing else. Keys are `/`-separated ASCII
//! paths (`<index>/manifest`, `<index>/blob/<hash>`). Adapters: [`MemoryStorage`]
//! (tests), [`FsStorage`] (native), the JS adapters for IndexedDB, Workers KV
//! and Node's filesystem (bridged by `JsStorage` on wasm), and
//! [`FaultyStorage`] for crash tests. Every adapter must pass
//! [`conformance::run`].
//!
//! Futures are not required to be `Send`: IndexedDB and KV futures live on
//! one JS thread.

pub mod conformance;
mod faulty;
#[cfg(not(target_arch = "wasm32"))]
mod fs;
#[cfg(not(target_arch = "wasm32"))]
mod fs_lock;
#[cfg(target_arch = "wasm32")]
pub mod js;
mod memory;

pub use faulty::{FaultMode, FaultyStorage};
#[cfg(not(target_arch = "wasm32"))]
pub use fs::FsStorage;
pub use memory::MemoryStorage;

use crate::error::Result;

/// Bytes of a segment's body a commit gathers into one blob (a part, cut
/// by `index::serialize`; a unit larger than this is a part of its own): the
/// unit of a lazy fetch, chosen per storage ([`Storage::part_bytes`]). This
/// default suits a remote store that counts and bills each read (Workers
/// KV allows 1,000 operations per invocation): a 1M document segment stays
/// around a thousand blobs.
pub const PART_BYTES: usize = 128 * 1024;

/// Parts for a store whose reads cost bytes more than calls (memory, the
/// filesystem, IndexedDB): a lazy search reads whole parts for the shards
/// and pages it needs, and a part of this size holds one term shard (64
/// KiB) or a few doc store pages (16 KiB before deflate). At 1M `packages`
/// documents a query fetches 0.7 MB instead of 1.9, the next-100 p50 in
/// Chromium is 13.5 ms instead of 20.4; the index is 3,070 blobs instead of
/// 1,115, its manifest 240 KB instead of 86, and a whole open in Chromium
/// 15 % slower (bench/HISTORY.md).
pub const LOCAL_PART_BYTES: usize = 32 * 1024;

/// The part sizes a writer may choose: from a few doc store pages up to a
/// chunk's payload (`index::persist::CHUNK_PAYLOAD`, which checks it).
pub const PART_BYTES_RANGE: std::ops::RangeInclusive<usize> = 4096..=(4 << 20) - 64;

/// An async key-value store. `put` must be atomic per key (a reader sees the
/// old or the new value, never a mix), and every operation linearizable (a
/// `get` or `list` that starts after a `put` or `delete` resolved sees it):
/// the commit protocol (docs/FORMAT.md, "Commit protocol") relies on both.
#[allow(async_fn_in_trait)]
pub trait Storage {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>>;
    async fn put(&self, key: &str, value: &[u8]) -> Result<()>;
    /// Deleting a missing key is not an error.
    async fn delete(&self, key: &str) -> Result<()>;
    /// Keys starting with `prefix`, sorted.
    async fn list(&self, prefix: &str) -> Result<Vec<String>>;
    /// Compare-and-swap: stores `value` under `key` only if the current
    /// value is exactly `expected` (`None`: the key is absent), as one
    /// atomic step against every other `swap` of the key. Resolves to
    /// whether it stored. The commit point of the protocol: of two writers
    /// swapping from the same manifest, exactly one wins.
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool>;
    /// Bytes a commit gathers into one blob of a segment's body (a part,
    /// the unit of a lazy fetch): [`PART_BYTES`] unless the store reads
    /// bytes cheaper than calls ([`LOCAL_PART_BYTES`]). Within
    /// [`PART_BYTES_RANGE`]; indexes of any part size read everywhere.
    fn part_bytes(&self) -> usize {
        PART_BYTES
    }
    /// `get` of each key, in order: one at a time unless the adapter can
    /// read several at once (the JS adapters: all requests in flight
    /// together). The first error fails the whole call.
    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        let mut out = Vec::with_capacity(keys.len());
        for key in keys {
            out.push(self.get(key).await?);
        }
        Ok(out)
    }
}

impl<S: Storage> Storage for &S {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        (**self).get(key).await
    }
    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        (**self).put(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<()> {
        (**self).delete(key).await
    }
    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        (**self).list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        (**self).swap(key, expected, value).await
    }
    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        (**self).get_many(keys).await
    }
    fn part_bytes(&self) -> usize {
        (**self).part_bytes()
    }
}

/// Runs a future that never waits (memory storage) to completion without an
/// executor; `None` if it would block.
pub fn run_ready<F: std::future::Future>(future: F) -> Option<F::Output> {
    let mut future = std::pin::pin!(future);
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match future.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(v) => Some(v),
        std::task::Poll::Pending => None,
    }
}
