// Turns bench/results/vectors-relevance.json (bench/js/vectors-relevance.mjs:
// lexical, vector and the three fusions on Cranfield and CISI, with a sweep
// of their parameters) into BENCHMARKS.md's "Vectors and hybrid" tables
// `vectors-relevance` and `vectors-hybrid-sweep`. Run by
// `make -C bench vectors-relevance`; then `node bench/js/report.mjs`.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTable } from './report-table.mjs';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RAW = 'bench/results/vectors-relevance.json';
const raw = JSON.parse(fs.readFileSync(path.join(BENCH, 'results', 'vectors-relevance.json'), 'utf8'));
const TABLES = path.join(BENCH, 'results', 'tables');
const NAMES = { cranfield: 'Cranfield', cisi: 'CISI' };
const LISTS = ['lexical', 'vector', 'rrf', 'weighted', 'zscore'];
const f3 = (x) => x.toFixed(3);
const signed = (x) => `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(3)}`;
const collections = Object.entries(raw.collections);
const date = raw.date.slice(0, 16).replace('T', ' ');
const machine = '2 shared cores';
const common = { command: 'make -C bench vectors-relevance', date, machine, raw: [RAW] };

const rows = collections.map(([name, c]) => {
  const best = Math.max(c.lexical.ndcg_at_10, c.vector.ndcg_at_10);
  const top = Math.max(...LISTS.map((l) => c[l].ndcg_at_10));
  const cell = (l) => (c[l].ndcg_at_10 === top ? `**${f3(c[l].ndcg_at_10)}**` : f3(c[l].ndcg_at_10));
  return [
    `${NAMES[name] ?? name} (${c.queries_evaluated} q)`,
    ...LISTS.map(cell),
    signed(c.zscore.ndcg_at_10 - best),
    LISTS.map((l) => f3(c[l].map_at_100)).join(' / '),
    LISTS.map((l) => f3(c[l].recall_at_100)).join(' / '),
  ];
});
const right = (name) => ({ name, align: 'right' });
writeTable(TABLES, {
  workload: 'vectors-relevance',
  title: 'Vector and hybrid relevance',
  what: 'Cranfield and CISI with all-MiniLM-L6-v2 embeddings (`bench/py/embed.py`), through the built package: the default lexical search, vector search alone, and the three fusions of both lists at their defaults (RRF k 60; `weighted` and `zscore` alpha 0.5, `zscore` being the default hybrid). OR, 100 candidates a list.',
  ...common,
  columns: ['collection', right('lexical nDCG@10'), right('vector'), right('RRF'), right('weighted'), right('z-score (default)'), right('z-score − best single'), 'MAP@100 lex / vec / RRF / weighted / z-score', 'R@100 lex / vec / RRF / weighted / z-score'],
  rows,
  notes: [`The default hybrid (z-score) is above the better single list on ${collections.every(([, c]) => c.zscore.ndcg_at_10 > Math.max(c.lexical.ndcg_at_10, c.vector.ndcg_at_10)) ? 'both collections' : 'not every collection'}; the agent-memory set is in "Fusion by evidence".`],
});

const sweepKeys = Object.keys(collections[0][1].sweep ?? {}).filter((k) => !k.includes('candidates=200'));
const label = (k) => {
  const [method, ...params] = k.replace(' candidates=100', '').split(' ');
  return [{ rrf: 'RRF', weighted: 'weighted (min-max)', zscore: 'z-score' }[method] ?? method, params.join(' ').replace('=', ' = ')];
};
const delta200 = Math.max(...collections.flatMap(([, c]) => Object.keys(c.sweep ?? {}).filter((k) => k.includes('candidates=200')).map((k) => c.sweep[k] - c.sweep[k.replace('200', '100')])));
writeTable(TABLES, {
  workload: 'vectors-hybrid-sweep',
  title: 'Hybrid parameters',
  what: 'nDCG@10 (Cranfield / CISI) of the same runs with one hybrid parameter changed.',
  ...common,
  columns: ['fusion', 'parameter', 'Cranfield / CISI nDCG@10'],
  rows: sweepKeys.map((k) => [...label(k), collections.map(([, c]) => f3(c.sweep[k])).join(' / ')]),
  notes: [`200 candidates a list instead of 100 changes nDCG@10 by at most ${signed(delta200)}. The default fusion (z-score, alpha 0.5) is chosen over these and the agent-memory set in "Fusion by evidence" below.`],
});
console.log('wrote tables vectors-relevance and vectors-hybrid-sweep');
