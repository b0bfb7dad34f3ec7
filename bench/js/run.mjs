// The side-by-side harness driver. Runs every peer in a FRESH process per measurement,
// enforces the bounds (wall-clock timeout, 16 GiB RSS), aggregates medians over runs,
// computes relevance metrics (metrics.mjs, one implementation for all peers), and writes
// one JSON file per workload under bench/results/, then regenerates BENCHMARKS.md + chart.
//
// Usage: node js/run.mjs <suite> [--peers a,b] [--runs N]
//   suites: quick | full | relevance | scale-100k | scale-1m | agent | size
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, execSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { preparePackages, preparePackageQueries, prepareCollection, BENCH } from './prepare-data.mjs';
import { readQrels, evaluate, latencyStats, median } from './metrics.mjs';
import { measureSizes } from './size.mjs';
import { generateReport } from './report.mjs';

const RESULTS = path.join(BENCH, 'results');
const WORK = path.join(os.tmpdir(), `memdex-bench-${process.pid}`);
const MEM_LIMIT_MIB = 16 * 1024;

// name -> how to start it. `kind` decides the command line.
export const PEERS = {
  'memdex-native': { kind: 'native', bin: 'memdex-native/target/release/bench-memdex-native', configs: ['english', 'english-single'] },
  'memdex-wasm': { kind: 'js', module: 'memdex-wasm', configs: ['english'] },
  tantivy: { kind: 'native', bin: 'tantivy/target/release/bench-tantivy', configs: ['default', 'english', 'english-stop'] },
  minisearch: { kind: 'js', module: 'minisearch', configs: ['default', 'english'] },
  flexsearch: { kind: 'js', module: 'flexsearch', configs: ['default', 'english'] },
  orama: { kind: 'js', module: 'orama', configs: ['default', 'english'] },
  lunr: { kind: 'js', module: 'lunr', configs: ['english'] },
  'sqlite-fts5': { kind: 'js', module: 'sqlite', configs: ['default', 'english'] },
  bm25s: { kind: 'py', configs: ['default', 'english'] },
};
const SCALE_PEERS = ['memdex-native', 'memdex-wasm', 'tantivy', 'minisearch', 'flexsearch', 'orama', 'lunr', 'sqlite-fts5'];
const REL_PEERS = ['memdex-native', 'memdex-wasm', 'bm25s', 'tantivy', 'minisearch', 'flexsearch', 'orama', 'lunr', 'sqlite-fts5'];
const AGENT_PEERS = ['memdex-native', 'memdex-wasm', 'tantivy', 'minisearch', 'flexsearch', 'orama', 'lunr', 'sqlite-fts5'];

