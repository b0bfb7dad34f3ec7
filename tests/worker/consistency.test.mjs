// Consistency across isolates, in workerd with two Worker isolates (two
// Miniflare workers sharing the KV namespace and the Durable Objects):
// - read-your-writes: a write through isolate A, then at once a search
//   through isolate B with the write's generation finds the document
//   (forwarded to the writer) while B's cached copy is still stale;
// - KV lagging: with an old manifest in KV, isolates serve the old commit
//   (whose blobs are still there: deletion is deferred) and minGeneration
//   still reads the new one; the next commit republishes the manifest;
// - deferred deletion: once the grace period ends, the alarm removes
//   the blobs no manifest references, and only those.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, startWorker } from './support/helpers.mjs';

let w;
let a; // isolate A: revalidates on every read
let b; // isolate B: caches for 10 minutes
let kv;
const GRACE_MS = 1500;

before(async () => {
  w = await startWorker({
    isolates: ['front-a', 'front-b'],
    // Every commit published to KV at once (no throttle), so the test knows
    // which manifest KV holds; throttling is tested in writer-storage.
    vars: { MEMDEX_BLOB_GRACE_MS: String(GRACE_MS), MEMDEX_PUBLISH_MS: '0' },
    isolateVars: { 'front-a': { MEMDEX_REVALIDATE_MS: '0' }, 'front-b': { MEMDEX_REVALIDATE_MS: '600000' } },
  });
  a = w.client(w.keys.admin);
  const workerB = await w.mf.getWorker('front-b');
  b = client('http://front-b.local', w.keys.admin, (url, init) => workerB.fetch(url, init));
  kv = await w.mf.getKVNamespace('MEMDEX_KV', 'front-a');
});
after(async () => {
  await w?.mf.dispose();
});

const ids = (r) => r.body.hits.map((h) => h.id).sort();

test('a write through isolate A is found at once through isolate B with its generation, while B\'s copy is stale', async () => {
  const first = await a('PUT', '/v1/ns/ryw/docs/old', { json: { text: 'old pelican note' } });
  // B loads its copy now (first read), then keeps it for 10 minutes.
  const warm = await b('GET', `/v1/ns/ryw/search?q=pelican&minGeneration=${first.body.generation}`);
  assert.deepEqual(ids(warm), ['old']);

  const write = await a('PUT', '/v1/ns/ryw/docs/new', { json: { text: 'new pelican note' } });
  assert.equal(write.status, 200);
  const g = write.body.generation;

  const stale = await b('GET', '/v1/ns/ryw/search?q=pelican');
  assert.deepEqual(ids(stale), ['old'], 'without minGeneration, B answers from its cached copy');
  assert.equal(stale.headers.get('x-memdex-served-by'), 'isolate');
  assert.ok(stale.body.generation < g);

  const fresh = await b('GET', `/v1/ns/ryw/search?q=pelican&minGeneration=${g}`);
  assert.deepEqual(ids(fresh), ['new', 'old']);
  assert.equal(fresh.headers.get('x-memdex-served-by'), 'writer');
  assert.ok(fresh.body.generation >= g);
  const doc = await b('GET', `/v1/ns/ryw/docs/new?minGeneration=${g}`);
  assert.equal(doc.body.text, 'new pelican note');
  const post = await b('POST', '/v1/ns/ryw/search', { json: { query: 'pelican', minGeneration: g } });
  assert.deepEqual(ids(post), ['new', 'old']);

  // Isolate A revalidates on every read: it already serves the new commit itself.
  const own = await a('GET', `/v1/ns/ryw/search?q=pelican&minGeneration=${g}`);
  assert.equal(own.headers.get('x-memdex-served-by'), 'isolate');
  assert.deepEqual(ids(own), ['new', 'old']);
});

const MANIFEST = 'ns/lag/idx/manifest';

/** Blob keys a manifest (kind-1 blob: 9-byte header, JSON, 4-byte CRC) references. */
function referenced(bytes) {
  const m = JSON.parse(new TextDecoder().decode(bytes.subarray(9, bytes.length - 4)));
  return m.segments.flatMap((s) => [...s.chunks, ...(s.deletes ? [s.deletes] : [])]).map((k) => `ns/lag/${k}`);
}
const blobKeys = async () => (await kv.list({ prefix: 'ns/lag/idx/blob/' })).keys.map((k) => k.name).sort();

test('KV lagging behind the writer: readers serve the older commit without errors, minGeneration reads the newest', async () => {
  let g = 0;
  for (let i = 0; i < 3; i++) g = (await a('PUT', `/v1/ns/lag/docs/d${i}`, { json: { text: `lag document ${i} heron` } })).body.generation;
  const old = new Uint8Array(await kv.get(MANIFEST, 'arrayBuffer'));
  const oldBlobs = referenced(old);
  // More commits: the merge policy merges segments, so some blobs of the old manifest are no longer referenced.
  for (let i = 3; i < 9; i++) g = (await a('PUT', `/v1/ns/lag/docs/d${i}`, { json: { text: `lag document ${i} heron` } })).body.generation;
  const current = referenced(new Uint8Array(await kv.get(MANIFEST, 'arrayBuffer')));
  assert.ok(oldBlobs.some((k) => !current.includes(k)), 'the later commits dropped blobs of the old manifest');

  // This location's KV still shows the old manifest.
  await kv.put(MANIFEST, old);
  const lagging = await a('GET', '/v1/ns/lag/search?q=heron&limit=20');
  assert.equal(lagging.status, 200, JSON.stringify(lagging.body));
  assert.equal(lagging.body.hits.length, 3, 'the old commit, loaded whole: its dropped blobs are still in KV');
  const newest = await a('GET', `/v1/ns/lag/search?q=heron&limit=20&minGeneration=${g}`);
  assert.equal(newest.body.hits.length, 9);
  assert.equal(newest.headers.get('x-memdex-served-by'), 'writer');

  // The next commit publishes its manifest; readers catch up (the copy
  // reloads in the background while the old one keeps answering).
  const next = await a('PUT', '/v1/ns/lag/docs/d9', { json: { text: 'lag document 9 heron' } });
  let caught;
  // (Publishing to KV is throttled to one write per second.)
  for (let i = 0; i < 100; i++) {
    caught = await a('GET', '/v1/ns/lag/search?q=heron&limit=20');
    if (caught.body.generation === next.body.generation) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(caught.body.generation, next.body.generation);
  assert.equal(caught.body.hits.length, 10);
  assert.equal(caught.headers.get('x-memdex-served-by'), 'isolate');
});

test('dropped blobs stay in KV for the grace period, then the alarm deletes exactly them', async () => {
  const live = () => kv.get(MANIFEST, 'arrayBuffer').then((b) => referenced(new Uint8Array(b)).sort());
  const before = await blobKeys();
  const current = await live();
  assert.ok(before.length > current.length, 'unreferenced blobs are still there within the grace period');
  assert.ok(current.every((k) => before.includes(k)));
  // Wait past the grace period (the alarm runs at the first blob's due time, then the next).
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline && (await blobKeys()).length > current.length) await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(await blobKeys(), await live(), 'only the referenced blobs remain');
  const s = await a('GET', '/v1/ns/lag/search?q=heron&limit=20');
  assert.equal(s.body.hits.length, 10, 'the index loads from what is left');
});
