//! Snapshots: a whole committed index as one self-contained byte array (the
//! blobs a commit writes, framed as one blob of kind 4):
//!
//! ```text
//! "MDEX" | u32 version | u8 4 | u64 n | n × (u64 len, key, u64 len, blob) | u32 CRC32C
//! ```
//!
//! the segment chunks and tombstones first, the manifest last. Written part
//! by part ([`SnapshotParts`]: one blob a part) and read part by part
//! ([`SnapshotReader`]), so neither side holds the whole snapshot in one
//! buffer; [`Index::export_snapshot`] and [`Index::import_snapshot`] are
//! the same bytes whole.

use crate::codec::blob::{self, BlobKind};
use crate::codec::bytes::ByteReader;
use crate::codec::crc::crc32c_append;
use crate::error::{Error, Result};
use crate::json::ToJson;
use crate::schema::IndexConfig;
use crate::FieldMap;

use super::load::{LoadedIndex, SegmentData};
use super::manifest::{blob_key, manifest_key, new_commit_id, parse_manifest, verify_blob};
use super::manifest::{Manifest, SegmentRecord};
use super::persist::{encode_deletes, seal_chunk, seal_segment, PersistState};
use super::serialize::SegmentBytes;
use super::{Index, SegmentEntry};
use crate::storage::PART_BYTES;

/// Name under which snapshots store the index.
const SNAPSHOT_NAME: &str = "snapshot";
/// Key errors of a snapshot name.
const KEY: &str = "snapshot";
/// Magic, version and kind.
const HEADER_LEN: usize = 9;

/// A snapshot of an index being written, one part at a time: the header,
/// then one part per blob, then the manifest with the checksum. It holds
/// the index's segments as they were when it started (shared, not
/// copied), so later writes to the index do not change it; memory beyond
/// them is one segment's serialized bytes and one chunk.
pub struct SnapshotParts {
    commit: String,
    config: IndexConfig,
    next_segment_id: u64,
    entries: Vec<SegmentEntry>,
    /// Sealed blobs of each segment when they were kept from counting.
    kept: Vec<Vec<(String, Vec<u8>)>>,
    blobs: u64,
    next: usize,
    /// The segment being written: its blobs (kept, or cut from its bytes
    /// one chunk a part) and the keys written so far.
    current: Option<Current>,
    /// The first segment's bytes, from counting.
    first: Option<SegmentBytes>,
    records: Vec<SegmentRecord>,
    crc: u32,
    started: bool,
    done: bool,
}

struct Current {
    entry: SegmentEntry,
    kept: std::vec::IntoIter<(String, Vec<u8>)>,
    bytes: SegmentBytes,
    chunk: usize,
    keys: Vec<String>,
}

fn frame(out: &mut Vec<u8>, key: &str, blob: &[u8]) {
    out.reserve(key.len() + blob.len() + 16);
    out.extend_from_slice(&(key.len() as u64).to_le_bytes());
    out.extend_from_slice(key.as_bytes());
    out.extend_from_slice(&(blob.len() as u64).to_le_bytes());
    out.extend_from_slice(blob);
}

impl SnapshotParts {
    /// `keep`: keep each segment's blobs from counting them (one
    /// serialization, all blobs held) instead of serializing each segment
    /// again as its turn comes (one segment held at a time). Parts are of
    /// the default size ([`PART_BYTES`]): a snapshot is read back into any store.
    fn new(index: &mut Index, keep: bool) -> SnapshotParts {
        index.flush();
        let entries = index.segments.clone();
        // Counted before the header, which says how many blobs follow.
        let commit = new_commit_id(None);
        let mut blobs = 1;
        let mut kept = Vec::new();
        let mut first = None;
        // Last to first, so that the first segment's bytes, serialized
        // last, are kept for its turn to be written: one serialization less.
        for (i, e) in entries.iter().enumerate().rev() {
            blobs += u64::from(!e.deletes.is_empty());
            if keep {
                let sealed = seal_segment(SNAPSHOT_NAME, &commit, e.id, &e.segment, PART_BYTES);
                blobs += sealed.len() as u64;
                kept.push(sealed);
            } else {
                let bytes = super::serialize::write_segment(&e.segment);
                blobs += bytes.ends.len() as u64;
                first = (i == 0).then_some(bytes);
            }
        }
        kept.reverse();
        SnapshotParts {
            commit,
            config: index.config.clone(),
            next_segment_id: index.next_segment_id,
            entries,
            kept,
            blobs,
            next: 0,
            current: None,
            first,
            records: Vec::new(),
            crc: 0,
            started: false,
            done: false,
        }
    }

