//! The query cost budget (issue 16, point 6): repeated clauses are planned
//! once, and prefix/fuzzy expansions share one budget per query. Counted,
//! never timed: what a query may spend is asserted, not how long it took.
//! Scoring steps are tested with small limits next to the budget
//! (`src/query/budget.rs`).
#![cfg(not(target_arch = "wasm32"))]

use memdex::analysis::{AnalyzerOptions, Language};
use memdex::query::budget::{Budget, Limited, MAX_EXPANSIONS};
use memdex::query::merge::merge_repeats;
use memdex::query::options::Syntax;
use memdex::query::parser::parse_lenient;
use memdex::query::plan::{Plan, PlanOptions, Planner, EXPANSION_BOOST, MAX_TERM_EXPANSIONS};
use memdex::{Error, Index, IndexConfig, SearchOptions};

/// Default fields, no stemming or stopwords: index terms are the words.
fn index_of(words: &[String]) -> Index {
    let config = IndexConfig {
        analyzer: AnalyzerOptions {
            language: Language::None,
            default_stopwords: false,
            ..AnalyzerOptions::default()
        },
        ..IndexConfig::default()
    };
    let mut index = Index::new(config).unwrap();
    for (i, chunk) in words.chunks(20).enumerate() {
        let doc = format!(r#"{{"id":"d{i}","text":"{}"}}"#, chunk.join(" "));
        index.add_json(&doc).unwrap().unwrap();
    }
    index.flush();
    index
}

fn letter(i: usize) -> char {
    (b'a' + (i % 26) as u8) as char
}

/// `per_prefix` distinct words under each of `prefixes` two-letter prefixes.
fn prefixed_words(prefixes: usize, per_prefix: usize) -> Vec<String> {
    let mut words = Vec::new();
    for p in 0..prefixes {
        for w in 0..per_prefix {
            words.push(format!(
                "{}{}{}{}{}",
                letter(p / 26 + 1),
                letter(p),
                letter(w / 676),
                letter(w / 26),
                letter(w)
            ));
        }
    }
    words
}

fn plan(index: &Index, query: &str, strict: bool) -> (Result<Plan, Error>, Budget) {
    let searcher = index.snapshot();
    let mut budget = Budget::new(searcher.query_limits(), strict);
    let planner = Planner::new(
        &searcher,
        PlanOptions {
            and_mode: false,
            fields: None,
            prefix: false,
            fuzzy: 0,
        },
    );
    let mut query = parse_lenient(query, &["title", "text"]);
    merge_repeats(&mut query);
    let plan = planner.plan(&query, &mut budget);
    (plan, budget)
}

fn expansions(plan: &Plan) -> usize {
    plan.terms.iter().filter(|t| t.boost < 1.0).count()
}

fn search(index: &mut Index, query: &str, syntax: Syntax) -> memdex::Result<memdex::SearchResults> {
    index.searcher().search(
        query,
        &SearchOptions {
            syntax,
            limit: 20,
            ..SearchOptions::default()
        },
    )
}

#[test]
fn a_repeated_clause_is_expanded_and_scored_once() {
    let mut index = index_of(&prefixed_words(3, 40));
    let once = plan(&index, "ab~2", false).0.unwrap();
    assert!(!once.terms.is_empty());
    let repeated = plan(&index, &vec!["ab~2"; 1024].join(" "), false)
        .0
        .unwrap();
    // The same terms, each with the repeats' summed boost.
    assert_eq!(repeated.terms.len(), once.terms.len());
    for (r, o) in repeated.terms.iter().zip(&once.terms) {
        assert_eq!((&r.term, r.boost), (&o.term, o.boost * 1024.0));
    }
    let word = prefixed_words(1, 1).pop().unwrap();
    let or = plan(&index, &vec![word.as_str(); 1024].join(" OR "), false)
        .0
        .unwrap();
    assert_eq!(or.terms.len(), 1);
    assert_eq!(or.terms[0].boost, 1024.0);

    // Scores are linear in the boost: repeats score as the summed boost.
    for (repeats, boosted) in [
        (format!("{word} {word}"), format!("{word}^2")),
        (
            "baaab~1 baaab~1 baaab~1".to_string(),
            "baaab~1^3".to_string(),
        ),
        ("ba* bb* ba*".to_string(), "ba*^2 bb*".to_string()),
    ] {
        let a = search(&mut index, &repeats, Syntax::Lenient).unwrap();
        let b = search(&mut index, &boosted, Syntax::Lenient).unwrap();
        assert!(!a.hits.is_empty());
        let key = |r: &memdex::SearchResults| -> Vec<(String, f32)> {
            r.hits.iter().map(|h| (h.id.clone(), h.score)).collect()
        };
        assert_eq!(key(&a), key(&b), "{repeats}");
    }
}

#[test]
fn up_to_sixteen_expanding_terms_keep_their_full_expansions() {
    let index = index_of(&prefixed_words(16, 80));
    let query: Vec<String> = (0..16)
        .map(|p| format!("{}{}*", letter(p / 26 + 1), letter(p)))
        .collect();
    let (plan, budget) = plan(&index, &query.join(" "), true);
    assert_eq!(expansions(&plan.unwrap()), 16 * MAX_TERM_EXPANSIONS);
    assert!(budget.limited().is_empty());
}

#[test]
fn the_expansions_of_a_query_share_one_budget() {
    // 48 prefixes with 80 words each: 48 * 64 expansions without a budget.
    let mut index = index_of(&prefixed_words(48, 80));
    let query: Vec<String> = (0..48)
        .map(|p| format!("{}{}*", letter(p / 26 + 1), letter(p)))
        .collect();
    let query = query.join(" ");
    let (lenient, budget) = plan(&index, &query, false);
    let lenient = lenient.unwrap();
    assert_eq!(budget.limited(), [Limited::Expansions]);
    // Equal shares: 1024 / 48 = 21 per prefix.
    assert_eq!(expansions(&lenient), 48 * (MAX_EXPANSIONS / 48));
    assert!(budget.spent().expansions <= MAX_EXPANSIONS);
    assert!(lenient
        .terms
        .iter()
        .all(|t| t.boost == 1.0 || t.boost == EXPANSION_BOOST));

    let results = search(&mut index, &query, Syntax::Lenient).unwrap();
    assert_eq!(results.limited, [Limited::Expansions]);
    assert_eq!(results.hits.len(), 20);
    match search(&mut index, &query, Syntax::Strict) {
        Err(Error::Limit { limit, got, .. }) => assert_eq!((limit, got), (MAX_EXPANSIONS, 48 * 64)),
        other => panic!("expected LIMIT, got {other:?}"),
    }
}

#[test]
fn fuzzy_walks_share_the_dictionary_budget() {
    // 3,000 terms; a short `xy~2` reaches most of them. 200 distinct ones
    // would walk the dictionary 200 times without a budget.
    let mut index = index_of(&prefixed_words(30, 100));
    let terms = index.stats().terms as u64;
    let limits = index.searcher().query_limits();
    let query: Vec<String> = (0..200)
        .map(|i| format!("{}{}~2", letter(i / 26), letter(i)))
        .collect();
    let query = query.join(" ");
    let (plan_result, budget) = plan(&index, &query, false);
    plan_result.unwrap();
    assert!(budget.spent().dictionary_steps <= limits.dictionary_steps);
    assert!(budget.spent().dictionary_steps < 200 * terms / 10);
    assert_eq!(budget.limited(), [Limited::Expansions]);

    let results = search(&mut index, &query, Syntax::Lenient).unwrap();
    assert!(results.limited.contains(&Limited::Expansions));
    assert!(matches!(
        search(&mut index, &query, Syntax::Strict),
        Err(Error::Limit { .. })
    ));
    // One such term alone walks the whole dictionary, as before budgets.
    let single = search(&mut index, "ab~2", Syntax::Strict).unwrap();
    assert!(single.limited.is_empty());
}
