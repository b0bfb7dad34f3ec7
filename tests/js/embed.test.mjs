// Runs the embed suite (embed.suite.mjs) in Node against the built package
// with memory and filesystem storage; the embedding through `openInWorker`'s
// client (the package's worker.js in a worker thread); and a semantic
// search without an embedder, answered by words and saying so. The browser
// half is tests/e2e/embed.test.mjs, `memdex mcp --embed` is
// tests/js/mcp-embed.test.mjs, the Worker's `env.AI` tests/worker/embed.test.mjs.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { defineOpenInWorker } from '../../pkg/worker-client.js';
import { DIMENSIONS, MEMORIES, conceptEmbedder, conceptVectors, defineEmbedSuite } from './embed.suite.mjs';
import { NodeWebWorker } from './support/node-web-worker.mjs';

const root = mkdtempSync(join(tmpdir(), 'memdex-embed-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;

defineEmbedSuite({ Memdex, MemdexError, test, assert, label: 'memory', makeStorage: () => memoryStorage() });
defineEmbedSuite({ Memdex, MemdexError, test, assert, label: 'fs', makeStorage: () => fsStorage(join(root, `s${n++}`)) });

test('without an embedder, a semantic search is answered by words and says so; other searches are unchanged', async () => {
  const index = await Memdex.open({ schema: { emb: { type: 'vector', dimensions: DIMENSIONS } } });
  // Vectors computed by the caller, as without `embed`.
  index.addAll(MEMORIES.map((m) => ({ ...m, emb: conceptVectors([`${m.title}. ${m.text}`])[0] })));
  const plain = index.search('lunch');
  assert.ok(!(plain instanceof Promise), 'a plain search stays synchronous');
  assert.equal(plain.semantic, undefined);
  assert.equal(plain.warnings, undefined);
  const asked = index.search('lunch', { semantic: 'hybrid' });
  assert.deepEqual(asked.hits.map((h) => h.id), ['m2']);
  assert.equal(asked.semantic, 'lexical');
  assert.deepEqual(asked.warnings, ['no embedder is configured (open the index with `embed`) and no query `vector` was given: answered by words alone']);
  // With a vector of its own it needs no embedder.
  const own = index.search('orders', { semantic: 'vector', vector: conceptVectors(['postgres'])[0], limit: 1 });
  assert.deepEqual([own.semantic, own.hits[0].id], ['vector', 'm4']);
  assert.throws(() => index.search('x', { semantic: 'yes' }), (e) => e.code === 'USAGE' && /`semantic` must be 'hybrid'/.test(e.message));
  // `hybrid` without a vector is still the engine's USAGE error.
  assert.throws(() => index.search('x', { hybrid: {} }), (e) => e.code === 'USAGE' && /needs a query `vector`/.test(e.message));
  index.free();
});

test('openInWorker: the client embeds (functions stay on this side), counts and errors as in process', async () => {
  const wasm = readFileSync(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  globalThis.Worker ??= NodeWebWorker;
  const spy = conceptEmbedder();
  const remote = await defineOpenInWorker(() => new NodeWebWorker())({
    wasm,
    name: 'embed-remote',
    schema: { emb: { type: 'vector', dimensions: DIMENSIONS } },
    embed: { embed: spy.embed, batchSize: 2 },
  });
  try {
    assert.equal(await remote.addMany(MEMORIES), 5);
    assert.deepEqual(spy.calls, [2, 2, 1]);
    await remote.add({ id: 'm6', text: 'the automobile' });
    assert.deepEqual(spy.calls, [2, 2, 1, 1]);
    const hybrid = await remote.search('automobile', { semantic: 'hybrid', limit: 2 });
    assert.equal(hybrid.semantic, 'hybrid');
    assert.deepEqual(hybrid.hits.map((h) => h.id).sort(), ['m1', 'm6']);
    assert.deepEqual(spy.calls.length, 5);
    await remote.patch('m2', { text: 'postgres sql database' });
    assert.ok((await remote.get('m2', { vectors: true })).emb[4] > 0.5);
    assert.equal(spy.calls.length, 6);
    await remote.patch('m2', { kind: 'note' });
    assert.equal(spy.calls.length, 6, 'the text stayed: no call');
    spy.fail = 'dims';
    await assert.rejects(remote.addMany([{ id: 'z1', text: 'car' }, { id: 'z2', text: 'lunch' }]), (e) => e instanceof MemdexError && e.code === 'EMBED' && /7 dimensions/.test(e.message));
    spy.fail = 'throw';
    await assert.rejects(remote.update([{ op: 'add', doc: { id: 'z3', text: 'car' } }]), (e) => e.code === 'EMBED' && e.cause?.message === 'model offline');
    await assert.rejects(remote.search('car', { semantic: 'vector' }), (e) => e.code === 'EMBED');
    assert.equal(await remote.size, 6, 'nothing written');
    const packed = await remote.pack('lunch', { budgetTokens: 100 });
    assert.equal(packed.hits[0].id, 'm2', 'a plain pack needs no embedder');
  } finally {
    await remote.close();
  }
});
