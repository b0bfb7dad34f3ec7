//! The one home of filters: structural filters, evaluated per segment into
//! a bitset of allowed docs before any scoring (never by rewriting the
//! query text), and the filter words of lenient queries ([`words`]). The
//! columns they read live in [`crate::store`].
//!
//! JSON shape (every key must match; keys AND together):
//! ```json
//! { "namespace": "agent-1" | ["a", "b"] | "repo:*" | {"prefix": "repo:webapp/"},
//!   // a trailing `*` or `prefix` (a string or strings): namespaces starting so
//!   "kind": "rule" | ["rule", "decision"],         // keyword: equality / membership
//!   "timestamp": {"gte": "2024-01-01", "lt": 1735689600000},  // number/date range
//!   // a date-only bound (YYYY-MM-DD, UTC) covers its whole day: `lte` to
//!   // its end, `gt` after it, equality the day itself
//!   "priority": 3,                                 // number equality
//!   "pinned": true }                               // boolean
//! ```

pub(crate) mod words;

use crate::json::Value;

use crate::error::{Error, Result};
use crate::index::segment::Segment;
use crate::schema::NAMESPACE_KEY;
use crate::schema::{parse_date, FieldRef, FilterKind, ResolvedSchema};
use crate::store::Column;

#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    /// Namespaces equal to one of `exact` or starting with one of `prefixes`.
    Namespace {
        exact: Vec<String>,
        prefixes: Vec<String>,
    },
    Keyword {
        column: usize,
        values: Vec<String>,
    },
    Range {
        column: usize,
        min: f64,
        min_inclusive: bool,
        max: f64,
        max_inclusive: bool,
    },
    Boolean {
        column: usize,
        value: bool,
    },
}

/// A compiled filter: all conditions must hold.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Filter {
    pub conditions: Vec<Condition>,
}

fn strings(field: &str, v: &Value) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                i.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| Error::schema(field, "filter lists hold strings only"))
            })
            .collect(),
        _ => Err(Error::schema(
            field,
            "filter by a string or an array of strings",
        )),
    }
}

impl Filter {
    /// Compiles a JSON filter; unknown fields and wrong value types are
    /// `SCHEMA` errors naming the field.
    pub fn compile(json: &Value, schema: &ResolvedSchema) -> Result<Filter> {
        let obj = json
            .as_object()
            .ok_or_else(|| Error::schema("filter", "must be an object keyed by field name"))?;
        let mut conditions = Vec::new();
        for (field, v) in obj {
            if field == NAMESPACE_KEY {
                conditions.push(namespace(v)?);
                continue;
            }
            let column = match schema.by_name.get(field) {
                Some(FieldRef::Filter(c)) => *c,
                Some(_) => {
                    return Err(Error::schema(
                        field,
                        "is not a filter field (keyword, number, date or boolean)",
                    ))
                }
                None => return Err(Error::schema(field, "is not declared in the schema")),
            };
            let kind = schema.filters[column].kind;
            let cond = match kind {
                FilterKind::Keyword => Condition::Keyword {
                    column,
                    values: strings(field, v)?,
                },
                FilterKind::Boolean => Condition::Boolean {
                    column,
                    value: v
                        .as_bool()
                        .ok_or_else(|| Error::schema(field, "filter by true or false"))?,
                },
                FilterKind::Number | FilterKind::Date => range(field, kind, v, column)?,
                FilterKind::Links => {
                    return Err(Error::schema(
                        field,
                        "is a links field: filter by keyword, number, date or boolean fields; follow links with `expand` or `related`",
                    ))
                }
            };
            conditions.push(cond);
        }
        Ok(Filter { conditions })
    }

    /// Whether a document in namespace `ns` (`None`: none) passes the
    /// filter's namespace conditions (the others are not looked at).
    pub fn allows_namespace(&self, ns: Option<&str>) -> bool {
        self.conditions.iter().all(|c| match c {
            Condition::Namespace { exact, prefixes } => ns.is_some_and(|ns| {
                exact.iter().any(|e| e == ns) || prefixes.iter().any(|p| ns.starts_with(p.as_str()))
            }),
            _ => true,
        })
    }

