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
    Manifest, SegmentRecord,
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
    fn segment(&self, keys: &[&String]) -> Option<Segment> {
        let mut data = Vec::new();
        let mut version = None;
        for key in keys {
            let bytes = self.verified(key)?;
            let (v, payload) = blob::open_versioned(key, BlobKind::SegmentChunk, bytes).ok()?;
            if *version.get_or_insert(v) != v {
                return None;
            }
            data.extend_from_slice(payload);
        }
        read_segment(keys.first()?, &data, version?).ok()
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
        Some(&manifest.config),
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

/// The manifest rebuilt from `fetched` (module docs), its sealed bytes, the
/// segments it references, and the blob keys left out.
fn rebuild(fetched: &Fetched, pending: &str, markers: &[String], config: IndexConfig) -> Rebuilt {
    let is_pending = |c: &str| markers.iter().any(|m| m[pending.len()..] == *c);
    let mut skipped = Vec::new();
    // (segment, commit, part, key) of blobs from commits that finished.
    let mut named = Vec::new();
    let mut legacy = Vec::new();
    for key in fetched.0.iter().map(|(k, _)| k.clone()) {
        match parse_blob_key(&key) {
            Some(n) if n.commit.is_some_and(|c| !is_pending(c)) => named.push((
                n.segment.unwrap_or(0),
                n.commit.unwrap_or_default().to_string(),
                n.part.flatten(),
                n.part.is_some_and(|p| p.is_none()),
                key.clone(),
            )),
            Some(n) if n.commit.is_none() => legacy.push(key),
            _ => skipped.push(key),
        }
    }
    // Segment order, newest commit first within a segment, chunks in part
    // order: one byte key each, through the crate's one shared sort (each
    // `sort_by` comparator would add its own sort code to the wasm).
    let keys: Vec<Vec<u8>> = named
        .iter()
        .map(|(segment, commit, part, _, _)| {
            let mut key = segment.to_be_bytes().to_vec();
            key.extend(commit.bytes().map(|b| !b));
            key.extend(part.map_or(0, |p| p as u64 + 1).to_be_bytes());
            key
        })
        .collect();
    let order = crate::sort::order_by_bytes(&keys.iter().map(Vec::as_slice).collect::<Vec<_>>());
    let named = crate::sort::permute(named, &order);
    let mut segments: Vec<(SegmentRecord, Segment, DeleteSet)> = Vec::new();
    let mut used: Vec<String> = Vec::new();
    let mut ids: Vec<u64> = named.iter().map(|b| b.0).collect();
    ids.dedup();
    for id in ids {
        let blobs: Vec<_> = named.iter().filter(|b| b.0 == id).collect();
        let mut found = None;
        let mut commits: Vec<&String> = blobs.iter().filter(|b| !b.3).map(|b| &b.1).collect();
        commits.dedup();
        for commit in commits {
            let chunks: Vec<&String> = blobs
                .iter()
                .filter(|b| &b.1 == commit && !b.3)
                .map(|b| &b.4)
                .collect();
            let parts: Vec<Option<usize>> = blobs
                .iter()
                .filter(|b| &b.1 == commit && !b.3)
                .map(|b| b.2)
                .collect();
            if parts.iter().enumerate().any(|(i, p)| *p != Some(i)) {
                continue; // a chunk is missing
            }
            if let Some(segment) = fetched.segment(&chunks) {
                found = Some((
                    commit.clone(),
                    chunks.into_iter().cloned().collect::<Vec<_>>(),
                    segment,
                ));
                break;
            }
        }
        let Some((commit, chunks, segment)) = found else {
            continue;
        };
        // The newest tombstones written for it, by its commit or a later one.
        let mut deletes = None;
        for b in blobs.iter().filter(|b| b.3 && b.1 >= commit) {
            if let Some(bytes) = fetched.verified(&b.4) {
                if let Ok(set) = decode_deletes(&b.4, bytes, segment.n_docs) {
                    deletes = Some((b.4.clone(), set));
                    break;
                }
            }
        }
        used.extend(chunks.iter().cloned());
        used.extend(deletes.iter().map(|d| d.0.clone()));
        let record = SegmentRecord {
            id,
            docs: segment.n_docs,
            chunks,
            deletes: deletes.as_ref().map(|d| d.0.clone()),
        };
        segments.push((record, segment, deletes.map(|d| d.1).unwrap_or_default()));
    }
    let mut next_id = segments.iter().map(|s| s.0.id + 1).max().unwrap_or(0);
    for key in legacy {
        match fetched.segment(std::slice::from_ref(&&key)) {
            Some(segment) => {
                used.push(key.clone());
                let record = SegmentRecord {
                    id: next_id,
                    docs: segment.n_docs,
                    chunks: vec![key],
                    deletes: None,
                };
                next_id += 1;
                segments.push((record, segment, DeleteSet::default()));
            }
            None => skipped.push(key),
        }
    }
    skipped.extend(
        named
            .iter()
            .map(|b| &b.4)
            .filter(|k| !used.contains(k))
            .cloned(),
    );
    // Sorted through the shared byte sort (`Vec<String>::sort` would link a
    // stable sort of its own into the wasm: 4.6 KB).
    let order =
        crate::sort::order_by_bytes(&skipped.iter().map(|k| k.as_bytes()).collect::<Vec<_>>());
    let skipped = crate::sort::permute(skipped, &order);
    let manifest = Manifest {
        generation: 1,
        commit: Some(new_commit_id(named.iter().map(|b| b.1.as_str()).max())),
        config,
        next_segment_id: next_id,
        segments: segments.iter().map(|s| s.0.clone()).collect(),
    };
    let bytes = blob::seal(BlobKind::Manifest, manifest.to_json().as_bytes());
    (manifest, bytes, segments, skipped)
}
