// The memory tools' vectors and totals: memory_store and memory_update fill
// the index's vector field, memory_search takes a query vector (hybrid
// search) and carries `total` on every search, ranked ones included; an
// index without a vector field (the `memdex mcp` default) answers a vector
// with USAGE.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Memdex } from '../../pkg/node.js';
import { handleToolCall } from '../../pkg/tools.js';
import { startServer, tempDir } from './mcp-helpers.mjs';

test('vector field: store with vectors, hybrid memory_search by a query vector, update replaces it when given', async () => {
  const index = await Memdex.open({ schema: { embedding: { type: 'vector', dimensions: 3 } } });
  const options = { vectorField: 'embedding' };
  const call = (name, args) => handleToolCall(index, name, args, options);
  const stored = await call('memory_store', {
    memories: [
      { id: 'a', text: 'deploy the billing service', vector: [1, 0, 0] },
      { id: 'b', text: 'deploy the search service', vector: [0, 1, 0] },
      { id: 'c', text: 'rotate credentials monthly', vector: [0, 0, 1] },
    ],
  });
  assert.equal(stored.isError, false, stored.content[0].text);
  // Words alone find the two deploys; the vector list adds c (hybrid).
  const words = await call('memory_search', { query: 'deploy service' });
  assert.deepEqual(words.structuredContent.hits.map((h) => h.id).sort(), ['a', 'b']);
  const hybrid = await call('memory_search', { query: 'deploy service', vector: [0, 0, 1] });
  assert.equal(hybrid.isError, false, hybrid.content[0].text);
  assert.deepEqual(hybrid.structuredContent.hits.map((h) => h.id).sort(), ['a', 'b', 'c']);
  assert.equal(words.structuredContent.total, 2);
  // Wrong dimensions: the engine's error, naming them.
  const wrong = await call('memory_search', { query: 'deploy', vector: [1, 0] });
  assert.equal(wrong.isError, true);
  assert.match(wrong.content[0].text, /^USAGE: memory_search failed: .*3 dimensions/);
  const updated = await call('memory_update', { id: 'a', vector: [0, 0, 1] });
  assert.equal(updated.isError, false, updated.content[0].text);
  assert.deepEqual(updated.structuredContent.changed, ['vector']);
  // a's vector is now c's: a search near it ranks a and c above b.
  const near = await call('memory_search', { query: 'rotate deploy', vector: [0, 0, 1] });
  assert.deepEqual(near.structuredContent.hits.map((h) => h.id).slice(0, 2).sort(), ['a', 'c']);
  index.free();
});

test('ranked memory_search carries total; past the page too', async () => {
  const index = await Memdex.open();
  index.addAll(Array.from({ length: 30 }, (_, i) => ({ id: `m${i}`, text: `deploy step ${i} ${i % 3 ? 'billing' : 'search'}` })));
  const res = await handleToolCall(index, 'memory_search', { query: 'deploy billing', limit: 2 });
  assert.equal(res.structuredContent.returned, 2);
  assert.equal(typeof res.structuredContent.total, 'number');
  assert.ok(res.structuredContent.total >= 2);
  if (res.structuredContent.totalExact === false) assert.match(res.content[0].text, /^2 of at least \d+ memories/);
  else assert.match(res.content[0].text, /^2 of 30 memories/);
  index.free();
});

test('memdex mcp has no vector field: a vector is USAGE saying so, for search and store', async (t) => {
  const s = await startServer(tempDir(t));
  t.after(() => s.close());
  for (const [name, args] of [
    ['memory_search', { query: 'deploy', vector: [1, 0] }],
    ['memory_store', { text: 'x', vector: [1, 0] }],
  ]) {
    const res = await s.call(name, args);
    assert.equal(res.isError, true, name);
    assert.equal(res._meta['memdex/code'], 'USAGE', name);
    assert.match(res.content[0].text, /this memory index has no vector field/, name);
  }
  // Nothing was stored.
  const list = await s.call('memory_list', {});
  assert.equal(list.structuredContent.total, 0);
});
