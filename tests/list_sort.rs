//! Listing without a query and `sort` by a field: which documents, in which
//! order (ties by id, missing values last), `total`, paging, errors, and
//! independence from how documents are split into segments.
#![cfg(not(target_arch = "wasm32"))]

use memdex::query::options::SortSpec;
use memdex::{Error, FieldDef, Index, IndexConfig, Mode, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn config() -> IndexConfig {
    let mut c = IndexConfig::default();
    c.fields
        .insert("priority".into(), FieldDef::Number { stored: true });
    c.fields
        .insert("pinned".into(), FieldDef::Boolean { stored: true });
    c
}

/// 30 memories over 3 namespaces; day `i % 10` of May 2026 (so three share
/// each day), priority `i % 4` (missing for every fifth), tags cycling.
fn memories(flush_every: usize) -> Index {
    let mut index = Index::new(config()).unwrap();
    for i in 0..30 {
        let namespace = ["a", "b", "c"][i % 3];
        let kind = ["rule", "decision", "note"][i % 3];
        let tags: &[&str] = [&["x"][..], &["y", "b"], &[]][i % 3];
        let text = if i % 2 == 0 {
            "deploy pipeline notes"
        } else {
            "billing database notes"
        };
        let mut doc = json!({
            "id": format!("m{i:02}"),
            "namespace": namespace,
            "kind": kind,
            "tags": tags,
            "title": format!("memory {i}"),
            "text": text,
            "timestamp": format!("2026-05-{:02}T10:00:00Z", 1 + i % 10),
            "pinned": i % 7 == 0,
        });
        if i % 5 != 0 {
            if let memdex::json::Value::Object(m) = &mut doc {
                m.insert("priority".into(), json!(i % 4));
            }
        }
        index.add(&doc).unwrap();
        if flush_every > 0 && i % flush_every == flush_every - 1 {
            index.flush();
        }
    }
    index
}

fn sort(field: &str, descending: bool) -> Option<SortSpec> {
    Some(SortSpec {
        field: field.into(),
        descending,
    })
}

fn ids(index: &mut Index, query: &str, opts: &SearchOptions) -> Vec<String> {
    index
        .searcher()
        .search(query, opts)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect()
}

#[test]
fn blank_query_with_a_filter_lists_matches_by_id() {
    let mut index = memories(7);
    let opts = SearchOptions {
        filter: Some(json!({"namespace": "b"})),
        limit: 100,
        ..Default::default()
    };
    let res = index.searcher().search("", &opts).unwrap();
    let want: Vec<String> = (0..30)
        .filter(|i| i % 3 == 1)
        .map(|i| format!("m{i:02}"))
        .collect();
    assert_eq!(
        res.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>(),
        want
    );
    assert_eq!(res.total, Some(10));
    assert!(res
        .hits
        .iter()
        .all(|h| h.score == 0.0 && h.matched_terms.is_empty()));
    assert_eq!(res.hits[0].namespace.as_deref(), Some("b"));
    // Whitespace is blank too; a stopword-only query is not a listing.
    assert_eq!(ids(&mut index, "  \t", &opts).len(), 10);
    assert_eq!(ids(&mut index, "the", &opts).len(), 0);
    // An empty filter object lists everything.
    let all = SearchOptions {
        filter: Some(json!({})),
        limit: 100,
        ..Default::default()
    };
    assert_eq!(index.searcher().search("", &all).unwrap().total, Some(30));
}

#[test]
fn blank_query_without_filter_or_sort_matches_nothing() {
    let mut index = memories(0);
    let res = index
        .searcher()
        .search("", &SearchOptions::default())
        .unwrap();
    assert!(res.hits.is_empty());
    assert_eq!((res.total, res.total_exact), (Some(0), true));
}

#[test]
fn the_most_recent_of_a_namespace_newest_first() {
    let mut index = memories(4);
    let opts = SearchOptions {
        filter: Some(json!({"namespace": "a"})),
        sort: sort("timestamp", true),
        limit: 4,
        ..Default::default()
    };
    // Namespace a: i = 0, 3, ..., 27 on days 1, 4, 7, 10, 3, 6, 9, 2, 5, 8.
    let res = index.searcher().search("", &opts).unwrap();
    assert_eq!(res.total, Some(10));
    assert_eq!(
        res.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["m09", "m18", "m27", "m06"]
    );
    let next = SearchOptions {
        offset: 4,
        ..opts.clone()
    };
    assert_eq!(ids(&mut index, "", &next), ["m15", "m24", "m03", "m12"]);
    let last = SearchOptions {
        offset: 8,
        ..opts.clone()
    };
    assert_eq!(ids(&mut index, "", &last), ["m21", "m00"]);
    let past = SearchOptions { offset: 10, ..opts };
    let res = index.searcher().search("", &past).unwrap();
    assert!(res.hits.is_empty());
    assert_eq!(res.total, Some(10));
}

#[test]
fn a_time_range_ordered_by_time_with_ties_by_id() {
    let mut index = memories(5);
    let opts = SearchOptions {
        filter: Some(json!({"timestamp": {"gte": "2026-05-02", "lt": "2026-05-04"}})),
        sort: sort("timestamp", false),
        limit: 100,
        ..Default::default()
    };
    // Days 2 and 3: i = 1, 11, 21 then 2, 12, 22 (ties by id ascending).
    assert_eq!(
        ids(&mut index, "", &opts),
        ["m01", "m11", "m21", "m02", "m12", "m22"]
    );
    let desc = SearchOptions {
        sort: sort("timestamp", true),
        ..opts
    };
    // Descending reverses the values; ties still by id ascending.
    assert_eq!(
        ids(&mut index, "", &desc),
        ["m02", "m12", "m22", "m01", "m11", "m21"]
    );
}

#[test]
fn missing_values_come_last_in_both_orders() {
    let mut index = memories(0);
    let missing: Vec<String> = (0..30)
        .filter(|i| i % 5 == 0)
        .map(|i| format!("m{i:02}"))
        .collect();
    for descending in [false, true] {
        let opts = SearchOptions {
            sort: sort("priority", descending),
            limit: 100,
            ..Default::default()
        };
        let got = ids(&mut index, "", &opts);
        assert_eq!(got.len(), 30);
        assert_eq!(got[24..], missing[..], "descending {descending}");
        let priorities: Vec<usize> = got[..24]
            .iter()
            .map(|id| id[1..].parse::<usize>().unwrap() % 4)
            .collect();
        let mut want = priorities.clone();
        want.sort();
        if descending {
            want.reverse();
        }
        assert_eq!(priorities, want);
    }
}

#[test]
fn keyword_and_boolean_sorts() {
    let mut index = memories(0);
    let opts = |field: &str, descending| SearchOptions {
        sort: sort(field, descending),
        filter: Some(json!({"namespace": ["a", "b"]})),
        limit: 3,
        ..Default::default()
    };
    // kind: decision (b) < rule (a).
    assert_eq!(
        ids(&mut index, "", &opts("kind", false)),
        ["m01", "m04", "m07"]
    );
    assert_eq!(
        ids(&mut index, "", &opts("kind", true)),
        ["m00", "m03", "m06"]
    );
    // tags: a's ["x"], b's ["y", "b"]: ascending by the smallest ("b" < "x"),
    // descending by the largest ("y" > "x").
    assert_eq!(
        ids(&mut index, "", &opts("tags", false)),
        ["m01", "m04", "m07"]
    );
    assert_eq!(
        ids(&mut index, "", &opts("tags", true)),
        ["m01", "m04", "m07"]
    );
    // No tags at all (namespace c) sorts last.
    let c_last = SearchOptions {
        sort: sort("tags", false),
        limit: 30,
        ..Default::default()
    };
    let got = ids(&mut index, "", &c_last);
    assert!(got[20..]
        .iter()
        .all(|id| id[1..].parse::<usize>().unwrap() % 3 == 2));
    // pinned (i % 7 == 0) first when descending.
    let pinned = SearchOptions {
        sort: sort("pinned", true),
        limit: 5,
        ..Default::default()
    };
    assert_eq!(
        ids(&mut index, "", &pinned),
        ["m00", "m07", "m14", "m21", "m28"]
    );
}

#[test]
fn a_query_sorted_by_time_keeps_its_matches() {
    let mut index = memories(6);
    let ranked = SearchOptions {
        limit: 100,
        ..Default::default()
    };
    let mut matches = ids(&mut index, "deploy", &ranked);
    assert_eq!(matches.len(), 15);
    let sorted = SearchOptions {
        sort: sort("timestamp", true),
        limit: 5,
        ..Default::default()
    };
    let res = index.searcher().search("deploy", &sorted).unwrap();
    assert_eq!(res.total, Some(15));
    assert!(res.hits.iter().all(|h| h.score > 0.0));
    assert!(res.hits.iter().all(|h| h.matched_terms == ["deploy"]));
    // Even i fall on odd days: day 9 (i = 8, 18, 28), then day 7 (6, 16, ...).
    assert_eq!(
        res.hits.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["m08", "m18", "m28", "m06", "m16"]
    );
    // The whole sorted list is a permutation of the ranked matches.
    let all = SearchOptions {
        limit: 100,
        ..sorted
    };
    let mut got = ids(&mut index, "deploy", &all);
    got.sort();
    matches.sort();
    assert_eq!(got, matches);
    // Ranked searches count a lower bound once the top-k fills (issue 20).
    let r = index.searcher().search("deploy", &ranked).unwrap();
    assert!(r.total.unwrap() >= r.hits.len() && r.total.unwrap() <= matches.len());
}

#[test]
fn fallback_with_sort_falls_back_on_the_and_matches() {
    let mut index = memories(0);
    let opts = SearchOptions {
        mode: Mode::Fallback,
        sort: sort("timestamp", false),
        limit: 2,
        ..Default::default()
    };
    let res = index.searcher().search("deploy billing", &opts).unwrap();
    assert_eq!(res.mode, Mode::Or);
    assert_eq!(res.total, Some(30));
    let res = index.searcher().search("deploy pipeline", &opts).unwrap();
    assert_eq!(res.mode, Mode::And);
    assert_eq!(res.total, Some(15));
}

#[test]
fn order_does_not_depend_on_segmentation() {
    let opts = SearchOptions {
        sort: sort("timestamp", true),
        filter: Some(json!({"kind": ["rule", "note"]})),
        limit: 100,
        ..Default::default()
    };
    let mut one = memories(0);
    one.compact();
    let want = ids(&mut one, "", &opts);
    for flush_every in [1, 3, 7] {
        let mut index = memories(flush_every);
        assert_eq!(
            ids(&mut index, "", &opts),
            want,
            "flush every {flush_every}"
        );
        assert_eq!(
            ids(&mut index, "notes", &opts),
            want,
            "flush every {flush_every}"
        );
    }
    // Upserts and deletes move documents between segments.
    let mut index = memories(4);
    index.delete("m00");
    index
        .add(&json!({"id": "m03", "namespace": "a", "kind": "rule", "text": "moved", "timestamp": "2026-05-04T10:00:00Z"}))
        .unwrap();
    index.flush();
    let got = ids(&mut index, "", &opts);
    let mut want_after: Vec<String> = want.iter().filter(|id| *id != "m00").cloned().collect();
    assert_eq!(got.len(), want_after.len());
    want_after.sort();
    let mut sorted = got.clone();
    sorted.sort();
    assert_eq!(sorted, want_after);
}

#[test]
fn sorting_by_a_field_that_cannot_sort_is_a_schema_error() {
    let mut index = memories(0);
    for (field, reason) in [("title", "cannot sort"), ("nope", "not declared")] {
        let opts = SearchOptions {
            sort: sort(field, false),
            ..Default::default()
        };
        for query in ["", "deploy", "the"] {
            match index.searcher().search(query, &opts) {
                Err(Error::Schema {
                    field: f,
                    reason: r,
                }) => {
                    assert_eq!(f, field);
                    assert!(r.contains(reason), "{r}");
                }
                other => panic!("{field} {query:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn sort_and_total_in_json() {
    let opts = SearchOptions::from_json(&json!({
        "sort": {"field": "timestamp", "order": "desc"},
        "filter": {"namespace": "a"},
        "limit": 1
    }))
    .unwrap();
    assert_eq!(opts.sort, sort("timestamp", true));
    let mut index = memories(0);
    let out = memdex::json::to_string(&index.searcher().search("", &opts).unwrap());
    assert!(
        out.ends_with(r#""mode":"or","total":10,"totalExact":true}"#),
        "{out}"
    );
    assert!(
        out.starts_with(r#"{"hits":[{"id":"m09","score":0.0,"#),
        "{out}"
    );
    let ranked = memdex::json::to_string(
        &index
            .searcher()
            .search("deploy", &SearchOptions::default())
            .unwrap(),
    );
    assert!(ranked.contains(r#""mode":"or","total":"#), "{ranked}");
    assert!(SearchOptions::from_json(&json!({"sort": {"field": 1}}))
        .unwrap_err()
        .contains("sort.field"));
    assert_eq!(
        SearchOptions::from_json(&json!({"sort": null}))
            .unwrap()
            .sort,
        None
    );
}
