//! Filesystem storage: one file per key under a root directory. `put` writes
//! a temporary file, syncs it and renames it over the key, so a crash leaves
//! the old or the new value. `swap` does the same under a lock file (see
//! [`fs_lock`](super::fs_lock)), which makes it atomic against every other
//! swap of the key, from this process or another one.
//!
//! Names ending in `~` are the adapter's own (temporary files, locks) and
//! are neither valid keys nor listed. A temporary file older than
//! [`STALE_TMP_MS`] is left over by a crashed `put`; `list` deletes it
//! (a live `put` that slow would only fail, never leave a torn value).

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::fs_lock::FileLock;
use super::Storage;
use crate::error::{Error, Result};

pub(crate) const STALE_TMP_MS: u64 = 15 * 60 * 1000;
/// How long `swap` waits for another process's swap of the same key.
const SWAP_WAIT: Duration = Duration::from_secs(10);

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
            && !key.ends_with('~')
            && key
                .split('/')
                .all(|s| !s.is_empty() && s != "." && s != ".." && !s.contains('\\'));
        if !ok {
            return Err(Error::Storage {
                key: key.to_string(),
                reason: "invalid key (empty segment, `.`, `..`, backslash, or a trailing `~`)"
                    .into(),
                adapter_reason: Some("INVALID_KEY".into()),
            });
        }
        Ok(self.root.join(key))
    }

    /// Writes `value` to `path` durably: temporary file, fsync, rename.
    fn write_atomic(key: &str, path: &Path, value: &[u8]) -> Result<()> {
        use std::io::Write;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_err(key, e))?;
        }
        // Unique per writer: two processes putting one key never share it.
        let tmp = PathBuf::from(format!(
            "{}.{}-{:012x}.tmp~",
            path.to_string_lossy(),
            std::process::id(),
            crate::host::unique_bits()
        ));
        let written = (|| {
            let mut f = std::fs::File::create_new(&tmp)?;
            f.write_all(value)?;
            f.sync_all()?;
            std::fs::rename(&tmp, path)
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(io_err(key, e));
        }
        if let Some(dir) = path.parent() {
            // Makes the rename durable (best effort where directories cannot be opened).
            if let Ok(d) = std::fs::File::open(dir) {
                let _ = d.sync_all();
            }
        }
        Ok(())
    }
}

fn io_err(key: &str, e: std::io::Error) -> Error {
    Error::Storage {
        key: key.to_string(),
        reason: e.to_string(),
        adapter_reason: None,
    }
}

fn read(key: &str, path: &Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(v) => Ok(Some(v)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(key, e)),
    }
}

impl Storage for FsStorage {
    fn part_bytes(&self) -> usize {
        super::LOCAL_PART_BYTES
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>> {
        read(key, &self.path(key)?)
    }

    async fn put(&self, key: &str, value: &[u8]) -> Result<()> {
        Self::write_atomic(key, &self.path(key)?, value)
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
        out.retain(|k| k.starts_with(prefix) && !k.ends_with('~'));
        out.sort();
        Ok(out)
    }

    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> Result<bool> {
        let path = self.path(key)?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| io_err(key, e))?;
        }
        let lock_path = PathBuf::from(format!("{}.lock~", path.to_string_lossy()));
        let _lock = FileLock::acquire(&lock_path, SWAP_WAIT)
            .map_err(|e| io_err(key, e))?
            .ok_or_else(|| Error::Storage {
                key: key.to_string(),
                reason: format!(
                    "another process held the lock `{}` for over {} s; retry, or delete the file if no memdex process is running",
                    lock_path.display(),
                    SWAP_WAIT.as_secs()
                ), adapter_reason: None })?;
        if read(key, &path)?.as_deref() != expected {
            return Ok(false);
        }
        Self::write_atomic(key, &path, value)?;
        Ok(true)
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
        } else if path.to_string_lossy().ends_with(".tmp~") {
            remove_if_stale_tmp(&path);
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

fn remove_if_stale_tmp(path: &Path) {
    let old = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.elapsed().ok())
        .is_some_and(|age| age.as_millis() as u64 > STALE_TMP_MS);
    if old {
        let _ = std::fs::remove_file(path);
    }
}
