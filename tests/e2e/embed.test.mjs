// The embed suite (tests/js/embed.suite.mjs) in headless Chromium against
// the browser build (pkg/index.js), with memory storage and real IndexedDB
// storage (an embedder error writes nothing, read back by a fresh open);
// and `embed` through `Memdex.openInWorker` (a real module Web Worker on
// IndexedDB): the embedder runs on the page, documents and the query cross
// with their vectors, and a second worker reads them back.
/* global Memdex, conceptVectors */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readyPage, reportSuite, runSuitePage, suitePage, useChromium } from './browser.mjs';

const PAGE = suitePage({ title: 'memdex embed suite', module: 'embed.suite.mjs', define: 'defineEmbedSuite', database: 'memdex-embed' });

const WORKER_PAGE = `<!doctype html><meta charset="utf-8"><title>memdex embed worker</title>
<script type="module">
import { Memdex } from '/pkg/index.js';
import { conceptVectors } from '/__tests__/js/embed.suite.mjs';
window.Memdex = Memdex;
window.conceptVectors = conceptVectors;
window.ready = true;
</script>`;

const chromium = useChromium();

test('embed suite in Chromium (memory + IndexedDB)', async (t) => {
  const run = await runSuitePage(chromium.env, PAGE);
  const { results } = run;
  assert.equal(results.length, 16);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb') && r.name.includes('after a reopen')));
  await reportSuite(t, run);
});

test('openInWorker on IndexedDB: the page embeds in batches, the worker writes; EMBED writes nothing; read back by another worker', async () => {
  const { page, errors } = await readyPage(chromium.env, WORKER_PAGE);
  const out = await page.evaluate(async () => {
    const calls = [];
    let fail = false;
    const embed = async (texts) => {
      calls.push(texts.length);
      if (fail) throw new Error('model offline');
      return conceptVectors(texts);
    };
    const name = 'embed-worker-' + Date.now();
    const schema = { emb: { type: 'vector', dimensions: 7 } };
    const options = { name, storage: 'indexeddb', autoCommit: false, schema, embed: { embed, batchSize: 2 } };
    const a = await Memdex.openInWorker(options);
    const added = await a.addMany([
      { id: 'm1', title: 'Commute', text: 'I drive the car' },
      { id: 'm2', title: 'Lunch', text: 'Lunch is at noon' },
      { id: 'm3', title: 'Deploy', text: 'Never deploy on Fridays' },
    ]);
    const batches = calls.slice();
    const hybrid = await a.search('automobile', { semantic: 'hybrid', limit: 1 });
    fail = true;
    const failed = await a.add({ id: 'm4', text: 'the car' }).catch((e) => ({ code: e.code, name: e.name, message: e.message }));
    fail = false;
    await a.commit();
    await a.close();
    // Read back without an embedder: the vectors were stored.
    const b = await Memdex.openInWorker({ name, storage: 'indexeddb', autoCommit: false });
    const size = await b.size;
    const byVector = (await b.search('', { vector: conceptVectors(['vehicle'])[0], limit: 1 })).hits.map((h) => h.id);
    const fallback = await b.search('lunch', { semantic: 'hybrid' });
    await b.close();
    return { added, batches, hybrid: { ids: hybrid.hits.map((h) => h.id), semantic: hybrid.semantic }, failed, size, byVector, fallback: { ids: fallback.hits.map((h) => h.id), semantic: fallback.semantic }, calls };
  });
  assert.equal(out.added, 3);
  assert.deepEqual(out.batches, [2, 1]);
  assert.deepEqual(out.hybrid, { ids: ['m1'], semantic: 'hybrid' });
  assert.equal(out.failed.code, 'EMBED');
  assert.equal(out.failed.name, 'MemdexError');
  assert.match(out.failed.message, /model offline/);
  assert.equal(out.size, 3, 'nothing of the failed add');
  assert.deepEqual(out.byVector, ['m1']);
  assert.deepEqual(out.fallback, { ids: ['m2'], semantic: 'lexical' });
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
