//! Query side: syntax tree, planning, BM25F scoring, pruning top-k, filters.
//! Query code never writes to the index.
pub mod ast;
pub mod bm25;
pub mod filter;
pub mod options;
pub mod plan;
pub mod scorer;
pub mod search;
pub mod topk;
