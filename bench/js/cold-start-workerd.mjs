// workerd side of bench/js/cold-start.mjs: a minimal Worker bundled from a
// package build's `workerd` entry, as wrangler bundles it (the wasm a
// compiled module, the index snapshot a data module), each run in a fresh
// Miniflare (a new workerd process, so a new isolate). Timed from Node:
// startup (to `ready`: the script's evaluation and the wasm's compile, less
// the same for an empty Worker), the first request (instantiate the wasm,
// load the snapshot, search, answer) and the next one.
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { Miniflare } from 'miniflare';
import { readFileSync } from 'node:fs';

const ROOT = '/bundle'; // module names only: nothing is written there
const COMPATIBILITY_DATE = '2026-04-01';

/**
 * The memdex Worker's modules for `pkgDir`: it answers `?q=` with the ids
 * of the top hits of the snapshot.
 * @param {string} pkgDir
 * @param {{ workerd: string, wasm: string }} files the build's workerd entry and wasm
 * @param {Uint8Array} snapshot
 */
function memdexModules(pkgDir, files, snapshot) {
  const source = `import { Memdex } from ${JSON.stringify(join(pkgDir, files.workerd))};
import snapshot from './index.bin';
let index;
export default {
  async fetch(request) {
    index ??= await Memdex.import(new Uint8Array(snapshot));
    const { hits } = index.search(new URL(request.url).searchParams.get('q') ?? '');
    return Response.json(hits.map((h) => h.id));
  },
};`;
  const out = buildSync({
    stdin: { contents: source, resolveDir: pkgDir, sourcefile: 'worker.js', loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    external: ['*.wasm', '*.bin'],
    outfile: `${ROOT}/index.js`,
    logLevel: 'silent',
  });
  return [
    { type: 'ESModule', path: `${ROOT}/index.js`, contents: out.outputFiles[0].text },
    { type: 'CompiledWasm', path: `${ROOT}/${files.wasm}`, contents: readFileSync(join(pkgDir, files.wasm)) },
    { type: 'Data', path: `${ROOT}/index.bin`, contents: snapshot },
  ];
}

const EMPTY = [{ type: 'ESModule', path: `${ROOT}/index.js`, contents: 'export default { fetch: () => Response.json([]) };' }];

/** Milliseconds `fn` takes. */
async function timed(fn) {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

/** One fresh workerd: its startup, first and second request. */
async function once(modules, query) {
  const { ms: readyMs, value: mf } = await timed(async () => {
    const m = new Miniflare({ modules, modulesRoot: ROOT, compatibilityDate: COMPATIBILITY_DATE, cf: false, telemetry: { enabled: false } });
    await m.ready;
    return m;
  });
  try {
    const ask = () => mf.dispatchFetch(`http://localhost/?q=${encodeURIComponent(query)}`).then((r) => r.json());
    const first = await timed(ask);
    const next = await timed(ask);
    return { readyMs, firstMs: first.ms, nextMs: next.ms, hits: first.value.length };
  } finally {
    await mf.dispose();
  }
}

/**
 * Runs of the memdex Worker and of an empty Worker, alternated so machine
 * load hits both alike.
 * @param {{ pkgDir: string, files: { workerd: string, wasm: string }, snapshot: Uint8Array, query: string, runs: number }} o
 */
export async function workerdColdStart({ pkgDir, files, snapshot, query, runs }) {
  const modules = memdexModules(pkgDir, files, snapshot);
  const memdex = [];
  const empty = [];
  for (let i = 0; i < runs; i++) {
    memdex.push(await once(modules, query));
    empty.push(await once(EMPTY, query));
  }
  return { memdex, empty };
}
