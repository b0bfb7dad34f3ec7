// Node tests of the JS storage adapters shipped in pkg/storage/: the memory
// and filesystem adapters pass the one Rust conformance suite (through the
// wasm export `runStorageConformance`), hold committed indexes that reopen
// with identical results, detect corruption, and the writer lock excludes.
// The KV adapter runs in workerd (tests/worker/kv.test.mjs) and IndexedDB in
// Chromium (tests/wasm/tests/storage.rs, tests/e2e/storage-writers.test.mjs); here
// the KV adapter's pagination is checked against a paginating fake.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The conformance suite is not in the shipped wasm: a test build has it
// (scripts/build-conformance, run by make test before this stage).
import init, { runStorageConformance } from '../../target/conformance-pkg/memdex.js';
import { Memdex } from '../../pkg/node.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { fsStorage } from '../../pkg/storage/fs.js';
import { kvStorage } from '../../pkg/storage/kv.js';
import { indexLockKind, withIndexLock } from '../../pkg/storage/locks.js';

await init({ module_or_path: readFileSync(new URL('../../target/conformance-pkg/memdex_bg.wasm', import.meta.url)) });

const CONFORMANCE_CHECKS = 12;
const dirs = [];
function tempDir() {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-fs-'));
  dirs.push(dir);
  return dir;
}
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const memories = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim())
  .map((l) => JSON.parse(l));

const QUERIES = ['deploy friday', 'dark mode', 'tests', 'rust wasm', 'user prefers'];
function fingerprint(engine) {
  return [
    engine.size,
    ...QUERIES.map((q) =>
      engine
        .search(q, { limit: 20 })
        .hits.map((h) => `${h.id}:${h.score.toFixed(6)}`)
        .join(','),
    ),
  ];
}

// Indexes over an adapter object, through the public API (the commit
// protocol stays inside Memdex).
const open = (storage, name = 'idx') => Memdex.open({ storage, name, autoCommit: false });

async function reopen(storage, name) {
  const index = await open(storage, name);
  assert.ok(index.generation > 0, `an index is stored under ${name}`);
  return index;
}

test('memoryStorage passes the storage conformance suite', async () => {
  const storage = memoryStorage();
  assert.equal(await runStorageConformance(storage, 'conf'), CONFORMANCE_CHECKS);
  assert.equal(storage.size, 0, 'the suite cleans up after itself');
});

test('fsStorage passes the storage conformance suite', async () => {
  const dir = tempDir();
  assert.equal(await runStorageConformance(fsStorage(dir), 'conf'), CONFORMANCE_CHECKS);
  // No temporary file is left behind by the atomic puts.
  const leftovers = readdirSync(dir, { recursive: true }).filter((f) => String(f).endsWith('.tmp~'));
  assert.deepEqual(leftovers, []);
});

test('memoryStorage copies values on put and get', async () => {
  const storage = memoryStorage();
  const input = new Uint8Array([1, 2, 3]);
  await storage.put('k', input);
  input[0] = 99;
  const out = await storage.get('k');
  assert.deepEqual([...out], [1, 2, 3]);
  out[1] = 99;
  assert.deepEqual([...(await storage.get('k'))], [1, 2, 3]);
  // A Node Buffer is copied too (Buffer#slice would share memory).
  const buf = Buffer.from([5, 6]);
  await storage.put('buf', buf);
  buf[0] = 0;
  assert.deepEqual([...(await storage.get('buf'))], [5, 6]);
  // A view onto a larger buffer stores only its own bytes.
  const big = new Uint8Array(100).fill(7);
  await storage.put('view', big.subarray(10, 12));
  assert.equal((await storage.get('view')).buffer.byteLength, 2);
});

