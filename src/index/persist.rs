//! Persistence: commits and reopening over an async [`Storage`].
//!
//! Layout under an index `name`:
//! - `name/blob/<xxh3-128 hex>`: immutable, content-addressed blobs — segment
//!   chunks (a serialized segment split into pieces of at most
//!   [`MAX_CHUNK_BYTES`]) and tombstone sets;
//! - `name/manifest`: the commit point — generation, config, and for each
//!   segment its chunk keys and tombstone key.
//!
//! A commit writes the blobs that are new since the last commit, then the
//! manifest, then deletes blobs no manifest references. A crash (or a failed
//! put) anywhere before the manifest leaves the previous manifest — the last
//! committed state — intact; after it, the new state is committed and stray
//! blobs are collected by a later commit. Only new segments and changed
//! tombstones are written, so committing one document into a large index
//! writes bytes proportional to the change.
//!
//! Commits run in three steps so that no borrow of the index is held across
//! an `await` (the wasm layer needs that): [`Index::prepare_commit`] (sync),
//! [`CommitPlan::execute`] (async, storage only), [`Index::finish_commit`]
//! (sync). [`Index::commit`] chains them.

use std::sync::Arc;

use crate::json::{self, Object, ToJson, Value};

use crate::codec::blob::{self, BlobKind};
use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::jsonopt::{self, Res};
use crate::schema::IndexConfig;
use crate::storage::{MemoryStorage, Storage};

use super::deletes::DeleteSet;
use super::serialize::{read_segment, write_segment};
use super::{Index, SegmentEntry};

/// Largest blob memdex writes: far below Workers KV's 25 MiB value limit
/// and small enough for one IndexedDB put to stay responsive.
pub const MAX_CHUNK_BYTES: usize = 4 * 1024 * 1024;

pub fn manifest_key(name: &str) -> String {
    format!("{name}/manifest")
}

fn blob_prefix(name: &str) -> String {
    format!("{name}/blob/")
}

// Written by `ToJson` (byte for byte the serde derive's output), read by
// `from_json` (see `parse_manifest`).
#[derive(Debug, Clone, PartialEq)]
struct SegmentRecord {
    id: u64,
    docs: u32,
    chunks: Vec<String>,
    deletes: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Manifest {
    generation: u64,
    config: IndexConfig,
    next_segment_id: u64,
    segments: Vec<SegmentRecord>,
}

impl ToJson for SegmentRecord {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("id", &self.id)
            .field("docs", &self.docs)
            .field("chunks", &self.chunks)
            .field("deletes", &self.deletes)
            .end();
    }
}

impl ToJson for Manifest {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("generation", &self.generation)
            .field("config", &self.config)
            .field("nextSegmentId", &self.next_segment_id)
            .field("segments", &self.segments)
            .end();
    }
}

/// What the index remembers of its last commit.
#[derive(Debug, Clone, Default)]
pub struct PersistState {
    pub generation: u64,
    /// (segment id, chunk keys, tombstone key) as last committed, in
    /// segment order. `Vec`s here and in [`CommitPlan`] rather than hash
    /// maps and sets: a commit handles a few dozen segments and blobs
    /// (binary-counter merge policy, 4 MiB chunks), and each hash table
    /// type costs its own code in the wasm.
    records: Vec<(u64, Vec<String>, Option<String>)>,
}

impl PersistState {
    /// The committed chunk and tombstone keys of segment `id`.
    fn record(&self, id: u64) -> Option<(&Vec<String>, &Option<String>)> {
        self.records
            .iter()
            .find(|r| r.0 == id)
            .map(|(_, chunks, deletes)| (chunks, deletes))
    }
}

/// Everything a commit will write, prepared without touching storage.
pub struct CommitPlan {
    name: String,
    expected_generation: u64,
    /// New blobs, in write order.
    blobs: Vec<(String, Vec<u8>)>,
    manifest: Vec<u8>,
    new_state: PersistState,
    /// Keys of every blob the new manifest references.
    referenced: Vec<String>,
}

/// Outcome of a commit.
#[derive(Debug, Clone, PartialEq)]
pub struct CommitInfo {
    pub generation: u64,
    /// Blobs written (manifest included).
    pub blobs_written: usize,
    /// Bytes written (manifest included).
    pub bytes_written: usize,
    /// Unreferenced blobs deleted afterwards.
    pub blobs_collected: usize,
}

impl ToJson for CommitInfo {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("generation", &self.generation)
            .field("blobsWritten", &self.blobs_written)
            .field("bytesWritten", &self.bytes_written)
            .field("blobsCollected", &self.blobs_collected)
            .end();
    }
}

