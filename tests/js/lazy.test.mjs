// `Memdex.open({ lazy: true })`: an index opened from its segment heads
// answers the 2,000 packages queries exactly as the index opened in full
// (ids, scores, stored fields, snippets), with a cache that evicts and with
// one that holds everything; opening reads a small share of the bytes; a
// storage that fails or returns damaged parts mid-search gives STORAGE /
// CORRUPT and the index answers again afterwards; options that cannot
// apply are USAGE, a missing index NOT_FOUND.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Memdex, MemdexError } from '../../pkg/node.js';
import { readJsonlGzHead } from '../../bench/js/common.mjs';
import { codeExpecter } from './support/expect-code.mjs';

const expectCode = codeExpecter(MemdexError, assert);

const here = path.dirname(fileURLToPath(import.meta.url));
const data = path.resolve(here, '../../../shared/data/packages');

/**
 * The packages corpus's first 100k documents and its 2,000 queries when
 * the shared data is here; else 20k made-up documents and queries (the
 * same checks, on data any clone has).
 */
async function corpus() {
  if (existsSync(path.join(data, 'corpus.jsonl.gz'))) {
    const docs = await readJsonlGzHead(path.join(data, 'corpus.jsonl.gz'), 100_000, (d) => ({ id: d._id, title: d.title, text: d.text }));
    const queries = readFileSync(path.join(data, 'queries.txt'), 'utf8').trim().split('\n').slice(0, 2000);
    return { docs, queries, what: '100k packages documents, 2,000 queries' };
  }
  let x = 7;
  const word = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return `w${(x >>> 0) % 30_000}`;
  };
  const words = (k) => Array.from({ length: k }, word).join(' ');
  const docs = Array.from({ length: 20_000 }, (_, i) => ({ id: `d${i}`, title: words(3), text: words(8 + (i % 40)) }));
  return { docs, queries: Array.from({ length: 2000 }, (_, i) => words(1 + (i % 3))), what: '20k made-up documents, 2,000 queries' };
}

const OPTIONS = { limit: 10, highlight: { snippetLength: 80 } };

function digest(results) {
  const h = createHash('md5');
  for (const r of results) h.update(JSON.stringify(r.hits.map((hit) => [hit.id, hit.score, hit.fields, hit.snippets])));
  return h.digest('hex');
}

function dirBytes(dir) {
  let total = 0;
  for (const e of readdirSync(dir, { recursive: true })) {
    const p = path.join(dir, String(e));
    if (statSync(p).isFile()) total += statSync(p).size;
  }
  return total;
}

