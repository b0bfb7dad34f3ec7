//! The id map: where each live document of a whole index is, by its id.
//!
//! The segments and the write buffer hold every id already, so the map keys
//! its entries by a 64-bit hash of the id instead of a copy of it: at 1M
//! `packages` documents a whole load held the ids twice, the map's copies
//! in a million small allocations (bench/HISTORY.md). An entry is checked
//! against the id stored at its address ([`Places`]), so a lookup is exact
//! whatever the hash does: an id whose hash another id's entry holds goes
//! to `spill`, a map keyed by the id itself (empty unless hashes collide;
//! ids crafted to collide cost what every id cost before).
//!
//! Invariant: an id is in at most one of `slots` (under its hash, its
//! address holding it) and `spill`.

use std::collections::hash_map::Entry;
use std::hash::BuildHasher;

use rustc_hash::{FxBuildHasher, FxHashMap};

use super::{DocAddr, SegmentEntry, BUFFER};
use crate::store::DocStore;

#[derive(Default, Clone)]
pub(crate) struct IdMap {
    slots: FxHashMap<u64, DocAddr>,
    spill: FxHashMap<Box<str>, DocAddr>,
}

/// Where the ids the map's entries point at are read: the write buffer's
/// store, the index's segments, and a segment being adopted (its entries
/// are added before it joins `segments`).
pub(crate) struct Places<'a> {
    pub buffered: &'a DocStore,
    pub segments: &'a [SegmentEntry],
    pub adopting: Option<(u64, &'a DocStore)>,
}

impl Places<'_> {
    fn id_at(&self, addr: DocAddr) -> Option<&str> {
        let store = match (addr.segment, self.adopting) {
            (BUFFER, _) => self.buffered,
            (s, Some((adopting, store))) if s == adopting => store,
            (s, _) => &self.segments.iter().find(|e| e.id == s)?.segment.docs,
        };
        ((addr.doc as usize) < store.len()).then(|| store.id(addr.doc))
    }

    fn holds(&self, addr: DocAddr, id: &str) -> bool {
        self.id_at(addr) == Some(id)
    }
}

fn hash(id: &str) -> u64 {
    let hash = FxBuildHasher.hash_one(id);
    // Tests keep a few bits only, so that most ids collide.
    #[cfg(test)]
    let hash = hash & tests::HASH_MASK.with(std::cell::Cell::get);
    hash
}

impl IdMap {
    pub fn reserve(&mut self, additional: usize) {
        self.slots.reserve(additional);
    }

    pub fn get(&self, id: &str, at: &Places<'_>) -> Option<DocAddr> {
        match self.slots.get(&hash(id)) {
            Some(&addr) if at.holds(addr, id) => Some(addr),
            _ => self.spill.get(id).copied(),
        }
    }

    pub fn contains(&self, id: &str, at: &Places<'_>) -> bool {
        self.get(id, at).is_some()
    }

    /// Maps `id` to `addr`; the address it replaced, if `id` had one. `at`
    /// reads the ids of the addresses held (not `addr`'s).
    pub fn insert(&mut self, id: &str, addr: DocAddr, at: &Places<'_>) -> Option<DocAddr> {
        if let Some(held) = self.spill.get_mut(id) {
            return Some(std::mem::replace(held, addr));
        }
        match self.slots.entry(hash(id)) {
            Entry::Vacant(slot) => {
                slot.insert(addr);
                None
            }
            Entry::Occupied(mut slot) if at.holds(*slot.get(), id) => Some(slot.insert(addr)),
            Entry::Occupied(_) => self.spill.insert(id.into(), addr),
        }
    }