for (const [label, make] of [
  ['memoryStorage', () => memoryStorage()],
  ['fsStorage', () => fsStorage(tempDir())],
]) {
  test(`${label}: a committed index reopens with identical search results; one more doc commits incrementally`, async () => {
    const storage = make();
    const engine = await open(storage);
    for (const m of memories) engine.add(m);
    const first = await engine.commit();
    assert.equal(first.generation, 1);
    assert.ok(first.bytesWritten > 0);

    const reopened = await reopen(storage, 'idx');
    assert.equal(reopened.generation, 1);
    assert.deepEqual(fingerprint(reopened), fingerprint(engine));
    assert.ok(reopened.size === memories.length && memories.length > 10);

    // The reopened engine keeps writing where the first one stopped.
    reopened.add({ id: 'new-1', title: 'Quokka rollout', text: 'check the quokka dashboards' });
    const second = await reopened.commit();
    assert.equal(second.generation, 2);
    assert.ok(
      second.bytesWritten < first.bytesWritten,
      `one-document commit wrote ${second.bytesWritten} bytes, the whole index ${first.bytesWritten}`,
    );
    const third = await reopen(storage, 'idx');
    assert.equal(third.size, memories.length + 1);
    assert.equal(third.search('quokka').hits[0].id, 'new-1');
    for (const e of [engine, reopened, third]) e.free();
  });
}

test('fsStorage: keys are files under the directory (same layout as the native FsStorage)', async () => {
  const dir = tempDir();
  const storage = fsStorage(dir);
  const engine = await open(storage, 'notes');
  engine.add(memories[0]);
  await engine.commit();
  assert.ok(existsSync(join(dir, 'notes', 'manifest')));
  const blobs = readdirSync(join(dir, 'notes', 'blob'));
  // <commit>-<segment>-<part>-<content hash> (docs/FORMAT.md)
  assert.ok(blobs.length >= 1 && blobs.every((b) => /^[0-9a-f]{24}-\d+-(\d+|d)-[0-9a-f]{32}$/.test(b)), blobs.join(','));
  assert.deepEqual(await storage.list('notes/blob/'), blobs.map((b) => `notes/blob/${b}`).sort());
  engine.free();
});

test('fsStorage: a flipped byte in a blob makes loading fail with CORRUPT', async () => {
  const dir = tempDir();
  const storage = fsStorage(dir);
  const engine = await open(storage);
  for (const m of memories) engine.add(m);
  await engine.commit();
  const [blob] = await storage.list('idx/blob/');
  const file = join(dir, blob);
  const bytes = readFileSync(file);
  bytes[bytes.length >> 1] ^= 0x40;
  writeFileSync(file, bytes);
  await assert.rejects(open(storage), (err) => err.code === 'CORRUPT');
  engine.free();
});

test('fsStorage rejects keys that could escape the directory', async () => {
  const storage = fsStorage(tempDir());
  for (const key of ['../x', 'a/../../x', 'a//b', '/abs', 'a/', '', 'a\\b', 'a/./b', 'x.tmp~']) {
    await assert.rejects(storage.put(key, new Uint8Array([1])), (err) => err.code === 'STORAGE' && err.reason === 'INVALID_KEY', key);
  }
  // A failing adapter call surfaces through memdex as a STORAGE error.
  // (A root under a regular file cannot be created, even by root.)
  const file = join(tempDir(), 'a-file');
  writeFileSync(file, 'x');
  await assert.rejects(runStorageConformance(fsStorage(join(file, 'sub')), 'conf'), (err) => err.code === 'STORAGE');
});

test('fsStorage: concurrent puts of one key leave one whole value', async () => {
  const storage = fsStorage(tempDir());
  const values = Array.from({ length: 8 }, (_, i) => new Uint8Array(256 * 1024).fill(i + 1));
  await Promise.all(values.map((v) => storage.put('k', v)));
  const got = await storage.get('k');
  assert.equal(got.length, 256 * 1024);
  assert.ok(got.every((b) => b === got[0]), 'no torn value');
  assert.deepEqual(await storage.list(''), ['k']);
});

test('two writers on one fsStorage: the stale one gets CONFLICT, reloads, and nothing is lost', async () => {
  const storage = fsStorage(tempDir());
  const a = await open(storage);
  a.add(memories[0]);
  await a.commit();
  const b = await reopen(storage, 'idx');
  a.add({ id: 'from-a', title: 'alpha writer', text: 'written by a' });
  b.add({ id: 'from-b', title: 'beta writer', text: 'written by b' });
  await a.commit();
  await assert.rejects(b.commit(), (err) => err.code === 'CONFLICT');
  const fresh = await reopen(storage, 'idx');
  fresh.add({ id: 'from-b', title: 'beta writer', text: 'written by b' });
  assert.equal((await fresh.commit()).generation, 3);
  const final = await reopen(storage, 'idx');
  assert.equal(final.size, 3);
  assert.ok(final.get('from-a') && final.get('from-b'));
  for (const e of [a, b, fresh, final]) e.free();
});

