//! What a lazily opened segment holds of its terms: the head's shard
//! directory, which shards are assembled into the segment now, and what the
//! search asked for. Lookups go through [`crate::index::segment::Segment`]'s
//! term methods, which consult this: a term whose shard is not held is
//! recorded as missing (and not found this round); the lazy index fetches
//! what was missing and searches again.

use std::sync::{Arc, Mutex};

/// A unit of a lazy segment's body: what a search asks for, what the index
/// holds (term lookups ask for shards and the surface words; the lazy doc
/// store for pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Unit {
    Shard(u32),
    Page(u32),
    Surfaces,
}

#[derive(Debug, Default)]
pub(crate) struct LazyTerms {
    /// First term of each shard (shared by every [`LazyTerms::holding`]).
    firsts: Arc<[String]>,
    /// Ordinal in the whole segment of each shard's first term, then the
    /// segment's term count.
    ord_starts: Arc<[u32]>,
    /// Per shard, the ordinal of its first term in the terms held now.
    held: Vec<Option<u32>>,
    surfaces: bool,
    /// Units asked for: `(unit, held)`.
    asked: Mutex<Vec<(Unit, bool)>>,
}

impl LazyTerms {
    /// `shards`: per shard, its first term and term count.
    pub fn new(shards: impl IntoIterator<Item = (String, u32)>) -> LazyTerms {
        let mut firsts = Vec::new();
        let mut ord_starts = vec![0u32];
        for (first, n) in shards {
            firsts.push(first);
            ord_starts.push(ord_starts.last().copied().unwrap_or(0).saturating_add(n));
        }
        LazyTerms {
            held: vec![None; firsts.len()],
            firsts: firsts.into(),
            ord_starts: ord_starts.into(),
            surfaces: false,
            asked: Mutex::default(),
        }
    }

    /// The same directory, holding the shards `held` (their first term's
    /// ordinal among the terms held) and the surface words if `surfaces`.
    pub fn holding(&self, held: Vec<Option<u32>>, surfaces: bool) -> LazyTerms {
        LazyTerms {
            firsts: Arc::clone(&self.firsts),
            ord_starts: Arc::clone(&self.ord_starts),
            held,
            surfaces,
            asked: Mutex::default(),
        }
    }

    /// Per shard, where its terms start among those held (`None`: not held).
    pub fn held_shards(&self) -> Vec<Option<u32>> {
        self.held.clone()
    }

    /// Terms in the whole segment.
    pub fn n_terms(&self) -> usize {
        self.ord_starts.last().copied().unwrap_or(0) as usize
    }

    fn ask(&self, unit: Unit, held: bool) {
        let mut asked = self.asked.lock().unwrap_or_else(|e| e.into_inner());
        if !asked.contains(&(unit, held)) {
            asked.push((unit, held));
        }
    }

    /// What searches asked for since the last call.
    pub fn take_asked(&self) -> Vec<(Unit, bool)> {
        std::mem::take(&mut *self.asked.lock().unwrap_or_else(|e| e.into_inner()))
    }

    fn ask_shard(&self, i: usize) -> bool {
        let held = self.held.get(i).is_some_and(Option::is_some);
        self.ask(Unit::Shard(i as u32), held);
        held
    }

    /// The shard that would hold `term` (`None`: before every shard).
    fn shard_of(&self, term: &str) -> Option<usize> {
        self.firsts
            .partition_point(|f| f.as_bytes() <= term.as_bytes())
            .checked_sub(1)
    }

    /// Whether a lookup of `term` can be answered now (asking for its
    /// shard if not).
    pub fn want_term(&self, term: &str) -> bool {
        self.shard_of(term).is_none_or(|i| self.ask_shard(i))
    }

    /// Asks for every shard that may hold a term starting with `prefix`.
    pub fn want_prefix(&self, prefix: &str) {
        let start = self.shard_of(prefix).unwrap_or(0);
        for i in start..self.firsts.len() {
            if i > start && !self.firsts[i].starts_with(prefix) {
                break;
            }
            self.ask_shard(i);
        }
    }

    /// Asks for every shard (a walk of the whole dictionary).
    pub fn want_all(&self) {
        for i in 0..self.firsts.len() {
            self.ask_shard(i);
        }
    }

    /// Whether the surface words are held (asking for them if not).
    pub fn want_surfaces(&self) -> bool {
        self.ask(Unit::Surfaces, self.surfaces);
        self.surfaces
    }

    /// The ordinal among the terms held of the term of ordinal `global` in
    /// the whole segment (asking for its shard if not held).
    pub fn local_ord(&self, global: u32) -> Option<u64> {
        let i = self
            .ord_starts
            .partition_point(|&s| s <= global)
            .checked_sub(1)?;
        if i >= self.firsts.len() || !self.ask_shard(i) {
            return None;
        }
        let base = self.held[i]?;
        Some(u64::from(base + (global - self.ord_starts[i])))
    }
}
