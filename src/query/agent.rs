//! Agent-retrieval options applied around a ranked search: link expansion
//! (`expand`) and traversal without a query (`related`), recency decay,
//! diversity (MMR) and near-duplicate collapsing (`dedupe`).
//!
//! Recency is applied inside the top-k (see [`Recency::factor`]): the decay
//! factor is at most 1, so the pruning bounds of the raw scores stay valid
//! and the answer is exact. Diversity and dedupe re-rank a candidate pool
//! of [`pool_size`] hits. Expansion adds linked documents to a page.

use rustc_hash::FxHashMap as HashMap;

use crate::error::{Error, Result};
use crate::index::document::{FieldRef, FilterKind};
use crate::index::filter::{allowed, Filter};
use crate::index::Index;
use crate::json::Value;
use crate::jsonopt;
use crate::store::{Column, StoredFields};

use super::budget::{Limited, Limits, Steps, MAX_ANSWER_BYTES};
use super::options::{Hit, SearchOptions, StoredSelection};

/// Which edges a traversal follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    /// From a document to the ids it links to.
    #[default]
    Out,
    /// From a document to the documents that link to it.
    In,
    Both,
}

/// `expand` / `related` options.
#[derive(Debug, Clone, PartialEq)]
pub struct ExpandOptions {
    /// 1..=3 edges away.
    pub hops: u32,
    /// Only these link types (`None`: all).
    pub types: Option<Vec<String>>,
    pub direction: Direction,
    /// At most this many documents: the answer of `related`, the documents
    /// expansion adds to a search's hits (default 10, at most
    /// [`super::search::MAX_RESULTS`]).
    pub limit: usize,
}

impl Default for ExpandOptions {
    fn default() -> Self {
        ExpandOptions {
            hops: 1,
            types: None,
            direction: Direction::Out,
            limit: 10,
        }
    }
}

pub const MAX_HOPS: u32 = 3;
const EXPAND_FIELDS: &[&str] = &["hops", "types", "direction", "limit"];

impl ExpandOptions {
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = ExpandOptions::default();
        if let Value::Bool(true) = v {
            return Ok(o);
        }
        for (k, v) in jsonopt::entries(v, path, EXPAND_FIELDS)? {
            match k {
                "hops" => o.hops = jsonopt::uint(v, path, k, MAX_HOPS as u64)? as u32,
                "types" => {
                    o.types = jsonopt::opt(v)
                        .map(|v| jsonopt::strings(v, path, k))
                        .transpose()?
                }
                "direction" => {
                    o.direction = [Direction::Out, Direction::In, Direction::Both]
                        [jsonopt::variant(v, path, k, &["out", "in", "both"])?]
                }
                _ => {
                    o.limit = jsonopt::uint(v, path, k, super::search::MAX_RESULTS as u64)? as usize
                }
            }
        }
        if o.hops == 0 {
            return Err(format!(
                "`{}` must be between 1 and {MAX_HOPS}",
                jsonopt::join(path, "hops")
            ));
        }
        Ok(o)
    }
}

/// How a document reached by expansion was found.
#[derive(Debug, Clone, PartialEq)]
pub struct Via {
    /// The hit (or the `related` start) the traversal started from.
    pub from: String,
    /// The type of the last edge followed.
    pub link_type: String,
    /// Edges from `from`.
    pub hops: u32,
}

/// `recency` options: `score * ((1 - weight) + weight * 0.5^(age / halfLife))`.
#[derive(Debug, Clone, PartialEq)]
pub struct RecencyOptions {
    pub field: String,
    /// Milliseconds (JSON: a number of ms or a string like `"30d"`).
    pub half_life_ms: f64,
    pub weight: f64,
    /// Documents this filter allows never decay.
    pub exempt: Option<Value>,
    /// The "now" ages are measured from, epoch ms (default: the host clock
    /// when the search runs).
    pub now: Option<f64>,
}

const RECENCY_FIELDS: &[&str] = &["field", "halfLife", "weight", "exempt", "now"];

