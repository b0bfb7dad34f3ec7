// Cross-process lock files for the Node filesystem adapter: the protocol of
// the native `FsStorage` (src/storage/fs_lock.rs), so Node processes and
// native tools exclude each other on one directory.
//
// A lock is a file created exclusively ('wx': O_CREAT|O_EXCL) holding
// `pid host token ms start`, released by deleting it (`start`: the holder
// process's start time, /proc/PID/stat field 22 on Linux, `-` where unknown;
// the native writer records it too). A lock is stale when its
// process is gone (same host: `process.kill(pid, 0)` fails with ESRCH), when
// its PID now belongs to another process (the start time differs: a
// container restarted with the same PID and hostname), when its holder is
// this very process but not one of the locks it holds (a previous process
// with our PID), when it is older than 30 s and its holder cannot be checked
// (another host), or when it is empty and older than 2 s (its holder died
// between creating and writing it; a failed write deletes the file). A live
// holder's lock is never broken, however old; a wait for it is bounded by
// the caller (`waitMs`), which then reports the holder. Breaking
// happens under a second lock (`<lock>.break~`) and only if the lock still
// holds the exact content judged stale, so concurrent breakers cannot delete
// a lock a third process just took.
import { readFileSync } from 'node:fs';
import { open, readFile, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';

const FOREIGN_STALE_MS = 30_000;
const EMPTY_STALE_MS = 2_000;
const HOST = hostname();

/**
 * A process's start time (clock ticks since boot), or '-' where unknown.
 * @param {number} pid
 */
function startTime(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 2 (comm) may hold spaces and parentheses: count after the last ')'.
    const field22 = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
    return /^\d+$/.test(field22) ? field22 : '-';
  } catch {
    return '-';
  }
}
const START = startTime(process.pid);
/** @type {Set<string>} contents of the locks this process holds now (a same-PID lock not here is a dead predecessor's) */
const held = new Set();

/** @typedef {Error & { code?: string }} SystemError */

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** @param {string} path */
async function ageMs(path) {
  try {
    return Date.now() - (await stat(path)).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Whether process `pid` is alive on this host.
 * @param {number} pid
 */
export function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {SystemError} */ (err).code === 'EPERM';
  }
}

/**
 * A lock's holder as its file says: `{ pid, host, since }` (since: ISO time taken).
 * @param {string | null | undefined} content
 */
export function lockHolder(content) {
  const [pid, host, , ms, start] = (content ?? '').split(' ');
  const since = Number(ms);
  return {
    pid: Number(pid) || undefined,
    host: host || undefined,
    since: Number.isFinite(since) && since > 0 ? new Date(since).toISOString() : undefined,
    start: start && start !== '-' ? start : undefined,
  };
}

/** @param {string} path @param {string} content */
async function isStale(path, content) {
  const [pid, host] = content.split(' ');
  const n = Number(pid);
  if (!Number.isInteger(n) || n <= 0 || host === undefined) return (await ageMs(path)) > EMPTY_STALE_MS;
  if (host !== HOST) return (await ageMs(path)) > FOREIGN_STALE_MS;
  if (n === process.pid) return !held.has(content);
  if (!alive(n)) return true;
  const { start } = lockHolder(content);
  const now = start === undefined ? '-' : startTime(n);
  return start !== undefined && now !== '-' && now !== start;
}

/** @param {string} path @param {string} content */
async function tryCreate(path, content) {
  let fh;
  try {
    fh = await open(path, 'wx');
  } catch (err) {
    if (/** @type {SystemError} */ (err).code === 'EEXIST') return false;
    throw err;
  }
  try {
    await fh.writeFile(content);
  } catch (err) {
    // A full disk must not leave an empty lock file that stalls writers.
    await fh.close().catch(() => {});
    await unlink(path).catch(() => {});
    throw err;
  }
  await fh.close();
  return true;
}

/** @param {string} path */
async function readOrNull(path) {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if (/** @type {SystemError} */ (err).code === 'ENOENT') return null;
    throw err;
  }
}

/** @param {string} path @param {string} staleContent */
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
 * `waitMs` 0); `onBusy(content)` then sees the holder's lock file content.
 * `signal` aborts the wait.
 *
 * @param {string} path
 * @param {{ waitMs?: number, signal?: AbortSignal, onBusy?: (content: string) => void }} [options]
 * @returns {Promise<(() => Promise<void>) | null>}
 */
export async function acquireFileLock(path, { waitMs = Infinity, signal, onBusy } = {}) {
  const content = `${process.pid} ${HOST} ${randomBytes(6).toString('hex')} ${Date.now()} ${START}`;
  const start = Date.now();
  let pause = 1;
  for (;;) {
    signal?.throwIfAborted();
    held.add(content); // before the file exists: our own lock is never judged stale
    let created = false;
    try {
      created = await tryCreate(path, content);
    } finally {
      if (!created) held.delete(content);
    }
    if (created) {
      return async () => {
        // Only our own lock: a live holder's lock is never broken, so it is.
        try {
          if ((await readOrNull(path)) === content) await unlink(path).catch(() => {});
        } finally {
          held.delete(content);
        }
      };
    }
    const current = await readOrNull(path);
    if (current === null) continue;
    if (await isStale(path, current)) {
      await breakStale(path, current);
      continue;
    }
    if (Date.now() - start >= waitMs) {
      onBusy?.(current);
      return null;
    }
    await sleep(pause);
    pause = Math.min(pause * 2, 50);
  }
}
