//! The engine against a straightforward reference BM25 written here, and
//! segmentation invariance: deletes, upserts, flushes and merges never change
//! results compared to building the same live documents from scratch.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::{BTreeMap, HashMap};

use memdex::analysis::{Analyzer, AnalyzerOptions};
use memdex::{FieldDef, FieldMap, Index, IndexConfig, Mode, SearchOptions};
use proptest::prelude::*;
/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

const WORDS: &[&str] = &[
    "agent",
    "memory",
    "search",
    "index",
    "deploy",
    "friday",
    "rule",
    "user",
    "prefers",
    "dark",
    "mode",
    "python",
    "rust",
    "wasm",
    "browser",
    "storage",
    "commit",
    "segment",
    "merge",
    "query",
    "token",
    "budget",
    "note",
    "tabs",
    "the",
    "getUserById",
    "src/lib/auth.ts",
    "東京都",
    "v1.2.3",
    "snake_case_name",
    "user@example.com",
    "dark-mode",
    "three-dimensional",
];

fn single_field_config() -> IndexConfig {
    let mut fields = FieldMap::new();
    fields.insert(
        "text".to_string(),
        FieldDef::Text {
            weight: 1.0,
            language: None,
            stored: true,
        },
    );
    IndexConfig {
        fields,
        ..IndexConfig::default()
    }
}

/// Reference BM25 (Lucene idf), computed from scratch over token lists.
/// Query tokens sharing a position (a compound and its first part) add up;
/// the whole token of words joined by hyphens is not searched (its words
/// are).
fn reference_scores(
    docs: &[(String, String)],
    query: &str,
    k1: f64,
    b: f64,
) -> HashMap<String, f64> {
    let analyzer = Analyzer::new(&AnalyzerOptions::default()).unwrap();
    // (id, terms, length = distinct positions)
    let analyzed: Vec<(String, Vec<String>, f64)> = docs
        .iter()
        .map(|(id, text)| {
            let tokens = analyzer.analyze(text);
            let mut positions: Vec<u32> = tokens.iter().map(|t| t.position).collect();
            positions.dedup();
            (
                id.clone(),
                tokens.into_iter().map(|t| t.term).collect(),
                positions.len() as f64,
            )
        })
        .collect();
    let n = analyzed.len() as f64;
    let avg = analyzed.iter().map(|(_, _, len)| len).sum::<f64>() / n;
    let qterms: Vec<String> = analyzer
        .analyze(query)
        .into_iter()
        .map(|t| t.term)
        .filter(|t| !(t.contains('-') && t.chars().all(|c| c == '-' || c.is_alphabetic())))
        .collect();
    let mut out = HashMap::new();
    for (id, terms, len) in &analyzed {
        let mut score = 0.0;
        let mut matched = false;
        for q in &qterms {
            let tf = terms.iter().filter(|t| *t == q).count() as f64;
            if tf == 0.0 {
                continue;
            }
            matched = true;
            let df = analyzed.iter().filter(|(_, t, _)| t.contains(q)).count() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            score += idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg));
        }
        if matched {
            out.insert(id.clone(), score);
        }
    }
    out
}

fn doc_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..30).prop_map(|w| w.join(" "))
}

fn query_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..5).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn scores_match_reference_bm25(texts in prop::collection::vec(doc_text(), 1..40), query in query_text(),
                                   k1 in 0.5f32..2.0, b in 0.0f32..1.0) {
        let docs: Vec<(String, String)> = texts.into_iter().enumerate().map(|(i, t)| (format!("d{i:03}"), t)).collect();
        let mut index = Index::new(single_field_config()).unwrap();
        for (id, text) in &docs {
            index.add(&json!({"id": id, "text": text})).unwrap();
        }
        let opts = SearchOptions { limit: 1000, k1: Some(k1), b: Some(b), ..Default::default() };
        let results = index.searcher().search(&query, &opts).unwrap();
        let reference = reference_scores(&docs, &query, k1 as f64, b as f64);
        prop_assert_eq!(results.hits.len(), reference.len());
        for hit in &results.hits {
            let want = reference[&hit.id];
            prop_assert!((hit.score as f64 - want).abs() < 1e-4, "{}: {} vs {}", hit.id, hit.score, want);
        }
        // Deterministic order: score desc, then id asc.
        for w in results.hits.windows(2) {
            prop_assert!(w[0].score > w[1].score || (w[0].score == w[1].score && w[0].id < w[1].id));
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    Add(usize, String),
    Delete(usize),
    Flush,
    Search(String),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0usize..30, doc_text()).prop_map(|(i, t)| Op::Add(i, t)),
        2 => (0usize..30).prop_map(Op::Delete),
        2 => Just(Op::Flush),
        // Queries between writes: anything a search caches (live document
        // frequencies per segment) must follow later deletes.
        1 => query_text().prop_map(Op::Search),
    ]
}

