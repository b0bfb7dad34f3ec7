//! Character normalization: NFKC + lowercasing, and diacritic folding.
//!
//! Both functions append to a caller-owned buffer so the analyzer can reuse
//! one allocation for every token. ASCII input takes a byte-wise fast path.
//!
//! Native builds use the `unicode-normalization` crate. The wasm build does
//! not link it (its tables are ~65 KB of the gzipped bundle): NFKC goes
//! through the host's `String.prototype.normalize("NFKC")`, and only for
//! text that is not made of NFKC-stable characters (ASCII, and most letters
//! of the common scripts, never cross the boundary); combining marks and
//! the folding decompositions come from the small generated tables in
//! `unicode_tables.rs`, which a native test checks against the crate for
//! every code point. Lowercasing uses a generated table too (`LOWER`, from
//! `char::to_lowercase`): core's conversion tables cost ~7 KB gzipped, and a
//! table frozen at one Unicode version keeps index terms the same whatever
//! compiler builds memdex. Caveat: the host's ICU may implement another Unicode
//! version than the crate, so characters assigned since then can normalize
//! differently in the browser than natively.

#[cfg(not(target_arch = "wasm32"))]
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Lookups in the generated tables the wasm build uses instead of the
/// `unicode-normalization` crate.
#[cfg_attr(not(any(target_arch = "wasm32", test)), allow(dead_code))]
mod tables {
    include!("unicode_tables.rs");

    /// General_Category Mark: `COMBINING_MARKS` holds `start << 8 | (end - start)`.
    pub(super) fn is_combining_mark(c: char) -> bool {
        let c = c as u32;
        let i = COMBINING_MARKS.partition_point(|&e| e >> 8 <= c);
        i > 0 && c <= (COMBINING_MARKS[i - 1] >> 8) + (COMBINING_MARKS[i - 1] & 0xFF)
    }

    /// True if `c` has canonical combining class 0 and NFKC_Quick_Check=Yes,
    /// so a string made only of such characters is already NFKC.
    /// `NFKC_STABLE` holds BMP ranges `start << 16 | end`; characters outside
    /// them may or may not be stable (false is always safe).
    pub(super) fn is_nfkc_stable(c: char) -> bool {
        let c = c as u32;
        if c < 0x80 {
            return true;
        }
        let i = NFKC_STABLE.partition_point(|&e| e >> 16 <= c);
        i > 0 && c <= NFKC_STABLE[i - 1] & 0xFFFF
    }

    /// Simple lowercase mapping (`char::to_lowercase` at
    /// [`LOWER_UNICODE_VERSION`], except U+0130, the one character that
    /// lowercases to two). `LOWER` holds runs `(start << 11 | stride2 << 10 |
    /// (len - 1), delta)`: `len` characters from `start`, every one or every
    /// other one (`stride2`), each lowercasing to itself plus `delta`.
    pub(super) fn lower(c: char) -> char {
        let u = c as u32;
        let i = LOWER.partition_point(|&(e, _)| e >> 11 <= u);
        let Some(&(run, delta)) = i.checked_sub(1).map(|i| &LOWER[i]) else {
            return c;
        };
        let offset = u - (run >> 11);
        let stride = if run & 1 << 10 != 0 { 2 } else { 1 };
        if offset % stride != 0 || offset / stride > run & 0x3FF {
            return c;
        }
        char::from_u32(u.wrapping_add_signed(delta)).unwrap_or(c)
    }

    /// Folded form of a character of a folding script: `FOLD` holds
    /// `char << 16 | folded` for every character that changes.
    pub(super) fn fold_char(c: char) -> char {
        let key = c as u32;
        match FOLD.binary_search_by_key(&key, |&e| e >> 16) {
            Ok(i) => char::from_u32(FOLD[i] & 0xFFFF).unwrap_or(c),
            Err(_) => c,
        }
    }
}

/// True for General_Category Mark (Mn, Mc, Me): what attaches to the
/// preceding base character.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
pub(crate) fn is_combining_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

/// True for General_Category Mark (Mn, Mc, Me): what attaches to the
/// preceding base character.
#[cfg(target_arch = "wasm32")]
#[inline]
pub(crate) fn is_combining_mark(c: char) -> bool {
    !c.is_ascii() && tables::is_combining_mark(c)
}

