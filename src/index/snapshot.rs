//! Snapshots: a whole committed index as one self-contained byte array (the
//! blobs a commit writes, framed as one blob of kind 4).

use crate::codec::blob::{self, BlobKind};
use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::FieldMap;

use super::load::{LoadedIndex, SegmentData};
use super::manifest::{manifest_key, parse_manifest, verify_blob};
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

    /// Rebuilds an index from [`Index::export_snapshot`] bytes: the
    /// manifest and blobs it holds, read as [`load`](super::load) reads
    /// storage (blobs checked against their keys' hashes), synchronously.
    pub fn import_snapshot(bytes: &[u8]) -> Result<Index> {
        let key = "snapshot";
        let corrupt = |reason: String| Error::Corrupt {
            key: key.to_string(),
            reason,
        };
        let payload = blob::open(key, BlobKind::Snapshot, bytes)?;
        let mut r = ByteReader::new(key, payload);
        let mut blobs: FieldMap<&[u8]> = FieldMap::new();
        for _ in 0..r.len(16)? {
            let k = r.str()?.to_string();
            blobs.insert(k, r.bytes()?);
        }
        let mkey = manifest_key(SNAPSHOT_NAME);
        let manifest_bytes = *blobs
            .get(&mkey)
            .ok_or_else(|| corrupt("snapshot has no manifest".into()))?;
        let blob = |k: &str, what: &str| -> Result<&[u8]> {
            let b = *blobs.get(k).ok_or_else(|| {
                corrupt(format!(
                    "{what} `{k}` referenced by the manifest is missing"
                ))
            })?;
            verify_blob(k, b)?;
            Ok(b)
        };
        let manifest = parse_manifest(&mkey, manifest_bytes)?;
        let mut segments = Vec::with_capacity(manifest.segments.len());
        for record in &manifest.segments {
            let mut data = SegmentData::default();
            for k in &record.chunks {
                data.append(k, blob(k, "blob")?)?;
            }
            let deletes = match &record.deletes {
                Some(k) => Some(blob(k, "tombstone blob")?),
                None => None,
            };
            segments.push(data.finish(&mkey, record, deletes, None)?);
        }
        let loaded = LoadedIndex::from_parts(manifest, manifest_bytes.to_vec(), segments);
        let mut index = Index::from_loaded(loaded, None)?;
        // A snapshot is not a commit of any storage: start uncommitted.
        index.persist = PersistState::default();
        Ok(index)
    }
}
