//! Text analysis: text -> terms with positions and UTF-16 offsets.
//!
//! # Pipeline
//!
//! 1. **Segmentation** (`tokenizer.rs`): UAX #29 words (`unicode-segmentation`;
//!    pure-ASCII stretches use an equivalent byte scanner). Adjacent words
//!    joined by connectors `_ - . / \ @ :` form one *compound group*
//!    (`src/lib/auth.ts`, `user@example.com`, `https://host/path`,
//!    `v1.2.3`). Runs of Han, Kana and Hangul form *CJK runs*. Everything
//!    else (spaces, punctuation, emoji, symbols) separates tokens and is not
//!    indexed.
//! 2. **Parts**: a group is cut into letter/digit runs, and those at
//!    camelCase boundaries: `getUserById` -> `get user by id`,
//!    `HTTPServer` -> `http server`, `snake_case_name` -> `snake case name`.
//!    Letter/digit transitions do not split (`base64`, `sha256`, `v1`).
//! 3. **Normalization** per part: NFKC (full-width forms, ligatures),
//!    lowercase (Turkish dotted/dotless i for [`Language::Turkish`]),
//!    apostrophes: French/Italian elisions are dropped (`l'avion` ->
//!    `avion`), Turkish suffixes after an apostrophe are dropped
//!    (`Ankara'da` -> `ankara`), other languages keep the word whole
//!    (`O'Reilly` -> `o'reilly`; English stemming strips `'s`).
//! 4. **Stopwords** are checked on the normalized, unstemmed word (parts
//!    of compounds included) and removed; their position is still consumed
//!    so phrases keep their gaps.
//! 5. **Stemming** with the Snowball stemmer of the language; parts
//!    containing a digit are not stemmed (numbers, versions, `utf8`).
//!    Snowball does not split German compounds: `Donaudampfschifffahrt`
//!    stays one term. Stems are memoized per analyzer (bounded cache).
//! 6. **Diacritic folding** (optional, on by default) runs *after*
//!    stemming, so stemmers see the real letters (`й` vs `и` matters to the
//!    Russian stemmer) while search stays accent-insensitive.
//!
//! # Compound tokens
//!
//! A group with two or more parts also yields its *whole* token: the group
//! text NFKC-lowercased and folded but **not stemmed** and not
//! stopword-filtered (`getuserbyid`, `src/lib/auth.ts`). The whole token has
//! the position of the group's first part; parts take consecutive positions.
//! So `getUserById` yields `getuserbyid@0 get@0 user@1 id@3` (`by` is an
//! English stopword at position 2), and both `get user` and `getUserById`
//! match. A version `v1.2.3` additionally yields `1.2.3` at the same
//! position, so `1.2.3` finds it; numbers like `3.14` yield `3.14 3 14`.
//!
//! Contract for the query side: tokens that share a position are
//! *alternatives* (like synonyms). A query position is satisfied by any of
//! its terms, so the query `auth.ts` (`auth.ts@0 auth@0 ts@1`) matches a
//! document containing `src/lib/auth.ts` through its parts, and the query
//! `getUserById` matches an exact identifier through the whole token.
//!
//! # CJK
//!
//! A CJK run of n >= 2 characters yields its n-1 overlapping bigrams at
//! consecutive positions (`東京都` -> `東京@0 京都@1`); a single character
//! yields itself. Queries are analyzed the same way, so unspaced queries
//! match. No stemming, stopwords or folding apply to CJK. A one-character
//! query (`東`) only finds one-character runs, not bigrams containing it.
//!
//! # Limits
//!
//! Parts and whole tokens over [`MAX_TOKEN_CHARS`] characters, and terms
//! over [`MAX_TERM_BYTES`] bytes, are skipped (not truncated); a skipped
//! part still consumes its position. Analysis is linear in the input
//! (UTF-16 offsets are computed incrementally) and never panics on any
//! input.
//!
//! # Queries made only of stopwords
//!
//! [`Analyzer::analyze`] drops stopwords, so `the who` may yield nothing.
//! That is not an error: the query side calls [`Analyzer::analyze_with`]
//! and reads [`AnalyzeStats::stopwords`], or calls
//! [`Analyzer::analyze_keep_stopwords`] to get the stopword terms back and
//! search for them anyway. [`AnalyzeStats::positions`] is the field length
//! to use for BM25 (whole tokens share positions and do not count twice).
//!
//! Invariants every implementation keeps:
//! - the same text yields the same terms at index and at query time;
//! - tokens come out ordered by `position` (several tokens may share one
//!   position, e.g. a compound identifier and its first part);
//! - `start..end` are UTF-16 code-unit offsets into the input, on char
//!   boundaries, `start < end`.

