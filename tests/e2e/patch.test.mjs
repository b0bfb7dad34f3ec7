// The patch suite (tests/js/patch.suite.mjs) in headless Chromium against
// the browser build (pkg/index.js), with memory storage and real IndexedDB
// storage (a patched document is committed to IndexedDB and read back by a
// fresh open); and `patch` through `Memdex.openInWorker` (a real module
// Web Worker) on IndexedDB, reopened in a second worker.
/* global Memdex */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, reportSuite, runSuitePage, suitePage, useChromium } from './browser.mjs';

const PAGE = suitePage({ title: 'memdex patch suite', module: 'patch.suite.mjs', define: 'definePatchSuite', database: 'memdex-patch' });

const WORKER_PAGE = memdexPage('memdex patch worker');

const chromium = useChromium();

test('patch suite in Chromium (memory + IndexedDB)', async (t) => {
  const run = await runSuitePage(chromium.env, PAGE);
  const { results } = run;
  assert.equal(results.length, 12);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb') && r.name.includes('persist')));
  await reportSuite(t, run);
});

test('openInWorker on IndexedDB: patch keeps vectors and links, committed and read back by another worker', async () => {
  const { page, errors } = await readyPage(chromium.env, WORKER_PAGE);
  const out = await page.evaluate(async () => {
    const options = { name: 'patch-worker-' + Date.now(), storage: 'indexeddb', autoCommit: false, schema: { emb: { type: 'vector', dimensions: 2 } } };
    const a = await Memdex.openInWorker(options);
    await a.add({ id: 'w1', text: 'old words', kind: 'rule', links: [{ type: 'R', to: 'w2' }], emb: new Float32Array([3, 4]) });
    await a.add({ id: 'w2', text: 'target' });
    await a.commit();
    await a.patch('w1', { text: 'new words', kind: null });
    await a.commit();
    await a.close();
    const b = await Memdex.openInWorker(options);
    const doc = await b.get('w1', { vectors: true });
    const byVector = (await b.search('', { vector: [3, 4] })).hits.map((h) => h.id);
    const byWords = (await b.search('new', { mode: 'and' })).hits.map((h) => h.id);
    const related = (await b.related('w1')).map((h) => h.id);
    const missing = await b.patch('w9', { text: 'x' }).catch((e) => ({ code: e.code, name: e.name }));
    await b.close();
    return { doc, byVector, byWords, related, missing };
  });
  assert.equal(out.doc.text, 'new words');
  assert.equal(out.doc.kind, undefined);
  assert.deepEqual(out.doc.links, [{ to: 'w2', type: 'R' }]);
  assert.ok(Math.abs(out.doc.emb[0] - 0.6) < 1e-6 && Math.abs(out.doc.emb[1] - 0.8) < 1e-6, JSON.stringify(out.doc.emb));
  assert.deepEqual(out.byVector, ['w1']);
  assert.deepEqual(out.byWords, ['w1']);
  assert.deepEqual(out.related, ['w2']);
  assert.deepEqual(out.missing, { code: 'NOT_FOUND', name: 'MemdexError' });
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
