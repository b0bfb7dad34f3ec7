// memdex/tools and memdex/mcp in process: createMemoryServer (the SDK's
// McpServer, not the deprecated low-level Server) on an in-memory index, a
// real SDK Client over InMemoryTransport. The stdio server is
// mcp-server.test.mjs; the agent workflow mcp-agent.test.mjs; tenancy
// mcp-tenancy.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

import { Memdex } from '../../pkg/node.js';
import { createMemoryServer } from '../../pkg/mcp.js';
import { handleToolCall, memoryTools, toolDefinitions, validateToolArguments } from '../../pkg/tools.js';

async function connect(index, options) {
  const server = createMemoryServer(index, options);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'memdex-test-client', version: '0.1.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  const call = (name, args) => client.callTool({ name, arguments: args });
  return { client, server, call };
}

test('definitions: seven tools; pinned servers take no namespace; read-only ones only read', () => {
  assert.deepEqual(memoryTools.map((t) => t.name), ['memory_search', 'memory_list', 'memory_get', 'memory_related', 'memory_store', 'memory_update', 'memory_delete']);
  for (const t of memoryTools) assert.ok(t.inputSchema.properties.namespace, t.name);
  for (const t of toolDefinitions({ namespace: 'a' })) {
    assert.equal(t.inputSchema.properties.namespace, undefined, t.name);
    assert.doesNotMatch(t.description, /namespace/, t.name);
  }
  assert.deepEqual(toolDefinitions({ readOnly: true }).map((t) => t.name), ['memory_search', 'memory_list', 'memory_get', 'memory_related']);
  assert.deepEqual(validateToolArguments('memory_search', { query: 'x', namespace: 'b' }, { namespace: 'a' }), [
    'unknown argument "namespace"; allowed: query, kind, tags, since, until, mode, order, limit, maxChars, budgetTokens, expand, vector, semantic',
  ]);
  assert.match(validateToolArguments('memory_store', { text: 'x' }, { readOnly: true })[0], /not available on this read-only server/);
});

test('in process through McpServer: store, search, list, get, update, delete', async () => {
  const index = await Memdex.open();
  const { client, call } = await connect(index);
  const { tools } = await client.listTools();
  assert.equal(tools.length, 7);
  const stored = await call('memory_store', { id: 'r1', title: 'Never deploy on Fridays', text: 'Deployments are frozen from Friday noon.', kind: 'rule', namespace: 'coder' });
  assert.deepEqual(stored.structuredContent, { stored: [{ id: 'r1', replaced: false }], count: 1 });
  // Namespaced memories are stored under namespace + U+001F + id.
  assert.equal(index.get('coder\u001fr1').namespace, 'coder');
  const found = await call('memory_search', { query: 'deploying on friday', namespace: 'coder' });
  assert.equal(found.structuredContent.hits[0].id, 'r1');
  assert.equal(found.structuredContent.hits[0].namespace, 'coder');
  // Unpinned: ids are per namespace, so the namespace goes with the id.
  assert.equal((await call('memory_get', { id: 'r1' })).isError, true);
  assert.match((await call('memory_get', { id: 'r1' })).content[0].text, /memories in a namespace need namespace as well/);
  assert.equal((await call('memory_get', { id: 'r1', namespace: 'coder' })).structuredContent.memories[0].title, 'Never deploy on Fridays');
  await call('memory_update', { id: 'r1', namespace: 'coder', kind: 'policy' });
  assert.equal(index.get('coder\u001fr1').title, 'Never deploy on Fridays');
  assert.equal(index.get('coder\u001fr1').kind, 'policy');
  assert.deepEqual((await call('memory_list', { namespace: 'coder' })).structuredContent.memories.map((m) => m.id), ['r1']);
  assert.equal((await call('memory_delete', { id: 'r1', namespace: 'coder' })).structuredContent.deleted, 1);
  assert.equal(index.size, 0);
  await client.close();
  await index.close();
});

test('documents added with the JS API are found by the tools, by their own id', async () => {
  const index = await Memdex.open();
  index.add({ id: 'm1', namespace: 'agent:coder', kind: 'rule', title: 'Squash merges only', text: 'Merge pull requests with squash.', timestamp: 1767225600000 });
  index.add({ id: 'loose', title: 'No namespace', text: 'A memory without a namespace.' });
  const pinned = { namespace: 'agent:coder' };
  const got = await handleToolCall(index, 'memory_get', { id: 'm1' }, pinned);
  assert.equal(got.structuredContent.memories[0].title, 'Squash merges only');
  assert.equal(got.structuredContent.memories[0].timestamp, '2026-01-01T00:00:00.000Z');
  const upd = await handleToolCall(index, 'memory_update', { id: 'm1', tags: ['git'] }, pinned);
  assert.equal(upd.isError, false);
  assert.deepEqual(index.get('m1').tags, ['git']); // updated in place, same engine id
  assert.equal(index.get('agent:coder\u001fm1'), undefined);
  const hits = await handleToolCall(index, 'memory_search', { query: 'squash' }, pinned);
  assert.deepEqual(hits.structuredContent.hits.map((h) => h.id), ['m1']);
  assert.equal((await handleToolCall(index, 'memory_get', { id: 'loose' })).structuredContent.memories[0].title, 'No namespace');
  await index.close();
});

