//! The public search API, feature by feature: query language, modes,
//! filters, snippets, explanations, suggestions, deletes, errors.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

mod common;
use memdex::query::options::HighlightOptions;
use memdex::query::options::Syntax;
use memdex::{FieldDef, FieldMap, Index, IndexConfig, Mode, SearchOptions};
use proptest::prelude::*;
/// `serde_json::json!`, as memdex's own JSON value (through its text).
macro_rules! json {
    ($($t:tt)+) => {
        memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
    };
}

fn config() -> IndexConfig {
    let mut c = IndexConfig::default();
    c.fields
        .insert("pinned".into(), FieldDef::Boolean { stored: true });
    c.fields
        .insert("priority".into(), FieldDef::Number { stored: true });
    c
}

fn memories() -> Index {
    let mut index = Index::new(config()).unwrap();
    let docs = [
        (
            "d1",
            "a1",
            "rule",
            "Deploy rule",
            "Never deploy to production on Friday afternoons.",
            "2024-01-05",
            true,
            3,
        ),
        (
            "d2",
            "a1",
            "decision",
            "Database choice",
            "We chose PostgreSQL over MySQL for the billing service.",
            "2024-02-10",
            false,
            2,
        ),
        (
            "d3",
            "a2",
            "observation",
            "User preference",
            "The user prefers dark mode and compact tables.",
            "2024-03-01",
            false,
            1,
        ),
        (
            "d4",
            "a2",
            "note",
            "Build notes",
            "The wasm build uses wasm-opt with -Oz; deploy artifacts to the CDN.",
            "2024-04-12",
            true,
            5,
        ),
        (
            "d5",
            "a1",
            "note",
            "Friday retro",
            "Retro on Friday: deployment checklist needs an owner.",
            "2024-05-20",
            false,
            2,
        ),
        (
            "d6",
            "a3",
            "rule",
            "Code style",
            "Use snake_case for Python and camelCase for TypeScript.",
            "2024-06-30",
            false,
            4,
        ),
    ];
    for (id, ns, kind, title, text, ts, pinned, prio) in docs {
        index
            .add(
                &json!({"id": id, "namespace": ns, "kind": kind, "title": title, "text": text,
                         "timestamp": ts, "pinned": pinned, "priority": prio}),
            )
            .unwrap();
    }
    index
}

fn ids(index: &mut Index, q: &str, opts: SearchOptions) -> Vec<String> {
    common::hit_ids(index, q, &opts)
}

fn opts() -> SearchOptions {
    SearchOptions {
        limit: 20,
        ..Default::default()
    }
}

#[test]
fn or_and_and_fallback_modes() {
    let mut ix = memories();
    let or = ids(&mut ix, "deploy friday", opts());
    let mut top2 = or[..2].to_vec();
    top2.sort();
    assert_eq!(top2, ["d1", "d5"], "docs with both terms rank first");
    assert!(or.contains(&"d4".to_string()));
    let and = ids(
        &mut ix,
        "deploy friday",
        SearchOptions {
            mode: Mode::And,
            ..opts()
        },
    );
    assert_eq!(and, or[..2]);
    let r = ix
        .searcher()
        .search(
            "deploy postgresql",
            &SearchOptions {
                mode: Mode::Fallback,
                min_hits: 1,
                ..opts()
            },
        )
        .unwrap();
    assert_eq!(r.mode, Mode::Or, "AND found nothing, so OR ran");
    assert!(!r.hits.is_empty());
    let r = ix
        .searcher()
        .search(
            "deploy friday",
            &SearchOptions {
                mode: Mode::Fallback,
                ..opts()
            },
        )
        .unwrap();
    assert_eq!(r.mode, Mode::And);
}

#[test]
fn query_language() {
    let mut ix = memories();
    assert_eq!(ids(&mut ix, "\"dark mode\"", opts()), ["d3"]);
    assert!(ids(&mut ix, "\"mode dark\"", opts()).is_empty());
    assert_eq!(ids(&mut ix, "\"prefers compact\"~3", opts()), ["d3"]);
    assert_eq!(ids(&mut ix, "postgre*", opts()), ["d2"]);
    assert_eq!(ids(&mut ix, "postgrsql~2", opts()), ["d2"]);
    assert_eq!(ids(&mut ix, "deploy -friday", opts()), ["d4"]);
    let mut required = ids(&mut ix, "+friday deploy", opts());
    required.sort();
    assert_eq!(required, ["d1", "d5"]);
    assert_eq!(ids(&mut ix, "title:friday", opts()), ["d5"]);
    let mut grouped = ids(&mut ix, "deploy AND (cdn OR production)", opts());
    grouped.sort();
    assert_eq!(grouped, ["d1", "d4"]);
    let boosted = ids(&mut ix, "dark^5 deploy", opts());
    assert_eq!(boosted[0], "d3", "boost lifts the dark-mode memory");
    // Code identifiers and punctuation never break the lenient parser.
    for q in [
        "getUserById(",
        "C++ ((",
        "\"unclosed",
        "a AND",
        "-",
        "title:",
        "http://x.y/z?q=1",
    ] {
        ix.searcher().search(q, &opts()).unwrap();
    }
}

