use super::*;
use crate::json::tests::from_serde;
use crate::schema::{FieldDef, IndexConfig};

/// Nesting past the parser's depth is `LIMIT` (it was `SCHEMA` on the
/// document, while JS reported the same input as a `RangeError`).
#[test]
fn nesting_past_the_parser_depth_is_a_limit() {
    let mut config = IndexConfig::default();
    config.fields.insert("meta".into(), FieldDef::Stored);
    let mut index = crate::Index::new(config).unwrap();
    // The document is the first level: 126 arrays inside it make 127.
    let doc = |arrays: usize| {
        format!(
            r#"{{"id":"d{arrays}","meta":{}1{}}}"#,
            "[".repeat(arrays),
            "]".repeat(arrays)
        )
    };
    assert_eq!(index.add_json_lines(&doc(MAX_NESTING - 1)).unwrap(), 1);
    let limit = Error::Limit {
        what: "document nesting depth (arrays and objects)",
        limit: 127,
        got: 128,
    };
    let err = index.add_json_lines(&doc(MAX_NESTING)).unwrap_err();
    assert_eq!((err.added, err.error), (0, limit.clone()));
    assert_eq!(index.add_json(&doc(5000)).map_err(syntax_error), Err(limit));
    // Other syntax errors stay SCHEMA on the document.
    let err = index
        .add_json_lines(r#"{"id":"x","meta":[1,]}"#)
        .unwrap_err();
    assert_eq!(err.error.code(), "SCHEMA");
}

fn summary(r: std::result::Result<Result<PreparedDoc>, String>) -> String {
    match r {
        Ok(Ok(d)) => format!(
            "{:?} {:?} {} {:?} {:?} {:?}",
            d.id,
            d.namespace,
            String::from_utf8_lossy(&d.stored_json),
            d.text,
            d.lens,
            d.filters
        ),
        Ok(Err(e)) => format!("{} {}", e.code(), e),
        Err(e) => format!("syntax {e}"),
    }
}

/// The borrowed parse gives exactly the `Value` path's result: stored
/// bytes, tokens, filters, errors.
#[test]
fn prepare_json_matches_value_path() {
    let mut config = IndexConfig::default();
    config
        .fields
        .insert("n".into(), crate::schema::FieldDef::Number { stored: true });
    config.fields.insert(
        "b".into(),
        crate::schema::FieldDef::Boolean { stored: false },
    );
    config
        .fields
        .insert("s".into(), crate::schema::FieldDef::Stored);
    let schema = ResolvedSchema::new(&config).unwrap();
    let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
    let deep_ok = format!("{}1{}", "[".repeat(70), "]".repeat(70));
    let lines = [
        r#"{"id":"a","title":"Hello World","text":"Running fast","namespace":"ns1","kind":"npm","timestamp":"2023-03-01T00:00:00Z"}"#.to_string(),
        r#" { "text" : "spaced  out" , "id" : "b" } "#.to_string(),
        r#"{"id":"c","text":"tab\there \"quoted\" \u00e9t\u00E9 \/ slash","title":"caf\u00e9"}"#.to_string(),
        r#"{"id":"d","s":{"z":1,"a":[1.50,-0,1e3,true,null,"x\u0041"]},"n":1.0,"b":true}"#.to_string(),
        r#"{"id":"e","n":12345678901234567890123,"s":[1E400]}"#.to_string(),
        r#"{"id":"f","text":"dup","text":"second"}"#.to_string(),
        r#"{"\u0069d":"g","t\u0069tle":"escaped keys"}"#.to_string(),
        r#"{"id":"h","namespace":null,"kind":["a","b"],"timestamp":1700000000000}"#.to_string(),
        r#"{"id":"i","namespace":5}"#.to_string(),
        r#"{"id":"","text":"x"}"#.to_string(),
        r#"{"text":"no id"}"#.to_string(),
        r#"{"id":"j","unknown":1,"text":"x"}"#.to_string(),
        r#"{"id":"k","text":5}"#.to_string(),
        r#"{"id":"l","kind":[1]}"#.to_string(),
        r#"{"id":"m","timestamp":"yesterday"}"#.to_string(),
        r#"{"id":"n","n":"1"}"#.to_string(),
        r#"{"id":"o","b":"true"}"#.to_string(),
        r#"{"id":"p","text":"unterminated}"#.to_string(),
        r#"{"id":"q"} trailing"#.to_string(),
        r#"["id","r"]"#.to_string(),
        r#"{"id":"s","text":"lone \ud800 surrogate"}"#.to_string(),
        "{\"id\":\"t\",\"text\":\"raw\ttab\"}".to_string(),
        format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES + 1)),
        format!(r#"{{"id":"u","s":{deep}}}"#),
        format!(r#"{{"id":"v","s":{deep_ok}}}"#),
        r#"{"id":"w","namespace":"a\"b","kind":"k\u00e9"}"#.to_string(),
        r#"{"id":"x","text":null,"title":"ok"}"#.to_string(),
        r#"{"id":"y","namespace":"ns","s":"stored only","title":"日本語のテキスト","text":"Ünïcödé"}"#.to_string(),
    ];
    for line in &lines {
        let mut pairs = RawPairs::default();
        let fast = schema
            .prepare_json(line, &mut pairs)
            .map_err(|e| e.to_string());
        // serde_json as the oracle of syntax errors and values.
        let slow = serde_json::from_str::<serde_json::Value>(line)
            .map(|v| schema.prepare(&from_serde(v)))
            .map_err(|e| e.to_string());
        assert_eq!(summary(fast), summary(slow), "{line}");
    }
}

/// Document errors say what was wrong, where, and in which document:
/// the messages every surface shows (tests/js/contract.test.mjs).
#[test]
fn document_errors_name_the_field_the_document_and_what_it_got() {
    let schema = ResolvedSchema::new(&IndexConfig::default()).unwrap();
    let error = |line: &str| {
        let mut pairs = RawPairs::default();
        let fast = schema
            .prepare_json(line, &mut pairs)
            .unwrap()
            .err()
            .unwrap();
        let parsed = crate::json::parse(line).unwrap();
        assert_eq!(schema.prepare(&parsed).err().unwrap(), fast, "{line}");
        fast.to_string()
    };
    for (line, message) in [
        (r#"[1]"#, r#"schema error on field `document`: must be a JSON object like {"id": "m1", "text": "..."}, got an array"#),
        (r#"5"#, "got 5"),
        (r#"{"title":"t","text":"x"}"#, "schema error on field `id`: is missing in the document {text, title}: every document needs a non-empty string `id`"),
        (r#"{"id":5}"#, "schema error on field `id`: must be a non-empty string, got 5"),
        (r#"{"id":""}"#, "must be a non-empty string, got the empty string"),
        (r#"{"id":"d1","namespace":[]}"#, "schema error on field `namespace`: must be a string, got an array (document `d1`)"),
        (r#"{"id":"d2","text":5}"#, "schema error on field `text`: text fields take a string (document `d2`)"),
        (r#"{"id":"d3","kind":[1]}"#, "field `kind`: keyword arrays hold strings only (document `d3`)"),
        (r#"{"id":"d4","nope":1}"#, "field `nope`: is not declared in the schema"),
    ] {
        let got = error(line);
        assert!(got.contains(message), "{line}: {got}");
    }
    let long = format!(r#"{{"id":"{}","text":5}}"#, "x".repeat(100));
    assert!(error(&long).ends_with(&format!("(document `{}…`)", "x".repeat(60))));
}
