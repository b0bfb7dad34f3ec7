//! Term shards (format 6): a segment's terms cut into runs of about
//! [`SHARD_BYTES`], each serialized alone with its own term dictionary, term
//! table, postings, positions, block table and bounds (items 2 to 6 of
//! format 5, over its terms only), so that a reader can fetch and decode the
//! shard holding a term without the others. The segment head lists each
//! shard's first term, term count and length (docs/FORMAT.md "Segment").

use crate::codec::bytes::{ByteReader, ByteWriter};
use crate::error::{Error, Result};
use crate::postings::{BlockMeta, FieldBound, PostingsStore, TermInfo};
use crate::termdict::{TermDict, TermDictBuilder};

use super::super::segment::Segment;
use super::postings;

/// Bytes of term data (dictionary entries, postings, positions) a shard
/// gathers before it closes: a lookup fetches one shard per term, so this
/// is what a query term costs to fetch beyond its own postings.
pub(crate) const SHARD_BYTES: usize = 64 * 1024;

/// A shard as the segment head lists it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShardEntry {
    pub first_term: String,
    pub n_terms: u32,
    /// Serialized bytes of the shard in the segment's body.
    pub len: u32,
}

impl ShardEntry {
    /// Whether `dict` (a shard's terms or surface words) has the entry's
    /// count and first term.
    pub(crate) fn describes(&self, dict: &TermDict) -> bool {
        let mut first = dict.iter();
        let starts = first.advance().is_some() && first.term() == self.first_term.as_bytes();
        dict.len() == self.n_terms as usize && starts
    }
}

/// One shard decoded alone: ordinals and block numbers are local to it.
/// Its postings and positions are the bytes it was read from (whoever
/// keeps it copies them once, into its own buffers).
#[derive(Debug)]
pub(crate) struct Shard<'a> {
    pub terms: TermDict,
    pub infos: Vec<TermInfo>,
    pub bytes: &'a [u8],
    pub positions: &'a [u8],
    pub blocks: Vec<BlockMeta>,
    /// `blocks.len() * n_fields` entries, block-major.
    pub bounds: Vec<FieldBound>,
}

impl Shard<'_> {
    /// Its terms, their table and its postings, kept (the postings and
    /// positions copied out of the bytes it was read from).
    pub fn keep(self, n_fields: usize) -> (TermDict, Vec<TermInfo>, PostingsStore) {
        let postings = PostingsStore {
            n_fields,
            bytes: self.bytes.to_vec(),
            positions: self.positions.to_vec(),
            blocks: self.blocks,
            bounds: self.bounds,
        };
        (self.terms, self.infos, postings)
    }
}

/// The byte ranges in the postings and positions buffers of the blocks
/// `first..end` of `store`.
fn extent(store: &PostingsStore, first: usize, end: usize) -> ((usize, usize), (usize, usize)) {
    let start = store
        .blocks
        .get(first)
        .map_or((store.bytes.len(), store.positions.len()), |b| {
            (b.offset as usize, b.pos_offset as usize)
        });
    let stop = store
        .blocks
        .get(end)
        .map_or((store.bytes.len(), store.positions.len()), |b| {
            (b.offset as usize, b.pos_offset as usize)
        });
    ((start.0, stop.0), (start.1, stop.1))
}

