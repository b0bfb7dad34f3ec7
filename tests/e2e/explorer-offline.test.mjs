// The explorer works offline after its first load: a service worker keeps
// the page and the /pkg/ files; the index is in IndexedDB. The test loads
// the page once from its own server, stops the server, and reloads: the
// page, its search, its writes and a worker import still work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ARGS, CHROMIUM } from './browser.mjs';
import { ARTIFACTS, SAMPLES, settle, stat, titles, typeQuery, waitReady } from './explorer-helpers.mjs';

test('after one visit the explorer loads, searches, saves and imports with the server down', async () => {
  const { server, url } = await startServer({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(url.replace('localhost', '127.0.0.1'));
    await waitReady(page);
    await page.waitForSelector('body[data-offline="ready"]', { timeout: 30_000 });
    assert.match(await stat(page, 'offline'), /^ready: \d+ files cached$/);
    const cached = await page.evaluate(async () => (await (await caches.open('memdex-explorer-v1')).keys()).map((r) => new URL(r.url).pathname));
    for (const path of ['/', '/app.js', '/lib/store.js', '/pkg/index.js', '/pkg/memdex-english_bg.wasm', '/pkg/memdex_bg.wasm', '/pkg/worker.js', '/memories.jsonl']) {
      assert.ok(cached.includes(path), `${path} is cached: ${cached}`);
    }
    assert.ok(cached.some((p) => p.startsWith('/pkg/snippets/')), 'the wasm glue snippet (hashed path) is cached');
    // Every file of the page (sw.js's list must follow new modules; the browser keeps sw.js itself).
    const www = readdirSync(new URL('../../www/', import.meta.url), { recursive: true })
      .filter((f) => /\.(js|css|html|jsonl)$/.test(f) && f !== 'sw.js')
      .map((f) => `/${f.split('\\').join('/')}`);
    assert.deepEqual(www.filter((f) => !cached.includes(f)), [], 'every www/ file is cached');

    // The server goes away.
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    const down = await page.evaluate(() => fetch('/pkg/core.js', { cache: 'no-store' }).then((r) => r.status, (e) => String(e)));
    assert.equal(down, 200, 'served by the service worker');

    await page.reload();
    await waitReady(page);
    assert.match(await page.textContent('#status'), new RegExp(`^${SAMPLES.length} memories`));
    await typeQuery(page, 'deploying on friday ');
    assert.equal((await titles(page))[0], 'Never deploy on Fridays');

    await page.fill('#add-form [name=title]', 'Written offline');
    await page.fill('#add-form [name=text]', 'The server was down: narwhal.');
    await page.click('#add-form button[type=submit]');
    await page.waitForSelector('body[data-saved]');

    // The import worker's module comes from the cache too.
    const file = `${ARTIFACTS}offline.jsonl`;
    writeFileSync(file, '{"id":"off-1","title":"Offline import","text":"imported while offline: narwhal"}\n');
    await page.setInputFiles('#jsonl', file);
    await page.waitForSelector('body[data-imported]');
    assert.equal(await page.getAttribute('body', 'data-imported'), '1', await page.textContent('#progress-status'));

    await page.reload();
    await waitReady(page);
    await typeQuery(page, 'narwhal');
    await settle(page);
    assert.deepEqual((await titles(page)).sort(), ['Offline import', 'Written offline']);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await browser.close();
    server.close();
  }
});
