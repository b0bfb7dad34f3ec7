//! The cost budget of one search: a few bytes of query must not buy
//! seconds of CPU (docs/BOUNDS.md has the bounds per entrance;
//! BENCHMARKS.md, what hostile queries cost with and without them).
//!
//! Repeated clauses are merged before anything is spent
//! ([`crate::query::merge`]); what is left is bounded by three counters, all
//! deterministic (counted work, never time, so an answer does not depend
//! on the machine's load):
//!
//! - **expansions**: index terms added by `prefix*` and `fuzzy~N` over the
//!   whole query, [`MAX_EXPANSIONS`]. Each expanding term gets an equal
//!   share, at most [`MAX_TERM_EXPANSIONS`]: up to 16 expanding terms
//!   each get that whole maximum;
//! - **dictionary steps**: terms reached while walking the dictionaries for
//!   those expansions, shared the same way (a short `fuzzy~2` reaches most
//!   of a dictionary): the larger of [`MIN_DICTIONARY_STEPS`] and
//!   [`DICTIONARY_STEPS_PER_TERM`] per dictionary term;
//! - **scoring steps**: one per query term examined per candidate document
//!   (the MaxScore and conjunction loops) and one per child a union,
//!   intersection or phrase scorer moves or sums ([`Steps`]); the larger of
//!   [`MIN_SCORING_STEPS`] and [`SCORING_STEPS_PER_DOC`] per live
//!   document, so the bound follows the index size and not the query's
//!   length. The MaxScore and conjunction loops visit each document once,
//!   so with at most 64 terms they stay under 64 steps a document, below
//!   every limit: they count only for wider queries, and ordinary queries
//!   pay nothing for the budget there.
//!
//! The stages after scoring are bounded the same way, so that a whole
//! request, not only its query text, has a bounded cost:
//!
//! - **rerank steps**: `diversity` and `dedupe` compare pool hits pairwise
//!   (word overlap or vector cosine); each comparison costs the smaller
//!   word set's size (or the vector's dimensions) and each hit's content
//!   its bytes / 16, up to [`RERANK_STEPS`]. MMR stops once the page is
//!   picked. Over the limit, the rest of the pool keeps its score order
//!   (`rerank`). The pool itself is at most
//!   [`MAX_RERANK_POOL`] candidates: ranks past it stay in
//!   score order (`rerank` when a page reaches them);
//! - **expand steps**: link expansion follows at most [`EXPAND_STEPS`]
//!   edges (`expand`), and adds at most its `limit` documents;
//! - **answer bytes**: stored fields, snippets and explanations of the
//!   hits an answer carries (and of a rerank pool) count their bytes, up to
//!   [`MAX_ANSWER_BYTES`]; hits past it are left out (`answer`). Snippet
//!   options have fixed maxima ([`MAX_HIGHLIGHT_TAG_BYTES`],
//!   [`MAX_SNIPPET_LENGTH`]): a 600 KB tag copied per highlighted term
//!   once trapped the engine.
//!
//! What happens at a limit follows the query syntax, as the parser's own
//! limits do: lenient searches (the default; agents' raw text never fails)
//! stop spending and answer with what they have, flagged in
//! `SearchResults::limited`; strict searches fail with `LIMIT`.

use std::cell::Cell;

use crate::error::{Error, Result};

/// Expansions of one prefix/fuzzy term kept (highest df first), when the
/// query's budget allows ([`MAX_EXPANSIONS`] shared by all).
pub const MAX_TERM_EXPANSIONS: usize = 64;
/// Most terms prefix and fuzzy expansions add to one query.
pub const MAX_EXPANSIONS: usize = 1024;
/// Dictionary terms the prefix and fuzzy expansions of every query may
/// reach, whatever the index size.
pub const MIN_DICTIONARY_STEPS: u64 = 100_000;
/// Dictionary steps per term of the index's dictionaries (a query may walk
/// them all this many times: one short `fuzzy~2` walks most of them).
pub const DICTIONARY_STEPS_PER_TERM: u64 = 2;
/// Scoring steps every query may take, whatever the index size.
pub const MIN_SCORING_STEPS: u64 = 2_000_000;
/// Scoring steps per live document (a query may examine every document
/// for this many terms).
pub const SCORING_STEPS_PER_DOC: u64 = 100;

