// A hostile caller with a valid read key, or none (issue 27, points 3, 4
// and 7), in workerd:
// - limits count work: each JSON-RPC message of a /mcp batch costs a token
//   (a batch over the key's tokens is refused whole), a batch has at most
//   maxBatchMessages messages, and requests with a missing or invalid key
//   are limited per client address; the buckets themselves are bounded;
// - the reader's copy cache keeps no namespace that does not exist and at
//   most MEMDEX_CACHE_ENTRIES copies;
// - a read (or a write that cannot create) never stores anything in a
//   namespace's Durable Object: fifty reads of made-up names leave fifty
//   objects without state (checked in the objects' SQLite files);
// - a delete filter naming another namespace deletes nothing (its namespace
//   is intersected with the URL's), and /mcp takes a namespace prefix only
//   for search and list, within the key's grant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startWorker, tempDir, useTestWorker } from './support/helpers.mjs';

let w;
let call;
before(async () => {
  w = await startWorker({
    keys: {
      admin: { namespaces: ['*'], role: 'admin' },
      slow: { namespaces: ['*'], role: 'read', requestsPerMinute: 5 },
      teamA: { namespaces: ['team-a:*'], role: 'read' },
      tenant: { namespaces: ['t:*'], role: 'write' },
    },
    vars: { MEMDEX_CACHE_ENTRIES: '3' },
  });
  call = w.client(w.keys.admin);
});
after(async () => {
  await w?.mf.dispose();
});

const isolate = async () => (await call('GET', '/v1/namespaces')).body.isolate;
const rpc = (client, messages) => client('POST', '/mcp', { json: messages, headers: { accept: 'application/json, text/event-stream' } });
const ping = (i) => ({ jsonrpc: '2.0', id: i, method: 'ping' });

function assertLimit(r, status, limit) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.equal(r.body.error.code, 'LIMIT');
  assert.equal(r.body.error.limit, limit);
}

test('each JSON-RPC message of a batch costs a rate-limit token; a batch over the tokens left is refused whole', async () => {
  const slow = w.client(w.keys.slow); // 5 requests a minute
  // Six messages in one request are six requests' worth: refused, none ran.
  assertLimit(await rpc(slow, Array.from({ length: 6 }, (_, i) => ping(i))), 429, 'requestsPerMinute');
  // The refused batch took its request's token only: four are left.
  const four = await rpc(slow, Array.from({ length: 4 }, (_, i) => ping(i)));
  assert.equal(four.status, 200, JSON.stringify(four.body));
  assert.equal(four.body.length, 4);
  const r = await slow('GET', '/v1/namespaces');
  assertLimit(r, 429, 'requestsPerMinute');
  assert.ok(Number(r.headers.get('retry-after')) >= 1);
});

test('a batch over maxBatchMessages (default 20) is 413 LIMIT and runs nothing', async () => {
  const store = (i) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'memory_store', arguments: { namespace: 'batch', id: `m${i}`, text: `batched ${i}` } } });
  assertLimit(await rpc(call, Array.from({ length: 21 }, (_, i) => store(i))), 413, 'maxBatchMessages');
  assert.equal((await call('GET', '/v1/ns/batch/stats?minGeneration=1')).status, 404, 'nothing of the refused batch was stored');
  const fine = await rpc(call, Array.from({ length: 20 }, (_, i) => ping(i)));
  assert.equal(fine.status, 200);
  assert.equal(fine.body.length, 20);
});

test('requests with a missing or invalid key are limited per client address (1,500 sent: 429s)', async () => {
  const statuses = [];
  for (let i = 0; i < 1500; i += 50) {
    const wave = await Promise.all(
      Array.from({ length: 50 }, (_, j) =>
        call('GET', '/v1/namespaces', { key: j % 2 ? `mdx_guess${i + j}` : '', headers: { 'cf-connecting-ip': '203.0.113.7' } }),
      ),
    );
    statuses.push(...wave.map((r) => r.status));
  }
  const limited = statuses.filter((s) => s === 429).length;
  assert.equal(statuses.filter((s) => s === 401).length + limited, 1500);
  assert.ok(limited >= 1400, `${limited} of 1,500 bad-key requests got 429 (default authFailuresPerMinute 60)`);
  // (The bucket refills one token a second: of a few more, one may be a 401.)
  const more = await Promise.all([0, 1, 2].map(() => call('GET', '/v1/namespaces', { key: 'mdx_wrong', headers: { 'cf-connecting-ip': '203.0.113.7' } })));
  const r = more.find((m) => m.status === 429);
  assertLimit(r, 429, 'authFailuresPerMinute');
  assert.ok(Number(r.headers.get('retry-after')) >= 1);
  // Another address still gets its 401, and a valid key from the same address is served.
  assert.equal((await call('GET', '/v1/namespaces', { key: 'mdx_wrong', headers: { 'cf-connecting-ip': '198.51.100.1' } })).status, 401);
  assert.equal((await call('GET', '/v1/namespaces', { headers: { 'cf-connecting-ip': '203.0.113.7' } })).status, 200);
  assert.ok((await isolate()).buckets.addresses >= 2);
});

