//! The read side: a [`Searcher`] is a cheap snapshot of an [`Index`]'s
//! segments through which every read goes (search, list, related, suggest,
//! count, get). `Index` owns writes, commits and persistence; a searcher
//! only borrows what it reads, so the borrow checker guarantees no write
//! happens while it lives.

mod hits;
mod memo;
pub(crate) use memo::RankMemo;
pub(crate) mod pass;
mod reads;
mod search;
mod validate;

use crate::index::{DocIds, Index, SegmentEntry};
use crate::schema::IndexConfig;
use crate::schema::ResolvedSchema;

/// A read-only view of an index at one point: its flushed segments, their
/// statistics and the id map.
#[derive(Clone, Copy)]
pub struct Searcher<'a> {
    pub(crate) config: &'a IndexConfig,
    pub(crate) schema: &'a ResolvedSchema,
    pub(crate) segments: &'a [SegmentEntry],
    /// Live documents and per-field token totals over every segment (the
    /// BM25 statistics).
    pub(crate) live_docs: u64,
    pub(crate) live_field_len: &'a [u64],
    pub(crate) ids: DocIds<'a>,
    /// Ranked passes kept across a lazy search's rounds (`None` when
    /// fully loaded).
    pub(crate) memo: Option<&'a RankMemo>,
}

impl Index {
    /// A searcher over every write made so far: buffered writes are
    /// flushed first (cheap when nothing is buffered).
    #[inline(never)] // one call per entrance, not a copy of the fields
    pub fn searcher(&mut self) -> Searcher<'_> {
        self.flush();
        self.snapshot()
    }

    /// A searcher over the flushed segments as they are. Buffered documents
    /// are visible to [`Searcher::get`] and [`Searcher::contains`] but not
    /// to searches until a flush.
    #[inline(never)]
    pub fn snapshot(&self) -> Searcher<'_> {
        Searcher {
            config: &self.config,
            schema: &self.schema,
            segments: &self.segments,
            live_docs: self.live_docs,
            live_field_len: &self.live_field_len,
            ids: self.doc_ids(),
            memo: None,
        }
    }
}

impl<'a> Searcher<'a> {
    /// This searcher, reusing the ranked passes `memo` holds (a lazy
    /// search's later rounds). A memo serves the searches of one query
    /// with one set of options only (see `memo.rs`).
    pub(crate) fn with_memo(self, memo: &'a RankMemo) -> Searcher<'a> {
        Searcher {
            memo: Some(memo),
            ..self
        }
    }

    pub fn config(&self) -> &'a IndexConfig {
        self.config
    }

    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.live_docs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.live_docs == 0
    }
}
