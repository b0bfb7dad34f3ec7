//! From JSON documents to [`PreparedDoc`]: schema checks, analysis of text
//! fields, typed filter values, stored bytes. Every rejection names the field.

use std::borrow::Cow;

use crate::json::{self, RawPairs, ToJson, Value};

use crate::analysis::{Analyzer, Token, TokenRef};
use crate::error::{Error, Result};
use crate::schema::{
    parse_date, parse_iso8601, FieldRef, FilterKind, ResolvedSchema, ID_KEY, MAX_DATE_MS,
    NAMESPACE_KEY,
};

/// Longest accepted document id, in bytes.
pub const MAX_ID_BYTES: usize = 1024;
/// Largest accepted text field, in bytes.
pub const MAX_FIELD_BYTES: usize = 16 * 1024 * 1024;
/// Deepest nesting of arrays and objects in a document, the document
/// itself included (the JSON parser's limit).
pub const MAX_NESTING: usize = json::parse::MAX_DEPTH as usize - 1;

/// A document's JSON syntax error as memdex's error: nesting deeper than
/// [`MAX_NESTING`] is a documented limit (`LIMIT`, the code the JS layer
/// gives a document too deep for `JSON.stringify`), anything else is
/// `SCHEMA` on the document.
pub fn syntax_error(e: json::Error) -> Error {
    if e.reason() == json::parse::Reason::RecursionLimitExceeded {
        return Error::Limit {
            what: "document nesting depth (arrays and objects)",
            limit: MAX_NESTING,
            got: MAX_NESTING + 1,
        };
    }
    Error::schema("document", e.to_string())
}

/// A filter value of one document.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterValue {
    Keywords(Vec<String>),
    /// Numbers and dates (epoch ms); NaN when missing.
    Number(f64),
    Boolean(Option<bool>),
    /// `(type, to)` edges in document order.
    Links(Vec<(String, String)>),
}

/// One analyzed token of a document: its term is
/// `DocTokens::terms[start..end]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DocToken {
    pub field: u32,
    pub position: u32,
    pub start: u32,
    pub end: u32,
    /// The surface word (before stemming), if any, is
    /// `DocTokens::terms[end..surface_end]`.
    pub surface_end: u32,
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
        // Room for the usual output at once instead of doubling from empty
        // (term bytes ~ text bytes; a token per ~6 bytes of prose).
        self.terms.reserve(text.len() + 16);
        self.tokens.reserve(text.len() / 6 + 4);
        analyzer.analyze_each(text, false, |t: TokenRef<'_>| {
            if last != Some(t.position) {
                len += 1;
                last = Some(t.position);
            }
            let start = self.terms.len() as u32;
            self.terms.push_str(t.term);
            let end = self.terms.len() as u32;
            if let Some(word) = t.surface {
                self.terms.push_str(word);
            }
            self.tokens.push(DocToken {
                field: field as u32,
                position: t.position,
                start,
                end,
                surface_end: self.terms.len() as u32,
            });
        });
        len
    }

    pub fn term(&self, token: &DocToken) -> &str {
        &self.terms[token.start as usize..token.end as usize]
    }

    /// The token's word before stemming, if it was stemmed.
    pub fn surface(&self, token: &DocToken) -> Option<&str> {
        (token.surface_end > token.end)
            .then(|| &self.terms[token.end as usize..token.surface_end as usize])
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
    /// Per vector field: the document's vector (unit length on cosine
    /// fields), if it has one.
    pub vectors: Vec<Option<Vec<f32>>>,
}

impl ResolvedSchema {
    /// Validates and analyzes one JSON document.
    pub fn prepare(&self, doc: &Value) -> Result<PreparedDoc> {
        let obj = doc
            .as_object()
            .ok_or_else(|| not_an_object(&describe(doc)))?;
        let id = check_id(
            obj.get(ID_KEY).map(FieldValue::from).as_ref(),
            obj.keys().map(String::as_str),
        )?;
        let namespace = obj.get(NAMESPACE_KEY).map(FieldValue::from);
        check_namespace(namespace.as_ref()).map_err(|e| in_document(e, &id))?;
        let fields: Vec<(&str, FieldValue<'_>)> = obj
            .iter()
            .map(|(k, v)| (k.as_str(), FieldValue::from(v)))
            .collect();
        self.prepare_fields(id, namespace.as_ref(), &fields)
    }

    /// [`ResolvedSchema::prepare`] of one JSON object given as text, with
    /// the same result, the same stored bytes and the same errors, but
    /// without building a `Value` tree of the document: keys and string
    /// values are borrowed from `json` (strings without escapes are also
    /// copied to the stored JSON as they are, which is exactly what the
    /// writer would write). `pairs` is a reusable buffer. The outer `Err`
    /// is the JSON syntax error.
    pub fn prepare_json<'a>(
        &self,
        json: &'a str,
        pairs: &mut RawPairs<'a>,
    ) -> std::result::Result<Result<PreparedDoc>, crate::json::Error> {
        self.prepare_json_floats(json, pairs, &[])
    }

