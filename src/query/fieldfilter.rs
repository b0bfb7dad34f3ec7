//! `field:value` words of a lenient query that name a field which is not
//! full text: a keyword or boolean field becomes that filter (`kind:rule` is
//! `filter: { kind: 'rule' }`), anything else is searched as plain words as
//! before, and every such reading is reported in `results.warnings` (never
//! silently). Strict queries reject them instead (see [`strict_hint`]).
//!
//! Only words at the top level of the query become filters (`kind:rule
//! deploy`, `+kind:rule`); inside a group, an `OR` or a negation a filter
//! would change what the query means, so those stay words, with a warning.
//! Each `field:value` is its own condition: `tags:a tags:b` needs both.

use crate::index::document::{FieldRef, FilterKind, ResolvedSchema};
use crate::index::filter::{Condition, Filter};
use crate::json::{Map, Value};

use super::ast::{Occur, Query};

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
        Query::Term { .. } => {
            if let Some(cond) = take(ast, Occur::Default, schema, &mut out.warnings) {
                out.conditions.push(cond);
                *ast = Query::empty();
            }
        }
        Query::Bool { clauses, .. } => {
            clauses.retain_mut(
                |c| match take(&c.query, c.occur, schema, &mut out.warnings) {
                    Some(cond) => {
                        out.conditions.push(cond);
                        false
                    }
                    None => {
                        if !matches!(c.query, Query::Term { .. }) {
                            nested(&c.query, schema, &mut out.warnings);
                        }
                        true
                    }
                },
            )
        }
        Query::Phrase { .. } => {}
    }
    out
}

/// The word's field and value when it is `name:value` on a non-text field.
fn split<'a>(
    q: &'a Query,
    schema: &ResolvedSchema,
) -> Option<(&'a str, &'a str, Option<FieldRef>)> {
    let Query::Term {
        field: None, text, ..
    } = q
    else {
        return None;
    };
    let (name, value) = text.split_once(':')?;
    if value.is_empty() || value.starts_with('/') || !is_name(name) {
        return None; // `http://x`, `12:30`, `note:`
    }
    Some((name, value, schema.by_name.get(name).copied()))
}

/// A filter condition for a top-level word, or `None` (with a warning when
/// it was a `field:value` word left as text).
fn take(
    q: &Query,
    occur: Occur,
    schema: &ResolvedSchema,
    warnings: &mut Vec<String>,
) -> Option<Condition> {
    let (name, value, field) = split(q, schema)?;
    let Query::Term {
        prefix,
        fuzzy,
        boost,
        ..
    } = q
    else {
        return None;
    };
    let Some(FieldRef::Filter(column)) = field else {
        warnings.push(not_filterable(name, value, field, schema));
        return None;
    };
    let kind = schema.filters[column].kind;
    if !matches!(kind, FilterKind::Keyword | FilterKind::Boolean) {
        warnings.push(not_filterable(name, value, field, schema));
        return None;
    }
    let what = if kind == FilterKind::Keyword {
        "keyword"
    } else {
        "boolean"
    };
    if occur == Occur::MustNot || occur == Occur::Should || *prefix || *fuzzy > 0 || *boost != 1.0 {
        warnings.push(format!(
            "`{name}` is a {what} field: `{name}:{value}` with a negation, `OR`, `*`, `~` or `^` was searched as plain words; use the filter option, e.g. {{ filter: {{ {name}: ... }} }}"
        ));
        return None;
    }
    let v = match kind {
        FilterKind::Boolean => match value {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => {
                warnings.push(format!(
                    "`{name}` is a boolean field: `{name}:{value}` was searched as plain words; write `{name}:true` or `{name}:false`"
                ));
                return None;
            }
        },
        _ => Value::String(value.to_string()),
    };
    let mut m = Map::new();
    m.insert(name.to_string(), v.clone());
    let cond = Filter::compile(&Value::Object(m), schema)
        .ok()?
        .conditions
        .pop()?;
    let shown = match v {
        Value::Bool(b) => b.to_string(),
        _ => format!("'{value}'"),
    };
    warnings.push(format!(
        "`{name}` is a {what} field: `{name}:{value}` was applied as the filter {{ {name}: {shown} }}"
    ));
    Some(cond)
}