test('an adapter with `release` gets back every value it gave, only once memdex has copied it', async () => {
  const inner = memoryStorage();
  const writer = await Memdex.open({ storage: inner, name: 'idx', autoCommit: false });
  for (let i = 0; i < 300; i++) writer.add({ id: `d${i}`, title: `note ${i}`, text: `deploy friday number ${i} ${'x'.repeat(i % 50)}` });
  await writer.commit();
  const want = writer.search('deploy friday', { limit: 5 }).hits;
  writer.free();
  let given = 0;
  let released = 0;
  // Values scribbled over on release: memdex must not read them after.
  const storage = {
    ...inner,
    async get(key) {
      const v = await inner.get(key);
      if (v) given++;
      return v;
    },
    release(v) {
      released++;
      v.fill(0xee);
    },
  };
  for (const lazy of [false, true]) {
    const index = await Memdex.open({ storage, name: 'idx', ...(lazy ? { lazy } : { autoCommit: false }) });
    const got = (await index.search('deploy friday', { limit: 5 })).hits;
    assert.deepEqual(got.map((h) => [h.id, h.score, h.fields]), want.map((h) => [h.id, h.score, h.fields]));
    index.close();
  }
  assert.ok(given > 3);
  assert.equal(released, given);
});

test("a commit cuts segments into blobs of the adapter's `partBytes`; every layout opens alike, whole and lazily", async () => {
  const docs = Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, title: `note ${i}`, text: `deploy friday number ${i} w${i % 997} ${'word '.repeat(i % 40)}` }));
  const counts = [];
  let want;
  // memoryStorage's own parts (32 KiB) between 4 KiB and the default (128 KiB, an adapter without `partBytes`).
  for (const partBytes of [4096, 'own', undefined]) {
    const inner = memoryStorage();
    const storage = partBytes === 'own' ? inner : { ...inner, partBytes };
    const writer = await Memdex.open({ storage, name: 'idx', autoCommit: false });
    assert.equal(writer.addAll(docs), docs.length);
    await writer.commit();
    writer.free();
    counts.push((await inner.list('idx/blob/')).length);
    for (const lazy of [false, true]) {
      const index = await Memdex.open({ storage, name: 'idx', ...(lazy ? { lazy } : { autoCommit: false }) });
      const got = [];
      for (const q of ['deploy friday', 'w17', 'word number 12']) got.push((await index.search(q, { limit: 10, highlight: true })).hits.map((h) => [h.id, h.score, h.fields, h.snippets]));
      want ??= got;
      assert.deepEqual(got, want, `partBytes ${partBytes}, lazy ${lazy}`);
      index.close();
    }
  }
  assert.ok(counts[0] > counts[1] && counts[1] > counts[2], `blobs per layout: ${counts}`);
  // fsStorage takes it as an option (its default: memoryStorage's).
  const blobsIn = async (options) => {
    const dir = tempDir();
    const writer = await Memdex.open({ storage: fsStorage(dir, options), name: 'idx', autoCommit: false });
    writer.addAll(docs);
    await writer.commit();
    writer.close();
    return (await fsStorage(dir).list('idx/blob/')).length;
  };
  assert.deepEqual([await blobsIn(), await blobsIn({ partBytes: 131072 })], counts.slice(1));
  await assert.rejects(
    Memdex.open({ storage: fsStorage(tempDir(), { partBytes: 'big' }), name: 'idx' }),
    (err) => err.code === 'USAGE' && /partBytes/.test(err.message),
  );
  for (const partBytes of [100, 1.5, '32768', 5_000_000, null]) {
    await assert.rejects(
      Memdex.open({ storage: { ...memoryStorage(), partBytes }, name: 'idx' }),
      (err) => err.code === 'USAGE' && /partBytes/.test(err.message),
      `partBytes ${partBytes}`,
    );
  }
});

