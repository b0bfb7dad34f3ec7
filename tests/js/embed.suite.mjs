// `Memdex.open({ embed })` through the public JS API, written once and run
// - in Node (tests/js/embed.test.mjs) with memory and filesystem storage,
// - in headless Chromium (tests/e2e/embed.test.mjs) with memory and real
//   IndexedDB storage.
// The embedder is a deterministic stand-in (conceptEmbedder): words map to
// concepts, so "automobile" is near a memory about a "car" although no
// memory holds the word: what a real model does, and what the word search
// alone cannot find.
// Uses only `assert.equal / deepEqual / ok / match` (the browser brings its own).
//
// defineEmbedSuite({ Memdex, MemdexError, makeStorage, test, assert, label })

import { codeExpecter } from './support/expect-code.mjs';

/** Concepts of the stand-in model: each is one dimension of its vectors. */
const CONCEPTS = [
  ['car', 'automobile', 'vehicle', 'driving', 'drive'],
  ['lunch', 'meal', 'food', 'eat', 'noon'],
  ['deploy', 'release', 'ship', 'shipping', 'rollout'],
  ['friday', 'weekend', 'saturday'],
  ['database', 'postgres', 'sql', 'query'],
  ['cat', 'kitten', 'pet', 'dog'],
];

/** One vector (6 numbers, plus a constant so none is all zeros) per text. */
export function conceptVectors(texts) {
  return texts.map((text) => {
    const v = new Array(CONCEPTS.length + 1).fill(0);
    v[CONCEPTS.length] = 0.05;
    for (const word of text.toLowerCase().split(/[^a-z]+/)) {
      CONCEPTS.forEach((words, i) => {
        if (words.includes(word)) v[i] += 1;
      });
    }
    return v;
  });
}

export const DIMENSIONS = CONCEPTS.length + 1;

/**
 * A stand-in embedder that records its calls (`calls`: the batch sizes).
 * `fail` makes the next calls answer badly: 'throw', 'count', 'dims', 'nan'.
 */
export function conceptEmbedder() {
  const spy = {
    calls: [],
    fail: null,
    async embed(texts) {
      spy.calls.push(texts.length);
      await new Promise((resolve) => setTimeout(resolve, 1));
      if (spy.fail === 'throw') throw new Error('model offline');
      const vectors = conceptVectors(texts);
      if (spy.fail === 'count') return vectors.slice(1);
      if (spy.fail === 'dims') return vectors.map((v) => v.slice(1));
      if (spy.fail === 'nan') return vectors.map((v, i) => (i === vectors.length - 1 ? [...v.slice(1), NaN] : v));
      return vectors;
    },
  };
  return spy;
}

const SCHEMA = { emb: { type: 'vector', dimensions: DIMENSIONS } };

export const MEMORIES = [
  { id: 'm1', title: 'Commute', text: 'I drive the car to the office' },
  { id: 'm2', title: 'Lunch', text: 'Lunch is at noon in the canteen' },
  { id: 'm3', title: 'Deploy rule', text: 'Never deploy on Fridays' },
  { id: 'm4', title: 'Database', text: 'Postgres holds the orders' },
  { id: 'm5', title: 'Home', text: 'The kitten sleeps all day' },
];

