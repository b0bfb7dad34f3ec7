// Measures the cost model of a whole request (docs/BOUNDS.md): wall
// milliseconds and answer size of the option shapes that cost tens of
// seconds without the per-stage bounds (deep diversity/dedupe pages, link
// expansion over a hub, explain and highlight at the maximum page, 10,000
// hits with stored fields) on the first 20k `packages` documents (title + text, each linking
// to two others and to one hub, so expansion has a graph to walk), through
// the public API (`Memdex.search`) of each package given. A shape is timed
// once cold, then (when it took under a second) 4 more times: the median
// is reported with the hits, the answer's JSON bytes and `limited` or the
// error code. Goal: every shape under 1,000 ms of engine time.
// Usage: node js/request-cost.mjs [PKG_DIR...] (default: the repo's pkg/).
import { medianRun, readJsonlGzHead } from './common.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgs = process.argv.length > 2 ? process.argv.slice(2) : [path.join(here, '..', '..', 'pkg')];
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const N = 20_000;
const GOAL_MS = 1000;
const REPEATS = 5;

const docs = await readJsonlGzHead(path.join(dataDir, 'packages/corpus.jsonl.gz'), N, (d) => ({
  id: d._id,
  title: d.title ?? '',
  text: d.text ?? '',
}));
// Links: each document to the next two, and every document to the hub.
docs.forEach((d, i) => {
  d.links = [
    { type: 'NEXT', to: docs[(i + 1) % N].id },
    { type: 'NEXT', to: docs[(i + 2) % N].id },
    { type: 'PART_OF', to: docs[0].id },
  ];
});

// Matches most of the 20k documents, so every deep page is full.
const q = 'library OR package OR python OR data OR tool OR api OR plugin OR client OR for OR and';
const tag64 = 'x'.repeat(64);
const shapes = [
  ['diversity+dedupe, limit 100, offset 2900', q, { diversity: 0.5, dedupe: true, limit: 100, offset: 2900 }],
  ['diversity+dedupe, limit 100, offset 8700', q, { diversity: 0.5, dedupe: true, limit: 100, offset: 8700 }],
  ['diversity 0.5, limit 100', q, { diversity: 0.5, limit: 100 }],
  ['dedupe, limit 100, offset 8700', q, { dedupe: true, limit: 100, offset: 8700 }],
  ['expand hops 3 both, limit 100', q, { limit: 100, expand: { hops: 3, direction: 'both' } }],
  ['expand hops 3 both limit 10000, limit 100', q, { limit: 100, expand: { hops: 3, direction: 'both', limit: 10000 } }],
  ['explain, limit 100, offset 8700', q, { explain: true, limit: 100, offset: 8700 }],
  ['highlight 64-byte tags, snippetLength 2000, limit 100', q, { limit: 100, highlight: { preTag: tag64, postTag: tag64, snippetLength: 2000 } }],
  ['limit 10000, every stored field, highlight', q, { limit: 10000, highlight: {} }],
  ['proximity, limit 100, offset 8700', q, { proximity: true, limit: 100, offset: 8700 }],
  ['everything at once', q, { diversity: 0.5, dedupe: true, explain: true, proximity: true, limit: 100, offset: 8700, highlight: { preTag: tag64, postTag: tag64 }, expand: { hops: 3, direction: 'both', limit: 10000 } }],
];

function run(index, query, options) {
  const start = performance.now();
  let outcome;
  let bytes = 0;
  try {
    const r = index.search(query, options);
    const ms = performance.now() - start;
    bytes = JSON.stringify(r).length;
    outcome = `${r.hits.length} hits${r.limited ? `, limited: ${r.limited.join(',')}` : ''}`;
    return { ms, outcome, bytes };
  } catch (e) {
    outcome = `error ${e.code ?? e.name}`;
  }
  return { ms: performance.now() - start, outcome, bytes };
}

const time = (index, query, options) => medianRun(() => run(index, query, options), REPEATS);

for (const dir of pkgs) {
  const { Memdex } = await import(path.resolve(dir, 'node.js'));
  const index = await Memdex.open();
  index.addAll(docs);
  index.search('warm up');
  console.log(`${dir}: ${N} documents`);
  console.log('| shape | ms | answer bytes | outcome |\n|---|---:|---:|---|');
  let worst = 0;
  for (const [name, query, options] of shapes) {
    const { ms, outcome, bytes } = time(index, query, options);
    worst = Math.max(worst, ms);
    console.log(`| ${name} | ${ms.toFixed(1)} | ${bytes} | ${outcome} |`);
  }
  console.log(`slowest: ${worst.toFixed(1)} ms (${worst < GOAL_MS ? 'all under' : 'NOT all under'} ${GOAL_MS} ms)`);
  await index.close();
}
