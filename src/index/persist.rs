//! Commits over an async [`Storage`]: the writer side of the commit
//! protocol. Its argument is in docs/FORMAT.md ("Commit protocol"); in short:
//!
//! 1. `name/pending/<commit>` is written (the commit's start time);
//! 2. the commit's new blobs are written, under keys no other commit uses
//!    (`<commit>-…`, see `manifest.rs`);
//! 3. the manifest is *swapped* in: stored only if the stored manifest is
//!    still the one this index loaded or last committed (a compare-and-swap
//!    of the storage). Of two writers starting from one manifest exactly one
//!    wins; the other gets `CONFLICT`, removes its blobs and writes nothing;
//! 4. the pending marker is removed, then garbage is collected: a blob is
//!    deleted only if neither the current manifest nor a live pending commit
//!    owns it, reading in the order blobs, markers, manifest.
//!
//! A crash before step 3 leaves the previous commit intact; after it, the
//! new one. Blobs of a crashed commit stay until its marker is older than
//! [`PENDING_TTL_MS`]; a commit running that long aborts before its swap.
//!
//! Commits run in three steps so that no borrow of the index is held across
//! an `await` (the wasm layer needs that): [`Index::prepare_commit`] (sync),
//! [`CommitPlan::execute`] (async, storage only), [`Index::finish_commit`]
//! (sync). [`Index::commit`] chains them.

use std::sync::Arc;

use crate::codec::blob::{self, BlobKind};
use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::json::{Object, ToJson};
use crate::storage::{Storage, PART_BYTES_RANGE};

use super::deletes::DeleteSet;
use super::manifest::{
    blob_key, blob_prefix, new_commit_id, parse_blob_key, parse_manifest, pending_prefix, Manifest,
    SegmentRecord,
};
use super::serialize::{read_doc_list, write_doc_list, write_segment_in};
use super::Index;

pub use super::manifest::manifest_key;

/// Largest blob memdex writes: far below Workers KV's 25 MiB value limit
/// and small enough for one IndexedDB put to stay responsive.
pub const MAX_CHUNK_BYTES: usize = 4 * 1024 * 1024;

/// Age after which a pending marker is taken for a crashed commit and its
/// blobs may be collected. A live commit older than half of it aborts
/// before its swap, so a marker is never expired under a commit that can
/// still win.
pub const PENDING_TTL_MS: u64 = 60 * 60 * 1000;

/// What the index remembers of the commit it loaded or last wrote.
#[derive(Debug, Clone, Default)]
pub struct PersistState {
    pub generation: u64,
    /// Id of that commit (`None`: none, or written before commit ids).
    pub(crate) commit: Option<String>,
    /// The stored manifest's exact bytes: what the next commit's swap
    /// expects to find (`None`: nothing was stored).
    pub(crate) manifest: Option<Arc<[u8]>>,
    /// (segment id, chunk keys, tombstone key) as last committed, in
    /// segment order. `Vec`s here and in [`CommitPlan`] rather than hash
    /// maps and sets: a commit handles a few dozen segments and blobs
    /// (binary-counter merge policy, 4 MiB chunks), and each hash table
    /// type costs its own code in the wasm.
    pub(crate) records: Vec<(u64, Vec<String>, Option<String>)>,
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
    pub(crate) name: String,
    pub(crate) commit: String,
    /// The manifest the swap expects to find (the index's base).
    expected: Option<Arc<[u8]>>,
    expected_generation: u64,
    /// New blobs, in write order.
    pub(crate) blobs: Vec<(String, Vec<u8>)>,
    pub(crate) manifest: Vec<u8>,
    new_state: PersistState,
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

pub(crate) fn encode_deletes(set: &DeleteSet, n_docs: u32) -> Vec<u8> {
    let mut w = ByteWriter::default();
    w.u32(n_docs);
    write_doc_list(
        &mut w,
        set.len() as usize,
        (0..n_docs).filter(|&d| set.contains(d)),
    );
    blob::seal(BlobKind::Deletes, &w.buf)
}

pub(crate) fn decode_deletes(key: &str, bytes: &[u8], n_docs: u32) -> Result<DeleteSet> {
    let payload = blob::open(key, BlobKind::Deletes, bytes)?;
    let mut r = ByteReader::new(key, payload);
    if r.u32()? != n_docs {
        return Err(r.corrupt("tombstones belong to a segment of another size"));
    }
    let mut set = DeleteSet::default();
    for d in read_doc_list(&mut r, n_docs, "tombstone")? {
        set.insert(d);
    }
    Ok(set)
}

/// Payload bytes of one segment chunk: a segment's bytes are cut into
/// chunks of this size (their seal adds 13 bytes).
pub(crate) const CHUNK_PAYLOAD: usize = MAX_CHUNK_BYTES - 64;
const _: () = assert!(*PART_BYTES_RANGE.end() == CHUNK_PAYLOAD);

/// A segment as sealed chunk blobs `(key, blob)`, in order: its head in
/// chunks of [`CHUNK_PAYLOAD`] bytes, then its body's parts
/// ([`super::serialize::SegmentBytes`]).
pub(crate) fn seal_segment(
    name: &str,
    commit: &str,
    id: u64,
    segment: &super::segment::Segment,
    part_bytes: usize,
) -> Vec<(String, Vec<u8>)> {
    write_segment_in(segment, part_bytes)
        .chunks()
        .enumerate()
        .map(|(part, piece)| seal_chunk(name, commit, id, part, piece))
        .collect()
}

/// Chunk `part` of a segment's bytes as a `(key, blob)`.
pub(crate) fn seal_chunk(
    name: &str,
    commit: &str,
    id: u64,
    part: usize,
    piece: &[u8],
) -> (String, Vec<u8>) {
    let sealed = blob::seal(BlobKind::SegmentChunk, piece);
    (blob_key(name, commit, id, Some(part), &sealed), sealed)
}

fn pending_marker(started_ms: u64) -> Vec<u8> {
    blob::seal(BlobKind::Pending, &started_ms.to_le_bytes())
}

/// Start time of a pending marker (`None` if it does not decode).
fn marker_start(key: &str, bytes: &[u8]) -> Option<u64> {
    let payload = blob::open(key, BlobKind::Pending, bytes).ok()?;
    Some(u64::from_le_bytes(payload.try_into().ok()?))
}

impl Index {
    /// Generation of the last commit this index saw (0 = never committed).
    pub fn generation(&self) -> u64 {
        self.persist.generation
    }

