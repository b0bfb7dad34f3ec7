//! Opening a persisted index: the reader side of the commit protocol.
//!
//! A reader reads the manifest, then the blobs it references, checking
//! each against the content hash in its key. A committing writer may
//! collect those blobs in between (they were dropped by its newer
//! manifest), so a missing blob is `CORRUPT` only if the manifest did not
//! change meanwhile; otherwise the load starts over from the new one.
//!
//! No manifest is an empty index only when there are no blobs either
//! (blobs of a commit still pending aside): blobs without a manifest are a
//! lost manifest, reported as `CORRUPT` (see `recover.rs`), never read as
//! an empty index whose first commit would collect them.

use std::sync::Arc;

use crate::codec::blob::{self, BlobKind};
use crate::error::{Error, Result};
use crate::schema::{FieldDef, IndexConfig, ResolvedSchema, SchemaRequest};
use crate::storage::Storage;
use crate::store::PageCache;

use super::deletes::DeleteSet;
use super::id_map::Places;
use super::manifest::{
    blob_prefix, manifest_key, parse_blob_key, parse_manifest, pending_prefix, verify_blob,
    Manifest, SegmentRecord,
};
use super::merge::FieldMoves;
use super::persist::{decode_deletes, PersistState};
use super::segment::Segment;
use super::serialize::read_segment;
use super::upgrade::relay_segment;
use super::{Index, SegmentEntry};

/// Loads tried before giving up on a manifest that keeps changing.
pub(crate) const LOAD_ATTEMPTS: usize = 8;

/// A committed state read from storage, ready to become an [`Index`].
pub struct LoadedIndex {
    manifest: Manifest,
    manifest_bytes: Arc<[u8]>,
    segments: Vec<(SegmentRecord, Segment, DeleteSet)>,
    /// The page cache the segments' stored fields were read packed behind.
    pub(crate) doc_cache: Option<Arc<PageCache>>,
    /// Read from the heads only (src/index/lazy): no id map is built.
    pub(crate) lazy: bool,
}

impl LoadedIndex {
    /// The configuration stored with the index.
    pub fn config(&self) -> &IndexConfig {
        &self.manifest.config
    }
}

/// Why one attempt at loading failed.
pub(crate) enum Attempt {
    /// A referenced blob is gone: maybe collected by a newer commit.
    Missing(Error),
    Failed(Error),
}

impl From<Error> for Attempt {
    fn from(e: Error) -> Self {
        Attempt::Failed(e)
    }
}

/// Reads the committed state under `name` (`None` if nothing is stored).
pub async fn load<S: Storage>(storage: &S, name: &str) -> Result<Option<LoadedIndex>> {
    load_with(storage, name, None).await
}

/// [`load`], keeping stored fields packed behind a page cache of at most
/// `cache_bytes` bytes when given (`cacheBytes`; see [`Index::set_doc_cache`]).
pub async fn load_with<S: Storage>(
    storage: &S,
    name: &str,
    cache_bytes: Option<usize>,
) -> Result<Option<LoadedIndex>> {
    let cache = cache_bytes.map(PageCache::new);
    let cache = cache.as_ref();
    from_manifest(storage, name, |mkey, bytes| async move {
        load_manifest(storage, &mkey, bytes, cache).await
    })
    .await
}

