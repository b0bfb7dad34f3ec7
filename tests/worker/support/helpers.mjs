// Shared by the worker tests: starts the memdex Worker in workerd (Miniflare,
// the configuration `make worker` uses) with generated API keys, and calls
// it over real HTTP. Not a test file (node --test runs only *.test.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { Miniflare } from 'miniflare';
import { COMPATIBILITY_DATE, ROOT, miniflareOptions, workerOptions } from '../../../worker/scripts/miniflare-options.mjs';
import { BUNDLE_ROOT, bundleModules } from '../../../worker/scripts/bundle.mjs';
import { newKey } from '../../../worker/scripts/key.mjs';

/**
 * Makes keys: `specs` maps a label to `{ namespaces, role, ...extra }`.
 * Returns `{ keys: label -> key, secret: MEMDEX_API_KEYS }`.
 */
export async function makeKeys(specs) {
  const keys = {};
  const entries = [];
  for (const [label, { namespaces, role, ...extra }] of Object.entries(specs)) {
    const { key, entry } = await newKey({ name: label, namespaces, role });
    keys[label] = key;
    entries.push({ ...entry, ...extra });
  }
  return { keys, secret: JSON.stringify(entries) };
}

/**
 * Starts the Worker. `keys`: specs for makeKeys; `vars`: other MEMDEX_*
 * settings; `isolates`: worker names (each its own isolate; the first
 * defines the Durable Objects); `persist`: state folder.
 */
export async function startWorker({ keys: specs = { admin: { namespaces: ['*'], role: 'admin' } }, vars = {}, isolates, persist, isolateVars = {} } = {}) {
  const { keys, secret } = await makeKeys(specs);
  const all = { MEMDEX_API_KEYS: secret, ...vars };
  const names = isolates ?? ['memdex'];
  const workers = names.map((name, i) =>
    workerOptions({ name, vars: { ...all, ...(isolateVars[name] ?? {}) }, writerScript: i === 0 ? undefined : names[0] }),
  );
  const mf = new Miniflare(miniflareOptions({ persist, workers }));
  const base = await mf.ready;
  return { mf, base, keys, client: (key) => client(base, key) };
}

/**
 * A small HTTP client: `call(method, path, { body, json, headers, key })`
 * resolves to `{ status, headers, body }` (body parsed when JSON).
 */
export function client(base, defaultKey, fetcher = fetch) {
  return async function call(method, path, { body, json, headers = {}, key = defaultKey } = {}) {
    const h = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    if (json !== undefined) {
      body = JSON.stringify(json);
      h['content-type'] ??= 'application/json';
    }
    const res = await fetcher(new URL(path, base).toString(), { method, headers: h, body });
    const text = await res.text();
    let parsed = text;
    if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

/** A fresh temporary folder. */
export const tempDir = (label) => mkdtempSync(join(tmpdir(), `memdex-${label}-`));

/**
 * Runs `make worker` (PORT, state folder, .dev.vars given) as the user
 * would; resolves once it listens. `stop(signal)` ends its whole process
 * group (make, node, workerd) and resolves when it is gone.
 */
export async function startMakeWorker({ port, state, secret, vars = {} }) {
  const devVars = join(state, '.dev.vars');
  const lines = [`MEMDEX_API_KEYS='${secret}'`, ...Object.entries(vars).map(([k, v]) => `${k}='${v}'`)];
  writeFileSync(devVars, lines.join('\n') + '\n');
  const child = spawn('make', ['-s', '--no-print-directory', 'worker', `PORT=${port}`, `MEMDEX_STATE_DIR=${state}`, `MEMDEX_DEV_VARS=${devVars}`], {
    cwd: ROOT,
    detached: true, // its own process group, so the test can stop all of it
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`make worker exited: ${output}`);
    if (/listening on/.test(output)) break;
    if (Date.now() > deadline) throw new Error(`make worker did not start: ${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    base: `http://127.0.0.1:${port}`,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      try {
        process.kill(-child.pid, signal);
      } catch {
        // already gone
      }
      await exited;
      // The group may outlive its leader for a moment (workerd exiting).
      for (let i = 0; i < 50; i++) {
        try {
          process.kill(-child.pid, 0);
        } catch {
          return;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
      process.kill(-child.pid, 'SIGKILL');
    },
  };
}

/** A free TCP port on loopback. */
export async function freePort() {
  const { createServer } = await import('node:net');
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * Starts an inline test worker (`script`, an ES module that imports package
 * files by path; `name` gives it a location beside tests/worker/ so those
 * imports resolve) in workerd with a KV namespace `KV`, plus `extra`
 * Miniflare options. `bundle`: bundled as the Worker is (for scripts that
 * import worker/src modules, which import `memdex` by package name).
 * Returns `{ mf, base }`; dispose `mf` when done.
 */
export async function startTestWorker(script, name, extra = {}, { bundle = false } = {}) {
  const code = bundle
    ? { modules: bundleModules({ stdin: { contents: script, resolveDir: `${ROOT}/tests/worker`, sourcefile: `${name}.js` } }), modulesRoot: BUNDLE_ROOT }
    : {
        modules: true,
        script,
        scriptPath: `${ROOT}/tests/worker/${name}.js`,
        modulesRoot: ROOT,
        modulesRules: [
          { type: 'ESModule', include: ['**/*.js'] },
          { type: 'CompiledWasm', include: ['**/*.wasm'] },
        ],
      };
  const mf = new Miniflare({ ...code, compatibilityDate: COMPATIBILITY_DATE, kvNamespaces: ['KV'], ...extra });
  return { mf, base: await mf.ready };
}

/**
 * {@link startTestWorker} for one test file: started `before` its tests,
 * disposed `after` them. `mf` is the Miniflare instance once started,
 * `url(path)` a URL on the worker, `call(path)` a GET answered 200 with
 * JSON (its body; any other status fails the test with the body).
 */
export function useTestWorker(script, name, extra = {}, how = {}) {
  const worker = {
    mf: undefined,
    base: undefined,
    url: (path) => new URL(path, worker.base),
    async call(path) {
      const res = await fetch(worker.url(path));
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    },
  };
  before(async () => {
    ({ mf: worker.mf, base: worker.base } = await startTestWorker(script, name, extra, how));
  });
  after(async () => {
    await worker.mf?.dispose();
  });
  return worker;
}
