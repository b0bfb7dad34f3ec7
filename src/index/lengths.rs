//! Per-document field lengths of a frozen segment: one array per field, in
//! the narrowest integer type that holds the field's longest value.
//!
//! BM25F reads one length per scored document and field, at scattered doc
//! ids. Doc-major `u32`s (the persisted layout) take 800 KB for two fields
//! at 100k documents, more than a core's L2 cache; titles fit in `u8` and
//! most texts in `u16`, 300 KB in all. Lengths stay exact (scores must match
//! the reference BM25), only their storage narrows.

#[derive(Debug, Clone, PartialEq)]
enum Lengths {
    U8(Box<[u8]>),
    U16(Box<[u16]>),
    U32(Box<[u32]>),
}

impl Lengths {
    fn narrowest(values: Vec<u32>) -> Lengths {
        let max = values.iter().copied().max().unwrap_or(0);
        if max <= u8::MAX as u32 {
            Lengths::U8(values.into_iter().map(|v| v as u8).collect())
        } else if max <= u16::MAX as u32 {
            Lengths::U16(values.into_iter().map(|v| v as u16).collect())
        } else {
            Lengths::U32(values.into_boxed_slice())
        }
    }

    #[inline]
    fn get(&self, doc: usize) -> Option<u32> {
        match self {
            Lengths::U8(v) => v.get(doc).map(|&x| x as u32),
            Lengths::U16(v) => v.get(doc).map(|&x| x as u32),
            Lengths::U32(v) => v.get(doc).copied(),
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Lengths::U8(v) => v.len(),
            Lengths::U16(v) => v.len() * 2,
            Lengths::U32(v) => v.len() * 4,
        }
    }
}

/// Field lengths of `n_docs` documents in `n_fields` text fields.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FieldLengths {
    n_docs: usize,
    fields: Vec<Lengths>,
}

impl FieldLengths {
    /// From the doc-major table `lens[doc * n_fields + field]` (the persisted
    /// layout); a trailing partial row is ignored.
    pub fn from_doc_major(lens: &[u32], n_fields: usize) -> FieldLengths {
        let n_docs = lens.len().checked_div(n_fields).unwrap_or(0);
        let fields = (0..n_fields)
            .map(|f| Lengths::narrowest((0..n_docs).map(|d| lens[d * n_fields + f]).collect()))
            .collect();
        FieldLengths { n_docs, fields }
    }

    /// Length of `field` in `doc`; 0 outside the table.
    #[inline]
    pub fn get(&self, doc: u32, field: usize) -> u32 {
        self.fields
            .get(field)
            .and_then(|lengths| lengths.get(doc as usize))
            .unwrap_or(0)
    }

    /// The doc-major table again (for serialization).
    pub fn to_doc_major(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.n_docs * self.fields.len());
        for doc in 0..self.n_docs as u32 {
            out.extend((0..self.fields.len()).map(|f| self.get(doc, f)));
        }
        out
    }

    pub fn heap_bytes(&self) -> usize {
        self.fields.iter().map(Lengths::heap_bytes).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_gets_the_narrowest_width() {
        // Two docs, three fields: short, medium and long values.
        let lens = [3, 300, 70_000, 255, 65_535, 1];
        let table = FieldLengths::from_doc_major(&lens, 3);
        assert_eq!(table.heap_bytes(), 2 + 2 * 2 + 2 * 4);
        assert_eq!(table.get(1, 0), 255);
        assert_eq!(table.get(1, 1), 65_535);
        assert_eq!(table.get(0, 2), 70_000);
        assert_eq!(table.get(2, 0), 0, "past the last doc");
        assert_eq!(table.get(0, 3), 0, "past the last field");
        assert_eq!(table.to_doc_major(), lens);
    }

    proptest::proptest! {
        #[test]
        fn roundtrips_the_doc_major_table(
            n_fields in 1usize..4,
            values in proptest::collection::vec(
                proptest::prop_oneof![0u32..300, 0u32..70_000, proptest::num::u32::ANY],
                0..40,
            ),
        ) {
            let rows = values.len() / n_fields;
            let lens = &values[..rows * n_fields];
            let table = FieldLengths::from_doc_major(lens, n_fields);
            proptest::prop_assert_eq!(table.to_doc_major(), lens);
            for doc in 0..rows {
                for f in 0..n_fields {
                    proptest::prop_assert_eq!(table.get(doc as u32, f), lens[doc * n_fields + f]);
                }
            }
        }
    }
}
