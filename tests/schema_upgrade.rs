//! Schema upgrades in place and rebuilds (`migrate`), on the frozen
//! fixture tests/fixtures/schema-v3 (scripts/gen-schema-fixture): indexes
//! of today's format opened with an extended schema keep every document
//! and its results, gain the new fields on the next write, and store the
//! upgrade with the next commit; changes that cannot apply in place are
//! `SCHEMA` naming the field and the change.
#![cfg(not(target_arch = "wasm32"))]

use memdex::storage::FsStorage;
use memdex::{Error, Index, IndexConfig, SchemaRequest, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

/// A private copy of the fixture (tests commit into it).
fn fixture_copy() -> std::path::PathBuf {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/schema-v3");
    let dir = std::env::temp_dir().join(format!(
        "memdex-schema-{}-{}",
        std::process::id(),
        memdex::host::unique_bits()
    ));
    copy_dir(std::path::Path::new(src), &dir);
    dir
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn request(v: serde_json::Value) -> SchemaRequest {
    SchemaRequest::from_json(&memdex::json::parse(&v.to_string()).unwrap()).unwrap()
}

fn open(dir: &std::path::Path, name: &str, req: Option<&SchemaRequest>) -> memdex::Result<Index> {
    let storage = FsStorage::new(dir);
    let loaded = pollster::block_on(memdex::index::load::load(&storage, name))?.unwrap();
    Index::from_loaded_as(loaded, req)
}

/// The extension the acceptance names: a keyword field, a changed weight,
/// a vector field, and one of every other kind; several sort before the
/// old fields of their kind, so field numbers shift.
fn extension() -> SchemaRequest {
    request(serde_json::json!({"schema": {
        "title": {"type": "text", "weight": 3},
        "abstract": "text",
        "area": "keyword",
        "budget": "number",
        "due": "date",
        "archived": "boolean",
        "note": "stored",
        "cites": "links",
        "a_vec": {"type": "vector", "dimensions": 2},
    }}))
}

/// (id, score) of every hit of `q`, best first.
fn ranked(index: &mut Index, q: &str, opts: &SearchOptions) -> Vec<(String, f32)> {
    let opts = SearchOptions {
        limit: 50,
        ..opts.clone()
    };
    let hits = index.searcher().search(q, &opts).unwrap().hits;
    hits.into_iter().map(|h| (h.id, h.score)).collect()
}

const QUERIES: &[&str] = &[
    "deploy",
    "deploy friday",
    "segments",
    "\"dark mode\"",
    "wasm*",
    "memories",
];

/// Results over the old fields, under `weight_title` for `title`.
fn fingerprint(index: &mut Index) -> Vec<Vec<(String, f32)>> {
    let mut out = Vec::new();
    let text_only = SearchOptions::from_json(&json!({"fields": {"text": 1}})).unwrap();
    for q in QUERIES {
        out.push(ranked(index, q, &text_only));
    }
    for filter in [
        serde_json::json!({"kind": "rule"}),
        serde_json::json!({"priority": {"gte": 3}}),
        serde_json::json!({"done": true}),
        serde_json::json!({"timestamp": {"lt": 1_700_000_000_004u64}}),
    ] {
        let o =
            SearchOptions::from_json(&json!({"filter": filter, "fields": {"text": 1}})).unwrap();
        out.push(ranked(index, "", &o));
        out.push(ranked(index, "deploy", &o));
    }
    let near = SearchOptions {
        vector: Some(vec![0.0, 0.0, 1.0, 0.25]),
        vector_field: Some("embedding".into()),
        ..Default::default()
    };
    out.push(ranked(index, "", &near));
    out
}

#[test]
fn an_extended_schema_keeps_every_document_and_its_results() {
    let dir = fixture_copy();
    let mut old = open(&dir, "memories", None).unwrap();
    let before = fingerprint(&mut old);
    let title_before = ranked(&mut old, "deploy", &SearchOptions::default());
    let docs_before: Vec<_> = (0..10)
        .map(|i| old.snapshot().get(&format!("m{i}")))
        .collect();
    assert_eq!(old.len(), 9);

    let mut up = open(&dir, "memories", Some(&extension())).unwrap();
    assert_eq!(up.len(), 9);
    assert_eq!(
        fingerprint(&mut up),
        before,
        "same ids and scores over the old fields"
    );
    let docs_after: Vec<_> = (0..10)
        .map(|i| up.snapshot().get(&format!("m{i}")))
        .collect();
    assert_eq!(docs_after, docs_before, "every document keeps what it had");
    // The new weight applies: title matches score 3/2 of what they did.
    let title_after = ranked(&mut up, "deploy", &SearchOptions::default());
    assert_ne!(title_after, title_before);
    let title_only = SearchOptions::from_json(&json!({"fields": {"title": 1}})).unwrap();
    let unit = ranked(&mut up, "deploy", &title_only);
    assert_eq!(
        unit,
        ranked(&mut old, "deploy", &title_only),
        "weight 1 override: same as before"
    );
    // Links and vectors are still there.
    let (related, _) = up.searcher().related("m6", &Default::default());
    assert_eq!(
        related.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["m7"]
    );

    // The next write gains the new fields.
    up.add(&json!({"id": "m5", "title": "Revived", "text": "deploy budget review", "abstract": "quarterly budget",
                   "area": "finance", "budget": 1200, "due": "2026-12-01", "archived": false, "note": "kept",
                   "cites": [{"type": "CITES", "to": "m0"}], "a_vec": [1, 0]}))
        .unwrap();
    let check = |index: &mut Index| {
        let f = |v: serde_json::Value| SearchOptions::from_json(&json!({"filter": v})).unwrap();
        assert_eq!(
            ids(index, "", &f(serde_json::json!({"area": "finance"}))),
            ["m5"]
        );
        assert_eq!(
            ids(index, "", &f(serde_json::json!({"budget": {"gt": 1000}}))),
            ["m5"]
        );
        assert_eq!(
            ids(index, "", &f(serde_json::json!({"archived": false}))),
            ["m5"]
        );
        assert_eq!(
            ids(
                index,
                "",
                &f(serde_json::json!({"due": {"gte": "2026-11-30"}}))
            ),
            ["m5"]
        );
        assert_eq!(ids(index, "quarterly", &SearchOptions::default()), ["m5"]);
        let near = SearchOptions {
            vector: Some(vec![1.0, 0.0]),
            vector_field: Some("a_vec".into()),
            ..Default::default()
        };
        assert_eq!(ids(index, "", &near), ["m5"]);
        assert_eq!(index.snapshot().get("m5").unwrap()["note"], "kept");
        let (cited, _) = index.searcher().related("m5", &Default::default());
        assert!(cited.iter().any(|h| h.id == "m0"));
        assert_eq!(index.len(), 10);
    };
    check(&mut up);
    // Committed: the upgraded schema is stored; a plain open has it.
    pollster::block_on(up.commit(&FsStorage::new(&dir), "memories")).unwrap();
    let mut reopened = open(&dir, "memories", None).unwrap();
    assert_eq!(reopened.config(), up.config());
    check(&mut reopened);
    // The old documents answer as before (old fields, old scores).
    reopened.delete("m5");
    assert_eq!(fingerprint(&mut reopened), before);
    // Opening with the old schema now: omitted fields are kept, the title
    // weight goes back to 2 (a weight change again, in place).
    let old_schema =
        request(serde_json::json!({"schema": {"title": {"type": "text", "weight": 2}}}));
    let back = open(&dir, "memories", Some(&old_schema)).unwrap();
    assert!(back.config().fields.get("area").is_some());
    let _ = std::fs::remove_dir_all(dir);
}

fn ids(index: &mut Index, q: &str, opts: &SearchOptions) -> Vec<String> {
    ranked(index, q, opts).into_iter().map(|h| h.0).collect()
}

/// An upgrade that is never committed leaves storage as it was.
#[test]
fn an_uncommitted_upgrade_changes_nothing_stored() {
    let dir = fixture_copy();
    let manifest = std::fs::read(dir.join("memories/manifest")).unwrap();
    let mut up = open(&dir, "memories", Some(&extension())).unwrap();
    up.add(&json!({"id": "x", "text": "new", "area": "a"}))
        .unwrap();
    drop(up);
    assert_eq!(
        std::fs::read(dir.join("memories/manifest")).unwrap(),
        manifest
    );
    let mut again = open(&dir, "memories", None).unwrap();
    assert_eq!(again.len(), 9);
    assert!(again.config().fields.get("area").is_none());
    assert_eq!(
        ids(&mut again, "deploy", &SearchOptions::default()).len(),
        2
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// One text field to two: postings gain field masks. The new field weighs
/// what the old one does: weights are relative (scaled by the largest), so
/// a heavier new field would lower the old field's share, as changing its
/// weight would; an equal one leaves every score as it was.
#[test]
fn a_single_text_field_index_gains_a_second_one() {
    let dir = fixture_copy();
    let mut old = open(&dir, "notes", None).unwrap();
    let before: Vec<_> = QUERIES
        .iter()
        .map(|q| ranked(&mut old, q, &SearchOptions::default()))
        .collect();
    let req = request(serde_json::json!({"schema": {"abstract": {"type": "text", "weight": 1}}}));
    let mut up = open(&dir, "notes", Some(&req)).unwrap();
    let after: Vec<_> = QUERIES
        .iter()
        .map(|q| ranked(&mut up, q, &SearchOptions::default()))
        .collect();
    assert_eq!(after, before);
    up.add(&json!({"id": "n99", "abstract": "deploy"})).unwrap();
    pollster::block_on(up.commit(&FsStorage::new(&dir), "notes")).unwrap();
    let mut reopened = open(&dir, "notes", None).unwrap();
    let abstract_only = SearchOptions::from_json(&json!({"fields": {"abstract": 1}})).unwrap();
    assert_eq!(ids(&mut reopened, "deploy", &abstract_only), ["n99"]);
    reopened.delete("n99");
    let again: Vec<_> = QUERIES
        .iter()
        .map(|q| ranked(&mut reopened, q, &SearchOptions::default()))
        .collect();
    assert_eq!(again, before);
    let _ = std::fs::remove_dir_all(dir);
}

/// Changes that cannot apply in place: `SCHEMA`, naming field and change.
#[test]
fn changes_that_need_a_rebuild_are_schema_errors() {
    let dir = fixture_copy();
    let cases = [
        (
            serde_json::json!({"schema": {"kind": "number"}}),
            "kind",
            "type",
        ),
        (
            serde_json::json!({"schema": {"text": {"type": "text", "language": "french"}}}),
            "text",
            "language",
        ),
        (
            serde_json::json!({"schema": {"kind": {"type": "keyword", "stored": false}}}),
            "kind",
            "stored",
        ),
        (
            serde_json::json!({"schema": {"embedding": {"type": "vector", "dimensions": 8}}}),
            "embedding",
            "dimensions",
        ),
        (
            serde_json::json!({"schema": {"embedding": {"type": "vector", "dimensions": 4, "metric": "dot"}}}),
            "embedding",
            "metric",
        ),
        (
            serde_json::json!({"analyzer": {"language": "german"}}),
            "",
            "analyzer",
        ),
    ];
    for (v, field, change) in cases {
        let err = open(&dir, "memories", Some(&request(v.clone())))
            .err()
            .unwrap();
        match &err {
            Error::SchemaChange {
                field: f,
                change: c,
                ..
            } => {
                assert_eq!((f.as_str(), *c), (field, change), "{v}");
            }
            other => panic!("{v}: {other:?}"),
        }
        assert_eq!(err.code(), "SCHEMA");
        assert!(err.to_string().contains("Memdex.migrate"), "{err}");
        assert!(err.to_string().contains("memdex migrate"), "{err}");
    }
    // In place: quantize, k1, b.
    let ok = request(serde_json::json!({"k1": 1.5, "b": 0.5, "schema": {
        "embedding": {"type": "vector", "dimensions": 4, "quantize": "int8"}}}));
    let up = open(&dir, "memories", Some(&ok)).unwrap();
    assert_eq!(up.config().k1, 1.5);
    let _ = std::fs::remove_dir_all(dir);
}

/// A rebuild under a new analyzer keeps every document, vectors and links
/// included, and answers like a fresh index of the same documents.
#[test]
fn a_rebuild_carries_documents_vectors_and_links() {
    let dir = fixture_copy();
    let mut old = open(&dir, "memories", None).unwrap();
    let req = request(
        serde_json::json!({"analyzer": {"language": "none"}, "schema": {"area": "keyword"}}),
    );
    let mut new = old.rebuilt(&req).unwrap();
    assert_eq!(new.len(), 9);
    assert_eq!(
        new.config().analyzer.language,
        memdex::analysis::Language::None
    );
    for i in [0, 1, 2, 3, 4, 6, 7, 8, 9] {
        let id = format!("m{i}");
        assert_eq!(new.snapshot().get(&id), old.snapshot().get(&id), "{id}");
        assert_eq!(
            new.snapshot().get_json_with_vectors(&id),
            old.snapshot().get_json_with_vectors(&id),
            "{id}"
        );
    }
    // No stemming now: "deploys" no longer matches "deploy".
    assert_eq!(ids(&mut old, "deploys", &SearchOptions::default()).len(), 2);
    assert_eq!(ids(&mut new, "deploys", &SearchOptions::default()), ["m0"]);
    let (related, _) = new.searcher().related("m6", &Default::default());
    assert_eq!(
        related.iter().map(|h| h.id.as_str()).collect::<Vec<_>>(),
        ["m7"]
    );
    // `defaultSchema: false` drops the fields it leaves out.
    let only = request(serde_json::json!({"defaultSchema": false, "schema": {"text": "text"}}));
    let slim = old.rebuilt(&only).unwrap();
    assert_eq!(slim.config().fields.keys().collect::<Vec<_>>(), ["text"]);
    assert_eq!(
        slim.snapshot().get("m0").unwrap()["title"],
        memdex::json::Value::Null
    );
    // A kept field that was never stored cannot be carried.
    let mut hidden = Index::new(
        IndexConfig::from_json(&json!({"schema": {"secret": {"type": "text", "stored": false}}}))
            .unwrap(),
    )
    .unwrap();
    hidden.add(&json!({"id": "a", "secret": "x"})).unwrap();
    let err = hidden.rebuilt(&SchemaRequest::default()).err().unwrap();
    assert!(
        matches!(&err, Error::Schema { field, .. } if field == "secret"),
        "{err:?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}

/// Cosine vectors are stored unit-length; a rebuild copies them bit for
/// bit instead of normalizing them again (which can move the last bit).
#[test]
fn a_rebuild_copies_vectors_bit_for_bit() {
    let config =
        IndexConfig::from_json(&json!({"schema": {"emb": {"type": "vector", "dimensions": 2}}}))
            .unwrap();
    let mut index = Index::new(config).unwrap();
    for i in 0..20 {
        index
            .add(&json!({"id": format!("v{i}"), "text": "x", "emb": [1.0, i as f64 / 3.0]}))
            .unwrap();
    }
    let req = request(serde_json::json!({"analyzer": {"language": "none"}}));
    let rebuilt = index.rebuilt(&req).unwrap();
    for i in 0..20 {
        let id = format!("v{i}");
        assert_eq!(
            rebuilt.snapshot().get_json_with_vectors(&id),
            index.snapshot().get_json_with_vectors(&id),
            "{id}"
        );
    }
    // New dimensions: the old vectors cannot fit, the field starts empty.
    let wider =
        request(serde_json::json!({"schema": {"emb": {"type": "vector", "dimensions": 3}}}));
    let rebuilt = index.rebuilt(&wider).unwrap();
    assert_eq!(rebuilt.len(), 20);
    assert!(!rebuilt
        .snapshot()
        .get_json_with_vectors("v3")
        .unwrap()
        .contains("emb"));
    // dot -> cosine: normalized.
    let dot = IndexConfig::from_json(
        &json!({"schema": {"emb": {"type": "vector", "dimensions": 2, "metric": "dot"}}}),
    )
    .unwrap();
    let mut raw = Index::new(dot).unwrap();
    raw.add(&json!({"id": "a", "emb": [3, 4]})).unwrap();
    let cos = request(serde_json::json!({"schema": {"emb": {"type": "vector", "dimensions": 2}}}));
    let unit = raw.rebuilt(&cos).unwrap();
    assert_eq!(
        unit.snapshot().get_json_with_vectors("a").unwrap(),
        r#"{"id":"a","emb":[0.6,0.8]}"#
    );
}
