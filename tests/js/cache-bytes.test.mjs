// `cacheBytes`: stored fields kept packed, pages unpacked on demand through
// a bounded cache. The same answers as an index holding them unpacked
// (hits, scores, stored fields, snippets), however small the cache, across
// writes, commits and reopens; one validator (the engine's) at open,
// import and `memdex mcp --cache-bytes`; the cache in `stats()`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Memdex, MemdexError } from '../../pkg/node.js';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI, startServer, tempDir } from './mcp-helpers.mjs';
import { defineOpenInWorker } from '../../pkg/worker-client.js';
import { NodeWebWorker } from './support/node-web-worker.mjs';

const WORDS = 'memory agent deploy friday rule cache page segment vector note meeting budget release review bug fix user prefers dark mode café naïve 東京 résumé ship'.split(' ');

/** Deterministic documents: word soup of varied length (xorshift). */
function corpus(n, seed = 7) {
  let x = seed;
  const word = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return WORDS[(x >>> 0) % WORDS.length];
  };
  const words = (k) => Array.from({ length: k }, word).join(' ');
  return Array.from({ length: n }, (_, i) => ({ id: `d${i}`, title: words(3), text: `${words(5 + (i % 80))} "q" \\ ${i}`, kind: ['a', 'b'][i % 2] }));
}

const QUERIES = Array.from({ length: 60 }, (_, i) => `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`);

function answers(index) {
  return QUERIES.map((q) => index.search(q, { limit: 15, highlight: { snippetLength: 50 } }).hits);
}

function tmp(t) {
  const dir = mkdtempSync(path.join(tmpdir(), 'memdex-cache-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('an index opened with cacheBytes answers as one without, whatever the bound', async (t) => {
  const dir = tmp(t);
  const writer = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  const docs = corpus(3000);
  for (let i = 0; i < docs.length; i += 600) {
    writer.addAll(docs.slice(i, i + 600));
    await writer.commit();
  }
  writer.remove('d5');
  await writer.commit();
  const want = answers(writer);
  const wantDocs = docs.map((d) => writer.get(d.id));
  assert.equal(writer.stats().cache, undefined);
  await writer.close();

  for (const cacheBytes of [0, 300_000, 1 << 30]) {
    const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false, cacheBytes });
    assert.deepEqual(answers(index), want, `cacheBytes ${cacheBytes}`);
    assert.deepEqual(docs.map((d) => index.get(d.id)), wantDocs, `cacheBytes ${cacheBytes}`);
    const { cache, bytes } = index.stats();
    assert.equal(cache.limit, cacheBytes);
    assert.ok(cache.bytes <= cache.limit, JSON.stringify(cache));
    assert.ok(cache.unpacks > 0);
    if (cacheBytes === 0) assert.equal(cache.hits, 0);
    else assert.ok(cache.hits > cache.unpacks, JSON.stringify(cache));
    assert.ok(bytes > 0);
    await index.close();
  }
});

test('writes, commits and reopens of a packed index keep every answer', async (t) => {
  const dir = tmp(t);
  const docs = corpus(1500, 3);
  const plain = await Memdex.open({ storage: 'memory' });
  const packed = await Memdex.open({ storage: 'fs', dir, cacheBytes: 64 * 1024, autoCommit: false });
  for (const index of [plain, packed]) {
    index.addAll(docs.slice(0, 1000));
    index.remove('d3');
    index.add({ ...docs[7], text: 'replaced text about the friday deploy rule' });
    index.addAll(docs.slice(1000));
    index.compact();
  }
  await packed.commit();
  assert.deepEqual(answers(packed), answers(plain));
  const reopened = await Memdex.open({ storage: 'fs', dir, cacheBytes: 1 });
  assert.deepEqual(answers(reopened), answers(plain));
  assert.deepEqual(reopened.get('d7'), plain.get('d7'));
  // import() takes it too: the snapshot's stored fields are packed on import.
  const imported = await Memdex.import(packed.export(), { cacheBytes: 1000 });
  assert.deepEqual(answers(imported), answers(plain));
  assert.equal(imported.stats().cache.limit, 1000);
  for (const index of [plain, packed, reopened, imported]) await index.close();
});

test('a cacheBytes that is no byte count is USAGE, at open and import', async () => {
  const bytes = (await Memdex.open()).export();
  for (const bad of [-1, 1.5, 2 ** 40, Number.NaN, '64', {}]) {
    for (const open of [() => Memdex.open({ cacheBytes: bad }), () => Memdex.import(bytes, { cacheBytes: bad })]) {
      await assert.rejects(open(), (err) => err instanceof MemdexError && err.code === 'USAGE' && /cacheBytes/.test(err.message), String(bad));
    }
  }
});

test('memdex mcp --cache-bytes serves the packed index; a bad value is refused', async (t) => {
  const dir = tempDir(t);
  const seed = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  seed.addAll(corpus(200).map((d) => ({ ...d, text: `${d.text} lighthouse` })));
  await seed.commit();
  await seed.close();
  const s = await startServer(dir, ['--cache-bytes', '4096']);
  t.after(() => s.close());
  const found = await s.call('memory_search', { query: 'lighthouse', limit: 5 });
  assert.equal(found.structuredContent.hits.length, 5);
  assert.match(JSON.stringify(found.structuredContent.hits[0]), /lighthouse/);
  // The engine's own check, as at open: USAGE naming the option, exit 1.
  const bad = spawnSync(process.execPath, [CLI, 'mcp', '--dir', dir, '--cache-bytes', 'lots'], { input: '', encoding: 'utf8' });
  assert.notEqual(bad.status, 0);
  assert.match(bad.stderr, /USAGE|cacheBytes must be a whole number/);
});

test('openInWorker({ cacheBytes }) packs the index in the worker, with the same answers', async () => {
  const wasm = readFileSync(new URL('../../pkg/memdex_bg.wasm', import.meta.url));
  globalThis.Worker ??= NodeWebWorker;
  const docs = corpus(800, 5);
  const local = await Memdex.open();
  local.addAll(docs);
  const remote = await defineOpenInWorker(() => new NodeWebWorker())({ wasm, name: 'cache-remote', cacheBytes: 2048 });
  try {
    await remote.addAll(docs);
    for (const q of QUERIES.slice(0, 20)) assert.deepEqual((await remote.search(q, { limit: 10 })).hits, local.search(q, { limit: 10 }).hits, q);
    const { cache } = await remote.stats();
    assert.equal(cache.limit, 2048);
    assert.ok(cache.unpacks > 0 && cache.bytes <= 2048, JSON.stringify(cache));
  } finally {
    await remote.close();
    local.free();
  }
});
