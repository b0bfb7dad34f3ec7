//! The `#[wasm_bindgen]` surface: conversion and error mapping only, no
//! algorithms. The TypeScript layer in `pkg-template/` owns the public API;
//! this is its private engine handle.

use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use crate::query::options::ExpandOptions;

mod alloc;
mod lazy;
mod results;
mod snapshot;

use crate::index::load::{load_with, LoadedIndex};
use crate::index::persist::CommitPlan;
#[cfg(feature = "conformance")]
use crate::storage::conformance;
use crate::storage::js::JsStorage;
use crate::storage::Storage as _;

use crate::error::Error;
use crate::index::Index;
use crate::json::{self, ToJson, Value};
use crate::query::options::SearchOptions;
use crate::schema::{IndexConfig, SchemaRequest};

/// A JS promise driven by `fut`. Boxed so that every entrance shares one
/// instance of the executor's glue instead of one per future type.
fn promise(fut: impl std::future::Future<Output = Result<JsValue, JsValue>> + 'static) -> Promise {
    let fut: std::pin::Pin<Box<dyn std::future::Future<Output = Result<JsValue, JsValue>>>> =
        Box::pin(fut);
    wasm_bindgen_futures::future_to_promise(fut)
}

/// Converts an [`Error`] into a JS `Error` with a stable `code` property and
/// the structured data under `details`.
fn to_js_error(err: Error) -> JsValue {
    let js = js_sys::Error::new(&err.to_string());
    js.set_name("MemdexError");
    let _ = js_sys::Reflect::set(&js, &"code".into(), &err.code().into());
    if let Error::Storage {
        adapter_reason: Some(reason),
        ..
    } = &err
    {
        let _ = js_sys::Reflect::set(&js, &"reason".into(), &reason.as_str().into());
    }
    let _ = js_sys::Reflect::set(&js, &"data".into(), &error_data(&err));
    js.into()
}

/// The error's fields as a plain object (`err.data`): what a caller
/// switches on instead of the message (`data.field` of a SCHEMA error,
/// `data.limit` of a LIMIT error, ...). Written as JSON text and parsed
/// once: smaller in the wasm than setting each property.
fn error_data(err: &Error) -> JsValue {
    let mut out = String::new();
    let mut o = json::Object::new(&mut out);
    match err {
        Error::InvalidQuery { position, reason } => {
            o.field("position", position).field("reason", reason);
        }
        Error::Schema { field, reason } => {
            o.field("field", field).field("reason", reason);
        }
        Error::SchemaChange {
            field,
            change,
            reason,
        } => {
            o.field("field", field)
                .field("change", change)
                .field("reason", reason);
        }
        Error::NotFound { id } => {
            o.field("id", id);
        }
        Error::Storage { key, reason, .. } | Error::Corrupt { key, reason } => {
            o.field("key", key).field("reason", reason);
        }
        Error::Conflict { expected, found } => {
            o.field("expected", expected).field("found", found);
        }
        Error::Version { expected, got } => {
            o.field("expected", &u64::from(*expected))
                .field("got", &u64::from(*got));
        }
        Error::Usage { reason } => {
            o.field("reason", reason);
        }
        Error::Limit { what, limit, got } => {
            o.field("what", what)
                .field("limit", limit)
                .field("got", got);
        }
    }
    o.end();
    js_sys::JSON::parse(&out).unwrap_or_else(|_| js_sys::Object::new().into())
}

/// A rejected document of a batch: its error plus `added`, the documents
/// before it (added; the rejected one is line `added + 1`).
fn batch_error(batch: crate::index::BatchError) -> JsValue {
    let js = to_js_error(batch.error);
    let _ = js_sys::Reflect::set(&js, &"added".into(), &(batch.added as f64).into());
    js
}

fn bad_argument(what: &str, err: impl std::fmt::Display) -> JsValue {
    to_js_error(Error::schema(what, err.to_string()))
}

/// A result as a plain JS object (maps become objects, not `Map`s).
fn to_js<T: ToJson + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    // One JSON string and a native JSON.parse: much cheaper than building
    // the result object property by property across the boundary.
    js_sys::JSON::parse(&value.to_json())
        .map_err(|_| bad_argument("result", "result is not valid JSON"))
}

