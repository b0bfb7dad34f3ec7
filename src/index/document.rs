//! From JSON documents to [`PreparedDoc`]: schema checks, analysis of text
//! fields, typed filter values, stored bytes. Every rejection names the field.

use std::collections::HashMap;

use serde_json::Value;

use crate::analysis::{Analyzer, AnalyzerOptions, Token, TokenRef};
use crate::error::{Error, Result};
use crate::schema::{FieldDef, IndexConfig, ID_KEY, NAMESPACE_KEY};

/// Longest accepted document id, in bytes.
pub const MAX_ID_BYTES: usize = 1024;
/// Largest accepted text field, in bytes.
pub const MAX_FIELD_BYTES: usize = 16 * 1024 * 1024;

/// The kind of a filter field's column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    Keyword,
    Number,
    Date,
    Boolean,
}

/// A field as the index sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRef {
    Text(usize),
    Filter(usize),
    StoredOnly,
}

pub struct TextField {
    pub name: String,
    pub weight: f32,
    pub analyzer: Analyzer,
}

pub struct FilterField {
    pub name: String,
    pub kind: FilterKind,
}

/// The schema resolved into field numbers and analyzers.
pub struct ResolvedSchema {
    pub text: Vec<TextField>,
    pub filters: Vec<FilterField>,
    pub by_name: HashMap<String, FieldRef>,
    stored: HashMap<String, bool>,
}

/// A filter value of one document.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    Keywords(Vec<String>),
    /// Numbers and dates (epoch ms); NaN when missing.
    Number(f64),
    Boolean(Option<bool>),
}

/// One analyzed token of a document: its term is
/// `DocTokens::terms[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocToken {
    pub field: u32,
    pub position: u32,
    pub start: u32,
    pub end: u32,
}

/// The tokens of every text field of one document, with all term bytes in
/// one buffer: two allocations per document instead of one per token.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DocTokens {
    pub terms: String,
    pub tokens: Vec<DocToken>,
}

impl DocTokens {
    /// Analyzes `text` as field `field`; returns the field's BM25 length.
    fn analyze(&mut self, analyzer: &Analyzer, field: usize, text: &str) -> u32 {
        let mut len = 0;
        let mut last = None;
        analyzer.analyze_each(text, false, |t: TokenRef<'_>| {
            if last != Some(t.position) {
                len += 1;
                last = Some(t.position);
            }
            let start = self.terms.len() as u32;
            self.terms.push_str(t.term);
            self.tokens.push(DocToken {
                field: field as u32,
                position: t.position,
                start,
                end: self.terms.len() as u32,
            });
        });
        len
    }

    pub fn term(&self, token: &DocToken) -> &str {
        &self.terms[token.start as usize..token.end as usize]
    }
}

/// A validated, analyzed document ready for a segment writer.
pub struct PreparedDoc {
    pub id: String,
    pub namespace: Option<String>,
    /// JSON object of the stored fields (and the namespace).
    pub stored_json: Vec<u8>,
    /// Tokens of all text fields.
    pub text: DocTokens,
    /// BM25 length per text field: the number of distinct token positions
    /// (tokens sharing a position — a compound and its first part — count
    /// once, as Lucene's discounted overlaps; removed stopwords not at all).
    pub lens: Vec<u32>,
    pub filters: Vec<FilterValue>,
}

