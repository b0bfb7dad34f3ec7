// The explorer's sample memories (www/memories.jsonl) tell only true things
// about memdex. Two checks, in Node against the built package (pkg/):
// 1. no sample mentions a feature memdex does not have (an approximate
//    nearest-neighbour index, synonyms, lazily read segments, ...);
// 2. every sample that says something about memdex has a check below that
//    runs it against the package or reads the file it cites, so a new
//    claim cannot be added without one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { Memdex, memoryStorage } from '../../pkg/node.js';
import { SAMPLES } from './explorer-helpers.mjs';

const read = (path) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const flat = (s) => s.replace(/\s+/g, ' ');

// Words for what memdex lacks: it scans vectors exactly (no approximate
// index), computes no embeddings, knows no synonyms, and reads a committed
// index whole. (It has typo tolerance, vectors and hybrid fusion, recency,
// diversity, dedupe, token budgets and link expansion: a sample may mention
// those with a check below.)
const MISSING = [
  /\bsemantic\b/i, /\bHNSW\b/, /\bANN\b/, /approximate nearest/i, /embedding model/i, /\bsynonyms?\b/i,
  /\blazy\b|\blazily\b|on demand/i,
];

test('no sample memory mentions a feature memdex lacks', () => {
  const offending = [];
  for (const m of SAMPLES) {
    for (const re of MISSING) if (re.test(`${m.title} ${m.text}`)) offending.push(`${m.id} (${re}): ${m.title}`);
  }
  assert.deepEqual(offending, []);
});

test('sample memories are well formed: unique ids, schema fields, links to existing memories', () => {
  const ids = new Set(SAMPLES.map((m) => m.id));
  assert.equal(ids.size, SAMPLES.length);
  for (const m of SAMPLES) {
    assert.deepEqual(Object.keys(m).filter((k) => !['id', 'namespace', 'kind', 'title', 'text', 'tags', 'timestamp', 'links'].includes(k)), [], m.id);
    assert.ok(m.title && m.text && m.namespace && m.kind && Array.isArray(m.tags) && !Number.isNaN(Date.parse(m.timestamp)), m.id);
    for (const link of m.links ?? []) assert.ok(ids.has(link.to), `${m.id} links to ${link.to}`);
  }
});

/** A fresh in-memory index of `docs`. */
async function indexOf(docs) {
  const index = await Memdex.create();
  index.addAll(docs);
  return index;
}
const ids = (r) => r.hits.map((h) => h.id);

