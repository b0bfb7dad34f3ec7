// Memory while building, before and after, against tantivy in the same run
// (BENCHMARKS.md "Memory while building"). For each size, fresh processes:
//   - the scale peer (peer.mjs: documents held in JS as every JS peer does,
//     built, snapshot written and re-read, 2,000 queries OR and AND) for
//     the package build BEFORE (MEMDEX_BASE_PKG) and AFTER (pkg/), and
//     tantivy's native peer with the same spec;
//   - build-peak.mjs for both builds: the engine's own part (wasm linear
//     memory after the build and after the export; RSS above the loaded
//     documents).
// Usage: node bench/js/build-memory.mjs BASE_PKG_DIR 100000 [all] ...
// Writes bench/results/build-memory-<stamp>.json and
// bench/results/tables/build-memory.json.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { preparePackages, preparePackageQueries, BENCH } from './prepare-data.mjs';
import { latencyStats } from './metrics.mjs';
import { machine } from './run.mjs';

const [basePkg, ...sizes] = process.argv.slice(2);
const NEW_PKG = path.resolve(BENCH, '../pkg');
const WORK = path.join(os.tmpdir(), `memdex-build-memory-${process.pid}`);
const log = (...a) => console.error(`[build-memory ${new Date().toISOString().slice(11, 19)}]`, ...a);

function run(cmd, args, env = {}) {
  const r = spawnSync(cmd, args, { cwd: BENCH, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args[0]}: exit ${r.status}: ${r.stderr.slice(-800)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop());
}

function scale(peer, spec, pkg) {
  const out = peer === 'tantivy'
    ? run(path.join(BENCH, 'tantivy/target/release/bench-tantivy'), [JSON.stringify(spec)])
    : run(process.execPath, ['--max-old-space-size=16384', path.join(BENCH, 'js/peer.mjs'), 'memdex-wasm', JSON.stringify(spec)], { MEMDEX_PKG: pkg });
  return {
    build_s: +(out.build_ms / 1000).toFixed(2),
    build_peak_rss_mib: Math.round(out.rss_after_build_mib),
    peak_rss_mib: Math.round(out.peak_rss_mib),
    index_mb: out.serialized_bytes ? +(out.serialized_bytes / 1e6).toFixed(1) : null,
    load_ms: Math.round(out.load_ms ?? 0),
    or_p50_ms: latencyStats(out.queries.or.latencies_ms).p50_ms,
    and_p50_ms: latencyStats(out.queries.and.latencies_ms).p50_ms,
  };
}

function enginePart(docs, pkg, exportKind) {
  const out = run(process.execPath, ['--expose-gc', path.join(BENCH, 'js/build-peak.mjs'), docs, exportKind], { MEMDEX_PKG: pkg });
  return {
    docs_loaded_rss_mib: out.loaded.rss_mib,
    build_peak_rss_mib: out.built.peak_rss_mib,
    wasm_after_build_mib: out.built.wasm_mib,
    wasm_after_export_mib: out.exported.wasm_mib,
    peak_rss_with_export_mib: out.exported.peak_rss_mib,
    segments: out.stats.segments,
    heap_mib: +(out.stats.bytes / 2 ** 20).toFixed(1),
  };
}

const results = [];
fs.mkdirSync(WORK, { recursive: true });
try {
  for (const size of sizes) {
    const n = size === 'all' ? Infinity : Number(size);
    const docs = await preparePackages(n);
    const spec = {
      task: 'scale', docs, queries: preparePackageQueries(2000), modes: ['or', 'and'], k: 10, serialize: true,
      workdir: WORK, config: 'english', warmup: 100, query_budget_ms: 90_000,
    };
    const row = { size, docs: fs.readFileSync(docs, 'utf8').split('\n').filter(Boolean).length };
    log(size, 'tantivy');
    row.tantivy = scale('tantivy', spec);
    // Before and after alternate so that load on the shared machine hits both.
    log(size, 'before');
    row.before = scale('memdex-wasm', spec, path.resolve(basePkg));
    row.before_engine = enginePart(docs, path.resolve(basePkg), 'whole');
    log(size, 'after');
    row.after = scale('memdex-wasm', spec, NEW_PKG);
    row.after_engine = enginePart(docs, NEW_PKG, 'stream');
    log(size, JSON.stringify(row));
    results.push(row);
  }
} finally {
  fs.rmSync(WORK, { recursive: true, force: true });
}

const stamp = new Date().toISOString().replace(/[-:]/g, '').slice(0, 13);
const m = machine();
fs.writeFileSync(path.join(BENCH, `results/build-memory-${stamp}.json`), `${JSON.stringify({ workload: 'build-memory', date: new Date().toISOString(), machine: m, base_pkg: basePkg, results }, null, 1)}\n`);
log('wrote', `results/build-memory-${stamp}.json`);
