//! Dot products. The f32 kernel sums into 16 lanes (element `i` into lane
//! `i % 16`) and reduces them in one fixed order; the `simd128` version
//! keeps those lanes in four `f32x4` registers and the scalar version in an
//! array, so both give bit-identical results (no fused multiply-add on
//! either). The int8 kernel sums exactly in i32.

/// Lanes of the f32 accumulator.
const LANES: usize = 16;

/// The fixed reduction of the 16 lanes: four `f32x4` added pairwise, then
/// their four lanes pairwise.
#[inline(always)]
fn reduce(acc: &[f32; LANES]) -> f32 {
    let mut v = [0.0f32; 4];
    for (l, x) in v.iter_mut().enumerate() {
        *x = (acc[l] + acc[4 + l]) + (acc[8 + l] + acc[12 + l]);
    }
    (v[0] + v[1]) + (v[2] + v[3])
}

/// `sum(a[i] * b[i])` over the shorter length.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut acc = [0.0f32; LANES];
    let mut ca = a.chunks_exact(LANES);
    let mut cb = b.chunks_exact(LANES);
    for (x, y) in (&mut ca).zip(&mut cb) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    for (l, (x, y)) in ca.remainder().iter().zip(cb.remainder()).enumerate() {
        acc[l] += x * y;
    }
    reduce(&acc)
}

/// `sum(a[i] * b[i])` over the shorter length (wasm `simd128`).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    use core::arch::wasm32::*;
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let full = n / LANES * LANES;
    let mut s = [f32x4_splat(0.0); 4];
    let mut i = 0;
    while i < full {
        // SAFETY: i + 16 <= full <= n: all four loads are inside both
        // slices; v128_load has no alignment requirement.
        unsafe {
            let pa = a.as_ptr().add(i) as *const v128;
            let pb = b.as_ptr().add(i) as *const v128;
            for (j, acc) in s.iter_mut().enumerate() {
                *acc = f32x4_add(*acc, f32x4_mul(v128_load(pa.add(j)), v128_load(pb.add(j))));
            }
        }
        i += LANES;
    }
    let mut acc = [0.0f32; LANES];
    for (j, v) in s.iter().enumerate() {
        acc[4 * j] = f32x4_extract_lane::<0>(*v);
        acc[4 * j + 1] = f32x4_extract_lane::<1>(*v);
        acc[4 * j + 2] = f32x4_extract_lane::<2>(*v);
        acc[4 * j + 3] = f32x4_extract_lane::<3>(*v);
    }
    for (l, (x, y)) in a[full..].iter().zip(&b[full..]).enumerate() {
        acc[l] += x * y;
    }
    reduce(&acc)
}

/// `sum(a[i] * b[i])` of int8 codes, exact, over the shorter length.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    a.iter().zip(b).map(|(&x, &y)| x as i32 * y as i32).sum()
}

/// `sum(a[i] * b[i])` of int8 codes, exact (wasm `simd128`: widened to
/// i16 and multiplied-added pairwise into i32 lanes).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    use core::arch::wasm32::*;
    let n = a.len().min(b.len());
    let full = n / 16 * 16;
    let mut acc = i32x4_splat(0);
    let mut i = 0;
    while i < full {
        // SAFETY: i + 16 <= full <= n: the loads are inside both slices.
        unsafe {
            let x = v128_load(a.as_ptr().add(i) as *const v128);
            let y = v128_load(b.as_ptr().add(i) as *const v128);
            acc = i32x4_add(
                acc,
                i32x4_dot_i16x8(i16x8_extend_low_i8x16(x), i16x8_extend_low_i8x16(y)),
            );
            acc = i32x4_add(
                acc,
                i32x4_dot_i16x8(i16x8_extend_high_i8x16(x), i16x8_extend_high_i8x16(y)),
            );
        }
        i += 16;
    }
    let mut sum = i32x4_extract_lane::<0>(acc)
        + i32x4_extract_lane::<1>(acc)
        + i32x4_extract_lane::<2>(acc)
        + i32x4_extract_lane::<3>(acc);
    for (x, y) in a[full..n].iter().zip(&b[full..n]) {
        sum += *x as i32 * *y as i32;
    }
    sum
}
