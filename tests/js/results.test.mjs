// Engine.search builds its result objects from a string of pieces and a
// length table (src/wasm/results.rs) instead of JSON.parse; they must equal
// JSON.parse of the serde output (Engine.searchJson), keys in the same order,
// for every kind of hit: namespaces or none, stored fields, snippets,
// explanations, non-ASCII and non-BMP text, escapes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import init, { Engine } from '../../pkg/memdex.js';

await init({ module_or_path: readFileSync(new URL('../../pkg/memdex_bg.wasm', import.meta.url)) });

const memories = readFileSync(new URL('../../www/memories.jsonl', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim());
const extra = [
  { id: 'ü-😀-1', namespace: 'ns-日本', title: 'Grüße 😀 emoji ranking', text: 'A "quoted" \\ back\nslash\ttab line about ranking' },
  { id: 'plain-2', title: 'No namespace here', text: 'ranking without a namespace, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 text' },
  { id: 'q"uote\\3', namespace: 'n"s', title: '<b>tags</b> & ranking', text: 'html <i>escapes</i> & more' },
].map((d) => JSON.stringify(d));

function engine() {
  const e = new Engine(undefined);
  e.addJsonLines([...memories, ...extra].join('\n'));
  e.flush();
  return e;
}

const queries = ['bm25 ranking', 'utf-16 offsets', 'grüße', '😀', 'emoji quoted', 'cargo clean', 'zzzz nothing', 'wasm OR bindgen', '"shared ci"', 'rank*', 'tags escapes', 'unicode'];
const options = [
  undefined,
  { storedFields: false },
  { storedFields: ['title'] },
  { mode: 'and' },
  { mode: 'fallback' },
  { highlight: {} },
  { highlight: { preTag: '[', postTag: ']' }, storedFields: false },
  { explain: true },
  { limit: 1, offset: 1 },
  { fields: { title: 2 } },
  { prefix: true, fuzzy: 1, limit: 50 },
  { proximity: true },
  { strategy: 'auto' },
];

test('search() objects equal JSON.parse(searchJson()), keys in order', () => {
  const e = engine();
  const seen = { hits: 0, namespace: 0, noNamespace: 0, snippets: 0, explanation: 0, nonBmp: 0, fields: 0 };
  for (const q of queries) {
    for (const o of options) {
      const fast = e.search(q, o);
      const parsed = JSON.parse(e.searchJson(q, o));
      // Same values and the same key order.
      assert.equal(JSON.stringify(fast), JSON.stringify(parsed), `${q} ${JSON.stringify(o)}`);
      assert.deepStrictEqual(fast, parsed);
      for (const h of fast.hits) {
        seen.hits++;
        if ('namespace' in h) seen.namespace++;
        else seen.noNamespace++;
        if (h.snippets) seen.snippets++;
        if (h.explanation) seen.explanation++;
        if (/[\u{10000}-\u{10ffff}]/u.test(JSON.stringify(h))) seen.nonBmp++;
        if (Object.keys(h.fields).length) seen.fields++;
      }
    }
  }
  // The comparison above only means something if every kind of hit occurred.
  for (const [kind, n] of Object.entries(seen)) assert.ok(n > 0, `no hit with ${kind}`);
});

test('scores keep their JSON spelling', () => {
  const e = engine();
  const { hits } = e.search('ranking', { limit: 20 });
  assert.ok(hits.length > 3);
  const parsed = JSON.parse(e.searchJson('ranking', { limit: 20 })).hits;
  for (let i = 0; i < hits.length; i++) {
    assert.equal(typeof hits[i].score, 'number');
    assert.ok(Object.is(hits[i].score, parsed[i].score), `${hits[i].score} vs ${parsed[i].score}`);
  }
});

// The engine keeps the last options by their JSON text and reads them again
// only when the text changes: every answer must equal a fresh engine's, in
// any order of calls, and invalid options must fail every time.
test('search options: changing, repeating and invalid options in any order', () => {
  const cached = engine();
  const fresh = () => engine();
  const sequence = [...options, ...options.slice().reverse(), options[3], options[3], undefined, options[3]];
  for (const o of sequence) {
    for (const q of ['bm25 ranking', 'wasm OR bindgen']) {
      assert.equal(cached.searchJson(q, o), fresh().searchJson(q, o), `${q} ${JSON.stringify(o)}`);
    }
  }
  // A mutated object is new text, so it is read again.
  const o = { limit: 2 };
  assert.equal(cached.search('ranking', o).hits.length, 2);
  o.limit = 3;
  assert.equal(cached.search('ranking', o).hits.length, 3);
  // Invalid options (USAGE: the engine is the one validator of their shape)
  // fail on every call, also right after valid ones and when
  // repeated, and do not disturb the next valid call.
  for (let i = 0; i < 2; i++) {
    assert.throws(() => cached.search('ranking', { limt: 2 }), (e) => e.code === 'USAGE' && /limt/.test(e.message));
  }
  assert.equal(cached.search('ranking', o).hits.length, 3);
  assert.throws(() => cached.search('ranking', { mode: 'sideways' }), (e) => e.code === 'USAGE');
  assert.equal(cached.search('ranking', { limit: 2 }).hits.length, 2);
});
