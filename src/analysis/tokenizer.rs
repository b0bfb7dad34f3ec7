//! Segmentation: text -> compound groups and CJK runs, and groups -> parts.
//!
//! Three layers, each linear in the input:
//!
//! 1. [`for_each_segment`] yields UAX #29 word segments (via
//!    `unicode-segmentation`) classified as word, connector (`_ - . / \ @ :`)
//!    or CJK. Text is first cut at ASCII whitespace (no UAX #29 word spans
//!    whitespace); pure-ASCII pieces take a byte scanner that reproduces the
//!    UAX #29 rules for ASCII (checked against the library by a property
//!    test), everything else goes through the library.
//! 2. [`Grouper`] joins adjacent word and connector segments into compound
//!    groups (`src/lib/auth.ts`, `user@example.com`) that start and end with
//!    a word, and adjacent CJK segments into CJK runs.
//! 3. [`split_parts`] cuts a group into parts: runs of letters/digits (with
//!    combining marks and inner apostrophes), further split at camelCase
//!    boundaries (`getUserById` -> get|User|By|Id, `HTTPServer` ->
//!    HTTP|Server). Letter/digit transitions do not split (`base64`, `v1`).

use unicode_segmentation::UnicodeSegmentation;

use super::normalize::{is_combining_mark, is_ignorable};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SegKind {
    Word,
    Connector,
    Cjk,
}

/// Byte range of a segment of the analyzed text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Segment {
    pub start: usize,
    pub end: usize,
    pub kind: SegKind,
}

/// Characters that glue words into one compound token (`\` for Windows
/// paths and PHP namespaces, `::` for Rust/C++ paths).
#[inline]
fn is_connector(c: char) -> bool {
    matches!(c, '_' | '-' | '.' | '/' | '\\' | '@' | ':')
}

/// Han, Hiragana, Katakana and Hangul (incl. half-width Katakana, Jamo,
/// CJK compatibility ideographs and iteration marks).
#[inline]
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}'
        | '\u{3005}'..='\u{3007}'
        | '\u{3040}'..='\u{30FF}'
        | '\u{3130}'..='\u{318F}'
        | '\u{31F0}'..='\u{31FF}'
        | '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{A960}'..='\u{A97F}'
        | '\u{AC00}'..='\u{D7FF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{3134F}')
}

/// Calls `f` for every word, connector and CJK segment of `text`, in order.
/// Other segments (spaces, punctuation, emoji) are not reported; callers
/// detect breaks by non-contiguous byte ranges.
pub(crate) fn for_each_segment(text: &str, mut f: impl FnMut(Segment)) {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let mut end = i + 1;
        let mut ascii = bytes[i].is_ascii();
        while end < bytes.len() && !bytes[end].is_ascii_whitespace() {
            ascii &= bytes[end].is_ascii();
            end += 1;
        }
        // `end` is at an ASCII byte or the end, so a char boundary.
        if ascii {
            ascii_segments(&bytes[i..end], i, &mut f);
        } else {
            uax_segments(&text[i..end], i, &mut f);
        }
        i = end;
    }
}

#[inline]
fn ascii_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// UAX #29 for ASCII: letters, digits and `_` join (WB8-WB13b); `.` `:` `'`
/// join letter-letter (WB6/7); `.` `,` `;` `'` join digit-digit (WB11/12).
fn ascii_segments(bytes: &[u8], base: usize, f: &mut impl FnMut(Segment)) {
    let n = bytes.len();
    let mut i = 0;
    while i < n {
        let b = bytes[i];
        if ascii_word_byte(b) {
            let mut j = i + 1;
            let mut alnum = b != b'_';
            loop {
                if j < n && ascii_word_byte(bytes[j]) {
                    alnum |= bytes[j] != b'_';
                    j += 1;
                } else if j + 1 < n && ascii_mid_joins(bytes[j - 1], bytes[j], bytes[j + 1]) {
                    j += 2;
                } else {
                    break;
                }
            }
            let kind = if alnum {
                SegKind::Word
            } else {
                SegKind::Connector
            };
            f(Segment {
                start: base + i,
                end: base + j,
                kind,
            });
            i = j;
        } else {
            if is_connector(b as char) {
                f(Segment {
                    start: base + i,
                    end: base + i + 1,
                    kind: SegKind::Connector,
                });
            }
            i += 1;
        }
    }
}

#[inline]
fn ascii_mid_joins(prev: u8, mid: u8, next: u8) -> bool {
    (prev.is_ascii_alphabetic() && next.is_ascii_alphabetic() && matches!(mid, b'.' | b':' | b'\''))
        || (prev.is_ascii_digit()
            && next.is_ascii_digit()
            && matches!(mid, b'.' | b',' | b';' | b'\''))
}

