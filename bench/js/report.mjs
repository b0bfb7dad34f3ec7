// Generates the whole of BENCHMARKS.md and bench/results/chart.svg from result files:
// the peer comparisons from the newest bench/results/<workload>-*.json (report-peers.mjs),
// every other table from bench/results/tables/<name>.json (report-table.mjs). Nothing in
// BENCHMARKS.md is written by hand; how the numbers came about goes to bench/HISTORY.md.
//
// Usage: node bench/js/report.mjs            write BENCHMARKS.md and the chart
//        node bench/js/report.mjs --check    exit 1 unless both match the result files byte
//                                            for byte (tests/js/benchmarks-doc.test.mjs)
// To add a table: write bench/results/tables/NAME.json (fields in report-table.mjs; a script
// can call its writeTable) and add NAME to a section's `tables` below, or a new section
// { title, about, tables: ['NAME'] }; then run this script.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { latest, relevanceSection, scaleSection, agentSection, sizeSection, chart } from './report-peers.mjs';
import { readTable, renderTable } from './report-table.mjs';

const BENCH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS = path.join(BENCH, 'results');
const TABLES = path.join(RESULTS, 'tables');
const MD = path.resolve(BENCH, '..', 'BENCHMARKS.md');
const CHART = path.join(RESULTS, 'chart.svg');

// The document, section by section. `about` says what the section measures and how to run
// it; `body` renders peer results; `tables` names generic result files, rendered in order.
const LAYOUT = [
  {
    title: 'Relevance',
    about: 'Ranking quality against the peers on two judged collections (Cranfield, CISI), each peer in its default and its English configuration (`bench/README.md`, "Configurations"). Run: `make -C bench relevance`.',
    body: (by) => relevanceSection(by.relevance || by['relevance-quick']),
    tables: ['lexical-scoring'],
  },
  {
    title: 'Scale',
    about: 'Build time, memory, index size, load time and query latency of every peer at 100k documents, the whole corpus (~1M) and a 20k quick run, each peer in a fresh process. Run: `make -C bench bench-100k`, `bench-1m`, `bench-quick`.',
    body: scaleSection,
    tables: ['build-memory'],
  },
  {
    title: 'Agent pattern (write, commit, search)',
    about: 'Single-document writes, each made durable before the next, with a search every 10 writes: the pattern of an agent\'s memory. Run: `make -C bench agent` (quick: `bench-quick`).',
    body: agentSection,
  },
  {
    title: 'Bundle size',
    about: 'What each peer adds to a browser bundle, and memdex\'s own bytes. Run: `make -C bench size`; `node scripts/check-size.mjs` for the package alone; `node bench/js/size-report.mjs` for where the wasm bytes are.',
    body: (by) => `### Against the peers\n\n${sizeSection(by.size)}`,
    tables: ['wasm-size', 'wasm-areas', 'wasm-top', 'builds-same-results'],
  },
  {
    title: 'Cold start',
    about: 'Time from `import` to the first search result, per package build: in Chromium (cold, and cached on a later visit) and in workerd (a fresh isolate). Run: `make -C bench cold-start` (`node bench/js/cold-start.mjs [PKG_DIR[:lexical] ...]` for other builds; `pkg:lexical` is the package\'s lexical build).',
    tables: ['cold-start-chromium', 'cold-start-workerd'],
  },
  {
    title: 'Index bytes',
    about: 'Where the serialized bytes of an index go, part by part, against tantivy\'s index of the same fields. Source: `bench/segments/parts.rs` (`cargo run --profile bench-native --example index_parts`).',
    tables: ['index-parts', 'format-4-persistence', 'doc-cache'],
  },
  {
    title: 'Lazy open',
    about: 'An index opened from its segment heads (`Memdex.open({ lazy: true })`), its parts fetched as searches need them, against a full open. Source: `bench/js/lazy-open.mjs` (Node, fs) and `bench/js/lazy-open-browser.mjs` (Chromium, IndexedDB).',
    tables: ['lazy-open', 'lazy-memory'],
  },
  {
    title: 'Proximity and the natural-language default',
    about: 'memdex alone under several search options (modes, `proximity`, `strategy`): which one is the default, and what each costs. Source: `bench/relevance/options.rs`.',
    tables: ['search-options-relevance', 'search-options-speed'],
  },
  {
    title: 'Typo tolerance',
    about: 'What a typo costs in relevance, how much `fuzzy` recovers, and its price in query time and index size. Source: `bench/js/typo.mjs`.',
    tables: ['typo-relevance', 'typo-cost'],
  },
  {
    title: 'Vectors and hybrid',
    about: 'Vector and hybrid (lexical + vector) search: relevance with real embeddings, the fusion method chosen by evidence, speed in wasm, and what vectors cost a build. Run: `make -C bench vectors-relevance`, `make -C bench fusion-sweep`, `make -C bench vectors-speed`, `make -C bench vectors-build`.',
    tables: ['vectors-relevance', 'vectors-hybrid-sweep', 'vectors-fusion-sweep', 'vectors-speed', 'vectors-build'],
  },
  {
    title: 'Embedding on write',
    about: 'What `Memdex.open({ embed })` costs `addMany` with an embedder of fixed latency, across batch sizes and concurrency, and whether the writer lock or the engine ever waits on the embedder. Source: `bench/js/embed-cost.mjs`.',
    tables: ['embed-cost'],
  },
  {
    title: 'Agent retrieval: links, recency, totals',
    about: 'The cost of link expansion, `related`, recency decay and match totals over a ranked search. Sources: `bench/agent/links.rs`, `examples/query_digest.rs`.',
    tables: ['agent-links', 'exact-total'],
  },
  {
    title: 'MCP tools',
    about: 'What the memory tools cost every agent that lists them. Source: `bench/js/mcp-tokens.mjs`.',
    tables: ['mcp-tool-tokens'],
  },
  {
    title: 'Structure changes that must change nothing',
    about: 'Refactors of the engine checked the way every change to the query path is: the hits of the 2,000 benchmark queries (their digest) and their speed, before and after, in one run. Source: `examples/query_digest.rs`.',
    tables: ['query-structure'],
  },
  {
    title: 'Query cost budget (hostile queries)',
    about: 'Queries built to be expensive, with and without the per-query budget. Source: `bench/js/costly.mjs`.',
    tables: ['query-budget'],
  },
  {
    title: 'Whole-request cost and the service under attack',
    about: 'The costliest option shapes once every stage of a request is bounded (docs/BOUNDS.md), in the package and against the Worker under 50 hostile request shapes. Sources: `bench/js/request-cost.mjs`, `bench/adversarial.mjs` (`make -C bench adversarial`).',
    tables: ['request-cost-package', 'request-cost-worker', 'request-cost-worker-shapes'],
  },
  {
    title: 'Durability',
    about: 'The commit protocol under concurrent writers, killed processes and continuous readers, on every storage. Sources: `bench/torture.mjs` and the torture tests the rows name.',
    tables: ['durability'],
  },
  {
    title: 'Persistence',
    about: 'Bytes and time of a full commit, a one-document commit and a reopen, on the filesystem and in IndexedDB. Sources: `bench/persistence/`.',
    tables: ['persistence'],
  },
  {
    title: 'Edge service (Worker in workerd)',
    about: 'The memdex Worker (`worker/`) run locally in workerd through Miniflare: a mixed read/write load, and the memory of its isolates. Sources: `bench/worker-load.mjs`, `bench/worker-memory.mjs`.',
    tables: ['worker-load', 'worker-memory', 'worker-memory-lazy'],
  },
  {
    title: 'Explorer',
    about: 'How fast the `www/` explorer answers typing. Source: `tests/e2e/explorer-bulk.test.mjs`.',
    tables: ['explorer-latency'],
  },
];

