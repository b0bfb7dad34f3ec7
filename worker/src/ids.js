// @ts-check
// Document ids and namespace names.
//
// The REST API stores document `x` of namespace `ns` under the engine id
// `ns + U+001F + x`, the convention of the package's memory tools
// (pkg-template/tools-ops.js): then a memory stored over MCP under id `x`
// and a document PUT at /v1/ns/ns/docs/x are the same document, whichever
// surface wrote it. U+001F cannot occur in ids (control characters are
// refused), so the mapping is one to one. Responses show `x`.
import { badRequest } from './errors.js';

export const SEP = '\u001f';
export const NS_RE = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
export const MAX_ID_CHARS = 200; // as the tools' id schema
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** @param {string} ns */
export function checkNamespace(ns) {
  if (!NS_RE.test(ns)) {
    throw badRequest(`namespace "${ns.slice(0, 140)}" is not valid: 1 to 128 characters of A-Z a-z 0-9 . _ : @ -, starting with a letter or digit`);
  }
  return ns;
}

/** @param {unknown} id */
export function checkId(id) {
  if (typeof id !== 'string' || id.length === 0) throw badRequest('a document id must be a non-empty string');
  if (id.length > MAX_ID_CHARS) throw badRequest(`a document id has at most ${MAX_ID_CHARS} characters`);
  if (CONTROL.test(id)) throw badRequest('a document id must not contain control characters');
  return id;
}

/** @param {string} ns @param {string} id */
export const engineId = (ns, id) => ns + SEP + id;

/** The id a client sees for engine id `key` of namespace `ns`. */
export function publicId(/** @type {string} */ ns, /** @type {string} */ key) {
  return key.startsWith(ns + SEP) ? key.slice(ns.length + 1) : key;
}

// KV layout: namespace `ns` is the index `idx` under the prefix `ns/<ns>/`
// (keys `ns/<ns>/idx/manifest`, `ns/<ns>/idx/blob/...`; docs/FORMAT.md).
export const INDEX_NAME = 'idx';
export const kvPrefix = (/** @type {string} */ ns) => `ns/${ns}/`;

/**
 * Links as stored: `to` is an engine id of the same namespace, so `expand`
 * follows them. Other shapes pass through for the engine to reject.
 * @param {string} ns @param {unknown} links
 */
export function engineLinks(ns, links) {
  if (!Array.isArray(links)) return links;
  return links.map((l) => (l && typeof l === 'object' && typeof l.to === 'string' ? { ...l, to: engineId(ns, l.to) } : l));
}

/** Links as the client wrote them. @param {string} ns @param {unknown} links */
export function publicLinks(ns, links) {
  if (!Array.isArray(links)) return links;
  return links.map((l) => (l && typeof l === 'object' && typeof l.to === 'string' ? { ...l, to: publicId(ns, l.to) } : l));
}

/**
 * Whether a filter's namespace condition (one name, a list, a trailing
 * `*`, `{ prefix }`: the package's NamespaceFilter) takes in namespace
 * `ns`; undefined for a shape it does not have (the engine refuses those
 * in its own words).
 *
 * @param {unknown} cond
 * @param {string} ns
 * @returns {boolean | undefined}
 */
export function namespaceCovers(cond, ns) {
  const one = (/** @type {unknown} */ c) => (typeof c !== 'string' ? undefined : c.endsWith('*') ? ns.startsWith(c.slice(0, -1)) : c === ns);
  const any = (/** @type {unknown[]} */ list, /** @type {(c: unknown) => boolean | undefined} */ f) => {
    const r = list.map(f);
    return r.includes(undefined) ? undefined : r.includes(true);
  };
  if (Array.isArray(cond)) return any(cond, one);
  if (cond !== null && typeof cond === 'object' && Object.keys(cond).length === 1 && 'prefix' in cond) {
    const p = /** @type {{ prefix: unknown }} */ (cond).prefix;
    const starts = (/** @type {unknown} */ c) => (typeof c === 'string' ? ns.startsWith(c) : undefined);
    return Array.isArray(p) ? any(p, starts) : starts(p);
  }
  return one(cond);
}
