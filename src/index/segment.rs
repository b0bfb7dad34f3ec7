//! Segments: the mutable [`SegmentWriter`] that absorbs writes, and the
//! immutable [`Segment`] it freezes into (term dictionary, postings, field
//! lengths, document store, filter columns).

use rustc_hash::FxHashMap as HashMap;

use crate::codec::varint;
use crate::postings::{
    encoder::FieldRange, PostingsCursor, PostingsStore, TermInfo, TermPostingsEncoder,
};
use crate::store::{Column, DocStore, KeywordColumn};
use crate::termdict::{TermDict, TermDictBuilder};
use crate::vector::VectorColumn;

use super::document::{FilterValue, PreparedDoc};
use super::lengths::FieldLengths;
use super::surfaces::{SurfaceCollector, Surfaces};
use crate::schema::FilterKind;

/// An immutable, searchable segment. Local doc ids are `0..n_docs`.
#[derive(Debug, Clone)]
pub struct Segment {
    pub n_docs: u32,
    pub n_fields: usize,
    pub terms: TermDict,
    pub term_infos: Vec<TermInfo>,
    pub postings: PostingsStore,
    pub field_lens: FieldLengths,
    pub docs: DocStore,
    pub namespaces: KeywordColumn,
    pub columns: Vec<Column>,
    /// One per vector field of the schema, by [`FieldRef::Vector`] index
    /// (fewer when the last fields have no vectors in this segment: a
    /// missing column has no vectors).
    ///
    /// [`FieldRef::Vector`]: crate::schema::FieldRef::Vector
    pub vectors: Vec<VectorColumn>,
    /// Words as written -> their stems (empty in v2 segments).
    pub surfaces: Surfaces,
    /// Incoming links by target, built on first use (`expand`/`related`
    /// with direction `in` or `both`; src/query/agent.rs).
    pub incoming: std::sync::OnceLock<IncomingLinks>,
    /// Set when the segment was opened lazily: `terms`, `term_infos` and
    /// `postings` are empty (the shards fetched so far are held here, each
    /// whole), `surfaces` holds the surface words fetched so far, and term
    /// lookups go through the methods below, which ask for the rest.
    pub(crate) lazy: Option<std::sync::Arc<crate::index::lazy::LazyTerms>>,
}

/// A segment's link edges by target: `keys` (FxHash of the target id,
/// position in `edges`) sorted; `edges` (source doc, column, edge index).
#[derive(Debug, Clone, Default)]
pub struct IncomingLinks {
    pub keys: Vec<(u64, u32)>,
    pub edges: Vec<(u32, u32, u32)>,
}

impl Segment {
    /// The vector of local doc `doc` in vector field `field` (the
    /// [`FieldRef::Vector`](crate::schema::FieldRef::Vector) index), if
    /// it has one. Cosine fields hold unit vectors, so the cosine of two
    /// documents is [`crate::vector::dot`] of their vectors.
    pub fn vector(&self, field: usize, doc: u32) -> Option<&[f32]> {
        self.vectors.get(field)?.get(doc)
    }

    pub fn term(&self, term: &str) -> Option<TermInfo> {
        self.term_info(self.term_ord(term)?)
    }

    /// The table entry of the term of ordinal `ord` (found by the methods
    /// below).
    #[inline(never)]
    pub fn term_info(&self, ord: u64) -> Option<TermInfo> {
        match &self.lazy {
            Some(lazy) => lazy.info(ord),
            None => self.term_infos.get(usize::try_from(ord).ok()?).copied(),
        }
    }

    /// The postings a term's `info` reads, and `info` as they number its
    /// blocks (a lazy segment's terms are in their shards' postings).
    #[inline(never)]
    pub fn postings_of(&self, info: TermInfo) -> (&PostingsStore, TermInfo) {
        match &self.lazy {
            // Held while a search runs: a term found was in a held shard.
            Some(lazy) => lazy
                .postings(info)
                .unwrap_or((&self.postings, TermInfo::default())),
            None => (&self.postings, info),
        }
    }

