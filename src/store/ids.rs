//! A doc store's external ids, and how a segment stores them.
//!
//! In memory: one buffer and the end of each id (a million ids are two
//! allocations instead of a million `String`s), or, in a lazily opened
//! segment, the stored blocks kept packed and unpacked one at a time when
//! an id of theirs is read: opening does not unpack a million ids, and a
//! search reads the ids of its hits only.
//!
//! Stored (format 7, docs/FORMAT.md "Segment"): blocks of [`IDS_PER_BLOCK`]
//! ids (the last may hold fewer), each a raw deflate stream of `short` ids
//! compressed after a preset dictionary (ids sampled over the segment, in
//! the head): small blocks pack as well as one stream would. The head lists
//! each block's unpacked and packed length. Format 6 stored one stream of
//! all the ids: one block, no dictionary.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use super::id_order::IdOrder;
use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::Result;

/// Ids per stored block: ~5 KiB unpacked for ids of ~20 bytes. Ties rank
/// by id, so a lazy search reads the ids of many candidates: a block is
/// what one such read unpacks.
pub const IDS_PER_BLOCK: u32 = 256;

/// The ids are a small part of the store, packed once: level 9.
const LEVEL: u8 = 9;

// A segment's dictionary of sampled ids is at most deflate's window (100k
// `packages` ids in blocks of 256: 1,055,632 bytes without one, 894,914
// with, 887,202 as one stream).
use super::deflate::{DICT_BYTES, MAX_EXPANSION};

/// Packs a block after the segment's dictionary.
fn pack(raw: &[u8], dict: &[u8]) -> Vec<u8> {
    super::deflate::pack(raw, dict, LEVEL)
}

/// Unpacks a block into exactly `raw_len` bytes.
fn unpack(packed: &[u8], dict: &[u8], raw_len: usize) -> std::result::Result<Vec<u8>, ()> {
    match super::deflate::unpack(packed, dict, raw_len) {
        Ok(raw) if raw.len() == raw_len => Ok(raw),
        _ => Err(()),
    }
}

/// Ids by local doc id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ids(Repr);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Repr {
    Plain(Plain),
    Packed(Packed),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Plain {
    text: String,
    /// End of each id in `text`.
    ends: Vec<u32>,
}

/// Stored blocks, unpacked when read.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Packed {
    bytes: Vec<u8>,
    dir: IdsDir,
    /// Start of each block in `bytes`, then its length.
    starts: Vec<usize>,
    n: usize,
    unpacked: Vec<OnceLock<Plain>>,
    /// Per block: read since the last release (kept by the next one).
    used: Vec<Used>,
    /// `hash32(id) << 32 | doc`, sorted: built by the first lookup by id
    /// (one pass over the blocks), so lookups are a binary search and one
    /// block, not a scan (expansion and diversity look up ids per edge and
    /// per hit). 8 bytes per id.
    by_hash: OnceLock<Vec<u64>>,
    /// The ranks of the ids (format 10): ties compare them, not ids.
    order: Option<IdOrder>,
}

/// A block's "read since the last release" mark (not part of the ids'
/// value: clones start marked, equality ignores it).
#[derive(Debug, Default)]
struct Used(AtomicBool);

impl Clone for Used {
    fn clone(&self) -> Used {
        Used(AtomicBool::new(self.0.load(Ordering::Relaxed)))
    }
}

impl PartialEq for Used {
    fn eq(&self, _: &Used) -> bool {
        true
    }
}

impl Eq for Used {}

/// Where a segment's stored ids are: ids per block, and per block its
/// unpacked and packed length.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct IdsDir {
    pub per_block: u32,
    pub blocks: Vec<(u32, u32)>,
    /// The preset dictionary every block was compressed after (may be empty).
    pub dict: Vec<u8>,
    /// Bytes of the id order after the blocks (format 10; 0 before).
    pub order_len: usize,
}

impl IdsDir {
    /// Packed bytes of all the blocks.
    pub fn packed_len(&self) -> usize {
        self.blocks.iter().map(|b| b.1 as usize).sum()
    }

    /// Bytes of the ids' unit: the blocks, then the id order.
    pub fn unit_len(&self) -> usize {
        self.packed_len() + self.order_len
    }

