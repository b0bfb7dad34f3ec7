//! Browser test: a real IndexedDB database (headless Chromium through
//! `wasm-pack test --headless --chrome`) stores bytes and gives them back,
//! also after the connection is closed and reopened. This is the ground the
//! IndexedDB storage adapter stands on.
#![cfg(target_arch = "wasm32")]

use js_sys::{Promise, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{
    EventTarget, IdbDatabase, IdbFactory, IdbOpenDbRequest, IdbRequest, IdbTransactionMode,
};

wasm_bindgen_test_configure!(run_in_browser);

const STORE: &str = "blobs";

/// Resolves when `target` fires `ok`, rejects when it fires `err`.
async fn event(target: &EventTarget, ok: &str, err: &str) -> Result<(), JsValue> {
    let promise = Promise::new(&mut |resolve, reject| {
        let on_ok = Closure::once_into_js(move |e: JsValue| resolve.call1(&JsValue::NULL, &e));
        let on_err = Closure::once_into_js(move |e: JsValue| reject.call1(&JsValue::NULL, &e));
        target
            .add_event_listener_with_callback(ok, on_ok.unchecked_ref())
            .unwrap();
        target
            .add_event_listener_with_callback(err, on_err.unchecked_ref())
            .unwrap();
    });
    JsFuture::from(promise).await.map(|_| ())
}

async fn request_result(req: &IdbRequest) -> Result<JsValue, JsValue> {
    event(req, "success", "error").await?;
    req.result()
}

fn factory() -> IdbFactory {
    web_sys::window()
        .expect("a browser window")
        .indexed_db()
        .expect("indexedDB is accessible")
        .expect("indexedDB exists")
}

/// Opens (creating on first use) a database with one object store.
async fn open(name: &str) -> IdbDatabase {
    let req: IdbOpenDbRequest = factory().open_with_u32(name, 1).unwrap();
    let upgrade_req = req.clone();
    let on_upgrade = Closure::once_into_js(move |_e: JsValue| {
        let db: IdbDatabase = upgrade_req.result().unwrap().unchecked_into();
        db.create_object_store(STORE).unwrap();
    });
    req.set_onupgradeneeded(Some(on_upgrade.unchecked_ref()));
    request_result(&req)
        .await
        .expect("open succeeds")
        .unchecked_into()
}

async fn put(db: &IdbDatabase, key: &str, bytes: &[u8]) {
    let tx = db
        .transaction_with_str_and_mode(STORE, IdbTransactionMode::Readwrite)
        .unwrap();
    let store = tx.object_store(STORE).unwrap();
    store
        .put_with_key(&Uint8Array::from(bytes), &JsValue::from_str(key))
        .unwrap();
    // The data is durable only once the transaction completes.
    event(&tx, "complete", "error")
        .await
        .expect("write transaction commits");
}

async fn get(db: &IdbDatabase, key: &str) -> Option<Vec<u8>> {
    let tx = db.transaction_with_str(STORE).unwrap();
    let req = tx
        .object_store(STORE)
        .unwrap()
        .get(&JsValue::from_str(key))
        .unwrap();
    let value = request_result(&req).await.expect("read succeeds");
    if value.is_undefined() {
        return None;
    }
    Some(
        value
            .dyn_into::<Uint8Array>()
            .expect("stored value is a Uint8Array")
            .to_vec(),
    )
}

async fn delete_database(name: &str) {
    let req = factory().delete_database(name).unwrap();
    event(&req, "success", "error")
        .await
        .expect("database deleted");
}

/// Deterministic pseudo-random bytes (xorshift), so every byte value occurs.
fn sample_bytes(len: usize) -> Vec<u8> {
    let mut x: u32 = 0x9e37_79b9;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x as u8
        })
        .collect()
}

#[wasm_bindgen_test]
async fn indexeddb_round_trips_bytes() {
    let name = "memdex-test-roundtrip";
    delete_database(name).await;
    let db = open(name).await;
    let bytes = sample_bytes(64 * 1024);
    put(&db, "segment-0001", &bytes).await;
    put(&db, "empty", &[]).await;
    assert_eq!(get(&db, "segment-0001").await.as_deref(), Some(&bytes[..]));
    assert_eq!(get(&db, "empty").await, Some(Vec::new()));
    assert_eq!(get(&db, "missing").await, None);
    db.close();
    delete_database(name).await;
}

#[wasm_bindgen_test]
async fn indexeddb_bytes_survive_reopen() {
    let name = "memdex-test-reopen";
    delete_database(name).await;
    let bytes = sample_bytes(4096);
    let db = open(name).await;
    put(&db, "manifest", &bytes).await;
    db.close();

    let db = open(name).await;
    assert_eq!(get(&db, "manifest").await, Some(bytes));
    db.close();
    delete_database(name).await;
}
