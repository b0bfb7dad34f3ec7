// The peer-comparison sections of BENCHMARKS.md (relevance, scale, agent pattern, bundle size)
// and bench/results/chart.svg (hand-written SVG: query latency and build time per peer, log
// scale), rendered from the newest JSON result of each workload that js/run.mjs writes into
// bench/results/. report.mjs places them in the document.
import fs from 'node:fs';
import path from 'node:path';

const NAMES = {
  'memdex-native': 'memdex (native)', 'memdex-wasm': 'memdex (wasm, Node)', tantivy: 'tantivy (native)',
  minisearch: 'MiniSearch', flexsearch: 'FlexSearch', orama: 'Orama', lunr: 'Lunr', 'sqlite-fts5': 'SQLite FTS5 (wasm)', bm25s: 'bm25s (Python)',
};
const label = (r) => `${NAMES[r.peer] || r.peer}${r.version ? ` ${r.version}` : ''}`;

export function latest(RESULTS) {
  const by = {};
  if (!fs.existsSync(RESULTS)) return by;
  for (const f of fs.readdirSync(RESULTS).filter((f) => f.endsWith('.json')).sort()) {
    try {
      const d = JSON.parse(fs.readFileSync(path.join(RESULTS, f), 'utf8'));
      if (!by[d.workload] || by[d.workload].date <= d.date) by[d.workload] = { ...d, file: f };
    } catch {}
  }
  return by;
}

const num = (x, d = 2) => (x == null || !Number.isFinite(x) ? '–' : x >= 1000 && d <= 2 ? x.toFixed(0) : x.toFixed(d));
const ms = (x) => (x == null ? '–' : x < 1 ? x.toFixed(3) : x < 100 ? x.toFixed(2) : x.toFixed(0));
const ratio = (x, base) => (x == null || base == null || !base ? '–' : `${(x / base).toFixed(2)}×`);

function header(d) {
  const m = d.machine || {};
  return `Command: \`${d.command}\` — run ${d.date.replace('T', ' ').slice(0, 16)} UTC — ` +
    `machine: ${m.cores} cores (${m.cpu_model || '?'}), ${m.memory_gib} GiB, ${m.node}, ${m.rustc || ''} — ` +
    `${d.noisy ? '**noisy** (shared machine, load average ' + (m.loadavg_at_start || []).join('/') + '): compare ratios, not absolute times' : 'quiet machine'} — raw: \`bench/results/${d.file}\``;
}

export function relevanceSection(d) {
  if (!d) return '_No relevance run yet: `make -C bench relevance`._';
  const key = (r) => `${r.peer}|${r.config}`;
  const rows = new Map();
  for (const r of d.rows) {
    if (!rows.has(key(r))) rows.set(key(r), { peer: r.peer, config: r.config, version: r.version });
    rows.get(key(r))[r.collection] = r;
    if (r.version) rows.get(key(r)).version = r.version;
  }
  const base = rows.get('memdex-native|english') || rows.get('memdex-wasm|english');
  const cols = ['cranfield', 'cisi'];
  const baseNote = base && cols.every((c) => base[c] && !base[c].dnf) ? '' : ` **memdex has no complete run here (${(base && cols.map((c) => base[c]?.dnf).find(Boolean)) || 'not measured'}), so the ×memdex columns are empty.**`;
  let s = `${header(d)}\n\nOR mode, top-100, title + text. nDCG@10 uses linear gain rel/log2(i+1) (pytrec_eval / BEIR); MAP@100 and Recall@100 divide by all relevant documents; means over queries with at least one judgment. ×memdex = peer nDCG@10 / memdex nDCG@10 (memdex native, default English config). Harness check: bm25s english is expected at 0.374 / 0.396. Per-process bound: ${d.params.timeout_s} s.${baseNote}\n\n`;
  s += '| peer | config | Cranfield nDCG@10 | ×memdex | MAP@100 | R@100 | CISI nDCG@10 | ×memdex | MAP@100 | R@100 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  const sorted = [...rows.values()].sort((a, b) => (b.cranfield?.ndcg_at_10 ?? -1) - (a.cranfield?.ndcg_at_10 ?? -1));
  for (const r of sorted) {
    s += `| ${label(r)} | ${r.config} |`;
    for (const c of cols) {
      const x = r[c];
      if (!x || x.dnf) s += ` ${x?.dnf || '–'} | | | |`;
      else s += ` ${num(x.ndcg_at_10, 3)} | ${ratio(x.ndcg_at_10, base?.[c]?.ndcg_at_10)} | ${num(x.map_at_100, 3)} | ${num(x.recall_at_100, 3)} |`;
    }
    s += '\n';
  }
  return s;
}