    /// [`ResolvedSchema::prepare_json`] of a document whose members also
    /// include `floats` (key, numbers): the `Float32Array` fields the JS
    /// layer sends beside the JSON text instead of in it. The result is
    /// the one of the JSON text holding them as number arrays.
    pub fn prepare_json_floats<'a>(
        &self,
        json: &'a str,
        pairs: &mut RawPairs<'a>,
        floats: &[(&str, &[f32])],
    ) -> std::result::Result<Result<PreparedDoc>, crate::json::Error> {
        pairs.0.clear();
        if !crate::json::object_members(json, &mut pairs.0)? {
            // Valid JSON but not an object: parsed again only to say what it is.
            let got = crate::json::parse(json).map_or_else(|e| e.to_string(), |v| describe(&v));
            return Ok(Err(not_an_object(&got)));
        }
        Ok(self.prepare_pairs(&mut pairs.0, floats))
    }

    /// [`ResolvedSchema::prepare_json`] of an object's validated members
    /// plus `floats` (see [`ResolvedSchema::prepare_json_floats`]).
    fn prepare_pairs(
        &self,
        pairs: &mut Vec<(Cow<'_, str>, &str)>,
        floats: &[(&str, &[f32])],
    ) -> Result<PreparedDoc> {
        sort_members(pairs);
        let mut values = Vec::with_capacity(pairs.len() + floats.len());
        for (key, raw) in pairs.iter() {
            let value = FieldValue::from_raw(raw)
                .ok_or_else(|| Error::schema(key.as_ref(), "is not valid JSON"))?;
            values.push((key.as_ref(), value));
        }
        for &(key, numbers) in floats {
            let value = match self.by_name.get(key) {
                Some(FieldRef::Vector(_)) => FieldValue::Floats(numbers),
                // Elsewhere they are the numbers JSON text would have held.
                _ => FieldValue::Other(Cow::Owned(js_numbers(numbers))),
            };
            // `values` is in key order (`sort_members`): the same order,
            // and so the same first error, as with the numbers in the text.
            match values.binary_search_by(|(k, _)| k.as_bytes().cmp(key.as_bytes())) {
                Ok(i) => values[i].1 = value,
                Err(i) => values.insert(i, (key, value)),
            }
        }
        let find = |key: &str| values.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        let id = check_id(find(ID_KEY), values.iter().map(|(k, _)| *k))?;
        let namespace = find(NAMESPACE_KEY);
        check_namespace(namespace).map_err(|e| in_document(e, &id))?;
        self.prepare_fields(id, namespace, &values)
    }

    /// The schema checks, analysis and stored JSON of a document's fields
    /// (`fields` in key order; `id` and `namespace` already checked).
    fn prepare_fields(
        &self,
        id: String,
        namespace_value: Option<&FieldValue<'_>>,
        fields: &[(&str, FieldValue<'_>)],
    ) -> Result<PreparedDoc> {
        let namespace = match namespace_value {
            Some(FieldValue::Str { text, .. }) => Some(text.to_string()),
            _ => None,
        };
        let mut text = DocTokens::default();
        let mut lens = vec![0; self.text.len()];
        let mut vectors = vec![None; self.vectors.len()];
        let mut filters: Vec<FilterValue> = self
            .filters
            .iter()
            .map(|f| match f.kind {
                FilterKind::Keyword => FilterValue::Keywords(Vec::new()),
                FilterKind::Number | FilterKind::Date => FilterValue::Number(f64::NAN),
                FilterKind::Boolean => FilterValue::Boolean(None),
                FilterKind::Links => FilterValue::Links(Vec::new()),
            })
            .collect();
        // Stored fields are written straight to JSON (no cloned map).
        let mut stored_json = String::with_capacity(128);
        stored_json.push('{');
        let mut write_pair = |key: &str, value: &FieldValue<'_>| {
            if stored_json.len() > 1 {
                stored_json.push(',');
            }
            json::write_string(key, &mut stored_json);
            stored_json.push(':');
            value.write_json(&mut stored_json);
        };
        // One field's checks and analysis; its errors name the document.
        let mut add_field = |key: &str, value: &FieldValue<'_>| -> Result<()> {
            let field_ref = *self.by_name.get(key).ok_or_else(|| {
                Error::schema(
                    key,
                    "is not declared in the schema; declare it when the index is created (e.g. `schema: { name: 'keyword' }`) or drop it",
                )
            })?;
            if matches!(value, FieldValue::Null) {
                return Ok(());
            }
            match field_ref {
                FieldRef::Text(f) => {
                    let FieldValue::Str { text: s, .. } = value else {
                        return Err(Error::schema(key, "text fields take a string"));
                    };
                    if s.len() > MAX_FIELD_BYTES {
                        return Err(Error::Limit {
                            what: "text field bytes",
                            limit: MAX_FIELD_BYTES,
                            got: s.len(),
                        });
                    }
                    lens[f] = text.analyze(&self.text[f].analyzer, f, s);
                }
                FieldRef::Filter(f) => {
                    let kind = self.filters[f].kind;
                    let parsed = match value {
                        FieldValue::Str { text: s, .. } => filter_value_str(key, kind, s),
                        FieldValue::Other(v) => filter_value(key, kind, v),
                        FieldValue::Null => unreachable!("null values are skipped"),
                        FieldValue::Floats(_) => unreachable!("floats are vector values"),
                    };
                    filters[f] = parsed?;
                }
                FieldRef::Vector(f) => {
                    vectors[f] = Some(self.vector_value(key, f, value)?);
                }
                FieldRef::StoredOnly => {}
            }
            let stored = match field_ref {
                FieldRef::Text(f) => self.text[f].stored,
                FieldRef::Filter(f) => self.filters[f].stored,
                FieldRef::Vector(_) => false,
                FieldRef::StoredOnly => true,
            };
            if stored {
                write_pair(key, value);
            }
            Ok(())
        };
        for &(key, ref value) in fields {
            if key == ID_KEY || key == NAMESPACE_KEY {
                continue;
            }
            add_field(key, value).map_err(|e| in_document(e, &id))?;
        }
        if let Some(ns) = namespace_value.filter(|_| namespace.is_some()) {
            write_pair(NAMESPACE_KEY, ns);
        }
        stored_json.push('}');
        Ok(PreparedDoc {
            id,
            namespace,
            stored_json: stored_json.into_bytes(),
            text,
            lens,
            filters,
            vectors,
        })
    }

    /// A vector field's value: `dims` finite numbers (an array, or the
    /// floats of a `Float32Array`), normalized on cosine fields.
    fn vector_value(&self, key: &str, f: usize, value: &FieldValue<'_>) -> Result<Vec<f32>> {
        let field = &self.vectors[f];
        let bad = |reason: String| Err(Error::schema(key, reason));
        let shape = "a vector field takes an array of numbers (or a Float32Array)";
        let len = match value {
            FieldValue::Floats(x) => x.len(),
            FieldValue::Other(v) => match v.as_ref() {
                Value::Array(items) => items.len(),
                _ => return bad(shape.into()),
            },
            _ => return bad(shape.into()),
        };
        if len != field.dims as usize {
            return bad(format!(
                "expected {} numbers (the field's dimensions), got {len}",
                field.dims,
            ));
        }
        let mut out = Vec::with_capacity(len);
        match value {
            // `+ 0.0` makes -0 the 0 that JSON text of it reads as.
            FieldValue::Floats(x) => out.extend(x.iter().map(|&x| x + 0.0)),
            FieldValue::Other(v) => {
                if let Value::Array(items) = v.as_ref() {
                    // A non-number is NaN here: rejected below like NaN.
                    out.extend(
                        items
                            .iter()
                            .map(|x| x.as_f64().map_or(f32::NAN, |x| x as f32)),
                    );
                }
            }
            _ => {}
        }
        if let Some(i) = out.iter().position(|x| !x.is_finite()) {
            return bad(format!("element {i} is not a finite 32-bit float"));
        }
        if field.metric == crate::vector::Metric::Cosine && !crate::vector::normalize(&mut out) {
            return bad("a cosine vector must not be all zeros".into());
        }
        Ok(out)
    }
}

