// The adversarial run's report: one row per shape, the summary over the
// rows, the goals with PASS/FAIL, the result JSON and its markdown.
import { cpus, totalmem } from 'node:os';
import { BUDGET_MS, DOCS, MiB, NS, PROBE_EVERY_MS, PROBE_MAX_IN_FLIGHT, QUICK, SIZES, TIMEOUT_MS, argv, mib, pct, r1 } from './config.mjs';
import { W, mem, probe } from './worker.mjs';
import { shapes } from './shapes.mjs';

/** One shape's row: statuses, times, sizes, error codes and hits of its responses. */
export function summarize(name, responses, note, extra) {
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

export const fmtBytes = (b) => (b >= MiB ? `${(b / MiB).toFixed(1)} MiB` : b >= 1024 ? `${(b / 1024).toFixed(1)} KiB` : `${b} B`);
export const fmtStatuses = (s) =>
  Object.entries(s)
    .map(([k, v]) => (v === 1 ? k : `${k}×${v}`))
    .join(' ');

/** The result JSON: parameters, machine, the rows and restarts in `out`, summary and goals. */
export function buildResult(out, started) {
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
  return result;
}

/** The markdown table and summary lines of a result. */
export function markdown(result) {
  const { summary, goals } = result;
  const fivexx = summary.fivexx;
  const lines = [];
  lines.push(`### Adversarial run (${result.mode}, ${DOCS} documents, ${result.date.slice(0, 16)}Z)`, '');
  lines.push('| # | shape | req | statuses | max ms | max bytes | /health max ms | note |', '|---|---|---|---|---|---|---|---|');
  result.shapes.forEach((s, i) => {
    if (s.notRun) return lines.push(`| ${i + 1} | ${s.shape} | – | not run | – | – | – | ${s.notRun} |`);
    const notes = [s.note, s.errorCodes.length ? s.errorCodes.join(',') : null, s.hits !== null ? `${s.hits} hits${s.total !== null ? ` (total ${s.total})` : ''}` : null, s.limited ? `limited: ${JSON.stringify(s.limited).slice(0, 60)}` : null, s.transportErrors.length ? s.transportErrors.join(',') : null, s.skipped ? `skipped: ${s.skipped}` : null, s.after.healthyAfter ? null : `**namespace answered ${s.after.status} after; restarted**`]
      .filter(Boolean)
      .join('; ');
    lines.push(`| ${i + 1} | ${s.shape} | ${s.requests} | ${fmtStatuses(s.statuses)} | ${s.maxMs} | ${fmtBytes(s.maxBytes)} | ${s.healthMaxMs ?? '–'} | ${notes.replace(/\|/g, '\\|')} |`);
  });
  lines.push('');
  lines.push(`- requests: ${summary.requests} in ${summary.shapesRun}/${summary.shapes} shapes; worst request ${summary.worstRequestMs} ms (${summary.worstShape}); timeouts (${TIMEOUT_MS / 1000} s): ${summary.timeouts}; 5xx: ${fivexx}`);
  lines.push(`- /health during the attack: ${summary.health.samples} probes, p50 ${summary.health.p50Ms} ms, p99 ${summary.health.p99Ms} ms, max ${summary.health.maxMs} ms (${summary.health.cutByRestartOrTimeout} cut by a restart or timeout, ${summary.health.skippedTicks} ticks skipped at ${PROBE_MAX_IN_FLIGHT} in flight); idle p50 ${result.baseline?.healthIdleP50Ms} ms`);
  lines.push(`- memory: wasm ${summary.wasmMemoryMaxMiB} MiB max (after loading: ${result.baseline?.wasmMiB}); workerd RSS ${summary.workerdRssMaxMiB} MiB max`);
  lines.push(`- workerd restarts: ${W.restarts.length}${W.restarts.length ? ` (${W.restarts.map((r) => r.reason).join('; ')})` : ''}`);
  for (const c of summary.workerdCrashes) lines.push(`- workerd crashed: ${c}`);
  if (result.harnessError) lines.push(`- HARNESS ERROR: ${result.harnessError}`);
  lines.push('');
  for (const g of goals) lines.push(`${g.pass ? 'PASS' : 'FAIL'}  ${g.goal}: ${g.value}`);
  return lines.join('\n');
}
