// Measures the memdex Worker under mixed load on loopback: 5,000 requests (80 % searches, 20 % single-document writes) at concurrency 16 against `make worker` (workerd, persistence on), reporting p50/p99 latency, throughput, commits made and error counts, then checking 0 5xx and 0 lost writes (every acknowledged id is found afterwards).
//
//   node bench/worker-load.mjs [--requests 5000] [--concurrency 16] [--seed 2000] [--timeout 300]
//   node bench/worker-load.mjs --url http://127.0.0.1:8787 --key mdx_...   (a Worker you started)
//
// Without --url it starts `make worker` itself on a free port with a
// temporary state folder and its own admin key, and stops it afterwards.
// The namespace `load` is seeded with --seed documents of
// ../shared/data/packages (title + text), in bulk. Searches take queries
// from packages/queries.txt; one search in four of each client passes the
// generation of that client's last write (read-your-writes), the others
// are plain. Writes are PUTs of new documents. Bounded: a fixed number of
// requests, and --timeout seconds in all (then it stops and says so).
// Exit status 1 if any request got a 5xx or an acknowledged write is lost.
import { createReadStream, readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { Memdex } from '../pkg/node.js';
import { client, freePort, makeKeys, startMakeWorker, tempDir } from '../tests/worker/support/helpers.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const REQUESTS = Number(arg('requests', 5000));
const CONCURRENCY = Number(arg('concurrency', 16));
const SEED = Number(arg('seed', 2000));
const TIMEOUT_S = Number(arg('timeout', 300));
const DATA = process.env.MEMDEX_DATA ?? new URL('../../shared/data', import.meta.url).pathname;
const NS = 'load';

// Deterministic choices (mulberry32), so runs are comparable.
let state = 0x5eed;
const random = () => {
  state = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(state ^ (state >>> 15), 1 | state);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};

async function corpus(n) {
  const docs = [];
  const rl = createInterface({ input: createReadStream(`${DATA}/packages/corpus.jsonl.gz`).pipe(createGunzip()) });
  for await (const line of rl) {
    const d = JSON.parse(line);
    docs.push({ id: d._id, title: d.title, text: d.text, kind: d.kind });
    if (docs.length >= n) break;
  }
  rl.close();
  return docs;
}

const pct = (a, q) => (a.length ? [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))] : null);
const ms = (x) => (x === null ? null : +x.toFixed(2));

