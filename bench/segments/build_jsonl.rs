//! Bulk build through the JSON-lines path the wasm package uses
//! (`Engine.addJsonLines`, batches of 1000 lines), then a flush. For
//! instruction counts under callgrind and for checking that the segment
//! bytes stay identical across writer changes.
//!
//! ```text
//! cargo run --profile bench-native --example build_jsonl -- DOCS.ndjson [SNAPSHOT_OUT]
//! ```
//! DOCS.ndjson holds documents in the default schema (`id`, `title`,
//! `text`, ...), one per line. With SNAPSHOT_OUT the flushed index is
//! written there as `Index::export_snapshot` bytes.

use std::time::Instant;

use memdex::{Index, IndexConfig};

const BATCH: usize = 1000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: build_jsonl DOCS.ndjson [SNAPSHOT_OUT]")?;
    let snapshot = args.next();
    let text = std::fs::read_to_string(&path)?;
    let lines: Vec<&str> = text.lines().collect();
    let batches: Vec<String> = lines.chunks(BATCH).map(|c| c.join("\n")).collect();
    let start = Instant::now();
    let mut index = Index::new(IndexConfig::default())?;
    for batch in &batches {
        index.add_json_lines(batch)?;
    }
    index.flush();
    let secs = start.elapsed().as_secs_f64();
    eprintln!("built {} documents in {secs:.3} s", index.len());
    if let Some(out) = snapshot {
        std::fs::write(out, index.export_snapshot())?;
    }
    Ok(())
}
