// Runs worker/src/index.js inside workerd (the Cloudflare Workers runtime,
// through Miniflare) and talks to it over HTTP. Needs the built pkg/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Miniflare } from 'miniflare';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const memories = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

let mf;
let base;

before(async () => {
  mf = new Miniflare({
    // Miniflare follows the worker's static imports from scriptPath. As with
    // wrangler, .js files are ES modules and .wasm imports CompiledWasm modules
    // (Miniflare's own default would treat .js as CommonJS).
    modules: true,
    scriptPath: `${ROOT}/worker/src/index.js`,
    modulesRoot: ROOT,
    modulesRules: [
      { type: 'ESModule', include: ['**/*.js'] },
      { type: 'CompiledWasm', include: ['**/*.wasm'] },
    ],
    compatibilityDate: '2026-04-01',
  });
  base = await mf.ready; // URL of the workerd HTTP socket
});

after(async () => {
  await mf?.dispose();
});

async function call(path, init) {
  // Real HTTP to the workerd socket (not an in-process shortcut).
  const res = await fetch(new URL(path, base), init);
  const body = await res.json();
  return { status: res.status, body };
}

test('GET /health answers from inside workerd', async () => {
  const { status, body } = await call('/health');
  assert.equal(status, 200);
  assert.equal(body.ok, true);
  // navigator.userAgent is "Cloudflare-Workers" only inside workerd; Node
  // reports "Node.js/20". This proves the code ran in the Workers runtime.
  assert.equal(body.runtime, 'Cloudflare-Workers');
});

test('POST docs, then search ranks the right memory', async () => {
  const coder = memories.filter((m) => m.namespace === 'agent:coder');
  const added = await call('/v1/ns/agent:coder/docs', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(coder),
  });
  assert.equal(added.status, 201);
  assert.equal(added.body.added, coder.length);

  const { status, body } = await call('/v1/ns/agent:coder/search?q=deploying%20on%20friday&limit=3');
  assert.equal(status, 200);
  assert.equal(body.mode, 'or');
  assert.ok(body.hits.length >= 1 && body.hits.length <= 3);
  assert.equal(body.hits[0].fields.title, 'Never deploy on Fridays');
  assert.equal(body.hits[0].namespace, 'agent:coder');

  const stats = await call('/v1/ns/agent:coder/stats');
  assert.equal(stats.body.documents, coder.length);
});

test('namespaces are isolated', async () => {
  await call('/v1/ns/tenant-a/docs', { method: 'POST', body: JSON.stringify({ id: 'a1', title: 'zebra crossing', text: 'only in tenant a' }) });
  const a = await call('/v1/ns/tenant-a/search?q=zebra');
  const b = await call('/v1/ns/tenant-b/search?q=zebra');
  assert.deepEqual(a.body.hits.map((h) => h.id), ['a1']);
  assert.deepEqual(b.body.hits, []);
});

test('get and delete by id', async () => {
  await call('/v1/ns/t/docs', { method: 'POST', body: JSON.stringify({ id: 'd1', title: 'to delete', text: 'ephemeral' }) });
  assert.equal((await call('/v1/ns/t/docs/d1')).body.title, 'to delete');
  assert.equal((await call('/v1/ns/t/docs/d1', { method: 'DELETE' })).body.removed, true);
  const gone = await call('/v1/ns/t/docs/d1');
  assert.equal(gone.status, 404);
  assert.equal(gone.body.error.code, 'NOT_FOUND');
});

test('bad input gets a 4xx with a stable error code', async () => {
  const noId = await call('/v1/ns/t/docs', { method: 'POST', body: JSON.stringify({ title: 'no id' }) });
  assert.equal(noId.status, 400);
  assert.equal(noId.body.error.code, 'SCHEMA');
  // A batch stops at its first rejected document; the error says how many
  // before it were added, and those are searchable.
  const batch = [{ id: 'p1', text: 'partial okapi' }, { id: 'p2', text: 'partial okapi' }, { id: 'p3', text: 7 }, { id: 'p4', text: 'partial okapi' }];
  const partial = await call('/v1/ns/batch/docs', { method: 'POST', body: JSON.stringify(batch) });
  assert.equal(partial.status, 400);
  assert.equal(partial.body.error.code, 'SCHEMA');
  assert.equal(partial.body.error.added, 2);
  assert.match(partial.body.error.message, /document 3 \(id "p3"\)/);
  const found = await call('/v1/ns/batch/search?q=okapi');
  assert.deepEqual(found.body.hits.map((h) => h.id).sort(), ['p1', 'p2']);
  const badJson = await call('/v1/ns/t/docs', { method: 'POST', body: '{not json' });
  assert.equal(badJson.status, 400);
  assert.equal(badJson.body.error.code, 'BAD_REQUEST');
  const badMode = await call('/v1/ns/t/search?q=x&mode=maybe');
  assert.equal(badMode.status, 400);
  const unknown = await call('/nope');
  assert.equal(unknown.status, 404);
});
