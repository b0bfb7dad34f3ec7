//! Fusing a lexical and a vector candidate list into one ranking.
//! `zscore` with alpha 0.5 is the default: on Cranfield, CISI and the
//! agent-memory set it is above the better single list on all three by
//! nDCG@10, where RRF is below it on the agent set (BENCHMARKS.md, "Fusion
//! by evidence").
//!
//! - `rrf` (reciprocal rank fusion, Cormack et al. 2009): a candidate's
//!   score is the sum over the lists that hold it of `1 / (k + rank)`,
//!   rank from 1. Scores of the two lists are never compared.
//! - `weighted`: each list's scores are min-max normalized to [0, 1] (a
//!   list whose scores are all equal normalizes to 1), and a candidate
//!   scores `alpha * vector + (1 - alpha) * lexical`, a list that lacks it
//!   contributing 0.
//! - `zscore`: the same convex combination of scores standardized per list
//!   (`(s - mean) / deviation`); a list that lacks a candidate contributes
//!   its lowest standardized score (the candidate scored no better there).
//!   A list whose scores are all equal (one hit, say) standardizes to 0,
//!   and a candidate it lacks to -1: being in it still counts.
//!
//! A candidate in one list only stays eligible under every method; fused
//! scores are finite whenever the lists' scores are.

use crate::json::Value;
use crate::jsonopt;

/// How the two lists combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    Rrf,
    Weighted,
    #[default]
    Zscore,
}

impl Method {
    pub const NAMES: [&'static str; 3] = ["rrf", "weighted", "zscore"];
    const ALL: [Method; 3] = [Method::Rrf, Method::Weighted, Method::Zscore];

    pub fn name(self) -> &'static str {
        Self::NAMES[self as usize]
    }
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
            method: Method::Zscore,
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
                "method" => o.method = Method::ALL[jsonopt::variant(v, path, key, &Method::NAMES)?],
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
    let (lex_w, vec_w) = match opts.method {
        Method::Rrf => (1.0, 1.0),
        Method::Weighted | Method::Zscore => (1.0 - opts.alpha, opts.alpha),
    };
    let (lex, lex_floor) = normalized(lexical, opts);
    let (vec, vec_floor) = normalized(vector, opts);
    for (i, c) in lex.into_iter().enumerate() {
        out.push(Fused {
            score: lex_w * c + vec_w * vec_floor,
            lexical: Some(i),
            vector: None,
        });
    }
    for (i, (&(key, _), c)) in vector.iter().zip(vec).enumerate() {
        // Lexical candidates sit at their own position in `out`.
        match at.get(key) {
            Some(j) => {
                out[j].score += vec_w * (c - vec_floor);
                out[j].vector = Some(i);
            }
            None => out.push(Fused {
                score: lex_w * lex_floor + vec_w * c,
                lexical: None,
                vector: Some(i),
            }),
        }
    }
    out
}

