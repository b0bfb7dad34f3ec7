//! The index: a log-structured set of segments.
//!
//! Writes go to a mutable [`SegmentWriter`]; [`Index::flush`] freezes it into
//! an immutable [`Segment`] and lets the [`merge policy`](Index::maybe_merge)
//! combine segments. Deletes are tombstones per segment; an upsert is a
//! delete plus an add. Index-wide statistics (live documents, total field
//! lengths) are maintained exactly on every write, so scores never depend on
//! how documents happen to be split into segments.

pub mod deletes;
pub mod document;
mod id_map;
pub mod lazy;
pub mod lengths;
pub mod load;
pub mod manifest;
pub mod merge;
pub mod persist;
pub mod recover;
pub mod segment;
pub mod serialize;
mod snapshot;
pub mod surfaces;
mod upgrade;

use std::sync::Arc;

use crate::json::{self, Object, ToJson, Value};

use crate::error::Result;
use crate::schema::IndexConfig;

use crate::schema::{FilterKind, ResolvedSchema};
use deletes::DeleteSet;
use id_map::{IdMap, Places};
use segment::{Segment, SegmentWriter};
pub use snapshot::{SnapshotParts, SnapshotReader};

/// Why [`Index::add_json_lines`] stopped: the first rejected line (1-based,
/// blank lines counted), how many documents before it were added, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchError {
    pub line: usize,
    pub added: usize,
    pub error: crate::Error,
}

impl std::fmt::Display for BatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "document on line {} rejected ({} before it added): {}",
            self.line, self.added, self.error
        )
    }
}

impl std::error::Error for BatchError {}

/// Index-wide statistics.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Live documents.
    pub documents: usize,
    /// Distinct terms, summed over segments (an upper bound of the union).
    pub terms: usize,
    /// Immutable segments (the write buffer is not counted).
    pub segments: usize,
    /// Approximate heap bytes of all segments.
    pub bytes: usize,
    /// Documents in the write buffer, not yet flushed.
    pub buffered: usize,
    /// The doc store page cache (`None`: stored fields held unpacked).
    pub cache: Option<crate::store::CacheStats>,
}

impl ToJson for Stats {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        o.field("documents", &self.documents)
            .field("terms", &self.terms)
            .field("segments", &self.segments)
            .field("bytes", &self.bytes)
            .field("buffered", &self.buffered);
        if let Some(cache) = &self.cache {
            o.field("cache", cache);
        }
        o.end();
    }
}

/// Where a document lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct DocAddr {
    segment: u64,
    doc: u32,
}

/// Segment id of the write buffer.
const BUFFER: u64 = u64::MAX;

/// Estimated bytes ([`SegmentWriter::heap_estimate`]) at which an add
/// flushes the write buffer into a segment, so a bulk load holds its
/// segments plus at most this much buffer (~1.4x it in real bytes, and
/// ~2.5x the segment it freezes into) instead of the raw postings of the
/// whole load until one final flush. Loads below ~200k documents of ~200
/// bytes never reach it (one segment, as before); each flush re-sorts its
/// own vocabulary, which a smaller budget would pay more often.
pub const FLUSH_BYTES: usize = 128 << 20;

/// Heap bytes ([`Segment::heap_bytes`]) beyond which the merge policy
/// leaves two segments apart. A merge holds its inputs and its output at
/// once: the cap bounds that transient whatever the index size, at the
/// price of one segment per cap of a large index (a bulk load's flushed
/// segments are not merged again).
pub const MERGE_CAP_BYTES: usize = 128 << 20;

/// An immutable segment plus its (mutable) tombstones.
#[derive(Clone)]
pub struct SegmentEntry {
    pub id: u64,
    pub segment: Arc<Segment>,
    pub deletes: DeleteSet,
}

impl SegmentEntry {
    pub fn live_docs(&self) -> u32 {
        self.segment.n_docs - self.deletes.len()
    }
}

