//! What one scoring pass takes and gives.

use crate::filter::Filter;
use crate::query::ast::Query;
use crate::query::budget::{Limited, Limits};
use crate::query::options::{Page, ProximityOptions, SearchOptions};
use crate::query::plan::Plan;
use crate::query::scorer::ScoreParams;
use crate::query::topk::Candidate;

/// One planning and scoring pass: the parsed query and how to run it.
#[derive(Clone, Copy)]
pub(crate) struct Pass<'a> {
    pub ast: &'a Query,
    pub opts: &'a SearchOptions,
    pub page: Page<'a>,
    pub proximity: Option<&'a ProximityOptions>,
    pub filter: Option<&'a Filter>,
    /// Every term required (the first pass of `and` and `fallback`).
    pub and_mode: bool,
    pub limits: Limits,
    /// Matches counted exactly up to this many (`opts.track_total`, or 0
    /// where no total is reported).
    pub track_total: usize,
}

/// A ranked page of candidates with what it takes to turn them into hits.
pub(crate) struct Ranked<'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub total: Total,
    pub limited: Vec<Limited>,
    pub plan: Plan,
    pub params: ScoreParams,
}

/// Matches of one scoring pass: counted, or a lower bound (pruned).
#[derive(Clone, Copy)]
pub(crate) enum Total {
    Exact(usize),
    AtLeast(usize),
}
