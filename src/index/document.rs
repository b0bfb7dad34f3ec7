//! From JSON documents to [`PreparedDoc`]: schema checks, analysis of text
//! fields, typed filter values, stored bytes. Every rejection names the field.

use rustc_hash::FxHashMap as HashMap;

use std::borrow::Cow;

use crate::json::{self, RawPairs, ToJson, Value};

use crate::analysis::{Analyzer, AnalyzerOptions, Token, TokenRef};
use crate::error::{Error, Result};
use crate::schema::{FieldDef, IndexConfig, ID_KEY, NAMESPACE_KEY};

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

/// The kind of a filter field's column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterKind {
    Keyword,
    Number,
    Date,
    Boolean,
    /// Typed edges to other ids (never filtered; read by `expand`).
    Links,
}

/// A field as the index sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldRef {
    Text(usize),
    Filter(usize),
    /// A vector field: index into [`ResolvedSchema::vectors`].
    Vector(usize),
    StoredOnly,
}

pub struct TextField {
    pub name: String,
    pub weight: f32,
    pub analyzer: Analyzer,
    /// The first text field whose analyzer options equal this one's: fields
    /// of one group turn any text into the same tokens, so a query term is
    /// analyzed once per group, not once per field.
    pub analysis_group: usize,
    /// Whether the field's value is kept in the stored document.
    pub stored: bool,
}

pub struct FilterField {
    pub name: String,
    pub kind: FilterKind,
    /// Whether the field's value is kept in the stored document.
    pub stored: bool,
}

/// A vector field (see [`crate::vector`]).
pub struct VectorField {
    pub name: String,
    pub dims: u32,
    pub metric: crate::vector::Metric,
    pub int8: bool,
}

