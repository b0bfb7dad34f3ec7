// The shared behaviour suite (tests/js/behaviour.suite.mjs) in headless
// Chromium against the browser build (pkg/index.js), with memory storage and
// real IndexedDB storage. Each browser case becomes one Node subtest, so a
// failing browser case fails this test run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, reportSuite, runSuitePage, suitePage } from './browser.mjs';

const PAGE = suitePage({ title: 'memdex behaviour suite', module: 'behaviour.suite.mjs', define: 'defineSuite', database: 'memdex-suite' });

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

test('behaviour suite in Chromium (memory + IndexedDB)', async (t) => {
  const run = await runSuitePage(env, PAGE);
  const { results } = run;
  assert.ok(results.length >= 20, `only ${results.length} browser cases ran`);
  assert.ok(results.some((r) => r.name.startsWith('browser indexeddb')));
  await reportSuite(t, run);
});
