//! Reads by id and by filter.

use crate::error::Result;
use crate::filter::{allowed, Filter};
use crate::json::{self, ToJson, Value};
use crate::schema::ID_KEY;

use super::Searcher;

impl Searcher<'_> {
    /// Number of live documents matching a JSON filter (`null` = all).
    pub fn count(&self, filter: &Value) -> Result<usize> {
        if filter.is_null() {
            return Ok(self.len());
        }
        let filter = Filter::compile(filter, self.schema)?;
        let mut n = 0;
        for entry in self.segments {
            let allow = filter.evaluate(&entry.segment);
            n += (0..entry.segment.n_docs)
                .filter(|&d| !entry.deletes.contains(d) && allowed(&allow, d))
                .count();
        }
        Ok(n)
    }

    /// The stored fields of a document (plus `id`), or `None`.
    pub fn get(&self, id: &str) -> Option<Value> {
        let (docs, doc) = self.ids.store_of(id)?;
        let mut fields = docs.stored(doc);
        fields.insert(ID_KEY.to_string(), Value::String(id.to_string()));
        Some(Value::Object(fields))
    }

    /// [`Searcher::get`] as JSON text, built from the stored text without
    /// parsing it (the wasm boundary hands it to `JSON.parse`).
    pub fn get_json(&self, id: &str) -> Option<String> {
        let (docs, doc) = self.ids.store_of(id)?;
        let bytes = docs.stored_bytes(doc);
        let stored = std::str::from_utf8(&bytes)
            .ok()
            .filter(|s| json::validate(s).is_ok())
            .map(str::trim)
            .filter(|s| s.starts_with('{') && s.ends_with('}'))
            .unwrap_or("{}");
        let rest = stored[1..].trim_start();
        // An id serializes as a JSON string; the stored object never holds `id`.
        let id = json::to_string(id);
        let sep = if rest.starts_with('}') { "" } else { "," };
        Some(format!("{{\"{ID_KEY}\":{id}{sep}{rest}"))
    }

    /// [`Searcher::get_json`] with the document's vectors, each under its
    /// vector field's name as an array of numbers (unit length on cosine
    /// fields: the form they are stored in). Fields the document has no
    /// vector for are left out.
    pub fn get_json_with_vectors(&self, id: &str) -> Option<String> {
        let mut out = self.get_json(id)?;
        let Some((columns, doc)) = self.ids.vectors_of(id) else {
            return Some(out);
        };
        for (field, column) in self.schema.vectors.iter().zip(columns) {
            let Some(v) = column.get(doc) else { continue };
            out.pop(); // the closing brace
            out.push(',');
            json::write_string(&field.name, &mut out);
            out.push(':');
            v.write_json(&mut out);
            out.push('}');
        }
        Some(out)
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.contains(id)
    }
}
