// exportStream() and import(stream) in headless Chromium against the
// browser build (pkg/index.js): the parts go through a Blob (as a page
// would save them to a file or IndexedDB) and come back through
// `blob.stream()`, read with getReader(); a damaged blob is CORRUPT.
/* global Memdex */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { memdexPage, readyPage, useChromium } from './browser.mjs';

const PAGE = memdexPage('memdex snapshot stream');

const chromium = useChromium();

test('a snapshot streamed through a Blob and back in Chromium; damaged, it is CORRUPT', async () => {
  const { page, errors } = await readyPage(chromium.env, PAGE);
  const out = await page.evaluate(async () => {
    const index = await Memdex.create();
    const docs = Array.from({ length: 20000 }, (_, i) => ({ id: `m${i}`, title: `memory ${i}`, text: `deploy ${i % 50} friday rollback ${i % 7} wasm segment ${i % 13}` }));
    await index.addMany(docs);
    index.remove('m3');
    const answer = (ix) => ix.search('deploy 7 friday', { limit: 10 }).hits.map((h) => `${h.id}:${h.score.toFixed(5)}`);
    const parts = [];
    const reader = index.exportStream().getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) parts.push(r.value);
    const blob = new Blob(parts);
    const copy = await Memdex.import(blob.stream());
    const bytes = new Uint8Array(await blob.arrayBuffer());
    bytes[bytes.length >> 1] ^= 0x40;
    const damaged = await Memdex.import(new Blob([bytes]).stream()).then(() => 'imported', (e) => e.code);
    return {
      parts: parts.length,
      same: JSON.stringify(answer(copy)) === JSON.stringify(answer(index)),
      hits: answer(copy).length,
      size: [copy.size, index.size],
      bytes: [blob.size, index.export().length],
      damaged,
    };
  });
  assert.ok(out.parts >= 3, `${out.parts} parts`);
  assert.ok(out.same && out.hits === 10, JSON.stringify(out));
  assert.deepEqual(out.size, [19999, 19999]);
  assert.equal(out.bytes[0], out.bytes[1]);
  assert.equal(out.damaged, 'CORRUPT');
  assert.deepEqual(errors.map(String), []);
  await page.close();
});
