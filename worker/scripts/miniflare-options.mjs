// The Miniflare configuration of the memdex Worker, shared by `make worker`
// (worker/scripts/dev.mjs), the tests and the benchmarks, so all of them run
// exactly what worker/wrangler.toml declares: the same entry module,
// bindings and Durable Object classes.
//
// No network: `cf: false` stops Miniflare fetching its request.cf fixture
// from workers.cloudflare.com; telemetry is off.
import { workerModules, BUNDLE_ROOT } from './bundle.mjs';
import { ROOT } from './paths.mjs';

export { ROOT };
export const COMPATIBILITY_DATE = '2026-04-01';

/**
 * Options of one Worker (an isolate of its own).
 *
 * @param {object} o
 * @param {string} [o.name]  worker name (several workers: several isolates)
 * @param {Record<string, string>} [o.vars]  MEMDEX_* variables and secrets
 * @param {string} [o.writerScript]  name of the worker that defines the Durable Objects (default: this one)
 */
export function workerOptions({ name = 'memdex', vars = {}, writerScript } = {}) {
  const durable = (className) => (writerScript ? { className, scriptName: writerScript, useSQLite: true } : { className, useSQLite: true });
  return {
    name,
    // As wrangler deploys it: bundled, the wasm a compiled module (bundle.mjs).
    modules: workerModules(),
    modulesRoot: BUNDLE_ROOT,
    compatibilityDate: COMPATIBILITY_DATE,
    kvNamespaces: { MEMDEX_KV: 'memdex-kv' },
    durableObjects: { MEMDEX_WRITER: durable('NamespaceWriter'), MEMDEX_REGISTRY: durable('Registry') },
    bindings: vars,
  };
}

/**
 * Options of a whole Miniflare instance.
 *
 * @param {object} o
 * @param {string} [o.persist]  folder for KV and Durable Object state (absent: in memory)
 * @param {number} [o.port]
 * @param {string} [o.host]
 * @param {object[]} [o.workers]  workerOptions() results; default one worker
 * @param {Record<string, string>} [o.vars]
 */
export function miniflareOptions({ persist, port, host = '127.0.0.1', workers, vars } = {}) {
  const shared = {
    host,
    port,
    cf: false,
    telemetry: { enabled: false },
    ...(persist ? { kvPersist: `${persist}/kv`, durableObjectsPersist: `${persist}/do` } : {}),
  };
  const list = workers ?? [workerOptions({ vars })];
  return list.length === 1 ? { ...shared, ...list[0] } : { ...shared, workers: list };
}

/** Parses a .dev.vars file (KEY=value lines, # comments, optional quotes). */
export function parseDevVars(text) {
  const out = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!m || line.trim().startsWith('#')) continue;
    let v = m[2];
    if ((v.startsWith("'") && v.endsWith("'")) || (v.startsWith('"') && v.endsWith('"'))) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}
