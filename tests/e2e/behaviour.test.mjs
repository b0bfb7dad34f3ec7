// The shared behaviour suite (tests/js/behaviour.suite.mjs) in headless
// Chromium against the browser build (pkg/index.js), with memory storage and
// real IndexedDB storage. Each browser case becomes one Node subtest, so a
// failing browser case fails this test run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessPage, launch } from './browser.mjs';

const PAGE = `<!doctype html><meta charset="utf-8"><title>memdex behaviour suite</title>
<script type="module">
import { Memdex, MemdexError } from '/pkg/index.js';
import { memoryStorage } from '/pkg/storage/memory.js';
import { indexedDBStorage } from '/pkg/storage/indexeddb.js';
import { defineSuite } from '/__tests__/js/behaviour.suite.mjs';

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
defineSuite({ Memdex, MemdexError, test, assert, label: 'browser memory', makeStorage: () => memoryStorage() });
defineSuite({
  Memdex, MemdexError, test, assert, label: 'browser indexeddb',
  makeStorage: () => indexedDBStorage({ database: 'memdex-suite-' + run + '-' + n++ }),
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

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

test('behaviour suite in Chromium (memory + IndexedDB)', async (t) => {
  const { page, errors } = await harnessPage(env, PAGE);
  await page.waitForFunction(() => window.__results, null, { timeout: 120_000 });
  const results = await page.evaluate(() => window.__results);
  assert.ok(results.length >= 20, `only ${results.length} browser cases ran`);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb')));
  for (const r of results) {
    await t.test(r.name, () => {
      if (!r.ok) assert.fail(r.error);
    });
  }
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
