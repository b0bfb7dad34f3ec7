//! The commit point and the key layout of a persisted index (docs/FORMAT.md).
//!
//! Under an index `name`:
//! - `name/manifest`: the last commit — generation, commit id, config, and
//!   for each segment its chunk keys and tombstone key;
//! - `name/blob/<commit>-<segment>-<part>-<hash>`: immutable blobs, each
//!   written by exactly one commit (`part` is the chunk number, or `d` for
//!   tombstones; `hash` the XXH3-128 of the blob, checked on every read).
//!   Indexes written before commit ids hold `name/blob/<hash>` keys, which
//!   are read the same way;
//! - `name/pending/<commit>`: a commit in progress (see `persist.rs`).

use crate::codec::blob::{self, BlobKind};
use crate::error::{Error, Result};
use crate::json::{self, Object, ToJson, Value};
use crate::jsonopt::{self, Res};
use crate::schema::IndexConfig;

pub fn manifest_key(name: &str) -> String {
    format!("{name}/manifest")
}

pub(crate) fn blob_prefix(name: &str) -> String {
    format!("{name}/blob/")
}

pub(crate) fn pending_prefix(name: &str) -> String {
    format!("{name}/pending/")
}

/// A new commit id: 12 hex digits of milliseconds and 12 of
/// [`crate::host::unique_bits`]. The time part is past `parent`'s, so ids
/// along a chain of commits sort in commit order (recovery relies on it)
/// even when commits follow each other within a millisecond.
pub(crate) fn new_commit_id(parent: Option<&str>) -> String {
    let parent_ms = parent
        .and_then(|p| p.get(..12))
        .and_then(|t| u64::from_str_radix(t, 16).ok());
    let ms = parent_ms.map_or(0, |p| p + 1).max(crate::host::now_ms()) & 0xFFFF_FFFF_FFFF;
    format!("{ms:012x}{:012x}", crate::host::unique_bits())
}

/// Key of a blob written by `commit` for `segment`; `part` is the chunk
/// number or `None` for the segment's tombstones.
pub(crate) fn blob_key(
    name: &str,
    commit: &str,
    segment: u64,
    part: Option<usize>,
    sealed: &[u8],
) -> String {
    let part = part.map_or_else(|| "d".to_string(), |p| p.to_string());
    format!(
        "{}{commit}-{segment}-{part}-{}",
        blob_prefix(name),
        blob::content_key(sealed)
    )
}

/// What a blob key says about its blob (`None` fields for the old
/// `<hash>`-only keys).
#[derive(Debug, PartialEq)]
pub(crate) struct BlobName<'a> {
    pub commit: Option<&'a str>,
    pub segment: Option<u64>,
    /// `Some(Some(n))` chunk n, `Some(None)` tombstones.
    pub part: Option<Option<usize>>,
    pub hash: &'a str,
}

pub(crate) fn parse_blob_key(key: &str) -> Option<BlobName<'_>> {
    let file = key.rsplit('/').next()?;
    let fields: Vec<&str> = file.split('-').collect();
    let is_hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    match fields[..] {
        [hash] if is_hex(hash, 32) => Some(BlobName {
            commit: None,
            segment: None,
            part: None,
            hash,
        }),
        [commit, segment, part, hash] if is_hex(commit, 24) && is_hex(hash, 32) => Some(BlobName {
            commit: Some(commit),
            segment: Some(segment.parse().ok()?),
            part: Some(if part == "d" {
                None
            } else {
                Some(part.parse().ok()?)
            }),
            hash,
        }),
        _ => None,
    }
}

/// Checks a blob against the content hash in its key: CRCs catch damage,
/// this catches a blob replaced or edited with its CRC recomputed.
pub(crate) fn verify_blob(key: &str, bytes: &[u8]) -> Result<()> {
    let corrupt = |reason: &str| Error::Corrupt {
        key: key.to_string(),
        reason: reason.to_string(),
    };
    let name = parse_blob_key(key).ok_or_else(|| corrupt("not a blob key (no content hash)"))?;
    if blob::content_key(bytes) != name.hash {
        return Err(corrupt(
            "content does not match the hash in its key (the blob was altered or replaced)",
        ));
    }
    Ok(())
}

