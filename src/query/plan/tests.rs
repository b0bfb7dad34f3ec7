use super::*;
use proptest::prelude::*;
use std::collections::BTreeMap;

proptest! {
    // Same as summing in a BTreeMap, then a stable sort by df desc.
    #[test]
    fn by_doc_freq_matches_btreemap(
        found in prop::collection::vec(("[ab]{0,3}|abcdefgh[ab]{0,3}", 0u64..4), 0..60),
        limit in 0usize..20,
    ) {
        let mut map: BTreeMap<String, u64> = BTreeMap::new();
        for (t, df) in &found {
            *map.entry(t.clone()).or_default() += df;
        }
        let mut want: Vec<(String, u64)> = map.into_iter().collect();
        want.sort_by_key(|t| std::cmp::Reverse(t.1));
        want.truncate(limit);
        prop_assert_eq!(by_doc_freq(found, limit), want);
    }
}
