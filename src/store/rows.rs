//! How a doc store page encodes its rows (format 9, docs/FORMAT.md
//! "Segment"): a row whose stored fields have the segment's shape (the
//! same keys in the same order) keeps its values only, strings without
//! their quotes; any other row is kept whole. The keys and quotes are most
//! of what deflate cannot squeeze out of JSON rows (100k `packages`
//! documents: the doc store at 48.4 % of the text it holds instead of
//! 51.2 %). A shaped row is rebuilt byte for byte: it is cut only where
//! its delimiters are, and rebuilt from the same pieces.

use crate::codec::bytes::{ByteReader, ByteWriter};

/// What a segment's pages share: the shape of their rows and the preset
/// dictionary they are deflated after.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageCodec {
    /// Rows are tagged (format 9): shaped or whole. Before, every row was a
    /// `short` JSON object.
    pub tagged: bool,
    /// The shape's keys, as written between their quotes in the rows.
    pub keys: Vec<Vec<u8>>,
    /// Rows sampled over the segment, encoded (at most 32 KiB).
    pub dict: Vec<u8>,
}

/// Row tags (format 9).
const WHOLE: u32 = 0;
const SHAPED: u32 = 1;

/// Rows sampled to choose the shape.
const SHAPE_SAMPLES: usize = 64;

impl PageCodec {
    /// The codec of rows `row(0..n)`: the key list most sampled rows have,
    /// and a dictionary of encoded rows sampled evenly over them, at most
    /// [`super::deflate::DICT_BYTES`] and a sixteenth of their bytes.
    pub fn of_rows(n: usize, row: &dyn Fn(usize) -> Vec<u8>) -> PageCodec {
        let mut shapes: Vec<(Vec<Vec<u8>>, usize)> = Vec::new();
        for i in (0..n).step_by(n.div_ceil(SHAPE_SAMPLES).max(1)) {
            if let Some(keys) = split(&row(i)).map(|(keys, _)| keys) {
                match shapes.iter_mut().find(|s| s.0 == keys) {
                    Some(s) => s.1 += 1,
                    None => shapes.push((keys, 1)),
                }
            }
        }
        let best = shapes.iter().map(|s| s.1).max().unwrap_or(0);
        let keys = shapes
            .into_iter()
            .find(|s| s.1 == best)
            .map_or_else(Vec::new, |s| s.0);
        let mut codec = PageCodec {
            tagged: true,
            keys,
            dict: Vec::new(),
        };
        codec.dict = codec.dictionary(n, row);
        codec
    }

    /// Encoded rows sampled evenly: the `k`-th of `m` is row
    /// `(2k + 1) n / 2m`, `m` as many as the budget holds at the rows'
    /// average size; a row that would overflow it is skipped.
    fn dictionary(&self, n: usize, row: &dyn Fn(usize) -> Vec<u8>) -> Vec<u8> {
        let mut dict = ByteWriter::default();
        if n <= 1 {
            return dict.buf;
        }
        let encoded = |i: usize, w: &mut ByteWriter| self.encode(&row(i), w);
        // The total is estimated from a sample (encoding every row twice
        // would double the writer's work).
        let step = n.div_ceil(SHAPE_SAMPLES).max(1);
        let mut sample = ByteWriter::default();
        let sampled = (0..n)
            .step_by(step)
            .map(|i| encoded(i, &mut sample))
            .count();
        // In u64: a million rows times their bytes overflows wasm's usize.
        let (n64, sampled) = (n as u64, sampled.max(1) as u64);
        let total = sample.buf.len() as u64 * n64 / sampled;
        let budget = (super::deflate::DICT_BYTES as u64).min(total / 16);
        // At most `budget` rows (each takes a byte at least): no overflow below.
        let m = (budget * n64 / total.max(1)).min(n64);
        for k in 0..m {
            let mut one = ByteWriter::default();
            encoded(((2 * k + 1) * n64 / (2 * m)) as usize, &mut one);
            if (dict.buf.len() + one.buf.len()) as u64 <= budget {
                dict.buf.extend_from_slice(&one.buf);
            }
        }
        dict.buf
    }

    /// Appends `json` (a row's stored fields) as the page holds it.
    pub fn encode(&self, json: &[u8], w: &mut ByteWriter) {
        if !self.tagged {
            w.short_bytes(json);
            return;
        }
        match split(json).filter(|(keys, _)| *keys == self.keys) {
            Some((_, values)) => {
                w.varint(SHAPED);
                for (value, quoted) in values {
                    w.varint((value.len() as u32) << 1 | u32::from(!quoted));
                    w.buf.extend_from_slice(value);
                }
            }
            None => {
                w.varint(WHOLE);
                w.short_bytes(json);
            }
        }
    }

