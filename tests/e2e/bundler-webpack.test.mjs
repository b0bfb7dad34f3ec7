// The package through webpack 5 with no configuration file: what `webpack
// --mode production` does in a project whose entry is src/index.js (the
// app in bundler-app.mjs). webpack follows the package's
// `new URL('./memdex-english_bg.wasm', import.meta.url)` (and memdex_bg.wasm: assets) and
// `new Worker(new URL('./worker.js', import.meta.url))` (a worker chunk) by
// itself. The output, with a page that loads main.js, runs in headless
// Chromium with the real IndexedDB.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import webpack from 'webpack';
import { launch } from './browser.mjs';
import { assertMissingChunkNamed, assertEntryWasm, assertRun, filesIn, html, runApp, scratchProject, serve } from './bundler-app.mjs';

let env;
let dir;
let stats;
before(async () => {
  env = await launch();
  dir = scratchProject('memdex-webpack-');
  // `output.path` is dist/ of the directory webpack runs in, the project's.
  const compiler = webpack({ context: dir, mode: 'production', output: { path: join(dir, 'dist') } });
  stats = await new Promise((resolve, reject) => compiler.run((err, result) => (err ? reject(err) : resolve(result))));
  await new Promise((resolve) => compiler.close(resolve));
  writeFileSync(join(dir, 'dist', 'index.html'), html('<script src="main.js"></script>'));
});
after(async () => {
  await env?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('webpack builds without errors; its only warning is its generic size advice about the wasm', () => {
  const { errors, warnings } = stats.toJson({ all: false, errors: true, warnings: true });
  assert.deepEqual(errors, []);
  for (const w of warnings) assert.match(w.message, /asset size limit: .*\n.*\nAssets: \n {2}[0-9a-f]+\.wasm/, w.message);
});

test('webpack emits the two wasm files as assets and the worker as its own chunk', () => {
  const out = join(dir, 'dist');
  assertEntryWasm(out);
  const js = filesIn(out).filter((f) => f.endsWith('.js'));
  // worker.js's own message marks the worker chunk.
  const workers = js.filter((f) => readFileSync(join(out, f), 'utf8').includes('open the index first'));
  assert.equal(workers.length, 1, `one worker chunk among ${js.join(', ')}`);
  assert.ok(js.includes('main.js'));
});

test('a webpack build runs in Chromium: IndexedDB reopen, tools, openInWorker', async () => {
  const site = await serve(join(dir, 'dist'));
  try {
    assertRun(await runApp(env.browser, site.url));
  } finally {
    await site.close();
  }
});

test('a webpack build whose worker chunk is not served: WASM_LOAD names that chunk\'s URL and the README section', async () => {
  const out = join(dir, 'dist');
  const chunk = filesIn(out).find((f) => f.endsWith('.js') && readFileSync(join(out, f), 'utf8').includes('open the index first'));
  assert.ok(chunk);
  await assertMissingChunkNamed(env.browser, out, chunk);
});
