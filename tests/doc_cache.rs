//! `cacheBytes`: an index whose stored fields stay packed behind a bounded
//! page cache answers exactly as one holding them unpacked (ids, scores,
//! stored fields, snippets), however small the cache, across commits,
//! merges, deletes and reopens; and the cache stays within its bound.

use memdex::index::load::{load, load_with};
use memdex::storage::MemoryStorage;
use memdex::{Index, IndexConfig, SearchOptions};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

const WORDS: &[&str] = &[
    "memory", "agent", "deploy", "friday", "rule", "cache", "page", "segment", "vector", "note",
    "meeting", "budget", "release", "review", "bug", "fix", "user", "prefers", "dark", "mode",
    "café", "naïve", "東京", "résumé", "ship", "test", "index", "search", "query", "limit",
];

/// A deterministic word stream (xorshift), so runs are reproducible.
struct Words(u64);
impl Words {
    fn next(&mut self) -> &'static str {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        WORDS[(self.0 % WORDS.len() as u64) as usize]
    }
    fn text(&mut self, n: usize) -> String {
        (0..n).map(|_| self.next()).collect::<Vec<_>>().join(" ")
    }
}

fn doc(i: usize, w: &mut Words) -> memdex::json::Value {
    let text = w.text(5 + i % 60);
    let title = w.text(3);
    let ns = ["a", "b", "c"][i % 3];
    memdex::json::parse(&format!(
        r#"{{"id":"d{i}","title":"{title}","text":"{text} \"quoted\" \\ {i}","namespace":"{ns}"}}"#
    ))
    .unwrap()
}

/// Commits 2,000 documents in five commits (merges happen), deletes and
/// replaces some, and returns the storage.
fn stored_index() -> MemoryStorage {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let mut w = Words(7);
    for batch in 0..5 {
        for i in batch * 400..(batch + 1) * 400 {
            index.add(&doc(i, &mut w)).unwrap();
        }
        for i in (batch * 400..(batch + 1) * 400).step_by(37) {
            index.delete(&format!("d{i}"));
        }
        index.add(&doc(batch * 11, &mut w)).unwrap(); // a replacement
        block_on(index.commit(&storage, "m")).unwrap();
    }
    storage
}

fn answers(index: &mut Index) -> Vec<Vec<memdex::Hit>> {
    let opts = SearchOptions::from_json(
        &memdex::json::parse(r#"{"limit":20,"highlight":{"snippetLength":60}}"#).unwrap(),
    )
    .unwrap();
    let mut w = Words(99);
    (0..120)
        .map(|q| {
            let query = w.text(1 + q % 3);
            index.searcher().search(&query, &opts).unwrap().hits
        })
        .collect()
}

fn docs(index: &Index) -> Vec<Option<String>> {
    (0..2400)
        .map(|i| index.snapshot().get_json(&format!("d{i}")))
        .collect()
}

#[test]
fn packed_indexes_answer_like_unpacked_ones() {
    let storage = stored_index();
    let mut eager =
        Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let want = answers(&mut eager);
    let want_docs = docs(&eager);
    assert!(eager.stats().cache.is_none());
    assert!(want.iter().filter(|h| !h.is_empty()).count() > 100);
    for limit in [0, 1, 70_000, 1 << 30] {
        let loaded = block_on(load_with(&storage, "m", Some(limit)))
            .unwrap()
            .unwrap();
        let mut packed = Index::from_loaded(loaded, None).unwrap();
        assert_eq!(answers(&mut packed), want, "cacheBytes {limit}");
        assert_eq!(docs(&packed), want_docs, "cacheBytes {limit}");
        let stats = packed.stats().cache.unwrap();
        assert!(stats.bytes <= stats.limit, "{stats:?}");
        assert!(stats.unpacks > 0);
        if limit == 0 {
            assert_eq!(stats.hits, 0, "nothing fits: every read unpacks");
        }
        // The stored fields are packed: far fewer heap bytes than unpacked.
        assert!(packed.stats().bytes < eager.stats().bytes * 3 / 4);
    }
}

#[test]
fn packed_indexes_write_merge_and_reopen_alike() {
    let storage = stored_index();
    let open = |cache: Option<usize>| {
        Index::from_loaded(
            block_on(load_with(&storage, "m", cache)).unwrap().unwrap(),
            None,
        )
        .unwrap()
    };
    let (mut eager, mut packed) = (open(None), open(Some(100_000)));
    let mut mem = open(None);
    mem.set_doc_cache(10_000);
    let mut w = Words(3);
    for i in 2000..2400 {
        let d = doc(i, &mut w);
        for index in [&mut eager, &mut packed, &mut mem] {
            index.add(&d).unwrap();
        }
    }
    for index in [&mut eager, &mut packed, &mut mem] {
        index.delete("d5");
        index.compact();
    }
    let want = answers(&mut eager);
    assert_eq!(answers(&mut packed), want);
    assert_eq!(answers(&mut mem), want);
    assert_eq!(docs(&packed), docs(&eager));
    // A packed index's commit reopens as the unpacked one's does.
    block_on(packed.commit(&storage, "m")).unwrap();
    let mut reopened = open(None);
    assert_eq!(answers(&mut reopened), want);
    assert_eq!(docs(&reopened), docs(&eager));
}
