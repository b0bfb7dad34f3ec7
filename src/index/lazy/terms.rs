//! What a lazily opened segment holds of its terms: the head's shard
//! directory, each shard held (its dictionary, term table and postings, as
//! decoded), and what the search asked for. Lookups go through
//! [`crate::index::segment::Segment`]'s term methods, which consult this: a
//! term whose shard is not held is recorded as missing (and not found this
//! round); the lazy index fetches what was missing and searches again.
//!
//! Ordinals are the whole segment's (a shard's first term's ordinal plus
//! the term's in the shard), as when it is fully loaded; a term's
//! [`TermInfo`] names its shard in the high bits of `first_block` (from
//! [`LazyTerms::shift`] up), whose postings the segment's cursors read.
//! Nothing held is copied again: a search used to rebuild one dictionary,
//! term table and postings from every shard it asked for, a third of a
//! repeated search's time at 1M documents.

use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::postings::{PostingsStore, TermInfo};
use crate::termdict::{typo_anchors, TermDict};

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
    /// First term of each shard.
    firsts: Box<[String]>,
    /// Ordinal in the whole segment of each shard's first term, then the
    /// segment's term count.
    ord_starts: Box<[u32]>,
    /// Per shard held: its terms, their table and postings.
    held: Vec<Option<HeldShard>>,
    /// Block numbers in the [`TermInfo`]s given out are `shard << shift |
    /// block`: the shard's index, then the block's in the shard.
    shift: u32,
    /// First word of each surface word shard (format 8; one unit of no
    /// first word before).
    surface_firsts: Box<[String]>,
    /// Per surface word shard, whether the segment's surface words hold it.
    surfaces_held: Vec<bool>,
    /// Units asked for: `(unit, held)`.
    asked: Mutex<Vec<(Unit, bool)>>,
}

