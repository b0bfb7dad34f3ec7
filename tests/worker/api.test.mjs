// Every REST route of the memdex Worker, in workerd (Miniflare), over HTTP:
// documents (PUT, bulk JSON and NDJSON, GET, DELETE, delete by filter),
// search (GET and POST with every option), suggest, stats, export (which
// Memdex.import reads back in Node), namespaces, health; namespaces are
// created by writes and never by reads; concurrent writes share commits.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Memdex } from '../../pkg/node.js';
import { startWorker } from './support/helpers.mjs';

const memories = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

let w;
let call;
before(async () => {
  w = await startWorker();
  call = w.client(w.keys.admin);
});
after(async () => {
  await w?.mf.dispose();
});

test('GET /health answers from inside workerd, without a key', async () => {
  const r = await call('GET', '/health', { key: null });
  assert.equal(r.status, 200);
  assert.equal(r.body.ok, true);
  // "Cloudflare-Workers" only inside workerd: the code ran in the Workers runtime.
  assert.equal(r.body.runtime, 'Cloudflare-Workers');
});

test('bulk JSON upsert, then search ranks the right memory; ids and namespace as the client gave them', async () => {
  const coder = memories.filter((m) => m.namespace === 'agent:coder');
  const added = await call('POST', '/v1/ns/agent:coder/docs', { json: coder });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  assert.equal(added.body.added, coder.length);
  assert.ok(added.body.generation >= 1);
  assert.equal(added.headers.get('x-memdex-generation'), String(added.body.generation));

  const r = await call('GET', `/v1/ns/agent:coder/search?q=deploying%20on%20friday&limit=3&minGeneration=${added.body.generation}`);
  assert.equal(r.status, 200);
  assert.equal(r.body.mode, 'or');
  assert.ok(r.body.hits.length >= 1 && r.body.hits.length <= 3);
  assert.equal(r.body.hits[0].fields.title, 'Never deploy on Fridays');
  assert.equal(r.body.hits[0].namespace, 'agent:coder');
  assert.ok(coder.some((m) => m.id === r.body.hits[0].id), 'the id is the one the client stored');
  assert.ok(r.body.generation >= added.body.generation);
  assert.equal(typeof r.body.tookMs, 'number');

  const stats = await call('GET', `/v1/ns/agent:coder/stats?minGeneration=${added.body.generation}`);
  assert.equal(stats.status, 200);
  assert.equal(stats.body.documents, coder.length);
  assert.equal(stats.body.generation, added.body.generation);
  // Stored fields are packed behind MEMDEX_PAGE_CACHE_BYTES (4 MiB); the
  // search above unpacked the page of its hits.
  assert.equal(stats.body.cache.limit, 4 << 20);
  assert.ok(stats.body.cache.unpacks >= 1 && stats.body.cache.bytes <= stats.body.cache.limit, JSON.stringify(stats.body.cache));
});

