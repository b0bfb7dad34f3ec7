// The lexical build's browser entry (`memdex/lexical` -> pkg/lexical.js) in
// headless Chromium: it fetches memdex-lexical_bg.wasm (not the full
// wasm), searches on the main thread and through `openInWorker` (whose
// worker is handed the lexical wasm), answers a vector search with USAGE
// naming 'memdex', and a page cannot run both builds.
/* global Memdex, MemdexError -- set on the page (window.Memdex) for page.evaluate */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readyPage, useChromium } from './browser.mjs';

const PAGE = `<!doctype html><meta charset="utf-8"><title>memdex lexical</title>
<script type="module">
import { Memdex, MemdexError } from '/pkg/lexical.js';
window.Memdex = Memdex;
window.MemdexError = MemdexError;
window.ready = true;
</script>`;

const chromium = useChromium();

test('lexical build in Chromium: main thread and worker load memdex-lexical_bg.wasm and search; vector search is USAGE naming the full build', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const wasm = [];
  page.context().on('request', (r) => {
    if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname);
  });
  const report = await page.evaluate(async () => {
    const docs = [
      { id: 'a', title: 'Deploy rule', text: 'Never deploy on Fridays' },
      { id: 'b', title: 'Lunch', text: 'Tacos on Tuesday' },
    ];
    const index = await Memdex.open();
    index.addAll(docs);
    const main = index.search('deploying friday').hits.map((h) => h.id);
    let refused = null;
    try {
      index.search('deploy', { vector: [1, 0] });
    } catch (e) {
      refused = { isMemdexError: e instanceof MemdexError, code: e.code, message: e.message };
    }
    await index.close();
    const remote = await Memdex.openInWorker();
    await remote.addMany(docs);
    const worker = (await remote.search('tacos tuesday')).hits.map((h) => h.id);
    let workerRefused = null;
    try {
      await remote.search('tacos', { expand: { hops: 1 } });
    } catch (e) {
      workerRefused = { code: e.code, message: e.message };
    }
    await remote.close();
    const full = await import('/pkg/index.js');
    let both = null;
    try {
      await full.Memdex.open();
    } catch (e) {
      both = { code: e.code, message: e.message };
    }
    return { main, refused, worker, workerRefused, both };
  });
  assert.deepEqual(report.main, ['a']);
  assert.deepEqual(report.worker, ['b']);
  assert.equal(report.refused.isMemdexError, true);
  for (const r of [report.refused, report.workerRefused]) {
    assert.equal(r.code, 'USAGE');
    assert.match(r.message, /not in the lexical build \(memdex\/lexical\); import the full build from 'memdex'/);
  }
  assert.equal(report.both.code, 'USAGE');
  assert.match(report.both.message, /this page already runs memdex's lexical build/);
  assert.ok(wasm.length >= 2, `the page and the worker each fetched a wasm: ${wasm}`);
  assert.deepEqual([...new Set(wasm)], ['/pkg/memdex-lexical_bg.wasm']);
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