fn uax_segments(chunk: &str, base: usize, f: &mut impl FnMut(Segment)) {
    for (off, seg) in chunk.split_word_bound_indices() {
        let start = base + off;
        if seg.chars().any(char::is_alphanumeric) {
            if !seg.chars().any(is_cjk) {
                f(Segment {
                    start,
                    end: start + seg.len(),
                    kind: SegKind::Word,
                });
                continue;
            }
            // Mixed segment (e.g. Hangul followed by digits): split into
            // CJK and non-CJK runs; combining marks stay with their base.
            let mut run_start = 0;
            let mut run_cjk = None;
            for (k, c) in seg.char_indices() {
                let cjk = if is_combining_mark(c) || is_ignorable(c) {
                    run_cjk.unwrap_or(false)
                } else {
                    is_cjk(c)
                };
                if run_cjk != Some(cjk) {
                    if let Some(prev) = run_cjk {
                        emit_run(&seg[run_start..k], start + run_start, prev, f);
                    }
                    run_start = k;
                    run_cjk = Some(cjk);
                }
            }
            if let Some(prev) = run_cjk {
                emit_run(&seg[run_start..], start + run_start, prev, f);
            }
        } else if seg.chars().all(is_connector) {
            f(Segment {
                start,
                end: start + seg.len(),
                kind: SegKind::Connector,
            });
        }
    }
}

fn emit_run(run: &str, start: usize, cjk: bool, f: &mut impl FnMut(Segment)) {
    let kind = if cjk {
        SegKind::Cjk
    } else if run.chars().any(char::is_alphanumeric) {
        SegKind::Word
    } else {
        return;
    };
    f(Segment {
        start,
        end: start + run.len(),
        kind,
    });
}

/// A unit the analyzer turns into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Words joined by connectors; `start..end` begins and ends with a word.
    Group { start: usize, end: usize },
    /// Adjacent CJK characters.
    Cjk { start: usize, end: usize },
}

/// Folds the segment stream into [`Unit`]s (see the module docs).
#[derive(Default)]
pub(crate) struct Grouper {
    /// Open group: (start, end of its last word, end of trailing connectors).
    group: Option<(usize, usize, usize)>,
    cjk: Option<(usize, usize)>,
}

impl Grouper {
    pub(crate) fn push(&mut self, seg: Segment, emit: &mut impl FnMut(Unit)) {
        match seg.kind {
            SegKind::Word => {
                self.flush_cjk(emit);
                match &mut self.group {
                    Some((_, word_end, end)) if *end == seg.start => {
                        *word_end = seg.end;
                        *end = seg.end;
                    }
                    _ => {
                        self.flush_group(emit);
                        self.group = Some((seg.start, seg.end, seg.end));
                    }
                }
            }
            SegKind::Connector => match &mut self.group {
                Some((_, _, end)) if *end == seg.start => *end = seg.end,
                _ => self.flush_group(emit),
            },
            SegKind::Cjk => {
                self.flush_group(emit);
                match &mut self.cjk {
                    Some((_, end)) if *end == seg.start => *end = seg.end,
                    _ => {
                        self.flush_cjk(emit);
                        self.cjk = Some((seg.start, seg.end));
                    }
                }
            }
        }
    }

    pub(crate) fn finish(&mut self, emit: &mut impl FnMut(Unit)) {
        self.flush_group(emit);
        self.flush_cjk(emit);
    }

    fn flush_group(&mut self, emit: &mut impl FnMut(Unit)) {
        if let Some((start, word_end, _)) = self.group.take() {
            emit(Unit::Group {
                start,
                end: word_end,
            });
        }
    }

    fn flush_cjk(&mut self, emit: &mut impl FnMut(Unit)) {
        if let Some((start, end)) = self.cjk.take() {
            emit(Unit::Cjk { start, end });
        }
    }
}

/// One part of a group. Byte offsets are relative to the group text,
/// UTF-16 offsets relative to the group start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Part {
    pub start: usize,
    pub end: usize,
    pub start16: u32,
    pub end16: u32,
    /// Characters in the part (for the length limit).
    pub chars: usize,
    pub has_digit: bool,
    /// Byte offset (relative to the group) of the first inner apostrophe.
    pub apostrophe: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Lower,
    Upper,
    Digit,
    Other,
}

