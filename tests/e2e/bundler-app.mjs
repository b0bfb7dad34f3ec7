// What the bundler tests share: one small app (src/index.js) that imports
// `memdex` and `memdex/tools` as a user's app would, a scratch project with
// the package installed in node_modules (a copy of MEMDEX_PKG_DIR, default
// pkg/, so each build can be tested), a static server for a build's output,
// and the app's run in Chromium with the checks every bundler must pass.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PKG = resolve(process.env.MEMDEX_PKG_DIR ?? fileURLToPath(new URL('../../pkg/', import.meta.url)));

// `Memdex.openInWorker()` with no `worker` option: the package's own
// `new Worker(new URL('./worker.js', import.meta.url))` is what a bundler
// has to follow.
const APP = `import { Memdex, MemdexError } from 'memdex';
import { memoryTools, handleToolCall } from 'memdex/tools';

window.run = async () => {
  const name = 'bundled-' + Date.now().toString(36);
  const a = await Memdex.open({ name, storage: 'indexeddb', database: 'memdex-bundler-test', autoCommit: false });
  a.add({ id: 'b1', title: 'Bundled memory', text: 'the bundler resolved the browser entry of the package' });
  a.add({ id: 'b2', title: 'Another', text: 'nothing to see here' });
  await a.commit();
  await a.close();
  const b = await Memdex.open({ name, storage: 'indexeddb', database: 'memdex-bundler-test' });
  const reopened = b.search('bundler browser', { highlight: true }).hits.map((h) => [h.id, h.snippets?.text ?? null]);
  const tool = await handleToolCall(b, 'memory_search', { query: 'bundled' });
  let code = null;
  try {
    b.search('(', { syntax: 'strict' });
  } catch (e) {
    code = e instanceof MemdexError ? e.code : 'not a MemdexError';
  }
  await b.close();

  const w = await Memdex.openInWorker({ name, storage: 'indexeddb', database: 'memdex-bundler-test' });
  const fromStorage = (await w.search('bundler')).hits.map((h) => h.id);
  await w.addMany([{ id: 'w1', text: 'indexed inside the bundled worker' }, { id: 'w2', text: 'also here' }]);
  const inWorker = (await w.search('inside worker')).hits.map((h) => h.id);
  await w.close();
  // No index is open on the page: a French one switches it to the all-languages wasm.
  const fr = await Memdex.create({ language: 'french' });
  fr.add({ id: 'f1', text: 'les chevaux mangent' });
  const french = fr.search('cheval').hits.map((h) => h.id);
  await fr.close();
  const wasm = performance.getEntriesByType('resource').map((r) => r.name.split('/').pop()).filter((f) => f.endsWith('.wasm'));
  return { reopened, toolNames: memoryTools.map((t) => t.name), toolError: tool.isError, toolText: tool.content[0].text, code, fromStorage, inWorker, french, wasm };
};

// The error a failed load gives, for the tests that serve a build with a file missing.
const failure = async (open) => {
  try {
    await (await open()).close();
    return null;
  } catch (e) {
    return { code: e.code, message: e.message };
  }
};
window.openMain = () => failure(() => Memdex.open());
window.openWorker = () => failure(() => Memdex.openInWorker());

// The files served from another folder, passed as the README says.
window.runFrom = async (dir) => {
  const wasm = dir + 'memdex_bg.wasm';
  const m = await Memdex.open({ wasm });
  m.add({ id: 'm1', text: 'served from elsewhere' });
  const main = m.search('elsewhere').hits.map((h) => h.id);
  await m.close();
  const w = await Memdex.openInWorker({ worker: new Worker(dir + 'worker.js', { type: 'module' }), wasm });
  await w.add({ id: 'w1', text: 'a worker served from elsewhere' });
  const inWorker = (await w.search('worker')).hits.map((h) => h.id);
  await w.close();
  return { main, inWorker };
};
window.ready = true;
`;

/**
 * An app page loading `script` (the empty icon keeps Chromium from asking
 * for a favicon, a 404 in the console).
 * @param {string} script
 */
export const html = (script) => `<!doctype html><meta charset="utf-8"><title>bundled</title><link rel="icon" href="data:,">${script}\n`;

/**
 * A scratch project: package.json, index.html, src/index.js and the
 * package in node_modules/memdex. Returns its directory.
 * @param {string} prefix
 */
export function scratchProject(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cpSync(PKG, join(dir, 'node_modules', 'memdex'), { recursive: true });
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bundled-app', private: true, type: 'module' }));
  // The page Vite builds from: its entry is the module script.
  writeFileSync(join(dir, 'index.html'), html('<script type="module" src="/src/index.js"></script>'));
  writeFileSync(join(dir, 'src', 'index.js'), APP);
  return dir;
}

/** Every file under `dir`, as paths relative to it. */
export function filesIn(dir, base = dir) {
  return readdirSync(dir).flatMap((f) => {
    const path = join(dir, f);
    return statSync(path).isDirectory() ? filesIn(path, base) : [path.slice(base.length + 1)];
  });
}