/// Comparison steps `diversity` and `dedupe` may take in one search.
pub const RERANK_STEPS: u64 = 2_000_000;
/// Link edges `expand` may follow in one search.
pub const EXPAND_STEPS: u64 = 100_000;
/// Bytes of stored fields, snippets and explanations one answer (or one
/// rerank pool) may hold.
/// Largest `offset + limit` a search may ask for.
pub const MAX_RESULTS: usize = 10_000;
/// Most candidates `diversity` and `dedupe` rerank (the top of the
/// ranking; ranks past it stay in score order).
pub const MAX_RERANK_POOL: usize = 1_000;
/// Longest accepted query, in bytes.
pub const MAX_QUERY_BYTES: usize = 64 * 1024;
pub const MAX_ANSWER_BYTES: usize = 8 << 20;
/// Longest `highlight.preTag` / `postTag`, in bytes.
pub const MAX_HIGHLIGHT_TAG_BYTES: usize = 64;
/// Largest `highlight.snippetLength`, in characters.
pub const MAX_SNIPPET_LENGTH: usize = 2_000;

/// A budget that ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limited {
    /// Prefix/fuzzy expansions were cut (fewer terms, or walks stopped).
    Expansions,
    /// Scoring stopped before every candidate document was examined.
    Scoring,
    /// `diversity` / `dedupe` stopped: the rest of the pool is in score
    /// order (not deduplicated).
    Rerank,
    /// Link expansion stopped before following every edge.
    Expand,
    /// Hits were left out to keep the answer within its bytes.
    Answer,
}

impl Limited {
    /// The name in `SearchResults::limited` (JSON and JS).
    pub fn as_str(self) -> &'static str {
        match self {
            Limited::Expansions => "expansions",
            Limited::Scoring => "scoring",
            Limited::Rerank => "rerank",
            Limited::Expand => "expand",
            Limited::Answer => "answer",
        }
    }

    /// Records this limit as reached: `LIMIT` in strict mode (`what` with
    /// `limit` and `got`), else a flag in `limited` (once).
    pub fn reached(
        self,
        strict: bool,
        limited: &mut Vec<Limited>,
        what: &'static str,
        limit: usize,
        got: usize,
    ) -> Result<()> {
        if strict {
            return Err(Error::Limit { what, limit, got });
        }
        if !limited.contains(&self) {
            limited.push(self);
        }
        Ok(())
    }
}

/// The limits of one pass ([`Limits::for_index`] in every search; tests
/// use smaller ones).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub expansions: usize,
    pub dictionary_steps: u64,
    pub scoring_steps: u64,
    pub rerank_steps: u64,
    pub expand_steps: u64,
    pub answer_bytes: usize,
}

impl Limits {
    /// The limits of a search over `live_docs` documents whose segments'
    /// dictionaries hold `terms` terms in all.
    pub fn for_index(live_docs: u64, terms: u64) -> Limits {
        Limits {
            expansions: MAX_EXPANSIONS,
            dictionary_steps: MIN_DICTIONARY_STEPS
                .max(DICTIONARY_STEPS_PER_TERM.saturating_mul(terms)),
            scoring_steps: MIN_SCORING_STEPS.max(SCORING_STEPS_PER_DOC.saturating_mul(live_docs)),
            rerank_steps: RERANK_STEPS,
            expand_steps: EXPAND_STEPS,
            answer_bytes: MAX_ANSWER_BYTES,
        }
    }
}

/// What one planning and scoring pass may still spend.
#[derive(Debug, Clone)]
pub struct Budget {
    strict: bool,
    limits: Limits,
    expansions: usize,
    dictionary_steps: u64,
    /// Scoring steps left.
    pub(crate) scoring: Steps,
    limited: Vec<Limited>,
}

/// Scoring steps left, shared by reference by a pass's scoring loop and
/// scorer trees (hence a `Cell`). Once a take fails every later one does,
/// and scorers then report the end of their postings, so a pass stops
/// wherever its budget ran out.
#[derive(Debug, Clone)]
pub struct Steps {
    left: Cell<u64>,
    out: Cell<bool>,
}

impl Steps {
    pub fn new(steps: u64) -> Steps {
        Steps {
            left: Cell::new(steps),
            out: Cell::new(false),
        }
    }

