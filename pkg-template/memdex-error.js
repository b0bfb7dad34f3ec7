// `MemdexError`, the one error class of every memdex entrance, and the small
// helpers every module of the package uses to raise it.

/**
 * Structured facts of an engine error: the Rust error variant's fields
 * (SCHEMA `{ field, reason }`, INVALID_QUERY `{ position, reason }`, LIMIT
 * `{ what, limit, got }`, ...; see `MemdexErrorData` in index.d.ts).
 * Callers switch on `code` and read these, never the message text.
 * @typedef {import('./index.js').MemdexErrorData} MemdexErrorData
 */

/** An error raised by memdex, with a stable machine-readable `code`. */
export class MemdexError extends Error {
  /** @type {string | undefined} a storage adapter's own code (`QUOTA_EXCEEDED`, ...), when it gave one */
  reason = undefined;
  /** @type {number | undefined} documents added before the rejected one (`addMany`, `addAll`) */
  added = undefined;
  /** @type {{ pid?: number, host?: string, since?: string } | undefined} the lock's holder (`LOCKED`) */
  holder = undefined;
  /** @type {MemdexErrorData | undefined} the engine error's fields (see `MemdexErrorData`) */
  data = undefined;

  /**
   * @param {string} code
   * @param {string} message
   * @param {ErrorOptions} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'MemdexError';
    /** @type {string} */
    this.code = code;
  }
}

/** @param {string} message */
export const usage = (message) => new MemdexError('USAGE', message);

/**
 * Whether `v` is a plain object (not null, not an array).
 * @param {unknown} v
 * @returns {v is Record<string, unknown>}
 */
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A value as an error message names it (strings quoted and cut at 40 chars).
 * @param {unknown} v
 */
export function describe(v) {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}
