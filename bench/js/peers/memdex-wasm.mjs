// Peer adapter: memdex compiled to WebAssembly, loaded from the repo's pkg/ (built by `make pkg`).
// Uses the low-level `Engine` class when exported, else the `Memdex` wrapper.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const info = { name: 'memdex-wasm', package: null, configs: ['english'] };
export const PKG_DIR = process.env.MEMDEX_PKG ? path.resolve(process.env.MEMDEX_PKG) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../pkg');

export function pkgEntry() {
  const pj = path.join(PKG_DIR, 'package.json');
  if (!fs.existsSync(pj)) {
    // Bare wasm-bindgen output (no package.json yet): memdex.js / index.js.
    const bare = ['index.js', 'memdex.js'].map((f) => path.join(PKG_DIR, f)).find((f) => fs.existsSync(f));
    return bare || null;
  }
  const p = JSON.parse(fs.readFileSync(pj, 'utf8'));
  let entry;
  const ex = p.exports && (p.exports['.'] ?? p.exports);
  const pick = (e) => (typeof e === 'string' ? e : e && (pick(e.node) || pick(e.import) || pick(e.default)));
  if (ex) entry = pick(ex);
  entry = entry || p.module || p.main || 'index.js';
  return path.join(PKG_DIR, entry);
}

export function notBuiltReason() {
  const e = pkgEntry();
  if (!e || !fs.existsSync(e)) return 'did not run: pkg/ not built (run make pkg)';
  return null;
}

let agentIndex = null;
let agentDir = null;

function dirSize(dir) {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? dirSize(p) : fs.statSync(p).size;
  }
  return total;
}

export async function create() {
  const reason = notBuiltReason();
  if (reason) throw Object.assign(new Error(reason), { didNotRun: true });
  // The wasm-bindgen glue (pkg/memdex.js, `--target web`) with the engine
  // class `Engine`; the `Memdex` wrapper adds only argument checks on top.
  const glue = path.join(PKG_DIR, 'memdex.js');
  const mod = await import(pathToFileURL(fs.existsSync(glue) ? glue : pkgEntry()).href);
  // The full build's wasm (the package also ships memdex-lexical_bg.wasm).
  const wasmFile = fs.existsSync(path.join(PKG_DIR, 'memdex_bg.wasm')) ? 'memdex_bg.wasm' : undefined;
  if (typeof mod.default === 'function' && wasmFile) {
    await mod.default({ module_or_path: fs.readFileSync(path.join(PKG_DIR, wasmFile)) });
  }
  let engine;
  let searchFn;
  if (mod.Engine) {
    engine = new mod.Engine(undefined);
    searchFn = (q, o) => engine.search(q, o);
  } else if (mod.Memdex) {
    engine = typeof mod.Memdex.create === 'function' ? await mod.Memdex.create() : new mod.Memdex();
    searchFn = (q, o) => engine.search(q, o);
  } else {
    throw new Error(`pkg/ exports neither Engine nor Memdex (${Object.keys(mod).join(', ')})`);
  }
  let version = null;
  try { version = JSON.parse(fs.readFileSync(path.join(PKG_DIR, 'package.json'), 'utf8')).version; } catch { version = 'pkg/ (no package.json)'; }
  return {
    version,
    async build(docs) {
      addInBatches(engine, docs);
      // Seal the write buffer: build time includes making the index searchable.
      if (typeof engine.flush === 'function') engine.flush();
    },
    // Snapshot of the whole index (`Memdex.export()` / `Memdex.import()`).
    serialize() { return Buffer.from(engine.exportSnapshot()); },
    load(buf) {
      const next = mod.Engine.importSnapshot(new Uint8Array(buf.buffer, buf.byteOffset, buf.length));
      engine.free?.();
      engine = next;
    },
    // Part by part when the package has it (`exportStream()` / `import(stream)`):
    // written to and read from the file one part at a time.
    ...(mod.SnapshotImport && {
      serializeTo(file) {
        const fd = fs.openSync(file, 'w');
        const parts = engine.exportParts();
        let bytes = 0;
        for (let part = parts.next(); part !== undefined; part = parts.next()) bytes += fs.writeSync(fd, part);
        parts.free();
        fs.closeSync(fd);
        return bytes;
      },
      loadFrom(file) {
        const reader = new mod.SnapshotImport();
        const fd = fs.openSync(file, 'r');
        const buf = Buffer.alloc(4 << 20);
        for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) reader.push(buf.subarray(0, n));
        fs.closeSync(fd);
        engine.free?.();
        engine = reader.finish();
      },
    }),
    // The harness reads ids only, and no peer returns stored text (MiniSearch
    // runs with `storeFields: []`, FlexSearch's Index returns ids): ask for
    // hits without stored fields, as a caller holding its documents would.
    // Synchronous, as the package's search is: an `async` wrapper would add
    // a promise and a microtask per query that no caller pays.
    search(q, { mode, k }) {
      return searchFn(q, { mode, limit: k, storedFields: false }).hits.map((h) => h.id);
    },
    notes: ['search with storedFields: false (ids, scores, matched terms, namespace)'],
    // Agent workload through the package's public API, as an agent would use
    // it: Memdex.open on the Node filesystem storage, add, commit. A commit
    // writes only the new segment + manifest (merges by policy), not a snapshot.
    async agentInit(workdir) {
      const node = path.join(PKG_DIR, 'node.js');
      const { Memdex } = await import(pathToFileURL(node).href);
      agentDir = path.join(workdir, 'memdex-agent');
      agentIndex = await Memdex.open({ name: 'agent', storage: 'fs', dir: agentDir, autoCommit: false });
    },
    async add(d) {
      const doc = { id: d.id, title: d.title, text: d.text };
      agentIndex.add(doc);
    },
    async commit() {
      const info = await agentIndex.commit();
      return info.bytesWritten;
    },
    async agentSearch(q, { mode, k }) {
      return agentIndex.search(q, { mode, limit: k }).hits.map((h) => h.id);
    },
    bytesOnDisk: () => dirSize(agentDir),
    commitKind: 'Memdex.commit() to fs storage (new segment blob + manifest, each fsync + rename; merges by policy)',
  };
}

/**
 * The package's bulk path (what Memdex.addMany does): JSON lines in batches
 * of 1000, one wasm call per batch; `afterBatch` runs after each call.
 */
export function addInBatches(engine, docs, afterBatch = () => {}) {
  let batch = [];
  const push = () => {
    if (batch.length) engine.addJsonLines(batch.join('\n'));
    batch = [];
    afterBatch();
  };
  for (const d of docs) {
    const doc = { id: d.id, title: d.title, text: d.text };
    for (const key of ['namespace', 'kind', 'timestamp']) if (d[key] != null) doc[key] = d[key];
    batch.push(JSON.stringify(doc));
    if (batch.length >= 1000) push();
  }
  push();
}
