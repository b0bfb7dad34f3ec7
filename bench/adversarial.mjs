// Measures how the memdex Worker (workerd, `make worker`) holds up against hostile requests: 40+ adversarial shapes (options at their documented maxima, huge highlight tags, expand, JSON-RPC batches, thousands of namespaces, invalid keys, oversized and deeply nested bodies, odd documents) sent to a 20k-document namespace on loopback while a probe times GET /health every 20 ms; per shape the HTTP statuses, request wall time and response bytes, overall the worst request time, /health p50/p99/max, 5xx count and isolate memory (wasm memory, workerd RSS), against the service's goals (below).
//
//   node bench/adversarial.mjs            (full: ~1-2 min today, bounded by --budget; per-request timeout 60 s)
//   node bench/adversarial.mjs --quick    (~1 min: timeout 10 s, smaller batches, same 20k documents)
//   options: --docs N  --timeout S (per request)  --budget S (all shapes together)  --out FILE
//
// It starts `make worker` itself (tests/worker/support/helpers.mjs, as
// bench/worker-load.mjs does) on a free loopback port with a temporary state
// folder and its own keys: admin (loading, diagnostics), write and read keys
// on `team-a:*`, and a read key limited to 5 requests a minute (the rate
// limit shapes). The namespace `team-a:big` gets --docs documents of
// ../shared/data/packages (title, text, kind, timestamp, plus three links
// each to other documents so `expand` has a graph), through the REST write
// API in batches of 1,000.
//
// Bounds: every request has a client-side timeout (recorded as a timeout);
// a request that times out, or a shape after which the namespace answers
// 5xx or nothing, restarts workerd (the state folder is kept), since
// today's engine cannot be interrupted and a trapped engine is never
// discarded; the shapes together stop after --budget seconds (the rest are
// listed as not run). Every batch is a fixed size.
//
// Output: a markdown table (one row per shape) and a summary with PASS/FAIL
// per goal (no request over 1 s, /health p99 < 100 ms, 0 5xx, isolate
// memory < 128 MiB), and JSON in bench/results/adversarial-<date>.json.
// Exit status 0 whatever the goals say (it is a measurement); 1 only when
// the harness itself failed (the Worker did not start, loading failed).
import { createReadStream, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { cpus, totalmem } from 'node:os';
import { freePort, makeKeys, startMakeWorker, tempDir } from '../tests/worker/support/helpers.mjs';

const argv = process.argv.slice(2);
const arg = (name, fallback) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : fallback;
};
const QUICK = argv.includes('--quick');
const DOCS = Number(arg('docs', 20000));
const TIMEOUT_MS = Number(arg('timeout', QUICK ? 10 : 60)) * 1000;
const BUDGET_MS = Number(arg('budget', QUICK ? 75 : 420)) * 1000;
const DATA = process.env.MEMDEX_DATA ?? new URL('../../shared/data', import.meta.url).pathname;
const NS = 'team-a:big';
const MiB = 2 ** 20;
const MAX_BODY = 1 << 20; // MEMDEX_LIMITS.maxBodyBytes default (worker/src/config.js)
const MAX_RESULTS = 10_000; // largest offset + limit (src/query/search.rs MAX_RESULTS)
const PROBE_EVERY_MS = 20;
const PROBE_MAX_IN_FLIGHT = 250;
// Batch sizes: full runs use the sizes the goals are stated for, quick ones smaller.
const SIZES = QUICK
  ? { mcpBatch: 100, ghostBatches: 2, ghostPerBatch: 2000, invalidKeys: 500, ghostStats: 50, createNs: 105 }
  : { mcpBatch: 300, ghostBatches: 6, ghostPerBatch: 4500, invalidKeys: 1500, ghostStats: 50, createNs: 105 };

// Deterministic choices (mulberry32), so runs are comparable.
let seed = 0xadd5;
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const pick = (a) => a[Math.floor(random() * a.length)];

const pct = (a, q) => (a.length ? [...a].sort((x, y) => x - y)[Math.min(a.length - 1, Math.floor(q * a.length))] : null);
const r1 = (x) => (x === null || x === undefined ? null : +x.toFixed(1));
const mib = (b) => (b === null || b === undefined ? null : +(b / MiB).toFixed(1));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function corpus(n) {
  const docs = [];
  const rl = createInterface({ input: createReadStream(`${DATA}/packages/corpus.jsonl.gz`).pipe(createGunzip()) });
  for await (const line of rl) {
    const d = JSON.parse(line);
    docs.push({ id: d._id, title: d.title, text: d.text, kind: d.kind, timestamp: d.timestamp });
    if (docs.length >= n) break;
  }
  rl.close();
  for (const d of docs) {
    d.links = Array.from({ length: 3 }, (_, i) => ({ type: i === 0 ? 'DEPENDS_ON' : 'RELATES_TO', to: pick(docs).id }));
  }
  return docs;
}

// ---------------------------------------------------------------------------
// The Worker and its process

const W = { server: null, base: null, port: 0, state: null, secret: null, restarts: [], restarting: false };

async function startWorker() {
  W.port = await freePort();
  W.server = await startMakeWorker({ port: W.port, state: W.state, secret: W.secret });
  W.base = W.server.base;
}

