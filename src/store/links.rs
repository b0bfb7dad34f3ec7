//! A links field's edges in a segment: only the documents that have some.
//! Most documents of most indexes link nothing, and a list per document
//! cost 24 bytes each whether empty or not (24 MB at 1M documents).

/// Edges `(type, to)` by local doc id, in each document's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LinkColumn {
    /// Documents covered (those after the last with edges have none).
    len: usize,
    /// The documents with edges, increasing, and their edges.
    docs: Vec<u32>,
    edges: Vec<Vec<(String, String)>>,
}

impl LinkColumn {
    /// Appends the next document's edges.
    pub fn push(&mut self, edges: Vec<(String, String)>) {
        if !edges.is_empty() {
            self.docs.push(self.len as u32);
            self.edges.push(edges);
        }
        self.len += 1;
    }

    /// The edges of `doc` (none past the last document).
    pub fn get(&self, doc: u32) -> &[(String, String)] {
        match self.docs.binary_search(&doc) {
            Ok(i) => &self.edges[i],
            Err(_) => &[],
        }
    }

    /// Documents covered.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Covers `n` documents, the new ones without edges.
    pub fn pad(&mut self, n: usize) {
        self.len = self.len.max(n);
    }

    /// The documents that have edges, with them.
    pub fn with_edges(&self) -> impl Iterator<Item = (u32, &[(String, String)])> {
        self.docs
            .iter()
            .copied()
            .zip(self.edges.iter().map(Vec::as_slice))
    }

    pub fn heap_bytes(&self) -> usize {
        self.docs.len() * 4
            + self
                .edges
                .iter()
                .map(|l| {
                    24 + l
                        .iter()
                        .map(|(t, to)| t.len() + to.len() + 48)
                        .sum::<usize>()
                })
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_without_edges_take_no_room_and_read_empty() {
        let mut col = LinkColumn::default();
        let edge = |to: &str| vec![("NEXT".to_string(), to.to_string())];
        col.push(Vec::new());
        col.push(edge("a"));
        col.push(Vec::new());
        col.push(edge("b"));
        col.pad(10);
        assert_eq!(col.len(), 10);
        assert_eq!(col.get(0), &[]);
        assert_eq!(col.get(1), &edge("a")[..]);
        assert_eq!(col.get(3), &edge("b")[..]);
        assert_eq!(col.get(9), &[]);
        assert_eq!(col.get(99), &[]);
        assert_eq!(col.with_edges().map(|(d, _)| d).collect::<Vec<_>>(), [1, 3]);
        col.push(edge("c"));
        assert_eq!(col.get(10), &edge("c")[..]);
    }
}