/// Characters that may sit inside a word and carry no meaning for search
/// (soft hyphen, zero-width joiners, word joiner, BOM, Arabic tatweel).
/// They stay in a token's span but are dropped from its term.
#[inline]
pub(crate) fn is_ignorable(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}' | '\u{0640}' | '\u{200B}' | '\u{200C}' | '\u{200D}' | '\u{2060}' | '\u{FEFF}'
    )
}

/// Appends `src` to `out`, NFKC-normalized (full-width forms, ligatures) and
/// lowercased. Ignorable format characters are dropped and the typographic
/// apostrophe `’` becomes `'`, so `l’avion` and `l'avion` analyze alike.
/// `turkish` selects the Turkish dotted/dotless i mapping (`I`->`ı`, `İ`->`i`).
pub(crate) fn lower_nfkc_into(src: &str, turkish: bool, out: &mut String) {
    if src.is_ascii() && !(turkish && src.bytes().any(|b| b == b'I')) {
        // Fast path: ASCII is already NFKC; lowercase byte-wise.
        let from = out.len();
        out.push_str(src);
        out.as_mut_str()[from..].make_ascii_lowercase();
        return;
    }
    #[cfg(not(target_arch = "wasm32"))]
    if is_nfkc_quick(src.chars()) == IsNormalized::Yes {
        push_lower(src.chars(), turkish, out);
    } else {
        push_lower(src.nfkc(), turkish, out);
    }
    #[cfg(target_arch = "wasm32")]
    if src.chars().all(tables::is_nfkc_stable) {
        push_lower(src.chars(), turkish, out);
    } else {
        let nfkc = crate::host::nfkc(src);
        push_lower(nfkc.chars(), turkish, out);
    }
}

fn push_lower(chars: impl Iterator<Item = char>, turkish: bool, out: &mut String) {
    for c in chars {
        match c {
            '\u{2019}' => out.push('\''),
            // Case folding: final sigma is a position-dependent form of σ,
            // and `ΟΔΟΣ` must match `οδος`.
            'ς' => out.push('σ'),
            c if is_ignorable(c) => {}
            'I' if turkish => out.push('ı'),
            '\u{0130}' if turkish => out.push('i'),
            c if c.is_ascii() => out.push(c.to_ascii_lowercase()),
            '\u{0130}' => out.push_str("i\u{0307}"),
            c => out.push(tables::lower(c)),
        }
    }
}

/// True if `c` is a combining mark that folding removes: the Combining
/// Diacritical Marks block (what NFD yields for Latin, Greek and Cyrillic
/// letters) and Arabic harakat. Marks of other scripts (Indic vowel signs,
/// viramas) are letters in all but name and are kept.
#[inline]
fn is_foldable_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{064B}'..='\u{065F}' | '\u{0670}')
}

/// Scripts whose precomposed letters are decomposed by folding: Latin
/// (incl. extended), Greek, Cyrillic, Latin/Greek Extended Additional.
#[inline]
fn decomposes(c: char) -> bool {
    matches!(c, '\u{00C0}'..='\u{024F}' | '\u{0370}'..='\u{04FF}' | '\u{1E00}'..='\u{1FFF}')
}

/// Appends `c` (of a [`decomposes`] script, not itself a foldable mark)
/// without its diacritics: its canonical decomposition minus foldable marks.
#[cfg(not(target_arch = "wasm32"))]
#[inline]
fn push_folded(c: char, out: &mut String) {
    unicode_normalization::char::decompose_canonical(c, |d| {
        if !is_foldable_mark(d) {
            out.push(d)
        }
    });
}

/// Appends `c` (of a [`decomposes`] script, not itself a foldable mark)
/// without its diacritics: one character for these scripts, from the table
/// (checked against `unicode-normalization` by a native test).
#[cfg(target_arch = "wasm32")]
#[inline]
fn push_folded(c: char, out: &mut String) {
    out.push(tables::fold_char(c));
}

