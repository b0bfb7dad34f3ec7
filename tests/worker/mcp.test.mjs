// MCP over HTTP: the official @modelcontextprotocol/sdk client connects to
// the Worker started by `make worker` (a real process, as a user runs it),
// lists the tools, stores a memory and finds it; tools are scoped by key
// (pinned to a key's one namespace, a required namespace argument for keys
// with several, read tools only for read keys); REST and MCP share ids; the
// raw JSON-RPC edges (parse errors, notifications, batches, unknown
// methods, a session header, protocol version header).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { client, freePort, makeKeys, startMakeWorker, tempDir } from './support/helpers.mjs';

let server;
let keys;
before(async () => {
  const made = await makeKeys({
    coder: { namespaces: ['agent:coder'], role: 'write' },
    team: { namespaces: ['team:*'], role: 'write' },
    reader: { namespaces: ['agent:coder'], role: 'read' },
  });
  keys = made.keys;
  server = await startMakeWorker({ port: await freePort(), state: tempDir('mcp'), secret: made.secret });
});
after(async () => {
  await server?.stop();
});

async function connect(key) {
  const c = new Client({ name: 'memdex-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', server.base), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  await c.connect(transport);
  return c;
}

const text = (result) => result.content[0].text;

test('the SDK client lists the tools, stores a memory and finds it (key pinned to one namespace)', async () => {
  const c = await connect(keys.coder);
  try {
    assert.equal(c.getServerVersion().name, 'memdex');
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['memory_delete', 'memory_get', 'memory_list', 'memory_related', 'memory_search', 'memory_store', 'memory_update']);
    assert.ok(tools.every((t) => !('namespace' in t.inputSchema.properties)), 'pinned: no namespace argument');

    const stored = await c.callTool({
      name: 'memory_store',
      arguments: { id: 'deploy-rule', title: 'Never deploy on Fridays', text: 'Deploys wait until Monday; the on-call rotation is thin on weekends.', kind: 'rule', tags: ['ops'] },
    });
    assert.equal(stored.isError, false, text(stored));
    const generation = stored._meta['memdex/generation'];
    assert.ok(Number.isInteger(generation) && generation >= 1);

    const found = await c.callTool({ name: 'memory_search', arguments: { query: 'deploying on friday' } });
    assert.equal(found.isError, false, text(found));
    assert.equal(found.structuredContent.hits[0].id, 'deploy-rule');
    assert.match(text(found), /Never deploy on Fridays/);

    const got = await c.callTool({ name: 'memory_get', arguments: { ids: ['deploy-rule'] } });
    assert.equal(got.isError, false, text(got));
    assert.match(text(got), /on-call rotation/);

    // The same memory over REST, under the same id.
    const rest = await client(server.base, keys.coder)('GET', `/v1/ns/agent:coder/docs/deploy-rule?minGeneration=${generation}`);
    assert.equal(rest.status, 200);
    assert.equal(rest.body.title, 'Never deploy on Fridays');
  } finally {
    await c.close();
  }
});

test('a key with several namespaces passes a namespace; outside its grant is refused', async () => {
  const c = await connect(keys.team);
  try {
    const { tools } = await c.listTools();
    const store = tools.find((t) => t.name === 'memory_store');
    assert.ok(store.inputSchema.required.includes('namespace'));
    assert.match(store.inputSchema.properties.namespace.description, /team:\*/);

    const stored = await c.callTool({ name: 'memory_store', arguments: { namespace: 'team:infra', text: 'The staging database is postgres 16 on port 5433.' } });
    assert.equal(stored.isError, false, text(stored));
    const hit = await c.callTool({ name: 'memory_search', arguments: { namespace: 'team:infra', query: 'staging postgres port' } });
    assert.equal(hit.isError, false, text(hit));
    assert.equal(hit.structuredContent.hits.length, 1);

    const missing = await c.callTool({ name: 'memory_search', arguments: { query: 'postgres' } });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /namespace/);
    const other = await c.callTool({ name: 'memory_search', arguments: { namespace: 'agent:coder', query: 'deploy' } });
    assert.equal(other.isError, true);
    assert.match(text(other), /^FORBIDDEN/);
    const empty = await c.callTool({ name: 'memory_search', arguments: { namespace: 'team:nothing-yet', query: 'x' } });
    assert.equal(empty.isError, true);
    assert.match(text(empty), /^NOT_FOUND/);
  } finally {
    await c.close();
  }
});

test('a read key gets the read tools only; a write tool call is refused', async () => {
  const c = await connect(keys.reader);
  try {
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ['memory_get', 'memory_list', 'memory_related', 'memory_search']);
    const refused = await c.callTool({ name: 'memory_store', arguments: { text: 'should not be stored' } });
    assert.equal(refused.isError, true);
    const listed = await c.callTool({ name: 'memory_list', arguments: {} });
    assert.equal(listed.isError, false, text(listed));
    assert.ok(!text(listed).includes('should not be stored'));
  } finally {
    await c.close();
  }
});

test('raw JSON-RPC: ping, a session header, notifications (202), batches, errors', async () => {
  const post = (body, headers = {}) =>
    fetch(new URL('/mcp', server.base), {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.coder}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const ping = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-session-id': 'whatever-a-client-kept', 'mcp-protocol-version': '2025-06-18' });
  assert.equal(ping.status, 200);
  assert.deepEqual(await ping.json(), { jsonrpc: '2.0', id: 1, result: {} });
  assert.equal(ping.headers.get('mcp-session-id'), null, 'stateless: no session issued');

  const note = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  assert.equal(note.status, 202);

  const batch = await post([
    { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 'b', method: 'no/such' },
  ]);
  const replies = await batch.json();
  assert.equal(replies.length, 2);
  assert.ok(replies[0].result.tools.length > 0);
  assert.equal(replies[1].error.code, -32601);

  const parse = await post('{"jsonrpc":');
  assert.equal(parse.status, 400);
  assert.equal((await parse.json()).error.code, -32700);
  const invalid = await post({ id: 3, method: 'ping' });
  assert.equal((await invalid.json()).error.code, -32600);
  const badParams = await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 5 } });
  assert.equal((await badParams.json()).error.code, -32602);
  const version = await post({ jsonrpc: '2.0', id: 5, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
  assert.equal(version.status, 400);

  const init = await post({ jsonrpc: '2.0', id: 6, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } });
  const { result } = await init.json();
  assert.equal(result.protocolVersion, '2025-03-26');
  assert.deepEqual(result.capabilities, { tools: { listChanged: false } });
});
