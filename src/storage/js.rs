//! Bridge to a storage object implemented in JavaScript (IndexedDB, Workers
//! KV, Node's filesystem, or any user object) with the shape
//!
//! ```ts
//! interface StorageAdapter {
//!   get(key: string): Promise<Uint8Array | null | undefined>;
//!   put(key: string, value: Uint8Array): Promise<void>;
//!   delete(key: string): Promise<void>;
//!   list(prefix: string): Promise<string[]>;   // sorted
//!   // Atomic compare-and-swap; resolves to whether it stored.
//!   swap(key: string, expected: Uint8Array | null, value: Uint8Array): Promise<boolean>;
//!   // Optional: called with each value `get` gave once it is copied in.
//!   release?(value: Uint8Array | ArrayBuffer): void;
//!   // Optional: bytes of one blob of a segment's body (`Storage::part_bytes`).
//!   partBytes?: number;
//! }
//! ```
//!
//! A rejected promise or a wrong return type becomes `Error::Storage`.

use js_sys::{Array, Function, Promise, Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

use super::Storage;
use crate::error::{Error, Result};

#[derive(Clone)]
pub struct JsStorage {
    object: JsValue,
    /// The adapter's optional `release`: an adapter whose values are its
    /// own fresh copies (Workers KV) frees each once it is copied into the
    /// wasm, instead of at the engine's next garbage collection (workerd
    /// counts what is not collected yet against the isolate's 128 MiB).
    release: Option<Function>,
    /// The adapter's `partBytes`, checked (default [`super::PART_BYTES`]).
    part_bytes: usize,
}

// The `partBytes` message of `JsStorage::new` names this range.
const _: () = assert!(
    *super::PART_BYTES_RANGE.start() == 4096 && *super::PART_BYTES_RANGE.end() == 4_194_240
);

fn describe(v: &JsValue) -> String {
    if let Some(e) = v.dyn_ref::<js_sys::Error>() {
        return String::from(e.message());
    }
    v.as_string().unwrap_or_else(|| format!("{v:?}"))
}

impl JsStorage {
    pub fn new(object: JsValue) -> Result<JsStorage> {
        for method in ["get", "put", "delete", "list", "swap"] {
            let f = Reflect::get(&object, &method.into()).unwrap_or(JsValue::UNDEFINED);
            if !f.is_function() {
                return Err(Error::Usage {
                    reason: format!(
                        "the storage adapter has no `{method}` method; an adapter needs get, put, delete, list and swap (an atomic compare-and-swap, see memdex/storage)"
                    ),
                });
            }
        }
        let release = Reflect::get(&object, &"release".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok());
        let part_bytes = match Reflect::get(&object, &"partBytes".into()) {
            Ok(v) if v.is_undefined() => super::PART_BYTES,
            Ok(v) => v
                .as_f64()
                .filter(|n| n.fract() == 0.0 && super::PART_BYTES_RANGE.contains(&(*n as usize)))
                // The range in words: a `format!` would link its machinery here.
                .ok_or_else(|| Error::Usage {
                    reason: "the storage adapter's `partBytes` must be a whole number of bytes from 4096 to 4194240 (the size of one blob of a segment's body)".into(),
                })? as usize,
            Err(e) => return Err(adapter_error("partBytes", e)),
        };
        Ok(JsStorage {
            object,
            release,
            part_bytes,
        })
    }

    /// A `get`'s settled value as bytes, then released to the adapter.
    fn take(&self, key: &str, v: JsValue) -> Result<Option<Vec<u8>>> {
        let bytes = bytes_of(key, v.clone())?;
        if let (Some(release), Some(_)) = (&self.release, &bytes) {
            // A failing release changes nothing the engine holds.
            let _ = release.call1(&self.object, &v);
        }
        Ok(bytes)
    }

    async fn call(&self, method: &str, key: &str, args: &[JsValue]) -> Result<JsValue> {
        let promise = self.start(method, key, args)?;
        finish(key, promise).await
    }

    /// Calls `method` now: the adapter's request is in flight once this
    /// returns (so several can be).
    fn start(&self, method: &str, key: &str, args: &[JsValue]) -> Result<Promise> {
        let err = |reason: String| Error::Storage {
            key: key.to_string(),
            reason,
            adapter_reason: None,
        };
        let f: Function = Reflect::get(&self.object, &method.into())
            .map_err(|e| err(describe(&e)))?
            .dyn_into()
            .map_err(|_| err(format!("`{method}` is not a function")))?;
        let list = Array::new();
        for a in args {
            list.push(a);
        }
        // A thrown or rejected error keeps the adapter's `reason` code.
        let ret = f
            .apply(&self.object, &list)
            .map_err(|e| adapter_error(key, e))?;
        Ok(Promise::resolve(&ret))
    }
}

/// The settled value of an adapter's request for `key`.
async fn finish(key: &str, promise: Promise) -> Result<JsValue> {
    JsFuture::from(promise)
        .await
        .map_err(|e| adapter_error(key, e))
}

/// A thrown or rejected adapter error, keeping the adapter's `reason` code.
fn adapter_error(key: &str, e: JsValue) -> Error {
    Error::Storage {
        key: key.to_string(),
        reason: describe(&e),
        adapter_reason: Reflect::get(&e, &"reason".into())
            .ok()
            .and_then(|r| r.as_string()),
    }
}

/// A `get`'s settled value as bytes (`None`: no such key).
fn bytes_of(key: &str, v: JsValue) -> Result<Option<Vec<u8>>> {
    if v.is_null() || v.is_undefined() {
        return Ok(None);
    }
    if let Some(bytes) = v.dyn_ref::<Uint8Array>() {
        return Ok(Some(bytes.to_vec()));
    }
    if let Some(buf) = v.dyn_ref::<js_sys::ArrayBuffer>() {
        return Ok(Some(Uint8Array::new(buf).to_vec()));
    }
    Err(Error::Storage {
        key: key.to_string(),
        reason: "adapter `get` must resolve to a Uint8Array, ArrayBuffer, null or undefined".into(),
        adapter_reason: None,
    })
}

impl Storage for JsStorage {
    fn part_bytes(&self) -> usize {
        self.part_bytes
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        let v = self.call("get", key, &[key.into()]).await?;
        self.take(key, v)
    }

    async fn get_many(&self, keys: &[String]) -> Result<Vec<Option<Vec<u8>>>> {
        // Each request is awaited from the start (`JsFuture` attaches its
        // handlers), so one failing early leaves no rejection unhandled.
        let started: Vec<Result<JsFuture>> = keys
            .iter()
            .map(|key| self.start("get", key, &[key.into()]).map(JsFuture::from))
            .collect();
        let mut out = Vec::with_capacity(keys.len());
        for (key, request) in keys.iter().zip(started) {
            let v = request?.await.map_err(|e| adapter_error(key, e))?;
            out.push(self.take(key, v)?);
        }
        Ok(out)
    }

    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        let bytes = Uint8Array::from(value);
        self.call("put", key, &[key.into(), bytes.into()])
            .await
            .map(|_| ())
    }

    async fn delete(&self, key: &str) -> Result<()> {
        self.call("delete", key, &[key.into()]).await.map(|_| ())
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        let v = self.call("list", prefix, &[prefix.into()]).await?;
        let arr: Array = v.dyn_into().map_err(|_| Error::Storage {
            key: prefix.to_string(),
            reason: "adapter `list` must resolve to an array of strings".into(),
            adapter_reason: None,
        })?;
        let keys: Vec<String> = arr.iter().filter_map(|k| k.as_string()).collect();
        if keys.len() != arr.length() as usize {
            return Err(Error::Storage {
                key: prefix.to_string(),
                reason: "adapter `list` must resolve to an array of strings".into(),
                adapter_reason: None,
            });
        }
        let bytes: Vec<&[u8]> = keys.iter().map(|k| k.as_bytes()).collect();
        let order = crate::sort::order_by_bytes(&bytes);
        Ok(crate::sort::permute(keys, &order))
    }

    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        let expected = expected.map_or(JsValue::NULL, |e| Uint8Array::from(e).into());
        let value = Uint8Array::from(value);
        let v = self
            .call("swap", key, &[key.into(), expected, value.into()])
            .await?;
        v.as_bool().ok_or_else(|| Error::Storage {
            key: key.to_string(),
            reason: "adapter `swap` must resolve to true (stored) or false (the value differed)"
                .into(),
            adapter_reason: None,
        })
    }
}