function scaleTable(d) {
  const base = d.peers.find((p) => p.peer === 'memdex-native' && !p.dnf) || d.peers.find((p) => p.peer === 'memdex-wasm' && !p.dnf);
  const p = d.params;
  const m0 = d.peers.find((x) => x.peer === 'memdex-native');
  const baseNote = base ? '' : ` **memdex (native) has no complete run here (${m0?.dnf || 'not measured'}), so the ×memdex columns are empty.**`;
  let s = `### ${p.docs} documents, ${p.queries} queries\n\n${header(d)}\n\nTop-10, title + text, English config, ${p.timing}, ${p.warmup_queries} warm-up queries per mode; bounds ${p.timeout_s} s and ${p.memory_limit_gib} GiB per process. Index MiB = serialized snapshot (tantivy: index directory). ×memdex = peer / memdex (native) — below 1 means the peer is faster/smaller.${p.query_budget_ms_per_mode ? ` Query phases stop after ${p.query_budget_ms_per_mode / 1000} s per mode; such rows show how many queries ran.` : ''}${baseNote}\n\n`;
  s += '| peer | build s | ×memdex | peak RSS MiB | index MiB | load ms | OR p50 ms | OR p95 ms | OR p99 ms | OR QPS | ×memdex (p50) | AND p50 ms | AND p99 ms | AND QPS |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n';
  for (const r of d.peers) {
    if (r.dnf) { s += `| ${label(r)} | ${r.dnf} | | | | | | | | | | | | |\n`; continue; }
    const o = r.queries.or || {}, a = r.queries.and || {};
    const trunc = (q) => (q.truncated ? ` (${q.ran}/${q.planned} q)` : '');
    const runsNote = r.failed_runs ? ` (${r.runs} of ${r.runs + r.failed_runs.length} runs finished)` : '';
    s += `| ${label(r)}${runsNote} | ${num(r.build_ms / 1000)} | ${ratio(r.build_ms, base?.build_ms)} | ${num(r.rss_after_build_mib, 0)} | ${r.serialized_bytes != null ? num(r.serialized_bytes / 2 ** 20, 1) : 'n/a'} | ${r.load_ms != null ? ms(r.load_ms) : 'n/a'} | ${ms(o.p50_ms)}${trunc(o)} | ${ms(o.p95_ms)} | ${ms(o.p99_ms)} | ${num(o.qps, 0)} | ${ratio(o.p50_ms, base?.queries?.or?.p50_ms)} | ${a.unsupported ? 'n/a' : ms(a.p50_ms) + trunc(a)} | ${ms(a.p99_ms)} | ${num(a.qps, 0)} |\n`;
  }
  return s;
}

export function scaleSection(by) {
  const ds = ['scale-100k', 'scale-1m', 'scale-quick-20k'].map((w) => by[w]).filter(Boolean);
  if (!ds.length) return '_No scale run yet: `make -C bench bench-quick` or `make -C bench bench`._';
  return ds.map(scaleTable).join('\n') + '\n![query latency and build time per peer](bench/results/chart.svg)\n';
}

export function agentSection(by) {
  const ds = ['agent', 'agent-quick'].map((w) => by[w]).filter(Boolean);
  if (!ds.length) return '_No agent-pattern run yet: `make -C bench agent`._';
  return ds.map((d) => {
    let s = `### ${d.params.writes} single-document writes, each committed durably, a search every ${d.params.search_every}\n\n${header(d)}\n\n${d.params.durable}. memdex commits to the filesystem (native: FsStorage; wasm: the package's \`Memdex.commit()\` on fs storage). ×memdex = time per commit (total / commits) relative to memdex (wasm).\n\n`;
    s += '| peer | commits | total s | ×memdex | commit p50 ms | commit p99 ms | search p50 ms | bytes written | bytes on disk at end | peak RSS MiB | what a commit does |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n';
    // Per-commit time: comparable across peers stopped by the time bound (their
    // commits ran on a smaller index, which favours them).
    const perCommit = (r) => (r && !r.dnf && r.writes ? r.total_ms / r.writes : null);
    const base = perCommit(d.peers.find((r) => r.peer === 'memdex-wasm' && !r.dnf)) ?? perCommit(d.peers.find((r) => r.peer === 'memdex-native' && !r.dnf));
    for (const r of d.peers) {
      if (r.dnf) { s += `| ${label(r)} | ${r.unsupported ? 'N/A: ' : ''}${r.dnf} | | | | | | | | | |\n`; continue; }
      s += `| ${label(r)} | ${r.writes}${r.truncated ? ` of ${r.planned_writes} (time bound)` : ''} | ${num(r.total_ms / 1000)} | ${ratio(perCommit(r), base)} | ${ms(r.commit?.p50_ms)} | ${ms(r.commit?.p99_ms)} | ${ms(r.search?.p50_ms)} | ${r.bytes_written ?? '–'} | ${r.bytes_on_disk} | ${num(r.peak_rss_mib, 0)} | ${r.commit_kind || ''} |\n`;
    }
    return s;
  }).join('\n');
}

