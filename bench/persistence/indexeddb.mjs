// Measures memdex persistence in IndexedDB, in headless Chromium (the
// package's Memdex class from pkg/, IndexedDB adapter pkg/storage/indexeddb.js, durability 'strict'):
// for an index of the first N documents (default 100k) of
// ../shared/data/packages/corpus.jsonl.gz (title, text, kind, namespace,
// timestamp; `_id` -> `id`):
// - time and bytes of the first (full) commit, stored bytes per document;
// - time and bytes of committing ONE more document, vs. total stored bytes,
//   for 5 successive one-doc commits;
// - time to reopen the index (`Memdex.open`) through a new
//   IndexedDB connection, median of 5, split into IDB read time (get of every
//   stored key) and decode time (the same reopen from an in-memory copy).
//
// make pkg && node bench/persistence/indexeddb.mjs [N]
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

const N = Number(process.argv[2] ?? 100_000);
const CORPUS = process.env.CORPUS ?? '/work/shared/data/packages/corpus.jsonl.gz';
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

const lines = execFileSync('sh', ['-c', `gzip -dc '${CORPUS}' | head -n ${N}`], { maxBuffer: 1 << 30, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean);
const docs = lines.map((l) => {
  const { _id, ...rest } = JSON.parse(l);
  return { id: _id, ...rest };
});
const docsJson = JSON.stringify(docs);

const { server, url } = await startServer({ port: 0, host: '127.0.0.1' });
const base = url.replace('localhost', '127.0.0.1');
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ARGS });
try {
  const page = await browser.newPage();
  page.on('console', (m) => console.log('[page]', m.text()));
  await page.route('**/__bench/page.html', (r) => r.fulfill({ contentType: 'text/html', body: '<!doctype html><title>bench</title>' }));
  await page.route('**/__bench/docs.json', (r) => r.fulfill({ contentType: 'application/json', body: docsJson }));
  await page.goto(new URL('/__bench/page.html', base).href);
  const result = await page.evaluate(async () => {
    // Through the package's Memdex class, as an app persists: the commit
    // protocol stays inside it.
    const { Memdex } = await import('/pkg/index.js');
    const { indexedDBStorage } = await import('/pkg/storage/indexeddb.js');
    const { memoryStorage } = await import('/pkg/storage/memory.js');
    const out = {};
    const now = () => performance.now();
    const median = (v) => [...v].sort((a, b) => a - b)[v.length >> 1];
    const docs = await (await fetch('/__bench/docs.json')).json();
    const DB = 'memdex-bench';
    await indexedDBStorage({ database: DB }).deleteDatabase();

    const storage = indexedDBStorage({ database: DB });
    const index = await Memdex.open({ storage, name: 'idx', autoCommit: false });
    let t = now();
    await index.addMany(docs);
    out.docs = index.stats().documents; // flushes: the segment is built
    out.buildMs = now() - t;

    const storedBytes = async (s) => {
      let total = 0;
      for (const k of await s.list('idx/')) total += (await s.get(k)).byteLength;
      return total;
    };
    t = now();
    const full = await index.commit();
    out.fullCommit = { ms: now() - t, ...full };
    out.storedBytes = await storedBytes(storage);
    out.bytesPerDoc = out.storedBytes / out.docs;

    out.oneDoc = [];
    for (let i = 0; i < 5; i++) {
      index.add({ id: `bench-new-${i}`, title: `new memory ${i}`, text: 'the agent decided to deploy the quokka service on monday after the tests passed', kind: 'note', namespace: 'ns1', timestamp: '2026-11-22T00:00:00Z' });
      t = now();
      const info = await index.commit();
      const ms = now() - t;
      const total = await storedBytes(storage);
      out.oneDoc.push({ ms, ...info, storedBytes: total, percent: (100 * info.bytesWritten) / total });
    }
    const want = index.search('python http client').hits.map((h) => h.id);
    const size = index.stats().documents;
    await index.close();

    const open = [], read = [], decode = [], firstConnect = [];
    for (let i = 0; i < 5; i++) {
      const s = indexedDBStorage({ database: DB });
      t = now();
      await s.list('idx/manifest'); // opens the connection
      firstConnect.push(now() - t);
      t = now();
      const reopened = await Memdex.open({ storage: s, name: 'idx', autoCommit: false });
      open.push(now() - t);
      if (reopened.stats().documents !== size) throw new Error('reopened size differs');
      const got = reopened.search('python http client').hits.map((h) => h.id);
      if (JSON.stringify(got) !== JSON.stringify(want)) throw new Error('reopened results differ');
      await reopened.close();
      // Breakdown: raw reads of every stored key, then decode from memory.
      const mem = memoryStorage();
      const s2 = indexedDBStorage({ database: DB });
      t = now();
      const keys = await s2.list('idx/');
      const values = [];
      for (const k of keys) values.push(await s2.get(k));
      read.push(now() - t);
      for (let j = 0; j < keys.length; j++) await mem.put(keys[j], values[j]);
      t = now();
      const fromMemory = await Memdex.open({ storage: mem, name: 'idx', autoCommit: false });
      decode.push(now() - t);
      await fromMemory.close();
      await s2.close();
    }
    out.reopen = { medianMs: median(open), idbReadMs: median(read), decodeMs: median(decode), connectMs: median(firstConnect), runs: open };
    await indexedDBStorage({ database: DB }).deleteDatabase();
    return out;
  });
  console.log(JSON.stringify(result, null, 2));
  console.log(`chromium ${browser.version()}  date ${new Date().toISOString()}`);
} finally {
  await browser.close();
  server.close();
}