impl ResolvedSchema {
    pub fn new(config: &IndexConfig) -> Result<ResolvedSchema> {
        config.validate()?;
        let mut text = Vec::new();
        let mut filters = Vec::new();
        let mut by_name = HashMap::new();
        let mut stored = HashMap::new();
        for (name, def) in &config.fields {
            stored.insert(name.clone(), def.is_stored());
            let field_ref = match def {
                FieldDef::Text {
                    weight, language, ..
                } => {
                    let options = AnalyzerOptions {
                        language: language.unwrap_or(config.analyzer.language),
                        ..config.analyzer.clone()
                    };
                    text.push(TextField {
                        name: name.clone(),
                        weight: *weight,
                        analyzer: Analyzer::new(&options)?,
                    });
                    FieldRef::Text(text.len() - 1)
                }
                FieldDef::Keyword { .. } => push_filter(&mut filters, name, FilterKind::Keyword),
                FieldDef::Number { .. } => push_filter(&mut filters, name, FilterKind::Number),
                FieldDef::Date { .. } => push_filter(&mut filters, name, FilterKind::Date),
                FieldDef::Boolean { .. } => push_filter(&mut filters, name, FilterKind::Boolean),
                FieldDef::Stored => FieldRef::StoredOnly,
            };
            by_name.insert(name.clone(), field_ref);
        }
        if text.len() > crate::postings::MAX_TEXT_FIELDS {
            return Err(Error::schema(
                "fields",
                "at most 32 text fields are supported",
            ));
        }
        Ok(ResolvedSchema {
            text,
            filters,
            by_name,
            stored,
        })
    }

    /// Validates and analyzes one JSON document.
    pub fn prepare(&self, doc: &Value) -> Result<PreparedDoc> {
        let obj = doc
            .as_object()
            .ok_or_else(|| Error::schema("document", "must be a JSON object"))?;
        let id = match obj.get(ID_KEY) {
            Some(Value::String(s)) if !s.is_empty() && s.len() <= MAX_ID_BYTES => s.clone(),
            Some(Value::String(s)) if s.len() > MAX_ID_BYTES => {
                return Err(Error::Limit {
                    what: "document id bytes",
                    limit: MAX_ID_BYTES,
                    got: s.len(),
                })
            }
            _ => return Err(Error::schema(ID_KEY, "must be a non-empty string")),
        };
        let namespace = match obj.get(NAMESPACE_KEY) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(Error::schema(NAMESPACE_KEY, "must be a string")),
        };
        let mut text = DocTokens::default();
        let mut lens = vec![0; self.text.len()];
        let mut filters: Vec<FilterValue> = self
            .filters
            .iter()
            .map(|f| match f.kind {
                FilterKind::Keyword => FilterValue::Keywords(Vec::new()),
                FilterKind::Number | FilterKind::Date => FilterValue::Number(f64::NAN),
                FilterKind::Boolean => FilterValue::Boolean(None),
            })
            .collect();
        // Stored fields are written straight to JSON (no cloned map).
        let mut stored_json = Vec::with_capacity(128);
        stored_json.push(b'{');
        let mut write_pair = |key: &str, value: &Value| {
            if stored_json.len() > 1 {
                stored_json.push(b',');
            }
            // Serializing a str or a Value into a Vec cannot fail.
            let _ = serde_json::to_writer(&mut stored_json, key);
            stored_json.push(b':');
            let _ = serde_json::to_writer(&mut stored_json, value);
        };
        for (key, value) in obj {
            if key == ID_KEY || key == NAMESPACE_KEY {
                continue;
            }
            let field_ref = *self.by_name.get(key).ok_or_else(|| {
                Error::schema(
                    key,
                    "is not declared in the schema; add it to `fields` or drop it",
                )
            })?;
            if value.is_null() {
                continue;
            }
            match field_ref {
                FieldRef::Text(f) => {
                    let s = value
                        .as_str()
                        .ok_or_else(|| Error::schema(key, "text fields take a string"))?;
                    if s.len() > MAX_FIELD_BYTES {
                        return Err(Error::Limit {
                            what: "text field bytes",
                            limit: MAX_FIELD_BYTES,
                            got: s.len(),
                        });
                    }
                    lens[f] = text.analyze(&self.text[f].analyzer, f, s);
                }
                FieldRef::Filter(f) => filters[f] = filter_value(key, self.filters[f].kind, value)?,
                FieldRef::StoredOnly => {}
            }
            if self.stored.get(key).copied().unwrap_or(false) {
                write_pair(key, value);
            }
        }
        if let Some(ns) = obj.get(NAMESPACE_KEY).filter(|_| namespace.is_some()) {
            write_pair(NAMESPACE_KEY, ns);
        }
        stored_json.push(b'}');
        Ok(PreparedDoc {
            id,
            namespace,
            stored_json,
            text,
            lens,
            filters,
        })
    }
}

