// @ts-check
// HTTP plumbing: JSON responses, request bodies read under a byte limit,
// JSON and NDJSON parsing that reports what is wrong, CORS.
import { ApiError, badRequest, limitError } from './errors.js';

/** @typedef {import('./config.js').Settings} Settings */

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * @param {unknown} body
 * @param {number} [status]
 * @param {Record<string, string>} [headers]
 */
export function json(body, status = 200, headers = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

/** UTF-8 length of a string without encoding it. */
export function utf8Length(/** @type {string} */ s) {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a surrogate pair: 4 bytes for 2 units
      i++;
    } else n += 2;
  }
  return n;
}

/**
 * The body's bytes, refused with 413 as soon as it exceeds `max` (counted
 * as bytes arrive: a lying or absent content-length does not get past).
 *
 * @param {Request} request
 * @param {number} max
 * @returns {Promise<Uint8Array>}
 */
export async function readBytes(request, max) {
  const declared = request.headers.get('content-length');
  const tooLarge = () => limitError('maxBodyBytes', `request body exceeds ${max} bytes`);
  if (declared !== null && Number(declared) > max) throw tooLarge();
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  /** @type {Uint8Array[]} */
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * The body as text (UTF-8, invalid sequences refused).
 *
 * @param {Request} request
 * @param {number} max
 */
export async function readText(request, max) {
  const bytes = await readBytes(request, max);
  try {
    return decoder.decode(bytes);
  } catch {
    throw badRequest('the request body is not valid UTF-8');
  }
}

/**
 * The media type of the body, lower case without parameters ('' if none).
 *
 * @param {Request} request
 */
export function mediaType(request) {
  return (request.headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Refuses a body whose declared type is not one of `allowed`. No
 * content-type is taken as JSON (curl without -H, fetch with a string body
 * sends text/plain, which is refused, so that a form post cannot write).
 *
 * @param {Request} request
 * @param {string[]} allowed
 */
export function requireType(request, allowed) {
  const type = mediaType(request);
  if (type === '' || allowed.includes(type)) return type || allowed[0];
  throw new ApiError('BAD_REQUEST', `content-type must be ${allowed.join(' or ')}, got "${type}"`, { status: 415 });
}

/**
 * @param {string} text
 * @param {string} [what]
 */
export function parseJson(text, what = 'the request body') {
  if (text.trim() === '') throw badRequest(`${what} is empty; expected JSON`);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`${what} is not valid JSON: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * NDJSON: one JSON value per line; blank lines are skipped. Every line is
 * parsed before anything is written, so a malformed line changes nothing.
 *
 * @param {string} text
 * @returns {{ value: unknown, bytes: number }[]}
 */
export function parseNdjson(text) {
  const out = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.trim() === '') continue;
    out.push({ value: parseJson(line, `NDJSON line ${i + 1}`), bytes: utf8Length(line) });
  }
  return out;
}

/** @param {unknown} v */
export const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// ---- CORS ---------------------------------------------------------------------

/**
 * Whether a browser page at `origin` may call this Worker.
 *
 * @param {string} origin
 * @param {Settings} s
 */
export function originAllowed(origin, s) {
  return s.corsOrigins === '*' || s.corsOrigins.includes(origin);
}

/**
 * CORS headers for a response to `request` (none when it has no allowed Origin).
 *
 * @param {Request} request
 * @param {Settings} s
 * @returns {Record<string, string>}
 */
export function corsHeaders(request, s) {
  const origin = request.headers.get('origin');
  if (!origin || !originAllowed(origin, s)) return {};
  return {
    'access-control-allow-origin': s.corsOrigins === '*' ? '*' : origin,
    'access-control-expose-headers': 'x-memdex-generation, x-memdex-served-by, retry-after, mcp-session-id',
    vary: 'Origin',
  };
}

/**
 * The answer to a CORS preflight.
 *
 * @param {Request} request
 * @param {Settings} s
 */
export function preflight(request, s) {
  const headers = corsHeaders(request, s);
  if (headers['access-control-allow-origin']) {
    headers['access-control-allow-methods'] = 'GET, POST, PUT, PATCH, DELETE, OPTIONS';
    headers['access-control-allow-headers'] = 'authorization, content-type, mcp-protocol-version, mcp-session-id';
    headers['access-control-max-age'] = '600';
  }
  return new Response(null, { status: 204, headers });
}

/**
 * `response` with `headers` added (responses from fetch are immutable).
 *
 * @param {Response} response
 * @param {Record<string, string>} headers
 */
export function withHeaders(response, headers) {
  if (Object.keys(headers).length === 0) return response;
  const out = new Response(response.body, response);
  for (const [k, v] of Object.entries(headers)) out.headers.set(k, v);
  return out;
}
