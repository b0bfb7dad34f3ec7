// Tenancy: a server pinned to one namespace cannot read, write, delete,
// list or learn of another namespace's memories, by any tool or error text.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memdex } from '../../pkg/node.js';
import { ids, startServer, tempDir, text } from './mcp-helpers.mjs';

// Tenant B's words and the id only B uses (A stores its own `shared-id` and
// `legacy-b`, so those may come back to A).
const SECRETS = ['tenant-b', 'Nightingale', 'launch code', '0000', 'secret-plan', 'classified'];

test('a pinned server sees only its namespace: every tool, every error', async (t) => {
  const dir = tempDir(t);
  // Tenant B: memories through its own pinned server, and one added with the
  // JS API (plain engine id) in the same folder.
  const b = await startServer(dir, ['--namespace', 'tenant-b']);
  await b.call('memory_store', {
    memories: [
      { id: 'secret-plan', title: 'Project Nightingale launch code', text: 'The launch code is 0000.', kind: 'rule', tags: ['classified'], timestamp: '2026-05-01T00:00:00Z' },
      { id: 'shared-id', title: 'B owns this id too', text: 'Tenant B text for the shared id.', kind: 'note', timestamp: '2026-05-02T00:00:00Z' },
    ],
  });
  assert.equal(await b.close(), 0);
  const direct = await Memdex.open({ storage: 'fs', dir });
  direct.add({ id: 'legacy-b', namespace: 'tenant-b', title: 'Nightingale budget', text: 'Added with the JS API.', kind: 'rule' });
  await direct.close();

  const a = await startServer(dir, ['--namespace', 'tenant-a']);
  t.after(() => a.close());
  for (const tool of a.tools) assert.equal(tool.inputSchema.properties.namespace, undefined, tool.name);
  const seen = [];
  const call = async (name, args) => {
    const res = await a.call(name, args);
    seen.push(`${name} ${JSON.stringify(args)} -> ${JSON.stringify(res)}`);
    return res;
  };

  // Reads: nothing of B's, by words, filters, listing or id.
  assert.deepEqual(ids(await call('memory_search', { query: 'Nightingale launch code', mode: 'or' })), []);
  assert.deepEqual(ids(await call('memory_search', { query: 'code', tags: ['classified'] })), []);
  const empty = await call('memory_list', {});
  assert.equal(empty.structuredContent.total, 0);
  assert.equal((await call('memory_list', { kind: 'rule', since: '2000-01-01' })).structuredContent.total, 0);
  // An id of B's answers exactly as an id that never existed.
  const never = text(await call('memory_get', { id: 'never-existed' }));
  for (const id of ['secret-plan', 'legacy-b', 'shared-id']) {
    const res = await call('memory_get', { id });
    assert.equal(res.isError, true);
    assert.equal(text(res).replace(id, 'never-existed'), never);
    const upd = await call('memory_update', { id, title: 'hijacked' });
    assert.equal(upd._meta['memdex/code'], 'NOT_FOUND');
    const del = await call('memory_delete', { id });
    assert.equal(del._meta['memdex/code'], 'NOT_FOUND');
  }
  assert.deepEqual((await call('memory_get', { ids: ['secret-plan', 'legacy-b'] }))._meta, { 'memdex/code': 'NOT_FOUND' });
  // Naming B's namespace is not an argument here.
  for (const [name, args] of [
    ['memory_search', { query: 'code', namespace: 'tenant-b' }],
    ['memory_list', { namespace: 'tenant-b' }],
    ['memory_store', { text: 'x', namespace: 'tenant-b' }],
    ['memory_delete', { kind: 'rule', namespace: 'tenant-b', confirm: true }],
  ]) {
    const res = await call(name, args);
    assert.equal(res._meta['memdex/code'], 'USAGE', name);
    assert.match(text(res), /unknown argument "namespace"/);
  }

  // Writes: B's ids are free in A (ids are per namespace); B is untouched.
  const mine = await call('memory_store', { id: 'shared-id', title: 'A owns this id', text: 'Tenant A text for the shared id.', kind: 'rule' });
  assert.deepEqual(mine.structuredContent.stored, [{ id: 'shared-id', replaced: false }]);
  const replace = await call('memory_store', { id: 'legacy-b', text: 'A memory of A under the same id', replace: true });
  assert.deepEqual(replace.structuredContent.stored, [{ id: 'legacy-b', replaced: false }]);
  // Delete by filter: preview and deletion count A's only.
  const preview = await call('memory_delete', { kind: 'rule' });
  assert.equal(preview.structuredContent.matched, 1);
  assert.deepEqual(preview.structuredContent.ids, ['shared-id']);
  const wiped = await call('memory_delete', { kind: ['rule', 'note'], since: '2000-01-01', confirm: true });
  assert.deepEqual(wiped.structuredContent.ids, ['shared-id']);
  assert.deepEqual(ids(await call('memory_list', {})), ['legacy-b']);

  // Nothing A received names or quotes B's memories or namespace: a secret
  // appears in an answer only where A's own request said it (echoed ids and
  // query words), and B's texts and titles never.
  for (const line of seen) {
    const [request, answer] = line.split(' -> ');
    for (const secret of SECRETS) {
      if (answer.includes(secret)) assert.ok(request.includes(secret), `leak of "${secret}": ${line}`);
    }
    for (const text of ['The launch code is', 'Added with the JS API', 'Tenant B text', 'B owns this id', 'Nightingale budget']) {
      assert.ok(!answer.includes(text), `leak of "${text}": ${line}`);
    }
  }

  // B still has everything, unchanged.
  const b2 = await startServer(dir, ['--namespace', 'tenant-b']);
  t.after(() => b2.close());
  const bAll = await b2.call('memory_list', {});
  assert.deepEqual(ids(bAll).sort(), ['legacy-b', 'secret-plan', 'shared-id']);
  const shared = await b2.call('memory_get', { ids: ['shared-id', 'secret-plan'] });
  assert.deepEqual(shared.structuredContent.memories.map((m) => m.text), ['Tenant B text for the shared id.', 'The launch code is 0000.']);
  assert.equal((await b2.call('memory_get', { id: 'legacy-b' })).structuredContent.memories[0].text, 'Added with the JS API.');
  assert.deepEqual(ids(await b2.call('memory_search', { query: 'shared id' })), ['shared-id']);
});
