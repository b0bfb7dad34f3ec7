// The package through a bundler: esbuild (no plugins) bundles an app that
// imports `memdex` and `memdex/tools` from node_modules, resolved through the
// exports map's `browser` condition, plus the package's worker entry as a
// second bundle. The wasm is copied next to the bundles, as the package
// README says. The result runs in headless Chromium: IndexedDB persistence
// across a reopen, the agent tools, and `openInWorker` with the bundled worker.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { launch } from './browser.mjs';

const PKG = fileURLToPath(new URL('../../pkg/', import.meta.url));

const APP = `
import { Memdex, MemdexError } from 'memdex';
import { memoryTools, handleToolCall } from 'memdex/tools';

window.run = async () => {
  const name = 'bundled-' + Date.now().toString(36);
  const a = await Memdex.open({ name, storage: 'indexeddb', database: 'memdex-bundler-test', autoCommit: false });
  a.add({ id: 'b1', title: 'Bundled memory', text: 'esbuild resolved the browser entry of the package' });
  a.add({ id: 'b2', title: 'Another', text: 'nothing to see here' });
  await a.commit();
  await a.close();
  const b = await Memdex.open({ name, storage: 'indexeddb', database: 'memdex-bundler-test' });
  const reopened = b.search('esbuild browser', { highlight: true }).hits.map((h) => [h.id, h.snippets?.text ?? null]);
  const tool = await handleToolCall(b, 'memory_search', { query: 'bundled' });
  let code = null;
  try {
    b.search('(', { syntax: 'strict' });
  } catch (e) {
    code = e instanceof MemdexError ? e.code : 'not a MemdexError';
  }
  await b.close();

  const w = await Memdex.openInWorker({ worker: new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }) });
  await w.addMany([{ id: 'w1', text: 'indexed inside the bundled worker' }, { id: 'w2', text: 'also here' }]);
  const inWorker = (await w.search('bundled worker')).hits.map((h) => h.id);
  await w.close();
  return { reopened, toolNames: memoryTools.map((t) => t.name), toolError: tool.isError, toolText: tool.content[0].text, code, inWorker };
};
window.ready = true;
`;

let env;
let dir;
before(async () => {
  env = await launch();
  dir = mkdtempSync(join(tmpdir(), 'memdex-bundler-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(PKG, join(dir, 'node_modules', 'memdex'), 'dir');
  writeFileSync(join(dir, 'app.js'), APP);
  mkdirSync(join(dir, 'out'));
  const common = { bundle: true, format: 'esm', platform: 'browser', minify: true, logLevel: 'error', absWorkingDir: dir };
  await build({ ...common, entryPoints: ['app.js'], outfile: 'out/app.js' });
  // The worker is its own entry point, as Vite and webpack make it from
  // `new Worker(new URL(...))`: a bare `import 'memdex/worker.js'` would be
  // dropped, since the package declares `sideEffects: false`.
  await build({ ...common, entryPoints: ['memdex/worker.js'], outfile: 'out/worker.js' });
  copyFileSync(join(PKG, 'memdex_bg.wasm'), join(dir, 'out', 'memdex_bg.wasm'));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('esbuild picks the browser entry: no Node built-ins, the engine glue once', () => {
  const app = readFileSync(join(dir, 'out', 'app.js'), 'utf8');
  assert.doesNotMatch(app, /node:fs|node:path|node:crypto/);
  assert.match(app, /memdex_bg\.wasm/);
  // The wasm-bindgen glue is in once (its import names are strings, which
  // minification keeps).
  assert.equal(app.split('__wbindgen_init_externref_table').length - 1, 1);
  assert.equal(app.match(/__wbg_memdexResults_[0-9a-f]+/g)?.length, 1);
});

test('an esbuild bundle of the package runs in Chromium: IndexedDB reopen, tools, bundled worker', async () => {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(new Error(msg.text()));
  });
  const types = { '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
  await page.route('**/__bundle__/**', async (route) => {
    const file = new URL(route.request().url()).pathname.replace('/__bundle__/', '');
    if (file === 'index.html') {
      return route.fulfill({ contentType: 'text/html; charset=utf-8', body: '<!doctype html><meta charset="utf-8"><script type="module" src="app.js"></script>' });
    }
    if (file.includes('/') || file.includes('..')) return route.fulfill({ status: 404, body: 'no' });
    try {
      const body = readFileSync(join(dir, 'out', file));
      return route.fulfill({ contentType: types[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream', body });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
  await page.goto(`${env.baseUrl}__bundle__/index.html`);
  await page.waitForFunction(() => window.ready);
  // A hang (say, a worker that never answers) fails with the page's errors
  // instead of stalling the suite; the timer must not outlive the test.
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in 60 s; page errors: ${errors.map(String).join(' | ')}`)), 60_000);
  });
  const report = await Promise.race([page.evaluate(() => window.run()), timeout]).finally(() => clearTimeout(timer));
  assert.deepEqual(report.reopened.map(([id]) => id), ['b1']);
  assert.match(report.reopened[0][1], /<mark>esbuild<\/mark>/);
  assert.deepEqual(report.toolNames, ['memory_search', 'memory_list', 'memory_get', 'memory_related', 'memory_store', 'memory_update', 'memory_delete']);
  assert.equal(report.toolError, false);
  assert.match(report.toolText, /b1/);
  assert.equal(report.code, 'INVALID_QUERY');
  assert.deepEqual(report.inWorker, ['w1']);
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