    /// Reads a format 7 directory (`varint per_block`, `varint n_blocks`,
    /// per block `varint raw_len`, `varint packed_len`) for `n_docs` ids;
    /// from format 10 the blocks are followed by the ids' order.
    pub fn read(r: &mut ByteReader<'_>, n_docs: u32, version: u32) -> Result<IdsDir> {
        let per_block = r.varint()?;
        let n_blocks = r.varint()? as usize;
        if n_blocks > r.remaining() / 2 {
            return Err(r.corrupt("id block count exceeds the segment head"));
        }
        let blocks = (0..n_blocks)
            .map(|_| Ok((r.varint()?, r.varint()?)))
            .collect::<Result<Vec<_>>>()?;
        let dict = r.short_bytes()?.to_vec();
        if dict.len() > DICT_BYTES {
            return Err(r.corrupt("the ids' dictionary exceeds deflate's window"));
        }
        let dir = IdsDir {
            per_block,
            blocks,
            dict,
            order_len: match version {
                ..10 => 0,
                _ => IdOrder::byte_len(n_docs),
            },
        };
        dir.check(r, n_docs)?;
        Ok(dir)
    }

    /// A format 6 directory: all the ids in one block.
    pub fn whole(r: &mut ByteReader<'_>, n_docs: u32) -> Result<IdsDir> {
        let (raw, packed) = (r.varint()?, r.varint()?);
        let dir = IdsDir {
            per_block: n_docs.max(1),
            blocks: vec![(raw, packed)],
            dict: Vec::new(),
            order_len: 0,
        };
        dir.check(r, n_docs)?;
        Ok(dir)
    }

    pub fn write(&self, w: &mut ByteWriter) {
        w.varint(self.per_block);
        w.varint(self.blocks.len() as u32);
        for &(raw, packed) in &self.blocks {
            w.varint(raw);
            w.varint(packed);
        }
        w.short_bytes(&self.dict);
    }

    /// Blocks that hold `n_docs` ids, each no more than deflate expands to.
    fn check(&self, r: &ByteReader<'_>, n_docs: u32) -> Result<()> {
        let want = n_docs.div_ceil(self.per_block.max(1)).max(1) as usize;
        let bounded = self
            .blocks
            .iter()
            .all(|&(raw, packed)| u64::from(raw) <= u64::from(packed) * MAX_EXPANSION);
        if self.per_block == 0 || self.blocks.len() != want || !bounded {
            return Err(r.corrupt("the doc store's id blocks do not hold its documents"));
        }
        Ok(())
    }

    /// Ids in block `b` of a store of `n` ids.
    fn n_in(&self, b: usize, n: usize) -> usize {
        let first = b * self.per_block as usize;
        (n - first.min(n)).min(self.per_block as usize)
    }
}

impl Default for Ids {
    fn default() -> Ids {
        Ids(Repr::Plain(Plain::default()))
    }
}

impl Ids {
    pub fn with_capacity(n: usize) -> Ids {
        Ids(Repr::Plain(Plain {
            text: String::new(),
            ends: Vec::with_capacity(n),
        }))
    }

    /// Ids whose bytes are `text` and ends `ends` (increasing, the last at
    /// its length), if every one of them is UTF-8.
    pub fn from_parts(text: Vec<u8>, ends: Vec<u32>) -> Option<Ids> {
        Plain::from_parts(text, ends).map(|p| Ids(Repr::Plain(p)))
    }

    /// `n_docs` ids stored as `bytes` (the blocks of `dir`, checked by the
    /// caller's blob checksum), unpacked block by block when read. `None`
    /// when the blocks do not add up to `bytes`.
    pub fn packed(bytes: Vec<u8>, dir: IdsDir, n_docs: u32) -> Option<Ids> {
        let mut starts = vec![0];
        for &(_, packed) in &dir.blocks {
            starts.push(starts[starts.len() - 1] + packed as usize);
        }
        if starts.last() != Some(&bytes.len()) {
            return None;
        }
        let unpacked = dir.blocks.iter().map(|_| OnceLock::new()).collect();
        let used = dir.blocks.iter().map(|_| Used::default()).collect();
        Some(Ids(Repr::Packed(Packed {
            bytes,
            dir,
            starts,
            n: n_docs as usize,
            unpacked,
            used,
            by_hash: OnceLock::new(),
            order: None,
        })))
    }

