//! Schema upgrades: the configuration an opener asks of a stored index,
//! and which of its changes apply in place.
//!
//! In place (documents keep what they had, no re-analysis): a new field of
//! any type, a text field's `weight`, a vector field's `quantize` (its int8
//! codes are derived from the stored floats), `k1` and `b`. Fields the
//! opener leaves out are kept (a schema never loses a field by omission).
//! Anything that changes how stored data was analyzed or encoded (the
//! analyzer, a field's language, type, `stored` flag, dimensions or metric)
//! is [`Error::SchemaChange`]: the index must be rebuilt (`migrate`).

use crate::analysis::AnalyzerOptions;
use crate::error::{Error, Result};
use crate::json::Value;

use super::{FieldDef, IndexConfig};

/// What an opener asks of a stored index's configuration: only the parts
/// it names (`None` / absent fields: keep the stored ones).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SchemaRequest {
    pub analyzer: Option<AnalyzerOptions>,
    pub k1: Option<f32>,
    pub b: Option<f32>,
    /// The fields the opener declares (added, or changed in place).
    pub fields: Vec<(String, FieldDef)>,
    /// `fields` is the whole field list (`defaultSchema: false`): a
    /// migration drops the fields it leaves out (an open keeps them).
    pub whole_fields: bool,
}

impl SchemaRequest {
    /// Asks for every part of `config` (its whole field list included).
    pub fn whole(config: &IndexConfig) -> SchemaRequest {
        SchemaRequest {
            analyzer: Some(config.analyzer.clone()),
            k1: Some(config.k1),
            b: Some(config.b),
            fields: config
                .fields
                .iter()
                .map(|(n, d)| (n.clone(), d.clone()))
                .collect(),
            whole_fields: true,
        }
    }

    /// The request of open options as JSON (what [`IndexConfig::from_json`]
    /// reads): the fields of `schema` (or `fields`), never the default
    /// fields `schema` extends (the stored index has its own), and the
    /// analyzer, `k1` and `b` when given.
    pub fn from_json(v: &Value) -> std::result::Result<SchemaRequest, String> {
        let c = IndexConfig::from_json_as(v, Some(false))?;
        let named = v.get("schema").is_some() || v.get("fields").is_some();
        Ok(SchemaRequest {
            analyzer: v.get("analyzer").is_some().then(|| c.analyzer.clone()),
            k1: v.get("k1").is_some().then_some(c.k1),
            b: v.get("b").is_some().then_some(c.b),
            fields: match named {
                true => c.fields.into_iter().collect(),
                false => Vec::new(),
            },
            whole_fields: v.get("fields").is_some()
                || (named && v.get("defaultSchema").and_then(Value::as_bool) == Some(false)),
        })
    }
}

impl IndexConfig {
    /// The configuration `request` turns this stored one into: `Ok(None)`
    /// when nothing changes, `Err` ([`Error::SchemaChange`]) for a change
    /// that cannot apply in place. Not validated (building an index from it
    /// is).
    pub fn upgraded(&self, request: &SchemaRequest) -> Result<Option<IndexConfig>> {
        if let Some(a) = &request.analyzer {
            if *a != self.analyzer {
                return Err(Error::SchemaChange {
                    field: String::new(),
                    change: "analyzer",
                    reason: analyzer_change(&self.analyzer, a),
                });
            }
        }
        let mut next = self.clone();
        next.k1 = request.k1.unwrap_or(self.k1);
        next.b = request.b.unwrap_or(self.b);
        for (name, def) in &request.fields {
            if let Some(old) = self.fields.get(name) {
                self.check_in_place(name, old, def)?;
            }
            next.fields.insert(name.clone(), def.clone());
        }
        // (Validated when the index is built from it.)
        Ok((next != *self).then_some(next))
    }

    /// The configuration of a rebuild of this index asked by `request`
    /// (any change: the documents are analyzed anew): the fields it
    /// declares replace or join the stored ones (all of them with
    /// `whole_fields`), its analyzer, `k1` and `b` replace the stored ones.
    pub fn migrated(&self, request: &SchemaRequest) -> Result<IndexConfig> {
        let mut next = self.clone();
        if request.whole_fields {
            next.fields = crate::FieldMap::new();
        }
        for (name, def) in &request.fields {
            next.fields.insert(name.clone(), def.clone());
        }
        next.analyzer = request.analyzer.clone().unwrap_or(next.analyzer);
        next.k1 = request.k1.unwrap_or(self.k1);
        next.b = request.b.unwrap_or(self.b);
        Ok(next) // validated when the index is built from it
    }

    /// `Ok` if field `name` may change from `old` to `new` in place.
    fn check_in_place(&self, name: &str, old: &FieldDef, new: &FieldDef) -> Result<()> {
        let lang = |l: &Option<crate::analysis::Language>| {
            l.unwrap_or(self.analyzer.language).name().to_string()
        };
        // (what changes, from, to): one message for every change.
        let change = match (old, new) {
            _ if std::mem::discriminant(old) != std::mem::discriminant(new) => {
                Some(("type", old.type_name().into(), new.type_name().into()))
            }
            (FieldDef::Text { language: l1, .. }, FieldDef::Text { language: l2, .. })
                if lang(l1) != lang(l2) =>
            {
                Some(("language", lang(l1), lang(l2)))
            }
            (
                FieldDef::Vector {
                    dimensions: d1,
                    metric: m1,
                    ..
                },
                FieldDef::Vector {
                    dimensions: d2,
                    metric: m2,
                    ..
                },
            ) if d1 != d2 || m1 != m2 => Some(match d1 != d2 {
                true => ("dimensions", d1.to_string(), d2.to_string()),
                false => ("metric", m1.name().into(), m2.name().into()),
            }),
            _ if old.is_stored() != new.is_stored() => Some((
                "stored",
                old.is_stored().to_string(),
                new.is_stored().to_string(),
            )),
            _ => None,
        };
        match change {
            None => Ok(()),
            Some((change, from, to)) => Err(Error::SchemaChange {
                field: name.to_string(),
                change,
                reason: format!("its {change} changes from {from} to {to}"),
            }),
        }
    }
}

/// What differs between the stored analyzer options and the given ones.
fn analyzer_change(old: &AnalyzerOptions, new: &AnalyzerOptions) -> String {
    if old.language != new.language {
        return format!(
            "the analyzer language changes from {} to {}",
            old.language.name(),
            new.language.name()
        );
    }
    let differs = [
        ("foldDiacritics", old.fold_diacritics != new.fold_diacritics),
        (
            "defaultStopwords",
            old.default_stopwords != new.default_stopwords,
        ),
        ("stopwords", old.stopwords != new.stopwords),
        ("addStopwords", old.add_stopwords != new.add_stopwords),
        (
            "removeStopwords",
            old.remove_stopwords != new.remove_stopwords,
        ),
    ];
    let names: Vec<&str> = differs.iter().filter(|d| d.1).map(|d| d.0).collect();
    format!("the analyzer options change ({})", names.join(", "))
}
