//! Persistence: storage conformance (memory, filesystem), commit/reopen
//! round trips, incremental commits, crash safety under injected faults at
//! every mutation of a commit and of a merge, corruption detection, writer
//! conflicts, and format versions (the frozen fixtures are in
//! tests/format_fixture.rs).
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use memdex::index::persist::manifest_key;
use memdex::json::Value;
use memdex::storage::{
    conformance, FaultMode, FaultyStorage, FsStorage, MemoryStorage, Storage, LOCAL_PART_BYTES,
    PART_BYTES,
};
use memdex::{Index, IndexConfig, SearchOptions};

/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

const TOPICS: &[&str] = &[
    "deploy the service on friday",
    "user prefers dark mode in the editor",
    "rust wasm build uses lto",
    "indexeddb stores segments in the browser",
    "merge policy keeps segments logarithmic",
    "the agent remembers decisions and rules",
    "python tests run with pytest",
    "kv values stay under 25 MiB",
];

fn doc(i: usize) -> Value {
    json!({
        "id": format!("m{i}"),
        "namespace": format!("ns{}", i % 3),
        "title": format!("memory {i}"),
        "text": format!("{} #{i}", TOPICS[i % TOPICS.len()]),
        "kind": if i % 2 == 0 { "note" } else { "rule" },
        "timestamp": 1_700_000_000_000u64 + i as u64,
    })
}

/// The visible state (`common::fingerprint`) over this file's queries.
fn fingerprint(index: &mut Index) -> Vec<String> {
    common::fingerprint(
        index,
        &[
            "deploy friday",
            "segments",
            "agent rules",
            "memory 7",
            "dark mode editor",
        ],
    )
}

#[test]
fn conformance_memory() {
    assert_eq!(
        block_on(conformance::run(&MemoryStorage::new(), "conf")).unwrap(),
        conformance::CHECKS
    );
}

#[test]
fn conformance_filesystem() {
    let dir = tempdir("conformance");
    assert_eq!(
        block_on(conformance::run(&FsStorage::new(&dir), "conf")).unwrap(),
        conformance::CHECKS
    );
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("memdex-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn commit_and_reopen_round_trip_on_filesystem() {
    let dir = tempdir("roundtrip");
    let storage = FsStorage::new(&dir);
    let mut index = block_on(Index::open(&storage, "idx", None)).unwrap();
    for i in 0..300 {
        index.add(&doc(i)).unwrap();
    }
    index.delete("m5");
    let info = block_on(index.commit(&storage, "idx")).unwrap();
    assert_eq!(info.generation, 1);
    let want = fingerprint(&mut index);
    let mut reopened = block_on(Index::open(&storage, "idx", None)).unwrap();
    assert_eq!(fingerprint(&mut reopened), want);
    assert_eq!(reopened.snapshot().get("m7").unwrap()["kind"], "rule");
    assert!(reopened.snapshot().get("m5").is_none());
    // Filters survive the round trip.
    let filtered = reopened
        .searcher()
        .search(
            "memory",
            &SearchOptions {
                filter: Some(json!({"namespace": "ns1", "kind": "rule"})),
                limit: 500,
                ..Default::default()
            },
        )
        .unwrap();
    assert!(!filtered.hits.is_empty());
    assert!(filtered
        .hits
        .iter()
        .all(|h| h.namespace.as_deref() == Some("ns1")
            && h.fields.get("kind").is_some_and(|k| k == "rule")));
}

#[test]
fn single_document_commit_writes_a_small_fraction() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..5000 {
        index.add(&doc(i)).unwrap();
    }
    block_on(index.commit(&storage, "idx")).unwrap();
    let total = storage.total_bytes();
    index.add(&doc(100_000)).unwrap();
    let info = block_on(index.commit(&storage, "idx")).unwrap();
    assert!(
        info.bytes_written * 100 < total,
        "one-document commit wrote {} of {} bytes",
        info.bytes_written,
        total
    );
    let mut reopened = block_on(Index::open(&storage, "idx", None)).unwrap();
    assert_eq!(reopened.len(), 5001);
    assert_eq!(fingerprint(&mut reopened), fingerprint(&mut index));
}

/// A memory store that asks for parts of `.1` bytes.
struct Parts<'a>(&'a MemoryStorage, usize);

impl Storage for Parts<'_> {
    async fn get(&self, key: &str) -> memdex::Result<Option<Vec<u8>>> {
        self.0.get(key).await
    }
    async fn put(&self, key: &str, value: &[u8]) -> memdex::Result<()> {
        self.0.put(key, value).await
    }
    async fn delete(&self, key: &str) -> memdex::Result<()> {
        self.0.delete(key).await
    }
    async fn list(&self, prefix: &str) -> memdex::Result<Vec<String>> {
        self.0.list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> memdex::Result<bool> {
        self.0.swap(key, expected, value).await
    }
    fn part_bytes(&self) -> usize {
        self.1
    }
}