test('a namespace ending in * is a prefix for search, list and delete by filter, and rejected elsewhere', async () => {
  const index = await Memdex.open();
  for (const ns of ['repo:webapp/main', 'repo:webapp/dev', 'repo:api/main', 'other']) {
    const r = await handleToolCall(index, 'memory_store', { namespace: ns, title: `Deploy notes of ${ns}`, text: 'deploy notes', kind: 'note' });
    assert.equal(r.isError, false, r.content[0].text);
  }
  const found = await handleToolCall(index, 'memory_search', { namespace: 'repo:webapp/*', query: 'deploy' });
  assert.deepEqual(found.structuredContent.hits.map((h) => h.namespace).sort(), ['repo:webapp/dev', 'repo:webapp/main']);
  const listed = await handleToolCall(index, 'memory_list', { namespace: 'repo:*' });
  assert.equal(listed.structuredContent.total, 3);
  for (const [tool, args] of [['memory_store', { text: 'x' }], ['memory_get', { id: 'x' }], ['memory_delete', { id: 'x' }]]) {
    const r = await handleToolCall(index, tool, { namespace: 'repo:*', ...args });
    assert.equal(r.isError, true, tool);
    assert.match(r.content[0].text, /^USAGE: "namespace": "repo:\*" ends in \*/);
  }
  const preview = await handleToolCall(index, 'memory_delete', { namespace: 'repo:api/*', kind: 'note' });
  assert.match(preview.content[0].text, /1/);
  const deleted = await handleToolCall(index, 'memory_delete', { namespace: 'repo:api/*', kind: 'note', confirm: true });
  assert.equal(deleted.isError, false, deleted.content[0].text);
  assert.equal(index.count({ namespace: 'repo:*' }), 2);
  await index.close();
});

test('a host caps answer sizes with maxChars; now() drives default timestamps and relative times', async () => {
  const index = await Memdex.open();
  const now = () => Date.parse('2026-06-10T12:00:00Z');
  const opts = { maxChars: 600, now };
  await handleToolCall(
    index,
    'memory_store',
    { memories: Array.from({ length: 12 }, (_, i) => ({ title: `note ${i}`, text: `cache warmup ${'details '.repeat(30)}`, timestamp: `2026-06-0${1 + (i % 9)}T08:00:00Z` })) },
    opts,
  );
  await handleToolCall(index, 'memory_store', { id: 'fresh', text: 'cache warmup today' }, opts);
  assert.equal(index.get('fresh').timestamp, '2026-06-10T12:00:00.000Z');
  const res = await handleToolCall(index, 'memory_search', { query: 'cache warmup', maxChars: 5000, limit: 20 }, opts);
  assert.equal(res.structuredContent.maxChars, 600);
  assert.ok(res.content[0].text.length < 900, `${res.content[0].text.length}`);
  const lastDay = await handleToolCall(index, 'memory_list', { since: '1d' }, opts);
  assert.deepEqual(lastDay.structuredContent.memories.map((m) => m.id), ['fresh']);
  const week = await handleToolCall(index, 'memory_list', { since: '7d', until: '2026-06-05' }, opts);
  // 7d back from June 10 noon is June 3 noon; until a date includes that day.
  assert.deepEqual(week.structuredContent.memories.map((m) => m.title), ['note 4', 'note 3']);
  await index.close();
});

test('a failed call writes nothing: a rejected memory in a batch undoes the ones before it', async () => {
  const index = await Memdex.open({ schema: { title: { type: 'text' }, text: { type: 'text' }, timestamp: { type: 'date' } }, defaultSchema: false });
  index.add({ id: 'old', title: 'kept', text: 'original' });
  const res = await handleToolCall(index, 'memory_store', {
    replace: true,
    memories: [
      { id: 'old', text: 'overwritten?' },
      { id: 'new', text: 'added?' },
      { id: 'tagged', text: 'tags are not in this schema', tags: ['x'] },
    ],
  });
  assert.equal(res.isError, true);
  assert.match(res.content[0].text, /^SCHEMA: .*`tags`.*created before tags and links existed/);
  assert.equal(index.get('old').text, 'original');
  assert.equal(index.get('new'), undefined);
  assert.equal(index.size, 1);
  await index.close();
});

