//! Measures link traversal at 100k documents (3 links each, before and after
//! `compact`): `related` with `direction: 'out'` (reads the links column of
//! the start only) against `direction: 'in'` (looks the id up in each
//! segment's incoming-links index); the one-time cost of building that index
//! (first `in` call after a segment set change); and `search` with
//! `expand: { hops: 2 }` and with `recency` against the same search without.
//!
//! ```text
//! cargo run --release --example agent_links
//! ```
use std::time::Instant;

use memdex::query::options::{Direction, ExpandOptions};
use memdex::{Index, IndexConfig, SearchOptions};

const N: usize = 100_000;
const WORDS: &[&str] = &[
    "deploy", "billing", "database", "agent", "memory", "rule", "postgres", "index", "wasm",
    "edge", "friday", "cache", "queue", "schema", "backup", "replica",
];

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn time<F: FnMut(usize)>(runs: usize, mut f: F) -> f64 {
    p50((0..runs)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed().as_secs_f64() * 1e3
        })
        .collect())
}

fn opts(json: &str) -> SearchOptions {
    SearchOptions::from_json(&memdex::json::parse(json).unwrap()).unwrap()
}

fn main() {
    let mut index = Index::new(IndexConfig::default()).unwrap();
    let mut x: u64 = 42;
    let mut rnd = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for i in 0..N {
        let text: Vec<&str> = (0..12)
            .map(|_| WORDS[(rnd() % WORDS.len() as u64) as usize])
            .collect();
        let links: Vec<String> = (0..3)
            .map(|_| format!(r#"{{"type":"DEPENDS_ON","to":"m{}"}}"#, rnd() % N as u64))
            .collect();
        let doc = format!(
            r#"{{"id":"m{i}","title":"memory {i}","text":"{}","timestamp":{},"links":[{}]}}"#,
            text.join(" "),
            1_700_000_000_000u64 + i as u64 * 60_000,
            links.join(",")
        );
        index.add_json(&doc).unwrap().unwrap();
        if (i + 1) % (N / 8) == 0 {
            index.flush();
        }
    }
    index.flush();
    for label in ["before compact", "after compact"] {
        if label == "after compact" {
            index.compact();
        }
        let segs = index.stats();
        let out = ExpandOptions {
            hops: 1,
            ..Default::default()
        };
        let inn = ExpandOptions {
            hops: 1,
            direction: Direction::In,
            ..Default::default()
        };
        let t_out = time(200, |i| {
            index.searcher().related(&format!("m{}", i * 37 % N), &out);
        });
        let t = Instant::now();
        index.searcher().related("m0", &inn);
        let build = t.elapsed().as_secs_f64() * 1e3;
        let t_in = time(200, |i| {
            index.searcher().related(&format!("m{}", i * 37 % N), &inn);
        });
        let plain = opts(r#"{"limit":10}"#);
        let expand = opts(r#"{"limit":10,"expand":{"hops":2}}"#);
        let recency =
            opts(r#"{"limit":10,"recency":{"halfLife":"30d","weight":0.5,"now":1706000000000}}"#);
        let q = [
            "deploy billing",
            "postgres backup",
            "agent memory rule",
            "wasm edge cache",
        ];
        let t_plain = time(200, |i| {
            index.searcher().search(q[i % 4], &plain).unwrap();
        });
        let t_expand = time(200, |i| {
            index.searcher().search(q[i % 4], &expand).unwrap();
        });
        let t_recency = time(200, |i| {
            index.searcher().search(q[i % 4], &recency).unwrap();
        });
        println!(
            "{label} ({} docs, {} segments): related out p50 {t_out:.3} ms, first related in (builds the incoming index) {build:.1} ms, related in p50 {t_in:.3} ms; \
             search p50 {t_plain:.3} ms, +expand hops 2 {t_expand:.3} ms, +recency {t_recency:.3} ms",
            N, segs.segments
        );
    }
}
