//! The commit protocol under racing writers and readers (docs/FORMAT.md,
//! "Commit protocol"): interleavings forced with a storage that pauses at a
//! chosen operation, lost manifests and recovery, tampered blobs, crashed
//! commits, and the filesystem compare-and-swap under contention.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use memdex::codec::blob::{self, BlobKind};
use memdex::index::persist::{manifest_key, PENDING_TTL_MS};
use memdex::json::Value;
use memdex::storage::{FsStorage, MemoryStorage, Storage, PART_BYTES};
use memdex::{Index, IndexConfig, SearchOptions};

fn doc(id: &str, text: &str) -> Value {
    memdex::json::parse(&format!(
        r#"{{"id":"{id}","title":"t {id}","text":"{text}"}}"#
    ))
    .unwrap()
}

fn block_on<F: Future>(f: F) -> F::Output {
    pollster::block_on(f)
}

/// Memory storage that, once armed, stops at the n-th call of an operation
/// (`"get"`, `"list"`, `"swap"`, ...) until released.
#[derive(Clone, Default)]
struct Paused {
    inner: MemoryStorage,
    armed: Rc<RefCell<Option<(&'static str, usize)>>>,
    waiting: Rc<Cell<bool>>,
    released: Rc<Cell<bool>>,
}

struct Gate(Rc<Cell<bool>>);
impl Future for Gate {
    type Output = ();
    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if self.0.get() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Paused {
    fn over(inner: &MemoryStorage) -> Paused {
        Paused {
            inner: inner.clone(),
            ..Default::default()
        }
    }
    fn arm(&self, op: &'static str, nth: usize) {
        *self.armed.borrow_mut() = Some((op, nth));
        self.released.set(false);
    }
    async fn maybe_pause(&self, op: &'static str) {
        let hit = match &mut *self.armed.borrow_mut() {
            Some((o, n)) if *o == op => {
                if *n == 0 {
                    true
                } else {
                    *n -= 1;
                    false
                }
            }
            _ => false,
        };
        if hit {
            *self.armed.borrow_mut() = None;
            self.waiting.set(true);
            Gate(self.released.clone()).await;
            self.waiting.set(false);
        }
    }
}

impl Storage for Paused {
    async fn get(&self, key: &str) -> memdex::Result<Option<Vec<u8>>> {
        self.maybe_pause("get").await;
        self.inner.get(key).await
    }
    async fn put(&self, key: &str, value: &[u8]) -> memdex::Result<()> {
        self.maybe_pause("put").await;
        self.inner.put(key, value).await
    }
    async fn delete(&self, key: &str) -> memdex::Result<()> {
        self.maybe_pause("delete").await;
        self.inner.delete(key).await
    }
    async fn list(&self, prefix: &str) -> memdex::Result<Vec<String>> {
        self.maybe_pause("list").await;
        self.inner.list(prefix).await
    }
    async fn swap(&self, key: &str, expected: Option<&[u8]>, value: &[u8]) -> memdex::Result<bool> {
        self.maybe_pause("swap").await;
        self.inner.swap(key, expected, value).await
    }
}

/// Polls `f` until it waits at its storage's gate; returns it unfinished.
fn run_until_paused<'a, T>(
    storage: &Paused,
    f: impl Future<Output = T> + 'a,
) -> Pin<Box<dyn Future<Output = T> + 'a>> {
    let mut f: Pin<Box<dyn Future<Output = T> + 'a>> = Box::pin(f);
    let mut cx = Context::from_waker(Waker::noop());
    assert!(
        f.as_mut().poll(&mut cx).is_pending(),
        "finished without pausing"
    );
    assert!(storage.waiting.get());
    f
}

fn finish<T>(storage: &Paused, mut f: Pin<Box<dyn Future<Output = T> + '_>>) -> T {
    storage.released.set(true);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => v,
        Poll::Pending => panic!("still pending"),
    }
}

fn ids(index: &mut Index) -> Vec<String> {
    let opts = SearchOptions {
        limit: 1000,
        ..Default::default()
    };
    let mut ids: Vec<String> = index
        .searcher()
        .search("t", &opts)
        .unwrap()
        .hits
        .into_iter()
        .map(|h| h.id)
        .collect();
    ids.sort();
    ids
}

