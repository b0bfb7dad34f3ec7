// A trapped engine is thrown away, in a Web Worker (Memdex.openInWorker):
// the call that traps answers INTERNAL, the next call runs on a fresh wasm
// instance in the worker with the index reloaded from IndexedDB. The trap is
// real: the test's worker module (crash-worker.mjs: the package's worker.js
// plus a message that grows the wasm memory to its maximum) exhausts the
// memory, then 1 MiB documents are added until the engine cannot allocate.
/* global Memdex */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const PAGE = memdexPage('memdex crash');

const chromium = useChromium();

test('openInWorker: a trap answers INTERNAL once; the next calls answer from IndexedDB on a fresh engine', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async () => {
    const worker = new Worker('/__tests__/e2e/crash-worker.mjs', { type: 'module' });
    const index = await Memdex.openInWorker({ worker, storage: 'indexeddb', name: 'crash-' + Date.now(), autoCommit: false });
    await index.add({ id: 'a', title: 'kept', text: 'durable memory a' });
    await index.commit();
    await index.add({ id: 'unsaved', text: 'never committed' });
    const exhausted = new Promise((resolve) => worker.addEventListener('message', ({ data }) => data?.exhausted && resolve(data.exhausted)));
    worker.postMessage({ exhaust: true });
    const memoryBytes = await exhausted;
    const fill = 'z '.repeat(1 << 19);
    let error = null;
    for (let i = 0; i < 5000 && !error; i++) {
      await index.add({ id: 'fill-' + i, text: fill }).catch((err) => (error = err));
    }
    const after = {
      a: (await index.get('a'))?.id ?? null,
      unsaved: (await index.get('unsaved'))?.id ?? null,
      fill: (await index.get('fill-0'))?.id ?? null,
      hits: (await index.search('durable')).hits.map((h) => h.id),
    };
    await index.add({ id: 'b', text: 'durable memory b, after the crash' });
    await index.commit();
    const count = await index.count();
    await index.close();
    return { memoryBytes, code: error?.code, message: error?.message, after, count };
  });
  assert.ok(report.memoryBytes > 4e9, 'the worker\'s wasm memory was at its maximum');
  assert.equal(report.code, 'INTERNAL', report.message);
  assert.match(report.message, /crashed/);
  assert.deepEqual(report.after, { a: 'a', unsaved: null, fill: null, hits: ['a'] });
  assert.equal(report.count, 2);
  assert.deepEqual(errors.map(String), []);
});
