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
// Link-aware rows (neighbours, names, links) exist on the agent set only: n/a elsewhere.
const row = (coll, scope, name) => res.collections[coll][scope][name];
const has = (coll, scope, name) => row(coll, scope, name) !== undefined;
const f3 = (x) => x.toFixed(3);
// lexical and its variants, vector, RRF by falling k, then each convex method by rising alpha
// and the default's variants.
const order = ['lexical', 'prf lexical', 'neighbours lexical', 'names lexical', 'links lexical', 'vector', 'rrf', 'weighted', 'zscore', 'prf zscore', 'neighbours zscore', 'names zscore', 'links zscore'];
const rank = (n) => order.indexOf(n.split(/ (?=alpha|k=)/)[0]);
const param = (n) => Number(n.split('=')[1] ?? 0) * (n.startsWith('rrf') ? -1 : 1);
const names = Object.keys(res.collections['agent-memory'].all).sort((x, y) => rank(x) - rank(y) || param(x) - param(y));
const best = (coll, scope) => Math.max(row(coll, scope, 'lexical').ndcg_at_10, row(coll, scope, 'vector').ndcg_at_10);
const label = (name) => {
  const [method, param] = name.split(/ (?=alpha|k=)/);
  const pretty = {
    lexical: 'lexical only', 'prf lexical': 'lexical + PRF', vector: 'vector only', rrf: 'RRF',
    weighted: 'weighted (min-max)', zscore: 'z-score', 'prf zscore': 'z-score, lexical + PRF',
    'neighbours lexical': 'lexical + session neighbours', 'names lexical': 'lexical + name links',
    'links lexical': 'lexical + both links', 'neighbours zscore': 'z-score + session neighbours',
    'names zscore': 'z-score + name links', 'links zscore': 'z-score + both links',
  }[method];
  const p = param ? param.replace('=', ' ') : '';
  return [name === chosen ? `**${pretty}**` : pretty, name === chosen ? `**${p} (default)**` : p];
};
const margins = (name) => sets.filter(([c, s]) => has(c, s, name)).map(([c, s]) => row(c, s, name).ndcg_at_10 - best(c, s));
const rows = names.map((name) => {
  const worst = Math.min(...margins(name));
  const agent = row('agent-memory', 'all', name);
  return [
    ...label(name),
    ...sets.map(([c, s]) => (has(c, s, name) ? f3(row(c, s, name).ndcg_at_10) : 'n/a')),
    `${worst >= 0 ? '+' : '−'}${f3(Math.abs(worst))}`,
    ['multi-hop', 'temporal', 'single-hop'].map((t) => f3(agent[t].recall_at_10)).join(' / '),
    f3(agent.recall_at_10),
  ];
});
const a = res.collections['agent-memory'];
const n = (coll, scope, name) => row(coll, scope, name).ndcg_at_10;
const d = (x) => `${x >= 0 ? '+' : '−'}${f3(Math.abs(x))}`;
const r10 = (name, t, scope = 'all') => f3(row('agent-memory', scope, name)[t].recall_at_10).slice(1);

// The link-aware rows' note, naming the best configuration for multi-hop questions.
function links() {
  const p = res.neighbours;
  const mh = (name, scope = 'all') => row('agent-memory', scope, name)['multi-hop'].recall_at_10;
  const top = names.reduce((x, y) => (mh(y) > mh(x) ? y : x));
  const [method] = top.split(/ (?=alpha|k=)/);
  const agentN = (name, scope = 'all') => n('agent-memory', scope, name);
  const move = (base, kinds, t, scope = 'all') => `${r10(base, t, scope)} → ${kinds.map((k) => r10(`${k} ${base}`, t, scope)).join(' / ')}`;
  return `Link-aware candidates (rows "+ session neighbours", "+ name links", "+ both links"; \`bench/relevance/neighbours.rs\`, measured there, not a memdex option; n/a on Cranfield and CISI, which have no sessions): ` +
    `the top ${p.sources} hits bring the turns just before and after them in their session, or the memories of their conversation that name a name they name (a capitalized word the corpus never writes in lower case, in at most ${p.max_name_turns} turns of the conversation), each scored its source's score less ${Math.round(p.decay * 100)} % of its magnitude, at most ${p.max_added} added to the top 10. ` +
    `Multi-hop R@10 (session neighbours / name links / both): lexical ${move('lexical', ['neighbours', 'names', 'links'], 'multi-hop')}, z-score ${move(chosen, ['neighbours', 'names', 'links'], 'multi-hop')}, within a conversation ${move(chosen, ['neighbours', 'names', 'links'], 'multi-hop', 'conversation')}. ` +
    `Session neighbours only displace hits here (z-score nDCG@10 ${d(agentN(`neighbours ${chosen}`) - agentN(chosen))}): no two evidence turns of a question are adjacent in a session (a bridge's turns are sessions apart), so they are dropped; name links follow the bridge (the role turn names the person the answer turn is about) and cost little elsewhere (single-hop ${r10(chosen, 'single-hop')} → ${r10(`names ${chosen}`, 'single-hop')}, temporal ${r10(chosen, 'temporal')} → ${r10(`names ${chosen}`, 'temporal')}). ` +
    `Best for multi-hop: **${label(top)[0].replace(/\*/g, '')}${top.includes('alpha') ? ` (alpha ${top.split('=')[1]})` : ''}**, multi-hop R@10 ${r10(top, 'multi-hop')} over all memories and ${r10(top, 'multi-hop', 'conversation')} within a conversation (goal .50), nDCG@10 ${f3(agentN(top))} against ${f3(agentN(chosen))} for z-score alone. ` +
    `The set was generated with bridges joined by a name, so this is the best case for name links; they need names the engine does not extract, which is why they are a recipe for the caller (follow the names of the top hits within the conversation) rather than a default${method === 'names zscore' ? '' : ' (and the best row is not z-score + name links this run)'}.`;
}