/// Writes `seg`'s terms as shards into `body`, one unit each (`unit` is
/// called after each), and returns their head entries. `mark(part, bytes)`
/// adds each shard's bytes to the sizes of its parts.
pub(super) fn write_shards(
    body: &mut ByteWriter,
    seg: &Segment,
    unit: &mut dyn FnMut(usize),
    mark: &mut dyn FnMut(&'static str, usize),
) -> Vec<ShardEntry> {
    let mut entries = Vec::new();
    let mut terms = seg.terms.iter();
    let mut pending: Vec<String> = Vec::new();
    let mut first_ord = 0usize;
    let mut bytes = 0usize;
    let n = seg.term_infos.len();
    let mut ord = 0usize;
    while terms.advance().is_some() {
        let term = String::from_utf8_lossy(terms.term()).into_owned();
        let info = seg.term_infos[ord];
        let (first, end) = (
            info.first_block as usize,
            (info.first_block + info.n_blocks) as usize,
        );
        let ((a, b), (c, d)) = extent(&seg.postings, first, end);
        bytes += term.len() + (b - a) + (d - c) + 8 * info.n_blocks as usize;
        pending.push(term);
        ord += 1;
        if bytes >= SHARD_BYTES || ord == n {
            let start = body.buf.len();
            write_shard(body, seg, first_ord..ord, &pending, mark);
            unit(body.buf.len());
            entries.push(ShardEntry {
                first_term: std::mem::take(&mut pending).swap_remove(0),
                n_terms: (ord - first_ord) as u32,
                len: (body.buf.len() - start) as u32,
            });
            first_ord = ord;
            bytes = 0;
        }
    }
    entries
}

/// One shard: terms `ords` of `seg` (their text in `names`).
fn write_shard(
    w: &mut ByteWriter,
    seg: &Segment,
    ords: std::ops::Range<usize>,
    names: &[String],
    mark: &mut dyn FnMut(&'static str, usize),
) {
    let infos = &seg.term_infos[ords];
    let first_block = infos.first().map_or(0, |t| t.first_block) as usize;
    let end_block = infos.last().map_or(0, |t| t.first_block + t.n_blocks) as usize;
    let ((a, b), (c, d)) = extent(&seg.postings, first_block, end_block);
    let local: Vec<TermInfo> = infos
        .iter()
        .map(|t| TermInfo {
            first_block: t.first_block - first_block as u32,
            ..*t
        })
        .collect();
    let blocks: Vec<BlockMeta> = seg.postings.blocks[first_block..end_block]
        .iter()
        .map(|m| BlockMeta {
            offset: m.offset - a as u32,
            pos_offset: m.pos_offset - c as u32,
            ..*m
        })
        .collect();
    let mut at = w.buf.len();
    let mut step = |w: &ByteWriter, part: &'static str| {
        mark(part, w.buf.len() - at);
        at = w.buf.len();
    };
    w.bytes(TermDict::from_sorted(names).as_bytes());
    step(w, "term dictionary");
    postings::write_term_table(w, &local);
    step(w, "term table");
    w.bytes(&seg.postings.bytes[a..b]);
    step(w, "postings");
    w.bytes(&seg.postings.positions[c..d]);
    step(w, "positions");
    postings::write_block_table(w, &local, &blocks, (b - a, d - c));
    step(w, "block table");
    let n_fields = seg.n_fields;
    postings::write_bounds(
        w,
        &seg.postings.bounds[first_block * n_fields..end_block * n_fields],
    );
    step(w, "block bounds");
}

/// Reads one shard (all of `r`) of a segment of `n_docs` documents and
/// `n_fields` text fields, checking it as a segment's term tables are.
pub(crate) fn read_shard<'a>(
    r: &mut ByteReader<'a>,
    version: u32,
    (n_docs, n_fields): (u32, usize),
) -> Result<Shard<'a>> {
    let terms = TermDict::from_bytes(r.bytes()?.to_vec())
        .map_err(|reason| r.corrupt(format!("term dictionary: {reason}")))?;
    let infos = postings::read_term_table(r, version, terms.len(), n_docs)?;
    let bytes = r.bytes()?;
    let positions = r.bytes()?;
    let (blocks, bounds) = postings::read_blocks(
        r,
        version,
        &infos,
        (n_docs, n_fields),
        (bytes.len(), positions.len()),
    )?;
    if !r.is_at_end() {
        return Err(r.corrupt("trailing bytes after a term shard"));
    }
    Ok(Shard {
        terms,
        infos,
        bytes,
        positions,
        blocks,
        bounds,
    })
}

pub(super) fn write_entries(w: &mut ByteWriter, entries: &[ShardEntry]) {
    w.varint(entries.len() as u32);
    for e in entries {
        w.short_bytes(e.first_term.as_bytes());
        w.varint(e.n_terms);
        w.varint(e.len);
    }
}