#[test]
fn strict_syntax_reports_position_and_reason() {
    let mut ix = memories();
    let err = ix
        .searcher()
        .search(
            "deploy \"friday",
            &SearchOptions {
                syntax: Syntax::Strict,
                ..opts()
            },
        )
        .unwrap_err();
    assert_eq!(err.code(), "INVALID_QUERY");
    match err {
        memdex::Error::InvalidQuery { position, reason } => {
            assert_eq!(position, 7);
            assert!(reason.contains("quote"), "{reason}");
        }
        other => panic!("unexpected {other:?}"),
    }
    let err = ix
        .searcher()
        .search(
            "nosuch:x",
            &SearchOptions {
                syntax: Syntax::Strict,
                ..opts()
            },
        )
        .unwrap_err();
    assert!(err.to_string().contains("nosuch"));
}

#[test]
fn filters_apply_before_top_k() {
    let mut ix = memories();
    let with = |filter| SearchOptions {
        filter: Some(filter),
        limit: 1,
        ..opts()
    };
    assert_eq!(
        ids(&mut ix, "deploy friday", with(json!({"namespace": "a2"}))),
        ["d4"]
    );
    assert_eq!(
        ids(
            &mut ix,
            "deploy friday",
            with(json!({"namespace": ["a2", "a3"]}))
        ),
        ["d4"]
    );
    assert_eq!(
        ids(&mut ix, "deploy friday", with(json!({"kind": "note"}))),
        ["d5"]
    );
    assert_eq!(
        ids(
            &mut ix,
            "deploy friday",
            with(json!({"pinned": true, "kind": ["note", "decision"]}))
        ),
        ["d4"]
    );
    assert_eq!(
        ids(
            &mut ix,
            "deploy friday",
            with(json!({"timestamp": {"gte": "2024-04-01", "lt": "2024-05-01"}}))
        ),
        ["d4"]
    );
    assert_eq!(
        ids(
            &mut ix,
            "deploy friday",
            with(json!({"priority": {"gt": 2}}))
        ),
        ["d1"]
    );
    let err = ix
        .searcher()
        .search("x", &with(json!({"nosuch": 1})))
        .unwrap_err();
    assert_eq!(err.code(), "SCHEMA");
    assert!(err.to_string().contains("nosuch"));
    assert_eq!(ix.searcher().count(&json!({"namespace": "a1"})).unwrap(), 3);
    assert_eq!(ix.searcher().count(&memdex::json::Value::Null).unwrap(), 6);
}

#[test]
fn hits_carry_fields_snippets_and_explanations() {
    let mut ix = memories();
    let o = SearchOptions {
        highlight: Some(HighlightOptions {
            pre_tag: "[".into(),
            post_tag: "]".into(),
            snippet_length: 60,
        }),
        explain: true,
        ..opts()
    };
    let r = ix.searcher().search("postgresql billing", &o).unwrap();
    let hit = &r.hits[0];
    assert_eq!(hit.id, "d2");
    assert_eq!(hit.namespace.as_deref(), Some("a1"));
    assert_eq!(hit.fields.get("kind").unwrap(), "decision");
    assert_eq!(hit.matched_terms, ["postgresql", "bill"]);
    let snippet = &hit.snippets["text"];
    assert!(
        snippet.contains("[PostgreSQL]") && snippet.contains("[billing]"),
        "{snippet}"
    );
    let explanation = hit.explanation.as_ref().unwrap();
    let total: f32 = explanation.iter().map(|e| e.score).sum();
    assert!(
        (total - hit.score).abs() < 1e-4,
        "explanation sums to the score"
    );
    assert!(explanation.iter().all(|e| e.idf > 0.0 && e.tf >= 1.0));
    // A term in both fields: parts still sum to the BM25F score.
    let r = ix
        .searcher()
        .search(
            "friday",
            &SearchOptions {
                explain: true,
                ..opts()
            },
        )
        .unwrap();
    let hit = r.hits.iter().find(|h| h.id == "d5").unwrap();
    let parts = hit.explanation.as_ref().unwrap();
    assert_eq!(parts.len(), 2, "title and text");
    let total: f32 = parts.iter().map(|e| e.score).sum();
    assert!((total - hit.score).abs() < 1e-4, "{total} vs {}", hit.score);
}

