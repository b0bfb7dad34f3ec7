//! Differential tests against the `fst` crate (the dictionary this one
//! replaced) and robustness against damaged bytes.

use std::collections::BTreeSet;

use fst::automaton::{Automaton, Levenshtein, Str};
use fst::{IntoStreamer, Map, MapBuilder, Streamer};
use proptest::prelude::*;

use super::*;

fn build(terms: &BTreeSet<String>, block_len: u32) -> TermDict {
    let mut builder = TermDictBuilder::new();
    builder.block_len = block_len;
    for (i, t) in terms.iter().enumerate() {
        assert_eq!(builder.insert(t), Some(i as u64));
    }
    builder.finish()
}

fn fst_map(terms: &BTreeSet<String>) -> Map<Vec<u8>> {
    let mut builder = MapBuilder::memory();
    for (i, t) in terms.iter().enumerate() {
        builder.insert(t, i as u64).unwrap();
    }
    builder.into_map()
}

fn fst_search<A: Automaton>(map: &Map<Vec<u8>>, aut: A, limit: usize) -> Vec<(String, u64)> {
    let mut stream = map.search(aut).into_stream();
    let mut out = Vec::new();
    while let Some((key, value)) = stream.next() {
        if out.len() >= limit {
            break;
        }
        out.push((String::from_utf8(key.to_vec()).unwrap(), value));
    }
    out
}

/// What the `fst` version of `fuzzy` returned where its automaton could be
/// built.
fn fst_fuzzy(map: &Map<Vec<u8>>, q: &str, d: u8, limit: usize) -> Option<Vec<(String, u64)>> {
    Levenshtein::new(q, d as u32)
        .ok()
        .map(|aut| fst_search(map, aut, limit))
}

/// Plain Levenshtein distance over chars.
fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 1..=b.len() {
            let sub = prev + usize::from(ca != b[j - 1]);
            prev = row[j];
            row[j] = sub.min(row[j] + 1).min(row[j - 1] + 1);
        }
    }
    row[b.len()]
}

fn naive_fuzzy(terms: &BTreeSet<String>, q: &str, d: u8, limit: usize) -> Vec<(String, u64)> {
    terms
        .iter()
        .enumerate()
        .filter(|(_, t)| levenshtein(t, q) <= d as usize)
        .map(|(i, t)| (t.clone(), i as u64))
        .take(limit)
        .collect()
}

fn all_terms(dict: &TermDict) -> Vec<(String, u64)> {
    let mut terms = dict.iter();
    let mut out = Vec::new();
    while terms.advance().is_some() {
        out.push((
            String::from_utf8(terms.term().to_vec()).unwrap(),
            terms.ord(),
        ));
    }
    out
}

/// Everything the dictionary answers must equal what `fst` answers, except
/// where `fst`'s Levenshtein automaton is wrong or refuses the query.
///
/// The automaton misses terms with a char that shares its leading UTF-8
/// bytes with a query char without being it (fst issue #38: `é~1` does not
/// find `ß`). Where it misses none, fuzzy results equal it at every limit;
/// otherwise (and with `naive`, always) they equal the definition and
/// include everything it found.
fn check_against_fst(terms: &BTreeSet<String>, dict: &TermDict, queries: &[String], naive: bool) {
    let map = fst_map(terms);
    assert_eq!(dict.len(), map.len());
    let mut stream = map.stream();
    let mut expected = Vec::new();
    while let Some((k, v)) = stream.next() {
        expected.push((String::from_utf8(k.to_vec()).unwrap(), v));
    }
    assert_eq!(all_terms(dict), expected);
    for t in terms {
        assert_eq!(dict.get(t), map.get(t), "get {t:?}");
    }
    for q in queries {
        assert_eq!(dict.get(q), map.get(q), "get {q:?}");
        for limit in [0, 1, 3, MAX_EXPANSIONS] {
            assert_eq!(
                dict.prefix(q, limit),
                fst_search(&map, Str::new(q).starts_with(), limit),
                "prefix {q:?} limit {limit}"
            );
        }
        for d in [1, 2] {
            let all = dict.fuzzy(q, d, usize::MAX);
            let fst_all = fst_fuzzy(&map, q, d, usize::MAX);
            if fst_all.as_ref() != Some(&all) || naive {
                assert_eq!(all, naive_fuzzy(terms, q, d, usize::MAX), "fuzzy {q:?}~{d}");
            }
            if let Some(found) = &fst_all {
                assert!(found.iter().all(|f| all.contains(f)), "fuzzy {q:?}~{d}");
            }
            // `fst`'s results under a limit are its first `limit` (fst_search).
            for limit in [0, 1, 3, MAX_EXPANSIONS] {
                let got = dict.fuzzy(q, d, limit);
                assert_eq!(
                    got,
                    all[..limit.min(all.len())],
                    "fuzzy {q:?}~{d} limit {limit}"
                );
            }
        }
    }
    let copy = TermDict::from_bytes(dict.as_bytes().to_vec()).unwrap();
    assert_eq!(all_terms(&copy), expected);
}