test('a whole open reads several parts at once, about 512 KiB of them: 16 of small parts, 4 of 128 KiB; each blob once', async () => {
  // Doc store pages of 16 KiB: dozens of parts at either size.
  const docs = Array.from({ length: 20000 }, (_, i) => ({ id: `d${i}`, text: `deploy friday number ${i} w${i % 997} ${'word '.repeat(i % 40)}` }));
  const seen = [];
  // Written with `partBytes`, read through an adapter of `readPartBytes`:
  // the chunks' size, not the reader's, sets the window (1 MiB parts, as
  // the multi-MiB chunks of old formats, one or two at a time).
  for (const [partBytes, readPartBytes] of [[4096, 4096], [131072, 131072], [1 << 20, 4096]]) {
    const inner = memoryStorage();
    const writer = await Memdex.open({ storage: { ...inner, partBytes }, name: 'idx', autoCommit: false });
    writer.addAll(docs);
    await writer.commit();
    const want = writer.search('deploy w17').hits.map((h) => [h.id, h.score]);
    writer.free();
    const parts = (await inner.list('idx/blob/')).length;
    assert.ok(parts > 2, `enough parts to need several windows: ${parts}`);
    let [inFlight, most, bytes, mostBytes] = [0, 0, 0, 0];
    const gets = [];
    const counted = {
      ...inner,
      partBytes: readPartBytes,
      async get(key) {
        const value = await inner.get(key);
        const size = value?.length ?? 0;
        most = Math.max(most, ++inFlight);
        mostBytes = Math.max(mostBytes, (bytes += size));
        gets.push(key);
        await new Promise((resolve) => setTimeout(resolve, 1)); // a store's latency
        inFlight--;
        bytes -= size;
        return value;
      },
    };
    const index = await Memdex.open({ storage: counted, name: 'idx', autoCommit: false });
    assert.deepEqual(index.search('deploy w17').hits.map((h) => [h.id, h.score]), want);
    index.free();
    let largest = 0;
    for (const key of await inner.list('idx/blob/')) largest = Math.max(largest, (await inner.get(key))?.length ?? 0);
    const bound = Math.max(3 << 18, 2 * largest); // about 512 KiB, or two of the largest chunks
    assert.ok(mostBytes <= bound, `partBytes ${partBytes}: ${mostBytes} bytes asked at once, more than ${bound}`);
    assert.equal(gets.filter((k) => k.startsWith('idx/blob/')).length, parts, 'each blob read once');
    seen.push(most);
  }
  // The window follows the parts' size: many small ones, few large ones.
  const [small, large, huge] = seen;
  assert.ok(huge <= 2 && huge < large, `1 MiB parts: ${huge} requests in flight at most`);
  assert.ok(small > 4 && small <= 16, `4 KiB parts: ${small} requests in flight at most`);
  // (parts gather units up to 128 KiB, so a little less: 4 to 6 at once)
  assert.ok(large > 1 && large <= 6 && large < small, `128 KiB parts: ${large} requests in flight at most`);
});

test('kvStorage follows list cursors and namespaces keys with its prefix', async () => {
  // A fake binding with KV's API shape, returning 3 keys per page.
  const map = new Map();
  const fake = {
    async get(k, type) {
      assert.equal(type, 'arrayBuffer');
      const v = map.get(k);
      return v ? v.buffer.slice(0) : null;
    },
    async put(k, v) {
      map.set(k, new Uint8Array(v));
    },
    async delete(k) {
      map.delete(k);
    },
    async list({ prefix = '', cursor }) {
      const all = [...map.keys()].filter((k) => k.startsWith(prefix)).sort();
      const start = cursor ? Number(cursor) : 0;
      const keys = all.slice(start, start + 3).map((name) => ({ name }));
      const done = start + 3 >= all.length;
      return { keys, list_complete: done, ...(done ? {} : { cursor: String(start + 3) }) };
    },
  };
  const storage = kvStorage(fake, { prefix: 'app1:' });
  assert.equal(await runStorageConformance(storage, 'conf'), CONFORMANCE_CHECKS);
  for (let i = 0; i < 10; i++) await storage.put(`idx/blob/${i}`, new Uint8Array([i]));
  await fake.put('other:idx/blob/x', new Uint8Array([1]));
  const listed = await storage.list('idx/blob/');
  assert.deepEqual(listed, Array.from({ length: 10 }, (_, i) => `idx/blob/${i}`));
  assert.ok([...map.keys()].filter((k) => k.startsWith('app1:')).length === 10);
  assert.throws(() => kvStorage({}), (err) => err.code === 'STORAGE');
});

