//! Surface forms: the words of a segment as written (normalized, folded,
//! not stemmed) mapped to the index term (stem) each produced, for typo
//! matching (a typo of `deployment` is close to `deployment`, not to its
//! stem `deploy`) and for autocomplete (`suggest` shows words, not stems).
//!
//! Recorded: words that went through a stemmer, and whole compounds
//! without digits (`getuserbyid`, mapped to themselves), of at most
//! [`MAX_SURFACE_BYTES`] bytes; not numbers, parts with digits, CJK or
//! words of fields without a stemming language (those are matched against
//! the term dictionary). Per word:
//! the ordinal of its stem in the segment's term dictionary and the number
//! of the segment's documents containing it when written (summed by
//! merges, capped by the merged stem's document frequency). Stored after
//! the filter columns of format v3 segments (docs/FORMAT.md); v2 segments
//! have none, and typo matching then falls back to the term dictionary.

use rustc_hash::FxHashMap as HashMap;

use crate::termdict::{TermDict, TermDictBuilder, Union};

/// Longest word recorded: typos of longer words are rare, and the bound
/// keeps the dictionary small.
pub const MAX_SURFACE_BYTES: usize = 32;

#[derive(Debug, Clone, Default)]
pub struct Surfaces {
    /// The words, front-coded like the term dictionary.
    pub words: TermDict,
    /// Per word (by ordinal): the ordinal of its stem among the segment's terms.
    pub stems: Vec<u32>,
    /// Per word: documents containing it (see the module doc).
    pub counts: Vec<u32>,
}

impl Surfaces {
    pub fn heap_bytes(&self) -> usize {
        self.words.as_bytes().len() + 8 * self.stems.len()
    }

    /// Checks the per-word tables against the word and term counts.
    pub fn validate(&self, n_terms: usize) -> Result<(), &'static str> {
        if self.stems.len() != self.words.len() || self.counts.len() != self.words.len() {
            return Err("surface word tables differ in size");
        }
        if self.stems.iter().any(|&s| s as usize >= n_terms) {
            return Err("surface word points outside the term dictionary");
        }
        Ok(())
    }

    /// Merges the surfaces of several segments: `remaps[i][old ordinal]` is
    /// the merged ordinal of segment i's term (`u32::MAX` if gone), and
    /// `doc_freqs` the merged terms' document frequencies. Words whose stem
    /// is gone (only in deleted documents) are dropped.
    pub fn merge(parts: &[&Surfaces], remaps: &[Vec<u32>], doc_freqs: &[u32]) -> Surfaces {
        let dicts: Vec<&TermDict> = parts.iter().map(|s| &s.words).collect();
        let mut union = Union::new(&dicts);
        let mut out = SurfacesBuilder::default();
        while let Some((word, hits)) = union.next_term() {
            let mut stem = None;
            let mut count = 0u32;
            for hit in hits {
                let part = parts[hit.dict];
                let i = hit.ordinal as usize;
                let (Some(&old), Some(&c)) = (part.stems.get(i), part.counts.get(i)) else {
                    continue;
                };
                let new = remaps[hit.dict].get(old as usize).copied();
                if let Some(new) = new.filter(|&n| n != u32::MAX) {
                    stem.get_or_insert(new);
                    count = count.saturating_add(c);
                }
            }
            if let Some(stem) = stem {
                let df = doc_freqs.get(stem as usize).copied().unwrap_or(0);
                out.push(word, stem, count.min(df));
            }
        }
        out.finish()
    }
}

