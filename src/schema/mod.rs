//! Index schema: which document fields exist, how they are analyzed, weighted,
//! filtered and stored. Declared once when an index is created.

mod dates;
mod resolved;
mod upgrade;

pub use dates::{parse_date, parse_iso8601, MAX_DATE_MS};
pub use resolved::{FieldRef, FilterField, FilterKind, ResolvedSchema, TextField, VectorField};
pub use upgrade::SchemaRequest;

use crate::json::{Object, ToJson, Value};

use crate::analysis::{AnalyzerOptions, Language};
use crate::error::{Error, Result};
use crate::jsonopt::{self, Res};
use crate::FieldMap;

/// Reserved document keys: the external id and the namespace.
pub const ID_KEY: &str = "id";
pub const NAMESPACE_KEY: &str = "namespace";

/// The type and options of one field.
///
/// Deserialized by hand ([`FieldDef::from_json`]), accepting what the
/// `#[serde(tag = "type", deny_unknown_fields)]` derive accepted.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldDef {
    /// Full-text field: analyzed, scored with BM25F.
    Text {
        weight: f32,
        /// Overrides the index language for this field.
        language: Option<Language>,
        stored: bool,
    },
    /// Exact string (or array of strings) for filters.
    Keyword {
        stored: bool,
    },
    /// Finite number for range filters.
    Number {
        stored: bool,
    },
    /// ISO-8601 string or epoch milliseconds, for range filters and recency.
    Date {
        stored: bool,
    },
    Boolean {
        stored: bool,
    },
    /// Stored, never indexed.
    Stored,
    /// Fixed-length float vector for vector and hybrid search (see
    /// [`crate::vector`]); never part of the stored JSON.
    Vector {
        dimensions: u32,
        metric: crate::vector::Metric,
        /// Score int8 codes and rerank the best in f32 (`quantize: 'int8'`).
        int8: bool,
    },
    /// Typed edges `[{ type, to }]` to other documents' ids: always stored,
    /// kept in a per-segment links column for `expand` and `related`.
    Links,
}

impl FieldDef {
    pub fn is_stored(&self) -> bool {
        match self {
            FieldDef::Text { stored, .. }
            | FieldDef::Keyword { stored }
            | FieldDef::Number { stored }
            | FieldDef::Date { stored }
            | FieldDef::Boolean { stored } => *stored,
            FieldDef::Stored | FieldDef::Links => true,
            FieldDef::Vector { .. } => false,
        }
    }
}

/// Index configuration: schema plus analysis and ranking defaults.
///
/// Deserialized by hand ([`IndexConfig::from_json`]): same inputs as a
/// `#[serde(default, deny_unknown_fields)]` derive, much less wasm.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexConfig {
    /// Default analyzer for text fields.
    pub analyzer: AnalyzerOptions,
    /// Field name -> definition. Ordered so that field ids are stable.
    pub fields: FieldMap<FieldDef>,
    /// BM25 term-frequency saturation.
    pub k1: f32,
    /// BM25 length normalization.
    pub b: f32,
}

impl Default for IndexConfig {
    /// The agent-memory schema: `title` and `text` (text), `kind` and
    /// `tags` (keyword), `timestamp` (date), `links` (typed edges
    /// `[{ type, to }]`, see [`FieldDef::Links`]; indexes created before
    /// format 3 declared it `stored` and keep that). Indexes keep the schema they
    /// were created with (it is in their manifest), so changing this default
    /// changes new indexes only; `tags` and `links` came after the others.
    fn default() -> Self {
        let mut fields = FieldMap::new();
        fields.insert(
            "title".to_string(),
            FieldDef::Text {
                weight: 2.0,
                language: None,
                stored: true,
            },
        );
        fields.insert(
            "text".to_string(),
            FieldDef::Text {
                weight: 1.0,
                language: None,
                stored: true,
            },
        );
        fields.insert("kind".to_string(), FieldDef::Keyword { stored: true });
        fields.insert("tags".to_string(), FieldDef::Keyword { stored: true });
        fields.insert("links".to_string(), FieldDef::Links);
        fields.insert("timestamp".to_string(), FieldDef::Date { stored: true });
        IndexConfig {
            analyzer: AnalyzerOptions::default(),
            fields,
            k1: 1.2,
            b: 0.75,
        }
    }
}

