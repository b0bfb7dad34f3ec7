// The table of BENCHMARKS.md "Memory while building" from the latest
// bench/results/build-memory-*.json (bench/js/build-memory.mjs):
// bench/results/tables/build-memory.json.
import fs from 'node:fs';
import path from 'node:path';
import { BENCH } from './prepare-data.mjs';

const RESULTS = path.join(BENCH, 'results');
const file = fs.readdirSync(RESULTS).filter((f) => /^build-memory-.*\.json$/.test(f)).sort().pop();
const raw = JSON.parse(fs.readFileSync(path.join(RESULTS, file), 'utf8'));
const ms = (x) => (x < 1 ? x.toFixed(3) : x.toFixed(2));
const label = (r) => (r.size === 'all' ? `${Math.round(r.docs / 1000)}k (all)` : `${r.docs / 1000}k`);
const rows = [];
for (const r of raw.results) {
  const peer = (name, s, e) => [
    label(r), name, s.build_s.toFixed(2), s.build_peak_rss_mib, e ? e.wasm_after_build_mib.toFixed(0) : '–',
    e ? Math.round(e.build_peak_rss_mib - e.docs_loaded_rss_mib) : '–', s.peak_rss_mib, e ? e.wasm_after_export_mib.toFixed(0) : '–',
    s.index_mb, s.load_ms, ms(s.or_p50_ms), ms(s.and_p50_ms), e ? e.segments : '–',
  ];
  rows.push(peer('tantivy 0.27 (native)', r.tantivy));
  rows.push(peer('memdex before (wasm)', r.before, r.before_engine));
  rows.push(peer('memdex after (wasm)', r.after, r.after_engine));
}
const table = {
  kind: 'table',
  workload: 'build-memory',
  title: 'Memory while building, and the snapshot part by part',
  what: 'The first N documents of `packages/` (title + text, English), each row a fresh process, the three of a size in one run: the scale peer (`bench/js/peer.mjs`: documents read into memory first, as every peer does, then built through the bulk path, the snapshot written to a file and read back, 2,000 queries OR and AND, 100 warm-up) for tantivy\'s native peer, the package before (commit 23d8bcd: one write buffer until the final flush; `export()` whole) and after (the buffer flushed at `FLUSH_BYTES`, merges capped at `MERGE_CAP_BYTES`; the snapshot written and read part by part). Build peak RSS = the process\'s peak after the build, documents included (tantivy holds them as Rust strings, JS peers as JS objects: ~800 MiB at 1M). Engine columns from `bench/js/build-peak.mjs` in its own process: wasm linear memory after the build and after the export (a high-water mark: it never shrinks), and the RSS the build adds above the loaded documents (which the build releases as it goes).',
  command: 'node bench/js/build-memory.mjs BASE_PKG 100000 300000 all',
  machine: '2 shared cores, other sessions building: compare within a size',
  raw: [`bench/results/${file}`],
  columns: [
    'docs', 'build', { name: 'build s', align: 'right' }, { name: 'build peak RSS MiB', align: 'right' }, { name: 'wasm after build MiB', align: 'right' },
    { name: 'RSS added by the build MiB', align: 'right' }, { name: 'peak RSS with export + load MiB', align: 'right' }, { name: 'wasm after export MiB', align: 'right' },
    { name: 'index MB', align: 'right' }, { name: 'load ms', align: 'right' }, { name: 'OR p50 ms', align: 'right' }, { name: 'AND p50 ms', align: 'right' }, { name: 'segments', align: 'right' },
  ],
  rows,
  notes: [],
  date: raw.date.slice(0, 16).replace('T', ' '),
};
fs.writeFileSync(path.join(RESULTS, 'tables/build-memory.json'), `${JSON.stringify(table, null, 2)}\n`);
console.error(`[build-memory] wrote results/tables/build-memory.json from ${file}`);
