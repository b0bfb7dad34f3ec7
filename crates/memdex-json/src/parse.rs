//! RFC 8259 JSON text to [`Value`]s, or to the raw members of an object.
//!
//! Strict: no trailing commas, comments, leading zeros, `NaN`, lone
//! surrogate escapes or raw control characters in strings. Containers nest
//! at most [`MAX_DEPTH`] - 1 deep (an error beyond, never a stack overflow).
//! An error is a [`Reason`] and a position: its text is the reason's
//! message, then `at line L column C` (1-based line; column = bytes before
//! the position on its line, 0 at the start of a line, at the end of the
//! input for an unexpected end). The accepted texts, the messages and the
//! positions equal serde_json's (tests/json_props.rs checks them against it
//! as an oracle; nothing here depends on it).

use std::borrow::Cow;
use std::fmt;

use super::number::decimal_to_f64;
use super::{Map, Number, Value};

/// Nesting limit: the 128th open bracket (counting the outermost) is a
/// `RecursionLimitExceeded` error.
pub const MAX_DEPTH: u32 = 128;

/// Why a text is not JSON; `Display` gives the message (`EOF while parsing
/// a list`, `expected value`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    EofWhileParsingList,
    EofWhileParsingObject,
    EofWhileParsingString,
    EofWhileParsingValue,
    ExpectedColon,
    ExpectedListCommaOrEnd,
    ExpectedObjectCommaOrEnd,
    ExpectedSomeIdent,
    ExpectedSomeValue,
    InvalidEscape,
    InvalidNumber,
    NumberOutOfRange,
    ControlCharacterWhileParsingString,
    KeyMustBeAString,
    LoneLeadingSurrogateInHexEscape,
    TrailingComma,
    TrailingCharacters,
    UnexpectedEndOfHexEscape,
    RecursionLimitExceeded,
}

impl Reason {
    fn message(self) -> &'static str {
        use Reason::*;
        match self {
            EofWhileParsingList => "EOF while parsing a list",
            EofWhileParsingObject => "EOF while parsing an object",
            EofWhileParsingString => "EOF while parsing a string",
            EofWhileParsingValue => "EOF while parsing a value",
            ExpectedColon => "expected `:`",
            ExpectedListCommaOrEnd => "expected `,` or `]`",
            ExpectedObjectCommaOrEnd => "expected `,` or `}`",
            ExpectedSomeIdent => "expected ident",
            ExpectedSomeValue => "expected value",
            InvalidEscape => "invalid escape",
            InvalidNumber => "invalid number",
            NumberOutOfRange => "number out of range",
            ControlCharacterWhileParsingString => {
                "control character (\\u0000-\\u001F) found while parsing a string"
            }
            KeyMustBeAString => "key must be a string",
            LoneLeadingSurrogateInHexEscape => "lone leading surrogate in hex escape",
            TrailingComma => "trailing comma",
            TrailingCharacters => "trailing characters",
            UnexpectedEndOfHexEscape => "unexpected end of hex escape",
            RecursionLimitExceeded => "recursion limit exceeded",
        }
    }
}

/// A syntax error: the reason and where. Boxed: every parsing step returns
/// a `Result`, and a one-pointer error keeps those small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(Box<Position>);

#[derive(Debug, Clone, PartialEq, Eq)]
struct Position {
    reason: Reason,
    offset: usize,
    line: usize,
    column: usize,
}

impl Error {
    pub fn reason(&self) -> Reason {
        self.0.reason
    }

    /// Byte offset the position refers to.
    pub fn offset(&self) -> usize {
        self.0.offset
    }

    /// 1-based line.
    pub fn line(&self) -> usize {
        self.0.line
    }

