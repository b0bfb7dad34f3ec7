// A pass-through storage adapter that remembers the size of every value it
// reads or writes, so the index panel can show how many bytes the current
// commit occupies in IndexedDB without reading 50 MB back: opening an index
// reads the manifest and every blob it references anyway, and commits write
// through here. navigator.storage.estimate() only knows the whole origin
// (service worker cache included) and is coarse.
//
// The manifest layout (docs/FORMAT.md): a blob framed as `MDEX`, u32
// version, u8 kind, a UTF-8 JSON payload, then a CRC32C; the JSON names the
// segments' chunk and tombstone keys, the generation and the commit id,
// whose first 12 hex digits are the commit time in ms.

/** @typedef {import('../pkg/storage.js').StorageAdapter} StorageAdapter */

/**
 * What a committed index occupies, as this adapter saw it.
 * @typedef {object} Usage
 * @property {number} bytes
 * @property {boolean} complete
 * @property {number} generation
 * @property {number} segments
 * @property {Date | null} committedAt
 */

/**
 * The fields of a manifest's JSON payload this page reads.
 * @typedef {object} Manifest
 * @property {number} generation
 * @property {string} [commit]
 * @property {{ chunks?: string[], deletes?: string | null }[]} [segments]
 */

/**
 * @typedef {StorageAdapter & {
 *   usage(name: string): Usage | null,
 *   forget(name: string): void,
 * }} MeteredStorage
 */

/**
 * @param {StorageAdapter} inner
 * @returns {MeteredStorage}
 */
export function meteredStorage(inner) {
  /** @type {Map<string, number>} key -> bytes, of values this adapter saw */
  const sizes = new Map();
  /** @type {Map<string, Manifest>} manifest key -> its decoded JSON */
  const manifests = new Map();
  /**
   * @template {Uint8Array | ArrayBuffer | null | undefined} V
   * @param {string} key
   * @param {V} value
   */
  const track = (key, value) => {
    if (!value) return value;
    sizes.set(key, value.byteLength);
    if (key.endsWith('/manifest')) {
      const parsed = parseManifest(value instanceof Uint8Array ? value : new Uint8Array(value));
      if (parsed) manifests.set(key, parsed);
    }
    return value;
  };
  /** @type {MeteredStorage} */
  const adapter = {
    get: async (key) => track(key, await inner.get(key)),
    put: async (key, value) => {
      await inner.put(key, value);
      track(key, value);
    },
    swap: async (key, expected, value) => {
      const stored = await inner.swap(key, expected, value);
      if (stored) track(key, value);
      return stored;
    },
    delete: async (key) => {
      await inner.delete(key);
      sizes.delete(key);
    },
    list: (prefix) => inner.list(prefix),
    /**
     * Bytes, generation and commit time of index `name` as last read or
     * written through this adapter; null before its manifest was seen.
     * `complete` is false if a referenced blob was never seen here (written
     * by another tab or the worker and not read back yet).
     */
    usage(name) {
      const manifestKey = `${name}/manifest`;
      const manifest = manifests.get(manifestKey);
      if (!manifest) return null;
      let total = sizes.get(manifestKey) ?? 0;
      let complete = true;
      for (const seg of manifest.segments ?? []) {
        for (const key of [...(seg.chunks ?? []), seg.deletes]) {
          if (!key) continue;
          const n = sizes.get(key);
          if (n === undefined) complete = false;
          else total += n;
        }
      }
      const time = typeof manifest.commit === 'string' ? parseInt(manifest.commit.slice(0, 12), 16) : NaN;
      return {
        bytes: total,
        complete,
        generation: manifest.generation,
        segments: manifest.segments?.length ?? 0,
        committedAt: Number.isFinite(time) ? new Date(time) : null,
      };
    },
    /** Forgets an index that was dropped (snapshot import, reset). */
    forget(name) {
      for (const key of [...sizes.keys()]) if (key.startsWith(`${name}/`)) sizes.delete(key);
      manifests.delete(`${name}/manifest`);
    },
  };
  // Only an adapter that has its own cross-process lock passes one on;
  // otherwise memdex takes Web Locks (withIndexLock), as for IndexedDB.
  if (typeof inner.lock === 'function') adapter.lock = inner.lock.bind(inner);
  return adapter;
}

/**
 * The JSON payload of a manifest blob, or null if it is not one.
 * @param {Uint8Array} bytes
 * @returns {Manifest | null}
 */
export function parseManifest(bytes) {
  if (bytes.byteLength < 13) return null;
  const magic = String.fromCharCode(bytes[0], bytes[1], bytes[2], bytes[3]);
  if (magic !== 'MDEX' || bytes[8] !== 1) return null;
  try {
    return JSON.parse(new TextDecoder().decode(bytes.subarray(9, bytes.byteLength - 4)));
  } catch {
    return null;
  }
}