/// Two writers from one manifest both pass every check before either
/// stores its manifest: exactly one wins, the other is `CONFLICT`, and the
/// winner's blobs survive the loser (the old protocol let both resolve and
/// each collect the other's blobs).
#[test]
fn racing_writers_one_wins_and_nothing_is_lost() {
    let mem = MemoryStorage::new();
    let mut base = Index::new(IndexConfig::default()).unwrap();
    base.add(&doc("a", "alpha")).unwrap();
    block_on(base.commit(&mem, "idx")).unwrap();

    let mut w1 = block_on(Index::open(&mem, "idx", None)).unwrap();
    let mut w2 = block_on(Index::open(&mem, "idx", None)).unwrap();
    w1.add(&doc("b", "bravo")).unwrap();
    w2.add(&doc("c", "charlie")).unwrap();
    let s1 = Paused::over(&mem);
    s1.arm("swap", 0);
    let plan1 = w1.prepare_commit("idx", PART_BYTES);
    let pending = run_until_paused(&s1, plan1.execute(&s1));
    // w2 commits completely (blobs, manifest, GC) while w1 waits at its swap.
    block_on(w2.commit(&mem, "idx")).unwrap();
    let err = finish(&s1, pending).unwrap_err();
    assert_eq!(err.code(), "CONFLICT", "{err}");
    // The documented recovery: reload, re-apply, commit.
    block_on(w1.reload(&mem, "idx")).unwrap();
    w1.add(&doc("b", "bravo")).unwrap();
    block_on(w1.commit(&mem, "idx")).unwrap();
    let mut reopened = block_on(Index::open(&mem, "idx", None)).unwrap();
    assert_eq!(ids(&mut reopened), ["a", "b", "c"]);
    // The loser removed what it wrote: only referenced blobs remain.
    let stored = block_on(mem.list("idx/blob/")).unwrap().len();
    let referenced = manifest_refs(&mem).len();
    assert_eq!(stored, referenced);
    assert!(block_on(mem.list("idx/pending/")).unwrap().is_empty());
}

