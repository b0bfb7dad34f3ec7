//! Filesystem storage: one file per key under a root directory. `put` writes
//! a temporary file, syncs it and renames it over the key, so a crash leaves
//! the old or the new value.

use std::path::{Path, PathBuf};

use super::Storage;
use crate::error::{Error, Result};

#[derive(Clone, Debug)]
pub struct FsStorage {
    root: PathBuf,
}

impl FsStorage {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        FsStorage { root: root.into() }
    }

    fn path(&self, key: &str) -> Result<PathBuf> {
        // Keys are relative paths of plain segments: no escaping the root.
        let ok = !key.is_empty()
            && key
                .split('/')
                .all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains('\\'));
        if !ok {
            return Err(Error::Storage {
                key: key.to_string(),
                reason: "invalid key (empty segment, `.`, `..` or backslash)".into(),
            });
        }
        Ok(self.root.join(key))
    }
}

fn io_err(key: &str, e: std::io::Error) -> Error {
    Error::Storage {
        key: key.to_string(),
        reason: e.to_string(),
    }
}

impl Storage for FsStorage {
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        match std::fs::read(self.path(key)?) {
            Ok(v) => Ok(Some(v)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(key, e)),
        }
    }

    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        use std::io::Write;
        let path = self.path(key)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_err(key, e))?;
        }
        let tmp = path.with_extension("tmp~");
        let mut f = std::fs::File::create(&tmp).map_err(|e| io_err(key, e))?;
        f.write_all(value).map_err(|e| io_err(key, e))?;
        f.sync_all().map_err(|e| io_err(key, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| io_err(key, e))
    }

    async fn delete(&self, key: &str) -> Result<()> {
        match std::fs::remove_file(self.path(key)?) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(io_err(key, e)),
        }
    }

    async fn list(&self, prefix: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        walk(&self.root, &self.root, &mut out).map_err(|e| io_err(prefix, e))?;
        out.retain(|k| k.starts_with(prefix) && !k.ends_with(".tmp~"));
        out.sort();
        Ok(out)
    }
}

fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let path = entry?.path();
        if path.is_dir() {
            walk(root, &path, out)?;
        } else if let Ok(rel) = path.strip_prefix(root) {
            let key: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            out.push(key.join("/"));
        }
    }
    Ok(())
}
