//! Cross-process lock files for [`FsStorage`](super::FsStorage), the same
//! protocol as the Node adapter (`pkg-template/storage/fs.js`), so native
//! tools and Node processes exclude each other on one directory.
//!
//! A lock is a file created with `O_EXCL` holding `pid host token ms start`
//! (`start`: the holder's start time, `/proc/<pid>/stat` field 22, `-` where
//! unknown). It is released by deleting it. A holder that died leaves it
//! behind: a lock is *stale* when its process is gone (same host,
//! `/proc/<pid>` absent), when its PID now belongs to a process started at
//! another time (a container restarted with the same PID and hostname),
//! when it names this very process but is not a lock this process holds (a
//! predecessor with our PID), when it is older than [`FOREIGN_STALE_MS`]
//! and its holder cannot be checked (another host, no `/proc`), or empty
//! and older than [`EMPTY_STALE_MS`] (the holder died between creating and
//! writing it; a failed write deletes the file). A live holder's lock is
//! never broken, however old; waits for it are bounded by the caller.
//!
//! Breaking a stale lock happens under a second lock (`<lock>.break~`), and
//! only if the lock still holds the exact content judged stale; so two
//! processes breaking at once cannot delete a lock a third just took.

use std::collections::HashSet;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Contents of the locks this process holds now: a lock naming our PID
/// that is not here is a dead predecessor's.
static HELD: Mutex<Option<HashSet<String>>> = Mutex::new(None);

fn held(f: impl FnOnce(&mut HashSet<String>) -> bool) -> bool {
    let mut guard = HELD.lock().unwrap_or_else(|e| e.into_inner());
    f(guard.get_or_insert_with(HashSet::new))
}

/// Start time of process `pid` in clock ticks since boot (`/proc/<pid>/stat`
/// field 22), or `-` where unknown.
fn start_time(pid: u32) -> String {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return "-".into();
    };
    // Field 2 (comm) may hold spaces and parentheses: count after the last ')'.
    let after = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
    match after.split_whitespace().nth(19) {
        Some(t) if t.bytes().all(|b| b.is_ascii_digit()) => t.to_string(),
        _ => "-".into(),
    }
}

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
        if pid == std::process::id() {
            return !held(|h| h.contains(content));
        }
        if !Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        // Written by a holder that recorded its start time: a PID now
        // started at another time is another process.
        let recorded = parts.nth(2).unwrap_or("-");
        return recorded != "-" && recorded != start_time(pid);
    }
    age > FOREIGN_STALE_MS
}

fn try_create(path: &Path, content: &str) -> std::io::Result<bool> {
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
    {
        Ok(mut f) => match f.write_all(content.as_bytes()) {
            Ok(()) => Ok(true),
            Err(e) => {
                // An empty lock file would stall every writer for 2 s.
                drop(f);
                let _ = std::fs::remove_file(path);
                Err(e)
            }
        },
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
            "{} {} {:012x} {} {}",
            std::process::id(),
            hostname(),
            crate::host::unique_bits(),
            crate::host::now_ms(),
            start_time(std::process::id())
        );
        let start = Instant::now();
        let mut pause = Duration::from_micros(200);
        loop {
            if try_create(path, &content)? {
                held(|h| h.insert(content.clone()));
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
        held(|h| h.remove(&self.content));
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn lock_path(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("memdex-lock-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("writer.lock~")
    }

    fn held_by(pid: u32, start: &str) -> String {
        format!("{pid} {} 0000000000ab 1 {start}", hostname())
    }

    #[test]
    fn a_lock_naming_this_process_but_not_held_by_it_is_stale() {
        let path = lock_path("own");
        std::fs::write(&path, held_by(std::process::id(), "-")).unwrap();
        let lock = FileLock::acquire(&path, Duration::from_millis(50)).unwrap();
        assert!(lock.is_some(), "a predecessor with our PID stalls nobody");
        // Our own live lock is not stale: a second acquire waits, then gives up.
        assert!(FileLock::acquire(&path, Duration::from_millis(50))
            .unwrap()
            .is_none());
    }

    #[test]
    fn a_reused_pid_is_stale_and_a_live_holder_is_not() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let pid = child.id();
        let path = lock_path("reused");
        // The PID is alive but was started at another time: another process.
        std::fs::write(&path, held_by(pid, "1")).unwrap();
        assert!(FileLock::acquire(&path, Duration::from_millis(50))
            .unwrap()
            .is_some());
        // The same PID with its real start time is a live holder: never broken.
        std::fs::write(&path, held_by(pid, &start_time(pid))).unwrap();
        assert!(FileLock::acquire(&path, Duration::from_millis(50))
            .unwrap()
            .is_none());
        child.kill().unwrap();
        child.wait().unwrap();
        // Gone: stale.
        assert!(FileLock::acquire(&path, Duration::from_millis(50))
            .unwrap()
            .is_some());
    }
}
