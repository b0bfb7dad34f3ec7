//! `total` against a brute-force count: exact for every search with at
//! most `trackTotal` matches (default 10,000), and past it a lower bound
//! (`totalExact: false`) that never exceeds the real count — whatever the
//! mode, the query shape (flat terms, conjunctions, negations, phrases),
//! field restrictions, filters, deletes and segmentation. Pages are small
//! so the top-k fills and MaxScore and block skipping prune.
#![cfg(not(target_arch = "wasm32"))]

use memdex::{Index, IndexConfig, Mode, SearchOptions};
use proptest::prelude::*;

/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

/// Words that analyze to themselves (no stemming, no stopword).
fn word(i: usize) -> String {
    format!("w{i}")
}

#[derive(Debug, Clone)]
struct Doc {
    title: Vec<usize>,
    text: Vec<usize>,
    namespace: usize,
}

#[derive(Debug, Clone)]
struct Query {
    words: Vec<usize>,
    negated: Option<usize>,
    mode: Mode,
    title_only: bool,
    namespace: Option<usize>,
}

fn doc() -> impl Strategy<Value = Doc> {
    // A skewed vocabulary: low ids are common, so some terms are frequent
    // (they turn non-essential) and others rare.
    let w = prop_oneof![3 => 0usize..4, 2 => 0usize..12, 1 => 0usize..40];
    (
        prop::collection::vec(w.clone(), 0..3),
        prop::collection::vec(w, 1..8),
        0usize..3,
    )
        .prop_map(|(title, text, namespace)| Doc {
            title,
            text,
            namespace,
        })
}

fn query() -> impl Strategy<Value = Query> {
    (
        prop::collection::vec(0usize..40, 1..5),
        prop::option::of(0usize..12),
        prop_oneof![Just(Mode::Or), Just(Mode::And), Just(Mode::Fallback)],
        any::<bool>(),
        prop::option::of(0usize..3),
    )
        .prop_map(|(words, negated, mode, title_only, namespace)| Query {
            words,
            negated,
            mode,
            title_only,
            namespace,
        })
}

fn build(docs: &[Doc], deleted: &[bool], flush_every: usize) -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for (i, d) in docs.iter().enumerate() {
        let text = |ws: &[usize]| ws.iter().map(|&w| word(w)).collect::<Vec<_>>().join(" ");
        index
            .add(&json!({
                "id": format!("d{i}"),
                "title": text(&d.title),
                "text": text(&d.text),
                "namespace": format!("ns{}", d.namespace),
            }))
            .unwrap();
        if (i + 1) % flush_every == 0 {
            index.flush();
        }
    }
    for (i, _) in deleted.iter().enumerate().filter(|(_, &gone)| gone) {
        index.delete(&format!("d{i}"));
    }
    index
}

/// The live documents the query matches, counted one by one.
fn brute_force(docs: &[Doc], deleted: &[bool], q: &Query, mode: Mode) -> usize {
    docs.iter()
        .zip(deleted)
        .filter(|(d, &gone)| {
            let has = |w: usize| d.title.contains(&w) || (!q.title_only && d.text.contains(&w));
            let terms = match mode {
                Mode::And => q.words.iter().all(|&w| has(w)),
                _ => q.words.iter().any(|&w| has(w)),
            };
            // `fields` restricts every term, the negated one too.
            let excluded = q.negated.is_some_and(has);
            !gone && terms && !excluded && q.namespace.is_none_or(|ns| d.namespace == ns)
        })
        .count()
}

fn search(index: &mut Index, q: &Query, track_total: Option<usize>) -> memdex::SearchResults {
    let mut text: Vec<String> = q.words.iter().map(|&w| word(w)).collect();
    if let Some(w) = q.negated {
        text.push(format!("-{}", word(w)));
    }
    let mut opts = SearchOptions {
        mode: q.mode,
        limit: 2,
        ..Default::default()
    };
    if q.title_only {
        opts.fields = Some([("title".to_string(), 1.0)].into_iter().collect());
    }
    if let Some(ns) = q.namespace {
        opts.filter = Some(json!({ "namespace": format!("ns{ns}") }));
    }
    if let Some(cap) = track_total {
        opts.track_total = cap;
    }
    index.searcher().search(&text.join(" "), &opts).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn total_is_exact_up_to_the_cap_and_a_lower_bound_past_it(
        docs in prop::collection::vec(doc(), 1..400),
        deleted_bits in prop::collection::vec(prop::bool::weighted(0.1), 400),
        flush_every in 20usize..200,
        queries in prop::collection::vec(query(), 1..8),
        cap in prop_oneof![Just(None), (1usize..60).prop_map(Some)],
    ) {
        let deleted = &deleted_bits[..docs.len()];
        let mut index = build(&docs, deleted, flush_every);
        for q in &queries {
            let r = search(&mut index, q, cap);
            // Fallback answers in the mode it ended in.
            let truth = brute_force(&docs, deleted, q, r.mode);
            let total = r.total.expect("ranked searches report a total");
            let cap = cap.unwrap_or(memdex::query::options::DEFAULT_TRACK_TOTAL);
            if truth <= cap {
                prop_assert!(r.total_exact, "{q:?}: {truth} matches within the cap {cap}, total {total} not exact");
                prop_assert_eq!(total, truth, "{:?}", q);
            } else {
                prop_assert!(!r.total_exact, "{q:?}: {truth} matches past the cap {cap}, total {total} claimed exact");
                prop_assert!(total >= cap && total <= truth, "{q:?}: lower bound {total}, cap {cap}, truth {truth}");
            }
        }
    }
}

#[test]
fn a_phrase_query_counts_exactly_too() {
    let docs: Vec<Doc> = (0..300)
        .map(|i| Doc {
            title: vec![],
            text: if i % 3 == 0 {
                vec![1, 2, 5]
            } else {
                vec![2, 1, 5]
            },
            namespace: 0,
        })
        .collect();
    let mut index = build(&docs, &vec![false; docs.len()], 64);
    let opts = SearchOptions {
        limit: 2,
        ..Default::default()
    };
    let r = index.searcher().search("\"w1 w2\" w5", &opts).unwrap();
    assert_eq!((r.total, r.total_exact), (Some(300), true));
    let r = index.searcher().search("+\"w1 w2\"", &opts).unwrap();
    assert_eq!((r.total, r.total_exact), (Some(100), true));
}

#[test]
fn track_total_false_keeps_the_pruned_lower_bound_and_true_counts_all() {
    let docs: Vec<Doc> = (0..20_500)
        .map(|i| Doc {
            title: vec![],
            text: vec![i % 2, 7],
            namespace: 0,
        })
        .collect();
    let mut index = build(&docs, &vec![false; docs.len()], 5_000);
    let opts = |track: serde_json::Value| {
        SearchOptions::from_json(&json!({ "limit": 3, "trackTotal": track })).unwrap()
    };
    // Past the default cap: a lower bound of at least 10,000.
    let r = index
        .searcher()
        .search("w0 w7", &opts(serde_json::json!(10_000)))
        .unwrap();
    assert!(!r.total_exact && r.total.unwrap() >= 10_000 && r.total.unwrap() <= 20_500);
    let r = index
        .searcher()
        .search("w0 w1", &opts(serde_json::json!(true)))
        .unwrap();
    assert_eq!((r.total, r.total_exact), (Some(20_500), true));
    let r = index
        .searcher()
        .search("w0 w1", &opts(serde_json::json!(false)))
        .unwrap();
    assert!(!r.total_exact && r.total.unwrap() <= 20_500);
}