use rust_stemmers::Stemmer;

use crate::error::Result;
use normalize::{fold_into, lower_nfkc_into};
use stopwords::StopSet;
use tokenizer::{for_each_segment, split_parts, Grouper, Part, Unit};

pub(crate) mod normalize;
mod stem;

pub mod stopwords;
mod tokenizer;

/// Parts and whole tokens longer than this many characters (of the
/// original text) are skipped, not truncated: such strings are hashes,
/// base64 blobs or long URLs nobody types into a search box.
pub const MAX_TOKEN_CHARS: usize = 64;
/// Terms longer than this many UTF-8 bytes after normalization are skipped
/// (NFKC can expand a character into many).
pub const MAX_TERM_BYTES: usize = 255;

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

/// A token borrowed from the analyzer's scratch buffers, valid for one
/// call of the sink passed to [`Analyzer::analyze_each`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenRef<'a> {
    pub term: &'a str,
    pub position: u32,
    pub start: u32,
    pub end: u32,
    /// The word as written (normalized and folded like the term, not
    /// stemmed) of words that went through the stemmer and of whole
    /// compounds without digits; `None` for numbers, parts with digits, CJK
    /// and words of a language without stemming. Typo matching and
    /// autocomplete work on these surface forms.
    pub surface: Option<&'a str>,
}

/// Stemming language. `None` disables stemming (and default stopwords).
/// Snowball has no stop list for arabic, greek, romanian, tamil and turkish:
/// those stem but remove no stopwords unless a custom list is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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

/// Analyzer configuration (serialized with the index; JS passes it as JSON:
/// [`AnalyzerOptions::from_json`], camelCase keys, all optional).
#[derive(Debug, Clone, PartialEq)]
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

/// How a language treats a word-internal apostrophe.
#[derive(Clone, Copy)]
enum Apostrophe {
    /// Keep the word whole.
    Keep,
    /// Drop these elided articles/pronouns before the apostrophe.
    Elide(&'static [&'static str]),
    /// Drop everything from the apostrophe on (Turkish proper-name suffixes).
    StripSuffix,
}

const FRENCH_ELISIONS: &[&str] = &[
    "l", "m", "t", "qu", "n", "s", "j", "d", "c", "jusqu", "quoiqu", "lorsqu", "puisqu",
];
const ITALIAN_ELISIONS: &[&str] = &[
    "c", "l", "all", "dall", "dell", "nell", "sull", "coll", "pell", "gl", "agl", "dagl", "degl",
    "negl", "sugl", "un", "m", "t", "s", "v", "d",
];

/// Counts of what one analysis produced and dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AnalyzeStats {
    /// Tokens appended to the output.
    pub tokens: usize,
    /// Stopwords seen (dropped unless `keep_stopwords`).
    pub stopwords: usize,
    /// Parts or whole tokens skipped for exceeding the length limits.
    pub too_long: usize,
    /// Positions consumed (one past the last position, counting removed
    /// stopwords and skipped parts). Use this, not `tokens`, as the field
    /// length for BM25: whole compound tokens share a position with their
    /// first part and should not lengthen the field.
    pub positions: u32,
}

/// A configured analyzer. Cheap to share by reference; `analyze` takes `&self`.
pub struct Analyzer {
    language: Language,
    stemmer: Option<Stemmer>,
    /// Shared by analyzers of equal options (see [`Analyzer::share_stem_cache`]).
    stem_cache: std::sync::Arc<stem::StemCache>,
    stopwords: StopSet,
    fold: bool,
    turkish: bool,
    apostrophe: Apostrophe,
}

/// Per-call state: position counter, UTF-16 cursor, reusable buffers.
struct State {
    position: u32,
    /// Byte offset and UTF-16 offset of the same point, advanced
    /// monotonically so offsets cost O(n) over the whole text.
    cursor: usize,
    cursor16: u32,
    buf: String,
    prev: String,
    /// Folded term or CJK bigram being emitted.
    term: String,
    keep_stopwords: bool,
    stats: AnalyzeStats,
}

impl State {
    fn new(keep_stopwords: bool) -> State {
        State {
            position: 0,
            cursor: 0,
            cursor16: 0,
            // One allocation for the word buffer instead of doubling from
            // empty on the first long word.
            buf: String::with_capacity(32),
            prev: String::new(),
            term: String::new(),
            keep_stopwords,
            stats: AnalyzeStats::default(),
        }
    }

