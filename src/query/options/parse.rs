//! Search options from JSON, by hand: the same inputs as a
//! `#[serde(default, deny_unknown_fields)]` derive, much less wasm.

use crate::json::Value;
use crate::jsonopt;
use crate::FieldMap;

use super::search::{
    HighlightOptions, Mode, SearchOptions, StoredSelection, Strategy, Syntax, FUZZY_AUTO,
};
use super::stages::{ExpandOptions, ProximityOptions, RecencyOptions, SortSpec};

const HIGHLIGHT_FIELDS: &[&str] = &["preTag", "postTag", "snippetLength"];
/// The JSON keys of the search options, in the order `index.d.ts` documents them.
pub const SEARCH_FIELDS: &[&str] = &[
    "mode",
    "syntax",
    "limit",
    "offset",
    "minHits",
    "fields",
    "filter",
    "prefix",
    "fuzzy",
    "highlight",
    "explain",
    "k1",
    "b",
    "storedFields",
    "sort",
    "vector",
    "vectorField",
    "hybrid",
    "proximity",
    "strategy",
    "expand",
    "recency",
    "diversity",
    "dedupe",
    "trackTotal",
];

impl HighlightOptions {
    /// Reads highlight options from JSON; `path` prefixes key names in errors.
    pub(crate) fn from_json(v: &Value, path: &str) -> jsonopt::Res<Self> {
        let mut o = HighlightOptions::default();
        for (k, v) in jsonopt::entries(v, path, HIGHLIGHT_FIELDS)? {
            match k {
                "preTag" => o.pre_tag = jsonopt::string(v, path, k)?,
                "postTag" => o.post_tag = jsonopt::string(v, path, k)?,
                _ => o.snippet_length = jsonopt::usize_(v, path, k)?,
            }
        }
        Ok(o)
    }
}

