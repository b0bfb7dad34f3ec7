//! Writes the frozen format fixture of the current format version N:
//! `scripts/gen-format-fixture tests/fixtures/format-vN`.
//! Run once per format version; the committed output must never be
//! regenerated for an existing version (tests/format_fixture.rs reopens it).
//! From version 3 on the fixture also holds what version 3 added: a vector
//! field (`embedding`, 4 dimensions, cosine), typed links between the
//! documents, and (implicitly) the surface words of every segment.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use memdex::storage::FsStorage;
    use memdex::{Index, IndexConfig};
    /// `serde_json::json!`, as memdex's own JSON value (through its text).
    macro_rules! json {
        ($($t:tt)+) => {
            memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
        };
    }

    let dir = std::env::args()
        .nth(1)
        .expect("usage: scripts/gen-format-fixture DIR");
    let storage = FsStorage::new(&dir);
    let config = IndexConfig::from_json(&json!({
        "schema": {"embedding": {"type": "vector", "dimensions": 4, "metric": "cosine"}}
    }))
    .expect("fixture config is valid");
    let mut index = Index::new(config).expect("fixture config is valid");
    for (i, (title, text)) in fixture_docs().iter().enumerate() {
        // A 4-dimension vector per document (one-hot on i % 4, plus a
        // small component on the next axis) and a link to the next one.
        let mut embedding = [0.0f32; 4];
        embedding[i % 4] = 1.0;
        embedding[(i + 1) % 4] = 0.25;
        let next = (i + 1) % fixture_docs().len();
        index
            .add(&json!({"id": format!("f{i}"), "namespace": if i % 2 == 0 { "even" } else { "odd" },
                         "title": title, "text": text, "kind": "note", "timestamp": 1_700_000_000_000u64 + i as u64,
                         "embedding": embedding,
                         "links": [{"type": "NEXT", "to": format!("f{next}")}]}))
            .expect("fixture docs are valid");
        if i % 3 == 2 {
            index.flush();
        }
    }
    index.delete("f4");
    pollster::block_on(index.commit(&storage, "fixture")).expect("commit");
}

#[cfg(not(target_arch = "wasm32"))]
fn fixture_docs() -> Vec<(&'static str, &'static str)> {
    vec![
        ("Deploy rule", "Never deploy on Fridays."),
        ("Editor", "The user prefers dark mode."),
        ("Build", "The wasm build runs wasm-opt -Oz."),
        ("Storage", "Segments persist to IndexedDB in the browser."),
        ("Deleted", "This memory was deleted before the commit."),
        ("Edge", "Workers KV keeps values under 25 MiB."),
        ("Ranking", "BM25 with k1 1.2 and b 0.75."),
        ("Merge", "The merge policy keeps segments logarithmic."),
    ]
}
