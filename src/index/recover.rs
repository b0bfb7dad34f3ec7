//! Recovery from a lost manifest: a new manifest rebuilt from the segment
//! blobs still in storage.
//!
//! Blob keys name their commit (time-ordered), segment and chunk number
//! (`manifest.rs`), so each segment is reassembled from the newest commit
//! that wrote all of its chunks intact, with the newest intact tombstones
//! written for it. Blobs of commits still marked pending never committed
//! and are left out. What cannot be restored is reported, not guessed:
//! blobs from before commit ids (`<hash>` keys) are read only when one blob
//! is a whole segment (their tombstones are dropped), and a segment merged
//! away whose blobs were not yet collected comes back with the documents
//! it held (a newer segment still wins for every id both hold).

use crate::codec::blob::{self, BlobKind};
use crate::error::{Error, Result};
use crate::json::{Object, ToJson};
use crate::schema::IndexConfig;
use crate::storage::Storage;

use super::deletes::DeleteSet;
use super::load::LoadedIndex;
use super::manifest::{
    blob_prefix, manifest_key, new_commit_id, parse_blob_key, pending_prefix, verify_blob,
    BlobName, Manifest, SegmentRecord,
};
use super::persist::decode_deletes;
use super::segment::Segment;
use super::serialize::read_segment;
use super::Index;

/// What [`recover`] rebuilt.
#[derive(Debug, Clone, PartialEq)]
pub struct RecoveryReport {
    /// Segments in the new manifest.
    pub segments: usize,
    /// Live documents of the recovered index.
    pub documents: usize,
    /// Blobs left out: damaged, incomplete, pending, or not placeable.
    pub skipped: Vec<String>,
}

impl ToJson for RecoveryReport {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("segments", &self.segments)
            .field("documents", &self.documents)
            .field("skipped", &self.skipped)
            .end();
    }
}

/// Every blob of the index, fetched before the (synchronous) rebuild: an
/// async function that awaits inside its loops compiles to a state machine
/// several times the size of the same loops without awaits.
struct Fetched(Vec<(String, Option<Vec<u8>>)>);

impl Fetched {
    /// A blob's bytes, if present and matching the hash in its key.
    fn verified(&self, key: &str) -> Option<&[u8]> {
        let i = self.0.iter().position(|(k, _)| k == key)?;
        let bytes = self.0[i].1.as_deref()?;
        verify_blob(key, bytes).ok()?;
        Some(bytes)
    }

    /// A segment from its chunk blobs in order (`None` if any is unreadable).
    fn segment(&self, keys: &[&str]) -> Option<Segment> {
        let mut data = Vec::new();
        let mut version = None;
        for key in keys {
            let bytes = self.verified(key)?;
            let (v, payload) = blob::open_addressed(key, BlobKind::SegmentChunk, bytes).ok()?;
            if *version.get_or_insert(v) != v {
                return None;
            }
            data.extend_from_slice(payload);
        }
        read_segment(keys.first()?, &data, version?, None).ok()
    }
}

/// Rebuilds the manifest of index `name` from its blobs and stores it.
/// `config` must be the schema the index was created with (the lost
/// manifest held it). `USAGE` if the index has a manifest.
pub async fn recover<S: Storage>(
    storage: &S,
    name: &str,
    config: IndexConfig,
) -> Result<(Index, RecoveryReport)> {
    let mkey = manifest_key(name);
    if storage.get(&mkey).await?.is_some() {
        return Err(Error::Usage {
            reason: format!(
                "index `{name}` has a manifest: open it; recover() only rebuilds a lost one"
            ),
        });
    }
    let pending = pending_prefix(name);
    let markers = storage.list(&pending).await?;
    let mut fetched = Fetched(Vec::new());
    for key in storage.list(&blob_prefix(name)).await? {
        let bytes = storage.get(&key).await?;
        fetched.0.push((key, bytes));
    }
    let (manifest, bytes, segments, skipped) = rebuild(&fetched, &pending, &markers, config);
    let n_segments = segments.len();
    let index = Index::from_loaded(
        LoadedIndex::from_parts(manifest.clone(), bytes.clone(), segments),
        None, // the manifest's own config
    )?;
    if !storage.swap(&mkey, None, &bytes).await? {
        return Err(Error::Conflict {
            expected: 0,
            found: 1,
        });
    }
    let report = RecoveryReport {
        segments: n_segments,
        documents: index.len(),
        skipped,
    };
    Ok((index, report))
}

type Rebuilt = (
    Manifest,
    Vec<u8>,
    Vec<(SegmentRecord, Segment, DeleteSet)>,
    Vec<String>,
);

/// A blob of a finished commit, as its key names it (borrowed from the key).
struct Named<'a> {
    segment: u64,
    commit: &'a str,
    /// The chunk number; `None` for tombstones.
    chunk: Option<usize>,
    key: &'a str,
}

