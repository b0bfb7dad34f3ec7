//! Where an index's bytes go: builds an index of a corpus's `_id`, `title`
//! and `text` (the fields of the 1M comparison with tantivy) through the
//! package's bulk path (`add_json_lines`, batches of 1000), compacts it into
//! one segment, and
//! prints the serialized bytes of each segment part (docs/FORMAT.md
//! "Segment"), summed over segments, against the text the documents hold.
//!
//! ```text
//! cargo run --profile bench-native --example index_parts -- DOCS.ndjson [RESULT.json]
//! ```
//! "text held" is the UTF-8 bytes of the titles and texts; "ids held" the
//! UTF-8 bytes of the ids (the doc store holds both); RESULT.json gets the
//! same figures.

use memdex::json::{self, Value};
use memdex::{Index, IndexConfig};

const BATCH: usize = 1000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .ok_or("usage: index_parts DOCS.ndjson [RESULT.json]")?;
    let out = args.next();
    let text = std::fs::read_to_string(&path)?;
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut text_bytes = 0u64;
    let mut id_bytes = 0u64;
    let mut docs = Vec::with_capacity(lines.len());
    for line in &lines {
        let Value::Object(map) = json::parse(line)? else {
            return Err(format!("not a JSON object: {line}").into());
        };
        let mut doc = String::from("{");
        for (i, (from, to)) in [("_id", "id"), ("title", "title"), ("text", "text")]
            .iter()
            .enumerate()
        {
            let value = match map.get(from) {
                Some(Value::String(s)) => s.as_str(),
                _ => "",
            };
            if *to == "id" {
                id_bytes += value.len() as u64;
            } else {
                text_bytes += value.len() as u64;
            }
            if i > 0 {
                doc.push(',');
            }
            json::write_string(to, &mut doc);
            doc.push(':');
            json::write_string(value, &mut doc);
        }
        doc.push('}');
        docs.push(doc);
    }
    let mut index = Index::new(IndexConfig::default())?;
    for batch in docs.chunks(BATCH) {
        index.add_json_lines(&batch.join("\n"))?;
    }
    // One segment, as the comparison with tantivy's merged directory
    // assumes (the byte-budget flush leaves several at 1M).
    index.compact();
    let parts = index.part_sizes();
    let total: u64 = parts.iter().map(|p| p.1).sum();
    println!(
        "{} documents, {} segments",
        index.len(),
        index.stats().segments
    );
    let layout = index.blob_layout();
    let head_bytes: usize = layout.iter().map(|l| l.0).sum();
    let blobs: usize = layout.iter().map(|l| l.1).sum();
    println!("segment heads: {head_bytes} bytes; chunk blobs: {blobs}");
    println!("{:<26} {:>14} {:>7}", "part", "bytes", "share");
    for (part, n) in &parts {
        println!(
            "{part:<26} {n:>14} {:>6.1}%",
            *n as f64 * 100.0 / total as f64
        );
    }
    println!("{:<26} {total:>14}", "total");
    println!("{:<26} {text_bytes:>14}", "text held (input)");
    println!("{:<26} {id_bytes:>14}", "ids held (input)");
    if let Some(out) = out {
        // Part names are fixed ASCII labels: no escaping needed.
        let parts: Vec<String> = parts.iter().map(|(p, n)| format!("\"{p}\":{n}")).collect();
        let json = format!(
            "{{\"documents\":{},\"segments\":{},\"head_bytes\":{head_bytes},\"blobs\":{blobs},\"text_bytes\":{text_bytes},\"id_bytes\":{id_bytes},\"total_bytes\":{total},\"parts\":{{{}}}}}\n",
            index.len(),
            index.stats().segments,
            parts.join(",")
        );
        std::fs::write(out, json)?;
    }
    Ok(())
}
