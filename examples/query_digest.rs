//! Prints every hit (mode, query number, id, score to 6 decimals) of a
//! query set in the three search modes, limit 10, and the time each mode
//! took (stderr, with the p50 and p95 of one query). Piped to `md5sum` it is the digest that proves a query
//! change left the benchmark results unchanged; the times are the quick
//! check that it did not slow them down.
//!
//! ```text
//! zcat ../shared/data/packages/corpus.jsonl.gz | head -20000 > /tmp/packages-20k.jsonl
//! cargo run --profile bench-native --example query_digest -- \
//!     /tmp/packages-20k.jsonl ../shared/data/packages/queries.txt | md5sum
//! ```
//! Documents are the corpus lines as they are (`_id`, `title`, `text`);
//! only those three keys are indexed, in the default schema.

use std::io::Write;
use std::time::Instant;

use memdex::query::options::StoredSelection;
use memdex::{Index, IndexConfig, Mode, SearchOptions};

/// Timed passes over the queries per mode.
const PASSES: usize = 5;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: query_digest DOCS.jsonl QUERIES.txt";
    let docs = std::fs::read_to_string(args.next().ok_or(usage)?)?;
    let queries = std::fs::read_to_string(args.next().ok_or(usage)?)?;
    let queries: Vec<&str> = queries.lines().filter(|l| !l.trim().is_empty()).collect();

    let mut index = Index::new(IndexConfig::default())?;
    // `QUERY_DIGEST_BUDGET=FLUSH,MERGE_CAP` (bytes): another write budget,
    // to compare segmentations (`usize::MAX` twice: one segment).
    if let Ok(budget) = std::env::var("QUERY_DIGEST_BUDGET") {
        let (flush, cap) = budget
            .split_once(',')
            .ok_or("QUERY_DIGEST_BUDGET=FLUSH,MERGE_CAP")?;
        index.set_write_budget(flush.parse()?, cap.parse()?);
    }
    for line in docs.lines().filter(|l| !l.trim().is_empty()) {
        let d: serde_json::Value = serde_json::from_str(line)?;
        let doc = serde_json::json!({
            "id": d["_id"],
            "title": d["title"].as_str().unwrap_or(""),
            "text": d["text"].as_str().unwrap_or(""),
        });
        index.add(&memdex::json::parse(&doc.to_string())?)?;
    }
    index.flush();
    eprintln!(
        "{} documents in {} segments",
        index.len(),
        index.stats().segments
    );

    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (name, mode) in [
        ("or", Mode::Or),
        ("and", Mode::And),
        ("fallback", Mode::Fallback),
    ] {
        let opts = SearchOptions {
            mode,
            limit: 10,
            stored_fields: StoredSelection::None,
            ..Default::default()
        };
        // The best of a few passes, for the whole set and for each query:
        // a loaded machine only ever adds time.
        let mut best = f64::INFINITY;
        let mut per_query = vec![f64::INFINITY; queries.len()];
        let mut results = Vec::new();
        for _ in 0..PASSES {
            let start = Instant::now();
            results = Vec::with_capacity(queries.len());
            for (q, best_q) in queries.iter().zip(per_query.iter_mut()) {
                let t = Instant::now();
                results.push(index.searcher().search(q, &opts)?);
                *best_q = best_q.min(t.elapsed().as_secs_f64() * 1e6);
            }
            best = best.min(start.elapsed().as_secs_f64() * 1e3);
        }
        per_query.sort_by(f64::total_cmp);
        let at = |p: f64| per_query[((per_query.len() - 1) as f64 * p) as usize];
        eprintln!(
            "{name}: {} queries in {best:.1} ms (best of {PASSES}) p50 {:.1} us p95 {:.1} us",
            queries.len(),
            at(0.5),
            at(0.95)
        );
        for (i, r) in results.iter().enumerate() {
            for h in &r.hits {
                writeln!(out, "{name}\t{i}\t{}\t{:.6}", h.id, h.score)?;
            }
        }
    }
    Ok(())
}