impl SearchOptions {
    /// Reads search options from JSON (camelCase keys, every key optional,
    /// unknown keys rejected); the error names the offending key.
    pub fn from_json(v: &Value) -> Result<Self, String> {
        let mut o = SearchOptions::default();
        for (k, v) in jsonopt::entries(v, "", SEARCH_FIELDS)? {
            match k {
                "mode" => {
                    o.mode = [Mode::Or, Mode::And, Mode::Fallback]
                        [jsonopt::variant(v, "", k, &["or", "and", "fallback"])?]
                }
                "syntax" => {
                    o.syntax = [Syntax::Lenient, Syntax::Strict]
                        [jsonopt::variant(v, "", k, &["lenient", "strict"])?]
                }
                "limit" => o.limit = jsonopt::usize_(v, "", k)?,
                "offset" => o.offset = jsonopt::usize_(v, "", k)?,
                "minHits" => o.min_hits = jsonopt::usize_(v, "", k)?,
                "fields" => {
                    o.fields = match jsonopt::opt(v) {
                        None => None,
                        Some(Value::Object(m)) => {
                            let mut fields = FieldMap::new();
                            for (name, w) in m {
                                fields.insert(name.clone(), jsonopt::f32_(w, k, name)?);
                            }
                            Some(fields)
                        }
                        Some(v) => return Err(jsonopt::invalid(k, "an object", v)),
                    }
                }
                "filter" => o.filter = jsonopt::opt(v).cloned(),
                "prefix" => o.prefix = jsonopt::boolean(v, "", k)?,
                "fuzzy" => {
                    o.fuzzy = match v {
                        Value::Bool(false) => 0,
                        Value::Bool(true) => FUZZY_AUTO,
                        Value::String(s) if s == "auto" => FUZZY_AUTO,
                        // Over 2 is refused when the search starts.
                        _ => jsonopt::uint(v, "", k, u8::MAX.into())?.min(3) as u8,
                    }
                }
                "highlight" => {
                    o.highlight = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(Value::Bool(true)) => Some(HighlightOptions::default()),
                        Some(v) => Some(HighlightOptions::from_json(v, k)?),
                    }
                }
                "explain" => o.explain = jsonopt::boolean(v, "", k)?,
                "storedFields" => {
                    o.stored_fields = match jsonopt::opt(v) {
                        None | Some(Value::Bool(true)) => StoredSelection::All,
                        Some(Value::Bool(false)) => StoredSelection::None,
                        Some(Value::Array(names)) => StoredSelection::Only(
                            names
                                .iter()
                                .map(|n| n.as_str().map(str::to_string))
                                .collect::<Option<Vec<_>>>()
                                .ok_or_else(|| jsonopt::invalid(k, "a list of field names", v))?,
                        ),
                        Some(v) => {
                            return Err(jsonopt::invalid(
                                k,
                                "true, false or a list of field names",
                                v,
                            ))
                        }
                    }
                }
                "vector" => {
                    o.vector = match jsonopt::opt(v) {
                        None => None,
                        Some(Value::Array(xs)) => Some(
                            xs.iter()
                                .map(|x| x.as_f64().map(|x| x as f32))
                                .collect::<Option<Vec<f32>>>()
                                .ok_or_else(|| {
                                    jsonopt::invalid(
                                        k,
                                        "an array of numbers (or a Float32Array)",
                                        v,
                                    )
                                })?,
                        ),
                        Some(v) => {
                            return Err(jsonopt::invalid(
                                k,
                                "an array of numbers (or a Float32Array)",
                                v,
                            ))
                        }
                    }
                }
                "vectorField" => {
                    o.vector_field = jsonopt::opt(v)
                        .map(|v| jsonopt::string(v, "", k))
                        .transpose()?
                }
                "hybrid" => {
                    o.hybrid = jsonopt::opt(v)
                        .map(crate::vector::fusion::HybridOptions::from_json)
                        .transpose()?
                }
                "proximity" => o.proximity = ProximityOptions::from_json(v)?,
                "strategy" => {
                    o.strategy = [Strategy::None, Strategy::Auto]
                        [jsonopt::variant(v, "", k, &["none", "auto"])?]
                }
                "sort" => o.sort = jsonopt::opt(v).map(SortSpec::from_json).transpose()?,
                "expand" => {
                    o.expand = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(v) => Some(ExpandOptions::from_json(v, k)?),
                    }
                }
                "recency" => {
                    o.recency = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(v) => Some(RecencyOptions::from_json(v, k)?),
                    }
                }
                "diversity" => {
                    o.diversity = match jsonopt::opt(v) {
                        None | Some(Value::Bool(false)) => None,
                        Some(Value::Bool(true)) => Some(0.7),
                        Some(Value::Number(_)) => Some(jsonopt::f32_(v, "", k)?),
                        Some(v) => {
                            let mut lambda = 0.7;
                            for (name, x) in jsonopt::entries(v, k, &["lambda"])? {
                                lambda = jsonopt::f32_(x, k, name)?;
                            }
                            Some(lambda)
                        }
                    };
                    if o.diversity.is_some_and(|l| !(0.0..=1.0).contains(&l)) {
                        return Err("`diversity.lambda` must be between 0 and 1".into());
                    }
                }
                "dedupe" => o.dedupe = jsonopt::boolean(v, "", k)?,
                "trackTotal" => {
                    o.track_total = match v {
                        Value::Bool(true) => usize::MAX,
                        Value::Bool(false) => 0,
                        _ => jsonopt::usize_(v, "", k)?,
                    }
                }
                "k1" => {
                    o.k1 = jsonopt::opt(v)
                        .map(|v| jsonopt::f32_(v, "", k))
                        .transpose()?
                }
                _ => {
                    o.b = jsonopt::opt(v)
                        .map(|v| jsonopt::f32_(v, "", k))
                        .transpose()?
                }
            }
        }
        Ok(o)
    }
}
