//! `strategy: 'auto'`: a small, fixed rule set that picks the search mode
//! (and proximity, link expansion, hybrid fusion) from the query text, so a
//! caller that does not know the query's shape need not guess. The result
//! reports what was chosen and why (`results.strategy`).
//!
//! The rules, first match decides the mode:
//!
//! | reason | when | mode |
//! |---|---|---|
//! | `natural-language` | more than 12 words ([`LONG_QUERY_WORDS`]) | [`NATURAL_LANGUAGE_MODE`] (`or`) with proximity |
//! | `quoted` | the query has a `"quoted phrase"` | `fallback` (the phrase and every other word required; OR only if that finds nothing) |
//! | `identifier` | a word looks like code: camelCase (`useState`; PascalCase with two inner capitals, `HttpClientFactory`, as `GitHub` is mostly a name), snake_case, a path (`src/a.rs`, `./x`, `a/b/c`), a file name (`core.js`), a version (`v1.2`, `18.2.0`), `a::b`, `a->b`, `f()`, `#123`, `--flag` | `fallback` |
//! | `short` | at most 3 words, no question word, no `?` | `fallback` |
//! | `natural-language` | anything else | [`NATURAL_LANGUAGE_MODE`] (`or`) with proximity |
//!
//! Independently of the mode: a relation question (`what depends on X`,
//! `notes related to X`, `linked to X`, `dependencies of X`, `connected to
//! X`; only lead words such as what/which/notes/memories/show me may come
//! before the relation) searches for `X` (the relation words removed) and asks for link
//! expansion `expand: { hops: 1 }`; a `vector` option asks for hybrid
//! fusion with its defaults.

use super::options::{Choice, Mode, Reason};

/// Mode `auto` uses for natural-language questions: the default mode
/// ([`Mode::default`]), measured best for them (BENCHMARKS.md,
/// "Natural-language default").
pub const NATURAL_LANGUAGE_MODE: Mode = Mode::Or;

/// Mode `auto` uses for quoted text, identifiers and short queries: AND,
/// and OR only when AND finds nothing (`fallback`): measured on the
/// relevance collections, a strict AND left long queries that merely
/// contain quotes or a code-like word with no answer at all.
pub const PRECISE_MODE: Mode = Mode::Fallback;

/// Longer queries are prose (a pasted paragraph, a long question) whatever
/// quotes or code-like words they hold: requiring all their words finds
/// little (measured on CISI, whose queries are abstracts with quotes).
pub const LONG_QUERY_WORDS: usize = 12;

/// Words that make a query a question (never "short and precise").
const QUESTION_WORDS: &str =
    "what which who whom whose when where why how can could should would will is are \
    was were do does did i we my our the a an to of for in on with about";

/// Relation phrases, lowercase; the query's text after one is what is
/// searched.
const RELATIONS: &str =
    "depends on|depend on|depending on|dependencies of|dependents of|relates to|\
    related to|relate to|linked to|links to|link to|connected to";

/// Words that may come before a relation phrase: the question's lead.
const RELATION_LEADS: &str =
    "what what's whats which who anything everything something all the memories \
    memory notes note things items decisions rules facts is are was were does do did \
    that else show list find me get directly also";

/// Applies the rules to `query`; `has_vector`: the search has a `vector`.
pub fn choose(query: &str, has_vector: bool) -> Choice {
    let (expand_hops, rewritten) = match relation_target(query) {
        // The lexical build follows no links: it searches the target only.
        Some(target) => (crate::build::LINKS.then_some(1), Some(target)),
        None => (None, None),
    };
    let text = rewritten.as_deref().unwrap_or(query);
    let words: Vec<&str> = text
        .split_whitespace()
        .map(trim_punctuation)
        .filter(|w| !w.is_empty())
        .collect();
    let reason = if words.len() > LONG_QUERY_WORDS {
        Reason::NaturalLanguage
    } else if text.matches('"').count() >= 2 {
        Reason::Quoted
    } else if words
        .iter()
        .copied()
        .chain(text.split_whitespace())
        .any(is_identifier)
    {
        Reason::Identifier
    } else if !words.is_empty()
        && words.len() <= 3
        && !text.contains('?')
        && !words
            .iter()
            .any(|w| is_one_of(&w.to_ascii_lowercase(), QUESTION_WORDS))
    {
        Reason::Short
    } else {
        Reason::NaturalLanguage
    };
    let natural = reason == Reason::NaturalLanguage;
    Choice {
        reason,
        mode: if natural {
            NATURAL_LANGUAGE_MODE
        } else {
            PRECISE_MODE
        },
        proximity: natural,
        expand_hops,
        hybrid: has_vector,
        query: rewritten,
    }
}

