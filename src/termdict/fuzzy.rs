//! Levenshtein matching (`fuzzy~N`): the terms within N insertions,
//! deletions or substitutions of Unicode scalar values (no
//! transpositions), in byte order, as `fst`'s Levenshtein automaton
//! matched them, with two deliberate differences:
//! - the automaton missed terms with a char that shares its leading UTF-8
//!   bytes with a query char without being it (fst issue #38: `é~1` did not
//!   find `ß`); those are found;
//! - the automaton refused long queries (at distance 2 from about 30
//!   distinct chars on; the caller then fell back to an exact match); any
//!   length is matched.
//!
//! The terms are walked in order with one dynamic-programming row per char
//! of the current term; consecutive terms share the rows of their common
//! prefix. A row whose every cell exceeds N ends the walk below that
//! prefix: all terms starting with it are skipped (whole blocks at once).
//! Rows are banded: the distance between prefixes whose lengths differ by
//! more than N exceeds N, so a row keeps only its 2N+1 cells around the
//! diagonal and costs O(N) per char whatever the query's length.

use super::TermDict;

pub(super) fn search(
    dict: &TermDict,
    query: &str,
    distance: u8,
    limit: usize,
    steps: &mut u64,
) -> Vec<(String, u64)> {
    search_with(dict, query, distance, false, limit, steps)
        .into_iter()
        .map(|(t, o, _)| (t, o))
        .collect()
}

/// [`search`] with transpositions of adjacent chars counting as one edit
/// when `transpose` (optimal string alignment distance, "restricted
/// Damerau-Levenshtein": no substring is edited twice), returning each
/// match's distance too. With `transpose`, only terms whose first char is
/// the query's first or second char are matched (typos of the first
/// letter other than a swap with the second are not found: the price of a
/// walk over one or two first letters instead of the whole dictionary),
/// and the walk goes straight to those letters' terms ([`anchors`]): it
/// reaches, and counts steps for, the terms starting with them only, so a
/// reader holding just those terms walks exactly as one holding them all.
pub(super) fn search_with(
    dict: &TermDict,
    query: &str,
    distance: u8,
    transpose: bool,
    limit: usize,
    steps: &mut u64,
) -> Vec<(String, u64, u8)> {
    let mut out = Vec::new();
    if limit == 0 {
        return out;
    }
    let mut rows = Rows::new(query, distance);
    rows.transpose = transpose;
    if !transpose {
        walk(dict, &mut rows, None, limit, steps, &mut out);
        return out;
    }
    for anchor in anchors(query) {
        if out.len() == limit {
            break;
        }
        rows.truncate(0);
        walk(dict, &mut rows, Some(&anchor), limit, steps, &mut out);
    }
    out
}

/// The first letters a typo of `query` may start with (its first and
/// second chars), in byte order: where [`search_with`] walks when
/// transpositions count, so what a lazy reader fetches for it.
pub fn anchors(query: &str) -> Vec<String> {
    // Chars order as their UTF-8 bytes do (no generic sort in the wasm).
    let mut chars = query.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a != b => vec![a.min(b).into(), a.max(b).into()],
        (Some(a), _) => vec![a.into()],
        (None, _) => Vec::new(),
    }
}

/// Walks the terms starting with `within` (all when `None`) in order,
/// pushing the matches onto `out` up to `limit`.
fn walk(
    dict: &TermDict,
    rows: &mut Rows,
    within: Option<&str>,
    limit: usize,
    steps: &mut u64,
    out: &mut Vec<(String, u64, u8)>,
) {
    // ends[k]: byte length of the current term's first k chars (rows.depth()
    // == ends.len() - 1).
    let mut ends = vec![0usize];
    let mut terms = dict.iter();
    let mut next = match within {
        Some(prefix) => terms.seek(prefix.as_bytes()).then_some(0),
        None => terms.advance(),
    };
    while let Some(shared) = next {
        let term = terms.term();
        if within.is_some_and(|p| !term.starts_with(p.as_bytes())) {
            break;
        }
        // One step per term reached (a skip of a whole prefix is one): a
        // short query at distance 2 reaches most of the dictionary.
        if *steps == 0 {
            break;
        }
        *steps -= 1;
        while ends.len() > 1 && ends[ends.len() - 1] > shared {
            ends.pop();
        }
        rows.truncate(ends.len() - 1);
        let mut at = ends[ends.len() - 1];
        let mut alive = true;
        while alive && at < term.len() {
            let (c, len) = decode_char(&term[at..]);
            at += len;
            ends.push(at);
            alive = rows.push(c);
        }
        if !alive {
            terms.skip_prefix(at);
        } else if let Some(d) = rows.matches() {
            out.push((String::from_utf8_lossy(term).into_owned(), terms.ord(), d));
            if out.len() == limit {
                break;
            }
        }
        next = terms.advance();
    }
}