impl IndexConfig {
    /// Checks the configuration; every error names the field at fault.
    pub fn validate(&self) -> Result<()> {
        for (name, def) in &self.fields {
            if name == ID_KEY || name == NAMESPACE_KEY {
                return Err(Error::schema(name, "is reserved and cannot be declared"));
            }
            if name.is_empty() {
                return Err(Error::schema(name, "field names must not be empty"));
            }
            if let FieldDef::Vector { dimensions, .. } = def {
                if *dimensions == 0 || *dimensions > crate::vector::MAX_DIMENSIONS {
                    return Err(Error::schema(
                        name,
                        format!(
                            "dimensions must be between 1 and {}",
                            crate::vector::MAX_DIMENSIONS
                        ),
                    ));
                }
            }
            if let FieldDef::Text { weight, .. } = def {
                if !weight.is_finite() || *weight <= 0.0 {
                    return Err(Error::schema(name, "weight must be a positive number"));
                }
            }
        }
        if !self
            .fields
            .values()
            .any(|d| matches!(d, FieldDef::Text { .. }))
        {
            return Err(Error::schema(
                "",
                "declare at least one text field (type \"text\") in `schema`",
            ));
        }
        if !self.k1.is_finite() || self.k1 < 0.0 {
            return Err(Error::schema("k1", "must be a finite number >= 0"));
        }
        if !self.b.is_finite() || !(0.0..=1.0).contains(&self.b) {
            return Err(Error::schema("b", "must be between 0 and 1"));
        }
        Ok(())
    }
}

/// Language names as serialized by [`Language`] (checked by a test).
const LANGUAGES: &[(&str, Language)] = &[
    ("none", Language::None),
    ("arabic", Language::Arabic),
    ("danish", Language::Danish),
    ("dutch", Language::Dutch),
    ("english", Language::English),
    ("finnish", Language::Finnish),
    ("french", Language::French),
    ("german", Language::German),
    ("greek", Language::Greek),
    ("hungarian", Language::Hungarian),
    ("italian", Language::Italian),
    ("norwegian", Language::Norwegian),
    ("portuguese", Language::Portuguese),
    ("romanian", Language::Romanian),
    ("russian", Language::Russian),
    ("spanish", Language::Spanish),
    ("swedish", Language::Swedish),
    ("tamil", Language::Tamil),
    ("turkish", Language::Turkish),
];

fn language(v: &Value, path: &str, key: &str) -> Res<Language> {
    let names: Vec<&str> = LANGUAGES.iter().map(|(n, _)| *n).collect();
    Ok(LANGUAGES[jsonopt::variant(v, path, key, &names)?].1)
}

const ANALYZER_FIELDS: &[&str] = &[
    "language",
    "foldDiacritics",
    "defaultStopwords",
    "stopwords",
    "addStopwords",
    "removeStopwords",
];

/// [`AnalyzerOptions`] from JSON (what its serde derive accepts).
fn analyzer_options(v: &Value, path: &str) -> Res<AnalyzerOptions> {
    let mut o = AnalyzerOptions::default();
    for (k, v) in jsonopt::entries(v, path, ANALYZER_FIELDS)? {
        match k {
            "language" => o.language = language(v, path, k)?,
            "foldDiacritics" => o.fold_diacritics = jsonopt::boolean(v, path, k)?,
            "defaultStopwords" => o.default_stopwords = jsonopt::boolean(v, path, k)?,
            "stopwords" => {
                o.stopwords = match v {
                    Value::Null => None,
                    v => Some(jsonopt::strings(v, path, k)?),
                }
            }
            "addStopwords" => o.add_stopwords = jsonopt::strings(v, path, k)?,
            _ => o.remove_stopwords = jsonopt::strings(v, path, k)?,
        }
    }
    Ok(o)
}