/// A committed state read from storage, ready to become an [`Index`].
pub struct LoadedIndex {
    manifest: Manifest,
    segments: Vec<(SegmentRecord, super::segment::Segment, DeleteSet)>,
}

fn encode_deletes(set: &DeleteSet, n_docs: u32) -> Vec<u8> {
    let mut w = ByteWriter::default();
    w.u32(n_docs);
    w.u64(set.len() as u64);
    let mut prev = 0;
    for d in (0..n_docs).filter(|&d| set.contains(d)) {
        w.varint(d - prev);
        prev = d;
    }
    blob::seal(BlobKind::Deletes, &w.buf)
}

fn decode_deletes(key: &str, bytes: &[u8], n_docs: u32) -> Result<DeleteSet> {
    let payload = blob::open(key, BlobKind::Deletes, bytes)?;
    let mut r = ByteReader::new(key, payload);
    if r.u32()? != n_docs {
        return Err(r.corrupt("tombstones belong to a segment of another size"));
    }
    let n = r.len(1)?;
    let mut set = DeleteSet::default();
    let mut prev = 0u32;
    for i in 0..n {
        let delta = r.varint()?;
        let d = prev
            .checked_add(delta)
            .filter(|&d| d < n_docs && (i == 0 || delta > 0));
        let d = d.ok_or_else(|| r.corrupt("tombstone out of range"))?;
        set.insert(d);
        prev = d;
    }
    Ok(set)
}

impl Index {
    /// Generation of the last commit this index saw (0 = never committed).
    pub fn generation(&self) -> u64 {
        self.persist.generation
    }

    /// Step 1: flush, serialize what is new since the last commit.
    pub fn prepare_commit(&mut self, name: &str) -> CommitPlan {
        self.flush();
        let mut blobs = Vec::new();
        let mut records = Vec::new();
        let mut new_state = PersistState {
            generation: self.persist.generation + 1,
            records: Vec::new(),
        };
        let mut referenced = Vec::new();
        for entry in &self.segments {
            let chunks = match self.persist.record(entry.id) {
                Some((chunks, _)) => chunks.clone(),
                None => {
                    let bytes = write_segment(&entry.segment);
                    let mut keys = Vec::new();
                    for piece in bytes
                        .chunks(MAX_CHUNK_BYTES - 64)
                        .chain(bytes.is_empty().then_some(&[][..]))
                    {
                        let sealed = blob::seal(BlobKind::SegmentChunk, piece);
                        let key = format!("{}{}", blob_prefix(name), blob::content_key(&sealed));
                        keys.push(key.clone());
                        blobs.push((key, sealed));
                    }
                    keys
                }
            };
            let deletes = (!entry.deletes.is_empty()).then(|| {
                let sealed = encode_deletes(&entry.deletes, entry.segment.n_docs);
                let key = format!("{}{}", blob_prefix(name), blob::content_key(&sealed));
                let known = self.persist.record(entry.id).and_then(|r| r.1.as_ref()) == Some(&key);
                if !known {
                    blobs.push((key.clone(), sealed));
                }
                key
            });
            referenced.extend(chunks.iter().cloned());
            referenced.extend(deletes.iter().cloned());
            new_state
                .records
                .push((entry.id, chunks.clone(), deletes.clone()));
            records.push(SegmentRecord {
                id: entry.id,
                docs: entry.segment.n_docs,
                chunks,
                deletes,
            });
        }
        // The same blob can be produced twice (identical segments); write once.
        let mut unique: Vec<(String, Vec<u8>)> = Vec::with_capacity(blobs.len());
        for blob in blobs {
            if !unique.iter().any(|u| u.0 == blob.0) {
                unique.push(blob);
            }
        }
        let blobs = unique;
        let manifest = Manifest {
            generation: new_state.generation,
            config: self.config().clone(),
            next_segment_id: self.next_segment_id,
            segments: records,
        };
        let json = manifest.to_json();
        CommitPlan {
            name: name.to_string(),
            expected_generation: self.persist.generation,
            blobs,
            manifest: blob::seal(BlobKind::Manifest, json.as_bytes()),
            new_state,
            referenced,
        }
    }

    /// Step 3: remember what was committed.
    pub fn finish_commit(&mut self, plan: &CommitPlan) {
        self.persist = plan.new_state.clone();
    }

