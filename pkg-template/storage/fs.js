// fsStorage(dir): the Node.js filesystem storage adapter. One file per key
// under `dir`; keys are `/`-separated relative paths (`idx/manifest`,
// `idx/blob/<hash>`), the same layout as the native Rust `FsStorage`, so an
// index built by the native CLI opens in Node and vice versa.
//
// - Keys with empty, `.` or `..` segments, backslashes or NUL bytes are
//   rejected (no escaping `dir`), as are names ending in `.tmp~`.
// - `put` is atomic and durable: write a temporary file next to the target,
//   fsync it, rename it over the target, fsync the directory. A crash leaves
//   the old or the new value, never a torn one.
// - `list(prefix)` walks only the directory the prefix points into.
// - A key cannot be both a value and a "directory" of other keys (`a` and
//   `a/b`): the filesystem forbids it, and so does `put`.
import { mkdir, open, readdir, readFile, rename, rm, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { copyBytes, storageError } from './util.js';

/**
 * @typedef {import('../storage.js').FsStorage} FsStorage
 */

const TMP_SUFFIX = '.tmp~';

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
  if (key.endsWith(TMP_SUFFIX)) {
    throw storageError(`${op}("${key}"): keys may not end in "${TMP_SUFFIX}" (reserved for temporary files)`, {
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
      else if (e.isFile() && !e.name.endsWith(TMP_SUFFIX)) out.push(key);
    }
  }

  return {
    dir: root,

    async get(key) {
      const parts = segments(key, 'get');
      try {
        const buf = await readFile(pathOf(parts));
        return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
      } catch (err) {
        if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return null;
        throw wrap(err, `get("${key}")`, key);
      }
    },

    async put(key, value) {
      const parts = segments(key, 'put');
      const bytes = copyBytes(value, key);
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
