//! Snippets and highlighting. Tokens are built here by a tiny word splitter
//! (UTF-16 offsets, lowercase terms) so these tests do not depend on the
//! analyzer's evolving rules.
// Native only: the browser stage (wasm-pack test) runs the wasm-specific
// suites; these run natively in `cargo test`.
#![cfg(not(target_arch = "wasm32"))]

use memdex::analysis::Token;
use memdex::query::options::HighlightOptions;
use memdex::query::snippet::{highlight_all, leading_snippet, snippet};
use proptest::prelude::*;

/// Splits on non-alphanumeric chars; offsets in UTF-16 code units.
fn words(text: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut u16_pos = 0u32;
    let mut current: Option<(u32, String)> = None;
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() {
            current.get_or_insert((u16_pos, String::new())).1.push(c);
        } else if let Some((start, word)) = current.take() {
            out.push(Token {
                term: word.to_lowercase(),
                position: out.len() as u32,
                start,
                end: u16_pos,
            });
        }
        u16_pos += c.len_utf16() as u32;
    }
    out
}

fn tok(term: &str, position: u32, start: u32, end: u32) -> Token {
    Token {
        term: term.into(),
        position,
        start,
        end,
    }
}

fn opts(len: usize) -> HighlightOptions {
    HighlightOptions {
        snippet_length: len,
        ..HighlightOptions::default()
    }
}