/// The schema resolved into field numbers and analyzers.
pub struct ResolvedSchema {
    pub text: Vec<TextField>,
    pub filters: Vec<FilterField>,
    pub vectors: Vec<VectorField>,
    pub by_name: HashMap<String, FieldRef>,
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
    pub fn new(config: &IndexConfig) -> Result<ResolvedSchema> {
        config.validate()?;
        let mut text: Vec<TextField> = Vec::new();
        let mut filters = Vec::new();
        let mut vectors = Vec::new();
        let mut text_options: Vec<AnalyzerOptions> = Vec::new();
        let mut by_name = HashMap::default();
        for (name, def) in &config.fields {
            let stored = def.is_stored();
            let field_ref = match def {
                FieldDef::Text {
                    weight, language, ..
                } => {
                    let options = AnalyzerOptions {
                        language: language.unwrap_or(config.analyzer.language),
                        ..config.analyzer.clone()
                    };
                    let mut analyzer = Analyzer::new(&options)?;
                    // Fields analyzed alike share one stem cache.
                    let analysis_group = text_options.iter().position(|o| *o == options);
                    if let Some(j) = analysis_group {
                        analyzer.share_stem_cache(&text[j].analyzer);
                    }
                    text_options.push(options);
                    text.push(TextField {
                        name: name.clone(),
                        weight: *weight,
                        analyzer,
                        analysis_group: analysis_group.unwrap_or(text.len()),
                        stored,
                    });
                    FieldRef::Text(text.len() - 1)
                }
                FieldDef::Keyword { .. } => {
                    push_filter(&mut filters, name, FilterKind::Keyword, stored)
                }
                FieldDef::Number { .. } => {
                    push_filter(&mut filters, name, FilterKind::Number, stored)
                }
                FieldDef::Date { .. } => push_filter(&mut filters, name, FilterKind::Date, stored),
                FieldDef::Boolean { .. } => {
                    push_filter(&mut filters, name, FilterKind::Boolean, stored)
                }
                FieldDef::Stored => FieldRef::StoredOnly,
                FieldDef::Vector {
                    dimensions,
                    metric,
                    int8,
                } => {
                    vectors.push(VectorField {
                        name: name.clone(),
                        dims: *dimensions,
                        metric: *metric,
                        int8: *int8,
                    });
                    FieldRef::Vector(vectors.len() - 1)
                }
                FieldDef::Links => push_filter(&mut filters, name, FilterKind::Links, stored),
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
            vectors,
            by_name,
        })
    }

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
        pairs.0.clear();
        if !crate::json::object_members(json, &mut pairs.0)? {
            // Valid JSON but not an object: parsed again only to say what it is.
            let got = crate::json::parse(json).map_or_else(|e| e.to_string(), |v| describe(&v));
            return Ok(Err(not_an_object(&got)));
        }
        Ok(self.prepare_pairs(&mut pairs.0))
    }

    /// [`ResolvedSchema::prepare_json`] of an object's validated members.
    fn prepare_pairs(&self, pairs: &mut Vec<(Cow<'_, str>, &str)>) -> Result<PreparedDoc> {
        sort_members(pairs);
        let mut values = Vec::with_capacity(pairs.len());
        for (key, raw) in pairs.iter() {
            let value = FieldValue::from_raw(raw)
                .ok_or_else(|| Error::schema(key.as_ref(), "is not valid JSON"))?;
            values.push((key.as_ref(), value));
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

    /// A vector field's value: `dims` finite numbers (an array; the JS
    /// layer turns a `Float32Array` into one), normalized on cosine fields.
    fn vector_value(&self, key: &str, f: usize, value: &FieldValue<'_>) -> Result<Vec<f32>> {
        let field = &self.vectors[f];
        let bad = |reason: String| Err(Error::schema(key, reason));
        let FieldValue::Other(v) = value else {
            return bad("a vector field takes an array of numbers (or a Float32Array)".into());
        };
        let Value::Array(items) = v.as_ref() else {
            return bad("a vector field takes an array of numbers (or a Float32Array)".into());
        };
        if items.len() != field.dims as usize {
            return bad(format!(
                "expected {} numbers (the field's dimensions), got {}",
                field.dims,
                items.len()
            ));
        }
        let mut out = Vec::with_capacity(items.len());
        for (i, x) in items.iter().enumerate() {
            match x.as_f64().map(|x| x as f32).filter(|x| x.is_finite()) {
                Some(x) => out.push(x),
                None => return bad(format!("element {i} is not a finite 32-bit float")),
            }
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

fn push_filter(
    filters: &mut Vec<FilterField>,
    name: &str,
    kind: FilterKind,
    stored: bool,
) -> FieldRef {
    filters.push(FilterField {
        name: name.to_string(),
        kind,
        stored,
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

/// Largest epoch-milliseconds magnitude a document's date may hold: JS
/// `Date`'s range (±100,000,000 days).
pub const MAX_DATE_MS: f64 = 8.64e15;

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
    use crate::json::tests::from_serde;
    use serde_json::json;

    /// Nesting past the parser's depth is `LIMIT` (it was `SCHEMA` on the
    /// document, while JS reported the same input as a `RangeError`).
    #[test]
    fn nesting_past_the_parser_depth_is_a_limit() {
        let mut config = IndexConfig::default();
        config.fields.insert("meta".into(), FieldDef::Stored);
        let mut index = crate::Index::new(config).unwrap();
        // The document is the first level: 126 arrays inside it make 127.
        let doc = |arrays: usize| {
            format!(
                r#"{{"id":"d{arrays}","meta":{}1{}}}"#,
                "[".repeat(arrays),
                "]".repeat(arrays)
            )
        };
        assert_eq!(index.add_json_lines(&doc(MAX_NESTING - 1)).unwrap(), 1);
        let limit = Error::Limit {
            what: "document nesting depth (arrays and objects)",
            limit: 127,
            got: 128,
        };
        let err = index.add_json_lines(&doc(MAX_NESTING)).unwrap_err();
        assert_eq!((err.added, err.error), (0, limit.clone()));
        assert_eq!(index.add_json(&doc(5000)).map_err(syntax_error), Err(limit));
        // Other syntax errors stay SCHEMA on the document.
        let err = index
            .add_json_lines(r#"{"id":"x","meta":[1,]}"#)
            .unwrap_err();
        assert_eq!(err.error.code(), "SCHEMA");
    }

    fn summary(r: std::result::Result<Result<PreparedDoc>, String>) -> String {
        match r {
            Ok(Ok(d)) => format!(
                "{:?} {:?} {} {:?} {:?} {:?}",
                d.id,
                d.namespace,
                String::from_utf8_lossy(&d.stored_json),
                d.text,
                d.lens,
                d.filters
            ),
            Ok(Err(e)) => format!("{} {}", e.code(), e),
            Err(e) => format!("syntax {e}"),
        }
    }

    /// The borrowed parse gives exactly the `Value` path's result: stored
    /// bytes, tokens, filters, errors.
    #[test]
    fn prepare_json_matches_value_path() {
        let mut config = IndexConfig::default();
        config
            .fields
            .insert("n".into(), crate::schema::FieldDef::Number { stored: true });
        config.fields.insert(
            "b".into(),
            crate::schema::FieldDef::Boolean { stored: false },
        );
        config
            .fields
            .insert("s".into(), crate::schema::FieldDef::Stored);
        let schema = ResolvedSchema::new(&config).unwrap();
        let deep = format!("{}1{}", "[".repeat(130), "]".repeat(130));
        let deep_ok = format!("{}1{}", "[".repeat(70), "]".repeat(70));
        let lines = [
            r#"{"id":"a","title":"Hello World","text":"Running fast","namespace":"ns1","kind":"npm","timestamp":"2023-03-01T00:00:00Z"}"#.to_string(),
            r#" { "text" : "spaced  out" , "id" : "b" } "#.to_string(),
            r#"{"id":"c","text":"tab\there \"quoted\" \u00e9t\u00E9 \/ slash","title":"caf\u00e9"}"#.to_string(),
            r#"{"id":"d","s":{"z":1,"a":[1.50,-0,1e3,true,null,"x\u0041"]},"n":1.0,"b":true}"#.to_string(),
            r#"{"id":"e","n":12345678901234567890123,"s":[1E400]}"#.to_string(),
            r#"{"id":"f","text":"dup","text":"second"}"#.to_string(),
            r#"{"\u0069d":"g","t\u0069tle":"escaped keys"}"#.to_string(),
            r#"{"id":"h","namespace":null,"kind":["a","b"],"timestamp":1700000000000}"#.to_string(),
            r#"{"id":"i","namespace":5}"#.to_string(),
            r#"{"id":"","text":"x"}"#.to_string(),
            r#"{"text":"no id"}"#.to_string(),
            r#"{"id":"j","unknown":1,"text":"x"}"#.to_string(),
            r#"{"id":"k","text":5}"#.to_string(),
            r#"{"id":"l","kind":[1]}"#.to_string(),
            r#"{"id":"m","timestamp":"yesterday"}"#.to_string(),
            r#"{"id":"n","n":"1"}"#.to_string(),
            r#"{"id":"o","b":"true"}"#.to_string(),
            r#"{"id":"p","text":"unterminated}"#.to_string(),
            r#"{"id":"q"} trailing"#.to_string(),
            r#"["id","r"]"#.to_string(),
            r#"{"id":"s","text":"lone \ud800 surrogate"}"#.to_string(),
            "{\"id\":\"t\",\"text\":\"raw\ttab\"}".to_string(),
            format!(r#"{{"id":"{}"}}"#, "x".repeat(MAX_ID_BYTES + 1)),
            format!(r#"{{"id":"u","s":{deep}}}"#),
            format!(r#"{{"id":"v","s":{deep_ok}}}"#),
            r#"{"id":"w","namespace":"a\"b","kind":"k\u00e9"}"#.to_string(),
            r#"{"id":"x","text":null,"title":"ok"}"#.to_string(),
            r#"{"id":"y","namespace":"ns","s":"stored only","title":"日本語のテキスト","text":"Ünïcödé"}"#.to_string(),
        ];
        for line in &lines {
            let mut pairs = RawPairs::default();
            let fast = schema
                .prepare_json(line, &mut pairs)
                .map_err(|e| e.to_string());
            // serde_json as the oracle of syntax errors and values.
            let slow = serde_json::from_str::<serde_json::Value>(line)
                .map(|v| schema.prepare(&from_serde(v)))
                .map_err(|e| e.to_string());
            assert_eq!(summary(fast), summary(slow), "{line}");
        }
    }

    /// Document errors say what was wrong, where, and in which document:
    /// the messages every surface shows (tests/js/contract.test.mjs).
    #[test]
    fn document_errors_name_the_field_the_document_and_what_it_got() {
        let schema = ResolvedSchema::new(&IndexConfig::default()).unwrap();
        let error = |line: &str| {
            let mut pairs = RawPairs::default();
            let fast = schema
                .prepare_json(line, &mut pairs)
                .unwrap()
                .err()
                .unwrap();
            let parsed = crate::json::parse(line).unwrap();
            assert_eq!(schema.prepare(&parsed).err().unwrap(), fast, "{line}");
            fast.to_string()
        };
        for (line, message) in [
            (r#"[1]"#, r#"schema error on field `document`: must be a JSON object like {"id": "m1", "text": "..."}, got an array"#),
            (r#"5"#, "got 5"),
            (r#"{"title":"t","text":"x"}"#, "schema error on field `id`: is missing in the document {text, title}: every document needs a non-empty string `id`"),
            (r#"{"id":5}"#, "schema error on field `id`: must be a non-empty string, got 5"),
            (r#"{"id":""}"#, "must be a non-empty string, got the empty string"),
            (r#"{"id":"d1","namespace":[]}"#, "schema error on field `namespace`: must be a string, got an array (document `d1`)"),
            (r#"{"id":"d2","text":5}"#, "schema error on field `text`: text fields take a string (document `d2`)"),
            (r#"{"id":"d3","kind":[1]}"#, "field `kind`: keyword arrays hold strings only (document `d3`)"),
            (r#"{"id":"d4","nope":1}"#, "field `nope`: is not declared in the schema"),
        ] {
            let got = error(line);
            assert!(got.contains(message), "{line}: {got}");
        }
        let long = format!(r#"{{"id":"{}","text":5}}"#, "x".repeat(100));
        assert!(error(&long).ends_with(&format!("(document `{}…`)", "x".repeat(60))));
    }

    #[test]
    fn parses_dates() {
        assert_eq!(parse_date(&from_serde(json!("1970-01-01"))), Some(0.0));
        assert_eq!(
            parse_date(&from_serde(json!("2000-03-01T00:00:00Z"))),
            Some(951_868_800_000.0)
        );
        assert_eq!(
            parse_date(&from_serde(json!("2000-03-01T02:00:00.5+02:00"))),
            Some(951_868_800_500.0)
        );
        assert_eq!(parse_date(&from_serde(json!(12.0))), Some(12.0));
        assert_eq!(parse_date(&from_serde(json!("2000-13-01"))), None);
        assert_eq!(parse_date(&from_serde(json!("yesterday"))), None);
        assert_eq!(parse_date(&from_serde(json!("2000-01-01T10"))), None);
    }
}
