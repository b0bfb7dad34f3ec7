// Vectors through the Worker's /mcp with the official SDK client, in
// workerd: a namespace created with a keyword and a vector field
// (PUT /v1/ns/:ns), memories stored with `vector` by memory_store (into
// the schema's vector field), then memory_search lexical with a keyword
// filter, hybrid (words and a vector) and vector-led (words that match
// nothing, so the vector list decides), checked against REST vector search
// of the same documents. A namespace without a vector field refuses
// `vector` saying so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker } from './support/helpers.mjs';

const SCHEMA = { userId: 'keyword', embedding: { type: 'vector', dimensions: 3 } };
const MEMORIES = [
  { id: 'a', title: 'Deploy rule', text: 'Never deploy on Fridays.', kind: 'rule', vector: [1, 0, 0] },
  { id: 'b', title: 'Database', text: 'Postgres listens on port 5432.', kind: 'note', vector: [0, 1, 0] },
  { id: 'c', title: 'Lunch', text: 'The team eats at noon.', kind: 'note', vector: [0, 0, 1] },
];

let w;
let admin;
let mcp;
before(async () => {
  w = await startWorker({ keys: { admin: { namespaces: ['*'], role: 'admin' }, vec: { namespaces: ['vec'], role: 'write' }, plain: { namespaces: ['plain'], role: 'write' } } });
  admin = w.client(w.keys.admin);
  const created = await admin('PUT', '/v1/ns/vec', { json: { schema: SCHEMA } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  mcp = await connect(w.keys.vec);
});
after(async () => {
  await mcp?.close();
  await w?.mf.dispose();
});

async function connect(key) {
  const c = new Client({ name: 'memdex-vector-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.base), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return c;
}
const text = (r) => r.content[0].text;
const ids = (r) => r.structuredContent.hits.map((h) => h.id);

test('memory_store puts `vector` into the namespace\'s vector field (REST vector search finds it)', async () => {
  let generation = 0;
  for (const m of MEMORIES) {
    const r = await mcp.callTool({ name: 'memory_store', arguments: m });
    assert.equal(r.isError, false, text(r));
    generation = r._meta['memdex/generation'];
  }
  const rest = await admin('POST', '/v1/ns/vec/search', { json: { query: '', vector: [0, 0.1, 1], limit: 1, minGeneration: generation } });
  assert.equal(rest.status, 200, JSON.stringify(rest.body));
  assert.deepEqual(rest.body.hits.map((h) => h.id), ['c']);
  const hybrid = await admin('POST', '/v1/ns/vec/search', { json: { query: 'deploy', vector: [0, 1, 0], filter: { kind: ['rule', 'note'] }, minGeneration: generation } });
  // Fused (the default z-score): the best of the words (a) and of the vector (b) lead.
  assert.deepEqual(hybrid.body.hits.slice(0, 2).map((h) => h.id).sort(), ['a', 'b']);
});

test('memory_search over /mcp: lexical with a keyword filter, hybrid, and vector-led', async () => {
  const lexical = await mcp.callTool({ name: 'memory_search', arguments: { query: 'deploy fridays', kind: 'rule' } });
  assert.equal(lexical.isError, false, text(lexical));
  assert.deepEqual(ids(lexical), ['a']);

  const hybrid = await mcp.callTool({ name: 'memory_search', arguments: { query: 'deploy', vector: [0, 0, 1] } });
  assert.equal(hybrid.isError, false, text(hybrid));
  assert.deepEqual(ids(hybrid).slice(0, 2).sort(), ['a', 'c'], 'the words bring a, the vector c');

  const filtered = await mcp.callTool({ name: 'memory_search', arguments: { query: 'deploy', vector: [0, 0, 1], kind: 'note' } });
  assert.equal(ids(filtered)[0], 'c');
  assert.ok(!ids(filtered).includes('a'), 'the keyword filter applies to both lists');

  const vectorLed = await mcp.callTool({ name: 'memory_search', arguments: { query: 'xylophone', vector: [0.1, 1, 0], limit: 1 } });
  assert.equal(vectorLed.isError, false, text(vectorLed));
  assert.deepEqual(ids(vectorLed), ['b']);

  const vectorOnly = await mcp.callTool({ name: 'memory_search', arguments: { query: '', vector: [0.1, 1, 0], limit: 1 } });
  assert.equal(vectorOnly.isError, false, text(vectorOnly));
  assert.deepEqual(ids(vectorOnly), ['b'], 'an empty query with a vector is a vector search');

  const blank = await mcp.callTool({ name: 'memory_search', arguments: { query: ' ' } });
  assert.equal(blank.isError, true);
  assert.match(text(blank), /^USAGE: "query" is blank/);

  const wrong = await mcp.callTool({ name: 'memory_search', arguments: { query: 'deploy', vector: [1, 0] } });
  assert.equal(wrong.isError, true);
  assert.match(text(wrong), /^USAGE: .*`embedding` has 3 dimensions/);
});

test('a namespace without a vector field refuses `vector` with a message that says so', async () => {
  const plain = await connect(w.keys.plain);
  try {
    const stored = await plain.callTool({ name: 'memory_store', arguments: { text: 'no vectors here' } });
    assert.equal(stored.isError, false, text(stored));
    const r = await plain.callTool({ name: 'memory_search', arguments: { query: 'vectors', vector: [1, 0, 0] } });
    assert.equal(r.isError, true);
    assert.match(text(r), /no vector field/);
  } finally {
    await plain.close();
  }
});
