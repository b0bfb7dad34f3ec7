// The Worker as workerd runs it: worker/src bundled with esbuild the way
// `wrangler deploy` bundles it (bare `memdex` imports resolved from
// worker/node_modules through the package's `workerd` export condition;
// `.wasm` imports kept as CompiledWasm modules beside the bundle). In
// memory, so test processes running side by side never share a file.
import { readFileSync } from 'node:fs';
import { buildSync } from 'esbuild';
import { installMemdex } from './install-memdex.mjs';
import { ROOT } from './paths.mjs';

/** Where the modules "live" (names only: nothing is written there). */
export const BUNDLE_ROOT = `${ROOT}/target/worker-bundle`;

/**
 * Miniflare `modules` of a bundle: its code and the engine's wasm.
 *
 * @param {{ entry?: string, stdin?: { contents: string, resolveDir: string, sourcefile: string } }} source
 */
export function bundleModules({ entry, stdin }) {
  const pkgDir = installMemdex();
  const out = buildSync({
    ...(entry ? { entryPoints: [entry] } : { stdin: { ...stdin, loader: 'js' } }),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    conditions: ['workerd', 'worker', 'browser'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*', '*.wasm'],
    outfile: `${BUNDLE_ROOT}/index.js`,
    logLevel: 'silent',
  });
  return [
    { type: 'ESModule', path: `${BUNDLE_ROOT}/index.js`, contents: out.outputFiles[0].text },
    { type: 'CompiledWasm', path: `${BUNDLE_ROOT}/memdex_bg.wasm`, contents: readFileSync(`${pkgDir}/memdex_bg.wasm`) },
  ];
}

/** @type {ReturnType<typeof bundleModules> | undefined} */
let cached;

/** Miniflare `modules` of the memdex Worker (bundled once per process). */
export const workerModules = () => (cached ??= bundleModules({ entry: `${ROOT}/worker/src/index.js` }));
