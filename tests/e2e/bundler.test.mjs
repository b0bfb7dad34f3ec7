// The package through esbuild (no plugins), as the package README's "Entry
// points" says: the app bundled from node_modules through the exports map's
// `browser` condition, `memdex/worker.js` bundled as a second entry point
// and the entry's two wasm files (memdex-english_bg.wasm, memdex_bg.wasm)
// copied next to the bundles (esbuild does not follow
// `new URL('./file', import.meta.url)`). It runs in headless Chromium
// (bundler-app.mjs). The same output served with a file missing checks that
// a failed wasm or worker fetch names the URL tried and that README section.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { launch } from './browser.mjs';
import { ENTRY_WASM, PKG, assertEntryWasm, assertRun, html, runApp, scratchProject, serve } from './bundler-app.mjs';

let env;
let dir;
let out;
before(async () => {
  env = await launch();
  dir = scratchProject('memdex-esbuild-');
  out = join(dir, 'out');
  mkdirSync(out);
  const common = { bundle: true, format: 'esm', platform: 'browser', minify: true, logLevel: 'error', absWorkingDir: dir };
  await build({ ...common, entryPoints: ['src/index.js'], outfile: 'out/app.js' });
  // The worker is its own entry point, as Vite and webpack make it from
  // `new Worker(new URL(...))`: a bare `import 'memdex/worker.js'` would be
  // dropped, since the package declares `sideEffects: false`.
  await build({ ...common, entryPoints: ['memdex/worker.js'], outfile: 'out/worker.js' });
  for (const file of ENTRY_WASM) copyFileSync(join(PKG, file), join(out, file));
  writeFileSync(join(out, 'index.html'), html('<script type="module" src="app.js"></script>'));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('esbuild picks the browser entry: no Node built-ins, the engine glue once', () => {
  assertEntryWasm(out);
  const app = readFileSync(join(out, 'app.js'), 'utf8');
  assert.match(app, /memdex-english_bg\.wasm/);
  assert.match(app, /memdex_bg\.wasm/);
  // The wasm-bindgen glue is in once (its import names are strings, which
  // minification keeps).
  assert.equal(app.split('__wbindgen_init_externref_table').length - 1, 1);
  assert.equal(app.match(/__wbg_memdexResults_[0-9a-f]+/g)?.length, 1);
});

test('an esbuild bundle runs in Chromium: IndexedDB reopen, tools, openInWorker with the bundled worker', async () => {
  const site = await serve(out);
  try {
    assertRun(await runApp(env.browser, site.url));
  } finally {
    await site.close();
  }
});

/**
 * Calls `fn` of the app served from `out` with `hide` missing.
 * @param {'openMain' | 'openWorker'} fn
 * @param {{ hide?: string[], fallback?: boolean }} options
 */
async function failureOf(fn, options) {
  const site = await serve(out, options);
  try {
    const { report } = await runApp(env.browser, site.url, fn);
    return { ...report, url: site.url };
  } finally {
    await site.close();
  }
}

test('the wasm and the worker served from another folder, passed as `wasm` and `worker`: main thread and worker run', async () => {
  mkdirSync(join(out, 'static'));
  copyFileSync(join(out, 'memdex_bg.wasm'), join(out, 'static', 'memdex_bg.wasm'));
  copyFileSync(join(out, 'worker.js'), join(out, 'static', 'worker.js'));
  const site = await serve(out, { hide: ['/memdex-english_bg.wasm', '/memdex_bg.wasm', '/worker.js'] });
  try {
    const { report, errors } = await runApp(env.browser, site.url, 'runFrom', '/static/');
    assert.deepEqual(report, { main: ['m1'], inWorker: ['w1'] });
    assert.deepEqual(errors, []);
  } finally {
    await site.close();
    rmSync(join(out, 'static'), { recursive: true });
  }
});

const README = /see "Entry points" in the memdex README/;

test('no wasm next to the bundle: WASM_LOAD names the URL, the status and the README section', async () => {
  const { code, message, url } = await failureOf('openMain', { hide: ['/memdex-english_bg.wasm'] });
  assert.equal(code, 'WASM_LOAD');
  assert.ok(message.includes(`GET ${url}memdex-english_bg.wasm: 404`), message);
  assert.match(message, README);
});

test('a server that answers every path with the page: WASM_LOAD says a page came instead of the wasm', async () => {
  const { code, message, url } = await failureOf('openMain', { hide: ['/memdex-english_bg.wasm'], fallback: true });
  assert.equal(code, 'WASM_LOAD');
  assert.ok(message.includes(`GET ${url}memdex-english_bg.wasm: 200 (text/html`), message);
  assert.match(message, README);
});

test('no worker next to the bundle: openInWorker fails with WASM_LOAD naming the worker URL and the README section', async () => {
  const { code, message, url } = await failureOf('openWorker', { hide: ['/worker.js'] });
  assert.equal(code, 'WASM_LOAD');
  assert.ok(message.includes(`the memdex worker did not start (its script failed to load; script: ${url}worker.js)`), message);
  assert.match(message, README);
});

test('the worker starts but finds no wasm: its WASM_LOAD reaches the page with the URL the worker tried', async () => {
  const { code, message, url } = await failureOf('openWorker', { hide: ['/memdex-english_bg.wasm'] });
  assert.equal(code, 'WASM_LOAD');
  assert.ok(message.includes(`GET ${url}memdex-english_bg.wasm: 404`), message);
  assert.match(message, README);
});

test('the README section the load errors point to is in the package, with the esbuild steps and the Vite 7 dev line', () => {
  const readme = readFileSync(join(PKG, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('\n## Entry points\n'));
  assert.ok(readme.includes('\n## Entry points\n'), 'README.md has "## Entry points"');
  assert.match(section, /cp node_modules\/memdex\/memdex-english_bg\.wasm node_modules\/memdex\/memdex_bg\.wasm out\//);
  assert.match(section, /esbuild memdex\/worker\.js --bundle --format=esm --outfile=out\/worker\.js/);
  // The line bundler-vite.test.mjs gives Vite 7's dev server.
  assert.match(section, /export default \{ optimizeDeps: \{ exclude: \['memdex'\] \} \};/);
});
