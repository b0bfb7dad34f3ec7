// Memory while building, part by part: one fresh process builds the first N
// documents of the packages corpus through the package's bulk path (JSON
// lines in batches of 1000, as `addMany`), then exports the index.
// Prints one JSON object: RSS, wasm linear memory and JS heap after loading
// the documents, during and after the build, and after the export.
// Usage: node bench/js/build-peak.mjs <docs.jsonl> [whole|stream|none]
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { readJsonl, peakRssMiB } from './common.mjs';
import { PKG_DIR, addInBatches } from './peers/memdex-wasm.mjs';

const [file, exportKind = 'stream'] = process.argv.slice(2);
const MiB = 2 ** 20;
const mib = (n) => +(n / MiB).toFixed(1);
const glue = await import(pathToFileURL(path.join(PKG_DIR, 'memdex.js')).href);
const wasm = await glue.default({ module_or_path: fs.readFileSync(path.join(PKG_DIR, 'memdex_bg.wasm')) });
const rssNow = () => mib(process.memoryUsage().rss);
const sample = () => ({ rss_mib: rssNow(), peak_rss_mib: +peakRssMiB().toFixed(1), wasm_mib: mib(wasm.memory.buffer.byteLength), js_heap_mib: mib(process.memoryUsage().heapUsed) });

const out = { docs: 0, pkg: path.relative(process.cwd(), PKG_DIR), export: exportKind };
const docs = readJsonl(file);
out.docs = docs.length;
out.loaded = sample();
const engine = new glue.Engine(undefined);
const t0 = performance.now();
let peakWasm = 0;
addInBatches(engine, docs, () => {
  peakWasm = Math.max(peakWasm, wasm.memory.buffer.byteLength);
});
out.before_flush = sample();
engine.flush();
out.build_ms = +(performance.now() - t0).toFixed(0);
out.built = sample();
out.stats = JSON.parse(JSON.stringify(engine.stats()));
if (exportKind !== 'none') {
  const t1 = performance.now();
  let bytes = 0;
  if (exportKind === 'whole') {
    bytes = engine.exportSnapshot().length;
  } else {
    const parts = engine.exportParts();
    for (let part = parts.next(); part !== undefined; part = parts.next()) bytes += part.length;
    parts.free();
  }
  out.export_ms = +(performance.now() - t1).toFixed(0);
  out.export_bytes = bytes;
  out.exported = sample();
}
process.stdout.write(`${JSON.stringify(out)}\n`);