    /// These packed ids with their order (read from the segment).
    pub fn with_order(mut self, order: IdOrder) -> Ids {
        if let Repr::Packed(p) = &mut self.0 {
            p.order = Some(order);
        }
        self
    }

    /// Rank of id `i` in the segment's byte order (packed ids stored with
    /// their order): ranks compare as ids, no block unpacked.
    #[inline]
    pub fn rank(&self, i: usize) -> Option<u32> {
        match &self.0 {
            Repr::Packed(Packed { order: Some(o), .. }) => Some(o.rank(i as u32)),
            _ => None,
        }
    }

    pub fn push(&mut self, id: &str) {
        if let Repr::Packed(p) = &self.0 {
            // Never for a lazily opened segment (read-only); unpacked whole if it were.
            self.0 = Repr::Plain(p.all().unwrap_or_default());
        }
        if let Repr::Plain(p) = &mut self.0 {
            p.text.push_str(id);
            // A segment's ids stay far below 4 GiB (its blobs are smaller).
            p.ends.push(p.text.len() as u32);
        }
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        match &self.0 {
            Repr::Plain(p) => p.get(i),
            Repr::Packed(p) => {
                let per = p.dir.per_block as usize;
                p.block(i / per)?.get(i % per)
            }
        }
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Plain(p) => p.ends.len(),
            Repr::Packed(p) => p.n,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i).unwrap_or(""))
    }

    /// The local doc id of `id` (a lazy index has no id map): in plain ids
    /// by a scan (~1 ms per 100k ids natively), in packed ones through
    /// their hash index (built by the first lookup), then its block.
    pub fn position(&self, id: &str) -> Option<usize> {
        match &self.0 {
            Repr::Plain(p) => p.position(id),
            Repr::Packed(p) => {
                let index = p.by_hash.get_or_init(|| p.hash_index());
                let key = u64::from(hash32(id)) << 32;
                let from = index.partition_point(|&e| e < key);
                index[from..]
                    .iter()
                    .take_while(|&&e| e >> 32 == key >> 32)
                    .map(|&e| (e & 0xffff_ffff) as usize)
                    .find(|&doc| self.get(doc) == Some(id))
            }
        }
    }

    pub fn heap_bytes(&self) -> usize {
        match &self.0 {
            Repr::Plain(p) => p.heap_bytes(),
            Repr::Packed(p) => {
                p.bytes.capacity()
                    + p.order.as_ref().map_or(0, IdOrder::heap_bytes)
                    + p.unpacked_bytes()
                    + p.by_hash.get().map_or(0, |i| i.capacity() * 8)
            }
        }
    }

    /// Blocks unpacked now (none of plain ids).
    #[cfg(test)]
    pub(crate) fn unpacked_blocks(&self) -> usize {
        let Repr::Packed(p) = &self.0 else { return 0 };
        p.unpacked.iter().filter(|u| u.get().is_some()).count()
    }

    /// If the unpacked blocks take more than `keep` bytes, drops those not
    /// read since the last release, then all if that is not enough (a
    /// second-chance approximation of least recently used).
    pub fn release_unpacked(&mut self, keep: usize) {
        let Repr::Packed(p) = &mut self.0 else { return };
        if p.unpacked_bytes() <= keep {
            return;
        }
        for (block, used) in p.unpacked.iter_mut().zip(&p.used) {
            if !used.0.swap(false, Ordering::Relaxed) {
                *block = OnceLock::new();
            }
        }
        if p.unpacked_bytes() > keep {
            p.unpacked.iter_mut().for_each(|u| *u = OnceLock::new());
        }
    }
}

impl Plain {
    fn from_parts(text: Vec<u8>, ends: Vec<u32>) -> Option<Plain> {
        let text = String::from_utf8(text).ok()?;
        // Valid as a whole and cut at character boundaries: valid each.
        let cut = ends.iter().all(|&e| text.is_char_boundary(e as usize));
        let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
        let last = ends.last().map_or(0, |&e| e as usize);
        (cut && ordered && last == text.len()).then_some(Plain { text, ends })
    }

    fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.text.get(start..end)
    }

    fn position(&self, id: &str) -> Option<usize> {
        let (id, text) = (id.as_bytes(), self.text.as_bytes());
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            let end = end as usize;
            if end - start == id.len() && &text[start..end] == id {
                return Some(i);
            }
            start = end;
        }
        None
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4
    }
}

impl Packed {
    /// Block `b`, unpacked (kept until released); `None` if it does not
    /// unpack to its ids (its bytes passed the blob's checksum: a bug).
    fn block(&self, b: usize) -> Option<&Plain> {
        let cell = self.unpacked.get(b)?;
        self.used[b].0.store(true, Ordering::Relaxed);
        if cell.get().is_none() {
            let _ = cell.set(self.unpack(b)?);
        }
        cell.get()
    }

    fn unpack(&self, b: usize) -> Option<Plain> {
        let bytes = self.bytes.get(self.starts[b]..*self.starts.get(b + 1)?)?;
        let (raw_len, _) = self.dir.blocks[b];
        unpack_block(bytes, &self.dir.dict, raw_len, self.dir.n_in(b, self.n)).ok()
    }

    /// Every id's `hash32 << 32 | doc`, sorted (blocks not held are
    /// unpacked for it and dropped; a block that does not unpack adds none).
    fn hash_index(&self) -> Vec<u64> {
        let mut pairs: Vec<(u64, u32)> = Vec::with_capacity(self.n);
        for b in 0..self.unpacked.len() {
            let unpacked;
            let block = match self.unpacked[b].get() {
                Some(held) => held,
                None => match self.unpack(b) {
                    Some(p) => {
                        unpacked = p;
                        &unpacked
                    }
                    None => continue,
                },
            };
            let first = b * self.dir.per_block as usize;
            for i in 0..block.ends.len() {
                let doc = (first + i) as u64;
                let id = block.get(i).unwrap_or("");
                pairs.push((u64::from(hash32(id)) << 32 | doc, 0));
            }
        }
        // The shared pair sort (no new sort instantiation in the wasm).
        crate::sort::sort_pairs(&mut pairs);
        pairs.into_iter().map(|p| p.0).collect()
    }

    /// Every block unpacked into one buffer; `None` if one does not unpack.
    fn all(&self) -> Option<Plain> {
        let raw_total: usize = self.dir.blocks.iter().map(|b| b.0 as usize).sum();
        let mut all = Plain {
            text: String::with_capacity(raw_total),
            ends: Vec::with_capacity(self.n),
        };
        for b in 0..self.unpacked.len() {
            let block = self.unpack(b)?;
            let base = all.text.len() as u32;
            all.text.push_str(&block.text);
            all.ends.extend(block.ends.iter().map(|e| base + e));
        }
        Some(all)
    }

    fn unpacked_bytes(&self) -> usize {
        self.unpacked
            .iter()
            .filter_map(OnceLock::get)
            .map(Plain::heap_bytes)
            .sum()
    }
}

/// FxHash of an id (ids' hash index; the incoming-links key).
pub(crate) fn hash_id(id: &str) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(id.as_bytes());
    h.finish()
}

/// [`hash_id`] folded to 32 bits.
fn hash32(id: &str) -> u32 {
    let h = hash_id(id);
    (h ^ h >> 32) as u32
}

/// Appends `ids` as blocks of [`IDS_PER_BLOCK`], then their order
/// ([`IdOrder`]); returns their directory.
pub fn write_ids(body: &mut ByteWriter, ids: &Ids) -> IdsDir {
    let n = ids.len();
    let mut dir = IdsDir {
        per_block: IDS_PER_BLOCK,
        blocks: Vec::new(),
        dict: dictionary(ids),
        order_len: 0,
    };
    let mut raw = ByteWriter::default();
    let mut close = |raw: &mut ByteWriter, dir: &mut IdsDir| {
        let packed = pack(&raw.buf, &dir.dict);
        body.buf.extend_from_slice(&packed);
        dir.blocks.push((raw.buf.len() as u32, packed.len() as u32));
        raw.buf.clear();
    };
    for (i, id) in ids.iter().enumerate() {
        raw.short_bytes(id.as_bytes());
        if (i + 1) % IDS_PER_BLOCK as usize == 0 {
            close(&mut raw, &mut dir);
        }
    }
    if !raw.buf.is_empty() || n == 0 {
        close(&mut raw, &mut dir);
    }
    let start = body.buf.len();
    IdOrder::of(ids.iter()).write(body);
    dir.order_len = body.buf.len() - start;
    dir
}