/// Reads the manifest of `name` and `read`s the index from it, starting
/// over when a blob it needs is gone because a newer commit replaced the
/// manifest meanwhile (up to [`LOAD_ATTEMPTS`] times). `None` when nothing
/// is stored; blobs without a manifest are a lost manifest (`CORRUPT`).
pub(crate) async fn from_manifest<S, T, F, Fut>(
    storage: &S,
    name: &str,
    mut read: F,
) -> Result<Option<T>>
where
    S: Storage,
    F: FnMut(String, Vec<u8>) -> Fut,
    Fut: std::future::Future<Output = Result<T, Attempt>>,
{
    let mkey = manifest_key(name);
    for _ in 0..LOAD_ATTEMPTS {
        let Some(bytes) = storage.get(&mkey).await? else {
            if check_no_orphans(storage, name).await? {
                return Ok(None);
            }
            continue; // a first commit stored its manifest meanwhile
        };
        match read(mkey.clone(), bytes.clone()).await {
            Ok(loaded) => return Ok(Some(loaded)),
            Err(Attempt::Failed(e)) => return Err(e),
            Err(Attempt::Missing(e)) => {
                if storage.get(&mkey).await?.as_deref() == Some(&bytes[..]) {
                    return Err(e);
                }
            }
        }
    }
    Err(Error::Storage {
        key: mkey,
        reason: format!(
            "the index was committed to {LOAD_ATTEMPTS} times while it was read; open it again"
        ),
        adapter_reason: None,
    })
}

/// Whether the manifest stored under `name` is exactly `base` (the one an
/// index loaded or last committed): if not, another writer committed since
/// and a commit from `base` would be refused.
pub async fn is_current<S: Storage>(storage: &S, name: &str, base: Option<&[u8]>) -> Result<bool> {
    Ok(storage.get(&manifest_key(name)).await?.as_deref() == base)
}

/// `CORRUPT` if blobs of `name` exist without a manifest (a lost manifest),
/// not counting those of a commit in progress (the first commit of a new
/// index, or one that crashed before its manifest). `Ok(false)` when a
/// manifest appeared meanwhile (load again). Blobs are listed before the
/// markers, as garbage collection does: a blob listed was written after its
/// commit's marker, which is gone only once that commit stored (or lost)
/// its manifest, so the manifest read last tells the two apart.
async fn check_no_orphans<S: Storage>(storage: &S, name: &str) -> Result<bool> {
    let pending = pending_prefix(name);
    let blobs = storage.list(&blob_prefix(name)).await?;
    let markers = storage.list(&pending).await?;
    let orphans = blobs
        .into_iter()
        .filter(|key| {
            let commit = parse_blob_key(key).and_then(|n| n.commit);
            !commit.is_some_and(|c| markers.iter().any(|m| m[pending.len()..] == *c))
        })
        .count();
    if orphans == 0 {
        return Ok(true);
    }
    if storage.get(&manifest_key(name)).await?.is_some() {
        return Ok(false);
    }
    Err(Error::Corrupt {
        key: manifest_key(name),
        reason: format!(
            "the manifest is missing but {orphans} blobs of index `{name}` exist (a lost manifest, not an empty index); \
             rebuild a manifest from them with Memdex.recover() (`memdex recover` natively), or delete them to start over"
        ),
    })
}

pub(crate) async fn get_blob<S: Storage>(
    storage: &S,
    key: &str,
    what: &str,
) -> Result<Vec<u8>, Attempt> {
    let blob = storage.get(key).await?.ok_or_else(|| {
        Attempt::Missing(Error::Corrupt {
            key: key.to_string(),
            reason: format!("{what} referenced by the manifest is missing"),
        })
    })?;
    verify_blob(key, &blob)?;
    Ok(blob)
}

/// [`get_blob`] of every key, read together (see [`Storage::get_many`]).
pub(crate) async fn get_blobs<S: Storage>(
    storage: &S,
    keys: &[String],
    what: &str,
) -> Result<Vec<Vec<u8>>, Attempt> {
    let mut out = Vec::with_capacity(keys.len());
    for (key, blob) in keys.iter().zip(storage.get_many(keys).await?) {
        let blob = blob.ok_or_else(|| {
            Attempt::Missing(Error::Corrupt {
                key: key.to_string(),
                reason: format!("{what} referenced by the manifest is missing"),
            })
        })?;
        verify_blob(key, &blob)?;
        out.push(blob);
    }
    Ok(out)
}