    /// Bytes before the position on its line (serde_json's convention).
    pub fn column(&self) -> usize {
        self.0.column
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at line {} column {}",
            self.0.reason.message(),
            self.0.line,
            self.0.column
        )
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// Parses one JSON text (surrounding whitespace allowed).
pub fn parse(text: &str) -> Result<Value> {
    let mut p = Parser::new(text);
    let v = p.value(true)?;
    p.end()?;
    Ok(v)
}

/// Checks that `text` is exactly one JSON value, without building it.
pub fn validate(text: &str) -> Result<()> {
    let mut p = Parser::new(text);
    p.value(false)?;
    p.end()
}

/// The top-level members of a JSON object: keys unescaped (borrowed unless
/// they hold escapes), values as their validated source text. Members are
/// appended to `out` in input order, duplicates included. `Ok(false)` when
/// `text` is valid JSON but not an object (`out` then stays empty).
pub fn object_members<'a>(text: &'a str, out: &mut Vec<(Cow<'a, str>, &'a str)>) -> Result<bool> {
    let mut p = Parser::new(text);
    if p.ws() != Some(b'{') {
        p.value(false)?;
        p.end()?;
        return Ok(false);
    }
    p.enter()?;
    p.pos += 1;
    let mut first = true;
    while p.next_key(&mut first)? {
        p.pos += 1;
        let key = p.string()?;
        p.colon()?;
        p.ws();
        let start = p.pos;
        p.value(false)?;
        out.push((key, &text[start..p.pos]));
    }
    p.close_object()?;
    p.end()?;
    Ok(true)
}

/// The string `text` holds if it is one JSON string (whitespace around
/// allowed); borrowed unless it has escapes.
pub fn string_literal(text: &str) -> Option<Cow<'_, str>> {
    let mut p = Parser::new(text);
    if p.ws() != Some(b'"') {
        return None;
    }
    p.pos += 1;
    let s = p.string().ok()?;
    p.end().ok()?;
    Some(s)
}