impl RecencyOptions {
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = RecencyOptions {
            field: "timestamp".into(),
            half_life_ms: 30.0 * DAY_MS,
            weight: 0.5,
            exempt: None,
            now: None,
        };
        for (k, v) in jsonopt::entries(v, path, RECENCY_FIELDS)? {
            match k {
                "field" => o.field = jsonopt::string(v, path, k)?,
                "halfLife" => o.half_life_ms = duration_ms(v, &jsonopt::join(path, k))?,
                "weight" => o.weight = jsonopt::f32_(v, path, k)? as f64,
                "exempt" => o.exempt = jsonopt::opt(v).cloned(),
                _ => {
                    o.now = Some(v.as_f64().filter(|x| x.is_finite()).ok_or_else(|| {
                        jsonopt::invalid(&jsonopt::join(path, k), "epoch milliseconds", v)
                    })?)
                }
            }
        }
        if !(0.0..=1.0).contains(&o.weight) {
            return Err(format!(
                "`{}` must be between 0 and 1",
                jsonopt::join(path, "weight")
            ));
        }
        Ok(o)
    }
}

const DAY_MS: f64 = 86_400_000.0;

/// `"30d"`, `"12h"`, `"90m"`, `"45s"`, `"2w"` or a number of milliseconds (> 0).
fn duration_ms(v: &Value, path: &str) -> jsonopt::Res<f64> {
    let expected = "a positive number of milliseconds or a duration like \"30d\", \"12h\", \"2w\"";
    let ms = match v {
        Value::Number(_) => v.as_f64(),
        Value::String(s) => {
            let (num, unit) = s.trim().split_at(s.trim().len().saturating_sub(1));
            let scale = match unit {
                "s" => Some(1e3),
                "m" => Some(6e4),
                "h" => Some(3.6e6),
                "d" => Some(DAY_MS),
                "w" => Some(7.0 * DAY_MS),
                _ => None,
            };
            // Through the JSON number parser: `str::parse::<f64>` would link
            // core's dec2flt into the wasm (~15 KB gz).
            let n = crate::json::parse(num).ok().and_then(|v| v.as_f64());
            scale.and_then(|k| n.map(|n| n * k))
        }
        _ => None,
    };
    ms.filter(|x| x.is_finite() && *x > 0.0)
        .ok_or_else(|| jsonopt::invalid(path, expected, v))
}

/// Recency resolved against an index: per segment, its time column and
/// the docs exempt from decay.
type SegmentTimes<'a> = (Option<&'a [f64]>, Option<Vec<u64>>, bool);

pub(crate) struct Recency<'a> {
    /// Per segment: its times, the exempt docs, whether exemption applies.
    columns: Vec<SegmentTimes<'a>>,
    now: f64,
    half_life: f64,
    weight: f64,
}