/// A commit cuts segment bodies into the parts its storage asks for: the
/// smaller the parts, the more blobs; every layout reopens to the same
/// index, and an out-of-range request is clamped to the range.
#[test]
fn commits_cut_parts_of_the_storage_s_size() {
    let build = || {
        let mut index = Index::new(IndexConfig::default()).unwrap();
        for i in 0..6000 {
            index.add(&doc(i)).unwrap();
        }
        index
    };
    let want = fingerprint(&mut build());
    let mut blobs = Vec::new();
    for part_bytes in [1, 4096, LOCAL_PART_BYTES, PART_BYTES, usize::MAX] {
        let memory = MemoryStorage::new();
        let storage = Parts(&memory, part_bytes);
        block_on(build().commit(&storage, "idx")).unwrap();
        blobs.push(chunk_keys(&memory).len());
        let mut reopened = block_on(Index::open(&memory, "idx", None)).unwrap();
        assert_eq!(
            fingerprint(&mut reopened),
            want,
            "parts of {part_bytes} bytes"
        );
    }
    // 1 is clamped up to 4096, usize::MAX down to a chunk's payload.
    assert_eq!(blobs[0], blobs[1], "{blobs:?}");
    assert!(
        blobs[1] > blobs[2] && blobs[2] > blobs[3] && blobs[3] >= blobs[4],
        "{blobs:?}"
    );
    assert_eq!(MemoryStorage::new().part_bytes(), LOCAL_PART_BYTES);
}

/// Runs `change` on an index committed to `base`, then commits it to a copy
/// of `base` that faults at mutation `k`; checks the copy reopens to exactly
/// the old or (if the commit was acknowledged) the new state.
fn crash_matrix(setup: impl Fn(&mut Index), change: impl Fn(&mut Index)) {
    let base = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    setup(&mut index);
    block_on(index.commit(&base, "idx")).unwrap();
    let old_state = fingerprint(&mut block_on(Index::open(&base, "idx", None)).unwrap());

    // A clean run tells how many mutations the commit performs.
    let mut clean = block_on(Index::open(&base, "idx", None)).unwrap();
    change(&mut clean);
    let new_state = fingerprint(&mut clean);
    let probe = FaultyStorage::new(base.deep_clone());
    block_on(clean.commit(&probe, "idx")).unwrap();
    let mutations = probe.mutations();
    assert!(mutations >= 2, "a commit writes blobs and a manifest");
    assert_ne!(old_state, new_state);

    for mode in [FaultMode::Fail, FaultMode::Stop, FaultMode::FailAfter] {
        for k in 0..mutations {
            let copy = base.deep_clone();
            let faulty = FaultyStorage::new(copy.clone()).fail_at(k, mode);
            let mut index = block_on(Index::open(&base, "idx", None)).unwrap();
            change(&mut index);
            let acknowledged = block_on(index.commit(&faulty, "idx")).is_ok();
            let mut reopened = block_on(Index::open(&copy, "idx", None))
                .unwrap_or_else(|e| panic!("reopen after fault at {k} ({mode:?}) failed: {e}"));
            let state = fingerprint(&mut reopened);
            if acknowledged {
                assert_eq!(
                    state, new_state,
                    "acknowledged commit lost (fault at {k}, {mode:?})"
                );
            } else {
                assert_eq!(
                    state, old_state,
                    "failed commit changed the state (fault at {k}, {mode:?})"
                );
                // The writer keeps its changes and can retry.
                block_on(index.commit(&copy, "idx")).unwrap();
                let mut again = block_on(Index::open(&copy, "idx", None)).unwrap();
                assert_eq!(fingerprint(&mut again), new_state);
            }
        }
    }
}

#[test]
fn crash_at_every_mutation_of_a_commit() {
    crash_matrix(
        |ix| (0..40).for_each(|i| ix.add(&doc(i)).unwrap()),
        |ix| {
            ix.add(&doc(1000)).unwrap();
            ix.add(&doc(3)).unwrap(); // upsert
            ix.delete("m4");
        },
    );
}

#[test]
fn crash_at_every_mutation_of_a_merge() {
    crash_matrix(
        |ix| {
            for i in 0..6 {
                ix.add(&doc(i)).unwrap();
                ix.flush();
            }
        },
        |ix| {
            // Equal-size flushes cascade into merges that rewrite segments.
            for i in 6..14 {
                ix.add(&doc(i)).unwrap();
                ix.flush();
            }
            ix.delete("m1");
            ix.compact();
        },
    );
}

