// Every limit of the Worker (MEMDEX_LIMITS, set small here) answers with a
// clear 4xx `LIMIT` error naming the limit, and a refused request writes
// nothing: body bytes (counted in bytes, not UTF-16 units, also when the
// content-length is absent), documents per request, document bytes, query
// length, result limit, namespaces per key, requests per minute, and a
// namespace's bytes (growth refused, removals kept).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './support/helpers.mjs';

const LIMITS = { maxBodyBytes: 2000, maxDocsPerRequest: 5, maxDocBytes: 600, maxQueryBytes: 50, maxLimit: 20, maxNamespacesPerKey: 2, requestsPerMinute: 100000 };

let w;
let call;
let gen;
before(async () => {
  w = await startWorker({
    keys: {
      admin: { namespaces: ['*'], role: 'admin' },
      creator: { namespaces: ['q:*'], role: 'write' },
      slow: { namespaces: ['*'], role: 'read', requestsPerMinute: 5 },
    },
    vars: { MEMDEX_LIMITS: JSON.stringify(LIMITS) },
  });
  call = w.client(w.keys.admin);
  gen = (await call('PUT', '/v1/ns/lim/docs/base', { json: { text: 'base document' } })).body.generation;
});
after(async () => {
  await w?.mf.dispose();
});

async function unchanged() {
  const s = await call('GET', `/v1/ns/lim/stats?minGeneration=${gen}`);
  assert.equal(s.body.generation, gen, 'a refused request committed nothing');
  assert.equal(s.body.documents, 1);
}

function assertLimit(r, status, limit) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'LIMIT');
  assert.equal(r.body.error.limit, limit);
  assert.ok(r.body.error.message.length > 10);
}

test('body bytes: counted as UTF-8 bytes, with or without content-length', async () => {
  // 700 "é" are 700 UTF-16 units but 1400 bytes, x2 docs = over 2000 bytes.
  const docs = [{ id: 'u1', text: 'é'.repeat(500) }, { id: 'u2', text: 'é'.repeat(500) }];
  const text = JSON.stringify(docs);
  assert.ok(text.length < LIMITS.maxBodyBytes && Buffer.byteLength(text) > LIMITS.maxBodyBytes);
  assertLimit(await call('POST', '/v1/ns/lim/docs', { body: text, headers: { 'content-type': 'application/json' } }), 413, 'maxBodyBytes');
  // A streamed body has no content-length: counted as it arrives.
  const stream = new ReadableStream({
    start(c) {
      for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('x'.repeat(500)));
      c.close();
    },
  });
  const res = await fetch(new URL('/v1/ns/lim/docs', w.base), {
    method: 'POST',
    headers: { authorization: `Bearer ${w.keys.admin}`, 'content-type': 'application/json' },
    body: stream,
    duplex: 'half',
  });
  assertLimit({ status: res.status, body: await res.json() }, 413, 'maxBodyBytes');
  await unchanged();
});

test('documents per request', async () => {
  const docs = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, text: 'x' }));
  assertLimit(await call('POST', '/v1/ns/lim/docs', { json: docs }), 413, 'maxDocsPerRequest');
  const ndjson = docs.map((d) => JSON.stringify(d)).join('\n');
  assertLimit(await call('POST', '/v1/ns/lim/docs', { body: ndjson, headers: { 'content-type': 'application/x-ndjson' } }), 413, 'maxDocsPerRequest');
  await unchanged();
});

test('document bytes, in bulk and in a PUT; a too-large document refuses the whole request', async () => {
  const big = { id: 'big', text: 'ü'.repeat(400) }; // 800 bytes
  assertLimit(await call('POST', '/v1/ns/lim/docs', { json: [{ id: 'small', text: 'fine' }, big] }), 413, 'maxDocBytes');
  assertLimit(await call('PUT', '/v1/ns/lim/docs/big', { json: { text: big.text } }), 413, 'maxDocBytes');
  await unchanged();
});

test('query length in bytes, for search (GET and POST) and suggest', async () => {
  const q = 'ö'.repeat(30); // 30 characters, 60 bytes
  assertLimit(await call('GET', `/v1/ns/lim/search?q=${encodeURIComponent(q)}`), 400, 'maxQueryBytes');
  assertLimit(await call('POST', '/v1/ns/lim/search', { json: { query: q } }), 400, 'maxQueryBytes');
  assertLimit(await call('GET', `/v1/ns/lim/suggest?prefix=${encodeURIComponent(q)}`), 400, 'maxQueryBytes');
  const fine = await call('GET', `/v1/ns/lim/search?q=${encodeURIComponent('ö'.repeat(25))}&minGeneration=${gen}`);
  assert.equal(fine.status, 200);
});