/// Warnings for `field:value` words inside groups (left as words).
fn nested(q: &Query, schema: &ResolvedSchema, warnings: &mut Vec<String>) {
    match q {
        Query::Term { .. } => {
            if let Some((name, value, field)) = split(q, schema) {
                warnings.push(match field {
                    Some(FieldRef::Filter(_)) => format!(
                        "`{name}:{value}` inside a group was searched as plain words; `{name}` is not a text field: use the filter option, e.g. {{ filter: {{ {name}: ... }} }}"
                    ),
                    _ => not_filterable(name, value, field, schema),
                });
            }
        }
        Query::Bool { clauses, .. } => clauses
            .iter()
            .for_each(|c| nested(&c.query, schema, warnings)),
        Query::Phrase { .. } => {}
    }
}

fn not_filterable(
    name: &str,
    value: &str,
    field: Option<FieldRef>,
    schema: &ResolvedSchema,
) -> String {
    match field {
        Some(FieldRef::Filter(c)) => {
            let what = match schema.filters[c].kind {
                FilterKind::Number => "number",
                FilterKind::Date => "date",
                _ => "keyword",
            };
            format!(
                "`{name}` is a {what} field: `{name}:{value}` was searched as plain words; filter by it with the filter option, e.g. {{ filter: {{ {name}: {{ gte: ... }} }} }}"
            )
        }
        Some(_) => format!(
            "`{name}` is a stored-only field (not searchable): `{name}:{value}` was searched as plain words"
        ),
        None => format!(
            "`{name}` is not a field of the schema: `{name}:{value}` was searched as plain words"
        ),
    }
}

/// How a word names a field (as the strict parser's `is_identifier`).
fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// The strict parser's "unknown field `kind`" for a filter or stored
/// field, said as what to do instead.
pub(crate) fn strict_hint(reason: &str, schema: &ResolvedSchema) -> Option<String> {
    let name = reason.strip_prefix("unknown field `")?.split('`').next()?;
    match schema.by_name.get(name)? {
        FieldRef::Filter(_) => Some(format!(
            "`{name}` is a filter field, not text: filter by it with the filter option, e.g. {{ filter: {{ {name}: ... }} }} (lenient queries apply `{name}:value` as that filter)"
        )),
        FieldRef::StoredOnly => Some(format!("`{name}` is a stored-only field: it cannot be searched")),
        FieldRef::Text(_) => None,
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
        let r = index.search(q, &opts).unwrap();
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
        let (ids, w) = search(&mut ix, "deploy colour:blue");
        assert_eq!(ids, ["d1", "n1", "r1"]);
        assert_eq!(
            w,
            ["`colour` is not a field of the schema: `colour:blue` was searched as plain words"]
        );
        let (_, w) = search(&mut ix, "priority:3 deploy");
        assert!(w[0].starts_with("`priority` is a number field"), "{w:?}");
        let (_, w) = search(&mut ix, "links:x deploy");
        assert!(w[0].contains("stored-only"), "{w:?}");
        let (_, w) = search(&mut ix, "deploy -kind:rule");
        assert!(w[0].contains("with a negation"), "{w:?}");
        let (_, w) = search(&mut ix, "kind:rule OR friday");
        assert!(w[0].contains("`OR`"), "{w:?}");
        let (_, w) = search(&mut ix, "deploy (kind:rule friday)");
        assert!(w[0].contains("inside a group"), "{w:?}");
        let (_, w) = search(&mut ix, "pinned:yes deploy");
        assert!(w[0].contains("write `pinned:true`"), "{w:?}");
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
        let err = ix.search("deploy kind:rule", &opts).unwrap_err();
        assert_eq!(err.code(), "INVALID_QUERY");
        assert!(
            err.to_string()
                .contains("`kind` is a filter field, not text"),
            "{err}"
        );
        let err = ix.search("deploy colour:blue", &opts).unwrap_err();
        assert!(err.to_string().contains("unknown field `colour`"), "{err}");
    }
}