    /// Commits all writes to `storage` under `name`. On error nothing
    /// committed changes (the previous commit stays the durable state) and
    /// the in-memory index keeps its writes, so the commit can be retried.
    pub async fn commit<S: Storage>(&mut self, storage: &S, name: &str) -> Result<CommitInfo> {
        let plan = self.prepare_commit(name);
        let info = plan.execute(storage).await?;
        self.finish_commit(&plan);
        Ok(info)
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

    /// Builds an index from a loaded committed state. A `config` that differs
    /// from the stored one is a `SCHEMA` error.
    pub fn from_loaded(loaded: LoadedIndex, config: Option<&IndexConfig>) -> Result<Index> {
        let manifest = loaded.manifest;
        if let Some(c) = config {
            if *c != manifest.config {
                return Err(Error::schema(
                    "config",
                    "differs from the configuration stored with this index; open it without a config or use a new name",
                ));
            }
        }
        let mut index = Index::new(manifest.config.clone())?;
        let n_fields = index.schema.text.len();
        let mut records: Vec<(u64, Vec<String>, Option<String>)> = Vec::new();
        for (record, segment, deletes) in loaded.segments {
            if segment.n_fields != n_fields {
                return Err(Error::Corrupt {
                    key: record.chunks.first().cloned().unwrap_or_default(),
                    reason: "segment has a different number of text fields than the schema".into(),
                });
            }
            index.adopt_segment(record.id, Arc::new(segment), deletes.clone());
            // A repeated id replaces the earlier record (as a map insert did).
            records.retain(|r| r.0 != record.id);
            records.push((record.id, record.chunks, record.deletes));
        }
        index.next_segment_id = manifest.next_segment_id.max(index.next_segment_id);
        index.persist = PersistState {
            generation: manifest.generation,
            records,
        };
        Ok(index)
    }

    /// Adds a loaded segment with its tombstones, updating ids and stats.
    fn adopt_segment(
        &mut self,
        id: u64,
        segment: Arc<super::segment::Segment>,
        deletes: DeleteSet,
    ) {
        let n_fields = self.schema.text.len();
        for doc in 0..segment.n_docs {
            if deletes.contains(doc) {
                continue;
            }
            // A later segment holding the same id wins (cannot happen with a
            // consistent manifest; keeps stats exact if it does).
            if self.ids.contains_key(segment.docs.id(doc)) {
                self.delete(segment.docs.id(doc));
            }
            self.ids.insert(
                segment.docs.id(doc).to_string(),
                super::DocAddr { segment: id, doc },
            );
            self.live_docs += 1;
            for f in 0..n_fields {
                self.live_field_len[f] += segment.field_len(doc, f) as u64;
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

impl CommitPlan {
    /// Step 2: write blobs, check the generation, write the manifest, then
    /// collect unreferenced blobs. Holds no borrow of the index.
    pub async fn execute<S: Storage>(&self, storage: &S) -> Result<CommitInfo> {
        let mkey = manifest_key(&self.name);
        let found = current_generation(storage, &mkey).await?;
        if found != self.expected_generation {
            return Err(Error::Conflict {
                expected: self.expected_generation,
                found,
            });
        }
        let mut bytes_written = 0;
        for (key, blob) in &self.blobs {
            storage.put(key, blob).await?;
            bytes_written += blob.len();
        }
        // Re-check right before the commit point: the storage interface has
        // no compare-and-swap, so this narrows (does not close) the window in
        // which two unlocked writers could both pass. One writer per index
        // is the contract: Web Locks in browsers, the Durable Object at the
        // edge (see docs/FORMAT.md).
        let found = current_generation(storage, &mkey).await?;
        if found != self.expected_generation {
            return Err(Error::Conflict {
                expected: self.expected_generation,
                found,
            });
        }
        storage.put(&mkey, &self.manifest).await?;
        bytes_written += self.manifest.len();
        // Committed. Garbage collection is best effort: a failure leaves
        // stray blobs that the next commit collects. It is skipped when the
        // manifest is no longer ours (a racing writer), so that writer's
        // blobs are never collected from under it.
        let mut collected = 0;
        let still_ours = matches!(current_generation(storage, &mkey).await, Ok(g) if g == self.new_state.generation);
        let keys = if still_ours {
            storage.list(&blob_prefix(&self.name)).await.ok()
        } else {
            None
        };
        if let Some(keys) = keys {
            for key in keys {
                if !self.referenced.contains(&key) && storage.delete(&key).await.is_ok() {
                    collected += 1;
                }
            }
        }
        Ok(CommitInfo {
            generation: self.new_state.generation,
            blobs_written: self.blobs.len() + 1,
            bytes_written,
            blobs_collected: collected,
        })
    }

    /// Bytes this commit will write.
    pub fn bytes_to_write(&self) -> usize {
        self.blobs.iter().map(|b| b.1.len()).sum::<usize>() + self.manifest.len()
    }
}

/// Generation of the stored manifest (0 when there is none).
async fn current_generation<S: Storage>(storage: &S, mkey: &str) -> Result<u64> {
    Ok(match storage.get(mkey).await? {
        None => 0,
        Some(bytes) => parse_manifest(mkey, &bytes)?.generation,
    })
}

/// Parsed into a `Value` and read by hand, like the options
/// (src/jsonopt.rs). Accepts what the serde derive accepted from the
/// writer's output: an object, unknown keys ignored, `deletes` absent or
/// `null` for none (not the derive's positional array form, which memdex
/// never wrote; duplicate keys: the last wins instead of an error).
fn parse_manifest(key: &str, bytes: &[u8]) -> Result<Manifest> {
    let payload = blob::open(key, BlobKind::Manifest, bytes)?;
    let corrupt = |reason: String| Error::Corrupt {
        key: key.to_string(),
        reason: format!("manifest does not decode: {reason}"),
    };
    let text = std::str::from_utf8(payload).map_err(|e| corrupt(e.to_string()))?;
    let value = json::parse(text).map_err(|e| corrupt(e.to_string()))?;
    Manifest::from_json(&value).map_err(corrupt)
}

impl Manifest {
    fn from_json(v: &Value) -> Res<Manifest> {
        let [generation, config, next_segment_id, segments] =
            members(v, "", ["generation", "config", "nextSegmentId", "segments"])?;
        let segments = match segments {
            Value::Array(a) => a
                .iter()
                .enumerate()
                .map(|(i, r)| SegmentRecord::from_json(r, &format!("segments[{i}]")))
                .collect::<Res<_>>()?,
            other => return Err(jsonopt::invalid("segments", "an array", other)),
        };
        Ok(Manifest {
            generation: jsonopt::uint(generation, "", "generation", u64::MAX)?,
            config: IndexConfig::from_json(config)?,
            next_segment_id: jsonopt::uint(next_segment_id, "", "nextSegmentId", u64::MAX)?,
            segments,
        })
    }
}

impl SegmentRecord {
    fn from_json(v: &Value, path: &str) -> Res<SegmentRecord> {
        let [id, docs, chunks, deletes] = members(v, path, ["id", "docs", "chunks", "deletes"])?;
        Ok(SegmentRecord {
            id: jsonopt::uint(id, path, "id", u64::MAX)?,
            docs: jsonopt::uint(docs, path, "docs", u32::MAX.into())? as u32,
            chunks: jsonopt::strings(chunks, path, "chunks")?,
            deletes: jsonopt::opt(deletes)
                .map(|d| jsonopt::string(d, path, "deletes"))
                .transpose()?,
        })
    }
}

/// The values of `names` in the object `v`; unknown keys are ignored and
/// an absent key reads as `null` (then only `Option` fields accept it).
fn members<'a, const N: usize>(v: &'a Value, path: &str, names: [&str; N]) -> Res<[&'a Value; N]> {
    let Value::Object(m) = v else {
        return Err(jsonopt::invalid(path, "an object", v));
    };
    Ok(names.map(|name| m.get(name).unwrap_or(&Value::Null)))
}

/// Reads the committed state under `name` (`None` if nothing is stored).
pub async fn load<S: Storage>(storage: &S, name: &str) -> Result<Option<LoadedIndex>> {
    let mkey = manifest_key(name);
    let Some(bytes) = storage.get(&mkey).await? else {
        return Ok(None);
    };
    let manifest = parse_manifest(&mkey, &bytes)?;
    let mut segments = Vec::with_capacity(manifest.segments.len());
    for record in &manifest.segments {
        let mut data = Vec::new();
        // Chunks of one segment share the version of the build that wrote
        // it (older segments stay as written until merged away).
        let mut version = None;
        for key in &record.chunks {
            let blob = storage.get(key).await?.ok_or_else(|| Error::Corrupt {
                key: key.clone(),
                reason: "blob referenced by the manifest is missing".into(),
            })?;
            let (v, payload) = blob::open_versioned(key, BlobKind::SegmentChunk, &blob)?;
            if *version.get_or_insert(v) != v {
                return Err(Error::Corrupt {
                    key: key.clone(),
                    reason: "segment chunks of different format versions".into(),
                });
            }
            data.extend_from_slice(payload);
        }
        let first = record
            .chunks
            .first()
            .cloned()
            .unwrap_or_else(|| mkey.clone());
        let version = version.unwrap_or(blob::FORMAT_VERSION);
        let segment = read_segment(&first, &data, version)?;
        if segment.n_docs != record.docs {
            return Err(Error::Corrupt {
                key: first,
                reason: "segment size differs from the manifest".into(),
            });
        }
        let deletes = match &record.deletes {
            None => DeleteSet::default(),
            Some(key) => {
                let blob = storage.get(key).await?.ok_or_else(|| Error::Corrupt {
                    key: key.clone(),
                    reason: "tombstone blob referenced by the manifest is missing".into(),
                })?;
                decode_deletes(key, &blob, segment.n_docs)?
            }
        };
        segments.push((record.clone(), segment, deletes));
    }
    Ok(Some(LoadedIndex { manifest, segments }))
}

/// Name under which snapshots store the index.
const SNAPSHOT_NAME: &str = "snapshot";

impl Index {
    /// The whole committed index as one self-contained byte array (the same
    /// blobs a commit writes, framed with a version and checksum).
    pub fn export_snapshot(&mut self) -> Vec<u8> {
        // Prepared against a fresh name so every blob is included, and never
        // finished: exporting does not change what was committed where.
        let saved = std::mem::take(&mut self.persist);
        let plan = self.prepare_commit(SNAPSHOT_NAME);
        self.persist = saved;
        let mut w = ByteWriter::default();
        w.u64(plan.blobs.len() as u64 + 1);
        for (key, blob) in plan.blobs.iter().chain(std::iter::once(&(
            manifest_key(SNAPSHOT_NAME),
            plan.manifest.clone(),
        ))) {
            w.str(key);
            w.bytes(blob);
        }
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
        let loaded =
            crate::storage::run_ready(load(&storage, SNAPSHOT_NAME)).ok_or_else(|| {
                Error::Corrupt {
                    key: key.to_string(),
                    reason: "snapshot did not load synchronously".into(),
                }
            })??;
        let loaded = loaded.ok_or_else(|| Error::Corrupt {
            key: key.to_string(),
            reason: "snapshot has no manifest".into(),
        })?;
        let mut index = Index::from_loaded(loaded, None)?;
        // A snapshot is not a commit of any storage: start uncommitted.
        index.persist = PersistState::default();
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Manifest> {
        parse_manifest("m", &blob::seal(BlobKind::Manifest, json.as_bytes()))
    }

    #[test]
    fn manifest_round_trips() {
        let manifest = Manifest {
            generation: 7,
            config: IndexConfig::default(),
            next_segment_id: 3,
            segments: vec![
                SegmentRecord {
                    id: 1,
                    docs: 10,
                    chunks: vec!["a".into(), "b".into()],
                    deletes: Some("d".into()),
                },
                SegmentRecord {
                    id: u64::MAX,
                    docs: u32::MAX,
                    chunks: vec![],
                    deletes: None,
                },
            ],
        };
        let json = manifest.to_json();
        assert!(json.contains("\"deletes\":null"), "{json}");
        assert_eq!(parse(&json).unwrap(), manifest);
    }

    // What the derived `Deserialize` accepted and refused.
    #[test]
    fn manifest_reader_matches_derive() {
        let seg = r#"{"id":1,"docs":2,"chunks":["c"],"extra":true}"#;
        let m = parse(&format!(
            r#"{{"generation":1,"config":{{}},"nextSegmentId":2,"segments":[{seg}],"x":[1.5]}}"#
        ))
        .unwrap();
        assert_eq!(m.segments[0].deletes, None);
        assert_eq!(m.segments[0].chunks, ["c"]);
        for bad in [
            r#"[]"#,
            r#"{"generation":1,"config":{},"nextSegmentId":2}"#,
            r#"{"generation":-1,"config":{},"nextSegmentId":2,"segments":[]}"#,
            r#"{"generation":1.0,"config":{},"nextSegmentId":2,"segments":[]}"#,
            r#"{"generation":1,"config":{"k1":"x"},"nextSegmentId":2,"segments":[]}"#,
            r#"{"generation":1,"config":{},"nextSegmentId":2,"segments":[{"id":1,"docs":4294967296,"chunks":[]}]}"#,
            r#"{"generation":1,"config":{},"nextSegmentId":2,"segments":[{"id":1,"docs":1,"chunks":[1]}]}"#,
            r#"{"generation":1,"config":{},"nextSegmentId":2,"segments":[{"id":1,"docs":1,"chunks":[],"deletes":2}]}"#,
        ] {
            let err = parse(bad).unwrap_err().to_string();
            assert!(err.contains("manifest does not decode"), "{bad}: {err}");
        }
        assert!(parse_manifest("m", &blob::seal(BlobKind::Manifest, b"\xff")).is_err());
    }
}
