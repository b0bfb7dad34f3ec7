// Measures steady-state query latency in one process: every peer builds the
// same documents (and re-loads its snapshot, as the harness does), then runs
// all queries once per pass, OR and AND, with the peers' order rotating each
// pass so that machine load hits them alike. Per pass: median (p50), p95 and
// mean of per-query wall clock; printed: each pass's p50 and the medians over
// passes. The harness (js/run.mjs) runs one pass per fresh process, which
// mostly measures a JIT that has not warmed up; this is what a long-lived
// agent process sees.
//
// Usage: node js/steady.mjs [N] PEER... where PEER is a peer adapter name
// (js/peers/<name>.mjs) or a path to a built memdex package directory.
// N = 20000 | 100000 (bench/.data/packages-N.jsonl); PASSES env (default 5).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const n = /^\d+$/.test(args[0] ?? '') ? args.shift() : '100000';
const data = (f) => path.join(here, '..', '.data', f);
const docs = fs.readFileSync(data(`packages-${n}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const queries = fs.readFileSync(data('packages-queries-2000.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).text);

const peers = [];
for (const arg of args) {
  let adapter;
  if (fs.existsSync(path.join(here, 'peers', `${arg}.mjs`))) {
    adapter = await (await import(`./peers/${arg}.mjs`)).create('english');
  } else {
    // A memdex package directory: the adapter reads MEMDEX_PKG at import.
    process.env.MEMDEX_PKG = path.resolve(arg);
    adapter = await (await import(`./peers/memdex-wasm.mjs?pkg=${encodeURIComponent(arg)}`)).create('english');
  }
  await adapter.build(docs);
  if (adapter.serialize && adapter.load) await adapter.load(await adapter.serialize());
  peers.push([arg, adapter]);
}

const modes = ['or', 'and'];
for (const mode of modes) for (const q of queries.slice(0, 100)) for (const [, a] of peers) await a.search(q, { mode, k: 10 });
const passes = Number(process.env.PASSES ?? 5);
const out = {};
for (let p = 0; p < passes; p++) {
  for (const mode of modes) {
    for (let i = 0; i < peers.length; i++) {
      const [name, adapter] = peers[(i + p) % peers.length];
      const lat = [];
      for (const q of queries) {
        const t = performance.now();
        await adapter.search(q, { mode, k: 10 });
        lat.push(performance.now() - t);
      }
      lat.sort((a, b) => a - b);
      const r = (out[`${name} ${mode}`] ??= { p50: [], p95: [], mean: [] });
      r.p50.push(lat[Math.floor(lat.length / 2)]);
      r.p95.push(lat[Math.floor(lat.length * 0.95)]);
      r.mean.push(lat.reduce((a, b) => a + b, 0) / lat.length);
    }
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const us = (ms) => (ms * 1000).toFixed(1);
console.log(`${n} docs, ${queries.length} queries, ${passes} passes; µs per query`);
for (const [key, r] of Object.entries(out)) {
  console.log(`${key.padEnd(28)} p50 ${us(median(r.p50)).padStart(7)}  p95 ${us(median(r.p95)).padStart(8)}  mean ${us(median(r.mean)).padStart(7)}  (p50 per pass: ${r.p50.map(us).join(', ')})`);
}
