// Measures the query cost budget: wall milliseconds of the costly query
// shapes (a few KB of query that cost seconds of CPU without a budget) on
// the first 20k `packages` documents (title + text), through the public
// API (`Memdex.search`) of each package given, in every mode. Each shape
// must answer, or fail with LIMIT, in under 100 ms. A shape is timed once
// cold, then (when it took under a second) 8 more times: the median is
// reported, with the hits, the `limited` flags or the error code. Also
// times the strict syntax, which fails with LIMIT instead of degrading.
// Usage: node js/costly.mjs [PKG_DIR...] (default: the repo's pkg/);
// COSTLY_MODES=or,and and COSTLY_SYNTAXES=lenient narrow the runs.
import { medianRun, readJsonlGzHead } from './common.mjs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgs = process.argv.length > 2 ? process.argv.slice(2) : [path.join(here, '..', '..', 'pkg')];
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const modes = (process.env.COSTLY_MODES || 'or,and,fallback').split(',');
const syntaxes = (process.env.COSTLY_SYNTAXES || 'lenient,strict').split(',');
const N = 20_000;
const LIMIT_MS = 100;
// Runs of a shape that answers within a second (the median is reported).
const REPEATS = Number(process.env.COSTLY_REPEATS || 9);

const docs = await readJsonlGzHead(path.join(dataDir, 'packages/corpus.jsonl.gz'), N, (d) => ({
  id: d._id,
  title: d.title ?? '',
  text: d.text ?? '',
}));

// The corpus's most frequent words of 4+ letters (few are stopwords).
const counts = new Map();
for (const d of docs) {
  for (const w of `${d.title} ${d.text}`.toLowerCase().match(/[a-z]{4,}/g) ?? []) {
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
}
const common = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([w]) => w);
const letter = (i) => String.fromCharCode(97 + (i % 26));

const shapes = {
  '1024 one-letter prefixes': Array.from({ length: 1024 }, (_, i) => `${letter(i)}*`).join(' '),
  'ab~2 x1024': Array(1024).fill('ab~2').join(' '),
  '1024-term OR, distinct common words': common.slice(0, 1024).join(' OR '),
  '1024-term OR, one word': Array(1024).fill(common[0]).join(' OR '),
  'nested parentheses, 5000 deep': `${'('.repeat(5000)}${common[0]}${')'.repeat(5000)}`,
  'nested groups, a word per level, 1000 deep': common.slice(0, 1000).map((w) => `(${w}`).join(' ') + ')'.repeat(1000),
  'phrase of 200 common words': `"${common.slice(0, 200).join(' ')}"`,
  'a*': 'a*',
  'p* (not a stopword)': 'p*',
  'fuzzy~2 of 30 distinct short terms': Array.from({ length: 30 }, (_, i) => `${letter(i)}${letter(i * 7 + 3)}~2`).join(' '),
};

function run(index, query, options) {
  const start = performance.now();
  let outcome;
  try {
    const r = index.search(query, options);
    outcome = `${r.hits.length} hits${r.limited ? ` limited: ${r.limited.join(',')}` : ''}`;
  } catch (e) {
    outcome = `error ${e.code ?? e.name}`;
  }
  return { ms: performance.now() - start, outcome };
}

const time = (index, query, options) => medianRun(() => run(index, query, options), REPEATS);

for (const dir of pkgs) {
  const { Memdex } = await import(path.resolve(dir, 'node.js'));
  const index = await Memdex.open();
  index.addAll(docs);
  index.search('warm up');
  console.log(`${dir}: ${N} documents, ${index.stats().segments} segment(s)`);
  let worst = 0;
  for (const [name, query] of Object.entries(shapes)) {
    for (const syntax of syntaxes) {
      for (const mode of modes) {
        const { ms, outcome } = time(index, query, { mode, syntax, storedFields: false });
        worst = Math.max(worst, ms);
        const flag = ms < LIMIT_MS ? '' : '  <-- over 100 ms';
        console.log(`  ${name.padEnd(44)} ${syntax.padEnd(7)} ${mode.padEnd(8)} ${ms.toFixed(1).padStart(9)} ms  ${outcome}${flag}`);
      }
    }
  }
  console.log(`  slowest: ${worst.toFixed(1)} ms (${worst < LIMIT_MS ? 'all under' : 'NOT all under'} ${LIMIT_MS} ms)`);
  await index.close();
}