struct Parser<'a> {
    text: &'a str,
    b: &'a [u8],
    pos: usize,
    depth: u32,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        Parser {
            text,
            b: text.as_bytes(),
            pos: 0,
            depth: 0,
        }
    }

    /// An error positioned at byte `at` (serde_json's `position_of_index`).
    #[cold]
    fn err_at(&self, at: usize, reason: Reason) -> Error {
        let before = &self.b[..at.min(self.b.len())];
        let line_start = before
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        Error(Box::new(Position {
            reason,
            offset: before.len(),
            line: 1 + before[..line_start].iter().filter(|&&c| c == b'\n').count(),
            column: before.len() - line_start,
        }))
    }

    /// Error at the last consumed byte (serde_json's `error`).
    fn error(&self, reason: Reason) -> Error {
        self.err_at(self.pos, reason)
    }

    /// Error at the next, unconsumed byte (serde_json's `peek_error`).
    fn peek_error(&self, reason: Reason) -> Error {
        self.err_at(self.pos + 1, reason)
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }

    /// Skips whitespace; the next byte.
    fn ws(&mut self) -> Option<u8> {
        while let Some(c) = self.peek() {
            if !matches!(c, b' ' | b'\n' | b'\t' | b'\r') {
                return Some(c);
            }
            self.pos += 1;
        }
        None
    }

    fn end(&mut self) -> Result<()> {
        match self.ws() {
            Some(_) => Err(self.peek_error(Reason::TrailingCharacters)),
            None => Ok(()),
        }
    }

    /// One more level of nesting (before consuming its bracket).
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.peek_error(Reason::RecursionLimitExceeded));
        }
        Ok(())
    }

    /// A value at the current position; built only when `build` (else `Null`
    /// after validating it). A flag, not a const generic: one instance of
    /// the parser in the wasm instead of two (-0.5 KB gz), the branch being
    /// the same for a whole parse.
    fn value(&mut self, build: bool) -> Result<Value> {
        let Some(c) = self.ws() else {
            return Err(self.peek_error(Reason::EofWhileParsingValue));
        };
        Ok(match c {
            b'n' => {
                self.ident(b"null")?;
                Value::Null
            }
            b't' => {
                self.ident(b"true")?;
                Value::Bool(true)
            }
            b'f' => {
                self.ident(b"false")?;
                Value::Bool(false)
            }
            b'-' | b'0'..=b'9' => Value::Number(self.number()?),
            b'"' => {
                self.pos += 1;
                if build {
                    Value::String(self.string()?.into_owned())
                } else {
                    self.skip_string()?;
                    Value::Null
                }
            }
            b'[' => {
                self.enter()?;
                self.pos += 1;
                let mut items = Vec::new();
                let mut first = true;
                while self.next_element(&mut first)? {
                    let v = self.value(build)?;
                    if build {
                        items.push(v);
                    }
                }
                self.close_array()?;
                Value::Array(items)
            }
            b'{' => {
                self.enter()?;
                self.pos += 1;
                let mut members = Vec::new();
                let mut first = true;
                while self.next_key(&mut first)? {
                    self.pos += 1;
                    if build {
                        let key = self.string()?.into_owned();
                        self.colon()?;
                        members.push((key, self.value(build)?));
                    } else {
                        self.skip_string()?;
                        self.colon()?;
                        self.value(build)?;
                    }
                }
                self.close_object()?;
                if build {
                    Value::Object(sorted(members))
                } else {
                    Value::Null
                }
            }
            _ => return Err(self.peek_error(Reason::ExpectedSomeValue)),
        })
    }

    /// `null`/`true`/`false`: the first byte already matched.
    fn ident(&mut self, word: &[u8]) -> Result<()> {
        self.pos += 1;
        for &want in &word[1..] {
            match self.peek() {
                None => return Err(self.error(Reason::EofWhileParsingValue)),
                Some(c) => {
                    self.pos += 1;
                    if c != want {
                        return Err(self.error(Reason::ExpectedSomeIdent));
                    }
                }
            }
        }
        Ok(())
    }

    /// Before an array element: `true` if one follows (commas consumed).
    fn next_element(&mut self, first: &mut bool) -> Result<bool> {
        match self.ws() {
            None => Err(self.peek_error(Reason::EofWhileParsingList)),
            Some(b']') => Ok(false),
            Some(_) if *first => {
                *first = false;
                Ok(true)
            }
            Some(b',') => {
                self.pos += 1;
                match self.ws() {
                    Some(b']') => Err(self.peek_error(Reason::TrailingComma)),
                    Some(_) => Ok(true),
                    None => Err(self.peek_error(Reason::EofWhileParsingValue)),
                }
            }
            Some(_) => Err(self.peek_error(Reason::ExpectedListCommaOrEnd)),
        }
    }

    /// Before an object key: `true` if one follows, at its opening quote.
    fn next_key(&mut self, first: &mut bool) -> Result<bool> {
        match self.ws() {
            None => Err(self.peek_error(Reason::EofWhileParsingObject)),
            Some(b'}') => Ok(false),
            Some(c) if *first => {
                *first = false;
                if c == b'"' {
                    Ok(true)
                } else {
                    Err(self.peek_error(Reason::KeyMustBeAString))
                }
            }
            Some(b',') => {
                self.pos += 1;
                match self.ws() {
                    Some(b'"') => Ok(true),
                    Some(b'}') => Err(self.peek_error(Reason::TrailingComma)),
                    Some(_) => Err(self.peek_error(Reason::KeyMustBeAString)),
                    None => Err(self.peek_error(Reason::EofWhileParsingValue)),
                }
            }
            Some(_) => Err(self.peek_error(Reason::ExpectedObjectCommaOrEnd)),
        }
    }

    fn colon(&mut self) -> Result<()> {
        match self.ws() {
            Some(b':') => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(self.peek_error(Reason::ExpectedColon)),
            None => Err(self.peek_error(Reason::EofWhileParsingObject)),
        }
    }

    /// After the elements: `]` (serde_json's `end_seq`; `next_element`
    /// stopped at it).
    fn close_array(&mut self) -> Result<()> {
        self.depth -= 1;
        self.pos += 1;
        Ok(())
    }

    fn close_object(&mut self) -> Result<()> {
        self.depth -= 1;
        self.pos += 1;
        Ok(())
    }

    /// A string's contents, after its opening quote; consumes the closing one.
    fn string(&mut self) -> Result<Cow<'a, str>> {
        let start = self.pos;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            // Plain bytes (UTF-8 continuation bytes included) need no check.
            self.pos = skip_plain(self.b, self.pos);
            let Some(c) = self.peek() else {
                return Err(self.error(Reason::EofWhileParsingString));
            };
            match c {
                b'"' => {
                    // Quote and backslash are ASCII: the cuts are char boundaries.
                    let tail = &self.text[run..self.pos];
                    self.pos += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                    });
                }
                b'\\' => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(&self.text[run..self.pos]);
                    self.pos += 1;
                    s.push(self.escape()?);
                    run = self.pos;
                }
                _ => {
                    self.pos += 1;
                    return Err(self.error(Reason::ControlCharacterWhileParsingString));
                }
            }
        }
    }

    /// A string's contents, after its opening quote, validated only (the
    /// `Value`-less readers); consumes the closing quote.
    fn skip_string(&mut self) -> Result<()> {
        loop {
            self.pos = skip_plain(self.b, self.pos);
            match self.peek() {
                None => return Err(self.error(Reason::EofWhileParsingString)),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape()?;
                }
                Some(_) => {
                    self.pos += 1;
                    return Err(self.error(Reason::ControlCharacterWhileParsingString));
                }
            }
        }
    }

    /// The character one escape stands for, after its backslash.
    fn escape(&mut self) -> Result<char> {
        let Some(c) = self.peek() else {
            return Err(self.error(Reason::EofWhileParsingString));
        };
        self.pos += 1;
        Ok(match c {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => return self.unicode_escape(),
            _ => return Err(self.error(Reason::InvalidEscape)),
        })
    }

    /// `\uXXXX` (after the `u`), with its low surrogate if it is a high one.
    fn unicode_escape(&mut self) -> Result<char> {
        let n = self.hex4()?;
        let code = match n {
            0xdc00..=0xdfff => return Err(self.error(Reason::LoneLeadingSurrogateInHexEscape)),
            0xd800..=0xdbff => {
                for want in [b'\\', b'u'] {
                    let Some(c) = self.peek() else {
                        return Err(self.error(Reason::EofWhileParsingString));
                    };
                    self.pos += 1;
                    if c != want {
                        return Err(self.error(Reason::UnexpectedEndOfHexEscape));
                    }
                }
                let low = self.hex4()?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return Err(self.error(Reason::LoneLeadingSurrogateInHexEscape));
                }
                0x1_0000 + ((n as u32 - 0xd800) << 10) + (low as u32 - 0xdc00)
            }
            _ => n as u32,
        };
        // Surrogates are excluded above, so this is always a char.
        Ok(char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER))
    }

    fn hex4(&mut self) -> Result<u16> {
        let Some(digits) = self.b.get(self.pos..self.pos + 4) else {
            self.pos = self.b.len();
            return Err(self.error(Reason::EofWhileParsingString));
        };
        self.pos += 4;
        let mut n = 0u16;
        for &d in digits {
            let v = match d {
                b'0'..=b'9' => d - b'0',
                b'a'..=b'f' => d - b'a' + 10,
                b'A'..=b'F' => d - b'A' + 10,
                _ => return Err(self.error(Reason::InvalidEscape)),
            };
            n = n << 4 | v as u16;
        }
        Ok(n)
    }

    /// A number at the current position (its sign or first digit).
    fn number(&mut self) -> Result<Number> {
        let start = self.pos;
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let first = match self.peek() {
            None => return Err(self.error(Reason::EofWhileParsingValue)),
            Some(c) => {
                self.pos += 1;
                c
            }
        };
        // Significant digits while they fit a u64; later integer digits only
        // scale (`dropped`): then the value is a float, never a rounded integer.
        let mut mantissa: u64 = 0;
        let mut exp10: i64 = 0;
        let mut truncated = false;
        match first {
            b'0' => {
                if matches!(self.peek(), Some(b'0'..=b'9')) {
                    return Err(self.peek_error(Reason::InvalidNumber));
                }
            }
            b'1'..=b'9' => {
                mantissa = (first - b'0') as u64;
                while let Some(c @ b'0'..=b'9') = self.peek() {
                    self.pos += 1;
                    match mantissa
                        .checked_mul(10)
                        .and_then(|m| m.checked_add((c - b'0') as u64))
                    {
                        Some(m) if !truncated => mantissa = m,
                        _ => {
                            truncated = true;
                            exp10 += 1;
                        }
                    }
                }
            }
            _ => return Err(self.error(Reason::InvalidNumber)),
        }
        let mut float = truncated;
        if self.peek() == Some(b'.') {
            float = true;
            self.pos += 1;
            let digits = self.pos;
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.pos += 1;
                if !truncated {
                    match mantissa
                        .checked_mul(10)
                        .and_then(|m| m.checked_add((c - b'0') as u64))
                    {
                        Some(m) => {
                            mantissa = m;
                            exp10 -= 1;
                        }
                        None => truncated = true,
                    }
                }
            }
            if self.pos == digits {
                return Err(match self.peek() {
                    Some(_) => self.peek_error(Reason::InvalidNumber),
                    None => self.peek_error(Reason::EofWhileParsingValue),
                });
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            float = true;
            self.pos += 1;
            let negative_exp = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    true
                }
                Some(b'+') => {
                    self.pos += 1;
                    false
                }
                _ => false,
            };
            match self.peek() {
                None => return Err(self.error(Reason::EofWhileParsingValue)),
                Some(b'0'..=b'9') => {}
                Some(_) => {
                    self.pos += 1;
                    return Err(self.error(Reason::InvalidNumber));
                }
            }
            let mut e: i32 = 0;
            while let Some(c @ b'0'..=b'9') = self.peek() {
                self.pos += 1;
                match e
                    .checked_mul(10)
                    .and_then(|e| e.checked_add((c - b'0') as i32))
                {
                    Some(next) => e = next,
                    None => {
                        // An exponent beyond i32: a negative one (or a zero mantissa) gives
                        // zero; a positive one is `NumberOutOfRange`.
                        if mantissa != 0 && !negative_exp {
                            return Err(self.error(Reason::NumberOutOfRange));
                        }
                        while let Some(b'0'..=b'9') = self.peek() {
                            self.pos += 1;
                        }
                        return Ok(Number::Float(if negative { -0.0 } else { 0.0 }));
                    }
                }
            }
            exp10 += if negative_exp { -(e as i64) } else { e as i64 };
        }
        if !float {
            return Ok(if !negative {
                Number::PosInt(mantissa)
            } else if mantissa == 0 || mantissa > 1 << 63 {
                Number::Float(-(mantissa as f64))
            } else {
                Number::NegInt((mantissa as i64).wrapping_neg())
            });
        }
        let text = &self.text[start..self.pos];
        let f = if mantissa == 0 {
            0.0
        } else {
            decimal_to_f64(mantissa, exp10, truncated, text.trim_start_matches('-'))
        };
        if f.is_infinite() {
            return Err(self.error(Reason::NumberOutOfRange));
        }
        Ok(Number::Float(if negative { -f } else { f }))
    }
}