/// Appends the chunks `keys` of one segment to `data`, asking for several
/// at once ([`Storage::get_many`]): enough requests in flight to hide a
/// store's cost per call (a file's open and close, an IndexedDB request),
/// few enough bytes to be nothing beside the segment they build. The
/// chunks' own size sets how many: the first is read alone, then each
/// window at most doubles, up to 512 KiB of the largest chunk of the
/// window before (at most 16): 16 parts of 32 KiB, 4 of 128 KiB, one or
/// two of the multi-MiB chunks of formats before 6 and of large heads.
/// A segment's parts are alike in size after its head chunks, so at most
/// twice the largest chunk, or about 512 KiB, is asked at once. Returns
/// the bytes read.
pub(crate) async fn append_chunks<S: Storage>(
    storage: &S,
    data: &mut SegmentData,
    keys: &[String],
) -> Result<u64, Attempt> {
    const BYTES: usize = 512 << 10;
    let (mut at, mut window, mut read) = (0, 1, 0u64);
    while at < keys.len() {
        let batch = &keys[at..(at + window).min(keys.len())];
        let mut largest = 1;
        for (key, blob) in batch.iter().zip(get_blobs(storage, batch, "blob").await?) {
            largest = largest.max(blob.len());
            read += blob.len() as u64;
            data.append(key, &blob)?;
        }
        at += batch.len();
        window = (window * 2).min(BYTES / largest).clamp(1, 16);
    }
    Ok(read)
}

async fn load_manifest<S: Storage>(
    storage: &S,
    mkey: &str,
    bytes: Vec<u8>,
    cache: Option<&Arc<PageCache>>,
) -> Result<LoadedIndex, Attempt> {
    let manifest = parse_manifest(mkey, &bytes)?;
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for record in &manifest.segments {
        let mut data = SegmentData::default();
        append_chunks(storage, &mut data, &record.chunks).await?;
        let deletes = match &record.deletes {
            None => None,
            Some(key) => Some(get_blob(storage, key, "tombstone blob").await?),
        };
        segments.push(data.finish(mkey, record, deletes.as_deref(), cache)?);
    }
    let mut loaded = LoadedIndex::from_parts(manifest, bytes, segments);
    loaded.doc_cache = cache.cloned();
    Ok(loaded)
}

/// One segment's chunk payloads as they are read, in order. The steps
/// between the reads are plain functions, shared by every storage type's
/// load and by snapshot import (an async loader instantiated per storage
/// type would otherwise carry its own copy of them).
#[derive(Default)]
pub(crate) struct SegmentData {
    data: Vec<u8>,
    /// Chunks of one segment share the version of the build that wrote it
    /// (older segments stay as written until merged away).
    version: Option<u32>,
}

impl SegmentData {
    /// Appends the payload of chunk blob `key`, whose content hash the
    /// caller verified (so its CRC is not computed again).
    pub(crate) fn append(&mut self, key: &str, blob: &[u8]) -> Result<()> {
        let (v, payload) = blob::open_addressed(key, BlobKind::SegmentChunk, blob)?;
        if *self.version.get_or_insert(v) != v {
            return Err(Error::Corrupt {
                key: key.to_string(),
                reason: "segment chunks of different format versions".into(),
            });
        }
        self.data.extend_from_slice(payload);
        Ok(())
    }

    /// The segment of `record` with its tombstones (`deletes`: the verified
    /// blob `record.deletes` names).
    pub(crate) fn finish(
        self,
        mkey: &str,
        record: &SegmentRecord,
        deletes: Option<&[u8]>,
        cache: Option<&Arc<PageCache>>,
    ) -> Result<(SegmentRecord, Segment, DeleteSet)> {
        let first = record
            .chunks
            .first()
            .cloned()
            .unwrap_or_else(|| mkey.to_string());
        let version = self.version.unwrap_or(blob::FORMAT_VERSION);
        let segment = read_segment(&first, &self.data, version, cache)?;
        if segment.n_docs != record.docs {
            return Err(Error::Corrupt {
                key: first,
                reason: "segment size differs from the manifest".into(),
            });
        }
        let deletes = match (&record.deletes, deletes) {
            (Some(key), Some(blob)) => decode_deletes(key, blob, segment.n_docs)?,
            _ => DeleteSet::default(),
        };
        Ok((record.clone(), segment, deletes))
    }
}

