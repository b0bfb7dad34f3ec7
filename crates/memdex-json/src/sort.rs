//! Sorting through as few `core::slice::sort` instantiations as possible.
//!
//! Every element type and comparator passed to `sort*` compiles its own copy
//! of the standard sorts (driftsort or ipnsort with their small-sorts and
//! pivot code: 3-8 KB of wasm each, ~20 KB gzipped for the dozen the crate
//! had). Here every ordering is expressed as `(u64 key, u32 index)` pairs in
//! natural order, so one instantiation serves them all; the other one left
//! is `[u64]::sort_unstable` (the per-document postings scratch, and the
//! snippet offsets). Sorting pairs unstably is still deterministic and
//! equals a stable sort by key: the index breaks every tie.

/// Sorts `(key, index)` pairs in natural order. The one instantiation of
/// the standard sort for pairs; not inlined so callers share its entry too.
#[inline(never)]
pub fn sort_pairs(v: &mut [(u64, u32)]) {
    v.sort_unstable();
}

/// `(key, index)` for each key in ascending key order, equal keys in index
/// order: the permutation a stable sort by key applies.
pub fn order_by_key(keys: impl Iterator<Item = u64>) -> Vec<(u64, u32)> {
    let mut v: Vec<(u64, u32)> = keys.enumerate().map(|(i, k)| (k, i as u32)).collect();
    sort_pairs(&mut v);
    v
}

/// A key ordered like `f32::total_cmp`.
pub fn f32_key(x: f32) -> u64 {
    let b = x.to_bits();
    // Negatives: flip all bits (larger magnitude first, below every
    // positive); positives: set the sign bit (above every negative).
    (if b >> 31 == 1 { !b } else { b | 1 << 31 }) as u64
}

/// Indices of `strs` in byte-lexicographic order, equal strings in index
/// order (the `u64` halves are scratch). MSD radix refinement on the pair
/// sort: each string's next 7 bytes (zero-padded) and, in the low byte, how
/// many bytes are left (capped at 8). Equal keys with 8 left mean both
/// strings go on past these 7 bytes, so only those runs are refined, on the
/// next 7; a smaller count means the strings are equal.
pub fn order_by_bytes(strs: &[&[u8]]) -> Vec<(u64, u32)> {
    let mut v = order_by_key(strs.iter().map(|s| chunk_key(s, 0)));
    // (start, end, depth) of runs to refine; explicit, as long keys (storage
    // keys, keyword values) could nest deeply.
    let mut stack = vec![(0usize, v.len(), 0usize)];
    while let Some((lo, hi, depth)) = stack.pop() {
        let mut i = lo;
        while i < hi {
            let key = v[i].0;
            let mut j = i + 1;
            while j < hi && v[j].0 == key {
                j += 1;
            }
            if j - i > 1 && key & 0xff == 8 {
                let next = depth + 7;
                for e in &mut v[i..j] {
                    e.0 = chunk_key(strs[e.1 as usize], next);
                }
                sort_pairs(&mut v[i..j]);
                stack.push((i, j, next));
            }
            i = j;
        }
    }
    v
}

/// Bytes `depth..depth + 7` of `s` big-endian (zero-padded), then
/// `min(len - depth, 8)` in the low byte.
#[inline]
fn chunk_key(s: &[u8], depth: usize) -> u64 {
    let rest = s.get(depth..).unwrap_or_default();
    let n = rest.len().min(7);
    let mut buf = [0u8; 8];
    buf[..n].copy_from_slice(&rest[..n]);
    buf[7] = rest.len().min(8) as u8;
    u64::from_be_bytes(buf)
}

/// Where each key sits in a list: a lookup table built through the pair
/// sort (a hash map keyed by `u64` would add its own hash-table code to the
/// wasm). With repeated keys, the first position wins.
pub struct KeyPositions(Vec<(u64, u32)>);

impl KeyPositions {
    /// The positions of `keys`, in iteration order.
    pub fn new(keys: impl Iterator<Item = u64>) -> Self {
        KeyPositions(order_by_key(keys))
    }

    /// The first position of `key`, if present.
    pub fn get(&self, key: u64) -> Option<usize> {
        let i = self.0.partition_point(|&(k, _)| k < key);
        match self.0.get(i) {
            Some(&(k, at)) if k == key => Some(at as usize),
            _ => None,
        }
    }
}

