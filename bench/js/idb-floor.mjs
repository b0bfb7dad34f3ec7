// What: the cost of reading parts from IndexedDB in headless Chromium, the
// floor under a lazy query's p50 (issue 31's "within 2x of the fully loaded
// index"): p50/p90 of reading 1, 4 and 15 values of 32 KiB (a local store's
// part) through `indexedDBStorage` (its `get`s called together share one
// transaction), and through raw IndexedDB with one transaction per key and
// with one transaction for all. A lazy query at 1M `packages` documents
// fetches ~15 parts in two or three dependent rounds (bench/HISTORY.md), so
// its storage time alone is at least the 15-value row.
//
//   node bench/js/idb-floor.mjs [ROUNDS=200]
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = process.env.MEMDEX_PKG_DIR || path.resolve(here, '../../pkg');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];
const rounds = Number(process.argv[2] ?? 200);

const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module">
import { indexedDBStorage } from '/pkg/storage/indexeddb.js';
const ROUNDS = ${rounds}, KEYS = 400, PART = 32768;
const part = new Uint8Array(PART).map((_, i) => (i * 7919) & 255);
const keyAt = (r, j) => 'k' + ((r * 17 + j) % KEYS);
const storage = indexedDBStorage({ database: 'floor' });
for (let i = 0; i < KEYS; i++) await storage.put('k' + i, part);
const db = await new Promise((ok, fail) => {
  const open = indexedDB.open('floor');
  open.onsuccess = () => ok(open.result);
  open.onerror = () => fail(open.error);
});
const txRead = (keys) => new Promise((ok, fail) => {
  const tx = db.transaction('kv', 'readonly');
  for (const k of keys) tx.objectStore('kv').get(k);
  tx.oncomplete = ok;
  tx.onabort = () => fail(tx.error);
});
const ways = {
  adapter: (keys) => Promise.all(keys.map((k) => storage.get(k))),
  'raw, a transaction per key': (keys) => Promise.all(keys.map((k) => txRead([k]))),
  'raw, one transaction': (keys) => txRead(keys),
};
const rows = [];
for (const [way, read] of Object.entries(ways)) {
  for (const n of [1, 4, 15]) {
    const times = [];
    for (let r = 0; r < ROUNDS; r++) {
      const keys = Array.from({ length: n }, (_, j) => keyAt(r, j));
      const t = performance.now();
      await read(keys);
      times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    rows.push({ way, values: n, p50Ms: times[Math.floor(ROUNDS / 2)], p90Ms: times[Math.floor(ROUNDS * 0.9)] });
  }
}
window.__done = rows;
</script>`;

const server = createServer((req, res) => {
  const p = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  if (p === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
  if (p.startsWith('/pkg/') && !p.includes('..')) {
    try {
      return void res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(readFileSync(path.join(pkgDir, p.slice(5))));
    } catch {
      /* not there */
    }
  }
  res.writeHead(404).end();
});
await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
const context = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'memdex-idb-floor-')), { executablePath: CHROMIUM, args: ARGS });
try {
  const tab = await context.newPage();
  await tab.goto(`http://127.0.0.1:${port}/`);
  await tab.waitForFunction(() => window.__done, null, { timeout: 600_000, polling: 200 });
  const rows = await tab.evaluate(() => window.__done);
  console.log(`Chromium ${context.browser()?.version() ?? ''}, ${rounds} rounds, values of 32 KiB`);
  console.log('| read | values | p50 ms | p90 ms |\n|---|---:|---:|---:|');
  for (const r of rows) console.log(`| ${r.way} | ${r.values} | ${r.p50Ms.toFixed(2)} | ${r.p90Ms.toFixed(2)} |`);
} finally {
  await context.close();
  server.close();
}
