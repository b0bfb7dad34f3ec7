// The size gate of `make test`: per build of the package, the gzipped wasm
// and the gzipped browser JS bundle (esbuild: bundle + minify of the build's
// browser entry, as an app would ship it) must stay within
// scripts/size-budget.json. Raising a budget is a visible diff in review;
// the measure is the one `make -C bench size` reports for memdex. Brotli
// (quality 11) is printed beside, not gated.
//
//   node scripts/check-size.mjs [PKG_DIR]     (default pkg/, built by make pkg)
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = resolve(process.argv[2] ?? join(root, 'pkg'));
const budget = JSON.parse(readFileSync(join(root, 'scripts/size-budget.json'), 'utf8'));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const br = (bytes) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;

/** The builds a package ships: the wasm and the browser entry of each. */
export const BUILDS = [
  { name: 'full', wasm: 'memdex_bg.wasm', entry: 'index.js' },
  // What the browser entry loads while every index is in English (languages.js).
  { name: 'english', wasm: 'memdex-english_bg.wasm', entry: 'index.js' },
  { name: 'lexical', wasm: 'memdex-lexical_bg.wasm', entry: 'lexical.js' },
];

/** The browser bundle of `entry` (esbuild, minified, the wasm left out). @param {string} entry */
async function bundle(entry) {
  const bundled = await build({
    stdin: { contents: `import * as m from ${JSON.stringify(join(pkg, entry))}; globalThis.__memdex = m;`, resolveDir: pkg, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
    external: ['*.wasm'],
  });
  return Buffer.concat(bundled.outputFiles.map((f) => Buffer.from(f.contents)));
}

let over = 0;
for (const b of BUILDS) {
  const limits = budget[b.name];
  if (!existsSync(join(pkg, b.wasm))) {
    console.log(`OVER ${b.name}: ${b.wasm} is missing from ${pkg} (scripts/build-pkg builds every one; MEMDEX_ENGLISH=0 and MEMDEX_LEXICAL=0 skip the extra ones)`);
    over++;
    continue;
  }
  const wasm = readFileSync(join(pkg, b.wasm));
  const js = await bundle(b.entry);
  for (const [what, bytes, limit] of [
    [`wasm (gzip -9)`, wasm, limits.wasmGzip],
    [`browser JS bundle (esbuild, minified, gzip -9)`, js, limits.browserJsGzip],
  ]) {
    const got = gz(bytes);
    const ok = got <= limit;
    if (!ok) over++;
    const spare = ok ? `${limit - got} to spare` : `${got - limit} over`;
    console.log(`${ok ? 'ok  ' : 'OVER'} ${b.name} ${what}: ${got} bytes (budget ${limit}, ${spare}; brotli ${br(bytes)})`);
  }
}
if (over) {
  console.error('check-size: over budget. Shrink the change, or raise scripts/size-budget.json in the same commit and say why.');
  process.exit(1);
}
