// The adversarial run's parameters (command-line flags), the fixed sizes
// its shapes use, and small helpers shared by its modules.

export const argv = process.argv.slice(2);
export const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
export const QUICK = argv.includes('--quick');
export const DOCS = Number(arg('docs', 20000));
export const TIMEOUT_MS = Number(arg('timeout', QUICK ? 10 : 60)) * 1000;
export const BUDGET_MS = Number(arg('budget', QUICK ? 75 : 420)) * 1000;
export const DATA = process.env.MEMDEX_DATA ?? new URL('../../../shared/data', import.meta.url).pathname;
export const NS = 'team-a:big';
export const MiB = 2 ** 20;
export const MAX_BODY = 1 << 20; // MEMDEX_LIMITS.maxBodyBytes default (worker/src/config.js)
export const MAX_RESULTS = 10_000; // largest offset + limit (src/query/search.rs MAX_RESULTS)
export const PROBE_EVERY_MS = 20;
export const PROBE_MAX_IN_FLIGHT = 250;
// Batch sizes: full runs use the sizes the goals are stated for, quick ones smaller.
export const SIZES = QUICK
  ? { mcpBatch: 100, ghostBatches: 2, ghostPerBatch: 2000, invalidKeys: 500, ghostStats: 50, createNs: 105 }
  : { mcpBatch: 300, ghostBatches: 6, ghostPerBatch: 4500, invalidKeys: 1500, ghostStats: 50, createNs: 105 };

// Deterministic choices (mulberry32), so runs are comparable.
let seed = 0xadd5;
export const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
export const pick = (a) => a[Math.floor(random() * a.length)];

export const pct = (a, q) => (a.length ? [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))] : null);
export const r1 = (x) => (x === null || x === undefined ? null : +x.toFixed(1));
export const mib = (b) => (b === null || b === undefined ? null : +(b / MiB).toFixed(1));
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
