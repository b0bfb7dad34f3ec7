// The namespace writer (Durable Object): an idle writer frees its index and
// reopens it from its manifest on the next request, with nothing lost (the
// path a restarted Durable Object takes); writes from a burst share group
// commits, and every one of them answers with a generation that holds it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './support/helpers.mjs';

let w;
let call;
let writers;
before(async () => {
  w = await startWorker({ vars: { MEMDEX_WRITER_IDLE_MS: '200', MEMDEX_GROUP_COMMIT_MS: '50' } });
  call = w.client(w.keys.admin);
  writers = await w.mf.getDurableObjectNamespace('MEMDEX_WRITER');
});
after(async () => {
  await w?.mf.dispose();
});

const info = async (ns) => JSON.parse(JSON.stringify(await writers.get(writers.idFromName(ns)).info()));

test('an idle writer frees its index and reopens it from the manifest, losing nothing', async () => {
  const first = await call('POST', '/v1/ns/idle/docs', { json: [{ id: 'a', text: 'first gannet' }, { id: 'b', text: 'second gannet' }] });
  assert.equal(first.status, 200);
  assert.equal((await info('idle')).generation, first.body.generation);
  await new Promise((r) => setTimeout(r, 600));
  const idle = await info('idle');
  assert.equal(idle.generation, null, 'the index was freed');
  assert.equal(idle.releases, 1);

  // The next write reopens it.
  const more = await call('PUT', '/v1/ns/idle/docs/c', { json: { text: 'third gannet' } });
  assert.equal(more.body.generation, first.body.generation + 1, 'the reopened writer continues the same chain');
  const all = await call('GET', `/v1/ns/idle/search?q=gannet&minGeneration=${more.body.generation}`);
  assert.deepEqual(all.body.hits.map((h) => h.id).sort(), ['a', 'b', 'c']);
});

test('a burst of writes shares group commits; each answer names a generation that holds its write', async () => {
  await call('PUT', '/v1/ns/burst/docs/seed', { json: { text: 'seed' } });
  const before = await info('burst');
  const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => call('PUT', `/v1/ns/burst/docs/d${i}`, { json: { text: `burst cormorant ${i}` } })));
  assert.ok(answers.every((r) => r.status === 200));
  const after = await info('burst');
  const commits = after.commits - before.commits;
  assert.ok(commits >= 1 && commits <= 6, `60 concurrent writes took ${commits} commits`);
  // Every write is visible at the generation it was answered with.
  for (const [i, r] of answers.entries()) {
    if (i % 10) continue;
    const doc = await call('GET', `/v1/ns/burst/docs/d${i}?minGeneration=${r.body.generation}`);
    assert.equal(doc.body.text, `burst cormorant ${i}`);
  }
});
