//! Benchmark peer: memdex compiled natively (the Rust crate at the repo root).
//! Measures index build time, peak RSS, per-query latency (OR and AND, top-k,
//! default schema: title weight 2 + text weight 1, English analysis) and
//! relevance runs. Speaks the common peer protocol: one JSON spec as argv[1],
//! one JSON result object on stdout (see bench/README.md).
use std::fs;
use std::io::{BufRead, BufReader};
use std::time::Instant;

use memdex::query::options::StoredSelection;
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
    #[serde(default)]
    writes: Option<usize>,
    #[serde(default)]
    search_every: Option<usize>,
    #[serde(default)]
    budget_ms: Option<f64>,
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
    if spec.task == "agent" {
        agent(&spec, &docs, &queries, &mut out);
        println!("{}", Value::Object(out));
        return;
    }
    out.insert(
        "notes".into(),
        json!([
            "memdex default IndexConfig (English stemming + stopwords; title weight 2, text 1)",
            "hits requested with stored_fields = None (ids, scores, matched terms): the harness reads only ids, and no peer returns stored text"
        ]),
    );

    // memdex's own JSON values, converted before the clock starts.
    let prepared: Vec<memdex::json::Value> = docs.iter().map(|d| to_doc(d, &spec.config)).collect();
    let t0 = Instant::now();
    let mut index = Index::new(config_for(&spec.config)).expect("index");
    for d in &prepared {
        index.add(d).expect("add");
    }
    // Seal the write buffer: build time includes making the index searchable.
    index.flush();
    out.insert("build_ms".into(), json!(t0.elapsed().as_secs_f64() * 1e3));
    out.insert("rss_after_build_mib".into(), json!(peak_rss_mib()));
    let snapshot = index.export_snapshot();
    out.insert("serialized_bytes".into(), json!(snapshot.len()));
    let t = Instant::now();
    let reloaded = Index::import_snapshot(&snapshot).expect("snapshot reloads");
    out.insert("load_ms".into(), json!(t.elapsed().as_secs_f64() * 1e3));
    drop(reloaded);
    drop(snapshot);

    let mut qres = Map::new();
    let mut runs = Map::new();
    for mode in &spec.modes {
        let opts = SearchOptions {
            mode: if mode == "and" { Mode::And } else { Mode::Or },
            limit: spec.k,
            // The harness reads ids only; peers return no stored text either.
            stored_fields: StoredSelection::None,
            ..Default::default()
        };
        // The budget covers warm-up (at most a quarter of it) and the timed queries.
        let t = Instant::now();
        let warm = spec.warmup.unwrap_or(0).min(queries.len());
        for (_, q) in queries.iter().take(warm) {
            if spec.query_budget_ms.is_some_and(|b| t.elapsed().as_secs_f64() * 1e3 > b / 4.0) {
                break;
            }
            let _ = index.searcher().search(q, &opts);
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
            let res = index.searcher().search(q, &opts).expect("search");
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

/// `english`: the default schema (BM25F, title weight 2, text 1).
/// `english-single`: one text field holding title + text (plain BM25, the
/// configuration compared with bm25s).
fn config_for(config: &str) -> IndexConfig {
    let mut c = IndexConfig::default();
    if config == "english-single" {
        c.fields.remove("title");
    }
    c
}

/// The document memdex indexes, as memdex's own JSON value.
fn to_doc(d: &Value, config: &str) -> memdex::json::Value {
    let mut m = Map::new();
    for key in ["namespace", "title", "text", "kind", "timestamp"] {
        if let Some(v) = d.get(key) {
            if !v.is_null() {
                m.insert(key.into(), v.clone());
            }
        }
    }
    if config == "english-single" {
        let title = m.remove("title");
        let joined = format!(
            "{} {}",
            title.as_ref().and_then(Value::as_str).unwrap_or(""),
            m.get("text").and_then(Value::as_str).unwrap_or("")
        );
        m.insert("text".into(), json!(joined));
    }
    m.insert("id".into(), d["id"].clone());
    memdex::json::parse(&Value::Object(m).to_string()).expect("document JSON")
}

/// Agent pattern: each write is added and committed durably to the
/// filesystem (`FsStorage`: fsync'd temp file + rename per blob, manifest
/// last); a search every `search_every` writes.
fn agent(spec: &Spec, docs: &[Value], queries: &[(String, String)], out: &mut Map<String, Value>) {
    use memdex::storage::FsStorage;
    let dir = std::env::temp_dir().join(format!("bench-memdex-agent-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let storage = FsStorage::new(&dir);
    let writes = spec.writes.unwrap_or(10_000).min(docs.len());
    let every = spec.search_every.unwrap_or(10).max(1);
    let mut index = Index::new(config_for(&spec.config)).expect("index");
    let (mut write_lat, mut search_lat) = (Vec::new(), Vec::new());
    let mut bytes_written = 0usize;
    let mut truncated = false;
    let prepared: Vec<memdex::json::Value> =
        docs.iter().take(writes).map(|d| to_doc(d, &spec.config)).collect();
    let t0 = Instant::now();
    for (i, d) in prepared.iter().enumerate() {
        if spec.budget_ms.is_some_and(|b| t0.elapsed().as_secs_f64() * 1e3 > b) {
            truncated = true;
            break;
        }
        let t = Instant::now();
        index.add(d).expect("add");
        let info = pollster::block_on(index.commit(&storage, "agent")).expect("commit");
        bytes_written += info.bytes_written;
        write_lat.push(t.elapsed().as_secs_f64() * 1e3);
        if (i + 1) % every == 0 && !queries.is_empty() {
            let q = &queries[(i / every) % queries.len()].1;
            let t = Instant::now();
            let opts = SearchOptions { mode: Mode::Or, limit: spec.k, ..Default::default() };
            let _ = index.searcher().search(q, &opts);
            search_lat.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    out.insert("total_ms".into(), json!(t0.elapsed().as_secs_f64() * 1e3));
    out.insert("writes".into(), json!(write_lat.len()));
    out.insert("planned_writes".into(), json!(writes));
    out.insert("truncated".into(), json!(truncated));
    out.insert("commit_latencies_ms".into(), json!(write_lat));
    out.insert("search_latencies_ms".into(), json!(search_lat));
    out.insert("bytes_written".into(), json!(bytes_written));
    out.insert("bytes_on_disk".into(), json!(dir_size(&dir)));
    out.insert("segments".into(), json!(index.stats().segments));
    out.insert(
        "commit_kind".into(),
        json!("Index::commit to FsStorage (new segment + manifest, fsync + rename; merges by policy)"),
    );
    out.insert("peak_rss_mib".into(), json!(peak_rss_mib()));
    let _ = std::fs::remove_dir_all(&dir);
}

fn dir_size(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            total += if p.is_dir() { dir_size(&p) } else { e.metadata().map_or(0, |m| m.len()) };
        }
    }
    total
}
