//! Autocomplete: completions of the last word of what the user typed, as
//! whole query strings a UI can show (`deploy fr` -> `deploy friday`).
//!
//! - Candidates are the segments' surface words (words as written,
//!   [`crate::index::surfaces`]) starting with the last word, normalized as
//!   indexed words are; plus index terms that are no stem of such a word
//!   (compounds, numbers, unstemmed fields, segments of format v2, whose
//!   suggestions are therefore still stems).
//! - A lone word ranks by the documents containing the word (live ones:
//!   a word's count is capped by the live documents holding its stem, so
//!   words of deleted documents disappear at once, not at the next merge).
//! - With earlier words, the candidates are ranked by co-occurrence: the
//!   live documents containing every earlier word (analyzed like a query:
//!   stopwords dropped) and the candidate's stem. Candidates found in none
//!   of those documents are left out; when the earlier words match no
//!   document at all, the ranking is the lone word's.

use crate::index::{Index, SegmentEntry};
use crate::postings::TERMINATED;
use crate::termdict::MAX_EXPANSIONS;

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

/// A candidate word: per segment, the stem ordinal and the word's count.
struct Candidate {
    word: String,
    /// (segment index, stem ordinal, documents with the word there).
    places: Vec<(usize, u32, u64)>,
    count: u64,
}

impl Index {
    /// Completions of the last word of `text`, best first (see the module
    /// doc); nothing when `text` is blank or ends with a space.
    pub fn suggest(&mut self, text: &str, limit: usize) -> Vec<Suggestion> {
        self.flush();
        let trimmed = text.trim_start();
        if limit == 0 || trimmed.is_empty() || trimmed.ends_with(char::is_whitespace) {
            return Vec::new();
        }
        let split = trimmed
            .rfind(char::is_whitespace)
            .map_or(0, |i| i + trimmed[i..].chars().next().map_or(1, char::len_utf8));
        let (context, last) = trimmed.split_at(split);
        let Some(field) = self.schema.text.first() else {
            return Vec::new();
        };
        let prefix = field.analyzer.normalize_word(last);
        let context_terms: Vec<String> = if context.trim().is_empty() {
            Vec::new()
        } else {
            let mut t: Vec<String> = field
                .analyzer
                .analyze(context)
                .into_iter()
                .map(|t| t.term)
                .collect();
            t.sort();
            t.dedup();
            t
        };
        if prefix.is_empty() {
            return Vec::new();
        }
        let mut candidates = self.candidates(&prefix);
        // Most frequent first, then by word.
        candidates.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.word.cmp(&b.word)));
        let mut scored: Vec<(u64, Candidate)> = Vec::new();
        if !context_terms.is_empty() {
            candidates.truncate(MAX_CONTEXT_CANDIDATES);
            let sets: Vec<Option<Vec<bool>>> = self
                .segments
                .iter()
                .map(|e| context_docs(e, &context_terms))
                .collect();
            if sets.iter().flatten().any(|s| s.iter().any(|&b| b)) {
                for c in std::mem::take(&mut candidates) {
                    let mut n = 0u64;
                    for &(seg, stem, _) in &c.places {
                        if let Some(set) = &sets[seg] {
                            n += cooccurrences(&self.segments[seg], stem, set);
                        }
                    }
                    if n > 0 {
                        scored.push((n, c));
                    }
                }
                // Stable: equal co-occurrence keeps the frequency order.
                scored.sort_by(|a, b| b.0.cmp(&a.0));
            }
        }
        scored.extend(candidates.into_iter().map(|c| (c.count, c)));
        let context = context.trim_end();
        scored
            .into_iter()
            .filter(|(score, _)| *score > 0)
            .take(limit)
            .map(|(score, c)| Suggestion {
                suggestion: if context.is_empty() {
                    c.word
                } else {
                    format!("{context} {}", c.word)
                },
                score,
            })
            .collect()
    }

    /// Words and unstemmed terms starting with `prefix`, with live counts.
    fn candidates(&self, prefix: &str) -> Vec<Candidate> {
        let mut found: Vec<(String, usize, u32, u64)> = Vec::new();
        for (s, entry) in self.segments.iter().enumerate() {
            let seg = &entry.segment;
            let surfaces = &seg.surfaces;
            let mut stems = Vec::new();
            for (word, ord) in surfaces.words.prefix(prefix, MAX_EXPANSIONS) {
                let i = ord as usize;
                let (Some(&stem), Some(&count)) = (surfaces.stems.get(i), surfaces.counts.get(i))
                else {
                    continue;
                };
                stems.push(stem);
                let live = live_doc_freq(entry, stem);
                found.push((word, s, stem, u64::from(count).min(live)));
            }
            // Terms that are stems of the words found are not offered (a
            // stem not starting like its words, `happi` of `happy`, may be).
            stems.sort_unstable();
            for (term, ord) in seg.terms.prefix(prefix, MAX_EXPANSIONS) {
                let ord = ord as u32;
                if stems.binary_search(&ord).is_err() {
                    found.push((term, s, ord, live_doc_freq(entry, ord)));
                }
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<Candidate> = Vec::new();
        for (word, s, stem, count) in found {
            if count == 0 {
                continue;
            }
            match out.last_mut() {
                Some(last) if last.word == word => {
                    last.count += count;
                    last.places.push((s, stem, count));
                }
                _ => out.push(Candidate {
                    word,
                    places: vec![(s, stem, count)],
                    count,
                }),
            }
        }
        out
    }
}

/// Live documents of the segment containing term `ord`.
fn live_doc_freq(entry: &SegmentEntry, ord: u32) -> u64 {
    let seg = &entry.segment;
    let Some(&info) = seg.term_infos.get(ord as usize) else {
        return 0;
    };
    if entry.deletes.is_empty() {
        return u64::from(info.doc_freq);
    }
    entry.deletes.live_doc_freq(info.first_block, || {
        let mut live = 0u64;
        let mut c = seg.postings.cursor(info);
        while c.doc() != TERMINATED {
            live += u64::from(!entry.deletes.contains(c.doc()));
            c.advance();
        }
        live
    })
}

/// The live documents of the segment containing every term of `terms`;
/// `None` when some term is absent.
fn context_docs(entry: &SegmentEntry, terms: &[String]) -> Option<Vec<bool>> {
    let seg = &entry.segment;
    let mut hits = vec![0u16; seg.n_docs as usize];
    for term in terms {
        let info = seg.term(term)?;
        let mut c = seg.postings.cursor(info);
        while c.doc() != TERMINATED {
            if let Some(h) = hits.get_mut(c.doc() as usize) {
                *h = h.saturating_add(1);
            }
            c.advance();
        }
    }
    let n = terms.len().min(u16::MAX as usize) as u16;
    Some(
        hits.iter()
            .enumerate()
            .map(|(d, &h)| h == n && !entry.deletes.contains(d as u32))
            .collect(),
    )
}

/// Documents of `set` containing term `ord` of the segment.
fn cooccurrences(entry: &SegmentEntry, ord: u32, set: &[bool]) -> u64 {
    let seg = &entry.segment;
    let Some(&info) = seg.term_infos.get(ord as usize) else {
        return 0;
    };
    let mut n = 0;
    let mut c = seg.postings.cursor(info);
    while c.doc() != TERMINATED {
        n += u64::from(set.get(c.doc() as usize).copied().unwrap_or(false));
        c.advance();
    }
    n
}
