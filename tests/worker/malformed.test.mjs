// Malformed input is a 4xx with a stable code, never a 5xx, and never
// changes stored data: broken JSON, NDJSON with one bad line, bodies of the
// wrong shape, invalid UTF-8, wrong content types, bad percent-escapes in
// the URL, bad namespaces and ids, unknown parameters and routes, wrong
// methods. After all of it the namespace is exactly as before.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './support/helpers.mjs';

let w;
let call;
let gen;
before(async () => {
  w = await startWorker();
  call = w.client(w.keys.admin);
  gen = (await call('POST', '/v1/ns/m/docs', { json: [{ id: 'keep', title: 'kept', text: 'stays as it is' }] })).body.generation;
});
after(async () => {
  await w?.mf.dispose();
});

const raw = (method, path, body, headers = {}) => call(method, path, { body, headers: { 'content-type': 'application/json', ...headers } });

function assert4xx(r, code, what) {
  assert.ok(r.status >= 400 && r.status < 500, `${what}: status ${r.status} ${JSON.stringify(r.body)}`);
  assert.equal(typeof r.body, 'object', `${what}: a JSON error body`);
  if (code) assert.equal(r.body.error.code, code, what);
  assert.ok(r.body.error.message, what);
}

test('malformed JSON bodies are 400 BAD_REQUEST', async () => {
  for (const [body, what] of [
    ['{not json', 'broken'],
    ['', 'empty'],
    ['[{"id":"x","text":"a"},]', 'trailing comma'],
    ['{"id":"x"}{"id":"y"}', 'two values'],
    ['['.repeat(100000), 'deep nesting'],
  ]) {
    assert4xx(await raw('POST', '/v1/ns/m/docs', body), 'BAD_REQUEST', what);
    assert4xx(await raw('POST', '/v1/ns/m/search', body), 'BAD_REQUEST', `search ${what}`);
  }
  assert4xx(await raw('PUT', '/v1/ns/m/docs/x', '{"text": '), 'BAD_REQUEST', 'put');
  assert4xx(await raw('POST', '/v1/ns/m/delete', 'nope'), 'BAD_REQUEST', 'delete');
});

test('NDJSON with one bad line writes nothing; the error names the line', async () => {
  const body = ['{"id":"n1","text":"fine"}', '{"id":"n2","text":"fine"}', '{"id":"n3",', '{"id":"n4","text":"fine"}'].join('\n');
  const r = await raw('POST', '/v1/ns/m/docs', body, { 'content-type': 'application/x-ndjson' });
  assert4xx(r, 'BAD_REQUEST', 'ndjson');
  assert.match(r.body.error.message, /line 3/);
  const list = await raw('POST', '/v1/ns/m/docs', '[1, 2]');
  assert4xx(list, 'SCHEMA', 'not objects');
  const ndjsonScalar = await raw('POST', '/v1/ns/m/docs', '{"id":"ok","text":"x"}\n"string"\n', { 'content-type': 'application/x-ndjson' });
  assert4xx(ndjsonScalar, 'SCHEMA', 'ndjson scalar line');
});

test('bodies of the wrong shape', async () => {
  assert4xx(await raw('PUT', '/v1/ns/m/docs/x', '[1]'), 'SCHEMA', 'put array');
  assert4xx(await raw('PUT', '/v1/ns/m/docs/x', '{"id":"other","text":"x"}'), 'BAD_REQUEST', 'put id mismatch');
  assert4xx(await raw('POST', '/v1/ns/m/docs', '[]'), 'BAD_REQUEST', 'no documents');
  assert4xx(await raw('POST', '/v1/ns/m/docs', '[{"text":"no id"}]'), 'SCHEMA', 'missing id');
  assert4xx(await raw('POST', '/v1/ns/m/docs', '[{"id":"a\\u0001b","text":"x"}]'), 'SCHEMA', 'control character in id');
  assert4xx(await raw('POST', '/v1/ns/m/docs', `[{"id":"${'x'.repeat(201)}","text":"x"}]`), 'SCHEMA', 'long id');
  assert4xx(await raw('POST', '/v1/ns/m/delete', '{"filter":{}}'), 'BAD_REQUEST', 'empty filter');
  assert4xx(await raw('POST', '/v1/ns/m/delete', '{"where":{"kind":"x"}}'), 'BAD_REQUEST', 'unknown key');
  assert4xx(await raw('POST', '/v1/ns/m/delete', '{"filter":{"nofield":"x"}}'), null, 'unknown filter field');
  assert4xx(await raw('POST', '/v1/ns/m/search', '"just a string"'), 'BAD_REQUEST', 'search body not an object');
  assert4xx(await raw('POST', '/v1/ns/m/search', '{"query":"x","limt":3}'), 'USAGE', 'unknown search option (the engine names it)');
  assert4xx(await raw('POST', '/v1/ns/m/search', '{"query":5}'), 'BAD_REQUEST', 'query not a string');
  assert4xx(await raw('POST', '/v1/ns/m/search', '{"query":"x","mode":"maybe"}'), 'USAGE', 'bad mode (the package says)');
  assert4xx(await raw('POST', '/v1/ns/m/search', '{"query":"x","filter":"kind"}'), null, 'filter not an object');
});

