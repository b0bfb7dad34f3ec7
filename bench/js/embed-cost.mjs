// Measures what `Memdex.open({ embed })` costs `addMany`: N documents embedded by a stand-in embedder of fixed latency per call, across batch sizes and concurrency; wall time, embedder calls, and the longest the writer lock was held and the engine written, against the embedder's waits.
//
// The stand-in answers after `--latency` ms (default 20) with hashing-trick
// vectors (384 dimensions): the latency models a model server, the vectors
// are real input for the engine. Each run opens a fresh index on an
// in-memory adapter with a writer lock (`lock(name, fn)`) that records how
// long each hold lasted; the engine's write calls are timed by wrapping
// Engine.prototype. A lock hold or engine write "overlaps" when an embedder
// call was in flight during it: the design says never (embedding is awaited
// before the call's first write, and no lock is held meanwhile). Two rows
// contrast the update() forms: `update(operations)` embeds before it takes
// the lock; `await index.add(doc)` inside `update(fn)` embeds under it.
//
// Usage: node bench/js/embed-cost.mjs [--docs 2000] [--latency 20] [--json]
//   --json writes bench/results/embed-cost-<stamp>.json (raw) and the table
//   bench/results/tables/embed-cost.json; then `node bench/js/report.mjs`.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Memdex } from '../../pkg/node.js';
import { Engine } from '../../pkg/memdex.js';
import { memoryStorage } from '../../pkg/storage/memory.js';
import { writeTable } from './report-table.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : Number(process.argv[i + 1]);
};
const DOCS = arg('docs', 2000);
const LATENCY = arg('latency', 20);
const DIMS = 384;
const RESULTS = fileURLToPath(new URL('../results/', import.meta.url));

/** Hashing-trick bag of words: a placeholder for a real model. */
function hashVector(text) {
  const v = new Float32Array(DIMS);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    v[(h >>> 0) % DIMS] += (h & 1) === 0 ? 1 : -1;
  }
  v[0] += 0.01; // never all zeros
  return v;
}

