use super::*;
use crate::codec::blob::FORMAT_VERSION;
use crate::codec::bytes::ByteWriter;
use crate::json::parse;
use crate::schema::IndexConfig;
use crate::store::Column;
use crate::Index;

/// A flushed segment with multi-block terms (`memory` in every document,
/// `even` in half), two text fields, a date on every third document only
/// (a sparse number column), keywords and links.
fn segment() -> Segment {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..700u32 {
        let mut doc = format!(
            r#"{{"id":"d{i}","title":"memory {}","text":"memory number {i} {}","kind":"k{}""#,
            if i % 2 == 0 { "even" } else { "odd" },
            "word ".repeat((i % 7) as usize),
            i % 3
        );
        if i % 3 == 0 {
            doc += &format!(r#","timestamp":{}"#, 1_700_000_000_000u64 + i as u64);
        }
        if i % 5 == 0 {
            doc += &format!(r#","links":[{{"type":"NEXT","to":"d{}"}}]"#, i + 1);
        }
        index.add(&parse(&(doc + "}")).unwrap()).unwrap();
    }
    index.flush();
    assert_eq!(index.segments.len(), 1);
    (*index.segments[0].segment).clone()
}

#[test]
fn the_written_format_round_trips_every_table() {
    let seg = segment();
    assert!(
        seg.term_infos.iter().any(|t| t.n_blocks > 2),
        "multi-block terms"
    );
    let bytes = write_segment(&seg).bytes;
    let back = read_segment("k", &bytes, FORMAT_VERSION, None).unwrap();
    assert_eq!(back.term_infos, seg.term_infos);
    assert_eq!(back.postings, seg.postings);
    assert_eq!(back.field_lens, seg.field_lens);
    assert_eq!(back.docs, seg.docs);
    assert_eq!(back.surfaces.stems, seg.surfaces.stems);
    assert_eq!(back.surfaces.counts, seg.surfaces.counts);
    let numbers = |s: &Segment| -> Vec<Vec<u64>> {
        s.columns
            .iter()
            .filter_map(|c| match c {
                Column::Number(v) => Some(v.iter().map(|x| x.to_bits()).collect()),
                _ => None,
            })
            .collect()
    };
    assert_eq!(numbers(&back), numbers(&seg));
    assert!(
        numbers(&seg)[0].iter().any(|&x| f64::from_bits(x).is_nan()),
        "sparse"
    );
    assert_eq!(write_segment(&back).bytes, bytes, "a fixpoint");
}

#[test]
fn part_sizes_cover_the_whole_segment() {
    let seg = segment();
    let total: usize = part_sizes(&seg).iter().map(|p| p.1).sum();
    assert_eq!(total, write_segment(&seg).bytes.len());
}

/// Every truncation and a flipped bit at every byte: an error or a segment,
/// never a panic (the CRC stops such bytes before here; this is the reader's
/// own bounds checking).
#[test]
fn damaged_segment_bytes_never_panic() {
    let bytes = write_segment(&segment()).bytes;
    let step = (bytes.len() / 3000).max(1);
    for cut in (0..bytes.len()).step_by(step) {
        assert!(
            read_segment("k", &bytes[..cut], FORMAT_VERSION, None).is_err(),
            "cut at {cut}"
        );
    }
    for at in (0..bytes.len()).step_by(step) {
        let mut damaged = bytes.clone();
        damaged[at] ^= 0x5a;
        let _ = read_segment("k", &damaged, FORMAT_VERSION, None);
    }
}

/// A count the blob cannot hold is refused before anything is allocated
/// (format 5's layout, still read).
#[test]
fn huge_counts_are_corrupt_not_allocations() {
    let mut w = ByteWriter::default();
    w.u32(u32::MAX); // n_docs
    w.u32(32); // n_fields
    w.bytes(crate::termdict::TermDictBuilder::new().finish().as_bytes());
    w.u64(0); // no terms
    w.bytes(&[]);
    w.bytes(&[]);
    w.u64(0); // no blocks
    let err = read_segment("k", &w.buf, 5, None).err().unwrap();
    assert!(err.to_string().contains("field length"), "{err}");
    // Format 6: the same count in a head.
    let mut w = ByteWriter::default();
    w.u32(u32::MAX);
    w.u32(32);
    w.u32(17);
    w.varint(0); // no shards
    w.buf.extend_from_slice(&[0; 4]);
    let err = read_segment("k", &w.buf, FORMAT_VERSION, None)
        .err()
        .unwrap();
    assert!(err.to_string().contains("field length"), "{err}");
}

/// A segment of many terms (every document has words of its own, and a
/// few words are in most documents, so some terms span many blocks).
fn wide_segment() -> Segment {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for i in 0..6000u32 {
        let own: String = (0..12).map(|k| format!(" w{}x{k}", i * 7 % 5003)).collect();
        let doc = format!(
            r#"{{"id":"d{i}","title":"shared memory {}","text":"common words {own}"}}"#,
            i % 50
        );
        index.add(&parse(&doc).unwrap()).unwrap();
    }
    index.flush();
    (*index.segments[0].segment).clone()
}

/// Format 6 cuts the terms into shards and the body into parts: each shard
/// reads alone as the terms it holds, the parts cover the body in the
/// sizes the head lists, and the whole reads back identical.
#[test]
fn shards_and_parts_read_alone_and_together() {
    let seg = wide_segment();
    let written = write_segment(&seg);
    let bytes = &written.bytes;
    let len = layout::head_len("k", bytes).unwrap();
    assert_eq!(written.ends[0], len, "the head is its own chunk");
    let head = layout::read_head("k", &bytes[..len], FORMAT_VERSION).unwrap();
    assert!(head.shards.len() > 3, "{} shards", head.shards.len());
    assert!(head.parts.len() > 3, "{} parts", head.parts.len());
    let parts: Vec<usize> = written.ends.windows(2).map(|w| w[1] - w[0]).collect();
    assert_eq!(parts, head.parts);
    let mut at = len + head.ids.unit_len(); // the ids come first
    let mut n_terms = 0;
    for entry in &head.shards {
        let shard_bytes = &bytes[at..at + entry.len as usize];
        at += entry.len as usize;
        let mut r = crate::codec::bytes::ByteReader::new("k", shard_bytes);
        let shard = shards::read_shard(&mut r, FORMAT_VERSION, (seg.n_docs, seg.n_fields)).unwrap();
        shards::check_entry("k", &shard, entry).unwrap();
        // The shard's postings alone, its block numbers its own.
        let (dict, infos, alone) = shard.keep(seg.n_fields);
        let mut terms = dict.iter();
        while terms.advance().is_some() {
            let term = std::str::from_utf8(terms.term()).unwrap();
            let local = infos[terms.ord() as usize];
            let global = seg.term(term).unwrap();
            assert_eq!(local.doc_freq, global.doc_freq, "{term}");
            let docs = |store: &PostingsStore, info| {
                let mut c = store.cursor(info);
                std::iter::from_fn(move || {
                    let d = c.doc();
                    (d != crate::postings::TERMINATED).then(|| {
                        c.advance();
                        d
                    })
                })
                .collect::<Vec<u32>>()
            };
            assert_eq!(docs(&alone, local), docs(&seg.postings, global));
        }
        n_terms += entry.n_terms as usize;
    }
    assert_eq!(n_terms, seg.terms.len());
    let back = read_segment("k", bytes, FORMAT_VERSION, None).unwrap();
    assert_eq!(back.terms.as_bytes(), seg.terms.as_bytes());
    assert_eq!(back.term_infos, seg.term_infos);
    assert_eq!(back.postings, seg.postings);
    assert_eq!(back.docs, seg.docs);
    assert_eq!(&write_segment(&back).bytes, bytes);
}

/// Parts gather whole units up to the part size; a larger unit is a part of
/// its own, cut into pieces of CHUNK_PAYLOAD when it exceeds one.
#[test]
fn parts_gather_units_up_to_their_bytes() {
    use crate::index::persist::CHUNK_PAYLOAD;
    let part = crate::storage::PART_BYTES;
    let sizes = [
        part / 4,
        part / 2,
        part / 4, // fills the first part exactly
        1,
        part + 1, // alone, after the 1-byte part
        part / 2,
        part / 2,
        CHUNK_PAYLOAD + 5, // a piece of CHUNK_PAYLOAD, then its 5 bytes
        3,
    ];
    let ends: Vec<usize> = sizes
        .iter()
        .scan(0, |at, &n| {
            *at += n;
            Some(*at)
        })
        .collect();
    let cuts = layout::cut_parts(&ends, part);
    let e = |i: usize| ends[i];
    let want = vec![e(2), e(3), e(4), e(6), e(6) + CHUNK_PAYLOAD, e(8)];
    assert_eq!(cuts, want);
}

/// A head whose directories do not cover the body, or whose shards are out
/// of order, is `CORRUPT`.
#[test]
fn inconsistent_heads_are_corrupt() {
    let seg = wide_segment();
    let bytes = write_segment(&seg).bytes;
    let len = layout::head_len("k", &bytes).unwrap();
    // One byte of body more or less than the parts list.
    let mut longer = bytes.clone();
    longer.push(0);
    assert!(read_segment("k", &longer, FORMAT_VERSION, None).is_err());
    assert!(read_segment("k", &bytes[..bytes.len() - 1], FORMAT_VERSION, None).is_err());
    // Two shards swapped in the body: each reads, but not where the head says.
    let head = layout::read_head("k", &bytes[..len], FORMAT_VERSION).unwrap();
    let (a, b) = (head.shards[0].len as usize, head.shards[1].len as usize);
    let at = len + head.ids.unit_len();
    let mut swapped = bytes[..at].to_vec();
    swapped.extend_from_slice(&bytes[at + a..at + a + b]);
    swapped.extend_from_slice(&bytes[at..at + a]);
    swapped.extend_from_slice(&bytes[at + a + b..]);
    if a != b {
        assert!(read_segment("k", &swapped, FORMAT_VERSION, None).is_err());
    }
}