/// Each list entry's normalized score, and the value that stands for a
/// candidate the list lacks.
fn normalized(list: &[(u64, f32)], opts: &HybridOptions) -> (Vec<f32>, f32) {
    match opts.method {
        Method::Rrf => (
            (0..list.len())
                .map(|r| 1.0 / (opts.k + r as f32 + 1.0))
                .collect(),
            0.0,
        ),
        Method::Weighted => {
            // In f64: `hi - lo` of finite f32 scores cannot overflow there.
            let (lo, hi) = list
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
                    (lo.min(x.1 as f64), hi.max(x.1 as f64))
                });
            let norm = list
                .iter()
                .map(|x| {
                    if hi > lo {
                        ((x.1 as f64 - lo) / (hi - lo)) as f32
                    } else {
                        1.0
                    }
                })
                .collect();
            (norm, 0.0)
        }
        Method::Zscore => {
            if list.is_empty() {
                return (Vec::new(), 0.0);
            }
            // In f64: no overflow, and nearly equal scores keep their spread.
            let n = list.len() as f64;
            let mean = list.iter().map(|x| x.1 as f64).sum::<f64>() / n;
            let var = list
                .iter()
                .map(|x| (x.1 as f64 - mean).powi(2))
                .sum::<f64>()
                / n;
            let sd = var.sqrt();
            let z: Vec<f32> = list
                .iter()
                .map(|x| {
                    if sd > 0.0 {
                        ((x.1 as f64 - mean) / sd) as f32
                    } else {
                        0.0
                    }
                })
                .collect();
            // Equal scores say nothing but membership: a lacking list ranks below.
            let floor = if sd > 0.0 {
                z.iter().copied().fold(f32::INFINITY, f32::min)
            } else {
                -1.0
            };
            (z, floor)
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
        let opts = HybridOptions {
            method: Method::Rrf,
            ..Default::default()
        };
        let fused = fuse(&lexical, &vector, &opts);
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
    fn zscore_standardizes_each_list_and_floors_missing_candidates() {
        let opts = HybridOptions {
            method: Method::Zscore,
            alpha: 0.5,
            ..Default::default()
        };
        // Lexical z: 1.2247, 0, -1.2247; vector z: 1, -1.
        let lexical = [(1, 9.0), (2, 6.0), (3, 3.0)];
        let vector = [(2, 0.8), (4, 0.4)];
        let fused = fuse(&lexical, &vector, &opts);
        let score = |lex: Option<usize>, vec: Option<usize>| {
            fused
                .iter()
                .find(|f| f.lexical == lex && f.vector == vec)
                .unwrap()
                .score
        };
        let z = 1.5f32.sqrt();
        let close = |a: f32, b: f32| (a - b).abs() < 1e-5;
        assert_eq!(fused.len(), 4);
        // In both lists: its own z-scores.
        assert!(close(score(Some(1), Some(0)), 0.5 * 0.0 + 0.5 * 1.0));
        // Lexical only: the vector list's lowest z (-1) stands in.
        assert!(close(score(Some(0), None), 0.5 * z - 0.5));
        assert!(close(score(Some(2), None), -0.5 * z - 0.5));
        // Vector only: the lexical list's lowest z stands in.
        assert!(close(score(None, Some(1)), -0.5 * z - 0.5));
        // Shared candidate first, then the lexical leader.
        let mut order: Vec<&Fused> = fused.iter().collect();
        order.sort_by(|a, b| b.score.total_cmp(&a.score));
        assert_eq!(order[0].lexical, Some(1));
        assert_eq!(order[1].lexical, Some(0));
    }

    #[test]
    fn zscore_counts_membership_of_a_list_of_equal_scores() {
        let opts = HybridOptions {
            method: Method::Zscore,
            alpha: 0.5,
            ..Default::default()
        };
        // One lexical hit (no spread); the vector list ranks 2 above 1.
        let lexical = [(1, 3.0)];
        let vector = [(2, 0.9), (1, 0.8), (3, 0.1)];
        let fused = fuse(&lexical, &vector, &opts);
        let by_vec = |i| fused.iter().find(|f| f.vector == Some(i)).unwrap().score;
        // Document 1 gets lexical 0, documents 2 and 3 lexical -1: the
        // lexical hit leads though the vector list puts 2 first.
        assert!(by_vec(1) > by_vec(0), "{fused:?}");
        assert!(by_vec(0) > by_vec(2), "{fused:?}");
    }

    #[test]
    fn every_method_handles_ties_empty_and_one_sided_lists() {
        for method in Method::ALL {
            let opts = HybridOptions {
                method,
                alpha: 0.3,
                ..Default::default()
            };
            assert!(fuse(&[], &[], &opts).is_empty(), "{method:?}");
            // One list only: its order is kept, scores finite.
            let lexical = [(1, 5.0), (2, 3.0), (3, 1.0)];
            for (lex, vec) in [(&lexical[..], &[][..]), (&[][..], &lexical[..])] {
                let fused = fuse(lex, vec, &opts);
                assert_eq!(fused.len(), 3, "{method:?}");
                assert!(fused.iter().all(|f| f.score.is_finite()), "{method:?}");
                let pos = |f: &Fused| f.lexical.or(f.vector).unwrap();
                let mut sorted = fused.clone();
                sorted.sort_by(|a, b| b.score.total_cmp(&a.score));
                assert_eq!(
                    sorted.iter().map(pos).collect::<Vec<_>>(),
                    [0, 1, 2],
                    "{method:?}"
                );
            }
            // All-equal scores and one-element lists: finite, and equal
            // scores fuse to equal scores (ties are left to the id order).
            let tied = [(1, 2.0), (2, 2.0)];
            let single = [(3, 0.7)];
            let fused = fuse(&tied, &single, &opts);
            assert!(fused.iter().all(|f| f.score.is_finite()), "{method:?}");
            if method != Method::Rrf {
                assert_eq!(fused[0].score, fused[1].score, "{method:?}");
            }
            let tiny = [(1, 1.0e-30), (2, 1.0e-30 * (1.0 + f32::EPSILON))];
            let huge = [(1, f32::MAX), (2, -f32::MAX)];
            let fused = fuse(&tiny, &huge, &opts);
            assert!(
                fused.iter().all(|f| f.score.is_finite()),
                "{method:?}: {fused:?}"
            );
        }
    }

    #[test]
    fn options_are_checked_with_their_path() {
        let read = |s: &str| HybridOptions::from_json(&crate::json::parse(s).unwrap());
        assert_eq!(read("{}"), Ok(HybridOptions::default()));
        assert_eq!(HybridOptions::default().method, Method::Zscore);
        let o = read(r#"{"method":"weighted","alpha":0.7,"k":10,"candidates":50}"#).unwrap();
        assert_eq!(
            (o.method, o.alpha, o.k, o.candidates),
            (Method::Weighted, 0.7, 10.0, 50)
        );
        assert_eq!(
            read(r#"{"method":"zscore"}"#).unwrap().method,
            Method::Zscore
        );
        assert_eq!(read(r#"{"method":"rrf"}"#).unwrap().method, Method::Rrf);
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
