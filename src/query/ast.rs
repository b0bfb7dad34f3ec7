//! Query syntax tree produced by the parser. Term text is raw user text; the
//! engine analyzes it.

/// How a clause takes part in its boolean parent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occur {
    Should,
    Must,
    MustNot,
    /// Juxtaposed clause: resolved by the search mode (OR -> Should, AND -> Must).
    Default,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub occur: Occur,
    pub query: Query,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    Term {
        field: Option<String>,
        text: String,
        boost: f32,
        prefix: bool,
        fuzzy: u8,
    },
    Phrase {
        field: Option<String>,
        text: String,
        slop: u32,
        boost: f32,
    },
    Bool {
        clauses: Vec<Clause>,
        boost: f32,
    },
}
