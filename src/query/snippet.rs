//! Snippets and highlighting of matched terms.
//!
//! Input: the original text, the analyzer's tokens for it (offsets in UTF-16
//! code units, as JS strings count) and a predicate telling which tokens
//! matched the query. Output: HTML-escaped text with each match wrapped in
//! the configured pre/post tags.
//!
//! How it works, in linear passes (plus sorting the matched tokens):
//! 1. matched tokens' UTF-16 offsets are mapped to byte and char offsets in
//!    one walk over the text (offsets inside a surrogate pair or past the
//!    end round up to the next char boundary, so no input can panic);
//! 2. overlapping or touching matches merge into one highlighted span (a
//!    compound identifier and its parts, CJK bigrams), so tags never nest;
//! 3. [`snippet`] slides a window of `snippet_length` chars over the spans
//!    and keeps the one covering the most distinct matched terms (ties: the
//!    earliest), adds context around it (a quarter before, the rest after),
//!    moves the cuts to word boundaries when one is near, and marks cuts
//!    with `…`;
//! 4. text is escaped (`& < > " '`), tags are inserted verbatim.
//!
//! ```
//! use memdex::analysis::{Analyzer, AnalyzerOptions};
//! use memdex::query::options::HighlightOptions;
//! use memdex::query::snippet::snippet;
//!
//! let text = "Never <b>deploy</b> on Fridays";
//! let analyzer = Analyzer::new(&AnalyzerOptions::default()).unwrap();
//! let tokens = analyzer.analyze(text);
//! let query_terms = analyzer.analyze("deploying");
//! let is_match = |t: &memdex::analysis::Token| query_terms.iter().any(|q| q.term == t.term);
//! let s = snippet(text, &tokens, is_match, &HighlightOptions::default());
//! assert_eq!(s.as_deref(), Some("Never &lt;b&gt;<mark>deploy</mark>&lt;/b&gt; on Fridays"));
//! ```

use rustc_hash::FxHashMap as HashMap;

use crate::analysis::Token;
use crate::query::options::HighlightOptions;

/// Marks text cut off at either end of a snippet.
pub const ELLIPSIS: &str = "…";

/// How far (in chars) a cut may move to reach a word boundary.
const SNAP_SLACK: usize = 20;

/// Best snippet of `text` around the matched tokens, or `None` when no token
/// matches (show [`leading_snippet`] instead).
pub fn snippet(
    text: &str,
    tokens: &[Token],
    is_match: impl Fn(&Token) -> bool,
    opts: &HighlightOptions,
) -> Option<String> {
    let Matches {
        spans,
        term_count,
        total_chars,
    } = matches(text, tokens, is_match);
    let (first, last) = best_window(&spans, term_count, opts.snippet_length)?;
    let (core_start, core_end) = (spans[first].start, spans[last].end);
    let core_chars = spans[last].cend - spans[first].cstart;
    let budget = opts.snippet_length.saturating_sub(core_chars);
    let room_before = spans[first].cstart;
    let room_after = total_chars - spans[last].cend;
    let mut before = (budget / 4).min(room_before);
    let after = (budget - before).min(room_after);
    before = (budget - after).min(room_before);
    let start = snap_start(text, back_chars(text, core_start, before), core_start);
    let end = snap_end(text, fwd_chars(text, core_end, after), core_end);
    Some(render(text, start, end, &spans, opts, true))
}

/// The start of `text` (leading whitespace skipped), about `snippet_length`
/// chars, escaped, cut at a word boundary when one is near, with `…` when
/// cut.
pub fn leading_snippet(text: &str, opts: &HighlightOptions) -> String {
    let start = text.len() - text.trim_start().len();
    let end = snap_end(text, fwd_chars(text, start, opts.snippet_length), start);
    render(text, start, end, &[], opts, true)
}

/// The whole of `text`, escaped, with every matched token highlighted.
pub fn highlight_all(
    text: &str,
    tokens: &[Token],
    is_match: impl Fn(&Token) -> bool,
    opts: &HighlightOptions,
) -> String {
    let spans = matches(text, tokens, is_match).spans;
    render(text, 0, text.len(), &spans, opts, false)
}

