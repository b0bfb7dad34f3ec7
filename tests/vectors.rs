//! Vector fields and hybrid search through the public Rust API: schema and
//! document checks, metrics, pure vector search with filters and deletes,
//! fusion keeping keyword-only and vector-only hits, int8 mode, and vectors
//! across flush, merge, commit/reopen and snapshots; v2 indexes (no
//! vectors) still open and search.
#![cfg(not(target_arch = "wasm32"))]

use memdex::json::Value;
use memdex::query::options::Found;
use memdex::storage::{FsStorage, MemoryStorage};
use memdex::vector::fusion::{HybridOptions, Method};
use memdex::{Index, IndexConfig, SearchOptions};

macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

fn config(metric: &str, quantize: &str) -> IndexConfig {
    IndexConfig::from_json(&json!({
        "fields": {
            "text": {"type": "text"},
            "kind": {"type": "keyword"},
            "emb": {"type": "vector", "dimensions": 3, "metric": metric, "quantize": quantize},
        }
    }))
    .unwrap()
}

fn doc(id: &str, text: &str, kind: &str, emb: Option<[f32; 3]>) -> Value {
    match emb {
        Some(e) => json!({"id": id, "text": text, "kind": kind, "emb": e}),
        None => json!({"id": id, "text": text, "kind": kind}),
    }
}

/// Five memories: "a" and "b" match the words "deploy friday"; "c" and "d"
/// point the way of the query vector [1, 0, 0]; "e" has no vector.
fn corpus(index: &mut Index) {
    let docs = [
        doc("a", "deploy on friday", "note", Some([0.0, 1.0, 0.0])),
        doc(
            "b",
            "deploy friday friday night",
            "rule",
            Some([0.0, 0.0, 1.0]),
        ),
        doc("c", "the cat sat", "note", Some([1.0, 0.1, 0.0])),
        doc("d", "dogs bark", "rule", Some([0.9, 0.4, 0.0])),
        doc("e", "deploy", "note", None),
    ];
    for d in &docs {
        index.add(d).unwrap();
    }
}

fn vector_opts(v: [f32; 3]) -> SearchOptions {
    SearchOptions {
        vector: Some(v.to_vec()),
        ..Default::default()
    }
}

fn ids(index: &mut Index, q: &str, opts: &SearchOptions) -> Vec<String> {
    index
        .searcher()
        .search(q, opts)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect()
}

