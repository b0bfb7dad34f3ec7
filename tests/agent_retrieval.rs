//! Agent retrieval (issue 20): links fields and `expand`/`related` (hops,
//! types, direction, deleted targets; across flush, merge, commit/reopen and
//! snapshot), recency decay and exemption, diversity (MMR), dedupe, totals.
#![cfg(not(target_arch = "wasm32"))]

use memdex::storage::MemoryStorage;
use memdex::{Error, Index, IndexConfig, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn opts(v: serde_json::Value) -> SearchOptions {
    SearchOptions::from_json(&memdex::json::parse(&v.to_string()).unwrap()).unwrap()
}

fn ids(hits: &[memdex::query::options::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.id.clone()).collect()
}

/// a -DEPENDS_ON-> b -DEPENDS_ON-> c -DEPENDS_ON-> d; a -SUPERSEDES-> e;
/// f -DEPENDS_ON-> a; a -DEPENDS_ON-> ghost (never stored).
fn graph(flush_each: bool) -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let docs = [
        json!({"id": "a", "title": "alpha decision", "text": "use postgres",
               "links": [{"type": "DEPENDS_ON", "to": "b"}, {"type": "SUPERSEDES", "to": "e"},
                         {"type": "DEPENDS_ON", "to": "ghost"}]}),
        json!({"id": "b", "title": "bravo", "text": "database choice",
               "links": [{"type": "DEPENDS_ON", "to": "c"}]}),
        json!({"id": "c", "title": "charlie", "text": "hosting",
               "links": [{"type": "DEPENDS_ON", "to": "d"}]}),
        json!({"id": "d", "title": "delta", "text": "budget"}),
        json!({"id": "e", "title": "echo", "text": "old decision mysql"}),
        json!({"id": "f", "title": "foxtrot", "text": "migration plan",
               "links": [{"type": "DEPENDS_ON", "to": "a"}]}),
    ];
    for d in &docs {
        index.add(d).unwrap();
        if flush_each {
            index.flush();
        }
    }
    index
}

/// (id, score, via as (from, type, hops)).
type Expanded = (String, f32, Option<(String, String, u32)>);

fn expand(index: &mut Index, e: serde_json::Value) -> Vec<Expanded> {
    let r = index
        .searcher()
        .search("alpha", &opts(serde_json::json!({"expand": e})))
        .unwrap();
    r.hits
        .iter()
        .map(|h| {
            (
                h.id.clone(),
                h.score,
                h.via
                    .as_ref()
                    .map(|v| (v.from.clone(), v.link_type.clone(), v.hops)),
            )
        })
        .collect()
}

fn check_graph(index: &mut Index) {
    let one = expand(index, serde_json::json!({"hops": 1}));
    let top = one[0].1;
    assert_eq!(one[0].0, "a");
    assert!(one[0].2.is_none());
    // ghost (missing target) is dropped; b and e at distance 1.
    let got: Vec<_> = one.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(got, ["a", "b", "e"]);
    assert!((one[1].1 - top / 2.0).abs() < 1e-6);
    assert_eq!(one[1].2, Some(("a".into(), "DEPENDS_ON".into(), 1)));
    assert_eq!(one[2].2, Some(("a".into(), "SUPERSEDES".into(), 1)));

    let three = expand(
        index,
        serde_json::json!({"hops": 3, "types": ["DEPENDS_ON"]}),
    );
    let got: Vec<_> = three
        .iter()
        .map(|h| (h.0.as_str(), h.2.as_ref().map(|v| v.2)))
        .collect();
    assert_eq!(
        got,
        [("a", None), ("b", Some(1)), ("c", Some(2)), ("d", Some(3))]
    );
    assert!((three[3].1 - top / 4.0).abs() < 1e-6);

    let incoming = expand(index, serde_json::json!({"direction": "in"}));
    let got: Vec<_> = incoming.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(got, ["a", "f"]);
    let both = expand(
        index,
        serde_json::json!({"direction": "both", "types": ["DEPENDS_ON"]}),
    );
    let got: Vec<_> = both.iter().map(|h| h.0.as_str()).collect();
    assert_eq!(got, ["a", "b", "f"]);

    let related = index.searcher().related(
        "b",
        &memdex::query::options::ExpandOptions {
            hops: 2,
            direction: memdex::query::options::Direction::Both,
            ..Default::default()
        },
    );
    let got: Vec<_> = related.0.iter().map(|h| (h.id.as_str(), h.score)).collect();
    // a, c at 1 hop (1/2); d, e, f at 2 (1/3).
    assert_eq!(
        got,
        [
            ("a", 0.5),
            ("c", 0.5),
            ("d", 1.0 / 3.0),
            ("e", 1.0 / 3.0),
            ("f", 1.0 / 3.0)
        ]
    );
}

