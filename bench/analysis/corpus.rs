//! Corpora for the analyzer throughput benchmarks (shared by the native and
//! the wasm benchmark so both measure the same bytes).

/// English prose: the `text` fields of a BEIR corpus.jsonl (Cranfield),
/// repeated until `target` bytes.
pub fn english(jsonl: &str, target: usize) -> Vec<String> {
    let docs: Vec<String> = jsonl
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v["text"].as_str().map(str::to_string))
        .filter(|t| !t.is_empty())
        .collect();
    assert!(!docs.is_empty(), "corpus has no text fields");
    repeat(docs, target)
}

/// Code-heavy agent notes: camelCase/snake_case identifiers, paths, URLs,
/// versions, emails and shell-ish lines mixed with short prose, from a
/// fixed-seed generator (deterministic across runs and targets).
pub fn code(target: usize) -> Vec<String> {
    const WORDS: &[&str] = &[
        "user", "session", "token", "cache", "request", "handler", "config", "index", "query",
        "server", "client", "auth", "memory", "search", "retry", "timeout", "parse", "build",
        "deploy", "error", "result", "stream", "buffer", "worker", "schema", "field", "value",
    ];
    const PROSE: &[&str] = &[
        "the", "fix", "for", "was", "in", "we", "should", "always", "never", "call", "before",
        "after", "because", "when", "it", "fails", "returns", "and", "then", "use", "not",
    ];
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let mut docs = Vec::new();
    let mut total = 0;
    while total < target {
        let mut doc = String::new();
        for _ in 0..(20 + next(40)) {
            let w = |next: &mut dyn FnMut(usize) -> usize| WORDS[next(WORDS.len())];
            let piece = match next(10) {
                0 => {
                    let (a, b, c) = (w(&mut next), w(&mut next), w(&mut next));
                    format!("{a}{}{}ById", cap(b), cap(c))
                }
                1 => format!("{}_{}_{}", w(&mut next), w(&mut next), w(&mut next)),
                2 => format!("src/{}/{}.ts", w(&mut next), w(&mut next)),
                3 => format!(
                    "https://api.example.com/v1/{}/{}",
                    w(&mut next),
                    w(&mut next)
                ),
                4 => format!("v{}.{}.{}", next(10), next(20), next(100)),
                5 => format!("{}@example.com", w(&mut next)),
                6 => format!("{}.{}()", cap(w(&mut next)), w(&mut next)),
                7 => format!("HTTP{}Error", cap(w(&mut next))),
                _ => PROSE[next(PROSE.len())].to_string(),
            };
            doc.push_str(&piece);
            doc.push(if next(8) == 0 { '\n' } else { ' ' });
        }
        total += doc.len();
        docs.push(doc);
    }
    docs
}

fn cap(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}

fn repeat(docs: Vec<String>, target: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut total = 0;
    while total < target {
        for d in &docs {
            total += d.len();
            out.push(d.clone());
            if total >= target {
                break;
            }
        }
    }
    out
}