test('PUT, GET and DELETE one document; a PUT replaces it whole', async () => {
  const put = await call('PUT', '/v1/ns/t1/docs/d%2F1', { json: { title: 'to delete', text: 'ephemeral', kind: 'note' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.deepEqual(put.body, { added: 1, generation: put.body.generation });
  const g = put.body.generation;
  const got = await call('GET', `/v1/ns/t1/docs/d%2F1?minGeneration=${g}`);
  assert.equal(got.status, 200);
  assert.deepEqual(got.body, { id: 'd/1', namespace: 't1', title: 'to delete', text: 'ephemeral', kind: 'note' });

  const replaced = await call('PUT', '/v1/ns/t1/docs/d%2F1', { json: { id: 'd/1', text: 'second version' } });
  assert.equal(replaced.body.generation, g + 1);
  const again = await call('GET', `/v1/ns/t1/docs/d%2F1?minGeneration=${g + 1}`);
  assert.deepEqual(again.body, { id: 'd/1', namespace: 't1', text: 'second version' });

  const del = await call('DELETE', '/v1/ns/t1/docs/d%2F1');
  assert.equal(del.status, 200);
  assert.equal(del.body.removed, true);
  const gone = await call('GET', `/v1/ns/t1/docs/d%2F1?minGeneration=${del.body.generation}`);
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, 'NOT_FOUND');
  const delAgain = await call('DELETE', '/v1/ns/t1/docs/d%2F1');
  assert.equal(delAgain.body.removed, false);
});

test('NDJSON bulk upsert; delete by filter', async () => {
  const lines = [
    { id: 'n1', text: 'scratch one', kind: 'scratch' },
    { id: 'n2', text: 'scratch two', kind: 'scratch' },
    { id: 'n3', text: 'keeper', kind: 'rule' },
  ].map((d) => JSON.stringify(d));
  const r = await call('POST', '/v1/ns/t2/docs', { body: lines.join('\r\n') + '\n\n', headers: { 'content-type': 'application/x-ndjson' } });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.added, 3);
  const del = await call('POST', '/v1/ns/t2/delete', { json: { filter: { kind: 'scratch' } } });
  assert.equal(del.status, 200, JSON.stringify(del.body));
  assert.equal(del.body.removed, 2);
  const s = await call('GET', `/v1/ns/t2/search?q=scratch%20keeper&minGeneration=${del.body.generation}`);
  assert.deepEqual(s.body.hits.map((h) => h.id), ['n3']);
});

test('search takes every package option, as query parameters and as a JSON body', async () => {
  const docs = [
    { id: 'a', title: 'Deploy checklist', text: 'run the migrations before you deploy', kind: 'rule', tags: ['ops'], timestamp: '2026-01-02T00:00:00Z' },
    { id: 'b', title: 'Deployment freeze', text: 'no deploys during the holidays', kind: 'rule', tags: ['ops', 'calendar'], timestamp: '2026-02-02T00:00:00Z' },
    { id: 'c', title: 'Dark mode', text: 'the user prefers dark mode', kind: 'preference', timestamp: '2026-03-02T00:00:00Z' },
  ];
  const { body } = await call('POST', '/v1/ns/opts/docs', { json: docs });
  const gen = body.generation;
  const q = (s) => call('GET', `/v1/ns/opts/search?minGeneration=${gen}&${s}`);

  const filtered = await q(`q=deploy&filter=${encodeURIComponent('{"kind":"rule","timestamp":{"gte":"2026-02-01"}}')}`);
  assert.deepEqual(filtered.body.hits.map((h) => h.id), ['b']);
  const and = await q('q=deploy%20holidays&mode=and');
  assert.equal(and.body.mode, 'and');
  assert.deepEqual(and.body.hits.map((h) => h.id), ['b']);
  const fallback = await q('q=deploy%20zebra&mode=fallback');
  assert.equal(fallback.body.mode, 'or');
  const paged = await q('q=deploy&limit=1&offset=1');
  assert.equal(paged.body.hits.length, 1);
  const prefix = await q('q=dar&prefix=true');
  assert.deepEqual(prefix.body.hits.map((h) => h.id), ['c']);
  const fuzzy = await q('q=dork&fuzzy=1');
  assert.deepEqual(fuzzy.body.hits.map((h) => h.id), ['c']);
  const hl = await q(`q=dark&highlight=${encodeURIComponent('{"preTag":"[","postTag":"]"}')}`);
  assert.match(Object.values(hl.body.hits[0].snippets).join(' '), /\[dark\]/i);
  const explained = await q('q=dark&explain=true');
  assert.ok(explained.body.hits[0].explanation.length > 0);
  const fields = await q('q=deploy&fields=title:3');
  assert.ok(fields.body.hits.length >= 1);
  const stored = await q('q=dark&storedFields=title');
  assert.deepEqual(Object.keys(stored.body.hits[0].fields), ['title']);
  const none = await q('q=dark&storedFields=false');
  assert.deepEqual(none.body.hits[0].fields, {});
  const sorted = await q('q=&sort=timestamp:desc&filter=%7B%7D');
  assert.deepEqual(sorted.body.hits.map((h) => h.id), ['c', 'b', 'a']);
  assert.equal(sorted.body.total, 3);
  const k = await q('q=deploy&k1=2&b=0.5&minHits=2&syntax=lenient');
  assert.equal(k.status, 200);
  const strict = await q('q=%22unclosed&syntax=strict');
  assert.equal(strict.status, 400);
  assert.equal(strict.body.error.code, 'INVALID_QUERY');

  const post = await call('POST', '/v1/ns/opts/search', {
    json: { query: 'deploy', minGeneration: gen, filter: { tags: 'calendar' }, highlight: true, storedFields: ['title'], sort: { field: 'timestamp', order: 'asc' }, limit: 5 },
  });
  assert.equal(post.status, 200, JSON.stringify(post.body));
  assert.deepEqual(post.body.hits.map((h) => h.id), ['b']);
  assert.deepEqual(Object.keys(post.body.hits[0].fields), ['title']);

  // The engine's default mode (no `mode`: the library's, the MCP tools').
  assert.equal((await q('q=deploy%20zebra')).body.mode, 'or');
  const prox = await q('q=deploy%20migrations&proximity=true');
  assert.equal(prox.status, 200, JSON.stringify(prox.body));
  assert.equal(prox.body.hits[0].id, 'a');
  const tuned = await q(`q=deploy%20migrations&proximity=${encodeURIComponent('{"window":3}')}`);
  assert.equal(tuned.status, 200, JSON.stringify(tuned.body));
  const badProx = await q(`q=deploy&proximity=${encodeURIComponent('{"window":0}')}`);
  assert.equal(badProx.status, 400);
  assert.match(badProx.body.error.message, /proximity\.window/);
  const auto = await q('q=can%20I%20deploy%20during%20the%20holidays%3F&strategy=auto');
  assert.equal(auto.status, 200, JSON.stringify(auto.body));
  assert.deepEqual(auto.body.strategy, { name: 'auto', reason: 'natural-language', mode: 'or', proximity: true });
  assert.equal(auto.body.hits[0].id, 'b');
  const autoPost = await call('POST', '/v1/ns/opts/search', { json: { query: 'dark mode', minGeneration: gen, strategy: 'auto' } });
  assert.equal(autoPost.body.strategy.reason, 'short');
  assert.equal(autoPost.body.mode, 'and');
  assert.deepEqual(autoPost.body.hits.map((h) => h.id), ['c']);
});

test('search reports how it read the query: kind:rule is a filter, with a warning', async () => {
  const added = await call('POST', '/v1/ns/warn/docs', { json: [
    { id: 'r', kind: 'rule', title: 'Deploy with pnpm' },
    { id: 'n', kind: 'note', title: 'Deploy notes' },
  ] });
  assert.equal(added.status, 200, JSON.stringify(added.body));
  const r = await call('GET', `/v1/ns/warn/search?q=deploy%20kind%3Arule&minGeneration=${added.body.generation}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.hits.map((h) => h.id), ['r']);
  assert.deepEqual(r.body.warnings, ["`kind` is a keyword field: `kind:rule` was applied as the filter { kind: 'rule' }"]);
  const plain = await call('GET', `/v1/ns/warn/search?q=deploy&minGeneration=${added.body.generation}`);
  assert.equal(plain.body.warnings, undefined);
});

test('search passes the agent-retrieval options to the engine: expand follows links (POST body and GET)', async () => {
  const docs = [
    { id: 'db', title: 'Database is Postgres', text: 'billing moved', links: [{ type: 'SUPERSEDES', to: 'db-old' }] },
    { id: 'db-old', title: 'Database was MySQL', text: 'replaced' },
  ];
  const { body } = await call('POST', '/v1/ns/links/docs', { json: docs });
  const post = await call('POST', '/v1/ns/links/search', { json: { query: 'postgres', minGeneration: body.generation, expand: { hops: 1 } } });
  assert.equal(post.status, 200, JSON.stringify(post.body));
  assert.deepEqual(post.body.hits.map((h) => h.id), ['db', 'db-old']);
  assert.deepEqual(post.body.hits[1].via, { from: 'db', type: 'SUPERSEDES', hops: 1 });
  // Links read back as the client wrote them.
  assert.deepEqual(post.body.hits[0].fields.links, [{ type: 'SUPERSEDES', to: 'db-old' }]);
  const doc = await call('GET', `/v1/ns/links/docs/db?minGeneration=${body.generation}`);
  assert.deepEqual(doc.body.links, [{ type: 'SUPERSEDES', to: 'db-old' }]);
  const get = await call('GET', `/v1/ns/links/search?q=postgres&expand=true&dedupe=true&minGeneration=${body.generation}`);
  assert.deepEqual(get.body.hits.map((h) => h.id), ['db', 'db-old']);
  const bad = await call('POST', '/v1/ns/links/search', { json: { query: 'postgres', expand: { hops: 9 } } });
  assert.equal(bad.status, 400);
});

test('suggest completes terms of the namespace', async () => {
  const { body } = await call('POST', '/v1/ns/sug/docs', { json: [{ id: 's1', text: 'kubernetes kubelet kubectl' }] });
  const r = await call('GET', `/v1/ns/sug/suggest?prefix=kube&limit=5&minGeneration=${body.generation}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(r.body.suggestions.map((s) => s.suggestion).sort(), ['kubectl', 'kubelet', 'kubernetes']);
  assert.equal(r.body.generation, body.generation);
});

test('export gives snapshot bytes that Memdex.import opens with the same documents', async () => {
  const { body } = await call('POST', '/v1/ns/exp/docs', { json: [{ id: 'e1', title: 'quokka', text: 'snapshot me' }] });
  const res = await fetch(new URL(`/v1/ns/exp/export?minGeneration=${body.generation}`, w.base), { headers: { authorization: `Bearer ${w.keys.admin}` } });
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/octet-stream');
  const index = await Memdex.import(new Uint8Array(await res.arrayBuffer()));
  assert.deepEqual(index.search('quokka').hits.map((h) => h.fields.title), ['quokka']);
  index.free();
});

test('namespaces are created by writes, never by reads, and listed', async () => {
  for (const path of ['/v1/ns/ghost/search?q=x', '/v1/ns/ghost/stats', '/v1/ns/ghost/docs/x', '/v1/ns/ghost/suggest?prefix=x']) {
    const r = await call('GET', path);
    assert.equal(r.status, 404, path);
    assert.equal(r.body.error.code, 'NOT_FOUND');
  }
  const del = await call('DELETE', '/v1/ns/ghost/docs/x');
  assert.equal(del.status, 404);
  const byFilter = await call('POST', '/v1/ns/ghost/delete', { json: { filter: { kind: 'x' } } });
  assert.equal(byFilter.status, 404);
  let list = await call('GET', '/v1/namespaces');
  assert.ok(!list.body.namespaces.some((n) => n.name === 'ghost'));
  await call('PUT', '/v1/ns/ghost/docs/x', { json: { text: 'now it exists' } });
  list = await call('GET', '/v1/namespaces');
  assert.ok(list.body.namespaces.some((n) => n.name === 'ghost'));
});

test('namespaces are isolated', async () => {
  await call('PUT', '/v1/ns/tenant-a/docs/a1', { json: { title: 'zebra crossing', text: 'only in tenant a' } });
  const b = await call('PUT', '/v1/ns/tenant-b/docs/b1', { json: { title: 'other', text: 'tenant b' } });
  const a = await call('GET', '/v1/ns/tenant-a/search?q=zebra&minGeneration=1');
  const bs = await call('GET', `/v1/ns/tenant-b/search?q=zebra&minGeneration=${b.body.generation}`);
  assert.deepEqual(a.body.hits.map((h) => h.id), ['a1']);
  assert.deepEqual(bs.body.hits, []);
});

test('a batch stops at the first document the engine rejects; the ones before it are committed', async () => {
  const batch = [
    { id: 'p1', text: 'partial okapi' },
    { id: 'p2', text: 'partial okapi' },
    { id: 'p3', text: 7 },
    { id: 'p4', text: 'partial okapi' },
  ];
  const r = await call('POST', '/v1/ns/batch/docs', { json: batch });
  assert.equal(r.status, 400);
  assert.equal(r.body.error.code, 'SCHEMA');
  assert.equal(r.body.error.added, 2);
  assert.equal(r.body.error.data.field, 'text', 'the engine error\'s data, as the package gives it');
  assert.match(r.body.error.message, /document 3 \(id "p3"\)/, 'names the client id, not the engine id');
  const found = await call('GET', `/v1/ns/batch/search?q=okapi&minGeneration=${r.body.error.generation}`);
  assert.deepEqual(found.body.hits.map((h) => h.id).sort(), ['p1', 'p2']);
});

test('100 concurrent writers share a handful of group commits, and every write is durable when acknowledged', async () => {
  await call('PUT', '/v1/ns/group/docs/seed', { json: { text: 'seed' } });
  const before = (await call('GET', '/v1/ns/group/stats?minGeneration=1')).body.generation;
  const results = await Promise.all(
    Array.from({ length: 100 }, (_, i) => call('PUT', `/v1/ns/group/docs/w${i}`, { json: { text: `writer ${i} pelican` } })),
  );
  assert.ok(results.every((r) => r.status === 200), JSON.stringify(results.find((r) => r.status !== 200)?.body));
  const last = Math.max(...results.map((r) => r.body.generation));
  const commits = last - before;
  assert.ok(commits >= 1 && commits <= 20, `100 writes made ${commits} commits`);
  const stats = await call('GET', `/v1/ns/group/stats?minGeneration=${last}`);
  assert.equal(stats.body.documents, 101);
});
