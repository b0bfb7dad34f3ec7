// Memdex.openInWorker in headless Chromium: 100k synthetic agent memories are
// indexed through addMany by a dedicated module worker while a
// PerformanceObserver watches the main thread for long tasks (> 50 ms).
/* global Memdex, MemdexError -- set on the page (window.Memdex) for page.evaluate */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readyPage, useChromium } from './browser.mjs';

const COUNT = Number(process.env.MEMDEX_WORKER_DOCS ?? 100_000);

const PAGE = `<!doctype html><meta charset="utf-8"><title>memdex worker</title>
<script type="module">
import { Memdex, MemdexError } from '/pkg/index.js';
window.Memdex = Memdex;
window.MemdexError = MemdexError;
window.longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.longTasks.push({ start: e.startTime, duration: e.duration });
}).observe({ type: 'longtask', buffered: true });
window.ready = true;
</script>`;

const chromium = useChromium();

test(`openInWorker + addMany: ${COUNT} memories without main-thread long tasks; search works`, async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async (count) => {
    const index = await Memdex.openInWorker({ name: 'bulk' });
    const topics = ['deploy', 'database', 'billing', 'backup', 'credentials', 'review', 'latency', 'cache', 'schema', 'queue'];
    const kinds = ['rule', 'decision', 'observation', 'note'];
    const words = 'agent user service request error config build test release token memory session budget cluster node'.split(' ');
    function* memories() {
      let seed = 42;
      const rnd = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
      for (let i = 0; i < count; i++) {
        const topic = topics[i % topics.length];
        const body = Array.from({ length: 12 }, () => words[rnd(words.length)]).join(' ');
        yield {
          id: 'm' + i,
          namespace: 'agent:' + (i % 7),
          kind: kinds[i % kinds.length],
          title: topic + ' ' + words[rnd(words.length)] + ' #' + i,
          text: 'The ' + topic + ' ' + body + (i === count - 1 ? ' zanzibar' : ''),
          timestamp: 1767225600000 + i * 60000,
        };
      }
    }
    const t0 = performance.now();
    const progress = [];
    const added = await index.addMany(memories(), { batchSize: 250, total: count, onProgress: (p) => progress.push(p.added) });
    const t1 = performance.now();
    const during = window.longTasks.filter((t) => t.start >= t0 && t.start <= t1);
    const stats = await index.stats();
    const last = await index.search('zanzibar');
    const filtered = await index.search('deploy', { filter: { namespace: 'agent:3', kind: 'rule' }, limit: 5 });
    let error = null;
    try {
      await index.search('"open', { syntax: 'strict' });
    } catch (e) {
      error = { isMemdexError: e instanceof MemdexError, code: e.code };
    }
    await index.close();
    let closed = null;
    try {
      await index.search('x');
    } catch (e) {
      closed = e.code;
    }
    return { added, ms: t1 - t0, during, progressCount: progress.length, lastProgress: progress.at(-1), stats, last: last.hits.map((h) => h.id), filtered: filtered.hits, error, closed };
  }, COUNT);
  console.log(`indexed ${report.added} in ${report.ms.toFixed(0)} ms; long tasks during indexing: ${JSON.stringify(report.during)}`);
  assert.equal(report.added, COUNT);
  assert.equal(report.lastProgress, COUNT);
  assert.ok(report.progressCount >= COUNT / 250);
  assert.equal(report.stats.documents, COUNT);
  assert.deepEqual(report.during.filter((t) => t.duration > 50), [], 'no main-thread task over 50 ms while indexing');
  assert.deepEqual(report.last, [`m${COUNT - 1}`]);
  assert.ok(report.filtered.length > 0);
  for (const h of report.filtered) {
    assert.equal(h.namespace, 'agent:3');
    assert.equal(h.fields.kind, 'rule');
  }
  assert.deepEqual(report.error, { isMemdexError: true, code: 'INVALID_QUERY' });
  assert.equal(report.closed, 'CLOSED');
  assert.deepEqual(errors.map(String), []);
  await page.close();
});

