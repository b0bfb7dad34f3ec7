//! memdex: full-text search for AI-agent memory.
//!
//! A hand-written, segmented inverted index with a Unicode analyzer,
//! Snowball stemming, BM25/BM25F ranking and a forgiving query language,
//! compiled natively and to WebAssembly.
//!
//! ```
//! use memdex::{Index, IndexConfig, SearchOptions};
//!
//! let mut index = Index::new(IndexConfig::default()).unwrap();
//! let doc = memdex::json::parse(r#"{"id": "m1", "title": "Deploy rule", "text": "Never deploy on Fridays"}"#).unwrap();
//! index.add(&doc).unwrap();
//! let results = index.searcher().search("deploying friday", &SearchOptions::default()).unwrap();
//! assert_eq!(results.hits[0].id, "m1");
//! ```

pub mod analysis;
pub mod build;
pub mod codec;
pub mod error;
pub mod filter;
pub mod host;
pub mod index;
/// memdex's JSON (the `memdex-json` crate, crates/memdex-json).
pub use memdex_json as json;
mod jsonopt;
pub mod postings;
pub mod query;
pub mod schema;
use memdex_json::sort;
pub mod storage;
pub mod store;
pub mod termdict;
pub mod vector;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use error::{Error, Result};
pub use index::{Index, Stats};
pub use memdex_json::FieldMap;
pub use query::options::{Hit, Mode, SearchOptions, SearchResults};
pub use schema::{FieldDef, IndexConfig, SchemaRequest};

// The wasm allocates through std's dlmalloc. Talc was 2.5 KB gzipped
// smaller, but a lazy index's units (shards, pages, id blocks of every size,
// freed in LRU order) fragmented its heap: at 1M documents with 64 MiB of
// `cacheBytes`, 2,000 queries grew the wasm memory to 206 MiB with talc,
// 110 MiB with dlmalloc (bench/HISTORY.md).
