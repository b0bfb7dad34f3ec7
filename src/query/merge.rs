//! Repeated clauses merged before planning, so a query pays once for each
//! distinct clause: `ab~2` written 1,024 times was expanded, looked up and
//! scored 1,024 times.
//!
//! Within one group, a term or phrase equal to an earlier one with the same
//! occur (same field, text, prefix, fuzzy distance or slop; only the boost
//! may differ) is dropped and its boost added to the earlier one. Scores
//! are linear in a clause's boost, so the merged clause scores what the
//! repeats summed (up to float rounding: `x + x` is exactly `2x`, longer
//! sums may differ in the last bit) and matches the same documents.
//! Excluded clauses are only deduplicated. Groups are merged inside but not
//! with each other (their cost is bounded by the budget), and terms that
//! merely analyze alike (`runs running`) stay separate clauses: their texts differ.

use super::ast::{Clause, Occur, Query};

/// Merges the repeated terms and phrases of every group of `query`.
pub fn merge_repeats(query: &mut Query) {
    let Query::Bool { clauses, .. } = query else {
        return;
    };
    for c in clauses.iter_mut() {
        merge_repeats(&mut c.query);
    }
    if !repeats_text(clauses) {
        return;
    }
    // Equal keys are equal clauses; the sort keeps equal keys in clause
    // order, so each run starts with the clause that stays.
    let keys: Vec<Vec<u8>> = clauses.iter().map(key).collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let mut keep = vec![true; clauses.len()];
    let mut first = 0;
    for (i, &(_, at)) in crate::sort::order_by_bytes(&refs).iter().enumerate() {
        let at = at as usize;
        if i == 0 || keys[at].is_empty() || keys[at] != keys[first] {
            first = at;
            continue;
        }
        keep[at] = false;
        if clauses[at].occur != Occur::MustNot {
            let sum = clauses[first].query.boost() + clauses[at].query.boost();
            if let Query::Term { boost, .. } | Query::Phrase { boost, .. } =
                &mut clauses[first].query
            {
                *boost = sum.min(f32::MAX);
            }
        }
    }
    let mut at = 0;
    clauses.retain(|_| {
        at += 1;
        keep[at - 1]
    });
}

/// Whether two clauses may be equal: a few pairwise text comparisons for
/// the short queries people type (no allocation), `true` for long ones.
fn repeats_text(clauses: &[Clause]) -> bool {
    if clauses.len() > 16 {
        return true;
    }
    fn text(c: &Clause) -> Option<&str> {
        match &c.query {
            Query::Term { text, .. } | Query::Phrase { text, .. } => Some(text),
            Query::Bool { .. } => None,
        }
    }
    clauses
        .iter()
        .enumerate()
        .any(|(i, a)| text(a).is_some_and(|t| clauses[i + 1..].iter().any(|b| text(b) == Some(t))))
}

/// Everything that makes a term or phrase clause what it is, except its
/// boost, as bytes (0xFF, never in UTF-8, ends the field); empty for a
/// group, which is never merged.
fn key(clause: &Clause) -> Vec<u8> {
    let (kind, field, text, prefix, fuzzy, slop) = match &clause.query {
        Query::Term {
            field,
            text,
            prefix,
            fuzzy,
            ..
        } => (1, field, text, *prefix, *fuzzy, 0),
        Query::Phrase {
            field, text, slop, ..
        } => (2, field, text, false, 0, *slop),
        Query::Bool { .. } => return Vec::new(),
    };
    let occur = match clause.occur {
        Occur::Should => 0,
        Occur::Must => 1,
        Occur::MustNot => 2,
        Occur::Default => 3,
    };
    let mut key = vec![occur, kind, u8::from(prefix), fuzzy];
    key.extend_from_slice(&slop.to_le_bytes());
    if let Some(field) = field {
        key.extend_from_slice(field.as_bytes());
    }
    key.push(0xFF);
    key.extend_from_slice(text.as_bytes());
    key
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::parser::parse_lenient;

    fn merged(q: &str) -> String {
        let mut q = parse_lenient(q, &["title", "text"]);
        merge_repeats(&mut q);
        q.to_string()
    }

    #[test]
    fn repeats_merge_with_summed_boosts() {
        assert_eq!(merged("ab~2 ab~2 ab~2"), "(ab~2^3)");
        assert_eq!(merged("a* b* a* b*^2"), "(a*^2 b*^3)");
        assert_eq!(merged("x OR x OR y"), "(?x^2 ?y)");
        assert_eq!(merged("\"a b\" \"a b\"~1 \"a b\""), "(\"a b\"^2 \"a b\"~1)");
        assert_eq!(merged("(a b a) c c"), "((a^2 b) c^2)");
    }

    #[test]
    fn different_occurs_fields_and_modifiers_stay_apart() {
        assert_eq!(merged("a +a -a -a"), "(a +a -a)");
        assert_eq!(
            merged("title:a a a* a~1 text:a"),
            "(title:a a a* a~1 text:a)"
        );
        // Groups are not merged with each other.
        assert_eq!(merged("(a b) (a b)"), "((a b) (a b))");
    }

    #[test]
    fn a_query_without_repeats_is_unchanged() {
        let q = parse_lenient("deploy friday OR weekend -\"dry run\"~2", &["title"]);
        let mut merged = q.clone();
        merge_repeats(&mut merged);
        assert_eq!(merged, q);
    }
}
