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
//   browsers).
// - `list(prefix)` walks only the directory the prefix points into, and
//   deletes temporary files older than 15 minutes (left by a crashed `put`;
//   a live `put` that slow would only fail, never leave a torn value).
// - A key cannot be both a value and a "directory" of other keys (`a` and
//   `a/b`): the filesystem forbids it, and so does `put`.
import { mkdir, open, readdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { copyBytes, sameBytes, storageError } from './util.js';
import { acquireFileLock } from './fs-lock.js';
import { withIndexLock } from './locks.js';

/**
 * @typedef {import('../storage.js').FsStorage} FsStorage
 */

const TMP_SUFFIX = '.tmp~';
const STALE_TMP_MS = 15 * 60 * 1000;
/** How long `swap` waits for another process's swap of the same key. */
const SWAP_WAIT_MS = 10_000;

function wrap(err, what, key) {
  if (err && err.code === 'STORAGE') return err;
  const reason =
    { ENOSPC: 'QUOTA_EXCEEDED', EDQUOT: 'QUOTA_EXCEEDED', EACCES: 'PERMISSION', EPERM: 'PERMISSION', ENOTDIR: 'INVALID_KEY', EISDIR: 'INVALID_KEY', EROFS: 'PERMISSION' }[
      err?.code
    ] ?? 'IO';
  return storageError(`filesystem ${what} failed: ${err?.message ?? err}`, { reason, key, cause: err });
}

/** Splits and validates a key; returns its segments. */
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
 *
 * @param {string | URL} dir
 * @returns {FsStorage}
 */
export function fsStorage(dir) {
  if (dir instanceof URL) dir = fileURLToPath(dir);
  if (typeof dir !== 'string' || dir === '') {
    throw storageError('fsStorage: a directory path is required', { reason: 'INVALID_KEY' });
  }
  const root = resolve(dir);
  const pathOf = (parts) => join(root, ...parts);

  async function walk(base, rel, out) {
    let entries;
    try {
      entries = await readdir(base, { withFileTypes: true });
    } catch (err) {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return;
      throw err;
    }
    for (const e of entries) {
      const key = rel === '' ? e.name : `${rel}/${e.name}`;
      if (e.isDirectory()) await walk(join(base, e.name), key, out);
      else if (e.name.endsWith(TMP_SUFFIX)) await removeIfStale(join(base, e.name));
      else if (e.isFile() && !e.name.endsWith('~')) out.push(key);
    }
  }

  async function removeIfStale(path) {
    try {
      if (Date.now() - (await stat(path)).mtimeMs > STALE_TMP_MS) await unlink(path);
    } catch {
      // gone already, or not ours to delete: harmless either way
    }
  }

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

  async function read(key, parts) {
    try {
      const buf = await readFile(pathOf(parts));
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
      throw wrap(err, `get("${key}")`, key);
    }
  }

  return {
    dir: root,

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
     * lock, in this one). See `withIndexLock` for `ifAvailable` and `signal`.
     */
    async lock(name, fn, { ifAvailable = false, signal } = {}) {
      const parts = segments(`${name}/writer.lock`, 'lock');
      return withIndexLock(
        `fs:${root}/${name}`,
        async () => {
          let release;
          try {
            await mkdir(pathOf(parts.slice(0, -1)), { recursive: true });
            release = await acquireFileLock(`${pathOf(parts)}~`, { waitMs: ifAvailable ? 0 : Infinity, signal });
          } catch (err) {
            if (err?.name === 'AbortError' || err === signal?.reason) throw err;
            throw wrap(err, `lock("${name}")`, name);
          }
          if (!release) {
            const err = storageError(`index "${name}" is locked by another writer process`, { reason: 'LOCKED', key: name });
            /** @type {any} */ (err).code = 'CONFLICT';
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
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return;
        throw wrap(err, `delete("${key}")`, key);
      }
    },

    async list(prefix = '') {
      // Walk only the directory the prefix's complete segments name.
      const cut = prefix.lastIndexOf('/');
      const dirPart = cut < 0 ? '' : prefix.slice(0, cut);
      const dirParts = dirPart === '' ? [] : dirPart.split('/');
      if (dirParts.some((s) => s === '' || s === '.' || s === '..' || s.includes('\\') || s.includes('\0'))) return [];
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
