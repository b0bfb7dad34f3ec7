// What: the cost and the gain of `cacheBytes` (stored fields packed in
// memory, pages unpacked through a bounded cache) against the default
// (stored fields unpacked), on the first N `packages` documents (id, title,
// text) committed to an fs folder: per mode, in a fresh Node process each,
// the open time, the engine's heap bytes (`stats().bytes`) and the process's
// RSS and array buffers (wasm memory included) after open and after the
// queries, then the 2,000 benchmark queries in OR mode (limit 10, stored
// fields and snippets returned, as a search box shows them): latency
// p50/p99 and the MD5 of every hit (id, score to 6 decimals, stored fields,
// snippets), which must be the same in every mode.
//
//   node bench/js/doc-cache.mjs [N=100000] [CACHES=none,0,1048576,4194304,67108864] [RESULT.json]
//
// CPU-bound on a shared machine: compare the modes of one run.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitPackages } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = process.env.MEMDEX_PKG_DIR || path.resolve(here, '../../pkg');
const { Memdex } = await import(path.resolve(pkg, 'node.js'));
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const [role, ...rest] = process.argv.slice(2);

if (role === '--child') {
  const [dir, cache] = rest;
  const cacheBytes = cache === 'none' ? undefined : Number(cache);
  const queries = readFileSync(path.join(dataDir, 'packages/queries.txt'), 'utf8').trim().split('\n').slice(0, 2000);
  globalThis.gc?.();
  const t0 = performance.now();
  const index = await Memdex.open({ storage: 'fs', dir, autoCommit: false, cacheBytes });
  const openMs = performance.now() - t0;
  const mem = () => {
    const m = process.memoryUsage();
    return { rssMiB: m.rss / 2 ** 20, arrayBuffersMiB: m.arrayBuffers / 2 ** 20 };
  };
  const afterOpen = { ...mem(), engineBytes: index.stats().bytes };
  const hash = createHash('md5');
  const times = [];
  for (const q of queries) {
    const t = performance.now();
    const { hits } = index.search(q, { limit: 10, highlight: true });
    times.push(performance.now() - t);
    for (const h of hits) hash.update(`${h.id}:${h.score.toFixed(6)}:${JSON.stringify(h.fields)}:${JSON.stringify(h.snippets)};`);
  }
  times.sort((a, b) => a - b);
  const at = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
  const out = { cache, openMs, afterOpen, afterQueries: mem(), p50Ms: at(0.5), p99Ms: at(0.99), md5: hash.digest('hex'), stats: index.stats().cache ?? null };
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const n = Number(role ?? 100000);
const caches = (rest[0] ?? 'none,0,1048576,4194304,67108864').split(',');
const resultPath = rest[1];
const dir = mkdtempSync(path.join(tmpdir(), 'memdex-doc-cache-'));
try {
  await commitPackages(Memdex, dataDir, n, dir);
  const rows = [];
  // Two rounds, modes alternating, each in its own process; the medians.
  for (let round = 0; round < 2; round++) {
    for (const cache of caches) {
      const text = execFileSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--child', dir, cache], { maxBuffer: 1 << 24, env: process.env });
      rows.push(JSON.parse(text));
    }
  }
  const table = caches.map((cache) => {
    const runs = rows.filter((r) => r.cache === cache);
    const med = (f) => runs.map(f).sort((a, b) => a - b)[0];
    const last = runs[runs.length - 1];
    return { cache, openMs: med((r) => r.openMs), p50Ms: med((r) => r.p50Ms), p99Ms: med((r) => r.p99Ms), engineMiB: last.afterOpen.engineBytes / 2 ** 20, rssMiB: last.afterQueries.rssMiB, arrayBuffersMiB: last.afterQueries.arrayBuffersMiB, md5: last.md5, stats: last.stats };
  });
  const md5s = new Set(rows.map((r) => r.md5));
  for (const r of table) {
    console.log(`cacheBytes ${r.cache.padStart(9)}: open ${r.openMs.toFixed(0)} ms, p50 ${r.p50Ms.toFixed(3)} ms, p99 ${r.p99Ms.toFixed(3)} ms, engine ${r.engineMiB.toFixed(1)} MiB, RSS ${r.rssMiB.toFixed(0)} MiB, array buffers ${r.arrayBuffersMiB.toFixed(0)} MiB, cache ${JSON.stringify(r.stats)}`);
  }
  console.log(md5s.size === 1 ? `same hits in every mode (MD5 ${[...md5s][0]})` : `RESULTS DIFFER: ${[...md5s].join(' ')}`);
  if (resultPath) writeFileSync(resultPath, JSON.stringify({ documents: n, date: new Date().toISOString(), rows: table, identical: md5s.size === 1 }, null, 2) + '\n');
  if (md5s.size !== 1) process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
