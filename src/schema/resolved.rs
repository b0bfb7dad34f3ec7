//! The schema resolved into field numbers and analyzers: what the index
//! and the query side read a field as.

use rustc_hash::FxHashMap as HashMap;

use crate::analysis::{Analyzer, AnalyzerOptions};
use crate::error::{Error, Result};

use super::{FieldDef, IndexConfig};

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
