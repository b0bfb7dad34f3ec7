// Two writers on one IndexedDB index: two pages (two tabs) of one origin in
// one headless Chromium context load the built package (pkg/), open the
// same index, add different memories and commit at the same moment. Each
// commit runs under `withIndexLock` (Web Locks) with the low-level commit
// steps and a CONFLICT -> reload -> re-apply -> retry loop. Asserts: the
// lock serialized the two commits, the second writer got CONFLICT (it had
// loaded the index before the first commit), nothing was lost, and both
// tabs reload to the same state. Also: a blocked IndexedDB upgrade is
// reported as STORAGE/BLOCKED and the adapter recovers once unblocked.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ARGS, CHROMIUM } from './browser.mjs';


// A blank test page on the server's origin (so it shares IndexedDB and Web
// Locks with the other tab and can import /pkg/). Served by page.route.
const PAGE = '/__memdex-storage-test.html';
const HTML = `<!doctype html><meta charset="utf-8"><title>memdex storage test</title>
<script type="module">
  const memdex = await import('/pkg/memdex.js');
  await memdex.default();
  const { indexedDBStorage } = await import('/pkg/storage/indexeddb.js');
  const { withIndexLock, indexLockKind } = await import('/pkg/storage/locks.js');
  const NAME = 'shared';
  const storage = indexedDBStorage({ database: 'memdex-writers' });
  let engine;
  const log = [];

  async function open() {
    const loaded = await memdex.loadIndex(storage, NAME);
    engine?.free();
    engine = loaded ? memdex.Engine.fromLoaded(loaded) : new memdex.Engine();
    return { generation: engine.generation, size: engine.size };
  }

  // Commit this tab's pending docs: lock, prepare, execute, finish; on
  // CONFLICT reload the committed index, re-apply the docs and retry.
  async function commit(docs, { holdMs = 0 } = {}) {
    for (const d of docs) engine.add(d);
    let conflicts = 0;
    for (let attempt = 1; attempt <= 5; attempt++) {
      try {
        const info = await withIndexLock(NAME, async () => {
          log.push({ event: 'acquired', at: Date.now() });
          try {
            const handle = engine.prepareCommit(NAME, storage);
            try {
              const info = await handle.execute(storage);
              engine.finishCommit(handle);
              // Hold the lock a little: the other tab is queued meanwhile.
              await new Promise((r) => setTimeout(r, holdMs));
              return info;
            } finally {
              handle.free();
            }
          } finally {
            log.push({ event: 'released', at: Date.now() });
          }
        });
        return { info, conflicts, attempts: attempt, generation: engine.generation, size: engine.size };
      } catch (err) {
        if (err.code !== 'CONFLICT') throw err;
        conflicts++;
        log.push({ event: 'conflict', at: Date.now(), message: err.message });
        await open();
        for (const d of docs) engine.add(d);
      }
    }
    throw new Error('gave up after 5 attempts');
  }

  window.memdexTest = {
    open,
    commit,
    log,
    lockKind: indexLockKind,
    has: (id) => engine.get(id) !== undefined,
    search: (q) => engine.search(q).hits.map((h) => h.id),
    reset: () => storage.deleteDatabase(),
    close: () => storage.close(),
  };
  document.body.dataset.ready = 'true';
</script>`;

let server;
let baseUrl;
let browser;

before(async () => {
  ({ server, url: baseUrl } = await startServer({ port: 0, host: '127.0.0.1' }));
  baseUrl = baseUrl.replace('localhost', '127.0.0.1');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

async function openTab(context, errors) {
  const page = await context.newPage();
  page.on('pageerror', (err) => errors.push(err));
  await page.route(`**${PAGE}`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: HTML }));
  await page.goto(new URL(PAGE, baseUrl).href);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 20_000 });
  return page;
}

