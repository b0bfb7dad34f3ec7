// Lazy open in Chromium from IndexedDB, on the page and in a worker
// (`Memdex.open({ lazy: true })`, `Memdex.openInWorker({ lazy: true })`):
// the same hits, documents by id and completions as the index opened in
// full; the worker answers search, get, suggest and stats and refuses
// writes with USAGE; damaged options are USAGE.
/* global Memdex, MemdexError, indexedDBStorage -- set on the page (window.Memdex) for page.evaluate */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const PAGE = memdexPage('memdex lazy', ['Memdex', 'MemdexError'], "import { indexedDBStorage } from '/pkg/storage/indexeddb.js';\nwindow.indexedDBStorage = indexedDBStorage;");

const chromium = useChromium();

test('lazy open from IndexedDB, on the page and in a worker, answers as the full index', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async () => {
    const words = 'memory agent deploy friday rule cache page segment vector note meeting budget release review'.split(' ');
    const docs = Array.from({ length: 6000 }, (_, i) => ({
      id: 'm' + i,
      title: words[i % 14] + ' ' + words[(i * 3) % 14],
      text: words[(i * 7) % 14] + ' w' + (i % 977) + ' ' + 'filler '.repeat(i % 30),
    }));
    const queries = ['deploy friday', 'w12', 'memory rule', 'budget w400', 'agent~1', 'rel*', 'nothing here'];
    const full = await Memdex.open({ storage: 'indexeddb', name: 'lazy-e2e', autoCommit: false });
    full.addAll(docs);
    await full.commit();
    const want = queries.map((q) => full.search(q, { limit: 10, highlight: true }).hits);
    const reads = async (index) => JSON.stringify([await index.get('m123'), await index.get('nope'), await index.suggest('dep', 5), await index.suggest('memory ru', 5)]);
    const wantReads = await reads(full);
    await full.close();
    const same = (got) => JSON.stringify(got.map((r) => r.hits)) === JSON.stringify(want);
    const onPage = await Memdex.open({ storage: 'indexeddb', name: 'lazy-e2e', lazy: true, cacheBytes: 1 << 20 });
    const pageHits = [];
    for (const q of queries) pageHits.push(await onPage.search(q, { limit: 10, highlight: true }));
    const pageStats = await onPage.stats();
    const pageReads = (await reads(onPage)) === wantReads;
    onPage.close();
    // Every value read from IndexedDB goes back to the adapter, detached.
    const idb = indexedDBStorage();
    const released = [];
    const watched = { ...idb, release: (v) => (idb.release(v), released.push(v.buffer.detached === true)) };
    const again = await Memdex.open({ storage: watched, name: 'lazy-e2e', lazy: true, cacheBytes: 1 << 20 });
    const againHits = [];
    for (const q of queries) againHits.push(await again.search(q, { limit: 10, highlight: true }));
    again.close();
    const remote = await Memdex.openInWorker({ storage: 'indexeddb', name: 'lazy-e2e', lazy: true, cacheBytes: 1 << 20 });
    const workerHits = [];
    for (const q of queries) workerHits.push(await remote.search(q, { limit: 10, highlight: true }));
    const workerStats = await remote.stats();
    const workerReads = (await reads(remote)) === wantReads;
    const workerSize = await remote.size;
    let write = null;
    try {
      await remote.add({ id: 'x', title: 'no' });
    } catch (e) {
      write = { isMemdexError: e instanceof MemdexError, code: e.code };
    }
    await remote.close();
    let embed = null;
    try {
      await Memdex.openInWorker({ storage: 'indexeddb', name: 'lazy-e2e', lazy: true, embed: () => [] });
    } catch (e) {
      embed = e.code;
    }
    return {
      answered: want.filter((h) => h.length > 0).length,
      page: same(pageHits),
      released: { hits: same(againHits), count: released.length, detached: released.every(Boolean) },
      worker: same(workerHits),
      pageStats,
      workerStats,
      pageReads,
      workerReads,
      workerSize,
      write,
      embed,
    };
  });
  assert.ok(report.answered >= 5, `${report.answered} queries with hits`);
  assert.ok(report.page, 'the page\'s lazy index answers as the full one');
  assert.ok(report.released.hits && report.released.count > 10 && report.released.detached, JSON.stringify(report.released));
  assert.ok(report.worker, 'the worker\'s lazy index answers as the full one');
  for (const s of [report.pageStats, report.workerStats]) {
    assert.equal(s.documents, 6000);
    assert.ok(s.lazy.fetches > 0 && s.lazy.limit === 1 << 20, JSON.stringify(s));
  }
  assert.ok(report.pageReads && report.workerReads, 'get and suggest answer as the full index, page and worker');
  assert.equal(report.workerSize, 6000);
  assert.deepEqual(report.write, { isMemdexError: true, code: 'USAGE' });
  assert.equal(report.embed, 'USAGE');
  assert.deepEqual(errors, []);
});
