// The ONE relevance-metrics implementation used for every peer (pytrec_eval / BEIR conventions):
//   nDCG@10   = DCG@10 / IDCG@10 with LINEAR gain: DCG = sum_{i=1..10} rel_i / log2(i + 1)
//               (rel_i = qrels grade of the doc at rank i, 0 if unjudged); IDCG from the qrels grades
//               sorted descending. This is what pytrec_eval's ndcg_cut (used by BEIR) computes.
//   MAP@100   = mean over queries of (sum over relevant docs retrieved at rank i <= 100 of precision@i) / R
//               where R = number of relevant docs (grade > 0) in the qrels (pytrec_eval map_cut_100).
//   Recall@100 = |relevant in top 100| / R.
// Averaged over the queries that have at least one relevant judgment; a query with no results scores 0.
// Also: stats over latency samples (percentiles by nearest-rank on the sorted samples).
import fs from 'node:fs';

export function readQrels(path) {
  const qrels = new Map();
  const lines = fs.readFileSync(path, 'utf8').split('\n');
  for (const line of lines.slice(1)) {
    if (!line.trim()) continue;
    const [q, d, s] = line.split('\t');
    const g = Number(s);
    if (!(g > 0)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q).set(d, g);
  }
  return qrels;
}

export function evaluate(run, qrels) {
  let ndcg = 0, map = 0, recall = 0, n = 0;
  for (const [q, rels] of qrels) {
    n++;
    const ranked = run[q] || [];
    const ideal = [...rels.values()].sort((a, b) => b - a);
    let idcg = 0;
    for (let i = 0; i < Math.min(10, ideal.length); i++) idcg += ideal[i] / Math.log2(i + 2);
    let dcg = 0;
    for (let i = 0; i < Math.min(10, ranked.length); i++) dcg += (rels.get(ranked[i]) || 0) / Math.log2(i + 2);
    ndcg += idcg > 0 ? dcg / idcg : 0;
    let hits = 0, ap = 0;
    for (let i = 0; i < Math.min(100, ranked.length); i++) {
      if (rels.has(ranked[i])) { hits++; ap += hits / (i + 1); }
    }
    map += ap / rels.size;
    recall += hits / rels.size;
  }
  return { ndcg_at_10: ndcg / n, map_at_100: map / n, recall_at_100: recall / n, queries_evaluated: n };
}

export function latencyStats(samples) {
  if (!samples || samples.length === 0) return null;
  const s = [...samples].sort((a, b) => a - b);
  const pct = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  const total = s.reduce((a, b) => a + b, 0);
  return { n: s.length, p50_ms: pct(50), p95_ms: pct(95), p99_ms: pct(99), mean_ms: total / s.length, max_ms: s[s.length - 1], qps: s.length / (total / 1000) };
}

export function median(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return null;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
