// indexedDBStorage(): the browser storage adapter. One IndexedDB database
// (default `memdex`) with one object store (default `kv`) whose keys are the
// memdex keys (strings) and whose values are Uint8Arrays.
//
// - `put` runs in its own readwrite transaction and resolves on the
//   transaction's `complete` event, requested with `durability: 'strict'`:
//   when it resolves, the value is on disk. memdex writes the manifest last,
//   so a tab closed mid-commit leaves the previous commit intact.
// - `get`s called together (before the caller next waits, as memdex does
//   when it reads a window of parts) share one readonly transaction: one
//   commit round trip instead of one per key (15 parts of 32 KiB: 1.5 against
//   2.5 ms p50 in headless Chromium, bench/js/idb-floor.mjs).
// - `list(prefix)` reads keys only (`getAllKeys` over an exact key range),
//   sorted.
// - Failures (QuotaExceededError, blocked upgrades, aborted transactions,
//   a connection closed by another tab's version change) reject with Errors
//   whose `code` is 'STORAGE' and whose `reason` names the failure.
// - The database is opened lazily, once; when another tab upgrades or deletes
//   the database the connection is closed (so it does not block them) and
//   reopened by the next call. `close()` closes it explicitly.
import { LOCAL_PART_BYTES, checkKey, copyBytes, releaseBytes, sameBytes, prefixEnd, storageError } from './util.js';

/**
 * @typedef {import('../storage.js').IndexedDBStorageOptions} IndexedDBStorageOptions
 * @typedef {import('../storage.js').IndexedDBStorage} IndexedDBStorage
 */

/**
 * What `run` waits for: an IDBRequest, or swap's outcome shaped like one.
 * @typedef {{ result: unknown, error: DOMException | null, onsuccess: ((ev: Event) => unknown) | null }} RequestLike
 */

/** @type {Record<string, string>} the storage reason of each DOMException name */
const REASONS = {
  QuotaExceededError: 'QUOTA_EXCEEDED',
  AbortError: 'ABORTED',
  InvalidStateError: 'CLOSED',
  VersionError: 'VERSION',
  DataCloneError: 'INVALID_VALUE',
  DataError: 'INVALID_KEY',
};

/**
 * An IndexedDB failure as a storage error (one already is passes as it is).
 * @param {unknown} thrown
 * @param {string} what
 * @param {string} [key]
 */
function wrap(thrown, what, key) {
  const err = /** @type {{ code?: unknown, name?: string, message?: string } | null | undefined} */ (thrown);
  if (err && err.code === 'STORAGE') return err;
  const name = err?.name ?? 'Error';
  const reason = REASONS[name] ?? 'IO';
  let detail = err?.message ? `${name}: ${err.message}` : name;
  if (reason === 'QUOTA_EXCEEDED') detail = `storage quota exceeded (${detail}); free space or ask for persistent storage`;
  return storageError(`IndexedDB ${what} failed: ${detail}`, { reason, key, cause: thrown });
}

/**
 * Opens `database`, creating `store` if missing (a version upgrade).
 * @param {IDBFactory} factory
 * @param {string} database
 * @param {string} store
 * @returns {Promise<IDBDatabase>}
 */
function openDatabase(factory, database, store) {
  const attempt = (/** @type {number | undefined} */ version) =>
    /** @type {Promise<IDBDatabase>} */ (new Promise((resolve, reject) => {
      let settled = false;
      const req = version === undefined ? factory.open(database) : factory.open(database, version);
      req.onupgradeneeded = () => {
        const db = req.result;
        if (!db.objectStoreNames.contains(store)) db.createObjectStore(store);
      };
      req.onsuccess = () => {
        if (settled) {
          // We gave up waiting (blocked); do not leak the late connection.
          req.result.close();
          return;
        }
        settled = true;
        resolve(req.result);
      };
      req.onerror = (/** @type {Event} */ event) => {
        event.preventDefault?.();
        settled = true;
        reject(wrap(req.error, `open of database "${database}"`));
      };
      req.onblocked = () => {
        if (settled) return;
        settled = true;
        reject(
          storageError(
            `IndexedDB open of database "${database}" is blocked: another tab or connection holds an older version open and did not close it`,
            { reason: 'BLOCKED' },
          ),
        );
      };
    }));

  return attempt(undefined).then((db) => {
    if (db.objectStoreNames.contains(store)) return db;
    // The database exists but lacks our store: upgrade it by one version.
    const next = db.version + 1;
    db.close();
    return attempt(next).then((upgraded) => {
      if (!upgraded.objectStoreNames.contains(store)) {
        upgraded.close();
        throw storageError(`IndexedDB database "${database}" has no object store "${store}"`, { reason: 'VERSION' });
      }
      return upgraded;
    });
  });
}

