//! Where a lazy search's time goes, natively: opens DIR/NAME lazily from
//! the filesystem and runs the first N packages queries, timing the open
//! and the searches. A diagnostic for bench/js/lazy-open.mjs.
//!
//! ```text
//! cargo run --profile bench-native --example lazy_profile -- DIR QUERIES.txt [N=200] [CACHE=33554432] [OPTIONS_JSON]
//! ```
//!
//! `lazy_profile --build DOCS.jsonl DIR` commits the `packages` documents
//! of DOCS (id, title, text) to DIR natively first, as bench/js/lazy-open.mjs
//! does through the package.
//!
//! `lazy_profile --full DIR QUERIES.txt` opens it whole instead (the
//! fully loaded speed to compare with, and the most the load allocated).
//!
//! Prints the open, the p50/p99, the stats, and the most one search used,
//! fetched and added to the heap while it ran (a counting allocator);
//! with `LAZY_PROFILE_EACH` set, those per query.
use memdex::index::lazy::LazyIndex;
use memdex::storage::FsStorage;
use memdex::SearchOptions;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::time::Instant;

/// Bytes allocated now and at most: what the searches keep and need.
struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let live = LIVE.fetch_add(layout.size(), Relaxed) + layout.size();
        PEAK.fetch_max(live, Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const MIB: f64 = (1 << 20) as f64;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args[0] == "--build" {
        return build(&args[1], &args[2]);
    }
    if args[0] == "--full" {
        return full(&args[1], &args[2]);
    }
    let storage = FsStorage::new(&args[0]);
    let queries = std::fs::read_to_string(&args[1])?;
    let n: usize = args.get(2).map_or(Ok(200), |s| s.parse())?;
    let cache: usize = args.get(3).map_or(Ok(32 << 20), |s| s.parse())?;
    let opts = args
        .get(4)
        .map_or(r#"{"limit":10,"highlight":true}"#, |s| s.as_str());
    let opts = SearchOptions::from_json(&memdex::json::parse(opts)?)?;
    let t = Instant::now();
    let mut lazy =
        pollster::block_on(LazyIndex::open(&storage, "memdex", cache))?.ok_or("nothing stored")?;
    println!(
        "open {:.1} ms; heap {:.1} MiB",
        t.elapsed().as_secs_f64() * 1e3,
        LIVE.load(Relaxed) as f64 / MIB
    );
    let mut times = Vec::new();
    let (mut most_used, mut most_fetched, mut most_heap) = (0, 0, 0);
    for q in queries.lines().take(n) {
        let t = Instant::now();
        let fetched = lazy.stats().fetched_bytes;
        let before = LIVE.load(Relaxed);
        PEAK.store(before, Relaxed);
        pollster::block_on(lazy.search(&storage, q, &opts))?;
        most_heap = most_heap.max(PEAK.load(Relaxed) - before);
        if std::env::var_os("LAZY_PROFILE_EACH").is_some() {
            let s = lazy.stats();
            println!(
                "{q:?}: {:.3} ms fetched {} used {} heap +{}",
                t.elapsed().as_secs_f64() * 1e3,
                s.fetched_bytes - fetched,
                s.last_search_bytes,
                PEAK.load(Relaxed) - before
            );
        }
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let stats = lazy.stats();
        most_used = most_used.max(stats.last_search_bytes);
        most_fetched = most_fetched.max(stats.fetched_bytes - fetched);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "heap {:.1} MiB now; one search added at most {:.1} MiB while it ran",
        LIVE.load(Relaxed) as f64 / MIB,
        most_heap as f64 / MIB
    );
    println!(
        "p50 {:.2} ms p99 {:.2} ms; {:?}; one search used at most {most_used} bytes, fetched {most_fetched}",
        times[times.len() / 2],
        times[times.len() * 99 / 100],
        lazy.stats()
    );
    Ok(())
}

/// Commits DOCS (JSON lines of `_id`, `title`, `text`) to DIR as index
/// `memdex`, in batches of 1000.
fn build(docs: &str, dir: &str) -> Result<(), Box<dyn std::error::Error>> {
    use memdex::json::{self, Value};
    let text = std::fs::read_to_string(docs)?;
    let mut index = memdex::Index::new(memdex::IndexConfig::default())?;
    let mut batch = Vec::new();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    for (i, line) in lines.iter().enumerate() {
        let Value::Object(map) = json::parse(line)? else {
            return Err("not a JSON object".into());
        };
        let mut doc = String::from("{");
        for (k, (from, to)) in [("_id", "id"), ("title", "title"), ("text", "text")]
            .iter()
            .enumerate()
        {
            let value = match map.get(from) {
                Some(Value::String(s)) => s.as_str(),
                _ => "",
            };
            if k > 0 {
                doc.push(',');
            }
            json::write_string(to, &mut doc);
            doc.push(':');
            json::write_string(value, &mut doc);
        }
        doc.push('}');
        batch.push(doc);
        if batch.len() == 1000 || i + 1 == lines.len() {
            index.add_json_lines(&batch.join("\n"))?;
            batch.clear();
        }
    }
    pollster::block_on(index.commit(&FsStorage::new(dir), "memdex"))?;
    println!("{} documents committed to {dir}", index.len());
    Ok(())
}

/// Opens DIR whole and runs all the queries: the load and the p50.
fn full(dir: &str, queries: &str) -> Result<(), Box<dyn std::error::Error>> {
    let storage = FsStorage::new(dir);
    let t = Instant::now();
    let loaded = pollster::block_on(memdex::index::load::load(&storage, "memdex"))?;
    let mut index = memdex::Index::from_loaded(loaded.ok_or("nothing stored")?, None)?;
    let load = t.elapsed().as_secs_f64() * 1e3;
    let opts = SearchOptions::from_json(&memdex::json::parse(r#"{"limit":10,"highlight":true}"#)?)?;
    let mut times = Vec::new();
    for q in std::fs::read_to_string(queries)?.lines() {
        let t = Instant::now();
        index.searcher().search(q, &opts)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "load {load:.1} ms (heap at most {:.1} MiB, allocated capacity, as a wasm memory would hold it; {:.1} MiB after); p50 {:.3} ms",
        PEAK.load(Relaxed) as f64 / MIB,
        LIVE.load(Relaxed) as f64 / MIB,
        times[times.len() / 2]
    );
    Ok(())
}