fn run_query(index: &mut Index, q: &str, mode: Mode) -> Vec<(String, f32)> {
    let opts = SearchOptions {
        limit: 50,
        mode,
        ..Default::default()
    };
    index
        .searcher()
        .search(q, &opts)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| (h.id, h.score))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn segmentation_never_changes_results(ops in prop::collection::vec(op(), 1..80), queries in prop::collection::vec(query_text(), 1..4)) {
        let mut index = Index::new(IndexConfig::default()).unwrap();
        let mut live: BTreeMap<usize, String> = BTreeMap::new();
        for op in &ops {
            match op {
                Op::Add(i, t) => {
                    index.add(&json!({"id": format!("m{i}"), "title": t, "text": t})).unwrap();
                    live.insert(*i, t.clone());
                }
                Op::Delete(i) => {
                    prop_assert_eq!(index.delete(&format!("m{i}")), live.remove(i).is_some());
                }
                Op::Flush => index.flush(),
                Op::Search(q) => {
                    run_query(&mut index, q, Mode::Or);
                }
            }
        }
        let mut fresh = Index::new(IndexConfig::default()).unwrap();
        for (i, t) in &live {
            fresh.add(&json!({"id": format!("m{i}"), "title": t, "text": t})).unwrap();
        }
        prop_assert_eq!(index.len(), live.len());
        for q in &queries {
            for mode in [Mode::Or, Mode::And] {
                let got = run_query(&mut index, q, mode);
                let want = run_query(&mut fresh, q, mode);
                prop_assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    prop_assert_eq!(&g.0, &w.0);
                    prop_assert!((g.1 - w.1).abs() < 1e-5);
                }
            }
        }
        // Compacting changes nothing either.
        index.compact();
        prop_assert!(index.stats().segments <= 1);
        for q in &queries {
            let got = run_query(&mut index, q, Mode::Or);
            let want = run_query(&mut fresh, q, Mode::Or);
            prop_assert_eq!(got.iter().map(|g| &g.0).collect::<Vec<_>>(), want.iter().map(|w| &w.0).collect::<Vec<_>>());
        }
    }
}

#[test]
fn write_one_then_flush_keeps_segments_logarithmic() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let n = 2000;
    for i in 0..n {
        let w1 = WORDS[i % WORDS.len()];
        let w2 = WORDS[(i * 7) % WORDS.len()];
        index
            .add(&json!({"id": format!("d{i}"), "title": w1, "text": format!("{w1} {w2} {i}")}))
            .unwrap();
        index.flush();
        let bound = (((i + 1) as f64).log2().floor() as usize) + 1;
        assert!(
            index.stats().segments <= bound,
            "{} segments after {} docs",
            index.stats().segments,
            i + 1
        );
    }
    assert_eq!(index.len(), n);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Dynamic pruning (MaxScore + block skipping) returns exactly the
    /// exhaustive top-k: same ids in the same order, same scores.
    #[test]
    fn pruned_top_k_equals_exhaustive(texts in prop::collection::vec(doc_text(), 150..600), query in query_text(),
                                      k in 1usize..8) {
        let docs: Vec<(String, String)> = texts.into_iter().enumerate().map(|(i, t)| (format!("d{i:04}"), t)).collect();
        let mut index = Index::new(single_field_config()).unwrap();
        for (id, text) in &docs {
            index.add(&json!({"id": id, "text": text})).unwrap();
        }
        let top = index.searcher().search(&query, &SearchOptions { limit: k, ..Default::default() }).unwrap().hits;
        let mut all: Vec<(String, f64)> = reference_scores(&docs, &query, 1.2, 0.75).into_iter().collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let reference = &all[..k.min(all.len())];
        prop_assert_eq!(top.len(), reference.len());
        for (hit, (id, score)) in top.iter().zip(reference) {
            prop_assert!((hit.score as f64 - score).abs() < 1e-4);
            // Ids agree unless two reference scores tie within float noise
            // (the tied id may sort just past the top k in the reference).
            if &hit.id != id {
                let other = all.iter().find(|r| r.0 == hit.id).map(|r| r.1);
                prop_assert!(other.is_some_and(|o| (o - score).abs() < 1e-5), "{} vs {}", hit.id, id);
            }
        }
    }
}

fn title_and_text_config() -> IndexConfig {
    let mut config = single_field_config();
    config.fields.insert(
        "title".to_string(),
        FieldDef::Text {
            weight: 2.0,
            language: None,
            stored: true,
        },
    );
    config
}

fn title_text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..4).prop_map(|w| w.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// BM25F under every pruning device (block bounds, per-document bounds,
    /// MaxScore, skipping in conjunctions) returns exactly the first k hits
    /// of an unpruned search (a limit no heap fills): same ids, same order,
    /// identical scores, for any k1, b and field weights. Hundreds of
    /// documents over a small vocabulary give terms many postings blocks.
    #[test]
    fn pruned_bm25f_equals_unpruned(docs in prop::collection::vec((title_text(), doc_text()), 150..500),
                                    query in query_text(), k in 1usize..8, k1 in 0.0f32..3.0, b in 0.0f32..=1.0,
                                    title_weight in 0.25f32..6.0, and in any::<bool>()) {
        let mut index = Index::new(title_and_text_config()).unwrap();
        for (i, (title, text)) in docs.iter().enumerate() {
            index.add(&json!({"id": format!("d{i:04}"), "title": title, "text": text})).unwrap();
        }
        let mut opts = SearchOptions {
            mode: if and { Mode::And } else { Mode::Or },
            limit: k,
            k1: Some(k1),
            b: Some(b),
            fields: Some(FieldMap::from([("title".to_string(), title_weight), ("text".to_string(), 1.0)])),
            ..Default::default()
        };
        let pruned = index.searcher().search(&query, &opts).unwrap().hits;
        opts.limit = docs.len();
        let unpruned = index.searcher().search(&query, &opts).unwrap().hits;
        let expected: Vec<(&str, u32)> = unpruned.iter().take(k).map(|h| (h.id.as_str(), h.score.to_bits())).collect();
        let got: Vec<(&str, u32)> = pruned.iter().map(|h| (h.id.as_str(), h.score.to_bits())).collect();
        prop_assert_eq!(got, expected);
    }
}