test('invalid UTF-8 and wrong content types', async () => {
  const bad = await call('POST', '/v1/ns/m/docs', { body: new Uint8Array([0x5b, 0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x5d]), headers: { 'content-type': 'application/json' } });
  assert4xx(bad, 'BAD_REQUEST', 'invalid utf-8');
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']) {
    const r = await raw('POST', '/v1/ns/m/docs', '[{"id":"t","text":"x"}]', { 'content-type': type });
    assert.equal(r.status, 415, type);
    assert.equal(r.body.error.code, 'BAD_REQUEST');
  }
  assert.equal((await raw('PUT', '/v1/ns/m/docs/t', '{"text":"x"}', { 'content-type': 'application/x-ndjson' })).status, 415);
  assert.equal((await raw('POST', '/mcp', '{}', { 'content-type': 'text/plain' })).status, 415);
});

test('URL escapes, namespaces and ids', async () => {
  for (const path of ['/v1/ns/m/docs/%E0%A4%A', '/v1/ns/m/docs/%ZZ', '/v1/ns/%C3%28/stats', '/v1/ns/m%/search?q=x']) {
    assert4xx(await call('GET', path), 'BAD_REQUEST', path);
  }
  for (const ns of ['-leading-dash', 'has%20space', 'slash%2Fns', 'x'.repeat(129), '%00']) {
    assert4xx(await call('GET', `/v1/ns/${ns}/stats`), 'BAD_REQUEST', ns);
  }
  assert4xx(await call('GET', '/v1/ns/m/docs/a%01b'), 'BAD_REQUEST', 'control char id');
  assert4xx(await call('GET', `/v1/ns/m/docs/${'i'.repeat(201)}`), 'BAD_REQUEST', 'long id');
  // A bad query-string escape is just text to URLSearchParams (lenient by the URL standard).
  const q = await call('GET', `/v1/ns/m/search?q=%E0%A4%A&minGeneration=${gen}`);
  assert.equal(q.status, 200);
});

test('unknown parameters, bad parameter values, routes and methods', async () => {
  for (const qs of ['q=x&limt=3', 'q=x&limit=ten', 'q=x&limit=-1', 'q=x&prefix=maybe', 'q=x&filter=%7Bbroken', 'q=x&minGeneration=soon', 'q=x&k1=abc', 'q=x&fuzzy=7']) {
    assert4xx(await call('GET', `/v1/ns/m/search?${qs}`), null, qs);
  }
  assert4xx(await call('GET', '/v1/ns/m/stats?verbose=1'), 'BAD_REQUEST', 'stats param');
  assert4xx(await call('GET', '/v1/ns/m/suggest'), 'BAD_REQUEST', 'suggest without prefix');
  const unknown = await call('GET', '/v1/nope');
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.error.code, 'NOT_FOUND');
  assert.equal((await call('GET', '/v1/ns/m/docs/')).status, 404, 'empty id segment');
  assert.equal((await call('GET', '/v1//namespaces')).status, 404);
  const method = await call('POST', '/v1/ns/m/docs/keep');
  assert.equal(method.status, 405);
  assert.equal(method.headers.get('allow'), 'PUT, PATCH, GET, DELETE');
  // A PATCH without a body changes nothing.
  assert4xx(await call('PATCH', '/v1/ns/m/docs/keep'), 'BAD_REQUEST', 'PATCH without a body');
  assert.equal((await call('DELETE', '/v1/ns/m/search')).status, 405);
  assert.equal((await call('GET', '/mcp')).status, 405);
});

test('after all of that the namespace is unchanged', async () => {
  const s = await call('GET', `/v1/ns/m/stats?minGeneration=${gen}`);
  assert.equal(s.body.generation, gen);
  assert.equal(s.body.documents, 1);
  const doc = await call('GET', '/v1/ns/m/docs/keep');
  assert.deepEqual(doc.body, { id: 'keep', namespace: 'm', title: 'kept', text: 'stays as it is' });
});
