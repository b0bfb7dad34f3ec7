// @ts-check
// The storage adapter of a namespace's writer (its Durable Object).
//
// - Blobs (immutable segment chunks and tombstones) go to Workers KV, from
//   where every isolate in every location reads them.
// - The manifest (the commit point) lives in Durable Object storage, which
//   is strongly consistent and private to this one writer: `swap` is a
//   real compare-and-swap there (a storage transaction). After the swap
//   the manifest is published to KV, so isolates can see the new commit.
//   KV's copy is a cache that may lag; DO storage is the truth.
// - Pending-commit markers live in DO storage too: garbage collection reads
//   them to spare a commit in progress, and KV's eventually consistent
//   `list` could miss one.
// - Deleting a blob is deferred by `graceMs`: the key is hidden at once
//   (get/list behave as deleted) and removed from KV by the alarm later, so
//   a reader in another location whose KV still shows the previous
//   manifest can load every blob of it. Without this a reader could find
//   a blob gone under a manifest that has not changed, which the package
//   rightly reports as CORRUPT.
//
// DO storage keys: `m:<key>` manifest, `p:<key>` pending markers,
// `gc:<key>` time at which a hidden blob is deleted from KV.

/** @typedef {import('./env.js').DurableObjectStorage} DurableObjectStorage */
/** @typedef {import('./env.js').KVNamespace} KVNamespace */

