//! Natural-language search: the proximity rerank (`proximity`), the
//! default mode on agent questions (`tests/fixtures/agent-memory.json`),
//! and `strategy: 'auto'` with what it reports.
#![cfg(not(target_arch = "wasm32"))]

use memdex::json::ToJson;
use memdex::{Index, IndexConfig, Mode, SearchOptions};

fn opts(json: &str) -> SearchOptions {
    SearchOptions::from_json(&memdex::json::parse(json).unwrap()).unwrap()
}

fn ids(index: &mut Index, q: &str, o: &SearchOptions) -> Vec<String> {
    index
        .searcher()
        .search(q, o)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect()
}

fn add(index: &mut Index, id: &str, title: &str, text: &str) {
    let doc = serde_json::json!({ "id": id, "title": title, "text": text });
    index
        .add(&memdex::json::parse(&doc.to_string()).unwrap())
        .unwrap();
}

/// Same words, same counts, same lengths: BM25F ties them; only where
/// the words stand differs.
fn twins() -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    add(
        &mut index,
        "far",
        "notes",
        "deploy one two three four five six seven eight friday",
    );
    add(
        &mut index,
        "near",
        "notes",
        "one two three four five six seven eight deploy friday",
    );
    add(&mut index, "other", "notes", "nothing relevant here at all");
    index
}