const FIELD_TYPES: &[&str] = &[
    "text", "keyword", "number", "date", "boolean", "stored", "vector", "links",
];
const VECTOR_FIELDS: &[&str] = &["dimensions", "metric", "quantize"];
const TEXT_FIELDS: &[&str] = &["weight", "language", "stored"];
const STORED_FIELDS: &[&str] = &["stored"];

impl FieldDef {
    /// A field definition from JSON: `{"type": "text", ...}` (or the
    /// positional `["text", ...]`); `path` names it in errors.
    pub(crate) fn from_json(v: &Value, path: &str) -> Res<FieldDef> {
        /// The variant's own options.
        enum Rest<'a> {
            /// The object's members other than `type`.
            Members(&'a crate::json::Map),
            /// The array's tail.
            Tail(&'a [Value]),
        }
        let (tag, rest) = match v {
            // The shorthand `"keyword"`: the type with its default options.
            Value::String(_) => (v, Rest::Tail(&[])),
            Value::Object(m) => {
                let Some(tag) = m.get("type") else {
                    return Err(format!("missing field `{}`", jsonopt::join(path, "type")));
                };
                (tag, Rest::Members(m))
            }
            Value::Array(a) if !a.is_empty() => (&a[0], Rest::Tail(&a[1..])),
            other => {
                return Err(jsonopt::invalid(
                    path,
                    "a type name such as \"keyword\" or an object with a `type`",
                    other,
                ))
            }
        };
        if !tag.is_string() {
            return Err(jsonopt::invalid(
                &jsonopt::join(path, "type"),
                "a string",
                tag,
            ));
        }
        let kind = jsonopt::variant(tag, path, "type", FIELD_TYPES)?;
        let fields = match kind {
            0 => TEXT_FIELDS,
            // `stored` ignores extra keys of an object (as the derive did).
            5 if matches!(rest, Rest::Members(_)) => return Ok(FieldDef::Stored),
            5 => &[],
            6 => VECTOR_FIELDS,
            7 => &[],
            _ => STORED_FIELDS,
        };
        let entries = match rest {
            Rest::Members(m) => jsonopt::members(m, Some("type"), path, fields)?,
            Rest::Tail(a) => jsonopt::positional(a, path, fields)?,
        };
        let (mut weight, mut lang, mut stored) = (1.0, None, true);
        let (mut dimensions, mut metric, mut int8) = (None, crate::vector::Metric::Cosine, false);
        for (k, v) in entries {
            match k {
                "dimensions" => {
                    dimensions = Some(jsonopt::uint(v, path, k, u32::MAX.into())? as u32)
                }
                "metric" => {
                    metric = [crate::vector::Metric::Cosine, crate::vector::Metric::Dot]
                        [jsonopt::variant(v, path, k, &["cosine", "dot"])?]
                }
                "quantize" => int8 = jsonopt::variant(v, path, k, &["none", "int8"])? == 1,
                "weight" => weight = jsonopt::f32_(v, path, k)?,
                "language" if v.is_null() => lang = None,
                "language" => lang = Some(language(v, path, k)?),
                _ => stored = jsonopt::boolean(v, path, k)?,
            }
        }
        Ok(match kind {
            0 => FieldDef::Text {
                weight,
                language: lang,
                stored,
            },
            1 => FieldDef::Keyword { stored },
            2 => FieldDef::Number { stored },
            3 => FieldDef::Date { stored },
            4 => FieldDef::Boolean { stored },
            6 => FieldDef::Vector {
                dimensions: dimensions.ok_or_else(|| {
                    format!(
                        "missing field `{}` (the length of the field's vectors)",
                        jsonopt::join(path, "dimensions")
                    )
                })?,
                metric,
                int8,
            },
            7 => FieldDef::Links,
            _ => FieldDef::Stored,
        })
    }
}

const CONFIG_FIELDS: &[&str] = &["analyzer", "fields", "k1", "b", "schema", "defaultSchema"];

/// Field definitions keyed by name from a JSON object; `path` (`schema`)
/// names them in errors (`schema.tags.type`).
fn field_defs(v: &Value, path: &str) -> Res<Vec<(String, FieldDef)>> {
    let Value::Object(m) = v else {
        return Err(jsonopt::invalid(
            path,
            "an object mapping field names to types, like { tags: 'keyword' }",
            v,
        ));
    };
    let mut defs = Vec::with_capacity(m.len());
    for (name, def) in m {
        defs.push((
            name.clone(),
            FieldDef::from_json(def, &jsonopt::join(path, name))?,
        ));
    }
    Ok(defs)
}

impl IndexConfig {
    /// Reads a configuration from JSON (camelCase keys, every key optional,
    /// unknown keys rejected); the error names the offending key. Does not
    /// [`validate`](Self::validate).
    ///
    /// `fields` is the whole field list (what the manifest stores). The
    /// open option `schema` adds its fields to the default ones (replacing
    /// a default of the same name) unless `defaultSchema` is `false`, when
    /// it is the whole list too.
    pub fn from_json(v: &Value) -> std::result::Result<Self, String> {
        Self::from_json_as(v, None)
    }