function args() {
  const a = process.argv.slice(2);
  const o = { suite: a[0] || 'quick' };
  for (let i = 1; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
  return o;
}

function sh(cmd) { try { return execSync(cmd, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return null; } }

export function machine() {
  const load = os.loadavg();
  return {
    cores: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    rustc: sh('rustc --version'),
    python: sh(`${path.join(BENCH, '.venv/bin/python')} --version`),
    loadavg_at_start: load.map((x) => +x.toFixed(2)),
  };
}

function peerCommand(name, spec) {
  const p = PEERS[name];
  const s = JSON.stringify(spec);
  if (p.kind === 'native') return [path.join(BENCH, p.bin), [s]];
  if (p.kind === 'py') return [path.join(BENCH, '.venv/bin/python'), [path.join(BENCH, 'py/peer_bm25s.py'), s]];
  return [process.execPath, [`--max-old-space-size=${MEM_LIMIT_MIB}`, path.join(BENCH, 'js/peer.mjs'), p.module, s]];
}

function rssMiB(pid) {
  try {
    const m = /VmRSS:\s+(\d+)\s+kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch { return 0; }
}

/** One fresh process; resolves to the peer's JSON or {dnf: reason}. */
function runPeer(name, spec, timeoutMs) {
  return new Promise((resolve) => {
    const [cmd, argv] = peerCommand(name, spec);
    if (!fs.existsSync(cmd)) { resolve({ dnf: `did not run: ${path.relative(BENCH, cmd)} not built` }); return; }
    const child = spawn(cmd, argv, { cwd: BENCH, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', killed = null;
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { err += d; if (err.length > 20000) err = err.slice(-10000); });
    const timer = setTimeout(() => { killed = `did not finish: exceeded ${Math.round(timeoutMs / 1000)} s`; child.kill('SIGKILL'); }, timeoutMs);
    const poll = setInterval(() => {
      if (rssMiB(child.pid) > MEM_LIMIT_MIB) { killed = `did not finish: exceeded ${MEM_LIMIT_MIB / 1024} GiB RSS`; child.kill('SIGKILL'); }
    }, 250);
    child.on('close', (code) => {
      clearTimeout(timer); clearInterval(poll);
      if (killed) return resolve({ dnf: killed });
      if (code !== 0) {
        // The error line says why (e.g. `RangeError: Invalid string length`); stack frames do not.
        const lines = err.trim().split('\n');
        const why = lines.filter((l) => /\b\w*Error\b|error:|FATAL|out of memory/i.test(l)).pop() ?? lines.slice(-3).join(' | ');
        return resolve({ dnf: `crashed (exit ${code}): ${why.trim().slice(0, 400)}` });
      }
      try { resolve(JSON.parse(out.trim().split('\n').pop())); } catch (e) { resolve({ dnf: `bad output: ${out.slice(0, 200)}` }); }
    });
  });
}

function log(...a) { console.error(`[bench ${new Date().toISOString().slice(11, 19)}]`, ...a); }

function stamp(d) { return d.toISOString().replace(/[-:]/g, '').slice(0, 13); }

function save(workload, body) {
  fs.mkdirSync(RESULTS, { recursive: true });
  const date = new Date();
  const loadEnd = os.loadavg();
  const m = body.machine;
  m.loadavg_at_end = loadEnd.map((x) => +x.toFixed(2));
  // Other engineers compile on this 2-core machine: flag runs taken under load.
  const noisy = Math.max(m.loadavg_at_start[0], loadEnd[0]) > 1.25;
  const doc = {
    workload, date: date.toISOString(),
    command: process.env.BENCH_COMMAND || `node bench/js/run.mjs ${process.argv.slice(2).join(' ')}`,
    noisy,
    noise_note: noisy ? 'machine was shared (1-min load average above 1.25 at start or end): absolute timings are noisy; compare ratios within this run' : 'machine was quiet (1-min load average <= 1.25)',
    ...body,
  };
  const file = path.join(RESULTS, `${workload}-${stamp(date)}.json`);
  fs.writeFileSync(file, JSON.stringify(doc, null, 1) + '\n');
  log('wrote', path.relative(BENCH, file));
  return doc;
}

function summarizeQueries(q) {
  if (!q) return null;
  if (q.unsupported) return { unsupported: q.unsupported };
  return { ...latencyStats(q.latencies_ms), hits: q.hits, truncated: !!q.truncated, ran: q.latencies_ms.length, planned: q.planned ?? q.latencies_ms.length };
}

// ---------------- workloads ----------------

async function scale({ label, nDocs, nQueries, runs, timeoutMs, peers, queryBudgetMs, warmup }) {
  const docs = await preparePackages(nDocs);
  const queries = preparePackageQueries(nQueries);
  const machineInfo = machine();
  const rows = [];
  for (const name of peers) {
    const per = [];
    const failed = [];
    let dnf = null;
    for (let r = 0; r < runs; r++) {
      log(`scale ${label}: ${name} run ${r + 1}/${runs}`);
      const spec = { task: 'scale', docs, queries, k: 10, modes: ['or', 'and'], config: 'english', workdir: path.join(WORK, name), serialize: true, warmup: warmup ?? Math.min(100, nQueries), query_budget_ms: queryBudgetMs };
      const res = await runPeer(name, spec, timeoutMs);
      fs.rmSync(path.join(WORK, name), { recursive: true, force: true });
      if (res.did_not_run) { dnf = res.did_not_run; break; }
      if (res.dnf) {
        // A run that hits a bound: if no run finished yet, the peer did not finish (stop here);
        // otherwise keep the finished runs and say that this one did not.
        if (per.length === 0) { dnf = res.dnf; break; }
        failed.push(`run ${r + 1}: ${res.dnf}`);
        continue;
      }
      per.push(res);
    }
    if (dnf) { rows.push({ peer: name, dnf }); log(`  ${name}: ${dnf}`); continue; }
    const modes = {};
    for (const mode of ['or', 'and']) {
      const stats = per.map((p) => summarizeQueries(p.queries?.[mode])).filter(Boolean);
      if (stats.length === 0) continue;
      if (stats[0].unsupported) { modes[mode] = stats[0]; continue; }
      modes[mode] = {};
      for (const key of Object.keys(stats[0])) modes[mode][key] = typeof stats[0][key] === 'number' ? median(stats.map((s) => s[key])) : stats[0][key];
    }
    const f = per[0];
    rows.push({
      peer: name, version: f.version, lib_version: f.lib_version, config: f.config, docs: f.docs, runs: per.length,
      build_ms: median(per.map((p) => p.build_ms)),
      rss_after_build_mib: median(per.map((p) => p.rss_after_build_mib)),
      peak_rss_mib: median(per.map((p) => p.peak_rss_mib)),
      serialized_bytes: median(per.map((p) => p.serialized_bytes)),
      serialize_ms: median(per.map((p) => p.serialize_ms)),
      load_ms: median(per.map((p) => p.load_ms)),
      serialize_unsupported: f.serialize_unsupported,
      queries: modes, notes: f.notes, failed_runs: failed.length ? failed : undefined,
      raw_runs: per.map((p) => ({ build_ms: p.build_ms, peak_rss_mib: p.peak_rss_mib, or_p50: latencyStats(p.queries?.or?.latencies_ms)?.p50_ms, and_p50: latencyStats(p.queries?.and?.latencies_ms)?.p50_ms })),
    });
    log(`  ${name}: build ${(rows.at(-1).build_ms / 1000).toFixed(2)} s, OR p50 ${modes.or?.p50_ms?.toFixed?.(3)} ms`);
  }
  // `--tag T` files a side run as `scale-<label>-T`: kept in results/ but not
  // drawn in BENCHMARKS.md, whose tables come from complete runs.
  const tag = args().tag;
  return save(`scale-${label}${tag ? `-${tag}` : ''}`, {
    machine: machineInfo,
    params: { docs: nDocs === Infinity ? 'all' : nDocs, queries: nQueries, k: 10, modes: ['or', 'and'], fields: 'title+text', config: 'english', runs, timing: runs > 1 ? `median of ${runs} fresh processes` : '1 run (quick mode: no median)', warmup_queries: warmup ?? Math.min(100, nQueries), timeout_s: timeoutMs / 1000, memory_limit_gib: MEM_LIMIT_MIB / 1024, query_budget_ms_per_mode: queryBudgetMs ?? null },
    peers: rows,
  });
}

async function relevance({ peers, timeoutMs, label = 'relevance', englishOnly = false }) {
  // Relevance needs every query: a peer that exceeds the bound is "did not finish".
  const machineInfo = machine();
  const rows = [];
  for (const coll of ['cranfield', 'cisi']) {
    const c = prepareCollection(coll);
    const qrels = readQrels(c.qrels);
    for (const name of peers) {
      for (const config of PEERS[name].configs.filter((c) => !englishOnly || c === 'english')) {
        log(`relevance ${coll}: ${name} (${config})`);
        const spec = { task: 'relevance', docs: c.docs, queries: c.queries, k: 100, modes: ['or'], config, workdir: path.join(WORK, name) };
        const res = await runPeer(name, spec, timeoutMs);
        fs.rmSync(path.join(WORK, name), { recursive: true, force: true });
        if (res.dnf || res.did_not_run) { rows.push({ collection: coll, peer: name, config, dnf: res.dnf || res.did_not_run }); log(`  ${res.dnf || res.did_not_run}`); continue; }
        const m = evaluate(res.runs.or, qrels);
        rows.push({ collection: coll, peer: name, version: res.version, lib_version: res.lib_version, config, ...m, build_ms: res.build_ms, or_query: summarizeQueries(res.queries.or), notes: res.notes });
        log(`  nDCG@10 ${m.ndcg_at_10.toFixed(4)}`);
      }
    }
  }
  return save(label, {
    machine: machineInfo,
    params: { timeout_s: timeoutMs / 1000, configs: englishOnly ? 'english only (quick)' : 'default and english', mode: 'or', k: 100, fields: 'title+text', metrics: 'nDCG@10 (linear gain rel/log2(i+1), pytrec_eval/BEIR), MAP@100 (divided by all relevant), Recall@100; mean over queries with >= 1 relevant judgment', reference: { 'bm25s english': { cranfield: 0.374, cisi: 0.396 } } },
    rows,
  });
}

async function agent({ peers, writes, timeoutMs, label, budgetMs = timeoutMs / 2 }) {
  const docs = await preparePackages(20000);
  const queries = preparePackageQueries(2000);
  const machineInfo = machine();
  const rows = [];
  for (const name of peers) {
    log(`agent ${label}: ${name}`);
    const spec = { task: 'agent', docs, queries, k: 10, config: 'english', workdir: path.join(WORK, name), writes, search_every: 10, budget_ms: budgetMs };
    const res = await runPeer(name, spec, timeoutMs);
    fs.rmSync(path.join(WORK, name), { recursive: true, force: true });
    if (res.dnf || res.did_not_run || res.unsupported) { rows.push({ peer: name, dnf: res.dnf || res.did_not_run || res.unsupported, unsupported: !!res.unsupported }); log(`  ${rows.at(-1).dnf}`); continue; }
    rows.push({
      peer: name, version: res.version, lib_version: res.lib_version, writes: res.writes, planned_writes: res.planned_writes ?? writes, truncated: !!res.truncated,
      total_ms: res.total_ms, commit: latencyStats(res.commit_latencies_ms), search: latencyStats(res.search_latencies_ms),
      bytes_written: res.bytes_written, bytes_on_disk: res.bytes_on_disk, peak_rss_mib: res.peak_rss_mib, commit_kind: res.commit_kind,
    });
    log(`  ${res.writes} commits in ${(res.total_ms / 1000).toFixed(1)} s`);
  }
  return save(label, {
    machine: machineInfo,
    params: { writes, search_every: 10, k: 10, mode: 'or', docs: 'packages (first docs)', runs: '1 per peer: the workload is itself thousands of timed commits (p50/p99 over all of them); a peer stopped by the time bound shows how many commits it finished', time_bound_s: budgetMs / 1000, durable: 'each commit writes the snapshot to a temp file, fsyncs it and renames it over the previous one (JS peers); tantivy: IndexWriter::commit', timeout_s: timeoutMs / 1000 },
    peers: rows,
  });
}

async function size() {
  const rows = await measureSizes();
  return save('size', { machine: machine(), params: { bundler: 'esbuild (minify, browser, esm)', gzip_level: 9, memdex: 'pkg/ JS entry bundled + .wasm, each gzipped' }, peers: rows });
}

// ---------------- suites ----------------

async function main() {
  const a = args();
  const pick = (def) => (a.peers ? a.peers.split(',') : def);
  fs.mkdirSync(WORK, { recursive: true });
  const runs = a.runs ? Number(a.runs) : null;
  // Optional overrides (recorded in each result's params): per-process timeout and per-mode query budget.
  const T = (def) => (a['timeout-s'] ? Number(a['timeout-s']) * 1000 : def);
  const QB = (def) => (a['query-budget-s'] ? Number(a['query-budget-s']) * 1000 : def);
  const AB = (def) => (a['agent-budget-s'] ? Number(a['agent-budget-s']) * 1000 : def);
  try {
    switch (a.suite) {
      case 'quick':
        await relevance({ peers: pick(REL_PEERS), timeoutMs: T(25_000), label: 'relevance-quick', englishOnly: true });
        await scale({ label: 'quick-20k', nDocs: 20_000, nQueries: 500, runs: runs ?? 1, timeoutMs: T(45_000), peers: pick(SCALE_PEERS), queryBudgetMs: QB(8_000), warmup: 50 });
        await agent({ peers: pick(AGENT_PEERS), writes: 300, timeoutMs: T(40_000), label: 'agent-quick' });
        await size();
        break;
      case 'relevance':
        await relevance({ peers: pick(REL_PEERS), timeoutMs: T(600_000) });
        break;
      case 'scale-100k':
        await scale({ label: '100k', nDocs: 100_000, nQueries: 2000, runs: runs ?? 3, timeoutMs: T(600_000), peers: pick(SCALE_PEERS), queryBudgetMs: QB(240_000) });
        break;
      case 'scale-1m':
        await scale({ label: '1m', nDocs: Infinity, nQueries: 2000, runs: runs ?? 3, timeoutMs: T(600_000), peers: pick(SCALE_PEERS), queryBudgetMs: QB(90_000) });
        break;
      case 'agent':
        await agent({ peers: pick(AGENT_PEERS), writes: 10_000, timeoutMs: T(600_000), label: 'agent', budgetMs: AB(150_000) });
        break;
      case 'size':
        await size();
        break;
      case 'full':
        await relevance({ peers: pick(REL_PEERS), timeoutMs: T(600_000) });
        await scale({ label: '100k', nDocs: 100_000, nQueries: 2000, runs: runs ?? 3, timeoutMs: T(600_000), peers: pick(SCALE_PEERS), queryBudgetMs: QB(240_000) });
        // Bounded so the whole suite fits in about an hour on 2 cores: a slow peer's
        // 1M queries stop after 90 s per mode (latencies over the queries it ran; the
        // table says how many), and each agent run stops after 150 s (commits counted).
        await scale({ label: '1m', nDocs: Infinity, nQueries: 2000, runs: runs ?? 3, timeoutMs: T(600_000), peers: pick(SCALE_PEERS), queryBudgetMs: QB(90_000) });
        await agent({ peers: pick(AGENT_PEERS), writes: 10_000, timeoutMs: T(600_000), label: 'agent', budgetMs: AB(150_000) });
        await size();
        break;
      case 'report':
        break;
      default:
        throw new Error(`unknown suite ${a.suite}`);
    }
  } finally {
    fs.rmSync(WORK, { recursive: true, force: true });
  }
  generateReport();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
