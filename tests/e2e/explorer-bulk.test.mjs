// The explorer's bulk paths in headless Chromium: a JSONL file imported
// through Memdex.openInWorker with a progress bar while the page keeps
// answering searches, a rejected line, and the generated 100k set; and the
// keystroke-to-rendered-results latency on the sample set and on 100k,
// measured in the page with `performance` marks and written to
// target/explorer/latency.json (a benchmark figure for BENCHMARKS.md, not a
// timed assertion).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { syntheticMemories } from '../../www/synthetic.js';
import { ARTIFACTS, SAMPLES, launchExplorer, openExplorer, settle, stat, titles, typeQuery, waitReady } from './explorer-helpers.mjs';

const N = SAMPLES.length;
const BULK = Number(process.env.MEMDEX_EXPLORER_BULK ?? 100_000);
let env;
before(async () => {
  env = await launchExplorer();
});
after(() => env?.close());

/** Records every value the progress bar takes, in the page. */
function watchProgress(page) {
  return page.evaluate(() => {
    window.progressSeen = [];
    const bar = document.querySelector('#progress');
    new MutationObserver(() => window.progressSeen.push(Number(bar.value))).observe(bar, { attributes: true });
    // `value` is a property; the page sets it, which does not always touch the attribute.
    const desc = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, 'value');
    Object.defineProperty(bar, 'value', {
      get: () => desc.get.call(bar),
      set: (v) => {
        desc.set.call(bar, v);
        window.progressSeen.push(Number(v));
      },
    });
  });
}