async function restartWorker(reason) {
  W.restarting = true;
  const t = performance.now();
  const output = W.server.output().slice(-2000);
  await W.server.stop('SIGKILL');
  await startWorker();
  W.restarting = false;
  W.restarts.push({ reason, ms: Math.round(performance.now() - t), workerdOutput: output });
  console.error(`  restarted workerd (${reason})`);
}

/** PIDs of this process's descendants named workerd. */
function workerdPids() {
  const parent = new Map();
  const names = new Map();
  for (const p of readdirSync('/proc')) {
    if (!/^\d+$/.test(p)) continue;
    try {
      const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(+p, stat.slice(stat.indexOf('(') + 1, close));
      parent.set(+p, +stat.slice(close + 2).split(' ')[1]);
    } catch {
      // gone
    }
  }
  const mine = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 50; p = parent.get(p), n++) if (parent.get(p) === process.pid) return true;
    return false;
  };
  return [...names].filter(([pid, name]) => name === 'workerd' && mine(pid)).map(([pid]) => pid);
}

function rssOf(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? 0) * 1024;
    return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

const mem = { rssMax: 0, hwmMax: 0, wasmMax: 0, samples: 0 };
let rssTimer = null;
function sampleRss() {
  for (const pid of workerdPids()) {
    const { rss, hwm } = rssOf(pid);
    mem.rssMax = Math.max(mem.rssMax, rss);
    mem.hwmMax = Math.max(mem.hwmMax, hwm);
  }
  mem.samples++;
}

function countFiles(dir) {
  let n = 0;
  try {
    for (const e of readdirSync(dir)) {
      const p = `${dir}/${e}`;
      n += statSync(p).isDirectory() ? countFiles(p) : 1;
    }
  } catch {
    // absent
  }
  return n;
}

// ---------------------------------------------------------------------------
// Requests

let keys = {};

/**
 * One request, bounded by the client-side timeout. Resolves to
 * { status, ms, bytes, body, timedOut, error }; status 0 when no answer.
 */
async function req(method, path, { key = keys.reader, json, body, headers = {}, timeoutMs = TIMEOUT_MS } = {}) {
  const h = { ...headers };
  if (key) h.authorization = `Bearer ${key}`;
  if (json !== undefined) {
    body = JSON.stringify(json);
    h['content-type'] ??= 'application/json';
  }
  const t = performance.now();
  try {
    const res = await fetch(new URL(path, W.base), { method, headers: h, body, signal: AbortSignal.timeout(timeoutMs) });
    const buf = Buffer.from(await res.arrayBuffer());
    const ms = performance.now() - t;
    let parsed = null;
    if ((res.headers.get('content-type') ?? '').includes('json') && buf.length && buf.length < 64 * MiB) {
      try {
        parsed = JSON.parse(buf.toString('utf8'));
      } catch {
        parsed = null;
      }
    }
    return { status: res.status, ms, bytes: buf.length, body: parsed, headers: res.headers, timedOut: false };
  } catch (err) {
    const ms = performance.now() - t;
    const timedOut = err?.name === 'TimeoutError' || err?.name === 'AbortError';
    return { status: 0, ms, bytes: 0, body: null, timedOut, error: String(err?.cause?.code ?? err?.message ?? err) };
  }
}

const search = (options, extra = {}) => req('POST', `/v1/ns/${NS}/search`, { json: options, ...extra });

let rpcId = 0;
const toolCall = (name, args) => ({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });
const mcp = (messages, extra = {}) => req('POST', '/mcp', { json: messages, headers: { accept: 'application/json, text/event-stream' }, ...extra });

