// withIndexLock(name, fn): one writer per index. Runs `fn` while holding an
// exclusive lock named `memdex:<name>`:
// - in browsers (and any runtime with the Web Locks API) through
//   `navigator.locks.request`, which excludes other tabs, windows and
//   workers of the same origin, and releases the lock if a tab dies;
// - elsewhere (Node, workerd) through an in-process async mutex, which only
//   excludes writers in the same process/isolate. Across processes rely on
//   the optimistic check of the commit (a `CONFLICT` error on a generation
//   mismatch) or, in Workers, on the Durable Object as the single writer.
import { storageError } from './util.js';

/**
 * @typedef {import('../storage.js').IndexLockOptions} IndexLockOptions
 */

/** @type {Map<string, Promise<unknown>>} name -> tail of the queue (a promise settled when the last holder releases) */
const queues = new Map();
/** @type {Set<string>} names currently held in this process (for `ifAvailable`) */
const held = new Set();

/** @param {AbortSignal} signal */
function abortError(signal) {
  const reason = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('the lock request was aborted');
  err.name = 'AbortError';
  return err;
}

/** @param {string} name */
function lockBusy(name) {
  // A storage error whose code says what a caller does next: CONFLICT.
  const err = /** @type {Error & { code: string, reason: string }} */ (
    storageError(`index "${name}" is locked by another writer`, { reason: 'LOCKED', key: name })
  );
  err.code = 'CONFLICT';
  return err;
}

/**
 * @template T
 * @param {string} lockName
 * @param {string} name
 * @param {() => T | Promise<T>} fn
 * @param {IndexLockOptions} options
 * @returns {Promise<T>}
 */
async function withLocalLock(lockName, name, fn, { signal, ifAvailable }) {
  if (signal?.aborted) throw abortError(signal);
  if (ifAvailable && (held.has(lockName) || queues.has(lockName))) throw lockBusy(name);
  const previous = queues.get(lockName) ?? Promise.resolve();
  /** @type {(value?: unknown) => void} */
  let release = () => {};
  const mine = new Promise((r) => (release = r));
  const tail = previous.then(() => mine);
  queues.set(lockName, tail);
  const cleanup = () => {
    release();
    if (queues.get(lockName) === tail) queues.delete(lockName);
  };
  if (signal) {
    /** @type {() => void} */
    let onAbort = () => {};
    const aborted = new Promise((_, reject) => {
      onAbort = () => reject(abortError(signal));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([previous, aborted]);
    } catch (err) {
      // Aborted while queued: give up our turn without running fn.
      previous.then(cleanup, cleanup);
      throw err;
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  } else {
    await previous;
  }
  held.add(lockName);
  try {
    return await fn();
  } finally {
    held.delete(lockName);
    cleanup();
  }
}

/**
 * Runs `fn` holding the exclusive writer lock of index `name`; resolves to
 * what `fn` resolves to. The lock is released when `fn` settles.
 *
 * With `ifAvailable: true`, rejects at once with an error whose `code` is
 * 'CONFLICT' (and `reason` 'LOCKED') if another writer holds the lock.
 * With `signal`, aborting while waiting rejects with the signal's reason
 * and `fn` never runs (aborting does not interrupt a running `fn`).
 *
 * @template T
 * @param {string} name index name (the storage key prefix)
 * @param {() => T | Promise<T>} fn
 * @param {IndexLockOptions} [options]
 * @returns {Promise<T>}
 */
export async function withIndexLock(name, fn, { signal, ifAvailable = false } = {}) {
  if (typeof name !== 'string' || name === '') {
    throw storageError('withIndexLock: the index name must be a non-empty string', { reason: 'INVALID_KEY' });
  }
  const lockName = `memdex:${name}`;
  const locks = globalThis.navigator?.locks;
  if (locks && typeof locks.request === 'function') {
    /** @type {LockOptions} */
    const options = { mode: 'exclusive' };
    // Web Locks forbids `signal` together with `ifAvailable`.
    if (ifAvailable) options.ifAvailable = true;
    else if (signal) options.signal = signal;
    return locks.request(lockName, options, async (lock) => {
      if (lock === null) throw lockBusy(name);
      return fn();
    });
  }
  return withLocalLock(lockName, name, fn, { signal, ifAvailable });
}

/** Which mechanism `withIndexLock` uses here: 'web-locks' or 'in-process'. */
export function indexLockKind() {
  return typeof globalThis.navigator?.locks?.request === 'function' ? 'web-locks' : 'in-process';
}
