//! Segments: the mutable [`SegmentWriter`] that absorbs writes, and the
//! immutable [`Segment`] it freezes into (term dictionary, postings, field
//! lengths, document store, filter columns).

use rustc_hash::FxHashMap as HashMap;

use crate::postings::{encoder::FieldRange, PostingsStore, TermInfo, TermPostingsEncoder};
use crate::store::{Column, DocStore, KeywordColumn};
use crate::termdict::TermDict;

use super::document::{FilterKind, FilterValue, PreparedDoc};

/// An immutable, searchable segment. Local doc ids are `0..n_docs`.
#[derive(Debug, Clone)]
pub struct Segment {
    pub n_docs: u32,
    pub n_fields: usize,
    pub terms: TermDict,
    pub term_infos: Vec<TermInfo>,
    pub postings: PostingsStore,
    /// `n_docs * n_fields`, doc-major.
    pub field_lens: Vec<u32>,
    pub docs: DocStore,
    pub namespaces: KeywordColumn,
    pub columns: Vec<Column>,
}

impl Segment {
    pub fn term(&self, term: &str) -> Option<TermInfo> {
        let ord = self.terms.get(term)?;
        self.term_infos.get(ord as usize).copied()
    }

    #[inline]
    pub fn field_len(&self, doc: u32, field: usize) -> u32 {
        self.field_lens
            .get(doc as usize * self.n_fields + field)
            .copied()
            .unwrap_or(0)
    }

    pub fn heap_bytes(&self) -> usize {
        self.terms.as_bytes().len()
            + self.term_infos.len() * std::mem::size_of::<TermInfo>()
            + self.postings.heap_bytes()
            + self.field_lens.len() * 4
            + self.docs.heap_bytes()
            + self.columns.iter().map(Column::heap_bytes).sum::<usize>()
    }

    /// Builds a segment from sorted, unique terms and per-doc data.
    pub(crate) fn assemble(
        parts: SegmentParts,
        sorted_terms: impl IntoIterator<Item = (String, TermPostingsEncoder)>,
    ) -> Segment {
        let mut postings = PostingsStore::new(parts.n_fields);
        let mut term_infos = Vec::new();
        let mut keys = Vec::new();
        for (term, encoder) in sorted_terms {
            if encoder.doc_freq() == 0 {
                continue;
            }
            term_infos.push(postings.append(&encoder));
            keys.push(term);
        }
        let terms = TermDict::from_sorted(keys.iter().enumerate().map(|(i, k)| (k, i as u64)));
        Segment {
            n_docs: parts.docs.len() as u32,
            n_fields: parts.n_fields,
            terms,
            term_infos,
            postings,
            field_lens: parts.field_lens,
            docs: parts.docs,
            namespaces: parts.namespaces,
            columns: parts.columns,
        }
    }
}

/// The per-document half of a segment, shared by the writer and by merges.
pub(crate) struct SegmentParts {
    pub n_fields: usize,
    pub field_lens: Vec<u32>,
    pub docs: DocStore,
    pub namespaces: KeywordColumn,
    pub columns: Vec<Column>,
}

impl SegmentParts {
    pub fn new(n_fields: usize, filter_kinds: &[FilterKind]) -> SegmentParts {
        SegmentParts {
            n_fields,
            field_lens: Vec::new(),
            docs: DocStore::new(),
            namespaces: KeywordColumn::default(),
            columns: filter_kinds
                .iter()
                .map(|k| match k {
                    FilterKind::Keyword => Column::Keyword(KeywordColumn::default()),
                    FilterKind::Number | FilterKind::Date => Column::Number(Vec::new()),
                    FilterKind::Boolean => Column::Boolean(Vec::new()),
                })
                .collect(),
        }
    }
}

/// The mutable in-memory segment.
pub struct SegmentWriter {
    parts: SegmentParts,
    term_ids: HashMap<String, u32>,
    encoders: Vec<TermPostingsEncoder>,
    /// (term id, field, position) of the document being added.
    scratch: Vec<(u32, u32, u32)>,
    positions: Vec<u32>,
    ranges: Vec<FieldRange>,
    heap_estimate: usize,
}