/// Reads an options argument: `undefined`/`null` give the default,
/// anything else goes through JSON text into `parse` (hand-written readers
/// that reject unknown keys; see `crate::jsonopt`).
fn from_js<T: Default>(
    value: JsValue,
    what: &str,
    parse: fn(Value) -> Result<T, String>,
) -> Result<T, JsValue> {
    match json_text(&value, what)? {
        None => Ok(T::default()),
        Some(json) => parse_json(&json, what, parse),
    }
}

/// The JSON text of an options argument (`None` for `undefined`/`null`).
/// Through JSON text so that every key is seen (serde-wasm-bindgen only
/// reads the fields a struct declares, which would silently ignore a
/// misspelled option).
fn json_text(value: &JsValue, what: &str) -> Result<Option<String>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    js_sys::JSON::stringify(value)
        .ok()
        .and_then(|s| s.as_string())
        .map(Some)
        .ok_or_else(|| bad_argument(what, "must be a JSON-serializable object"))
}

fn parse_json<T>(
    json: &str,
    what: &str,
    parse: fn(Value) -> Result<T, String>,
) -> Result<T, JsValue> {
    let value = json::parse(json).map_err(|e| bad_argument(what, e))?;
    parse(value).map_err(|e| bad_argument(what, e))
}

/// Search options from a JS argument, read again only when their JSON text
/// differs from the previous call's (`cache`). Invalid options are not
/// cached: they fail every time.
fn cached_search_options<'a>(
    cache: &'a mut Option<(String, SearchOptions)>,
    value: &JsValue,
) -> Result<&'a mut SearchOptions, JsValue> {
    // `undefined`/`null` is cached as the empty text (no JSON is empty).
    let json = json_text(value, "options")?.unwrap_or_default();
    if !matches!(cache, Some((text, _)) if *text == json) {
        let options = if json.is_empty() {
            SearchOptions::default()
        } else {
            // A wrong shape is the caller's mistake: `USAGE` (the engine is
            // the one validator of options; the JS layer only catches what
            // JSON cannot carry, such as NaN).
            let value = json::parse(&json).map_err(|e| bad_argument("options", e))?;
            search_options(value).map_err(|reason| {
                to_js_error(Error::Usage {
                    reason: format!("search options: {reason}"),
                })
            })?
        };
        *cache = Some((json, options));
    }
    match cache {
        Some((_, options)) => Ok(options),
        None => Err(bad_argument("options", "no options")),
    }
}

/// The index configuration of a JS argument (`undefined`: the default);
/// `extend` overrides its `defaultSchema` (see [`IndexConfig::from_json_as`]).
/// Errors are `SCHEMA` errors whose message names the option path
/// (`schema.tags.type`), not a field called `config`.
fn read_config(value: &JsValue, extend: Option<bool>) -> Result<IndexConfig, JsValue> {
    let Some(json) = json_text(value, "schema")? else {
        return Ok(IndexConfig::default());
    };
    let bad = |e: String| to_js_error(Error::schema("", e));
    let v = json::parse(&json).map_err(|e| bad(e.to_string()))?;
    IndexConfig::from_json_as(&v, extend).map_err(bad)
}

/// What open options (`undefined`: none) ask of a stored index's schema.
fn read_request(value: &JsValue) -> Result<Option<SchemaRequest>, JsValue> {
    let Some(json) = json_text(value, "schema")? else {
        return Ok(None);
    };
    let bad = |e: String| to_js_error(Error::schema("", e));
    let v = json::parse(&json).map_err(|e| bad(e.to_string()))?;
    SchemaRequest::from_json(&v).map(Some).map_err(bad)
}

fn search_options(v: Value) -> Result<SearchOptions, String> {
    SearchOptions::from_json(&v)
}

fn related_options(v: Value) -> Result<ExpandOptions, String> {
    ExpandOptions::from_json(&v, "").map_err(|reason| format!("related options: {reason}"))
}

fn filter(v: Value) -> Result<Value, String> {
    Ok(v)
}

