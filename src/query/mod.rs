//! Query side: the read path of memdex. Layers, bottom up (a file only
//! names items of its own layer or below; `tests/module_graph.rs` keeps the
//! files free of import cycles):
//!
//! 1. `options` (what a search asks and answers) and `budget` (what it may
//!    spend).
//! 2. Stages: `parser`/`ast`/`merge` (text to query), `plan` (query to
//!    scored terms), `bm25`/`scorer`/`topk` and the kernels of `exec`,
//!    the `rerank` stages, `expand`, `hybrid`, `list`, `snippet`,
//!    `strategy`, `suggest` (filters: `crate::filter`).
//! 3. `searcher`: [`Searcher`], a read snapshot of an index, runs a search
//!    through the stages. Query code never writes to the index.
pub mod ast;
pub mod bm25;
pub mod budget;
pub(crate) mod exec;
pub mod expand;
pub mod hybrid;
pub mod list;
pub mod merge;
pub mod options;
pub mod parser;
pub mod plan;
pub mod rerank;
pub mod scorer;
pub mod searcher;
pub mod snippet;
pub mod strategy;
pub mod suggest;
pub mod topk;

pub use searcher::Searcher;
