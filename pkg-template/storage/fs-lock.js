// Cross-process lock files for the Node filesystem adapter: the protocol of
// the native `FsStorage` (src/storage/fs_lock.rs), so Node processes and
// native tools exclude each other on one directory.
//
// A lock is a file created exclusively ('wx': O_CREAT|O_EXCL) holding
// `pid host token ms`, released by deleting it. A lock is stale when its
// process is gone (same host: `process.kill(pid, 0)` fails with ESRCH), when
// it is older than 30 s and its holder cannot be checked (another host), or
// when it is empty and older than 2 s (its holder died between creating and
// writing it). A live holder's lock is never broken, however old. Breaking
// happens under a second lock (`<lock>.break~`) and only if the lock still
// holds the exact content judged stale, so concurrent breakers cannot delete
// a lock a third process just took.
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

const FOREIGN_STALE_MS = 30_000;
const EMPTY_STALE_MS = 2_000;
const HOST = hostname();

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function ageMs(path) {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

async function isStale(path, content) {
  const [pid, host] = content.split(' ');
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0 || host === undefined) return (await ageMs(path)) > EMPTY_STALE_MS;
  if (host === HOST) return !alive(n);
  return (await ageMs(path)) > FOREIGN_STALE_MS;
}

async function tryCreate(path, content) {
  let fh;
  try {
    fh = await open(path, 'wx');
  } catch (err) {
    if (err.code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(content);
  } finally {
    await fh.close();
  }
  return true;
}

async function readOrNull(path) {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (err.code === 'ENOENT') return null;
    throw err;
  }
}

async function breakStale(path, staleContent) {
  const guard = `${path}.break~`;
  if (!(await tryCreate(guard, `${process.pid} ${HOST}`))) {
    // Breakers hold the guard for microseconds: an old one is left over.
    if ((await ageMs(guard)) > EMPTY_STALE_MS) await unlink(guard).catch(() => {});
    return;
  }
  try {
    if ((await readOrNull(path)) === staleContent) await unlink(path).catch(() => {});
  } finally {
    await unlink(guard).catch(() => {});
  }
}

/**
 * Takes the lock file at `path`. Resolves to a release function, or to null
 * when a live holder keeps it longer than `waitMs` (or at once with
 * `waitMs` 0). `signal` aborts the wait.
 *
 * @param {string} path
 * @param {{ waitMs?: number, signal?: AbortSignal }} [options]
 * @returns {Promise<(() => Promise<void>) | null>}
 */
export async function acquireFileLock(path, { waitMs = Infinity, signal } = {}) {
  const content = `${process.pid} ${HOST} ${randomBytes(6).toString('hex')} ${Date.now()}`;
  const start = Date.now();
  let pause = 1;
  for (;;) {
    signal?.throwIfAborted();
    if (await tryCreate(path, content)) {
      return async () => {
        // Only our own lock: a live holder's lock is never broken, so it is.
        if ((await readOrNull(path)) === content) await unlink(path).catch(() => {});
      };
    }
    const held = await readOrNull(path);
    if (held === null) continue;
    if (await isStale(path, held)) {
      await breakStale(path, held);
      continue;
    }
    if (Date.now() - start >= waitMs) return null;
    await sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}
