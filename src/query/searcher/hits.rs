//! Ranked candidates into hits: stored fields, matched terms, snippets and
//! explanations, within the answer's byte bound.

use crate::index::segment::Segment;
use crate::query::budget::{Limited, MAX_ANSWER_BYTES};
use crate::query::options::{
    HighlightOptions, Hit, Page, SearchOptions, StoredSelection, TermExplanation,
};
use crate::query::plan::{Plan, QueryTerm};
use crate::query::scorer::{ScoreParams, TermWeight};
use crate::query::snippet;
use crate::query::topk::Candidate;
use crate::store::StoredFields;

use super::Searcher;

impl Searcher<'_> {
    /// Turns ranked candidates into hits. Term matches come from the scoring
    /// loop when it recorded them; otherwise (and for explanations) they are
    /// read with one cursor per (segment, term), visiting hits in doc order.
    ///
    /// The hits' stored fields, snippets and explanations count against
    /// [`MAX_ANSWER_BYTES`]: the hits past it are left out (`answer` in
    /// `limited`; `LIMIT` when strict). The first hit always fits.
    pub(crate) fn make_hits(
        &self,
        ranked: &[Candidate<'_>],
        plan: &Plan,
        params: &ScoreParams,
        opts: &SearchOptions,
        page: Page<'_>,
        limited: &mut Vec<Limited>,
    ) -> crate::error::Result<Vec<Hit>> {
        let stored = page.stored;
        // (segment, doc) pairs are distinct, so any sort gives this order.
        let order = crate::sort::order_by_key(
            ranked
                .iter()
                .map(|c| (c.segment as u64) << 32 | c.doc as u64),
        );
        let mut annotations: Vec<(Vec<String>, Vec<TermExplanation>)> =
            vec![Default::default(); ranked.len()];
        let mut cursors: Vec<Option<crate::postings::PostingsCursor<'_>>> = Vec::new();
        let mut current_segment = usize::MAX;
        for &(_, i) in &order {
            let i = i as usize;
            let c = &ranked[i];
            if let (Some(bits), false) = (c.matched, opts.explain) {
                let (matched, _) = &mut annotations[i];
                for (t, qt) in plan.terms.iter().enumerate() {
                    if bits >> t & 1 == 1 && !matched.contains(&qt.term) {
                        matched.push(qt.term.clone());
                    }
                }
                continue;
            }
            let seg = &self.segments[c.segment].segment;
            if c.segment != current_segment {
                current_segment = c.segment;
                cursors = plan
                    .terms
                    .iter()
                    .map(|qt| qt.info(seg).map(|info| seg.cursor(info)))
                    .collect();
            }
            let (matched, explanation) = &mut annotations[i];
            for (qt, cursor) in plan.terms.iter().zip(cursors.iter_mut()) {
                let Some(cursor) = cursor else { continue };
                if cursor.seek(c.doc) != c.doc || cursor.field_mask() & qt.fields == 0 {
                    continue;
                }
                if !matched.contains(&qt.term) {
                    matched.push(qt.term.clone());
                }
                if opts.explain {
                    self.explain_term(qt, seg, c.doc, cursor, params, explanation);
                }
            }
        }
        let highlight = opts.highlight.as_ref().filter(|_| page.snippets);
        let mut bytes = 0usize;
        let mut hits = Vec::with_capacity(ranked.len());
        for (c, (matched_terms, explanation)) in ranked.iter().zip(annotations) {
            // Read once: a packed store unpacks a page per read (cacheBytes).
            let doc = self.segments[c.segment].segment.docs.stored_bytes(c.doc);
            // Every hit costs its id and score; decoded fields their bytes;
            // an explanation ~64 bytes a part.
            let mut cost = c.id.get().len() + 32 + 64 * explanation.len();
            if !matches!((stored, highlight), (StoredSelection::None, None)) {
                cost += doc.len();
            }
            if bytes.saturating_add(cost) > MAX_ANSWER_BYTES && !hits.is_empty() {
                let what = "answer bytes (stored fields, snippets, explanations)";
                let got = bytes.saturating_add(cost);
                Limited::Answer.reached(opts.strict(), limited, what, MAX_ANSWER_BYTES, got)?;
                break;
            }
            let hit = {
                let (fields, namespace, snippets) = match (stored, highlight) {
                    (StoredSelection::None, None) => {
                        let namespace = StoredFields::namespace_of(&doc);
                        (StoredFields::empty(), namespace, Default::default())
                    }
                    (selection, highlight) => {
                        let (all, namespace) = StoredFields::split_namespace(&doc);
                        let snippets = match highlight {
                            Some(h) => self.snippets(&all.to_map(), &matched_terms, h),
                            None => Default::default(),
                        };
                        let fields = match selection {
                            StoredSelection::All => all,
                            StoredSelection::None => StoredFields::empty(),
                            StoredSelection::Only(names) => all.select(names),
                        };
                        (fields, namespace, snippets)
                    }
                };
                Hit {
                    id: c.id.get().to_string(),
                    score: c.score,
                    namespace,
                    fields,
                    matched_terms,
                    snippets,
                    explanation: opts.explain.then_some(explanation),
                    lexical: None,
                    vector: None,
                    via: None,
                    duplicates: Vec::new(),
                }
            };
            bytes += cost + hit.snippets.values().map(String::len).sum::<usize>();
            hits.push(hit);
        }
        Ok(hits)
    }

    /// Per-field parts of one term's BM25F score; the parts of a term sum to
    /// its contribution (saturation is shared across fields, so each field
    /// gets its share of the weighted, normalized tf).
    fn explain_term(
        &self,
        qt: &QueryTerm,
        seg: &Segment,
        doc: u32,
        cursor: &crate::postings::PostingsCursor<'_>,
        params: &ScoreParams,
        out: &mut Vec<TermExplanation>,
    ) {
        let weight = TermWeight {
            fields: qt.fields,
            idf_boost: qt.idf * qt.boost,
        };
        let total = weight.score_doc(params, seg, doc, cursor);
        let mut parts = Vec::new();
        cursor.for_each_field_tf(|f, tf| {
            if qt.fields & (1 << f) != 0 {
                parts.push((f, tf, params.norms[f].tf(tf, seg.field_len(doc, f))));
            }
        });
        let sum: f32 = parts.iter().map(|p| p.2).sum();
        for (f, tf, norm_tf) in parts {
            let norm = &params.norms[f];
            out.push(TermExplanation {
                term: qt.term.clone(),
                field: self.schema.text[f].name.clone(),
                idf: qt.idf,
                tf: tf as f32,
                field_length: seg.field_len(doc, f) as f32,
                avg_field_length: if norm.c > 0.0 {
                    (1.0 - norm.a) / norm.c
                } else {
                    0.0
                },
                weight: norm.weight * qt.boost,
                score: if sum > 0.0 {
                    total * norm_tf / sum
                } else {
                    0.0
                },
            });
        }
    }

    /// Highlighted snippets of the stored text fields that contain a
    /// matched term (re-analyzed: positions are not needed at query time).
    pub(crate) fn snippets(
        &self,
        fields: &crate::json::Map,
        matched: &[String],
        opts: &HighlightOptions,
    ) -> crate::FieldMap<String> {
        // The map type snippet.rs already uses (one hash table instance
        // less in the wasm than a `HashSet<&str>`).
        let matched: rustc_hash::FxHashMap<&str, usize> = matched
            .iter()
            .enumerate()
            .map(|(i, t)| (t.as_str(), i))
            .collect();
        let mut out = crate::FieldMap::new();
        for field in &self.schema.text {
            let Some(crate::json::Value::String(text)) = fields.get(&field.name) else {
                continue;
            };
            let tokens = field.analyzer.analyze(text);
            if let Some(s) = snippet::snippet(
                text,
                &tokens,
                |t| matched.contains_key(t.term.as_str()),
                opts,
            ) {
                out.insert(field.name.clone(), s);
            }
        }
        out
    }
}
