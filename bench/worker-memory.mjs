// Measures the isolate memory of the memdex Worker serving a 100k-document namespace (first 100k of ../shared/data/packages, title + text) in workerd: the read isolate (wasm memory + V8 heap, steady and peak, first load and reload after a commit; searches as typed and with a typo under fuzzy 'auto', the MCP tools' default) and the writer Durable Object's isolate holding the same index.
//
//   node bench/worker-memory.mjs [--docs 100000] [--reads-only]
//
// Above MEMDEX_LAZY_ABOVE_BYTES committed (16 MiB) the read isolate opens
// the namespace lazily. `--reads-only` skips the writer isolate (which
// holds a namespace whole: at 1M documents it does not fit an isolate).
//
// How. Workers allow 128 MiB per isolate: the V8 heap plus ArrayBuffer
// backing stores plus wasm linear memory. Two Miniflare workers run the
// Worker as Cloudflare would place it: `writer` hosts the Durable Objects,
// `api` answers the requests (its Durable Object bindings point at
// `writer`), each in its own isolate. Each isolate's V8 heap comes from the
// inspector protocol (Runtime.getHeapUsage, polled every 10 ms while it
// loads, for the peak); wasm memory from the isolate itself (GET
// /v1/namespaces as admin; the writer's info() over RPC). The index is
// built in Node and committed straight into the Worker's local KV, as the
// writer would have committed it.
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { Miniflare } from 'miniflare';
import WebSocket from 'ws';
import { Memdex } from '../pkg/node.js';
import { kvStorage } from '../pkg/storage/kv.js';
import { miniflareOptions, workerOptions } from '../worker/scripts/miniflare-options.mjs';
import { client, freePort, makeKeys } from '../tests/worker/support/helpers.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const N = Number(arg('docs', 100000));
const READS_ONLY = process.argv.includes('--reads-only');
const DATA = process.env.MEMDEX_DATA ?? new URL('../../shared/data', import.meta.url).pathname;
const MiB = 2 ** 20;
const mib = (b) => +(b / MiB).toFixed(1);

async function readDocs() {
  const docs = [];
  const rl = createInterface({ input: createReadStream(`${DATA}/packages/corpus.jsonl.gz`).pipe(createGunzip()) });
  for await (const line of rl) {
    const d = JSON.parse(line);
    docs.push({ id: `big\u001f${d._id}`, namespace: 'big', title: d.title, text: d.text });
    if (docs.length >= N) break;
  }
  rl.close();
  return docs;
}

