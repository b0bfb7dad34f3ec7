//! Cross-process lock files for [`FsStorage`](super::FsStorage), the same
//! protocol as the Node adapter (`pkg-template/storage/fs.js`), so native
//! tools and Node processes exclude each other on one directory.
//!
//! A lock is a file created with `O_EXCL` holding `pid host token ms`. It
//! is released by deleting it. A holder that died leaves it behind: a lock
//! is *stale* when its process is gone (same host, `/proc/<pid>` absent), or
//! when it is older than [`FOREIGN_STALE_MS`] and its holder cannot be
//! checked (another host, no `/proc`), or empty and older than
//! [`EMPTY_STALE_MS`] (the holder died between creating and writing it). A
//! live holder's lock is never broken, however old.
//!
//! Breaking a stale lock happens under a second lock (`<lock>.break~`), and
//! only if the lock still holds the exact content judged stale; so two
//! processes breaking at once cannot delete a lock a third just took.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub(crate) const FOREIGN_STALE_MS: u64 = 30_000;
pub(crate) const EMPTY_STALE_MS: u64 = 2_000;

pub(crate) struct FileLock {
    path: PathBuf,
    content: String,
}

fn hostname() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

fn age_ms(path: &Path) -> Option<u64> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    Some(modified.elapsed().map_or(0, |d| d.as_millis() as u64))
}

/// Whether the lock whose file holds `content` is stale (module docs).
fn is_stale(path: &Path, content: &str) -> bool {
    let age = age_ms(path).unwrap_or(0);
    let mut parts = content.split(' ');
    let (Some(pid), Some(host)) = (parts.next(), parts.next()) else {
        return age > EMPTY_STALE_MS;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return age > EMPTY_STALE_MS;
    };
    let proc_fs = Path::new("/proc/self").exists();
    if host == hostname() && proc_fs {
        return !Path::new(&format!("/proc/{pid}")).exists();
    }
    age > FOREIGN_STALE_MS
}

fn try_create(path: &Path, content: &str) -> std::io::Result<bool> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut f) => {
            f.write_all(content.as_bytes())?;
            Ok(true)
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e),
    }
}

/// Deletes the lock at `path` if it still holds `stale_content`.
fn break_stale(path: &Path, stale_content: &str) -> std::io::Result<()> {
    let guard = PathBuf::from(format!("{}.break~", path.to_string_lossy()));
    if !try_create(&guard, &format!("{} {}", std::process::id(), hostname()))? {
        // Breakers hold the guard for microseconds: an old one is left over.
        if age_ms(&guard).is_some_and(|a| a > EMPTY_STALE_MS) {
            let _ = std::fs::remove_file(&guard);
        }
        return Ok(());
    }
    if std::fs::read_to_string(path).ok().as_deref() == Some(stale_content) {
        let _ = std::fs::remove_file(path);
    }
    std::fs::remove_file(&guard)
}

impl FileLock {
    /// Takes the lock at `path`, waiting up to `wait` for a live holder;
    /// `Ok(None)` when it stays held that long.
    pub(crate) fn acquire(path: &Path, wait: Duration) -> std::io::Result<Option<FileLock>> {
        let content = format!(
            "{} {} {:012x} {}",
            std::process::id(),
            hostname(),
            crate::host::unique_bits(),
            crate::host::now_ms()
        );
        let start = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            if try_create(path, &content)? {
                return Ok(Some(FileLock {
                    path: path.to_path_buf(),
                    content,
                }));
            }
            match std::fs::read_to_string(path) {
                Ok(held) if is_stale(path, &held) => break_stale(path, &held)?,
                Ok(_) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(e),
            }
            if start.elapsed() >= wait {
                return Ok(None);
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(20));
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        // Only our own lock: never delete one that replaced a broken one.
        if std::fs::read_to_string(&self.path).ok().as_deref() == Some(self.content.as_str()) {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}
