//! Blob framing: every persisted blob is
//!
//! ```text
//! magic "MDEX" | u32 format version | u8 kind | payload | u32 CRC32C
//! ```
//!
//! (little-endian; the CRC covers everything before it). [`open`] checks the
//! CRC first — so any flipped byte, in the header too, is `CORRUPT` — and
//! only then the version, so a valid blob from a newer memdex is `VERSION`.
//! Blobs of older versions still read are opened with their version, for
//! the readers whose layout changed ([`open_versioned`]). Content-addressed
//! blobs, whose hash was checked against their key, are opened without
//! computing the CRC again ([`open_addressed`]).

use super::crc::crc32c;
use crate::error::{Error, Result};

pub const MAGIC: &[u8; 4] = b"MDEX";
/// Version written. Bump on any layout change and keep a frozen fixture of
/// the old version under `tests/fixtures/`.
pub const FORMAT_VERSION: u32 = 10;
/// Oldest version read. Version 1 (an `fst` map as the segment's term
/// dictionary) was written only by the unreleased 0.1.0 and is retired:
/// its reader linked the `fst` crate into the wasm (3.5 KB gz). Its blobs
/// are `VERSION` errors (docs/FORMAT.md, "Compatibility").
pub const OLDEST_READ_VERSION: u32 = 2;
const HEADER_LEN: usize = 4 + 4 + 1;
const FOOTER_LEN: usize = 4;

/// What a blob holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum BlobKind {
    Manifest = 1,
    SegmentChunk = 2,
    Deletes = 3,
    /// A whole index exported as one byte array.
    Snapshot = 4,
    /// A commit in progress: its start time (u64 ms since the epoch).
    Pending = 5,
}

/// Frames `payload` as a blob of `kind`.
pub fn seal(kind: BlobKind, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN + payload.len() + FOOTER_LEN);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.push(kind as u8);
    out.extend_from_slice(payload);
    let crc = crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    out
}

/// Verifies a blob and returns its payload, for kinds whose layout is the
/// same in every version read. `key` names the blob in errors.
pub fn open<'a>(key: &str, kind: BlobKind, blob: &'a [u8]) -> Result<&'a [u8]> {
    open_versioned(key, kind, blob).map(|(_, payload)| payload)
}

/// Verifies a blob and returns its format version and payload.
pub fn open_versioned<'a>(key: &str, kind: BlobKind, blob: &'a [u8]) -> Result<(u32, &'a [u8])> {
    unframe(key, kind, blob, true)
}

/// [`open_versioned`] of a content-addressed blob whose bytes the caller
/// has already matched against the hash in its key
/// (`index::manifest::verify_blob`). That XXH3-128 covers every byte the
/// CRC covers, and detects whatever the CRC would, so the CRC is not
/// computed again: in wasm, where CRC32C has no instruction, it was the
/// costliest pass over a fetched part (bench/HISTORY.md).
pub fn open_addressed<'a>(key: &str, kind: BlobKind, blob: &'a [u8]) -> Result<(u32, &'a [u8])> {
    unframe(key, kind, blob, false)
}

fn unframe<'a>(
    key: &str,
    kind: BlobKind,
    blob: &'a [u8],
    check_crc: bool,
) -> Result<(u32, &'a [u8])> {
    let corrupt = |reason: &str| Error::Corrupt {
        key: key.to_string(),
        reason: reason.to_string(),
    };
    if blob.len() < HEADER_LEN + FOOTER_LEN {
        return Err(corrupt("blob is shorter than its header and checksum"));
    }
    let (body, crc) = blob.split_at(blob.len() - FOOTER_LEN);
    let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
    if check_crc && crc32c(body) != stored {
        return Err(corrupt("CRC32C checksum mismatch"));
    }
    if &body[..4] != MAGIC {
        return Err(corrupt("not a memdex blob (bad magic)"));
    }
    let version = u32::from_le_bytes([body[4], body[5], body[6], body[7]]);
    if !(OLDEST_READ_VERSION..=FORMAT_VERSION).contains(&version) {
        return Err(Error::Version {
            expected: FORMAT_VERSION,
            got: version,
        });
    }
    if body[8] != kind as u8 {
        return Err(corrupt("unexpected blob kind"));
    }
    Ok((version, &body[HEADER_LEN..]))
}

/// Content address of a blob: 128-bit XXH3, hex.
pub fn content_key(blob: &[u8]) -> String {
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(blob))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_every_flipped_byte_is_detected() {
        let blob = seal(BlobKind::Deletes, b"hello");
        assert_eq!(open("k", BlobKind::Deletes, &blob).unwrap(), b"hello");
        for i in 0..blob.len() {
            let mut bad = blob.clone();
            bad[i] ^= 0x01;
            assert_eq!(
                open("k", BlobKind::Deletes, &bad).unwrap_err().code(),
                "CORRUPT",
                "byte {i}"
            );
        }
        assert_eq!(
            open("k", BlobKind::Manifest, &blob).unwrap_err().code(),
            "CORRUPT"
        );
    }

    /// `blob` with its version set to `version` and the CRC recomputed.
    fn with_version(mut blob: Vec<u8>, version: u32) -> Vec<u8> {
        blob[4..8].copy_from_slice(&version.to_le_bytes());
        let n = blob.len() - 4;
        let crc = crc32c(&blob[..n]);
        blob[n..].copy_from_slice(&crc.to_le_bytes());
        blob
    }

    #[test]
    fn newer_and_unknown_versions_are_version_errors() {
        for version in [0, 1, FORMAT_VERSION + 1, 100] {
            let blob = with_version(seal(BlobKind::Manifest, b"{}"), version);
            assert_eq!(
                open("m", BlobKind::Manifest, &blob).unwrap_err(),
                Error::Version {
                    expected: FORMAT_VERSION,
                    got: version
                }
            );
        }
    }

    #[test]
    fn an_addressed_blob_skips_only_the_crc() {
        let mut blob = seal(BlobKind::SegmentChunk, b"part");
        let n = blob.len();
        blob[n - 1] ^= 0x01;
        assert_eq!(
            open("k", BlobKind::SegmentChunk, &blob).unwrap_err().code(),
            "CORRUPT"
        );
        let opened = open_addressed("k", BlobKind::SegmentChunk, &blob).unwrap();
        assert_eq!(opened, (FORMAT_VERSION, &b"part"[..]));
        // The frame is still checked: kind, magic, length and version.
        let addressed = |b: &[u8], kind| open_addressed("k", kind, b).map(|_| ()).unwrap_err();
        assert_eq!(addressed(&blob, BlobKind::Deletes).code(), "CORRUPT");
        let mut magic = blob.clone();
        magic[0] = b'X';
        assert_eq!(addressed(&magic, BlobKind::SegmentChunk).code(), "CORRUPT");
        assert_eq!(
            addressed(&blob[..8], BlobKind::SegmentChunk).code(),
            "CORRUPT"
        );
        let newer = with_version(blob, FORMAT_VERSION + 1);
        assert_eq!(addressed(&newer, BlobKind::SegmentChunk).code(), "VERSION");
    }
}
