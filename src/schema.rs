//! Index schema: which document fields exist, how they are analyzed, weighted,
//! filtered and stored. Declared once when an index is created.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::{AnalyzerOptions, Language};
use crate::error::{Error, Result};

/// Reserved document keys: the external id and the namespace.
pub const ID_KEY: &str = "id";
pub const NAMESPACE_KEY: &str = "namespace";

/// The type and options of one field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum FieldDef {
    /// Full-text field: analyzed, scored with BM25F.
    Text {
        #[serde(default = "one")]
        weight: f32,
        /// Overrides the index language for this field.
        #[serde(default)]
        language: Option<Language>,
        #[serde(default = "yes")]
        stored: bool,
    },
    /// Exact string (or array of strings) for filters.
    Keyword {
        #[serde(default = "yes")]
        stored: bool,
    },
    /// Finite number for range filters.
    Number {
        #[serde(default = "yes")]
        stored: bool,
    },
    /// ISO-8601 string or epoch milliseconds, for range filters and recency.
    Date {
        #[serde(default = "yes")]
        stored: bool,
    },
    Boolean {
        #[serde(default = "yes")]
        stored: bool,
    },
    /// Stored, never indexed.
    Stored,
}

fn one() -> f32 {
    1.0
}
fn yes() -> bool {
    true
}

impl FieldDef {
    pub fn is_stored(&self) -> bool {
        match self {
            FieldDef::Text { stored, .. }
            | FieldDef::Keyword { stored }
            | FieldDef::Number { stored }
            | FieldDef::Date { stored }
            | FieldDef::Boolean { stored } => *stored,
            FieldDef::Stored => true,
        }
    }
}

/// Index configuration: schema plus analysis and ranking defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default, deny_unknown_fields)]
pub struct IndexConfig {
    /// Default analyzer for text fields.
    pub analyzer: AnalyzerOptions,
    /// Field name -> definition. Ordered so that field ids are stable.
    pub fields: BTreeMap<String, FieldDef>,
    /// BM25 term-frequency saturation.
    pub k1: f32,
    /// BM25 length normalization.
    pub b: f32,
}

impl Default for IndexConfig {
    /// The agent-memory schema: `title` and `text` (text), `kind` (keyword),
    /// `timestamp` (date).
    fn default() -> Self {
        let mut fields = BTreeMap::new();
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
            return Err(Error::schema("fields", "declare at least one text field"));
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
