//! Benchmark peer: tantivy (native Rust). Measures index build time, peak RSS,
//! on-disk index size and open time, per-query latency (OR and AND, top-k over
//! title+text with BM25), relevance runs, and the agent write/commit/search
//! pattern. Speaks the common peer protocol: one JSON spec as argv[1], one JSON
//! result object on stdout (see bench/README.md).
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Deserialize;
use serde_json::{json, Map, Value};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, Value as _, STORED, STRING,
};
use tantivy::tokenizer::{
    Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer, StopWordFilter, TextAnalyzer, TokenStream,
};
use tantivy::{doc, Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

const VERSION: &str = "0.27.0";

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
    workdir: String,
    #[serde(default)]
    warmup: Option<usize>,
    #[serde(default)]
    writes: Option<usize>,
    #[serde(default)]
    budget_ms: Option<f64>,
    #[serde(default)]
    query_budget_ms: Option<f64>,
    #[serde(default)]
    search_every: Option<usize>,
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

struct Doc {
    id: String,
    title: String,
    text: String,
}
struct Q {
    id: String,
    text: String,
}

fn read_jsonl(path: &str) -> Vec<Value> {
    let f = fs::File::open(path).expect("open jsonl");
    BufReader::new(f)
        .lines()
        .filter_map(|l| {
            let l = l.expect("read");
            if l.trim().is_empty() {
                None
            } else {
                Some(serde_json::from_str(&l).expect("json line"))
            }
        })
        .collect()
}
fn s(v: &Value, k: &str) -> String {
    v.get(k).and_then(|x| x.as_str()).unwrap_or("").to_string()
}
fn peak_rss_mib() -> f64 {
    let st = fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in st.lines() {
        if let Some(rest) = line.strip_prefix("VmHWM:") {
            let kb: f64 = rest.trim().trim_end_matches("kB").trim().parse().unwrap_or(0.0);
            return kb / 1024.0;
        }
    }
    0.0
}
fn dir_size(p: &Path) -> u64 {
    let mut total = 0;
    if let Ok(rd) = fs::read_dir(p) {
        for e in rd.flatten() {
            let md = e.metadata().unwrap();
            total += if md.is_dir() { dir_size(&e.path()) } else { md.len() };
        }
    }
    total
}

struct Peer {
    index: Index,
    id_f: Field,
    title_f: Field,
    text_f: Field,
    tokenizer: String,
}

impl Peer {
    /// Configs: `default` (tantivy's default tokenizer), `english` (built-in `en_stem`:
    /// lowercase + English Snowball stemmer), `english-stop` (`en_stem` plus tantivy's
    /// English StopWordFilter, registered here as `en_stem_stop`).
    fn tokenizer_name(config: &str) -> &'static str {
        match config {
            "english" => "en_stem",
            "english-stop" => "en_stem_stop",
            _ => "default",
        }
    }
    fn register(index: &Index) {
        let an = TextAnalyzer::builder(SimpleTokenizer::default())
            .filter(RemoveLongFilter::limit(40))
            .filter(LowerCaser)
            .filter(StopWordFilter::new(Language::English).unwrap())
            .filter(Stemmer::new(Language::English))
            .build();
        index.tokenizers().register("en_stem_stop", an);
    }
    fn create(dir: &Path, config: &str) -> Peer {
        let tokenizer = Self::tokenizer_name(config);
        let mut sb = Schema::builder();
        let id_f = sb.add_text_field("id", STRING | STORED);
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let title_f = sb.add_text_field("title", opts.clone());
        let text_f = sb.add_text_field("text", opts);
        let _ = fs::remove_dir_all(dir);
        fs::create_dir_all(dir).unwrap();
        let index = Index::create_in_dir(dir, sb.build()).unwrap();
        Self::register(&index);
        Peer { index, id_f, title_f, text_f, tokenizer: tokenizer.to_string() }
    }
    fn open(dir: &Path, config: &str) -> Peer {
        let tokenizer = Self::tokenizer_name(config);
        let index = Index::open_in_dir(dir).unwrap();
        Self::register(&index);
        let schema = index.schema();
        Peer {
            id_f: schema.get_field("id").unwrap(),
            title_f: schema.get_field("title").unwrap(),
            text_f: schema.get_field("text").unwrap(),
            index,
            tokenizer: tokenizer.to_string(),
        }
    }
    fn writer(&self) -> IndexWriter {
        // One indexing thread: the JS peers are single-threaded too.
        self.index.writer_with_num_threads(1, 200_000_000).unwrap()
    }
    fn reader(&self) -> IndexReader {
        self.index.reader_builder().reload_policy(ReloadPolicy::Manual).try_into().unwrap()
    }
    fn add(&self, w: &IndexWriter, d: &Doc) {
        w.add_document(doc!(self.id_f => d.id.as_str(), self.title_f => d.title.as_str(), self.text_f => d.text.as_str()))
            .unwrap();
    }
    /// Tokenize with the field analyzer, then per term a disjunction over
    /// title and text; terms joined by SHOULD (or) or MUST (and). This is what
    /// tantivy's QueryParser builds, without its syntax (so no query errors).
    fn query(&self, text: &str, mode: &str) -> Option<Box<dyn Query>> {
        let mut an = self.index.tokenizers().get(&self.tokenizer).unwrap();
        let mut ts = an.token_stream(text);
        let mut terms = Vec::new();
        while ts.advance() {
            terms.push(ts.token().text.clone());
        }
        if terms.is_empty() {
            return None;
        }
        let occur = if mode == "and" { Occur::Must } else { Occur::Should };
        let clauses: Vec<(Occur, Box<dyn Query>)> = terms
            .iter()
            .map(|t| {
                let per_field: Vec<(Occur, Box<dyn Query>)> = [self.title_f, self.text_f]
                    .iter()
                    .map(|f| {
                        let q: Box<dyn Query> = Box::new(TermQuery::new(
                            Term::from_field_text(*f, t),
                            IndexRecordOption::WithFreqs,
                        ));
                        (Occur::Should, q)
                    })
                    .collect();
                let q: Box<dyn Query> = Box::new(BooleanQuery::new(per_field));
                (occur, q)
            })
            .collect();
        Some(Box::new(BooleanQuery::new(clauses)))
    }
    fn search(&self, reader: &IndexReader, text: &str, mode: &str, k: usize) -> Vec<String> {
        let Some(q) = self.query(text, mode) else { return vec![] };
        let searcher = reader.searcher();
        let top = searcher.search(&q, &TopDocs::with_limit(k).order_by_score()).unwrap();
        top.into_iter()
            .map(|(_, addr)| {
                let d: TantivyDocument = searcher.doc(addr).unwrap();
                d.get_first(self.id_f).and_then(|v| v.as_str()).unwrap_or("").to_string()
            })
            .collect()
    }
}

