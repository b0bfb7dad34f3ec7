//! Lazy open: an index read from its segment heads (docs/FORMAT.md
//! "Segment", format 6), whose body units (term shards, doc store pages,
//! surface words) are fetched when a search needs them.
//!
//! A search runs as usual over segments holding what was fetched so far.
//! A lookup that needs a unit not held records it and finds nothing this
//! round ([`LazyTerms`], the lazy doc store); after the round the index
//! fetches every unit asked for, puts them into the segments (term shards
//! held each whole, as decoded, surface words joined) and searches again.
//! A round that asked for nothing new is the answer, so the results are
//! those of the fully loaded index. Rounds are few: the query's terms, then
//! what they expand to (prefix, typos), then the hits' pages; pages wait
//! for a round in which every term was held (hits found without some terms
//! are not the answer).
//!
//! What is held beyond the heads is bounded by `cacheBytes` between
//! searches: half for the units by their decoded bytes (least recently used
//! go first), a quarter for unpacked doc store pages, a quarter for
//! unpacked id blocks; one search may hold more while it runs. Segments of
//! formats before 6 have no head to read alone: they are loaded whole. A
//! lazy index searches, reads by id and completes words: it has no id map
//! (ids are found through a hash index built on first use) and never writes.

mod open;
mod stats;
mod terms;

use open::{open_manifest, Opening};

use std::sync::Arc;

pub use stats::LazyStats;
pub(crate) use terms::{LazyTerms, Unit};

use crate::codec::blob::{self, BlobKind};
use crate::error::{Error, Result};
use crate::query::searcher::RankMemo;
use crate::storage::Storage;
use crate::{SearchOptions, SearchResults};

use super::load::from_manifest;
use super::manifest::{manifest_key, verify_blob};
use super::segment::Segment;
use super::serialize::columns::read_surface_unit;
use super::serialize::layout::Head;
use super::serialize::shards::{check_entry, read_shard, ShardEntry};
use super::surfaces::Surfaces;
use super::Index;

/// Rounds of a search before giving up (each round fetches what the last
/// one asked for: terms, their expansions, then pages).
const MAX_ROUNDS: usize = 8;

/// Bytes one search may fetch at least (twice `cacheBytes` when that is
/// more): at 1M `packages` documents, the 2,000 benchmark queries fetch at
/// most ~3.5 MiB each, 100 of them with `fuzzy: 'auto'` at most ~12 MiB
/// (every word's surface word shards of two first letters, in every
/// segment), `a* b* c* d*` 14 MiB. What one request may add to an
/// isolate's memory is bounded by it (the Worker keeps 4 MiB of parts).
const MIN_SEARCH_FETCH: usize = 24 << 20;

/// The first format whose segments have heads to read lazily (6 and 7).
const VERSION: u32 = 6;

/// An index opened from its segment heads; see the module documentation.
pub struct LazyIndex {
    name: String,
    index: Index,
    /// Per segment of `index`, in order: `None` for one loaded whole.
    segs: Vec<Option<LazySeg>>,
    limit: usize,
    clock: u64,
    /// Bytes fetched by the search running, and the most it may fetch.
    search_fetched: usize,
    fetch_cap: usize,
    stats: LazyStats,
}

/// What [`LazyIndex::open_above`] found.
pub enum Opened {
    Lazy(Box<LazyIndex>),
    /// The committed index is this many bytes, at most the bound given:
    /// load it whole.
    Small(u64),
}

/// What a round asked for: units to fetch `(segment, unit)`, and segments
/// whose surface words to join again (held shards they lack).
type Asked = (Vec<(usize, Unit)>, Vec<usize>);

/// Where a lazy segment's units are, and what of them is held.
struct LazySeg {
    /// Key of each part of the body.
    parts: Vec<String>,
    /// Body offset of each part's start, then the body's length.
    part_starts: Vec<usize>,
    shard_spans: Vec<(usize, usize)>,
    shard_entries: Vec<ShardEntry>,
    page_spans: Vec<(usize, usize)>,
    surface_spans: Vec<(usize, usize)>,
    surface_entries: Vec<ShardEntry>,
    dims: (u32, usize),
    /// Format version of the segment (its parts carry the same).
    version: u32,
    /// Surface word shards held, and those the current search asked for.
    surface_shards: Vec<Option<Surfaces>>,
    wanted_surfaces: Vec<u32>,
    /// Held units: (unit, bytes, last search that used it).
    held: Vec<(Unit, usize, u64)>,
}

