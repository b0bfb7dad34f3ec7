// Runs ONE peer in THIS (fresh) Node process and measures one task:
//   scale/relevance: build time, peak RSS after build, serialized size + serialize/load time,
//                    per-query latency for each mode (raw latencies; stats are computed by run.mjs),
//                    and (relevance) the ranked ids per query.
//   agent:           N single-document writes, each followed by a durable commit (serialize +
//                    fsync + rename), with a search every `search_every` writes.
// Usage: node peer.mjs <peer-name> '<spec json>'  -> one JSON object on stdout.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { readJsonl, peakRssMiB } from './common.mjs';

const require = createRequire(import.meta.url);
const [name, specJson] = process.argv.slice(2);
const spec = JSON.parse(specJson);
const mod = await import(`./peers/${name}.mjs`);
const out = { peer: name, config: spec.config, task: spec.task, notes: [] };
const now = () => performance.now();

function pkgVersion(pkg) {
  if (!pkg) return null;
  try { return require(`${pkg}/package.json`).version; } catch {}
  try {
    // Packages whose exports map hides package.json: walk up from the resolved entry.
    let d = path.dirname(require.resolve(pkg));
    while (d !== '/') {
      const pj = path.join(d, 'package.json');
      if (fs.existsSync(pj)) { const p = JSON.parse(fs.readFileSync(pj, 'utf8')); if (p.name === pkg) return p.version; }
      d = path.dirname(d);
    }
  } catch {}
  const pj = new URL(`../node_modules/${pkg}/package.json`, import.meta.url);
  return JSON.parse(fs.readFileSync(pj, 'utf8')).version;
}

function emit() { process.stdout.write(JSON.stringify(out) + '\n'); }

function durableWrite(file, buf) {
  const tmp = `${file}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  fs.writeSync(fd, buf);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
}

let adapter;
try {
  adapter = await mod.create(spec.config);
} catch (e) {
  if (e.didNotRun) { out.did_not_run = e.message; emit(); process.exit(0); }
  throw e;
}
out.version = adapter.version || pkgVersion(mod.info.package);
if (adapter.libVersion) out.lib_version = adapter.libVersion;
if (adapter.notes) out.notes.push(...adapter.notes);
out.node = process.version;
const docs = readJsonl(spec.docs);
const queries = spec.queries ? readJsonl(spec.queries) : [];
out.docs = docs.length;
fs.mkdirSync(spec.workdir, { recursive: true });

if (spec.task === 'agent') {
  if (adapter.agentUnsupported || !adapter.add) {
    out.unsupported = adapter.agentUnsupported || 'no incremental add';
    emit();
    process.exit(0);
  }
  if (adapter.agentInit) await adapter.agentInit(spec.workdir);
  const writes = Math.min(spec.writes ?? 10000, docs.length);
  const every = spec.search_every ?? 10;
  const file = path.join(spec.workdir, `${name}-agent.bin`);
  const commitLat = [];
  const searchLat = [];
  const t0 = now();
  let truncated = false;
  let bytesWritten = 0;
  for (let i = 0; i < writes; i++) {
    if (spec.budget_ms && now() - t0 > spec.budget_ms) { truncated = true; break; }
    const t = now();
    await adapter.add(docs[i]);
    if (adapter.commit) {
      // Engines with their own incremental commit report the bytes they wrote.
      bytesWritten += await adapter.commit();
    } else {
      const buf = await adapter.serialize();
      durableWrite(file, buf);
      bytesWritten += buf.length;
    }
    commitLat.push(now() - t);
    if ((i + 1) % every === 0 && queries.length) {
      const q = queries[Math.floor(i / every) % queries.length];
      const ts = now();
      await (adapter.agentSearch ?? adapter.search)(q.text, { mode: 'or', k: spec.k ?? 10 });
      searchLat.push(now() - ts);
    }
  }
  out.total_ms = now() - t0;
  out.writes = commitLat.length;
  out.planned_writes = writes;
  out.truncated = truncated;
  out.commit_latencies_ms = commitLat;
  out.search_latencies_ms = searchLat;
  out.bytes_written = bytesWritten;
  out.bytes_on_disk = adapter.bytesOnDisk ? adapter.bytesOnDisk() : fs.statSync(file).size;
  out.commit_kind = adapter.commitKind;
  out.peak_rss_mib = peakRssMiB();
  emit();
  process.exit(0);
}

// scale / relevance
let t = now();
await adapter.build(docs);
out.build_ms = now() - t;
out.rss_after_build_mib = peakRssMiB();

if (spec.serialize && adapter.serializeTo) {
  // Engines that write their snapshot part by part never hold it whole.
  const file = path.join(spec.workdir, `${name}-${spec.config}.idx`);
  t = now();
  out.serialized_bytes = await adapter.serializeTo(file);
  out.serialize_ms = now() - t;
  out.rss_after_serialize_mib = peakRssMiB();
  t = now();
  await adapter.loadFrom(file);
  out.load_ms = now() - t;
  out.notes.push('snapshot written and read part by part; queries run against the re-loaded index');
  fs.rmSync(file, { force: true });
} else if (spec.serialize && adapter.serialize) {
  t = now();
  const buf = await adapter.serialize();
  const file = path.join(spec.workdir, `${name}-${spec.config}.idx`);
  fs.writeFileSync(file, buf);
  out.serialize_ms = now() - t;
  out.serialized_bytes = buf.length;
  if (adapter.load) {
    const data = fs.readFileSync(file);
    t = now();
    await adapter.load(data);
    out.load_ms = now() - t;
    out.notes.push('queries run against the re-loaded index');
  }
  fs.rmSync(file, { force: true });
} else if (!adapter.serialize) {
  out.serialize_unsupported = 'no serialization API';
}

out.queries = {};
if (spec.task === 'relevance') out.runs = {};
for (const mode of spec.modes) {
  // The budget covers warm-up (at most a quarter of it) and the timed queries.
  const t0 = now();
  const warm = Math.min(spec.warmup ?? 0, queries.length);
  for (let i = 0; i < warm; i++) {
    if (spec.query_budget_ms && now() - t0 > spec.query_budget_ms / 4) break;
    await adapter.search(queries[i].text, { mode, k: spec.k });
  }
  const lat = [];
  const run = {};
  let hits = 0;
  let truncated = false;
  for (const q of queries) {
    if (spec.query_budget_ms && now() - t0 > spec.query_budget_ms) { truncated = true; break; }
    const tq = now();
    const ids = await adapter.search(q.text, { mode, k: spec.k });
    lat.push(now() - tq);
    hits += ids.length;
    if (spec.task === 'relevance') run[q.id] = ids.map(String);
  }
  out.queries[mode] = { latencies_ms: lat, total_ms: now() - t0, hits, truncated, planned: queries.length };
  if (spec.task === 'relevance') out.runs[mode] = run;
}
out.peak_rss_mib = peakRssMiB();
emit();
process.exit(0);
