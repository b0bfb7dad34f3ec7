// memory_update keeps what it is not given, the memory's vector and links
// included, through the real SDK Client (InMemoryTransport to
// createMemoryServer) on an index with a vector field: the vector still
// ranks the memory first, its links are still followed, and links it is
// given point at the namespace's memories as memory_store's do. A failed
// batch (memory_delete by ids or by filter) restores the vectors it took away.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';

import { Memdex } from '../../pkg/node.js';
import { createMemoryServer } from '../../pkg/mcp.js';

async function connect(index, options) {
  const server = createMemoryServer(index, options);
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'memdex-update-test', version: '0.1.0' });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  return (name, args) => client.callTool({ name, arguments: args });
}
const text = (r) => r.content[0].text;
const ids = (r) => r.structuredContent.hits.map((h) => h.id);

for (const namespace of ['agent', undefined]) {
  test(`memory_update keeps the vector and links it is not given (${namespace ? 'pinned namespace' : 'no namespace'})`, async () => {
    const index = await Memdex.open({ schema: { embedding: { type: 'vector', dimensions: 3 } } });
    const call = await connect(index, { vectorField: 'embedding', namespace });
    const stored = await call('memory_store', {
      memories: [
        { id: 'a', title: 'Deploy rule', text: 'Deploys on Fridays are fine.', kind: 'rule', tags: ['ops'], vector: [1, 0, 0], links: [{ type: 'RELATES_TO', to: 'b' }] },
        { id: 'b', title: 'Freeze', text: 'The release freeze starts Thursday.', vector: [0, 1, 0] },
        { id: 'c', title: 'Lunch', text: 'Lunch is at noon.', vector: [0, 0, 1] },
      ],
    });
    assert.equal(stored.isError, false, text(stored));
    const key = namespace ? `${namespace}\u001fa` : 'a';
    const before = index.get(key, { vectors: true });

    const updated = await call('memory_update', { id: 'a', text: 'Never deploy on Fridays.' });
    assert.equal(updated.isError, false, text(updated));
    assert.deepEqual(updated.structuredContent.changed, ['text']);
    const after = index.get(key, { vectors: true });
    assert.deepEqual(after, { ...before, text: 'Never deploy on Fridays.' }, 'every other field, the vector and the links kept');

    // Still found by its vector (a query that matches no word), and by its new words.
    const byVector = await call('memory_search', { query: 'xylophone', vector: [1, 0.1, 0], limit: 1 });
    assert.equal(byVector.isError, false, text(byVector));
    assert.deepEqual(ids(byVector), ['a']);
    assert.deepEqual(ids(await call('memory_search', { query: 'never deploy' })), ['a']);
    const related = await call('memory_related', { id: 'a' });
    assert.equal(related.isError, false, text(related));
    assert.deepEqual(related.structuredContent.memories.map((m) => m.id), ['b']);

    // Links given to memory_update point at this namespace's memories, as memory_store's do.
    const relinked = await call('memory_update', { id: 'a', links: [{ type: 'SUPERSEDES', to: 'c' }] });
    assert.equal(relinked.isError, false, text(relinked));
    assert.deepEqual(relinked.structuredContent.memory.links, [{ type: 'SUPERSEDES', to: 'c' }]);
    assert.deepEqual((await call('memory_related', { id: 'a' })).structuredContent.memories.map((m) => m.id), ['c']);
    assert.deepEqual(ids(await call('memory_search', { query: 'xylophone', vector: [1, 0, 0], limit: 1 })), ['a'], 'the vector survives a second update');

    // A vector given replaces it.
    await call('memory_update', { id: 'a', vector: [0, 0, 1] });
    assert.deepEqual(index.get(key, { vectors: true }).embedding, [0, 0, 1]);

    const missing = await call('memory_update', { id: 'nope', text: 'x' });
    assert.equal(missing.isError, true);
    assert.match(text(missing), /^NOT_FOUND: /);
    index.free();
  });
}

test('a memory_delete batch that fails restores the memories it removed, vectors included', async () => {
  const index = await Memdex.open({ schema: { embedding: { type: 'vector', dimensions: 2 } } });
  const call = await connect(index, { vectorField: 'embedding', namespace: 'agent' });
  await call('memory_store', { memories: [{ id: 'a', text: 'first', vector: [1, 0] }, { id: 'b', text: 'second', vector: [0, 1] }] });
  const before = index.get('agent\u001fa', { vectors: true });
  // The second removal fails: the first is undone.
  const remove = index.remove.bind(index);
  let calls = 0;
  index.remove = (id) => {
    if (++calls === 2) throw new Error('disk on fire');
    return remove(id);
  };
  const failed = await call('memory_delete', { ids: ['a', 'b'] });
  assert.equal(failed.isError, true, text(failed));
  assert.deepEqual(index.get('agent\u001fa', { vectors: true }), before);
  assert.deepEqual(ids(await call('memory_search', { query: 'zzz', vector: [1, 0], limit: 1 })), ['a']);
  // The same for a delete by filter.
  calls = 0;
  const byFilter = await call('memory_delete', { since: '2000-01-01', confirm: true });
  index.remove = remove;
  assert.equal(byFilter.isError, true, text(byFilter));
  assert.equal(index.size, 2);
  assert.deepEqual(index.get('agent\u001fa', { vectors: true }), before);
  assert.deepEqual(index.get('agent\u001fb', { vectors: true }).embedding, [0, 1]);
  index.free();
});
