//! Relevance of search *options* (not peers): nDCG@10 of memdex on
//! Cranfield and CISI (their natural-language queries, default schema,
//! title + text) and on the agent-memory question set
//! (`tests/fixtures/agent-memory.json`: nDCG@10 with binary gains, and
//! success@1 = the top hit answers the question), for each option set
//! given as `name=JSON` (search options as the JS API takes them). Used to
//! measure term proximity and to choose the natural-language default
//! (BENCHMARKS.md, "Proximity and the natural-language default").
//!
//! ```text
//! cargo run --release --example relevance_options -- \
//!     [--data ../shared/data] [--verbose] \
//!     'or={"mode":"or"}' 'prox={"proximity":true}' 'fallback={"mode":"fallback"}'
//! ```
//! nDCG@10 as `bench/js/metrics.mjs` computes it (linear gain, pytrec_eval).
//! `--config JSON` builds the indexes with that configuration (as `Memdex.open`
//! takes it: `{"analyzer":{"stopwords":[...]}}`) instead of the default.
//! `--runs DIR` also writes each option set's ranked ids per collection as
//! `DIR/<options>-<collection>.json` (`{query id: [doc ids]}`), the input of
//! `bench/js/per-query.mjs` (per-query comparison with a peer).
//!
//! With `--speed DOCS.jsonl QUERIES.txt` it measures query latency instead:
//! the documents (`_id`, `title`, `text`, as the scale benchmark's) in one
//! index, 100 warm-up queries, then all queries under one option set after
//! the other (as the scale benchmark runs its modes: interleaving them
//! query by query let every set after the first find the query's postings
//! in cache), p50/p95 per set; five such passes (so load on a shared
//! machine hits all sets alike), the best p50 of each set.
//! ```text
//! zcat ../shared/data/packages/corpus.jsonl.gz | head -100000 > target/packages-100k.jsonl
//! cargo run --profile bench-native --example relevance_options -- \
//!     --speed target/packages-100k.jsonl ../shared/data/packages/queries.txt \
//!     'or={}' 'prox={"proximity":true}'
//! ```

use std::collections::HashMap;
use std::time::Instant;

use memdex::query::options::StoredSelection;
use memdex::{Index, IndexConfig, SearchOptions};

struct Collection {
    name: String,
    /// The index's fields (`None`: the default schema, title + text).
    fields: Option<serde_json::Value>,
    docs: Vec<serde_json::Value>,
    /// (query id, text, filter)
    queries: Vec<(String, String, Option<serde_json::Value>)>,
    /// query id -> doc id -> grade
    qrels: HashMap<String, HashMap<String, f64>>,
}

fn jsonl(path: &str) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn beir(data: &str, name: &str) -> Collection {
    let dir = format!("{data}/{name}");
    let docs = jsonl(&format!("{dir}/corpus.jsonl"))
        .into_iter()
        .map(|d| {
            serde_json::json!({
                "id": d["_id"],
                "title": d["title"].as_str().unwrap_or(""),
                "text": d["text"].as_str().unwrap_or(""),
            })
        })
        .collect();
    let queries = jsonl(&format!("{dir}/queries.jsonl"))
        .into_iter()
        .map(|q| {
            (
                q["_id"].as_str().unwrap_or("").to_string(),
                q["text"].as_str().unwrap_or("").to_string(),
                None,
            )
        })
        .collect();
    let mut qrels: HashMap<String, HashMap<String, f64>> = HashMap::new();
    let tsv = std::fs::read_to_string(format!("{dir}/qrels.tsv")).expect("qrels");
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 3 {
            continue;
        }
        let grade: f64 = cols[2].trim().parse().unwrap_or(0.0);
        if grade > 0.0 {
            qrels
                .entry(cols[0].to_string())
                .or_default()
                .insert(cols[1].to_string(), grade);
        }
    }
    Collection {
        name: name.to_string(),
        fields: None,
        docs,
        queries,
        qrels,
    }
}

