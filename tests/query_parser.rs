//! The query language: constructs, precedence, lenient degradation, strict
//! errors, limits, and properties over arbitrary input.
//!
//! Expected trees are written in `Query`'s Display form: `+` must, `-` must
//! not, `?` should, bare for default (juxtaposed), `(...)` a Bool.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

use memdex::query::ast::{Clause, Occur, Query};
use memdex::query::parser::{parse_lenient, parse_strict, MAX_DEPTH, MAX_TERMS};
use memdex::Error;
use proptest::prelude::*;

const FIELDS: &[&str] = &["title", "text"];

fn lenient(q: &str) -> String {
    parse_lenient(q, FIELDS).to_string()
}

fn strict(q: &str) -> Result<String, (usize, String)> {
    match parse_strict(q, FIELDS) {
        Ok(query) => Ok(query.to_string()),
        Err(Error::InvalidQuery { position, reason }) => Err((position, reason)),
        Err(other) => panic!("unexpected error {other:?}"),
    }
}

fn term(text: &str) -> Query {
    Query::Term {
        field: None,
        text: text.into(),
        boost: 1.0,
        prefix: false,
        fuzzy: 0,
    }
}

fn clause(occur: Occur, query: Query) -> Clause {
    Clause { occur, query }
}

/// Valid syntax: strict and lenient agree on the tree.
#[test]
fn constructs() {
    let table = [
        ("deploy", "deploy"),
        ("  deploy  ", "deploy"),
        ("a b", "(a b)"),
        ("\"dry run\"", "\"dry run\""),
        ("\"dry run\"~2", "\"dry run\"~2"),
        ("\"dry run\"^1.5", "\"dry run\"^1.5"),
        ("\"dry run\"~3^2", "\"dry run\"~3^2"),
        ("depl*", "depl*"),
        ("deploi~", "deploi~1"),
        ("deploi~1", "deploi~1"),
        ("deploi~2", "deploi~2"),
        ("deploi~0", "deploi"),
        ("+deploy", "(+deploy)"),
        ("-draft", "(-draft)"),
        ("NOT draft", "(-draft)"),
        ("a AND b", "(+a +b)"),
        ("a && b", "(+a +b)"),
        ("a OR b", "(?a ?b)"),
        ("a || b", "(?a ?b)"),
        ("a OR b OR c", "(?a ?b ?c)"),
        ("a AND b AND c", "(+a +b +c)"),
        ("(a b)", "(a b)"),
        ("((a))", "a"),
        ("title:deploy", "title:deploy"),
        ("title:\"dry run\"", "title:\"dry run\""),
        ("title:\"dry run\"~1^3", "title:\"dry run\"~1^3"),
        ("title:(a b)", "(title:a title:b)"),
        ("title:(a text:b)", "(title:a text:b)"),
        ("title:(a \"b c\")^2", "(title:a title:\"b c\")^2"),
        ("+title:depl*^2", "(+title:depl*^2)"),
        ("deploy^2", "deploy^2"),
        ("deploy^0.5", "deploy^0.5"),
        ("deploi~1^2", "deploi~1^2"),
        ("(a b)^2", "(a b)^2"),
        ("(a)^2", "a^2"),
        ("((a)^2)^3", "a^6"),
        ("-(a b)", "(-(a b))"),
        ("-\"dry run\"", "(-\"dry run\")"),
        ("a -\"b c\" +(d OR e)", "(a -\"b c\" +(?d ?e))"),
        // Uppercase only: lowercase operators are words.
        ("a and b or not c", "(a and b or not c)"),
        ("And Or Not", "(And Or Not)"),
        // Plain text that looks like syntax.
        ("C++", "C++"),
        ("foo-bar", "foo-bar"),
        ("--release", "--release"),
        ("-5 degrees", "(-5 degrees)"),
        ("+1", "+1"),
        ("e^x", "e^x"),
        ("~/.bashrc", "~/.bashrc"),
        ("*", "*"),
        ("a*b", "a*b"),
        ("12:30", "12:30"),
        ("!important", "!important"),
        ("f(x)", "(f x)"),
        ("-AND", "(-AND)"),
        ("title:AND", "title:AND"),
        ("\"a AND b\"", "\"a AND b\""),
        ("\"title:x (y\"", "\"title:x (y\""),
        ("\"a b\"x", "(\"a b\" x)"),
        ("(a)b", "(a b)"),
        ("NOT NOT a", "a"),
        ("NOT -a", "a"),
        ("NOT +a", "(-a)"),
        ("", "()"),
        ("   ", "()"),
        ("\u{1F680} 東京", "(\u{1F680} 東京)"),
    ];
    for (input, expected) in table {
        assert_eq!(strict(input), Ok(expected.to_string()), "strict {input:?}");
        assert_eq!(lenient(input), expected, "lenient {input:?}");
    }
}