/// Engine handle used by the JS wrapper.
#[wasm_bindgen(js_name = Engine)]
pub struct Engine {
    index: Index,
    /// The last search options, by their JSON text: an agent or UI passes
    /// the same options query after query, and reading them is a sizable
    /// share of a cheap search (a JSON tree, a map, a dozen allocations).
    last_options: Option<(String, SearchOptions)>,
}

#[wasm_bindgen(js_class = Engine)]
impl Engine {
    /// `config`: an `IndexConfig` object or `undefined` for the default schema.
    #[wasm_bindgen(constructor)]
    pub fn new(config: JsValue) -> Result<Engine, JsValue> {
        let config: IndexConfig = read_config(&config, None)?;
        let index = Index::new(config).map_err(to_js_error)?;
        Ok(Engine {
            index,
            last_options: None,
        })
    }

    /// Keeps stored fields packed behind a page cache of `cacheBytes`
    /// (`Index::set_doc_cache`; `undefined`: leaves the engine as it is).
    #[wasm_bindgen(js_name = setDocCache)]
    pub fn set_doc_cache(&mut self, cache_bytes: JsValue) -> Result<(), JsValue> {
        if let Some(limit) = read_cache_bytes(&cache_bytes)? {
            self.index.set_doc_cache(limit);
        }
        Ok(())
    }

