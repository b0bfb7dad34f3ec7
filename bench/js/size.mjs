// Measures the gzipped bytes each peer adds to a browser bundle: esbuild (bundle, minify,
// platform=browser, ESM) of a tiny entry that imports what the benchmark uses, gzip level 9.
// "core" = the library alone; "english" = plus its English stemmer/stopwords as configured here.
// Wasm peers add their .wasm file, gzipped separately. memdex = pkg/ JS entry bundled + pkg/memdex_bg.wasm.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { createRequire } from 'node:module';
import { BENCH } from './prepare-data.mjs';
import { pkgEntry, notBuiltReason, PKG_DIR } from './peers/memdex-wasm.mjs';

const require = createRequire(import.meta.url);
const gz = (buf) => zlib.gzipSync(buf, { level: 9 }).length;

const ENTRIES = {
  minisearch: {
    core: "import MiniSearch from 'minisearch'; globalThis.__x = MiniSearch;",
    english: "import MiniSearch from 'minisearch'; import { stemmer } from 'stemmer'; import { stopwords } from '@orama/stopwords/english'; globalThis.__x = [MiniSearch, stemmer, stopwords];",
  },
  flexsearch: {
    core: "import { Index, Encoder } from 'flexsearch'; globalThis.__x = [Index, Encoder];",
    english: "import { Index, Encoder } from 'flexsearch'; import En from 'flexsearch/lang/en'; globalThis.__x = [Index, Encoder, En];",
  },
  orama: {
    core: "import { create, insert, insertMultiple, search, save, load } from '@orama/orama'; globalThis.__x = [create, insert, insertMultiple, search, save, load];",
    english: "import { create, insert, insertMultiple, search, save, load } from '@orama/orama'; import { stemmer } from '@orama/stemmers/english'; import { stopwords } from '@orama/stopwords/english'; globalThis.__x = [create, insert, insertMultiple, search, save, load, stemmer, stopwords];",
  },
  lunr: {
    core: "import lunr from 'lunr'; globalThis.__x = lunr;",
    english: "import lunr from 'lunr'; globalThis.__x = lunr;",
  },
  'sqlite-fts5': {
    core: "import init from '@sqlite.org/sqlite-wasm'; globalThis.__x = init;",
    english: "import init from '@sqlite.org/sqlite-wasm'; globalThis.__x = init;",
    wasm: () => path.join(path.dirname(require.resolve('@sqlite.org/sqlite-wasm/package.json')), 'dist/sqlite3.wasm'),
  },
};

async function bundle(contents, resolveDir) {
  const esbuild = await import('esbuild');
  const r = await esbuild.build({
    stdin: { contents, resolveDir, loader: 'js' }, bundle: true, minify: true, format: 'esm', platform: 'browser',
    write: false, logLevel: 'silent', external: ['*.wasm'],
  });
  return Buffer.concat(r.outputFiles.map((f) => Buffer.from(f.contents)));
}

export async function measureSizes() {
  const esbuildVersion = require('esbuild/package.json').version;
  const rows = [];
  const reason = notBuiltReason();
  if (reason) rows.push({ peer: 'memdex-wasm', dnf: reason });
  else {
    // The browser entry (the `browser` export condition), not Node's.
    const browserEntry = path.join(PKG_DIR, 'index.js');
    const entry = fs.existsSync(browserEntry) ? browserEntry : pkgEntry();
    const js = await bundle(`import * as m from ${JSON.stringify(entry)}; globalThis.__x = m;`, PKG_DIR);
    // The full build's wasm (the package also ships the lexical build's; BENCHMARKS.md "The package's own bytes").
    const wasmFiles = ['memdex_bg.wasm'];
    const wasmGz = wasmFiles.reduce((s, f) => s + gz(fs.readFileSync(path.join(PKG_DIR, String(f)))), 0);
    const jsGz = gz(js);
    rows.push({ peer: 'memdex-wasm', version: JSON.parse(fs.readFileSync(path.join(PKG_DIR, 'package.json'), 'utf8')).version, js_gz: jsGz, wasm_gz: wasmGz, core_gz: jsGz + wasmGz, english_gz: jsGz + wasmGz, wasm_files: wasmFiles });
  }
  for (const [peer, e] of Object.entries(ENTRIES)) {
    try {
      const core = gz(await bundle(e.core, BENCH));
      const english = gz(await bundle(e.english, BENCH));
      const wasmGz = e.wasm ? gz(fs.readFileSync(e.wasm())) : 0;
      const pkgName = { minisearch: 'minisearch', flexsearch: 'flexsearch', orama: '@orama/orama', lunr: 'lunr', 'sqlite-fts5': '@sqlite.org/sqlite-wasm' }[peer];
      let version = null;
      try { version = JSON.parse(fs.readFileSync(path.join(BENCH, 'node_modules', pkgName, 'package.json'), 'utf8')).version; } catch {}
      rows.push({ peer, version, js_core_gz: core, js_english_gz: english, wasm_gz: wasmGz, core_gz: core + wasmGz, english_gz: english + wasmGz });
    } catch (err) {
      rows.push({ peer, dnf: `bundle failed: ${String(err.message).slice(0, 300)}` });
    }
  }
  rows.push({ peer: 'tantivy', dnf: 'native only (no browser build)' });
  return rows.map((r) => ({ ...r, esbuild: esbuildVersion }));
}

if (process.argv[1] && process.argv[1].endsWith('size.mjs')) console.log(JSON.stringify(await measureSizes(), null, 1));