test('lazy and fully loaded indexes answer the same', { timeout: 600_000 }, async (t) => {
  const { docs, queries, what } = await corpus();
  t.diagnostic(what);
  const dir = mkdtempSync(path.join(tmpdir(), 'memdex-lazy-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const writer = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  for (let i = 0; i < docs.length; i += 5000) writer.addAll(docs.slice(i, i + 5000));
  await writer.commit();
  writer.close();
  const full = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  const want = digest(queries.map((q) => full.search(q, OPTIONS)));
  const answered = queries.filter((q) => full.search(q, OPTIONS).hits.length > 0).length;
  assert.ok(answered > queries.length / 2, `${answered} queries with hits`);
  // Reads by id: every 97th document, and ids no document has.
  const ids = [...docs.filter((_, i) => i % 97 === 0).map((d) => d.id), 'no such id'];
  const wantDocs = ids.map((id) => full.get(id));
  // Completions: the first letters of queries, and a query with its last word cut.
  const prefixes = queries.slice(0, 40).flatMap((q) => [q.slice(0, 3), q.slice(0, -2)]);
  const wantSuggestions = prefixes.map((p) => full.suggest(p, 5));
  assert.ok(wantSuggestions.filter((s) => s.length > 0).length > 20);
  full.close();
  for (const cacheBytes of [256 * 1024, 1 << 30]) {
    const lazy = await Memdex.open({ storage: 'fs', dir, lazy: true, cacheBytes });
    const got = [];
    for (const q of queries) got.push(await lazy.search(q, OPTIONS));
    assert.equal(digest(got), want, `cacheBytes ${cacheBytes}`);
    for (const [i, id] of ids.entries()) assert.deepEqual(await lazy.get(id), wantDocs[i], `get(${JSON.stringify(id)})`);
    await expectCode(() => lazy.get(''), 'USAGE');
    for (const [i, p] of prefixes.entries()) assert.deepEqual(await lazy.suggest(p, 5), wantSuggestions[i], `suggest(${JSON.stringify(p)})`);
    await expectCode(() => lazy.suggest('a', { limit: -1 }), 'USAGE');
    await expectCode(() => lazy.get(ids[0], { vector: true }), 'USAGE');
    const { lazy: s, documents: n, bytes } = await lazy.stats();
    assert.ok(bytes > 0 && bytes < s.committedBytes, `${bytes} held of ${s.committedBytes}`);
    assert.equal(n, docs.length);
    assert.ok(s.fetches > 0 && s.bytes <= Math.max(s.limit, s.lastSearchBytes), JSON.stringify(s));
    if (cacheBytes === 1 << 30) assert.ok(s.hits > s.fetches, JSON.stringify(s));
    lazy.close();
  }
});

/** An fs-like adapter over a directory's files that counts reads and can fail or damage them. */
function watched(dir) {
  const state = { read: 0, fail: false, damage: false };
  const file = (key) => path.join(dir, key);
  const adapter = {
    async get(key) {
      if (state.fail) throw new Error('injected read failure');
      if (!existsSync(file(key))) return undefined;
      const bytes = new Uint8Array(readFileSync(file(key)));
      state.read += bytes.length;
      if (state.damage && key.includes('/blob/')) bytes[bytes.length >> 1] ^= 0x40;
      return bytes;
    },
    async put(key, value) {
      writeFileSync(file(key), value);
    },
    async delete() {},
    async list(prefix) {
      const keys = readdirSync(dir, { recursive: true }).map(String).filter((k) => statSync(file(k)).isFile());
      return keys.filter((k) => k.startsWith(prefix)).sort();
    },
    async swap() {
      return false;
    },
  };
  return { adapter, state };
}

test('a lazy open reads the heads only; failing and damaged parts are errors that leave it usable', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'memdex-lazy-'));
  try {
    const writer = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    const words = 'memory agent deploy friday rule cache page segment vector note meeting budget release review'.split(' ');
    writer.addAll(Array.from({ length: 6000 }, (_, i) => ({ id: `d${i}`, title: `${words[i % 14]} ${i}`, text: `${words[(i * 7) % 14]} w${i} w${i % 977} ${'x'.repeat(i % 50)}` })));
    await writer.commit();
    const want = writer.search('deploy w12', OPTIONS);
    writer.close();
    const { adapter, state } = watched(dir);
    const lazy = await Memdex.open({ storage: adapter, lazy: true });
    const total = dirBytes(dir);
    // The heads (with format 9's page dictionary, at most a sixteenth of
    // the rows) and the packed ids: under a third here, ~2 % at 1M.
    assert.ok(state.read * 3 < total, `open read ${state.read} of ${total} bytes`);
    state.fail = true;
    await expectCode(() => lazy.search('deploy w12', OPTIONS), 'STORAGE');
    state.fail = false;
    state.damage = true;
    await expectCode(() => lazy.search('deploy w12', OPTIONS), 'CORRUPT');
    state.damage = false;
    const got = await lazy.search('deploy w12', OPTIONS);
    assert.deepEqual(got.hits, want.hits);
    lazy.close();
    await expectCode(() => lazy.search('deploy', OPTIONS), 'USAGE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('options a lazy index cannot use are USAGE; a missing index is NOT_FOUND', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'memdex-lazy-'));
  try {
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: true }), 'NOT_FOUND');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: 'yes' }), 'USAGE');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: true, schema: { title: 'text' } }), 'USAGE');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: true, cacheBytes: -1 }), 'USAGE');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: true, lazyAboveBytes: 1 }), 'USAGE');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: 'auto', lazyAboveBytes: 0.5 }), 'USAGE');
    await expectCode(() => Memdex.open({ storage: 'fs', dir, lazy: 'auto', schema: { title: 'text' } }), 'USAGE');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("lazy: 'auto' opens whole at or below lazyAboveBytes (or when nothing is stored), lazily above", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'memdex-lazy-'));
  try {
    const created = await Memdex.open({ storage: 'fs', dir, lazy: 'auto' });
    assert.equal(created.lazy, undefined, 'nothing stored: an empty index, opened whole');
    created.addAll(Array.from({ length: 3000 }, (_, i) => ({ id: `d${i}`, title: `note ${i}`, text: `deploy w${i % 311} friday` })));
    await created.commit();
    const want = created.search('deploy w12', OPTIONS);
    const wantDoc = created.get('d12');
    created.close();
    const lazy = await Memdex.open({ storage: 'fs', dir, lazy: 'auto', lazyAboveBytes: 0 });
    assert.equal(lazy.lazy, true);
    assert.equal(lazy.size, 3000);
    assert.equal(lazy.generation, 1);
    assert.deepEqual((await lazy.search('deploy w12', OPTIONS)).hits, want.hits);
    assert.deepEqual(await lazy.get('d12'), wantDoc);
    const { committedBytes } = (await lazy.stats()).lazy;
    assert.ok(committedBytes > 3000 * 10 && committedBytes < dirBytes(dir), `${committedBytes} committed`);
    lazy.close();
    const at = await Memdex.open({ storage: 'fs', dir, lazy: 'auto', lazyAboveBytes: committedBytes });
    assert.equal(at.lazy, undefined, 'at the bound: whole');
    assert.deepEqual(at.search('deploy w12', OPTIONS).hits, want.hits);
    at.close();
    const above = await Memdex.open({ storage: 'fs', dir, lazy: 'auto', lazyAboveBytes: committedBytes - 1 });
    assert.equal(above.lazy, true, 'one byte above the bound: lazy');
    above.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
