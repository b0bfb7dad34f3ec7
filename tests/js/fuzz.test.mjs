// Random use of the public API from the built package: documents, queries
// and options drawn from valid values, wrong types and hostile strings,
// interleaved with removes, compaction, export and import of damaged
// snapshots. Every failure must be a MemdexError with a code other than
// INTERNAL (a wasm trap), and the index must keep working afterwards.
// Seeds are fixed, so a failure reproduces; MEMDEX_FUZZ_OPS scales the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { Memdex, MemdexError } from '../../pkg/node.js';

const OPS = Number(process.env.MEMDEX_FUZZ_OPS ?? 40_000);

/** mulberry32: a small, well-mixed 32-bit PRNG. */
function rng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n) => Math.floor(next() * n);
  return { int, pick: (xs) => xs[int(xs.length)] };
}

const PIECES = [
  'deploy', 'rule', 'database', 'é', 'ß', 'İ', 'ﬁ', '日本語', '😀', ' ', '"', '(', ')', '*', '~', '~2', '^', '^3', '+', '-',
  ':', 'AND', 'OR', 'NOT', '\\', '\u0000', '\uD800', 'e\u0301', 'title:', 'text:', 'kind:', '0', '9.5', '.', '\n', '<b>',
  '&amp;', '\t',
];
const ODD = [undefined, null, 0, -1, 1.5, NaN, Infinity, 1e9, '', 'x', true, false, [], {}, ['a', 1], { gte: 1 }, { lt: 'x' }];
const OPTION_KEYS = ['mode', 'syntax', 'limit', 'offset', 'minHits', 'fields', 'filter', 'prefix', 'fuzzy', 'highlight',
  'explain', 'k1', 'b', 'storedFields', 'bogus'];
const GOOD_OPTION = {
  mode: ['or', 'and', 'fallback'], syntax: ['lenient', 'strict'], limit: [0, 1, 10, 100], offset: [0, 3], minHits: [1, 5],
  fields: [{ title: 2 }, { text: 1, title: 0 }, { nope: 1 }], filter: [{ kind: 'rule' }, { score: { gte: 3 } },
    { namespace: ['a', 'b'] }, { pinned: true }, { at: { gte: '2024-01-01' } }, { nope: 1 }],
  prefix: [true, false], fuzzy: [0, 1, 2], highlight: [true, { preTag: '[', postTag: ']', snippetLength: 40 }],
  explain: [true, false], k1: [0, 1.2, 3], b: [0, 0.75, 1], storedFields: [true, false, ['title'], ['nope']], bogus: [1],
};
const SCHEMA = {
  title: { type: 'text', weight: 2 }, text: { type: 'text' }, kind: { type: 'keyword' }, score: { type: 'number' },
  at: { type: 'date' }, pinned: { type: 'boolean' },
};

for (const seed of [1, 2026]) {
  test(`fuzz seed ${seed}: ${OPS} random API calls never crash and leave a working index`, async () => {
    const { int, pick } = rng(seed);
    const text = (n) => Array.from({ length: int(n) }, () => pick(PIECES)).join(int(2) ? ' ' : '');
    const doc = () => {
      const d = { id: int(10) ? `d${int(300)}` : pick([...ODD, text(4)]) };
      const good = {
        title: () => text(12), text: () => text(40), kind: () => pick(['rule', 'note', text(3)]), score: () => int(100),
        at: () => pick(['2024-01-05', 1_700_000_000_000, 'not a date']), pinned: () => int(2) === 1,
        namespace: () => pick(['a', 'b', 'agent:x']), other: () => 'undeclared',
      };
      for (const [key, make] of Object.entries(good)) {
        if (key === 'other' ? int(30) === 0 : int(3) > 0) d[key] = int(15) ? make() : pick(ODD);
      }
      return d;
    };
    const options = () => {
      if (int(20) === 0) return pick(ODD);
      const o = {};
      for (let n = int(4); n > 0; n--) {
        const key = pick(OPTION_KEYS);
        o[key] = int(5) ? pick(GOOD_OPTION[key]) : pick(ODD);
      }
      return o;
    };

    const index = await Memdex.open({ storage: 'memory', schema: SCHEMA });
    const codes = {};
    const unexpected = [];
    const expectMemdexError = (err, what) => {
      if (err instanceof MemdexError && err.code !== 'INTERNAL') codes[err.code] = (codes[err.code] ?? 0) + 1;
      else unexpected.push(`${what}: ${err?.name} ${err?.code ?? ''} ${String(err?.message).slice(0, 200)}`);
    };
    let hits = 0;
    for (let i = 0; i < OPS && unexpected.length < 5; i++) {
      const op = int(20);
      try {
        if (op < 7) index.add(doc());
        else if (op < 8) index.addAll(Array.from({ length: int(6) }, doc));
        else if (op < 15) hits += index.search(int(8) ? text(12) : pick(ODD), options()).hits.length;
        else if (op < 16) index.remove(int(10) ? `d${int(300)}` : pick(ODD));
        else if (op < 17) index.get(int(10) ? `d${int(300)}` : pick(ODD));
        else if (op < 18) index.suggest(int(10) ? text(2) : pick(ODD), pick([undefined, { limit: 5 }, { limit: -1 }]));
        else if (op < 19) index.count(pick([undefined, { kind: 'rule' }, { score: { lt: 50 } }, ...ODD]));
        else if (int(40) === 0) index.removeWhere(pick([{ kind: 'note' }, { namespace: 'b' }, ...ODD]));
        else if (int(10) === 0) await index.compact();
        // eslint-disable-next-line no-dupe-else-if -- int() draws anew each time
        else if (int(10) === 0) {
          const bytes = await index.export();
          const damaged = bytes.slice(0, int(2) ? bytes.length : int(bytes.length));
          if (damaged.length === bytes.length) damaged[int(damaged.length)] ^= 1 << int(8);
          try {
            const copy = await Memdex.import(damaged);
            unexpected.push(`import of a damaged snapshot succeeded (${damaged.length} of ${bytes.length} bytes)`);
            await copy.close();
          } catch (err) {
            expectMemdexError(err, 'import');
          }
        }
      } catch (err) {
        expectMemdexError(err, `op ${op}`);
      }
    }
    assert.deepEqual(unexpected, []);
    // Every kind of rejection was exercised, and plenty of searches matched.
    for (const code of ['SCHEMA', 'USAGE', 'INVALID_QUERY', 'CORRUPT']) assert.ok(codes[code] > 0, `${code}: ${JSON.stringify(codes)}`);
    assert.ok(hits > OPS / 20, `hits ${hits}`);
    // Still consistent: what count says is what search finds, and a new
    // document is searchable.
    const n = index.count();
    assert.equal(index.search('', { limit: 1 }).hits.length, 0);
    assert.equal(index.stats().documents, n);
    index.add({ id: 'final', text: 'still usable afterwards' });
    assert.deepEqual(index.search('usable', { mode: 'and' }).hits.map((h) => h.id), ['final']);
    const copy = await Memdex.import(await index.export());
    assert.equal(copy.count(), n + 1);
    await copy.close();
    await index.close();
  });
}
