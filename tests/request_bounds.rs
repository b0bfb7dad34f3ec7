//! The cost model of a whole request (issue 27, point 1 and 2): the stages
//! after scoring (diversity and dedupe, link expansion, the answer's
//! stored fields and snippets) are bounded like the query itself. Counted,
//! never timed: each test asserts what an over-limit request gets
//! (`limited` naming the stage when lenient, `LIMIT` when strict) and that
//! ordinary requests are unchanged.
#![cfg(not(target_arch = "wasm32"))]

use memdex::query::budget::{Limited, MAX_ANSWER_BYTES, MAX_HIGHLIGHT_TAG_BYTES};
use memdex::query::options::Hit;
use memdex::{Error, Index, IndexConfig, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn opts(v: serde_json::Value) -> SearchOptions {
    SearchOptions::from_json(&memdex::json::parse(&v.to_string()).unwrap()).unwrap()
}

fn ids(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.id.as_str()).collect()
}

/// `n` documents that all match "alpha beta gamma", with varied words so
/// that diversity has something to compare.
fn many(n: usize) -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..n {
        let text = format!(
            "alpha beta gamma note {i} word{} word{} word{} topic{}",
            i % 97,
            i % 89,
            i % 83,
            i % 7
        );
        index
            .add(&json!({"id": format!("d{i}"), "title": format!("memo {}", i % 13), "text": text}))
            .unwrap();
    }
    index.flush();
    index
}

fn limit_what(r: memdex::Result<memdex::SearchResults>) -> &'static str {
    match r {
        Err(Error::Limit { what, .. }) => what,
        other => panic!("expected LIMIT, got {:?}", other.map(|r| r.hits.len())),
    }
}

#[test]
fn a_deep_diversity_page_is_cut_to_the_rerank_budget() {
    let mut index = many(4_000);
    // The shape that held a Worker isolate for 48 s on 20k documents.
    let deep = serde_json::json!({"diversity": 0.5, "dedupe": true, "limit": 100, "offset": 2900});
    let r = index
        .searcher()
        .search("alpha beta gamma", &opts(deep.clone()))
        .unwrap();
    assert_eq!(r.limited, [Limited::Rerank]);
    assert_eq!(r.hits.len(), 100, "the page is still answered");
    let mut strict = deep;
    strict["syntax"] = "strict".into();
    assert_eq!(
        limit_what(index.searcher().search("alpha beta gamma", &opts(strict))),
        "rerank steps (diversity, dedupe)"
    );
}

#[test]
fn ranks_past_the_rerank_window_keep_their_score_order() {
    let mut index = many(4_000);
    let plain = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"limit": 50, "offset": 2_000})),
        )
        .unwrap();
    let deep = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"diversity": 0.5, "limit": 50, "offset": 2_000})),
        )
        .unwrap();
    assert_eq!(ids(&deep.hits), ids(&plain.hits));
    assert!(deep.limited.contains(&Limited::Rerank));
    // A page straddling the window's end: reranked, then score order.
    let edge = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"diversity": 0.5, "limit": 20, "offset": 990})),
        )
        .unwrap();
    let after = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"limit": 10, "offset": 1_000})),
        )
        .unwrap();
    assert_eq!(edge.hits.len(), 20);
    assert_eq!(ids(&edge.hits[10..]), ids(&after.hits));
}

#[test]
fn ordinary_diversity_pages_are_not_limited_and_page_consistently() {
    let mut index = many(600);
    for (o, l) in [(0, 10), (0, 100), (20, 30)] {
        let r = index
            .searcher()
            .search(
                "alpha beta gamma",
                &opts(
                    serde_json::json!({"diversity": 0.3, "dedupe": true, "limit": l, "offset": o}),
                ),
            )
            .unwrap();
        assert!(r.limited.is_empty(), "offset {o} limit {l}");
        assert_eq!(r.hits.len(), l);
    }
    // MMR picks only up to the page: a page at offset 20 equals places
    // 20..50 of one 50-hit answer (the pool is the same: 3 pages, >= 50...
    // here both pools are 150 hits).
    let whole = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"diversity": 0.3, "limit": 50})),
        )
        .unwrap();
    let part = index
        .searcher()
        .search(
            "alpha beta gamma",
            &opts(serde_json::json!({"diversity": 0.3, "limit": 30, "offset": 20})),
        )
        .unwrap();
    assert_eq!(ids(&part.hits), ids(&whole.hits[20..]));
    // Diversity reorders: the first page differs from score order.
    let plain = index
        .searcher()
        .search("alpha beta gamma", &opts(serde_json::json!({"limit": 50})))
        .unwrap();
    assert_ne!(ids(&whole.hits), ids(&plain.hits));
}

#[test]
fn highlight_tags_and_snippet_length_have_maxima() {
    let mut index = many(10);
    let tag = "x".repeat(MAX_HIGHLIGHT_TAG_BYTES);
    let ok = index
        .searcher()
        .search(
            "alpha",
            &opts(serde_json::json!({"highlight": {"preTag": tag, "postTag": "</b>"}})),
        )
        .unwrap();
    assert!(ok.hits[0].snippets.get("text").unwrap().contains(&tag));
    for (pre, post) in [
        ("y".repeat(MAX_HIGHLIGHT_TAG_BYTES + 1), "</b>".to_string()),
        ("<b>".to_string(), "z".repeat(600 * 1024)),
    ] {
        let r = index.searcher().search(
            "alpha",
            &opts(serde_json::json!({"highlight": {"preTag": pre, "postTag": post}})),
        );
        assert_eq!(limit_what(r), "highlight tag bytes (preTag, postTag)");
    }
    let r = index.searcher().search(
        "alpha",
        &opts(serde_json::json!({"highlight": {"snippetLength": 1_000_000_000u64}})),
    );
    assert_eq!(limit_what(r), "highlight snippetLength");
}

