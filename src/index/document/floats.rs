//! Documents whose vectors come as floats beside their JSON text: the JS
//! layer sends a batch's `Float32Array` fields as one float buffer, which
//! costs a copy instead of writing and parsing ~20 bytes of text a number.

use crate::error::Error;
use crate::index::{document, BatchError, Index};
use crate::json::{Number, RawPairs, Value};

/// The value `JSON.parse(JSON.stringify(Array.from(floats)))` gives, as the
/// engine's JSON parser reads it: JS writes an integral number below 1e21
/// as digits (-0 as `0`), read back as an integer when it fits; NaN and
/// ±Infinity as `null`.
pub fn js_numbers(floats: &[f32]) -> Value {
    Value::Array(
        floats
            .iter()
            .map(|&x| match f64::from(x) {
                d if !d.is_finite() => Value::Null,
                d => Value::Number(js_number(d)),
            })
            .collect(),
    )
}

fn js_number(d: f64) -> Number {
    if d.trunc() == d && d.abs() < 1e21 {
        if (0.0..18_446_744_073_709_551_616.0).contains(&d) {
            return Number::PosInt(d as u64);
        }
        if (-9_223_372_036_854_775_808.0..0.0).contains(&d) {
            return Number::NegInt(d as i64);
        }
    }
    Number::Float(d)
}

impl Index {
    /// [`Index::add_json_lines`] of documents some of whose members come
    /// as floats: member `k` is key `keys[k]` of the document on line
    /// `layout[2k]` (0-based, non-decreasing) with the next `layout[2k + 1]`
    /// floats of `floats` as its numbers. Same results and errors as the
    /// lines holding those numbers as JSON arrays.
    pub fn add_json_lines_floats(
        &mut self,
        text: &str,
        floats: &[f32],
        layout: &[u32],
        keys: &[&str],
    ) -> std::result::Result<usize, BatchError> {
        let members = layout.chunks_exact(2);
        // Checked: on wasm32 a hostile layout could wrap a plain sum.
        let total = members
            .clone()
            .try_fold(0usize, |sum, m| sum.checked_add(m[1] as usize));
        let ordered = members.clone().map(|m| m[0]).is_sorted();
        let last = members.last().map_or(0, |m| m[0] as usize + 1);
        let fits = last == 0 || last <= text.lines().count();
        if layout.len() != keys.len() * 2 || total != Some(floats.len()) || !ordered || !fits {
            return Err(BatchError {
                line: 1,
                added: 0,
                error: Error::Usage {
                    reason: "the floats of a batch do not match its layout".into(),
                },
            });
        }
        let mut added = 0;
        let mut pairs = RawPairs::default();
        let mut doc_floats: Vec<(&str, &[f32])> = Vec::new();
        let (mut next, mut offset) = (0, 0);
        for (line_no, line) in text.lines().enumerate() {
            doc_floats.clear();
            while next < keys.len() && layout[2 * next] as usize == line_no {
                let len = layout[2 * next + 1] as usize;
                doc_floats.push((keys[next], &floats[offset..offset + len]));
                offset += len;
                next += 1;
            }
            if line.trim().is_empty() {
                continue;
            }
            let prepared = self
                .schema
                .prepare_json_floats(line, &mut pairs, &doc_floats)
                .unwrap_or_else(|syntax| Err(document::syntax_error(syntax)))
                .map_err(|error| BatchError {
                    line: line_no + 1,
                    added,
                    error,
                })?;
            self.add_prepared(prepared);
            added += 1;
        }
        Ok(added)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::RawPairs;
    use crate::schema::{FieldDef, IndexConfig, ResolvedSchema};

    /// Each float with the text `JSON.stringify` writes for it (V8).
    const JS: [(f64, &str); 12] = [
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-5.0, "-5"),
        (0.10000000149011612, "0.10000000149011612"),
        (-0.25, "-0.25"),
        (1e20, "100000000000000000000"),
        (1e21, "1e+21"),
        (3.4028234663852886e38, "3.4028234663852886e+38"),
        (-9223372036854775808.0, "-9223372036854775808"),
        (-1e19, "-10000000000000000000"),
        (1.401298464324817e-45, "1.401298464324817e-45"),
    ];

    #[test]
    fn js_numbers_are_what_the_parser_reads_from_js_text() {
        for (d, text) in JS {
            assert_eq!(
                Value::Number(js_number(d)),
                crate::json::parse(text).unwrap(),
                "{d}"
            );
        }
        assert_eq!(
            js_numbers(&[f32::NAN, 1.0]),
            crate::json::parse("[null,1]").unwrap()
        );
    }

