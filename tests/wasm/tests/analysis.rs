//! Native/wasm parity: analyzes the inputs of the natively generated
//! fixture (tests/fixtures/analysis_fixture.json) in wasm and requires the
//! identical tokens. Run with `wasm-pack test --node`.
#![cfg(all(target_arch = "wasm32", feature = "all-languages"))]

use memdex::analysis::{Analyzer, AnalyzerOptions};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen_test]
fn wasm_matches_native_fixture() {
    let fixture: Value =
        serde_json::from_str(include_str!("../../fixtures/analysis_fixture.json")).unwrap();
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
        assert_eq!(&Value::Array(got), &case["tokens"], "case {}", case["name"]);
    }
}