    /// Reads one row from `r`, appending its stored fields (JSON) to `out`;
    /// `None` at the end of the bytes or if they are not a row.
    pub fn decode(&self, r: &mut ByteReader<'_>, out: &mut Vec<u8>) -> Option<()> {
        if !self.tagged || r.varint().ok()? == WHOLE {
            out.extend_from_slice(r.short_bytes().ok()?);
            return Some(());
        }
        out.push(b'{');
        for (i, key) in self.keys.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.push(b'"');
            out.extend_from_slice(key);
            out.extend_from_slice(b"\":");
            let head = r.varint().ok()?;
            let value = r.take((head >> 1) as usize).ok()?;
            let quoted = head & 1 == 0;
            if quoted {
                out.push(b'"');
            }
            out.extend_from_slice(value);
            if quoted {
                out.push(b'"');
            }
        }
        out.push(b'}');
        Some(())
    }
}

/// A row's keys, and its values with whether each was a quoted string.
type Split<'a> = (Vec<Vec<u8>>, Vec<(&'a [u8], bool)>);

/// A compact JSON object's keys and values (strings: without their quotes,
/// `true`), as written between its delimiters; `None` if `json` is not
/// exactly `{"k":v,...}` with no space (how memdex writes stored fields).
fn split(json: &[u8]) -> Option<Split<'_>> {
    let (mut keys, mut values) = (Vec::new(), Vec::new());
    let mut at = 1;
    if json.first() != Some(&b'{') || json.len() < 2 {
        return None;
    }
    if json == b"{}" {
        return Some((keys, values));
    }
    loop {
        let key_end = string_end(json, at)?;
        keys.push(json[at + 1..key_end].to_vec());
        at = key_end + 1;
        if json.get(at) != Some(&b':') {
            return None;
        }
        at += 1;
        let (end, quoted) = match json.get(at)? {
            b'"' => (string_end(json, at)? + 1, true),
            _ => (value_end(json, at)?, false),
        };
        values.push(match quoted {
            true => (&json[at + 1..end - 1], true),
            false => (&json[at..end], false),
        });
        at = end;
        match json.get(at)? {
            b',' => at += 1,
            b'}' if at + 1 == json.len() => return Some((keys, values)),
            _ => return None,
        }
    }
}

/// The index of the quote closing the string that opens at `at`.
fn string_end(json: &[u8], at: usize) -> Option<usize> {
    if json.get(at) != Some(&b'"') {
        return None;
    }
    let mut i = at + 1;
    loop {
        match json.get(i)? {
            b'"' => return Some(i),
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

/// The end of the number, literal, array or object starting at `at`
/// (strings inside skipped whole).
fn value_end(json: &[u8], at: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = at;
    loop {
        match *json.get(i)? {
            b'"' => i = string_end(json, i)?,
            b'[' | b'{' => depth += 1,
            b']' | b'}' if depth > 0 => depth -= 1,
            b',' | b']' | b'}' if depth == 0 => return (i > at).then_some(i),
            _ => {}
        }
        i += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codec(rows: &[&str]) -> PageCodec {
        PageCodec::of_rows(rows.len(), &|i| rows[i].as_bytes().to_vec())
    }

    /// Every row reads back as written, shaped or whole.
    #[test]
    fn rows_read_back_exactly() {
        let rows = [
            r#"{"text":"a \"quoted\" word","title":"T"}"#,
            r#"{"text":"x","title":"y"}"#,
            r#"{"text":"","title":"\\"}"#,
            r#"{"text":"n","title":12.5}"#,
            r#"{"text":"n","title":[1,"a]",{"b":"}"}]}"#,
            r#"{"title":"y","text":"x"}"#,
            r#"{"text":"only"}"#,
            r#"{}"#,
            r#"{"text":"a","title":"b","more":null}"#,
            r#"not json"#,
            r#"{"text":"unterminated}"#,
            "",
        ];
        let codec = codec(&rows);
        assert_eq!(codec.keys, [b"text".to_vec(), b"title".to_vec()]);
        let mut w = ByteWriter::default();
        for row in rows {
            codec.encode(row.as_bytes(), &mut w);
        }
        let mut r = ByteReader::new("", &w.buf);
        for row in rows {
            let mut out = Vec::new();
            codec.decode(&mut r, &mut out).unwrap();
            assert_eq!(String::from_utf8(out).unwrap(), row);
        }
        assert!(r.is_at_end());
        assert!(codec.decode(&mut r, &mut Vec::new()).is_none());
    }

    /// Shaped rows drop their keys and quotes; a dictionary is sampled.
    #[test]
    fn shaped_rows_are_smaller_and_sampled_into_the_dictionary() {
        let rows: Vec<String> = (0..5000)
            .map(|i| format!(r#"{{"text":"row {i} of text","title":"t{i}"}}"#))
            .collect();
        let codec = PageCodec::of_rows(rows.len(), &|i| rows[i].as_bytes().to_vec());
        let mut w = ByteWriter::default();
        codec.encode(rows[0].as_bytes(), &mut w);
        assert_eq!(w.buf.len(), 1 + 1 + "row 0 of text".len() + 1 + 2);
        let total: usize = rows.iter().map(|r| r.len()).sum();
        assert!(!codec.dict.is_empty() && codec.dict.len() <= total / 16);
        let none = PageCodec::of_rows(1, &|_| rows[0].as_bytes().to_vec());
        assert!(none.dict.is_empty());
    }
}