export function sizeSection(d) {
  if (!d) return '_No size run yet: `make -C bench size`._';
  const base = d.peers.find((p) => p.peer === 'memdex-wasm' && !p.dnf);
  let s = `${header(d)}\n\nGzipped bytes (level 9) a peer adds to a browser bundle: esbuild ${d.peers[0]?.esbuild} (bundle, minify, ESM, browser) of an entry importing what the benchmark uses; + English = with the stemmer/stopwords configured here; wasm peers include their .wasm gzipped.\n\n`;
  s += '| peer | core KB gz | + English KB gz | of which wasm KB gz | ×memdex |\n|---|---:|---:|---:|---:|\n';
  for (const r of d.peers) {
    if (r.dnf) { s += `| ${label(r)} | ${r.dnf} | | | |\n`; continue; }
    s += `| ${label(r)} | ${num(r.core_gz / 1000, 1)} | ${num(r.english_gz / 1000, 1)} | ${num(r.wasm_gz / 1000, 1)} | ${ratio(r.english_gz, base?.english_gz)} |\n`;
  }
  return s;
}

// ---------------- SVG ----------------
const esc = (t) => String(t).replace(/&/g, '&amp;').replace(/</g, '&lt;');

function barPanel(x0, y0, w, title, items, unit) {
  // items: [{name, value, value2?}] log-scale horizontal bars.
  const vals = items.flatMap((i) => [i.value, i.value2]).filter((v) => v > 0);
  if (!vals.length) return '';
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...vals))));
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...vals))));
  const labelW = 170, barW = w - labelW - 70, rowH = 34;
  const sx = (v) => labelW + (Math.log10(v / lo) / Math.log10(hi / lo || 10)) * barW;
  let s = `<text x="${x0}" y="${y0}" font-size="14" font-weight="bold">${esc(title)}</text>`;
  const top = y0 + 14;
  for (let e = lo; e <= hi * 1.0001; e *= 10) {
    const x = x0 + sx(e);
    s += `<line x1="${x}" y1="${top}" x2="${x}" y2="${top + items.length * rowH}" stroke="#ddd"/><text x="${x}" y="${top + items.length * rowH + 14}" font-size="10" text-anchor="middle" fill="#555">${e >= 1 ? e : e.toPrecision(1)} ${unit}</text>`;
  }
  items.forEach((it, i) => {
    const y = top + i * rowH;
    s += `<text x="${x0 + labelW - 6}" y="${y + 17}" font-size="11" text-anchor="end">${esc(it.name)}</text>`;
    if (it.dnf) { s += `<text x="${x0 + labelW + 4}" y="${y + 17}" font-size="10" fill="#a00">${esc(it.dnf.slice(0, 60))}</text>`; return; }
    const color = it.name.startsWith('memdex') ? '#d9480f' : '#1c7ed6';
    if (it.value > 0) s += `<rect x="${x0 + labelW}" y="${y + 4}" width="${Math.max(1, sx(it.value) - labelW)}" height="12" fill="${color}"/><text x="${x0 + sx(it.value) + 4}" y="${y + 14}" font-size="10">${ms(it.value)}</text>`;
    if (!(it.value > 0) && !(it.value2 > 0)) s += `<text x="${x0 + labelW + 4}" y="${y + 17}" font-size="10" fill="#a00">no query completed within the query budget</text>`;
    if (it.value2 > 0) s += `<rect x="${x0 + labelW}" y="${y + 18}" width="${Math.max(1, sx(it.value2) - labelW)}" height="10" fill="${color}" opacity="0.45"/><text x="${x0 + sx(it.value2) + 4}" y="${y + 27}" font-size="9" fill="#444">${ms(it.value2)}</text>`;
  });
  return s;
}

export function chart(by) {
  const d = by['scale-100k'] || by['scale-1m'] || by['scale-quick-20k'];
  if (!d) return null;
  const items = d.peers.map((r) => ({ name: NAMES[r.peer] || r.peer, dnf: r.dnf, q: r.queries, b: r.build_ms }));
  const lat = items.map((i) => ({ name: i.name, dnf: i.dnf, value: i.q?.or?.p50_ms, value2: i.q?.and?.p50_ms }));
  const build = items.map((i) => ({ name: i.name, dnf: i.dnf, value: i.b / 1000 }));
  const W = 1000, H = 90 + items.length * 34 + 40;
  let s = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">`;
  s += `<rect width="${W}" height="${H}" fill="white"/>`;
  s += `<text x="10" y="20" font-size="13">${esc(`${d.params.docs} docs, ${d.params.queries} queries — ${d.command} — ${d.date.slice(0, 16)} UTC${d.noisy ? ' — noisy machine' : ''} (log scales)`)}</text>`;
  s += barPanel(10, 50, W / 2 - 10, 'Query latency p50, ms (dark: OR, light: AND)', lat, 'ms');
  s += barPanel(W / 2 + 10, 50, W / 2 - 20, 'Index build time, s', build, 's');
  return s + '</svg>\n';
}
