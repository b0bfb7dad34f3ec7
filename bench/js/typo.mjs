// Measures typo tolerance through the public API (wasm in Node):
// 1. Relevance on a typo set built from the Cranfield and CISI queries: in
//    each query, one content word of 4+ letters (seeded choice) gets one
//    seeded typo, the kinds in turn: transposition of two adjacent letters,
//    deletion, insertion, substitution. nDCG@10 and Recall@100 (bench/js/
//    metrics.mjs) for: the exact query, the typo'd query without tolerance,
//    with `fuzzy: 'auto'` and `fuzzy: 1`, and the exact query with
//    `fuzzy: 'auto'` (what tolerance on by default would cost clean queries).
//    "fixed" = typo'd queries whose typo'd word finds the intended word.
// 2. Cost at 100k documents (the first 100k `packages` documents, title +
//    text): p50/p95 of 300 `packages` queries, exact vs typo'd with
//    `fuzzy: 'auto'` (target: p50 within 3x of exact), and the build time and
//    snapshot size with surface words against a package without them
//    (TYPO_BASE_PKG, e.g. a build of the commit before; skipped if unset;
//    build times are medians of 3 alternating builds of each).
// Usage: node js/typo.mjs [PKG_DIR] (default: the repo's pkg/);
// TYPO_DOCS=100000 TYPO_QUERIES=300 change the cost run's sizes.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { readJsonl, readJsonlGzHead } from './common.mjs';
import { evaluate, latencyStats, median, readQrels } from './metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = process.argv[2] || path.join(here, '..', '..', 'pkg');
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const N_DOCS = Number(process.env.TYPO_DOCS || 100_000);
const N_QUERIES = Number(process.env.TYPO_QUERIES || 300);
const { Memdex } = await import(pathToFileURL(path.join(pkgDir, 'node.js')).href);

// Seeded PRNG (mulberry32) per query, so the typo set is the same every run.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const hash = (s) => [...s].reduce((h, c) => Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0, 2166136261);

const STOP = new Set('what which where when with from that this have been does there their about into upon they them these those were should would could being other than some such also only very more most made make given used using between after before under over same each both much many must what'.split(' '));
const KINDS = ['transposition', 'deletion', 'insertion', 'substitution'];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** `word` with one typo of `kind` at a seeded position (never the identity). */
function typo(word, kind, rand) {
  const w = [...word];
  const at = (n) => Math.floor(rand() * n);
  for (let tries = 0; tries < 20; tries++) {
    const v = [...w];
    if (kind === 'transposition') {
      const i = at(v.length - 1);
      [v[i], v[i + 1]] = [v[i + 1], v[i]];
    } else if (kind === 'deletion') v.splice(at(v.length), 1);
    else if (kind === 'insertion') v.splice(at(v.length + 1), 0, LETTERS[at(26)]);
    else v[at(v.length)] = LETTERS[at(26)];
    if (v.join('') !== word) return v.join('');
  }
  return `${word}x`;
}

/** The query with one content word of 4+ letters typo'd, or null if none. */
function typoQuery(id, text, n) {
  const rand = rng(hash(id));
  const words = text.split(/\s+/);
  const idx = words.map((w, i) => (/^[a-z]{4,}$/i.test(w) && !STOP.has(w.toLowerCase()) ? i : -1)).filter((i) => i >= 0);
  if (!idx.length) return null;
  const i = idx[Math.floor(rand() * idx.length)];
  const kind = KINDS[n % KINDS.length];
  const out = [...words];
  out[i] = typo(words[i].toLowerCase(), kind, rand);
  return { text: out.join(' '), word: words[i].toLowerCase(), typo: out[i], kind };
}

async function relevance(name) {
  const dir = path.join(dataDir, name);
  const corpus = readJsonl(path.join(dir, 'corpus.jsonl'));
  const queries = readJsonl(path.join(dir, 'queries.jsonl'));
  const qrels = readQrels(path.join(dir, 'qrels.tsv'));
  const index = await Memdex.create();
  index.addAll(corpus.map((d) => ({ id: d._id, title: d.title ?? '', text: d.text ?? '' })));
  const set = [];
  let n = 0;
  for (const q of queries) {
    if (!qrels.has(q._id)) continue;
    const t = typoQuery(q._id, q.text, n++);
    if (t) set.push({ id: q._id, exact: q.text, ...t });
  }
  const sub = new Map(set.map((q) => [q.id, qrels.get(q.id)]));
  const run = (pick, options) => {
    const r = {};
    for (const q of set) r[q.id] = index.search(pick(q), { limit: 100, ...options }).hits.map((h) => h.id);
    return evaluate(r, sub);
  };
  // A typo is "fixed" when the typo'd word alone, with tolerance, matches
  // the intended word's stem (its documents' matched terms include it).
  const stem = (w) => index.search(w, { limit: 1 }).hits[0]?.matchedTerms?.[0];
  let fixed = 0;
  for (const q of set) {
    const want = stem(q.word);
    const hits = index.search(q.typo, { fuzzy: 'auto', limit: 10 }).hits;
    if (want && hits.some((h) => h.matchedTerms.includes(want))) fixed++;
  }
  const out = {
    queries: set.length,
    exact: run((q) => q.exact, {}),
    typo: run((q) => q.text, {}),
    typoAuto: run((q) => q.text, { fuzzy: 'auto' }),
    typo1: run((q) => q.text, { fuzzy: 1 }),
    exactAuto: run((q) => q.exact, { fuzzy: 'auto' }),
    fixed: fixed / set.length,
    sample: set.slice(0, 4).map((q) => `${q.word} -> ${q.typo} (${q.kind})`),
  };
  await index.close();
  return out;
}

