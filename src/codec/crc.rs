//! CRC-32C (Castagnoli) of blobs.
//!
//! Natively the `crc32c` crate (SSE 4.2 / ARMv8 CRC instructions). wasm has
//! no such instructions, and the crate's software path links its 8 KB
//! slicing table as data, incompressible (~8 KB of the gzipped wasm): the
//! wasm build computes the same slicing-by-8 table on first use instead.

/// CRC-32C of `data`.
pub fn crc32c(data: &[u8]) -> u32 {
    crc32c_append(0, data)
}

/// CRC-32C of the bytes whose CRC is `crc` followed by `data` (a stream's
/// CRC, part by part).
#[cfg(not(target_arch = "wasm32"))]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    crc32c::crc32c_append(crc, data)
}

/// CRC-32C of the bytes whose CRC is `crc` followed by `data`.
#[cfg(target_arch = "wasm32")]
pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
    soft::crc32c_append(crc, data)
}

/// Table-driven slicing-by-8, the algorithm of the crate's software path.
/// Compiled on every target so that native tests compare it with the crate.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
mod soft {
    use std::sync::OnceLock;

    /// Reflected Castagnoli polynomial.
    const POLY: u32 = 0x82F6_3B78;

    type Table = [[u32; 256]; 8];

    /// `t[0]` is the byte-at-a-time table; `t[k][i]` is the CRC of byte `i`
    /// followed by `k` zero bytes, so one u64 step XORs eight lookups.
    fn table() -> &'static Table {
        static TABLE: OnceLock<Box<Table>> = OnceLock::new();
        TABLE.get_or_init(|| {
            let mut t = Box::new([[0u32; 256]; 8]);
            for i in 0..256 {
                let mut crc = i as u32;
                for _ in 0..8 {
                    crc = (crc >> 1) ^ (POLY & (crc & 1).wrapping_neg());
                }
                t[0][i] = crc;
            }
            for k in 1..8 {
                for i in 0..256 {
                    let prev = t[k - 1][i];
                    t[k][i] = (prev >> 8) ^ t[0][prev as usize & 0xff];
                }
            }
            t
        })
    }

    #[cfg(test)]
    pub fn crc32c(data: &[u8]) -> u32 {
        crc32c_append(0, data)
    }

    pub fn crc32c_append(crc: u32, data: &[u8]) -> u32 {
        let t = table();
        let mut crc = !crc;
        let mut chunks = data.chunks_exact(8);
        for chunk in &mut chunks {
            let v = u64::from(crc) ^ u64::from_le_bytes(chunk.try_into().unwrap());
            crc = t[7][v as u8 as usize]
                ^ t[6][(v >> 8) as u8 as usize]
                ^ t[5][(v >> 16) as u8 as usize]
                ^ t[4][(v >> 24) as u8 as usize]
                ^ t[3][(v >> 32) as u8 as usize]
                ^ t[2][(v >> 40) as u8 as usize]
                ^ t[1][(v >> 48) as u8 as usize]
                ^ t[0][(v >> 56) as usize];
        }
        for &b in chunks.remainder() {
            crc = t[0][(crc as u8 ^ b) as usize] ^ (crc >> 8);
        }
        !crc
    }
}

#[cfg(test)]
mod tests {
    use super::soft;

    #[test]
    fn software_crc_equals_the_crate() {
        // xorshift: deterministic bytes without a dev-dependency.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let data: Vec<u8> = (0..4096).map(|_| next() as u8).collect();
        assert_eq!(soft::crc32c(b""), 0);
        // The check value of CRC-32C.
        assert_eq!(soft::crc32c(b"123456789"), 0xE306_9283);
        // Every length 0..=64 at every alignment 0..8, then random slices.
        for start in 0..8 {
            for len in 0..=64 {
                let s = &data[start..start + len];
                assert_eq!(soft::crc32c(s), crc32c::crc32c(s), "{start}+{len}");
            }
        }
        for _ in 0..200 {
            let start = next() as usize % data.len();
            let len = next() as usize % (data.len() - start + 1);
            let s = &data[start..start + len];
            assert_eq!(soft::crc32c(s), crc32c::crc32c(s), "{start}+{len}");
        }
        assert_eq!(soft::crc32c(&data), crc32c::crc32c(&data));
        // Part by part gives the CRC of the whole.
        let (a, b) = data.split_at(1001);
        assert_eq!(
            soft::crc32c_append(soft::crc32c(a), b),
            crc32c::crc32c(&data)
        );
    }
}
