//! Language -> Snowball stemmer (`rust-stemmers`).
//!
//! Without the `all-languages` feature only English is compiled in; every
//! other stemming language is rejected by [`super::Analyzer::new`] so an
//! index never silently analyzes with the wrong stemmer.

use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::sync::Mutex;

use rust_stemmers::{Algorithm, Stemmer};

use super::stopwords::Fnv;
use super::Language;
use crate::error::{Error, Result};

/// The stemmer for `language`, `None` for [`Language::None`].
pub(crate) fn stemmer_for(language: Language) -> Result<Option<Stemmer>> {
    if language == Language::None {
        return Ok(None);
    }
    if language == Language::English {
        // Kept separate so an English-only build links only this algorithm.
        return Ok(Some(Stemmer::create(Algorithm::English)));
    }
    match algorithm(language) {
        Some(a) => Ok(Some(Stemmer::create(a))),
        None => Err(Error::schema(
            "language",
            format!("{language:?} is not compiled in; enable the `all-languages` feature"),
        )),
    }
}

#[cfg(feature = "all-languages")]
fn algorithm(language: Language) -> Option<Algorithm> {
    Some(match language {
        Language::None => return None,
        Language::Arabic => Algorithm::Arabic,
        Language::Danish => Algorithm::Danish,
        Language::Dutch => Algorithm::Dutch,
        Language::English => Algorithm::English,
        Language::Finnish => Algorithm::Finnish,
        Language::French => Algorithm::French,
        Language::German => Algorithm::German,
        Language::Greek => Algorithm::Greek,
        Language::Hungarian => Algorithm::Hungarian,
        Language::Italian => Algorithm::Italian,
        Language::Norwegian => Algorithm::Norwegian,
        Language::Portuguese => Algorithm::Portuguese,
        Language::Romanian => Algorithm::Romanian,
        Language::Russian => Algorithm::Russian,
        Language::Spanish => Algorithm::Spanish,
        Language::Swedish => Algorithm::Swedish,
        Language::Tamil => Algorithm::Tamil,
        Language::Turkish => Algorithm::Turkish,
    })
}

#[cfg(not(feature = "all-languages"))]
fn algorithm(_language: Language) -> Option<Algorithm> {
    None
}

/// Memo of `word -> (is stopword, stemmed and folded term)`, one hash
/// lookup per word. Snowball stemming costs several hundred ns per word and
/// word frequencies are Zipfian, so a small cache removes most of it. It is
/// a pure memo: output never depends on its state. Bounded by clearing when
/// full; shared behind a mutex that is only `try_lock`ed, so concurrent
/// analyzers never wait (they compute directly instead).
pub(crate) struct StemCache {
    map: Mutex<CacheMap>,
}

/// word -> (is stopword, term).
type CacheMap = HashMap<Box<str>, (bool, Box<str>), BuildHasherDefault<Fnv>>;

/// Entries kept before the cache is cleared (about 1 MB at most; most text
/// uses far fewer distinct words).
const STEM_CACHE_ENTRIES: usize = 1 << 14;

impl StemCache {
    pub(crate) fn new() -> StemCache {
        StemCache {
            map: Mutex::new(HashMap::default()),
        }
    }

    /// `compute(word)` through the cache; the term is left out (`None`) for
    /// a cached stopword unless `want_stopword_term`.
    #[inline]
    pub(crate) fn get_or(
        &self,
        word: &str,
        want_stopword_term: bool,
        compute: impl FnOnce(&str) -> (bool, String),
    ) -> (bool, Option<String>) {
        let Ok(mut map) = self.map.try_lock() else {
            let (stop, term) = compute(word);
            return (stop, Some(term));
        };
        if let Some((stop, term)) = map.get(word) {
            return (
                *stop,
                (!*stop || want_stopword_term).then(|| term.to_string()),
            );
        }
        let (stop, term) = compute(word);
        if map.len() >= STEM_CACHE_ENTRIES {
            map.clear();
        }
        map.insert(word.into(), (stop, term.as_str().into()));
        (stop, Some(term))
    }
}
