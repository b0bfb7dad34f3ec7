// Per-query nDCG@10 of memdex against one JS peer on a judged collection: where the peer wins
// most and by how much, with each side's top hits. memdex's runs come from
// `cargo run --release --example relevance_options -- --runs DIR 'or={}'` (DIR/or-cranfield.json).
//   node bench/js/per-query.mjs --runs DIR/or-cranfield.json [--collection cranfield] [--peer lunr] [--top 25]
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readQrels } from './metrics.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const collection = opt('collection', 'cranfield');
const peerName = opt('peer', 'lunr');
const top = Number(opt('top', '25'));
const runsPath = opt('runs');
const data = path.resolve(opt('data', process.env.MEMDEX_DATA || path.join(here, '../../../shared/data')));
if (!runsPath) throw new Error('--runs FILE (memdex ranked ids per query, from relevance_options --runs)');

const jsonl = (p) => fs.readFileSync(p, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
const docs = jsonl(path.join(data, collection, 'corpus.jsonl')).map((d) => ({ id: d._id, title: d.title || '', text: d.text || '' }));
const queries = jsonl(path.join(data, collection, 'queries.jsonl'));
const qrels = readQrels(path.join(data, collection, 'qrels.tsv'));
const memdexRuns = JSON.parse(fs.readFileSync(runsPath, 'utf8'));

const { create } = await import(`./peers/${peerName}.mjs`);
const peer = await create({ config: 'english' });
peer.build(docs);

/** nDCG@10 with linear gain, as metrics.mjs computes it. */
function ndcg(ranked, rels) {
  const ideal = [...rels.values()].sort((a, b) => b - a);
  let idcg = 0, dcg = 0;
  for (let i = 0; i < Math.min(10, ideal.length); i++) idcg += ideal[i] / Math.log2(i + 2);
  for (let i = 0; i < Math.min(10, ranked.length); i++) dcg += (rels.get(ranked[i]) || 0) / Math.log2(i + 2);
  return idcg > 0 ? dcg / idcg : 0;
}

const rows = [];
for (const q of queries) {
  const rels = qrels.get(q._id);
  if (!rels) continue;
  const mine = memdexRuns[q._id] || [];
  const theirs = peer.search(q.text, { mode: 'or', k: 10 });
  rows.push({ id: q._id, text: q.text, rels, mine, theirs, m: ndcg(mine, rels), p: ndcg(theirs, rels) });
}
const mean = (f) => rows.reduce((s, r) => s + f(r), 0) / rows.length;
const wins = rows.filter((r) => r.p > r.m + 1e-9).length;
const losses = rows.filter((r) => r.m > r.p + 1e-9).length;
console.log(`${collection}: ${rows.length} judged queries; memdex ${mean((r) => r.m).toFixed(4)}, ${peerName} ${mean((r) => r.p).toFixed(4)}`);
console.log(`${peerName} better on ${wins}, memdex better on ${losses}, equal on ${rows.length - wins - losses}`);
const mark = (ids, rels) => ids.map((d) => (rels.has(d) ? `${d}*${rels.get(d)}` : d)).join(' ');
rows.sort((a, b) => (b.p - b.m) - (a.p - a.m));
for (const r of rows.slice(0, top)) {
  console.log(`\nq${r.id} ${peerName} ${r.p.toFixed(3)} memdex ${r.m.toFixed(3)} (${(r.p - r.m).toFixed(3)}): ${r.text}`);
  console.log(`  ${peerName}: ${mark(r.theirs, r.rels)}`);
  console.log(`  memdex: ${mark(r.mine, r.rels)}`);
}