// Written by `ToJson`, read by `from_json` (see `parse_manifest`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SegmentRecord {
    pub id: u64,
    pub docs: u32,
    pub chunks: Vec<String>,
    pub deletes: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Manifest {
    pub generation: u64,
    /// Unique id of the commit that wrote this manifest (absent in
    /// manifests written before commit ids).
    pub commit: Option<String>,
    pub config: IndexConfig,
    pub next_segment_id: u64,
    pub segments: Vec<SegmentRecord>,
}

impl Manifest {
    /// Every blob key the manifest references.
    pub fn referenced(&self) -> impl Iterator<Item = &String> {
        self.segments
            .iter()
            .flat_map(|s| s.chunks.iter().chain(s.deletes.iter()))
    }
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
        let mut o = Object::new(out);
        o.field("generation", &self.generation);
        if let Some(commit) = &self.commit {
            o.field("commit", commit);
        }
        o.field("config", &self.config)
            .field("nextSegmentId", &self.next_segment_id)
            .field("segments", &self.segments)
            .end();
    }
}

/// Parsed into a `Value` and read by hand, like the options
/// (src/jsonopt.rs): an object, unknown keys ignored, `deletes` and
/// `commit` absent or `null` for none.
pub(crate) fn parse_manifest(key: &str, bytes: &[u8]) -> Result<Manifest> {
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
        let [generation, commit, config, next_segment_id, segments] = members(
            v,
            "",
            [
                "generation",
                "commit",
                "config",
                "nextSegmentId",
                "segments",
            ],
        )?;
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
            commit: jsonopt::opt(commit)
                .map(|c| jsonopt::string(c, "", "commit"))
                .transpose()?,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<Manifest> {
        parse_manifest("m", &blob::seal(BlobKind::Manifest, json.as_bytes()))
    }

    #[test]
    fn manifest_round_trips() {
        let mut manifest = Manifest {
            generation: 7,
            commit: Some("0123456789abcdef01234567".into()),
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
        // Manifests from before commit ids have none and still read.
        manifest.commit = None;
        let json = manifest.to_json();
        assert!(!json.contains("commit"), "{json}");
        assert_eq!(parse(&json).unwrap(), manifest);
    }

    #[test]
    fn manifest_reader_rejects_wrong_shapes() {
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
            r#"{"generation":1,"commit":5,"config":{},"nextSegmentId":2,"segments":[]}"#,
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

    #[test]
    fn blob_keys_parse_and_verify() {
        let sealed = blob::seal(BlobKind::Deletes, b"x");
        let commit = new_commit_id(None);
        assert_eq!(commit.len(), 24);
        let next = new_commit_id(Some(&commit));
        assert!(
            next > commit && next[..12] != commit[..12],
            "{commit} {next}"
        );
        let key = blob_key("idx", &commit, 7, Some(2), &sealed);
        let name = parse_blob_key(&key).unwrap();
        assert_eq!(
            (name.commit, name.segment, name.part),
            (Some(commit.as_str()), Some(7), Some(Some(2)))
        );
        let tomb = blob_key("idx", &commit, 7, None, &sealed);
        assert_eq!(parse_blob_key(&tomb).unwrap().part, Some(None));
        verify_blob(&key, &sealed).unwrap();
        let legacy = format!("idx/blob/{}", blob::content_key(&sealed));
        verify_blob(&legacy, &sealed).unwrap();
        let other = blob::seal(BlobKind::Deletes, b"y");
        assert_eq!(verify_blob(&key, &other).unwrap_err().code(), "CORRUPT");
        assert_eq!(
            verify_blob("idx/blob/zz", &sealed).unwrap_err().code(),
            "CORRUPT"
        );
        assert_ne!(new_commit_id(None), new_commit_id(None));
    }
}
