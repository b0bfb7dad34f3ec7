// Measures what document vectors cost a build, through the package in Node (`Memdex.addMany`):
// 10,000 `packages` documents added to an empty in-memory index with a 384-dimension cosine
// vector field, once without vectors and once with a seeded random vector a document (uniform
// in [-1, 1]) as a Float32Array and as a number array; wall time of addMany plus the flush
// (`stats()`), best of 3 rounds, the three builds interleaved in each round (same run, same
// machine load). Target: each build with vectors at most 1.5x the build without.
// Usage: node js/vectors-build.mjs [N = 10000] [PKG_DIR = ../pkg]
// Writes bench/results/tables/vectors-build.json for the default N and package only.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { preparePackages } from './prepare-data.mjs';
import { writeTable } from './report-table.mjs';
import { xorshift32 } from './common.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const N = Number(process.argv[2] ?? 10_000);
const pkgArg = process.argv[3];
const pkg = path.resolve(pkgArg ?? path.join(here, '..', '..', 'pkg'));
const DIMS = 384;
const ROUNDS = 3;
const TARGET = 1.5;

const rand = xorshift32(0x9e3779b9);

const { Memdex } = await import(path.join(pkg, 'node.js'));
const lines = fs.readFileSync(await preparePackages(N), 'utf8').trim().split('\n');
const plain = lines.map((l) => JSON.parse(l));
const float32 = plain.map((d) => ({ ...d, embedding: Float32Array.from({ length: DIMS }, () => rand() * 2 - 1) }));
const numbers = float32.map((d) => ({ ...d, embedding: Array.from(d.embedding) }));
const schema = { embedding: { type: 'vector', dimensions: DIMS } };

/** ms to add `docs` to an empty index and flush it. */
async function build(docs) {
  const index = await Memdex.open({ schema });
  const t = performance.now();
  const added = await index.addMany(docs);
  const { documents } = index.stats();
  const ms = performance.now() - t;
  if (added !== docs.length || documents !== docs.length) throw new Error(`added ${added}, ${documents} live of ${docs.length}`);
  await index.close();
  return ms;
}

const builds = { 'no vectors': plain, 'Float32Array vectors': float32, 'number[] vectors': numbers };
const best = Object.fromEntries(Object.keys(builds).map((k) => [k, Infinity]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, docs] of Object.entries(builds)) best[name] = Math.min(best[name], await build(docs));
}
const base = best['no vectors'];
const rows = Object.entries(best).map(([name, ms]) => {
  const ratio = ms / base;
  const target = name === 'no vectors' ? '' : `≤ ${TARGET}x`;
  const status = target ? (ratio <= TARGET ? 'met' : 'missed') : '';
  return [name, Math.round(ms), name === 'no vectors' ? '1.00' : ratio.toFixed(2), target, status];
});
console.log(JSON.stringify({ n: N, dims: DIMS, pkg, best_ms: best }, null, 2));

if (N === 10_000 && pkgArg === undefined) {
  const file = writeTable(path.join(here, '..', 'results', 'tables'), {
    workload: 'vectors-build',
    title: 'Building with vectors (package, Node)',
    what:
      'Runs `bench/js/vectors-build.mjs`. 10,000 `packages` documents added with `addMany` (batches of 1,000) to an empty in-memory index whose schema adds a 384-dimension cosine vector field; wall time of `addMany` plus the flush, best of 3 rounds, the three builds interleaved in each round. Vectors: seeded random, uniform in [-1, 1]. Both vector forms cross into wasm as one float buffer a batch beside the JSON text of the other fields (a number array is rounded to 32-bit floats in JS, as the engine rounds the numbers of JSON text).',
    command: 'make -C bench vectors-build',
    machine: '2 shared cores, other sessions running: compare ratios',
    columns: ['documents', { name: 'build ms', align: 'right', group: true }, { name: 'x no vectors', align: 'right' }, 'target', ''],
    rows,
  });
  console.log(`wrote ${file}`);
}
