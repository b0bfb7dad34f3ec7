//! Reading a [`TermDict`]: validation at load, exact lookup, ordered
//! cursors and the ordered union of several dictionaries (merges).
//!
//! Everything after [`validate`] relies on its checks for correct answers,
//! but still reads through `get`, so that even a broken invariant could
//! not panic or read out of bounds.

use super::{common_prefix, TermDict, FOOTER_LEN};
use crate::codec::varint;

impl TermDict {
    fn n_blocks(&self) -> u32 {
        self.n_terms.div_ceil(self.block_len)
    }

    fn region(&self) -> &[u8] {
        self.bytes.get(..self.index_start).unwrap_or_default()
    }

    fn block_offset(&self, block: u32) -> usize {
        let at = self.index_start + 4 * block as usize;
        self.bytes
            .get(at..at + 4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    /// First term of `block` (stored whole).
    fn head(&self, block: u32) -> &[u8] {
        let region = self.region();
        let mut pos = self.block_offset(block);
        let len = varint::read_u32(region, &mut pos) as usize;
        slice(region, pos, len)
    }

    /// The last block whose head is at most `target`.
    fn block_at_or_before(&self, target: &[u8]) -> Option<u32> {
        let (mut lo, mut hi) = (0, self.n_blocks());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.head(mid) <= target {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo.checked_sub(1)
    }

    /// Ordinal of `target`: one block scanned without rebuilding terms. With
    /// `m` = the common prefix of `target` and the last term passed (which
    /// sorts before it), an entry sharing more than `m` bytes with that term
    /// also sorts before `target`, one sharing fewer sorts after it, and only
    /// an entry sharing exactly `m` needs its suffix compared.
    pub(super) fn find(&self, target: &[u8]) -> Option<u32> {
        let block = self.block_at_or_before(target)?;
        let region = self.region();
        let mut pos = self.block_offset(block);
        let len = varint::read_u32(region, &mut pos) as usize;
        let head = slice(region, pos, len);
        pos += len;
        let first = block * self.block_len;
        let mut m = common_prefix(head, target);
        if m == head.len() && m == target.len() {
            return Some(first);
        }
        let end = self.n_terms.min(first.saturating_add(self.block_len));
        for ord in first + 1..end {
            let shared = varint::read_u32(region, &mut pos) as usize;
            let len = varint::read_u32(region, &mut pos) as usize;
            let suffix = slice(region, pos, len);
            pos += len;
            if shared > m {
                continue;
            }
            if shared < m {
                return None;
            }
            let rest = target.get(m..).unwrap_or_default();
            let l = common_prefix(suffix, rest);
            match (suffix.get(l), rest.get(l)) {
                (None, None) => return Some(ord),
                (None, Some(_)) => m += l,
                (Some(a), Some(b)) if a < b => m += l,
                _ => return None,
            }
        }
        None
    }
}

/// `len` bytes at `pos`, or nothing if out of range (only after a broken
/// invariant).
fn slice(buf: &[u8], pos: usize, len: usize) -> &[u8] {
    pos.checked_add(len)
        .and_then(|end| buf.get(pos..end))
        .unwrap_or_default()
}

/// A varint that must end within `buf` and fit a u32.
fn read_varint(buf: &[u8], pos: &mut usize) -> Result<usize, &'static str> {
    let mut value = 0u64;
    for i in 0..5 {
        let b = *buf.get(*pos).ok_or("truncated term entry")?;
        *pos += 1;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return u32::try_from(value)
                .map(|v| v as usize)
                .map_err(|_| "oversized varint");
        }
    }
    Err("oversized varint")
}

/// Checks the whole structure of `bytes`: footer, block index, every entry
/// inside the terms region, block offsets matching where blocks begin,
/// strictly increasing terms whose shared-prefix lengths are exact (the
/// lookup scan relies on it), UTF-8 terms.
pub(super) fn validate(bytes: Vec<u8>) -> Result<TermDict, &'static str> {
    let footer = bytes
        .len()
        .checked_sub(FOOTER_LEN)
        .ok_or("term dictionary is truncated")?;
    let n_terms = u32::from_le_bytes([
        bytes[footer],
        bytes[footer + 1],
        bytes[footer + 2],
        bytes[footer + 3],
    ]);
    let block_len = u32::from(bytes[footer + 4]);
    if block_len == 0 {
        return Err("term dictionary block length is 0");
    }
    let index_start = (n_terms.div_ceil(block_len) as usize)
        .checked_mul(4)
        .and_then(|n| footer.checked_sub(n))
        .ok_or("term dictionary block index is truncated")?;
    let dict = TermDict {
        bytes,
        n_terms,
        block_len,
        index_start,
    };
    let region = dict.region();
    let mut term: Vec<u8> = Vec::new();
    let mut pos = 0;
    for ord in 0..n_terms {
        if ord % block_len == 0 {
            if dict.block_offset(ord / block_len) != pos {
                return Err("term dictionary block offset does not match its block");
            }
            let len = read_varint(region, &mut pos)?;
            let head = region
                .get(pos..)
                .and_then(|r| r.get(..len))
                .ok_or("truncated term entry")?;
            if ord > 0 && head <= term.as_slice() {
                return Err("terms are not strictly increasing");
            }
            term.clear();
            term.extend_from_slice(head);
            pos += len;
            if !is_utf8(&term) {
                return Err("term is not UTF-8");
            }
        } else {
            let shared = read_varint(region, &mut pos)?;
            let len = read_varint(region, &mut pos)?;
            let suffix = region
                .get(pos..)
                .and_then(|r| r.get(..len))
                .ok_or("truncated term entry")?;
            // Greater than the previous term, and `shared` is exactly the
            // common prefix.
            let in_order = match (term.get(shared), suffix.first()) {
                (_, None) => false,
                (Some(prev), Some(next)) => next > prev,
                (None, Some(_)) => shared == term.len(),
            };
            if !in_order {
                return Err("terms are not strictly increasing");
            }
            // The previous term is valid UTF-8 up to its last char boundary
            // at or before `shared`: check from there on.
            let mut start = shared;
            while start > 0 && term.get(start).is_some_and(|&b| b & 0xc0 == 0x80) {
                start -= 1;
            }
            term.truncate(shared);
            term.extend_from_slice(suffix);
            pos += len;
            if !is_utf8(term.get(start..).unwrap_or_default()) {
                return Err("term is not UTF-8");
            }
        }
    }
    if pos != region.len() {
        return Err("trailing bytes after the last term");
    }
    Ok(dict)
}

