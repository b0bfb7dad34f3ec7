// Failures inside the service (issue 27, point 2's trapped engine and
// acceptance 3's phantom writes), injected through the test hooks that
// only MEMDEX_TEST_HOOKS=1 turns on (worker/src/test-hooks.js), in workerd:
// - a trapped engine is thrown away: the request that trapped answers 500
//   INTERNAL, the next reads and writes of the namespace succeed with its
//   data intact, for an isolate's read copy and for the writer;
// - on a writer storage failing at each commit step in turn (blob put to
//   KV, pending marker, manifest swap, and a swap that stored but reported
//   failure), every write that answered an error left no trace (GET 404,
//   the retry stores it) and every write that answered success is there
//   after a restart of the whole service from its persisted state.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { client, makeKeys, startWorker, tempDir } from './support/helpers.mjs';

const HOOKS = { MEMDEX_TEST_HOOKS: '1', MEMDEX_PUBLISH_MS: '0', MEMDEX_REVALIDATE_MS: '0' };

test('the hooks are off without MEMDEX_TEST_HOOKS', async () => {
  const w = await startWorker();
  try {
    const call = w.client(w.keys.admin);
    await call('PUT', '/v1/ns/off/docs/a', { json: { text: 'hooks off' } });
    const r = await call('GET', '/v1/ns/off/search?q=hooks', { headers: { 'x-memdex-test-hook': 'exhaust-memory' } });
    assert.equal(r.status, 200, 'the header is ignored');
    const writers = await w.mf.getDurableObjectNamespace('MEMDEX_WRITER');
    const refused = await writers.get(writers.idFromName('off')).testHook('fail:blob');
    assert.deepEqual({ ...refused }, { ok: false, message: 'test hooks are off (MEMDEX_TEST_HOOKS)' });
    const put = await call('PUT', '/v1/ns/off/docs/b', { json: { text: 'stored' } });
    assert.equal(put.status, 200, 'no step failed');
  } finally {
    await w.mf.dispose();
  }
});

test('a trapped engine answers INTERNAL once; the next reads and writes of the namespace succeed, data intact', async () => {
  // Two isolates: `memdex` hosts the writers, `front` answers from its read copies.
  const w = await startWorker({ isolates: ['memdex', 'front'], vars: HOOKS });
  try {
    const front = await w.mf.getWorker('front');
    const call = client('http://front.local', w.keys.admin, (url, init) => front.fetch(url, init));
    const writers = await w.mf.getDurableObjectNamespace('MEMDEX_WRITER', 'memdex');
    const writer = writers.get(writers.idFromName('trap'));
    const docs = ['alpha', 'beta', 'gamma'].map((t) => ({ id: t, text: `${t} heron` }));
    const g = (await call('POST', '/v1/ns/trap/docs', { json: docs })).body.generation;
    const search = (headers) => call('GET', '/v1/ns/trap/search?q=heron', { headers });
    const ids = (r) => r.body.hits.map((h) => h.id).sort();
    const warm = await search();
    assert.equal(warm.headers.get('x-memdex-served-by'), 'isolate');
    assert.deepEqual(ids(warm), ['alpha', 'beta', 'gamma']);

    // The read copy's engine traps.
    const trapped = await search({ 'x-memdex-test-hook': 'exhaust-memory' });
    assert.equal(trapped.status, 500, JSON.stringify(trapped.body));
    assert.equal(trapped.body.error.code, 'INTERNAL');
    const again = await search();
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.headers.get('x-memdex-served-by'), 'isolate');
    assert.deepEqual(ids(again), ['alpha', 'beta', 'gamma']);
    assert.equal((await call('GET', '/v1/ns/trap/docs/beta')).body.text, 'beta heron');

    // The writer's engine traps: the write fails and leaves nothing.
    assert.equal((await writer.testHook('exhaust-memory')).ok, true);
    const failed = await call('PUT', '/v1/ns/trap/docs/delta', { json: { text: 'delta heron' } });
    assert.equal(failed.status, 500, JSON.stringify(failed.body));
    assert.equal(failed.body.error.code, 'INTERNAL');
    const gone = await call('GET', `/v1/ns/trap/docs/delta?minGeneration=${g}`);
    assert.equal(gone.status, 404, JSON.stringify(gone.body));
    const retry = await call('PUT', '/v1/ns/trap/docs/delta', { json: { text: 'delta heron' } });
    assert.equal(retry.status, 200, JSON.stringify(retry.body));
    assert.equal(retry.body.generation, g + 1);
    const all = await call('GET', `/v1/ns/trap/search?q=heron&minGeneration=${g + 1}`);
    assert.deepEqual(ids(all), ['alpha', 'beta', 'delta', 'gamma']);
  } finally {
    await w.mf.dispose();
  }
});