/// Appends `s` to `out` with `& < > " '` escaped for HTML text and attributes.
pub fn escape_html_into(s: &str, out: &mut String) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A highlighted range: merged matched tokens.
#[derive(Debug)]
struct Span {
    /// Byte range in the text.
    start: usize,
    end: usize,
    /// Char range in the text.
    cstart: usize,
    cend: usize,
    /// Distinct ids of the terms it covers.
    terms: Vec<usize>,
}

struct Matches {
    /// Sorted, disjoint, non-touching.
    spans: Vec<Span>,
    /// Number of distinct matched terms (ids are `0..term_count`).
    term_count: usize,
    total_chars: usize,
}

fn matches(text: &str, tokens: &[Token], is_match: impl Fn(&Token) -> bool) -> Matches {
    let mut ids: HashMap<&str, usize> = HashMap::default();
    // ((start << 32 | end), term id): sorted as pairs and the offsets as
    // `u64`, the element types crate::sort already instantiates. Ties
    // (same range, other term) may come in any order: spans only collect
    // the set of term ids.
    let mut hits: Vec<(u64, u32)> = Vec::new();
    for t in tokens.iter().filter(|t| t.start < t.end && is_match(t)) {
        let next = ids.len();
        let id = *ids.entry(t.term.as_str()).or_insert(next);
        hits.push(((t.start as u64) << 32 | t.end as u64, id as u32));
    }
    let mut offsets: Vec<u64> = hits
        .iter()
        .flat_map(|&(r, _)| [r >> 32, r & 0xffff_ffff])
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let (located, total_chars) = locate(text, &offsets);
    let at = |u: u64| {
        offsets
            .binary_search(&u)
            .ok()
            .and_then(|k| located.get(k).copied())
            .unwrap_or((text.len(), total_chars))
    };
    crate::sort::sort_pairs(&mut hits);
    let mut spans: Vec<Span> = Vec::new();
    for (range, id) in hits {
        let (s16, e16, id) = (range >> 32, range & 0xffff_ffff, id as usize);
        let ((start, cstart), (end, cend)) = (at(s16), at(e16));
        if start >= end {
            continue; // empty after rounding to char boundaries
        }
        match spans.last_mut() {
            Some(last) if start <= last.end => {
                if end > last.end {
                    (last.end, last.cend) = (end, cend);
                }
                if !last.terms.contains(&id) {
                    last.terms.push(id);
                }
            }
            _ => spans.push(Span {
                start,
                end,
                cstart,
                cend,
                terms: vec![id],
            }),
        }
    }
    Matches {
        spans,
        term_count: ids.len(),
        total_chars,
    }
}

/// Maps sorted UTF-16 offsets to (byte, char) offsets of the first char
/// boundary at or after each; also returns the text's length in chars.
fn locate(text: &str, offsets: &[u64]) -> (Vec<(usize, usize)>, usize) {
    let mut out = Vec::with_capacity(offsets.len());
    let mut k = 0;
    let mut u16_pos = 0u64;
    let mut chars = 0;
    for (byte, c) in text.char_indices() {
        while k < offsets.len() && offsets[k] <= u16_pos {
            out.push((byte, chars));
            k += 1;
        }
        if k == offsets.len() {
            // Nothing left to place; count the remaining chars quickly.
            chars += text[byte..].chars().count();
            return (out, chars);
        }
        u16_pos += c.len_utf16() as u64;
        chars += 1;
    }
    out.resize(offsets.len(), (text.len(), chars));
    (out, chars)
}

/// Indices of the first and last span of the best window, if any span.
fn best_window(spans: &[Span], term_count: usize, len: usize) -> Option<(usize, usize)> {
    let mut counts = vec![0u32; term_count];
    let mut distinct = 0usize;
    let mut best: Option<(usize, usize, usize)> = None;
    let mut j = 0;
    for i in 0..spans.len() {
        // Always take span i itself, even when longer than the window.
        while j < spans.len() && (j == i || spans[j].cend - spans[i].cstart <= len) {
            for &t in &spans[j].terms {
                counts[t] += 1;
                distinct += usize::from(counts[t] == 1);
            }
            j += 1;
        }
        if best.is_none_or(|(_, _, d)| distinct > d) {
            best = Some((i, j - 1, distinct));
        }
        for &t in &spans[i].terms {
            counts[t] -= 1;
            distinct -= usize::from(counts[t] == 0);
        }
    }
    best.map(|(i, j, _)| (i, j))
}