/// Tightest first: prefixes/NOT, AND, OR, juxtaposition.
#[test]
fn precedence() {
    let table = [
        ("a b AND c", "(a (+b +c))"),
        ("a AND b c", "((+a +b) c)"),
        ("a b OR c", "(a (?b ?c))"),
        ("a b OR c d", "(a (?b ?c) d)"),
        ("a OR b AND c", "(?a ?(+b +c))"),
        ("a AND b OR c", "(?(+a +b) ?c)"),
        ("a AND b OR c AND d", "(?(+a +b) ?(+c +d))"),
        ("a b AND c OR d", "(a (?(+b +c) ?d))"),
        ("NOT a AND b", "(-a +b)"),
        ("a AND NOT b", "(+a -b)"),
        ("a AND -b", "(+a -b)"),
        ("a AND +b", "(+a +b)"),
        ("a OR -b", "(?a -b)"),
        ("+a OR b", "(+a ?b)"),
        ("NOT a OR b", "(-a ?b)"),
        ("(a OR b) AND c", "(+(?a ?b) +c)"),
        ("a OR (b c)", "(?a ?(b c))"),
        ("-a b", "(-a b)"),
        ("+a -b c", "(+a -b c)"),
        ("a AND (b OR c) d", "((+a +(?b ?c)) d)"),
    ];
    for (input, expected) in table {
        assert_eq!(strict(input), Ok(expected.to_string()), "strict {input:?}");
        assert_eq!(lenient(input), expected, "lenient {input:?}");
    }
}

/// The tree itself, not just its printed form.
#[test]
fn structure() {
    assert_eq!(
        parse_strict("title:\"dry run\"~2^1.5", FIELDS).unwrap(),
        Query::Phrase {
            field: Some("title".into()),
            text: "dry run".into(),
            slop: 2,
            boost: 1.5,
        }
    );
    assert_eq!(
        parse_strict("text:depl*^2", FIELDS).unwrap(),
        Query::Term {
            field: Some("text".into()),
            text: "depl".into(),
            boost: 2.0,
            prefix: true,
            fuzzy: 0,
        }
    );
    assert_eq!(
        parse_strict("a -b OR c", FIELDS).unwrap(),
        Query::Bool {
            clauses: vec![
                clause(Occur::Default, term("a")),
                clause(
                    Occur::Default,
                    Query::Bool {
                        clauses: vec![
                            clause(Occur::MustNot, term("b")),
                            clause(Occur::Should, term("c")),
                        ],
                        boost: 1.0,
                    }
                ),
            ],
            boost: 1.0,
        }
    );
    assert_eq!(parse_strict("", FIELDS).unwrap(), Query::empty());
}

/// Malformed input degrades to plain terms.
#[test]
fn lenient_degradation() {
    let table = [
        ("\"unclosed quote", "(unclosed quote)"),
        ("a \"b c", "(a b c)"),
        ("\"a\" \"b", "(\"a\" b)"),
        ("http://x.org/a?b=c", "http://x.org/a?b=c"),
        ("foo:bar", "foo:bar"),
        ("foo:(a b)", "(foo: (a b))"),
        ("title:", "title:"),
        ("title: deploy", "(title: deploy)"),
        ("a AND", "a"),
        ("AND a", "a"),
        ("a AND AND b", "(+a +b)"),
        ("a AND OR b", "(?a ?b)"),
        ("a OR", "a"),
        ("OR", "()"),
        ("NOT", "()"),
        ("a NOT", "a"),
        ("(((", "()"),
        ("(((a b", "(a b)"),
        ("(a", "a"),
        ("a)", "a"),
        (")))a(((", "a"),
        ("()", "()"),
        ("a () b", "(a b)"),
        ("\"\"", "()"),
        ("\" \" a", "a"),
        ("-", "()"),
        ("+", "()"),
        ("a - b", "(a b)"),
        ("foo^0", "foo"),
        ("foo^", "foo"),
        ("foo^1.2.3", "foo"),
        ("foo~3", "foo~2"),
        ("foo~99999999999", "foo~2"),
        ("\"a b\"~", "\"a b\""),
        ("\"a b\"~500", "\"a b\"~100"),
        ("\"a b\"^0", "\"a b\""),
        ("\"a b\"~x", "(\"a b\" ~x)"),
        ("(a b)^0", "(a b)"),
        ("(a b)~2", "((a b) ~2)"),
        ("-\"unclosed", "(-unclosed)"),
        (":)", ":"),
    ];
    for (input, expected) in table {
        assert_eq!(lenient(input), expected, "lenient {input:?}");
        assert!(strict(input).is_err(), "strict should reject {input:?}");
    }
}