export function defineEmbedSuite({ Memdex, MemdexError, makeStorage, test, assert, label = '' }) {
  const t = (name, fn) => test(`${label}${label ? ': ' : ''}embed: ${name}`, fn);
  const open = (spy, storage = makeStorage(), extra = {}) =>
    Memdex.open({ name: 'embed', storage, autoCommit: false, schema: SCHEMA, embed: { field: 'emb', embed: spy.embed, batchSize: 2, ...extra } });
  const ids = (results) => results.hits.map((h) => h.id);
  const unit = (v) => {
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  const near = (a, b) => a.length === b.length && a.every((x, i) => Math.abs(x - b[i]) < 1e-5);

  const expectCode = codeExpecter(MemdexError, assert);

  t('addMany embeds the documents without a vector in batches; a document with its own vector is left alone', async () => {
    const spy = conceptEmbedder();
    const index = await open(spy, undefined, { concurrency: 1 });
    const own = { id: 'own', text: 'my own vector', emb: [0, 0, 0, 0, 0, 1, 0] };
    assert.equal(await index.addMany([...MEMORIES, own]), 6);
    assert.deepEqual(spy.calls, [2, 2, 1], 'five texts in batches of two');
    assert.equal(index.size, 6);
    const m1 = index.get('m1', { vectors: true });
    assert.ok(near(m1.emb, unit(conceptVectors(['Commute. I drive the car to the office'])[0])), JSON.stringify(m1.emb));
    assert.deepEqual(index.get('own', { vectors: true }).emb, [0, 0, 0, 0, 0, 1, 0]);
    // add embeds one document in one call and resolves once it is written.
    const added = index.add({ id: 'm6', text: 'shipping the release' });
    assert.ok(added instanceof Promise, 'add returns a Promise with an embedder');
    await added;
    assert.deepEqual(spy.calls, [2, 2, 1, 1]);
    assert.ok(index.get('m6', { vectors: true }).emb[2] > 0.9);
    // A document with no text to embed is added without a vector.
    await index.add({ id: 'empty', kind: 'marker' });
    assert.deepEqual(spy.calls, [2, 2, 1, 1]);
    assert.equal(index.get('empty', { vectors: true }).emb, undefined);
    await index.close();
  });

  t('a hybrid search without a vector embeds the query and finds what the words alone miss', async () => {
    const spy = conceptEmbedder();
    const index = await open(spy);
    await index.addMany(MEMORIES);
    const calls = spy.calls.length;
    // No memory holds "automobile": the word search finds nothing.
    const lexical = await index.search('automobile');
    assert.deepEqual(ids(lexical), []);
    assert.equal(lexical.semantic, undefined);
    assert.equal(spy.calls.length, calls, 'a plain search does not embed');
    const hybrid = await index.search('automobile', { semantic: 'hybrid', limit: 3 });
    assert.equal(ids(hybrid)[0], 'm1');
    assert.equal(hybrid.semantic, 'hybrid');
    assert.ok(hybrid.hits[0].vector, 'ranked by the vector list');
    assert.deepEqual(spy.calls.slice(calls), [1], 'the query: one call of one text');
    // By the embedding alone, and through `hybrid` options without a vector.
    const vector = await index.search('kitten food', { semantic: 'vector', limit: 2 });
    assert.deepEqual(ids(vector).sort(), ['m2', 'm5']);
    assert.equal(vector.semantic, 'vector');
    assert.equal(ids(await index.search('weekend release', { hybrid: { method: 'rrf' }, limit: 1 }))[0], 'm3');
    // A vector given is used as is (no call).
    const before = spy.calls.length;
    const given = await index.search('orders', { semantic: 'hybrid', vector: conceptVectors(['sql'])[0], limit: 1 });
    assert.deepEqual(ids(given), ['m4']);
    assert.equal(spy.calls.length, before);
    // pack resolves over the embedded search.
    const packed = await index.pack('automobile', { budgetTokens: 200, semantic: 'vector', limit: 1 });
    assert.deepEqual(packed.hits.map((h) => h.id), ['m1']);
    await index.close();
  });

  for (const [fail, words] of [
    ['throw', /embedder failed on a batch of \d+ texts: model offline/],
    ['count', /array of \d+ vectors \(one per text\), got \d+ vectors/],
    ['dims', /does not fit field `emb`: the vector has 6 numbers but field `emb` has 7 dimensions/],
    ['nan', /not a list of finite numbers \(element 6 is number NaN\)/],
  ]) {
    t(`an embedder that answers '${fail}' is EMBED and writes nothing of the call, also after a reopen`, async () => {
      const spy = conceptEmbedder();
      const storage = makeStorage();
      const index = await open(spy, storage);
      await index.addMany(MEMORIES.slice(0, 2));
      await index.commit();
      spy.fail = fail;
      const err = await expectCode(() => index.addMany(MEMORIES.slice(2)), 'EMBED', words);
      if (fail === 'throw') assert.equal(err.cause?.message, 'model offline');
      assert.equal(index.size, 2, 'nothing of the addMany');
      await expectCode(() => index.add({ id: 'x', text: 'one more car' }), 'EMBED', words);
      await expectCode(() => index.update([{ op: 'add', doc: { id: 'y', text: 'car' } }, { op: 'remove', id: 'm1' }]), 'EMBED', words);
      await expectCode(() => index.patch('m1', { text: 'a new text about lunch' }), 'EMBED', words);
      assert.equal(index.size, 2);
      assert.equal(index.get('m1').text, 'I drive the car to the office');
      assert.equal(index.dirty, false, 'no write is pending');
      await index.close();
      spy.fail = null;
      const again = await open(spy, storage);
      assert.equal(again.size, 2);
      assert.deepEqual(ids(await again.search('', { filter: {}, limit: 10 })).sort(), ['m1', 'm2']);
      await again.close();
    });
  }

  t('patch embeds a changed text again and keeps the vector when the text stays', async () => {
    const spy = conceptEmbedder();
    const index = await open(spy);
    await index.addMany(MEMORIES);
    const calls = spy.calls.length;
    const before = index.get('m3', { vectors: true }).emb;
    await index.patch('m3', { kind: 'rule' });
    assert.equal(spy.calls.length, calls, 'no text changed: no call');
    assert.deepEqual(index.get('m3', { vectors: true }).emb, before);
    await index.patch('m3', { text: 'Never eat lunch at the database' });
    assert.equal(spy.calls.length, calls + 1);
    const after = index.get('m3', { vectors: true });
    assert.equal(after.kind, 'rule');
    assert.ok(after.emb[1] > 0.3 && after.emb[4] > 0.3, JSON.stringify(after.emb));
    // A vector given in the changes is taken as is; null embeds again.
    await index.patch('m3', { text: 'other words', emb: [0, 0, 0, 0, 0, 2, 0] });
    assert.deepEqual(index.get('m3', { vectors: true }).emb, [0, 0, 0, 0, 0, 1, 0]);
    await index.patch('m3', { emb: null });
    assert.equal(spy.calls.length, calls + 2);
    await expectCode(() => index.patch('nope', { text: 'x' }), 'NOT_FOUND');
    // update(operations): embedded before the update runs, applied together.
    const r = await index.update([
      { op: 'add', doc: { id: 'm7', text: 'the dog drives' } },
      { op: 'patch', id: 'm2', changes: { text: 'sql database' } },
      { op: 'remove', id: 'm5' },
    ]);
    assert.deepEqual(r, { added: 2, removed: 1 });
    assert.ok(index.get('m7', { vectors: true }).emb[5] > 0.5);
    assert.ok(index.get('m2', { vectors: true }).emb[4] > 0.5);
    await index.close();
  });

  t('open checks the option; addAll takes only documents that carry their vectors', async () => {
    const spy = conceptEmbedder();
    await expectCode(() => Memdex.open({ storage: makeStorage(), embed: { embed: spy.embed } }), 'USAGE', /`embed.field` must name a vector field.*it has none/);
    await expectCode(() => open(spy, makeStorage(), { field: 'text' }), 'USAGE', /`text` is not one\); its vector fields are `emb`/);
    await expectCode(() => open(spy, makeStorage(), { batchSize: 0 }), 'USAGE', /`embed.batchSize` must be an integer >= 1/);
    await expectCode(() => open(spy, makeStorage(), { model: 'x' }), 'USAGE', /unknown option `embed.model`/);
    await expectCode(() => Memdex.open({ storage: makeStorage(), schema: SCHEMA, embed: { field: 'emb' } }), 'USAGE', /`embed.embed` must be a function/);
    // The only vector field is the default; a function is `{ embed }`.
    const index = await Memdex.open({ storage: makeStorage(), schema: SCHEMA, embed: spy.embed, autoCommit: false });
    await expectCode(() => index.addAll([{ id: 'a', text: 'car' }]), 'USAGE', /addAll is synchronous.*1 documents carry no `emb` vector.*addMany/);
    assert.equal(index.size, 0);
    assert.equal(index.addAll([{ id: 'a', text: 'car', emb: conceptVectors(['car'])[0] }]), 1);
    // A text function picks what is embedded.
    const titled = await open(spy, makeStorage(), { text: (doc) => doc.title ?? '' });
    await titled.add({ id: 't', title: 'Lunch', text: 'car car car' });
    assert.ok(titled.get('t', { vectors: true }).emb[1] > 0.9);
    await index.close();
    await titled.close();
  });
}
