//! Filter columns. Keyword values are an inverted map value -> sorted docs
//! (membership filters touch only matching docs); numbers and booleans are
//! dense per-document arrays (range filters scan).

use rustc_hash::FxHashMap as HashMap;

/// value -> sorted local doc ids.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct KeywordColumn {
    pub values: HashMap<String, Vec<u32>>,
}

impl KeywordColumn {
    pub fn push(&mut self, doc: u32, value: &str) {
        // Look up before inserting: most pushes hit an existing value, and
        // `entry` would allocate the key every time.
        let docs = match self.values.get_mut(value) {
            Some(docs) => docs,
            None => self.values.entry(value.to_string()).or_default(),
        };
        // A document may list the same value twice; keep docs unique.
        if docs.last() != Some(&doc) {
            docs.push(doc);
        }
    }

    pub fn docs(&self, value: &str) -> &[u32] {
        self.values.get(value).map_or(&[], Vec::as_slice)
    }
}

/// One filter field's values for a segment, by local doc id.
#[derive(Debug, Clone, PartialEq)]
pub enum Column {
    Keyword(KeywordColumn),
    /// Numbers and dates (epoch milliseconds); NaN = missing.
    Number(Vec<f64>),
    /// 0 = false, 1 = true, 2 = missing.
    Boolean(Vec<u8>),
    /// Per document, its `(type, to)` edges in document order.
    Links(super::LinkColumn),
}

impl Column {
    pub fn heap_bytes(&self) -> usize {
        match self {
            Column::Keyword(k) => k
                .values
                .iter()
                .map(|(v, d)| v.len() + d.len() * 4 + 48)
                .sum(),
            Column::Number(v) => v.len() * 8,
            Column::Boolean(v) => v.len(),
            Column::Links(v) => v.heap_bytes(),
        }
    }
}
