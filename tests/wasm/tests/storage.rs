//! Browser tests of the IndexedDB storage adapter (`pkg-template/storage/
//! indexeddb.js`) in headless Chromium (`wasm-pack test --headless --chrome`),
//! against a real IndexedDB:
//! - it passes the one storage conformance suite (`storage::conformance`);
//! - an index committed through it reopens (new connection) with identical
//!   search results, and a one-document commit writes only the change;
//! - a flipped byte in a stored blob makes opening fail with `CORRUPT`;
//! - another connection upgrading the database does not break the adapter.
#![cfg(target_arch = "wasm32")]

use js_sys::{Function, Promise, Reflect};
use memdex::json::Value;
use memdex::storage::js::JsStorage;
use memdex::storage::{conformance, Storage};
use memdex::{Index, IndexConfig, Mode, SearchOptions};

/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

// Paths are relative to the tests/wasm crate, where `pkg-template` is a
// symlink to the repository's pkg-template/ (the adapters under test).
#[wasm_bindgen(module = "/pkg-template/storage/indexeddb.js")]
extern "C" {
    #[wasm_bindgen(js_name = indexedDBStorage)]
    fn indexed_db_storage(options: &JsValue) -> JsValue;
}

// indexeddb.js imports ./util.js; naming it here makes wasm-bindgen copy it
// next to indexeddb.js in the test bundle.
#[wasm_bindgen(module = "/pkg-template/storage/util.js")]
extern "C" {
    #[wasm_bindgen(js_name = prefixEnd)]
    fn prefix_end(prefix: &str) -> Option<String>;
}

fn adapter(database: &str, store: &str) -> JsValue {
    let options = js_sys::Object::new();
    Reflect::set(&options, &"database".into(), &database.into()).unwrap();
    Reflect::set(&options, &"store".into(), &store.into()).unwrap();
    indexed_db_storage(&options.into())
}

/// Calls an async method of a JS object and awaits it.
async fn call(object: &JsValue, method: &str) -> Result<JsValue, JsValue> {
    let f: Function = Reflect::get(object, &method.into())?.dyn_into()?;
    let ret = f.call0(object)?;
    JsFuture::from(Promise::resolve(&ret)).await
}

/// Starts from an empty database.
async fn fresh(database: &str) -> JsValue {
    let a = adapter(database, "kv");
    call(&a, "deleteDatabase").await.expect("database deleted");
    a
}

const TOPICS: &[&str] = &[
    "deploy the service on friday",
    "user prefers dark mode in the editor",
    "rust wasm build uses lto",
    "indexeddb stores segments in the browser",
    "merge policy keeps segments logarithmic",
    "the agent remembers decisions and rules",
];

fn doc(i: usize) -> Value {
    json!({
        "id": format!("m{i}"),
        "namespace": format!("ns{}", i % 3),
        "title": format!("memory {i}"),
        "text": format!("{} #{i}", TOPICS[i % TOPICS.len()]),
        "kind": if i.is_multiple_of(2) { "note" } else { "rule" },
        "timestamp": 1_700_000_000_000u64 + i as u64,
    })
}

fn fingerprint(index: &mut Index) -> Vec<String> {
    let mut out = vec![format!("len={}", index.len())];
    for q in [
        "deploy friday",
        "segments",
        "agent rules",
        "memory 7",
        "dark",
    ] {
        for mode in [Mode::Or, Mode::And] {
            let opts = SearchOptions {
                mode,
                limit: 20,
                ..Default::default()
            };
            let hits = index.searcher().search(q, &opts).unwrap().hits;
            let ids: Vec<String> = hits
                .iter()
                .map(|h| format!("{}:{:.5}", h.id, h.score))
                .collect();
            out.push(format!("{q}/{mode:?}: {}", ids.join(",")));
        }
    }
    out
}

#[wasm_bindgen_test]
async fn indexeddb_adapter_passes_the_conformance_suite() {
    let a = fresh("memdex-test-conformance").await;
    let storage = JsStorage::new(a.clone()).unwrap();
    assert_eq!(
        conformance::run(&storage, "conf").await.unwrap(),
        conformance::CHECKS
    );
    // And again after closing: the adapter reopens lazily.
    call(&a, "close").await.unwrap();
    assert_eq!(
        conformance::run(&storage, "conf2").await.unwrap(),
        conformance::CHECKS
    );
    assert!(storage.list("").await.unwrap().is_empty());
    call(&a, "deleteDatabase").await.unwrap();
}