/// Strings over a small alphabet (long shared prefixes, 1- to 4-byte chars).
fn word() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec!['a', 'b', 'c', 'd', 'é', 'ß', '日', '𐍈', 'z']);
    prop::collection::vec(chars, 0..9).prop_map(|c| c.into_iter().collect())
}

fn ascii_word() -> impl Strategy<Value = String> {
    "[a-d]{0,8}"
}

fn block_len() -> impl Strategy<Value = u32> {
    prop::sample::select(vec![1, 2, 3, 5, BLOCK_LEN, 255])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn matches_fst(
        terms in prop::collection::btree_set(word(), 0..120),
        extra in prop::collection::vec(word(), 0..12),
        block_len in block_len(),
    ) {
        let dict = build(&terms, block_len);
        // Queries: members, their prefixes and random words.
        let mut queries: Vec<String> = terms.iter().step_by(7).cloned().collect();
        queries.extend(terms.iter().step_by(5).map(|t| t.chars().take(2).collect::<String>()));
        queries.extend(extra);
        check_against_fst(&terms, &dict, &queries, true);
    }

    /// ASCII only: fuzzy results equal `fst`'s everywhere.
    #[test]
    fn matches_fst_exactly_on_ascii(
        terms in prop::collection::btree_set(ascii_word(), 0..120),
        queries in prop::collection::vec(ascii_word(), 1..12),
        block_len in block_len(),
    ) {
        let dict = build(&terms, block_len);
        let map = fst_map(&terms);
        for q in &queries {
            for d in [1, 2] {
                for limit in [1, 3, MAX_EXPANSIONS] {
                    prop_assert_eq!(Some(dict.fuzzy(q, d, limit)), fst_fuzzy(&map, q, d, limit));
                }
            }
        }
    }

    #[test]
    fn union_matches_fst_union(
        sets in prop::collection::vec(prop::collection::btree_set(word(), 0..40), 0..5),
        block_len in block_len(),
    ) {
        let dicts: Vec<TermDict> = sets.iter().map(|s| build(s, block_len)).collect();
        let refs: Vec<&TermDict> = dicts.iter().collect();
        let mut union = Union::new(&refs);
        let mut got = Vec::new();
        while let Some((term, hits)) = union.next_term() {
            let hits: Vec<(usize, u64)> = hits.iter().map(|h| (h.dict, h.ordinal)).collect();
            got.push((term.to_vec(), hits));
        }
        let maps: Vec<Map<Vec<u8>>> = sets.iter().map(fst_map).collect();
        let mut op = fst::map::OpBuilder::new();
        for m in &maps {
            op = op.add(m.stream());
        }
        let mut fst_union = op.union();
        let mut want = Vec::new();
        while let Some((term, hits)) = fst_union.next() {
            let mut hits: Vec<(usize, u64)> = hits.iter().map(|h| (h.index, h.value)).collect();
            hits.sort();
            want.push((term.to_vec(), hits));
        }
        prop_assert_eq!(got, want);
    }

    /// Damaged bytes: never a panic; what still decodes is a consistent
    /// dictionary (strictly increasing, lookups find every term).
    #[test]
    fn damaged_bytes_are_rejected_or_consistent(
        terms in prop::collection::btree_set(word(), 1..60),
        block_len in block_len(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = build(&terms, block_len).as_bytes().to_vec();
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
            prop_assert!(TermDict::from_bytes(bytes.clone()).is_err());
        }
        for (at, x) in flips {
            if !bytes.is_empty() {
                let i = at.index(bytes.len());
                bytes[i] ^= x;
            }
        }
        if let Ok(dict) = TermDict::from_bytes(bytes) {
            let listed = all_terms(&dict);
            prop_assert_eq!(listed.len(), dict.len());
            for w in listed.windows(2) {
                prop_assert!(w[0].0 < w[1].0);
            }
            for (t, ord) in &listed {
                prop_assert_eq!(dict.get(t), Some(*ord));
                prop_assert!(dict.prefix(t, 5).first() == Some(&(t.clone(), *ord)));
                prop_assert!(dict.fuzzy(t, 1, usize::MAX).contains(&(t.clone(), *ord)));
            }
        }
    }
}

