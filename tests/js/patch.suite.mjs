// `patch(id, changes)` and `get(id, { vectors: true })` through the public
// JS API, written once and run
// - in Node (tests/js/patch.test.mjs) with memory and filesystem storage,
// - in headless Chromium (tests/e2e/patch.test.mjs) with memory and real
//   IndexedDB storage (a patched document is committed and read back by a
//   fresh open).
// Uses only `assert.equal / deepEqual / ok / match` (the browser brings its own).
//
// definePatchSuite({ Memdex, MemdexError, makeStorage, test, assert, label })

import { codeExpecter } from './support/expect-code.mjs';

const SCHEMA = {
  priority: 'number',
  emb: { type: 'vector', dimensions: 3 }, // cosine
  raw: { type: 'vector', dimensions: 2, metric: 'dot' },
};

const DOCS = [
  {
    id: 'p1',
    namespace: 'agent',
    title: 'Deploy rule',
    text: 'Deploys on Fridays are fine',
    kind: 'rule',
    tags: ['ops', 'deploy'],
    priority: 2,
    timestamp: '2026-01-10T09:00:00Z',
    links: [{ type: 'RELATES_TO', to: 'p2' }],
    emb: new Float32Array([3, 4, 0]),
    raw: [0.5, -2],
  },
  { id: 'p2', title: 'Release train', text: 'Releases leave every Tuesday', kind: 'note', emb: [0, 0, 1] },
  { id: 'p3', title: 'No vector', text: 'Lunch is at noon', kind: 'note' },
];

