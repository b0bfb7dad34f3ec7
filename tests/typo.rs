//! Typo tolerance (optimal string alignment distance against surface words
//! mapped to their stems) and autocomplete (surface words, whole-query
//! completion), through the public Rust API; the surface dictionary across
//! flush, merge, commit/reopen and snapshots.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use memdex::query::plan::FUZZY_AUTO;
use memdex::storage::MemoryStorage;
use memdex::{Index, IndexConfig, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

const DOCS: &[(&str, &str)] = &[
    (
        "deploy",
        "Deployment checklist: deploy on Friday only with a rollback plan.",
    ),
    (
        "zustand",
        "State management: we use Zustand stores, not Redux.",
    ),
    (
        "vitest",
        "Testing: run the unit tests with Vitest in watch mode.",
    ),
    (
        "retries",
        "HTTP client retries failed requests three times with backoff.",
    ),
    ("pnpm", "Use pnpm, not npm, for installs in the monorepo."),
    ("friday", "Friday retro: the deploy froze the fridge app."),
    (
        "features",
        "Feature flags gate every new feature; features ship dark.",
    ),
];

fn index(docs: &[(&str, &str)]) -> Index {
    let mut ix = Index::new(IndexConfig::default()).unwrap();
    for (id, text) in docs {
        ix.add(&json!({"id": id, "text": text})).unwrap();
    }
    ix
}

fn ids(ix: &mut Index, q: &str, fuzzy: u8) -> Vec<String> {
    let opts = SearchOptions {
        fuzzy,
        ..SearchOptions::default()
    };
    common::hit_ids(ix, q, &opts)
}

const TYPOS: &[(&str, &str)] = &[
    ("deploymnet", "deploy"),
    ("zustnad", "zustand"),
    ("vitset", "vitest"),
    ("retires", "retries"),
    ("pnmp", "pnpm"),
];

/// Every typo finds its document first with `fuzzy: 'auto'` and `1`; none
/// finds it without tolerance.
fn check_typos(ix: &mut Index, what: &str) {
    for &(typo, id) in TYPOS {
        assert!(
            !ids(ix, typo, 0).contains(&id.to_string()),
            "{what}: {typo} without tolerance"
        );
        for fuzzy in [FUZZY_AUTO, 1] {
            let got = ids(ix, typo, fuzzy);
            assert_eq!(
                got.first().map(String::as_str),
                Some(id),
                "{what}: {typo}~{fuzzy}: {got:?}"
            );
        }
    }
}

#[test]
fn swapped_letter_typos_find_their_documents() {
    let mut ix = index(DOCS);
    check_typos(&mut ix, "buffered");
    ix.flush();
    check_typos(&mut ix, "flushed");
}

#[test]
fn surface_words_survive_merge_commit_reopen_and_snapshot() {
    let mut ix = index(&DOCS[..3]);
    ix.flush();
    for doc in &DOCS[3..] {
        ix.add(&json!({"id": doc.0, "text": doc.1})).unwrap();
        ix.flush();
    }
    check_typos(&mut ix, "segments");
    ix.compact();
    check_typos(&mut ix, "merged");
    let storage = MemoryStorage::new();
    pollster::block_on(ix.commit(&storage, "t")).unwrap();
    let mut reopened = pollster::block_on(Index::open(&storage, "t", None)).unwrap();
    check_typos(&mut reopened, "reopened");
    assert_eq!(
        reopened.searcher().suggest("dep", 5),
        ix.searcher().suggest("dep", 5)
    );
    let mut copy = Index::import_snapshot(&ix.export_snapshot()).unwrap();
    check_typos(&mut copy, "snapshot");
}

#[test]
fn exact_matches_outrank_typo_matches() {
    let mut ix = index(&[
        ("one", "vizit the museum"),
        ("exact", "visit the museum"),
        ("two", "vyzit the museum"),
    ]);
    for fuzzy in [1, 2] {
        let opts = SearchOptions {
            fuzzy,
            ..SearchOptions::default()
        };
        let res = ix.searcher().search("visit", &opts).unwrap();
        let got: Vec<&str> = res.hits.iter().map(|h| h.id.as_str()).collect();
        let want: &[&str] = if fuzzy == 1 {
            &["exact", "one"]
        } else {
            &["exact", "one", "two"]
        };
        assert_eq!(got, want);
        // Same document length and idf would score alike: the factor is
        // 0.5 per edit.
        for pair in res.hits.windows(2) {
            assert!(pair[0].score > pair[1].score * 1.5, "{:?}", res.hits);
        }
    }
}

#[test]
fn auto_distance_follows_word_length() {
    let mut ix = index(&[("cat", "a cat sat"), ("long", "configuration management")]);
    // 3 letters: no tolerance; `cta` is not `cat`.
    assert!(ids(&mut ix, "cta", FUZZY_AUTO).is_empty());
    assert_eq!(ids(&mut ix, "cta", 1), vec!["cat"]);
    // 13 letters: two edits.
    assert_eq!(ids(&mut ix, "confgiuratoin", FUZZY_AUTO), vec!["long"]);
    assert!(ids(&mut ix, "confgiuratoin", 1).is_empty());
}

fn suggestions(ix: &mut Index, text: &str) -> Vec<String> {
    ix.searcher()
        .suggest(text, 10)
        .into_iter()
        .map(|s| s.suggestion)
        .collect()
}

#[test]
fn suggest_offers_words_then_completes_in_context() {
    let mut ix = index(DOCS);
    // Words as written, not stems (`featur`), most frequent first.
    let f = suggestions(&mut ix, "f");
    assert!(f.contains(&"feature".to_string()), "{f:?}");
    assert!(f.contains(&"features".to_string()), "{f:?}");
    assert!(!f.iter().any(|s| s == "featur"), "{f:?}");
    assert_eq!(f[0], "friday", "{f:?}");
    // The last word completed among documents containing the earlier ones.
    let d = suggestions(&mut ix, "deploy fr");
    assert_eq!(d[0], "deploy friday", "{d:?}");
    assert!(d.contains(&"deploy froze".to_string()), "{d:?}");
    assert!(!d.contains(&"deploy flags".to_string()), "{d:?}");
    // "fridge" is in a deploy document too; "free" nowhere.
    assert!(!suggestions(&mut ix, "zustand fr")
        .iter()
        .any(|s| s.contains("friday")));
    assert!(suggestions(&mut ix, "deploy ").is_empty());
    assert!(suggestions(&mut ix, "").is_empty());
    // Case and width are normalized as indexed text is.
    assert_eq!(suggestions(&mut ix, "  DEP"), suggestions(&mut ix, "dep"));
}

#[test]
fn suggest_forgets_deleted_documents_at_once() {
    let mut ix = index(DOCS);
    ix.flush();
    assert!(suggestions(&mut ix, "zus").contains(&"zustand".to_string()));
    assert!(ix.delete("zustand"));
    assert!(suggestions(&mut ix, "zus").is_empty());
    ix.compact();
    assert!(suggestions(&mut ix, "zus").is_empty());
    assert!(ids(&mut ix, "zustnad", 1).is_empty());
}

#[test]
fn compounds_are_matched_whole() {
    let mut ix = index(&[("d2", "We chose PostgreSQL and getUserById.")]);
    assert_eq!(ids(&mut ix, "postgrsql", 1), ["d2"]);
    assert_eq!(ids(&mut ix, "getusrebyid", FUZZY_AUTO), ["d2"]);
    let s: Vec<String> = ix
        .searcher()
        .suggest("getu", 5)
        .into_iter()
        .map(|s| s.suggestion)
        .collect();
    assert_eq!(s, ["getuserbyid"]);
}
