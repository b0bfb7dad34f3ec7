// The vector suite (tests/js/vectors.suite.mjs) in headless Chromium against
// the browser build (pkg/index.js), with memory storage and real IndexedDB
// storage: vectors are committed to IndexedDB and read back by a fresh open.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessPage, launch } from './browser.mjs';

const PAGE = `<!doctype html><meta charset="utf-8"><title>memdex vector suite</title>
<script type="module">
import { Memdex, MemdexError } from '/pkg/index.js';
import { memoryStorage } from '/pkg/storage/memory.js';
import { indexedDBStorage } from '/pkg/storage/indexeddb.js';
import { defineVectorSuite } from '/__tests__/js/vectors.suite.mjs';

const tests = [];
const test = (name, fn) => tests.push({ name, fn });
const fail = (message) => { throw new Error(message); };
const show = (v) => { try { return JSON.stringify(v); } catch { return String(v); } };
const assert = {
  ok: (v, m) => v || fail(m ?? 'expected a truthy value, got ' + show(v)),
  equal: (a, b, m) => Object.is(a, b) || fail(m ?? 'expected ' + show(b) + ', got ' + show(a)),
  deepEqual: (a, b, m) => show(a) === show(b) || fail(m ?? 'expected ' + show(b) + ', got ' + show(a)),
};
let n = 0;
const run = Date.now().toString(36);
defineVectorSuite({ Memdex, MemdexError, test, assert, label: 'browser memory', makeStorage: () => memoryStorage() });
defineVectorSuite({
  Memdex, MemdexError, test, assert, label: 'browser indexeddb',
  makeStorage: () => indexedDBStorage({ database: 'memdex-vectors-' + run + '-' + n++ }),
});
const results = [];
for (const t of tests) {
  try {
    await t.fn();
    results.push({ name: t.name, ok: true });
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

test('vector suite in Chromium (memory + IndexedDB)', async (t) => {
  const { page, errors } = await harnessPage(env, PAGE);
  await page.waitForFunction(() => window.__results, null, { timeout: 120_000 });
  const results = await page.evaluate(() => window.__results);
  assert.equal(results.length, 8);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb') && r.name.includes('persist')));
  for (const r of results) {
    await t.test(r.name, () => {
      if (!r.ok) assert.fail(r.error);
    });
  }
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
