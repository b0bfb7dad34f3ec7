// fsStorage(dir): the Node.js filesystem storage adapter. One file per key
// under `dir`; keys are `/`-separated relative paths (`idx/manifest`,
// `idx/blob/<hash>`), the same layout as the native Rust `FsStorage`, so an
// index built by the native CLI opens in Node and vice versa.
//
// - Keys with empty, `.` or `..` segments, backslashes or NUL bytes are
//   rejected (no escaping `dir`), as are keys ending in `~` (the adapter's
//   own temporary and lock files).
// - `put` is atomic and durable: write a temporary file next to the target,
//   fsync it, rename it over the target, fsync the directory. A crash leaves
//   the old or the new value, never a torn one.
// - `swap` (compare-and-swap) is the same under the lock file `<key>.lock~`
//   (./fs-lock.js), atomic against every other swap of the key from any
//   process on the machine, native memdex tools included.
// - `lock(name, fn)` holds `<name>/writer.lock~` while `fn` runs: the
//   cross-process writer lock `Memdex#commit` takes (what Web Locks are in
//   browsers). A wait for a live holder is bounded (`lockWaitMs`, 10 s) and
//   ends in `LOCKED` naming the holder.
// - `list(prefix)` walks only the directory the prefix points into, and
//   deletes the temporary files of killed writers found there: older than
//   15 minutes, or older than a minute with their writer's PID (in the
//   name) gone from this host. A live `put` whose file was deleted only
//   fails, never leaves a torn value. `swap` does the same for the
//   key's own temporary files (`manifest.*.tmp~`), which no listing reaches.
// - A key cannot be both a value and a "directory" of other keys (`a` and
//   `a/b`): the filesystem forbids it, and so does `put`.
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { LOCAL_PART_BYTES, copyBytes, sameBytes, storageError } from './util.js';
import { acquireFileLock, alive, lockHolder } from './fs-lock.js';
import { withIndexLock } from './locks.js';

/**
 * @typedef {import('../storage.js').FsStorage} FsStorage
 * @typedef {Error & { code?: string }} SystemError
 */

const TMP_SUFFIX = '.tmp~';
const STALE_TMP_MS = 15 * 60 * 1000;
/** A temporary file whose writer PID is gone (this host) is a killed writer's after this long. */
const ORPHAN_TMP_MS = 60 * 1000;
/** How long `swap` waits for another process's swap of the same key. */
const SWAP_WAIT_MS = 10_000;
/** How long `lock` waits for a live writer by default. */
const LOCK_WAIT_MS = 10_000;

/** @type {Record<string, string>} the storage reason of each errno code */
const REASONS = { ENOSPC: 'QUOTA_EXCEEDED', EDQUOT: 'QUOTA_EXCEEDED', EFBIG: 'QUOTA_EXCEEDED', EACCES: 'PERMISSION', EPERM: 'PERMISSION', ENOTDIR: 'INVALID_KEY', EISDIR: 'INVALID_KEY', EROFS: 'PERMISSION' };

/**
 * A filesystem failure as a storage error (one already is passes as it is).
 * @param {unknown} thrown
 * @param {string} what
 * @param {string} key
 */
function wrap(thrown, what, key) {
  const err = /** @type {SystemError | null | undefined} */ (thrown);
  if (err && err.code === 'STORAGE') return err;
  const reason = REASONS[err?.code ?? ''] ?? 'IO';
  return storageError(`filesystem ${what} failed: ${err?.message ?? err}`, { reason, key, cause: err });
}

/**
 * Splits and validates a key; returns its segments.
 * @param {unknown} key
 * @param {string} op
 * @returns {string[]}
 */
function segments(key, op) {
  if (typeof key !== 'string' || key.length === 0) {
    throw storageError(`${op}: key must be a non-empty string`, { reason: 'INVALID_KEY' });
  }
  const parts = key.split('/');
  for (const s of parts) {
    if (s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0')) {
      throw storageError(`${op}("${key}"): invalid key (empty segment, ".", "..", backslash or NUL)`, {
        reason: 'INVALID_KEY',
        key,
      });
    }
  }
  if (key.endsWith('~')) {
    throw storageError(`${op}("${key}"): keys may not end in "~" (reserved for temporary and lock files)`, {
      reason: 'INVALID_KEY',
      key,
    });
  }
  return parts;
}

