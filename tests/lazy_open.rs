//! Lazy open: an index opened from its segment heads, fetching term shards,
//! doc store pages and surface words as searches need them, answers exactly
//! as the fully loaded index (ids, scores, stored fields, snippets, totals)
//! for plain, AND, phrase, prefix, typo and filtered searches, across
//! segments with tombstones, under any `cacheBytes` (eviction included);
//! and damaged or missing parts are errors that leave it usable.

use memdex::index::lazy::{LazyIndex, Opened};
use memdex::index::load::load;
use memdex::storage::{MemoryStorage, Storage};
use memdex::{Index, IndexConfig, SearchOptions};

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// Deterministic words (xorshift) over a vocabulary of `n` made-up words
/// and a few stemmed English ones, so segments hold many term shards.
struct Words(u64);
impl Words {
    fn next(&mut self) -> String {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        const ENGLISH: &[&str] = &[
            "deploying",
            "memories",
            "running",
            "caches",
            "agents",
            "fixed",
        ];
        match self.0 % 7 {
            0 => ENGLISH[(self.0 >> 8) as usize % ENGLISH.len()].to_string(),
            _ => format!("w{}", (self.0 >> 8) % 4000),
        }
    }
    fn text(&mut self, n: usize) -> String {
        (0..n).map(|_| self.next()).collect::<Vec<_>>().join(" ")
    }
}

fn doc(i: usize, w: &mut Words) -> memdex::json::Value {
    let (title, text) = (w.text(3), w.text(5 + i % 40));
    let ns = ["a", "b", "c"][i % 3];
    memdex::json::parse(&format!(
        r#"{{"id":"d{i}","title":"{title}","text":"{text}","namespace":"{ns}"}}"#
    ))
    .unwrap()
}

/// 6,000 documents in three commits (three segments: a merge would make
/// fewer), with deletes and replacements.
fn stored_index() -> MemoryStorage {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let mut w = Words(7);
    for batch in 0..3 {
        for i in batch * 2000..(batch + 1) * 2000 {
            index.add(&doc(i, &mut w)).unwrap();
        }
        for i in (batch * 2000..(batch + 1) * 2000).step_by(37) {
            index.delete(&format!("d{i}"));
        }
        index.add(&doc(batch * 11, &mut w)).unwrap();
        block_on(index.commit(&storage, "m")).unwrap();
    }
    storage
}