impl LoadedIndex {
    /// Assembles a loaded state from parts (recovery builds one).
    pub(crate) fn from_parts(
        manifest: Manifest,
        manifest_bytes: Vec<u8>,
        segments: Vec<(SegmentRecord, Segment, DeleteSet)>,
    ) -> LoadedIndex {
        LoadedIndex {
            manifest,
            manifest_bytes: Arc::from(manifest_bytes),
            segments,
            doc_cache: None,
            lazy: false,
        }
    }
}

impl Index {
    /// The stored manifest this index is based on (`None`: nothing stored).
    pub fn base_manifest(&self) -> Option<Arc<[u8]>> {
        self.persist.manifest.clone()
    }

    /// Makes the next commit replace `base`'s last commit: it will expect
    /// `base`'s manifest (one swap, as any commit) and write every segment
    /// of this index. Call it before writing, so that new segments are
    /// numbered after `base`'s. How a rebuilt index takes the place of the
    /// one it was built from (`Memdex.migrate`).
    pub fn rebase(&mut self, base: &Index) {
        self.persist = PersistState {
            generation: base.persist.generation,
            commit: base.persist.commit.clone(),
            manifest: base.persist.manifest.clone(),
            records: Vec::new(),
        };
        self.next_segment_id = self.next_segment_id.max(base.next_segment_id);
    }

    /// Opens the index stored under `name`, or creates an empty one with
    /// `config` (default schema if `None`) when nothing is stored.
    pub async fn open<S: Storage>(
        storage: &S,
        name: &str,
        config: Option<IndexConfig>,
    ) -> Result<Index> {
        match load(storage, name).await? {
            Some(loaded) => Index::from_loaded(loaded, config.as_ref()),
            None => Index::new(config.unwrap_or_default()),
        }
    }

    /// Replaces this index's state with the last committed one (picks up
    /// other writers' commits). Uncommitted writes are discarded.
    pub async fn reload<S: Storage>(&mut self, storage: &S, name: &str) -> Result<()> {
        let fresh = match load(storage, name).await? {
            Some(loaded) => Index::from_loaded(loaded, None)?,
            None => Index::new(self.config().clone())?,
        };
        *self = fresh;
        Ok(())
    }

    /// Builds an index from a loaded committed state; `config`, when
    /// given, is asked for whole ([`SchemaRequest::whole`]).
    pub fn from_loaded(loaded: LoadedIndex, config: Option<&IndexConfig>) -> Result<Index> {
        Index::from_loaded_as(loaded, config.map(SchemaRequest::whole).as_ref())
    }

    /// Builds an index from a loaded committed state, upgrading its schema
    /// to what `request` asks when that applies in place (a change that
    /// does not is a `SCHEMA` error: see `IndexConfig::upgraded`). The
    /// upgraded schema is stored by the next commit.
    pub fn from_loaded_as(loaded: LoadedIndex, request: Option<&SchemaRequest>) -> Result<Index> {
        let manifest = loaded.manifest;
        let map_ids = !loaded.lazy;
        let upgraded = match request {
            Some(r) => manifest.config.upgraded(r)?,
            None => None,
        };
        let mut index = Index::new(upgraded.clone().unwrap_or_else(|| manifest.config.clone()))?;
        index.doc_cache = loaded.doc_cache;
        index.ids_mapped = map_ids;
        let moves = match upgraded {
            Some(_) => FieldMoves::between(&ResolvedSchema::new(&manifest.config)?, &index.schema),
            None => None,
        };
        let n_fields = manifest
            .config
            .fields
            .values()
            .filter(|d| matches!(d, FieldDef::Text { .. }))
            .count();
        let mut records: Vec<(u64, Vec<String>, Option<String>)> = Vec::new();
        if map_ids {
            // Sized once: growing by rehashes moved every entry ~20 times
            // (at 1M documents, 14 % of a native whole load).
            let docs = loaded.segments.iter().map(|s| s.1.n_docs as usize);
            index.ids.reserve(docs.sum());
        }
        for (record, segment, deletes) in loaded.segments {
            if segment.n_fields != n_fields {
                return Err(Error::Corrupt {
                    key: record.chunks.first().cloned().unwrap_or_default(),
                    reason: "segment has a different number of text fields than the schema".into(),
                });
            }
            // A repeated id replaces the earlier record (as a map insert did).
            records.retain(|r| r.0 != record.id);
            let segment = match &moves {
                Some(m) => relay_segment(&segment, m, &index.schema),
                None => {
                    records.push((record.id, record.chunks, record.deletes));
                    segment
                }
            };
            index.adopt_segment(record.id, Arc::new(segment), deletes, map_ids);
        }
        index.next_segment_id = manifest.next_segment_id.max(index.next_segment_id);
        index.persist = PersistState {
            generation: manifest.generation,
            commit: manifest.commit.clone(),
            manifest: Some(loaded.manifest_bytes),
            records,
        };
        Ok(index)
    }

