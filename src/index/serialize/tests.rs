use super::*;
use crate::codec::blob::FORMAT_VERSION;
use crate::json::parse;
use crate::schema::IndexConfig;
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
    let bytes = write_segment(&seg);
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
    assert_eq!(write_segment(&back), bytes, "a fixpoint");
}

#[test]
fn part_sizes_cover_the_whole_segment() {
    let seg = segment();
    let total: usize = part_sizes(&seg).iter().map(|p| p.1).sum();
    assert_eq!(total, write_segment(&seg).len());
}

/// Every truncation and a flipped bit at every byte: an error or a segment,
/// never a panic (the CRC stops such bytes before here; this is the reader's
/// own bounds checking).
#[test]
fn damaged_segment_bytes_never_panic() {
    let bytes = write_segment(&segment());
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

/// A count the blob cannot hold is refused before anything is allocated.
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
    let err = read_segment("k", &w.buf, FORMAT_VERSION, None)
        .err()
        .unwrap();
    assert!(err.to_string().contains("field length"), "{err}");
}
