//! Writes tests/fixtures/analysis_fixture.json: analyzer inputs and the
//! tokens this (native) build produces for them. The wasm test
//! (tests/wasm/tests/analysis.rs) re-analyzes the inputs and must agree, and
//! tests/analysis_fixture.rs fails when the file is stale.
//!
//! `scripts/gen-analysis-fixture` rewrites the file (stamped with its
//! generator); `scripts/gen-analysis-fixture --rust` prints the tokens as
//! Rust literals (for writing golden tests).

use memdex::analysis::{Analyzer, AnalyzerOptions};
use serde_json::{json, Value};

const CASES: &[(&str, &str, &str)] = &[
    (
        "english",
        r#"{}"#,
        "The quick brown foxes jumped over the lazy dogs' backs.",
    ),
    (
        "code",
        r#"{}"#,
        "getUserById HTTPServer snake_case_name kebab-case foo.bar.baz src/lib/auth.ts",
    ),
    (
        "versions",
        r#"{}"#,
        "v1.2.3 release 2.0 pi 3.14 and 1,000,000 at 10:30",
    ),
    (
        "paths",
        r#"{}"#,
        r"C:\Users\dev\app.rs std::collections::HashMap App\Models\User",
    ),
    (
        "email-url",
        r#"{}"#,
        "mail user@example.com or see https://host/path?q=1#frag",
    ),
    ("emoji", r#"{}"#, "deploy 🚀 now 👍🏽 ok ❤️ 👨‍👩‍👧 done"),
    ("cjk", r#"{}"#, "東京都に住んでいます"),
    ("cjk-query", r#"{}"#, "東京"),
    ("cjk-tokyo", r#"{}"#, "東京都"),
    ("cjk-single", r#"{}"#, "日 本"),
    ("korean", r#"{}"#, "서울특별시 2020년"),
    ("katakana", r#"{}"#, "ＨＴＴＰサーバー ｶﾀｶﾅ"),
    ("nfkc", r#"{}"#, "ﬁnancial ＦＵＬＬ width ①"),
    ("fold", r#"{}"#, "Café naïve résumé Ångström"),
    (
        "nofold",
        r#"{"foldDiacritics": false}"#,
        "Café naïve résumé",
    ),
    ("control", r#"{}"#, "a\u{0}b\tc\u{7}d\u{1b}[0m e\r\nf"),
    (
        "long",
        r#"{}"#,
        "short aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa end",
    ),
    (
        "none",
        r#"{"language": "none"}"#,
        "The running dogs getUserById",
    ),
    (
        "custom-stop",
        r#"{"stopwords": ["foo"], "addStopwords": ["bar"]}"#,
        "the foo bar baz",
    ),
    ("remove-stop", r#"{"removeStopwords": ["the"]}"#, "the who"),
    (
        "arabic",
        r#"{"language": "arabic"}"#,
        "المكتبات العامة في القاهرة كَتَبَ",
    ),
    (
        "danish",
        r#"{"language": "danish"}"#,
        "Jeg har købt bøgerne i København",
    ),
    (
        "dutch",
        r#"{"language": "dutch"}"#,
        "De kinderen speelden in de tuinen",
    ),
    (
        "finnish",
        r#"{"language": "finnish"}"#,
        "Helsingissä on monta kirjastoa",
    ),
    (
        "french",
        r#"{"language": "french"}"#,
        "L'avion d’Air France est arrivé à l'aéroport qu'il connaît.",
    ),
    (
        "german",
        r#"{"language": "german"}"#,
        "Die Donaudampfschifffahrtsgesellschaft und die Häuser der Straße",
    ),
    (
        "greek",
        r#"{"language": "greek"}"#,
        "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας",
    ),
    (
        "hungarian",
        r#"{"language": "hungarian"}"#,
        "A könyveket az asztalon hagytam",
    ),
    (
        "italian",
        r#"{"language": "italian"}"#,
        "L'amico dell'albero mangiava le mele",
    ),
    (
        "norwegian",
        r#"{"language": "norwegian"}"#,
        "Vi bodde i husene ved fjorden",
    ),
    (
        "portuguese",
        r#"{"language": "portuguese"}"#,
        "As crianças estavam brincando nas ruas",
    ),
    (
        "romanian",
        r#"{"language": "romanian"}"#,
        "Copiii se jucau în parcurile orașului",
    ),
    (
        "russian",
        r#"{"language": "russian"}"#,
        "Москва — столица России, ёлки и книги",
    ),
    (
        "spanish",
        r#"{"language": "spanish"}"#,
        "Los niños estaban jugando en las calles",
    ),
    (
        "swedish",
        r#"{"language": "swedish"}"#,
        "Barnen lekte i trädgårdarna",
    ),
    (
        "tamil",
        r#"{"language": "tamil"}"#,
        "தமிழ்நாட்டின் தலைநகரம் சென்னை",
    ),
    (
        "turkish",
        r#"{"language": "turkish"}"#,
        "İstanbul'da yaşıyorum, Ankara'dan geldim. ISPARTA",
    ),
];

fn analyze(options: &str, text: &str) -> Vec<(String, u32, u32, u32)> {
    let opts =
        AnalyzerOptions::from_json(&memdex::json::parse(options).expect("case options parse"))
            .expect("case options");
    let analyzer = Analyzer::new(&opts).expect("case options are valid");
    analyzer
        .analyze(text)
        .into_iter()
        .map(|t| (t.term, t.position, t.start, t.end))
        .collect()
}

fn main() {
    let rust = std::env::args().any(|a| a == "--rust");
    if rust {
        for (name, options, text) in CASES {
            println!("// {name} {options} {text:?}");
            for (term, pos, s, e) in analyze(options, text) {
                print!("({term:?}, {pos}, {s}, {e}), ");
            }
            println!();
        }
        return;
    }
    // One case per line group and one token per line keeps diffs readable.
    let mut body = String::from(
        "{\"generator\": \"scripts/gen-analysis-fixture (scripts/gen/analysis_fixture.rs)\",\n\"cases\": [\n",
    );
    for (i, (name, options, text)) in CASES.iter().enumerate() {
        let options: Value = serde_json::from_str(options).expect("options parse");
        let head = json!({"name": name, "options": options, "text": text}).to_string();
        body.push_str(&head[..head.len() - 1]);
        body.push_str(", \"tokens\": [");
        for (k, (term, pos, s, e)) in analyze(&options.to_string(), text).into_iter().enumerate() {
            body.push_str(if k == 0 { "\n  " } else { ",\n  " });
            body.push_str(&json!([term, pos, s, e]).to_string());
        }
        body.push_str("]}");
        body.push_str(if i + 1 < CASES.len() { ",\n" } else { "\n" });
    }
    body.push_str("]}\n");
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/analysis_fixture.json"
    );
    std::fs::write(path, body).expect("write fixture");
    println!("wrote {path} ({} cases)", CASES.len());
}
