// Measures what tombstones cost queries: CPU µs per query (2000 queries, two
// passes, OR and AND, top 10, no stored fields) on 100k `packages` documents,
// first as built, then after 1% of them were upserted (re-added with the same
// id: a tombstone each in the big segment, the new copies in a second one).
// Usage: node js/upserts.mjs [PKG_DIR...] (default: the repo's pkg/).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgs = process.argv.length > 2 ? process.argv.slice(2) : [path.join(here, '..', '..', 'pkg')];
const data = (f) => path.join(here, '..', '.data', f);
const docs = fs.readFileSync(data('packages-100000.jsonl'), 'utf8').trim().split('\n');
const queries = fs.readFileSync(data('packages-queries-2000.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l).text);
const cpuUs = () => { const u = process.cpuUsage(); return u.user + u.system; };

for (const dir of pkgs) {
  const mod = await import(path.resolve(dir, 'memdex.js'));
  await mod.default({ module_or_path: fs.readFileSync(path.resolve(dir, 'memdex_bg.wasm')) });
  const engine = new mod.Engine(undefined);
  for (let i = 0; i < docs.length; i += 1000) engine.addJsonLines(docs.slice(i, i + 1000).join('\n'));
  engine.flush();
  const row = {};
  for (const stage of ['as built', '1% upserted']) {
    if (stage !== 'as built') {
      for (let i = 0; i < docs.length; i += 100) engine.addJsonLines(docs[i]);
      engine.flush();
    }
    for (const mode of ['or', 'and']) {
      const start = cpuUs();
      for (let pass = 0; pass < 2; pass++) for (const q of queries) engine.search(q, { mode, limit: 10, storedFields: false });
      row[`${stage}, ${mode}`] = +((cpuUs() - start) / (2 * queries.length)).toFixed(1);
    }
  }
  console.log(dir, JSON.stringify(row), `segments ${engine.stats().segments}`);
}
