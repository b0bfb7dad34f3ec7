// A namespace's schema upgraded at the edge, in workerd, as the package's
// Memdex.open({ schema }) upgrades an index: PUT /v1/ns/:ns again adds the
// fields it names (and keeps the others and every document), also for a
// namespace its first write created; a change that needs a rebuild is
// SCHEMA with the field and the change, and changes nothing; the upgraded
// schema is what read copies, the MCP tools and a restarted workerd see.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startWorker, tempDir } from './support/helpers.mjs';

const KEYS = { admin: { namespaces: ['*'], role: 'admin' }, plain: { namespaces: ['plain'], role: 'write' } };
const persist = tempDir('schema-upgrade');
let w;
let call;
/** The generation each namespace's last answer reached (read-your-writes). */
const gen = {};
// Test hooks make the writer's next commit step fail (worker/src/test-hooks.js).
const VARS = { MEMDEX_TEST_HOOKS: '1' };
before(async () => {
  w = await startWorker({ keys: KEYS, persist, vars: VARS });
  call = w.client(w.keys.admin);
});
after(async () => {
  await w?.mf.dispose();
});

const ok = (r, status = 200) => {
  assert.equal(r.status, status, JSON.stringify(r.body));
  return r.body;
};
/** A write's answer, its generation noted for namespace `ns`. */
const wrote = (ns, r, status = 200) => {
  const body = ok(r, status);
  gen[ns] = Math.max(gen[ns] ?? 0, body.generation ?? 0);
  return body;
};
const ids = async (ns, body) => ok(await call('POST', `/v1/ns/${ns}/search`, { json: { minGeneration: gen[ns] ?? 0, ...body } })).hits.map((h) => h.id);
const show = async (ns) => ok(await call('GET', `/v1/ns/${ns}?minGeneration=${gen[ns] ?? 0}`));

test('PUT again adds the fields it names in place: every document kept and found, the new fields written and filtered on', async () => {
  wrote('up', await call('PUT', '/v1/ns/up', { json: { schema: { userId: 'keyword' } } }), 201);
  wrote('up', await call('POST', '/v1/ns/up/docs', { json: [
    { id: 'a', title: 'Deploy rules', text: 'Never deploy on Fridays.', userId: 'u1' },
    { id: 'b', title: 'Database', text: 'Deploy migrations first.', userId: 'u2' },
  ] }));
  const before = await ids('up', { query: 'deploy' });
  const refused = await call('PUT', '/v1/ns/up/docs/c', { json: { text: 'deploy the rota', team: 'ops' } });
  assert.equal(refused.status, 400, 'team is not declared yet');
  assert.match(refused.body.error.message, /PUT \/v1\/ns\/up .*later/);

  const up = wrote('up', await call('PUT', '/v1/ns/up', { json: { schema: { team: 'keyword', priority: 'number' } } }));
  assert.equal(up.created, false);
  assert.deepEqual(up.schema, { userId: 'keyword', team: 'keyword', priority: 'number' });
  assert.deepEqual(await ids('up', { query: 'deploy' }), before, 'same documents, same ranking');
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { userId: 'u2' } }), ['b'], 'old fields still filter');

  wrote('up', await call('PUT', '/v1/ns/up/docs/c', { json: { text: 'deploy the rota', team: 'ops', priority: 2 } }));
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { team: 'ops' } }), ['c']);
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { priority: { gte: 2 } } }), ['c']);
  const shown = await show('up');
  assert.deepEqual(shown.schema, up.schema);
  assert.equal(shown.documents, 3);
  const again = wrote('up', await call('PUT', '/v1/ns/up', { json: { schema: { team: 'keyword' } } }));
  assert.deepEqual(again.schema, up.schema, 'naming a field as it is changes nothing');
});

test('a change that needs a rebuild is SCHEMA naming the field and the change; nothing changes', async () => {
  const r = await call('PUT', '/v1/ns/up', { json: { schema: { userId: 'number' } } });
  assert.equal(r.status, 400, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'SCHEMA');
  assert.equal(r.body.error.data?.field, 'userId', JSON.stringify(r.body.error));
  assert.ok(r.body.error.data?.change, JSON.stringify(r.body.error));
  const shown = await show('up');
  assert.equal(shown.schema.userId, 'keyword');
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { userId: 'u1' } }), ['a']);
  const tooMany = await call('PUT', '/v1/ns/up', { json: { schema: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, 'keyword'])) } });
  assert.equal(tooMany.status, 400, JSON.stringify(tooMany.body));
  assert.equal(tooMany.body.error.code, 'LIMIT');
});

