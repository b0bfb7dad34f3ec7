//! Frozen format fixtures: indexes written by older builds must keep
//! opening (or fail with a clear VERSION error once a version is retired).
//! tests/fixtures/format-v1 and format-v2 were written by
//! `examples/make_format_fixture.rs` with format versions 1 and 2 and are
//! never regenerated.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

use memdex::storage::{FsStorage, MemoryStorage};
use memdex::{Index, Mode, SearchOptions};

fn open_v1() -> Index {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/format-v1");
    pollster::block_on(Index::open(&FsStorage::new(dir), "fixture", None)).expect("format v1 opens")
}

#[test]
fn format_v1_fixture_opens_and_searches() {
    let mut index = open_v1();
    assert_eq!(index.len(), 7);
    assert_eq!(index.generation(), 1);
    assert!(index.get("f4").is_none(), "the tombstone survived");
    assert_eq!(index.get("f1").unwrap()["title"], "Editor");
    let ids = |ix: &mut Index, q: &str, mode| -> Vec<String> {
        let opts = SearchOptions {
            mode,
            ..Default::default()
        };
        ix.search(q, &opts)
            .unwrap()
            .hits
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    assert_eq!(ids(&mut index, "deploy friday", Mode::And), ["f0"]);
    assert_eq!(ids(&mut index, "segments", Mode::Or).len(), 2);
    assert_eq!(ids(&mut index, "\"dark mode\"", Mode::Or), ["f1"]);
    assert!(ids(&mut index, "deleted memory", Mode::Or).is_empty());
    let ns = SearchOptions {
        filter: Some(json!({"namespace": "odd"})),
        ..Default::default()
    };
    let mut hits: Vec<String> = index
        .search("segments", &ns)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect();
    hits.sort();
    assert_eq!(hits, ["f3", "f7"]);
    let even = SearchOptions {
        filter: Some(json!({"namespace": "even"})),
        ..Default::default()
    };
    assert!(index.search("segments", &even).unwrap().hits.is_empty());
}

fn open_fixture(dir: &str) -> Index {
    let dir = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
    pollster::block_on(Index::open(&FsStorage::new(dir), "fixture", None)).expect("fixture opens")
}

/// Hit ids of `q`, in rank order.
fn hits(index: &mut Index, q: &str, mode: Mode) -> Vec<String> {
    let opts = SearchOptions {
        mode,
        ..Default::default()
    };
    let results = index.search(q, &opts).unwrap();
    results.hits.into_iter().map(|h| h.id).collect()
}

/// Queries that go through the term dictionary: exact terms, phrases,
/// prefixes, fuzzy terms (including a non-ASCII one), misses.
const DICT_QUERIES: &[&str] = &[
    "deploy friday",
    "segments",
    "\"dark mode\"",
    "deleted memory",
    "seg*",
    "w*",
    "deplo~1",
    "segmnts~2",
    "fridya~2",
    "brwser~1",
    "mïb~1",
    "wasm-opt",
    "k1 1.2",
    "zzz*",
];

/// Format v2 (front-coded term dictionary) was written from the same
/// documents as v1 and must answer every query the same way.
#[test]
fn format_v2_fixture_opens_and_answers_like_v1() {
    let mut v1 = open_v1();
    let mut v2 = open_fixture("format-v2");
    assert_eq!(v2.len(), 7);
    assert_eq!(v2.generation(), 1);
    assert!(v2.get("f4").is_none(), "the tombstone survived");
    assert_eq!(v2.get("f1").unwrap()["title"], "Editor");
    assert_eq!(hits(&mut v2, "deploy friday", Mode::And), ["f0"]);
    assert_eq!(hits(&mut v2, "seg*", Mode::Or).len(), 2);
    assert_eq!(hits(&mut v2, "fridya~2", Mode::Or), ["f0"]);
    for q in DICT_QUERIES {
        for mode in [Mode::Or, Mode::And] {
            assert_eq!(
                hits(&mut v1, q, mode),
                hits(&mut v2, q, mode),
                "{q} {mode:?}"
            );
        }
    }
    for prefix in ["s", "de", "w", "q"] {
        assert_eq!(v1.suggest(prefix, 10), v2.suggest(prefix, 10), "{prefix}");
    }
    // The blobs are version 2 (this is not the v1 fixture again).
    let blobs = format!(
        "{}/tests/fixtures/format-v2/fixture/blob",
        env!("CARGO_MANIFEST_DIR")
    );
    for entry in std::fs::read_dir(blobs).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert_eq!(bytes[4..8], 2u32.to_le_bytes());
    }
}

/// Committing an index opened from v1 blobs writes only new (and merged)
/// segments, in v2; the manifest then references segments of both
/// versions, which reopen and merge together.
#[test]
fn v1_segments_stay_readable_beside_v2_segments() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/format-v1");
    let storage = MemoryStorage::new();
    for entry in std::fs::read_dir(format!("{root}/fixture/blob")).unwrap() {
        let path = entry.unwrap().path();
        let key = format!(
            "fixture/blob/{}",
            path.file_name().unwrap().to_str().unwrap()
        );
        storage.with_map(|m| m.insert(key, std::fs::read(&path).unwrap()));
    }
    let manifest = std::fs::read(format!("{root}/fixture/manifest")).unwrap();
    storage.with_map(|m| m.insert("fixture/manifest".into(), manifest));

    let mut index = pollster::block_on(Index::open(&storage, "fixture", None)).unwrap();
    index
        .add(&json!({"id": "n1", "title": "Segments", "text": "segmented deployments"}))
        .unwrap();
    pollster::block_on(index.commit(&storage, "fixture")).unwrap();
    let versions: Vec<u32> = storage.with_map(|m| {
        m.iter()
            .filter(|(k, _)| k.contains("/blob/"))
            .map(|(_, v)| u32::from_le_bytes([v[4], v[5], v[6], v[7]]))
            .collect()
    });
    assert!(
        versions.contains(&1) && versions.contains(&2),
        "{versions:?}"
    );

    let mut reopened = pollster::block_on(Index::open(&storage, "fixture", None)).unwrap();
    assert_eq!(reopened.len(), 8);
    assert_eq!(hits(&mut reopened, "segment*", Mode::Or).len(), 3);
    assert_eq!(hits(&mut reopened, "deplo~2", Mode::Or), ["f0", "n1"]);
    reopened.compact();
    assert_eq!(hits(&mut reopened, "segment*", Mode::Or).len(), 3);
    assert_eq!(hits(&mut reopened, "\"dark mode\"", Mode::Or), ["f1"]);
}
