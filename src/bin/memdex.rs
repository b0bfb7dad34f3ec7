//! memdex CLI: batch builds from JSONL and searches, for benchmarks and
//! debugging.
//!
//! ```text
//! memdex build corpus.jsonl[.gz not supported] --out DIR [--limit N] [--id-field _id]
//! memdex search DIR "query" [--mode or|and|fallback] [--limit 10]
//! memdex bench corpus.jsonl queries.txt [--limit N] [--mode or|and] [--k 10]
//! memdex recover DIR [--name memdex]
//! ```
//!
//! `recover` rebuilds the lost manifest of the index `name` stored under
//! `DIR` (filesystem storage, the layout the Node `fs` adapter writes) from
//! its blobs, for an index with the default schema (others: use
//! `Memdex.recover({ schema })` in Node).
//!
//! Until the persisted format lands, `build` writes the corpus as normalized
//! JSONL (`DIR/docs.jsonl`) and `search` rebuilds the index from it.

use std::io::{BufRead, BufReader, Write};
use std::time::Instant;

use memdex::json::{self, Map, ToJson, Value};
use memdex::{Index, IndexConfig, Mode, SearchOptions};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("build") => build(&args[1..]),
        Some("search") => search(&args[1..]),
        Some("bench") => bench(&args[1..]),
        Some("recover") => recover(&args[1..]),
        _ => Err("usage: memdex build CORPUS.jsonl --out DIR | memdex search DIR QUERY | memdex bench CORPUS QUERIES | memdex recover DIR [--name NAME]".into()),
    };
    if let Err(e) = result {
        eprintln!("memdex: {e}");
        std::process::exit(2);
    }
}

type CliResult = Result<(), String>;

fn recover(args: &[String]) -> CliResult {
    let dir = positional(args, 0).ok_or("recover: which directory?")?;
    let name = flag(args, "--name").unwrap_or("memdex");
    let storage = memdex::storage::FsStorage::new(dir);
    let future = memdex::index::recover::recover(&storage, name, IndexConfig::default());
    // FsStorage never waits: its futures complete on the first poll.
    let (_, report) = memdex::storage::run_ready(future)
        .ok_or("recover: storage did not complete")?
        .map_err(|e| e.to_string())?;
    println!("{}", report.to_json());
    Ok(())
}

fn flag<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

fn positional(args: &[String], n: usize) -> Option<&str> {
    let mut seen = 0;
    let mut i = 0;
    while i < args.len() {
        if args[i].starts_with("--") {
            i += 2;
            continue;
        }
        if seen == n {
            return Some(&args[i]);
        }
        seen += 1;
        i += 1;
    }
    None
}

fn parse_mode(s: Option<&str>) -> Result<Mode, String> {
    match s {
        // The engine's default (measured best for questions), not restated.
        None => Ok(Mode::default()),
        Some("or") => Ok(Mode::Or),
        Some("and") => Ok(Mode::And),
        Some("fallback") => Ok(Mode::Fallback),
        Some(other) => Err(format!("unknown mode `{other}`")),
    }
}

/// Reads JSONL documents, mapping `id_field` to `id` and dropping fields the
/// default schema does not know.
fn read_docs(path: &str, limit: usize, id_field: &str) -> Result<Vec<Value>, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let config = IndexConfig::default();
    let mut docs = Vec::new();
    for line in BufReader::new(file).lines().take(limit) {
        let line = line.map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            continue;
        }
        let v = json::parse(&line).map_err(|e| format!("bad JSON line: {e}"))?;
        let Value::Object(obj) = v else { continue };
        let mut doc = Map::new();
        for (k, v) in obj {
            if k == id_field {
                doc.insert("id".into(), v);
            } else if k == "namespace" || config.fields.contains_key(&k) {
                doc.insert(k, v);
            }
        }
        docs.push(Value::Object(doc));
    }
    Ok(docs)
}