/// A hub document `hub` linked from `n` spokes; every spoke matches
/// "spoke", in namespace `team-a` (even) or `team-b` (odd).
fn hub(n: usize) -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    index
        .add(&json!({"id": "hub", "text": "the hub", "namespace": "team-a"}))
        .unwrap();
    for i in 0..n {
        let ns = if i % 2 == 0 { "team-a" } else { "team-b" };
        index
            .add(
                &json!({"id": format!("s{i}"), "text": format!("spoke number {i}"),
                     "namespace": ns, "links": [{"type": "PART_OF", "to": "hub"}]}),
            )
            .unwrap();
    }
    index.flush();
    index
}

#[test]
fn expansion_adds_at_most_its_limit() {
    let mut index = hub(3_000);
    let r = index
        .searcher()
        .search(
            "hub",
            &opts(serde_json::json!({"limit": 100, "expand": {"hops": 3, "direction": "both"}})),
        )
        .unwrap();
    // One hit, then at most the default 10 documents expansion adds (it
    // once returned every spoke: 4,707 hits, 2.5 MB, for `limit: 100`).
    assert_eq!(r.hits[0].id, "hub");
    assert_eq!(r.hits.len(), 1 + 10);
    assert!(r.hits[1..].iter().all(|h| h.via.is_some()));
    let r = index
        .searcher()
        .search(
            "hub",
            &opts(serde_json::json!({"expand": {"hops": 1, "direction": "in", "limit": 50}})),
        )
        .unwrap();
    assert_eq!(r.hits.len(), 1 + 50);
    let too_many = serde_json::json!({"expand": {"limit": 10_001}});
    let text = too_many.to_string();
    assert!(SearchOptions::from_json(&memdex::json::parse(&text).unwrap()).is_err());
}

#[test]
fn expansion_follows_a_bounded_number_of_edges() {
    // 120k edges into the hub, reached from 100 hits over 2 hops: more
    // than EXPAND_STEPS edges.
    let mut index = hub(120_000);
    let o = serde_json::json!({"limit": 100, "expand": {"hops": 2, "direction": "both"}});
    let r = index.searcher().search("spoke", &opts(o.clone())).unwrap();
    assert!(r.limited.contains(&Limited::Expand), "{:?}", r.limited);
    let mut strict = o;
    strict["syntax"] = "strict".into();
    assert_eq!(
        limit_what(index.searcher().search("spoke", &opts(strict))),
        "expand steps (link edges)"
    );
}

#[test]
fn expansion_stays_in_the_namespaces_the_filter_allows() {
    let mut index = hub(40);
    for (filter, allowed) in [
        (serde_json::json!({"namespace": "team-a"}), vec!["team-a"]),
        (
            serde_json::json!({"namespace": "team-*"}),
            vec!["team-a", "team-b"],
        ),
        (serde_json::json!({"namespace": ["team-b"]}), vec!["team-b"]),
    ] {
        let r = index
            .searcher().search(
                "hub spoke",
                &opts(serde_json::json!({"limit": 5, "filter": filter,
                                         "expand": {"hops": 2, "direction": "both", "limit": 100}})),
            )
            .unwrap();
        assert!(r.hits.iter().any(|h| h.via.is_some()), "{filter}");
        for h in &r.hits {
            let ns = h.namespace.as_deref().unwrap();
            assert!(allowed.contains(&ns), "{filter}: {} in {ns}", h.id);
        }
    }
}

#[test]
fn an_answer_is_bounded_in_bytes() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let big = "lorem ipsum ".repeat(100_000); // 1.2 MB
    for i in 0..12 {
        index
            .add(&json!({"id": format!("b{i}"), "text": format!("needle {i} {big}")}))
            .unwrap();
    }
    index.flush();
    let r = index
        .searcher()
        .search("needle", &opts(serde_json::json!({"limit": 12})))
        .unwrap();
    assert_eq!(r.limited, [Limited::Answer]);
    let bytes: usize = r.hits.iter().map(|h| h.fields.as_json().len()).sum();
    assert!(!r.hits.is_empty() && r.hits.len() < 12);
    assert!(bytes <= MAX_ANSWER_BYTES, "{bytes}");
    // Without stored fields the same page fits.
    let bare = index
        .searcher()
        .search(
            "needle",
            &opts(serde_json::json!({"limit": 12, "storedFields": false})),
        )
        .unwrap();
    assert!(bare.limited.is_empty());
    assert_eq!(bare.hits.len(), 12);
    let strict = serde_json::json!({"limit": 12, "syntax": "strict"});
    assert_eq!(
        limit_what(index.searcher().search("needle", &opts(strict))),
        "answer bytes (stored fields, snippets, explanations)"
    );
}

#[test]
fn a_date_outside_the_js_range_is_a_schema_error() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for ts in [serde_json::json!(1e20), serde_json::json!(-8.7e15)] {
        match index.add(&json!({"id": "t", "text": "x", "timestamp": ts})) {
            Err(Error::Schema { field, .. }) => assert_eq!(field, "timestamp"),
            other => panic!("{ts}: expected SCHEMA, got {other:?}"),
        }
    }
    index
        .add(&json!({"id": "t", "text": "x", "timestamp": 8.64e15}))
        .unwrap();
}
