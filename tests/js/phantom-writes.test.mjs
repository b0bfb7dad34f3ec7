// A write that fails leaves nothing behind (issue 27, acceptance 3). On a
// storage that fails at each commit step in turn (writer lock, pending
// marker, blob, manifest swap), every call that answered an error leaves no
// trace: get finds nothing, an unrelated later write does not commit it, a
// retry stores it, and after a reopen exactly the calls that answered
// success are there. Through the JS API (an adapter over the real fs adapter
// that fails one kind of key) and through the real `memdex mcp` subprocess
// (real filesystem failures: something in the way of the lock, the marker
// directory or the manifest's swap lock; a file size limit for blobs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memdex } from '../../pkg/node.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { startServer, tempDir } from './mcp-helpers.mjs';

const doc = (id) => ({ id, title: `note ${id}`, text: `durable memory ${id}` });
const STEPS = ['lock', 'marker', 'blob', 'manifest'];

/** The fs adapter, failing every operation of commit step `state.step` (a full disk there). */
function failingStorage(dir) {
  const inner = fsStorage(dir);
  const state = { step: /** @type {string | null} */ (null) };
  const full = (key) =>
    Promise.reject(Object.assign(new Error(`no space left on device (${key})`), { code: 'STORAGE', reason: 'QUOTA_EXCEEDED', name: 'MemdexStorageError' }));
  return {
    state,
    get: (k) => inner.get(k),
    delete: (k) => inner.delete(k),
    list: (p) => inner.list(p),
    put: (k, v) =>
      (state.step === 'marker' && k.includes('/pending/')) || (state.step === 'blob' && k.includes('/blob/')) ? full(k) : inner.put(k, v),
    swap: (k, e, v) => (state.step === 'manifest' ? full(k) : inner.swap(k, e, v)),
    lock: (name, fn, options) => (state.step === 'lock' ? full(`${name}/writer.lock~`) : inner.lock(name, fn, options)),
  };
}

for (const step of STEPS) {
  for (const entrance of ['update', 'commit']) {
    test(`${entrance}() failing at the ${step} step leaves nothing behind; refresh() still follows other writers`, async (t) => {
      const dir = mkdtempSync(join(tmpdir(), 'memdex-phantom-'));
      t.after(() => rmSync(dir, { recursive: true, force: true }));
      const storage = failingStorage(dir);
      const index = await Memdex.open({ storage, autoCommit: false });
      await index.update((ix) => ix.add(doc('base')));

      storage.state.step = step;
      const write = (ix) => {
        ix.add(doc('x'));
        ix.remove('base');
      };
      if (entrance === 'update') {
        await assert.rejects(index.update(write), (err) => err.code === 'STORAGE');
      } else {
        write(index);
        await assert.rejects(index.commit(), (err) => err.code === 'STORAGE');
      }
      // No trace: the in-memory index is the last durable state.
      assert.equal(index.get('x'), undefined, 'the failed add is gone');
      assert.equal(index.get('base')?.id, 'base', 'the failed remove is undone');
      assert.equal(index.dirty, false);

      // Another process commits meanwhile; refresh() follows it.
      storage.state.step = null;
      const other = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
      await other.update((ix) => ix.add(doc('other')));
      other.free();
      assert.equal(await index.refresh(), true, 'refresh() follows other writers after a failed write');
      assert.equal(index.get('other')?.id, 'other');

      // An unrelated write does not commit the failed one; the retry stores it.
      await index.update((ix) => ix.add(doc('y')));
      assert.equal(index.get('x'), undefined);
      await index.update(write);
      assert.equal(index.get('x')?.id, 'x');
      await index.close();

      const reopened = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
      assert.deepEqual(['base', 'other', 'x', 'y'].map((id) => reopened.get(id)?.id), [undefined, 'other', 'x', 'y']);
      reopened.free();
    });
  }
}

test('a failed auto-commit still keeps its writes for the next attempt (close() semantics unchanged)', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-phantom-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const storage = failingStorage(dir);
  const errors = [];
  const index = await Memdex.open({ storage, autoCommit: { delayMs: 0 }, onError: (e) => errors.push(e) });
  storage.state.step = 'manifest';
  index.add(doc('a'));
  // The auto-commit runs on a timer: wait for its failure (a loaded machine
  // may take longer than any fixed delay), bounded at 10 s.
  for (let waited = 0; errors.length === 0 && waited < 10_000; waited += 10) {
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.equal(errors.length, 1);
  assert.equal(index.get('a')?.id, 'a', 'nothing answered an error to the caller: the write stays pending');
  storage.state.step = null;
  await index.close();
  const reopened = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  assert.equal(reopened.get('a')?.id, 'a');
  reopened.free();
});