/// Where each live document is: the id map over the flushed segments and
/// the write buffer (buffered documents are readable before a flush).
#[derive(Clone, Copy)]
pub(crate) struct DocIds<'a> {
    ids: &'a IdMap,
    buffered: &'a crate::store::DocStore,
    buffered_vectors: &'a [crate::vector::VectorColumn],
    segments: &'a [SegmentEntry],
    /// False for a lazy index, which holds no id map: lookups go through the
    /// segments' ids instead (newest first, as a later segment's copy wins).
    mapped: bool,
}

impl<'a> DocIds<'a> {
    /// The flushed segment holding `id` (`None` inside: the write buffer)
    /// and its local doc id.
    fn place(&self, id: &str) -> Option<(Option<&'a Segment>, u32)> {
        if !self.mapped {
            return self.segments.iter().rev().find_map(|e| {
                let doc = e.segment.docs.ids().position(id)? as u32;
                (!e.deletes.contains(doc)).then_some((Some(&*e.segment), doc))
            });
        }
        let addr = self.ids.get(id, &self.places())?;
        let segment = match addr.segment {
            BUFFER => None,
            s => Some(&*self.segments.iter().find(|e| e.id == s)?.segment),
        };
        Some((segment, addr.doc))
    }

    /// The doc store holding `id` and its local doc id.
    pub(crate) fn store_of(&self, id: &str) -> Option<(&'a crate::store::DocStore, u32)> {
        let (segment, doc) = self.place(id)?;
        Some((segment.map_or(self.buffered, |s| &s.docs), doc))
    }

    /// The vector columns holding `id`'s vectors (by vector field) and its
    /// local doc id.
    pub(crate) fn vectors_of(&self, id: &str) -> Option<(&'a [crate::vector::VectorColumn], u32)> {
        let (segment, doc) = self.place(id)?;
        Some((
            segment.map_or(self.buffered_vectors, |s| &s.vectors[..]),
            doc,
        ))
    }

    /// (segment id, local doc) of a flushed document.
    pub(crate) fn address(&self, id: &str) -> Option<(u64, u32)> {
        if !self.mapped {
            let (segment, doc) = self.place(id)?;
            let segment = segment?;
            let entry = self
                .segments
                .iter()
                .find(|e| std::ptr::eq(&*e.segment, segment))?;
            return Some((entry.id, doc));
        }
        self.ids
            .get(id, &self.places())
            .filter(|a| a.segment != BUFFER)
            .map(|a| (a.segment, a.doc))
    }

    pub(crate) fn contains(&self, id: &str) -> bool {
        match self.mapped {
            true => self.ids.contains(id, &self.places()),
            false => self.place(id).is_some(),
        }
    }

    fn places(&self) -> Places<'a> {
        Places {
            buffered: self.buffered,
            segments: self.segments,
            adopting: None,
        }
    }
}

/// A searchable collection of documents.
pub struct Index {
    pub(crate) config: IndexConfig,
    pub(crate) schema: ResolvedSchema,
    filter_kinds: Vec<FilterKind>,
    pub(crate) segments: Vec<SegmentEntry>,
    buffer: SegmentWriter,
    buffer_deletes: DeleteSet,
    /// Field lengths of buffered docs (kept for exact stats on delete).
    buffer_field_lens: Vec<u32>,
    ids: IdMap,
    /// Whether `ids` maps every document (false for a lazy index).
    ids_mapped: bool,
    pub(crate) live_docs: u64,
    pub(crate) live_field_len: Vec<u64>,
    next_segment_id: u64,
    persist: persist::PersistState,
    /// Set by `cacheBytes`: segments keep stored fields packed (docs/FORMAT.md
    /// item 8) and unpack pages through this bounded cache.
    pub(crate) doc_cache: Option<Arc<crate::store::PageCache>>,
    /// [`FLUSH_BYTES`] and [`MERGE_CAP_BYTES`] unless set.
    flush_bytes: usize,
    merge_cap_bytes: usize,
}

