// Persistence: writes through `make worker`, then the whole process group
// (make, node, workerd) is killed with SIGKILL while writers are still
// sending; `make worker` starts again on the same state folder and every
// acknowledged write is there (deletes included). Then a clean stop
// (SIGTERM) and a third start: still all there.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Memdex } from '../../pkg/node.js';
import { client, freePort, makeKeys, startMakeWorker, tempDir } from './support/helpers.mjs';

const NS = 'persist:a';
const SEP = '\u001f';

async function snapshot(base, key, minGeneration) {
  const res = await fetch(new URL(`/v1/ns/${NS}/export?minGeneration=${minGeneration}`, base), { headers: { authorization: `Bearer ${key}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const generation = Number(res.headers.get('x-memdex-generation'));
  return { index: await Memdex.import(new Uint8Array(await res.arrayBuffer())), generation };
}

test('every acknowledged write survives SIGKILL of workerd and a restart from .worker-state', { timeout: 180_000 }, async () => {
  const { keys, secret } = await makeKeys({ admin: { namespaces: ['*'], role: 'admin' } });
  const state = tempDir('persist');
  const port = await freePort();
  let server = await startMakeWorker({ port, state, secret });
  let call = client(server.base, keys.admin);

  const acked = new Map(); // id -> text
  const deleted = new Set();
  let maxGen = 0;
  let stop = false;
  const note = (r) => {
    if (r.status === 200) maxGen = Math.max(maxGen, r.body.generation);
    return r.status === 200;
  };
  const writer = async (w) => {
    for (let i = 0; !stop; i++) {
      const id = `w${w}-${i}`;
      const text = `writer ${w} note ${i} albatross`;
      try {
        if (i % 10 === 9) {
          const docs = Array.from({ length: 20 }, (_, j) => ({ id: `${id}-b${j}`, text: `${text} bulk ${j}` }));
          if (note(await call('POST', `/v1/ns/${NS}/docs`, { json: docs }))) for (const d of docs) acked.set(d.id, d.text);
        } else if (i % 7 === 6) {
          const victim = `w${w}-${i - 1}`;
          if (note(await call('DELETE', `/v1/ns/${NS}/docs/${victim}`))) {
            deleted.add(victim);
            acked.delete(victim);
          }
        } else if (note(await call('PUT', `/v1/ns/${NS}/docs/${id}`, { json: { text } }))) acked.set(id, text);
      } catch {
        return; // the server died under us: this write is not acknowledged
      }
    }
  };
  const writers = [0, 1, 2, 3].map(writer);
  while (acked.size < 300) await new Promise((r) => setTimeout(r, 20));
  await server.stop('SIGKILL'); // writes are in flight at this moment
  stop = true;
  await Promise.all(writers);
  assert.ok(acked.size >= 300 && deleted.size > 0, `${acked.size} acked, ${deleted.size} deleted`);

  const verify = async () => {
    const { index, generation } = await snapshot(server.base, keys.admin, maxGen);
    try {
      const missing = [...acked.keys()].filter((id) => index.get(NS + SEP + id)?.text !== acked.get(id));
      assert.deepEqual(missing, [], `${missing.length} of ${acked.size} acknowledged writes lost`);
      const resurrected = [...deleted].filter((id) => index.get(NS + SEP + id));
      assert.deepEqual(resurrected, [], 'acknowledged deletes came back');
      assert.ok(generation >= maxGen, `generation ${generation} < acknowledged ${maxGen}`);
    } finally {
      index.free();
    }
  };

  server = await startMakeWorker({ port, state, secret });
  call = client(server.base, keys.admin);
  await verify();
  // The REST read path agrees (with the acknowledged generation: KV's
  // copy of the manifest may lag behind the writer's after a crash).
  const some = [...acked.keys()].slice(0, 20);
  for (const id of some) {
    assert.equal((await call('GET', `/v1/ns/${NS}/docs/${encodeURIComponent(id)}?minGeneration=${maxGen}`)).body.text, acked.get(id));
  }

  // Writing after the restart continues the same index.
  const more = await call('PUT', `/v1/ns/${NS}/docs/after-restart`, { json: { text: 'written after the crash' } });
  assert.equal(more.status, 200);
  assert.ok(more.body.generation > maxGen);
  acked.set('after-restart', 'written after the crash');
  maxGen = more.body.generation;

  await server.stop('SIGTERM');
  server = await startMakeWorker({ port, state, secret });
  try {
    await verify();
  } finally {
    await server.stop();
  }
});
