//! Text analysis: text -> terms with positions and UTF-16 offsets.
//!
//! PLACEHOLDER implementation (UAX#29 words, lowercase, stemming); the full
//! analyzer (folding, stopwords, code identifiers, CJK) replaces the internals
//! of [`Analyzer`] without changing this interface.
//!
//! Invariants every implementation keeps:
//! - the same text yields the same terms at index and at query time;
//! - tokens come out ordered by `position` (several tokens may share one
//!   position, e.g. a compound identifier and its first part);
//! - `start..end` are UTF-16 code-unit offsets into the input, on char
//!   boundaries, `start < end`.

use serde::{Deserialize, Serialize};
use unicode_segmentation::UnicodeSegmentation;

use crate::error::Result;

/// One analyzed term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    /// The normalized term as stored in the index.
    pub term: String,
    /// Word position, for phrase and proximity queries.
    pub position: u32,
    /// Start offset in UTF-16 code units of the original text.
    pub start: u32,
    /// End offset (exclusive) in UTF-16 code units.
    pub end: u32,
}

/// Stemming language. `None` disables stemming (and default stopwords).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    None,
    Arabic,
    Danish,
    Dutch,
    #[default]
    English,
    Finnish,
    French,
    German,
    Greek,
    Hungarian,
    Italian,
    Norwegian,
    Portuguese,
    Romanian,
    Russian,
    Spanish,
    Swedish,
    Tamil,
    Turkish,
}

/// Analyzer configuration (serialized with the index; JS passes it as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct AnalyzerOptions {
    pub language: Language,
    /// Fold diacritics (`café` -> `cafe`).
    pub fold_diacritics: bool,
    /// Use the language's Snowball stopword list.
    pub default_stopwords: bool,
    /// Replace the stopword list entirely when set.
    pub stopwords: Option<Vec<String>>,
    /// Words added to the stopword list.
    pub add_stopwords: Vec<String>,
    /// Words removed from the stopword list.
    pub remove_stopwords: Vec<String>,
}

impl Default for AnalyzerOptions {
    fn default() -> Self {
        AnalyzerOptions {
            language: Language::English,
            fold_diacritics: true,
            default_stopwords: true,
            stopwords: None,
            add_stopwords: Vec::new(),
            remove_stopwords: Vec::new(),
        }
    }
}

/// A configured analyzer. Cheap to share by reference; `analyze` takes `&self`.
pub struct Analyzer {
    stemmer: Option<rust_stemmers::Stemmer>,
}

impl Analyzer {
    pub fn new(options: &AnalyzerOptions) -> Result<Analyzer> {
        let stemmer = match options.language {
            Language::English => Some(rust_stemmers::Stemmer::create(
                rust_stemmers::Algorithm::English,
            )),
            _ => None,
        };
        Ok(Analyzer { stemmer })
    }

    /// Appends the tokens of `text` to `out` (which is not cleared).
    pub fn analyze_into(&self, text: &str, out: &mut Vec<Token>) {
        let mut position = 0u32;
        let mut utf16_pos = 0u32;
        let mut byte_pos = 0usize;
        #[allow(clippy::explicit_counter_loop)]
        for (byte_start, word) in text.unicode_word_indices() {
            utf16_pos += text[byte_pos..byte_start].encode_utf16().count() as u32;
            let len16 = word.encode_utf16().count() as u32;
            let lower = word.to_lowercase();
            let term = match &self.stemmer {
                Some(s) => s.stem(&lower).into_owned(),
                None => lower,
            };
            out.push(Token {
                term,
                position,
                start: utf16_pos,
                end: utf16_pos + len16,
            });
            position += 1;
            utf16_pos += len16;
            byte_pos = byte_start + word.len();
        }
    }

    /// Convenience wrapper around [`Analyzer::analyze_into`].
    pub fn analyze(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.analyze_into(text, &mut out);
        out
    }
}