/** The wasm files of the browser entry: English first, every language when an index needs it. */
export const ENTRY_WASM = ['memdex-english_bg.wasm', 'memdex_bg.wasm'];

/**
 * A build's output must carry the browser entry's two wasm files once
 * each, byte for byte (the lexical one is another entry's), and no Node
 * built-in or file: URL of the build machine (what a bundler makes of an
 * `import.meta.url` it does not follow).
 */
export function assertEntryWasm(out) {
  const wasm = filesIn(out).filter((f) => f.endsWith('.wasm'));
  assert.equal(wasm.length, ENTRY_WASM.length, `${ENTRY_WASM.length} .wasm files in the output, got ${wasm.join(', ')}`);
  for (const file of ENTRY_WASM) {
    const bytes = readFileSync(join(PKG, file));
    assert.equal(wasm.filter((f) => readFileSync(join(out, f)).equals(bytes)).length, 1, `${file} is in the output once`);
  }
  for (const f of filesIn(out).filter((f) => f.endsWith('.js'))) {
    const code = readFileSync(join(out, f), 'utf8');
    assert.doesNotMatch(code, /node:fs|node:path|node:crypto/, `${f} has no Node built-in`);
    assert.doesNotMatch(code, /file:\/\//, `${f} has no file: URL`);
  }
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };

/**
 * Serves `dir` over HTTP on 127.0.0.1. `hide`: paths (from the root, as
 * `/memdex_bg.wasm`) answered 404;
 * `fallback`: unknown paths get index.html with 200, as single-page-app
 * hosts and dev servers answer.
 * @param {string} dir
 * @param {{ hide?: string[], fallback?: boolean }} [options]
 * @returns {Promise<{ url: string, close: () => Promise<void> }>}
 */
export async function serve(dir, { hide = [], fallback = false } = {}) {
  const server = createServer((req, res) => {
    let path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (path.endsWith('/')) path += 'index.html';
    const file = join(dir, path);
    let body = null;
    if (!path.includes('..') && !hide.includes(path)) {
      try {
        body = readFileSync(file);
      } catch {
        /* not there */
      }
    }
    if (body === null && fallback) {
      res.writeHead(200, { 'content-type': TYPES['.html'] }).end(readFileSync(join(dir, 'index.html')));
    } else if (body === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    } else {
      res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(body);
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((done) => server.close(() => done(undefined))) };
}

/**
 * Opens `url` in a new page and calls `window[fn](arg)` there. A hang (a
 * worker that never answers) fails with the page's errors instead of
 * stalling.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url
 * @param {'run' | 'openMain' | 'openWorker' | 'runFrom'} fn
 * @param {string} [arg]
 */
export async function runApp(browser, url, fn = 'run', arg) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error' || msg.type() === 'warning') errors.push(`${msg.text()} (${msg.location().url})`);
  });
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.ready, null, { timeout: 30_000 });
    let timer;
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer in 60 s; page errors: ${errors.join(' | ')}`)), 60_000);
    });
    const report = await Promise.race([page.evaluate(([f, a]) => window[f](a), [fn, arg]), timeout]).finally(() => clearTimeout(timer));
    return { report, errors };
  } finally {
    await page.close();
  }
}

/** What the app reports in every bundler: storage, tools, error codes and the worker. */
export function assertRun({ report, errors }) {
  assert.deepEqual(report.reopened.map(([id]) => id), ['b1']);
  assert.match(report.reopened[0][1], /<mark>bundler<\/mark>/);
  assert.deepEqual(report.toolNames, ['memory_search', 'memory_list', 'memory_get', 'memory_related', 'memory_store', 'memory_update', 'memory_delete']);
  assert.equal(report.toolError, false);
  assert.match(report.toolText, /b1/);
  assert.equal(report.code, 'INVALID_QUERY');
  assert.deepEqual(report.fromStorage, ['b1'], 'the worker opens what the page committed to IndexedDB');
  assert.deepEqual(report.inWorker, ['w1']);
  assert.deepEqual(report.french, ['f1'], 'French stemming: cheval finds chevaux');
  // The page fetched the English wasm, then the all-languages one for the
  // French index (names as the bundler emitted them).
  assert.equal(report.wasm.length, 2, `two wasm fetches on the page: ${report.wasm}`);
  assert.deepEqual(errors, []);
}

/**
 * Serves the build in `out` without its worker chunk `chunk` and checks
 * that opening in a worker fails with WASM_LOAD naming the chunk's URL and
 * the README section that fixes it.
 */
export async function assertMissingChunkNamed(browser, out, chunk) {
  const site = await serve(out, { hide: [`/${chunk}`] });
  try {
    const { report } = await runApp(browser, site.url, 'openWorker');
    assert.equal(report.code, 'WASM_LOAD');
    assert.ok(report.message.includes(`(its script failed to load; script: ${site.url}${chunk})`), report.message);
    assert.match(report.message, /see "Entry points" in the memdex README/);
  } finally {
    await site.close();
  }
}
