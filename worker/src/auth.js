// @ts-check
// Bearer API keys. The secret MEMDEX_API_KEYS is a JSON array of
//   { "sha256": "<hex of the key>", "namespaces": ["team-a:*", "agent:coder"],
//     "role": "read" | "write" | "admin", "name": "...",
//     "requestsPerMinute"?: n, "maxNamespaces"?: n }
// Only hashes are configured, so the secret leaks no usable key. A
// presented key is hashed and compared with every entry in constant time
// (no early exit, no string ===), so timing says nothing about how close a
// guess was or which entry matched.
import { ApiError } from './errors.js';

/**
 * @typedef {'read' | 'write' | 'admin'} Role
 * @typedef {object} KeyEntry
 * @property {string} sha256
 * @property {string[]} namespaces  exact names, or prefixes ending in `*` (`*` alone: all)
 * @property {Role} role
 * @property {string} name
 * @property {number} [requestsPerMinute]
 * @property {number} [maxNamespaces]
 * @typedef {KeyEntry & { id: string, hash: Uint8Array }} Principal  `id`: the hash, stable identity for quotas
 */

const RANK = { read: 1, write: 2, admin: 3 };
const HEX64 = /^[0-9a-f]{64}$/;

/** @type {{ text: string | undefined, keys: Principal[], error?: string } | null} */
let parsed = null;

/**
 * The configured keys (parsed once per distinct secret value).
 *
 * @param {string | undefined} text
 * @returns {Principal[]}
 */
export function configuredKeys(text) {
  if (!parsed || parsed.text !== text) {
    try {
      parsed = { text, keys: parseKeys(text) };
    } catch (err) {
      parsed = { text, keys: [], error: /** @type {Error} */ (err).message };
    }
  }
  // A broken secret is an operator error: fail loudly, never open up.
  if (parsed.error) throw new ApiError('INTERNAL', `the Worker's MEMDEX_API_KEYS is invalid: ${parsed.error}`);
  return parsed.keys;
}

/**
 * @param {string | undefined} text
 * @returns {Principal[]}
 */
export function parseKeys(text) {
  if (text === undefined || text.trim() === '') return [];
  const list = JSON.parse(text);
  if (!Array.isArray(list)) throw new Error('expected a JSON array of key entries');
  return list.map((e, i) => {
    const at = `entry ${i}`;
    if (e === null || typeof e !== 'object') throw new Error(`${at} must be an object`);
    for (const k of Object.keys(e)) {
      if (!['sha256', 'namespaces', 'role', 'name', 'requestsPerMinute', 'maxNamespaces'].includes(k)) {
        throw new Error(`${at}: unknown field "${k}"`);
      }
    }
    const sha = String(e.sha256 ?? '').toLowerCase();
    if (!HEX64.test(sha)) throw new Error(`${at}: sha256 must be 64 hex digits`);
    if (!Array.isArray(e.namespaces) || e.namespaces.some((/** @type {unknown} */ p) => typeof p !== 'string' || p === '')) {
      throw new Error(`${at}: namespaces must be an array of names or patterns`);
    }
    for (const p of e.namespaces) {
      if (p.indexOf('*') !== -1 && p.indexOf('*') !== p.length - 1) throw new Error(`${at}: "*" may only end a pattern ("${p}")`);
    }
    if (!(e.role in RANK)) throw new Error(`${at}: role must be read, write or admin`);
    for (const k of ['requestsPerMinute', 'maxNamespaces']) {
      if (e[k] !== undefined && !(Number.isInteger(e[k]) && e[k] > 0)) throw new Error(`${at}: ${k} must be a positive integer`);
    }
    return { ...e, sha256: sha, name: String(e.name ?? `key ${i}`), id: sha, hash: fromHex(sha) };
  });
}

/** @param {string} hex */
function fromHex(hex) {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** Lower-case hex SHA-256 of a string's UTF-8 bytes. */
export async function sha256Hex(/** @type {string} */ text) {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * The key presented by `request`, or a 401.
 *
 * @param {Request} request
 * @param {string | undefined} secret  MEMDEX_API_KEYS
 * @returns {Promise<Principal>}
 */
export async function authenticate(request, secret) {
  const keys = configuredKeys(secret);
  const header = request.headers.get('authorization') ?? '';
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  const challenge = { 'www-authenticate': 'Bearer realm="memdex"' };
  if (!m) {
    throw new ApiError('UNAUTHORIZED', 'missing API key: send "Authorization: Bearer <key>"', { headers: challenge });
  }
  const hash = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(m[1])));
  /** @type {Principal | undefined} */
  let found;
  for (const key of keys) {
    // Every entry is compared in full, whether or not one already matched.
    let diff = 0;
    for (let i = 0; i < 32; i++) diff |= hash[i] ^ key.hash[i];
    if (diff === 0 && !found) found = key;
  }
  if (!found) throw new ApiError('UNAUTHORIZED', 'invalid API key', { headers: { ...challenge, 'www-authenticate': 'Bearer realm="memdex", error="invalid_token"' } });
  return found;
}

/**
 * Whether `pattern` grants namespace `ns`: exact, or a prefix ending in `*`.
 *
 * @param {string} pattern
 * @param {string} ns
 */
export function matches(pattern, ns) {
  return pattern.endsWith('*') ? ns.startsWith(pattern.slice(0, -1)) : pattern === ns;
}

/** @param {Principal} key @param {string} ns */
export const mayAccess = (key, ns) => key.namespaces.some((p) => matches(p, ns));

/** @param {Principal} key @param {Role} role */
export const hasRole = (key, role) => RANK[key.role] >= RANK[role];

/**
 * Throws 403 unless `key` has `role` on namespace `ns` (or, without `ns`,
 * the role at all).
 *
 * @param {Principal} key
 * @param {Role} role
 * @param {string} [ns]
 */
export function authorize(key, role, ns) {
  if (ns !== undefined && !mayAccess(key, ns)) {
    throw new ApiError('FORBIDDEN', `this API key has no access to namespace "${ns}"`);
  }
  if (!hasRole(key, role)) {
    throw new ApiError('FORBIDDEN', `this API key has role "${key.role}"; this request needs "${role}"`);
  }
}

/**
 * The one namespace of a key that names exactly one and no pattern (MCP
 * then needs no namespace argument), else undefined.
 *
 * @param {Principal} key
 */
export function soleNamespace(key) {
  return key.namespaces.length === 1 && !key.namespaces[0].endsWith('*') ? key.namespaces[0] : undefined;
}
