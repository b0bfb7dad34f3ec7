//! The committed native fixture (tests/fixtures/analysis_fixture.json) must
//! match what this build produces; regenerate it with
//! `scripts/gen-analysis-fixture` after a deliberate change.
//! tests/wasm/tests/analysis.rs checks the same fixture under wasm (parity).

// The fixture covers every language.
#![cfg(feature = "all-languages")]

use memdex::analysis::{Analyzer, AnalyzerOptions};
use serde_json::Value;

#[test]
fn fixture_is_up_to_date() {
    let fixture: Value =
        serde_json::from_str(include_str!("fixtures/analysis_fixture.json")).unwrap();
    let cases = fixture["cases"].as_array().unwrap();
    assert!(cases.len() >= 30);
    for case in cases {
        let opts =
            AnalyzerOptions::from_json(&memdex::json::parse(&case["options"].to_string()).unwrap())
                .unwrap();
        let text = case["text"].as_str().unwrap();
        let got: Vec<Value> = Analyzer::new(&opts)
            .unwrap()
            .analyze(text)
            .into_iter()
            .map(|t| serde_json::json!([t.term, t.position, t.start, t.end]))
            .collect();
        assert_eq!(
            &Value::Array(got),
            &case["tokens"],
            "case {} is stale: run `scripts/gen-analysis-fixture`",
            case["name"]
        );
    }
}
