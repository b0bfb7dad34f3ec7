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

/// A blob read back and verified.
async fn read_verified<S: Storage>(storage: &S, key: &str) -> Option<Vec<u8>> {
    let bytes = storage.get(key).await.ok()??;
    verify_blob(key, &bytes).ok()?;
    Some(bytes)
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
    let is_pending = |c: &str| markers.iter().any(|m| m[pending.len()..] == *c);
    let mut skipped = Vec::new();
    // (segment, commit, part, key) of blobs from commits that finished.
    let mut named = Vec::new();
    let mut legacy = Vec::new();
    for key in storage.list(&blob_prefix(name)).await? {
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
            if let Some(segment) = read_chunks(storage, &chunks).await {
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
            if let Some(bytes) = read_verified(storage, &b.4).await {
                if let Ok(set) = decode_deletes(&b.4, &bytes, segment.n_docs) {
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
        match read_chunks(storage, std::slice::from_ref(&&key)).await {
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
    skipped.sort();
    let manifest = Manifest {
        generation: 1,
        commit: Some(new_commit_id(named.iter().map(|b| b.1.as_str()).max())),
        config,
        next_segment_id: next_id,
        segments: segments.iter().map(|s| s.0.clone()).collect(),
    };
    let bytes = blob::seal(BlobKind::Manifest, manifest.to_json().as_bytes());
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

/// A segment from its chunk blobs in order (`None` if any is unreadable).
async fn read_chunks<S: Storage>(storage: &S, keys: &[&String]) -> Option<Segment> {
    let mut data = Vec::new();
    let mut version = None;
    for key in keys {
        let bytes = read_verified(storage, key).await?;
        let (v, payload) = blob::open_versioned(key, BlobKind::SegmentChunk, &bytes).ok()?;
        if *version.get_or_insert(v) != v {
            return None;
        }
        data.extend_from_slice(payload);
    }
    read_segment(keys.first()?, &data, version?).ok()
}