    /// A cursor over the documents of the term of `info`.
    #[inline(never)]
    pub fn cursor(&self, info: TermInfo) -> PostingsCursor<'_> {
        let (postings, info) = self.postings_of(info);
        postings.cursor(info)
    }

    /// Ordinal of `term` (a lazy segment asks for its shard).
    pub fn term_ord(&self, term: &str) -> Option<u64> {
        match &self.lazy {
            Some(lazy) => lazy.term_ord(term),
            None => self.terms.get(term),
        }
    }

    /// Terms in the segment (a lazy segment: all of them, held or not).
    pub fn n_terms(&self) -> usize {
        self.lazy.as_ref().map_or(self.terms.len(), |l| l.n_terms())
    }

    /// Terms starting with `prefix` and their ordinals, in byte order, at
    /// most `limit` (a lazy segment asks for the shards that may hold
    /// them).
    pub fn prefix_terms(&self, prefix: &str, limit: usize) -> Vec<(String, u64)> {
        match &self.lazy {
            Some(lazy) => lazy.prefix(prefix, limit),
            None => self.terms.prefix(prefix, limit),
        }
    }

    /// [`TermDict::typos_bounded`] over the segment's terms (a lazy segment
    /// asks for the shards of the terms starting with `term`'s first or
    /// second letter).
    pub fn typo_terms(
        &self,
        term: &str,
        distance: u8,
        limit: usize,
        steps: &mut u64,
    ) -> Vec<(String, u64, u8)> {
        match &self.lazy {
            Some(lazy) => lazy.typos(term, distance, limit, steps),
            None => self.terms.typos_bounded(term, distance, limit, steps),
        }
    }

    /// Whether `surfaces` holds every word a typo walk of `word` reaches
    /// (those starting with its first or second letter; a lazy segment
    /// asks for their shards).
    pub fn has_typo_words(&self, word: &str) -> bool {
        // Every anchor is asked for (no short circuit): one round fetches all.
        let anchors = crate::termdict::typo_anchors(word);
        let held: Vec<bool> = anchors.iter().map(|a| self.has_surfaces(a)).collect();
        !held.contains(&false)
    }

    /// Whether `surfaces` holds every surface word starting with `prefix`
    /// (a lazy segment asks for their shards).
    pub fn has_surfaces(&self, prefix: &str) -> bool {
        self.lazy.as_ref().is_none_or(|l| l.want_surfaces(prefix))
    }

    /// Whether the term of ordinal `ord` can be read now (a lazy segment
    /// asks for its shard).
    pub fn holds_ord(&self, ord: u32) -> bool {
        self.lazy.as_ref().is_none_or(|l| l.holds_ord(ord))
    }

    /// The term of ordinal `stem` (surface words name their stems so).
    pub fn stem(&self, stem: u32) -> Option<String> {
        match &self.lazy {
            Some(lazy) => lazy.term_at(stem),
            None => self.terms.term_at(u64::from(stem)),
        }
    }

    #[inline]
    pub fn field_len(&self, doc: u32, field: usize) -> u32 {
        self.field_lens.get(doc, field)
    }

    pub fn heap_bytes(&self) -> usize {
        self.terms.as_bytes().len()
            + self.term_infos.len() * std::mem::size_of::<TermInfo>()
            + self.postings.heap_bytes()
            + self.field_lens.heap_bytes()
            + self.docs.heap_bytes()
            + self.columns.iter().map(Column::heap_bytes).sum::<usize>()
            + self
                .vectors
                .iter()
                .map(VectorColumn::heap_bytes)
                .sum::<usize>()
            + self.surfaces.heap_bytes()
    }

    /// Builds a segment from sorted, unique terms and per-doc data.
    pub(crate) fn assemble(
        parts: SegmentParts,
        sorted_terms: impl IntoIterator<Item = (String, TermPostingsEncoder)>,
    ) -> Segment {
        let mut terms = TermsAssembler::new(parts.n_fields);
        for (term, encoder) in sorted_terms {
            terms.push(&term, &encoder);
        }
        terms.finish(parts)
    }
}

/// Streams sorted terms and their postings into a segment's term dictionary
/// and postings store.
pub(crate) struct TermsAssembler {
    postings: PostingsStore,
    term_infos: Vec<TermInfo>,
    dict: TermDictBuilder,
}

impl TermsAssembler {
    pub fn new(n_fields: usize) -> TermsAssembler {
        TermsAssembler {
            postings: PostingsStore::new(n_fields),
            term_infos: Vec::new(),
            dict: TermDictBuilder::new(),
        }
    }

