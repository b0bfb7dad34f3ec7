//! In-memory storage (tests, ephemeral indexes). Clones share the same map,
//! like two handles on one database.

use std::cell::RefCell;
use std::rc::Rc;

use super::Storage;
use crate::error::Result;
use crate::FieldMap;

/// Keys in a sorted `Vec` ([`FieldMap`]): a snapshot import holds a few
/// dozen blobs, and the wasm then needs no B-tree code.
#[derive(Clone, Default)]
pub struct MemoryStorage {
    map: Rc<RefCell<FieldMap<Vec<u8>>>>,
}

impl MemoryStorage {
    pub fn new() -> Self {
        Self::default()
    }

    /// An independent copy (not sharing the map), e.g. to replay a crash.
    pub fn deep_clone(&self) -> Self {
        MemoryStorage {
            map: Rc::new(RefCell::new(self.map.borrow().clone())),
        }
    }

    /// Total bytes stored (for benchmarks).
    pub fn total_bytes(&self) -> usize {
        self.map.borrow().values().map(Vec::len).sum()
    }

    /// Direct access for fault-injection tests (flip bytes, inspect keys).
    pub fn with_map<R>(&self, f: impl FnOnce(&mut FieldMap<Vec<u8>>) -> R) -> R {
        f(&mut self.map.borrow_mut())
    }
}

impl Storage for MemoryStorage {
    fn part_bytes(&self) -> usize {
        super::LOCAL_PART_BYTES
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        Ok(self.map.borrow().get(key).cloned())
    }
    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        self.map
            .borrow_mut()
            .insert(key.to_string(), value.to_vec());
        Ok(())
    }
    async fn delete(&self, key: &str) -> Result<()> {
        self.map.borrow_mut().remove(key);
        Ok(())
    }
    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        Ok(self
            .map
            .borrow()
            .iter_from(prefix)
            .take_while(|(k, _)| k.starts_with(prefix))
            .map(|(k, _)| k.clone())
            .collect())
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        // No await between the read and the write: atomic on one thread.
        let mut map = self.map.borrow_mut();
        if map.get(key).map(Vec::as_slice) != expected {
            return Ok(false);
        }
        map.insert(key.to_string(), value.to_vec());
        Ok(true)
    }
}
