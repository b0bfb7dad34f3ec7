// What: `Memdex.open({ lazy: true })` against a full open, on the first N
// `packages` documents (id, title, text) committed to an fs folder: per
// mode, in a fresh Node process each, the time from `open` to the first
// query's results, the p50/p99 of the next 100 queries (and of all 2,000),
// the p50 of those 100 asked again right after them (what a lazy index
// answers from what it holds; their answers must be the first time's),
// what a lazy open fetched, and the process's RSS and array buffers (wasm
// memory included) at the end; plus the MD5 of every hit (id, score to 6
// decimals, stored fields, snippets), which must be the same in every mode.
// Lazy modes start with nothing held (the index's cache is cold; the OS
// file cache is not: the folder was just written or read).
//
//   node bench/js/lazy-open.mjs [N=100000] [MODES=full,lazy:33554432] [RESULT.json]
//
// The folder is kept as $TMPDIR/memdex-lazy-open-N for the next run (delete
// it to rebuild). CPU-bound on a shared machine: compare the modes of one run.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { commitPackages } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = process.env.MEMDEX_PKG_DIR || path.resolve(here, '../../pkg');
const { Memdex } = await import(path.resolve(pkg, 'node.js'));
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const [role, ...rest] = process.argv.slice(2);
const OPTIONS = { limit: 10, highlight: true };

if (role === '--child') {
  const [dir, mode] = rest;
  const queries = readFileSync(path.join(dataDir, 'packages/queries.txt'), 'utf8').trim().split('\n').slice(0, 2000);
  const lazy = mode.startsWith('lazy');
  const t0 = performance.now();
  const index = lazy
    ? await Memdex.open({ storage: 'fs', dir, lazy: true, cacheBytes: Number(mode.split(':')[1]) })
    : await Memdex.open({ storage: 'fs', dir, autoCommit: false });
  const openMs = performance.now() - t0;
  const hash = createHash('md5');
  const times = [];
  let firstResultMs = 0;
  const answer = (hits) => hits.map((h) => `${h.id}:${h.score.toFixed(6)}:${JSON.stringify(h.fields)}:${JSON.stringify(h.snippets)};`).join('');
  const answers = [];
  const again = [];
  let againDiffer = 0;
  for (const [i, q] of queries.entries()) {
    const t = performance.now();
    const { hits } = lazy ? await index.search(q, OPTIONS) : index.search(q, OPTIONS);
    times.push(performance.now() - t);
    if (i === 0) firstResultMs = performance.now() - t0;
    hash.update(answer(hits));
    if (i <= 100) answers.push(answer(hits));
    if (i === 100) {
      // The same 100 again, right after them (not in the 2,000's figures).
      for (const [k, q2] of queries.slice(1, 101).entries()) {
        const t2 = performance.now();
        const { hits: hits2 } = lazy ? await index.search(q2, OPTIONS) : index.search(q2, OPTIONS);
        again.push(performance.now() - t2);
        if (answer(hits2) !== answers[k + 1]) againDiffer += 1;
      }
    }
  }
  const pct = (list, p) => {
    const s = [...list].sort((a, b) => a - b);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))];
  };
  const next = times.slice(1, 101);
  const m = process.memoryUsage();
  const stats = lazy ? (await index.stats()).lazy : null;
  const out = {
    mode, openMs, firstResultMs,
    next100P50Ms: pct(next, 0.5), next100P99Ms: pct(next, 0.99), allP50Ms: pct(times, 0.5), allP99Ms: pct(times, 0.99),
    againP50Ms: pct(again, 0.5), againDiffer,
    rssMiB: m.rss / 2 ** 20, arrayBuffersMiB: m.arrayBuffers / 2 ** 20, md5: hash.digest('hex'), stats,
  };
  process.stdout.write(JSON.stringify(out));
  process.exit(0);
}

const n = Number(role ?? 100000);
const modes = (rest[0] ?? 'full,lazy:33554432').split(',');
const resultPath = rest[1];
const dir = path.join(tmpdir(), `memdex-lazy-open-${n}`);
if (!existsSync(path.join(dir, 'memdex/manifest'))) await commitPackages(Memdex, dataDir, n, dir);
const rows = [];
for (const mode of modes) {
  const text = execFileSync(process.execPath, [fileURLToPath(import.meta.url), '--child', dir, mode], { maxBuffer: 1 << 24, env: process.env });
  rows.push(JSON.parse(text));
}
for (const r of rows) {
  console.log(
    `${r.mode.padEnd(16)} open ${r.openMs.toFixed(0)} ms, first result ${r.firstResultMs.toFixed(0)} ms, next 100 p50 ${r.next100P50Ms.toFixed(3)} ms p99 ${r.next100P99Ms.toFixed(2)} ms, again p50 ${r.againP50Ms.toFixed(3)} ms (${r.againDiffer} differ), all 2,000 p50 ${r.allP50Ms.toFixed(3)} ms p99 ${r.allP99Ms.toFixed(2)} ms, RSS ${r.rssMiB.toFixed(0)} MiB, array buffers ${r.arrayBuffersMiB.toFixed(0)} MiB${r.stats ? `, ${JSON.stringify(r.stats)}` : ''}`,
  );
}
const md5s = new Set(rows.map((r) => r.md5));
if (rows.some((r) => r.againDiffer > 0)) md5s.add('a query asked again answered otherwise');
console.log(md5s.size === 1 ? `same hits in every mode (MD5 ${[...md5s][0]})` : `RESULTS DIFFER: ${[...md5s].join(' ')}`);
if (resultPath) writeFileSync(resultPath, JSON.stringify({ documents: n, date: new Date().toISOString(), rows, identical: md5s.size === 1 }, null, 2) + '\n');
if (md5s.size !== 1) process.exitCode = 1;
