// memdex/tools with the official MCP SDK: an in-process low-level `Server`
// serves memoryTools through handleToolCall; a real SDK `Client` talks to it
// over InMemoryTransport (tools/list, tools/call).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

import { Memdex } from '../../pkg/node.js';
import { memoryTools, handleToolCall } from '../../pkg/tools.js';

async function connect(index, options) {
  const server = new Server({ name: 'memdex-test', version: '0.1.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...memoryTools] }));
  server.setRequestHandler(CallToolRequestSchema, async (req) =>
    handleToolCall(index, req.params.name, req.params.arguments ?? {}, options),
  );
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'memdex-test-client', version: '0.1.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return { client, server };
}

test('tools/list exposes the four memory tools with JSON Schemas', async () => {
  const index = await Memdex.open();
  const { client } = await connect(index);
  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ['memory_delete', 'memory_get', 'memory_search', 'memory_store']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object');
    assert.ok(t.description.length > 20);
  }
  assert.deepEqual(tools.find((t) => t.name === 'memory_search').inputSchema.required, ['query']);
  await client.close();
  await index.close();
});

test('tools/call: store, search (bounded), get, delete; invalid arguments are isError', async () => {
  const index = await Memdex.open();
  const { client } = await connect(index);
  const call = (name, args) => client.callTool({ name, arguments: args });

  const stored = await call('memory_store', { id: 'r1', title: 'Never deploy on Fridays', text: 'Deployments are frozen from Friday noon.', kind: 'rule', namespace: 'coder' });
  assert.equal(stored.isError, false);
  assert.deepEqual(stored.structuredContent, { id: 'r1', stored: true, replaced: false });
  const auto = await call('memory_store', { text: 'The billing service uses PostgreSQL with row level security.' });
  assert.match(auto.structuredContent.id, /^mem-/);
  for (let i = 0; i < 30; i++) {
    await call('memory_store', { title: `deploy log ${i}`, text: `deploy ${'step '.repeat(80)} number ${i}`, namespace: 'ops' });
  }

  const found = await call('memory_search', { query: 'deploying on friday', limit: 3 });
  assert.equal(found.isError, false);
  assert.equal(found.structuredContent.hits[0].id, 'r1');
  assert.match(found.content[0].text, /\[r1\] Never deploy on Fridays/);

  const scoped = await call('memory_search', { query: 'deploy', namespace: 'coder' });
  assert.deepEqual(scoped.structuredContent.hits.map((h) => h.id), ['r1']);

  const bounded = await call('memory_search', { query: 'deploy step', limit: 20, maxChars: 600, namespace: 'ops' });
  assert.equal(bounded.isError, false);
  assert.equal(bounded.structuredContent.truncated, true);
  assert.ok(bounded.structuredContent.returned < 20);
  assert.ok(bounded.content[0].text.length < 900, `text is ${bounded.content[0].text.length} chars`);
  assert.match(bounded.content[0].text, /truncated to the 600-character budget/);

  const got = await call('memory_get', { id: 'r1' });
  assert.equal(got.structuredContent.memory.title, 'Never deploy on Fridays');
  assert.equal((await call('memory_delete', { id: 'r1' })).structuredContent.deleted, true);
  const gone = await call('memory_get', { id: 'r1' });
  assert.equal(gone.isError, true);
  assert.match(gone.content[0].text, /No memory with id "r1"/);

  for (const [name, args, pattern] of [
    ['memory_search', {}, /"query" is required/],
    ['memory_search', { query: 'x', limit: 500 }, /"limit" must be between 1 and 50/],
    ['memory_search', { query: 'x', mode: 'xor' }, /"mode" must be one of/],
    ['memory_store', { text: 42 }, /"text" must be a string/],
    ['memory_get', { id: 'a', extra: 1 }, /unknown argument "extra"/],
    ['memory_forget', {}, /unknown tool/],
  ]) {
    const res = await call(name, args);
    assert.equal(res.isError, true, name);
    assert.match(res.content[0].text, pattern);
  }
  await client.close();
  await index.close();
});

test('a pinned namespace isolates tenants', async () => {
  const index = await Memdex.open();
  index.add({ id: 'secret', namespace: 'tenant-b', title: 'tenant b secret', text: 'launch codes' });
  const { client } = await connect(index, { namespace: 'tenant-a' });
  const call = (name, args) => client.callTool({ name, arguments: args });
  await call('memory_store', { id: 'a1', text: 'tenant a launch plan' });
  assert.equal(index.get('a1').namespace, 'tenant-a');
  const res = await call('memory_search', { query: 'launch' });
  assert.deepEqual(res.structuredContent.hits.map((h) => h.id), ['a1']);
  assert.equal((await call('memory_get', { id: 'secret' })).isError, true);
  assert.equal((await call('memory_delete', { id: 'secret' })).isError, true);
  assert.equal((await call('memory_search', { query: 'launch', namespace: 'tenant-b' })).isError, true);
  assert.ok(index.get('secret'));
  await client.close();
  await index.close();
});