    /// The next part, `None` after the last.
    pub fn next_part(&mut self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        if !self.started {
            self.started = true;
            out.extend_from_slice(blob::MAGIC);
            out.extend_from_slice(&blob::FORMAT_VERSION.to_le_bytes());
            out.push(BlobKind::Snapshot as u8);
            out.extend_from_slice(&self.blobs.to_le_bytes());
        } else if let Some(part) = self.segment_part() {
            out = part;
        } else if !self.done {
            self.done = true;
            let manifest = Manifest {
                generation: 1,
                commit: Some(self.commit.clone()),
                config: self.config.clone(),
                next_segment_id: self.next_segment_id,
                segments: std::mem::take(&mut self.records),
            };
            let sealed = blob::seal(BlobKind::Manifest, manifest.to_json().as_bytes());
            frame(&mut out, &manifest_key(SNAPSHOT_NAME), &sealed);
            self.crc = crc32c_append(self.crc, &out);
            out.extend_from_slice(&self.crc.to_le_bytes());
            return Some(out);
        } else {
            return None;
        }
        self.crc = crc32c_append(self.crc, &out);
        Some(out)
    }

    /// The next blob of the segments, framed; `None` after the last.
    fn segment_part(&mut self) -> Option<Vec<u8>> {
        loop {
            let Some(cur) = &mut self.current else {
                let entry = self.entries.get(self.next)?.clone();
                let kept = self.kept.get_mut(self.next).map(std::mem::take);
                self.next += 1;
                self.current = Some(Current {
                    bytes: match (kept.is_some(), self.first.take()) {
                        (true, _) => SegmentBytes {
                            bytes: Vec::new(),
                            ends: Vec::new(),
                        },
                        (false, Some(bytes)) => bytes,
                        (false, None) => super::serialize::write_segment(&entry.segment),
                    },
                    kept: kept.unwrap_or_default().into_iter(),
                    entry,
                    chunk: 0,
                    keys: Vec::new(),
                });
                continue;
            };
            let id = cur.entry.id;
            let blob = match cur.kept.next() {
                Some(kept) => Some(kept),
                None if self.kept.is_empty() && cur.chunk < cur.bytes.ends.len() => {
                    let start = cur.chunk.checked_sub(1).map_or(0, |i| cur.bytes.ends[i]);
                    let piece = &cur.bytes.bytes[start..cur.bytes.ends[cur.chunk]];
                    Some(seal_chunk(
                        SNAPSHOT_NAME,
                        &self.commit,
                        id,
                        cur.chunk,
                        piece,
                    ))
                }
                None => None,
            };
            let mut out = Vec::new();
            if let Some((key, sealed)) = blob {
                cur.chunk += 1;
                frame(&mut out, &key, &sealed);
                cur.keys.push(key);
                return Some(out);
            }
            // Every chunk written: the tombstones, then the next segment.
            let cur = self.current.take()?;
            let e = &cur.entry;
            let deletes = (!e.deletes.is_empty()).then(|| {
                let sealed = encode_deletes(&e.deletes, e.segment.n_docs);
                let key = blob_key(SNAPSHOT_NAME, &self.commit, e.id, None, &sealed);
                frame(&mut out, &key, &sealed);
                key
            });
            self.records.push(SegmentRecord {
                id: e.id,
                docs: e.segment.n_docs,
                chunks: cur.keys,
                deletes,
            });
            if !out.is_empty() {
                return Some(out);
            }
        }
    }
}

impl Index {
    /// The snapshot of [`Index::export_snapshot`], part by part: at most
    /// one segment's serialized bytes are held at a time.
    pub fn snapshot_parts(&mut self) -> SnapshotParts {
        SnapshotParts::new(self, false)
    }

    /// The whole index as bytes for [`Index::import_snapshot`].
    pub fn export_snapshot(&mut self) -> Vec<u8> {
        let mut parts = SnapshotParts::new(self, true);
        let held: usize = parts
            .kept
            .iter()
            .flatten()
            .map(|(k, b)| k.len() + b.len() + 16)
            .sum();
        let mut out = Vec::with_capacity(held + (64 << 10));
        while let Some(part) = parts.next_part() {
            out.extend_from_slice(&part);
        }
        out
    }

    /// Rebuilds an index from [`Index::export_snapshot`] bytes: the
    /// manifest and blobs it holds, read as [`load`](super::load) reads
    /// storage (blobs checked against their keys' hashes), synchronously.
    pub fn import_snapshot(bytes: &[u8]) -> Result<Index> {
        let payload = blob::open(KEY, BlobKind::Snapshot, bytes)?;
        let mut r = ByteReader::new(KEY, payload);
        let mut blobs: FieldMap<&[u8]> = FieldMap::new();
        for _ in 0..r.len(16)? {
            let k = r.str()?.to_string();
            blobs.insert(k, r.bytes()?);
        }
        Index::from_snapshot_blobs(&blobs)
    }

