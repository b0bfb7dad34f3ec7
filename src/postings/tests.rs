use super::*;

/// Builds a 2-field store for one term present in `docs` (tf = doc % 3 + 1 in
/// field doc % 2).
fn build(docs: &[u32]) -> (PostingsStore, TermInfo) {
    let mut enc = TermPostingsEncoder::new(2);
    for &d in docs {
        let positions: Vec<u32> = (0..(d % 3 + 1)).map(|i| i * 2 + d % 5).collect();
        enc.push(
            d,
            &positions,
            &[((d % 2) as usize, 0, positions.len())],
            &[10, 20],
        );
    }
    let mut store = PostingsStore::new(2);
    // A preceding term so offsets are non-zero.
    let mut other = TermPostingsEncoder::new(2);
    other.push(3, &[1], &[(0, 0, 1)], &[1, 1]);
    store.append(&other);
    let info = store.append(&enc);
    (store, info)
}

#[test]
fn iterates_all_docs_with_tfs_and_positions() {
    let docs: Vec<u32> = (0..1000).map(|i| i * 3 + 1).collect();
    let (store, info) = build(&docs);
    assert_eq!(info.doc_freq, 1000);
    assert_eq!(info.n_blocks, 8);
    let mut c = store.cursor(info);
    for &d in &docs {
        assert_eq!(c.doc(), d);
        let field = (d % 2) as usize;
        assert_eq!(c.tf(field), d % 3 + 1);
        assert_eq!(c.tf(1 - field), 0);
        let expected: Vec<u32> = (0..(d % 3 + 1)).map(|i| i * 2 + d % 5).collect();
        assert_eq!(c.positions(field), expected);
        c.advance();
    }
    assert_eq!(c.doc(), TERMINATED);
}

#[test]
fn seek_lands_on_first_doc_at_or_after_target() {
    let docs: Vec<u32> = (0..1000).map(|i| i * 7).collect();
    let (store, info) = build(&docs);
    for target in [0, 1, 6, 7, 8, 895, 896, 897, 5000, 6993, 6994] {
        let mut c = store.cursor(info);
        let got = c.seek(target);
        let want = docs
            .iter()
            .copied()
            .find(|&d| d >= target)
            .unwrap_or(TERMINATED);
        assert_eq!(got, want, "target {target}");
    }
    // Successive seeks move forward only.
    let mut c = store.cursor(info);
    assert_eq!(c.seek(100), 105);
    assert_eq!(c.seek(50), 105);
    assert_eq!(c.seek(2000), 2002);
}

#[test]
fn block_bounds_hold_max_tf_and_min_len() {
    let docs: Vec<u32> = (0..200).collect();
    let (store, info) = build(&docs);
    let b = store.block_bounds(info.first_block as usize);
    assert_eq!(
        b[0],
        FieldBound {
            max_tf: 3,
            min_len: 10
        }
    );
    assert_eq!(
        b[1],
        FieldBound {
            max_tf: 3,
            min_len: 20
        }
    );
}