test('result limit', async () => {
  assertLimit(await call('GET', '/v1/ns/lim/search?q=base&limit=21'), 400, 'maxLimit');
  assertLimit(await call('POST', '/v1/ns/lim/search', { json: { query: 'base', limit: 1000 } }), 400, 'maxLimit');
  assertLimit(await call('GET', '/v1/ns/lim/suggest?prefix=ba&limit=21'), 400, 'maxLimit');
  // Documents `expand` adds count against the same cap.
  assertLimit(await call('POST', '/v1/ns/lim/search', { json: { query: 'base', expand: { hops: 1, limit: 21 } } }), 400, 'maxLimit');
  assertLimit(await call('GET', `/v1/ns/lim/search?q=base&expand=${encodeURIComponent('{"limit":21}')}`), 400, 'maxLimit');
  assert.equal((await call('GET', `/v1/ns/lim/search?q=base&limit=20&minGeneration=${gen}`)).status, 200);
});

test('namespaces per key: the third namespace a key creates is refused; writing to existing ones is not', async () => {
  const creator = w.client(w.keys.creator);
  assert.equal((await creator('PUT', '/v1/ns/q:1/docs/a', { json: { text: 'one' } })).status, 200);
  assert.equal((await creator('PUT', '/v1/ns/q:2/docs/a', { json: { text: 'two' } })).status, 200);
  const third = await creator('PUT', '/v1/ns/q:3/docs/a', { json: { text: 'three' } });
  assertLimit(third, 403, 'maxNamespacesPerKey');
  assert.equal((await creator('PUT', '/v1/ns/q:1/docs/b', { json: { text: 'again' } })).status, 200);
  // Another key created q:3? Then the creator may write to it (it exists), without it counting.
  assert.equal((await call('PUT', '/v1/ns/q:3/docs/a', { json: { text: 'by admin' } })).status, 200);
  assert.equal((await creator('PUT', '/v1/ns/q:3/docs/b', { json: { text: 'now fine' } })).status, 200);
  const list = await creator('GET', '/v1/namespaces');
  assert.deepEqual(list.body.namespaces.map((n) => n.name), ['q:1', 'q:2', 'q:3']);
});

test('requests per minute per key: 429 with Retry-After once the bucket is empty; other keys unaffected', async () => {
  const slow = w.client(w.keys.slow);
  const statuses = [];
  for (let i = 0; i < 7; i++) statuses.push((await slow('GET', '/v1/namespaces')).status);
  assert.deepEqual(statuses.slice(0, 5), [200, 200, 200, 200, 200]);
  const r = await slow('GET', '/v1/namespaces');
  assertLimit(r, 429, 'requestsPerMinute');
  assert.ok(Number(r.headers.get('retry-after')) >= 1);
  assert.equal((await call('GET', '/v1/namespaces')).status, 200);
});

test('a full namespace (maxNamespaceBytes) refuses growth over REST and MCP alike, stores none of it, and still takes removals', async () => {
  const small = await startWorker({ vars: { MEMDEX_LIMITS: JSON.stringify({ maxNamespaceBytes: 3000 }) } });
  try {
    const c = small.client(small.keys.admin);
    let acknowledged = 0;
    let generation = 0;
    let refused = null;
    for (let i = 0; i < 40 && !refused; i++) {
      const docs = Array.from({ length: 5 }, (_, j) => ({ id: `d${i}-${j}`, text: `note ${i} ${j} about deploys ${'x'.repeat(50)}` }));
      const r = await c('POST', '/v1/ns/full/docs', { json: docs });
      if (r.status === 200) [acknowledged, generation] = [acknowledged + r.body.added, r.body.generation];
      else refused = { r, i };
    }
    assert.ok(refused, 'a write was refused before 200 documents');
    assertLimit(refused.r, 403, 'maxNamespaceBytes');
    assert.ok(acknowledged >= 10, `${acknowledged} documents fit`);
    const { body } = await c('GET', `/v1/ns/full/stats?minGeneration=${generation}`);
    assert.equal(body.documents, acknowledged, 'every acknowledged document, none refused');
    assert.ok(body.bytes >= 3000);
    assert.equal((await c('GET', `/v1/ns/full/docs/d${refused.i}-0`)).status, 404);
    assertLimit(await c('PUT', '/v1/ns/full/docs/one-more', { json: { text: 'one more' } }), 403, 'maxNamespaceBytes');
    assertLimit(await c('PATCH', '/v1/ns/full/docs/d0-0', { json: { text: 'longer '.repeat(20) } }), 403, 'maxNamespaceBytes');
    const store = await c('POST', '/mcp', {
      json: [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'memory_store', arguments: { namespace: 'full', text: 'remember this' } } }],
      headers: { accept: 'application/json, text/event-stream' },
    });
    const result = store.body[0].result;
    assert.equal(result.isError, true, JSON.stringify(result));
    assert.match(result.content[0].text, /LIMIT/);
    assert.match(result.content[0].text, /maxNamespaceBytes/);
    // Removals run, and nothing refused was stored meanwhile.
    const removed = await c('DELETE', '/v1/ns/full/docs/d0-1');
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    assert.equal(removed.body.removed, true);
    assert.equal((await c('GET', `/v1/ns/full/stats?minGeneration=${removed.body.generation}`)).body.documents, acknowledged - 1);
    assert.equal((await c('GET', '/v1/ns/full/docs/d0-0')).body.text, 'note 0 0 about deploys ' + 'x'.repeat(50));
  } finally {
    await small.mf.dispose();
  }
});
