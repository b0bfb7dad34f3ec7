//! Query side: syntax tree and parser, planning, BM25F scoring, pruning
//! top-k, filters, snippets. Query code never writes to the index.
pub mod agent;
pub mod ast;
pub mod bm25;
pub mod budget;
pub(crate) mod fieldfilter;
pub mod hybrid;
pub mod list;
pub mod merge;
pub mod options;
pub mod parser;
pub mod plan;
pub mod proximity;
pub mod scorer;
pub mod search;
pub mod snippet;
pub mod strategy;
pub mod suggest;
pub mod topk;