    /// The index of a snapshot's blobs (key -> bytes, verified on use).
    fn from_snapshot_blobs<B: AsRef<[u8]>>(blobs: &FieldMap<B>) -> Result<Index> {
        let corrupt = |reason: String| Error::Corrupt {
            key: KEY.to_string(),
            reason,
        };
        let mkey = manifest_key(SNAPSHOT_NAME);
        let manifest_bytes = blobs
            .get(&mkey)
            .ok_or_else(|| corrupt("snapshot has no manifest".into()))?
            .as_ref();
        let blob = |k: &str, what: &str| -> Result<&[u8]> {
            let b = blobs.get(k).map(AsRef::as_ref).ok_or_else(|| {
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

/// Reads a snapshot part by part, however its bytes are cut: each blob is
/// kept as it completes, the checksum runs along, and [`finish`] checks it
/// and builds the index.
///
/// [`finish`]: SnapshotReader::finish
#[derive(Default)]
pub struct SnapshotReader {
    /// Bytes received and not yet taken.
    pending: Vec<u8>,
    version: Option<u32>,
    /// Blobs still to come (`None` before the count).
    left: Option<u64>,
    key: Option<String>,
    blobs: FieldMap<Vec<u8>>,
    crc: u32,
    stored_crc: Option<u32>,
}

/// Longest key or blob a snapshot frames: far above the 4 MiB chunks and
/// any manifest, far below what a damaged length would make it allocate.
const MAX_FRAMED: u64 = 1 << 30;

fn corrupt(reason: impl Into<String>) -> Error {
    Error::Corrupt {
        key: KEY.to_string(),
        reason: reason.into(),
    }
}

impl SnapshotReader {
    /// Takes the next part of the snapshot's bytes.
    pub fn push(&mut self, part: &[u8]) -> Result<()> {
        if self.stored_crc.is_some() && !part.is_empty() {
            return Err(corrupt("bytes after the end of the snapshot"));
        }
        // Items whole in `part` are taken from it directly; only an item
        // cut by the part's end waits in `pending` for the next part.
        let mut pending = std::mem::take(&mut self.pending);
        let bytes = match pending.is_empty() {
            true => part,
            false => {
                pending.extend_from_slice(part);
                &pending[..]
            }
        };
        let mut pos = 0;
        while let Some(taken) = self.take_one(&bytes[pos..])? {
            pos += taken;
        }
        self.pending = bytes[pos..].to_vec();
        Ok(())
    }

    /// Takes one item from the front of `bytes`: how many bytes it took, or
    /// `None` when the item is not complete yet.
    fn take_one(&mut self, bytes: &[u8]) -> Result<Option<usize>> {
        let u64_at = |at: usize| -> Option<u64> {
            Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
        };
        let taken = if self.version.is_none() {
            if bytes.len() < HEADER_LEN + 8 {
                return Ok(None);
            }
            if &bytes[..4] != blob::MAGIC {
                return Err(corrupt("not a memdex blob (bad magic)"));
            }
            if bytes[8] != BlobKind::Snapshot as u8 {
                return Err(corrupt("unexpected blob kind"));
            }
            self.version = Some(u32::from_le_bytes(bytes[4..8].try_into().unwrap()));
            self.left = u64_at(HEADER_LEN);
            HEADER_LEN + 8
        } else if self.left == Some(0) {
            if self.stored_crc.is_some() {
                return match bytes.is_empty() {
                    true => Ok(None),
                    false => Err(corrupt("bytes after the end of the snapshot")),
                };
            }
            let Some(crc) = bytes.get(..4) else {
                return Ok(None);
            };
            self.stored_crc = Some(u32::from_le_bytes(crc.try_into().unwrap()));
            return Ok(Some(4));
        } else {
            let Some(len) = u64_at(0) else {
                return Ok(None);
            };
            if len > MAX_FRAMED {
                return Err(corrupt(format!("length {len} exceeds the blob")));
            }
            let Some(body) = bytes.get(8..8 + len as usize) else {
                return Ok(None);
            };
            match self.key.take() {
                None => {
                    let key =
                        std::str::from_utf8(body).map_err(|_| corrupt("invalid UTF-8 string"))?;
                    self.key = Some(key.to_string());
                }
                Some(key) => {
                    self.blobs.insert(key, body.to_vec());
                    self.left = self.left.map(|n| n - 1);
                }
            }
            8 + len as usize
        };
        self.crc = crc32c_append(self.crc, &bytes[..taken]);
        Ok(Some(taken))
    }

    /// The index the snapshot holds, once every part was pushed.
    pub fn finish(self) -> Result<Index> {
        let (Some(version), Some(stored)) = (self.version, self.stored_crc) else {
            return Err(corrupt("snapshot ends early (truncated)"));
        };
        if stored != self.crc {
            return Err(corrupt("CRC32C checksum mismatch"));
        }
        if !(blob::OLDEST_READ_VERSION..=blob::FORMAT_VERSION).contains(&version) {
            return Err(Error::Version {
                expected: blob::FORMAT_VERSION,
                got: version,
            });
        }
        Index::from_snapshot_blobs(&self.blobs)
    }
}
