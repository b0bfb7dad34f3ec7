// @ts-check
// The routing table: every route, its handler and the role it needs. The
// OpenAPI document (openapi.js) describes the same table, and a test checks
// that they agree route for route.
import { ApiError, badRequest } from './errors.js';
import { deleteDoc, deleteWhere, getDoc, patchDoc, postDocs, putDoc } from './handlers/docs.js';
import { exportSnapshot, health, namespaces, search, stats, suggest } from './handlers/read.js';
import { mcp } from './handlers/mcp.js';
import { createNamespace, describeNamespace } from './handlers/ns.js';
import { openapiResponse } from './openapi.js';

/** @typedef {import('./context.js').Context} Context */
/** @typedef {import('./auth.js').Role} Role */

/**
 * @typedef {object} Route
 * @property {string} method
 * @property {string} path  segments; `:name` is a parameter (one segment, percent-decoded)
 * @property {(c: Context) => Promise<Response>} handler
 * @property {Role | null} role  null: public
 */

/** @type {Route[]} */
export const ROUTES = [
  { method: 'GET', path: '/health', handler: health, role: null },
  { method: 'GET', path: '/v1/openapi.json', handler: openapiResponse, role: null },
  { method: 'GET', path: '/v1/namespaces', handler: namespaces, role: 'read' },
  { method: 'PUT', path: '/v1/ns/:ns', handler: createNamespace, role: 'write' },
  { method: 'GET', path: '/v1/ns/:ns', handler: describeNamespace, role: 'read' },
  { method: 'POST', path: '/v1/ns/:ns/docs', handler: postDocs, role: 'write' },
  { method: 'PUT', path: '/v1/ns/:ns/docs/:id', handler: putDoc, role: 'write' },
  { method: 'PATCH', path: '/v1/ns/:ns/docs/:id', handler: patchDoc, role: 'write' },
  { method: 'GET', path: '/v1/ns/:ns/docs/:id', handler: getDoc, role: 'read' },
  { method: 'DELETE', path: '/v1/ns/:ns/docs/:id', handler: deleteDoc, role: 'write' },
  { method: 'POST', path: '/v1/ns/:ns/delete', handler: deleteWhere, role: 'write' },
  { method: 'GET', path: '/v1/ns/:ns/search', handler: search, role: 'read' },
  { method: 'POST', path: '/v1/ns/:ns/search', handler: search, role: 'read' },
  { method: 'GET', path: '/v1/ns/:ns/suggest', handler: suggest, role: 'read' },
  { method: 'GET', path: '/v1/ns/:ns/stats', handler: stats, role: 'read' },
  { method: 'GET', path: '/v1/ns/:ns/export', handler: exportSnapshot, role: 'admin' },
  // Read keys may call the read tools; writes need a write key (handlers/mcp.js).
  { method: 'POST', path: '/mcp', handler: mcp, role: 'read' },
];

const compiled = ROUTES.map((route) => ({ route, parts: route.path.split('/').slice(1) }));

/**
 * The route for `method` and `pathname` and its decoded parameters; 404 for
 * an unknown path, 405 (with Allow) for a known path and another method,
 * 400 for a parameter that is not valid percent-encoding.
 *
 * @param {string} method
 * @param {string} pathname  as sent (percent-encoded)
 * @returns {{ route: Route, params: Record<string, string> }}
 */
export function matchRoute(method, pathname) {
  const segments = pathname.split('/').slice(1);
  /** @type {string[]} */
  const allowed = [];
  for (const { route, parts } of compiled) {
    const params = matchParts(parts, segments);
    if (!params) continue;
    if (route.method === method) return { route, params: decodeParams(params) };
    allowed.push(route.method);
  }
  if (allowed.length === 0) throw new ApiError('NOT_FOUND', `no route ${pathname.slice(0, 200)}; see GET /v1/openapi.json`);
  throw new ApiError('USAGE', `${method} is not allowed here; use ${allowed.join(', ')}`, { status: 405, headers: { allow: allowed.join(', ') } });
}

/** @param {string[]} parts @param {string[]} segments */
function matchParts(parts, segments) {
  if (parts.length !== segments.length) return null;
  /** @type {Record<string, string>} */
  const params = {};
  for (let i = 0; i < parts.length; i++) {
    if (parts[i].startsWith(':')) {
      if (segments[i] === '') return null;
      params[parts[i].slice(1)] = segments[i];
    } else if (parts[i] !== segments[i]) return null;
  }
  return params;
}

/** @param {Record<string, string>} raw */
function decodeParams(raw) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const [k, v] of Object.entries(raw)) {
    try {
      out[k] = decodeURIComponent(v);
    } catch {
      throw badRequest(`the ${k} in the URL is not valid percent-encoding: "${v.slice(0, 100)}"`);
    }
  }
  return out;
}