    /// UTF-16 offset of byte `to` (>= the cursor, on a char boundary).
    #[inline]
    fn advance(&mut self, text: &str, to: usize) -> u32 {
        let skipped = &text.as_bytes()[self.cursor..to];
        // A UTF-16 unit per non-continuation byte, two for 4-byte sequences.
        let units = skipped
            .iter()
            .map(|&b| ((b & 0xC0) != 0x80) as u32 + (b >= 0xF0) as u32)
            .sum::<u32>();
        self.cursor = to;
        self.cursor16 += units;
        self.cursor16
    }
}

/// Where analysis sends its tokens.
type Sink<'s> = dyn FnMut(TokenRef<'_>) + 's;

/// Fast path for the common case, a plain ASCII word (`hello`, `Hello`,
/// `utf8`): exactly the one part [`split_parts`] would find.
#[inline]
fn single_ascii_word(g: &str) -> Option<Part> {
    let b = g.as_bytes();
    let (first, rest) = b.split_first()?;
    let plain = first.is_ascii_alphanumeric()
        && rest
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    plain.then(|| Part {
        start: 0,
        end: b.len(),
        start16: 0,
        end16: b.len() as u32,
        chars: b.len(),
        has_digit: b.iter().any(u8::is_ascii_digit),
        apostrophe: None,
    })
}

#[inline]
fn utf16_len(s: &str) -> u32 {
    s.chars().map(|c| c.len_utf16() as u32).sum()
}

impl Analyzer {
    pub fn new(options: &AnalyzerOptions) -> Result<Analyzer> {
        let stemmer = stem::stemmer_for(options.language)?;
        let apostrophe = match options.language {
            Language::French => Apostrophe::Elide(FRENCH_ELISIONS),
            Language::Italian => Apostrophe::Elide(ITALIAN_ELISIONS),
            Language::Turkish => Apostrophe::StripSuffix,
            _ => Apostrophe::Keep,
        };
        Ok(Analyzer {
            language: options.language,
            stemmer,
            stem_cache: std::sync::Arc::new(stem::StemCache::new()),
            stopwords: stopwords::build(options),
            fold: options.fold_diacritics,
            turkish: options.language == Language::Turkish,
            apostrophe,
        })
    }

    /// Makes this analyzer use `other`'s stem cache. Only for analyzers
    /// built from equal [`AnalyzerOptions`] (the cache memoizes stopword
    /// checks, stemming and folding): fields analyzed alike (`title` and
    /// `text`) then stem each distinct word once instead of once per field.
    pub fn share_stem_cache(&mut self, other: &Analyzer) {
        self.stem_cache = other.stem_cache.clone();
    }

    /// The stemming language.
    pub fn language(&self) -> Language {
        self.language
    }

    /// `text` normalized as this analyzer normalizes a word before
    /// stemming (NFKC, lowercase, diacritics folded if on): how surface
    /// words are stored, for prefixes matched against them.
    pub fn normalize_word(&self, text: &str) -> String {
        let mut buf = String::new();
        lower_nfkc_into(text, self.turkish, &mut buf);
        self.folded_owned(&buf)
    }

    /// True if `word` (any case, unstemmed) is a stopword of this analyzer.
    pub fn is_stopword(&self, word: &str) -> bool {
        let mut buf = String::new();
        lower_nfkc_into(word, self.turkish, &mut buf);
        self.stopwords.contains(buf.as_str())
    }

    /// Appends the tokens of `text` to `out` (which is not cleared).
    pub fn analyze_into(&self, text: &str, out: &mut Vec<Token>) {
        self.analyze_with(text, false, out);
    }

    /// Convenience wrapper around [`Analyzer::analyze_into`].
    pub fn analyze(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.analyze_into(text, &mut out);
        out
    }

    /// Like [`Analyzer::analyze`] but stopwords are kept (stemmed and folded
    /// like other words), for queries made only of stopwords.
    pub fn analyze_keep_stopwords(&self, text: &str) -> Vec<Token> {
        let mut out = Vec::new();
        self.analyze_with(text, true, &mut out);
        out
    }

    /// Appends the tokens of `text` to `out`, keeping stopwords if asked,
    /// and reports what was produced and dropped. Positions are the same
    /// whether or not stopwords are kept.
    pub fn analyze_with(
        &self,
        text: &str,
        keep_stopwords: bool,
        out: &mut Vec<Token>,
    ) -> AnalyzeStats {
        self.analyze_each(text, keep_stopwords, |t| {
            out.push(Token {
                term: t.term.to_string(),
                position: t.position,
                start: t.start,
                end: t.end,
            })
        })
    }

