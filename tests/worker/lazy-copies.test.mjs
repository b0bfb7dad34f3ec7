// Read copies opened lazily, in workerd: two isolates share the KV
// namespace and the writer; `whole` loads every namespace whole
// (MEMDEX_LAZY_ABOVE_BYTES large), `lazy` opens every one lazily (0). The
// same REST reads (search in several modes, get, suggest, stats, describe)
// and MCP read tools (real SDK client) answer alike from both isolates'
// copies; an export, which a lazy copy does not hold, is the writer's; the
// diagnostics say which kind each copy is.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { client, startWorker } from './support/helpers.mjs';

let w;
/** @type {Record<'whole' | 'lazy', ReturnType<typeof client>>} */
const calls = {};
/** @type {Record<'whole' | 'lazy', (url: string, init: object) => Promise<Response>>} */
const fetchers = {};
const WORDS = 'deploy friday rollback cache agent memory review budget pelican postgres staging release'.split(' ');

before(async () => {
  w = await startWorker({
    isolates: ['whole', 'lazy'],
    vars: { MEMDEX_PUBLISH_MS: '0', MEMDEX_REVALIDATE_MS: '0' },
    isolateVars: { whole: { MEMDEX_LAZY_ABOVE_BYTES: String(2 ** 32 - 1) }, lazy: { MEMDEX_LAZY_ABOVE_BYTES: '0' } },
  });
  for (const name of ['whole', 'lazy']) {
    const worker = await w.mf.getWorker(name);
    fetchers[name] = (url, init) => worker.fetch(url, init);
    calls[name] = client(`http://${name}.local`, w.keys.admin, fetchers[name]);
  }
  // Three commits (three segments), a replaced and a removed document.
  for (let batch = 0; batch < 3; batch++) {
    const docs = Array.from({ length: 400 }, (_, k) => {
      const i = batch * 400 + k;
      return { id: `m${i}`, title: `${WORDS[i % 12]} note ${i}`, text: `${WORDS[(i * 5) % 12]} ${WORDS[(i * 7) % 12]} item${i % 97} deploying` };
    });
    const added = await calls.whole('POST', '/v1/ns/big/docs', { json: docs });
    assert.equal(added.status, 200, JSON.stringify(added.body));
  }
  assert.equal((await calls.whole('PUT', '/v1/ns/big/docs/m7', { json: { text: 'replaced pelican text' } })).status, 200);
  assert.equal((await calls.whole('DELETE', '/v1/ns/big/docs/m8')).status, 200);
});
after(async () => {
  await w?.mf.dispose();
});

/** A response without what differs between any two answers (timings). */
const comparable = (r) => ({ status: r.status, body: JSON.parse(JSON.stringify(r.body, (k, v) => (k === 'tookMs' ? undefined : v))) });

test('REST reads answer alike from a lazy copy and a whole one', async () => {
  const paths = [
    '/v1/ns/big/search?q=deploy+friday&limit=10&highlight=true',
    '/v1/ns/big/search?q=pelican+postgres&mode=and',
    '/v1/ns/big/search?q=stag*',
    '/v1/ns/big/search?q=rollbak&fuzzy=auto',
    '/v1/ns/big/search?q=%22deploy+friday%22',
    '/v1/ns/big/search?q=item12&limit=5&offset=2',
    '/v1/ns/big/docs/m7',
    '/v1/ns/big/docs/m123',
    '/v1/ns/big/docs/m8',
    '/v1/ns/big/docs/nothing',
    '/v1/ns/big/suggest?q=dep',
    '/v1/ns/big/suggest?q=deploy+fri',
    '/v1/ns/big',
  ];
  for (const path of paths) {
    const whole = await calls.whole('GET', path);
    const lazy = await calls.lazy('GET', path);
    assert.deepEqual(comparable(lazy), comparable(whole), path);
    if (whole.status === 200) assert.equal(lazy.headers.get('x-memdex-served-by'), 'isolate', path);
  }
  const hits = (await calls.lazy('GET', '/v1/ns/big/search?q=deploy')).body.hits;
  assert.ok(hits.length > 0);
  const post = await calls.lazy('POST', '/v1/ns/big/search', { json: { q: 'memory review', limit: 3 } });
  assert.deepEqual(comparable(post), comparable(await calls.whole('POST', '/v1/ns/big/search', { json: { q: 'memory review', limit: 3 } })));

  const stats = await calls.lazy('GET', '/v1/ns/big/stats');
  assert.equal(stats.body.documents, 1199);
  assert.ok(stats.body.lazy.committedBytes > 0 && stats.body.lazy.fetches > 0, JSON.stringify(stats.body));
  assert.equal((await calls.whole('GET', '/v1/ns/big/stats')).body.lazy, undefined);

  const info = await calls.lazy('GET', '/v1/namespaces');
  assert.equal(info.body.isolate.namespaces.find((/** @type {any} */ n) => n.ns === 'big')?.lazy, true, JSON.stringify(info.body.isolate));
  const whole = await calls.whole('GET', '/v1/namespaces');
  assert.equal(whole.body.isolate.namespaces.find((/** @type {any} */ n) => n.ns === 'big')?.lazy, false);
});

test('an export is answered by the writer for a lazy copy', async () => {
  const lazy = await calls.lazy('GET', '/v1/ns/big/export');
  const whole = await calls.whole('GET', '/v1/ns/big/export');
  assert.equal(lazy.status, 200);
  assert.equal(lazy.headers.get('x-memdex-served-by'), 'writer');
  assert.equal(whole.headers.get('x-memdex-served-by'), 'isolate');
});

test('MCP read tools answer alike from a lazy copy and a whole one; write tools still write', async () => {
  const connect = async (name) => {
    const c = new Client({ name: 'memdex-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`http://${name}.local/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${w.keys.admin}` } },
      fetch: fetchers[name],
    });
    await c.connect(transport);
    return c;
  };
  const [whole, lazy] = [await connect('whole'), await connect('lazy')];
  try {
    const calls = [
      { name: 'memory_search', arguments: { namespace: 'big', query: 'deploy friday budget' } },
      { name: 'memory_search', arguments: { namespace: 'big', query: 'pelcan' } },
      { name: 'memory_get', arguments: { namespace: 'big', ids: ['m7', 'm11', 'm8'] } },
      { name: 'memory_list', arguments: { namespace: 'big', limit: 5 } },
    ];
    for (const call of calls) {
      const [a, b] = [await whole.callTool(call), await lazy.callTool(call)];
      assert.deepEqual(b, a, JSON.stringify(call));
      assert.ok(!a.isError, JSON.stringify(a));
    }
    const stored = await lazy.callTool({ name: 'memory_store', arguments: { namespace: 'big', text: 'a memory stored through the lazy isolate' } });
    assert.ok(!stored.isError, JSON.stringify(stored));
  } finally {
    await whole.close();
    await lazy.close();
  }
});