/** @param {Uint8Array | null | undefined} a @param {Uint8Array | null | undefined} b */
function same(a, b) {
  if (!a || !b) return !a && !b;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** @param {unknown} v @returns {Uint8Array | null} */
function bytes(v) {
  if (v === undefined || v === null) return null;
  if (v instanceof Uint8Array) return v;
  if (v instanceof ArrayBuffer) return new Uint8Array(v);
  if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeError('stored value is not bytes');
}

/** @param {string} message @param {unknown} cause */
function storageError(message, cause) {
  return Object.assign(new Error(message, { cause }), { code: 'STORAGE', reason: 'IO' });
}

/**
 * @param {DurableObjectStorage} storage
 * @param {KVNamespace} kv
 * @param {{ prefix: string, graceMs: number, onPublishFailed?: () => void }} options
 *   prefix: KV key prefix of this namespace; onPublishFailed: called when a
 *   committed manifest could not be copied to KV (the alarm retries).
 */
export function writerStorage(storage, kv, { prefix, graceMs, onPublishFailed }) {
  const strong = (/** @type {string} */ key) =>
    key.endsWith('/manifest') || key === 'manifest' ? `m:${key}` : key.includes('/pending/') ? `p:${key}` : null;

  const kvCall = async (/** @type {string} */ what, /** @type {() => Promise<any>} */ fn) => {
    try {
      return await fn();
    } catch (err) {
      throw storageError(`Workers KV ${what} failed: ${/** @type {Error} */ (err)?.message ?? err}`, err);
    }
  };

  async function publish(/** @type {string} */ key, /** @type {Uint8Array} */ value) {
    try {
      await kv.put(prefix + key, value);
    } catch (err) {
      // The commit is durable in DO storage already; readers will see it
      // once the copy lands. Readers that need it now are forwarded to the
      // writer (minGeneration), so nothing acknowledged is unreadable.
      console.error(`memdex writer: publishing ${key} to KV failed; the alarm retries`, err);
      onPublishFailed?.();
    }
  }

  return {
    async get(/** @type {string} */ key) {
      const s = strong(key);
      if (s) return bytes(await storage.get(s));
      if (graceMs > 0 && (await storage.get(`gc:${key}`)) !== undefined) return null;
      const v = await kvCall(`get("${key}")`, () => kv.get(prefix + key, 'arrayBuffer'));
      return v === null ? null : new Uint8Array(v);
    },

    async put(/** @type {string} */ key, /** @type {Uint8Array} */ value) {
      const copy = new Uint8Array(value);
      const s = strong(key);
      if (s) {
        await storage.put(s, copy);
        if (s.startsWith('m:')) await publish(key, copy);
        return;
      }
      await kvCall(`put("${key}")`, () => kv.put(prefix + key, copy));
      if (graceMs > 0) await storage.delete(`gc:${key}`);
    },

    async delete(/** @type {string} */ key) {
      const s = strong(key);
      if (s) {
        await storage.delete(s);
        if (s.startsWith('m:')) await kvCall(`delete("${key}")`, () => kv.delete(prefix + key));
        return;
      }
      if (graceMs === 0) {
        await kvCall(`delete("${key}")`, () => kv.delete(prefix + key));
        return;
      }
      if ((await storage.get(`gc:${key}`)) === undefined) {
        const due = Date.now() + graceMs;
        await storage.put(`gc:${key}`, due);
        const alarm = await storage.getAlarm();
        if (alarm === null || alarm > due) await storage.setAlarm(due);
      }
    },

    async list(/** @type {string} */ listPrefix = '') {
      const keys = new Set();
      for (const tag of ['m:', 'p:']) {
        for (const k of (await storage.list({ prefix: tag + listPrefix })).keys()) keys.add(k.slice(tag.length));
      }
      const hidden = graceMs > 0 ? new Set([...(await storage.list({ prefix: `gc:${listPrefix}` })).keys()].map((k) => k.slice(3))) : new Set();
      /** @type {string | undefined} */
      let cursor;
      for (;;) {
        const page = await kvCall(`list("${listPrefix}")`, () => kv.list({ prefix: prefix + listPrefix, cursor }));
        for (const { name } of page.keys) {
          const k = name.slice(prefix.length);
          // KV also holds the published manifest copy; DO storage answers for it.
          if (!strong(k) && !hidden.has(k)) keys.add(k);
        }
        if (page.list_complete || !page.cursor) break;
        cursor = page.cursor;
      }
      return [...keys].sort();
    },

    async swap(/** @type {string} */ key, /** @type {Uint8Array | null} */ expected, /** @type {Uint8Array} */ value) {
      const s = strong(key);
      const copy = new Uint8Array(value);
      if (!s) {
        // Not a commit point; only the conformance suite swaps other keys.
        if (!same(await this.get(key), expected)) return false;
        await this.put(key, copy);
        return true;
      }
      // Atomic in the Durable Object: no other storage operation of this
      // object runs between the read and the write.
      const stored = await storage.transaction(async (txn) => {
        if (!same(bytes(await txn.get(s)), expected)) return false;
        await txn.put(s, copy);
        return true;
      });
      if (stored && s.startsWith('m:')) await publish(key, copy);
      return stored;
    },

    /**
     * Copies the manifest of index `name` to KV when KV's copy differs
     * (after a failed publish, or a restart between swap and publish);
     * adopts KV's manifest when DO storage has none (a namespace written
     * before its manifest moved to DO storage, or whose DO storage was
     * reset). Returns the manifest.
     */
    async reconcile(/** @type {string} */ name) {
      const key = `${name}/manifest`;
      const mine = bytes(await storage.get(`m:${key}`));
      const published = await kvCall(`get("${key}")`, () => kv.get(prefix + key, 'arrayBuffer'));
      const theirs = published === null ? null : new Uint8Array(published);
      if (mine && !same(mine, theirs)) await publish(key, mine);
      if (!mine && theirs) await storage.put(`m:${key}`, theirs);
      return mine ?? theirs;
    },

    /** Deletes hidden blobs that are due from KV; resolves to the next due time, if any. */
    async sweep(now = Date.now()) {
      /** @type {number | null} */
      let next = null;
      for (const [gcKey, due] of await storage.list({ prefix: 'gc:' })) {
        if (/** @type {number} */ (due) <= now) {
          await kvCall(`delete("${gcKey.slice(3)}")`, () => kv.delete(prefix + gcKey.slice(3)));
          await storage.delete(gcKey);
        } else if (next === null || /** @type {number} */ (due) < next) next = /** @type {number} */ (due);
      }
      return next;
    },
  };
}