/// Ids sampled evenly over the segment as `short` rows, up to
/// [`DICT_BYTES`] or a sixteenth of the ids; none for a segment of one
/// block (it is its own context).
fn dictionary(ids: &Ids) -> Vec<u8> {
    let n = ids.len();
    let mut dict = ByteWriter::default();
    if n <= IDS_PER_BLOCK as usize {
        return dict.buf;
    }
    // At most a sixteenth of the ids: a small segment's head stays small.
    let total: usize = ids.iter().map(|id| id.len() + 1).sum();
    let budget = DICT_BYTES.min(total / 16);
    let step = total.div_ceil(budget.max(1)).max(1);
    for id in ids.iter().step_by(step) {
        if dict.buf.len() + id.len() + 2 > budget {
            break;
        }
        dict.short_bytes(id.as_bytes());
    }
    dict.buf
}

/// Reads all the ids `dir` describes from `packed` (exactly its blocks):
/// `n_docs` of them.
pub fn read_ids(r: &ByteReader<'_>, packed: &[u8], dir: &IdsDir, n_docs: u32) -> Result<Ids> {
    let bad = || r.corrupt("the doc store's ids do not unpack");
    match Ids::packed(packed.to_vec(), dir.clone(), n_docs) {
        Some(Ids(Repr::Packed(p))) => p.all().map(|all| Ids(Repr::Plain(all))).ok_or_else(bad),
        _ => Err(bad()),
    }
}