#[test]
fn lookup_prefix_and_fuzzy() {
    let dict = TermDict::from_sorted(["apple", "apply", "banana", "band", "bandana"]);
    assert_eq!(dict.len(), 5);
    assert_eq!(dict.get("band"), Some(3));
    assert_eq!(dict.get("ban"), None);
    let terms = |v: Vec<(String, u64)>| v.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
    assert_eq!(terms(dict.prefix("ban", 10)), ["banana", "band", "bandana"]);
    assert_eq!(dict.prefix("ban", 2).len(), 2);
    assert_eq!(terms(dict.fuzzy("appla", 1, 10)), ["apple", "apply"]);
    let copy = TermDict::from_bytes(dict.as_bytes().to_vec()).unwrap();
    assert_eq!(copy.get("apply"), Some(1));
}

#[test]
fn out_of_order_terms_are_left_out() {
    let mut builder = TermDictBuilder::new();
    assert_eq!(builder.insert("b"), Some(0));
    assert_eq!(builder.insert("a"), None);
    assert_eq!(builder.insert("b"), None);
    assert_eq!(builder.insert("c"), Some(1));
    let dict = builder.finish();
    assert_eq!(
        all_terms(&dict),
        [("b".to_string(), 0), ("c".to_string(), 1)]
    );
}

#[test]
fn empty_dictionary_and_empty_term() {
    let empty = TermDict::default();
    assert!(empty.is_empty());
    assert_eq!(empty.get(""), None);
    assert!(empty.prefix("", 10).is_empty());
    assert!(empty.fuzzy("a", 2, 10).is_empty());
    assert!(TermDict::from_bytes(empty.as_bytes().to_vec()).is_ok());
    let terms: BTreeSet<String> = ["", "a", "ab"].iter().map(|s| s.to_string()).collect();
    check_against_fst(&terms, &build(&terms, 2), &["".into(), "b".into()], true);
}

