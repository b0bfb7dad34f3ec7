// `memdex mcp --embed <module>` over stdio with the real MCP SDK client: the
// server embeds memories stored without a vector (in batches, before the
// write) and searches by meaning by default (`semantic`); an embedder error
// is EMBED and stores nothing, also after a restart. Without an embedder a
// semantic search is answered by words and says so. The embedder is the
// stand-in model of embed.suite.mjs in a module file (a real model cannot be
// downloaded here), its calls logged by the server process.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, tempDir, text, ids } from './mcp-helpers.mjs';
import { MEMORIES } from './embed.suite.mjs';
import { writeEmbedderModule } from './support/concept-embedder.mjs';

const memories = MEMORIES.map(({ id, title, text: t }) => ({ id, title, text: t }));

test('memdex mcp --embed: stores embed in batches, memory_search is hybrid by meaning, memory_update embeds a new text', async (t) => {
  const dir = tempDir(t);
  const model = writeEmbedderModule(tempDir(t, 'memdex-model-'));
  const s = await startServer(dir, ['--embed', model.file]);
  t.after(() => s.close());
  assert.match(s.stderr(), /embedding into embedding/);
  const stored = await s.call('memory_store', { memories });
  assert.equal(stored.isError, false, text(stored));
  assert.deepEqual(model.calls(), [4, 1], 'five memories in batches of four (the module\'s batchSize)');
  // A memory given with its own vector is not embedded.
  const own = await s.call('memory_store', { id: 'own', text: 'given vector', vector: [0, 0, 0, 0, 0, 1, 0] });
  assert.equal(own.isError, false, text(own));
  assert.deepEqual(model.calls(), [4, 1]);

  // No memory holds "automobile": by meaning (the default) m1 is found.
  const found = await s.call('memory_search', { query: 'automobile', limit: 2 });
  assert.equal(found.isError, false, text(found));
  assert.equal(ids(found)[0], 'm1');
  assert.equal(found.structuredContent.semantic, 'hybrid');
  assert.match(text(found), /hybrid by meaning/);
  assert.deepEqual(model.calls(), [4, 1, 1], 'the query: one call');
  const words = await s.call('memory_search', { query: 'automobile', semantic: 'off' });
  assert.deepEqual(ids(words), []);
  assert.equal(words.structuredContent.semantic, undefined);
  const vector = await s.call('memory_search', { query: 'kitten', semantic: 'vector', limit: 1 });
  assert.deepEqual([ids(vector), vector.structuredContent.semantic], [['m5'], 'vector']);
  // Ordered by time: words, no embedding.
  const newest = await s.call('memory_search', { query: 'lunch', order: 'newest' });
  assert.deepEqual(ids(newest), ['m2']);

  const calls = model.calls().length;
  const updated = await s.call('memory_update', { id: 'm4', text: 'The automobile is parked' });
  assert.equal(updated.isError, false, text(updated));
  assert.equal(model.calls().length, calls + 1, 'the new text embedded');
  const car = await s.call('memory_search', { query: 'vehicle', semantic: 'vector', limit: 2 });
  assert.deepEqual(ids(car).sort(), ['m1', 'm4']);
  assert.equal(model.calls().length, calls + 2, 'and the query');
  const kind = await s.call('memory_update', { id: 'm4', kind: 'note' });
  assert.equal(kind.isError, false, text(kind));
  assert.equal(model.calls().length, calls + 2, 'the text stayed: no call');
});

test('memdex mcp --embed: an embedder error is EMBED and stores nothing, also after a restart', async (t) => {
  const dir = tempDir(t);
  const model = writeEmbedderModule(tempDir(t, 'memdex-model-'));
  let s = await startServer(dir, ['--embed', model.file]);
  assert.equal((await s.call('memory_store', { memories: memories.slice(0, 2) })).isError, false);
  model.fail(true);
  const failed = await s.call('memory_store', { memories: memories.slice(2) });
  assert.equal(failed.isError, true);
  assert.equal(failed._meta['memdex/code'], 'EMBED');
  assert.match(text(failed), /^EMBED: memory_store failed: the embedder failed on a batch of 3 texts: model offline/);
  const one = await s.call('memory_store', { id: 'x', text: 'the car' });
  assert.equal(one._meta['memdex/code'], 'EMBED');
  const update = await s.call('memory_update', { id: 'm1', text: 'a new car text' });
  assert.equal(update._meta['memdex/code'], 'EMBED');
  const search = await s.call('memory_search', { query: 'car' });
  assert.equal(search._meta['memdex/code'], 'EMBED');
  const listed = await s.call('memory_list', {});
  assert.equal(listed.structuredContent.total, 2);
  await s.close();
  model.fail(false);
  s = await startServer(dir, ['--embed', model.file]);
  t.after(() => s.close());
  const again = await s.call('memory_list', {});
  assert.deepEqual(ids(again).sort(), ['m1', 'm2']);
  const m1 = await s.call('memory_get', { id: 'm1' });
  assert.equal(m1.structuredContent.memories[0].text, 'I drive the car to the office');
});

test('memdex mcp without an embedder: semantic search is answered by words and says so', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  await s.call('memory_store', { memories });
  const res = await s.call('memory_search', { query: 'lunch', semantic: 'hybrid' });
  assert.equal(res.isError, false, text(res));
  assert.deepEqual(ids(res), ['m2']);
  assert.equal(res.structuredContent.semantic, 'lexical');
  assert.match(text(res), /\[no embedder is configured on this server: answered by words alone\]$/);
  const plain = await s.call('memory_search', { query: 'lunch' });
  assert.equal(plain.structuredContent.semantic, undefined);
  assert.doesNotMatch(text(plain), /embedder/);
});

test('memdex mcp --embed: a module without an embed function is refused at start', async (t) => {
  const dir = tempDir(t);
  const bad = tempDir(t, 'memdex-model-');
  const { writeFileSync } = await import('node:fs');
  writeFileSync(`${bad}/bad.mjs`, 'export const dimensions = 3;\n');
  const { spawnSync } = await import('node:child_process');
  const { CLI } = await import('./mcp-helpers.mjs');
  const r = spawnSync(process.execPath, [CLI, 'mcp', '--dir', dir, '--embed', `${bad}/bad.mjs`], { input: '', encoding: 'utf8' });
  assert.equal(r.status, 1);
  assert.match(r.stderr, /USAGE: --embed .*bad\.mjs: the module must export default async \(texts\) => vectors/);
});
