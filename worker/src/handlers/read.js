// @ts-check
// Reads: search, suggest, stats, export, the namespace list, health.
import { hasRole, mayAccess } from '../auth.js';
import { json, parseJson, readText, requireType } from '../http.js';
import { readParams, searchFromBody, searchFromQuery, suggestParams } from '../params.js';
import { generationHeader, read, registryOf } from '../context.js';
import { cacheInfo } from '../reader.js';
import { bucketCounts } from '../ratelimit.js';

/** @typedef {import('../context.js').Context} Context */

const VERSION = '0.1.0';

/** @param {{ generation: number, servedBy: string }} r */
const readHeaders = (r) => ({ ...generationHeader(r.generation), 'x-memdex-served-by': r.servedBy });

/** GET and POST /v1/ns/:ns/search */
export async function search(/** @type {Context} */ c) {
  const limits = c.settings.limits;
  let req;
  if (c.request.method === 'GET') req = searchFromQuery(c.url.searchParams, limits);
  else {
    requireType(c.request, ['application/json']);
    readParams(c.url.searchParams); // the options belong in the body; refuse stray ones
    req = searchFromBody(parseJson(await readText(c.request, limits.maxBodyBytes)), limits);
  }
  const r = await read(c, c.params.ns, { kind: 'search', query: req.query, options: req.options }, req.minGeneration);
  return json(r.value, 200, readHeaders(r));
}

/** GET /v1/ns/:ns/suggest?prefix=&limit= */
export async function suggest(/** @type {Context} */ c) {
  const { prefix, limit, minGeneration } = suggestParams(c.url.searchParams, c.settings.limits);
  const r = await read(c, c.params.ns, { kind: 'suggest', prefix, limit }, minGeneration);
  return json(r.value, 200, readHeaders(r));
}

/** GET /v1/ns/:ns/stats */
export async function stats(/** @type {Context} */ c) {
  const { minGeneration } = readParams(c.url.searchParams);
  const r = await read(c, c.params.ns, { kind: 'stats' }, minGeneration);
  return json(r.value, 200, readHeaders(r));
}

/** GET /v1/ns/:ns/export — the snapshot bytes (Memdex.import reads them). */
export async function exportSnapshot(/** @type {Context} */ c) {
  const { minGeneration } = readParams(c.url.searchParams);
  const r = await read(c, c.params.ns, { kind: 'export' }, minGeneration);
  return new Response(r.value, {
    headers: {
      'content-type': 'application/octet-stream',
      'content-disposition': `attachment; filename="${c.params.ns.replace(/[^A-Za-z0-9._-]/g, '_')}.memdex"`,
      ...readHeaders(r),
    },
  });
}

/** GET /v1/namespaces — those the key may access (admin keys also see the isolate's cache). */
export async function namespaces(/** @type {Context} */ c) {
  readParams(c.url.searchParams);
  const all = await registryOf(c.env).list();
  const body = { namespaces: all.filter((n) => mayAccess(c.key, n.name)) };
  if (hasRole(c.key, 'admin')) Object.assign(body, { isolate: { ...cacheInfo(), buckets: bucketCounts() } });
  return json(body);
}

/** GET /health — public: liveness and runtime, no data. */
export async function health() {
  // navigator.userAgent is "Cloudflare-Workers" inside workerd.
  return json({ ok: true, service: 'memdex', version: VERSION, runtime: typeof navigator === 'undefined' ? 'unknown' : navigator.userAgent });
}
