//! Per-segment document data: external ids, stored fields, and the columns
//! that filters read (keyword sets, numbers, booleans).

mod columns;
mod fields;
mod pages;

pub use columns::{Column, KeywordColumn};
pub use fields::StoredFields;
pub use pages::{read_pages, write_pages, PAGE_BYTES};

use crate::json::{self, Map, Value};

/// External ids and stored fields of a segment's documents, by local doc id.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocStore {
    ids: Vec<String>,
    /// Stored fields of doc `d` are JSON at `bytes[offsets[d]..offsets[d+1]]`.
    bytes: Vec<u8>,
    offsets: Vec<u32>,
}

impl DocStore {
    pub fn new() -> DocStore {
        DocStore {
            ids: Vec::new(),
            bytes: Vec::new(),
            offsets: vec![0],
        }
    }

    pub fn push(&mut self, id: String, stored_json: &[u8]) {
        self.ids.push(id);
        self.bytes.extend_from_slice(stored_json);
        self.offsets.push(self.bytes.len() as u32);
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn id(&self, doc: u32) -> &str {
        self.ids.get(doc as usize).map_or("", String::as_str)
    }

    pub fn ids(&self) -> &[String] {
        &self.ids
    }

    pub fn stored_bytes(&self, doc: u32) -> &[u8] {
        let d = doc as usize;
        match (self.offsets.get(d), self.offsets.get(d + 1)) {
            (Some(&s), Some(&e)) => self.bytes.get(s as usize..e as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Stored fields (JSON text, namespace split off) and the namespace.
    pub fn stored_fields(&self, doc: u32) -> (StoredFields, Option<String>) {
        StoredFields::split_namespace(self.stored_bytes(doc))
    }

    /// Stored fields as a JSON object (empty if none or undecodable).
    pub fn stored(&self, doc: u32) -> Map {
        match std::str::from_utf8(self.stored_bytes(doc)).map(json::parse) {
            Ok(Ok(Value::Object(map))) => map,
            _ => Map::new(),
        }
    }

    pub fn heap_bytes(&self) -> usize {
        self.bytes.len()
            + self.offsets.len() * 4
            + self.ids.iter().map(|s| s.len() + 24).sum::<usize>()
    }
}