test('JSONL import: a worker indexes 20,000 lines with a progress bar while the page keeps searching; they persist', async () => {
  const page = await openExplorer(env);
  const COUNT = 20_000;
  const lines = [];
  let i = 0;
  for (const doc of syntheticMemories(COUNT, 7)) {
    const { id, ...rest } = doc;
    // Half in the `_id` spelling of the shared data sets.
    lines.push(JSON.stringify(i++ % 2 ? { _id: `jl-${id}`, ...rest } : { id: `jl-${id}`, ...rest }));
  }
  lines.splice(12_345, 0, JSON.stringify({ id: 'jl-needle', title: 'Aardvark handbook', text: 'The aardvark is imported from a JSONL file.', kind: 'note', namespace: 'import:test', tags: ['jsonl'] }));
  const file = `${ARTIFACTS}import.jsonl`;
  writeFileSync(file, `${lines.join('\n')}\n`);

  await watchProgress(page);
  await page.setInputFiles('#jsonl', file);
  await page.waitForSelector('body[data-importing]');
  // While the worker indexes, the page answers searches (on the committed state).
  await typeQuery(page, 'never deploy', { delay: 20 });
  const duringImport = await page.evaluate(() => ({ importing: document.body.dataset.importing, hits: document.querySelectorAll('#results li.hit').length }));
  await page.waitForSelector('body[data-imported]', { timeout: 120_000 });
  assert.equal(await page.getAttribute('body', 'data-imported'), String(COUNT + 1), await page.textContent('#progress-status'));
  assert.equal(duringImport.importing, 'true', 'the search ran while the import was in progress');
  assert.ok(duringImport.hits > 0);

  const seen = await page.evaluate(() => window.progressSeen);
  const between = seen.filter((v) => v > 0 && v < 1);
  assert.ok(between.length >= 5, `the bar moved through intermediate values: ${JSON.stringify(seen)}`);
  for (let k = 1; k < seen.length; k++) {
    if (seen[k] !== 0) assert.ok(seen[k] >= seen[k - 1], `progress never goes back: ${seen}`);
  }
  assert.equal(seen.at(-1), 1);
  const status = await page.textContent('#progress-status');
  assert.match(status, /^Imported 20,001 memories in [\d.]+ s\. Longest pause of the page while the worker indexed: \d+ ms/);
  console.log(`${status}`);

  assert.equal(await stat(page, 'documents'), (N + COUNT + 1).toLocaleString('en'));
  await typeQuery(page, 'aardvark');
  assert.deepEqual(await titles(page), ['Aardvark handbook']);
  await page.reload();
  await waitReady(page);
  assert.equal(await stat(page, 'documents'), (N + COUNT + 1).toLocaleString('en'));
  await typeQuery(page, 'aardvark');
  assert.deepEqual(await titles(page), ['Aardvark handbook']);
  // The imported namespace is offered by the namespace filter.
  assert.ok(await page.$('#namespaces option[value="import:test"]'));

  // A file with a bad line: the lines before it are saved, the message names the line.
  const bad = `${ARTIFACTS}bad.jsonl`;
  writeFileSync(bad, ['{"id":"ok-1","title":"Okapi one","text":"okapi"}', '{"id":"ok-2","title":"Okapi two","text":"okapi"}', '{"id": "broken",', '{"id":"ok-3","title":"Okapi three"}'].join('\n'));
  await page.setInputFiles('#jsonl', bad);
  await page.waitForSelector('body[data-imported="error"]');
  assert.match(await page.textContent('#progress-status'), /^Import stopped: line 3 is not JSON: .* \(2 memories before it were saved\)/);
  await typeQuery(page, 'okapi');
  assert.deepEqual((await titles(page)).sort(), ['Okapi one', 'Okapi two']);
  // A document the schema rejects: named by the engine.
  const schema = `${ARTIFACTS}schema.jsonl`;
  writeFileSync(schema, ['{"id":"s-1","title":"Serval","text":"serval"}', '{"id":"s-2","title":"Serval two","colour":"tawny"}'].join('\n'));
  await page.setInputFiles('#jsonl', schema);
  await page.waitForFunction(() => /Import stopped: SCHEMA/.test(document.querySelector('#progress-status').textContent));
  assert.match(await page.textContent('#progress-status'), /colour/);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

const QUERIES = ['deploying on friday', 'rotate the token', 'escalate billing dispute', 'schema migration', 'alex timezone', 'cache the worker', 'backup snapshot', 'ranking'];

/** Types every query key by key; returns the keystroke measures the page recorded. */
async function typeAll(page) {
  await page.evaluate(async () => (await import('./lib/latency.js')).resetLatency());
  for (const q of QUERIES) {
    // Cleared without an input event: only typed characters are measured.
    await page.evaluate(() => {
      document.querySelector('#q').value = '';
    });
    await typeQuery(page, q, { delay: 60, clear: false });
  }
  return page.evaluate(() => ({
    keys: performance.getEntriesByName('memdex:keystroke').map((e) => ({ ms: e.duration, query: e.detail.query, hits: e.detail.hits })),
    searches: performance.getEntriesByName('memdex:search').map((e) => ({ ms: e.duration })),
  }));
}

function stats(measures) {
  const v = measures.map((m) => m.ms).sort((a, b) => a - b);
  const pct = (p) => v[Math.min(v.length - 1, Math.ceil((p / 100) * v.length) - 1)];
  return { n: v.length, p50: +pct(50).toFixed(1), p95: +pct(95).toFixed(1), max: +v.at(-1).toFixed(1) };
}

test(`latency: keystroke to rendered results on the sample set and on ${BULK.toLocaleString('en')} generated memories (p95)`, async () => {
  const page = await openExplorer(env, { query: BULK === 100_000 ? '' : `?bulk=${BULK}` });
  // Warm-up: the first searches compile the engine's code paths.
  await typeQuery(page, 'warm up the engine');
  const keys = QUERIES.join('').length;
  const small = await typeAll(page);
  assert.equal(small.keys.length, keys, 'one measure per keystroke');

  await page.click('#load-bulk');
  await page.waitForSelector('body[data-imported]', { timeout: 300_000 });
  const status = await page.textContent('#progress-status');
  assert.equal(await page.getAttribute('body', 'data-imported'), String(BULK), status);
  console.log(`${status}`);
  assert.equal(await stat(page, 'documents'), (N + BULK).toLocaleString('en'));
  await typeQuery(page, 'warm up the engine');
  const large = await typeAll(page);
  assert.equal(large.keys.length, keys);
  const hitsAtLarge = await page.locator('#results li.hit').count();
  assert.equal(hitsAtLarge, 20);

  const report = {
    date: new Date().toISOString(),
    chromium: env.browser.version(),
    keystrokeDelayMs: 60,
    queries: QUERIES,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    sample: { documents: N, keystroke: stats(small.keys), searchCall: stats(small.searches) },
    large: { documents: N + BULK, keystroke: stats(large.keys), searchCall: stats(large.searches), import: status },
    panel: await stat(page, 'keystroke'),
  };
  writeFileSync(`${ARTIFACTS}latency.json`, `${JSON.stringify(report, null, 2)}\n`);
  const { sample, large: big } = report;
  console.log(
    `keystroke -> rendered results: samples (${N} docs) p50 ${sample.keystroke.p50} ms, p95 ${sample.keystroke.p95} ms; ` +
      `${(N + BULK).toLocaleString('en')} docs p50 ${big.keystroke.p50} ms, p95 ${big.keystroke.p95} ms; ` +
      `search call p95 ${sample.searchCall.p95} / ${big.searchCall.p95} ms (target/explorer/latency.json)`,
  );

  // The generated set persists, then goes away with one button.
  await page.reload();
  await waitReady(page);
  assert.equal(await stat(page, 'documents'), (N + BULK).toLocaleString('en'));
  await page.fill('#f-namespace', 'bulk:*');
  await page.dispatchEvent('#f-namespace', 'change');
  await settle(page);
  assert.match(await page.textContent('#summary'), new RegExp(`^${BULK.toLocaleString('en')} memories, newest first.*16 namespaces`));
  await page.click('#remove-bulk');
  await page.waitForFunction(() => /^Removed/.test(document.querySelector('#progress-status').textContent), null, { timeout: 60_000 });
  assert.equal(await stat(page, 'documents'), String(N));
  assert.equal(await stat(page, 'segments'), '1');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