/// A document's `id`: a non-empty string of at most [`MAX_ID_BYTES`].
/// `keys` (the document's keys) name a document that has none.
fn check_id<'k>(
    value: Option<&FieldValue<'_>>,
    keys: impl Iterator<Item = &'k str>,
) -> Result<String> {
    match value {
        Some(FieldValue::Str { text, .. }) if !text.is_empty() && text.len() <= MAX_ID_BYTES => {
            Ok(text.to_string())
        }
        Some(FieldValue::Str { text, .. }) if text.len() > MAX_ID_BYTES => Err(Error::Limit {
            what: "document id bytes",
            limit: MAX_ID_BYTES,
            got: text.len(),
        }),
        None | Some(FieldValue::Null) => {
            let keys: Vec<&str> = keys.filter(|k| *k != ID_KEY).take(6).collect();
            Err(Error::schema(
                ID_KEY,
                format!(
                    "is missing in the document {{{}}}: every document needs a non-empty string `id`",
                    keys.join(", ")
                ),
            ))
        }
        Some(FieldValue::Str { .. }) => Err(Error::schema(
            ID_KEY,
            "must be a non-empty string, got the empty string",
        )),
        Some(FieldValue::Other(v)) => Err(Error::schema(
            ID_KEY,
            format!("must be a non-empty string, got {}", describe(v)),
        )),
        // `id` is never a vector field.
        Some(FieldValue::Floats(_)) => unreachable!("floats are vector values"),
    }
}