impl SegmentWriter {
    pub fn new(n_fields: usize, filter_kinds: &[FilterKind]) -> SegmentWriter {
        SegmentWriter {
            parts: SegmentParts::new(n_fields, filter_kinds),
            term_ids: HashMap::default(),
            encoders: Vec::new(),
            scratch: Vec::new(),
            positions: Vec::new(),
            ranges: Vec::new(),
            heap_estimate: 0,
        }
    }

    pub fn n_docs(&self) -> u32 {
        self.parts.docs.len() as u32
    }

    pub fn docs(&self) -> &DocStore {
        &self.parts.docs
    }

    /// Rough heap use, to decide when to flush a large buffer.
    pub fn heap_estimate(&self) -> usize {
        self.heap_estimate
    }

    /// Appends a document; returns its local doc id.
    pub fn add(&mut self, doc: &PreparedDoc) -> u32 {
        let local = self.n_docs();
        let n_fields = self.parts.n_fields;
        self.scratch.clear();
        for (field, tokens) in doc.text.iter().enumerate() {
            for token in tokens {
                let id = match self.term_ids.get(token.term.as_str()) {
                    Some(&id) => id,
                    None => {
                        let id = self.encoders.len() as u32;
                        self.term_ids.insert(token.term.clone(), id);
                        self.encoders.push(TermPostingsEncoder::new(n_fields));
                        self.heap_estimate += token.term.len() + 96;
                        id
                    }
                };
                self.scratch.push((id, field as u32, token.position));
            }
            self.parts.field_lens.push(doc.lens[field]);
        }
        self.scratch.sort_unstable();
        let lens_start = local as usize * n_fields;
        let field_lens = &self.parts.field_lens[lens_start..lens_start + n_fields];
        let mut i = 0;
        while i < self.scratch.len() {
            let term = self.scratch[i].0;
            self.positions.clear();
            self.ranges.clear();
            while i < self.scratch.len() && self.scratch[i].0 == term {
                let field = self.scratch[i].1;
                let start = self.positions.len();
                while i < self.scratch.len()
                    && self.scratch[i].0 == term
                    && self.scratch[i].1 == field
                {
                    self.positions.push(self.scratch[i].2);
                    i += 1;
                }
                self.ranges
                    .push((field as usize, start, self.positions.len()));
            }
            self.encoders[term as usize].push(local, &self.positions, &self.ranges, field_lens);
            self.heap_estimate += 4 + self.positions.len();
        }
        push_doc_data(
            &mut self.parts,
            local,
            &doc.id,
            &doc.stored_json,
            doc.namespace.as_deref(),
            &doc.filters,
        );
        self.heap_estimate += doc.stored_json.len() + doc.id.len() + 32;
        local
    }

    /// Freezes the buffer into an immutable segment.
    pub fn finish(self) -> Segment {
        let mut terms: Vec<(String, u32)> = self.term_ids.into_iter().collect();
        terms.sort_unstable();
        let mut encoders: Vec<Option<TermPostingsEncoder>> =
            self.encoders.into_iter().map(Some).collect();
        let sorted = terms
            .into_iter()
            .filter_map(move |(t, id)| encoders[id as usize].take().map(|e| (t, e)));
        Segment::assemble(self.parts, sorted)
    }
}

/// Appends the non-postings data of one document.
pub(crate) fn push_doc_data(
    parts: &mut SegmentParts,
    local: u32,
    id: &str,
    stored_json: &[u8],
    namespace: Option<&str>,
    filters: &[FilterValue],
) {
    parts.docs.push(id.to_string(), stored_json);
    if let Some(ns) = namespace {
        parts.namespaces.push(local, ns);
    }
    for (column, value) in parts.columns.iter_mut().zip(filters) {
        match (column, value) {
            (Column::Keyword(col), FilterValue::Keywords(values)) => {
                for v in values {
                    col.push(local, v);
                }
            }
            (Column::Number(col), FilterValue::Number(n)) => col.push(*n),
            (Column::Boolean(col), FilterValue::Boolean(b)) => col.push(match b {
                Some(false) => 0,
                Some(true) => 1,
                None => 2,
            }),
            // Kinds come from the same schema; a mismatch cannot happen.
            _ => {}
        }
    }
}