function notes() {
  const mean = (name) => [0, 1, 2].reduce((s, i) => s + n(...sets[i], name), 0) / 3;
  const alt = 'zscore alpha=0.6';
  const prf = (c, s) => d(n(c, s, 'prf lexical') - n(c, s, 'lexical'));
  const leader = ([c, s]) => (n(c, s, 'vector') >= n(c, s, 'lexical') ? 'vector' : 'lexical');
  const leaders = sets.slice(0, 3).map(leader);
  const leads = ['Cranfield', 'CISI', 'the agent set'].map((name, i) => `${leaders[i]} on ${name}`).join(', ');
  const why = new Set(leaders).size > 1
    ? 'neither list leads on every set, and an even weight bets on neither'
    : `the ${leaders[0]} list leads on all three sets, and an even weight does not bet on that where the other leads`;
  return [
    `The default is \`zscore\` with alpha 0.5: above the better single list (${leads}) everywhere, by ${margins(chosen).map(d).join(' / ')} (the four columns in order). ` +
      `Alpha 0.6 scores ${d(mean(alt) - mean(chosen))} more on the mean of the three sets (${sets.slice(0, 3).map(([c, s]) => d(n(c, s, alt) - n(c, s, chosen))).join(' / ')}); 0.5 is kept because ${why}. ` +
      `RRF with k = 60 falls below vector only on the agent set (${d(n('agent-memory', 'all', 'rrf k=60') - n('agent-memory', 'all', 'vector'))} nDCG@10; k = 10 narrows it); \`weighted\` (min-max) at alpha 0.5 clears it by less than \`zscore\`.`,
    `Multi-hop evidence recall@10 on the agent set: lexical ${r10('lexical', 'multi-hop')}, vector ${r10('vector', 'multi-hop')}, RRF ${r10('rrf k=60', 'multi-hop')}, weighted ${r10('weighted alpha=0.5', 'multi-hop')}, z-score ${r10(chosen, 'multi-hop')} (alpha 0.5) and ${r10(alt, 'multi-hop')} (0.6): vector only finds about as much multi-hop evidence as any fusion; ` +
      `fusion gains on single-hop (vector ${r10('vector', 'single-hop')}, lexical ${r10('lexical', 'single-hop')}, z-score ${r10(chosen, 'single-hop')}) and temporal questions (${r10('vector', 'temporal')}, ${r10('lexical', 'temporal')}, ${r10(chosen, 'temporal')}). ` +
      `Vector only leads lexical on the agent set (${f3(n('agent-memory', 'all', 'vector'))} against ${f3(n('agent-memory', 'all', 'lexical'))}); its questions name the speaker, which both lists see (the \`speaker\` field, and "speaker: text" in the embedding).`,
    `Pseudo-relevance feedback (rows "+ PRF", measured in \`bench/relevance/fusion.rs\`, not a memdex option): RM3-style, the first pass's top 10 hits vote for their words by score share and term frequency, the 10 best words not in the question join it with boosts up to 0.5. ` +
      `Lexical nDCG@10 moves by ${prf('cranfield', 'all')} on Cranfield, ${prf('cisi', 'all')} on CISI and ${prf('agent-memory', 'all')} on the agent set (${prf('agent-memory', 'conversation')} within a conversation): a dialog turn is short, and the top turns of look-alike conversations vote for their own words. ` +
      `Multi-hop recall@10 moves from ${r10('lexical', 'multi-hop')} to ${r10('prf lexical', 'multi-hop')} over all memories and from ${r10('lexical', 'multi-hop', 'conversation')} to ${r10('prf lexical', 'multi-hop', 'conversation')} within a conversation; as z-score's lexical query PRF moves nDCG@10 by ${sets.slice(0, 3).map(([c, s]) => d(n(c, s, 'prf zscore alpha=0.5') - n(c, s, chosen))).join(' / ')}. Not kept as a default; an option for long documents at most.`,
    links(),
  ];
}
const file = writeTable(path.join(BENCH, 'results', 'tables'), {
  workload: 'vectors-fusion-sweep',
  title: 'Fusion by evidence',
  what: `nDCG@10 of lexical only, vector only, RRF and the two normalized convex combinations (\`weighted\`: min-max per list; \`zscore\`: standardized per list, a missing candidate at the list's lowest) over alpha (the vector list's weight), on Cranfield (225 q), CISI (76 q) and the agent-memory set (\`bench/agent-memory\`: ${a.documents.toLocaleString('en-US')} generated dialog turns, ${a.queries_evaluated} questions; searched over all memories, and within the question's conversation by a filter). "worst margin" is the smallest difference to the better single list over the four columns; the agent set's evidence recall@10 per question type is over all memories. Rows with session or name links exist on the agent set only (n/a on Cranfield and CISI; their worst margin is over the agent columns). Native memdex (the same code as the package), all-MiniLM-L6-v2 embeddings from \`bench/py/embed.py\`, OR, 100 candidates a list.`,
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
  notes: notes(),
});
console.log(`wrote ${file}`);
