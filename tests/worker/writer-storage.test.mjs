// The writer's storage adapter (worker/src/writer-storage.js: blobs in
// Workers KV, manifest and pending markers in Durable Object storage)
// inside a Durable Object in workerd: it passes the one storage
// conformance suite every adapter passes, with immediate and with deferred
// blob deletion; its swap is atomic against concurrent swaps; a manifest
// swap is published to KV, at most once per interval; a missing KV copy is
// re-published by reconcile(), and a manifest only KV has is adopted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestWorker } from './support/helpers.mjs';

const WORKER = /* js */ `
import { DurableObject } from 'cloudflare:workers';
// The conformance suite is not in the shipped wasm: a test build has it
// (scripts/build-conformance, as tests/worker/kv.test.mjs).
import wasmModule from '../../target/conformance-pkg/memdex_bg.wasm';
import { initSync, runStorageConformance } from '../../target/conformance-pkg/memdex.js';
import { writerStorage } from '../../worker/src/writer-storage.js';

initSync({ module: wasmModule });

export class Box extends DurableObject {
  storage(graceMs) {
    return writerStorage(this.ctx.storage, this.env.KV, { prefix: 'p/', graceMs });
  }
  async alarm() {
    await this.storage(1).sweep();
  }
  async conformance(graceMs) {
    return runStorageConformance(this.storage(graceMs), 'conf');
  }
  async race() {
    // 20 swaps from the same expected value at once: exactly one stores.
    const s = this.storage(0);
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => s.swap('r/manifest', null, new Uint8Array([i]))));
    const stored = await s.get('r/manifest');
    const published = new Uint8Array(await this.env.KV.get('p/r/manifest', 'arrayBuffer'));
    return { wins: results.filter(Boolean).length, stored: [...stored], published: [...published] };
  }
  async throttle() {
    // Five commits within 300 ms: KV gets the first at once and the last
    // when the interval has passed; the ones between are skipped.
    const s = writerStorage(this.ctx.storage, this.env.KV, { prefix: 'p/', graceMs: 0, publishMs: 300 });
    const kvNow = async () => [...new Uint8Array(await this.env.KV.get('p/t/manifest', 'arrayBuffer'))];
    let prev = null;
    for (let i = 1; i <= 5; i++) {
      await s.swap('t/manifest', prev, new Uint8Array([i]));
      prev = new Uint8Array([i]);
    }
    const soon = await kvNow();
    await new Promise((r) => setTimeout(r, 500));
    return { soon, later: await kvNow(), stored: [...(await s.get('t/manifest'))] };
  }
  async reconcile() {
    const s = this.storage(0);
    await s.swap('x/manifest', null, new Uint8Array([7, 7]));
    await this.env.KV.delete('p/x/manifest'); // a lost publish
    await s.reconcile('x');
    const republished = [...new Uint8Array(await this.env.KV.get('p/x/manifest', 'arrayBuffer'))];
    await this.env.KV.put('p/y/manifest', new Uint8Array([9])); // only KV has it
    const adopted = [...(await s.reconcile('y'))];
    const nowInDo = [...(await s.get('y/manifest'))];
    return { republished, adopted, nowInDo };
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const box = env.BOX.get(env.BOX.idFromName(url.searchParams.get('box') ?? 'a'));
    try {
      if (url.pathname === '/conformance') return Response.json({ passed: await box.conformance(Number(url.searchParams.get('grace'))) });
      if (url.pathname === '/race') return Response.json(await box.race());
      if (url.pathname === '/throttle') return Response.json(await box.throttle());
      if (url.pathname === '/reconcile') return Response.json(await box.reconcile());
    } catch (err) {
      return Response.json({ error: String(err?.message ?? err) }, { status: 500 });
    }
    return new Response('no route', { status: 404 });
  },
};
`;

const worker = useTestWorker(WORKER, 'writer-storage-worker', { cf: false, durableObjects: { BOX: { className: 'Box', useSQLite: true } } });

const call = (path) => worker.call(path);

test('writerStorage passes the storage conformance suite in a Durable Object, with and without deferred deletion', async () => {
  assert.equal((await call('/conformance?grace=0&box=a')).passed, 12);
  assert.equal((await call('/conformance?grace=60000&box=b')).passed, 12);
});

test('swap is atomic: of 20 concurrent swaps from the same value one stores, and that value is published to KV', async () => {
  const r = await call('/race');
  assert.equal(r.wins, 1);
  assert.deepEqual(r.published, r.stored);
});

test('publishing to KV is throttled; the latest manifest lands', async () => {
  const r = await call('/throttle');
  assert.deepEqual(r.soon, [1]);
  assert.deepEqual(r.later, [5]);
  assert.deepEqual(r.stored, [5]);
});

test('reconcile re-publishes a manifest KV lost and adopts one only KV has', async () => {
  const r = await call('/reconcile');
  assert.deepEqual(r.republished, [7, 7]);
  assert.deepEqual(r.adopted, [9]);
  assert.deepEqual(r.nowInDo, [9]);
});
