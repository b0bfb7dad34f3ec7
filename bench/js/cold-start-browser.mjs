// Chromium side of bench/js/cold-start.mjs: a page that takes the time from
// `import()` of a package build's browser entry to its first search result,
// loaded cold (a new browser profile: empty HTTP cache, no code cache) and
// cached (the same profile again, after a first visit has searched and
// idled so Chromium could keep the compiled wasm).
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { build } from 'esbuild';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--no-first-run'];
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };

// The snapshot is fetched before the clock starts: the measure is memdex's
// own (module graph, wasm fetch and compile, index load, first search).
// `?entry=` picks the module imported: the package's browser entry as it
// ships (index.js and the files it imports) or one esbuild bundle of it.
// `#warm` runs more searches (a user typing), so Chromium tiers the wasm up
// and caches it, as after a real visit.
const page = (query) => `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
<script type="module">
const snapshot = new Uint8Array(await (await fetch('/index.bin')).arrayBuffer());
const entry = '/pkg/' + new URLSearchParams(location.search).get('entry');
const t0 = performance.now();
const { Memdex } = await import(entry);
const t1 = performance.now();
const index = await Memdex.import(snapshot);
const t2 = performance.now();
const { hits } = index.search(${JSON.stringify(query)});
const t3 = performance.now();
if (location.hash === '#warm') for (let i = 0; i < 300; i++) index.search(${JSON.stringify(query)}.slice(0, 1 + (i % 12)), { prefix: true });
window.__done = { importMs: t1 - t0, loadMs: t2 - t1, searchMs: t3 - t2, totalMs: t3 - t0, hits: hits.length };
</script>
`;

/**
 * Serves the page, the package build at /pkg/ (with its esbuild bundle as
 * /pkg/bundle.js, beside the wasm as a bundler would put it) and the
 * snapshot, each with a year-long `Cache-Control` as hashed production
 * assets get.
 * @param {string} pkgDir
 * @param {string} entry the build's browser entry (`index.js`, `lexical.js`)
 * @param {Uint8Array} snapshot
 * @param {string} query
 */
async function serve(pkgDir, entry, snapshot, query) {
  const bundled = await build({
    entryPoints: [join(pkgDir, entry)],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    outfile: join(pkgDir, 'bundle.js'),
    logLevel: 'error',
  });
  const bundle = bundled.outputFiles[0].contents;
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname));
    const cache = { 'cache-control': 'public, max-age=31536000, immutable' };
    if (path === '/') return void res.writeHead(200, { 'content-type': TYPES['.html'], 'cache-control': 'no-store' }).end(page(query));
    if (path === '/index.bin') return void res.writeHead(200, { 'content-type': 'application/octet-stream', ...cache }).end(snapshot);
    if (path === '/pkg/bundle.js') return void res.writeHead(200, { 'content-type': TYPES['.js'], ...cache }).end(bundle);
    if (path.startsWith('/pkg/') && !path.includes('..')) {
      try {
        const body = readFileSync(join(pkgDir, path.slice(5)));
        return void res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', ...cache }).end(body);
      } catch {
        /* not there */
      }
    }
    res.writeHead(404).end();
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(() => done(undefined))) };
}

/** One visit of `url` in `context`: the page's timings. */
async function visit(context, url) {
  const tab = await context.newPage();
  try {
    await tab.goto(url);
    await tab.waitForFunction(() => window.__done, null, { timeout: 60_000 });
    return await tab.evaluate(() => window.__done);
  } finally {
    await tab.close();
  }
}

/**
 * A visit traced (V8's wasm events), outside the timed ones: how many wasm
 * functions were compiled and whether the module came from Chromium's
 * cache, so the table can say which compile the "cached" rows had.
 */
async function probe(context, url) {
  const tab = await context.newPage();
  const cdp = await context.newCDPSession(tab);
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['v8.wasm', 'disabled-by-default-v8.wasm.detailed'] }, transferMode: 'ReturnAsStream' });
  await tab.goto(url);
  await tab.waitForFunction(() => window.__done, null, { timeout: 60_000 });
  const complete = new Promise((done) => cdp.once('Tracing.tracingComplete', done));
  await cdp.send('Tracing.end');
  const { stream } = /** @type {{ stream: string }} */ (await complete);
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle: stream });
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString() : chunk.data;
    if (chunk.eof) break;
  }
  await tab.close();
  const parsed = JSON.parse(text);
  const events = Array.isArray(parsed) ? parsed : parsed.traceEvents;
  const count = (re) => events.filter((e) => re.test(e.name)).length;
  return { lazyCompiled: count(/^wasm\.CompileLazy$/), fromCache: count(/Deserializ|CacheHit|cachedModule/i) > 0 };
}

/** A Chromium with a profile of its own on disk (a new, empty one each call). */
const profile = () => chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'memdex-cold-start-')), { executablePath: CHROMIUM, args: ARGS });

/**
 * Cold and cached runs of one package build in Chromium, for each way the
 * page imports it: the build's browser entry as the package ships it, or
 * bundled. Each context is a persistent profile (an incognito one keeps no
 * code cache).
 * @param {{ pkgDir: string, entry: string, snapshot: Uint8Array, query: string, runs: number }} o
 * @returns {Promise<{ chromium: string, entries: Record<string, { cold: object[], cached: object[], probes: { cold: object, cached: object } }> }>}
 */
export async function browserColdStart({ pkgDir, entry, snapshot, query, runs }) {
  const site = await serve(pkgDir, entry, snapshot, query);
  try {
    let version = '';
    /** @type {Record<string, any>} */
    const entries = {};
    for (const [name, file] of Object.entries({ unbundled: entry, bundled: 'bundle.js' })) {
      const url = `${site.url}?entry=${file}`;
      const cold = [];
      for (let i = 0; i < runs; i++) {
        const context = await profile();
        version = context.browser()?.version() ?? '';
        cold.push(await visit(context, url));
        await context.close();
      }
      const fresh = await profile();
      const coldProbe = await probe(fresh, url);
      await fresh.close();
      const context = await profile();
      try {
        // The first visit stays open a while: Chromium writes compiled wasm
        // to its cache some time after tier-up, from the live module.
        const first = await context.newPage();
        await first.goto(`${url}#warm`);
        await first.waitForFunction(() => window.__done, null, { timeout: 60_000 });
        await new Promise((done) => setTimeout(done, 3000));
        await first.close();
        const cached = [];
        for (let i = 0; i < runs; i++) cached.push(await visit(context, url));
        entries[name] = { cold, cached, probes: { cold: coldProbe, cached: await probe(context, url) } };
      } finally {
        await context.close();
      }
    }
    return { chromium: version, entries };
  } finally {
    await site.close();
  }
}