/// The manifest rebuilt from `fetched` (module docs), its sealed bytes, the
/// segments it references, and the blob keys left out.
fn rebuild(fetched: &Fetched, pending: &str, markers: &[String], config: IndexConfig) -> Rebuilt {
    let is_pending = |c: &str| markers.iter().any(|m| m[pending.len()..] == *c);
    let mut skipped: Vec<&str> = Vec::new();
    let mut named: Vec<Named<'_>> = Vec::new();
    let mut legacy: Vec<&str> = Vec::new();
    for (key, _) in &fetched.0 {
        match parse_blob_key(key) {
            Some(BlobName {
                commit: Some(commit),
                segment,
                part: Some(chunk),
                ..
            }) if !is_pending(commit) => named.push(Named {
                segment: segment.unwrap_or(0),
                commit,
                chunk,
                key,
            }),
            Some(BlobName { commit: None, .. }) => legacy.push(key),
            _ => skipped.push(key),
        }
    }
    // Segment order, newest commit first within a segment, tombstones then
    // chunks in part order: one byte key each, through the crate's one
    // shared sort (each `sort_by` comparator would add its own sort code
    // to the wasm).
    let keys: Vec<Vec<u8>> = named
        .iter()
        .map(|b| {
            let mut key = b.segment.to_be_bytes().to_vec();
            key.extend(b.commit.bytes().map(|c| !c));
            key.extend(b.chunk.map_or(0, |p| p as u64 + 1).to_be_bytes());
            key
        })
        .collect();
    let order = crate::sort::order_by_bytes(&keys.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let named = crate::sort::permute(named, &order);
    let mut segments: Vec<(SegmentRecord, Segment, DeleteSet)> = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for blobs in named.chunk_by(|a, b| a.segment == b.segment) {
        let id = blobs[0].segment;
        let Some((commit, chunks, segment)) = newest_intact(fetched, blobs) else {
            continue;
        };
        // The newest tombstones written for it, by its commit or a later one.
        let deletes = blobs
            .iter()
            .filter(|b| b.chunk.is_none() && b.commit >= commit)
            .find_map(|b| {
                let bytes = fetched.verified(b.key)?;
                let set = decode_deletes(b.key, bytes, segment.n_docs).ok()?;
                Some((b.key, set))
            });
        used.extend(&chunks);
        used.extend(deletes.as_ref().map(|d| d.0));
        let record = SegmentRecord {
            id,
            docs: segment.n_docs,
            chunks: chunks.iter().map(|k| k.to_string()).collect(),
            deletes: deletes.as_ref().map(|d| d.0.to_string()),
        };
        segments.push((record, segment, deletes.map(|d| d.1).unwrap_or_default()));
    }
    let mut next_id = segments.iter().map(|s| s.0.id + 1).max().unwrap_or(0);
    for key in legacy {
        match fetched.segment(&[key]) {
            Some(segment) => {
                let record = SegmentRecord {
                    id: next_id,
                    docs: segment.n_docs,
                    chunks: vec![key.to_string()],
                    deletes: None,
                };
                next_id += 1;
                segments.push((record, segment, DeleteSet::default()));
            }
            None => skipped.push(key),
        }
    }
    skipped.extend(named.iter().map(|b| b.key).filter(|k| !used.contains(k)));
    // Sorted through the shared byte sort (`sort` would link a stable sort
    // of its own into the wasm: 4.6 KB).
    let order =
        crate::sort::order_by_bytes(&skipped.iter().map(|k| k.as_bytes()).collect::<Vec<_>>());
    let skipped = order
        .iter()
        .map(|&(_, i)| skipped[i as usize].to_string())
        .collect();
    let manifest = Manifest {
        generation: 1,
        commit: Some(new_commit_id(named.iter().map(|b| b.commit).max())),
        config,
        next_segment_id: next_id,
        segments: segments.iter().map(|s| s.0.clone()).collect(),
    };
    let bytes = blob::seal(BlobKind::Manifest, manifest.to_json().as_bytes());
    (manifest, bytes, segments, skipped)
}

/// The newest commit of one segment's `blobs` (sorted as `rebuild` sorts
/// them) whose chunks are all there, in order, and read: its commit id,
/// chunk keys and segment.
fn newest_intact<'a>(
    fetched: &Fetched,
    blobs: &[Named<'a>],
) -> Option<(&'a str, Vec<&'a str>, Segment)> {
    for group in blobs.chunk_by(|a, b| a.commit == b.commit) {
        let commit = group[0].commit;
        let chunks: Vec<&Named<'a>> = group.iter().filter(|b| b.chunk.is_some()).collect();
        // Tombstones alone, or a chunk missing: not this commit.
        if chunks.is_empty() || chunks.iter().enumerate().any(|(i, b)| b.chunk != Some(i)) {
            continue;
        }
        let keys: Vec<&'a str> = chunks.iter().map(|b| b.key).collect();
        if let Some(segment) = fetched.segment(&keys) {
            return Some((commit, keys, segment));
        }
    }
    None
}