fn terms<'a>(list: &'a [&'a str]) -> impl Fn(&Token) -> bool + 'a {
    move |t: &Token| list.contains(&t.term.as_str())
}

fn snip(text: &str, list: &[&str], len: usize) -> Option<String> {
    snippet(text, &words(text), terms(list), &opts(len))
}

#[test]
fn short_text_is_whole_and_highlighted() {
    assert_eq!(
        snip("Never deploy on Fridays", &["deploy"], 160).as_deref(),
        Some("Never <mark>deploy</mark> on Fridays")
    );
}

#[test]
fn no_match_gives_none() {
    assert_eq!(snip("Never deploy on Fridays", &["rollback"], 160), None);
    assert_eq!(snip("", &["x"], 160), None);
}

#[test]
fn window_with_most_distinct_terms_wins() {
    let text = format!(
        "alpha appears first. {} then alpha and beta together here. {}",
        "filler ".repeat(30),
        "filler ".repeat(30)
    );
    let s = snip(&text, &["alpha", "beta"], 60).unwrap();
    assert!(
        s.contains("<mark>alpha</mark> and <mark>beta</mark>"),
        "{s}"
    );
    assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
}

#[test]
fn tie_goes_to_earliest_window() {
    let text = format!("one target here {} two target there", "pad ".repeat(40));
    let s = snip(&text, &["target"], 30).unwrap();
    assert!(s.starts_with("one <mark>target</mark>"), "{s}");
    assert!(s.ends_with('…'), "{s}");
}

#[test]
fn cuts_fall_on_word_boundaries() {
    let text = format!(
        "{} needle {}",
        "lorem ipsum ".repeat(20),
        "dolor sit ".repeat(20)
    );
    let s = snip(&text, &["needle"], 40).unwrap();
    let inner = s.trim_start_matches('…').trim_end_matches('…');
    let plain = inner.replace("<mark>", "").replace("</mark>", "");
    assert!(text.contains(&plain), "{s}");
    for w in plain.split(' ').filter(|w| !w.is_empty()) {
        assert!(
            ["lorem", "ipsum", "needle", "dolor", "sit"].contains(&w),
            "cut word {w:?} in {s}"
        );
    }
    assert!(plain.chars().count() <= 40 + 2, "{s}");
}

#[test]
fn escapes_html_but_not_tags() {
    let text = r#"<script>alert("x")</script> & 'deploy' now"#;
    assert_eq!(
        snip(text, &["deploy"], 160).as_deref(),
        Some("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;<mark>deploy</mark>&#39; now")
    );
}

#[test]
fn multibyte_and_emoji_offsets_are_utf16() {
    // 🚀 is two UTF-16 units and four bytes; é is one unit and two bytes.
    let text = "Café 🚀🚀 déploiement naïve 😀 done";
    let toks = words(text);
    assert_eq!(toks[1].start, 10); // "déploiement" after "Café 🚀🚀 "
    let s = snippet(text, &toks, terms(&["déploiement", "done"]), &opts(160)).unwrap();
    assert_eq!(
        s,
        "Café 🚀🚀 <mark>déploiement</mark> naïve 😀 <mark>done</mark>"
    );
}

#[test]
fn cjk_bigrams_merge_into_one_mark() {
    // 東京都に住む: bigrams 東京 [0,2), 京都 [1,3), 都に [2,4) ...
    let text = "東京都に住む";
    let toks = vec![
        tok("東京", 0, 0, 2),
        tok("京都", 1, 1, 3),
        tok("都に", 2, 2, 4),
        tok("に住", 3, 3, 5),
        tok("住む", 4, 4, 6),
    ];
    let s = snippet(text, &toks, terms(&["東京", "京都"]), &opts(160)).unwrap();
    assert_eq!(s, "<mark>東京都</mark>に住む");
    let s = snippet(text, &toks, terms(&["住む"]), &opts(160)).unwrap();
    assert_eq!(s, "東京都に<mark>住む</mark>");
}

#[test]
fn compound_and_parts_do_not_nest_tags() {
    let text = "call getUserName here";
    let toks = vec![
        tok("call", 0, 0, 4),
        tok("getusername", 1, 5, 16),
        tok("get", 1, 5, 8),
        tok("user", 2, 8, 12),
        tok("name", 3, 12, 16),
        tok("here", 4, 17, 21),
    ];
    let both = snippet(text, &toks, terms(&["getusername", "user"]), &opts(160)).unwrap();
    assert_eq!(both, "call <mark>getUserName</mark> here");
    let part = snippet(text, &toks, terms(&["user"]), &opts(160)).unwrap();
    assert_eq!(part, "call get<mark>User</mark>Name here");
    let adjacent = snippet(text, &toks, terms(&["get", "user"]), &opts(160)).unwrap();
    assert_eq!(adjacent, "call <mark>getUser</mark>Name here");
}

#[test]
fn tags_are_configurable() {
    let o = HighlightOptions {
        pre_tag: "[[".into(),
        post_tag: "]]".into(),
        snippet_length: 160,
    };
    let text = "a <b> deploy";
    assert_eq!(
        snippet(text, &words(text), terms(&["deploy"]), &o).as_deref(),
        Some("a &lt;b&gt; [[deploy]]")
    );
}

#[test]
fn leading_snippet_cuts_at_word_and_marks_it() {
    let o = opts(20);
    assert_eq!(leading_snippet("short <text>", &o), "short &lt;text&gt;");
    assert_eq!(
        leading_snippet("the quick brown fox jumps over the lazy dog", &o),
        "the quick brown fox…"
    );
    assert_eq!(leading_snippet("", &o), "");
    assert_eq!(leading_snippet("  \n padded", &o), "padded");
}

#[test]
fn highlight_all_covers_whole_text() {
    let text = "deploy & deploy again, \"deploy\"";
    assert_eq!(
        highlight_all(text, &words(text), terms(&["deploy"]), &opts(5)),
        "<mark>deploy</mark> &amp; <mark>deploy</mark> again, &quot;<mark>deploy</mark>&quot;"
    );
}

#[test]
fn zero_length_keeps_the_match() {
    let text = "aaa bbb target ccc ddd";
    assert_eq!(
        snip(text, &["target"], 0).as_deref(),
        Some("…<mark>target</mark>…")
    );
}

#[test]
fn bad_offsets_never_panic() {
    let text = "🚀x";
    let toks = vec![
        tok("a", 0, 1, 2),  // inside the surrogate pair
        tok("b", 1, 5, 90), // past the end
        tok("c", 2, 3, 1),  // reversed
        tok("d", 3, 0, u32::MAX),
    ];
    let s = snippet(text, &toks, |_| true, &opts(10)).unwrap();
    assert_eq!(s, "<mark>🚀x</mark>");
    let _ = highlight_all(text, &toks, |_| true, &opts(10));
}

fn unmark(s: &str) -> String {
    s.replace("<mark>", "")
        .replace("</mark>", "")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn snippet_is_an_escaped_excerpt(
        text in "\\PC{0,200}",
        picks in proptest::collection::vec(any::<bool>(), 0..50),
        len in 0usize..120,
    ) {
        let toks = words(&text);
        let chosen = |t: &Token| picks.get(t.position as usize).copied().unwrap_or(false);
        let o = opts(len);
        if let Some(s) = snippet(&text, &toks, chosen, &o) {
            let core = unmark(s.trim_start_matches('…').trim_end_matches('…'));
            prop_assert!(text.contains(&core), "{:?} not in {:?}", core, text);
            prop_assert!(!s.contains("<mark><mark>") && !s.contains("</mark><mark>"));
        }
        let all = highlight_all(&text, &toks, chosen, &o);
        prop_assert_eq!(unmark(&all), text.clone());
        let lead = unmark(leading_snippet(&text, &o).trim_end_matches('…'));
        prop_assert!(text.trim_start().starts_with(&lead), "{:?} vs {:?}", lead, text);
    }

    #[test]
    fn arbitrary_tokens_never_panic(
        text in "\\PC{0,60}",
        raw in proptest::collection::vec((0u32..80, 0u32..80, "[a-c]"), 0..20),
        len in 0usize..50,
    ) {
        let toks: Vec<Token> = raw
            .iter()
            .enumerate()
            .map(|(i, (s, e, t))| tok(t, i as u32, *s, *e))
            .collect();
        let _ = snippet(&text, &toks, |_| true, &opts(len));
        let _ = highlight_all(&text, &toks, |t| t.term != "a", &opts(len));
    }
}