test('withIndexLock: in-process mutex serializes writers of one index, not of others', async () => {
  assert.equal(indexLockKind(), 'in-process');
  const events = [];
  const job = (name, tag) =>
    withIndexLock(name, async () => {
      events.push(`+${tag}`);
      await new Promise((r) => setTimeout(r, 20));
      events.push(`-${tag}`);
      return tag;
    });
  const results = await Promise.all([job('a', 1), job('a', 2), job('b', 3)]);
  assert.deepEqual(results, [1, 2, 3]);
  // 1 and 2 never overlap; 3 (another index) runs alongside 1.
  assert.ok(events.indexOf('-1') < events.indexOf('+2'), events.join(' '));
  assert.ok(events.indexOf('+3') < events.indexOf('-1'), events.join(' '));
});

test('withIndexLock: ifAvailable fails fast with CONFLICT; abort while waiting skips fn; errors release the lock', async () => {
  let release;
  const holder = withIndexLock('x', () => new Promise((r) => (release = r)));
  await new Promise((r) => setTimeout(r, 0));
  await assert.rejects(withIndexLock('x', () => 1, { ifAvailable: true }), (err) => err.code === 'CONFLICT' && err.reason === 'LOCKED');

  const controller = new AbortController();
  let ran = false;
  const waiting = withIndexLock('x', () => (ran = true), { signal: controller.signal });
  controller.abort();
  await assert.rejects(waiting, (err) => err.name === 'AbortError');
  release('done');
  assert.equal(await holder, 'done');
  assert.equal(ran, false);

  await assert.rejects(withIndexLock('x', () => Promise.reject(new Error('boom'))), /boom/);
  assert.equal(await withIndexLock('x', () => 'free again', { ifAvailable: true }), 'free again');
});

test('package exports: memdex/storage/* resolve (fs only under the node condition) and every file ships', async () => {
  const pkgDir = fileURLToPath(new URL('../../pkg/', import.meta.url));
  const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
  // What npm would publish (`files` globs applied) is every file built.
  const packed = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: pkgDir, encoding: 'utf8' }),
  )[0].files.map((f) => f.path);
  const built = readdirSync(pkgDir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath ?? e.path, e.name).slice(pkgDir.length));
  assert.deepEqual([...packed].sort(), [...built].sort());
  for (const f of ['memdex_bg.wasm', 'storage/indexeddb.js.map', 'storage/fs.js']) assert.ok(packed.includes(f), f);
  const dir = tempDir();
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(pkgDir, join(dir, 'node_modules', 'memdex'), 'dir');
  const run = (code, ...flags) =>
    execFileSync(process.execPath, [...flags, '--input-type=module', '-e', code], { cwd: dir, encoding: 'utf8' }).trim();
  const names = run(`
    const m = await Promise.all(['memory', 'indexeddb', 'kv', 'fs', 'locks'].map((n) => import('memdex/storage/' + n)));
    console.log(m.map((x) => Object.keys(x).sort().join('+')).join(' '));`);
  assert.equal(names, 'memoryStorage indexedDBStorage kvStorage fsStorage indexLockKind+withIndexLock');
  for (const name of ['memory', 'indexeddb', 'kv', 'fs', 'locks']) {
    const types = pkg.exports[`./storage/${name}`].types;
    assert.ok(existsSync(join(pkgDir, types)), types);
  }
  // Bundlers for browsers and workerd do not apply the `node` condition, so
  // the fs adapter (node:fs) has no other target to fall back to.
  assert.deepEqual(Object.keys(pkg.exports['./storage/fs']), ['types', 'node']);
});