#[test]
fn expansion_by_hops_types_and_direction() {
    check_graph(&mut graph(false));
    check_graph(&mut graph(true));
}

#[test]
fn deleted_targets_are_dropped() {
    let mut index = graph(false);
    index.delete("b");
    let got: Vec<_> = expand(&mut index, serde_json::json!({"hops": 3}))
        .into_iter()
        .map(|h| h.0)
        .collect();
    // b is gone, so c and d are unreachable.
    assert_eq!(got, ["a", "e"]);
    assert!(index
        .searcher()
        .related("f", &Default::default())
        .0
        .iter()
        .all(|h| h.id != "b"));
}

#[test]
fn a_hit_keeps_its_better_score() {
    let mut index = graph(false);
    // "decision" matches a and e directly; e is also a's SUPERSEDES link.
    let r = index
        .searcher()
        .search(
            "decision",
            &opts(serde_json::json!({"expand": {"hops": 1}})),
        )
        .unwrap();
    let e = r.hits.iter().find(|h| h.id == "e").unwrap();
    let direct = index
        .searcher()
        .search("decision", &SearchOptions::default())
        .unwrap();
    let e_direct = direct.hits.iter().find(|h| h.id == "e").unwrap().score;
    let a_direct = direct.hits.iter().find(|h| h.id == "a").unwrap().score;
    assert_eq!(e.score, e_direct.max(a_direct / 2.0));
    assert_eq!(r.hits.iter().filter(|h| h.id == "e").count(), 1);
}

#[test]
fn links_survive_merge_commit_reopen_and_snapshot() {
    let mut index = graph(true);
    index.compact();
    check_graph(&mut index);
    let storage = MemoryStorage::new();
    pollster::block_on(index.commit(&storage, "idx")).unwrap();
    let mut reopened = pollster::block_on(Index::open(&storage, "idx", None)).unwrap();
    check_graph(&mut reopened);
    assert_eq!(
        reopened.snapshot().get("b").unwrap()["links"],
        json!([{"type": "DEPENDS_ON", "to": "c"}])
    );
    let bytes = reopened.export_snapshot();
    let mut imported = Index::import_snapshot(&bytes).unwrap();
    check_graph(&mut imported);
}

