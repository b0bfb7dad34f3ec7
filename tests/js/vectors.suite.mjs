// Vector fields and hybrid search through the public JS API, written once
// and run
// - in Node (tests/js/vectors.test.mjs) with memory and filesystem storage,
// - in headless Chromium (tests/e2e/vectors.test.mjs) with memory and real
//   IndexedDB storage (vectors persist in IndexedDB).
// Uses only `assert.equal / deepEqual / ok` (the browser brings its own).
//
// defineVectorSuite({ Memdex, MemdexError, makeStorage, test, assert, label })

import { codeExpecter } from './support/expect-code.mjs';

const SCHEMA = {
  title: { type: 'text', weight: 2 },
  text: { type: 'text' },
  kind: { type: 'keyword' },
  emb: { type: 'vector', dimensions: 4, metric: 'cosine' },
};

/** Memories with 4-dimension embeddings: "v1" and "v2" point along x. */
export const VECTOR_MEMORIES = [
  { id: 'k1', kind: 'rule', title: 'Never deploy on Fridays', text: 'Deployments are frozen on Friday.', emb: new Float32Array([0, 1, 0, 0]) },
  { id: 'k2', kind: 'note', title: 'Friday deploy checklist', text: 'Run the smoke tests before a deploy.', emb: [0, 0, 1, 0] },
  { id: 'v1', kind: 'note', title: 'Release freeze', text: 'No releases at the end of the week.', emb: new Float32Array([1, 0.1, 0, 0]) },
  { id: 'v2', kind: 'rule', title: 'Weekend calm', text: 'Production stays untouched on weekends.', emb: [0.9, 0.3, 0, 0] },
  { id: 'n1', kind: 'note', title: 'Deploy notes', text: 'Deploy logs are kept for a month.' },
];

export function defineVectorSuite({ Memdex, MemdexError, makeStorage, test, assert, label = '' }) {
  const t = (name, fn) => test(`${label}${label ? ': ' : ''}vectors: ${name}`, fn);
  const open = (storage = makeStorage(), extra = {}) =>
    Memdex.open({ name: 'vec', storage, autoCommit: false, schema: SCHEMA, ...extra });
  const x = new Float32Array([1, 0, 0, 0]);

  const expectCode = codeExpecter(MemdexError, assert);

  t('pure vector search ranks by cosine and reports hit.vector', async () => {
    const index = await open();
    index.addAll(VECTOR_MEMORIES);
    const res = index.search('', { vector: x });
    assert.deepEqual(res.hits.map((h) => h.id), ['v1', 'v2', 'k1', 'k2']);
    assert.deepEqual(res.hits[0].vector, { rank: 1, score: res.hits[0].score });
    assert.equal(res.hits[0].lexical, undefined);
    assert.ok(Math.abs(res.hits[0].score - 1 / Math.sqrt(1.01)) < 1e-6);
    // A plain number array works too; the filter applies before ranking.
    const rules = index.search('', { vector: [1, 0, 0, 0], filter: { kind: 'rule' } });
    assert.deepEqual(rules.hits.map((h) => h.id), ['v2', 'k1']);
    await index.close();
  });

  t('hybrid search keeps keyword-only and vector-only hits', async () => {
    const index = await open();
    index.addAll(VECTOR_MEMORIES);
    for (const method of ['zscore', 'weighted', 'rrf']) {
      const res = index.search('deploy friday', { vector: x, hybrid: { method }, limit: 10 });
      const by = Object.fromEntries(res.hits.map((h) => [h.id, h]));
      assert.deepEqual(Object.keys(by).sort(), ['k1', 'k2', 'n1', 'v1', 'v2'], method);
      assert.ok(by.n1.lexical && !by.n1.vector, 'n1 is keyword-only');
      assert.ok(by.v1.vector && !by.v1.lexical, 'v1 is vector-only');
      assert.equal(by.v1.vector.rank, 1);
      assert.ok(by.k1.lexical && by.k1.vector, 'k1 is in both lists');
      assert.deepEqual(by.v1.matchedTerms, []);
      for (let i = 1; i < res.hits.length; i++) assert.ok(res.hits[i - 1].score >= res.hits[i].score);
    }
    const rrf = index.search('deploy friday', { vector: x, hybrid: { method: 'rrf' } });
    const v1 = rrf.hits.find((h) => h.id === 'v1');
    assert.ok(Math.abs(v1.score - 1 / 61) < 1e-8, `RRF score 1/61, got ${v1.score}`);
    // Without `hybrid`: z-score fusion with alpha 0.5.
    const hits = (hybrid) => index.search('deploy friday', { vector: x, hybrid }).hits.map((h) => [h.id, h.score]);
    assert.deepEqual(hits(undefined), hits({ method: 'zscore', alpha: 0.5 }));
    assert.ok(JSON.stringify(hits(undefined)) !== JSON.stringify(hits({ method: 'rrf' })), 'the default is not RRF');
    await index.close();
  });

  t('bad vectors are SCHEMA errors naming the field and the document', async () => {
    const index = await open();
    await expectCode(() => index.add({ id: 'bad-1', title: 't', emb: [1, 2] }), 'SCHEMA', ['emb', 'bad-1', '4']);
    await expectCode(() => index.add({ id: 'bad-2', title: 't', emb: 'nope' }), 'SCHEMA', ['emb', 'bad-2']);
    await expectCode(() => index.add({ id: 'bad-3', title: 't', emb: new Float32Array([NaN, 0, 0, 1]) }), 'SCHEMA', ['emb']);
    await expectCode(() => index.add({ id: 'bad-4', title: 't', emb: [0, 0, 0, 0] }), 'SCHEMA', ['emb', 'bad-4', 'zeros']);
    index.add(VECTOR_MEMORIES[0]);
    await expectCode(() => index.search('', { vector: [1, 0] }), 'USAGE', ['vector', '4 dimensions']);
    await expectCode(() => index.search('x', { hybrid: {} }), 'USAGE', ['hybrid']);
    await expectCode(() => index.search('x', { vector: x, hybrid: { alpha: 3 } }), 'USAGE', ['hybrid.alpha']);
    await expectCode(() => Memdex.open({ storage: makeStorage(), schema: { t: { type: 'text' }, e: { type: 'vector' } } }), 'SCHEMA', ['dimensions']);
    await index.close();
  });

  t('vectors persist across commit and reopen, deletes included', async () => {
    const storage = makeStorage();
    const a = await open(storage);
    a.addAll(VECTOR_MEMORIES);
    await a.commit();
    a.remove('v1');
    a.add({ id: 'v3', title: 'Late addition', text: 'added after the first commit', emb: [1, 0, 0, 0] });
    await a.commit();
    const want = a.search('', { vector: x }).hits.map((h) => [h.id, h.score]);
    await a.close();
    const b = await Memdex.open({ name: 'vec', storage, autoCommit: false });
    const got = b.search('', { vector: x }).hits.map((h) => [h.id, h.score]);
    assert.deepEqual(got, want);
    assert.equal(got[0][0], 'v3');
    assert.ok(!got.some((g) => g[0] === 'v1'), 'deleted');
    // A merge of everything keeps them.
    b.compact();
    assert.deepEqual(b.search('', { vector: x }).hits.map((h) => [h.id, h.score]), want);
    // get() does not return the vector (it is not stored JSON).
    assert.equal(b.get('v3').emb, undefined);
    await b.close();
  });
}