    /// Adds (or replaces, by `id`) one document.
    pub fn add(&mut self, doc: JsValue) -> Result<(), JsValue> {
        // One native JSON.stringify and one string copy beat reading every
        // property through reflection, the dominant cost of bulk adds
        // when they crossed the boundary field by field.
        let json = js_sys::JSON::stringify(&doc)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| bad_argument("document", "must be a JSON-serializable object"))?;
        self.add_json(&json)
    }

    /// Adds (or replaces) one document given as JSON text.
    #[wasm_bindgen(js_name = addJson)]
    pub fn add_json(&mut self, json: &str) -> Result<(), JsValue> {
        self.index
            .add_json(json)
            .map_err(crate::index::document::syntax_error)
            .and_then(|added| added)
            .map_err(to_js_error)
    }

    /// Adds documents given as JSON lines (one object per line); returns how
    /// many were added. Stops at the first invalid document: the error has
    /// the document's own code and message plus `added` (documents before
    /// it, which stay added; the rejected one is line `added + 1`).
    #[wasm_bindgen(js_name = addJsonLines)]
    pub fn add_json_lines(&mut self, text: &str) -> Result<usize, JsValue> {
        // One batch loop in the wasm: the one with floats, given none.
        self.index
            .add_json_lines_floats(text, &[], &[], &[])
            .map_err(batch_error)
    }

    /// `addJsonLines` of documents whose `Float32Array` members come as
    /// `floats` beside the text: member `k` is key `keys[k]` (`keys`: a JSON
    /// array of strings) of line `layout[2k]` (0-based) with the next
    /// `layout[2k + 1]` floats. Copied into wasm memory as they are: no
    /// JSON text of hundreds of numbers a document.
    #[wasm_bindgen(js_name = addJsonLinesFloats)]
    pub fn add_json_lines_floats(
        &mut self,
        text: &str,
        floats: &[f32],
        layout: &[u32],
        keys: &str,
    ) -> Result<usize, JsValue> {
        let keys = json::parse(keys).map_err(|e| bad_argument("keys", e))?;
        let keys: Vec<&str> = match &keys {
            Value::Array(items) => items.iter().map(Value::as_str).collect::<Option<_>>(),
            _ => None,
        }
        .ok_or_else(|| bad_argument("keys", "must be a JSON array of strings"))?;
        self.index
            .add_json_lines_floats(text, floats, layout, &keys)
            .map_err(batch_error)
    }

    /// The names of the vector fields (a JSON array): the JS layer sends
    /// number arrays in them as floats too.
    #[wasm_bindgen(js_name = vectorFields)]
    pub fn vector_fields(&self) -> String {
        let names: Vec<&str> = (self.index.config().fields.iter())
            .filter(|(_, def)| matches!(def, crate::schema::FieldDef::Vector { .. }))
            .map(|(name, _)| name.as_str())
            .collect();
        json::to_string(&names)
    }

    /// Removes a document; returns whether it existed.
    pub fn remove(&mut self, id: &str) -> bool {
        self.index.delete(id)
    }

    /// The stored document, or `undefined`; with `vectors`, its vectors
    /// too (number arrays under their field names).
    pub fn get(&self, id: &str, vectors: Option<bool>) -> Result<JsValue, JsValue> {
        let searcher = self.index.snapshot();
        let json = match vectors {
            Some(true) => searcher.get_json_with_vectors(id),
            _ => searcher.get_json(id),
        };
        match json {
            Some(json) => js_sys::JSON::parse(&json)
                .map_err(|_| bad_argument("result", "stored document is not valid JSON")),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Runs a search; `options` is a `SearchOptions` object or `undefined`.
    /// A query vector may come as `vector` (a `Float32Array`, copied into
    /// wasm memory as is: no JSON text of hundreds of numbers); it then
    /// replaces `options.vector`.
    pub fn search(
        &mut self,
        query: &str,
        options: JsValue,
        vector: Option<Vec<f32>>,
    ) -> Result<JsValue, JsValue> {
        let options = cached_search_options(&mut self.last_options, &options)?;
        let results = match vector {
            None => self.index.searcher().search(query, options),
            Some(vector) => {
                // Lent to this search only: the cached options stay those
                // of their JSON text.
                let given = options.vector.replace(vector);
                let results = self.index.searcher().search(query, options);
                options.vector = given;
                results
            }
        };
        Ok(results::to_js(&results.map_err(to_js_error)?))
    }

    /// `search` with the results as JSON text (for HTTP responses; equal to
    /// `JSON.stringify(search(...))`).
    #[wasm_bindgen(js_name = searchJson)]
    pub fn search_json(&mut self, query: &str, options: JsValue) -> Result<String, JsValue> {
        let options = cached_search_options(&mut self.last_options, &options)?;
        let results = self
            .index
            .searcher()
            .search(query, options)
            .map_err(to_js_error)?;
        Ok(results.to_json())
    }

    /// The documents linked to `id` (no query): `{ hits }` as `search`
    /// gives them, each with `via`. `options`: `{ hops, types, direction,
    /// limit }` or `undefined`.
    pub fn related(&mut self, id: &str, options: JsValue) -> Result<JsValue, JsValue> {
        crate::build::need(crate::build::LINKS, "`related`").map_err(to_js_error)?;
        let options: ExpandOptions = from_js(options, "options", related_options)?;
        let (hits, limited) = self.index.searcher().related(id, &options);
        let results = crate::query::options::SearchResults {
            total: Some(hits.len()),
            total_exact: limited.is_empty(),
            hits,
            mode: crate::query::options::Mode::Or,
            limited,
            warnings: Vec::new(),
            strategy: None,
        };
        Ok(results::to_js(&results))
    }

    /// Deletes every document matching `filter`; returns the count.
    #[wasm_bindgen(js_name = removeWhere)]
    pub fn remove_where(&mut self, filter: JsValue) -> Result<usize, JsValue> {
        let filter: Value = from_js(filter, "filter", self::filter)?;
        self.index.delete_where(&filter).map_err(to_js_error)
    }

    /// Live documents matching `filter` (all when undefined).
    pub fn count(&mut self, filter: JsValue) -> Result<usize, JsValue> {
        let filter: Value = from_js(filter, "filter", self::filter)?;
        // Counting everything reads the live-document total: no flush.
        let searcher = match filter.is_null() {
            true => self.index.snapshot(),
            false => self.index.searcher(),
        };
        searcher.count(&filter).map_err(to_js_error)
    }

    /// Term completions for autocomplete.
    pub fn suggest(&mut self, prefix: &str, limit: usize) -> Result<JsValue, JsValue> {
        to_js(self.index.searcher().suggest(prefix, limit).as_slice())
    }

    /// Freezes buffered writes into a segment.
    pub fn flush(&mut self) {
        self.index.flush();
    }

    /// Merges all segments into one.
    pub fn compact(&mut self) {
        self.index.compact();
    }

    /// Statistics after flushing the write buffer, so that documents just
    /// added count in `terms` and `segments` (as searches see them).
    pub fn stats(&mut self) -> Result<JsValue, JsValue> {
        self.index.flush();
        to_js(&self.index.stats())
    }
}

/// A prepared commit: `await handle.execute(storage)`, then
/// `engine.finishCommit(handle)`. Holds no borrow of the engine, so the
/// engine stays usable while storage is written.
#[wasm_bindgen(js_name = CommitHandle)]
pub struct CommitHandle {
    plan: Rc<CommitPlan>,
}

#[wasm_bindgen(js_class = CommitHandle)]
impl CommitHandle {
    /// Writes the commit to a JS storage adapter; resolves to `CommitInfo`.
    pub fn execute(&self, storage: JsValue) -> Result<Promise, JsValue> {
        let storage = JsStorage::new(storage).map_err(to_js_error)?;
        let plan = self.plan.clone();
        Ok(promise(async move {
            let info = plan.execute(&storage).await.map_err(to_js_error)?;
            to_js(&info)
        }))
    }

    /// Bytes this commit writes (blobs and manifest).
    #[wasm_bindgen(getter, js_name = bytesToWrite)]
    pub fn bytes_to_write(&self) -> usize {
        self.plan.bytes_to_write()
    }
}

/// A committed index read from storage, to be turned into an [`Engine`].
#[wasm_bindgen(js_name = LoadedIndex)]
pub struct Loaded {
    inner: Option<LoadedIndex>,
}

/// The `cacheBytes` open option (`undefined`: stored fields unpacked).
fn read_cache_bytes(value: &JsValue) -> Result<Option<usize>, JsValue> {
    read_bytes("cacheBytes", value)
}

/// A byte count option `what` (`undefined` and `null`: not given).
fn read_bytes(what: &str, value: &JsValue) -> Result<Option<usize>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let n = value.as_f64().unwrap_or(f64::NAN);
    crate::store::byte_count(what, n)
        .map(Some)
        .map_err(to_js_error)
}

