//! Decimal to `f64`, correctly rounded.
//!
//! Fast path (Clinger): a mantissa of at most 2^53 times or divided by an
//! exact power of ten up to 10^22 is one correctly rounded operation.
//! Anything else goes to a complete algorithm: natively `str::parse`; on
//! wasm the host's `parseFloat` (correctly rounded by ECMAScript), because
//! `core::num::dec2flt` would bring its ~10 KB power table into the wasm
//! (the boost parser in src/query/parser was written to avoid it too).

/// Exact powers of ten as `f64` (10^22 is the last one).
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// `mantissa * 10^exp10`, or, when `truncated` (digits beyond a u64 were
/// dropped) or outside the fast path, the value of `text` (the unsigned
/// JSON number it came from). Infinite when out of range.
pub(crate) fn decimal_to_f64(mantissa: u64, exp10: i64, truncated: bool, text: &str) -> f64 {
    if !truncated && mantissa <= 1 << 53 && exp10.unsigned_abs() <= 22 {
        let m = mantissa as f64;
        let p = POW10[exp10.unsigned_abs() as usize];
        return if exp10 < 0 { m / p } else { m * p };
    }
    slow(text)
}

#[cfg(not(target_arch = "wasm32"))]
fn slow(text: &str) -> f64 {
    // JSON number syntax is a subset of what `f64::from_str` reads.
    text.parse().unwrap_or(f64::NAN)
}

/// The host's `parseFloat` (ECMAScript: correctly rounded).
#[cfg(target_arch = "wasm32")]
fn slow(text: &str) -> f64 {
    js_sys::Number::parse_float(text)
}
