// Namespace schemas at the edge, in workerd: PUT /v1/ns/:ns creates a
// namespace with custom fields (a keyword and a vector field here), GET
// shows them, REST writes take vectors, REST search filters on the custom
// keyword and runs lexical, vector and hybrid searches; the schema is
// bounded against hostile input and survives a restart of workerd (it is
// stored with the index). Changing it: schema-upgrade.test.mjs.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker, tempDir } from './support/helpers.mjs';

const SCHEMA = { userId: 'keyword', embedding: { type: 'vector', dimensions: 3 } };
const DOCS = [
  { id: 'a', title: 'Deploy rules', text: 'Never deploy on Fridays.', userId: 'u1', embedding: [1, 0, 0] },
  { id: 'b', title: 'Database', text: 'Postgres runs on port 5432; deploy migrations first.', userId: 'u2', embedding: [0, 1, 0] },
  { id: 'c', title: 'Lunch', text: 'The team eats at noon.', userId: 'u1', embedding: [0, 0, 1] },
];

const persist = tempDir('schema');
let w;
let call;
let gen = 0;
const KEYS = { admin: { namespaces: ['*'], role: 'admin' }, reader: { namespaces: ['*'], role: 'read' } };
before(async () => {
  w = await startWorker({ keys: KEYS, persist });
  call = w.client(w.keys.admin);
});
after(async () => {
  await w?.mf.dispose();
});