impl LazySeg {
    fn new(head: &Head, parts: Vec<String>, version: u32) -> LazySeg {
        let mut part_starts = vec![0];
        for len in &head.parts {
            part_starts.push(part_starts[part_starts.len() - 1] + len);
        }
        let mut at = 0;
        let mut span = |len: usize| {
            at += len;
            (at - len, at)
        };
        span(head.ids.unit_len());
        let shard_spans = head.shards.iter().map(|s| span(s.len as usize)).collect();
        let page_spans = head.pages.iter().map(|p| span(p.2)).collect();
        let surface_spans = head.surfaces.iter().map(|s| span(s.len as usize)).collect();
        LazySeg {
            parts,
            part_starts,
            shard_spans,
            shard_entries: head.shards.clone(),
            page_spans,
            surface_spans,
            surface_entries: head.surfaces.clone(),
            dims: (head.n_docs, head.n_fields),
            version,
            surface_shards: head.surfaces.iter().map(|_| None).collect(),
            wanted_surfaces: Vec::new(),
            held: Vec::new(),
        }
    }

    fn span(&self, unit: Unit) -> (usize, usize) {
        match unit {
            Unit::Shard(i) => self.shard_spans[i as usize],
            Unit::Page(i) => self.page_spans[i as usize],
            Unit::Surfaces(i) => self.surface_spans[i as usize],
        }
    }

    /// Keys of the parts holding the ids of `head`'s segment.
    fn ids_parts(&self, head: &Head) -> Vec<String> {
        self.parts_of((0, head.ids.unit_len()))
            .map(|p| self.parts[p].clone())
            .collect()
    }

    /// Parts covering body bytes `start..end`.
    fn parts_of(&self, (start, end): (usize, usize)) -> std::ops::Range<usize> {
        let first = self
            .part_starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        let last = self.part_starts.partition_point(|&s| s < end);
        first..last.max(first + 1).min(self.parts.len())
    }
}

impl LazyIndex {
    /// Opens index `name` from its manifest and segment heads (and the
    /// ids of each segment), holding at most `cache_bytes` of fetched
    /// units between searches. `None` when nothing is stored.
    pub async fn open<S: Storage>(
        storage: &S,
        name: &str,
        cache_bytes: usize,
    ) -> Result<Option<LazyIndex>> {
        Ok(
            match Self::open_above(storage, name, cache_bytes, None).await? {
                Some(Opened::Lazy(index)) => Some(*index),
                _ => None,
            },
        )
    }

    /// [`LazyIndex::open`], unless `whole_below` is given and the committed
    /// index is at most that many bytes: then only its size, read from the
    /// heads, for the caller to load it whole instead.
    pub async fn open_above<S: Storage>(
        storage: &S,
        name: &str,
        cache_bytes: usize,
        whole_below: Option<u64>,
    ) -> Result<Option<Opened>> {
        let opened = from_manifest(storage, name, |mkey, bytes| async move {
            open_manifest(storage, &mkey, bytes, cache_bytes, whole_below).await
        })
        .await?;
        Ok(opened.map(|opening| match opening {
            Opening::Small(committed) => Opened::Small(committed),
            Opening::Lazy(opened, committed) => {
                let (index, segs) = *opened;
                Opened::Lazy(Box::new(LazyIndex {
                    name: name.to_string(),
                    index,
                    segs,
                    limit: cache_bytes,
                    clock: 0,
                    search_fetched: 0,
                    fetch_cap: cache_bytes.saturating_mul(2).max(MIN_SEARCH_FETCH),
                    stats: LazyStats {
                        limit: cache_bytes as u64,
                        committed_bytes: committed,
                        ..Default::default()
                    },
                }))
            }
        }))
    }

    /// The index as held now (what it answers without fetching).
    pub fn index(&self) -> &Index {
        &self.index
    }

    /// Sets the most one search may fetch (default: twice `cacheBytes`, at
    /// least 24 MiB); past it the search is a `LIMIT` error.
    pub fn set_fetch_cap(&mut self, bytes: usize) {
        self.fetch_cap = bytes;
    }