impl Index {
    pub fn new(config: IndexConfig) -> Result<Index> {
        let schema = ResolvedSchema::new(&config)?;
        let filter_kinds: Vec<FilterKind> = schema.filters.iter().map(|f| f.kind).collect();
        let n_fields = schema.text.len();
        Ok(Index {
            buffer: SegmentWriter::new(n_fields, &filter_kinds),
            live_field_len: vec![0; n_fields],
            config,
            schema,
            filter_kinds,
            segments: Vec::new(),
            buffer_deletes: DeleteSet::default(),
            buffer_field_lens: Vec::new(),
            ids: IdMap::default(),
            ids_mapped: true,
            live_docs: 0,
            next_segment_id: 0,
            persist: Default::default(),
            doc_cache: None,
            flush_bytes: FLUSH_BYTES,
            merge_cap_bytes: MERGE_CAP_BYTES,
        })
    }

    /// Sets the write buffer's flush size and the merge cap, in bytes
    /// ([`FLUSH_BYTES`], [`MERGE_CAP_BYTES`]): smaller bounds memory while
    /// building at the price of more segments and merges.
    pub fn set_write_budget(&mut self, flush_bytes: usize, merge_cap_bytes: usize) {
        self.flush_bytes = flush_bytes;
        self.merge_cap_bytes = merge_cap_bytes;
    }

    pub fn config(&self) -> &IndexConfig {
        &self.config
    }

    /// Adds a document; a document with the same id is replaced (upsert).
    /// On error nothing changes.
    pub fn add(&mut self, doc: &Value) -> Result<()> {
        let prepared = self.schema.prepare(doc)?;
        self.add_prepared(prepared);
        Ok(())
    }

    /// [`Index::add`] of a document given as JSON text (parsed without a
    /// `Value` tree); the outer `Err` is a JSON syntax error.
    pub fn add_json(&mut self, json: &str) -> std::result::Result<Result<()>, json::Error> {
        let mut pairs = crate::json::RawPairs::default();
        Ok(self
            .schema
            .prepare_json(json, &mut pairs)?
            .map(|prepared| self.add_prepared(prepared)))
    }

    fn add_prepared(&mut self, prepared: document::PreparedDoc) {
        self.delete(&prepared.id);
        let local = self.buffer.add(&prepared);
        for (f, &len) in prepared.lens.iter().enumerate() {
            self.live_field_len[f] += len as u64;
            self.buffer_field_lens.push(len);
        }
        self.live_docs += 1;
        let addr = DocAddr {
            segment: BUFFER,
            doc: local,
        };
        let at = Places {
            buffered: self.buffer.docs(),
            segments: &self.segments,
            adopting: None,
        };
        self.ids.insert(&prepared.id, addr, &at);
        if self.buffer.heap_estimate() >= self.flush_bytes {
            self.flush();
        }
    }

    /// Adds documents given as JSON lines (one object per line); returns how
    /// many were added. Stops at the first invalid document: the error names
    /// its line and how many documents before it were added (they stay).
    pub fn add_json_lines(&mut self, text: &str) -> std::result::Result<usize, BatchError> {
        // One batch loop: the one that takes floats, given none.
        self.add_json_lines_floats(text, &[], &[], &[])
    }

    /// Deletes a document by id; returns whether it existed.
    pub fn delete(&mut self, id: &str) -> bool {
        let at = Places {
            buffered: self.buffer.docs(),
            segments: &self.segments,
            adopting: None,
        };
        match self.ids.remove(id, &at) {
            Some(addr) => self.tombstone(addr),
            None => false,
        }
    }

    /// Marks the document at `addr` deleted (its id already unmapped) and
    /// takes it out of the statistics; false if no segment holds it.
    fn tombstone(&mut self, addr: DocAddr) -> bool {
        let n_fields = self.schema.text.len();
        let lens: Vec<u32> = if addr.segment == BUFFER {
            self.buffer_deletes.insert(addr.doc);
            let start = addr.doc as usize * n_fields;
            self.buffer_field_lens[start..start + n_fields].to_vec()
        } else {
            let Some(entry) = self.segments.iter_mut().find(|e| e.id == addr.segment) else {
                return false;
            };
            entry.deletes.insert(addr.doc);
            (0..n_fields)
                .map(|f| entry.segment.field_len(addr.doc, f))
                .collect()
        };
        for (total, len) in self.live_field_len.iter_mut().zip(lens) {
            *total -= len as u64;
        }
        self.live_docs -= 1;
        true
    }