/// Number of distinct positions among `tokens` (which come ordered by
/// position).
pub fn field_length(tokens: &[Token]) -> u32 {
    let mut len = 0;
    let mut last = None;
    for t in tokens {
        if last != Some(t.position) {
            len += 1;
            last = Some(t.position);
        }
    }
    len
}

fn push_filter(filters: &mut Vec<FilterField>, name: &str, kind: FilterKind) -> FieldRef {
    filters.push(FilterField {
        name: name.to_string(),
        kind,
    });
    FieldRef::Filter(filters.len() - 1)
}

fn filter_value(field: &str, kind: FilterKind, value: &Value) -> Result<FilterValue> {
    match kind {
        FilterKind::Keyword => match value {
            Value::String(s) => Ok(FilterValue::Keywords(vec![s.clone()])),
            Value::Array(items) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .map(str::to_string)
                        .ok_or_else(|| Error::schema(field, "keyword arrays hold strings only"))
                })
                .collect::<Result<Vec<_>>>()
                .map(FilterValue::Keywords),
            _ => Err(Error::schema(
                field,
                "keyword fields take a string or an array of strings",
            )),
        },
        FilterKind::Number => value
            .as_f64()
            .filter(|n| n.is_finite())
            .map(FilterValue::Number)
            .ok_or_else(|| Error::schema(field, "number fields take a finite number")),
        FilterKind::Date => parse_date(value).map(FilterValue::Number).ok_or_else(|| {
            Error::schema(field, "dates are ISO-8601 strings or epoch milliseconds")
        }),
        FilterKind::Boolean => value
            .as_bool()
            .map(|b| FilterValue::Boolean(Some(b)))
            .ok_or_else(|| Error::schema(field, "boolean fields take true or false")),
    }
}

/// Epoch milliseconds from a number or an ISO-8601 / RFC 3339 string
/// (`2024-05-01`, `2024-05-01T12:30:00Z`, `...T12:30:00.250+02:00`).
pub fn parse_date(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64().filter(|n| n.is_finite()),
        Value::String(s) => parse_iso8601(s),
        _ => None,
    }
}

fn parse_iso8601(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(range)?;
        if part.bytes().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            part.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut ms = 0i64;
    let mut offset_min = 0i64;
    if b.len() > 10 {
        if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
            return None;
        }
        let (h, m) = (num(11..13)?, num(14..16)?);
        let mut i = 16;
        let mut sec = 0;
        if b.get(i) == Some(&b':') {
            sec = num(17..19)?;
            i = 19;
            if b.get(i) == Some(&b'.') {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                let frac = s.get(start..end.min(start + 3))?;
                let digits = frac.len() as u32;
                ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - digits);
                i = end;
            }
        }
        if h > 23 || m > 59 || sec > 60 {
            return None;
        }
        ms += (h * 3600 + m * 60 + sec) * 1000;
        match b.get(i) {
            None => {}
            Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
            Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
                let off = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
                offset_min = if sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
    }
    let days = days_from_civil(year, month, day);
    Some((days * 86_400_000 + ms - offset_min * 60_000) as f64)
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_dates() {
        assert_eq!(parse_date(&json!("1970-01-01")), Some(0.0));
        assert_eq!(
            parse_date(&json!("2000-03-01T00:00:00Z")),
            Some(951_868_800_000.0)
        );
        assert_eq!(
            parse_date(&json!("2000-03-01T02:00:00.5+02:00")),
            Some(951_868_800_500.0)
        );
        assert_eq!(parse_date(&json!(12.0)), Some(12.0));
        assert_eq!(parse_date(&json!("2000-13-01")), None);
        assert_eq!(parse_date(&json!("yesterday")), None);
        assert_eq!(parse_date(&json!("2000-01-01T10")), None);
    }
}
