//! What a lazy search fetches of the surface words (format 8): a typo the
//! shards of its first two letters, a completion those of its prefix.

use super::LazyIndex;
use crate::storage::MemoryStorage;
use crate::{Index, IndexConfig, SearchOptions};

/// An index of `docs` documents of 40 made-up six-letter words each (every
/// one a surface word), in one segment.
fn stored(docs: usize) -> MemoryStorage {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let mut x = 11u64;
    for i in 0..docs {
        let words: Vec<String> = (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (0..6)
                    .map(|k| (b'a' + ((x >> (5 * k)) % 26) as u8) as char)
                    .collect()
            })
            .collect();
        let doc = format!(r#"{{"id":"d{i}","text":"{}"}}"#, words.join(" "));
        index.add(&crate::json::parse(&doc).unwrap()).unwrap();
    }
    pollster::block_on(index.commit(&storage, "m")).unwrap();
    storage
}

/// The surface word shards of the lazy index's segments: (held, all).
fn surface_shards(lazy: &LazyIndex) -> (usize, usize) {
    let segs = lazy.segs.iter().flatten();
    segs.fold((0, 0), |(held, all), seg| {
        let here = seg.surface_shards.iter().flatten().count();
        (held + here, all + seg.surface_shards.len())
    })
}

#[test]
fn a_typo_fetches_the_surface_words_of_its_first_two_letters() {
    let storage = stored(3000);
    let typo = SearchOptions {
        fuzzy: crate::query::options::FUZZY_AUTO,
        ..Default::default()
    };
    let mut lazy = pollster::block_on(LazyIndex::open(&storage, "m", 1 << 30))
        .unwrap()
        .unwrap();
    let (_, all) = surface_shards(&lazy);
    assert!(all >= 20, "{all} surface word shards");
    pollster::block_on(lazy.search(&storage, "qxwmbe", &typo)).unwrap();
    let (held, _) = surface_shards(&lazy);
    // Two letters of 26, and the shards straddling their edges.
    assert!(held >= 2 && held * 5 <= all, "{held} of {all}");
    // A completion: the shards of its prefix only, one here.
    let mut lazy = pollster::block_on(LazyIndex::open(&storage, "m", 1 << 30))
        .unwrap()
        .unwrap();
    assert!(!pollster::block_on(lazy.suggest(&storage, "qx", 5))
        .unwrap()
        .is_empty());
    assert_eq!(surface_shards(&lazy).0, 1);
}