fn main() {
    let spec: Spec = serde_json::from_str(&std::env::args().nth(1).expect("spec json")).expect("spec");
    let docs: Vec<Doc> = read_jsonl(&spec.docs)
        .iter()
        .map(|v| Doc { id: s(v, "id"), title: s(v, "title"), text: s(v, "text") })
        .collect();
    let queries: Vec<Q> = spec
        .queries
        .as_deref()
        .map(read_jsonl)
        .unwrap_or_default()
        .iter()
        .map(|v| Q { id: s(v, "id"), text: s(v, "text") })
        .collect();
    let workdir = PathBuf::from(&spec.workdir);
    let dir = workdir.join("tantivy-index");
    let mut out = Map::new();
    out.insert("peer".into(), json!("tantivy"));
    out.insert("version".into(), json!(VERSION));
    out.insert("config".into(), json!(spec.config));
    out.insert("task".into(), json!(spec.task));
    out.insert("docs".into(), json!(docs.len()));
    out.insert(
        "notes".into(),
        json!(["native Rust, 1 indexing thread, 200 MB writer budget; index written to disk (mmap directory)"]),
    );

    if spec.task == "agent" {
        let writes = spec.writes.unwrap_or(10_000).min(docs.len());
        let every = spec.search_every.unwrap_or(10);
        let peer = Peer::create(&dir, &spec.config);
        let mut w = peer.writer();
        let reader = peer.reader();
        let mut write_lat = Vec::new();
        let mut search_lat = Vec::new();
        let t0 = Instant::now();
        let mut truncated = false;
        for (i, d) in docs.iter().take(writes).enumerate() {
            if spec.budget_ms.is_some_and(|b| t0.elapsed().as_secs_f64() * 1e3 > b) {
                truncated = true;
                break;
            }
            let t = Instant::now();
            peer.add(&w, d);
            w.commit().unwrap();
            write_lat.push(t.elapsed().as_secs_f64() * 1e3);
            if (i + 1) % every == 0 && !queries.is_empty() {
                let q = &queries[(i / every) % queries.len()];
                let t = Instant::now();
                reader.reload().unwrap();
                peer.search(&reader, &q.text, "or", spec.k);
                search_lat.push(t.elapsed().as_secs_f64() * 1e3);
            }
        }
        w.wait_merging_threads().unwrap();
        out.insert("total_ms".into(), json!(t0.elapsed().as_secs_f64() * 1e3));
        out.insert("writes".into(), json!(write_lat.len()));
        out.insert("planned_writes".into(), json!(writes));
        out.insert("truncated".into(), json!(truncated));
        out.insert("commit_latencies_ms".into(), json!(write_lat));
        out.insert("search_latencies_ms".into(), json!(search_lat));
        out.insert("bytes_on_disk".into(), json!(dir_size(&dir)));
        out.insert("commit_kind".into(), json!("IndexWriter::commit (incremental segments + merges)"));
        out.insert("peak_rss_mib".into(), json!(peak_rss_mib()));
        println!("{}", Value::Object(out));
        return;
    }

    let t0 = Instant::now();
    {
        let peer = Peer::create(&dir, &spec.config);
        let mut w = peer.writer();
        for d in &docs {
            peer.add(&w, d);
        }
        w.commit().unwrap();
        w.wait_merging_threads().unwrap();
    }
    let build_ms = t0.elapsed().as_secs_f64() * 1e3;
    out.insert("build_ms".into(), json!(build_ms));
    out.insert("rss_after_build_mib".into(), json!(peak_rss_mib()));
    // Building writes the index to disk; "serialize" is that commit.
    out.insert("serialized_bytes".into(), json!(dir_size(&dir)));
    out.insert("serialize_ms".into(), json!(null));
    let t = Instant::now();
    let peer = Peer::open(&dir, &spec.config);
    let reader = peer.reader();
    out.insert("load_ms".into(), json!(t.elapsed().as_secs_f64() * 1e3));

    let mut qres = Map::new();
    let mut runs = Map::new();
    for mode in &spec.modes {
        let t = Instant::now();
        let budget = spec.query_budget_ms.unwrap_or(f64::INFINITY);
        let warm = spec.warmup.unwrap_or(0).min(queries.len());
        for q in queries.iter().take(warm) {
            if t.elapsed().as_secs_f64() * 1e3 > budget / 4.0 {
                break;
            }
            peer.search(&reader, &q.text, mode, spec.k);
        }
        let mut lat = Vec::with_capacity(queries.len());
        let mut hits = 0usize;
        let mut run = Map::new();
        let mut truncated = false;
        for q in &queries {
            if t.elapsed().as_secs_f64() * 1e3 > budget {
                truncated = true;
                break;
            }
            let tq = Instant::now();
            let ids = peer.search(&reader, &q.text, mode, spec.k);
            lat.push(tq.elapsed().as_secs_f64() * 1e3);
            hits += ids.len();
            if spec.task == "relevance" {
                run.insert(q.id.clone(), json!(ids));
            }
        }
        let total = t.elapsed().as_secs_f64() * 1e3;
        qres.insert(mode.clone(), json!({"latencies_ms": lat, "total_ms": total, "hits": hits, "truncated": truncated, "planned": queries.len()}));
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
