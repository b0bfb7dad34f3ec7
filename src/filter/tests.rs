//! Filters through whole searches: namespace prefixes, day bounds.

use crate::json::parse;
use crate::{Index, IndexConfig};

fn ids(index: &mut Index, filter: &str) -> Vec<String> {
    let opts = crate::SearchOptions {
        filter: Some(parse(filter).unwrap()),
        limit: 10,
        ..Default::default()
    };
    let mut ids: Vec<String> = index
        .searcher()
        .search("memory", &opts)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn namespace_prefixes_match_hierarchical_namespaces() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for (id, ns) in [
        ("a", "repo:webapp/main"),
        ("b", "repo:webapp/dev"),
        ("c", "repo:api/main"),
        ("d", "repo"),
        ("e", "other"),
    ] {
        let doc = format!(r#"{{"id":"{id}","text":"memory","namespace":"{ns}"}}"#);
        index.add(&parse(&doc).unwrap()).unwrap();
    }
    let f = |s: &str| format!(r#"{{"namespace":{s}}}"#);
    assert_eq!(
        ids(&mut index, &f(r#"{"prefix":"repo:webapp/"}"#)),
        ["a", "b"]
    );
    assert_eq!(ids(&mut index, &f(r#""repo:*""#)), ["a", "b", "c"]);
    assert_eq!(ids(&mut index, &f(r#"["repo:api/*","other"]"#)), ["c", "e"]);
    assert_eq!(
        ids(
            &mut index,
            &f(r#"{"prefix":["repo:api/","repo:webapp/dev"]}"#)
        ),
        ["b", "c"]
    );
    assert_eq!(ids(&mut index, &f(r#""*""#)), ["a", "b", "c", "d", "e"]);
    assert_eq!(ids(&mut index, &f(r#""repo""#)), ["d"]);
    assert_eq!(
        index
            .searcher()
            .count(&parse(&f(r#""repo:*""#)).unwrap())
            .unwrap(),
        3
    );
    let err = Index::new(IndexConfig::default())
        .unwrap()
        .searcher()
        .count(&parse(&f(r#"{"starts":"x"}"#)).unwrap())
        .unwrap_err();
    assert_eq!(err.code(), "SCHEMA");
    assert!(
        err.to_string()
            .contains("unknown namespace filter `starts`"),
        "{err}"
    );
    assert_eq!(
        index
            .delete_where(&parse(&f(r#""repo:webapp/*""#)).unwrap())
            .unwrap(),
        2
    );
    assert_eq!(ids(&mut index, &f(r#""repo:*""#)), ["c"]);
}

#[test]
fn a_date_only_bound_covers_the_whole_day_in_utc() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for (id, ts) in [
        ("before", "2026-03-14T23:59:59Z"),
        ("morning", "2026-03-15T00:00:00Z"),
        ("noon", "2026-03-15T12:30:00Z"),
        ("late", "2026-03-15T23:59:59.999Z"),
        ("after", "2026-03-16T00:00:00Z"),
    ] {
        let doc = format!(r#"{{"id":"{id}","text":"memory {id}","timestamp":"{ts}"}}"#);
        index.add(&parse(&doc).unwrap()).unwrap();
    }
    let f = |s: &str| format!(r#"{{"timestamp":{s}}}"#);
    assert_eq!(
        ids(&mut index, &f(r#"{"lte":"2026-03-15"}"#)),
        ["before", "late", "morning", "noon"]
    );
    assert_eq!(
        ids(&mut index, &f(r#"{"gte":"2026-03-15"}"#)),
        ["after", "late", "morning", "noon"]
    );
    assert_eq!(ids(&mut index, &f(r#"{"gt":"2026-03-15"}"#)), ["after"]);
    assert_eq!(ids(&mut index, &f(r#"{"lt":"2026-03-15"}"#)), ["before"]);
    assert_eq!(
        ids(&mut index, &f(r#""2026-03-15""#)),
        ["late", "morning", "noon"]
    );
    // A full timestamp is an exact bound.
    assert_eq!(
        ids(&mut index, &f(r#"{"lte":"2026-03-15T12:30:00Z"}"#)),
        ["before", "morning", "noon"]
    );
}
