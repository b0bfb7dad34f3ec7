//! BM25 / BM25F scoring.
//!
//! For a term `t` and document `d`, with per-field weights `w_f`:
//!
//! ```text
//! tf~(t, d) = Σ_f  w_f · tf(t, d, f) / (1 − b + b · len(d, f) / avglen(f))
//! score     = boost · idf(t) · tf~ · (k1 + 1) / (tf~ + k1)
//! idf(t)    = ln(1 + (N − df + 0.5) / (df + 0.5))
//! ```
//!
//! The weights are divided by the largest one ([`weight_scale`]) before
//! use, so the heaviest field is scored as plain BM25 and every other field
//! counts an occurrence as a fraction of one. With one field (of any weight)
//! this is exactly Lucene/bm25s BM25. `N`, `df` and `avglen` are index-wide
//! over live documents, so a document scores the same whatever segment it
//! sits in.

/// Inverse document frequency (never negative).
#[inline]
pub fn idf(n_docs: f64, doc_freq: f64) -> f32 {
    (1.0 + (n_docs - doc_freq + 0.5) / (doc_freq + 0.5)).ln() as f32
}

/// Factor applied to every field weight: 1 / the largest weight (1 when no
/// weight is positive). BM25F saturates the weighted tf sum, so a weight
/// above 1 puts a single occurrence where the curve is flat (unscaled, with
/// `k1` 1.2 a title of weight 2 counts a title word as 1.4 body words, and
/// scaling all weights changes the ranking). Scaled, only the weights'
/// ratios matter and `k1` keeps its single-field meaning for the heaviest
/// field.
pub fn weight_scale(weights: &[f32]) -> f32 {
    let top = weights.iter().copied().fold(0.0f32, f32::max);
    if top > 0.0 && top.is_finite() {
        1.0 / top
    } else {
        1.0
    }
}

/// Per-query constants of one text field: `norm(len) = a + c · len`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldNorm {
    pub weight: f32,
    pub a: f32,
    pub c: f32,
}

impl FieldNorm {
    pub fn new(weight: f32, b: f32, avg_len: f32) -> FieldNorm {
        let avg = if avg_len > 0.0 { avg_len } else { 1.0 };
        FieldNorm {
            weight,
            a: 1.0 - b,
            c: b / avg,
        }
    }

    /// Weighted, length-normalized tf of one field.
    #[inline]
    pub fn tf(&self, tf: u32, len: u32) -> f32 {
        self.weight * tf as f32 / (self.a + self.c * len as f32)
    }
}

/// Saturation: `tf~ · (k1 + 1) / (tf~ + k1)` scaled by `idf · boost`.
#[inline]
pub fn saturate(idf_boost: f32, k1: f32, tf: f32) -> f32 {
    if tf <= 0.0 {
        return 0.0;
    }
    idf_boost * tf * (k1 + 1.0) / (tf + k1)
}
