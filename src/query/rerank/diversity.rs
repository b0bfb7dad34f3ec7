//! Diversity (MMR) and near-duplicate collapsing (`dedupe`) over a pool
//! of [`pool_size`] hits.

use rustc_hash::FxHashMap as HashMap;

use crate::json::Value;
use crate::query::budget::Steps;
use crate::query::options::Hit;
use crate::query::searcher::Searcher;

/// Candidates diversity and dedupe re-rank: three pages, at least 50.
pub(crate) fn pool_size(offset: usize, limit: usize) -> usize {
    ((offset + limit) * 3).clamp(50, crate::query::budget::MAX_RESULTS)
}

/// Bytes of a hit's title and text (what [`content`] reads).
fn content_bytes(hit: &Hit) -> usize {
    ["title", "text"]
        .iter()
        .filter_map(|f| match hit.fields.get(f) {
            Some(Value::String(s)) => Some(s.len()),
            _ => None,
        })
        .sum()
}

/// Words of a hit's title and text, lowercased (the content diversity and
/// dedupe compare).
fn content(hit: &Hit) -> String {
    // The analyzer's lowercasing (core's `to_lowercase` tables cost ~7 KB gz).
    let mut lower = String::new();
    for f in ["title", "text"] {
        if let Some(Value::String(s)) = hit.fields.get(f) {
            crate::analysis::normalize::lower_nfkc_into(s.as_str(), false, &mut lower);
            lower.push(' ');
        }
    }
    let mut out = String::new();
    for w in lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// Similarity of two hits for MMR: Jaccard overlap of their word sets.
/// The one place it is computed: an index with a vector field can use the
/// cosine of the two documents' vectors here instead.
pub(crate) fn similarity(a: &HashMap<&str, usize>, b: &HashMap<&str, usize>) -> f32 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let common = small.keys().filter(|w| large.contains_key(*w)).count();
    common as f32 / (a.len() + b.len() - common) as f32
}

/// Cosine at or above which two hits' vectors make them near-duplicates.
pub(crate) const DUPLICATE_COSINE: f32 = 0.97;

/// Collapses hits with equal normalized title+text, or (when `vectors`
/// holds the hits' unit vectors) with a vector cosine of at least
/// [`DUPLICATE_COSINE`], into the best-ranked one, which lists the others'
/// ids in `duplicates`.
///
/// Each hit's content costs `steps` its bytes / 16, each vector comparison
/// the dimensions / 16; once they run out, the remaining hits are kept as
/// they are.
pub(crate) fn dedupe(hits: Vec<Hit>, vectors: &[Option<Vec<f32>>], steps: &Steps) -> Vec<Hit> {
    // value -> [position]: the keyword column's map type (smaller wasm).
    let mut first: HashMap<String, Vec<u32>> = HashMap::default();
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    // The vector of each kept hit, by position in `out`.
    let mut kept: Vec<Option<&[f32]>> = Vec::with_capacity(hits.len());
    for (i, hit) in hits.into_iter().enumerate() {
        let vector = vectors.get(i).and_then(|v| v.as_deref());
        let compares = vector.map_or(0, |v| kept.len() * v.len().div_ceil(16));
        if !steps.take((content_bytes(&hit) / 16 + compares) as u64) {
            kept.push(None);
            out.push(hit);
            continue;
        }
        let key = content(&hit);
        let same_text = first
            .get(&key)
            .filter(|_| !key.is_empty())
            .map(|p| p[0] as usize);
        let near = || {
            let v = vector?;
            kept.iter()
                .position(|k| k.is_some_and(|k| crate::vector::dot(k, v) >= DUPLICATE_COSINE))
        };
        match same_text.or_else(near) {
            Some(p) => out[p].duplicates.push(hit.id),
            None => {
                first.insert(key, vec![out.len() as u32]);
                kept.push(vector);
                out.push(hit);
            }
        }
    }
    out
}

