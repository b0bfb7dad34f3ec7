// Measures cold start per package build: the time from `import` of memdex to its first search result over a small index (1,000 documents of the packages corpus, imported from a snapshot), in Chromium (the package unbundled and as one esbuild bundle; cold: a new browser profile, no HTTP or code cache; cached: a later visit of the same profile, with whatever Chromium kept, the compiled wasm included if it did) and in workerd through Miniflare (a fresh isolate: startup over an empty Worker's, then the first request from dispatch to response, and the next one).
//
//   node bench/js/cold-start.mjs [PKG_DIR[:lexical] ...] [--runs 7] [--docs 1000] [--query "json parser"]
//
// PKG_DIR: package builds to compare (default pkg/), e.g. `pkg pkg:lexical
// pkg-english`; `:lexical` measures the package's lexical build
// (`memdex/lexical`: lexical.js, lexical-workerd.js, memdex-lexical_bg.wasm).
// Writes bench/results/cold-start-<stamp>.json (every run) and the tables
// bench/results/tables/cold-start-{chromium,workerd}.json (medians); then
// run `node bench/js/report.mjs` for BENCHMARKS.md. Needs the shared data
// (MEMDEX_DATA, default ../shared/data) and Chromium (CHROMIUM, default
// /usr/bin/chromium).
import { cpus, loadavg } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { readJsonlGzHead } from './common.mjs';
import { writeTable } from './report-table.mjs';
import { browserColdStart } from './cold-start-browser.mjs';
import { workerdColdStart } from './cold-start-workerd.mjs';

const REPO = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const RESULTS = join(REPO, 'bench', 'results');

/** Each build's browser entry, workerd entry and wasm. */
const BUILDS = {
  full: { browser: 'index.js', workerd: 'workerd.js', wasm: 'memdex_bg.wasm' },
  lexical: { browser: 'lexical.js', workerd: 'lexical-workerd.js', wasm: 'memdex-lexical_bg.wasm' },
};

