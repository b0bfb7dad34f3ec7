//! Property tests for the analyzer: no panics on any input, offsets are in
//! bounds and on UTF-16 char boundaries, positions never decrease, and the
//! same text always analyzes the same way (index time == query time).

#![cfg(not(target_arch = "wasm32"))]

use memdex::analysis::{Analyzer, AnalyzerOptions, Language};
use proptest::prelude::*;

fn analyzers() -> Vec<Analyzer> {
    let mut languages = vec![Language::English, Language::None];
    if cfg!(feature = "all-languages") {
        languages.extend([
            Language::French,
            Language::Turkish,
            Language::Russian,
            Language::Arabic,
            Language::Greek,
        ]);
    }
    languages
        .into_iter()
        .map(|language| {
            Analyzer::new(&AnalyzerOptions {
                language,
                ..AnalyzerOptions::default()
            })
            .unwrap()
        })
        .collect()
}

/// Text biased towards the tricky cases: connectors, apostrophes, case
/// changes, CJK, combining marks, emoji/ZWJ, controls, surrogate-pair chars.
fn tricky() -> impl Strategy<Value = String> {
    let atoms = prop::sample::select(vec![
        "a",
        "Z",
        "é",
        "e\u{301}",
        "İ",
        "ı",
        "ß",
        "ﬁ",
        "Ａ",
        "1",
        "٣",
        "_",
        "-",
        ".",
        "/",
        "@",
        ":",
        "'",
        "’",
        ",",
        ";",
        " ",
        "\t",
        "\n",
        "\u{0}",
        "\u{7}",
        "\u{AD}",
        "\u{200D}",
        "東",
        "京",
        "ｶ",
        "ﾞ",
        "한",
        "カ",
        "ー",
        "🚀",
        "👍🏽",
        "𝔘",
        "𠀋",
        "ك",
        "َ",
        "த",
        "்",
        "ω",
        "Σ",
        "getUser",
        "HTTP",
        "v1.2",
        "x".repeat(70).leak(),
    ]);
    prop::collection::vec(atoms, 0..40).prop_map(|v| v.concat())
}

fn check(analyzers: &[Analyzer], text: &str) {
    let units: Vec<u16> = text.encode_utf16().collect();
    let is_low = |i: usize| (0xDC00..0xE000).contains(&units[i]);
    for a in analyzers {
        let tokens = a.analyze(text);
        let mut last = 0;
        for t in &tokens {
            let (s, e) = (t.start as usize, t.end as usize);
            assert!(s < e && e <= units.len(), "{t:?} in {text:?}");
            assert!(!is_low(s) && (e == units.len() || !is_low(e)), "{t:?}");
            assert!(t.position >= last, "positions decrease: {tokens:?}");
            assert!(!t.term.is_empty());
            last = t.position;
        }
        let again = a.analyze(text);
        assert_eq!(tokens, again);
        // Keeping stopwords only adds tokens; positions are unchanged.
        let kept = a.analyze_keep_stopwords(text);
        assert!(kept.len() >= tokens.len());
        assert!(tokens.iter().all(|t| kept.contains(t)));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn arbitrary_unicode(text in any::<String>()) {
        thread_local!(static A: Vec<Analyzer> = analyzers());
        A.with(|a| check(a, &text));
    }

    #[test]
    fn tricky_text(text in tricky()) {
        thread_local!(static A: Vec<Analyzer> = analyzers());
        A.with(|a| check(a, &text));
    }

    #[test]
    fn control_and_ascii(text in "[\\x00-\\x7f]{0,80}") {
        thread_local!(static A: Vec<Analyzer> = analyzers());
        A.with(|a| check(a, &text));
    }
}

#[test]
fn large_input_is_linear() {
    // 10 MB in shapes that could trigger quadratic behavior: one huge
    // compound, one huge word, a CJK run, emoji soup, a letter with millions
    // of combining marks, half-width kana with sound marks, apostrophes.
    let a = Analyzer::new(&AnalyzerOptions::default()).unwrap();
    let n = 10 << 20;
    // The rarer shapes at 2 MB keep the debug-build test quick.
    let m = 2 << 20;
    let inputs = [
        "a.".repeat(n / 2),
        "x".repeat(n),
        "東京".repeat(n / 6),
        "👍🏽\u{200D}".repeat(m / 11),
        "getUserById-".repeat(m / 12),
        format!("e{}", "\u{301}".repeat(m / 2)),
        "ｶﾞ\u{3099}한".repeat(m / 10),
        "x'".repeat(m / 2),
    ];
    for text in &inputs {
        let t0 = std::time::Instant::now();
        let tokens = a.analyze(text);
        let last_end = tokens.last().map_or(0, |t| t.end as usize);
        assert!(last_end <= text.encode_utf16().count());
        // Generous: debug builds are slow, but quadratic would take hours.
        assert!(t0.elapsed().as_secs() < 120, "{:?}", t0.elapsed());
    }
}