/// UTF-8 validity; ASCII (most terms) in a byte loop, since std's validator
/// costs ~70 instructions per call on strings this short.
fn is_utf8(s: &[u8]) -> bool {
    match s.iter().position(|&b| b >= 0x80) {
        None => true,
        Some(i) => std::str::from_utf8(&s[i..]).is_ok(),
    }
}

/// A cursor over the terms in order. [`Terms::advance`] moves to the next
/// term; [`Terms::term`] and [`Terms::ord`] describe the current one.
pub struct Terms<'a> {
    dict: &'a TermDict,
    /// Offset of the next entry in the terms region.
    pos: usize,
    /// Ordinal of the next entry.
    next: u32,
    term: Vec<u8>,
}

impl<'a> Terms<'a> {
    pub(super) fn new(dict: &'a TermDict) -> Terms<'a> {
        Terms {
            dict,
            pos: 0,
            next: 0,
            term: Vec::new(),
        }
    }

    /// Moves to the next term; returns how many leading bytes it shares
    /// with the previous one, or `None` at the end.
    pub fn advance(&mut self) -> Option<usize> {
        let dict = self.dict;
        if self.next >= dict.n_terms {
            return None;
        }
        let region = dict.region();
        let shared = if self.next % dict.block_len == 0 {
            let len = varint::read_u32(region, &mut self.pos) as usize;
            let head = slice(region, self.pos, len);
            self.pos += len;
            let shared = common_prefix(&self.term, head);
            self.term.truncate(shared);
            self.term.extend_from_slice(&head[shared..]);
            shared
        } else {
            let shared = varint::read_u32(region, &mut self.pos) as usize;
            let len = varint::read_u32(region, &mut self.pos) as usize;
            self.term.truncate(shared);
            self.term.extend_from_slice(slice(region, self.pos, len));
            self.pos += len;
            shared
        };
        self.next += 1;
        Some(shared)
    }

    /// The current term (empty before the first [`Terms::advance`]).
    pub fn term(&self) -> &[u8] {
        &self.term
    }

    /// Ordinal of the current term.
    pub fn ord(&self) -> u64 {
        u64::from(self.next.saturating_sub(1))
    }

    /// Makes the first term not less than `target` the current one; false
    /// if there is none.
    pub(super) fn seek(&mut self, target: &[u8]) -> bool {
        let block = self.dict.block_at_or_before(target).unwrap_or(0);
        self.jump(block);
        self.term.clear();
        while self.advance().is_some() {
            if self.term.as_slice() >= target {
                return true;
            }
        }
        false
    }

    /// Makes the term of ordinal `ord` the current one.
    pub(super) fn seek_ord(&mut self, ord: u32) -> Option<()> {
        if ord >= self.dict.n_terms {
            return None;
        }
        self.jump(ord / self.dict.block_len);
        self.term.clear();
        while self.next <= ord {
            self.advance()?;
        }
        Some(())
    }

    fn jump(&mut self, block: u32) {
        self.pos = self.dict.block_offset(block);
        self.next = block * self.dict.block_len;
    }

    /// Skips every following term that starts with the current term's first
    /// `len` bytes: whole blocks by a galloping search over block heads, then
    /// entry by entry while they share at least `len` bytes. The current
    /// term is cut to those bytes (all that the next entry can share).
    pub(super) fn skip_prefix(&mut self, len: usize) {
        self.term.truncate(len);
        let dict = self.dict;
        let block_len = dict.block_len;
        let first_head = self.next.div_ceil(block_len);
        if let Some(block) = last_block_with_prefix(dict, first_head, &self.term) {
            // Sorted between two terms with the prefix: every term before
            // this head has it too. Pass the head as well.
            self.jump(block);
            let region = dict.region();
            let head_len = varint::read_u32(region, &mut self.pos) as usize;
            self.pos += head_len;
            self.next += 1;
        }
        let region = dict.region();
        while self.next < dict.n_terms && self.next % block_len != 0 {
            let mut pos = self.pos;
            if (varint::read_u32(region, &mut pos) as usize) < len {
                return;
            }
            let suffix_len = varint::read_u32(region, &mut pos) as usize;
            self.pos = pos + suffix_len;
            self.next += 1;
        }
    }
}

/// The last block from `from` on whose head starts with `prefix` (they form
/// a run starting at `from`, if any).
fn last_block_with_prefix(dict: &TermDict, from: u32, prefix: &[u8]) -> Option<u32> {
    let n = dict.n_blocks();
    if from >= n || !dict.head(from).starts_with(prefix) {
        return None;
    }
    let (mut lo, mut step) = (from, 1u32);
    let mut hi = loop {
        let probe = lo.saturating_add(step);
        if probe >= n || !dict.head(probe).starts_with(prefix) {
            break probe.min(n);
        }
        lo = probe;
        step = step.saturating_mul(2);
    };
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if dict.head(mid).starts_with(prefix) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(lo)
}

/// The ordered union of several dictionaries: each distinct term once, with
/// the dictionaries holding it.
pub struct Union<'a> {
    cursors: Vec<Terms<'a>>,
    live: Vec<bool>,
    hits: Vec<UnionHit>,
}