/// Exact char positions and reasons.
#[test]
fn strict_errors() {
    let table: &[(&str, usize, &str)] = &[
        ("deploy \"dry run", 7, "unclosed quote opened at 7"),
        ("🚀 é \"x", 4, "unclosed quote opened at 4"),
        (
            "a foo:bar",
            2,
            "unknown field `foo`; known fields: title, text",
        ),
        (
            "héllo wörld:x",
            6,
            "unknown field `wörld`; known fields: title, text",
        ),
        (
            "http://x",
            0,
            "unknown field `http`; known fields: title, text",
        ),
        ("a AND", 2, "expected a term after AND"),
        ("a &&", 2, "expected a term after AND"),
        ("a OR )", 2, "expected a term after OR"),
        ("a AND OR b", 2, "expected a term after AND"),
        ("AND a", 0, "expected a term before AND"),
        ("(OR a)", 1, "expected a term before OR"),
        ("a NOT", 2, "expected a term after NOT"),
        ("a - b", 2, "expected a term after `-`"),
        ("+", 0, "expected a term after `+`"),
        ("a)", 1, "unbalanced `)`"),
        ("(a))", 3, "unbalanced `)`"),
        ("x (a", 2, "unclosed `(` opened at 2"),
        ("()", 0, "empty group"),
        ("title:()", 6, "empty group"),
        ("a \"\"", 2, "empty phrase"),
        ("title:", 0, "expected a term after `title:`"),
        ("title: x", 0, "expected a term after `title:`"),
        ("foo~3", 3, "fuzzy distance must be 0..=2"),
        ("title:ab~7", 8, "fuzzy distance must be 0..=2"),
        ("foo^0", 3, "boost must be a positive number"),
        ("foo^", 3, "boost must be a positive number"),
        ("é^0.0", 1, "boost must be a positive number"),
        ("\"a b\"^0", 5, "boost must be a positive number"),
        ("\"a b\"~2^", 7, "boost must be a positive number"),
        ("(a b)^0", 5, "boost must be a positive number"),
        ("\"a b\"~500", 5, "phrase slop must be 0..=100"),
        ("\"a b\"~", 5, "expected a slop number after `~`"),
        ("\"a b\"~x", 5, "expected a slop number after `~`"),
        ("\"a b\"^x", 5, "boost must be a positive number"),
        ("(a b)~2", 5, "`~` applies to terms and phrases, not groups"),
    ];
    for &(input, position, reason) in table {
        assert_eq!(
            strict(input),
            Err((position, reason.to_string())),
            "strict {input:?}"
        );
    }
    // Empty field list.
    assert_eq!(
        parse_strict("foo:bar", &[]),
        Err(Error::InvalidQuery {
            position: 0,
            reason: "unknown field `foo`; known fields: (none)".into()
        })
    );
    let err = parse_strict("a AND", FIELDS).unwrap_err();
    assert_eq!(err.code(), "INVALID_QUERY");
}

#[test]
fn nesting_limit() {
    let nest = |n: usize| format!("{}a{}", "(".repeat(n), ")".repeat(n));
    assert_eq!(strict(&nest(MAX_DEPTH)), Ok("a".into()));
    assert_eq!(
        strict(&nest(MAX_DEPTH + 1)),
        Err((
            MAX_DEPTH,
            format!("groups nested deeper than {MAX_DEPTH} levels")
        ))
    );
    // Lenient flattens groups beyond the limit into their parent.
    assert_eq!(lenient(&nest(MAX_DEPTH + 10)), "a");
    let deep = format!("{}a b{} c", "(".repeat(40), ")".repeat(40));
    assert_eq!(lenient(&deep), "((a b) c)");
    // Unbalanced and huge: still fine.
    let q = parse_lenient(&"(".repeat(10_000), FIELDS);
    assert!(q.is_empty());
    let q = parse_lenient(&format!("{}x", "NOT ".repeat(10_000)), FIELDS);
    assert_eq!(q.to_string(), "x");
}

