//! Loaded segments under an upgraded schema (see
//! [`IndexConfig::upgraded`](crate::schema::IndexConfig::upgraded)).
//!
//! Fields are numbered by name within their kind (text, filter, vector),
//! so a new field can shift the numbers of old ones. A segment written
//! under the old schema is re-laid under the new one: every document kept
//! at its local id (tombstones too), postings re-encoded with the new field
//! numbers (same terms, frequencies and positions: same scores), filter
//! and vector columns moved to their new places, new fields empty. The
//! re-laid segments have no committed record, so the next commit writes
//! them under the upgraded manifest; until then storage is untouched.

use crate::error::{Error, Result};
use crate::json::RawPairs;
use crate::postings::TermPostingsEncoder;
use crate::schema::{FieldDef, FilterKind, ResolvedSchema, SchemaRequest, ID_KEY, NAMESPACE_KEY};
use crate::store::{Column, KeywordColumn};
use crate::vector::Metric;

use super::segment::{Segment, SegmentParts};
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

/// Where each field of the old schema is in the new one, by kind.
pub(crate) struct FieldMoves {
    text: Vec<usize>,
    filters: Vec<usize>,
    vectors: Vec<usize>,
}

impl FieldMoves {
    /// The moves from `old` to `new` (which keeps every field of `old`), or
    /// `None` when segments of `old` are already laid out as `new` wants.
    pub(crate) fn between(old: &ResolvedSchema, new: &ResolvedSchema) -> Option<FieldMoves> {
        let place = |name: &str| -> usize {
            match new.by_name.get(name) {
                Some(crate::schema::FieldRef::Text(i))
                | Some(crate::schema::FieldRef::Filter(i))
                | Some(crate::schema::FieldRef::Vector(i)) => *i,
                _ => usize::MAX,
            }
        };
        let moves = FieldMoves {
            text: old.text.iter().map(|f| place(&f.name)).collect(),
            filters: old.filters.iter().map(|f| place(&f.name)).collect(),
            vectors: old.vectors.iter().map(|f| place(&f.name)).collect(),
        };
        let identity =
            |m: &[usize], n: usize| m.len() == n && m.iter().enumerate().all(|(i, &j)| i == j);
        let same = identity(&moves.text, new.text.len())
            && identity(&moves.filters, new.filters.len())
            && identity(&moves.vectors, new.vectors.len());
        (!same).then_some(moves)
    }
}

/// `seg` (written under the old schema) laid out as `new` wants.
pub(crate) fn relay_segment(seg: &Segment, moves: &FieldMoves, new: &ResolvedSchema) -> Segment {
    let n_fields = new.text.len();
    let n_docs = seg.n_docs as usize;
    let kinds: Vec<FilterKind> = new.filters.iter().map(|f| f.kind).collect();
    let mut parts = SegmentParts::new(n_fields, &kinds);
    parts.docs = seg.docs.clone();
    parts.namespaces = seg.namespaces.clone();
    parts.field_lens = vec![0; n_docs * n_fields];
    for doc in 0..seg.n_docs {
        for (old, &f) in moves.text.iter().enumerate() {
            parts.field_lens[doc as usize * n_fields + f] = seg.field_len(doc, old);
        }
    }
    for (column, kind) in parts.columns.iter_mut().zip(&kinds) {
        *column = match kind {
            FilterKind::Keyword => Column::Keyword(KeywordColumn::default()),
            FilterKind::Number | FilterKind::Date => Column::Number(vec![f64::NAN; n_docs]),
            FilterKind::Boolean => Column::Boolean(vec![2; n_docs]),
            FilterKind::Links => Column::Links(vec![Vec::new(); n_docs]),
        };
    }
    for (old, &f) in moves.filters.iter().enumerate() {
        if let (Some(source), Some(target)) = (seg.columns.get(old), parts.columns.get_mut(f)) {
            *target = source.clone();
        }
    }
    for (old, column) in seg.vectors.iter().enumerate() {
        let f = moves.vectors[old];
        if parts.vectors.len() <= f {
            parts.vectors.resize_with(f + 1, Default::default);
        }
        parts.vectors[f] = column.clone();
    }

    let mut terms = Vec::with_capacity(seg.term_infos.len());
    let mut cursor = seg.terms.iter();
    let (mut buf, mut ranges) = (Vec::new(), Vec::new());
    while cursor.advance().is_some() {
        let Some(&info) = seg.term_infos.get(cursor.ord() as usize) else {
            continue;
        };
        let mut encoder = TermPostingsEncoder::new(n_fields);
        let mut postings = seg.postings.cursor(info);
        while postings.doc() != crate::postings::TERMINATED {
            let doc = postings.doc();
            postings.read_positions(&mut buf, &mut ranges);
            for range in ranges.iter_mut() {
                range.0 = moves.text[range.0];
            }
            // At most 32 ranges: an insertion sort (no new slice-sort
            // instantiation in the wasm).
            for i in 1..ranges.len() {
                let mut j = i;
                while j > 0 && ranges[j - 1].0 > ranges[j].0 {
                    ranges.swap(j - 1, j);
                    j -= 1;
                }
            }
            let lens = doc as usize * n_fields;
            encoder.push(doc, &buf, &ranges, &parts.field_lens[lens..lens + n_fields]);
            postings.advance();
        }
        terms.push((String::from_utf8_lossy(cursor.term()).into_owned(), encoder));
    }
    let mut segment = Segment::assemble(parts, terms);
    // Every term is kept in order, so term ordinals (and the surface words
    // that point at them) are unchanged.
    segment.surfaces = seg.surfaces.clone();
    segment
}
