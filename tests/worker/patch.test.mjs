// PATCH /v1/ns/:ns/docs/:id in workerd (Miniflare), over HTTP: the fields
// of the body change, `null` removes one, and everything else stays: the
// other fields, the vector (REST vector search still ranks the document
// first, with the same score; `GET ...?vectors=true` returns it) and the
// links (`expand` still follows them).
// An unknown id or namespace is 404 NOT_FOUND, a body the engine refuses
// 400 SCHEMA with the document unchanged, a read key 403. memory_update
// over the Worker's /mcp (the SDK client) keeps the vector and links too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker } from './support/helpers.mjs';

const SCHEMA = { priority: 'number', embedding: { type: 'vector', dimensions: 3 } };

let w;
let call;
before(async () => {
  w = await startWorker({ keys: { admin: { namespaces: ['*'], role: 'admin' }, reader: { namespaces: ['*'], role: 'read' } } });
  call = w.client(w.keys.admin);
  const created = await call('PUT', '/v1/ns/pt', { json: { schema: SCHEMA } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});
after(async () => {
  await w?.mf.dispose();
});

const vectorSearch = (vector, generation) => call('POST', '/v1/ns/pt/search', { json: { query: '', vector, limit: 3, minGeneration: generation } });

test('PATCH changes the given fields and keeps the others, the vector and the links', async () => {
  const put = await call('POST', '/v1/ns/pt/docs', {
    json: [
      { id: 'a', title: 'Deploy rule', text: 'Deploys on Fridays are fine', kind: 'rule', tags: ['ops'], priority: 2, links: [{ type: 'RELATES_TO', to: 'b' }], embedding: [3, 4, 0] },
      { id: 'b', title: 'Freeze', text: 'The release freeze starts Thursday', embedding: [0, 0, 1] },
    ],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const before = await vectorSearch([3, 4, 0], put.body.generation);
  assert.equal(before.body.hits[0].id, 'a');

  const patched = await call('PATCH', '/v1/ns/pt/docs/a', { json: { text: 'Never deploy on Fridays', tags: null, priority: 5 } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(patched.body.patched, true);
  assert.ok(patched.body.generation > put.body.generation);
  assert.equal(patched.headers.get('x-memdex-generation'), String(patched.body.generation));
  const g = patched.body.generation;

  const doc = await call('GET', `/v1/ns/pt/docs/a?minGeneration=${g}`);
  assert.equal(doc.status, 200);
  assert.deepEqual(doc.body, {
    id: 'a',
    kind: 'rule',
    links: [{ to: 'b', type: 'RELATES_TO' }],
    namespace: 'pt',
    priority: 5,
    text: 'Never deploy on Fridays',
    title: 'Deploy rule',
  });
  const withVectors = await call('GET', `/v1/ns/pt/docs/a?vectors=true&minGeneration=${g}`);
  assert.equal(withVectors.status, 200, JSON.stringify(withVectors.body));
  const { embedding, ...fields } = withVectors.body;
  assert.deepEqual(fields, doc.body);
  assert.ok(embedding.length === 3 && [0.6, 0.8, 0].every((x, i) => Math.abs(embedding[i] - x) < 1e-6), JSON.stringify(embedding));
  const badFlag = await call('GET', '/v1/ns/pt/docs/a?vectors=yes');
  assert.equal(badFlag.status, 400);
  assert.match(badFlag.body.error.message, /"vectors" must be true or false/);
  const after = await vectorSearch([3, 4, 0], g);
  assert.equal(after.body.hits[0].id, 'a', 'still found by its vector');
  assert.ok(Math.abs(after.body.hits[0].score - before.body.hits[0].score) < 1e-6);
  const words = await call('POST', '/v1/ns/pt/search', { json: { query: 'never fridays', mode: 'and', expand: { hops: 1 }, minGeneration: g } });
  assert.deepEqual(words.body.hits.map((h) => h.id), ['a', 'b'], 'found by its new words; its link still followed');
  assert.equal(words.body.hits[1].via.from, 'a');
  const old = await call('POST', '/v1/ns/pt/search', { json: { query: 'fine', mode: 'and', minGeneration: g } });
  assert.deepEqual(old.body.hits, []);
  assert.equal((await call('GET', `/v1/ns/pt/stats?minGeneration=${g}`)).body.documents, 2, 'an upsert, not a new document');

  // A new vector replaces the old one; new links point within the namespace.
  const relinked = await call('PATCH', '/v1/ns/pt/docs/a', {
    json: { embedding: [0, 1, 0], links: [{ type: 'SUPERSEDES', to: 'b' }] },
    headers: { 'content-type': 'application/merge-patch+json' },
  });
  assert.equal(relinked.status, 200, JSON.stringify(relinked.body));
  const near = await vectorSearch([0, 1, 0], relinked.body.generation);
  assert.equal(near.body.hits[0].id, 'a');
  const linked = await call('GET', `/v1/ns/pt/docs/a?minGeneration=${relinked.body.generation}`);
  assert.deepEqual(linked.body.links, [{ to: 'b', type: 'SUPERSEDES' }]);
  assert.equal(linked.body.text, 'Never deploy on Fridays');
});

test('PATCH refusals: 404 unknown id or namespace, 400 SCHEMA (nothing changes), 400 bad bodies, 403 read key', async () => {
  const put = await call('PUT', '/v1/ns/pt/docs/c', { json: { text: 'keep me', priority: 1, embedding: [1, 0, 0] } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const cases = [
    ['/v1/ns/pt/docs/missing', { text: 'x' }, 404, 'NOT_FOUND', /no document "missing" in namespace "pt"/],
    ['/v1/ns/nowhere/docs/c', { text: 'x' }, 404, 'NOT_FOUND', /nowhere/],
    ['/v1/ns/pt/docs/c', { text: 'changed', priority: 'high' }, 400, 'SCHEMA', /priority/],
    ['/v1/ns/pt/docs/c', { text: 'changed', embedding: [1, 0] }, 400, 'SCHEMA', /embedding/],
    ['/v1/ns/pt/docs/c', { text: 'changed', colour: 'blue' }, 400, 'SCHEMA', /colour/],
    ['/v1/ns/pt/docs/c', ['text'], 400, 'BAD_REQUEST', /JSON object/],
    ['/v1/ns/pt/docs/c', { id: 'd', text: 'x' }, 400, 'BAD_REQUEST', /cannot change an id/],
    ['/v1/ns/pt/docs/c', { namespace: 'other', text: 'x' }, 400, 'BAD_REQUEST', /stays in its namespace/],
  ];
  for (const [path, json, status, code, words] of cases) {
    const r = await call('PATCH', path, { json });
    assert.equal(r.status, status, `${path} ${JSON.stringify(json)}: ${JSON.stringify(r.body)}`);
    assert.equal(r.body.error.code, code, JSON.stringify(r.body));
    assert.match(r.body.error.message, words);
  }
  const denied = await call('PATCH', '/v1/ns/pt/docs/c', { json: { text: 'x' }, key: w.keys.reader });
  assert.equal(denied.status, 403);
  const doc = await call('GET', `/v1/ns/pt/docs/c?minGeneration=${put.body.generation}`);
  assert.deepEqual(doc.body, { id: 'c', namespace: 'pt', priority: 1, text: 'keep me' }, 'no refused patch changed it');
  assert.equal((await vectorSearch([1, 0, 0], put.body.generation)).body.hits[0].id, 'c');
});

test("memory_update over the Worker's /mcp keeps the memory's vector and links", async () => {
  const client = new Client({ name: 'memdex-patch-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.base), { requestInit: { headers: { authorization: `Bearer ${w.keys.admin}` } } }));
  try {
    const tool = (name, args) => client.callTool({ name, arguments: { namespace: 'pt', ...args } });
    const stored = await tool('memory_store', { id: 'm1', text: 'Postgres listens on 5432', vector: [0, 0.6, 0.8], links: [{ type: 'RELATES_TO', to: 'b' }] });
    assert.equal(stored.isError, false, stored.content[0].text);
    const updated = await tool('memory_update', { id: 'm1', text: 'Postgres listens on 6432 now' });
    assert.equal(updated.isError, false, updated.content[0].text);
    const generation = updated._meta['memdex/generation'];
    const near = await vectorSearch([0, 0.6, 0.8], generation);
    assert.equal(near.body.hits[0].id, 'm1', JSON.stringify(near.body.hits));
    const doc = await call('GET', `/v1/ns/pt/docs/m1?minGeneration=${generation}`);
    assert.equal(doc.body.text, 'Postgres listens on 6432 now');
    assert.deepEqual(doc.body.links, [{ to: 'b', type: 'RELATES_TO' }]);
    const related = await tool('memory_related', { id: 'm1' });
    assert.deepEqual(related.structuredContent.memories.map((m) => m.id), ['b']);
  } finally {
    await client.close();
  }
});
