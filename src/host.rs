//! The few things the engine asks of its host: the wall clock, a source of
//! unique ids, and (in wasm only) two text services whose Rust versions
//! would cost the bundle more than they are worth. Natively they come from
//! `std`; in wasm from JavaScript (`Date.now`, `Math.random`,
//! `parseFloat`, `String.prototype.normalize`), since
//! `wasm32-unknown-unknown` has none of them. This module is the one place
//! outside `wasm` that calls JavaScript.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Date::now() as u64
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64)
    }
}

/// `0.5^x` (recency decay): JavaScript's `Math.pow` in wasm, where Rust's
/// `powf` would link libm's `pow`.
pub fn half_pow(x: f64) -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        js_sys::Math::pow(0.5, x)
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0.5f64.powf(x)
    }
}

/// 48 bits that differ between calls and between processes (not secret:
/// they keep commit ids of racing writers apart).
pub fn unique_bits() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    #[cfg(target_arch = "wasm32")]
    let entropy = {
        let hi = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        let lo = (js_sys::Math::random() * 4_294_967_296.0) as u64;
        (hi << 32) | lo
    };
    #[cfg(not(target_arch = "wasm32"))]
    let entropy = {
        use std::hash::{BuildHasher, Hasher};
        // RandomState is seeded from the OS once per process.
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(std::process::id() as u64);
        h.finish()
    };
    splitmix64(entropy ^ n.wrapping_mul(0x9E37_79B9_7F4A_7C15)) & 0xFFFF_FFFF_FFFF
}

/// Spreads every input bit over the output (Steele et al., SplitMix64's
/// finalizer): a few instructions, where a general hash would link its
/// long-input code into the wasm.
fn splitmix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// NFKC normalization by the host's ICU (src/analysis/normalize.rs says
/// when the wasm build needs it).
#[cfg(target_arch = "wasm32")]
pub fn nfkc(text: &str) -> String {
    String::from(js_sys::JsString::from(text).normalize("NFKC"))
}