/// Reads the index stored under `name`; resolves to a `LoadedIndex`, or
/// `undefined` when nothing is stored there. With `cacheBytes` its stored
/// fields stay packed behind a page cache that size (`Index::set_doc_cache`).
#[wasm_bindgen(js_name = loadIndex)]
pub fn load_index(
    storage: JsValue,
    name: String,
    cache_bytes: JsValue,
) -> Result<Promise, JsValue> {
    let storage = JsStorage::new(storage).map_err(to_js_error)?;
    let cache_bytes = read_cache_bytes(&cache_bytes)?;
    Ok(promise(async move {
        match load_with(&storage, &name, cache_bytes)
            .await
            .map_err(to_js_error)?
        {
            Some(loaded) => Ok(Loaded {
                inner: Some(loaded),
            }
            .into()),
            None => Ok(JsValue::UNDEFINED),
        }
    }))
}

/// Which build this wasm is: `full` or `lexical` (see [`crate::build`]).
#[wasm_bindgen(js_name = buildName)]
pub fn build_name() -> String {
    crate::build::NAME.to_string()
}

/// Rebuilds the lost manifest of index `name` from its blobs (see
/// `index::recover`); `config` is the schema it was created with
/// (`undefined`: the default). Resolves to the recovery report.
#[wasm_bindgen(js_name = recoverIndex)]
pub fn recover_index(storage: JsValue, name: String, config: JsValue) -> Result<Promise, JsValue> {
    crate::build::need(crate::build::MAINTENANCE, "`Memdex.recover`").map_err(to_js_error)?;
    let storage = JsStorage::new(storage).map_err(to_js_error)?;
    let config: IndexConfig = read_config(&config, None)?;
    Ok(promise(async move {
        let (_, report) = crate::index::recover::recover(&storage, &name, config)
            .await
            .map_err(to_js_error)?;
        to_js(&report)
    }))
}

/// Runs the storage conformance suite against a JS adapter, using keys under
/// `prefix`; resolves to the number of checks passed or rejects with the
/// first failure. Test builds only (feature `conformance`).
#[cfg(feature = "conformance")]
#[wasm_bindgen(js_name = runStorageConformance)]
pub fn run_storage_conformance(storage: JsValue, prefix: String) -> Result<Promise, JsValue> {
    let storage = JsStorage::new(storage).map_err(to_js_error)?;
    Ok(promise(async move {
        let passed = conformance::run(&storage, &prefix)
            .await
            .map_err(to_js_error)?;
        Ok(JsValue::from(passed))
    }))
}

