//! Fault injection: wraps a storage and fails the n-th mutating operation
//! (put, delete or swap), either once (`Fail`) or from then on (`Stop`, like a
//! crashed process).

use std::cell::Cell;

use super::Storage;
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultMode {
    /// Only the n-th mutation fails.
    Fail,
    /// The n-th and every later mutation fail.
    Stop,
}

pub struct FaultyStorage<S> {
    inner: S,
    fail_at: Cell<Option<u64>>,
    mode: FaultMode,
    mutations: Cell<u64>,
}

impl<S: Storage> FaultyStorage<S> {
    pub fn new(inner: S) -> Self {
        FaultyStorage {
            inner,
            fail_at: Cell::new(None),
            mode: FaultMode::Fail,
            mutations: Cell::new(0),
        }
    }

    /// Arms a fault at mutation number `n` (0-based, counted from now).
    pub fn fail_at(mut self, n: u64, mode: FaultMode) -> Self {
        self.fail_at.set(Some(self.mutations.get() + n));
        self.mode = mode;
        self
    }

    /// Mutations performed (or attempted) so far.
    pub fn mutations(&self) -> u64 {
        self.mutations.get()
    }

    pub fn inner(&self) -> &S {
        &self.inner
    }

    fn check(&self, key: &str) -> Result<()> {
        let n = self.mutations.get();
        self.mutations.set(n + 1);
        let hit = match (self.fail_at.get(), self.mode) {
            (Some(at), FaultMode::Fail) => n == at,
            (Some(at), FaultMode::Stop) => n >= at,
            (None, _) => false,
        };
        if hit {
            return Err(Error::Storage {
                key: key.to_string(),
                reason: format!("injected fault at mutation {n}"),
                adapter_reason: None,
            });
        }
        Ok(())
    }
}

impl<S: Storage> Storage for FaultyStorage<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.inner.get(key).await
    }
    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        self.check(key)?;
        self.inner.put(key, value).await
    }
    async fn delete(&self, key: &str) -> Result<()> {
        self.check(key)?;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        self.inner.list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        self.check(key)?;
        self.inner.swap(key, expected, value).await
    }
}
