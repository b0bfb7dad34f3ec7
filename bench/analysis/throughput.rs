// Measures native analyzer throughput (MB/s of input text) for English prose
// (Cranfield `text` fields repeated to ~20 MB; English stemming + Snowball
// stopwords) and for a generated code-heavy corpus (~20 MB of identifiers,
// paths, URLs, versions). Each document is analyzed separately into a reused
// token buffer, as the indexer does; best of 5 runs, by wall clock and by
// CPU time of the thread (the latter is robust to other jobs on the machine).
//
// cargo run --profile bench-native --example analysis_throughput [-- CORPUS.jsonl]
// (MEMDEX_ANALYZER=<AnalyzerOptions JSON> to measure other settings)

use std::time::Instant;

use memdex::analysis::{Analyzer, AnalyzerOptions, Token};

#[path = "corpus.rs"]
mod corpus;

/// CPU seconds used by this thread (Linux), so numbers stay meaningful on
/// a machine shared with other jobs; `None` elsewhere.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesized command name; utime and stime are the
    // 14th and 15th fields of the whole line, in clock ticks (100 Hz).
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn measure(name: &str, analyzer: &Analyzer, docs: &[String]) {
    let bytes: usize = docs.iter().map(String::len).sum();
    let mut out: Vec<Token> = Vec::new();
    let (mut best_wall, mut best_cpu) = (f64::MAX, f64::MAX);
    let mut tokens = 0;
    for _ in 0..5 {
        let (t0, c0) = (Instant::now(), cpu_seconds());
        tokens = 0;
        for d in docs {
            out.clear();
            analyzer.analyze_into(d, &mut out);
            tokens += out.len();
        }
        best_wall = best_wall.min(t0.elapsed().as_secs_f64());
        if let (Some(c0), Some(c1)) = (c0, cpu_seconds()) {
            best_cpu = best_cpu.min(c1 - c0);
        }
    }
    let mb = bytes as f64 / 1e6;
    let cpu = if best_cpu < f64::MAX {
        format!("{:7.1} MB/s per CPU-second", mb / best_cpu)
    } else {
        String::new()
    };
    println!(
        "{name:<8} {mb:5.1} MB {tokens:>8} tokens {:6.1} Mtokens/s {:7.1} MB/s wall {cpu}",
        tokens as f64 / 1e6 / best_wall,
        mb / best_wall,
    );
}

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../shared/data/cranfield/corpus.jsonl"
        )
        .to_string()
    });
    let jsonl = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    // MEMDEX_ANALYZER='{"language":"none"}' isolates the cost of stemming etc.
    let options: AnalyzerOptions = match std::env::var("MEMDEX_ANALYZER") {
        Ok(json) => memdex::json::parse(&json)
            .map_err(|e| e.to_string())
            .and_then(|v| AnalyzerOptions::from_json(&v))
            .expect("MEMDEX_ANALYZER: AnalyzerOptions JSON"),
        Err(_) => AnalyzerOptions::default(),
    };
    let analyzer = Analyzer::new(&options).expect("valid options");
    measure("english", &analyzer, &corpus::english(&jsonl, 20_000_000));
    measure("code", &analyzer, &corpus::code(20_000_000));
}