    /// Adds the next term (greater than the previous; others are left out,
    /// so ordinals stay ranks); empty postings are left out.
    pub fn push(&mut self, term: &str, encoder: &TermPostingsEncoder) {
        if encoder.doc_freq() > 0 && self.dict.insert(term).is_some() {
            self.term_infos.push(self.postings.append(encoder));
        }
    }

    pub fn finish(self, parts: SegmentParts) -> Segment {
        // A segment never grows again: the slack of its largest vectors
        // (up to half of each, from doubling) goes back to the allocator.
        let mut postings = self.postings;
        postings.bytes.shrink_to_fit();
        postings.positions.shrink_to_fit();
        postings.blocks.shrink_to_fit();
        postings.bounds.shrink_to_fit();
        let mut term_infos = self.term_infos;
        term_infos.shrink_to_fit();
        Segment {
            n_docs: parts.docs.len() as u32,
            n_fields: parts.n_fields,
            terms: self.dict.finish(),
            term_infos,
            postings,
            field_lens: FieldLengths::from_doc_major(&parts.field_lens, parts.n_fields),
            docs: parts.docs,
            namespaces: parts.namespaces,
            columns: parts.columns,
            vectors: parts.vectors,
            surfaces: Surfaces::default(),
            incoming: Default::default(),
            lazy: None,
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
    pub vectors: Vec<VectorColumn>,
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
                    FilterKind::Links => Column::Links(Default::default()),
                })
                .collect(),
            vectors: Vec::new(),
        }
    }

    /// Appends the vector of local doc `doc` to vector field `field`.
    pub fn push_vector(&mut self, field: usize, doc: u32, v: &[f32]) {
        if self.vectors.len() <= field {
            self.vectors.resize_with(field + 1, VectorColumn::default);
        }
        self.vectors[field].push(doc, v);
    }
}

/// Postings of one term while its segment is being written, re-encoded into
/// blocks at [`SegmentWriter::finish`]. Per document: `varint(doc delta)`,
/// `varint(field count)`, then per field `varint(field)`, `varint(tf)` and
/// `tf` varint position deltas. One small buffer per term instead of a
/// block encoder's four.
#[derive(Default)]
struct RawPostings {
    bytes: Vec<u8>,
    last_doc: u32,
}

/// The mutable in-memory segment.
pub struct SegmentWriter {
    parts: SegmentParts,
    term_ids: HashMap<Box<str>, u32>,
    postings: Vec<RawPostings>,
    /// `term id << 32 | field << 27 | position` of the document being
    /// added: sorting one u64 orders like the (term, field, position)
    /// tuple (fields < 32; positions < 2^24, one per byte of a field of at
    /// most 16 MiB) in a fraction of the comparisons' cost.
    scratch: Vec<u64>,
    surfaces: SurfaceCollector,
    heap_estimate: usize,
}

impl SegmentWriter {
    pub fn new(n_fields: usize, filter_kinds: &[FilterKind]) -> SegmentWriter {
        SegmentWriter {
            parts: SegmentParts::new(n_fields, filter_kinds),
            term_ids: HashMap::default(),
            postings: Vec::new(),
            scratch: Vec::new(),
            surfaces: SurfaceCollector::default(),
            heap_estimate: 0,
        }
    }

    pub fn n_docs(&self) -> u32 {
        self.parts.docs.len() as u32
    }

    pub fn docs(&self) -> &DocStore {
        &self.parts.docs
    }

    /// The buffered documents' vector columns, by vector field.
    pub fn vectors(&self) -> &[VectorColumn] {
        &self.parts.vectors
    }

    /// Rough heap use, to decide when to flush a large buffer.
    pub fn heap_estimate(&self) -> usize {
        self.heap_estimate
    }