/// A document's `namespace`: absent, null or a string.
fn check_namespace(value: Option<&FieldValue<'_>>) -> Result<()> {
    match value {
        None | Some(FieldValue::Null) | Some(FieldValue::Str { .. }) => Ok(()),
        Some(FieldValue::Other(v)) => Err(Error::schema(
            NAMESPACE_KEY,
            format!("must be a string, got {}", describe(v)),
        )),
        Some(FieldValue::Floats(_)) => unreachable!("floats are vector values"),
    }
}

fn not_an_object(got: &str) -> Error {
    Error::schema(
        "document",
        format!("must be a JSON object like {{\"id\": \"m1\", \"text\": \"...\"}}, got {got}"),
    )
}

/// A schema error of a document's field, naming the document by its id
/// (the one place that does: a bad link or vector is often found far from
/// where it was written).
fn in_document(error: Error, id: &str) -> Error {
    match error {
        Error::Schema { field, reason } => {
            let shown: String = id.chars().take(60).collect();
            let more = if shown.len() < id.len() { "…" } else { "" };
            Error::Schema {
                field,
                reason: format!("{reason} (document `{shown}{more}`)"),
            }
        }
        other => other,
    }
}

/// What a JSON value is, for messages: "an array", "an object", "a
/// string", or the value itself (`5`, `true`, `null`).
fn describe(value: &Value) -> String {
    match value {
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
        scalar => json::to_string(scalar),
    }
}

