//! Character normalization: NFKC + lowercasing, and diacritic folding.
//!
//! Both functions append to a caller-owned buffer so the analyzer can reuse
//! one allocation for every token. ASCII input takes a byte-wise fast path.

use unicode_normalization::char::decompose_canonical;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

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
    if is_nfkc_quick(src.chars()) == IsNormalized::Yes {
        push_lower(src.chars(), turkish, out);
    } else {
        push_lower(src.nfkc(), turkish, out);
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
            c => out.extend(c.to_lowercase()),
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
            c if decomposes(c) => decompose_canonical(c, |d| {
                if !is_foldable_mark(d) {
                    out.push(d)
                }
            }),
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
}
