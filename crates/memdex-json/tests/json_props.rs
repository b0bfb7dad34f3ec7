//! memdex's JSON module against serde_json (with `float_roundtrip`, so its
//! floats are correctly rounded too): on generated values, garbled texts
//! and number spellings both must accept and reject the same texts, read
//! equal values (compared through the compact text each writes: sorted keys,
//! integer/float kept apart, shortest floats) and report the same errors
//! at the same line and column.

use memdex_json::{self as json, Number, ToJson, Value};
use proptest::prelude::*;

/// Ours and serde_json's verdicts on `text`, as comparable strings.
fn both(text: &str) -> (Result<String, String>, Result<String, String>) {
    let ours = json::parse(text)
        .map(|v| v.to_json())
        .map_err(|e| e.to_string());
    let theirs = serde_json::from_str::<serde_json::Value>(text)
        .map(|v| serde_json::to_string(&v).unwrap())
        .map_err(|e| e.to_string());
    (ours, theirs)
}

fn same(text: &str) {
    let (ours, theirs) = both(text);
    assert_eq!(ours, theirs, "{text:?}");
    // The validator and the object reader decide as the parser does.
    assert_eq!(json::validate(text).is_ok(), ours.is_ok(), "{text:?}");
    let mut members = Vec::new();
    match json::object_members(text, &mut members) {
        Ok(is_object) => assert_eq!(is_object, text.trim_start().starts_with('{')),
        Err(e) => assert_eq!(Err(e.to_string()), ours, "{text:?}"),
    }
}

fn value() -> impl Strategy<Value = serde_json::Value> {
    let leaf = prop_oneof![
        Just(serde_json::Value::Null),
        any::<bool>().prop_map(serde_json::Value::Bool),
        any::<u64>().prop_map(|n| n.into()),
        any::<i64>().prop_map(|n| n.into()),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| f.into()),
        (-1000i32..1000, -30i32..30).prop_map(|(m, e)| (m as f64 * 10f64.powi(e)).into()),
        any::<String>().prop_map(serde_json::Value::String),
        "[a-c\"\\\\/\u{0}-\u{1f}é😀]{0,6}".prop_map(serde_json::Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(serde_json::Value::Array),
            prop::collection::vec(("[a-d]{0,2}|\\PC{0,3}", inner), 0..6)
                .prop_map(|m| serde_json::Value::Object(m.into_iter().collect())),
        ]
    })
}

/// A JSON text of `v`, compact or pretty.
fn text_of(v: &serde_json::Value, pretty: bool) -> String {
    if pretty {
        serde_json::to_string_pretty(v).unwrap()
    } else {
        serde_json::to_string(v).unwrap()
    }
}

/// Bytes that make or break JSON.
const GARBLE: &[char] = &[
    '{', '}', '[', ']', '"', ',', ':', '\\', 'u', 'd', '8', '0', '1', '9', 'e', 'E', '.', '-', '+',
    ' ', '\n', '\t', 'n', 't', 'f', 'a', 'l', 's', 'é', '\u{1}', '\u{7f}', '/', 'x',
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, char),
    Replace(usize, char),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = prop::sample::select(GARBLE);
    prop_oneof![
        (any::<usize>(), 1usize..4).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<usize>(), c.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), c).prop_map(|(i, c)| Edit::Replace(i, c)),
    ]
}

