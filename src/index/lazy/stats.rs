//! What a lazy index reports through `stats()`.

/// What a lazy index holds and did, for `stats()`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LazyStats {
    /// The bound on units held between searches, in bytes.
    pub limit: u64,
    /// Bytes of units held now.
    pub bytes: u64,
    /// Bytes of the committed index (heads and bodies of its segments).
    pub committed_bytes: u64,
    /// Units a search needed that were held.
    pub hits: u64,
    /// Blobs read from storage after the open.
    pub fetches: u64,
    /// Bytes of those blobs.
    pub fetched_bytes: u64,
    /// Bytes of the units the last search used (held beyond `limit` while
    /// it ran if need be).
    pub last_search_bytes: u64,
}

impl crate::json::ToJson for LazyStats {
    fn write_json(&self, out: &mut String) {
        crate::json::Object::new(out)
            .field("limit", &self.limit)
            .field("bytes", &self.bytes)
            .field("committedBytes", &self.committed_bytes)
            .field("hits", &self.hits)
            .field("fetches", &self.fetches)
            .field("fetchedBytes", &self.fetched_bytes)
            .field("lastSearchBytes", &self.last_search_bytes)
            .end();
    }
}
