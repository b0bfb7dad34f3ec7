//! Search results into JS objects.
//!
//! Serializing results to JSON and `JSON.parse`-ing them in JS cost ~6 µs
//! per 10 namespace-only hits in V8, as much as the whole search over 20k
//! documents. Instead the hits go over as one string of pieces plus a table
//! of piece lengths (UTF-16 units), and a few lines of JS cut the string up
//! into objects. Values keep their JSON spelling (scores as the shortest
//! decimal that round-trips, as `searchJson` writes them; stored fields, snippets and explanations as JSON text
//! parsed in JS), so the objects equal `JSON.parse` of that output, keys
//! in the same order (`Engine::search_json` gives that output; the package
//! tests compare the two).

use wasm_bindgen::prelude::*;

use crate::json::ToJson;
use crate::query::options::{Mode, SearchResults};

/// Marks an absent optional piece in the length table.
const ABSENT: u32 = u32::MAX;

#[wasm_bindgen(inline_js = r#"
export function memdexResults(text, lens) {
  const ABSENT = 0xffffffff;
  let at = 0;
  let i = 0;
  const take = () => {
    const n = lens[i++];
    if (n === ABSENT) return undefined;
    const piece = text.slice(at, at + n);
    at += n;
    return piece;
  };
  const mode = take();
  const total = take();
  const exact = take();
  const limited = take();
  const warnings = take();
  const strategy = take();
  const hits = new Array(lens[i++]);
  for (let h = 0; h < hits.length; h++) {
    const id = take();
    const score = take();
    const hit = { id, score: score === 'null' ? null : Number(score) };
    const namespace = take();
    if (namespace !== undefined) hit.namespace = namespace;
    const fields = take();
    hit.fields = fields === '{}' ? {} : JSON.parse(fields);
    const terms = new Array(lens[i++]);
    for (let t = 0; t < terms.length; t++) terms[t] = take();
    hit.matchedTerms = terms;
    const snippets = take();
    if (snippets !== undefined) hit.snippets = JSON.parse(snippets);
    const explanation = take();
    if (explanation !== undefined) hit.explanation = JSON.parse(explanation);
    const extra = take();
    if (extra !== undefined) Object.assign(hit, JSON.parse(extra));
    hits[h] = hit;
  }
  const results = total === undefined ? { hits, mode } : { hits, mode, total: Number(total), totalExact: exact === 'true' };
  if (limited !== undefined) results.limited = limited.split(',');
  if (warnings !== undefined) results.warnings = JSON.parse(warnings);
  if (strategy !== undefined) results.strategy = JSON.parse(strategy);
  return results;
}
"#)]
extern "C" {
    #[wasm_bindgen(js_name = memdexResults)]
    fn results_from_pieces(text: &str, lens: &[u32]) -> JsValue;
}

/// Pieces of UTF-8 text with their lengths in UTF-16 code units.
#[derive(Default)]
struct Pieces {
    text: String,
    lens: Vec<u32>,
}

impl Pieces {
    fn push(&mut self, piece: &str) {
        self.text.push_str(piece);
        self.lens.push(utf16_len(piece.as_bytes()));
    }

    /// A value as JSON.
    fn push_json(&mut self, value: &impl ToJson) {
        let start = self.text.len();
        value.write_json(&mut self.text);
        self.lens.push(utf16_len(&self.text.as_bytes()[start..]));
    }

    fn count(&mut self, n: usize) {
        self.lens.push(n as u32);
    }

    fn absent(&mut self) {
        self.lens.push(ABSENT);
    }
}

/// UTF-16 length of valid UTF-8: one unit per character, two for those
/// outside the BMP (4-byte sequences).
fn utf16_len(utf8: &[u8]) -> u32 {
    utf8.iter()
        .map(|&b| (b & 0xc0 != 0x80) as u32 + (b >= 0xf0) as u32)
        .sum()
}

/// The results as a JS object `{ hits, mode, total?, limited?, warnings?, strategy? }`.
pub fn to_js(results: &SearchResults) -> JsValue {
    let mut p = Pieces::default();
    p.push(match results.mode {
        Mode::Or => "or",
        Mode::And => "and",
        Mode::Fallback => "fallback",
    });
    match results.total {
        Some(total) => p.push_json(&total),
        None => p.absent(),
    }
    p.push(if results.total_exact { "true" } else { "false" });
    // Budget names, comma-separated (they hold no comma); absent when none
    // ran out.
    if results.limited.is_empty() {
        p.absent();
    } else {
        let mut names = String::new();
        for (i, limited) in results.limited.iter().enumerate() {
            if i > 0 {
                names.push(',');
            }
            names.push_str(limited.as_str());
        }
        p.push(&names);
    }
    // Warnings as a JSON array; absent when there are none.
    if results.warnings.is_empty() {
        p.absent();
    } else {
        p.push_json(&results.warnings);
    }
    match &results.strategy {
        Some(choice) => p.push_json(choice),
        None => p.absent(),
    }
    p.count(results.hits.len());
    for hit in &results.hits {
        p.push(&hit.id);
        p.push_json(&hit.score);
        match &hit.namespace {
            Some(namespace) => p.push(namespace),
            None => p.absent(),
        }
        p.push(hit.fields.as_json());
        p.count(hit.matched_terms.len());
        for term in &hit.matched_terms {
            p.push(term);
        }
        if hit.snippets.is_empty() {
            p.absent();
        } else {
            p.push_json(&hit.snippets);
        }
        match &hit.explanation {
            Some(explanation) => p.push_json(explanation),
            None => p.absent(),
        }
        // `lexical`/`vector` ({rank, score}, vector and hybrid hits), `via`
        // (expanded hits) and `duplicates` (dedupe): one JSON object merged
        // into the hit, absent for plain hits.
        let found = hit.lexical.is_some()
            || hit.vector.is_some()
            || hit.via.is_some()
            || !hit.duplicates.is_empty();
        if found {
            let start = p.text.len();
            let mut o = crate::json::Object::new(&mut p.text);
            hit.write_how_found(&mut o);
            o.end();
            let len = utf16_len(&p.text.as_bytes()[start..]);
            p.lens.push(len);
        } else {
            p.absent();
        }
    }
    results_from_pieces(&p.text, &p.lens)
}

#[cfg(test)]
mod tests {
    use super::utf16_len;

    #[test]
    fn utf16_lengths_match_encode_utf16() {
        for s in [
            "",
            "abc",
            "é",
            "日本語",
            "a😀b",
            "\u{10ffff}\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}",
        ] {
            assert_eq!(
                utf16_len(s.as_bytes()) as usize,
                s.encode_utf16().count(),
                "{s:?}"
            );
        }
    }
}
