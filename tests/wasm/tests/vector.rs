//! Native/wasm parity of the vector kernels: in wasm (built with simd128,
//! `.cargo/config.toml`) `dot` must give the very bits of the scalar
//! 16-lane reference the native build uses, and `dot_i8` the exact sum, so
//! vector scores and rankings are the same on both targets. Run with
//! `wasm-pack test --node`.
#![cfg(target_arch = "wasm32")]

use memdex::vector::{dot, dot_i8};
use wasm_bindgen_test::wasm_bindgen_test;

/// The scalar kernel's order, written out (src/vector/kernel.rs).
fn reference(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 16];
    for i in 0..a.len().min(b.len()) {
        acc[i % 16] += a[i] * b[i];
    }
    let v: Vec<f32> = (0..4)
        .map(|l| (acc[l] + acc[4 + l]) + (acc[8 + l] + acc[12 + l]))
        .collect();
    (v[0] + v[1]) + (v[2] + v[3])
}

fn floats(n: usize, mut seed: u32) -> Vec<f32> {
    (0..n)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32 * 2.0 - 1.0
        })
        .collect()
}

/// The build really uses simd128 (else the kernels above are the scalar
/// ones and the parity test proves nothing).
#[cfg(not(target_feature = "simd128"))]
compile_error!("the wasm build must enable simd128 (.cargo/config.toml)");

#[wasm_bindgen_test]
fn dot_is_bit_identical_to_the_scalar_order() {
    for n in (0..70).chain([383, 384, 385, 1536]) {
        let a = floats(n, 7 + n as u32);
        let b = floats(n, 1234 + n as u32);
        assert_eq!(
            dot(&a, &b).to_bits(),
            reference(&a, &b).to_bits(),
            "n = {n}"
        );
    }
}

#[wasm_bindgen_test]
fn dot_i8_is_exact() {
    for n in [0, 1, 15, 16, 17, 100, 384] {
        let a: Vec<i8> = (0..n).map(|i: i32| ((i * 37) % 255) as i8).collect();
        let b: Vec<i8> = (0..n).map(|i: i32| ((i * 91 + 3) % 255) as i8).collect();
        let want: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
        assert_eq!(dot_i8(&a, &b), want, "n = {n}");
    }
    assert_eq!(dot_i8(&[-128; 64], &[-128; 64]), 128 * 128 * 64);
}