describeCommitFailures();

function describeCommitFailures() {
  const dir = tempDir('faults');
  let made;
  let w;
  let call;
  let writer;
  const start = async () => {
    w = await startWorker({ persist: dir, vars: { ...HOOKS, MEMDEX_API_KEYS: made.secret, MEMDEX_GROUP_COMMIT_MS: '40' } });
    call = w.client(made.keys.admin);
    const writers = await w.mf.getDurableObjectNamespace('MEMDEX_WRITER');
    writer = writers.get(writers.idFromName('acid'));
  };
  before(async () => {
    made = await makeKeys({ admin: { namespaces: ['*'], role: 'admin' } });
    await start();
  });
  after(async () => {
    await w?.mf.dispose();
  });

  test('a write that fails at any commit step leaves no trace; every acknowledged write survives a restart', async () => {
    /** @type {Map<string, string>} id -> text of every write answered 200 */
    const acknowledged = new Map();
    let gen = (await call('PUT', '/v1/ns/acid/docs/seed', { json: { text: 'seed egret' } })).body.generation;
    acknowledged.set('seed', 'seed egret');

    for (const step of ['blob', 'marker', 'manifest', 'manifest-after']) {
      assert.equal((await writer.testHook(`fail:${step}`)).ok, true);
      // Three writers share the failing commit (one group commit).
      const ids = [0, 1, 2].map((i) => `${step}-${i}`);
      const answers = await Promise.all(ids.map((id) => call('PUT', `/v1/ns/acid/docs/${id}`, { json: { text: `${id} egret` } })));
      if (step === 'manifest-after') {
        // The swap stored: the writer sees it in storage and says so.
        for (const r of answers) assert.equal(r.status, 200, `${step}: ${JSON.stringify(r.body)}`);
      } else {
        for (const r of answers) {
          assert.equal(r.status, 503, `${step}: ${JSON.stringify(r.body)}`);
          assert.equal(r.body.error.code, 'STORAGE');
        }
      }
      for (const [i, r] of answers.entries()) {
        const id = ids[i];
        if (r.status === 200) {
          acknowledged.set(id, `${id} egret`);
          gen = Math.max(gen, r.body.generation);
          assert.equal((await call('GET', `/v1/ns/acid/docs/${id}?minGeneration=${r.body.generation}`)).body.text, `${id} egret`);
          continue;
        }
        const trace = await call('GET', `/v1/ns/acid/docs/${id}?minGeneration=${gen}`);
        assert.equal(trace.status, 404, `${step}: the failed write of ${id} left ${JSON.stringify(trace.body)}`);
        const retry = await call('PUT', `/v1/ns/acid/docs/${id}`, { json: { text: `${id} egret` } });
        assert.equal(retry.status, 200, JSON.stringify(retry.body));
        acknowledged.set(id, `${id} egret`);
        gen = retry.body.generation;
      }
      // A later write commits nothing of the failed ones but its own.
      const next = await call('GET', `/v1/ns/acid/stats?minGeneration=${gen}`);
      assert.equal(next.body.documents, acknowledged.size, `${step}: ${next.body.documents} documents, ${acknowledged.size} acknowledged`);
    }

    // A delete that fails is not applied later either.
    assert.equal((await writer.testHook('fail:manifest')).ok, true);
    assert.equal((await call('DELETE', '/v1/ns/acid/docs/seed')).status, 503);
    await call('PUT', '/v1/ns/acid/docs/after-delete', { json: { text: 'after-delete egret' } }).then((r) => {
      acknowledged.set('after-delete', 'after-delete egret');
      gen = r.body.generation;
    });
    assert.equal((await call('GET', `/v1/ns/acid/docs/seed?minGeneration=${gen}`)).status, 200, 'the failed delete was not applied by the next commit');

    // Restart everything from the persisted state: every acknowledged write is there, nothing else.
    await w.mf.dispose();
    await start();
    const stats = await call('GET', `/v1/ns/acid/stats?minGeneration=${gen}`);
    assert.equal(stats.body.generation, gen);
    assert.equal(stats.body.documents, acknowledged.size);
    for (const [id, text] of acknowledged) assert.equal((await call('GET', `/v1/ns/acid/docs/${id}?minGeneration=${gen}`)).body.text, text, id);
  });
}
