// GET /v1/openapi.json is an OpenAPI 3.1 document that tells the truth:
// it lists exactly the routes of the routing table (worker/src/routes.js),
// and the real responses of every route, successes and errors, have a
// documented status and validate against its schemas (ajv, JSON Schema
// 2020-12, the dialect of OpenAPI 3.1).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import Ajv2020 from 'ajv/dist/2020.js';
import { startWorker } from './support/helpers.mjs';

let w;
let call;
let doc;
let ajv;
const seen = new Set(); // "method template status" validated

before(async () => {
  w = await startWorker({
    keys: { admin: { namespaces: ['*'], role: 'admin' }, reader: { namespaces: ['api'], role: 'read' } },
    vars: { MEMDEX_LIMITS: JSON.stringify({ maxDocsPerRequest: 50 }) },
  });
  call = w.client(w.keys.admin);
  const r = await call('GET', '/v1/openapi.json', { key: null });
  assert.equal(r.status, 200);
  doc = r.body;
  ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
  ajv.addSchema(doc, 'openapi');
});
after(async () => {
  await w?.mf.dispose();
});

const pointer = (...parts) => parts.map((p) => String(p).replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

/** Validates one real response against the document. */
function check(method, template, r) {
  const op = doc.paths[template]?.[method.toLowerCase()];
  assert.ok(op, `${method} ${template} is not in the document`);
  const response = op.responses[String(r.status)];
  assert.ok(response, `${method} ${template}: status ${r.status} is not documented (${JSON.stringify(r.body).slice(0, 200)})`);
  const type = (r.headers.get('content-type') ?? '').split(';')[0];
  if (response.content) {
    assert.ok(response.content[type], `${method} ${template} ${r.status}: content-type ${type} not documented`);
    if (type === 'application/json') {
      const ref = `openapi#/${pointer('paths', template, method.toLowerCase(), 'responses', r.status, 'content', type, 'schema')}`;
      const validate = ajv.getSchema(ref);
      assert.ok(validate(r.body), `${method} ${template} ${r.status}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(r.body).slice(0, 300)}`);
    }
  }
  seen.add(`${method} ${template} ${r.status}`);
}

test('the document is OpenAPI 3.1 and lists exactly the routes of the routing table', async () => {
  assert.equal(doc.openapi, '3.1.0');
  const source = readFileSync(new URL('../../worker/src/routes.js', import.meta.url), 'utf8');
  const routes = [...source.matchAll(/\{ method: '(\w+)', path: '([^']+)'/g)].map(([, m, p]) => `${m} ${p.replace(/:(\w+)/g, '{$1}')}`);
  assert.ok(routes.length >= 14);
  const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  assert.deepEqual(documented.sort(), routes.sort());
});

test('every route\'s real responses validate against the document', async () => {
  const docs = [
    { id: 'o1', title: 'Deploy rule', text: 'never deploy on fridays', kind: 'rule', tags: ['ops'], timestamp: '2026-01-01T00:00:00Z', links: [{ type: 'RELATES_TO', to: 'o2' }] },
    { id: 'o2', title: 'Dark mode', text: 'the user likes dark mode', kind: 'preference', timestamp: 1767225600000 },
  ];
  check('GET', '/health', await call('GET', '/health', { key: null }));
  check('GET', '/v1/openapi.json', await call('GET', '/v1/openapi.json', { key: null }));

  const posted = await call('POST', '/v1/ns/api/docs', { json: docs });
  check('POST', '/v1/ns/{ns}/docs', posted);
  const g = posted.body.generation;
  check('POST', '/v1/ns/{ns}/docs', await call('POST', '/v1/ns/api/docs', { body: '{"id":"n","text":"x"}\n', headers: { 'content-type': 'application/x-ndjson' } }));
  check('POST', '/v1/ns/{ns}/docs', await call('POST', '/v1/ns/api/docs', { json: [{ id: 'bad', text: 3 }] })); // 400 SCHEMA
  check('POST', '/v1/ns/{ns}/docs', await call('POST', '/v1/ns/api/docs', { json: Array.from({ length: 51 }, (_, i) => ({ id: `x${i}` })) })); // 413
  check('POST', '/v1/ns/{ns}/docs', await call('POST', '/v1/ns/api/docs', { body: 'x', headers: { 'content-type': 'text/plain' } })); // 415
  check('POST', '/v1/ns/{ns}/docs', await call('POST', '/v1/ns/api/docs', { json: [{ id: 'r' }], key: w.keys.reader })); // 403

  check('PUT', '/v1/ns/{ns}/docs/{id}', await call('PUT', '/v1/ns/api/docs/p1', { json: { text: 'put one' } }));
  check('PUT', '/v1/ns/{ns}/docs/{id}', await call('PUT', '/v1/ns/api/docs/p1', { body: '{', headers: { 'content-type': 'application/json' } }));
  check('GET', '/v1/ns/{ns}/docs/{id}', await call('GET', `/v1/ns/api/docs/o1?minGeneration=${g}`));
  check('GET', '/v1/ns/{ns}/docs/{id}', await call('GET', `/v1/ns/api/docs/o1?vectors=true&minGeneration=${g}`));
  check('GET', '/v1/ns/{ns}/docs/{id}', await call('GET', `/v1/ns/api/docs/missing?minGeneration=${g}`)); // 404
  check('GET', '/v1/ns/{ns}/docs/{id}', await call('GET', '/v1/ns/api/docs/%ZZ')); // 400
  check('GET', '/v1/ns/{ns}/docs/{id}', await call('GET', '/v1/ns/api/docs/o1', { key: null })); // 401
  check('PATCH', '/v1/ns/{ns}/docs/{id}', await call('PATCH', '/v1/ns/api/docs/p1', { json: { kind: 'note', text: null } }));
  check('PATCH', '/v1/ns/{ns}/docs/{id}', await call('PATCH', '/v1/ns/api/docs/missing', { json: { kind: 'note' } })); // 404
  check('PATCH', '/v1/ns/{ns}/docs/{id}', await call('PATCH', '/v1/ns/api/docs/p1', { json: { kind: 3 } })); // 400 SCHEMA
  check('DELETE', '/v1/ns/{ns}/docs/{id}', await call('DELETE', '/v1/ns/api/docs/p1'));
  check('POST', '/v1/ns/{ns}/delete', await call('POST', '/v1/ns/api/delete', { json: { filter: { kind: 'nothing' } } }));
  check('POST', '/v1/ns/{ns}/delete', await call('POST', '/v1/ns/api/delete', { json: { filter: {} } })); // 400

  const search = await call('GET', `/v1/ns/api/search?q=deploy&highlight=true&explain=true&minGeneration=${g}`);
  assert.ok(search.body.hits[0].snippets && search.body.hits[0].explanation);
  check('GET', '/v1/ns/{ns}/search', search);
  check('GET', '/v1/ns/{ns}/search', await call('GET', `/v1/ns/api/search?q=&sort=timestamp:desc&filter=%7B%7D&minGeneration=${g}`)); // total
  check('GET', '/v1/ns/{ns}/search', await call('GET', '/v1/ns/api/search?q=x&limit=1000')); // 400 LIMIT
  check('GET', '/v1/ns/{ns}/search', await call('GET', '/v1/ns/nope/search?q=x')); // 404
  check('POST', '/v1/ns/{ns}/search', await call('POST', '/v1/ns/api/search', { json: { query: 'dark', storedFields: false, minGeneration: g } }));
  check('POST', '/v1/ns/{ns}/search', await call('POST', '/v1/ns/api/search', { json: { query: '"open', syntax: 'strict' } })); // 400 INVALID_QUERY
  check('GET', '/v1/ns/{ns}/suggest', await call('GET', `/v1/ns/api/suggest?prefix=de&minGeneration=${g}`));
  check('GET', '/v1/ns/{ns}/suggest', await call('GET', '/v1/ns/api/suggest'));
  check('GET', '/v1/ns/{ns}/stats', await call('GET', `/v1/ns/api/stats?minGeneration=${g}`));
  check('GET', '/v1/ns/{ns}/stats', await call('GET', '/v1/ns/api/stats', { key: 'mdx_wrong' })); // 401
  const exp = await call('GET', `/v1/ns/api/export?minGeneration=${g}`);
  assert.equal(exp.headers.get('content-type'), 'application/octet-stream');
  check('GET', '/v1/ns/{ns}/export', exp);
  check('GET', '/v1/ns/{ns}/export', await call('GET', '/v1/ns/api/export', { key: w.keys.reader })); // 403
  const schema = { userId: 'keyword', embedding: { type: 'vector', dimensions: 2 } };
  const created = await call('PUT', '/v1/ns/api-schema', { json: { schema } });
  check('PUT', '/v1/ns/{ns}', created); // 201
  check('PUT', '/v1/ns/{ns}', await call('PUT', '/v1/ns/api-schema', { json: { schema } })); // 200
  check('PUT', '/v1/ns/{ns}', await call('PUT', '/v1/ns/api-schema', { json: { schema: { other: 'number' } } })); // 409
  check('PUT', '/v1/ns/{ns}', await call('PUT', '/v1/ns/api-schema2', { json: { schema: { title: 'keyword' } } })); // 400 SCHEMA
  check('GET', '/v1/ns/{ns}', await call('GET', `/v1/ns/api-schema?minGeneration=${created.body.generation}`));
  check('GET', '/v1/ns/{ns}', await call('GET', '/v1/ns/nope')); // 404
  check('POST', '/v1/ns/{ns}/search', await call('POST', '/v1/ns/api-schema/search', { json: { query: '', vector: [1, 0], minGeneration: created.body.generation } }));
  check('GET', '/v1/namespaces', await call('GET', '/v1/namespaces'));
  check('GET', '/v1/namespaces', await call('GET', '/v1/namespaces', { key: w.keys.reader }));
  // A method the path does not take: 405, documented with the path's operations.
  check('PUT', '/v1/ns/{ns}/docs/{id}', await call('POST', '/v1/ns/api/docs/o1'));

  const rpc = (json, key = w.keys.admin) => call('POST', '/mcp', { json, key });
  check('POST', '/mcp', await rpc({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }));
  check('POST', '/mcp', await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  check('POST', '/mcp', await rpc({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory_search', arguments: { namespace: 'api', query: 'deploy' } } }));
  check('POST', '/mcp', await rpc([{ jsonrpc: '2.0', id: 4, method: 'ping' }]));
  check('POST', '/mcp', await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' })); // 202
  check('POST', '/mcp', await call('POST', '/mcp', { body: '{', headers: { 'content-type': 'application/json' } })); // 400 parse
  check('POST', '/mcp', await rpc({ jsonrpc: '2.0', id: 5, method: 'ping' }, null)); // 401

  // Every route was exercised with a success.
  const routes = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`));
  for (const r of routes) {
    assert.ok([...seen].some((s) => s.startsWith(`${r} 2`)), `${r} was not exercised with a success`);
  }
});