fn agent_memory(path: &str) -> Collection {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("fixture")).expect("json");
    let docs = v["memories"].as_array().expect("memories").clone();
    let mut queries = Vec::new();
    let mut qrels = HashMap::new();
    for (i, q) in v["questions"]
        .as_array()
        .expect("questions")
        .iter()
        .enumerate()
    {
        let id = format!("q{}", i + 1);
        queries.push((id.clone(), q["q"].as_str().unwrap_or("").to_string(), None));
        let rel: HashMap<String, f64> = q["relevant"]
            .as_array()
            .expect("relevant")
            .iter()
            .map(|r| (r.as_str().unwrap_or("").to_string(), 1.0))
            .collect();
        qrels.insert(id, rel);
    }
    Collection {
        name: "agent-memory".into(),
        fields: None,
        docs,
        queries,
        qrels,
    }
}

/// The generated dialog set (`bench/agent-memory`: speaker + text, a
/// `conversation` keyword, as `fusion.rs` indexes it); with `scoped`, each
/// question searches its own conversation only (a filter).
fn dialogs(dir: &str, scoped: bool) -> Collection {
    let docs = jsonl(&format!("{dir}/memories.jsonl"))
        .into_iter()
        .map(|m| {
            serde_json::json!({
                "id": m["id"], "speaker": m["speaker"], "text": m["text"],
                "conversation": m["conversation"],
            })
        })
        .collect();
    let mut queries = Vec::new();
    let mut qrels = HashMap::new();
    for q in jsonl(&format!("{dir}/questions.jsonl")) {
        let id = q["id"].as_str().unwrap_or("").to_string();
        let rel = q["evidence"].as_array().expect("evidence").iter();
        let rel = rel.map(|e| (e.as_str().unwrap_or("").to_string(), 1.0));
        qrels.insert(id.clone(), rel.collect());
        let filter = scoped.then(|| serde_json::json!({ "conversation": q["conversation"] }));
        queries.push((id, q["question"].as_str().unwrap_or("").to_string(), filter));
    }
    Collection {
        name: if scoped {
            "dialogs (conversation)"
        } else {
            "dialogs"
        }
        .into(),
        fields: Some(serde_json::json!({
            "speaker": {"type": "text"}, "text": {"type": "text"},
            "conversation": {"type": "keyword"}
        })),
        docs,
        queries,
        qrels,
    }
}