fn manifest_refs(mem: &MemoryStorage) -> Vec<String> {
    let bytes = block_on(mem.get(&manifest_key("idx"))).unwrap().unwrap();
    let payload = blob::open("m", BlobKind::Manifest, &bytes).unwrap();
    let v: serde_json::Value = serde_json::from_slice(payload).unwrap();
    v["segments"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| {
            let mut keys: Vec<String> = s["chunks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().to_string())
                .collect();
            keys.extend(s["deletes"].as_str().map(String::from));
            keys
        })
        .collect()
}

/// A writer that loaded the newest manifest and is writing its blobs while
/// the previous committer collects garbage: its blobs are protected by its
/// pending marker, so its commit wins with every blob in place.
#[test]
fn garbage_collection_spares_a_commit_in_progress() {
    let mem = MemoryStorage::new();
    let mut a = Index::new(IndexConfig::default()).unwrap();
    a.add(&doc("a", "alpha")).unwrap();
    block_on(a.commit(&mem, "idx")).unwrap();
    a.add(&doc("a2", "alpha two")).unwrap();
    // A stops right after its swap, before its GC lists the blobs.
    let sa = Paused::over(&mem);
    sa.arm("list", 0);
    let plan_a = a.prepare_commit("idx", PART_BYTES);
    let gc_pending = run_until_paused(&sa, plan_a.execute(&sa));
    // B loads A's new manifest and writes its blobs, stopping before its swap.
    let mut b = block_on(Index::open(&mem, "idx", None)).unwrap();
    b.add(&doc("b", "bravo")).unwrap();
    let sb = Paused::over(&mem);
    sb.arm("swap", 0);
    let plan_b = b.prepare_commit("idx", PART_BYTES);
    let b_pending = run_until_paused(&sb, plan_b.execute(&sb));
    // A's GC runs now: it must not delete B's blobs.
    finish(&sa, gc_pending).unwrap();
    a.finish_commit(&plan_a);
    finish(&sb, b_pending).unwrap();
    b.finish_commit(&plan_b);
    let mut reopened = block_on(Index::open(&mem, "idx", None)).expect("B's blobs are all there");
    assert_eq!(ids(&mut reopened), ["a", "a2", "b"]);
}

/// A reader that read an old manifest while a commit collects its blobs
/// re-reads the manifest instead of reporting `CORRUPT`.
#[test]
fn a_reader_racing_a_commit_retries_instead_of_corrupt() {
    let mem = MemoryStorage::new();
    let mut w = Index::new(IndexConfig::default()).unwrap();
    for i in 0..3 {
        w.add(&doc(&format!("d{i}"), "delta")).unwrap();
        block_on(w.commit(&mem, "idx")).unwrap();
    }
    let reader = Paused::over(&mem);
    reader.arm("get", 1); // after the manifest, before the first blob
    let load = run_until_paused(&reader, memdex::index::load::load(&reader, "idx"));
    // The writer merges everything: every blob the reader expects is collected.
    w.compact();
    w.add(&doc("d3", "delta")).unwrap();
    let info = block_on(w.commit(&mem, "idx")).unwrap();
    assert!(info.blobs_collected > 0);
    let loaded = finish(&reader, load).unwrap().expect("an index");
    let mut index = Index::from_loaded(loaded, None).unwrap();
    assert_eq!(ids(&mut index), ["d0", "d1", "d2", "d3"]);
}

/// Blobs without a manifest are a lost manifest (`CORRUPT`), never an
/// empty index whose first commit collects them; `recover` rebuilds it.
#[test]
fn a_lost_manifest_is_corrupt_and_recoverable() {
    let mem = MemoryStorage::new();
    let mut w = Index::new(IndexConfig::default()).unwrap();
    for i in 0..5 {
        w.add(&doc(&format!("m{i}"), "memory")).unwrap();
        block_on(w.commit(&mem, "idx")).unwrap();
    }
    w.delete("m1");
    block_on(w.commit(&mem, "idx")).unwrap();
    let blobs = block_on(mem.list("idx/blob/")).unwrap();
    block_on(mem.delete(&manifest_key("idx"))).unwrap();
    let err = block_on(Index::open(&mem, "idx", None)).err().unwrap();
    assert_eq!(err.code(), "CORRUPT");
    assert!(err.to_string().contains("recover"), "{err}");
    // Nothing was deleted by the failed open.
    assert_eq!(block_on(mem.list("idx/blob/")).unwrap(), blobs);
    let (mut index, report) = block_on(memdex::index::recover::recover(
        &mem,
        "idx",
        IndexConfig::default(),
    ))
    .unwrap();
    assert_eq!(report.documents, 4, "{report:?}");
    assert!(report.skipped.is_empty(), "{report:?}");
    assert_eq!(ids(&mut index), ["m0", "m2", "m3", "m4"]);
    index.add(&doc("m5", "memory")).unwrap();
    block_on(index.commit(&mem, "idx")).unwrap();
    let mut reopened = block_on(Index::open(&mem, "idx", None)).unwrap();
    assert_eq!(ids(&mut reopened), ["m0", "m2", "m3", "m4", "m5"]);
    let again = block_on(memdex::index::recover::recover(
        &mem,
        "idx",
        IndexConfig::default(),
    ));
    assert_eq!(again.err().unwrap().code(), "USAGE");
}

/// Recovery keeps, for each segment, the newest commit whose chunks are all
/// there and intact, with the newest readable tombstones of that commit or
/// a later one; it reports (sorted) and leaves out damaged blobs, blobs of
/// commits still marked pending and unreadable newer copies.
#[test]
fn recovery_keeps_the_newest_intact_blobs_and_reports_the_rest() {
    let mem = MemoryStorage::new();
    let mut w = Index::new(IndexConfig::default()).unwrap();
    w.add(&doc("a", "memory")).unwrap();
    w.add(&doc("b", "memory")).unwrap();
    block_on(w.commit(&mem, "idx")).unwrap();
    w.delete("a");
    block_on(w.commit(&mem, "idx")).unwrap();
    let blobs = block_on(mem.list("idx/blob/")).unwrap();
    // <commit>-<segment>-<part|d>-<hash>: one segment, its tombstones.
    let field = |k: &str, i: usize| {
        k.rsplit('/')
            .next()
            .unwrap()
            .split('-')
            .nth(i)
            .unwrap()
            .to_string()
    };
    let tombstones: Vec<&String> = blobs.iter().filter(|k| field(k, 2) == "d").collect();
    assert_eq!(tombstones.len(), 1, "{blobs:?}");
    let chunk = blobs.iter().find(|k| field(k, 2) == "0").unwrap().clone();
    // A damaged tombstone blob: `a` comes back (its delete is lost), and
    // the blob is reported.
    block_on(mem.put(tombstones[0], b"damaged")).unwrap();
    // A newer, unreadable copy of the segment: the older intact one wins.
    let newer = chunk.replacen(&field(&chunk, 0), "ffffffffffff000000000000", 1);
    block_on(mem.put(&newer, b"garbage")).unwrap();
    // A commit still marked pending: its blob never committed.
    let pending_commit = "000000000001000000000000";
    block_on(mem.put(&format!("idx/pending/{pending_commit}"), b"1")).unwrap();
    let pending_blob = format!("idx/blob/{pending_commit}-7-0-{}", "0".repeat(32));
    block_on(mem.put(&pending_blob, b"x")).unwrap();
    block_on(mem.delete(&manifest_key("idx"))).unwrap();

    let (mut index, report) = block_on(memdex::index::recover::recover(
        &mem,
        "idx",
        IndexConfig::default(),
    ))
    .unwrap();
    assert_eq!(ids(&mut index), ["a", "b"]);
    assert_eq!((report.segments, report.documents), (1, 2), "{report:?}");
    let mut expected = vec![tombstones[0].clone(), newer, pending_blob];
    expected.sort();
    assert_eq!(report.skipped, expected);
    // The rebuilt manifest opens like any other.
    let mut reopened = block_on(Index::open(&mem, "idx", None)).unwrap();
    assert_eq!(ids(&mut reopened), ["a", "b"]);
}

/// A blob edited with its CRC recomputed fails the content hash in its key.
#[test]
fn a_tampered_blob_is_corrupt() {
    let mem = MemoryStorage::new();
    let mut w = Index::new(IndexConfig::default()).unwrap();
    w.add(&doc("x", "some text to tamper with")).unwrap();
    block_on(w.commit(&mem, "idx")).unwrap();
    let key = block_on(mem.list("idx/blob/")).unwrap().remove(0);
    mem.with_map(|m| {
        let b = m.get_mut(&key).unwrap();
        let n = b.len() - 4;
        b[n - 3] ^= 0x20;
        common::reseal(b);
    });
    let err = block_on(Index::open(&mem, "idx", None)).err().unwrap();
    assert_eq!(err.code(), "CORRUPT");
    assert!(err.to_string().contains("does not match the hash"), "{err}");
}

/// A commit that crashed before its manifest: the index still opens (even
/// when it was the first commit), and its blobs are collected once its
/// pending marker has expired.
#[test]
fn crashed_commits_are_harmless_then_collected() {
    let mem = MemoryStorage::new();
    let mut first = Index::new(IndexConfig::default()).unwrap();
    first.add(&doc("lost", "never committed")).unwrap();
    let crashing = Paused::over(&mem);
    crashing.arm("swap", 0);
    let plan = first.prepare_commit("idx", PART_BYTES);
    drop(run_until_paused(&crashing, plan.execute(&crashing))); // killed
    assert!(!block_on(mem.list("idx/blob/")).unwrap().is_empty());
    let mut w =
        block_on(Index::open(&mem, "idx", None)).expect("a crashed first commit is not damage");
    assert_eq!(w.len(), 0);
    w.add(&doc("kept", "committed")).unwrap();
    block_on(w.commit(&mem, "idx")).unwrap();
    assert_eq!(
        block_on(mem.list("idx/pending/")).unwrap().len(),
        1,
        "still within its TTL"
    );
    // Age the crashed commit's marker past the TTL.
    let marker = block_on(mem.list("idx/pending/")).unwrap().remove(0);
    let old = memdex::host::now_ms() - PENDING_TTL_MS - 1;
    block_on(mem.put(&marker, &blob::seal(BlobKind::Pending, &old.to_le_bytes()))).unwrap();
    w.add(&doc("kept2", "committed")).unwrap();
    block_on(w.commit(&mem, "idx")).unwrap();
    assert!(block_on(mem.list("idx/pending/")).unwrap().is_empty());
    assert_eq!(
        block_on(mem.list("idx/blob/")).unwrap().len(),
        manifest_refs(&mem).len()
    );
    let mut reopened = block_on(Index::open(&mem, "idx", None)).unwrap();
    assert_eq!(ids(&mut reopened), ["kept", "kept2"]);
}

/// The filesystem compare-and-swap under contention: threads incrementing
/// one counter through `swap` lose no increment.
#[test]
fn fs_swap_is_atomic_under_contention() {
    let dir = tempdir();
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let dir = dir.clone();
            std::thread::spawn(move || {
                let fs = FsStorage::new(&dir);
                let mut won = 0;
                while won < 50 {
                    let cur = block_on(fs.get("c/counter")).unwrap();
                    let n: u64 = cur
                        .as_deref()
                        .map_or(0, |b| std::str::from_utf8(b).unwrap().parse().unwrap());
                    if block_on(fs.swap(
                        "c/counter",
                        cur.as_deref(),
                        (n + 1).to_string().as_bytes(),
                    ))
                    .unwrap()
                    {
                        won += 1;
                    }
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let fs = FsStorage::new(&dir);
    assert_eq!(block_on(fs.get("c/counter")).unwrap().unwrap(), b"200");
    assert_eq!(
        block_on(fs.list("c/")).unwrap(),
        ["c/counter"],
        "no lock or temporary file listed"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A lock file left by a process that no longer exists does not block.
#[test]
fn fs_swap_breaks_a_dead_processs_lock() {
    let dir = tempdir();
    let fs = FsStorage::new(&dir);
    block_on(fs.put("c/k", b"1")).unwrap();
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
    // pid 2^22+1 is above Linux's pid_max: no such process.
    std::fs::write(
        dir.join("c/k.lock~"),
        format!("4194305 {} 0 0", host.trim()),
    )
    .unwrap();
    assert!(block_on(fs.swap("c/k", Some(b"1"), b"2")).unwrap());
    assert_eq!(block_on(fs.get("c/k")).unwrap().unwrap(), b"2");
    // A stale temporary file is cleaned up by list.
    let tmp = dir.join("c/k.123-abc.tmp~");
    std::fs::write(&tmp, b"torn").unwrap();
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&tmp)
        .unwrap()
        .set_modified(old)
        .unwrap();
    block_on(fs.list("c/")).unwrap();
    assert!(!tmp.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn tempdir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "memdex-cas-{}-{}",
        std::process::id(),
        memdex::host::unique_bits()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `memdex recover DIR` rebuilds a lost manifest of a filesystem index.
#[test]
fn the_cli_recovers_a_lost_manifest() {
    let dir = tempdir();
    let fs = FsStorage::new(&dir);
    let mut w = Index::new(IndexConfig::default()).unwrap();
    for i in 0..3 {
        w.add(&doc(&format!("c{i}"), "cli")).unwrap();
        block_on(w.commit(&fs, "memdex")).unwrap();
    }
    std::fs::remove_file(dir.join("memdex/manifest")).unwrap();
    assert_eq!(
        block_on(Index::open(&fs, "memdex", None))
            .err()
            .unwrap()
            .code(),
        "CORRUPT"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_memdex"))
        .arg("recover")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"documents\":3"));
    let mut reopened = block_on(Index::open(&fs, "memdex", None)).unwrap();
    assert_eq!(ids(&mut reopened), ["c0", "c1", "c2"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reader opening a new index while its first commit writes blobs is not
/// told `CORRUPT` (the commit's marker covers them), whether it pauses
/// between its listings before or during that commit, and whether the
/// commit finishes before the reader does.
#[test]
fn opening_beside_a_first_commit_is_not_a_lost_manifest() {
    for finish_writer_first in [false, true] {
        let mem = MemoryStorage::new();
        let reader = Paused::over(&mem);
        reader.arm("list", 1); // between its two listings
        let open = run_until_paused(&reader, Index::open(&reader, "idx", None));
        let mut w = Index::new(IndexConfig::default()).unwrap();
        w.add(&doc("first", "the first memory")).unwrap();
        let writer = Paused::over(&mem);
        writer.arm("swap", 0);
        let plan = w.prepare_commit("idx", PART_BYTES);
        let commit = run_until_paused(&writer, plan.execute(&writer));
        if finish_writer_first {
            finish(&writer, commit).unwrap();
            // The open began before the commit: either state is right.
            let index = finish(&reader, open).expect("not CORRUPT");
            assert!(index.len() <= 1);
        } else {
            let index = finish(&reader, open).expect("not CORRUPT");
            assert_eq!(index.len(), 0);
            finish(&writer, commit).unwrap();
        }
    }
}
