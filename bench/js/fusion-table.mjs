// Turns bench/results/fusion-sweep.json (bench/relevance/fusion.rs) into the table
// bench/results/tables/vectors-fusion-sweep.json: nDCG@10 of every fusion configuration on
// Cranfield, CISI and the agent-memory set, its margin over the better single list (lexical
// or vector) on the worst of the three, and the agent set's recall@10 per question type.
// Usage: node bench/js/fusion-table.mjs [DEFAULT_NAME]   (DEFAULT_NAME: the row marked default)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeTable } from './report-table.mjs';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RAW = 'bench/results/fusion-sweep.json';
const res = JSON.parse(fs.readFileSync(path.join(BENCH, '..', RAW), 'utf8'));
const chosen = process.argv[2] ?? 'zscore alpha=0.3';
const sets = [
  ['cranfield', 'all'],
  ['cisi', 'all'],
  ['agent-memory', 'all'],
  ['agent-memory', 'conversation'],
];
const row = (coll, scope, name) => res.collections[coll][scope][name];
const f3 = (x) => x.toFixed(3);
const names = Object.keys(res.collections.cranfield.all);
const best = (coll, scope) => Math.max(row(coll, scope, 'lexical').ndcg_at_10, row(coll, scope, 'vector').ndcg_at_10);
const label = (name) => {
  const [method, param] = name.split(' ');
  const pretty = { lexical: 'lexical only', vector: 'vector only', rrf: 'RRF', weighted: 'weighted (min-max)', zscore: 'z-score' }[method];
  const p = param ? param.replace('=', ' ') : '';
  return [name === chosen ? `**${pretty}**` : pretty, name === chosen ? `**${p} (default)**` : p];
};
const rows = names.map((name) => {
  const margins = sets.map(([c, s]) => row(c, s, name).ndcg_at_10 - best(c, s));
  const worst = Math.min(...margins);
  const agent = row('agent-memory', 'all', name);
  return [
    ...label(name),
    ...sets.map(([c, s]) => f3(row(c, s, name).ndcg_at_10)),
    `${worst >= 0 ? '+' : '−'}${f3(Math.abs(worst))}`,
    ['multi-hop', 'temporal', 'single-hop'].map((t) => f3(agent[t].recall_at_10)).join(' / '),
    f3(agent.recall_at_10),
  ];
});
const a = res.collections['agent-memory'];
const file = writeTable(path.join(BENCH, 'results', 'tables'), {
  workload: 'vectors-fusion-sweep',
  title: 'Fusion by evidence',
  what: `nDCG@10 of lexical only, vector only, RRF and the two normalized convex combinations (\`weighted\`: min-max per list; \`zscore\`: standardized per list, a missing candidate at the list's lowest) over alpha (the vector list's weight), on Cranfield (225 q), CISI (76 q) and the agent-memory set (\`bench/agent-memory\`: ${a.documents} generated dialog turns, ${a.queries_evaluated} questions; searched over all memories, and within the question's conversation by a filter). "worst margin" is the smallest difference to the better single list over the four columns; the agent set's evidence recall@10 per question type is over all memories. Native memdex (the same code as the package), all-MiniLM-L6-v2 embeddings from \`bench/py/embed.py\`, OR, 100 candidates a list.`,
  command: 'make -C bench fusion-sweep',
  machine: '2 shared cores',
  raw: [RAW],
  columns: [
    'fusion',
    'parameter',
    { name: 'Cranfield', align: 'right' },
    { name: 'CISI', align: 'right' },
    { name: 'agent (all)', align: 'right' },
    { name: 'agent (conversation)', align: 'right' },
    { name: 'worst margin', align: 'right' },
    'agent R@10 multi-hop / temporal / single-hop',
    { name: 'agent R@10', align: 'right' },
  ],
  rows,
  notes: [],
});
console.log(`wrote ${file}`);
