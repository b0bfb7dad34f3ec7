// Shared helpers of the Playwright tests: the demo server (www/ at /, pkg/ at
// /pkg/), headless Chromium (system /usr/bin/chromium via playwright-core),
// and `/__tests__/*` routed to files of tests/ so pages can import test code.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

/** System Chromium and the flags every test launches it with. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const TESTS = new URL('../', import.meta.url);

export async function launch() {
  const { server, url } = await startServer({ port: 0, host: '127.0.0.1' });
  const baseUrl = url.replace('localhost', '127.0.0.1');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    baseUrl,
    browser,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A page on the test server whose `/__tests__/<path>` serves tests/<path> and `/__tests__/page.html` serves `html`. */
export async function harnessPage(env, html) {
  const page = await env.browser.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(new Error(msg.text()));
  });
  await page.route('**/__tests__/**', async (route) => {
    const path = new URL(route.request().url()).pathname.replace('/__tests__/', '');
    if (path === 'page.html') return route.fulfill({ contentType: 'text/html; charset=utf-8', body: html });
    if (path.includes('..')) return route.fulfill({ status: 404, body: 'no' });
    try {
      const body = await readFile(new URL(path, TESTS));
      return route.fulfill({ contentType: 'text/javascript; charset=utf-8', body });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
  await page.goto(`${env.baseUrl}__tests__/page.html`);
  return { page, errors };
}

/**
 * Chromium and the test server for the tests of one file: launched before
 * them, closed after. `chromium.env` is `launch()`'s environment.
 */
export function useChromium() {
  /** @type {{ env: Awaited<ReturnType<typeof launch>> | undefined }} */
  const chromium = { env: undefined };
  before(async () => {
    chromium.env = await launch();
  });
  after(() => chromium.env?.close());
  return chromium;
}

/**
 * A page that puts the browser build's `names` (and any `extra` module
 * code) on `window`, then sets `window.ready`.
 */
export const memdexPage = (title, names = ['Memdex'], extra = '') => `<!doctype html><meta charset="utf-8"><title>${title}</title>
<script type="module">
import { ${names.join(', ')} } from '/pkg/index.js';
${names.map((n) => `window.${n} = ${n};`).join('\n')}
${extra}
window.ready = true;
</script>`;

/** harnessPage, once the page's modules ran (`window.ready`). */
export async function readyPage(env, html) {
  const opened = await harnessPage(env, html);
  await opened.page.waitForFunction(() => window.ready);
  return opened;
}

/**
 * A page running a shared suite module in the browser build: its exported
 * `define({ Memdex, MemdexError, test, assert, label, makeStorage })` is
 * called twice, on memory storage ('browser memory') and on a fresh real
 * IndexedDB database per case ('browser indexeddb'); the cases' outcomes
 * end up in `window.__results`.
 */
export function suitePage({ title, module, define, database }) {
  return `<!doctype html><meta charset="utf-8"><title>${title}</title>
<script type="module">
import { Memdex, MemdexError } from '/pkg/index.js';
import { memoryStorage } from '/pkg/storage/memory.js';
import { indexedDBStorage } from '/pkg/storage/indexeddb.js';
import { ${define} as define } from '/__tests__/js/${module}';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const fail = (message) => { throw new Error(message); };
const show = (v) => { try { return JSON.stringify(v); } catch { return String(v); } };
const assert = {
  ok: (v, m) => v || fail(m ?? 'expected a truthy value, got ' + show(v)),
  equal: (a, b, m) => Object.is(a, b) || fail(m ?? 'expected ' + show(b) + ', got ' + show(a)),
  deepEqual: (a, b, m) => show(a) === show(b) || fail(m ?? 'expected ' + show(b) + ', got ' + show(a)),
  match: (s, re, m) => re.test(s) || fail(m ?? show(s) + ' does not match ' + re),
};
let n = 0;
const run = Date.now().toString(36);
define({ Memdex, MemdexError, test, assert, label: 'browser memory', makeStorage: () => memoryStorage() });
define({
  Memdex, MemdexError, test, assert, label: 'browser indexeddb',
  makeStorage: () => indexedDBStorage({ database: '${database}-' + run + '-' + n++ }),
});
const results = [];
for (const t of tests) {
  const start = performance.now();
  try {
    await t.fn();
    results.push({ name: t.name, ok: true, ms: performance.now() - start });
  } catch (err) {
    results.push({ name: t.name, ok: false, error: (err && (err.code ? err.code + ': ' : '') + (err.stack || err.message)) || String(err) });
  }
}
window.__results = results;
</script>`;
}

/** Loads a {@link suitePage} and waits for its cases: `{ results, page, errors }`. */
export async function runSuitePage(env, html) {
  const { page, errors } = await harnessPage(env, html);
  await page.waitForFunction(() => window.__results, null, { timeout: 120_000 });
  return { results: await page.evaluate(() => window.__results), page, errors };
}

/** Each browser case as a Node subtest of `t` (a failing case fails the run); then no page errors. */
export async function reportSuite(t, { results, page, errors }) {
  for (const r of results) {
    await t.test(r.name, () => {
      if (!r.ok) assert.fail(r.error);
    });
  }
  assert.deepEqual(errors.map(String), []);
  await page.close();
}
