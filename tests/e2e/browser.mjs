// Shared helpers of the Playwright tests: the demo server (www/ at /, pkg/ at
// /pkg/), headless Chromium (system /usr/bin/chromium via playwright-core),
// and `/__tests__/*` routed to files of tests/ so pages can import test code.
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
