// What: `Memdex.open({ lazy: true })` from IndexedDB in headless Chromium,
// against a full open of the same index in the same profile: the time from
// `open` to the first query's results, the p50/p99 of the next 100
// queries, the p50 of those 100 asked again right after (what a lazy
// index answers from what it holds), and what the lazy open fetched. The index is an fs folder
// written by bench/js/lazy-open.mjs (its blobs are copied into the
// profile's IndexedDB by a first visit); each measured visit is a fresh
// page (a new wasm instance, nothing held), in one profile, so the
// browser's own IndexedDB caches may be warm. Same hits in both modes
// (SHA-256 over ids, scores to 6 decimals, stored fields, snippets). The
// tab's memory: the RSS of Chromium's renderer processes after the
// queries (one tab open; wasm memory included), from ps.
//
//   node bench/js/lazy-open-browser.mjs DIR [CACHE=33554432] [MODES=lazy,full] [RESULT.json]
//
// DIR: e.g. $TMPDIR/memdex-lazy-open-1000000 (from `node bench/js/lazy-open.mjs 1000000`).
// MEMDEX_CPU_PROFILE=N: also samples the renderer's CPU (DevTools
// profiler) over the next 100 queries of each mode and prints the N
// functions with the most self time and the N with the most total time
// (wasm functions are named when the package's wasm keeps its names
// section, e.g. target/size/pkg/memdex-english_bg.wasm copied over).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = process.env.MEMDEX_PKG_DIR || path.resolve(here, '../../pkg');
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json' };

const [dir, cache = '33554432', modesArg = 'lazy,full', resultPath] = process.argv.slice(2);
if (!dir) throw new Error('usage: node bench/js/lazy-open-browser.mjs DIR [CACHE] [MODES] [RESULT.json]');
const keys = readdirSync(dir, { recursive: true }).map(String).filter((k) => statSync(path.join(dir, k)).isFile() && !k.includes('/pending/'));
const queries = readFileSync(path.join(dataDir, 'packages/queries.txt'), 'utf8').trim().split('\n').slice(0, 101);

