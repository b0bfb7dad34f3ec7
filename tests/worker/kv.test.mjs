// The Workers KV storage adapter (pkg/storage/kv.js) inside workerd, through
// Miniflare with a real (local, simulated) KV namespace binding: the one
// storage conformance suite runs in the worker, and an index committed to KV
// reopens (in a fresh request, from KV only, in full and lazily) with
// identical results, and the values memdex read are released (detached). The test worker below is not part of the product
// worker; it only exists here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useTestWorker } from './support/helpers.mjs';

const CONFORMANCE_CHECKS = 12;

// Test worker source. It imports the built package files by path, like
// worker/src/index.js; `scriptPath` tells Miniflare where it "lives" so
// those relative imports resolve.
const WORKER = /* js */ `
import { Memdex } from '../../pkg/workerd.js';
import { kvStorage } from '../../pkg/storage/kv.js';
// The conformance suite is not in the shipped wasm: a test build has it
// (scripts/build-conformance).
import conformanceWasm from '../../target/conformance-pkg/memdex_bg.wasm';
import { initSync, runStorageConformance } from '../../target/conformance-pkg/memdex.js';

initSync({ module: conformanceWasm });

const DOCS = [
  { id: 'r1', title: 'Never deploy on Fridays', text: 'deploys wait until monday', kind: 'rule' },
  { id: 'r2', title: 'Dark mode', text: 'the user prefers dark mode in every editor', kind: 'preference' },
  { id: 'r3', title: 'Rust builds', text: 'release builds use lto and one codegen unit', kind: 'note' },
  { id: 'r4', title: 'Workers KV', text: 'values stay under 25 MiB; writes are eventually consistent', kind: 'note' },
];
const QUERIES = ['deploy friday', 'dark mode editor', 'kv consistent', 'builds'];

function results(index) {
  return QUERIES.map((q) => index.search(q, { limit: 10 }).hits.map((h) => [h.id, h.score]));
}

async function route(url, env) {
  const storage = kvStorage(env.KV, { prefix: url.searchParams.get('prefix') ?? '' });
  const open = () => Memdex.open({ storage, name: 'idx', autoCommit: false });
  switch (url.pathname) {
    case '/conformance':
      return { passed: await runStorageConformance(storage, 'conf'), runtime: navigator.userAgent };
    case '/commit': {
      const index = await open();
      for (const d of DOCS) index.add(d);
      const info = await index.commit();
      const out = { info, results: results(index) };
      index.free();
      return out;
    }
    case '/reopen': {
      const index = await open();
      if (index.generation === 0) return { missing: true };
      const out = { generation: index.generation, size: index.size, results: results(index) };
      if (url.searchParams.has('add')) {
        index.add({ id: 'added', title: 'Quokka', text: 'quokka rollout checklist' });
        out.info = await index.commit();
      }
      index.free();
      return out;
    }
    case '/lazy': {
      // Every value read is released once copied in: its buffer detached.
      const released = [];
      const watched = { ...storage, release(v) { storage.release(v); released.push(v.buffer.detached === true && v.byteLength === 0); } };
      const index = await Memdex.open({ storage: watched, name: 'idx', lazy: true, cacheBytes: 65536 });
      const out = [];
      for (const q of QUERIES) out.push((await index.search(q, { limit: 10 })).hits.map((h) => [h.id, h.score]));
      const { documents: docs, lazy } = await index.stats();
      index.close();
      return { results: out, docs, fetches: lazy.fetches, released: released.length, detached: released.every(Boolean) };
    }
    case '/corrupt-check': {
      try {
        (await open()).free();
        return { code: null };
      } catch (err) {
        return { code: err.code, message: err.message };
      }
    }
  }
  return { error: 'no route' };
}

export default {
  async fetch(request, env) {
    try {
      return Response.json(await route(new URL(request.url), env));
    } catch (err) {
      return Response.json({ error: String(err?.message ?? err), code: err?.code }, { status: 500 });
    }
  },
};
`;

const worker = useTestWorker(WORKER, 'kv-test-worker');

const call = (path) => worker.call(path);

test('kvStorage passes the storage conformance suite inside workerd', async () => {
  const body = await call('/conformance');
  assert.equal(body.runtime, 'Cloudflare-Workers'); // ran in workerd, not Node
  assert.equal(body.passed, CONFORMANCE_CHECKS);
  const again = await call('/conformance?prefix=tenant-a:');
  assert.equal(again.passed, CONFORMANCE_CHECKS);
  const kv = await worker.mf.getKVNamespace('KV');
  assert.deepEqual((await kv.list()).keys, [], 'the suite removed its keys');
});

test('an index committed to KV reopens from KV with identical results, then commits incrementally', async () => {
  const committed = await call('/commit');
  assert.equal(committed.info.generation, 1);

  // The blobs and the manifest are really in the KV namespace.
  const kv = await worker.mf.getKVNamespace('KV');
  const keys = (await kv.list({ prefix: 'idx/' })).keys.map((k) => k.name);
  assert.ok(keys.includes('idx/manifest'), keys.join(','));
  assert.ok(keys.some((k) => k.startsWith('idx/blob/')));

  const reopened = await call('/reopen?add=1');
  assert.equal(reopened.generation, 1);
  assert.equal(reopened.size, 4);
  assert.deepEqual(reopened.results, committed.results);
  assert.equal(reopened.info.generation, 2);
  assert.ok(reopened.info.bytesWritten < committed.info.bytesWritten);

  const after = await call('/reopen');
  assert.equal(after.generation, 2);
  assert.equal(after.size, 5);
});

test('an index in KV opened lazily (heads first, parts per search) answers as opened in full', async () => {
  const full = await call('/reopen');
  const lazy = await call('/lazy');
  assert.equal(lazy.docs, full.size);
  assert.deepEqual(lazy.results, full.results);
  assert.ok(lazy.fetches > 0, 'parts were read per search');
  // Each value read (manifest, heads, parts) went back to the adapter, freed.
  assert.ok(lazy.released > lazy.fetches, `${lazy.released} released, ${lazy.fetches} fetches`);
  assert.equal(lazy.detached, true);
});

test('a flipped byte in a KV blob makes loading fail with CORRUPT', async () => {
  const kv = await worker.mf.getKVNamespace('KV');
  const [first] = (await kv.list({ prefix: 'idx/blob/' })).keys;
  const bytes = new Uint8Array(await kv.get(first.name, 'arrayBuffer'));
  bytes[bytes.length >> 1] ^= 0x10;
  await kv.put(first.name, bytes);
  const body = await call('/corrupt-check');
  assert.equal(body.code, 'CORRUPT', body.message);
});