#[test]
fn snippets_escape_html() {
    let mut ix = Index::new(IndexConfig::default()).unwrap();
    ix.add(&json!({"id": "x", "text": "never run <script>alert(1)</script> in prod"}))
        .unwrap();
    let r = ix
        .searcher()
        .search(
            "script",
            &SearchOptions {
                highlight: Some(Default::default()),
                ..opts()
            },
        )
        .unwrap();
    let s = &r.hits[0].snippets["text"];
    assert!(s.contains("&lt;<mark>script</mark>&gt;"), "{s}");
}

#[test]
fn upsert_delete_and_delete_where() {
    let mut ix = memories();
    ix.add(&json!({"id": "d3", "namespace": "a2", "title": "User preference", "text": "The user now prefers light mode."})).unwrap();
    assert_eq!(ids(&mut ix, "dark", opts()), Vec::<String>::new());
    assert_eq!(ids(&mut ix, "light", opts()), ["d3"]);
    assert_eq!(ix.len(), 6);
    assert!(ix.delete("d1"));
    assert!(!ix.delete("d1"));
    assert_eq!(ix.delete_where(&json!({"namespace": "a1"})).unwrap(), 2);
    assert_eq!(ix.len(), 3);
    assert!(ix.snapshot().get("d2").is_none());
    assert_eq!(ix.snapshot().get("d4").unwrap()["title"], "Build notes");
}

#[test]
fn schema_errors_name_the_field() {
    let mut ix = memories();
    for (doc, field) in [
        (json!({"id": "z", "colour": "red"}), "colour"),
        (json!({"id": "z", "title": 5}), "title"),
        (json!({"id": "z", "timestamp": "last tuesday"}), "timestamp"),
        (json!({"id": "z", "pinned": "yes"}), "pinned"),
        (json!({"title": "no id"}), "id"),
    ] {
        let err = ix.add(&doc).unwrap_err();
        assert_eq!(err.code(), "SCHEMA");
        assert!(err.to_string().contains(field), "{err}");
    }
    assert_eq!(ix.len(), 6, "rejected documents change nothing");
    let err = ix
        .searcher()
        .search(
            "x",
            &SearchOptions {
                limit: 1_000_000,
                ..opts()
            },
        )
        .unwrap_err();
    assert_eq!(err.code(), "LIMIT");
}

#[test]
fn suggest_completes_from_the_dictionary() {
    let mut ix = memories();
    let s = ix.searcher().suggest("dep", 5);
    assert_eq!(s[0].suggestion, "deploy");
    assert_eq!(s[0].score, 2); // d1 and d4 ("deployment" in d5 is its own word)
    assert!(s.iter().any(|s| s.suggestion == "deployment"), "{s:?}");
    assert!(ix.searcher().suggest("zzz", 5).is_empty());
    // The prefix is normalized as indexed text is: case, full-width forms.
    assert_eq!(ix.searcher().suggest("  DEP", 5), s);
    assert_eq!(ix.searcher().suggest("\u{FF24}\u{FF25}\u{FF30}", 5), s);
}

#[test]
fn field_weights_can_be_overridden_per_query() {
    let mut ix = memories();
    let mut only_title = FieldMap::new();
    only_title.insert("title".to_string(), 1.0);
    let r = ids(
        &mut ix,
        "friday",
        SearchOptions {
            fields: Some(only_title),
            ..opts()
        },
    );
    assert_eq!(r, ["d5"]);
}

proptest! {
    #[test]
    fn lenient_search_never_fails(q in any::<String>()) {
        let mut ix = memories();
        prop_assert!(ix.searcher().search(&q, &SearchOptions::default()).is_ok());
    }
}