impl Surfaces {
    /// Surface words of consecutive shards (docs/FORMAT.md "Segment",
    /// format 8) joined into one, in order; an error if a shard's words do
    /// not all follow the words before it.
    pub fn join(parts: &[&Surfaces]) -> Result<Surfaces, &'static str> {
        let mut out = SurfacesBuilder::default();
        for part in parts {
            let mut words = part.words.iter();
            while words.advance().is_some() {
                // UTF-8 was checked when the shard's dictionary was read.
                out.words
                    .insert_bytes(words.term())
                    .ok_or("surface word shards are not in word order")?;
            }
            out.stems.extend_from_slice(&part.stems);
            out.counts.extend_from_slice(&part.counts);
        }
        Ok(out.finish())
    }

    /// The words of ordinals `ords` as surface words of their own (a
    /// shard being written).
    pub fn slice(&self, ords: std::ops::Range<usize>, words: &[String]) -> Surfaces {
        Surfaces {
            words: TermDict::from_sorted(words),
            stems: self.stems[ords.clone()].to_vec(),
            counts: self.counts[ords].to_vec(),
        }
    }
}

impl Surfaces {
    /// Stand-in surface words of a segment written without them (format
    /// v2): its terms without digits as their own words, so that a merge
    /// keeps its documents typo-matchable (against their stems, as v2
    /// matched them) next to segments that have words.
    pub fn of_terms(terms: &TermDict, doc_freqs: impl Fn(u64) -> u32) -> Surfaces {
        let mut out = SurfacesBuilder::default();
        let mut cursor = terms.iter();
        while cursor.advance().is_some() {
            let term = cursor.term();
            if term.len() <= MAX_SURFACE_BYTES && !term.iter().any(u8::is_ascii_digit) {
                let ord = cursor.ord();
                out.push(term, ord as u32, doc_freqs(ord));
            }
        }
        out.finish()
    }
}

/// Appends words in increasing byte order.
#[derive(Default)]
struct SurfacesBuilder {
    words: TermDictBuilder,
    stems: Vec<u32>,
    counts: Vec<u32>,
}

impl SurfacesBuilder {
    fn push(&mut self, word: &[u8], stem: u32, count: u32) {
        let Ok(word) = std::str::from_utf8(word) else {
            return;
        };
        if self.words.insert(word).is_some() {
            self.stems.push(stem);
            self.counts.push(count);
        }
    }

    fn finish(self) -> Surfaces {
        Surfaces {
            words: self.words.finish(),
            stems: self.stems,
            counts: self.counts,
        }
    }
}

/// Surface words of a segment being written.
#[derive(Default)]
pub struct SurfaceCollector {
    /// word -> index into `entries` (the writer's map type: no hash map
    /// code of its own in the wasm).
    words: HashMap<Box<str>, u32>,
    /// (term id of its stem in the writer, documents, last document + 1).
    entries: Vec<(u32, u32, u32)>,
}

impl SurfaceCollector {
    /// Records `word` of document `doc` with the writer's term id of its
    /// stem; returns the bytes newly held (for the writer's heap estimate).
    pub fn add(&mut self, word: &str, term: u32, doc: u32) -> usize {
        if word.len() > MAX_SURFACE_BYTES {
            return 0;
        }
        if let Some(&i) = self.words.get(word) {
            let entry = &mut self.entries[i as usize];
            if entry.2 != doc + 1 {
                entry.1 += 1;
                entry.2 = doc + 1;
            }
            return 0;
        }
        self.words.insert(word.into(), self.entries.len() as u32);
        self.entries.push((term, 1, doc + 1));
        word.len() + 48
    }

    /// The surfaces, with `ords[term id]` the final ordinal of each term.
    pub fn finish(self, ords: &[u32]) -> Surfaces {
        let words: Vec<(Box<str>, u32)> = self.words.into_iter().collect();
        let bytes: Vec<&[u8]> = words.iter().map(|w| w.0.as_bytes()).collect();
        let mut out = SurfacesBuilder::default();
        for &(_, i) in &crate::sort::order_by_bytes(&bytes) {
            let (word, entry) = &words[i as usize];
            let (term, count, _) = &self.entries[*entry as usize];
            if let Some(&ord) = ords.get(*term as usize) {
                out.push(word.as_bytes(), ord, *count);
            }
        }
        out.finish()
    }
}
