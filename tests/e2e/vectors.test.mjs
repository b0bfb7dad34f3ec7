// The vector suite (tests/js/vectors.suite.mjs) in headless Chromium against
// the browser build (pkg/index.js), with memory storage and real IndexedDB
// storage: vectors are committed to IndexedDB and read back by a fresh open.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, reportSuite, runSuitePage, suitePage } from './browser.mjs';

const PAGE = suitePage({ title: 'memdex vector suite', module: 'vectors.suite.mjs', define: 'defineVectorSuite', database: 'memdex-vectors' });

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

test('vector suite in Chromium (memory + IndexedDB)', async (t) => {
  const run = await runSuitePage(env, PAGE);
  const { results } = run;
  assert.equal(results.length, 8);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb') && r.name.includes('persist')));
  await reportSuite(t, run);
});