/// Cuts land next to whitespace when possible, so `2026-03-01` or a URL is
/// not cut at its punctuation.
fn is_word_char(c: char) -> bool {
    !c.is_whitespace()
}

/// Byte offset `n` chars before `byte` (or 0).
fn back_chars(text: &str, byte: usize, n: usize) -> usize {
    if n == 0 {
        return byte;
    }
    text[..byte]
        .char_indices()
        .rev()
        .nth(n - 1)
        .map_or(0, |(b, _)| b)
}

/// Byte offset `n` chars after `byte` (or the end).
fn fwd_chars(text: &str, byte: usize, n: usize) -> usize {
    text[byte..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(b, _)| byte + b)
}

/// Whether `byte` splits a word (word chars on both sides).
fn mid_word(text: &str, byte: usize) -> bool {
    let before = text[..byte].chars().next_back();
    let after = text[byte..].chars().next();
    matches!((before, after), (Some(a), Some(b)) if is_word_char(a) && is_word_char(b))
}

/// Byte offset of the end of the word containing `byte`: the first
/// non-word char before `limit`, or `limit` itself; `None` when farther than
/// the slack.
fn word_end_near(text: &str, byte: usize, limit: usize) -> Option<usize> {
    let region = &text[byte..limit.max(byte)];
    let mut scanned = 0;
    for (b, c) in region.char_indices() {
        if !is_word_char(c) {
            return Some(byte + b);
        }
        scanned += 1;
        if scanned == SNAP_SLACK {
            return None;
        }
    }
    Some(byte + region.len())
}

/// Byte offset of the start of the word containing `byte`: just after the
/// last non-word char at or after `limit`, or `limit` itself; `None` when
/// farther than the slack.
fn word_start_near(text: &str, byte: usize, limit: usize) -> Option<usize> {
    let from = limit.min(byte);
    let region = &text[from..byte];
    let mut scanned = 0;
    for (b, c) in region.char_indices().rev() {
        if !is_word_char(c) {
            return Some(from + b + c.len_utf8());
        }
        scanned += 1;
        if scanned == SNAP_SLACK {
            return None;
        }
    }
    Some(from)
}

/// Moves a snippet start off a split word (forward, never past `limit`, else
/// backward) and past leading whitespace.
fn snap_start(text: &str, mut s: usize, limit: usize) -> usize {
    if s > 0 && mid_word(text, s) {
        s = word_end_near(text, s, limit)
            .or_else(|| word_start_near(text, s, 0))
            .unwrap_or(s);
    }
    text[s..limit.max(s)]
        .char_indices()
        .find(|&(_, c)| !c.is_whitespace())
        .map_or(limit.max(s), |(b, _)| s + b)
}

/// Moves a snippet end off a split word (backward, never before `limit`,
/// else forward) and before trailing whitespace.
fn snap_end(text: &str, mut e: usize, limit: usize) -> usize {
    if e < text.len() && mid_word(text, e) {
        e = word_start_near(text, e, limit)
            .or_else(|| word_end_near(text, e, text.len()))
            .unwrap_or(e);
    }
    let kept = text[limit.min(e)..e].trim_end().len();
    limit.min(e) + kept
}

/// Escapes `text[start..end]`, highlighting the spans inside it, with `…`
/// at cut ends when `ellipsis`.
fn render(
    text: &str,
    start: usize,
    end: usize,
    spans: &[Span],
    opts: &HighlightOptions,
    ellipsis: bool,
) -> String {
    let mut out = String::with_capacity(end - start + 16);
    if ellipsis && !text[..start].trim().is_empty() {
        out.push_str(ELLIPSIS);
    }
    let mut at = start;
    let first = spans.partition_point(|s| s.end <= start);
    for span in spans[first..].iter().take_while(|s| s.start < end) {
        let (s, e) = (span.start.max(start), span.end.min(end));
        escape_html_into(&text[at..s], &mut out);
        out.push_str(&opts.pre_tag);
        escape_html_into(&text[s..e], &mut out);
        out.push_str(&opts.post_tag);
        at = e;
    }
    escape_html_into(&text[at..end], &mut out);
    if ellipsis && !text[end..].trim().is_empty() {
        out.push_str(ELLIPSIS);
    }
    out
}
