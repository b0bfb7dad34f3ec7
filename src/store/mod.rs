//! Per-segment document data: external ids, stored fields, and the columns
//! that filters read (keyword sets, numbers, booleans).

mod cache;
mod columns;
mod deflate;
mod fields;
mod id_order;
mod ids;
mod lazy;
mod links;
mod pages;
mod rows;

use std::sync::Arc;

pub use cache::{byte_count, CacheStats, PageCache, UnpackedPage};
pub use columns::{Column, KeywordColumn};
pub use fields::StoredFields;
pub use id_order::IdOrder;
pub(crate) use ids::hash_id;
pub use ids::{read_ids, write_ids, Ids, IdsDir, IDS_PER_BLOCK};
pub use links::LinkColumn;
pub use pages::{read_page_dir, read_pages, write_pages, PageDir, PAGE_BYTES};

use crate::json::{self, Map, Value};

/// External ids and stored fields of a segment's documents, by local doc id.
/// The stored fields are held as written, or packed in pages that a shared
/// [`PageCache`] unpacks on demand (an index opened with `cacheBytes`).
#[derive(Debug, Clone)]
pub struct DocStore {
    ids: Ids,
    stored: Stored,
}

#[derive(Debug, Clone)]
enum Stored {
    /// Stored fields of doc `d` are JSON at `bytes[offsets[d]..offsets[d+1]]`.
    Raw {
        bytes: Vec<u8>,
        offsets: Vec<u32>,
    },
    Packed(Arc<pages::PackedPages>),
    /// A lazily opened segment's: pages held once fetched.
    Lazy(Arc<lazy::LazyPages>),
}

impl Default for DocStore {
    fn default() -> Self {
        DocStore::new()
    }
}

/// Equal ids and stored fields, however each side holds them.
impl PartialEq for DocStore {
    fn eq(&self, other: &DocStore) -> bool {
        self.ids == other.ids
            && (0..self.len() as u32).all(|d| *self.stored_bytes(d) == *other.stored_bytes(d))
    }
}

/// A document's stored fields: borrowed from the store, or from an
/// unpacked page the cache may evict meanwhile (this handle keeps it).
pub enum StoredBytes<'a> {
    Slice(&'a [u8]),
    Page(Arc<UnpackedPage>, usize),
}

impl std::ops::Deref for StoredBytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            StoredBytes::Slice(s) => s,
            StoredBytes::Page(page, i) => {
                let (start, end) = page.stored[*i];
                &page.raw[start as usize..end as usize]
            }
        }
    }
}

impl DocStore {
    pub fn new() -> DocStore {
        DocStore {
            ids: Ids::default(),
            stored: Stored::Raw {
                bytes: Vec::new(),
                offsets: vec![0],
            },
        }
    }

    /// Appends a document. A packed store is unpacked first (only the write
    /// buffer and merges push, and they start from new stores).
    pub fn push(&mut self, id: String, stored_json: &[u8]) {
        if let Stored::Packed(_) | Stored::Lazy(_) = self.stored {
            let mut raw = DocStore::new();
            for d in 0..self.len() as u32 {
                raw.push(String::new(), &self.stored_bytes(d));
            }
            self.stored = raw.stored;
        }
        self.ids.push(&id);
        if let Stored::Raw { bytes, offsets } = &mut self.stored {
            bytes.extend_from_slice(stored_json);
            offsets.push(bytes.len() as u32);
        }
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub fn id(&self, doc: u32) -> &str {
        self.ids.get(doc as usize).unwrap_or("")
    }

    pub fn ids(&self) -> &Ids {
        &self.ids
    }

    /// Drops the id blocks unpacked by reads (a lazily opened store) if
    /// they take more than `keep` bytes.
    pub fn release_ids(&mut self, keep: usize) {
        self.ids.release_unpacked(keep);
    }

    pub fn stored_bytes(&self, doc: u32) -> StoredBytes<'_> {
        match &self.stored {
            Stored::Raw { bytes, offsets } => {
                let d = doc as usize;
                StoredBytes::Slice(match (offsets.get(d), offsets.get(d + 1)) {
                    (Some(&s), Some(&e)) => bytes.get(s as usize..e as usize).unwrap_or(&[]),
                    _ => &[],
                })
            }
            Stored::Packed(pages) => match pages.stored(doc) {
                Some((page, i)) => StoredBytes::Page(page, i),
                None => StoredBytes::Slice(&[]),
            },
            Stored::Lazy(pages) => match pages.stored(doc) {
                Some((page, i)) => StoredBytes::Page(page, i),
                None => StoredBytes::Slice(&[]),
            },
        }
    }

    /// A lazily opened segment's store: `ids` held, the pages of `dir`
    /// held only once [`DocStore::provide_page`] gives them.
    pub fn lazy(ids: Ids, dir: &PageDir, cache: Arc<PageCache>) -> DocStore {
        DocStore {
            ids,
            stored: Stored::Lazy(Arc::new(lazy::LazyPages::new(dir, cache))),
        }
    }

    fn lazy_pages(&self) -> Option<&lazy::LazyPages> {
        match &self.stored {
            Stored::Lazy(p) => Some(p),
            _ => None,
        }
    }

    /// Holds page `page`'s packed bytes (a lazy store), once checked.
    pub fn provide_page(&self, page: u32, packed: &[u8]) -> std::result::Result<(), &'static str> {
        self.lazy_pages()
            .ok_or("not a lazy store")?
            .provide(page, packed)
    }

    /// Drops page `page`'s packed bytes (a lazy store).
    pub fn release_page(&self, page: u32) {
        if let Some(p) = self.lazy_pages() {
            p.release(page);
        }
    }

    /// A page of a lazy store found damaged since the last call.
    pub fn take_damaged_page(&self) -> Option<u32> {
        self.lazy_pages()?.take_damaged()
    }

    /// Pages read since the last call, and whether each was held (a lazy
    /// store; others: none).
    pub fn take_asked_pages(&self) -> Vec<(u32, bool)> {
        self.lazy_pages().map_or_else(Vec::new, |p| p.take_asked())
    }

    /// Keeps the stored fields packed, unpacked through `cache` on demand.
    pub fn pack(&mut self, cache: &Arc<PageCache>) {
        if let Stored::Raw { .. } = self.stored {
            let packed = pages::PackedPages::pack(self, cache.clone());
            self.stored = Stored::Packed(Arc::new(packed));
        }
    }

    fn packed(&self) -> Option<&pages::PackedPages> {
        match &self.stored {
            Stored::Packed(p) => Some(p),
            Stored::Raw { .. } | Stored::Lazy(_) => None,
        }
    }

    /// Stored fields (JSON text, namespace split off) and the namespace.
    pub fn stored_fields(&self, doc: u32) -> (StoredFields, Option<String>) {
        StoredFields::split_namespace(&self.stored_bytes(doc))
    }

    /// Stored fields as a JSON object (empty if none or undecodable).
    pub fn stored(&self, doc: u32) -> Map {
        match std::str::from_utf8(&self.stored_bytes(doc)).map(json::parse) {
            Ok(Ok(Value::Object(map))) => map,
            _ => Map::new(),
        }
    }

    pub fn heap_bytes(&self) -> usize {
        let stored = match &self.stored {
            Stored::Raw { bytes, offsets } => bytes.len() + offsets.len() * 4,
            Stored::Packed(p) => p.packed_bytes(),
            Stored::Lazy(p) => p.packed_bytes(),
        };
        stored + self.ids.heap_bytes()
    }
}
