// The size gate of `make test`: the gzipped wasm and the gzipped browser JS
// bundle (esbuild: bundle + minify of the package's browser entry, as an app
// would ship it) must stay within scripts/size-budget.json. Raising a budget
// is a visible diff in review; the measure is the one `make -C bench size`
// reports for memdex.
//
//   node scripts/check-size.mjs [PKG_DIR]     (default pkg/, built by make pkg)
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = resolve(new URL('..', import.meta.url).pathname);
const pkg = resolve(process.argv[2] ?? join(root, 'pkg'));
const budget = JSON.parse(readFileSync(join(root, 'scripts/size-budget.json'), 'utf8'));
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;

const wasm = readdirSync(pkg).filter((f) => f.endsWith('.wasm'));
const wasmGzip = wasm.reduce((sum, f) => sum + gz(readFileSync(join(pkg, f))), 0);
const bundled = await build({
  stdin: { contents: `import * as m from ${JSON.stringify(join(pkg, 'index.js'))}; globalThis.__memdex = m;`, resolveDir: pkg, loader: 'js' },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'browser',
  write: false,
  logLevel: 'silent',
  external: ['*.wasm'],
});
const jsGzip = gz(Buffer.concat(bundled.outputFiles.map((f) => Buffer.from(f.contents))));

let over = 0;
for (const [what, got, limit] of [
  ['wasm (gzip -9)', wasmGzip, budget.wasmGzip],
  ['browser JS bundle (esbuild, minified, gzip -9)', jsGzip, budget.browserJsGzip],
]) {
  const ok = got <= limit;
  if (!ok) over++;
  console.log(`${ok ? 'ok  ' : 'OVER'} ${what}: ${got} bytes (budget ${limit}, ${ok ? `${limit - got} to spare` : `${got - limit} over`})`);
}
if (over) {
  console.error('check-size: over budget. Shrink the change, or raise scripts/size-budget.json in the same commit and say why.');
  process.exit(1);
}
