//! Snapshots: a whole committed index as one self-contained byte array (the
//! blobs a commit writes, framed as one blob of kind 4).

use crate::codec::blob::{self, BlobKind};
use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::storage::MemoryStorage;

use super::load::load;
use super::manifest::manifest_key;
use super::persist::PersistState;
use super::Index;

/// Name under which snapshots store the index.
const SNAPSHOT_NAME: &str = "snapshot";

impl Index {
    /// The whole index as bytes for [`Index::import_snapshot`].
    pub fn export_snapshot(&mut self) -> Vec<u8> {
        // Prepared from an empty base so every blob is included, and never
        // finished: exporting does not change what was committed where.
        let saved = std::mem::take(&mut self.persist);
        let plan = self.prepare_commit(SNAPSHOT_NAME);
        self.persist = saved;
        let mut w = ByteWriter::default();
        w.u64(plan.blobs.len() as u64 + 1);
        for (key, blob) in plan.blobs.iter() {
            w.str(key);
            w.bytes(blob);
        }
        w.str(&manifest_key(SNAPSHOT_NAME));
        w.bytes(&plan.manifest);
        blob::seal(BlobKind::Snapshot, &w.buf)
    }

    /// Rebuilds an index from [`Index::export_snapshot`] bytes.
    pub fn import_snapshot(bytes: &[u8]) -> Result<Index> {
        let key = "snapshot";
        let payload = blob::open(key, BlobKind::Snapshot, bytes)?;
        let mut r = ByteReader::new(key, payload);
        let storage = MemoryStorage::new();
        let n = r.len(16)?;
        for _ in 0..n {
            let k = r.str()?.to_string();
            let v = r.bytes()?.to_vec();
            storage.with_map(|m| m.insert(k, v));
        }
        let corrupt = |reason: &str| Error::Corrupt {
            key: key.to_string(),
            reason: reason.to_string(),
        };
        let loaded = crate::storage::run_ready(load(&storage, SNAPSHOT_NAME))
            .ok_or_else(|| corrupt("snapshot did not load synchronously"))??
            .ok_or_else(|| corrupt("snapshot has no manifest"))?;
        let mut index = Index::from_loaded(loaded, None)?;
        // A snapshot is not a commit of any storage: start uncommitted.
        index.persist = PersistState::default();
        Ok(index)
    }
}
