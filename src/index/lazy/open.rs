//! Opening an index lazily: the manifest, each segment's head and ids
//! (format 6), or the whole segment (older formats).
//!
//! The heads come first: they tell the committed size, so an open that
//! prefers a whole index below some size decides before reading the ids.

use std::sync::Arc;

use crate::codec::blob::{self, BlobKind};
use crate::postings::PostingsStore;
use crate::storage::Storage;
use crate::store::{DocStore, PageCache};
use crate::termdict::TermDict;

use super::super::load::{append_chunks, get_blob, get_blobs, Attempt, LoadedIndex, SegmentData};
use super::super::manifest::{parse_manifest, SegmentRecord};
use super::super::persist::{decode_deletes, CHUNK_PAYLOAD};
use super::super::segment::Segment;
use super::super::serialize::layout::{self, Head};
use super::super::Index;
use super::{corrupt, LazySeg, LazyTerms, VERSION};

/// What a lazy open read: the index and its lazy segments, or only the
/// committed size when that is at most the caller's `whole_below`.
pub(super) enum Opening {
    Lazy(Box<(Index, Vec<Option<LazySeg>>)>, u64),
    Small(u64),
}

/// A segment as its head left it: loaded whole (older format), or a
/// format 6 head whose ids are still to read.
enum Read {
    Whole(Box<(SegmentRecord, Segment, crate::index::deletes::DeleteSet)>),
    Head(Box<(Head, LazySeg, Option<Vec<u8>>)>),
}

/// Reads the manifest's segments: heads and ids of format 6 segments,
/// older ones whole. Stops after the heads with [`Opening::Small`] when
/// the committed bytes are at most `whole_below` (if given).
pub(super) async fn open_manifest<S: Storage>(
    storage: &S,
    mkey: &str,
    bytes: Vec<u8>,
    cache_bytes: usize,
    whole_below: Option<u64>,
) -> Result<Opening, Attempt> {
    let manifest = parse_manifest(mkey, &bytes)?;
    // Unpacked pages: a share of the bound, as for `cacheBytes`.
    let cache = PageCache::new(cache_bytes / 4);
    // Each segment's first chunk and tombstones, read together.
    let firsts: Vec<String> = manifest
        .segments
        .iter()
        .map(|r| {
            r.chunks
                .first()
                .cloned()
                .unwrap_or_else(|| mkey.to_string())
        })
        .collect();
    let dels: Vec<String> = manifest
        .segments
        .iter()
        .filter_map(|r| r.deletes.clone())
        .collect();
    let mut firsts = get_blobs(storage, &firsts, "blob").await?.into_iter();
    let mut dels = get_blobs(storage, &dels, "tombstone blob")
        .await?
        .into_iter();
    let mut read = Vec::with_capacity(manifest.segments.len());
    let mut committed = 0u64;
    for record in &manifest.segments {
        let deletes = match &record.deletes {
            None => None,
            Some(_) => dels.next(),
        };
        let key0 = record.chunks.first().map_or(mkey, String::as_str);
        let first = firsts.next().unwrap_or_default();
        let (version, payload) = blob::open_addressed(key0, BlobKind::SegmentChunk, &first)?;
        if version < VERSION {
            let mut data = SegmentData::default();
            committed += first.len() as u64;
            data.append(key0, &first)?;
            committed += append_chunks(storage, &mut data, &record.chunks[1..]).await?;
            let (record, segment, deletes) =
                data.finish(mkey, record, deletes.as_deref(), Some(&cache))?;
            read.push(Read::Whole(Box::new((record, segment, deletes))));
            continue;
        }
        let (head, seg, head_len) = read_head(storage, record, payload, version).await?;
        committed += (head_len + seg.part_starts.last().copied().unwrap_or(0)) as u64;
        read.push(Read::Head(Box::new((head, seg, deletes))));
    }
    if whole_below.is_some_and(|b| committed <= b) {
        return Ok(Opening::Small(committed));
    }
    // Every segment's ids, read together.
    let keys: Vec<String> = read
        .iter()
        .filter_map(|r| match r {
            Read::Head(h) => Some(h.1.ids_parts(&h.0)),
            Read::Whole(_) => None,
        })
        .flatten()
        .collect();
    let mut blobs = get_blobs(storage, &keys, "blob").await?.into_iter();
    let mut segments = Vec::with_capacity(read.len());
    let mut segs = Vec::with_capacity(read.len());
    for (record, r) in manifest.segments.iter().zip(read) {
        match r {
            Read::Whole(whole) => {
                segments.push(*whole);
                segs.push(None);
            }
            Read::Head(h) => {
                let (head, seg, deletes) = *h;
                let segment = lazy_segment(&seg, head, &mut blobs, &cache)?;
                let deletes = match (&record.deletes, deletes) {
                    (Some(key), Some(blob)) => decode_deletes(key, &blob, segment.n_docs)?,
                    _ => Default::default(),
                };
                segments.push((record.clone(), segment, deletes));
                segs.push(Some(seg));
            }
        }
    }
    let mut loaded = LoadedIndex::from_parts(manifest, bytes, segments);
    loaded.lazy = true;
    loaded.doc_cache = Some(cache);
    let index = Index::from_loaded(loaded, None)?;
    Ok(Opening::Lazy(Box::new((index, segs)), committed))
}

