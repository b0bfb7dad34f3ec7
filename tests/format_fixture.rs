//! Frozen format fixtures: indexes written by older builds must keep
//! opening (or fail with a clear VERSION error once a version is retired).
//! tests/fixtures/format-vN were written by `scripts/gen-format-fixture`
//! (scripts/gen/format_fixture.rs) with format version N and are never
//! regenerated.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

use memdex::storage::FsStorage;
use memdex::{Index, Mode, SearchOptions};

/// Format v1 (an `fst` term dictionary, written only by the unreleased
/// 0.1.0) is retired: its fixture must fail with a clear `VERSION` error
/// that says what to do, never open wrongly or as `CORRUPT`.
#[test]
fn format_v1_fixture_is_a_clear_version_error() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/format-v1");
    let err = pollster::block_on(Index::open(&FsStorage::new(dir), "fixture", None))
        .err()
        .expect("format v1 no longer opens");
    assert_eq!(
        err,
        memdex::Error::Version {
            expected: memdex::codec::blob::FORMAT_VERSION,
            got: 1
        }
    );
    assert!(err.to_string().contains("rebuild the index"), "{err}");
}

fn open_fixture(dir: &str) -> Index {
    let dir = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
    pollster::block_on(Index::open(&FsStorage::new(dir), "fixture", None)).expect("fixture opens")
}

/// Hit ids of `q`, in rank order.
fn hits(index: &mut Index, q: &str, mode: Mode) -> Vec<String> {
    let opts = SearchOptions {
        mode,
        ..Default::default()
    };
    let results = index.searcher().search(q, &opts).unwrap();
    results.hits.into_iter().map(|h| h.id).collect()
}

/// Queries that go through the term dictionary: exact terms, phrases,
/// prefixes, fuzzy terms (including a non-ASCII one), misses.
const DICT_QUERIES: &[&str] = &[
    "deploy friday",
    "segments",
    "\"dark mode\"",
    "deleted memory",
    "seg*",
    "w*",
    "deplo~1",
    "segmnts~2",
    "fridya~2",
    "brwser~1",
    "mïb~1",
    "wasm-opt",
    "k1 1.2",
    "zzz*",
];

/// Format v2 (front-coded term dictionary), frozen: opens and answers
/// dictionary-heavy queries (prefix, fuzzy, phrases, suggest) the way an
/// index rebuilt from its stored documents does.
#[test]
fn format_v2_fixture_opens_and_answers_like_a_rebuild() {
    let mut v2 = open_fixture("format-v2");
    let mut rebuilt = rebuild(&mut v2);
    assert_eq!(v2.len(), 7);
    assert_eq!(v2.generation(), 1);
    assert!(v2.snapshot().get("f4").is_none(), "the tombstone survived");
    assert_eq!(v2.snapshot().get("f1").unwrap()["title"], "Editor");
    assert_eq!(hits(&mut v2, "deploy friday", Mode::And), ["f0"]);
    assert_eq!(hits(&mut v2, "seg*", Mode::Or).len(), 2);
    assert_eq!(hits(&mut v2, "fridya~2", Mode::Or), ["f0"]);
    for q in DICT_QUERIES {
        for mode in [Mode::Or, Mode::And] {
            assert_eq!(
                hits(&mut rebuilt, q, mode),
                hits(&mut v2, q, mode),
                "{q} {mode:?}"
            );
        }
    }
    // Merged with a new (v3) segment, the v2 documents stay typo-matchable:
    // the v2 segment's terms stand in for its surface words.
    let mut merged = open_fixture("format-v2");
    let before: Vec<Vec<String>> = DICT_QUERIES
        .iter()
        .map(|q| hits(&mut merged, q, Mode::Or))
        .collect();
    merged
        .add(&memdex::json::parse(r#"{"id":"new","text":"a brand new memory"}"#).unwrap())
        .unwrap();
    merged.compact();
    for (q, want) in DICT_QUERIES.iter().zip(&before) {
        let mut got = hits(&mut merged, q, Mode::Or);
        got.retain(|id| id != "new");
        assert_eq!(&got, want, "{q} after merging v2 with v3");
    }
    // (Not compared with the rebuild: v2 segments have no surface words,
    // so their suggestions are index terms, stems included.)
    let de: Vec<String> = v2
        .searcher()
        .suggest("de", 10)
        .into_iter()
        .map(|s| s.suggestion)
        .collect();
    assert!(de.contains(&"deploy".to_string()), "{de:?}");
    // The blobs are version 2 (this is not the v1 fixture again).
    let blobs = format!(
        "{}/tests/fixtures/format-v2/fixture/blob",
        env!("CARGO_MANIFEST_DIR")
    );
    for entry in std::fs::read_dir(blobs).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert_eq!(bytes[4..8], 2u32.to_le_bytes());
    }
}

/// A fresh index with the fixture's schema holding its live documents.
fn rebuild(index: &mut Index) -> Index {
    let mut fresh = Index::new(index.config().clone()).unwrap();
    for id in ["f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7"] {
        if let Some(doc) = index.snapshot().get(id) {
            fresh.add(&doc).unwrap();
        }
    }
    fresh
}

/// Format v3 (vector and links columns, surface words), frozen: written by
/// `scripts/gen-format-fixture` with a 4-dimension `embedding` vector field
/// and a `NEXT` link from each document to the following one. It opens and
/// answers term, vector, link and typo queries the way an index rebuilt
/// from its stored documents (and the same vectors) does.
#[test]
fn format_v3_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v3", 3);
}

