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
//
// Modules under adversarial/: config.mjs (flags, sizes, helpers), worker.mjs
// (workerd, requests, the /health probe), shapes.mjs (the shapes),
// report.mjs (rows, summary, goals, markdown).
import { createReadStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import { makeKeys, tempDir } from '../tests/worker/support/helpers.mjs';
import { BUDGET_MS, DATA, DOCS, NS, QUICK, arg, mib, pct, pick, r1, sleep } from './adversarial/config.mjs';
import { W, checkAndHeal, isolateInfo, keys, mem, probe, req, restartWorker, sampleRss, startProbe, startWorker } from './adversarial/worker.mjs';
import { shapes } from './adversarial/shapes.mjs';
import { buildResult, fmtBytes, fmtStatuses, markdown, summarize } from './adversarial/report.mjs';

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
  Object.assign(keys, made.keys);
  W.secret = made.secret;
  W.state = tempDir('adversarial');
  await startWorker();
  const rssTimer = setInterval(sampleRss, 200);

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

  const result = buildResult(out, started);
  console.log(markdown(result));

  const dir = new URL('results/', import.meta.url).pathname;
  mkdirSync(dir, { recursive: true });
  const file = arg('out', `${dir}adversarial-${result.date.replace(/[:.]/g, '-').slice(0, 19)}${QUICK ? '-quick' : ''}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  console.error(`wrote ${file}`);
  if (out.harnessError) process.exitCode = 1;
}

await main();
