//! memdex CLI (placeholder until the index core lands).
fn main() {
    eprintln!("usage: memdex build corpus.jsonl --out DIR | memdex search DIR QUERY");
    std::process::exit(2);
}