/** A Chrome DevTools Protocol session with one isolate (workerd's inspector). */
async function inspect(port, target) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/${target}`);
  await new Promise((resolve, reject) => {
    ws.on('open', resolve);
    ws.on('error', reject);
  });
  let id = 0;
  const pending = new Map();
  ws.on('message', (m) => {
    const d = JSON.parse(m);
    pending.get(d.id)?.(d.result);
    pending.delete(d.id);
  });
  const send = (method, params = {}) =>
    new Promise((resolve) => {
      pending.set(++id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  const heap = async () => {
    const r = await send('Runtime.getHeapUsage');
    return { used: r.usedSize, total: r.totalSize, buffers: r.backingStorageSize ?? 0 };
  };
  return {
    heap,
    /** Runs `fn` while sampling the heap; resolves to [fn's result, peak { total + buffers }]. */
    async during(fn) {
      let peak = 0;
      let on = true;
      const poll = (async () => {
        while (on) {
          const h = await heap();
          peak = Math.max(peak, h.total + h.buffers);
          await new Promise((r) => setTimeout(r, 10));
        }
      })();
      const out = await fn();
      on = false;
      await poll;
      const h = await heap();
      return [out, Math.max(peak, h.total + h.buffers)];
    },
    close: () => ws.close(),
  };
}

const queries = readFileSync(`${DATA}/packages/queries.txt`, 'utf8').split('\n').filter(Boolean).slice(0, 200);

async function main() {
  const { keys, secret } = await makeKeys({ admin: { namespaces: ['*'], role: 'admin' } });
  const vars = { MEMDEX_API_KEYS: secret, MEMDEX_REVALIDATE_MS: '0', MEMDEX_LIMITS: '{"requestsPerMinute":1000000}' };
  // A page cache other than the Worker's default (4 MiB), as a deployment would set it.
  if (process.env.MEMDEX_PAGE_CACHE_BYTES) vars.MEMDEX_PAGE_CACHE_BYTES = process.env.MEMDEX_PAGE_CACHE_BYTES;
  const port = await freePort();
  const options = miniflareOptions({ workers: [workerOptions({ name: 'writer', vars }), workerOptions({ name: 'api', vars, writerScript: 'writer' })] });
  const mf = new Miniflare({ ...options, inspectorPort: port });
  await mf.ready;
  const apiWorker = await mf.getWorker('api');
  const call = client('http://memdex.local', keys.admin, (u, i) => apiWorker.fetch(u, i));
  const kv = await mf.getKVNamespace('MEMDEX_KV', 'writer');
  const writers = await mf.getDurableObjectNamespace('MEMDEX_WRITER', 'writer');

  let t = Date.now();
  const docs = await readDocs();
  const built = await Memdex.open({ storage: kvStorage(kv, { prefix: 'ns/big/' }), name: 'idx', autoCommit: false });
  built.addAll(docs);
  const info = await built.commit();
  built.free();
  console.error(`built ${N} documents, committed ${mib(info.bytesWritten)} MiB in ${info.blobsWritten} blobs to KV in ${((Date.now() - t) / 1000).toFixed(1)} s`);

  // The read isolate: wasm instantiated on a tiny namespace first (baseline).
  await call('PUT', '/v1/ns/tiny/docs/x', { json: { text: 'tiny namespace' } });
  await call('GET', '/v1/ns/tiny/search?q=tiny&minGeneration=1');
  const api = await inspect(port, 'core:user:api');
  const isolate = async () => (await call('GET', '/v1/namespaces')).body.isolate;
  const base = { heap: await api.heap(), wasm: (await isolate()).wasmMemoryBytes };

  t = Date.now();
  const [first, loadPeak] = await api.during(() => call('GET', '/v1/ns/big/search?q=http%20client'));
  if (first.status !== 200) throw new Error(JSON.stringify(first.body));
  const loadMs = Date.now() - t;
  const lat = [];
  const [, queryPeak] = await api.during(async () => {
    for (const q of queries) {
      const s = Date.now();
      const r = await call('GET', `/v1/ns/big/search?q=${encodeURIComponent(q)}&limit=10`);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      lat.push(Date.now() - s);
    }
  });
  // The same queries with a typo (two letters of the longest word swapped), as agents type them.
  const typoLat = [];
  const [, typoPeak] = await api.during(async () => {
    for (const q of queries.slice(0, 100)) {
      const words = q.split(' ');
      const w = words.reduce((a, b) => (b.length > a.length ? b : a));
      const typo = w.length > 3 ? w.slice(0, 1) + w[2] + w[1] + w.slice(3) : w;
      const s = Date.now();
      const r = await call('GET', `/v1/ns/big/search?q=${encodeURIComponent(words.map((x) => (x === w ? typo : x)).join(' '))}&limit=10&fuzzy=auto`);
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      typoLat.push(Date.now() - s);
    }
  });
  const steady = { heap: await api.heap(), info: await isolate() };

  // A new commit (made from Node, as the writer would): the isolate reloads its copy.
  const next = await Memdex.open({ storage: kvStorage(kv, { prefix: 'ns/big/' }), name: 'idx', autoCommit: false });
  next.add({ id: 'big\u001fnew', namespace: 'big', title: 'new', text: 'a document of the next commit' });
  await next.commit();
  next.free();
  t = Date.now();
  const [reloaded, reloadPeak] = await api.during(() => call('GET', '/v1/ns/big/search?q=next%20commit'));
  const reloadMs = Date.now() - t;
  const afterReload = { heap: await api.heap(), info: await isolate() };
  api.close();
  const p = (a, q) => [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))];
  const copy = (i) => i.namespaces.find((n) => n.ns === 'big');
  const read = {
    lazy: copy(steady.info).lazy,
    baseline: { heapMiB: mib(base.heap.total), wasmMiB: mib(base.wasm) },
    firstSearchMs: loadMs,
    loadPeakHeapMiB: mib(loadPeak),
    queryPeakHeapMiB: mib(queryPeak),
    typoPeakHeapMiB: mib(typoPeak),
    steady: { heapUsedMiB: mib(steady.heap.used), heapTotalMiB: mib(steady.heap.total), wasmMiB: mib(steady.info.wasmMemoryBytes), copyMiB: mib(copy(steady.info).bytes) },
    searchP50Ms: p(lat, 0.5),
    searchP99Ms: p(lat, 0.99),
    typoP50Ms: p(typoLat, 0.5),
    typoP99Ms: p(typoLat, 0.99),
    reload: { ms: reloadMs, generation: reloaded.body.generation, peakHeapMiB: mib(reloadPeak), heapTotalMiB: mib(afterReload.heap.total), wasmMiB: mib(afterReload.info.wasmMemoryBytes) },
    peakIsolateMiB: mib(Math.max(loadPeak, queryPeak, typoPeak, reloadPeak) + afterReload.info.wasmMemoryBytes),
  };
  if (READS_ONLY) {
    await mf.dispose();
    console.log(JSON.stringify({ date: new Date().toISOString(), documents: N, committedMiB: mib(info.bytesWritten), read }, null, 2));
    return;
  }

  // The writer isolate: one PUT makes the namespace's Durable Object adopt
  // the manifest, open the index and commit.
  const writer = await inspect(port, 'core:user:writer');
  const wBase = await writer.heap();
  t = Date.now();
  const [put, writePeak] = await writer.during(() => call('PUT', '/v1/ns/big/docs/written', { json: { title: 'written', text: 'through the writer' } }));
  const writeMs = Date.now() - t;
  const [burst, burstPeak] = await writer.during(() =>
    Promise.all(Array.from({ length: 50 }, (_, i) => call('PUT', `/v1/ns/big/docs/w${i}`, { json: { text: `burst ${i}` } }))),
  );
  // Plain values: RPC results are proxies that die with the instance.
  const wInfo = JSON.parse(JSON.stringify(await writers.get(writers.idFromName('big')).info()));
  const wHeap = await writer.heap();
  writer.close();
  await mf.dispose();

  const result = {
    date: new Date().toISOString(),
    documents: N,
    committedMiB: mib(info.bytesWritten),
    read,
    writer: {
      baselineHeapMiB: mib(wBase.total),
      firstWriteMs: writeMs,
      firstWriteStatus: put.status,
      burst: { writes: burst.length, ok: burst.filter((r) => r.status === 200).length, generations: new Set(burst.map((r) => r.body.generation)).size },
      peakHeapMiB: mib(Math.max(writePeak, burstPeak)),
      heapTotalMiB: mib(wHeap.total),
      wasmMiB: mib(wInfo.wasmMemoryBytes),
      indexMiB: mib(wInfo.bytes),
      peakIsolateMiB: mib(Math.max(writePeak, burstPeak) + wInfo.wasmMemoryBytes),
    },
  };
  console.log(JSON.stringify(result, null, 2));
}

await main();
