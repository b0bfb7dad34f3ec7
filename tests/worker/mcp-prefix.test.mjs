// The Worker's /mcp with the official SDK client, in workerd: a namespace
// created with a custom schema (a keyword and a vector field) serves the
// memory tools (store, lexical search with a keyword filter), and namespace
// prefixes work as the tools' description says (`memory_search` and
// `memory_list` with "user:*" read every namespace of the prefix that the
// key may use, merged; other namespaces never show; other tools take one
// namespace).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker } from './support/helpers.mjs';

const SCHEMA = { userId: 'keyword', embedding: { type: 'vector', dimensions: 3 } };
let w;
let admin;
before(async () => {
  w = await startWorker({
    keys: {
      admin: { namespaces: ['*'], role: 'admin' },
      // Two of the three user: namespaces, by name: a prefix call must not reach user:c.
      users: { namespaces: ['user:a', 'user:b'], role: 'write' },
      everyUser: { namespaces: ['user:*'], role: 'read' },
    },
  });
  admin = w.client(w.keys.admin);
});
after(async () => {
  await w?.mf.dispose();
});

async function connect(key) {
  const c = new Client({ name: 'memdex-prefix-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.base), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return c;
}
const text = (r) => r.content[0].text;

test('a namespace created with a custom schema serves the tools: memory_store, then lexical memory_search with a keyword filter', async () => {
  const created = await admin('PUT', '/v1/ns/user:a', { json: { schema: SCHEMA } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  // Documents with the custom fields and vectors, over REST.
  const put = await admin('POST', '/v1/ns/user:a/docs', {
    json: [
      { id: 'r1', title: 'Deploy rule', text: 'Never deploy on Fridays.', kind: 'rule', userId: 'u1', embedding: [1, 0, 0] },
      { id: 'n1', title: 'Deploy note', text: 'The last deploy went fine.', kind: 'note', userId: 'u1', embedding: [0, 1, 0] },
    ],
  });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  const c = await connect(w.keys.users);
  try {
    const stored = await c.callTool({ name: 'memory_store', arguments: { namespace: 'user:a', id: 'r2', text: 'Deploys need a second reviewer.', kind: 'rule' } });
    assert.equal(stored.isError, false, text(stored));
    const found = await c.callTool({ name: 'memory_search', arguments: { namespace: 'user:a', query: 'deploy', kind: 'rule' } });
    assert.equal(found.isError, false, text(found));
    assert.deepEqual(found.structuredContent.hits.map((h) => h.id).sort(), ['r1', 'r2']);
    const got = await c.callTool({ name: 'memory_get', arguments: { namespace: 'user:a', id: 'r1' } });
    assert.match(text(got), /Never deploy on Fridays/);
  } finally {
    await c.close();
  }
  const shown = await admin('GET', `/v1/ns/user:a?minGeneration=${put.body.generation + 1}`);
  assert.equal(shown.body.documents, 3);
  assert.deepEqual(shown.body.schema, SCHEMA);
});

test('memory_search and memory_list with "user:*" read every namespace of the prefix this key may use, merged', async () => {
  const b = await admin('PUT', '/v1/ns/user:b/docs/b1', { json: { title: 'Deploy window', text: 'Deploy between 10 and 16.', kind: 'rule', timestamp: '2026-03-01T00:00:00Z' } });
  const cdoc = await admin('PUT', '/v1/ns/user:c/docs/c1', { json: { title: 'Secret deploy', text: 'Only c may read this deploy note.', kind: 'rule' } });
  assert.equal(cdoc.status, 200);
  const c = await connect(w.keys.users);
  try {
    const { tools } = await c.listTools();
    assert.match(tools.find((t) => t.name === 'memory_search').inputSchema.properties.namespace.description, /prefix ending in \*/);
    // A prefix call reads each namespace's isolate copy (a single namespace
    // can ask for a generation instead): wait until this isolate's copies
    // show the REST writes.
    assert.equal(b.status, 200);
    for (const path of ['/v1/ns/user:b/docs/b1', '/v1/ns/user:c/docs/c1']) await waitFor(async () => (await admin('GET', path)).status === 200);
    const found = await c.callTool({ name: 'memory_search', arguments: { namespace: 'user:*', query: 'deploy', kind: 'rule' } });
    assert.equal(found.isError, false, text(found));
    const hits = found.structuredContent.hits;
    assert.deepEqual(hits.map((h) => `${h.namespace}/${h.id}`).sort(), ['user:a/r1', 'user:a/r2', 'user:b/b1']);
    assert.ok(hits.every((h, i) => i === 0 || hits[i - 1].score >= h.score), 'merged by score');
    assert.doesNotMatch(text(found), /Secret|user:c/, 'a namespace of the prefix outside the key stays unseen');
    assert.match(text(found), /in 2 namespaces matching "user:\*"/);

    const listed = await c.callTool({ name: 'memory_list', arguments: { namespace: 'user:*', kind: 'rule' } });
    assert.equal(listed.isError, false, text(listed));
    assert.deepEqual(listed.structuredContent.memories.map((m) => m.id).sort(), ['b1', 'r1', 'r2']);
    assert.equal(listed.structuredContent.total, 3);

    const limited = await c.callTool({ name: 'memory_search', arguments: { namespace: 'user:*', query: 'deploy', limit: 1 } });
    assert.equal(limited.structuredContent.hits.length, 1);

    const get = await c.callTool({ name: 'memory_get', arguments: { namespace: 'user:*', id: 'r1' } });
    assert.equal(get.isError, true);
    assert.match(text(get), /^USAGE: "namespace": "user:\*" is a prefix; memory_get works on one namespace/);
    const store = await c.callTool({ name: 'memory_store', arguments: { namespace: 'user:*', text: 'x' } });
    assert.equal(store.isError, true);
    const cursor = await c.callTool({ name: 'memory_list', arguments: { namespace: 'user:*', cursor: 'abc' } });
    assert.match(text(cursor), /^USAGE: a cursor pages one namespace/);
    const none = await c.callTool({ name: 'memory_search', arguments: { namespace: 'nobody:*', query: 'deploy' } });
    assert.match(text(none), /^NOT_FOUND: No namespace starting with "nobody:"/);
  } finally {
    await c.close();
  }
  // A key granted the whole prefix sees all three.
  const every = await connect(w.keys.everyUser);
  try {
    const found = await every.callTool({ name: 'memory_search', arguments: { namespace: 'user:*', query: 'deploy' } });
    assert.equal(found.isError, false, text(found));
    assert.ok(found.structuredContent.hits.some((h) => h.namespace === 'user:c'));
    assert.equal(new Set(found.structuredContent.hits.map((h) => h.namespace)).size, 3);
  } finally {
    await every.close();
  }
});

test('a prefix reads at most 20 namespaces: LIMIT with advice beyond', async () => {
  await Promise.all(Array.from({ length: 21 }, (_, i) => admin('PUT', `/v1/ns/many:${String(i).padStart(2, '0')}/docs/d`, { json: { text: 'many' } })));
  const c = await connect(w.keys.admin);
  try {
    const r = await c.callTool({ name: 'memory_search', arguments: { namespace: 'many:*', query: 'many' } });
    assert.equal(r.isError, true);
    assert.match(text(r), /^LIMIT: 21 namespaces start with "many:"; a prefix reads at most 20\. Narrow the prefix/);
  } finally {
    await c.close();
  }
});

async function waitFor(check) {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('timed out');
}
