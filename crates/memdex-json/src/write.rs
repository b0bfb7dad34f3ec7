//! Compact JSON text: no spaces; object members in key order; integers in
//! decimal; floats as the shortest text that reads back to the same `f64`
//! (`zmij`: `1.0`, `0.1`, `1e+100`, `-0.0`); non-finite
//! floats as `null`. The bytes are a persistence format (manifests, stored
//! fields) and must never change; they equal `serde_json::to_string`'s
//! (tests/json_props.rs).

use super::{Number, Value};
use crate::fieldmap::FieldMap;

/// A type written as JSON (what `#[derive(Serialize)]` did for it).
pub trait ToJson {
    fn write_json(&self, out: &mut String);

    fn to_json(&self) -> String {
        let mut out = String::new();
        self.write_json(&mut out);
        out
    }
}

/// `"key":` members of an object, commas between (a derived struct's
/// serialization: fields in declaration order).
pub struct Object<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Object<'a> {
    pub fn new(out: &'a mut String) -> Object<'a> {
        out.push('{');
        Object { out, first: true }
    }

    /// Writes `"key":value`. Only this shim is generic: writing the key is
    /// one function for every value type, not a copy in each of the ~11
    /// instances the wasm has.
    #[inline]
    pub fn field<T: ToJson + ?Sized>(&mut self, key: &str, value: &T) -> &mut Self {
        self.key(key);
        value.write_json(self.out);
        self
    }

    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        string(key, self.out);
        self.out.push(':');
    }

    pub fn end(&mut self) {
        self.out.push('}');
    }
}

/// A JSON string literal: `"`, `\` and control characters escaped (short
/// forms `\b \f \n \r \t` where JSON has one, else `\u00XX` in lowercase
/// hex); everything else, `/` and non-ASCII included, as is.
pub fn string(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let short = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        // `i` is an ASCII byte, so both cuts are on char boundaries.
        out.push_str(&s[start..i]);
        start = i + 1;
        if short.is_empty() {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push_str("\\u00");
            out.push(HEX[(b >> 4) as usize] as char);
            out.push(HEX[(b & 15) as usize] as char);
        } else {
            out.push_str(short);
        }
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// Decimal digits of `n` (no `core::fmt`).
fn uint(mut n: u64, out: &mut String) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    for &d in &buf[i..] {
        out.push(d as char);
    }
}

pub(crate) fn number(n: Number, out: &mut String) {
    match n {
        Number::PosInt(u) => uint(u, out),
        Number::NegInt(i) => {
            if i < 0 {
                out.push('-');
            }
            uint(i.unsigned_abs(), out);
        }
        Number::Float(f) => f.write_json(out),
    }
}

impl ToJson for Value {
    fn write_json(&self, out: &mut String) {
        match self {
            Value::Null => out.push_str("null"),
            Value::Bool(b) => b.write_json(out),
            Value::Number(n) => number(*n, out),
            Value::String(s) => string(s, out),
            Value::Array(a) => a.write_json(out),
            Value::Object(m) => m.write_json(out),
        }
    }
}

impl ToJson for str {
    fn write_json(&self, out: &mut String) {
        string(self, out);
    }
}

impl ToJson for String {
    fn write_json(&self, out: &mut String) {
        string(self, out);
    }
}

impl ToJson for bool {
    fn write_json(&self, out: &mut String) {
        out.push_str(if *self { "true" } else { "false" });
    }
}

macro_rules! unsigned {
    ($($t:ty)*) => {$(
        impl ToJson for $t {
            fn write_json(&self, out: &mut String) {
                uint(*self as u64, out);
            }
        }
    )*};
}
unsigned!(u8 u32 u64 usize);

impl ToJson for f64 {
    fn write_json(&self, out: &mut String) {
        if self.is_finite() {
            out.push_str(zmij::Buffer::new().format_finite(*self));
        } else {
            out.push_str("null");
        }
    }
}

impl ToJson for f32 {
    fn write_json(&self, out: &mut String) {
        if self.is_finite() {
            out.push_str(zmij::Buffer::new().format_finite(*self));
        } else {
            out.push_str("null");
        }
    }
}

impl<T: ToJson> ToJson for Option<T> {
    fn write_json(&self, out: &mut String) {
        match self {
            Some(v) => v.write_json(out),
            None => out.push_str("null"),
        }
    }
}

impl<T: ToJson> ToJson for [T] {
    fn write_json(&self, out: &mut String) {
        out.push('[');
        for (i, v) in self.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            v.write_json(out);
        }
        out.push(']');
    }
}

impl<T: ToJson> ToJson for Vec<T> {
    fn write_json(&self, out: &mut String) {
        self.as_slice().write_json(out);
    }
}

impl<V: ToJson> ToJson for FieldMap<V> {
    fn write_json(&self, out: &mut String) {
        let mut o = Object::new(out);
        for (k, v) in self {
            o.field(k, v);
        }
        o.end();
    }
}

impl<T: ToJson + ?Sized> ToJson for &T {
    fn write_json(&self, out: &mut String) {
        (**self).write_json(out);
    }
}

/// Compact JSON (as [`ToJson`] writes it) re-indented by two spaces per
/// level, `{}` and `[]` kept as they are, `": "` after keys, for the CLI. Not a validator: the input must be compact JSON.
pub fn pretty(compact: &str) -> String {
    let mut out = String::with_capacity(compact.len() * 2);
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    let mut chars = compact.chars().peekable();
    let newline = |out: &mut String, depth: usize| {
        out.push('\n');
        out.push_str(&"  ".repeat(depth));
    };
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => {
                in_string = true;
                out.push(c);
            }
            '{' | '[' => {
                out.push(c);
                if matches!(chars.peek(), Some('}' | ']')) {
                    out.extend(chars.next());
                } else {
                    depth += 1;
                    newline(&mut out, depth);
                }
            }
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                newline(&mut out, depth);
                out.push(c);
            }
            ',' => {
                out.push(c);
                newline(&mut out, depth);
            }
            ':' => out.push_str(": "),
            _ => out.push(c),
        }
    }
    out
}