/** @param {string} dir */
async function syncDir(dir) {
  // Makes the rename durable. Not every platform can open a directory
  // (Windows cannot); there the rename is as durable as the OS makes it.
  let fh;
  try {
    fh = await open(dir, 'r');
    await fh.sync();
  } catch {
    // best effort
  } finally {
    await fh?.close().catch(() => {});
  }
}

/**
 * Creates a filesystem storage rooted at `dir` (created on first put).
 * `lockWaitMs`: how long `lock` waits for a live writer before `LOCKED`;
 * `partBytes`: the blob size of segment bodies (`StorageAdapter.partBytes`).
 *
 * @param {string | URL} dir
 * @param {{ lockWaitMs?: number, partBytes?: number }} [options]
 * @returns {FsStorage}
 */
export function fsStorage(dir, { lockWaitMs = LOCK_WAIT_MS, partBytes = LOCAL_PART_BYTES } = {}) {
  if (!(typeof lockWaitMs === 'number' && lockWaitMs >= 0)) {
    throw storageError('fsStorage: `lockWaitMs` must be a number of milliseconds >= 0', { reason: 'INVALID_KEY' });
  }
  if (dir instanceof URL) dir = fileURLToPath(dir);
  if (typeof dir !== 'string' || dir === '') {
    throw storageError('fsStorage: a directory path is required', { reason: 'INVALID_KEY' });
  }
  const root = resolve(dir);
  const pathOf = (/** @type {string[]} */ parts) => join(root, ...parts);

  /**
   * @param {string} base
   * @param {string} rel
   * @param {string[]} out
   * @returns {Promise<void>}
   */
  async function walk(base, rel, out) {
    let entries;
    try {
      entries = await readdir(base, { withFileTypes: true });
    } catch (err) {
      const { code } = /** @type {SystemError} */ (err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw err;
    }
    for (const e of entries) {
      const key = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) await walk(join(base, e.name), key, out);
      else if (e.name.endsWith(TMP_SUFFIX)) await removeIfStale(join(base, e.name));
      else if (e.isFile() && !e.name.endsWith('~')) out.push(key);
    }
  }

  /**
   * `<target>.<pid>-<random>.tmp~` (writeAtomic): its writer's PID.
   * @param {string} path
   */
  async function removeIfStale(path) {
    try {
      const age = Date.now() - (await stat(path)).mtimeMs;
      const pid = Number(/\.(\d+)-[0-9a-f]+\.tmp~$/.exec(path)?.[1]);
      const orphan = age > ORPHAN_TMP_MS && pid > 0 && pid !== process.pid && !alive(pid);
      if (age > STALE_TMP_MS || orphan) await unlink(path);
    } catch {
      // gone already, or not ours to delete: harmless either way
    }
  }

  /**
   * Removes stale temporary files of `target` itself (`target.*.tmp~`).
   * @param {string[]} parts
   */
  async function removeStaleSiblings(parts) {
    const base = parts.at(-1);
    const parent = pathOf(parts.slice(0, -1));
    let names;
    try {
      names = await readdir(parent);
    } catch {
      return;
    }
    for (const n of names) if (n.startsWith(`${base}.`) && n.endsWith(TMP_SUFFIX)) await removeIfStale(join(parent, n));
  }

  /**
   * @param {string} key
   * @param {string[]} parts
   * @param {Uint8Array} bytes
   */
  async function writeAtomic(key, parts, bytes) {
    const target = pathOf(parts);
    const parent = pathOf(parts.slice(0, -1));
    const tmp = `${target}.${process.pid}-${randomBytes(6).toString('hex')}${TMP_SUFFIX}`;
    try {
      await mkdir(parent, { recursive: true });
      const fh = await open(tmp, 'wx');
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      await rename(tmp, target);
    } catch (err) {
      await unlink(tmp).catch(() => {});
      throw wrap(err, `put("${key}", ${bytes.byteLength} bytes)`, key);
    }
    await syncDir(parent);
  }

  /**
   * @param {string} key
   * @param {string[]} parts
   * @returns {Promise<Uint8Array | null>}
   */
  async function read(key, parts) {
    try {
      const buf = await readFile(pathOf(parts));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      const { code } = /** @type {SystemError} */ (err);
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw wrap(err, `get("${key}")`, key);
    }
  }

  return {
    dir: root,
    partBytes,

    async get(key) {
      return read(key, segments(key, 'get'));
    },

    async put(key, value) {
      const parts = segments(key, 'put');
      await writeAtomic(key, parts, copyBytes(value, key));
    },

    async swap(key, expected, value) {
      const parts = segments(key, 'swap');
      const bytes = copyBytes(value, key);
      const lockPath = `${pathOf(parts)}.lock~`;
      let release;
      try {
        await mkdir(pathOf(parts.slice(0, -1)), { recursive: true });
        release = await acquireFileLock(lockPath, { waitMs: SWAP_WAIT_MS });
      } catch (err) {
        throw wrap(err, `swap("${key}")`, key);
      }
      if (!release) {
        throw storageError(
          `swap("${key}"): another process held the lock ${lockPath} for over ${SWAP_WAIT_MS / 1000} s; retry, or delete the file if no memdex process is running`,
          { reason: 'LOCKED', key },
        );
      }
      try {
        // Under the key's lock: left-overs of killed swappers (no listing
        // walks the manifest's directory).
        await removeStaleSiblings(parts);
        if (!sameBytes(await read(key, parts), expected ?? null)) return false;
        await writeAtomic(key, parts, bytes);
        return true;
      } finally {
        await release();
      }
    },

    /**
     * Runs `fn` holding the writer lock of index `name` in this directory,
     * excluding writers in other processes (and, through the in-process
     * lock, in this one). See `withIndexLock` for `ifAvailable` and `signal`;
     * `waitMs` (default `lockWaitMs`) bounds the wait for a live writer,
     * which ends in an error with code `LOCKED` and the holder's
     * `{ pid, host, since }`.
     */
    async lock(name, fn, { ifAvailable = false, signal, waitMs = lockWaitMs } = {}) {
      const parts = segments(`${name}/writer.lock`, 'lock');
      const path = `${pathOf(parts)}~`;
      return withIndexLock(
        `fs:${root}/${name}`,
        async () => {
          let release;
          let busy = '';
          try {
            await mkdir(pathOf(parts.slice(0, -1)), { recursive: true });
            release = await acquireFileLock(path, { waitMs: ifAvailable ? 0 : waitMs, signal, onBusy: (c) => (busy = c) });
          } catch (err) {
            if ((err instanceof Error && err.name === 'AbortError') || err === signal?.reason) throw err;
            throw wrap(err, `lock("${name}")`, name);
          }
          if (!release) {
            const { start: _, ...holder } = lockHolder(busy);
            const who = `process ${holder.pid ?? '?'} on ${holder.host ?? '?'}${holder.since ? ` since ${holder.since}` : ''}`;
            // A storage error whose code says what a caller does next.
            const err = /** @type {Error & { code: string, holder?: object }} */ (
              storageError(
                ifAvailable
                  ? `index "${name}" is locked by another writer process (${who})`
                  : `index "${name}" is locked by another writer, ${who}, for over ${waitMs / 1000} s; retry later, or stop that process (${path})`,
                { reason: 'LOCKED', key: name },
              )
            );
            err.code = ifAvailable ? 'CONFLICT' : 'LOCKED';
            err.holder = holder;
            throw err;
          }
          try {
            return await fn();
          } finally {
            await release();
          }
        },
        { ifAvailable, signal },
      );
    },

    async delete(key) {
      const parts = segments(key, 'delete');
      try {
        await unlink(pathOf(parts));
      } catch (err) {
        const { code } = /** @type {SystemError} */ (err);
        if (code === 'ENOENT' || code === 'ENOTDIR') return;
        throw wrap(err, `delete("${key}")`, key);
      }
    },

    async list(prefix = '') {
      // Walk only the directory the prefix's complete segments name.
      const cut = prefix.lastIndexOf('/');
      const dirPart = cut < 0 ? '' : prefix.slice(0, cut);
      const dirParts = dirPart === '' ? [] : dirPart.split('/');
      if (dirParts.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) return [];
      /** @type {string[]} */
      const out = [];
      try {
        await walk(pathOf(dirParts), dirPart, out);
      } catch (err) {
        throw wrap(err, `list("${prefix}")`, prefix);
      }
      return out.filter((k) => k.startsWith(prefix)).sort();
    },

    /** Deletes the whole directory (tests, `reset`). */
    async destroy() {
      await rm(root, { recursive: true, force: true });
    },
  };
}