#[test]
fn hand_made_inconsistencies_are_errors() {
    let footer = |n: u32, block_len: u8| {
        let mut f = n.to_le_bytes().to_vec();
        f.push(block_len);
        f
    };
    let dict = |region: &[u8], offsets: &[u32], n: u32, block_len: u8| {
        let mut b = region.to_vec();
        offsets.iter().for_each(|o| b.extend(o.to_le_bytes()));
        b.extend(footer(n, block_len));
        TermDict::from_bytes(b)
    };
    assert!(dict(&[1, b'a', 0, 1, b'b'], &[0], 2, 2).is_ok());
    let err = |region: &[u8], offsets: &[u32], n, block_len| {
        dict(region, offsets, n, block_len).unwrap_err()
    };
    assert!(err(&[], &[], 0, 0).contains("block length is 0"));
    assert!(err(&[1, b'a'], &[], 1, 2).contains("block index"));
    assert!(err(&[1, b'a'], &[1], 1, 2).contains("offset"));
    assert!(err(&[1, b'a', 0, 1, b'a'], &[0], 2, 2).contains("increasing"));
    assert!(err(&[1, b'b', 0, 1, b'a'], &[0], 2, 2).contains("increasing"));
    // Shared prefix longer than the previous term.
    assert!(err(&[1, b'a', 2, 1, b'b'], &[0], 2, 2).contains("increasing"));
    // Shared prefix shorter than the real one.
    assert!(err(&[2, b'a', b'b', 0, 2, b'a', b'c'], &[0], 2, 2).contains("increasing"));
    assert!(err(&[2, 0xc3, 0x28], &[0], 1, 2).contains("UTF-8"));
    assert!(err(&[1, b'a', 9], &[0], 1, 2).contains("trailing"));
    assert!(TermDict::from_bytes(vec![0, 0, 0]).is_err());
    // A suffix running past the region, and a varint that never ends.
    assert!(dict(&[5, b'a'], &[0], 1, 2).is_err());
    assert!(dict(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], &[0], 1, 2).is_err());
}

/// Beyond the length where `fst`'s automaton gave up (and the old code fell
/// back to an exact match), fuzzy matching still equals the definition.
#[test]
fn long_queries_match_at_any_length() {
    let base = "abcdefghijklmnopqrstuvwxyz0123456789";
    let q: String = base.chars().chain(base.chars().rev()).collect();
    assert!(Levenshtein::new(&q, 2).is_err(), "fst refuses it");
    let mut terms = BTreeSet::new();
    for i in 0..q.len() {
        let mut t = q.clone();
        t.remove(i);
        terms.insert(t.clone());
        t.insert(i, 'é');
        terms.insert(t.clone());
        terms.insert(t.replace("abc", ""));
    }
    terms.insert(q.clone());
    let dict = build(&terms, BLOCK_LEN);
    for d in [1, 2] {
        let got = dict.fuzzy(&q, d, MAX_EXPANSIONS);
        assert_eq!(got, naive_fuzzy(&terms, &q, d, MAX_EXPANSIONS));
        assert!(got.len() > 1);
    }
}

/// Words of a real corpus: the Cranfield collection beside the repository
/// when present, else this repository's own documentation.
#[test]
fn real_words_match_fst() {
    let root = env!("CARGO_MANIFEST_DIR");
    let text = std::fs::read_to_string(format!("{root}/../shared/data/cranfield/corpus.jsonl"))
        .unwrap_or_else(|_| {
            [
                "README.md",
                "ARCHITECTURE.md",
                "BENCHMARKS.md",
                "docs/FORMAT.md",
            ]
            .iter()
            .filter_map(|f| std::fs::read_to_string(format!("{root}/{f}")).ok())
            .collect()
        });
    let terms: BTreeSet<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    assert!(terms.len() > 1000);
    let dict = build(&terms, BLOCK_LEN);
    let mut queries: Vec<String> = terms.iter().step_by(97).cloned().collect();
    queries.extend(["th", "aerodynamic", "xyz", "flw", "a", "", "teh"].map(String::from));
    queries.extend(terms.iter().step_by(89).map(|t| format!("{t}s")));
    queries.extend(
        terms
            .iter()
            .step_by(83)
            .map(|t| t.chars().skip(1).collect()),
    );
    check_against_fst(&terms, &dict, &queries, false);
}

