//! Autocomplete: completions of the last word of what the user typed, as
//! whole query strings a UI can show (`deploy fr` -> `deploy friday`).
//!
//! - Candidates are the segments' surface words (words as written,
//!   [`crate::index::surfaces`]) starting with the last word, normalized as
//!   indexed words are; plus index terms that are no stem of such a word
//!   (compounds, numbers, unstemmed fields, segments of format v2, whose
//!   suggestions are therefore still stems).
//! - A lone word ranks by the documents containing the word, capped by the
//!   live documents holding its stem: a word all of whose documents were
//!   deleted disappears at once, not at the next merge (a word whose
//!   documents were deleted while others share its stem is still counted
//!   until a merge).
//! - With earlier words, the candidates are ranked by co-occurrence: the
//!   live documents containing every earlier word (analyzed like a query:
//!   stopwords dropped) and the candidate's stem. Candidates found in none
//!   of those documents are left out; when the earlier words match no
//!   document at all, the ranking is the lone word's.

use crate::index::SegmentEntry;
use crate::postings::TERMINATED;
use crate::termdict::MAX_EXPANSIONS;

use super::plan::live_doc_freq;
use super::searcher::Searcher;

/// Candidates (most frequent first) whose co-occurrence is counted.
const MAX_CONTEXT_CANDIDATES: usize = 256;

/// One autocomplete suggestion.
#[derive(Debug, Clone, PartialEq)]
pub struct Suggestion {
    /// The input with its last word completed.
    pub suggestion: String,
    /// Documents the completion is counted in: containing the word alone,
    /// or containing it and every earlier word.
    pub score: u64,
}

impl crate::json::ToJson for Suggestion {
    fn write_json(&self, out: &mut String) {
        crate::json::Object::new(out)
            .field("suggestion", &self.suggestion)
            .field("score", &self.score)
            .end();
    }
}

/// A candidate word, its live count and where its stem is.
struct Candidate {
    word: String,
    /// (segment index, stem ordinal).
    places: Vec<(usize, u32)>,
    count: u64,
}