/// (nDCG@10, success@1) averaged over judged queries.
fn evaluate(
    runs: &HashMap<String, Vec<String>>,
    qrels: &HashMap<String, HashMap<String, f64>>,
) -> (f64, f64) {
    let (mut ndcg, mut s1, mut n) = (0.0, 0.0, 0.0);
    for (q, rels) in qrels {
        n += 1.0;
        let ranked = runs.get(q).map(Vec::as_slice).unwrap_or(&[]);
        let mut ideal: Vec<f64> = rels.values().copied().collect();
        ideal.sort_by(|a, b| b.total_cmp(a));
        let idcg: f64 = ideal
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, g)| g / (i as f64 + 2.0).log2())
            .sum();
        let dcg: f64 = ranked
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, d)| rels.get(d).copied().unwrap_or(0.0) / (i as f64 + 2.0).log2())
            .sum();
        if idcg > 0.0 {
            ndcg += dcg / idcg;
        }
        if ranked.first().is_some_and(|d| rels.contains_key(d)) {
            s1 += 1.0;
        }
    }
    (ndcg / n, s1 / n)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut data = "../shared/data".to_string();
    let mut verbose = false;
    let mut runs_dir: Option<String> = None;
    let mut config = IndexConfig::default();
    let mut speed: Option<(String, String)> = None;
    let mut configs: Vec<(String, SearchOptions)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data" => data = args.next().ok_or("--data DIR")?,
            "--verbose" => verbose = true,
            "--config" => {
                let json = args.next().ok_or("--config JSON")?;
                config = IndexConfig::from_json(&memdex::json::parse(&json)?)?;
            }
            "--runs" => runs_dir = Some(args.next().ok_or("--runs DIR")?),
            "--speed" => {
                let docs = args.next().ok_or("--speed DOCS QUERIES")?;
                speed = Some((docs, args.next().ok_or("--speed DOCS QUERIES")?));
            }
            _ => {
                let (name, json) = a.split_once('=').ok_or("configs are name=JSON")?;
                let mut opts = SearchOptions::from_json(&memdex::json::parse(json)?)?;
                opts.limit = 10;
                opts.stored_fields = StoredSelection::None;
                configs.push((name.to_string(), opts));
            }
        }
    }
    if configs.is_empty() {
        configs.push(("default".into(), SearchOptions::default()));
    }
    if let Some((docs, queries)) = speed {
        return time_queries(&docs, &queries, &configs);
    }
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/agent-memory.json"
    );
    let dialog_set = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/agent-memory");
    let collections = [
        beir(&data, "cranfield"),
        beir(&data, "cisi"),
        agent_memory(fixture),
        dialogs(dialog_set, false),
        dialogs(dialog_set, true),
    ];
    println!("| options | collection | nDCG@10 | success@1 | ms (all queries) |");
    println!("|---|---|---:|---:|---:|");
    for c in &collections {
        let mut config = config.clone();
        if let Some(fields) = &c.fields {
            let json = serde_json::json!({ "fields": fields }).to_string();
            config.fields = IndexConfig::from_json(&memdex::json::parse(&json)?)?.fields;
        }
        let mut index = Index::new(config)?;
        for d in &c.docs {
            index.add(&memdex::json::parse(&d.to_string())?)?;
        }
        index.flush();
        for (name, opts) in &configs {
            let mut runs = HashMap::new();
            let t = Instant::now();
            for (id, q, filter) in &c.queries {
                let mut opts = opts.clone();
                if let Some(f) = filter {
                    opts.filter = Some(memdex::json::parse(&f.to_string())?);
                }
                let res = index.searcher().search(q, &opts)?;
                if let (true, Some(choice)) = (verbose, &res.strategy) {
                    let n = res.hits.len();
                    eprintln!("{}\t{:?}\t{:?}\t{n}\t{q}", c.name, choice.reason, res.mode);
                }
                if verbose && c.name == "agent-memory" {
                    let top: Vec<&str> = res.hits.iter().take(3).map(|h| h.id.as_str()).collect();
                    eprintln!("{name}\t{q}\t{top:?}\t{:?}", c.qrels[id].keys());
                }
                runs.insert(id.clone(), res.hits.into_iter().map(|h| h.id).collect());
            }
            let ms = t.elapsed().as_secs_f64() * 1e3;
            let (ndcg, s1) = evaluate(&runs, &c.qrels);
            if let Some(dir) = &runs_dir {
                std::fs::create_dir_all(dir)?;
                let json = serde_json::to_string(&runs)?;
                std::fs::write(format!("{dir}/{name}-{}.json", c.name), json)?;
            }
            println!("| {name} | {} | {ndcg:.4} | {s1:.3} | {ms:.0} |", c.name);
        }
    }
    Ok(())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn time_queries(
    docs: &str,
    queries: &str,
    configs: &[(String, SearchOptions)],
) -> Result<(), Box<dyn std::error::Error>> {
    let mut index = Index::new(IndexConfig::default())?;
    let mut n = 0;
    for d in jsonl(docs) {
        let doc = serde_json::json!({
            "id": d["_id"],
            "title": d["title"].as_str().unwrap_or(""),
            "text": d["text"].as_str().unwrap_or(""),
        });
        index.add(&memdex::json::parse(&doc.to_string())?)?;
        n += 1;
    }
    index.flush();
    let queries = std::fs::read_to_string(queries)?;
    let queries: Vec<&str> = queries.lines().filter(|l| !l.trim().is_empty()).collect();
    for q in queries.iter().take(100) {
        for (_, opts) in configs {
            index.searcher().search(q, opts)?;
        }
    }
    let mut best: Vec<(f64, f64)> = vec![(f64::INFINITY, 0.0); configs.len()];
    for _ in 0..5 {
        let mut lat: Vec<Vec<f64>> = vec![Vec::new(); configs.len()];
        for (i, (_, opts)) in configs.iter().enumerate() {
            for q in &queries {
                let t = Instant::now();
                index.searcher().search(q, opts)?;
                lat[i].push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        for (i, l) in lat.iter_mut().enumerate() {
            l.sort_by(f64::total_cmp);
            let p50 = percentile(l, 0.5);
            if p50 < best[i].0 {
                best[i] = (p50, percentile(l, 0.95));
            }
        }
    }
    println!("{n} documents, {} queries, top-10", queries.len());
    println!("| options | p50 ms | p95 ms | p50 ratio |");
    println!("|---|---:|---:|---:|");
    for (i, (name, _)) in configs.iter().enumerate() {
        println!(
            "| {name} | {:.4} | {:.4} | {:.2}x |",
            best[i].0,
            best[i].1,
            best[i].0 / best[0].0
        );
    }
    Ok(())
}