const page = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module">
import { Memdex } from '/pkg/index.js';
import { indexedDBStorage } from '/pkg/storage/indexeddb.js';
const params = new URLSearchParams(location.search);
const mode = params.get('mode');
const storage = indexedDBStorage({ database: 'lazy-bench' });
try {
  if (mode === 'load') {
    const keys = await (await fetch('/keys')).json();
    for (let i = 0; i < keys.length; i += 16) {
      await Promise.all(keys.slice(i, i + 16).map(async (k) => storage.put(k, new Uint8Array(await (await fetch('/blob/' + encodeURIComponent(k))).arrayBuffer()))));
    }
    window.__done = { loaded: keys.length };
  } else {
    const queries = await (await fetch('/queries')).json();
    await import('/pkg/index.js');
    const lazy = mode === 'lazy';
    const t0 = performance.now();
    const index = lazy ? await Memdex.open({ storage, lazy: true, cacheBytes: ${Number(cache)} }) : await Memdex.open({ storage, autoCommit: false });
    const openMs = performance.now() - t0;
    const times = [];
    let firstResultMs = 0;
    const digest = [];
    const answers = [];
    const answer = (hits) => hits.map((h) => h.id + ':' + h.score.toFixed(6) + ':' + JSON.stringify(h.fields) + ':' + JSON.stringify(h.snippets));
    for (const [i, q] of queries.entries()) {
      const t = performance.now();
      const { hits } = lazy ? await index.search(q, { limit: 10, highlight: true }) : index.search(q, { limit: 10, highlight: true });
      times.push(performance.now() - t);
      if (i === 0) firstResultMs = performance.now() - t0;
      if (i === 0 && params.has('profile')) await new Promise((go) => (window.__go = go));
      const rows = answer(hits);
      answers.push(rows.join(';'));
      digest.push(...rows);
    }
    // The same 100 again (answers checked against the first time's).
    const again = [];
    let differ = 0;
    for (const [i, q] of queries.entries()) {
      if (i === 0) continue;
      const t = performance.now();
      const { hits } = lazy ? await index.search(q, { limit: 10, highlight: true }) : index.search(q, { limit: 10, highlight: true });
      again.push(performance.now() - t);
      if (answer(hits).join(';') !== answers[i]) differ += 1;
    }
    again.sort((a, b) => a - b);
    const next = times.slice(1).sort((a, b) => a - b);
    const pct = (p) => next[Math.min(next.length - 1, Math.floor(p * next.length))];
    const bytes = new TextEncoder().encode(digest.join(';'));
    const hash = Array.from(new Uint8Array(await crypto.subtle.digest('SHA-256', bytes)), (b) => b.toString(16).padStart(2, '0')).join('');
    const stats = lazy ? (await index.stats()).lazy : null;
    const againP50Ms = again[Math.floor(again.length / 2)];
    window.__done = { mode, openMs, firstResultMs, next100P50Ms: pct(0.5), next100P99Ms: pct(0.99), againP50Ms, againDiffer: differ, sha256: hash, stats };
  }
} catch (err) {
  window.__done = { error: String(err && err.stack || err) };
}
</script>`;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const p = decodeURIComponent(url.pathname);
  if (p === '/') return void res.writeHead(200, { 'content-type': TYPES['.html']}).end(page);
  if (p === '/keys') return void res.writeHead(200, { 'content-type': TYPES['.json']}).end(JSON.stringify(keys));
  if (p === '/queries') return void res.writeHead(200, { 'content-type': TYPES['.json']}).end(JSON.stringify(queries));
  if (p.startsWith('/blob/') && keys.includes(p.slice(6))) return void res.writeHead(200).end(readFileSync(path.join(dir, p.slice(6))));
  if (p.startsWith('/pkg/') && !p.includes('..')) {
    try {
      return void res.writeHead(200, { 'content-type': TYPES[path.extname(p)] ?? 'application/octet-stream'}).end(readFileSync(path.join(pkgDir, p.slice(5))));
    } catch {
      /* not there */
    }
  }
  res.writeHead(404).end();
});
await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
const context = await chromium.launchPersistentContext(mkdtempSync(path.join(tmpdir(), 'memdex-lazy-browser-')), { executablePath: CHROMIUM, args: ARGS });
/** The largest RSS of Chromium's renderer processes now, in MiB. */
function rendererRssMiB() {
  const rows = execFileSync('ps', ['-eo', 'rss=,args=']).toString().split('\n');
  const rss = rows.filter((r) => r.includes('--type=renderer')).map((r) => Number(r.trim().split(/\s+/)[0]) / 1024);
  return Math.max(0, ...rss);
}
const profileTop = Number(process.env.MEMDEX_CPU_PROFILE ?? 0);
/** Prints the functions of a DevTools CPU profile with the most self and total time. */
function printProfile(mode, { nodes, samples, timeDeltas }) {
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const name = (n) => n.callFrame.functionName || `(anonymous ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber})`;
  const self = new Map();
  const total = new Map();
  let all = 0;
  samples.forEach((id, i) => {
    const dt = timeDeltas[i] / 1000;
    all += dt;
    const n = byId.get(id);
    self.set(name(n), (self.get(name(n)) ?? 0) + dt);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) seen.add(name(byId.get(at)));
    for (const f of seen) total.set(f, (total.get(f) ?? 0) + dt);
  });
  const top = (m) => [...m].sort((a, b) => b[1] - a[1]).slice(0, profileTop);
  console.log(`${mode}: ${all.toFixed(0)} ms sampled over the next 100 queries`);
  for (const [label, m] of [['self', self], ['total', total]]) {
    for (const [f, ms] of top(m)) console.log(`  ${label.padEnd(5)} ${ms.toFixed(1).padStart(8)} ms ${((100 * ms) / all).toFixed(1).padStart(5)} %  ${f.slice(0, 120)}`);
  }
}
const visit = async (mode) => {
  const tab = await context.newPage();
  try {
    await tab.goto(`http://127.0.0.1:${port}/?mode=${mode}${profileTop && mode !== 'load' ? '&profile' : ''}`);
    if (profileTop && mode !== 'load') {
      await tab.waitForFunction(() => window.__go || window.__done, null, { timeout: 1_800_000, polling: 100 });
      const cdp = await context.newCDPSession(tab);
      await cdp.send('Profiler.enable');
      await cdp.send('Profiler.setSamplingInterval', { interval: 100 });
      await cdp.send('Profiler.start');
      await tab.evaluate(() => window.__go?.());
      await tab.waitForFunction(() => window.__done, null, { timeout: 1_800_000, polling: 100 });
      printProfile(mode, (await cdp.send('Profiler.stop')).profile);
    }
    await tab.waitForFunction(() => window.__done, null, { timeout: 1_800_000, polling: 500 });
    const out = await tab.evaluate(() => window.__done);
    if (out.error) throw new Error(out.error);
    return { ...out, rendererMiB: rendererRssMiB() };
  } finally {
    await tab.close();
  }
};
try {
  const started = Date.now();
  const loaded = await visit('load');
  console.log(`copied ${loaded.loaded} blobs into IndexedDB in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const rows = [];
  for (const mode of modesArg.split(',')) {
    const r = await visit(mode);
    rows.push(r);
    const memory = `renderer RSS ${r.rendererMiB.toFixed(0)} MiB`;
    console.log(`${mode.padEnd(5)} open ${r.openMs.toFixed(0)} ms, first result ${r.firstResultMs.toFixed(0)} ms, next 100 p50 ${r.next100P50Ms.toFixed(3)} ms p99 ${r.next100P99Ms.toFixed(2)} ms, again p50 ${r.againP50Ms.toFixed(3)} ms (${r.againDiffer} differ), ${memory}${r.stats ? `, ${JSON.stringify(r.stats)}` : ''}`);
  }
  const same = new Set(rows.map((r) => r.sha256)).size === 1 && rows.every((r) => r.againDiffer === 0);
  console.log(same ? 'same hits in every mode' : 'RESULTS DIFFER');
  if (resultPath) writeFileSync(resultPath, JSON.stringify({ dir, date: new Date().toISOString(), chromium: context.browser()?.version() ?? '', rows, identical: same }, null, 2) + '\n');
  if (!same) process.exitCode = 1;
} finally {
  await context.close();
  server.close();
}
