// Terminal half of `make demo`: loads the sample agent memories into an
// in-memory memdex index (the built npm package in pkg/, i.e. the real
// Rust -> wasm -> JS pipeline) and prints ranked, highlighted results.
import { readFile } from 'node:fs/promises';
import { Memdex } from '../pkg/node.js';
import { highlight } from '../www/highlight.js';

const QUERIES = [
  ['deploying on friday', {}],
  ['wasm workers compile', {}],
  ['refund billing dispute', { mode: 'and' }],
  ['what does alex eat', {}],
  ['IndexedDB transaction speed', {}],
];

const tty = process.stdout.isTTY;
const bold = (s) => (tty ? `\x1b[1m${s}\x1b[0m` : s);
const dim = (s) => (tty ? `\x1b[2m${s}\x1b[0m` : s);
const marks = tty ? { pre: '\x1b[1;33m', post: '\x1b[0m' } : { pre: '[', post: ']' };

const lines = (await readFile(new URL('../www/memories.jsonl', import.meta.url), 'utf8')).split('\n');
const memories = lines.filter((l) => l.trim()).map((l) => JSON.parse(l));

const t0 = performance.now();
const index = await Memdex.create();
index.addAll(memories);
const t1 = performance.now();
const stats = index.stats();
console.log(bold(`memdex demo: ${stats.documents} agent memories indexed in ${(t1 - t0).toFixed(1)} ms (wasm load included)\n`));

for (const [query, options] of QUERIES) {
  const start = performance.now();
  const { hits, mode } = index.search(query, { limit: 3, ...options });
  const ms = (performance.now() - start).toFixed(2);
  console.log(`${bold('search:')} ${JSON.stringify(query)} ${dim(`(${mode}, ${hits.length} shown, ${ms} ms)`)}`);
  if (hits.length === 0) console.log(dim('  no results'));
  for (const [i, hit] of hits.entries()) {
    const { title, text, kind } = hit.fields;
    const terms = hit.matchedTerms;
    console.log(`  ${i + 1}. ${highlight(title, terms, { ...marks, escape: false, length: 200 })} ${dim(`[${hit.namespace ?? '-'} / ${kind}] score ${hit.score.toFixed(3)}`)}`);
    console.log(`     ${highlight(text, terms, { ...marks, escape: false, length: 110 })}`);
  }
  console.log();
}
index.free();