/// Maximal marginal relevance: repeatedly picks the hit maximizing
/// `lambda * score/maxScore - (1 - lambda) * max similarity to the picked`.
/// Scores are kept; only the order changes.
///
/// Similarity is the cosine of the hits' vectors when `vectors` holds both
/// (the index has a vector field), else the word overlap of title + text.
///
/// Only the first `picks` places are chosen (a page needs no more); each
/// hit's content costs `steps` its bytes / 16 and each comparison the
/// smaller word set's size (or the dimensions / 16). Once they run out,
/// the hits not yet picked follow in score order.
pub(crate) fn mmr(
    hits: Vec<Hit>,
    lambda: f32,
    vectors: &[Option<Vec<f32>>],
    picks: usize,
    steps: &Steps,
) -> Vec<Hit> {
    let bytes: usize = hits.iter().map(content_bytes).sum();
    if !steps.take((bytes / 16) as u64) {
        return hits;
    }
    let texts: Vec<String> = hits.iter().map(content).collect();
    // Word sets as `FxHashMap<&str, usize>`, a map type the crate already has.
    let words: Vec<HashMap<&str, usize>> = texts
        .iter()
        .map(|t| {
            t.split(' ')
                .filter(|w| !w.is_empty())
                .map(|w| (w, 0))
                .collect()
        })
        .collect();
    let top = hits.iter().map(|h| h.score).fold(0.0f32, f32::max);
    let top = if top > 0.0 { top } else { 1.0 };
    let mut left: Vec<usize> = (0..hits.len()).collect();
    let mut max_sim = vec![0.0f32; hits.len()];
    let mut order = Vec::with_capacity(hits.len());
    'picking: while !left.is_empty() && order.len() < picks {
        let (pos, _) = left
            .iter()
            .enumerate()
            .map(|(p, &i)| {
                (
                    p,
                    lambda * hits[i].score / top - (1.0 - lambda) * max_sim[i],
                )
            })
            .fold(
                (0, f32::NEG_INFINITY),
                |best, c| if c.1 > best.1 { c } else { best },
            );
        let pick = left.remove(pos);
        order.push((0, pick as u32));
        for &i in &left {
            let sim = match (vectors.get(pick), vectors.get(i)) {
                (Some(Some(a)), Some(Some(b))) => {
                    if !steps.take(a.len().div_ceil(16) as u64) {
                        break 'picking;
                    }
                    crate::vector::dot(a, b)
                }
                _ => {
                    let cost = words[pick].len().min(words[i].len()) + 1;
                    if !steps.take(cost as u64) {
                        break 'picking;
                    }
                    similarity(&words[pick], &words[i])
                }
            };
            max_sim[i] = max_sim[i].max(sim);
        }
    }
    // Not picked (past the page, or out of steps): in score order.
    order.extend(left.iter().map(|&i| (0, i as u32)));
    crate::sort::permute(hits, &order)
}

impl Searcher<'_> {
    /// Flushed address of a live document: (segment index, local doc).
    /// Each hit's vector in `field` (the search's `vectorField`, or the
    /// schema's only vector field) scaled to unit length, for MMR and
    /// dedupe; empty when the schema has no such field.
    pub(crate) fn hit_vectors(&self, hits: &[Hit], field: Option<&str>) -> Vec<Option<Vec<f32>>> {
        let f = match field {
            Some(name) => match self.schema.by_name.get(name) {
                Some(crate::schema::FieldRef::Vector(f)) => *f,
                _ => return Vec::new(),
            },
            None if self.schema.vectors.len() == 1 => 0,
            None => return Vec::new(),
        };
        hits.iter()
            .map(|h| {
                let (si, doc) = self.locate(&h.id)?;
                let v = self.segments[si].segment.vector(f, doc)?;
                let norm = crate::vector::dot(v, v).sqrt();
                (norm > 0.0).then(|| v.iter().map(|x| x / norm).collect())
            })
            .collect()
    }
}