pub(crate) fn read_entries(r: &mut ByteReader<'_>) -> Result<Vec<ShardEntry>> {
    let n = r.varint()? as usize;
    if n > r.remaining() / 3 {
        return Err(r.corrupt("term shard count exceeds the segment head"));
    }
    let mut entries = Vec::with_capacity(n);
    for _ in 0..n {
        entries.push(ShardEntry {
            first_term: r.short_str()?.to_string(),
            n_terms: r.varint()?,
            len: r.varint()?,
        });
    }
    Ok(entries)
}

/// Checks that `shard` is the one `entry` describes.
pub(crate) fn check_entry(key: &str, shard: &Shard, entry: &ShardEntry) -> Result<()> {
    if !entry.describes(&shard.terms) {
        return Err(Error::Corrupt {
            key: key.to_string(),
            reason: "a term shard differs from the segment head's entry for it".into(),
        });
    }
    Ok(())
}

/// Shards appended in order into one segment's term dictionary, term
/// table and postings (what a fully loaded segment holds).
pub(crate) struct Assembled {
    dict: TermDictBuilder,
    pub infos: Vec<TermInfo>,
    pub postings: PostingsStore,
}

impl Assembled {
    pub fn new(n_fields: usize) -> Assembled {
        Assembled {
            dict: TermDictBuilder::new(),
            infos: Vec::new(),
            postings: PostingsStore::new(n_fields),
        }
    }

    /// Appends `shard`, whose terms must all follow the terms so far.
    pub fn push(&mut self, key: &str, shard: &Shard) -> Result<()> {
        let corrupt = |reason: &str| Error::Corrupt {
            key: key.to_string(),
            reason: reason.to_string(),
        };
        let mut terms = shard.terms.iter();
        while terms.advance().is_some() {
            // UTF-8 was checked when the shard's dictionary was read.
            self.dict
                .insert_bytes(terms.term())
                .ok_or_else(|| corrupt("term shards are not in term order"))?;
        }
        append_terms(&mut self.infos, &mut self.postings, shard).map_err(corrupt)
    }

    pub fn finish(mut self) -> (TermDict, Vec<TermInfo>, PostingsStore) {
        // Grown by doubling: up to half of each buffer is room the segment
        // would hold for as long as it lives (shrunk in place, the room
        // goes to the next segment's load).
        self.infos.shrink_to_fit();
        let p = &mut self.postings;
        p.bytes.shrink_to_fit();
        p.positions.shrink_to_fit();
        p.blocks.shrink_to_fit();
        p.bounds.shrink_to_fit();
        (self.dict.finish(), self.infos, self.postings)
    }
}

/// Appends `shard`'s terms to `infos` and `p`, its block numbers and
/// offsets moved to where they land; refuses postings past 4 GiB (offsets
/// are `u32`).
fn append_terms(
    infos: &mut Vec<TermInfo>,
    p: &mut PostingsStore,
    shard: &Shard<'_>,
) -> std::result::Result<(), &'static str> {
    let base = |len: usize| u32::try_from(len).map_err(|_| "postings exceed 4 GiB");
    let (bytes, positions, blocks) = (
        base(p.bytes.len())?,
        base(p.positions.len())?,
        base(p.blocks.len())?,
    );
    base(p.bytes.len() + shard.bytes.len())?;
    base(p.positions.len() + shard.positions.len())?;
    infos.extend(shard.infos.iter().map(|t| TermInfo {
        first_block: t.first_block + blocks,
        ..*t
    }));
    p.bytes.extend_from_slice(shard.bytes);
    p.positions.extend_from_slice(shard.positions);
    p.blocks.extend(shard.blocks.iter().map(|m| BlockMeta {
        offset: m.offset + bytes,
        pos_offset: m.pos_offset + positions,
        ..*m
    }));
    p.bounds.extend_from_slice(&shard.bounds);
    Ok(())
}
