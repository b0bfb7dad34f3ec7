//! Shared low-level encodings: varints, byte sections, blob framing with
//! version and CRC32C. Nothing here knows about documents or terms.
pub mod blob;
pub mod bytes;
pub(crate) mod crc;
pub mod varint;