    /// Calls `sink` for every token of `text` in order, without allocating
    /// a `String` per token (the bulk indexing path).
    pub fn analyze_each(
        &self,
        text: &str,
        keep_stopwords: bool,
        mut sink: impl FnMut(TokenRef<'_>),
    ) -> AnalyzeStats {
        self.analyze_dyn(text, keep_stopwords, &mut sink)
    }

    /// [`Analyzer::analyze_each`] behind one indirect call: the tokenizer
    /// is compiled once, not once per caller's sink (~5 KB of wasm each).
    #[inline(never)]
    fn analyze_dyn(&self, text: &str, keep_stopwords: bool, sink: &mut Sink<'_>) -> AnalyzeStats {
        let mut st = State::new(keep_stopwords);
        let mut tokens = 0usize;
        let mut out = |t: TokenRef<'_>| {
            tokens += 1;
            sink(t);
        };
        let mut emit = |u: Unit| match u {
            Unit::Group { start, end } => self.group(text, start, end, &mut st, &mut out),
            Unit::Cjk { start, end } => self.cjk(text, start, end, &mut st, &mut out),
        };
        let mut grouper = Grouper::default();
        for_each_segment(text, |seg| grouper.push(seg, &mut emit));
        grouper.finish(&mut emit);
        st.stats.tokens = tokens;
        st.stats.positions = st.position;
        st.stats
    }

