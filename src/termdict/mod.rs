//! Term dictionary: sorted terms -> term ordinal, as an FST (`fst` crate).
//!
//! The FST gives exact lookup, ordered streaming (merges), prefix ranges
//! (autocomplete, `prefix*`) and Levenshtein automata (`fuzzy~N`) at a few
//! bytes per term. Ordinals index the segment's `TermInfo` table.

use fst::automaton::{Automaton, Levenshtein, Str};
use fst::{IntoStreamer, Map, MapBuilder, Streamer};

/// Most terms one prefix or fuzzy expansion may produce.
pub const MAX_EXPANSIONS: usize = 1024;

#[derive(Clone)]
pub struct TermDict {
    map: Map<Vec<u8>>,
}

impl std::fmt::Debug for TermDict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TermDict({} terms)", self.map.len())
    }
}

impl Default for TermDict {
    fn default() -> Self {
        TermDict::from_sorted(std::iter::empty::<(&[u8], u64)>())
    }
}

impl TermDict {
    /// Builds from strictly increasing keys (enforced by the FST builder;
    /// callers sort and dedupe first).
    pub fn from_sorted<K: AsRef<[u8]>>(entries: impl IntoIterator<Item = (K, u64)>) -> TermDict {
        let mut builder = TermDictBuilder::new();
        for (key, value) in entries {
            builder.insert(key.as_ref(), value);
        }
        builder.finish()
    }

    /// Rebuilds from serialized FST bytes; `None` if they do not decode.
    pub fn from_bytes(bytes: Vec<u8>) -> Option<TermDict> {
        Map::new(bytes).ok().map(|map| TermDict { map })
    }

    pub fn as_bytes(&self) -> &[u8] {
        self.map.as_fst().as_bytes()
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn get(&self, term: &str) -> Option<u64> {
        self.map.get(term)
    }

    /// Terms starting with `prefix`, in order, at most `limit`.
    pub fn prefix(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        self.search(Str::new(prefix).starts_with(), limit)
    }

    /// Terms within Levenshtein `distance` of `term`, at most `limit`.
    pub fn fuzzy(&self, term: &str, distance: u8, limit: usize) -> Vec<(String, u64)> {
        match Levenshtein::new(term, distance as u32) {
            Ok(aut) => self.search(aut, limit),
            // The automaton refuses very long terms: fall back to exact match.
            Err(_) => self
                .get(term)
                .map(|v| vec![(term.to_string(), v)])
                .unwrap_or_default(),
        }
    }

    fn search<A: Automaton>(&self, aut: A, limit: usize) -> Vec<(String, u64)> {
        let mut stream = self.map.search(aut).into_stream();
        let mut out = Vec::new();
        while let Some((key, value)) = stream.next() {
            if out.len() >= limit {
                break;
            }
            out.push((String::from_utf8_lossy(key).into_owned(), value));
        }
        out
    }

    /// All entries in order (for merges).
    pub fn stream(&self) -> fst::map::Stream<'_> {
        self.map.stream()
    }
}

/// Incremental [`TermDict`] construction, so callers need not collect the
/// keys first.
pub struct TermDictBuilder {
    builder: MapBuilder<Vec<u8>>,
}

impl Default for TermDictBuilder {
    fn default() -> Self {
        TermDictBuilder::new()
    }
}

impl TermDictBuilder {
    pub fn new() -> TermDictBuilder {
        TermDictBuilder {
            builder: MapBuilder::memory(),
        }
    }

    /// Adds the next key, which must be greater than the previous one.
    pub fn insert(&mut self, key: &[u8], value: u64) {
        // Out-of-order keys are a caller bug; skipping keeps the dict valid.
        let _ = self.builder.insert(key, value);
    }

    pub fn finish(self) -> TermDict {
        let bytes = self.builder.into_inner().unwrap_or_default();
        TermDict {
            map: Map::new(bytes).unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_prefix_and_fuzzy() {
        let words = ["apple", "apply", "banana", "band", "bandana"];
        let dict = TermDict::from_sorted(words.iter().enumerate().map(|(i, w)| (w, i as u64)));
        assert_eq!(dict.len(), 5);
        assert_eq!(dict.get("band"), Some(3));
        assert_eq!(dict.get("ban"), None);
        let p: Vec<_> = dict.prefix("ban", 10).into_iter().map(|(t, _)| t).collect();
        assert_eq!(p, ["banana", "band", "bandana"]);
        assert_eq!(dict.prefix("ban", 2).len(), 2);
        let f: Vec<_> = dict
            .fuzzy("appla", 1, 10)
            .into_iter()
            .map(|(t, _)| t)
            .collect();
        assert_eq!(f, ["apple", "apply"]);
        let copy = TermDict::from_bytes(dict.as_bytes().to_vec()).unwrap();
        assert_eq!(copy.get("apply"), Some(1));
    }
}