fn garble(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match *e {
            Edit::Delete(i, k) => {
                let i = i % n;
                let end = (i + k).min(chars.len());
                if i < end {
                    chars.drain(i..end);
                }
            }
            Edit::Insert(i, c) => chars.insert(i % (chars.len() + 1), c),
            Edit::Replace(i, c) => {
                if !chars.is_empty() {
                    chars[i % n] = c;
                }
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn generated_values_read_alike(v in value(), pretty in any::<bool>()) {
        let text = text_of(&v, pretty);
        let (ours, theirs) = both(&text);
        prop_assert!(ours.is_ok(), "{text}: {ours:?}");
        prop_assert_eq!(ours, theirs);
    }

    #[test]
    fn garbled_texts_decide_alike(
        v in value(),
        pretty in any::<bool>(),
        edits in prop::collection::vec(edit(), 1..4),
    ) {
        same(&garble(&text_of(&v, pretty), &edits));
    }

    #[test]
    fn json_ish_strings_decide_alike(text in "[\\[\\]{}\",:0-9eE.+\\- \ntrufalsn\\\\u\u{1}é]{0,24}") {
        same(&text);
    }

    #[test]
    fn numbers_read_alike(
        text in "-?(0|[1-9][0-9]{0,25})(\\.[0-9]{1,25})?([eE][+-]?[0-9]{1,4})?",
        garbage in "[0-9.eE+\\-x]{0,2}",
    ) {
        same(&text);
        same(&format!("[{text}{garbage}]"));
    }

    #[test]
    fn floats_round_trip(f in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let text = Value::from(f).to_json();
        prop_assert_eq!(json::parse(&text).unwrap().as_f64(), Some(f));
        prop_assert_eq!(&text, &serde_json::to_string(&f).unwrap());
    }
}

#[test]
fn integers_and_floats_stay_apart() {
    let n = |t: &str| match json::parse(t).unwrap() {
        Value::Number(n) => n,
        other => panic!("{other:?}"),
    };
    assert_eq!(n("1"), Number::PosInt(1));
    assert_eq!(n("18446744073709551615"), Number::PosInt(u64::MAX));
    assert_eq!(
        n("18446744073709551616"),
        Number::Float(18446744073709551616.0)
    );
    assert_eq!(n("-1"), Number::NegInt(-1));
    assert_eq!(n("-9223372036854775808"), Number::NegInt(i64::MIN));
    assert!(n("-9223372036854775809").is_f64());
    assert!(matches!(n("-0"), Number::Float(f) if f == 0.0 && f.is_sign_negative()));
    assert_eq!(n("1.0"), Number::Float(1.0));
    assert_eq!(n("1e2"), Number::Float(100.0));
    // Correctly rounded beyond the fast path (and halfway cases).
    assert_eq!(n("9007199254740993"), Number::PosInt(9007199254740993));
    assert_eq!(n("9007199254740993.0"), Number::Float(9007199254740992.0));
    assert_eq!(
        n("2.2250738585072011e-308"),
        Number::Float(2.225073858507201e-308)
    );
    assert_eq!(n("1e-400"), Number::Float(0.0));
    assert_eq!(n("0e99999999999"), Number::Float(0.0));
}

/// serde_json's limit: 127 nested containers read, the 128th is an error
/// at its bracket; far deeper input fails the same way (no stack overflow).
#[test]
fn depth_limit() {
    for depth in [126, 127, 128, 129, 100_000] {
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let text = format!("{}1{}", open.repeat(depth), close.repeat(depth));
            same(&text);
            assert_eq!(json::parse(&text).is_ok(), depth < 128, "{depth}");
        }
    }
    let err = json::parse(&"[".repeat(200)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "recursion limit exceeded at line 1 column 128"
    );
    assert_eq!(err.offset(), 128);
}

#[test]
fn error_positions() {
    let cases = [
        ("", "EOF while parsing a value at line 1 column 0"),
        ("  ", "EOF while parsing a value at line 1 column 2"),
        ("[1,]", "trailing comma at line 1 column 4"),
        ("{\"a\":1,}", "trailing comma at line 1 column 8"),
        ("{\n  \"a\": tru\n}", "expected ident at line 3 column 0"),
        ("[1 2]", "expected `,` or `]` at line 1 column 4"),
        ("{\"a\" 1}", "expected `:` at line 1 column 6"),
        ("{1:2}", "key must be a string at line 1 column 2"),
        ("01", "invalid number at line 1 column 2"),
        ("1.", "EOF while parsing a value at line 1 column 2"),
        ("1.e5", "invalid number at line 1 column 3"),
        ("-", "EOF while parsing a value at line 1 column 1"),
        ("1e400", "number out of range at line 1 column 5"),
        (
            "\"a\u{1}\"",
            "control character (\\u0000-\\u001F) found while parsing a string at line 1 column 3",
        ),
        (
            "\"\\ud800\"",
            "unexpected end of hex escape at line 1 column 8",
        ),
        (
            "\"\\udc00\"",
            "lone leading surrogate in hex escape at line 1 column 7",
        ),
        (
            "\"\\ud800\\u0041\"",
            "lone leading surrogate in hex escape at line 1 column 13",
        ),
        ("\"\\x\"", "invalid escape at line 1 column 3"),
        ("\"abc", "EOF while parsing a string at line 1 column 4"),
        ("[1] x", "trailing characters at line 1 column 5"),
        ("/* c */ 1", "expected value at line 1 column 1"),
        ("NaN", "expected value at line 1 column 1"),
    ];
    for (text, want) in cases {
        same(text);
        assert_eq!(json::parse(text).unwrap_err().to_string(), want, "{text:?}");
    }
    let err = json::parse("{\n  \"a\": tre\n}").unwrap_err();
    assert_eq!((err.line(), err.column(), err.offset()), (2, 10, 12));
}

/// Duplicate keys: the last value wins, as in serde_json's map.
#[test]
fn duplicate_keys_keep_the_last() {
    let v = json::parse(r#"{"b":1,"a":2,"b":3,"a":{"x":1,"x":[2]}}"#).unwrap();
    assert_eq!(v.to_json(), r#"{"a":{"x":[2]},"b":3}"#);
    let many: String = (0..40).map(|i| format!("\"k{}\":{i},", i % 7)).collect();
    same(&format!("{{{}\"z\":0}}", many));
}

/// Raw members keep each value's source text.
#[test]
fn object_members_keep_source_text() {
    let text = r#" { "a" : [1, 2.50] , "b\u0041":"x\"y", "c":{"z":1,"a":2} } "#;
    let mut members = Vec::new();
    assert!(json::object_members(text, &mut members).unwrap());
    let got: Vec<(&str, &str)> = members.iter().map(|(k, v)| (k.as_ref(), *v)).collect();
    assert_eq!(
        got,
        [
            ("a", "[1, 2.50]"),
            ("bA", r#""x\"y""#),
            ("c", r#"{"z":1,"a":2}"#)
        ]
    );
    members.clear();
    assert!(!json::object_members("[1]", &mut members).unwrap());
    assert!(json::object_members("{\"a\":1,}", &mut members).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The CLI's pretty printer lays out compact text as serde_json does.
    #[test]
    fn pretty_matches_serde_json(v in value()) {
        let ours = json::pretty(&serde_json::to_string(&v).unwrap());
        prop_assert_eq!(ours, serde_json::to_string_pretty(&v).unwrap());
    }
}