    /// [`IndexConfig::from_json`], with `defaultSchema` overridden when
    /// `extend` is given (an index created before `schema` extended the
    /// defaults was opened with its whole schema: see `Engine::fromLoaded`).
    pub fn from_json_as(v: &Value, extend: Option<bool>) -> std::result::Result<Self, String> {
        let mut c = IndexConfig::default();
        let mut schema = None;
        let mut defaults = true;
        for (k, v) in jsonopt::entries(v, "", CONFIG_FIELDS)? {
            match k {
                "analyzer" => c.analyzer = analyzer_options(v, k)?,
                "fields" => c.fields = field_defs(v, k)?.into_iter().collect(),
                "schema" => schema = Some(field_defs(v, k)?),
                "defaultSchema" => defaults = jsonopt::boolean(v, "", k)?,
                "k1" => c.k1 = jsonopt::f32_(v, "", k)?,
                _ => c.b = jsonopt::f32_(v, "", k)?,
            }
        }
        if let Some(defs) = schema {
            if !extend.unwrap_or(defaults) {
                c.fields = FieldMap::new();
            }
            for (name, def) in defs {
                c.fields.insert(name, def);
            }
        } else if !defaults {
            return Err("`defaultSchema: false` needs a `schema` declaring the fields".into());
        }
        Ok(c)
    }

    /// Whether a configuration JSON extends the default fields (an open
    /// `schema` without `defaultSchema: false`).
    pub fn extends_defaults(v: &Value) -> bool {
        v.get("schema").is_some() && v.get("defaultSchema").and_then(Value::as_bool) != Some(false)
    }
}

impl AnalyzerOptions {
    /// Reads analyzer options from JSON (camelCase keys, every key optional,
    /// unknown keys rejected); the error names the offending key.
    pub fn from_json(v: &Value) -> std::result::Result<Self, String> {
        analyzer_options(v, "")
    }
}

impl Language {
    /// The lowercase name JSON uses (`"english"`).
    pub fn name(self) -> &'static str {
        LANGUAGES
            .iter()
            .find(|(_, l)| *l == self)
            .map_or("none", |(n, _)| n)
    }

    /// The language named `name` (as [`Language::name`] spells it).
    pub fn from_name(name: &str) -> Option<Language> {
        LANGUAGES.iter().find(|(n, _)| *n == name).map(|(_, l)| *l)
    }
}

// Written as the serde derives wrote them (the manifest holds the config:
// its bytes must not change).
impl ToJson for Language {
    fn write_json(&self, out: &mut String) {
        self.name().write_json(out);
    }
}

impl ToJson for AnalyzerOptions {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("language", &self.language)
            .field("foldDiacritics", &self.fold_diacritics)
            .field("defaultStopwords", &self.default_stopwords)
            .field("stopwords", &self.stopwords)
            .field("addStopwords", &self.add_stopwords)
            .field("removeStopwords", &self.remove_stopwords)
            .end();
    }
}