#[test]
fn every_flipped_byte_is_reported_corrupt_with_its_key() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..30 {
        index.add(&doc(i)).unwrap();
    }
    index.flush();
    index.add(&doc(99)).unwrap();
    index.delete("m2");
    block_on(index.commit(&storage, "idx")).unwrap();
    let keys = block_on(storage.list("idx/")).unwrap();
    assert!(keys.len() >= 3);
    for key in keys {
        let len = storage.with_map(|m| m[&key].len());
        let step = (len / 200).max(1);
        for pos in (0..len).step_by(step) {
            let copy = storage.deep_clone();
            copy.with_map(|m| m.get_mut(&key).unwrap()[pos] ^= 0x20);
            match block_on(Index::open(&copy, "idx", None)) {
                Err(e) => {
                    assert_eq!(e.code(), "CORRUPT", "{key}@{pos}: {e}");
                    assert!(e.to_string().contains(&key), "error names the key: {e}");
                }
                Ok(_) => panic!("flipped byte {pos} of {key} went unnoticed"),
            }
        }
    }
}

#[test]
fn second_writer_gets_conflict_then_reloads() {
    let storage = MemoryStorage::new();
    let mut a = block_on(Index::open(&storage, "idx", None)).unwrap();
    let mut b = block_on(Index::open(&storage, "idx", None)).unwrap();
    a.add(&doc(1)).unwrap();
    block_on(a.commit(&storage, "idx")).unwrap();
    b.add(&doc(2)).unwrap();
    let err = block_on(b.commit(&storage, "idx")).unwrap_err();
    assert_eq!(err.code(), "CONFLICT");
    // Storage still holds A's commit only.
    let check = block_on(Index::open(&storage, "idx", None)).unwrap();
    assert_eq!(check.len(), 1);
    assert!(check.snapshot().get("m1").is_some());
    block_on(b.reload(&storage, "idx")).unwrap();
    assert!(b.snapshot().get("m1").is_some());
    b.add(&doc(2)).unwrap();
    block_on(b.commit(&storage, "idx")).unwrap();
    let mut check = block_on(Index::open(&storage, "idx", None)).unwrap();
    assert_eq!(check.len(), 2);
    assert_eq!(fingerprint(&mut check), fingerprint(&mut b));
}

#[test]
fn newer_format_version_is_a_version_error() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    index.add(&doc(1)).unwrap();
    block_on(index.commit(&storage, "idx")).unwrap();
    let newer = memdex::codec::blob::FORMAT_VERSION + 1;
    storage.with_map(|m| set_version(m.get_mut(&manifest_key("idx")).unwrap(), newer));
    let err = block_on(Index::open(&storage, "idx", None)).err().unwrap();
    assert_eq!(
        err,
        memdex::Error::Version {
            expected: memdex::codec::blob::FORMAT_VERSION,
            got: newer
        }
    );
}

/// Keys of the segment chunk blobs (kind 2) under `storage`.
fn chunk_keys(storage: &MemoryStorage) -> Vec<String> {
    storage.with_map(|m| {
        m.iter()
            .filter(|(k, v)| k.contains("/blob/") && v[8] == 2)
            .map(|(k, _)| k.clone())
            .collect()
    })
}

#[test]
fn newer_segment_chunk_version_is_a_version_error() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    index.add(&doc(1)).unwrap();
    block_on(index.commit(&storage, "idx")).unwrap();
    let chunk = chunk_keys(&storage).remove(0);
    let mut newer = storage.with_map(|m| m[&chunk].clone());
    let newer_version = memdex::codec::blob::FORMAT_VERSION + 1;
    set_version(&mut newer, newer_version);
    replace_blob(&storage, &chunk, &[newer]);
    let err = block_on(Index::open(&storage, "idx", None)).err().unwrap();
    assert_eq!(
        err,
        memdex::Error::Version {
            expected: memdex::codec::blob::FORMAT_VERSION,
            got: newer_version
        }
    );
}

/// A segment chunk of a retired format version (1) is a `VERSION` error,
/// also next to a current chunk of the same segment.
#[test]
fn a_chunk_of_a_retired_version_is_a_version_error() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    index.add(&doc(1)).unwrap();
    block_on(index.commit(&storage, "idx")).unwrap();
    let chunk = chunk_keys(&storage).remove(0);
    let current = storage.with_map(|m| m[&chunk].clone());
    let mut older = current.clone();
    set_version(&mut older, 1);
    replace_blob(&storage, &chunk, &[current, older]);
    let err = block_on(Index::open(&storage, "idx", None)).err().unwrap();
    assert_eq!(err.code(), "VERSION", "{err}");
}

