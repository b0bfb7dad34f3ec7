//! Loaded segments under an upgraded schema (see
//! [`IndexConfig::upgraded`](crate::schema::IndexConfig::upgraded)).
//!
//! Fields are numbered by name within their kind (text, filter, vector),
//! so a new field can shift the numbers of old ones. A segment written
//! under the old schema is re-laid under the new one (a merge of that one
//! segment with its fields moved): every document kept at its local id
//! (tombstones too), postings re-encoded with the new field numbers (same
//! terms, frequencies and positions: same scores), filter and vector
//! columns moved to their new places, new fields empty. The
//! re-laid segments have no committed record, so the next commit writes
//! them under the upgraded manifest; until then storage is untouched.

use crate::error::{Error, Result};
use crate::json::RawPairs;
use crate::schema::{FieldDef, FilterKind, ResolvedSchema, SchemaRequest, ID_KEY, NAMESPACE_KEY};
use crate::vector::Metric;

use super::deletes::DeleteSet;
use super::merge::{merge_moved, FieldMoves};
use super::segment::Segment;
use super::Index;

impl Index {
    /// A new index with the configuration `request` asks of a rebuild
    /// ([`IndexConfig::migrated`](crate::schema::IndexConfig::migrated)),
    /// holding every live document of this one re-added from its stored
    /// form, in their order here (fields the new schema lacks are dropped).
    /// Vectors are copied bit for bit from fields of the same name and
    /// dimensions (normalized when a `dot` field becomes `cosine`); a field
    /// whose dimensions changed starts empty (re-embed). A field the new
    /// schema keeps that this one does not store (`stored: false`) cannot
    /// be carried: `SCHEMA`. Nothing is committed; new segments are
    /// numbered after this index's.
    pub fn rebuilt(&mut self, request: &SchemaRequest) -> Result<Index> {
        let config = self.config().migrated(request)?;
        for (name, def) in &self.config().fields {
            if !def.is_stored()
                && !matches!(def, FieldDef::Vector { .. })
                && config.fields.get(name).is_some()
            {
                return Err(Error::schema(
                    name,
                    "is not stored (`stored: false`), so a rebuild cannot carry its values; leave it out of the new schema (`defaultSchema: false`) or re-add the documents yourself",
                ));
            }
        }
        let mut out = Index::new(config)?;
        out.next_segment_id = self.next_segment_id;
        // Per vector field of `out`: the one of this index it copies.
        let sources: Vec<Option<usize>> = out
            .schema
            .vectors
            .iter()
            .map(|f| {
                let i = self.schema.vectors.iter().position(|o| o.name == f.name)?;
                (self.schema.vectors[i].dims == f.dims).then_some(i)
            })
            .collect();
        self.flush();
        let searcher = self.snapshot();
        for entry in &self.segments {
            for doc in (0..entry.segment.n_docs).filter(|&d| !entry.deletes.contains(d)) {
                let id = entry.segment.docs.id(doc);
                let Some(stored) = searcher.get_json(id) else {
                    continue;
                };
                let mut kept = RawPairs::default();
                kept.read(&stored);
                let mut json = String::from("{");
                for (key, raw) in kept.pairs() {
                    if key == ID_KEY
                        || key == NAMESPACE_KEY
                        || out.config().fields.get(key).is_some()
                    {
                        if json.len() > 1 {
                            json.push(',');
                        }
                        crate::json::write_string(key, &mut json);
                        json.push(':');
                        json.push_str(raw);
                    }
                }
                json.push('}');
                let mut prepared = match out.schema.prepare_json(&json, &mut RawPairs::default()) {
                    Ok(prepared) => prepared?,
                    Err(e) => {
                        return Err(Error::Corrupt {
                            key: id.to_string(),
                            reason: format!("the stored document does not parse: {e}"),
                        })
                    }
                };
                for (j, source) in sources.iter().enumerate() {
                    let Some(v) = source.and_then(|i| entry.segment.vector(i, doc)) else {
                        continue;
                    };
                    let mut v = v.to_vec();
                    let normalize = out.schema.vectors[j].metric == Metric::Cosine
                        && source.is_some_and(|i| self.schema.vectors[i].metric != Metric::Cosine);
                    if normalize && !crate::vector::normalize(&mut v) {
                        continue;
                    }
                    prepared.vectors[j] = Some(v);
                }
                out.add_prepared(prepared);
            }
        }
        Ok(out)
    }
}

/// `seg` (written under the old schema) laid out as `new` wants: every
/// document at its local id (tombstones stay with the caller).
pub(crate) fn relay_segment(seg: &Segment, moves: &FieldMoves, new: &ResolvedSchema) -> Segment {
    let kinds: Vec<FilterKind> = new.filters.iter().map(|f| f.kind).collect();
    let none = DeleteSet::default();
    merge_moved(&[(seg, &none)], new.text.len(), &kinds, Some(moves))
}
