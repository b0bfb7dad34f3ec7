// The package through Vite with no configuration file, in the two bundlers
// Vite has shipped with: Vite 8 (Rolldown) and Vite 7 (Rollup, the devDependency
// `vite-rollup`). `vite build` of the app in bundler-app.mjs, served as
// built, and the same app from `vite dev`. Vite follows the package's
// `new URL('./memdex-english_bg.wasm', import.meta.url)` (and memdex_bg.wasm) and
// `new Worker(new URL('./worker.js', import.meta.url))` by itself: nothing
// is copied by hand. Vite 7's dev server pre-bundles dependencies with
// esbuild, which moves the package's code away from its files: there the
// README's one line (`optimizeDeps: { exclude: ['memdex'] }`) is needed,
// and without it the load error says which URL answered what.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { createServer as netServer } from 'node:net';
import { join } from 'node:path';
import * as vite8 from 'vite';
import * as vite7 from 'vite-rollup';
import { launch } from './browser.mjs';
import { assertMissingChunkNamed, assertEntryWasm, assertRun, filesIn, runApp, scratchProject, serve } from './bundler-app.mjs';

const VITES = [
  { name: 'Vite 8 (Rolldown)', vite: vite8, dev: {} },
  { name: 'Vite 7 (Rollup)', vite: vite7, dev: { optimizeDeps: { exclude: ['memdex'] } } },
];

/** A free loopback port (Vite 7 reads port 0 as "the default, 5173"). */
async function freePort() {
  const server = netServer();
  await new Promise((done) => server.listen(0, '127.0.0.1', () => done(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  await new Promise((done) => server.close(() => done(undefined)));
  return port;
}

/** Runs `fn(url)` against `vite dev` of `dir` with `config`. */
async function withDevServer(vite, dir, config, fn) {
  const port = await freePort();
  const server = await vite.createServer({ root: dir, configFile: false, logLevel: 'error', server: { host: '127.0.0.1', port, strictPort: true, hmr: false }, ...config });
  await server.listen();
  try {
    return await fn(`http://127.0.0.1:${port}/`);
  } finally {
    await server.close();
  }
}

/** The chunk holding worker.js (its own message marks it). */
const workerChunks = (out) => filesIn(out).filter((f) => f.endsWith('.js') && readFileSync(join(out, f), 'utf8').includes('open the index first'));

let env;
before(async () => {
  env = await launch();
  for (const v of VITES) {
    v.dir = scratchProject('memdex-vite-');
    await v.vite.build({ root: v.dir, configFile: false, logLevel: 'error' });
  }
});
after(async () => {
  await env?.close();
  for (const v of VITES) if (v.dir) rmSync(v.dir, { recursive: true, force: true });
});

for (const v of VITES) {
  test(`${v.name}: vite build emits the two wasm files as assets and the worker as its own chunk`, () => {
    const out = join(v.dir, 'dist');
    assertEntryWasm(out);
    const js = filesIn(out).filter((f) => f.endsWith('.js'));
    assert.equal(workerChunks(out).length, 1, `one worker chunk among ${js.join(', ')}`);
    assert.equal(js.length, 2, `the app and its worker: ${js.join(', ')}`);
  });

  test(`${v.name}: the build runs in Chromium: IndexedDB reopen, tools, openInWorker`, async () => {
    const site = await serve(join(v.dir, 'dist'));
    try {
      assertRun(await runApp(env.browser, site.url));
    } finally {
      await site.close();
    }
  });

  test(`${v.name}: a build whose worker chunk is not served fails with WASM_LOAD naming that chunk's URL`, async () => {
    const out = join(v.dir, 'dist');
    const [chunk] = workerChunks(out);
    await assertMissingChunkNamed(env.browser, out, chunk);
  });

  test(`${v.name}: the app runs from vite dev${Object.keys(v.dev).length ? ' with the README\'s one line' : ''}`, async () => {
    await withDevServer(v.vite, v.dir, v.dev, async (url) => assertRun(await runApp(env.browser, url)));
  });
}

test('Vite 7 (Rollup): vite dev without that line fails with WASM_LOAD naming the URL that answered a page', async () => {
  const { vite, dir } = VITES[1];
  const { report } = await withDevServer(vite, dir, {}, (url) => runApp(env.browser, url, 'openMain'));
  assert.equal(report.code, 'WASM_LOAD');
  assert.match(report.message, /GET http:\/\/127\.0\.0\.1:\d+\/(node_modules\/)?\.vite\/deps\/memdex-english_bg\.wasm: 200 \(text\/html/);
  assert.match(report.message, /see "Entry points" in the memdex README/);
});