    /// Unmaps `id`; its address, if it had one.
    pub fn remove(&mut self, id: &str, at: &Places<'_>) -> Option<DocAddr> {
        if let Entry::Occupied(slot) = self.slots.entry(hash(id)) {
            if at.holds(*slot.get(), id) {
                return Some(slot.remove());
            }
        }
        self.spill.remove(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::collections::HashMap;

    thread_local! {
        pub(super) static HASH_MASK: Cell<u64> = const { Cell::new(u64::MAX) };
    }

    fn store(ids: &[String]) -> DocStore {
        let mut store = DocStore::new();
        for id in ids {
            store.push(id.clone(), b"{}");
        }
        store
    }

    /// Random inserts, moves and removals against a map of the ids, with
    /// the full hash and with 1, 3 and 8 bits of it (nearly every id
    /// collides: `spill` holds most of them).
    #[test]
    fn answers_as_a_map_of_the_ids_whatever_the_hash_does() {
        let ids: Vec<String> = (0..600).map(|i| format!("memory-{i}")).collect();
        // A second store holding the same ids in another order: an id can
        // move between the buffer and a segment, as a flush moves it.
        let mut moved = ids.clone();
        moved.reverse();
        let (buffered, segment) = (store(&ids), store(&moved));
        let at = Places {
            buffered: &buffered,
            segments: &[],
            adopting: Some((7, &segment)),
        };
        for mask in [u64::MAX, 0xff, 0x7, 0x1] {
            HASH_MASK.with(|m| m.set(mask));
            let mut map = IdMap::default();
            let mut oracle: HashMap<String, DocAddr> = HashMap::new();
            let mut state = 0x9e37_79b9_7f4a_7c15_u64;
            for _ in 0..20_000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state >> 8) as usize % ids.len();
                let id = &ids[i];
                match state % 4 {
                    0 | 1 => {
                        let addr = match state % 8 < 4 {
                            true => DocAddr {
                                segment: BUFFER,
                                doc: i as u32,
                            },
                            false => DocAddr {
                                segment: 7,
                                doc: (ids.len() - 1 - i) as u32,
                            },
                        };
                        let replaced = map.insert(id, addr, &at);
                        assert_eq!(replaced, oracle.insert(id.clone(), addr), "mask {mask:x}");
                    }
                    2 => assert_eq!(map.remove(id, &at), oracle.remove(id), "mask {mask:x}"),
                    _ => assert_eq!(map.get(id, &at), oracle.get(id).copied(), "mask {mask:x}"),
                }
            }
            for id in &ids {
                assert_eq!(
                    map.get(id, &at),
                    oracle.get(id).copied(),
                    "mask {mask:x} {id}"
                );
            }
            let spilled = map.spill.len();
            assert_eq!(map.slots.len() + spilled, oracle.len(), "mask {mask:x}");
            assert!(
                mask != 0x1 || spilled + 2 >= oracle.len(),
                "{spilled} spilled"
            );
            assert!(!map.contains("absent", &at));
        }
        HASH_MASK.with(|m| m.set(u64::MAX));
    }

    #[test]
    fn an_address_that_holds_another_id_is_not_its_entry() {
        let ids = vec!["a".to_string(), "b".to_string()];
        let buffered = store(&ids);
        let at = Places {
            buffered: &buffered,
            segments: &[],
            adopting: None,
        };
        let a = DocAddr {
            segment: BUFFER,
            doc: 0,
        };
        let b = DocAddr {
            segment: BUFFER,
            doc: 1,
        };
        let mut map = IdMap::default();
        // "a"'s address under "b"'s hash (as if their hashes collided).
        map.slots.insert(hash("b"), a);
        assert_eq!(map.get("b", &at), None);
        assert_eq!(map.remove("b", &at), None);
        assert_eq!(map.insert("b", b, &at), None);
        assert_eq!((map.get("b", &at), map.spill.len()), (Some(b), 1));
        assert_eq!(map.remove("b", &at), Some(b));
        assert_eq!(map.slots.get(&hash("b")), Some(&a));
        // An address past a store's end holds no id.
        let past = DocAddr {
            segment: BUFFER,
            doc: 9,
        };
        map.slots.insert(hash("c"), past);
        assert_eq!(map.get("c", &at), None);
    }
}
