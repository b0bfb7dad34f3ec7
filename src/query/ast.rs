//! The parsed form of a query, before analysis.
//!
//! The parser ([`crate::query::parser`]) turns user text into a [`Query`]
//! tree; the engine then runs the analyzer over each leaf's raw `text` (one
//! raw term may yield several index terms, or none for a stopword) and
//! evaluates the tree.
//!
//! Shape of the tree:
//! - leaves are [`Query::Term`] and [`Query::Phrase`]; `text` is the user's
//!   raw text without syntax (no quotes, `field:`, `*`, `~n`, `^b`);
//! - [`Query::Bool`] holds [`Clause`]s, each with an [`Occur`]. Clauses that
//!   were simply written side by side carry [`Occur::Default`], which the
//!   engine resolves from the search mode (OR mode: should, AND mode: must).
//!
//! `Display` prints a compact canonical form used by tests and debugging:
//! `+` must, `-` must not, `?` should, nothing for default, e.g.
//! `(title:deploy* (?friday ?weekend) -"dry run"~2)`.

use std::fmt;

/// How a clause takes part in its [`Query::Bool`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Occur {
    /// Optional; matching raises the score (`a OR b`).
    Should,
    /// Required (`+a`, `a AND b`).
    Must,
    /// Excluded (`-a`, `NOT a`). A Bool with only `MustNot` clauses matches
    /// nothing on its own.
    MustNot,
    /// Juxtaposed (`a b`): the engine decides per search mode.
    Default,
}

/// One member of a [`Query::Bool`].
#[derive(Debug, Clone, PartialEq)]
pub struct Clause {
    pub occur: Occur,
    pub query: Query,
}

/// A parsed query. Boosts are positive and finite; `1.0` means no boost.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    /// A single raw term, e.g. `title:deploy*^2`.
    Term {
        /// Explicit field (`title:x`, or inherited from `title:(...)`).
        field: Option<String>,
        /// Raw user text; never empty.
        text: String,
        boost: f32,
        /// `deploy*`: match every index term starting with the analyzed text.
        prefix: bool,
        /// Maximum edit distance, `0..=2`; `0` means exact.
        fuzzy: u8,
    },
    /// `"raw text"~slop`: the analyzed terms in order, at most `slop` moves
    /// apart.
    Phrase {
        field: Option<String>,
        text: String,
        slop: u32,
        boost: f32,
    },
    /// A group of clauses. An empty Bool matches nothing.
    Bool { clauses: Vec<Clause>, boost: f32 },
}

impl Query {
    /// The empty query (matches nothing).
    pub fn empty() -> Query {
        Query::Bool {
            clauses: Vec::new(),
            boost: 1.0,
        }
    }

    /// True when the query holds no leaf at all.
    pub fn is_empty(&self) -> bool {
        match self {
            Query::Term { .. } | Query::Phrase { .. } => false,
            Query::Bool { clauses, .. } => clauses.iter().all(|c| c.query.is_empty()),
        }
    }

    /// The leaves that can contribute to a match, i.e. every Term and Phrase
    /// not under a `MustNot` clause, in query order. Used for highlighting
    /// and `matchedTerms`.
    pub fn positive_leaves(&self) -> Vec<&Query> {
        let mut out = Vec::new();
        self.collect_positive(&mut out);
        out
    }

    fn collect_positive<'a>(&'a self, out: &mut Vec<&'a Query>) {
        match self {
            Query::Term { .. } | Query::Phrase { .. } => out.push(self),
            Query::Bool { clauses, .. } => {
                for c in clauses.iter().filter(|c| c.occur != Occur::MustNot) {
                    c.query.collect_positive(out);
                }
            }
        }
    }

    /// The boost of this node.
    pub fn boost(&self) -> f32 {
        match self {
            Query::Term { boost, .. } | Query::Phrase { boost, .. } | Query::Bool { boost, .. } => {
                *boost
            }
        }
    }

    /// Multiplies this node's boost by `factor` (used when a group like
    /// `(a)^2` unwraps to its only member).
    pub(crate) fn scale_boost(&mut self, factor: f32) {
        match self {
            Query::Term { boost, .. } | Query::Phrase { boost, .. } | Query::Bool { boost, .. } => {
                *boost *= factor
            }
        }
    }
}

fn write_boost(f: &mut fmt::Formatter<'_>, boost: f32) -> fmt::Result {
    if boost != 1.0 {
        write!(f, "^{boost}")?;
    }
    Ok(())
}

fn write_field(f: &mut fmt::Formatter<'_>, field: &Option<String>) -> fmt::Result {
    match field {
        Some(name) => write!(f, "{name}:"),
        None => Ok(()),
    }
}

impl fmt::Display for Query {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Query::Term {
                field,
                text,
                boost,
                prefix,
                fuzzy,
            } => {
                write_field(f, field)?;
                f.write_str(text)?;
                if *prefix {
                    f.write_str("*")?;
                }
                if *fuzzy > 0 {
                    write!(f, "~{fuzzy}")?;
                }
                write_boost(f, *boost)
            }
            Query::Phrase {
                field,
                text,
                slop,
                boost,
            } => {
                write_field(f, field)?;
                write!(f, "\"{text}\"")?;
                if *slop > 0 {
                    write!(f, "~{slop}")?;
                }
                write_boost(f, *boost)
            }
            Query::Bool { clauses, boost } => {
                f.write_str("(")?;
                for (i, c) in clauses.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" ")?;
                    }
                    f.write_str(match c.occur {
                        Occur::Should => "?",
                        Occur::Must => "+",
                        Occur::MustNot => "-",
                        Occur::Default => "",
                    })?;
                    write!(f, "{}", c.query)?;
                }
                f.write_str(")")?;
                write_boost(f, *boost)
            }
        }
    }
}
