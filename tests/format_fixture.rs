//! Frozen format fixtures: indexes written by older builds must keep
//! opening (or fail with a clear VERSION error once a version is retired).
//! tests/fixtures/format-v1 was written by `examples/make_format_fixture.rs`
//! with format version 1 and is never regenerated.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

use memdex::storage::FsStorage;
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
        filter: Some(serde_json::json!({"namespace": "odd"})),
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
        filter: Some(serde_json::json!({"namespace": "even"})),
        ..Default::default()
    };
    assert!(index.search("segments", &even).unwrap().hits.is_empty());
}
