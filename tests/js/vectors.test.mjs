// Runs the vector suite (vectors.suite.mjs) in Node against the built
// package with memory and filesystem storage. The browser half (memory +
// IndexedDB in Chromium) is tests/e2e/vectors.test.mjs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { defineVectorSuite } from './vectors.suite.mjs';

const root = mkdtempSync(join(tmpdir(), 'memdex-vectors-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

defineVectorSuite({ Memdex, MemdexError, test, assert, label: 'memory', makeStorage: () => memoryStorage() });
defineVectorSuite({ Memdex, MemdexError, test, assert, label: 'fs', makeStorage: () => fsStorage(join(root, `s${n++}`)) });

test('dot-product hybrid hits carry lexical / vector after the usual keys', async () => {
  const index = await Memdex.open({
    storage: memoryStorage(),
    autoCommit: false,
    schema: { title: { type: 'text' }, emb: { type: 'vector', dimensions: 2, metric: 'dot' } },
  });
  index.addAll([
    { id: 'a', title: 'alpha beta', emb: [1, 0] },
    { id: 'b', title: 'beta', emb: [0, 2] },
    { id: 'c', title: 'gamma', emb: [3, 3] },
  ]);
  const res = index.search('beta', { vector: [0, 1], hybrid: { method: 'weighted', alpha: 0.5 } });
  // Dot product: c (3) > b (2) > a (0) by vector.
  const by = Object.fromEntries(res.hits.map((h) => [h.id, h]));
  assert.deepEqual(by.c.vector, { rank: 1, score: 3 });
  assert.equal(by.c.lexical, undefined);
  assert.deepEqual(Object.keys(by.b), ['id', 'score', 'fields', 'matchedTerms', 'lexical', 'vector']);
  await index.close();
});

test('engine: search with a Float32Array vector argument equals JSON.parse(searchJson) with the vector as JSON', async () => {
  const { readFileSync } = await import('node:fs');
  const { default: init, Engine } = await import('../../pkg/memdex.js');
  await init({ module_or_path: readFileSync(new URL('../../pkg/memdex_bg.wasm', import.meta.url)) });
  const e = new Engine({
    fields: { title: { type: 'text' }, text: { type: 'text' }, kind: { type: 'keyword' }, emb: { type: 'vector', dimensions: 4 } },
  });
  for (const d of (await import('./vectors.suite.mjs')).VECTOR_MEMORIES) {
    e.add(d.emb instanceof Float32Array ? { ...d, emb: Array.from(d.emb) } : d);
  }
  const v = [0.5, 0.5, 0.1, 0];
  for (const [q, options] of [['', {}], ['deploy friday', {}], ['deploy', { hybrid: { method: 'weighted' }, highlight: true }], ['weekend', { filter: { kind: 'rule' }, limit: 2, offset: 1 }]]) {
    const pieces = e.search(q, options, new Float32Array(v));
    const json = JSON.parse(e.searchJson(q, { ...options, vector: v }));
    assert.deepEqual(pieces, json, `${q} ${JSON.stringify(options)}`);
    assert.ok(pieces.hits.length > 0 && pieces.hits.every((h) => h.vector || h.lexical));
  }
});
