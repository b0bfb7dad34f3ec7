//! Ranked passes kept across the rounds of one lazy search.
//!
//! A lazy search runs again after each fetch (`index::lazy`). When a round
//! fetched only doc store pages, the next one ranks exactly as it did:
//! ranking reads term shards, surface words, columns and ids, never stored
//! fields. So the ranked candidates of each pass are kept and reused until
//! the lazy index puts new terms into a segment ([`RankMemo::clear`]);
//! only the hits are made again. A fully loaded index never has a memo.
//!
//! One memo serves one search: one query and one set of options, from
//! which every pass derives the same parsed query, filter and proximity
//! (`Searcher::search_ranked`). Its passes differ only in what [`Key`]
//! holds, so that is the key (cloning and comparing the query and options
//! instead cost 5 KB of gzipped wasm).

use std::cell::RefCell;

use crate::query::budget::{Limited, Limits};
use crate::query::plan::Plan;
use crate::query::scorer::ScoreParams;
use crate::query::topk::{Candidate, DocId};

use super::pass::{Pass, Ranked, Total};
use super::Searcher;

/// The ranked passes of one search; see the module documentation.
#[derive(Default)]
pub(crate) struct RankMemo {
    entries: RefCell<Vec<Entry>>,
}

/// What tells apart the passes of one search for [`Searcher::ranked`]
/// (the page's stored fields and snippets only shape the hits; its sort
/// is the options' or none).
#[derive(PartialEq)]
struct Key {
    offset: usize,
    limit: usize,
    sorted: bool,
    and_mode: bool,
    limits: Limits,
    track_total: usize,
}

impl Key {
    fn of(pass: &Pass<'_>) -> Key {
        Key {
            offset: pass.page.offset,
            limit: pass.page.limit,
            sorted: pass.page.sort.is_some(),
            and_mode: pass.and_mode,
            limits: pass.limits,
            track_total: pass.track_total,
        }
    }
}

struct Entry {
    key: Key,
    /// (score, segment, doc, matched terms) of each candidate, in order.
    candidates: Vec<(f32, usize, u32, Option<u64>)>,
    total: Total,
    limited: Vec<Limited>,
    plan: Plan,
    params: ScoreParams,
}

impl RankMemo {
    /// Forgets every pass: the terms they ranked over changed.
    pub(crate) fn clear(&self) {
        self.entries.borrow_mut().clear();
    }

    /// The pass ranked before with the same inputs, over `searcher`'s
    /// segments (taken out: [`RankMemo::keep`] puts it back once its hits
    /// are made, so nothing is copied).
    pub(crate) fn take<'a>(&self, searcher: &Searcher<'a>, pass: &Pass<'_>) -> Option<Ranked<'a>> {
        let key = Key::of(pass);
        let mut entries = self.entries.borrow_mut();
        let at = entries.iter().position(|e| e.key == key)?;
        let e = entries.swap_remove(at);
        let mut candidates = Vec::with_capacity(e.candidates.len());
        for &(score, segment, doc, matched) in &e.candidates {
            let docs = &searcher.segments.get(segment)?.segment.docs;
            candidates.push(Candidate {
                score,
                id: DocId::new(docs, doc),
                segment,
                doc,
                matched,
            });
        }
        Some(Ranked {
            candidates,
            total: e.total,
            limited: e.limited,
            plan: e.plan,
            params: e.params,
        })
    }

    /// Keeps `ranked`, the pass's result as ranking left it.
    pub(crate) fn keep(&self, pass: &Pass<'_>, ranked: Ranked<'_>) {
        let candidates = ranked
            .candidates
            .iter()
            .map(|c| (c.score, c.segment, c.doc, c.matched))
            .collect();
        self.entries.borrow_mut().push(Entry {
            key: Key::of(pass),
            candidates,
            total: ranked.total,
            limited: ranked.limited,
            plan: ranked.plan,
            params: ranked.params,
        });
    }
}
