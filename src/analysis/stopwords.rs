//! Stopword sets: the Snowball list of a language, customized per index.
//!
//! The lists live in the generated `stopwords_data.rs` (see
//! `scripts/gen-stopwords`). Entries are normalized exactly like analyzed
//! words (NFKC, lowercase) and, when folding is on, their folded form is
//! added too, so `etre` is recognized like `être`.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::OnceLock;

use super::normalize::{fold_into, lower_nfkc_into};
use super::{AnalyzerOptions, Language};

#[cfg_attr(not(feature = "all-languages"), allow(dead_code))]
#[path = "stopwords_data.rs"]
mod data;

/// The Snowball stop list of `language` (empty where Snowball has none:
/// arabic, greek, romanian, tamil, turkish, and `none`). The generated data
/// holds each list as one string, a word per line (compact in the wasm
/// bundle); it is split into this slice once, on first use.
pub fn default_stopwords(language: Language) -> &'static [&'static str] {
    const LANGUAGES: usize = Language::Turkish as usize + 1;
    static LISTS: [OnceLock<Vec<&'static str>>; LANGUAGES] = [const { OnceLock::new() }; LANGUAGES];
    let text = list_text(language);
    if text.is_empty() {
        return &[];
    }
    LISTS[language as usize].get_or_init(|| text.split_ascii_whitespace().collect())
}

fn list_text(language: Language) -> &'static str {
    #[cfg(feature = "all-languages")]
    {
        match language {
            Language::None => "",
            Language::Arabic => data::ARABIC,
            Language::Danish => data::DANISH,
            Language::Dutch => data::DUTCH,
            Language::English => data::ENGLISH,
            Language::Finnish => data::FINNISH,
            Language::French => data::FRENCH,
            Language::German => data::GERMAN,
            Language::Greek => data::GREEK,
            Language::Hungarian => data::HUNGARIAN,
            Language::Italian => data::ITALIAN,
            Language::Norwegian => data::NORWEGIAN,
            Language::Portuguese => data::PORTUGUESE,
            Language::Romanian => data::ROMANIAN,
            Language::Russian => data::RUSSIAN,
            Language::Spanish => data::SPANISH,
            Language::Swedish => data::SWEDISH,
            Language::Tamil => data::TAMIL,
            Language::Turkish => data::TURKISH,
        }
    }
    #[cfg(not(feature = "all-languages"))]
    {
        match language {
            Language::English => data::ENGLISH,
            _ => "",
        }
    }
}

/// FNV-1a over the bytes: stopwords are short, so this beats SipHash and
/// needs no dependency. HashDoS is not a concern for a fixed, small set.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

pub(crate) type StopSet = HashSet<String, BuildHasherDefault<Fnv>>;

/// Builds the effective stopword set: the replacement list if given, else
/// the language default (when `default_stopwords`), then `add_stopwords`,
/// minus `remove_stopwords`.
pub(crate) fn build(options: &AnalyzerOptions) -> StopSet {
    let turkish = options.language == Language::Turkish;
    let mut set = StopSet::default();
    let mut buf = String::new();
    let insert = |set: &mut StopSet, word: &str, buf: &mut String| {
        buf.clear();
        lower_nfkc_into(word.trim(), turkish, buf);
        if buf.is_empty() {
            return;
        }
        if options.fold_diacritics {
            let mut folded = String::with_capacity(buf.len());
            fold_into(buf, &mut folded);
            set.insert(folded);
        }
        set.insert(buf.clone());
    };
    match &options.stopwords {
        Some(list) => list.iter().for_each(|w| insert(&mut set, w, &mut buf)),
        None if options.default_stopwords => default_stopwords(options.language)
            .iter()
            .for_each(|w| insert(&mut set, w, &mut buf)),
        None => {}
    }
    for w in &options.add_stopwords {
        insert(&mut set, w, &mut buf);
    }
    if !options.remove_stopwords.is_empty() {
        let mut removed = StopSet::default();
        for w in &options.remove_stopwords {
            insert(&mut removed, w, &mut buf);
        }
        set.retain(|w| !removed.contains(w));
    }
    set
}
