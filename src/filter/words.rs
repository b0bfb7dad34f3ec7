//! `field:value` words of a lenient query that name a field which is not
//! full text: a keyword or boolean field becomes that filter (`kind:rule` is
//! `filter: { kind: 'rule' }`), another field of the schema is searched as
//! plain words, and every such reading is reported in
//! `results.warnings`. A name the schema does not have is just words,
//! silently: `CS:GO?` or `note: restart it` are text, not a field gone
//! wrong. Strict queries reject them instead (see [`strict_hint`]).
//!
//! Only words at the top level of the query become filters (`kind:rule
//! deploy`, `+kind:rule`); inside a group, an `OR`, a negation or with a
//! modifier (`*`, `~`, `^`) a filter would change what the query means, so
//! those stay words, with a warning.
//! Each `field:value` is its own condition: `tags:a tags:b` needs both.

use super::Condition;
use crate::schema::{FieldRef, FilterKind, ResolvedSchema};

use crate::query::ast::{Occur, Query};
use crate::query::parser::is_identifier;

/// What a query's `field:value` words became.
#[derive(Debug, Default)]
pub(crate) struct FieldWords {
    /// Filter conditions taken out of the query.
    pub conditions: Vec<Condition>,
    /// One sentence per reinterpreted word.
    pub warnings: Vec<String>,
}

/// Takes the filterable `field:value` words out of `ast` (lenient queries)
/// and says what happened to each `field:value` word.
pub(crate) fn extract(ast: &mut Query, schema: &ResolvedSchema) -> FieldWords {
    let mut out = FieldWords::default();
    match ast {
        Query::Bool { clauses, .. } => clauses.retain(|c| out.keep(&c.query, c.occur, schema)),
        q => {
            if !out.keep(q, Occur::Default, schema) {
                *q = Query::empty();
            }
        }
    }
    out
}

impl FieldWords {
    /// Whether a top-level clause stays in the query (`false`: it became a
    /// filter condition).
    fn keep(&mut self, q: &Query, occur: Occur, schema: &ResolvedSchema) -> bool {
        match q {
            Query::Bool { clauses, .. } => {
                for c in clauses {
                    // Inside a group: never a filter, always words.
                    self.keep(&c.query, Occur::Should, schema);
                }
                true
            }
            Query::Phrase { .. } => true,
            Query::Term {
                field: None,
                text,
                prefix,
                fuzzy,
                boost,
            } => {
                let Some((name, value)) = text.split_once(':') else {
                    return true;
                };
                if value.is_empty() || value.starts_with('/') || !is_identifier(name) {
                    return true; // `http://x`, `12:30`, `note:`
                }
                let plain = occur == Occur::MustNot
                    || occur == Occur::Should
                    || *prefix
                    || *fuzzy > 0
                    || *boost != 1.0;
                let (kind, cond) = match schema.by_name.get(name) {
                    None => return true,
                    Some(FieldRef::StoredOnly) => ("a stored-only field", None),
                    Some(FieldRef::Vector(_)) => ("a vector field", None),
                    Some(FieldRef::Text(_)) => return true,
                    Some(&FieldRef::Filter(column)) => match schema.filters[column].kind {
                        FilterKind::Keyword => (
                            "a keyword field",
                            Some(Condition::Keyword {
                                column,
                                values: vec![value.to_string()],
                            }),
                        ),
                        FilterKind::Boolean => (
                            "a boolean field",
                            matches!(value, "true" | "false").then(|| Condition::Boolean {
                                column,
                                value: value == "true",
                            }),
                        ),
                        FilterKind::Number => ("a number field", None),
                        FilterKind::Date => ("a date field", None),
                        FilterKind::Links => ("a links field", None),
                    },
                };
                let word = format!("`{name}` is {kind}: `{name}:{value}`");
                match cond {
                    Some(cond) if !plain => {
                        let q = if matches!(cond, Condition::Keyword { .. }) {
                            "'"
                        } else {
                            ""
                        };
                        self.warnings.push(format!(
                            "{word} was applied as the filter {{ {name}: {q}{value}{q} }}"
                        ));
                        self.conditions.push(cond);
                        false
                    }
                    _ => {
                        self.warnings.push(format!(
                            "{word} was searched as plain words; filter by it with the `filter` option"
                        ));
                        true
                    }
                }
            }
            Query::Term { .. } => true,
        }
    }
}