#[test]
fn schema_round_trips_and_rejects_bad_definitions() {
    let c = config("dot", "int8");
    let text = memdex::json::ToJson::to_json(&c);
    assert!(
        text.contains(r#""emb":{"type":"vector","dimensions":3,"metric":"dot","quantize":"int8"}"#),
        "{text}"
    );
    assert_eq!(
        IndexConfig::from_json(&memdex::json::parse(&text).unwrap()),
        Ok(c)
    );
    let read = |f: serde_json::Value| {
        let v = memdex::json::parse(
            &serde_json::json!({"fields": {"t": {"type": "text"}, "v": f}}).to_string(),
        )
        .unwrap();
        IndexConfig::from_json(&v).and_then(|c| c.validate().map_err(|e| e.to_string()))
    };
    assert!(read(serde_json::json!({"type": "vector"}))
        .unwrap_err()
        .contains("fields.v.dimensions"));
    assert!(read(serde_json::json!({"type": "vector", "dimensions": 0}))
        .unwrap_err()
        .contains("dimensions"));
    assert!(
        read(serde_json::json!({"type": "vector", "dimensions": 4, "metric": "l2"}))
            .unwrap_err()
            .contains("fields.v.metric")
    );
    assert!(read(serde_json::json!({"type": "vector", "dimensions": 4, "stored": true})).is_err());
    assert_eq!(
        read(serde_json::json!({"type": "vector", "dimensions": 4})),
        Ok(())
    );
}

#[test]
fn documents_with_bad_vectors_are_schema_errors_naming_field_and_document() {
    let mut index = Index::new(config("cosine", "none")).unwrap();
    for (emb, reason) in [
        (serde_json::json!([1, 2]), "expected 3 numbers"),
        (serde_json::json!("x"), "array of numbers"),
        (serde_json::json!([1, "2", 3]), "element 1"),
        (serde_json::json!([1e39, 0, 0]), "element 0"),
        (serde_json::json!([0, 0, 0]), "all zeros"),
    ] {
        let err = index
            .add(&json!({"id": "bad-doc", "text": "t", "emb": emb}))
            .unwrap_err();
        assert_eq!(err.code(), "SCHEMA");
        let msg = err.to_string();
        assert!(
            msg.contains("emb") && msg.contains(reason) && msg.ends_with("(document `bad-doc`)"),
            "{msg}"
        );
        assert_eq!(msg.matches("bad-doc").count(), 1, "named once: {msg}");
    }
    // The JSON-text path reads vectors too.
    index
        .add_json(r#"{"id":"ok","text":"t","emb":[3,4,0]}"#)
        .unwrap()
        .unwrap();
    index.flush();
    let hit = &index
        .searcher()
        .search("", &vector_opts([0.0, 1.0, 0.0]))
        .unwrap()
        .hits[0];
    // Cosine vectors are normalized at write: (0.6, 0.8, 0) . (0, 1, 0).
    assert_eq!((hit.id.as_str(), hit.score), ("ok", 0.8));
}

#[test]
fn pure_vector_search_ranks_by_metric_with_filters_and_deletes() {
    let mut index = Index::new(config("cosine", "none")).unwrap();
    corpus(&mut index);
    let results = index
        .searcher()
        .search("", &vector_opts([1.0, 0.0, 0.0]))
        .unwrap();
    let got: Vec<(&str, Option<Found>, Option<Found>)> = results
        .hits
        .iter()
        .map(|h| (h.id.as_str(), h.lexical, h.vector))
        .collect();
    assert_eq!(
        got.iter().map(|g| g.0).collect::<Vec<_>>(),
        ["c", "d", "a", "b"]
    );
    assert!(got.iter().all(|g| g.1.is_none()));
    assert_eq!(got[0].2.unwrap().rank, 1);
    let c = 1.0 / (1.0f32 + 0.01).sqrt();
    assert!((results.hits[0].score - c).abs() < 1e-6);
    // Filter before ranking: only rules.
    let rules = SearchOptions {
        filter: Some(json!({"kind": "rule"})),
        ..vector_opts([1.0, 0.0, 0.0])
    };
    assert_eq!(ids(&mut index, "", &rules), ["d", "b"]);
    // Deleted documents leave vector results.
    index.delete("c");
    assert_eq!(ids(&mut index, "", &vector_opts([1.0, 0.0, 0.0]))[0], "d");
    // Dot product: magnitudes count.
    let mut dot = Index::new(config("dot", "none")).unwrap();
    dot.add(&doc("small", "x", "note", Some([1.0, 0.0, 0.0])))
        .unwrap();
    dot.add(&doc("big", "x", "note", Some([5.0, 5.0, 0.0])))
        .unwrap();
    let hits = dot
        .searcher()
        .search("", &vector_opts([1.0, 0.0, 0.0]))
        .unwrap()
        .hits;
    assert_eq!((hits[0].id.as_str(), hits[0].score), ("big", 5.0));
    // Under cosine, direction only: "small" is the better match.
    let mut cos = Index::new(config("cosine", "none")).unwrap();
    cos.add(&doc("small", "x", "note", Some([1.0, 0.0, 0.0])))
        .unwrap();
    cos.add(&doc("big", "x", "note", Some([5.0, 5.0, 0.0])))
        .unwrap();
    assert_eq!(ids(&mut cos, "", &vector_opts([1.0, 0.0, 0.0]))[0], "small");
}

#[test]
fn hybrid_fusion_keeps_keyword_only_and_vector_only_hits() {
    for method in [Method::Rrf, Method::Weighted, Method::Zscore] {
        let mut index = Index::new(config("cosine", "none")).unwrap();
        corpus(&mut index);
        let opts = SearchOptions {
            hybrid: Some(HybridOptions {
                method,
                ..Default::default()
            }),
            ..vector_opts([1.0, 0.0, 0.0])
        };
        let hits = index
            .searcher()
            .search("deploy friday", &opts)
            .unwrap()
            .hits;
        let by_id = |id: &str| hits.iter().find(|h| h.id == id).unwrap();
        // Every document is eligible: keyword-only "e" and vector-only
        // "c", "d" are all present.
        let mut all: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        all.sort();
        assert_eq!(all, ["a", "b", "c", "d", "e"], "{method:?}");
        assert!(by_id("e").lexical.is_some() && by_id("e").vector.is_none());
        assert!(by_id("c").lexical.is_none() && by_id("c").vector.unwrap().rank == 1);
        assert!(by_id("b").lexical.is_some() && by_id("b").vector.is_some());
        assert!(by_id("b").matched_terms.contains(&"friday".to_string()));
        assert!(by_id("c").matched_terms.is_empty());
        if method == Method::Rrf {
            // "c" (vector rank 1) scores 1/61; "b" is in both lists.
            assert_eq!(by_id("c").score, 1.0 / 61.0);
            let b = by_id("b");
            let want = 1.0 / (60.0 + b.lexical.unwrap().rank as f32)
                + 1.0 / (60.0 + b.vector.unwrap().rank as f32);
            assert_eq!(b.score, want);
        }
        // Scores never rise down the list.
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }
}

#[test]
fn hybrid_weighted_alpha_moves_the_ranking() {
    let mut index = Index::new(config("cosine", "none")).unwrap();
    corpus(&mut index);
    let with_alpha = |alpha: f32| SearchOptions {
        hybrid: Some(HybridOptions {
            method: Method::Weighted,
            alpha,
            ..Default::default()
        }),
        ..vector_opts([1.0, 0.0, 0.0])
    };
    assert_eq!(ids(&mut index, "deploy friday", &with_alpha(1.0))[0], "c");
    assert_ne!(ids(&mut index, "deploy friday", &with_alpha(0.0))[0], "c");
}

#[test]
fn hybrid_default_is_zscore_and_its_alpha_moves_the_ranking() {
    let mut index = Index::new(config("cosine", "none")).unwrap();
    corpus(&mut index);
    let run = |index: &mut Index, hybrid: Option<HybridOptions>| {
        let opts = SearchOptions {
            hybrid,
            ..vector_opts([1.0, 0.0, 0.0])
        };
        let hits = index
            .searcher()
            .search("deploy friday", &opts)
            .unwrap()
            .hits;
        hits.into_iter()
            .map(|h| (h.id, h.score))
            .collect::<Vec<_>>()
    };
    let zscore = |alpha| {
        Some(HybridOptions {
            method: Method::Zscore,
            alpha,
            ..Default::default()
        })
    };
    // No `hybrid` options: z-score fusion, alpha 0.5.
    assert_eq!(run(&mut index, None), run(&mut index, zscore(0.5)));
    assert_ne!(
        run(&mut index, None),
        run(
            &mut index,
            Some(HybridOptions {
                method: Method::Rrf,
                ..Default::default()
            })
        )
    );
    assert_eq!(run(&mut index, zscore(1.0))[0].0, "c");
    assert_ne!(run(&mut index, zscore(0.0))[0].0, "c");
}

#[test]
fn option_errors_are_usage_or_schema_and_name_the_option() {
    let mut index = Index::new(config("cosine", "none")).unwrap();
    corpus(&mut index);
    let code = |index: &mut Index, opts: SearchOptions| {
        let e = index.searcher().search("deploy", &opts).unwrap_err();
        (e.code(), e.to_string())
    };
    let (c, m) = code(
        &mut index,
        SearchOptions {
            vector: Some(vec![1.0, 0.0]),
            ..Default::default()
        },
    );
    assert_eq!(c, "USAGE");
    assert!(
        m.contains("`vector` has 2 numbers") && m.contains("3 dimensions"),
        "{m}"
    );
    let (c, m) = code(
        &mut index,
        SearchOptions {
            hybrid: Some(HybridOptions::default()),
            ..Default::default()
        },
    );
    assert_eq!(c, "USAGE");
    assert!(m.contains("hybrid"), "{m}");
    let (c, _) = code(
        &mut index,
        SearchOptions {
            vector_field: Some("text".into()),
            ..vector_opts([1.0, 0.0, 0.0])
        },
    );
    assert_eq!(c, "SCHEMA");
    let (c, _) = code(
        &mut index,
        SearchOptions {
            vector: Some(vec![f32::NAN, 0.0, 0.0]),
            ..Default::default()
        },
    );
    assert_eq!(c, "USAGE");
    let opts = SearchOptions::from_json(
        &json!({"vector": [1, 0, 0], "hybrid": {"method": "weighted", "alpha": 0.3}}),
    )
    .unwrap();
    assert_eq!(opts.vector, Some(vec![1.0, 0.0, 0.0]));
    assert!(SearchOptions::from_json(&json!({"vector": "x"}))
        .unwrap_err()
        .contains("vector"));
    let mut plain = Index::new(IndexConfig::default()).unwrap();
    plain.add(&json!({"id": "x", "text": "deploy"})).unwrap();
    let e = plain
        .searcher()
        .search("deploy", &vector_opts([1.0, 0.0, 0.0]))
        .unwrap_err();
    assert_eq!(e.code(), "SCHEMA");
}

/// Vector results by id and score, for comparing states.
fn fingerprint(index: &mut Index) -> Vec<String> {
    let mut out = Vec::new();
    for (q, v) in [
        ("", [1.0, 0.0, 0.0]),
        ("deploy", [0.0, 0.0, 1.0]),
        ("", [0.2, 0.3, 0.9]),
    ] {
        let opts = SearchOptions {
            limit: 50,
            ..vector_opts(v)
        };
        for h in index.searcher().search(q, &opts).unwrap().hits {
            out.push(format!(
                "{q}/{}:{}:{:?}:{:?}",
                h.id, h.score, h.lexical, h.vector
            ));
        }
    }
    out
}

fn many(index: &mut Index, from: usize, to: usize) {
    for i in from..to {
        let f = i as f32;
        let emb = (i % 5 != 0).then_some([f.sin(), f.cos(), (f * 0.3).sin() + 1.5]);
        index
            .add(&doc(
                &format!("m{i}"),
                &format!("deploy note {i}"),
                "note",
                emb,
            ))
            .unwrap();
    }
}

#[test]
fn vectors_survive_flush_merge_commit_reopen_and_snapshot() {
    let storage = MemoryStorage::new();
    let mut index = block_on(Index::open(&storage, "v", Some(config("cosine", "none")))).unwrap();
    // One document per flush: the merge policy merges as it goes.
    for i in 0..40 {
        many(&mut index, i, i + 1);
        index.flush();
    }
    index.delete("m3");
    index.delete("m17");
    let want = fingerprint(&mut index);
    assert!(!want
        .iter()
        .any(|l| l.contains("/m3:") || l.contains("/m17:")));
    assert!(
        !want.iter().any(|l| l.starts_with("/m5:")),
        "m5 has no vector"
    );
    assert!(
        want.iter().any(|l| l.starts_with("deploy/m5:")),
        "m5 is found by words"
    );
    block_on(index.commit(&storage, "v")).unwrap();
    let mut reopened = block_on(Index::open(&storage, "v", None)).unwrap();
    assert_eq!(fingerprint(&mut reopened), want);
    index.compact();
    assert_eq!(fingerprint(&mut index), want, "after a full merge");
    let mut copy = Index::import_snapshot(&index.export_snapshot()).unwrap();
    assert_eq!(fingerprint(&mut copy), want, "after a snapshot");
    // A rebuild from scratch in one segment ranks alike.
    let mut fresh = Index::new(config("cosine", "none")).unwrap();
    many(&mut fresh, 0, 40);
    fresh.delete("m3");
    fresh.delete("m17");
    assert_eq!(fingerprint(&mut fresh), want, "independent of segmentation");
    // Upserting a document replaces its vector.
    reopened
        .add(&doc("m1", "deploy note 1", "note", Some([1.0, 0.0, 0.0])))
        .unwrap();
    let top = &reopened
        .searcher()
        .search("", &vector_opts([1.0, 0.0, 0.0]))
        .unwrap()
        .hits[0];
    assert_eq!((top.id.as_str(), top.score), ("m1", 1.0));
}

#[test]
fn int8_mode_returns_exact_scores_of_near_exact_candidates() {
    let mut exact = Index::new(config("cosine", "none")).unwrap();
    let mut int8 = Index::new(config("cosine", "int8")).unwrap();
    many(&mut exact, 0, 300);
    many(&mut int8, 0, 300);
    for v in [[1.0, 0.0, 0.0], [0.0, 1.0, 0.5], [-0.3, 0.2, 1.0]] {
        let opts = SearchOptions {
            limit: 10,
            ..vector_opts(v)
        };
        let a = exact.searcher().search("", &opts).unwrap().hits;
        let b = int8.searcher().search("", &opts).unwrap().hits;
        // 300 candidates rerank whole: the results are the exact ones.
        assert_eq!(
            a.iter().map(|h| (&h.id, h.score)).collect::<Vec<_>>(),
            b.iter().map(|h| (&h.id, h.score)).collect::<Vec<_>>()
        );
    }
}

/// The frozen v2 fixture (no vector columns) opens under format v3 and
/// searches; adding vectorless documents and committing writes v3.
#[test]
fn format_v2_index_still_opens_and_takes_new_commits() {
    let src = format!("{}/tests/fixtures/format-v2", env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("memdex-vec-v2-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    fn copy(from: &std::path::Path, to: &std::path::Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap() {
            let e = e.unwrap();
            if e.file_type().unwrap().is_dir() {
                copy(&e.path(), &to.join(e.file_name()));
            } else {
                std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
            }
        }
    }
    copy(std::path::Path::new(&src), &dir);
    let storage = FsStorage::new(&dir);
    let mut index = block_on(Index::open(&storage, "fixture", None)).unwrap();
    let before = index.len();
    assert!(before > 0);
    let hits = index
        .searcher()
        .search("deploy", &SearchOptions::default())
        .unwrap()
        .hits;
    index
        .add(&json!({"id": "new-doc", "text": "deploy again"}))
        .unwrap();
    block_on(index.commit(&storage, "fixture")).unwrap();
    let mut reopened = block_on(Index::open(&storage, "fixture", None)).unwrap();
    assert_eq!(reopened.len(), before + 1);
    let again = reopened
        .searcher()
        .search(
            "deploy",
            &SearchOptions {
                limit: 100,
                ..Default::default()
            },
        )
        .unwrap()
        .hits;
    assert!(again.iter().any(|h| h.id == "new-doc"));
    for h in &hits {
        assert!(again.iter().any(|g| g.id == h.id));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The `emb` of `get_json_with_vectors(id)`, if it has one.
fn stored_vector(index: &Index, id: &str) -> Option<Vec<f64>> {
    let json = index.snapshot().get_json_with_vectors(id)?;
    let doc = memdex::json::parse(&json).unwrap();
    let emb = doc.as_object().unwrap().get("emb")?.as_array().unwrap();
    Some(emb.iter().map(|x| x.as_f64().unwrap()).collect())
}

#[test]
fn get_with_vectors_returns_them_from_the_buffer_segments_and_storage() {
    let storage = MemoryStorage::new();
    let mut index = block_on(Index::open(&storage, "g", Some(config("cosine", "none")))).unwrap();
    index
        .add(&doc("a", "deploy", "note", Some([3.0, 4.0, 0.0])))
        .unwrap();
    index.add(&doc("e", "no vector", "note", None)).unwrap();
    // Buffered: cosine vectors come back at unit length.
    assert_eq!(stored_vector(&index, "a"), Some(vec![0.6, 0.8, 0.0]));
    assert_eq!(stored_vector(&index, "e"), None);
    let plain = index.snapshot().get_json("a").unwrap();
    let with = index.snapshot().get_json_with_vectors("a").unwrap();
    assert!(!plain.contains("emb") && with.starts_with(&plain[..plain.len() - 1]));
    assert_eq!(index.snapshot().get_json_with_vectors("missing"), None);
    many(&mut index, 0, 12);
    index.flush();
    many(&mut index, 12, 20);
    for state in ["buffer and segment", "one segment", "reopened"] {
        match state {
            "one segment" => index.compact(),
            "reopened" => {
                block_on(index.commit(&storage, "g")).unwrap();
                index = block_on(Index::open(&storage, "g", None)).unwrap();
            }
            _ => {}
        }
        assert_eq!(
            stored_vector(&index, "a"),
            Some(vec![0.6, 0.8, 0.0]),
            "{state}"
        );
        assert_eq!(
            stored_vector(&index, "m5"),
            None,
            "{state}: m5 has no vector"
        );
        let v = stored_vector(&index, "m7").unwrap();
        let norm: f64 = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!(
            (norm - 1.0).abs() < 1e-6,
            "{state}: unit length, got {norm}"
        );
    }
    // What get returns goes back in as it is and ranks alike (a patch).
    let want = fingerprint(&mut index);
    for i in 0..20 {
        let json = index
            .snapshot()
            .get_json_with_vectors(&format!("m{i}"))
            .unwrap();
        index.add_json(&json).unwrap().unwrap();
    }
    let got = fingerprint(&mut index);
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(
            g.split(':').next(),
            w.split(':').next(),
            "same hits in the same order"
        );
    }
}

#[test]
fn get_with_vectors_keeps_dot_vectors_as_given() {
    let mut index = Index::new(config("dot", "none")).unwrap();
    index
        .add(&doc("a", "x", "note", Some([3.0, 4.0, 0.5])))
        .unwrap();
    assert_eq!(stored_vector(&index, "a"), Some(vec![3.0, 4.0, 0.5]));
}