#[test]
fn code_identifiers_match_whole_and_by_parts() {
    let mut ix = Index::new(IndexConfig::default()).unwrap();
    ix.add(&json!({"id": "a", "text": "auth lives in src/lib/auth.ts and calls getUserById"}))
        .unwrap();
    ix.add(&json!({"id": "b", "text": "get the user by their id from the cache"}))
        .unwrap();
    ix.add(&json!({"id": "c", "text": "東京都の天気"})).unwrap();
    let mut q = |q: &str, o: SearchOptions| -> Vec<String> {
        let mut v = ix
            .searcher()
            .search(q, &o)
            .unwrap()
            .hits
            .into_iter()
            .map(|h| h.id)
            .collect::<Vec<_>>();
        v.sort();
        v
    };
    let and_opts = || SearchOptions {
        mode: Mode::And,
        ..opts()
    };
    assert_eq!(q("auth.ts", and_opts()), ["a"]);
    assert_eq!(
        q("getUserById", and_opts()),
        ["a", "b"],
        "parts match prose"
    );
    assert_eq!(q("get user", and_opts()), ["a", "b"]);
    assert_eq!(q("東京", and_opts()), ["c"]);
    assert_eq!(q("東京都", and_opts()), ["c"]);
    // The exact identifier ranks first.
    let ranked = ix.searcher().search("getUserById", &opts()).unwrap().hits;
    assert_eq!(ranked[0].id, "a");
}

#[test]
fn hyphenated_words_are_searched_as_their_words() {
    let mut ix = Index::new(IndexConfig::default()).unwrap();
    ix.add(&json!({"id": "a", "text": "a three-dimensional flow"}))
        .unwrap();
    ix.add(&json!({"id": "b", "text": "a three dimensional flow"}))
        .unwrap();
    ix.add(&json!({"id": "c", "text": "a dimensional flow"}))
        .unwrap();
    let hits = ix
        .searcher()
        .search("three-dimensional", &opts())
        .unwrap()
        .hits;
    // The compound spelled with a hyphen or a space scores the same: its
    // whole token adds nothing to its words.
    assert_eq!(hits.len(), 3);
    assert_eq!(hits[0].score, hits[1].score);
    assert!(hits[1].score > hits[2].score);
    let with_space = ix.searcher().search("three dimensional", &opts()).unwrap();
    assert_eq!(with_space.hits[0].score, hits[0].score);
    // AND still needs every word.
    let and = SearchOptions {
        mode: Mode::And,
        ..opts()
    };
    let mut ids = |q: &str| -> Vec<String> {
        let mut v: Vec<String> = (ix.searcher().search(q, &and).unwrap().hits)
            .into_iter()
            .map(|h| h.id)
            .collect();
        v.sort();
        v
    };
    assert_eq!(ids("three-dimensional"), ["a", "b"]);
}

#[test]
fn get_json_is_get_without_a_parse() {
    let mut index = Index::new(config()).unwrap();
    let docs = [
        json!({"id": "a", "title": "Plain \"quoted\" é", "pinned": true}),
        json!({"id": "b", "namespace": "ns1", "text": "with a namespace", "priority": 2.5}),
        json!({"id": "c\n\"odd\"", "namespace": "x"}),
    ];
    for (i, doc) in docs.iter().enumerate() {
        index.add(doc).unwrap();
        if i == 0 {
            index.flush(); // one from a segment, the rest from the write buffer
        }
    }
    for id in ["a", "b", "c\n\"odd\""] {
        let parsed = memdex::json::parse(&index.snapshot().get_json(id).unwrap()).unwrap();
        assert_eq!(parsed, index.snapshot().get(id).unwrap(), "{id}");
    }
    assert_eq!(index.snapshot().get_json("missing"), None);
    // Hits carry the same fields, minus the namespace.
    let hit = &index
        .searcher()
        .search("namespace", &SearchOptions::default())
        .unwrap()
        .hits[0];
    assert_eq!(hit.namespace.as_deref(), Some("ns1"));
    assert_eq!(
        hit.fields.as_json(),
        r#"{"priority":2.5,"text":"with a namespace"}"#
    );
}

