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

    /// Ids whose bytes are `text` and ends `ends` (increasing, the last at
    /// its length), if every one of them is UTF-8.
    pub fn from_parts(text: Vec<u8>, ends: Vec<u32>) -> Option<Ids> {
        let text = String::from_utf8(text).ok()?;
        // Valid as a whole and cut at character boundaries: valid each.
        let cut = ends.iter().all(|&e| text.is_char_boundary(e as usize));
        let ordered = ends.windows(2).all(|w| w[0] <= w[1]);
        let last = ends.last().map_or(0, |&e| e as usize);
        (cut && ordered && last == text.len()).then_some(Ids { text, ends })
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

    /// The local doc id of `id`, by a scan (a lazy index has no id map:
    /// ~1 ms per 100k ids natively).
    pub fn position(&self, id: &str) -> Option<usize> {
        let (id, text) = (id.as_bytes(), self.text.as_bytes());
        let mut start = 0;
        for (i, &end) in self.ends.iter().enumerate() {
            let end = end as usize;
            if end - start == id.len() && &text[start..end] == id {
                return Some(i);
            }
            start = end;
        }
        None
    }

    pub fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_parts_takes_only_ids_that_are_utf8_each() {
        let ids = Ids::from_parts("abcé".as_bytes().to_vec(), vec![1, 3, 5]).unwrap();
        assert_eq!(ids.iter().collect::<Vec<_>>(), ["a", "bc", "é"]);
        // Valid as a whole, but cut inside `é`.
        assert!(Ids::from_parts("abcé".as_bytes().to_vec(), vec![1, 4, 5]).is_none());
        assert!(Ids::from_parts(vec![0xff], vec![1]).is_none());
        assert!(Ids::from_parts(b"ab".to_vec(), vec![2, 1]).is_none());
        assert!(Ids::from_parts(b"ab".to_vec(), vec![1]).is_none());
    }

    #[test]
    fn position_finds_whole_ids_only() {
        let ids = Ids::from_parts(b"abcabc".to_vec(), vec![1, 3, 6]).unwrap();
        assert_eq!(ids.position("a"), Some(0));
        assert_eq!(ids.position("bc"), Some(1));
        assert_eq!(ids.position("abc"), Some(2));
        assert_eq!(ids.position("ab"), None);
        assert_eq!(ids.position(""), None);
    }
}