// One check per memdex claim, by sample id.
const CHECKS = {
  'mem-001': async ({ samples }) => {
    // BM25F with title weight 2 and text weight 1 in the default schema; an
    // explanation shows them scaled by the heaviest (1 and 0.5: the same ratio).
    const e = samples.search('deploy', { explain: true, limit: 5 }).hits.flatMap((h) => h.explanation);
    assert.ok(e.some((x) => x.field === 'title' && x.weight === 1));
    assert.ok(e.some((x) => x.field === 'text' && x.weight === 0.5));
  },
  'mem-002': async () => {
    // Offsets are UTF-16 code units: a highlight after an astral character lands on the word.
    const ix = await indexOf([{ id: 'u', text: '😀😀 deploy now' }]);
    assert.equal(ix.search('deploy', { highlight: true }).hits[0].snippets.text, '😀😀 <mark>deploy</mark> now');
    assert.match(flat(read('ARCHITECTURE.md')), /Offsets are UTF-16 code units/);
  },
  'mem-003': async () => {}, // a team rule about the shared machine; claims nothing about the package
  'mem-004': async () => {
    const src = read('src/wasm/mod.rs');
    assert.match(src, /#\[wasm_bindgen\]/);
    assert.match(src, /pub struct Engine/);
    await assert.rejects(async () => (await Memdex.create()).search('"x', { syntax: 'strict' }), (e) => typeof e.code === 'string');
  },
  'mem-005': async () => {
    assert.match(read('Cargo.toml'), /^wasm-bindgen = "=\d+\.\d+\.\d+"/m);
    assert.match(read('scripts/setup'), /cargo_install wasm-bindgen-cli "\$WASM_BINDGEN_VERSION"/);
  },
  'mem-006': async () => {
    assert.match(read('scripts/build-pkg'), /wasm-opt/);
    assert.match(read('scripts/build-pkg'), /-Oz/);
    assert.ok(existsSync(new URL('../../scripts/size-budget.json', import.meta.url)));
    assert.match(read('scripts/test-all'), /size-budget/);
  },
  'mem-007': async () => {
    // A delete commits a tombstone blob beside the untouched segment blob.
    const storage = memoryStorage();
    const ix = await Memdex.open({ storage, name: 't', autoCommit: false });
    ix.addAll([{ id: 'a', text: 'one' }, { id: 'b', text: 'two' }]);
    await ix.commit();
    const before = await storage.list('t/blob/');
    ix.remove('a');
    await ix.commit();
    const after = await storage.list('t/blob/');
    assert.ok(before.every((k) => after.includes(k)), 'the segment blob is kept as it was');
    assert.ok(after.some((k) => /-d-/.test(k)), 'a tombstone blob was added');
    ix.compact();
    assert.equal(ix.stats().documents, 1);
    ix.free();
  },
  'mem-008': async ({ samples }) => {
    assert.throws(() => samples.search('"open', { syntax: 'strict' }), (e) => e.name === 'MemdexError' && e.code === 'INVALID_QUERY');
  },
  'mem-009': async () => {
    const bench = read('BENCHMARKS.md');
    assert.match(bench, /\| Lunr 2\.3\.9 \| english \| 0\.385 \|/);
    assert.match(bench, /\| tantivy \(native\) 0\.27\.0 \| english-stop \| 0\.378 \|/);
  },
  'mem-010': async () => {
    assert.match(read('tests/e2e/browser.mjs'), /\/usr\/bin\/chromium/);
    assert.match(read('tests/e2e/browser.mjs'), /playwright-core/);
  },
  'mem-011': async () => {
    const entry = read('pkg-template/workerd.js');
    assert.match(entry, /import wasmModule from '\.\/memdex_bg\.wasm'/);
    assert.match(entry, /initSync/);
  },
  'mem-012': async ({ samples }) => {
    const r = samples.search('deploy', { filter: { namespace: 'user:alex' } });
    assert.deepEqual(ids(r), []);
    assert.ok(samples.search('deploy', { filter: { namespace: 'agent:coder' } }).hits.every((h) => h.namespace === 'agent:coder'));
    assert.match(read('ARCHITECTURE.md'), /search applies it\s+before top-k/);
  },
  'mem-013': async () => {
    const storage = memoryStorage();
    const ix = await Memdex.open({ storage, name: 'inc', autoCommit: false });
    ix.addAll(SAMPLES);
    const first = await ix.commit();
    ix.add({ id: 'new', title: 'one more', text: 'a single new memory' });
    const second = await ix.commit();
    assert.ok(second.bytesWritten < first.bytesWritten / 10, `${second.bytesWritten} vs ${first.bytesWritten}`);
    ix.free();
  },
  'mem-014': async () => {
    assert.match(read('docs/FORMAT.md'), /`MAX_CHUNK_BYTES` = 4 MiB/);
  },
  'mem-015': async () => {
    const ix = await indexOf([{ id: 'c', text: 'call getUserById first' }, { id: 'd', text: 'nothing here' }]);
    assert.deepEqual(ids(ix.search('user id', { mode: 'and' })), ['c']);
    assert.deepEqual(ids(ix.search('getuserbyid')), ['c']);
  },
  'mem-023': async () => {
    assert.match(read('pkg-template/node.js'), /readFile\(new URL\('\.\/memdex_bg\.wasm'/);
  },
  'mem-026': async () => {
    const ix = await indexOf([{ id: 'e', text: 'x', timestamp: 1767225600000 }, { id: 'i', text: 'x', timestamp: '2025-06-01T00:00:00Z' }]);
    assert.deepEqual(ids(ix.search('', { filter: { timestamp: { gte: '2026-01-01T00:00:00Z' } } })), ['e']);
    assert.deepEqual(ids(ix.search('', { filter: { timestamp: { lt: 1767225600000 } } })), ['i']);
    assert.equal(ix.get('e').timestamp, 1767225600000, 'returned as given');
  },
  'mem-047': async () => {
    assert.match(flat(read('ARCHITECTURE.md')), /front-coded in blocks of 16/);
    const ix = await indexOf([{ id: 'f', text: 'deploy' }]);
    assert.deepEqual(ids(ix.search('depl*')), ['f']);
    assert.deepEqual(ids(ix.search('deplou~1')), ['f']);
  },
  'mem-048': async () => {
    const dts = read('pkg-template/index.d.ts');
    assert.match(dts, /BM25 term-frequency saturation \(default 1\.2\)/);
    assert.match(dts, /BM25 length normalisation, 0\.\.1 \(default 0\.75\)/);
    assert.match(dts, /Per-query BM25 k1 override/);
  },
  'mem-051': async ({ samples }) => {
    assert.ok(samples.search('deploying').hits.every((h) => h.matchedTerms.includes('deploy')));
  },
  'mem-052': async ({ samples }) => {
    const s = samples.suggest('dep');
    assert.ok(s.length > 0 && s.every((x) => x.suggestion.startsWith('dep') && x.score > 0));
    for (let i = 1; i < s.length; i++) assert.ok(s[i - 1].score >= s[i].score);
  },
  'mem-056': async () => {
    assert.match(read('worker/src/writer.js'), /extends DurableObject/);
  },
  'mem-059': async () => {
    const routes = read('worker/src/routes.js');
    assert.match(routes, /path: '\/v1\/ns\/:ns\/docs'/);
    assert.match(routes, /path: '\/mcp'/);
  },
  'mem-060': async () => {
    const ix = await indexOf([{ id: 'a', text: 'we deploy daily' }, { id: 'b', text: 'the deployment failed' }]);
    assert.deepEqual(ids(ix.search('deploying')).sort(), ['a', 'b']);
  },
  'mem-061': async ({ samples }) => {
    assert.equal(samples.search('deploy friday', { mode: 'fallback' }).mode, 'and');
    assert.equal(samples.search('deploy zanzibar', { mode: 'fallback' }).mode, 'or');
  },
  'mem-062': async ({ samples }) => {
    const copy = await Memdex.import(samples.export());
    assert.equal(copy.size, samples.size);
    assert.deepEqual(ids(copy.search('offsite porto')), ids(samples.search('offsite porto')));
    copy.free();
  },
  'mem-063': async () => {
    assert.match(read('pkg-template/storage/locks.js'), /navigator\??\.locks/);
    assert.match(read('docs/FORMAT.md'), /Web Locks/);
  },
  'mem-064': async () => {
    assert.match(read('pkg-template/index.js'), /static openInWorker = defineOpenInWorker\(\s*\(\) => new Worker\(/);
    assert.match(read('pkg-template/index.js'), /type: 'module'/);
  },
  'mem-065': async ({ samples }) => {
    const r = samples.search('', { filter: { namespace: 'user:alex' }, sort: { field: 'timestamp', order: 'desc' }, limit: 20 });
    const times = r.hits.map((h) => h.fields.timestamp);
    assert.ok(times.length > 1);
    assert.deepEqual(times, [...times].sort().reverse());
  },
  'mem-066': async ({ samples }) => {
    assert.doesNotThrow(() => samples.search('"unclosed (quote AND'));
    assert.throws(() => samples.search('"unclosed', { syntax: 'strict' }), /position 0/);
  },
};

test('every sample that speaks about memdex is checked against the package, and each check passes', async () => {
  const aboutMemdex = SAMPLES.filter((m) => m.namespace === 'repo:memdex/main' || /memdex/i.test(`${m.title} ${m.text}`));
  const unchecked = aboutMemdex.filter((m) => !CHECKS[m.id]).map((m) => `${m.id}: ${m.title}`);
  assert.deepEqual(unchecked, [], 'add a check for each of these');
  const samples = await indexOf(SAMPLES);
  try {
    for (const [id, check] of Object.entries(CHECKS)) {
      assert.ok(SAMPLES.some((m) => m.id === id), `${id} is a sample`);
      await check({ samples }).catch((err) => {
        err.message = `${id} (${SAMPLES.find((m) => m.id === id).title}): ${err.message}`;
        throw err;
      });
    }
  } finally {
    samples.free();
  }
});
