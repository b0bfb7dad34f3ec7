//! Query side: options, parsing, scoring, top-k, filters, snippets.
pub mod options;
