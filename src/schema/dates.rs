//! Dates as memdex reads them: epoch milliseconds from a number or an
//! ISO-8601 / RFC 3339 string, within JS `Date`'s range.

use crate::json::Value;

/// Largest epoch-milliseconds magnitude a document's date may hold: JS
/// `Date`'s range (±100,000,000 days).
pub const MAX_DATE_MS: f64 = 8.64e15;

/// Epoch milliseconds from a number or an ISO-8601 / RFC 3339 string
/// (`2024-05-01`, `2024-05-01T12:30:00Z`, `...T12:30:00.250+02:00`).
pub fn parse_date(value: &Value) -> Option<f64> {
    match value {
        Value::Number(n) => n.as_f64().filter(|n| n.is_finite()),
        Value::String(s) => parse_iso8601(s),
        _ => None,
    }
}

/// Epoch milliseconds of an ISO-8601 / RFC 3339 date or time.
pub fn parse_iso8601(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = s.get(range)?;
        if part.bytes().all(|c| c.is_ascii_digit()) && !part.is_empty() {
            part.parse().ok()
        } else {
            None
        }
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let mut ms = 0i64;
    let mut offset_min = 0i64;
    if b.len() > 10 {
        if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
            return None;
        }
        let (h, m) = (num(11..13)?, num(14..16)?);
        let mut i = 16;
        let mut sec = 0;
        if b.get(i) == Some(&b':') {
            sec = num(17..19)?;
            i = 19;
            if b.get(i) == Some(&b'.') {
                let start = i + 1;
                let mut end = start;
                while end < b.len() && b[end].is_ascii_digit() {
                    end += 1;
                }
                let frac = s.get(start..end.min(start + 3))?;
                let digits = frac.len() as u32;
                ms = frac.parse::<i64>().ok()? * 10i64.pow(3 - digits);
                i = end;
            }
        }
        if h > 23 || m > 59 || sec > 60 {
            return None;
        }
        ms += (h * 3600 + m * 60 + sec) * 1000;
        match b.get(i) {
            None => {}
            Some(b'Z') | Some(b'z') if i + 1 == b.len() => {}
            Some(&sign @ (b'+' | b'-')) if b.len() == i + 6 && b[i + 3] == b':' => {
                let off = num(i + 1..i + 3)? * 60 + num(i + 4..i + 6)?;
                offset_min = if sign == b'+' { off } else { -off };
            }
            _ => return None,
        }
    }
    let days = days_from_civil(year, month, day);
    Some((days * 86_400_000 + ms - offset_min * 60_000) as f64)
}

/// Days since 1970-01-01 in the proleptic Gregorian calendar.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::tests::from_serde;
    use serde_json::json;

    #[test]
    fn parses_dates() {
        assert_eq!(parse_date(&from_serde(json!("1970-01-01"))), Some(0.0));
        assert_eq!(
            parse_date(&from_serde(json!("2000-03-01T00:00:00Z"))),
            Some(951_868_800_000.0)
        );
        assert_eq!(
            parse_date(&from_serde(json!("2000-03-01T02:00:00.5+02:00"))),
            Some(951_868_800_500.0)
        );
        assert_eq!(parse_date(&from_serde(json!(12.0))), Some(12.0));
        assert_eq!(parse_date(&from_serde(json!("2000-13-01"))), None);
        assert_eq!(parse_date(&from_serde(json!("yesterday"))), None);
        assert_eq!(parse_date(&from_serde(json!("2000-01-01T10"))), None);
    }
}