    /// Appends a document; returns its local doc id.
    pub fn add(&mut self, doc: &PreparedDoc) -> u32 {
        let local = self.n_docs();
        self.scratch.clear();
        for token in &doc.text.tokens {
            let term = doc.text.term(token);
            let id = match self.term_ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = self.postings.len() as u32;
                    self.term_ids.insert(term.into(), id);
                    self.postings.push(RawPostings::default());
                    self.heap_estimate += term.len() + 96;
                    id
                }
            };
            if let Some(word) = doc.text.surface(token) {
                self.heap_estimate += self.surfaces.add(word, id, local);
            }
            debug_assert!(token.field < 32 && token.position < 1 << 27);
            self.scratch
                .push((id as u64) << 32 | (token.field as u64) << 27 | token.position as u64);
        }
        self.parts.field_lens.extend_from_slice(&doc.lens);
        self.scratch.sort_unstable();
        let mut i = 0;
        while i < self.scratch.len() {
            let term = (self.scratch[i] >> 32) as u32;
            let end = i + self.scratch[i..].partition_point(|&s| (s >> 32) as u32 == term);
            let raw = &mut self.postings[term as usize];
            varint::write_u32(&mut raw.bytes, local - raw.last_doc);
            raw.last_doc = local;
            let entries = &self.scratch[i..end];
            let field_of = |s: u64| (s >> 27) as u32 & 31;
            let n_fields = 1 + entries
                .windows(2)
                .filter(|w| field_of(w[0]) != field_of(w[1]))
                .count();
            varint::write_u32(&mut raw.bytes, n_fields as u32);
            let mut j = 0;
            while j < entries.len() {
                let field = field_of(entries[j]);
                let run = entries[j..].partition_point(|&s| field_of(s) == field);
                varint::write_u32(&mut raw.bytes, field);
                varint::write_u32(&mut raw.bytes, run as u32);
                let mut prev = 0;
                for &s in &entries[j..j + run] {
                    let p = s as u32 & ((1 << 27) - 1);
                    varint::write_u32(&mut raw.bytes, p - prev);
                    prev = p;
                }
                j += run;
            }
            self.heap_estimate += 4 + entries.len();
            i = end;
        }
        push_doc_data(
            &mut self.parts,
            local,
            &doc.id,
            &doc.stored_json,
            doc.namespace.as_deref(),
            &doc.filters,
        );
        for (f, v) in doc.vectors.iter().enumerate() {
            if let Some(v) = v {
                self.parts.push_vector(f, local, v);
                self.heap_estimate += v.len() * 4 + 4;
            }
        }
        self.heap_estimate += doc.stored_json.len() + doc.id.len() + 32;
        local
    }

    /// Freezes the buffer into an immutable segment: terms in byte order,
    /// each term's raw postings re-encoded through one reused encoder.
    pub fn finish(self) -> Segment {
        let n_fields = self.parts.n_fields;
        // Byte order by packed 7-byte chunks (crate::sort): integer compares
        // instead of memcmp (a byte loop in wasm), and no sort instantiation
        // of its own.
        let terms: Vec<(Box<str>, u32)> = self.term_ids.into_iter().collect();
        let bytes: Vec<&[u8]> = terms.iter().map(|t| t.0.as_bytes()).collect();
        let order = crate::sort::order_by_bytes(&bytes);
        let mut ords = vec![0u32; terms.len()];
        for (rank, &(_, i)) in order.iter().enumerate() {
            ords[terms[i as usize].1 as usize] = rank as u32;
        }
        let surfaces = self.surfaces.finish(&ords);
        let mut out = TermsAssembler::new(n_fields);
        let mut encoder = TermPostingsEncoder::new(n_fields);
        let mut positions = Vec::new();
        let mut ranges: Vec<FieldRange> = Vec::new();
        for &(_, i) in &order {
            let (term, id) = &terms[i as usize];
            encoder.clear();
            let raw = &self.postings[*id as usize].bytes;
            let mut pos = 0;
            let mut doc = 0;
            while pos < raw.len() {
                doc += varint::read_u32(raw, &mut pos);
                positions.clear();
                ranges.clear();
                for _ in 0..varint::read_u32(raw, &mut pos) {
                    let field = varint::read_u32(raw, &mut pos) as usize;
                    let tf = varint::read_u32(raw, &mut pos);
                    let start = positions.len();
                    let mut p = 0;
                    for _ in 0..tf {
                        p += varint::read_u32(raw, &mut pos);
                        positions.push(p);
                    }
                    ranges.push((field, start, positions.len()));
                }
                let lens_start = doc as usize * n_fields;
                let field_lens = &self.parts.field_lens[lens_start..lens_start + n_fields];
                encoder.push(doc, &positions, &ranges, field_lens);
            }
            out.push(term, &encoder);
        }
        let mut segment = out.finish(self.parts);
        segment.surfaces = surfaces;
        segment
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
            (Column::Links(col), FilterValue::Links(edges)) => col.push(edges.clone()),
            // Kinds come from the same schema; a mismatch cannot happen.
            _ => {}
        }
    }
}
