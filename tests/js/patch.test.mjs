// Runs the patch suite (patch.suite.mjs) in Node against the built package
// with memory and filesystem storage, and `patch` through `openInWorker`'s
// client and the package's worker.js (in a worker thread). The browser
// half (memory + IndexedDB in Chromium, and a real Web Worker) is
// tests/e2e/patch.test.mjs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { defineOpenInWorker } from '../../pkg/worker-client.js';
import { definePatchSuite } from './patch.suite.mjs';
import { NodeWebWorker } from './support/node-web-worker.mjs';

const root = mkdtempSync(join(tmpdir(), 'memdex-patch-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

definePatchSuite({ Memdex, MemdexError, test, assert, label: 'memory', makeStorage: () => memoryStorage() });
definePatchSuite({ Memdex, MemdexError, test, assert, label: 'fs', makeStorage: () => fsStorage(join(root, `s${n++}`)) });

test('openInWorker: patch and get({ vectors }) cross to the worker; NOT_FOUND arrives with its code', async () => {
  const wasm = readFileSync(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  globalThis.Worker ??= NodeWebWorker;
  const remote = await defineOpenInWorker(() => new NodeWebWorker())({
    wasm,
    name: 'patch-remote',
    schema: { emb: { type: 'vector', dimensions: 2 } },
  });
  try {
    await remote.add({ id: 'r1', text: 'first words', tags: ['a'], links: [{ type: 'R', to: 'r2' }], emb: new Float32Array([0, 2]) });
    await remote.patch('r1', { text: 'second words', tags: null });
    assert.deepEqual(await remote.get('r1', { vectors: true }), { id: 'r1', links: [{ to: 'r2', type: 'R' }], text: 'second words', emb: [0, 1] });
    // The list form of update takes patches too.
    assert.deepEqual(await remote.update([{ op: 'patch', id: 'r1', changes: { kind: 'note' } }]), { added: 1, removed: 0 });
    assert.equal((await remote.get('r1', { vectors: true })).kind, 'note');
    assert.deepEqual((await remote.get('r1', { vectors: true })).emb, [0, 1]);
    assert.deepEqual((await remote.search('', { vector: [0, 1] })).hits.map((h) => h.id), ['r1']);
    const err = await remote.patch('r9', { text: 'x' }).catch((e) => e);
    assert.ok(err instanceof MemdexError, String(err));
    assert.equal(err.code, 'NOT_FOUND');
    assert.equal(err.data.id, 'r9');
  } finally {
    await remote.close();
  }
});

test('update([{ op: "patch" }]): applied in order with the other writes, committed as one; a failing patch undoes them all', async () => {
  const storage = memoryStorage();
  const index = await Memdex.open({ storage, autoCommit: false, schema: { emb: { type: 'vector', dimensions: 2, metric: 'dot' } } });
  index.add({ id: 'a', text: 'alpha', emb: [1, 2], links: [{ type: 'R', to: 'b' }] });
  await index.commit();
  const result = await index.update([
    { op: 'add', doc: { id: 'b', text: 'beta' } },
    { op: 'patch', id: 'a', changes: { text: 'alpha two' } },
    { op: 'patch', id: 'b', changes: { kind: 'note' } },
  ]);
  assert.deepEqual(result, { added: 3, removed: 0 });
  assert.equal(index.dirty, false, 'committed');
  const reopened = await Memdex.open({ storage, autoCommit: false });
  assert.deepEqual(reopened.get('a', { vectors: true }), { id: 'a', links: [{ to: 'b', type: 'R' }], text: 'alpha two', emb: [1, 2] });
  assert.equal(reopened.get('b').kind, 'note');
  // The patch of a missing document fails the whole update: nothing of it stays.
  await assert.rejects(
    index.update([{ op: 'patch', id: 'a', changes: { text: 'three' } }, { op: 'patch', id: 'zz', changes: { text: 'x' } }]),
    (err) => err instanceof MemdexError && err.code === 'NOT_FOUND',
  );
  assert.equal(index.get('a').text, 'alpha two');
  for (const [op, words] of [
    [{ op: 'patch', id: 'a' }, /needs `id` and `changes`/],
    [{ op: 'patch', id: 'a', changes: {}, doc: {} }, /unknown key `doc`/],
    [{ op: 'put', doc: {} }, /'add', 'patch', 'remove' or 'removeWhere'/],
  ]) {
    await assert.rejects(async () => index.update([op]), (err) => err.code === 'USAGE' && words.test(err.message));
  }
  await index.close();
  await reopened.close();
});