/// The banded DP rows of the current term's prefixes. Cell `t` of the row
/// for a k-char prefix holds min(N+1, distance to the query's first
/// `k + t - N` chars) (N+1 where that index is outside `0..=query length`).
struct Rows {
    query: Vec<char>,
    max: u8,
    width: usize,
    /// Chars of the prefix the last row describes.
    depth: usize,
    cells: Vec<u8>,
    /// Chars of the current prefix (for transpositions).
    chars: Vec<char>,
    transpose: bool,
}

impl Rows {
    fn new(query: &str, distance: u8) -> Rows {
        // Cells hold N+1, plus one during an update, in a u8; callers ask
        // for 1 or 2.
        let max = distance.min(253);
        let width = 2 * max as usize + 1;
        let query: Vec<char> = query.chars().collect();
        let cells = (0..width)
            .map(|t| match t.checked_sub(max as usize) {
                Some(j) if j <= query.len() => j as u8,
                _ => max + 1,
            })
            .collect();
        Rows {
            query,
            max,
            width,
            depth: 0,
            cells,
            chars: Vec::new(),
            transpose: false,
        }
    }

    /// Keeps the rows of the first `depth` chars.
    fn truncate(&mut self, depth: usize) {
        self.depth = depth;
        self.cells.truncate((depth + 1) * self.width);
        self.chars.truncate(depth);
    }

    /// Appends the row for one more char `c`; false if no extension of the
    /// prefix can come within the distance.
    fn push(&mut self, c: char) -> bool {
        let (w, max, inf) = (self.width, self.max as usize, self.max + 1);
        self.depth += 1;
        // Query index of cell t, plus N (kept unsigned): depth + t.
        let depth = self.depth;
        let start = self.cells.len();
        self.cells.resize(start + w, inf);
        let (old, new) = self.cells.split_at_mut(start);
        // The row two chars back, for a transposition of this char and the
        // previous one: its cell t has query index j - 2 (same t).
        let prev = self.chars.last().copied();
        let older = match prev {
            Some(_) if self.transpose => old.get(start - 2 * w..start - w),
            _ => None,
        };
        let old = &old[start - w..];
        let mut alive = false;
        let mut left = inf;
        for t in 0..w {
            let j = (depth + t).wrapping_sub(max);
            if depth + t >= max && j <= self.query.len() {
                // Deletion from the previous row's cell t+1, substitution
                // (or match) from its cell t, insertion from cell t-1.
                let mut v = old.get(t + 1).map_or(inf, |&d| d + 1).min(left + 1);
                if let Some(&q) = j.checked_sub(1).and_then(|i| self.query.get(i)) {
                    v = v.min(old[t] + u8::from(q != c));
                    // Transposition: term `.. p c` against query `.. c p`.
                    if let (Some(older), Some(p), Some(&q2)) = (
                        older,
                        prev,
                        j.checked_sub(2).and_then(|i| self.query.get(i)),
                    ) {
                        if q2 == c && q == p && q != c {
                            v = v.min(older[t] + 1);
                        }
                    }
                }
                left = v.min(inf);
                new[t] = left;
                alive |= left <= self.max;
            } else {
                left = inf;
            }
        }
        self.chars.push(c);
        alive
    }

    /// The distance of the prefix so far to the whole query, if within the
    /// maximum.
    fn matches(&self) -> Option<u8> {
        let t = (self.query.len() + self.max as usize).wrapping_sub(self.depth);
        if t >= self.width {
            return None;
        }
        let d = self.cells[self.cells.len() - self.width + t];
        (d <= self.max).then_some(d)
    }
}

/// The char at the start of `s` (valid UTF-8, checked at load) and its
/// length; never reads past `s`.
fn decode_char(s: &[u8]) -> (char, usize) {
    let b0 = s.first().copied().unwrap_or(0);
    let len = match b0 {
        0..=0x7f => return (char::from(b0), 1),
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    let mut c = u32::from(b0) & (0x7f >> len);
    for i in 1..len {
        c = c << 6 | u32::from(s.get(i).copied().unwrap_or(0) & 0x3f);
    }
    (
        char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER),
        len.min(s.len()),
    )
}