    /// Allowed docs of `segment` as a bitset (`None` = no restriction).
    pub fn evaluate(&self, segment: &Segment) -> Option<Vec<u64>> {
        if self.conditions.is_empty() {
            return None;
        }
        let words = (segment.n_docs as usize).div_ceil(64);
        let mut acc: Option<Vec<u64>> = None;
        for cond in &self.conditions {
            let mut bits = vec![0u64; words];
            let set = |bits: &mut Vec<u64>, d: u32| bits[(d / 64) as usize] |= 1 << (d % 64);
            match cond {
                Condition::Namespace { exact, prefixes } => {
                    for v in exact {
                        segment
                            .namespaces
                            .docs(v)
                            .iter()
                            .for_each(|&d| set(&mut bits, d));
                    }
                    if !prefixes.is_empty() {
                        for (ns, docs) in &segment.namespaces.values {
                            if prefixes.iter().any(|p| ns.starts_with(p.as_str())) {
                                docs.iter().for_each(|&d| set(&mut bits, d));
                            }
                        }
                    }
                }
                Condition::Keyword { column, values } => {
                    if let Some(Column::Keyword(col)) = segment.columns.get(*column) {
                        for v in values {
                            col.docs(v).iter().for_each(|&d| set(&mut bits, d));
                        }
                    }
                }
                Condition::Range {
                    column,
                    min,
                    min_inclusive,
                    max,
                    max_inclusive,
                } => {
                    if let Some(Column::Number(col)) = segment.columns.get(*column) {
                        for (d, &x) in col.iter().enumerate() {
                            let lo = if *min_inclusive { x >= *min } else { x > *min };
                            let hi = if *max_inclusive { x <= *max } else { x < *max };
                            if lo && hi {
                                set(&mut bits, d as u32);
                            }
                        }
                    }
                }
                Condition::Boolean { column, value } => {
                    if let Some(Column::Boolean(col)) = segment.columns.get(*column) {
                        for (d, &x) in col.iter().enumerate() {
                            if x == *value as u8 {
                                set(&mut bits, d as u32);
                            }
                        }
                    }
                }
            }
            acc = Some(match acc {
                None => bits,
                Some(prev) => prev.iter().zip(&bits).map(|(a, b)| a & b).collect(),
            });
        }
        acc
    }
}

/// A namespace condition: `"a"`, `["a", "b"]`, a trailing `*` (`"repo:*"`)
/// or `{ "prefix": "repo:webapp/" }` (a string or strings) for hierarchical
/// namespaces.
fn namespace(v: &Value) -> Result<Condition> {
    let (mut exact, mut prefixes) = (Vec::new(), Vec::new());
    match v {
        Value::Object(m) => {
            for (k, p) in m {
                if k != "prefix" {
                    return Err(Error::schema(
                        NAMESPACE_KEY,
                        format!("unknown namespace filter `{k}`; use a name, names, \"prefix*\" or {{ prefix: \"repo:\" }}"),
                    ));
                }
                prefixes.extend(strings(NAMESPACE_KEY, p)?);
            }
        }
        _ => {
            for s in strings(NAMESPACE_KEY, v)? {
                match s.strip_suffix('*') {
                    Some(p) => prefixes.push(p.to_string()),
                    None => exact.push(s),
                }
            }
        }
    }
    Ok(Condition::Namespace { exact, prefixes })
}

/// A day in milliseconds.
const DAY_MS: f64 = 86_400_000.0;

/// Whether a date bound names a whole day (`YYYY-MM-DD`, in UTC): such a
/// bound covers the day, so `lte: '2026-03-15'` keeps a memory of 12:30
/// that day, as a person reading the filter expects.
fn is_day(kind: FilterKind, x: &Value) -> bool {
    kind == FilterKind::Date && matches!(x, Value::String(s) if s.len() == 10)
}

fn range(field: &str, kind: FilterKind, v: &Value, column: usize) -> Result<Condition> {
    let parse = |x: &Value| -> Result<f64> {
        let n = if kind == FilterKind::Date {
            parse_date(x)
        } else {
            x.as_f64()
        };
        n.filter(|n| !n.is_nan()).ok_or_else(|| {
            Error::schema(
                field,
                "range bounds must be numbers (or dates for date fields)",
            )
        })
    };
    let (mut min, mut min_inclusive) = (f64::NEG_INFINITY, true);
    let (mut max, mut max_inclusive) = (f64::INFINITY, true);
    match v {
        Value::Object(bounds) => {
            for (op, raw) in bounds {
                let x = parse(raw)?;
                let day = is_day(kind, raw);
                match op.as_str() {
                    "gte" => (min, min_inclusive) = (x, true),
                    // After the whole day / up to its end.
                    "gt" if day => (min, min_inclusive) = (x + DAY_MS, true),
                    "gt" => (min, min_inclusive) = (x, false),
                    "lte" if day => (max, max_inclusive) = (x + DAY_MS, false),
                    "lte" => (max, max_inclusive) = (x, true),
                    "lt" => (max, max_inclusive) = (x, false),
                    _ => {
                        return Err(Error::schema(
                            field,
                            format!("unknown range operator `{op}`; use gt, gte, lt, lte"),
                        ))
                    }
                }
            }
        }
        other => {
            let x = parse(other)?;
            (min, max) = (x, x);
            if is_day(kind, other) {
                (max, max_inclusive) = (x + DAY_MS, false); // the whole day
            }
        }
    }
    Ok(Condition::Range {
        column,
        min,
        min_inclusive,
        max,
        max_inclusive,
    })
}

/// Bit test on an optional allow-set.
#[inline]
pub fn allowed(bits: &Option<Vec<u64>>, doc: u32) -> bool {
    match bits {
        None => true,
        Some(b) => b
            .get((doc / 64) as usize)
            .is_some_and(|w| w & (1 << (doc % 64)) != 0),
    }
}

#[cfg(test)]
mod tests;