// The bucket maps themselves, in workerd: a flood of addresses is bounded
// and cannot push a key's empty bucket out (which would refill it).
const RATE_WORKER = /* js */ `
import * as limits from '../../worker/src/ratelimit.js';
export default {
  async fetch() {
    const { bucketCounts, MAX_BUCKETS, takeAuthFailure, takeToken } = limits;
    if (!takeAuthFailure) return Response.json({ error: 'no per-address buckets' });
    let refused = 0;
    for (let i = 0; i < 5; i++) try { takeToken('victim', 3); } catch { refused++; }
    for (let i = 0; i < MAX_BUCKETS * 2; i++) {
      takeAuthFailure(new Request('http://x/', { headers: { 'cf-connecting-ip': 'a' + i } }), 60);
    }
    let after = 'served';
    try { takeToken('victim', 3); } catch (err) { after = err.extra.limit; }
    return Response.json({ refused, after, counts: bucketCounts(), max: MAX_BUCKETS });
  },
};`;

describe('rate-limit buckets', () => {
  const rate = useTestWorker(RATE_WORKER, 'ratelimit-inline', {}, { bundle: true });
  test('rate-limit state is bounded: 20,000 addresses keep at most MAX_BUCKETS buckets, and a key\'s empty bucket stays empty', async () => {
    const r = await rate.call('/');
    assert.equal(r.error, undefined);
    assert.equal(r.refused, 2);
    assert.equal(r.after, 'requestsPerMinute', 'the flood did not refill the key');
    assert.equal(r.counts.addresses, r.max);
    assert.equal(r.counts.keys, 1);
  });
});

test('reads of namespaces that do not exist leave no copy in the isolate; copies are capped by MEMDEX_CACHE_ENTRIES', async () => {
  const teamA = w.client(w.keys.teamA);
  const statuses = [];
  for (let i = 0; i < 300; i += 50) {
    const wave = await Promise.all(Array.from({ length: 50 }, (_, j) => teamA('GET', `/v1/ns/team-a:nx${i + j}/search?q=x`)));
    statuses.push(...wave.map((r) => r.status));
  }
  assert.ok(statuses.every((s) => s === 404));
  // MCP read tools take the same path.
  const mcp = await rpc(teamA, [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'memory_search', arguments: { namespace: 'team-a:mcp-nx', query: 'x' } } }]);
  assert.match(mcp.body[0].result.content[0].text, /NOT_FOUND/);
  const names = (await isolate()).namespaces.map((n) => n.ns);
  assert.deepEqual(names.filter((n) => n.startsWith('team-a:')), [], 'no entry for a namespace that does not exist');

  // Five real namespaces read in turn: at most three copies stay (least recently used out).
  for (let i = 0; i < 5; i++) await call('PUT', `/v1/ns/cap${i}/docs/a`, { json: { text: `capped ${i}` } });
  for (let i = 0; i < 5; i++) {
    // Wait for KV to show each namespace (its publish), then read it from the isolate.
    let r;
    for (let t = 0; t < 50; t++) {
      r = await call('GET', `/v1/ns/cap${i}/search?q=capped`);
      if (r.status === 200) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    assert.equal(r.headers.get('x-memdex-served-by'), 'isolate');
  }
  const info = await isolate();
  assert.ok(info.namespaces.length <= 3, `${info.namespaces.length} copies: ${JSON.stringify(info.namespaces)}`);
  assert.deepEqual(info.namespaces.map((n) => n.ns).sort(), ['cap2', 'cap3', 'cap4']);
});

test('a delete filter naming another namespace deletes nothing; one covering this namespace deletes here only', async () => {
  const tenant = w.client(w.keys.tenant);
  await tenant('POST', '/v1/ns/t:mine/docs', { json: [1, 2, 3].map((i) => ({ id: `d${i}`, text: `kept ${i}`, kind: 'note' })) });
  const w2 = await tenant('POST', '/v1/ns/t:other/docs', { json: [{ id: 'o1', text: 'other tenant', kind: 'note' }] });
  const count = async (ns, g) => (await tenant('GET', `/v1/ns/${ns}/stats?minGeneration=${g}`)).body.documents;

  // Searching with another namespace in the filter finds nothing here (never this namespace's documents).
  const other = await tenant('POST', '/v1/ns/t:mine/search', { json: { query: 'kept', filter: { namespace: 't:other' }, minGeneration: w2.body.generation } });
  assert.deepEqual(other.body.hits, []);
  for (const namespace of ['t:other', ['t:other', 'x'], { prefix: 't:oth' }, 'u:*']) {
    const r = await tenant('POST', '/v1/ns/t:mine/delete', { json: { filter: { namespace, kind: 'note' } } });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.removed, 0, `filter namespace ${JSON.stringify(namespace)} removed ${r.body.removed} of t:mine`);
    assert.equal(await count('t:mine', r.body.generation), 3);
  }
  // A condition that takes this namespace in deletes its matches, and only here.
  const r = await tenant('POST', '/v1/ns/t:mine/delete', { json: { filter: { namespace: ['t:other', 't:mine'], kind: 'note' } } });
  assert.equal(r.body.removed, 3);
  assert.equal(await count('t:mine', r.body.generation), 0);
  assert.equal(await count('t:other', w2.body.generation), 1);
});