#[test]
fn malformed_links_are_schema_errors() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for bad in [
        json!({"id": "x", "links": "b"}),
        json!({"id": "x", "links": [{"type": "A"}]}),
        json!({"id": "x", "links": [{"type": "", "to": "b"}]}),
        json!({"id": "x", "links": [{"type": "A", "to": 3}]}),
        json!({"id": "x", "links": [{"type": "A", "to": "b", "extra": 1}]}),
    ] {
        match index.add(&bad) {
            Err(Error::Schema { field, reason }) => {
                assert_eq!(field, "links");
                // Named once, at the end (a bad edge is found far from
                // where it was written).
                assert!(reason.ends_with("(document `x`)"), "{reason}");
                assert_eq!(reason.matches("document").count(), 1, "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
    // A links field is not a filter or sort field.
    let err = index
        .searcher()
        .search("", &opts(serde_json::json!({"filter": {"links": "b"}})))
        .unwrap_err();
    assert!(matches!(err, Error::Schema { .. }), "{err:?}");
}

#[test]
fn old_schema_with_stored_links_still_works() {
    let mut config = IndexConfig::default();
    config
        .fields
        .insert("links".into(), memdex::FieldDef::Stored);
    let mut index = Index::new(config).unwrap();
    index
        .add(&json!({"id": "a", "title": "alpha", "links": [{"type": "X", "to": "b"}]}))
        .unwrap();
    let r = index
        .searcher()
        .search("alpha", &opts(serde_json::json!({"expand": {"hops": 1}})))
        .unwrap();
    assert_eq!(ids(&r.hits), ["a"]);
}

const DAY: f64 = 86_400_000.0;

fn aged() -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    // Same text, so equal BM25 scores; only age differs.
    for (id, days, kind) in [
        ("old", 90.0, "note"),
        ("mid", 30.0, "note"),
        ("new", 0.0, "note"),
        ("rule", 365.0, "rule"),
    ] {
        index
            .add(&json!({"id": id, "text": "deploy on friday", "kind": kind,
                         "timestamp": 1_000.0 * DAY - days * DAY}))
            .unwrap();
    }
    index
}

#[test]
fn recency_orders_by_age_and_exempts() {
    let mut index = aged();
    let plain = index
        .searcher()
        .search("deploy", &SearchOptions::default())
        .unwrap();
    let base = plain.hits[0].score;
    assert!(plain.hits.iter().all(|h| h.score == base));
    let r = index
        .searcher().search(
            "deploy",
            &opts(serde_json::json!({"recency": {"halfLife": "30d", "weight": 0.5, "now": 1000.0 * DAY}})),
        )
        .unwrap();
    assert_eq!(ids(&r.hits), ["new", "mid", "old", "rule"]);
    let score = |id: &str| r.hits.iter().find(|h| h.id == id).unwrap().score;
    assert!((score("new") - base).abs() < 1e-5);
    assert!((score("mid") - base * 0.75).abs() < 1e-5);
    assert!((score("old") - base * (0.5 + 0.5 * 0.125)).abs() < 1e-5);
    let r = index
        .searcher()
        .search(
            "deploy",
            &opts(
                serde_json::json!({"recency": {"halfLife": 30.0 * DAY, "weight": 1,
                "now": 1000.0 * DAY, "exempt": {"kind": "rule"}}}),
            ),
        )
        .unwrap();
    assert_eq!(ids(&r.hits)[..2], ["new", "rule"]);
    assert_eq!(r.hits[1].score, base);
    // With limit 1 the decayed top-k still finds the newest (exact, not a re-rank of one).
    let r = index
        .searcher()
        .search(
            "deploy",
            &opts(serde_json::json!({"limit": 1, "recency": {"now": 1000.0 * DAY}})),
        )
        .unwrap();
    assert_eq!(ids(&r.hits), ["new"]);
}

#[test]
fn recency_option_errors() {
    let mut index = aged();
    for bad in [
        serde_json::json!({"recency": {"weight": 2}}),
        serde_json::json!({"recency": {"halfLife": "soon"}}),
        serde_json::json!({"recency": {"halfLife": -1}}),
    ] {
        assert!(
            SearchOptions::from_json(&memdex::json::parse(&bad.to_string()).unwrap()).is_err(),
            "{bad}"
        );
    }
    let err = index
        .searcher()
        .search(
            "deploy",
            &opts(serde_json::json!({"recency": {"field": "kind"}})),
        )
        .unwrap_err();
    assert!(matches!(err, Error::Schema { .. }));
}

/// 8 copies of one note (with small wording changes), 8 distinct notes.
fn planted() -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..8 {
        index
            .add(&json!({"id": format!("dup{i}"), "title": "database migration",
                         "text": format!("database migration runs nightly with postgres copy {}", i % 2)}))
            .unwrap();
    }
    let others = [
        "schema drift found by the linter",
        "backups restored to staging weekly",
        "replica lag alerts paged oncall",
        "index bloat after bulk loads",
        "vacuum settings tuned for autovacuum",
        "pooling through pgbouncer transactions",
        "failover drill took four minutes",
        "sharding postponed until next year",
    ];
    for (i, w) in others.iter().enumerate() {
        index
            .add(
                &json!({"id": format!("x{i}"), "title": "database migration",
                         "text": *w}),
            )
            .unwrap();
    }
    index
}

fn dups_in_top10(hits: &[memdex::query::options::Hit]) -> usize {
    hits.iter()
        .take(10)
        .filter(|h| h.id.starts_with("dup"))
        .count()
}

#[test]
fn mmr_lowers_duplicates_in_top_10() {
    let mut index = planted();
    let plain = index
        .searcher()
        .search(
            "database migration",
            &opts(serde_json::json!({"limit": 10})),
        )
        .unwrap();
    let diverse = index
        .searcher()
        .search(
            "database migration",
            &opts(serde_json::json!({"limit": 10, "diversity": {"lambda": 0.5}})),
        )
        .unwrap();
    assert_eq!(dups_in_top10(&plain.hits), 8);
    assert!(
        dups_in_top10(&diverse.hits) <= 3,
        "{:?}",
        ids(&diverse.hits)
    );
    assert_eq!(diverse.hits[0].id, plain.hits[0].id);
    assert_eq!(diverse.hits.len(), 10);
}

#[test]
fn dedupe_collapses_equal_content() {
    let mut index = planted();
    let r = index
        .searcher()
        .search(
            "database migration",
            &opts(serde_json::json!({"limit": 10, "dedupe": true})),
        )
        .unwrap();
    let dups: Vec<_> = r.hits.iter().filter(|h| h.id.starts_with("dup")).collect();
    // Two distinct texts among the copies ("copy 0" / "copy 1").
    assert_eq!(dups.len(), 2);
    let mut collapsed: Vec<String> = dups.iter().flat_map(|h| h.duplicates.clone()).collect();
    collapsed.sort();
    assert_eq!(collapsed.len(), 6);
    for h in &dups {
        assert_eq!(h.duplicates.len(), 3);
        assert!(!h.duplicates.contains(&h.id));
    }
    // JSON carries them.
    use memdex::json::ToJson;
    assert!(r.to_json().contains("\"duplicates\":["));
}

#[test]
fn totals_exact_for_listing_lower_bound_for_ranked() {
    let mut index = planted();
    let listing = index
        .searcher()
        .search("", &opts(serde_json::json!({"filter": {}, "limit": 3})))
        .unwrap();
    assert_eq!((listing.total, listing.total_exact), (Some(16), true));
    let ranked = index
        .searcher()
        .search("database", &opts(serde_json::json!({"limit": 3})))
        .unwrap();
    let total = ranked.total.unwrap();
    assert!((3..=16).contains(&total), "{total}");
    let sorted = index
        .searcher()
        .search(
            "database",
            &opts(serde_json::json!({"limit": 3, "sort": {"field": "timestamp"}})),
        )
        .unwrap();
    assert_eq!((sorted.total, sorted.total_exact), (Some(16), true));
    let none = index
        .searcher()
        .search("zzzz", &SearchOptions::default())
        .unwrap();
    assert_eq!((none.total, none.total_exact), (Some(0), true));
}

/// An index with a 3-dimension vector field: "rollback" notes worded
/// differently but with near-identical vectors (cosine >= 0.99), and
/// distinct notes with orthogonal vectors.
fn with_vectors() -> Index {
    let config = IndexConfig::from_json(&json!({
        "schema": {"embedding": {"type": "vector", "dimensions": 3}}
    }))
    .unwrap();
    let mut index = Index::new(config).unwrap();
    for i in 0..6 {
        // Same meaning, different words: text dedupe cannot see it.
        let words = [
            "undo",
            "revert",
            "back out",
            "roll back",
            "restore",
            "unwind",
        ][i];
        index
            .add(
                &json!({"id": format!("dup{i}"), "title": format!("deploy {words}"),
                         "text": format!("how to {words} a bad deploy {i}"),
                         "embedding": [1.0, 0.01 * i as f32, 0.0]}),
            )
            .unwrap();
    }
    for (i, axis) in [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 1.0]]
        .iter()
        .enumerate()
    {
        index
            .add(
                &json!({"id": format!("other{i}"), "title": "deploy checklist",
                         "text": format!("deploy steps part {i}"), "embedding": axis}),
            )
            .unwrap();
    }
    index
}

