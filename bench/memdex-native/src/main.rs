//! Benchmark peer: memdex compiled natively (the Rust crate at the repo root).
//! Measures index build time, peak RSS, per-query latency (OR and AND, top-k,
//! default schema: title weight 2 + text weight 1, English analysis) and
//! relevance runs. Speaks the common peer protocol: one JSON spec as argv[1],
//! one JSON result object on stdout (see bench/README.md).
use std::fs;
use std::io::{BufRead, BufReader};
use std::time::Instant;

use memdex::{Index, IndexConfig, Mode, SearchOptions};
use serde::Deserialize;
use serde_json::{json, Map, Value};

#[derive(Deserialize)]
struct Spec {
    task: String,
    docs: String,
    #[serde(default)]
    queries: Option<String>,
    #[serde(default = "ten")]
    k: usize,
    #[serde(default = "modes")]
    modes: Vec<String>,
    #[serde(default = "english")]
    config: String,
    #[serde(default)]
    warmup: Option<usize>,
    /// Stop issuing queries once this much wall time has been spent on them
    /// (per mode); the result says how many ran.
    #[serde(default)]
    query_budget_ms: Option<f64>,
}
fn ten() -> usize {
    10
}
fn modes() -> Vec<String> {
    vec!["or".into(), "and".into()]
}
fn english() -> String {
    "english".into()
}

fn read_jsonl(path: &str) -> Vec<Value> {
    let f = fs::File::open(path).expect("open jsonl");
    BufReader::new(f)
        .lines()
        .map(|l| l.expect("read"))
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(&l).expect("json line"))
        .collect()
}
fn peak_rss_mib() -> f64 {
    let st = fs::read_to_string("/proc/self/status").unwrap_or_default();
    st.lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .map(|r| r.trim().trim_end_matches("kB").trim().parse::<f64>().unwrap_or(0.0) / 1024.0)
        .unwrap_or(0.0)
}

fn main() {
    let spec: Spec = serde_json::from_str(&std::env::args().nth(1).expect("spec json")).expect("spec");
    let mut out = Map::new();
    out.insert("peer".into(), json!("memdex-native"));
    out.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
    out.insert("config".into(), json!(spec.config));
    out.insert("task".into(), json!(spec.task));
    if spec.task == "agent" {
        out.insert(
            "unsupported".into(),
            json!("not yet supported: memdex has no persistence/commit API yet (planned: Storage + manifest commits)"),
        );
        println!("{}", Value::Object(out));
        return;
    }
    let docs = read_jsonl(&spec.docs);
    let queries: Vec<(String, String)> = spec
        .queries
        .as_deref()
        .map(read_jsonl)
        .unwrap_or_default()
        .iter()
        .map(|v| {
            (
                v["id"].as_str().unwrap_or("").to_string(),
                v["text"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    out.insert("docs".into(), json!(docs.len()));
    out.insert(
        "notes".into(),
        json!(["memdex default IndexConfig (English stemming + stopwords; title weight 2, text 1); serialization not yet available"]),
    );

    let t0 = Instant::now();
    let mut index = Index::new(IndexConfig::default()).expect("index");
    for d in &docs {
        let mut m = Map::new();
        for key in ["namespace", "title", "text", "kind", "timestamp"] {
            if let Some(v) = d.get(key) {
                if !v.is_null() {
                    m.insert(key.into(), v.clone());
                }
            }
        }
        m.insert("id".into(), d["id"].clone());
        index.add(&Value::Object(m)).expect("add");
    }
    // TODO(bench): call index.flush() here once memdex exposes it (seal the in-memory segment).
    out.insert("build_ms".into(), json!(t0.elapsed().as_secs_f64() * 1e3));
    out.insert("rss_after_build_mib".into(), json!(peak_rss_mib()));
    out.insert("serialized_bytes".into(), json!(null));
    out.insert("serialize_unsupported".into(), json!("memdex has no snapshot/serialize API yet"));

    let mut qres = Map::new();
    let mut runs = Map::new();
    for mode in &spec.modes {
        let opts = SearchOptions {
            mode: if mode == "and" { Mode::And } else { Mode::Or },
            limit: spec.k,
            ..Default::default()
        };
        // The budget covers warm-up (at most a quarter of it) and the timed queries.
        let t = Instant::now();
        let warm = spec.warmup.unwrap_or(0).min(queries.len());
        for (_, q) in queries.iter().take(warm) {
            if spec.query_budget_ms.is_some_and(|b| t.elapsed().as_secs_f64() * 1e3 > b / 4.0) {
                break;
            }
            let _ = index.search(q, &opts);
        }
        let mut lat = Vec::with_capacity(queries.len());
        let mut hits = 0usize;
        let mut run = Map::new();
        let mut truncated = false;
        for (qid, q) in &queries {
            if let Some(b) = spec.query_budget_ms {
                if t.elapsed().as_secs_f64() * 1e3 > b {
                    truncated = true;
                    break;
                }
            }
            let tq = Instant::now();
            let res = index.search(q, &opts).expect("search");
            lat.push(tq.elapsed().as_secs_f64() * 1e3);
            hits += res.hits.len();
            if spec.task == "relevance" {
                run.insert(qid.clone(), json!(res.hits.iter().map(|h| h.id.clone()).collect::<Vec<_>>()));
            }
        }
        let total = t.elapsed().as_secs_f64() * 1e3;
        qres.insert(
            mode.clone(),
            json!({"latencies_ms": lat, "total_ms": total, "hits": hits, "truncated": truncated, "planned": queries.len()}),
        );
        if spec.task == "relevance" {
            runs.insert(mode.clone(), Value::Object(run));
        }
    }
    out.insert("queries".into(), Value::Object(qres));
    if spec.task == "relevance" {
        out.insert("runs".into(), Value::Object(runs));
    }
    out.insert("peak_rss_mib".into(), json!(peak_rss_mib()));
    println!("{}", Value::Object(out));
}
