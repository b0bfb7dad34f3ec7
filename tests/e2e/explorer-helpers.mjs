// Helpers of the explorer's Playwright tests (explorer*.test.mjs): the demo
// server, system Chromium, a page of the explorer in a fresh context (its
// own IndexedDB and no service worker yet) that records page errors, and
// where artifacts go (target/explorer/, not committed).
import { mkdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { ARGS, CHROMIUM } from './browser.mjs';

export const SAMPLES = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

/** target/explorer/: screenshots, downloads and the latency report. */
export const ARTIFACTS = fileURLToPath(new URL('../../target/explorer/', import.meta.url));
mkdirSync(ARTIFACTS, { recursive: true });

/** Starts the demo server and Chromium; `close()` stops both. */
export async function launchExplorer() {
  const { server, url } = await startServer({ port: 0, host: '127.0.0.1' });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  return {
    baseUrl: url.replace('localhost', '127.0.0.1'),
    browser,
    server,
    async close() {
      await browser.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * Opens the explorer in `context` (a new one by default) and waits until it
 * is ready. `page.errors` collects uncaught errors and console errors.
 */
export async function openExplorer(env, { context, viewport, query = '' } = {}) {
  context ??= await env.browser.newContext({ viewport: viewport ?? { width: 1280, height: 800 } });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (err) => page.errors.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') page.errors.push(msg.text());
  });
  await page.goto(`${env.baseUrl}${query}`);
  await waitReady(page);
  return page;
}

export async function waitReady(page) {
  await page.waitForSelector('body[data-ready]', { timeout: 60_000 });
  const state = await page.getAttribute('body', 'data-ready');
  if (state !== 'true') throw new Error(`explorer failed to start: ${await page.textContent('#status')}`);
}

/** Types `text` into the search box key by key and waits for that search's results. */
export async function typeQuery(page, text, { delay = 30, clear = true } = {}) {
  if (clear) await page.fill('#q', '');
  await page.locator('#q').pressSequentially(text, { delay });
  await page.waitForFunction((q) => document.querySelector('#q').value === q && document.body.dataset.searched, text);
  await settle(page);
}

/**
 * Closes the detail dialog with Escape and waits until its `close` event
 * (a queued task) has moved the focus back out: typing before that loses
 * keys to the focus move.
 */
export async function closeDetail(page) {
  await page.keyboard.press('Escape');
  await page.waitForFunction(() => {
    const dialog = document.querySelector('#detail');
    return !dialog.open && document.activeElement !== document.body && !dialog.contains(document.activeElement);
  });
  // The dialog's `close` event (its handler moves focus back to the opener)
  // is a task queued after `open` turns false: let it run, or a later fill
  // may lose focus to it mid-way (the old query then survives the clear).
  await settle(page);
}

/** Waits until the current results are painted (two frames). */
export function settle(page) {
  return page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

export const titles = (page) => page.locator('#results li.hit .title').allTextContents();

/** Text of one row of the index panel. */
export const stat = (page, name) => page.textContent(`[data-stat="${name}"]`);