#[wasm_bindgen_test]
async fn committed_index_reopens_from_indexeddb_with_identical_results() {
    let db = "memdex-test-commit";
    let a = fresh(db).await;
    let storage = JsStorage::new(a.clone()).unwrap();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..300 {
        index.add(&doc(i)).unwrap();
    }
    let first = index.commit(&storage, "idx").await.unwrap();
    assert_eq!(first.generation, 1);
    call(&a, "close").await.unwrap();

    // A second adapter = a second connection, as after a page reload.
    let b = adapter(db, "kv");
    let storage_b = JsStorage::new(b.clone()).unwrap();
    let mut reopened = Index::open(&storage_b, "idx", None).await.unwrap();
    assert_eq!(reopened.generation(), 1);
    assert_eq!(fingerprint(&mut reopened), fingerprint(&mut index));

    // One more document: an incremental commit, far smaller than the index.
    reopened.add(&doc(1000)).unwrap();
    let second = reopened.commit(&storage_b, "idx").await.unwrap();
    assert_eq!(second.generation, 2);
    assert!(
        second.bytes_written * 4 < first.bytes_written,
        "one-doc commit wrote {} bytes, full index {}",
        second.bytes_written,
        first.bytes_written
    );
    let mut third = Index::open(&storage, "idx", None).await.unwrap();
    assert_eq!(third.len(), 301);
    assert_eq!(fingerprint(&mut third), fingerprint(&mut reopened));
    // The stale first index now gets a CONFLICT instead of overwriting.
    index.add(&doc(2000)).unwrap();
    let err = index.commit(&storage, "idx").await.unwrap_err();
    assert_eq!(err.code(), "CONFLICT");
    call(&b, "deleteDatabase").await.unwrap();
}

#[wasm_bindgen_test]
async fn flipped_byte_in_an_indexeddb_blob_fails_with_corrupt() {
    let a = fresh("memdex-test-corrupt").await;
    let storage = JsStorage::new(a.clone()).unwrap();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..50 {
        index.add(&doc(i)).unwrap();
    }
    index.commit(&storage, "idx").await.unwrap();
    assert_eq!(
        Index::open(&storage, "idx", None).await.unwrap().len(),
        50,
        "opens before the damage"
    );
    let blobs = storage.list("idx/blob/").await.unwrap();
    assert!(!blobs.is_empty());
    let mut bytes = storage.get(&blobs[0]).await.unwrap().unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    storage.put(&blobs[0], &bytes).await.unwrap();
    let err = match Index::open(&storage, "idx", None).await {
        Ok(_) => panic!("a corrupted blob must not open"),
        Err(e) => e,
    };
    assert_eq!(err.code(), "CORRUPT", "{err}");
    call(&a, "deleteDatabase").await.unwrap();
}

#[wasm_bindgen_test]
async fn adapter_survives_another_connection_upgrading_the_database() {
    let db = "memdex-test-upgrade";
    let a = fresh(db).await;
    let storage_a = JsStorage::new(a.clone()).unwrap();
    storage_a.put("k", b"before").await.unwrap();
    // Adapter b wants another store in the same database: it upgrades the
    // version, which needs a's open connection to step aside (versionchange).
    let b = adapter(db, "other");
    let storage_b = JsStorage::new(b.clone()).unwrap();
    storage_b.put("k", b"other store").await.unwrap();
    // a reopens transparently and still sees its own data.
    assert_eq!(
        storage_a.get("k").await.unwrap().as_deref(),
        Some(&b"before"[..])
    );
    assert_eq!(
        storage_b.get("k").await.unwrap().as_deref(),
        Some(&b"other store"[..])
    );
    // A value that is not bytes is reported, not mistaken for data.
    let bad = JsStorage::new(a.clone()).unwrap();
    let put: Function = Reflect::get(&a, &"put".into()).unwrap().dyn_into().unwrap();
    let ret = put
        .call2(&a, &"not-bytes".into(), &JsValue::from_str("text"))
        .unwrap();
    let rejected = JsFuture::from(Promise::resolve(&ret)).await.unwrap_err();
    let code = Reflect::get(&rejected, &"code".into()).unwrap();
    assert_eq!(code.as_string().as_deref(), Some("STORAGE"));
    assert!(bad.get("not-bytes").await.unwrap().is_none());
    call(&b, "close").await.unwrap();
    call(&a, "deleteDatabase").await.unwrap();
}

#[wasm_bindgen_test]
fn prefix_end_is_the_exclusive_upper_bound_of_a_prefix() {
    assert_eq!(prefix_end("idx/blob/").as_deref(), Some("idx/blob0"));
    assert_eq!(prefix_end("a\u{ffff}").as_deref(), Some("b"));
    assert_eq!(prefix_end("\u{ffff}"), None);
}