/// `fst`'s automaton missed a char sharing its leading UTF-8 byte with a
/// query char (fst issue #38); the definition counts it as a substitution.
#[test]
fn multibyte_substitutions_are_found() {
    let terms: BTreeSet<String> = ["a", "ß", "é", "éé"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let dict = build(&terms, BLOCK_LEN);
    let found = |v: Vec<(String, u64)>| v.into_iter().map(|(t, _)| t).collect::<Vec<_>>();
    assert_eq!(found(dict.fuzzy("é", 1, 10)), ["a", "ß", "é", "éé"]);
    let fst = fst_fuzzy(&fst_map(&terms), "é", 1, 10).unwrap();
    assert_eq!(found(fst), ["a", "é", "éé"]);
}

/// Distances beyond the 1 and 2 queries use: still the definition, and no
/// overflow in the u8 cells at the largest.
#[test]
fn larger_distances_match_the_definition() {
    let terms: BTreeSet<String> = ["", "a", "abc", "abcdef", "xyz", "日本語", "zzzzzzzzzz"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let dict = build(&terms, 2);
    for d in [0, 3, 5] {
        for q in ["", "abd", "日本", "zzzzz"] {
            assert_eq!(
                dict.fuzzy(q, d, 100),
                naive_fuzzy(&terms, q, d, 100),
                "{q}~{d}"
            );
        }
    }
    assert_eq!(dict.fuzzy("abc", u8::MAX, 100).len(), terms.len());
}

/// Optimal string alignment distance by the textbook full matrix (the
/// oracle of `typos_bounded`).
fn osa(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

fn typos(dict: &TermDict, q: &str, d: u8, limit: usize) -> Vec<(String, u64, u8)> {
    dict.typos_bounded(q, d, limit, &mut u64::MAX.clone())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Every term within OSA distance whose first char is the query's first
    /// or second, with that distance, in order, cut at the limit; and
    /// `term_at` inverts `get`.
    #[test]
    fn typos_match_naive_osa(
        terms in prop::collection::btree_set(word(), 0..120),
        extra in prop::collection::vec(word(), 1..10),
        block_len in block_len(),
    ) {
        let dict = build(&terms, block_len);
        let mut queries: Vec<String> = terms.iter().step_by(6).cloned().collect();
        // Members with two adjacent chars swapped: transpositions.
        queries.extend(terms.iter().step_by(4).filter_map(|t| {
            let mut c: Vec<char> = t.chars().collect();
            (c.len() >= 2).then(|| { let n = c.len() / 2; c.swap(n - 1, n); c.into_iter().collect() })
        }));
        queries.extend(extra);
        for q in &queries {
            for d in [1u8, 2] {
                let want: Vec<(String, u64, u8)> = terms
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| {
                        let dist = osa(t, q);
                        // Anchored: the first char is the query's first or
                        // second (the empty term has none).
                        let first = t.chars().next();
                        let anchored = q.chars().take(2).any(|c| Some(c) == first);
                        (dist <= d as usize && anchored).then(|| (t.clone(), i as u64, dist as u8))
                    })
                    .collect();
                prop_assert_eq!(&typos(&dict, q, d, usize::MAX), &want, "{:?}~{}", q, d);
                for limit in [0, 1, 3] {
                    prop_assert_eq!(typos(&dict, q, d, limit), want[..limit.min(want.len())].to_vec());
                }
            }
        }
        for (i, t) in terms.iter().enumerate() {
            prop_assert_eq!(dict.term_at(i as u64), Some(t.clone()));
        }
        prop_assert_eq!(dict.term_at(terms.len() as u64), None);
    }
}

#[test]
fn transpositions_count_one() {
    let words = ["deployment", "pnpm", "retries", "visit", "zustand"];
    let dict = TermDict::from_sorted(words);
    for (typo, want) in [
        ("deploymnet", "deployment"),
        ("zustnad", "zustand"),
        ("pnmp", "pnpm"),
        ("retires", "retries"),
    ] {
        let got = typos(&dict, typo, 1, 10);
        assert_eq!(got.len(), 1, "{typo}: {got:?}");
        assert_eq!((got[0].0.as_str(), got[0].2), (want, 1));
        // Plain Levenshtein needs 2 edits for a swap.
        assert!(dict.fuzzy(typo, 1, 10).is_empty(), "{typo}");
    }
    assert_eq!(typos(&dict, "visit", 1, 10)[0].2, 0);
}
