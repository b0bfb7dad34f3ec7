// The package through Vite with no configuration file (Vite 8: Rolldown
// bundles the build): `vite build` of the app in bundler-app.mjs, served as
// built, and the same app from `vite dev` (whose dependency optimizer
// rewrites node_modules). Vite follows the package's
// `new URL('./memdex_bg.wasm', import.meta.url)` and
// `new Worker(new URL('./worker.js', import.meta.url))` by itself: nothing
// is copied by hand. Both run in headless Chromium with the real IndexedDB.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build, createServer } from 'vite';
import { launch } from './browser.mjs';
import { assertOneWasm, assertRun, filesIn, runApp, scratchProject, serve } from './bundler-app.mjs';

let env;
let dir;
before(async () => {
  env = await launch();
  dir = scratchProject('memdex-vite-');
  await build({ root: dir, configFile: false, logLevel: 'error' });
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('vite build emits the wasm as an asset and the worker as its own chunk', () => {
  const out = join(dir, 'dist');
  assertOneWasm(out);
  const js = filesIn(out).filter((f) => f.endsWith('.js'));
  // worker.js's own message marks the worker chunk.
  const workers = js.filter((f) => readFileSync(join(out, f), 'utf8').includes('open the index first'));
  assert.equal(workers.length, 1, `one worker chunk among ${js.join(', ')}`);
  assert.equal(js.length, 2, `the app and its worker: ${js.join(', ')}`);
});

test('a vite build runs in Chromium: IndexedDB reopen, tools, openInWorker', async () => {
  const site = await serve(join(dir, 'dist'));
  try {
    assertRun(await runApp(env.browser, site.url));
  } finally {
    await site.close();
  }
});

test('the app runs from vite dev too', async () => {
  const server = await createServer({ root: dir, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port: 0, hmr: false } });
  await server.listen();
  try {
    const url = server.resolvedUrls?.local[0];
    assert.ok(url, 'vite dev listens');
    assertRun(await runApp(env.browser, url));
  } finally {
    await server.close();
  }
});

test('a vite build whose worker chunk is not served: WASM_LOAD names that chunk\'s URL and the README section', async () => {
  const out = join(dir, 'dist');
  const chunk = filesIn(out).find((f) => f.endsWith('.js') && readFileSync(join(out, f), 'utf8').includes('open the index first'));
  assert.ok(chunk);
  const site = await serve(out, { hide: [chunk.split('/').pop()] });
  try {
    const { report } = await runApp(env.browser, site.url, 'openWorker');
    assert.equal(report.code, 'WASM_LOAD');
    assert.ok(report.message.includes(`(its script failed to load; script: ${site.url}${chunk})`), report.message);
    assert.match(report.message, /see "Entry points" in the memdex README/);
  } finally {
    await site.close();
  }
});