#[inline]
fn class_of(c: char) -> Class {
    if c.is_ascii() {
        return match c {
            'a'..='z' => Class::Lower,
            'A'..='Z' => Class::Upper,
            '0'..='9' => Class::Digit,
            _ => Class::Other,
        };
    }
    if c.is_lowercase() {
        Class::Lower
    } else if c.is_uppercase() {
        Class::Upper
    } else if c.is_numeric() {
        Class::Digit
    } else {
        Class::Other
    }
}

#[inline]
fn is_apostrophe(c: char) -> bool {
    c == '\'' || c == '\u{2019}'
}

/// Splits `group` into parts, calling `emit` for each in order. Streams, so
/// a 10 MB group never materializes millions of parts at once.
pub(crate) fn split_parts(group: &str, emit: impl FnMut(Part)) {
    if group.is_ascii() {
        split_parts_ascii(group.as_bytes(), emit);
    } else {
        split_parts_chars(group, emit);
    }
}

/// [`split_parts_chars`] for ASCII groups, on bytes (code is mostly ASCII).
/// A property test checks both agree on ASCII input.
fn split_parts_ascii(g: &[u8], mut emit: impl FnMut(Part)) {
    let class = |b: u8| match b {
        b'a'..=b'z' => Class::Lower,
        b'A'..=b'Z' => Class::Upper,
        b'0'..=b'9' => Class::Digit,
        _ => Class::Other,
    };
    let new_part = |i: usize| Part {
        start: i,
        end: i,
        start16: i as u32,
        end16: i as u32,
        ..Part::default()
    };
    let mut cur: Option<Part> = None;
    let mut prev = Class::Other;
    let mut upper_run = 0usize;
    let mut upper_run_at_start = false;
    for (i, &b) in g.iter().enumerate() {
        let next = g.get(i + 1).copied();
        if b.is_ascii_alphanumeric() {
            let c = class(b);
            let camel_break = match (prev, c) {
                (Class::Lower | Class::Digit, Class::Upper) => true,
                (Class::Upper, Class::Upper) => {
                    next.is_some_and(|n| n.is_ascii_lowercase())
                        && !(upper_run == 1 && upper_run_at_start)
                        && (next != Some(b's')
                            || g.get(i + 2).is_some_and(u8::is_ascii_alphanumeric))
                }
                _ => false,
            };
            if camel_break {
                if let Some(p) = cur.take() {
                    emit(p);
                }
            }
            let part = cur.get_or_insert_with(|| new_part(i));
            if c == Class::Upper {
                if prev == Class::Upper {
                    upper_run += 1;
                } else {
                    upper_run = 1;
                    upper_run_at_start = part.start == i;
                }
            } else {
                upper_run = 0;
            }
            part.has_digit |= c == Class::Digit;
            part.end = i + 1;
            part.end16 = i as u32 + 1;
            part.chars += 1;
            prev = c;
        } else if b == b'\'' && next.is_some_and(|n| n.is_ascii_alphanumeric()) && cur.is_some() {
            let part = cur.as_mut().expect("checked is_some");
            part.apostrophe.get_or_insert(i);
            part.end = i + 1;
            part.end16 = i as u32 + 1;
            part.chars += 1;
            prev = Class::Other;
            upper_run = 0;
        } else {
            if let Some(p) = cur.take() {
                emit(p);
            }
            prev = Class::Other;
            upper_run = 0;
        }
    }
    if let Some(p) = cur.take() {
        emit(p);
    }
}