    /// Deletes every document matching a JSON filter (e.g. a whole
    /// namespace); returns how many were deleted.
    pub fn delete_where(&mut self, filter: &Value) -> Result<usize> {
        self.flush();
        let filter = crate::filter::Filter::compile(filter, &self.schema)?;
        let mut ids = Vec::new();
        for entry in &self.segments {
            let allow = filter.evaluate(&entry.segment);
            for doc in 0..entry.segment.n_docs {
                if !entry.deletes.contains(doc) && crate::filter::allowed(&allow, doc) {
                    ids.push(entry.segment.docs.id(doc).to_string());
                }
            }
        }
        let deleted = ids.iter().filter(|id| self.delete(id)).count();
        self.maybe_merge();
        Ok(deleted)
    }

    /// The id lookups a [`crate::query::Searcher`] reads through: every
    /// document, buffered ones included.
    pub(crate) fn doc_ids(&self) -> DocIds<'_> {
        DocIds {
            ids: &self.ids,
            buffered: self.buffer.docs(),
            buffered_vectors: self.buffer.vectors(),
            segments: &self.segments,
            mapped: self.ids_mapped,
        }
    }

    /// Number of live documents.
    pub fn len(&self) -> usize {
        self.live_docs as usize
    }

    pub fn is_empty(&self) -> bool {
        self.live_docs == 0
    }

    /// Freezes buffered writes into an immutable segment and applies the
    /// merge policy. Cheap when nothing is buffered.
    pub fn flush(&mut self) {
        if self.buffer.n_docs() == 0 {
            return;
        }
        let n_fields = self.schema.text.len();
        let writer = std::mem::replace(
            &mut self.buffer,
            SegmentWriter::new(n_fields, &self.filter_kinds),
        );
        let deletes = std::mem::take(&mut self.buffer_deletes);
        self.buffer_field_lens.clear();
        let segment = Arc::new(self.packed(writer.finish()));
        let id = self.next_segment_id;
        self.next_segment_id += 1;
        // The buffer's documents are the segment's, in order: the ids of
        // the buffer's addresses are read from it.
        let at = Places {
            buffered: &segment.docs,
            segments: &self.segments,
            adopting: Some((id, &segment.docs)),
        };
        for (doc, ext) in segment.docs.ids().iter().enumerate() {
            if !deletes.contains(doc as u32) {
                let addr = DocAddr {
                    segment: id,
                    doc: doc as u32,
                };
                self.ids.insert(ext, addr, &at);
            }
        }
        self.segments.push(SegmentEntry {
            id,
            segment,
            deletes,
        });
        self.maybe_merge();
    }

    /// Merge policy: segments are kept in creation order with sizes (live
    /// docs) that at least halve from one to the next, like a binary
    /// counter. So a stream of one-document flushes leaves at most
    /// log2(N) + 1 segments and each document is rewritten O(log N) times.
    /// Two segments whose merge would pass [`MERGE_CAP_BYTES`] stay apart
    /// (a large index keeps one segment per cap). Segments that are mostly
    /// tombstones are rewritten too.
    fn maybe_merge(&mut self) {
        self.segments.retain(|e| e.live_docs() > 0);
        loop {
            let n = self.segments.len();
            if n >= 2 {
                let (a, b) = (&self.segments[n - 2], &self.segments[n - 1]);
                let fits = a.segment.heap_bytes() + b.segment.heap_bytes() <= self.merge_cap_bytes;
                if b.live_docs() * 2 > a.live_docs() && fits {
                    self.merge_range(n - 2..n);
                    continue;
                }
            }
            // Purge a segment with more tombstones than live documents.
            if let Some(i) = self
                .segments
                .iter()
                .position(|e| e.deletes.len() > e.live_docs() && e.segment.n_docs >= 16)
            {
                self.merge_range(i..i + 1);
                continue;
            }
            break;
        }
    }

    /// Replaces `range` of segments by their merge.
    fn merge_range(&mut self, range: std::ops::Range<usize>) {
        let n_fields = self.schema.text.len();
        let parts: Vec<(&Segment, &DeleteSet)> = self.segments[range.clone()]
            .iter()
            .map(|e| (e.segment.as_ref(), &e.deletes))
            .collect();
        let merged = merge::merge_segments(&parts, n_fields, &self.filter_kinds);
        let merged = Arc::new(self.packed(merged));
        let id = self.next_segment_id;
        self.next_segment_id += 1;
        let at = Places {
            buffered: self.buffer.docs(),
            segments: &self.segments,
            adopting: Some((id, &merged.docs)),
        };
        for (doc, ext) in merged.docs.ids().iter().enumerate() {
            let addr = DocAddr {
                segment: id,
                doc: doc as u32,
            };
            self.ids.insert(ext, addr, &at);
        }
        let entry = SegmentEntry {
            id,
            segment: merged,
            deletes: DeleteSet::default(),
        };
        self.segments.splice(range, std::iter::once(entry));
    }

    /// Merges everything into one segment (after a bulk load).
    pub fn compact(&mut self) {
        self.flush();
        if self.segments.len() > 1 || self.segments.iter().any(|e| !e.deletes.is_empty()) {
            let n = self.segments.len();
            self.merge_range(0..n);
        }
    }

    pub fn stats(&self) -> Stats {
        Stats {
            documents: self.live_docs as usize,
            terms: self.segments.iter().map(|e| e.segment.n_terms()).sum(),
            segments: self.segments.len(),
            bytes: self.segments.iter().map(|e| e.segment.heap_bytes()).sum(),
            buffered: self.buffer.n_docs() as usize,
            cache: self.doc_cache.as_ref().map(|c| c.stats()),
        }
    }

    /// `segment` with its stored fields packed when the index has a page
    /// cache.
    fn packed(&self, mut segment: Segment) -> Segment {
        if let Some(cache) = &self.doc_cache {
            segment.docs.pack(cache);
        }
        segment
    }

    /// Keeps stored fields packed from now on, unpacking pages through a
    /// cache of at most `limit` bytes (`cacheBytes`); segments held now are
    /// packed (reopening with [`super::load::load_with`] reads them packed).
    pub fn set_doc_cache(&mut self, limit: usize) {
        let cache = crate::store::PageCache::new(limit);
        for e in &mut self.segments {
            // In place unless a searcher still shares the segment.
            Arc::make_mut(&mut e.segment).docs.pack(&cache);
        }
        self.doc_cache = Some(cache);
    }

    /// Serialized bytes by part (docs/FORMAT.md "Segment"), summed over the
    /// flushed segments in layout order; buffered documents are not counted.
    /// Serializes every segment: a diagnostic, not a hot path.
    pub fn part_sizes(&self) -> Vec<(&'static str, u64)> {
        let mut sums: Vec<(&'static str, u64)> = Vec::new();
        for e in &self.segments {
            for (part, n) in serialize::part_sizes(&e.segment) {
                match sums.iter_mut().find(|s| s.0 == part) {
                    Some(s) => s.1 += n as u64,
                    None => sums.push((part, n as u64)),
                }
            }
        }
        sums
    }

    /// Per flushed segment, the bytes of its head and how many chunk blobs
    /// it is stored as in parts of the default [`crate::storage::PART_BYTES`]
    /// (docs/FORMAT.md "Segment"; a local store cuts smaller ones). A diagnostic.
    pub fn blob_layout(&self) -> Vec<(usize, usize)> {
        self.segments
            .iter()
            .map(|e| {
                let written = serialize::write_segment(&e.segment);
                let head = serialize::layout::head_len("", &written.bytes).unwrap_or(0);
                (head, written.ends.len())
            })
            .collect()
    }

    /// Flushed segments.
    pub fn segment_count(&self) -> usize {
        self.segments.len()
    }

    /// Whether the write buffer holds documents not yet flushed.
    pub fn has_pending(&self) -> bool {
        self.buffer.n_docs() > 0
    }
}