/// Stores `blobs` under content keys (as a writer of them would) and makes
/// the manifest reference them in place of `old`.
fn replace_blob(storage: &MemoryStorage, old: &str, blobs: &[Vec<u8>]) {
    use memdex::codec::blob::{self, BlobKind};
    storage.with_map(|m| {
        let keys: Vec<String> = blobs
            .iter()
            .map(|b| {
                let key = format!("idx/blob/{}", blob::content_key(b));
                m.insert(key.clone(), b.clone());
                key
            })
            .collect();
        let sealed = &m[&manifest_key("idx")];
        let text = std::str::from_utf8(blob::open("m", BlobKind::Manifest, sealed).unwrap())
            .unwrap()
            .replace(
                &format!("\"{old}\""),
                serde_json::to_string(&keys).unwrap()[1..].trim_end_matches(']'),
            );
        m.insert(
            manifest_key("idx"),
            blob::seal(BlobKind::Manifest, text.as_bytes()),
        );
    });
}

/// Sets a blob's format version, recomputing its CRC.
fn set_version(blob: &mut [u8], version: u32) {
    blob[4..8].copy_from_slice(&version.to_le_bytes());
    common::reseal(blob);
}

#[test]
fn schema_mismatch_on_open_is_an_error() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    index.add(&doc(1)).unwrap();
    block_on(index.commit(&storage, "idx")).unwrap();
    // A new analyzer cannot apply in place (tests/schema_upgrade.rs has
    // the changes that can).
    let mut other = IndexConfig::default();
    other.analyzer.language = memdex::analysis::Language::German;
    let err = block_on(Index::open(&storage, "idx", Some(other)))
        .err()
        .unwrap();
    assert_eq!(err.code(), "SCHEMA");
}

#[test]
fn snapshot_export_import_round_trip() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..50 {
        index.add(&doc(i)).unwrap();
    }
    index.delete("m3");
    let bytes = index.export_snapshot();
    let mut copy = Index::import_snapshot(&bytes).unwrap();
    assert_eq!(fingerprint(&mut copy), fingerprint(&mut index));
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 1;
    assert_eq!(
        Index::import_snapshot(&bad).err().unwrap().code(),
        "CORRUPT"
    );
    // A well-sealed snapshot whose inner blobs are damaged or missing is
    // CORRUPT naming the blob, as a load from storage would say.
    type Edit<'a> = &'a dyn Fn(&str, &[u8]) -> Option<Vec<u8>>;
    let reframe = |edit: Edit| {
        use memdex::codec::blob::{self, BlobKind};
        use memdex::codec::bytes::{ByteReader, ByteWriter};
        let payload = blob::open("snapshot", BlobKind::Snapshot, &bytes).unwrap();
        let mut r = ByteReader::new("snapshot", payload);
        let n = r.u64().unwrap();
        let mut kept = Vec::new();
        for _ in 0..n {
            let (k, v) = (r.str().unwrap(), r.bytes().unwrap());
            if let Some(v) = edit(k, v) {
                kept.push((k.to_string(), v));
            }
        }
        let mut w = ByteWriter::default();
        w.u64(kept.len() as u64);
        for (k, v) in &kept {
            w.str(k);
            w.bytes(v);
        }
        Index::import_snapshot(&blob::seal(BlobKind::Snapshot, &w.buf))
            .err()
            .unwrap()
    };
    let is_chunk = |k: &str| k.contains("/blob/") && !k.contains("-d-");
    let missing = reframe(&|k, v| (!is_chunk(k)).then(|| v.to_vec()));
    assert_eq!(missing.code(), "CORRUPT");
    assert!(
        missing
            .to_string()
            .contains("referenced by the manifest is missing"),
        "{missing}"
    );
    let damaged = reframe(&|k, v| {
        let mut v = v.to_vec();
        if is_chunk(k) {
            let last = v.len() - 1;
            v[last] ^= 1;
        }
        Some(v)
    });
    assert_eq!(damaged.code(), "CORRUPT");
    let no_manifest = reframe(&|k, v| k.contains("/blob/").then(|| v.to_vec()));
    assert!(
        no_manifest.to_string().contains("snapshot has no manifest"),
        "{no_manifest}"
    );
    // Exporting does not disturb later commits.
    let storage = MemoryStorage::new();
    block_on(index.commit(&storage, "idx")).unwrap();
    assert_eq!(
        block_on(Index::open(&storage, "idx", None)).unwrap().len(),
        49
    );
}