#[test]
fn proximity_ranks_adjacent_words_first_and_leaves_far_ones_alone() {
    let mut index = twins();
    let plain = index
        .searcher()
        .search("deploy friday", &opts("{}"))
        .unwrap();
    let near = index
        .searcher()
        .search("deploy friday", &opts(r#"{"proximity":true}"#))
        .unwrap();
    // Without proximity the tie breaks by id: "far" first.
    assert_eq!(plain.hits[0].id, "far");
    assert_eq!(plain.hits[0].score, plain.hits[1].score);
    assert_eq!(near.hits[0].id, "near");
    assert!(near.hits[0].score > near.hits[1].score);
    // Nine positions apart (beyond the window of 5): no bonus.
    let far = |r: &memdex::SearchResults| r.hits.iter().find(|h| h.id == "far").unwrap().score;
    assert_eq!(far(&plain), far(&near));
    // A wider window reaches it, a weight of 0 turns the bonus off.
    let wide = index
        .searcher()
        .search("deploy friday", &opts(r#"{"proximity":{"window":9}}"#))
        .unwrap();
    assert!(far(&wide) > far(&plain));
    let off = index
        .searcher()
        .search("deploy friday", &opts(r#"{"proximity":{"weight":0}}"#))
        .unwrap();
    assert_eq!(off.hits, plain.hits);
}

#[test]
fn proximity_changes_nothing_for_one_word_or_when_off() {
    let mut index = twins();
    for q in ["deploy", "friday -deploy", "zebra"] {
        let plain = index.searcher().search(q, &opts("{}")).unwrap();
        let prox = index
            .searcher()
            .search(q, &opts(r#"{"proximity":true}"#))
            .unwrap();
        assert_eq!(plain.hits, prox.hits, "{q}");
    }
    let plain = index
        .searcher()
        .search("deploy friday", &opts("{}"))
        .unwrap();
    let off = index
        .searcher()
        .search("deploy friday", &opts(r#"{"proximity":false}"#))
        .unwrap();
    assert_eq!(plain, off);
}

#[test]
fn proximity_pages_are_slices_of_one_order() {
    // 30 documents with both words at varying distances and lengths.
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..30 {
        let gap = "x ".repeat(i % 7);
        let pad = "y ".repeat(i % 5);
        add(
            &mut index,
            &format!("d{i:02}"),
            "t",
            &format!("{pad}alpha {gap}beta {}", "z ".repeat(i % 3)),
        );
    }
    let all = ids(
        &mut index,
        "alpha beta",
        &opts(r#"{"proximity":{"depth":8},"limit":30}"#),
    );
    assert_eq!(all.len(), 30);
    let mut paged = Vec::new();
    for offset in (0..30).step_by(4) {
        paged.extend(ids(
            &mut index,
            "alpha beta",
            &opts(&format!(
                r#"{{"proximity":{{"depth":8}},"limit":4,"offset":{offset}}}"#
            )),
        ));
    }
    assert_eq!(paged, all);
    // The reranked 8 are the BM25F top 8, reordered; the rest keep order.
    let plain = ids(&mut index, "alpha beta", &opts(r#"{"limit":30}"#));
    let mut top: Vec<_> = all[..8].to_vec();
    let mut plain_top: Vec<_> = plain[..8].to_vec();
    top.sort();
    plain_top.sort();
    assert_eq!(top, plain_top);
    assert_eq!(all[8..], plain[8..]);
    assert_ne!(all[..8], plain[..8], "the rerank reorders something here");
}

#[test]
fn proximity_options_are_validated_with_their_names() {
    let index = twins();
    let err =
        SearchOptions::from_json(&memdex::json::parse(r#"{"proximity":{"wieght":1}}"#).unwrap())
            .unwrap_err();
    assert!(err.contains("wieght"), "{err}");
    for (json, name) in [
        (r#"{"proximity":{"weight":-1}}"#, "proximity.weight"),
        (r#"{"proximity":{"window":0}}"#, "proximity.window"),
        (r#"{"proximity":{"depth":5000}}"#, "proximity.depth"),
    ] {
        let err = index.snapshot().search("a b", &opts(json)).unwrap_err();
        assert_eq!(err.code(), "USAGE", "{json}");
        assert!(err.to_string().contains(name), "{err}");
    }
    let err = SearchOptions::from_json(&memdex::json::parse(r#"{"strategy":"magic"}"#).unwrap())
        .unwrap_err();
    assert!(err.contains("strategy"), "{err}");
}

struct Fixture {
    index: Index,
    /// (question, relevant ids)
    questions: Vec<(String, Vec<String>)>,
}

fn agent_memory() -> Fixture {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/agent-memory.json"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for m in v["memories"].as_array().unwrap() {
        index
            .add(&memdex::json::parse(&m.to_string()).unwrap())
            .unwrap();
    }
    let questions = v["questions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|q| {
            let rel = q["relevant"].as_array().unwrap();
            (
                q["q"].as_str().unwrap().to_string(),
                rel.iter()
                    .map(|r| r.as_str().unwrap().to_string())
                    .collect(),
            )
        })
        .collect();
    Fixture { index, questions }
}

/// Questions whose top hit answers them.
fn answered(f: &mut Fixture, o: &SearchOptions) -> usize {
    let questions = f.questions.clone();
    questions
        .iter()
        .filter(|(q, rel)| {
            ids(&mut f.index, q, o)
                .first()
                .is_some_and(|top| rel.contains(top))
        })
        .count()
}

#[test]
fn the_default_mode_answers_agent_questions_and_fails_where_and_does() {
    let mut f = agent_memory();
    assert_eq!(SearchOptions::default().mode, Mode::Or);
    let default = answered(&mut f, &SearchOptions::default());
    let and = answered(&mut f, &opts(r#"{"mode":"and"}"#));
    // Measured (BENCHMARKS.md): 16 of 18 by default, 4 in AND mode.
    assert!(default >= 16, "default answered {default}");
    assert!(and < default / 2, "and answered {and}");
    // The issue's example: AND requires "can" and finds nothing.
    let q = "can I deploy on friday?";
    assert!(ids(&mut f.index, q, &opts(r#"{"mode":"and"}"#)).is_empty());
    assert_eq!(ids(&mut f.index, q, &SearchOptions::default())[0], "m03");
    // The other example needs more than words: "package manager" is not
    // written in the pnpm rule, "manager" is in the Zustand note. Recorded
    // here so that a change that fixes it shows.
    let q = "what package manager should I use?";
    assert_ne!(ids(&mut f.index, q, &SearchOptions::default())[0], "m01");
}

#[test]
fn auto_reports_its_choice_and_searches_with_it() {
    let mut f = agent_memory();
    let auto = opts(r#"{"strategy":"auto"}"#);
    let r = f
        .index
        .searcher()
        .search("can I deploy on friday?", &auto)
        .unwrap();
    assert_eq!(r.hits[0].id, "m03");
    assert_eq!(r.mode, Mode::Or);
    let json = r.to_json();
    assert!(
        json.ends_with(
            r#""mode":"or","total":4,"totalExact":true,"strategy":{"name":"auto","reason":"natural-language","mode":"or","proximity":true}}"#
        ),
        "{json}"
    );
    // An identifier: AND first (it matches), reported as chosen.
    let r = f.index.searcher().search("refreshSession", &auto).unwrap();
    assert_eq!(r.hits.len(), 1);
    assert_eq!(r.hits[0].id, "m10");
    assert_eq!(r.mode, Mode::And);
    let choice = r.strategy.unwrap();
    assert_eq!(
        (choice.reason.name(), choice.mode),
        ("identifier", Mode::Fallback)
    );
    // Short and precise, but nothing has both words: OR after AND.
    let r = f.index.searcher().search("zustand pnpm", &auto).unwrap();
    assert_eq!(r.mode, Mode::Or);
    let found: Vec<&str> = r.hits.iter().map(|h| h.id.as_str()).collect();
    assert!(
        found.contains(&"m01") && found.contains(&"m02"),
        "{found:?}"
    );
    assert_eq!(r.strategy.unwrap().reason.name(), "short");
    // A relation question searches for its object and asks for expansion.
    let r = f
        .index
        .searcher()
        .search("what is related to the Postgres connection pooling?", &auto)
        .unwrap();
    assert_eq!(r.hits[0].id, "m08");
    let choice = r.strategy.unwrap();
    assert_eq!(choice.expand_hops, Some(1));
    assert_eq!(
        choice.query.as_deref(),
        Some("the Postgres connection pooling")
    );
    // Without `strategy` nothing is reported and the JSON is unchanged.
    let r = f
        .index
        .searcher()
        .search("deploy", &SearchOptions::default())
        .unwrap();
    assert!(r.strategy.is_none());
    assert!(!r.to_json().contains("strategy"));
}

/// A deterministic corpus with an 8-dimension vector per document (its
/// words hashed into buckets), for `auto` with a vector.
fn hybrid_corpus() -> Index {
    let config = IndexConfig::from_json(
        &memdex::json::parse(
            r#"{"fields":{"title":{"type":"text"},"text":{"type":"text"},
                "emb":{"type":"vector","dimensions":8}}}"#,
        )
        .unwrap(),
    )
    .unwrap();
    let mut index = Index::new(config).unwrap();
    let words = [
        "deploy", "friday", "service", "database", "rollback", "release", "night", "team",
        "config", "cache", "session", "token", "review", "staging", "incident", "owner",
    ];
    let mut seed = 7u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    for d in 0..300 {
        let n = 4 + next() % 12;
        let text: Vec<&str> = (0..n).map(|_| words[next() % words.len()]).collect();
        let mut emb = [0.01f32; 8];
        for w in &text {
            emb[w.len() % 8] += 1.0;
        }
        let doc = serde_json::json!({"id": format!("d{d}"), "title": text[..2].join(" "),
                                     "text": text.join(" "), "emb": emb});
        index
            .add(&memdex::json::parse(&doc.to_string()).unwrap())
            .unwrap();
    }
    index.flush();
    index
}

#[test]
fn auto_with_a_vector_runs_exactly_what_it_reports() {
    let mut index = hybrid_corpus();
    let vector = "[1,0.5,0,0.2,0,0,0.3,0.1]";
    let questions = [
        "how do we deploy the service on friday night?",
        "\"deploy service\" friday",
        "rollbackRelease",
        "deploy friday",
        "what depends on the database cache?",
        "why did the staging incident need a rollback review?",
    ];
    let (mut reported_proximity, mut reported_fallback, mut differs) = (false, false, false);
    for q in questions {
        let auto = opts(&format!(
            r#"{{"strategy":"auto","vector":{vector},"limit":20}}"#
        ));
        let r = index.searcher().search(q, &auto).unwrap();
        let c = r.strategy.clone().unwrap();
        assert!(c.hybrid, "{q}");
        reported_proximity |= c.proximity;
        reported_fallback |= c.mode == Mode::Fallback;
        // The explicit options the report names.
        let mut explicit = serde_json::json!({
            "vector": serde_json::from_str::<serde_json::Value>(vector).unwrap(),
            "limit": 20,
            "mode": match c.mode { Mode::Or => "or", Mode::And => "and", Mode::Fallback => "fallback" },
        });
        if c.proximity {
            explicit["proximity"] = true.into();
        }
        if let Some(hops) = c.expand_hops {
            explicit["expand"] = serde_json::json!({"hops": hops, "direction": "both"});
        }
        let text = c.query.as_deref().unwrap_or(q);
        let e = index
            .searcher()
            .search(text, &opts(&explicit.to_string()))
            .unwrap();
        let got: Vec<(&str, f32)> = r.hits.iter().map(|h| (h.id.as_str(), h.score)).collect();
        let want: Vec<(&str, f32)> = e.hits.iter().map(|h| (h.id.as_str(), h.score)).collect();
        assert_eq!(got, want, "{q}: {c:?}");
        assert_eq!(r.mode, e.mode, "{q}");
        // Plain hybrid (OR, no proximity) differs for some question: the
        // comparison above can fail.
        let plain = opts(&format!(r#"{{"vector":{vector},"limit":20}}"#));
        let p = index.searcher().search(text, &plain).unwrap();
        differs |= p
            .hits
            .iter()
            .map(|h| (h.id.as_str(), h.score))
            .collect::<Vec<_>>()
            != got;
    }
    assert!(reported_proximity && reported_fallback && differs);
}