test('two tabs commit to one IndexedDB index concurrently: serialized by the lock, no lost update', async () => {
  const context = await browser.newContext();
  const errors = [];
  const a = await openTab(context, errors);
  const b = await openTab(context, errors);
  assert.equal(await a.evaluate(() => window.memdexTest.lockKind()), 'web-locks');
  await a.evaluate(() => window.memdexTest.reset());

  // A seed commit, so both tabs start from generation 1 with one memory.
  await a.evaluate(() => window.memdexTest.open());
  const seed = await a.evaluate(() =>
    window.memdexTest.commit([{ id: 'seed', title: 'Seed memory', text: 'the first memory of the shared index' }]),
  );
  assert.equal(seed.info.generation, 1);

  // Both tabs load generation 1 before either commits again.
  assert.deepEqual(await a.evaluate(() => window.memdexTest.open()), { generation: 1, size: 1 });
  assert.deepEqual(await b.evaluate(() => window.memdexTest.open()), { generation: 1, size: 1 });

  // Commit at the same moment from both tabs.
  const [ra, rb] = await Promise.all([
    a.evaluate(() =>
      window.memdexTest.commit([{ id: 'from-a', title: 'Tab A decision', text: 'use quokka dashboards for rollouts' }], { holdMs: 150 }),
    ),
    b.evaluate(() =>
      window.memdexTest.commit([{ id: 'from-b', title: 'Tab B rule', text: 'wombat tests run before every merge' }], { holdMs: 150 }),
    ),
  ]);

  // Exactly one writer had to reload: the one that got the lock second.
  assert.equal(ra.conflicts + rb.conflicts, 1, JSON.stringify({ ra, rb }));
  const gens = [ra.generation, rb.generation].sort();
  assert.deepEqual(gens, [2, 3]);
  const last = ra.generation === 3 ? ra : rb;
  assert.equal(last.size, 3, 'the retried commit includes the other tab\'s memory');

  // The lock intervals of the two tabs never overlap.
  const intervals = [];
  for (const page of [a, b]) {
    const log = await page.evaluate(() => window.memdexTest.log);
    const acquired = log.filter((e) => e.event === 'acquired').map((e) => e.at);
    const released = log.filter((e) => e.event === 'released').map((e) => e.at);
    acquired.forEach((at, i) => intervals.push([at, released[i]]));
  }
  intervals.sort((x, y) => x[0] - y[0]);
  for (let i = 1; i < intervals.length; i++) {
    assert.ok(intervals[i][0] >= intervals[i - 1][1], `lock intervals overlap: ${JSON.stringify(intervals)}`);
  }

  // Both tabs reload and see the same, complete index.
  for (const page of [a, b]) {
    assert.deepEqual(await page.evaluate(() => window.memdexTest.open()), { generation: 3, size: 3 });
    assert.deepEqual(await page.evaluate(() => ['seed', 'from-a', 'from-b'].map((id) => window.memdexTest.has(id))), [true, true, true]);
  }
  assert.deepEqual(await a.evaluate(() => window.memdexTest.search('quokka')), ['from-a']);
  assert.deepEqual(await b.evaluate(() => window.memdexTest.search('wombat')), ['from-b']);

  // A third tab (a fresh page load) reads the same committed state.
  const c = await openTab(context, errors);
  assert.deepEqual(await c.evaluate(() => window.memdexTest.open()), { generation: 3, size: 3 });

  for (const p of [a, b, c]) await p.evaluate(() => window.memdexTest.close());
  await a.evaluate(() => window.memdexTest.reset());
  assert.deepEqual(errors, []);
  await context.close();
});

test('IndexedDB adapter: an upgrade blocked by another tab rejects with STORAGE/BLOCKED, then recovers', async () => {
  const context = await browser.newContext();
  const errors = [];
  const page = await openTab(context, errors);
  const result = await page.evaluate(async () => {
    const { indexedDBStorage } = await import('/pkg/storage/indexeddb.js');
    const DB = 'memdex-blocked';
    await indexedDBStorage({ database: DB }).deleteDatabase();
    // A raw connection (another tab's code) that ignores versionchange.
    const raw = await new Promise((resolve, reject) => {
      const req = indexedDB.open(DB, 1);
      req.onupgradeneeded = () => req.result.createObjectStore('kv');
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
    // This adapter needs another store: an upgrade, which `raw` blocks.
    const storage = indexedDBStorage({ database: DB, store: 'other' });
    let blocked;
    try {
      await storage.put('k', new Uint8Array([1, 2, 3]));
    } catch (err) {
      blocked = { code: err.code, reason: err.reason, message: err.message };
    }
    raw.close();
    await storage.put('k', new Uint8Array([1, 2, 3]));
    const value = [...(await storage.get('k'))];
    // Bad input is reported as STORAGE too, before touching IndexedDB.
    let invalid;
    try {
      await storage.put('k2', 'not bytes');
    } catch (err) {
      invalid = { code: err.code, reason: err.reason };
    }
    await storage.deleteDatabase();
    return { blocked, value, invalid };
  });
  assert.equal(result.blocked?.code, 'STORAGE', JSON.stringify(result));
  assert.equal(result.blocked.reason, 'BLOCKED');
  assert.match(result.blocked.message, /blocked/);
  assert.deepEqual(result.value, [1, 2, 3]);
  assert.deepEqual(result.invalid, { code: 'STORAGE', reason: 'INVALID_VALUE' });
  assert.deepEqual(errors, []);
  await context.close();
});