    /// Takes `n` steps; false when fewer are left (from then on, always).
    #[inline]
    pub fn take(&self, n: u64) -> bool {
        match self.left.get().checked_sub(n) {
            Some(left) if !self.out.get() => {
                self.left.set(left);
                true
            }
            _ => {
                self.out.set(true);
                false
            }
        }
    }

    /// The steps left, for a loop that counts them in a local (a register,
    /// not a `Cell` per candidate) and hands back the rest with
    /// [`Steps::settle`], or [`Steps::exhaust`] when it needed more.
    #[inline]
    pub fn left(&self) -> u64 {
        if self.out.get() {
            0
        } else {
            self.left.get()
        }
    }

    #[inline]
    pub fn settle(&self, left: u64) {
        self.left.set(left);
    }

    #[inline]
    pub fn exhaust(&self) {
        self.out.set(true);
    }

    /// Whether a take failed.
    pub fn ran_out(&self) -> bool {
        self.out.get()
    }
}

impl Budget {
    /// A pass's budget; `strict` makes running out an error instead of a
    /// flag.
    pub fn new(limits: Limits, strict: bool) -> Budget {
        Budget {
            strict,
            limits,
            expansions: limits.expansions,
            dictionary_steps: limits.dictionary_steps,
            scoring: Steps::new(limits.scoring_steps),
            limited: Vec::new(),
        }
    }

    /// The budgets that ran out, in the order they did.
    pub fn limited(&self) -> &[Limited] {
        &self.limited
    }

    /// What the pass spent so far, per limit.
    pub fn spent(&self) -> Limits {
        Limits {
            expansions: self.limits.expansions - self.expansions,
            dictionary_steps: self.limits.dictionary_steps - self.dictionary_steps,
            scoring_steps: self.limits.scoring_steps - self.scoring.left.get(),
            ..self.limits
        }
    }

    /// Expansions and dictionary steps one of `expanding` expanding terms
    /// may use (equal shares; the per-term cap applies on top).
    pub(crate) fn expansion_share(&self, expanding: usize) -> (usize, u64) {
        let n = expanding.max(1);
        (
            (self.limits.expansions / n).max(1),
            (self.limits.dictionary_steps / n as u64).max(1),
        )
    }

    /// Takes up to `wanted` expansions; fewer when the query's total runs out.
    pub(crate) fn take_expansions(&mut self, wanted: usize) -> usize {
        let got = wanted.min(self.expansions);
        self.expansions -= got;
        got
    }

    /// Takes up to `wanted` dictionary steps.
    pub(crate) fn take_dictionary_steps(&mut self, wanted: u64) -> u64 {
        let got = wanted.min(self.dictionary_steps);
        self.dictionary_steps -= got;
        got
    }

    /// Gives back dictionary steps a walk did not use.
    pub(crate) fn return_dictionary_steps(&mut self, unused: u64) {
        self.dictionary_steps += unused;
    }

    /// Records that the query's `expanding` prefix/fuzzy terms wanted more
    /// expansions than their shares: an error in strict mode.
    pub(crate) fn expansions_cut(&mut self, expanding: usize) -> Result<()> {
        self.cut(
            Limited::Expansions,
            "query prefix/fuzzy expansions",
            self.limits.expansions,
            expanding.saturating_mul(MAX_TERM_EXPANSIONS),
        )
    }

    /// Records that a dictionary walk stopped at its share of the steps.
    pub(crate) fn dictionary_cut(&mut self) -> Result<()> {
        let limit = usize::try_from(self.limits.dictionary_steps).unwrap_or(usize::MAX);
        self.cut(
            Limited::Expansions,
            "query dictionary steps (prefix/fuzzy)",
            limit,
            limit.saturating_add(1),
        )
    }

    /// Records that scoring ran out of steps.
    pub(crate) fn scoring_cut(&mut self) -> Result<()> {
        let limit = usize::try_from(self.limits.scoring_steps).unwrap_or(usize::MAX);
        self.cut(
            Limited::Scoring,
            "query scoring steps",
            limit,
            limit.saturating_add(1),
        )
    }

    /// A limit reached: an error in strict mode (`got` is what the query
    /// asked for, or for steps one past the limit: the walk stops there),
    /// else a flag on the answer.
    fn cut(&mut self, what: Limited, text: &'static str, limit: usize, got: usize) -> Result<()> {
        what.reached(self.strict, &mut self.limited, text, limit, got)
    }
}

#[cfg(test)]
mod tests;
