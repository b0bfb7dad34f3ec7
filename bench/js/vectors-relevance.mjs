// Measures relevance (nDCG@10, MAP@100, Recall@100; metrics.mjs) of lexical
// only, vector only, and hybrid search (RRF, weighted, zscore) on Cranfield and
// CISI, with real embeddings: all-MiniLM-L6-v2 vectors of every document and
// query computed by bench/py/embed.py (run it first: `make -C bench
// vectors-relevance` does both). memdex in wasm (the built pkg/), default
// analysis (english), title (weight 2) + text, OR mode, top 100.
// Defaults first (RRF k 60, alpha 0.5, 100 candidates a list), then a small
// sweep of k / alpha / candidates. The native sweep over the agent-memory set
// too is bench/relevance/fusion.rs (`make -C bench fusion-sweep`).
// Usage: node js/vectors-relevance.mjs [PKG_DIR = ../pkg]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { prepareCollection, BENCH } from './prepare-data.mjs';
import { readQrels, evaluate } from './metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkg = path.resolve(process.argv[2] ?? path.join(here, '..', '..', 'pkg'));
const EMB = path.join(BENCH, '.data', 'embeddings');

const mod = await import(path.join(pkg, 'memdex.js'));
await mod.default({ module_or_path: fs.readFileSync(path.join(pkg, 'memdex_bg.wasm')) });

function readVectors(dir, name, dims) {
  const ids = fs.readFileSync(path.join(dir, `${name}.ids`), 'utf8').trim().split('\n');
  const buf = fs.readFileSync(path.join(dir, `${name}.f32`));
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.length / 4);
  if (all.length !== ids.length * dims) throw new Error(`${dir}/${name}: ${all.length} floats for ${ids.length} ids`);
  return new Map(ids.map((id, i) => [id, all.slice(i * dims, (i + 1) * dims)]));
}

const out = { workload: 'vectors-relevance', date: new Date().toISOString(), collections: {} };
for (const coll of ['cranfield', 'cisi']) {
  const dir = path.join(EMB, coll);
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  const dims = meta.dimensions;
  const docVectors = readVectors(dir, 'docs', dims);
  const queryVectors = readVectors(dir, 'queries', dims);
  const c = prepareCollection(coll);
  const qrels = readQrels(c.qrels);
  const engine = new mod.Engine({
    fields: { title: { type: 'text', weight: 2 }, text: { type: 'text' }, emb: { type: 'vector', dimensions: dims } },
  });
  const lines = fs.readFileSync(c.docs, 'utf8').trim().split('\n').map((l) => {
    const d = JSON.parse(l);
    return JSON.stringify({ ...d, emb: Array.from(docVectors.get(d.id)) });
  });
  for (let i = 0; i < lines.length; i += 500) engine.addJsonLines(lines.slice(i, i + 500).join('\n'));
  engine.flush();
  const queries = fs.readFileSync(c.queries, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const base = { mode: 'or', limit: 100, storedFields: false };
  const run = (fn) => {
    const r = {};
    for (const q of queries) r[q.id] = fn(q.text, queryVectors.get(q.id)).hits.map((h) => h.id);
    const m = evaluate(r, qrels);
    return { ndcg_at_10: +m.ndcg_at_10.toFixed(4), map_at_100: +m.map_at_100.toFixed(4), recall_at_100: +m.recall_at_100.toFixed(4) };
  };
  const hybrid = (h) => run((q, v) => engine.search(q, { ...base, hybrid: h }, v));
  const res = {
    model: meta.model,
    queries_evaluated: qrels.size,
    lexical: run((q) => engine.search(q, base)),
    vector: run((q, v) => engine.search('', base, v)),
    rrf: hybrid({ method: 'rrf' }),
    weighted: hybrid({ method: 'weighted' }),
    zscore: hybrid({ method: 'zscore' }),
    sweep: {},
  };
  for (const k of [10, 30, 60, 100]) for (const candidates of [100, 200]) res.sweep[`rrf k=${k} candidates=${candidates}`] = hybrid({ method: 'rrf', k, candidates }).ndcg_at_10;
  for (const method of ['weighted', 'zscore']) for (const alpha of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7]) res.sweep[`${method} alpha=${alpha}`] = hybrid({ method, alpha }).ndcg_at_10;
  out.collections[coll] = res;
  console.error(`${coll}: lexical ${res.lexical.ndcg_at_10} vector ${res.vector.ndcg_at_10} rrf ${res.rrf.ndcg_at_10} weighted ${res.weighted.ndcg_at_10} zscore ${res.zscore.ndcg_at_10}`);
}
console.log(JSON.stringify(out, null, 2));
