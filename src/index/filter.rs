//! Structural filters, evaluated per segment into a bitset of allowed docs
//! before any scoring (never by rewriting the query text).
//!
//! JSON shape (every key must match; keys AND together):
//! ```json
//! { "namespace": "agent-1" | ["a", "b"],
//!   "kind": "rule" | ["rule", "decision"],         // keyword: equality / membership
//!   "timestamp": {"gte": "2024-01-01", "lt": 1735689600000},  // number/date range
//!   "priority": 3,                                 // number equality
//!   "pinned": true }                               // boolean
//! ```

use crate::json::Value;

use super::document::{parse_date, FieldRef, FilterKind, ResolvedSchema};
use super::segment::Segment;
use crate::error::{Error, Result};
use crate::schema::NAMESPACE_KEY;
use crate::store::Column;

#[derive(Debug, Clone, PartialEq)]
pub enum Condition {
    Namespace(Vec<String>),
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
                conditions.push(Condition::Namespace(strings(field, v)?));
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
            };
            conditions.push(cond);
        }
        Ok(Filter { conditions })
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
                Condition::Namespace(values) => {
                    for v in values {
                        segment
                            .namespaces
                            .docs(v)
                            .iter()
                            .for_each(|&d| set(&mut bits, d));
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
            for (op, x) in bounds {
                let x = parse(x)?;
                match op.as_str() {
                    "gte" => (min, min_inclusive) = (x, true),
                    "gt" => (min, min_inclusive) = (x, false),
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