const search = async (body) => {
  const r = await call('POST', '/v1/ns/vec/search', { json: { minGeneration: gen, ...body } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.hits.map((h) => h.id);
};

test('PUT /v1/ns/:ns creates a namespace with a schema (201), durable; the same schema again is 200 created: false', async () => {
  const r = await call('PUT', '/v1/ns/vec', { json: { schema: SCHEMA } });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  assert.deepEqual(r.body.schema, SCHEMA);
  assert.equal(r.body.created, true);
  assert.ok(r.body.generation >= 1, 'the empty index with its schema is committed');
  const again = await call('PUT', '/v1/ns/vec', { json: { schema: { embedding: { dimensions: 3, type: 'vector' }, userId: { type: 'keyword' } } } });
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.created, false);

  const shown = await call('GET', `/v1/ns/vec?minGeneration=${r.body.generation}`);
  assert.equal(shown.status, 200, JSON.stringify(shown.body));
  assert.deepEqual(shown.body.schema, SCHEMA);
  assert.deepEqual(shown.body.baseFields, ['title', 'text', 'kind', 'tags', 'timestamp', 'links']);
  assert.equal(shown.body.documents, 0);
  const listed = await call('GET', '/v1/namespaces');
  assert.ok(listed.body.namespaces.some((n) => n.name === 'vec'));
});

test('REST writes take vectors; search filters on the custom keyword; lexical, vector and hybrid search', async () => {
  const one = await call('PUT', '/v1/ns/vec/docs/a', { json: DOCS[0] });
  assert.equal(one.status, 200, JSON.stringify(one.body));
  const bulk = await call('POST', '/v1/ns/vec/docs', { json: DOCS.slice(1) });
  assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
  gen = bulk.body.generation;

  assert.deepEqual((await search({ query: 'deploy' })).sort(), ['a', 'b']);
  assert.deepEqual(await search({ query: 'deploy', filter: { userId: 'u2' } }), ['b']);
  assert.deepEqual(await search({ query: '', vector: [0.1, 0.9, 0], limit: 1 }), ['b']);
  assert.deepEqual(await search({ query: '', vector: [0, 0.2, 1], filter: { userId: 'u1' }, limit: 1 }), ['c']);
  const hybrid = await search({ query: 'deploy', vector: [0, 0, 1], hybrid: { method: 'rrf' } });
  assert.deepEqual(hybrid.slice().sort(), ['a', 'b', 'c'], 'the vector list brings c, the lexical list a and b');
  // GET takes the vector as JSON too.
  const get = await call('GET', `/v1/ns/vec/search?vector=${encodeURIComponent('[1,0,0]')}&limit=1&minGeneration=${gen}`);
  assert.equal(get.status, 200, JSON.stringify(get.body));
  assert.deepEqual(get.body.hits.map((h) => h.id), ['a']);
  const doc = await call('GET', `/v1/ns/vec/docs/a?minGeneration=${gen}`);
  assert.equal(doc.body.userId, 'u1');

  // The isolate's read copy (loaded from KV once KV shows the last commit) knows the schema too.
  let iso;
  for (let t = 0; t < 100; t++) {
    iso = await call('GET', '/v1/ns/vec');
    if (iso.status === 200 && iso.body.documents === 3) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(iso.headers.get('x-memdex-served-by'), 'isolate');
  assert.deepEqual(iso.body.schema, SCHEMA);
  assert.deepEqual((await call('POST', '/v1/ns/vec/search', { json: { query: '', vector: [1, 0, 0], limit: 1 } })).body.hits.map((h) => h.id), ['a']);
});

test('a write with a field the schema lacks: SCHEMA with the engine message, no "stopped at document 1", advice to declare it here', async () => {
  const r = await call('PUT', '/v1/ns/vec/docs/x', { json: { text: 'x', color: 'red' } });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'SCHEMA');
  assert.match(r.body.error.message, /^schema error on field `color`: is not declared in the schema/);
  assert.doesNotMatch(r.body.error.message, /stopped at document/);
  assert.match(r.body.error.message, /PUT \/v1\/ns\/vec and \{"schema"/);
  const wrongDims = await call('PUT', '/v1/ns/vec/docs/x', { json: { text: 'x', embedding: [1, 2] } });
  assert.equal(wrongDims.status, 400);
  assert.equal(wrongDims.body.error.code, 'SCHEMA');
  assert.match(wrongDims.body.error.message, /embedding/);
});

test('hostile schemas: bounded field count and name length (LIMIT); base fields, bad names, bad types and dimensions (SCHEMA, the engine\'s as in Memdex.open); nothing created', async () => {
  const cases = [
    [Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, 'keyword'])), 400, 'LIMIT', /at most 32/],
    [{ ['x'.repeat(65)]: 'keyword' }, 400, 'LIMIT', /longer than 64/],
    [{ e: { type: 'vector', dimensions: 5000 } }, 400, 'SCHEMA', /dimensions must be between 1 and 4096/],
    [{ title: 'keyword' }, 400, 'SCHEMA', /`title`: it is a base field/],
    [{ id: 'keyword' }, 400, 'SCHEMA', /base field/],
    [{ 'a b': 'keyword' }, 400, 'SCHEMA', /letters, digits and _/],
    [{ n: 'bogus' }, 400, 'SCHEMA', /bogus/],
    [{ e: { type: 'vector', dimensions: 0 } }, 400, 'SCHEMA', /dimensions/],
    [[1, 2], 400, 'SCHEMA', /must be an object/],
  ];
  for (const [schema, status, code, message] of cases) {
    const r = await call('PUT', '/v1/ns/hostile', { json: { schema } });
    assert.equal(r.status, status, JSON.stringify(r.body));
    assert.equal(r.body.error.code, code, JSON.stringify(r.body));
    assert.match(r.body.error.message, message);
  }
  const extra = await call('PUT', '/v1/ns/hostile', { json: { schema: {}, fields: {} } });
  assert.equal(extra.status, 400);
  const huge = await call('PUT', '/v1/ns/hostile', { json: { schema: { a: { type: 'text', pad: 'x'.repeat(20000) } } } });
  assert.equal(huge.status, 413);
  assert.equal((await call('GET', '/v1/ns/hostile')).status, 404, 'nothing was created');
  const reader = await call('PUT', '/v1/ns/r', { json: { schema: {} }, key: w.keys.reader });
  assert.equal(reader.status, 403);
});

test('the schema survives a restart of workerd: stored with the index', async () => {
  await w.mf.dispose();
  w = await startWorker({ keys: KEYS, persist });
  call = w.client(w.keys.admin);
  // At least the last write's generation (KV's copy may lag its publication).
  const shown = await call('GET', `/v1/ns/vec?minGeneration=${gen}`);
  assert.equal(shown.status, 200, JSON.stringify(shown.body));
  assert.deepEqual(shown.body.schema, SCHEMA);
  assert.equal(shown.body.documents, 3);
  assert.deepEqual(await search({ query: '', vector: [0, 0, 1], limit: 1 }), ['c']);
  const more = await call('PUT', '/v1/ns/vec/docs/d', { json: { text: 'after the restart', userId: 'u3', embedding: [1, 1, 0] } });
  assert.equal(more.status, 200, JSON.stringify(more.body));
  gen = more.body.generation;
  assert.deepEqual(await search({ query: '', filter: { userId: 'u3' }, vector: [1, 1, 0] }), ['d']);
});
