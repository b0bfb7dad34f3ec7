//! Exact match counts up to a cap (`trackTotal`), as Elasticsearch's
//! `track_total_hits`: until the count passes the cap, the kernels visit
//! every match (no block is skipped); past it, MaxScore and block skipping
//! may leave matches unvisited and the total becomes a lower bound.
//!
//! MaxScore still drops terms from candidate generation while counting;
//! it counts what its loop never visited afterwards (`super::maxscore`).

use std::cell::Cell;

use crate::query::budget::Steps;

/// The live matches the kernels have visited, while counting is open.
pub(crate) struct MatchCount {
    seen: Cell<usize>,
    cap: usize,
    open: Cell<bool>,
    /// The walks' own budget: counting never cuts the ranking short.
    steps: Steps,
}

impl MatchCount {
    /// Counting up to `cap`; `None` counts nothing (the total is whatever
    /// the pruned pass offered).
    pub(crate) fn new(cap: Option<usize>, steps: u64) -> MatchCount {
        MatchCount {
            seen: Cell::new(0),
            cap: cap.unwrap_or(0),
            open: Cell::new(cap.is_some()),
            steps: Steps::new(steps),
        }
    }

    /// Whether the kernels must still visit every match (no pruning).
    #[inline]
    pub(crate) fn open(&self) -> bool {
        self.open.get()
    }

    /// One more live match; past the cap, counting closes.
    #[inline]
    pub(crate) fn add(&self) {
        let seen = self.seen.get() + 1;
        self.seen.set(seen);
        if seen > self.cap {
            self.open.set(false);
        }
    }

    /// The exact count, when counting stayed open to the end.
    pub(crate) fn exact(&self) -> Option<usize> {
        self.open().then(|| self.seen.get())
    }

    /// Whether counting ran and passed the cap.
    pub(crate) fn passed_cap(&self) -> bool {
        !self.open() && self.seen.get() > self.cap
    }

    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// One step of counting work (a posting read); out of steps, counting
    /// stops undecided (the total stays a lower bound).
    pub(crate) fn take_step(&self) -> bool {
        let ok = self.steps.take(1);
        if !ok {
            self.open.set(false);
        }
        ok
    }
}
