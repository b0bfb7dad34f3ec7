// What: built memdex packages side by side in one Node process, for a
// change that must not move speed or results (size work, refactors, builds):
// CPU of `addMany` of the first N `packages` documents, CPU of the 2,000
// benchmark queries in or, and and fallback modes (limit 10, no stored
// fields), rounds alternating the sides, and the MD5 of every hit (id and
// score to 6 decimals), which must be equal.
//
//   node bench/js/ab-packages.mjs SIDE SIDE [SIDE ...] [N=20000] [ROUNDS=6]
//
// SIDE: a directory built by `scripts/build-pkg` (its node.js), or an
// entry file of one (`pkg/lexical-node.js`: the lexical build). One process
// runs one wasm build per package copy (the glue is shared), so a second
// build of the same package needs its own copy of the directory:
// `cp -r pkg /tmp/pkg-lexical` then `/tmp/pkg-lexical/lexical-node.js`.
// Prints medians; CPU time, so a busy machine shifts every side alike.
import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readJsonlGzHead } from './common.mjs';

const args = process.argv.slice(2);
const paths = args.filter((a) => !/^\d+$/.test(a));
const [n = '20000', rounds = '6'] = args.filter((a) => /^\d+$/.test(a));
if (paths.length < 2) {
  console.error('usage: node bench/js/ab-packages.mjs SIDE SIDE [SIDE ...] [N] [ROUNDS]');
  process.exit(2);
}
const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = process.env.MEMDEX_DATA || path.resolve(here, '../../../shared/data');
const docs = await readJsonlGzHead(path.join(dataDir, 'packages/corpus.jsonl.gz'), Number(n), (d) => ({
  id: d._id,
  title: d.title ?? '',
  text: d.text ?? '',
}));
const queries = readFileSync(path.join(dataDir, 'packages/queries.txt'), 'utf8').trim().split('\n').slice(0, 2000);

const sides = {};
for (const [i, p] of paths.entries()) {
  const entry = statSync(p).isDirectory() ? path.join(p, 'node.js') : p;
  const { Memdex } = await import(pathToFileURL(path.resolve(entry)).href);
  sides[String.fromCharCode(65 + i)] = { entry, Memdex, ingest: [], search: [], md5: '' };
}
const cpu = (fn) => {
  const t0 = process.cpuUsage();
  fn();
  const t = process.cpuUsage(t0);
  return (t.user + t.system) / 1000;
};
for (let round = 0; round < Number(rounds); round++) {
  for (const side of Object.values(sides)) {
    const index = await side.Memdex.open();
    const t0 = process.cpuUsage();
    await index.addMany(docs);
    index.stats(); // flushes: the segment is built inside the timing
    const t = process.cpuUsage(t0);
    side.ingest.push((t.user + t.system) / 1000);
    const hash = createHash('md5');
    side.search.push(
      cpu(() => {
        for (const mode of ['or', 'and', 'fallback']) {
          for (const q of queries) {
            for (const hit of index.search(q, { mode, limit: 10, storedFields: false }).hits) {
              hash.update(`${hit.id}:${hit.score.toFixed(6)};`);
            }
          }
        }
      }),
    );
    side.md5 = hash.digest('hex');
    await index.close();
  }
}
const median = (a) => [...a].sort((x, y) => x - y)[a.length >> 1];
for (const [name, s] of Object.entries(sides)) {
  console.log(
    `${name} (${s.entry}): addMany ${median(s.ingest).toFixed(0)} ms, ${queries.length * 3} searches ${median(s.search).toFixed(0)} ms (CPU medians of ${rounds}); hits MD5 ${s.md5}`,
  );
}
if (new Set(Object.values(sides).map((s) => s.md5)).size !== 1) {
  console.error('results differ');
  process.exit(1);
}