impl FieldDef {
    /// The `type` name of the definition, as the schema spells it.
    pub fn type_name(&self) -> &'static str {
        match self {
            FieldDef::Text { .. } => "text",
            FieldDef::Keyword { .. } => "keyword",
            FieldDef::Number { .. } => "number",
            FieldDef::Date { .. } => "date",
            FieldDef::Boolean { .. } => "boolean",
            FieldDef::Stored => "stored",
            FieldDef::Vector { .. } => "vector",
            FieldDef::Links => "links",
        }
    }
}

/// Internally tagged: `{"type":"text","weight":1.0,...}`.
impl ToJson for FieldDef {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.field("type", self.type_name());
        match self {
            FieldDef::Text {
                weight,
                language,
                stored,
            } => o
                .field("weight", weight)
                .field("language", language)
                .field("stored", stored),
            FieldDef::Keyword { stored }
            | FieldDef::Number { stored }
            | FieldDef::Date { stored }
            | FieldDef::Boolean { stored } => o.field("stored", stored),
            FieldDef::Vector {
                dimensions,
                metric,
                int8,
            } => o
                .field("dimensions", dimensions)
                .field("metric", metric.name())
                .field("quantize", if *int8 { "int8" } else { "none" }),
            FieldDef::Stored | FieldDef::Links => &mut o,
        }
        .end();
    }
}