/// Object members in key order, the last of equal keys kept.
fn sorted(mut members: Vec<(String, Value)>) -> Map {
    if members.len() > 16 {
        let keys: Vec<&[u8]> = members.iter().map(|(k, _)| k.as_bytes()).collect();
        let order = crate::sort::order_by_bytes(&keys);
        members = crate::sort::permute(members, &order);
    } else {
        // Insertion sort (stable): a handful of keys, no sort instance.
        for i in 1..members.len() {
            let mut j = i;
            while j > 0 && members[j - 1].0 > members[j].0 {
                members.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    // Equal keys are adjacent in input order: keep the last of each run.
    let mut out: Vec<(String, Value)> = Vec::with_capacity(members.len());
    for m in members {
        match out.last_mut() {
            Some(last) if last.0 == m.0 => *last = m,
            _ => out.push(m),
        }
    }
    Map::from_sorted(out)
}

/// The first position from `pos` holding a `"`, a `\` or a control
/// character (or the end). Eight bytes at a time (SWAR, as serde_json
/// does): per byte, `x - 1 & !x` has its high bit set for a zero byte and
/// `x - 0x20 & !x` for one below 0x20; borrows only run upward, so the
/// lowest flagged byte is the first match.
#[inline]
fn skip_plain(b: &[u8], pos: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let rest = b.get(pos..).unwrap_or_default();
    let mut chunks = rest.chunks_exact(8);
    let mut at = pos;
    for chunk in &mut chunks {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let quote = x ^ (ONES * b'"' as u64);
        let backslash = x ^ (ONES * b'\\' as u64);
        let found = ((quote.wrapping_sub(ONES) & !quote)
            | (backslash.wrapping_sub(ONES) & !backslash)
            | (x.wrapping_sub(ONES * 0x20) & !x))
            & HIGH;
        if found != 0 {
            return at + found.trailing_zeros() as usize / 8;
        }
        at += 8;
    }
    for &c in chunks.remainder() {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return at;
        }
        at += 1;
    }
    at
}
