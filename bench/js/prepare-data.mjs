// Prepares normalized inputs for the peers (no measurement): bench/.data/
//   packages-<N>.jsonl  first N docs of packages/corpus.jsonl.gz as {id,title,text,kind,namespace,timestamp}
//   packages-queries-<M>.jsonl  first M lines of packages/queries.txt as {id,text}
//   <collection>-docs.jsonl / <collection>-queries.jsonl  for cranfield and cisi (BEIR layout in).
// Idempotent: existing outputs are kept.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const BENCH = path.resolve(HERE, '..');
export const DATA_IN = process.env.MEMDEX_DATA || path.resolve(BENCH, '../../shared/data');
export const DATA_OUT = path.join(BENCH, '.data');

export async function preparePackages(n) {
  fs.mkdirSync(DATA_OUT, { recursive: true });
  const label = n === Infinity ? 'all' : String(n);
  const out = path.join(DATA_OUT, `packages-${label}.jsonl`);
  if (fs.existsSync(out)) return out;
  const tmp = `${out}.tmp`;
  const ws = fs.createWriteStream(tmp);
  const rl = readline.createInterface({
    input: fs.createReadStream(path.join(DATA_IN, 'packages/corpus.jsonl.gz')).pipe(zlib.createGunzip()),
    crlfDelay: Infinity,
  });
  let count = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    const d = JSON.parse(line);
    const rec = { id: d._id, title: d.title ?? '', text: d.text ?? '', kind: d.kind, namespace: d.namespace, timestamp: d.timestamp };
    if (!ws.write(JSON.stringify(rec) + '\n')) await new Promise((r) => ws.once('drain', r));
    if (++count >= n) break;
  }
  rl.close();
  await new Promise((r) => ws.end(r));
  fs.renameSync(tmp, out);
  return out;
}

export function preparePackageQueries(m) {
  fs.mkdirSync(DATA_OUT, { recursive: true });
  const out = path.join(DATA_OUT, `packages-queries-${m}.jsonl`);
  if (fs.existsSync(out)) return out;
  const lines = fs.readFileSync(path.join(DATA_IN, 'packages/queries.txt'), 'utf8').split('\n').filter((l) => l.trim());
  fs.writeFileSync(out, lines.slice(0, m).map((t, i) => JSON.stringify({ id: `q${i + 1}`, text: t })).join('\n') + '\n');
  return out;
}

export function prepareCollection(name) {
  fs.mkdirSync(DATA_OUT, { recursive: true });
  const docsOut = path.join(DATA_OUT, `${name}-docs.jsonl`);
  const qOut = path.join(DATA_OUT, `${name}-queries.jsonl`);
  const dir = path.join(DATA_IN, name);
  if (!fs.existsSync(docsOut)) {
    const lines = fs.readFileSync(path.join(dir, 'corpus.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    fs.writeFileSync(docsOut, lines.map((l) => { const d = JSON.parse(l); return JSON.stringify({ id: String(d._id), title: d.title ?? '', text: d.text ?? '' }); }).join('\n') + '\n');
  }
  if (!fs.existsSync(qOut)) {
    const lines = fs.readFileSync(path.join(dir, 'queries.jsonl'), 'utf8').split('\n').filter((l) => l.trim());
    fs.writeFileSync(qOut, lines.map((l) => { const q = JSON.parse(l); return JSON.stringify({ id: String(q._id), text: q.text ?? '' }); }).join('\n') + '\n');
  }
  return { docs: docsOut, queries: qOut, qrels: path.join(dir, 'qrels.tsv') };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const n = process.argv[2] === 'all' ? Infinity : Number(process.argv[2] || 20000);
  console.log(await preparePackages(n));
  console.log(preparePackageQueries(Number(process.argv[3] || 2000)));
  for (const c of ['cranfield', 'cisi']) console.log(prepareCollection(c));
}