fn build_index(docs: &[Value]) -> Result<Index, String> {
    let mut index = Index::new(IndexConfig::default()).map_err(|e| e.to_string())?;
    for d in docs {
        index.add(d).map_err(|e| e.to_string())?;
    }
    index.flush();
    Ok(index)
}

fn build(args: &[String]) -> CliResult {
    let corpus = positional(args, 0).ok_or("missing CORPUS")?;
    let out = flag(args, "--out").ok_or("missing --out DIR")?;
    let limit = flag(args, "--limit")
        .map_or(Ok(usize::MAX), str::parse)
        .map_err(|_| "bad --limit")?;
    let docs = read_docs(corpus, limit, flag(args, "--id-field").unwrap_or("_id"))?;
    let start = Instant::now();
    let index = build_index(&docs)?;
    std::fs::create_dir_all(out).map_err(|e| e.to_string())?;
    let mut f = std::fs::File::create(format!("{out}/docs.jsonl")).map_err(|e| e.to_string())?;
    for d in &docs {
        writeln!(f, "{d}").map_err(|e| e.to_string())?;
    }
    eprintln!(
        "indexed {} documents in {:.2?}",
        index.len(),
        start.elapsed()
    );
    Ok(())
}

fn search(args: &[String]) -> CliResult {
    let dir = positional(args, 0).ok_or("missing DIR")?;
    let query = positional(args, 1).ok_or("missing QUERY")?;
    let docs = read_docs(&format!("{dir}/docs.jsonl"), usize::MAX, "id")?;
    let mut index = build_index(&docs)?;
    let opts = SearchOptions {
        mode: parse_mode(flag(args, "--mode"))?,
        limit: flag(args, "--limit")
            .map_or(Ok(10), str::parse)
            .map_err(|_| "bad --limit")?,
        ..Default::default()
    };
    let results = index
        .searcher()
        .search(query, &opts)
        .map_err(|e| e.to_string())?;
    println!("{}", json::pretty(&results.to_json()));
    Ok(())
}

/// Build time and query latency percentiles, for quick native profiling.
fn bench(args: &[String]) -> CliResult {
    let corpus = positional(args, 0).ok_or("missing CORPUS")?;
    let queries = positional(args, 1).ok_or("missing QUERIES")?;
    let limit = flag(args, "--limit")
        .map_or(Ok(usize::MAX), str::parse)
        .map_err(|_| "bad --limit")?;
    let k = flag(args, "--k")
        .map_or(Ok(10), str::parse)
        .map_err(|_| "bad --k")?;
    let docs = read_docs(corpus, limit, flag(args, "--id-field").unwrap_or("_id"))?;
    let start = Instant::now();
    let mut index = build_index(&docs)?;
    let build_s = start.elapsed().as_secs_f64();
    drop(docs);
    let queries: Vec<String> = std::fs::read_to_string(queries)
        .map_err(|e| e.to_string())?
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    println!(
        "docs={} build_s={build_s:.3} stats={:?}",
        index.len(),
        index.stats()
    );
    for mode in [Mode::Or, Mode::And] {
        let opts = SearchOptions {
            mode,
            limit: k,
            ..Default::default()
        };
        let mut times = Vec::with_capacity(queries.len());
        let mut hits = 0usize;
        for q in &queries {
            let t = Instant::now();
            hits += index
                .searcher()
                .search(q, &opts)
                .map_err(|e| e.to_string())?
                .hits
                .len();
            let ms = t.elapsed().as_secs_f64() * 1000.0;
            if std::env::var_os("MEMDEX_SLOW").is_some() && ms > 2.0 {
                eprintln!("slow {mode:?} {ms:.2}ms: {q}");
            }
            times.push(ms);
        }
        times.sort_by(f64::total_cmp);
        let pct = |p: f64| times[((times.len() as f64 - 1.0) * p) as usize];
        println!(
            "{mode:?}: p50={:.3}ms p95={:.3}ms p99={:.3}ms mean={:.3}ms hits={hits}",
            pct(0.5),
            pct(0.95),
            pct(0.99),
            times.iter().sum::<f64>() / times.len() as f64
        );
    }
    Ok(())
}