test('a namespace its first write created gains fields the same way; the MCP tools see a vector field added later', async () => {
  wrote('plain', await call('PUT', '/v1/ns/plain/docs/1', { json: { text: 'plain memory about deploys' } }));
  const up = wrote('plain', await call('PUT', '/v1/ns/plain', { json: { schema: { userId: 'keyword', embedding: { type: 'vector', dimensions: 3 } } } }));
  assert.equal(up.created, false);
  wrote('plain', await call('PUT', '/v1/ns/plain/docs/2', { json: { text: 'second memory', userId: 'u9', embedding: [0, 1, 0] } }));
  assert.deepEqual(await ids('plain', { query: '', vector: [0, 1, 0], limit: 1 }), ['2']);
  assert.deepEqual(await ids('plain', { query: 'deploys' }), ['1']);
  // The tools learn the vector field from the upgraded schema: `vector` goes there.
  const mcp = new Client({ name: 'memdex-schema-upgrade-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', w.base), { requestInit: { headers: { authorization: `Bearer ${w.keys.plain}` } } }));
  try {
    const stored = await mcp.callTool({ name: 'memory_store', arguments: { title: 'Third', text: 'stored over MCP', vector: [0, 0, 1] } });
    assert.ok(!stored.isError, JSON.stringify(stored));
    const found = await mcp.callTool({ name: 'memory_search', arguments: { query: '', vector: [0, 0, 1], limit: 1 } });
    assert.ok(!found.isError, JSON.stringify(found));
    assert.equal(found.structuredContent.hits[0].title, 'Third');
  } finally {
    await mcp.close();
  }
});

test('an upgrade whose commit fails answers STORAGE and changes nothing, also after a restart; one whose swap stored answers 200', async () => {
  const writers = await w.mf.getDurableObjectNamespace('MEMDEX_WRITER');
  const writer = writers.get(writers.idFromName('up'));
  assert.equal((await writer.testHook('fail:manifest')).ok, true);
  const failed = await call('PUT', '/v1/ns/up', { json: { schema: { region: 'keyword' } } });
  assert.equal(failed.status, 503, JSON.stringify(failed.body));
  assert.equal(failed.body.error.code, 'STORAGE');
  const refused = await call('PUT', '/v1/ns/up/docs/e', { json: { text: 'deploy', region: 'eu' } });
  assert.equal(refused.status, 400, 'the failed upgrade is not applied by a later write');
  assert.equal((await show('up')).schema.region, undefined);

  assert.equal((await writer.testHook('fail:manifest-after')).ok, true);
  const stored = wrote('up', await call('PUT', '/v1/ns/up', { json: { schema: { zone: 'keyword' } } }));
  assert.equal(stored.schema.zone, 'keyword', 'the swap stored: the upgrade is acknowledged');
  wrote('up', await call('PUT', '/v1/ns/up/docs/e', { json: { text: 'deploy in the zone', zone: 'z1' } }));
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { zone: 'z1' } }), ['e']);
});

test('the upgraded schema survives a restart of workerd', async () => {
  await w.mf.dispose();
  w = await startWorker({ keys: KEYS, persist, vars: VARS });
  call = w.client(w.keys.admin);
  const shown = await show('up');
  assert.deepEqual(shown.schema, { userId: 'keyword', team: 'keyword', priority: 'number', zone: 'keyword' }, 'the failed upgrade (region) stayed undone');
  assert.deepEqual(await ids('up', { query: 'deploy', filter: { team: 'ops' } }), ['c']);
  wrote('up', await call('PUT', '/v1/ns/up/docs/d', { json: { text: 'deploy after the restart', team: 'ops' } }));
  assert.deepEqual((await ids('up', { query: 'deploy', filter: { team: 'ops' } })).sort(), ['c', 'd']);
});