    /// A member given as floats prepares exactly as the same numbers in
    /// the JSON text: stored bytes, vectors bit for bit, errors.
    #[test]
    fn floats_prepare_as_their_json_text() {
        let config = IndexConfig::from_json_as(
            &crate::json::parse(
                r#"{"schema":{"s":"stored","n":"number",
                "emb":{"type":"vector","dimensions":3},
                "raw":{"type":"vector","dimensions":3,"metric":"dot"}}}"#,
            )
            .unwrap(),
            None,
        )
        .unwrap();
        assert!(matches!(
            config.fields.get("emb"),
            Some(FieldDef::Vector { .. })
        ));
        let schema = ResolvedSchema::new(&config).unwrap();
        let tenth = 0.1f32;
        let cases: Vec<(&str, &str, Vec<f32>)> = vec![
            (r#"{"id":"a","text":"x"}"#, "emb", vec![tenth, -0.25, 1.0]),
            (r#"{"id":"b","raw":[1,2,3]}"#, "emb", vec![0.5, 0.5, 0.5]),
            (r#"{"id":"c"}"#, "raw", vec![f32::MAX, -0.0, 1e20]),
            (r#"{"id":"d"}"#, "s", vec![-0.0, 1.0, tenth, 1e20]),
            (r#"{"id":"e"}"#, "emb", vec![1.0, 2.0]),
            (r#"{"id":"f"}"#, "emb", vec![0.0, 0.0, 0.0]),
            (r#"{"id":"g"}"#, "n", vec![1.0]),
            (
                r#"{"id":"h","emb":"overridden"}"#,
                "emb",
                vec![1.0, 0.0, 0.0],
            ),
            (r#"{"text":"no id"}"#, "emb", vec![1.0, 0.0, 0.0]),
            (r#"{"id":"i","n":"bad"}"#, "emb", vec![1.0, 2.0]),
            (r#"{"id":"j","zz":1}"#, "emb", vec![1.0, 2.0, 3.0]),
            (r#"{"id":"k"}"#, "undeclared", vec![1.0]),
        ];
        for (json, key, floats) in cases {
            let js: Vec<String> = floats
                .iter()
                .map(|&x| {
                    let d = f64::from(x);
                    JS.iter()
                        .find(|(v, _)| v.to_bits() == d.to_bits())
                        .map_or_else(
                            || crate::json::to_string(&Value::Number(js_number(d))),
                            |(_, t)| t.to_string(),
                        )
                })
                .collect();
            let member = format!(r#""{key}":[{}]"#, js.join(","));
            let text = match json.find(&format!(r#""{key}":"#)) {
                // The text's own member of that key is replaced.
                Some(_) => json.replace(r#""emb":"overridden""#, &member),
                None => format!("{},{member}}}", &json[..json.len() - 1]),
            };
            let mut pairs = RawPairs::default();
            let expected = schema.prepare_json(&text, &mut pairs).unwrap();
            let mut pairs = RawPairs::default();
            let got = schema
                .prepare_json_floats(json, &mut pairs, &[(key, &floats)])
                .unwrap();
            let show = |r: crate::error::Result<document::PreparedDoc>| match r {
                Ok(d) => format!(
                    "{} {} {:?} {:?} {:?}",
                    d.id,
                    String::from_utf8_lossy(&d.stored_json),
                    d.filters,
                    d.lens,
                    d.vectors
                        .iter()
                        .map(|v| v
                            .as_ref()
                            .map(|v| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>()))
                        .collect::<Vec<_>>()
                ),
                Err(e) => format!("{} {e}", e.code()),
            };
            assert_eq!(show(got), show(expected), "{text}");
        }
    }

    /// A batch stops at the first rejected document, as `add_json_lines`.
    #[test]
    fn batch_errors_count_the_documents_before() {
        let config = IndexConfig::from_json_as(
            &crate::json::parse(r#"{"schema":{"emb":{"type":"vector","dimensions":2}}}"#).unwrap(),
            None,
        )
        .unwrap();
        let mut index = Index::new(config).unwrap();
        let text = "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}";
        let err = index
            .add_json_lines_floats(text, &[1.0, 0.0, 1.0], &[0, 2, 1, 1], &["emb", "emb"])
            .unwrap_err();
        assert_eq!((err.line, err.added, err.error.code()), (2, 1, "SCHEMA"));
        assert_eq!(index.len(), 1);
        let bad = index
            .add_json_lines_floats(text, &[1.0], &[0, 2], &["emb"])
            .unwrap_err();
        assert_eq!(bad.error.code(), "USAGE");
        assert_eq!(
            index.add_json_lines_floats(text, &[0.6, 0.8], &[2, 2], &["emb"]),
            Ok(3)
        );
    }
}