test('/mcp: a prefix is for search and list only, never past the key\'s grant; a missing or malformed namespace says what to pass', async () => {
  const teamA = w.client(w.keys.teamA);
  const callTool = async (name, args) => (await rpc(teamA, [{ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }])).body[0].result;
  const get = await callTool('memory_get', { namespace: 'team-a:*', id: 'x' });
  assert.equal(get.isError, true);
  assert.match(get.content[0].text, /^USAGE: "namespace": "team-a:\*" is a prefix; memory_get works on one namespace/);
  // A prefix wider than the grant reads only what the key may use: here nothing exists.
  const wide = await callTool('memory_search', { namespace: '*', query: 'x' });
  assert.match(wide.content[0].text, /^NOT_FOUND: No namespace starting with "" that this key may use/);
  const missing = await callTool('memory_search', { query: 'x' });
  assert.match(missing.content[0].text, /^USAGE: .*"namespace" is missing; pass the namespace to use \(this key may use team-a:\*/);
  assert.doesNotMatch(missing.content[0].text, /is required/);
  const bad = await callTool('memory_search', { namespace: 'a b', query: 'x' });
  assert.match(bad.content[0].text, /^USAGE: .*"namespace" "a b" is not a namespace/);
  const tools = await rpc(teamA, [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }]);
  const ns = tools.body[0].result.tools[0].inputSchema.properties.namespace.description;
  assert.match(ns, /memory_search and memory_list also take a prefix ending in \*/);
});

test('reads and non-creating writes of namespaces that do not exist store nothing in their Durable Objects', async () => {
  const dir = tempDir('nostate');
  const v = await startWorker({
    persist: dir,
    keys: { reader: { namespaces: ['team-a:*'], role: 'read' }, writer: { namespaces: ['team-a:*'], role: 'write', maxNamespaces: 1 } },
  });
  const names = Array.from({ length: 50 }, () => `team-a:${Math.random().toString(36).slice(2)}`);
  const writers = await v.mf.getDurableObjectNamespace('MEMDEX_WRITER');
  let ids;
  try {
    const reader = v.client(v.keys.reader);
    const writer = v.client(v.keys.writer);
    for (const ns of names) assert.equal((await reader('GET', `/v1/ns/${ns}/stats?minGeneration=1`)).status, 404);
    for (const ns of names.slice(0, 10)) {
      assert.equal((await writer('DELETE', `/v1/ns/${ns}/docs/x`)).status, 404);
      assert.equal((await writer('POST', `/v1/ns/${ns}/delete`, { json: { filter: { kind: 'x' } } })).status, 404);
    }
    // The key's one namespace, then a creation its quota refuses (no state either).
    assert.equal((await writer('PUT', '/v1/ns/team-a:real/docs/a', { json: { text: 'exists' } })).status, 200);
    assert.equal((await writer('PUT', `/v1/ns/${names[0]}/docs/a`, { json: { text: 'over quota' } })).status, 403);
    assert.deepEqual((await reader('GET', '/v1/namespaces')).body.namespaces.map((n) => n.name), ['team-a:real']);
    ids = [...names, 'team-a:real'].map((ns) => writers.idFromName(ns).toString());
  } finally {
    await v.mf.dispose();
  }
  // workerd keeps each object's storage in its own SQLite file (created on
  // first use even when empty): a stored key's name appears in its bytes.
  const holds = (id) =>
    ['', '-wal'].some((ext) => {
      const file = join(dir, 'do', 'memdex-NamespaceWriter', `${id}.sqlite${ext}`);
      return existsSync(file) && readFileSync(file).includes('meta:ns');
    });
  assert.ok(holds(ids.at(-1)), 'the real namespace\'s object holds its state (the check sees stored keys)');
  const withState = names.filter((_, i) => holds(ids[i]));
  assert.deepEqual(withState, [], `${withState.length} of 50 made-up namespaces got stored state`);
});