test('openInWorker with IndexedDB: close commits; a new worker reopens the index; errors keep their codes', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async () => {
    const name = 'persist-' + Date.now().toString(36);
    const a = await Memdex.openInWorker({ name, storage: 'indexeddb', database: 'memdex-worker-test' });
    await a.add({ id: 'w1', title: 'Worker memory', text: 'written by a worker into IndexedDB' });
    const codes = {};
    for (const [label, fn] of [
      ['schema', () => a.add({ title: 'no id' })],
      ['usage', () => a.search('x', { limt: 1 })],
    ]) {
      try {
        await fn();
      } catch (e) {
        codes[label] = e instanceof MemdexError ? e.code : 'not a MemdexError';
      }
    }
    // addMany stops at a rejected document in the second batch: the
    // error names it and the documents before it stay.
    const docs = Array.from({ length: 7 }, (_, i) => ({ id: 'b' + i, text: 'batch doc ' + i }));
    docs[5] = { id: 'b5', text: 5 };
    let rejected = null;
    try {
      await a.addMany(docs, { batchSize: 3 });
    } catch (e) {
      rejected = { code: e.code, added: e.added, named: /document 6 \(id "b5"\)/.test(e.message) };
    }
    const kept = (await Promise.all(docs.map((d) => a.get(d.id)))).map((d) => d?.id ?? null);
    await a.close();
    const b = await Memdex.openInWorker({ name, storage: 'indexeddb', database: 'memdex-worker-test' });
    const hits = (await b.search('worker indexeddb')).hits.map((h) => h.id);
    const stats = await b.stats();
    await b.close();
    return { hits, generation: stats.generation, codes, rejected, kept };
  });
  assert.deepEqual(report.hits, ['w1']);
  assert.equal(report.generation, 1);
  assert.deepEqual(report.codes, { schema: 'SCHEMA', usage: 'USAGE' });
  assert.deepEqual(report.rejected, { code: 'SCHEMA', added: 5, named: true });
  assert.deepEqual(report.kept, ['b0', 'b1', 'b2', 'b3', 'b4', null, null]);
  assert.deepEqual(errors.map(String), []);
  await page.close();
});

test('openInWorker is the whole Memdex API: related, pack, update(operations), refresh, ready, async getters, free', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const report = await page.evaluate(async () => {
    const name = 'surface-' + Date.now().toString(36);
    const options = { name, storage: 'indexeddb', database: 'memdex-worker-test' };
    const a = await Memdex.openInWorker(options);
    const out = { name: a.name, closedBefore: a.closed };
    await a.addMany([
      { id: 'db', title: 'Use PostgreSQL', text: 'Billing moves to PostgreSQL 16.', kind: 'decision' },
      { id: 'api', title: 'Billing API', text: 'The billing API reads the invoices table.', links: [{ type: 'DEPENDS_ON', to: 'db' }] },
    ]);
    out.dirty = await a.dirty;
    out.size = await a.size;
    // One atomic update in the worker: added, removed, committed.
    out.update = await a.update([
      { op: 'add', doc: { id: 'old', text: 'Billing used MySQL.' } },
      { op: 'remove', id: 'nope' },
      { op: 'removeWhere', filter: { kind: 'nothing' } },
    ]);
    out.afterUpdate = { dirty: await a.dirty, generation: await a.generation, size: await a.size };
    out.related = (await a.related('db', { direction: 'in' })).map((h) => [h.id, h.via.type]);
    const packed = await a.pack('billing postgres', { budgetTokens: 40 });
    out.pack = { fits: packed.usedTokens <= 40, hits: packed.hits.length > 0, text: packed.text.includes('id=') };
    for (const [label, fn] of [
      ['updateFn', () => a.update((ix) => ix.add({ id: 'x', text: 'y' }))],
      ['countTokens', () => a.pack('billing', { budgetTokens: 40, countTokens: (t) => t.length })],
      ['badOp', () => a.update([{ op: 'upsert', doc: {} }])],
    ]) {
      try {
        await fn();
        out[label] = 'resolved';
      } catch (e) {
        out[label] = e instanceof MemdexError ? e.code : String(e);
      }
    }
    // Another worker on the same index commits; refresh picks it up.
    const b = await Memdex.openInWorker(options);
    await b.update([{ op: 'add', doc: { id: 'later', text: 'written by the second worker' } }]);
    await b.close();
    out.refreshed = await a.refresh();
    out.later = (await a.get('later'))?.id ?? null;
    await a.ready();
    await a.add({ id: 'dropped', text: 'never committed' });
    await a.free();
    out.closedAfter = a.closed;
    try {
      await a.size;
    } catch (e) {
      out.afterFree = e.code;
    }
    const c = await Memdex.openInWorker(options);
    out.reopened = { dropped: (await c.get('dropped')) ?? null, later: (await c.get('later'))?.id ?? null };
    await c.close();
    return out;
  });
  assert.match(report.name, /^surface-/);
  assert.equal(report.closedBefore, false);
  assert.equal(report.dirty, true);
  assert.equal(report.size, 2);
  assert.deepEqual(report.update, { added: 1, removed: 0 });
  // The writes made before the update are committed first (generation 1), then the update's (2).
  assert.deepEqual(report.afterUpdate, { dirty: false, generation: 2, size: 3 });
  assert.deepEqual(report.related, [['api', 'DEPENDS_ON']]);
  assert.deepEqual(report.pack, { fits: true, hits: true, text: true });
  assert.equal(report.updateFn, 'USAGE');
  assert.equal(report.countTokens, 'USAGE');
  assert.equal(report.badOp, 'USAGE');
  assert.equal(report.refreshed, true);
  assert.equal(report.later, 'later');
  assert.equal(report.closedAfter, true);
  assert.equal(report.afterFree, 'CLOSED');
  assert.deepEqual(report.reopened, { dropped: null, later: 'later' });
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
