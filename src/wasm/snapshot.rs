//! Snapshots across the boundary: whole (`exportSnapshot`/`importSnapshot`)
//! or part by part (`exportParts`, `SnapshotImport`).

use wasm_bindgen::prelude::*;

use super::{to_js_error, Engine};
use crate::Index;

#[wasm_bindgen(js_class = Engine)]
impl Engine {
    /// The whole index as one byte array.
    #[wasm_bindgen(js_name = exportSnapshot)]
    pub fn export_snapshot(&mut self) -> Vec<u8> {
        self.index.export_snapshot()
    }

    /// An engine rebuilt from `exportSnapshot` bytes.
    #[wasm_bindgen(js_name = importSnapshot)]
    pub fn import_snapshot(bytes: &[u8]) -> Result<Engine, JsValue> {
        let index = Index::import_snapshot(bytes).map_err(to_js_error)?;
        Ok(Engine {
            index,
            last_options: None,
        })
    }

    /// `exportSnapshot`'s bytes part by part (one blob a part): memory
    /// holds one segment's serialized bytes at a time, not the snapshot.
    #[wasm_bindgen(js_name = exportParts)]
    pub fn export_parts(&mut self) -> SnapshotStream {
        SnapshotStream(self.index.snapshot_parts())
    }
}

/// A snapshot being exported (`Engine.exportParts`).
#[wasm_bindgen]
pub struct SnapshotStream(crate::index::SnapshotParts);

#[wasm_bindgen]
impl SnapshotStream {
    /// The next part (`undefined` after the last).
    #[wasm_bindgen(js_name = next)]
    pub fn next_part(&mut self) -> Option<Vec<u8>> {
        self.0.next_part()
    }
}

/// A snapshot being imported from parts cut anywhere.
#[wasm_bindgen]
#[derive(Default)]
pub struct SnapshotImport(crate::index::SnapshotReader);

#[wasm_bindgen]
impl SnapshotImport {
    #[wasm_bindgen(constructor)]
    pub fn new() -> SnapshotImport {
        SnapshotImport::default()
    }

    /// Takes the next part (`CORRUPT` as soon as it cannot be a snapshot).
    pub fn push(&mut self, part: &[u8]) -> Result<(), JsValue> {
        self.0.push(part).map_err(to_js_error)
    }

    /// The engine of the snapshot (`CORRUPT` if it is cut short or damaged).
    pub fn finish(self) -> Result<Engine, JsValue> {
        let index = self.0.finish().map_err(to_js_error)?;
        Ok(Engine {
            index,
            last_options: None,
        })
    }
}
