// One build of the package in its own process (a process loads one wasm
// build): `node build-probe.mjs ENTRY STEP [FILE]` imports `Memdex` from
// ENTRY (pkg/node.js or pkg/lexical-node.js), runs STEP and prints its JSON.
// Steps:
//   answers  the agent-memory set with links and a vector field: every
//            question searched in several option sets, suggest, get
//   export   writes that index's export() bytes to FILE
//   reopen   imports FILE, adds a document, searches, writes FILE.out
//   refused  what the calls the lexical build lacks give (vector, hybrid,
//            expand, related, diversity, dedupe, migrate, recover)
// The engine's clock and randomness (commit and blob ids) come from
// `Date.now` and `Math.random`, fixed here so that exports compare byte for
// byte across processes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const [entry, step, file] = process.argv.slice(2);
let seed = 1;
Math.random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
Date.now = () => 1_800_000_000_000;
const { Memdex } = await import(pathToFileURL(entry).href);
// The glue both builds share: which wasm this process runs.
const { buildName } = await import(new URL('memdex.js', pathToFileURL(entry)).href);

const here = new URL('../../../bench/agent-memory/', import.meta.url);
const jsonl = (f) => readFileSync(new URL(f, here), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
const SCHEMA = {
  title: { type: 'text', weight: 2 },
  text: { type: 'text' },
  kind: { type: 'keyword' },
  links: { type: 'links' },
  emb: { type: 'vector', dimensions: 3 },
};
// Every 7th memory links to the next one and every memory carries a vector:
// data the lexical build must keep though it does not search it.
const memories = jsonl('memories.jsonl');
const docs = memories.map((m, i) => ({
  id: m.id,
  title: m.speaker,
  text: m.text,
  kind: m.conversation,
  ...(i % 7 === 0 ? { links: [{ type: 'NEXT', to: memories[i + 1].id }] } : {}),
  emb: [1 + (i % 5), (i % 3) - 1, i % 2],
}));
const questions = jsonl('questions.jsonl').map((q) => q.question);
const OPTIONS = [
  {},
  { mode: 'and' },
  { mode: 'or', limit: 20 },
  { mode: 'fallback' },
  { strategy: 'auto' },
  { fuzzy: true },
  { filter: { kind: 'c02' }, highlight: true },
  { proximity: true, offset: 5 },
];

/** The MD5 of `bytes`, written to `out` when given. @param {Uint8Array} bytes @param {string} [out] */
function md5(bytes, out) {
  if (out) writeFileSync(out, bytes);
  return createHash('md5').update(bytes).digest('hex');
}

async function build() {
  const index = await Memdex.open({ schema: SCHEMA });
  await index.addMany(docs);
  return index;
}

/** What a call gives: its value, or its error's code and message. */
async function outcome(fn) {
  try {
    return { value: await fn() };
  } catch (err) {
    return { code: err.code, message: err.message };
  }
}

/** What `Memdex.migrate` and `Memdex.recover` give on a stored index. */
async function maintenance() {
  const dir = mkdtempSync(join(tmpdir(), 'memdex-probe-'));
  try {
    const stored = await Memdex.open({ storage: 'fs', dir, autoCommit: false });
    stored.add({ id: 'a', text: 'a stored memory' });
    await stored.commit();
    await stored.close();
    const migrate = await outcome(async () => (await Memdex.migrate({ from: { storage: 'fs', dir }, to: { k1: 1 } })).documents);
    rmSync(join(dir, 'memdex/manifest')); // what recover rebuilds (fs storage's layout)
    const recover = await outcome(async () => (await Memdex.recover({ storage: 'fs', dir })).documents);
    return { migrate, recover };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const steps = {
  async answers() {
    const index = await build();
    const hash = createHash('md5');
    let hits = 0;
    for (const options of OPTIONS) {
      for (const q of questions) {
        const r = index.search(q, options);
        hits += r.hits.length;
        hash.update(JSON.stringify([r.hits, r.total, r.mode, r.strategy ?? null]));
      }
    }
    const suggest = index.suggest('gard', { limit: 5 });
    return { build: buildName(), searches: OPTIONS.length * questions.length, hits, md5: hash.digest('hex'), suggest, get: index.get(docs[7].id, { vectors: true }) };
  },
  async export() {
    const index = await build();
    const bytes = index.export();
    writeFileSync(file, bytes);
    return { build: buildName(), md5: md5(bytes) };
  },
  async reopen() {
    const index = await Memdex.import(new Uint8Array(readFileSync(file)));
    index.add({ id: 'new', title: 'Zed', text: 'a brand new zebra memory', links: [{ type: 'NEXT', to: docs[0].id }], emb: [0, 0, 1] });
    return {
      build: buildName(),
      size: index.size,
      zebra: index.search('zebra').hits.map((h) => h.id),
      kept: index.get(docs[0].id, { vectors: true }),
      md5: md5(index.export(), `${file}.out`),
    };
  },
  async refused() {
    const index = await build();
    return {
      build: buildName(),
      vector: await outcome(() => index.search('', { vector: [1, 0, 0] }).hits.length),
      hybrid: await outcome(() => index.search('garden', { vector: [1, 0, 0], hybrid: { method: 'rrf' } }).hits.length),
      expand: await outcome(() => index.search('garden', { expand: { hops: 1 } }).hits.length),
      related: await outcome(() => index.related(docs[0].id).length),
      diversity: await outcome(() => index.search('garden', { diversity: 0.5 }).hits.length),
      dedupe: await outcome(() => index.search('garden', { dedupe: true }).hits.length),
      // A relation question: the full build expands its hits' links.
      auto: await outcome(() => index.search('what is related to garden', { strategy: 'auto' }).strategy),
      ...(await maintenance()),
    };
  },
};
console.log(JSON.stringify(await steps[step]()));