#[test]
fn dedupe_collapses_near_duplicate_vectors() {
    let mut index = with_vectors();
    let r = index
        .searcher()
        .search(
            "deploy",
            &opts(serde_json::json!({"dedupe": true, "limit": 20})),
        )
        .unwrap();
    let dups: Vec<&memdex::query::options::Hit> =
        r.hits.iter().filter(|h| h.id.starts_with("dup")).collect();
    assert_eq!(dups.len(), 1, "{:?}", ids(&r.hits));
    let mut collapsed = dups[0].duplicates.clone();
    collapsed.push(dups[0].id.clone());
    collapsed.sort();
    assert_eq!(collapsed, ["dup0", "dup1", "dup2", "dup3", "dup4", "dup5"]);
    // The orthogonal notes stay, each on its own.
    assert_eq!(
        r.hits.iter().filter(|h| h.id.starts_with("other")).count(),
        3
    );
}

#[test]
fn mmr_uses_vector_cosine_when_the_index_has_vectors() {
    let mut index = with_vectors();
    let mut top4 = |o: serde_json::Value| -> usize {
        let r = index.searcher().search("deploy", &opts(o)).unwrap();
        r.hits.iter().filter(|h| h.id.starts_with("dup")).count()
    };
    let plain = top4(serde_json::json!({"limit": 4}));
    let diverse = top4(serde_json::json!({"limit": 4, "diversity": {"lambda": 0.3}}));
    assert!(
        plain >= 3,
        "the rollback notes outrank the checklist: {plain}"
    );
    assert!(
        diverse <= 1,
        "MMR by cosine keeps one rollback note: {diverse}"
    );
}