async function main() {
  let server = null;
  let base = arg('url');
  let key = arg('key');
  if (!base) {
    const made = await makeKeys({ load: { namespaces: ['*'], role: 'admin', requestsPerMinute: 10_000_000 } });
    key = made.keys.load;
    server = await startMakeWorker({ port: await freePort(), state: tempDir('worker-load'), secret: made.secret });
    base = server.base;
  }
  const call = client(base, key);
  const writes = Math.round(REQUESTS * 0.2);
  const docs = await corpus(SEED + writes);
  const queries = readFileSync(`${DATA}/packages/queries.txt`, 'utf8').split('\n').filter(Boolean);

  try {
    // Seed.
    let g0 = 0;
    for (let i = 0; i < SEED; i += 1000) {
      const r = await call('POST', `/v1/ns/${NS}/docs`, { json: docs.slice(i, Math.min(SEED, i + 1000)) });
      if (r.status !== 200) throw new Error(`seeding failed: ${JSON.stringify(r.body)}`);
      g0 = r.body.generation;
    }

    // The schedule: 80 % searches, 20 % writes, shuffled.
    const ops = [...Array(REQUESTS - writes).fill('search'), ...Array(writes).fill('write')];
    for (let i = ops.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [ops[i], ops[j]] = [ops[j], ops[i]];
    }
    const plan = ops.map((kind, i) => ({ kind, q: queries[Math.floor(random() * queries.length)], fresh: random() < 0.25, doc: null, i }));
    let w = 0;
    for (const p of plan) if (p.kind === 'write') p.doc = docs[SEED + w++];

    const lat = { search: [], fresh: [], write: [] };
    const statuses = {};
    const servedBy = {};
    const errors = [];
    const acked = new Map(); // id -> text
    let maxGen = g0;
    let next = 0;
    let timedOut = false;
    const deadline = Date.now() + TIMEOUT_S * 1000;
    const started = performance.now();

    const worker = async () => {
      let lastGen = 0;
      while (next < plan.length) {
        if (Date.now() > deadline) {
          timedOut = true;
          return;
        }
        const p = plan[next++];
        const t = performance.now();
        let r;
        try {
          if (p.kind === 'write') {
            r = await call('PUT', `/v1/ns/${NS}/docs/${encodeURIComponent(p.doc.id)}`, { json: { title: p.doc.title, text: p.doc.text, kind: p.doc.kind } });
          } else {
            const min = p.fresh && lastGen ? `&minGeneration=${lastGen}` : '';
            r = await call('GET', `/v1/ns/${NS}/search?q=${encodeURIComponent(p.q)}&limit=10${min}`);
          }
        } catch (err) {
          errors.push(String(err?.message ?? err));
          continue;
        }
        const elapsed = performance.now() - t;
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        if (r.status !== 200) {
          if (errors.length < 10) errors.push(JSON.stringify(r.body).slice(0, 300));
          continue;
        }
        if (p.kind === 'write') {
          lat.write.push(elapsed);
          acked.set(p.doc.id, p.doc.text);
          lastGen = Math.max(lastGen, r.body.generation);
          maxGen = Math.max(maxGen, r.body.generation);
        } else {
          (p.fresh && lastGen ? lat.fresh : lat.search).push(elapsed);
          const by = r.headers.get('x-memdex-served-by');
          servedBy[by] = (servedBy[by] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    const seconds = (performance.now() - started) / 1000;

    // Every acknowledged write is there (one export, imported here).
    const res = await fetch(new URL(`/v1/ns/${NS}/export?minGeneration=${maxGen}`, base), { headers: { authorization: `Bearer ${key}` } });
    const finalGen = Number(res.headers.get('x-memdex-generation'));
    const index = await Memdex.import(new Uint8Array(await res.arrayBuffer()));
    const lost = [...acked].filter(([id, text]) => index.get(`${NS}\u001f${id}`)?.text !== text).map(([id]) => id);
    const documents = index.size;
    index.free();

    const all = [...lat.search, ...lat.fresh, ...lat.write];
    const fivexx = Object.entries(statuses).filter(([s]) => s >= 500).reduce((n, [, c]) => n + c, 0);
    const result = {
      date: new Date().toISOString(),
      target: server ? 'make worker (workerd via Miniflare, persistence in a temporary .worker-state)' : base,
      requests: Object.values(statuses).reduce((a, b) => a + b, 0) + errors.filter((e) => !e.startsWith('{')).length,
      concurrency: CONCURRENCY,
      seeded: SEED,
      seconds: +seconds.toFixed(2),
      throughput: +(REQUESTS / seconds).toFixed(0),
      latencyMs: {
        all: { p50: ms(pct(all, 0.5)), p99: ms(pct(all, 0.99)) },
        search: { n: lat.search.length, p50: ms(pct(lat.search, 0.5)), p99: ms(pct(lat.search, 0.99)) },
        searchWithMinGeneration: { n: lat.fresh.length, p50: ms(pct(lat.fresh, 0.5)), p99: ms(pct(lat.fresh, 0.99)) },
        write: { n: lat.write.length, p50: ms(pct(lat.write, 0.5)), p99: ms(pct(lat.write, 0.99)) },
      },
      commits: finalGen - g0,
      writesPerCommit: +(acked.size / Math.max(1, finalGen - g0)).toFixed(1),
      statuses,
      servedBy,
      errors5xx: fivexx,
      transportErrors: errors.filter((e) => !e.startsWith('{')).length,
      acknowledgedWrites: acked.size,
      lostWrites: lost.length,
      documentsAfter: documents,
      timedOut,
      sampleErrors: errors.slice(0, 5),
    };
    console.log(JSON.stringify(result, null, 2));
    if (fivexx > 0 || lost.length > 0 || timedOut) process.exitCode = 1;
  } finally {
    await server?.stop();
  }
}

await main();
