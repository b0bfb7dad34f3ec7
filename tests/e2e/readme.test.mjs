// The ```js browser blocks of the READMEs (tests/js/readme-snippets.mjs), each
// run as written in headless Chromium: a module script on a page where the
// bare specifier `memdex` maps to the browser build (pkg/index.js). A block
// passes when it runs to its end with no uncaught error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { harnessPage, launch } from './browser.mjs';
import { snippets } from '../js/readme-snippets.mjs';

const blocks = snippets().filter((s) => s.mode === 'browser');

const page = (code) => `<!doctype html><meta charset="utf-8"><title>README snippet</title>
<script type="importmap">{ "imports": { "memdex": "/pkg/index.js", "memdex/": "/pkg/" } }</script>
<script type="module">
${code}
window.__done = true;
</script>`;

let env;
before(async () => {
  env = await launch();
});
after(() => env?.close());

test('the READMEs have browser snippets', () => {
  assert.ok(blocks.length >= 1);
});

for (const s of blocks) {
  test(`${s.file}:${s.line} runs in Chromium`, async () => {
    const { page: p, errors } = await harnessPage(env, page(s.code));
    try {
      const deadline = Date.now() + 60_000;
      while (!(await p.evaluate(() => window.__done === true)) && errors.length === 0) {
        assert.ok(Date.now() < deadline, 'the snippet did not finish within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.deepEqual(errors.map(String), []);
    } finally {
      await p.close();
    }
  });
}