/// Appends `src` to `out` with diacritics removed (`café` -> `cafe`,
/// `ё` -> `е`). Letters without a decomposition that users commonly type
/// without their stroke are mapped too (`ø` -> `o`, `ß` -> `ss`, `ł` -> `l`).
/// Input is expected lowercased.
pub(crate) fn fold_into(src: &str, out: &mut String) {
    if src.is_ascii() {
        out.push_str(src);
        return;
    }
    for c in src.chars() {
        match c {
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'œ' => out.push_str("oe"),
            'ø' => out.push('o'),
            'đ' => out.push('d'),
            'ł' => out.push('l'),
            'ı' => out.push('i'),
            c if is_foldable_mark(c) => {}
            c if decomposes(c) => push_folded(c, out),
            c => out.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower(s: &str, turkish: bool) -> String {
        let mut out = String::new();
        lower_nfkc_into(s, turkish, &mut out);
        out
    }

    fn fold(s: &str) -> String {
        let mut out = String::new();
        fold_into(s, &mut out);
        out
    }

    #[test]
    fn nfkc_and_lowercase() {
        assert_eq!(lower("ＨｅｌｌｏＷｏｒｌｄ", false), "helloworld");
        assert_eq!(lower("ﬁle", false), "file");
        assert_eq!(lower("l’Avion", false), "l'avion");
        assert_eq!(lower("soft\u{00AD}ware", false), "software");
        assert_eq!(lower("كتـــاب", false), "كتاب");
        assert_eq!(lower("DİYARBAKIR", true), "diyarbakır");
        assert_eq!(lower("ΟΔΟΣ", false), "οδοσ");
        assert_eq!(lower("οδος", false), "οδοσ");
    }

    #[test]
    fn folding() {
        assert_eq!(fold("café"), "cafe");
        assert_eq!(fold("naïve façade"), "naive facade");
        assert_eq!(fold("straße"), "strasse");
        assert_eq!(fold("ёлка"), "елка");
        assert_eq!(fold("άλφα"), "αλφα");
        assert_eq!(fold("øl"), "ol");
        // NFD input: a lone combining accent is dropped too.
        assert_eq!(fold("cafe\u{0301}"), "cafe");
        // Tamil virama is kept.
        assert_eq!(fold("தமிழ்"), "தமிழ்");
    }

    /// The generated tables agree with `unicode-normalization` for every
    /// code point. `scripts/gen-unicode-tables` (this test with
    /// `MEMDEX_REGEN_TABLES=1`) rewrites `unicode_tables.rs` after a crate upgrade.
    #[test]
    fn unicode_tables() {
        use unicode_normalization::char::{canonical_combining_class, decompose_canonical};
        use unicode_normalization::{is_nfkc_quick, IsNormalized};

        let chars = || (0..=0x10FFFFu32).filter_map(char::from_u32);
        let stable = |c: char| {
            canonical_combining_class(c) == 0
                && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes
        };
        let mut marks = Vec::new();
        let mut run: Option<(u32, u32)> = None;
        for c in chars().chain(std::iter::once('\u{10FFFF}')) {
            let m = c != '\u{10FFFF}' && unicode_normalization::char::is_combining_mark(c);
            let u = c as u32;
            run = match (run, m) {
                (Some((s, e)), true) if e + 1 == u && u - s < 256 => Some((s, u)),
                (r, m) => {
                    if let Some((s, e)) = r {
                        marks.push(s << 8 | (e - s));
                    }
                    m.then_some((u, u))
                }
            };
        }
        let mut nfkc = Vec::new();
        let mut run: Option<(u32, u32)> = None;
        for u in 0x80..=0x10000u32 {
            let ok = u < 0x10000 && char::from_u32(u).is_some_and(stable);
            run = match (run, ok) {
                (Some((s, _)), true) => Some((s, u)),
                (r, ok) => {
                    // Short runs are not worth a table entry.
                    if let Some((s, e)) = r.filter(|(s, e)| e - s >= 3) {
                        nfkc.push(s << 16 | e);
                    }
                    ok.then_some((u, u))
                }
            };
        }
        let mut fold = Vec::new();
        for c in chars().filter(|&c| decomposes(c) && !is_foldable_mark(c)) {
            let mut d = String::new();
            decompose_canonical(c, |x| {
                if !is_foldable_mark(x) {
                    d.push(x)
                }
            });
            let mut it = d.chars();
            let base = it.next().expect("non-empty folding");
            assert!(it.next().is_none(), "{c:?} folds to more than one char");
            if base != c {
                assert!((base as u32) < 0x10000 && (c as u32) < 0x10000);
                fold.push((c as u32) << 16 | base as u32);
            }
        }
        // Lowercase runs: same delta, consecutive or every other character.
        let mut lower_maps = Vec::new();
        for c in chars() {
            let mut l = c.to_lowercase();
            match (l.next(), l.next()) {
                (Some(x), None) if x != c => lower_maps.push((c as u32, x as i32 - c as i32)),
                (Some(_), None) => {}
                _ => assert_eq!(c, '\u{0130}', "{} lowercases to several chars", c as u32),
            }
        }
        let mut lower = Vec::new();
        let mut i = 0;
        while i < lower_maps.len() {
            let (start, delta) = lower_maps[i];
            let run_len = |stride: u32| {
                (1..)
                    .take_while(|&n| {
                        lower_maps.get(i + n) == Some(&(start + stride * n as u32, delta))
                    })
                    .count()
                    + 1
            };
            let (n1, n2) = (run_len(1), run_len(2).min(1024));
            let (len, stride2) = if n2 > n1 { (n2, 1) } else { (n1.min(1024), 0) };
            lower.push((start << 11 | stride2 << 10 | (len as u32 - 1), delta));
            i += len;
        }
        let render = |name: &str, doc: &str, v: &[u32]| {
            let mut s = format!("{doc}\nstatic {name}: &[u32] = &[\n");
            for chunk in v.chunks(8) {
                let line: Vec<String> = chunk.iter().map(|x| format!("0x{x:08X},")).collect();
                s += &format!("    {}\n", line.join(" "));
            }
            s + "];\n"
        };
        let render_lower = |v: &[(u32, i32)]| {
            let (major, minor, update) = char::UNICODE_VERSION;
            let mut s = format!(
                "// Lowercase runs (core's `char::to_lowercase`).\n\
                 #[cfg_attr(not(test), allow(dead_code))] // read by the generating test\n\
                 pub(super) const LOWER_UNICODE_VERSION: (u8, u8, u8) = ({major}, {minor}, {update});\n\
                 static LOWER: &[(u32, i32)] = &[\n"
            );
            for chunk in v.chunks(4) {
                let line: Vec<String> = chunk
                    .iter()
                    .map(|(r, d)| format!("(0x{r:08X}, {d}),"))
                    .collect();
                s += &format!("    {}\n", line.join(" "));
            }
            s + "];\n"
        };
        let text = [
            "// @generated by the `unicode_tables` test in normalize.rs from the\n\
             // unicode-normalization crate; do not edit by hand (regenerate with\n\
             // `scripts/gen-unicode-tables`).\n"
                .to_string(),
            render(
                "COMBINING_MARKS",
                "// General_Category Mark ranges.",
                &marks,
            ),
            render(
                "NFKC_STABLE",
                "// BMP ranges of NFKC-stable starters.",
                &nfkc,
            ),
            render(
                "FOLD",
                "// Folding-script characters -> base character.",
                &fold,
            ),
            render_lower(&lower),
        ]
        .join("\n");
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/src/analysis/unicode_tables.rs"
        );
        if std::env::var_os("MEMDEX_REGEN_TABLES").is_some() {
            std::fs::write(path, &text).unwrap();
        }
        // LOWER is frozen at its Unicode version (index terms must not
        // change with the compiler); a newer core only adds mappings, so
        // the file is compared whole only under the same version.
        let same_unicode = char::UNICODE_VERSION == tables::LOWER_UNICODE_VERSION;
        let stored = std::fs::read_to_string(path).unwrap();
        let without_lower = |t: &str| t[..t.find("// Lowercase runs").unwrap()].to_string();
        assert!(
            if same_unicode {
                stored == text
            } else {
                without_lower(&stored) == without_lower(&text)
            },
            "unicode_tables.rs is stale: run scripts/gen-unicode-tables"
        );
        // The lookups agree with the crate for every code point.
        for c in chars() {
            assert_eq!(
                tables::is_combining_mark(c),
                unicode_normalization::char::is_combining_mark(c),
                "{c:?}"
            );
            if tables::is_nfkc_stable(c) {
                assert!(stable(c), "{c:?}");
            }
            // Every mapping in LOWER is core's; under the same Unicode
            // version core has no others.
            let core: String = c.to_lowercase().collect();
            if tables::lower(c) != c || same_unicode {
                let mut ours = String::new();
                push_lower(std::iter::once(c), false, &mut ours);
                let want = if c == 'ς' { "σ".to_string() } else { core };
                if !is_ignorable(c) && c != '\u{2019}' {
                    assert_eq!(ours, want, "U+{:04X}", c as u32);
                }
            }
            if decomposes(c) && !is_foldable_mark(c) {
                let mut native = String::new();
                push_folded(c, &mut native);
                assert_eq!(native, tables::fold_char(c).to_string(), "{c:?}");
            }
        }
    }
}