const WORDS = 'deploy friday release database postgres lunch noon agent memory rule note decision cache token budget search index vector hybrid commit'.split(' ');
const docs = Array.from({ length: DOCS }, (_, i) => ({
  id: `d${i}`,
  title: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]}`,
  text: Array.from({ length: 30 }, (_, k) => WORDS[(i * 31 + k * 17) % WORDS.length]).join(' ') + ` item ${i}`,
}));

// Timeline of one run: embedder calls, lock holds and engine writes as [start, end] in ms.
let timeline = { embeds: [], locks: [], writes: [] };
const now = () => performance.now();

for (const method of ['addJsonLines', 'addJsonLinesFloats', 'addJson']) {
  const original = Engine.prototype[method];
  Engine.prototype[method] = function (...args) {
    const start = now();
    try {
      return original.apply(this, args);
    } finally {
      timeline.writes.push([start, now()]);
    }
  };
}

/** An in-memory adapter with a writer lock that records its holds. */
function lockedStorage() {
  const base = memoryStorage();
  let tail = Promise.resolve();
  return Object.assign(Object.create(Object.getPrototypeOf(base)), base, {
    get: base.get.bind(base),
    put: base.put.bind(base),
    delete: base.delete.bind(base),
    list: base.list.bind(base),
    swap: base.swap.bind(base),
    lock(_name, fn) {
      const run = tail.then(async () => {
        const start = now();
        try {
          return await fn();
        } finally {
          timeline.locks.push([start, now()]);
        }
      });
      tail = run.catch(() => {});
      return run;
    },
  });
}

async function embed(texts) {
  const start = now();
  await new Promise((resolve) => setTimeout(resolve, LATENCY));
  const out = texts.map(hashVector);
  timeline.embeds.push([start, now()]);
  return out;
}

const longest = (spans) => spans.reduce((m, [a, b]) => Math.max(m, b - a), 0);
/** Spans of `spans` during which an embedder call was in flight. */
const overlapping = (spans) => spans.filter(([a, b]) => timeline.embeds.some(([s, e]) => s < b && a < e)).length;

async function run(label, { batchSize, concurrency, form = 'addMany', embedder = true }) {
  timeline = { embeds: [], locks: [], writes: [] };
  const storage = lockedStorage();
  const schema = { embedding: { type: 'vector', dimensions: DIMS } };
  const options = { name: 'cost', storage, autoCommit: false, schema };
  if (embedder) options.embed = { embed, batchSize, concurrency };
  const index = await Memdex.open(options);
  const input = embedder ? docs : docs.map((d) => ({ ...d, embedding: hashVector(`${d.title}. ${d.text}`) }));
  const start = now();
  if (form === 'addMany') await index.addMany(input);
  else if (form === 'operations') await index.update(input.map((doc) => ({ op: 'add', doc })));
  else await index.update(async (ix) => { for (const doc of input) await ix.add(doc); });
  await index.commit();
  const wall = now() - start;
  const size = index.size;
  await index.close();
  if (size !== docs.length) throw new Error(`${label}: ${size} documents, expected ${docs.length}`);
  return {
    label,
    batchSize: embedder ? batchSize : null,
    concurrency: embedder ? concurrency : null,
    form,
    wallMs: wall,
    embedCalls: timeline.embeds.length,
    embedWaitMs: timeline.embeds.length ? Math.max(...timeline.embeds.map((s) => s[1])) - Math.min(...timeline.embeds.map((s) => s[0])) : 0,
    longestLockMs: longest(timeline.locks),
    longestEngineWriteMs: longest(timeline.writes),
    locksDuringEmbedding: overlapping(timeline.locks),
    writesDuringEmbedding: overlapping(timeline.writes),
  };
}

await run('warm-up (not reported)', { embedder: false });
const runs = [await run('vectors given (no embedder)', { embedder: false })];
for (const batchSize of [8, 32, 128]) {
  for (const concurrency of [1, 2, 4]) runs.push(await run(`addMany, batch ${batchSize}, concurrency ${concurrency}`, { batchSize, concurrency }));
}
runs.push(await run('update(operations), batch 32, concurrency 2', { batchSize: 32, concurrency: 2, form: 'operations' }));
// The documented exception, measured on fewer documents (each add is its own call).
const slow = docs.length;
docs.length = Math.min(docs.length, 100);
const fnRun = await run('update(fn) awaiting add() inside', { batchSize: 32, concurrency: 2, form: 'fn' });
docs.length = slow;
runs.push({ ...fnRun, docs: 100 });

const ms = (x) => Math.round(x * 10) / 10;
console.log(`embed cost: ${DOCS} documents, stand-in embedder ${LATENCY} ms per call, ${DIMS} dimensions`);
console.log('| run | calls | wall ms | longest lock ms | longest engine write ms | lock holds / writes during an embedder call |');
for (const r of runs) {
  console.log(`| ${r.label} | ${r.embedCalls} | ${ms(r.wallMs)} | ${ms(r.longestLockMs)} | ${ms(r.longestEngineWriteMs)} | ${r.locksDuringEmbedding} / ${r.writesDuringEmbedding} |`);
}

if (process.argv.includes('--json')) {
  const stamp = new Date().toISOString().slice(0, 16).replace(/[-:]/g, '');
  const rawFile = `embed-cost-${stamp}.json`;
  const machine = { cores: os.cpus().length, cpu_model: os.cpus()[0]?.model, node: process.version, loadavg_at_start: os.loadavg().map((x) => Math.round(x * 100) / 100) };
  writeFileSync(`${RESULTS}${rawFile}`, `${JSON.stringify({ workload: 'embed-cost-raw', date: new Date().toISOString(), docs: DOCS, latencyMs: LATENCY, dimensions: DIMS, machine, runs }, null, 2)}\n`);
  writeTable(`${RESULTS}tables`, {
    workload: 'embed-cost',
    title: 'What embedding costs addMany',
    what:
      `${DOCS.toLocaleString('en')} documents (title and 30 words each) added by \`addMany\` to an index opened with \`embed\`, whose stand-in embedder answers after ${LATENCY} ms per call ` +
      `(hashing-trick vectors of ${DIMS} dimensions; the latency models a model server), then committed. The writer lock is the storage adapter's \`lock\` (timed per hold); engine writes are the engine's add calls (timed per call).`,
    command: `node bench/js/embed-cost.mjs --docs ${DOCS} --latency ${LATENCY} --json`,
    machine: `${machine.cores} cores, ${machine.node}, load ${machine.loadavg_at_start.join('/')} (shared machine)`,
    raw: [`bench/results/${rawFile}`],
    columns: [
      'run',
      { name: 'embedder calls', align: 'right' },
      { name: 'wall ms', align: 'right', digits: 0, group: true },
      { name: 'embedding ms', align: 'right', digits: 0, group: true },
      { name: 'longest lock hold ms', align: 'right', digits: 1 },
      { name: 'longest engine write ms', align: 'right', digits: 1 },
      { name: 'lock holds / writes during an embedder call', align: 'right' },
    ],
    rows: runs.map((r) => [
      r.docs ? `${r.label} (${r.docs} documents)` : r.label,
      r.embedCalls,
      r.wallMs,
      r.embedWaitMs,
      r.longestLockMs,
      r.longestEngineWriteMs,
      `${r.locksDuringEmbedding} / ${r.writesDuringEmbedding}`,
    ]),
    notes: [
      'Embedding dominates: calls × latency ÷ concurrency, so larger batches and a few calls in flight cut the wall time; the engine\'s own work is the first row. ' +
        '`addMany`, `add`, `patch` and `update(operations)` embed everything first and only then write (an `EMBED` error writes nothing): no lock hold and no engine write ever spans an embedder call (0 / 0): the lock is held for the commit (for `update(operations)`, its writes and commit), never for an embedding. ' +
        'Inside `update(fn)`, `await index.add(doc)` embeds under the writer lock (the last row: the hold spans every call); embed first with `embedDocuments(docs)`, or pass `update` the operations.',
    ],
  });
  console.error(`wrote bench/results/${rawFile} and bench/results/tables/embed-cost.json; now node bench/js/report.mjs`);
}
