// Measures vector and hybrid search speed in wasm in Node (the built pkg/):
// 100k `packages` documents, each with a random 384-dimension vector
// (uniform in [-1, 1], 4 decimals, seeded; cosine field), top 10, no stored
// fields, wall time per query (performance.now), 200 query vectors:
//   - exact: pure vector search (exact f32 scan, simd128 kernel)
//   - int8:  the same on a `quantize: 'int8'` field (int8 scan + f32 rerank of
//            the best 100), and its recall@10 against exact
//   - hybrid: `search(q, { vector })` (RRF, 100 candidates a list) against the
//            lexical search and the pure vector search of the same pair run
//            separately (ratio of p50s: hybrid / (lexical + vector))
//   - the query vector as JSON text (options.vector, an array) against a
//     Float32Array handed to Engine.search (its vector argument)
//   - crossing: the same JSON-vs-Float32Array comparison on a 10-document
//     index (so the scan does not hide it), 2,000 queries, µs a query
// Usage: node js/vectors-speed.mjs [N docs = 100000 | crossing] [PKG_DIR = ../pkg]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preparePackages, preparePackageQueries } from './prepare-data.mjs';
import { latencyStats } from './metrics.mjs';
import { xorshift32 } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const crossingOnly = process.argv[2] === 'crossing';
const N = crossingOnly ? 10 : Number(process.argv[2] ?? 100_000);
const pkg = path.resolve(process.argv[3] ?? path.join(here, '..', '..', 'pkg'));
const DIMS = 384;
const QUERIES = 200;

const rand = xorshift32(0x9e3779b9);
const randomVector = () => Array.from({ length: DIMS }, () => Math.round((rand() * 2 - 1) * 1e4) / 1e4);

const mod = await import(path.join(pkg, 'memdex.js'));
await mod.default({ module_or_path: fs.readFileSync(path.join(pkg, 'memdex_bg.wasm')) });

/** µs a query of a pure vector search on a 10-document index: [Float32Array, JSON]. */
function crossing() {
  const e = new mod.Engine({ fields: { text: { type: 'text' }, emb: { type: 'vector', dimensions: DIMS } } });
  e.addJsonLines(Array.from({ length: 10 }, (_, i) => JSON.stringify({ id: `d${i}`, text: 'x', emb: randomVector() })).join('\n'));
  e.flush();
  const qs = Array.from({ length: 2000 }, () => new Float32Array(randomVector()));
  const o = { limit: 10, storedFields: false };
  let best = [Infinity, Infinity];
  for (let r = 0; r < 3; r++) {
    let t = performance.now();
    for (const q of qs) e.search('', o, q);
    const f32 = ((performance.now() - t) / qs.length) * 1000;
    t = performance.now();
    for (const q of qs) e.search('', { ...o, vector: Array.from(q) });
    const json = ((performance.now() - t) / qs.length) * 1000;
    best = [Math.min(best[0], f32), Math.min(best[1], json)];
  }
  return { vector_crossing_float32array_us: +best[0].toFixed(1), vector_crossing_json_us: +best[1].toFixed(1) };
}
if (crossingOnly) {
  console.log(JSON.stringify({ workload: 'vectors-crossing', ...crossing(), date: new Date().toISOString() }, null, 2));
  process.exit(0);
}

const docs = fs.readFileSync(await preparePackages(N), 'utf8').trim().split('\n');
const texts = fs.readFileSync(preparePackageQueries(QUERIES), 'utf8').trim().split('\n').map((l) => JSON.parse(l).text);


const schema = (quantize) => ({
  fields: {
    title: { type: 'text', weight: 2 }, text: { type: 'text' }, kind: { type: 'keyword' }, timestamp: { type: 'date' },
    emb: { type: 'vector', dimensions: DIMS, metric: 'cosine', quantize },
  },
});
const exact = new mod.Engine(schema('none'));
const int8 = new mod.Engine(schema('int8'));
const t0 = performance.now();
for (let i = 0; i < docs.length; i += 1000) {
  const lines = docs.slice(i, i + 1000).map((l) => `${l.slice(0, -1)},"emb":[${randomVector().join(',')}]}`).join('\n');
  exact.addJsonLines(lines);
  int8.addJsonLines(lines);
}
exact.flush();
int8.flush();
const buildS = (performance.now() - t0) / 1000;
console.error(`built 2 x ${docs.length} docs in ${buildS.toFixed(1)} s`);

const queryVectors = Array.from({ length: QUERIES }, () => new Float32Array(randomVector()));
const opts = { limit: 10, storedFields: false };
const time = (fn) => { const s = performance.now(); const r = fn(); return [performance.now() - s, r]; };

// Warm-up (JIT, and the int8 codes are built on first use).
for (let i = 0; i < 5; i++) {
  exact.search('', opts, queryVectors[i]);
  int8.search('', opts, queryVectors[i]);
  exact.search(texts[i], opts);
}

const exactMs = [], int8Ms = [], jsonMs = [], lexMs = [], vecMs = [], hybridMs = [], sumMs = [];
let found = 0;
for (let i = 0; i < QUERIES; i++) {
  const qv = queryVectors[i];
  const [te, re] = time(() => exact.search('', opts, qv));
  const [ti, ri] = time(() => int8.search('', opts, qv));
  exactMs.push(te);
  int8Ms.push(ti);
  const want = new Set(re.hits.map((h) => h.id));
  found += ri.hits.filter((h) => want.has(h.id)).length;
  const asArray = Array.from(qv);
  const [tj] = time(() => exact.search('', { ...opts, vector: asArray }));
  jsonMs.push(tj);
  const [tl] = time(() => exact.search(texts[i], opts));
  const [tv] = time(() => exact.search('', opts, qv));
  const [th] = time(() => exact.search(texts[i], opts, qv));
  lexMs.push(tl);
  vecMs.push(tv);
  hybridMs.push(th);
  sumMs.push(tl + tv);
}
const p50 = (xs) => +latencyStats(xs).p50_ms.toFixed(2);
const result = {
  workload: 'vectors-speed',
  docs: docs.length,
  dims: DIMS,
  queries: QUERIES,
  build_s: +buildS.toFixed(1),
  exact_p50_ms: p50(exactMs),
  int8_p50_ms: p50(int8Ms),
  int8_speedup: +(p50(exactMs) / p50(int8Ms)).toFixed(2),
  int8_recall_at_10: +(found / (QUERIES * 10)).toFixed(4),
  vector_as_json_p50_ms: p50(jsonMs),
  vector_as_float32array_p50_ms: p50(exactMs),
  lexical_p50_ms: p50(lexMs),
  vector_p50_ms: p50(vecMs),
  lexical_plus_vector_p50_ms: p50(sumMs),
  hybrid_p50_ms: p50(hybridMs),
  hybrid_ratio: +(p50(hybridMs) / p50(sumMs)).toFixed(2),
  ...crossing(),
  date: new Date().toISOString(),
};
console.log(JSON.stringify(result, null, 2));