/** `--name value` options and the positional package directories. */
function parseArgs(argv) {
  const opts = { runs: 7, docs: 1000, query: 'json parser', dirs: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs' || a === '--docs') opts[a.slice(2)] = Number(argv[++i]);
    else if (a === '--query') opts.query = argv[++i];
    else if (a.startsWith('--')) throw new Error(`cold-start: unknown option ${a}`);
    else {
      const [dir, build = 'full'] = a.split(':');
      if (!BUILDS[build]) throw new Error(`cold-start: unknown build "${build}" in ${a} (full or lexical)`);
      opts.dirs.push({ dir: resolve(dir), build });
    }
  }
  if (opts.dirs.length === 0) opts.dirs.push({ dir: join(REPO, 'pkg'), build: 'full' });
  if (!(opts.runs >= 1 && opts.docs >= 1)) throw new Error('cold-start: --runs and --docs must be >= 1');
  return opts;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const spread = (xs) => `${ms(median(xs))} (${ms(Math.min(...xs))}–${ms(Math.max(...xs))})`;

/** The snapshot every environment loads, written by the package's full build (both builds write the same bytes). */
async function snapshotOf(pkgDir, docs) {
  const { Memdex } = await import(join(pkgDir, 'node.js'));
  const index = await Memdex.create();
  index.addAll(docs);
  const bytes = index.export();
  await index.close();
  return bytes;
}

const gzipOf = (pkgDir, wasm) => gzipSync(readFileSync(join(pkgDir, wasm)), { level: 9 }).length;

const opts = parseArgs(process.argv.slice(2));
const data = process.env.MEMDEX_DATA ?? join(REPO, '..', 'shared', 'data');
const docs = await readJsonlGzHead(join(data, 'packages', 'corpus.jsonl.gz'), opts.docs, (d) => ({ id: d._id, title: d.title, text: d.text }));
const startLoad = loadavg().map((x) => x.toFixed(2));
const builds = [];
for (const { dir: pkgDir, build } of opts.dirs) {
  const files = BUILDS[build];
  const label = `${relative(REPO, pkgDir) || basename(pkgDir)}/${build === 'lexical' ? ' (lexical)' : ''}`;
  const snapshot = await snapshotOf(pkgDir, docs);
  console.error(`[cold-start] ${label}: snapshot of ${docs.length} documents, ${snapshot.length} bytes; Chromium...`);
  const browser = await browserColdStart({ pkgDir, entry: files.browser, snapshot, query: opts.query, runs: opts.runs });
  console.error(`[cold-start] ${label}: workerd...`);
  const workerd = await workerdColdStart({ pkgDir, files, snapshot, query: opts.query, runs: opts.runs });
  const visits = Object.values(browser.entries).flatMap((e) => [...e.cold, ...e.cached]);
  const hits = new Set([...visits, ...workerd.memdex].map((r) => r.hits));
  if (hits.size !== 1 || hits.has(0)) throw new Error(`cold-start: "${opts.query}" must find the same hits everywhere, got ${[...hits]}`);
  // A page of the full build's browser entry fetches its English wasm (English documents here).
  const browserWasm = build === 'full' && existsSync(join(pkgDir, 'memdex-english_bg.wasm')) ? 'memdex-english_bg.wasm' : files.wasm;
  const wasmGzip = gzipOf(pkgDir, files.wasm);
  builds.push({ label, pkgDir, build, wasmGzip, browserWasmGzip: gzipOf(pkgDir, browserWasm), snapshotBytes: snapshot.length, browser, workerd });
}

const stamp = new Date().toISOString();
const command = `node bench/js/cold-start.mjs ${process.argv.slice(2).join(' ')}`.trim();
const machine = `${cpus().length}-core machine shared with other work (load average ${startLoad.join('/')} at start): compare ratios, not absolute times`;
const rawName = `cold-start-${stamp.slice(0, 16).replace(/[-:]/g, '')}.json`;
mkdirSync(RESULTS, { recursive: true });
writeFileSync(
  join(RESULTS, rawName),
  `${JSON.stringify({ workload: 'cold-start', date: stamp, command, machine, docs: docs.length, query: opts.query, runs: opts.runs, builds }, null, 2)}\n`,
);

const col = (name) => ({ name, align: 'right' });
const what = (rest) =>
  `${opts.runs} runs per row; median (min–max) of the total, medians of the parts. The index: the first ${docs.length.toLocaleString('en')} documents of the packages corpus (title, text), as \`export()\` bytes the page or Worker has before the clock starts; the search: "${opts.query}". ${rest}`;
const tables = join(RESULTS, 'tables');
writeTable(tables, {
  workload: 'cold-start-chromium',
  title: 'Cold start in Chromium: import to first search result',
  what: what(
    'A page runs `await import()` of the package\'s browser entry (unbundled: `index.js`, or `lexical.js` for the lexical build, and the files it imports, as the package ships them; bundled: one esbuild bundle of it, minified), `Memdex.import(snapshot)` (which fetches and compiles the wasm) and one search. Cold: a new browser profile each run (empty HTTP cache, no code cache). Cached: the same profile again after a first visit that searched 300 times and stayed open 3 s; files are served with a year-long `Cache-Control`. The last column comes from one more visit of each kind, traced (V8\'s wasm events): V8 compiles wasm functions lazily, as they first run; where the cached visit compiled them again, Chromium did not use its wasm code cache, and a cached visit saved the downloads and the JavaScript compile, not the wasm compile.',
  ),
  command,
  machine: `${machine}; Chromium ${builds[0].browser.chromium}`,
  raw: [`bench/results/${rawName}`],
  columns: [
    'build',
    col('wasm gzip -9'),
    'entry',
    'visit',
    col('import JS (ms)'),
    col('wasm + index (ms)'),
    col('first search (ms)'),
    col('import → first result (ms)'),
    'wasm compiled (traced visit)',
  ],
  rows: builds.flatMap((b) =>
    Object.entries(b.browser.entries).flatMap(([entry, e]) =>
      ['cold', 'cached'].map((visit) => {
        const runs = e[visit];
        const part = (k) => ms(median(runs.map((r) => r[k])));
        const p = e.probes[visit];
        const compiled = p.fromCache ? 'from Chromium\'s wasm cache' : `${p.lazyCompiled} functions, lazily (no wasm cache)`;
        const size = `${((b.browserWasmGzip ?? b.wasmGzip) / 1000).toFixed(1)} KB`;
        return [b.label, size, entry, visit, part('importMs'), part('loadMs'), part('searchMs'), spread(runs.map((r) => r.totalMs)), compiled];
      }),
    ),
  ),
});
writeTable(tables, {
  workload: 'cold-start-workerd',
  title: 'Cold start in workerd (Miniflare): a fresh isolate',
  what: what(
    'A minimal Worker bundled from the build\'s `workerd` entry as wrangler bundles it (the wasm a compiled module, the snapshot a data module); each run is a new Miniflare, so a new isolate. Startup: `new Miniflare()` to `ready` (workerd loads the script: evaluates it, compiles the wasm module), less the same for an empty Worker: the work before any request, which Cloudflare\'s Worker startup limit bounds. First request: `dispatchFetch` to the parsed response (instantiate the wasm, load the index, search). Runs alternate with the empty Worker.',
  ),
  command,
  machine,
  raw: [`bench/results/${rawName}`],
  columns: ['build', col('startup over an empty Worker (ms)'), col('first request (ms)'), col('next request (ms)'), col('empty Worker: startup / request (ms)')],
  rows: builds.map((b) => {
    const m = b.workerd.memdex;
    const e = b.workerd.empty;
    const over = ms(median(m.map((r) => r.readyMs)) - median(e.map((r) => r.readyMs)));
    return [b.label, over, spread(m.map((r) => r.firstMs)), ms(median(m.map((r) => r.nextMs))), `${ms(median(e.map((r) => r.readyMs)))} / ${ms(median(e.map((r) => r.firstMs)))}`];
  }),
});
console.error(`[cold-start] wrote bench/results/${rawName} and the cold-start tables; run node bench/js/report.mjs`);
