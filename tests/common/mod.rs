//! Helpers shared by the native integration tests (`mod common;`).
#![allow(dead_code)] // each test crate uses its own subset

/// Bitwise CRC32C (Castagnoli), independent of the crate under test.
pub fn crc32c(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0x82F6_3B78
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// Recomputes a blob's trailing CRC after an edit (a tamperer would).
pub fn reseal(blob: &mut [u8]) {
    let n = blob.len() - 4;
    let crc = crc32c(&blob[..n]);
    blob[n..].copy_from_slice(&crc.to_le_bytes());
}

/// The ids of a search's hits, in order, over every write so far.
pub fn hit_ids(index: &mut memdex::Index, q: &str, opts: &memdex::SearchOptions) -> Vec<String> {
    let results = index.searcher().search(q, opts).unwrap();
    results.hits.into_iter().map(|h| h.id).collect()
}

/// The visible state: the document count and the ranked ids and scores of
/// `queries` in OR and AND mode (limit 20).
pub fn fingerprint(index: &mut memdex::Index, queries: &[&str]) -> Vec<String> {
    let mut out = vec![format!("len={}", index.len())];
    for q in queries {
        for mode in [memdex::Mode::Or, memdex::Mode::And] {
            let opts = memdex::SearchOptions {
                mode,
                limit: 20,
                ..Default::default()
            };
            let hits = index.searcher().search(q, &opts).unwrap().hits;
            let hits: Vec<String> = hits
                .iter()
                .map(|h| format!("{}:{:.5}", h.id, h.score))
                .collect();
            out.push(format!("{q}/{mode:?}: {}", hits.join(",")));
        }
    }
    out
}
