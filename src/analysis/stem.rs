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
        // The JS browser entry recognizes this error (field `language`,
        // reason starting "not in this build") and switches to its
        // all-languages wasm: pkg-template/languages.js.
        None => Err(Error::schema(
            "language",
            format!("not in this build: {language:?} analysis needs the all-languages build (cargo feature `all-languages`; memdex_bg.wasm), this one has English and `none` only"),
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
/// lookup per word. Snowball stemming costs several thousand instructions
/// per word and word frequencies are Zipfian, so a small cache removes most
/// of it. It is a pure memo: output never depends on its state. Bounded by
/// two generations: when the current one is full it becomes the old one
/// (the previous old one is dropped) and old hits move back to the current
/// one, so frequent words survive a turnover (clearing everything cost 40%
/// more stemming on 100k package descriptions). Shared behind a mutex that
/// is only `try_lock`ed, so concurrent analyzers never wait (they compute
/// directly instead).
pub(crate) struct StemCache {
    map: Mutex<Generations>,
}

/// word -> (is stopword, term).
type CacheMap = HashMap<Box<str>, (bool, Box<str>), BuildHasherDefault<Fnv>>;

#[derive(Default)]
struct Generations {
    current: CacheMap,
    old: CacheMap,
}

/// Entries per generation (a few MB at most for both; most text uses far
/// fewer distinct words).
const STEM_CACHE_ENTRIES: usize = 1 << 15;

impl StemCache {
    pub(crate) fn new() -> StemCache {
        StemCache {
            map: Mutex::new(Generations::default()),
        }
    }

    /// Calls `then(is stopword, term)` with `compute(word)`, through the
    /// cache: a hit allocates nothing.
    #[inline]
    pub(crate) fn with<R>(
        &self,
        word: &str,
        compute: impl FnOnce(&str) -> (bool, String),
        then: impl FnOnce(bool, &str) -> R,
    ) -> R {
        let Ok(mut cache) = self.map.try_lock() else {
            let (stop, term) = compute(word);
            return then(stop, &term);
        };
        if let Some((stop, term)) = cache.current.get(word) {
            return then(*stop, term);
        }
        let (key, value) = match cache.old.remove_entry(word) {
            Some(entry) => entry,
            None => {
                let (stop, term) = compute(word);
                (word.into(), (stop, term.into_boxed_str()))
            }
        };
        let result = then(value.0, &value.1);
        if cache.current.len() >= STEM_CACHE_ENTRIES {
            cache.old = std::mem::take(&mut cache.current);
        }
        cache.current.insert(key, value);
        result
    }
}
