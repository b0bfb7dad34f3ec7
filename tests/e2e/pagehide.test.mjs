// A persistent index with auto-commit commits when its page is hidden or
// unloaded (`pagehide`, `visibilitychange` to hidden), long before its idle
// delay: what keeps a closing tab's last writes. The events are dispatched
// to the page (headless Chromium cannot hide a tab), which is what the
// browser does before it discards the page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { launch, harnessPage } from './browser.mjs';

let env;
before(async () => {
  env = await launch();
});
after(async () => {
  await env?.close();
});

const HTML = `<!doctype html><meta charset="utf-8"><script type="module">
  const { Memdex } = await import('/pkg/index.js');
  window.Memdex = Memdex;
  document.body.dataset.ready = 'true';
</script>`;

test('pagehide and visibilitychange commit pending writes of an auto-committing index', async () => {
  const { page, errors } = await harnessPage(env, HTML);
  await page.waitForSelector('body[data-ready="true"]', { state: 'attached' });
  const result = await page.evaluate(async () => {
    const { Memdex } = window;
    const options = { storage: 'indexeddb', database: 'memdex-pagehide', autoCommit: { delayMs: 60_000, maxDelayMs: 60_000 } };
    const index = await Memdex.open(options);
    const stored = async () => {
      const reader = await Memdex.open({ ...options, autoCommit: false });
      const out = { generation: reader.generation, size: reader.size };
      reader.free();
      return out;
    };
    const settle = () => new Promise((r) => setTimeout(r, 300));
    index.add({ id: 'a', text: 'written before the tab closes' });
    await settle();
    const before = await stored();
    window.dispatchEvent(new PageTransitionEvent('pagehide', { persisted: false }));
    await settle();
    const afterPagehide = await stored();
    index.add({ id: 'b', text: 'written before the tab is hidden' });
    Object.defineProperty(document, 'visibilityState', { value: 'hidden', configurable: true });
    document.dispatchEvent(new Event('visibilitychange'));
    await settle();
    const afterHidden = await stored();
    await index.close();
    return { before, afterPagehide, afterHidden };
  });
  assert.deepEqual(errors, []);
  assert.deepEqual(result.before, { generation: 0, size: 0 }, 'nothing committed within the idle delay');
  assert.deepEqual(result.afterPagehide, { generation: 1, size: 1 });
  assert.deepEqual(result.afterHidden, { generation: 2, size: 2 });
});
