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
    assert.deepEqual((await remote.search('', { vector: [0, 1] })).hits.map((h) => h.id), ['r1']);
    const err = await remote.patch('r9', { text: 'x' }).catch((e) => e);
    assert.ok(err instanceof MemdexError, String(err));
    assert.equal(err.code, 'NOT_FOUND');
    assert.equal(err.data.id, 'r9');
  } finally {
    await remote.close();
  }
});
