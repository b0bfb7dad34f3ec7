//! Trailing modifiers: `*`, `~n`, `^boost` on terms; `~slop`, `^boost` on
//! phrases and groups.
//!
//! A modifier is recognized only when it has the right shape (`^` followed
//! by digits and dots, `~` followed by digits) and follows some text;
//! otherwise the characters are literal text (`e^x`, `~/.bashrc`, `*`), in
//! both modes. A well-shaped modifier with a bad value (`^0`, `~3`) is an
//! error in strict mode and is dropped (boost) or clamped (distance, slop)
//! in lenient mode.

use crate::error::{Error, Result};

/// Largest fuzzy edit distance.
pub const MAX_FUZZY: u8 = 2;
/// Largest phrase slop.
pub const MAX_SLOP: u32 = 100;
/// Edit distance of a bare `term~`.
pub const DEFAULT_FUZZY: u8 = 1;

/// A term word split into raw text and modifiers.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct TermParts<'a> {
    pub text: &'a str,
    pub prefix: bool,
    pub fuzzy: u8,
    pub boost: f32,
}

/// Modifiers written right after a closing `"` or `)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Suffix {
    pub slop: u32,
    pub boost: f32,
}

fn invalid(position: usize, reason: &str) -> Error {
    Error::InvalidQuery {
        position,
        reason: reason.to_string(),
    }
}

fn is_number_shaped(s: &str) -> bool {
    s.chars().all(|c| c.is_ascii_digit() || c == '.')
}

/// Char position of byte `k` of `s`, where `s` starts at char `base`.
fn char_pos(s: &str, k: usize, base: usize) -> usize {
    base + s.get(..k).map_or(0, |p| p.chars().count())
}

/// Parses the number after `^` (ASCII digits with at most one `.`, as
/// `str::parse` reads them: `2`, `2.5`, `.5`, `5.`); `None` unless
/// positive and finite as an `f32`. Read as JSON's number (correctly
/// rounded to `f64`, then to `f32`): core's float parser costs ~15 KB of
/// gzipped wasm, and the JSON module's is linked anyway. A decimal whose
/// `f64` lands exactly halfway between two `f32`s can differ in the last
/// bit from a direct `f32` parse: irrelevant for a weight.
fn parse_boost(num: &str) -> Option<f32> {
    let (int, frac) = num.split_once('.').unwrap_or((num, ""));
    if (int.is_empty() && frac.is_empty()) || frac.contains('.') {
        return None;
    }
    // JSON spelling: no leading zeros, digits on both sides of the dot.
    let int = int.trim_start_matches('0');
    let int = if int.is_empty() { "0" } else { int };
    let frac = if frac.is_empty() { "0" } else { frac };
    let value = crate::json::parse(&format!("{int}.{frac}"))
        .ok()?
        .as_f64()? as f32;
    (value.is_finite() && value > 0.0).then_some(value)
}

/// Applies the boost after `^` at char `pos`: strict rejects a bad value,
/// lenient ignores it.
fn boost_value(num: &str, pos: usize, strict: bool) -> Result<f32> {
    match parse_boost(num) {
        Some(b) => Ok(b),
        None if strict => Err(invalid(pos, "boost must be a positive number")),
        None => Ok(1.0),
    }
}

/// Parses a run of ASCII digits as a bounded count; `None` on overflow.
fn parse_count(digits: &str) -> Option<u32> {
    digits.parse::<u32>().ok()
}

/// Splits `body` (the part of a word after any `field:`, starting at char
/// `base`) into text and modifiers. `body` is non-empty.
pub(super) fn term_parts(body: &str, base: usize, strict: bool) -> Result<TermParts<'_>> {
    let mut rest = body;
    let mut boost = 1.0;
    if let Some(k) = rest.rfind('^').filter(|&k| k > 0) {
        let num = &rest[k + 1..];
        if is_number_shaped(num) {
            boost = boost_value(num, char_pos(body, k, base), strict)?;
            rest = &rest[..k];
        }
    }
    let mut parts = TermParts {
        text: rest,
        prefix: false,
        fuzzy: 0,
        boost,
    };
    if rest.len() > 1 && rest.ends_with('*') {
        parts.text = &rest[..rest.len() - 1];
        parts.prefix = true;
    } else if let Some(k) = rest.rfind('~').filter(|&k| k > 0) {
        let digits = &rest[k + 1..];
        if digits.chars().all(|c| c.is_ascii_digit()) {
            parts.text = &rest[..k];
            parts.fuzzy = if digits.is_empty() {
                DEFAULT_FUZZY
            } else {
                match parse_count(digits) {
                    Some(d) if d <= u32::from(MAX_FUZZY) => d as u8,
                    _ if strict => {
                        return Err(invalid(
                            char_pos(body, k, base),
                            "fuzzy distance must be 0..=2",
                        ))
                    }
                    _ => MAX_FUZZY,
                }
            };
        }
    }
    Ok(parts)
}