/** Reads one transaction carries at most (a window of parts is 16). */
const MAX_READS = 64;

/**
 * A stored value as bytes (`null` when absent).
 * @param {unknown} value
 * @param {string} key
 * @returns {Uint8Array | null}
 */
function asBytes(value, key) {
  if (value === undefined || value === null) return null;
  if (value instanceof Uint8Array) return value;
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  throw storageError(`IndexedDB get("${key}"): stored value is not bytes (${typeof value})`, {
    reason: 'INVALID_VALUE',
    key,
  });
}

/**
 * Creates an IndexedDB storage adapter. Nothing is opened until the first call.
 *
 * @param {IndexedDBStorageOptions} [options]
 * @returns {IndexedDBStorage}
 */
export function indexedDBStorage({
  database = 'memdex',
  store = 'kv',
  durability = 'strict',
  indexedDB: factory = globalThis.indexedDB,
  IDBKeyRange: KeyRange = globalThis.IDBKeyRange,
  partBytes = LOCAL_PART_BYTES,
} = {}) {
  /** @type {Promise<IDBDatabase> | null} */
  let opening = null;

  function connect() {
    if (!factory) {
      return Promise.reject(storageError('IndexedDB is not available in this environment', { reason: 'UNAVAILABLE' }));
    }
    if (!opening) {
      const current = openDatabase(factory, database, store).then(
        (db) => {
          const forget = () => {
            if (opening === current) opening = null;
          };
          // Another tab wants to upgrade or delete the database: step aside,
          // and reopen on our next call.
          db.onversionchange = () => {
            db.close();
            forget();
          };
          // The browser closed the connection (e.g. site data cleared).
          db.onclose = forget;
          return db;
        },
        (err) => {
          if (opening === current) opening = null;
          throw err;
        },
      );
      opening = current;
    }
    return opening;
  }

  /**
   * Runs one request in its own transaction; resolves with the request's
   * result once the transaction completes. Retries once on a connection
   * that was closed underneath us (versionchange).
   * @param {IDBTransactionMode} mode
   * @param {string} what
   * @param {string} key
   * @param {(store: IDBObjectStore) => RequestLike} makeRequest
   * @param {boolean} [retry]
   * @returns {Promise<unknown>}
   */
  async function run(mode, what, key, makeRequest, retry = true) {
    const db = await connect();
    let tx;
    try {
      tx = mode === 'readwrite' ? db.transaction(store, mode, { durability }) : db.transaction(store, mode);
    } catch (err) {
      if (retry && err instanceof Error && err.name === 'InvalidStateError') {
        if (opening) opening = null;
        return run(mode, what, key, makeRequest, false);
      }
      throw wrap(err, what, key);
    }
    const transaction = tx;
    return new Promise((resolve, reject) => {
      /** @type {unknown} */
      let result;
      /** @type {RequestLike} */
      let req;
      try {
        req = makeRequest(transaction.objectStore(store));
      } catch (err) {
        try {
          transaction.abort();
        } catch {
          // already finished
        }
        reject(wrap(err, what, key));
        return;
      }
      req.onsuccess = () => {
        result = req.result;
      };
      transaction.oncomplete = () => resolve(result);
      transaction.onabort = () => {
        const err = transaction.error ?? req.error;
        reject(
          err
            ? wrap(err, what, key)
            : storageError(`IndexedDB ${what} failed: the transaction was aborted`, { reason: 'ABORTED', key }),
        );
      };
    });
  }

  /** @typedef {{ key: string, resolve: (value: unknown) => void, reject: (err: unknown) => void }} Read */
  /** @type {Read[] | null} the reads waiting for the next microtask */
  let gathering = null;

  /**
   * The stored value of `key`, read in the transaction of every `get`
   * called before the next microtask (at most MAX_READS of them).
   * @param {string} key
   * @returns {Promise<unknown>}
   */
  function read(key) {
    return new Promise((resolve, reject) => {
      if (!gathering || gathering.length >= MAX_READS) {
        /** @type {Read[]} */
        const reads = [];
        gathering = reads;
        queueMicrotask(() => {
          if (gathering === reads) gathering = null;
          readTogether(reads);
        });
      }
      gathering.push({ key, resolve, reject });
    });
  }

  /** @param {Read[]} reads */
  function readTogether(reads) {
    const first = reads[0].key;
    const what = reads.length === 1 ? `get("${first}")` : `get of ${reads.length} keys ("${first}", ...)`;
    const values = run('readonly', what, first, (s) => {
      /** @type {{ result: unknown[], error: null, onsuccess: (() => void) | null }} */
      const outcome = { result: [], error: null, onsuccess: null };
      let left = reads.length;
      reads.forEach(({ key }, i) => {
        const request = s.get(key);
        request.onsuccess = () => {
          outcome.result[i] = request.result;
          if (--left === 0) outcome.onsuccess?.();
        };
      });
      return outcome;
    });
    values.then(
      (all) => reads.forEach((r, i) => r.resolve(/** @type {unknown[]} */ (all)[i])),
      (/** @type {Error & { reason?: string }} */ err) =>
        reads.forEach(({ key, reject }) =>
          reject(reads.length === 1 ? err : storageError(`IndexedDB get("${key}") failed: ${err.message}`, { reason: err.reason, key, cause: err })),
        ),
    );
  }

  return {
    database,
    store,
    partBytes,

    async get(key) {
      checkKey(key, 'get');
      return asBytes(await read(key), key);
    },

    // Each value `get` gives is IndexedDB's fresh copy: detached once memdex
    // has read it, a tab does not hold a whole index of them until V8
    // collects them (a full open reads every blob).
    release: releaseBytes,

    async put(key, value) {
      checkKey(key, 'put');
      const bytes = copyBytes(value, key);
      await run('readwrite', `put("${key}", ${bytes.byteLength} bytes)`, key, (s) => s.put(bytes, key));
    },

    async swap(key, expected, value) {
      checkKey(key, 'swap');
      const bytes = copyBytes(value, key);
      const want = expected == null ? null : copyBytes(expected, key);
      // One readwrite transaction reads, compares and writes: IndexedDB runs
      // overlapping readwrite transactions one at a time, across tabs too.
      const stored = run('readwrite', `swap("${key}")`, key, (s) => {
        /** @type {{ result: boolean, error: null, onsuccess: (() => void) | null }} */
        const outcome = { result: false, error: null, onsuccess: null };
        const read = s.get(key);
        read.onsuccess = () => {
          if (sameBytes(asBytes(read.result, key), want)) {
            s.put(bytes, key);
            outcome.result = true;
          }
          outcome.onsuccess?.();
        };
        return outcome;
      });
      return /** @type {Promise<boolean>} outcome.result */ (stored);
    },

    async delete(key) {
      checkKey(key, 'delete');
      await run('readwrite', `delete("${key}")`, key, (s) => s.delete(key));
    },

    async list(prefix = '') {
      const end = prefixEnd(prefix);
      const keys = await run('readonly', `list("${prefix}")`, prefix, (s) => {
        if (prefix === '') return s.getAllKeys();
        const range = end === undefined ? KeyRange.lowerBound(prefix) : KeyRange.bound(prefix, end, false, true);
        return s.getAllKeys(range);
      });
      return /** @type {IDBValidKey[]} */ (keys).filter((k) => typeof k === 'string' && k.startsWith(prefix)).map(String).sort();
    },

    async close() {
      const current = opening;
      opening = null;
      if (current) {
        try {
          (await current).close();
        } catch {
          // never opened: nothing to close
        }
      }
    },

    async deleteDatabase() {
      await this.close();
      if (!factory) return;
      const req = factory.deleteDatabase(database);
      await new Promise((resolve, reject) => {
        req.onsuccess = () => resolve(undefined);
        req.onerror = () => reject(wrap(req.error, `deleteDatabase("${database}")`));
        req.onblocked = () =>
          reject(
            storageError(`IndexedDB deleteDatabase("${database}") is blocked by another open connection`, {
              reason: 'BLOCKED',
            }),
          );
      });
    },
  };
}
