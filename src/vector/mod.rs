//! Vector fields: per-segment vector columns, the dot-product kernels
//! (wasm `simd128` when the build enables it, a scalar loop with the very
//! same summation order otherwise, so scores are bit-identical on both
//! targets), exact and int8 top-k scans, and the fusion of a lexical and a
//! vector candidate list (reciprocal rank fusion or a normalized weighted
//! sum).
//!
//! Cosine fields are normalized when the document is prepared (the stored
//! vector has unit length) and the query vector at search, so a cosine
//! score is one dot product; `dot` fields keep their vectors as given.
//!
//! The int8 mode (`quantize: 'int8'` on the field) keeps, per segment and
//! built on first use, one byte per dimension and one scale per vector
//! (symmetric: `code = round(x / max|x| * 127)`). A search scores the codes,
//! keeps the best [`rerank_count`] per segment, and rescores those in f32:
//! hits carry exact scores, and only the candidate set is approximate.

pub mod fusion;
mod kernel;

pub use kernel::{dot, dot_i8};

use std::sync::OnceLock;

/// Largest accepted `dimensions` of a vector field.
pub const MAX_DIMENSIONS: u32 = 4096;

/// Similarity of a vector field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Metric {
    /// Cosine similarity (vectors normalized at write): in [-1, 1].
    #[default]
    Cosine,
    /// Raw dot product.
    Dot,
}

impl Metric {
    pub fn name(self) -> &'static str {
        match self {
            Metric::Cosine => "cosine",
            Metric::Dot => "dot",
        }
    }
}

/// Scales `v` to unit length; false for a zero (or non-finite) norm.
pub fn normalize(v: &mut [f32]) -> bool {
    let norm = dot(v, v).sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return false;
    }
    let inv = 1.0 / norm;
    v.iter_mut().for_each(|x| *x *= inv);
    true
}

/// int8 codes of a vector and its scale (`x ~ code * scale`).
pub fn quantize(v: &[f32], out: &mut Vec<i8>) -> f32 {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 {
        out.extend(std::iter::repeat_n(0, v.len()));
        return 0.0;
    }
    let k = 127.0 / max;
    out.extend(v.iter().map(|x| (x * k).round().clamp(-127.0, 127.0) as i8));
    max / 127.0
}

/// The int8 form of a column: `codes[i * dims..]` and `scales[i]` per row.
#[derive(Debug, Clone, Default)]
pub struct Quantized {
    pub codes: Vec<i8>,
    pub scales: Vec<f32>,
}

/// The vectors of one vector field in one segment: the local ids of the
/// documents that have one (ascending) and their rows, `dims` floats each.
#[derive(Debug, Clone, Default)]
pub struct VectorColumn {
    pub dims: u32,
    pub docs: Vec<u32>,
    pub data: Vec<f32>,
    int8: OnceLock<Quantized>,
}

impl PartialEq for VectorColumn {
    fn eq(&self, other: &Self) -> bool {
        self.dims == other.dims && self.docs == other.docs && self.data == other.data
    }
}

impl VectorColumn {
    pub fn new(dims: u32, docs: Vec<u32>, data: Vec<f32>) -> VectorColumn {
        debug_assert_eq!(docs.len() * dims as usize, data.len());
        VectorColumn {
            dims,
            docs,
            data,
            int8: OnceLock::new(),
        }
    }