impl ToJson for IndexConfig {
    fn write_json(&self, out: &mut String) {
        Object::new(out)
            .field("analyzer", &self.analyzer)
            .field("fields", &self.fields)
            .field("k1", &self.k1)
            .field("b", &self.b)
            .end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::tests::from_serde;
    use serde_json::json;

    #[test]
    fn language_names_round_trip() {
        for (name, lang) in LANGUAGES {
            assert_eq!(lang.name(), *name);
            assert_eq!(Language::from_name(name), Some(*lang));
            assert_eq!(lang.to_json(), format!("\"{name}\""));
        }
        assert_eq!(LANGUAGES.len(), 19);
    }

    /// The config as the serde derives wrote it (the manifest holds it).
    #[test]
    fn config_json_is_the_derived_form() {
        let mut c = IndexConfig::default();
        c.fields.insert(
            "f".into(),
            FieldDef::Text {
                weight: 0.3,
                language: Some(Language::French),
                stored: false,
            },
        );
        c.fields.insert("s".into(), FieldDef::Stored);
        c.fields
            .insert("n".into(), FieldDef::Number { stored: false });
        c.analyzer.stopwords = Some(vec!["a\"b".into()]);
        assert_eq!(
            c.to_json(),
            concat!(
                r#"{"analyzer":{"language":"english","foldDiacritics":true,"defaultStopwords":true,"#,
                r#""stopwords":["a\"b"],"addStopwords":[],"removeStopwords":[]},"fields":{"#,
                r#""f":{"type":"text","weight":0.3,"language":"french","stored":false},"#,
                r#""kind":{"type":"keyword","stored":true},"links":{"type":"links"},"#,
                r#""n":{"type":"number","stored":false},"#,
                r#""s":{"type":"stored"},"tags":{"type":"keyword","stored":true},"#,
                r#""text":{"type":"text","weight":1.0,"language":null,"stored":true},"#,
                r#""timestamp":{"type":"date","stored":true},"#,
                r#""title":{"type":"text","weight":2.0,"language":null,"stored":true}},"k1":1.2,"b":0.75}"#
            )
        );
        assert_eq!(
            IndexConfig::from_json(&crate::json::parse(&c.to_json()).unwrap()),
            Ok(c)
        );
    }

    #[test]
    fn field_defs_from_objects_and_arrays() {
        let read = |v: serde_json::Value| FieldDef::from_json(&from_serde(v), "fields.f");
        let text = FieldDef::Text {
            weight: 2.0,
            language: Some(Language::French),
            stored: false,
        };
        assert_eq!(
            read(json!({"stored": false, "type": "text", "weight": 2, "language": "french"})),
            Ok(text.clone())
        );
        assert_eq!(read(json!(["text", 2, "french", false])), Ok(text));
        assert_eq!(
            read(json!(["keyword"])),
            Ok(FieldDef::Keyword { stored: true })
        );
        assert_eq!(
            read(json!({"type": "date", "stored": false})),
            Ok(FieldDef::Date { stored: false })
        );
        assert_eq!(
            read(json!({"type": "stored", "x": 1})),
            Ok(FieldDef::Stored)
        );
        assert_eq!(
            read(json!({"weight": 1})).unwrap_err(),
            "missing field `fields.f.type`"
        );
        assert_eq!(
            read(json!({"type": 1})).unwrap_err(),
            "invalid type for `fields.f.type`: expected a string, got number `1`"
        );
        assert_eq!(
            read(json!({"type": "keyword", "weight": 1})).unwrap_err(),
            "unknown field `fields.f.weight`, expected one of `stored`"
        );
        assert_eq!(
            read(json!(["keyword", true, 1])).unwrap_err(),
            "`fields.f`: expected at most 1 elements, got 2"
        );
        assert_eq!(
            read(json!([])).unwrap_err(),
            "invalid type for `fields.f`: expected a type name such as \"keyword\" or an object with a `type`, got an array"
        );
        // Shorthands: every type by name, with its default options.
        assert_eq!(
            read(json!("keyword")),
            Ok(FieldDef::Keyword { stored: true })
        );
        assert_eq!(
            read(json!("boolean")),
            Ok(FieldDef::Boolean { stored: true })
        );
        assert_eq!(read(json!("stored")), Ok(FieldDef::Stored));
        assert_eq!(
            read(json!("text")),
            Ok(FieldDef::Text {
                weight: 1.0,
                language: None,
                stored: true
            })
        );
        assert_eq!(
            read(json!("keywords")).unwrap_err(),
            "invalid value for `fields.f.type`: unknown variant `keywords`, expected one of `text`, `keyword`, `number`, `date`, `boolean`, `stored`, `vector`, `links`"
        );
    }

    /// `schema` adds to the default fields; `defaultSchema: false` (or the
    /// old `fields`) is the whole list.
    #[test]
    fn schema_extends_the_defaults() {
        let read = |v: serde_json::Value| IndexConfig::from_json(&from_serde(v));
        let c =
            read(json!({"schema": {"priority": "number", "title": {"type": "text", "weight": 3}}}))
                .unwrap();
        let mut want = IndexConfig::default();
        want.fields
            .insert("priority".into(), FieldDef::Number { stored: true });
        want.fields.insert(
            "title".into(),
            FieldDef::Text {
                weight: 3.0,
                language: None,
                stored: true,
            },
        );
        assert_eq!(c, want);
        let own = read(json!({"schema": {"body": "text"}, "defaultSchema": false})).unwrap();
        assert_eq!(own.fields.keys().collect::<Vec<_>>(), ["body"]);
        assert_eq!(read(json!({"fields": {"body": "text"}})).unwrap(), own);
        // The other reading, for indexes opened with their whole schema.
        let v = from_serde(json!({"schema": {"body": "text"}}));
        assert!(IndexConfig::extends_defaults(&v));
        assert_eq!(IndexConfig::from_json_as(&v, Some(false)).unwrap(), own);
        assert_eq!(
            read(json!({"defaultSchema": false})).unwrap_err(),
            "`defaultSchema: false` needs a `schema` declaring the fields"
        );
        assert_eq!(
            read(json!({"schema": {"tags": "keywrd"}})).unwrap_err(),
            "invalid value for `schema.tags.type`: unknown variant `keywrd`, expected one of `text`, `keyword`, `number`, `date`, `boolean`, `stored`, `vector`, `links`"
        );
        assert_eq!(
            read(json!({"schema": ["text"]})).unwrap_err(),
            "invalid type for `schema`: expected an object mapping field names to types, like { tags: 'keyword' }, got an array"
        );
        let no_text = read(json!({"schema": {"n": "number"}, "defaultSchema": false})).unwrap();
        assert_eq!(
            no_text.validate().unwrap_err().to_string(),
            "schema error: declare at least one text field (type \"text\") in `schema`"
        );
    }
}
