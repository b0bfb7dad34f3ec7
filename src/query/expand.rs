//! Link expansion (`expand`: the documents linked to a page's hits) and
//! traversal without a query (`related`).

use rustc_hash::FxHashMap as HashMap;

use crate::error::Result;
use crate::filter::Filter;
use crate::schema::FilterKind;
use crate::store::{Column, StoredFields};

use super::budget::{Limited, Limits, Steps, MAX_ANSWER_BYTES};
use super::options::{Direction, ExpandOptions, Hit, SearchOptions, StoredSelection, Via};
use super::searcher::Searcher;

use crate::store::hash_id;

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
        for (d, list) in docs.with_edges() {
            for (i, (_, to)) in list.iter().enumerate() {
                keys.push((hash_id(to), edges.len() as u32));
                edges.push((d, c as u32, i as u32));
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

impl Searcher<'_> {
    pub(crate) fn locate(&self, id: &str) -> Option<(usize, u32)> {
        let (segment_id, doc) = self.ids.address(id)?;
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
        for e in self.segments {
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
                    if let Some((t, to)) = docs.get(doc).get(edge as usize) {
                        if to == id {
                            out.push((seg.docs.id(doc), t.as_str()));
                        }
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
                                        docs.get(doc)
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
        let strict = opts.strict();
        let scope = match &opts.filter {
            Some(json) if !json.is_null() => Some(Filter::compile(json, self.schema)?),
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
    pub fn related(&self, id: &str, o: &ExpandOptions) -> (Vec<Hit>, Vec<Limited>) {
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