function packagesDocs(n) {
  const file = path.join(dataDir, 'packages/corpus.jsonl.gz');
  return readJsonlGzHead(file, n, (d) => ({ id: d._id, title: d.title ?? '', text: d.text ?? '' }));
}

async function build(M, docs) {
  const t0 = performance.now();
  const index = await M.create();
  index.addAll(docs);
  index.compact();
  const ms = performance.now() - t0;
  return { index, ms, bytes: index.export().length };
}

function time(index, queries, options) {
  const samples = [];
  for (const q of queries) {
    const t0 = performance.now();
    index.search(q, { limit: 10, ...options });
    samples.push(performance.now() - t0);
  }
  return latencyStats(samples);
}

async function cost() {
  const docs = await packagesDocs(N_DOCS);
  const lines = fs.readFileSync(path.join(dataDir, 'packages/queries.txt'), 'utf8').split('\n').filter((l) => l.trim());
  const queries = [];
  for (const [i, l] of lines.entries()) {
    const t = typoQuery(`p${i}`, l, i);
    if (t) queries.push(t);
    if (queries.length === N_QUERIES) break;
  }
  const { index, ms, bytes } = await build(Memdex, docs);
  const out = { docs: docs.length, queries: queries.length, buildMs: ms, snapshotBytes: bytes };
  // Warm up, then measure each shape twice, keeping the second.
  for (let round = 0; round < 2; round++) {
    out.exact = time(index, queries.map((q) => q.word), {});
    out.exactQuery = time(index, queries.map((q) => q.text.replace(q.typo, q.word)), {});
    out.typoAuto = time(index, queries.map((q) => q.text), { fuzzy: 'auto' });
    out.typo1 = time(index, queries.map((q) => q.text), { fuzzy: 1 });
  }
  await index.close();
  if (process.env.TYPO_BASE_PKG) {
    // Build times alternate between the two packages, 3 each: medians.
    const base = await import(pathToFileURL(path.join(process.env.TYPO_BASE_PKG, 'node.js')).href);
    const times = { base: [], new: [] };
    let baseBytes = 0;
    for (let i = 0; i < 3; i++) {
      for (const [k, M] of [['base', base.Memdex], ['new', Memdex]]) {
        const b = await build(M, docs);
        times[k].push(b.ms);
        if (k === 'base') baseBytes = b.bytes;
        await b.index.close();
      }
    }
    out.buildMs = median(times.new);
    out.base = { buildMs: median(times.base), snapshotBytes: baseBytes };
  }
  return out;
}

const pct = (x) => (100 * x).toFixed(1);
const results = { date: new Date().toISOString(), relevance: {} };
for (const name of ['cranfield', 'cisi']) {
  const r = await relevance(name);
  results.relevance[name] = r;
  console.log(`\n${name}: ${r.queries} typo'd queries, e.g. ${r.sample.join('; ')}`);
  console.log('run                          nDCG@10  R@100');
  for (const [k, label] of [['exact', 'exact query'], ['typo', "typo'd, no tolerance"], ['typoAuto', "typo'd, fuzzy 'auto'"], ['typo1', "typo'd, fuzzy 1"], ['exactAuto', "exact, fuzzy 'auto'"]]) {
    console.log(`${label.padEnd(28)} ${r[k].ndcg_at_10.toFixed(4)}   ${r[k].recall_at_100.toFixed(4)}`);
  }
  console.log(`typo'd word matches the intended word with fuzzy 'auto': ${pct(r.fixed)} %`);
}
if (N_DOCS > 0) {
  const c = await cost();
  results.cost = c;
  console.log(`\ncost: ${c.docs} packages documents, ${c.queries} queries; build ${(c.buildMs / 1000).toFixed(1)} s, snapshot ${(c.snapshotBytes / 1e6).toFixed(2)} MB`);
  for (const k of ['exact', 'exactQuery', 'typoAuto', 'typo1']) {
    console.log(`${k.padEnd(12)} p50 ${c[k].p50_ms.toFixed(3)} ms  p95 ${c[k].p95_ms.toFixed(3)} ms`);
  }
  console.log(`p50 typo'd fuzzy 'auto' / exact query: ${(c.typoAuto.p50_ms / c.exactQuery.p50_ms).toFixed(2)}x`);
  if (c.base) console.log(`without surface words: build ${(c.base.buildMs / 1000).toFixed(1)} s, snapshot ${(c.base.snapshotBytes / 1e6).toFixed(2)} MB`);
}
const outDir = path.join(here, '..', 'results');
fs.mkdirSync(outDir, { recursive: true });
fs.writeFileSync(path.join(outDir, 'typo.json'), JSON.stringify(results, null, 2));