/// `strategy: 'auto'` on a relation question searches for its object and
/// expands one hop both ways; other questions are not expanded.
#[test]
fn auto_expands_relation_questions() {
    let mut index = graph(false);
    let auto = opts(serde_json::json!({"strategy": "auto"}));
    let r = index
        .searcher()
        .search("what depends on bravo", &auto)
        .unwrap();
    let found = ids(&r.hits);
    assert_eq!(found[0], "b", "{found:?}");
    // a DEPENDS_ON b (incoming) and b DEPENDS_ON c (outgoing), one hop each.
    for id in ["a", "c"] {
        let hit = r
            .hits
            .iter()
            .find(|h| h.id == id)
            .unwrap_or_else(|| panic!("{id} in {found:?}"));
        let via = hit.via.as_ref().unwrap();
        assert_eq!((via.from.as_str(), via.hops), ("b", 1));
    }
    assert!(
        !found.contains(&"d".to_string()),
        "two hops away: {found:?}"
    );
    let plain = index.searcher().search("bravo", &auto).unwrap();
    assert_eq!(ids(&plain.hits), ["b"]);
    // An explicit `expand` wins over the rule.
    let out = opts(serde_json::json!({"strategy": "auto", "expand": {"direction": "out"}}));
    let r = index
        .searcher()
        .search("what depends on bravo", &out)
        .unwrap();
    assert_eq!(ids(&r.hits), ["b", "c"]);
}
