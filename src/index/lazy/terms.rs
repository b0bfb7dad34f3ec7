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
    Surfaces(u32),
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
    /// First word of each surface word shard (format 8; one unit of no
    /// first word before).
    surface_firsts: Arc<[String]>,
    /// Per surface word shard, whether the segment's surface words hold it.
    surfaces_held: Vec<bool>,
    /// Units asked for: `(unit, held)`.
    asked: Mutex<Vec<(Unit, bool)>>,
}

impl LazyTerms {
    /// `shards`: per shard, its first term and term count; `surfaces`:
    /// the first word of each surface word unit.
    pub fn new(
        shards: impl IntoIterator<Item = (String, u32)>,
        surfaces: impl IntoIterator<Item = String>,
    ) -> LazyTerms {
        let mut firsts = Vec::new();
        let mut ord_starts = vec![0u32];
        for (first, n) in shards {
            firsts.push(first);
            ord_starts.push(ord_starts.last().copied().unwrap_or(0).saturating_add(n));
        }
        let surface_firsts: Arc<[String]> = surfaces.into_iter().collect();
        LazyTerms {
            held: vec![None; firsts.len()],
            firsts: firsts.into(),
            ord_starts: ord_starts.into(),
            surfaces_held: vec![false; surface_firsts.len()],
            surface_firsts,
            asked: Mutex::default(),
        }
    }

    /// The same directories, holding the shards `held` (their first term's
    /// ordinal among the terms held) and the surface word shards
    /// `surfaces_held`.
    pub fn holding(&self, held: Vec<Option<u32>>, surfaces_held: Vec<bool>) -> LazyTerms {
        LazyTerms {
            firsts: Arc::clone(&self.firsts),
            ord_starts: Arc::clone(&self.ord_starts),
            held,
            surface_firsts: Arc::clone(&self.surface_firsts),
            surfaces_held,
            asked: Mutex::default(),
        }
    }

    /// Per shard, where its terms start among those held (`None`: not held).
    pub fn held_shards(&self) -> &[Option<u32>] {
        &self.held
    }

    /// Per surface word shard, whether the segment's words hold it.
    pub fn held_surfaces(&self) -> &[bool] {
        &self.surfaces_held
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

    /// Whether a lookup of `term` can be answered now (asking for its
    /// shard if not).
    pub fn want_term(&self, term: &str) -> bool {
        shard_of(&self.firsts, term).is_none_or(|i| self.ask_shard(i))
    }

    /// Asks for every shard that may hold a term starting with `prefix`.
    pub fn want_prefix(&self, prefix: &str) {
        for i in covering(&self.firsts, prefix) {
            self.ask_shard(i);
        }
    }

    /// Whether the surface words starting with `prefix` are held (asking
    /// for their shards if not). Some shard is always asked for (the first
    /// when `prefix` sorts before them all), so that the segment's surface
    /// words are empty only when it has none, as when fully loaded.
    pub fn want_surfaces(&self, prefix: &str) -> bool {
        let mut all = true;
        for i in covering(&self.surface_firsts, prefix) {
            if let Some(&held) = self.surfaces_held.get(i) {
                self.ask(Unit::Surfaces(i as u32), held);
                all &= held;
            }
        }
        all
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

/// The shard of `firsts` (first terms, in order) that would hold `term`
/// (`None`: before every shard).
fn shard_of(firsts: &[String], term: &str) -> Option<usize> {
    firsts
        .partition_point(|f| f.as_bytes() <= term.as_bytes())
        .checked_sub(1)
}

/// The shards of `firsts` that may hold a term starting with `prefix`.
fn covering<'a>(firsts: &'a [String], prefix: &'a str) -> impl Iterator<Item = usize> + 'a {
    let start = shard_of(firsts, prefix).unwrap_or(0);
    (start..firsts.len()).take_while(move |&i| i == start || firsts[i].starts_with(prefix))
}