/// For a relation question, the text after the relation phrase (trailing
/// `?` removed), if any is left.
fn relation_target(query: &str) -> Option<String> {
    // ASCII lowercasing keeps byte offsets (and needs no Unicode tables).
    let lower = query.to_ascii_lowercase();
    let word = |c: u8| c.is_ascii_alphanumeric() || c >= 0x80;
    for rel in RELATIONS.split('|') {
        let Some(at) = lower.find(rel) else { continue };
        let end = at + rel.len();
        // Whole words only ("unrelated to" is not "related to").
        let before_ok = at == 0 || !word(lower.as_bytes()[at - 1]);
        let after_ok = lower.as_bytes().get(end).is_none_or(|&c| !word(c));
        // Only as the question itself ("what depends on X", "notes linked
        // to X"), not inside a statement ("systems related to chemistry").
        let lead_ok = lower[..at]
            .split(|c: char| !c.is_ascii_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .all(|w| is_one_of(w, RELATION_LEADS));
        if !(before_ok && after_ok && lead_ok) {
            continue;
        }
        let rest = query[end..].trim().trim_end_matches('?').trim();
        if !rest.is_empty() {
            return Some(rest.to_string());
        }
    }
    None
}

/// Whether `w` is one of the space-separated `words` (word lists as one
/// string each: no table of string slices in the wasm).
fn is_one_of(w: &str, words: &str) -> bool {
    words.split(' ').any(|x| x == w)
}

/// `w` without the ASCII punctuation around words in prose.
fn trim_punctuation(w: &str) -> &str {
    let strip = |b: u8| b",;:!?()[]{}'`<>".contains(&b);
    let bytes = w.as_bytes();
    let mut start = 0;
    let mut end = bytes.len();
    while start < end && strip(bytes[start]) {
        start += 1;
    }
    while end > start && strip(bytes[end - 1]) {
        end -= 1;
    }
    // ASCII bytes are whole characters: both ends are boundaries.
    &w[start..end]
}

/// A code-like word: camelCase, snake_case, a path or file name, a
/// version, `a::b`, `a->b`, `f()`, `#123`, `--flag`. ASCII only: code is.
#[inline(never)]
pub(crate) fn is_identifier(w: &str) -> bool {
    let b = w.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric();
    // camelCase (a lowercase start and an inner capital: `useState`), or
    // PascalCase with two inner capitals (`HttpClientFactory`): one inner
    // capital after an uppercase start is mostly a name (PostgreSQL, GitHub).
    let humps = b
        .windows(2)
        .filter(|p| p[0].is_ascii_lowercase() && p[1].is_ascii_uppercase())
        .count();
    let camel = humps >= 2 || (humps == 1 && b[0].is_ascii_lowercase());
    // snake_case (also SCREAMING_SNAKE): an underscore between word chars.
    let snake = b
        .windows(3)
        .any(|p| word(p[0]) && p[1] == b'_' && word(p[2]));
    // `/word/` (slashes as quotes, as in Cranfield's queries) is no path.
    let slashed = b.len() > 2 && b[0] == b'/' && b[b.len() - 1] == b'/';
    let slashes = b.iter().filter(|&&c| c == b'/').count();
    let last = w.rsplit('/').next().unwrap_or("");
    let path = !slashed
        && (w.starts_with("./")
            || w.starts_with("../")
            || w.starts_with("~/")
            || slashes >= 2
            || w.contains('\\')
            || (slashes == 1 && extension(last, 1)));
    // Versions: `v1.2`, `1.2.3` (a bare `0.5` is a number, not a version).
    let bare = w.trim_end_matches('.');
    let version = dotted(bare, 2)
        || bare
            .strip_prefix(['v', 'V'])
            .is_some_and(|rest| dotted(rest, 1));
    let code = w.contains("::")
        || w.contains("->")
        || w.ends_with("()")
        || (b.len() > 1 && b[0] == b'#' && b[1..].iter().all(u8::is_ascii_digit))
        || (w.starts_with("--") && b.get(2).is_some_and(u8::is_ascii_alphabetic));
    camel || snake || path || version || code || extension(w, 2)
}

/// Numbers joined by more than `min_dots` dots (`1.2.3`).
fn dotted(s: &str, min_dots: usize) -> bool {
    s.split('.').count() > min_dots
        && s.split('.')
            .all(|p| !p.is_empty() && p.bytes().all(|c| c.is_ascii_digit()))
}

/// `name.ext`: a stem of at least `min_stem` word characters (`-_.`
/// allowed) and a 1-5 letter lowercase extension (`core.js`).
fn extension(w: &str, min_stem: usize) -> bool {
    match w.rsplit_once('.') {
        Some((stem, ext)) => {
            stem.len() >= min_stem
                && !stem.ends_with('.')
                && (1..=5).contains(&ext.len())
                && ext.bytes().all(|c| c.is_ascii_lowercase())
                && stem
                    .bytes()
                    .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented rules on example queries: (query, has vector,
    /// reason, mode, expand hops, rewritten query).
    #[test]
    fn auto_chooses_by_the_documented_rules() {
        let nl = NATURAL_LANGUAGE_MODE;
        let and = PRECISE_MODE;
        type Row<'a> = (&'a str, bool, Reason, Mode, Option<u8>, Option<&'a str>);
        let table: &[Row] = &[
            (
                "\"use pnpm\" lockfile",
                false,
                Reason::Quoted,
                and,
                None,
                None,
            ),
            ("useState hook", false, Reason::Identifier, and, None, None),
            ("max_retries", false, Reason::Identifier, and, None, None),
            (
                "src/query/search.rs",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            (
                "error in core.js",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            (
                "a long \"quoted\" text with getUserById and more than twelve words in it",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "mach 0.5 flutter of /slip flow/",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "upgrade to node 18.2.1",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            (
                "v2.1.0 changelog",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            (
                "Index::search panics",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            (
                "why does init() hang",
                false,
                Reason::Identifier,
                and,
                None,
                None,
            ),
            ("fixed in #1234", false, Reason::Identifier, and, None, None),
            ("pnpm lockfile", false, Reason::Short, and, None, None),
            ("deploy friday", false, Reason::Short, and, None, None),
            ("zustand", false, Reason::Short, and, None, None),
            (
                "what package manager should I use?",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "can I deploy on friday?",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "deploy on friday",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "how do we handle auth token refresh in the web app",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "e.g. and/or the rest",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "what depends on the billing service?",
                false,
                Reason::NaturalLanguage,
                nl,
                Some(1),
                Some("the billing service"),
            ),
            (
                "what depends on authClient",
                false,
                Reason::Identifier,
                and,
                Some(1),
                Some("authClient"),
            ),
            (
                "Which notes are related to postgres?",
                false,
                Reason::Short,
                and,
                Some(1),
                Some("postgres"),
            ),
            (
                "memories linked to the auth migration",
                false,
                Reason::NaturalLanguage,
                nl,
                Some(1),
                Some("the auth migration"),
            ),
            (
                "Computerized information systems in fields related to chemistry.",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            (
                "show me everything linked to authClient",
                false,
                Reason::Identifier,
                and,
                Some(1),
                Some("authClient"),
            ),
            (
                "unrelated to billing",
                false,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
            ("pnpm lockfile", true, Reason::Short, and, None, None),
            (
                "what package manager should I use?",
                true,
                Reason::NaturalLanguage,
                nl,
                None,
                None,
            ),
        ];
        for &(query, vector, reason, mode, hops, rewritten) in table {
            let c = choose(query, vector);
            assert_eq!(c.reason, reason, "{query}");
            assert_eq!(c.mode, mode, "{query}");
            assert_eq!(c.expand_hops, hops, "{query}");
            assert_eq!(c.query.as_deref(), rewritten, "{query}");
            assert_eq!(c.hybrid, vector, "{query}");
            assert_eq!(c.proximity, reason == Reason::NaturalLanguage, "{query}");
        }
    }

    #[test]
    fn identifiers_and_plain_words() {
        for w in [
            "getUserById",
            "HttpClientFactory",
            "MAX_SIZE",
            "./build.sh",
            "~/notes",
            "/etc/hosts",
            "src/a.rs",
            "a/b/c",
            "package.json",
            "1.0.2",
            "v1.2",
            "std::fs",
            "--force",
        ] {
            assert!(is_identifier(w), "{w}");
        }
        for w in [
            "pnpm",
            "Deploy",
            "PostgreSQL",
            "GitHub",
            "and/or",
            "e.g",
            "NASA",
            "friday",
            "#",
            "3",
            "end.",
        ] {
            assert!(!is_identifier(w), "{w}");
        }
    }
}