#[wasm_bindgen(js_class = Engine)]
impl Engine {
    /// Engine over a loaded index; `config` (open options as JSON), when
    /// given, upgrades the stored schema with the fields it declares (see
    /// [`IndexConfig::upgraded`]); a change that cannot apply in place is
    /// a `SCHEMA` error.
    #[wasm_bindgen(js_name = fromLoaded)]
    pub fn from_loaded(loaded: &mut Loaded, config: JsValue) -> Result<Engine, JsValue> {
        let inner = loaded.inner.take().ok_or_else(|| {
            to_js_error(Error::schema("loaded", "this LoadedIndex was already used"))
        })?;
        let request = read_request(&config)?;
        let index = Index::from_loaded_as(inner, request.as_ref()).map_err(to_js_error)?;
        Ok(Engine {
            index,
            last_options: None,
        })
    }

    /// A new engine holding every document of this one rebuilt under the
    /// configuration `config` asks (open options as JSON: its `schema`
    /// fields replace or join the stored ones, all of them with
    /// `defaultSchema: false`; `analyzer`, `k1`, `b` replace the stored
    /// ones). Nothing is committed.
    pub fn rebuild(&mut self, config: JsValue) -> Result<Engine, JsValue> {
        crate::build::need(crate::build::MAINTENANCE, "`Memdex.migrate` (a rebuild)")
            .map_err(to_js_error)?;
        let request = read_request(&config)?.unwrap_or_default();
        let index = self.index.rebuilt(&request).map_err(to_js_error)?;
        Ok(Engine {
            index,
            last_options: None,
        })
    }

    /// Makes this engine's next commit replace `base`'s last commit (one
    /// manifest swap that expects `base`'s manifest): how a rebuilt index
    /// takes the place of the one it was built from (`Memdex.migrate`).
    /// Every segment of this engine is written by that commit.
    pub fn rebase(&mut self, base: &Engine) {
        self.index.rebase(&base.index);
    }

    /// Flushes and prepares a commit of everything new under `name` to
    /// `storage` (its segments in parts of the adapter's `partBytes`).
    #[wasm_bindgen(js_name = prepareCommit)]
    pub fn prepare_commit(
        &mut self,
        name: &str,
        storage: JsValue,
    ) -> Result<CommitHandle, JsValue> {
        let part_bytes = JsStorage::new(storage).map_err(to_js_error)?.part_bytes();
        Ok(CommitHandle {
            plan: Rc::new(self.index.prepare_commit(name, part_bytes)),
        })
    }

    /// A new, empty engine with this engine's configuration (what `reload`
    /// gives when nothing is stored).
    #[wasm_bindgen(js_name = emptyLike)]
    pub fn empty_like(&self) -> Result<Engine, JsValue> {
        let mut index = Index::new(self.index.config().clone()).map_err(to_js_error)?;
        index.doc_cache = self.index.doc_cache.clone();
        Ok(Engine {
            index,
            last_options: None,
        })
    }

    /// Resolves to whether the manifest stored under `name` is still the one
    /// this engine loaded or last committed (no other writer committed).
    #[wasm_bindgen(js_name = isCurrent)]
    pub fn is_current(&self, storage: JsValue, name: String) -> Result<Promise, JsValue> {
        let storage = JsStorage::new(storage).map_err(to_js_error)?;
        let base = self.index.base_manifest();
        Ok(promise(async move {
            let current = crate::index::load::is_current(&storage, &name, base.as_deref())
                .await
                .map_err(to_js_error)?;
            Ok(JsValue::from(current))
        }))
    }

    /// Records a successfully executed commit.
    #[wasm_bindgen(js_name = finishCommit)]
    pub fn finish_commit(&mut self, handle: &CommitHandle) {
        self.index.finish_commit(&handle.plan);
    }

    /// Generation of the last commit (0 = never committed).
    #[wasm_bindgen(getter)]
    pub fn generation(&self) -> f64 {
        self.index.generation() as f64
    }

    /// Number of live documents.
    #[wasm_bindgen(getter)]
    pub fn size(&self) -> usize {
        self.index.len()
    }
}