export function definePatchSuite({ Memdex, MemdexError, makeStorage, test, assert, label = '' }) {
  const t = (name, fn) => test(`${label}${label ? ': ' : ''}patch: ${name}`, fn);
  const open = (storage = makeStorage()) => Memdex.open({ name: 'patch', storage, autoCommit: false, schema: SCHEMA });
  const fresh = async () => {
    const index = await open();
    index.addAll(DOCS);
    return index;
  };
  const close = (a, b, eps = 1e-6) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) <= eps);
  const ids = (results) => results.hits.map((h) => h.id);

  const expectCode = codeExpecter(MemdexError, assert);

  t('get(id, { vectors: true }) adds the vectors: unit length on cosine fields, as given on dot fields', async () => {
    const index = await fresh();
    const plain = index.get('p1');
    assert.equal(plain.emb, undefined, 'vectors are not stored fields');
    assert.equal(plain.raw, undefined);
    const full = index.get('p1', { vectors: true });
    assert.ok(Array.isArray(full.emb) && close(full.emb, [0.6, 0.8, 0]), JSON.stringify(full.emb));
    assert.deepEqual(full.raw, [0.5, -2]);
    const { emb: _e, raw: _r, ...rest } = full;
    assert.deepEqual(rest, plain);
    assert.deepEqual(index.get('p3', { vectors: true }), index.get('p3'), 'no vector, no field');
    assert.equal(index.get('nope', { vectors: true }), undefined);
    assert.deepEqual(index.get('p1', { vectors: false }), plain);
    await expectCode(() => index.get('p1', { vector: true }), 'USAGE', /unknown option `vector`/);
    await expectCode(() => index.get('p1', { vectors: 'yes' }), 'USAGE', /boolean/);
    await expectCode(() => index.get('p1', 'vectors'), 'USAGE');
    // Flushed into a segment (search flushes), the same.
    index.search('deploy');
    assert.ok(close(index.get('p1', { vectors: true }).emb, [0.6, 0.8, 0]));
    await index.close();
  });

  t('changes the given fields and keeps every other field, the vectors and the links', async () => {
    const index = await fresh();
    const before = index.get('p1', { vectors: true });
    const vectorScore = index.search('', { vector: [3, 4, 0], vectorField: 'emb', limit: 1 }).hits[0];
    assert.equal(vectorScore.id, 'p1');
    index.patch('p1', { text: 'Never deploy on Fridays', priority: 5 });
    const after = index.get('p1', { vectors: true });
    assert.deepEqual(after, { ...before, text: 'Never deploy on Fridays', priority: 5 });
    // Searched by its new words, not its old ones; still found by vector, with the same score.
    assert.deepEqual(ids(index.search('never fridays', { mode: 'and' })), ['p1']);
    assert.deepEqual(ids(index.search('fine', { mode: 'and' })), []);
    const hit = index.search('', { vector: [3, 4, 0], vectorField: 'emb', limit: 1 }).hits[0];
    assert.equal(hit.id, 'p1');
    assert.ok(Math.abs(hit.score - vectorScore.score) < 1e-6, `${hit.score} vs ${vectorScore.score}`);
    assert.deepEqual(ids(index.search('', { vector: [0.5, -2], vectorField: 'raw' })), ['p1']);
    // Its links are still followed.
    assert.deepEqual(index.related('p1').map((h) => h.id), ['p2']);
    assert.deepEqual(index.search('', { filter: { namespace: 'agent', priority: 5 } }).hits.map((h) => h.id), ['p1']);
    assert.equal(index.size, DOCS.length, 'an upsert: no document more');
    await index.close();
  });

  t('null removes a field, undefined keeps it, a new vector replaces the old one', async () => {
    const index = await fresh();
    index.patch('p1', { tags: null, kind: undefined, emb: new Float32Array([0, 0, 2]), links: [{ type: 'SUPERSEDES', to: 'p3' }] });
    const doc = index.get('p1', { vectors: true });
    assert.equal(doc.tags, undefined);
    assert.equal(doc.kind, 'rule');
    assert.deepEqual(doc.emb, [0, 0, 1]);
    assert.deepEqual(doc.raw, [0.5, -2]);
    assert.deepEqual(doc.links, [{ to: 'p3', type: 'SUPERSEDES' }]);
    assert.equal(index.count({ tags: 'ops' }), 0);
    assert.deepEqual(index.related('p1').map((h) => h.id), ['p3']);
    // Removing the vector takes the document out of vector search only.
    index.patch('p1', { emb: null, namespace: null });
    assert.equal(index.get('p1', { vectors: true }).emb, undefined);
    assert.equal(index.get('p1').namespace, undefined);
    assert.ok(!ids(index.search('', { vector: [0, 0, 1], vectorField: 'emb' })).includes('p1'));
    assert.deepEqual(ids(index.search('deploy rule', { mode: 'and' })), ['p1']);
    // An id equal to the document's own is accepted (a spread of get).
    index.patch('p2', { ...index.get('p2', { vectors: true }), kind: 'rule' });
    assert.equal(index.get('p2').kind, 'rule');
    await index.close();
  });

  t('NOT_FOUND for an unknown id; USAGE for bad changes; a rejected patch changes nothing', async () => {
    const index = await fresh();
    const err = await expectCode(() => index.patch('nope', { text: 'x' }), 'NOT_FOUND', /"nope"/);
    assert.equal(err.data.id, 'nope');
    assert.equal(index.get('nope'), undefined, 'patch never creates');
    await expectCode(() => index.patch('p1', null), 'USAGE', /changes must be an object/);
    await expectCode(() => index.patch('p1', ['text']), 'USAGE');
    await expectCode(() => index.patch('p1', { id: 'p9', text: 'x' }), 'USAGE', /cannot change a document's id/);
    await expectCode(() => index.patch('', { text: 'x' }), 'USAGE');
    const before = index.get('p1', { vectors: true });
    const generationDirty = index.dirty;
    await expectCode(() => index.patch('p1', { text: 'ok', priority: 'high' }), 'SCHEMA', /priority/);
    await expectCode(() => index.patch('p1', { text: 'ok', emb: [1, 2] }), 'SCHEMA', /emb/);
    await expectCode(() => index.patch('p1', { text: 'ok', colour: 'blue' }), 'SCHEMA', /colour/);
    assert.deepEqual(index.get('p1', { vectors: true }), before, 'nothing of a rejected patch is written');
    assert.equal(index.dirty, generationDirty);
    await index.close();
  });

  t('a stored document added back as get returns it keeps its vectors (round trip)', async () => {
    const index = await fresh();
    const scores = index.search('', { vector: [1, 1, 1], vectorField: 'emb' }).hits.map((h) => [h.id, h.score]);
    for (const id of ['p1', 'p2', 'p3']) index.add({ ...index.get(id, { vectors: true }), title: `${id} again` });
    const again = index.search('', { vector: [1, 1, 1], vectorField: 'emb' }).hits.map((h) => [h.id, h.score]);
    assert.equal(again.length, scores.length);
    for (let i = 0; i < scores.length; i++) {
      assert.equal(again[i][0], scores[i][0]);
      assert.ok(Math.abs(again[i][1] - scores[i][1]) < 1e-6);
    }
    await index.close();
  });

  t('patched vectors and links persist: commit, then a fresh open reads them back', async () => {
    const storage = makeStorage();
    const a = await open(storage);
    a.addAll(DOCS);
    await a.commit();
    a.patch('p1', { text: 'Never deploy on Fridays' }); // a document of a committed segment
    a.add({ id: 'p4', text: 'buffered one', emb: [1, 0, 0] });
    a.patch('p4', { kind: 'note' }); // a document still in the write buffer
    await a.commit();
    await a.close();
    const b = await open(storage);
    const p1 = b.get('p1', { vectors: true });
    assert.equal(p1.text, 'Never deploy on Fridays');
    assert.ok(close(p1.emb, [0.6, 0.8, 0]));
    assert.deepEqual(p1.raw, [0.5, -2]);
    assert.deepEqual(p1.links, [{ to: 'p2', type: 'RELATES_TO' }]);
    assert.deepEqual(p1.tags, ['ops', 'deploy']);
    assert.deepEqual(b.get('p4', { vectors: true }), { id: 'p4', kind: 'note', text: 'buffered one', emb: [1, 0, 0] });
    assert.deepEqual(ids(b.search('', { vector: [1, 0, 0], vectorField: 'emb', limit: 1 })), ['p4']);
    b.compact();
    assert.ok(close(b.get('p1', { vectors: true }).emb, [0.6, 0.8, 0]), 'after a full merge');
    await b.close();
  });
}
