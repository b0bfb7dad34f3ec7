//! Fusing a lexical and a vector candidate list into one ranking.
//!
//! - `rrf` (reciprocal rank fusion, Cormack et al. 2009): a candidate's
//!   score is the sum over the lists that hold it of `1 / (k + rank)`,
//!   rank from 1. Scores of the two lists are never compared.
//! - `weighted`: each list's scores are min-max normalized to [0, 1] (a
//!   list whose scores are all equal normalizes to 1), and a candidate
//!   scores `alpha * vector + (1 - alpha) * lexical`, a list that lacks it
//!   contributing 0.
//!
//! A candidate in one list only stays eligible under both methods.

use crate::json::Value;
use crate::jsonopt;

/// How the two lists combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    #[default]
    Rrf,
    Weighted,
}

/// `hybrid` search options.
#[derive(Debug, Clone, PartialEq)]
pub struct HybridOptions {
    pub method: Method,
    /// RRF's rank constant.
    pub k: f32,
    /// Weight of the vector list in `weighted` (the lexical list gets
    /// `1 - alpha`).
    pub alpha: f32,
    /// Length of each candidate list (at least `offset + limit` is used).
    pub candidates: usize,
}

impl Default for HybridOptions {
    fn default() -> Self {
        HybridOptions {
            method: Method::Rrf,
            k: 60.0,
            alpha: 0.5,
            candidates: 100,
        }
    }
}

/// Largest accepted `hybrid.candidates`.
pub const MAX_CANDIDATES: usize = 10_000;

const FIELDS: &[&str] = &["method", "k", "alpha", "candidates"];

impl HybridOptions {
    /// Reads `{ method, k, alpha, candidates }` (every key optional) and
    /// checks the values; errors name `hybrid.<key>`.
    pub(crate) fn from_json(v: &Value) -> jsonopt::Res<Self> {
        let mut o = HybridOptions::default();
        let path = "hybrid";
        for (key, v) in jsonopt::entries(v, path, FIELDS)? {
            match key {
                "method" => {
                    o.method = [Method::Rrf, Method::Weighted]
                        [jsonopt::variant(v, path, key, &["rrf", "weighted"])?]
                }
                "k" => o.k = jsonopt::f32_(v, path, key)?,
                "alpha" => o.alpha = jsonopt::f32_(v, path, key)?,
                _ => o.candidates = jsonopt::usize_(v, path, key)?,
            }
        }
        if !o.k.is_finite() || o.k < 0.0 {
            return Err(
                "`hybrid.k` must be a finite number >= 0 (RRF's rank constant, e.g. 60)".into(),
            );
        }
        if !(0.0..=1.0).contains(&o.alpha) {
            return Err("`hybrid.alpha` must be between 0 and 1 (the vector list's weight)".into());
        }
        if o.candidates == 0 || o.candidates > MAX_CANDIDATES {
            return Err(format!(
                "`hybrid.candidates` must be between 1 and {MAX_CANDIDATES}"
            ));
        }
        Ok(o)
    }
}

/// One fused candidate: its positions (0-based ranks) in the two lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fused {
    pub score: f32,
    pub lexical: Option<usize>,
    pub vector: Option<usize>,
}

/// Fuses two ranked lists (best first) of `(key, score)`; keys are unique
/// within a list. The result is in no particular order.
pub fn fuse(lexical: &[(u64, f32)], vector: &[(u64, f32)], opts: &HybridOptions) -> Vec<Fused> {
    let mut out: Vec<Fused> = Vec::with_capacity(lexical.len() + vector.len());
    let at = crate::sort::KeyPositions::new(lexical.iter().map(|x| x.0));
    let lex = contributions(lexical, opts, 1.0 - opts.alpha);
    let vec = contributions(vector, opts, opts.alpha);
    for (i, c) in lex.into_iter().enumerate() {
        out.push(Fused {
            score: c,
            lexical: Some(i),
            vector: None,
        });
    }
    for (i, (&(key, _), c)) in vector.iter().zip(vec).enumerate() {
        // Lexical candidates sit at their own position in `out`.
        match at.get(key) {
            Some(j) => {
                out[j].score += c;
                out[j].vector = Some(i);
            }
            None => out.push(Fused {
                score: c,
                lexical: None,
                vector: Some(i),
            }),
        }
    }
    out
}

/// Each list entry's share of the fused score.
fn contributions(list: &[(u64, f32)], opts: &HybridOptions, weight: f32) -> Vec<f32> {
    match opts.method {
        Method::Rrf => (0..list.len())
            .map(|r| 1.0 / (opts.k + r as f32 + 1.0))
            .collect(),
        Method::Weighted => {
            let (lo, hi) = list
                .iter()
                .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x.1), hi.max(x.1))
                });
            list.iter()
                .map(|x| {
                    let norm = if hi > lo { (x.1 - lo) / (hi - lo) } else { 1.0 };
                    weight * norm
                })
                .collect()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_keeps_single_list_candidates_and_sums_shared_ones() {
        let lexical = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let vector = [(4, 0.9), (2, 0.8)];
        let fused = fuse(&lexical, &vector, &HybridOptions::default());
        let score = |lex: Option<usize>, vec: Option<usize>| {
            fused
                .iter()
                .find(|f| f.lexical == lex && f.vector == vec)
                .map(|f| f.score)
        };
        assert_eq!(fused.len(), 4);
        assert_eq!(score(Some(0), None), Some(1.0 / 61.0));
        assert_eq!(score(Some(1), Some(1)), Some(1.0 / 62.0 + 1.0 / 62.0));
        assert_eq!(score(None, Some(0)), Some(1.0 / 61.0));
        assert_eq!(score(Some(2), None), Some(1.0 / 63.0));
    }

    #[test]
    fn weighted_normalizes_each_list() {
        let opts = HybridOptions {
            method: Method::Weighted,
            alpha: 0.25,
            ..Default::default()
        };
        let lexical = [(1, 10.0), (2, 6.0), (3, 2.0)];
        let vector = [(3, 0.5), (4, 0.1)];
        let fused = fuse(&lexical, &vector, &opts);
        let by_lex = |i| fused.iter().find(|f| f.lexical == Some(i)).unwrap().score;
        assert_eq!(by_lex(0), 0.75);
        assert_eq!(by_lex(1), 0.75 * 0.5);
        // Last lexically (0) but first by vector (1 * 0.25).
        assert_eq!(by_lex(2), 0.25);
        let vector_only = fused.iter().find(|f| f.lexical.is_none()).unwrap();
        assert_eq!((vector_only.vector, vector_only.score), (Some(1), 0.0));
    }

    #[test]
    fn options_are_checked_with_their_path() {
        let read = |s: &str| HybridOptions::from_json(&crate::json::parse(s).unwrap());
        assert_eq!(read("{}"), Ok(HybridOptions::default()));
        let o = read(r#"{"method":"weighted","alpha":0.7,"k":10,"candidates":50}"#).unwrap();
        assert_eq!(
            (o.method, o.alpha, o.k, o.candidates),
            (Method::Weighted, 0.7, 10.0, 50)
        );
        assert!(read(r#"{"alpha":2}"#).unwrap_err().contains("hybrid.alpha"));
        assert!(read(r#"{"candidates":0}"#)
            .unwrap_err()
            .contains("hybrid.candidates"));
        assert!(read(r#"{"method":"x"}"#)
            .unwrap_err()
            .contains("hybrid.method"));
        assert!(read(r#"{"kk":1}"#).unwrap_err().contains("hybrid.kk"));
    }
}
