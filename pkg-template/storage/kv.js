// kvStorage(binding): the Cloudflare Workers KV storage adapter. `binding`
// is a KV namespace binding (`env.MEMDEX_KV`); `prefix` namespaces the keys
// so several indexes or apps can share one KV namespace.
//
// Consistency: Workers KV is eventually consistent. A write is visible at
// once in the location that made it, but other locations may read the old
// value (or miss a new key) for up to about 60 seconds, and `list` may lag
// behind `put`/`delete`. memdex's blobs are immutable and content-addressed,
// so a stale read of a blob cannot return wrong bytes; only the manifest
// changes. That is why, in the memdex Worker, one Durable Object per
// namespace is the single writer: it serializes commits and keeps the
// current manifest generation, so a lagging KV read can at worst surface as
// a CONFLICT (generation mismatch), never as a lost update. Readers in other
// isolates may see the previous commit for a while.
//
// `swap` (the manifest's compare-and-swap) is a read, a comparison and a
// write: KV has no atomic conditional write, so it is atomic only under a
// single writer per index, which the Durable Object provides. Without one,
// two writers may both store a manifest; use KV through a Durable Object.
//
// Limits: KV keys are at most 512 bytes; values at most 25 MiB (memdex blobs
// stay at 4 MiB or less).
import { checkKey, copyBytes, releaseBytes, sameBytes, storageError } from './util.js';

/**
 * @typedef {import('../storage.js').KVNamespaceLike} KVNamespaceLike
 * @typedef {import('../storage.js').KVStorageOptions} KVStorageOptions
 * @typedef {import('../storage.js').KVStorage} KVStorage
 */

const MAX_KEY_BYTES = 512;

/**
 * A KV failure as a storage error (one already is passes as it is).
 * @param {unknown} thrown
 * @param {string} what
 * @param {string} [key]
 */
function wrap(thrown, what, key) {
  const err = /** @type {{ code?: unknown, message?: string } | null | undefined} */ (thrown);
  if (err && err.code === 'STORAGE') return err;
  const msg = err?.message ?? String(err);
  const reason = /too many requests|rate limit|429/i.test(msg) ? 'RATE_LIMITED' : /too large|413/i.test(msg) ? 'TOO_LARGE' : 'IO';
  return storageError(`Workers KV ${what} failed: ${msg}`, { reason, key, cause: thrown });
}

/**
 * Creates a storage adapter over a Workers KV namespace binding.
 *
 * @param {KVNamespaceLike} binding
 * @param {KVStorageOptions} [options]
 * @returns {KVStorage}
 */
export function kvStorage(binding, { prefix = '' } = {}) {
  if (!binding || typeof binding.get !== 'function' || typeof binding.list !== 'function') {
    throw storageError('kvStorage: expected a Workers KV namespace binding (env.<BINDING>)', { reason: 'INVALID_BINDING' });
  }
  const encoder = new TextEncoder();
  const full = (/** @type {string} */ key, /** @type {string} */ op) => {
    checkKey(key, op);
    const k = prefix + key;
    if (encoder.encode(k).byteLength > MAX_KEY_BYTES) {
      throw storageError(`Workers KV ${op}("${k}"): key longer than ${MAX_KEY_BYTES} bytes`, { reason: 'INVALID_KEY', key });
    }
    return k;
  };

  return {
    prefix,

    async get(key) {
      const k = full(key, 'get');
      let value;
      try {
        value = await binding.get(k, 'arrayBuffer');
      } catch (err) {
        throw wrap(err, `get("${k}")`, key);
      }
      return value === null || value === undefined ? null : new Uint8Array(value);
    },

    async put(key, value) {
      const k = full(key, 'put');
      const bytes = copyBytes(value, key);
      try {
        await binding.put(k, bytes);
      } catch (err) {
        throw wrap(err, `put("${k}", ${bytes.byteLength} bytes)`, key);
      }
    },

    async delete(key) {
      const k = full(key, 'delete');
      try {
        await binding.delete(k);
      } catch (err) {
        throw wrap(err, `delete("${k}")`, key);
      }
    },

    // Each value `get` gives is a fresh buffer of its own: workerd counts
    // it against the isolate until V8 collects it, and a lazy search reads
    // megabytes of them.
    release: releaseBytes,

    async swap(key, expected, value) {
      const current = await this.get(key);
      if (!sameBytes(current, expected ?? null)) return false;
      await this.put(key, value);
      return true;
    },

    async list(listPrefix = '') {
      const keys = [];
      let cursor;
      try {
        // KV returns at most 1000 keys per call; follow the cursor.
        for (;;) {
          const page = await binding.list({ prefix: prefix + listPrefix, cursor });
          for (const { name } of page.keys) keys.push(name.slice(prefix.length));
          if (page.list_complete || !page.cursor) break;
          cursor = page.cursor;
        }
      } catch (err) {
        throw wrap(err, `list("${prefix + listPrefix}")`, listPrefix);
      }
      return keys.sort();
    },
  };
}