fn queries() -> Vec<(String, SearchOptions)> {
    let opts = |json: &str| SearchOptions::from_json(&memdex::json::parse(json).unwrap()).unwrap();
    let mut w = Words(99);
    let mut out = Vec::new();
    for q in 0..60 {
        let words = w.text(1 + q % 3);
        out.push((
            words.clone(),
            opts(r#"{"limit":10,"highlight":{"snippetLength":60}}"#),
        ));
        out.push((words.clone(), opts(r#"{"limit":5,"mode":"and"}"#)));
    }
    out.push(("w12*".into(), opts(r#"{"limit":20}"#)));
    out.push(("deploy".into(), opts(r#"{"limit":20,"prefix":true}"#)));
    out.push(("memoris~1 w1999".into(), opts(r#"{"limit":20}"#)));
    out.push(("runing".into(), opts(r#"{"limit":20,"fuzzy":"auto"}"#)));
    out.push(("w17~1".into(), opts(r#"{"limit":20}"#)));
    out.push(("\"deploying memories\"".into(), opts(r#"{"limit":20}"#)));
    out.push((
        "agents".into(),
        opts(r#"{"limit":20,"filter":{"namespace":"b"}}"#),
    ));
    out.push((
        "w5 w6".into(),
        opts(r#"{"limit":20,"offset":5,"trackTotal":true}"#),
    ));
    // Passes a lazy search keeps across its rounds (the AND pass, then OR).
    out.push((
        "w3 w4 w1999".into(),
        opts(r#"{"limit":10,"mode":"fallback","minHits":5,"highlight":true}"#),
    ));
    out.push((
        "w8 w9".into(),
        opts(r#"{"limit":10,"proximity":true,"highlight":true}"#),
    ));
    out
}

/// Hits (ids, scores, fields, snippets) and totals, as comparable text.
fn answer(r: memdex::Result<memdex::SearchResults>) -> String {
    match r {
        Ok(r) => format!(
            "{:?} {:?} {} {:?}",
            r.hits, r.total, r.total_exact, r.limited
        ),
        Err(e) => format!("error {}", e.code()),
    }
}

#[test]
fn lazy_indexes_answer_like_fully_loaded_ones() {
    let storage = stored_index();
    let mut full =
        Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let want: Vec<String> = queries()
        .iter()
        .map(|(q, o)| answer(full.searcher().search(q, o)))
        .collect();
    let answered = want.iter().filter(|a| a.contains("score")).count();
    assert!(answered > 90, "{answered} of {} answered", want.len());
    for limit in [0, 50_000, 1 << 30] {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", limit))
            .unwrap()
            .unwrap();
        assert_eq!(lazy.index().len(), full.len());
        // Twice: cold, then with what the first pass left held.
        for pass in 0..2 {
            for ((q, o), want) in queries().iter().zip(&want) {
                let got = answer(block_on(lazy.search(&storage, q, o)));
                assert_eq!(&got, want, "cacheBytes {limit}, pass {pass}, query {q:?}");
            }
        }
        let stats = lazy.stats();
        assert!(stats.fetches > 0, "{stats:?}");
        assert!(
            stats.bytes <= stats.limit.max(stats.last_search_bytes),
            "{stats:?}"
        );
        if limit == 1 << 30 {
            assert!(
                stats.hits > stats.fetches,
                "held units answer later searches: {stats:?}"
            );
        }
    }
}

/// Reads by id find what the fully loaded index finds: replaced documents
/// as their newest copy, deleted and unknown ids as nothing.
#[test]
fn lazy_reads_by_id_like_fully_loaded_ones() {
    let storage = stored_index();
    let full = Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let mut ids: Vec<String> = (0..6000).step_by(7).map(|i| format!("d{i}")).collect();
    ids.extend(["d0", "d11", "d22", "d37", "d74", "", "nope"].map(String::from));
    let want: Vec<Option<String>> = ids.iter().map(|id| full.snapshot().get_json(id)).collect();
    assert!(want.iter().filter(|w| w.is_some()).count() > 800);
    assert!(want[ids.len() - 4].is_none(), "d37 was deleted");
    for limit in [0, 1 << 30] {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", limit))
            .unwrap()
            .unwrap();
        for (id, want) in ids.iter().zip(&want) {
            let got = block_on(lazy.get_json(&storage, id, false)).unwrap();
            assert_eq!(&got, want, "cacheBytes {limit}, id {id:?}");
        }
    }
}

/// Completions are the fully loaded index's, cold and warm.
#[test]
fn lazy_suggestions_are_the_fully_loaded_ones() {
    let storage = stored_index();
    let full = Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let prefixes = [
        "dep",
        "memo",
        "w1",
        "w19",
        "agents ru",
        "w5 w",
        "zzz",
        "",
        "r",
    ];
    for limit in [0, 1 << 30] {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", limit))
            .unwrap()
            .unwrap();
        for pass in 0..2 {
            for p in prefixes {
                let want = full.snapshot().suggest(p, 8);
                let got = block_on(lazy.suggest(&storage, p, 8)).unwrap();
                assert_eq!(got, want, "cacheBytes {limit}, pass {pass}, prefix {p:?}");
            }
        }
    }
    assert!(!full.snapshot().suggest("dep", 8).is_empty());
}

/// `open_above` reports an index of at most the bound by its committed
/// size (the same the lazy open reports), and opens a larger one lazily.
#[test]
fn open_above_opens_lazily_only_above_the_bound() {
    let storage = stored_index();
    let open = |below| {
        block_on(LazyIndex::open_above(&storage, "m", 1 << 20, below))
            .unwrap()
            .unwrap()
    };
    let Opened::Lazy(lazy) = open(None) else {
        panic!("no bound: lazy")
    };
    let committed = lazy.stats().committed_bytes;
    let blobs: u64 = block_on(storage.list("m/"))
        .unwrap()
        .iter()
        .filter(|k| !k.ends_with("manifest"))
        .map(|k| block_on(storage.get(k)).unwrap().unwrap().len() as u64)
        .sum();
    // Payloads only: every blob's framing is left out, the tombstones too.
    assert!(
        committed < blobs && committed > blobs * 9 / 10,
        "{committed} of {blobs}"
    );
    assert!(matches!(open(Some(committed)), Opened::Small(c) if c == committed));
    assert!(matches!(open(Some(committed - 1)), Opened::Lazy(_)));
    let empty = MemoryStorage::new();
    assert!(
        block_on(LazyIndex::open_above(&empty, "m", 0, Some(1 << 30)))
            .unwrap()
            .is_none()
    );
}

/// Opening reads the heads and ids only: a small share of the index.
#[test]
fn lazy_open_reads_a_small_share() {
    let storage = stored_index();
    let counting = Watched::new(storage);
    let lazy = block_on(LazyIndex::open(&counting, "m", 1 << 20))
        .unwrap()
        .unwrap();
    let opened = counting.read.get();
    let keys = block_on(counting.inner.list("m/")).unwrap();
    let total: usize = keys
        .iter()
        .map(|k| block_on(counting.inner.get(k)).unwrap().unwrap().len())
        .sum();
    assert!(opened * 3 < total, "open read {opened} of {total} bytes");
    drop(lazy);
}

/// A part that fails to read or reads damaged is an error naming it; the
/// index answers the next search once the storage works again.
#[test]
fn failing_and_damaged_parts_are_errors_that_leave_the_index_usable() {
    let storage = stored_index();
    let (q, o) = &queries()[0];
    let mut full =
        Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let want = answer(full.searcher().search(q, o));
    // Failing reads after the open.
    let faulty = Watched::new(stored_index());
    let mut lazy = block_on(LazyIndex::open(&faulty, "m", 1 << 20))
        .unwrap()
        .unwrap();
    faulty.fail_gets.set(true);
    let err = block_on(lazy.search(&faulty, q, o)).unwrap_err();
    assert_eq!(err.code(), "STORAGE", "{err}");
    faulty.fail_gets.set(false);
    assert_eq!(answer(block_on(lazy.search(&faulty, q, o))), want);
    // A damaged part: flip a byte of every part blob after the open.
    let mut lazy = block_on(LazyIndex::open(&storage, "m", 1 << 20))
        .unwrap()
        .unwrap();
    let keys = block_on(storage.list("m/blob/")).unwrap();
    let mut saved = Vec::new();
    for key in &keys {
        let mut bytes = block_on(storage.get(key)).unwrap().unwrap();
        saved.push((key.clone(), bytes.clone()));
        let at = bytes.len() / 2;
        bytes[at] ^= 0x40;
        block_on(storage.put(key, &bytes)).unwrap();
    }
    let err = block_on(lazy.search(&storage, q, o)).unwrap_err();
    assert_eq!(err.code(), "CORRUPT", "{err}");
    for (key, bytes) in saved {
        block_on(storage.put(&key, &bytes)).unwrap();
    }
    assert_eq!(answer(block_on(lazy.search(&storage, q, o))), want);
}

/// A search that would fetch more than the cap (a typo of a word with
/// digits walks the whole dictionary) is `LIMIT`; the index answers the
/// next one.
#[test]
fn a_search_fetching_past_the_cap_is_limit() {
    let storage = stored_index();
    let opts = SearchOptions::default();
    let fetched = |q: &str| {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", 1 << 20))
            .unwrap()
            .unwrap();
        block_on(lazy.search(&storage, q, &opts)).unwrap();
        lazy.stats().fetched_bytes as usize
    };
    let (narrow, walk) = (fetched("w17 w18"), fetched("w17~1"));
    assert!(walk > narrow * 2, "{walk} against {narrow}");
    let mut lazy = block_on(LazyIndex::open(&storage, "m", 1 << 20))
        .unwrap()
        .unwrap();
    lazy.set_fetch_cap((narrow + walk) / 2);
    let err = block_on(lazy.search(&storage, "w17~1", &opts)).unwrap_err();
    assert_eq!(err.code(), "LIMIT", "{err}");
    let full = Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None);
    let want = answer(full.unwrap().searcher().search("w17 w18", &opts));
    assert_eq!(
        answer(block_on(lazy.search(&storage, "w17 w18", &opts))),
        want
    );
}

/// Nothing stored is `None`; blobs without their manifest are a lost
/// manifest (`CORRUPT`), as for a full load.
#[test]
fn a_lost_manifest_is_corrupt_and_nothing_stored_is_none() {
    let empty = MemoryStorage::new();
    assert!(block_on(LazyIndex::open(&empty, "m", 1 << 20))
        .unwrap()
        .is_none());
    let storage = stored_index();
    block_on(storage.delete("m/manifest")).unwrap();
    let err = block_on(LazyIndex::open(&storage, "m", 1 << 20))
        .err()
        .unwrap();
    assert_eq!(err.code(), "CORRUPT", "{err}");
}

/// Memory storage that counts the bytes `get` returns and can fail gets.
struct Watched {
    inner: MemoryStorage,
    read: std::cell::Cell<usize>,
    fail_gets: std::cell::Cell<bool>,
}

impl Watched {
    fn new(inner: MemoryStorage) -> Watched {
        Watched {
            inner,
            read: Default::default(),
            fail_gets: Default::default(),
        }
    }
}

impl Storage for Watched {
    async fn get(&self, key: &str) -> memdex::Result<Option<Vec<u8>>> {
        if self.fail_gets.get() {
            return Err(memdex::Error::Storage {
                key: key.to_string(),
                reason: "injected read failure".into(),
                adapter_reason: None,
            });
        }
        let v = self.inner.get(key).await?;
        self.read
            .set(self.read.get() + v.as_ref().map_or(0, Vec::len));
        Ok(v)
    }
    async fn put(&self, key: &str, value: &[u8]) -> memdex::Result<()> {
        self.inner.put(key, value).await
    }
    async fn delete(&self, key: &str) -> memdex::Result<()> {
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str) -> memdex::Result<Vec<String>> {
        self.inner.list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> memdex::Result<bool> {
        self.inner.swap(key, expected, value).await
    }
}

/// Letters-only words (stemmed, so recorded as surface words) over a
/// vocabulary of about `n`: enough for many surface word shards.
fn letter_words(seed: u64, n: u64, count: usize) -> Vec<String> {
    let mut x = seed;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut v = (x >> 5) % n + n;
            let mut word = String::new();
            while v > 0 {
                word.push((b'a' + (v % 26) as u8) as char);
                v /= 26;
            }
            word
        })
        .collect()
}

/// Typos and completions over segments of many surface word shards
/// (format 8): the fully loaded answers, cold and warm (that a typo
/// fetches only the shards of its first two letters: the unit tests of
/// `index::lazy`).
#[test]
fn typos_and_completions_fetch_their_letters_only() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let words = letter_words(3, 1 << 22, 120_000);
    for (i, chunk) in words.chunks(40).enumerate() {
        let text = chunk.join(" ");
        let doc = format!(r#"{{"id":"d{i}","text":"{text}"}}"#);
        index.add(&memdex::json::parse(&doc).unwrap()).unwrap();
        if i == 1500 {
            block_on(index.commit(&storage, "m")).unwrap();
        }
    }
    index.delete("d7");
    block_on(index.commit(&storage, "m")).unwrap();
    let mut full =
        Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let typo = SearchOptions::from_json(
        &memdex::json::parse(r#"{"limit":10,"fuzzy":"auto","highlight":true}"#).unwrap(),
    )
    .unwrap();
    // Words of the index with two letters swapped or one changed, and
    // words it lacks.
    let mut queries: Vec<String> = letter_words(3, 1 << 22, 30)
        .into_iter()
        .map(|w| {
            let mut c: Vec<char> = w.chars().collect();
            c.swap(1, 2);
            c.into_iter().collect()
        })
        .collect();
    queries.extend(["qqqqqq", "zz", "a"].map(String::from));
    let want: Vec<String> = queries
        .iter()
        .map(|q| answer(full.searcher().search(q, &typo)))
        .collect();
    assert!(want.iter().filter(|a| a.contains("score")).count() > 20);
    let prefixes = ["a", "ba", "zq", "cab", "q", "x"];
    for limit in [0, 1 << 30] {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", limit))
            .unwrap()
            .unwrap();
        for pass in 0..2 {
            for (q, want) in queries.iter().zip(&want) {
                let got = answer(block_on(lazy.search(&storage, q, &typo)));
                assert_eq!(&got, want, "cacheBytes {limit}, pass {pass}, {q:?}");
            }
            for p in prefixes {
                let got = block_on(lazy.suggest(&storage, p, 8)).unwrap();
                assert_eq!(got, full.snapshot().suggest(p, 8), "{limit} {pass} {p:?}");
            }
        }
    }
}

/// Link expansion (both ways, two hops, across segments and to deleted
/// documents), diversity and dedupe find ids as they rank: a lazy index
/// (no id map) answers them as the fully loaded one does.
#[test]
fn expand_diversity_and_dedupe_answer_like_fully_loaded_ones() {
    let storage = MemoryStorage::new();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let mut w = Words(31);
    for batch in 0..3 {
        for i in batch * 1000..(batch + 1) * 1000 {
            let (a, b) = ((i * 7 + 3) % 3000, (i * 13 + 1) % 3000);
            // Every fifth document repeats another's text (dedupe).
            let text = match i % 5 {
                0 => format!("deploying memories {}", i / 50),
                _ => w.text(6),
            };
            let doc = format!(
                r#"{{"id":"d{i}","text":"{text}","links":[{{"type":"DEPENDS_ON","to":"d{a}"}},{{"type":"SEE","to":"d{b}"}}]}}"#
            );
            index.add(&memdex::json::parse(&doc).unwrap()).unwrap();
        }
        for i in (batch * 1000..(batch + 1) * 1000).step_by(41) {
            index.delete(&format!("d{i}"));
        }
        block_on(index.commit(&storage, "m")).unwrap();
    }
    let mut full =
        Index::from_loaded(block_on(load(&storage, "m")).unwrap().unwrap(), None).unwrap();
    let opts = |json: &str| SearchOptions::from_json(&memdex::json::parse(json).unwrap()).unwrap();
    let cases = [
        r#"{"limit":10,"expand":{"hops":2,"direction":"both"}}"#,
        r#"{"limit":10,"expand":{"hops":1,"types":["SEE"],"direction":"in"}}"#,
        r#"{"limit":10,"diversity":{"lambda":0.5}}"#,
        r#"{"limit":10,"dedupe":true}"#,
        r#"{"limit":5,"dedupe":true,"expand":{"hops":1}}"#,
    ];
    let queries = ["deploying memories", "agents running", "w17 w300", "caches"];
    let mut want = Vec::new();
    for case in cases {
        for q in queries {
            want.push(answer(full.searcher().search(q, &opts(case))));
        }
    }
    assert!(want.iter().filter(|a| a.contains("via: Some")).count() >= 4);
    for limit in [0, 1 << 30] {
        let mut lazy = block_on(LazyIndex::open(&storage, "m", limit))
            .unwrap()
            .unwrap();
        let mut want = want.iter();
        for case in cases {
            for q in queries {
                let got = answer(block_on(lazy.search(&storage, q, &opts(case))));
                assert_eq!(
                    &got,
                    want.next().unwrap(),
                    "cacheBytes {limit}, {case} {q:?}"
                );
            }
        }
    }
}
