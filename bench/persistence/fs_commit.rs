// Measures native persistence on the filesystem (FsStorage, fsync'd atomic
// puts): for an index of the first N documents (default 100k) of
// ../shared/data/packages/corpus.jsonl.gz (fields title, text, kind,
// namespace, timestamp; `_id` -> `id`):
// - time and bytes of the first (full) commit, stored bytes per document;
// - time and bytes of committing ONE more document into it, vs. the total
//   stored index bytes (target: < 1%), for 5 successive one-doc commits;
// - time to reopen the index from the directory (median of 5), split into
//   reading the files and decoding them (reopen from memory), and the part
//   of decoding spent checking each blob against the XXH3-128 content hash
//   in its key (hashing every stored blob once).
//
// cargo run --profile bench-native --example persistence_fs [-- N [CORPUS.jsonl.gz]]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use memdex::json::Value;
use memdex::storage::{FsStorage, MemoryStorage, Storage};
use memdex::{Index, IndexConfig, SearchOptions};

const CORPUS: &str = "/work/shared/data/packages/corpus.jsonl.gz";

fn load_docs(path: &str, n: usize) -> Vec<Value> {
    let mut child = Command::new("gzip")
        .args(["-dc", path])
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip runs");
    let reader = BufReader::new(child.stdout.take().unwrap());
    let mut docs = Vec::with_capacity(n);
    for line in reader.lines() {
        if docs.len() == n {
            break;
        }
        let v = memdex::json::parse(&line.unwrap()).expect("JSON line");
        let Value::Object(mut obj) = v else {
            panic!("not an object")
        };
        let id = obj.remove("_id").expect("_id");
        obj.insert("id".into(), id);
        docs.push(Value::Object(obj));
    }
    let _ = child.kill();
    let _ = child.wait();
    docs
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    let mut total = 0;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        total += if m.is_dir() {
            dir_bytes(&e.path())
        } else {
            m.len()
        };
    }
    total
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: usize = args.get(1).map_or(100_000, |s| s.parse().expect("N"));
    let corpus = args.get(2).map_or(CORPUS, String::as_str);
    let docs = load_docs(corpus, n);
    let dir = std::env::temp_dir().join(format!("memdex-bench-persist-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let storage = FsStorage::new(&dir);

    let t = Instant::now();
    let mut index = Index::new(IndexConfig::default()).unwrap();
    for d in &docs {
        index.add(d).unwrap();
    }
    index.flush();
    println!("docs {}  build {:.0} ms", docs.len(), ms(t));

    let t = Instant::now();
    let full = pollster::block_on(index.commit(&storage, "idx")).unwrap();
    let full_ms = ms(t);
    let stored = dir_bytes(&dir);
    println!(
        "full commit: {:.0} ms, {} bytes in {} blobs; stored {} bytes = {:.1} bytes/doc",
        full_ms,
        full.bytes_written,
        full.blobs_written,
        stored,
        stored as f64 / docs.len() as f64
    );

    for i in 0..5 {
        let doc = serde_json::json!({
            "id": format!("bench-new-{i}"),
            "title": format!("new memory {i}"),
            "text": "the agent decided to deploy the quokka service on monday after the tests passed",
            "kind": "note",
            "namespace": "ns1",
            "timestamp": "2026-11-22T00:00:00Z",
        });
        index
            .add(&memdex::json::parse(&doc.to_string()).unwrap())
            .unwrap();
        let t = Instant::now();
        let info = pollster::block_on(index.commit(&storage, "idx")).unwrap();
        let total = dir_bytes(&dir);
        println!(
            "one-doc commit {}: {:.1} ms, {} bytes in {} blobs ({} collected) = {:.3}% of the {} stored bytes; segments {}",
            i + 1,
            ms(t),
            info.bytes_written,
            info.blobs_written,
            info.blobs_collected,
            100.0 * info.bytes_written as f64 / total as f64,
            total,
            index.stats().segments
        );
    }

    let opts = SearchOptions::default();
    let want = index
        .searcher()
        .search("python http client", &opts)
        .unwrap()
        .hits
        .len();
    let mut open_ms = Vec::new();
    let mut read_ms = Vec::new();
    let mut decode_ms = Vec::new();
    let mut hash_ms = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut reopened = pollster::block_on(Index::open(&storage, "idx", None)).unwrap();
        open_ms.push(ms(t));
        assert_eq!(reopened.len(), index.len());
        assert_eq!(
            reopened
                .searcher()
                .search("python http client", &opts)
                .unwrap()
                .hits
                .len(),
            want
        );
        // Breakdown: read every stored file, then decode from memory.
        let t = Instant::now();
        let mem = MemoryStorage::new();
        for key in pollster::block_on(storage.list("idx/")).unwrap() {
            let v = pollster::block_on(storage.get(&key)).unwrap().unwrap();
            mem.with_map(|m| m.insert(key, v));
        }
        read_ms.push(ms(t));
        let t = Instant::now();
        let from_mem = pollster::block_on(Index::open(&mem, "idx", None)).unwrap();
        decode_ms.push(ms(t));
        assert_eq!(from_mem.len(), index.len());
        let t = Instant::now();
        let hashed: usize = mem.with_map(|m| {
            m.iter()
                .filter(|(k, _)| k.contains("/blob/"))
                .map(|(_, v)| memdex::codec::blob::content_key(v).len())
                .sum()
        });
        hash_ms.push(ms(t));
        assert!(hashed > 0);
    }
    println!(
        "reopen from filesystem: median {:.1} ms (read files {:.1} ms + decode {:.1} ms, of which content-hash checks {:.1} ms); runs {:?}",
        median(open_ms.clone()),
        median(read_ms),
        median(decode_ms),
        median(hash_ms),
        open_ms.iter().map(|v| format!("{v:.1}")).collect::<Vec<_>>()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
