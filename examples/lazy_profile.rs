//! Where a lazy search's time goes, natively: opens DIR/NAME lazily from
//! the filesystem and runs the first N packages queries, timing the open
//! and the searches. A diagnostic for bench/js/lazy-open.mjs.
//!
//! ```text
//! cargo run --profile bench-native --example lazy_profile -- DIR QUERIES.txt [N=200] [CACHE=33554432]
//! ```
use memdex::index::lazy::LazyIndex;
use memdex::storage::FsStorage;
use memdex::SearchOptions;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let storage = FsStorage::new(&args[0]);
    let queries = std::fs::read_to_string(&args[1])?;
    let n: usize = args.get(2).map_or(Ok(200), |s| s.parse())?;
    let cache: usize = args.get(3).map_or(Ok(32 << 20), |s| s.parse())?;
    let opts = SearchOptions::from_json(&memdex::json::parse(r#"{"limit":10,"highlight":true}"#)?)?;
    let t = Instant::now();
    let mut lazy =
        pollster::block_on(LazyIndex::open(&storage, "memdex", cache))?.ok_or("nothing stored")?;
    println!("open {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let mut times = Vec::new();
    for q in queries.lines().take(n) {
        let t = Instant::now();
        pollster::block_on(lazy.search(&storage, q, &opts))?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "p50 {:.2} ms p99 {:.2} ms; {:?}",
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        lazy.stats()
    );
    Ok(())
}