test('the browser bundle has none of the server: no SDK, no zod, no tools; memdex/tools bundles for browsers without them', async () => {
  const esbuild = await import('esbuild');
  const pkg = new URL('../../pkg/', import.meta.url).pathname;
  const bundle = async (entry) => {
    const r = await esbuild.build({
      entryPoints: [`${pkg}${entry}`],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
      external: ['*.wasm'],
    });
    return Buffer.from(r.outputFiles[0].contents).toString('utf8');
  };
  const browser = await bundle('index.js');
  for (const absent of ['modelcontextprotocol', 'McpServer', 'zod', 'memory_search', 'serveStdio']) {
    assert.ok(!browser.includes(absent), `index.js bundle contains ${absent}`);
  }
  const tools = await bundle('tools.js');
  assert.ok(tools.includes('memory_search'));
  for (const absent of ['modelcontextprotocol', 'McpServer', 'zod', 'node:fs']) {
    assert.ok(!tools.includes(absent), `tools.js bundle contains ${absent}`);
  }
});

test('links through the tools: search with expand, memory_related, budgetTokens (namespaced ids)', async () => {
  const index = await Memdex.open();
  const { call } = await connect(index);
  const ns = 'proj';
  await call('memory_store', {
    namespace: ns,
    memories: [
      { id: 'db', title: 'Database is Postgres 16', text: 'We chose Postgres for the billing service.', kind: 'decision', links: [{ type: 'SUPERSEDES', to: 'db-old' }] },
      { id: 'db-old', title: 'Database was MySQL', text: 'Old choice, replaced.', kind: 'decision' },
      { id: 'api', title: 'Billing API', text: 'The API reads invoices.', kind: 'note', links: [{ type: 'DEPENDS_ON', to: 'db' }] },
    ],
  });
  // Stored links point at engine ids; the tools show tool ids.
  assert.deepEqual(index.get(`${ns}\u001fapi`).links, [{ type: 'DEPENDS_ON', to: `${ns}\u001fdb` }]);
  const got = await call('memory_get', { namespace: ns, id: 'api' });
  assert.deepEqual(got.structuredContent.memories[0].links, [{ type: 'DEPENDS_ON', to: 'db' }]);

  const plain = await call('memory_search', { namespace: ns, query: 'postgres billing', mode: 'and' });
  assert.deepEqual(plain.structuredContent.hits.map((h) => h.id), ['db']);
  const expanded = await call('memory_search', { namespace: ns, query: 'postgres billing', mode: 'and', expand: { hops: 1, direction: 'both' } });
  const hits = expanded.structuredContent.hits;
  assert.deepEqual(hits.map((h) => h.id).sort(), ['api', 'db', 'db-old']);
  assert.deepEqual(hits.find((h) => h.id === 'api').via, { from: 'db', type: 'DEPENDS_ON', hops: 1 });

  const rel = await call('memory_related', { namespace: ns, id: 'db', direction: 'in' });
  assert.equal(rel.isError, false);
  assert.deepEqual(rel.structuredContent.memories.map((m) => [m.id, m.via.type]), [['api', 'DEPENDS_ON']]);
  assert.match(rel.content[0].text, /api/);
  const none = await call('memory_related', { namespace: ns, id: 'db-old' });
  assert.equal(none.structuredContent.returned, 0);
  const missing = await call('memory_related', { namespace: ns, id: 'nope' });
  assert.equal(missing.isError, true);
  assert.equal(missing._meta['memdex/code'], 'NOT_FOUND');
  const bad = await call('memory_related', { namespace: ns, id: 'db', hops: 4 });
  assert.equal(bad.isError, true);

  for (const budgetTokens of [200, 300, 1000]) {
    const r = await call('memory_search', { namespace: ns, query: 'billing database postgres invoices', mode: 'or', budgetTokens });
    assert.equal(r.isError, false, r.content[0].text);
    assert.ok(Math.ceil(r.content[0].text.length / 4) <= budgetTokens, `${budgetTokens}`);
    assert.equal(r.structuredContent.usedTokens, Math.ceil(r.content[0].text.length / 4));
  }
});

test('memory_search tolerates typos: a word no memory contains matches its near spellings; known words stay exact', async () => {
  const index = await Memdex.open();
  const { call } = await connect(index);
  await call('memory_store', { id: 'pg', title: 'Postgres pooling', text: 'Use pgbouncer in front of postgres for connection pooling.' });
  await call('memory_store', { id: 'post', title: 'Blog post', text: 'A post about deploys.' });
  const typo = await call('memory_search', { query: 'postgress' });
  assert.equal(typo.isError, false);
  assert.deepEqual(typo.structuredContent.hits.map((h) => h.id), ['pg']);
  // The library's default is exact: the same words find only what they spell.
  assert.deepEqual(index.search('postgress').hits, []);
  // A word the index has is taken as meant: "post" does not also match "postgres".
  const exact = await call('memory_search', { query: 'post' });
  assert.deepEqual(exact.structuredContent.hits.map((h) => h.id), ['post']);
  await index.close();
});