const VOCAB: [&str; 12] = [
    "alpha", "beta", "gamma", "delta", "search", "engine", "memory", "agent", "index", "query",
    "token", "stem",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// The scoring loops record which terms matched each hit (MaxScore, pure
    /// conjunctions); the hit builder's cursor lookup (used for
    /// explanations) must agree.
    #[test]
    fn recorded_matched_terms_equal_looked_up_ones(
        docs in proptest::collection::vec((proptest::collection::vec(0..12usize, 0..4), proptest::collection::vec(0..12usize, 0..8)), 1..60),
        query in proptest::collection::vec(0..14usize, 1..5),
        title_only in any::<bool>(),
        and_mode in any::<bool>(),
        flush_every in 1..30usize,
    ) {
        let mut index = Index::new(config()).unwrap();
        for (i, (title, text)) in docs.iter().enumerate() {
            let words = |ws: &Vec<usize>| ws.iter().map(|&w| VOCAB[w]).collect::<Vec<_>>().join(" ");
            index.add(&json!({"id": format!("d{i}"), "title": words(title), "text": words(text)})).unwrap();
            if i % flush_every == 0 {
                index.flush();
            }
        }
        // Indexes 12 and 13 are words no document has.
        let q = query.iter().map(|&w| VOCAB.get(w).copied().unwrap_or("absent")).collect::<Vec<_>>().join(" ");
        let mode = if and_mode { Mode::And } else { Mode::Or };
        let mut opts = SearchOptions { limit: 5, mode, ..Default::default() };
        if title_only {
            opts.fields = Some([("title".to_string(), 1.0)].into());
        }
        let fast = index.searcher().search(&q, &opts).unwrap();
        opts.explain = true;
        let slow = index.searcher().search(&q, &opts).unwrap();
        let view = |r: &memdex::SearchResults| r.hits.iter().map(|h| (h.id.clone(), h.matched_terms.clone())).collect::<Vec<_>>();
        prop_assert_eq!(view(&fast), view(&slow));
    }
}

#[test]
fn stored_fields_option_selects_what_hits_carry() {
    let mut index = Index::new(config()).unwrap();
    let doc = json!({"id": "m1", "namespace": "ns1", "title": "Deploy notes", "text": "deploy on fridays", "kind": "rule", "priority": 3});
    index.add(&doc).unwrap();
    let search = |index: &mut Index, opts: memdex::json::Value| {
        let opts = SearchOptions::from_json(&opts).unwrap();
        index
            .searcher()
            .search("deploy", &opts)
            .map(|r| r.hits.into_iter().next().unwrap())
    };
    let all = search(&mut index, json!({})).unwrap();
    assert_eq!(all.fields.to_map().len(), 4, "{:?}", all.fields);
    let none = search(&mut index, json!({"storedFields": false})).unwrap();
    assert_eq!(none.fields.as_json(), "{}");
    assert_eq!(none.namespace.as_deref(), Some("ns1"));
    assert_eq!(
        (none.id.as_str(), none.score, &none.matched_terms),
        (all.id.as_str(), all.score, &all.matched_terms)
    );
    let some = search(&mut index, json!({"storedFields": ["title", "priority"]})).unwrap();
    assert_eq!(
        some.fields.as_json(),
        r#"{"priority":3,"title":"Deploy notes"}"#
    );
    let snippets = search(&mut index, json!({"storedFields": false, "highlight": {}})).unwrap();
    assert_eq!(snippets.fields.as_json(), "{}");
    assert!(
        snippets.snippets["title"].contains("<mark>Deploy</mark>"),
        "{:?}",
        snippets.snippets
    );
    let err = search(&mut index, json!({"storedFields": ["titel"]})).unwrap_err();
    assert_eq!(err.code(), "SCHEMA");
    assert!(err.to_string().contains("titel"), "{err}");
    assert!(SearchOptions::from_json(&json!({"storedFields": "title"})).is_err());
    assert!(SearchOptions::from_json(&json!({"storedFields": [1]})).is_err());
}

#[test]
fn json_lines_batch_stops_at_the_first_rejected_line_and_keeps_the_ones_before() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let lines = [
        r#"{"id":"a","text":"alpha"}"#,
        "",
        r#"{"id":"b","text":"beta"}"#,
        r#"{"id":"c","text":7}"#,
        r#"{"id":"d","text":"delta"}"#,
    ]
    .join("\n");
    let err = index.add_json_lines(&lines).unwrap_err();
    // Line numbers count blank lines; `added` counts documents.
    assert_eq!((err.line, err.added, err.error.code()), (4, 2, "SCHEMA"));
    assert!(err.to_string().contains("line 4"), "{err}");
    assert!(index.snapshot().get_json("b").is_some());
    assert!(index.snapshot().get_json("c").is_none() && index.snapshot().get_json("d").is_none());

    // A JSON syntax error is SCHEMA too, and names the line.
    let err = index
        .add_json_lines("{\"id\":\"e\",\"text\":\"epsilon\"}\n{\"id\": nope}")
        .unwrap_err();
    assert_eq!((err.line, err.added, err.error.code()), (2, 1, "SCHEMA"));
    assert_eq!(index.add_json_lines("\n\n").unwrap(), 0);
    assert_eq!(index.stats().documents, 3);
}