/// Reads a word glued after a closing `"` (`allow_slop`) or `)` as
/// modifiers. `Ok(None)` when the word does not have the shape of a suffix;
/// it is then an ordinary word.
pub(super) fn suffix(
    word: &str,
    base: usize,
    strict: bool,
    allow_slop: bool,
) -> Result<Option<Suffix>> {
    let mut out = Suffix {
        slop: 0,
        boost: 1.0,
    };
    let mut rest = word;
    let mut slop_digits = None;
    if allow_slop {
        if let Some(r) = rest.strip_prefix('~') {
            let d = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            slop_digits = Some(&r[..d]);
            rest = &r[d..];
        }
    }
    let boost_num = match rest.strip_prefix('^') {
        Some(num) if is_number_shaped(num) => Some(num),
        Some(_) => return Ok(None),
        None if rest.is_empty() => None,
        None => return Ok(None),
    };
    if slop_digits.is_none() && boost_num.is_none() {
        return Ok(None);
    }
    if let Some(digits) = slop_digits {
        out.slop = match parse_count(digits) {
            Some(s) if s <= MAX_SLOP => s,
            _ if strict && digits.is_empty() => {
                return Err(invalid(base, "expected a slop number after `~`"))
            }
            _ if strict => return Err(invalid(base, "phrase slop must be 0..=100")),
            None if digits.is_empty() => 0,
            _ => MAX_SLOP,
        };
    }
    if let Some(num) = boost_num {
        let k = word.len() - num.len() - 1;
        out.boost = boost_value(num, char_pos(word, k, base), strict)?;
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_modifiers() {
        let p = term_parts("foo~^2", 0, true).unwrap();
        assert_eq!((p.text, p.fuzzy, p.boost), ("foo", 1, 2.0));
        let p = term_parts("e^x", 0, true).unwrap();
        assert_eq!((p.text, p.boost), ("e^x", 1.0));
        let p = term_parts("*", 0, true).unwrap();
        assert_eq!((p.text, p.prefix), ("*", false));
        assert!(term_parts("foo~9999999999999", 0, true).is_err());
        assert_eq!(term_parts("foo~9999999999999", 0, false).unwrap().fuzzy, 2);
    }

    #[test]
    fn suffixes() {
        assert_eq!(suffix("foo", 0, true, true).unwrap(), None);
        assert_eq!(suffix("~2x", 0, true, true).unwrap(), None);
        assert_eq!(suffix("~2", 0, true, false).unwrap(), None);
        let s = suffix("~3^1.5", 0, true, true).unwrap().unwrap();
        assert_eq!((s.slop, s.boost), (3, 1.5));
        assert!(suffix("~", 0, true, true).is_err());
        assert!(suffix("^", 0, true, true).is_err());
        assert_eq!(suffix("^", 0, false, true).unwrap().unwrap().boost, 1.0);
    }
}

#[cfg(test)]
mod boost_tests {
    use super::parse_boost;

    /// Core's correctly rounded `f64`, then to `f32`.
    fn reference(num: &str) -> Option<f32> {
        num.parse::<f64>()
            .ok()
            .map(|b| b as f32)
            .filter(|b| b.is_finite() && *b > 0.0)
    }

    #[test]
    fn parse_boost_matches_str_parse_through_f64() {
        let fixed = [
            "",
            ".",
            "..",
            "1.2.3",
            "0",
            "0.0",
            "00",
            ".0",
            "0.",
            "5.",
            ".5",
            "2",
            "2.5",
            "10",
            "1.5",
            "0.1",
            "0.3",
            "3.4028235",
            "16777217",
            "16777216.5",
            "33554433",
            "0.00000001",
            "123456789012345678",
            "99999999999999999999",
            "0.00000000000000000001",
            "1.0000000596046447753906",
            "1.0000000596046447753",
            "1.0000000596046447754",
            "007.250",
            "34028235000000000000",
        ];
        for num in fixed {
            assert_eq!(parse_boost(num), reference(num), "{num:?}");
        }
        // Pseudo-random digit strings (xorshift), every dot position.
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 1 + (x % 18) as usize;
            let mut s: String = (0..len)
                .map(|i| char::from(b'0' + ((x >> (i * 3)) % 10) as u8))
                .collect();
            let dot = ((x >> 58) as usize) % (len + 2);
            if dot <= len {
                s.insert(dot, '.');
            }
            assert_eq!(parse_boost(&s), reference(&s), "{s:?}");
        }
    }
}
