// Helpers shared by the storage adapters (internal; not an entry point).

/**
 * The `partBytes` of the local adapters (memory, fs, IndexedDB), whose reads
 * cost bytes more than calls: a lazy search then fetches a third of what the
 * default (128 KiB, for remote stores such as Workers KV) makes it fetch.
 * The measurements: `LOCAL_PART_BYTES` in src/index/serialize/layout.rs.
 */
export const LOCAL_PART_BYTES = 32 * 1024;

/**
 * An Error from a storage adapter. `code` is always `'STORAGE'` (the same
 * stable code memdex uses for storage failures, so the package turns it into
 * a `MemdexError` unchanged); `reason` says which kind of failure it was.
 *
 * @param {string} message
 * @param {{ reason?: string, key?: string, cause?: unknown }} [options]
 * @returns {Error & { code: 'STORAGE', reason: string, key?: string }}
 */
export function storageError(message, { reason = 'IO', key, cause } = {}) {
  /** @type {Error & { code: 'STORAGE', reason: string, key?: string }} */
  const err = Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { code: /** @type {const} */ ('STORAGE'), reason });
  err.name = 'MemdexStorageError';
  if (key !== undefined) err.key = key;
  return err;
}

/**
 * An exact, private copy of `value` as a Uint8Array (a view onto a larger
 * buffer, e.g. wasm memory, is not stored whole).
 *
 * @param {Uint8Array | ArrayBuffer | ArrayBufferView} value
 * @param {string} key
 * @returns {Uint8Array}
 */
export function copyBytes(value, key) {
  // `new Uint8Array(u8)` copies (Buffer#slice would not: it is a view).
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof ArrayBuffer) return new Uint8Array(value.slice(0));
  if (ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength));
  }
  throw storageError(`put("${key}"): value must be a Uint8Array, ArrayBuffer or typed array`, {
    reason: 'INVALID_VALUE',
    key,
  });
}

/**
 * Checks a key is a non-empty string.
 *
 * @param {unknown} key
 * @param {string} op
 */
export function checkKey(key, op) {
  if (typeof key !== 'string' || key.length === 0) {
    throw storageError(`${op}: key must be a non-empty string`, { reason: 'INVALID_KEY' });
  }
}

/**
 * The smallest string greater than every string that starts with `prefix`
 * (comparing UTF-16 code units, as IndexedDB does), or `undefined` if there
 * is none (prefix made only of U+FFFF).
 *
 * @param {string} prefix
 * @returns {string | undefined}
 */
export function prefixEnd(prefix) {
  let end = prefix;
  while (end.length > 0) {
    const last = end.charCodeAt(end.length - 1);
    if (last < 0xffff) return end.slice(0, -1) + String.fromCharCode(last + 1);
    end = end.slice(0, -1);
  }
  return undefined;
}

/**
 * Whether two byte arrays (or two nulls) hold the same bytes.
 *
 * @param {Uint8Array | null | undefined} a
 * @param {Uint8Array | null | undefined} b
 * @returns {boolean}
 */
export function sameBytes(a, b) {
  if (a == null || b == null) return a == null && b == null;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Detaches the buffer of a value an adapter's `get` gave, once memdex has
 * copied it (the adapters' `release`): a fresh buffer from KV or IndexedDB
 * is freed at once instead of at the next garbage collection, which V8
 * runs only after tens of MiB of such buffers. A no-op where
 * `ArrayBuffer#transfer` is missing.
 * @param {Uint8Array | ArrayBuffer} value
 */
export function releaseBytes(value) {
  const buffer = /** @type {ArrayBuffer & { transfer?: (n: number) => ArrayBuffer, detached?: boolean }} */ (value instanceof ArrayBuffer ? value : value.buffer);
  if (buffer.transfer && !buffer.detached) buffer.transfer(0);
}
