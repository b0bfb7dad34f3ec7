//! Shared low-level encodings. Nothing here knows about documents or terms.
pub mod varint;
