//! The lazily opened index's handle (`Memdex.open({ lazy: true })`): open
//! from the segment heads, then searches that fetch what they need from the
//! storage they were opened on. Every method that may read storage returns
//! a promise.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::error::Error;
use crate::index::lazy::{LazyIndex, Opened};
use crate::query::options::SearchOptions;
use crate::storage::js::JsStorage;

use super::{
    bad_argument, cached_search_options, promise, read_bytes, read_cache_bytes, results,
    to_js_error,
};

/// Bytes of fetched units held between searches when `cacheBytes` is not
/// given: a tab's or an isolate's share, not the index's size.
const DEFAULT_LAZY_CACHE_BYTES: usize = 32 << 20;

#[wasm_bindgen(js_name = LazyEngine)]
pub struct LazyEngine {
    state: Rc<RefCell<State>>,
    storage: Rc<JsStorage>,
}

/// The index (`None` while a search has it) and the last search options
/// read (kept parsed for the next search with the same JSON).
struct State {
    index: Option<LazyIndex>,
    options: Option<(String, SearchOptions)>,
}

fn busy() -> JsValue {
    to_js_error(Error::Usage {
        reason: "a lazy index runs one call at a time; await the search before the next call"
            .into(),
    })
}

/// Opens the index stored under `name` lazily; resolves to a `LazyEngine`,
/// `undefined` when nothing is stored there, or, when `wholeBelow` is
/// given and the committed index is at most that many bytes, its size (a
/// number: the caller loads it whole instead).
#[wasm_bindgen(js_name = openLazy)]
pub fn open_lazy(
    storage: JsValue,
    name: String,
    cache_bytes: JsValue,
    whole_below: JsValue,
) -> Result<Promise, JsValue> {
    let storage = Rc::new(JsStorage::new(storage).map_err(to_js_error)?);
    let limit = read_cache_bytes(&cache_bytes)?.unwrap_or(DEFAULT_LAZY_CACHE_BYTES);
    let whole_below = read_bytes("lazyAboveBytes", &whole_below)?;
    Ok(promise(async move {
        let below = whole_below.map(|b| b as u64);
        let opened = LazyIndex::open_above(&*storage, &name, limit, below)
            .await
            .map_err(to_js_error)?;
        Ok(match opened {
            Some(Opened::Lazy(index)) => LazyEngine {
                state: Rc::new(RefCell::new(State {
                    index: Some(*index),
                    options: None,
                })),
                storage,
            }
            .into(),
            Some(Opened::Small(committed)) => JsValue::from(committed as f64),
            None => JsValue::UNDEFINED,
        })
    }))
}

#[wasm_bindgen(js_class = LazyEngine)]
impl LazyEngine {
    /// Searches; resolves to the results `Engine.search` gives (as JSON
    /// text with `json`). Options are checked before anything is read.
    pub fn search(
        &self,
        query: String,
        options: JsValue,
        json: Option<bool>,
    ) -> Result<Promise, JsValue> {
        let (state, storage) = (self.state.clone(), self.storage.clone());
        Ok(promise(async move {
            // One search at a time (the JS class queues them): the search
            // holds the index, no borrow spans its awaits.
            let (mut index, mut cached) = {
                let mut s = state.borrow_mut();
                (s.index.take().ok_or_else(busy)?, s.options.take())
            };
            let results = match cached_search_options(&mut cached, &options) {
                Ok(options) => Ok(index.search(&*storage, &query, options).await),
                Err(e) => Err(e),
            };
            *state.borrow_mut() = State {
                index: Some(index),
                options: cached,
            };
            let results = results?;
            let results = results.map_err(to_js_error)?;
            Ok(match json {
                Some(true) => crate::json::ToJson::to_json(&results).into(),
                _ => results::to_js(&results),
            })
        }))
    }

    /// The stored document `id` (with its vectors if `vectors`), or
    /// `undefined`; resolves once its page is fetched.
    pub fn get(&self, id: String, vectors: Option<bool>) -> Result<Promise, JsValue> {
        let (state, storage) = (self.state.clone(), self.storage.clone());
        Ok(promise(async move {
            let mut index = state.borrow_mut().index.take().ok_or_else(busy)?;
            let json = index.get_json(&*storage, &id, vectors == Some(true)).await;
            state.borrow_mut().index = Some(index);
            match json.map_err(to_js_error)? {
                Some(json) => js_sys::JSON::parse(&json)
                    .map_err(|_| bad_argument("result", "stored document is not valid JSON")),
                None => Ok(JsValue::UNDEFINED),
            }
        }))
    }

    /// Completions of `prefix`'s last word (as `Engine.suggest`).
    pub fn suggest(&self, prefix: String, limit: usize) -> Result<Promise, JsValue> {
        let (state, storage) = (self.state.clone(), self.storage.clone());
        Ok(promise(async move {
            let mut index = state.borrow_mut().index.take().ok_or_else(busy)?;
            let found = index.suggest(&*storage, &prefix, limit).await;
            state.borrow_mut().index = Some(index);
            super::to_js(found.map_err(to_js_error)?.as_slice())
        }))
    }

    /// Number of live documents.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> Result<f64, JsValue> {
        let state = self.state.borrow();
        Ok(state.index.as_ref().ok_or_else(busy)?.index().len() as f64)
    }

    /// Generation of the commit the index was opened at.
    #[wasm_bindgen(getter)]
    pub fn generation(&self) -> Result<f64, JsValue> {
        let state = self.state.borrow();
        Ok(state.index.as_ref().ok_or_else(busy)?.index().generation() as f64)
    }

    /// The full index's `stats()` fields (`documents`, `terms`, `segments`,
    /// `bytes`: what is held, `buffered`: 0), plus `lazy: { limit, bytes,
    /// committedBytes, hits, fetches, fetchedBytes, lastSearchBytes }`.
    pub fn stats(&self) -> Result<JsValue, JsValue> {
        let state = self.state.borrow();
        let index = state.index.as_ref().ok_or_else(busy)?;
        let mut out = crate::json::ToJson::to_json(&index.index().stats());
        out.pop(); // the closing brace
        out.push_str(",\"lazy\":");
        crate::json::ToJson::write_json(&index.stats(), &mut out);
        out.push('}');
        js_sys::JSON::parse(&out).map_err(|_| JsValue::from_str("stats"))
    }
}
