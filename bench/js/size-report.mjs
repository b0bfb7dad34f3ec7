// Where each build's bytes go. For every build of the given packages: the
// shipped wasm and browser JS bundle (gzip -9 and brotli q11), the wasm's
// code and data by area, and its 20 largest items with what each buys,
// from twiggy over the optimized wasm with its names kept
// (target/size/<pkg dir>/, written by scripts/build-pkg: the same module as
// the shipped one plus its name section).
//
//   node bench/js/size-report.mjs [PKG_DIR ...]   default: pkg
//
// Writes bench/results/tables/wasm-size.json, wasm-areas.json and
// wasm-top.json; then `node bench/js/report.mjs`. Needs twiggy
// (~/.cargo/bin/twiggy, `cargo install twiggy`).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { writeTable } from './report-table.mjs';
import { AREAS, areaOf, shortName, whatItBuys } from './size-areas.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TABLES = path.join(ROOT, 'bench/results/tables');
const TWIGGY = process.env.TWIGGY || path.join(homedir(), '.cargo/bin/twiggy');
const gz = (b) => gzipSync(b, { level: 9 }).length;
const br = (b) => brotliCompressSync(b, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

const dirs = process.argv.slice(2);
if (!dirs.length) dirs.push('pkg');

/** The builds a package directory holds: label, wasm file and browser entry. */
function buildsOf(dir) {
  const english = path.basename(dir) === 'pkg-english';
  const builds = [{ label: english ? 'English only, full' : 'full (every language)', wasm: 'memdex_bg.wasm', entry: 'index.js' }];
  if (existsSync(path.join(ROOT, dir, 'memdex-english_bg.wasm'))) {
    builds.push({ label: 'English, full (the browser entry first)', wasm: 'memdex-english_bg.wasm', entry: 'index.js' });
  }
  if (existsSync(path.join(ROOT, dir, 'memdex-lexical_bg.wasm'))) {
    builds.push({ label: 'lexical (English)', wasm: 'memdex-lexical_bg.wasm', entry: 'lexical.js' });
  }
  return builds.map((b) => ({ ...b, dir, named: path.join(ROOT, 'target/size', path.basename(dir), b.wasm) }));
}

async function bundle(dir, entry) {
  const r = await build({
    // As scripts/check-size.mjs bundles it, so that the figures agree.
    stdin: { contents: `import * as m from ${JSON.stringify(path.join(ROOT, dir, entry))}; globalThis.__memdex = m;`, resolveDir: path.join(ROOT, dir), loader: 'js' },
    bundle: true, minify: true, format: 'esm', platform: 'browser', write: false, logLevel: 'silent', external: ['*.wasm'],
  });
  return Buffer.concat(r.outputFiles.map((f) => Buffer.from(f.contents)));
}

/** The wasm's sections (id 10 = code, 11 = data) as byte ranges. @param {Buffer} b */
function sections(b) {
  const out = {};
  for (let at = 8; at < b.length; ) {
    const id = b[at++];
    let size = 0;
    for (let shift = 0; ; shift += 7) {
      const byte = b[at++];
      size += (byte & 0x7f) * 2 ** shift;
      if (byte < 0x80) break;
    }
    out[id] = b.subarray(at, at + size);
    at += size;
  }
  return out;
}

/** twiggy's items of the named wasm: [{ name, shallow_size }], shipped items only (no name section). */
function items(named) {
  const all = JSON.parse(execFileSync(TWIGGY, ['top', '--format', 'json', named], { encoding: 'utf8', maxBuffer: 1 << 28 }));
  return all.filter((i) => !/^"(function|data|local) names" subsection$/.test(i.name));
}

const builds = dirs.flatMap(buildsOf);
const missing = builds.filter((b) => !existsSync(b.named));
if (missing.length) {
  console.error(`size-report: ${missing.map((b) => b.named).join(', ')} missing; run scripts/build-pkg (MEMDEX_PKG_DIR=... for another dir)`);
  process.exit(1);
}

const sizeRows = [];
const measured = [];
for (const b of builds) {
  const wasm = readFileSync(path.join(ROOT, b.dir, b.wasm));
  const js = await bundle(b.dir, b.entry);
  const s = sections(wasm);
  const its = items(b.named);
  const byArea = new Map(AREAS.map((a) => [a.name, 0]));
  for (const i of its) byArea.set(areaOf(i.name), byArea.get(areaOf(i.name)) + i.shallow_size);
  measured.push({ ...b, its, byArea, code: s[10], data: s[11] });
  const w = [wasm.length, gz(wasm), br(wasm)];
  const j = [js.length, gz(js), br(js)];
  sizeRows.push(
    [b.label, `wasm (\`${b.wasm}\`)`, ...w],
    [b.label, `browser JS bundle (\`${b.entry}\`)`, ...j],
    [b.label, '**total**', ...w.map((x, i) => x + j[i])],
  );
  console.log(`${b.label}: wasm ${w.join(' / ')}, JS ${j.join(' / ')} (raw / gzip -9 / brotli)`);
}

const date = new Date().toISOString().slice(0, 16).replace('T', ' ');
const machine = '2 shared cores';
const command = `scripts/build-pkg${dirs.includes('pkg-english') ? ' && make pkg-english' : ''}, then node bench/js/size-report.mjs ${dirs.join(' ')}`;
const bytes = (name) => ({ name, align: 'right', group: true });

writeTable(TABLES, {
  workload: 'wasm-size',
  title: "The package's own bytes",
  what: "The package's bytes per build: the wasm and the browser JS bundle of the build's entry (esbuild, minified, one file), gzip -9 (what `make test`'s size gate, `scripts/size-budget.json`, holds per build) and brotli (quality 11), as a server would send them. The package ships the full build (`memdex`) as two wasm files, the English one its browser entry loads first and the one with every language it switches to when an index needs another language, and the lexical build (`memdex/lexical`: English, no vector, hybrid or link search).",
  command, date, machine,
  columns: ['build', 'part', bytes('raw bytes'), bytes('gzip -9'), bytes('brotli')],
  rows: sizeRows,
  notes: ['Issue 32 asks for the lexical build within 150 KB (wasm + JS, gzip -9) and the full one within 250 KB. Where the bytes are: the two tables below. What moved the gated figures, change by change: `bench/HISTORY.md`.'],
});

const sectionNote = measured
  .map((m) => `${m.label}: code section ${m.code.length.toLocaleString('en')} B raw, ${gz(m.code).toLocaleString('en')} B gzipped alone; data section ${m.data.length.toLocaleString('en')} B, ${gz(m.data).toLocaleString('en')} B gzipped alone`)
  .join('; ');
writeTable(TABLES, {
  workload: 'wasm-areas',
  title: 'Where the wasm bytes are, by area',
  what: "Every function body and data segment of each build's wasm, raw bytes (twiggy's shallow sizes) summed by the code they belong to. wasm-opt inlines small functions into their callers, so an area holds what was inlined into it (the JS-binding shims carry the engine calls they wrap).",
  command, date, machine,
  columns: ['area', 'what it is', ...measured.map((m) => bytes(m.label))],
  rows: AREAS.map((a) => [a.name, a.what, ...measured.map((m) => m.byArea.get(a.name))]).filter((r) => r.slice(2).some((x) => x > 0)),
  notes: [`Sections: ${sectionNote}.`],
});

const TOP = 20;
const topRows = [];
// The package's own builds (an English-only full build differs from the
// full one by its stemmers alone, which the areas table shows).
for (const m of measured.filter((x) => x.dir !== 'pkg-english' && x.wasm !== 'memdex-english_bg.wasm')) {
  const top = [...m.its].sort((a, b) => b.shallow_size - a.shallow_size).slice(0, TOP);
  top.forEach((i, k) => topRows.push([m.label, k + 1, `\`${shortName(i.name)}\``, i.shallow_size, whatItBuys(i.name)]));
}
writeTable(TABLES, {
  workload: 'wasm-top',
  title: `The ${TOP} largest items of each build`,
  what: 'The largest function bodies and data segments of each wasm (twiggy, names kept; raw bytes) and what each buys. Function names are those left after inlining: an item is its own code plus what was inlined into it.',
  command, date, machine,
  columns: ['build', bytes('#'), 'item', bytes('raw bytes'), 'what it buys'],
  rows: topRows,
});
console.log(`size-report: wrote wasm-size, wasm-areas and wasm-top to ${path.relative(ROOT, TABLES)}; now node bench/js/report.mjs`);
