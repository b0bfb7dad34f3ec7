// API keys, grants and CORS, in workerd: no key, a wrong key, a malformed
// header, a read key writing, a key for namespace A reading B, pattern
// grants, roles per route (export needs admin), the namespace list filtered
// by grant, a misconfigured MEMDEX_API_KEYS, allowed and refused origins
// (REST CORS and the /mcp Origin check).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startWorker } from './support/helpers.mjs';

let w;
let as; // label -> client
before(async () => {
  w = await startWorker({
    keys: {
      admin: { namespaces: ['*'], role: 'admin' },
      writerA: { namespaces: ['team-a'], role: 'write' },
      readerA: { namespaces: ['team-a'], role: 'read' },
      teamB: { namespaces: ['team-b:*'], role: 'write' },
      several: { namespaces: ['team-a', 'team-b:*'], role: 'read' },
    },
    vars: { MEMDEX_CORS_ORIGINS: 'https://app.example' },
  });
  as = Object.fromEntries(Object.entries(w.keys).map(([label, key]) => [label, w.client(key)]));
  as.nobody = w.client(null);
  await as.writerA('PUT', '/v1/ns/team-a/docs/a1', { json: { title: 'alpha secret', text: 'only team a' } });
  await as.teamB('PUT', '/v1/ns/team-b:x/docs/b1', { json: { title: 'beta', text: 'team b x' } });
});
after(async () => {
  await w?.mf.dispose();
});

const MIN = 'minGeneration=1';

test('no key: 401 UNAUTHORIZED with a Bearer challenge, on every non-public route', async () => {
  for (const [method, path] of [
    ['GET', `/v1/ns/team-a/search?q=alpha`],
    ['GET', '/v1/namespaces'],
    ['PUT', '/v1/ns/team-a/docs/x'],
    ['POST', '/mcp'],
  ]) {
    const r = await as.nobody(method, path, method === 'GET' ? {} : { json: {} });
    assert.equal(r.status, 401, `${method} ${path}`);
    assert.equal(r.body.error.code, 'UNAUTHORIZED');
    assert.match(r.headers.get('www-authenticate'), /^Bearer/);
  }
});

test('a wrong key, or a malformed Authorization header: 401', async () => {
  const wrong = await w.client('mdx_not-a-real-key')('GET', '/v1/ns/team-a/search?q=alpha');
  assert.equal(wrong.status, 401);
  assert.equal(wrong.body.error.code, 'UNAUTHORIZED');
  assert.match(wrong.body.error.message, /invalid API key/);
  for (const header of ['Basic abc', 'Bearer', `Token ${w.keys.admin}`, `Bearer ${w.keys.admin} extra`]) {
    const r = await as.nobody('GET', '/v1/ns/team-a/search?q=alpha', { headers: { authorization: header } });
    assert.equal(r.status, 401, header);
  }
  // The scheme is case-insensitive (RFC 7235).
  const lower = await as.nobody('GET', `/v1/ns/team-a/search?q=alpha&${MIN}`, { headers: { authorization: `bearer ${w.keys.readerA}` } });
  assert.equal(lower.status, 200);
});

test('a read key cannot write (403 FORBIDDEN), and nothing changes', async () => {
  for (const [method, path, json] of [
    ['PUT', '/v1/ns/team-a/docs/r1', { text: 'nope' }],
    ['POST', '/v1/ns/team-a/docs', [{ id: 'r2', text: 'nope' }]],
    ['DELETE', '/v1/ns/team-a/docs/a1', undefined],
    ['POST', '/v1/ns/team-a/delete', { filter: { kind: 'x' } }],
  ]) {
    const r = await as.readerA(method, path, { json });
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.error.code, 'FORBIDDEN');
    assert.match(r.body.error.message, /role "read"/);
  }
  const s = await as.readerA('GET', `/v1/ns/team-a/stats?${MIN}`);
  assert.equal(s.body.documents, 1);
  assert.equal(s.body.generation, 1);
});

test('a key for namespace A cannot read or write B, nor learn whether B exists', async () => {
  for (const [method, path] of [
    ['GET', `/v1/ns/team-b:x/search?q=beta`],
    ['GET', `/v1/ns/team-b:x/docs/b1`],
    ['GET', `/v1/ns/team-b:x/stats`],
    ['GET', `/v1/ns/team-b:nothing/stats`],
    ['PUT', `/v1/ns/team-b:x/docs/evil`],
  ]) {
    const r = await as.writerA(method, path, method === 'GET' ? {} : { json: { text: 'x' } });
    assert.equal(r.status, 403, `${method} ${path}`);
    assert.equal(r.body.error.code, 'FORBIDDEN');
  }
  const back = await as.teamB('GET', '/v1/ns/team-a/search?q=alpha');
  assert.equal(back.status, 403);
});

