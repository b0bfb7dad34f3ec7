// memoryStorage(): a Map-backed storage adapter for tests and ephemeral
// indexes. Values are copied on put and on get, so neither the caller nor
// memdex can change stored bytes after the fact. Lives as long as the object.
import { LOCAL_PART_BYTES, checkKey, copyBytes, sameBytes } from './util.js';

/**
 * @typedef {import('../storage.js').MemoryStorage} MemoryStorage
 */

/**
 * Creates an empty in-memory storage.
 *
 * @returns {MemoryStorage}
 */
export function memoryStorage() {
  /** @type {Map<string, Uint8Array>} */
  const map = new Map();
  return {
    partBytes: LOCAL_PART_BYTES,
    async get(key) {
      checkKey(key, 'get');
      const value = map.get(key);
      return value === undefined ? null : value.slice();
    },
    async put(key, value) {
      checkKey(key, 'put');
      map.set(key, copyBytes(value, key));
    },
    async delete(key) {
      checkKey(key, 'delete');
      map.delete(key);
    },
    async swap(key, expected, value) {
      checkKey(key, 'swap');
      const bytes = copyBytes(value, key);
      // No await between the comparison and the write: atomic.
      if (!sameBytes(map.get(key) ?? null, expected ?? null)) return false;
      map.set(key, bytes);
      return true;
    },
    async list(prefix = '') {
      const keys = [];
      for (const key of map.keys()) if (key.startsWith(prefix)) keys.push(key);
      return keys.sort();
    },
    get size() {
      return map.size;
    },
    get bytes() {
      let total = 0;
      for (const value of map.values()) total += value.byteLength;
      return total;
    },
    clear() {
      map.clear();
    },
  };
}
