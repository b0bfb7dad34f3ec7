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
const chosen = process.argv[2] ?? 'zscore alpha=0.5';
const sets = [
  ['cranfield', 'all'],
  ['cisi', 'all'],
  ['agent-memory', 'all'],
  ['agent-memory', 'conversation'],
];
const row = (coll, scope, name) => res.collections[coll][scope][name];
const f3 = (x) => x.toFixed(3);
// lexical, vector, RRF by falling k, then each convex method by rising alpha.
const rank = (n) => ['lexical', 'prf lexical', 'vector', 'rrf', 'weighted', 'zscore', 'prf zscore'].indexOf(n.split(/ (?=alpha|k=)/)[0]);
const param = (n) => Number(n.split('=')[1] ?? 0) * (n.startsWith('rrf') ? -1 : 1);
const names = Object.keys(res.collections.cranfield.all).sort((x, y) => rank(x) - rank(y) || param(x) - param(y));
const best = (coll, scope) => Math.max(row(coll, scope, 'lexical').ndcg_at_10, row(coll, scope, 'vector').ndcg_at_10);
const label = (name) => {
  const [method, param] = name.split(/ (?=alpha|k=)/);
  const pretty = {
    lexical: 'lexical only', 'prf lexical': 'lexical + PRF', vector: 'vector only', rrf: 'RRF',
    weighted: 'weighted (min-max)', zscore: 'z-score', 'prf zscore': 'z-score, lexical + PRF',
  }[method];
  const p = param ? param.replace('=', ' ') : '';
  return [name === chosen ? `**${pretty}**` : pretty, name === chosen ? `**${p} (default)**` : p];
};
const margins = (name) => sets.map(([c, s]) => row(c, s, name).ndcg_at_10 - best(c, s));
const rows = names.map((name) => {
  const worst = Math.min(...margins(name));
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
  what: `nDCG@10 of lexical only, vector only, RRF and the two normalized convex combinations (\`weighted\`: min-max per list; \`zscore\`: standardized per list, a missing candidate at the list's lowest) over alpha (the vector list's weight), on Cranfield (225 q), CISI (76 q) and the agent-memory set (\`bench/agent-memory\`: ${a.documents.toLocaleString('en-US')} generated dialog turns, ${a.queries_evaluated} questions; searched over all memories, and within the question's conversation by a filter). "worst margin" is the smallest difference to the better single list over the four columns; the agent set's evidence recall@10 per question type is over all memories. Native memdex (the same code as the package), all-MiniLM-L6-v2 embeddings from \`bench/py/embed.py\`, OR, 100 candidates a list.`,
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
  notes: [
    `The default is \`zscore\` with alpha 0.5: above the better single list (vector only, on all three sets) everywhere, by ${margins(chosen).map((m) => `+${f3(m)}`).join(' / ')} (the four columns in order). ` +
      'Alpha 0.6 scores a little higher on CISI and the agent set (mean over the three +0.007) and lower on Cranfield; 0.5 is kept because the vector list is the stronger one on all three sets, and an even weight does not bet on that where lexical search leads. RRF with k = 60 falls below vector only on the agent set (−0.056 nDCG@10; k = 10 narrows it); `weighted` (min-max) clears it from alpha 0.5 on, by less than `zscore`.',
    'Multi-hop evidence recall@10 on the agent set: lexical .161, vector .444, RRF .244, weighted .376, z-score .403 (alpha 0.5) and .435 (0.6): vector only finds the most multi-hop evidence and no fusion at alpha 0.5 reaches it; fusion gains on single-hop (.658 vector, .604 lexical, .704 z-score) and temporal questions (.870, .635, .894). Vector only leads lexical on the agent set (.589 against .509); its questions name the speaker, which both lists see (the `speaker` field, and "speaker: text" in the embedding).',
    'Pseudo-relevance feedback (rows "+ PRF", measured in `bench/relevance/fusion.rs`, not a memdex option): RM3-style, the first pass\'s top 10 hits vote for their words by score share and term frequency, the 10 best words not in the question join it with boosts up to 0.5. It lifts lexical Cranfield by +0.020 (0.378 to 0.397) and CISI by +0.001, but lowers the agent set by −0.053 (−0.057 within a conversation): a dialog turn is short, and the top turns of look-alike conversations vote for their own words. Multi-hop recall@10 moves from .161 to .142 over all memories and from .199 to .221 within a conversation; under z-score fusion PRF adds nothing on Cranfield and CISI and costs −0.020 on the agent set. Not kept as a default; an option for long documents at most.',
  ],
});
console.log(`wrote ${file}`);
