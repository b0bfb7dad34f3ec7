//! Fault injection: wraps a storage and fails the n-th mutating operation
//! (put, delete or swap), either once (`Fail`) or from then on (`Stop`, like a
//! crashed process), or performs it and then reports a failure
//! (`FailAfter`, like a sync that fails after the write landed).

use std::cell::Cell;

use super::Storage;
use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultMode {
    /// Only the n-th mutation fails.
    Fail,
    /// The n-th and every later mutation fail.
    Stop,
    /// The n-th mutation is performed, then reports a failure.
    FailAfter,
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

    /// Counts a mutation of `key`; `Err` when it must fail before it is
    /// performed, `Ok(Some(err))` when after.
    fn check(&self, key: &str) -> Result<Option<Error>> {
        let n = self.mutations.get();
        self.mutations.set(n + 1);
        let hit = match (self.fail_at.get(), self.mode) {
            (Some(at), FaultMode::Fail | FaultMode::FailAfter) => n == at,
            (Some(at), FaultMode::Stop) => n >= at,
            (None, _) => false,
        };
        let fault = hit.then(|| Error::Storage {
            key: key.to_string(),
            reason: format!("injected fault at mutation {n}"),
            adapter_reason: None,
        });
        match (fault, self.mode) {
            (Some(e), FaultMode::FailAfter) => Ok(Some(e)),
            (Some(e), _) => Err(e),
            (None, _) => Ok(None),
        }
    }
}

/// `result`, or `after` when the mutation was to fail once performed.
fn then_fail<T>(result: Result<T>, after: Option<Error>) -> Result<T> {
    match after {
        Some(e) => result.and(Err(e)),
        None => result,
    }
}

impl<S: Storage> Storage for FaultyStorage<S> {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        self.inner.get(key).await
    }
    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        let after = self.check(key)?;
        then_fail(self.inner.put(key, value).await, after)
    }
    async fn delete(&self, key: &str) -> Result<()> {
        let after = self.check(key)?;
        then_fail(self.inner.delete(key).await, after)
    }
    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        self.inner.list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        let after = self.check(key)?;
        then_fail(self.inner.swap(key, expected, value).await, after)
    }
    fn part_bytes(&self) -> usize {
        self.inner.part_bytes()
    }
}
