//! The index: documents in, search results out.
//!
//! TEMPORARY naive implementation (linear scan, BM25F computed per query) that
//! fixes the public API; replaced by the segmented inverted index.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::analysis::Analyzer;
use crate::error::{Error, Result};
use crate::query::options::{Hit, Mode, SearchOptions, SearchResults};
use crate::schema::{FieldDef, IndexConfig, ID_KEY, NAMESPACE_KEY};

/// Index-wide statistics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub documents: usize,
    pub terms: usize,
    pub segments: usize,
    pub bytes: usize,
}

struct StoredDoc {
    id: String,
    namespace: Option<String>,
    fields: Map<String, Value>,
    /// Per text field: term -> frequency, and the field length.
    terms: Vec<(HashMap<String, u32>, u32)>,
}

/// A searchable collection of documents.
pub struct Index {
    config: IndexConfig,
    analyzer: Analyzer,
    text_fields: Vec<(String, f32)>,
    docs: Vec<StoredDoc>,
}

impl Index {
    pub fn new(config: IndexConfig) -> Result<Index> {
        config.validate()?;
        let analyzer = Analyzer::new(&config.analyzer)?;
        let text_fields = config
            .fields
            .iter()
            .filter_map(|(n, d)| match d {
                FieldDef::Text { weight, .. } => Some((n.clone(), *weight)),
                _ => None,
            })
            .collect();
        Ok(Index {
            config,
            analyzer,
            text_fields,
            docs: Vec::new(),
        })
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Adds a document, replacing any document with the same id (upsert).
    pub fn add(&mut self, doc: &Value) -> Result<()> {
        let obj = doc
            .as_object()
            .ok_or_else(|| Error::schema("document", "must be an object"))?;
        let id = match obj.get(ID_KEY) {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            _ => return Err(Error::schema(ID_KEY, "must be a non-empty string")),
        };
        let namespace = match obj.get(NAMESPACE_KEY) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            _ => return Err(Error::schema(NAMESPACE_KEY, "must be a string")),
        };
        let mut fields = Map::new();
        for (k, v) in obj {
            if k == ID_KEY || k == NAMESPACE_KEY {
                continue;
            }
            if !self.config.fields.contains_key(k) {
                return Err(Error::schema(k, "is not declared in the schema"));
            }
            fields.insert(k.clone(), v.clone());
        }
        let mut terms = Vec::new();
        for (name, _) in &self.text_fields {
            let text = match fields.get(name) {
                None | Some(Value::Null) => "",
                Some(Value::String(s)) => s.as_str(),
                _ => return Err(Error::schema(name, "must be a string")),
            };
            let toks = self.analyzer.analyze(text);
            let mut tf = HashMap::new();
            for t in &toks {
                *tf.entry(t.term.clone()).or_insert(0) += 1;
            }
            terms.push((tf, toks.len() as u32));
        }
        self.delete(&id);
        self.docs.push(StoredDoc {
            id,
            namespace,
            fields,
            terms,
        });
        Ok(())
    }

    /// Deletes a document by id; returns whether it existed.
    pub fn delete(&mut self, id: &str) -> bool {
        let before = self.docs.len();
        self.docs.retain(|d| d.id != id);
        before != self.docs.len()
    }

    pub fn get(&self, id: &str) -> Option<Value> {
        self.docs.iter().find(|d| d.id == id).map(|d| {
            let mut m = d.fields.clone();
            m.insert(ID_KEY.into(), Value::String(d.id.clone()));
            if let Some(ns) = &d.namespace {
                m.insert(NAMESPACE_KEY.into(), Value::String(ns.clone()));
            }
            Value::Object(m)
        })
    }

    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<SearchResults> {
        let qterms: Vec<String> = self
            .analyzer
            .analyze(query)
            .into_iter()
            .map(|t| t.term)
            .collect();
        let k1 = opts.k1.unwrap_or(self.config.k1);
        let b = opts.b.unwrap_or(self.config.b);
        let n = self.docs.len() as f32;
        let mut hits = Vec::new();
        for d in &self.docs {
            let mut score = 0.0;
            let mut matched = Vec::new();
            for q in &qterms {
                let mut found = false;
                for (fi, (_, w)) in self.text_fields.iter().enumerate() {
                    let tf = *d.terms[fi].0.get(q).unwrap_or(&0) as f32;
                    if tf == 0.0 {
                        continue;
                    }
                    found = true;
                    let df = self.docs.iter().filter(|o| o.terms[fi].0.contains_key(q)).count() as f32;
                    let avg = self.docs.iter().map(|o| o.terms[fi].1 as f32).sum::<f32>() / n;
                    let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
                    let len = d.terms[fi].1 as f32;
                    score += w * idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg));
                }
                if found {
                    matched.push(q.clone());
                }
            }
            let all = matched.len() == qterms.len();
            if matched.is_empty() || (opts.mode == Mode::And && !all) {
                continue;
            }
            hits.push(Hit {
                id: d.id.clone(),
                score,
                namespace: d.namespace.clone(),
                fields: d.fields.clone(),
                matched_terms: matched,
                snippets: Default::default(),
                explanation: None,
            });
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id.cmp(&b.id)));
        let hits = hits.into_iter().skip(opts.offset).take(opts.limit).collect();
        Ok(SearchResults {
            hits,
            mode: if opts.mode == Mode::And { Mode::And } else { Mode::Or },
        })
    }

    pub fn stats(&self) -> Stats {
        Stats {
            documents: self.docs.len(),
            terms: 0,
            segments: 1,
            bytes: 0,
        }
    }
}