    /// Step 1: flush, serialize what is new since the last commit, its
    /// segments' bodies in blobs of about `part_bytes` (the storage's
    /// [`Storage::part_bytes`]; clamped to [`PART_BYTES_RANGE`]).
    pub fn prepare_commit(&mut self, name: &str, part_bytes: usize) -> CommitPlan {
        let part_bytes = part_bytes.clamp(*PART_BYTES_RANGE.start(), *PART_BYTES_RANGE.end());
        self.flush();
        let commit = new_commit_id(self.persist.commit.as_deref());
        let mut blobs: Vec<(String, Vec<u8>)> = Vec::new();
        let mut records = Vec::new();
        let mut new_state = PersistState {
            generation: self.persist.generation + 1,
            commit: Some(commit.clone()),
            manifest: None,
            records: Vec::new(),
        };
        for entry in &self.segments {
            let committed = self.persist.record(entry.id);
            let chunks = match committed {
                Some((chunks, _)) => chunks.clone(),
                None => {
                    let sealed = seal_segment(name, &commit, entry.id, &entry.segment, part_bytes);
                    let keys = sealed.iter().map(|(key, _)| key.clone()).collect();
                    blobs.extend(sealed);
                    keys
                }
            };
            let deletes = (!entry.deletes.is_empty()).then(|| {
                let sealed = encode_deletes(&entry.deletes, entry.segment.n_docs);
                // Unchanged tombstones keep their key (the same bytes hash alike).
                let hash = blob::content_key(&sealed);
                match committed.and_then(|r| r.1.as_ref()) {
                    Some(old) if parse_blob_key(old).is_some_and(|n| n.hash == hash) => old.clone(),
                    _ => {
                        let key = blob_key(name, &commit, entry.id, None, &sealed);
                        blobs.push((key.clone(), sealed));
                        key
                    }
                }
            });
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
        let manifest = Manifest {
            generation: new_state.generation,
            commit: Some(commit.clone()),
            config: self.config().clone(),
            next_segment_id: self.next_segment_id,
            segments: records,
        };
        let manifest = blob::seal(BlobKind::Manifest, manifest.to_json().as_bytes());
        new_state.manifest = Some(Arc::from(&manifest[..]));
        CommitPlan {
            name: name.to_string(),
            commit,
            expected: self.persist.manifest.clone(),
            expected_generation: self.persist.generation,
            blobs,
            manifest,
            new_state,
        }
    }

    /// Step 3: remember what was committed.
    pub fn finish_commit(&mut self, plan: &CommitPlan) {
        self.persist = plan.new_state.clone();
    }

    /// Commits all writes to `storage` under `name`. On error nothing
    /// committed changes (the previous commit stays the durable state) and
    /// the in-memory index keeps its writes, so the commit can be retried
    /// (after `reload` and re-applying them, on `CONFLICT`).
    pub async fn commit<S: Storage>(&mut self, storage: &S, name: &str) -> Result<CommitInfo> {
        let plan = self.prepare_commit(name, storage.part_bytes());
        let info = plan.execute(storage).await?;
        self.finish_commit(&plan);
        Ok(info)
    }
}

impl CommitPlan {
    /// Step 2: pending marker, blobs, manifest swap, garbage collection.
    /// Holds no borrow of the index.
    pub async fn execute<S: Storage>(&self, storage: &S) -> Result<CommitInfo> {
        let mkey = manifest_key(&self.name);
        let marker = format!("{}{}", pending_prefix(&self.name), self.commit);
        let mut bytes_written = 0;
        let started = crate::host::now_ms();
        if !self.blobs.is_empty() {
            if let Err(e) = storage.put(&marker, &pending_marker(started)).await {
                let _ = storage.delete(&marker).await;
                return Err(e);
            }
        }
        for (key, blob) in &self.blobs {
            if let Err(e) = storage.put(key, blob).await {
                self.discard(storage, &marker).await;
                return Err(e);
            }
            bytes_written += blob.len();
        }
        if crate::host::now_ms().saturating_sub(started) > PENDING_TTL_MS / 2 {
            self.discard(storage, &marker).await;
            return Err(Error::Storage {
                key: mkey,
                reason: "the commit took over 30 minutes to write its blobs and was abandoned; commit again".into(), adapter_reason: None });
        }
        // The commit point. An error here leaves it unknown whether the
        // manifest was stored: read it back. Ours is there: committed (the
        // error came after the write, e.g. syncing the directory). The one
        // we replaced is there: nothing was stored, so our blobs go. Anything
        // else (unreadable, or a third manifest that may build on ours):
        // the blobs stay under the marker and the error says so.
        let swapped = match storage
            .swap(&mkey, self.expected.as_deref(), &self.manifest)
            .await
        {
            Ok(swapped) => swapped,
            Err(e) => match storage.get(&mkey).await {
                Ok(Some(now)) if now == self.manifest => true,
                Ok(now) if now.as_deref() == self.expected.as_deref() => {
                    self.discard(storage, &marker).await;
                    return Err(e);
                }
                _ => return Err(e.outcome_unknown()),
            },
        };
        if !swapped {
            self.discard(storage, &marker).await;
            let found = match storage.get(&mkey).await {
                Ok(Some(bytes)) => parse_manifest(&mkey, &bytes).map_or(0, |m| m.generation),
                _ => 0,
            };
            return Err(Error::Conflict {
                expected: self.expected_generation,
                found,
            });
        }
        bytes_written += self.manifest.len();
        // Committed. What follows is best effort: a leftover marker expires,
        // leftover blobs are collected by a later commit.
        let _ = storage.delete(&marker).await;
        let collected = collect_garbage(storage, &self.name).await.unwrap_or(0);
        Ok(CommitInfo {
            generation: self.new_state.generation,
            blobs_written: self.blobs.len() + 1,
            bytes_written,
            blobs_collected: collected,
        })
    }

