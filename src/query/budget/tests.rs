use super::*;
use crate::query::options::{Mode, SearchOptions, Syntax};
use crate::{Index, IndexConfig};

/// 300 documents, each with the words `w0`..`w69` (in order) and 20
/// of `w70`..`w119`.
fn index() -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for d in 0..300 {
        let words: Vec<String> = (0..70)
            .map(|i| format!("w{i}"))
            .chain((0..20).map(|i| format!("w{}", 70 + (d * 7 + i * 3) % 50)))
            .collect();
        let doc = format!(r#"{{"id":"d{d}","text":"{}"}}"#, words.join(" "));
        index.add_json(&doc).unwrap().unwrap();
    }
    index.flush();
    index
}

fn opts(mode: Mode, syntax: Syntax) -> SearchOptions {
    SearchOptions {
        mode,
        syntax,
        ..SearchOptions::default()
    }
}

#[test]
fn scoring_stops_at_its_steps_in_every_scoring_loop() {
    let index = index();
    let many: Vec<String> = (0..120).map(|i| format!("w{i}")).collect();
    // (query, mode, a step limit it exceeds). MaxScore and conjunctions
    // count only past 64 terms (below, they cannot reach a limit).
    let cases = [
        // MaxScore over a flat disjunction.
        (many.join(" "), Mode::Or, 1000),
        // The conjunction of terms: every document has `w0`..`w69`.
        (many[..70].join(" "), Mode::And, 1000),
        // The scorer tree: a phrase, a group, an exclusion.
        (
            format!("\"w0 w1\" ({}) -w119", many[70..100].join(" ")),
            Mode::Or,
            600,
        ),
    ];
    for (query, mode, steps) in &cases {
        let small = Limits {
            scoring_steps: *steps,
            ..index.snapshot().query_limits()
        };
        let full = index
            .snapshot()
            .search_with_limits(
                query,
                &opts(*mode, Syntax::Strict),
                index.snapshot().query_limits(),
            )
            .unwrap();
        assert!(full.limited.is_empty(), "{query}");
        assert_eq!(full.hits.len(), 10, "{query}");

        let cut = index
            .snapshot()
            .search_with_limits(query, &opts(*mode, Syntax::Lenient), small)
            .unwrap();
        assert_eq!(cut.limited, [Limited::Scoring], "{query}");
        assert!(!cut.hits.is_empty(), "{query}");

        match index
            .snapshot()
            .search_with_limits(query, &opts(*mode, Syntax::Strict), small)
        {
            Err(Error::Limit { what, limit, .. }) => {
                assert_eq!((what, limit as u64), ("query scoring steps", *steps))
            }
            other => panic!("{query}: expected LIMIT, got {other:?}"),
        }
    }
}

#[test]
fn steps_never_go_past_the_limit() {
    let steps = Steps::new(10);
    assert!(steps.take(4) && steps.take(6));
    assert!(!steps.take(1));
    assert!(steps.ran_out());
    // Once out, always out (scorers must not resume).
    assert!(!steps.take(0));
}

#[test]
fn limits_grow_with_the_index() {
    let small = Limits::for_index(1_000, 5_000);
    assert_eq!(small.scoring_steps, MIN_SCORING_STEPS);
    assert_eq!(small.dictionary_steps, MIN_DICTIONARY_STEPS);
    let big = Limits::for_index(1_000_000, 2_000_000);
    assert_eq!(big.scoring_steps, 1_000_000 * SCORING_STEPS_PER_DOC);
    assert_eq!(big.dictionary_steps, 2_000_000 * DICTIONARY_STEPS_PER_TERM);
    assert_eq!(big.expansions, MAX_EXPANSIONS);
}
