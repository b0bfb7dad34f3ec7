//! Golden tests: the exact tokens (term, position, UTF-16 start, end) of
//! the analyzer for many languages and kinds of text. Each list was computed,
//! checked by eye, and frozen; a change here is a change of the index format
//! (re-index needed) and must be deliberate.

use memdex::analysis::{Analyzer, AnalyzerOptions};

fn check(options: &str, text: &str, want: &[(&str, u32, u32, u32)]) {
    let opts = AnalyzerOptions::from_json(&memdex::json::parse(options).unwrap()).unwrap();
    let got: Vec<(String, u32, u32, u32)> = Analyzer::new(&opts)
        .unwrap()
        .analyze(text)
        .into_iter()
        .map(|t| (t.term, t.position, t.start, t.end))
        .collect();
    let want: Vec<(String, u32, u32, u32)> = want
        .iter()
        .map(|&(t, p, s, e)| (t.to_string(), p, s, e))
        .collect();
    assert_eq!(got, want, "options {options} text {text:?}");
}

#[test]
fn english() {
    check(
        r#"{}"#,
        "The quick brown foxes jumped over the lazy dogs' backs.",
        &[
            ("quick", 1, 4, 9),
            ("brown", 2, 10, 15),
            ("fox", 3, 16, 21),
            ("jump", 4, 22, 28),
            ("lazi", 7, 38, 42),
            ("dog", 8, 43, 47),
            ("back", 9, 49, 54),
        ],
    );
}

#[test]
fn code() {
    check(
        r#"{}"#,
        "getUserById HTTPServer snake_case_name kebab-case foo.bar.baz src/lib/auth.ts",
        &[
            ("getuserbyid", 0, 0, 11),
            ("get", 0, 0, 3),
            ("user", 1, 3, 7),
            ("id", 3, 9, 11),
            ("httpserver", 4, 12, 22),
            ("http", 4, 12, 16),
            ("server", 5, 16, 22),
            ("snake_case_name", 6, 23, 38),
            ("snake", 6, 23, 28),
            ("case", 7, 29, 33),
            ("name", 8, 34, 38),
            ("kebab-case", 9, 39, 49),
            ("kebab", 9, 39, 44),
            ("case", 10, 45, 49),
            ("foo.bar.baz", 11, 50, 61),
            ("foo", 11, 50, 53),
            ("bar", 12, 54, 57),
            ("baz", 13, 58, 61),
            ("src/lib/auth.ts", 14, 62, 77),
            ("src", 14, 62, 65),
            ("lib", 15, 66, 69),
            ("auth", 16, 70, 74),
            ("ts", 17, 75, 77),
        ],
    );
}

#[test]
fn versions() {
    check(
        r#"{}"#,
        "v1.2.3 release 2.0 pi 3.14 and 1,000,000 at 10:30",
        &[
            ("v1.2.3", 0, 0, 6),
            ("1.2.3", 0, 1, 6),
            ("v1", 0, 0, 2),
            ("2", 1, 3, 4),
            ("3", 2, 5, 6),
            ("releas", 3, 7, 14),
            ("2.0", 4, 15, 18),
            ("2", 4, 15, 16),
            ("0", 5, 17, 18),
            ("pi", 6, 19, 21),
            ("3.14", 7, 22, 26),
            ("3", 7, 22, 23),
            ("14", 8, 24, 26),
            ("1,000,000", 10, 31, 40),
            ("1", 10, 31, 32),
            ("000", 11, 33, 36),
            ("000", 12, 37, 40),
            ("10:30", 14, 44, 49),
            ("10", 14, 44, 46),
            ("30", 15, 47, 49),
        ],
    );
}

#[test]
fn email_url() {
    check(
        r#"{}"#,
        "mail user@example.com or see https://host/path?q=1#frag",
        &[
            ("mail", 0, 0, 4),
            ("user@example.com", 1, 5, 21),
            ("user", 1, 5, 9),
            ("exampl", 2, 10, 17),
            ("com", 3, 18, 21),
            ("see", 5, 25, 28),
            ("https://host/path", 6, 29, 46),
            ("https", 6, 29, 34),
            ("host", 7, 37, 41),
            ("path", 8, 42, 46),
            ("q", 9, 47, 48),
            ("1", 10, 49, 50),
            ("frag", 11, 51, 55),
        ],
    );
}