/// A format 6 segment's head (its first chunk's payload is `first`), where
/// its units are, and the head's length.
async fn read_head<S: Storage>(
    storage: &S,
    record: &SegmentRecord,
    first: &[u8],
    version: u32,
) -> Result<(Head, LazySeg, usize), Attempt> {
    let key0 = &record.chunks[0];
    let head_len = layout::head_len(key0, first)?;
    let n_head = head_len.div_ceil(CHUNK_PAYLOAD).max(1);
    if record.chunks.len() < n_head {
        return Err(corrupt(key0, "segment head chunks missing from the manifest").into());
    }
    let mut head = first.to_vec();
    for key in &record.chunks[1..n_head] {
        let blob = get_blob(storage, key, "blob").await?;
        head.extend_from_slice(blob::open_addressed(key, BlobKind::SegmentChunk, &blob)?.1);
    }
    if head.len() != head_len {
        return Err(corrupt(key0, "segment head chunks do not add up to the head").into());
    }
    let head = layout::read_head(key0, &head, version)?;
    let parts = record.chunks[n_head..].to_vec();
    if parts.len() != head.parts.len() {
        return Err(corrupt(key0, "segment parts differ from its head").into());
    }
    let seg = LazySeg::new(&head, parts, version);
    Ok((head, seg, head_len))
}

/// The segment of `head` with its ids (read from `blobs`, the parts of
/// [`LazySeg::ids_parts`] in order), everything else left to fetch.
fn lazy_segment(
    seg: &LazySeg,
    head: Head,
    blobs: &mut impl Iterator<Item = Vec<u8>>,
    cache: &Arc<PageCache>,
) -> Result<Segment, Attempt> {
    // The ids stay packed, a block unpacked when one of its ids is read.
    let span = (0, head.ids.unit_len());
    let mut ids = Vec::with_capacity(span.1);
    for p in seg.parts_of(span) {
        let key = &seg.parts[p];
        let blob = blobs.next().unwrap_or_default();
        let (_, payload) = blob::open_addressed(key, BlobKind::SegmentChunk, &blob)?;
        let (ps, pe) = (seg.part_starts[p], seg.part_starts[p + 1]);
        if payload.len() != pe - ps {
            return Err(corrupt(key, "a part differs from its segment head").into());
        }
        ids.extend_from_slice(&payload[..span.1.min(pe) - ps]);
    }
    let key0 = seg.parts.first().map_or("", String::as_str);
    // The order is decoded from the unit in place; the blocks stay packed.
    let packed = head.ids.packed_len().min(ids.len());
    let order = match head.ids.order_len {
        0 => None,
        _ => Some(
            crate::store::IdOrder::read(&ids[packed..], head.n_docs)
                .ok_or_else(|| corrupt(key0, "the ids' order is not one of its documents"))?,
        ),
    };
    ids.truncate(packed);
    ids.shrink_to_fit();
    let mut ids = crate::store::Ids::packed(ids, head.ids.clone(), head.n_docs)
        .ok_or_else(|| corrupt(key0, "the doc store's id blocks differ from its head"))?;
    if let Some(order) = order {
        ids = ids.with_order(order);
    }
    let lazy = LazyTerms::new(
        head.shards
            .iter()
            .map(|e| (e.first_term.clone(), e.n_terms)),
        head.surfaces.iter().map(|e| e.first_term.clone()),
    );
    Ok(Segment {
        n_docs: head.n_docs,
        n_fields: head.n_fields,
        terms: TermDict::default(),
        term_infos: Vec::new(),
        postings: PostingsStore::new(head.n_fields),
        field_lens: head.field_lens,
        docs: DocStore::lazy(ids, &head.pages, cache.clone()),
        namespaces: head.namespaces,
        columns: head.columns,
        vectors: head.vectors,
        surfaces: Default::default(),
        incoming: Default::default(),
        lazy: Some(Arc::new(lazy)),
    })
}