// ---- the real `memdex mcp` subprocess ------------------------------------

const code = (res) => res._meta?.['memdex/code'];

/** Puts something in the way of commit step `step` in index folder `idx`; returns the undo. */
function obstruct(idx, step) {
  const path = join(idx, { lock: 'writer.lock~', marker: 'pending', manifest: 'manifest.lock~' }[step]);
  rmSync(path, { recursive: true, force: true });
  // The lock files cannot be created (a directory is there); the marker
  // directory cannot be made (a file is there).
  if (step === 'marker') writeFileSync(path, '');
  else mkdirSync(path);
  return () => rmSync(path, { recursive: true, force: true });
}

for (const step of ['lock', 'marker', 'manifest']) {
  test(`memdex mcp: a store and a delete failing at the ${step} step leave nothing behind, also after restarts`, async (t) => {
    const dir = tempDir(t, 'memdex-phantom-mcp-');
    let server = await startServer(dir);
    assert.equal((await server.call('memory_store', { id: 'base', text: 'the base memory' })).isError, false);

    const undo = obstruct(join(dir, 'memdex'), step);
    const stored = await server.call('memory_store', { id: 'x', text: 'a memory the disk refused' });
    assert.equal(code(stored), 'STORAGE', JSON.stringify(stored.content));
    const deleted = await server.call('memory_delete', { id: 'base' });
    assert.equal(code(deleted), 'STORAGE', JSON.stringify(deleted.content));
    assert.equal(code(await server.call('memory_get', { id: 'x' })), 'NOT_FOUND', 'the failed store is gone');
    assert.equal((await server.call('memory_get', { id: 'base' })).isError, false, 'the failed delete is undone');
    undo();

    // The next, unrelated write commits only itself.
    assert.equal((await server.call('memory_store', { id: 'y', text: 'an unrelated memory' })).isError, false);
    assert.equal(code(await server.call('memory_get', { id: 'x' })), 'NOT_FOUND');
    assert.equal((await server.call('memory_get', { id: 'base' })).isError, false);
    assert.equal(await server.close(), 0);

    server = await startServer(dir);
    assert.equal(code(await server.call('memory_get', { id: 'x' })), 'NOT_FOUND', 'not committed at shutdown either');
    assert.equal((await server.call('memory_store', { id: 'x', text: 'a memory the disk refused' })).isError, false, 'the retry stores it (no EXISTS)');
    assert.equal(await server.close(), 0);

    server = await startServer(dir);
    const got = await server.call('memory_get', { ids: ['base', 'x', 'y'] });
    assert.deepEqual(got.structuredContent.missing, []);
    assert.equal(await server.close(), 0);
  });
}

test('memdex mcp: a store failing at the blob step (file size limit) leaves nothing behind', async (t) => {
  const dir = tempDir(t, 'memdex-phantom-mcp-');
  const big = Array.from({ length: 6000 }, (_, i) => `word${i}`).join(' '); // a blob far over 16 KiB
  // The server runs with a 16 KiB file size limit (EFBIG on larger writes;
  // Node ignores SIGXFSZ): markers, manifests and small blobs fit.
  let server = await startServer(dir, [], { limitKiB: 16 });
  assert.equal((await server.call('memory_store', { id: 'small', text: 'a small memory' })).isError, false);
  const failed = await server.call('memory_store', { id: 'big', text: big });
  assert.equal(code(failed), 'STORAGE', JSON.stringify(failed.content));
  assert.equal(code(await server.call('memory_get', { id: 'big' })), 'NOT_FOUND');
  assert.equal((await server.call('memory_store', { id: 'after', text: 'an unrelated memory' })).isError, false);
  assert.equal(code(await server.call('memory_get', { id: 'big' })), 'NOT_FOUND');
  assert.equal(await server.close(), 0);

  server = await startServer(dir);
  assert.equal(code(await server.call('memory_get', { id: 'big' })), 'NOT_FOUND');
  assert.equal((await server.call('memory_store', { id: 'big', text: big })).isError, false, 'the retry stores it');
  assert.equal(await server.close(), 0);
  server = await startServer(dir);
  assert.deepEqual((await server.call('memory_get', { ids: ['small', 'big', 'after'] })).structuredContent.missing, []);
  assert.equal(await server.close(), 0);
});