#[test]
fn emoji() {
    check(
        r#"{}"#,
        "deploy 🚀 now 👍🏽 ok ❤\u{fe0f} 👨\u{200d}👩\u{200d}👧 done",
        &[
            ("deploy", 0, 0, 6),
            ("now", 1, 10, 13),
            ("ok", 2, 19, 21),
            ("done", 3, 34, 38),
        ],
    );
}

#[test]
fn cjk() {
    check(
        r#"{}"#,
        "東京都に住んでいます",
        &[
            ("東京", 0, 0, 2),
            ("京都", 1, 1, 3),
            ("都に", 2, 2, 4),
            ("に住", 3, 3, 5),
            ("住ん", 4, 4, 6),
            ("んで", 5, 5, 7),
            ("でい", 6, 6, 8),
            ("いま", 7, 7, 9),
            ("ます", 8, 8, 10),
        ],
    );
}

#[test]
fn cjk_query() {
    check(r#"{}"#, "東京", &[("東京", 0, 0, 2)]);
}

#[test]
fn cjk_single() {
    check(r#"{}"#, "日 本", &[("日", 0, 0, 1), ("本", 1, 2, 3)]);
}

#[test]
fn korean() {
    check(
        r#"{}"#,
        "서울특별시 2020년",
        &[
            ("서울", 0, 0, 2),
            ("울특", 1, 1, 3),
            ("특별", 2, 2, 4),
            ("별시", 3, 3, 5),
            ("2020", 4, 6, 10),
            ("년", 5, 10, 11),
        ],
    );
}

#[test]
fn katakana() {
    check(
        r#"{}"#,
        "ＨＴＴＰサーバー ｶﾀｶﾅ",
        &[
            ("http", 0, 0, 4),
            ("サー", 1, 4, 6),
            ("ーバ", 2, 5, 7),
            ("バー", 3, 6, 8),
            ("カタ", 4, 9, 11),
            ("タカ", 5, 10, 12),
            ("カナ", 6, 11, 13),
        ],
    );
}

#[test]
fn nfkc() {
    check(
        r#"{}"#,
        "ﬁnancial ＦＵＬＬ width ①",
        &[
            ("financi", 0, 0, 8),
            ("full", 1, 9, 13),
            ("width", 2, 14, 19),
            ("1", 3, 20, 21),
        ],
    );
}

#[test]
fn fold() {
    check(
        r#"{}"#,
        "Café naïve résumé Ångström",
        &[
            ("cafe", 0, 0, 4),
            ("naiv", 1, 5, 10),
            ("resume", 2, 11, 17),
            ("angstrom", 3, 18, 26),
        ],
    );
}

#[test]
fn nofold() {
    check(
        r#"{"foldDiacritics": false}"#,
        "Café naïve résumé",
        &[("café", 0, 0, 4), ("naïv", 1, 5, 10), ("résumé", 2, 11, 17)],
    );
}

#[test]
fn control() {
    check(
        r#"{}"#,
        "a\0b\tc\u{7}d\u{1b}[0m e\r\nf",
        &[
            ("b", 1, 2, 3),
            ("c", 2, 4, 5),
            ("d", 3, 6, 7),
            ("0m", 4, 9, 11),
            ("e", 5, 12, 13),
            ("f", 6, 15, 16),
        ],
    );
}

#[test]
fn long() {
    check(
        r#"{}"#,
        "short aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa end",
        &[("short", 0, 0, 5), ("end", 2, 81, 84)],
    );
}

#[test]
fn none() {
    check(
        r#"{"language": "none"}"#,
        "The running dogs getUserById",
        &[
            ("the", 0, 0, 3),
            ("running", 1, 4, 11),
            ("dogs", 2, 12, 16),
            ("getuserbyid", 3, 17, 28),
            ("get", 3, 17, 20),
            ("user", 4, 20, 24),
            ("by", 5, 24, 26),
            ("id", 6, 26, 28),
        ],
    );
}

#[test]
fn custom_stop() {
    check(
        r#"{"stopwords": ["foo"], "addStopwords": ["bar"]}"#,
        "the foo bar baz",
        &[("the", 0, 0, 3), ("baz", 3, 12, 15)],
    );
}

#[test]
fn remove_stop() {
    check(
        r#"{"removeStopwords": ["the"]}"#,
        "the who",
        &[("the", 0, 0, 3)],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn arabic() {
    check(
        r#"{"language": "arabic"}"#,
        "المكتبات العامة في القاهرة ك\u{64e}ت\u{64e}ب\u{64e}",
        &[
            ("مكتب", 0, 0, 8),
            ("عام", 1, 9, 15),
            ("في", 2, 16, 18),
            ("قاهر", 3, 19, 26),
            ("كتب", 4, 27, 33),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn danish() {
    check(
        r#"{"language": "danish"}"#,
        "Jeg har købt bøgerne i København",
        &[
            ("kobt", 2, 8, 12),
            ("bog", 3, 13, 20),
            ("kobenhavn", 5, 23, 32),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn dutch() {
    check(
        r#"{"language": "dutch"}"#,
        "De kinderen speelden in de tuinen",
        &[
            ("kinder", 1, 3, 11),
            ("speeld", 2, 12, 20),
            ("tuin", 5, 27, 33),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn finnish() {
    check(
        r#"{"language": "finnish"}"#,
        "Helsingissä on monta kirjastoa",
        &[
            ("helsing", 0, 0, 11),
            ("mon", 2, 15, 20),
            ("kirjasto", 3, 21, 30),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn french() {
    check(
        r#"{"language": "french"}"#,
        "L'avion d’Air France est arrivé à l'aéroport qu'il connaît.",
        &[
            ("avion", 0, 2, 7),
            ("air", 1, 10, 13),
            ("franc", 2, 14, 20),
            ("est", 3, 21, 24),
            ("arriv", 4, 25, 31),
            ("aeroport", 6, 36, 44),
            ("connait", 8, 51, 58),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn german() {
    check(
        r#"{"language": "german"}"#,
        "Die Donaudampfschifffahrtsgesellschaft und die Häuser der Straße",
        &[
            ("donaudampfschifffahrtsgesellschaft", 1, 4, 38),
            ("haus", 4, 47, 53),
            ("strass", 6, 58, 64),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn greek() {
    check(
        r#"{"language": "greek"}"#,
        "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας",
        &[
            ("η", 0, 0, 1),
            ("αθην", 1, 2, 7),
            ("εινα", 2, 8, 13),
            ("η", 3, 14, 15),
            ("πρωτευ", 4, 16, 26),
            ("τ", 5, 27, 30),
            ("ελλαδ", 6, 31, 38),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn hungarian() {
    check(
        r#"{"language": "hungarian"}"#,
        "A könyveket az asztalon hagytam",
        &[
            ("konyv", 1, 2, 11),
            ("asztal", 3, 15, 23),
            ("hagyt", 4, 24, 31),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn italian() {
    check(
        r#"{"language": "italian"}"#,
        "L'amico dell'albero mangiava le mele",
        &[
            ("amic", 0, 2, 7),
            ("alber", 1, 13, 19),
            ("mang", 2, 20, 28),
            ("mel", 4, 32, 36),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn norwegian() {
    check(
        r#"{"language": "norwegian"}"#,
        "Vi bodde i husene ved fjorden",
        &[("bodd", 1, 3, 8), ("hus", 3, 11, 17), ("fjord", 5, 22, 29)],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn portuguese() {
    check(
        r#"{"language": "portuguese"}"#,
        "As crianças estavam brincando nas ruas",
        &[
            ("crianc", 1, 3, 11),
            ("brinc", 3, 20, 29),
            ("ruas", 5, 34, 38),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn romanian() {
    check(
        r#"{"language": "romanian"}"#,
        "Copiii se jucau în parcurile orașului",
        &[
            ("copii", 0, 0, 6),
            ("se", 1, 7, 9),
            ("jucau", 2, 10, 15),
            ("in", 3, 16, 18),
            ("parcur", 4, 19, 28),
            ("oras", 5, 29, 37),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn russian() {
    check(
        r#"{"language": "russian"}"#,
        "Москва — столица России, ёлки и книги",
        &[
            ("москв", 0, 0, 6),
            ("столиц", 1, 9, 16),
            ("росс", 2, 17, 23),
            ("елки", 3, 25, 29),
            ("книг", 5, 32, 37),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn spanish() {
    check(
        r#"{"language": "spanish"}"#,
        "Los niños estaban jugando en las calles",
        &[("nin", 1, 4, 9), ("jug", 3, 18, 25), ("call", 6, 33, 39)],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn swedish() {
    check(
        r#"{"language": "swedish"}"#,
        "Barnen lekte i trädgårdarna",
        &[
            ("barn", 0, 0, 6),
            ("lekt", 1, 7, 12),
            ("tradgard", 3, 15, 27),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn tamil() {
    check(
        r#"{"language": "tamil"}"#,
        "தமிழ\u{bcd}ந\u{bbe}ட\u{bcd}டின\u{bcd} தலைநகரம\u{bcd} சென\u{bcd}னை",
        &[
            ("தமிழ\u{bcd}ந\u{bbe}டு", 0, 0, 13),
            ("தலைநகரம\u{bcd}", 1, 14, 22),
            ("சென\u{bcd}", 2, 23, 29),
        ],
    );
}

#[cfg(feature = "all-languages")]
#[test]
fn turkish() {
    check(
        r#"{"language": "turkish"}"#,
        "İstanbul'da yaşıyorum, Ankara'dan geldim. ISPARTA",
        &[
            ("istanbul", 0, 0, 8),
            ("yasiyor", 1, 12, 21),
            ("ankar", 2, 23, 29),
            ("gel", 3, 34, 40),
            ("ispar", 4, 42, 49),
        ],
    );
}

/// The indexed `東京都` contains the bigram of the query `東京`.
#[test]
fn cjk_tokyo() {
    check("{}", "東京都", &[("東京", 0, 0, 2), ("京都", 1, 1, 3)]);
}

/// Windows paths, Rust paths and PHP namespaces are compounds too.
#[test]
fn paths() {
    check(
        "{}",
        r"C:\Users\dev\app.rs std::collections::HashMap App\Models\User",
        &[
            ("c:\\users\\dev\\app.rs", 0, 0, 19),
            ("c", 0, 0, 1),
            ("user", 1, 3, 8),
            ("dev", 2, 9, 12),
            ("app", 3, 13, 16),
            ("rs", 4, 17, 19),
            ("std::collections::hashmap", 5, 20, 45),
            ("std", 5, 20, 23),
            ("collect", 6, 25, 36),
            ("hash", 7, 38, 42),
            ("map", 8, 42, 45),
            ("app\\models\\user", 9, 46, 61),
            ("app", 9, 46, 49),
            ("model", 10, 50, 56),
            ("user", 11, 57, 61),
        ],
    );
}

/// AND-mode matching as the analyzer's contract intends it: tokens sharing
/// a position are alternatives (a compound's whole token and its first
/// part), so every query position needs one of its terms in `doc`.
fn matches(options: &str, doc: &str, query: &str) -> bool {
    let opts = AnalyzerOptions::from_json(&memdex::json::parse(options).unwrap()).unwrap();
    let a = Analyzer::new(&opts).unwrap();
    let doc: Vec<String> = a.analyze(doc).into_iter().map(|t| t.term).collect();
    let query = a.analyze(query);
    let found = |p: u32| {
        query
            .iter()
            .any(|t| t.position == p && doc.contains(&t.term))
    };
    !query.is_empty() && query.iter().all(|t| found(t.position))
}

#[test]
fn queries_match_documents() {
    let en = "{}";
    assert!(matches(en, "call getUserById first", "get user"));
    assert!(matches(en, "call getUserById first", "getUserById"));
    assert!(matches(en, "call get_user_by_id first", "user id"));
    assert!(matches(en, "the HTTPServer crashed", "http server"));
    assert!(matches(en, "see src/lib/auth.ts", "auth.ts"));
    assert!(matches(en, "see src/lib/auth.ts", "src/lib/auth.ts"));
    assert!(matches(en, "released v1.2.3 today", "1.2.3"));
    assert!(matches(en, "mail user@example.com", "example"));
    assert!(matches(en, "Café au lait", "cafe"));
    assert!(matches(en, "ＦＵＬＬ width", "full"));
    assert!(matches(en, "ΟΔΟΣ ΑΘΗΝΑΣ", "οδος"));
    assert!(matches(en, "running dogs", "run dog"));
    assert!(matches(en, "東京都に住んでいます", "東京"));
    assert!(matches(en, "東京都に住んでいます", "住んで"));
    assert!(!matches(en, "call getUserById first", "delete user"));
}

#[cfg(feature = "all-languages")]
#[test]
fn queries_match_documents_other_languages() {
    assert!(matches(
        r#"{"language": "french"}"#,
        "L'avion est arrivé",
        "avions"
    ));
    assert!(matches(
        r#"{"language": "turkish"}"#,
        "İstanbul'da",
        "istanbul"
    ));
}
