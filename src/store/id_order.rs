//! A segment's id order (format 10, docs/FORMAT.md "Segment"): per local
//! doc id, the rank of its id among the segment's ids in byte order,
//! bit-packed after the id blocks in the ids' unit.
//!
//! Equal scores rank by id. In a lazily opened segment the ids stay packed
//! in blocks of 256, so a tie between two candidates unpacked up to two
//! blocks (at 1M documents a quarter of a lazy search's time). Two
//! documents of one segment compare by their ranks instead, the same order
//! without reading an id; only candidates of different segments still
//! compare ids (`crate::query::topk`).

use crate::codec::bytes::ByteWriter;

/// Bits per rank for a segment of `n` documents (ranks are `0..n`).
fn width(n: u32) -> u32 {
    u32::BITS - n.saturating_sub(1).leading_zeros()
}

/// Each document's id rank, packed `width` bits apiece, least significant
/// bit first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdOrder {
    width: u32,
    /// The stored bytes, then 8 zero bytes so any rank is one 8-byte load.
    bits: Vec<u8>,
}

impl IdOrder {
    /// Stored bytes of the order of `n_docs` ids.
    pub fn byte_len(n_docs: u32) -> usize {
        (n_docs as u64 * width(n_docs) as u64).div_ceil(8) as usize
    }

    /// The order of a segment's `ids` (by local doc id): equal ids (a
    /// document and its deleted older copy) rank by local doc id.
    pub fn of<'a>(ids: impl Iterator<Item = &'a str>) -> IdOrder {
        let strs: Vec<&[u8]> = ids.map(str::as_bytes).collect();
        let mut rank = vec![0u32; strs.len()];
        for (r, &(_, doc)) in crate::sort::order_by_bytes(&strs).iter().enumerate() {
            rank[doc as usize] = r as u32;
        }
        let n = rank.len() as u32;
        let w = width(n);
        let mut bits = vec![0u8; IdOrder::byte_len(n) + 8];
        for (doc, &r) in rank.iter().enumerate() {
            let at = doc as u64 * w as u64;
            let word = u64::from(r) << (at % 8);
            let start = (at / 8) as usize;
            for (i, b) in word.to_le_bytes().iter().enumerate().take(5) {
                bits[start + i] |= b;
            }
        }
        IdOrder { width: w, bits }
    }

    /// Appends the stored bytes.
    pub fn write(&self, w: &mut ByteWriter) {
        w.buf
            .extend_from_slice(&self.bits[..self.bits.len().saturating_sub(8)]);
    }

    /// The order of `n_docs` ids stored as `bytes`, if it is one: exactly
    /// [`IdOrder::byte_len`] bytes holding each rank of `0..n_docs` once.
    pub fn read(bytes: &[u8], n_docs: u32) -> Option<IdOrder> {
        if bytes.len() != IdOrder::byte_len(n_docs) {
            return None;
        }
        let mut bits = Vec::with_capacity(bytes.len() + 8);
        bits.extend_from_slice(bytes);
        bits.extend_from_slice(&[0; 8]);
        let order = IdOrder {
            width: width(n_docs),
            bits,
        };
        // A permutation, or the ranking of ties would not be a total order.
        let mut seen = vec![false; n_docs as usize];
        for doc in 0..n_docs {
            let slot = seen.get_mut(order.rank(doc) as usize)?;
            if std::mem::replace(slot, true) {
                return None;
            }
        }
        Some(order)
    }

    /// Rank of `doc`'s id in the segment (`doc` below its document count).
    #[inline]
    pub fn rank(&self, doc: u32) -> u32 {
        let at = doc as u64 * self.width as u64;
        let start = (at / 8) as usize;
        let word = self
            .bits
            .get(start..start + 8)
            .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
        ((word >> (at % 8)) & ((1u64 << self.width) - 1)) as u32
    }

    pub fn heap_bytes(&self) -> usize {
        self.bits.capacity()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids<'a>(list: &'a [&'a str]) -> impl Iterator<Item = &'a str> {
        list.iter().copied()
    }

    #[test]
    fn ranks_follow_byte_order_and_round_trip() {
        for n in [0usize, 1, 2, 3, 255, 256, 257, 1000, 70_000] {
            let list: Vec<String> = (0..n)
                .map(|i| format!("id-{:x}", (i * 7919) % 100_003))
                .collect();
            let refs: Vec<&str> = list.iter().map(String::as_str).collect();
            let order = IdOrder::of(ids(&refs));
            let mut w = ByteWriter::default();
            order.write(&mut w);
            assert_eq!(w.buf.len(), IdOrder::byte_len(n as u32));
            let read = IdOrder::read(&w.buf, n as u32).expect("a permutation");
            assert_eq!(read, order);
            let mut by_rank: Vec<(u32, &str)> =
                (0..n).map(|d| (read.rank(d as u32), refs[d])).collect();
            by_rank.sort_unstable();
            assert!(
                by_rank
                    .windows(2)
                    .all(|p| p[0].1.as_bytes() < p[1].1.as_bytes()),
                "n={n}"
            );
            assert!(by_rank.iter().enumerate().all(|(r, e)| e.0 == r as u32));
        }
    }

    #[test]
    fn equal_ids_rank_by_doc() {
        let order = IdOrder::of(ids(&["b", "a", "b", "a"]));
        assert_eq!(
            (0..4).map(|d| order.rank(d)).collect::<Vec<_>>(),
            [2, 0, 3, 1]
        );
    }

    #[test]
    fn damaged_orders_are_refused() {
        let order = IdOrder::of(ids(&["c", "a", "b", "d", "e"]));
        let mut w = ByteWriter::default();
        order.write(&mut w);
        assert!(IdOrder::read(&w.buf[1..], 5).is_none(), "short");
        assert!(
            IdOrder::read(&[w.buf.clone(), vec![0]].concat(), 5).is_none(),
            "long"
        );
        let mut twice = w.buf.clone();
        twice[0] = 0; // ranks 0 and 0 (3 bits each: docs 0 and 1 both 0)
        assert!(IdOrder::read(&twice, 5).is_none(), "a rank twice");
        let mut w7 = ByteWriter::default();
        IdOrder::of(ids(&["a", "b", "c", "d", "e", "f", "g"])).write(&mut w7);
        let mut out = w7.buf.clone();
        out[0] |= 0b111; // doc 0's rank 7 of 7 documents
        assert!(IdOrder::read(&out, 7).is_none(), "a rank out of range");
    }
}
