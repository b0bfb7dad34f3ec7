//! Little-endian section writer and a bounds-checked reader whose every
//! failure is a `CORRUPT` error naming the blob.

use super::varint;
use crate::error::{Error, Result};

#[derive(Default)]
pub struct ByteWriter {
    pub buf: Vec<u8>,
}

impl ByteWriter {
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn f64(&mut self, v: f64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }
    pub fn varint(&mut self, v: u32) {
        varint::write_u32(&mut self.buf, v);
    }
    /// Length-prefixed bytes.
    pub fn bytes(&mut self, v: &[u8]) {
        self.u64(v.len() as u64);
        self.buf.extend_from_slice(v);
    }
    pub fn str(&mut self, v: &str) {
        self.bytes(v.as_bytes());
    }
    /// `varint`-length-prefixed bytes (format 4's short strings).
    pub fn short_bytes(&mut self, v: &[u8]) {
        self.varint(v.len() as u32);
        self.buf.extend_from_slice(v);
    }
    pub fn u32s(&mut self, v: &[u32]) {
        self.u64(v.len() as u64);
        for &x in v {
            self.u32(x);
        }
    }
}

pub struct ByteReader<'a> {
    buf: &'a [u8],
    pos: usize,
    key: &'a str,
}

impl<'a> ByteReader<'a> {
    pub fn new(key: &'a str, buf: &'a [u8]) -> Self {
        ByteReader { buf, pos: 0, key }
    }

    pub fn corrupt(&self, reason: impl Into<String>) -> Error {
        Error::Corrupt {
            key: self.key.to_string(),
            reason: reason.into(),
        }
    }

    /// The key this reader names in its `CORRUPT` errors.
    pub fn key(&self) -> &'a str {
        self.key
    }

    /// The next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        let end = end.ok_or_else(|| self.corrupt(format!("truncated at byte {}", self.pos)))?;
        let s = &self.buf[self.pos..end];
        self.pos = end;
        Ok(s)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }
    pub fn u32(&mut self) -> Result<u32> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub fn u64(&mut self) -> Result<u64> {
        let b = self.take(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }
    pub fn f64(&mut self) -> Result<f64> {
        Ok(f64::from_bits(self.u64()?))
    }
    /// A LEB128 u32 of at most 5 bytes; a longer, larger or truncated one
    /// is `CORRUPT`.
    pub fn varint(&mut self) -> Result<u32> {
        let start = self.pos;
        if let Some(&b) = self.buf.get(start) {
            if b < 0x80 {
                self.pos += 1;
                return Ok(b as u32);
            }
        }
        let v = varint::read_u64(self.buf, &mut self.pos);
        let ended = self
            .buf
            .get(self.pos.wrapping_sub(1))
            .is_some_and(|&b| b < 0x80);
        if self.pos == start || !ended || self.pos - start > 5 || v > u32::MAX as u64 {
            return Err(self.corrupt(format!("invalid varint at byte {start}")));
        }
        Ok(v as u32)
    }
    /// Bytes after a `varint` length.
    pub fn short_bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.varint()? as usize;
        self.take(n)
    }
    pub fn short_str(&mut self) -> Result<&'a str> {
        let b = self.short_bytes()?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("invalid UTF-8 string"))
    }
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// A length that must fit in the remaining bytes given `unit` bytes each.
    pub fn len(&mut self, unit: usize) -> Result<usize> {
        let n = self.u64()?;
        let remaining = (self.buf.len() - self.pos) as u64;
        if n.saturating_mul(unit.max(1) as u64) > remaining {
            return Err(self.corrupt(format!("length {n} exceeds the blob")));
        }
        Ok(n as usize)
    }
    pub fn bytes(&mut self) -> Result<&'a [u8]> {
        let n = self.len(1)?;
        self.take(n)
    }
    pub fn str(&mut self) -> Result<&'a str> {
        let b = self.bytes()?;
        std::str::from_utf8(b).map_err(|_| self.corrupt("invalid UTF-8 string"))
    }
    pub fn u32s(&mut self) -> Result<Vec<u32>> {
        let n = self.len(4)?;
        (0..n).map(|_| self.u32()).collect()
    }
    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }
}