test('pattern grants: team-b:* covers team-b:anything, not team-b itself nor team-bx', async () => {
  const made = await as.teamB('PUT', '/v1/ns/team-b:new/docs/n1', { json: { text: 'created by pattern' } });
  assert.equal(made.status, 200, JSON.stringify(made.body));
  for (const ns of ['team-b', 'team-bx:y', 'team-a']) {
    const r = await as.teamB('PUT', `/v1/ns/${ns}/docs/n1`, { json: { text: 'x' } });
    assert.equal(r.status, 403, ns);
  }
  const several = await as.several('GET', `/v1/ns/team-b:x/search?q=beta&${MIN}`);
  assert.deepEqual(several.body.hits.map((h) => h.id), ['b1']);
});

test('export needs an admin key', async () => {
  const r = await as.writerA('GET', '/v1/ns/team-a/export');
  assert.equal(r.status, 403);
  assert.match(r.body.error.message, /needs "admin"/);
  const ok = await as.admin('GET', `/v1/ns/team-a/export?${MIN}`);
  assert.equal(ok.status, 200);
});

test('GET /v1/namespaces lists only the namespaces a key may access', async () => {
  const names = async (c) => (await c('GET', '/v1/namespaces')).body.namespaces.map((n) => n.name);
  assert.deepEqual(await names(as.readerA), ['team-a']);
  assert.deepEqual(await names(as.teamB), ['team-b:new', 'team-b:x']);
  const all = await names(as.admin);
  assert.ok(['team-a', 'team-b:new', 'team-b:x'].every((n) => all.includes(n)));
});

test('CORS: an allowed origin gets the headers and a preflight; another origin gets none; /mcp refuses it', async () => {
  const allowed = await as.readerA('GET', `/v1/ns/team-a/search?q=alpha&${MIN}`, { headers: { origin: 'https://app.example' } });
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'https://app.example');
  const errorToo = await as.nobody('GET', '/v1/ns/team-a/search?q=alpha', { headers: { origin: 'https://app.example' } });
  assert.equal(errorToo.status, 401);
  assert.equal(errorToo.headers.get('access-control-allow-origin'), 'https://app.example', 'errors are readable by the page too');
  const other = await as.readerA('GET', `/v1/ns/team-a/search?q=alpha&${MIN}`, { headers: { origin: 'https://evil.example' } });
  assert.equal(other.headers.get('access-control-allow-origin'), null);

  const pre = await fetch(new URL('/v1/ns/team-a/docs', w.base), {
    method: 'OPTIONS',
    headers: { origin: 'https://app.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  assert.equal(pre.status, 204);
  assert.match(pre.headers.get('access-control-allow-headers'), /authorization/);
  assert.match(pre.headers.get('access-control-allow-methods'), /POST/);

  const init = { jsonrpc: '2.0', id: 1, method: 'ping' };
  const evil = await as.readerA('POST', '/mcp', { json: init, headers: { origin: 'https://evil.example' } });
  assert.equal(evil.status, 403);
  assert.equal(evil.body.error.code, 'FORBIDDEN');
  const good = await as.readerA('POST', '/mcp', { json: init, headers: { origin: 'https://app.example' } });
  assert.equal(good.status, 200);
  const noOrigin = await as.readerA('POST', '/mcp', { json: init });
  assert.equal(noOrigin.status, 200, 'non-browser clients send no Origin');
});

test('a malformed MEMDEX_API_KEYS fails closed with a 500 that names the setting, never opens up', async () => {
  const bad = await startWorker({ vars: { MEMDEX_API_KEYS: '[{"sha256":"zz","namespaces":["*"],"role":"admin"}]' } });
  try {
    const r = await bad.client(w.keys.admin)('GET', '/v1/namespaces');
    assert.equal(r.status, 500);
    assert.equal(r.body.error.code, 'INTERNAL');
    assert.match(r.body.error.message, /MEMDEX_API_KEYS/);
    const health = await bad.client(null)('GET', '/health');
    assert.equal(health.status, 200);
  } finally {
    await bad.mf.dispose();
  }
});