/** Runs `count` requests made by `make(i)` with `concurrency` in flight. */
async function many(count, concurrency, make) {
  const out = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

// ---------------------------------------------------------------------------
// The /health probe: open loop, one request every 20 ms whatever the others
// do (so a blocked isolate shows as many slow probes, not one), at most 250
// in flight (ticks skipped beyond that are counted).

const probe = { lat: [], errors: 0, censored: 0, skipped: 0, inFlight: 0, timer: null, window: null };

function startProbe() {
  probe.timer = setInterval(() => {
    if (W.restarting) return;
    if (probe.inFlight >= PROBE_MAX_IN_FLIGHT) {
      probe.skipped++;
      return;
    }
    probe.inFlight++;
    const t = performance.now();
    fetch(new URL('/health', W.base), { signal: AbortSignal.timeout(TIMEOUT_MS) })
      .then(async (res) => {
        await res.arrayBuffer();
        const ms = performance.now() - t;
        probe.lat.push(ms);
        probe.window?.push(ms);
        if (res.status >= 500) probe.errors++;
      })
      .catch(() => {
        // Killed by a restart or timed out: it waited at least this long.
        const ms = performance.now() - t;
        probe.lat.push(ms);
        probe.window?.push(ms);
        probe.censored++;
      })
      .finally(() => probe.inFlight--);
  }, PROBE_EVERY_MS);
}

// ---------------------------------------------------------------------------
// Diagnostics between shapes

async function isolateInfo() {
  const r = await req('GET', '/v1/namespaces', { key: keys.admin, timeoutMs: 10_000 });
  return r.status === 200 ? r.body?.isolate ?? null : null;
}

/** After a shape: is the big namespace still answering? If not, restart workerd. */
async function checkAndHeal(shapeName) {
  const sanity = () => req('POST', `/v1/ns/${NS}/search`, { key: keys.admin, json: { query: 'http client', limit: 1 }, timeoutMs: 15_000 });
  let r = await sanity();
  // A reset on a reused keep-alive connection is not a dead workerd: ask again on a fresh one.
  for (let i = 0; i < 2 && r.status === 0 && !r.timedOut && workerdPids().length > 0; i++) {
    await sleep(500);
    r = await sanity();
  }
  const info = await isolateInfo();
  if (info) mem.wasmMax = Math.max(mem.wasmMax, info.wasmMemoryBytes ?? 0);
  sampleRss();
  const ok = r.status === 200;
  const after = { status: r.status, wasmMiB: mib(info?.wasmMemoryBytes), cachedNamespaces: info?.namespaces?.length ?? null };
  if (!ok) {
    await restartWorker(`after "${shapeName}": sanity search answered ${r.status || r.error}`);
  }
  return { ...after, healthyAfter: ok };
}

// ---------------------------------------------------------------------------
// The shapes

// The most frequent words of the first 20k package descriptions (after
// stopwords): in OR mode they match most documents, so offsets up to the
// maximum have candidates.
const BROAD = 'python library package api data tool simple sdk client server plugin cli framework module wrapper code files';
const words = ['http', 'client', 'library', 'python', 'server', 'data', 'parser', 'json', 'api', 'tool', 'test', 'async', 'simple', 'fast', 'web', 'plugin', 'framework', 'database', 'cli', 'logging'];
const longQuery = (bytes, gen) => {
  let q = '';
  for (let i = 0; ; i++) {
    const next = (q ? ' ' : '') + gen(i);
    if (Buffer.byteLength(q + next) > bytes) return q;
    q += next;
  }
};
const ALNUM = 'abcdefghijklmnopqrstuvwxyz0123456789';
const nested = (depth, leaf) => '['.repeat(depth) + leaf + ']'.repeat(depth);
/** A JSON body of exactly maxBodyBytes + 1 bytes: `head` + x... + `tail`. */
const overBody = (head, tail) => head + 'x'.repeat(MAX_BODY + 1 - Buffer.byteLength(head + tail)) + tail;

/**
 * Each shape: name, what it sends, and run() returning its responses
 * (or { responses, note }). Order: cheap first, the ones known to hang or
 * trap today's engine last, so a restart costs the least.
 */
const shapes = [
  // --- search options at and past their documented maxima
  { name: 'search plain, limit 100 offset 9900 (max offset+limit)', run: () => search({ query: BROAD, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'search offset+limit 10001 (over the max)', run: () => search({ query: 'http client', limit: 100, offset: MAX_RESULTS - 99 }) },
  { name: 'explain on every hit, limit 100, 8 terms', run: () => search({ query: words.slice(0, 8).join(' '), explain: true, limit: 100 }) },
  { name: 'explain + fuzzy auto + prefix, limit 100 offset 900', run: () => search({ query: words.slice(0, 12).join(' '), explain: true, fuzzy: 'auto', prefix: true, limit: 100, offset: 900 }) },
  { name: '1,024 one-letter prefixes (3 KB, over maxQueryBytes)', run: () => search({ query: Array.from({ length: 1024 }, (_, i) => `${ALNUM[i % 36]}*`).join(' '), limit: 100 }) },
  { name: 'one-letter prefixes filling 1 KB (341 terms)', run: () => search({ query: longQuery(1024, (i) => `${ALNUM[i % 36]}*`), limit: 100 }) },
  { name: '"ab~2" repeated to 1 KB', run: () => search({ query: longQuery(1024, () => 'ab~2'), limit: 100 }) },
  { name: 'fuzzy auto on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[i % words.length] + 'x'), fuzzy: 'auto', limit: 100 }) },
  { name: 'fuzzy 2 + prefix on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[(i * 7) % words.length]), fuzzy: 2, prefix: true, limit: 100 }) },
  { name: 'proximity depth 1000 on a 1 KB query', run: () => search({ query: longQuery(1024, (i) => words[i % words.length]), proximity: { depth: 1000 }, limit: 100, offset: 400 }) },
  { name: 'mode and + fuzzy 2 on 150 terms', run: () => search({ query: longQuery(1024, (i) => words[i % words.length]), mode: 'and', fuzzy: 2, limit: 100 }) },
  { name: 'sort timestamp desc, offset 9900 limit 100', run: () => search({ query: BROAD, sort: { field: 'timestamp', order: 'desc' }, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'blank query + sort + filter, offset 9900', run: () => search({ query: '', filter: { kind: ['pypi', 'npm'] }, sort: { field: 'timestamp', order: 'asc' }, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'huge filter list (kind in 10k values)', run: () => search({ query: 'http', filter: { kind: Array.from({ length: 10_000 }, (_, i) => `kind-${i}`) }, limit: 100 }) },
  { name: 'huge namespace filter (10k values)', run: () => search({ query: 'http', filter: { namespace: Array.from({ length: 10_000 }, (_, i) => `team-b:${i}`) }, limit: 100 }) },
  { name: 'filter naming another namespace (tenancy)', run: () => search({ query: 'http', filter: { namespace: 'team-b:secret' }, limit: 10 }) },
  { name: 'long field names (60 KB) in fields and sort', run: async () => [await search({ query: 'http', fields: { ['f'.repeat(60_000)]: 1 } }), await search({ query: 'http', sort: { field: 'g'.repeat(60_000) } })] },
  { name: '10k-element arrays (storedFields, fields)', run: async () => [await search({ query: 'http', storedFields: Array.from({ length: 10_000 }, (_, i) => `f${i}`) }), await search({ query: 'http', fields: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, 1])) })] },
  {
    name: 'unicode junk queries (6 kinds)',
    run: () =>
      Promise.all(
        [
          longQuery(1024, () => 'a\u0301\u0302\u0303\u0304'), // stacked combining marks
          '\ud800\udc00\ud800 lone \udfff surrogates \ud83d',
          longQuery(1024, () => '\u202e\u200b\u200d\ufeff'), // bidi override, zero-width
          longQuery(1024, () => '\u{1F600}\u{1F469}\u200d\u{1F4BB}'), // emoji, ZWJ sequences
          'nul\u0000byte \u0007bell \u001f unit-sep',
          longQuery(1024, (i) => String.fromCodePoint(0x4e00 + ((i * 37) % 20000))), // CJK without spaces
        ].map((query) => search({ query, fuzzy: 'auto', prefix: true, highlight: true, limit: 100 })),
      ),
  },
  { name: 'deeply nested JSON body (100k levels)', run: () => req('POST', `/v1/ns/${NS}/search`, { body: `{"query":"http","filter":{"kind":${nested(100_000, '"x"')}}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'oversized search body (maxBodyBytes + 1)', run: () => req('POST', `/v1/ns/${NS}/search`, { body: overBody('{"query":"http","pad":"', '"}'), headers: { 'content-type': 'application/json' } }) },
  { name: 'GET search with a ~70 KB URL (6k-value filter)', run: () => req('GET', `/v1/ns/${NS}/search?q=http&filter=${encodeURIComponent(JSON.stringify({ kind: Array.from({ length: 6000 }, (_, i) => `k${i}`) }))}`) },
  { name: 'suggest prefix "a", limit 100', run: () => req('GET', `/v1/ns/${NS}/suggest?prefix=a&limit=100`) },
  { name: 'strategy auto, relation question, limit 100', run: () => search({ query: 'what depends on http client library', strategy: 'auto', limit: 100 }) },
  {
    name: 'hybrid with a vector (skipped: no vector field)',
    skipped: "the Worker's namespaces use the default schema, which has no vector field (writes cannot add one); sent anyway, expected 4xx",
    run: () => search({ query: 'http client', vector: Array.from({ length: 384 }, () => random() - 0.5), hybrid: { method: 'rrf', candidates: MAX_RESULTS }, limit: 100 }),
  },
  { name: 'highlight tags 1 KB, limit 100', run: () => search({ query: BROAD, highlight: { preTag: '<'.padEnd(1024, 'p'), postTag: '>'.padEnd(1024, 'q') }, limit: 100 }) },
  { name: 'highlight tags 64 KB, limit 100', run: () => search({ query: BROAD, highlight: { preTag: 'p'.repeat(64 << 10), postTag: 'q'.repeat(64 << 10) }, limit: 100 }) },
  { name: 'expand hops 3 both, limit 100', run: () => search({ query: 'http client', expand: { hops: 3, direction: 'both' }, limit: 100 }) },

  // --- keys, rate limits, namespaces
  {
    name: 'rate limit: 6 REST calls, key of 5/min',
    run: async () => {
      const out = [];
      for (let i = 0; i < 6; i++) out.push(await search({ query: 'http', limit: 1 }, { key: keys.slow }));
      return { responses: out, note: `6th: ${out[5].status}` };
    },
  },
  {
    name: `MCP batch: ${SIZES.mcpBatch} memory_search + expand 3 both (key of 5/min)`,
    run: async () => {
      const r = await mcp(
        Array.from({ length: SIZES.mcpBatch }, (_, i) => toolCall('memory_search', { namespace: NS, query: `${words[i % words.length]} ${words[(i + 3) % words.length]}`, limit: 50, maxChars: 20000, expand: { hops: 3, direction: 'both' } })),
        { key: keys.slowBatch },
      );
      const answered = Array.isArray(r.body) ? r.body.filter((m) => m.result && !m.result.isError).length : 0;
      return { responses: [r], note: `${answered}/${SIZES.mcpBatch} tool calls answered on one token` };
    },
  },
  {
    name: `MCP batches: ${SIZES.ghostBatches} x ${SIZES.ghostPerBatch} nonexistent namespaces (key of 10/min)`,
    run: async () => {
      const before = await isolateInfo();
      const out = [];
      for (let b = 0; b < SIZES.ghostBatches; b++) {
        out.push(await mcp(Array.from({ length: SIZES.ghostPerBatch }, (_, i) => toolCall('memory_search', { namespace: `team-a:ghost-${b}-${i}`, query: 'x' })), { key: keys.slowGhost }));
      }
      const after = await isolateInfo();
      return { responses: out, note: `cached namespaces ${before?.namespaces?.length ?? '?'} -> ${after?.namespaces?.length ?? '?'}, wasm ${mib(after?.wasmMemoryBytes)} MiB` };
    },
  },
  {
    name: 'MCP: deeply nested arguments; body of maxBodyBytes + 1',
    run: async () => [
      await req('POST', '/mcp', { body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"namespace":"${NS}","query":"x","tags":${nested(100_000, '"t"')}}}}`, headers: { 'content-type': 'application/json' } }),
      await req('POST', '/mcp', { body: overBody(`[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_search","arguments":{"namespace":"${NS}","query":"`, '"}}}]'), headers: { 'content-type': 'application/json' } }),
    ],
  },
  {
    name: `${SIZES.invalidKeys} invalid-key requests`,
    run: async () => {
      const out = await many(SIZES.invalidKeys, 25, (i) => req('GET', `/v1/ns/${NS}/search?q=http`, { key: `mdx_invalid${i}`.padEnd(47, 'x') }));
      return { responses: out, note: `${out.filter((r) => r.status === 429).length} answered 429` };
    },
  },
  {
    name: `stats?minGeneration=1 on ${SIZES.ghostStats} nonexistent namespaces`,
    run: async () => {
      const before = countFiles(`${W.state}/do`);
      const out = await many(SIZES.ghostStats, 10, (i) => req('GET', `/v1/ns/team-a:phantom-${i}-${Math.floor(random() * 1e9)}/stats?minGeneration=1`));
      await sleep(500);
      const after = countFiles(`${W.state}/do`);
      return { responses: out, note: `Durable Object storage files ${before} -> ${after}` };
    },
  },
  {
    name: `one write key creates ${SIZES.createNs} namespaces (maxNamespacesPerKey 100)`,
    run: async () => {
      const out = await many(SIZES.createNs, 10, (i) => req('PUT', `/v1/ns/team-a:many-${i}/docs/d`, { key: keys.creator, json: { text: `namespace ${i}` } }));
      return { responses: out, note: `${out.filter((r) => r.status === 200).length} created` };
    },
  },

  // --- writes
  { name: 'oversized write body (maxBodyBytes + 1)', run: () => req('POST', `/v1/ns/team-a:writes/docs`, { key: keys.writer, body: overBody('[{"id":"big","text":"', '"}]'), headers: { 'content-type': 'application/json' } }) },
  { name: 'deeply nested document (100k levels)', run: () => req('PUT', `/v1/ns/team-a:writes/docs/nested`, { key: keys.writer, body: `{"text":"x","tags":${nested(100_000, '"t"')}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'document nested 200 levels in a field', run: () => req('PUT', `/v1/ns/team-a:writes/docs/nested200`, { key: keys.writer, body: `{"text":"x","extra":${nested(200, '1')}}`, headers: { 'content-type': 'application/json' } }) },
  { name: 'document with a 10 KB field name', run: () => req('PUT', `/v1/ns/team-a:writes/docs/longname`, { key: keys.writer, json: { text: 'x', ['n'.repeat(10_000)]: 'v' } }) },
  { name: 'document with 10k tags', run: () => req('PUT', `/v1/ns/team-a:writes/docs/tags`, { key: keys.writer, json: { text: 'many tags', tags: Array.from({ length: 10_000 }, (_, i) => `t${i % 1000}`) } }) },
  { name: 'document with 1,025 links', run: () => req('PUT', `/v1/ns/team-a:writes/docs/links`, { key: keys.writer, json: { text: 'many links', links: Array.from({ length: 1025 }, (_, i) => ({ type: 'RELATES_TO', to: `d${i}` })) } }) },
  { name: 'document: one 64 KB token', run: () => req('PUT', `/v1/ns/team-a:writes/docs/token`, { key: keys.writer, json: { text: 'y'.repeat((64 << 10) - 20) } }) },
  {
    name: 'bulk write just under 1 MiB of unique words',
    run: () =>
      req('POST', `/v1/ns/team-a:writes/docs`, {
        key: keys.writer,
        json: Array.from({ length: 15 }, (_, d) => ({ id: `u${d}`, text: Array.from({ length: 6500 }, (_, i) => `w${d}x${i.toString(36)}`).join(' ') })),
      }),
  },
  {
    name: 'document with timestamp 1e20, then reads',
    run: async () => {
      const ns = 'team-a:ts';
      const put = await req('PUT', `/v1/ns/${ns}/docs/far`, { key: keys.writer, json: { text: 'far future', timestamp: 1e20 } });
      await req('PUT', `/v1/ns/${ns}/docs/near`, { key: keys.writer, json: { text: 'near present', timestamp: Date.now() } });
      const g = put.body?.generation ?? 1;
      const s = await req('POST', `/v1/ns/${ns}/search`, { json: { query: 'future', minGeneration: g } });
      const l = await mcp(toolCall('memory_list', { namespace: ns }));
      const gt = await mcp(toolCall('memory_get', { namespace: ns, id: 'far' }));
      const err = (r) => (r.body?.result?.isError ? `error "${String(r.body.result.content?.[0]?.text).slice(0, 80)}"` : r.body?.error ? `rpc-error ${r.body.error.message.slice(0, 80)}` : r.status === 200 ? 'ok' : r.status);
      return { responses: [put, s, l, gt], note: `PUT ${put.status}; search ${s.status}${s.body?.error ? ` ${s.body.error.code} "${s.body.error.message.slice(0, 60)}"` : ''}; memory_list ${err(l)}; memory_get ${err(gt)}` };
    },
  },
  {
    name: 'delete with a filter naming another namespace',
    run: async () => {
      const ns = 'team-a:victim';
      const w = await req('POST', `/v1/ns/${ns}/docs`, { key: keys.writer, json: [1, 2, 3].map((i) => ({ id: `v${i}`, text: `victim ${i}` })) });
      const del = await req('POST', `/v1/ns/${ns}/delete`, { key: keys.writer, json: { filter: { namespace: 'team-a:other' } } });
      const st = await req('GET', `/v1/ns/${ns}/stats?minGeneration=${del.body?.generation ?? w.body?.generation ?? 0}`);
      return { responses: [w, del, st], note: `removed ${del.body?.removed ?? '?'} of 3; ${st.body?.documents ?? '?'} left` };
    },
  },

  // --- the expensive ones (today: tens of seconds, or a wasm trap)
  { name: 'all options at once: diversity+dedupe+expand 3+explain+highlight+proximity+fuzzy, offset 900', run: () => search({ query: 'python library client tool', diversity: 0.5, dedupe: true, expand: { hops: 3, direction: 'both' }, explain: true, highlight: true, proximity: true, fuzzy: 'auto', prefix: true, limit: 100, offset: 900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 2900 ("alpha beta gamma", the issue\'s)', run: () => search({ query: 'alpha beta gamma', diversity: 0.5, dedupe: true, limit: 100, offset: 2900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 2900, broad query', run: () => search({ query: BROAD, diversity: 0.5, dedupe: true, limit: 100, offset: 2900 }) },
  { name: 'diversity 0.5 + dedupe, limit 100 offset 9900 (max), broad query', run: () => search({ query: BROAD, diversity: 0.5, dedupe: true, limit: 100, offset: MAX_RESULTS - 100 }) },
  { name: 'highlight tags 600 KB (under maxBodyBytes)', run: () => search({ query: BROAD, highlight: { preTag: 'p'.repeat(300 << 10), postTag: 'q'.repeat(300 << 10) }, limit: 100 }) },
];

// ---------------------------------------------------------------------------

function summarize(name, responses, note, extra) {
  const rs = Array.isArray(responses) ? responses : [responses];
  const statuses = {};
  for (const r of rs) {
    const k = r.timedOut ? 'timeout' : r.status === 0 ? 'no-answer' : String(r.status);
    statuses[k] = (statuses[k] ?? 0) + 1;
  }
  const codes = [...new Set(rs.map((r) => r.body?.error?.code).filter(Boolean))];
  const hits = rs.map((r) => r.body?.hits?.length).filter((n) => n !== undefined);
  const totals = rs.map((r) => r.body?.total).filter((n) => typeof n === 'number');
  const limited = rs.map((r) => r.body?.limited).filter(Boolean);
  return {
    shape: name,
    requests: rs.length,
    statuses,
    maxMs: r1(Math.max(...rs.map((r) => r.ms))),
    totalMs: r1(rs.reduce((a, r) => a + r.ms, 0)),
    maxBytes: Math.max(...rs.map((r) => r.bytes)),
    totalBytes: rs.reduce((a, r) => a + r.bytes, 0),
    errorCodes: codes,
    hits: hits.length ? Math.max(...hits) : null,
    total: totals.length ? Math.max(...totals) : null,
    limited: limited.length ? limited[0] : null,
    timeouts: rs.filter((r) => r.timedOut).length,
    fivexx: rs.filter((r) => r.status >= 500).length,
    transportErrors: [...new Set(rs.filter((r) => r.status === 0 && !r.timedOut).map((r) => r.error))],
    note: note ?? null,
    ...extra,
  };
}

const fmtBytes = (b) => (b >= MiB ? `${(b / MiB).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);
const fmtStatuses = (s) =>
  Object.entries(s)
    .map(([k, v]) => (v === 1 ? k : `${k}×${v}`))
    .join(' ');

async function main() {
  const started = Date.now();
  const made = await makeKeys({
    admin: { namespaces: ['*'], role: 'admin', requestsPerMinute: 10_000_000 },
    writer: { namespaces: ['team-a:*'], role: 'write', requestsPerMinute: 10_000_000 },
    reader: { namespaces: ['team-a:*'], role: 'read', requestsPerMinute: 10_000_000 },
    slow: { namespaces: ['team-a:*'], role: 'read', requestsPerMinute: 5 },
    slowBatch: { namespaces: ['team-a:*'], role: 'read', requestsPerMinute: 5 },
    slowGhost: { namespaces: ['team-a:*'], role: 'read', requestsPerMinute: 10 },
    creator: { namespaces: ['team-a:*'], role: 'write', requestsPerMinute: 10_000_000 },
  });
  keys = made.keys;
  W.secret = made.secret;
  W.state = tempDir('adversarial');
  await startWorker();
  rssTimer = setInterval(sampleRss, 200);

  const out = { shapes: [], restarts: W.restarts };
  try {
    // Load.
    let t = performance.now();
    const docs = await corpus(DOCS);
    let generation = 0;
    for (let i = 0; i < docs.length; i += 1000) {
      const r = await req('POST', `/v1/ns/${NS}/docs`, { key: keys.writer, json: docs.slice(i, i + 1000), timeoutMs: 120_000 });
      if (r.status !== 200) throw new Error(`loading failed at ${i}: ${r.status} ${JSON.stringify(r.body ?? r.error).slice(0, 300)}`);
      generation = r.body.generation;
    }
    const warm = await req('GET', `/v1/ns/${NS}/stats?minGeneration=${generation}`, { timeoutMs: 120_000 });
    if (warm.status !== 200 || warm.body?.documents !== DOCS) throw new Error(`namespace not ready: ${warm.status} ${JSON.stringify(warm.body).slice(0, 300)}`);
    // The isolate's read copy follows the writer's commits with a delay
    // (MEMDEX_PUBLISH_MS + MEMDEX_REVALIDATE_MS): wait until plain reads
    // (no minGeneration, as every shape sends them) see the last load.
    for (let tries = 0; ; tries++) {
      const r = await req('POST', `/v1/ns/${NS}/search`, { json: { query: '', limit: 1, filter: { kind: ['pypi', 'npm'] } }, timeoutMs: 30_000 });
      if (r.status === 200 && r.body.generation >= generation && r.body.total === DOCS) break;
      if (tries > 120) throw new Error(`the read copy did not reach generation ${generation}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
      await sleep(250);
    }
    const loadS = (performance.now() - t) / 1000;
    console.error(`loaded ${DOCS} documents into ${NS} in ${loadS.toFixed(1)} s (generation ${generation})`);
    const base = await isolateInfo();
    sampleRss();
    out.baseline = { wasmMiB: mib(base?.wasmMemoryBytes), workerdRssMiB: mib(mem.rssMax) };

    // Baseline /health latency with nothing else going on.
    const idle = [];
    for (let i = 0; i < 50; i++) idle.push((await req('GET', '/health', { key: null })).ms);
    out.baseline.healthIdleP50Ms = r1(pct(idle, 0.5));

    // Attack.
    startProbe();
    const deadline = performance.now() + BUDGET_MS;
    for (const shape of shapes) {
      const left = deadline - performance.now();
      if (left <= 0) {
        out.shapes.push({ shape: shape.name, notRun: 'time budget spent' });
        console.error(`- ${shape.name}: not run (time budget)`);
        continue;
      }
      probe.window = [];
      const t0 = performance.now();
      let res;
      try {
        res = await shape.run();
      } catch (err) {
        res = { responses: [{ status: 0, ms: performance.now() - t0, bytes: 0, error: `harness: ${err?.message ?? err}` }] };
      }
      const { responses, note } = Array.isArray(res) || res.status !== undefined ? { responses: res } : res;
      // A timed-out request is still running in the isolate (wasm cannot be interrupted): start afresh.
      const timedOut = (Array.isArray(responses) ? responses : [responses]).some((r) => r.timedOut);
      if (timedOut) await restartWorker(`"${shape.name}" timed out (the isolate is still busy with it)`);
      const after = await checkAndHeal(shape.name);
      const win = probe.window;
      probe.window = null;
      const row = summarize(shape.name, responses, note, {
        skipped: shape.skipped ?? undefined,
        wallMs: r1(performance.now() - t0),
        healthMaxMs: r1(win.length ? Math.max(...win) : null),
        after,
      });
      out.shapes.push(row);
      console.error(`- ${shape.name}: ${fmtStatuses(row.statuses)} max ${row.maxMs} ms, ${fmtBytes(row.maxBytes)}${row.note ? `; ${row.note}` : ''}${after.healthyAfter ? '' : ' [namespace broken after it: restarted]'}`);
    }
    clearInterval(probe.timer);
    while (probe.inFlight > 0) await sleep(50);
    out.loadSeconds = +loadS.toFixed(1);
  } catch (err) {
    out.harnessError = String(err?.stack ?? err);
  } finally {
    clearInterval(probe.timer);
    clearInterval(rssTimer);
    sampleRss();
    await W.server?.stop();
    rmSync(W.state, { recursive: true, force: true });
  }

  // Summary.
  const run = out.shapes.filter((s) => !s.notRun);
  const worst = run.reduce((a, s) => (s.maxMs > (a?.maxMs ?? -1) ? s : a), null);
  const fivexx = run.reduce((a, s) => a + s.fivexx, 0);
  const summary = {
    shapes: shapes.length,
    shapesRun: run.length,
    requests: run.reduce((a, s) => a + s.requests, 0),
    worstRequestMs: worst?.maxMs ?? null,
    worstShape: worst?.shape ?? null,
    timeouts: run.reduce((a, s) => a + s.timeouts, 0),
    fivexx,
    health: { samples: probe.lat.length, p50Ms: r1(pct(probe.lat, 0.5)), p99Ms: r1(pct(probe.lat, 0.99)), maxMs: r1(probe.lat.length ? Math.max(...probe.lat) : null), cutByRestartOrTimeout: probe.censored, skippedTicks: probe.skipped, fivexx: probe.errors },
    wasmMemoryMaxMiB: mib(mem.wasmMax),
    workerdRssMaxMiB: mib(mem.rssMax),
    workerdHwmMaxMiB: mib(mem.hwmMax),
    // Requests that got no answer at all (connection reset or refused: workerd died under them).
    noAnswer: run.reduce((a, s) => a + (s.statuses['no-answer'] ?? 0), 0),
    namespaceBrokenAfter: run.filter((s) => s.after && !s.after.healthyAfter).map((s) => s.shape),
    restarts: W.restarts.length,
    workerdCrashes: W.restarts.filter((r) => /fatal|Received signal/.test(r.workerdOutput)).map((r) => `${r.reason}: ${/fatal[^\n]*/.exec(r.workerdOutput)?.[0] ?? 'signal'}`),
  };
  const goals = [
    { goal: 'no request over 1 s (wall time, loopback)', pass: (summary.worstRequestMs ?? Infinity) <= 1000 && summary.timeouts === 0, value: `${summary.worstRequestMs} ms (${summary.worstShape}); ${summary.timeouts} timeouts` },
    { goal: '/health p99 < 100 ms during the attack', pass: (summary.health.p99Ms ?? Infinity) < 100, value: `${summary.health.p99Ms} ms` },
    {
      goal: '0 5xx (and no request left without an answer)',
      pass: fivexx === 0 && summary.health.fivexx === 0 && summary.noAnswer === 0,
      value: `${fivexx} 5xx (+${summary.health.fivexx} on /health); ${summary.noAnswer} without an answer; workerd crashed ${summary.workerdCrashes.length} times`,
    },
    { goal: 'isolate memory < 128 MiB', pass: mem.wasmMax > 0 && mem.wasmMax < 128 * MiB, value: `wasm ${summary.wasmMemoryMaxMiB} MiB max; workerd RSS ${summary.workerdRssMaxMiB} MiB max (all isolates + runtime)` },
  ];
  const result = {
    date: new Date().toISOString(),
    command: `node bench/adversarial.mjs ${argv.join(' ')}`.trim(),
    mode: QUICK ? 'quick' : 'full',
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, memoryGiB: +(totalmem() / 2 ** 30).toFixed(1) },
    params: { documents: DOCS, namespace: NS, timeoutS: TIMEOUT_MS / 1000, budgetS: BUDGET_MS / 1000, probeEveryMs: PROBE_EVERY_MS, sizes: SIZES },
    seconds: Math.round((Date.now() - started) / 1000),
    ...out,
    summary,
    goals,
  };

  // Markdown.
  const lines = [];
  lines.push(`### Adversarial run (${result.mode}, ${DOCS} documents, ${result.date.slice(0, 16)}Z)`, '');
  lines.push('| # | shape | req | statuses | max ms | max bytes | /health max ms | note |', '|---|---|---|---|---|---|---|---|');
  out.shapes.forEach((s, i) => {
    if (s.notRun) return lines.push(`| ${i + 1} | ${s.shape} | – | not run | – | – | – | ${s.notRun} |`);
    const notes = [s.note, s.errorCodes.length ? s.errorCodes.join(',') : null, s.hits !== null ? `${s.hits} hits${s.total !== null ? ` (total ${s.total})` : ''}` : null, s.limited ? `limited: ${JSON.stringify(s.limited).slice(0, 60)}` : null, s.transportErrors.length ? s.transportErrors.join(',') : null, s.skipped ? `skipped: ${s.skipped}` : null, s.after.healthyAfter ? null : `**namespace answered ${s.after.status} after; restarted**`]
      .filter(Boolean)
      .join('; ');
    lines.push(`| ${i + 1} | ${s.shape} | ${s.requests} | ${fmtStatuses(s.statuses)} | ${s.maxMs} | ${fmtBytes(s.maxBytes)} | ${s.healthMaxMs ?? '–'} | ${notes.replace(/\|/g, '\\|')} |`);
  });
  lines.push('');
  lines.push(`- requests: ${summary.requests} in ${summary.shapesRun}/${summary.shapes} shapes; worst request ${summary.worstRequestMs} ms (${summary.worstShape}); timeouts (${TIMEOUT_MS / 1000} s): ${summary.timeouts}; 5xx: ${fivexx}`);
  lines.push(`- /health during the attack: ${summary.health.samples} probes, p50 ${summary.health.p50Ms} ms, p99 ${summary.health.p99Ms} ms, max ${summary.health.maxMs} ms (${summary.health.cutByRestartOrTimeout} cut by a restart or timeout, ${summary.health.skippedTicks} ticks skipped at ${PROBE_MAX_IN_FLIGHT} in flight); idle p50 ${out.baseline?.healthIdleP50Ms} ms`);
  lines.push(`- memory: wasm ${summary.wasmMemoryMaxMiB} MiB max (after loading: ${out.baseline?.wasmMiB}); workerd RSS ${summary.workerdRssMaxMiB} MiB max`);
  lines.push(`- workerd restarts: ${W.restarts.length}${W.restarts.length ? ` (${W.restarts.map((r) => r.reason).join('; ')})` : ''}`);
  for (const c of summary.workerdCrashes) lines.push(`- workerd crashed: ${c}`);
  if (out.harnessError) lines.push(`- HARNESS ERROR: ${out.harnessError}`);
  lines.push('');
  for (const g of goals) lines.push(`${g.pass ? 'PASS' : 'FAIL'}  ${g.goal}: ${g.value}`);
  console.log(lines.join('\n'));

  const dir = new URL('results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const file = arg('out', `${dir}adversarial-${result.date.replace(/[:.]/g, '-').slice(0, 19)}${QUICK ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.error(`wrote ${file}`);
  if (out.harnessError) process.exitCode = 1;
}

await main();
