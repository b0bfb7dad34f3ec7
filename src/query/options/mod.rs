//! Search options and results: the public shape of a search, shared by the
//! Rust API, the wasm layer (JSON) and the CLI. The bottom of the query
//! side: nothing here depends on how a search runs.

mod parse;
mod results;
mod search;
mod stages;

pub use parse::SEARCH_FIELDS;
pub use results::{Choice, Found, Hit, Reason, SearchResults, TermExplanation, Via};
pub(crate) use search::Page;
pub use search::{
    HighlightOptions, Mode, SearchOptions, StoredSelection, Strategy, Syntax, DEFAULT_TRACK_TOTAL,
    FUZZY_AUTO,
};
pub use stages::{
    Direction, ExpandOptions, ProximityOptions, RecencyOptions, SortSpec, DEFAULT_DEPTH, MAX_DEPTH,
    MAX_HOPS, MAX_TERMS,
};
