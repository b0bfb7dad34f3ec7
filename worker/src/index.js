// memdex search endpoint as a Cloudflare Worker (ES module syntax).
//
//   GET  /health                      -> { ok, runtime, documents }
//   POST /v1/ns/:ns/docs              body: one document or an array -> { added }
//   GET  /v1/ns/:ns/docs/:id          -> the document, or 404
//   DELETE /v1/ns/:ns/docs/:id        -> { removed }
//   GET  /v1/ns/:ns/search?q=&limit=&mode=  -> { hits, mode }
//   GET  /v1/ns/:ns/stats             -> index stats
//
// The index lives in isolate memory for now (one index per namespace); KV
// persistence and a Durable Object writer come later.
//
// This imports the built package's workerd entry (pkg/workerd.js, which
// imports memdex_bg.wasm as a compiled Wasm module). A worker that installs
// memdex from npm writes `from 'memdex'`; wrangler's `workerd` export
// condition selects the same file. workerd itself has no package resolution,
// which is why the in-repo worker uses the path.
import { Memdex, MemdexError } from '../../pkg/workerd.js';

const indexes = new Map(); // namespace -> Promise<Memdex>
const MAX_BODY_BYTES = 1 << 20;
const MAX_LIMIT = 100;
const NS_RE = /^[A-Za-z0-9._:@\-]{1,128}$/;

function json(body, status = 200) {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
}

function error(status, code, message) {
  return json({ error: { code, message } }, status);
}

function indexFor(ns) {
  let index = indexes.get(ns);
  if (!index) {
    index = Memdex.create();
    indexes.set(ns, index);
  }
  return index;
}

async function readJson(request) {
  const length = Number(request.headers.get('content-length') ?? 0);
  if (length > MAX_BODY_BYTES) throw new MemdexError('LIMIT', `body exceeds ${MAX_BODY_BYTES} bytes`);
  const text = await request.text();
  if (text.length > MAX_BODY_BYTES) throw new MemdexError('LIMIT', `body exceeds ${MAX_BODY_BYTES} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw new MemdexError('BAD_REQUEST', 'body is not valid JSON');
  }
}

async function route(request) {
  const url = new URL(request.url);
  const parts = url.pathname.split('/').filter(Boolean).map(decodeURIComponent);

  if (url.pathname === '/health') {
    let documents = 0;
    for (const index of indexes.values()) documents += (await index).stats().documents;
    // navigator.userAgent is "Cloudflare-Workers" inside workerd.
    return json({ ok: true, runtime: globalThis.navigator?.userAgent ?? 'unknown', documents });
  }

  if (parts[0] !== 'v1' || parts[1] !== 'ns' || !parts[2]) return error(404, 'NOT_FOUND', 'no such route');
  const ns = parts[2];
  if (!NS_RE.test(ns)) return error(400, 'BAD_REQUEST', 'namespace must match ' + NS_RE.source);
  const rest = parts.slice(3);
  const method = request.method;

  if (rest[0] === 'docs' && rest.length === 1 && method === 'POST') {
    const body = await readJson(request);
    const docs = Array.isArray(body) ? body : [body];
    const index = await indexFor(ns);
    for (const doc of docs) {
      if (doc === null || typeof doc !== 'object') throw new MemdexError('SCHEMA', 'each document must be an object');
    }
    try {
      // The URL decides the namespace; a document cannot write elsewhere.
      return json({ added: index.addAll(docs.map((doc) => ({ ...doc, namespace: ns }))) }, 201);
    } catch (err) {
      // Stopped at a rejected document: the ones before it were added.
      if (!(err instanceof MemdexError) || !Number.isInteger(err.added)) throw err;
      return json({ error: { code: err.code, message: err.message, added: err.added } }, STATUS[err.code] ?? 500);
    }
  }
  if (rest[0] === 'docs' && rest.length === 2 && (method === 'GET' || method === 'DELETE')) {
    const index = await indexFor(ns);
    if (method === 'DELETE') return json({ removed: index.remove(rest[1]) });
    const doc = index.get(rest[1]);
    return doc ? json(doc) : error(404, 'NOT_FOUND', `no document with id ${rest[1]}`);
  }
  if (rest[0] === 'search' && rest.length === 1 && method === 'GET') {
    const q = url.searchParams.get('q') ?? '';
    const limit = Math.min(MAX_LIMIT, Math.max(1, Number(url.searchParams.get('limit') ?? 10) || 10));
    const mode = url.searchParams.get('mode') ?? 'or';
    if (!['or', 'and', 'fallback'].includes(mode)) return error(400, 'BAD_REQUEST', 'mode must be or, and or fallback');
    const index = await indexFor(ns);
    return json(index.search(q, { limit, mode }));
  }
  if (rest[0] === 'stats' && rest.length === 1 && method === 'GET') {
    return json((await indexFor(ns)).stats());
  }
  return error(404, 'NOT_FOUND', 'no such route');
}

const STATUS = { SCHEMA: 400, USAGE: 400, BAD_REQUEST: 400, INVALID_QUERY: 400, NOT_FOUND: 404, LIMIT: 413, CONFLICT: 409 };

export default {
  async fetch(request) {
    try {
      return await route(request);
    } catch (err) {
      if (err instanceof MemdexError) return error(STATUS[err.code] ?? 500, err.code, err.message);
      return error(500, 'INTERNAL', 'internal error');
    }
  },
};
