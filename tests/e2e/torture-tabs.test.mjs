// The torture pattern of tests/js/torture.test.mjs in Chromium: writer tabs
// commit to one IndexedDB index through `Memdex#update` (Web Locks
// serialize commits; update reloads a stale index and retries), a reader
// tab opens the index continuously, and writer tabs are crashed at random
// (CDP `Page.crash`: the renderer dies mid-work, like a killed tab) and
// replaced. Afterwards every acknowledged document is present, no reader
// saw an error, and the index opens. Bounded (TORTURE_SECONDS, default 10).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch } from './browser.mjs';

const SECONDS = Number(process.env.TORTURE_SECONDS ?? 10);
const PAGE = '/__memdex-torture.html';
const HTML = `<!doctype html><meta charset="utf-8"><title>memdex torture</title>
<script type="module">
  const { Memdex } = await import('/pkg/index.js');
  const options = { storage: 'indexeddb', database: 'memdex-torture', autoCommit: false };
  window.writer = async (tag) => {
    const index = await Memdex.open(options);
    for (let seq = 0; ; ) {
      const docs = Array.from({ length: 1 + (seq % 3) }, () => ({ id: tag + '-' + seq++, text: 'torture tab ' + tag }));
      try {
        // update() reloads when another tab committed and retries on CONFLICT.
        await index.update((ix) => {
          for (const d of docs) ix.add(d);
          if (Math.random() < 0.05) ix.compact();
        });
      } catch (err) {
        await window.report('error ' + err.code + ' ' + err.message);
        throw err;
      }
      await window.report('ack ' + docs.map((d) => d.id).join(','));
    }
  };
  window.reader = async () => {
    for (;;) {
      try {
        const index = await Memdex.open(options);
        index.free();
        await window.report('open');
        await new Promise((r) => setTimeout(r, 10));
      } catch (err) {
        await window.report('readerror ' + err.code + ' ' + err.message);
      }
    }
  };
  document.body.dataset.ready = 'true';
</script>`;

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

test(`${SECONDS} s of 3 writer tabs crashed at random and a reader tab on one IndexedDB index lose nothing`, async () => {
  const context = await env.browser.newContext();
  const stats = { commits: 0, kills: 0, opens: 0, acked: [], errors: [] };
  await context.exposeFunction('report', (line) => {
    if (line.startsWith('ack ')) {
      stats.acked.push(...line.slice(4).split(','));
      stats.commits++;
    } else if (line === 'open') stats.opens++;
    else stats.errors.push(line);
  });
  await context.route(`**${PAGE}`, (route) => route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: HTML }));
  const url = new URL(PAGE, env.baseUrl).href;
  const openTab = async () => {
    const page = await context.newPage();
    page.on('pageerror', (err) => stats.errors.push(`pageerror ${err.message}`));
    page.on('console', (msg) => msg.type() === 'error' && stats.errors.push(`console ${msg.text()}`));
    await page.goto(url);
    await page.waitForSelector('body[data-ready="true"]', { state: 'attached', timeout: 20_000 }).catch((err) => {
      throw new Error(`${err.message}: ${stats.errors.join('; ')}`);
    });
    return page;
  };
  let incarnation = 0;
  const startWriter = async () => {
    const page = await openTab();
    page.evaluate((tag) => window.writer(tag), `t${incarnation++}`).catch(() => {}); // ends when crashed
    return page;
  };
  const reader = await openTab();
  reader.evaluate(() => window.reader()).catch(() => {});
  const writers = [await startWriter(), await startWriter(), await startWriter()];

  const end = Date.now() + SECONDS * 1000;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 500 + Math.random() * 1000));
    const i = Math.floor(Math.random() * writers.length);
    const cdp = await context.newCDPSession(writers[i]);
    // The call never answers (the renderer is gone): do not wait for it.
    cdp.send('Page.crash').catch(() => {});
    await new Promise((r) => setTimeout(r, 200));
    stats.kills++;
    await writers[i].close().catch(() => {});
    writers[i] = await startWriter();
  }
  for (const page of [...writers, reader]) await page.close().catch(() => {});

  const { acked, ...counts } = stats;
  console.log(`torture-tabs: ${JSON.stringify({ ...counts, acked: acked.length })}`);
  assert.deepEqual(stats.errors, []);
  assert.ok(stats.commits > 10 && stats.opens > 10 && stats.kills >= 3, JSON.stringify(counts));
  const check = await openTab();
  const missing = await check.evaluate(async (ids) => {
    const { Memdex } = await import('/pkg/index.js');
    const index = await Memdex.open({ storage: 'indexeddb', database: 'memdex-torture', autoCommit: false });
    return ids.filter((id) => index.get(id) === undefined);
  }, acked);
  assert.deepEqual(missing, [], `${missing.length} of ${acked.length} acknowledged documents are missing`);
  await context.close();
});