/// A dictionary of a [`Union`] holding its current term.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnionHit {
    /// Position of the dictionary in [`Union::new`]'s list.
    pub dict: usize,
    pub ordinal: u64,
}

impl<'a> Union<'a> {
    pub fn new(dicts: &[&'a TermDict]) -> Union<'a> {
        let mut cursors: Vec<Terms<'a>> = dicts.iter().map(|d| d.iter()).collect();
        let live = cursors.iter_mut().map(|c| c.advance().is_some()).collect();
        Union {
            cursors,
            live,
            hits: Vec::new(),
        }
    }

    /// The next term and, in dictionary order, the dictionaries holding it.
    pub fn next_term(&mut self) -> Option<(&[u8], &[UnionHit])> {
        for hit in &self.hits {
            self.live[hit.dict] = self.cursors[hit.dict].advance().is_some();
        }
        self.hits.clear();
        let mut min: Option<usize> = None;
        for (i, cursor) in self.cursors.iter().enumerate() {
            if self.live[i] && min.is_none_or(|m| cursor.term() < self.cursors[m].term()) {
                min = Some(i);
            }
        }
        let first = min?;
        let term = self.cursors[first].term();
        for (i, cursor) in self.cursors.iter().enumerate().skip(first) {
            if self.live[i] && cursor.term() == term {
                self.hits.push(UnionHit {
                    dict: i,
                    ordinal: cursor.ord(),
                });
            }
        }
        Some((term, &self.hits))
    }
}
