use super::*;

/// Deterministic pseudo-random floats in [-1, 1) (xorshift).
fn random_vectors(n: usize, dims: usize, mut seed: u64) -> Vec<f32> {
    (0..n * dims)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

#[test]
fn dot_matches_a_plain_sum_for_every_length() {
    for n in 0..70 {
        let a = random_vectors(1, n, 1 + n as u64);
        let b = random_vectors(1, n, 99 + n as u64);
        let plain: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
        assert!((dot(&a, &b) as f64 - plain).abs() < 1e-4, "n = {n}");
    }
}

/// The lane order the simd128 kernel uses, written out: the scalar kernel
/// must give the very same bits (so wasm and native rank alike).
#[test]
fn dot_sums_in_sixteen_lanes_in_a_fixed_order() {
    let a = random_vectors(1, 37, 5);
    let b = random_vectors(1, 37, 6);
    let mut acc = [0.0f32; 16];
    for i in 0..37 {
        acc[i % 16] += a[i] * b[i];
    }
    let v: Vec<f32> = (0..4)
        .map(|l| (acc[l] + acc[4 + l]) + (acc[8 + l] + acc[12 + l]))
        .collect();
    assert_eq!(
        dot(&a, &b).to_bits(),
        ((v[0] + v[1]) + (v[2] + v[3])).to_bits()
    );
}

#[test]
fn dot_i8_is_exact() {
    let a: Vec<i8> = (0..53).map(|i| (i * 37 % 255 - 127) as i8).collect();
    let b: Vec<i8> = (0..53).map(|i| (i * 91 % 255 - 127) as i8).collect();
    let plain: i32 = a.iter().zip(&b).map(|(&x, &y)| x as i32 * y as i32).sum();
    assert_eq!(dot_i8(&a, &b), plain);
    assert_eq!(dot_i8(&[-127; 64], &[-127; 64]), 127 * 127 * 64);
}

#[test]
fn normalize_gives_unit_length_and_refuses_zero() {
    let mut v = vec![3.0, 4.0];
    assert!(normalize(&mut v));
    assert_eq!(v, vec![0.6, 0.8]);
    assert!(!normalize(&mut [0.0, 0.0]));
}

#[test]
fn column_lookup_by_doc() {
    let mut col = VectorColumn::default();
    col.push(2, &[1.0, 0.0]);
    col.push(5, &[0.0, 1.0]);
    assert_eq!(col.dims, 2);
    assert_eq!(col.get(5), Some(&[0.0, 1.0][..]));
    assert_eq!(col.get(3), None);
}

/// External ids whose byte order is the local doc order.
fn ids(d: u32) -> &'static str {
    static IDS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    IDS.get_or_init(|| (0..10_000).map(|d| format!("{d:08}")).collect())[d as usize].as_str()
}

#[test]
fn equal_scores_keep_the_smallest_ids_in_both_modes() {
    let col = VectorColumn::new(2, (0..50).collect(), [0.6f32, 0.8].repeat(50));
    // Ids in reverse local order: the cut must follow ids, not doc numbers.
    let names: Vec<String> = (0..50).map(|d| format!("id{:02}", 49 - d)).collect();
    let id = |d: u32| names[d as usize].as_str();
    for int8 in [false, true] {
        let mut got: Vec<u32> = scan(&col, &[1.0, 0.0], &|_| true, 3, int8, &id)
            .into_iter()
            .map(|x| x.1)
            .collect();
        got.sort();
        assert_eq!(got, [47, 48, 49], "int8 = {int8}");
    }
}

fn exact_top(col: &VectorColumn, q: &[f32], k: usize) -> Vec<u32> {
    let mut all: Vec<(f32, u32)> = (0..col.len())
        .map(|i| (dot(col.row(i), q), col.docs[i]))
        .collect();
    all.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    all.into_iter().take(k).map(|x| x.1).collect()
}

fn sorted(mut v: Vec<(f32, u32)>) -> Vec<u32> {
    v.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    v.into_iter().map(|x| x.1).collect()
}

#[test]
fn exact_scan_is_the_top_k_and_respects_allow() {
    let dims = 24;
    let data = random_vectors(500, dims, 7);
    let col = VectorColumn::new(dims as u32, (0..500).collect(), data);
    let q = random_vectors(1, dims, 8);
    assert_eq!(
        sorted(scan(&col, &q, &|_| true, 10, false, &ids)),
        exact_top(&col, &q, 10)
    );
    let even = sorted(scan(&col, &q, &|d| d % 2 == 0, 10, false, &ids));
    assert_eq!(even.len(), 10);
    assert!(even.iter().all(|d| d % 2 == 0));
    let expected: Vec<u32> = exact_top(&col, &q, 500)
        .into_iter()
        .filter(|d| d % 2 == 0)
        .take(10)
        .collect();
    assert_eq!(even, expected);
}

/// int8 with the f32 rerank: recall@10 against the exact scan >= 0.95 on
/// random 384-dimension vectors (the acceptance bar), and exact scores.
#[test]
fn int8_recall_at_10_is_at_least_095() {
    let dims = 384;
    let n = 5000;
    let mut data = random_vectors(n, dims, 11);
    for row in data.chunks_mut(dims) {
        normalize(row);
    }
    let col = VectorColumn::new(dims as u32, (0..n as u32).collect(), data);
    let mut found = 0;
    let queries = 40;
    for qi in 0..queries {
        let mut q = random_vectors(1, dims, 1000 + qi);
        normalize(&mut q);
        let exact = exact_top(&col, &q, 10);
        let approx = scan(&col, &q, &|_| true, 10, true, &ids);
        for &(score, doc) in &approx {
            assert_eq!(
                score,
                dot(col.get(doc).unwrap(), &q),
                "reranked scores are exact"
            );
        }
        found += approx.iter().filter(|x| exact.contains(&x.1)).count();
    }
    let recall = found as f64 / (queries as f64 * 10.0);
    assert!(recall >= 0.95, "recall@10 = {recall}");
}
