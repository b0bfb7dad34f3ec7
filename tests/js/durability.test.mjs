// What the package promises about durability, through the public API:
// close() never resolves over writes it could not commit, auto-commit has a
// maximum delay under a steady writer, a lost manifest is CORRUPT (and
// recoverable) instead of an empty index, and two writers on one directory
// resolve through CONFLICT -> reload() -> retry without losing anything.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, readdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Memdex } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';

const tempDir = () => mkdtempSync(join(tmpdir(), 'memdex-durability-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const doc = (id) => ({ id, title: `note ${id}`, text: `durable memory ${id}` });

/** A memory adapter whose puts fail while `full` is set (a full disk). */
function flakyStorage() {
  const inner = memoryStorage();
  const state = { full: false };
  const fail = async () => {
    const err = new Error('no space left on device');
    err.code = 'STORAGE';
    err.reason = 'QUOTA_EXCEEDED';
    throw err;
  };
  return {
    state,
    get: (k) => inner.get(k),
    put: (k, v) => (state.full ? fail() : inner.put(k, v)),
    delete: (k) => inner.delete(k),
    list: (p) => inner.list(p),
    swap: (k, e, v) => (state.full ? fail() : inner.swap(k, e, v)),
  };
}

test('close() rejects when an auto-commit in flight fails, keeps the writes, and succeeds once storage recovers', async () => {
  const storage = flakyStorage();
  const errors = [];
  const index = await Memdex.open({ storage, autoCommit: { delayMs: 0 }, onError: (e) => errors.push(e) });
  storage.state.full = true;
  index.add(doc('a'));
  await sleep(5); // the auto-commit is under way (and fails)
  // The adapter's own reason code survives the trip through the engine.
  await assert.rejects(index.close(), (err) => err.code === 'STORAGE' && err.reason === 'QUOTA_EXCEEDED');
  assert.equal(index.closed, false, 'a failed close leaves the index open');
  assert.equal(index.get('a')?.id, 'a', 'the write is still there');
  storage.state.full = false;
  await index.close();
  const reopened = await Memdex.open({ storage, autoCommit: false });
  assert.equal(reopened.get('a')?.id, 'a');
  reopened.free();
});

test('close() commits pending writes even without auto-commit; free() drops them', async () => {
  const storage = memoryStorage();
  const a = await Memdex.open({ storage, autoCommit: false });
  a.add(doc('kept'));
  await a.close();
  const b = await Memdex.open({ storage, autoCommit: false });
  assert.equal(b.get('kept')?.id, 'kept');
  b.add(doc('dropped'));
  b.free();
  assert.throws(() => b.size, (err) => err.code === 'CLOSED');
  const c = await Memdex.open({ storage, autoCommit: false });
  assert.equal(c.get('dropped'), undefined);
  assert.equal(c.size, 1);
  c.free();
});

test('auto-commit has a maximum delay: a steady writer still commits', async () => {
  const storage = memoryStorage();
  const index = await Memdex.open({ storage, autoCommit: { delayMs: 300, maxDelayMs: 400 } });
  // One write every 100 ms: the idle delay alone would never expire.
  for (let i = 0; i < 12; i++) {
    index.add(doc(`s${i}`));
    await sleep(100);
  }
  const reader = await Memdex.open({ storage, autoCommit: false });
  assert.ok(reader.generation >= 2, `generation ${reader.generation}: auto-commit waited for the writes to stop`);
  assert.ok(reader.size >= 6, `only ${reader.size} of 12 writes committed while writing`);
  reader.free();
  await index.close();
  await assert.rejects(Memdex.open({ storage, autoCommit: { delayMs: 500, maxDelayMs: 100 } }), (e) => e.code === 'USAGE');
  await assert.rejects(Memdex.open({ storage, autoCommit: { delay: 5 } }), (e) => e.code === 'USAGE' && /delay/.test(e.message));
});

test('a lost manifest is CORRUPT, never an empty index, and Memdex.recover() rebuilds it', async () => {
  const dir = tempDir();
  try {
    const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    for (let i = 0; i < 5; i++) {
      index.add(doc(`m${i}`));
      await index.commit();
    }
    index.remove('m2');
    await index.close();
    const blobs = readdirSync(join(dir, 'memdex', 'blob')).sort();
    unlinkSync(join(dir, 'memdex', 'manifest'));
    await assert.rejects(Memdex.open({ storage: 'fs', dir }), (err) => err.code === 'CORRUPT' && /recover/.test(err.message));
    assert.deepEqual(readdirSync(join(dir, 'memdex', 'blob')).sort(), blobs, 'nothing was collected');
    const report = await Memdex.recover({ storage: 'fs', dir });
    assert.equal(report.documents, 4);
    assert.deepEqual(report.skipped, []);
    const recovered = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    assert.deepEqual(['m0', 'm1', 'm2', 'm3', 'm4'].map((id) => recovered.get(id)?.id), ['m0', 'm1', undefined, 'm3', 'm4']);
    recovered.free();
    await assert.rejects(Memdex.recover({ storage: 'fs', dir }), (err) => err.code === 'USAGE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('two writers on one directory: the second gets CONFLICT, reload + re-apply + commit keeps both', async () => {
  const dir = tempDir();
  try {
    const a = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    const b = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    a.add(doc('from-a'));
    b.add(doc('from-b'));
    await a.commit();
    await assert.rejects(b.commit(), (err) => err.code === 'CONFLICT');
    await b.reload();
    b.add(doc('from-b'));
    await b.commit();
    a.free();
    b.free();
    const c = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    assert.deepEqual([c.get('from-a')?.id, c.get('from-b')?.id], ['from-a', 'from-b']);
    c.free();
    // No lock, temporary or pending file is left behind.
    const left = readdirSync(join(dir, 'memdex'), { recursive: true }).filter((f) => String(f).endsWith('~') || String(f).startsWith('pending/'));
    assert.deepEqual(left, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the fs writer lock excludes another holder (ifAvailable) and breaks a dead process\'s lock', async () => {
  const dir = tempDir();
  try {
    const storage = fsStorage(dir);
    let inner;
    await storage.lock('idx', async () => {
      inner = await storage.lock('idx', async () => 'ran', { ifAvailable: true }).catch((e) => e);
    });
    assert.equal(inner.code, 'CONFLICT');
    // A lock left by a process that no longer exists (pid above pid_max).
    const { writeFileSync, mkdirSync } = await import('node:fs');
    const { hostname } = await import('node:os');
    mkdirSync(join(dir, 'idx'), { recursive: true });
    writeFileSync(join(dir, 'idx', 'writer.lock~'), `4194305 ${hostname()} dead 0`);
    assert.equal(await storage.lock('idx', async () => 'ran'), 'ran');
    assert.equal(existsSync(join(dir, 'idx', 'writer.lock~')), false);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('update(fn): writers of one directory interleave without CONFLICT or loss; a throwing fn drops its writes', async () => {
  const dir = tempDir();
  try {
    const a = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    const b = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    // Both indexes are stale half the time: update reloads before writing.
    const writes = [];
    for (let i = 0; i < 10; i++) {
      writes.push(a.update((ix) => ix.add(doc(`a${i}`))));
      writes.push(b.update((ix) => ix.add(doc(`b${i}`))));
    }
    await Promise.all(writes);
    // A read-modify-write sees the other writer's latest version.
    await a.update((ix) => ix.add({ ...ix.get('b9'), text: 'edited by a' }));
    const edited = await b.update((ix) => ix.get('b9').text);
    assert.equal(edited, 'edited by a');
    await assert.rejects(
      a.update((ix) => {
        ix.add(doc('never'));
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal(a.get('never'), undefined, 'the failed update left nothing behind');
    a.free();
    b.free();
    const c = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    assert.equal(c.size, 20);
    assert.equal(c.get('never'), undefined);
    c.free();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