/// The strict parser's "unknown field `kind`" for a filter or stored
/// field, said as what to do instead.
pub(crate) fn strict_hint(reason: &str, schema: &ResolvedSchema) -> Option<String> {
    let name = reason.strip_prefix("unknown field `")?.split('`').next()?;
    match schema.by_name.get(name)? {
        FieldRef::Text(_) => None,
        _ => Some(format!(
            "`{name}` is not a text field: filter by it with the `filter` option (lenient queries apply `{name}:value` on a keyword or boolean field as that filter)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::json::parse;
    use crate::query::options::Syntax;
    use crate::{Index, IndexConfig, SearchOptions};

    fn index() -> Index {
        let config = parse(r#"{"schema":{"pinned":"boolean","priority":"number"}}"#).unwrap();
        let mut index = Index::new(IndexConfig::from_json(&config).unwrap()).unwrap();
        for doc in [
            r#"{"id":"r1","text":"deploy with pnpm","kind":"rule","tags":["security"],"pinned":true}"#,
            r#"{"id":"d1","text":"deploy on friday","kind":"decision","pinned":false}"#,
            r#"{"id":"n1","text":"kind words about deploy","kind":"note","tags":["security","ops"]}"#,
        ] {
            index.add(&parse(doc).unwrap()).unwrap();
        }
        index
    }

    fn search(index: &mut Index, q: &str) -> (Vec<String>, Vec<String>) {
        let opts = SearchOptions {
            limit: 10,
            ..Default::default()
        };
        let r = index.searcher().search(q, &opts).unwrap();
        let mut ids: Vec<String> = r.hits.into_iter().map(|h| h.id).collect();
        ids.sort();
        (ids, r.warnings)
    }

    #[test]
    fn keyword_and_boolean_words_are_filters_with_a_warning() {
        let mut ix = index();
        let (ids, w) = search(&mut ix, "deploy kind:rule");
        assert_eq!(ids, ["r1"]);
        assert_eq!(
            w,
            ["`kind` is a keyword field: `kind:rule` was applied as the filter { kind: 'rule' }"]
        );
        // Alone: a listing of what the filter allows.
        assert_eq!(search(&mut ix, "tags:security").0, ["n1", "r1"]);
        assert_eq!(search(&mut ix, "+pinned:false deploy").0, ["d1"]);
        assert_eq!(search(&mut ix, "tags:security tags:ops").0, ["n1"]);
        // Plain searches carry no warnings.
        assert!(search(&mut ix, "deploy").1.is_empty());
    }

    #[test]
    fn other_reinterpretations_are_reported() {
        let mut ix = index();
        // A name the schema lacks is just words, silently (`CS:GO?`).
        let (ids, w) = search(&mut ix, "deploy colour:blue");
        assert_eq!(ids, ["d1", "n1", "r1"]);
        assert!(w.is_empty(), "{w:?}");
        assert!(search(&mut ix, "is CS:GO fun?").1.is_empty());
        let (_, w) = search(&mut ix, "priority:3 deploy");
        assert!(w[0].starts_with("`priority` is a number field"), "{w:?}");
        let (_, w) = search(&mut ix, "links:x deploy");
        assert!(w[0].contains("a links field"), "{w:?}");
        // Negated, in an OR, in a group, with a modifier, or not a boolean:
        // words, with a warning.
        for q in [
            "deploy -kind:rule",
            "kind:rule OR friday",
            "deploy (kind:rule friday)",
            "deploy kind:rule*",
            "pinned:yes deploy",
        ] {
            let (_, w) = search(&mut ix, q);
            assert_eq!(w.len(), 1, "{q}");
            assert!(
                w[0].ends_with(
                    "was searched as plain words; filter by it with the `filter` option"
                ),
                "{q}: {w:?}"
            );
        }
        // Not field words: URLs, times, a trailing colon, quoted text.
        for q in [
            "see http://x.org deploy",
            "deploy at 12:30",
            "note: deploy",
            "\"kind:rule\" deploy",
        ] {
            assert!(search(&mut ix, q).1.is_empty(), "{q}");
        }
    }

    #[test]
    fn strict_queries_say_to_use_the_filter_option() {
        let mut ix = index();
        let opts = SearchOptions {
            syntax: Syntax::Strict,
            ..Default::default()
        };
        let err = ix.searcher().search("deploy kind:rule", &opts).unwrap_err();
        assert_eq!(err.code(), "INVALID_QUERY");
        assert!(
            err.to_string()
                .contains("`kind` is not a text field: filter by it with the `filter` option"),
            "{err}"
        );
        let err = ix
            .searcher()
            .search("deploy colour:blue", &opts)
            .unwrap_err();
        assert!(err.to_string().contains("unknown field `colour`"), "{err}");
    }
}
