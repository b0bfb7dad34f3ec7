// Tests the relevance metrics and latency stats (node --test bench/js/metrics.test.mjs)
// against values computed by hand with the pytrec_eval conventions documented in metrics.mjs.
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readQrels, evaluate, latencyStats, median } from './metrics.mjs';

function qrels(text) {
  const f = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'qrels-')), 'q.tsv');
  fs.writeFileSync(f, `query-id\tcorpus-id\tscore\n${text}`);
  return readQrels(f);
}

test('nDCG@10 uses linear gain and ideal ordering from qrels', () => {
  const q = qrels('1\ta\t3\n1\tb\t1\n');
  // ranked b, x, a: DCG = 1/log2(2) + 0 + 3/log2(4) = 1 + 1.5; IDCG = 3 + 1/log2(3)
  const r = evaluate({ 1: ['b', 'x', 'a'] }, q);
  assert.ok(Math.abs(r.ndcg_at_10 - 2.5 / (3 + 1 / Math.log2(3))) < 1e-12);
  // AP = (1/1 + 2/3) / 2 ; recall = 1
  assert.ok(Math.abs(r.map_at_100 - (1 + 2 / 3) / 2) < 1e-12);
  assert.equal(r.recall_at_100, 1);
});

test('queries without results score 0; zero-grade judgments are not relevant', () => {
  const q = qrels('1\ta\t1\n2\tb\t1\n2\tc\t0\n');
  const r = evaluate({ 1: ['a'] }, q);
  assert.equal(r.queries_evaluated, 2);
  assert.equal(r.ndcg_at_10, 0.5);
  assert.equal(r.recall_at_100, 0.5);
});

test('latency stats: nearest-rank percentiles and QPS', () => {
  const s = latencyStats([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  assert.equal(s.p50_ms, 5);
  assert.equal(s.p95_ms, 10);
  assert.equal(s.qps, 10 / 0.055);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 2, 3]), 2.5);
});