#[test]
fn term_limit() {
    let words = |n: usize| {
        (0..n)
            .map(|i| format!("w{i}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let ok = parse_strict(&words(MAX_TERMS), FIELDS).unwrap();
    assert_eq!(ok.positive_leaves().len(), MAX_TERMS);
    let over = words(MAX_TERMS + 1);
    let position = over.rfind(' ').unwrap() + 1;
    assert_eq!(
        strict(&over),
        Err((position, format!("too many terms (limit {MAX_TERMS})")))
    );
    // Lenient keeps the first MAX_TERMS leaves.
    let q = parse_lenient(&words(MAX_TERMS * 3), FIELDS);
    let leaves = q.positive_leaves();
    assert_eq!(leaves.len(), MAX_TERMS);
    assert_eq!(leaves[0], &term("w0"));
}

#[test]
fn helpers() {
    assert!(parse_lenient("", FIELDS).is_empty());
    assert!(parse_lenient("() \"\" - AND", FIELDS).is_empty());
    assert!(!parse_lenient("-a", FIELDS).is_empty());
    let q = parse_lenient("a -b (c NOT d) title:\"e f\" -(g h)", FIELDS);
    let leaves: Vec<String> = q.positive_leaves().iter().map(|l| l.to_string()).collect();
    assert_eq!(leaves, ["a", "c", "title:\"e f\""]);
    assert_eq!(parse_lenient("a^3", FIELDS).boost(), 3.0);
}

#[test]
fn agent_text_never_fails() {
    let inputs = [
        "fn main() { println!(\"hi\"); }",
        "SELECT * FROM t WHERE a = 'x' AND b > 2;",
        "https://example.com/path?q=a:b&c=(d)#frag",
        "user@example.com said: \"don't deploy (on fridays\"",
        "if (!ok && retries || x) { return -1; }",
        "ü ß ø 東京都 🚀🔥 👍🏽 a\u{0301}",
        "a AND (b OR (c AND NOT (d",
        "\"\"\"\"\"",
        "~~~ ^^^ *** ::: +++ ---",
        "title:title:title:",
    ];
    for input in inputs {
        let _ = parse_lenient(input, FIELDS);
        let _ = parse_strict(input, FIELDS);
    }
    let big = "deploy the \"service (now) AND then -rollback ".repeat(250);
    assert!(big.len() > 10_000);
    assert!(!parse_lenient(&big, FIELDS).is_empty());
}

/// Fragments that exercise every syntax path when glued together.
fn operator_soup() -> impl Strategy<Value = String> {
    let fragment = prop_oneof![
        Just("a"),
        Just("deploy"),
        Just("title:"),
        Just("text:x"),
        Just("foo:"),
        Just("\""),
        Just("("),
        Just(")"),
        Just("AND"),
        Just("OR"),
        Just("NOT"),
        Just("&&"),
        Just("||"),
        Just("+"),
        Just("-"),
        Just("*"),
        Just("~"),
        Just("~2"),
        Just("~9"),
        Just("^2"),
        Just("^0"),
        Just("^"),
        Just(":"),
        Just(" "),
        Just(" "),
        Just(" "),
        Just("\u{1F680}"),
        Just("é"),
        Just("東京"),
        Just("x*"),
        Just("y~1"),
        Just("\"p q\"~1"),
    ];
    proptest::collection::vec(fragment, 0..40).prop_map(|v| v.concat())
}

/// Syntactically valid queries, built from the grammar.
fn valid_query() -> impl Strategy<Value = String> {
    let word = "[a-z]{1,6}";
    let leaf = prop_oneof![
        word.prop_map(|w| w.to_string()),
        word.prop_map(|w| format!("{w}*")),
        (word, 0u8..=2).prop_map(|(w, d)| format!("{w}~{d}")),
        (word, 1u8..9).prop_map(|(w, b)| format!("{w}^{b}")),
        (word, word, 0u32..5).prop_map(|(a, b, s)| format!("\"{a} {b}\"~{s}")),
        (prop_oneof![Just("title"), Just("text")], word).prop_map(|(f, w)| format!("{f}:{w}")),
    ];
    leaf.prop_recursive(4, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 1..4)
                .prop_map(|v| format!("({})", v.join(" "))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} AND {b}")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("{a} OR {b}")),
            inner.clone().prop_map(|a| format!("NOT {a}")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("+{a}")),
            (inner.clone(), 1u8..5).prop_map(|(a, b)| format!("({a})^{b}")),
            inner.prop_map(|a| format!("title:({a})")),
        ]
    })
}

fn check_consistent(input: &str) -> Result<(), TestCaseError> {
    let lenient = parse_lenient(input, FIELDS);
    prop_assert!(lenient.positive_leaves().len() <= MAX_TERMS);
    if let Ok(strict) = parse_strict(input, FIELDS) {
        prop_assert_eq!(strict, lenient, "input {:?}", input);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_unicode_never_panics(input in "\\PC{0,80}") {
        check_consistent(&input)?;
    }

    #[test]
    fn arbitrary_strings_never_panic(input in any::<String>()) {
        check_consistent(&input)?;
    }

    #[test]
    fn operator_soup_never_panics(input in operator_soup()) {
        check_consistent(&input)?;
    }

    #[test]
    fn valid_syntax_parses_strictly(input in valid_query()) {
        let parsed = parse_strict(&input, FIELDS);
        prop_assert!(parsed.is_ok(), "{:?} -> {:?}", input, parsed);
        prop_assert_eq!(parsed.unwrap(), parse_lenient(&input, FIELDS));
    }
}
