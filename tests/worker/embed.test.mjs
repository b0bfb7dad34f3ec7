// Embedding in the Worker (worker/src/embed.js), in workerd: the Worker is
// given an `AI` binding, a stand-in for Workers AI (which cannot run in
// local workerd): a wrapped binding whose `run(model, { text })` asks a
// function of this test process for the vectors (the concept model of
// tests/js/embed.suite.mjs), so each call's model and batch is recorded and
// failures can be switched on. Documents written without a vector (REST
// PUT and bulk POST, memory_store over /mcp) are embedded in batches; a
// `semantic` search (REST GET and POST, memory_search) embeds its query and
// finds what the words alone miss; a model error is 502 EMBED (an isError
// result over /mcp) and writes nothing. A namespace without a vector
// field, or a Worker without the binding, answers a semantic search by
// words and says so.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Miniflare } from 'miniflare';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { miniflareOptions, workerOptions } from '../../worker/scripts/miniflare-options.mjs';
import { client, makeKeys, startWorker } from './support/helpers.mjs';
import { DIMENSIONS, MEMORIES, conceptVectors } from '../js/embed.suite.mjs';

const MODEL = '@cf/test/concepts';
/** What the stand-in model was asked: { model, texts } per call. */
const calls = [];
let failing = false;

// The AI binding: workerd calls this module's default export with its
// bindings, and `env.MODEL` reaches the function below, in this process.
const STAND_IN = `export default function (env) {
  return {
    async run(model, input) {
      const res = await env.MODEL.fetch('http://model/run', { method: 'POST', body: JSON.stringify({ model, text: input.text }) });
      if (!res.ok) throw new Error(await res.text());
      return res.json();
    },
  };
}`;

async function model(request) {
  const { model: name, text } = await request.json();
  calls.push({ model: name, texts: text });
  if (failing) return new Response('AiError: 3040: capacity temporarily exceeded', { status: 500 });
  // A text asking for it gets a vector one number short.
  const data = conceptVectors(text).map((v, i) => (text[i].includes('wrong dimensions') ? v.slice(1) : v));
  return Response.json({ shape: [text.length, DIMENSIONS], data });
}

let mf;
let admin;
let adminKey;
let base;
let latest = 0; // the generation of the last write, for minGeneration
before(async () => {
  const { keys, secret } = await makeKeys({ admin: { namespaces: ['*'], role: 'admin' } });
  const main = { ...workerOptions({ vars: { MEMDEX_API_KEYS: secret, MEMDEX_AI_MODEL: MODEL } }), wrappedBindings: { AI: { scriptName: 'ai-stand-in' } } };
  const ai = { name: 'ai-stand-in', modules: true, script: STAND_IN, serviceBindings: { MODEL: model } };
  mf = new Miniflare(miniflareOptions({ workers: [main, ai] }));
  base = await mf.ready;
  adminKey = keys.admin;
  admin = client(base, adminKey);
  const created = await admin('PUT', '/v1/ns/emb', { json: { schema: { embedding: { type: 'vector', dimensions: DIMENSIONS } } } });
  assert.equal(created.status, 201, JSON.stringify(created.body));
});
after(() => mf?.dispose());

const ids = (body) => body.hits.map((h) => h.id);

test('REST: documents without a vector are embedded in batches by the configured model; one with its own is not', async () => {
  calls.length = 0;
  const bulk = await admin('POST', '/v1/ns/emb/docs', { json: MEMORIES });
  assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
  assert.equal(bulk.body.added, 5);
  assert.deepEqual(calls.map((c) => c.texts.length), [5], 'one batch of five texts');
  assert.equal(calls[0].model, MODEL, 'MEMDEX_AI_MODEL');
  assert.equal(calls[0].texts[0], 'Commute. I drive the car to the office', 'title and text');
  const own = await admin('PUT', '/v1/ns/emb/docs/own', { json: { text: 'my vector', embedding: [0, 0, 0, 0, 0, 1, 0] } });
  assert.equal(own.status, 200, JSON.stringify(own.body));
  assert.equal(calls.length, 1);
  const put = await admin('PUT', '/v1/ns/emb/docs/m6', { json: { text: 'the automobile is parked' } });
  assert.equal(put.status, 200, JSON.stringify(put.body));
  assert.equal(calls.length, 2);
  const doc = await admin('GET', `/v1/ns/emb/docs/m6?vectors=true&minGeneration=${put.body.generation}`);
  assert.ok(doc.body.embedding[0] > 0.9, JSON.stringify(doc.body));
  // A patch of the text embeds again; of another field, not.
  const patched = await admin('PATCH', '/v1/ns/emb/docs/m6', { json: { kind: 'note' } });
  assert.equal(patched.status, 200, JSON.stringify(patched.body));
  assert.equal(calls.length, 2);
  const retext = await admin('PATCH', '/v1/ns/emb/docs/m6', { json: { text: 'kitten' } });
  assert.equal(retext.status, 200, JSON.stringify(retext.body));
  assert.equal(calls.length, 3);
  const after = await admin('GET', `/v1/ns/emb/docs/m6?vectors=true&minGeneration=${retext.body.generation}`);
  assert.ok(after.body.embedding[5] > 0.9, JSON.stringify(after.body));
  latest = retext.body.generation;
});

