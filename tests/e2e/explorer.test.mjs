// End-to-end test of the www/ memory explorer in headless Chromium
// (playwright-core driving the system /usr/bin/chromium; no browser download).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ARGS, CHROMIUM } from './browser.mjs';

// The page loads every memory of www/memories.jsonl on first load.
const SAMPLE_COUNT = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim()).length;


let server;
let baseUrl;
let browser;
const pageErrors = [];

before(async () => {
  ({ server, url: baseUrl } = await startServer({ port: 0, host: '127.0.0.1' }));
  baseUrl = baseUrl.replace('localhost', '127.0.0.1');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

after(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve) ?? resolve());
});

// Each test gets a fresh browser context: its own, empty IndexedDB.
async function openExplorer(context) {
  context ??= await browser.newContext();
  const page = await context.newPage();
  page.on('pageerror', (err) => pageErrors.push(err));
  page.on('console', (msg) => {
    if (msg.type() === 'error') pageErrors.push(new Error(msg.text()));
  });
  // The wasm must be served with the MIME type streaming compilation needs.
  const wasmResponse = page.waitForResponse((r) => r.url().endsWith('/pkg/memdex_bg.wasm'));
  await page.goto(baseUrl);
  const wasm = await wasmResponse;
  assert.equal(wasm.status(), 200);
  assert.equal(wasm.headers()['content-type'], 'application/wasm');
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  return page;
}

test('memories added in the page persist in IndexedDB across reloads', async () => {
  const context = await browser.newContext();
  const page = await openExplorer(context);
  await page.fill('#add-form [name=title]', 'Wombat migration plan');
  await page.fill('#add-form [name=text]', 'Move the wombat cluster to the new region on Tuesday.');
  await page.click('#add-form button[type=submit]');
  await page.waitForSelector('body[data-saved]');
  assert.match(await page.textContent('#add-status'), /saved: commit \d+/);

  await page.reload();
  await page.waitForSelector('body[data-ready="true"]', { timeout: 20_000 });
  assert.match(await page.textContent('#status'), new RegExp(`\\b${SAMPLE_COUNT + 1} memories indexed`));
  await page.fill('#q', 'wombat');
  await page.waitForSelector('#results li.hit');
  const titles = await page.locator('#results li.hit .title').allTextContents();
  assert.deepEqual(titles, ['Wombat migration plan']);
  // The samples were committed on the first visit and not indexed twice.
  await page.fill('#q', 'deploying on friday');
  await page.waitForSelector('#results li.hit');
  assert.equal(await page.locator('#results li.hit .title').first().textContent(), 'Never deploy on Fridays');

  // A second tab (same origin, same IndexedDB) sees it too.
  const other = await openExplorer(context);
  await other.fill('#q', 'wombat');
  await other.waitForSelector('#results li.hit');
  assert.equal(await other.locator('#results li.hit').count(), 1);
  assert.deepEqual(pageErrors, []);
  await context.close();
});

test('typing a query renders ranked, highlighted results', async () => {
  const page = await openExplorer();
  assert.match(await page.textContent('#status'), new RegExp(`\\b${SAMPLE_COUNT} memories indexed`));

  await page.locator('#q').pressSequentially('deploying on friday', { delay: 10 });
  await page.waitForSelector('#results li.hit');

  const first = page.locator('#results li.hit').first();
  assert.equal(await first.locator('.title').textContent(), 'Never deploy on Fridays');
  assert.equal((await first.locator('.namespace').textContent()).trim(), 'agent:coder');
  const marked = await first.locator('mark').allTextContents();
  assert.ok(
    marked.some((t) => /^deploy/i.test(t)),
    `expected a highlighted "deploy…" term, got ${JSON.stringify(marked)}`,
  );
  assert.match(await page.textContent('#summary'), /\d+ results? \(or\)/);
  assert.deepEqual(pageErrors, []);
  await page.close();
});

test('a memory added in the page becomes searchable', async () => {
  const page = await openExplorer();
  await page.fill('#add-form [name=title]', 'Quokka deployment checklist');
  await page.fill('#add-form [name=text]', 'Check the quokka dashboards before every rollout.');
  await page.click('#add-form button[type=submit]');
  await page.fill('#q', 'quokka');
  await page.waitForSelector('#results li.hit');
  const titles = await page.locator('#results li.hit .title').allTextContents();
  assert.deepEqual(titles, ['Quokka deployment checklist']);
  assert.match(await page.textContent('#status'), new RegExp(`\\b${SAMPLE_COUNT + 1} memories indexed`));
  assert.deepEqual(pageErrors, []);
  await page.close();
});
