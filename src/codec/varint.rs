//! LEB128 variable-length unsigned integers.
//!
//! Decoding never panics: reading past the end yields zero bytes, so corrupt
//! input produces garbage numbers, never a crash. Callers that read untrusted
//! bytes verify a checksum first (see the persistence format).

#[inline]
pub fn write_u32(out: &mut Vec<u8>, mut value: u32) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

#[inline]
pub fn write_u64(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a u32 at `*pos`, advancing it.
#[inline]
pub fn read_u32(buf: &[u8], pos: &mut usize) -> u32 {
    // Fast path: one byte.
    if let Some(&b) = buf.get(*pos) {
        if b < 0x80 {
            *pos += 1;
            return b as u32;
        }
    }
    read_u64(buf, pos) as u32
}

#[inline]
pub fn read_u64(buf: &[u8], pos: &mut usize) -> u64 {
    let mut value = 0u64;
    let mut shift = 0u32;
    loop {
        let byte = match buf.get(*pos) {
            Some(&b) => b,
            None => return value,
        };
        *pos += 1;
        if shift < 64 {
            value |= ((byte & 0x7f) as u64) << shift;
        }
        if byte < 0x80 {
            return value;
        }
        shift += 7;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_edge_values() {
        let values = [0u32, 1, 127, 128, 16_383, 16_384, u32::MAX];
        let mut buf = Vec::new();
        for &v in &values {
            write_u32(&mut buf, v);
        }
        let mut pos = 0;
        for &v in &values {
            assert_eq!(read_u32(&buf, &mut pos), v);
        }
        assert_eq!(pos, buf.len());
    }

    #[test]
    fn truncated_input_does_not_panic() {
        let mut pos = 0;
        assert_eq!(read_u32(&[0x80, 0x80], &mut pos), 0);
        assert_eq!(read_u64(&[], &mut 0), 0);
    }
}
