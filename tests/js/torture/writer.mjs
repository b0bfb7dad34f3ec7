// A torture-test writer process: commits small batches of new documents to
// one fs index and prints `ack <ids>` only after the commit resolved. Modes:
// `commit` follows the documented recovery on CONFLICT by hand (reload,
// re-apply, commit again), `close` writes with auto-commit and close(),
// `update` uses index.update(fn), which does the recovery itself.
// Usage: node writer.mjs <dir> <tag> <mode: commit|close|update>
import { Memdex } from '../../../pkg/node.js';

const [dir, tag, mode] = process.argv.slice(2);
let seq = 0;
const say = (line) => process.stdout.write(`${line}\n`);

function batch() {
  const n = 1 + Math.floor(Math.random() * 3);
  return Array.from({ length: n }, () => {
    const id = `${tag}-${seq++}`;
    return { id, title: `memory ${id}`, text: `torture ${tag} document number ${seq} deploy friday rule` };
  });
}

async function commitBatch(index, docs) {
  for (let attempt = 0; ; attempt++) {
    for (const d of docs) index.add(d);
    if (Math.random() < 0.05) index.compact(); // merges: many blobs collected
    try {
      const info = await index.commit();
      say(`commit ${info.generation}`);
      return;
    } catch (err) {
      if (err.code !== 'CONFLICT' || attempt > 50) throw err;
      say('conflict');
      await index.reload();
    }
  }
}

async function closeBatch(docs) {
  // Auto-commit on, then close(): resolves only once the writes are durable.
  let index = await Memdex.open({ storage: 'fs', dir, autoCommit: { delayMs: 5 }, onError: () => {} });
  for (let attempt = 0; ; attempt++) {
    for (const d of docs) index.add(d);
    try {
      await index.close();
      say('commit close');
      return;
    } catch (err) {
      if (err.code !== 'CONFLICT' || attempt > 50) throw err;
      say('conflict');
      index.free();
      index = await Memdex.open({ storage: 'fs', dir, autoCommit: { delayMs: 5 }, onError: () => {} });
    }
  }
}

const index = mode === 'close' ? null : await Memdex.open({ storage: 'fs', dir, autoCommit: false });
for (;;) {
  const docs = batch();
  if (mode === 'update') {
    await index.update((ix) => {
      for (const d of docs) ix.add(d);
    });
    say('commit update');
  } else if (index) await commitBatch(index, docs);
  else await closeBatch(docs);
  say(`ack ${docs.map((d) => d.id).join(',')}`);
}