fn split_parts_chars(group: &str, mut emit: impl FnMut(Part)) {
    let mut cur: Option<Part> = None;
    let mut prev = Class::Other;
    // Length of the current uppercase run, and whether it began the part.
    let mut upper_run = 0usize;
    let mut upper_run_at_start = false;
    let mut u16 = 0u32;
    let mut iter = group.char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        let w = c.len_utf16() as u32;
        let next = iter.peek().map(|&(_, n)| n);
        if c.is_alphanumeric() {
            let class = class_of(c);
            let camel_break = match (prev, class) {
                (Class::Lower | Class::Digit, Class::Upper) => true,
                // `HTTPServer`: break before the last capital of a run
                // followed by a lowercase letter, but not for `OAuth`.
                // Plural acronyms (`URLs`) stay whole.
                (Class::Upper, Class::Upper) => {
                    next.is_some_and(|n| class_of(n) == Class::Lower)
                        && !(upper_run == 1 && upper_run_at_start)
                        && !(next == Some('s') && {
                            let mut look = iter.clone();
                            look.next();
                            !look.peek().is_some_and(|&(_, n)| n.is_alphanumeric())
                        })
                }
                _ => false,
            };
            if camel_break {
                if let Some(p) = cur.take() {
                    emit(p);
                }
            }
            let part = cur.get_or_insert(Part {
                start: i,
                end: i,
                start16: u16,
                end16: u16,
                ..Part::default()
            });
            if class == Class::Upper {
                if prev == Class::Upper {
                    upper_run += 1;
                } else {
                    upper_run = 1;
                    upper_run_at_start = part.start == i;
                }
            } else {
                upper_run = 0;
            }
            part.has_digit |= class == Class::Digit;
            part.end = i + c.len_utf8();
            part.end16 = u16 + w;
            part.chars += 1;
            prev = class;
        } else if cur.is_some()
            && (is_combining_mark(c)
                || is_ignorable(c)
                || (is_apostrophe(c) && next.is_some_and(char::is_alphanumeric)))
        {
            let part = cur.as_mut().expect("checked is_some");
            if is_apostrophe(c) {
                part.apostrophe.get_or_insert(i);
                // `O'Reilly` is one word, not a camelCase boundary.
                prev = Class::Other;
                upper_run = 0;
            }
            part.end = i + c.len_utf8();
            part.end16 = u16 + w;
            part.chars += 1;
        } else {
            if let Some(p) = cur.take() {
                emit(p);
            }
            prev = Class::Other;
            upper_run = 0;
        }
        u16 += w;
    }
    if let Some(p) = cur.take() {
        emit(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(text: &str) -> Vec<(&str, bool)> {
        let mut out = Vec::new();
        let mut g = Grouper::default();
        let mut emit = |u: Unit| match u {
            Unit::Group { start, end } => out.push((&text[start..end], false)),
            Unit::Cjk { start, end } => out.push((&text[start..end], true)),
        };
        for_each_segment(text, |s| g.push(s, &mut emit));
        g.finish(&mut emit);
        out
    }

    fn parts(group: &str) -> Vec<&str> {
        let mut v = Vec::new();
        split_parts(group, |p| v.push(p));
        v.iter().map(|p| &group[p.start..p.end]).collect()
    }

    #[test]
    fn groups() {
        assert_eq!(
            units("see https://host/path, mail user@example.com. kebab-case!"),
            vec![
                ("see", false),
                ("https://host/path", false),
                ("mail", false),
                ("user@example.com", false),
                ("kebab-case", false)
            ]
        );
        assert_eq!(units("東京都へ行く"), vec![("東京都へ行く", true)]);
        assert_eq!(
            units("서울2020 café"),
            vec![("서울", true), ("2020", false), ("café", false)]
        );
    }

    #[test]
    fn camel_parts() {
        assert_eq!(parts("getUserById"), ["get", "User", "By", "Id"]);
        assert_eq!(parts("HTTPServer"), ["HTTP", "Server"]);
        assert_eq!(parts("OAuth2Client"), ["OAuth2", "Client"]);
        assert_eq!(parts("snake_case_name"), ["snake", "case", "name"]);
        assert_eq!(parts("v1.2.3"), ["v1", "2", "3"]);
        assert_eq!(parts("O'Reilly's"), ["O'Reilly's"]);
        assert_eq!(parts("base64Encode"), ["base64", "Encode"]);
        assert_eq!(parts("parseURLs"), ["parse", "URLs"]);
        assert_eq!(parts("URLSession"), ["URL", "Session"]);
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod props {
    use super::*;
    use proptest::prelude::*;

    fn collect(f: impl FnOnce(&mut dyn FnMut(Segment))) -> Vec<Segment> {
        let mut v = Vec::new();
        f(&mut |s| v.push(s));
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The ASCII part splitter agrees with the general one.
        #[test]
        fn ascii_split_matches_chars(text in "([a-zA-Z0-9_.'/ -]|HTTP|URLs|Id|s){0,16}") {
            let mut fast = Vec::new();
            split_parts_ascii(text.as_bytes(), |p| fast.push(p));
            let mut slow = Vec::new();
            split_parts_chars(&text, |p| slow.push(p));
            prop_assert_eq!(fast, slow);
        }

        /// The ASCII byte scanner agrees with unicode-segmentation.
        #[test]
        fn ascii_fast_path_matches_uax(text in "[a-zA-Z0-9_.,;:'@/\\\\\\-!?# ]{0,24}") {
            let fast = collect(|f| ascii_segments(text.as_bytes(), 0, &mut |s| f(s)));
            let uax = collect(|f| uax_segments(&text, 0, &mut |s| f(s)));
            prop_assert_eq!(fast, uax);
        }
    }
}