    pub fn stats(&self) -> LazyStats {
        let bytes = self
            .segs
            .iter()
            .flatten()
            .flat_map(|s| &s.held)
            .map(|h| h.1 as u64)
            .sum();
        LazyStats {
            bytes,
            ..self.stats
        }
    }

    /// The stored document `id` as JSON (with its vectors if `vectors`),
    /// as [`crate::Searcher::get_json`] gives it, fetching its page.
    pub async fn get_json<S: Storage>(
        &mut self,
        storage: &S,
        id: &str,
        vectors: bool,
    ) -> Result<Option<String>> {
        self.run(storage, |index| {
            let searcher = index.snapshot();
            Ok(match vectors {
                true => searcher.get_json_with_vectors(id),
                false => searcher.get_json(id),
            })
        })
        .await
    }

    /// Completions of `text`'s last word as [`crate::Searcher::suggest`]
    /// gives them, fetching the surface words and term shards they need.
    pub async fn suggest<S: Storage>(
        &mut self,
        storage: &S,
        text: &str,
        limit: usize,
    ) -> Result<Vec<crate::query::suggest::Suggestion>> {
        self.run(storage, |index| Ok(index.snapshot().suggest(text, limit)))
            .await
    }

    /// Searches as [`crate::Searcher::search`] does, fetching the units the
    /// search needs first.
    pub async fn search<S: Storage>(
        &mut self,
        storage: &S,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<SearchResults> {
        // The rounds after one that fetched only pages rank as it did.
        let memo = RankMemo::default();
        let mut out = None;
        let mut read = |index: &mut Index| {
            out = Some(index.searcher().with_memo(&memo).search(query, opts));
        };
        self.rounds(storage, &mut read, Some(&memo)).await?;
        out.unwrap_or_else(no_round)
    }

    /// Runs `read` (a search of the held index) until it asks for nothing
    /// more, fetching what each round asked for.
    pub async fn run<S: Storage, T>(
        &mut self,
        storage: &S,
        mut read: impl FnMut(&mut Index) -> Result<T>,
    ) -> Result<T> {
        let mut out = None;
        self.rounds(storage, &mut |index| out = Some(read(index)), None)
            .await?;
        out.unwrap_or_else(no_round)
    }

    /// The rounds of [`LazyIndex::run`], one copy for every kind of read
    /// (`read` keeps its own result). `memo`: a search's ranked passes,
    /// forgotten when a round puts new terms into a segment.
    async fn rounds<S: Storage>(
        &mut self,
        storage: &S,
        read: &mut dyn FnMut(&mut Index),
        memo: Option<&RankMemo>,
    ) -> Result<()> {
        self.clock += 1;
        self.search_fetched = 0;
        for seg in self.segs.iter_mut().flatten() {
            seg.wanted_surfaces.clear();
        }
        for _ in 0..MAX_ROUNDS {
            read(&mut self.index);
            let (missing, rejoin) = self.asked()?;
            if missing.is_empty() && rejoin.is_empty() {
                self.evict();
                return Ok(());
            }
            let fetched = self.fetch(storage, missing).await?;
            for s in 0..self.segs.len() {
                let (terms, words) = (fetched.contains(&(s, true)), fetched.contains(&(s, false)));
                let joined = (words || rejoin.contains(&s)) && self.join_words(s)?;
                if terms || joined {
                    memo.inspect(|m| m.clear());
                }
            }
        }
        Err(Error::Storage {
            key: manifest_key(&self.name),
            reason: format!(
                "a lazy search still needed parts after {MAX_ROUNDS} rounds of fetching"
            ),
            adapter_reason: None,
        })
    }

    /// The units the last round asked for that are not held (marking those
    /// held as used by this search), and the segments whose joined surface
    /// words lack some shards that are held.
    fn asked(&mut self) -> Result<Asked> {
        let mut missing = Vec::new();
        let mut rejoin = Vec::new();
        for (s, entry) in self.index.segments.iter().enumerate() {
            let Some(seg) = self.segs.get_mut(s).and_then(Option::as_mut) else {
                continue;
            };
            if let Some(page) = entry.segment.docs.take_damaged_page() {
                seg.held.retain(|h| h.0 != Unit::Page(page));
                let part = seg.parts_of(seg.page_spans[page as usize]).start;
                return Err(corrupt(
                    &seg.parts[part],
                    "a doc store page does not unpack to its rows",
                ));
            }
            let mut asked: Vec<(Unit, bool)> = entry
                .segment
                .docs
                .take_asked_pages()
                .into_iter()
                .map(|(p, held)| (Unit::Page(p), held))
                .collect();
            if let Some(lazy) = &entry.segment.lazy {
                asked.extend(lazy.take_asked());
            }
            for (unit, here) in asked {
                if let Unit::Surfaces(i) = unit {
                    if !seg.wanted_surfaces.contains(&i) {
                        seg.wanted_surfaces.push(i);
                    }
                }
                match seg.held.iter_mut().find(|h| h.0 == unit) {
                    Some(h) => {
                        h.2 = self.clock;
                        self.stats.hits += 1;
                        // Held, not in the segment (surface words): joined
                        // for the next round.
                        if !here && !rejoin.contains(&s) {
                            rejoin.push(s);
                        }
                    }
                    // Evicted, but its copy in the segment answered.
                    None if here => {}
                    None if !missing.contains(&(s, unit)) => missing.push((s, unit)),
                    None => {}
                }
            }
        }
        // Hits found without some of their terms' shards are not the
        // answer: their pages wait for a round with every term held.
        let terms_wait = missing.iter().any(|(_, u)| !matches!(u, Unit::Page(_)));
        if terms_wait || !rejoin.is_empty() {
            missing.retain(|(_, u)| !matches!(u, Unit::Page(_)));
        }
        Ok((missing, rejoin))
    }

    /// Fetches the parts holding `units` and decodes the units into their
    /// segments; returns the segments whose terms or surface words came.
    async fn fetch<S: Storage>(
        &mut self,
        storage: &S,
        units: Vec<(usize, Unit)>,
    ) -> Result<Vec<(usize, bool)>> {
        // Every part the round needs, in all segments: read at once.
        let mut parts: Vec<(usize, usize, String, usize)> = Vec::new();
        for &(s, unit) in &units {
            let Some(seg) = self.segs[s].as_ref() else {
                continue;
            };
            for p in seg.parts_of(seg.span(unit)) {
                let len = seg.part_starts[p + 1] - seg.part_starts[p];
                parts.push((s, p, seg.parts[p].clone(), len));
            }
        }
        parts.sort_unstable();
        parts.dedup();
        self.search_fetched += parts.iter().map(|p| p.3).sum::<usize>();
        if self.search_fetched > self.fetch_cap {
            return Err(Error::Limit {
                what: "bytes a lazy search fetches (twice cacheBytes, at least 24 MiB)",
                limit: self.fetch_cap,
                got: self.search_fetched,
            });
        }
        let keys: Vec<String> = parts.iter().map(|p| p.2.clone()).collect();
        let blobs = self.fetch_blobs(storage, &keys).await?;
        // Each blob as read, with where its payload is in it: units are
        // decoded from the blobs without copying the payloads out first.
        let mut fetched: Vec<(usize, usize, Vec<u8>, usize)> = Vec::with_capacity(parts.len());
        for ((s, p, key, expected), blob) in parts.into_iter().zip(blobs) {
            let (version, payload) = blob::open_addressed(&key, BlobKind::SegmentChunk, &blob)?;
            let want = self.segs[s].as_ref().map_or(0, |seg| seg.version);
            if version != want || payload.len() != expected {
                return Err(corrupt(&key, "a part differs from its segment head"));
            }
            let at = payload.as_ptr() as usize - blob.as_ptr() as usize;
            fetched.push((s, p, blob, at));
        }
        // (segment, whether term shards came: else surface words)
        let mut changed: Vec<(usize, bool)> = Vec::new();
        for (s, unit) in units {
            let segment = sole(&mut self.index.segments[s].segment)?;
            let Some(seg) = self.segs[s].as_mut() else {
                continue;
            };
            let (start, end) = seg.span(unit);
            let pieces: Vec<&[u8]> = fetched
                .iter()
                .filter(|f| f.0 == s)
                .filter_map(|(_, p, blob, at)| {
                    let (ps, pe) = (seg.part_starts[*p], seg.part_starts[p + 1]);
                    (ps < end && start < pe)
                        .then(|| &blob[at + start.max(ps) - ps..at + end.min(pe) - ps])
                })
                .collect();
            // A unit in one part is read in place; one across parts, joined.
            let joined;
            let bytes = match pieces[..] {
                [one] => one,
                _ => {
                    joined = pieces.concat();
                    &joined[..]
                }
            };
            let key = seg.parts[seg.parts_of((start, end)).start].clone();
            let held = install(seg, segment, unit, &key, bytes)?;
            seg.held.push((unit, held, self.clock));
            let change = match unit {
                Unit::Shard(_) => Some((s, true)),
                Unit::Surfaces(_) => Some((s, false)),
                Unit::Page(_) => None,
            };
            if let Some(change) = change.filter(|c| !changed.contains(c)) {
                changed.push(change);
            }
        }
        Ok(changed)
    }

    /// The blobs of `keys`, read together and checked against their keys.
    async fn fetch_blobs<S: Storage>(
        &mut self,
        storage: &S,
        keys: &[String],
    ) -> Result<Vec<Vec<u8>>> {
        let blobs = storage.get_many(keys).await?;
        let mut out = Vec::with_capacity(keys.len());
        for (key, blob) in keys.iter().zip(blobs) {
            let Some(blob) = blob else {
                // Collected by a commit that replaced this segment: the
                // index changed under a reader that holds an old manifest.
                let current = storage.get(&manifest_key(&self.name)).await?;
                if current.as_deref() != self.index.base_manifest().as_deref() {
                    return Err(Error::Storage {
                        key: key.to_string(),
                        reason: "the index was committed to since it was opened lazily, and this part was collected; open it again".into(),
                        adapter_reason: None,
                    });
                }
                return Err(corrupt(key, "a part referenced by the manifest is missing"));
            };
            verify_blob(key, &blob)?;
            self.stats.fetches += 1;
            self.stats.fetched_bytes += blob.len() as u64;
            out.push(blob);
        }
        Ok(out)
    }

    /// Joins into segment `s` the held surface word shards this search
    /// asked for (only those: joining copies them), unless the segment
    /// holds those already. Whether its surface words changed.
    fn join_words(&mut self, s: usize) -> Result<bool> {
        let Some(seg) = self.segs[s].as_mut() else {
            return Ok(false);
        };
        seg.wanted_surfaces.sort_unstable();
        let segment = sole(&mut self.index.segments[s].segment)?;
        let mut words_held = vec![false; seg.surface_shards.len()];
        for &i in &seg.wanted_surfaces {
            words_held[i as usize] = seg.surface_shards[i as usize].is_some();
        }
        if lazy_terms(segment)?.held_surfaces() == words_held {
            return Ok(false);
        }
        let key = seg.parts.first().map_or("", String::as_str);
        segment.surfaces = Surfaces::default();
        let words = seg.wanted_surfaces.iter();
        let words: Vec<&Surfaces> = words
            .filter_map(|&i| seg.surface_shards[i as usize].as_ref())
            .collect();
        segment.surfaces = Surfaces::join(&words).map_err(|reason| corrupt(key, reason))?;
        lazy_terms(segment)?.set_surfaces_held(words_held);
        Ok(true)
    }

    /// Drops the least recently used units until those held fit the limit
    /// (units this search used stay).
    fn evict(&mut self) {
        let held = || self.segs.iter().flatten().flat_map(|s| &s.held);
        let mut total: usize = held().map(|h| h.1).sum();
        self.stats.last_search_bytes = held()
            .filter(|h| h.2 == self.clock)
            .map(|h| h.1 as u64)
            .sum();
        let mut words_gone = Vec::new();
        // `cacheBytes` is shared: half for the units (their decoded bytes),
        // a quarter for unpacked pages (the page cache), a quarter for
        // unpacked id blocks.
        while total > self.limit / 2 {
            let oldest = self
                .segs
                .iter()
                .enumerate()
                .filter_map(|(s, seg)| Some((s, seg.as_ref()?)))
                .flat_map(|(s, seg)| seg.held.iter().enumerate().map(move |(i, h)| (h.2, s, i)))
                .filter(|&(used, _, _)| used < self.clock)
                .min();
            let Some((_, s, i)) = oldest else { break };
            let Some(seg) = self.segs[s].as_mut() else {
                break;
            };
            let (unit, bytes, _) = seg.held.swap_remove(i);
            total -= bytes;
            match unit {
                Unit::Shard(k) => {
                    let entry = &mut self.index.segments[s];
                    if let Ok(terms) = sole(&mut entry.segment).and_then(lazy_terms) {
                        terms.release(k as usize);
                    }
                    // Live counts are kept by term (its shard and block):
                    // dropped with the terms, so that they stay few.
                    entry.deletes.forget_live_doc_freqs();
                }
                Unit::Page(k) => self.index.segments[s].segment.docs.release_page(k),
                Unit::Surfaces(k) => {
                    seg.surface_shards[k as usize] = None;
                    if !words_gone.contains(&s) {
                        words_gone.push(s);
                    }
                }
            }
        }
        // Id blocks unpacked by reads (ties rank by id: a search reads
        // many): a quarter of the bound, shared by the segments.
        let lazy = self.segs.iter().flatten().count().max(1);
        for (entry, seg) in self.index.segments.iter_mut().zip(&self.segs) {
            if let (Some(_), Ok(segment)) = (seg, sole(&mut entry.segment)) {
                segment.docs.release_ids(self.limit / 4 / lazy);
            }
        }
        // Surface words are dropped with their shards (a later search
        // joins them again).
        for s in words_gone {
            let Some(seg) = self.segs[s].as_ref() else {
                continue;
            };
            if let Ok(segment) = sole(&mut self.index.segments[s].segment) {
                segment.surfaces = Default::default();
                if let Ok(lazy) = lazy_terms(segment) {
                    lazy.set_surfaces_held(vec![false; seg.surface_shards.len()]);
                }
            }
        }
    }
}

/// The segment, which only this index holds between searches (no clone:
/// cloning a segment would copy all it holds).
fn sole(segment: &mut Arc<Segment>) -> Result<&mut Segment> {
    Arc::get_mut(segment).ok_or_else(|| Error::Usage {
        reason: "a lazy index's segment is still borrowed by a search".into(),
    })
}

/// What a lazy segment holds of its terms (only its index changes it).
fn lazy_terms(segment: &mut Segment) -> Result<&mut LazyTerms> {
    segment
        .lazy
        .as_mut()
        .and_then(Arc::get_mut)
        .ok_or_else(|| Error::Usage {
            reason: "a lazy segment's terms are still borrowed by a search".into(),
        })
}

fn corrupt(key: &str, reason: &str) -> Error {
    Error::Corrupt {
        key: key.to_string(),
        reason: reason.to_string(),
    }
}

/// Decodes a fetched unit into `seg` and `segment`; returns the heap bytes
/// it takes there (what the cache bound counts).
fn install(
    seg: &mut LazySeg,
    segment: &mut Segment,
    unit: Unit,
    key: &str,
    bytes: &[u8],
) -> Result<usize> {
    let mut r = crate::codec::bytes::ByteReader::new(key, bytes);
    Ok(match unit {
        Unit::Shard(i) => {
            let shard = read_shard(&mut r, seg.version, seg.dims)?;
            check_entry(key, &shard, &seg.shard_entries[i as usize])?;
            lazy_terms(segment)?.hold(i as usize, shard.keep(seg.dims.1))?
        }
        Unit::Page(i) => {
            segment
                .docs
                .provide_page(i, bytes)
                .map_err(|reason| corrupt(key, reason))?;
            bytes.len()
        }
        Unit::Surfaces(i) => {
            let entry = &seg.surface_entries[i as usize];
            let words = read_surface_unit(&mut r, seg.version, segment.n_terms(), entry)?;
            let held = words.heap_bytes();
            seg.surface_shards[i as usize] = Some(words);
            held
        }
    })
}

#[cfg(test)]
mod tests;

/// The answer of a read whose rounds never ran it (a bug).
fn no_round<T>() -> Result<T> {
    Err(Error::Usage {
        reason: "a lazy read ran no round".into(),
    })
}
