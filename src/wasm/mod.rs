//! The `#[wasm_bindgen]` surface: conversion and error mapping only, no
//! algorithms. The TypeScript layer in `pkg-template/` owns the public API;
//! this is its private engine handle.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::index::Index;
use crate::query::options::SearchOptions;
use crate::schema::IndexConfig;

/// Converts an [`Error`] into a JS `Error` with a stable `code` property and
/// the structured data under `details`.
fn to_js_error(err: Error) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("MemdexError");
    let _ = js_sys::Reflect::set(&js, &"code".into(), &err.code().into());
    js.into()
}

fn bad_argument(what: &str, err: impl std::fmt::Display) -> JsValue {
    to_js_error(Error::schema(what, err.to_string()))
}

/// JSON-compatible serializer: maps become plain objects, not `Map`s.
fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| bad_argument("result", e))
}

fn from_js<T: serde::de::DeserializeOwned + Default>(value: JsValue, what: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    serde_wasm_bindgen::from_value(value).map_err(|e| bad_argument(what, e))
}

/// Engine handle used by the JS wrapper.
#[wasm_bindgen(js_name = Engine)]
pub struct Engine {
    index: Index,
}

#[wasm_bindgen(js_class = Engine)]
impl Engine {
    /// `config`: an `IndexConfig` object or `undefined` for the default schema.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Engine, JsValue> {
        let config: IndexConfig = from_js(config, "config")?;
        let index = Index::new(config).map_err(to_js_error)?;
        Ok(Engine { index })
    }

    /// Adds (or replaces, by `id`) one document.
    pub fn add(&mut self, doc: JsValue) -> Result<(), JsValue> {
        let doc: serde_json::Value = serde_wasm_bindgen::from_value(doc).map_err(|e| bad_argument("document", e))?;
        self.index.add(&doc).map_err(to_js_error)
    }

    /// Removes a document; returns whether it existed.
    pub fn remove(&mut self, id: &str) -> bool {
        self.index.delete(id)
    }

    /// The stored document, or `undefined`.
    pub fn get(&self, id: &str) -> Result<JsValue, JsValue> {
        match self.index.get(id) {
            Some(doc) => to_js(&doc),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Runs a search; `options` is a `SearchOptions` object or `undefined`.
    pub fn search(&self, query: &str, options: JsValue) -> Result<JsValue, JsValue> {
        let options: SearchOptions = from_js(options, "options")?;
        let results = self.index.search(query, &options).map_err(to_js_error)?;
        to_js(&results)
    }

    pub fn stats(&self) -> Result<JsValue, JsValue> {
        to_js(&self.index.stats())
    }
}