/// One block: exactly `n` ids in `raw_len` unpacked bytes, each UTF-8.
fn unpack_block(
    packed: &[u8],
    dict: &[u8],
    raw_len: u32,
    n: usize,
) -> std::result::Result<Plain, ()> {
    if n > raw_len as usize / 2 && n > 0 {
        return Err(()); // a `short` id takes at least its 2-byte length
    }
    let raw = unpack(packed, dict, raw_len as usize)?;
    if raw.len() != raw_len as usize {
        return Err(());
    }
    let mut rows = ByteReader::new("", &raw);
    let mut text = Vec::with_capacity(raw.len());
    let mut ends = Vec::with_capacity(n);
    for _ in 0..n {
        text.extend_from_slice(rows.short_bytes().map_err(|_| ())?);
        ends.push(text.len() as u32);
    }
    if !rows.is_at_end() {
        return Err(());
    }
    // One UTF-8 check of the block's ids, not one per id.
    Plain::from_parts(text, ends).ok_or(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::blob::FORMAT_VERSION;

    #[test]
    fn from_parts_takes_only_ids_that_are_utf8_each() {
        let ids = Ids::from_parts("abcé".as_bytes().to_vec(), vec![1, 3, 5]).unwrap();
        assert_eq!(ids.iter().collect::<Vec<_>>(), ["a", "bc", "é"]);
        // Valid as a whole, but cut inside `é`.
        assert!(Ids::from_parts("abcé".as_bytes().to_vec(), vec![1, 4, 5]).is_none());
        assert!(Ids::from_parts(vec![0xff], vec![1]).is_none());
        assert!(Ids::from_parts(b"ab".to_vec(), vec![2, 1]).is_none());
        assert!(Ids::from_parts(b"ab".to_vec(), vec![1]).is_none());
    }

    #[test]
    fn position_finds_whole_ids_only() {
        let ids = Ids::from_parts(b"abcabc".to_vec(), vec![1, 3, 6]).unwrap();
        assert_eq!(ids.position("a"), Some(0));
        assert_eq!(ids.position("bc"), Some(1));
        assert_eq!(ids.position("abc"), Some(2));
        assert_eq!(ids.position("ab"), None);
        assert_eq!(ids.position(""), None);
    }

    fn made(n: u32) -> Ids {
        let mut ids = Ids::default();
        (0..n).for_each(|d| ids.push(&format!("doc-{d}-{}", "é".repeat(d as usize % 5))));
        ids
    }

    /// Stored, read whole and read packed: the same ids, found at the same
    /// places; damage and inconsistent directories are errors, never panics.
    #[test]
    fn ids_round_trip_whole_and_packed() {
        for n in [0, 1, IDS_PER_BLOCK - 1, IDS_PER_BLOCK, 3000] {
            let ids = made(n);
            let mut w = ByteWriter::default();
            let dir = write_ids(&mut w, &ids);
            let (blocks, order) = w.buf.split_at(dir.packed_len());
            assert_eq!(order.len(), dir.order_len);
            let order = IdOrder::read(order, n).expect("the ids' order");
            let blocks = blocks.to_vec();
            assert_eq!(dir.blocks.len(), n.div_ceil(IDS_PER_BLOCK).max(1) as usize);
            let mut d = ByteWriter::default();
            dir.write(&mut d);
            let back = IdsDir::read(&mut ByteReader::new("k", &d.buf), n, FORMAT_VERSION).unwrap();
            assert_eq!(back, dir);
            assert!(IdsDir::read(
                &mut ByteReader::new("k", &d.buf),
                n + IDS_PER_BLOCK + 1,
                FORMAT_VERSION
            )
            .is_err());
            let r = ByteReader::new("k", &blocks);
            assert_eq!(
                read_ids(&r, &blocks, &dir, n)
                    .unwrap()
                    .iter()
                    .collect::<Vec<_>>(),
                ids.iter().collect::<Vec<_>>()
            );
            let mut packed = Ids::packed(blocks.clone(), dir.clone(), n).unwrap();
            assert_eq!(packed.len(), n as usize);
            assert_eq!(packed.rank(0), None, "no order given");
            packed = packed.with_order(order);
            let mut by_rank: Vec<(u32, &str)> = (0..n as usize)
                .map(|i| (packed.rank(i).unwrap(), ids.get(i).unwrap()))
                .collect();
            by_rank.sort_unstable();
            assert!(
                by_rank.windows(2).all(|p| p[0].1 < p[1].1),
                "ranks in id order"
            );
            assert_eq!(
                packed.iter().collect::<Vec<_>>(),
                ids.iter().collect::<Vec<_>>()
            );
            if n > 0 {
                let last = format!("doc-{}-{}", n - 1, "é".repeat((n - 1) as usize % 5));
                assert_eq!(packed.position(&last), Some(n as usize - 1));
                let held = packed.heap_bytes();
                packed.release_unpacked(0);
                let base = packed.heap_bytes();
                assert!(base < held && base >= blocks.len(), "{base} of {held}");
                assert_eq!(packed.position(&last), Some(n as usize - 1));
                assert!(packed.heap_bytes() > base, "a lookup builds the hash index");
                assert_eq!(packed.position("doc-none"), None);
                assert!(read_ids(&r, &blocks[..blocks.len() - 1], &dir, n).is_err());
                let mut damaged = blocks.clone();
                let mid = damaged.len() / 2;
                damaged[mid] ^= 0x5a;
                let _ = read_ids(&r, &damaged, &dir, n);
                let p = Ids::packed(damaged, dir.clone(), n).unwrap();
                let _ = p.iter().count();
            }
            assert!(Ids::packed(vec![0; blocks.len() + 1], dir, n).is_none());
        }
    }

    /// Blocks packed after the segment's dictionary are smaller than alone,
    /// and unpack only with it.
    #[test]
    fn the_dictionary_packs_blocks_smaller() {
        let ids = made(5000);
        let dict = dictionary(&ids);
        assert!(!dict.is_empty() && dict.len() <= DICT_BYTES);
        assert!(
            dictionary(&made(IDS_PER_BLOCK)).is_empty(),
            "one block: no dictionary"
        );
        let (mut with, mut without) = (0, 0);
        for chunk in ids
            .iter()
            .collect::<Vec<_>>()
            .chunks(IDS_PER_BLOCK as usize)
        {
            let mut raw = ByteWriter::default();
            chunk.iter().for_each(|id| raw.short_bytes(id.as_bytes()));
            let packed = pack(&raw.buf, &dict);
            assert_eq!(unpack(&packed, &dict, raw.buf.len()), Ok(raw.buf.clone()));
            assert!(unpack(&packed, &[], raw.buf.len()).is_err() || dict.is_empty());
            with += packed.len();
            without += pack(&raw.buf, &[]).len();
        }
        assert!(
            with < without,
            "{with} with the dictionary, {without} without"
        );
    }
}
