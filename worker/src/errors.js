// @ts-check
// Errors of the HTTP API: `{ "error": { "code", "message", ... } }` with the
// package's MemdexError codes (index.d.ts `MemdexErrorCode`), so a client
// switches on the same codes whether it embeds memdex or calls this Worker.
// The HTTP status is derived from the code; a few codes (LIMIT) take the
// status of the limit that was hit.

/** @typedef {import('memdex').MemdexErrorCode} MemdexErrorCode */

// Statuses come from the package's error table (pkg-template/errors.js),
// the one source of codes, statuses and meanings.
import { ERRORS } from 'memdex/errors';

/** @type {Record<string, number>} */
const STATUS = Object.fromEntries(Object.entries(ERRORS).map(([code, e]) => [code, e.status]));

/** An error that becomes an HTTP error response. */
export class ApiError extends Error {
  /**
   * @param {MemdexErrorCode} code
   * @param {string} message
   * @param {{ status?: number, extra?: Record<string, unknown>, headers?: Record<string, string> }} [options]
   */
  constructor(code, message, options = {}) {
    super(message);
    this.code = code;
    this.status = options.status ?? STATUS[code] ?? 500;
    this.extra = options.extra;
    this.headers = options.headers;
  }
}

/** @param {string} message */
export const badRequest = (message) => new ApiError('BAD_REQUEST', message);

/**
 * A limit was exceeded. `limit` names the setting (MEMDEX_LIMITS key) so a
 * client can tell which; `status` is 413 for sizes, 400 for parameters,
 * 403 for quotas, 429 for the request rate.
 *
 * @param {string} limit
 * @param {string} message
 * @param {number} [status]
 * @param {Record<string, string>} [headers]
 */
export const limitError = (limit, message, status = 413, headers) =>
  new ApiError('LIMIT', message, { status, extra: { limit }, headers });

/** @param {string} code */
export const statusOf = (code) => STATUS[code] ?? 500;

/**
 * The error body for anything thrown: ApiErrors and MemdexErrors keep their
 * code; anything else is INTERNAL without details (they may hold internals).
 *
 * @param {unknown} err
 * @returns {{ status: number, body: { error: Record<string, unknown> }, headers?: Record<string, string> }}
 */
export function errorBody(err) {
  if (err instanceof ApiError) {
    return { status: err.status, body: { error: { code: err.code, message: err.message, ...err.extra } }, headers: err.headers };
  }
  const e = /** @type {any} */ (err);
  if (e && typeof e.code === 'string' && e.code in STATUS && typeof e.message === 'string') {
    const error = { code: e.code, message: e.message };
    if (Number.isInteger(e.added)) Object.assign(error, { added: e.added });
    // The engine's structured fields (`err.data`), as the package gives them.
    if (e.data && typeof e.data === 'object') Object.assign(error, { data: e.data });
    return { status: STATUS[e.code], body: { error } };
  }
  console.error('memdex worker: unexpected error', e?.stack ?? e);
  return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } };
}

/**
 * A plain-object error for results crossing the Durable Object RPC boundary
 * (custom properties of thrown errors do not survive it), with its HTTP
 * status when that is not the code's (a LIMIT of a parameter is 400).
 *
 * @param {unknown} err
 * @returns {{ code: string, message: string, added?: number, data?: Record<string, unknown>, status?: number }}
 */
export function errorRecord(err) {
  const { status, body } = errorBody(err);
  const error = /** @type {any} */ (body.error);
  return status === statusOf(error.code) ? error : { ...error, status };
}
