//! Writes the frozen schema-upgrade fixture: `scripts/gen-schema-fixture
//! tests/fixtures/schema-v3`. Two indexes of format version 3, committed
//! once and never regenerated (tests/schema_upgrade.rs and
//! tests/js/schema-upgrade.test.mjs open them with extended schemas):
//! - `memories`: its own schema (no default fields): text `title` (weight 2)
//!   and `text`, keyword `kind`, number `priority`, boolean `done`, date
//!   `timestamp`, links, a 4-dimension cosine vector `embedding`; three
//!   segments and a tombstone;
//! - `notes`: a single text field `body` (postings without field masks).

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    use memdex::storage::FsStorage;
    use memdex::{Index, IndexConfig};
    macro_rules! json {
        ($($t:tt)+) => {
            memdex::json::parse(&serde_json::json!($($t)+).to_string()).unwrap()
        };
    }

    let dir = std::env::args()
        .nth(1)
        .expect("usage: scripts/gen-schema-fixture DIR");
    let storage = FsStorage::new(&dir);
    let config = IndexConfig::from_json(&json!({
        "defaultSchema": false,
        "schema": {
            "title": {"type": "text", "weight": 2},
            "text": "text",
            "kind": "keyword",
            "priority": "number",
            "done": "boolean",
            "timestamp": "date",
            "links": "links",
            "embedding": {"type": "vector", "dimensions": 4, "metric": "cosine"}
        }
    }))
    .expect("fixture config is valid");
    let mut index = Index::new(config).expect("fixture config is valid");
    let docs = memories();
    for (i, (title, text)) in docs.iter().enumerate() {
        let mut embedding = [0.0f32; 4];
        embedding[i % 4] = 1.0;
        embedding[(i + 1) % 4] = 0.25;
        index
            .add(&json!({"id": format!("m{i}"), "namespace": if i % 2 == 0 { "even" } else { "odd" },
                         "title": title, "text": text, "kind": if i % 3 == 0 { "rule" } else { "note" },
                         "priority": i as u64, "done": i % 2 == 1,
                         "timestamp": 1_700_000_000_000u64 + i as u64,
                         "embedding": embedding,
                         "links": [{"type": "NEXT", "to": format!("m{}", (i + 1) % docs.len())}]}))
            .expect("fixture docs are valid");
        if i % 4 == 3 {
            index.flush();
        }
    }
    index.delete("m5");
    pollster::block_on(index.commit(&storage, "memories")).expect("commit");

    let config =
        IndexConfig::from_json(&json!({"defaultSchema": false, "schema": {"body": "text"}}))
            .expect("fixture config is valid");
    let mut notes = Index::new(config).expect("fixture config is valid");
    for (i, (_, text)) in docs.iter().enumerate() {
        notes
            .add(&json!({"id": format!("n{i}"), "body": text}))
            .expect("fixture docs are valid");
    }
    pollster::block_on(notes.commit(&storage, "notes")).expect("commit");
}

#[cfg(not(target_arch = "wasm32"))]
fn memories() -> Vec<(&'static str, &'static str)> {
    vec![
        (
            "Deploy rule",
            "Never deploy on Fridays; deploys wait for Monday.",
        ),
        ("Editor", "The user prefers dark mode in the editor."),
        (
            "Build",
            "The wasm build runs wasm-opt -Oz before every release.",
        ),
        ("Storage", "Segments persist to IndexedDB in the browser."),
        ("Edge", "Workers KV keeps values under 25 MiB."),
        ("Deleted", "This memory was deleted before the commit."),
        ("Ranking", "BM25 with k1 1.2 and b 0.75 ranks the memories."),
        ("Merge", "The merge policy keeps segments logarithmic."),
        ("Deploy window", "Deploy windows open on Tuesday mornings."),
        ("Backups", "Backups are restored to staging every week."),
    ]
}
