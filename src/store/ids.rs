//! A doc store's external ids in one buffer: a million ids are two
//! allocations instead of a million `String`s (24 bytes of header each, and
//! the time to make them when a segment is read).

/// Ids by local doc id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ids {
    text: String,
    /// End of each id in `text`.
    ends: Vec<u32>,
}

impl Ids {
    pub fn with_capacity(n: usize) -> Ids {
        Ids {
            text: String::new(),
            ends: Vec::with_capacity(n),
        }
    }

    pub fn push(&mut self, id: &str) {
        self.text.push_str(id);
        // A segment's ids stay far below 4 GiB (its blobs are smaller).
        self.ends.push(self.text.len() as u32);
    }

    pub fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)? as usize;
        let start = i.checked_sub(1).map_or(0, |p| self.ends[p] as usize);
        self.text.get(start..end)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|i| self.get(i).unwrap_or(""))
    }

    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4
    }
}
