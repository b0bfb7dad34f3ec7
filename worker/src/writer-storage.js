// @ts-check
// The storage adapter of a namespace's writer (its Durable Object).
//
// - Blobs (immutable segment chunks and tombstones) go to Workers KV, from
//   where every isolate in every location reads them. Which blobs exist is
//   recorded in Durable Object storage (`b:<key>`), so `list` (garbage
//   collection, the lost-manifest check) is strongly consistent and costs
//   no KV list, whose results may lag.
// - The manifest (the commit point) lives in Durable Object storage, which
//   is strongly consistent and private to this one writer: `swap` is a
//   real compare-and-swap there (a storage transaction). The manifest is
//   then published to KV, so isolates can see the commit; KV's copy is a
//   cache that may lag, DO storage is the truth. Publishing is throttled
//   to one KV write per `publishMs` (KV accepts about one write per second
//   to a key; the latest manifest wins, an alarm backs the timer up).
// - Pending-commit markers live in DO storage too (`p:<key>`): garbage
//   collection reads them to spare a commit in progress.
// - Deleting a blob is deferred by `graceMs`: the key is hidden at once
//   (get/list behave as deleted) and removed from KV by the alarm later
//   (`gc:<key>` = due time), so a reader in another location whose KV still
//   shows an earlier manifest can load every blob of it. Without this a
//   reader could find a blob gone under a manifest that has not changed,
//   which the package rightly reports as CORRUPT.


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
 * @param {{ prefix: string, graceMs: number, publishMs?: number, wakeAt?: (time: number) => void }} options
 *   prefix: KV key prefix of this namespace; publishMs: at most one
 *   manifest write to KV per this many ms; wakeAt: asks for the alarm at
 *   `time` at the latest (deferred or failed publishes, due deletions).
 */
export function writerStorage(storage, kv, { prefix, graceMs, publishMs = 0, wakeAt = () => {} }) {
  const tag = (/** @type {string} */ key) =>
    key.endsWith('/manifest') || key === 'manifest' ? 'm:' : key.includes('/pending/') ? 'p:' : 'b:';

  const kvCall = async (/** @type {string} */ what, /** @type {() => Promise<any>} */ fn) => {
    try {
      return await fn();
    } catch (err) {
      throw storageError(`Workers KV ${what} failed: ${/** @type {Error} */ (err)?.message ?? err}`, err);
    }
  };

  // Manifest publication: at most one KV write per publishMs; a newer
  // manifest replaces one still waiting.
  let lastPublish = 0;
  /** @type {{ key: string, value: Uint8Array } | null} */
  let waiting = null;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;

  async function publishNow(/** @type {string} */ key, /** @type {Uint8Array} */ value) {
    lastPublish = Date.now();
    try {
      await kv.put(prefix + key, value);
    } catch (err) {
      // The commit is durable in DO storage already; readers that need it
      // now are forwarded to the writer (minGeneration). The alarm retries.
      console.error(`memdex writer: publishing ${key} to KV failed; the alarm retries`, err);
      wakeAt(Date.now() + 1000);
    }
  }

  async function publish(/** @type {string} */ key, /** @type {Uint8Array} */ value) {
    const wait = lastPublish + publishMs - Date.now();
    if (wait <= 0 && !timer) return publishNow(key, value);
    waiting = { key, value };
    if (!timer) {
      const delay = Math.max(0, wait);
      timer = setTimeout(() => {
        timer = null;
        const w = waiting;
        waiting = null;
        if (w) publishNow(w.key, w.value);
      }, delay);
      wakeAt(Date.now() + delay + 1000); // if this object is evicted first
    }
  }

  const hidden = async (/** @type {string} */ key) => graceMs > 0 && (await storage.get(`gc:${key}`)) !== undefined;

  return {
    async get(/** @type {string} */ key) {
      const t = tag(key);
      if (t !== 'b:') return bytes(await storage.get(t + key));
      if (await hidden(key)) return null;
      const v = await kvCall(`get("${key}")`, () => kv.get(prefix + key, 'arrayBuffer'));
      return v === null ? null : new Uint8Array(v);
    },

    async put(/** @type {string} */ key, /** @type {Uint8Array} */ value) {
      const copy = new Uint8Array(value);
      const t = tag(key);
      if (t === 'b:') {
        // The record first: a blob in KV is never unknown to garbage
        // collection (a record without its blob is deleted like the others).
        await storage.put(`b:${key}`, 1);
        await kvCall(`put("${key}")`, () => kv.put(prefix + key, copy));
        if (graceMs > 0) await storage.delete(`gc:${key}`);
        return;
      }
      await storage.put(t + key, copy);
      if (t === 'm:') await publish(key, copy);
    },

    async delete(/** @type {string} */ key) {
      const t = tag(key);
      if (t !== 'b:') {
        await storage.delete(t + key);
        if (t === 'm:') await kvCall(`delete("${key}")`, () => kv.delete(prefix + key));
        return;
      }
      if (graceMs === 0) {
        await kvCall(`delete("${key}")`, () => kv.delete(prefix + key));
        await storage.delete(`b:${key}`);
        return;
      }
      if ((await storage.get(`b:${key}`)) === undefined) return;
      const due = Date.now() + graceMs;
      await storage.put({ [`gc:${key}`]: due });
      await storage.delete(`b:${key}`);
      wakeAt(due);
    },

    async list(/** @type {string} */ listPrefix = '') {
      const keys = [];
      for (const t of ['b:', 'm:', 'p:']) {
        for (const k of (await storage.list({ prefix: t + listPrefix })).keys()) keys.push(k.slice(t.length));
      }
      return keys.sort();
    },

    async swap(/** @type {string} */ key, /** @type {Uint8Array | null} */ expected, /** @type {Uint8Array} */ value) {
      const t = tag(key);
      const copy = new Uint8Array(value);
      if (t === 'b:') {
        // Not a commit point; only the conformance suite swaps other keys.
        if (!same(await this.get(key), expected)) return false;
        await this.put(key, copy);
        return true;
      }
      // Atomic in the Durable Object: no other storage operation of this
      // object runs between the read and the write.
      const stored = await storage.transaction(async (txn) => {
        if (!same(bytes(await txn.get(t + key)), expected)) return false;
        await txn.put(t + key, copy);
        return true;
      });
      if (stored && t === 'm:') await publish(key, copy);
      return stored;
    },

    /**
     * Publishes the manifest of index `name` to KV when KV's copy differs
     * (a deferred or failed publish, a restart between swap and publish);
     * adopts KV's manifest when DO storage has none (an index whose DO
     * storage was reset; its older blobs are then unknown to garbage
     * collection and stay). Returns the manifest.
     */
    async reconcile(/** @type {string} */ name) {
      const key = `${name}/manifest`;
      const mine = bytes(await storage.get(`m:${key}`));
      const published = await kvCall(`get("${key}")`, () => kv.get(prefix + key, 'arrayBuffer'));
      const theirs = published === null ? null : new Uint8Array(published);
      if (mine && !same(mine, theirs)) {
        if (timer) clearTimeout(timer);
        timer = null;
        waiting = null;
        await publishNow(key, mine);
      }
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
