//! Memory while building: the write buffer flushes at a byte budget, merges
//! stop at a byte cap, and snapshots are written and read part by part.
//! Results never depend on how documents are split into segments, so each
//! test compares against an index built with one flush.

mod common;

use memdex::index::SnapshotReader;
use memdex::json::{self, Value};
use memdex::{Index, IndexConfig};

const TOPICS: &[&str] = &[
    "deploy the service on friday",
    "user prefers dark mode in the editor",
    "rust wasm build uses lto",
    "indexeddb stores segments in the browser",
    "merge policy keeps segments logarithmic",
    "the agent remembers decisions and rules",
];

fn doc(i: usize) -> Value {
    json::parse(&format!(
        r#"{{"id":"m{i}","title":"memory {i}","text":"{} number {i} {}","kind":"{}"}}"#,
        TOPICS[i % TOPICS.len()],
        TOPICS[(i * 7 + 3) % TOPICS.len()],
        if i % 2 == 0 { "note" } else { "rule" },
    ))
    .unwrap()
}

/// The visible state (`common::fingerprint`) over this file's queries.
fn fingerprint(index: &mut Index) -> Vec<String> {
    common::fingerprint(
        index,
        &[
            "deploy friday",
            "segments",
            "agent rules",
            "memory 7",
            "number 1234",
        ],
    )
}

/// `n` documents, every 10th deleted; `budget`: (flush bytes, merge cap).
fn build(n: usize, budget: Option<(usize, usize)>) -> Index {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    if let Some((flush, cap)) = budget {
        index.set_write_budget(flush, cap);
    }
    for i in 0..n {
        index.add(&doc(i)).unwrap();
    }
    for i in (0..n).step_by(10) {
        index.delete(&format!("m{i}"));
    }
    index
}

#[test]
fn the_buffer_flushes_at_its_byte_budget() {
    let mut whole = build(3000, None);
    let mut budgeted = build(3000, Some((32 << 10, usize::MAX)));
    // Flushed by adds alone: most documents are in segments before any
    // explicit flush, the buffer holds less than the budget's worth.
    let buffered = budgeted.stats().buffered;
    assert!(buffered < 1000, "{buffered} documents still buffered");
    assert!(budgeted.stats().segments >= 1);
    whole.flush();
    assert_eq!(whole.stats().segments, 1);
    assert_eq!(fingerprint(&mut budgeted), fingerprint(&mut whole));
}

#[test]
fn merges_stop_at_the_cap() {
    let mut whole = build(3000, None);
    let uncapped = build(3000, Some((32 << 10, usize::MAX))).stats().segments;
    let mut capped = build(3000, Some((32 << 10, 256 << 10)));
    let stats = capped.stats();
    assert!(
        stats.segments > uncapped,
        "{} segments, uncapped {uncapped}",
        stats.segments
    );
    assert_eq!(fingerprint(&mut capped), fingerprint(&mut whole));
    // Compacting merges regardless of the cap.
    capped.compact();
    assert_eq!(capped.stats().segments, 1);
    assert_eq!(fingerprint(&mut capped), fingerprint(&mut whole));
}

/// Every part of a snapshot export.
fn parts(index: &mut Index) -> Vec<Vec<u8>> {
    let mut stream = index.snapshot_parts();
    std::iter::from_fn(|| stream.next_part()).collect()
}

fn read(pieces: impl IntoIterator<Item = Vec<u8>>) -> memdex::Result<Index> {
    let mut reader = SnapshotReader::default();
    for piece in pieces {
        reader.push(&piece)?;
    }
    reader.finish()
}

/// `bytes` cut every `size` bytes.
fn cut(bytes: &[u8], size: usize) -> Vec<Vec<u8>> {
    bytes.chunks(size).map(<[u8]>::to_vec).collect()
}

#[test]
fn snapshot_parts_round_trip() {
    let mut index = build(2000, Some((32 << 10, 128 << 10)));
    assert!(index.stats().segments > 2);
    let want = fingerprint(&mut index);
    let pieces = parts(&mut index);
    assert!(pieces.len() > 3, "{} parts", pieces.len());
    let whole: Vec<u8> = pieces.concat();
    // The parts are one snapshot: the whole import reads them...
    assert_eq!(
        fingerprint(&mut Index::import_snapshot(&whole).unwrap()),
        want
    );
    // ...and the part reader reads them however they are cut.
    for size in [1, 7, 4096, whole.len()] {
        assert_eq!(
            fingerprint(&mut read(cut(&whole, size)).unwrap()),
            want,
            "cut every {size}"
        );
    }
    assert_eq!(fingerprint(&mut read(pieces).unwrap()), want);
    // The whole export is the same layout: the part reader takes it.
    let bytes = index.export_snapshot();
    assert_eq!(bytes.len(), whole.len());
    assert_eq!(fingerprint(&mut read(cut(&bytes, 65536)).unwrap()), want);
    // Writes after a stream started do not change it.
    let mut stream = index.snapshot_parts();
    index.add(&doc(99_999)).unwrap();
    index.flush();
    let later: Vec<u8> = std::iter::from_fn(|| stream.next_part())
        .flatten()
        .collect();
    assert_eq!(
        fingerprint(&mut Index::import_snapshot(&later).unwrap()),
        want
    );
    // An empty index too.
    let mut empty = Index::new(IndexConfig::default()).unwrap();
    let mut copy = read(parts(&mut empty)).unwrap();
    assert_eq!(copy.len(), 0);
    assert_eq!(fingerprint(&mut copy), fingerprint(&mut empty));
}

#[test]
fn a_damaged_or_cut_stream_is_corrupt() {
    let mut index = build(500, Some((16 << 10, 64 << 10)));
    let whole = parts(&mut index).concat();
    let code = |pieces: Vec<Vec<u8>>| read(pieces).err().map(|e| e.code().to_string());
    // Any flipped byte: at the header at once, elsewhere at the checksum.
    for at in [
        0,
        5,
        8,
        12,
        30,
        whole.len() / 2,
        whole.len() - 40,
        whole.len() - 1,
    ] {
        let mut bad = whole.clone();
        bad[at] ^= 0x20;
        assert_eq!(
            code(cut(&bad, 1000)).as_deref(),
            Some("CORRUPT"),
            "byte {at} flipped"
        );
    }
    for keep in [0, 10, 17, whole.len() / 3, whole.len() - 4, whole.len() - 1] {
        assert_eq!(
            code(cut(&whole[..keep], 333)).as_deref(),
            Some("CORRUPT"),
            "cut at {keep}"
        );
    }
    let mut longer = whole.clone();
    longer.push(0);
    assert_eq!(
        code(vec![whole.clone(), vec![0]]).as_deref(),
        Some("CORRUPT")
    );
    assert_eq!(code(vec![longer]).as_deref(), Some("CORRUPT"));
    // A length no snapshot has fails as soon as it is read.
    let mut huge = whole[..17].to_vec();
    huge.extend_from_slice(&u64::MAX.to_le_bytes());
    let mut reader = SnapshotReader::default();
    assert_eq!(reader.push(&huge).err().unwrap().code(), "CORRUPT");
    assert!(code(vec![whole]).is_none());
}
