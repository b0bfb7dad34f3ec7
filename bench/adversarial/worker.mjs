// The Worker under test: its workerd process (start, restart, memory
// sampled from /proc), requests to it with a client-side timeout, the
// /health probe, and the health check that runs after every shape.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { freePort, startMakeWorker } from '../../tests/worker/support/helpers.mjs';
import { MiB, NS, PROBE_EVERY_MS, PROBE_MAX_IN_FLIGHT, TIMEOUT_MS, mib, sleep } from './config.mjs';

export const W = { server: null, base: null, port: 0, state: null, secret: null, restarts: [], restarting: false };

export async function startWorker() {
  W.port = await freePort();
  W.server = await startMakeWorker({ port: W.port, state: W.state, secret: W.secret });
  W.base = W.server.base;
}

export async function restartWorker(reason) {
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

export const mem = { rssMax: 0, hwmMax: 0, wasmMax: 0, samples: 0 };

export function sampleRss() {
  for (const pid of workerdPids()) {
    const { rss, hwm } = rssOf(pid);
    mem.rssMax = Math.max(mem.rssMax, rss);
    mem.hwmMax = Math.max(mem.hwmMax, hwm);
  }
  mem.samples++;
}

export function countFiles(dir) {
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

/** The run's API keys by name (admin, writer, reader, ...), filled in by the entry point. */
export const keys = {};

/**
 * One request, bounded by the client-side timeout. Resolves to
 * { status, ms, bytes, body, timedOut, error }; status 0 when no answer.
 */
export async function req(method, path, { key = keys.reader, json, body, headers = {}, timeoutMs = TIMEOUT_MS } = {}) {
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

export const search = (options, extra = {}) => req('POST', `/v1/ns/${NS}/search`, { json: options, ...extra });

let rpcId = 0;
export const toolCall = (name, args) => ({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name, arguments: args } });
export const mcp = (messages, extra = {}) => req('POST', '/mcp', { json: messages, headers: { accept: 'application/json, text/event-stream' }, ...extra });

/** Runs `count` requests made by `make(i)` with `concurrency` in flight. */
export async function many(count, concurrency, make) {
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

export const probe = { lat: [], errors: 0, censored: 0, skipped: 0, inFlight: 0, timer: null, window: null };

export function startProbe() {
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

export async function isolateInfo() {
  const r = await req('GET', '/v1/namespaces', { key: keys.admin, timeoutMs: 10_000 });
  return r.status === 200 ? r.body?.isolate ?? null : null;
}

/** After a shape: is the big namespace still answering? If not, restart workerd. */
export async function checkAndHeal(shapeName) {
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