    /// Appends the vector of local doc `doc` (greater than every doc so far).
    pub fn push(&mut self, doc: u32, v: &[f32]) {
        if self.docs.is_empty() {
            self.dims = v.len() as u32;
        }
        debug_assert_eq!(v.len(), self.dims as usize);
        debug_assert!(self.docs.last().is_none_or(|&d| d < doc));
        self.docs.push(doc);
        self.data.extend_from_slice(v);
        self.int8 = OnceLock::new();
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Row `i` (the vector of `docs[i]`).
    #[inline]
    pub fn row(&self, i: usize) -> &[f32] {
        let d = self.dims as usize;
        &self.data[i * d..(i + 1) * d]
    }

    /// The vector of local doc `doc`, if it has one (normalized for cosine
    /// fields). For MMR / dedupe: `cosine = dot(a, b)` on cosine fields.
    pub fn get(&self, doc: u32) -> Option<&[f32]> {
        self.docs.binary_search(&doc).ok().map(|i| self.row(i))
    }

    /// The int8 form, built on first use.
    pub fn quantized(&self) -> &Quantized {
        self.int8.get_or_init(|| {
            let mut q = Quantized {
                codes: Vec::with_capacity(self.data.len()),
                scales: Vec::with_capacity(self.docs.len()),
            };
            for i in 0..self.docs.len() {
                let s = quantize(self.row(i), &mut q.codes);
                q.scales.push(s);
            }
            q
        })
    }

    pub fn heap_bytes(&self) -> usize {
        self.docs.len() * 4
            + self.data.len() * 4
            + self
                .int8
                .get()
                .map_or(0, |q| q.codes.len() + q.scales.len() * 4)
    }
}

/// How many int8 candidates per segment are rescored in f32 for a top-`k`.
pub fn rerank_count(k: usize) -> usize {
    k.saturating_mul(10).max(100)
}

/// The best `k` rows of `col` for `query` among allowed docs, as
/// `(score, local doc)`, in no particular order. `int8` scans the codes and
/// rescores the best [`rerank_count`] in f32. Equal scores rank by `id`
/// (the external id of a local doc), as every ranking does, so which of
/// several tied documents make the cut does not depend on segmentation.
pub fn scan<'a>(
    col: &VectorColumn,
    query: &[f32],
    allow: &impl Fn(u32) -> bool,
    k: usize,
    int8: bool,
    id: &dyn Fn(u32) -> &'a str,
) -> Vec<(f32, u32)> {
    if k == 0 || col.is_empty() || query.len() != col.dims as usize {
        return Vec::new();
    }
    if int8 {
        let q = col.quantized();
        let mut codes = Vec::with_capacity(query.len());
        let qs = quantize(query, &mut codes);
        let d = col.dims as usize;
        let row_id = |i: u32| id(col.docs[i as usize]);
        let mut heap = Best::new(rerank_count(k), &row_id);
        for (i, &doc) in col.docs.iter().enumerate() {
            if !allow(doc) {
                continue;
            }
            let s = dot_i8(&q.codes[i * d..(i + 1) * d], &codes) as f32 * q.scales[i] * qs;
            heap.offer(s, i as u32);
        }
        let mut exact = Best::new(k, id);
        for (_, i) in heap.into_vec() {
            exact.offer(dot(col.row(i as usize), query), col.docs[i as usize]);
        }
        return exact.into_vec();
    }
    let mut heap = Best::new(k, id);
    for (i, &doc) in col.docs.iter().enumerate() {
        if !allow(doc) {
            continue;
        }
        let s = dot(col.row(i), query);
        if heap.admits(s) {
            heap.offer(s, doc);
        }
    }
    heap.into_vec()
}

/// A bounded min-heap of `(score, payload)`: the `k` highest scores, equal
/// scores to the payload whose `id` is smaller.
/// (One instantiation: the id lookup is dynamic, and called on ties only.)
struct Best<'i, 'a> {
    k: usize,
    heap: Vec<(f32, u32)>,
    id: &'i dyn Fn(u32) -> &'a str,
}

impl<'i, 'a> Best<'i, 'a> {
    fn new(k: usize, id: &'i dyn Fn(u32) -> &'a str) -> Self {
        Best {
            k,
            heap: Vec::with_capacity(k.min(4096)),
            id,
        }
    }

    #[inline]
    fn admits(&self, s: f32) -> bool {
        self.heap.len() < self.k || s >= self.heap[0].0
    }

    fn offer(&mut self, s: f32, p: u32) {
        let id = self.id;
        // `a` ranks below `b`.
        let worse = |a: (f32, u32), b: (f32, u32)| a.0 < b.0 || (a.0 == b.0 && id(a.1) > id(b.1));
        let h = &mut self.heap;
        if h.len() < self.k {
            h.push((s, p));
            let mut i = h.len() - 1;
            while i > 0 {
                let parent = (i - 1) / 2;
                if worse(h[i], h[parent]) {
                    h.swap(i, parent);
                    i = parent;
                } else {
                    break;
                }
            }
        } else if self.k > 0 && worse(h[0], (s, p)) {
            h[0] = (s, p);
            let mut i = 0;
            loop {
                let (l, r) = (2 * i + 1, 2 * i + 2);
                let mut m = i;
                if l < h.len() && worse(h[l], h[m]) {
                    m = l;
                }
                if r < h.len() && worse(h[r], h[m]) {
                    m = r;
                }
                if m == i {
                    break;
                }
                h.swap(i, m);
                i = m;
            }
        }
    }

    fn into_vec(self) -> Vec<(f32, u32)> {
        self.heap
    }
}

#[cfg(test)]
mod tests;