const INTRO = `# memdex benchmarks

<!-- generated by \`node bench/js/report.mjs\` from bench/results/; edit the result files or the report, not this file -->

Current figures, a table per question, each with the command and the date that produced it. The side-by-side harness is in \`bench/\` (how to run it: \`bench/README.md\`); how the numbers came about (earlier runs, experiments, what was tried and dropped) is in [\`bench/HISTORY.md\`](bench/HISTORY.md). Timings come from a shared 2-core machine unless a table says otherwise: compare ratios within a table, not absolute times across tables.
`;

// GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens.
const anchor = (t) => t.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-');

// Every generic result file must be placed in LAYOUT, so a new one cannot be forgotten.
function unplaced() {
  if (!fs.existsSync(TABLES)) return [];
  const placed = new Set(LAYOUT.flatMap((s) => s.tables || []));
  return fs.readdirSync(TABLES).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).filter((n) => !placed.has(n));
}

export function renderReport() {
  const missing = unplaced();
  if (missing.length) throw new Error(`report: bench/results/tables/ has ${missing.join(', ')}, which LAYOUT in bench/js/report.mjs does not place`);
  const by = latest(RESULTS);
  let md = `${INTRO}\n${LAYOUT.map((s) => `- [${s.title}](#${anchor(s.title)})`).join('\n')}\n`;
  for (const s of LAYOUT) {
    const parts = [`## ${s.title}`, s.about];
    if (s.body) parts.push(s.body(by).trim());
    for (const name of s.tables || []) parts.push(renderTable(readTable(TABLES, name)).trim());
    md += `\n${parts.join('\n\n')}\n`;
  }
  return { md, svg: chart(by) };
}

export function generateReport() {
  const { md, svg } = renderReport();
  fs.writeFileSync(MD, md);
  if (svg) fs.writeFileSync(CHART, svg);
  console.error(`[bench] wrote ${path.relative(process.cwd(), MD)}${svg ? ` and ${path.relative(process.cwd(), CHART)}` : ''}`);
}

// The first line where `have` departs from `want`, for a message that says where to look.
function firstDifference(want, have) {
  const a = want.split('\n'), b = (have ?? '').split('\n');
  const i = a.findIndex((line, k) => line !== b[k]);
  const k = i < 0 ? a.length : i;
  return `line ${k + 1}: expected ${JSON.stringify(a[k] ?? '<end of file>')}, found ${JSON.stringify(b[k] ?? '<end of file>')}`;
}

export function checkReport() {
  const { md, svg } = renderReport();
  const read = (f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : null);
  const problems = [];
  if (read(MD) !== md) problems.push(`BENCHMARKS.md differs from what the result files give (${firstDifference(md, read(MD))})`);
  if (svg && read(CHART) !== svg) problems.push(`bench/results/chart.svg differs from what the result files give (${firstDifference(svg, read(CHART))})`);
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--check')) {
    const problems = checkReport();
    for (const p of problems) console.error(`[bench] ${p}`);
    if (problems.length) {
      console.error('[bench] regenerate with `node bench/js/report.mjs` (after changing bench/results/ or the report, never BENCHMARKS.md by hand)');
      process.exit(1);
    }
    console.error('[bench] BENCHMARKS.md and chart.svg match the result files');
  } else generateReport();
}