/// Format v4 (the compact tables: varint term, block, bound and length
/// tables, short doc store prefixes, sparse number columns), frozen: the
/// same fixture as v3's, written by format 4, answers the same.
#[test]
fn format_v4_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v4", 4);
}

/// Format v5 (the doc store in deflated pages), frozen: the same fixture,
/// written by format 5, answers the same.
#[test]
fn format_v5_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v5", 5);
}

/// Format v6 (each segment a head and a body of term shards, doc store
/// pages and surface words, in parts), frozen: the same fixture answers
/// the same.
#[test]
fn format_v6_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v6", 6);
}

/// Format v7 (the doc store's ids in blocks), frozen: the same fixture
/// answers the same.
#[test]
fn format_v7_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v7", 7);
}

/// Format v8 (the surface words in shards), frozen: the same fixture
/// answers the same.
#[test]
fn format_v8_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v8", 8);
}

/// Format v9 (doc store rows by shape, pages after a dictionary), frozen:
/// the same fixture answers the same.
#[test]
fn format_v9_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v9", 9);
}

/// Format v10 (the ids' order after the id blocks), frozen: the same
/// fixture answers the same.
#[test]
fn format_v10_fixture_opens_and_answers_like_a_rebuild() {
    answers_term_vector_link_and_typo_queries("format-v10", 10);
}

