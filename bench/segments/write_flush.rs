//! Measures the merge policy under the agent write pattern: N single-document
//! adds each followed by a flush (first N docs of the packages corpus), then
//! the segment count against log2(N), and query latency of the 2000 queries
//! (OR and AND, top-10) on that index vs. the same index compacted to one
//! segment. Prints one JSON line.
//!
//! `cargo run --profile bench-native --example write_flush -- [N=10000]`
//! (reads ../shared/data/packages/{corpus.jsonl.gz via `zcat`, queries.txt}).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    use std::time::Instant;

    use memdex::{Index, IndexConfig, Mode, SearchOptions};
    use serde_json::{json, Value};

    let n: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10_000);
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/packages");
    let mut zcat = Command::new("zcat")
        .arg(format!("{data}/corpus.jsonl.gz"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("zcat");
    let reader = BufReader::new(zcat.stdout.take().expect("stdout"));
    let mut index = Index::new(IndexConfig::default()).expect("config");
    let start = Instant::now();
    let mut max_segments = 0;
    for line in reader.lines().take(n) {
        let d: Value = serde_json::from_str(&line.expect("line")).expect("json");
        index
            .add(
                &memdex::json::parse(
                    &json!({"id": d["_id"], "namespace": d["namespace"], "title": d["title"],
                             "text": d["text"], "kind": d["kind"], "timestamp": d["timestamp"]})
                    .to_string(),
                )
                .expect("json"),
            )
            .expect("add");
        index.flush();
        max_segments = max_segments.max(index.stats().segments);
    }
    let _ = zcat.kill();
    let _ = zcat.wait();
    let write_s = start.elapsed().as_secs_f64();
    let segments = index.stats().segments;
    let queries: Vec<String> = std::fs::read_to_string(format!("{data}/queries.txt"))
        .expect("queries")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    let time_queries = |index: &mut Index, mode: Mode| -> f64 {
        let opts = SearchOptions {
            mode,
            limit: 10,
            ..Default::default()
        };
        // Warm-up, then the median of 3 passes of total time.
        for q in queries.iter().take(200) {
            let _ = index.searcher().search(q, &opts);
        }
        let mut passes: Vec<f64> = (0..3)
            .map(|_| {
                let t = Instant::now();
                for q in &queries {
                    let _ = index.searcher().search(q, &opts);
                }
                t.elapsed().as_secs_f64() * 1000.0 / queries.len() as f64
            })
            .collect();
        passes.sort_by(f64::total_cmp);
        passes[1]
    };
    let segmented_or = time_queries(&mut index, Mode::Or);
    let segmented_and = time_queries(&mut index, Mode::And);
    index.compact();
    let single_or = time_queries(&mut index, Mode::Or);
    let single_and = time_queries(&mut index, Mode::And);
    println!(
        "{}",
        json!({
            "docs": n, "write_then_flush_s": write_s, "segments": segments, "max_segments_seen": max_segments,
            "log2_n": (n as f64).log2(),
            "mean_query_ms": {"segmented_or": segmented_or, "single_or": single_or,
                              "segmented_and": segmented_and, "single_and": single_and},
            "ratio_or": segmented_or / single_or, "ratio_and": segmented_and / single_and,
        })
    );
}
