// Vectors of documents cross into the engine as floats beside the JSON text
// (pkg-template/documents.js FloatMembers): every Float32Array, and number
// arrays and typed arrays in vector fields. The index they build must be the
// one the engine builds from the same documents as JSON text, bit for bit,
// and every rejection must have the same code and message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import vm from 'node:vm';

import { Memdex, MemdexError } from '../../pkg/node.js';
import { Engine } from '../../pkg/memdex.js';

const SCHEMA = {
  title: { type: 'text' },
  tag: { type: 'keyword' },
  meta: { type: 'stored' },
  emb: { type: 'vector', dimensions: 8 },
  raw: { type: 'vector', dimensions: 3, metric: 'dot' },
};
const open = () => Memdex.open({ schema: SCHEMA });

let seed = 7;
const rand = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const WORDS = ['deploy', 'friday', 'freeze', 'release', 'weekend', 'notes', 'logs', 'calm'];

/** Documents with Float32Array members (one from another realm, odd values in a stored field) and a few without. */
function documents() {
  const otherRealm = vm.runInNewContext('new Float32Array([0.25, -0.5, 0.75, 1, 0, -1, 2, 3])');
  return Array.from({ length: 60 }, (_, i) => {
    const doc = { id: `d${i}`, title: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]}`, tag: i % 2 ? 'odd' : 'even' };
    if (i % 5 !== 4) doc.emb = Float32Array.from({ length: 8 }, () => rand() * 2 - 1);
    if (i % 3 === 0) doc.raw = new Float32Array([rand(), -rand() * 1e6, 0.1]);
    if (i === 1) doc.meta = new Float32Array([-0, 1, 0.1, 1e20, 3.4e38, -7, 16777217]);
    if (i === 2) doc.emb = otherRealm;
    if (i === 3) doc.emb = new Float64Array(8).fill(0.3);
    if (i === 4) doc.emb = [0.1, -0, 1e-45, 1e39 / 1e39, 3, 16777217, -2.5, 1 / 3];
    if (i === 6) doc.emb = new Float32Array([-0, 0, 1, 2, 3, 4, 5, 6]);
    if (i === 8) doc.raw = [1.7976931348623157e308 / 1e300, 5e-324 * 1e300, -1];
    return doc;
  });
}

/** The same documents with every typed array as a number array, as JSON text gives them. */
const asArrays = (docs) =>
  docs.map((d) => Object.fromEntries(Object.entries(d).map(([k, v]) => [k, ArrayBuffer.isView(v) ? Array.from(v) : v])));

/** A search's hits and scores (not its timing). */
function found(index, query, options) {
  const { tookMs, ...rest } = index.search(query, { limit: 100, ...options });
  assert.ok(tookMs >= 0);
  return rest;
}

/**
 * An index's snapshot bytes without what differs between two exports of the
 * same data: commit ids (24 hex digits, also in blob names) and the trailing
 * checksum over them. Segment blobs are named by a hash of their bytes.
 */
function snapshot(index) {
  const bytes = Buffer.from(index.export()).toString('latin1');
  return bytes.slice(0, -8).replace(/(?<![0-9a-f])[0-9a-f]{24}(?![0-9a-f])/g, 'COMMIT');
}

/**
 * What an index holds and answers: its snapshot, stored documents, every stored vector
 * component (a unit query along one axis scores each document by exactly that
 * component), hybrid searches under both fusions.
 */
function observe(index, docs) {
  const axis = (dims, i) => Float32Array.from({ length: dims }, (_, j) => (j === i ? 1 : 0));
  const q = Float32Array.from({ length: 8 }, (_, i) => (i % 3) - 1);
  return {
    snapshot: snapshot(index),
    stored: docs.map((d) => index.get(d.id)),
    emb: Array.from({ length: 8 }, (_, i) => found(index, '', { vector: axis(8, i), vectorField: 'emb' })),
    raw: Array.from({ length: 3 }, (_, i) => found(index, '', { vector: axis(3, i), vectorField: 'raw' })),
    hybrid: found(index, 'deploy friday', { vector: q, vectorField: 'emb' }),
    weighted: found(index, 'release', { vector: q, vectorField: 'emb', hybrid: { method: 'weighted' } }),
  };
}

/** An index the engine built from the documents' JSON text, as an index of the package. */
async function viaJsonText(docs) {
  await open(); // loads the engine
  const engine = new Engine({ schema: SCHEMA });
  assert.equal(engine.addJsonLines(asArrays(docs).map((d) => JSON.stringify(d)).join('\n')), docs.length);
  const bytes = engine.exportSnapshot();
  engine.free();
  return Memdex.import(bytes);
}

test('vectors as floats build the index their JSON text builds, through add, addAll and addMany', async () => {
  const docs = documents();
  const expected = observe(await viaJsonText(docs), docs);
  assert.equal(expected.emb[0].hits.length, 49); // 11 documents have no emb
  assert.equal(expected.raw[1].hits.length, 21);
  assert.deepEqual(expected.stored[1].meta, [0, 1, 0.10000000149011612, 100000002004087730000, 3.3999999521443642e38, -7, 16777216]);

  const viaAdd = await open();
  for (const d of docs) viaAdd.add(d);
  const viaAddAll = await open();
  viaAddAll.addAll(docs);
  const viaAddMany = await open();
  assert.equal(await viaAddMany.addMany(docs, { batchSize: 7 }), docs.length);
  const viaArrays = await open();
  viaArrays.addAll(asArrays(docs));
  for (const [name, index] of [['add', viaAdd], ['addAll', viaAddAll], ['addMany', viaAddMany], ['number arrays', viaArrays]]) {
    assert.deepEqual(observe(index, docs), expected, name);
  }
  // The documents themselves are left as they were given.
  assert.ok(docs[0].emb instanceof Float32Array);
  assert.ok(Array.isArray(docs[4].emb));
});

/**
 * Documents each rejected for a member, as Float32Arrays: [what, the field
 * the message names, document]. A NaN or ±Infinity element is named as the
 * typed array's property (`emb.1`; `emb[1]` in a number array).
 */
const BAD = [
  ['wrong dimensions', 'emb', { id: 'b1', emb: new Float32Array(3) }],
  ['NaN', 'emb.1', { id: 'b2', emb: new Float32Array([1, NaN, 0, 0, 0, 0, 0, 0]) }],
  ['Infinity', 'raw.2', { id: 'b3', raw: new Float32Array([1, 0, Infinity]) }],
  ['all zeros on a cosine field', 'emb', { id: 'b4', emb: new Float32Array(8) }],
  ['in a keyword field', 'tag', { id: 'b5', tag: new Float32Array([1]) }],
  ['as the id', 'id', { id: new Float32Array([1]), title: 'x' }],
  ['as the namespace', 'namespace', { id: 'b6', namespace: new Float32Array([1]) }],
  ['in an undeclared field', 'nope', { id: 'b7', nope: new Float32Array([1, 2]) }],
  ['before a bad title', 'emb', { id: 'b8', emb: new Float32Array(2), title: 5 }],
  ['too large for a float', 'emb', { id: 'b9', emb: [1e39, 0, 0, 0, 0, 0, 0, 0] }],
  ['a string in a number array', 'emb', { id: 'b10', emb: [1, '2', 0, 0, 0, 0, 0, 0] }],
  ['a hole in a number array', 'emb', { id: 'b11', emb: [1, , 0, 0, 0, 0, 0, 0] }], // eslint-disable-line no-sparse-arrays
  ['NaN in a number array', 'emb[2]', { id: 'b12', emb: [1, 0, NaN, 0, 0, 0, 0, 0] }],
  ['wrong dimensions, number array', 'raw', { id: 'b13', raw: [1, 2] }],
];

async function rejection(fn) {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof MemdexError, String(err));
    return { code: err.code, message: err.message, added: err.added, data: err.data };
  }
  assert.fail('expected a rejection');
}

/** The message of the engine's rejection of `doc` as JSON text. */
function engineRejection(doc) {
  const engine = new Engine({ schema: SCHEMA });
  try {
    engine.addJsonLines(JSON.stringify(doc));
  } catch (err) {
    return err.message;
  } finally {
    engine.free();
  }
  return assert.fail('expected the engine to reject it');
}

test('a rejected vector member gives the code and message of its JSON text', async () => {
  for (const [what, field, doc] of BAD) {
    // Non-finite elements are found before the engine, on the document as given.
    const [asJson] = field.includes('.') ? [doc] : asArrays([doc]);
    const text = engineRejection(asJson);
    const good = { id: 'ok', emb: new Float32Array([1, 0, 0, 0, 0, 0, 0, 0]) };
    const single = await rejection(async () => (await open()).add(doc));
    assert.deepEqual(single, await rejection(async () => (await open()).add(asJson)), what);
    assert.equal(single.code, 'SCHEMA', what);
    // Non-finite elements never reach the engine; anything else is its own message.
    if (!/[.[]/.test(field)) assert.equal(single.message, text, what);
    assert.ok(single.message.includes(`schema error on field \`${field}\``), `${what}: ${single.message}`);
    // In a batch: the same message, and the valid document before it stays.
    const index = await open();
    const batch = await rejection(() => index.addMany([good, doc, good]));
    const other = await open();
    assert.deepEqual(batch, await rejection(() => other.addMany([good, asJson, good])), what);
    assert.equal(batch.added, 1, what);
    assert.equal(index.size, 1, what);
  }
});