    /// A compound group: the whole token (if it has 2+ parts and fits the
    /// limit) at the first part's position, then the parts. Parts stream
    /// from the splitter; only the first is held back until the second
    /// shows whether a whole token is due.
    fn group(&self, text: &str, start: usize, end: usize, st: &mut State, out: &mut Sink<'_>) {
        let g16 = st.advance(text, start);
        let g = &text[start..end];
        let emit = |part: &Part, st: &mut State, out: &mut Sink<'_>| {
            self.part(g, part, g16, st, out);
            st.position = st.position.saturating_add(1);
        };
        if let Some(part) = single_ascii_word(g) {
            emit(&part, st, out);
        } else {
            // A char is at most 4 bytes: longer groups can't fit the limit.
            let whole_fits = g.len() <= 4 * MAX_TOKEN_CHARS && g.chars().count() <= MAX_TOKEN_CHARS;
            let mut first = None;
            let mut count = 0usize;
            split_parts(g, |part| {
                count += 1;
                if count == 1 {
                    first = Some(part);
                    return;
                }
                if count == 2 {
                    if whole_fits {
                        self.whole(g, g16, g16 + utf16_len(g), st, out);
                    } else {
                        st.stats.too_long += 1;
                    }
                    if let Some(f) = first.take() {
                        emit(&f, st, out);
                    }
                }
                emit(&part, st, out);
            });
            if let Some(f) = first {
                emit(&f, st, out);
            }
        }
        st.advance(text, end);
    }

    /// The whole compound: normalized and folded, never stemmed.
    fn whole(&self, g: &str, start16: u32, end16: u32, st: &mut State, out: &mut Sink<'_>) {
        st.buf.clear();
        lower_nfkc_into(g, self.turkish, &mut st.buf);
        let term = self.folded(&st.buf, &mut st.term);
        if term.len() > MAX_TERM_BYTES {
            st.stats.too_long += 1;
            return;
        }
        // Compounds are typed whole too (`getUserById`): typo matching and
        // autocomplete know them.
        let word = term.len() <= 32 && !term.bytes().any(|b| b.is_ascii_digit());
        out(TokenRef {
            term,
            position: st.position,
            start: start16,
            end: end16,
            surface: word.then_some(term),
        });
        // `v1.2.3` is also findable as `1.2.3`.
        let version = term.strip_prefix('v').filter(|rest| {
            rest.starts_with(|c: char| c.is_ascii_digit())
                && rest.contains('.')
                && rest.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        });
        if let Some(v) = version {
            out(TokenRef {
                term: v,
                position: st.position,
                start: start16 + 1,
                end: end16,
                surface: None,
            });
        }
    }

    /// `s` folded if folding is on; ASCII needs no copy.
    fn folded<'a>(&self, s: &'a str, scratch: &'a mut String) -> &'a str {
        if self.fold && !s.is_ascii() {
            scratch.clear();
            fold_into(s, scratch);
            scratch
        } else {
            s
        }
    }

    fn folded_owned(&self, s: &str) -> String {
        let mut t = String::new();
        self.folded(s, &mut t).to_string()
    }

    fn part(&self, g: &str, part: &Part, g16: u32, st: &mut State, out: &mut Sink<'_>) {
        if part.chars > MAX_TOKEN_CHARS {
            st.stats.too_long += 1;
            return;
        }
        let mut word = &g[part.start..part.end];
        let mut start16 = g16 + part.start16;
        let mut end16 = g16 + part.end16;
        if let Some(a) = part.apostrophe {
            let prefix = &g[part.start..a];
            // Both apostrophes (' and ’) are one UTF-16 unit.
            let apos_len = g[a..].chars().next().map_or(1, char::len_utf8);
            match self.apostrophe {
                Apostrophe::Keep => {}
                Apostrophe::Elide(list) => {
                    if list.iter().any(|e| e.eq_ignore_ascii_case(prefix)) {
                        word = &g[a + apos_len..part.end];
                        start16 += utf16_len(prefix) + 1;
                    }
                }
                Apostrophe::StripSuffix => {
                    word = prefix;
                    end16 = start16 + utf16_len(prefix);
                }
            }
        }
        st.buf.clear();
        lower_nfkc_into(word, self.turkish, &mut st.buf);
        if st.buf.is_empty() {
            return;
        }
        let keep = st.keep_stopwords;
        let mut emit = |stop: bool, term: &str, surface: Option<&str>, stats: &mut AnalyzeStats| {
            stats.stopwords += stop as usize;
            if (stop && !keep) || term.is_empty() {
                return;
            }
            if term.len() > MAX_TERM_BYTES {
                stats.too_long += 1;
                return;
            }
            out(TokenRef {
                term,
                position: st.position,
                start: start16,
                end: end16,
                surface,
            });
        };
        match &self.stemmer {
            Some(s) if !part.has_digit => {
                let surface = self.folded(&st.buf, &mut st.term);
                self.stem_cache.with(
                    &st.buf,
                    |w| (self.stopwords.contains(w), self.folded_owned(&s.stem(w))),
                    |stop, term| emit(stop, term, Some(surface), &mut st.stats),
                );
            }
            _ => {
                let stop = self.stopwords.contains(st.buf.as_str());
                let term = self.folded(&st.buf, &mut st.term);
                emit(stop, term, None, &mut st.stats);
            }
        }
    }

    /// Overlapping bigrams of a CJK run (a lone character stays a unigram).
    /// Combining marks and half-width sound marks stay with their base.
    fn cjk(&self, text: &str, start: usize, end: usize, st: &mut State, out: &mut Sink<'_>) {
        let mut c16 = st.advance(text, start);
        let run = &text[start..end];
        let mut prev = std::mem::take(&mut st.prev);
        let mut cur = std::mem::take(&mut st.buf);
        let mut prev_start16 = c16;
        let mut prev_end16 = c16;
        let mut count = 0usize;
        let mut iter = run.char_indices().peekable();
        while let Some((i, c)) = iter.next() {
            let mut j = i + c.len_utf8();
            let cluster_start16 = c16;
            c16 += c.len_utf16() as u32;
            while let Some(&(k, n)) = iter.peek() {
                let attaches = normalize::is_combining_mark(n)
                    || normalize::is_ignorable(n)
                    || matches!(n, '\u{FF9E}' | '\u{FF9F}');
                if !attaches {
                    break;
                }
                iter.next();
                j = k + n.len_utf8();
                c16 += n.len_utf16() as u32;
            }
            cur.clear();
            lower_nfkc_into(&run[i..j], false, &mut cur);
            if count >= 1 {
                st.term.clear();
                st.term.push_str(&prev);
                st.term.push_str(&cur);
                out(TokenRef {
                    term: &st.term,
                    position: st.position,
                    start: prev_start16,
                    end: c16,
                    surface: None,
                });
                st.position = st.position.saturating_add(1);
            }
            std::mem::swap(&mut prev, &mut cur);
            prev_start16 = cluster_start16;
            prev_end16 = c16;
            count += 1;
        }
        if count == 1 && !prev.is_empty() {
            out(TokenRef {
                term: &prev,
                position: st.position,
                start: prev_start16,
                end: prev_end16,
                surface: None,
            });
            st.position = st.position.saturating_add(1);
        }
        st.prev = prev;
        st.buf = cur;
        st.advance(text, end);
    }
}

#[cfg(test)]
mod tests;