    /// Adds a loaded segment with its tombstones, updating ids and stats.
    /// `map_ids`: add the segment's ids to the id map (a lazy index, which
    /// finds documents only by search, has none).
    fn adopt_segment(&mut self, id: u64, segment: Arc<Segment>, deletes: DeleteSet, map_ids: bool) {
        let n_fields = self.schema.text.len();
        for doc in 0..segment.n_docs {
            if deletes.contains(doc) {
                continue;
            }
            self.live_docs += 1;
            for f in 0..n_fields {
                self.live_field_len[f] += segment.field_len(doc, f) as u64;
            }
            if !map_ids {
                continue;
            }
            let at = Places {
                buffered: self.buffer.docs(),
                segments: &self.segments,
                adopting: Some((id, &segment.docs)),
            };
            let addr = super::DocAddr { segment: id, doc };
            // A later segment holding the same id wins (cannot happen with a
            // consistent manifest; keeps stats exact if it does).
            if let Some(earlier) = self.ids.insert(segment.docs.id(doc), addr, &at) {
                self.tombstone(earlier);
            }
        }
        self.next_segment_id = self.next_segment_id.max(id + 1);
        self.segments.push(SegmentEntry {
            id,
            segment,
            deletes,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::manifest::Manifest;

    /// A segment of `docs` (id, text), written alone.
    fn segment(docs: &[(&str, &str)]) -> Segment {
        let mut index = Index::new(IndexConfig::default()).unwrap();
        for (id, text) in docs {
            let doc = crate::json::parse(&format!(r#"{{"id":"{id}","text":"{text}"}}"#)).unwrap();
            index.add(&doc).unwrap();
        }
        index.flush();
        let entry = index.segments.pop().unwrap();
        Arc::try_unwrap(entry.segment).unwrap_or_else(|s| (*s).clone())
    }

    #[test]
    fn a_later_segment_holding_an_id_wins_and_the_statistics_stay_exact() {
        let record = |id| SegmentRecord {
            id,
            docs: 0,
            chunks: Vec::new(),
            deletes: None,
        };
        let manifest = Manifest {
            generation: 1,
            commit: None,
            config: IndexConfig::default(),
            next_segment_id: 2,
            segments: vec![record(0), record(1)],
        };
        let segments = vec![
            (
                record(0),
                segment(&[("x", "old words here"), ("y", "kept")]),
                DeleteSet::default(),
            ),
            (record(1), segment(&[("x", "new")]), DeleteSet::default()),
        ];
        let loaded = LoadedIndex::from_parts(manifest, Vec::new(), segments);
        let index = Index::from_loaded(loaded, None).unwrap();
        assert_eq!(index.len(), 2);
        let searcher = index.snapshot();
        assert!(searcher.get_json("x").unwrap().contains("\"new\""));
        // The earlier copy is a tombstone: its words count nowhere.
        assert_eq!(index.live_field_len.iter().sum::<u64>(), 2);
        assert_eq!(index.segments[0].deletes.len(), 1);
    }
}