impl<'a> Recency<'a> {
    pub(crate) fn new(index: &'a Index, o: &RecencyOptions) -> Result<Recency<'a>> {
        let column = match index.schema.by_name.get(&o.field) {
            Some(FieldRef::Filter(c))
                if matches!(
                    index.schema.filters[*c].kind,
                    FilterKind::Date | FilterKind::Number
                ) =>
            {
                *c
            }
            Some(_) => {
                return Err(Error::schema(
                    &o.field,
                    "recency.field must be a date or number field",
                ))
            }
            None => {
                return Err(Error::schema(
                    &o.field,
                    "is not declared in the schema (recency.field)",
                ))
            }
        };
        let exempt = match &o.exempt {
            Some(json) => Some(Filter::compile(json, &index.schema)?),
            None => None,
        };
        let columns = index
            .segments
            .iter()
            .map(|e| {
                let times = match e.segment.columns.get(column) {
                    Some(Column::Number(xs)) => Some(xs.as_slice()),
                    _ => None,
                };
                let (allow, any) = match &exempt {
                    Some(f) => (f.evaluate(&e.segment), true),
                    None => (None, false),
                };
                (times, allow, any)
            })
            .collect();
        Ok(Recency {
            columns,
            now: o.now.unwrap_or_else(|| crate::host::now_ms() as f64),
            half_life: o.half_life_ms,
            weight: o.weight,
        })
    }

    /// The multiplier of a document's score, in `[1 - weight, 1]`: 1 for
    /// exempt documents and for timestamps at or after "now"; documents
    /// without a timestamp get the full decay (`1 - weight`).
    pub(crate) fn factor(&self, segment: usize, doc: u32) -> f32 {
        let (times, allow, exempting) = &self.columns[segment];
        if *exempting && allowed(allow, doc) {
            return 1.0;
        }
        let decay = match times
            .and_then(|t| t.get(doc as usize))
            .filter(|t| !t.is_nan())
        {
            Some(&t) => crate::host::half_pow((self.now - t).max(0.0) / self.half_life),
            None => 0.0,
        };
        ((1.0 - self.weight) + self.weight * decay) as f32
    }
}

/// Candidates diversity and dedupe re-rank: three pages, at least 50.
pub(crate) fn pool_size(offset: usize, limit: usize) -> usize {
    ((offset + limit) * 3).clamp(50, super::search::MAX_RESULTS)
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

/// FxHash of an id (the incoming-links key).
fn hash_id(id: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(id.as_bytes());
    h.finish()
}

/// A segment's incoming links (every doc, deleted or not: deletes are
/// checked at lookup, so the index stays valid for the segment's life).
fn build_incoming(
    seg: &crate::index::segment::Segment,
    cols: &[usize],
) -> crate::index::segment::IncomingLinks {
    let mut edges = Vec::new();
    let mut keys = Vec::new();
    for &c in cols {
        let Some(Column::Links(docs)) = seg.columns.get(c) else {
            continue;
        };
        for (d, list) in docs.iter().enumerate() {
            for (i, (_, to)) in list.iter().enumerate() {
                keys.push((hash_id(to), edges.len() as u32));
                edges.push((d as u32, c as u32, i as u32));
            }
        }
    }
    crate::sort::sort_pairs(&mut keys);
    crate::index::segment::IncomingLinks { keys, edges }
}

/// Best score first, ties by id (through [`crate::sort`]: no new sort
/// instantiation in the wasm).
fn by_score_then_id<T>(v: Vec<T>, key: impl Fn(&T) -> (f32, &String)) -> Vec<T> {
    use crate::sort::{f32_key, order_by_bytes, order_by_key, permute};
    let by_id = {
        let ids: Vec<&[u8]> = v.iter().map(|x| key(x).1.as_bytes()).collect();
        order_by_bytes(&ids)
    };
    let v = permute(v, &by_id);
    let by_score = order_by_key(v.iter().map(|x| !f32_key(key(x).0)));
    permute(v, &by_score)
}

impl Index {
    /// Flushed address of a live document: (segment index, local doc).
    /// Each hit's vector in `field` (the search's `vectorField`, or the
    /// schema's only vector field) scaled to unit length, for MMR and
    /// dedupe; empty when the schema has no such field.
    pub(crate) fn hit_vectors(&self, hits: &[Hit], field: Option<&str>) -> Vec<Option<Vec<f32>>> {
        let f = match field {
            Some(name) => match self.schema.by_name.get(name) {
                Some(crate::index::document::FieldRef::Vector(f)) => *f,
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

    fn locate(&self, id: &str) -> Option<(usize, u32)> {
        let (segment_id, doc) = self.address(id)?;
        let si = self.segments.iter().position(|e| e.id == segment_id)?;
        (!self.segments[si].deletes.contains(doc)).then_some((si, doc))
    }

    fn links_columns(&self) -> Vec<usize> {
        (0..self.schema.filters.len())
            .filter(|&c| self.schema.filters[c].kind == FilterKind::Links)
            .collect()
    }

    /// Live sources linking to `id` as (source id, link type), over every
    /// segment's [`IncomingLinks`] (built once per segment, on first use:
    /// O(edges) then a binary search per lookup).
    fn incoming_of<'a>(&'a self, id: &str, cols: &[usize], out: &mut Vec<(&'a str, &'a str)>) {
        let key = hash_id(id);
        for e in &self.segments {
            let seg = &e.segment;
            let inc = seg.incoming.get_or_init(|| build_incoming(seg, cols));
            let from = inc.keys.partition_point(|k| k.0 < key);
            for &(k, i) in &inc.keys[from..] {
                if k != key {
                    break;
                }
                let (doc, c, edge) = inc.edges[i as usize];
                if e.deletes.contains(doc) {
                    continue;
                }
                if let Some(Column::Links(docs)) = seg.columns.get(c as usize) {
                    let (t, to) = &docs[doc as usize][edge as usize];
                    if to == id {
                        out.push((seg.docs.id(doc), t.as_str()));
                    }
                }
            }
        }
    }

    /// Breadth-first traversal from `starts` (id, score): every live
    /// document within `hops` edges of a start (other than that start),
    /// scored `score / (1 + hops)`, the best over all starts and paths,
    /// with how it was reached. Each edge followed takes a step; once
    /// `steps` run out the traversal stops where it is.
    pub(crate) fn traverse(
        &self,
        starts: &[(String, f32)],
        o: &ExpandOptions,
        steps: &Steps,
    ) -> Vec<(String, f32, Via)> {
        let cols = self.links_columns();
        let type_ok = |t: &str| o.types.as_ref().is_none_or(|ts| ts.iter().any(|x| x == t));
        // id -> position in `out`.
        let mut best: HashMap<&str, usize> = HashMap::default();
        let mut out: Vec<(String, f32, Via)> = Vec::new();
        for (start, score) in starts {
            let mut seen: HashMap<&str, usize> = HashMap::default();
            seen.insert(start.as_str(), 0);
            let mut frontier: Vec<&str> = vec![start.as_str()];
            for hop in 1..=o.hops {
                let mut next = Vec::new();
                for &id in &frontier {
                    let mut reached: Vec<(&str, &str)> = Vec::new();
                    if o.direction != Direction::In {
                        if let Some((si, doc)) = self.locate(id) {
                            for &c in &cols {
                                if let Some(Column::Links(docs)) =
                                    self.segments[si].segment.columns.get(c)
                                {
                                    reached.extend(
                                        docs[doc as usize]
                                            .iter()
                                            .map(|(t, to)| (to.as_str(), t.as_str())),
                                    );
                                }
                            }
                        }
                    }
                    if o.direction != Direction::Out {
                        self.incoming_of(id, &cols, &mut reached);
                    }
                    if !steps.take(reached.len() as u64 + 1) {
                        break;
                    }
                    for (to, t) in reached {
                        if !type_ok(t) || seen.contains_key(to) || self.locate(to).is_none() {
                            continue;
                        }
                        seen.insert(to, hop as usize);
                        let s = score / (1.0 + hop as f32);
                        let via = Via {
                            from: start.clone(),
                            link_type: t.to_string(),
                            hops: hop,
                        };
                        match best.get(to) {
                            Some(&i) if out[i].1 >= s => {}
                            Some(&i) => out[i] = (to.to_string(), s, via),
                            None => {
                                best.insert(to, out.len());
                                out.push((to.to_string(), s, via));
                            }
                        }
                        next.push(to);
                    }
                }
                frontier = next;
            }
        }
        by_score_then_id(out, |x| (x.1, &x.0))
    }

    /// A hit for a live flushed document reached without scoring.
    fn plain_hit(&self, id: &str, score: f32, stored: &StoredSelection) -> Option<Hit> {
        let (si, doc) = self.locate(id)?;
        let docs = &self.segments[si].segment.docs;
        let (all, namespace) = docs.stored_fields(doc);
        let fields = match stored {
            StoredSelection::All => all,
            StoredSelection::None => StoredFields::empty(),
            StoredSelection::Only(names) => all.select(names),
        };
        Some(Hit {
            id: id.to_string(),
            score,
            namespace,
            fields,
            matched_terms: Vec::new(),
            snippets: Default::default(),
            explanation: None,
            lexical: None,
            vector: None,
            via: None,
            duplicates: Vec::new(),
        })
    }

    /// Adds the documents linked to `hits` (see [`Index::traverse`]): at
    /// most `o.limit` of them, best first, only in namespaces the search's
    /// filter allows (links never lead out of the caller's namespaces), and
    /// within the expand steps and the answer bytes of `limits`. A
    /// document already a hit keeps the better of its two scores. Sorted
    /// by score, then id.
    pub(crate) fn expand_hits(
        &self,
        mut hits: Vec<Hit>,
        o: &ExpandOptions,
        opts: &SearchOptions,
        limits: Limits,
        limited: &mut Vec<Limited>,
    ) -> Result<Vec<Hit>> {
        let strict = super::search::strict(opts);
        let scope = match &opts.filter {
            Some(json) if !json.is_null() => Some(Filter::compile(json, &self.schema)?),
            _ => None,
        };
        let in_scope = |ns: Option<&str>| scope.as_ref().is_none_or(|f| f.allows_namespace(ns));
        let steps = Steps::new(limits.expand_steps);
        let starts: Vec<(String, f32)> = hits.iter().map(|h| (h.id.clone(), h.score)).collect();
        let reached = self.traverse(&starts, o, &steps);
        if steps.ran_out() {
            let limit = usize::try_from(limits.expand_steps).unwrap_or(usize::MAX);
            Limited::Expand.reached(
                strict,
                limited,
                "expand steps (link edges)",
                limit,
                limit + 1,
            )?;
        }
        // The traversal's own map type (one hash-map instance less in the
        // wasm), over the ids `starts` already holds.
        let position: HashMap<&str, usize> = starts
            .iter()
            .enumerate()
            .map(|(i, (id, _))| (id.as_str(), i))
            .collect();
        let (mut added, mut bytes) = (0, 0usize);
        for (id, score, via) in reached {
            if let Some(&i) = position.get(id.as_str()) {
                let h = &mut hits[i];
                if score > h.score {
                    h.score = score;
                    h.via = Some(via);
                }
                continue;
            }
            if added == o.limit {
                continue;
            }
            let Some((si, doc)) = self.locate(&id) else {
                continue;
            };
            let cost = self.segments[si].segment.docs.stored_bytes(doc).len() + id.len() + 32;
            if bytes + cost > MAX_ANSWER_BYTES {
                let what = "answer bytes (documents added by expand)";
                Limited::Answer.reached(strict, limited, what, MAX_ANSWER_BYTES, bytes + cost)?;
                break;
            }
            match self.plain_hit(&id, score, &opts.stored_fields) {
                Some(mut h) if in_scope(h.namespace.as_deref()) => {
                    h.via = Some(via);
                    hits.push(h);
                    added += 1;
                    bytes += cost;
                }
                _ => {}
            }
        }
        Ok(by_score_then_id(hits, |h| (h.score, &h.id)))
    }

    /// The documents linked to `id` within `o.hops` (no query): scored
    /// `1 / (1 + hops)`, best first, at most `o.limit`, within
    /// [`super::budget::EXPAND_STEPS`] edges and
    /// [`MAX_ANSWER_BYTES`] (the `limited` it returns names what cut
    /// the answer short). Flushes first. An unknown or deleted `id` gives
    /// an empty answer.
    pub fn related(&mut self, id: &str, o: &ExpandOptions) -> (Vec<Hit>, Vec<Limited>) {
        self.flush();
        let mut limited = Vec::new();
        if self.locate(id).is_none() {
            return (Vec::new(), limited);
        }
        let steps = Steps::new(super::budget::EXPAND_STEPS);
        let reached = self.traverse(&[(id.to_string(), 1.0)], o, &steps);
        if steps.ran_out() {
            limited.push(Limited::Expand);
        }
        let (mut hits, mut bytes) = (Vec::new(), 0usize);
        for (rid, s, via) in reached.into_iter().take(o.limit) {
            let Some(mut h) = self.plain_hit(&rid, s, &StoredSelection::All) else {
                continue;
            };
            bytes += h.fields.as_json().len() + rid.len() + 32;
            if bytes > MAX_ANSWER_BYTES && !hits.is_empty() {
                limited.push(Limited::Answer);
                break;
            }
            h.via = Some(via);
            hits.push(h);
        }
        (hits, limited)
    }
}