    /// Removes what a commit that cannot win wrote (best effort: its keys
    /// are its own, so nothing else can reference them).
    async fn discard<S: Storage>(&self, storage: &S, marker: &str) {
        for (key, _) in &self.blobs {
            let _ = storage.delete(key).await;
        }
        let _ = storage.delete(marker).await;
    }

    /// Bytes this commit will write.
    pub fn bytes_to_write(&self) -> usize {
        self.blobs.iter().map(|b| b.1.len()).sum::<usize>() + self.manifest.len()
    }
}

/// Deletes the blobs of `name` that neither the stored manifest nor a live
/// pending commit owns; returns how many. Reads blobs, then markers, then
/// the manifest: a blob listed was written after its commit's marker, and
/// a marker is removed only after its commit's swap, so a commit that can
/// still win is seen either by its marker or by the manifest it stored
/// (the argument in full: docs/FORMAT.md). Never runs without a manifest.
pub async fn collect_garbage<S: Storage>(storage: &S, name: &str) -> Result<usize> {
    let blobs = storage.list(&blob_prefix(name)).await?;
    let prefix = pending_prefix(name);
    let now = crate::host::now_ms();
    let mut live: Vec<String> = Vec::new();
    for key in storage.list(&prefix).await? {
        let Some(bytes) = storage.get(&key).await? else {
            continue; // finished meanwhile: its manifest is read below
        };
        match marker_start(&key, &bytes) {
            Some(start) if now.saturating_sub(start) <= PENDING_TTL_MS => {
                live.push(key[prefix.len()..].to_string());
            }
            _ => storage.delete(&key).await?, // crashed long ago, or damaged
        }
    }
    let mkey = manifest_key(name);
    let Some(bytes) = storage.get(&mkey).await? else {
        return Ok(0);
    };
    let manifest = parse_manifest(&mkey, &bytes)?;
    let mut collected = 0;
    for key in blobs {
        let owned = manifest.referenced().any(|r| *r == key)
            || parse_blob_key(&key)
                .and_then(|n| n.commit)
                .is_some_and(|c| live.iter().any(|l| l == c));
        if !owned && storage.delete(&key).await.is_ok() {
            collected += 1;
        }
    }
    Ok(collected)
}