test('REST: a semantic search embeds the query and finds what the words alone miss (GET and POST)', async () => {
  const words = await admin('GET', `/v1/ns/emb/search?q=automobile&minGeneration=${latest}`);
  assert.equal(words.status, 200, JSON.stringify(words.body));
  assert.deepEqual(ids(words.body), []);
  const before = calls.length;
  const hybrid = await admin('GET', `/v1/ns/emb/search?q=automobile&semantic=hybrid&limit=1&minGeneration=${latest}`);
  assert.equal(hybrid.status, 200, JSON.stringify(hybrid.body));
  assert.deepEqual(ids(hybrid.body), ['m1'], JSON.stringify(hybrid.body));
  assert.equal(hybrid.body.semantic, 'hybrid');
  assert.deepEqual(calls.slice(before).map((c) => c.texts), [['automobile']]);
  const vector = await admin('POST', '/v1/ns/emb/search', { json: { query: 'postgres sql', semantic: 'vector', limit: 1, minGeneration: latest } });
  assert.deepEqual([ids(vector.body), vector.body.semantic], [['m4'], 'vector']);
});

test('/mcp: memory_store embeds, memory_search is by meaning by default; a model error is EMBED and stores nothing', async () => {
  const c = new Client({ name: 'memdex-embed-test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL('/mcp', base), { requestInit: { headers: { authorization: `Bearer ${adminKey}` } } }));
  try {
    const before = calls.length;
    const stored = await c.callTool({ name: 'memory_store', arguments: { namespace: 'emb', memories: [{ id: 't1', text: 'weekend release' }, { id: 't2', text: 'sql database' }] } });
    assert.equal(stored.isError, false, stored.content[0].text);
    assert.deepEqual(calls.slice(before).map((x) => x.texts.length), [2], 'one batch');
    const generation = stored._meta['memdex/generation'];
    const found = await c.callTool({ name: 'memory_search', arguments: { namespace: 'emb', query: 'saturday rollout', limit: 1 }, _meta: { 'memdex/minGeneration': generation } });
    assert.equal(found.isError, false, found.content[0].text);
    assert.deepEqual([found.structuredContent.hits[0].id, found.structuredContent.semantic], ['t1', 'hybrid']);
    failing = true;
    const failed = await c.callTool({ name: 'memory_store', arguments: { namespace: 'emb', text: 'the car again', id: 't3' } });
    assert.equal(failed.isError, true);
    assert.equal(failed._meta['memdex/code'], 'EMBED');
    assert.match(failed.content[0].text, /capacity temporarily exceeded/);
    const rest = await admin('PUT', '/v1/ns/emb/docs/t4', { json: { text: 'car' } });
    assert.equal(rest.status, 502);
    assert.equal(rest.body.error.code, 'EMBED');
    const search = await admin('GET', '/v1/ns/emb/search?q=car&semantic=hybrid');
    assert.equal(search.status, 502);
    failing = false;
    const count = await admin('GET', '/v1/ns/emb/stats?minGeneration=' + generation);
    assert.equal(count.body.documents, 9, 'm1-m6, own, t1, t2: nothing of the failed writes');
    const missing = await admin('GET', '/v1/ns/emb/docs/t4');
    assert.equal(missing.status, 404);
    // A vector that does not fit the field: EMBED naming the document by its id, nothing written.
    const short = await admin('POST', '/v1/ns/emb/docs', { json: [{ id: 'ok1', text: 'car' }, { id: 'bad', text: 'wrong dimensions' }] });
    assert.equal(short.status, 502, JSON.stringify(short.body));
    assert.equal(short.body.error.code, 'EMBED');
    assert.match(short.body.error.message, /vector for document "bad" does not fit field `embedding`: the vector has 6 numbers but field `embedding` has 7 dimensions/);
    assert.equal((await admin('GET', '/v1/ns/emb/docs/ok1')).status, 404, 'nothing of the request');
  } finally {
    failing = false;
    await c.close();
  }
});

test('without a vector field, or without the binding, a semantic search is answered by words and says so', async () => {
  const plain = await admin('PUT', '/v1/ns/plain/docs/p1', { json: { text: 'lunch at noon' } });
  assert.equal(plain.status, 200, JSON.stringify(plain.body));
  const before = calls.length;
  const r = await admin('GET', `/v1/ns/plain/search?q=lunch&semantic=hybrid&minGeneration=${plain.body.generation}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual([ids(r.body), r.body.semantic], [['p1'], 'lexical']);
  assert.match(r.body.warnings.at(-1), /no embedder is configured/);
  assert.equal(calls.length, before);
  const bare = await startWorker();
  try {
    const call = bare.client(bare.keys.admin);
    await call('PUT', '/v1/ns/emb', { json: { schema: { embedding: { type: 'vector', dimensions: DIMENSIONS } } } });
    const put = await call('PUT', '/v1/ns/emb/docs/x', { json: { text: 'the car' } });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    const s = await call('GET', `/v1/ns/emb/search?q=automobile&semantic=hybrid&minGeneration=${put.body.generation}`);
    assert.deepEqual([ids(s.body), s.body.semantic], [[], 'lexical']);
    const doc = await call('GET', '/v1/ns/emb/docs/x?vectors=true');
    assert.equal(doc.body.embedding, undefined, 'no binding: nothing embedded');
  } finally {
    await bare.mf.dispose();
  }
});