/// Formats 6 to 10 open lazily too, and answer as opened whole.
#[test]
fn format_v6_to_v10_fixtures_open_lazily() {
    use memdex::index::lazy::LazyIndex;
    for dir in [
        "format-v6",
        "format-v7",
        "format-v8",
        "format-v9",
        "format-v10",
    ] {
        let mut whole = open_fixture(dir);
        let path = format!("{}/tests/fixtures/{dir}", env!("CARGO_MANIFEST_DIR"));
        let storage = FsStorage::new(path);
        let mut lazy = pollster::block_on(LazyIndex::open(&storage, "fixture", 0))
            .unwrap()
            .unwrap();
        let opts = SearchOptions::from_json(
            &memdex::json::parse(r#"{"fuzzy":"auto","highlight":true}"#).unwrap(),
        )
        .unwrap();
        for q in ["deploy friday", "segmnets", "editor", "memory"] {
            let want = format!("{:?}", whole.searcher().search(q, &opts).unwrap().hits);
            let got = pollster::block_on(lazy.search(&storage, q, &opts)).unwrap();
            assert_eq!(format!("{:?}", got.hits), want, "{dir}: {q}");
        }
        for id in ["f1", "f4", "f7"] {
            let got = pollster::block_on(lazy.get_json(&storage, id, false)).unwrap();
            assert_eq!(got, whole.snapshot().get_json(id), "{dir}: {id}");
        }
        for prefix in ["dep", "seg", "zz", "a"] {
            let got = pollster::block_on(lazy.suggest(&storage, prefix, 10)).unwrap();
            assert_eq!(got, whole.snapshot().suggest(prefix, 10), "{dir}: {prefix}");
        }
    }
}

/// The v3 fixture's checks over the fixture in `dir`, whose blobs are
/// format `version`.
fn answers_term_vector_link_and_typo_queries(dir: &str, version: u32) {
    use memdex::query::options::ExpandOptions;

    let mut v3 = open_fixture(dir);
    assert_eq!(v3.len(), 7);
    assert!(v3.snapshot().get("f4").is_none(), "the tombstone survived");
    assert_eq!(v3.snapshot().get("f1").unwrap()["title"], "Editor");
    assert_eq!(hits(&mut v3, "deploy friday", Mode::And), ["f0"]);
    // Surface words: a typo of an unstemmed word, and whole-word suggestions.
    let typo =
        SearchOptions::from_json(&memdex::json::parse(r#"{"fuzzy":"auto"}"#).unwrap()).unwrap();
    let found: Vec<String> = v3
        .searcher()
        .search("segmnets", &typo)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect();
    assert!(found.contains(&"f3".to_string()), "{found:?}");
    let de: Vec<String> = v3
        .searcher()
        .suggest("dep", 10)
        .into_iter()
        .map(|s| s.suggestion)
        .collect();
    assert!(de.contains(&"deploy".to_string()), "{de:?}");
    // Vectors: f2's vector is one-hot on axis 2 (+0.25 on axis 3).
    let near = SearchOptions {
        vector: Some(vec![0.0, 0.0, 1.0, 0.25]),
        limit: 1,
        ..Default::default()
    };
    let top = v3.searcher().search("", &near).unwrap().hits;
    assert_eq!(top[0].id, "f2");
    assert!((top[0].score - 1.0).abs() < 1e-5, "{}", top[0].score);
    // Links: f5 -> f6 -> f7; f3 -> f4 is dropped (f4 was deleted).
    let two = ExpandOptions {
        hops: 2,
        ..Default::default()
    };
    assert_eq!(related_ids(&mut v3, "f5", &two), ["f6", "f7"]);
    assert!(v3
        .searcher()
        .related("f3", &ExpandOptions::default())
        .0
        .is_empty());
    // New commits beside v3 segments, then a merge: same answers.
    v3.add(&memdex::json::parse(r#"{"id":"new","text":"a brand new memory"}"#).unwrap())
        .unwrap();
    v3.compact();
    assert_eq!(hits(&mut v3, "deploy friday", Mode::And), ["f0"]);
    assert_eq!(v3.searcher().search("", &near).unwrap().hits[0].id, "f2");
    assert_eq!(related_ids(&mut v3, "f5", &two), ["f6", "f7"]);
    // The blobs are of the fixture's version.
    let blobs = format!(
        "{}/tests/fixtures/{dir}/fixture/blob",
        env!("CARGO_MANIFEST_DIR")
    );
    for entry in std::fs::read_dir(blobs).unwrap() {
        let bytes = std::fs::read(entry.unwrap().path()).unwrap();
        assert_eq!(bytes[4..8], version.to_le_bytes());
    }
}

/// The ids `related` reaches from `id`, over every write so far.
fn related_ids(
    index: &mut Index,
    id: &str,
    o: &memdex::query::options::ExpandOptions,
) -> Vec<String> {
    let (hits, _) = index.searcher().related(id, o);
    hits.into_iter().map(|h| h.id).collect()
}
