use super::*;

fn terms(opts: &AnalyzerOptions, text: &str) -> Vec<(String, u32)> {
    Analyzer::new(opts)
        .unwrap()
        .analyze(text)
        .into_iter()
        .map(|t| (t.term, t.position))
        .collect()
}

#[test]
fn compound_identifier() {
    let t = terms(&AnalyzerOptions::default(), "getUserById");
    let want = [("getuserbyid", 0), ("get", 0), ("user", 1), ("id", 3)];
    let want: Vec<_> = want.iter().map(|(a, b)| (a.to_string(), *b)).collect();
    assert_eq!(t, want);
}

#[test]
fn every_language_constructs_or_is_rejected_cleanly() {
    let all = [
        "none",
        "arabic",
        "danish",
        "dutch",
        "english",
        "finnish",
        "french",
        "german",
        "greek",
        "hungarian",
        "italian",
        "norwegian",
        "portuguese",
        "romanian",
        "russian",
        "spanish",
        "swedish",
        "tamil",
        "turkish",
    ];
    for name in all {
        let language = Language::from_name(name).unwrap();
        let opts = AnalyzerOptions {
            language,
            ..AnalyzerOptions::default()
        };
        let result = Analyzer::new(&opts);
        let compiled_in = cfg!(feature = "all-languages")
            || matches!(language, Language::English | Language::None);
        match result {
            Ok(a) => {
                assert!(compiled_in, "{name}");
                assert!(!a.analyze("running text").is_empty());
            }
            Err(e) => {
                assert!(!compiled_in, "{name}");
                // The JS browser entry switches wasm on this field and prefix.
                match e {
                    crate::Error::Schema { field, reason } => {
                        assert_eq!(field, "language");
                        assert!(reason.starts_with("not in this build: "), "{reason}");
                    }
                    other => panic!("{name}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn analyzer_is_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Analyzer>();
}

#[test]
fn custom_stopwords_replace_add_remove() {
    let opts = AnalyzerOptions {
        stopwords: Some(vec!["Über".into(), "foo".into()]),
        add_stopwords: vec!["bar".into()],
        remove_stopwords: vec!["FOO".into()],
        ..AnalyzerOptions::default()
    };
    let a = Analyzer::new(&opts).unwrap();
    // Folded variants match too; the default list is replaced.
    assert!(a.is_stopword("uber") && a.is_stopword("ÜBER") && a.is_stopword("bar"));
    assert!(!a.is_stopword("foo") && !a.is_stopword("the"));
}

#[test]
fn stopword_only_query() {
    let a = Analyzer::new(&AnalyzerOptions::default()).unwrap();
    let mut out = Vec::new();
    let stats = a.analyze_with("The Who", false, &mut out);
    assert!(out.is_empty());
    assert_eq!(stats.stopwords, 2);
    assert_eq!(stats.positions, 2);
    let kept = a.analyze_keep_stopwords("The Who");
    assert_eq!(kept.len(), 2);
    assert!(a.is_stopword("THE"));
}
