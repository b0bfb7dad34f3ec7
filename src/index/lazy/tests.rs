//! What a lazy search fetches of the surface words (format 8): a typo the
//! shards of its first two letters, a completion those of its prefix; how
//! the term shards it holds are numbered; ties ranked without the ids.

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

/// 20,000 documents in two commits that all score alike (the same text),
/// their ids not in doc order.
fn all_tied() -> MemoryStorage {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for half in 0..2 {
        for i in half * 10_000..(half + 1) * 10_000 {
            let id = (i * 7919) % 20_000;
            let doc = format!(r#"{{"id":"d{id:05}","text":"alpha beta"}}"#);
            index.add(&crate::json::parse(&doc).unwrap()).unwrap();
        }
        pollster::block_on(index.commit(&storage, "t")).unwrap();
    }
    storage
}

#[test]
fn ties_rank_by_id_without_unpacking_the_id_blocks() {
    let storage = all_tied();
    let mut lazy = pollster::block_on(LazyIndex::open(&storage, "t", 1 << 30))
        .unwrap()
        .unwrap();
    let blocks = |lazy: &LazyIndex| -> (usize, usize) {
        lazy.index.segments.iter().fold((0, 0), |(held, all), e| {
            let ids = e.segment.docs.ids();
            let n = ids.len().div_ceil(crate::store::IDS_PER_BLOCK as usize);
            (held + ids.unpacked_blocks(), all + n)
        })
    };
    for (offset, limit) in [(0, 10), (5, 5)] {
        let opts = SearchOptions {
            offset,
            limit,
            ..Default::default()
        };
        let found = pollster::block_on(lazy.search(&storage, "alpha", &opts)).unwrap();
        let ids: Vec<String> = found.hits.iter().map(|h| h.id.clone()).collect();
        let want: Vec<String> = (offset..offset + limit)
            .map(|i| format!("d{i:05}"))
            .collect();
        assert_eq!(ids, want, "the smallest ids, in order");
    }
    // Each segment's best 10 by rank, compared by id across segments: the
    // blocks of at most 10 candidates a segment, not those of every tie.
    let (held, all) = blocks(&lazy);
    let segments = lazy.index.segments.len();
    assert!(all >= 79, "{all} id blocks");
    assert!(held <= 10 * segments, "{held} of {all} id blocks unpacked");
}

/// A held shard's terms keep the whole segment's ordinals and read their
/// own postings: after searches leave some shards held (and others
/// released), every term found has the ordinal, table entry and documents
/// of the fully loaded segment.
#[test]
fn held_term_shards_read_as_the_fully_loaded_segment() {
    let storage = stored(1500);
    let loaded = pollster::block_on(crate::index::load::load(&storage, "m"));
    let full = Index::from_loaded(loaded.unwrap().unwrap(), None).unwrap();
    // Room for a few shards: later searches release earlier ones.
    let mut lazy = pollster::block_on(LazyIndex::open(&storage, "m", 400_000))
        .unwrap()
        .unwrap();
    let whole = &full.segments[0].segment;
    let terms: Vec<String> = {
        let mut it = whole.terms.iter();
        std::iter::from_fn(|| {
            it.advance()?;
            Some(String::from_utf8(it.term().to_vec()).unwrap())
        })
        .step_by(97)
        .collect()
    };
    let docs = |seg: &crate::index::segment::Segment, info| {
        let mut c = seg.cursor(info);
        std::iter::from_fn(move || {
            let d = c.doc();
            (d != crate::postings::TERMINATED).then(|| {
                c.advance();
                d
            })
        })
        .collect::<Vec<u32>>()
    };
    let (mut found, mut released) = (0, 0);
    for term in &terms {
        pollster::block_on(lazy.search(&storage, term, &SearchOptions::default())).unwrap();
        let seg = &lazy.index.segments[0].segment;
        for t in &terms {
            let Some(ord) = seg.term_ord(t) else {
                released += 1;
                continue;
            };
            found += 1;
            assert_eq!(Some(ord), whole.term_ord(t), "{t}");
            let (info, want) = (seg.term_info(ord).unwrap(), whole.term(t).unwrap());
            assert_eq!(info.doc_freq, want.doc_freq, "{t}");
            assert_eq!(seg.stem(ord as u32).as_deref(), Some(t.as_str()));
            assert_eq!(docs(seg, info), docs(whole, want), "{t}");
        }
        seg.lazy.as_ref().unwrap().take_asked();
    }
    assert!(found > terms.len() * 2, "{found} terms read held");
    assert!(
        released > terms.len(),
        "{released} lookups missed a released shard"
    );
}

/// Block numbers beside a shard's index: a shard of more blocks than they
/// count is refused, not numbered into the next shard's.
#[test]
fn a_shard_of_more_blocks_than_its_numbers_hold_is_refused() {
    use crate::index::serialize::shards::Shard;
    use crate::postings::BlockMeta;
    // 2^20 shards leave 12 bits: 4,096 blocks.
    let firsts = (0..1u32 << 20).map(|i| (format!("t{i:07}"), 1));
    let mut terms = super::LazyTerms::new(firsts, std::iter::empty());
    let shard = |blocks: usize| Shard {
        terms: crate::termdict::TermDict::from_sorted(["t0000001"]),
        infos: Vec::new(),
        bytes: &[],
        positions: &[],
        blocks: vec![
            BlockMeta {
                last_doc: 0,
                offset: 0,
                pos_offset: 0,
                len: 0,
            };
            blocks
        ],
        bounds: Vec::new(),
    };
    assert!(terms.hold(1, shard(4095).keep(1)).is_ok());
    let refused = terms.hold(2, shard(4096).keep(1)).unwrap_err();
    assert_eq!(refused.code(), "LIMIT", "{refused}");
    assert!(
        terms.hold(1 << 20, shard(1).keep(1)).is_err(),
        "no such shard"
    );
}