/// A shard held: its terms, their table (block numbers its own) and
/// postings.
#[derive(Debug)]
struct HeldShard {
    dict: TermDict,
    infos: Vec<TermInfo>,
    postings: PostingsStore,
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
        let surface_firsts: Box<[String]> = surfaces.into_iter().collect();
        // The bits of the largest shard index, the rest (at most 31) for
        // block numbers.
        let bits = 32 - (firsts.len().saturating_sub(1) as u32).leading_zeros();
        LazyTerms {
            held: firsts.iter().map(|_| None).collect(),
            shift: (32 - bits).min(31),
            firsts: firsts.into(),
            ord_starts: ord_starts.into(),
            surfaces_held: vec![false; surface_firsts.len()],
            surface_firsts,
            asked: Mutex::default(),
        }
    }

    /// Holds shard `i`: its terms, their table (block numbers its own) and
    /// its postings; returns the bytes they take. A shard of more blocks than the block numbers left
    /// beside the shard index can count is a `LIMIT` (an index that large
    /// is to be opened whole: 2^31 blocks in all).
    pub fn hold(
        &mut self,
        i: usize,
        (dict, infos, postings): (TermDict, Vec<TermInfo>, PostingsStore),
    ) -> Result<usize> {
        if i >= self.held.len() {
            return Err(Error::Usage {
                reason: format!("no term shard {i} in a lazy segment"),
            });
        }
        if postings.blocks.len() >= 1 << self.shift {
            return Err(Error::Limit {
                what: "postings blocks of one term shard of a lazily opened segment",
                limit: (1 << self.shift) - 1,
                got: postings.blocks.len(),
            });
        }
        let bytes = dict.as_bytes().len()
            + infos.len() * std::mem::size_of::<TermInfo>()
            + postings.heap_bytes();
        let tag = (i as u32) << self.shift;
        let infos = infos.iter().map(|t| TermInfo {
            first_block: t.first_block | tag,
            ..*t
        });
        self.held[i] = Some(HeldShard {
            infos: infos.collect(),
            postings,
            dict,
        });
        Ok(bytes)
    }

    /// Drops shard `i`.
    pub fn release(&mut self, i: usize) {
        if let Some(held) = self.held.get_mut(i) {
            *held = None;
        }
    }

    /// The postings `info` (given out by [`LazyTerms::info`]) reads, and
    /// `info` with its block numbers the shard's.
    pub fn postings(&self, info: TermInfo) -> Option<(&PostingsStore, TermInfo)> {
        let i = (u64::from(info.first_block) >> self.shift) as usize;
        let held = self.held.get(i)?.as_ref()?;
        let first_block = info.first_block & ((1u32 << self.shift) - 1);
        Some((
            &held.postings,
            TermInfo {
                first_block,
                ..info
            },
        ))
    }

    /// The table entry of the term of ordinal `ord` in the whole segment,
    /// if its shard is held (asking for nothing: `ord` was found so).
    pub fn info(&self, ord: u64) -> Option<TermInfo> {
        let global = u32::try_from(ord).ok()?;
        let i = self.shard_at(global)?;
        let held = self.held[i].as_ref()?;
        held.infos
            .get((global - self.ord_starts[i]) as usize)
            .copied()
    }

    /// Per surface word shard, whether the segment's words hold it.
    pub fn held_surfaces(&self) -> &[bool] {
        &self.surfaces_held
    }

    pub fn set_surfaces_held(&mut self, held: Vec<bool>) {
        self.surfaces_held = held;
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

    /// Shard `i` if held (asking for it if not).
    fn ask_shard(&self, i: usize) -> Option<&HeldShard> {
        let held = self.held.get(i).and_then(Option::as_ref);
        self.ask(Unit::Shard(i as u32), held.is_some());
        held
    }

    /// The ordinal of `term` in the whole segment, if its shard is held
    /// (asking for it if not) and holds it.
    pub fn term_ord(&self, term: &str) -> Option<u64> {
        let i = shard_of(&self.firsts, term)?;
        let local = self.ask_shard(i)?.dict.get(term)?;
        Some(u64::from(self.ord_starts[i]) + local)
    }

    /// Terms starting with `prefix` and their ordinals, in byte order, at
    /// most `limit`, from the shards held (asking for every shard that may
    /// hold one).
    pub fn prefix(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        let shards: Vec<usize> = covering(&self.firsts, prefix).collect();
        let mut out = Vec::new();
        for i in shards {
            if let Some(held) = self.ask_shard(i) {
                let base = u64::from(self.ord_starts[i]);
                let more = held.dict.prefix(prefix, limit.saturating_sub(out.len()));
                out.extend(more.into_iter().map(|(t, o)| (t, o + base)));
            }
        }
        out
    }

    /// [`TermDict::typos_bounded`] over the shards held that hold terms
    /// starting with `term`'s first or second letter (asking for them all),
    /// in order, sharing `limit` and `steps`.
    pub fn typos(
        &self,
        term: &str,
        distance: u8,
        limit: usize,
        steps: &mut u64,
    ) -> Vec<(String, u64, u8)> {
        let mut shards = Vec::new();
        for anchor in typo_anchors(term) {
            shards.extend(covering(&self.firsts, &anchor));
        }
        shards.sort_unstable();
        shards.dedup();
        let mut out = Vec::new();
        for i in shards {
            let Some(held) = self.ask_shard(i) else {
                continue;
            };
            let left = limit.saturating_sub(out.len());
            if left > 0 && *steps > 0 {
                let base = u64::from(self.ord_starts[i]);
                let more = held.dict.typos_bounded(term, distance, left, steps);
                out.extend(more.into_iter().map(|(t, o, d)| (t, o + base, d)));
            }
        }
        out
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

    /// The term of ordinal `global` in the whole segment, if its shard is
    /// held (asking for it if not).
    pub fn term_at(&self, global: u32) -> Option<String> {
        let i = self.shard_at(global)?;
        let local = global - self.ord_starts[i];
        self.ask_shard(i)?.dict.term_at(u64::from(local))
    }

    /// Whether the term of ordinal `global` in the whole segment is held
    /// (asking for its shard if not).
    pub fn holds_ord(&self, global: u32) -> bool {
        self.shard_at(global)
            .is_some_and(|i| self.ask_shard(i).is_some())
    }

    /// The shard holding the term of ordinal `global` in the whole segment.
    fn shard_at(&self, global: u32) -> Option<usize> {
        let i = self
            .ord_starts
            .partition_point(|&s| s <= global)
            .checked_sub(1)?;
        (i < self.firsts.len()).then_some(i)
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