impl Searcher<'_> {
    /// Completions of the last word of `text`, best first (see the module
    /// doc); nothing when `text` is blank or ends with a space.
    pub fn suggest(&self, text: &str, limit: usize) -> Vec<Suggestion> {
        let mut out = Vec::new();
        let text = text.trim_start();
        let Some(field) = self.schema.text.first() else {
            return out;
        };
        if text.ends_with(char::is_whitespace) {
            return out;
        }
        // The last word starts after the last whitespace char.
        let split = text
            .char_indices()
            .rfind(|(_, c)| c.is_whitespace())
            .map_or(0, |(i, c)| i + c.len_utf8());
        let context = text[..split].trim_end();
        let prefix = field.analyzer.normalize_word(&text[split..]);
        if prefix.is_empty() || limit == 0 {
            return out;
        }
        let mut context_terms: Vec<String> = Vec::new();
        for t in field.analyzer.analyze(context) {
            if !context_terms.contains(&t.term) {
                context_terms.push(t.term);
            }
        }
        let candidates = self.candidates(&prefix);
        // Scores: co-occurrence with the earlier words when any candidate
        // has some, else the word's own count.
        let mut scores: Vec<u64> = candidates.iter().map(|c| c.count).collect();
        if !context_terms.is_empty() {
            let sets: Vec<Option<Vec<bool>>> = self
                .segments
                .iter()
                .map(|e| context_docs(e, &context_terms))
                .collect();
            // Only the most frequent candidates are counted.
            let by_count = crate::sort::order_by_key(scores.iter().map(|&c| !c));
            let mut co = vec![0u64; candidates.len()];
            for &(_, i) in by_count.iter().take(MAX_CONTEXT_CANDIDATES) {
                for &(seg, stem) in &candidates[i as usize].places {
                    if let Some(Some(set)) = sets.get(seg) {
                        co[i as usize] += cooccurrences(&self.segments[seg], stem, set);
                    }
                }
            }
            if sets.iter().flatten().any(|set| set.contains(&true)) {
                scores = co;
            }
        }
        // Highest score first; equal scores in word order (stable).
        for (score, i) in crate::sort::order_by_key(scores.iter().map(|&s| !s)) {
            if out.len() == limit || score == u64::MAX {
                break;
            }
            let word = &candidates[i as usize].word;
            out.push(Suggestion {
                suggestion: if context.is_empty() {
                    word.clone()
                } else {
                    format!("{context} {word}")
                },
                score: !score,
            });
        }
        out
    }

    /// Words and unstemmed terms starting with `prefix` with their live
    /// counts (none of 0), in word order.
    fn candidates(&self, prefix: &str) -> Vec<Candidate> {
        // (word, segment, stem ordinal, live count)
        let mut found: Vec<(String, usize, u32, u64)> = Vec::new();
        for (s, entry) in self.segments.iter().enumerate() {
            let seg = &entry.segment;
            // A lazy segment asks for its surface words and the shards of
            // their stems and of the prefix (stem ordinals become the
            // ordinals of the terms held); a round without them is redone.
            let words = match seg.has_surfaces(prefix) {
                true => seg.surfaces.words.prefix(prefix, MAX_EXPANSIONS),
                false => Vec::new(),
            };
            let surfaces = &seg.surfaces;
            let mut stems = Vec::new();
            for (word, ord) in words {
                let i = ord as usize;
                let (Some(&global), Some(&count)) = (surfaces.stems.get(i), surfaces.counts.get(i))
                else {
                    continue;
                };
                if !seg.holds_ord(global) {
                    continue;
                }
                let stem = global;
                stems.push(u64::from(stem));
                let live = live_doc_freq(entry, stem);
                found.push((word, s, stem, u64::from(count).min(live)));
            }
            // Terms that are stems of the words found are not offered (a
            // stem not starting like its words, `happi` of `happy`, may be).
            let stems = crate::sort::order_by_key(stems.into_iter());
            for (term, ord) in seg.prefix_terms(prefix, MAX_EXPANSIONS) {
                if stems.binary_search_by_key(&ord, |s| s.0).is_err() {
                    let ord = ord as u32;
                    found.push((term, s, ord, live_doc_freq(entry, ord)));
                }
            }
        }
        let bytes: Vec<&[u8]> = found.iter().map(|f| f.0.as_bytes()).collect();
        let order = crate::sort::order_by_bytes(&bytes);
        let mut out: Vec<Candidate> = Vec::new();
        for (_, i) in order {
            let (word, s, stem, count) = std::mem::take(&mut found[i as usize]);
            if count == 0 {
                continue;
            }
            match out.last_mut() {
                Some(last) if last.word == word => {
                    last.count += count;
                    last.places.push((s, stem));
                }
                _ => out.push(Candidate {
                    word,
                    places: vec![(s, stem)],
                    count,
                }),
            }
        }
        out
    }
}

/// The live documents of the segment containing every term of `terms`;
/// `None` when some term is absent.
fn context_docs(entry: &SegmentEntry, terms: &[String]) -> Option<Vec<bool>> {
    let seg = &entry.segment;
    let mut hits = vec![0u16; seg.n_docs as usize];
    for term in terms {
        let info = seg.term(term)?;
        let mut c = seg.cursor(info);
        while c.doc() != TERMINATED {
            if let Some(h) = hits.get_mut(c.doc() as usize) {
                *h = h.saturating_add(1);
            }
            c.advance();
        }
    }
    let n = terms.len().min(u16::MAX as usize) as u16;
    let mut set = vec![false; hits.len()];
    for (d, &h) in hits.iter().enumerate() {
        set[d] = h == n && !entry.deletes.contains(d as u32);
    }
    Some(set)
}

/// Documents of `set` containing term `ord` of the segment.
fn cooccurrences(entry: &SegmentEntry, ord: u32, set: &[bool]) -> u64 {
    let seg = &entry.segment;
    let Some(info) = seg.term_info(u64::from(ord)) else {
        return 0;
    };
    let mut n = 0;
    let mut c = seg.cursor(info);
    while c.doc() != TERMINATED {
        n += u64::from(set.get(c.doc() as usize).copied().unwrap_or(false));
        c.advance();
    }
    n
}
