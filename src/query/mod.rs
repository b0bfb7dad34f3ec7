//! Query side: options, parsing, scoring, top-k, filters, snippets.
pub mod ast;
pub mod options;
pub mod parser;
pub mod snippet;
