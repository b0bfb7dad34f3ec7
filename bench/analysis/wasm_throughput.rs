// Measures analyzer throughput in wasm under Node (MB/s of input text) on
// the same corpora as the native benchmark (bench/analysis/throughput.rs):
// English prose from Cranfield repeated to ~20 MB, and ~20 MB of generated
// code-heavy text. Built with the release profile (opt-level "s", LTO), i.e.
// the wasm that ships. Not run by plain `cargo test` / `wasm-pack test`:
//
// wasm-pack test --node --release -- --test analysis_wasm_throughput --nocapture
#![cfg(target_arch = "wasm32")]

use memdex::analysis::{Analyzer, AnalyzerOptions, Token};
use wasm_bindgen_test::wasm_bindgen_test;

#[path = "corpus.rs"]
mod corpus;

/// CPU seconds of the Node process (`process.cpuUsage()`), so numbers stay
/// meaningful on a machine shared with other jobs; `None` outside Node.
fn cpu_seconds() -> Option<f64> {
    use wasm_bindgen::JsCast;
    let get = |o: &wasm_bindgen::JsValue, k: &str| js_sys::Reflect::get(o, &k.into()).ok();
    let process = get(&js_sys::global(), "process")?;
    let f: js_sys::Function = get(&process, "cpuUsage")?.dyn_into().ok()?;
    let usage = f.call0(&process).ok()?;
    Some((get(&usage, "user")?.as_f64()? + get(&usage, "system")?.as_f64()?) / 1e6)
}

fn measure(name: &str, analyzer: &Analyzer, docs: &[String]) {
    let bytes: usize = docs.iter().map(String::len).sum();
    let mut out: Vec<Token> = Vec::new();
    let (mut best, mut best_cpu) = (f64::MAX, f64::MAX);
    let mut tokens = 0;
    for _ in 0..3 {
        let (t0, c0) = (js_sys::Date::now(), cpu_seconds());
        tokens = 0;
        for d in docs {
            out.clear();
            analyzer.analyze_into(d, &mut out);
            tokens += out.len();
        }
        best = best.min((js_sys::Date::now() - t0) / 1000.0);
        if let (Some(c0), Some(c1)) = (c0, cpu_seconds()) {
            best_cpu = best_cpu.min(c1 - c0);
        }
    }
    let mb = bytes as f64 / 1e6;
    let line = format!(
        "wasm {name:<8} {mb:5.1} MB {tokens:>8} tokens {:6.1} Mtokens/s {:7.1} MB/s wall {:7.1} MB/s per CPU-second",
        tokens as f64 / 1e6 / best,
        mb / best,
        mb / best_cpu
    );
    web_sys::console::log_1(&line.into());
}

#[wasm_bindgen_test]
fn analysis_throughput() {
    let jsonl = include_str!("../../../shared/data/cranfield/corpus.jsonl");
    let analyzer = Analyzer::new(&AnalyzerOptions::default()).unwrap();
    measure("english", &analyzer, &corpus::english(jsonl, 20_000_000));
    measure("code", &analyzer, &corpus::code(20_000_000));
}