/// `v` reordered as `order` (from [`order_by_key`] or [`order_by_bytes`]
/// over all of `v`: a permutation of its indices) lists them. In place,
/// one swap per moved element: the per-type code is a small loop (each
/// element type instantiates it).
pub fn permute<T>(mut v: Vec<T>, order: &[(u64, u32)]) -> Vec<T> {
    assert_eq!(order.len(), v.len(), "permute: not a permutation of v");
    // from[i]: where the element for position i is; a position is done
    // once from[i] == i. Each cycle is followed once.
    let mut from: Vec<usize> = order.iter().map(|&(_, i)| i as usize).collect();
    for start in 0..v.len() {
        let mut at = start;
        while from[at] != start {
            let next = from[at];
            v.swap(at, next);
            from[at] = at;
            at = next;
        }
        from[at] = at;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn indices(order: &[(u64, u32)]) -> Vec<usize> {
        order.iter().map(|&(_, i)| i as usize).collect()
    }

    fn stable_by_key<K: Ord>(keys: &[K]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..keys.len()).collect();
        idx.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
        idx
    }

    proptest! {
        #[test]
        fn permute_applies_the_order(keys in proptest::collection::vec(0u64..8, 0..60)) {
            let order = order_by_key(keys.iter().copied());
            let items: Vec<String> = (0..keys.len()).map(|i| format!("item{i}")).collect();
            let expected: Vec<String> = order.iter().map(|&(_, i)| items[i as usize].clone()).collect();
            prop_assert_eq!(permute(items, &order), expected);
        }

        #[test]
        fn key_positions_find_the_first_position(keys in proptest::collection::vec(0u64..20, 0..40), probe in 0u64..25) {
            let table = KeyPositions::new(keys.iter().copied());
            prop_assert_eq!(table.get(probe), keys.iter().position(|&k| k == probe));
        }
    }

    #[test]
    fn f32_key_orders_like_total_cmp() {
        let xs = [
            f32::NEG_INFINITY,
            -f32::NAN,
            f32::NAN,
            -1.5,
            -0.0,
            0.0,
            f32::MIN_POSITIVE,
            1.0,
            1.5,
            f32::MAX,
            f32::INFINITY,
            -f32::MIN_POSITIVE,
        ];
        for &a in &xs {
            for &b in &xs {
                assert_eq!(f32_key(a).cmp(&f32_key(b)), a.total_cmp(&b), "{a} {b}");
            }
        }
    }

    #[test]
    fn bytes_edge_cases() {
        let words: Vec<&[u8]> = vec![
            b"a\0",
            b"a",
            b"",
            b"\0",
            b"abcdefg",
            b"abcdefgh",
            b"abcdefg\0",
            b"abcdefghijklmnopqrstu",
            b"abcdefghijklmnopqrst",
            b"abcdefghijklmn",
            b"abcdefghijklm\xff",
            b"a",
            b"\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        assert_eq!(indices(&order_by_bytes(&words)), stable_by_key(&words));
    }

    proptest! {
        #[test]
        fn order_by_key_is_stable_sort(keys in prop::collection::vec(0u64..6, 0..200)) {
            prop_assert_eq!(indices(&order_by_key(keys.iter().copied())), stable_by_key(&keys));
        }

        #[test]
        fn order_by_key_f32(xs in prop::collection::vec(any::<f32>(), 0..100)) {
            let mut want: Vec<usize> = (0..xs.len()).collect();
            want.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
            prop_assert_eq!(indices(&order_by_key(xs.iter().map(|&x| f32_key(x)))), want);
        }

        // Small alphabets and shared prefixes so ties and long runs happen.
        #[test]
        fn order_by_bytes_is_stable_sort(
            strs in prop::collection::vec(
                (0usize..3, prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xff]), 0..20)),
                0..100,
            )
        ) {
            let prefixes: [&[u8]; 3] = [b"", b"pypi:universal-mcp-", b"abcdefg"];
            let owned: Vec<Vec<u8>> = strs.iter().map(|(p, s)| [prefixes[*p], s].concat()).collect();
            let refs: Vec<&[u8]> = owned.iter().map(|s| s.as_slice()).collect();
            prop_assert_eq!(indices(&order_by_bytes(&refs)), stable_by_key(&refs));
        }

        #[test]
        fn permute_applies_order(keys in prop::collection::vec(0u64..10, 0..50)) {
            let order = order_by_key(keys.iter().copied());
            let v: Vec<String> = (0..keys.len()).map(|i| i.to_string()).collect();
            let want: Vec<String> = indices(&order).iter().map(|i| i.to_string()).collect();
            prop_assert_eq!(permute(v, &order), want);
        }
    }
}
