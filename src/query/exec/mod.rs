//! Scoring kernels: one segment's candidates into the top-k.

pub(crate) mod conjunction;
pub(crate) mod count;
pub(crate) mod maxscore;
pub(crate) mod scorers;