/// Members in key order, the last of equal keys kept: the order and the
/// duplicate rule of a parsed object ([`json::Map`]), which
/// [`ResolvedSchema::prepare`] walks.
fn sort_members(pairs: &mut Vec<(Cow<'_, str>, &str)>) {
    if pairs.len() > 32 {
        let keys: Vec<&[u8]> = pairs.iter().map(|(k, _)| k.as_bytes()).collect();
        let order = crate::sort::order_by_bytes(&keys);
        *pairs = crate::sort::permute(std::mem::take(pairs), &order);
    } else {
        // Insertion sort (stable): a handful of keys, no sort instance.
        for i in 1..pairs.len() {
            let mut j = i;
            while j > 0 && pairs[j - 1].0.as_bytes() > pairs[j].0.as_bytes() {
                pairs.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    if pairs.windows(2).any(|w| w[0].0 == w[1].0) {
        // Equal keys are adjacent in input order: keep the last of each run.
        let mut i = 0;
        while i + 1 < pairs.len() {
            if pairs[i].0 == pairs[i + 1].0 {
                pairs.remove(i);
            } else {
                i += 1;
            }
        }
    }
}

/// A field value as [`ResolvedSchema::prepare_fields`] sees it.
enum FieldValue<'a> {
    Null,
    /// A string; `literal` is its JSON text when that is exactly what
    /// the writer writes for it (no escapes).
    Str {
        text: Cow<'a, str>,
        literal: Option<&'a str>,
    },
    /// Any other value (never a string or null).
    Other(Cow<'a, Value>),
    /// The numbers of a vector field given as floats, not JSON text
    /// (never of another field: those get `Other` of the floats).
    Floats(&'a [f32]),
}

impl<'a> FieldValue<'a> {
    fn from(value: &'a Value) -> FieldValue<'a> {
        match value {
            Value::Null => FieldValue::Null,
            Value::String(s) => FieldValue::Str {
                text: Cow::Borrowed(s),
                literal: None,
            },
            other => FieldValue::Other(Cow::Borrowed(other)),
        }
    }

    /// From the validated JSON text of one value (`None` only if it is not
    /// valid after all).
    fn from_raw(raw: &'a str) -> Option<FieldValue<'a>> {
        let bytes = raw.as_bytes();
        match bytes.first()? {
            b'"' if bytes.contains(&b'\\') => Some(FieldValue::Str {
                text: json::string_literal(raw)?,
                literal: None,
            }),
            // No escapes: validation rejected control characters, so the
            // writer would write these very bytes.
            b'"' => Some(FieldValue::Str {
                text: Cow::Borrowed(raw.get(1..raw.len() - 1)?),
                literal: Some(raw),
            }),
            b'n' if raw == "null" => Some(FieldValue::Null),
            _ => Some(FieldValue::Other(Cow::Owned(json::parse(raw).ok()?))),
        }
    }

    fn write_json(&self, out: &mut String) {
        match self {
            FieldValue::Null => out.push_str("null"),
            FieldValue::Str {
                literal: Some(raw), ..
            } => out.push_str(raw),
            FieldValue::Str { text, .. } => json::write_string(text, out),
            FieldValue::Other(v) => v.write_json(out),
            // Vector fields are not stored.
            FieldValue::Floats(_) => unreachable!("floats are vector values"),
        }
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
        // A stored date must be one JS can represent (`new Date(ms)`), or
        // every answer holding it fails to render.
        FilterKind::Date => parse_date(value)
            .filter(|ms| ms.abs() <= MAX_DATE_MS)
            .map(FilterValue::Number)
            .ok_or_else(|| {
                Error::schema(
                    field,
                    "dates are ISO-8601 strings or epoch milliseconds within ±8.64e15 (the JS Date range)",
                )
            }),
        FilterKind::Boolean => value
            .as_bool()
            .map(|b| FilterValue::Boolean(Some(b)))
            .ok_or_else(|| Error::schema(field, "boolean fields take true or false")),
        FilterKind::Links => links_value(field, value),
    }
}

/// Longest accepted link list of one document.
pub const MAX_LINKS: usize = 1024;

/// A links field: an array of `{ type, to }` objects with non-empty
/// string `type` and `to` (no other keys).
fn links_value(field: &str, value: &Value) -> Result<FilterValue> {
    const SHAPE: &str =
        "links fields take an array of { type, to } objects (type and to non-empty strings)";
    let Value::Array(items) = value else {
        return Err(Error::schema(field, SHAPE));
    };
    if items.len() > MAX_LINKS {
        return Err(Error::Limit {
            what: "links per document",
            limit: MAX_LINKS,
            got: items.len(),
        });
    }
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Value::Object(m) = item else {
            return Err(Error::schema(field, SHAPE));
        };
        let text = |k: &str| match m.get(k) {
            Some(Value::String(s)) if !s.is_empty() && s.len() <= MAX_ID_BYTES => Some(s.clone()),
            _ => None,
        };
        match (text("type"), text("to"), m.len()) {
            (Some(t), Some(to), 2) => out.push((t, to)),
            _ => return Err(Error::schema(field, SHAPE)),
        }
    }
    Ok(FilterValue::Links(out))
}

/// [`filter_value`] of a JSON string.
fn filter_value_str(field: &str, kind: FilterKind, s: &str) -> Result<FilterValue> {
    match kind {
        FilterKind::Keyword => Ok(FilterValue::Keywords(vec![s.to_string()])),
        FilterKind::Number => Err(Error::schema(field, "number fields take a finite number")),
        FilterKind::Date => parse_iso8601(s).map(FilterValue::Number).ok_or_else(|| {
            Error::schema(field, "dates are ISO-8601 strings or epoch milliseconds")
        }),
        FilterKind::Boolean => Err(Error::schema(field, "boolean fields take true or false")),
        FilterKind::Links => links_value(field, &Value::String(s.to_string())),
    }
}

#[cfg(test)]
mod tests;

mod floats;
pub use floats::js_numbers;
